"""``strong`` told part of what it cannot see, to split the omniscient seat's margin (R39).

A yardstick only, like ``bench.omniscient``: the seat searches as ``strong``
does (``referee.engine.strategies``: the same inference from passes and
plays, the same exact dealing of what it cannot see, the same search and
budget), but it is also told the sleeping tiles (which tiles the four others
hold between them, not who holds which), or the unplayed tiles of some of the
other seats, or both. Told every other hand it knows the sleeping tiles too
(they are what is left), its deal is the true one and it chooses as the
omniscient seat does; told none, it is ``strong``. A live seat is never told
any of this.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence

from referee.engine import strategies as engine
from referee.engine.moves import Move
from referee.engine.selfplay import Seer
from referee.engine.strategies import SeatView, StrongConfig
from referee.engine.tiles import SEATS, Tile


def _told(
    view: SeatView,
    unseen: list[int],
    forbidden: dict[int, set[int]],
    hands: Sequence[frozenset[Tile]],
    sleeping: bool,
    seats: tuple[int, ...],
) -> dict[int, set[int]]:
    """``forbidden`` tightened by what the seat is told: a sleeping tile is forbidden to
    every other seat; a told seat (``seats``: 1–4 after ``view.seat``) may hold only its
    own unplayed tiles, and no other seat may hold them."""
    out = {s: set(f) for s, f in forbidden.items()}
    held = {engine._NUMBER[t] for s in range(SEATS) if s != view.seat for t in hands[s]}
    if sleeping:
        for s in out:
            out[s].update(i for i in unseen if i not in held)
    for k in seats:
        told = (view.seat + k) % SEATS
        own = {engine._NUMBER[t] for t in hands[told]}
        for s in out:
            out[s].update(i for i in unseen if (i in own) != (s == told))
    return out


def informed(
    config: StrongConfig,
    sleeping: bool,
    seats: tuple[int, ...],
    view: SeatView,
    hands: Sequence[frozenset[Tile]],
    rng: random.Random,
) -> Move:
    """The move of ``strong`` (``config``) for ``view``, told the sleeping tiles when
    ``sleeping`` and the hands of the seats ``seats`` places after it (``hands``: every
    seat's unplayed tiles, 0–4; a ``Seer``'s arguments after the first three)."""
    moves = view.legal_moves()
    if len(moves) == 1:
        return moves[0]
    sampler = None
    for infer in dict.fromkeys((config.infer_plays, False)):  # no deal fits: passes only
        unseen, forbidden = engine._constraints(view, infer)
        told = _told(view, unseen, forbidden, hands, sleeping, seats)
        sampler = engine._exact_sampler(view, unseen, told)
        if sampler is not None:
            break
    assert sampler is not None, "the true deal always fits what the seat is told"
    firsts = [engine._first(move) for move in moves]
    totals = [0.0] * len(moves)
    work = [0]
    for _ in range(config.deals):
        if work[0] >= config.work:
            break
        others = sampler(rng)
        for index, first in enumerate(firsts):
            totals[index] += engine._search(view, others, first, config, work)
    weights = [engine._weight(move) for move in moves]
    best = min(
        range(len(moves)), key=lambda i: (round(totals[i], 9), engine._negate(weights[i]), i)
    )
    return moves[best]


def seer(config: StrongConfig, *, sleeping: bool = False, seats: tuple[int, ...] = ()) -> Seer:
    """A ``Seer`` playing ``informed`` with these arguments (for ``bench.ladder.SEERS``)."""
    return functools.partial(informed, config, sleeping, seats)
