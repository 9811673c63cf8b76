"""The phone web form's views through Django's test client (no browser): join, poll, taps."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from referee import folding, services
from referee.models import Event, Game, TableToken
from referee.web import views
from referee.web.selectors import table_page
from tests.factories import UserFactory
from tests.referee.web.conftest import enter, live_events
from tests.referee.web.walks import BLOCKED, CEKI_WITH_A_PASS, record_move

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}


def flash(response: Any) -> tuple[str, str] | None:
    """The flash of a rendered page or partial: (level, text)."""
    match = re.search(r'class="flash (\w+)"[^>]*>(.*?)</p>', response.content.decode(), re.S)
    return (match.group(1), re.sub(r"<[^>]+>", "", match.group(2)).strip()) if match else None


def shown_version(response: Any) -> int:
    return int(re.search(r'data-version="(\d+)"', response.content.decode()).group(1))


def tap(client: Client, game: Game, **fields: Any) -> Any:
    """POST one move as the page's form would, with a fresh key and the current version."""
    game.refresh_from_db()
    data = {"version": game.version, "key": str(uuid.uuid4()), **fields}
    return client.post("/table/move/", data, headers=HTMX)


# -- joining -------------------------------------------------------------------------------


def test_the_home_page_asks_for_the_join_code(client: Client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert 'name="code"' in response.content.decode()


def test_a_join_code_leads_to_the_seat_picker_with_the_names(client: Client, game: Game) -> None:
    response = client.post("/", {"code": f" {game.join_code[:4].lower()}-{game.join_code[4:]} "})
    assert response.status_code == 302
    assert response["Location"] == f"/join/{game.join_code}/"
    page = client.get(response["Location"], follow=True).content.decode()
    for name in ("Andi", "Besse", "Cakra", "Daeng", "Evi"):
        assert name in page
    assert 'name="seat" value=""' in page  # scorekeeper for the whole table


def test_picking_a_seat_keeps_a_table_token_for_it_in_the_session(
    client: Client, game: Game
) -> None:
    response = client.post(f"/join/{game.join_code}/", {"seat": "2"})
    assert response.status_code == 302
    token = TableToken.objects.get(game=game)
    assert token.seat == 2
    assert client.session["domeng_table_token"]  # the key; only its hash is stored
    assert "This phone: Cakra, seat 2" in client.get("/table/").content.decode()


def test_a_wrong_code_is_refused_and_repeated_ones_lock_the_client_out(
    client: Client, settings: Any
) -> None:
    settings.JOIN_LOCKOUT_FAILURES = 3
    cache.clear()
    client.get("/")  # the phone opens the home page: its device cookie counts its typos
    response = client.post("/", {"code": "NOPE-NOPE-NO"})
    assert response.status_code == 404
    assert "No open game has this join code." in response.content.decode()
    for _ in range(settings.JOIN_LOCKOUT_FAILURES):
        response = client.post("/", {"code": "NOPE-NOPE-NO"})
    assert response.status_code == 429
    assert "Too many wrong join codes" in response.content.decode()
    assert 0 < int(response["Retry-After"]) <= settings.JOIN_LOCKOUT_SECONDS


def test_a_join_link_with_a_wrong_code_shows_the_home_page_with_the_refusal(
    client: Client,
) -> None:
    cache.clear()
    response = client.get("/join/NOPENOPENO/", follow=True)

    assert response.status_code == 404
    assert 'name="code"' in response.content.decode()
    assert 'value="NOPENOPENO"' in response.content.decode()


def test_the_join_page_and_the_api_share_one_lockout(
    client: Client, game: Game, settings: Any
) -> None:
    settings.JOIN_LOCKOUT_FAILURES = 2
    cache.clear()
    client.get("/")  # the device cookie, shared by the page and the API
    assert client.post("/", {"code": "NOPE-NOPE-NO"}).status_code == 404
    api = client.post("/api/v1/join/", {"join_code": "NOPE"}, content_type="application/json")
    assert api.status_code == 404

    page = client.get(f"/join/{game.join_code}/")
    joined = client.post(
        "/api/v1/join/", {"join_code": game.join_code}, content_type="application/json"
    )

    assert page.status_code == 429
    assert int(page["Retry-After"]) > 0
    assert joined.status_code == 429
    assert joined.json()["code"] == "join_locked_out"


def test_the_table_needs_a_joined_session(client: Client) -> None:
    assert client.get("/table/")["Location"] == "/"
    response = client.get("/table/live/", headers=HTMX)
    assert response["HX-Redirect"] == "/"


def test_leaving_forgets_the_token(joined, game: Game) -> None:
    client = joined(game)
    client.post("/leave/")
    assert client.get("/table/")["Location"] == "/"


def test_a_phone_whose_seat_was_freed_is_told_so_once_on_the_home_page(joined, game: Game) -> None:
    """QA: a revoked phone's tap led to the bare join page, which said nothing of why."""
    client = joined(game, seat=2)
    organiser = services.Actor(user=UserFactory())
    services.seat_release(game_id=game.pk, seat=2, actor=organiser)

    response = tap(client, game, seat=2, tile="6-6")

    assert response["HX-Redirect"] == "/"
    home = client.get("/")
    assert flash(home) is not None
    assert flash(home)[0] == "error"
    assert "removed from its table" in flash(home)[1]
    assert flash(client.get("/")) is None  # said once; the key is forgotten


def test_a_tap_caught_by_the_revocation_under_the_lock_goes_home(
    joined, game: Game, monkeypatch
) -> None:
    """Revoked while the tap was on the way (the token read before, refused under the lock,
    401): the phone is sent home, where it is told, not left with the move buttons."""
    client = joined(game, seat=2)
    real = views.session_token

    def read_then_revoke(request):
        token = real(request)
        if token is not None and request.method == "POST":
            services.seat_release(game_id=game.pk, seat=2, actor=services.Actor(user=UserFactory()))
        return token

    monkeypatch.setattr(views, "session_token", read_then_revoke)

    response = tap(client, game, seat=2, tile="6-6")

    assert response["HX-Redirect"] == "/"
    assert live_events(game) == 0
    monkeypatch.setattr(views, "session_token", real)
    assert "removed from its table" in flash(client.get("/"))[1]


# -- the polled partial --------------------------------------------------------------------


def test_the_poll_answers_204_while_nothing_changed_and_redraws_after_a_change(
    joined, game: Game, scorekeeper
) -> None:
    client = joined(game)
    response = client.get("/table/live/?v=0", headers=HTMX)
    assert response.status_code == 204
    enter(game, scorekeeper(game), [{"seat": 0, "tile": "6-6"}])
    response = client.get("/table/live/?v=0", headers=HTMX)
    assert response.status_code == 200
    assert response["ETag"].startswith('"1.')  # the partial's own tag (issue 27)
    assert shown_version(response) == 1
    assert "Andi played 6-6" in response.content.decode()


# -- taps ------------------------------------------------------------------------------------


def test_the_phone_shows_the_open_sitting_once_the_first_move_opened_it_R27(
    joined, game: Game
) -> None:
    """QA: only the organiser's page said which sitting was open; players coming back to a
    game a week later see it on their phones too."""
    client = joined(game)
    assert 'class="sitting"' not in client.get("/table/").content.decode()  # none open yet

    response = tap(client, game, seat=0, tile="6-6")
    services.session_start(game_id=game.pk, actor=services.Actor())

    assert 'round 1</span> · <span class="sitting">sitting 1</span>' in response.content.decode()
    assert '<span class="sitting">sitting 2</span>' in client.get("/table/").content.decode()


def test_a_tap_enters_the_move_for_the_seat_to_play(joined, game: Game) -> None:
    client = joined(game)
    response = tap(client, game, seat=0, tile="6-6")
    assert response.status_code == 201
    assert shown_version(response) == 1
    assert flash(response) == ("ok", "Entered: Andi played 6-6.")  # says what was entered
    assert Event.objects.get(game=game).payload == {"seat": 0, "tile": "6-6"}


def test_a_tap_folds_the_round_once_and_draws_the_page_from_the_referees_answer(
    joined, game: Game, scorekeeper, monkeypatch: pytest.MonkeyPatch
) -> None:
    enter(game, scorekeeper(game), [record_move(*move) for move in CEKI_WITH_A_PASS[:2]])
    client = joined(game)
    folds = []
    fold = folding.fold
    monkeypatch.setattr(folding, "fold", lambda *a, **k: folds.append(1) or fold(*a, **k))

    response = tap(client, game, seat=2, tile="1-3")

    assert response.status_code == 201
    assert len(folds) == 1  # the service's; the page reuses the state it answered (R27)
    assert shown_version(response) == 3
    assert flash(response) == ("ok", "Entered: Cakra played 1-3.")


def test_the_same_key_twice_counts_once(joined, game: Game) -> None:
    client = joined(game)
    data = {"version": 0, "key": str(uuid.uuid4()), "seat": 0, "tile": "6-6"}
    first = client.post("/table/move/", data, headers=HTMX)
    again = client.post("/table/move/", data, headers=HTMX)
    assert (first.status_code, again.status_code) == (201, 201)
    assert flash(again) == ("ok", "That tap had already been counted: it counts once.")
    assert live_events(game) == 1


def test_a_tap_on_a_stale_version_changes_nothing_and_says_so(
    joined, game: Game, scorekeeper
) -> None:
    client = joined(game)
    enter(game, scorekeeper(game), [{"seat": 0, "tile": "6-6"}])
    data = {"version": 0, "key": str(uuid.uuid4()), "seat": 0, "tile": "5-5"}
    response = client.post("/table/move/", data, headers=HTMX)
    assert response.status_code == 409
    level, text = flash(response)
    assert level == "warning"
    assert text.startswith(
        "Not applied: Andi 5-5. Another phone entered something first (Andi played 6-6)"
    )
    assert shown_version(response) == 1  # the page is refreshed
    assert live_events(game) == 1


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "1-1 matches neither open end (6, 5) (R7)"),
        ("fr", "1-1 ne va sur aucun des bouts ouverts (6, 5) (R7)"),
        ("pl", "1-1 nie pasuje do żadnego wolnego końca (6, 5) (R7)"),
        ("id", "1-1 tidak cocok dengan kedua ujung terbuka (6, 5) (R7)"),
    ],
)
def test_an_illegal_tap_shows_the_referees_message_in_the_pages_language(
    joined, game: Game, scorekeeper, language: str, message: str
) -> None:
    enter(game, scorekeeper(game), [{"seat": 0, "tile": "6-6"}, {"seat": 1, "tile": "5-6"}])
    client = joined(game, **{"Accept-Language": language})
    response = tap(client, game, seat=2, tile="1-1")
    assert response.status_code == 422
    assert flash(response) == ("error", message[0].upper() + message[1:])
    assert live_events(game) == 2


def test_a_seat_phone_cannot_enter_another_seats_move(joined, game: Game) -> None:
    client = joined(game, seat=3)
    response = tap(client, game, seat=0, tile="6-6")
    assert response.status_code == 403
    assert flash(response) == ("error", "This phone is joined to another seat.")
    assert live_events(game) == 0


def test_a_pass_is_entered_with_the_pass_button(joined, game: Game, scorekeeper) -> None:
    enter(game, scorekeeper(game), [{"seat": 0, "tile": "6-6"}])
    client = joined(game)
    response = tap(client, game, seat=1, is_pass="on")
    assert response.status_code == 201
    assert "PASSEBUNGE" in response.content.decode()
    assert Event.objects.filter(game=game).last().payload == {"seat": 1, "pass": True}


def test_a_malformed_form_is_refused_without_calling_the_referee(joined, game: Game) -> None:
    client = joined(game)
    response = tap(client, game, seat=0)
    assert response.status_code == 400
    assert flash(response) == ("error", "Tap a tile or PASS.")
    response = client.post("/table/move/", {"seat": 0, "tile": "6-6"}, headers=HTMX)
    assert response.status_code == 400  # no version, no key
    assert live_events(game) == 0


def test_without_htmx_a_tap_redirects_back_to_the_table_with_its_message(
    joined, game: Game, scorekeeper
) -> None:
    enter(game, scorekeeper(game), [{"seat": 0, "tile": "6-6"}])
    client = joined(game)
    game.refresh_from_db()
    data = {"version": game.version, "key": str(uuid.uuid4()), "seat": 1, "tile": "1-1"}
    response = client.post("/table/move/", data)
    assert response.status_code == 302
    page = client.get(response["Location"])
    assert flash(page) == ("error", "1-1 matches neither open end (6, 6) (R7)")
    assert flash(client.get("/table/")) is None  # shown once


def test_undo_asks_first_then_revokes_the_last_event(joined, game: Game, scorekeeper) -> None:
    enter(game, scorekeeper(game), [{"seat": 0, "tile": "6-6"}, {"seat": 1, "tile": "5-6"}])
    client = joined(game)
    confirm = client.get("/table/live/?confirm=undo", headers=HTMX).content.decode()
    assert "Undo the last entry?" in confirm
    assert "Besse played 5-6" in confirm
    response = client.post("/table/undo/", {"version": 2, "key": str(uuid.uuid4())}, headers=HTMX)
    assert response.status_code == 200
    assert flash(response) == ("ok", "Undone.")
    assert live_events(game) == 1


def test_a_blocked_round_takes_each_seats_tiles_or_pip_sum(joined, game: Game, scorekeeper) -> None:
    enter(game, scorekeeper(game), BLOCKED)
    client = joined(game)
    page = client.get("/table/").content.decode()
    assert "MANGUNO!" in page
    assert 'data-reveal="4"' in page
    form = client.get("/table/live/?reveal=0", headers=HTMX).content.decode()
    assert "Andi still holds 3 tiles: tap them" in form
    game.refresh_from_db()
    data = {"version": game.version, "key": str(uuid.uuid4()), "seat": 0}
    response = client.post("/table/reveal/", {**data, "tiles": ["0-3", "0-4", "0-5"]}, headers=HTMX)
    assert response.status_code == 201
    assert "Andi still held 0-3, 0-4, 0-5" in response.content.decode()
    both = {**data, "key": str(uuid.uuid4()), "seat": 1, "version": 13, "pips": 3}
    response = client.post("/table/reveal/", {**both, "tiles": ["0-0"]}, headers=HTMX)
    assert response.status_code == 400
    response = client.post("/table/reveal/", {**both, "seat": 4, "pips": 99}, headers=HTMX)
    assert response.status_code == 422
    text = flash(response)[1]
    assert text.startswith("No 4 tiles seat 4 (Evi) could hold add up to a pip sum of 99")
    assert 'name="pips"' in response.content.decode()  # the reveal form stays open


# -- what the picker offers ------------------------------------------------------------------


def _states(token: TableToken, **modes: Any) -> dict[str, str]:
    return {tile.domino.name: tile.state for tile in table_page(token, **modes).picker}


def test_the_first_lead_offers_the_first_lead_doubles_and_asks_the_seat(game: Game) -> None:
    _, keeper = services.table_join(join_code=game.join_code)
    states = _states(keeper)
    assert {name for name, state in states.items() if state != "blocked"} == {
        "6-6",
        "5-5",
        "4-4",
        "3-3",
    }
    assert states["6-6"] == "choose_seat"
    _, seat_phone = services.table_join(join_code=game.join_code, seat=2)
    assert _states(seat_phone)["6-6"] == "play"  # a seat's phone leads for its seat


def test_only_a_tile_fitting_two_different_ends_needs_a_second_tap(game: Game, scorekeeper) -> None:
    moves = [record_move(*move) for move in CEKI_WITH_A_PASS[:10]]
    keeper = scorekeeper(game)
    enter(game, keeper, moves)
    keeper.token.game.refresh_from_db()  # as a request reads its token's game afresh
    states = _states(keeper.token)  # ends (5, 6), seat 0 to play
    assert states["5-6"] == "choose_end"
    assert states["6-6"] == "played"
    assert states["3-5"] == "play"
    assert states["1-1"] == "blocked"
    page = table_page(keeper.token, pick="5-6")
    assert page.pick is not None
    assert page.pick.ends == [5, 6]
    assert table_page(keeper.token, pick="3-5").pick is None  # one tap is enough there


def test_a_seat_phone_sees_no_picker_when_it_is_not_its_turn(game: Game, scorekeeper) -> None:
    enter(game, scorekeeper(game), [{"seat": 0, "tile": "6-6"}])
    _, besse = services.table_join(join_code=game.join_code, seat=1)
    _, cakra = services.table_join(join_code=game.join_code, seat=2)
    assert table_page(besse).can_move
    assert not table_page(cakra).can_move


# -- organisers ------------------------------------------------------------------------------


@pytest.fixture
def organiser(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user("orga", password="correct horse battery")


def test_an_organiser_creates_a_game_and_gets_its_qr_code(client: Client, organiser) -> None:
    assert client.get("/games/")["Location"].startswith("/accounts/login/")
    client.force_login(organiser)
    names = {f"seat_{n}": name for n, name in enumerate(["A", "B", "C", "D", "E"])}
    response = client.post("/games/", names)
    game = Game.objects.get(created_by=organiser)
    assert response["Location"] == f"/games/{game.pk}/"
    page = client.get(response["Location"]).content.decode()
    assert '<svg viewBox="0 0' in page
    assert 'class="segno"' in page
    assert f"http://testserver/join/{game.join_code}/" in page
    assert "<script" not in page.split("<main>")[1]  # the QR code is plain SVG


def test_the_qr_code_follows_the_address_the_organiser_used(
    client: Client, organiser, settings: Any
) -> None:
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "192.168.1.20"]
    client.force_login(organiser)
    game = services.game_create(players=["A", "B", "C", "D", "E"], created_by=organiser)

    page = client.get(f"/games/{game.pk}/", HTTP_HOST="192.168.1.20:8000")

    assert page.status_code == 200
    assert f"http://192.168.1.20:8000/join/{game.join_code}/" in page.content.decode()


def test_another_organisers_game_page_is_not_found(client: Client, organiser, game) -> None:
    client.force_login(organiser)
    assert client.get(f"/games/{game.pk}/").status_code == 404


def test_the_sign_in_page_signs_an_organiser_in(client: Client, organiser) -> None:
    response = client.post(
        "/accounts/login/", {"username": "orga", "password": "correct horse battery"}
    )
    assert response["Location"] == "/games/"


def test_the_camat_wears_a_badge_and_the_election_is_announced(joined, load_scenario) -> None:
    record = load_scenario("14_camat_election_reset_25")["record"]
    game = services.game_import(record=record)
    page = joined(game).get("/table/").content.decode()
    assert "Besse becomes CAMAT: every stone goes back to the table." in page
    assert re.search(r'data-seat="1">\s*<th scope="row">.*?class="badge camat">CAMAT<', page, re.S)
    assert page.count('class="badge camat"') == 1
    assert "On the table: <b>25</b> stones" in page


def test_the_seat_picker_shows_a_computers_seat_as_not_for_a_phone_R39(
    client: Client, game: Game
) -> None:
    from referee.services.computer import computer_seats_setup

    computer_seats_setup(game=game, strategies={2: "greedy"})

    page = client.get(f"/join/{game.join_code}/", follow=True).content.decode()

    computer = re.search(r'<button[^>]*value="2"[^>]*>(.*?)</button>', page, re.S)
    person = re.search(r'<button[^>]*value="1"[^>]*>', page)
    assert "disabled" in computer.group(0)
    assert "played by the computer" in computer.group(1)
    assert "disabled" not in person.group(0)


def test_a_new_phone_gets_its_device_first_and_joins_though_its_address_guessed(
    client: Client, game: Game, settings: Any
) -> None:
    """QA (issue 27): 30 wrong codes from cookieless requests of one address used up that
    address's cookieless bucket; a phone scanning the QR code behind the same Wi-Fi was
    told to wait. It now gets its device cookie first and is judged as a newcomer."""
    cache.clear()
    guesser = Client()
    for _ in range(settings.JOIN_LOCKOUT_FAILURES + 1):
        guesser.cookies.clear()  # a script that keeps no cookie: the cookieless bucket
        guesser.post("/api/v1/join/", {"join_code": "NOPENOPENO"}, content_type="application/json")

    first = client.get(f"/join/{game.join_code}/")
    page = client.get(first["Location"])

    assert first.status_code == 302
    assert first["Location"] == f"/join/{game.join_code}/?device=1"
    assert "domeng_device" in first.cookies
    assert page.status_code == 200
    assert 'name="seat"' in page.content.decode()


def test_a_browser_that_keeps_no_cookie_is_judged_without_one(client: Client, game: Game) -> None:
    cache.clear()

    page = client.get(f"/join/{game.join_code}/?device=1")

    assert page.status_code == 200  # no second redirect: the cookieless bucket, as before
    assert 'name="seat"' in page.content.decode()
