"""Issue 27, finding 5: HTTP says which league answers are private.

Every answer of the league API that depends on who asks — a private club's records, the
club list and a club's ``role``, the member list, every write and every error — says
``Cache-Control: private, no-store``; a published club's read that is the same for everyone
stays cacheable. The OpenAPI schema declares the header on every league operation.
"""

from __future__ import annotations

import pytest
from django.urls import URLPattern
from rest_framework.test import APIClient

from referee.api.schema import PRIVATE_CACHE_CONTROL
from scoring.api import urls as league_urls
from tests.scoring.conftest import API

pytestmark = pytest.mark.django_db

# Reads of a club whose body is the same for every caller once the club is published.
SHARED_READS = [
    "players/",
    "players/{player}/",
    "players/{player}/rounds/",
    "players/{player}/games/",
    "seasons/",
    "seasons/{season}/",
    "seasons/{season}/standings/",
    "standings/",
    "head-to-head/?a={player}&b={other}",
    "ratings/",
    "games/",
]


def is_private(response) -> bool:
    directives = {d.strip() for d in response.get("Cache-Control", "").split(",")}
    return {"private", "no-store"} <= directives


def url(club, path: str, players, season) -> str:
    return f"{API}/clubs/{club.slug}/" + path.format(
        player=players[0].pk, other=players[1].pk, season=season.pk
    )


@pytest.mark.parametrize("path", SHARED_READS)
def test_a_private_clubs_records_are_private_to_its_members_and_its_404_to_outsiders(
    club, member_client, outsider_client, players, season, path
):
    member = member_client.get(url(club, path, players, season))
    outsider = outsider_client.get(url(club, path, players, season))
    missing = outsider_client.get(url(club, path, players, season).replace(club.slug, "nope"))

    assert member.status_code == 200, member.content
    assert is_private(member)
    assert outsider.status_code == missing.status_code == 404
    assert is_private(outsider)
    assert is_private(missing)
    assert outsider["Cache-Control"] == missing["Cache-Control"]


@pytest.mark.parametrize("path", SHARED_READS)
def test_a_published_clubs_shared_reads_stay_cacheable(club, players, season, path):
    club.is_public = True
    club.save(update_fields=["is_public"])

    anonymous = APIClient().get(url(club, path, players, season))

    assert anonymous.status_code == 200, anonymous.content
    assert not is_private(anonymous)


@pytest.mark.parametrize("path", ["", "members/"])
def test_the_callers_own_role_and_the_member_list_are_private_even_when_published(
    club, organiser_client, players, season, path
):
    club.is_public = True
    club.save(update_fields=["is_public"])

    response = organiser_client.get(url(club, path, players, season))

    assert response.status_code == 200
    assert is_private(response)


def test_the_club_list_and_every_write_answer_are_private(club, organiser_client):
    listed = APIClient().get(f"{API}/clubs/")
    created = organiser_client.post(
        f"{API}/clubs/{club.slug}/players/", {"display_name": "Evi"}, format="json"
    )
    refused = APIClient().post(f"{API}/clubs/{club.slug}/players/", {}, format="json")

    assert listed.status_code == 200
    assert is_private(listed)
    assert created.status_code == 201
    assert is_private(created)
    assert refused.status_code == 401
    assert is_private(refused)


def test_the_schema_declares_cache_control_on_every_league_operation_issue_27(admin_client):
    schema = admin_client.get(f"{API}/schema/?format=json").json()
    league_paths = {
        "/api/v1/" + str(p.pattern).replace("<slug:slug>", "{slug}")
        for p in league_urls.urlpatterns
        if isinstance(p, URLPattern)
    }
    operations = [
        (path, method, operation)
        for path, item in schema["paths"].items()
        for method, operation in item.items()
        if any(path == _openapi(p) for p in league_paths)
    ]

    assert len(operations) >= 19  # every method of every route above
    for path, method, operation in operations:
        for code, response in operation["responses"].items():
            header = response.get("headers", {}).get("Cache-Control")
            assert header is not None, (path, method, code)
            assert header["schema"]["enum"] == [PRIVATE_CACHE_CONTROL]


def test_the_schema_declares_cache_control_on_a_games_state_too(admin_client):
    schema = admin_client.get(f"{API}/schema/?format=json").json()
    state = schema["paths"]["/api/v1/games/{game_id}/"]["get"]["responses"]

    assert "Cache-Control" in state["200"]["headers"]
    assert "Cache-Control" in state["304"]["headers"]
    assert "ETag" in state["304"]["headers"]


def _openapi(path: str) -> str:
    for converter in ("int", "uuid", "str"):
        path = path.replace(f"<{converter}:", "<")
    return path.replace("<", "{").replace(">", "}")
