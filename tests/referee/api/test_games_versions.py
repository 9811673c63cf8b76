"""Versions (If-Match → 412, expected_version → 409) and Idempotency-Key on every write."""

from __future__ import annotations

import pytest

from referee.api.problems import TITLES
from referee.exceptions import IdempotencyKeyReused
from referee.models import Correction, Event, IdempotencyRecord
from tests.referee.conftest import PROBLEM, shows_tile


@pytest.fixture
def led(table):
    """6-6 led by seat 0: version 1, seat 1 to play."""
    table.accept(table.play(0, "6-6"))
    return table


def live_events(table):
    return Event.objects.filter(game=table.game, revoked_by__isnull=True).count()


# -- versions --------------------------------------------------------------------------


def test_state_carries_its_version_as_an_etag_and_answers_304_while_unchanged(led):
    response = led.get()
    tag = response["ETag"]

    assert tag.startswith('"1.')
    assert tag == led.get()["ETag"]
    assert response.json()["version"] == 1
    assert led.get(**{"If-None-Match": tag}).status_code == 304
    led.accept(led.pass_(1))
    assert led.get(**{"If-None-Match": tag}).status_code == 200


@pytest.mark.parametrize(
    "header",
    ["W/{tag}", '"0", {tag}', 'W/"0", W/{tag}', '"7",W/{tag}', "*"],
    ids=["weak", "list", "weak-list", "no-space", "star"],
)
def test_if_none_match_compares_weakly_and_takes_a_list_of_etags(led, header):
    tag = led.get()["ETag"]

    assert led.get(**{"If-None-Match": header.format(tag=tag)}).status_code == 304


def test_a_bare_version_tag_gets_the_state_not_a_304_issue_27(led):
    """``"1"`` names the version but not the body this caller gets: no 304 for it."""
    response = led.get(**{"If-None-Match": '"1"'})

    assert response.status_code == 200
    assert response.json()["version"] == 1


def test_a_reads_etag_names_the_version_in_a_writes_if_match(led):
    tag = led.get()["ETag"]

    response = led.play(1, "3-6", **{"If-Match": tag})

    assert response.status_code == 201
    assert response["ETag"] == '"2"'


@pytest.mark.parametrize("header", ['"0"', 'W/"0", "2"', '"01"'])
def test_if_none_match_with_no_current_etag_gets_the_state(led, header):
    response = led.get(**{"If-None-Match": header})

    assert response.status_code == 200
    assert response.json()["version"] == 1


def test_a_write_with_the_current_if_match_is_applied(led):
    response = led.play(1, "3-6", **{"If-Match": '"1"'})

    assert response.status_code == 201
    assert response["ETag"] == '"2"'


def test_a_weak_etag_never_matches_in_if_match_rfc9110(led):
    response = led.play(1, "3-6", **{"If-Match": 'W/"1"'})

    assert response.status_code == 412
    assert live_events(led) == 1


def test_a_stale_if_match_is_412_with_the_current_state_and_nothing_applied(led):
    led.accept(led.pass_(1))
    current = led.state()

    response = led.play(2, "3-6", **{"If-Match": '"1"'})

    assert response.status_code == 412
    assert response["Content-Type"] == PROBLEM
    body = response.json()
    assert body["code"] == "version_mismatch"
    assert body["state"] == current
    assert led.state() == current
    assert live_events(led) == 2


def test_an_unreadable_if_match_is_a_400_and_nothing_is_applied(led):
    response = led.play(1, "3-6", **{"If-Match": "yesterday"})

    assert response.status_code == 400
    assert response.json()["code"] == "precondition_invalid"
    assert live_events(led) == 1


def test_a_stale_expected_version_is_409_with_the_current_state_and_nothing_applied(led):
    led.accept(led.pass_(1))
    current = led.state()

    response = led.move({"seat": 2, "tile": "3-6", "expected_version": 1})

    assert response.status_code == 409
    body = response.json()
    assert body["code"] == "version_mismatch"
    assert body["state"] == current
    assert live_events(led) == 2


def test_the_current_expected_version_is_applied_and_not_stored_in_the_event(led):
    body = led.accept(led.move({"seat": 1, "tile": "3-6", "expected_version": 1}))

    assert "expected_version" not in Event.objects.get(position=body["event"]["position"]).payload


@pytest.mark.parametrize("sent", ["1", 1.0, True, "one"])
def test_an_expected_version_that_is_no_whole_number_is_400_and_nothing_applied(led, sent):
    """JSON's ``1`` only: DRF's integer field took ``"1"``, ``1.0`` and ``true`` (QA)."""
    response = led.move({"seat": 1, "tile": "3-6", "expected_version": sent})

    assert response.status_code == 400
    assert "expected_version" in str(response.json())
    assert live_events(led) == 1


@pytest.mark.parametrize(
    ("write", "header"),
    [("undo", True), ("undo", False), ("amend", True), ("amend", False)],
)
def test_corrections_check_the_version_too(led, write, header):
    led.accept(led.pass_(1))  # version 2
    stale = {"If-Match": '"1"'} if header else {}
    body = {} if header else {"expected_version": 1}
    if write == "undo":
        response = led.undo(body, **stale)
    else:
        response = led.amend(1, {"seat": 1, "tile": "3-6", **body}, **stale)

    assert response.status_code == (412 if header else 409)
    assert response.json()["code"] == "version_mismatch"
    assert not Correction.objects.exists()
    assert live_events(led) == 2


def test_a_version_conflict_on_a_reveal_applies_nothing_R18(table, load_scenario):
    table.play_round(
        {"moves": load_scenario("05_blocked_no_mattikkeng")["record"]["rounds"][0]["moves"]}
    )

    response = table.reveal(0, tiles=["0-3", "0-4", "0-5"], **{"If-Match": '"3"'})

    assert response.status_code == 412
    assert table.state()["round"]["awaiting_reveal"] == [0, 1, 2, 3, 4]


# -- Idempotency-Key -------------------------------------------------------------------


def test_a_retried_move_returns_the_first_response_and_is_applied_once(led):
    first = led.play(1, "3-6", **{"Idempotency-Key": "k-1"})
    led.accept(led.play(2, "2-3"))

    retry = led.play(1, "3-6", **{"Idempotency-Key": "k-1"})

    assert first.status_code == retry.status_code == 201
    assert retry.json() == first.json()
    assert retry["Idempotent-Replayed"] == "true"
    assert live_events(led) == 3
    assert led.state()["version"] == 3


def test_a_retried_pass_moves_its_stones_only_once_R23a(led):
    for _ in range(3):
        assert led.pass_(1, **{"Idempotency-Key": "pass-1"}).status_code == 201

    assert led.state()["seats"][1]["stones"] == 2
    assert led.state()["table"] == 23


def test_a_retried_undo_undoes_only_once(led):
    led.accept(led.pass_(1))

    first = led.undo(**{"Idempotency-Key": "undo-1"})
    retry = led.undo(**{"Idempotency-Key": "undo-1"})

    assert first.status_code == retry.status_code == 200
    assert retry.json() == first.json()
    assert live_events(led) == 1
    assert Correction.objects.count() == 1


def test_a_retried_amendment_is_applied_once(led):
    led.accept(led.play(1, "3-6"))

    first = led.amend(1, {"seat": 1, "tile": "5-6"}, **{"Idempotency-Key": "amend-1"})
    retry = led.amend(1, {"seat": 1, "tile": "5-6"}, **{"Idempotency-Key": "amend-1"})

    assert first.status_code == retry.status_code == 200
    assert Correction.objects.count() == 1


def test_a_write_answers_its_new_version_as_etag_and_a_retry_the_same_body_without_one(led):
    led.accept(led.play(1, "3-6"))

    first = led.amend(1, {"seat": 1, "tile": "5-6"}, **{"Idempotency-Key": "amend-2"})
    retry = led.amend(1, {"seat": 1, "tile": "5-6"}, **{"Idempotency-Key": "amend-2"})

    assert first["ETag"] == f'"{first.json()["state"]["version"]}"' == '"3"'
    assert "Idempotent-Replayed" not in first
    # The first outcome kept (not its rendering), rendered again: byte for byte.
    assert retry.content == first.content
    assert retry["Idempotent-Replayed"] == "true"
    assert "ETag" not in retry
    assert IdempotencyRecord.objects.get().outcome == "corrected"


def test_the_same_key_with_another_body_is_422_idempotency_key_reused(led):
    led.accept(led.play(1, "3-6", **{"Idempotency-Key": "k-2"}))

    response = led.play(2, "2-3", **{"Idempotency-Key": "k-2"})

    assert response.status_code == 422
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "idempotency_key_reused"
    assert live_events(led) == 2


def test_a_reused_key_is_not_titled_as_a_rule_refusal(led):
    led.accept(led.play(1, "3-6", **{"Idempotency-Key": "k-2"}))

    response = led.play(2, "2-3", **{"Idempotency-Key": "k-2"})

    assert response.status_code == 422
    assert response.json()["code"] == "idempotency_key_reused"
    assert response.json()["title"] == str(IdempotencyKeyReused.title)
    assert response.json()["title"] != str(TITLES[422])


def test_the_same_key_on_another_operation_is_reused(led):
    led.accept(led.pass_(1, **{"Idempotency-Key": "k-3"}))

    response = led.undo(client=led.phone(1), **{"Idempotency-Key": "k-3"})

    assert response.status_code == 422
    assert response.json()["code"] == "idempotency_key_reused"
    assert live_events(led) == 2


def test_the_same_key_and_body_from_another_token_is_not_given_the_first_answer_R31(table):
    """The stored answer shows seat 1 its own declared hand: nobody else may get it back."""
    table.accept(table.declare(1, ["3-6", "5-6", "0-0", "0-1", "0-2"]))
    table.accept(table.play(0, "6-6"))
    table.accept(table.play(1, "3-6", **{"Idempotency-Key": "seat-1"}))

    response = table.play(1, "3-6", client=table.scorekeeper, **{"Idempotency-Key": "seat-1"})

    assert response.status_code == 422
    assert response.json()["code"] == "idempotency_key_reused"
    assert not shows_tile(response.content.decode(), "5-6")


def test_a_retry_is_answered_even_after_the_game_has_changed_version(led):
    first = led.play(1, "3-6", **{"Idempotency-Key": "k-4", "If-Match": '"1"'})
    led.accept(led.play(2, "2-3"))

    retry = led.play(1, "3-6", **{"Idempotency-Key": "k-4", "If-Match": '"1"'})

    assert retry.status_code == 201
    assert retry.json() == first.json()


def test_a_refused_move_is_remembered_under_its_key_and_replayed(led):
    """The first answer is the refusal: a retry gets it again, judged and logged once (QA:
    a phone resending a lost answer was counted as probing a declared hand each time,
    R31). Another tap is another key."""
    refused = led.play(1, "1-2", **{"Idempotency-Key": "k-5"})

    again = led.play(1, "1-2", **{"Idempotency-Key": "k-5"})

    assert refused.status_code == again.status_code == 422
    assert again.content == refused.content
    assert again["Idempotent-Replayed"] == "true"
    assert IdempotencyRecord.objects.get().outcome == "refused"  # the refusal, kept as a value
    assert led.game.refused_events.count() == 1


def test_an_idempotency_key_longer_than_255_characters_is_a_400(led):
    response = led.play(1, "3-6", **{"Idempotency-Key": "k" * 256})

    assert response.status_code == 400
    assert live_events(led) == 1


def test_keys_belong_to_one_game(new_game):
    first, second = new_game(), new_game()

    assert first.play(0, "6-6", **{"Idempotency-Key": "same"}).status_code == 201
    response = second.play(0, "6-6", **{"Idempotency-Key": "same"})

    assert response.status_code == 201
    assert "Idempotent-Replayed" not in response
    assert response.json()["state"]["id"] == second.id


def test_if_match_star_matches_any_version(led):
    led.accept(led.pass_(1))

    assert led.play(2, "3-6", **{"If-Match": "*"}).status_code == 201
