"""Blocked rounds: the MANGUNO, remaining pips, MATTIKKENG and the reveal checks (R17–R21, R33)."""

from __future__ import annotations

import pytest

from referee.engine.errors import RefereeError
from referee.engine.game import Game
from referee.engine.records import replay_record
from tests.referee.engine.walks import BLOCKED_REVEAL, BLOCKED_WALK, CEKI_WALK, PLAYERS
from tests.referee.engine.walks import moves as _moves
from tests.referee.engine.walks import passes as _passes

# Seats 0 and 1 played 2 tiles, seats 2-4 one; every seat passed on (6, 6); MANGUNO seat 1.


def _blocked(leader: int = 0, **counted: dict) -> dict:
    """The blocked walk led by ``leader`` (MANGUNO ``leader + 1``) with its reveal/pips."""
    return {"moves": _moves(BLOCKED_WALK, leader) + _passes(leader + 2), **counted}


def _by_seat(pips: list[int]) -> dict[str, int]:
    return {str(seat): p for seat, p in enumerate(pips)}


def _record(*rounds: dict, rules: dict | None = None) -> dict:
    return {"format": "domeng-record/1", "players": PLAYERS, "rules": rules, "rounds": list(rounds)}


def _result(*rounds: dict, rules: dict | None = None) -> dict:
    return replay_record(_record(*rounds, rules=rules))


def _error_of(*rounds: dict) -> RefereeError:
    with pytest.raises(RefereeError) as caught:
        replay_record(_record(*rounds))
    return caught.value


# -- MANGUNO and remaining pips (R17, R18) --


def test_a_blocked_round_names_the_last_seat_to_play_as_manguno_R17():
    rnd = _result(_blocked(reveal=BLOCKED_REVEAL, pips={"4": 29}))["rounds"][0]

    assert rnd["ending"] == "blocked"
    assert rnd["finish"] is None
    assert rnd["first_cappu"] is None
    assert rnd["manguno"] == 1


def test_remaining_pips_come_from_revealed_tiles_and_from_pip_sums_R18():
    rnd = _result(_blocked(reveal=BLOCKED_REVEAL, pips={"4": 29}))["rounds"][0]

    assert rnd["remaining_pips"] == [12, 3, 14, 23, 29]


def test_remaining_pips_may_all_be_given_as_sums_R18():
    rnd = _result(_blocked(pips=_by_seat([12, 3, 14, 23, 29])))["rounds"][0]

    assert rnd["remaining_pips"] == [12, 3, 14, 23, 29]
    assert rnd["winner"] == 1


def test_a_blocked_last_round_without_reveals_waits_for_them_R18():
    rnd = _result(_blocked())["rounds"][0]

    assert rnd["ending"] == "blocked"
    assert rnd["manguno"] == 1
    assert rnd["remaining_pips"] is None
    assert rnd["mattikkeng"] == []
    assert rnd["cucuq"] is None
    assert rnd["winner"] is None
    assert [t["reason"] for t in rnd["transfers"]] == ["pass"] * 5
    assert rnd["after"]["next_leader"] is None


def test_a_blocked_last_round_with_some_reveals_still_waits_R18():
    rnd = _result(_blocked(reveal=BLOCKED_REVEAL))["rounds"][0]

    assert rnd["winner"] is None
    assert rnd["remaining_pips"] is None


def test_a_blocked_round_followed_by_another_without_its_reveals_is_reveal_missing_R18():
    error = _error_of(_blocked(), {"moves": [{"seat": 1, "tile": "6-6"}]})

    assert (error.code, error.round, error.move) == ("reveal_missing", 1, None)


def test_a_blocked_round_with_only_some_reveals_followed_by_another_is_reveal_missing_R18():
    error = _error_of(_blocked(reveal=BLOCKED_REVEAL), {"moves": []})

    assert error.code == "reveal_missing"


def test_a_game_refuses_the_next_lead_while_a_blocked_round_waits_for_reveals_R18():
    """As a replay of a record with a round after the unrevealed blocked one says."""
    game = Game()
    for move in _moves(BLOCKED_WALK) + _passes(2):
        game.push(move)

    with pytest.raises(RefereeError) as caught:
        game.push({"seat": 1, "tile": "0-0"})

    error = caught.value
    assert (error.code, error.rule, error.round, error.move) == ("reveal_missing", "R18", 1, None)
    assert len(game.rounds) == 1


@pytest.mark.parametrize("seat", [7, -1, "2", None])
def test_the_blocked_rounds_reveals_come_before_the_next_leads_seat_R34(seat):
    """R34 orders a round's reveals after its moves and before the next round: a lead or a
    hand for the next round with a seat that is not 0–4, while a blocked round waits for its
    reveals, is the blocked round's ``reveal_missing`` — as the replay of a record holding
    that lead says (the live table and the record judge alike); nothing changes."""
    game = Game()
    for move in _moves(BLOCKED_WALK) + _passes(2):
        game.push(move)

    with pytest.raises(RefereeError) as lead:
        game.push({"seat": seat, "tile": "0-0"})
    with pytest.raises(RefereeError) as hand:
        game.declare(seat, ["0-0", "1-1", "2-2", "3-3", "4-4"])  # type: ignore[arg-type]
    replayed = _error_of(
        {"moves": _moves(BLOCKED_WALK) + _passes(2)}, {"moves": [{"seat": seat, "tile": "0-0"}]}
    )

    for error in (lead.value, hand.value, replayed):
        assert (error.code, error.rule, error.round, error.move) == (
            "reveal_missing",
            "R18",
            1,
            None,
        )
    assert len(game.rounds) == 1


def test_a_game_refuses_a_hand_for_the_next_round_while_a_blocked_round_waits_R18():
    game = Game()
    for move in _moves(BLOCKED_WALK) + _passes(2):
        game.push(move)

    with pytest.raises(RefereeError) as caught:
        game.declare(1, ["0-0", "1-1", "2-2", "3-3", "4-4"])

    error = caught.value
    assert (error.code, error.rule, error.round, error.move) == ("reveal_missing", "R18", 1, None)
    assert game.rounds[-1].round.hands == {}


def test_a_move_within_a_blocked_round_after_its_end_is_round_over_R30():
    game = Game()
    for move in _moves(BLOCKED_WALK) + _passes(2):
        game.push(move)

    with pytest.raises(RefereeError) as caught:
        game.push({"seat": 1, "tile": "0-0"}, within=game.rounds[-1])

    assert caught.value.code == "round_over"


def test_a_game_settles_a_blocked_round_once_the_last_seat_is_counted_R18():
    game = Game()
    for move in _moves(BLOCKED_WALK) + _passes(2):
        game.push(move)
    for seat, tiles in BLOCKED_REVEAL.items():
        assert game.reveal(int(seat), tiles=tiles) == ()

    transfers = game.reveal(4, pips=29)

    assert [t.to_dict() for t in transfers] == [
        {"move": None, "from": "table", "to": 0, "stones": 1, "reason": "manguno"}
    ]
    assert game.standing().next_leader == 1


# -- MATTIKKENG and the winner (R19, R20, R21) --


def test_without_mattikkeng_the_manguno_wins_and_the_seat_before_it_is_cucuq_R19_R20_R21():
    rnd = _result(_blocked(reveal=BLOCKED_REVEAL, pips={"4": 29}))["rounds"][0]

    assert rnd["mattikkeng"] == []
    assert rnd["winner"] == 1
    assert rnd["cucuq"] == 0
    assert rnd["after"]["next_leader"] == 1


def test_a_seat_with_fewer_pips_than_the_manguno_is_mattikkeng_and_wins_R19_R20():
    rnd = _result(_blocked(pips=_by_seat([20, 10, 20, 5, 20])))["rounds"][0]

    assert rnd["mattikkeng"] == [3]
    assert rnd["winner"] == 3
    assert rnd["after"]["next_leader"] == 3


def test_a_seat_with_exactly_the_manguno_pips_is_mattikkeng_R19():
    rnd = _result(_blocked(pips=_by_seat([20, 10, 20, 20, 10])))["rounds"][0]

    assert rnd["mattikkeng"] == [4]
    assert rnd["winner"] == 4


def test_with_mattikkeng_there_is_no_cucuq_R21():
    rnd = _result(_blocked(pips=_by_seat([20, 10, 20, 5, 20])))["rounds"][0]

    assert rnd["cucuq"] is None


def test_the_lowest_mattikkeng_wins_even_when_another_comes_first_clockwise_R20():
    rnd = _result(_blocked(pips=_by_seat([20, 10, 20, 8, 5])))["rounds"][0]

    assert rnd["mattikkeng"] == [3, 4]
    assert rnd["winner"] == 4


def test_mattikkeng_are_listed_ascending_and_the_lowest_wins_R19_R20():
    rnd = _result(_blocked(pips=_by_seat([9, 10, 20, 5, 8])))["rounds"][0]

    assert rnd["mattikkeng"] == [0, 3, 4]
    assert rnd["winner"] == 3


@pytest.mark.parametrize(
    ("pips", "winner"),
    [
        pytest.param([5, 10, 20, 20, 5], 4, id="seats 4 and 0 tie: 4 comes first after 1"),
        pytest.param([5, 10, 5, 20, 20], 2, id="seats 2 and 0 tie: 2 comes first after 1"),
        pytest.param([10, 10, 20, 10, 20], 3, id="all equal to the manguno: 3 before 0"),
    ],
)
def test_a_tie_goes_to_the_first_mattikkeng_clockwise_after_the_manguno_R20(pips, winner):
    rnd = _result(_blocked(pips=_by_seat(pips)))["rounds"][0]

    assert rnd["winner"] == winner


def test_a_tie_is_counted_from_the_seat_after_the_manguno_wherever_it_sits_R20():
    # Led by seat 3: MANGUNO seat 4; seats 3 and 0 tie, and 0 is the seat after 4.
    pips = {"3": 5, "4": 10, "0": 5, "1": 20, "2": 20}

    rnd = _result(_blocked(leader=3, pips=pips))["rounds"][0]

    assert rnd["manguno"] == 4
    assert rnd["mattikkeng"] == [0, 3]
    assert rnd["winner"] == 0
    assert rnd["cucuq"] is None


# -- R33: the reveal check --


@pytest.mark.parametrize(
    "seat_0",
    [
        pytest.param(["0-3", "0-4"], id="too few"),
        pytest.param(["0-3", "0-4", "0-5", "3-3"], id="too many"),
        pytest.param(["0-3", "0-3", "0-4"], id="a tile twice"),
        pytest.param(["0-3", "3|0", "0-4"], id="a tile twice, spelt two ways"),
        pytest.param(["2-3", "0-4", "0-5"], id="a played tile"),
        pytest.param(["0-6", "0-4", "0-5"], id="a tile carrying the final end"),
    ],
)
def test_a_reveal_that_cannot_be_right_is_reveal_invalid_R33(seat_0):
    reveal = dict(BLOCKED_REVEAL, **{"0": seat_0})

    error = _error_of(_blocked(reveal=reveal, pips={"4": 29}))

    assert (error.code, error.rule, error.round, error.move) == ("reveal_invalid", "R33", 1, None)


def test_a_tile_revealed_by_two_seats_is_reveal_invalid_R33():
    reveal = dict(BLOCKED_REVEAL, **{"1": ["0-0", "0-1", "0-3"]})

    error = _error_of(_blocked(reveal=reveal, pips={"4": 29}))

    assert error.code == "reveal_invalid"


def test_a_pip_sum_no_tiles_left_can_make_is_reveal_invalid_R33():
    # Seat 4 holds 4 of 3-3, 3-4, 3-5, 4-4, 5-5: 29, 31, 32 or 33 pips, never 30.
    error = _error_of(_blocked(reveal=BLOCKED_REVEAL, pips={"4": 30}))

    assert (error.code, error.rule, error.round, error.move) == ("reveal_invalid", "R33", 1, None)


@pytest.mark.parametrize("pips", [0, 2, 27, 100])
def test_a_pip_sum_out_of_reach_for_the_seat_alone_is_reveal_invalid_R33(pips):
    # Seat 1 holds 3 tiles without a 6: at least 0-0, 0-1, 0-2 = 3, at most 5-5, 4-4, 3-5 = 26.
    error = _error_of(_blocked(pips={"1": pips}))

    assert error.code == "reveal_invalid"


def test_a_pip_sum_must_avoid_values_the_seat_passed_on_R33():
    # Scenario 14's first round: seat 2 passed on 3, 4 and 6, so its five tiles come
    # from 0-0 0-1 0-2 0-5 1-1 1-2 1-5 2-2 2-5 5-5: at most 32 pips.
    moves = [
        {"seat": 0, "tile": "6-6"},
        {"seat": 1, "tile": "3-6"},
        {"seat": 2, "pass": True},
        {"seat": 3, "pass": True},
        {"seat": 4, "tile": "2-3", "on": 3},
        {"seat": 0, "tile": "2-6", "on": 2},
        {"seat": 1, "tile": "4-6"},
        {"seat": 2, "pass": True},
        {"seat": 3, "pass": True},
        {"seat": 4, "tile": "4-5", "on": 4},
        {"seat": 0, "tile": "5-6", "on": 5},
    ] + _passes(1)
    reveal = {"0": ["0-3", "0-4"], "1": ["1-3", "1-4", "2-4"]}

    error = _error_of({"moves": moves, "reveal": reveal, "pips": {"2": 33}})
    accepted = _result({"moves": moves, "reveal": reveal, "pips": {"2": 15}})

    assert error.code == "reveal_invalid"
    assert accepted["rounds"][0]["winner"] is None  # seats 3 and 4 still to count


def test_a_pip_sum_is_checked_again_against_tiles_revealed_after_it_R33():
    # Seat 0 says 3 pips (0-0, 0-1, 0-2), but seat 1 then reveals exactly those tiles.
    pips = {"0": 3, "4": 29}
    reveal = {k: v for k, v in BLOCKED_REVEAL.items() if k != "0"}

    error = _error_of(_blocked(reveal=reveal, pips=pips))

    assert error.code == "reveal_invalid"


def test_a_seat_giving_both_tiles_and_a_pip_sum_is_reveal_invalid_R33():
    error = _error_of(_blocked(reveal=BLOCKED_REVEAL, pips={"0": 12, "4": 29}))

    assert error.code == "reveal_invalid"


def test_a_reveal_on_a_round_won_by_a_first_cappu_is_reveal_invalid_R33():
    error = _error_of({"moves": _moves(CEKI_WALK), "reveal": {"1": ["2-5"]}})

    assert (error.code, error.round) == ("reveal_invalid", 1)


def test_a_pip_sum_on_a_round_still_in_play_is_reveal_invalid_R33():
    error = _error_of({"moves": _moves(["6-6", "5-6"]), "pips": {"0": 12}})

    assert (error.code, error.round) == ("reveal_invalid", 1)


def test_an_empty_reveal_on_a_round_that_was_not_blocked_is_allowed_R33():
    result = _result({"moves": _moves(CEKI_WALK), "reveal": {}, "pips": {}})

    assert result["rounds"][0]["finish"] == "ceki"


def test_a_reveal_naming_a_seat_outside_0_to_4_is_record_invalid_R33():
    error = _error_of(_blocked(reveal=dict(BLOCKED_REVEAL, **{"5": ["3-3"]}), pips={"4": 29}))

    assert error.code == "record_invalid"


def test_a_game_refuses_a_reveal_when_no_round_is_blocked_R33():
    game = Game()
    for move in _moves(CEKI_WALK):
        game.push(move)

    with pytest.raises(RefereeError) as caught:
        game.reveal(1, tiles=["2-5"])

    assert caught.value.code == "reveal_invalid"


# -- the record's round structure --


def test_an_unfinished_round_followed_by_another_is_record_invalid_R30():
    error = _error_of({"moves": _moves(["6-6", "5-6"])}, {"moves": []})

    assert error.code == "record_invalid"


def test_a_reveal_counts_five_minus_the_tiles_played_R4_R33():
    # Seat 0 played two tiles: three to reveal, and the count is checked per seat.
    rnd = _result(_blocked(reveal=BLOCKED_REVEAL, pips={"4": 29}))["rounds"][0]

    assert rnd["remaining_pips"][0] == 0 + 3 + 0 + 4 + 0 + 5


def test_revealing_a_tile_another_seat_declared_is_reveal_invalid_R33_R31():
    hands = {"4": ["4-6", "3-3", "3-4", "3-5", "4-4"]}
    reveal = dict(BLOCKED_REVEAL, **{"0": ["0-3", "0-4", "3-3"]})

    error = _error_of(_blocked(hands=hands, reveal=reveal))

    assert (error.code, error.round, error.move) == ("reveal_invalid", 1, None)


def test_a_pip_sum_reachable_only_with_a_sleeping_tile_is_reveal_invalid_R33_R5():
    # 5-5 led (6-6 sleeps), then five passes on (5, 5). Seat 1's five tiles carry no 5:
    # without 6-6 they make at most 4-6 3-6 4-4 2-6 3-4 = 42 pips; with it, up to 47.
    moves = [{"seat": 0, "tile": "5-5"}] + _passes(1)

    error = _error_of({"moves": moves, "pips": {"1": 45}})
    accepted = _result({"moves": moves, "pips": {"1": 42}})

    assert error.code == "reveal_invalid"
    assert accepted["rounds"][0]["manguno"] == 0
