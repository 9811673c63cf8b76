"""Issue 27, finding 6: an honest phone resending without an ``Idempotency-Key`` (five copies
at once on a flaky network) collected refusals of the copies ("already declared", "not your
turn"), which tell nothing of another hand, and after six every move of that phone was 429
``probe_limited`` for ten minutes. Real threads, each on its own PostgreSQL connection,
released together; the bursts are repeated ten times."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from referee.models import TableAlert, TableToken
from tests.referee.conftest import API
from tests.threads import run_together

pytestmark = pytest.mark.django_db(transaction=True)

SEAT_1 = ["3-6", "5-6", "0-0", "0-1", "0-2"]
SEAT_2 = ["2-3", "1-1", "1-2", "1-3", "1-4"]
COPIES = 5
BURSTS = 10


def copies(client: APIClient, url: str, body: dict[str, Any]) -> list[int]:
    """``COPIES`` identical posts at once, without a key, each from its own client (the same
    token): their statuses."""

    def send(_: int) -> int:
        copy = APIClient()
        copy._credentials = dict(client._credentials)  # the same phone's token
        return copy.post(url, body, format="json").status_code

    return sorted(run_together(COPIES, send))


@pytest.fixture
def in_play(new_game, settings):
    """Seat 1 declared SEAT_1; 6-6 and 3-6 are down, seat 2 to play on ends (6, 3)."""
    settings.TABLE_PROBE_LIMIT = 3  # lower than the copies refused in one burst
    table = new_game()
    table.accept(table.declare(1, SEAT_1))
    table.accept(table.play(0, "6-6"))
    table.accept(table.play(1, "3-6"))
    return table


def test_bursts_of_copies_of_a_hand_and_of_a_move_never_reach_the_limit_R31(in_play):
    phone = in_play.phone(2)
    keeper = in_play.scorekeeper
    for _ in range(BURSTS):
        hand = copies(phone, in_play.url("hands/"), {"seat": 2, "tiles": SEAT_2})
        assert hand == [201] * COPIES, hand  # copies of the hand it declared: its answer
        assert in_play.game.events.filter(kind="hand", revoked_by=None).count() == 2
        move = copies(phone, in_play.url("moves/"), {"seat": 2, "tile": "2-3"})
        assert move == [201] + [422] * (COPIES - 1), move  # not your turn
        theirs = copies(keeper, in_play.url("moves/"), {"seat": 3, "tile": "2-2"})
        assert theirs == [201] + [422] * (COPIES - 1), theirs
        assert in_play.undo(client=keeper).status_code == 200  # seat 3's, declared by none
        assert in_play.undo(client=phone).status_code == 200  # its own move
        assert in_play.undo(client=phone).status_code == 200  # its own hand

    assert not TableToken.objects.filter(probes__gt=0).exists()
    assert not TableAlert.objects.exists()
    in_play.accept(in_play.declare(2, SEAT_2, client=phone))
    in_play.accept(in_play.play(2, "2-3", client=phone))
    assert in_play.game.refused_events.count() == BURSTS * 2 * (COPIES - 1)


def test_a_burst_of_copies_of_a_real_probe_counts_once_R31(in_play):
    """The same copies of a refusal that does depend on seat 1's hand: one probe."""
    keeper = in_play.scorekeeper
    refused = copies(keeper, in_play.url("moves/"), {"seat": 2, "tile": "5-6"})

    assert refused == [422] * COPIES
    token = TableToken.objects.get(seat=None, revoked_at=None)
    assert token.probes == 1
    assert (
        keeper.post(
            f"{API}/games/{in_play.id}/moves/", {"seat": 2, "tile": "2-3"}, format="json"
        ).status_code
        == 201
    )


def test_a_phone_sending_its_declared_hand_again_gets_its_answer_and_nothing_else_R31(in_play):
    """QA: a copy of a hand sent again without a key was 400 ``record_invalid`` ("already
    declared") though the hand was stored. A copy — the same seat, the same five tiles in
    any order or spelling, from the phone that declared it — now gets the hand as stored;
    another hand, or the same hand from another phone, is refused as before (R31)."""
    phone = in_play.phone(2)
    first = in_play.declare(2, SEAT_2, client=phone)
    respelt = [tile.replace("-", "|") for tile in reversed(SEAT_2)]

    again = in_play.declare(2, respelt, client=phone)
    other_hand = in_play.declare(2, [*SEAT_2[:4], "0-0"], client=phone)
    versions = in_play.state()["version"]

    assert first.status_code == again.status_code == 201, again.content
    assert again.json()["event"]["position"] == first.json()["event"]["position"]
    assert again.json()["state"]["version"] == first.json()["state"]["version"] == versions
    assert (other_hand.status_code, other_hand.json()["rule"]) == (400, "R31")
    assert in_play.game.events.filter(kind="hand", revoked_by=None).count() == 2
    assert in_play.game.refused_events.count() == 1  # the other hand only
