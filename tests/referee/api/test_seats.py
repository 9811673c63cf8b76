"""Issue 12, item 1: a seat is claimed once, and a declared hand stays with the phone that
declared it (R31). Each hole is a pair: the attack's request, and what it gets now."""

from __future__ import annotations

import threading

import pytest
from rest_framework.test import APIClient

from referee import services
from referee.exceptions import SeatTaken
from referee.models import Correction, Game, TableToken
from tests.referee.conftest import API, PROBLEM, shows_tile, table_client

JOIN_URL = f"{API}/join/"
HAND = ["3-6", "5-6", "0-0", "0-1", "0-2"]


def join(table, seat=None):
    return APIClient().post(
        JOIN_URL, {"join_code": table.game.join_code, "seat": seat}, format="json"
    )


def joined(table, seat=None) -> APIClient:
    response = join(table, seat)
    assert response.status_code == 201, response.content
    return table_client(response.json()["token"])


# -- the seat takeover -----------------------------------------------------------------


def test_joining_a_taken_seat_is_409_seat_taken_and_the_first_phone_keeps_it(table):
    """The takeover: with the join code shown on every phone, anyone asked for seat 1."""
    first = joined(table, 1)
    table.accept(table.declare(1, HAND, client=first))

    second = join(table, 1)

    assert second.status_code == 409
    assert second["Content-Type"] == PROBLEM
    assert second.json()["code"] == "seat_taken"
    assert TableToken.objects.filter(game=table.game, seat=1, revoked_at=None).count() == 1
    assert table.state(client=first)["seats"][1]["hand"] == sorted(HAND)


def test_a_scorekeeper_is_no_seat_many_phones_may_keep_the_score(table):
    assert join(table).status_code == 201
    assert join(table).status_code == 201


def test_a_seat_is_free_again_once_its_phone_leaves(table):
    first = joined(table, 1)

    left = first.post(table.url("leave/"))

    assert left.status_code == 204
    assert first.get(table.url()).status_code == 401  # its token is revoked
    assert join(table, 1).status_code == 201


def test_the_organiser_releases_a_seat(table):
    joined(table, 3)

    released = table.organiser.post(table.url("seats/3/release/"))

    assert released.status_code == 200
    assert released.json()["seat"] == 3
    assert released.json()["revoked_at"] is not None
    assert join(table, 3).status_code == 201


# Issue 27, item 1: a claimed seat is the claimer's (R31). The hole: the scorekeeper's
# token released seat 1, revoking its phone, and joined seat 1 itself.


def test_the_scorekeeper_cannot_release_a_seat_R31(table):
    victim = joined(table, 1)
    table.accept(table.declare(1, HAND, client=victim))

    response = table.scorekeeper.post(table.url("seats/1/release/"))

    assert response.status_code == 403
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "seat_not_allowed"
    assert "R31" in response.json()["detail"]
    assert "only the organiser or the seat's own phone" in response.json()["detail"]
    assert join(table, 1).status_code == 409  # the seat is still taken


def test_the_victims_token_still_works_after_a_refused_release_R31(table):
    victim = joined(table, 1)
    table.accept(table.declare(1, HAND, client=victim))
    table.scorekeeper.post(table.url("seats/1/release/"))

    state = victim.get(table.url())

    assert state.status_code == 200
    assert state.json()["seats"][1]["hand"] == sorted(HAND)
    assert TableToken.objects.filter(game=table.game, seat=1, revoked_at=None).count() == 1


def test_a_seats_own_phone_releases_its_seat_R31(table):
    own = joined(table, 1)

    released = own.post(table.url("seats/1/release/"))

    assert released.status_code == 200
    assert released.json()["seat"] == 1
    assert released.json()["revoked_at"] is not None
    assert own.get(table.url()).status_code == 401  # its token is revoked
    assert join(table, 1).status_code == 201


def test_a_seats_phone_cannot_release_another_seat(table):
    joined(table, 3)

    response = table.phone(2).post(table.url("seats/3/release/"))

    assert response.status_code == 403
    assert response.json()["code"] == "seat_not_allowed"
    assert "R31" in response.json()["detail"]
    assert join(table, 3).status_code == 409


def test_releasing_a_free_seat_is_404_token_not_found(table):
    response = table.organiser.post(table.url("seats/4/release/"))

    assert response.status_code == 404
    assert response.json()["code"] == "token_not_found"


def test_the_organiser_sees_the_tables_tokens_and_revokes_one(table):
    phone = joined(table, 2)
    listed = table.organiser.get(table.url("tokens/"))
    assert listed.status_code == 200
    mine = next(t for t in listed.json() if t["seat"] == 2)
    assert "key" not in mine
    assert "key_hash" not in mine

    revoked = table.organiser.post(table.url(f"tokens/{mine['id']}/revoke/"))

    assert revoked.status_code == 200
    assert phone.get(table.url()).status_code == 401
    again = table.organiser.post(table.url(f"tokens/{mine['id']}/revoke/"))
    assert again.json()["code"] == "token_not_found"


@pytest.mark.parametrize("who", ["scorekeeper", "seat 2"])
def test_a_phone_neither_lists_nor_revokes_the_tables_tokens(table, who):
    client = table.scorekeeper if who == "scorekeeper" else table.phone(2)
    token = TableToken.objects.filter(game=table.game).first()

    assert client.get(table.url("tokens/")).json()["code"] == "organiser_only"
    response = client.post(table.url(f"tokens/{token.pk}/revoke/"))
    assert response.status_code == 403
    assert response.json()["code"] == "organiser_only"


def test_another_games_token_cannot_be_revoked_through_this_game(table, new_game):
    _, stranger = services.table_join(join_code=new_game().game.join_code)

    response = table.organiser.post(table.url(f"tokens/{stranger.pk}/revoke/"))

    assert response.status_code == 404
    assert TableToken.objects.get(pk=stranger.pk).revoked_at is None


@pytest.mark.django_db(transaction=True)
def test_two_phones_claiming_one_seat_at_once_get_it_once():
    """A race on PostgreSQL with real threads: the game's row lock serialises the claims and
    the partial unique index backs it."""
    game = services.game_create(players=["Andi", "Besse", "Cakra", "Daeng", "Evi"])
    barrier = threading.Barrier(2)
    results: list[str] = []

    def claim() -> None:
        from django.db import connection

        barrier.wait()
        try:
            services.table_join(join_code=game.join_code, seat=0)
            results.append("joined")
        except SeatTaken:
            results.append("seat_taken")
        finally:
            connection.close()

    threads = [threading.Thread(target=claim) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(results) == ["joined", "seat_taken"]
    assert TableToken.objects.filter(game=game, seat=0, revoked_at=None).count() == 1
    Game.objects.filter(pk=game.pk).delete()


# -- a declared hand belongs to the phone that declared it (R31) -----------------------


def test_a_phone_that_claims_a_released_seat_does_not_read_its_declared_hand_R31(table):
    first = joined(table, 1)
    table.accept(table.declare(1, HAND, client=first))
    table.organiser.post(table.url("seats/1/release/"))
    newcomer = joined(table, 1)

    state = table.state(client=newcomer)
    trail = table.events(client=newcomer)

    assert state["seats"][1]["has_declared"] is True
    assert state["seats"][1]["hand"] is None
    assert trail["events"][0]["payload"]["tiles"] is None
    assert not shows_tile([state, trail], "0-2")


def test_a_phone_that_claims_a_released_seat_cannot_amend_or_undo_its_hand_R31(table):
    first = joined(table, 1)
    table.accept(table.declare(1, HAND, client=first))
    table.organiser.post(table.url("seats/1/release/"))
    newcomer = joined(table, 1)

    amended = table.amend(0, {"seat": 1, "tiles": [*HAND[:4], "0-3"]}, client=newcomer)
    undone = table.undo(client=newcomer)

    assert (amended.status_code, amended.json()["code"]) == (403, "seat_not_allowed")
    assert (undone.status_code, undone.json()["code"]) == (403, "seat_not_allowed")
    assert "changed only by the phone that declared it" in amended.json()["detail"]
    assert "undone only by the phone that declared it" in undone.json()["detail"]


def test_the_scorekeeper_cannot_undo_a_seats_declared_hand_R31(table):
    """The hole: the scorekeeper's undo revoked another seat's declaration."""
    table.accept(table.declare(1, HAND))

    response = table.undo(client=table.scorekeeper)

    assert response.status_code == 403
    assert response.json()["code"] == "seat_not_allowed"
    # It says what was refused, an undo, not a declaration (issue 9 QA).
    assert response.json()["detail"] == (
        "This hand can be undone only by the phone that declared it, or by the organiser (R31)."
    )
    assert table.state()["seats"][1]["has_declared"] is True


def test_the_declaring_phone_undoes_its_own_hand_R31(table):
    table.accept(table.declare(1, HAND))

    response = table.undo(client=table.phone(1))

    assert response.status_code == 200
    assert table.state()["seats"][1]["has_declared"] is False


def test_the_organiser_corrects_a_declared_hand_through_a_logged_correction_unread_R31(table):
    table.accept(table.declare(1, HAND))
    amended = [*HAND[:4], "0-3"]

    response = table.amend(
        0, {"seat": 1, "tiles": amended, "reason": "typo"}, client=table.organiser
    )

    assert response.status_code == 200
    body = response.json()
    assert body["state"]["seats"][1]["hand"] is None  # the organiser never reads it
    assert "tiles" not in body["correction"]["replacement"]
    assert not shows_tile(body, "0-2")
    assert not shows_tile(body, "0-3")
    correction = Correction.objects.get(game=table.game)
    assert (correction.kind, correction.reason) == ("amend", "typo")
    assert correction.entered_by.startswith("user ")
    assert table.events(client=table.organiser)["events"][0]["payload"]["tiles"] is None
    # The hand is still the declaring phone's: it reads the corrected one.
    assert table.state(client=table.phone(1))["seats"][1]["hand"] == sorted(amended)
