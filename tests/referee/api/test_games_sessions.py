"""Sessions (sittings) and closing a game: what carries over (R27), what a closed game refuses."""

from __future__ import annotations

import pytest

from referee.models import Event, GameSession
from tests.referee.conftest import PROBLEM


def test_a_session_is_started_and_ended(table):
    started = table.post("sessions/", client=table.organiser)

    assert started.status_code == 201
    assert started.json()["number"] == 1
    assert table.state()["session"] == 1
    ended = table.post("sessions/end/", client=table.organiser)
    assert ended.status_code == 200
    assert ended.json()["number"] == 1
    assert ended.json()["ended_at"] is not None
    assert table.state()["session"] is None


def test_a_sitting_started_or_ended_answers_the_games_new_version_as_its_etag(table):
    before = table.state()["version"]

    started = table.post("sessions/", client=table.organiser)
    ended = table.post("sessions/end/", client=table.organiser)

    assert started["ETag"] == f'"{before + 1}"'
    assert ended["ETag"] == f'"{before + 2}"'
    assert table.state()["version"] == before + 2


def test_starting_a_session_ends_the_open_one(table):
    table.post("sessions/", client=table.organiser)

    second = table.post("sessions/", client=table.organiser)

    assert second.json()["number"] == 2
    sessions = GameSession.objects.order_by("number")
    assert [(s.number, s.ended_at is None) for s in sessions] == [(1, False), (2, True)]


def test_ending_a_session_when_none_is_open_is_409_session_state(table):
    response = table.post("sessions/end/", client=table.organiser)

    assert response.status_code == 409
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "session_state"


def test_the_first_event_opens_a_session_when_none_is_open(table):
    body = table.accept(table.play(0, "6-6"))

    assert body["state"]["session"] == 1
    assert Event.objects.get().session.number == 1


def test_stones_camat_and_next_leader_carry_over_to_the_next_session_R27(table, load_scenario):
    """Scenario 14 played over three sittings gives the result of one sitting (R24–R27)."""
    scenario = load_scenario("14_camat_election_reset_25")
    rounds = scenario["record"]["rounds"]
    table.post("sessions/", client=table.organiser)
    table.play_round(rounds[0])
    table.post("sessions/end/", client=table.organiser)
    between = table.state()

    table.post("sessions/", client=table.organiser)
    resumed = table.state()
    table.play_round(rounds[1])
    table.post("sessions/end/", client=table.organiser)
    table.post("sessions/", client=table.organiser)
    table.play_round(rounds[2])

    expected_after_1 = scenario["expect"]["rounds"][0]["after"]
    assert between["session"] is None
    assert resumed["session"] == 2
    for state in (between, resumed):
        assert state["table"] == expected_after_1["table"]
        assert [s["stones"] for s in state["seats"]] == expected_after_1["stones"]
        assert state["turn"] == state["round"]["leader"] == expected_after_1["next_leader"]
    assert table.result() == scenario["expect"]
    assert table.state()["camat"] == 1
    assert [s.number for s in GameSession.objects.order_by("number")] == [1, 2, 3]
    assert {e.session.number for e in Event.objects.filter(round_number=3)} == {3}


def test_a_round_may_span_two_sessions_R27(table, load_scenario):
    moves = load_scenario("02_ceki")["record"]["rounds"][0]["moves"]
    for move in moves[:10]:
        table.accept(table.move(move))
    table.post("sessions/end/", client=table.organiser)
    table.post("sessions/", client=table.organiser)

    for move in moves[10:]:
        table.accept(table.move(move))

    assert table.result()["rounds"][0]["finish"] == "ceki"


def test_each_event_belongs_to_the_sitting_open_when_it_was_entered_R27(table, load_scenario):
    moves = load_scenario("02_ceki")["record"]["rounds"][0]["moves"]
    table.accept(table.move(moves[0]))  # opens sitting 1
    table.post("sessions/end/", client=table.organiser)
    table.accept(table.move(moves[1]))  # no sitting open: opens sitting 2
    table.post("sessions/", client=table.organiser)  # ends 2, opens 3
    table.accept(table.move(moves[2]))
    table.accept(table.move(moves[3]))

    sittings = [e.session.number for e in Event.objects.order_by("position")]
    assert sittings == [1, 2, 3, 3]
    assert table.state()["session"] == 3


# -- closing ---------------------------------------------------------------------------


@pytest.fixture
def closed(table, load_scenario):
    for move in load_scenario("02_ceki")["record"]["rounds"][0]["moves"]:
        table.accept(table.move(move))
    response = table.close()
    assert response.status_code == 200
    assert response.json()["status"] == "closed"
    return table


@pytest.mark.parametrize(
    ("suffix", "body", "who"),
    [
        ("moves/", {"seat": 0, "tile": "3-3"}, "seat"),
        ("moves/", {"seat": 0, "tile": "3-3"}, "organiser"),
        ("hands/", {"seat": 0, "tiles": ["3-3", "0-0", "0-1", "0-2", "0-3"]}, "seat"),
        ("reveals/", {"seat": 0, "pips": 3}, "seat"),
        ("undo/", {}, "organiser"),
        ("sessions/", {}, "organiser"),
        ("sessions/end/", {}, "organiser"),
        ("close/", {}, "organiser"),
    ],
)
def test_every_write_to_a_closed_game_is_409_game_closed(closed, suffix, body, who):
    client = closed.phone(0) if who == "seat" else closed.organiser
    version = closed.state()["version"]

    response = closed.post(suffix, body, client=client, **{"If-Match": f'"{version}"'})

    assert response.status_code == 409
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "game_closed"
    assert closed.state()["version"] == version


def test_an_amendment_to_a_closed_game_is_409_game_closed(closed):
    response = closed.amend(20, {"seat": 0, "tile": "1-4"})

    assert response.status_code == 409
    assert response.json()["code"] == "game_closed"


def test_a_closed_game_stays_readable(closed, load_scenario):
    scenario = load_scenario("02_ceki")

    assert closed.state()["status"] == "closed"
    assert closed.state()["session"] is None
    assert closed.result() == scenario["expect"]
    assert closed.record()["rounds"][0]["moves"][-1] == {"seat": 0, "tile": "1-6", "on": 1}
    assert closed.events()["events"]
    assert not GameSession.objects.filter(ended_at__isnull=True).exists()


@pytest.mark.parametrize("suffix", ["sessions/", "sessions/end/"])
def test_a_phone_bound_to_one_seat_cannot_manage_sittings(table, suffix):
    response = table.post(suffix, client=table.phone(2))

    assert response.status_code == 403
    assert response.json()["code"] == "seat_not_allowed"
    assert table.state()["status"] == "open"


def test_the_table_scorekeeper_may_start_a_sitting(table):
    response = table.post("sessions/", client=table.scorekeeper)

    assert response.status_code == 201


@pytest.mark.parametrize("who", ["scorekeeper", "seat 2"])
def test_only_the_organiser_closes_the_game_not_a_phone(table, who):
    """Issue 12: any scorekeeper could close the game; closing is the organiser's."""
    client = table.scorekeeper if who == "scorekeeper" else table.phone(2)
    version = table.state()["version"]

    response = table.post("close/", client=client, **{"If-Match": f'"{version}"'})

    assert response.status_code == 403
    assert response.json()["code"] == "organiser_only"
    assert table.state()["status"] == "open"


def test_closing_without_if_match_is_428_and_closes_nothing(table):
    response = table.post("close/", client=table.organiser)

    assert response.status_code == 428
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "precondition_required"
    assert table.state()["status"] == "open"


def test_closing_on_a_stale_version_is_412(table):
    table.accept(table.play(0, "6-6"))

    response = table.post("close/", client=table.organiser, **{"If-Match": '"0"'})

    assert response.status_code == 412
    assert table.state()["status"] == "open"


def test_the_organiser_closes_the_game_with_if_match(table):
    response = table.close()

    assert response.status_code == 200
    assert response.json()["status"] == "closed"
    assert response["ETag"] == f'"{response.json()["version"]}"'


def test_event_positions_have_no_gaps_whatever_sessions_and_corrections_did(table):
    """Sittings and undo move the version on; an event's position counts events only."""
    assert table.post("sessions/", client=table.organiser).status_code == 201
    assert table.post("sessions/end/", client=table.organiser).status_code == 200
    assert table.post("sessions/", client=table.organiser).status_code == 201
    table.accept(table.play(0, "6-6"))
    table.accept(table.pass_(1))
    assert table.undo().status_code == 200
    table.accept(table.play(1, "3-6"))

    events = table.events()["events"]

    assert [(e["position"], e["revoked_by"] is None) for e in events] == [
        (0, True),
        (1, False),
        (2, True),
    ]
    assert table.state()["version"] == 7  # 3 sittings, 3 events, 1 undo


# -- retried with an Idempotency-Key (QA: a retried start opened a second sitting, a
# retried close was 409 game_closed) -----------------------------------------------------


def test_a_retried_session_start_opens_one_sitting_and_answers_the_first_answer_R27(table):
    key = {"Idempotency-Key": "start-1"}
    first = table.post("sessions/", client=table.organiser, **key)
    retry = table.post("sessions/", client=table.organiser, **key)

    assert first.status_code == retry.status_code == 201
    assert retry.content == first.content
    assert retry["Idempotent-Replayed"] == "true"
    assert table.game.sessions.count() == 1
    assert table.state()["version"] == int(first["ETag"].strip('"'))


def test_a_retried_session_end_answers_the_first_answer_not_session_state_R27(table):
    table.accept(table.play(0, "6-6"))  # the first move opened sitting 1
    key = {"Idempotency-Key": "end-1"}
    first = table.post("sessions/end/", client=table.organiser, **key)
    retry = table.post("sessions/end/", client=table.organiser, **key)

    assert first.status_code == retry.status_code == 200
    assert retry.content == first.content
    assert first.json()["ended_at"]


def test_a_retried_close_answers_the_first_answer_not_game_closed(table):
    version = table.state()["version"]
    headers = {"If-Match": f'"{version}"', "Idempotency-Key": "close-1"}
    first = table.post("close/", client=table.organiser, **headers)
    retry = table.post("close/", client=table.organiser, **headers)

    assert first.status_code == retry.status_code == 200
    assert retry.content == first.content
    assert first.json()["status"] == "closed"
    other = table.post("close/", client=table.organiser, **{**headers, "Idempotency-Key": "2"})
    assert other.status_code == 409  # a new request on the closed game: game_closed
    assert other.json()["code"] == "game_closed"


# -- their body: at most ``expected_version`` (QA: an unknown field was taken silently) --

BODILESS = ["sessions/", "sessions/end/", "close/"]


@pytest.mark.parametrize("suffix", BODILESS)
def test_an_unknown_field_in_a_sitting_or_close_is_400_and_changes_nothing(table, suffix):
    table.post("sessions/", client=table.organiser)  # a sitting to end
    before = table.state()
    headers = {"If-Match": f'"{before["version"]}"'}

    response = table.post(suffix, {"number": 3}, client=table.organiser, **headers)

    assert response.status_code == 400
    assert response["Content-Type"] == PROBLEM
    errors = response.json()["errors"]
    assert [(e["field"], e["code"]) for e in errors] == [("number", "unknown_field")]
    after = table.state()
    assert (after["version"], after["status"], after["session"]) == (
        before["version"],
        "open",
        1,
    )


@pytest.mark.parametrize("suffix", ["sessions/", "sessions/end/"])
def test_a_sitting_started_or_ended_on_a_stale_expected_version_is_409_R27(table, suffix):
    table.post("sessions/", client=table.organiser)
    version = table.state()["version"]

    stale = table.post(suffix, {"expected_version": version - 1}, client=table.organiser)
    fresh = table.post(suffix, {"expected_version": version}, client=table.organiser)

    assert stale.status_code == 409
    assert stale.json()["code"] == "version_mismatch"
    assert fresh.status_code == (201 if suffix == "sessions/" else 200)
    assert table.state()["version"] == version + 1
