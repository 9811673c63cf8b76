"""Rule sets: the house numbers a game is created with (R40)."""

from __future__ import annotations

import pytest

from referee.engine.errors import RefereeError
from referee.engine.records import replay_record
from referee.engine.rules import DEFAULT_RULES, RuleSet
from referee.engine.tiles import Tile

PLAYERS = ["Andi", "Besse", "Cakra", "Daeng", "Evi"]


def _record(rules: object, moves: list[dict] | None = None) -> dict:
    return {
        "format": "domeng-record/1",
        "players": PLAYERS,
        "rules": rules,
        "rounds": [{"moves": moves or []}],
    }


def test_the_defaults_are_the_numbers_of_the_rules_R40():
    rules = RuleSet.from_dict(None)

    assert rules == DEFAULT_RULES
    assert (
        rules.starting_stones,
        rules.pass_stones,
        rules.passebunge_stones,
        rules.cucuq_stones,
        rules.ceki_stones,
        rules.pollo_stones,
        rules.manguno_stones,
        rules.manguno_reduced_stones,
    ) == (25, 1, 2, 1, 3, 5, 5, 1)
    assert [str(t) for t in rules.first_lead_doubles] == ["6-6", "5-5", "4-4", "3-3"]
    assert rules.closing_pass_counts is True


def test_an_empty_rules_object_means_the_defaults_R40():
    assert RuleSet.from_dict({}) == DEFAULT_RULES


def test_given_keys_override_the_defaults_and_the_rest_stay_R40():
    rules = RuleSet.from_dict(
        {
            "starting_stones": 30,
            "ceki_stones": 4,
            "first_lead_doubles": ["6|6", "[5|5]"],
            "closing_pass_counts": False,
        }
    )

    assert rules.starting_stones == 30
    assert rules.ceki_stones == 4
    assert rules.first_lead_doubles == (Tile(6, 6), Tile(5, 5))
    assert rules.closing_pass_counts is False
    assert rules.pollo_stones == 5


def test_a_rule_set_round_trips_through_its_dict_R40():
    rules = RuleSet.from_dict({"pass_stones": 2, "first_lead_doubles": ["4-4", "2-2"]})

    assert RuleSet.from_dict(rules.to_dict()) == rules
    assert rules.to_dict()["first_lead_doubles"] == ["4-4", "2-2"]


@pytest.mark.parametrize(
    "rules",
    [
        {"starting_stone": 25},
        {"camat_stones": 1},
        {"starting_stones": -1},
        {"pass_stones": -2},
        {"ceki_stones": 1.5},
        {"pollo_stones": "5"},
        {"manguno_stones": True},
        {"manguno_reduced_stones": None},
        {"closing_pass_counts": 1},
        {"closing_pass_counts": "true"},
        {"first_lead_doubles": []},
        {"first_lead_doubles": "6-6"},
        {"first_lead_doubles": ["6-6", "5-6"]},
        {"first_lead_doubles": ["6-6", "6|6"]},
        {"first_lead_doubles": ["6-6", "7-7"]},
        [],
        "defaults",
    ],
)
def test_a_rule_set_the_rules_do_not_allow_is_record_invalid_R40(rules):
    with pytest.raises(RefereeError) as caught:
        RuleSet.from_dict(rules)

    assert caught.value.code == "record_invalid"


def test_an_unknown_rule_key_in_a_record_is_record_invalid_in_the_header_R40():
    with pytest.raises(RefereeError) as caught:
        replay_record(_record({"starting_stones": 25, "house_bonus": 2}))

    error = caught.value.to_dict()
    assert error["code"] == "record_invalid"
    assert error["round"] is None
    assert error["move"] is None


def test_a_negative_number_in_a_records_rules_is_record_invalid_R40():
    with pytest.raises(RefereeError) as caught:
        replay_record(_record({"pollo_stones": -5}))

    assert caught.value.code == "record_invalid"
    assert caught.value.round is None


def test_null_rules_in_a_record_mean_the_defaults_R40():
    result = replay_record(_record(None, [{"seat": 0, "tile": "6-6"}]))

    assert result["rounds"][0]["after"]["table"] == 25


def test_the_starting_stones_of_the_rule_set_are_on_the_table_R22_R40():
    result = replay_record(_record({"starting_stones": 40}, [{"seat": 0, "tile": "6-6"}]))

    assert result["rounds"][0]["after"]["table"] == 40
    assert result["rounds"][0]["after"]["stones"] == [0, 0, 0, 0, 0]
