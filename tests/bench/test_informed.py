"""The ladder's told-``strong`` yardsticks (``bench.informed``) deal what they are told (R39)."""

from __future__ import annotations

import random

import pytest

from bench import informed
from referee.engine import strategies as engine
from referee.engine.selfplay import play_game
from referee.engine.strategies import STRONG_CONFIG
from referee.engine.tiles import SEATS


def _numbers(tiles):
    return {engine._NUMBER[t] for t in tiles}


def test_told_nothing_the_informed_seat_plays_exactly_as_strong_r39():
    for game in range(3):
        live = ["greedy"] * SEATS
        live[game] = "strong"
        told = list(live)
        told[game] = "tested"
        one = play_game(strategies=live, rounds=4, seed=game)
        other = play_game(
            strategies=told, rounds=4, seed=game, seers={"tested": informed.seer(STRONG_CONFIG)}
        )
        assert one.record["rounds"] == other.record["rounds"]


@pytest.mark.parametrize(
    ("sleeping", "seats"),
    [(True, ()), (False, (1,)), (False, (4,)), (False, (1, 2, 3, 4)), (True, (1, 2, 3, 4))],
)
def test_every_deal_drawn_agrees_with_what_the_seat_is_told_and_the_true_deal_fits_r39(
    sleeping, seats
):
    """Told the sleeping tiles, every deal gives the others the tiles they truly hold between
    them; told a seat's hand, that seat gets exactly it; told every hand (the sleeping tiles
    then follow, R4), every deal is the true one, told the sleeping tiles or not."""
    checked = 0

    def probe(view, hands, rng):
        nonlocal checked
        unseen, forbidden = engine._constraints(view, True)
        told = informed._told(view, unseen, forbidden, hands, sleeping, seats)
        if len(seats) == SEATS - 1:
            assert told == informed._told(view, unseen, forbidden, hands, True, seats)
        sampler = engine._exact_sampler(view, unseen, told)
        assert sampler is not None  # the others play greedy: the truth always fits
        truth = {s: _numbers(hands[s]) for s in range(SEATS) if s != view.seat}
        for _ in range(10):
            deal = {s: set(h) for s, h in sampler(random.Random(checked)).items()}
            if sleeping:
                assert set().union(*deal.values()) == set().union(*truth.values())
            for k in seats:
                seat = (view.seat + k) % SEATS
                assert deal[seat] == truth[seat]
            checked += 1
        return engine.greedy_strategy(view, rng)

    for game in range(3):
        seats_ = ["greedy"] * SEATS
        seats_[game] = "tested"
        play_game(strategies=seats_, rounds=3, seed=game, seers={"tested": probe})
    assert checked > 100
