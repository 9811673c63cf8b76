"""The rules core alone: how many rounds ``replay`` checks per second, and how that scales.

No Django, no database: records from ``random_record`` are replayed with
``replay(Record.parse(record))`` — every move checked (R5–R17), every round
settled, stones and CAMAT carried (R22–R27). Times are the best of a few
repeats (``time.perf_counter``), the least disturbed by the rest of the machine.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from referee.engine.records import Record, replay, replay_record
from referee.engine.simulation import random_record

# Growth in the number of rounds must be linear or better: a fitted exponent above this
# (allowing for timing noise) fails the run.
MAX_GROWTH_EXPONENT = 1.15


def corpus(*, records: int, rounds: int, seed: int) -> list[dict[str, Any]]:
    """``records`` legal records of ``rounds`` rounds each, the same for the same seed."""
    return [random_record(random.Random(seed * 7919 + i), rounds=rounds) for i in range(records)]


def best_time(action: Callable[[], object], *, repeat: int) -> float:
    """The shortest of ``repeat`` runs of ``action``, in seconds."""
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - start)
    return best


def _replay_all(records: Sequence[dict[str, Any]]) -> None:
    for record in records:
        replay(Record.parse(record))


def _replay_record_all(records: Sequence[dict[str, Any]]) -> None:
    for record in records:
        replay_record(record)


@dataclass(frozen=True)
class Throughput:
    records: int
    rounds: int
    moves: int
    seconds: float
    rounds_per_second: float
    moves_per_second: float
    result_seconds: float  # replay_record: the replay and the domeng-result/1 written out

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def throughput(records: Sequence[dict[str, Any]], *, repeat: int = 3) -> Throughput:
    """Rounds (and moves) replayed per second over ``records``."""
    rounds = sum(len(r["rounds"]) for r in records)
    moves = sum(len(data["moves"]) for r in records for data in r["rounds"])
    seconds = best_time(lambda: _replay_all(records), repeat=repeat)
    result_seconds = best_time(lambda: _replay_record_all(records), repeat=repeat)
    return Throughput(
        records=len(records),
        rounds=rounds,
        moves=moves,
        seconds=seconds,
        rounds_per_second=rounds / seconds,
        moves_per_second=moves / seconds,
        result_seconds=result_seconds,
    )


@dataclass(frozen=True)
class GrowthPoint:
    rounds: int
    seconds_per_record: float
    microseconds_per_round: float


@dataclass(frozen=True)
class Growth:
    points: list[GrowthPoint]
    exponent: float  # t ∝ rounds ** exponent, least squares on log-log
    slope_microseconds_per_round: float  # t = intercept + slope × rounds
    intercept_microseconds: float

    @property
    def is_linear_or_better(self) -> bool:
        return self.exponent <= MAX_GROWTH_EXPONENT

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "is_linear_or_better": self.is_linear_or_better}


def growth(
    sizes: Sequence[int], *, records_per_size: int, repeat: int = 3, seed: int = 1
) -> Growth:
    """Time per record for records of each size (rounds); fit how it grows."""
    points = []
    for size in sizes:
        records = corpus(records=records_per_size, rounds=size, seed=seed + size)
        seconds = best_time(lambda records=records: _replay_all(records), repeat=repeat)
        per_record = seconds / len(records)
        points.append(GrowthPoint(size, per_record, per_record / size * 1e6))
    xs = [float(p.rounds) for p in points]
    ys = [p.seconds_per_record for p in points]
    exponent = _slope([math.log(x) for x in xs], [math.log(y) for y in ys])
    slope = _slope(xs, ys)
    intercept = sum(ys) / len(ys) - slope * sum(xs) / len(xs)
    return Growth(points, exponent, slope * 1e6, intercept * 1e6)


def _slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Least-squares slope of ys on xs."""
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx


def run(
    *,
    records: int,
    rounds: int,
    sizes: Sequence[int],
    records_per_size: int,
    repeat: int = 3,
    seed: int = 1,
) -> dict[str, Any]:
    """The corpus throughput and the growth fit, as the report takes them."""
    start = time.perf_counter()
    made = corpus(records=records, rounds=rounds, seed=seed)
    generated = time.perf_counter() - start
    return {
        "throughput": throughput(made, repeat=repeat).to_dict(),
        "growth": growth(
            sizes, records_per_size=records_per_size, repeat=repeat, seed=seed
        ).to_dict(),
        "generation_seconds": generated,
    }
