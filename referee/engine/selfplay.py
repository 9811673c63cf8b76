"""Games played by computer seats from a digital deal (R39), written as records, and their figures.

``play_game`` deals at random (seeded, R4), declares every hand (R31) so the
referee checks each move against it, lets each seat's strategy choose
(``referee.engine.strategies``) and returns a ``domeng-record/1`` record that
``replay_record`` replays to the same result. ``summarise`` turns the
results of many games into figures per seat: mean stones held after a round
with a 95 % confidence interval, rounds won and the named outcomes.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from referee.engine.game import Game
from referee.engine.moves import Move, Play
from referee.engine.records import RECORD_FORMAT, result_of
from referee.engine.rules import DEFAULT_RULES, RuleSet
from referee.engine.simulation import deal_hands
from referee.engine.strategies import STRATEGIES, SeatView, choose, decision_rng, observe
from referee.engine.tiles import SEATS, Tile

Z_95 = statistics.NormalDist().inv_cdf(0.975)
"""The normal quantile of a two-sided 95 % interval (≈ 1.96)."""

T_95 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip
"""Student's t quantile of a two-sided 95 % interval for 1–30 degrees of freedom."""

DecisionTimer = Callable[[str, float, int], None]
"""Told each decision's strategy name, its time in seconds and how many legal moves it
chose from (``play_game``'s ``timer``; 1 for a forced move)."""


Seer = Callable[[SeatView, Sequence[frozenset[Tile]], random.Random], Move]
"""A yardstick player for measurements only (never a live seat): told the seat's view and
every seat's unplayed tiles 0–4 (``play_game``'s ``seers``)."""


@dataclass(frozen=True)
class PlayedGame:
    """A self-played game: its ``domeng-record/1`` record and the ``domeng-result/1`` the
    referee reached while it was played (``replay_record(record)`` gives it again)."""

    record: dict[str, Any]
    result: dict[str, Any]


def play_game(
    *,
    strategies: Sequence[str],
    rounds: int,
    seed: object,
    rules: RuleSet = DEFAULT_RULES,
    players: Sequence[str] | None = None,
    timer: DecisionTimer | None = None,
    seers: Mapping[str, Seer] | None = None,
    cpu_timer: DecisionTimer | None = None,
) -> PlayedGame:
    """A game of ``rounds`` whole rounds with seat s played by ``strategies[s]`` (five
    names of ``STRATEGIES``), as its record and result.

    The deal and every decision follow from ``seed`` alone (``decision_rng``
    of the seed, the round and the move), so the same arguments give the
    same record. Every hand is declared (R31), so a blocked round needs no
    reveal and every move is judged against its seat's hand as it is pushed.
    ``cpu_timer``: as ``timer``, with each decision's CPU time (this
    thread's: steadier than the clock on a shared machine). ``seers``: more
    names, of players that see every hand (the strength ladder's yardsticks;
    a live seat never does, R39). Raises ``ValueError`` for a wrong number of
    seats or an unknown strategy.
    """
    seers = seers or {}
    known = STRATEGIES.keys() | seers.keys()
    if len(strategies) != SEATS or any(name not in known for name in strategies):
        raise ValueError(f"need five strategies of {sorted(STRATEGIES)}, got {list(strategies)}")
    deal_rng = random.Random(f"{seed}:deal")
    game = Game(rules)
    record_rounds: list[dict[str, Any]] = []
    for number in range(1, rounds + 1):
        hands = deal_hands(deal_rng, rules, first=number == 1)
        for s in range(SEATS):
            game.declare(s, sorted(hands[s]))
        data: dict[str, Any] = {
            "hands": {str(s): [str(t) for t in sorted(hands[s])] for s in range(SEATS)},
            "moves": [],
        }
        current = game.rounds[-1].round
        leader = game.expected_leader()
        if leader is None:  # R5: the holder of the first listed double dealt leads it
            double = next(d for d in rules.first_lead_doubles if any(d in h for h in hands))
            leader = next(s for s in range(SEATS) if double in hands[s])
        seat: int | None = leader
        while seat is not None:
            view = observe(game, seat, hands[seat])
            started, started_cpu = time.perf_counter(), time.thread_time()
            rng = decision_rng(seed, number, len(current.moves))
            name = strategies[seat]
            if name in seers:
                move = seers[name](view, [frozenset(h) for h in hands], rng)
            else:
                move = choose(name, view, rng)
            if timer is not None:
                timer(name, time.perf_counter() - started, len(view.legal_moves()))
            if cpu_timer is not None:
                cpu_timer(name, time.thread_time() - started_cpu, len(view.legal_moves()))
            game.push(move)
            data["moves"].append(move.to_dict())
            if isinstance(move, Play):
                hands[seat].discard(move.tile)
            seat = current.turn
        record_rounds.append(data)
    record = {
        "format": RECORD_FORMAT,
        "players": list(players or [f"{name} {s}" for s, name in enumerate(strategies)]),
        "rules": None if rules == DEFAULT_RULES else rules.to_dict(),
        "rounds": record_rounds,
    }
    return PlayedGame(record, result_of(game))


def interval(values: Sequence[float]) -> dict[str, float | int | None]:
    """Mean of ``values`` with a 95 % confidence interval (Student's t; normal beyond 31 values).

    ``{"mean", "low", "high", "n"}``; ``mean`` is ``None`` without values,
    ``low``/``high`` are ``None`` for fewer than two.
    """
    n = len(values)
    if n < 2:
        return {"mean": values[0] if values else None, "low": None, "high": None, "n": n}
    mean = statistics.fmean(values)
    quantile = T_95[n - 2] if n - 1 <= len(T_95) else Z_95
    half = quantile * statistics.stdev(values) / math.sqrt(n)
    return {"mean": mean, "low": mean - half, "high": mean + half, "n": n}


def mean_stones_held(result: dict[str, Any]) -> list[float] | None:
    """Per seat 0–4, the mean stones held after each settled round of one game's
    ``domeng-result/1`` (R22–R25); ``None`` when no round is settled."""
    settled = [r for r in result["rounds"] if r["winner"] is not None]
    if not settled:
        return None
    return [statistics.fmean(r["after"]["stones"][s] for r in settled) for s in range(SEATS)]


def advantage(means: Sequence[float], seat: int) -> float:
    """``seat``'s mean stones held minus the other four seats' mean (negative: it does better)."""
    return means[seat] - statistics.fmean(m for s, m in enumerate(means) if s != seat)


def summarise(results: Sequence[dict[str, Any]], strategies: Sequence[str]) -> dict[str, Any]:
    """Figures per seat over the ``domeng-result/1`` results of independent games.

    For each seat 0–4: its strategy; ``stones_held``, the mean stones it held
    after a round (R22–R25) with a 95 % interval taken over the games' means
    (rounds of one game are not independent: stones carry over, R27);
    ``advantage``, the same for its stones held minus the other four seats'
    mean; and counts of ``rounds_won``, ``ceki`` and ``pollo`` (rounds it won
    so, R15/R16), ``manguno`` (R17), ``mattikkeng`` (R19) and ``camat``
    (elections, R24).
    """
    per_game: list[list[float]] = [[] for _ in range(SEATS)]
    per_game_advantage: list[list[float]] = [[] for _ in range(SEATS)]
    counts = [
        dict.fromkeys(("rounds_won", "ceki", "pollo", "manguno", "mattikkeng", "camat"), 0)
        for _ in range(SEATS)
    ]
    rounds = 0
    for result in results:
        for data in result["rounds"]:
            if data["winner"] is None:
                continue
            rounds += 1
            counts[data["winner"]]["rounds_won"] += 1
            if data["finish"] in ("ceki", "pollo"):
                counts[data["winner"]][data["finish"]] += 1
            if data["manguno"] is not None:
                counts[data["manguno"]]["manguno"] += 1
            for seat in data["mattikkeng"]:
                counts[seat]["mattikkeng"] += 1
            if data["camat_elected"] is not None:
                counts[data["camat_elected"]]["camat"] += 1
        means = mean_stones_held(result)
        if means is None:
            continue
        for seat in range(SEATS):
            per_game[seat].append(means[seat])
            per_game_advantage[seat].append(advantage(means, seat))
    return {
        "games": len(results),
        "rounds": rounds,
        "seats": [
            {
                "seat": seat,
                "strategy": strategies[seat],
                "stones_held": interval(per_game[seat]),
                "advantage": interval(per_game_advantage[seat]),
                **counts[seat],
            }
            for seat in range(SEATS)
        ],
    }
