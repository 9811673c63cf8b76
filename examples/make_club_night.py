"""Generate ``examples/club_night.json``, the example game record of ``make demo``.

The record is a random legal game (``referee.engine.simulation.random_record``)
of at least 20 rounds. Seeds are tried in order from ``--seed`` until one gives
a game with every feature the demo shows (``FEATURES``): a CEKI, a POLLO, a
blocked round without MATTIKKENG and one with, a shortfall paid by a player
(a transfer ``from`` a seat, once the table has run out of stones), a CAMAT
election (every stone back on the table) and, at the blocked rounds, reveals
both by tiles and by pip sums. Tiles are written ``a-b``; no hand is declared.

The output depends only on ``--seed`` and ``--rounds`` (and on the code of the
simulation): the same arguments write the same file. Run from the checkout:

    .venv/bin/python examples/make_club_night.py                 # writes examples/club_night.json
    .venv/bin/python examples/make_club_night.py --seed 500 --out /tmp/other.json

It prints the seed it used and the rounds showing each feature.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from referee.engine.records import replay_record
from referee.engine.simulation import random_record

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "club_night.json"
DEFAULT_SEED = 0
DEFAULT_ROUNDS = 24
MIN_ROUNDS = 20
MAX_TRIES = 10_000

Round = dict[str, Any]
# feature name -> test on (the record's round, the result's round)
FEATURES: dict[str, Callable[[Round, Round], bool]] = {
    "CEKI": lambda rec, res: res["finish"] == "ceki",
    "POLLO": lambda rec, res: res["finish"] == "pollo",
    "blocked without MATTIKKENG": lambda rec, res: (
        res["ending"] == "blocked" and res["winner"] is not None and not res["mattikkeng"]
    ),
    "blocked with MATTIKKENG": lambda rec, res: (
        res["ending"] == "blocked" and bool(res["mattikkeng"])
    ),
    "shortfall paid by a seat": lambda rec, res: any(
        isinstance(t["from"], int) for t in res["transfers"]
    ),
    "CAMAT elected": lambda rec, res: res["camat_elected"] is not None,
    "reveal by tiles": lambda rec, res: bool(rec.get("reveal")),
    "reveal by pips": lambda rec, res: bool(rec.get("pips")),
}


def feature_rounds(record: dict[str, Any]) -> dict[str, list[int]]:
    """For each feature, the numbers of the rounds that show it (replayed by the referee)."""
    result = replay_record(record)
    pairs = list(zip(record["rounds"], result["rounds"], strict=True))
    return {
        name: [res["number"] for rec, res in pairs if test(rec, res)]
        for name, test in FEATURES.items()
    }


def club_night(seed: int, rounds: int) -> dict[str, Any]:
    """A record of ``rounds`` rounds: plain ``a-b`` tiles, no declared hands, all rounds ended."""
    return random_record(
        random.Random(seed),
        rounds=rounds,
        declare_probability=0.0,
        pips_probability=0.3,
        mixed_spellings=False,
        finish_last_round=True,
    )


def search(start: int, rounds: int) -> tuple[int, dict[str, Any]]:
    """The first seed from ``start`` whose game shows every feature, and its record."""
    for seed in range(start, start + MAX_TRIES):
        record = club_night(seed, rounds)
        if all(feature_rounds(record).values()):
            return seed, record
    raise SystemExit(f"no seed in {start}..{start + MAX_TRIES - 1} shows every feature")


def dumps(record: dict[str, Any]) -> str:
    """The record as JSON, one move per line (the file stays readable and diffable)."""

    def compact(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    rounds = []
    for data in record["rounds"]:
        moves = ",\n".join(f"        {compact(move)}" for move in data["moves"])
        fields = [f'      "moves": [\n{moves}\n      ]']
        fields += [f"      {compact(key)}: {compact(data[key])}" for key in data if key != "moves"]
        rounds.append("    {\n" + ",\n".join(fields) + "\n    }")
    lines = ["{"]
    lines += [
        f"  {compact(key)}: {compact(record[key])}," for key in ("format", "players", "rules")
    ]
    lines += ['  "rounds": [', ",\n".join(rounds), "  ]", "}"]
    text = "\n".join(lines) + "\n"
    assert json.loads(text) == record
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="first seed to try")
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS, help="rounds in the game")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where to write it")
    args = parser.parse_args(argv)
    if args.rounds < MIN_ROUNDS:
        parser.error(f"--rounds must be at least {MIN_ROUNDS}")
    seed, record = search(args.seed, args.rounds)
    args.out.write_text(dumps(record), encoding="utf-8")
    print(f"seed {seed}: {args.rounds} rounds written to {args.out}")
    for name, numbers in feature_rounds(record).items():
        print(f"  {name:<28} rounds {', '.join(map(str, numbers))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
