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
- ``strong``: a determinized search (``strong_strategy``). It reads the
  others' plays and leads as ``greedy``'s as well as their passes, deals the
  tiles it cannot see uniformly among every deal consistent with that, plays
  each candidate to the end of the round on each deal with its own later
  moves searched too, and keeps the move with the fewest stones relative to
  the others (R22–R25, through ``scoring.core.settlement``). A budget of deals
  and simulated moves, not of time, bounds a decision; a forced move costs
  nothing.
"""

from __future__ import annotations

import math
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

STRONG_WORK = 6000
"""…but no more than this many simulated moves a decision in all (a count, not a clock: the
same view and seed give the same move), which keeps a move within its time budget (R39: at
most 200 ms on the bench machine)."""


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
    ``stones``: the stones now (R22); ``rules``: the game's rule set (R40);
    ``history``: the round's moves in order as the table saw them, each as
    (seat, tile or ``None`` for a pass, the end value played on or ``None``
    for the lead, the open ends before it or ``None`` before the lead);
    ``camat``: the seat in office, ``None`` when there is none (R24–R26).
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
    history: tuple[tuple[int, Tile | None, int | None, tuple[int, int] | None], ...] = ()
    camat: int | None = None

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
            camat=standing.camat,
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
        history=_history(rnd.moves),
        camat=standing.camat,
    )


def _history(
    moves: Iterable[Move],
) -> tuple[tuple[int, Tile | None, int | None, tuple[int, int] | None], ...]:
    """The moves of a round as ``SeatView.history`` gives them (what the whole table saw)."""
    out: list[tuple[int, Tile | None, int | None, tuple[int, int] | None]] = []
    ends: tuple[int, int] | None = None
    for move in moves:
        if not isinstance(move, Play):
            out.append((move.seat, None, None, ends))
            continue
        tile = move.tile
        if ends is None:
            out.append((move.seat, tile, None, None))
            ends = (tile.low, tile.high)
            continue
        on = move.on
        if on is None:  # not said: the one end it fits, the lower one when it fits both
            on = min(v for v in ends if tile.carries(v))
        out.append((move.seat, tile, on, ends))
        other = tile.high if on == tile.low else tile.low
        ends = (ends[0], other) if on == ends[1] else (other, ends[1])
    return tuple(out)


Strategy = Callable[[SeatView, random.Random], Move]


def random_strategy(view: SeatView, rng: random.Random) -> Move:
    """Any legal move, each as likely (R39 ``random``)."""
    return rng.choice(_moves(view))


def greedy_strategy(view: SeatView, rng: random.Random) -> Move:
    """The heaviest tile it can play: most pips, a LEMPA first on a tie (R39 ``greedy``)."""
    return max(_moves(view), key=_weight)


@dataclass(frozen=True, slots=True)
class StrongConfig:
    """The ``strong`` strategy's parts, each of which can be switched off to measure it.

    ``infer_plays``: read the others' plays and leads as ``greedy``'s would
    be (a seat whose plays contradict that is read from its passes only);
    ``search_own``: optimise its own later moves on each deal (else it plays
    them ``greedy``); ``relative``: score its stones minus the others' mean
    (else its own stones); ``exact``: deal the unseen tiles uniformly among
    every consistent deal (else seat by seat, the old way); ``lead_value``:
    stones a playout's score counts for leading the next round (the CAMAT in
    office or elected, else the round's winner, R6, R24–R26): L less when it
    is this seat, L/4 more when another (0: off); ``tree``: choose its own
    later moves from statistics shared by every deal of a candidate, keyed by
    what the seat has seen (an information-set search, ``_tree_playout``),
    instead of optimising them on each deal; ``explore``: that search's UCB1
    weight, in stones; ``deals``: deals a move at most; ``work``: the search's
    budget of moves a decision (a count, not a clock, so a move is
    reproducible); ``belief``: with ``infer_plays``, the chance that a deal
    reads each other seat (apart, drawn anew each deal) as ``greedy``'s
    plays rather than from its passes only (a prior over how the others
    play: 1 reads every seat so). ``lead_value``, ``tree`` and ``belief``
    are off in play: none measured better (bench/ANALYSIS.md, "The strength
    ladder").
    """

    infer_plays: bool = True
    search_own: bool = True
    relative: bool = True
    exact: bool = True
    lead_value: float = 0.0
    tree: bool = False
    explore: float = 2.0
    deals: int = STRONG_SAMPLES
    work: int = STRONG_WORK
    belief: float = 1.0


def strong_strategy(view: SeatView, rng: random.Random) -> Move:
    """Determinized search over the deals consistent with the view (R39 ``strong``).

    What it knows: ``view`` only — its own tiles and the table (ends, every
    play and pass in order, the first lead's assertion, the stones), never
    another hand or the sleeping tiles. How it infers: a pass rules out the
    values passed on (R32); a play or a lead by a seat read as ``greedy``
    rules out every heavier tile it could have played then (a seat whose
    later plays contradict that reading, or whose reading admits no deal, is
    read from its passes only). How it searches: up to ``STRONG_SAMPLES``
    deals of the unseen tiles, drawn uniformly among every deal consistent
    with those facts (exact counts, no seat dealt first); on each deal every
    candidate is played to the round's end with the others playing
    ``greedy`` and its own later moves optimised on that deal; the move with
    the lowest mean of (its stones minus the others' mean) after the round
    wins (R22–R25, through ``scoring.core.settlement``), the heaviest tile on
    a tie. Budget: at most ``STRONG_WORK`` simulated moves a decision (about
    30–60 ms on the bench machine, within R39's 200 ms); a forced move costs
    nothing. The same view and seed give the same move.
    """
    return strong_with(STRONG_CONFIG, view, rng)


def strong_with(config: StrongConfig, view: SeatView, rng: random.Random) -> Move:
    """``strong_strategy`` with the parts of ``config`` (the bench measures each part)."""
    moves = _moves(view)
    if len(moves) == 1:
        return moves[0]
    unseen, forbidden = _constraints(view, config.infer_plays)
    sampler = _exact_sampler(view, unseen, forbidden) if config.exact else None
    if sampler is None and config.exact and config.infer_plays:  # no deal fits: passes only
        unseen, forbidden = _constraints(view, False)
        sampler = _exact_sampler(view, unseen, forbidden)
    old = _unseen_by_seat(view) if sampler is None else None
    if sampler is not None and config.infer_plays and config.belief < 1.0:
        sampler = _mixed_sampler(view, sampler, config.belief)
    firsts = [_first(move) for move in moves]
    totals = [0.0] * len(moves)
    trees: list[dict[tuple[tuple[int, int | None], ...], Node] | None] = [
        {} if config.tree else None for _ in moves
    ]
    work = [0]
    for _ in range(config.deals):
        if work[0] >= config.work:
            break
        others: dict[int, list[int]] | None
        if sampler is not None:
            others = sampler(rng)
        else:
            assert old is not None
            others = _sample_hidden(view, old, rng)
        if others is None:
            continue
        for index, first in enumerate(firsts):
            totals[index] += _search(view, others, first, config, work, trees[index])
    weights = [_weight(move) for move in moves]
    best = min(range(len(moves)), key=lambda i: (round(totals[i], 9), _negate(weights[i]), i))
    return moves[best]


def _mixed_sampler(view: SeatView, fallback: Sampler, belief: float) -> Sampler:
    """Deals drawn as ``StrongConfig.belief`` says: each other seat read from its plays as
    ``greedy``'s with chance ``belief``, else from its passes only, anew each deal (a reading
    no deal fits draws from ``fallback``); a sampler per set of seats so read, made once."""
    unseen, inferred = _constraints(view, True)
    _, passes = _constraints(view, False)
    others = sorted(inferred)
    made: dict[frozenset[int], Sampler | None] = {}

    def draw(rng: random.Random) -> dict[int, list[int]]:
        read = frozenset(s for s in others if rng.random() < belief)
        if read not in made:
            forbidden = {s: inferred[s] if s in read else passes[s] for s in others}
            made[read] = _exact_sampler(view, unseen, forbidden)
        sampler = made[read] or fallback
        return sampler(rng)

    return draw


def _negate(weight: tuple[int, bool, int, int]) -> tuple[int, int, int, int]:
    return (-weight[0], -int(weight[1]), -weight[2], -weight[3])


STRONG_CONFIG = StrongConfig()
"""The parts the live ``strong`` seat plays with: all of them."""


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


def _unseen_and_others(view: SeatView) -> tuple[list[int], list[int]]:
    """The tiles ``view.seat`` cannot see, as numbers (neither in its hand nor played nor
    asserted sleeping by the first lead, R5), and the other seats."""
    own = set(view.hand)
    unseen = [
        i
        for i, t in enumerate(ALL_TILES)
        if t not in view.played and t not in own and t not in view.sleeping
    ]
    return unseen, [s for s in range(SEATS) if s != view.seat]


def _unseen_by_seat(view: SeatView) -> tuple[int, dict[int, list[int]], list[int]]:
    """What ``view.seat`` cannot see: how many tiles (as numbers), which of them each other
    seat may hold (none carrying a value it passed on, R32; never an asserted-sleeping
    tile, R5), and the other seats, those with the fewest spare candidates first."""
    unseen, others = _unseen_and_others(view)
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


def _first(move: Move) -> tuple[int | None, int | None]:
    """A candidate as the search takes it: (tile number or ``None`` for a pass, end value)."""
    if isinstance(move, Play):
        return _NUMBER[move.tile], move.on
    return None, None


def _constraints(view: SeatView, infer_plays: bool) -> tuple[list[int], dict[int, set[int]]]:
    """The tiles ``view.seat`` cannot see (as numbers) and, per other seat, those it cannot hold.

    A seat cannot hold a tile carrying a value it passed on (R32). With
    ``infer_plays``, a seat read as ``greedy`` cannot hold a tile heavier (in
    greedy order) than one it led or played that it could have played instead
    (it was unplayed and matched an open end then; any tile at a lead that is
    not the game's first, R6). A seat is not read so when its plays contradict
    it: it later plays a tile it could not hold, or puts a tile that fits both
    ends on the higher one.
    """
    unseen, others = _unseen_and_others(view)
    forbidden = {
        s: {i for i in unseen if _LOW[i] in view.passed_on[s] or _HIGH[i] in view.passed_on[s]}
        for s in others
    }
    if not infer_plays:
        return unseen, forbidden
    inferred: dict[int, set[int]] = {s: set() for s in others}
    contradicted: set[int] = set()
    gone: set[int] = set()
    for index, (seat, tile, on, ends) in enumerate(view.history):
        if tile is None:
            continue
        number = _NUMBER[tile]
        if seat in inferred and seat not in contradicted:
            if number in inferred[seat]:
                contradicted.add(seat)
            elif ends is None:
                if not (index == 0 and view.first_of_game):  # a free lead: its heaviest (R6)
                    rank = _GREEDY_RANK[number]
                    inferred[seat].update(
                        i for i in range(len(ALL_TILES)) if i not in gone and _GREEDY_RANK[i] < rank
                    )
            else:
                fits = [v for v in set(ends) if tile.carries(v)]
                if len(fits) > 1 and on != min(fits):
                    contradicted.add(seat)
                else:
                    rank = _GREEDY_RANK[number]
                    inferred[seat].update(
                        i
                        for i in range(len(ALL_TILES))
                        if i not in gone
                        and _GREEDY_RANK[i] < rank
                        and (_LOW[i] in ends or _HIGH[i] in ends)
                    )
        gone.add(number)
    for seat in others:
        if seat not in contradicted:
            forbidden[seat] |= inferred[seat]
    return unseen, forbidden


Sampler = Callable[[random.Random], dict[int, list[int]]]
Chooser = Callable[[list[tuple[int, int]], "list[tuple[int, int | None]] | None"], tuple[int, int]]


def _exact_sampler(
    view: SeatView, unseen: list[int], forbidden: dict[int, set[int]]
) -> Sampler | None:
    """Draws deals of ``unseen`` uniformly among all that fit: each other seat ``tiles_left``
    tiles none of them ``forbidden`` to it, the rest sleeping; ``None`` when none fits.

    Tiles are grouped by the seats that may hold them; the number of deals is
    counted exactly over the groups (how many of each group each seat gets),
    and a draw walks the groups choosing each split in proportion to the deals
    it leaves, then hands a group's tiles out in a random order.
    """
    others = [s for s in range(SEATS) if s != view.seat]
    caps = [view.tiles_left[s] for s in others]
    sleep = len(unseen) - sum(caps)
    if sleep < 0:
        return None
    groups: dict[tuple[int, ...], list[int]] = {}
    for i in unseen:
        slots = tuple(k for k, s in enumerate(others) if i not in forbidden[s]) + (len(others),)
        groups.setdefault(slots, []).append(i)
    everyone = tuple(range(len(others) + 1))
    # The tiles any seat may hold go last: their split is forced and counted in closed form.
    classes = sorted(groups.items(), key=lambda item: (item[0] == everyone, item[0]))
    start = (*caps, sleep)
    memo: dict[tuple[int, tuple[int, ...]], list[tuple[int, tuple[int, ...], tuple[int, ...]]]] = {}
    counts: dict[tuple[int, tuple[int, ...]], int] = {}

    def splits(n: int, slots: tuple[int, ...], left: tuple[int, ...]) -> list[tuple[int, ...]]:
        """Every way to put ``n`` tiles in ``slots`` within the room ``left`` (per slot)."""
        if not slots:
            return [()] if n == 0 else []
        head, rest = slots[0], slots[1:]
        out: list[tuple[int, ...]] = []
        for k in range(min(n, left[head]), -1, -1):
            out.extend((k, *tail) for tail in splits(n - k, rest, left))
        return out

    def count(index: int, left: tuple[int, ...]) -> int:
        key = (index, left)
        found = counts.get(key)
        if found is not None:
            return found
        if index == len(classes):
            total = 1 if not any(left) else 0
            counts[key] = total
            return total
        slots, tiles = classes[index]
        options = []
        total = 0
        if slots == everyone:  # the last group: what room is left is its split
            if sum(left) != len(tiles):
                counts[key] = 0
                return 0
            candidates = [left]
        else:
            candidates = splits(len(tiles), slots, left)
        for split in candidates:
            after = list(left)
            ways = math.factorial(len(tiles))
            for slot, k in zip(slots, split, strict=True):
                after[slot] -= k
                ways //= math.factorial(k)
            rest = tuple(after)
            sub = count(index + 1, rest)
            if sub:
                options.append((ways * sub, split, rest))
                total += ways * sub
        memo[key] = options
        counts[key] = total
        return total

    if count(0, start) == 0:
        return None

    def draw(rng: random.Random) -> dict[int, list[int]]:
        hands: dict[int, list[int]] = {s: [] for s in others}
        left = start
        for index, (slots, tiles) in enumerate(classes):
            options = memo[(index, left)]
            pick = rng.randrange(sum(w for w, _, _ in options))
            chosen = options[-1]
            for option in options:
                if pick < option[0]:
                    chosen = option
                    break
                pick -= option[0]
            _, split, rest = chosen
            order = list(tiles)
            rng.shuffle(order)
            at = 0
            for slot, k in zip(slots, split, strict=True):
                if slot < len(others):
                    hands[others[slot]].extend(order[at : at + k])
                at += k
            left = rest
        for hand in hands.values():
            hand.sort(key=_GREEDY_RANK.__getitem__)
        return hands

    return draw


def _search(
    view: SeatView,
    others: dict[int, list[int]],
    first: tuple[int | None, int | None],
    config: StrongConfig,
    work: list[int],
    tree: dict[tuple[tuple[int, int | None], ...], Node] | None = None,
) -> float:
    """The score of playing ``first`` on this deal: ``view.seat``'s stones after the round,
    minus the others' mean when ``config.relative`` (lower is better)."""
    me = view.seat
    relative = config.relative
    lead = config.lead_value
    camat = view.camat

    def score(stones: list[int], winner: int, elected: int | None) -> float:
        value = float(stones[me])
        if relative:
            value -= (sum(stones) - stones[me]) / (SEATS - 1)
        if lead:  # who leads the next round: the CAMAT, else the winner (R6, R24-R26)
            leader = elected if elected is not None else camat if camat is not None else winner
            value += -lead if leader == me else lead / (SEATS - 1)
        return value

    if tree is None:
        return _play_round(view, others, first, config.search_own, score, work)
    return _tree_playout(view, others, first, score, work, tree, config.explore)


Node = dict[tuple[int, int], list[float]]
"""One of this seat's later decisions in the search: per option, [playouts, total score]."""


def _tree_playout(
    view: SeatView,
    others: dict[int, list[int]],
    first: tuple[int | None, int | None],
    score: Callable[[list[int], int, int | None], float],
    work: list[int],
    tree: dict[tuple[tuple[int, int | None], ...], Node],
    explore: float,
) -> float:
    """One playout of ``first`` on this deal, this seat's later choices drawn from ``tree``.

    ``tree`` is shared by every deal of one candidate and keyed by what the
    seat has seen since (each move as seat and tile, ``None`` for a pass), so
    a choice is made from what its seat may know, never from the deal (R39):
    an option not yet tried first (heaviest first), else the lowest mean score
    less ``explore`` times UCB1's bonus. One new decision is added a playout;
    below it the seat plays ``greedy``. Each decision taken is credited with
    the playout's score.
    """
    path: list[list[float]] = []
    grown = [False]

    def chooser(
        options: list[tuple[int, int]], trace: list[tuple[int, int | None]] | None
    ) -> tuple[int, int]:
        assert trace is not None
        key = tuple(trace)
        node = tree.get(key)
        if node is None:
            if grown[0]:
                return options[0]
            grown[0] = True
            node = tree[key] = {}
        for option in options:
            if option not in node:
                stats = node[option] = [0.0, 0.0]
                path.append(stats)
                return option
        bonus = explore * math.sqrt(math.log(sum(node[o][0] for o in options)))
        pick = min(options, key=lambda o: node[o][1] / node[o][0] - bonus / math.sqrt(node[o][0]))
        path.append(node[pick])
        return pick

    value = _play_round(view, others, first, False, score, work, chooser)
    for stats in path:
        stats[0] += 1
        stats[1] += value
    return value


def _playout(view: SeatView, others: dict[int, list[int]], first: Move) -> int:
    """Stones ``view.seat`` holds after its round is played out ``greedy`` from ``first``."""
    return int(
        _play_round(view, others, _first(first), False, lambda st, _w, _e: st[view.seat], [0])
    )


def _play_round(
    view: SeatView,
    others: dict[int, list[int]],
    first: tuple[int | None, int | None],
    search_own: bool,
    score: Callable[[list[int], int, int | None], float],
    work: list[int],
    chooser: Chooser | None = None,
) -> float:
    """``score`` of the stones after the round is played out from ``first`` on this deal.

    ``others``: the other seats' tiles as numbers, in greedy order. Every
    other seat plays ``greedy`` (the first tile of its hand in greedy order
    that an open end takes, on the lower end value if it fits both); with
    ``search_own`` this seat's later moves are each tried and the best kept,
    else it plays ``greedy`` too. A pass's stones are R23a's, reckoned here
    for speed (one giver: the LAST MAPPANO); the end-of-round award and a
    CAMAT's election are the rules core's (``scoring.core.settlement``). A
    test holds it to the core's fold. ``work[0]`` counts the moves simulated.
    """
    hands = {s: list(tiles) for s, tiles in others.items()}
    hands[view.seat] = sorted((_NUMBER[t] for t in view.hand), key=_GREEDY_RANK.__getitem__)
    tile, on = first
    left: int
    right: int
    has_played = list(view.has_played)
    last_mappano = view.last_mappano
    seat = view.seat
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
    return _continue(
        view.rules,
        view.seat,
        search_own,
        score,
        work,
        hands,
        left,
        right,
        view.table,
        list(view.stones),
        has_played,
        last_mappano,
        view.consecutive_passes,
        seat,
        tile,
        on,
        chooser,
        [] if chooser is not None else None,
    )


def _continue(
    rules: RuleSet,
    me: int,
    search_own: bool,
    score: Callable[[list[int], int, int | None], float],
    work: list[int],
    hands: dict[int, list[int]],
    left: int,
    right: int,
    table: int,
    stones: list[int],
    has_played: list[bool],
    last_mappano: int | None,
    passes: int,
    seat: int,
    tile: int | None,
    on: int | None,
    chooser: Chooser | None = None,
    trace: list[tuple[int, int | None]] | None = None,
) -> float:
    """The rest of ``_play_round`` from ``seat`` about to play ``tile`` (-1: to choose).

    With ``chooser``, this seat's later choices are ``chooser(options, trace)``'s, where
    ``trace`` is every move since the decision as (seat, tile number or ``None``): what
    the seat sees, never the others' tiles."""
    while True:
        work[0] += 1
        hand = hands[seat]
        if tile == -1 and chooser is not None and seat == me:
            options = [
                (i, v) for i in hand for v in sorted({left, right}) if _LOW[i] == v or _HIGH[i] == v
            ]
            if len(options) > 1:
                tile, on = chooser(options, trace)
        if tile == -1 and search_own and seat == me:
            options = [
                (i, v) for i in hand for v in sorted({left, right}) if _LOW[i] == v or _HIGH[i] == v
            ]
            if len(options) > 1:
                return min(
                    _continue(
                        rules,
                        me,
                        search_own,
                        score,
                        work,
                        {s: list(h) for s, h in hands.items()},
                        left,
                        right,
                        table,
                        list(stones),
                        list(has_played),
                        last_mappano,
                        passes,
                        seat,
                        i,
                        v,
                        chooser,
                        trace,
                    )
                    for i, v in options
                )
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
        if trace is not None:
            trace.append((seat, tile))
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
                assert outcome.winner is not None
                return score(ledger.stones, outcome.winner, None)
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
                elected = settlement.camat_election(ledger, outcome)
                return score(ledger.stones, seat, elected)
        seat = _NEXT_SEAT[seat]
        tile = -1
