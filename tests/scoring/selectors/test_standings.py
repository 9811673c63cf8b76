"""Standings, histories and head-to-head: aggregate SQL over the seat-rounds."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from referee.engine.records import replay_record
from scoring import selectors
from scoring.models import SeatRound
from tests.scoring.conftest import COUNTED, expected_standings
from tests.scoring.factories import PlayerFactory, SeasonFactory, SeatRoundFactory

pytestmark = pytest.mark.django_db


def _table(rows):
    return {row["player"]: row for row in rows}


def test_a_seasons_standings_add_up_each_players_rounds(
    club, season, players, import_game, load_scenario
):
    record = load_scenario("14_camat_election_reset_25")["record"]
    seats = players[:5]
    import_game(record, seats, season)

    table = _table(selectors.standings(selectors.league_rows(club=club, season=season)))

    expected = expected_standings([(record, replay_record(record), [p.pk for p in seats])])
    for player in seats:
        for key in COUNTED:
            assert table[player.pk][key] == expected[player.pk][key], (player, key)
    # Besse (seat 1): MANGUNO of round 2, then POLLO and CAMAT in round 3 (R16, R24).
    besse = table[players[1].pk]
    assert (besse["manguno"], besse["pollo"], besse["camat_elected"]) == (1, 1, 1)
    assert besse["average_stones"] == round(besse["stones_received"] / 3, 3)
    assert besse["net_stones"] == besse["stones_received"] - besse["stones_given"]


def test_guests_and_other_seasons_and_clubs_stay_out_of_a_seasons_standings(
    club, season, players, import_game, load_scenario
):
    record = load_scenario("01_plain_finish")["record"]
    import_game(record, [*players[:4], "Guest"], season)
    import_game(record, players[1:6], SeasonFactory(club=club, name="Other season"))
    SeatRoundFactory.create_batch(5)  # another club's

    table = _table(selectors.standings(selectors.league_rows(club=club, season=season)))
    lifetime = _table(selectors.standings(selectors.league_rows(club=club)))

    assert set(table) == {p.pk for p in players[:4]}
    assert set(lifetime) == {p.pk for p in players}
    assert lifetime[players[1].pk]["rounds_played"] == 2


def _standings_queries(rows) -> int:
    with CaptureQueriesContext(connection) as queries:
        list(selectors.standings(rows))
    return len(queries)


def test_standings_are_one_query_however_many_rounds_the_season_has(club):
    small, large = SeasonFactory(club=club), SeasonFactory(club=club)
    people = PlayerFactory.create_batch(7, club=club)
    SeatRoundFactory.create_batch(5, season=small, player=people[0])
    for number in range(60):
        SeatRoundFactory(season=large, player=people[number % 7], seat=number % 5)

    assert _standings_queries(selectors.league_rows(club=club, season=small)) == 1
    assert _standings_queries(selectors.league_rows(club=club, season=large)) == 1


def test_a_players_rounds_come_newest_first_with_their_named_outcomes(
    club, season, players, import_game, load_scenario
):
    import_game(load_scenario("01_plain_finish")["record"], players[:5], season)
    later = import_game(load_scenario("14_camat_election_reset_25")["record"], players[:5], season)

    rounds = list(selectors.player_rounds(player=players[1]))

    assert [(r.game_id, r.round_number) for r in rounds[:3]] == [
        (later.pk, 3),
        (later.pk, 2),
        (later.pk, 1),
    ]
    assert rounds[0].named == ["FIRST CAPPU", "POLLO", "CAMAT"]
    assert rounds[1].named == ["MANGUNO"]
    assert len(rounds) == 4


def test_a_players_games_carry_their_totals_newest_first(
    club, season, players, import_game, load_scenario
):
    first = import_game(load_scenario("01_plain_finish")["record"], players[:5], season)
    later = import_game(load_scenario("14_camat_election_reset_25")["record"], players[:5], season)

    games = list(selectors.player_games(player=players[1]))

    assert [g["game"] for g in games] == [later.pk, first.pk]
    assert (games[0]["rounds_played"], games[0]["camat_elected"]) == (3, 1)


def test_head_to_head_counts_only_rounds_both_played_across_seasons(
    club, season, players, import_game, load_scenario
):
    record = load_scenario("14_camat_election_reset_25")["record"]
    import_game(record, players[:5], season)
    other = SeasonFactory(
        club=club, name="Autumn", starts_on=dt.date(2026, 7, 1), ends_on=dt.date(2026, 12, 31)
    )
    import_game(record, [players[5], *players[1:5]], other)  # Andi not there, Fajar instead
    import_game(
        load_scenario("01_plain_finish")["record"], [players[1], players[0], *players[2:5]], other
    )

    result = selectors.head_to_head(
        rows=SeatRound.objects.filter(club=club), a=players[0], b=players[1]
    )

    assert (result.games_together, result.rounds_together) == (2, 4)
    assert [s["season"] for s in result.seasons] == [season.pk, other.pk]
    # In scenario 14, Besse (seat 1) is elected CAMAT: she ends that cycle ahead of Andi.
    assert result.totals[players[1].pk]["cycles_ahead"] == 1
    assert result.totals[players[0].pk]["cycles_ahead"] == 0
    # In 01 Besse sits in seat 0 and goes out first (R14).
    assert result.totals[players[1].pk]["first_cappu"] == 2
