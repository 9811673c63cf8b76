"""The organiser's pages for a whole evening: corrections, rulings, sittings, phones, closing.

Signed in as an organiser (the game's creator, an organiser of its club, or
staff), on a phone or the laptop, with plain HTML forms (POST + CSRF; no
script needed). Every action calls the same service as the API — the same
validation, the same audit trail (``Correction``: author, time, reason):

- ``manage``: the game's sittings (R27), its rounds with their results, the
  seats (re-seat a name, seat a substitute from a round on, R38; release a
  seat), the table's phones (revoke one) and the latest corrections;
- ``round_page``: one round's result and its events; amend, insert or remove
  any event with a reason (R37), void the round (R35), adjust stones (R36);
- ``close``: close the game after a confirmation, on the version the page
  showed (the API's ``If-Match``: a stale one is 412 and says so).

A write answers with a message in the page's language and goes back to the
page (post/redirect/get). A refused write draws the same page again with
what was typed and the referee's refusal (code, rule, round, move; status
400/403/404/409/412/422), never losing the input. A signed-in user who does
not organise the game, or a phone of the table, gets a 403 page.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.utils.translation import gettext, ngettext, pgettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from referee import corrections, folding, services
from referee.corrections import Corrected
from referee.engine import RefereeError, RuleSet
from referee.engine.records import replay_record
from referee.exceptions import (
    IdempotencyKeyReused,
    PreconditionFailed,
    PreconditionRequired,
    ServiceError,
    TokenNotFound,
    VersionMismatch,
    referee_message,
)
from referee.idempotency import Idempotency, Rendered, Replay
from referee.league import league
from referee.models import Correction, Event, Game, GameSession
from referee.selectors import game_state_for
from referee.services import Actor, Precondition
from referee.web import organiser_forms as of
from referee.web.organising import organiser_page
from referee.web.panels import REASON_WORDS, verification_context
from referee.web.taps import database_unavailable_as_503

AUDIT_SHOWN = 10


def _actor(request: HttpRequest) -> Actor:
    return Actor(user=request.user)


# -- pages ----------------------------------------------------------------------------------


@never_cache
@require_safe
@database_unavailable_as_503
@organiser_page
def manage(request: HttpRequest, game: Game) -> HttpResponse:
    """The game's sittings, rounds, seats, phones and latest corrections."""
    return _render_manage(request, game)


@never_cache
@require_safe
@database_unavailable_as_503
@organiser_page
def round_page(request: HttpRequest, game: Game, number: int) -> HttpResponse:
    """One round: its result and events; ``?event=<position>`` opens that event's correction."""
    position = request.GET.get("event", "")
    return _render_round(
        request, game, number, selected=int(position) if position.isdigit() else None
    )


@require_POST
@database_unavailable_as_503
@organiser_page
def correct(request: HttpRequest, game: Game, number: int) -> HttpResponse:
    """Amend, insert or remove one event of round ``number`` (R37), with a reason."""
    form = of.CorrectionForm(request.POST)
    if not form.is_valid():
        return _render_round(request, game, number, form=form, status=400)
    data = form.cleaned_data
    payload = form.payload()
    op = data["op"]
    change = corrections.Change(
        op=op,
        position=data.get("position"),
        kind=form.kind if op == "insert" else None,
        payload=payload,
        round=number if op == "insert" else None,
    )
    try:
        result = corrections.events_correct(
            game_id=game.pk,
            changes=[change],
            actor=_actor(request),
            reason=data["reason"],
            precondition=Precondition(data["version"]),
            idempotency=_idempotency(request, form),
        )
    except (RefereeError, ServiceError) as error:
        refusal, status = _refusal(error, game)
        return _render_round(request, game, number, form=form, refusal=refusal, status=status)
    done = {
        "amend": gettext("The event is amended."),
        "insert": gettext("The event is inserted."),
        "remove": gettext("The event is removed."),
    }[op]
    _said(request, result, done)
    return redirect("web:organiser-round", game_id=game.pk, number=number)


@require_POST
@database_unavailable_as_503
@organiser_page
def void(request: HttpRequest, game: Game, number: int) -> HttpResponse:
    """Void round ``number`` with a reason (R35)."""
    form = of.VoidForm(request.POST)
    if not form.is_valid():
        return _render_round(request, game, number, void_form=form, status=400)
    data = form.cleaned_data
    try:
        result = corrections.round_void(
            game_id=game.pk,
            round=number,
            reason=data["reason"],
            actor=_actor(request),
            precondition=Precondition(data["version"]),
            idempotency=_idempotency(request, form),
        )
    except (RefereeError, ServiceError) as error:
        refusal, status = _refusal(error, game)
        return _render_round(request, game, number, void_form=form, refusal=refusal, status=status)
    _said(request, result, gettext("Round %(number)s is void.") % {"number": number})
    return redirect("web:organiser-round", game_id=game.pk, number=number)


@require_POST
@database_unavailable_as_503
@organiser_page
def adjust(request: HttpRequest, game: Game, number: int) -> HttpResponse:
    """Move stones after round ``number``'s awards, with a reason (R36)."""
    form = of.AdjustForm(request.POST)
    if not form.is_valid():
        return _render_round(request, game, number, adjust_form=form, status=400)
    data = form.cleaned_data
    source, to = form.holders()
    try:
        result = corrections.round_adjust(
            game_id=game.pk,
            round=number,
            source=source,
            to=to,
            stones=data["stones"],
            reason=data["reason"],
            actor=_actor(request),
            precondition=Precondition(data["version"]),
            idempotency=_idempotency(request, form),
        )
    except (RefereeError, ServiceError) as error:
        refusal, status = _refusal(error, game)
        return _render_round(
            request, game, number, adjust_form=form, refusal=refusal, status=status
        )
    _said(request, result, gettext("The stones are adjusted."))
    return redirect("web:organiser-round", game_id=game.pk, number=number)


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
            actor=_actor(request),
            reason=data["reason"],
        )
    except (RefereeError, ServiceError) as error:
        refusal, status = _refusal(error, game)
        forms = {seat: {"name": form}}
        return _render_manage(request, game, seat_forms=forms, refusal=refusal, status=status)
    _said(request, result, gettext("Seat %(seat)s is re-seated.") % {"seat": seat})
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
            actor=_actor(request),
            reason=data["reason"],
            precondition=Precondition(data["version"]),
            idempotency=_idempotency(request, form),
        )
    except (RefereeError, ServiceError) as error:
        refusal, status = _refusal(error, game)
        forms = {seat: {"substitute": form}}
        return _render_manage(request, game, seat_forms=forms, refusal=refusal, status=status)
    player = data.get("player")
    who = data["name"] or (dict(_club_players(game)).get(player, "") if player else "")
    _said(request, result, gettext("%(name)s sits seat %(seat)s.") % {"name": who, "seat": seat})
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
                game_id=game.pk, actor=_actor(request), precondition=precondition
            )
            text = gettext("Sitting %(number)s has started.")
        else:
            changed = services.session_end(
                game_id=game.pk, actor=_actor(request), precondition=precondition
            )
            text = gettext("Sitting %(number)s has ended.")
        assert isinstance(changed, services.SessionChanged)  # no key sent: never a replay
    except (RefereeError, ServiceError) as error:
        refusal, status = _refusal(error, game)
        return _render_manage(request, game, refusal=refusal, status=status)
    messages.success(request, text % {"number": changed.session.number})
    return redirect(reverse("web:organiser-manage", args=[game.pk]) + "#sittings")


@require_POST
@database_unavailable_as_503
@organiser_page
def token_revoke(request: HttpRequest, game: Game, token_id: int) -> HttpResponse:
    """Revoke one phone's token: it loses the game at once and its seat is free."""
    try:
        token = services.token_revoke(game_id=game.pk, token_id=token_id, actor=_actor(request))
    except (RefereeError, ServiceError) as error:
        refusal, status = _refusal(error, game)
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
        services.seat_release(game_id=game.pk, seat=seat, actor=_actor(request))
    except (RefereeError, ServiceError) as error:
        refusal, status = _refusal(error, game)
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
        return _render_close(request, game, refusal=_form_refusal(form), status=428)
    try:
        services.game_close(
            game_id=game.pk,
            actor=_actor(request),
            precondition=Precondition(form.cleaned_data["version"], from_header=True),
        )
    except (RefereeError, ServiceError) as error:
        refusal, status = _refusal(error, game)
        if isinstance(error, PreconditionFailed):
            refusal["text"] = gettext(
                "Not closed: the game changed since this page was shown (version %(shown)s, "
                "now %(now)s). Check it below and confirm again."
            ) % {"shown": form.cleaned_data["version"], "now": _fresh(game).version}
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
    game = _fresh(game)
    state = game_state_for(game)
    bound = {
        seat: {name: _rebound(f, game) for name, f in forms.items()}
        for seat, forms in (seat_forms or {}).items()
    }
    tokens = services.table_tokens(game=game, actor=_actor(request))
    live_tokens = [t for t in tokens if t.revoked_at is None]
    held = {t.seat: t for t in live_tokens if t.seat is not None}
    originals = game.players
    players = _club_players(game)
    seats = []
    for seat in state["seats"]:
        number = seat["seat"]
        forms = bound.get(number, {})
        name_form = forms.get("name") or of.SeatNameForm(initial=_initial(game), players=players)
        substitute_form = forms.get("substitute") or of.SubstituteForm(
            initial=_initial(game), players=players
        )
        seats.append(
            {
                **seat,
                "original": originals[number],
                "phone": held.get(number),
                "name_form": _ids(name_form, f"seat{number}-name"),
                "substitute_form": _ids(substitute_form, f"seat{number}-sub"),
                "open": number in bound,
            }
        )
    context = {
        "game": game,
        "state": state,
        "seats": seats,
        "rounds": _round_summaries(_results(game)),
        "sessions": list(GameSession.objects.filter(game=game).order_by("-number")[:5]),
        "open_session": state.get("session"),
        "sitting_form": of.OrganiserForm(initial=_initial(game), auto_id=False),  # drawn twice
        "phones": [{"token": t, "name": _phone_name(t)} for t in live_tokens],
        "revoked": [{"token": t, "name": _phone_name(t)} for t in tokens if t.revoked_at],
        "audit": _audit(game),
        "refusal": refusal,
        **verification_context(game),  # disputed rounds flagged here too (issue 11)
    }
    return render(request, "referee/organiser_manage.html", context, status=status)


def _render_round(
    request: HttpRequest,
    game: Game,
    number: int,
    *,
    selected: int | None = None,
    form: of.CorrectionForm | None = None,
    void_form: of.VoidForm | None = None,
    adjust_form: of.AdjustForm | None = None,
    refusal: dict[str, Any] | None = None,
    status: int = 200,
) -> HttpResponse:
    game = _fresh(game)
    form, void_form, adjust_form = (_rebound(f, game) for f in (form, void_form, adjust_form))
    live = _live_events(game)
    if number < 1 or number > max((e.round_number for e in live), default=0) + 1:
        return render(request, "referee/organiser_no_round.html", {"game": game}, status=404)
    names = _names_at(game, live, number)
    in_round = [e for e in live if e.round_number == number]
    if refusal is not None and refusal.get("round") == number and refusal.get("move") is not None:
        refusal["shown_move"] = _shown_move(refusal["move"], form, in_round)
    events = _event_rows(in_round, names, refusal, number)
    if refusal is not None:  # the event the referee refused, if it is on this page
        refusal["event"] = next((e for e in events if e["refused"]), None)
    posted = str(form.data.get("position", "")) if form is not None else ""
    if posted.isdigit():
        selected = int(posted)
    chosen = next((e for e in events if e["position"] == selected), None)
    if form is not None and not posted:  # adding an event at the end of the round
        add_form, edit_form = form, None
    else:
        add_form = of.CorrectionForm(initial={**_initial(game), "what": "play"})
        edit_form = form if form is not None and chosen is not None else None
        if edit_form is None and chosen is not None:
            edit_form = of.CorrectionForm(initial={**_initial(game), **chosen["initial"]})
    results = _results(game, live)
    result = results[number - 1] if number <= len(results) else None
    context = {
        "game": game,
        "number": number,
        "events": events,
        "chosen": chosen,
        "edit_form": _ids(edit_form, "edit"),
        "add_form": _ids(add_form, "add"),
        "void_form": _ids(void_form or of.VoidForm(initial=_initial(game)), "void"),
        "adjust_form": _ids(adjust_form or of.AdjustForm(initial=_initial(game)), "adjust"),
        "result": _result_view(result, names, live, number) if result else None,
        "previous": number - 1 if number > 1 else None,
        "next": number + 1 if number < len(results) else None,
        "refusal": refusal,
        "closed": game.status != Game.Status.OPEN,
    }
    return render(request, "referee/organiser_round.html", context, status=status)


def _render_close(
    request: HttpRequest, game: Game, *, refusal: dict[str, Any] | None = None, status: int = 200
) -> HttpResponse:
    game = _fresh(game)
    state = game_state_for(game)
    context = {
        "game": game,
        "state": state,
        "form": of.CloseForm(initial={"version": game.version}),
        "rounds": len(_results(game)),
        "refusal": refusal,
    }
    return render(request, "referee/organiser_close.html", context, status=status)


def _ids(form: Any, prefix: str) -> Any:
    """Give ``form``'s fields ids of their own (``<prefix>-<field>``): a page draws several
    forms with the same fields, and each label must name its own form's field."""
    if form is not None:
        form.auto_id = f"{prefix}-%s"
    return form


def _rebound(form: Any, game: Game) -> Any:
    """A refused form drawn again with what was typed, on the version now shown (and a
    fresh key): sending it again applies it to the game the page shows."""
    if form is not None and form.is_bound:
        data = form.data.copy()
        data["version"] = str(game.version)
        data["key"] = str(uuid.uuid4())
        form.data = data
    return form


def _fresh(game: Game) -> Game:
    game.refresh_from_db()
    return game


def _initial(game: Game) -> dict[str, Any]:
    """Every write form's hidden fields: the version shown and a fresh key."""
    return {"version": game.version, "key": uuid.uuid4()}


def _live_events(game: Game) -> list[Event]:
    return list(Event.objects.filter(game=game, revoked_by__isnull=True).order_by("position"))


def _results(game: Game, live: list[Event] | None = None) -> list[dict[str, Any]]:
    """The game's rounds as ``domeng-result/1`` gives them (``GET …/result/``): the replay of
    the record of its live events (``live``, read if not given), one pass."""
    events = _live_events(game) if live is None else live
    entries = [folding.Entry(e.kind, e.payload, e.round_number) for e in events]
    record = folding.entries_record(game.players, RuleSet.from_dict(game.rules), entries)
    try:
        return list(replay_record(record)["rounds"])
    except RefereeError:  # pragma: no cover - a stored game is a valid record
        return []


def _round_summaries(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each round in a few words for the list of rounds: number, ending, void."""
    return [
        {"number": r["number"], "words": _ending_words(r), "void": r.get("void", False)}
        for r in results
    ]


def _ending_words(result: dict[str, Any]) -> str:
    """``CEKI``, ``POLLO``, ``CAPPU``, ``MANGUNO``…, or "in play" / "void"."""
    if result.get("void"):
        return pgettext("round", "void")
    if result.get("ending") is None:
        return pgettext("round", "in play")
    words = []
    if result["ending"] == "cappu":
        finish = result.get("finish") or "plain"
        words.append("CAPPU" if finish == "plain" else finish.upper())
    else:
        words.append("MANGUNO")
        if result.get("mattikkeng"):
            words.append("MATTIKKENG")
    return " · ".join(words)


def _names_at(game: Game, live: list[Event], number: int) -> list[str]:
    """Who sat each seat in round ``number``: the seats' names, then substitutes (R38)."""
    names = list(game.players)
    subs = sorted(
        (e.payload for e in live if e.kind == Event.Kind.SUBSTITUTE),
        key=lambda p: p.get("round") or 0,
    )
    for payload in subs:
        if (payload.get("round") or 0) <= number and 0 <= payload.get("seat", -1) < 5:
            names[payload["seat"]] = payload.get("name") or names[payload["seat"]]
    return names


def _holder(value: Any, names: list[str]) -> str:
    if value == "table":
        return pgettext("stones", "the table")
    if isinstance(value, int) and 0 <= value < len(names):
        return names[value]
    return str(value)


def _shown_move(move: int, form: Any, events: list[Event]) -> int | None:
    """Where the refused move of the corrected round (0-based ``move``, as the error gives
    it) is among the moves the page lists: after an inserted move one earlier, after a
    removed one one later; ``None`` when it is the inserted move itself."""
    data = form.cleaned_data if form is not None and form.is_valid() else {}
    op, position = data.get("op"), data.get("position")
    if op not in {"insert", "remove"} or (op == "insert" and form.kind != "move"):
        return move
    moves = [e.position for e in events if e.kind == Event.Kind.MOVE]
    at = len(moves) if position is None else sum(1 for p in moves if p < position)
    if op == "insert":
        return None if move == at else (move - 1 if move > at else move)
    removed_a_move = position in moves
    return move + 1 if removed_a_move and move >= at else move


def _event_rows(
    events: list[Event], names: list[str], refusal: dict[str, Any] | None, number: int
) -> list[dict[str, Any]]:
    """A round's events as the round page lists them, each with its move number (1-based,
    plays and passes only, as an error's ``move`` + 1) and its form's initial values."""
    rows = []
    moves = 0
    for event in events:
        payload = event.payload
        seat = payload.get("seat")
        who = (
            {"seat": seat, "name": names[seat]} if isinstance(seat, int) and 0 <= seat < 5 else None
        )
        row: dict[str, Any] = {
            "position": event.position,
            "kind": event.kind,
            "e": {"who": who, "what": event.kind},
            "entered_by": event.entered_by,
            "created_at": event.created_at,
            "move": None,
            "editable": event.kind in {Event.Kind.MOVE, Event.Kind.REVEAL},
            "initial": {"op": "amend", "position": event.position, "seat": seat},
            "ruling": None,
        }
        if event.kind == Event.Kind.MOVE:
            row["move"] = moves + 1
            moves += 1
            if payload.get("pass"):
                row["e"]["what"] = "pass"
                row["initial"]["what"] = "pass"
            else:
                row["e"].update(what="play", tile=payload.get("tile"), on=payload.get("on"))
                row["initial"].update(what="play", tile=payload.get("tile"), on=payload.get("on"))
        elif event.kind == Event.Kind.REVEAL:
            if "pips" in payload:
                row["e"].update(what="reveal_pips", pips=payload["pips"])
                row["initial"].update(what="pips", pips=payload["pips"])
            else:
                tiles = " ".join(payload.get("tiles") or [])
                row["e"].update(what="reveal_tiles", tiles_text=tiles.replace(" ", ", "))
                row["initial"].update(what="tiles", tiles=tiles)
        elif event.kind == Event.Kind.VOID:
            row["ruling"] = gettext("Round voided: %(reason)s") % {
                "reason": payload.get("reason", "")
            }
        elif event.kind == Event.Kind.ADJUSTMENT:
            stones = payload.get("stones")
            row["ruling"] = ngettext(
                "%(stones)s stone from %(source)s to %(to)s: %(reason)s",
                "%(stones)s stones from %(source)s to %(to)s: %(reason)s",
                stones if isinstance(stones, int) else 0,
            ) % {
                "stones": payload.get("stones"),
                "source": _holder(payload.get("from"), names),
                "to": _holder(payload.get("to"), names),
                "reason": payload.get("reason", ""),
            }
        elif event.kind == Event.Kind.SUBSTITUTE:
            row["ruling"] = gettext("%(name)s sits seat %(seat)s from this round on") % {
                "name": payload.get("name"),
                "seat": seat,
            }
        row["refused"] = bool(
            refusal
            and refusal.get("shown_move") is not None
            and row["move"] == refusal["shown_move"] + 1
        )
        rows.append(row)
    return rows


def _result_view(
    result: dict[str, Any], names: list[str], live: list[Event], number: int
) -> dict[str, Any]:
    """A round's result with names: its ending, who was named, stones moved and after."""

    def who(seat: Any) -> str | None:
        return names[seat] if isinstance(seat, int) and 0 <= seat < 5 else None

    void_reason = next(
        (
            e.payload.get("reason", "")
            for e in live
            if e.kind == Event.Kind.VOID and e.round_number == number
        ),
        "",
    )
    after = result.get("after") or {}
    return {
        "words": _ending_words(result),
        "void": result.get("void", False),
        "void_reason": void_reason,
        "over": result.get("ending") is not None or result.get("void", False),
        "winner": who(result.get("winner")),
        "first_cappu": who(result.get("first_cappu")),
        "manguno": who(result.get("manguno")),
        "cucuq": who(result.get("cucuq")),
        "camat_elected": who(result.get("camat_elected")),
        "transfers": [
            {
                "source": _holder(t["from"], names),
                "to": _holder(t["to"], names),
                "stones": t["stones"],
                "reason": REASON_WORDS.get(t["reason"], t["reason"].upper()),
            }
            for t in result.get("transfers", [])
        ],
        "after": [
            {"name": names[seat], "seat": seat, "stones": stones}
            for seat, stones in enumerate(after.get("stones") or [])
        ],
        "table": after.get("table"),
    }


def _audit(game: Game) -> list[dict[str, Any]]:
    """The latest corrections and rulings: kind, who, when, why."""
    rows = Correction.objects.filter(game=game).order_by("-created_at", "-id")[:AUDIT_SHOWN]
    return [
        {
            "kind": row.get_kind_display(),
            "entered_by": row.entered_by,
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


def _idempotency(request: HttpRequest, form: of.OrganiserForm) -> Idempotency[Corrected]:
    """The form's key (rendered with it) and what it asked: a doubled submission counts once."""
    body = {k: v for k, v in request.POST.items() if k != "csrfmiddlewaretoken"}
    fingerprint = Idempotency.fingerprint_of(
        "POST", request.path, {"by": _actor(request).label, "body": body}
    )
    return Idempotency(f"web-organiser:{form.cleaned_data['key']}", fingerprint, _kept)


def _kept(result: Corrected) -> Rendered:
    """What the idempotency store keeps of a correction made from these pages (a
    ``web-organiser:…`` key is replayed to them alone): the correction's id, ``None`` when
    it changed nothing, and the version it made."""
    correction = result.correction
    return 200, {
        "correction": correction.pk if correction is not None else None,
        "version": result.game.version,
    }


def _said(request: HttpRequest, result: Corrected | Replay, done: str) -> None:
    """The success message: what was done, or that nothing changed (no correction stored;
    for a doubled submission, none stored the first time)."""
    if isinstance(result, Replay):
        nothing = "correction" in result.body and result.body["correction"] is None
    else:
        nothing = result.correction is None
    if nothing:
        messages.info(request, gettext("Nothing changed: the game is as it was."))
    else:
        messages.success(request, done)


def _refusal(error: RefereeError | ServiceError, game: Game) -> tuple[dict[str, Any], int]:
    """What the page says of a refused write, and its status.

    A rules error gives its message, ``code``, ``rule``, ``round`` and ``move``
    (0-based, as RECORD.md); a service error its message and ``code``.
    """
    if isinstance(error, RefereeError):
        error.with_names(game.players)
        refusal = {
            "text": referee_message(error),
            "code": error.code,
            "rule": error.rule,
            "round": error.round,
            "move": error.move,
            "move_number": error.move + 1 if error.move is not None else None,
        }
        return refusal, 400 if error.malformed else 422
    text = str(error.detail)
    if isinstance(error, VersionMismatch):
        text = gettext(
            "Not applied: the game changed since this page was shown (another phone or "
            "organiser entered something). Check the page below and send again."
        )
    elif isinstance(error, IdempotencyKeyReused):
        text = gettext("Not applied: this form was already sent with other content.")
    elif isinstance(error, PreconditionRequired):
        text = gettext("Not applied: the page's version is missing. Reload and try again.")
    return {"text": text, "code": error.code, "rule": None, "round": None, "move": None}, (
        error.status
    )


def _form_refusal(form: Any) -> dict[str, Any]:
    texts = [str(m) for errors in form.errors.values() for m in errors]
    return {"text": " ".join(texts), "code": "form_invalid", "rule": None, "round": None}


# -- routes (included by ``referee.web.urls``) ----------------------------------------------

urlpatterns = [
    path("games/<uuid:game_id>/manage/", manage, name="organiser-manage"),
    path("games/<uuid:game_id>/rounds/<int:number>/", round_page, name="organiser-round"),
    path("games/<uuid:game_id>/rounds/<int:number>/correct/", correct, name="organiser-correct"),
    path("games/<uuid:game_id>/rounds/<int:number>/void/", void, name="organiser-void"),
    path("games/<uuid:game_id>/rounds/<int:number>/adjust/", adjust, name="organiser-adjust"),
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
