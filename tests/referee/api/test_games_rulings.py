"""Corrections of any round and the organiser's rulings over HTTP (R35–R38).

Every correction is judged as a replay of the corrected record (R37): the
answer to a refused one is the replay's error, and an accepted one leaves
the game, its record and its result equal to that replay.
"""

from __future__ import annotations

import copy

import pytest

from referee.engine.errors import RefereeError
from referee.engine.records import replay_record
from referee.models import Correction, Event, Game, RefusedEvent


def enter(table, moves):
    return [table.accept(table.move(move)) for move in moves]


def correct(table, body, *, client=None):
    return (client or table.organiser).post(table.url("corrections/"), body, format="json")


def replay_error(record) -> dict:
    with pytest.raises(RefereeError) as caught:
        replay_record(record)
    return caught.value.to_dict()


@pytest.fixture
def swapped(load_scenario):
    """Scenario 05 as the table entered it: seats 3 and 4's tiles swapped (moves 3, 4)."""
    record = load_scenario("05_blocked_no_mattikkeng")["record"]
    wrong = copy.deepcopy(record)
    wrong["rounds"][0]["moves"][3] = {"seat": 3, "tile": "4-6"}
    wrong["rounds"][0]["moves"][4] = {"seat": 4, "tile": "2-6"}
    return record, wrong


def test_two_swapped_entries_are_fixed_in_one_batch_but_not_one_at_a_time_R37(table, swapped):
    record, wrong = swapped
    table.play_record(wrong)
    before = table.state()

    alone = table.amend(3, {"seat": 3, "tile": "2-6", "on": 2}, client=table.organiser)

    assert alone.status_code == 422
    amended = copy.deepcopy(wrong)
    amended["rounds"][0]["moves"][3] = {"seat": 3, "tile": "2-6", "on": 2}
    expected = replay_error(amended)
    assert {k: alone.json()[k] for k in ("code", "rule", "round", "move")} == {
        k: expected[k] for k in ("code", "rule", "round", "move")
    }
    assert table.state() == before

    batch = correct(
        table,
        {
            "changes": [
                {"op": "amend", "position": 3, "event": {"seat": 3, "tile": "2-6", "on": 2}},
                {"op": "amend", "position": 4, "event": {"seat": 4, "tile": "4-6"}},
            ],
            "reason": "seats 3 and 4 swapped",
        },
    )

    assert batch.status_code == 200, batch.content
    assert table.result() == replay_record(record)
    assert replay_record(table.record()) == replay_record(record)
    correction = batch.json()["correction"]
    assert correction["kind"] == "correct"
    assert [c["op"] for c in correction["changes"]] == ["amend", "amend"]
    assert batch.json()["state"]["version"] == before["version"] + 1


def test_an_amended_event_keeps_the_time_and_author_of_its_first_entry_R37(table, swapped):
    _, wrong = swapped
    table.play_record(wrong)
    first = {e.position: e for e in Event.objects.filter(game=table.game, position__in=[3, 4])}

    response = correct(
        table,
        {
            "changes": [
                {"op": "amend", "position": 3, "event": {"seat": 3, "tile": "2-6", "on": 2}},
                {"op": "amend", "position": 4, "event": {"seat": 4, "tile": "4-6"}},
            ]
        },
    )

    assert response.status_code == 200, response.content
    for position, original in first.items():
        replacement = Event.objects.get(game=table.game, position=position, revoked_by__isnull=True)
        assert replacement.pk != original.pk
        assert (replacement.created_at, replacement.entered_by) == (
            original.created_at,
            original.entered_by,
        )
        assert Event.objects.get(pk=original.pk).revoked_by is not None
    correction = Correction.objects.get()
    assert correction.entered_by.startswith("user ")
    # The trail shows the event as entered, without the side it was placed on (R11).
    assert correction.changes[0]["replaced"] == entered(first[3].payload)
    assert first[3].payload["side"] == "left"


def test_an_event_is_inserted_and_another_removed_in_any_round_R37(table, load_scenario):
    """Round 1 of scenario 01 finished, round 2 begun; a pass is inserted, the lead removed."""
    moves = load_scenario("01_plain_finish")["record"]["rounds"][0]["moves"]
    enter(table, moves[:5])
    table.accept(table.pass_(0))
    table.accept(table.pass_(1))
    pass_at = 5

    inserted = correct(
        table,
        {
            "changes": [{"op": "remove", "position": pass_at + 1}],
            "reason": "seat 1 never passed",
        },
    )
    assert inserted.status_code == 200, inserted.content
    assert table.state()["turn"] == 1
    again = correct(
        table,
        {
            "changes": [
                {"op": "insert", "position": pass_at, "kind": "move", "event": moves[5]},
                {"op": "remove", "position": pass_at},
            ]
        },
    )

    assert again.status_code == 200, again.content
    assert table.record()["rounds"][0]["moves"] == moves[:6]
    live = Event.objects.filter(game=table.game, revoked_by__isnull=True).order_by("position")
    assert [entered(e.payload) for e in live] == moves[:6]


def test_a_correction_that_changes_nothing_changes_nothing_R37(table, swapped):
    _, wrong = swapped
    table.play_record(wrong)
    version = table.state()["version"]

    response = correct(
        table, {"changes": [{"op": "amend", "position": 3, "event": {"seat": 3, "tile": "4-6"}}]}
    )

    assert response.status_code == 200
    assert response.json()["correction"] is None
    assert table.state()["version"] == version
    assert not Correction.objects.exists()


def test_a_refused_batch_changes_nothing_and_is_logged_R37(table, swapped):
    _, wrong = swapped
    table.play_record(wrong)
    before = table.state()
    live = list(Event.objects.values_list("id", "revoked_by"))

    response = correct(
        table,
        {
            "changes": [
                {"op": "remove", "position": 0},
                {"op": "amend", "position": 4, "event": {"seat": 4, "tile": "4-6"}},
            ]
        },
    )

    assert response.status_code == 422
    assert (response.json()["code"], response.json()["round"]) == ("opening_tile_invalid", 1)
    assert table.state() == before
    assert list(Event.objects.values_list("id", "revoked_by")) == live
    assert RefusedEvent.objects.get().code == "opening_tile_invalid"


@pytest.mark.parametrize(
    ("suffix", "body"),
    [
        ("corrections/", {"changes": [{"op": "remove", "position": 0}]}),
        ("rounds/1/void/", {"reason": "dealt face up"}),
        ("rounds/1/adjustments/", {"from": "table", "to": 0, "stones": 1, "reason": "x"}),
        ("seats/4/substitutes/", {"name": "Fajar"}),
    ],
)
def test_rulings_and_corrections_are_the_organisers_R35_R36_R37_R38(table, suffix, body):
    table.accept(table.play(0, "6-6"))

    response = table.post(suffix, body, client=table.scorekeeper)

    assert response.status_code == 403
    assert response.json()["code"] == "organiser_only"


def test_a_round_in_play_is_voided_and_the_next_is_led_as_it_should_have_been_R35_R5(
    table, load_scenario
):
    record = load_scenario("40_void_adjust_substitute")["record"]
    enter(table, record["rounds"][0]["moves"][:1])  # 6-6, then the table played on wrongly

    response = table.post(
        "rounds/1/void/", {"reason": "tiles were dealt face up"}, client=table.organiser
    )

    assert response.status_code == 200, response.content
    state = response.json()["state"]
    assert state["round"]["number"] == 2
    assert state["round"]["leader"] is None  # R5: no round before it counts
    assert state["round"]["previous"]["void"] == {"reason": "tiles were dealt face up"}
    assert state["table"] == 25
    result = table.result()
    assert result["rounds"][0]["void"] is True
    table.play_round(record["rounds"][1])  # round 2 is the game's first lead (R5)
    assert table.result()["rounds"][1] == replay_record(record)["rounds"][1] | {
        "transfers": replay_record(record)["rounds"][1]["transfers"][:-1],
        "after": table.result()["rounds"][1]["after"],
    }


def test_voiding_an_earlier_round_is_refused_with_the_later_events_error_R35_R37(
    table, load_scenario
):
    """Voiding round 1 makes round 2's lead the game's first lead (R5): 1-4 cannot open it."""
    record = load_scenario("40_void_adjust_substitute")["record"]
    table.play_round(record["rounds"][1])
    table.accept(table.play(0, "1-4"))
    before = table.state()

    response = table.post("rounds/1/void/", {"reason": "late"}, client=table.organiser)

    corrected = copy.deepcopy(table.record())
    corrected["rounds"][0]["void"] = {"reason": "late"}
    expected = replay_error(corrected)
    assert response.status_code == 422
    assert {k: response.json()[k] for k in ("code", "rule", "round", "move")} == {
        k: expected[k] for k in ("code", "rule", "round", "move")
    }
    assert table.state() == before


def test_an_adjustment_follows_the_award_and_never_while_the_round_is_in_play_R36(
    table, load_scenario
):
    record = load_scenario("40_void_adjust_substitute")["record"]
    table.play_round(record["rounds"][1])
    table.accept(table.play(0, "6-6"))
    adjustment = {"from": 3, "to": "table", "stones": 1, "reason": "a stone found"}

    in_play = table.post("rounds/2/adjustments/", adjustment, client=table.organiser)
    table.post("undo/", {}, client=table.scorekeeper)
    too_many = table.post(
        "rounds/1/adjustments/", {**adjustment, "stones": 4}, client=table.organiser
    )
    accepted = table.post("rounds/1/adjustments/", adjustment, client=table.organiser)

    assert (in_play.status_code, in_play.json()["code"], in_play.json()["rule"]) == (
        422,
        "ruling_invalid",
        "R36",
    )
    assert (too_many.status_code, too_many.json()["code"], too_many.json()["round"]) == (
        422,
        "ruling_invalid",
        1,
    )
    assert accepted.status_code == 200, accepted.content
    transfers = table.result()["rounds"][0]["transfers"]
    assert transfers[-1] == {
        "move": None,
        "from": 3,
        "to": "table",
        "stones": 1,
        "reason": "adjustment",
    }
    assert table.record()["rounds"][0]["adjustments"] == [adjustment]
    undo = table.post("undo/", {}, client=table.scorekeeper)
    assert (undo.status_code, undo.json()["code"]) == (403, "organiser_only")


def test_a_substitute_changes_only_the_name_and_the_record_keeps_it_R38(table, load_scenario):
    record = load_scenario("40_void_adjust_substitute")["record"]
    table.play_round(record["rounds"][1])
    stones = table.state()["seats"][4]["stones"]

    response = table.post(
        "seats/4/substitutes/", {"name": "Fajar", "reason": "Evi left"}, client=table.organiser
    )

    assert response.status_code == 200, response.content
    seat = response.json()["state"]["seats"][4]
    assert (seat["name"], seat["stones"]) == ("Fajar", stones)
    exported = table.record()
    assert exported["players"][4] == "Evi"
    assert exported["rounds"][1] == {"moves": [], "substitutes": {"4": "Fajar"}}
    table.play_round(record["rounds"][2])
    assert table.record()["rounds"][1]["substitutes"] == {"4": "Fajar"}
    assert replay_record(table.record())["rounds"][1]["leader"] == 0


def test_a_seat_is_renamed_and_every_name_follows_R38(table):
    response = table.organiser.put(
        table.url("seats/1/"), {"name": "Besse Ṣ.", "reason": "spelling"}, format="json"
    )

    assert response.status_code == 200, response.content
    assert table.state()["seats"][1]["name"] == "Besse Ṣ."
    assert table.record()["players"][1] == "Besse Ṣ."
    assert response.json()["correction"]["changes"][0]["previous"]["name"] == "Besse"


def test_a_stored_game_is_replaced_by_its_corrected_record_and_events_keep_their_times_R37(
    table, swapped
):
    record, wrong = swapped
    table.play_record(wrong)
    kept = Event.objects.get(game=table.game, position=0)

    response = table.organiser.put(
        table.url("record/"), {"record": record, "reason": "from the paper sheet"}, format="json"
    )

    assert response.status_code == 200, response.content
    assert table.result() == replay_record(record)
    assert Event.objects.get(pk=kept.pk).revoked_by is None
    assert response.json()["correction"]["kind"] == "replace"


def test_scenarios_40_and_41_played_at_the_live_table_give_their_results_R35_R36_R38(
    table, load_scenario
):
    """Round 1's wrong 2-5 is refused at the table, so the organiser voids the round after
    its lead; the adjustment, the substitute and the other rounds go through the API."""
    scenario = load_scenario("40_void_adjust_substitute")
    rounds = scenario["record"]["rounds"]
    table.accept(table.move(rounds[0]["moves"][0]))
    assert table.move(rounds[0]["moves"][1]).json()["code"] == "tile_does_not_match"
    void = rounds[0]["void"]
    assert table.post("rounds/1/void/", void, client=table.organiser).status_code == 200
    table.play_round(rounds[1])
    too_large = load_scenario("41_adjustment_too_large")
    refused = table.post(
        "rounds/2/adjustments/",
        too_large["record"]["rounds"][1]["adjustments"][0],
        client=table.organiser,
    )
    assert {k: refused.json()[k] for k in too_large["expect"]} == too_large["expect"]
    adjusted = table.post(
        "rounds/2/adjustments/", rounds[1]["adjustments"][0], client=table.organiser
    )
    assert adjusted.status_code == 200, adjusted.content
    substitute = table.post(
        "seats/4/substitutes/", {"name": "Fajar", "from_round": 3}, client=table.organiser
    )
    assert substitute.status_code == 200, substitute.content
    table.play_round(rounds[2])
    table.play_round(rounds[3])

    assert table.result() == scenario["expect"]
    exported = table.record()
    assert exported["rounds"][0]["void"] == void
    assert exported["rounds"][2]["substitutes"] == {"4": "Fajar"}
    assert replay_record(exported) == scenario["expect"]


@pytest.mark.parametrize(
    ("suffix", "body", "code"),
    [
        ("rounds/99999999999/void/", {"reason": "x"}, "record_invalid"),
        ("seats/4/substitutes/", {"name": "Fajar", "from_round": 10**12}, "record_invalid"),
    ],
)
def test_a_ruling_on_a_round_not_begun_is_refused_R35_R38(table, suffix, body, code):
    table.accept(table.play(0, "6-6"))

    response = table.post(suffix, body, client=table.organiser)

    assert response.status_code == 400
    assert response.json()["code"] == code


def test_re_seating_a_seat_that_does_not_exist_is_record_invalid_R3(table):
    response = table.organiser.put(table.url("seats/7/"), {"name": "Fajar"}, format="json")

    assert (response.status_code, response.json()["code"]) == (400, "record_invalid")


@pytest.mark.parametrize(
    ("suffix", "body", "code"),
    [
        ("rounds/0/void/", {"reason": "x"}, "record_invalid"),
        # A NUL is refused at the edge, before the rules see it (issue 12).
        (
            "rounds/1/adjustments/",
            {"from": "\x00", "to": 0, "stones": 1, "reason": "x"},
            "text_invalid",
        ),
        (
            "corrections/",
            {
                "changes": [
                    {
                        "op": "insert",
                        "kind": "substitute",
                        "event": {"round": 1, "seat": 0, "name": "A\x00"},
                    }
                ]
            },
            "text_invalid",
        ),
    ],
)
def test_a_ruling_that_no_round_or_database_could_hold_is_a_400_never_a_500(
    table, suffix, body, code
):
    table.accept(table.play(0, "6-6"))

    response = table.post(suffix, body, client=table.organiser)

    assert (response.status_code, response.json()["code"]) == (400, code)


def test_a_voided_round_with_a_nul_in_a_kept_hand_is_not_imported(organiser_client, load_scenario):
    record = copy.deepcopy(load_scenario("40_void_adjust_substitute")["record"])
    record["rounds"][0]["hands"] = {"0": ["\x00"]}

    response = organiser_client.post("/api/v1/games/import/", record, format="json")

    # Refused at the edge, before the rules or the database see it (issue 12).
    assert (response.status_code, response.json()["code"]) == (400, "text_invalid")
    assert not Game.objects.exists()


def test_voiding_the_next_round_before_its_lead_is_refused_and_changes_nothing_R35(
    table, load_scenario
):
    """Decision (issue 9): R35 voids a round finished or in play; one not yet led, with
    nothing entered in it, holds nothing to void (a misdeal is simply dealt again)."""
    record = load_scenario("01_plain_finish")["record"]
    table.play_round(record["rounds"][0])
    before = table.state()

    response = table.post("rounds/2/void/", {"reason": "dealt face up"}, client=table.organiser)

    assert response.status_code == 422
    body = response.json()
    assert (body["code"], body["rule"], body["round"]) == ("ruling_invalid", "R35", 2)
    assert "nothing in it to void" in body["detail"]
    assert table.state() == before
    assert not Event.objects.filter(kind="void").exists()


REORDERED = "tiles shown\u202e by Evi"  # a right-to-left override: read on phones reordered


@pytest.mark.parametrize(
    ("suffix", "body", "field"),
    [
        (
            "corrections/",
            {"changes": [{"op": "remove", "position": 0}], "reason": REORDERED},
            None,
        ),
        ("rounds/1/void/", {"reason": REORDERED}, None),
        (
            "rounds/1/adjustments/",
            {"from": "table", "to": 0, "stones": 1, "reason": REORDERED},
            None,
        ),
        ("seats/4/substitutes/", {"name": "Fajar", "reason": REORDERED}, None),
        ("undo/", {"reason": REORDERED}, "scorekeeper"),
    ],
)
def test_a_reason_that_changes_its_own_direction_is_refused_and_nothing_changes(
    table, suffix, body, field
):
    """Every reason of the API is shown as typed on every phone and in the audit trail: a
    bidirectional embedding, override or isolate is 400 ``text_invalid`` (QA finding)."""
    table.accept(table.play(0, "6-6"))
    before = (table.state()["version"], table.events())
    client = table.scorekeeper if field == "scorekeeper" else table.organiser

    response = table.post(suffix, body, client=client)

    assert response.status_code == 400, response.content
    assert response.json()["errors"][0]["code"] == "text_invalid"
    assert response.json()["errors"][0]["field"] == "reason"
    assert (table.state()["version"], table.events()) == before


def entered(payload):
    """A stored event as entered: without the side of the chain a play lies on (R11)."""
    return {k: v for k, v in payload.items() if k != "side"}
