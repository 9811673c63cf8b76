"""The Django admin: clubs, players, seasons and games; a game's events are read-only."""

from __future__ import annotations

import pytest
from django.test import Client

from scoring.models import SeatRound
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
