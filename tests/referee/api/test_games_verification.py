"""Round verification over HTTP (issue 11): confirm, dispute, resolve a settled round.

Round 1 is tests/referee/web/walks.py's CEKI_WITH_A_PASS, each move entered from the
phone of the seat that made it: its last event (Andi's 2-3, seat 0) comes from seat 0's
phone, so seat 0 may not verify it and every other seat may.
"""

from __future__ import annotations

from typing import Any

import pytest

from referee.models import Event, RoundVerification
from tests.referee.web.walks import CEKI_WITH_A_PASS, record_move

pytestmark = pytest.mark.django_db


def play_round_1(table: Any) -> None:
    for step in CEKI_WITH_A_PASS:
        table.accept(table.move(record_move(*step)))


def verify(table: Any, what: str, seat: int | None, body: Any = None, **headers: str) -> Any:
    client = table.scorekeeper if seat is None else table.phone(seat)
    return table.post(f"rounds/1/{what}/", body or {}, client=client, **headers)


def result_of(table: Any) -> dict[str, Any]:
    """``GET …/result/`` as sent, with each round's ``verification``."""
    response = table.get("result/")
    assert response.status_code == 200, response.content
    return response.json()


def resolve(table: Any, number: int = 1, body: Any = None) -> Any:
    return table.post(f"rounds/{number}/resolve/", body or {}, client=table.organiser)


@pytest.fixture
def settled(table: Any) -> Any:
    play_round_1(table)
    return table


def test_a_settled_round_is_unverified_in_the_state_and_the_result(settled) -> None:
    state = settled.state()
    assert state["round"]["verification"] is None  # round 2, not settled
    assert state["round"]["previous"]["verification"]["status"] == "unverified"
    assert result_of(settled)["rounds"][0]["verification"]["status"] == "unverified"


def test_another_seat_confirms_and_every_view_says_who(settled) -> None:
    version = settled.state()["version"]
    response = verify(settled, "confirm", 1)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["round"] == 1
    assert body["verification"]["status"] == "confirmed"
    assert body["verification"]["seat"] == 1
    assert body["state"]["version"] == version + 1  # every phone's poll redraws
    assert response["ETag"] == f'"{version + 1}"'
    for reader in (settled.scorekeeper, settled.phone(3), settled.organiser):
        previous = settled.state(client=reader)["round"]["previous"]
        assert previous["verification"]["status"] == "confirmed"
        assert previous["verification"]["seat"] == 1
    assert result_of(settled)["rounds"][0]["verification"]["seat"] == 1


def test_the_seat_that_entered_the_last_event_cannot_verify_it(settled) -> None:
    for what, body in (("confirm", {}), ("dispute", {"reason": "wrong"})):
        response = verify(settled, what, 0, body)
        assert response.status_code == 403
        assert response.json()["code"] == "verification_own_entry"
    assert not RoundVerification.objects.exists()


def test_a_second_phone_of_the_same_seat_cannot_verify_either(settled) -> None:
    from tests.referee.conftest import table_client, table_key

    settled.post("leave/", client=settled.phone(0))
    again = table_client(table_key(game=settled.game, seat=0))
    response = settled.post("rounds/1/confirm/", {}, client=again)
    assert response.status_code == 403
    assert response.json()["code"] == "verification_own_entry"


def test_only_a_seats_phone_confirms_or_disputes(settled) -> None:
    for client in (settled.scorekeeper, settled.organiser):
        response = settled.post("rounds/1/confirm/", {}, client=client)
        assert response.status_code == 403
        assert response.json()["code"] == "verification_seat_required"


def test_a_round_not_settled_has_nothing_to_verify(table) -> None:
    steps = CEKI_WITH_A_PASS[:-1]
    for step in steps:
        table.accept(table.move(record_move(*step)))
    for number in (1, 2, 0):
        response = table.post(f"rounds/{number}/confirm/", {}, client=table.phone(2))
        assert response.status_code == 409
        assert response.json()["code"] == "round_not_ended"
    response = table.post("rounds/1/resolve/", {}, client=table.organiser)
    assert response.status_code == 409
    assert response.json()["code"] == "round_not_ended"


def test_a_blocked_round_waiting_for_reveals_is_not_ended(table) -> None:
    from tests.referee.web.walks import BLOCKED

    for move in BLOCKED:
        table.accept(table.move(move))
    response = table.post("rounds/1/confirm/", {}, client=table.phone(2))
    assert response.status_code == 409
    assert response.json()["code"] == "round_not_ended"


def test_confirming_again_changes_nothing_and_a_key_replays_the_first_answer(settled) -> None:
    first = verify(settled, "confirm", 1, **{"Idempotency-Key": "tap-1"})
    again = verify(settled, "confirm", 1, **{"Idempotency-Key": "tap-1"})
    assert again.status_code == 200
    assert again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    version = settled.state()["version"]
    other = verify(settled, "confirm", 2)  # a second seat: still confirmed by seat 1
    assert other.status_code == 200
    assert other.json()["verification"]["seat"] == 1
    assert settled.state()["version"] == version
    reused = verify(settled, "dispute", 1, {"reason": "x"}, **{"Idempotency-Key": "tap-1"})
    assert reused.status_code == 422
    assert reused.json()["code"] == "idempotency_key_reused"


def test_a_dispute_stands_until_the_organiser_marks_the_round_confirmed(settled) -> None:
    verify(settled, "confirm", 1)
    response = verify(settled, "dispute", 2, {"reason": "Daeng's 2-4 was 2-5"})
    assert response.status_code == 200
    assert response.json()["verification"] == {
        **response.json()["verification"],
        "status": "disputed",
        "seat": 2,
        "reason": "Daeng's 2-4 was 2-5",
        "resolution": None,
    }
    confirm = verify(settled, "confirm", 3)
    assert confirm.status_code == 409
    assert confirm.json()["code"] == "round_disputed"
    phone = settled.post("rounds/1/resolve/", {}, client=settled.phone(3))
    assert phone.status_code == 403
    assert phone.json()["code"] == "organiser_only"
    resolved = resolve(settled, body={"note": "checked with the table"})
    assert resolved.status_code == 200
    verification = resolved.json()["verification"]
    assert verification["status"] == "resolved"
    assert verification["resolution"] == "confirmed"
    assert verification["reason"] == "Daeng's 2-4 was 2-5"  # kept: what was disputed
    assert verification["note"] == "checked with the table"
    assert result_of(settled)["rounds"][0]["verification"]["status"] == "resolved"


def test_the_same_dispute_twice_changes_nothing(settled) -> None:
    verify(settled, "dispute", 2, {"reason": "wrong tile"})
    version = settled.state()["version"]
    again = verify(settled, "dispute", 2, {"reason": "wrong tile"})
    assert again.status_code == 200
    assert settled.state()["version"] == version


@pytest.mark.parametrize("reason", ["", "   ", "x" * 201, 5, None, ["wrong"], {"a": "b"}])
def test_a_dispute_needs_a_short_text_reason(settled, reason: Any) -> None:
    response = verify(settled, "dispute", 2, {"reason": reason})
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "verification_reason_invalid"  # as documented
    assert not RoundVerification.objects.exists()


def test_a_reason_of_200_characters_is_kept_whole(settled) -> None:
    response = verify(settled, "dispute", 2, {"reason": "x" * 200})
    assert response.status_code == 200, response.content
    assert RoundVerification.objects.get().reason == "x" * 200


@pytest.mark.parametrize("note", ["x" * 201, 5, None, ["ok"]])
def test_a_resolution_note_is_a_short_text(settled, note: Any) -> None:
    response = resolve(settled, body={"note": note})
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "verification_reason_invalid"
    assert not RoundVerification.objects.exists()


def test_a_dispute_without_a_reason_field_or_with_unknown_fields_is_400(settled) -> None:
    assert verify(settled, "dispute", 2, {"why": "x"}).status_code == 400
    assert verify(settled, "confirm", 2, {"seat": 2}).status_code == 400


def test_an_organisers_void_of_the_round_resolves_its_dispute_R35(settled) -> None:
    verify(settled, "dispute", 2, {"reason": "the deal was short a tile"})
    response = settled.post(
        "rounds/1/void/", {"reason": "dealt with 27 tiles"}, client=settled.organiser
    )
    assert response.status_code == 200, response.content
    verification = result_of(settled)["rounds"][0]["verification"]
    assert verification["status"] == "resolved"
    assert verification["resolution"] == "voided"
    assert verify(settled, "confirm", 3).json()["code"] == "round_voided"


def test_an_organisers_amendment_resolves_a_dispute_as_corrected(table) -> None:
    """A blocked round whose pip sum was mistyped: disputed, the organiser amends the
    reveal (R37), the dispute is resolved as corrected."""
    from tests.referee.web.walks import BLOCKED

    for move in BLOCKED:
        table.accept(table.move(move))
    for seat, pips in enumerate([10, 12, 14, 16, 18]):
        table.accept(table.reveal(seat, pips=pips))
    response = table.post("rounds/1/dispute/", {"reason": "Evi had 17"}, client=table.phone(0))
    assert response.status_code == 200, response.content
    reveal = Event.objects.get(
        game=table.game, revoked_by__isnull=True, kind="reveal", payload__seat=4
    )
    amended = table.amend(reveal.position, {"seat": 4, "pips": 17}, client=table.organiser)
    assert amended.status_code == 200, amended.content
    verification = table.state()["round"]["previous"]["verification"]
    assert verification["status"] == "resolved"
    assert verification["resolution"] == "corrected"
    assert verification["reason"] == "Evi had 17"


def test_an_undo_at_the_table_resets_a_confirmation(settled) -> None:
    verify(settled, "confirm", 1)
    undone = settled.undo()
    assert undone.status_code == 200, undone.content
    assert settled.state()["round"]["verification"] is None  # round 1 is open again
    settled.accept(settled.move(record_move(*CEKI_WITH_A_PASS[-1])))
    assert settled.state()["round"]["previous"]["verification"]["status"] == "unverified"
    assert RoundVerification.objects.get().status == "unverified"


def test_confirming_in_a_closed_game_is_refused_but_the_organiser_resolves(settled) -> None:
    verify(settled, "dispute", 2, {"reason": "wrong"})
    assert settled.close().status_code == 200
    response = verify(settled, "confirm", 3)
    assert response.status_code == 409
    assert response.json()["code"] == "game_closed"
    assert resolve(settled).json()["verification"]["status"] == "resolved"


def test_verifying_an_earlier_round_reads_its_stored_events(settled) -> None:
    """Round 1 after round 2 has begun: the round is read from its events, not the fold."""
    settled.accept(settled.play(0, "0-0"))  # round 1's winner leads round 2 (R6)
    response = verify(settled, "confirm", 1)
    assert response.status_code == 200, response.content
    assert verify(settled, "confirm", 0).json()["code"] == "verification_own_entry"
    assert result_of(settled)["rounds"][0]["verification"]["status"] == "confirmed"
    assert result_of(settled)["rounds"][1]["verification"]["status"] == "unverified"


def test_another_seats_dispute_never_overwrites_the_first(settled) -> None:
    """QA: a second seat's dispute replaced the first one's reason, which was lost."""
    assert verify(settled, "dispute", 2, {"reason": "Daeng's 2-4 was 2-5"}).status_code == 200
    version = settled.state()["version"]

    second = verify(settled, "dispute", 4, {"reason": "the CUCUQ is wrong"})

    assert second.status_code == 409
    assert second.json()["code"] == "round_disputed"
    row = RoundVerification.objects.get()
    assert (row.seat, row.reason) == (2, "Daeng's 2-4 was 2-5")
    assert settled.state()["version"] == version
    reworded = verify(settled, "dispute", 2, {"reason": "Daeng played 2-4"})
    assert reworded.status_code == 200  # the disputing seat may reword its own
    assert RoundVerification.objects.get().reason == "Daeng played 2-4"


def test_a_dispute_survives_the_next_rounds_writes_and_shows_again_after_an_undo(settled) -> None:
    """The state caches the latest rounds' verifications on the game row beside the
    store's cache of the round (``referee.store.GameState``): a move of the next round
    rewrites that row and must keep them, so that an undo of that move shows the dispute
    again on every phone (found when the two were merged: it showed "unverified")."""
    assert verify(settled, "dispute", 2, {"reason": "5-5 went on the wrong end"}).status_code == 200
    lead = {"seat": settled.state()["turn"], "tile": "3-4"}  # round 2's first lead (R6)
    settled.accept(settled.move(lead))
    assert settled.state()["round"]["number"] == 2
    assert result_of(settled)["rounds"][0]["verification"]["status"] == "disputed"
    assert settled.undo().status_code == 200
    for reader in (settled.scorekeeper, settled.phone(3), settled.organiser):
        previous = settled.state(client=reader)["round"]["previous"]
        assert previous["verification"]["status"] == "disputed"
        assert previous["verification"]["reason"] == "5-5 went on the wrong end"


def test_a_substitute_from_a_disputed_round_on_leaves_its_dispute_R38(settled) -> None:
    """Who sat a seat is not what the round's verification vouches for (QA finding)."""
    assert verify(settled, "dispute", 2, {"reason": "5-5 went on the wrong end"}).status_code == 200
    response = settled.post(
        "seats/4/substitutes/",
        {"name": "Fajar", "from_round": 1, "reason": "Evi sat out round 1"},
        client=settled.organiser,
    )
    assert response.status_code == 200, response.content
    verification = result_of(settled)["rounds"][0]["verification"]
    assert verification["status"] == "disputed"
    assert verification["resolution"] is None
    assert settled.state()["round"]["previous"]["verification"]["status"] == "disputed"


@pytest.mark.parametrize("text", ["5-5\u202e went wrong", "\u2067sure\u2069"])
def test_a_dispute_or_note_that_changes_its_own_direction_is_refused(settled, text) -> None:
    """Shown on every phone: it must read as typed (QA finding)."""
    response = verify(settled, "dispute", 2, {"reason": text})
    assert (response.status_code, response.json()["code"]) == (400, "verification_reason_invalid")
    assert verify(settled, "dispute", 2, {"reason": "5-5 went wrong"}).status_code == 200
    response = resolve(settled, body={"note": text})
    assert (response.status_code, response.json()["code"]) == (400, "verification_reason_invalid")
    assert result_of(settled)["rounds"][0]["verification"]["status"] == "disputed"
