"""An import folds a record once (issue 29): ``folding.fold_record`` takes the engine and
each event's round and settlement from the replay that judged the record
(``records.replay``'s ``settled_by``) and folds only the last round begun, from the
standing before it (R27). The oracle is ``folding.fold_all``, every event folded one by
one from the start, as the import did before: the same engine (result, snapshot, the
sides of the chain, R11), the same rounds, the same settling events (which date the
league's rounds) and the same effects for the round cache — for records with declared
hands (R31), reveals and pip sums (R18, R33), voids (R35), adjustments (R36),
substitutes (R38), a round in play, a blocked round waiting for its reveals, and an empty
last round."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee import folding
from referee.engine.errors import RefereeError
from referee.engine.records import Record, replay, result_of
from referee.engine.simulation import random_record


def _with_rulings(record: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """``record`` with random voids, adjustments and substitutes (some refused)."""
    record = copy.deepcopy(record)
    rounds = record["rounds"]
    for data in rounds:
        if rng.random() < 0.15:
            data["void"] = {"reason": "tiles shown"}
        if rng.random() < 0.2:
            data["adjustments"] = [
                {"from": "table", "to": rng.randrange(5), "stones": 1, "reason": "rule"}
            ]
        if rng.random() < 0.15:
            data["substitutes"] = {str(rng.randrange(5)): "Fajar"}
    return record


def _cut(record: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """``record`` with its last round waiting for reveals, or an empty round after it."""
    record = copy.deepcopy(record)
    rounds = record["rounds"]
    way = rng.choice(["as is", "reveals cut", "empty round"])
    if way == "reveals cut" and rounds and (rounds[-1].get("reveal") or rounds[-1].get("pips")):
        for field in ("reveal", "pips"):
            given_ = rounds[-1].get(field) or {}
            for seat in sorted(given_)[rng.randrange(len(given_) + 1) :]:
                del given_[seat]
            if not given_:
                rounds[-1].pop(field, None)
    elif way == "empty round":
        rounds.append({"moves": []})
    return record


def _both(record: dict[str, Any]) -> tuple[Any, Any] | None:
    """(``fold_record``'s, ``fold_all``'s) engine and ``Folded``, or ``None`` if refused."""
    parsed = Record.parse(record)
    settled_by: dict[int, int | None] = {}
    try:
        judged = replay(parsed, settled_by=settled_by)
    except RefereeError:
        return None
    entries = folding.record_entries(parsed.rounds)
    return (
        folding.fold_record(parsed.rules, entries, judged, settled_by),
        folding.fold_all(parsed.rules, entries),
    )


def _assert_equal(record: dict[str, Any]) -> bool:
    both = _both(record)
    if both is None:
        return False
    (engine, folded), (full_engine, full) = both
    rules = Record.parse(record).rules
    entries = folding.record_entries(Record.parse(record).rounds)
    assert result_of(engine) == result_of(full_engine)
    start = folding.initial_snapshot(rules)
    assert folding.advance_snapshot(engine, start) == folding.advance_snapshot(full_engine, start)
    assert folding.with_sides(engine, entries) == folding.with_sides(full_engine, entries)
    assert folded.rounds == full.rounds
    assert folded.settled == full.settled
    assert [e.to_dict() for e in folded.tail] == [e.to_dict() for e in full.tail]
    return True


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    rounds=st.integers(1, 8),
    declare=st.sampled_from([0.0, 0.3, 0.8]),
    finished=st.booleans(),
    rulings=st.booleans(),
)
def test_one_fold_equals_the_fold_of_every_event_R18_R27_R31_R35_R36_R38(
    seed: int, rounds: int, declare: float, finished: bool, rulings: bool
) -> None:
    rng = random.Random(seed)
    record = random_record(
        rng, rounds=rounds, declare_probability=declare, finish_last_round=finished
    )
    if rulings:
        record = _with_rulings(record, rng)
    _assert_equal(_cut(record, rng))


def test_the_cases_are_reached() -> None:
    """The property's records reach every way a round settles and the fallback."""
    reached = {"by a move": 0, "by a reveal": 0, "fallback": 0, "refused": 0, "void": 0}
    for seed in range(300):
        rng = random.Random(seed)
        record = random_record(
            rng, rounds=rng.randint(1, 6), declare_probability=0.3, finish_last_round=seed % 2 == 0
        )
        record = _cut(_with_rulings(record, rng), rng)
        parsed = Record.parse(record)
        settled_by: dict[int, int | None] = {}
        if not _assert_equal(record):
            reached["refused"] += 1
            continue
        judged = replay(parsed, settled_by=settled_by)
        reached["by a move"] += sum(seat is None for seat in settled_by.values())
        reached["by a reveal"] += sum(seat is not None for seat in settled_by.values())
        reached["void"] += sum(r.voided for r in judged.rounds)
        entries = folding.record_entries(parsed.rounds)
        if len({e.round for e in entries}) != len(judged.rounds):
            reached["fallback"] += 1
    assert all(reached.values()), reached


@pytest.mark.parametrize("rounds", [1, 2, 5])
def test_a_settling_reveal_is_the_one_that_settled_its_round_R18(rounds: int) -> None:
    """Each round the replay settles names exactly one settling event in the fold."""
    for seed in range(40):
        record = random_record(random.Random(seed), rounds=rounds, pips_probability=0.5)
        both = _both(record)
        assert both is not None
        (_, folded), _ = both
        assert sum(folded.settled) == rounds
