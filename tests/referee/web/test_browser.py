"""The phone web form in a real browser: Debian's Chromium at 360×640, driven by Playwright.

Each test joins a table the way a phone does (join code, then a seat or the
scorekeeper) and enters moves by tapping. Screenshots of the main screens are
saved (``make screenshots`` writes them to docs/screenshots/).
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from referee.models import Game
from tests.referee.web.conftest import enter, live_events
from tests.referee.web.walks import BLOCKED, CEKI_WITH_A_PASS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def version(page: Any) -> int:
    return int(page.locator("#live").get_attribute("data-version"))


def wait_for_version(page: Any, number: int) -> None:
    expect(page.locator("#live")).to_have_attribute("data-version", str(number))


def join(page: Any, game: Game, seat: int | None = None, *, screenshot: Any = None) -> None:
    """Type the join code on the home page, then pick the seat (None: scorekeeper)."""
    page.goto("/")
    if screenshot:
        page.fill("input[name=code]", game.join_code[:4].lower() + "-" + game.join_code[4:])
        screenshot(page, "01-join-code")
    page.fill("input[name=code]", game.join_code.lower())
    page.click("form.join button[type=submit]")
    if screenshot:
        screenshot(page, "02-pick-seat")
    page.click(f'.seat-pick button[value="{"" if seat is None else seat}"]')
    expect(page.locator("#live")).to_be_visible()


def settled(page: Any) -> None:
    """Wait until taps are no longer held after a live update changed the entry (table.js)."""
    page.wait_for_function("() => !document.documentElement.dataset.held")


def tap(page: Any, tile: str | None, *, end: int | None = None, lead_seat: int | None = None):
    """One tap on a tile (or PASS); a second tap only for the end or the first lead's seat."""
    settled(page)
    before = version(page)
    if tile is None:
        page.click("form.pass button")
    else:
        page.click(f'.picker [data-tile="{tile}"]')
        if end is not None:
            expect(page.locator(".entry h2")).to_contain_text(tile)
            page.click(f'button[data-end="{end}"]')
        if lead_seat is not None:
            page.click(f'button[data-seat="{lead_seat}"]')
    wait_for_version(page, before + 1)


def test_a_phone_joins_with_the_code_and_picks_its_seat(phone, game, screenshot) -> None:
    page = phone()
    page.goto("/")
    page.fill("input[name=code]", "WRONG-CODE")
    page.click("form.join button[type=submit]")
    expect(page.locator(".flash.error")).to_contain_text("No open game has this join code.")

    join(page, game, seat=1, screenshot=screenshot)

    expect(page.locator(".who .me")).to_contain_text("Besse, seat 1")
    expect(page.locator('tr.me[data-seat="1"]')).to_be_visible()
    # Not Besse's turn before the first lead? The first lead is anyone's: the holder of 6-6.
    expect(page.locator('.picker [data-tile="6-6"]')).to_be_enabled()
    expect(page.locator('.picker [data-tile="1-2"]')).to_be_disabled()


def test_a_round_to_ceki_with_a_pass_and_an_undo(phone, game, screenshot) -> None:
    page = phone()
    join(page, game)
    screenshot(page, "03-first-lead")

    tap(page, "6-6", lead_seat=0)
    for seat, tile, end in CEKI_WITH_A_PASS[1:5]:
        expect(page.locator("tr.turn")).to_have_attribute("data-seat", str(seat))
        tap(page, tile, end=end)
    expect(page.locator(".events li.latest")).to_contain_text("Evi played 3-3")
    assert "PASSEBUNGE" in page.locator(".events").inner_text()

    # A wrong tap for Andi, undone after a confirmation.
    tap(page, "3-5")
    page.click("a.undo")
    expect(page.locator(".entry h2")).to_have_text("Undo the last entry?")
    expect(page.locator(".entry .event")).to_contain_text("Andi played 3-5")
    screenshot(page, "06-undo-confirm")
    before = version(page)
    page.click("form.confirm button")
    wait_for_version(page, before + 1)
    expect(page.locator(".flash.ok")).to_have_text("Undone.")
    expect(page.locator('.picker [data-tile="3-5"]')).to_be_enabled()

    for seat, tile, end in CEKI_WITH_A_PASS[5:-1]:
        expect(page.locator("tr.turn")).to_have_attribute("data-seat", str(seat))
        if tile == "1-2":  # the end chooser, shown at phone size
            page.click('.picker [data-tile="1-2"]')
            expect(page.locator("button[data-end]")).to_have_count(2)
            screenshot(page, "05-end-chooser")
            page.click("a.cancel")  # nothing entered
            expect(page.locator(".picker")).to_be_visible()
        if tile == "1-4":
            screenshot(page, "04-table-in-play", top=True)
        tap(page, tile, end=end)

    # Played tiles are disabled; so is what no open end takes.
    expect(page.locator('.picker [data-tile="6-6"]')).to_be_disabled()
    expect(page.locator('.picker [data-tile="2-3"]')).to_be_enabled()
    tap(page, "2-3", end=2)

    banner = page.locator(".banner")
    expect(banner).to_contain_text("CEKI!")
    expect(banner).to_contain_text("Andi wins round 1.")
    expect(banner).to_contain_text("CUCUQ: Evi")
    expect(page.locator('tr[data-seat="4"] td.stones')).to_have_text("3")
    expect(page.locator('tr[data-seat="3"] td.stones')).to_have_text("2")
    expect(page.locator(".table-stones")).to_contain_text("20 stones")
    # The next round is led by the winner, with any tile (R6).
    expect(page.locator(".entry .turn")).to_contain_text("Andi")
    expect(page.locator('.picker [data-tile="1-2"]')).to_be_enabled()
    screenshot(page, "07-ceki")
    assert live_events(game) == 21


def test_a_blocked_round_is_settled_by_each_seats_reveal(
    phone, game, scorekeeper, screenshot
) -> None:
    enter(game, scorekeeper(game), BLOCKED)
    page = phone()
    join(page, game)
    expect(page.locator(".banner")).to_contain_text("MANGUNO!")
    expect(page.locator(".picker")).to_have_count(0)

    for seat, tiles in ((0, ["0-3", "0-4", "0-5"]), (1, ["0-0", "0-1", "0-2"])):
        page.click(f'[data-reveal="{seat}"]')
        for tile in tiles:
            page.click(f'label.tile[data-tile="{tile}"]')
        if seat == 1:
            screenshot(page, "08-reveal")
        before = version(page)
        page.click("form.reveal button[type=submit]")
        wait_for_version(page, before + 1)
    # Tiles carrying an end everyone passed on (6) cannot be revealed: disabled.
    page.click('[data-reveal="2"]')
    expect(page.locator('label.tile[data-tile="1-6"] input')).to_be_disabled()
    for tile in ("1-1", "1-2", "1-3", "1-4"):
        page.click(f'label.tile[data-tile="{tile}"]')
    page.click("form.reveal button[type=submit]")
    page.click('[data-reveal="3"]')
    for tile in ("1-5", "2-2", "2-4", "2-5"):
        page.click(f'label.tile[data-tile="{tile}"]')
    page.click("form.reveal button[type=submit]")
    page.click('[data-reveal="4"]')
    page.fill("input[name=pips]", "29")
    page.click("form.reveal button[type=submit]")

    banner = page.locator(".banner")
    expect(banner).to_contain_text("Besse wins round 1.")
    expect(banner).to_contain_text("CUCUQ: Andi")
    expect(banner).to_contain_text("Andi 12 · Besse 3 · Cakra 14 · Daeng 23 · Evi 29")
    expect(page.locator(".table-stones")).to_contain_text("19 stones")
    screenshot(page, "09-blocked-settled")


def test_two_phones_at_one_table_stay_in_step(phone, game, screenshot) -> None:
    keeper, besse = phone(), phone()
    join(keeper, game)
    join(besse, game, seat=1)

    tap(keeper, "6-6", lead_seat=0)
    wait_for_version(besse, 1)  # polled within a couple of seconds
    expect(besse.locator(".events li.latest")).to_contain_text("Andi played 6-6")
    # The lead opened sitting 1 (R27); QA: "sitting" and its number wrapped apart at 360 px.
    sitting = besse.locator(".who .sitting")
    expect(sitting).to_have_text("sitting 1")
    assert sitting.evaluate("e => e.getClientRects().length") == 1

    tap(besse, "1-6")
    wait_for_version(keeper, 2)
    expect(keeper.locator(".events li.latest")).to_contain_text("Besse played 1-6")

    settled(keeper)  # the poll just changed what the keeper's taps mean
    keeper.click("a.undo")
    keeper.click("form.confirm button")
    wait_for_version(besse, 3)  # Besse's move is gone on her phone too: her turn again
    expect(besse.locator('.picker [data-tile="1-6"]')).to_be_enabled()

    # Besse's phone hears nothing for a while; meanwhile the scorekeeper enters her move.
    # Besse, still showing version 3, taps it too: the version her page showed is stale,
    # so nothing is applied and the page refreshes and says so.
    besse.route("**/table/live/**", lambda route: route.fulfill(status=204))
    tap(keeper, "1-6")
    assert live_events(game) == 2
    settled(besse)  # her own last update (the undo) may still hold taps for a moment
    besse.click('.picker [data-tile="1-6"]')
    expect(besse.locator(".flash.warning")).to_contain_text("Another phone entered something first")
    wait_for_version(besse, 4)
    assert live_events(game) == 2
    screenshot(besse, "10-another-phone-first")
    besse.unroute("**/table/live/**")


def test_a_lost_answer_is_retried_and_a_double_tap_counts_once(phone, game, scorekeeper):
    enter(game, scorekeeper(game), [{"seat": 0, "tile": "6-6"}])
    page = phone()
    join(page, game)

    lost: list[str] = []

    def lose_the_first_answer(route: Any) -> None:
        if not lost:
            lost.append(route.request.post_data)
            route.fetch()  # the tap reaches the referee…
            route.abort("timedout")  # …but its answer is lost on the way back
        else:
            route.continue_()

    page.route("**/table/move/", lose_the_first_answer)
    tap(page, "1-6")
    expect(page.locator(".flash.ok")).to_contain_text("already been counted")
    assert len(lost) == 1
    assert live_events(game) == 2
    page.unroute("**/table/move/")

    page.locator('.picker [data-tile="1-3"]').dblclick()
    wait_for_version(page, 3)
    page.wait_for_timeout(500)  # let a second request, if any, land
    assert live_events(game) == 3
    expect(page.locator(".events li.latest")).to_contain_text("Cakra played 1-3")


def test_the_language_switch_translates_the_page_and_the_referee(
    phone, game, scorekeeper, screenshot
) -> None:
    enter(game, scorekeeper(game), BLOCKED)
    page = phone()
    join(page, game)
    expect(page.locator(".seats thead")).to_contain_text("Stones")

    page.click('.lang button[value="fr"]')
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(page.locator(".seats thead")).to_contain_text("Pierres")
    expect(page.locator(".table-stones")).to_contain_text("Sur la table : 20 pierres")
    expect(page.locator(".banner")).to_contain_text("MANGUNO!")  # never translated

    # An illegal entry: the referee's message in French, and nothing changes.
    before = live_events(game)
    page.click('[data-reveal="4"]')
    page.fill("input[name=pips]", "99")
    page.click("form.reveal button[type=submit]")
    expect(page.locator(".flash.error")).to_contain_text(
        "Aucun ensemble de 4 dominos que le siège 4 (Evi) pourrait avoir ne fait une somme de 99 "
        "(R33)"
    )
    screenshot(page, "11-refused-in-french")
    assert live_events(game) == before
    assert page.evaluate("document.documentElement.scrollWidth") <= 360  # no sideways scroll

    page.click('.lang button[value="pl"]')
    expect(page.locator(".seats thead")).to_contain_text("Kamienie")

    indonesian = phone(locale="id-ID")  # Accept-Language alone
    join(indonesian, game)
    expect(indonesian.locator("html")).to_have_attribute("lang", "id")
    expect(indonesian.locator(".seats thead")).to_contain_text("Batu")
    for phone_page in (page, indonesian):
        assert phone_page.evaluate("document.documentElement.scrollWidth") <= 360


def test_the_table_fits_a_phone_with_large_touch_targets(phone, game, scorekeeper) -> None:
    moves = [{"seat": s, "tile": t} for s, t, _ in CEKI_WITH_A_PASS[:3]]
    enter(game, scorekeeper(game), moves)
    page = phone()
    join(page, game)
    for url in ("/", "/table/", "/table/?pick=3-6", "/table/?confirm=undo"):
        page.goto(url)
        assert page.evaluate("document.documentElement.scrollWidth") <= 360, url
        small = page.evaluate(
            """() => [...document.querySelectorAll(
                   'main a, main button, main summary, main label.tile, header button')]
                .filter(e => e.offsetParent !== null && !e.disabled)
                .map(e => [e.textContent.trim() || e.dataset.tile || e.outerHTML.slice(0, 60),
                           e.getBoundingClientRect()])
                .filter(([, r]) => r.width < 44 || r.height < 44)
                .map(([name, r]) => `${name}: ${r.width}x${r.height}`)"""
        )
        assert small == [], (url, small)


def sign_in_and_create_a_game(organiser: Any, base: str = "") -> Game:
    """An organiser signs in at /games/ and starts a game with the five usual names."""
    organiser.goto(base + "/games/")
    organiser.fill("input[name=username]", "orga")
    organiser.fill("input[name=password]", "correct horse battery")
    organiser.click("form.join button[type=submit]")
    for seat, name in enumerate(["Andi", "Besse", "Cakra", "Daeng", "Evi"]):
        organiser.fill(f"input[name=seat_{seat}]", name)
    organiser.click("form.join button[type=submit]")
    return Game.objects.get()


def test_the_organisers_qr_code_takes_a_phone_to_the_seat_picker(
    phone, django_user_model, screenshot, live_server, monkeypatch
) -> None:
    """Opened at 127.0.0.1, the page warns and its QR code gives the laptop's LAN address."""
    monkeypatch.setenv("DOMENG_LAN_HOST", "192.168.1.20")
    django_user_model.objects.create_user("orga", password="correct horse battery")
    organiser = phone()
    laptop = live_server.url.replace("localhost", "127.0.0.1")
    code = sign_in_and_create_a_game(organiser, laptop).join_code
    assert organiser.url.startswith("http://127.0.0.1:")
    expect(organiser.locator(".qr svg")).to_be_visible()
    warning = organiser.locator(".loopback")
    expect(warning).to_contain_text("works on this computer only, no phone can open it")
    expect(warning).to_contain_text("make run LAN=1")
    screenshot(organiser, "00-organiser-qr")
    port = live_server.url.rsplit(":", 1)[1]
    join_url = organiser.locator(".invite a").get_attribute("href")  # what the QR code says
    assert join_url == f"http://192.168.1.20:{port}/join/{code}/"

    scanned = phone()  # the phone on the Wi-Fi reaches the same server at that path
    scanned.goto(join_url.replace(f"http://192.168.1.20:{port}", live_server.url))
    expect(scanned.locator(".seat-pick button")).to_have_count(6)
    scanned.click('.seat-pick button[value="4"]')
    expect(scanned.locator(".who .me")).to_contain_text("Evi, seat 4")
