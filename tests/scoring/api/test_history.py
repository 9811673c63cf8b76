"""A player's history, head-to-head and ratings over HTTP."""

from __future__ import annotations

import datetime as dt

import pytest
from rest_framework.test import APIClient

from tests.scoring.conftest import API
from tests.scoring.factories import PlayerFactory, SeasonFactory, SeatRoundFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_games(club, season, players, import_game, load_scenario):
    first = import_game(load_scenario("01_plain_finish")["record"], players[:5], season)
    later = import_game(load_scenario("14_camat_election_reset_25")["record"], players[:5], season)
    return first, later


def test_a_players_rounds_come_newest_first_with_the_named_outcomes(
    member_client, club, players, two_games
):
    first, later = two_games

    response = member_client.get(f"{API}/clubs/{club.slug}/players/{players[1].pk}/rounds/")

    assert response.status_code == 200
    rounds = response.json()["results"]
    assert [(r["game"], r["round"]) for r in rounds] == [
        (str(later.pk), 3),
        (str(later.pk), 2),
        (str(later.pk), 1),
        (str(first.pk), 1),
    ]
    assert rounds[0]["named"] == ["FIRST CAPPU", "POLLO", "CAMAT"]
    assert rounds[0]["won"] is True
    assert rounds[0]["season_name"] == "2026 first half"


def test_a_players_games_come_newest_first_with_their_totals(
    member_client, club, players, two_games
):
    first, later = two_games

    games = member_client.get(f"{API}/clubs/{club.slug}/players/{players[0].pk}/games/").json()

    assert [g["game"] for g in games["results"]] == [str(later.pk), str(first.pk)]
    assert games["results"][1]["first_cappu"] == 1  # Andi goes out in 01 (R14)
    assert games["results"][0]["rounds_played"] == 3


def test_head_to_head_compares_two_players_across_seasons(
    member_client, club, season, players, import_game, load_scenario, two_games
):
    autumn = SeasonFactory(
        club=club, name="Autumn", starts_on=dt.date(2026, 7, 1), ends_on=dt.date(2026, 12, 31)
    )
    import_game(load_scenario("02_ceki")["record"], [players[1], players[0], *players[2:5]], autumn)

    response = member_client.get(
        f"{API}/clubs/{club.slug}/head-to-head/", {"a": players[0].pk, "b": players[1].pk}
    )

    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["games_together"], body["rounds_together"]) == (3, 5)
    assert body["a"]["player"]["display_name"] == "Andi"
    assert body["b"]["totals"]["camat_elected"] == 1
    assert body["b"]["totals"]["ceki"] == 1  # Besse in seat 0 of 02 (R15)
    assert [s["season_name"] for s in body["seasons"]] == ["2026 first half", "Autumn"]
    assert sum(s["rounds_together"] for s in body["seasons"]) == 5


@pytest.mark.parametrize(
    ("query", "status"),
    [({"a": 1}, 400), ({"a": "x", "b": 2}, 400), ({"a": 5, "b": 5}, 400)],
)
def test_head_to_head_needs_two_different_players(member_client, club, query, status):
    response = member_client.get(f"{API}/clubs/{club.slug}/head-to-head/", query)

    assert response.status_code == status


def test_head_to_head_with_another_clubs_player_is_not_found(member_client, club, players):
    response = member_client.get(
        f"{API}/clubs/{club.slug}/head-to-head/", {"a": players[0].pk, "b": PlayerFactory().pk}
    )

    assert response.status_code == 404


def test_ratings_put_the_camat_of_the_only_cycle_first(
    member_client, club, season, players, two_games
):
    response = member_client.get(f"{API}/clubs/{club.slug}/ratings/", {"season": season.pk})

    assert response.status_code == 200
    body = response.json()
    assert (body["model"], body["season"], body["cycles"]) == (
        "openskill.BradleyTerryFull",
        season.pk,
        1,
    )
    assert body["results"][0]["player"] == players[1].pk
    # Cakra and Daeng held 7 each: equal ratings, one rank, and the next rank skips.
    assert [r["rank"] for r in body["results"]] == [1, 2, 3, 3, 5]
    ordinals = [r["ordinal"] for r in body["results"]]
    assert ordinals == sorted(ordinals, reverse=True)


def test_a_private_clubs_history_is_closed_to_anonymous_callers(club, players, two_games):
    """Not found, as a club that does not exist (issue 27)."""
    client = APIClient()

    assert client.get(f"{API}/clubs/{club.slug}/players/{players[0].pk}/rounds/").status_code == 404
    assert client.get(f"{API}/clubs/{club.slug}/ratings/").status_code == 404
    assert (
        client.get(
            f"{API}/clubs/{club.slug}/head-to-head/", {"a": players[0].pk, "b": players[1].pk}
        ).status_code
        == 404
    )


@pytest.mark.parametrize("path", ["rounds", "games"])
def test_a_players_history_is_filtered_by_the_clubs_local_dates(
    member_client, club, season, players, path
):
    """Issue 28: Montreal (UTC-5 in December): a round at 20:30 local on Friday 4 December
    (01:30 UTC on Saturday) is Friday's."""
    club.time_zone = "America/Montreal"
    club.save()
    at = dt.datetime(2026, 12, 5, 1, 30, tzinfo=dt.UTC)
    SeatRoundFactory(season=season, player=players[0], played_at=at)
    url = f"{API}/clubs/{club.slug}/players/{players[0].pk}/{path}/"

    friday = member_client.get(url, {"played_after": "2026-12-04", "played_before": "2026-12-04"})
    saturday = member_client.get(url, {"played_after": "2026-12-05"})

    assert friday.status_code == 200, friday.content
    assert len(friday.json()["results"]) == 1  # a cursor page: no count
    assert saturday.json()["results"] == []
