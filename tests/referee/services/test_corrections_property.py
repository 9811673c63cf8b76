"""Property (R37): a random correction of a stored game through the services leaves it
equal to a fresh replay of its exported record, and its league rows equal to those of a
fresh import of that record — or is refused and changes nothing."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from referee import folding, selectors, services, settled
from referee.engine import RefereeError, RuleSet
from referee.engine.records import replay_record
from referee.engine.simulation import random_record
from referee.engine.tiles import ALL_TILES
from referee.exceptions import ServiceError
from referee.models import Correction, Event, Game
from referee.services import corrections
from scoring.models import SeatRound
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

LINE_FIELDS = (
    "round_number",
    "seat",
    "won",
    "first_cappu",
    "ceki",
    "pollo",
    "manguno",
    "mattikkeng",
    "cucuq",
    "passes",
    "passebunge",
    "stones_received",
    "stones_given",
    "stones_held",
    "camat_elected",
    "cycle_ended",
)
# What a fresh import of the same record must show alike (ids, versions and who entered
# which event naturally differ).
STATE_FIELDS = ("status", "table", "camat", "turn", "round", "seats")


def _move(rng: random.Random) -> dict[str, Any]:
    seat = rng.randrange(5)
    if rng.random() < 0.3:
        return {"seat": seat, "pass": True}
    return {"seat": seat, "tile": str(rng.choice(ALL_TILES))}


def _legal_at(game: Game, live: list[Event], index: int, rng: random.Random) -> dict[str, Any]:
    """A move the rules allow after the first ``index`` live events (else a random one)."""
    engine, _ = folding.fold(
        RuleSet.from_dict(game.rules), [(e.kind, e.payload) for e in live[:index]]
    )
    current = engine.current
    if current is None or current.round.is_over() or not current.round.moves:
        return _move(rng)
    return rng.choice(current.round.legal_moves(hidden=True)).to_dict()


def _a_correction(game: Game, rng: random.Random) -> tuple[str, dict[str, Any]]:
    """A random correction: amend, insert, remove, a batch, a void, an adjustment, a
    substitute. Many are refused by the rules; that is part of the property."""
    live = list(game.events.filter(revoked_by__isnull=True).order_by("position"))
    plays = [e for e in live if e.kind == Event.Kind.MOVE]
    rounds = max((e.round_number for e in live), default=1)
    which = rng.choice(["amend", "insert", "remove", "batch", "void", "adjust", "substitute"])
    if which in {"amend", "remove", "insert", "batch"} and not plays:
        which = "substitute"
    if which == "amend":
        event = rng.choice(plays)
        # Often the same seat with another spelling or `on`: an accepted no-op or change.
        payload = dict(event.payload) if rng.random() < 0.3 else _move(rng)
        return "correct", {"changes": [corrections.Change("amend", event.position, None, payload)]}
    if which == "remove":
        event = plays[-1] if rng.random() < 0.5 else rng.choice(plays)
        return "correct", {"changes": [corrections.Change("remove", event.position)]}
    if which == "insert":
        at = rng.choice([*plays, None])
        position = at.position if at is not None else None
        return "correct", {"changes": [corrections.Change("insert", position, "move", _move(rng))]}
    if which == "batch":  # the last event removed, the one before it amended
        if len(live) < 2:
            return "correct", {"changes": [corrections.Change("remove", live[-1].position)]}
        last, before = live[-1], live[-2]
        payload = (
            _legal_at(game, live, len(live) - 2, rng)
            if before.kind == Event.Kind.MOVE
            else before.payload
        )
        return "correct", {
            "changes": [
                corrections.Change("remove", last.position),
                corrections.Change("amend", before.position, None, payload),
            ]
        }
    number = rng.randint(1, rounds)
    if which == "void":
        return "void", {"round": number, "reason": "tiles shown"}
    if which == "adjust":
        holders: list[Any] = ["table", 0, 1, 2, 3, 4]
        source, to = rng.sample(holders, 2)
        return "adjust", {
            "round": number,
            "source": source,
            "to": to,
            "stones": rng.randint(1, 3),
            "reason": "a stone found",
        }
    return "substitute", {"seat": rng.randrange(5), "round": None, "name": "Fajar"}


def _apply(kind: str, game: Game, actor: services.Actor, args: dict[str, Any]) -> None:
    service = {
        "correct": corrections.events_correct,
        "void": corrections.round_void,
        "adjust": corrections.round_adjust,
        "substitute": corrections.seat_substitute,
    }[kind]
    service(game_id=game.pk, actor=actor, **args)


def _lines(game: Game) -> list[tuple[Any, ...]]:
    return list(
        SeatRound.objects.filter(game=game)
        .order_by("round_number", "seat")
        .values_list(*LINE_FIELDS)
    )


def _state(game: Game) -> dict[str, Any]:
    state = selectors.game_state_for(Game.objects.get(pk=game.pk))
    return {key: state[key] for key in STATE_FIELDS}


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1), rounds=st.integers(1, 4))
# Found by this test: the round in play's only move removed, read from its round alone,
# left no event to judge and the league lost every seat-round (the game is read whole now).
@example(seed=1659114, rounds=4)
def test_a_corrected_game_equals_a_fresh_replay_and_import_of_its_record_R35_R36_R37_R38(
    db, seed, rounds
):
    rng = random.Random(seed)
    user = UserFactory()
    actor = services.Actor(user=user)
    record = random_record(rng, rounds=rounds, finish_last_round=seed % 3 != 0)
    game = services.game_import(record=record, created_by=user)
    kind, args = _a_correction(game, rng)
    before = (_state(game), _lines(game), list(Event.objects.values_list("id", "revoked_by")))

    try:
        _apply(kind, game, actor, args)
    except (RefereeError, ServiceError) as error:
        event(f"{kind}: refused ({getattr(error, 'code', '')})")
        after = (_state(game), _lines(game), list(Event.objects.values_list("id", "revoked_by")))
        assert after == before  # refused: nothing changed
        assert not Correction.objects.filter(game=game).exists()
        return

    event(f"{kind}: accepted")
    game.refresh_from_db()
    assert settled.differences(game) == []  # the stored settled rounds follow (issue 29)
    exported = services.game_export(game)
    result = replay_record(exported)
    fresh = services.game_import(record=exported, created_by=user)
    assert replay_record(services.game_export(fresh)) == result
    assert _state(game) == _state(fresh)
    assert _lines(game) == _lines(fresh)
    assert services.game_export(fresh) == exported
    for rnd in result["rounds"]:
        after = rnd["after"]
        assert after["table"] + sum(after["stones"]) == 25
        assert min(after["stones"]) >= 0
