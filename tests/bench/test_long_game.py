"""The long game section (R27) measures every request at each size and checks the result."""

from __future__ import annotations

import pytest

from bench import long_game, report
from referee.management.commands.demo import create_organiser

pytestmark = pytest.mark.django_db


def test_the_long_game_measures_each_request_at_each_size_and_its_result_equals_its_replay_R27():
    results = long_game.run(sizes=(2, 5), repeat=1, token=create_organiser("bench-long"))

    measured = {(m["request"], m["rounds"]) for m in results["measurements"]}
    assert measured == {(name, size) for name in long_game.REQUESTS for size in (2, 5)}
    assert results["failures"] == []
    assert set(results["growth"]) == set(long_game.REQUESTS)
    state = [m for m in results["measurements"] if m["request"] == "state"]
    assert all(m["rounds_begun"] <= 1 for m in state)  # the cached state: no replay
    export = {
        m["rounds"]: m["rounds_begun"] for m in results["measurements"] if m["request"] == "export"
    }
    assert export[5] > export[2]  # the counter sees a replay grow with the game


def test_the_report_shows_the_long_game_and_fails_on_a_differing_result():
    row = {"n": 1, "ms_median": 10.0, "ms_min": 9.0, "cpu_ms_median": 5.0, "queries": 3}
    measurements = [
        row | {"request": name, "rounds": size, "rounds_begun": size}
        for name in long_game.REQUESTS
        for size in (40, 600)
    ]
    growth = {
        n: {"time": 1.0, "queries": (3, 3), "rounds_begun": (600, 40)} for n in long_game.REQUESTS
    }
    results = {"sizes": [40, 600], "seed": 29, "repeat": 1, "measurements": measurements}

    text = report.render({"long_game": results | {"growth": growth, "failures": []}})
    failed = report.checks({"long_game": results | {"growth": growth, "failures": ["differs"]}})

    assert "## A long game (R27)" in text
    assert "| adjustment after round 1 |" in text
    assert [ok for _, ok in failed] == [False]
