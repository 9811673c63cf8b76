"""A move's fast path (``services.event_submit`` with ``seen``): one compare-and-set, no lock.

The fast path stores an accepted event against the game row the request already read
(its table token's), only if the game is still at that version; on PostgreSQL a sitting's
first move opens the sitting in the same statement. Whenever it cannot — the version
moved, the key was answered, the rules core refuses, the round settles, a sitting cannot
be opened there — the locked path decides exactly as if it had not been tried. These tests pin each
of those hand-overs, and that nothing is stored twice or lost (R7–R17, R27, R31).
"""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from django.db import connection

from referee import folding, services
from referee.engine import RefereeError
from referee.exceptions import GameClosed
from referee.idempotency import Idempotency, Replay
from referee.models import (
    Event,
    Game,
    GameSession,
    IdempotencyRecord,
    RefusedEvent,
    TableToken,
    hash_token,
)
from referee.store import live_token, replace, set_state, state_of

pytestmark = pytest.mark.django_db

RECORD = "01_plain_finish"


@pytest.fixture
def moves(load_scenario) -> list[dict[str, Any]]:
    return list(load_scenario(RECORD)["record"]["rounds"][0]["moves"])


@pytest.fixture
def table(load_scenario) -> tuple[Game, TableToken]:
    game = services.game_create(players=load_scenario(RECORD)["record"]["players"])
    key, _ = services.table_join(join_code=game.join_code)
    token = live_token_of(key)
    return game, token


def live_token_of(key: str) -> TableToken:
    token = live_token(hash_token(key))
    assert token is not None
    return token


def submit(token: TableToken, move: dict[str, Any], **kwargs: Any) -> services.Submitted | Replay:
    """Submit as the API does: with the row the token's query read (``seen``)."""
    return services.event_submit(
        game_id=token.game_id,
        kind="move",
        payload=move,
        actor=services.Actor(token=token),
        seen=token.game,
        **kwargs,
    )


def rendered(submitted: services.Submitted) -> dict[str, Any]:
    """What the replay must give back of the first outcome: the event, what it caused and
    the state answered (the state's version: the one the first write made)."""
    event = submitted.event
    return {
        "event": (event.position, event.kind, event.payload, event.created_at),
        "effect": submitted.effect,
        "state": submitted.state,
        "version": submitted.state["version"],
    }


def keyed(key: str) -> Idempotency:
    fingerprint = Idempotency.fingerprint_of("POST", "/moves/", key)
    return Idempotency(key, fingerprint)


def reread(token: TableToken) -> TableToken:
    fresh = live_token(token.key_hash)
    assert fresh is not None
    return fresh


def test_a_move_in_an_open_sitting_is_stored_without_the_lock(table, moves):
    game, token = table
    submit(token, moves[0])  # the first event opens the sitting (R27)
    token = reread(token)

    with mock.patch("referee.services.guard.lock", side_effect=AssertionError("locked")):
        outcome = submit(token, moves[1])

    assert isinstance(outcome, services.Submitted)
    assert outcome.event.position == 1
    assert outcome.state["version"] == outcome.game.version
    stored = Game.objects.get(pk=game.pk)
    assert stored.version == outcome.game.version == 2
    assert [e.position for e in stored.events.order_by("position")] == [0, 1]
    # The row's cache holds the round as the tables do, for the new version.
    assert state_of(stored).current is not None
    assert state_of(stored).current.version == stored.version
    assert [e.position for e in state_of(stored).current.events] == [0, 1]


def test_a_stale_row_hands_over_to_the_lock_and_is_judged_on_the_current_game(table, moves):
    """Two phones read version v; the first stores its move; the second's compare-and-set
    finds v gone and the locked path judges its move against the game as it is now."""
    _, token = table
    submit(token, moves[0])
    first, second = reread(token), reread(token)  # both read the same version
    submit(first, moves[1])

    outcome = submit(second, moves[2])  # legal after moves[1]: accepted under the lock

    assert isinstance(outcome, services.Submitted)
    assert outcome.event.position == 2
    events = Event.objects.filter(game_id=token.game_id).order_by("position")
    assert [unplaced(e.payload) for e in events] == moves[:3]
    assert [e.payload.get("side") for e in events] == [None, "right", "right"]  # R11


def test_a_stale_row_never_stores_a_move_the_current_game_refuses(table, moves):
    _, token = table
    submit(token, moves[0])
    first, second = reread(token), reread(token)
    submit(first, moves[1])

    with pytest.raises(RefereeError):  # the same move again: no longer that seat's turn
        submit(second, moves[1])

    assert Event.objects.filter(game_id=token.game_id).count() == 2
    assert RefusedEvent.objects.filter(game_id=token.game_id).count() == 1


def test_a_refused_move_is_logged_once_by_the_locked_path(table, moves):
    _, token = table
    submit(token, moves[0])
    token = reread(token)
    wrong = {**moves[2]}  # not this seat's turn yet (R7)

    with pytest.raises(RefereeError) as refused:
        submit(token, wrong)

    assert refused.value.rule is not None
    assert RefusedEvent.objects.filter(game_id=token.game_id).count() == 1
    assert Event.objects.filter(game_id=token.game_id).count() == 1


def test_a_retried_key_replays_even_when_the_retry_read_the_new_version(table, moves):
    """The retry reads the game after the first answer was stored: its compare-and-set
    would apply, but the key's unique row makes the whole statement fail, and the locked
    path replays the stored answer."""
    _, token = table
    submit(token, moves[0])
    key = keyed("tap-1")
    token = reread(token)
    first = submit(token, moves[1], idempotency=key)

    retry = submit(reread(token), moves[1], idempotency=key)

    assert isinstance(first, services.Submitted)
    assert isinstance(retry, Replay)
    assert rendered(retry.outcome) == rendered(first)
    assert Event.objects.filter(game_id=token.game_id).count() == 2
    assert IdempotencyRecord.objects.filter(key="tap-1").count() == 1


def test_a_key_answered_meanwhile_is_not_stored_twice_by_a_stale_row(table, moves):
    _, token = table
    submit(token, moves[0])
    key = keyed("tap-2")
    stale = reread(token)
    first = submit(reread(token), moves[1], idempotency=key)

    retry = submit(stale, moves[1], idempotency=key)

    assert isinstance(first, services.Submitted)
    assert isinstance(retry, Replay)
    assert rendered(retry.outcome) == rendered(first)
    assert Event.objects.filter(game_id=token.game_id).count() == 2


def test_a_closed_game_is_refused_by_the_locked_path(table, moves):
    _, token = table
    submit(token, moves[0])
    stale = reread(token)
    Game.objects.filter(pk=token.game_id).update(status=Game.Status.CLOSED, version=99)

    with pytest.raises(GameClosed):
        submit(stale, moves[1])
    assert Event.objects.filter(game_id=token.game_id).count() == 1


def test_the_move_that_settles_a_round_is_folded_once(table, moves):
    """A round's last move is accepted by the fast path's fold, then stored under the lock
    (the league writes its rows in the same transaction) without folding it again."""
    _, token = table
    for move in moves[:-1]:
        submit(reread(token), move)
    real_fold = folding.fold
    with mock.patch("referee.folding.fold", side_effect=real_fold) as fold:
        outcome = submit(reread(token), moves[-1])

    assert isinstance(outcome, services.Submitted)
    assert outcome.effect.settled
    assert fold.call_count == 1
    assert Event.objects.filter(game_id=token.game_id).count() == len(moves)


def test_an_integer_beyond_64_bits_in_a_stored_event_never_stops_the_round(table, moves):
    """The API refuses such a number at the edge; one that still reaches the store (a
    page's form, an import) is written, and the round's next moves are written after it
    (QA: orjson refused to encode the state again, and every move was a 500)."""
    _, token = table
    lead = {**moves[0], "on": 10**23}  # ``on`` is not needed on a lead
    submit(token, lead)
    token = reread(token)
    for move in moves[1:4]:
        outcome = submit(token, move)
        assert isinstance(outcome, services.Submitted)
        token = reread(token)
    assert Event.objects.filter(position=0).get().payload["on"] == 10**23
    assert token.game.version == 4


# -- a sitting's first move (R27) ------------------------------------------------------

# Where the database reserves a sitting's id (PostgreSQL), its first move takes no lock;
# elsewhere (SQLite, ``make run``'s default) the locked path opens the sitting.
OPENS_WITHOUT_LOCK = connection.vendor == "postgresql"
ORGANISER = services.Actor()  # e.g. a management command: every seat, the whole table


def submit_counting_locks(token: TableToken, move: dict[str, Any]) -> tuple[Any, int]:
    real_lock = services.guard.lock
    with mock.patch("referee.services.guard.lock", side_effect=real_lock) as lock:
        outcome = submit(token, move)
    return outcome, lock.call_count


def sittings_of(game_id: Any) -> list[tuple[int, bool]]:
    rows = GameSession.objects.filter(game_id=game_id).order_by("number")
    return [(s.number, s.ended_at is None) for s in rows]


def test_a_games_first_move_opens_its_first_sitting_in_one_write_R27(table, moves):
    game, token = table

    outcome, locks = submit_counting_locks(token, moves[0])

    assert isinstance(outcome, services.Submitted)
    assert locks == (0 if OPENS_WITHOUT_LOCK else 1)
    assert sittings_of(game.pk) == [(1, True)]
    sitting = GameSession.objects.get(game=game)
    assert outcome.event.session_id == sitting.pk
    assert Event.objects.get(game=game).session_id == sitting.pk
    assert sitting.started_at <= Event.objects.get(game=game).created_at
    state = state_of(Game.objects.get(pk=game.pk))
    assert (state.session, state.session_id, state.sittings) == (1, sitting.pk, 1)
    # The next move falls in the same sitting, without the lock.
    with mock.patch("referee.services.guard.lock", side_effect=AssertionError("locked")):
        second = submit(reread(token), moves[1])
    assert isinstance(second, services.Submitted)
    assert second.event.session_id == sitting.pk


def test_the_first_move_after_a_sitting_ended_opens_the_next_one_R27(table, moves):
    game, token = table
    submit(token, moves[0])
    services.session_end(game_id=game.pk, actor=ORGANISER)

    outcome, locks = submit_counting_locks(reread(token), moves[1])

    assert isinstance(outcome, services.Submitted)
    assert locks == (0 if OPENS_WITHOUT_LOCK else 1)
    assert sittings_of(game.pk) == [(1, False), (2, True)]
    assert outcome.event.session_id == GameSession.objects.get(game=game, number=2).pk
    assert state_of(Game.objects.get(pk=game.pk)).session == 2


def test_two_phones_opening_the_same_sitting_store_both_moves_in_one_sitting_R27(table, moves):
    """Both read the game with no sitting open: the first opens it, the second's write
    finds the version moved and the locked path puts its move in the sitting now open."""
    game, token = table
    first, second = reread(token), reread(token)

    submit(first, moves[0])
    outcome = submit(second, moves[1])

    assert isinstance(outcome, services.Submitted)
    assert sittings_of(game.pk) == [(1, True)]
    events = Event.objects.filter(game=game).order_by("position")
    assert [unplaced(e.payload) for e in events] == moves[:2]
    assert [e.payload.get("side") for e in events] == [None, "right"]  # R11
    assert {e.session_id for e in events} == {GameSession.objects.get(game=game).pk}


def test_a_row_that_does_not_know_its_sittings_opens_the_next_under_the_lock_R27(table, moves):
    """A row written before the count was kept (``sittings`` absent) counts the sittings
    under the lock, and knows them afterwards."""
    game, token = table
    stored = Game.objects.get(pk=game.pk)
    set_state(stored, replace(state_of(stored), sittings=None))
    stored.save(update_fields=["state"])
    assert "sittings" not in Game.objects.get(pk=game.pk).state

    outcome, locks = submit_counting_locks(reread(token), moves[0])

    assert isinstance(outcome, services.Submitted)
    assert locks == 1
    assert sittings_of(game.pk) == [(1, True)]
    assert state_of(Game.objects.get(pk=game.pk)).sittings == 1


def test_a_wrong_count_of_sittings_never_stores_a_second_sitting_of_a_number_R27(table, moves):
    """Should the row's count be behind the table (it never is, but a row is only a
    cache), the sitting's unique number refuses the one-statement write, the locked path
    counts the sittings and opens the next: nothing is lost, no number is used twice."""
    game, token = table
    submit(token, moves[0])
    services.session_end(game_id=game.pk, actor=ORGANISER)
    stored = Game.objects.get(pk=game.pk)
    set_state(stored, replace(state_of(stored), sittings=0))  # behind: sitting 1 exists
    stored.version += 1
    stored.save(update_fields=["state", "version"])

    outcome = submit(reread(token), moves[1])

    assert isinstance(outcome, services.Submitted)
    assert sittings_of(game.pk) == [(1, False), (2, True)]
    assert Event.objects.filter(game=game).count() == 2
    assert state_of(Game.objects.get(pk=game.pk)).sittings == 2


def unplaced(payload):
    """A stored play as entered: without the side of the chain it was placed on (R11)."""
    return {k: v for k, v in payload.items() if k != "side"}
