"""``manage.py simulate``: computer seats play seeded games whose records replay the same (R39)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.engine.selfplay import interval, play_game


def simulate(*args: str) -> dict:
    out = io.StringIO()
    call_command("simulate", *args, stdout=out)
    return json.loads(out.getvalue())


def replay(path: Path) -> dict:
    out = io.StringIO()
    call_command("replay", str(path), stdout=out)
    return json.loads(out.getvalue())


def test_simulate_writes_records_that_replay_to_the_result_of_their_play_r39(tmp_path):
    summary = simulate(
        "--rounds", "12", "--game-rounds", "5", "--seed", "club",
        "--seat", "0=strong", "--seat", "2=random", "--out", str(tmp_path),
    )  # fmt: skip

    files = sorted(tmp_path.glob("game-*.json"))
    assert [f.name for f in files] == ["game-0001.json", "game-0002.json", "game-0003.json"]
    strategies = ["strong", "greedy", "random", "greedy", "greedy"]
    for number, (path, rounds) in enumerate(zip(files, [5, 5, 2], strict=True), start=1):
        played = play_game(strategies=strategies, rounds=rounds, seed=f"club:{number}")
        assert json.loads(path.read_text()) == played.record
        assert replay(path) == played.result
    assert summary["games"] == 3
    assert summary["rounds"] == 12
    assert [s["strategy"] for s in summary["seats"]] == strategies
    assert sum(s["rounds_won"] for s in summary["seats"]) == 12
    assert set(summary["ms_per_move"]) == {"strong", "greedy", "random"}


def test_the_summary_is_the_mean_of_the_games_stones_held_with_its_interval(tmp_path):
    summary = simulate("--rounds", "6", "--game-rounds", "3", "--seed", "7", "--out", str(tmp_path))

    means = []
    for path in sorted(tmp_path.glob("game-*.json")):
        rounds = replay(path)["rounds"]
        means.append(sum(r["after"]["stones"][1] for r in rounds) / len(rounds))
    assert summary["seats"][1]["stones_held"] == interval(means)
    assert interval(means)["low"] < interval(means)["mean"] < interval(means)["high"]


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.text("abc0123456789", min_size=1, max_size=6), rounds=st.integers(1, 4))
def test_every_simulated_record_replays_identically_r39(tmp_path_factory, seed, rounds):
    out = tmp_path_factory.mktemp("sim")
    simulate(
        "--rounds", str(rounds), "--seed", seed, "--seat", "1=strong", "--seat", "3=random",
        "--out", str(out),
    )  # fmt: skip

    (path,) = out.glob("game-*.json")
    played = play_game(
        strategies=["greedy", "strong", "greedy", "random", "greedy"],
        rounds=rounds,
        seed=f"{seed}:1",
    )
    assert replay(path) == played.result


@pytest.mark.parametrize("seat", ["5=greedy", "0=clever", "greedy", "-1=random", "0="])
def test_a_seat_that_is_not_n_equals_a_strategy_is_refused(seat):
    with pytest.raises(CommandError, match="--seat"):
        simulate("--rounds", "1", "--seat", seat)


def test_no_rounds_is_refused():
    with pytest.raises(CommandError, match="at least 1"):
        simulate("--rounds", "0")
