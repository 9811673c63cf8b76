"""Seat lines from the rules core alone (no database): named outcomes, passes, stones."""

from __future__ import annotations

import random

import pytest

from referee.engine.records import Record, replay, replay_record
from referee.engine.simulation import random_record
from scoring.lines import game_lines, round_lines
from tests.scoring.conftest import expected_lines


def _lines(record):
    return [line.to_dict() for line in game_lines(replay(Record.parse(record)))]


def test_passebunge_is_a_pass_before_the_seats_first_tile_and_the_others_are_plain_passes(
    load_scenario,
):
    record = load_scenario("14_camat_election_reset_25")["record"]

    first_round = [line for line in _lines(record) if line["round_number"] == 1]

    # R10: seats 2 and 3 pass three times before playing; seats 0, 1, 4 pass once after.
    assert [line["passebunge"] for line in first_round] == [0, 0, 3, 3, 0]
    assert [line["passes"] for line in first_round] == [1, 1, 0, 0, 1]


def test_the_stones_held_at_an_election_are_those_before_the_reset_R24_R25(load_scenario):
    record = load_scenario("14_camat_election_reset_25")["record"]

    third = [line for line in _lines(record) if line["round_number"] == 3]

    # [3,2,7,7,3] before; POLLO: seat 0 gets 3 from the table and 2 from seat 1 (R23b).
    assert [line["stones_held"] for line in third] == [8, 0, 7, 7, 3]
    assert [line["camat_elected"] for line in third] == [False, True, False, False, False]
    assert all(line["cycle_ended"] for line in third)
    assert third[1]["pollo"]
    assert third[1]["first_cappu"]
    assert third[1]["won"]
    assert third[0]["cucuq"]
    assert third[0]["stones_received"] == 5
    assert third[1]["stones_given"] == 2


@pytest.mark.parametrize(
    "name", ["14_camat_election_reset_25", "g101_generated_40_rounds", "g102_generated_40_rounds"]
)
def test_every_line_agrees_with_the_recorded_result(load_scenario, name):
    record = load_scenario(name)["record"]
    result = replay_record(record)
    keys = ("rounds_won", "first_cappu", "ceki", "pollo", "manguno", "mattikkeng", "cucuq")

    lines = _lines(record)

    expected = expected_lines(record, result)
    assert len(lines) == len(expected)
    for line, want in zip(lines, expected, strict=True):
        assert (line["round_number"], line["seat"]) == (want["round"], want["seat"])
        assert {key: int(line["won" if key == "rounds_won" else key]) for key in keys} == {
            key: want[key] for key in keys
        }
        for key in ("passes", "passebunge", "stones_received", "stones_given"):
            assert line[key] == want[key], (name, want["round"], want["seat"], key)
        assert line["camat_elected"] == bool(want["camat_elected"])


@pytest.mark.parametrize("seed", range(6))
def test_the_stones_held_and_on_the_table_always_make_the_total_R23(seed):
    game = replay(Record.parse(random_record(random.Random(seed), rounds=15)))
    lines = list(game_lines(game))

    for game_round in game.rounds:
        held = sum(
            line.stones_held for line in lines if line.round_number == game_round.round.number
        )
        after = game_round.after
        if game_round.camat_elected is None:
            assert held + after.table == game.rules.starting_stones
        else:  # R24: an election empties the table, so the seats held every stone
            assert held == game.rules.starting_stones


def test_a_round_waiting_for_its_reveals_has_no_lines_R18(load_scenario):
    record = load_scenario("05_blocked_no_mattikkeng")["record"]
    blocked = {**record, "rounds": [{**record["rounds"][0], "reveal": {}, "pips": {}}]}
    game = replay(Record.parse(blocked))

    assert list(game_lines(game)) == []
    with pytest.raises(ValueError, match="not settled"):
        round_lines(game.rounds[0], [0] * 5)
