"""Games lists show who sits each seat now, after a re-seating or a substitute (R38)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.scoring.conftest import API

pytestmark = pytest.mark.django_db


@pytest.fixture
def reseated(organiser_client, club, players):
    """A club game of Andi, Besse (players), Cakra, Daeng, Evi (guests); then Cakra's name is
    corrected and Fajar (a club player) takes seat 4 from round 1 on."""
    seats = [players[0].pk, players[1].pk, "Cakra", "Daeng", "Evi"]
    response = organiser_client.post(
        f"{API}/games/", {"players": seats, "club": club.slug}, format="json"
    )
    assert response.status_code == 201, response.content
    game = response.json()["id"]
    renamed = organiser_client.put(
        f"{API}/games/{game}/seats/2/", {"name": "Cakra Wijaya"}, format="json"
    )
    substitute = organiser_client.post(
        f"{API}/games/{game}/seats/4/substitutes/",
        {"player": players[5].pk, "reason": "Evi went home"},
        format="json",
    )
    assert renamed.status_code == 200, renamed.content
    assert substitute.status_code == 200, substitute.content
    return game


NOW = ["Andi", "Besse", "Cakra Wijaya", "Daeng", "Fajar"]


def test_the_api_games_list_shows_who_sits_now_R38(organiser_client, reseated):
    response = organiser_client.get(f"{API}/games/")

    assert response.status_code == 200
    [game] = [g for g in response.json()["results"] if g["id"] == reseated]
    assert game["players"] == NOW


def test_the_club_games_list_shows_who_sits_now_and_their_player_R38(
    organiser_client, club, players, reseated
):
    response = organiser_client.get(f"{API}/clubs/{club.slug}/games/")

    assert response.status_code == 200
    [game] = [g for g in response.json()["results"] if g["id"] == reseated]
    assert [s["name"] for s in game["seats"]] == NOW
    assert [s["player"] for s in game["seats"]] == [
        players[0].pk,
        players[1].pk,
        None,
        None,
        players[5].pk,
    ]


def test_the_organisers_web_games_list_shows_who_sits_now_R38(organiser, reseated):
    client = Client()
    client.force_login(organiser)

    page = client.get(reverse("web:organiser-games")).content.decode()
    # The games listed, not the new-game form after them (its seats offer every club player).
    listed = page.split('<form method="post" class="join">', 1)[0]

    assert " · ".join(NOW) in listed
    assert "Evi" not in listed
    assert "Cakra ·" not in listed
