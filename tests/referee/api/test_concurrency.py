"""Phones racing each other over HTTP, on PostgreSQL, with real threads.

Each thread has its own ``APIClient`` and its own database connection (Django
opens one per thread; the thread closes it when done). A ``threading.Barrier``
releases the threads together, so their requests reach the game row's lock at
the same moment. The paired test that shows the lock is what makes these pass
is in ``tests/referee/services/test_concurrency.py``.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from referee import services, store
from referee.engine import Tile
from referee.engine.records import replay_record
from referee.models import Event, Game, GameSession, IdempotencyRecord, RefusedEvent
from tests import threads
from tests.referee.conftest import without_verification

pytestmark = pytest.mark.django_db(transaction=True)

PHONES = 8
PLAYERS = ["Andi", "Besse", "Cakra", "Daeng", "Evi"]
# Refusals a phone waits out: the seat is not (yet) the one to move. Before the game's
# first lead, any seat may lead but only with a first-lead double (R5), so the others'
# first tiles are refused as openings.
NOT_YET = {"not_your_turn", "wrong_leader", "opening_tile_invalid"}


class Abandoned(Exception):
    """Another thread of the race failed; this one stopped waiting."""


def run_together(count: int, work: Callable[[int, threading.Event], Any]) -> list[Any]:
    """Run ``work(i, failed)`` for i < ``count`` in threads released together; their results.

    ``failed`` is set as soon as one thread raises, so that threads waiting for
    their turn can give up (``Abandoned``); the first real error is re-raised.
    """
    failed = threading.Event()
    results = threads.run_together(count, lambda i: work(i, failed), timeout=120, failed=failed)
    errors = [r for r in results if isinstance(r, BaseException)]
    if errors:
        raise next((e for e in errors if not isinstance(e, Abandoned)), errors[0])
    return results


def phone(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Table {key}")
    return client


@pytest.fixture
def game() -> Game:
    return services.game_create(players=PLAYERS)


def join(game: Game, seat: int | None = None) -> str:
    key, _ = services.table_join(join_code=game.join_code, seat=seat)
    return key


def moves_url(game: Game) -> str:
    return f"/api/v1/games/{game.pk}/moves/"


def spelled(moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Moves with each tile in one spelling (``5|1`` and ``1-5`` are the same tile, R1)."""
    return [{**m, "tile": str(Tile.parse(m["tile"]))} if "tile" in m else m for m in moves]


def sitting_numbers(game: Game) -> list[int]:
    return list(GameSession.objects.filter(game=game).values_list("number", flat=True))


def test_racing_phones_entering_the_same_move_get_it_accepted_once(game):
    keys = [join(game) for _ in range(PHONES)]
    lead = {"seat": 2, "tile": "6-6"}

    responses = run_together(
        PHONES, lambda i, _: phone(keys[i]).post(moves_url(game), lead, format="json")
    )

    statuses = Counter(r.status_code for r in responses)
    assert statuses == {201: 1, 422: PHONES - 1}
    codes = {r.json()["code"] for r in responses if r.status_code == 422}
    assert codes <= {"not_your_turn", "tile_already_played"}
    assert list(Event.objects.filter(game=game).values_list("position", "payload")) == [(0, lead)]
    assert RefusedEvent.objects.filter(game=game).count() == PHONES - 1
    game.refresh_from_db()
    assert game.version == 1
    # The lead opened the game's one sitting (R27), in its own write on PostgreSQL.
    assert sitting_numbers(game) == [1]
    assert Event.objects.get(game=game).session_id == GameSession.objects.get(game=game).pk


def test_racing_retries_with_one_idempotency_key_all_get_the_first_answer(game):
    key = join(game, seat=2)
    lead = {"seat": 2, "tile": "6-6"}

    responses = run_together(
        PHONES,
        lambda *_: phone(key).post(
            moves_url(game), lead, format="json", HTTP_IDEMPOTENCY_KEY="tap-1"
        ),
    )

    assert [r.status_code for r in responses] == [201] * PHONES
    bodies = [r.json() for r in responses]
    assert all(body == bodies[0] for body in bodies)
    assert bodies[0]["event"]["position"] == 0
    assert sum(r.headers.get("Idempotent-Replayed") == "true" for r in responses) == PHONES - 1
    assert Event.objects.filter(game=game).count() == 1
    assert IdempotencyRecord.objects.count() == 1
    assert not RefusedEvent.objects.filter(game=game).exists()
    game.refresh_from_db()
    assert game.version == 1
    assert sitting_numbers(game) == [1]  # a retry opens no second sitting (R27)


def test_racing_phones_in_the_middle_of_a_round_get_the_move_accepted_once(game):
    """After the lead the sitting is open: each phone's move takes the fast path, one
    compare-and-set against the version its token read; the losers' sets fail and the
    locked path refuses the same move again (R7), once each."""
    lead = {"seat": 2, "tile": "6-6"}
    assert phone(join(game)).post(moves_url(game), lead, format="json").status_code == 201
    keys = [join(game) for _ in range(PHONES)]
    second = {"seat": 3, "tile": "5-6"}

    responses = run_together(
        PHONES, lambda i, _: phone(keys[i]).post(moves_url(game), second, format="json")
    )

    statuses = Counter(r.status_code for r in responses)
    assert statuses == {201: 1, 422: PHONES - 1}
    assert {r.json()["code"] for r in responses if r.status_code == 422} <= {
        "not_your_turn",
        "tile_already_played",
    }
    stored = list(Event.objects.filter(game=game).order_by("position"))
    # Stored with the side of the chain it was laid on (R11).
    assert [(e.position, e.payload) for e in stored] == [
        (0, lead),
        (1, {**second, "side": "right"}),
    ]
    assert RefusedEvent.objects.filter(game=game).count() == PHONES - 1
    game.refresh_from_db()
    assert game.version == 2


def test_racing_retries_in_the_middle_of_a_round_all_get_the_first_answer(game):
    key = join(game, seat=3)
    lead = {"seat": 2, "tile": "6-6"}
    assert phone(join(game)).post(moves_url(game), lead, format="json").status_code == 201
    second = {"seat": 3, "tile": "5-6"}

    responses = run_together(
        PHONES,
        lambda *_: phone(key).post(
            moves_url(game), second, format="json", HTTP_IDEMPOTENCY_KEY="tap-2"
        ),
    )

    assert [r.status_code for r in responses] == [201] * PHONES
    bodies = [r.json() for r in responses]
    assert all(body == bodies[0] for body in bodies)
    assert sum(r.headers.get("Idempotent-Replayed") == "true" for r in responses) == PHONES - 1
    assert Event.objects.filter(game=game).count() == 2
    assert IdempotencyRecord.objects.filter(key="tap-2").count() == 1
    assert not RefusedEvent.objects.filter(game=game).exists()


def test_five_seats_racing_to_lead_the_first_round_get_one_lead(game):
    # R5: the game's first lead is the highest double; any seat holding it may lead.
    keys = [join(game, seat=seat) for seat in range(5)]

    responses = run_together(
        5,
        lambda seat, _: phone(keys[seat]).post(
            moves_url(game), {"seat": seat, "tile": "6-6"}, format="json"
        ),
    )

    accepted = [seat for seat, r in enumerate(responses) if r.status_code == 201]
    assert len(accepted) == 1
    assert {r.status_code for r in responses if r.status_code != 201} == {422}
    events = list(Event.objects.filter(game=game))
    assert [(e.position, e.payload["seat"]) for e in events] == [(0, accepted[0])]
    state = phone(keys[0]).get(f"/api/v1/games/{game.pk}/").json()
    assert state["turn"] == (accepted[0] + 1) % 5
    assert state["version"] == 1
    assert sitting_numbers(game) == [1]


def test_five_phones_playing_two_rounds_at_once_store_exactly_the_recorded_game(
    game, load_scenario
):
    scenario = load_scenario("g101_generated_40_rounds")
    rounds = scenario["record"]["rounds"][:2]
    assert all(set(r) == {"moves"} for r in rounds)  # no reveals: five phones suffice
    keys = [join(game, seat=seat) for seat in range(5)]

    def play_own_moves(seat: int, failed: threading.Event) -> list[tuple[int, int]]:
        """Enter this seat's moves in order, waiting out its turn; (position, version) each."""
        client = phone(keys[seat])
        accepted = []
        deadline = time.monotonic() + 60
        for move in (m for r in rounds for m in r["moves"] if m["seat"] == seat):
            while True:
                response = client.post(moves_url(game), move, format="json")
                if response.status_code == 201:
                    body = response.json()
                    accepted.append((body["event"]["position"], body["state"]["version"]))
                    break
                assert response.status_code == 422, response.json()
                assert response.json()["code"] in NOT_YET, response.json()
                if failed.wait(0.002):
                    raise Abandoned(seat)
                if time.monotonic() > deadline:
                    raise TimeoutError(f"seat {seat} never got the turn for {move}")
        return accepted

    accepted = sorted(pair for pairs in run_together(5, play_own_moves) for pair in pairs)

    total = sum(len(r["moves"]) for r in rounds)
    # Every accepted move got its own position and the next version, none twice or lost;
    # round 2's lead leaves the room a ruling of round 1 takes (store.ROUND_GAP).
    positions = [
        index + (store.ROUND_GAP if number > 1 else 0)
        for index, number in enumerate(n for n, r in enumerate(rounds, 1) for _ in r["moves"])
    ]
    assert accepted == [(position, version) for version, position in enumerate(positions, 1)]
    assert (
        list(
            Event.objects.filter(game=game, revoked_by__isnull=True).values_list(
                "position", flat=True
            )
        )
        == positions
    )
    game.refresh_from_db()
    assert game.version == total
    # The stored log is the recorded game: its export replays to the recorded result.
    client = phone(keys[0])
    record = client.get(f"/api/v1/games/{game.pk}/record/").json()
    assert [spelled(r["moves"]) for r in record["rounds"]] == [spelled(r["moves"]) for r in rounds]
    assert replay_record(record)["rounds"] == scenario["expect"]["rounds"][:2]
    result = client.get(f"/api/v1/games/{game.pk}/result/").json()
    assert without_verification(result) == replay_record(record)
    state = client.get(f"/api/v1/games/{game.pk}/").json()
    after = scenario["expect"]["rounds"][1]["after"]
    assert [s["stones"] for s in state["seats"]] == after["stones"]
    assert state["table"] == after["table"]
