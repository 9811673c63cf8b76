"""Fixtures shared by the whole suite: the worked scenarios of tests/data/scenarios."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache
from django.test.client import Client
from django.utils import translation

from tests import openapi_responses
from tests.openapi_responses import checking

DATA_DIR = Path(__file__).parent / "data"
SCENARIO_PATHS = sorted((DATA_DIR / "scenarios").glob("*.json"))
# An empty list would turn every scenario test into a silent skip.
assert SCENARIO_PATHS, f"no worked scenarios in {DATA_DIR / 'scenarios'}"


def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA_DIR / "scenarios" / f"{name}.json").read_text())
    return data


@pytest.fixture(params=[path.stem for path in SCENARIO_PATHS])
def worked_scenario(request: pytest.FixtureRequest) -> dict[str, Any]:
    """Each worked scenario in turn: ``{"description", "record", "expect"}``.

    ``expect`` is a full result, or an error object (``code``, ``rule``, ``round``, ``move``).
    """
    return _load(request.param)


@pytest.fixture
def load_scenario() -> Callable[[str], dict[str, Any]]:
    """Load one scenario by its file stem, e.g. ``load_scenario("01_plain_finish")``."""
    return _load


@pytest.fixture(autouse=True)
def _default_language() -> Iterator[None]:
    """Each test starts and ends in the default language. A request answered in another
    language leaves that language active in the thread (``LocaleMiddleware`` activates, never
    deactivates), which would decide what the next test's code reads from ``get_language()``
    (a spreadsheet's separator, a message's text)."""
    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _fresh_cache(request: pytest.FixtureRequest, django_db_blocker: Any) -> Iterator[None]:
    """Throttle counts and lockouts live in the database cache. A test in a transaction
    leaves none behind (its rollback takes them); a transactional test or a live server
    commits them, so the cache is cleared after it: no test inherits another's counts."""
    yield
    marker = request.node.get_closest_marker("django_db")
    committed = {"transactional_db", "live_server"} & set(request.fixturenames) or (
        marker is not None and marker.kwargs.get("transaction")
    )
    if committed:
        with django_db_blocker.unblock():
            cache.clear()


@pytest.fixture(autouse=True)
def _responses_as_documented(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every response of the API a test client receives is checked against its operation in
    the OpenAPI schema (tests/openapi_responses.py, issue 31): a body, status, media type or
    header the schema does not allow fails the test."""
    monkeypatch.setattr(Client, "request", checking(Client.request))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """How many API responses the run held to the schema (issue 31)."""
    counts = openapi_responses.COUNTS
    if counts:
        terminalreporter.write_line(
            f"API responses checked against the OpenAPI schema: {counts['checked']} "
            f"({counts['problem_only']} as a problem alone, without an operation); "
            f"refused: {counts['refused']}"
        )
