"""Game records (``domeng-record/1``) in, results (``domeng-result/1``) out (RECORD.md).

``replay_record(data)`` checks a whole record against the rules and returns
its result; ``Game``'s state can be written back as a record with
``export_record``. Replaying the same record under the same rule set always
gives the same result.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard

from referee.engine.errors import (
    RecordInvalid,
    RefereeError,
    RulingInvalid,
    gettext_noop,
)
from referee.engine.game import Game, GameRound
from referee.engine.moves import Play
from referee.engine.names import is_visible_name
from referee.engine.rules import RuleSet
from referee.engine.tiles import SEATS

RECORD_FORMAT = "domeng-record/1"
RESULT_FORMAT = "domeng-result/1"

_RECORD_KEYS = frozenset({"format", "players", "rules", "rounds"})
_ROUND_KEYS = frozenset({"moves", "hands", "reveal", "pips", "void", "adjustments", "substitutes"})
_SEAT_KEYS = {str(seat): seat for seat in range(SEATS)}
"""A seat map's keys (``"0"``…``"4"``) and their seats."""


@dataclass(frozen=True, slots=True)
class Record:
    """A record's header, checked, and its rounds as given (checked when replayed)."""

    players: tuple[str, ...]
    rules: RuleSet
    rounds: tuple[Mapping[str, Any], ...]

    @classmethod
    def parse(cls, data: object) -> Record:
        """Check a record's header (format, five players, rules, rounds list).

        Raises ``record_invalid`` (round ``None``) for a wrong ``format``, a
        missing or unknown field, players that are not five non-empty strings
        (R3) and rules that R40 does not allow.
        """
        if not isinstance(data, Mapping):
            raise RecordInvalid(gettext_noop("a record is a JSON object"))
        if data.get("format") != RECORD_FORMAT:
            raise RecordInvalid(
                gettext_noop("unknown record format %(format)s: expected domeng-record/1"),
                format=repr(data.get("format")),
            )
        unknown = sorted(set(data) - _RECORD_KEYS)
        if unknown:
            raise RecordInvalid(gettext_noop("a record has no field %(key)s"), key=unknown[0])
        players = data.get("players")
        if (
            not isinstance(players, list)
            or len(players) != SEATS
            or not all(isinstance(p, str) and p.strip() for p in players)
        ):
            raise RecordInvalid(
                gettext_noop("players must be five non-empty names, seat 0 to seat 4"), rule="R3"
            )
        for seat, name in enumerate(players):
            if not is_visible_name(name):
                raise RecordInvalid(
                    gettext_noop(
                        "seat %(seat)s's name holds an invisible or direction-changing character"
                    ),
                    rule="R3",
                    seat=seat,
                )
        rules = RuleSet.from_dict(data.get("rules"))
        rounds = data.get("rounds")
        if not isinstance(rounds, list):
            raise RecordInvalid(gettext_noop("rounds must be a list"))
        return cls(tuple(players), rules, tuple(rounds))


def replay(
    record: Record,
    *,
    stored: bool = False,
    shared_hands: bool = False,
    start: Game | None = None,
    settled_by: dict[int, int | None] | None = None,
) -> Game:
    """Replay a checked record's rounds into a ``Game``; raises the first ``RefereeError``.

    Within a round (R34): its substitutes (R38), then its void (R35), its
    declared hands, moves and reveals, and its adjustments (R36) last. With
    ``stored`` the record is a stored game's events (``folding.entries_record``), whose
    plays may keep their ``side`` (``round.SIDES``, R11); a record from outside has
    none (``record_invalid``). ``shared_hands``: a round's declared hands may share
    tiles, as a table's live declarations may (R31, ``Round.declare``'s ``shared``); a
    record never does.

    ``start``: a ``Game`` resumed after its first rounds (``Game.resume``, R27), no round
    begun in it: the record's rounds are then the rounds after those (its first round is
    round ``start.rounds_before + 1``, and errors name the rounds so), replayed into it.
    A correction of round k judges the rounds from k on only (issue 29).

    ``settled_by``: filled with the event that settled each round the replay settled
    (not a voided one, R35): ``number → None`` for its last move (no move may follow a
    round's end, R30), ``number → seat`` for that seat's reveal (R18, R33), where the
    round's settlement is not ``None`` before it and is after. An import stores each
    event with what it did without folding the record again (issue 29).
    """
    game = Game(record.rules) if start is None else start
    if game.rounds:
        raise ValueError("a replay starts before any round of its game is begun")
    offset = game.rounds_before
    game.void_ahead = frozenset(
        number
        for number, data in enumerate(record.rounds, start=offset + 1)
        if _is_object(data) and data.get("void") is not None
    )
    last = offset + len(record.rounds)
    try:
        for data in record.rounds:
            number = offset + len(game.rounds) + 1
            if not _is_object(data):
                raise RecordInvalid(gettext_noop("a round is a JSON object")).at(round=number)
            substitutes = _seat_map(data.get("substitutes"), "substitutes", number)
            for name in substitutes.values():
                if not isinstance(name, str) or not name.strip():
                    raise RecordInvalid(
                        gettext_noop("a substitute has a non-empty name"), rule="R38"
                    ).at(round=number)
            void = _void_reason(data.get("void"), number)
            game_round = game.begin_round()  # reveal_missing (R18) after an unrevealed block
            game_round.substitutes.update(substitutes)
            if not stored:
                _check_no_sides(data, number)
            _replay_round(game, game_round, data, shared_hands, settled_by)
            if void is not None:
                game.void_round(number, void)
            adjustments = data.get("adjustments")
            if adjustments is not None and not isinstance(adjustments, list):
                raise RulingInvalid(
                    gettext_noop("a round's adjustments must be a list"), rule="R36"
                ).at(round=number)
            if adjustments and number < last:
                # A round follows: a blocked round's missing reveal is its fault (R18),
                # checked before its adjustments (R34, R36).
                game.check_revealed()
            for adjustment in adjustments or ():
                game.adjust(number, adjustment)
    except RefereeError as error:
        raise error.with_names(record.players) from None
    return game


def _check_no_sides(data: Mapping[str, Any], number: int) -> None:
    """A record's play gives ``on`` (R11), never the stored ``side`` of the chain."""
    moves = data.get("moves")
    if not isinstance(moves, list):
        return  # _replay_round says what is wrong
    for index, move in enumerate(moves):
        if type(move) is dict and "side" in move:
            raise RecordInvalid(gettext_noop("a move has no field %(key)s"), key="side").at(
                round=number, move=index
            )


def _is_object(data: object) -> TypeGuard[Mapping[str, Any]]:
    """Whether ``data`` is a JSON object (a ``Mapping``; a ``dict`` answers at once)."""
    return type(data) is dict or isinstance(data, Mapping)


def _void_reason(raw: object, number: int) -> str | None:
    """A round's ``void`` (``{"reason": "…"}``, R35): its reason, or ``None`` if absent."""
    if raw is None:
        return None
    reason = raw.get("reason") if isinstance(raw, Mapping) and set(raw) == {"reason"} else None
    if not isinstance(reason, str) or not reason.strip():
        raise RulingInvalid(
            gettext_noop('a void is {"reason": "…"} with a non-empty reason'), rule="R35"
        ).at(round=number)
    return reason


def _replay_round(
    game: Game,
    game_round: GameRound,
    data: Mapping[str, Any],
    shared_hands: bool = False,
    settled_by: dict[int, int | None] | None = None,
) -> None:
    number = game_round.round.number
    if not _ROUND_KEYS.issuperset(data):
        unknown = sorted(set(data) - _ROUND_KEYS)
        raise RecordInvalid(gettext_noop("a round has no field %(key)s"), key=unknown[0]).at(
            round=number
        )
    moves = data.get("moves")
    if not isinstance(moves, list):
        raise RecordInvalid(gettext_noop("a round's moves must be a list")).at(round=number)
    hands = _seat_map(data.get("hands"), "hands", number)
    reveal = _seat_map(data.get("reveal"), "reveal", number)
    pips = _seat_map(data.get("pips"), "pips", number)
    for seat in sorted(hands):  # declared hands before the moves (R34)
        game.declare(seat, hands[seat], shared=shared_hands)
    game.replay_moves(moves, game_round)
    rnd = game_round.round
    if settled_by is not None and not game_round.voided and rnd.is_settled():
        settled_by[number] = None  # by its last move
    if reveal or pips:
        for seat in range(SEATS):  # reveals after the moves, seat 0 to 4 (R34)
            if seat in reveal or seat in pips:
                was_settled = rnd.is_settled()
                game.reveal(seat, tiles=reveal.get(seat), pips=pips.get(seat))
                if (
                    settled_by is not None
                    and not game_round.voided
                    and not was_settled
                    and rnd.is_settled()
                ):
                    settled_by[number] = seat


def _seat_map(raw: object, field: str, number: int) -> dict[int, Any]:
    """A round's ``hands``/``reveal``/``pips``: keys ``"0"``…``"4"`` → value."""
    if raw is None:
        return {}
    if not _is_object(raw):
        raise RecordInvalid(
            gettext_noop('%(field)s must map seats "0" to "4" to values'), field=field
        ).at(round=number)
    result: dict[int, Any] = {}
    for key, value in raw.items():
        seat = _SEAT_KEYS.get(key)
        if seat is None:
            raise RecordInvalid(
                gettext_noop('%(field)s names seat %(seat)s: seats are "0" to "4"'),
                rule="R3",
                field=field,
                seat=repr(key),
            ).at(round=number)
        result[seat] = value
    return result


def result_of(game: Game) -> dict[str, Any]:
    """The ``domeng-result/1`` of a game (RECORD.md, "Result").

    A voided round (R35) names nothing and moves no stone but its
    adjustments; its ``after`` is the state before it (and its adjustments).
    """
    rounds: list[dict[str, Any]] = []
    for game_round in game.rounds:
        rnd = game_round.round
        outcome = None if game_round.voided else rnd.outcome
        settled = game_round.is_closed()
        after = game_round.after if settled else None
        if after is None:
            after = game.standing()
        rounds.append(
            {
                "number": rnd.number,
                "leader": game_round.leader,
                "ending": outcome.ending.value if outcome else None,
                "finish": outcome.finish.value if outcome and outcome.finish else None,
                "first_cappu": outcome.first_cappu if outcome else None,
                "manguno": outcome.manguno if outcome else None,
                "mattikkeng": list(outcome.mattikkeng) if outcome else [],
                "cucuq": outcome.cucuq if outcome else None,
                "winner": outcome.winner if outcome else None,
                "remaining_pips": list(outcome.remaining_pips)
                if outcome and outcome.remaining_pips is not None
                else None,
                "transfers": [t.to_dict() for t in game_round.transfers],
                "camat_elected": game_round.camat_elected,
                "after": after.to_dict(),
                "void": game_round.voided,
            }
        )
    return {"format": RESULT_FORMAT, "rounds": rounds}


def replay_record(data: object) -> dict[str, Any]:
    """Check a ``domeng-record/1`` record and return its ``domeng-result/1`` result.

    Raises the first ``RefereeError`` the record breaks (R34's order within
    an event; events in the order they happened).
    """
    return result_of(replay(Record.parse(data)))


def export_record(game: Game, players: tuple[str, ...] | list[str]) -> dict[str, Any]:
    """Write a game back as a ``domeng-record/1`` record (tiles as ``a-b``).

    A voided round's events are written as they were entered (R35); rulings
    (``void``, ``adjustments``, ``substitutes``) only where a round has them.
    """
    rounds: list[dict[str, Any]] = []
    for game_round in game.rounds:
        rnd = game_round.round
        data: dict[str, Any] = {}
        if game_round.substitutes:
            data["substitutes"] = {
                str(seat): name for seat, name in sorted(game_round.substitutes.items())
            }
        if game_round.voided:
            data["moves"] = [m.to_dict() for m in game_round.entries]
            for field, raw in (
                ("hands", game_round.raw_hands),
                ("reveal", game_round.raw_reveal),
                ("pips", game_round.raw_pips),
            ):
                if raw:
                    data[field] = {str(seat): value for seat, value in sorted(raw.items())}
            if game_round.void_reason is not None:
                data["void"] = {"reason": game_round.void_reason}
        else:
            data["moves"] = moves = [m.to_dict() for m in rnd.moves]
            for move, play, placed in zip(moves, rnd.moves, rnd.placements(), strict=True):
                # ``on`` as folded (R11): where the table gave it, and where the tile fits
                # two open ends of different values, so that the record replays the same.
                if placed is not None and isinstance(play, Play):
                    _, on, other = placed
                    if "on" in move or (other != on and play.tile.carries(other)):
                        move["on"] = on
            if rnd.hands:
                data["hands"] = {
                    str(seat): [str(t) for t in sorted(hand)]
                    for seat, hand in sorted(rnd.hands.items())
                }
            if rnd.revealed:
                data["reveal"] = {
                    str(seat): [str(t) for t in tiles]
                    for seat, tiles in sorted(rnd.revealed.items())
                }
            if rnd.pip_sums:
                data["pips"] = {str(seat): pips for seat, pips in sorted(rnd.pip_sums.items())}
        if game_round.adjustments:
            data["adjustments"] = [dict(a) for a in game_round.adjustments]
        rounds.append(data)
    return {
        "format": RECORD_FORMAT,
        "players": list(players),
        "rules": game.rules.to_dict(),
        "rounds": rounds,
    }
