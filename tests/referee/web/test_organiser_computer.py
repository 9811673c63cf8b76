"""The organiser's page for computer seats (R39): set a seat's strategy, enter its hand."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from referee import services
from referee.models import Event, Seat


@pytest.fixture
def organiser(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user("orga", password="correct horse battery")


@pytest.fixture
def organised(client: Client, organiser):
    client.force_login(organiser)
    return services.game_create(players=["A", "B", "C", "Computer", "E"], created_by=organiser)


def test_the_organiser_makes_a_seat_the_computers_and_enters_its_hand_r39(client, organised):
    url = f"/games/{organised.pk}/computer/"

    set_it = client.post(url, {"seat": "3", "strategy": "strong"}, follow=True)
    page = set_it.content.decode()
    assert Seat.objects.get(game=organised, number=3).computer == "strong"
    assert "Seat 3 is set." in page
    assert 'name="tiles"' in page  # a computer seat gets the form for its hand

    entered = client.post(url, {"seat": "3", "tiles": "6-6, 0-1 0-2 0-3 0-4"}, follow=True)

    assert "The computer&#x27;s hand is entered." in entered.content.decode()
    moves = Event.objects.filter(game=organised, kind="move")
    assert [(e.payload, e.entered_by) for e in moves] == [
        ({"seat": 3, "tile": "6-6"}, "computer (strong) at seat 3")  # it leads with 6-6 (R5)
    ]


def test_a_refused_hand_says_why_and_stores_nothing_r31(client, organised):
    url = f"/games/{organised.pk}/computer/"
    client.post(url, {"seat": "3", "strategy": "greedy"})

    refused = client.post(url, {"seat": "3", "tiles": "6-6 6-6 0-2 0-3 0-4"}, follow=True)

    assert "must declare five distinct tiles" in refused.content.decode()
    assert not Event.objects.filter(game=organised).exists()


def test_a_persons_seat_has_no_hand_to_enter_r39(client, organised):
    url = f"/games/{organised.pk}/computer/"

    refused = client.post(url, {"seat": "1", "tiles": "6-6 0-1 0-2 0-3 0-4"}, follow=True)

    assert "played by a person" in refused.content.decode()


def test_another_organisers_game_is_not_found(client, organised, django_user_model):
    client.force_login(django_user_model.objects.create_user("other"))

    response = client.post(f"/games/{organised.pk}/computer/", {"seat": "3", "strategy": "strong"})

    assert response.status_code == 404
    assert Seat.objects.get(game=organised, number=3).computer == ""
