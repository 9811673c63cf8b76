"""Standings over HTTP: JSON and CSV, sorted, filtered by date, paged, in constant queries."""

from __future__ import annotations

import csv
import datetime as dt
import io

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from referee.engine.records import replay_record
from scoring import services
from scoring.models import SeatRound
from tests.factories import GameFactory
from tests.scoring.conftest import API, COUNTED, PROBLEM, expected_standings
from tests.scoring.factories import PlayerFactory, SeasonFactory, SeatRoundFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def played(club, season, players, import_game, load_scenario):
    """Scenario 14 with Andi…Evi, then scenario 02 (CEKI) with Fajar in Andi's seat."""
    games = []
    for name, seats in (
        ("14_camat_election_reset_25", players[:5]),
        ("02_ceki", [players[5], *players[1:5]]),
    ):
        record = load_scenario(name)["record"]
        import_game(record, seats, season)
        games.append((record, replay_record(record), [p.pk for p in seats]))
    return expected_standings(games)


def test_season_standings_give_every_count_of_every_player(member_client, club, season, played):
    response = member_client.get(f"{API}/clubs/{club.slug}/seasons/{season.pk}/standings/")

    assert response.status_code == 200, response.content
    rows = {row["player"]: row for row in response.json()["results"]}
    assert set(rows) == set(played)
    for player, totals in played.items():
        for key in COUNTED:
            assert rows[player][key] == totals[key], (player, key)
        assert rows[player]["average_stones"] == round(
            totals["stones_received"] / totals["rounds_played"], 3
        )


def test_standings_sort_by_any_column_with_ties_broken_by_player(member_client, club, played):
    url = f"{API}/clubs/{club.slug}/standings/"

    by_stones = member_client.get(url, {"ordering": "-stones_received"}).json()["results"]
    by_name = member_client.get(url, {"ordering": "display_name"}).json()["results"]
    default = member_client.get(url).json()["results"]

    received = [row["stones_received"] for row in by_stones]
    assert received == sorted(received, reverse=True)
    assert [row["display_name"] for row in by_name] == sorted(
        row["display_name"] for row in by_name
    )
    assert default[0]["display_name"] == "Besse"  # the only CAMAT (scenario 14, R24)
    unknown = member_client.get(url, {"ordering": "secret"})  # refused, no longer ignored
    assert (unknown.status_code, unknown.json()["code"]) == (400, "invalid_query")
    assert unknown.json()["parameter"] == "ordering"


def test_standings_are_paged(member_client, club, played):
    url = f"{API}/clubs/{club.slug}/standings/"

    first = member_client.get(url, {"page_size": 4}).json()
    second = member_client.get(url, {"page_size": 4, "page": 2}).json()

    assert first["count"] == 6
    assert len(first["results"]) == 4
    assert len(second["results"]) == 2
    assert {r["player"] for r in first["results"]}.isdisjoint(
        r["player"] for r in second["results"]
    )


def test_standings_count_only_rounds_in_the_date_range(member_client, club, season, players):
    old = timezone.make_aware(dt.datetime(2025, 12, 31, 20, 0))
    new = timezone.make_aware(dt.datetime(2026, 2, 1, 20, 0))
    SeatRoundFactory(season=season, player=players[0], played_at=old, won=True)
    SeatRoundFactory(season=season, player=players[0], played_at=new, won=False)
    url = f"{API}/clubs/{club.slug}/standings/"

    everything = member_client.get(url).json()["results"]
    since = member_client.get(url, {"played_after": "2026-01-01"}).json()["results"]
    until = member_client.get(url, {"played_before": "2025-12-31"}).json()["results"]
    bad = member_client.get(url, {"played_after": "yesterday"})

    assert [(r["rounds_played"], r["rounds_won"]) for r in everything] == [(2, 1)]
    assert [(r["rounds_played"], r["rounds_won"]) for r in since] == [(1, 0)]
    assert [(r["rounds_played"], r["rounds_won"]) for r in until] == [(1, 1)]
    assert bad.status_code == 400
    assert bad["Content-Type"] == PROBLEM


def test_standings_export_every_row_as_csv(member_client, club, season, played, players):
    players[5].display_name = "=HYPERLINK(1)"
    players[5].save()

    response = member_client.get(
        f"{API}/clubs/{club.slug}/seasons/{season.pk}/standings/", {"format": "csv", "page_size": 1}
    )

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert response["Content-Disposition"] == (
        f'attachment; filename="standings-{club.slug}-{season.pk}.csv"'
    )
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(rows) == 6  # not paged
    assert list(rows[0]) == [
        "player", "display_name", "member_number", "rounds_played", "rounds_won",
        "first_cappu", "ceki", "pollo", "manguno", "mattikkeng", "cucuq", "passes",
        "passebunge", "stones_received", "stones_given", "net_stones", "camat_elected",
        "average_stones",
    ]  # fmt: skip
    by_player = {int(row["player"]): row for row in rows}
    for player, totals in played.items():
        assert int(by_player[player]["stones_received"]) == totals["stones_received"]
    assert by_player[players[5].pk]["display_name"] == "'=HYPERLINK(1)"  # no formula


def test_standings_as_csv_by_accept_header_and_errors_stay_problems(member_client, club, played):
    url = f"{API}/clubs/{club.slug}/standings/"

    accepted = member_client.get(url, HTTP_ACCEPT="text/csv")
    refused = APIClient().get(url, {"format": "csv"})

    assert accepted["Content-Type"].startswith("text/csv")
    assert refused.status_code == 404  # a private club is not found by a stranger (issue 27)
    assert refused["Content-Type"] == PROBLEM
    assert refused.json()["code"] == "not_found"


def test_a_published_clubs_standings_are_open_to_anyone(club, played):
    club.is_public = True
    club.save()

    response = APIClient().get(f"{API}/clubs/{club.slug}/standings/")

    assert response.status_code == 200
    assert response.json()["count"] == 6


def test_a_private_clubs_standings_are_closed_to_outsiders(outsider_client, club, played):
    response = outsider_client.get(f"{API}/clubs/{club.slug}/standings/")

    assert response.status_code == 404  # as a club that does not exist (issue 27)


def test_another_clubs_season_is_not_found(member_client, club):
    response = member_client.get(f"{API}/clubs/{club.slug}/seasons/{SeasonFactory().pk}/standings/")

    assert response.status_code == 404


def _requests_queries(client, url) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return len(queries)


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_a_standings_request_costs_the_same_queries_for_a_small_and_a_large_season(
    member_client, club, fmt
):
    small, large = SeasonFactory(club=club, name="small"), SeasonFactory(club=club, name="large")
    people = PlayerFactory.create_batch(12, club=club)
    SeatRoundFactory.create_batch(5, season=small, player=people[0])
    game = GameFactory(club=club, season=large)
    SeatRound.objects.bulk_create(
        SeatRound(
            game=game,
            club=club,
            season=large,
            player=people[i % 12],
            seat=i % 5,
            round_number=i // 5 + 1,
            played_at=timezone.now(),
            won=i % 5 == 0,
            stones_received=i % 4,
        )
        for i in range(2000)
    )
    services.league_recount(club=club)  # rows written directly: count them as services do
    url = f"{API}/clubs/{club.slug}/seasons/{{}}/standings/?format={fmt}"

    few = _requests_queries(member_client, url.format(small.pk))
    many = _requests_queries(member_client, url.format(large.pk))

    assert SeatRound.objects.filter(season=large).count() == 2000
    assert few == many
    # Token, the club among those readable, season, then one count and one aggregate
    # (JSON: paged).
    assert many == (5 if fmt == "json" else 4)


def test_standings_can_count_only_the_rounds_verified_at_the_table(
    member_client, club, season, players, import_game, load_scenario, organiser
):
    """Issue 11: ``verified=true`` counts rounds confirmed by a second seat or resolved by the
    organiser; ``false`` the others; without it every round counts."""
    from referee import services as referee_services
    from referee.services import verification

    record = load_scenario("14_camat_election_reset_25")["record"]
    game = import_game(record, players[:5], season)
    rounds = len(record["rounds"])
    assert rounds >= 3
    seat_phone = referee_services.Actor(
        token=referee_services.table_join(join_code=game.join_code, seat=1)[1]
    )
    verification.round_confirm(game_id=game.pk, round=1, actor=seat_phone)
    verification.round_dispute(game_id=game.pk, round=2, actor=seat_phone, reason="3-5 or 3-4?")
    url = f"{API}/clubs/{club.slug}/seasons/{season.pk}/standings/"

    def rounds_played(**query):
        response = member_client.get(url, query)
        assert response.status_code == 200, response.content
        return {row["player"]: row["rounds_played"] for row in response.json()["results"]}

    everyone = [p.pk for p in players[:5]]
    assert rounds_played() == dict.fromkeys(everyone, rounds)
    assert rounds_played(verified="true") == dict.fromkeys(everyone, 1)
    assert rounds_played(verified="false") == dict.fromkeys(everyone, rounds - 1)
    organiser_actor = referee_services.Actor(user=organiser)
    verification.round_resolve(game_id=game.pk, round=2, actor=organiser_actor)
    assert rounds_played(verified="true") == dict.fromkeys(everyone, 2)
    lifetime = member_client.get(f"{API}/clubs/{club.slug}/standings/", {"verified": "true"})
    assert {row["rounds_played"] for row in lifetime.json()["results"]} == {2}
    assert member_client.get(url, {"verified": "maybe"}).status_code == 400


def test_the_date_filters_are_the_clubs_local_dates(member_client, club, season, players):
    """Issue 28: in Makassar (UTC+8) the rounds of Friday 4 December 2026 are those settled
    on that local date, from 16:00 UTC on Thursday to 16:00 UTC on Friday."""
    club.time_zone = "Asia/Makassar"
    club.save()
    utc = dt.UTC
    friday_evening = dt.datetime(2026, 12, 4, 11, 0, tzinfo=utc)  # 19:00 local
    friday_small_hours = dt.datetime(2026, 12, 3, 17, 0, tzinfo=utc)  # Friday 01:00 local
    saturday_small_hours = dt.datetime(2026, 12, 4, 17, 0, tzinfo=utc)  # Saturday 01:00 local
    for at, won in (
        (friday_evening, True),
        (friday_small_hours, True),
        (saturday_small_hours, False),
    ):
        SeatRoundFactory(season=season, player=players[0], played_at=at, won=won)
    url = f"{API}/clubs/{club.slug}/standings/"
    friday = {"played_after": "2026-12-04", "played_before": "2026-12-04"}

    on_friday = member_client.get(url, friday).json()["results"]
    from_saturday = member_client.get(url, {"played_after": "2026-12-05"}).json()["results"]
    to_thursday = member_client.get(url, {"played_before": "2026-12-03"}).json()["results"]

    assert [(r["rounds_played"], r["rounds_won"]) for r in on_friday] == [(2, 2)]
    assert [(r["rounds_played"], r["rounds_won"]) for r in from_saturday] == [(1, 0)]
    assert to_thursday == []


def test_head_to_head_dates_are_the_clubs_local_dates(member_client, club, season, players):
    """Issue 28: Montreal (UTC-5 in December): a round at 20:30 local on Friday 4 December is
    01:30 UTC on Saturday, and counts for Friday."""
    club.time_zone = "America/Montreal"
    club.save()
    game = GameFactory()
    at = dt.datetime(2026, 12, 5, 1, 30, tzinfo=dt.UTC)
    for seat, player in enumerate(players[:2]):
        SeatRoundFactory(
            game=game, round_number=1, seat=seat, season=season, player=player, played_at=at
        )
    url = f"{API}/clubs/{club.slug}/head-to-head/"
    pair = {"a": players[0].pk, "b": players[1].pk}

    friday = member_client.get(url, {**pair, "played_before": "2026-12-04"}).json()
    saturday = member_client.get(url, {**pair, "played_after": "2026-12-05"}).json()

    assert friday["rounds_together"] == 1
    assert saturday["rounds_together"] == 0
