"""End to end: a club imports three games, one corrected, and reads standings and ratings.

The expected numbers are worked out here from ``replay_record``'s results
and the records' moves, independently of ``scoring.lines`` and of SQL.
"""

from __future__ import annotations

import csv
import io

import pytest
from openskill.models import BradleyTerryFull

from referee import services as referee_services
from referee.engine.records import replay_record
from tests.scoring.conftest import API, COUNTED, expected_standings

pytestmark = pytest.mark.django_db

GAMES = (
    # scenario, the club's players by seat (indexes into ``players``; None = a guest)
    ("14_camat_election_reset_25", [0, 1, 2, 3, 4]),
    ("g101_generated_40_rounds", [5, 0, 1, None, 3]),
    ("g102_generated_40_rounds", [2, 3, 4, 5, 0]),
)


def test_standings_and_ratings_of_a_season_match_the_recorded_results(
    club, season, players, organiser, member_client, import_game, load_scenario
):
    played = []
    for name, indexes in GAMES:
        record = load_scenario(name)["record"]
        seats = [players[i] if i is not None else "Guest Gita" for i in indexes]
        game = import_game(record, seats, season)
        played.append((record, [players[i].pk if i is not None else None for i in indexes], game))

    # Standings: every count of every player, as the results give them.
    expected = expected_standings([(r, replay_record(r), seats) for r, seats, _ in played])
    response = member_client.get(
        f"{API}/clubs/{club.slug}/seasons/{season.pk}/standings/", {"ordering": "player"}
    )
    assert response.status_code == 200
    rows = {row["player"]: row for row in response.json()["results"]}
    assert set(rows) == set(expected) == {p.pk for p in players}
    for player, totals in expected.items():
        for key in COUNTED:
            assert rows[player][key] == totals[key], (player, key)
        assert rows[player]["average_stones"] == round(
            totals["stones_received"] / totals["rounds_played"], 3
        )
        assert rows[player]["net_stones"] == totals["stones_received"] - totals["stones_given"]
    assert sum(row["rounds_played"] for row in rows.values()) == 5 * (3 + 40 + 40) - 40

    # The CSV export carries the same numbers.
    exported = member_client.get(
        f"{API}/clubs/{club.slug}/seasons/{season.pk}/standings/", {"format": "csv"}
    )
    for line in csv.DictReader(io.StringIO(exported.content.decode())):
        assert int(line["camat_elected"]) == expected[int(line["player"])]["camat_elected"]

    # Ratings: each CAMAT cycle, game by game in import order, folded with OpenSkill here.
    model = BradleyTerryFull()
    ratings: dict[int, object] = {}
    cycles = 0
    for record, seats, _ in played:
        result = replay_record(record)
        for rnd in result["rounds"]:
            if rnd["camat_elected"] is None:
                continue
            cycles += 1
            held = _held_before_reset(rnd, result)
            teams = [[ratings.get(pk) or model.rating()] for pk in seats]
            ranks = [0 if seat == rnd["camat_elected"] else 1 + held[seat] for seat in range(5)]
            for pk, [rating] in zip(seats, model.rate(teams, ranks=ranks), strict=True):
                if pk is not None:
                    ratings[pk] = rating
    body = member_client.get(f"{API}/clubs/{club.slug}/ratings/", {"season": season.pk}).json()
    assert body["cycles"] == cycles == 11
    got = {row["player"]: row for row in body["results"]}
    assert set(got) == set(ratings)
    for pk, rating in ratings.items():
        assert got[pk]["mu"] == pytest.approx(rating.mu, abs=1e-3)
        assert got[pk]["sigma"] == pytest.approx(rating.sigma, abs=1e-3)

    # A director's correction flows through: undo the last event of g102.
    last_game = played[-1][2]
    referee_services.event_undo(game_id=last_game.pk, actor=referee_services.Actor(user=organiser))
    after = member_client.get(
        f"{API}/clubs/{club.slug}/seasons/{season.pk}/standings/", {"ordering": "player"}
    ).json()["results"]
    assert (
        sum(row["rounds_played"] for row in after)
        == sum(row["rounds_played"] for row in rows.values()) - 5
    )


def _held_before_reset(rnd: dict, result: dict) -> list[int]:
    """What each seat held at the end of an electing round, before the reset (R24, R25)."""
    number = rnd["number"]
    before = result["rounds"][number - 2]["after"]["stones"] if number > 1 else [0] * 5
    held = list(before)
    for transfer in rnd["transfers"]:
        held[transfer["to"]] += transfer["stones"]
        if transfer["from"] != "table":
            held[transfer["from"]] -= transfer["stones"]
    return held
