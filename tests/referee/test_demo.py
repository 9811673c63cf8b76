"""``manage.py demo`` (``make demo``) and its example record, ``examples/club_night.json``.

The demo is played over real HTTP against pytest-django's live server (the
command's ``--base-url`` mode) on the first rounds of the example; the full
example is left to ``make demo``.
"""

from __future__ import annotations

import copy
import io
import json
import re
import socket
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from referee.engine.records import replay_record
from referee.management.commands import demo

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "club_night.json"
PLAIN_TILE = re.compile(r"([0-6])-([0-6])")


def example(rounds: int | None = None) -> dict[str, Any]:
    """The example record, or its first ``rounds`` rounds."""
    record: dict[str, Any] = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    if rounds is not None:
        record["rounds"] = record["rounds"][:rounds]
    return record


def run_demo(record: dict[str, Any], tmp_path: Path, base_url: str, out: io.StringIO) -> list[str]:
    """Run ``manage.py demo --record … --base-url …`` printing to ``out``; the lines printed."""
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    call_command("demo", record=path, base_url=base_url, stdout=out)
    return out.getvalue().splitlines()


def standings_rows(lines: list[str]) -> dict[str, list[str]]:
    """The standings table as printed: the first word of each row → the row's words."""
    start = next(i for i, line in enumerate(lines) if line.startswith("Standings after"))
    rows = {}
    for line in lines[start + 2 :]:
        if not line.startswith("  "):
            break
        words = line.split()
        rows[words[0]] = words
    return rows


# -- the example record ------------------------------------------------------------------


def test_the_example_is_a_legal_club_night_with_every_feature_the_demo_shows():
    record = example()
    rounds = replay_record(record)["rounds"]

    assert len(rounds) >= 20
    assert all(r["winner"] is not None for r in rounds), "every round is over and settled"
    assert any(r["finish"] == "ceki" for r in rounds)
    assert any(r["finish"] == "pollo" for r in rounds)
    blocked = [r for r in rounds if r["ending"] == "blocked"]
    assert any(r["mattikkeng"] for r in blocked)
    assert any(not r["mattikkeng"] and r["cucuq"] is not None for r in blocked)
    # the table runs out: a shortfall is paid by a player (R23)
    assert any(isinstance(t["from"], int) for r in rounds for t in r["transfers"])
    elected = [r for r in rounds if r["camat_elected"] is not None]
    assert elected
    for r in elected:  # R25: every stone back on the table
        assert (r["after"]["table"], r["after"]["stones"]) == (25, [0, 0, 0, 0, 0])
        assert r["after"]["camat"] == r["camat_elected"]


def test_the_example_is_written_plainly_with_reveals_by_tiles_and_by_pips():
    record = example()
    rounds = record["rounds"]

    assert record["rules"] is None
    assert not any(data.get("hands") for data in rounds)
    tiles = [move["tile"] for data in rounds for move in data["moves"] if "tile" in move]
    tiles += [t for data in rounds for ts in (data.get("reveal") or {}).values() for t in ts]
    for tile in tiles:
        match = PLAIN_TILE.fullmatch(tile)
        assert match, tile
        assert match[1] <= match[2], tile
    assert any(data.get("reveal") for data in rounds)
    assert any(data.get("pips") for data in rounds)


# -- the demo over HTTP --------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_demo_plays_a_short_record_and_prints_the_standings(live_server, tmp_path):
    record = example(rounds=3)
    expected = replay_record(record)["rounds"]
    after = expected[-1]["after"]

    lines = run_demo(record, tmp_path, live_server.url, io.StringIO())

    round_lines = [line for line in lines if line.startswith("Round")]
    assert [line.split()[:3] for line in round_lines] == [
        ["Round", str(r["number"]), r["ending"]] for r in expected
    ]
    name = record["players"]
    for line, r in zip(round_lines, expected, strict=True):
        if r["ending"] == "cappu":
            assert f"FIRST CAPPU {name[r['first_cappu']]}" in line
        else:
            assert f"MANGUNO {name[r['manguno']]}" in line
            assert f"winner {name[r['winner']]}" in line
        if r["mattikkeng"]:
            assert f"MATTIKKENG {' & '.join(name[s] for s in r['mattikkeng'])}" in line
        if r["cucuq"] is not None:
            assert f"CUCUQ {name[r['cucuq']]}" in line
        if any(isinstance(t["from"], int) for t in r["transfers"]):
            assert "shortfall paid by" in line
        assert line.endswith(f"; table {r['after']['table']}")
    rows = standings_rows(lines)
    winners = [r["winner"] for r in expected]
    for seat, name in enumerate(record["players"]):
        camat = ["CAMAT"] if after["camat"] == seat else []
        won = str(winners.count(seat))
        assert rows[str(seat)] == [str(seat), name, str(after["stones"][seat]), won, *camat]
    assert rows["table"] == ["table", str(after["table"])]
    assert lines[-1].startswith("Check OK: GET /api/v1/games/")
    assert lines[-1].endswith(
        "/result/ == replay_record(record.json) (3 rounds; live outcomes and standings agree)"
    )


@pytest.mark.django_db(transaction=True)
def test_the_demo_fails_when_the_servers_result_is_not_the_rules_cores(
    live_server, tmp_path, monkeypatch
):
    record = example(rounds=1)
    wrong = copy.deepcopy(replay_record(record))
    wrong["rounds"][0]["after"]["table"] += 1
    monkeypatch.setattr(demo, "replay_record", lambda data: wrong)

    out = io.StringIO()
    with pytest.raises(CommandError, match="differs"):
        run_demo(record, tmp_path, live_server.url, out)

    printed = out.getvalue().splitlines()
    failed = next(i for i, line in enumerate(printed) if line.startswith("Check FAILED"))
    table = wrong["rounds"][0]["after"]["table"]
    assert [line.strip() for line in printed[failed + 1 :]] == [
        f"result.rounds[0].after.table: served {table - 1}, expected {table}",
        f"live round 1.after.table: served {table - 1}, expected {table}",
        f"standings.table: served {table - 1}, expected {table}",
    ]


def test_the_demo_refuses_an_impossible_record_before_playing_it(tmp_path):
    record = example(rounds=1)
    record["rounds"][0]["moves"][1]["seat"] = 0  # not that seat's turn (R8)

    with pytest.raises(CommandError, match="not_your_turn"):
        run_demo(record, tmp_path, "http://127.0.0.1:9", io.StringIO())  # nothing is sent


def test_the_demo_server_is_stopped_and_its_database_removed_even_on_error():
    servers: list[demo.Server] = []

    def fail_while_it_runs() -> None:
        with demo.demo_server() as server:
            servers.append(server)
            assert demo.Api(server.base_url).answers()
            assert server.database.exists()
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        fail_while_it_runs()

    (server,) = servers
    assert server.process is not None
    assert server.process.returncode is not None
    assert not server.database.parent.exists()
    port = int(server.base_url.rsplit(":", 1)[1])
    with socket.socket() as probe, pytest.raises(ConnectionRefusedError):
        probe.connect(("127.0.0.1", port))
