"""The ratings model keeps R22 (fewer stones is better) through ties, over random cycles."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.ratings import CycleSeat, competition_ranks, rate_cycle, rating_model

PLAYERS = ["Andi", "Besse", "Cakra", "Daeng", "Evi", "Fajar", "Gita"]


def _ordinal(rating):
    return rating.ordinal()


def test_the_issue_cycle_ranks_fewer_stones_above_more_and_ties_equal_R22():
    """Andi CAMAT; Besse 5, Cakra 6, Daeng 5, Evi 9 (Plackett–Luce put Cakra above Besse)."""
    model = rating_model()
    ratings: dict[str, object] = {}
    held = {"Andi": 0, "Besse": 5, "Cakra": 6, "Daeng": 5, "Evi": 9}

    rate_cycle(model, ratings, [CycleSeat(p, p == "Andi", n) for p, n in held.items()])

    ordinal = {p: ratings[p].ordinal() for p in held}
    assert (
        ordinal["Andi"] > ordinal["Besse"] == ordinal["Daeng"] > ordinal["Cakra"] > ordinal["Evi"]
    )
    ordered = sorted(ordinal.values(), reverse=True)
    assert competition_ranks(ordered) == [1, 2, 2, 4, 5]


_cycle = st.tuples(
    st.permutations(range(len(PLAYERS))).map(lambda order: order[:5]),
    st.integers(min_value=0, max_value=4),  # the CAMAT's seat
    st.lists(st.integers(min_value=0, max_value=25), min_size=5, max_size=5),
    st.lists(st.booleans(), min_size=5, max_size=5),  # guests
)


@settings(max_examples=200, deadline=None)
@given(cycles=st.lists(_cycle, min_size=1, max_size=12))
def test_among_players_rated_equally_more_stones_never_ends_above_fewer_R22(cycles):
    model = rating_model()
    ratings: dict[str, object] = {}
    for order, camat, stones, guests in cycles:
        seats = [
            CycleSeat(
                None if guests[k] and k != camat else PLAYERS[i],
                k == camat,
                0 if k == camat else stones[k],
            )
            for k, i in enumerate(order)
        ]
        before = {s.player: ratings.get(s.player) for s in seats if s.player is not None}
        rate_cycle(model, ratings, seats)
        named = [s for s in seats if s.player is not None]
        for a in named:
            for b in named:
                ra, rb = before[a.player], before[b.player]
                equal_before = (ra is None and rb is None) or (
                    ra is not None and rb is not None and (ra.mu, ra.sigma) == (rb.mu, rb.sigma)
                )
                if not equal_before:
                    continue
                after_a, after_b = ratings[a.player].ordinal(), ratings[b.player].ordinal()
                if a.place < b.place:
                    assert after_a >= after_b
                if a.place == b.place:
                    assert after_a == pytest.approx(after_b)


@given(st.lists(st.integers(min_value=-5, max_value=5)))
def test_equal_values_share_a_rank_and_the_next_rank_skips(values):
    ordered = sorted(values, reverse=True)

    ranks = competition_ranks(ordered)

    for value, rank in zip(ordered, ranks, strict=True):
        assert rank == 1 + sum(1 for other in ordered if other > value)
