"""Round verification on the phones and the organiser's page (issue 11).

Under a settled round's banner every phone shows its verification; a phone
joined to another seat than the one that entered the round's last event gets
"Confirm" and "Dispute" (with a short reason). A dispute is flagged on the
organiser's game page, which marks the round confirmed (or the organiser
corrects or voids it through the corrections). Services: ``referee.services.verification``.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from referee.engine import RefereeError
from referee.exceptions import ServiceError
from referee.middleware import checks_conditions
from referee.models import Game
from referee.services import Actor, verification
from referee.web import taps
from referee.web.forms import VerifyForm
from referee.web.organising import organiser_page
from referee.web.session import session_token


@checks_conditions
@require_POST
@taps.database_unavailable_as_503
def verify(request: Any) -> HttpResponse:
    """A tap on "Confirm" or "Dispute" under a settled round's banner."""
    token = session_token(request)
    if token is None:
        return taps.gone(request)
    form = VerifyForm(request.POST)
    if not form.is_valid():
        return taps.answer(request, token, taps.form_refusal(form), 400)
    data = form.cleaned_data
    actor = Actor(token=token)
    body = {"kind": "verify", "round": data["round"], "verdict": data["verdict"]}
    body["reason"] = data.get("reason") or ""
    idempotency = taps.idempotency(request, data, body)
    try:
        if data["verdict"] == "confirm":
            result = verification.round_confirm(
                game_id=token.game_id, round=data["round"], actor=actor, idempotency=idempotency
            )
            text = gettext("Round %(number)s confirmed from this phone.")
        else:
            result = verification.round_dispute(
                game_id=token.game_id,
                round=data["round"],
                actor=actor,
                reason=data.get("reason") or "",
                idempotency=idempotency,
            )
            text = gettext("Round %(number)s disputed: the organiser will resolve it.")
    except (RefereeError, ServiceError) as error:
        flash, status = taps.refusal(
            error, token, gettext("round %(number)s") % {"number": data["round"]}
        )
        return taps.answer(request, token, flash, status)
    flash = taps.flash_message("ok", text % {"number": data["round"]})
    return taps.answer(request, token, flash, 200, state=taps.fresh_state(result))


# -- the organiser's page ---------------------------------------------------------------------


@require_POST
@organiser_page
@taps.database_unavailable_as_503
def organiser_resolve(request: Any, game: Game, number: int) -> HttpResponse:
    """The organiser marks round ``number`` confirmed (resolving its dispute).

    Whoever may run the game (its creator, an organiser of its club, staff: as every
    organiser page, ``organiser_page``); anyone else signed in, or a phone of the table,
    gets the 403 page. A note over 200 characters is refused with a message, not cut."""
    note = request.POST.get("note", "")
    try:
        verification.round_resolve(
            game_id=game.pk, round=number, actor=Actor(user=request.user), note=note
        )
    except ServiceError as error:
        messages.error(request, error.detail)
    else:
        messages.success(
            request, gettext("Round %(number)s is marked confirmed.") % {"number": number}
        )
    # Back to the page the organiser runs the game from, at the rounds' verification.
    return redirect(reverse("web:organiser-manage", args=[game.pk]) + "#verifications")
