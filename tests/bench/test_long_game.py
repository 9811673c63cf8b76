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


READS = ("export", "state", "result", "organiser game page", "organiser round 1 page", "room view")


def test_no_read_of_a_long_game_costs_more_queries_or_replays_more_rounds_than_a_short_one_R27():
    """Issue 29: the reads take the settled rounds as stored and fold the round in play
    only: their SQL queries and the rounds the rules core begins are the same at 3 and at
    12 rounds (deterministic costs, not timings)."""
    results = long_game.run(sizes=(3, 12), repeat=1, token=create_organiser("bench-long"))
    assert results["failures"] == []

    for name in READS:
        at = {m["rounds"]: m for m in results["measurements"] if m["request"] == name}
        assert at[12]["queries"] == at[3]["queries"], name
        assert at[12]["rounds_begun"] == at[3]["rounds_begun"], name
        assert at[12]["rounds_begun"] <= 1, name  # the round in play at most, never a replay


def test_the_counter_sees_a_replay_grow_with_the_game():
    """The count the tests above rely on counts a whole replay's rounds."""
    import random

    from referee.engine.records import replay_record
    from referee.engine.simulation import random_record

    record = random_record(random.Random(29), rounds=7)
    with long_game.rounds_begun() as counter:
        replay_record(record)
    assert counter[0] == 7


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
