"""An omniscient computer seat for the strength ladder's top rung (R39): a yardstick only.

It is given every seat's unplayed tiles (so also the sleeping ones, by
elimination) and knows the other four play ``greedy``; it tries each of its own
moves to the end of the round, its later ones too, with the others' greedy
replies, and keeps the move after which it holds the fewest stones relative to
the others' mean. Written apart from ``strong`` (its own round simulation on
``Tile`` values; the stones through ``scoring.core``'s ledger and settlement),
so a bug in one does not hide in the other. It never plays a live game: the
referee's computer seats see only their own hand (``referee.engine.strategies``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import scoring.core.settlement as settlement
from referee.engine.moves import Move, Play
from referee.engine.outcome import Ending, Finish, RoundOutcome
from referee.engine.strategies import SeatView
from referee.engine.tiles import SEATS, Tile, next_seat, seat_before
from scoring.core.ledger import Ledger


def _greedy_key(tile: Tile, on: int) -> tuple[int, bool, int, int]:
    """What ``greedy`` maximises: pips, a LEMPA first, the higher half, the lower end value."""
    return (tile.pips, tile.low == tile.high, tile.high, -on)


def _options(hand: frozenset[Tile], ends: tuple[int, int]) -> list[tuple[Tile, int]]:
    return sorted({(t, v) for t in hand for v in ends if t.carries(v)}, key=lambda o: (o[0], o[1]))


def _placed(ends: tuple[int, int], tile: Tile, on: int) -> tuple[int, int]:
    other = tile.high if tile.low == on else tile.low
    return (ends[0], other) if ends[1] == on else (other, ends[1])


class _Table:
    """A round being played out: hands, ends, the ledger and the pass bookkeeping."""

    __slots__ = ("hands", "ends", "ledger", "has_played", "last", "passes", "moves")

    def __init__(
        self,
        hands: list[frozenset[Tile]],
        ends: tuple[int, int],
        ledger: Ledger,
        has_played: list[bool],
        last: int,
        passes: int,
        moves: int,
    ) -> None:
        self.hands, self.ends, self.ledger = hands, ends, ledger
        self.has_played, self.last, self.passes, self.moves = has_played, last, passes, moves

    def fork(self) -> _Table:
        return _Table(
            list(self.hands),
            self.ends,
            self.ledger.copy(),
            list(self.has_played),
            self.last,
            self.passes,
            self.moves,
        )


def _value(ledger: Ledger, me: int) -> float:
    others = [s for s in range(SEATS) if s != me]
    return ledger.stones[me] - sum(ledger.stones[s] for s in others) / len(others)


def _go(state: _Table, seat: int, me: int, rules: object, choice: tuple[Tile, int] | None) -> float:
    """The value for ``me`` of the round from ``seat`` about to move (``choice``: its move, if
    already chosen; ``None``: a pass when it has no option, else greedy or, for ``me``, search)."""
    while True:
        options = _options(state.hands[seat], state.ends)
        if choice is None and options:
            if seat == me and len(options) > 1:
                return min(_go(state.fork(), seat, me, rules, o) for o in options)
            choice = max(options, key=lambda o: _greedy_key(*o))
        if choice is None:  # a pass (R9), its stones (R23a)
            state.passes += 1
            closing = state.passes == SEATS
            settlement.pass_award(
                state.ledger,
                rules,  # type: ignore[arg-type]
                seat=seat,
                passebunge=not state.has_played[seat],
                closing=closing,
                last_mappano=state.last,
                move=state.moves,
            )
            state.moves += 1
            if closing:  # R17–R20
                pips = tuple(sum(t.pips for t in state.hands[s]) for s in range(SEATS))
                outcome = RoundOutcome.blocked(manguno=seat, remaining_pips=pips)
                settlement.round_award(state.ledger, rules, outcome)  # type: ignore[arg-type]
                return _value(state.ledger, me)
        else:
            tile, on = choice
            state.hands[seat] = state.hands[seat] - {tile}
            state.ends = _placed(state.ends, tile, on)
            state.has_played[seat] = True
            state.last, state.passes = seat, 0
            state.moves += 1
            if not state.hands[seat]:  # FIRST CAPPU (R14–R16)
                left, right = state.ends
                finish = Finish.PLAIN
                if left == right:
                    finish = Finish.POLLO if tile.low == tile.high else Finish.CEKI
                outcome = RoundOutcome(
                    ending=Ending.CAPPU,
                    finish=finish,
                    first_cappu=seat,
                    cucuq=seat_before(seat),
                    winner=seat,
                )
                settlement.round_award(state.ledger, rules, outcome)  # type: ignore[arg-type]
                settlement.camat_election(state.ledger, outcome)
                return _value(state.ledger, me)
        seat = next_seat(seat)
        choice = None


def omniscient(view: SeatView, hands: Sequence[frozenset[Tile]], rng: random.Random) -> Move:
    """The move of seat ``view.seat`` seeing ``hands`` (every seat's unplayed tiles, 0–4)."""
    me = view.seat
    moves = view.legal_moves()
    if len(moves) == 1:
        return moves[0]
    ledger = Ledger(total=view.rules.starting_stones, table=view.table, stones=list(view.stones))
    best: tuple[float, int] | None = None
    chosen = moves[0]
    for index, move in enumerate(moves):
        assert isinstance(move, Play)
        state = _Table(
            [frozenset(h) for h in hands],
            view.ends or (move.tile.low, move.tile.high),
            ledger.copy(),
            list(view.has_played),
            view.last_mappano if view.last_mappano is not None else me,
            view.consecutive_passes,
            len(view.history),
        )
        if view.ends is None:  # the lead: its halves become the open ends (R7)
            state.hands[me] = state.hands[me] - {move.tile}
            state.has_played[me], state.last, state.moves = True, me, state.moves + 1
            value = _go(state, next_seat(me), me, view.rules, None)
        else:
            assert move.on is not None
            value = _go(state, me, me, view.rules, (move.tile, move.on))
        key = (value, -index)
        if best is None or value < best[0] - 1e-9:
            best, chosen = key, move
    return chosen
