"""What the phone shows over and around its tiles (issue 28), in Debian's Chromium.

A correction of an earlier round by the organiser (R35–R37) appears on an open phone as a
notice (a live region) naming the round and each seat's stones before → after; the
banners at the bottom of the screen ("Sending…", "Not sent yet", no connection, "The table
just changed") never cover a tile button, at 360×640 and at 1920×1080.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from referee import services
from referee.services import corrections
from tests.factories import UserFactory
from tests.referee.web import test_browser as ui
from tests.referee.web.conftest import PHONE, enter
from tests.referee.web.walks import CEKI_WITH_A_PASS, record_move

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1920, "height": 1080}

# The tile buttons a shown banner covers, by their tile, and how many tiles there are.
COVERED = """() => {
  const banners = [...document.getElementById("dock").children]
    .filter((el) => !el.hidden).map((el) => el.getBoundingClientRect());
  const tiles = [...document.querySelectorAll("#live .picker .tile")];
  const covered = tiles.filter((tile) => {
    const r = tile.getBoundingClientRect();
    return banners.some((b) =>
      r.left < b.right && r.right > b.left && r.top < b.bottom && r.bottom > b.top);
  });
  return {
    banners: banners.length, tiles: tiles.length, covered: covered.map((t) => t.dataset.tile),
  };
}"""


def covered(page: Any) -> dict[str, Any]:
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    return page.evaluate(COVERED)  # type: ignore[no-any-return]


def at_size(phone: Any, size: dict[str, int]) -> Any:
    page = phone()
    page.set_viewport_size(size)
    return page


# -- a correction of an earlier round (R35–R37) -------------------------------------------


def test_an_organisers_correction_of_an_earlier_round_appears_on_an_open_phone_R36(
    phone, game, scorekeeper, screenshot
) -> None:
    enter(game, scorekeeper(game), [record_move(*move) for move in CEKI_WITH_A_PASS])
    page = phone()
    ui.join(page, game, seat=1)
    region = page.locator("#notices")
    expect(region).to_have_attribute("role", "status")
    expect(region).to_be_empty()
    shown = ui.version(page)

    corrections.round_adjust(
        game_id=game.pk,
        round=1,
        source=4,
        to=3,
        stones=2,
        reason="miscounted",
        actor=services.Actor(user=UserFactory()),
    )
    ui.wait_for_version(page, shown + 1)

    expect(region).to_have_text("Round 1 adjusted: Daeng 2 → 4, Evi 3 → 1.")
    expect(page.locator(".seats tr[data-seat='3'] .stones")).to_have_text("4")
    screenshot(page, "correction-notice")
    ui.settled(page)
    page.click(".notices .dismiss button")
    expect(region).to_be_empty()
    page.reload()
    expect(page.locator("#notices")).to_be_empty()  # dismissed on this phone, kept so


# -- the bottom banners and the tile buttons ----------------------------------------------


SIZES = pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["360x640", "1920x1080"])


@SIZES
@pytest.mark.parametrize("answer", ["lost", "pending"])
def test_a_tap_not_sent_yet_or_still_sending_covers_no_tile_button(
    phone, game, scorekeeper, size, answer
) -> None:
    enter(game, scorekeeper(game), [{"seat": 0, "tile": "6-6"}])
    page = at_size(phone, size)
    ui.join(page, game, seat=1)  # Besse's turn: the page brings her tiles into view
    ui.settled(page)
    held: list[Any] = []
    if answer == "lost":
        page.route("**/table/move/", lambda route: route.abort("internetdisconnected"))
    else:
        page.route("**/table/move/", lambda route: held.append(route))  # no answer yet

    page.click('.picker [data-tile="1-6"]')
    words = "Not sent yet" if answer == "lost" else "Sending to the referee"
    expect(page.locator("#outbox")).to_be_visible()
    expect(page.locator("#outbox")).to_contain_text(words)

    found = covered(page)
    assert found["banners"] == 1
    assert found["tiles"] == 28
    assert found["covered"] == []
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    assert covered(page)["covered"] == []  # the page's end stays free of the banner
    for route in held:
        route.abort("internetdisconnected")


@SIZES
def test_no_connection_covers_no_tile_button_of_the_scorekeeper(
    phone, game, scorekeeper, size
) -> None:
    enter(game, scorekeeper(game), [{"seat": 0, "tile": "6-6"}])
    page = at_size(phone, size)
    ui.join(page, game)  # the scorekeeper's page is not scrolled to the tiles
    ui.settled(page)

    page.context.set_offline(True)
    expect(page.locator("#net")).to_be_visible()
    expect(page.locator("#net")).to_contain_text("No connection to the referee")

    found = covered(page)
    assert found["banners"] == 1
    assert found["tiles"] == 28
    assert found["covered"] == []
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    assert covered(page)["covered"] == []
    page.context.set_offline(False)
