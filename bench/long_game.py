"""A game as long as a season (R27): what each request costs at 40, 250 and 600 rounds.

A Domeng game stays open across sittings until it is closed (R27), so a club that keeps
one game going every week reaches hundreds of rounds. For each size in ``sizes`` a game
is imported over the API (Django's test ``Client``: the whole middleware and DRF stack,
no HTTP server) from ``random_record`` cut to that many rounds, then each request below
is made ``repeat`` times and timed (wall clock, and this process's CPU time), its SQL
queries counted (``CaptureQueriesContext``) and the rounds the rules core began while
answering it counted (``Game.begin_round``: a replay of the whole game begins every
round again, a read of stored rounds none):

- the import itself and the record's export (``GET …/record/``);
- the phones' state (``GET …/``), the result (``GET …/result/``);
- the organiser's game page and its round 1 page, the club's room view;
- an adjustment (R36) after the last round and after round 1
  (``POST …/rounds/{n}/adjustments/``), each taken back by a correction that removes
  it (``POST …/corrections/``, R37), which is timed too.

After the rulings the game's result must equal a replay of its exported record: a
failure fails the run. The growth of each request is its median at the largest size over
its median at the smallest.
"""

from __future__ import annotations

import contextlib
import random
import statistics
import time
from collections.abc import Callable, Iterator
from typing import Any

SIZES = (40, 250, 600)
SEED = 29
REASON = "bench: a long game"
REQUESTS = (
    "import",
    "export",
    "state",
    "result",
    "organiser game page",
    "organiser round 1 page",
    "room view",
    "adjustment after the last round",
    "adjustment removed (last round)",
    "adjustment after round 1",
    "adjustment removed (round 1)",
)


@contextlib.contextmanager
def rounds_begun() -> Iterator[list[int]]:
    """Count the rounds the rules core begins (``Game.begin_round``) inside the block: the
    list's one item."""
    from referee.engine.game import Game

    original = Game.begin_round
    counter = [0]

    def counted(self: Game) -> Any:
        counter[0] += 1
        return original(self)

    Game.begin_round = counted  # type: ignore[method-assign]
    try:
        yield counter
    finally:
        Game.begin_round = original  # type: ignore[method-assign]


def _measure(action: Callable[[], Any], repeat: int, name: str) -> dict[str, Any]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    times: list[float] = []
    cpu: list[float] = []
    queries: list[int] = []
    begun: list[int] = []
    for _ in range(repeat):
        with CaptureQueriesContext(connection) as captured, rounds_begun() as counter:
            started, cpu_started = time.perf_counter(), time.process_time()
            response = action()
            times.append(time.perf_counter() - started)
            cpu.append(time.process_time() - cpu_started)
        if response.status_code >= 400:
            raise SystemExit(
                f"bench: {name} answered {response.status_code} {response.content[:300]!r}"
            )
        queries.append(len(captured))
        begun.append(counter[0])
    return {
        "request": name,
        "n": repeat,
        "ms_median": statistics.median(times) * 1000,
        "ms_min": min(times) * 1000,
        "cpu_ms_median": statistics.median(cpu) * 1000,
        "queries": max(queries),
        "rounds_begun": max(begun),
    }


def _holder(result: dict[str, Any], number: int) -> int | str:
    """Who holds stones after round ``number`` (1-based): the table while it has any, else
    the seat holding the most (R36 moves only what the giver holds)."""
    after = result["rounds"][number - 1]["after"]
    table = after.get("table")
    if isinstance(table, int) and table > 0:
        return "table"
    stones = after["stones"]
    return max(range(len(stones)), key=lambda seat: stones[seat])


def _one_size(
    rounds: int, *, repeat: int, token: str, record: dict[str, Any], index: int
) -> tuple[list[dict[str, Any]], list[str]]:
    from django.contrib.auth import get_user_model
    from django.test import Client
    from rest_framework.authtoken.models import Token

    from referee.engine.records import replay_record
    from referee.models import Event
    from referee.services.verification import without_verification
    from scoring import services as league

    user = Token.objects.get(key=token).user
    assert isinstance(user, get_user_model())
    slug = f"bench-long-{rounds}-{index}"
    club = league.club_create(name=f"Bench long game {rounds}", slug=slug, created_by=user)
    players = [
        league.player_create(club=club, display_name=name, by=user).pk
        for name in ("Andi", "Besse", "Cakra", "Daeng", "Evi")
    ]
    # Production's settings redirect plain HTTP: the TLS proxy's header, as the load sends it.
    client = Client(HTTP_AUTHORIZATION=f"Token {token}", HTTP_X_FORWARDED_PROTO="https")
    pages = Client(HTTP_X_FORWARDED_PROTO="https")
    pages.force_login(user)
    api = "/api/v1/games"
    body = {"record": record, "players": players}
    games: list[str] = []

    def do_import() -> Any:
        answer = client.post(f"{api}/import/?club={club.slug}", body, "application/json")
        if answer.status_code == 201:
            games.append(answer.json()["id"])
        return answer

    rows = [_measure(do_import, repeat, "import")]
    game = games[-1]
    result = client.get(f"{api}/{game}/result/").json()
    last = len(result["rounds"])

    added: list[int] = []

    def adjustment(number: int) -> Callable[[], Any]:
        giver = _holder(result, number)
        receiver = 0 if giver != 0 else 1
        adjustment_body = {"from": giver, "to": receiver, "stones": 1, "reason": REASON}
        url = f"{api}/{game}/rounds/{number}/adjustments/"

        def add() -> Any:
            answer = client.post(url, adjustment_body, "application/json")
            if answer.status_code < 400:
                live = Event.objects.filter(game_id=game, kind="adjustment", revoked_by=None)
                added.append(live.values_list("position", flat=True).get())
            return answer

        return add

    def removal() -> Any:
        body = {"changes": [{"op": "remove", "position": added.pop()}], "reason": REASON}
        return client.post(f"{api}/{game}/corrections/", body, "application/json")

    reads: list[tuple[str, Callable[[], Any]]] = [
        ("export", lambda: client.get(f"{api}/{game}/record/")),
        ("state", lambda: client.get(f"{api}/{game}/")),
        ("result", lambda: client.get(f"{api}/{game}/result/")),
        ("organiser game page", lambda: pages.get(f"/games/{game}/")),
        ("organiser round 1 page", lambda: pages.get(f"/games/{game}/rounds/1/")),
        ("room view", lambda: pages.get(f"/room/{club.slug}/")),
    ]
    rows += [_measure(action, repeat, name) for name, action in reads]
    for number, where in ((last, "the last round"), (1, "round 1")):
        add = adjustment(number)
        for _ in range(repeat):
            rows.append(_measure(add, 1, f"adjustment after {where}"))
            label = "last round" if number == last else "round 1"
            rows.append(_measure(removal, 1, f"adjustment removed ({label})"))
    merged = _merge(rows)
    for row in merged:
        row["rounds"] = rounds
    failures = []
    exported = client.get(f"{api}/{game}/record/").json()
    now = without_verification(client.get(f"{api}/{game}/result/").json())
    if now != replay_record(exported) or now != replay_record(record):
        failures.append(f"long game: at {rounds} rounds the result differs from its replay")
    return merged, failures


def _merge(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row a request: single measurements of the same request pooled."""
    merged: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        merged.setdefault(row["request"], []).append(row)
    out = []
    for name, group in merged.items():
        if len(group) == 1:
            out.append(group[0])
            continue
        out.append(
            {
                "request": name,
                "n": sum(r["n"] for r in group),
                "ms_median": statistics.median(r["ms_median"] for r in group),
                "ms_min": min(r["ms_min"] for r in group),
                "cpu_ms_median": statistics.median(r["cpu_ms_median"] for r in group),
                "queries": max(r["queries"] for r in group),
                "rounds_begun": max(r["rounds_begun"] for r in group),
            }
        )
    return out


def run(*, sizes: tuple[int, ...] = SIZES, repeat: int, token: str) -> dict[str, Any]:
    """Each request at each size: times, queries and rounds begun; the growth ratios.

    The process's garbage collector is set as a serving process sets it (``config.serving``:
    ``GC_THRESHOLD``, what is loaded frozen), so that a request costs here what it costs
    a worker: with Python's defaults the collector's walks of the bench's own objects were
    ≈ 40 % of a 600-round correction's CPU."""
    from django.conf import settings

    from config.serving import freeze_loaded_objects, tune_garbage_collector
    from referee.engine.simulation import random_record

    tune_garbage_collector(settings.GC_THRESHOLD)
    freeze_loaded_objects()

    full = random_record(random.Random(SEED), rounds=max(sizes))
    measurements: list[dict[str, Any]] = []
    failures: list[str] = []
    for index, rounds in enumerate(sorted(sizes)):
        record = {**full, "rounds": full["rounds"][:rounds]}
        rows, failed = _one_size(rounds, repeat=repeat, token=token, record=record, index=index)
        measurements += rows
        failures += failed
    smallest, largest = min(sizes), max(sizes)
    growth = {}
    for name in REQUESTS:
        low = next(m for m in measurements if m["request"] == name and m["rounds"] == smallest)
        high = next(m for m in measurements if m["request"] == name and m["rounds"] == largest)
        growth[name] = {
            "time": high["ms_median"] / low["ms_median"] if low["ms_median"] else None,
            "queries": (high["queries"], low["queries"]),
            "rounds_begun": (high["rounds_begun"], low["rounds_begun"]),
        }
    return {
        "sizes": sorted(sizes),
        "seed": SEED,
        "repeat": repeat,
        "measurements": measurements,
        "growth": growth,
        "failures": failures,
    }


def say_lines(results: dict[str, Any]) -> list[str]:
    """One line a request and size, then its growth, for the console."""
    lines = []
    for name in REQUESTS:
        for m in (m for m in results["measurements"] if m["request"] == name):
            lines.append(
                f"long game: {name:<34} {m['rounds']:>4} rounds {m['ms_median']:8.1f} ms "
                f"median (CPU {m['cpu_ms_median']:7.1f}), {m['queries']:>3} queries, "
                f"{m['rounds_begun']:>4} rounds begun"
            )
        g = results["growth"][name]
        lines.append(
            f"long game: {name:<34} growth {g['time']:.2f}x from {results['sizes'][0]} to "
            f"{results['sizes'][-1]} rounds"
        )
    return lines
