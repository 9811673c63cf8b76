"""Entering a move and reading the state cost the same number of queries however long the game.

The game row caches a snapshot of the standing at the start of its last round,
so only that round's events are read and folded (``referee.selectors``). A
game of 39 rounds (g101 without its last round, imported) must cost what a
new game costs, query for query.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from referee import services
from referee.models import Game
from tests.referee.conftest import without_verification

pytestmark = pytest.mark.django_db

SCENARIO = "g101_generated_40_rounds"
# A move in the middle of a round, in production (autocommit): the table token with its game
# (whose row caches the round's events, the seats' names and the open sitting:
# ``referee.store``), then one compare-and-set statement that moves the game on from the
# version read, inserts the event and, with an Idempotency-Key, its answer (no lock).
FAST_MOVE_QUERIES = 2
# Inside a test's transaction the compare-and-set runs in a savepoint (and its release),
# so that a refused key cannot abort the caller's transaction.
MOVE_QUERIES = FAST_MOVE_QUERIES + 2
# The first event of a sitting (R27), on PostgreSQL: the same compare-and-set opens the
# sitting too, once its id is reserved (one statement more). Elsewhere (SQLite) it takes the
# locked path: the token, a savepoint, the game locked, the phone's token read again under
# the lock (revoked meanwhile?), the sitting looked for, counted and opened, the event and
# the game stored (two statements there), the release.
FIRST_MOVE_QUERIES = MOVE_QUERIES + 1 if connection.vendor == "postgresql" else 10
# The move that ends a round takes the locked path too (token, savepoint, lock, the token
# again, the event, release) and writes the league's rows for that round (scoring) and
# the settled round itself (one INSERT, issue 29).
ROUND_END_QUERIES = 10
# Table token (with its game, whose row caches the round's events and the seats' names).
STATE_QUERIES = 1


def phone(game: Game) -> APIClient:
    key, _ = services.table_join(join_code=game.join_code)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Table {key}")
    return client


@pytest.fixture
def scenario(load_scenario) -> dict[str, Any]:
    return load_scenario(SCENARIO)


@pytest.fixture
def new_game(scenario) -> Game:
    return services.game_create(players=scenario["record"]["players"])


@pytest.fixture
def long_game(scenario) -> Game:
    """g101's first 39 rounds, imported: the next move is round 40's lead."""
    record = copy.deepcopy(scenario["record"])
    record["rounds"].pop()
    organiser = get_user_model().objects.create_user("organiser", password="x")
    return services.game_import(record=record, created_by=organiser)


def queries_per_move(game: Game, moves: list[dict[str, Any]]) -> list[int]:
    """Enter ``moves`` over HTTP as a scorekeeper's phone; how many queries each took."""
    client = phone(game)
    counts = []
    for move in moves:
        with CaptureQueriesContext(connection) as queries:
            response = client.post(f"/api/v1/games/{game.pk}/moves/", move, format="json")
        assert response.status_code == 201, response.json()
        counts.append(len(queries))
    return counts


def queries_for_state(game: Game) -> tuple[int, dict[str, Any]]:
    client = phone(game)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(f"/api/v1/games/{game.pk}/")
    assert response.status_code == 200
    return len(queries), response.json()


def test_a_move_costs_as_many_queries_at_round_40_as_at_round_1(new_game, long_game, scenario):
    rounds = scenario["record"]["rounds"]

    at_round_1 = queries_per_move(new_game, rounds[0]["moves"])
    at_round_40 = queries_per_move(long_game, rounds[-1]["moves"])

    # (first move, the moves in between, the move that ends the round)
    first, middle, last = at_round_1[0], set(at_round_1[1:-1]), at_round_1[-1]
    assert (first, middle, last) == (at_round_40[0], set(at_round_40[1:-1]), at_round_40[-1])
    assert first == FIRST_MOVE_QUERIES
    assert middle == {MOVE_QUERIES}
    assert last <= ROUND_END_QUERIES
    # Round 40 was really played on top of the 39 imported rounds.
    result = APIClient()
    result.force_authenticate(long_game.created_by)
    response = result.get(f"/api/v1/games/{long_game.pk}/result/")
    assert without_verification(response.json())["rounds"] == scenario["expect"]["rounds"]


def test_a_move_at_round_40_stays_within_the_query_budget(
    long_game, scenario, django_assert_max_num_queries
):
    client = phone(long_game)
    url = f"/api/v1/games/{long_game.pk}/moves/"
    lead, second = scenario["record"]["rounds"][-1]["moves"][:2]

    with django_assert_max_num_queries(FIRST_MOVE_QUERIES):
        assert client.post(url, lead, format="json").status_code == 201
    with django_assert_max_num_queries(MOVE_QUERIES):
        assert client.post(url, second, format="json").status_code == 201


def test_the_state_costs_as_many_queries_at_round_40_as_at_round_1(
    new_game, long_game, scenario, django_assert_num_queries
):
    queries_per_move(new_game, scenario["record"]["rounds"][0]["moves"][:3])
    queries_per_move(long_game, scenario["record"]["rounds"][-1]["moves"][:3])

    at_round_1, state_1 = queries_for_state(new_game)
    at_round_40, state_40 = queries_for_state(long_game)

    assert (state_1["round"]["number"], state_40["round"]["number"]) == (1, 40)
    assert at_round_1 == at_round_40 == STATE_QUERIES
    client = phone(long_game)
    with django_assert_num_queries(STATE_QUERIES):
        assert client.get(f"/api/v1/games/{long_game.pk}/").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_a_move_in_production_is_one_read_and_one_write(scenario):
    """Outside any transaction (as the server runs), a move in the middle of a round costs
    two statements: the token with its game, and the compare-and-set (no BEGIN, no lock);
    the sitting's first move one more, to reserve the sitting's id (R27)."""
    game = services.game_create(players=scenario["record"]["players"])
    client = phone(game)
    url = f"/api/v1/games/{game.pk}/moves/"
    lead, second, third = scenario["record"]["rounds"][0]["moves"][:3]
    with CaptureQueriesContext(connection) as opening:
        assert client.post(url, lead, format="json").status_code == 201  # opens the sitting

    with CaptureQueriesContext(connection) as queries:
        assert client.post(url, second, format="json").status_code == 201
    with CaptureQueriesContext(connection) as keyed:
        response = client.post(url, third, format="json", HTTP_IDEMPOTENCY_KEY="tap-3")
        assert response.status_code == 201

    if connection.vendor == "postgresql":
        assert len(opening) == FAST_MOVE_QUERIES + 1, [q["sql"][:80] for q in opening]
        assert "FOR UPDATE" not in " ".join(q["sql"] for q in opening)
    assert len(queries) == FAST_MOVE_QUERIES, [q["sql"][:80] for q in queries]
    assert len(keyed) == FAST_MOVE_QUERIES, [q["sql"][:80] for q in keyed]
    assert "FOR UPDATE" not in " ".join(q["sql"] for q in queries)
    # The answer was stored with the event: the retry replays it, and adds nothing.
    retry = client.post(url, third, format="json", HTTP_IDEMPOTENCY_KEY="tap-3")
    assert retry.status_code == 201
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert retry.json() == response.json()
    assert game.events.count() == 3
    assert game.sessions.get().events.count() == 3  # one sitting, opened by the lead
