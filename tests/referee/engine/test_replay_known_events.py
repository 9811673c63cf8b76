"""Events accepted once, applied again: ``Game.replay`` and ``folding.fold`` with known
effects give exactly what applying them one by one gives (issue 14; R27, R34).

A move's request folds the current round from the game row's cache (``referee.store``):
its events were each judged when they were entered, and the cache keeps what each did
(``folding.Effects``). The fold then replays them on the core's fast path
(``Round.run`` through ``Game.replay``) instead of pushing each with its report. The
oracle is the fold that pushes every event (``folding.fold`` without effects):
the engine must be the same in every respect a later move or answer reads — the result,
the standing, the round in play's chain, turn, legal moves and what each seat could
hold — and a broken list must raise the same error at the same event.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee import folding
from referee.engine import RuleSet
from referee.engine.errors import RefereeError
from referee.engine.game import Game
from referee.engine.records import Record, result_of
from referee.engine.round import Round
from referee.engine.simulation import random_record
from tests.referee.engine.test_replay_fast_path import broken, cut, records

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def view(game: Game) -> str:
    """Everything of ``game`` that a later event or the table's state reads."""
    current = game.current
    in_play = None
    if current is not None and not current.voided:
        rnd = current.round
        in_play = {
            "turn": rnd.turn,
            "ends": rnd.ends,
            "chain": rnd.chain(),
            "moves": [m.to_dict() for m in rnd.moves],
            "passes": [list(p) for p in rnd.pass_log],
            "legal": [m.to_dict() for m in rnd.legal_moves()],
            "hidden": [m.to_dict() for m in rnd.legal_moves(hidden=True)],
            "could_hold": [[str(t) for t in rnd.could_hold(s)] for s in range(5)],
            "passed_on": [sorted(rnd.passed_values(s)) for s in range(5)],
            "tiles_left": [rnd.tiles_left(s) for s in range(5)],
            "waiting": rnd.is_waiting_for_reveals(),
        }
    return json.dumps(
        {
            "result": result_of(game),
            "standing": game.standing().to_dict(),
            "expected_leader": game.expected_leader(),
            "in_play": in_play,
        },
        sort_keys=True,
        default=str,
    )


def error_of(error: RefereeError | None) -> Any:
    return None if error is None else {"type": type(error).__name__, **error.to_dict()}


def all_moves(data: dict[str, Any]) -> list[Any]:
    """Every round's moves, one after the other, with no reveal between rounds."""
    return [move for game_round in data["rounds"] for move in game_round["moves"]]


def pushed(moves: list[Any]) -> tuple[str, Any]:
    game, error = Game(), None
    try:
        for move in moves:
            game.push(move)
    except RefereeError as raised:
        error = raised
    return view(game), error_of(error)


def replayed(moves: list[Any]) -> tuple[str, Any]:
    game, error = Game(), None
    try:
        game.replay(moves)
    except RefereeError as raised:
        error = raised
    return view(game), error_of(error)


@FAST
@given(records(), st.randoms(use_true_random=False))
def test_replay_is_push_move_after_move_on_legal_cut_and_broken_moves_R34(
    record: dict[str, Any], rng: random.Random
) -> None:
    # Across rounds: a settled round's next move leads the next (R6, R30); after a
    # blocked round the next lead is reveal_missing (R18) both ways.
    for data in (record, cut(record, rng), broken(record, rng), broken(broken(record, rng), rng)):
        moves = all_moves(data)
        assert replayed(moves) == pushed(moves)


def test_replay_takes_the_fast_path_for_ordinary_moves_and_push_for_leads_R5_R6() -> None:
    record = random_record(random.Random(3), rounds=5, pips_probability=0.0)
    moves = all_moves(record)
    with mock.patch.object(Round, "push", autospec=True, side_effect=Round.push) as push:
        try:
            Game().replay(moves)
        except RefereeError:
            pass  # a blocked round's next lead waits for reveals (R18)
    # Each round's lead goes through push (R5, R6); the plays and passes after it do not.
    assert 1 <= push.call_count <= len(record["rounds"]) < len(moves)


def entries_of(data: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    parsed = Record.parse(data)
    return [(e.kind, e.payload) for e in folding.record_entries(parsed.rounds)]


def with_rulings(record: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """``record`` with a voided round (R35) or an adjustment (R36) somewhere."""
    data = copy.deepcopy(record)
    game_round = rng.choice(data["rounds"])
    if rng.random() < 0.5:
        game_round["void"] = {"reason": "a tile fell"}
    else:
        game_round["adjustments"] = [{"from": "table", "to": 1, "stones": 0, "reason": "check"}]
    return data


def folded_both_ways(
    rules: RuleSet,
    events: list[tuple[str, dict[str, Any]]],
    snapshot: dict[str, Any] | None = None,
) -> None:
    engine, effects = folding.fold(rules, events, snapshot=snapshot)
    again, known = folding.fold(rules, events, snapshot=snapshot, effects=effects)
    assert view(again) == view(engine)
    assert [e.to_dict() for e in known] == [e.to_dict() for e in effects]


@FAST
@given(records(), st.randoms(use_true_random=False))
def test_a_fold_with_known_effects_is_the_fold_at_every_event_R27_R34_R35_R36(
    record: dict[str, Any], rng: random.Random
) -> None:
    rules = RuleSet()
    for data in (record, cut(record, rng), with_rulings(record, rng)):
        try:
            events = entries_of(data)
        except RefereeError:
            continue  # a ruling this record cannot take: nothing to fold
        try:
            folding.fold(rules, events)
        except RefereeError:
            continue
        for end in sorted({0, len(events), *(rng.randrange(len(events) + 1) for _ in range(3))}):
            folded_both_ways(rules, events[:end])
        # From the snapshot at the last round's start, with that round's events only, as
        # the game row's cache folds it (R27).
        engine, effects = folding.fold(rules, events)
        snapshot = folding.advance_snapshot(engine, folding.initial_snapshot(rules))
        first = next(
            (i for i, effect in enumerate(effects) if effect.round >= snapshot["round"]),
            len(events),
        )
        folded_both_ways(rules, events[first:], snapshot)


def test_a_broken_event_raises_the_same_error_with_known_effects_R34() -> None:
    record = random_record(random.Random(11), rounds=3)
    events = entries_of(record)
    bad = copy.deepcopy(events)
    index = next(i for i, (kind, _) in enumerate(bad) if kind == "move" and i > 10)
    bad[index][1]["tile"] = "7-7"  # no such tile (R1)
    with pytest.raises(RefereeError) as pushed_error:
        folding.fold(RuleSet(), bad)
    with pytest.raises(RefereeError) as replayed_error:
        folding.fold(RuleSet(), bad, effects=[folding.Effects(1)] * len(bad))
    assert replayed_error.value.to_dict() == pushed_error.value.to_dict()


def test_known_effects_are_one_per_event() -> None:
    events = entries_of(random_record(random.Random(5), rounds=1))
    with pytest.raises(ValueError, match="one known effect for each event"):
        folding.fold(RuleSet(), events, effects=[folding.Effects(1)])
