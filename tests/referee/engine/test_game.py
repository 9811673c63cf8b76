"""A game's stones and CAMAT as rounds are played (R22–R27, R40)."""

from __future__ import annotations

import pytest

from referee.engine.errors import RefereeError
from referee.engine.game import Game
from referee.engine.records import replay_record
from referee.engine.rules import RuleSet
from tests.referee.engine.walks import BLOCKED_REVEAL, BLOCKED_WALK, CEKI_WALK, PLAYERS
from tests.referee.engine.walks import moves as _moves
from tests.referee.engine.walks import passes as _passes

PLAIN_WALK = CEKI_WALK[:-1] + ["1-4"]
POLLO_WALK = [
    "6-6", "5-6", "5-5", "4-5", "4-4", "3-4", "3-3", "1-3", "1-1", "0-1", "0-0",
    "0-2", ("0-6", 6), "0-3", "3-5", "1-5", "1-4", "0-4", "0-5", ("2-5", 5), "2-2",
]  # fmt: skip

# Seat 1 passes (PASSEBUNGE) at move 1, later plays at move 6 and is LAST MAPPANO for the
# passes at moves 7 (plain), 8 (seat 3's second PASSEBUNGE) and 9.
SHORTFALL_MOVES = [
    {"seat": 0, "tile": "6-6"},
    {"seat": 1, "pass": True},
    {"seat": 2, "tile": "5-6"},
    {"seat": 3, "pass": True},
    {"seat": 4, "tile": "4-5", "on": 5},
    {"seat": 0, "tile": "3-4", "on": 4},
    {"seat": 1, "tile": "2-3", "on": 3},
    {"seat": 2, "pass": True},
    {"seat": 3, "pass": True},
    {"seat": 4, "pass": True},
]


# Led by seat 0 (any tile in a later round); seat 0 passes on (6, 6) at move 5 and seat 1
# plays its fifth tile at move 21, a plain finish.
CAMAT_PASSES_MOVES = [
    {"seat": 0, "tile": "6-6"}, {"seat": 1, "tile": "0-6", "on": 6},
    {"seat": 2, "tile": "0-4", "on": 0}, {"seat": 3, "tile": "1-4", "on": 4},
    {"seat": 4, "tile": "1-6", "on": 1}, {"seat": 0, "pass": True},
    {"seat": 1, "tile": "2-6", "on": 6}, {"seat": 2, "tile": "5-6", "on": 6},
    {"seat": 3, "tile": "0-5", "on": 5}, {"seat": 4, "tile": "2-2", "on": 2},
    {"seat": 0, "tile": "2-4", "on": 2}, {"seat": 1, "tile": "4-5", "on": 4},
    {"seat": 2, "tile": "0-1", "on": 0}, {"seat": 3, "tile": "1-2", "on": 1},
    {"seat": 4, "tile": "1-5", "on": 5}, {"seat": 0, "tile": "0-2", "on": 2},
    {"seat": 1, "tile": "1-3", "on": 1}, {"seat": 2, "tile": "0-0", "on": 0},
    {"seat": 3, "tile": "3-5", "on": 3}, {"seat": 4, "tile": "5-5", "on": 5},
    {"seat": 0, "tile": "0-3", "on": 0}, {"seat": 1, "tile": "2-3", "on": 3},
]  # fmt: skip


def _blocked(leader: int = 0, **counted: dict) -> dict:
    """The blocked walk led by ``leader``: MANGUNO ``leader + 1``, five passes."""
    return {"moves": _moves(BLOCKED_WALK, leader) + _passes(leader + 2), **counted}


def _by_seat(pips: list[int]) -> dict[str, int]:
    return {str(seat): p for seat, p in enumerate(pips)}


def _result(*rounds: dict, rules: dict | None = None) -> dict:
    return replay_record(
        {"format": "domeng-record/1", "players": PLAYERS, "rules": rules, "rounds": list(rounds)}
    )


def _first(*rounds: dict, rules: dict | None = None) -> dict:
    return _result(*rounds, rules=rules)["rounds"][0]


def _transfers(rnd: dict) -> list[tuple]:
    return [(t["move"], t["from"], t["to"], t["stones"], t["reason"]) for t in rnd["transfers"]]


# -- the table (R22) --


def test_a_game_starts_with_25_stones_on_the_table_and_none_with_the_players_R22():
    game = Game()

    standing = game.standing()

    assert standing.table == 25
    assert standing.stones == (0, 0, 0, 0, 0)
    assert standing.camat is None
    assert standing.next_leader is None


def test_stones_are_conserved_and_never_negative_after_every_move_R23():
    game = Game(RuleSet(starting_stones=2))
    for move in SHORTFALL_MOVES:
        game.push(move)
        assert game.ledger.table + sum(game.ledger.stones) == 2
        assert min(game.ledger.stones) >= 0
        assert game.ledger.table >= 0


# -- passes (R23a) --


def test_a_pass_takes_one_stone_and_a_passebunge_two_from_the_table_R23a():
    rnd = _first({"moves": SHORTFALL_MOVES})

    assert _transfers(rnd) == [
        (1, "table", 1, 2, "passebunge"),
        (3, "table", 3, 2, "passebunge"),
        (7, "table", 2, 1, "pass"),
        (8, "table", 3, 2, "passebunge"),
        (9, "table", 4, 1, "pass"),
    ]
    assert rnd["after"]["table"] == 17
    assert rnd["after"]["stones"] == [0, 2, 1, 4, 1]


def test_a_passs_stones_move_at_the_pass_R23e():
    game = Game()
    game.push({"seat": 0, "tile": "6-6"})

    report = game.push({"seat": 1, "pass": True})

    assert [t.to_dict() for t in report.transfers] == [
        {"move": 1, "from": "table", "to": 1, "stones": 2, "reason": "passebunge"}
    ]
    assert game.ledger.table == 23
    assert game.standing().stones == (0, 2, 0, 0, 0)


def test_a_pass_shortfall_comes_from_the_last_mappano_and_what_it_lacks_lapses_R23_R23a():
    # Two stones in all: seat 1's PASSEBUNGE empties the table at move 1.
    rnd = _first({"moves": SHORTFALL_MOVES}, rules={"starting_stones": 2})

    assert _transfers(rnd) == [
        (1, "table", 1, 2, "passebunge"),
        # move 3: seat 3's PASSEBUNGE, LAST MAPPANO seat 2 holds nothing: it all lapses
        (7, 1, 2, 1, "pass"),  # seat 1 is LAST MAPPANO and pays the whole stone
        (8, 1, 3, 1, "passebunge"),  # seat 1 has only 1 of the 2: the other lapses
        # move 9: seat 1 holds none any more
    ]
    assert rnd["after"]["table"] == 0
    assert rnd["after"]["stones"] == [0, 0, 1, 1, 0]


def test_the_closing_pass_of_the_manguno_receives_a_stone_like_any_pass_R23a():
    rnd = _first(_blocked(reveal=BLOCKED_REVEAL, pips={"4": 29}))

    assert _transfers(rnd)[:5] == [
        (7, "table", 2, 1, "pass"),
        (8, "table", 3, 1, "pass"),
        (9, "table", 4, 1, "pass"),
        (10, "table", 0, 1, "pass"),
        (11, "table", 1, 1, "pass"),
    ]


def test_the_closing_pass_cannot_take_a_shortfall_from_the_manguno_itself_R23a():
    # Four stones: the first four passes empty the table; the MANGUNO is the LAST MAPPANO.
    rnd = _first(_blocked(reveal=BLOCKED_REVEAL, pips={"4": 29}), rules={"starting_stones": 4})

    assert [t for t in _transfers(rnd) if t[0] == 11] == []
    assert rnd["after"]["stones"][1] == 0


def test_with_closing_pass_counts_off_the_closing_pass_receives_nothing_R23a_R40():
    rnd = _first(
        _blocked(reveal=BLOCKED_REVEAL, pips={"4": 29}), rules={"closing_pass_counts": False}
    )

    assert [t[0] for t in _transfers(rnd)] == [7, 8, 9, 10, None]
    assert rnd["after"]["table"] == 20
    assert rnd["after"]["stones"] == [2, 0, 1, 1, 1]


def test_custom_pass_numbers_change_what_a_pass_receives_R23a_R40():
    rnd = _first({"moves": SHORTFALL_MOVES}, rules={"pass_stones": 2, "passebunge_stones": 3})

    assert [t[3] for t in _transfers(rnd)] == [3, 3, 2, 3, 2]


# -- the end of a round (R23b–R23e) --


@pytest.mark.parametrize(
    ("walk", "stones", "reason"),
    [
        pytest.param(PLAIN_WALK, 1, "cappu", id="plain"),
        pytest.param(CEKI_WALK, 3, "ceki", id="ceki"),
        pytest.param(POLLO_WALK, 5, "pollo", id="pollo"),
    ],
)
def test_the_cucuq_receives_1_after_a_plain_finish_3_after_ceki_5_after_pollo_R23b(
    walk, stones, reason
):
    rnd = _first({"moves": _moves(walk)})

    assert rnd["first_cappu"] == 0
    assert rnd["cucuq"] == 4
    assert _transfers(rnd) == [(None, "table", 4, stones, reason)]
    assert rnd["after"] == {
        "table": 25 - stones,
        "stones": [0, 0, 0, 0, stones],
        "camat": None,
        "next_leader": 0,
    }


def test_the_cucuq_shortfall_comes_from_the_first_cappu_and_what_it_lacks_lapses_R23b():
    # Six stones. Round 1 (blocked) leaves table 0, stones [2, 1, 1, 1, 1].
    # Round 2: seat 1 goes out by CEKI; CUCUQ seat 0 should receive 3, gets 1 from seat 1.
    result = _result(
        _blocked(reveal=BLOCKED_REVEAL, pips={"4": 29}),
        {"moves": _moves(CEKI_WALK, leader=1)},
        rules={"starting_stones": 6},
    )
    first, second = result["rounds"]

    assert first["after"]["table"] == 0
    assert first["after"]["stones"] == [2, 1, 1, 1, 1]
    assert (second["first_cappu"], second["cucuq"], second["finish"]) == (1, 0, "ceki")
    assert _transfers(second) == [(None, 1, 0, 1, "ceki")]


def test_without_mattikkeng_the_cucuq_receives_1_shortfall_from_the_manguno_R23c():
    full = _first(_blocked(reveal=BLOCKED_REVEAL, pips={"4": 29}))
    short = _first(_blocked(reveal=BLOCKED_REVEAL, pips={"4": 29}), rules={"starting_stones": 5})

    assert _transfers(full)[-1] == (None, "table", 0, 1, "manguno")
    assert full["after"]["stones"] == [2, 1, 1, 1, 1]
    assert full["after"]["table"] == 19
    assert _transfers(short)[-1] == (None, 1, 0, 1, "manguno")
    assert short["after"]["stones"] == [2, 0, 1, 1, 1]


def test_the_cucuq_award_after_a_block_uses_the_plain_finish_number_R23c_R40():
    rnd = _first(_blocked(reveal=BLOCKED_REVEAL, pips={"4": 29}), rules={"cucuq_stones": 2})

    assert _transfers(rnd)[-1] == (None, "table", 0, 2, "manguno")


def test_with_one_lower_mattikkeng_the_manguno_receives_5_R23d():
    rnd = _first(_blocked(pips=_by_seat([20, 10, 20, 5, 20])))

    assert _transfers(rnd)[-1] == (None, "table", 1, 5, "mattikkeng")
    assert rnd["after"]["table"] == 15
    assert rnd["after"]["stones"] == [1, 6, 1, 1, 1]


def test_with_a_mattikkeng_on_exactly_the_manguno_pips_the_manguno_receives_1_R23d():
    rnd = _first(_blocked(pips=_by_seat([20, 10, 20, 20, 10])))

    assert _transfers(rnd)[-1] == (None, "table", 1, 1, "mattikkeng")


def test_with_more_than_one_mattikkeng_the_manguno_receives_1_R23d():
    rnd = _first(_blocked(pips=_by_seat([20, 10, 20, 5, 8])))

    assert rnd["mattikkeng"] == [3, 4]
    assert _transfers(rnd)[-1] == (None, "table", 1, 1, "mattikkeng")


def test_custom_manguno_numbers_change_the_penalty_R23d_R40():
    rules = {"manguno_stones": 4, "manguno_reduced_stones": 2}

    full = _first(_blocked(pips=_by_seat([20, 10, 20, 5, 20])), rules=rules)
    reduced = _first(_blocked(pips=_by_seat([20, 10, 20, 5, 8])), rules=rules)

    assert _transfers(full)[-1] == (None, "table", 1, 4, "mattikkeng")
    assert _transfers(reduced)[-1] == (None, "table", 1, 2, "mattikkeng")


def test_the_manguno_shortfall_comes_from_the_mattikkeng_and_lapses_beyond_them_R23d():
    # Five stones: the five passes empty the table; seat 3 (alone MATTIKKENG) holds 1.
    rnd = _first(_blocked(pips=_by_seat([20, 10, 20, 5, 20])), rules={"starting_stones": 5})

    assert _transfers(rnd)[-1] == (None, 3, 1, 1, "mattikkeng")
    assert rnd["after"]["stones"] == [1, 2, 1, 0, 1]


def test_the_manguno_shortfall_is_taken_one_stone_at_a_time_clockwise_after_the_manguno_R23d():
    # MATTIKKENG seats 0 and 3 (tie at 5: seat 3 wins). Reduced penalty set to 4; the table
    # is empty; one stone from seat 3, then one from seat 0, then nobody holds any: 2 lapse.
    rnd = _first(
        _blocked(pips=_by_seat([5, 10, 20, 5, 20])),
        rules={"starting_stones": 5, "manguno_reduced_stones": 4},
    )

    assert rnd["winner"] == 3
    assert _transfers(rnd)[5:] == [(None, 3, 1, 1, "mattikkeng"), (None, 0, 1, 1, "mattikkeng")]
    assert rnd["after"]["stones"] == [0, 3, 1, 0, 1]


def test_the_round_award_comes_after_the_passes_of_the_round_R23e():
    rnd = _first(_blocked(reveal=BLOCKED_REVEAL, pips={"4": 29}))

    assert [t[0] for t in _transfers(rnd)] == [7, 8, 9, 10, 11, None]


def test_custom_finish_numbers_change_the_cucuq_award_R23b_R40():
    rules = {"cucuq_stones": 2, "ceki_stones": 4, "pollo_stones": 6}

    plain = _first({"moves": _moves(PLAIN_WALK)}, rules=rules)
    ceki = _first({"moves": _moves(CEKI_WALK)}, rules=rules)
    pollo = _first({"moves": _moves(POLLO_WALK)}, rules=rules)

    assert [_transfers(r)[0][3] for r in (plain, ceki, pollo)] == [2, 4, 6]


# -- CAMAT (R24–R26) --


def test_a_first_cappu_holding_none_is_elected_camat_when_the_table_empties_R24():
    # Three stones: the CEKI award empties the table; seat 0 holds none.
    rnd = _first({"moves": _moves(CEKI_WALK)}, rules={"starting_stones": 3})

    assert _transfers(rnd) == [(None, "table", 4, 3, "ceki")]
    assert rnd["camat_elected"] == 0


def test_electing_a_camat_puts_every_stone_back_on_the_table_R25():
    rnd = _first({"moves": _moves(CEKI_WALK)}, rules={"starting_stones": 3})

    assert rnd["after"] == {"table": 3, "stones": [0, 0, 0, 0, 0], "camat": 0, "next_leader": 0}


def test_a_first_cappu_whose_last_stones_pay_the_shortfall_is_elected_R24_R23e():
    result = _result(
        _blocked(reveal=BLOCKED_REVEAL, pips={"4": 29}),
        {"moves": _moves(CEKI_WALK, leader=1)},
        rules={"starting_stones": 6},
    )
    second = result["rounds"][1]

    assert second["camat_elected"] == 1
    assert second["after"] == {"table": 6, "stones": [0, 0, 0, 0, 0], "camat": 1, "next_leader": 1}


def test_a_first_cappu_still_holding_stones_after_the_award_is_not_elected_R24():
    # Table empty before round 2, seat 1 holds 1; a plain finish costs seat 1 nothing when
    # the CUCUQ number is 0, so seat 1 keeps its stone and the table stays empty.
    result = _result(
        _blocked(reveal=BLOCKED_REVEAL, pips={"4": 29}),
        {"moves": _moves(PLAIN_WALK, leader=1)},
        rules={"starting_stones": 5, "cucuq_stones": 0},
    )
    second = result["rounds"][1]

    assert second["after"]["table"] == 0
    assert second["after"]["stones"][1] == 1
    assert second["camat_elected"] is None
    assert second["after"]["camat"] is None


def test_a_blocked_round_never_elects_even_with_an_empty_table_R24():
    # Four stones, closing pass off: passes empty the table and the MANGUNO holds none.
    rnd = _first(
        _blocked(reveal=BLOCKED_REVEAL, pips={"4": 29}),
        rules={"starting_stones": 4, "closing_pass_counts": False},
    )

    assert rnd["winner"] == 1
    assert rnd["after"]["table"] == 0
    assert rnd["after"]["stones"][1] == 0
    assert rnd["camat_elected"] is None
    assert rnd["after"]["camat"] is None


def test_the_camat_may_be_elected_again_R26():
    # Three stones. Round 1: CEKI, seat 0 elected. Round 2 (led by the CAMAT): blocked, won by
    # seat 1, table emptied by the passes. Round 3: seat 0's CEKI again, holding none.
    result = _result(
        {"moves": _moves(CEKI_WALK)},
        _blocked(reveal=BLOCKED_REVEAL, pips={"4": 29}),
        {"moves": _moves(CEKI_WALK)},
        rules={"starting_stones": 3},
    )
    first, second, third = result["rounds"]

    assert first["camat_elected"] == 0
    assert second["winner"] == 1
    assert second["camat_elected"] is None
    assert second["after"]["camat"] == 0
    assert third["leader"] == 0
    assert third["camat_elected"] == 0
    assert third["after"] == {"table": 3, "stones": [0, 0, 0, 0, 0], "camat": 0, "next_leader": 0}


def test_a_new_camat_replaces_the_old_one_and_leads_from_then_on_R26():
    # Three stones, CUCUQ number 2. Round 1: CEKI, seat 0 elected. Round 2, led by the
    # CAMAT: seat 0 passes once (1 stone), so seat 1 plays its fifth tile first; the CUCUQ's
    # 2 stones empty the table while seat 1 holds none: seat 1 replaces seat 0 as CAMAT.
    result = _result(
        {"moves": _moves(CEKI_WALK)},
        {"moves": CAMAT_PASSES_MOVES},
        {"moves": [{"seat": 1, "tile": "0-0"}]},
        rules={"starting_stones": 3, "cucuq_stones": 2},
    )
    first, second, third = result["rounds"]

    assert first["camat_elected"] == 0
    assert second["leader"] == 0
    assert (second["first_cappu"], second["finish"]) == (1, "plain")
    assert second["camat_elected"] == 1
    assert second["after"] == {"table": 3, "stones": [0, 0, 0, 0, 0], "camat": 1, "next_leader": 1}
    assert third["leader"] == 1


def test_a_refused_lead_leaves_the_game_as_it_was_R6():
    game = Game()
    for move in _moves(CEKI_WALK):
        game.push(move)

    with pytest.raises(RefereeError) as caught:
        game.push({"seat": 2, "tile": "1-1"})

    assert caught.value.code == "wrong_leader"
    assert len(game.rounds) == 1
    assert game.expected_leader() == 0
