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
from collections.abc import Callable, Sequence
from typing import Any

from referee.engine.game import Game
from referee.engine.moves import Play
from referee.engine.records import RECORD_FORMAT
from referee.engine.rules import DEFAULT_RULES, RuleSet
from referee.engine.simulation import _deal
from referee.engine.strategies import STRATEGIES, choose, decision_rng, observe
from referee.engine.tiles import SEATS

Z_95 = statistics.NormalDist().inv_cdf(0.975)
"""The normal quantile of a two-sided 95 % interval (≈ 1.96)."""

DecisionTimer = Callable[[str, float], None]
"""Told each decision's strategy name and its time in seconds (``play_game``'s ``timer``)."""


def play_game(
    *,
    strategies: Sequence[str],
    rounds: int,
    seed: object,
    rules: RuleSet = DEFAULT_RULES,
    players: Sequence[str] | None = None,
    timer: DecisionTimer | None = None,
) -> dict[str, Any]:
    """A ``domeng-record/1`` record of ``rounds`` whole rounds with seat s played by
    ``strategies[s]`` (five names of ``STRATEGIES``).

    The deal and every decision follow from ``seed`` alone (``decision_rng``
    of the seed, the round and the move), so the same arguments give the
    same record. Every hand is declared (R31), so a blocked round needs no
    reveal and every move is judged against its seat's hand as it is pushed.
    Raises ``ValueError`` for a wrong number of seats or an unknown strategy.
    """
    if len(strategies) != SEATS or any(name not in STRATEGIES for name in strategies):
        raise ValueError(f"need five strategies of {sorted(STRATEGIES)}, got {list(strategies)}")
    deal_rng = random.Random(f"{seed}:deal")
    game = Game(rules)
    record_rounds: list[dict[str, Any]] = []
    for number in range(1, rounds + 1):
        hands = _deal(deal_rng, rules, first=number == 1)
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
            started = time.perf_counter()
            move = choose(strategies[seat], view, decision_rng(seed, number, len(current.moves)))
            if timer is not None:
                timer(strategies[seat], time.perf_counter() - started)
            game.push(move)
            data["moves"].append(move.to_dict())
            if isinstance(move, Play):
                hands[seat].discard(move.tile)
            seat = current.turn
        record_rounds.append(data)
    return {
        "format": RECORD_FORMAT,
        "players": list(players or [f"{name} {s}" for s, name in enumerate(strategies)]),
        "rules": None if rules == DEFAULT_RULES else rules.to_dict(),
        "rounds": record_rounds,
    }


def interval(values: Sequence[float]) -> dict[str, float | int | None]:
    """Mean of ``values`` with a 95 % confidence interval (normal approximation).

    ``{"mean", "low", "high", "n"}``; ``low``/``high`` are ``None`` for fewer
    than two values.
    """
    n = len(values)
    mean = statistics.fmean(values) if values else math.nan
    if n < 2:
        return {"mean": mean, "low": None, "high": None, "n": n}
    half = Z_95 * statistics.stdev(values) / math.sqrt(n)
    return {"mean": mean, "low": mean - half, "high": mean + half, "n": n}


def summarise(results: Sequence[dict[str, Any]], strategies: Sequence[str]) -> dict[str, Any]:
    """Figures per seat over the ``domeng-result/1`` results of independent games.

    For each seat 0–4: its strategy, ``stones_held`` — the mean stones it
    held after a round (R22–R25), with a 95 % interval taken over the games'
    means (rounds of one game are not independent: stones carry over, R27) —
    and ``rounds_won``, ``ceki``, ``pollo`` (rounds it won so, R15/R16),
    ``manguno`` (R17), ``mattikkeng`` (R19) and ``camat`` (elections, R24)
    counts. ``advantage`` is, per seat, the mean over games of its stones
    held minus the other four seats' mean (negative: it does better).
    """
    per_game: list[list[float]] = [[] for _ in range(SEATS)]
    per_game_advantage: list[list[float]] = [[] for _ in range(SEATS)]
    counts = [
        dict.fromkeys(("rounds_won", "ceki", "pollo", "manguno", "mattikkeng", "camat"), 0)
        for _ in range(SEATS)
    ]
    rounds = 0
    for result in results:
        held = [0.0] * SEATS
        game_rounds = [r for r in result["rounds"] if r["winner"] is not None]
        for data in game_rounds:
            rounds += 1
            for seat in range(SEATS):
                held[seat] += data["after"]["stones"][seat]
                counts[seat]["mattikkeng"] += seat in data["mattikkeng"]
            counts[data["winner"]]["rounds_won"] += 1
            if data["finish"] in ("ceki", "pollo"):
                counts[data["winner"]][data["finish"]] += 1
            if data["manguno"] is not None:
                counts[data["manguno"]]["manguno"] += 1
            if data["camat_elected"] is not None:
                counts[data["camat_elected"]]["camat"] += 1
        if not game_rounds:
            continue
        means = [h / len(game_rounds) for h in held]
        for seat in range(SEATS):
            per_game[seat].append(means[seat])
            others = [means[s] for s in range(SEATS) if s != seat]
            per_game_advantage[seat].append(means[seat] - statistics.fmean(others))
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
