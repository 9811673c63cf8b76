"""Stored events → the rules core: apply one event to an ``engine.Game`` and say what it did.

An event is ``(kind, payload)`` with ``kind`` one of ``move``, ``hand``,
``reveal`` and ``payload`` in record form (see ``referee.models.Event``), or
one of the organiser's rulings: ``void`` ``{"round", "reason"}`` (R35),
``adjustment`` ``{"round", "from", "to", "stones", "reason"}`` (R36),
``substitute`` ``{"round", "seat", "name", "player"?}`` (R38). The fold is the
only place where stored events meet the rules.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, overload

import orjson

from referee.engine import Game, RuleSet, Standing
from referee.engine.errors import RecordInvalid, RulingInvalid, gettext_noop
from referee.engine.game import GameMoveReport
from referee.engine.moves import Play
from referee.engine.round import check_seat


@dataclass
class Effects:
    """What one event did: named outcomes, stones moved, the round it belongs to.

    ``named`` holds the table's words (PASS, PASSEBUNGE, MAPPAKULING, FIRST CAPPU,
    CEKI, POLLO, MANGUNO, MATTIKKENG, CUCUQ, CAMAT); ``transfers`` are as in a
    ``domeng-result/1`` round; ``round_ended`` / ``settled`` say whether the
    event ended or settled its round.
    """

    round: int
    named: list[str] = field(default_factory=list)
    transfers: list[dict[str, Any]] = field(default_factory=list)
    round_ended: bool = False
    settled: bool = False
    camat_elected: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "named": self.named,
            "transfers": self.transfers,
            "round_ended": self.round_ended,
            "settled": self.settled,
            "camat_elected": self.camat_elected,
        }


_Known = TypeVar("_Known", bound=Sequence[Effects])


def apply_event(game: Game, kind: str, payload: dict[str, Any]) -> Effects:
    """Apply one stored event to ``game``; raises the core's ``RefereeError``."""
    if kind == "move":
        return _move_effects(game, game.push(payload))
    if kind == "hand":
        # A table's declaration may share a tile with another seat's (R31: accepted, so
        # that it answers no question about other hands; the organiser resolves it).
        game.declare(payload.get("seat"), payload.get("tiles"), shared=True)  # type: ignore[arg-type]
        return Effects(round=game.rounds[-1].round.number)
    if kind == "reveal":
        was_settled = game.current is None
        # Both given (or neither) is the core's record_invalid (R18), never silently one of them.
        transfers = game.reveal(
            payload.get("seat"),  # type: ignore[arg-type]
            tiles=payload.get("tiles"),
            pips=payload.get("pips"),
        )
        game_round = game.rounds[-1]
        effects = Effects(round=game_round.round.number, transfers=[t.to_dict() for t in transfers])
        if not was_settled and game_round.round.is_settled():
            effects.settled = True
            outcome = game_round.round.outcome
            assert outcome is not None
            effects.named = list(outcome.named)
            effects.camat_elected = game_round.camat_elected
        return effects
    if kind in RULING_KINDS:
        return _apply_ruling(game, kind, payload)
    raise RecordInvalid(gettext_noop("unknown event kind %(kind)s"), kind=kind)


RULING_KINDS = frozenset({"void", "adjustment", "substitute"})
"""Event kinds that only an organiser enters (R35, R36, R38)."""


def ruling_round(kind: str, payload: dict[str, Any]) -> int | None:
    """The round a ruling names (``payload["round"]``), or ``None`` if it names none."""
    number = payload.get("round") if kind in RULING_KINDS else None
    return number if type(number) is int and number >= 1 else None


def _apply_ruling(game: Game, kind: str, payload: dict[str, Any]) -> Effects:
    number = ruling_round(kind, payload)
    if number is None:
        raise RulingInvalid(gettext_noop("a ruling names its round (1, 2, …)"), rule="R35")
    if kind == "void":
        game.void_round(number, payload.get("reason"))
        return Effects(round=number)
    if kind == "adjustment":
        data = {k: payload.get(k) for k in ("from", "to", "stones", "reason")}
        transfer = game.adjust(number, data)
        return Effects(round=number, transfers=[transfer.to_dict()])
    game.substitute(number, payload.get("seat"), payload.get("name"))
    return Effects(round=number)


def _move_effects(game: Game, result: GameMoveReport) -> Effects:
    report = result.report
    effects = Effects(
        round=game.rounds[-1].round.number,
        transfers=[t.to_dict() for t in result.transfers],
        settled=result.settled,
        camat_elected=result.camat_elected,
    )
    if result.voided:
        return effects  # a voided round's move names nothing (R35)
    if report.move.is_pass:
        effects.named.append("PASSEBUNGE" if report.passebunge else "PASS")
    elif isinstance(report.move, Play) and report.mappakuling:
        effects.named.append("MAPPAKULING")
    if report.outcome is not None:
        effects.round_ended = True
        effects.named.extend(game.rounds[-1].round.outcome.named)  # type: ignore[union-attr]
    if result.camat_elected is not None:
        effects.named.append("CAMAT")
    return effects


def initial_snapshot(rules: RuleSet) -> dict[str, Any]:
    """The snapshot of a game with no round yet: every stone on the table (R22)."""
    standing = Standing(rules.starting_stones, (0,) * 5, None, None)
    return {"round": 1, "rounds_played": 0, "standing": standing.to_dict()}


def advance_snapshot(game: Game, snapshot: dict[str, Any]) -> dict[str, Any]:
    """Where a later fold may resume: the standing at the start of the last round begun.

    ``{"round": n, "rounds_played": n - 1, "standing": {table, stones, camat,
    next_leader}}``. Folding only the events of round n onward from it gives
    the same state as folding the whole game (R27).
    """
    if len(game.rounds) < 2:
        return snapshot
    before = game.rounds[-2].after
    assert before is not None
    number = game.rounds[-1].round.number
    return {"round": number, "rounds_played": number - 1, "standing": before.to_dict()}


def resume(rules: RuleSet, snapshot: dict[str, Any]) -> Game:
    """A ``Game`` positioned at ``snapshot`` (see ``snapshot_of``), before its round's events."""
    if snapshot["rounds_played"] == 0:
        return Game(rules)
    standing = snapshot["standing"]
    return Game.resume(
        rules,
        Standing(
            standing["table"], tuple(standing["stones"]), standing["camat"], standing["next_leader"]
        ),
        rounds_played=snapshot["rounds_played"],
    )


@overload
def fold(
    rules: RuleSet,
    events: Iterable[tuple[str, dict[str, Any]]],
    *,
    snapshot: dict[str, Any] | None = None,
    effects: None = None,
) -> tuple[Game, list[Effects]]: ...


@overload
def fold(
    rules: RuleSet,
    events: Iterable[tuple[str, dict[str, Any]]],
    *,
    snapshot: dict[str, Any] | None = None,
    effects: _Known,
) -> tuple[Game, _Known]: ...


def fold(
    rules: RuleSet,
    events: Iterable[tuple[str, dict[str, Any]]],
    *,
    snapshot: dict[str, Any] | None = None,
    effects: Sequence[Effects] | None = None,
) -> tuple[Game, Sequence[Effects]]:
    """Fold ``events`` (kind, payload) from ``snapshot`` (or the game's start): the
    engine after them and each event's ``Effects``, in order.

    A round that a ``void`` event among them names is begun voided (R35).

    ``effects``: the events' effects when they are known — events accepted once with
    those effects and stored since (``referee.store.RoundCache``), one per event. They
    are then returned as given (not copied: a ``referee.store.CachedEffects`` makes each
    only when it is read) and not worked out again (``replay``). The engine is the same
    either way (tested).
    """
    events = list(events)
    if effects is not None:
        if len(effects) != len(events):
            raise ValueError("one known effect for each event")
        return replay(rules, events, snapshot=snapshot), effects
    game = _resumed(rules, events, snapshot)
    return game, [apply_event(game, kind, payload) for kind, payload in events]


def replay(
    rules: RuleSet,
    events: Sequence[tuple[str, dict[str, Any]]],
    *,
    snapshot: dict[str, Any] | None = None,
) -> Game:
    """The engine after ``events`` (kind, payload) from ``snapshot`` (or the game's start),
    for events accepted before and stored since, whose effects are known (``fold`` with
    ``effects``): runs of moves are replayed by ``Game.replay`` (the core's fast path for
    ordinary legal moves, ≈ 1 µs a move against ≈ 7 for ``push`` with its reports, issue
    14), other events by ``apply_event``. Raises the core's ``RefereeError`` as
    ``apply_event`` does."""
    game = _resumed(rules, events, snapshot)
    moves: list[dict[str, Any]] = []
    for kind, payload in events:
        if kind == "move":
            moves.append(payload)
            continue
        if moves:
            game.replay(moves)
            moves = []
        apply_event(game, kind, payload)
    if moves:
        game.replay(moves)
    return game


def _resumed(
    rules: RuleSet, events: Sequence[tuple[str, dict[str, Any]]], snapshot: dict[str, Any] | None
) -> Game:
    """The engine at ``snapshot`` (or the game's start), with the rounds that a ``void``
    event among ``events`` names begun voided (R35)."""
    game = resume(rules, snapshot or initial_snapshot(rules))
    game.void_ahead = frozenset(
        number
        for kind, payload in events
        if kind == "void" and (number := ruling_round(kind, payload)) is not None
    )
    return game


@dataclass(frozen=True)
class Folded:
    """What a record's events did, for storing them (``game_import``): each event's
    round, whether it settled its round, and the whole ``Effects`` of the events of the
    last round begun (``tail``: the last ``len(tail)`` events), which the round cache
    keeps (``referee.store.RoundCache``)."""

    rounds: list[int]
    settled: list[bool]
    tail: list[Effects]


def fold_record(
    rules: RuleSet, entries: Sequence[Entry], judged: Game, settled_by: dict[int, int | None]
) -> tuple[Game, Folded]:
    """The engine and ``Folded`` of a record's ``entries`` (``record_entries``), from the
    replay that judged it (``records.replay``, its ``settled_by`` filled): the rounds
    before the last one begun are not folded again, only that round is, from the
    standing before it (R27), for its events' effects (issue 29). Equal to
    ``fold_all`` (tested). A record with a round that gives no event (an empty last
    round, which the replay begins and a fold of the events does not) is folded whole
    (``fold_all``)."""
    numbers = sorted({entry.round for entry in entries})
    if numbers != [game_round.round.number for game_round in judged.rounds]:
        return fold_all(rules, entries)
    snapshot = advance_snapshot(judged, initial_snapshot(rules))
    first = snapshot["round"]
    head = next((i for i, entry in enumerate(entries) if entry.round >= first), len(entries))
    _, tail = fold(rules, [(e.kind, e.payload) for e in entries[head:]], snapshot=snapshot)
    settling: set[int] = set()
    last_move: dict[int, int] = {}
    reveals: dict[tuple[int, int], int] = {}
    for index, entry in enumerate(entries[:head]):
        if entry.kind == "move":
            last_move[entry.round] = index
        elif entry.kind == "reveal":
            reveals[entry.round, entry.payload["seat"]] = index
    for number, seat in settled_by.items():
        if number < first:
            settling.add(last_move[number] if seat is None else reveals[number, seat])
    settled = [index in settling for index in range(head)] + [e.settled for e in tail]
    rounds = [entry.round for entry in entries[:head]] + [effect.round for effect in tail]
    return judged, Folded(rounds, settled, tail)


def fold_all(rules: RuleSet, entries: Sequence[Entry]) -> tuple[Game, Folded]:
    """The engine and ``Folded`` of ``entries`` folded one by one from the game's start."""
    game, effects = fold(rules, [(e.kind, e.payload) for e in entries])
    first = advance_snapshot(game, initial_snapshot(rules))["round"]
    tail = [effect for effect in effects if effect.round >= first]
    return game, Folded([e.round for e in effects], [e.settled for e in effects], tail)


def check_storable(value: Any) -> None:
    """Raise ``record_invalid`` for text with a NUL character anywhere in ``value``: no
    database stores it, and a voided round (R35) keeps its events as entered."""
    # Written as JSON, a NUL anywhere (a key or a value) is ``\u0000``: one pass in C over
    # a 600-round record (issue 29). Only when those six characters appear (a NUL, or a
    # text that spells them) are the values walked.
    try:
        text = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        text = b"\\u0000"  # not JSON orjson writes: walk it
    if b"\\u0000" in text:
        _check_storable_walk(value)


def _check_storable_walk(value: Any) -> None:
    if isinstance(value, str) and "\x00" in value:
        raise RecordInvalid(gettext_noop("text may not contain NUL characters"))
    if isinstance(value, dict):
        for key, item in value.items():
            _check_storable_walk(key)
            _check_storable_walk(item)
    elif isinstance(value, list):
        for item in value:
            _check_storable_walk(item)


@dataclass(frozen=True)
class Entry:
    """One event of a game with the round it belongs to (1-based)."""

    kind: str
    payload: dict[str, Any]
    round: int


def record_entries(rounds: Iterable[Any]) -> list[Entry]:
    """A checked record's rounds as the events a table would have entered, in order.

    Per round (R34): substitutes (R38), declared hands, moves, reveals seat 0
    to 4, the void (R35), the adjustments (R36). Folding them gives the
    record's replay.
    """
    entries: list[Entry] = []
    for number, data in enumerate(rounds, start=1):
        for seat, name in sorted((data.get("substitutes") or {}).items()):
            entries.append(
                Entry("substitute", {"round": number, "seat": int(seat), "name": name}, number)
            )
        for seat, tiles in sorted((data.get("hands") or {}).items()):
            entries.append(Entry("hand", {"seat": int(seat), "tiles": tiles}, number))
        entries.extend(Entry("move", move, number) for move in data["moves"])
        reveal, pips = data.get("reveal") or {}, data.get("pips") or {}
        for seat in range(5):
            payload: dict[str, Any] = {"seat": seat}
            if str(seat) in reveal:
                payload["tiles"] = reveal[str(seat)]
            if str(seat) in pips:
                payload["pips"] = pips[str(seat)]
            if len(payload) > 1:
                entries.append(Entry("reveal", payload, number))
        if data.get("void") is not None:
            entries.append(Entry("void", {"round": number, **data["void"]}, number))
        for adjustment in data.get("adjustments") or ():
            entries.append(Entry("adjustment", {"round": number, **adjustment}, number))
    return entries


def placed(game: Game, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    """``payload`` of the event just applied to ``game``, with the ``side`` of the chain
    its tile was placed on when it is a play after a judged round's lead (R11,
    ``round.SIDES``): stored with it, the side keeps the tile where it lies when an
    earlier tile is corrected. Any other event's payload is returned as it is."""
    if kind != "move" or "pass" in payload or not game.rounds:
        return payload
    game_round = game.rounds[-1]
    rnd = game_round.round
    if game_round.voided or len(rnd.moves) < 2 or type(last := rnd.moves[-1]) is not Play:
        return payload
    side = "right" if rnd.right and rnd.right[-1] == last.tile else "left"
    return payload if payload.get("side") == side else {**payload, "side": side}


def with_sides(
    game: Game, entries: Sequence[Entry], rounds: Collection[int] | None = None
) -> list[Entry]:
    """``entries`` (a whole game's, folded into ``game`` from its start) with each play
    after a judged round's lead carrying the ``side`` of the chain it was placed on
    (``placed``); ``rounds``: only the plays of those round numbers (the others as given),
    so that a correction places what it changed, not the game (issue 29)."""
    sides: dict[tuple[int, int], str] = {}
    for game_round in game.rounds:
        if game_round.voided or (rounds is not None and game_round.round.number not in rounds):
            continue
        for index, place in enumerate(game_round.round.placements()):
            if place is not None:
                sides[game_round.round.number, index] = place[0]
    result: list[Entry] = []
    moves: dict[int, int] = {}  # round → moves seen
    for entry in entries:
        if entry.kind == "move":
            index = moves.get(entry.round, 0)
            moves[entry.round] = index + 1
            side = sides.get((entry.round, index))
            if side is not None and entry.payload.get("side") != side:
                entry = Entry(entry.kind, {**entry.payload, "side": side}, entry.round)
        result.append(entry)
    return result


def entries_record(
    players: Iterable[str], rules: RuleSet, entries: Iterable[Entry]
) -> dict[str, Any]:
    """The ``domeng-record/1`` record of a game's events grouped by their rounds.

    The inverse of ``record_entries``: replaying it judges the events exactly
    as a record (R37). A round number with no event is an empty round.
    Raises ``record_invalid`` (R3) for a hand or reveal whose seat is not 0–4.
    """
    rounds: list[dict[str, Any]] = []
    for entry in entries:
        while len(rounds) < entry.round:
            rounds.append({"moves": []})
        data = rounds[entry.round - 1]
        payload = entry.payload
        if entry.kind == "move":
            data["moves"].append(payload)
        elif entry.kind in {"hand", "reveal"}:
            try:
                seat = str(check_seat(payload.get("seat")))
            except RecordInvalid as error:
                raise error.at(round=entry.round) from None
            if entry.kind == "hand":
                data.setdefault("hands", {})[seat] = payload.get("tiles")
            for field, key in (("reveal", "tiles"), ("pips", "pips")):
                if entry.kind == "reveal" and key in payload:
                    data.setdefault(field, {})[seat] = payload[key]
        elif entry.kind == "void":
            data["void"] = {"reason": payload.get("reason")}
        elif entry.kind == "adjustment":
            data.setdefault("adjustments", []).append(
                {k: payload.get(k) for k in ("from", "to", "stones", "reason")}
            )
        elif entry.kind == "substitute":
            data.setdefault("substitutes", {})[str(payload.get("seat"))] = payload.get("name")
        else:
            raise RecordInvalid(gettext_noop("unknown event kind %(kind)s"), kind=entry.kind)
    return {
        "format": "domeng-record/1",
        "players": list(players),
        "rules": rules.to_dict(),
        "rounds": rounds,
    }
