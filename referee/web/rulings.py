"""The organiser's round pages: one round's result and its events; amend, insert or
remove any event with a reason (R37), void the round (R35), adjust stones (R36).

As every organiser's page (``referee.web.organising``): the same services as the API,
a write answers with a message and goes back to the page; a refused one draws the page
again with what was typed and the referee's refusal (code, rule, round, move).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.utils.translation import gettext, ngettext, pgettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST, require_safe

from referee import settled
from referee.engine import RefereeError, RuleSet
from referee.exceptions import (
    ServiceError,
)
from referee.models import Event, Game
from referee.services import Precondition, corrections
from referee.store import rules_of
from referee.web import organiser_forms as of
from referee.web import organising
from referee.web.organising import organiser_page
from referee.web.panels import reason_text, result_award_paid
from referee.web.taps import database_unavailable_as_503


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
    changes = [change, *_answers(game, data)]
    try:
        result = corrections.events_correct(
            game_id=game.pk,
            changes=changes,
            actor=organising.actor(request),
            reason=data["reason"],
            precondition=Precondition(data["version"]),
            idempotency=organising.idempotency(request, form),
        )
    except (RefereeError, ServiceError) as error:
        refusal, status = organising.refusal(error, game)
        return _render_round(request, game, number, form=form, refusal=refusal, status=status)
    done = {
        "amend": gettext("The event is amended."),
        "insert": gettext("The event is inserted."),
        "remove": gettext("The event is removed."),
    }[op]
    organising.said(request, result, done)
    return redirect("web:organiser-round", game_id=game.pk, number=number)


def _answers(game: Game, data: dict[str, Any]) -> list[corrections.Change]:
    """The answer to the page's question (``_question``), if given: the later play at
    ``answer_position`` goes on the end showing ``answer_on`` (R11), in the same batch."""
    position, on = data.get("answer_position"), data.get("answer_on")
    if position is None or on is None:
        return []
    event = next(
        (e for e in organising.live_events(game) if e.position == position),
        None,
    )
    if event is None or event.kind != Event.Kind.MOVE or "tile" not in event.payload:
        return []
    payload = {k: v for k, v in event.payload.items() if k in ("seat", "tile")}
    return [corrections.Change("amend", position, payload={**payload, "on": on})]


def _question(
    refusal: dict[str, Any] | None, live: list[Event], number: int, names: list[str]
) -> dict[str, Any] | None:
    """After an ``end_required`` refusal of a later play (R11): that play, asked about in
    the correction's own form — on which of the open ends (``choices``) does it lie?"""
    if refusal is None or refusal.get("code") != "end_required" or not refusal.get("choices"):
        return None
    round_number, move = refusal.get("round"), refusal.get("shown_move", refusal.get("move"))
    if round_number is None or move is None:
        return None
    moves = [e for e in live if e.round_number == round_number and e.kind == Event.Kind.MOVE]
    if not 0 <= move < len(moves):
        return None
    event = moves[move]
    seat = event.payload.get("seat")
    return {
        "position": event.position,
        "round": round_number,
        "move": move + 1,
        "tile": event.payload.get("tile"),
        "name": names[seat] if isinstance(seat, int) and 0 <= seat < 5 else "",
        "choices": sorted(set(refusal["choices"])),
    }


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
            actor=organising.actor(request),
            precondition=Precondition(data["version"]),
            idempotency=organising.idempotency(request, form),
        )
    except (RefereeError, ServiceError) as error:
        refusal, status = organising.refusal(error, game)
        return _render_round(request, game, number, void_form=form, refusal=refusal, status=status)
    organising.said(request, result, gettext("Round %(number)s is void.") % {"number": number})
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
            actor=organising.actor(request),
            precondition=Precondition(data["version"]),
            idempotency=organising.idempotency(request, form),
        )
    except (RefereeError, ServiceError) as error:
        refusal, status = organising.refusal(error, game)
        return _render_round(
            request, game, number, adjust_form=form, refusal=refusal, status=status
        )
    organising.said(request, result, gettext("The stones are adjusted."))
    return redirect("web:organiser-round", game_id=game.pk, number=number)


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
    game = organising.fresh(game)
    form, void_form, adjust_form = (
        organising.rebound(f, game) for f in (form, void_form, adjust_form)
    )
    last = organising.last_round(game)
    if number < 1 or number > last + 1:
        return render(request, "referee/organiser_no_round.html", {"game": game}, status=404)
    shown = {number}
    if refusal is not None and type(refusal.get("round")) is int:
        shown.add(refusal["round"])
    live = organising.live_events(game, shown)  # this round's (and a refused play's round)
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
        add_form = of.CorrectionForm(initial={**organising.initial(game), "what": "play"})
        edit_form = form if form is not None and chosen is not None else None
        if edit_form is None and chosen is not None:
            edit_form = of.CorrectionForm(initial={**organising.initial(game), **chosen["initial"]})
    result = settled.stored_result(game, number)  # a settled round's row (issue 29)
    if result is not None:
        rounds = max(last, number)
    else:
        results = organising.round_results(game, live)
        result = results[number - 1] if number <= len(results) else None
        rounds = len(results)
    context = {
        "game": game,
        "number": number,
        "events": events,
        "chosen": chosen,
        "edit_form": organising.named_seats(organising.ids(edit_form, "edit"), names),
        "add_form": organising.named_seats(organising.ids(add_form, "add"), names),
        "void_form": organising.ids(
            void_form or of.VoidForm(initial=organising.initial(game)), "void"
        ),
        "adjust_form": organising.named_seats(
            organising.ids(
                adjust_form or of.AdjustForm(initial=organising.initial(game)), "adjust"
            ),
            names,
        ),
        "result": _result_view(result, names, live, number, rules_of(game)) if result else None,
        "previous": number - 1 if number > 1 else None,
        "next": number + 1 if number < rounds else None,
        "refusal": refusal,
        "question": _question(refusal, live, number, names) if edit_form is not None else None,
        "closed": game.status != Game.Status.OPEN,
    }
    return render(request, "referee/organiser_round.html", context, status=status)


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
    """Who gives or takes stones in "N stones from X to Y": a seat's player or the table,
    in the case that sentence needs (pl "od stołu", "dla stołu"; QA)."""
    if value == "table":
        return pgettext("stones from or to", "the table")
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
            "entered_by": organising.author_words(event.entered_by),
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
    result: dict[str, Any], names: list[str], live: list[Event], number: int, rules: RuleSet
) -> dict[str, Any]:
    """A round's result with names: its ending, who was named, stones moved and after, and
    an end award unpaid or paid in part (R23), read as the phones read it."""

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
    paid = result_award_paid(result, rules)
    return {
        "words": organising.ending_words(result),
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
                "reason": reason_text(t["reason"]),
            }
            for t in result.get("transfers", [])
        ],
        "after": [
            {"name": names[seat], "seat": seat, "stones": stones}
            for seat, stones in enumerate(after.get("stones") or [])
        ],
        "table": after.get("table"),
        "unpaid": who(paid.to) if paid is not None and paid.is_unpaid else None,
        "short": (
            {"name": who(paid.to), "paid": paid.paid, "owed": paid.owed}
            if paid is not None and paid.is_short
            else None
        ),
    }


# -- routes (included by ``referee.web.urls``) ----------------------------------------------

urlpatterns = [
    path("games/<uuid:game_id>/rounds/<int:number>/", round_page, name="organiser-round"),
    path("games/<uuid:game_id>/rounds/<int:number>/correct/", correct, name="organiser-correct"),
    path("games/<uuid:game_id>/rounds/<int:number>/void/", void, name="organiser-void"),
    path("games/<uuid:game_id>/rounds/<int:number>/adjust/", adjust, name="organiser-adjust"),
]
