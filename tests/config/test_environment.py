"""Every variable the settings read: empty means unset, a malformed value is one line naming it."""

from __future__ import annotations

import os
import re
import runpy
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from config.settings.environment import ConfigurationError, Environment

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION_ENV = {
    "DATABASE_URL": "postgres://domeng@db.internal/domeng",
    "DJANGO_ALLOWED_HOSTS": "domeng.example",
    "DJANGO_SECRET_KEY": "x" * 50,
}
SETTINGS_FILES = [
    *(p for p in sorted((ROOT / "config/settings").glob("*.py")) if p.name != "environment.py"),
    ROOT / "bench/settings.py",
]


def _db_name(s: dict[str, Any]) -> Any:
    return s["DATABASES"]["default"]["NAME"]


# (variable, settings module, a malformed value, what the settings made of it, its default)
VARIABLES: list[tuple[str, str, str | None, Callable[[dict[str, Any]], Any], Any]] = [
    ("DATABASE_URL", "local", "mysql//no-scheme", _db_name, str(ROOT / "db.sqlite3")),
    ("DATABASE_URL", "test", "postgres://", _db_name, "domeng"),
    ("CONN_MAX_AGE", "local", "ten", lambda s: s["DATABASES"]["default"]["CONN_MAX_AGE"], 0),
    (
        "DATABASE_PREPARED_STATEMENTS",
        "test",
        "perhaps",
        lambda s: s["DATABASES"]["default"].get("OPTIONS", {}).get("prepare_threshold"),
        0,
    ),
    (
        "DJANGO_SECRET_KEY",
        "local",
        None,
        lambda s: s["SECRET_KEY"],
        "django-insecure-local-development-only",
    ),
    ("DJANGO_SECRET_KEY", "test", None, lambda s: s["SECRET_KEY"], "django-insecure-test-only"),
    ("DJANGO_DEBUG", "local", "flase", lambda s: s["DEBUG"], True),
    (
        "DJANGO_ALLOWED_HOSTS",
        "local",
        "a.example,,b.example",
        lambda s: s["ALLOWED_HOSTS"],
        ["127.0.0.1", "localhost", "[::1]"],
    ),
    ("DJANGO_LOG_LEVEL", "base", "LOUD", lambda s: s["LOGGING"]["root"]["level"], "INFO"),
    (
        "SCORE_THROTTLE_RATE",
        "base",
        "thirty",
        lambda s: s["REST_FRAMEWORK"]["DEFAULT_THROTTLE_RATES"]["score"],
        "60/min",
    ),
    ("DJANGO_NUM_PROXIES", "base", "-1", lambda s: s["REST_FRAMEWORK"]["NUM_PROXIES"], 0),
    ("DJANGO_TIME_ZONE", "base", "Mars/Olympus", lambda s: s["TIME_ZONE"], "UTC"),
    (
        "DJANGO_EMAIL_BACKEND",
        "base",
        None,
        lambda s: s["EMAIL_BACKEND"],
        "django.core.mail.backends.console.EmailBackend",
    ),
    (
        "DJANGO_DEFAULT_FROM_EMAIL",
        "base",
        None,
        lambda s: s["DEFAULT_FROM_EMAIL"],
        "domeng@localhost",
    ),
    (
        "JOIN_LOCKOUT_ADDRESS_FAILURES",
        "base",
        "0",
        lambda s: s["JOIN_LOCKOUT_ADDRESS_FAILURES"],
        3000,
    ),
    (
        "JOIN_LOCKOUT_NEW_DEVICE_FAILURES",
        "base",
        "0",
        lambda s: s["JOIN_LOCKOUT_NEW_DEVICE_FAILURES"],
        3,
    ),
    ("TABLE_PROBE_LIMIT", "base", "six", lambda s: s["TABLE_PROBE_LIMIT"], 6),
    ("TABLE_PROBE_SECONDS", "base", "0", lambda s: s["TABLE_PROBE_SECONDS"], 600),
    ("GC_THRESHOLD", "base", "-1", lambda s: s["GC_THRESHOLD"], 10_000),
    ("SCORE_MAX_BODY_BYTES", "base", "256k", lambda s: s["SCORE_MAX_BODY_BYTES"], 256 * 1024),
    ("SCORE_MAX_ROUNDS", "base", "many", lambda s: s["SCORE_MAX_ROUNDS"], 500),
    ("LOGIN_LOCKOUT_FAILURES", "base", "ten", lambda s: s["AXES_FAILURE_LIMIT"], 10),
    (
        "LOGIN_LOCKOUT_SECONDS",
        "base",
        "15m",
        lambda s: s["AXES_COOLOFF_TIME"].total_seconds(),
        900,
    ),
    ("JOIN_LOCKOUT_FAILURES", "base", "0", lambda s: s["JOIN_LOCKOUT_FAILURES"], 30),
    ("JOIN_LOCKOUT_SECONDS", "base", "10m", lambda s: s["JOIN_LOCKOUT_SECONDS"], 600),
    ("DJANGO_SECURE_SSL_REDIRECT", "production", "maybe", lambda s: s["SECURE_SSL_REDIRECT"], True),
    ("DJANGO_SECURE_HSTS_SECONDS", "production", "1e3", lambda s: s["SECURE_HSTS_SECONDS"], 60),
    (
        "DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS",
        "production",
        "yes please",
        lambda s: s["SECURE_HSTS_INCLUDE_SUBDOMAINS"],
        True,
    ),
    ("BENCH_DB_CONNECTIONS", "bench", "pooled", lambda s: s["BENCH_DB_CONNECTIONS"], "pool"),
    ("BENCH_POOL_SIZE", "bench", "0", lambda s: s["size"], 4),
]
REQUIRED_IN_PRODUCTION = ["DATABASE_URL", "DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS"]
MODULES = {
    "base": "config.settings.base",
    "local": "config.settings.local",
    "test": "config.settings.test",
    "production": "config.settings.production",
    "bench": "bench.settings",
}
ALL_VARIABLES = sorted({v[0] for v in VARIABLES})


def _settings(monkeypatch: pytest.MonkeyPatch, module: str, **env: str) -> dict[str, Any]:
    """Run a settings module afresh with only ``env`` (plus production's, where it needs them)."""
    for variable in ALL_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    base_env = PRODUCTION_ENV if module in {"production", "bench"} else {}
    for variable, value in {**base_env, **env}.items():
        monkeypatch.setenv(variable, value)
    with warnings.catch_warnings():  # runpy warns that the module was imported before
        warnings.simplefilter("ignore", RuntimeWarning)
        return runpy.run_module(MODULES[module])


def test_the_table_lists_every_variable_the_settings_read():
    read = set()
    for path in SETTINGS_FILES:
        read |= set(re.findall(r'env\.\w+\(\s*"([A-Z_]+)"', path.read_text()))

    assert read == set(ALL_VARIABLES)


@pytest.mark.parametrize(
    ("variable", "module", "read", "default"),
    [(v, m, r, d) for v, m, _bad, r, d in VARIABLES],
    ids=[f"{v}-{m}" for v, m, *_ in VARIABLES],
)
@pytest.mark.parametrize("empty", ["", "   "])
def test_an_empty_variable_means_unset(monkeypatch, variable, module, read, default, empty):
    unset = read(_settings(monkeypatch, module))

    emptied = read(_settings(monkeypatch, module, **{variable: empty}))

    assert emptied == unset == default


@pytest.mark.parametrize(
    ("variable", "module", "malformed"),
    [(v, m, bad) for v, m, bad, _r, _d in VARIABLES if bad is not None],
    ids=[f"{v}-{m}" for v, m, bad, *_ in VARIABLES if bad is not None],
)
def test_a_malformed_variable_is_an_error_naming_it(monkeypatch, variable, module, malformed):
    with pytest.raises(ConfigurationError) as raised:
        _settings(monkeypatch, module, **{variable: malformed})

    assert raised.value.variable == variable
    assert str(raised.value).startswith(f"{variable} must be")
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize("variable", REQUIRED_IN_PRODUCTION)
@pytest.mark.parametrize("empty", ["", " "])
def test_production_refuses_an_empty_required_variable_by_name(monkeypatch, variable, empty):
    with pytest.raises(ConfigurationError) as raised:
        _settings(monkeypatch, "production", **{variable: empty})

    assert raised.value.variable == variable


def test_a_malformed_database_url_is_not_repeated_in_the_error(monkeypatch):
    with pytest.raises(ConfigurationError) as raised:
        _settings(monkeypatch, "local", DATABASE_URL="nosuch://admin:hunter2@db/x")

    assert "hunter2" not in str(raised.value)


def test_a_value_starting_with_a_dollar_is_taken_literally():
    env = Environment({"DJANGO_SECRET_KEY": "$HOME-is-not-looked-up"})

    assert env.str("DJANGO_SECRET_KEY") == "$HOME-is-not-looked-up"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1", True),
        ("TRUE", True),
        ("on", True),
        ("yes", True),
        ("0", False),
        ("False", False),
        ("off", False),
        ("no", False),
    ],
)
def test_a_boolean_takes_the_usual_spellings(value, expected):
    assert Environment({"FLAG": value}).bool("FLAG") is expected


@pytest.mark.parametrize("value", ["5000" + "0" * 5000, "٣", "+3", " 3 4", "3.0"])
def test_a_whole_number_is_plain_decimal_digits(value):
    with pytest.raises(ConfigurationError, match="^N must be a whole number"):
        Environment({"N": value}).int("N", minimum=0)


def _manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in ALL_VARIABLES and k != "DJANGO_SETTINGS_MODULE"
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_manage_py_runs_with_an_empty_database_url():
    run = _manage("check", DATABASE_URL="")

    assert run.returncode == 0, run.stderr


def test_manage_py_says_a_malformed_variable_in_one_line_without_a_traceback():
    run = _manage("check", DJANGO_NUM_PROXIES="one")

    assert run.returncode != 0
    assert run.stderr.strip().splitlines() == [
        "configuration error: DJANGO_NUM_PROXIES must be a whole number >= 0, not 'one'"
    ]


def test_prepared_statements_can_be_turned_off_for_a_pooler(monkeypatch):
    """Behind a pooler in transaction mode: ``DATABASE_PREPARED_STATEMENTS=false``."""
    on = _settings(monkeypatch, "test")
    off = _settings(monkeypatch, "test", DATABASE_PREPARED_STATEMENTS="false")

    assert on["DATABASES"]["default"]["OPTIONS"]["prepare_threshold"] == 0
    assert "prepare_threshold" not in off["DATABASES"]["default"].get("OPTIONS", {})
