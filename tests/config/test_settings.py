"""The settings modules: what each environment reads, and what production refuses to guess."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION_ENV = {
    "DATABASE_URL": "postgres://domeng@db.internal/domeng",
    "DJANGO_ALLOWED_HOSTS": "domeng.example",
    "DJANGO_SECRET_KEY": "x" * 50,
}


def run_python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter with none of our variables but ``env``."""
    clean = {
        k: v for k, v in os.environ.items() if not k.startswith("DJANGO_") and k != "DATABASE_URL"
    }
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.django_db
def test_the_tests_run_on_postgresql():
    assert connection.vendor == "postgresql"


def test_the_site_speaks_english_french_polish_and_indonesian():
    assert [code for code, _name in settings.LANGUAGES] == ["en", "fr", "pl", "id"]
    assert settings.USE_I18N
    assert "django.middleware.locale.LocaleMiddleware" in settings.MIDDLEWARE


def test_production_starts_with_its_environment_set():
    run = run_python("import config.settings.production", **PRODUCTION_ENV)

    assert run.returncode == 0, run.stderr


@pytest.mark.parametrize("missing", ["DJANGO_SECRET_KEY", "DATABASE_URL", "DJANGO_ALLOWED_HOSTS"])
def test_production_refuses_to_start_without_each_required_variable(missing):
    env = {k: v for k, v in PRODUCTION_ENV.items() if k != missing}

    run = run_python("import config.settings.production", **env)

    assert run.returncode != 0
    assert missing in run.stderr


def test_local_settings_default_to_a_sqlite_file_in_the_checkout():
    run = run_python(
        "from config.settings.local import DATABASES; print(DATABASES['default']['NAME'])"
    )

    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == str(ROOT / "db.sqlite3")


def test_local_settings_let_the_tables_phones_in_by_the_address_they_use():
    run = run_python(
        "from config.settings.local import ALLOWED_HOSTS; print(' '.join(ALLOWED_HOSTS))",
        DJANGO_ALLOWED_HOSTS="192.168.1.20,domeng.local",
    )

    assert run.returncode == 0, run.stderr
    hosts = run.stdout.split()
    assert {"192.168.1.20", "domeng.local"} <= set(hosts)
    assert {"127.0.0.1", "localhost"} <= set(hosts)  # the organiser's own screen still works


def test_only_a_sqlite_database_gets_the_sqlite_options():
    run = run_python(
        "from config.settings.production import DATABASES; print(DATABASES['default'])",
        **PRODUCTION_ENV,
    )

    assert run.returncode == 0, run.stderr
    assert "transaction_mode" not in run.stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_run_listens_on_the_host_it_is_given():
    def command_line(target: str, command: str, *args: str) -> str:
        run = subprocess.run(
            ["make", "-n", target, *args],
            cwd=ROOT,
            env={k: v for k, v in os.environ.items() if k not in {"HOST", "PORT"}},
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        return next(line for line in run.stdout.splitlines() if command in line)

    # make run: the table's settings (DEBUG off) under waitress; LAN=1 listens on the Wi-Fi.
    serve = command_line("run", "manage.py serve")
    assert serve.startswith("DJANGO_SETTINGS_MODULE=config.settings.table ")
    assert serve.endswith("serve --host 127.0.0.1 --port 8000")
    assert command_line("run", "manage.py serve", "LAN=1").endswith("--host 0.0.0.0 --port 8000")
    assert command_line("run", "manage.py serve", "HOST=0.0.0.0", "PORT=8001").endswith(
        "--host 0.0.0.0 --port 8001"
    )
    # make dev: Django's development server with the local settings.
    assert command_line("dev", "runserver").endswith("runserver 127.0.0.1:8000")
    assert command_line("dev", "runserver", "HOST=0.0.0.0", "PORT=8001").endswith(
        "runserver 0.0.0.0:8001"
    )


@pytest.mark.parametrize(
    ("module", "env", "proxies"),
    [
        ("local", {}, 0),
        ("production", PRODUCTION_ENV, 0),  # issue 12: trusted only when configured
        ("production", {**PRODUCTION_ENV, "DJANGO_NUM_PROXIES": "1"}, 1),
    ],
)
def test_the_client_behind_the_proxies_in_front_is_who_the_join_lockout_counts(
    module, env, proxies
):
    run = run_python(
        f"from config.settings.{module} import REST_FRAMEWORK as R; print(R['NUM_PROXIES'])",
        **env,
    )

    assert run.returncode == 0, run.stderr
    assert int(run.stdout) == proxies
