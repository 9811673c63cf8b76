"""The error object of RECORD.md: stable codes, the rule id and where it happened (R34)."""

from __future__ import annotations

import pytest

from referee.engine.errors import ERROR_CLASSES, ERROR_CODES, NotYourTurn, RefereeError
from referee.engine.records import replay_record

PLAYERS = ["Andi", "Besse", "Cakra", "Daeng", "Evi"]


def _error_of(rounds: list[dict]) -> RefereeError:
    record = {"format": "domeng-record/1", "players": PLAYERS, "rounds": rounds}
    with pytest.raises(RefereeError) as caught:
        replay_record(record)
    return caught.value


def test_the_codes_are_exactly_those_listed_in_the_record_format_R34():
    assert set(ERROR_CODES) == {
        "record_invalid",
        "tile_invalid",
        "not_your_turn",
        "wrong_leader",
        "tile_already_played",
        "tile_does_not_match",
        "end_required",
        "end_mismatch",
        "opening_tile_invalid",
        "tile_not_in_hand",
        "pass_with_playable_tile",
        "sleeping_tile_played",
        "contradicts_pass",
        "round_over",
        "reveal_invalid",
        "reveal_missing",
        "ruling_invalid",
    }
    assert len(ERROR_CODES) == len(set(ERROR_CODES))


def test_an_error_object_has_code_rule_round_move_and_detail_R34():
    error = _error_of([{"moves": [{"seat": 0, "tile": "6-6"}, {"seat": 1, "tile": "2-4"}]}])

    data = error.to_dict()

    assert set(data) == {"code", "rule", "round", "move", "detail"}
    assert data["code"] == "tile_does_not_match"
    assert data["rule"] == "R7"
    assert data["round"] == 1
    assert data["move"] == 1
    assert isinstance(data["detail"], str)
    assert data["detail"]


def test_a_contradiction_adds_the_earlier_event_it_contradicts_R32():
    error = _error_of(
        [
            {
                "moves": [
                    {"seat": 0, "tile": "5-5"},
                    {"seat": 1, "tile": "5-6"},
                    {"seat": 2, "tile": "6-6"},
                ]
            }
        ]
    )

    data = error.to_dict()

    assert set(data) == {"code", "rule", "round", "move", "detail", "contradicts"}
    assert data["code"] == "sleeping_tile_played"
    assert data["contradicts"] == {"round": 1, "move": 0}


def test_a_fault_in_the_header_has_no_round_and_no_move_R34():
    record = {"format": "domeng-record/2", "players": PLAYERS, "rounds": []}
    with pytest.raises(RefereeError) as caught:
        replay_record(record)

    data = caught.value.to_dict()
    assert data["code"] == "record_invalid"
    assert data["round"] is None
    assert data["move"] is None


def test_a_caller_may_put_its_own_detail_in_the_error_object_R34():
    error = _error_of([{"moves": [{"seat": 0, "pass": True}]}])

    assert error.to_dict(detail="translated")["detail"] == "translated"
    assert error.to_dict()["code"] == "opening_tile_invalid"


def test_every_error_class_is_a_referee_error_with_a_code_of_its_own_R34():
    assert [cls for cls in ERROR_CLASSES if not issubclass(cls, RefereeError)] == []
    assert len({cls.code for cls in ERROR_CLASSES}) == len(ERROR_CLASSES)


def test_a_move_out_of_turn_raises_the_not_your_turn_class_R8():
    error = _error_of([{"moves": [{"seat": 0, "tile": "6-6"}, {"seat": 3, "tile": "5-6"}]}])

    assert type(error) is NotYourTurn
    assert (error.code, error.rule) == ("not_your_turn", "R8")
