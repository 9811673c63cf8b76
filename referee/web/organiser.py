"""The organiser's pages for a whole evening: corrections, rulings, sittings, phones, closing.

Signed in as an organiser (the game's creator, an organiser of its club, or
staff), on a phone or the laptop, with plain HTML forms (POST + CSRF; no
script needed). Every action calls the same service as the API — the same
validation, the same audit trail (``Correction``: author, time, reason):

- ``manage``: the game's sittings (R27), its rounds with their results, the
  seats (re-seat a name, seat a substitute from a round on, R38; release a
  seat), the table's phones (revoke one) and the latest corrections;
- one round's page, its corrections and rulings: ``referee.web.rulings``;
- ``close``: close the game after a confirmation, on the version the page
  showed (the API's ``If-Match``: a stale one is 412 and says so).

A write answers with a message in the page's language and goes back to the
page (post/redirect/get). A refused write draws the same page again with
what was typed and the referee's refusal (code, rule, round, move; status
400/403/404/409/412/422), never losing the input. A signed-in user who does
not organise the game, or a phone of the table, gets a 403 page.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from referee import services
from referee.engine import RefereeError
from referee.exceptions import (
    PreconditionFailed,
    ServiceError,
    TokenNotFound,
)
from referee.league import league
from referee.models import Correction, Game, GameSession
from referee.selectors import game_state_for
from referee.services import Precondition, corrections
from referee.web import charts, organising
from referee.web import organiser_forms as of
from referee.web.organising import organiser_page
from referee.web.panels import verification_context
from referee.web.taps import database_unavailable_as_503

AUDIT_SHOWN = 10


# -- pages ----------------------------------------------------------------------------------


@never_cache
@require_safe
@database_unavailable_as_503
@organiser_page
def manage(request: HttpRequest, game: Game) -> HttpResponse:
    """The game's sittings, rounds, seats, phones and latest corrections."""
    return _render_manage(request, game)


@require_POST
@database_unavailable_as_503
@organiser_page
def seat_name(request: HttpRequest, game: Game, seat: int) -> HttpResponse:
    """Re-seat: who sat ``seat`` from the game's start (R38)."""
    form = of.SeatNameForm(request.POST, players=_club_players(game))
    if seat > 4 or not form.is_valid():
        return _render_manage(request, game, seat_forms={seat: {"name": form}}, status=400)
    data = form.cleaned_data
    try:
        result = corrections.seat_rename(
            game_id=game.pk,
            seat=seat,
            name=data["name"] or None,
            player=data.get("player"),
            actor=organising.actor(request),
            reason=data["reason"],
        )
    except (RefereeError, ServiceError) as error:
        refusal, status = organising.refusal(error, game)
        forms = {seat: {"name": form}}
        return _render_manage(request, game, seat_forms=forms, refusal=refusal, status=status)
    organising.said(request, result, gettext("Seat %(seat)s is re-seated.") % {"seat": seat})
    return redirect(reverse("web:organiser-manage", args=[game.pk]) + f"#seat-{seat}")


@require_POST
@database_unavailable_as_503
@organiser_page
def substitute(request: HttpRequest, game: Game, seat: int) -> HttpResponse:
    """A substitute sits ``seat`` from a round on (R38)."""
    form = of.SubstituteForm(request.POST, players=_club_players(game))
    if seat > 4 or not form.is_valid():
        return _render_manage(request, game, seat_forms={seat: {"substitute": form}}, status=400)
    data = form.cleaned_data
    try:
        result = corrections.seat_substitute(
            game_id=game.pk,
            seat=seat,
            round=data.get("from_round"),
            name=data["name"] or None,
            player=data.get("player"),
            actor=organising.actor(request),
            reason=data["reason"],
            precondition=Precondition(data["version"]),
            idempotency=organising.idempotency(request, form),
        )
    except (RefereeError, ServiceError) as error:
        refusal, status = organising.refusal(error, game)
        forms = {seat: {"substitute": form}}
        return _render_manage(request, game, seat_forms=forms, refusal=refusal, status=status)
    player = data.get("player")
    who = data["name"] or (dict(_club_players(game)).get(player, "") if player else "")
    organising.said(
        request, result, gettext("%(name)s sits seat %(seat)s.") % {"name": who, "seat": seat}
    )
    return redirect(reverse("web:organiser-manage", args=[game.pk]) + f"#seat-{seat}")


@require_POST
@database_unavailable_as_503
@organiser_page
def sitting(request: HttpRequest, game: Game, action: str) -> HttpResponse:
    """Start a sitting (an open one is ended first) or end the open one (R27)."""
    form = of.OrganiserForm(request.POST)
    if not form.is_valid():
        return _render_manage(request, game, status=400)
    precondition = Precondition(form.cleaned_data["version"])
    try:
        if action == "start":
            changed = services.session_start(
                game_id=game.pk, actor=organising.actor(request), precondition=precondition
            )
            text = gettext("Sitting %(number)s has started.")
        else:
            changed = services.session_end(
                game_id=game.pk, actor=organising.actor(request), precondition=precondition
            )
            text = gettext("Sitting %(number)s has ended.")
        assert isinstance(changed, services.SessionChanged)  # no key sent: never a replay
    except (RefereeError, ServiceError) as error:
        refusal, status = organising.refusal(error, game)
        return _render_manage(request, game, refusal=refusal, status=status)
    messages.success(request, text % {"number": changed.session.number})
    return redirect(reverse("web:organiser-manage", args=[game.pk]) + "#sittings")


@require_POST
@database_unavailable_as_503
@organiser_page
def token_revoke(request: HttpRequest, game: Game, token_id: int) -> HttpResponse:
    """Revoke one phone's token: it loses the game at once and its seat is free."""
    try:
        token = services.token_revoke(
            game_id=game.pk, token_id=token_id, actor=organising.actor(request)
        )
    except (RefereeError, ServiceError) as error:
        refusal, status = organising.refusal(error, game)
        return _render_manage(request, game, refusal=refusal, status=status)
    messages.success(request, gettext("%(phone)s is revoked.") % {"phone": _phone_name(token)})
    return redirect(reverse("web:organiser-manage", args=[game.pk]) + "#phones")


@require_POST
@database_unavailable_as_503
@organiser_page
def seat_release(request: HttpRequest, game: Game, seat: int) -> HttpResponse:
    """Free ``seat`` for another phone (the phone holding it is revoked)."""
    try:
        if seat > 4:
            raise TokenNotFound()
        services.seat_release(game_id=game.pk, seat=seat, actor=organising.actor(request))
    except (RefereeError, ServiceError) as error:
        refusal, status = organising.refusal(error, game)
        return _render_manage(request, game, refusal=refusal, status=status)
    messages.success(request, gettext("Seat %(seat)s is free for another phone.") % {"seat": seat})
    return redirect(reverse("web:organiser-manage", args=[game.pk]) + "#phones")


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
@database_unavailable_as_503
@organiser_page
def close(request: HttpRequest, game: Game) -> HttpResponse:
    """Confirm, then close the game on the version the confirmation showed (``If-Match``)."""
    if request.method in ("GET", "HEAD"):
        return _render_close(request, game)
    form = of.CloseForm(request.POST)
    if not form.is_valid():
        return _render_close(request, game, refusal=organising.form_refusal(form), status=428)
    try:
        services.game_close(
            game_id=game.pk,
            actor=organising.actor(request),
            precondition=Precondition(form.cleaned_data["version"], from_header=True),
        )
    except (RefereeError, ServiceError) as error:
        refusal, status = organising.refusal(error, game)
        if isinstance(error, PreconditionFailed):
            refusal["text"] = gettext(
                "Not closed: the game changed since this page was shown (version %(shown)s, "
                "now %(now)s). Check it below and confirm again."
            ) % {"shown": form.cleaned_data["version"], "now": organising.fresh(game).version}
        return _render_close(request, game, refusal=refusal, status=status)
    messages.success(request, gettext("The game is closed. Its record and result stay readable."))
    return redirect("web:organiser-manage", game_id=game.pk)


# -- rendering ------------------------------------------------------------------------------


def _render_manage(
    request: HttpRequest,
    game: Game,
    *,
    seat_forms: dict[int, dict[str, Any]] | None = None,
    refusal: dict[str, Any] | None = None,
    status: int = 200,
) -> HttpResponse:
    game = organising.fresh(game)
    state = game_state_for(game, organiser=True)
    bound = {
        seat: {name: organising.rebound(f, game) for name, f in forms.items()}
        for seat, forms in (seat_forms or {}).items()
    }
    tokens = services.table_tokens(game=game, actor=organising.actor(request))
    live_tokens = [t for t in tokens if t.revoked_at is None]
    held = {t.seat: t for t in live_tokens if t.seat is not None}
    originals = game.players
    players = _club_players(game)
    seats = []
    for seat in state["seats"]:
        number = seat["seat"]
        forms = bound.get(number, {})
        name_form = forms.get("name") or of.SeatNameForm(
            initial=organising.initial(game), players=players
        )
        substitute_form = forms.get("substitute") or of.SubstituteForm(
            initial=organising.initial(game), players=players
        )
        seats.append(
            {
                **seat,
                "original": originals[number],
                "phone": held.get(number),
                "name_form": organising.ids(name_form, f"seat{number}-name"),
                "substitute_form": organising.ids(substitute_form, f"seat{number}-sub"),
                "open": number in bound,
            }
        )
    live = organising.live_events(game)
    results = organising.round_results(game, live)
    sessions = list(GameSession.objects.filter(game=game).order_by("-number"))
    context = {
        "game": game,
        "state": state,
        "seats": seats,
        "rounds": _round_summaries(results),
        "stones_picture": charts.game_stones(
            names=[seat["name"] for seat in state["seats"]],
            rounds=results,
            sittings=round_sittings(live, sessions),
        ),
        "sessions": sessions[:5],
        "open_session": state.get("session"),
        "sitting_form": of.OrganiserForm(
            initial=organising.initial(game), auto_id=False
        ),  # drawn twice
        "phones": [{"token": t, "name": _phone_name(t)} for t in live_tokens],
        "revoked": [{"token": t, "name": _phone_name(t)} for t in tokens if t.revoked_at],
        "audit": _audit(game),
        "refusal": refusal,
        **verification_context(game),  # disputed rounds flagged here too (issue 11)
    }
    return render(request, "referee/organiser_manage.html", context, status=status)


def _render_close(
    request: HttpRequest, game: Game, *, refusal: dict[str, Any] | None = None, status: int = 200
) -> HttpResponse:
    game = organising.fresh(game)
    state = game_state_for(game, organiser=True)
    context = {
        "game": game,
        "state": state,
        "form": of.CloseForm(initial={"version": game.version}),
        "rounds": len(organising.round_results(game)),
        "refusal": refusal,
    }
    return render(request, "referee/organiser_close.html", context, status=status)


def round_sittings(live: list[Any], sessions: list[GameSession]) -> dict[int, int]:
    """Round number → the number of the sitting (R27) its first live event was entered in
    (rounds entered outside any sitting are left out). No query: ``live`` and ``sessions``
    are read already."""
    numbers = {s.pk: s.number for s in sessions}
    sittings: dict[int, int] = {}
    for event in live:
        if event.round_number not in sittings and event.session_id in numbers:
            sittings[event.round_number] = numbers[event.session_id]
    return sittings


def _round_summaries(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each round in a few words for the list of rounds: number, ending, void."""
    return [
        {"number": r["number"], "words": organising.ending_words(r), "void": r.get("void", False)}
        for r in results
    ]


def _audit(game: Game) -> list[dict[str, Any]]:
    """The latest corrections and rulings: kind, who, when, why."""
    rows = Correction.objects.filter(game=game).order_by("-created_at", "-id")[:AUDIT_SHOWN]
    return [
        {
            "kind": row.get_kind_display(),
            "entered_by": organising.author_words(row.entered_by),
            "created_at": row.created_at,
            "reason": row.reason,
        }
        for row in rows
    ]


def _club_players(game: Game) -> list[tuple[int, str]]:
    """The registered players of the game's club, for re-seating (none: a guests' game)."""
    return league().club_players(game=game)


def _phone_name(token: Any) -> str:
    if token.seat is None:
        return gettext("The scorekeeper's phone (%(label)s)") % {"label": token.label or "—"}
    return gettext("Seat %(seat)s's phone (%(label)s)") % {
        "seat": token.seat,
        "label": token.label or "—",
    }


# -- answers --------------------------------------------------------------------------------


# -- routes (included by ``referee.web.urls``) ----------------------------------------------

urlpatterns = [
    path("games/<uuid:game_id>/manage/", manage, name="organiser-manage"),
    path("games/<uuid:game_id>/seats/<int:seat>/name/", seat_name, name="organiser-seat-name"),
    path(
        "games/<uuid:game_id>/seats/<int:seat>/substitute/",
        substitute,
        name="organiser-substitute",
    ),
    path(
        "games/<uuid:game_id>/seats/<int:seat>/release/",
        seat_release,
        name="organiser-seat-release",
    ),
    path(
        "games/<uuid:game_id>/sittings/start/",
        sitting,
        {"action": "start"},
        name="organiser-sitting-start",
    ),
    path(
        "games/<uuid:game_id>/sittings/end/",
        sitting,
        {"action": "end"},
        name="organiser-sitting-end",
    ),
    path(
        "games/<uuid:game_id>/phones/<int:token_id>/revoke/",
        token_revoke,
        name="organiser-token-revoke",
    ),
    path("games/<uuid:game_id>/close/", close, name="organiser-close"),
]
