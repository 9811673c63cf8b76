"""Private hands and round verification in real browsers (Chromium at 360×640, issue 11).

Several phones at one table: a seat declares its hand privately (R31) and no other
phone's page or live poll ever carries it; a settled round is confirmed by one phone,
disputed by another, and the dispute shows on the organiser's page and in the API.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect
from rest_framework.test import APIClient

from referee import services
from referee.models import Game, TableToken
from tests.referee.web.conftest import PLAYERS, enter
from tests.referee.web.test_browser import join, settled, version, wait_for_version
from tests.referee.web.walks import CEKI_WITH_A_PASS, record_move

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

HAND = ["1-6", "2-6", "5-5", "3-4", "0-0"]  # Besse's tiles of CEKI_WITH_A_PASS, and 0-0


def polls(page: Any) -> list[str]:
    """Every live poll's or tap's answer this page receives, as text (kept as they come)."""
    bodies: list[str] = []

    def keep(response: Any) -> None:
        if "/table/" in response.url and response.request.method in {"GET", "POST"}:
            try:
                bodies.append(response.text())
            except Exception:  # noqa: BLE001 - a redirect or an aborted poll has no body
                bodies.append("")

    page.on("response", keep)
    return bodies


def test_a_seat_declares_its_hand_privately_and_no_other_page_carries_it(
    phone, game: Game, screenshot
) -> None:
    besse, cakra = phone(), phone()
    join(besse, game, seat=1)
    join(cakra, game, seat=2)
    cakra_answers = polls(cakra)

    settled(besse)
    besse.click("[data-declare]")
    expect(besse.locator("form.hand-form")).to_be_visible()
    for tile in HAND:
        besse.click(f'form.hand-form label[data-tile="{tile}"]')
    screenshot(besse, "hand-declare")
    before = version(besse)
    besse.click("form.hand-form button[type=submit]")
    wait_for_version(besse, before + 1)
    expect(besse.locator(".hand-tile")).to_have_count(5)
    expect(besse.locator(".flash.ok")).to_contain_text("Only this phone shows it")

    # Andi leads 6-6 (entered by the table's scorekeeper): Besse's 1-6 and 2-6 now fit.
    keeper = services.Actor(token=services.table_join(join_code=game.join_code)[1])
    enter(game, keeper, [{"seat": 0, "tile": "6-6"}])
    game.refresh_from_db()
    wait_for_version(besse, game.version)
    expect(besse.locator('.hand-tile[data-hand-tile="1-6"]')).to_contain_text("playable now")
    expect(besse.locator('.hand-tile[data-hand-tile="3-4"]')).to_contain_text("not playable now")
    expect(besse.locator('.hand-tile[data-hand-tile="1-6"] .sign')).to_have_text("✓")
    screenshot(besse, "hand-playable")

    wait_for_version(cakra, game.version)  # Cakra's phone polled every change
    cakra.reload()
    expect(cakra.locator("#live")).to_have_attribute("data-version", str(game.version))
    html = cakra.content()
    answers = [*cakra_answers, html]
    assert any("Besse declared a hand" in body for body in answers)  # that she did, only
    for body in answers:
        assert "data-hand-tile" not in body
        assert "Your hand (only" not in body
        assert "hand-label" not in body
    assert len(cakra_answers) >= 2  # its polls were watched, not only the final page
    expect(cakra.locator(".hand-tile")).to_have_count(0)


def test_a_round_confirmed_by_one_phone_disputed_by_another_shows_for_the_organiser(
    phone, live_server, django_user_model, screenshot
) -> None:
    organiser = django_user_model.objects.create_user("orga", password="correct horse battery")
    game = services.game_create(players=list(PLAYERS), created_by=organiser)
    andi, besse, cakra = phone(), phone(), phone()
    for page, seat in ((andi, 0), (besse, 1), (cakra, 2)):
        join(page, game, seat=seat)
    keeper = services.Actor(token=services.table_join(join_code=game.join_code)[1])
    enter(game, keeper, [record_move(*step) for step in CEKI_WITH_A_PASS[:-1]])
    game.refresh_from_db()
    wait_for_version(andi, game.version)
    settled(andi)
    andi.click('.picker [data-tile="2-3"]')  # Andi enters the last move: CEKI
    andi.click('button[data-end="2"]')
    wait_for_version(andi, game.version + 1)
    expect(andi.locator("#verification")).to_have_attribute("data-status", "unverified")
    expect(andi.locator("form.confirm-round")).to_have_count(0)  # his own entry

    wait_for_version(besse, game.version + 1)
    settled(besse)
    besse.click("form.confirm-round button")
    expect(besse.locator("#verification")).to_have_attribute("data-status", "confirmed")
    expect(besse.locator("#verification")).to_contain_text("confirmed by Besse (seat 1)")

    expect(cakra.locator("#verification")).to_have_attribute("data-status", "confirmed")
    settled(cakra)
    cakra.click("#verification details.dispute summary")
    cakra.fill("form.dispute-round input[name=reason]", "Daeng played 2-4, not 2-5")
    screenshot(cakra, "round-dispute")
    cakra.click("form.dispute-round button[type=submit]")
    expect(cakra.locator("#verification")).to_have_attribute("data-status", "disputed")
    for page in (andi, besse):  # every phone follows by its poll
        expect(page.locator("#verification")).to_contain_text("disputed by Cakra (seat 2)")
        expect(page.locator("#verification")).to_contain_text("Daeng played 2-4, not 2-5")
    screenshot(besse, "round-disputed")

    desk = phone()
    desk.goto(f"/accounts/login/?next=/games/{game.pk}/")
    desk.fill("input[name=username]", "orga")
    desk.fill("input[name=password]", "correct horse battery")
    desk.click("form.join button[type=submit]")
    flag = desk.locator('#verifications li[data-status="disputed"]')
    expect(flag).to_contain_text("Round 1 disputed by Cakra (seat 2)")
    expect(flag).to_contain_text("Daeng played 2-4, not 2-5")
    expect(desk.locator("#verifications .flash.error")).to_contain_text("1 round is disputed")
    flag.scroll_into_view_if_needed()
    screenshot(desk, "organiser-dispute")

    api = APIClient()
    api.force_authenticate(organiser)
    result = api.get(f"/api/v1/games/{game.pk}/result/").json()
    assert result["rounds"][0]["verification"]["status"] == "disputed"
    assert result["rounds"][0]["verification"]["seat"] == 2
    assert result["rounds"][0]["verification"]["reason"] == "Daeng played 2-4, not 2-5"
    state = api.get(f"/api/v1/games/{game.pk}/").json()
    assert state["round"]["previous"]["verification"]["status"] == "disputed"

    desk.click('#verifications li[data-status="disputed"] button[type=submit]')
    expect(desk.locator('#verifications li[data-round="1"]')).to_have_attribute(
        "data-status", "resolved"
    )
    expect(besse.locator("#verification")).to_contain_text("the organiser marked it confirmed")
    assert TableToken.objects.filter(game=game, revoked_at__isnull=True).count() == 4
