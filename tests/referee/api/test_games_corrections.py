"""Corrections: undo the last event, amend an earlier one of the current round, the audit trail."""

from __future__ import annotations

import pytest

from referee.models import Correction, Event
from tests.referee.conftest import PROBLEM


def enter(table, moves):
    return [table.accept(table.move(move)) for move in moves]


@pytest.fixture
def walk05(load_scenario):
    """Scenario 05: seven plays (ends 6, 6), then five passes blocking the round (R17)."""
    return load_scenario("05_blocked_no_mattikkeng")["record"]["rounds"][0]["moves"]


# -- undo ------------------------------------------------------------------------------


def test_undo_revokes_the_last_event_and_gives_back_its_stones_R23a(table, walk05):
    enter(table, walk05[:8])  # the last is seat 2's pass: 1 stone
    version = table.state()["version"]

    response = table.undo({"reason": "seat 2 had a 6"})

    assert response.status_code == 200
    assert response["ETag"] == f'"{version + 1}"'
    body = response.json()
    assert body["correction"]["kind"] == "undo"
    assert body["correction"]["reason"] == "seat 2 had a 6"
    assert [e["position"] for e in body["correction"]["replaced"]] == [7]
    state = body["state"]
    assert state["version"] == version + 1
    assert state["table"] == 25
    assert state["seats"][2]["stones"] == 0
    assert state["turn"] == 2
    assert Event.objects.filter(game=table.game, revoked_by__isnull=True).count() == 7


def test_an_undone_move_can_be_entered_again_differently(table, walk05):
    enter(table, walk05[:8])
    table.undo()

    body = table.accept(table.play(2, "1-6"))

    assert body["effects"]["named"] == []
    assert body["state"]["table"] == 25
    assert body["event"]["position"] == 8  # a new row: the undone one stays in the trail


def test_undo_with_no_event_is_409_nothing_to_undo(table):
    response = table.undo()

    assert response.status_code == 409
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "nothing_to_undo"


def test_undo_of_a_rounds_last_move_reopens_the_finished_round_R14_R23b(table, load_scenario):
    moves = load_scenario("02_ceki")["record"]["rounds"][0]["moves"]
    enter(table, moves)
    assert table.state()["round"]["number"] == 2

    state = table.undo().json()["state"]

    assert state["round"]["number"] == 1
    assert state["round"]["status"] == "in_play"
    assert state["turn"] == 0
    assert state["table"] == 25
    assert state["seats"][4]["stones"] == 0
    finish = table.accept(table.play(0, "1-4"))  # the plain finish of scenario 01 instead
    assert finish["effects"]["named"] == ["FIRST CAPPU", "CUCUQ"]
    assert finish["state"]["table"] == 24


def test_undo_after_the_next_rounds_lead_takes_back_only_that_lead_R6(table, load_scenario):
    moves = load_scenario("02_ceki")["record"]["rounds"][0]["moves"]
    enter(table, moves)
    table.accept(table.play(0, "3-3"))

    state = table.undo().json()["state"]

    assert state["round"]["number"] == 2
    assert state["round"]["status"] == "awaiting_lead"
    assert state["round"]["previous"]["finish"] == "ceki"
    assert state["table"] == 22


def test_undo_of_a_reveal_reopens_the_settlement_of_a_blocked_round_R18(table, load_scenario):
    scenario = load_scenario("05_blocked_no_mattikkeng")
    table.play_round(scenario["record"]["rounds"][0])
    assert table.state()["round"]["number"] == 2

    state = table.undo().json()["state"]

    assert state["round"]["number"] == 1
    assert state["round"]["status"] == "awaiting_reveals"
    assert state["round"]["awaiting_reveal"] == [4]
    assert state["table"] == 20


def test_a_phone_joined_to_a_seat_undoes_only_its_own_seats_event(table, walk05):
    enter(table, walk05[:2])

    refused = table.undo(client=table.phone(0))
    accepted = table.undo(client=table.phone(1))

    assert refused.status_code == 403
    assert refused.json()["code"] == "seat_not_allowed"
    assert accepted.status_code == 200


# -- amend -----------------------------------------------------------------------------


def test_amending_an_earlier_move_replays_the_later_ones_R7_R23a(table, walk05):
    """Seat 2's pass (move 7) was really a play of 1-6: the three passes after it still stand."""
    enter(table, walk05[:11])
    assert table.state()["table"] == 21

    response = table.amend(7, {"seat": 2, "tile": "1-6", "reason": "misheard"})

    assert response.status_code == 200
    body = response.json()
    assert body["correction"]["kind"] == "amend"
    assert body["correction"]["replacement"]["position"] == 7
    assert body["correction"]["replacement"]["tile"] == "1-6"
    assert body["correction"]["replaced"][0]["pass"] is True
    state = body["state"]
    assert sorted(state["round"]["ends"]) == [1, 6]
    assert state["table"] == 22
    assert state["seats"][2]["stones"] == 0
    assert state["seats"][2]["tiles_played"] == ["2-3", "1-6"]
    assert state["turn"] == 1
    assert [e.position for e in Event.objects.filter(game=table.game, revoked_by__isnull=True)] == (
        list(range(11))
    )


def test_an_amendment_that_makes_a_later_event_impossible_is_refused_and_changes_nothing_R7(
    table, walk05
):
    """3-6 amended to 1-6 leaves ends (6, 1): seat 2's later 2-3 no longer matches."""
    enter(table, walk05[:4])
    before = table.state()
    live_before = list(Event.objects.filter(game=table.game).values_list("id", "revoked_by"))

    response = table.amend(1, {"seat": 1, "tile": "1-6"})

    assert response.status_code == 422
    assert response["Content-Type"] == PROBLEM
    body = response.json()
    assert (body["code"], body["rule"]) == ("tile_does_not_match", "R7")
    assert (body["round"], body["move"]) == (1, 2)
    assert table.state() == before
    assert list(Event.objects.filter(game=table.game).values_list("id", "revoked_by")) == (
        live_before
    )
    assert not Correction.objects.exists()
    refused = table.events()["refused"]
    assert [(r["code"], r["payload"]) for r in refused] == [
        ("tile_does_not_match", {"seat": 1, "tile": "1-6"})
    ]


def test_an_amendment_that_ends_the_round_before_its_later_events_is_refused_R14_R30(
    table, load_scenario
):
    """Seat 0's pass amended to its fifth tile would end round 1 before seat 1's declaration."""
    moves = load_scenario("01_plain_finish")["record"]["rounds"][0]["moves"]
    enter(table, moves[:-1])
    table.accept(table.pass_(0))
    table.accept(table.declare(1, ["5-6", "3-3", "0-1", "0-2", "2-5"]))
    before = table.state(client=table.phone(1))

    response = table.amend(20, {"seat": 0, "tile": "1-4"})

    assert response.status_code == 422
    assert response.json()["code"] == "round_over"
    assert response.json()["round"] == 1
    assert table.state(client=table.phone(1)) == before
    assert table.get("result/").status_code == 200


def test_only_an_event_of_the_current_round_can_be_amended(table, load_scenario):
    enter(table, load_scenario("01_plain_finish")["record"]["rounds"][0]["moves"])
    table.accept(table.play(0, "3-3"))

    earlier_round = table.amend(3, {"seat": 3, "tile": "4-5"})
    nowhere = table.amend(99, {"seat": 1, "tile": "3-4"})

    assert earlier_round.status_code == 409
    assert earlier_round.json()["code"] == "event_not_amendable"
    assert nowhere.status_code == 409
    assert nowhere.json()["code"] == "event_not_amendable"


def test_a_finished_round_can_still_be_amended_until_the_next_round_begins_R15(
    table, load_scenario
):
    """Scenario 02's CEKI amended into scenario 01's plain finish: CUCUQ gets 1, not 3."""
    enter(table, load_scenario("02_ceki")["record"]["rounds"][0]["moves"])

    response = table.amend(20, {"seat": 0, "tile": "1-4"})

    assert response.status_code == 200
    previous = response.json()["state"]["round"]["previous"]
    assert previous["finish"] == "plain"
    assert response.json()["state"]["table"] == 24


def test_a_phone_cannot_amend_another_seats_event(table, walk05):
    enter(table, walk05[:2])

    response = table.amend(1, {"seat": 1, "tile": "5-6"}, client=table.phone(2))

    assert response.status_code == 403
    assert response.json()["code"] == "seat_not_allowed"


@pytest.mark.parametrize("who", ["scorekeeper", "seat 2"])
def test_only_the_seats_own_phone_may_amend_its_declared_hand_R31(table, who):
    """The organiser may too, through a logged correction (tests/referee/api/test_seats.py)."""
    table.accept(table.declare(1, ["3-6", "5-6", "0-0", "0-1", "0-2"]))
    client = table.scorekeeper if who == "scorekeeper" else table.phone(2)

    response = table.amend(
        0, {"seat": 1, "tiles": ["3-6", "5-6", "0-0", "0-1", "0-3"]}, client=client
    )

    assert response.status_code == 403
    assert response.json()["code"] == "seat_not_allowed"


def test_a_seat_amends_its_own_declared_hand_R31(table):
    table.accept(table.declare(1, ["3-6", "5-6", "0-0", "0-1", "0-2"]))

    response = table.amend(
        0, {"seat": 1, "tiles": ["3-6", "5-6", "0-0", "0-1", "0-3"]}, client=table.phone(1)
    )

    assert response.status_code == 200
    assert response.json()["state"]["seats"][1]["hand"] == ["0-0", "0-1", "0-3", "3-6", "5-6"]
    assert "tiles" not in response.json()["correction"]["replacement"]


# -- the audit trail -------------------------------------------------------------------


def test_the_audit_trail_keeps_every_event_every_correction_and_every_refusal(table, walk05):
    enter(table, walk05[:3])
    table.undo(client=table.organiser)
    table.play(2, "4-4")  # refused: matches neither open end
    table.accept(table.play(2, "2-3"))
    table.amend(3, {"seat": 2, "tile": "3-5"})  # positions are not reused after an undo

    trail = table.events()

    events = trail["events"]
    assert [(e["position"], e["revoked_by"] is None) for e in events] == [
        (0, True),
        (1, True),
        (2, False),  # undone
        (3, False),  # amended ...
        (3, True),  # ... into this one
    ]
    # Each play keeps the side of the chain the referee placed it on (R11).
    assert events[3]["payload"] == {"seat": 2, "tile": "2-3", "side": "right"}
    assert events[4]["payload"] == {"seat": 2, "tile": "3-5", "side": "right"}
    assert [(c["kind"], c["replacement_position"]) for c in trail["corrections"]] == [
        ("undo", None),
        ("amend", 3),
    ]
    assert trail["corrections"][0]["entered_by"].startswith("user ")
    assert [(r["code"], r["rule"]) for r in trail["refused"]] == [("tile_does_not_match", "R7")]
