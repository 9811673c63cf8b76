"""What the phone shows over and around its tiles (issue 28), in Debian's Chromium.

A correction of an earlier round by the organiser (R35–R37) appears on an open phone as a
notice (a live region) naming the round and each seat's stones before → after.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from referee import services
from referee.services import corrections
from tests.factories import UserFactory
from tests.referee.web import test_browser as ui
from tests.referee.web.conftest import enter
from tests.referee.web.walks import CEKI_WITH_A_PASS, record_move

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

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
