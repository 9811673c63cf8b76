"""Contradictions: hands only shrink, and the first lead says what sleeps (R32)."""

from __future__ import annotations

import pytest

from referee.engine.errors import RefereeError
from referee.engine.records import replay_record

PLAYERS = ["Andi", "Besse", "Cakra", "Daeng", "Evi"]

# Seat 2 passes on (6, 5) at move 2 and on (6, 4) at move 7.
TWO_PASSES = [
    {"seat": 0, "tile": "6-6"},
    {"seat": 1, "tile": "5-6"},
    {"seat": 2, "pass": True},
    {"seat": 3, "tile": "4-5", "on": 5},
    {"seat": 4, "tile": "4-4"},
    {"seat": 0, "pass": True},
    {"seat": 1, "pass": True},
    {"seat": 2, "pass": True},
    {"seat": 3, "tile": "3-4", "on": 4},
    {"seat": 4, "tile": "2-3"},
    {"seat": 0, "tile": "1-2", "on": 2},
    {"seat": 1, "pass": True},
]  # ends (6, 1); seat 2 to play at move 12

# Scenario 14's first round: seats 2 and 3 pass on (6, 3) at moves 2/3, on (6, 4) at
# moves 7/8 and on (6, 6) at moves 12/13; seat 0 is the MANGUNO.
S14_MOVES = [
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
    {"seat": 1, "pass": True},
    {"seat": 2, "pass": True},
    {"seat": 3, "pass": True},
    {"seat": 4, "pass": True},
    {"seat": 0, "pass": True},
]
S14_REVEAL = {
    "0": ["0-3", "0-4"],
    "1": ["1-3", "1-4", "2-4"],
    "2": ["0-0", "0-1", "0-2", "1-1", "5-5"],
    "3": ["0-5", "1-2", "1-5", "2-2", "2-5"],
    "4": ["3-3", "3-4", "4-4"],
}


def _record(*rounds: dict) -> dict:
    return {"format": "domeng-record/1", "players": PLAYERS, "rounds": list(rounds)}


def _error_of(*rounds: dict) -> RefereeError:
    with pytest.raises(RefereeError) as caught:
        replay_record(_record(*rounds))
    return caught.value


def test_a_play_carrying_a_value_the_seat_passed_on_is_contradicts_pass_R32():
    error = _error_of({"moves": TWO_PASSES + [{"seat": 2, "tile": "0-6"}]})

    assert (error.code, error.rule, error.round, error.move) == ("contradicts_pass", "R32", 1, 12)
    assert error.to_dict()["contradicts"] == {"round": 1, "move": 2}


def test_the_contradiction_names_the_pass_that_rules_the_value_out_R32():
    # 4 was an open end only at seat 2's second pass (move 7), so that is the earlier event.
    error = _error_of({"moves": TWO_PASSES + [{"seat": 2, "tile": "1-4", "on": 1}]})

    assert error.code == "contradicts_pass"
    assert error.contradicts == {"round": 1, "move": 7}


def test_a_seat_may_play_values_it_never_passed_on_R32():
    result = replay_record(_record({"moves": TWO_PASSES + [{"seat": 2, "tile": "0-1"}]}))

    assert result["rounds"][0]["after"]["next_leader"] == 3


def test_another_seats_pass_does_not_bind_the_seat_that_plays_R32():
    moves = TWO_PASSES[:3] + [{"seat": 3, "tile": "1-6", "on": 6}]

    result = replay_record(_record({"moves": moves}))

    assert result["rounds"][0]["after"]["next_leader"] == 4


def test_a_pass_binds_only_for_the_rest_of_its_round_R32():
    # Round 1: seats 1-3 passed on 6. Round 2 (led by seat 0, the winner): they play 6s.
    round_2 = {
        "moves": [
            {"seat": 0, "tile": "6-6"},
            {"seat": 1, "tile": "5-6"},
            {"seat": 2, "tile": "4-6", "on": 6},
            {"seat": 3, "tile": "3-4", "on": 4},
        ]
    }

    result = replay_record(_record({"moves": S14_MOVES, "reveal": S14_REVEAL}, round_2))

    assert result["rounds"][1]["after"]["next_leader"] == 4


def test_playing_a_tile_the_first_lead_asserted_sleeping_names_the_lead_R32_R5():
    moves = [
        {"seat": 0, "tile": "5-5"},
        {"seat": 1, "tile": "5-6"},
        {"seat": 2, "tile": "4-5", "on": 5},
        {"seat": 3, "tile": "6-6"},
    ]

    error = _error_of({"moves": moves})

    assert (error.code, error.rule) == ("sleeping_tile_played", "R32")
    assert (error.round, error.move) == (1, 3)
    assert error.contradicts == {"round": 1, "move": 0}


def test_revealing_a_tile_carrying_a_value_the_seat_passed_on_is_contradicts_pass_R32():
    reveal = dict(S14_REVEAL, **{"2": ["0-0", "0-1", "0-2", "3-5", "5-5"]})

    error = _error_of({"moves": S14_MOVES, "reveal": reveal})

    assert (error.code, error.rule, error.round, error.move) == ("contradicts_pass", "R32", 1, None)
    assert error.to_dict()["contradicts"] == {"round": 1, "move": 2}


def test_a_revealed_tile_names_the_first_pass_on_its_value_R32():
    reveal = dict(S14_REVEAL, **{"3": ["0-5", "1-2", "1-5", "2-2", "4-4"]})

    error = _error_of({"moves": S14_MOVES, "reveal": reveal})

    assert error.code == "contradicts_pass"
    assert error.contradicts == {"round": 1, "move": 8}


def test_the_scenario_reveal_is_consistent_with_every_pass_R32():
    result = replay_record(_record({"moves": S14_MOVES, "reveal": S14_REVEAL}))

    assert result["rounds"][0]["remaining_pips"] == [7, 15, 15, 25, 21]


def test_revealing_a_tile_the_first_lead_asserted_sleeping_is_sleeping_tile_played_R32():
    # 5-5 led, then five passes: seat 0 is the MANGUNO on ends (5, 5).
    moves = [{"seat": 0, "tile": "5-5"}] + [{"seat": s % 5, "pass": True} for s in range(1, 6)]
    reveal = {
        "0": ["0-0", "0-1", "0-2", "0-3"],
        "1": ["6-6", "0-4", "0-6", "1-1", "1-2"],
    }

    error = _error_of({"moves": moves, "reveal": reveal})

    assert (error.code, error.round, error.move) == ("sleeping_tile_played", 1, None)
    assert error.contradicts == {"round": 1, "move": 0}


def test_a_final_end_value_in_a_reveal_is_reveal_invalid_before_any_contradiction_R33_R34():
    # 3-5 contradicts seat 2's pass at move 2, but 0-6 carries the final 6 (R33 first).
    reveal = dict(S14_REVEAL, **{"2": ["3-5", "0-6", "0-0", "0-1", "0-2"]})

    error = _error_of({"moves": S14_MOVES, "reveal": reveal})

    assert (error.code, error.rule, error.round, error.move) == ("reveal_invalid", "R33", 1, None)


def test_reveals_are_checked_seat_0_to_4_R34():
    # Seat 3's reveal has the wrong count, seat 2's contradicts a pass: seat 2 comes first.
    reveal = {
        "3": ["0-5", "1-2", "1-5", "2-2"],
        "0": ["0-3", "0-4"],
        "1": ["1-3", "1-4", "2-4"],
        "2": ["0-0", "0-1", "0-2", "3-5", "5-5"],
        "4": ["3-3", "3-4", "4-4"],
    }

    error = _error_of({"moves": S14_MOVES, "reveal": reveal})

    assert error.code == "contradicts_pass"
    assert error.contradicts == {"round": 1, "move": 2}
