"""What a phone is entering survives live updates; every refusal says what was and was not
applied; a database that cannot answer is a 503, never Django's 500 page (no browser)."""

from __future__ import annotations

import html
import re
import uuid
from typing import Any

import pytest
from django.db import OperationalError
from django.test import Client
from django.utils import translation

from referee import services
from referee.models import Game, TableToken
from referee.web import panels
from referee.web.selectors import table_page
from tests.referee.web.conftest import enter, live_events
from tests.referee.web.walks import BLOCKED, CEKI_WITH_A_PASS, record_move

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}


def flash(response: Any) -> tuple[str, str] | None:
    match = re.search(r'class="flash (\w+)"[^>]*>(.*?)</p>', response.content.decode(), re.S)
    if match is None:
        return None
    return match.group(1), html.unescape(re.sub(r"<[^>]+>", "", match.group(2)).strip())


def poll(client: Client, version: int, query: str = "") -> Any:
    return client.get(f"/table/live/?v={version}{query}", headers=HTMX)


def ticked(response: Any) -> set[str]:
    return set(re.findall(r'name="tiles" value="([0-6]-[0-6])" checked', response.content.decode()))


@pytest.fixture
def at_an_end_choice(game: Game, scorekeeper) -> tuple[Game, services.Actor]:
    """Ten moves of the CEKI walk: ends (5, 6), Andi (seat 0) to play; 5-6 fits both."""
    keeper = scorekeeper(game)
    enter(game, keeper, [record_move(*move) for move in CEKI_WITH_A_PASS[:10]])
    game.refresh_from_db()
    return game, keeper


# -- a poll during an end choice --------------------------------------------------------------


def test_the_page_in_an_end_choice_polls_with_that_choice(at_an_end_choice, joined) -> None:
    game, _ = at_an_end_choice
    client = joined(game)
    page = client.get("/table/live/?pick=5-6", headers=HTMX).content.decode()
    assert "On which end does 5-6 go?" in page
    assert f'data-poll="/table/live/?v={game.version}&amp;pick=5-6&amp;seat=0"' in page


def test_a_poll_cancels_an_end_choice_another_phone_made_stale_and_says_why(
    at_an_end_choice, joined
) -> None:
    game, keeper = at_an_end_choice
    client = joined(game)
    shown = game.version
    enter(game, keeper, [{"seat": 0, "tile": "5-6", "on": 6}])  # another phone, first

    response = poll(client, shown, "&pick=5-6&seat=0")

    assert response.status_code == 200
    body = response.content.decode()
    assert "On which end" not in body  # no end button left to tap
    assert flash(response) == (
        "warning",
        "Your choice of 5-6 was cancelled: the table changed (Andi played 5-6 on the 6 end). "
        "Nothing was entered.",
    )
    assert live_events(game) == 11


def test_a_poll_keeps_an_end_choice_that_still_applies_and_says_the_table_changed(
    at_an_end_choice, joined
) -> None:
    game, keeper = at_an_end_choice
    client = joined(game)
    shown = game.version
    enter(game, keeper, [{"seat": 0, "tile": "3-5"}])  # another phone enters, then undoes it
    services.event_undo(game_id=game.pk, actor=keeper)
    game.refresh_from_db()

    response = poll(client, shown, "&pick=5-6&seat=0")

    body = response.content.decode()
    assert "On which end does 5-6 go?" in body
    assert f'name="version" value="{game.version}"' in body  # re-checked at the new version
    level, text = flash(response)
    assert level == "info"
    assert "Your choice of 5-6 still applies" in text


def test_an_end_choice_made_for_another_seat_is_cancelled(at_an_end_choice, joined) -> None:
    """A choice belongs to the seat it was made for: at a newer version where another
    seat is to play, the same tile's choice does not carry over to that seat."""
    game, _ = at_an_end_choice
    client = joined(game)
    response = poll(client, 0, "&pick=5-6&seat=2")  # made while Cakra was to play
    assert "On which end" not in response.content.decode()
    assert flash(response)[0] == "warning"


def test_a_poll_with_nothing_new_answers_204_and_keeps_everything(at_an_end_choice, joined):
    game, _ = at_an_end_choice
    client = joined(game)
    assert poll(client, game.version, "&pick=5-6&seat=0").status_code == 204


# -- a poll during the undo's confirmation and during a reveal ----------------------------


def test_a_poll_cancels_an_undo_being_confirmed_when_the_last_entry_changed(
    game: Game, joined, scorekeeper
) -> None:
    keeper = scorekeeper(game)
    enter(game, keeper, [{"seat": 0, "tile": "6-6"}])
    client = joined(game)
    assert (
        "Undo the last entry?"
        in client.get("/table/live/?confirm=undo", headers=HTMX).content.decode()
    )
    enter(game, keeper, [{"seat": 1, "tile": "1-6"}])

    response = poll(client, 1, "&confirm=undo")

    assert "Undo the last entry?" not in response.content.decode()
    assert flash(response) == (
        "warning",
        "Nothing was undone: the table changed (Besse played 1-6). "
        "Check the last entry before undoing it.",
    )
    assert live_events(game) == 2


@pytest.fixture
def blocked(game: Game, scorekeeper) -> tuple[Game, services.Actor]:
    keeper = scorekeeper(game)
    enter(game, keeper, BLOCKED)
    game.refresh_from_db()
    return game, keeper


def test_a_poll_during_a_reveal_keeps_what_was_ticked(blocked, joined) -> None:
    game, keeper = blocked
    client = joined(game)
    shown = game.version
    enter(game, keeper, [{"seat": 0, "tiles": ["0-3", "0-4", "0-5"]}])  # another seat's reveal

    response = poll(client, shown, "&reveal=1&tiles=0-0&tiles=0-1")

    assert "Besse still holds 3 tiles" in response.content.decode()
    assert ticked(response) == {"0-0", "0-1"}
    assert flash(response) == (
        "info",
        "The table changed (Andi still held 0-3, 0-4, 0-5). What you ticked is kept.",
    )


def test_a_poll_keeps_a_typed_pip_sum(blocked, joined) -> None:
    game, keeper = blocked
    client = joined(game)
    shown = game.version
    enter(game, keeper, [{"seat": 0, "tiles": ["0-3", "0-4", "0-5"]}])
    response = poll(client, shown, "&reveal=4&pips=2")
    assert 'name="pips" inputmode="numeric" min="0" value="2"' in response.content.decode()


def test_a_reveal_entered_by_another_phone_cancels_this_ones_and_says_so(blocked, joined):
    game, keeper = blocked
    client = joined(game)
    shown = game.version
    enter(game, keeper, [{"seat": 0, "tiles": ["0-3", "0-4", "0-5"]}])

    response = poll(client, shown, "&reveal=0&tiles=0-3")

    assert "Andi still holds" not in response.content.decode()
    assert flash(response) == (
        "warning",
        "The reveal of Andi was cancelled: the table changed (Andi still held 0-3, 0-4, 0-5). "
        "Nothing of it was sent.",
    )


def test_a_refused_reveal_keeps_what_was_ticked(blocked, joined) -> None:
    game, _ = blocked
    client = joined(game)
    data = {"version": game.version, "key": str(uuid.uuid4()), "seat": 0}
    # 1-1 is possible for Andi, but three tiles are asked and 0-6 carries the end (R33).
    response = client.post("/table/reveal/", {**data, "tiles": ["0-3", "1-1"]}, headers=HTMX)
    assert response.status_code == 422
    assert ticked(response) == {"0-3", "1-1"}
    assert live_events(game) == len(BLOCKED)


def test_without_javascript_a_refused_reveal_comes_back_ticked(blocked, joined) -> None:
    game, _ = blocked
    client = joined(game)
    data = {"version": game.version, "key": str(uuid.uuid4()), "seat": 0, "tiles": ["0-3", "1-1"]}
    response = client.post("/table/reveal/", data)
    assert response.status_code == 302
    assert ticked(client.get(response["Location"])) == {"0-3", "1-1"}


# -- true messages ----------------------------------------------------------------------------


def test_two_quick_taps_the_second_says_this_phones_first_tap_was_entered(
    game: Game, joined, scorekeeper
) -> None:
    enter(game, scorekeeper(game), [{"seat": 0, "tile": "6-6"}])
    client = joined(game)
    first = {"version": 1, "key": str(uuid.uuid4()), "seat": 1, "tile": "1-6"}
    second = {"version": 1, "key": str(uuid.uuid4()), "seat": 1, "tile": "2-6"}

    assert client.post("/table/move/", first, headers=HTMX).status_code == 201
    response = client.post("/table/move/", second, headers=HTMX)

    assert response.status_code == 409
    assert flash(response) == (
        "warning",
        "Not applied: Besse 2-6. This phone's earlier tap was entered first "
        "(Besse played 1-6); the table below shows it, tap again if needed.",
    )
    assert live_events(game) == 2


def test_a_tap_overtaken_by_another_phones_undo_says_so(game: Game, joined, scorekeeper):
    keeper = scorekeeper(game)
    enter(game, keeper, [{"seat": 0, "tile": "6-6"}])
    client = joined(game)
    services.event_undo(game_id=game.pk, actor=keeper)
    response = client.post(
        "/table/move/",
        {"version": 1, "key": str(uuid.uuid4()), "seat": 1, "tile": "1-6"},
        headers=HTMX,
    )
    assert response.status_code == 409
    assert flash(response)[1].startswith("Not applied: Besse 1-6. Another phone undid an entry")
    assert live_events(game) == 0


def test_a_greyed_out_tile_says_why(game: Game, joined, scorekeeper) -> None:
    # Daeng (seat 3) passed when the ends were 3 and 6 (R32); now it is Daeng's turn again.
    enter(game, scorekeeper(game), [record_move(*move) for move in CEKI_WITH_A_PASS[:8]])
    client = joined(game)
    page = client.get("/table/").content.decode()
    whys = dict(
        re.findall(
            r'data-tile="([0-6]-[0-6])" aria-label="[^"]*" aria-disabled="true" '
            r'data-why="([^"]*)"',
            page,
        )
    )
    assert whys["6-6"] == "6-6 is already on the table this round."
    ruled_out = [tile for tile, why in whys.items() if "Daeng passed when" in why]
    assert ruled_out, whys
    assert all({"3", "6"} & set(tile.split("-")) for tile in ruled_out)


def test_a_tile_asserted_sleeping_by_the_first_lead_says_why(game: Game, joined, scorekeeper):
    enter(game, scorekeeper(game), [{"seat": 0, "tile": "5-5"}])  # 6-6 sleeps (R5)
    client = joined(game)
    page = client.get("/table/").content.decode()
    assert (
        'data-tile="6-6" aria-label="6-6: cannot be played now" aria-disabled="true" '
        'data-why="6-6 sleeps'
    ) in page


def test_tiles_left_start_again_at_five_when_a_round_is_won(game: Game, scorekeeper) -> None:
    keeper = scorekeeper(game)
    enter(game, keeper, [record_move(*move) for move in CEKI_WITH_A_PASS])
    keeper.token.game.refresh_from_db()  # as a request reads its token's game afresh
    page = table_page(keeper.token)
    assert page.status == "awaiting_lead"
    assert [seat["tiles_left"] for seat in page.seats] == [5, 5, 5, 5, 5]


def test_first_cappu_is_translated_in_the_transfers_like_its_badge() -> None:
    seats = [{"seat": n, "name": name} for n, name in enumerate("ABCDE")]
    cappu = {"to": 1, "from": "table", "stones": 2, "reason": "cappu", "move": None}
    with translation.override("fr"):
        reasons = [t["reason"] for t in panels._transfers([cappu], seats)]
        badge = panels._named("FIRST CAPPU")["text"]
    assert reasons == [badge] == ["PREMIER CAPPU"]
    assert [t["reason"] for t in panels._transfers([{**cappu, "reason": "ceki"}], seats)] == [
        "CEKI"  # the game's own words are never translated
    ]


# -- a database that cannot answer ------------------------------------------------------------


def test_a_tap_while_the_database_is_busy_is_a_503_with_retry_after(
    game: Game, joined, monkeypatch
) -> None:
    client = joined(game)

    def locked(**kwargs: Any) -> None:
        raise OperationalError("database is locked")

    monkeypatch.setattr(services, "event_submit", locked)
    response = client.post(
        "/table/move/",
        {"version": 0, "key": str(uuid.uuid4()), "seat": 0, "tile": "6-6"},
        headers=HTMX,
    )
    assert response.status_code == 503
    assert response["Retry-After"] == "2"
    assert "cannot reach its database" in response.content.decode()
    monkeypatch.undo()
    assert live_events(game) == 0


def test_the_table_page_while_the_database_is_down_is_a_503_page(
    game: Game, joined, monkeypatch
) -> None:
    client = joined(game)

    def refused(request: Any) -> None:
        raise OperationalError("connection refused")

    monkeypatch.setattr("referee.web.views.session_token", refused)
    for url, headers in (("/table/", {}), ("/table/live/?v=0", HTMX), ("/", {})):
        response = client.get(url, headers=headers)
        assert response.status_code == 503, url
        assert response["Retry-After"] == "2"
        assert "The referee cannot reach its database right now." in response.content.decode()


def test_the_referees_messages_name_the_players_of_the_seats(game: Game, joined, scorekeeper):
    enter(game, scorekeeper(game), [{"seat": 0, "tile": "6-6"}])
    client = joined(game)
    response = client.post(
        "/table/move/",
        {"version": 1, "key": str(uuid.uuid4()), "seat": 2, "tile": "1-6"},
        headers=HTMX,
    )
    assert response.status_code == 422
    assert flash(response) == ("error", "It is seat 1 (Besse)'s turn, not seat 2 (Cakra)'s (R8)")
    assert live_events(game) == 1


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost:8000"])
def test_a_join_qr_code_opened_at_a_loopback_address_gives_the_lan_one(
    game: Game, joined, host: str, monkeypatch, django_user_model
) -> None:
    """The kind, not the instance: the organiser's page and the table's own invite."""
    monkeypatch.setenv("DOMENG_LAN_HOST", "192.168.1.20")
    organiser = django_user_model.objects.create_user("orga", password="correct horse")
    game.created_by = organiser
    game.save(update_fields=["created_by"])
    client = joined(game)
    client.force_login(organiser)
    lan_url = f"http://192.168.1.20:8000/join/{game.join_code}/"
    for url in (f"/games/{game.pk}/", "/table/"):
        page = client.get(url, HTTP_HOST=host).content.decode()
        assert "works on this computer only, no phone can open it" in page, url
        assert lan_url in page, url
        assert f"http://{host}/join/" not in page.split("works on this computer only")[1], url


def test_without_a_network_the_loopback_page_shows_no_qr_code(
    game: Game, joined, monkeypatch
) -> None:
    monkeypatch.setattr("referee.web.lan.lan_address", lambda: None)
    page = joined(game).get("/table/", HTTP_HOST="127.0.0.1:8000").content.decode()
    assert "This computer has no network address" in page
    assert 'class="qr"' not in page


def test_a_refused_tap_resent_with_its_key_is_refused_again_counted_once_R31(
    game: Game, joined, scorekeeper
) -> None:
    """QA: the page resends a tap whose answer was lost with the same key; a refusal of a
    declared seat's tile was judged and counted as a probe of that hand each time (R31)."""
    seat_1 = services.table_join(join_code=game.join_code, seat=1)[1]
    hand = {"seat": 1, "tiles": ["3-6", "5-6", "0-0", "0-1", "0-2"]}
    services.event_submit(
        game_id=game.pk, kind="hand", payload=hand, actor=services.Actor(token=seat_1)
    )
    enter(game, scorekeeper(game), [{"seat": 0, "tile": "6-6"}])
    client = joined(game)
    game.refresh_from_db()
    tap = {"version": game.version, "key": str(uuid.uuid4()), "seat": 1, "tile": "4-6"}

    first = client.post("/table/move/", tap, headers=HTMX)
    again = client.post("/table/move/", tap, headers=HTMX)

    assert first.status_code == again.status_code == 422
    assert flash(again) == flash(first)
    assert flash(first)[0] == "error"  # type: ignore[index]
    assert game.refused_events.count() == 1
    token = TableToken.objects.get(game=game, seat=None, revoked_at=None, client_address__gt="")
    assert token.probes == 1
