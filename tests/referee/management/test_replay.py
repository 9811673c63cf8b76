"""``manage.py replay FILE``: the result on stdout, or the error object and exit status 2."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

ROOT = Path(__file__).resolve().parents[3]


def replay(path: str) -> tuple[int, Any]:
    """Run the command; return its exit status and the JSON it printed."""
    out = io.StringIO()
    try:
        call_command("replay", path, stdout=out)
    except SystemExit as exc:
        status = exc.code
    else:
        status = 0
    return status, json.loads(out.getvalue())


def write(tmp_path: Path, content: str | bytes) -> str:
    path = tmp_path / "record.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return str(path)


def test_every_worked_scenario_gives_exactly_what_it_expects(tmp_path, worked_scenario):
    expect = worked_scenario["expect"]

    status, printed = replay(write(tmp_path, json.dumps(worked_scenario["record"])))

    if "code" in expect:
        assert status == 2
        assert {key: printed.get(key) for key in expect} == expect
        assert printed["detail"]
    else:
        assert status == 0
        assert printed == expect


def test_a_dash_reads_the_record_from_standard_input(monkeypatch, load_scenario):
    scenario = load_scenario("01_plain_finish")
    stdin = io.TextIOWrapper(io.BytesIO(json.dumps(scenario["record"]).encode()))
    monkeypatch.setattr(sys, "stdin", stdin)

    assert replay("-") == (0, scenario["expect"])


@pytest.mark.parametrize(
    "content",
    ['{"format": "domeng-record/1", ', "", b"\xff\xfe\x00garbage"],
    ids=["truncated", "empty", "binary"],
)
def test_a_file_that_is_not_json_is_a_record_invalid_error_object(tmp_path, content):
    status, printed = replay(write(tmp_path, content))

    assert status == 2
    assert printed == {
        "code": "record_invalid",
        "rule": None,
        "round": None,
        "move": None,
        "detail": printed["detail"],
    }
    assert printed["detail"]


def test_a_missing_file_is_a_record_invalid_error_object(tmp_path):
    status, printed = replay(str(tmp_path / "no-such-record.json"))

    assert status == 2
    assert (printed["code"], printed["round"], printed["move"]) == ("record_invalid", None, None)


def test_a_record_of_an_unknown_format_is_a_record_invalid_error_object(tmp_path, load_scenario):
    record = {**load_scenario("01_plain_finish")["record"], "format": "domeng-record/9"}

    status, printed = replay(write(tmp_path, json.dumps(record)))

    assert status == 2
    assert (printed["code"], printed["rule"], printed["round"]) == ("record_invalid", None, None)


def test_the_command_line_exits_2_without_a_traceback_for_a_malformed_file(tmp_path):
    path = write(tmp_path, "not json at all")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"}

    run = subprocess.run(
        [sys.executable, "manage.py", "replay", path],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert run.returncode == 2
    assert json.loads(run.stdout)["code"] == "record_invalid"
    assert "Traceback" not in run.stderr
