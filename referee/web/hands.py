"""A seat's own hand on its phone (R31): declare it privately, then see what it can play.

Only a phone joined to one seat declares that seat's five tiles, with the same
28-tile picker as a reveal; the state gives a declared hand to that phone alone
(``referee.selectors.game_state``: its seat *and* its token), so nothing here
can draw another seat's hand, and no other page, poll or API answer carries it.
Once declared, the phone lists its five tiles, each labelled in words and with
a sign — playable now (✓), played (●), not playable now (–) — not by a shade of
grey alone. The hand is changed from the same phone (an amendment judged as a
replay, R37) or taken back with "Undo the last entry" while it is the last one.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from referee import services
from referee.engine import RefereeError
from referee.exceptions import SeatNotAllowed, ServiceError
from referee.idempotency import Replay
from referee.middleware import checks_conditions
from referee.models import TableToken
from referee.services import Actor, Submitted
from referee.services.corrections import Corrected
from referee.web import taps
from referee.web.forms import HandForm
from referee.web.session import session_token


@checks_conditions
@require_POST
@taps.database_unavailable_as_503
def declare(request: Any) -> HttpResponse:
    """Declare this phone's seat's hand (R31), or amend it (``position``: R37).

    Only a phone joined to a seat: a scorekeeper's page has no such form and its
    post is ``seat_not_allowed``. A refused hand is drawn again with its ticks.
    """
    token = session_token(request)
    if token is None:
        return taps.gone(request)
    form = HandForm(request.POST)
    ticked = frozenset(request.POST.getlist("tiles"))
    if not form.is_valid():
        return taps.answer(
            request, token, taps.form_refusal(form), 400, declare=True, ticked=ticked
        )
    data = form.cleaned_data
    payload = {"seat": token.seat, "tiles": list(data["tiles"])}
    tap = gettext("your hand")
    try:
        if token.seat is None:
            raise SeatNotAllowed(
                gettext("Only a phone joined to this seat may declare its hand (R31).")
            )
        result = _write(request, token, data, payload)
    except (RefereeError, ServiceError) as error:
        flash, status = taps.refusal(error, token, tap)
        keep: dict[str, Any] = (
            {"declare": True, "ticked": ticked} if status in {400, 403, 422} else {}
        )
        return taps.answer(request, token, flash, status, **keep)
    if (refused := taps.replayed_refusal(result)) is not None:
        flash, status = refused
        return taps.answer(request, token, flash, status, declare=True, ticked=ticked)
    flash = taps.flash_message("ok", gettext("Your hand is entered. Only this phone shows it."))
    if isinstance(result, Replay):
        flash = taps.accepted(result)
    status = 201 if data.get("position") is None else 200
    return taps.answer(request, token, flash, status, state=taps.fresh_state(result))


def _write(
    request: Any, token: TableToken, data: dict[str, Any], payload: dict[str, Any]
) -> Submitted | Corrected | Replay:
    precondition = taps.precondition(request, data)
    position = data.get("position")
    body = {"kind": "hand", "payload": payload, "position": position}
    idempotency = taps.idempotency(request, data, body)
    if position is None:
        return services.event_submit(
            game_id=token.game_id,
            kind="hand",
            payload=payload,
            actor=Actor(token=token),
            precondition=precondition,
            idempotency=idempotency,
        )
    return services.event_amend(
        game_id=token.game_id,
        position=position,
        payload=payload,
        actor=Actor(token=token),
        precondition=precondition,
        idempotency=idempotency,
        reason="hand changed on the seat's phone",
    )
