"""Declared hands over HTTP (R31): who declares, who reads them, what the referee checks with them.

The deal is scenario 05's (a blocked round): seat 1 holds 3-6 5-6 0-0 0-1 0-2,
seat 2 holds 2-3 1-1 1-2 1-3 1-4; 6-6 is led by seat 0.
"""

from __future__ import annotations

import pytest

from tests.referee.conftest import PROBLEM, shows_tile

SEAT_1 = ["3-6", "5-6", "0-0", "0-1", "0-2"]
SEAT_2 = ["2-3", "1-1", "1-2", "1-3", "1-4"]
SCENARIO_05_MOVES = [
    {"seat": 0, "tile": "6-6"},
    {"seat": 1, "tile": "3-6"},
    {"seat": 2, "tile": "2-3"},
    {"seat": 3, "tile": "2-6", "on": 2},
    {"seat": 4, "tile": "4-6"},
    {"seat": 0, "tile": "4-5"},
    {"seat": 1, "tile": "5-6", "on": 5},
    {"seat": 2, "pass": True},
    {"seat": 3, "pass": True},
    {"seat": 4, "pass": True},
    {"seat": 0, "pass": True},
    {"seat": 1, "pass": True},
]


def declared(table, seat=1, tiles=SEAT_1):
    return table.accept(table.declare(seat, tiles))


# -- who may declare -------------------------------------------------------------------


def test_a_phone_joined_to_a_seat_declares_that_seats_hand_R31(table):
    body = declared(table)

    assert body["event"]["kind"] == "hand"
    assert body["event"]["seat"] == 1
    assert "tiles" not in body["event"]
    seat = body["state"]["seats"][1]
    assert seat["has_declared"] is True
    assert seat["hand"] == sorted(SEAT_1)


@pytest.mark.parametrize("who", ["organiser", "scorekeeper", "other seat"])
def test_only_the_seats_own_phone_may_declare_its_hand_R31(table, who):
    client = {
        "organiser": table.organiser,
        "scorekeeper": table.scorekeeper,
        "other seat": table.phone(2),
    }[who]

    response = table.declare(1, SEAT_1, client=client)

    assert response.status_code == 403
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "seat_not_allowed"
    assert table.state()["seats"][1]["has_declared"] is False


def test_a_hand_of_four_tiles_is_refused_and_logged_without_its_tiles_R31(table):
    response = table.declare(1, SEAT_1[:4])

    assert response.status_code == 400
    assert response.json()["code"] == "record_invalid"
    assert response.json()["rule"] == "R31"
    refused = table.events()["refused"]
    assert [(r["kind"], r["code"], r["payload"]) for r in refused] == [
        ("hand", "record_invalid", None)
    ]


def test_a_tile_declared_by_two_seats_is_accepted_and_shown_to_the_organiser_R31(table):
    """A refusal told the phone that the tile was in another hand (issue 27): the hand is
    accepted as any hand, and the organiser's alert names the tile shared."""
    declared(table)

    response = table.declare(2, ["5-6", "1-1", "1-2", "1-3", "1-4"])

    assert response.status_code == 201
    assert not table.events()["refused"]
    (alert,) = table.events(client=table.organiser)["alerts"]
    assert (alert["kind"], alert["seats"], alert["tiles"]) == ("shared", [1], ["5-6"])


# -- nobody else reads a declared hand while the round is in play ------------------------


@pytest.fixture
def in_play(table):
    """Seat 1 has declared; 6-6 and 3-6 are down, seat 2 to play on ends (6, 3)."""
    declared(table)
    table.accept(table.move(SCENARIO_05_MOVES[0]))
    table.accept(table.move(SCENARIO_05_MOVES[1]))
    return table


def readers(table):
    return {
        "organiser": table.organiser,
        "scorekeeper": table.scorekeeper,
        "seat 2": table.phone(2),
        "seat 0": table.phone(0),
    }


@pytest.mark.parametrize("who", ["organiser", "scorekeeper", "seat 2", "seat 0"])
def test_another_token_does_not_see_a_declared_hand_in_the_state_R31(in_play, who):
    state = in_play.state(client=readers(in_play)[who])

    assert state["seats"][1]["has_declared"] is True
    assert state["seats"][1]["hand"] is None
    assert all(seat["hand"] is None for seat in state["seats"])


@pytest.mark.parametrize("who", ["organiser", "scorekeeper", "seat 2", "seat 0"])
def test_another_token_does_not_see_a_declared_hand_in_the_events_R31(in_play, who):
    events = in_play.events(client=readers(in_play)[who])

    hands = [e for e in events["events"] if e["kind"] == "hand"]
    assert [h["payload"] for h in hands] == [{"seat": 1, "tiles": None}]
    state = in_play.state(client=readers(in_play)[who])
    assert all("tiles" not in e for e in state["last_events"])


@pytest.mark.parametrize("who", ["organiser", "scorekeeper", "seat 2", "seat 1"])
def test_the_record_of_a_round_in_play_leaves_out_declared_hands_R31(in_play, who):
    clients = {**readers(in_play), "seat 1": in_play.phone(1)}

    record = in_play.record(client=clients[who])

    assert "hands" not in record["rounds"][-1]
    assert not any(shows_tile(record, tile) for tile in ["0-0", "0-1", "0-2", "5-6"])


def test_the_result_of_a_round_in_play_says_nothing_of_a_declared_hand_R31(in_play):
    assert not shows_tile(in_play.get("result/").json(), "5-6")


def test_the_seat_that_declared_reads_its_own_hand_R31(in_play):
    state = in_play.state(client=in_play.phone(1))
    events = in_play.events(client=in_play.phone(1))

    assert state["seats"][1]["hand"] == sorted(SEAT_1)
    hands = [e for e in events["events"] if e["kind"] == "hand"]
    assert sorted(hands[0]["payload"]["tiles"]) == sorted(SEAT_1)


@pytest.mark.parametrize("who", ["organiser", "scorekeeper", "seat 2", "seat 0"])
def test_the_tiles_shown_as_playable_do_not_give_away_a_declared_hand_R31(in_play, who):
    """Seat 2 (to play on 6 and 3) is shown 5-6 as possible although seat 1 declared it."""
    state = in_play.state(client=readers(in_play)[who])

    assert state["turn"] == 2
    assert "5-6" in state["round"]["playable"]["6"]
    assert (
        state["round"]["playable"] == in_play.state(client=in_play.scorekeeper)["round"]["playable"]
    )


def test_the_declaring_seat_on_its_turn_is_shown_only_its_own_playable_tiles_R31(table):
    declared(table)
    table.accept(table.move(SCENARIO_05_MOVES[0]))

    state = table.state(client=table.phone(1))

    assert state["turn"] == 1
    assert state["round"]["playable"] == {"6": ["3-6", "5-6"]}


def test_a_version_conflict_does_not_show_another_seats_hand_R31(in_play):
    stale = in_play.pass_(2, client=in_play.scorekeeper, **{"If-Match": '"0"'})

    assert stale.status_code == 412
    assert stale.json()["state"]["seats"][1]["hand"] is None


# Issue 27, item 2: a blocked round waiting for reveals (R18) is over but not settled; a
# phone reading another seat's declared hand then could tailor its ``pips`` reveal (R33).

REVEALS_BUT_SEAT_1 = [
    {"seat": 0, "tiles": ["0-3", "0-4", "0-5"]},
    {"seat": 2, "tiles": ["1-1", "1-2", "1-3", "1-4"]},
    {"seat": 3, "tiles": ["1-5", "2-2", "2-4", "2-5"]},
    {"seat": 4, "pips": 29},
]


@pytest.fixture
def blocked_declared(table):
    """Scenario 05 blocked with seat 1's hand declared: seats 0, 2, 3, 4 still to reveal."""
    declared(table)
    for move in SCENARIO_05_MOVES:
        table.accept(table.move(move))
    assert table.state()["round"]["awaiting_reveal"] == [0, 2, 3, 4]
    return table


def reveal_all_but_the_last(table):
    for body in REVEALS_BUT_SEAT_1[:-1]:
        table.accept(table.reveal(**body))


@pytest.mark.parametrize("who", ["scorekeeper", "seat 2"])
def test_another_seats_hand_stays_hidden_until_the_blocked_round_is_settled_R18_R33_R31(
    blocked_declared, who
):
    table = blocked_declared
    reveal_all_but_the_last(table)
    reader = readers(table)[who]

    state = table.state(client=reader)
    record = table.record(client=reader)

    assert state["round"]["status"] == "awaiting_reveals"
    assert state["round"]["awaiting_reveal"] == [4]
    assert state["seats"][1]["has_declared"] is True
    assert state["seats"][1]["hand"] is None
    assert "hands" not in record["rounds"][0]
    assert not shows_tile([state["seats"], record], "0-0")


def test_a_seat_reads_its_own_hand_while_the_round_waits_for_reveals_R18_R31(blocked_declared):
    table = blocked_declared
    reveal_all_but_the_last(table)

    state = table.state(client=table.phone(1))
    record = table.record(client=table.phone(1))

    assert state["seats"][1]["hand"] == sorted(SEAT_1)
    assert record["rounds"][0]["hands"] == {"1": sorted(SEAT_1)}


def test_the_organiser_reads_the_declared_hands_while_the_round_waits_for_reveals_R18(
    blocked_declared,
):
    table = blocked_declared

    state = table.state(client=table.organiser)
    record = table.record(client=table.organiser)

    assert state["seats"][1]["hand"] == sorted(SEAT_1)
    assert record["rounds"][0]["hands"] == {"1": sorted(SEAT_1)}


@pytest.mark.parametrize("who", ["scorekeeper", "seat 2"])
def test_once_every_reveal_is_in_every_token_reads_the_declared_hands_R18_R31(
    blocked_declared, who
):
    table = blocked_declared
    reveal_all_but_the_last(table)
    table.accept(table.reveal(**REVEALS_BUT_SEAT_1[-1]))
    reader = readers(table)[who]

    state = table.state(client=reader)
    record = table.record(client=reader)

    assert state["round"]["previous"]["remaining_pips"] == [12, 3, 14, 23, 29]
    assert state["seats"][1]["hand"] == sorted(SEAT_1)
    assert record["rounds"][0]["hands"] == {"1": sorted(SEAT_1)}


# -- the referee checks a declared seat fully --------------------------------------------


def test_a_declared_seat_cannot_play_a_tile_outside_its_hand_R31(in_play):
    """Seat 1 holds no 1-6: only a declared hand lets the referee know it."""
    in_play.accept(in_play.move(SCENARIO_05_MOVES[2]))
    in_play.accept(in_play.move(SCENARIO_05_MOVES[3]))
    in_play.accept(in_play.move(SCENARIO_05_MOVES[4]))
    in_play.accept(in_play.move(SCENARIO_05_MOVES[5]))
    before = in_play.state()

    response = in_play.play(1, "1-6", on=6)

    assert response.status_code == 422
    assert response.json()["code"] == "tile_not_in_hand"
    assert response.json()["rule"] == "R31"
    assert in_play.state() == before


def test_no_seat_can_play_a_tile_another_seat_declared_R31(in_play):
    """Seat 2 plays 5-6, which seat 1 declared: refused although seat 2 declared nothing."""
    response = in_play.play(2, "5-6")

    assert response.status_code == 422
    assert response.json()["code"] == "tile_not_in_hand"
    assert response.json()["rule"] == "R31"


def test_a_declared_seat_cannot_pass_while_it_holds_a_playable_tile_R31(table):
    declared(table)
    table.accept(table.move(SCENARIO_05_MOVES[0]))

    response = table.pass_(1)

    assert response.status_code == 422
    assert response.json()["code"] == "pass_with_playable_tile"
    assert response.json()["rule"] == "R31"
    refused = table.events()["refused"]
    assert [(r["code"], r["rule"]) for r in refused] == [("pass_with_playable_tile", "R31")]


def test_an_undeclared_seat_may_pass_whatever_it_holds_R30(table):
    table.accept(table.move(SCENARIO_05_MOVES[0]))

    body = table.accept(table.pass_(1))

    assert body["effects"]["named"] == ["PASSEBUNGE"]


def test_a_first_lead_below_a_declared_higher_double_is_refused_R5_R31(table):
    table.accept(table.declare(2, ["6-6", "1-1", "1-2", "1-3", "1-4"]))

    response = table.play(0, "5-5")

    assert response.status_code == 422
    assert response.json()["code"] == "opening_tile_invalid"
    assert response.json()["rule"] == "R31"


def test_the_referee_knows_a_declared_seats_remaining_pips_at_a_block_R18_R31(table):
    """Seat 2 declared: the round settles when the other four seats have revealed."""
    declared(table, seat=2, tiles=SEAT_2)
    for move in SCENARIO_05_MOVES:
        table.accept(table.move(move))
    assert table.state()["round"]["awaiting_reveal"] == [0, 1, 3, 4]

    table.accept(table.reveal(0, tiles=["0-3", "0-4", "0-5"]))
    table.accept(table.reveal(1, tiles=["0-0", "0-1", "0-2"]))
    table.accept(table.reveal(3, tiles=["1-5", "2-2", "2-4", "2-5"]))
    last = table.accept(table.reveal(4, pips=29))

    assert last["effects"]["settled"] is True
    assert last["effects"]["named"] == ["MANGUNO", "CUCUQ"]
    outcome = last["state"]["round"]["previous"]
    assert outcome["remaining_pips"] == [12, 3, 14, 23, 29]
    assert (outcome["winner"], outcome["cucuq"]) == (1, 0)


def test_a_reveal_that_disagrees_with_the_declared_hand_is_refused_R31_R33(table):
    declared(table, seat=2, tiles=SEAT_2)
    for move in SCENARIO_05_MOVES:
        table.accept(table.move(move))

    response = table.reveal(2, tiles=["1-1", "1-2", "1-3", "1-5"])

    assert response.status_code == 422
    assert response.json()["code"] == "reveal_invalid"
    assert response.json()["rule"] == "R31"


def test_a_hand_declared_after_the_lead_is_checked_against_the_moves_so_far_R31_R34(table):
    table.accept(table.move(SCENARIO_05_MOVES[0]))
    table.accept(table.move(SCENARIO_05_MOVES[1]))

    response = table.declare(1, ["5-6", "0-0", "0-1", "0-2", "0-3"])

    assert response.status_code == 422
    assert response.json()["code"] == "tile_not_in_hand"
    assert table.state()["seats"][1]["has_declared"] is False


@pytest.mark.parametrize("who", ["organiser", "scorekeeper", "seat 2"])
def test_a_refusal_that_names_a_declared_tile_is_not_read_back_by_another_token_R31(table, who):
    """Seat 1's refused pass says which of its tiles was playable: the trail keeps that private."""
    declared(table)
    table.accept(table.move(SCENARIO_05_MOVES[0]))
    assert table.pass_(1).status_code == 422

    refused = table.events(client=readers(table)[who])["refused"]

    assert [(r["code"], r["rule"], r["detail"]) for r in refused] == [
        ("pass_with_playable_tile", "R31", None)
    ]
    own = table.events(client=table.phone(1))["refused"]
    assert own[0]["detail"]


@pytest.mark.parametrize("who", ["organiser", "scorekeeper", "seat 0"])
def test_a_refused_play_of_another_seats_declared_tile_is_not_read_back_by_others_R31(in_play, who):
    """Seat 2 tries 5-6, which seat 1 declared: the refusal tells seat 2 (its own problem's
    detail) that the tile is taken, but no other token learns from any body where 5-6 is."""
    refused = in_play.play(2, "5-6")
    assert refused.status_code == 422
    assert refused.json()["code"] == "tile_not_in_hand"
    reader = readers(in_play)[who]

    trail = in_play.events(client=reader)
    state = in_play.state(client=reader)

    assert [(r["payload"], r["detail"]) for r in trail["refused"]] == [(None, None)]
    assert not shows_tile(trail, "5-6")
    assert not shows_tile(in_play.record(client=reader), "5-6")
    assert all(seat["hand"] is None for seat in state["seats"])
    assert "5-6" in state["round"]["playable"]["6"]  # not narrowed: nothing given away
    assert in_play.events(client=in_play.phone(2))["refused"][0]["payload"]["tile"] == "5-6"


def test_declaring_for_another_seat_answers_nothing_of_either_hand_R31(in_play):
    response = in_play.declare(1, ["1-1", "1-2", "1-3", "1-4", "2-3"], client=in_play.phone(2))

    assert response.status_code == 403
    assert response.json()["code"] == "seat_not_allowed"
    assert not any(shows_tile(response.content.decode(), t) for t in [*SEAT_1, *SEAT_2])


def test_a_phone_sending_its_seat_as_a_string_is_answered_by_the_rules_R3_R31(table):
    response = table.declare("1", SEAT_1, client=table.phone(1))

    assert response.status_code == 400
    assert (response.json()["code"], response.json()["rule"]) == ("record_invalid", "R3")


# -- a hand declared between rounds ----------------------------------------------------


def settled_round(table):
    """Scenario 05's round played and revealed to its end: round 2 waits for its lead."""
    for move in SCENARIO_05_MOVES:
        table.accept(table.move(move))
    table.accept(table.reveal(0, tiles=["0-3", "0-4", "0-5"]))
    table.accept(table.reveal(2, tiles=["1-1", "1-2", "1-3", "1-4"]))
    table.accept(table.reveal(3, tiles=["1-5", "2-2", "2-4", "2-5"]))
    table.accept(table.reveal(4, pips=29))
    table.accept(table.reveal(1, tiles=["0-0", "0-1", "0-2"]))
    return table


@pytest.mark.parametrize("seats", [[1], [1, 3]])
def test_a_hand_declared_before_the_next_lead_keeps_the_finished_round_on_show_R31_R27(
    table, seats
):
    """The finished round's chain and outcome stay until the next lead, whoever declares
    a hand for the next round meanwhile (R27: the table checks what happened)."""
    settled_round(table)
    before = table.state()["round"]
    assert before["status"] == "awaiting_lead"
    assert before["previous"] is not None
    hands = {1: ["0-0", "0-1", "0-2", "0-3", "0-4"], 3: ["1-1", "1-2", "1-3", "1-4", "1-5"]}

    for seat in seats:
        table.accept(table.declare(seat, hands[seat]))

    for reader in (table.organiser, table.scorekeeper, table.phone(2), table.phone(seats[0])):
        after = reader.get(table.url()).json()["round"]
        assert after["number"] == before["number"]
        assert after["status"] == "awaiting_lead"
        assert after["previous"] == before["previous"]
