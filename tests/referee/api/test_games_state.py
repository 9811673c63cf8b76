"""GET /games/{id}/: what the table sees — chain, ends, turn, seats, stones, CAMAT, last events."""

from __future__ import annotations

from referee.selectors import LAST_EVENTS


def enter(table, moves):
    return [table.accept(table.move(move)) for move in moves]


def test_a_new_game_waits_for_the_holder_of_the_highest_double_R5_R22(table):
    state = table.state()

    assert state["id"] == table.id
    assert state["status"] == "open"
    assert (state["table"], state["camat"], state["turn"]) == (25, None, None)
    assert state["round"]["number"] == 1
    assert state["round"]["status"] == "awaiting_lead"
    assert state["round"]["leader"] is None
    assert state["round"]["chain"] == []
    assert state["round"]["ends"] is None
    assert state["last_events"] == []
    assert [s["name"] for s in state["seats"]] == ["Andi", "Besse", "Cakra", "Daeng", "Evi"]
    assert all(s["stones"] == 0 and s["tiles_left"] == 5 for s in state["seats"])


def test_the_state_shows_the_chain_open_ends_turn_and_tiles_per_seat_R7_R8(table, load_scenario):
    moves = load_scenario("05_blocked_no_mattikkeng")["record"]["rounds"][0]["moves"]
    enter(table, moves[:5])  # 6-6, 3-6, 2-3, 2-6 on 2, 4-6

    state = table.state()

    rnd = state["round"]
    assert rnd["status"] == "in_play"
    assert rnd["leader"] == 0
    assert len(rnd["chain"]) == 5
    assert rnd["chain"][0].split("-")[0] == str(rnd["ends"][0])
    assert rnd["chain"][-1].split("-")[-1] == str(rnd["ends"][1])
    assert sorted(rnd["ends"]) == [4, 6]
    assert state["turn"] == 0
    assert state["seats"][0]["tiles_played"] == ["6-6"]
    assert state["seats"][3]["tiles_played"] == ["2-6"]
    assert [s["tiles_left"] for s in state["seats"]] == [4, 4, 4, 4, 4]


def test_the_playable_tiles_are_listed_per_open_end_R7_R32(table):
    """Ends (6, 3): every unplayed tile carrying a 6 or a 3, under each end it fits."""
    enter(table, [{"seat": 0, "tile": "6-6"}, {"seat": 1, "tile": "3-6"}])

    playable = table.state()["round"]["playable"]

    assert playable == {
        "3": ["0-3", "1-3", "2-3", "3-3", "3-4", "3-5"],
        "6": ["0-6", "1-6", "2-6", "4-6", "5-6"],
    }


def test_a_seat_that_passed_on_a_value_is_not_shown_tiles_with_it_R32(table):
    enter(table, [{"seat": 0, "tile": "6-6"}, {"seat": 1, "pass": True}])
    enter(
        table,
        [
            {"seat": 2, "tile": "3-6"},
            {"seat": 3, "tile": "3-4"},
            {"seat": 4, "tile": "4-5"},
            {"seat": 0, "tile": "5-5"},
        ],
    )

    state = table.state()

    assert state["turn"] == 1
    assert state["seats"][1]["passed_on"] == [6]
    assert sorted(state["round"]["ends"]) == [5, 6]
    assert state["round"]["playable"] == {"5": ["0-5", "1-5", "2-5", "3-5"], "6": []}


def test_the_first_lead_of_5_5_makes_6_6_sleep_and_it_is_never_shown_playable_R5(table):
    enter(table, [{"seat": 2, "tile": "5-5"}, {"seat": 3, "tile": "5-6"}])

    assert "6-6" not in table.state()["round"]["playable"]["6"]


def test_last_events_carry_their_named_outcomes_and_stones(table):
    enter(table, [{"seat": 0, "tile": "6-6"}, {"seat": 1, "pass": True}])

    last = table.state()["last_events"]

    assert [(e["position"], e["kind"], e["seat"]) for e in last] == [(0, "move", 0), (1, "move", 1)]
    assert last[0]["tile"] == "6-6"
    assert last[1]["pass"] is True
    assert last[1]["named"] == ["PASSEBUNGE"]
    assert last[1]["transfers"] == [
        {"move": 1, "from": "table", "to": 1, "stones": 2, "reason": "passebunge"}
    ]


def test_only_the_latest_events_are_listed(table, load_scenario):
    enter(table, load_scenario("02_ceki")["record"]["rounds"][0]["moves"][:15])

    last = table.state()["last_events"]

    assert len(last) == LAST_EVENTS
    assert last[-1]["position"] == 14


def test_a_finished_round_is_shown_with_its_named_outcomes_until_the_next_lead_R14_R15(
    table, load_scenario
):
    enter(table, load_scenario("02_ceki")["record"]["rounds"][0]["moves"])

    state = table.state()

    previous = state["round"]["previous"]
    assert previous["named"] == ["FIRST CAPPU", "CEKI", "CUCUQ"]
    assert previous["transfers"] == [
        {"move": None, "from": "table", "to": 4, "stones": 3, "reason": "ceki"}
    ]
    assert state["last_events"][-1]["named"] == ["MAPPAKULING", "FIRST CAPPU", "CEKI", "CUCUQ"]


def test_a_camat_in_office_is_shown_and_leads_the_next_round_R24_R25_R26(table, load_scenario):
    table.play_record(load_scenario("14_camat_election_reset_25")["record"])

    state = table.state()

    assert state["camat"] == 1
    assert [s["is_camat"] for s in state["seats"]] == [False, True, False, False, False]
    assert state["table"] == 25
    assert [s["stones"] for s in state["seats"]] == [0, 0, 0, 0, 0]
    assert state["round"]["number"] == 4
    assert state["round"]["leader"] == state["turn"] == 1
    assert state["round"]["previous"]["camat_elected"] == 1
    led = table.accept(table.play(1, "2-4"))  # R6: the CAMAT may lead any tile
    assert led["state"]["round"]["number"] == 4
    assert led["state"]["round"]["leader"] == 1


def test_the_state_reads_the_same_from_every_token_when_no_hand_is_declared(table):
    table.accept(table.play(0, "6-6"))

    views = [
        table.state(client=client)
        for client in (table.organiser, table.scorekeeper, table.phone(1), table.phone(3))
    ]

    assert all(view == views[0] for view in views)


def test_the_state_is_folded_from_the_current_round_only(
    table, load_scenario, django_assert_max_num_queries
):
    """Reading a long game costs as many queries as reading a new one."""
    table.play_record(load_scenario("14_camat_election_reset_25")["record"])

    with django_assert_max_num_queries(6):
        assert table.get().status_code == 200
