"""`make run`'s SQLite database with a table's phones writing at once (and what it overflows on).

Each test runs Django in a fresh interpreter with the local settings and a
temporary SQLite file, migrated once for the module.
"""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import pytest

from tests.config.test_settings import run_python

SETUP = """
import json, sys, threading
import django
django.setup()
from django.db import connection, connections
"""


@pytest.fixture(scope="module")
def sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    url = f"sqlite:///{Path(tmp_path_factory.mktemp('sqlite')) / 'db.sqlite3'}"
    run = run_sqlite(
        """
        from django.core.management import call_command
        call_command("migrate", verbosity=0)
        """,
        url,
    )
    assert run.returncode == 0, run.stderr
    return url


def run_sqlite(code: str, url: str) -> subprocess.CompletedProcess[str]:
    return run_python(
        SETUP + textwrap.dedent(code),
        DATABASE_URL=url,
        DJANGO_SETTINGS_MODULE="config.settings.local",
    )


def test_the_sqlite_database_waits_for_its_write_lock_begins_writes_at_once_and_uses_wal(
    sqlite_url: str,
) -> None:
    run = run_sqlite(
        """
        options = connection.settings_dict["OPTIONS"]
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA journal_mode")
            mode = cursor.fetchone()[0]
        print(json.dumps({**options, "journal_mode": mode}))
        """,
        sqlite_url,
    )

    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL;",
        "journal_mode": "wal",
    }


def test_phones_writing_to_one_game_at_once_on_sqlite_all_get_through(sqlite_url: str) -> None:
    """Eight phones, five writes each, at once: each reads the game, then writes (the
    pattern that made a deferred SQLite transaction fail with "database is locked")."""
    run = run_sqlite(
        """
        from referee import services
        from referee.models import Game
        game = services.game_create(players=list("ABCDE"))
        start = threading.Barrier(8)
        errors = []

        def phone():
            try:
                start.wait()
                for _ in range(5):
                    services.session_start(game_id=game.pk, actor=services.Actor())
            except Exception as error:
                errors.append(repr(error))
            finally:
                connections.close_all()

        threads = [threading.Thread(target=phone) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        print(json.dumps({"errors": errors, "version": Game.objects.get(pk=game.pk).version}))
        """,
        sqlite_url,
    )

    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == {"errors": [], "version": 40}


def test_a_player_id_beyond_any_id_is_an_unknown_player_on_sqlite(sqlite_url: str) -> None:
    """SQLite cannot even bind such a number (OverflowError): it is never sent."""
    run = run_sqlite(
        """
        from django.contrib.auth.models import User
        from scoring import services
        from scoring.exceptions import PlayerNotInClub
        user = User.objects.create(username="overflow")
        club = services.club_create(name="Overflow", slug="overflow", created_by=user)
        codes = []
        for seat in (10**30, {"player": 2**63}, -(2**70)):
            try:
                services.game_league_resolve(
                    players=[seat, "B", "C", "D", "E"], club=club, created_by=user
                )
            except PlayerNotInClub as error:
                codes.append(error.code)
        print(json.dumps(codes))
        """,
        sqlite_url,
    )

    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == ["player_not_in_club"] * 3
