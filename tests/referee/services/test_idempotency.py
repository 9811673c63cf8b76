"""The ``Idempotency-Key`` store (``referee.idempotency``): a retry gets its first answer,
a key is never reused for another request, and an answer is stored with its write or not
at all (issue 14)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction

from referee import services, store
from referee.exceptions import IdempotencyKeyReused
from referee.idempotency import Idempotency, Rendered, Replay, remember, replay_of
from referee.models import Event, Game, IdempotencyRecord
from tests.factories import GameFactory, UserFactory

pytestmark = pytest.mark.django_db
LEAD = {"seat": 0, "tile": "6-6"}


@pytest.fixture
def organiser() -> services.Actor:
    return services.Actor(user=UserFactory())


class Renders:
    """A caller's ``render``: the results it was given, each as ``(201, {"position": …})``."""

    def __init__(self) -> None:
        self.results: list[Any] = []

    def __call__(self, result: services.Submitted) -> Rendered:
        self.results.append(result)
        return 201, {"position": result.event.position, "version": result.game.version}


def key(name: str, render: Any, payload: Any = LEAD) -> Idempotency[Any]:
    return Idempotency(name, Idempotency.fingerprint_of("POST", "/moves/", payload), render)


def lead(game: Game, actor: services.Actor, idempotency: Idempotency[Any] | None) -> Any:
    return services.event_submit(
        game_id=game.pk, kind="move", payload=LEAD, actor=actor, idempotency=idempotency
    )


def test_a_retried_key_gets_the_answer_its_caller_rendered_and_nothing_is_written_again(
    organiser,
):
    game = GameFactory()
    render = Renders()

    first = lead(game, organiser, key("k1", render))
    again = lead(game, organiser, key("k1", render))

    assert isinstance(first, services.Submitted)
    assert render.results == [first]  # rendered once, when it was stored
    assert again == Replay(201, {"position": 0, "version": 1})
    assert Event.objects.count() == 1
    game.refresh_from_db()
    assert game.version == 1
    stored = IdempotencyRecord.objects.get()
    assert (stored.scope, stored.key, stored.status_code) == (f"game:{game.pk}", "k1", 201)


def test_a_key_sent_again_with_another_request_is_idempotency_key_reused(organiser):
    game = GameFactory()
    lead(game, organiser, key("k1", Renders()))

    with pytest.raises(IdempotencyKeyReused) as refused:
        services.event_submit(
            game_id=game.pk,
            kind="move",
            payload={"seat": 1, "tile": "1-6"},
            actor=organiser,
            idempotency=key("k1", Renders(), {"seat": 1, "tile": "1-6"}),
        )

    assert (refused.value.code, refused.value.status) == ("idempotency_key_reused", 422)
    assert Event.objects.count() == 1


def test_a_key_belongs_to_one_game(organiser):
    one, other = GameFactory(), GameFactory()
    lead(one, organiser, key("k1", Renders()))

    assert replay_of(other, key("k1", Renders())) is None
    assert isinstance(lead(other, organiser, key("k1", Renders())), services.Submitted)


def test_without_a_key_nothing_is_looked_up_or_stored(organiser):
    game = GameFactory()
    assert replay_of(game, None) is None
    lead(game, organiser, None)
    remember(game, None, object())
    assert not IdempotencyRecord.objects.exists()


def test_the_answer_is_stored_in_the_writes_transaction_a_failure_after_it_rolls_it_back():
    game = GameFactory()
    idempotency = Idempotency("k1", "fingerprint", lambda result: (200, {"said": result}))

    seen: list[Replay | None] = []

    def write_then_fail() -> None:
        with transaction.atomic():
            locked = store.lock(game.pk)
            remember(locked, idempotency, "yes")
            seen.append(replay_of(locked, idempotency))
            raise RuntimeError("the write failed after the answer was stored")

    with pytest.raises(RuntimeError):
        write_then_fail()

    assert seen == [Replay(200, {"said": "yes"})]  # stored, in that transaction

    assert not IdempotencyRecord.objects.exists()
    assert replay_of(game, idempotency) is None


def test_a_render_that_fails_rolls_the_write_back_with_it(organiser):
    game = GameFactory()

    def broken(result: services.Submitted) -> Rendered:
        raise RuntimeError("cannot render")

    with pytest.raises(RuntimeError):
        lead(game, organiser, key("k1", broken))

    assert not Event.objects.exists()
    assert not IdempotencyRecord.objects.exists()
    game.refresh_from_db()
    assert game.version == 0
    assert isinstance(lead(game, organiser, key("k1", Renders())), services.Submitted)


def test_the_fingerprint_names_the_method_path_and_body():
    fingerprint = Idempotency.fingerprint_of
    base = fingerprint("POST", "/a/", {"x": 1, "y": [1, 2]})
    assert base == fingerprint("POST", "/a/", {"y": [1, 2], "x": 1})  # key order is no part
    assert len(base) == 64
    assert base != fingerprint("PUT", "/a/", {"x": 1, "y": [1, 2]})
    assert base != fingerprint("POST", "/b/", {"x": 1, "y": [1, 2]})
    assert base != fingerprint("POST", "/a/", {"x": 2, "y": [1, 2]})
