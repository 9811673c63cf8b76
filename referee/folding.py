"""Stored events → the rules core: apply one event to an ``engine.Game`` and say what it did.

An event is ``(kind, payload)`` with ``kind`` one of ``move``, ``hand``,
``reveal`` and ``payload`` in record form (see ``referee.models.Event``).
The fold is the only place where stored events meet the rules.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from referee.engine import Game, RuleSet, Standing
from referee.engine.errors import RecordInvalid, gettext_noop
from referee.engine.game import GameMoveReport
from referee.engine.moves import Play


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


def apply_event(game: Game, kind: str, payload: dict[str, Any]) -> Effects:
    """Apply one stored event to ``game``; raises the core's ``RefereeError``."""
    if kind == "move":
        return _move_effects(game, game.push(payload))
    if kind == "hand":
        game.declare(payload.get("seat"), payload.get("tiles"))  # type: ignore[arg-type]
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
    raise RecordInvalid(gettext_noop("unknown event kind %(kind)s"), kind=kind)


def _move_effects(game: Game, result: GameMoveReport) -> Effects:
    report = result.report
    effects = Effects(
        round=game.rounds[-1].round.number,
        transfers=[t.to_dict() for t in result.transfers],
        settled=result.settled,
        camat_elected=result.camat_elected,
    )
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


def fold(
    rules: RuleSet,
    events: Iterable[tuple[str, dict[str, Any]]],
    *,
    snapshot: dict[str, Any] | None = None,
) -> tuple[Game, list[Effects]]:
    """Fold ``events`` (kind, payload) from ``snapshot`` (or the game's start)."""
    game = resume(rules, snapshot or initial_snapshot(rules))
    effects = [apply_event(game, kind, payload) for kind, payload in events]
    return game, effects
