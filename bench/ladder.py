"""The strength ladder of the computer seats' strategies (R39), in the rules core alone.

Each rung puts one strategy in one seat against four of another — ``greedy``
against four ``random``, ``strong`` against four ``greedy`` — over games of
``game_rounds`` rounds dealt from the run's seed (``referee.engine.selfplay``),
the tested seat moving round the table from game to game (seat g mod 5), so
no seat's place in the turn order favours it. A game's figure is the tested
seat's mean stones held after a round minus the other four seats' mean
(negative: it does better); the rung reports the mean over games with a 95 %
interval (games are independent; rounds of one game are not, R27). Every
game's record is replayed (``replay_record``) and must give the result its
play reached. The tested strategy's time per move is measured around each
decision (p50/p99 over all its moves and over those with a choice).
"""

from __future__ import annotations

import math
import os
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bench.report import percentile
from referee.engine.records import replay_record
from referee.engine.selfplay import advantage, interval, mean_stones_held, play_game
from referee.engine.tiles import SEATS

RUNGS = (("greedy", "random"), ("strong", "greedy"))
"""(tested strategy, the other four seats' strategy), bottom rung first."""

MAX_MS_PER_MOVE = 200.0
"""The strong strategy's budget per move (R39 issue: at most 200 ms on this machine)."""


def _game(task: tuple[str, str, int, int, int]) -> dict[str, Any]:
    """One game of a rung: the tested seat's figures and decision times."""
    tested, field, index, rounds, seed = task
    seat = index % SEATS
    strategies = [field] * SEATS
    strategies[seat] = tested
    times: list[float] = []
    chosen: list[float] = []

    def timer(name: str, seconds: float, choices: int) -> None:
        if name == tested:
            times.append(seconds)
            if choices > 1:
                chosen.append(seconds)

    played = play_game(
        strategies=strategies, rounds=rounds, seed=f"ladder:{seed}:{tested}:{index}", timer=timer
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
    return {
        "tested": tested,
        "field": field,
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
        "seconds": time.perf_counter() - started,
    }


def run(*, rounds: int, game_rounds: int, seed: int, jobs: int = 0) -> dict[str, Any]:
    """Every rung of the ladder; ``jobs`` processes (0: one per core)."""
    jobs = jobs or os.cpu_count() or 1
    load_before = " ".join(f"{v:.2f}" for v in os.getloadavg())
    rungs = [
        rung(tested, field, rounds=rounds, game_rounds=game_rounds, seed=seed, jobs=jobs)
        for tested, field in RUNGS
    ]
    return {
        "game_rounds": game_rounds,
        "jobs": jobs,
        "max_ms_per_move": MAX_MS_PER_MOVE,
        "load_average": [load_before, " ".join(f"{v:.2f}" for v in os.getloadavg())],
        "rungs": rungs,
    }
