"""Creating games, joining them with a code, and who may use a game (organisers and phones)."""

from __future__ import annotations

import uuid

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from referee.models import Game, TableToken, hash_token
from tests.factories import GameFactory, UserFactory, table_key
from tests.referee.conftest import API, PROBLEM, table_client, token_client

GAMES_URL = f"{API}/games/"
JOIN_URL = f"{API}/join/"
PLAYERS = ["Andi", "Besse", "Cakra", "Daeng", "Evi"]


def join(body, *, client=None, **extra):
    return (client or APIClient()).post(JOIN_URL, body, format="json", **extra)


@pytest.fixture
def lockout(settings):
    """A lockout after 3 wrong codes for 600 s."""
    settings.JOIN_LOCKOUT_FAILURES = 3
    settings.JOIN_LOCKOUT_SECONDS = 600
    return settings


# -- creating a game -------------------------------------------------------------------


def test_an_organiser_with_a_drf_token_creates_a_game_and_gets_its_id_and_join_code_R3(
    organiser_client, organiser
):
    response = organiser_client.post(GAMES_URL, {"players": PLAYERS}, format="json")

    assert response.status_code == 201
    body = response.json()
    game = Game.objects.get(pk=body["id"])
    assert body["join_code"] == game.join_code
    assert body["version"] == 0
    assert response["ETag"] == '"0"'
    assert game.created_by == organiser
    state = body["state"]
    assert [seat["name"] for seat in state["seats"]] == PLAYERS
    assert state["table"] == 25
    assert state["turn"] is None  # R5: whoever holds the highest double leads
    assert state["round"]["number"] == 1


def test_an_organiser_signed_in_with_a_session_creates_a_game(db):
    UserFactory(username="ida")
    client = APIClient()
    assert client.login(username="ida", password="correct horse battery staple")

    response = client.post(GAMES_URL, {"players": PLAYERS}, format="json")

    assert response.status_code == 201


def test_a_game_keeps_the_rule_set_it_was_created_with_R40(organiser_client):
    response = organiser_client.post(
        GAMES_URL, {"players": PLAYERS, "rules": {"starting_stones": 30}}, format="json"
    )

    assert response.status_code == 201
    assert response.json()["state"]["table"] == 30
    assert Game.objects.get(pk=response.json()["id"]).rules["starting_stones"] == 30


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"players": PLAYERS[:4]}, "record_invalid"),  # R3, as an imported record says
        ({"players": [*PLAYERS[:4], " "]}, "record_invalid"),
        ({}, "invalid"),
        ({"players": PLAYERS, "rules": {"jokers": 2}}, "record_invalid"),
        ({"players": PLAYERS, "rules": {"starting_stones": -1}}, "record_invalid"),
    ],
)
def test_a_game_needs_five_names_and_a_rule_set_R40_allows_R3_R40(organiser_client, body, code):
    response = organiser_client.post(GAMES_URL, body, format="json")

    assert response.status_code == 400
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == code
    assert not Game.objects.exists()


@pytest.mark.parametrize("name", ["x" * 81, "é" * 81, "  " + "y" * 81])
def test_a_name_longer_than_a_seat_holds_is_refused_by_rule_R3_not_a_500(organiser_client, name):
    response = organiser_client.post(GAMES_URL, {"players": [*PLAYERS[:4], name]}, format="json")

    assert response.status_code == 400
    assert response["Content-Type"] == PROBLEM
    assert (response.json()["code"], response.json()["rule"]) == ("record_invalid", "R3")
    assert not Game.objects.exists()


def test_a_name_of_80_characters_is_kept_whole(organiser_client):
    response = organiser_client.post(
        GAMES_URL, {"players": [*PLAYERS[:4], "z" * 80 + "  "]}, format="json"
    )

    assert response.status_code == 201
    assert response.json()["state"]["seats"][4]["name"] == "z" * 80


def test_a_game_cannot_be_created_without_credentials(db):
    response = APIClient().post(GAMES_URL, {"players": PLAYERS}, format="json")

    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


def test_a_phone_cannot_create_a_game(table):
    response = table.scorekeeper.post(GAMES_URL, {"players": PLAYERS}, format="json")

    assert response.status_code == 403
    assert response.json()["code"] == "permission_denied"


# -- joining ---------------------------------------------------------------------------


def test_a_phone_exchanges_the_join_code_for_a_scorekeeper_token(table):
    response = join({"join_code": table.game.join_code})

    assert response.status_code == 201
    body = response.json()
    assert body["game"] == table.id
    assert body["seat"] is None
    token = TableToken.objects.get(key_hash=hash_token(body["token"]))
    assert token.game_id == table.game.pk
    assert not TableToken.objects.filter(key_hash=body["token"]).exists()  # only its hash


def test_a_phone_joined_to_one_seat_gets_a_token_for_that_seat(table):
    response = join({"join_code": table.game.join_code, "seat": 3, "label": "Daeng's phone"})

    assert response.status_code == 201
    assert response.json()["seat"] == 3
    phone = table_client(response.json()["token"])
    assert phone.get(table.url()).status_code == 200
    refused = table.play(0, "6-6", client=phone)
    assert refused.status_code == 403
    assert refused.json()["code"] == "seat_not_allowed"


def test_a_join_code_is_read_aloud_so_case_and_dashes_do_not_matter(table):
    code = table.game.join_code
    spoken = f"{code[:4]}-{code[4:8]}-{code[8:]}".lower()

    assert join({"join_code": spoken}).status_code == 201


def test_a_wrong_join_code_is_a_404_problem(table):
    response = join({"join_code": "NOPE-NOPE-NO"})

    assert response.status_code == 404
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "join_code_invalid"


def test_a_closed_games_join_code_no_longer_works(table):
    assert table.close().status_code == 200

    response = join({"join_code": table.game.join_code})

    assert response.status_code == 404
    assert response.json()["code"] == "join_code_invalid"


def test_a_seat_outside_0_to_4_cannot_be_joined_R3(table):
    response = join({"join_code": table.game.join_code, "seat": 5})

    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "seat"


def test_repeated_wrong_join_codes_lock_the_client_out_even_with_the_right_code(table, lockout):
    for _ in range(lockout.JOIN_LOCKOUT_FAILURES):
        assert join({"join_code": "WRONG"}).status_code == 404

    locked = join({"join_code": table.game.join_code})

    assert locked.status_code == 429
    assert locked["Content-Type"] == PROBLEM
    assert locked.json()["code"] == "join_locked_out"


def test_a_locked_out_client_is_told_when_the_lockout_ends(table, lockout):
    for _ in range(lockout.JOIN_LOCKOUT_FAILURES):
        join({"join_code": "WRONG"})

    locked = join({"join_code": table.game.join_code})

    assert locked.status_code == 429
    assert locked.json()["code"] == "join_locked_out"
    assert 0 < int(locked["Retry-After"]) <= lockout.JOIN_LOCKOUT_SECONDS


def test_the_lockout_allows_a_clubs_shared_address_many_typos_by_default(table, settings):
    assert settings.JOIN_LOCKOUT_FAILURES >= 30
    assert settings.JOIN_LOCKOUT_SECONDS <= 600
    for _ in range(20):  # a dozen phones behind the club's NAT, each mistyping once or twice
        assert join({"join_code": "WRONG"}).status_code == 404

    assert join({"join_code": table.game.join_code}).status_code == 201


def test_the_lockout_ends_with_its_window(table, lockout, monkeypatch):
    import time

    from django.utils import timezone

    for _ in range(lockout.JOIN_LOCKOUT_FAILURES):
        join({"join_code": "WRONG"})
    assert join({"join_code": table.game.join_code}).status_code == 429
    later = time.time() + lockout.JOIN_LOCKOUT_SECONDS + 1
    monkeypatch.setattr(time, "time", lambda: later)  # the window's end
    moved = timezone.now() + timezone.timedelta(seconds=lockout.JOIN_LOCKOUT_SECONDS + 1)
    monkeypatch.setattr(timezone, "now", lambda: moved)  # the database cache's expiry

    assert join({"join_code": table.game.join_code}).status_code == 201


def test_a_lockout_is_per_client(table, lockout):
    for _ in range(lockout.JOIN_LOCKOUT_FAILURES):
        join({"join_code": "WRONG"}, REMOTE_ADDR="10.0.0.1")

    assert join({"join_code": table.game.join_code}, REMOTE_ADDR="10.0.0.1").status_code == 429
    assert join({"join_code": table.game.join_code}, REMOTE_ADDR="10.0.0.2").status_code == 201


def test_a_forged_forwarded_for_header_does_not_escape_the_lockout(table, lockout):
    for n in range(lockout.JOIN_LOCKOUT_FAILURES):
        join({"join_code": "WRONG"}, HTTP_X_FORWARDED_FOR=f"198.51.100.{n}")

    locked = join({"join_code": table.game.join_code}, HTTP_X_FORWARDED_FOR="203.0.113.9")

    assert locked.status_code == 429
    assert locked.json()["code"] == "join_locked_out"


def test_behind_a_proxy_the_lockout_counts_per_forwarded_client(table, lockout):
    lockout.REST_FRAMEWORK = {**lockout.REST_FRAMEWORK, "NUM_PROXIES": 1}
    proxy = {"REMOTE_ADDR": "10.0.0.254"}
    for _ in range(lockout.JOIN_LOCKOUT_FAILURES):
        join({"join_code": "WRONG"}, HTTP_X_FORWARDED_FOR="198.51.100.7", **proxy)

    code = table.game.join_code
    locked = join({"join_code": code}, HTTP_X_FORWARDED_FOR="198.51.100.7", **proxy)
    other = join({"join_code": code}, HTTP_X_FORWARDED_FOR="198.51.100.8", **proxy)

    assert locked.status_code == 429
    assert locked.json()["code"] == "join_locked_out"
    assert other.status_code == 201


# -- who may use a game ----------------------------------------------------------------


def test_without_credentials_a_game_is_401_and_says_how_to_authenticate(table):
    response = APIClient().get(table.url())

    assert response.status_code == 401
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "not_authenticated"
    assert response["WWW-Authenticate"] == "Table"


@pytest.mark.parametrize("suffix", ["", "events/", "record/", "result/"])
def test_another_games_table_token_is_403(table, suffix):
    other = table_client(table_key(game=GameFactory()))

    response = other.get(table.url(suffix))

    assert response.status_code == 403
    assert response.json()["code"] == "permission_denied"


@pytest.mark.parametrize(
    ("suffix", "body"),
    [
        ("moves/", {"seat": 0, "tile": "6-6"}),
        ("reveals/", {"seat": 0, "pips": 3}),
        ("undo/", {}),
        ("sessions/", {}),
        ("close/", {}),
    ],
)
def test_another_games_table_token_cannot_write_to_a_game(table, suffix, body):
    other = table_client(table_key(game=GameFactory()))

    response = other.post(table.url(suffix), body, format="json")

    assert response.status_code == 403
    assert table.state()["version"] == 0
    assert table.state()["status"] == "open"


def test_an_unknown_or_revoked_table_token_is_401(table):
    key = table_key(game=table.game, seat=0)
    TableToken.objects.filter(key_hash=hash_token(key)).update(revoked_at=timezone.now())

    assert table_client(key).get(table.url()).status_code == 401
    assert table_client("not-a-token").get(table.url()).status_code == 401


def test_another_organiser_cannot_use_a_game_but_staff_can(table):
    stranger = token_client(UserFactory())
    staff = token_client(UserFactory(is_staff=True))

    assert stranger.get(table.url()).status_code == 403
    assert staff.get(table.url()).status_code == 200


def test_an_unknown_game_is_404(table):
    response = table.organiser.get(f"{API}/games/{uuid.uuid4()}/")

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
