"""The organiser's rulings in a record: void (R35), adjustments (R36), substitutes (R38),
and the fold of a game's events judging them exactly as the record's replay (R37)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from referee import folding
from referee.engine.errors import RefereeError
from referee.engine.records import Record, export_record, replay, replay_record, result_of

SCENARIOS = Path(__file__).parents[2] / "data" / "scenarios"
RULINGS = json.loads((SCENARIOS / "40_void_adjust_substitute.json").read_text())["record"]


def _record(changes: dict | None = None) -> dict:
    record = copy.deepcopy(RULINGS)
    for (index, key), value in (changes or {}).items():
        if value is None:
            record["rounds"][index].pop(key, None)
        else:
            record["rounds"][index][key] = value
    return record


def _error(record: dict) -> dict:
    with pytest.raises(RefereeError) as caught:
        replay_record(record)
    return caught.value.to_dict()


def test_a_voided_round_moves_no_stone_and_the_next_round_is_the_first_lead_R35_R5():
    rounds = replay_record(RULINGS)["rounds"]
    assert rounds[0]["void"] is True
    assert rounds[0]["transfers"] == []
    assert rounds[0]["winner"] is None
    assert rounds[0]["after"] == {
        "table": 25,
        "stones": [0] * 5,
        "camat": None,
        "next_leader": None,
    }
    assert [r["void"] for r in rounds[1:]] == [False, False, False]


def test_a_voided_rounds_moves_are_checked_only_for_form_R35():
    bad_tile = _record()
    bad_tile["rounds"][0]["moves"][1]["tile"] = "7-7"
    assert _error(bad_tile)["code"] == "tile_invalid"
    bad_seat = _record()
    bad_seat["rounds"][0]["moves"][2]["seat"] = 5
    assert {k: _error(bad_seat)[k] for k in ("code", "round", "move")} == {
        "code": "record_invalid",
        "round": 1,
        "move": 2,
    }
    # Out of turn, a pass as a lead, an impossible tile: all kept as entered.
    lax = _record()
    lax["rounds"][0]["moves"] = [{"seat": 1, "pass": True}, {"seat": 1, "tile": "6-6"}]
    lax["rounds"][0]["hands"] = {"0": ["not", "a", "hand"]}
    game = replay(Record.parse(lax))
    assert export_record(game, lax["players"])["rounds"][0]["moves"] == lax["rounds"][0]["moves"]
    assert export_record(game, lax["players"])["rounds"][0]["hands"] == {"0": ["not", "a", "hand"]}


@pytest.mark.parametrize("void", [{}, {"reason": ""}, {"reason": "  "}, {"reason": 3}, "why"])
def test_a_void_without_a_reason_is_ruling_invalid_R35(void):
    assert {k: _error(_record({(0, "void"): void}))[k] for k in ("code", "rule", "round")} == {
        "code": "ruling_invalid",
        "rule": "R35",
        "round": 1,
    }


def test_without_its_void_round_1_is_judged_and_refused_R35():
    error = _error(_record({(0, "void"): None}))
    assert (error["code"], error["round"], error["move"]) == ("tile_does_not_match", 1, 1)


def test_an_adjustment_comes_after_the_award_and_never_elects_a_camat_R36():
    record = _record({(1, "adjustments"): None})
    before = replay_record(record)["rounds"][1]["after"]
    table = before["table"]
    record["rounds"][1]["adjustments"] = [
        {"from": "table", "to": 2, "stones": table, "reason": "empty the table"},
        {"from": 2, "to": 4, "stones": 1, "reason": "a stone handed over"},
    ]
    result = replay_record(record)["rounds"][1]
    assert result["transfers"][-2:] == [
        {"move": None, "from": "table", "to": 2, "stones": table, "reason": "adjustment"},
        {"move": None, "from": 2, "to": 4, "stones": 1, "reason": "adjustment"},
    ]
    assert result["after"]["table"] == 0
    assert result["camat_elected"] is None
    assert result["after"]["camat"] is None
    assert sum(result["after"]["stones"]) + result["after"]["table"] == 25


@pytest.mark.parametrize(
    "adjustment",
    [
        {"from": 3, "to": 3, "stones": 1, "reason": "x"},
        {"from": 3, "to": 0, "stones": 0, "reason": "x"},
        {"from": 3, "to": 0, "stones": 4, "reason": "more than seat 3 holds"},
        {"from": "table", "to": 0, "stones": 16, "reason": "more than the table holds"},
        {"from": 5, "to": 0, "stones": 1, "reason": "x"},
        {"from": 3, "to": 0, "stones": 1, "reason": ""},
        {"from": 3, "to": 0, "stones": 1},
        {"from": 3, "to": 0, "stones": True, "reason": "x"},
    ],
)
def test_an_impossible_adjustment_is_ruling_invalid_R36(adjustment):
    error = _error(_record({(1, "adjustments"): [adjustment]}))
    assert (error["code"], error["rule"], error["round"], error["move"]) == (
        "ruling_invalid",
        "R36",
        2,
        None,
    )


def test_an_adjustment_on_a_round_still_in_play_is_ruling_invalid_R36():
    record = _record()
    record["rounds"][3]["moves"] = record["rounds"][3]["moves"][:5]
    record["rounds"][3]["adjustments"] = [{"from": "table", "to": 0, "stones": 1, "reason": "x"}]
    error = _error(record)
    assert (error["code"], error["rule"], error["round"]) == ("ruling_invalid", "R36", 4)


@pytest.mark.parametrize("substitutes", [{"5": "Fajar"}, {"4": ""}, {"4": 7}, ["Fajar"]])
def test_a_malformed_substitute_is_record_invalid_and_checked_first_R38_R34(substitutes):
    record = _record({(2, "substitutes"): substitutes})
    record["rounds"][2]["void"] = {"reason": ""}  # also a bad void: substitutes come first
    error = _error(record)
    assert (error["code"], error["round"]) == ("record_invalid", 3)


def test_a_substitute_changes_only_the_name_R38():
    with_sub = replay_record(RULINGS)
    without = replay_record(_record({(2, "substitutes"): None}))
    assert with_sub == without
    exported = export_record(replay(Record.parse(RULINGS)), RULINGS["players"])
    assert exported["rounds"][2]["substitutes"] == {"4": "Fajar"}


def test_folding_a_records_events_gives_its_replay_R37():
    for path in sorted(SCENARIOS.glob("*.json")):
        scenario = json.loads(path.read_text())
        if "code" in scenario["expect"]:
            continue
        parsed = Record.parse(scenario["record"])
        entries = folding.record_entries(parsed.rounds)
        game, _ = folding.fold(parsed.rules, [(e.kind, e.payload) for e in entries])
        assert result_of(game) == scenario["expect"], path.stem
        rebuilt = folding.entries_record(parsed.players, parsed.rules, entries)
        assert replay_record(rebuilt) == scenario["expect"], path.stem


def test_a_fold_refuses_an_adjustment_as_the_replay_does_R36():
    scenario = json.loads((SCENARIOS / "41_adjustment_too_large.json").read_text())
    parsed = Record.parse(scenario["record"])
    entries = folding.record_entries(parsed.rounds)
    with pytest.raises(RefereeError) as caught:
        folding.fold(parsed.rules, [(e.kind, e.payload) for e in entries])
    assert {k: caught.value.to_dict()[k] for k in scenario["expect"]} == scenario["expect"]


@pytest.mark.parametrize("where", ["last", "between"])
def test_a_round_with_nothing_entered_cannot_be_voided_R35(where):
    """Decision (issue 9): a round not yet led and with no declared hand holds nothing to
    void; a record that voids such a round is refused, as the live table refuses it."""
    record = _record()
    empty = {"moves": [], "void": {"reason": "dealt face up"}}
    if where == "last":
        record["rounds"].append(empty)
    else:
        record["rounds"].insert(1, empty)
    number = len(record["rounds"]) if where == "last" else 2

    error = _error(record)

    assert (error["code"], error["rule"], error["round"]) == ("ruling_invalid", "R35", number)


def test_a_round_with_only_a_declared_hand_may_be_voided_R35_R31():
    record = _record()
    hand = ["6-6", "0-1", "2-5", "3-3", "1-4"]
    record["rounds"].append(
        {"moves": [], "hands": {"2": hand}, "void": {"reason": "dealt face up"}}
    )

    result = replay_record(record)

    assert result["rounds"][-1]["void"] is True
    assert result["rounds"][-1]["after"]["stones"] == result["rounds"][-2]["after"]["stones"]


@pytest.mark.parametrize("reason", ["dealt\u202e face up", "\u2066misdeal\u2069"])
def test_a_rulings_reason_that_changes_its_own_direction_is_refused_R35_R36(reason):
    """A ruling's reason is shown as typed on every phone's banner: an imported record
    cannot carry one that reads reordered (the API's and pages' forms refuse it too)."""
    voided = _record({(1, "void"): {"reason": reason}})
    with pytest.raises(RefereeError) as refused:
        replay_record(voided)
    assert (refused.value.code, refused.value.rule) == ("ruling_invalid", "R35")

    adjusted = _record({(1, "adjustments"): None})
    adjustment = {"from": "table", "to": 2, "stones": 1, "reason": reason}
    adjusted["rounds"][1]["adjustments"] = [adjustment]
    with pytest.raises(RefereeError) as refused:
        replay_record(adjusted)
    assert (refused.value.code, refused.value.rule) == ("ruling_invalid", "R36")
    adjusted["rounds"][1]["adjustments"][0]["reason"] = "a stone found"
    replay_record(adjusted)  # the same ruling, readable, is taken


def test_a_voided_rounds_chain_is_laid_as_far_as_the_rules_allow_R35():
    """A voided round's moves are kept unjudged; its chain, which the phones show, lays them
    again until the first one the rules refuse."""
    # The scenario's voided round: 6-6 led, then 2-5 "on 6", which no end takes (R11).
    assert replay(Record.parse(RULINGS)).rounds[0].laid_chain() == [(6, 6)]

    lax = _record()
    lax["rounds"][0]["moves"] = [
        {"seat": 0, "tile": "6-6"},
        {"seat": 1, "tile": "3-6"},
        {"seat": 2, "tile": "1-2"},  # fits neither end (3, 6): the chain stops before it
        {"seat": 3, "tile": "4-6"},
    ]
    laid = replay(Record.parse(lax)).rounds[0].laid_chain()
    assert sorted(laid) == [(3, 6), (6, 6)] or sorted(laid) == [(6, 3), (6, 6)]
