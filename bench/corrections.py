"""Corrections of round 1 of a 40-round game on PostgreSQL (issue 9, R35–R37).

A club game of ``ROUNDS`` rounds (``random_record``, the first seed from
``SEED_FROM`` whose round 1 can be voided with every later round staying
legal) is imported through the API, its round 1 carrying a mistake: a double
of round 1 (not the lead) entered as a pass, the mistake the table makes most
(a double keeps the open ends, so the mistaken game stays legal to its end).
Then, ``repeat`` times, the organiser corrects round 1 over the API (Django's
test ``Client``: the whole middleware and DRF stack, no HTTP server) with a DRF
token, each correction timed (wall clock, and this process's CPU time: the
web stack's and the referee's work without PostgreSQL's, steadier on a busy
machine) and its SQL queries counted (``CaptureQueriesContext``):

- ``amend``: ``POST …/corrections/`` with one change, the pass amended to the
  double; then the double amended back to the pass (both timed);
- ``batch``: ``POST …/corrections/`` with two changes of round 1, the pass
  amended to the double and another tile of round 1 spelt anew; then both back;
- ``void``: ``POST …/rounds/1/void/``; then ``POST …/corrections/`` removing
  the void (both timed).

Every correction must be accepted, and after each one the game's result
(``GET …/result/``) must equal a replay of its exported record (``GET
…/record/``) and of the record the bench expects, and the league's rows
(``SeatRound``) those of that replay: a failure fails the run.
"""

from __future__ import annotations

import copy
import random
import statistics
import time
from typing import Any

ROUNDS = 40
SEED_FROM = 73
SEED_TRIES = 2000
REASON = "bench: a correction of round 1"
KINDS = ("amend", "amend back", "batch", "batch back", "void", "unvoid")


def game_record(*, rounds: int = ROUNDS, seed_from: int = SEED_FROM) -> tuple[int, dict[str, Any]]:
    """The first ``random_record`` from ``seed_from`` on whose round 1 may be voided (R35)
    with every later round still legal (its round 2 led with 6-6 as a first lead, R5)."""
    from referee.engine import RefereeError
    from referee.engine.records import Record, replay
    from referee.engine.simulation import random_record
    from referee.engine.tiles import Tile

    double_six = Tile.parse("6-6")
    for seed in range(seed_from, seed_from + SEED_TRIES):
        record = random_record(random.Random(seed), rounds=rounds)
        lead = record["rounds"][1]["moves"][0]
        if "tile" not in lead or Tile.parse(lead["tile"]) != double_six:
            continue
        voided = copy.deepcopy(record)
        voided["rounds"][0]["void"] = {"reason": REASON}
        try:
            replay(Record.parse(voided))
        except RefereeError:
            continue
        return seed, record
    raise SystemExit(f"bench: no record from seed {seed_from} on has a voidable round 1")


def mistake(record: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, Any]]:
    """The index of a double of round 1 (not the lead) that may be entered as a pass with the
    game staying legal, that move, and the mistaken record."""
    from referee.engine import RefereeError
    from referee.engine.records import Record, replay
    from referee.engine.tiles import Tile

    for index, move in enumerate(record["rounds"][0]["moves"]):
        if index == 0 or "tile" not in move:
            continue
        tile = Tile.parse(move["tile"])
        if tile.low != tile.high:
            continue
        mistaken = copy.deepcopy(record)
        mistaken["rounds"][0]["moves"][index] = {"seat": move["seat"], "pass": True}
        try:
            replay(Record.parse(mistaken))
        except RefereeError:
            continue
        return index, move, mistaken
    raise LookupError("no double of round 1 can be entered as a pass")


def _respelt(move: dict[str, Any]) -> dict[str, Any]:
    """The same play with its tile spelt another way (``a-b`` ↔ ``a|b``): a change of the
    event as entered that the rules judge the same."""
    tile = move["tile"]
    other = tile.replace("-", "|") if "-" in tile else tile.replace("|", "-").strip("[]")
    return {**move, "tile": other}


def _summary(times: list[float], cpu: list[float], queries: list[int]) -> dict[str, Any]:
    return {
        "n": len(times),
        "mean_ms": statistics.fmean(times) * 1000,
        "cpu_mean_ms": statistics.fmean(cpu) * 1000,
        "p50_ms": statistics.median(times) * 1000,
        "max_ms": max(times) * 1000,
        "queries": max(queries),
        "queries_each": sorted(set(queries)),
    }


def run(*, repeat: int, token: str, seed_from: int = SEED_FROM) -> dict[str, Any]:
    """Import the game, correct its round 1 ``repeat`` times each way; times and queries."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from rest_framework.authtoken.models import Token

    from referee import folding
    from referee.engine.records import Record, replay_record
    from referee.services.verification import without_verification
    from scoring import services as league
    from scoring.lines import game_lines
    from scoring.models import SeatRound

    user = Token.objects.get(key=token).user
    assert isinstance(user, get_user_model())
    club = league.club_create(name="Bench corrections", slug="bench-corrections", created_by=user)
    players = [
        league.player_create(club=club, display_name=name, by=user).pk
        for name in ("Andi", "Besse", "Cakra", "Daeng", "Evi")
    ]
    seed, true_record = game_record(seed_from=seed_from)
    index, double, mistaken = mistake(true_record)
    # Production's settings redirect plain HTTP: the TLS proxy's header, as the load sends it.
    client = Client(HTTP_AUTHORIZATION=f"Token {token}", HTTP_X_FORWARDED_PROTO="https")
    api = "/api/v1/games"
    answer = client.post(
        f"{api}/import/?club={club.slug}",
        {"record": mistaken, "players": players},
        content_type="application/json",
    )
    if answer.status_code != 201:
        raise SystemExit(f"bench: the import failed: {answer.status_code} {answer.content[:300]!r}")
    game = answer.json()["id"]
    events = client.get(f"{api}/{game}/events/", {"page_size": 500}).json()["events"]
    round_1 = [e for e in events if e["round"] == 1 and e["kind"] == "move"]
    position = round_1[index]["position"]
    other = next(i for i, m in enumerate(mistaken["rounds"][0]["moves"]) if i and "tile" in m)
    other_position = round_1[other]["position"]
    other_move = mistaken["rounds"][0]["moves"][other]
    pass_move = mistaken["rounds"][0]["moves"][index]
    events_stored = len(events)

    def corrected(*, played: bool, respelt: bool, voided: bool) -> dict[str, Any]:
        record = copy.deepcopy(true_record if played else mistaken)
        if respelt:
            record["rounds"][0]["moves"][other] = _respelt(other_move)
        if voided:
            record["rounds"][0]["void"] = {"reason": REASON}
        return record

    def amend(changes: list[tuple[int, dict[str, Any]]]) -> Any:
        body = {
            "changes": [{"op": "amend", "position": p, "event": e} for p, e in changes],
            "reason": REASON,
        }
        return lambda: client.post(f"{api}/{game}/corrections/", body, "application/json")

    def void() -> Any:
        return client.post(f"{api}/{game}/rounds/1/void/", {"reason": REASON}, "application/json")

    def unvoid() -> Any:
        trail = client.get(f"{api}/{game}/events/", {"page_size": 500}).json()["events"]
        where = next(e["position"] for e in trail if e["kind"] == "void")
        body = {"changes": [{"op": "remove", "position": where}], "reason": REASON}
        return lambda: client.post(f"{api}/{game}/corrections/", body, "application/json")

    rules = None
    failures: list[str] = []

    def check(kind: str, expected: dict[str, Any]) -> None:
        nonlocal rules
        result = without_verification(client.get(f"{api}/{game}/result/").json())
        exported = client.get(f"{api}/{game}/record/").json()
        if result != replay_record(exported) or result != replay_record(expected):
            failures.append(f"{kind}: the result differs from the replay of the record")
        parsed = Record.parse(expected)
        engine, _ = folding.fold(
            parsed.rules, [(e.kind, e.payload) for e in folding.record_entries(parsed.rounds)]
        )
        wanted = sorted(
            (line.round_number, line.seat, line.to_dict()) for line in game_lines(engine)
        )
        fields = list(wanted[0][2]) if wanted else []
        stored = sorted(
            (row["round_number"], row["seat"], row)
            for row in SeatRound.objects.filter(game_id=game).values(*fields)
        )
        if [(r, s, {k: d[k] for k in fields}) for r, s, d in stored] != wanted:
            failures.append(f"{kind}: the league's rows differ from the replay's")

    steps: list[tuple[str, Any, dict[str, Any]]] = [
        ("amend", amend([(position, double)]), corrected(played=True, respelt=False, voided=False)),
        (
            "amend back",
            amend([(position, pass_move)]),
            corrected(played=False, respelt=False, voided=False),
        ),
        (
            "batch",
            amend([(position, double), (other_position, _respelt(other_move))]),
            corrected(played=True, respelt=True, voided=False),
        ),
        (
            "batch back",
            amend([(position, pass_move), (other_position, other_move)]),
            corrected(played=False, respelt=False, voided=False),
        ),
        ("void", lambda: void(), corrected(played=False, respelt=False, voided=True)),
        ("unvoid", None, corrected(played=False, respelt=False, voided=False)),
    ]
    times: dict[str, list[float]] = {kind: [] for kind in KINDS}
    cpu: dict[str, list[float]] = {kind: [] for kind in KINDS}
    queries: dict[str, list[int]] = {kind: [] for kind in KINDS}
    for _ in range(repeat):
        for kind, action, expected in steps:
            action = action if action is not None else unvoid()
            with CaptureQueriesContext(connection) as captured:
                started, cpu_started = time.perf_counter(), time.process_time()
                response = action()
                elapsed = time.perf_counter() - started
                cpu[kind].append(time.process_time() - cpu_started)
            if response.status_code != 200 or response.json().get("correction") is None:
                raise SystemExit(
                    f"bench: correction {kind} refused: {response.status_code} "
                    f"{response.content[:300]!r}"
                )
            times[kind].append(elapsed)
            queries[kind].append(len(captured))
            check(kind, expected)
    every = [t for kind in KINDS for t in times[kind]]
    return {
        "rounds": ROUNDS,
        "seed": seed,
        "events": events_stored,
        "repeat": repeat,
        "mistake": {"round": 1, "move": index, "entered": pass_move, "played": double},
        "kinds": {kind: _summary(times[kind], cpu[kind], queries[kind]) for kind in KINDS},
        "all": _summary(
            every,
            [c for kind in KINDS for c in cpu[kind]],
            [q for kind in KINDS for q in queries[kind]],
        ),
        "failures": failures,
    }


def say_lines(results: dict[str, Any]) -> list[str]:
    """One line a kind of correction, for the console."""
    lines = []
    for kind, k in results["kinds"].items():
        lines.append(
            f"corrections: {kind:<10} mean {k['mean_ms']:7.1f} p50 {k['p50_ms']:7.1f} "
            f"max {k['max_ms']:7.1f} ms, this process's CPU {k['cpu_mean_ms']:6.1f} ms, "
            f"{k['queries']} queries (n={k['n']})"
        )
    return lines
