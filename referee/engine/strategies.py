"""Computer seats (R39): how a seat's strategy chooses its move from what that seat may know.

A strategy is a function ``(view, rng) -> Move`` of a ``SeatView`` — the
seat's own tiles and what the whole table sees: the chain's open ends, every
tile played and by whom, every pass (so, by R32, the values each seat lacks),
the tiles the game's first lead asserted sleeping (R5), the stones and the
CAMAT — and of a seeded ``random.Random``. It is never given another seat's
tiles: ``observe`` builds the view from a ``Game`` and reads only the seat's
own hand, so two deals that agree on everything the seat may know give the
same view and, under the same seed, the same move.

Strategies (``STRATEGIES``):

- ``random``: any legal move, uniformly;
- ``greedy``: the heaviest tile it can play (most pips; a LEMPA before a
  non-double of the same pips), passing only when it must (R8, R9);
- ``strong``: determinized Monte Carlo. It deals the tiles it cannot see at
  random among the other seats and the three sleeping places, consistently
  with what it knows (each seat's tile count, the values it passed on, the
  tiles asserted sleeping), plays every candidate move out to the end of the
  round on each deal with ``greedy`` play for every seat, and keeps the move
  that leaves it holding the fewest stones on average (R22–R25, through
  ``scoring.core.settlement``). ``STRONG_SAMPLES`` deals a move (at most
  ``STRONG_PLAYOUTS`` playouts), the same deals for every candidate; a forced
  move costs nothing.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass

# A module import, not names: scoring.core.settlement itself imports from this package.
import scoring.core.settlement as settlement
from referee.engine.game import Game
from referee.engine.moves import Move, Pass, Play
from referee.engine.outcome import Ending, Finish, RoundOutcome
from referee.engine.rules import MAX_SLEEPING, RuleSet
from referee.engine.tiles import ALL_TILES, SEATS, TILES_PER_HAND, Tile, next_seat, seat_before
from scoring.core.ledger import Ledger

STRONG_SAMPLES = 40
"""Deals the ``strong`` strategy samples for each move that is not forced…"""

STRONG_PLAYOUTS = 120
"""…but no more than this many playouts a move in all (a lead of five tiles: 24 deals),
which keeps a move within its time budget (R39: at most 200 ms on the bench machine)."""


@dataclass(frozen=True, slots=True)
class SeatView:
    """What seat ``seat`` (0–4) may know when it is to move (R39): never another seat's tiles.

    ``hand``: its unplayed tiles, ascending; ``ends``: the open ends, ``None``
    before the round's lead; ``first_of_game``: the lead must follow R5;
    ``played``: every tile played this round; ``tiles_left``,
    ``has_played`` and ``passed_on`` (the open-end values each seat passed
    on, R32): per seat 0–4; ``sleeping``: tiles the first lead asserted
    sleeping (R5); ``last_mappano``: the seat of the last tile (R12);
    ``consecutive_passes``: passes since it (R17); ``table`` and
    ``stones``: the stones now (R22); ``rules``: the game's rule set (R40).
    """

    seat: int
    hand: tuple[Tile, ...]
    ends: tuple[int, int] | None
    first_of_game: bool
    played: frozenset[Tile]
    tiles_left: tuple[int, ...]
    has_played: tuple[bool, ...]
    passed_on: tuple[frozenset[int], ...]
    sleeping: frozenset[Tile]
    last_mappano: int | None
    consecutive_passes: int
    table: int
    stones: tuple[int, ...]
    rules: RuleSet

    def legal_moves(self) -> list[Move]:
        """The moves the rules allow this seat with its hand (R5–R9, R11, R31).

        A lead: in the game's first round the first listed first-lead double
        it holds (R5), later any of its tiles (R6). Otherwise each tile that
        matches an open end, on each distinct end value it matches (``on``
        always given), or a pass when none matches (R9).
        """
        if self.ends is None:
            if self.first_of_game:
                doubles = [d for d in self.rules.first_lead_doubles if d in self.hand]
                return [Play(self.seat, doubles[0])] if doubles else []
            return [Play(self.seat, tile) for tile in self.hand]
        values = sorted(set(self.ends))
        plays: list[Move] = [
            Play(self.seat, tile, value)
            for tile in self.hand
            for value in values
            if tile.carries(value)
        ]
        return plays or [Pass(self.seat)]


def observe(game: Game, seat: int, hand: Iterable[Tile]) -> SeatView:
    """The view of ``seat`` (0–4) holding ``hand`` (its dealt or its unplayed tiles) now.

    Reads the round in play (or, between rounds, the next round's lead) and
    the stones from ``game``; of the hands, only ``hand``. Raises
    ``ValueError`` for a tile of ``hand`` that another seat played.
    """
    dealt = set(hand)
    game_round = game.current
    rnd = game_round.round if game_round is not None else None
    standing = game.standing()
    if rnd is None or not rnd.moves:
        played: frozenset[Tile] = frozenset()
        own = tuple(sorted(dealt))
        return SeatView(
            seat=seat,
            hand=own,
            ends=None,
            first_of_game=game.expected_leader() is None,
            played=played,
            tiles_left=(TILES_PER_HAND,) * SEATS,
            has_played=(False,) * SEATS,
            passed_on=(frozenset(),) * SEATS,
            sleeping=frozenset(),
            last_mappano=None,
            consecutive_passes=0,
            table=standing.table,
            stones=standing.stones,
            rules=game.rules,
        )
    played = frozenset(rnd.played)
    own = tuple(sorted(t for t in dealt if t not in played))
    if any(t in played and t not in rnd.played_by[seat] for t in dealt):
        raise ValueError(f"seat {seat}'s hand holds a tile another seat played")
    return SeatView(
        seat=seat,
        hand=own,
        ends=rnd.ends,
        first_of_game=rnd.is_first_of_game,
        played=played,
        tiles_left=tuple(rnd.tiles_left(s) for s in range(SEATS)),
        has_played=tuple(bool(rnd.played_by[s]) for s in range(SEATS)),
        passed_on=tuple(rnd.passed_values(s) for s in range(SEATS)),
        sleeping=rnd.sleeping,
        last_mappano=rnd.last_mappano,
        consecutive_passes=rnd.consecutive_passes,
        table=standing.table,
        stones=standing.stones,
        rules=game.rules,
    )


Strategy = Callable[[SeatView, random.Random], Move]


def random_strategy(view: SeatView, rng: random.Random) -> Move:
    """Any legal move, each as likely (R39 ``random``)."""
    return rng.choice(_moves(view))


def greedy_strategy(view: SeatView, rng: random.Random) -> Move:
    """The heaviest tile it can play: most pips, a LEMPA first on a tie (R39 ``greedy``)."""
    return max(_moves(view), key=_weight)


def strong_strategy(view: SeatView, rng: random.Random) -> Move:
    """Determinized Monte Carlo over the deals consistent with the view (R39 ``strong``).

    For each of ``STRONG_SAMPLES`` deals of the unseen tiles (fewer when there are
    many candidates: ``STRONG_PLAYOUTS`` playouts at most), every legal move
    is played out to the round's end with ``greedy`` play for all seats; the
    move with the fewest stones held by this seat after the round (its
    award and any CAMAT reset included, R23–R25) summed over the deals wins,
    the first in ``legal_moves`` order on a tie.
    """
    moves = _moves(view)
    if len(moves) == 1:
        return moves[0]
    totals = [0] * len(moves)
    unseen = _unseen_by_seat(view)
    for _ in range(min(STRONG_SAMPLES, STRONG_PLAYOUTS // len(moves))):
        others = _sample_hidden(view, unseen, rng)
        if others is None:
            continue
        for index, move in enumerate(moves):
            totals[index] += _playout(view, others, move)
    return moves[min(range(len(moves)), key=lambda i: (totals[i], i))]


STRATEGIES: dict[str, Strategy] = {
    "random": random_strategy,
    "greedy": greedy_strategy,
    "strong": strong_strategy,
}
"""The strategies a computer seat may use, by name (R39)."""


def choose(name: str, view: SeatView, rng: random.Random) -> Move:
    """The move of strategy ``name`` for ``view``; ``KeyError`` for an unknown name."""
    return STRATEGIES[name](view, rng)


def decision_rng(seed: object, round_number: int, move: int) -> random.Random:
    """The random source of one decision: the same seed, round (1-based) and move index
    (0-based) always give the same numbers, so a game's computer moves are reproducible."""
    return random.Random(f"{seed}:{round_number}:{move}")


# -- internals ---------------------------------------------------------------------------


def _moves(view: SeatView) -> list[Move]:
    moves = view.legal_moves()
    if not moves:
        raise ValueError(f"seat {view.seat} has no legal move (it holds no first-lead double)")
    return moves


def _weight(move: Move) -> tuple[int, bool, int, int]:
    if not isinstance(move, Play):
        return (-1, False, 0, 0)
    return _tile_weight(move.tile, move.on or 0)


def _tile_weight(tile: Tile, on: int) -> tuple[int, bool, int, int]:
    """Most pips, then a LEMPA, then the higher half; on the lower end value on a tie."""
    return (tile.low + tile.high, tile.low == tile.high, tile.high, -on)


# The playout works on tile numbers (indices into ALL_TILES), its hands kept in greedy order.
_LOW = tuple(t.low for t in ALL_TILES)
_HIGH = tuple(t.high for t in ALL_TILES)
_PIPS = tuple(t.pips for t in ALL_TILES)
_NUMBER = {t: i for i, t in enumerate(ALL_TILES)}
_NEXT_SEAT = tuple(next_seat(s) for s in range(SEATS))
_GREEDY_RANK = {
    i: rank
    for rank, i in enumerate(
        sorted(range(len(ALL_TILES)), key=lambda i: _tile_weight(ALL_TILES[i], 0), reverse=True)
    )
}


def _unseen_by_seat(view: SeatView) -> tuple[int, dict[int, list[int]], list[int]]:
    """What ``view.seat`` cannot see: how many tiles (as numbers), which of them each other
    seat may hold (none carrying a value it passed on, R32; never an asserted-sleeping
    tile, R5), and the other seats, those with the fewest spare candidates first."""
    own = set(view.hand)
    unseen = [
        i
        for i, t in enumerate(ALL_TILES)
        if t not in view.played and t not in own and t not in view.sleeping
    ]
    others = [s for s in range(SEATS) if s != view.seat]
    allowed = {
        s: [i for i in unseen if _LOW[i] not in lacks and _HIGH[i] not in lacks]
        for s in others
        for lacks in (view.passed_on[s],)
    }
    order = sorted(others, key=lambda s: (len(allowed[s]) - view.tiles_left[s], s))
    return len(unseen), allowed, order


def _sample_hidden(
    view: SeatView, unseen: tuple[int, dict[int, list[int]], list[int]], rng: random.Random
) -> dict[int, list[int]] | None:
    """A random deal of the unseen tiles to the other seats, consistent with the view.

    Each other seat gets ``tiles_left`` of the tiles it may hold
    (``_unseen_by_seat``), in greedy order; the rest sleep. ``None`` after a
    few dead ends (seats dealt first took what a later one needed).
    """
    count, allowed, order = unseen
    for _ in range(8):
        taken: set[int] = set()
        hands: dict[int, list[int]] = {}
        for seat in order:
            pool = [i for i in allowed[seat] if i not in taken]
            if len(pool) < view.tiles_left[seat]:
                break
            hands[seat] = sorted(
                rng.sample(pool, view.tiles_left[seat]), key=_GREEDY_RANK.__getitem__
            )
            taken.update(hands[seat])
        else:
            if count - len(taken) <= MAX_SLEEPING:
                return hands
    return None


def _playout(view: SeatView, others: dict[int, list[int]], first: Move) -> int:
    """Stones ``view.seat`` holds after its round is played out from ``first`` on this deal.

    ``others``: the other seats' tiles as numbers, in greedy order. Every
    later move is ``greedy``'s (the first tile of a hand in greedy order that
    an open end takes, on the lower end value if it fits both). A pass's
    stones are R23a's, reckoned here for speed (one giver: the LAST MAPPANO);
    the end-of-round award and a CAMAT's election are the rules core's
    (``scoring.core.settlement``). A test holds it to the core's fold.
    """
    rules = view.rules
    hands = {s: list(tiles) for s, tiles in others.items()}
    hands[view.seat] = sorted((_NUMBER[t] for t in view.hand), key=_GREEDY_RANK.__getitem__)
    table, stones = view.table, list(view.stones)
    has_played = list(view.has_played)
    last_mappano = view.last_mappano
    passes = view.consecutive_passes
    seat = view.seat
    if isinstance(first, Play):
        tile: int | None = _NUMBER[first.tile]
        on = first.on
    else:
        tile, on = None, None
    if view.ends is None:  # the lead: its halves are the open ends (R7)
        assert tile is not None
        left, right = _LOW[tile], _HIGH[tile]
        hands[seat].remove(tile)
        has_played[seat] = True
        last_mappano = seat
        seat = _NEXT_SEAT[seat]
        tile = -1
    else:
        left, right = view.ends
    while True:
        hand = hands[seat]
        if tile == -1:  # greedy
            tile = None
            for i in hand:
                low, high = _LOW[i], _HIGH[i]
                on_left = low == left or high == left
                on_right = low == right or high == right
                if on_left or on_right:
                    tile = i
                    on = min(left, right) if on_left and on_right else (left if on_left else right)
                    break
        if tile is None:
            assert last_mappano is not None
            passes += 1
            closing = passes == SEATS
            if rules.closing_pass_counts or not closing:  # R23a, R40
                wanted = rules.pass_stones if has_played[seat] else rules.passebunge_stones
                from_table = min(wanted, table)
                table -= from_table
                stones[seat] += from_table
                if from_table < wanted and last_mappano != seat:
                    given = min(wanted - from_table, stones[last_mappano])
                    stones[last_mappano] -= given
                    stones[seat] += given
            if closing:  # R17: blocked; every remainder is known in the playout (R18)
                pips = tuple(sum(_PIPS[i] for i in hands[s]) for s in range(SEATS))
                outcome = RoundOutcome.blocked(manguno=seat, remaining_pips=pips)
                ledger = Ledger(total=rules.starting_stones, table=table, stones=stones)
                settlement.round_award(ledger, rules, outcome)
                return ledger.stones[view.seat]
        else:
            hand.remove(tile)
            has_played[seat] = True
            last_mappano = seat
            passes = 0
            low, high = _LOW[tile], _HIGH[tile]
            if on == right:  # equal ends: either side gives the same table (R11)
                right = high if on == low else low
            else:
                left = high if on == low else low
            if not hand:  # R14 FIRST CAPPU; R15/R16 after MAPPAKULING (R13)
                finish = Finish.PLAIN
                if left == right:
                    finish = Finish.POLLO if low == high else Finish.CEKI
                outcome = RoundOutcome(
                    ending=Ending.CAPPU,
                    finish=finish,
                    first_cappu=seat,
                    cucuq=seat_before(seat),
                    winner=seat,
                )
                ledger = Ledger(total=rules.starting_stones, table=table, stones=stones)
                settlement.round_award(ledger, rules, outcome)
                settlement.camat_election(ledger, outcome)
                return ledger.stones[view.seat]
        seat = _NEXT_SEAT[seat]
        tile = -1
