"""POST /games/{id}/moves/: plays and passes, what they cause, and refusals (R5–R17, R30, R34)."""

from __future__ import annotations

import pytest

from referee.models import Event, RefusedEvent
from tests.referee.conftest import PROBLEM


def enter(table, moves):
    return [table.accept(table.move(move)) for move in moves]


def test_a_play_is_stored_and_answers_201_with_the_event_and_the_new_state_R7(table):
    body = table.accept(table.play(0, "6-6"))

    assert body["event"]["kind"] == "move"
    assert (body["event"]["seat"], body["event"]["tile"]) == (0, "6-6")
    assert body["event"]["round"] == 1
    assert body["effects"] == {
        "round": 1,
        "named": [],
        "transfers": [],
        "round_ended": False,
        "settled": False,
        "camat_elected": None,
    }
    state = body["state"]
    assert state["round"]["chain"] == ["6-6"]
    assert state["round"]["ends"] == [6, 6]
    assert state["turn"] == 1
    assert state["version"] == 1


def test_a_tile_is_stored_as_written_and_shown_in_canonical_notation_R1(table):
    table.accept(table.play(0, "[6|6]"))

    body = table.accept(table.play(1, "6|3"))

    assert body["state"]["round"]["chain"] == ["6-6", "6-3"]  # halves in the order laid (R7)
    assert body["state"]["round"]["ends"] == [6, 3]
    assert body["state"]["seats"][1]["tiles_played"] == ["3-6"]
    assert body["state"]["last_events"][-1]["tile"] == "3-6"


def test_a_pass_before_playing_any_tile_is_a_passebunge_and_moves_two_stones_R10_R23a(table):
    table.accept(table.play(0, "6-6"))

    body = table.accept(table.pass_(1))

    assert body["effects"]["named"] == ["PASSEBUNGE"]
    assert body["effects"]["transfers"] == [
        {"move": 1, "from": "table", "to": 1, "stones": 2, "reason": "passebunge"}
    ]
    assert body["state"]["table"] == 23
    assert body["state"]["seats"][1]["stones"] == 2
    assert body["state"]["seats"][1]["passed_on"] == [6]
    assert body["state"]["turn"] == 2


def test_a_pass_after_playing_is_a_plain_pass_and_moves_one_stone_R9_R23a(table, load_scenario):
    moves = load_scenario("05_blocked_no_mattikkeng")["record"]["rounds"][0]["moves"]
    enter(table, moves[:7])

    body = table.accept(table.move(moves[7]))

    assert body["effects"]["named"] == ["PASS"]
    assert body["effects"]["transfers"] == [
        {"move": 7, "from": "table", "to": 2, "stones": 1, "reason": "pass"}
    ]


def test_the_fifth_pass_blocks_the_round_which_then_waits_for_reveals_R17(table, load_scenario):
    moves = load_scenario("05_blocked_no_mattikkeng")["record"]["rounds"][0]["moves"]
    enter(table, moves[:-1])

    body = table.accept(table.move(moves[-1]))

    effects = body["effects"]
    assert effects["named"] == ["PASS", "MANGUNO"]
    assert (effects["round_ended"], effects["settled"]) == (True, False)
    state = body["state"]
    assert state["round"]["status"] == "awaiting_reveals"
    assert state["round"]["awaiting_reveal"] == [0, 1, 2, 3, 4]
    assert state["round"]["outcome"]["manguno"] == 1
    assert state["round"]["outcome"]["winner"] is None
    assert state["turn"] is None


def test_a_move_while_the_round_waits_for_reveals_is_reveal_missing_R18(table, load_scenario):
    """The next round's lead, as a replay of the record says (not round_over)."""
    moves = load_scenario("05_blocked_no_mattikkeng")["record"]["rounds"][0]["moves"]
    enter(table, moves)

    response = table.play(1, "0-0")

    assert response.status_code == 422
    assert response.json()["code"] == "reveal_missing"


def test_a_ceki_ends_the_round_and_settles_it_at_once_R15_R23b(table, load_scenario):
    moves = load_scenario("02_ceki")["record"]["rounds"][0]["moves"]
    enter(table, moves[:-1])

    body = table.accept(table.move(moves[-1]))

    effects = body["effects"]
    assert effects["named"] == ["MAPPAKULING", "FIRST CAPPU", "CEKI", "CUCUQ"]
    assert (effects["round_ended"], effects["settled"]) == (True, True)
    assert effects["transfers"] == [
        {"move": None, "from": "table", "to": 4, "stones": 3, "reason": "ceki"}
    ]
    state = body["state"]
    assert state["table"] == 22
    assert state["seats"][4]["stones"] == 3
    assert state["round"]["status"] == "awaiting_lead"
    assert state["round"]["number"] == 2
    assert state["round"]["leader"] == 0
    previous = state["round"]["previous"]
    assert (previous["number"], previous["ending"], previous["finish"]) == (1, "cappu", "ceki")
    assert (previous["first_cappu"], previous["cucuq"], previous["winner"]) == (0, 4, 0)
    assert state["turn"] == 0


def test_a_pollo_gives_the_cucuq_five_stones_R16_R23b(table, load_scenario):
    moves = load_scenario("03_pollo")["record"]["rounds"][0]["moves"]
    enter(table, moves[:-1])

    body = table.accept(table.move(moves[-1]))

    assert body["effects"]["named"] == ["MAPPAKULING", "FIRST CAPPU", "POLLO", "CUCUQ"]
    assert body["effects"]["transfers"][-1]["stones"] == 5
    assert body["state"]["table"] == 20


def test_the_next_round_is_led_by_the_winner_R6(table, load_scenario):
    enter(table, load_scenario("01_plain_finish")["record"]["rounds"][0]["moves"])

    refused = table.play(1, "3-3")
    led = table.accept(table.play(0, "3-3"))

    assert refused.status_code == 422
    assert (refused.json()["code"], refused.json()["rule"]) == ("wrong_leader", "R6")
    assert led["event"]["round"] == 2
    assert led["state"]["round"]["number"] == 2
    assert led["state"]["round"]["chain"] == ["3-3"]


@pytest.mark.parametrize("name", ["30_not_your_turn", "34_tile_does_not_match", "22_end_required"])
def test_an_illegal_move_is_a_422_problem_with_the_rules_code_and_changes_nothing(
    table, load_scenario, name
):
    scenario = load_scenario(name)
    moves = scenario["record"]["rounds"][0]["moves"]
    enter(table, moves[:-1])
    before = table.state()

    response = table.move(moves[-1])

    assert response.status_code == 422
    assert response["Content-Type"] == PROBLEM
    body = response.json()
    expect = scenario["expect"]
    assert {key: body[key] for key in expect} == expect
    assert body["status"] == 422
    assert body["type"].endswith(expect["code"])
    assert table.state() == before
    assert Event.objects.filter(game=table.game).count() == len(moves) - 1


def test_a_refused_move_is_logged_in_the_audit_trail_with_its_code_and_rule(table):
    table.accept(table.play(0, "6-6"))

    table.play(2, "3-6")

    for reader in (table.phone(2), table.organiser):  # who entered it, and the organiser
        refused = table.events(client=reader)["refused"]
        assert len(refused) == 1
        assert refused[0]["kind"] == "move"
        assert refused[0]["payload"] == {"seat": 2, "tile": "3-6"}
        assert (refused[0]["code"], refused[0]["rule"]) == ("not_your_turn", "R8")
        assert refused[0]["entered_by"]
    assert RefusedEvent.objects.filter(game=table.game).count() == 1


@pytest.mark.parametrize(
    ("move", "code", "rule"),
    [
        ({"seat": 0, "pass": True}, "opening_tile_invalid", "R30"),
        ({"seat": 0, "tile": "6-5"}, "opening_tile_invalid", "R5"),
        ({"seat": 0, "tile": "2-2"}, "opening_tile_invalid", "R5"),
    ],
)
def test_the_first_lead_of_a_game_is_a_listed_double_never_a_pass_R5_R30(table, move, code, rule):
    response = table.move(move)

    assert response.status_code == 422
    assert (response.json()["code"], response.json()["rule"]) == (code, rule)


def test_a_first_lead_of_5_5_asserts_that_6_6_sleeps_R5_R32(table):
    table.accept(table.play(3, "5-5"))
    table.accept(table.play(4, "5-6"))

    response = table.play(0, "6-6")

    assert table.state()["round"]["leader"] == 3
    assert response.status_code == 422
    body = response.json()
    assert (body["code"], body["rule"]) == ("sleeping_tile_played", "R32")
    assert body["contradicts"] == {"round": 1, "move": 0}


def test_the_same_tile_twice_in_a_round_is_refused_R1_R30(table):
    enter(table, [{"seat": 0, "tile": "6-6"}, {"seat": 1, "tile": "3-6"}])

    response = table.play(2, "6-3")

    assert response.status_code == 422
    assert (response.json()["code"], response.json()["rule"]) == ("tile_already_played", "R1")


def test_a_play_contradicting_the_seats_own_earlier_pass_names_that_pass_R32(table):
    enter(
        table,
        [
            {"seat": 0, "tile": "6-6"},
            {"seat": 1, "pass": True},
            {"seat": 2, "tile": "3-6"},
            {"seat": 3, "tile": "3-4"},
            {"seat": 4, "tile": "4-5"},
            {"seat": 0, "tile": "5-5"},
        ],
    )

    response = table.play(1, "5-6", on=6)

    assert response.status_code == 422
    body = response.json()
    assert (body["code"], body["rule"]) == ("contradicts_pass", "R32")
    assert body["contradicts"] == {"round": 1, "move": 1}


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"seat": 0, "tile": "7-7"}, "tile_invalid"),
        ({"seat": 0, "tile": "66"}, "tile_invalid"),
        ({"seat": 0}, "record_invalid"),
        ({"seat": 0, "pass": False}, "record_invalid"),
        ({"seat": 0, "pass": True, "tile": "6-6"}, "record_invalid"),
        ({"seat": 5, "tile": "6-6"}, "record_invalid"),
        ({"seat": "north", "tile": "6-6"}, "record_invalid"),
        ({"seat": 0, "tile": ["6-6"]}, "tile_invalid"),
    ],
)
def test_a_malformed_move_is_a_400_problem_and_changes_nothing_R1_R3(table, body, code):
    response = table.move(body, client=table.scorekeeper)

    assert response.status_code == 400
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == code
    assert table.state()["version"] == 0


# The live API takes an event's fields exactly as JSON sent them and the rules core judges
# them as it judges a record's: no coercion ("2" is not seat 2), the same code and rule.
@pytest.mark.parametrize(
    ("body", "code", "rule"),
    [
        ({"seat": "0", "tile": "6-6"}, "record_invalid", "R3"),
        ({"seat": [0], "tile": "6-6"}, "record_invalid", "R3"),
        ({"seat": True, "tile": "6-6"}, "record_invalid", "R3"),
        ({"seat": 0.0, "tile": "6-6"}, "record_invalid", "R3"),
        ({"seat": None, "tile": "6-6"}, "record_invalid", "R3"),
        ({"seat": 0, "tile": None}, "tile_invalid", "R1"),
        ({"seat": 0, "tile": " 6-6 "}, "tile_invalid", "R1"),
        ({"seat": 0, "tile": 66}, "tile_invalid", "R1"),
        ({"seat": 0, "tile": "6-6", "on": "6"}, "record_invalid", "R11"),
        ({"seat": 0, "pass": "yes"}, "record_invalid", None),
        ({"seat": 0, "pass": 1}, "record_invalid", None),
    ],
)
def test_a_moves_json_types_are_judged_as_in_a_record_never_coerced_R1_R3_R11(
    table, body, code, rule
):
    response = table.move(body, client=table.scorekeeper)
    in_a_record = table.scorekeeper.post(
        "/api/v1/records/score/",
        {"format": "domeng-record/1", "players": list("ABCDE"), "rounds": [{"moves": [body]}]},
        format="json",
    )

    assert response.status_code == 400
    assert (response.json()["code"], response.json()["rule"]) == (code, rule)
    assert (in_a_record.json()["code"], in_a_record.json()["rule"]) == (code, rule)
    assert table.state()["version"] == 0


def test_a_phone_sending_its_seat_as_a_string_is_answered_by_the_rules_not_refused_a_seat_R3(
    table,
):
    response = table.move({"seat": "0", "tile": "6-6"}, client=table.phone(0))

    assert response.status_code == 400
    assert (response.json()["code"], response.json()["rule"]) == ("record_invalid", "R3")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"tile": "6-6"}, "seat"),
        ({"seat": 0, "tile": "6-6", "colour": "red"}, "colour"),
    ],
)
def test_a_body_of_the_wrong_shape_is_a_400_naming_the_field(table, body, field):
    response = table.move(body, client=table.scorekeeper)

    assert response.status_code == 400
    assert response["Content-Type"] == PROBLEM
    assert field in [error["field"] for error in response.json()["errors"]]


def test_a_phone_joined_to_one_seat_cannot_move_for_another(table):
    response = table.play(0, "6-6", client=table.phone(1))

    assert response.status_code == 403
    assert response.json()["code"] == "seat_not_allowed"
    assert table.state()["version"] == 0


@pytest.mark.parametrize("who", ["organiser", "scorekeeper"])
def test_the_organiser_and_the_scorekeeper_may_enter_any_seats_move(table, who):
    client = table.organiser if who == "organiser" else table.scorekeeper

    body = table.accept(table.play(0, "6-6", client=client))

    assert body["event"]["entered_by"]
    assert body["event"]["entered_by"] != table.accept(table.pass_(1))["event"]["entered_by"]
