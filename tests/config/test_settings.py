"""The settings modules: what each environment reads, and what production refuses to guess."""

from __future__ import annotations

import os
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
