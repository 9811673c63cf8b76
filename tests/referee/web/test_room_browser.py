"""The room view in a real browser: a TV at a club night sees a table move without a reload.

Debian's Chromium through Playwright against the live server; the move goes in through
the REST API as a phone would send it. Screenshots: ``30-room-tv`` (1280×720) and
``31-room-phone`` (360×640).
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from referee import services
from scoring import room
from scoring.models import Club, Player
from tests.factories import UserFactory, table_key
from tests.referee.conftest import table_client
from tests.referee.web.conftest import PHONE, enter
from tests.referee.web.walks import CEKI_WITH_A_PASS, record_move
from tests.scoring.factories import ClubFactory, OrganiserFactory, PlayerFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TV = {"width": 1280, "height": 720}


@pytest.fixture
def club_night() -> tuple[Club, list[Any]]:
    """A club, its organiser and two open tables: one settled a CEKI round, one in play."""
    club = ClubFactory(name="Makassar Domeng Club", slug="makassar")
    organiser = OrganiserFactory(club=club, user=UserFactory(username="director")).user
    names = ["Andi", "Besse", "Cakra", "Daeng", "Evi", "Fajar", "Gita", "Hasan", "Ina"]
    players = [PlayerFactory(club=club, display_name=name) for name in names]
    games = []
    for seated in (players[:5], [*players[5:9], "Guest Lia"]):
        games.append(
            services.game_create(
                players=[p.pk if isinstance(p, Player) else p for p in seated],
                club=club,
                created_by=organiser,
            )
        )
    _, token = services.table_join(join_code=games[0].join_code)
    enter(games[0], services.Actor(token=token), [record_move(*s) for s in CEKI_WITH_A_PASS])
    return club, games


def test_the_room_view_shows_a_move_entered_through_the_api_without_a_reload(
    chromium, live_server, club_night, screenshot
) -> None:
    club, (settled, playing) = club_night
    context = chromium.new_context(viewport=TV, base_url=live_server.url, locale="en-GB")
    try:
        page = context.new_page()
        page.goto(room.room_url(club))
        table = page.locator(f'.room-table[data-game="{playing.pk}"]')
        expect(table.locator(".last")).to_contain_text("No tile on the table yet.")
        expect(page.locator(f'.room-table[data-game="{settled.pk}"]')).to_contain_text("CEKI!")
        page.evaluate("window.notReloaded = true")
        screenshot(page, "30-room-tv")

        phone = table_client(table_key(game=playing))  # a scorekeeper's phone
        answer = phone.post(
            f"/api/v1/games/{playing.pk}/moves/", {"seat": 0, "tile": "6-6"}, format="json"
        )
        assert answer.status_code == 201, answer.content

        expect(table.locator(".last")).to_contain_text("Fajar played 6-6")
        expect(table.locator("tr.turn")).to_have_attribute("data-seat", "1")
        assert page.evaluate("window.notReloaded") is True  # merged in, not reloaded
        phone.post(f"/api/v1/games/{playing.pk}/moves/", {"seat": 1, "pass": True}, format="json")
        expect(table.locator(".last")).to_contain_text("Gita passed")
        expect(table.locator("tr[data-seat='1'] td.stones")).not_to_have_text("0")
    finally:
        context.close()


@pytest.mark.parametrize("language", ["en-GB", "fr", "id", "pl"])
def test_the_room_view_reads_on_a_phone_too(phone, club_night, screenshot, language) -> None:
    club, _ = club_night
    page = phone(locale=language)
    page.goto(room.room_url(club))
    expect(page.locator("html")).to_have_attribute("lang", language[:2])
    expect(page.locator(".room-table")).to_have_count(2)
    expect(page.locator(".room-standings tbody tr")).to_have_count(5)  # the CEKI round's five
    width = page.evaluate("document.documentElement.scrollWidth")
    if language == "en-GB":
        screenshot(page, "31-room-phone", top=True)
    assert width <= PHONE["width"]  # nothing wider than the phone


@pytest.mark.parametrize("viewport", [{"width": 1920, "height": 1080}, PHONE])
def test_the_seat_to_play_is_no_smaller_than_the_others(
    chromium, live_server, club_night, viewport
):
    """Issue 28: at 1920×1080 the row of the player to move stayed 21.6 px high while the
    other rows grew with the screen; it must be at least as tall and as large as they are."""
    club, (settled, _) = club_night  # its winner leads round 2 (R5)
    context = chromium.new_context(viewport=viewport, base_url=live_server.url, locale="en-GB")
    try:
        page = context.new_page()
        page.goto(room.room_url(club))
        rows = page.locator(f'.room-table[data-game="{settled.pk}"] tr.seat')
        expect(rows.first).to_be_visible()
        sizes = rows.evaluate_all(
            """rows => rows.map(r => [r.classList.contains('turn'),
                 r.getBoundingClientRect().height,
                 parseFloat(getComputedStyle(r.querySelector('th')).fontSize)])"""
        )
        turn = [s for s in sizes if s[0]]
        others = [s for s in sizes if not s[0]]
        assert len(turn) == 1
        assert len(others) == 4
        assert turn[0][1] >= max(s[1] for s in others) - 0.5, sizes
        assert turn[0][2] >= max(s[2] for s in others), sizes
    finally:
        context.close()
