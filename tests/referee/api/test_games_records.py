"""Records and results of stored games: play over HTTP, export, import, replay (RECORD.md)."""

from __future__ import annotations

import copy
import random

import pytest

from referee import store
from referee.engine.simulation import random_record
from referee.models import Game
from tests.referee.conftest import API, PROBLEM, GameApi, without_verification

SCORE_URL = f"{API}/records/score/"


def score(client, record):
    response = client.post(SCORE_URL, record, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def test_a_full_game_played_move_by_move_gives_exactly_the_scenarios_result_R24_R25(
    table, load_scenario
):
    """Scenario 14: two blocked rounds (reveals), then a POLLO electing a CAMAT (R24, R25)."""
    scenario = load_scenario("14_camat_election_reset_25")

    table.play_record(scenario["record"])

    assert table.result() == scenario["expect"]


def test_the_exported_record_of_a_played_game_replays_to_the_same_result(table, load_scenario):
    scenario = load_scenario("14_camat_election_reset_25")
    table.play_record(scenario["record"])

    record = table.record()

    assert record["players"] == scenario["record"]["players"]
    assert score(table.scorekeeper, record) == table.result() == scenario["expect"]


def test_each_move_of_a_played_game_reports_the_state_the_record_reaches_there(
    table, load_scenario
):
    """After every accepted event the state's stones agree with the result's (R23, R23e)."""
    scenario = load_scenario("14_camat_election_reset_25")
    rounds = scenario["expect"]["rounds"]

    bodies = table.play_record(scenario["record"])

    settled = [body for body in bodies if body["effects"]["settled"]]
    assert [body["effects"]["round"] for body in settled] == [1, 2, 3]
    for body, expected in zip(settled, rounds, strict=True):
        state = body["state"]
        assert state["table"] == expected["after"]["table"]
        assert [seat["stones"] for seat in state["seats"]] == expected["after"]["stones"]
        assert state["camat"] == expected["after"]["camat"]
        assert state["turn"] == expected["after"]["next_leader"]
        assert body["effects"]["camat_elected"] == expected["camat_elected"]


@pytest.mark.parametrize(
    "name",
    [
        "g101_generated_40_rounds",
        "14_camat_election_reset_25",
        "06_blocked_one_mattikkeng_lower",
        "40_void_adjust_substitute",
    ],
)
def test_an_imported_record_is_stored_and_gives_its_result(organiser_client, load_scenario, name):
    scenario = load_scenario(name)

    response = organiser_client.post(f"{API}/games/import/", scenario["record"], format="json")

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["join_code"]
    game_url = f"{API}/games/{body['id']}/"
    result = organiser_client.get(game_url + "result/")
    assert result.status_code == 200
    assert without_verification(result.json()) == scenario["expect"]
    record = organiser_client.get(game_url + "record/").json()
    assert score(organiser_client, record) == scenario["expect"]


def test_an_imported_game_can_be_played_on_over_http(organiser_client, load_scenario):
    """Import two rounds of scenario 14, then enter the third move by move: same result (R27)."""
    scenario = load_scenario("14_camat_election_reset_25")
    head = copy.deepcopy(scenario["record"])
    last = head["rounds"].pop()
    created = organiser_client.post(f"{API}/games/import/", head, format="json").json()
    table = GameApi(Game.objects.get(pk=created["id"]), organiser_client)

    table.play_round(last)

    assert table.result() == scenario["expect"]


def test_an_impossible_record_is_not_imported_and_stores_nothing(organiser_client, load_scenario):
    record = load_scenario("34_tile_does_not_match")["record"]

    response = organiser_client.post(f"{API}/games/import/", record, format="json")

    assert response.status_code == 422
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "tile_does_not_match"
    assert response.json()["rule"] == "R7"
    assert not Game.objects.exists()


def test_a_malformed_record_is_not_imported(organiser_client):
    response = organiser_client.post(
        f"{API}/games/import/", {"format": "domeng-record/9", "players": []}, format="json"
    )

    assert response.status_code == 400
    assert response.json()["code"] == "record_invalid"


@pytest.mark.parametrize("name", ["x" * 81, " " + "y" * 81 + " "])
def test_a_record_with_a_name_longer_than_a_seat_holds_is_not_imported_R3(
    organiser_client, load_scenario, name
):
    record = copy.deepcopy(load_scenario("14_camat_election_reset_25")["record"])
    record["players"][2] = name

    response = organiser_client.post(f"{API}/games/import/", record, format="json")

    assert response.status_code == 400
    assert response["Content-Type"] == PROBLEM
    assert (response.json()["code"], response.json()["rule"]) == ("record_invalid", "R3")
    assert not Game.objects.exists()


def test_a_name_of_80_characters_is_imported_and_scoring_takes_any_length_R3(
    organiser_client, load_scenario
):
    record = copy.deepcopy(load_scenario("14_camat_election_reset_25")["record"])
    record["players"][2] = "x" * 80
    longer = {**record, "players": ["y" * 500, *record["players"][1:]]}

    assert organiser_client.post(f"{API}/games/import/", record, format="json").status_code == 201
    assert score(organiser_client, longer) == load_scenario("14_camat_election_reset_25")["expect"]


def test_an_imported_games_next_event_follows_its_last_R30(organiser_client, load_scenario):
    """Positions run on from the record's events, whatever else moved the version."""
    scenario = load_scenario("14_camat_election_reset_25")
    head = copy.deepcopy(scenario["record"])
    last = head["rounds"].pop()
    created = organiser_client.post(f"{API}/games/import/", head, format="json").json()
    table = GameApi(Game.objects.get(pk=created["id"]), organiser_client)
    imported = len(table.events()["events"])
    assert table.post("sessions/", client=organiser_client).status_code == 201
    assert table.post("sessions/end/", client=organiser_client).status_code == 200

    table.play_round(last)

    events = table.events()["events"]
    positions = [e["position"] for e in events]
    assert len(positions) > imported
    # One after another within a round; a round's first event leaves the room a ruling of
    # the round before takes (store.ROUND_GAP), the played round's as the imported ones'.
    for before, after in zip(events, events[1:], strict=False):
        gap = store.ROUND_GAP if after["round"] != before["round"] else 0
        assert after["position"] == before["position"] + 1 + gap


def test_importing_needs_an_organiser(table):
    response = table.scorekeeper.post(f"{API}/games/import/", table.record(), format="json")

    assert response.status_code == 403


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_random_game_played_over_http_exports_a_record_that_replays_to_its_result(new_game, seed):
    """replay(export(game)) equals the game, with declared hands and pip sums (R18, R31)."""
    record = random_record(
        random.Random(seed), rounds=4, declare_probability=0.3, mixed_spellings=True
    )
    table = new_game()

    table.play_record(record)

    assert table.result() == score(table.scorekeeper, record)
    assert score(table.scorekeeper, table.record()) == table.result()


@pytest.mark.parametrize("seed", [11, 12])
def test_a_game_stopped_mid_round_exports_a_record_that_replays_to_its_result(new_game, seed):
    record = random_record(
        random.Random(seed), rounds=3, declare_probability=0.4, finish_last_round=False
    )
    table = new_game()

    table.play_record(record)

    assert (
        score(table.scorekeeper, table.record())
        == table.result()
        == score(table.scorekeeper, record)
    )
