"""Random legal games: real deals played by the rules, written as records.

Used by the property tests, the demo and the benchmarks. Unlike the
referee, the simulation knows every hand: each seat plays a random tile that
matches an open end if it holds one (R8) and passes otherwise (R9).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from referee.engine.game import Game
from referee.engine.records import RECORD_FORMAT
from referee.engine.rules import DEFAULT_RULES, RuleSet
from referee.engine.tiles import ALL_TILES, SEATS, TILES_PER_HAND, Tile

PLAYERS = ("Andi", "Besse", "Cakra", "Daeng", "Evi")


def spell(tile: Tile, rng: random.Random) -> str:
    """Write ``tile`` in one of the spellings R1 accepts, halves in either order."""
    a, b = (tile.low, tile.high) if rng.random() < 0.5 else (tile.high, tile.low)
    return rng.choice((f"{a}-{b}", f"{a}|{b}", f"[{a}|{b}]"))


def random_record(
    rng: random.Random,
    *,
    rounds: int,
    rules: RuleSet = DEFAULT_RULES,
    declare_probability: float = 0.0,
    pips_probability: float = 0.3,
    mixed_spellings: bool = False,
    finish_last_round: bool = True,
) -> dict[str, Any]:
    """A ``domeng-record/1`` record of ``rounds`` rounds of random legal play.

    Each seat declares its hand with ``declare_probability`` (R31); at a
    blocked round each undeclared seat gives its pip sum with
    ``pips_probability`` and otherwise reveals its tiles (R18). With
    ``finish_last_round`` false the last round stops at a random move.
    The record is replayed as it is built, so it is legal by construction.
    """
    game = Game(rules)
    record_rounds: list[dict[str, Any]] = []

    def write(tile: Tile) -> str:
        return spell(tile, rng) if mixed_spellings else str(tile)

    for number in range(1, rounds + 1):
        hands = deal_hands(rng, rules, first=number == 1)
        data: dict[str, Any] = {"moves": []}
        declared = {s: hands[s] for s in range(SEATS) if rng.random() < declare_probability}
        if declared:
            data["hands"] = {str(s): [write(t) for t in sorted(h)] for s, h in declared.items()}
            for seat, hand in declared.items():
                game.declare(seat, sorted(hand))
        stop_after = rng.randrange(1, 30) if number == rounds and not finish_last_round else None
        leader = game.expected_leader()
        if leader is None:  # R5: the holder of the highest listed double leads it
            double = next(d for d in rules.first_lead_doubles if any(d in h for h in hands))
            leader = next(s for s in range(SEATS) if double in hands[s])
            lead = double
        else:
            lead = rng.choice(sorted(hands[leader]))
        moves: list[dict[str, Any]] = data["moves"]
        push = _pusher(game, moves)
        push({"seat": leader, "tile": write(lead)})
        hands[leader].discard(lead)
        current = game.rounds[-1].round
        while not current.is_over() and (stop_after is None or len(moves) < stop_after):
            turn = current.turn
            assert turn is not None and current.ends is not None
            playable = sorted(t for t in hands[turn] if t.carries_any(current.ends))
            if not playable:
                push({"seat": turn, "pass": True})
                continue
            tile = rng.choice(playable)
            ends = sorted({v for v in current.ends if tile.carries(v)})
            on = rng.choice(ends)
            move: dict[str, Any] = {"seat": turn, "tile": write(tile)}
            if len(ends) == 2 or rng.random() < 0.3:
                move["on"] = on  # required when the tile fits two different ends (R11)
            push(move)
            hands[turn].discard(tile)
        if current.is_waiting_for_reveals():
            reveal: dict[str, list[str]] = {}
            pips: dict[str, int] = {}
            for seat in range(SEATS):
                if seat in declared and rng.random() < 0.5:
                    continue  # its remainder is known from the declared hand (R31)
                if rng.random() < pips_probability:
                    pips[str(seat)] = sum(t.pips for t in hands[seat])
                    game.reveal(seat, pips=pips[str(seat)])
                else:
                    reveal[str(seat)] = [write(t) for t in sorted(hands[seat])]
                    game.reveal(seat, tiles=reveal[str(seat)])
            if reveal:
                data["reveal"] = reveal
            if pips:
                data["pips"] = pips
        record_rounds.append(data)
    return {
        "format": RECORD_FORMAT,
        "players": list(PLAYERS),
        "rules": None if rules == DEFAULT_RULES else rules.to_dict(),
        "rounds": record_rounds,
    }


def _pusher(game: Game, moves: list[dict[str, Any]]) -> Callable[[dict[str, Any]], None]:
    """Push a move to ``game`` and, once accepted, write it into ``moves``."""

    def push(move: dict[str, Any]) -> None:
        game.push(move)
        moves.append(move)

    return push


def deal_hands(rng: random.Random, rules: RuleSet, *, first: bool) -> list[set[Tile]]:
    """Five hands of five (R4); for a first round, one that holds a first-lead double (R5)."""
    while True:
        tiles = list(ALL_TILES)
        rng.shuffle(tiles)
        hands = [set(tiles[i * TILES_PER_HAND : (i + 1) * TILES_PER_HAND]) for i in range(SEATS)]
        if not first:
            return hands
        dealt = [d for d in rules.first_lead_doubles if any(d in h for h in hands)]
        if dealt and rules.first_lead_doubles.index(dealt[0]) <= 3:
            return hands
