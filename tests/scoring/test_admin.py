"""The Django admin: clubs, players, seasons and games; a game's events are read-only."""

from __future__ import annotations

import pytest
from django.test import Client

from scoring.models import Club, Membership, Player, Season, SeatRound
from tests.factories import UserFactory
from tests.scoring.factories import SeasonFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client_(db) -> Client:
    client = Client()
    client.force_login(UserFactory(username="admin", is_staff=True, is_superuser=True))
    return client


@pytest.mark.parametrize(
    "path",
    [
        "/admin/scoring/club/",
        "/admin/scoring/player/",
        "/admin/scoring/season/",
        "/admin/scoring/playermerge/",
        "/admin/referee/game/",
    ],
)
def test_the_admin_lists_league_records(admin_client_, club, players, season, path):
    assert admin_client_.get(path).status_code == 200


def test_a_games_events_are_shown_but_cannot_be_changed_added_or_deleted(
    admin_client_, club, season, players, import_game, load_scenario
):
    game = import_game(load_scenario("01_plain_finish")["record"], players[:5], season)

    page = admin_client_.get(f"/admin/referee/game/{game.pk}/change/")

    assert page.status_code == 200
    html = page.content.decode()
    assert "6-6" in html  # the lead, shown
    assert 'name="events-0-payload"' not in html  # no editable event field
    assert admin_client_.get("/admin/referee/game/add/").status_code == 403
    assert admin_client_.get(f"/admin/referee/game/{game.pk}/delete/").status_code == 403


def test_moving_a_game_to_another_season_in_the_admin_moves_its_stats(
    admin_client_, club, season, players, import_game, load_scenario
):
    game = import_game(load_scenario("01_plain_finish")["record"], players[:5], season)
    later = SeasonFactory(club=club, name="Later")
    data = {
        "club": club.pk,
        "season": later.pk,
        **{
            f"{prefix}-{key}": value
            for prefix in ("seats", "corrections", "events")
            for key, value in (("TOTAL_FORMS", 0), ("INITIAL_FORMS", 0))
        },
    }

    response = admin_client_.post(f"/admin/referee/game/{game.pk}/change/", data)

    assert response.status_code == 302, response.content.decode()[:2000]
    assert set(SeatRound.objects.filter(game=game).values_list("season_id", flat=True)) == {
        later.pk
    }


def test_seasons_cannot_be_deleted_in_the_admin(admin_client_, season):
    assert admin_client_.get(f"/admin/scoring/season/{season.pk}/delete/").status_code == 403


# -- the admin's forms refuse what the API refuses -----------------------------------------


def _season_form(season, **changes):
    return {
        "name": season.name,
        "starts_on": str(season.starts_on),
        "ends_on": str(season.ends_on),
        **changes,
    }


def test_the_admin_refuses_a_season_that_ends_before_it_starts(admin_client_, club, season):
    page = admin_client_.post(
        f"/admin/scoring/season/{season.pk}/change/", _season_form(season, ends_on="2025-12-31")
    )
    added = admin_client_.post(
        "/admin/scoring/season/add/",
        {"club": club.pk, "name": "Backwards", "starts_on": "2026-06-01", "ends_on": "2026-01-01"},
    )

    for response in (page, added):
        assert response.status_code == 200  # the form again, not a 302 nor a 500
        assert "Ends before it starts." in response.content.decode()
    season.refresh_from_db()
    assert str(season.ends_on) == "2026-06-30"
    assert not Season.objects.filter(name="Backwards").exists()


def test_the_admin_refuses_a_season_name_its_club_already_has(admin_client_, club, season):
    other = SeasonFactory(club=club, name="2026 second half")

    page = admin_client_.post(
        f"/admin/scoring/season/{other.pk}/change/", _season_form(other, name=season.name)
    )

    assert page.status_code == 200
    assert "already has a season with this name" in page.content.decode()
    other.refresh_from_db()
    assert other.name == "2026 second half"


def test_the_admin_refuses_a_member_number_another_player_has_in_another_case(
    admin_client_, club, players
):
    added = admin_client_.post(
        "/admin/scoring/player/add/",
        {"club": club.pk, "display_name": "Twin", "member_number": "mdc-1"},
    )
    changed = admin_client_.post(
        f"/admin/scoring/player/{players[1].pk}/change/",
        {"display_name": "Besse", "member_number": "ＭＤＣ-1"},
    )

    for response in (added, changed):
        assert response.status_code == 200
        assert "Another player of the club has this member number." in response.content.decode()
    assert not Player.objects.filter(display_name="Twin").exists()
    players[1].refresh_from_db()
    assert players[1].member_number == ""


@pytest.mark.parametrize("name", ["An\u200bdi", "Andi\u202e", "\u2066Andi"])
def test_the_admin_refuses_the_names_the_api_refuses(admin_client_, club, season, name):
    player = admin_client_.post(
        "/admin/scoring/player/add/", {"club": club.pk, "display_name": name}
    )
    renamed = admin_client_.post(
        f"/admin/scoring/season/{season.pk}/change/", _season_form(season, name=name)
    )

    for response in (player, renamed):
        assert response.status_code == 200
        assert "invisible or direction-changing" in response.content.decode()
    assert not Player.objects.filter(display_name=name).exists()
    season.refresh_from_db()
    assert season.name == "2026 first half"


NO_MEMBERSHIPS = {
    "memberships-TOTAL_FORMS": 0,
    "memberships-INITIAL_FORMS": 0,
    "memberships-MIN_NUM_FORMS": 0,
    "memberships-MAX_NUM_FORMS": 1000,
}


def test_the_admin_creates_a_club_in_its_time_zone_and_refuses_an_unknown_one(admin_client_):
    """Issue 28: an IANA name, checked as the API checks it (``unknown_time_zone``)."""
    made = admin_client_.post(
        "/admin/scoring/club/add/",
        {
            "name": "Montreal",
            "slug": "montreal",
            "time_zone": "America/Montreal",
            "language": "fr",
            **NO_MEMBERSHIPS,
        },
    )
    refused = admin_client_.post(
        "/admin/scoring/club/add/",
        {
            "name": "Mars",
            "slug": "mars",
            "time_zone": "Mars/Olympus",
            "language": "en",
            **NO_MEMBERSHIPS,
        },
    )
    form = admin_client_.get("/admin/scoring/club/add/").content.decode()

    assert made.status_code == 302
    assert Club.objects.get(slug="montreal").time_zone == "America/Montreal"
    assert refused.status_code == 200
    assert "An IANA time zone name" in refused.content.decode()
    assert not Club.objects.filter(slug="mars").exists()
    assert 'name="time_zone" value="UTC"' in form  # the server's TIME_ZONE by default


def _club_form(club, memberships, **roles):
    data = {
        "name": club.name,
        "slug": club.slug,
        "time_zone": club.time_zone,
        "language": club.language,
        "memberships-TOTAL_FORMS": len(memberships),
        "memberships-INITIAL_FORMS": len(memberships),
        "memberships-MIN_NUM_FORMS": 0,
        "memberships-MAX_NUM_FORMS": 1000,
    }
    for i, membership in enumerate(memberships):
        data[f"memberships-{i}-id"] = membership.pk
        data[f"memberships-{i}-club"] = club.pk
        data[f"memberships-{i}-user"] = membership.user_id
        data[f"memberships-{i}-role"] = roles.get(membership.user.username, membership.role)
    return data


def test_the_admin_keeps_a_clubs_last_organiser(admin_client_, club, organiser, member):
    memberships = list(Membership.objects.filter(club=club).order_by("pk"))
    url = f"/admin/scoring/club/{club.pk}/change/"

    demoted = admin_client_.post(url, _club_form(club, memberships, director="member"))
    removed = admin_client_.post(
        url,
        {
            **_club_form(club, memberships),
            **{
                f"memberships-{i}-DELETE": "on"
                for i, m in enumerate(memberships)
                if m.user_id == organiser.pk
            },
        },
    )
    handed_over = admin_client_.post(
        url, _club_form(club, memberships, director="member", member="organiser")
    )

    for response in (demoted, removed):
        assert response.status_code == 200
        assert "at least one organiser" in response.content.decode()
    assert handed_over.status_code == 302, handed_over.content.decode()[:2000]
    assert dict(Membership.objects.filter(club=club).values_list("user__username", "role")) == {
        "director": "member",
        "member": "organiser",
    }


def test_the_admin_neither_unarchives_a_season_nor_changes_a_merged_player(
    admin_client_, club, season, players
):
    season.is_archived = True
    season.save()
    players[1].merged_into = players[0]
    players[1].save()

    admin_client_.post(
        f"/admin/scoring/season/{season.pk}/change/", _season_form(season, is_archived="")
    )
    merged = admin_client_.post(
        f"/admin/scoring/player/{players[1].pk}/change/", {"display_name": "Renamed"}
    )

    season.refresh_from_db()
    players[1].refresh_from_db()
    assert season.is_archived is True
    assert merged.status_code == 403
    assert players[1].display_name == "Besse"


def test_the_last_organisers_account_is_not_deleted_in_the_admin_or_elsewhere(
    admin_client_, club, organiser, member
):
    """Decision (issue 32): deleting the account of a club's last organiser is refused —
    the admin's delete page shows the club as what protects it and offers no confirmation;
    a deletion from any other path is a 409 ``last_organiser``. With another organiser
    named first, the account goes."""
    from django.contrib.auth import get_user_model
    from django.db import transaction

    from scoring.exceptions import LastOrganiser

    url = f"/admin/auth/user/{organiser.pk}/delete/"

    page = admin_client_.get(url)
    posted = admin_client_.post(url, {"post": "yes"})
    bulk = admin_client_.post(
        "/admin/auth/user/",
        {"action": "delete_selected", "_selected_action": [organiser.pk], "post": "yes"},
    )
    with pytest.raises(LastOrganiser), transaction.atomic():
        get_user_model().objects.filter(pk=organiser.pk).delete()

    assert page.status_code == 200
    assert "last organiser" in page.content.decode()
    assert posted.status_code in (200, 403)  # refused, never a 500
    assert bulk.status_code == 200
    assert get_user_model().objects.filter(pk=organiser.pk).exists()
    assert Membership.objects.filter(club=club, user=organiser, role="organiser").exists()

    Membership.objects.filter(club=club, user=member).update(role="organiser")
    gone = admin_client_.post(url, {"post": "yes"})

    assert gone.status_code == 302
    assert not get_user_model().objects.filter(pk=organiser.pk).exists()
    assert list(Membership.objects.filter(club=club).values_list("role", flat=True)) == [
        "organiser"
    ]


def test_a_club_renamed_in_the_admin_keeps_its_old_slug_for_its_links(
    admin_client_, club, organiser
):
    """Issue 28: the standings URL of the old slug leads to the new one (a reader of it)."""
    from django.test import Client

    old = club.slug
    memberships = list(Membership.objects.filter(club=club).order_by("pk"))
    renamed = admin_client_.post(
        f"/admin/scoring/club/{club.pk}/change/",
        {**_club_form(club, memberships), "slug": "renamed-club"},
    )
    reader = Client()
    reader.force_login(organiser)

    assert renamed.status_code == 302, renamed.content.decode()[:2000]
    moved = reader.get(f"/clubs/{old}/standings/")
    assert (moved.status_code, moved["Location"]) == (301, "/clubs/renamed-club/standings/")
