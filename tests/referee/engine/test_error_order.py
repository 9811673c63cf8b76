"""What the referee rejects without hands (R30) and which error comes first (R34)."""

from __future__ import annotations

import pytest

from referee.engine.errors import RefereeError
from referee.engine.records import replay_record
from referee.engine.round import Round
from referee.engine.rules import DEFAULT_RULES
from tests.referee.engine.walks import BLOCKED_WALK, CEKI_WALK, PLAYERS
from tests.referee.engine.walks import moves as _moves
from tests.referee.engine.walks import passes as _passes


def _round(
    moves: list[dict], hands: dict[int, list[str]] | None = None, expected_leader: int | None = None
) -> Round:
    rnd = Round(number=1, rules=DEFAULT_RULES, expected_leader=expected_leader)
    for seat, tiles in (hands or {}).items():
        rnd.declare(seat, tiles)
    for move in moves:
        rnd.push(move)
    return rnd


def _error(rnd: Round, move: object) -> RefereeError:
    with pytest.raises(RefereeError) as caught:
        rnd.push(move)
    return caught.value


def _record_error(*rounds: dict) -> RefereeError:
    record = {"format": "domeng-record/1", "players": PLAYERS, "rounds": list(rounds)}
    with pytest.raises(RefereeError) as caught:
        replay_record(record)
    return caught.value


# -- R30: each rejection of hidden-hand mode --


@pytest.mark.parametrize(
    ("moves", "code", "rule"),
    [
        pytest.param(
            _moves(["6-6"]) + [{"seat": 2, "tile": "5-6"}], "not_your_turn", "R8", id="wrong seat"
        ),
        pytest.param(
            _moves(["6-6"]) + [{"seat": 1, "tile": "6-7"}], "tile_invalid", "R1", id="malformed"
        ),
        pytest.param(_moves(["6-6", "5-6", "5-6"]), "tile_already_played", None, id="played twice"),
        pytest.param(_moves(["6-6", "5-6", "2-3"]), "tile_does_not_match", "R7", id="no end"),
        pytest.param(
            _moves(["6-6", "5-6"]) + [{"seat": 2, "tile": "1-5", "on": 6}],
            "end_mismatch",
            "R11",
            id="not the named end",
        ),
        pytest.param(_moves(["6-6", "5-6", "4-5", "4-6"]), "end_required", "R11", id="on missing"),
        pytest.param([{"seat": 0, "tile": "2-2"}], "opening_tile_invalid", "R5", id="first lead"),
        pytest.param([{"seat": 0, "pass": True}], "opening_tile_invalid", None, id="pass as lead"),
        pytest.param(
            _moves(CEKI_WALK) + [{"seat": 1, "pass": True}], "round_over", "R30", id="after end"
        ),
    ],
)
def test_hidden_hand_mode_rejects_exactly_the_listed_events_R30(moves, code, rule):
    error = _record_error({"moves": moves})

    assert error.code == code
    if rule is not None:
        assert error.rule == rule
    assert (error.round, error.move) == (1, len(moves) - 1)


def test_a_later_lead_by_the_wrong_seat_is_rejected_R30_R6():
    error = _record_error({"moves": _moves(CEKI_WALK)}, {"moves": [{"seat": 3, "tile": "0-3"}]})

    assert (error.code, error.round, error.move) == ("wrong_leader", 2, 0)


def test_hidden_hand_mode_does_not_search_for_global_impossibilities_R30():
    # Seats 1-4 pass on 6, then on 6/0, then on 0/1: eleven tiles carrying 0, 1 or 6
    # would have to be among seat 0's last tiles or the 3 sleeping ones. No single
    # event breaks a listed rule, so the referee accepts every one of them.
    moves = [{"seat": 0, "tile": "6-6"}] + _passes(1, 4)
    moves += [{"seat": 0, "tile": "0-6"}] + _passes(1, 4)
    moves += [{"seat": 0, "tile": "1-6", "on": 6}] + _passes(1, 4)

    result = replay_record(
        {"format": "domeng-record/1", "players": PLAYERS, "rounds": [{"moves": moves}]}
    )

    assert result["rounds"][0]["ending"] is None
    assert result["rounds"][0]["after"]["next_leader"] == 0


def test_a_pass_as_a_later_rounds_lead_is_opening_tile_invalid_R30():
    error = _record_error({"moves": _moves(CEKI_WALK)}, {"moves": [{"seat": 0, "pass": True}]})

    assert (error.code, error.round, error.move) == ("opening_tile_invalid", 2, 0)


def test_more_moves_after_a_cappu_in_the_same_round_are_round_over_R30():
    error = _record_error({"moves": _moves(CEKI_WALK) + [{"seat": 0, "tile": "0-3"}]})

    assert (error.code, error.rule, error.round, error.move) == ("round_over", "R30", 1, 21)


def test_more_moves_after_a_block_in_the_same_round_are_round_over_R30():
    moves = _moves(BLOCKED_WALK) + _passes(2) + [{"seat": 2, "pass": True}]

    error = _record_error({"moves": moves})

    assert (error.code, error.round, error.move) == ("round_over", 1, 12)


# -- R34: the first error in order --


@pytest.mark.parametrize("seat", [7, -1, 5, "1", None, True, 1.0])
def test_a_seat_that_is_not_0_to_4_is_record_invalid_before_anything_else_R34(seat):
    rnd = _round(_moves(["6-6"]))

    error = _error(rnd, {"seat": seat, "tile": "9-9"})

    assert (error.code, error.round, error.move) == ("record_invalid", 1, 1)


def test_seat_seven_after_the_round_is_over_is_record_invalid_not_round_over_R34():
    error = _record_error({"moves": _moves(CEKI_WALK) + [{"seat": 7, "tile": "0-3"}]})

    assert (error.code, error.round, error.move) == ("record_invalid", 1, 21)


def test_a_malformed_move_after_the_round_is_over_is_round_over_R34():
    rnd = _round(_moves(CEKI_WALK))

    error = _error(rnd, {"seat": 3, "pass": False, "tile": "7-7"})

    assert error.code == "round_over"


def test_a_play_by_the_wrong_seat_after_the_round_is_over_is_round_over_R34():
    rnd = _round(_moves(CEKI_WALK))

    error = _error(rnd, {"seat": 3, "tile": "0-3"})

    assert error.code == "round_over"


@pytest.mark.parametrize(
    "move",
    [
        {"seat": 3},
        {"seat": 3, "pass": False},
        {"seat": 3, "pass": True, "tile": "5-6"},
        {"seat": 3, "tile": "5-6", "end": "left"},
    ],
)
def test_a_move_neither_play_nor_pass_is_record_invalid_before_the_turn_is_checked_R34(move):
    rnd = _round(_moves(["6-6"]))

    error = _error(rnd, move)

    assert (error.code, error.move) == ("record_invalid", 1)


def test_a_wrong_seat_with_a_malformed_tile_is_not_your_turn_R34():
    rnd = _round(_moves(["6-6"]))

    error = _error(rnd, {"seat": 3, "tile": "7-7"})

    assert error.code == "not_your_turn"


def test_a_wrong_seat_with_a_tile_already_played_is_not_your_turn_R34():
    rnd = _round(_moves(["6-6", "5-6"]))

    error = _error(rnd, {"seat": 4, "tile": "5-6"})

    assert error.code == "not_your_turn"


def test_a_later_lead_by_the_wrong_seat_with_a_pass_is_wrong_leader_R34():
    rnd = _round([], expected_leader=2)

    error = _error(rnd, {"seat": 4, "pass": True})

    assert (error.code, error.rule) == ("wrong_leader", "R6")


def test_a_later_lead_by_the_wrong_seat_with_a_malformed_tile_is_wrong_leader_R34():
    rnd = _round([], expected_leader=2)

    error = _error(rnd, {"seat": 4, "tile": "66"})

    assert error.code == "wrong_leader"


def test_a_pass_as_the_first_lead_is_opening_tile_invalid_R34():
    rnd = _round([])

    error = _error(rnd, {"seat": 0, "pass": True})

    assert (error.code, error.round, error.move) == ("opening_tile_invalid", 1, 0)


def test_a_malformed_tile_comes_before_the_rest_of_a_plays_checks_R34():
    rnd = _round(_moves(["6-6"]))

    error = _error(rnd, {"seat": 1, "tile": "6|7", "on": 3})

    assert error.code == "tile_invalid"


def test_a_tile_already_played_that_also_matches_no_end_is_tile_already_played_R34():
    rnd = _round(_moves(["6-6", "5-6", "4-5", ("4-6", 6)]))
    assert rnd.ends == (4, 4)

    error = _error(rnd, {"seat": 4, "tile": "5-6"})

    assert (error.code, error.move) == ("tile_already_played", 4)


def test_a_tile_matching_no_end_with_a_bad_on_is_tile_does_not_match_R34():
    rnd = _round(_moves(["6-6", "5-6"]))

    error = _error(rnd, {"seat": 2, "tile": "1-2", "on": 1})

    assert error.code == "tile_does_not_match"


def test_a_bad_on_for_a_tile_fitting_both_ends_is_end_mismatch_and_a_missing_one_end_required_R34():
    rnd = _round(_moves(["6-6", "5-6", "4-5"]))
    mismatch = _error(rnd, {"seat": 3, "tile": "4-6", "on": 5})
    required = _error(rnd, {"seat": 3, "tile": "4-6"})

    assert mismatch.code == "end_mismatch"
    assert required.code == "end_required"


def test_end_mismatch_comes_before_tile_not_in_hand_R34():
    rnd = _round(_moves(["6-6", "5-6"]), hands={2: ["0-0", "0-1", "0-2", "0-3", "0-4"]})

    error = _error(rnd, {"seat": 2, "tile": "1-5", "on": 6})

    assert error.code == "end_mismatch"


def test_end_required_comes_before_tile_not_in_hand_R34():
    rnd = _round(_moves(["6-6", "5-6", "4-5"]), hands={3: ["0-0", "0-1", "0-2", "0-3", "0-4"]})

    error = _error(rnd, {"seat": 3, "tile": "4-6"})

    assert error.code == "end_required"


def test_tile_already_played_comes_before_tile_not_in_hand_R34():
    rnd = _round(_moves(["6-6", "5-6"]), hands={2: ["0-0", "0-1", "0-2", "0-3", "0-4"]})

    error = _error(rnd, {"seat": 2, "tile": "5-6"})

    assert error.code == "tile_already_played"


# A 5-5 lead asserts 6-6 sleeps; seat 2 passes on (5, 6) at move 2 and later
# wants to play 6-6 on the 6: sleeping, contradicting its pass and (with a hand) not in it.
_SLEEPING_AND_PASSED = [
    {"seat": 0, "tile": "5-5"},
    {"seat": 1, "tile": "5-6"},
    {"seat": 2, "pass": True},
    {"seat": 3, "tile": "4-5", "on": 5},
    {"seat": 4, "tile": "4-4"},
    {"seat": 0, "pass": True},
    {"seat": 1, "pass": True},
]


def test_tile_not_in_hand_comes_before_sleeping_tile_played_and_contradicts_pass_R34():
    rnd = _round(_SLEEPING_AND_PASSED, hands={2: ["0-0", "0-1", "0-2", "0-3", "1-1"]})

    error = _error(rnd, {"seat": 2, "tile": "6-6", "on": 6})

    assert (error.code, error.rule, error.move) == ("tile_not_in_hand", "R31", 7)


def test_sleeping_tile_played_comes_before_contradicts_pass_R34():
    rnd = _round(_SLEEPING_AND_PASSED)

    error = _error(rnd, {"seat": 2, "tile": "6-6", "on": 6})

    assert (error.code, error.move) == ("sleeping_tile_played", 7)
    assert error.contradicts == {"round": 1, "move": 0}


def test_contradicts_pass_is_the_last_check_of_a_play_R34():
    rnd = _round(_SLEEPING_AND_PASSED)

    error = _error(rnd, {"seat": 2, "tile": "4-6", "on": 6})

    assert (error.code, error.rule, error.move) == ("contradicts_pass", "R32", 7)
    assert error.contradicts == {"round": 1, "move": 2}


def test_a_lead_with_a_malformed_tile_is_tile_invalid_R34():
    rnd = _round([], hands={0: ["6-6", "0-1", "0-2", "0-3", "0-4"]})

    error = _error(rnd, {"seat": 0, "tile": "[6-6]"})

    assert error.code == "tile_invalid"


def test_a_forbidden_first_lead_not_in_the_hand_is_opening_tile_invalid_R34():
    rnd = _round([], hands={0: ["6-6", "0-1", "0-2", "0-3", "0-4"]})

    error = _error(rnd, {"seat": 0, "tile": "2-2"})

    assert error.code == "opening_tile_invalid"


def test_a_lead_outside_the_hand_while_another_holds_a_higher_double_is_tile_not_in_hand_R34():
    rnd = _round(
        [],
        hands={
            0: ["4-4", "0-1", "0-2", "0-3", "0-4"],
            3: ["6-6", "1-2", "1-3", "1-4", "1-5"],
        },
    )

    error = _error(rnd, {"seat": 0, "tile": "5-5"})

    assert (error.code, error.rule) == ("tile_not_in_hand", "R31")


def test_a_pass_by_the_wrong_seat_holding_a_playable_tile_is_not_your_turn_R34():
    rnd = _round(_moves(["6-6"]), hands={2: ["5-6", "0-1", "0-2", "0-3", "0-4"]})

    error = _error(rnd, {"seat": 2, "pass": True})

    assert error.code == "not_your_turn"
