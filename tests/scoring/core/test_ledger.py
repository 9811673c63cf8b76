"""The ledger of stones: awards with a shortfall, conservation and reset (R22, R23, R25)."""

from __future__ import annotations

from scoring.core.ledger import TABLE, Ledger, Transfer


def _ledger(table: int, stones: list[int]) -> Ledger:
    return Ledger(total=table + sum(stones), table=table, stones=list(stones))


def test_a_new_ledger_has_every_stone_on_the_table_and_none_with_the_players_R22():
    ledger = Ledger.starting(25)

    assert ledger.table == 25
    assert ledger.stones == [0, 0, 0, 0, 0]
    assert ledger.is_conserved()


def test_an_award_is_taken_from_the_table_when_it_holds_enough_R23():
    ledger = Ledger.starting(25)

    transfers = ledger.award(to=2, stones=3, shortfall_from=[1], reason="ceki")

    assert transfers == [Transfer(None, TABLE, 2, 3, "ceki")]
    assert ledger.table == 22
    assert ledger.stones == [0, 0, 3, 0, 0]


def test_the_shortfall_is_handed_over_by_the_giver_R23():
    ledger = _ledger(1, [0, 4, 0, 0, 0])

    transfers = ledger.award(to=0, stones=3, shortfall_from=[1], reason="ceki")

    assert transfers == [
        Transfer(None, TABLE, 0, 1, "ceki"),
        Transfer(None, 1, 0, 2, "ceki"),
    ]
    assert ledger.table == 0
    assert ledger.stones == [3, 2, 0, 0, 0]


def test_what_the_giver_cannot_cover_lapses_R23():
    ledger = _ledger(0, [0, 1, 0, 0, 0])

    transfers = ledger.award(to=0, stones=5, shortfall_from=[1], reason="pollo")

    assert transfers == [Transfer(None, 1, 0, 1, "pollo")]
    assert ledger.stones == [1, 0, 0, 0, 0]
    assert ledger.is_conserved()


def test_a_giver_holding_nothing_gives_nothing_and_no_transfer_is_listed_R23():
    ledger = _ledger(0, [0, 0, 2, 0, 0])

    transfers = ledger.award(to=0, stones=1, shortfall_from=[1], reason="pass", move=7)

    assert transfers == []
    assert ledger.stones == [0, 0, 2, 0, 0]


def test_an_award_of_zero_stones_moves_nothing_R23_R40():
    ledger = Ledger.starting(25)

    assert ledger.award(to=0, stones=0, shortfall_from=[1], reason="cappu") == []
    assert ledger.table == 25


def test_a_seat_cannot_cover_its_own_shortfall_R23a():
    ledger = _ledger(0, [0, 3, 0, 0, 0])

    transfers = ledger.award(to=1, stones=1, shortfall_from=[1], reason="pass", move=11)

    assert transfers == []
    assert ledger.stones == [0, 3, 0, 0, 0]


def test_a_pass_transfer_carries_the_index_of_its_move_R23a():
    ledger = Ledger.starting(25)

    (transfer,) = ledger.award(to=3, stones=2, shortfall_from=[0], reason="passebunge", move=4)

    assert transfer.to_dict() == {
        "move": 4,
        "from": "table",
        "to": 3,
        "stones": 2,
        "reason": "passebunge",
    }


def test_several_givers_hand_over_one_stone_at_a_time_in_the_order_given_R23d():
    # Givers 3 then 0 (clockwise after a MANGUNO at seat 1): 3, 0, 3, 0, then only 0.
    ledger = _ledger(0, [5, 0, 0, 2, 0])

    transfers = ledger.award(to=1, stones=5, shortfall_from=[3, 0], reason="mattikkeng")

    assert transfers == [
        Transfer(None, 3, 1, 2, "mattikkeng"),
        Transfer(None, 0, 1, 3, "mattikkeng"),
    ]
    assert ledger.stones == [2, 5, 0, 0, 0]


def test_the_round_robin_stops_when_the_shortfall_is_met_R23d():
    # Shortfall 3 from givers 4, 0, 2 in that order: one stone each.
    ledger = _ledger(1, [3, 0, 3, 0, 3])

    transfers = ledger.award(to=1, stones=4, shortfall_from=[4, 0, 2], reason="mattikkeng")

    assert transfers == [
        Transfer(None, TABLE, 1, 1, "mattikkeng"),
        Transfer(None, 4, 1, 1, "mattikkeng"),
        Transfer(None, 0, 1, 1, "mattikkeng"),
        Transfer(None, 2, 1, 1, "mattikkeng"),
    ]


def test_the_round_robin_favours_the_first_giver_when_the_shortfall_is_not_a_multiple_R23d():
    ledger = _ledger(0, [0, 0, 4, 4, 0])

    transfers = ledger.award(to=0, stones=3, shortfall_from=[3, 2], reason="mattikkeng")

    assert transfers == [
        Transfer(None, 3, 0, 2, "mattikkeng"),
        Transfer(None, 2, 0, 1, "mattikkeng"),
    ]


def test_the_round_robin_skips_givers_holding_none_and_lapses_when_all_are_empty_R23d():
    ledger = _ledger(0, [1, 0, 0, 0, 2])

    transfers = ledger.award(to=2, stones=5, shortfall_from=[3, 4, 0], reason="mattikkeng")

    assert transfers == [
        Transfer(None, 4, 2, 2, "mattikkeng"),
        Transfer(None, 0, 2, 1, "mattikkeng"),
    ]
    assert ledger.stones == [0, 0, 3, 0, 0]
    assert ledger.is_conserved()


def test_nobody_ever_holds_a_negative_number_and_the_total_stays_R23():
    ledger = _ledger(2, [1, 0, 3, 0, 1])
    for to, stones, givers in [(0, 4, [1]), (1, 3, [2, 4]), (3, 6, [0, 1, 2, 4]), (4, 9, [3])]:
        ledger.award(to=to, stones=stones, shortfall_from=givers, reason="pass", move=0)
        assert ledger.is_conserved()
        assert ledger.table + sum(ledger.stones) == 7


def test_a_reset_puts_every_stone_back_on_the_table_R25():
    ledger = _ledger(3, [4, 0, 10, 8, 0])

    ledger.reset()

    assert ledger.table == 25
    assert ledger.stones == [0, 0, 0, 0, 0]


def test_a_broken_ledger_is_not_conserved_R23():
    assert not Ledger(total=25, table=24, stones=[0, 0, 0, 0, 0]).is_conserved()
    assert not Ledger(total=25, table=26, stones=[-1, 0, 0, 0, 0]).is_conserved()


def test_a_copy_is_independent_of_the_original_R23():
    ledger = Ledger.starting(25)
    copy = ledger.copy()

    copy.award(to=0, stones=1, shortfall_from=[1], reason="pass", move=1)

    assert ledger.table == 25
    assert copy.table == 24
