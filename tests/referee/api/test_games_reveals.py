"""POST /games/{id}/reveals/: remaining tiles or pips at a blocked round, then its settlement."""

from __future__ import annotations

import pytest

from tests.referee.conftest import PROBLEM


@pytest.fixture
def blocked(table, load_scenario):
    """Scenario 05 up to its block: MANGUNO seat 1, ends (6, 6), every seat to reveal (R17)."""
    for move in load_scenario("05_blocked_no_mattikkeng")["record"]["rounds"][0]["moves"]:
        table.accept(table.move(move))
    return table


REVEALS_05 = {
    0: {"tiles": ["0-3", "0-4", "0-5"]},
    1: {"tiles": ["0-0", "0-1", "0-2"]},
    2: {"tiles": ["1-1", "1-2", "1-3", "1-4"]},
    3: {"tiles": ["1-5", "2-2", "2-4", "2-5"]},
    4: {"pips": 29},
}


def test_each_reveal_is_stored_and_the_round_waits_for_the_rest_R18(blocked):
    body = blocked.accept(blocked.reveal(0, **REVEALS_05[0]))

    assert body["event"]["kind"] == "reveal"
    assert body["event"]["tiles"] == ["0-3", "0-4", "0-5"]
    assert body["effects"]["settled"] is False
    assert body["effects"]["transfers"] == []
    assert body["state"]["round"]["status"] == "awaiting_reveals"
    assert body["state"]["round"]["awaiting_reveal"] == [1, 2, 3, 4]


def test_the_last_reveal_settles_the_round_MANGUNO_wins_without_MATTIKKENG_R20_R21_R23c(
    blocked, load_scenario
):
    for seat in range(4):
        blocked.accept(blocked.reveal(seat, **REVEALS_05[seat]))

    body = blocked.accept(blocked.reveal(4, pips=29))

    effects = body["effects"]
    assert effects["settled"] is True
    assert effects["named"] == ["MANGUNO", "CUCUQ"]
    assert effects["transfers"] == [
        {"move": None, "from": "table", "to": 0, "stones": 1, "reason": "manguno"}
    ]
    state = body["state"]
    assert state["round"]["number"] == 2
    assert state["round"]["leader"] == 1
    assert state["turn"] == 1
    previous = state["round"]["previous"]
    assert previous["remaining_pips"] == [12, 3, 14, 23, 29]
    assert (previous["manguno"], previous["winner"], previous["cucuq"]) == (1, 1, 0)
    assert blocked.result() == load_scenario("05_blocked_no_mattikkeng")["expect"]


def test_a_mattikkeng_takes_the_round_and_the_manguno_pays_R19_R20_R23d(table, load_scenario):
    scenario = load_scenario("06_blocked_one_mattikkeng_lower")

    bodies = table.play_round(scenario["record"]["rounds"][0])

    last = bodies[-1]["effects"]
    assert last["named"] == ["MANGUNO", "MATTIKKENG"]
    assert last["transfers"] == [
        {"move": None, "from": "table", "to": 1, "stones": 5, "reason": "mattikkeng"}
    ]
    assert table.result() == scenario["expect"]


def test_a_reveal_while_the_round_is_in_play_is_reveal_invalid_R33(table):
    table.accept(table.play(0, "6-6"))

    response = table.reveal(1, tiles=["0-0", "0-1", "0-2", "0-3", "0-4"])

    assert response.status_code == 422
    assert response["Content-Type"] == PROBLEM
    assert (response.json()["code"], response.json()["rule"]) == ("reveal_invalid", "R33")
    assert response.json()["move"] is None


@pytest.mark.parametrize(
    ("seat", "reveal"),
    [
        (0, {"tiles": ["0-3", "0-4"]}),  # seat 0 played two: three remain
        (0, {"tiles": ["0-3", "0-4", "4-5"]}),  # 4-5 was played
        (0, {"tiles": ["0-3", "0-4", "0-6"]}),  # carries 6, an end everyone passed on
        (1, {"pips": 40}),  # three tiles it could hold never add up to 40
        (0, {"tiles": ["0-3", "0-3", "0-4"]}),
    ],
)
def test_an_impossible_reveal_is_refused_and_changes_nothing_R33(blocked, seat, reveal):
    before = blocked.state()

    response = blocked.reveal(seat, **reveal)

    assert response.status_code == 422
    assert (response.json()["code"], response.json()["rule"]) == ("reveal_invalid", "R33")
    assert blocked.state() == before
    assert blocked.events()["refused"][-1]["code"] == "reveal_invalid"


def test_a_seat_reveals_only_once_R33(blocked):
    blocked.accept(blocked.reveal(0, **REVEALS_05[0]))

    response = blocked.reveal(0, pips=12)

    assert response.status_code == 422
    assert response.json()["code"] == "reveal_invalid"


def test_a_tile_revealed_by_another_seat_is_refused_R33(blocked):
    blocked.accept(blocked.reveal(0, **REVEALS_05[0]))

    response = blocked.reveal(1, tiles=["0-0", "0-1", "0-3"])

    assert response.status_code == 422
    assert response.json()["code"] == "reveal_invalid"


def test_a_reveal_with_both_tiles_and_pips_is_reveal_invalid_as_in_a_record_R33(blocked):
    response = blocked.post("reveals/", {"seat": 0, "tiles": ["0-3", "0-4", "0-5"], "pips": 12})

    assert response.status_code == 422
    assert (response.json()["code"], response.json()["rule"]) == ("reveal_invalid", "R33")


@pytest.mark.parametrize("body", [{"seat": 0}, {"seat": 0, "pips": -1}, {"seat": 0, "pips": "12"}])
def test_a_reveal_is_either_tiles_or_a_whole_pip_sum_R18(blocked, body):
    response = blocked.post("reveals/", body)

    assert response.status_code == 400
    assert response.json()["code"] == "record_invalid"


def test_a_phone_reveals_only_its_own_seat(blocked):
    response = blocked.reveal(0, **REVEALS_05[0], client=blocked.phone(1))

    assert response.status_code == 403
    assert response.json()["code"] == "seat_not_allowed"


def test_the_scorekeeper_may_reveal_for_any_seat_R18(blocked):
    body = blocked.accept(blocked.reveal(3, **REVEALS_05[3], client=blocked.scorekeeper))

    assert body["state"]["round"]["awaiting_reveal"] == [0, 1, 2, 4]


def test_no_round_begins_before_a_blocked_round_is_counted_R18(blocked):
    response = blocked.play(1, "0-0")

    assert response.status_code == 422
    assert response.json()["code"] == "reveal_missing"
