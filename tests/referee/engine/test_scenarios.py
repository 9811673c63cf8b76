"""Golden scenarios: worked records replay to exactly the result (or error) they must give.

The files under ``tests/data/scenarios/`` are the project's own copies of the
worked examples (RULES.md R1–R40 applied by hand) and three generated
40-round games.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.engine.errors import RefereeError
from referee.engine.records import Record, export_record, replay, replay_record

SCENARIOS = sorted((Path(__file__).parents[2] / "data" / "scenarios").glob("*.json"))


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_scenario_folder_is_not_empty():
    assert len(SCENARIOS) >= 12


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_a_scenario_replays_to_its_expected_result_or_error(path):
    scenario = _load(path)
    expect = scenario["expect"]
    if "code" in expect:
        with pytest.raises(RefereeError) as caught:
            replay_record(scenario["record"])
        got = caught.value.to_dict()
        assert {key: got[key] for key in expect} == expect
    else:
        assert replay_record(scenario["record"]) == expect


@pytest.mark.parametrize(
    "path", [p for p in SCENARIOS if "code" not in _load(p)["expect"]], ids=lambda p: p.stem
)
def test_an_exported_scenario_replays_to_the_same_result_R27(path):
    record = _load(path)["record"]
    game = replay(Record.parse(record))
    exported = export_record(game, record["players"])
    assert replay_record(exported) == _load(path)["expect"]
    # Tiles are written back canonically (R1) and nothing else changes.
    assert export_record(replay(Record.parse(exported)), record["players"]) == exported
