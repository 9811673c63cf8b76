"""Each seat's line of a settled round: the named outcomes, passes and stones (pure Python).

The rows of ``scoring.SeatRound`` are made from these; this module imports
no Django so that it can be tested on the rules core alone.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields
from typing import Any

from referee.engine import Finish
from referee.engine.game import Game, GameRound
from referee.engine.tiles import SEATS


@dataclass(frozen=True, slots=True)
class SeatLine:
    """One seat's part in one settled round. Seats 0–4; stones and passes whole numbers.

    ``passes`` counts plain PASSes (R9), ``passebunge`` PASSEBUNGEs (R10);
    ``stones_received``/``stones_given`` the stones that moved to/from the seat
    in the round (R23, and the organiser's adjustments, R36); ``stones_held``
    what it held after the round's awards and adjustments,
    before a CAMAT reset (R25); ``cycle_ended`` that the round elected a CAMAT.
    """

    round_number: int
    seat: int
    won: bool
    first_cappu: bool
    ceki: bool
    pollo: bool
    manguno: bool
    mattikkeng: bool
    cucuq: bool
    passes: int
    passebunge: int
    stones_received: int
    stones_given: int
    stones_held: int
    camat_elected: bool
    cycle_ended: bool

    def to_dict(self) -> dict[str, Any]:
        """The line's fields by name (``LINE_FIELDS``, in that order); all ints and bools,
        so no deep copy (``dataclasses.asdict``'s) is needed."""
        return {name: getattr(self, name) for name in LINE_FIELDS}


# ``SeatLine``'s field names, in their order (the columns of ``SeatRound`` they fill).
LINE_FIELDS: tuple[str, ...] = tuple(field.name for field in fields(SeatLine))


def round_lines(game_round: GameRound, before: Sequence[int]) -> list[SeatLine]:
    """The five seats' lines of a settled round; ``before`` is what each held at its start.

    Raises ``ValueError`` for a round that is not settled (R18: a blocked round
    waiting for its reveals has no winner yet).
    """
    rnd = game_round.round
    outcome = rnd.outcome
    if outcome is None or not outcome.is_settled():
        raise ValueError(f"round {rnd.number} is not settled")
    passes = [0] * SEATS
    passebunge = [0] * SEATS
    for record in rnd.passes:  # the engine says which pass was a PASSEBUNGE (R10)
        if record.passebunge:
            passebunge[record.seat] += 1
        else:
            passes[record.seat] += 1
    received = [0] * SEATS
    given = [0] * SEATS
    for transfer in game_round.transfers:  # adjustments (R36) included: the count is ruled
        if transfer.to != "table":
            received[int(transfer.to)] += transfer.stones
        if transfer.source != "table":
            given[int(transfer.source)] += transfer.stones
    elected = game_round.camat_elected
    lines = []
    for seat in range(SEATS):
        held = before[seat] + received[seat] - given[seat]
        is_first_cappu = outcome.first_cappu == seat
        lines.append(
            SeatLine(
                round_number=rnd.number,
                seat=seat,
                won=outcome.winner == seat,
                first_cappu=is_first_cappu,
                ceki=is_first_cappu and outcome.finish is Finish.CEKI,
                pollo=is_first_cappu and outcome.finish is Finish.POLLO,
                manguno=outcome.manguno == seat,
                mattikkeng=seat in outcome.mattikkeng,
                cucuq=outcome.cucuq == seat,
                passes=passes[seat],
                passebunge=passebunge[seat],
                stones_received=received[seat],
                stones_given=given[seat],
                stones_held=held,
                camat_elected=elected == seat,
                cycle_ended=elected is not None,
            )
        )
    after = game_round.after
    if after is not None and elected is None:
        # Without a reset the stones held must be the standing after the round (R23).
        assert [line.stones_held for line in lines] == list(after.stones), (lines, after)
    return lines


def game_lines(game: Game, stones: Sequence[int] | None = None) -> Iterator[SeatLine]:
    """The lines of every settled round of a game folded from its start, in order; or,
    for a fold resumed after its first rounds (``game.rounds_before``, R27), of its rounds
    from there, ``stones`` being what each seat held before them (seat 0 to 4).

    A voided round counts in no statistic (R35); its adjustments still carry over.
    """
    if stones is None:
        assert game.rounds_before == 0, "fold the game from its first round, or give stones"
        stones = [0] * SEATS  # R22: nobody holds a stone when a game starts
    for game_round in game.rounds:
        if game_round.voided:
            if game_round.after is None:
                break
            stones = game_round.after.stones
            continue
        outcome = game_round.round.outcome
        if outcome is None or not outcome.is_settled():
            break
        yield from round_lines(game_round, stones)
        assert game_round.after is not None
        stones = game_round.after.stones
