"""The ``Idempotency-Key`` store (``referee.idempotency``): a retry gets its first outcome
as a value, a key is never reused for another request, and an outcome is stored with its
write or not at all (issue 14). What is stored is the service's own: no caller renders
anything into the store (issue 26)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction

from referee import services, store
from referee.engine import errors
from referee.exceptions import IdempotencyKeyReused
from referee.idempotency import (
    OUTCOMES,
    REFUSED,
    Idempotency,
    Replay,
    refusal_from_stored,
    refusal_to_stored,
    remember,
    remember_refusal,
    replay_of,
)
from referee.models import Event, Game, IdempotencyRecord
from referee.services import corrections, verification
from tests.factories import GameFactory, UserFactory
from tests.referee.web.conftest import PLAYERS
from tests.referee.web.walks import CEKI_WITH_A_PASS, record_move

pytestmark = pytest.mark.django_db
LEAD = {"seat": 0, "tile": "6-6"}


@pytest.fixture
def organiser() -> services.Actor:
    return services.Actor(user=UserFactory())


def key(name: str, payload: Any = LEAD, *, refusals: bool = False) -> Idempotency:
    fingerprint = Idempotency.fingerprint_of("POST", "/moves/", payload)
    return Idempotency(name, fingerprint, keeps_refusals=refusals)


def lead(game: Game, actor: services.Actor, idempotency: Idempotency | None) -> Any:
    return services.event_submit(
        game_id=game.pk, kind="move", payload=LEAD, actor=actor, idempotency=idempotency
    )


def test_a_retried_key_gets_the_first_outcome_as_a_value_and_nothing_is_written_again(
    organiser,
):
    game = GameFactory()

    first = lead(game, organiser, key("k1"))
    again = lead(game, organiser, key("k1"))

    assert isinstance(first, services.Submitted)
    assert isinstance(again, Replay)
    replayed = again.outcome
    assert isinstance(replayed, services.Submitted)
    assert (replayed.event.position, replayed.event.kind, replayed.event.payload) == (
        0,
        "move",
        LEAD,
    )
    assert replayed.event.created_at == first.event.created_at
    assert replayed.effect == first.effect
    assert replayed.state == first.state
    assert again.refusal is None
    assert Event.objects.count() == 1
    game.refresh_from_db()
    assert game.version == 1
    stored = IdempotencyRecord.objects.get()
    assert (stored.scope, stored.key, stored.outcome, stored.status_code) == (
        f"game:{game.pk}",
        "k1",
        "submitted",
        None,
    )


def test_a_refusal_kept_for_its_key_comes_back_as_the_same_error_r8(organiser):
    game = GameFactory()
    lead(game, organiser, None)
    out_of_turn = {"seat": 3, "tile": "1-6"}

    with pytest.raises(errors.NotYourTurn) as first:
        services.event_submit(
            game_id=game.pk,
            kind="move",
            payload=out_of_turn,
            actor=organiser,
            idempotency=key("k2", out_of_turn, refusals=True),
        )
    again = services.event_submit(
        game_id=game.pk,
        kind="move",
        payload=out_of_turn,
        actor=organiser,
        idempotency=key("k2", out_of_turn, refusals=True),
    )

    assert isinstance(again, Replay)
    assert again.refused
    assert again.outcome is None
    refusal = again.refusal
    assert isinstance(refusal, errors.NotYourTurn)
    assert (refusal.code, refusal.rule, refusal.message) == (
        first.value.code,
        first.value.rule,
        first.value.message,
    )
    assert IdempotencyRecord.objects.get(key="k2").outcome == REFUSED


def test_a_refusal_is_not_kept_for_a_caller_that_does_not_keep_them(organiser):
    game = GameFactory()
    lead(game, organiser, None)
    out_of_turn = {"seat": 3, "tile": "1-6"}
    with pytest.raises(errors.NotYourTurn):
        services.event_submit(
            game_id=game.pk,
            kind="move",
            payload=out_of_turn,
            actor=organiser,
            idempotency=key("k3", out_of_turn),
        )
    assert not IdempotencyRecord.objects.filter(key="k3").exists()


@pytest.mark.parametrize(
    "error",
    [
        errors.NotYourTurn(errors.gettext_noop("seat %(seat)s plays next"), seat=2),
        errors.RulingInvalid(
            errors.ngettext_noop(
                "seat %(seat)s holds %(stones)s stone",
                "seat %(seat)s holds %(stones)s stones",
                number="stones",
            ),
            rule="R36",
            round=3,
            seat=1,
            stones=2,
        ),
        errors.RecordInvalid(errors.gettext_noop("not a record"), move=4),
    ],
)
def test_a_refusal_survives_the_store_with_its_class_rule_place_and_plural_r34(error):
    named = error.with_names(PLAYERS)
    kept = refusal_from_stored(refusal_to_stored(named))

    assert type(kept) is type(error)
    assert (kept.code, kept.rule, kept.round, kept.move, kept.malformed) == (
        error.code,
        error.rule,
        error.round,
        error.move,
        error.malformed,
    )
    assert kept.message == named.message
    translated = (lambda t: "» " + t, lambda s, p, n: "» " + (s if n == 1 else p))
    assert kept.render(*translated) == named.render(*translated)  # translated when shown


def test_every_result_a_key_can_replay_is_registered():
    assert set(OUTCOMES) == {
        "submitted",
        "undone",
        "session",
        "closed",
        "corrected",
        "verified",
    }


def test_every_kind_of_write_replays_its_first_outcome_r27_r35_r37(organiser):
    """A sitting (R27), an undo, a correction (R37), a void (R35), a confirmation and a
    close: each retried key gets the first result back, equal to it."""
    game = services.game_create(players=list(PLAYERS), created_by=organiser.user)
    phones = {
        seat: services.Actor(token=services.table_join(join_code=game.join_code, seat=seat)[1])
        for seat in range(5)
    }

    def twice(write: Any) -> tuple[Any, Any]:
        return write(), write()

    started, again = twice(
        lambda: services.session_start(game_id=game.pk, actor=organiser, idempotency=key("s"))
    )
    assert again.outcome.session.number == started.session.number == 1
    assert again.outcome.session.started_at == started.session.started_at
    for step in CEKI_WITH_A_PASS:
        services.event_submit(
            game_id=game.pk, kind="move", payload=record_move(*step), actor=phones[step[0]]
        )
    verified, again = twice(
        lambda: verification.round_confirm(
            game_id=game.pk, round=1, actor=phones[1], idempotency=key("v")
        )
    )
    assert again.outcome.round == verified.round == 1
    assert verification.verification_dict(again.outcome.verification) == (
        verification.verification_dict(verified.verification)
    )
    assert again.outcome.state == verified.state
    services.event_submit(
        game_id=game.pk, kind="move", payload={"seat": 0, "tile": "6-6"}, actor=phones[0]
    )
    undone, again = twice(
        lambda: services.event_undo(game_id=game.pk, actor=organiser, idempotency=key("u"))
    )
    assert again.outcome.undone.position == undone.undone.position
    assert again.outcome.correction.kind == undone.correction.kind == "undo"
    assert again.outcome.state == undone.state
    voided, again = twice(
        lambda: corrections.round_void(
            game_id=game.pk, round=1, reason="misdeal", actor=organiser, idempotency=key("x")
        )
    )
    assert again.outcome.correction == voided.correction  # the audit trail's row
    assert again.outcome.state == voided.state
    version = Game.objects.get(pk=game.pk).version
    precondition = services.Precondition(version, from_header=True)
    closed, again = twice(
        lambda: services.game_close(
            game_id=game.pk, actor=organiser, precondition=precondition, idempotency=key("c")
        )
    )
    assert isinstance(again.outcome, services.Closed)
    assert again.outcome.game.pk == closed.game.pk
    assert Game.objects.get(pk=game.pk).version == version + 1  # closed once


def test_an_answer_stored_by_an_earlier_release_is_replayed_as_it_was(organiser):
    game = GameFactory()
    IdempotencyRecord.objects.create(
        scope=f"game:{game.pk}",
        key="old",
        fingerprint=key("old").fingerprint,
        status_code=201,
        body={"event": {"position": 0}},
    )

    again = lead(game, organiser, key("old"))

    assert again == Replay(earlier=(201, {"event": {"position": 0}}))
    assert not again.refused
    assert not Event.objects.exists()


def test_a_key_sent_again_with_another_request_is_idempotency_key_reused(organiser):
    game = GameFactory()
    lead(game, organiser, key("k1"))

    with pytest.raises(IdempotencyKeyReused) as refused:
        services.event_submit(
            game_id=game.pk,
            kind="move",
            payload={"seat": 1, "tile": "1-6"},
            actor=organiser,
            idempotency=key("k1", {"seat": 1, "tile": "1-6"}),
        )

    assert (refused.value.code, refused.value.status) == ("idempotency_key_reused", 422)
    assert Event.objects.count() == 1


def test_a_key_belongs_to_one_game(organiser):
    one, other = GameFactory(), GameFactory()
    lead(one, organiser, key("k1"))

    assert replay_of(other, key("k1")) is None
    assert isinstance(lead(other, organiser, key("k1")), services.Submitted)


def test_without_a_key_nothing_is_looked_up_or_stored(organiser):
    game = GameFactory()
    assert replay_of(game, None) is None
    lead(game, organiser, None)
    remember(game, None, services.Closed(game))
    remember_refusal(game, None, errors.RecordInvalid("x"))
    assert not IdempotencyRecord.objects.exists()


def test_the_outcome_is_stored_in_the_writes_transaction_a_failure_after_it_rolls_it_back():
    game = GameFactory()
    idempotency = key("k1")

    seen: list[Replay[Any] | None] = []

    def write_then_fail() -> None:
        with transaction.atomic():
            locked = store.lock(game.pk)
            remember(locked, idempotency, services.Closed(locked))
            seen.append(replay_of(locked, idempotency))
            raise RuntimeError("the write failed after the outcome was stored")

    with pytest.raises(RuntimeError):
        write_then_fail()

    assert len(seen) == 1  # stored, in that transaction
    assert isinstance(seen[0].outcome, services.Closed)
    assert not IdempotencyRecord.objects.exists()
    assert replay_of(game, idempotency) is None


def test_an_outcome_that_cannot_be_kept_rolls_the_write_back_with_it(organiser, monkeypatch):
    game = GameFactory()

    def broken(self: services.Submitted) -> dict[str, Any]:
        raise RuntimeError("cannot keep it")

    monkeypatch.setattr(services.Submitted, "to_stored", broken)
    with pytest.raises(RuntimeError):
        lead(game, organiser, key("k1"))
    monkeypatch.undo()

    assert not Event.objects.exists()
    assert not IdempotencyRecord.objects.exists()
    game.refresh_from_db()
    assert game.version == 0
    assert isinstance(lead(game, organiser, key("k1")), services.Submitted)


def test_the_fingerprint_names_the_method_path_and_body():
    fingerprint = Idempotency.fingerprint_of
    base = fingerprint("POST", "/a/", {"x": 1, "y": [1, 2]})
    assert base == fingerprint("POST", "/a/", {"y": [1, 2], "x": 1})  # key order is no part
    assert len(base) == 64
    assert base != fingerprint("PUT", "/a/", {"x": 1, "y": [1, 2]})
    assert base != fingerprint("POST", "/b/", {"x": 1, "y": [1, 2]})
    assert base != fingerprint("POST", "/a/", {"x": 2, "y": [1, 2]})
