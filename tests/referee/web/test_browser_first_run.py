"""A club starts from the browser alone (issue 28's "done when"), in a real browser.

From a fresh database: the one-time link ``manage.py serve`` (``make run``) prints opens
the first-run page, which makes the organiser's account and the club; the organiser adds
the club's five players and a second organiser from the club's pages, creates the game
with each seat's player chosen from the club's players, five phones (360×640) join with
its code and play a round to its end by taps (R6–R15), and the organiser reads the club
standings, prints the evening's sheet (its standings and its game, each one A4 page in
print media, print.css), then signs out. Nothing is set up through the
services or the admin. Run in English, French, Polish and Indonesian, each chosen with
the page's own language switch. Screenshots ``5x-first-run-*.png``.
"""

from __future__ import annotations

import io
import re
import zoneinfo
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone, translation
from playwright.sync_api import expect

from referee.models import Game
from scoring.models import Club, Membership
from tests.referee.web.conftest import PLAYERS
from tests.referee.web.test_browser_evening import ROUND_1, play, switch_language

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "a tall domino stone 42"
PDF_PAGE = re.compile(rb"/Type\s*/Page\b")  # a PDF's page objects (not /Pages)


def said(language: str, message: str) -> str:
    with translation.override(language):
        return translation.gettext(message)


def _setup_path() -> str:
    """The path of the link ``manage.py serve`` prints on a database with no account."""
    out = io.StringIO()
    call_command("serve", "--port", "8000", "--dry-run", stdout=out)
    match = re.search(r"First run: open http://127\.0\.0\.1:8000(/setup/[\w-]+/)", out.getvalue())
    assert match, out.getvalue()
    return match.group(1)


def printed_on_one_a4_page(
    page: Any, results: str, names: list[str], shot: str | None = None, screenshot: Any = None
) -> None:
    """The page in print media (print.css): nothing to tap, the results (``results`` naming
    each of ``names``) present, and Chromium's A4 PDF of it one page long."""
    page.emulate_media(media="print")
    try:
        assert page.locator("header.top").is_hidden()  # no top bar, language switch or form
        assert page.locator("main form").first.is_hidden()
        expect(page.locator(results).first).to_be_visible()
        for name in names:
            expect(page.locator(results).filter(has_text=name).first).to_be_visible()
        if shot is not None:
            screenshot(page, shot, top=True)
        pdf = page.pdf(format="A4", print_background=False)
        assert len(PDF_PAGE.findall(pdf)) == 1, page.url
    finally:
        page.emulate_media(media="screen")


def _submit(page: Any) -> None:
    page.locator("main form.join button[type=submit]").last.click()


@pytest.mark.parametrize("language", ["en", "fr", "pl", "id"])
def test_a_club_starts_from_the_first_run_link_to_its_standings(
    phone: Any, screenshot: Any, language: str
) -> None:
    shot = f"5x-first-run-{language}"
    assert not get_user_model().objects.exists()
    desk = phone()

    # -- the first run: the organiser's account and the club -------------------------------
    desk.goto(_setup_path())
    switch_language(desk, language)
    expect(desk.locator("h1")).to_have_text(said(language, "First run: your account and your club"))
    desk.fill("input[name=username]", "daeng")
    desk.fill("input[name=password1]", PASSWORD)
    desk.fill("input[name=password2]", PASSWORD)
    desk.fill("input[name=club_name]", "Makassar Domeng Club")
    desk.fill("input[name=slug]", "makassar")
    desk.select_option("select[name=time_zone]", "Asia/Makassar")
    desk.select_option("select[name=language]", language)
    screenshot(desk, f"{shot}-setup", top=True)
    _submit(desk)
    expect(desk.locator("h1")).to_have_text("Makassar Domeng Club")
    expect(desk.locator("html")).to_have_attribute("lang", language)
    club = Club.objects.get(slug="makassar")
    assert club.time_zone == "Asia/Makassar"
    screenshot(desk, f"{shot}-club", top=True)

    # -- the club's players and a second organiser, from its pages -------------------------
    desk.click('nav.org-nav a[href="/clubs/makassar/manage/players/"]')
    for number, name in enumerate(PLAYERS, start=1):
        desk.fill("input[name=display_name]", name)
        desk.fill("input[name=member_number]", f"{number:04d}")
        _submit(desk)
        expect(desk.locator(".flash.success")).to_be_visible()
    expect(desk.locator("ul.players li")).to_have_count(5)
    expect(desk.locator("ul.players")).to_contain_text("0005")
    screenshot(desk, f"{shot}-players", top=True)
    desk.click('nav.org-nav a[href="/clubs/makassar/manage/organisers/"]')
    desk.fill("input[name=username]", "besse")
    _submit(desk)
    expect(desk.locator(".flash.success")).to_contain_text("/accounts/password/")
    expect(desk.locator("ul.organisers li")).to_have_count(2)
    assert Membership.objects.filter(club=club, role="organiser").count() == 2

    # -- the game of the evening, counted for the club -------------------------------------
    desk.click('nav.org-nav a[href^="/games/"]')
    for seat, name in enumerate(PLAYERS):  # each seat: the club's player, from its picker
        desk.select_option(f"select[name=seat_{seat}_player]", label=f"{name} ({seat + 1:04d})")
    expect(desk.locator("select[name=league] option:checked")).to_have_text("Makassar Domeng Club")
    _submit(desk)
    code = desk.locator("p.code")
    expect(code).to_be_visible()
    game = Game.objects.get()
    assert [s.registered.player.display_name for s in game.seats.order_by("number")] == PLAYERS
    join_code = code.inner_text().replace(" ", "")

    # -- five phones join and play a round to its CEKI by taps ------------------------------
    seats = []
    for seat in range(5):
        page = phone()
        page.goto("/")
        switch_language(page, language)
        page.fill("input[name=code]", join_code.lower())
        page.click("form.join button[type=submit]")
        page.click(f'.seat-pick button[value="{seat}"]')
        expect(page.locator(".who .me")).to_contain_text(PLAYERS[seat])
        seats.append(page)
    play(seats, ROUND_1)
    expect(seats[4].locator("#live")).to_contain_text("CEKI")

    # -- the standings, then signing out ----------------------------------------------------
    desk.goto("/clubs/makassar/standings/")
    rows = desk.locator("#standings tbody tr")
    expect(rows).to_have_count(5)
    expect(desk.locator("html")).to_have_attribute("lang", language)
    screenshot(desk, f"{shot}-standings", top=True)

    # -- the evening's printed sheet: its standings, then its game, each on one A4 page ----
    evening = timezone.localdate(timezone=zoneinfo.ZoneInfo("Asia/Makassar")).isoformat()
    desk.fill("input[name=played_after]", evening)
    desk.fill("input[name=played_before]", evening)
    desk.locator("#standings-dates button[type=submit]").click()
    expect(desk).to_have_url(re.compile(f"played_after={evening}"))
    expect(rows).to_have_count(5)
    printed_on_one_a4_page(desk, "#standings tbody tr", PLAYERS, f"{shot}-printed", screenshot)
    desk.goto(f"/games/{game.pk}/manage/")
    printed_on_one_a4_page(desk, "#rounds", ["CEKI"])
    desk.goto("/clubs/makassar/manage/")
    desk.get_by_role("button", name=said(language, "Sign out")).click()
    expect(desk.locator("h1")).to_have_text(said(language, "Organiser sign-in"))
    desk.goto("/clubs/makassar/manage/")
    expect(desk.locator("input[name=password]")).to_be_visible()  # signed out: sign in again
