"""Quick paired trials of ``strong`` variants (R39).

``python -m bench.trials ROUNDS FIELD NAME=key:value,... ...``

Each variant (a ``StrongConfig`` written ``field:value,...``) plays one seat against four
``FIELD`` seats on the ladder's paired deals; prints each variant's mean stones against
the others and its paired difference from the first variant, with 95 % intervals.
"""

from __future__ import annotations

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
    names = []
    for spec in specs:
        name, _, text = spec.partition("=")
        ladder.SEERS[name] = ladder._ablated(_config(text))
        names.append(name)
    results = {
        name: ladder.rung(name, field, rounds=int(rounds), game_rounds=20, seed=0, jobs=2)
        for name in names
    }
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


if __name__ == "__main__":
    main(sys.argv[1:])
