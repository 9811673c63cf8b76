"""The organiser runs the evening from a phone (Chromium at 360×640, Playwright).

Signed in, the organiser opens an earlier round, corrects one of its entries —
first a change the referee refuses because a later entry becomes impossible
(R37: shown with its code, rule, round and move, the input kept), then one it
accepts — and closes the game after confirming it. Screenshots
``2x-organiser-*.png`` (``make screenshots``: docs/screenshots/).
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from referee import services
from referee.models import Correction, Event, Game
from tests.referee.web.conftest import PLAYERS, enter
from tests.referee.web.walks import CEKI_WITH_A_PASS, record_move

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct horse battery"
SMALL_TARGETS = """() => [...document.querySelectorAll(
       'main a, main button, main summary, main select, ' +
       'main input:not([type=hidden]), header button')]
    .filter(e => e.offsetParent !== null && !e.disabled)
    .map(e => [e.textContent.trim() || e.name || e.outerHTML.slice(0, 60),
               e.getBoundingClientRect()])
    .filter(([, r]) => r.width < 44 || r.height < 44)
    .map(([name, r]) => `${name}: ${r.width}x${r.height}`)"""


@pytest.fixture
def evening(django_user_model: Any, scorekeeper: Any) -> Game:
    """The organiser's game with round 1 played to its CEKI (R15) from the table."""
    organiser = django_user_model.objects.create_user("orga", password=PASSWORD)
    game = services.game_create(players=list(PLAYERS), created_by=organiser)
    enter(game, scorekeeper(game), [record_move(*step) for step in CEKI_WITH_A_PASS])
    return game


def sign_in(page: Any) -> None:
    page.goto("/games/")
    page.fill("input[name=username]", "orga")
    page.fill("input[name=password]", PASSWORD)
    page.click("form.join button[type=submit]")
    expect(page.locator("h1")).to_contain_text("Games of the evening")


def fits_a_phone(page: Any) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= 360, page.url
    assert page.evaluate(SMALL_TARGETS) == [], page.url


def edit(page: Any, game: Game, index: int) -> None:
    """Tap the pencil of round 1's event ``index`` (0-based, in order)."""
    position = (
        Event.objects.filter(game=game, revoked_by__isnull=True)
        .order_by("position")
        .values_list("position", flat=True)[index]
    )
    page.click(f"#event-{position} a.edit")
    expect(page.locator("#edit")).to_be_visible()


def test_the_organiser_corrects_an_earlier_entry_and_closes_the_game_from_a_phone_r37(
    phone, evening, screenshot
) -> None:
    page = phone()
    sign_in(page)
    screenshot(page, "2x-organiser-games")
    fits_a_phone(page)
    page.click(f'a[href="/games/{evening.pk}/manage/"]')
    expect(page.locator("#rounds")).to_contain_text("CEKI")
    screenshot(page, "2x-organiser-game", top=True)
    fits_a_phone(page)
    page.locator("#phones").scroll_into_view_if_needed()
    screenshot(page, "2x-organiser-phones")

    page.click(f'a[href="/games/{evening.pk}/rounds/1/"]')
    expect(page.locator("#result")).to_contain_text("CEKI")
    screenshot(page, "2x-organiser-round", top=True)
    fits_a_phone(page)
    # Besse's 1-6 was really 2-6? Then Cakra's 1-3, the next play, fits no end (R7).
    edit(page, evening, 1)
    page.select_option("#edit select[name=tile]", "2-6")
    page.fill("#edit input[name=reason]", "Besse says it was 2-6")
    page.click('#edit button[value="amend"]')

    refusal = page.locator(".refusal")
    expect(refusal).to_be_visible()
    expect(refusal.locator(".code-id")).to_have_text("tile_does_not_match")
    expect(refusal.locator(".rule-id")).to_have_text("R7")
    expect(refusal.locator(".round-id")).to_have_text("1")
    expect(refusal.locator(".move-id")).to_have_text("3")
    expect(page.locator("li.refused")).to_contain_text("Cakra played 1-3")
    expect(page.locator("#edit select[name=tile]")).to_have_value("2-6")  # nothing typed is lost
    expect(page.locator("#edit input[name=reason]")).to_have_value("Besse says it was 2-6")
    expect(refusal.locator(".event-id")).to_have_text("Cakra played 1-3")
    screenshot(page, "2x-organiser-refused", top=True)
    fits_a_phone(page)
    page.locator("#edit").scroll_into_view_if_needed()
    screenshot(page, "2x-organiser-refused-input-kept")
    assert not Correction.objects.filter(game=evening).exists()

    # Besse's 3-4 late in the round was really 4-4: the CEKI becomes a plain CAPPU.
    edit(page, evening, 16)
    page.select_option("#edit select[name=tile]", "4-4")
    page.fill("#edit input[name=reason]", "typed 3-4 for 4-4")
    page.click('#edit button[value="amend"]')
    expect(page.locator(".flash.success")).to_contain_text("The event is amended.")
    expect(page.locator("#result .result-words")).to_have_text("CAPPU")
    screenshot(page, "2x-organiser-corrected", top=True)
    correction = Correction.objects.get(game=evening)
    assert correction.reason == "typed 3-4 for 4-4"

    page.click("nav.org-nav >> text=The game")
    page.click("#closing a.danger")
    expect(page.locator("h1")).to_have_text("Close the game?")
    screenshot(page, "2x-organiser-close", top=True)
    fits_a_phone(page)
    assert Game.objects.get(pk=evening.pk).status == "open"  # asking closes nothing
    page.click("#close button.danger")
    expect(page.locator(".flash.success")).to_contain_text("The game is closed.")
    assert Game.objects.get(pk=evening.pk).status == "closed"


def test_a_phone_of_the_table_gets_the_organisers_only_page(phone, evening, screenshot) -> None:
    page = phone()
    page.goto(f"/join/{evening.join_code}/")
    page.click('.seat-pick button[value="2"]')
    expect(page.locator("#live")).to_be_visible()

    answer = page.goto(f"/games/{evening.pk}/manage/")

    assert answer.status == 403
    expect(page.locator("h1")).to_have_text("Organisers only")
    screenshot(page, "2x-organiser-forbidden")
    fits_a_phone(page)
    # The check can fail: a 20 px button is caught.
    page.evaluate(
        "() => document.querySelector('main').insertAdjacentHTML('beforeend',"
        " '<button style=\"all: unset; display: block; width: 20px; height: 20px\">x</button>')"
    )
    assert page.evaluate(SMALL_TARGETS) == ["x: 20x20"]


def test_the_clubs_standings_fit_a_phone(phone, django_user_model, scorekeeper, screenshot):
    from tests.scoring.factories import ClubFactory, OrganiserFactory, PlayerFactory

    club = ClubFactory(name="Makassar Domeng Club", slug="makassar")
    director = OrganiserFactory(
        club=club, user=django_user_model.objects.create_user("orga", password=PASSWORD)
    ).user
    seats = [PlayerFactory(club=club, display_name=name).pk for name in PLAYERS]
    game = services.game_create(players=seats, club=club, created_by=director)
    enter(game, scorekeeper(game), [record_move(*step) for step in CEKI_WITH_A_PASS])
    page = phone()
    sign_in(page)

    page.click('a[href="/clubs/makassar/standings/"]')

    expect(page.locator("#standings tbody tr").first).to_contain_text("Andi")
    screenshot(page, "2x-organiser-standings")
    fits_a_phone(page)


@pytest.mark.parametrize(
    ("locale", "voided", "word"),
    [
        ("fr-FR", "La manche 1 est annulée.", "annulée"),
        ("pl-PL", "Runda 1 jest unieważniona.", "unieważniona"),
        ("id-ID", "Ronde 1 dibatalkan.", "dibatalkan"),
    ],
)
def test_the_organiser_voids_a_round_in_the_phones_language_r35(
    phone, evening, screenshot, locale, voided, word
) -> None:
    page = phone(locale=locale)
    page.goto("/games/")
    page.fill("input[name=username]", "orga")
    page.fill("input[name=password]", PASSWORD)
    page.click("form.join button[type=submit]")
    page.goto(f"/games/{evening.pk}/rounds/1/")

    page.fill("#void input[name=reason]", "tiles shown")
    page.click("#void button[type=submit]")

    expect(page.locator(".flash.success")).to_have_text(voided)
    expect(page.locator("#result .result-words")).to_contain_text(word)
    if locale.startswith("pl"):
        screenshot(page, "2x-organiser-void-pl", top=True)
    fits_a_phone(page)
