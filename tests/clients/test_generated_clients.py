"""Other apps integrate from the schema alone: a Python client generated from it
(openapi-python-client, pinned in pyproject's dev extra) plays a whole game at a live
server, and the script that drives it passes ``mypy --strict``.

The TypeScript half (openapi-typescript types, ``tsc --strict``) runs in ``make test``
(``make clients-check``), where the pinned npm packages are installed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from rest_framework.authtoken.models import Token

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BIN = Path(sys.executable).parent
# An attrs class's field, e.g. ``    state: GameState | Unset = UNSET``.
ATTRIBUTE = re.compile(r"^    (?P<name>\w+): (?P<type>[^=\n]+)", re.MULTILINE)
SCENARIO = ROOT / "tests" / "data" / "scenarios" / "g101_generated_40_rounds.json"


def run(*args: object, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", **env}
    return subprocess.run(
        [str(a) for a in args], cwd=cwd, env=environment, capture_output=True, text=True
    )


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding ``domeng_client``, generated from the schema of this code."""
    out = tmp_path_factory.mktemp("clients")
    schema = out / "openapi.json"
    call_command("spectacular", "--format", "openapi-json", "--file", str(schema))
    generate = run(
        BIN / "openapi-python-client",
        "generate",
        "--path",
        schema,
        "--output-path",
        out / "domeng_client",
        "--meta",
        "none",
        "--config",
        HERE / "openapi-python-client.yaml",
        cwd=out,
    )
    assert generate.returncode == 0, generate.stdout + generate.stderr
    assert "Warning" not in generate.stdout + generate.stderr, generate.stdout + generate.stderr
    shutil.copy(HERE / "play_game.py", out)
    return out


def test_the_generated_python_client_has_no_untyped_field(generated: Path) -> None:
    models = sorted((generated / "domeng_client" / "models").glob("*.py"))
    assert len(models) > 40

    fields = [
        (model.name, match) for model in models for match in ATTRIBUTE.finditer(model.read_text())
    ]
    untyped = [
        f"{name}: {field[0]}"
        for name, field in fields
        if "Any" in field[0] and field["name"] != "additional_properties"
    ]

    assert len(fields) > 300

    assert untyped == []


def test_the_play_script_passes_mypy_strict_against_the_generated_client(
    generated: Path,
) -> None:
    checked = run(
        BIN / "mypy",
        "--config-file",
        HERE / "mypy.ini",
        "--cache-dir",
        ROOT / ".mypy_cache" / "clients",  # warm across runs: typeshed, httpx, attrs
        "play_game.py",
        cwd=generated,
    )

    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "Success: no issues found" in checked.stdout


@pytest.mark.django_db(transaction=True)
def test_a_whole_game_plays_through_the_generated_client_only(generated: Path, live_server) -> None:
    organiser = get_user_model().objects.create_user("organiser", password="x")
    token = Token.objects.create(user=organiser).key

    played = run(
        sys.executable,
        "play_game.py",
        live_server.url,
        token,
        SCENARIO,
        "5",
        cwd=generated,
        PYTHONPATH=str(generated),
    )

    output = played.stdout + played.stderr
    assert played.returncode == 0, output
    assert "Refused: not_your_turn (R8) round 1" in output
    assert "Declared: seat" in output
    assert "Amended: event" in output
    assert "Undone and entered again" in output
    assert "applied once" in output
    assert "Round  5  blocked" in output
    assert "Check OK" in output
