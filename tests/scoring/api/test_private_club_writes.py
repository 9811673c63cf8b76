"""Issue 27 (finding 5): one answer for a club you may not see, on every method.

An organiser of club A writing to club B's private slug gets the body a missing slug gets,
byte for byte (404 ``not_found``), so writes cannot enumerate private clubs as reads no
longer can; a member of the club who does not organise it still gets 403
``not_club_organiser``. Every write route of the league API is listed here, and a test
fails when a route gains a write method the list does not cover.
"""

from __future__ import annotations

import uuid

import pytest
from django.urls import URLPattern

from scoring.api import urls as league_urls
from tests.scoring.conftest import API, PROBLEM

pytestmark = pytest.mark.django_db

GAME = uuid.UUID("00000000-0000-4000-8000-000000000027")
BODIES = {
    "club": {"is_public": True},
    "club-members": {"username": "outsider", "role": "organiser"},
    "club-players": {"display_name": "Evi"},
    "club-player": {"display_name": "Andi M."},
    "club-player-merge": {"duplicate": 1},
    "club-seasons": {"name": "2027", "starts_on": "2027-01-01", "ends_on": "2027-06-30"},
    "club-season": {"name": "2026 renamed"},
    "club-season-archive": {},
    "club-game-seat-link": {"player": 1},
}
# (route name, method, URL under /clubs/<slug>/) of every write of the league API on a club.
WRITES = [
    ("club", "patch", ""),
    ("club-members", "post", "members/"),
    ("club-players", "post", "players/"),
    ("club-player", "patch", "players/{player}/"),
    ("club-player-merge", "post", "players/{player}/merge/"),
    ("club-seasons", "post", "seasons/"),
    ("club-season", "patch", "seasons/{season}/"),
    ("club-season-archive", "post", "seasons/{season}/archive/"),
    ("club-game-seat-link", "post", f"games/{GAME}/seats/1/link/"),
]
WRITE_METHODS = {"post", "put", "patch", "delete"}


def _url(slug: str, path: str, players, season) -> str:
    return f"{API}/clubs/{slug}/" + path.format(player=players[0].pk, season=season.pk)


def test_every_write_route_of_the_league_api_is_covered_here_issue_27():
    """A new write method on a club's route must join ``WRITES`` (and so the tests below)."""
    routes: set[tuple[str, str]] = set()
    for pattern in league_urls.urlpatterns:
        assert isinstance(pattern, URLPattern)
        if "<slug:slug>" not in str(pattern.pattern):
            continue
        view = pattern.callback.view_class  # type: ignore[attr-defined]
        routes |= {(pattern.name, m) for m in WRITE_METHODS if hasattr(view, m)}

    assert routes == {(name, method) for name, method, _ in WRITES}


@pytest.mark.parametrize(("name", "method", "path"), WRITES, ids=[w[0] for w in WRITES])
def test_an_outsiders_write_to_a_private_club_is_a_missing_clubs_404_byte_for_byte(
    club, outsider_client, players, season, name, method, path
):
    """The hole: an organiser of another club got 403 ``not_club_organiser`` for a private
    club's slug and 404 for a missing one, so private slugs could be enumerated."""
    send = getattr(outsider_client, method)

    private = send(_url(club.slug, path, players, season), BODIES[name], format="json")
    missing = send(_url("no-such-club", path, players, season), BODIES[name], format="json")

    assert private.status_code == missing.status_code == 404
    assert private["Content-Type"] == missing["Content-Type"] == PROBLEM
    assert private.content == missing.content
    assert private.json()["code"] == "not_found"


@pytest.mark.parametrize(("name", "method", "path"), WRITES, ids=[w[0] for w in WRITES])
def test_a_member_who_does_not_organise_the_club_still_gets_not_club_organiser(
    club, member_client, players, season, name, method, path
):
    """A member sees the club: for them the write is refused as theirs to ask, 403."""
    send = getattr(member_client, method)

    response = send(_url(club.slug, path, players, season), BODIES[name], format="json")

    assert (response.status_code, response.json()["code"]) == (403, "not_club_organiser")


@pytest.mark.parametrize(("name", "method", "path"), WRITES, ids=[w[0] for w in WRITES])
def test_a_published_clubs_write_by_an_outsider_is_still_not_club_organiser(
    club, outsider_client, players, season, name, method, path
):
    """A public club is no secret: an outsider's write to it is refused, not hidden."""
    club.is_public = True
    club.save(update_fields=["is_public"])
    send = getattr(outsider_client, method)

    response = send(_url(club.slug, path, players, season), BODIES[name], format="json")

    assert (response.status_code, response.json()["code"]) == (403, "not_club_organiser")


def test_a_new_game_for_a_private_clubs_slug_or_season_is_refused_as_a_missing_one(
    club, outsider_client, season
):
    """``POST /games/`` with ``club``/``season``: the hole was 403 ``not_club_organiser``
    for a private club's slug and 400 for a missing one. Now both are the 400 of a slug (or
    id) no club has, byte for byte but for the value they echo."""
    seats = ["Andi", "Besse", "Cakra", "Daeng", "Evi"]

    def create(body):
        return outsider_client.post(f"{API}/games/", {"players": seats, **body}, format="json")

    private = create({"club": club.slug})
    missing = create({"club": "no-such-club"})
    private_season = create({"season": season.pk})
    missing_season = create({"season": 999_999})

    assert private.status_code == missing.status_code == 400
    assert private.content.replace(club.slug.encode(), b"no-such-club") == missing.content
    assert private_season.status_code == missing_season.status_code == 400
    assert private_season.content.replace(str(season.pk).encode(), b"999999") == (
        missing_season.content
    )


def test_a_new_game_for_a_club_you_see_but_do_not_organise_is_not_club_organiser(
    club, member_client
):
    seats = ["Andi", "Besse", "Cakra", "Daeng", "Evi"]

    response = member_client.post(
        f"{API}/games/", {"players": seats, "club": club.slug}, format="json"
    )

    assert (response.status_code, response.json()["code"]) == (403, "not_club_organiser")


def test_an_import_into_a_private_clubs_league_is_refused_as_into_a_missing_one(
    club, outsider_client, season
):
    """``POST /games/import/?club=…&season=…``: the same answer for a private club (or its
    season) as for a missing one, byte for byte but for the value."""
    record = {"format": "domeng-record/1", "players": ["A", "B", "C", "D", "E"], "rounds": []}

    def imported(query):
        return outsider_client.post(f"{API}/games/import/?{query}", record, format="json")

    private = imported(f"club={club.slug}")
    missing = imported("club=no-such-club")
    private_season = imported(f"season={season.pk}")
    missing_season = imported("season=999999")

    assert private.status_code == missing.status_code == 400
    assert private.content.replace(club.slug.encode(), b"no-such-club") == missing.content
    assert private_season.status_code == missing_season.status_code == 400
    assert private_season.content.replace(str(season.pk).encode(), b"999999") == (
        missing_season.content
    )
