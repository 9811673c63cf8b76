"""Fixtures of the phone web form's tests: games, joined browsers and Debian's Chromium.

Browser tests carry ``@pytest.mark.browser``. They drive ``/usr/bin/chromium`` (or
``$CHROMIUM``) through Playwright against pytest-django's ``live_server``; Playwright
never downloads a browser. Without Chromium they are skipped with a notice, unless
``REQUIRE_BROWSER=1`` (set by ``.ci/run``), which turns the missing browser into a
failure. Screenshots go to ``$SCREENSHOT_DIR`` (``make screenshots``: docs/screenshots)
or, by default, to a temporary directory.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from referee import services
from referee.models import Event, Game

PLAYERS = ["Andi", "Besse", "Cakra", "Daeng", "Evi"]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {"width": 360, "height": 640}
NO_BROWSER = (
    f"browser tests did not run: no Chromium at {CHROMIUM} "
    "(apt-get install -y chromium, or set CHROMIUM=/path/to/chromium)"
)


def _browser_missing() -> str | None:
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        return NO_BROWSER
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:  # pragma: no cover - a dev dependency
        return "browser tests did not run: the playwright package is not installed"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the browser tests without Chromium, loudly; under REQUIRE_BROWSER=1, fail them."""
    reason = _browser_missing()
    if reason is None:
        return
    browser_items = [item for item in items if item.get_closest_marker("browser")]
    if not browser_items:
        return
    if os.environ.get("REQUIRE_BROWSER") == "1":
        raise pytest.UsageError(f"REQUIRE_BROWSER=1 but {reason}")
    for item in browser_items:
        item.add_marker(pytest.mark.skip(reason=reason))


# -- games and joined clients (no browser) --------------------------------------------


@pytest.fixture
def game(db: None) -> Game:
    """A new game with default rules and the seats Andi, Besse, Cakra, Daeng, Evi."""
    return services.game_create(players=list(PLAYERS))


@pytest.fixture
def scorekeeper() -> Callable[[Game], services.Actor]:
    """A scorekeeper's ``Actor`` for entering a game's events directly through the services."""

    def make(game: Game) -> services.Actor:
        _, token = services.table_join(join_code=game.join_code)
        return services.Actor(token=token)

    return make


def enter(game: Game, actor: services.Actor, moves: list[dict[str, Any]]) -> None:
    """Enter ``moves`` (record form) through ``event_submit``, each accepted."""
    for move in moves:
        kind = "reveal" if ("tiles" in move or "pips" in move) else "move"
        services.event_submit(game_id=game.pk, kind=kind, payload=move, actor=actor)


def live_events(game: Game) -> int:
    return Event.objects.filter(game=game, revoked_by__isnull=True).count()


@pytest.fixture
def joined() -> Callable[..., Client]:
    """A browser session (Django's test client) joined to ``game`` through the join pages."""

    def join(game: Game, seat: int | None = None, **headers: str) -> Client:
        client = Client(headers=headers or None)
        response = client.post(f"/join/{game.join_code}/", {"seat": "" if seat is None else seat})
        assert response.status_code == 302, response.content
        assert response["Location"] == "/table/"
        return client

    return join


# -- the browser ------------------------------------------------------------------------


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    """Debian's Chromium, headless, launched once per test session."""
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop in this thread; the tests' own ORM
    # calls (setting games up, counting events) are plain synchronous code.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    playwright = sync_playwright().start()
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    try:
        yield browser
    finally:
        browser.close()
        playwright.stop()
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def phone(chromium: Any, live_server: Any) -> Iterator[Callable[..., Any]]:
    """Open a new phone (its own cookies) at 360×640 on the live server: ``phone(locale=…)``."""
    contexts = []

    def open_phone(locale: str = "en-GB") -> Any:
        context = chromium.new_context(
            viewport=PHONE,
            device_scale_factor=1,
            locale=locale,
            base_url=live_server.url,
            has_touch=True,
        )
        context.set_default_timeout(10_000)
        contexts.append(context)
        return context.new_page()

    yield open_phone
    for context in contexts:
        context.close()


@pytest.fixture(scope="session")
def screenshot_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    configured = os.environ.get("SCREENSHOT_DIR")
    if configured:
        path = Path(configured)
        path.mkdir(parents=True, exist_ok=True)
        return path
    return tmp_path_factory.mktemp("screenshots")


@pytest.fixture
def screenshot(screenshot_dir: Path) -> Callable[..., Path]:
    """Save the phone's screen (360×640) as ``<name>.png`` (``top=True``: scrolled to the top)."""

    def take(page: Any, name: str, *, top: bool = False) -> Path:
        assert re.fullmatch(r"[a-z0-9_-]+", name)
        # Let table.js finish sending a tap (html[data-sending] meanwhile), then paint twice.
        page.wait_for_function("() => !document.documentElement.dataset.sending")
        page.wait_for_timeout(50)
        if top:
            page.evaluate("window.scrollTo(0, 0)")
        page.evaluate(
            "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
        )
        path = screenshot_dir / f"{name}.png"
        page.screenshot(path=str(path))
        return path

    return take
