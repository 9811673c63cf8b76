"""Round verification on the phones and the organiser's page (issue 11).

Under a settled round's banner every phone shows its verification; a phone
joined to another seat than the one that entered the round's last event gets
"Confirm" and "Dispute" (with a short reason). A dispute is flagged on the
organiser's game page, which marks the round confirmed (or the organiser
corrects or voids it through the corrections). Services: ``referee.verification``.
"""

from __future__ import annotations

import re
from typing import Any

from django import forms as django_forms
from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from referee.engine import RefereeError
from referee.exceptions import ServiceError
from referee.middleware import checks_conditions
from referee.models import Event, Game, RoundVerification
from referee.selectors import cached_verification
from referee.services import Actor, verification
from referee.web import forms, views
from referee.web.organiser import organiser_page
from referee.web.session import session_token

_SEAT_OF_TOKEN = re.compile(r"\(seat ([0-4])\)$")


class VerifyForm(forms._WriteForm):
    """Confirm or dispute (with a reason, ≤ 200 characters) settled round ``round``."""

    round = django_forms.IntegerField(min_value=1)
    # Not "action": an input of that name would hide the form's own ``action`` from scripts.
    verdict = django_forms.ChoiceField(choices=[("confirm", "confirm"), ("dispute", "dispute")])
    reason = django_forms.CharField(
        required=False, max_length=verification.VERIFICATION_REASON_MAX, strip=True
    )


def round_summary(page: Any) -> dict[str, Any] | None:
    """What the phone draws about the last settled round: its verification in words and
    whether this phone may confirm or dispute it (``None``: no settled round to show).

    Under the banner while the next round waits for its lead; once the next round has
    begun with declared hands but no lead yet, the same block stands alone (read from
    the stored events: the state no longer carries the finished round).
    """
    rnd = page.state["round"]
    previous = rnd.get("previous")
    if previous is not None and previous.get("verification") is not None:
        number = previous["number"]
        data = previous["verification"]
        voided = previous.get("void") is not None
        entered_seat = _last_entry_seat(page.state, number)
        alone = False
    elif "outcome" in rnd and rnd["status"] == "awaiting_lead" and rnd["number"] > 1:
        number = rnd["number"] - 1
        data = cached_verification(page.game, number)
        events = Event.objects.filter(
            game=page.game, round_number=number, revoked_by__isnull=True
        ).order_by("-position")
        voided = events.filter(kind=Event.Kind.VOID).exists()
        last = events.filter(kind__in=[Event.Kind.MOVE, Event.Kind.REVEAL]).first()
        entered_seat = _seat_of(last.entered_by) if last is not None else None
        alone = True
    else:
        return None
    seats = page.seats
    who = seats[data["seat"]] if data.get("seat") is not None else None
    mine = page.my_seat is not None and entered_seat == page.my_seat
    open_game = page.state["status"] == Game.Status.OPEN
    may_verify = open_game and page.my_seat is not None and not voided and not mine
    return {
        "number": number,
        "alone": alone,
        "status": data["status"],
        "who": who,
        "reason": data.get("reason"),
        "resolution": data.get("resolution"),
        "note": data.get("note"),
        "voided": voided,
        "own_entry": mine,
        "can_confirm": may_verify and data["status"] == "unverified",
        "can_dispute": may_verify and data["status"] in {"unverified", "confirmed", "resolved"},
        "reason_max": verification.VERIFICATION_REASON_MAX,
    }


def _seat_of(entered_by: str | None) -> int | None:
    """The seat of the table token that entered an event (``table token 7 (seat 2)``)."""
    match = _SEAT_OF_TOKEN.search(entered_by or "")
    return int(match.group(1)) if match else None


def _last_entry_seat(state: dict[str, Any], number: int) -> int | None:
    """The seat of the phone that entered round ``number``'s last play, pass or reveal."""
    entries = [
        e for e in state["last_events"] if e["round"] == number and e["kind"] in {"move", "reveal"}
    ]
    return _seat_of(entries[-1].get("entered_by")) if entries else None


@checks_conditions
@require_POST
@views.database_unavailable_as_503
def verify(request: Any) -> HttpResponse:
    """A tap on "Confirm" or "Dispute" under a settled round's banner."""
    token = session_token(request)
    if token is None:
        return views._gone(request)
    form = VerifyForm(request.POST)
    if not form.is_valid():
        return views._answer(request, token, views._form_refusal(form), 400)
    data = form.cleaned_data
    actor = Actor(token=token)
    body = {"kind": "verify", "round": data["round"], "verdict": data["verdict"]}
    body["reason"] = data.get("reason") or ""
    idempotency = views._idempotency(request, data, body)
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
        flash, status = views._refusal(
            error, token, gettext("round %(number)s") % {"number": data["round"]}
        )
        return views._answer(request, token, flash, status)
    flash = views._flash("ok", text % {"number": data["round"]})
    return views._answer(request, token, flash, 200, state=views._fresh_state(result))


# -- the organiser's page ---------------------------------------------------------------------


def organiser_context(game: Game) -> dict[str, Any]:
    """The game's rounds that are disputed, and the others' verifications, for its page."""
    rows = list(game.verifications.order_by("round_number"))
    names = {seat.number: seat.name for seat in game.seats.all()}
    listed = [
        {
            "number": row.round_number,
            "status": row.status,
            "who": names.get(row.seat) if row.seat is not None else None,
            "seat": row.seat,
            "reason": row.reason,
            "resolution": row.resolution,
        }
        for row in rows
        if row.status != RoundVerification.Status.UNVERIFIED
    ]
    return {
        "disputes": [r for r in listed if r["status"] == RoundVerification.Status.DISPUTED],
        "verifications": listed,
    }


@require_POST
@organiser_page
@views.database_unavailable_as_503
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
