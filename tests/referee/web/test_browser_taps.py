"""Every tap ends entered, refused with the reason, or not sent with a way to send it;
live updates never destroy what a player is entering. Debian's Chromium at 360×640.

Network drops are Playwright's: ``context.set_offline`` and ``page.route``. Each test
asserts what the player sees and what the referee stored.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import OperationalError, transaction
from playwright.sync_api import expect

from referee import services
from referee.models import Event, Game
from tests.referee.web import test_browser as ui
from tests.referee.web.conftest import enter, live_events
from tests.referee.web.walks import BLOCKED, CEKI_WITH_A_PASS, record_move

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def latest_payload(game: Game) -> dict[str, Any]:
    """The latest live event as the phone entered it: its stored ``side`` (where the tile
    lies, R11, the referee's own) left out."""
    payload = Event.objects.filter(game=game, revoked_by__isnull=True).latest("position").payload
    return {key: value for key, value in payload.items() if key != "side"}


@pytest.fixture
def at_an_end_choice(game: Game, scorekeeper) -> tuple[Game, services.Actor]:
    """Ten moves of the CEKI walk: ends (5, 6), Andi to play; 5-6 fits both ends."""
    keeper = scorekeeper(game)
    enter(game, keeper, [record_move(*move) for move in CEKI_WITH_A_PASS[:10]])
    return game, keeper


# -- live updates and what is being entered ---------------------------------------------------


def test_a_poll_cancels_a_stale_end_choice_visibly_and_nothing_is_entered(
    phone, at_an_end_choice, screenshot
) -> None:
    game, keeper = at_an_end_choice
    page = phone()
    ui.join(page, game)
    page.click('.picker [data-tile="5-6"]')
    expect(page.locator("button[data-end]")).to_have_count(2)

    enter(game, keeper, [{"seat": 0, "tile": "5-6", "on": 6}])  # another phone, first
    ui.wait_for_version(page, 11)

    flash = page.locator(".flash.warning")
    expect(flash).to_contain_text("Your choice of 5-6 was cancelled")
    expect(flash).to_contain_text("Andi played 5-6 on the 6 end")
    expect(page.locator("button[data-end]")).to_have_count(0)
    screenshot(page, "12-choice-cancelled")
    assert live_events(game) == 11


def test_a_poll_keeps_an_end_choice_that_still_applies_and_its_tap_counts_once(
    phone, at_an_end_choice
) -> None:
    game, keeper = at_an_end_choice
    page = phone()
    ui.join(page, game)
    page.click('.picker [data-tile="5-6"]')
    expect(page.locator("button[data-end]")).to_have_count(2)

    with transaction.atomic():  # entered and undone elsewhere; a poll sees both or neither
        enter(game, keeper, [{"seat": 0, "tile": "3-5"}])
        services.event_undo(game_id=game.pk, actor=keeper)
    ui.wait_for_version(page, 12)

    expect(page.locator(".flash.info")).to_contain_text("Your choice of 5-6 still applies")
    expect(page.locator("button[data-end]")).to_have_count(2)
    ui.settled(page)
    page.click('button[data-end="6"]')
    ui.wait_for_version(page, 13)
    expect(page.locator(".flash.ok")).to_have_text("Entered: Andi played 5-6 on the 6 end.")
    assert live_events(game) == 11
    assert latest_payload(game) == {"seat": 0, "tile": "5-6", "on": 6}


def test_a_poll_cancels_an_undo_being_confirmed_when_the_last_entry_changed(
    phone, game, scorekeeper
) -> None:
    keeper = scorekeeper(game)
    enter(game, keeper, [{"seat": 0, "tile": "6-6"}])
    page = phone()
    ui.join(page, game)
    page.click("a.undo")
    expect(page.locator("form.confirm")).to_be_visible()

    enter(game, keeper, [{"seat": 1, "tile": "1-6"}])
    ui.wait_for_version(page, 2)

    expect(page.locator("form.confirm")).to_have_count(0)
    expect(page.locator(".flash.warning")).to_contain_text(
        "Nothing was undone: the table changed (Besse played 1-6)"
    )
    assert live_events(game) == 2


def test_a_poll_during_a_partly_filled_reveal_keeps_what_was_ticked(
    phone, game, scorekeeper
) -> None:
    keeper = scorekeeper(game)
    enter(game, keeper, BLOCKED)
    page = phone()
    ui.join(page, game)
    page.click('[data-reveal="1"]')
    page.click('label.tile[data-tile="0-0"]')
    page.click('label.tile[data-tile="0-1"]')
    shown = ui.version(page)

    enter(game, keeper, [{"seat": 0, "tiles": ["0-3", "0-4", "0-5"]}])  # another phone
    ui.wait_for_version(page, shown + 1)

    expect(page.locator(".flash.info")).to_contain_text("What you ticked is kept.")
    expect(page.locator('label.tile[data-tile="0-0"] input')).to_be_checked()
    expect(page.locator('label.tile[data-tile="0-1"] input')).to_be_checked()
    ui.settled(page)
    page.click('label.tile[data-tile="0-2"]')
    page.click("form.reveal button[type=submit]")
    ui.wait_for_version(page, shown + 2)
    expect(page.locator(".flash.ok")).to_contain_text("Entered: Besse still held 0-0, 0-1, 0-2")
    assert latest_payload(game) == {"seat": 1, "tiles": ["0-0", "0-1", "0-2"]}


def test_a_tap_just_after_a_live_update_changed_the_entry_is_held_and_says_why(
    phone, game, scorekeeper
) -> None:
    page = phone()
    ui.join(page, game, seat=1)
    # Besse's finger is on 1-6 as the live update arrives (the PASS button it brings moves
    # the picker): the tap lands within milliseconds of the redraw, however busy the machine.
    page.evaluate(
        """() => {
            const tapWhenRedrawn = () => {
                if (document.getElementById("live").dataset.version !== "1") {
                    return setTimeout(tapWhenRedrawn, 5);
                }
                document.querySelector('.picker [data-tile="1-6"]').click();
                window.tapped = true;
            };
            tapWhenRedrawn();
        }"""
    )
    enter(game, scorekeeper(game), [{"seat": 0, "tile": "6-6"}])  # now Besse's turn
    ui.wait_for_version(page, 1)
    page.wait_for_function("() => window.tapped === true")

    expect(page.locator("#why")).to_have_text("The table just changed: check it, then tap again.")
    assert live_events(game) == 1
    ui.tap(page, "1-6")  # once the page has settled, the same tap counts
    assert live_events(game) == 2


def test_a_greyed_out_tile_says_why_when_tapped(phone, game, scorekeeper) -> None:
    enter(game, scorekeeper(game), [{"seat": 0, "tile": "6-6"}])
    page = phone()
    ui.join(page, game)
    page.click('.picker [data-tile="6-6"]', force=True)  # greyed out, but a finger can tap it
    expect(page.locator("#why")).to_have_text("6-6 is already on the table this round.")
    assert live_events(game) == 1


# -- taps that get no answer ---------------------------------------------------------------------


def test_a_tap_made_offline_for_15_seconds_is_entered_once_when_back(
    phone, game, scorekeeper, screenshot
) -> None:
    enter(game, scorekeeper(game), [{"seat": 0, "tile": "6-6"}])
    page = phone()
    ui.join(page, game, seat=1)
    ui.settled(page)

    page.context.set_offline(True)
    page.click('.picker [data-tile="1-6"]')
    outbox = page.locator("#outbox")
    expect(outbox).to_contain_text("Not sent yet: no connection to the referee")
    expect(outbox.locator(".taps")).to_have_text("Besse 1-6")
    screenshot(page, "13-not-sent-yet")
    page.wait_for_timeout(15_000)
    expect(outbox).to_be_visible()  # still kept, still trying
    assert live_events(game) == 1

    page.context.set_offline(False)
    ui.wait_for_version(page, 2)
    expect(outbox).to_be_hidden()
    expect(page.locator(".flash.ok")).to_have_text("Entered: Besse played 1-6.")
    page.wait_for_timeout(3_000)  # any late duplicate would land by now
    assert live_events(game) == 2


def test_an_unsent_tap_survives_a_reload_and_is_sent_once(phone, game, scorekeeper) -> None:
    enter(game, scorekeeper(game), [{"seat": 0, "tile": "6-6"}])
    page = phone()
    ui.join(page, game, seat=1)
    ui.settled(page)
    page.route("**/table/move/", lambda route: route.abort("internetdisconnected"))
    page.click('.picker [data-tile="1-6"]')
    expect(page.locator("#outbox .taps")).to_have_text("Besse 1-6")

    page.reload()
    expect(page.locator("#outbox .taps")).to_have_text("Besse 1-6")  # kept on the phone
    assert live_events(game) == 1

    page.unroute("**/table/move/")
    page.click("#outbox [data-send-now]")
    ui.wait_for_version(page, 2)
    expect(page.locator("#outbox")).to_be_hidden()
    assert live_events(game) == 2
    assert latest_payload(game) == {"seat": 1, "tile": "1-6"}


def test_a_tap_whose_answer_was_lost_and_is_resent_after_a_reload_counts_once(
    phone, game, scorekeeper
) -> None:
    enter(game, scorekeeper(game), [{"seat": 0, "tile": "6-6"}])
    page = phone()
    ui.join(page, game, seat=1)
    ui.settled(page)

    reached: list[str] = []

    def reach_the_referee_then_lose_the_answer(route: Any) -> None:
        if not reached:
            reached.append(route.request.post_data)
            route.fetch()  # the referee enters it…
        route.abort("timedout")  # …but no answer reaches the phone

    page.route("**/table/move/", reach_the_referee_then_lose_the_answer)
    page.click('.picker [data-tile="1-6"]')
    expect(page.locator("#outbox")).to_contain_text("Not sent yet")
    expect(page.locator("#outbox .taps")).to_have_text("Besse 1-6")
    assert len(reached) == 1
    assert live_events(game) == 2  # it was entered; the phone does not know yet
    page.unroute_all(behavior="wait")
    page.reload()
    expect(page.locator(".flash.ok")).to_contain_text("already been counted")
    expect(page.locator("#outbox")).to_be_hidden()
    assert live_events(game) == 2


def test_a_tap_answered_with_a_5xx_is_kept_and_sent_again(phone, game, scorekeeper) -> None:
    enter(game, scorekeeper(game), [{"seat": 0, "tile": "6-6"}])
    page = phone()
    ui.join(page, game, seat=1)
    ui.settled(page)
    answers: list[int] = []

    def fail_once(route: Any) -> None:
        if not answers:
            answers.append(502)
            route.fulfill(status=502, body="Bad gateway")
        else:
            answers.append(0)
            route.continue_()

    page.route("**/table/move/", fail_once)
    page.click('.picker [data-tile="1-6"]')
    ui.wait_for_version(page, 2)
    expect(page.locator(".flash.ok")).to_have_text("Entered: Besse played 1-6.")
    assert answers == [502, 0]
    assert live_events(game) == 2


def test_a_tap_while_the_database_is_busy_is_kept_said_and_entered_once_it_answers(
    phone, game, scorekeeper, monkeypatch
) -> None:
    enter(game, scorekeeper(game), [{"seat": 0, "tile": "6-6"}])
    page = phone()
    ui.join(page, game, seat=1)
    ui.settled(page)
    submit = services.event_submit
    statuses: list[int] = []
    page.on(
        "response",
        lambda r: statuses.append(r.status) if r.url.endswith("/table/move/") else None,
    )

    def busy(**kwargs: Any) -> Any:
        raise OperationalError("database is locked")

    monkeypatch.setattr(services, "event_submit", busy)
    page.click('.picker [data-tile="1-6"]')
    outbox = page.locator("#outbox")
    expect(outbox).to_contain_text("the referee cannot reach its database right now")
    expect(outbox.locator(".taps")).to_have_text("Besse 1-6")
    assert live_events(game) == 1

    monkeypatch.setattr(services, "event_submit", submit)
    ui.wait_for_version(page, 2)  # sent again after Retry-After
    expect(page.locator(".flash.ok")).to_have_text("Entered: Besse played 1-6.")
    assert statuses[0] == 503
    assert statuses[-1] == 201
    assert live_events(game) == 2


def test_two_quick_taps_on_different_tiles_say_what_happened_to_each(
    phone, game, scorekeeper
) -> None:
    enter(game, scorekeeper(game), [{"seat": 0, "tile": "6-6"}])
    page = phone()
    ui.join(page, game, seat=1)
    ui.settled(page)
    page.evaluate(
        """() => {
            document.querySelector('.picker [data-tile="1-6"]').click();
            document.querySelector('.picker [data-tile="2-6"]').click();
        }"""
    )
    warning = page.locator(".flash.warning")
    expect(warning).to_contain_text(
        "Not applied: Besse 2-6. This phone's earlier tap was entered first (Besse played 1-6)"
    )
    expect(page.locator(".events li.latest")).to_contain_text("Besse played 1-6")
    assert live_events(game) == 2
    assert latest_payload(game) == {"seat": 1, "tile": "1-6"}


# -- DEBUG on and off ----------------------------------------------------------------------------


@pytest.mark.parametrize("debug", [True, False], ids=["debug-on", "debug-off"])
def test_a_refused_form_keeps_the_page_and_its_live_updates(
    phone, game, scorekeeper, settings, debug: bool
) -> None:
    settings.DEBUG = debug
    keeper = scorekeeper(game)
    enter(game, keeper, BLOCKED)
    page = phone()
    ui.join(page, game)
    page.click('[data-reveal="4"]')
    page.click("form.reveal button[type=submit]")  # nothing ticked, no pip sum

    expect(page.locator(".flash.error")).to_contain_text("Pick the remaining tiles")
    expect(page.locator("form.reveal")).to_be_visible()
    assert page.locator(".board").evaluate("e => getComputedStyle(e).borderRadius") == "12px"
    shown = ui.version(page)
    enter(game, keeper, [{"seat": 0, "tiles": ["0-3", "0-4", "0-5"]}])
    ui.wait_for_version(page, shown + 1)  # still polling
    assert live_events(game) == len(BLOCKED) + 1


def test_the_chain_stays_in_view_after_your_own_tap(phone, game, scorekeeper) -> None:
    enter(game, scorekeeper(game), [{"seat": 0, "tile": "6-6"}])
    page = phone()
    ui.join(page, game, seat=1)
    expect(page.locator(".board")).to_be_in_viewport()
    scrolled = page.evaluate("window.scrollY")
    ui.tap(page, "1-6")
    expect(page.locator(".board")).to_be_in_viewport()
    assert page.evaluate("window.scrollY") == scrolled
    expect(page.locator(".chain li")).to_have_count(2)


def test_on_its_own_turn_a_seats_phone_shows_the_whole_picker(phone, game, scorekeeper) -> None:
    """Issue 28: on a phone's own turn the picker started below the fold (1–3 of its 6 rows
    in view at 360×640); now PASS and every row of tiles are on the screen."""
    besse = phone()
    ui.join(besse, game, seat=1)
    services.event_submit(
        game_id=game.pk, kind="move", payload={"seat": 0, "tile": "6-6"}, actor=scorekeeper(game)
    )

    expect(besse.locator("#live")).to_have_attribute("data-my-turn", "1")
    besse.wait_for_function(
        """() => { const tiles = [...document.querySelectorAll('#entry .picker .tile')];
                   return tiles.length > 0 && tiles.every(t => {
                     const r = t.getBoundingClientRect();
                     return r.top >= 0 && r.bottom <= window.innerHeight; }); }"""
    )
    pass_button = besse.locator("#entry form.pass button").bounding_box()
    assert pass_button is not None
    assert pass_button["y"] >= 0
