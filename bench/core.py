"""The rules core alone: how many rounds ``replay`` checks per second, and how that scales.

No Django, no database: records from ``random_record`` are replayed with
``replay(Record.parse(record))`` — every move checked (R5–R17), every round
settled, stones and CAMAT carried (R22–R27). Times are the best of a few
repeats (``time.perf_counter``), the least disturbed by the rest of the machine.

Before and after (``compare``): the same records replayed by the rules core of
another commit — by default ``BASELINE_REF``, the one issue 14's 4,283 rounds/s
was measured on — and by this tree's, each in its own process, taking turns, in
the same run, so that the machine's load falls on both alike. The older core is
taken with ``git archive`` (``referee/engine``, ``scoring/core`` and their
packages' ``__init__``, which import nothing else) into a temporary folder.
``python -m bench.core`` runs this part alone (``--help``); ``--instructions``
adds valgrind's instruction counts, which do not depend on the machine's load.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from referee.engine.records import Record, replay, replay_record
from referee.engine.simulation import random_record

# Growth in the number of rounds must be linear or better: a fitted exponent above this
# (allowing for timing noise) fails the run.
MAX_GROWTH_EXPONENT = 1.15

BASELINE_REF = "69c04c4"
"""The commit whose rules core issue 14 measured at 4,283 rounds/s (BENCHMARKS.md, "Rules
core"): the "before" of the before-and-after comparison; issue 14 asks for ≥ 6× it."""

TARGET_RATIO = 6.0
"""Issue 14: the rules core replays at least 6× as many rounds per second as before."""

ROOT = Path(__file__).resolve().parent.parent

_CORE_PATHS = ("referee/__init__.py", "referee/engine", "scoring/__init__.py", "scoring/core")


def corpus(*, records: int, rounds: int, seed: int) -> list[dict[str, Any]]:
    """``records`` legal records of ``rounds`` rounds each, the same for the same seed."""
    return [random_record(random.Random(seed * 7919 + i), rounds=rounds) for i in range(records)]


def best_time(
    action: Callable[[], object],
    *,
    repeat: int,
    at_least: float = 0.0,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    """The shortest of ``repeat`` runs of ``action``, in seconds (by ``clock``).

    With ``at_least``, each run calls ``action`` as often as it takes to last that
    long and the time is per call: a run of a few milliseconds on a loaded machine
    measures the scheduler more than the code.
    """
    calls = 1
    if at_least > 0:
        start = clock()
        action()
        once = max(clock() - start, 1e-6)
        calls = max(1, math.ceil(at_least / once))
    best = math.inf
    for _ in range(repeat):
        start = clock()
        for _ in range(calls):
            action()
        best = min(best, (clock() - start) / calls)
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
    """Time per record for records of each size (rounds); fit how it grows.

    Each point is the best of ``repeat`` runs of at least 0.1 s of this process's CPU
    time (``time.process_time``): the sizes are compared with one another, and CPU time
    does not count the time the process waited for a core on a shared machine.
    """
    points = []
    for size in sizes:
        records = corpus(records=records_per_size, rounds=size, seed=seed + size)
        seconds = best_time(
            lambda records=records: _replay_all(records),
            repeat=repeat,
            at_least=0.1,
            clock=time.process_time,
        )
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
    baseline: str | None = None,
    turns: int = 3,
) -> dict[str, Any]:
    """The corpus throughput and the growth fit, as the report takes them; with
    ``baseline`` (a git commit) also ``compare``'s before and after on the same corpus."""
    start = time.perf_counter()
    made = corpus(records=records, rounds=rounds, seed=seed)
    generated = time.perf_counter() - start
    results: dict[str, Any] = {
        "throughput": throughput(made, repeat=repeat).to_dict(),
        "growth": growth(
            sizes, records_per_size=records_per_size, repeat=repeat, seed=seed
        ).to_dict(),
        "generation_seconds": generated,
    }
    if baseline:
        results["before_after"] = compare(made, ref=baseline, repeat=repeat, turns=turns)
    return results


# -- before and after ------------------------------------------------------------------

# Run in a child process with the tree to measure first on sys.path: replays the records
# ``repeat`` times and prints the best wall and CPU seconds as JSON.
_TIMER = """
import json, sys, time
tree, path, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, tree)
from referee.engine.records import Record, replay
records = json.load(open(path, encoding="utf-8"))
for record in records[:2]:
    replay(Record.parse(record))  # warm up
wall = cpu = float("inf")
for _ in range(repeat):
    start, start_cpu = time.perf_counter(), time.process_time()
    for record in records:
        replay(Record.parse(record))
    wall = min(wall, time.perf_counter() - start)
    cpu = min(cpu, time.process_time() - start_cpu)
print(json.dumps({"wall": wall, "cpu": cpu}))
"""

# The same under valgrind: only what runs inside functools.reduce is counted (callgrind's
# --toggle-collect), i.e. one replay of every record, not the start-up or the JSON.
_COUNTED = """
import functools, json, sys
tree, path = sys.argv[1], sys.argv[2]
sys.path.insert(0, tree)
from referee.engine.records import Record, replay
records = json.load(open(path, encoding="utf-8"))
for record in records[:2]:
    replay(Record.parse(record))
functools.reduce(lambda _, record: replay(Record.parse(record)), records, None)
"""


@contextmanager
def core_of(ref: str) -> Iterator[Path]:
    """A temporary folder holding the rules core of git commit ``ref`` (see ``_CORE_PATHS``).

    Raises ``RuntimeError`` when git cannot give it (no such commit, a shallow clone).
    """
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", ref, *_CORE_PATHS],
        capture_output=True,
        check=False,
    )
    if archive.returncode != 0:
        raise RuntimeError(f"git archive {ref}: {archive.stderr.decode(errors='replace').strip()}")
    with tempfile.TemporaryDirectory(prefix="domeng-core-") as folder:
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(folder, filter="data")
        yield Path(folder)


def _timed(tree: Path, path: Path, repeat: int) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", _TIMER, str(tree), str(path), str(repeat)],
        capture_output=True,
        check=True,
        text=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    timed: dict[str, float] = json.loads(out.stdout)
    return timed


def _counted(tree: Path, path: Path) -> int:
    """Instructions (valgrind callgrind) of one replay of the records at ``path``."""
    out = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--toggle-collect=functools_reduce",
            "--callgrind-out-file=/dev/null",
            # The interpreter itself, not a pyenv shim (valgrind would count the shim).
            os.path.realpath(sys.executable),
            "-c",
            _COUNTED,
            str(tree),
            str(path),
        ],
        capture_output=True,
        check=True,
        text=True,
    )
    for line in out.stderr.splitlines():
        if "Collected :" in line:
            return int(line.rsplit(":", 1)[1].replace(",", "").strip())
    raise RuntimeError("valgrind reported no instruction count")


def compare(
    records: Sequence[dict[str, Any]],
    *,
    ref: str = BASELINE_REF,
    repeat: int = 3,
    turns: int = 3,
    instructions: int = 0,
) -> dict[str, Any]:
    """Rounds per second of ``replay(Record.parse(record))`` over ``records`` by the rules
    core of commit ``ref`` (before) and of this tree (after), and their ratio.

    Each side runs ``turns`` times in a fresh process, before and after taking turns,
    each process keeping its best of ``repeat`` replays; a side's rate is its best
    process (wall clock and CPU time). With ``instructions`` > 0 the first that many
    records are also replayed once under valgrind on each side (needs ``valgrind``):
    instruction counts, repeatable whatever the machine's load. The records are
    written by this tree's ``random_record``; both sides must accept them.
    """
    rounds = sum(len(r["rounds"]) for r in records)
    with core_of(ref) as before, tempfile.TemporaryDirectory(prefix="domeng-core-") as folder:
        path = Path(folder) / "records.json"
        path.write_text(json.dumps(list(records)), encoding="utf-8")
        runs: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
        for _ in range(turns):
            runs["before"].append(_timed(before, path, repeat))
            runs["after"].append(_timed(ROOT, path, repeat))
        sides: dict[str, dict[str, Any]] = {}
        for side, timed in runs.items():
            sides[side] = {
                "rounds_per_second": rounds / min(t["wall"] for t in timed),
                "cpu_rounds_per_second": rounds / min(t["cpu"] for t in timed),
                "runs_rounds_per_second": [rounds / t["wall"] for t in timed],
            }
        counts: dict[str, Any] | None = None
        if instructions > 0:
            if shutil.which("valgrind") is None:
                counts = {"skipped": "valgrind is not installed"}
            else:
                few = Path(folder) / "few.json"
                few.write_text(json.dumps(list(records[:instructions])), encoding="utf-8")
                counts = {
                    "records": instructions,
                    "rounds": sum(len(r["rounds"]) for r in records[:instructions]),
                    "before": _counted(before, few),
                    "after": _counted(ROOT, few),
                }
                counts["ratio"] = counts["before"] / counts["after"]
    result: dict[str, Any] = {
        "ref": ref,
        "records": len(records),
        "rounds": rounds,
        "repeat": repeat,
        "turns": turns,
        "before": sides["before"],
        "after": sides["after"],
        "ratio": sides["after"]["rounds_per_second"] / sides["before"]["rounds_per_second"],
        "cpu_ratio": sides["after"]["cpu_rounds_per_second"]
        / sides["before"]["cpu_rounds_per_second"],
        "target": TARGET_RATIO,
    }
    if counts is not None:
        result["instructions"] = counts
    return result


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m bench.core``: the rules core's throughput, growth and before/after alone.

    Prints the results as JSON (``--out`` also writes them to a file) and a summary;
    exits 1 when the after/before ratio is below ``TARGET_RATIO`` or growth is worse
    than linear. BENCHMARKS.md is left alone.
    """
    parser = argparse.ArgumentParser(prog="python -m bench.core", description=main.__doc__)
    parser.add_argument(
        "--records", type=int, default=int(os.environ.get("BENCH_CORE_RECORDS") or 200)
    )
    parser.add_argument(
        "--rounds", type=int, default=int(os.environ.get("BENCH_CORE_ROUNDS") or 40)
    )
    parser.add_argument("--seed", type=int, default=int(os.environ.get("BENCH_SEED") or 1))
    parser.add_argument("--repeat", type=int, default=3, help="replays a process keeps the best of")
    parser.add_argument("--turns", type=int, default=3, help="processes per side, taking turns")
    parser.add_argument("--baseline", default=BASELINE_REF, help="git commit of the 'before' core")
    parser.add_argument(
        "--instructions",
        type=int,
        default=0,
        metavar="N",
        help="also count instructions of N records on each side (valgrind)",
    )
    parser.add_argument("--no-growth", action="store_true", help="skip the growth fit")
    parser.add_argument("--out", type=Path, help="write the results as JSON here")
    args = parser.parse_args(argv)
    made = corpus(records=args.records, rounds=args.rounds, seed=args.seed)
    results: dict[str, Any] = {"throughput": throughput(made, repeat=args.repeat).to_dict()}
    if not args.no_growth:
        results["growth"] = growth(
            (10, 20, 40, 80, 160), records_per_size=10, repeat=args.repeat, seed=args.seed
        ).to_dict()
    results["before_after"] = compare(
        made,
        ref=args.baseline,
        repeat=args.repeat,
        turns=args.turns,
        instructions=args.instructions,
    )
    text = json.dumps(results, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    ba = results["before_after"]
    print(
        f"before ({ba['ref']}): {ba['before']['rounds_per_second']:,.0f} rounds/s; "
        f"after: {ba['after']['rounds_per_second']:,.0f} rounds/s; "
        f"ratio {ba['ratio']:.2f}x wall, {ba['cpu_ratio']:.2f}x CPU"
        + (
            f", {ba['instructions']['ratio']:.2f}x fewer instructions"
            if "ratio" in ba.get("instructions", {})
            else ""
        ),
        file=sys.stderr,
    )
    linear = results.get("growth", {}).get("is_linear_or_better", True)
    return 0 if ba["ratio"] >= TARGET_RATIO and linear else 1


if __name__ == "__main__":
    sys.exit(main())
