"""Records in, results out; a game carried across sittings (RECORD.md, R27)."""

from __future__ import annotations

import copy

import pytest

from referee.engine.errors import RefereeError
from referee.engine.game import Game
from referee.engine.records import (
    RESULT_FORMAT,
    Record,
    export_record,
    replay,
    replay_record,
    result_of,
)
from referee.engine.rules import RuleSet
from tests.referee.engine.walks import BLOCKED_REVEAL, BLOCKED_WALK, CEKI_WALK, PLAYERS
from tests.referee.engine.walks import moves as _moves
from tests.referee.engine.walks import passes as _passes


def _record(*rounds: dict, **header: object) -> dict:
    record = {"format": "domeng-record/1", "players": PLAYERS, "rounds": list(rounds)}
    record.update(header)
    return record


def _error_of(record: object) -> RefereeError:
    with pytest.raises(RefereeError) as caught:
        replay_record(record)
    return caught.value


def _three_round_game() -> list[dict]:
    """Blocked (seat 1 wins), then seat 1's CEKI, then a round in play led by seat 1."""
    return [
        {"moves": _moves(BLOCKED_WALK) + _passes(2), "reveal": BLOCKED_REVEAL, "pips": {"4": 29}},
        {"moves": _moves(CEKI_WALK, leader=1)},
        {"moves": _moves(["6-6", "5-6", "4-5"], leader=1) + [{"seat": 4, "pass": True}]},
    ]


# -- the header --


@pytest.mark.parametrize(
    "record",
    [
        pytest.param(_record(format="domeng-record/2"), id="unknown version"),
        pytest.param({k: v for k, v in _record().items() if k != "format"}, id="no format"),
        pytest.param(_record(players=PLAYERS[:4]), id="four players"),
        pytest.param(_record(players=PLAYERS + ["Fajar"]), id="six players"),
        pytest.param(_record(players=["Andi", "", "Cakra", "Daeng", "Evi"]), id="empty name"),
        pytest.param(_record(players=["Andi", 2, "Cakra", "Daeng", "Evi"]), id="not a name"),
        pytest.param(_record(table="oak"), id="unknown field"),
        pytest.param(_record(rounds={"1": {"moves": []}}), id="rounds not a list"),
        pytest.param([], id="not an object"),
    ],
)
def test_a_record_with_a_bad_header_is_record_invalid_with_no_round_R3_R40(record):
    error = _error_of(record)

    assert (error.code, error.round, error.move) == ("record_invalid", None, None)


def test_the_same_name_may_sit_twice_R3():
    result = replay_record(_record({"moves": []}, players=["Andi"] * 5))

    assert result["format"] == RESULT_FORMAT


def test_a_record_with_no_rounds_gives_no_rounds():
    assert replay_record(_record()) == {"format": RESULT_FORMAT, "rounds": []}


@pytest.mark.parametrize(
    "round_data",
    [
        pytest.param([], id="round not an object"),
        pytest.param({"moves": {}}, id="moves not a list"),
        pytest.param({"moves": [], "notes": "x"}, id="unknown field"),
        pytest.param({"moves": ["6-6"]}, id="move not an object"),
    ],
)
def test_a_malformed_round_is_record_invalid_in_that_round(round_data):
    error = _error_of(_record(round_data))

    assert (error.code, error.round) == ("record_invalid", 1)


# -- the result --


def test_a_round_in_play_has_no_ending_and_names_whose_turn_it_is_R8():
    rnd = replay_record(_record({"moves": _moves(["6-6", "5-6"], leader=3)}))["rounds"][0]

    assert rnd["number"] == 1
    assert rnd["leader"] == 3
    assert rnd["ending"] is None
    assert rnd["winner"] is None
    assert rnd["transfers"] == []
    assert rnd["after"]["next_leader"] == 0


def test_replaying_the_same_record_twice_gives_the_same_result_R40():
    record = _record(*_three_round_game())

    assert replay_record(copy.deepcopy(record)) == replay_record(copy.deepcopy(record))


def test_the_result_lists_every_round_with_its_number():
    result = replay_record(_record(*_three_round_game()))

    assert [r["number"] for r in result["rounds"]] == [1, 2, 3]
    assert [r["ending"] for r in result["rounds"]] == ["blocked", "cappu", None]
    assert result["rounds"][2]["after"]["next_leader"] == 0


# -- across sittings (R27) --


def _played(rounds: list[dict], rules: RuleSet | None = None) -> Game:
    game = Game(rules or RuleSet())
    for data in rounds:
        for move in data["moves"]:
            game.push(move)
        for seat in range(5):
            if str(seat) in data.get("reveal", {}):
                game.reveal(seat, tiles=data["reveal"][str(seat)])
            elif str(seat) in data.get("pips", {}):
                game.reveal(seat, pips=data["pips"][str(seat)])
    return game


def test_an_exported_game_replays_to_the_same_result_R27():
    game = _played(_three_round_game(), RuleSet(starting_stones=6))

    exported = export_record(game, PLAYERS)

    assert exported["format"] == "domeng-record/1"
    assert replay_record(exported) == result_of(game)


def test_a_game_continues_in_a_later_sitting_with_its_stones_camat_and_next_leader_R27():
    # Six stones: seat 1 is elected CAMAT after round 2 (its CEKI empties the table).
    rounds = _three_round_game()
    first_sitting = _played(rounds[:2], RuleSet(starting_stones=6))
    assert first_sitting.camat == 1

    second_sitting = replay(Record.parse(export_record(first_sitting, PLAYERS)))

    assert second_sitting.camat == 1
    assert second_sitting.expected_leader() == 1
    assert second_sitting.standing() == first_sitting.standing()
    for move in rounds[2]["moves"]:
        second_sitting.push(move)
    uninterrupted = _played(rounds, RuleSet(starting_stones=6))
    assert result_of(second_sitting) == result_of(uninterrupted)


def test_a_game_paused_mid_round_resumes_where_it_stopped_R27():
    game = Game()
    moves = _moves(CEKI_WALK)
    for move in moves[:9]:
        game.push(move)

    resumed = replay(Record.parse(export_record(game, PLAYERS)))
    for move in moves[9:]:
        resumed.push(move)

    assert result_of(resumed) == replay_record(_record({"moves": moves}))


def test_a_game_paused_while_a_block_waits_for_reveals_resumes_with_them_R27_R18():
    game = Game()
    for move in _moves(BLOCKED_WALK) + _passes(2):
        game.push(move)
    game.reveal(0, tiles=BLOCKED_REVEAL["0"])

    resumed = replay(Record.parse(export_record(game, PLAYERS)))
    for seat in (1, 2, 3):
        resumed.reveal(seat, tiles=BLOCKED_REVEAL[str(seat)])
    resumed.reveal(4, pips=29)

    assert result_of(resumed)["rounds"][0]["remaining_pips"] == [12, 3, 14, 23, 29]


def test_an_exported_record_keeps_the_rule_set_R40_R27():
    rules = RuleSet.from_dict({"ceki_stones": 4, "first_lead_doubles": ["6-6", "5-5"]})
    game = Game(rules)
    game.push({"seat": 2, "tile": "6-6"})

    exported = export_record(game, PLAYERS)

    assert Record.parse(exported).rules == rules


def test_an_exported_record_writes_tiles_smaller_half_first_R1():
    game = Game()
    game.push({"seat": 0, "tile": "[6|6]"})
    game.push({"seat": 1, "tile": "6|5"})

    exported = export_record(game, PLAYERS)

    assert exported["rounds"][0]["moves"] == [
        {"seat": 0, "tile": "6-6"},
        {"seat": 1, "tile": "5-6"},
    ]


def test_an_exported_record_keeps_declared_hands_and_pip_sums_R27_R31():
    game = Game()
    game.declare(4, ["4-6", "3-3", "3-4", "3-5", "4-4"])
    for move in _moves(BLOCKED_WALK) + _passes(2):
        game.push(move)
    for seat in range(4):
        game.reveal(seat, tiles=BLOCKED_REVEAL[str(seat)])

    exported = export_record(game, PLAYERS)

    assert exported["rounds"][0]["hands"] == {"4": ["3-3", "3-4", "3-5", "4-4", "4-6"]}
    assert replay_record(exported) == result_of(game)
