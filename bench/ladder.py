"""The strength ladder of the computer seats' strategies (R39), in the rules core alone.

Each rung puts one strategy in one seat against a field of four others — four
``random``, four ``greedy``, a mixed table (``greedy`` and ``random`` in turn
after the tested seat) or four ``strong`` — over games of ``game_rounds``
rounds dealt from the run's seed (``referee.engine.selfplay``), the tested
seat moving round the table from game to game (seat g mod 5), so no seat's
place in the turn order favours it. Deals are paired: game g of a field is
dealt the same for every tested strategy, so ``greedy``, ``strong`` and the
``omniscient`` yardstick (``bench.omniscient``: it sees every hand) are
compared on the same tiles, and the differences between them per game have
far less noise than the rungs themselves. A game's figure is the tested
seat's mean stones held after a round minus the other four seats' mean
(negative: it does better); the rung reports the mean over games with a 95 %
interval (games are independent; rounds of one game are not, R27). Every
game's record is replayed (``replay_record``) and must give the result its
play reached. The tested strategy's time per move is measured around each
decision (p50/p99 over all its moves and over those with a choice), on the
clock and in CPU time (the machine is shared: the clock counts others' work).
"""

from __future__ import annotations

import functools
import math
import os
import random
import statistics
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bench.informed import seer
from bench.omniscient import omniscient
from bench.report import percentile
from referee.engine.moves import Move
from referee.engine.records import replay_record
from referee.engine.selfplay import (
    Z_95,
    Seer,
    advantage,
    interval,
    mean_stones_held,
    play_game,
)
from referee.engine.strategies import SeatView, StrongConfig, strong_with
from referee.engine.tiles import SEATS, Tile

FIELDS: dict[str, tuple[str, str, str, str]] = {
    "random": ("random",) * 4,
    "greedy": ("greedy",) * 4,
    "mixed": ("greedy", "random", "greedy", "random"),
    "strong": ("strong",) * 4,
}
"""Each field's four seats, clockwise from the seat after the tested one."""

RUNGS = (
    ("greedy", "random"),
    ("strong", "random"),
    ("greedy", "greedy"),
    ("strong", "greedy"),
    ("omniscient", "greedy"),
    ("greedy", "mixed"),
    ("strong", "mixed"),
    ("greedy", "strong"),
    ("strong", "strong"),
)
"""(tested strategy, field), bottom rung first; every field has a ``greedy`` rung to pair."""

ABLATION = {
    "strong-no-inference": StrongConfig(infer_plays=False),
    "strong-no-own-search": StrongConfig(search_own=False),
    "strong-own-stones": StrongConfig(relative=False),
    "strong-seat-by-seat": StrongConfig(exact=False),
}
"""``strong`` with one part off (``BENCH_LADDER_ABLATION=1``: each against four greedy)."""


def _ablated(config: StrongConfig) -> Seer:
    return functools.partial(_without_hands, config)


def _without_hands(
    config: StrongConfig, view: SeatView, hands: Sequence[frozenset[Tile]], rng: random.Random
) -> Move:
    return strong_with(config, view, rng)  # ``hands`` unused: it sees what its seat may know


INFORMED: dict[str, Seer] = {
    "strong-told-sleeping": seer(StrongConfig(), sleeping=True),
    "strong-told-next": seer(StrongConfig(), seats=(1,)),
    "strong-told-previous": seer(StrongConfig(), seats=(4,)),
    "strong-told-sleeping-next": seer(StrongConfig(), sleeping=True, seats=(1,)),
    "strong-told-two": seer(StrongConfig(), seats=(1, 4)),
    "strong-told-three": seer(StrongConfig(), seats=(1, 2, 3)),
    "strong-told-hands": seer(StrongConfig(), seats=(1, 2, 3, 4)),
}
"""``strong`` told the sleeping tiles, some of the other hands (by their places after it),
both, or every hand (``bench.informed``; told three hands, all it lacks is which of what is
left the fourth seat holds and which sleep): the rungs between it and the omniscient seat
(``bench.trials``)."""

SEERS: dict[str, Seer] = {
    "omniscient": omniscient,
    **{name: _ablated(config) for name, config in ABLATION.items()},
    **INFORMED,
}
"""The ladder's players that are not live strategies, by name."""

MAX_MS_PER_MOVE = 200.0
"""The strong strategy's budget per move (R39 issue: at most 200 ms on this machine)."""


def _game(task: tuple[str, str, int, int, int]) -> dict[str, Any]:
    """One game of a rung: the tested seat's figures and decision times."""
    tested, field, index, rounds, seed = task
    seat = index % SEATS
    strategies = [tested] * SEATS
    for k, name in enumerate(FIELDS[field], start=1):
        strategies[(seat + k) % SEATS] = name
    times: list[float] = []
    chosen: list[float] = []

    def timer(name: str, seconds: float, choices: int) -> None:
        if name == tested:
            times.append(seconds)
            if choices > 1:
                chosen.append(seconds)

    cpu: list[float] = []

    def cpu_timer(name: str, seconds: float, choices: int) -> None:
        if name == tested and choices > 1:
            cpu.append(seconds)

    played = play_game(
        strategies=strategies,
        rounds=rounds,
        seed=f"ladder:{seed}:{field}:{index}",  # the field's deals: paired across the tested
        timer=timer,
        cpu_timer=cpu_timer,
        seers=SEERS,
    )
    means = mean_stones_held(played.result)
    assert means is not None
    return {
        "advantage": advantage(means, seat),
        "held": means[seat],
        "others_held": (sum(means) - means[seat]) / (SEATS - 1),
        "replays": replay_record(played.record) == played.result,
        "times": times,
        "chosen": chosen,
        "cpu": cpu,
    }


def rung(
    tested: str, field: str, *, rounds: int, game_rounds: int, seed: int, jobs: int
) -> dict[str, Any]:
    """One rung: ``tested`` in one seat against four ``field``, over ``rounds`` rounds."""
    started = time.perf_counter()
    games = math.ceil(rounds / game_rounds)
    tasks = [(tested, field, index, game_rounds, seed) for index in range(games)]
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            done = list(pool.map(_game, tasks, chunksize=max(1, games // (jobs * 8))))
    else:
        done = [_game(task) for task in tasks]
    times = [t for game in done for t in game["times"]]
    chosen = [t for game in done for t in game["chosen"]]
    cpu = [t for game in done for t in game["cpu"]]
    return {
        "tested": tested,
        "field": field,
        "per_game": [g["advantage"] for g in done],
        "games": games,
        "rounds": games * game_rounds,
        "advantage": interval([g["advantage"] for g in done]),
        "held": interval([g["held"] for g in done]),
        "others_held": interval([g["others_held"] for g in done]),
        "replays_equal": sum(g["replays"] for g in done),
        "moves": len(times),
        "moves_with_a_choice": len(chosen),
        "ms_per_move": {
            "p50": percentile(times, 0.5) * 1e3,
            "p99": percentile(times, 0.99) * 1e3,
            "max": max(times, default=math.nan) * 1e3,
        },
        "ms_per_move_with_a_choice": {
            "p50": percentile(chosen, 0.5) * 1e3,
            "p99": percentile(chosen, 0.99) * 1e3,
            "max": max(chosen, default=math.nan) * 1e3,
        },
        "cpu_ms_per_move_with_a_choice": {
            "p50": percentile(cpu, 0.5) * 1e3,
            "p99": percentile(cpu, 0.99) * 1e3,
            "max": max(cpu, default=math.nan) * 1e3,
        },
        "seconds": time.perf_counter() - started,
    }


def paired(tested: list[float], greedy: list[float]) -> dict[str, float | int | None]:
    """The mean per-game difference ``tested − greedy`` on the same deals, with its 95 % CI."""
    return interval([t - g for t, g in zip(tested, greedy, strict=True)])


def gap_closed(strong: list[float], greedy: list[float], best: list[float]) -> dict[str, Any]:
    """The share of the greedy-to-``best`` gap that ``strong`` closes, with a 95 % interval.

    Per game (paired deals), ``d = strong − greedy`` and ``e = best − greedy``;
    the share is mean(d) / mean(e), its interval the delta method's (the
    per-game residuals ``d − share·e``), normal over the games.
    """
    n = len(strong)
    d = [s - g for s, g in zip(strong, greedy, strict=True)]
    e = [b - g for b, g in zip(best, greedy, strict=True)]
    if n < 2 or statistics.fmean(e) == 0:
        return {"share": None, "low": None, "high": None, "n": n}
    share = statistics.fmean(d) / statistics.fmean(e)
    residual = [x - share * y for x, y in zip(d, e, strict=True)]
    half = Z_95 * statistics.stdev(residual) / math.sqrt(n) / abs(statistics.fmean(e))
    return {"share": share, "low": share - half, "high": share + half, "n": n}


def run(
    *, rounds: int, game_rounds: int, seed: int, jobs: int = 0, ablation: bool = False
) -> dict[str, Any]:
    """Every rung of the ladder, the paired comparisons and the gap closed; ``jobs``
    processes (0: one per core); ``ablation``: also each part of ``strong`` switched off."""
    jobs = jobs or os.cpu_count() or 1
    load_before = " ".join(f"{v:.2f}" for v in os.getloadavg())
    plan = list(RUNGS) + ([(name, "greedy") for name in ABLATION] if ablation else [])
    rungs = [
        rung(tested, field, rounds=rounds, game_rounds=game_rounds, seed=seed, jobs=jobs)
        for tested, field in plan
    ]
    games = {(r["tested"], r["field"]): r.pop("per_game") for r in rungs}
    compared = [
        {"tested": tested, "field": field, "minus_greedy": paired(per_game, games["greedy", field])}
        for (tested, field), per_game in games.items()
        if tested != "greedy" and ("greedy", field) in games
    ]
    out: dict[str, Any] = {
        "game_rounds": game_rounds,
        "jobs": jobs,
        "max_ms_per_move": MAX_MS_PER_MOVE,
        "load_average": [load_before, " ".join(f"{v:.2f}" for v in os.getloadavg())],
        "rungs": rungs,
        "paired": compared,
    }
    if all(key in games for key in (("strong", "greedy"), ("omniscient", "greedy"))):
        out["gap_closed"] = gap_closed(
            games["strong", "greedy"], games["greedy", "greedy"], games["omniscient", "greedy"]
        )
        out["ablation"] = {
            name: gap_closed(
                games[name, "greedy"], games["greedy", "greedy"], games["omniscient", "greedy"]
            )
            for name in ABLATION
            if (name, "greedy") in games
        }
    return out
