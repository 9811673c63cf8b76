"""Corrections of any round over HTTP, and the league following them (R35–R38, issue 13.5)."""

from __future__ import annotations

import copy
import datetime as dt

import pytest

from referee.engine.records import replay_record
from scoring.models import SeatRound
from tests.referee.conftest import without_verification
from tests.scoring.conftest import API, COUNTED, expected_standings

pytestmark = pytest.mark.django_db

PLAYED_AT = dt.datetime(2026, 11, 20, 19, 30, tzinfo=dt.UTC)


def _standings(client, club) -> dict:
    response = client.get(f"{API}/clubs/{club.slug}/standings/", {"page_size": 50})
    assert response.status_code == 200, response.content
    return {row["player"]: {k: row[k] for k in COUNTED} for row in response.json()["results"]}


def _import(client, club, record, seats) -> str:
    response = client.post(
        f"{API}/games/import/?club={club.slug}",
        {"record": record, "players": seats, "played_at": PLAYED_AT.isoformat()},
        format="json",
    )
    assert response.status_code == 201, response.content
    return response.json()["id"]


def test_a_mistake_in_round_1_of_a_40_round_game_corrected_gives_the_replay_R37(
    organiser_client, club, players, load_scenario
):
    """g101's round 1: the table missed seat 0's LEMPA 0-0 (move 13) and entered a pass.

    A double keeps the open ends, so the mistaken game stays legal to its end; the
    organiser's amendment of round 1 must give exactly the result of replaying the
    corrected record, and the standings follow in the same transaction.
    """
    true_record = load_scenario("g101_generated_40_rounds")["record"]
    mistaken = copy.deepcopy(true_record)
    mistaken["rounds"][0]["moves"][13] = {"seat": 0, "pass": True}
    seats = [p.pk for p in players[:5]]
    game = _import(organiser_client, club, mistaken, seats)
    before = _standings(organiser_client, club)
    wrong = expected_standings([(mistaken, replay_record(mistaken), seats)])
    for player in seats:
        assert before[player] == {k: wrong[player][k] for k in COUNTED}, player
    times = set(SeatRound.objects.values_list("played_at", flat=True))

    response = organiser_client.put(
        f"{API}/games/{game}/events/13/",
        {"seat": 0, "tile": "0-0", "reason": "seat 0 laid the 0-0"},
        format="json",
    )

    assert response.status_code == 200, response.content
    result = without_verification(organiser_client.get(f"{API}/games/{game}/result/").json())
    assert result == replay_record(true_record)
    record = organiser_client.get(f"{API}/games/{game}/record/").json()
    assert replay_record(record) == result
    after = _standings(organiser_client, club)
    expected = expected_standings([(true_record, result, seats)])
    for player in seats:
        assert after[player] == {k: expected[player][k] for k in COUNTED}, player
    assert after != before
    # Each round keeps the time it was played, not the correction's (issue 13 item 5).
    assert set(SeatRound.objects.values_list("played_at", flat=True)) == times
    # An import dates its rounds at ``played_at``, one after another in the record's order
    # (a microsecond an event: a history pages by time without ties).
    assert all(PLAYED_AT <= at < PLAYED_AT + dt.timedelta(seconds=1) for at in times)
    assert len(times) == len(true_record["rounds"])
    trail = organiser_client.get(f"{API}/games/{game}/events/").json()
    assert trail["corrections"][-1]["reason"] == "seat 0 laid the 0-0"


def test_a_voided_round_counts_in_no_statistic_and_a_substitute_is_credited_R35_R38(
    organiser_client, club, players, load_scenario
):
    """Scenario 40 with Fajar (a club player) substituting for seat 4 from round 3."""
    record = load_scenario("40_void_adjust_substitute")["record"]
    seats = [p.pk for p in players[:5]]
    game = _import(organiser_client, club, record, seats)
    fajar = players[5]

    response = organiser_client.post(
        f"{API}/games/{game}/seats/4/substitutes/",
        {"player": fajar.pk, "from_round": 3, "reason": "Evi went home"},
        format="json",
    )

    assert response.status_code == 200, response.content
    rows = SeatRound.objects.filter(game_id=game)
    assert sorted(set(rows.values_list("round_number", flat=True))) == [2, 3, 4]  # R35
    assert {r.round_number: r.player_id for r in rows.filter(seat=4)} == {
        2: seats[4],
        3: fajar.pk,
        4: fajar.pk,
    }
    exported = organiser_client.get(f"{API}/games/{game}/record/").json()
    assert exported["rounds"][2]["substitutes"] == {"4": "Fajar"}
    assert replay_record(exported) == replay_record(record)
    state = organiser_client.get(f"{API}/games/{game}/").json()
    assert state["seats"][4]["name"] == "Fajar"


def test_a_club_player_cannot_sit_in_two_open_games_unless_the_organiser_says_so_R38(
    organiser_client, club, players
):
    body = {"players": [p.pk for p in players[:5]], "club": club.slug}
    first = organiser_client.post(f"{API}/games/", body, format="json").json()["id"]
    second = organiser_client.post(
        f"{API}/games/",
        {"players": ["Gita", "Hasan", "Irma", "Joko", "Kiki"], "club": club.slug},
        format="json",
    ).json()["id"]
    url = f"{API}/games/{second}/seats/0/"

    refused = organiser_client.put(url, {"player": players[0].pk}, format="json")
    allowed = organiser_client.put(
        url, {"player": players[0].pk, "allow_seated_elsewhere": True}, format="json"
    )
    free = organiser_client.put(
        f"{API}/games/{second}/seats/1/", {"player": players[5].pk}, format="json"
    )

    assert refused.status_code == 409
    assert refused.json()["code"] == "player_seated_elsewhere"
    assert refused.json()["game"] == first
    assert allowed.status_code == 200
    assert free.status_code == 200
    assert organiser_client.get(f"{API}/games/{second}/").json()["seats"][1]["name"] == "Fajar"


def test_a_new_game_refuses_a_club_player_already_at_an_open_table_R38(
    organiser_client, club, players
):
    body = {"players": [p.pk for p in players[:5]], "club": club.slug}
    first = organiser_client.post(f"{API}/games/", body, format="json").json()["id"]
    again = {"players": [players[5].pk, "B", "C", "D", players[0].pk], "club": club.slug}

    refused = organiser_client.post(f"{API}/games/", again, format="json")
    allowed = organiser_client.post(
        f"{API}/games/", {**again, "allow_seated_elsewhere": True}, format="json"
    )
    organiser_client.post(f"{API}/games/{first}/close/")
    after_close = organiser_client.post(f"{API}/games/", again, format="json")

    assert (refused.status_code, refused.json()["code"]) == (409, "player_seated_elsewhere")
    assert refused.json()["game"] == first
    assert allowed.status_code == 201
    assert after_close.status_code == 409  # still at the table of the game just allowed


def test_an_import_naming_a_club_with_a_nul_is_a_400_never_a_500(organiser_client, load_scenario):
    record = load_scenario("01_plain_finish")["record"]

    response = organiser_client.post(f"{API}/games/import/?club=%00x", record, format="json")

    # Refused at the edge, before the league or the database see it (issue 12).
    assert (response.status_code, response.json()["code"]) == (400, "text_invalid")
