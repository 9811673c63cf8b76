"""Which stones move at a pass and at a round's end, and when a CAMAT is elected (R23–R25)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.engine.outcome import Ending, Finish, RoundOutcome
from referee.engine.rules import RuleSet
from scoring.core.ledger import TABLE, Ledger, Transfer
from scoring.core.settlement import camat_election, pass_award, pass_awards, round_award

DEFAULTS = RuleSet()


def _ledger(table: int, stones: list[int]) -> Ledger:
    return Ledger(total=table + sum(stones), table=table, stones=list(stones))


def _cappu(first_cappu: int, finish: Finish) -> RoundOutcome:
    return RoundOutcome(
        ending=Ending.CAPPU,
        finish=finish,
        first_cappu=first_cappu,
        cucuq=(first_cappu - 1) % 5,
        winner=first_cappu,
    )


def _blocked(manguno: int, pips: list[int]) -> RoundOutcome:
    mattikkeng = tuple(s for s in range(5) if s != manguno and pips[s] <= pips[manguno])
    order = [(manguno + k) % 5 for k in range(1, 5)]
    winner = (
        min((s for s in order if s in mattikkeng), key=lambda s: (pips[s], order.index(s)))
        if mattikkeng
        else manguno
    )
    return RoundOutcome(
        ending=Ending.BLOCKED,
        manguno=manguno,
        mattikkeng=mattikkeng,
        cucuq=None if mattikkeng else (manguno - 1) % 5,
        winner=winner,
        remaining_pips=tuple(pips),
    )


# -- passes (R23a) --


def test_a_pass_receives_one_stone_from_the_table_R23a():
    ledger = Ledger.starting(25)

    transfers = pass_award(
        ledger, DEFAULTS, seat=2, passebunge=False, closing=False, last_mappano=1, move=6
    )

    assert transfers == [Transfer(6, TABLE, 2, 1, "pass")]


def test_a_passebunge_receives_two_stones_R23a_R10():
    ledger = Ledger.starting(25)

    transfers = pass_award(
        ledger, DEFAULTS, seat=2, passebunge=True, closing=False, last_mappano=1, move=2
    )

    assert transfers == [Transfer(2, TABLE, 2, 2, "passebunge")]


def test_a_pass_shortfall_comes_from_the_last_mappano_R23a():
    ledger = _ledger(1, [0, 3, 0, 0, 0])

    transfers = pass_award(
        ledger, DEFAULTS, seat=2, passebunge=True, closing=False, last_mappano=1, move=2
    )

    assert transfers == [Transfer(2, TABLE, 2, 1, "passebunge"), Transfer(2, 1, 2, 1, "passebunge")]


def test_the_closing_pass_counts_by_default_but_cannot_draw_on_the_manguno_itself_R23a():
    with_table = Ledger.starting(25)
    empty_table = _ledger(0, [1, 1, 1, 1, 1])

    counted = pass_award(
        with_table, DEFAULTS, seat=1, passebunge=False, closing=True, last_mappano=1, move=11
    )
    lapsed = pass_award(
        empty_table, DEFAULTS, seat=1, passebunge=False, closing=True, last_mappano=1, move=11
    )

    assert counted == [Transfer(11, TABLE, 1, 1, "pass")]
    assert lapsed == []
    assert empty_table.stones == [1, 1, 1, 1, 1]


def test_with_closing_pass_counts_off_the_closing_pass_receives_nothing_R23a_R40():
    ledger = Ledger.starting(25)
    rules = RuleSet(closing_pass_counts=False)

    transfers = pass_award(
        ledger, rules, seat=1, passebunge=False, closing=True, last_mappano=1, move=11
    )

    assert transfers == []
    assert ledger.table == 25


# -- a FIRST CAPPU (R23b) --


@pytest.mark.parametrize(
    ("finish", "stones", "reason"),
    [(Finish.PLAIN, 1, "cappu"), (Finish.CEKI, 3, "ceki"), (Finish.POLLO, 5, "pollo")],
)
def test_the_cucuq_receives_1_3_or_5_by_the_finish_R23b(finish, stones, reason):
    ledger = Ledger.starting(25)

    transfers = round_award(ledger, DEFAULTS, _cappu(0, finish))

    assert transfers == [Transfer(None, TABLE, 4, stones, reason)]


def test_the_cucuq_shortfall_comes_from_the_first_cappu_R23b():
    ledger = _ledger(3, [0, 2, 0, 0, 0])

    transfers = round_award(ledger, DEFAULTS, _cappu(1, Finish.POLLO))

    assert transfers == [Transfer(None, TABLE, 0, 3, "pollo"), Transfer(None, 1, 0, 2, "pollo")]
    assert ledger.table == 0
    assert ledger.stones == [5, 0, 0, 0, 0]


def test_custom_numbers_change_the_cucuq_award_R23b_R40():
    rules = RuleSet(cucuq_stones=2, ceki_stones=4, pollo_stones=7)

    awarded = [
        round_award(Ledger.starting(25), rules, _cappu(2, finish))[0].stones
        for finish in (Finish.PLAIN, Finish.CEKI, Finish.POLLO)
    ]

    assert awarded == [2, 4, 7]


# -- a block (R23c, R23d) --


def test_a_block_without_mattikkeng_gives_the_cucuq_1_shortfall_from_the_manguno_R23c():
    ledger = _ledger(0, [0, 2, 0, 0, 0])

    transfers = round_award(ledger, DEFAULTS, _blocked(1, [12, 3, 14, 23, 29]))

    assert transfers == [Transfer(None, 1, 0, 1, "manguno")]


def test_the_block_cucuq_award_uses_the_plain_finish_number_R23c_R40():
    transfers = round_award(
        Ledger.starting(25), RuleSet(cucuq_stones=3), _blocked(1, [12, 3, 14, 23, 29])
    )

    assert transfers == [Transfer(None, TABLE, 0, 3, "manguno")]


def test_one_lower_mattikkeng_makes_the_manguno_receive_5_R23d():
    transfers = round_award(Ledger.starting(25), DEFAULTS, _blocked(1, [20, 10, 20, 5, 20]))

    assert transfers == [Transfer(None, TABLE, 1, 5, "mattikkeng")]


def test_a_mattikkeng_on_equal_pips_makes_the_penalty_1_R23d():
    transfers = round_award(Ledger.starting(25), DEFAULTS, _blocked(1, [20, 10, 20, 20, 10]))

    assert transfers == [Transfer(None, TABLE, 1, 1, "mattikkeng")]


def test_two_mattikkeng_make_the_penalty_1_R23d():
    transfers = round_award(Ledger.starting(25), DEFAULTS, _blocked(1, [20, 10, 20, 5, 8]))

    assert transfers == [Transfer(None, TABLE, 1, 1, "mattikkeng")]


def test_custom_manguno_numbers_change_the_penalty_R23d_R40():
    rules = RuleSet(manguno_stones=7, manguno_reduced_stones=3)

    full = round_award(Ledger.starting(25), rules, _blocked(1, [20, 10, 20, 5, 20]))
    reduced = round_award(Ledger.starting(25), rules, _blocked(1, [20, 10, 20, 5, 8]))

    assert full[0].stones == 7
    assert reduced[0].stones == 3


def test_the_manguno_shortfall_is_paid_one_stone_at_a_time_clockwise_after_the_manguno_R23d():
    # MANGUNO seat 3; MATTIKKENG seats 1 and 4: clockwise from seat 4 that is 4, then 1.
    ledger = _ledger(1, [0, 3, 0, 0, 3])
    rules = RuleSet(manguno_reduced_stones=4)

    transfers = round_award(ledger, rules, _blocked(3, [20, 5, 20, 10, 5]))

    assert transfers == [
        Transfer(None, TABLE, 3, 1, "mattikkeng"),
        Transfer(None, 4, 3, 2, "mattikkeng"),
        Transfer(None, 1, 3, 1, "mattikkeng"),
    ]
    assert ledger.stones == [0, 2, 0, 4, 1]


def test_a_round_still_waiting_for_reveals_has_no_award_R18():
    waiting = RoundOutcome(ending=Ending.BLOCKED, manguno=1)

    with pytest.raises(ValueError, match="pips"):
        round_award(Ledger.starting(25), DEFAULTS, waiting)


# -- CAMAT (R24, R25) --


def test_a_first_cappu_holding_none_with_an_empty_table_is_elected_and_stones_reset_R24_R25():
    ledger = _ledger(0, [4, 0, 9, 7, 5])

    elected = camat_election(ledger, _cappu(1, Finish.PLAIN))

    assert elected == 1
    assert ledger.table == 25
    assert ledger.stones == [0, 0, 0, 0, 0]


def test_no_camat_while_the_table_holds_a_stone_R24():
    ledger = _ledger(1, [4, 0, 9, 7, 4])

    assert camat_election(ledger, _cappu(1, Finish.PLAIN)) is None
    assert ledger.table == 1


def test_no_camat_while_the_first_cappu_holds_a_stone_R24():
    ledger = _ledger(0, [4, 1, 9, 7, 4])

    assert camat_election(ledger, _cappu(1, Finish.CEKI)) is None
    assert ledger.stones == [4, 1, 9, 7, 4]


def test_a_blocked_round_never_elects_R24():
    ledger = _ledger(0, [4, 0, 9, 7, 5])

    assert camat_election(ledger, _blocked(1, [12, 3, 14, 23, 29])) is None
    assert ledger.table == 0


# -- a round's passes in one call (R23a) --


@given(
    table=st.integers(0, 6),
    stones=st.lists(st.integers(0, 4), min_size=5, max_size=5),
    passes=st.lists(
        st.tuples(st.integers(0, 4), st.booleans(), st.integers(0, 4)), min_size=0, max_size=12
    ),
    closing_counts=st.booleans(),
    pass_stones=st.integers(0, 3),
)
def test_a_rounds_passes_in_one_call_move_what_one_call_a_pass_moves_R23a(
    table, stones, passes, closing_counts, pass_stones
):
    rules = RuleSet(pass_stones=pass_stones, closing_pass_counts=closing_counts)
    batch = [
        (move, seat, passebunge, mappano) for move, (seat, passebunge, mappano) in enumerate(passes)
    ]
    closing_move = len(batch) - 1 if batch else None
    one_by_one, together = _ledger(table, stones), _ledger(table, stones)

    expected = []  # each pass as R23a says, through the ledger's one award rule (R23)
    for move, seat, passebunge, mappano in batch:
        if move == closing_move and not closing_counts:
            continue
        expected += one_by_one.award(
            to=seat,
            stones=rules.passebunge_stones if passebunge else rules.pass_stones,
            shortfall_from=[mappano],
            reason="passebunge" if passebunge else "pass",
            move=move,
        )
    got = pass_awards(together, rules, batch, closing_move=closing_move)

    assert got == expected
    assert (together.table, together.stones) == (one_by_one.table, one_by_one.stones)
    assert together.is_conserved()


def test_the_table_pays_a_pass_in_full_and_a_shortfall_comes_from_the_last_mappano_R23a():
    ledger = _ledger(1, [0, 3, 0, 0, 0])

    transfers = pass_awards(ledger, DEFAULTS, [(4, 2, False, 1), (5, 3, True, 1)])

    assert transfers == [
        Transfer(4, TABLE, 2, 1, "pass"),
        Transfer(5, 1, 3, 2, "passebunge"),
    ]
    assert (ledger.table, ledger.stones) == (0, [0, 1, 1, 2, 0])
