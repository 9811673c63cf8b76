"""Clubs, members, players and seasons over HTTP: organisers write, members read."""

from __future__ import annotations

import datetime as dt

import pytest
from rest_framework.test import APIClient

from scoring.models import Club, Membership, Player, Season
from tests.factories import GameFactory, UserFactory, table_key
from tests.scoring.conftest import API, PROBLEM, token_client
from tests.scoring.factories import ClubFactory, PlayerFactory

pytestmark = pytest.mark.django_db


def test_anyone_lists_published_clubs_and_members_also_see_their_own(
    club, member_client, outsider_client
):
    public = ClubFactory(name="Open Club", slug="open", is_public=True)

    anonymous = APIClient().get(f"{API}/clubs/").json()
    mine = member_client.get(f"{API}/clubs/").json()
    theirs = outsider_client.get(f"{API}/clubs/").json()

    assert [c["slug"] for c in anonymous["results"]] == ["open"]
    assert {c["slug"]: c["role"] for c in mine["results"]} == {"makassar": "member", "open": None}
    assert club.slug not in [c["slug"] for c in theirs["results"]]
    assert public.slug in [c["slug"] for c in theirs["results"]]


def test_whoever_creates_a_club_organises_it(outsider_client, outsider):
    response = outsider_client.post(
        f"{API}/clubs/", {"name": "Bone Club", "slug": "bone"}, format="json"
    )

    assert response.status_code == 201, response.content
    assert response.json()["role"] == "organiser"
    assert Membership.objects.get(club__slug="bone", user=outsider).role == "organiser"
    again = outsider_client.post(f"{API}/clubs/", {"name": "B", "slug": "bone"}, format="json")
    assert (again.status_code, again.json()["code"]) == (409, "club_slug_taken")


@pytest.mark.parametrize("path", ["", "players/", "seasons/", "games/", "standings/", "ratings/"])
def test_a_private_club_is_not_found_by_outsiders_anonymous_callers_and_table_tokens(
    club, outsider_client, path
):
    """Issue 27: the answer is a missing club's, to the byte, not a 401 or 403 that would
    tell a private club has this slug."""
    phone = APIClient()
    phone.credentials(HTTP_AUTHORIZATION=f"Table {table_key(game=GameFactory())}")

    for client in (outsider_client, APIClient(), phone):
        response = client.get(f"{API}/clubs/{club.slug}/{path}")
        missing = client.get(f"{API}/clubs/no-such-club/{path}")
        assert response.status_code == missing.status_code == 404
        assert response["Content-Type"] == missing["Content-Type"] == PROBLEM
        assert response.json() == missing.json()


def test_only_organisers_publish_a_club(club, organiser_client, member_client):
    denied = member_client.patch(f"{API}/clubs/{club.slug}/", {"is_public": True}, format="json")
    allowed = organiser_client.patch(
        f"{API}/clubs/{club.slug}/", {"is_public": True}, format="json"
    )

    assert (denied.status_code, denied.json()["code"]) == (403, "not_club_organiser")
    assert allowed.status_code == 200
    assert allowed.json()["is_public"] is True
    assert APIClient().get(f"{API}/clubs/{club.slug}/players/").status_code == 200


def test_organisers_give_users_a_role_and_list_them(
    club, organiser, organiser_client, member_client
):
    UserFactory(username="besse")

    response = organiser_client.post(
        f"{API}/clubs/{club.slug}/members/", {"username": "besse", "role": "member"}, format="json"
    )
    listed = organiser_client.get(f"{API}/clubs/{club.slug}/members/").json()

    assert response.status_code == 200
    assert {m["username"]: m["role"] for m in listed} == {
        "director": "organiser",
        "member": "member",
        "besse": "member",
    }
    assert member_client.get(f"{API}/clubs/{club.slug}/members/").status_code == 403


def test_organisers_register_players_with_unique_member_numbers(
    club, organiser_client, member_client
):
    url = f"{API}/clubs/{club.slug}/players/"

    created = organiser_client.post(
        url, {"display_name": "Andi", "member_number": "7"}, format="json"
    )
    taken = organiser_client.post(
        url, {"display_name": "Besse", "member_number": "7"}, format="json"
    )
    denied = member_client.post(url, {"display_name": "Cakra"}, format="json")
    listed = member_client.get(url).json()

    assert created.status_code == 201
    assert created.json()["display_name"] == "Andi"
    assert (taken.status_code, taken.json()["code"]) == (409, "member_number_taken")
    assert (denied.status_code, denied.json()["code"]) == (403, "not_club_organiser")
    assert [p["display_name"] for p in listed["results"]] == ["Andi"]


def test_a_player_is_renamed_and_a_duplicate_merged_over_http(club, organiser_client, players):
    duplicate = PlayerFactory(club=club, display_name="andi")
    url = f"{API}/clubs/{club.slug}/players/{players[0].pk}/"

    renamed = organiser_client.patch(url, {"display_name": "Andi M."}, format="json")
    merged = organiser_client.post(f"{url}merge/", {"duplicate": duplicate.pk}, format="json")
    listed = organiser_client.get(f"{API}/clubs/{club.slug}/players/").json()
    everyone = organiser_client.get(f"{API}/clubs/{club.slug}/players/?include_merged=true").json()

    assert renamed.json()["display_name"] == "Andi M."
    assert merged.status_code == 200, merged.content
    assert merged.json()["merged"]["merged_into"] == players[0].pk
    assert merged.json()["merged_by"] == "director"
    assert duplicate.pk not in [p["id"] for p in listed["results"]]
    assert duplicate.pk in [p["id"] for p in everyone["results"]]


def test_a_player_of_another_club_is_not_found_here(club, organiser_client):
    stranger = PlayerFactory()

    response = organiser_client.get(f"{API}/clubs/{club.slug}/players/{stranger.pk}/")

    assert response.status_code == 404


def test_seasons_are_opened_renamed_and_archived_but_never_deleted(club, organiser_client):
    url = f"{API}/clubs/{club.slug}/seasons/"

    created = organiser_client.post(
        url, {"name": "2026 H1", "starts_on": "2026-01-01", "ends_on": "2026-06-30"}, format="json"
    )
    season_url = f"{url}{created.json()['id']}/"
    renamed = organiser_client.patch(season_url, {"name": "2026 first half"}, format="json")
    archived = organiser_client.post(f"{season_url}archive/")
    deleted = organiser_client.delete(season_url)

    assert created.status_code == 201
    assert renamed.json()["name"] == "2026 first half"
    assert archived.json()["is_archived"] is True
    assert deleted.status_code == 405
    assert Season.objects.filter(club=club).count() == 1


def test_a_season_ending_before_it_starts_is_refused(club, organiser_client):
    response = organiser_client.post(
        f"{API}/clubs/{club.slug}/seasons/",
        {"name": "Backwards", "starts_on": "2026-06-01", "ends_on": "2026-01-01"},
        format="json",
    )

    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "ends_on"


def test_no_club_and_no_player_has_a_delete_endpoint(club, organiser_client, players):
    assert organiser_client.delete(f"{API}/clubs/{club.slug}/").status_code == 405
    assert (
        organiser_client.delete(f"{API}/clubs/{club.slug}/players/{players[0].pk}/").status_code
        == 405
    )
    assert Club.objects.filter(pk=club.pk).exists()
    assert Player.objects.filter(pk=players[0].pk).exists()


def test_a_staff_user_manages_any_club(club, db):
    staff = token_client(UserFactory(username="staff", is_staff=True))

    response = staff.post(
        f"{API}/clubs/{club.slug}/players/", {"display_name": "Evi"}, format="json"
    )

    assert response.status_code == 201


def test_an_outsider_learns_nothing_of_a_private_clubs_players_from_a_write(
    club, outsider_client, players
):
    """Issue 27: the club itself is not found, whichever player the URL names."""
    for pk in (players[0].pk, 999_999):
        response = outsider_client.post(
            f"{API}/clubs/{club.slug}/players/{pk}/merge/", {"duplicate": 1}, format="json"
        )
        assert (response.status_code, response.json()["code"]) == (404, "not_found")


def test_a_season_patched_to_end_before_its_stored_start_is_refused_as_both_dates_are(
    club, organiser_client, season
):
    url = f"{API}/clubs/{club.slug}/seasons/{season.pk}/"
    both = organiser_client.patch(
        url, {"starts_on": "2026-06-01", "ends_on": "2026-01-01"}, format="json"
    )
    end_only = organiser_client.patch(url, {"ends_on": "2025-12-31"}, format="json")
    start_only = organiser_client.patch(url, {"starts_on": "2026-07-01"}, format="json")

    for response in (both, end_only, start_only):
        assert response.status_code == 400, response.content
        body = response.json()
        assert body["code"] == "invalid"
        assert [(e["field"], e["code"]) for e in body["errors"]] == [("ends_on", "invalid")]
    season.refresh_from_db()
    assert (str(season.starts_on), str(season.ends_on)) == ("2026-01-01", "2026-06-30")
    opened = organiser_client.patch(url, {"starts_on": None}, format="json")
    assert opened.status_code == 200
    assert opened.json()["starts_on"] is None


def test_the_last_organiser_cannot_demote_themselves_and_the_club_stays_managed(
    club, organiser, organiser_client
):
    url = f"{API}/clubs/{club.slug}/members/"

    demoted = organiser_client.post(url, {"username": "director", "role": "member"}, format="json")

    assert (demoted.status_code, demoted.json()["code"]) == (409, "last_organiser")
    assert Membership.objects.get(club=club, user=organiser).role == "organiser"
    assert (
        organiser_client.patch(
            f"{API}/clubs/{club.slug}/", {"is_public": True}, format="json"
        ).status_code
        == 200
    )


def test_an_organiser_steps_down_once_another_organises_the_club(
    club, organiser, organiser_client, member
):
    url = f"{API}/clubs/{club.slug}/members/"
    promoted = organiser_client.post(
        url, {"username": "member", "role": "organiser"}, format="json"
    )
    stepped_down = organiser_client.post(
        url, {"username": "director", "role": "member"}, format="json"
    )
    last = token_client(member).post(url, {"username": "member", "role": "member"}, format="json")

    assert promoted.status_code == 200
    assert stepped_down.status_code == 200, stepped_down.content
    assert (last.status_code, last.json()["code"]) == (409, "last_organiser")
    assert Membership.objects.get(club=club, user=member).role == "organiser"


# -- a club's time zone (issue 28) ----------------------------------------------------------


def test_a_club_is_created_in_its_time_zone_and_reads_it_back(outsider_client):
    created = outsider_client.post(
        f"{API}/clubs/",
        {"name": "Montreal Club", "slug": "montreal", "time_zone": "America/Montreal"},
        format="json",
    )
    read = outsider_client.get(f"{API}/clubs/montreal/")

    assert created.status_code == 201, created.content
    assert created.json()["time_zone"] == read.json()["time_zone"] == "America/Montreal"
    assert Club.objects.get(slug="montreal").time_zone == "America/Montreal"


def test_a_club_created_without_a_time_zone_has_the_servers(outsider_client, settings):
    settings.TIME_ZONE = "Asia/Makassar"  # the server's setting, whatever it is

    created = outsider_client.post(
        f"{API}/clubs/", {"name": "Bone Club", "slug": "bone"}, format="json"
    )

    assert created.json()["time_zone"] == "Asia/Makassar"
    assert Club.objects.get(slug="bone").time_zone == "Asia/Makassar"


@pytest.mark.parametrize(
    "zone", ["Mars/Olympus", "asia/makassar", "+08:00", "../../etc/passwd", "", 8, None]
)
def test_an_unknown_time_zone_is_a_400_with_a_stable_code(
    outsider_client, club, organiser_client, zone
):
    created = outsider_client.post(
        f"{API}/clubs/", {"name": "Bone Club", "slug": "bone", "time_zone": zone}, format="json"
    )
    moved = organiser_client.patch(f"{API}/clubs/{club.slug}/", {"time_zone": zone}, format="json")

    for response in (created, moved):
        assert response.status_code == 400, response.content
        assert response["Content-Type"] == PROBLEM
        body = response.json()
        assert body["code"] == "invalid"
        assert [e["field"] for e in body["errors"]] == ["time_zone"]
        if isinstance(zone, str) and zone:
            assert body["errors"][0]["code"] == "unknown_time_zone"
    assert not Club.objects.filter(slug="bone").exists()
    club.refresh_from_db()
    assert club.time_zone == "UTC"


@pytest.mark.parametrize("schema_name", ["ClubCreate", "PatchedClubUpdate"])
def test_the_declared_time_zone_pattern_is_exactly_the_zones_accepted(outsider_client, schema_name):
    """The schema's ``time_zone`` pattern matches every zone the server knows and nothing
    it refuses (a near miss, a padded name), so a schema-valid name is never a 400."""
    import re

    from scoring import zones

    schema = outsider_client.get("/api/v1/schema/?format=json").json()
    declared = schema["components"]["schemas"][schema_name]["properties"]["time_zone"]
    pattern = re.compile(declared["pattern"])

    assert all(pattern.search(name) for name in zones.time_zone_names())
    refusals = ["Mars/Olympus", "asia/makassar", "UTC ", " UTC", "Etc/GMT+1x", "Etc/GMT1"]
    for refused in [*refusals, "localtime", "Factory"]:
        assert not pattern.search(refused), refused


def test_a_padded_time_zone_is_refused_not_trimmed(outsider_client):
    """Spelt exactly: ``" UTC"`` is refused (``unknown_time_zone``), as the pattern says."""
    created = outsider_client.post(
        f"{API}/clubs/", {"name": "Bone Club", "slug": "bone", "time_zone": " UTC"}, format="json"
    )

    assert created.status_code == 400, created.content
    assert created.json()["errors"][0]["code"] == "unknown_time_zone"


def test_an_organiser_moves_the_club_to_another_time_zone(club, organiser_client, member_client):
    denied = member_client.patch(
        f"{API}/clubs/{club.slug}/", {"time_zone": "Asia/Makassar"}, format="json"
    )
    moved = organiser_client.patch(
        f"{API}/clubs/{club.slug}/", {"time_zone": "Asia/Makassar"}, format="json"
    )

    assert denied.status_code == 403
    assert moved.status_code == 200, moved.content
    assert moved.json()["time_zone"] == "Asia/Makassar"
    club.refresh_from_db()
    assert club.time_zone == "Asia/Makassar"


def test_the_api_answers_instants_in_utc_whatever_the_clubs_and_servers_zone(
    organiser_client, club, settings
):
    """Issue 28: the API keeps UTC (``Z``); only the pages are local."""
    settings.TIME_ZONE = "America/Montreal"
    club.time_zone = "Asia/Makassar"
    club.save()

    body = organiser_client.get(f"{API}/clubs/{club.slug}/").json()
    listed = organiser_client.get(f"{API}/clubs/").json()["results"][0]

    assert body["created_at"].endswith("Z")
    assert listed["created_at"] == body["created_at"]
    assert dt.datetime.fromisoformat(body["created_at"]) == club.created_at
