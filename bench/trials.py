"""Quick paired trials of ``strong`` variants (R39).

``python -m bench.trials ROUNDS FIELD NAME=key:value,... ...``

Each variant (a ``StrongConfig`` written ``field:value,...``, or a ladder player's bare
name such as ``greedy`` or ``omniscient``) plays one seat against four
``FIELD`` seats on the ladder's paired deals; prints each variant's mean stones against
the others and its paired difference from the first variant, with 95 % intervals, and
the share of the greedy-to-omniscient gap it closes when both are listed. Seed 1: the
deals of ``make bench``'s ladder.
"""

from __future__ import annotations

import os
import sys
from dataclasses import fields, replace
from typing import Any

from bench import ladder
from referee.engine.strategies import STRONG_CONFIG, StrongConfig


def _config(text: str) -> StrongConfig:
    kinds = {f.name: f.type for f in fields(StrongConfig)}
    changes: dict[str, Any] = {}
    for part in filter(None, text.split(",")):
        key, value = part.split(":")
        kind = str(kinds[key])
        changes[key] = (
            value == "1" if kind == "bool" else float(value) if kind == "float" else int(value)
        )
    return replace(STRONG_CONFIG, **changes)


def main(argv: list[str]) -> None:
    rounds, field, *specs = argv
    jobs = int(os.environ.get("BENCH_TRIALS_JOBS", "2"))
    print(f"load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}", flush=True)
    names = []
    for spec in specs:
        name, given, text = spec.partition("=")
        if given:  # else a ladder player by its name: greedy, omniscient, …
            ladder.SEERS[name] = ladder._ablated(_config(text))
        names.append(name)
    results = {}
    for name in names:
        results[name] = ladder.rung(
            name, field, rounds=int(rounds), game_rounds=20, seed=1, jobs=jobs
        )
        load = " ".join(f"{v:.2f}" for v in os.getloadavg())
        print(f"{name}: {results[name]['seconds']:.0f} s, load average {load}", flush=True)
    base = results[names[0]]["per_game"]
    for name in names:
        r = results[name]
        a, d = r["advantage"], ladder.paired(r["per_game"], base)
        cpu = r["cpu_ms_per_move_with_a_choice"]
        print(
            f"{name:>14} vs {field}: {a['mean']:+.3f} [{a['low']:+.3f}, {a['high']:+.3f}]  "
            f"minus {names[0]}: {d['mean']:+.3f} [{d['low']:+.3f}, {d['high']:+.3f}]  "
            f"cpu p50 {cpu['p50']:.1f} p99 {cpu['p99']:.1f} ms  {r['seconds']:.0f} s",
            flush=True,
        )
        if name not in ("greedy", "omniscient") and {"greedy", "omniscient"} <= set(names):
            g = ladder.gap_closed(
                r["per_game"], results["greedy"]["per_game"], results["omniscient"]["per_game"]
            )
            share = f"{g['share']:.0%} [{g['low']:.0%}, {g['high']:.0%}]"
            print(f"{name:>14} closes {share} of the gap")


if __name__ == "__main__":
    main(sys.argv[1:])
