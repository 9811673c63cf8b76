"""A whole club evening from phones (issue 11's "done when"), in a real browser.

Debian's Chromium at 360×640 through Playwright against the live server. Only the club,
its organiser's account and its registered players are set up through the services;
everything else is done by tapping phones: the organiser signs in and creates the game
for the club ("Counts for"), five seat phones join with the code shown, two seats
declare their hands privately (R31), two rounds are played to their end by taps, round
1 is confirmed by a second seat and round 2 disputed and resolved by the organiser, the
organiser corrects a mistake of round 1 from its round page (R37), ends the sitting
(R27), closes the game and reads the club standings and the room view. Run in English
and in French and Polish (switched with the page's own language switch). Screenshots
``4x-evening-*.png``.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from django.utils import translation
from playwright.sync_api import expect
from rest_framework.test import APIClient

from referee.engine.records import replay_record
from referee.models import Game
from tests.referee.conftest import without_verification
from tests.referee.web.conftest import PLAYERS
from tests.referee.web.test_browser import version, wait_for_version
from tests.referee.web.walks import CEKI_WITH_A_PASS, record_move

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct horse battery"
ROUND_1 = [record_move(*step) for step in CEKI_WITH_A_PASS]  # CEKI, Besse's 3-4 at move 17
MISTAKE = 16  # Besse's 3-4 was really 4-4: the CEKI becomes a plain CAPPU (R14, R15)
# Round 2, led by round 1's winner Andi (R6), to Andi's FIRST CAPPU (R14); legal after
# round 1 as entered and as corrected (generated with referee.engine.simulation).
ROUND_2: list[dict[str, Any]] = [
    {"seat": 0, "tile": "2-4"},
    {"seat": 1, "tile": "4-6"},
    {"seat": 2, "tile": "1-6"},
    {"seat": 3, "tile": "1-2", "on": 1},
    {"seat": 4, "pass": True},
    {"seat": 0, "tile": "2-6"},
    {"seat": 1, "tile": "2-3"},
    {"seat": 2, "tile": "3-3"},
    {"seat": 3, "tile": "0-6"},
    {"seat": 4, "tile": "1-3"},
    {"seat": 0, "tile": "0-0"},
    {"seat": 1, "tile": "0-4"},
    {"seat": 2, "tile": "4-5"},
    {"seat": 3, "tile": "5-6"},
    {"seat": 4, "tile": "1-5"},
    {"seat": 0, "tile": "3-5"},
    {"seat": 1, "pass": True},
    {"seat": 2, "tile": "3-4"},
    {"seat": 3, "tile": "4-4"},
    {"seat": 4, "tile": "3-6"},
    {"seat": 0, "tile": "0-3"},
]
# Hands declared at the start of round 1 (R31): Andi's five plays; Cakra's four and 0-0.
HANDS = {0: ["6-6", "0-3", "5-6", "1-4", "2-3"], 2: ["1-3", "0-6", "2-5", "0-1", "0-0"]}


def said(language: str, message: str, **values: Any) -> str:
    """``message`` as the pages say it in ``language`` (the catalogs' own translation)."""
    with translation.override(language):
        return translation.gettext(message) % values if values else translation.gettext(message)


def switch_language(page: Any, language: str) -> None:
    """Tap the language switch in the page's header."""
    if language == "en":
        return
    page.click(f'form.lang button[value="{language}"]')
    expect(page.locator("html")).to_have_attribute("lang", language)


def tap_move(page: Any, move: dict[str, Any]) -> None:
    """Tap ``move`` on the seat's own phone, which has caught up with version ``at`` first."""
    at = Game.objects.values_list("version", flat=True).get()  # a verification moves it too
    if version(page) != at:
        page.reload()  # the phone in the player's hand shows the table as it is now
        wait_for_version(page, at)
    page.wait_for_function("() => !document.documentElement.dataset.held")
    if move.get("pass"):
        page.click("form.pass button")
    else:
        page.click(f'.picker [data-tile="{move["tile"]}"]')
        if "on" in move:
            page.click(f'button[data-end="{move["on"]}"]')
    expect(page.locator("#live")).not_to_have_attribute("data-version", str(at))
    expect(page.locator(".flash.ok")).to_be_visible()  # entered, not refused


def play(seats: list[Any], moves: list[dict[str, Any]]) -> None:
    for move in moves:
        tap_move(seats[move["seat"]], move)


def fresh(page: Any) -> None:
    page.reload()
    page.wait_for_function("() => !document.documentElement.dataset.held")


@pytest.fixture
def club(django_user_model: Any) -> Any:
    """The club, its organiser 'orga' and its five registered players (services only)."""
    from tests.scoring.factories import ClubFactory, OrganiserFactory, PlayerFactory

    club = ClubFactory(name="Makassar Domeng Club", slug="makassar")
    OrganiserFactory(
        club=club, user=django_user_model.objects.create_user("orga", password=PASSWORD)
    )
    for name in PLAYERS:
        PlayerFactory(club=club, display_name=name)
    return club


@pytest.mark.parametrize("language", ["en", "fr", "pl"])
def test_a_club_evening_entirely_from_phones(phone, club, screenshot, language) -> None:
    shot = f"4x-evening-{language}"
    # -- the organiser signs in on a phone and creates the game for the club ------------------
    desk = phone()
    desk.goto("/games/")
    switch_language(desk, language)
    desk.fill("input[name=username]", "orga")
    desk.fill("input[name=password]", PASSWORD)
    desk.click("form.join button[type=submit]")
    expect(desk.locator("h1").first).to_have_text(said(language, "Games of the evening"))
    for seat, name in enumerate(PLAYERS):
        desk.fill(f"input[name=seat_{seat}]", name)
    league = desk.locator("select[name=league]")
    expect(league.locator("option:checked")).to_have_text("Makassar Domeng Club")
    desk.select_option("select[name=league]", label="Makassar Domeng Club")
    screenshot(desk, f"{shot}-new-game")
    desk.locator("form.join button[type=submit]").last.click()
    code = desk.locator("p.code")
    expect(code).to_be_visible()
    game = Game.objects.get()
    assert game.league.club_id == club.pk
    # The names typed are the club's registered players: the standings will count them.
    seats = game.seats.order_by("number")
    assert [s.registered.player.display_name for s in seats] == PLAYERS
    join_code = code.inner_text().replace(" ", "")
    screenshot(desk, f"{shot}-join-code", top=True)

    # -- five seat phones join with the code ----------------------------------------------------
    seats = []
    for seat in range(5):
        page = phone()
        page.goto("/")
        switch_language(page, language)
        page.fill("input[name=code]", join_code.lower())
        page.click("form.join button[type=submit]")
        page.click(f'.seat-pick button[value="{seat}"]')
        expect(page.locator("#live")).to_be_visible()
        expect(page.locator(".who .me")).to_contain_text(PLAYERS[seat])
        seats.append(page)
    andi, besse, cakra, daeng, evi = seats

    # -- Andi and Cakra declare their hands privately (R31) ------------------------------------
    at = 0
    for seat, hand in HANDS.items():
        page = seats[seat]
        fresh(page)
        page.click("[data-declare]")
        for tile in hand:
            page.click(f'form.hand-form label[data-tile="{tile}"]')
        page.click("form.hand-form button[type=submit]")
        at += 1
        wait_for_version(page, at)
        expect(page.locator(".hand-tile")).to_have_count(5)
    screenshot(cakra, f"{shot}-hand")
    for page in (besse, daeng, evi):
        fresh(page)
        assert "data-hand-tile" not in page.content()  # nobody else's page shows them
        expect(page.locator(".hand-tile")).to_have_count(0)

    # -- round 1 to its CEKI by taps; Besse confirms it ----------------------------------------
    play(seats, ROUND_1)
    for page in seats:
        expect(page.locator("#verification")).to_have_attribute("data-status", "unverified")
    expect(evi.locator("#live")).to_contain_text("CEKI")
    expect(andi.locator("form.confirm-round")).to_have_count(0)  # Andi entered its last move
    screenshot(evi, f"{shot}-round-1")
    fresh(besse)
    besse.click("form.confirm-round button")
    expect(besse.locator("#verification")).to_have_attribute("data-status", "confirmed")
    expect(besse.locator("#verification")).to_contain_text("Besse")

    # -- round 2 by taps; Daeng disputes it, the organiser resolves it -------------------------
    play(seats, ROUND_2)
    expect(daeng.locator("#verification")).to_have_attribute("data-status", "unverified")
    fresh(daeng)
    daeng.click("#verification details.dispute summary")
    daeng.fill("form.dispute-round input[name=reason]", "Evi passed, she did not play 1-3")
    daeng.click("form.dispute-round button[type=submit]")
    expect(daeng.locator("#verification")).to_have_attribute("data-status", "disputed")
    for page in (andi, evi):  # every phone follows by its poll
        expect(page.locator("#verification")).to_contain_text("Evi passed, she did not play 1-3")
    screenshot(evi, f"{shot}-disputed")

    desk.goto(f"/games/{game.pk}/manage/")
    flag = desk.locator('#verifications li[data-status="disputed"]')
    expect(flag).to_contain_text("Daeng")
    expect(flag).to_contain_text("Evi passed, she did not play 1-3")
    expect(desk.locator('#verifications li[data-round="1"]')).to_have_attribute(
        "data-status", "confirmed"
    )
    flag.scroll_into_view_if_needed()
    screenshot(desk, f"{shot}-organiser-dispute")
    flag.locator("button[type=submit]").click()
    expect(desk.locator('#verifications li[data-round="2"]')).to_have_attribute(
        "data-status", "resolved"
    )
    expect(evi.locator("#verification")).to_have_attribute("data-status", "resolved")

    # -- the organiser corrects round 1 from its round page (R37) -------------------------------
    desk.click(f'#rounds a[href="/games/{game.pk}/rounds/1/"]')
    expect(desk.locator("#result .result-words")).to_contain_text("CEKI")
    desk.locator("[id^=event-]", has_text="3-4").locator("a.edit").click()
    expect(desk.locator("#edit")).to_be_visible()
    desk.select_option("#edit select[name=tile]", "4-4")
    desk.fill("#edit input[name=reason]", "Besse typed 3-4 for 4-4")
    desk.click('#edit button[value="amend"]')
    expect(desk.locator(".flash.success")).to_have_text(said(language, "The event is amended."))
    expect(desk.locator("#result .result-words")).to_have_text("CAPPU")
    screenshot(desk, f"{shot}-corrected", top=True)

    # -- the sitting ends; the game is closed after its confirmation ----------------------------
    desk.click(f'a.button[href="/games/{game.pk}/manage/"]')  # "The game"
    desk.locator("#sittings").get_by_role("button", name=said(language, "End the sitting")).click()
    expect(desk.locator("#sittings")).to_contain_text(
        said(language, "No sitting is open (the next entry opens one).")
    )
    desk.click("#closing a.danger")
    expect(desk.locator("h1")).to_have_text(said(language, "Close the game?"))
    screenshot(desk, f"{shot}-close", top=True)
    desk.click("#close button.danger")
    expect(desk.locator(".flash.success")).to_contain_text(
        said(language, "The game is closed. Its record and result stay readable.")
    )
    game.refresh_from_db()
    assert game.status == "closed"

    # -- the result as the API gives it is a replay of the record ------------------------------
    api = APIClient()
    api.force_authenticate(game.created_by)
    record = api.get(f"/api/v1/games/{game.pk}/record/").json()
    result = api.get(f"/api/v1/games/{game.pk}/result/").json()
    corrected = copy.deepcopy(ROUND_1)
    corrected[MISTAKE] = {"seat": 1, "tile": "4-4"}
    assert [r["moves"] for r in record["rounds"]] == [corrected, ROUND_2]
    # Round 1's confirmation no longer stands once its events changed (the decision of
    # referee.services.verification): it is unverified again; round 2's dispute stays resolved.
    assert [r["verification"]["status"] for r in result["rounds"]] == ["unverified", "resolved"]
    assert without_verification(result) == replay_record(record)
    reasons = [t["reason"] for t in result["rounds"][0]["transfers"]]
    assert "ceki" not in reasons  # the correction made round 1 a plain CAPPU (R14, R15)
    final = result["rounds"][-1]["after"]

    # -- the club standings and the room view ---------------------------------------------------
    desk.goto(f"/games/{game.pk}/manage/")
    desk.click('nav.org-nav a[href="/clubs/makassar/standings/"]')
    rows = desk.locator("#standings tbody tr")
    expect(rows).to_have_count(5)
    screenshot(desk, f"{shot}-standings", top=True)
    standings = {
        row.locator("th").inner_text(): [c.inner_text() for c in row.locator("td").all()]
        for row in rows.all()
    }
    assert set(standings) == set(PLAYERS)
    assert all(cells[5] == "0" for cells in standings.values())  # no CEKI once corrected
    assert standings["Andi"][2] == "2"  # Andi won both rounds
    # Each player's net stones are what the corrected result leaves them (from 0 each).
    assert {name: int(standings[name][4]) for name in PLAYERS} == dict(
        zip(PLAYERS, final["stones"], strict=True)
    )
    desk.goto("/room/makassar/")
    expect(desk.locator(".room-standings tbody tr")).to_have_count(5)
    screenshot(desk, f"{shot}-room", top=True)
