"""The pictures and the printed sheet in Chromium (Playwright): a game's stones over its
rounds (R24, R27) and a player's evenings, readable at 360×640 and 1920×1080, and the
evening's results printed on one A4 page. Screenshots ``40-picture-*.png``
(``make screenshots``: docs/screenshots/)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from referee import services
from referee.models import Game
from scoring.models import Club, Player
from tests.referee.web.conftest import PHONE, PLAYERS, enter
from tests.referee.web.walks import CEKI_WITH_A_PASS, record_move

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct horse battery"
CEKI = [record_move(*step) for step in CEKI_WITH_A_PASS]
TV = {"width": 1920, "height": 1080}
PAGE = re.compile(rb"/Type\s*/Page\b")  # a PDF's page objects (not /Pages)


@pytest.fixture
def evening(django_user_model: Any, scorekeeper: Any) -> tuple[Club, Game, list[Player]]:
    """A club's game with four rounds to a CEKI (R15), entered from the table."""
    from tests.scoring.factories import ClubFactory, OrganiserFactory, PlayerFactory

    club = ClubFactory(name="Makassar Domeng Club", slug="makassar")
    director = OrganiserFactory(
        club=club, user=django_user_model.objects.create_user("orga", password=PASSWORD)
    ).user
    seated = [PlayerFactory(club=club, display_name=name) for name in PLAYERS]
    game = services.game_create(players=[p.pk for p in seated], club=club, created_by=director)
    for _ in range(4):
        enter(game, scorekeeper(game), CEKI)
    return club, game, seated


def signed_in(chromium: Any, live_server: Any, viewport: dict[str, int]) -> Any:
    context = chromium.new_context(
        viewport=viewport, device_scale_factor=1, locale="en-GB", base_url=live_server.url
    )
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto("/games/")
    page.fill("input[name=username]", "orga")
    page.fill("input[name=password]", PASSWORD)
    page.click("form.join button[type=submit]")
    expect(page.locator("h1")).to_contain_text("Games of the evening")
    return page


def readable(page: Any, picture: str, width: int, series: int) -> None:
    """The picture fits the screen (no sideways scroll), fills most of its card, its
    legend names every series inside the drawing (none cut off) in letters at least
    9 px high."""
    svg = page.locator(f"#{picture} svg")
    expect(svg).to_be_visible()
    box = svg.bounding_box()
    assert box["width"] <= width
    assert box["width"] >= min(width, 880) * 0.75
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    legends = page.evaluate(
        f"""[...document.querySelectorAll('#{picture} svg .legends text')]
              .map(t => t.getBoundingClientRect()).map(r => [r.height, r.bottom, r.right])"""
    )
    assert len(legends) == series
    for height, bottom, right in legends:
        assert height >= 9
        assert bottom <= box["y"] + box["height"] + 0.5
        assert right <= box["x"] + box["width"] + 0.5


@pytest.mark.parametrize(("viewport", "name"), [(PHONE, "phone"), (TV, "tv")])
def test_the_games_stones_read_on_a_phone_and_on_the_tv(
    chromium, live_server, evening, screenshot, viewport, name
) -> None:
    _, game, _ = evening
    page = signed_in(chromium, live_server, viewport)

    page.goto(f"/games/{game.pk}/manage/#stones-picture")

    readable(page, "game-stones", viewport["width"], series=5)
    assert page.locator("#game-stones .picture-numbers tbody tr").count() == 4
    assert page.locator("#game-stones script").count() == 0
    page.locator("#stones-picture").scroll_into_view_if_needed()
    screenshot(page, f"40-picture-game-{name}")
    page.context.close()


def test_a_players_evenings_read_on_a_phone(chromium, live_server, evening, screenshot) -> None:
    club, _, seated = evening
    page = signed_in(chromium, live_server, PHONE)

    page.goto(f"/clubs/{club.slug}/standings/")
    page.click(f'#standings a[href*="player={seated[4].pk}"]')

    readable(page, "player-evenings", 360, series=2)  # no CAMAT yet: no rating
    expect(page.locator("#evenings h2")).to_contain_text("Evi")
    page.locator("#evenings").scroll_into_view_if_needed()
    screenshot(page, "41-picture-evenings")
    page.context.close()


def test_the_evenings_results_print_on_one_a4_page(chromium, live_server, evening) -> None:
    club, game, seated = evening
    page = signed_in(chromium, live_server, TV)
    printed = page.locator('link[rel=stylesheet][media=print][href*="print.css"]')

    for path in (
        f"/games/{game.pk}/manage/",
        f"/clubs/{club.slug}/standings/?player={seated[0].pk}",
    ):
        page.goto(path)
        expect(printed).to_have_count(1)
        page.emulate_media(media="print")
        assert page.locator("header.top").is_hidden()  # nothing to tap is printed
        assert page.locator("main form").first.is_hidden()
        assert page.locator("main svg").first.is_visible()  # the picture is
        pdf = page.pdf(format="A4", print_background=False)
        assert len(PAGE.findall(pdf)) == 1, path
        page.emulate_media(media="screen")
    page.context.close()
