"""League games over HTTP: seats as names or player ids, imports, links, directors' corrections."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from referee import services
from referee.models import Correction, Game, Seat
from scoring.models import SeatRound
from tests.factories import GameFactory, UserFactory, table_key
from tests.scoring.conftest import API, token_client
from tests.scoring.factories import OrganiserFactory, PlayerFactory

pytestmark = pytest.mark.django_db


def test_a_club_game_is_created_with_player_ids_and_a_guests_name(
    organiser_client, club, season, players
):
    body = {
        "players": [
            players[0].pk,
            {"player": players[1].pk},
            "  Gita  ",
            players[2].pk,
            players[3].pk,
        ],
        "club": club.slug,
        "season": season.pk,
    }

    response = organiser_client.post(f"{API}/games/", body, format="json")

    assert response.status_code == 201, response.content
    game = Game.objects.get(pk=response.json()["id"])
    assert (game.league.club, game.league.season) == (club, season)
    names = [seat["name"] for seat in response.json()["state"]["seats"]]
    assert names == ["Andi", "Besse", "Gita", "Cakra", "Daeng"]
    assert list(game.seats.values_list("registered__player", flat=True)) == [
        players[0].pk,
        players[1].pk,
        None,
        players[2].pk,
        players[3].pk,
    ]


@pytest.mark.parametrize(
    ("seat", "status", "code"),
    [
        # Not a name nor a player id: R3, as an imported record with it says.
        (True, 400, "record_invalid"),
        ({"player": "x"}, 400, "record_invalid"),
        (0, 400, "player_not_in_club"),  # no player of the club has the id 0
        ("   ", 400, "record_invalid"),
        ("x" * 81, 400, "record_invalid"),
    ],
)
def test_a_seat_is_a_name_or_a_player_id_and_nothing_else(
    organiser_client, club, seat, status, code
):
    body = {"players": [seat, "B", "C", "D", "E"], "club": club.slug}

    response = organiser_client.post(f"{API}/games/", body, format="json")

    assert (response.status_code, response.json()["code"]) == (status, code)
    assert not Game.objects.exists()


def test_a_game_with_another_clubs_player_is_refused(organiser_client, club, players):
    stranger = PlayerFactory()
    body = {"players": [stranger.pk, "B", "C", "D", "E"], "club": club.slug}

    response = organiser_client.post(f"{API}/games/", body, format="json")

    assert (response.status_code, response.json()["code"]) == (400, "player_not_in_club")
    assert response.json()["player"] == stranger.pk


@pytest.mark.parametrize(
    "seat",
    [10**30, 2**63, {"player": 1000000000000000000000000000000}],
    ids=["10**30", "2**63", "spelled-out"],
)
def test_a_player_id_beyond_64_bits_is_refused_at_the_edge_not_a_500(organiser_client, club, seat):
    """Any integer beyond 64 bits is out of range where the body is parsed (400
    ``parse_error``, as ``1e400``); ids up to 2**63 - 1 reach the league's check (below)."""
    body = {"players": [seat, 2, 3, 4, 5], "club": club.slug}

    response = organiser_client.post(f"{API}/games/", body, format="json")

    assert (response.status_code, response.json()["code"]) == (400, "parse_error")
    assert not Game.objects.exists()


def test_the_largest_64_bit_player_id_is_an_unknown_player(organiser_client, club):
    body = {"players": [2**63 - 1, 2, 3, 4, 5], "club": club.slug}

    response = organiser_client.post(f"{API}/games/", body, format="json")

    assert (response.status_code, response.json()["code"]) == (400, "player_not_in_club")
    assert not Game.objects.exists()


def test_an_out_of_range_player_id_is_never_sent_to_the_database(organiser, club, players):
    from scoring.exceptions import PlayerNotInClub
    from scoring.services import PLAYER_ID_MAX, game_league_resolve

    with CaptureQueriesContext(connection) as queries, pytest.raises(PlayerNotInClub):
        game_league_resolve(
            players=[players[0].pk, 10**30, "C", "D", "E"], club=club, created_by=organiser
        )

    assert not any(str(10**30) in query["sql"] for query in queries.captured_queries)
    assert PLAYER_ID_MAX == 2**63 - 1


def test_a_member_cannot_create_a_club_game(member_client, club):
    body = {"players": ["A", "B", "C", "D", "E"], "club": club.slug}

    response = member_client.post(f"{API}/games/", body, format="json")

    assert (response.status_code, response.json()["code"]) == (403, "not_club_organiser")


def test_a_record_is_imported_into_a_club_and_season(organiser_client, club, season, load_scenario):
    record = load_scenario("14_camat_election_reset_25")["record"]

    response = organiser_client.post(
        f"{API}/games/import/?club={club.slug}&season={season.pk}", record, format="json"
    )

    assert response.status_code == 201, response.content
    game = Game.objects.get(pk=response.json()["id"])
    assert (game.league.club, game.league.season) == (club, season)
    assert SeatRound.objects.filter(game=game, season=season).count() == 15


def test_an_organiser_links_a_guest_seat_to_a_player_over_http(
    organiser_client, member_client, club, season, players, import_game, load_scenario
):
    game = import_game(load_scenario("01_plain_finish")["record"], [*players[:4], "Evi?"], season)
    url = f"{API}/clubs/{club.slug}/games/{game.pk}/seats/4/link/"

    denied = member_client.post(url, {"player": players[4].pk}, format="json")
    linked = organiser_client.post(url, {"player": players[4].pk}, format="json")
    games = member_client.get(f"{API}/clubs/{club.slug}/games/?season={season.pk}").json()

    assert denied.status_code == 403
    assert linked.json() == {"seat": 4, "name": "Evi?", "player": players[4].pk}
    assert SeatRound.objects.get(game=game, seat=4).player == players[4]
    assert games["results"][0]["seats"][4]["player"] == players[4].pk
    assert (
        organiser_client.post(
            f"{API}/clubs/{club.slug}/games/{game.pk}/seats/5/link/",
            {"player": None},
            format="json",
        ).status_code
        == 404
    )


def _played_game(club, season, players, load_scenario, creator):
    """A club game created by ``creator`` with one round played (a plain FIRST CAPPU)."""
    game = services.game_create(
        players=[p.pk for p in players[:5]], created_by=creator, club=club, season=season
    )
    actor = services.Actor(user=creator)
    for move in load_scenario("01_plain_finish")["record"]["rounds"][0]["moves"]:
        services.event_submit(game_id=game.pk, kind="move", payload=move, actor=actor)
    return game


def test_any_organiser_of_the_club_may_correct_a_game_and_it_is_logged(
    club, season, players, load_scenario
):
    creator = OrganiserFactory(club=club, user=UserFactory(username="creator")).user
    director = token_client(OrganiserFactory(club=club, user=UserFactory(username="chief")).user)
    game = _played_game(club, season, players, load_scenario, creator)

    response = director.post(
        f"{API}/games/{game.pk}/undo/", {"reason": "wrong tile"}, format="json"
    )

    assert response.status_code == 200, response.content
    correction = Correction.objects.get(game=game)
    assert (correction.entered_by, correction.reason) == ("user chief", "wrong tile")
    assert not SeatRound.objects.filter(game=game).exists()  # the settling move was undone


def test_members_outsiders_and_other_tables_cannot_correct_a_club_game(
    club, season, players, load_scenario, member_client, outsider_client, organiser
):
    game = _played_game(club, season, players, load_scenario, organiser)
    phone = APIClient()
    phone.credentials(HTTP_AUTHORIZATION=f"Table {table_key(game=GameFactory())}")

    for client in (member_client, outsider_client, phone):
        assert client.post(f"{API}/games/{game.pk}/undo/", {}, format="json").status_code == 403
    assert not Correction.objects.exists()


def test_a_table_token_plays_its_own_game_but_reads_no_league_records(
    club, season, players, organiser
):
    game = GameFactory(club=club, season=season)
    phone = APIClient()
    phone.credentials(HTTP_AUTHORIZATION=f"Table {table_key(game=game)}")

    assert phone.get(f"{API}/games/{game.pk}/").status_code == 200
    assert phone.get(f"{API}/clubs/{club.slug}/standings/").status_code == 404  # issue 27
    assert Seat.objects.filter(game=game).count() == 5


# -- an organiser's list of games ----------------------------------------------------------


def test_an_organiser_lists_the_games_they_created_and_those_of_the_clubs_they_organise(
    club, season, players, organiser, organiser_client, load_scenario
):
    own = services.game_create(players=list("ABCDE"), created_by=organiser)
    colleague = OrganiserFactory(club=club, user=UserFactory(username="colleague")).user
    club_game = services.game_create(
        players=[p.pk for p in players[:5]], created_by=colleague, club=club, season=season
    )
    services.game_create(players=list("VWXYZ"), created_by=UserFactory())  # someone else's

    response = organiser_client.get(f"{API}/games/")

    assert response.status_code == 200
    body = response.json()
    listed = body["results"]
    assert (len(listed), body["next"]) == (2, None)
    assert [game["id"] for game in listed] == [str(club_game.pk), str(own.pk)]  # newest first
    assert listed[0] == {
        "id": str(club_game.pk),
        "status": "open",
        "created_at": listed[0]["created_at"],
        "closed_at": None,
        "players": ["Andi", "Besse", "Cakra", "Daeng", "Evi"],
        "club": club.slug,
        "season": season.pk,
        "version": 0,
    }
    assert (listed[1]["players"], listed[1]["club"], listed[1]["season"]) == (
        list("ABCDE"),
        None,
        None,
    )


def test_a_member_lists_only_the_games_they_created(club, season, players, organiser, member):
    services.game_create(
        players=[p.pk for p in players[:5]], created_by=organiser, club=club, season=season
    )

    response = token_client(member).get(f"{API}/games/")

    assert response.status_code == 200
    assert response.json()["results"] == []


def test_staff_list_every_game_and_the_list_is_paginated(db):
    for n in range(3):
        services.game_create(players=[f"{n}{c}" for c in "ABCDE"], created_by=UserFactory())
    staff = token_client(UserFactory(username="staff", is_staff=True))

    first = staff.get(f"{API}/games/?page_size=2").json()
    second = staff.get(first["next"]).json()

    assert len(first["results"]) == 2
    assert len(second["results"]) == 1
    assert second["results"][0]["players"][0] == "0A"  # the oldest last


def test_the_list_of_games_is_for_organisers_not_phones_or_strangers(db):
    game = GameFactory()
    phone = APIClient()
    phone.credentials(HTTP_AUTHORIZATION=f"Table {table_key(game=game)}")

    assert phone.get(f"{API}/games/").json()["code"] == "permission_denied"
    anonymous = APIClient().get(f"{API}/games/")
    assert (anonymous.status_code, anonymous.json()["code"]) == (401, "not_authenticated")


def test_listing_games_costs_the_same_queries_however_many_games(
    organiser, organiser_client, club, season, players
):
    for _ in range(2):
        services.game_create(players=list("ABCDE"), created_by=organiser)
    with CaptureQueriesContext(connection) as few:
        assert organiser_client.get(f"{API}/games/").status_code == 200
    for _ in range(10):
        services.game_create(
            players=[p.pk for p in players[:5]], created_by=organiser, club=club, season=season
        )

    with CaptureQueriesContext(connection) as many:
        assert len(organiser_client.get(f"{API}/games/").json()["results"]) == 12

    assert len(many) == len(few)
