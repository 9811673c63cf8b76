"""Issue 28: a club's language (``Club.language``): chosen at its creation and on its page,
spoken by its pages — the room view, the standings, the organiser's pages and the phones
joining its games — to a browser that names no language of the project's.

The rule (``referee.languages``): the browser's choice first (the language switch's
cookie, then ``Accept-Language``), then the club's language, then the server's
``LANGUAGE_CODE``.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from referee import services
from scoring import room
from scoring.models import Club
from tests.factories import UserFactory
from tests.scoring.factories import ClubFactory, OrganiserFactory

pytestmark = pytest.mark.django_db

NAMES = ["Wulan", "Baso", "Icha", "Upi", "Rahma"]


def lang(response: Any) -> str:
    match = re.search(r'<html lang="([\w-]+)">', response.content.decode())
    assert match, response.content.decode()[:300]
    return match.group(1)


@pytest.fixture
def club() -> Club:
    return ClubFactory(name="Club de Montréal", slug="montreal", is_public=True, language="fr")


def test_a_new_club_speaks_the_servers_language() -> None:
    assert ClubFactory().language == "en"  # LANGUAGE_CODE


@pytest.mark.parametrize(
    ("headers", "cookie", "expected"),
    [
        ({}, None, "fr"),  # no preference: the club's
        ({"Accept-Language": "de-DE,de;q=0.9"}, None, "fr"),  # none the project has
        ({"Accept-Language": "*"}, None, "fr"),
        ({"Accept-Language": "pl-PL,pl;q=0.9"}, None, "pl"),  # the browser's first
        ({"Accept-Language": "de,en-GB;q=0.5"}, None, "en"),
        ({"Accept-Language": "pl"}, "id", "id"),  # the language switch before all
    ],
)
def test_the_standings_and_room_view_speak_the_browsers_language_else_the_clubs(
    club: Club, headers: dict[str, str], cookie: str | None, expected: str
) -> None:
    client = Client(headers=headers)
    if cookie:
        client.cookies["django_language"] = cookie

    standings = client.get("/clubs/montreal/standings/")
    tv = client.get(room.room_url(club))

    assert standings.status_code == tv.status_code == 200
    assert lang(standings) == lang(tv) == expected
    assert standings["Content-Language"] == expected


def test_the_room_views_live_partial_speaks_the_clubs_language(club: Club) -> None:
    services.game_create(players=list(NAMES), club=club)
    url = room.room_url(club).replace("/room/montreal/", "/room/montreal/live/")

    answer = Client().get(url)

    assert answer.status_code == 200
    assert answer["Content-Language"] == "fr"


def test_a_friendly_games_phone_speaks_the_servers_language() -> None:
    game = services.game_create(players=list(NAMES))
    client = Client()

    assert lang(client.get(f"/join/{game.join_code}/?device=1")) == "en"


def test_a_phone_joining_a_club_game_speaks_the_clubs_language_unless_it_asks(
    club: Club,
) -> None:
    game = services.game_create(players=list(NAMES), club=club)
    phone = Client()

    assert lang(phone.get(f"/join/{game.join_code}/?device=1")) == "fr"
    assert phone.post(f"/join/{game.join_code}/", {"seat": "2"}).status_code == 302
    assert lang(phone.get("/table/")) == "fr"
    assert phone.get("/table/live/")["Content-Language"] == "fr"

    asking = Client(headers={"Accept-Language": "id-ID"})
    assert lang(asking.get(f"/join/{game.join_code}/?device=1")) == "id"


def test_the_organiser_chooses_the_language_on_the_clubs_page() -> None:
    user = UserFactory(username="director")
    club = ClubFactory(slug="makassar", language="en")
    OrganiserFactory(club=club, user=user)
    client = Client()
    client.force_login(user)

    page = client.get("/clubs/makassar/manage/").content.decode()
    answer = client.post(
        "/clubs/makassar/manage/",
        {"name": club.name, "slug": "makassar", "time_zone": "UTC", "language": "pl"},
    )
    club.refresh_from_db()

    assert '<select name="language"' in page
    assert '<option value="en" selected>English</option>' in page
    assert answer.status_code == 302
    assert club.language == "pl"
    assert lang(client.get("/clubs/makassar/manage/")) == "pl"  # its pages now speak it
    refused = client.post(
        "/clubs/makassar/manage/",
        {"name": club.name, "slug": "makassar", "time_zone": "UTC", "language": "de"},
    )
    assert refused.status_code == 400


def test_a_club_made_from_the_clubs_page_keeps_the_language_chosen() -> None:
    user = UserFactory(username="director")
    client = Client()
    client.force_login(user)

    answer = client.post(
        "/clubs/",
        {
            "name": "Klub Warszawa",
            "slug": "warszawa",
            "time_zone": "Europe/Warsaw",
            "language": "pl",
        },
    )

    assert answer.status_code == 302
    assert Club.objects.get(slug="warszawa").language == "pl"
