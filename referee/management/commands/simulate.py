"""``manage.py simulate``: computer seats play whole games from a digital deal (R39)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from referee.engine.records import replay_record
from referee.engine.selfplay import play_game, summarise
from referee.engine.strategies import STRATEGIES
from referee.engine.tiles import SEATS

DEFAULT_STRATEGY = "greedy"
DEFAULT_GAME_ROUNDS = 20


def percentile(values: list[float], fraction: float) -> float | None:
    """The nearest-rank percentile of ``values`` (``None`` if empty)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(fraction * len(ordered)) - 1))]


class Command(BaseCommand):
    help = (
        "Deal at random (seeded) and let each seat's strategy play whole games (R39); "
        "write each game as a domeng-record/1 file (--out) and print a JSON summary per "
        "seat: mean stones held after a round with a 95% confidence interval, rounds won, "
        "CEKI, POLLO, MANGUNO, MATTIKKENG and CAMAT counts, and time per move."
    )
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--rounds", type=int, required=True, help="rounds in all (≥ 1)")
        parser.add_argument("--seed", default="0", help="the seed of every deal and decision")
        parser.add_argument(
            "--seat",
            action="append",
            default=[],
            metavar="N=STRATEGY",
            help=f"seat N (0-4) plays STRATEGY, one of {', '.join(sorted(STRATEGIES))} "
            f"(repeat per seat; default {DEFAULT_STRATEGY})",
        )
        parser.add_argument(
            "--game-rounds",
            type=int,
            default=DEFAULT_GAME_ROUNDS,
            help=f"rounds per game (default {DEFAULT_GAME_ROUNDS}); the last game may be shorter",
        )
        parser.add_argument("--out", help="directory for the records (game-0001.json, …)")

    def handle(self, *args: Any, **options: Any) -> None:
        rounds: int = options["rounds"]
        game_rounds: int = options["game_rounds"]
        if rounds < 1 or game_rounds < 1:
            raise CommandError("--rounds and --game-rounds must be at least 1")
        strategies = self._seats(options["seat"])
        seed: str = options["seed"]
        out = Path(options["out"]) if options["out"] else None
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)
        times: dict[str, list[float]] = {name: [] for name in sorted(set(strategies))}
        results: list[dict[str, Any]] = []
        for index in range(math.ceil(rounds / game_rounds)):
            played = play_game(
                strategies=strategies,
                rounds=min(game_rounds, rounds - index * game_rounds),
                seed=f"{seed}:{index + 1}",
                timer=lambda name, seconds, _choices: times[name].append(seconds),
            )
            if out is not None:
                path = out / f"game-{index + 1:04d}.json"
                path.write_text(json.dumps(played.record, indent=1) + "\n", encoding="utf-8")
                # What the file holds must replay to what the table reached (R39 via R31).
                if replay_record(json.loads(path.read_text(encoding="utf-8"))) != played.result:
                    raise CommandError(f"{path} does not replay to the result of its play")
            results.append(played.result)
        summary = {
            "seed": seed,
            "game_rounds": game_rounds,
            **summarise(results, strategies),
            "ms_per_move": {
                name: {
                    "moves": len(values),
                    "p50": _ms(percentile(values, 0.5)),
                    "p99": _ms(percentile(values, 0.99)),
                    "max": _ms(max(values, default=None)),
                }
                for name, values in times.items()
            },
        }
        self.stdout.write(json.dumps(summary, indent=1))

    def _seats(self, specs: list[str]) -> list[str]:
        strategies = [DEFAULT_STRATEGY] * SEATS
        for spec in specs:
            seat, _, name = spec.partition("=")
            if seat not in {str(s) for s in range(SEATS)} or name not in STRATEGIES:
                raise CommandError(
                    f"--seat {spec!r}: write N=STRATEGY with N 0-4 and STRATEGY one of "
                    f"{', '.join(sorted(STRATEGIES))}"
                )
            strategies[int(seat)] = name
        return strategies


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 3)
