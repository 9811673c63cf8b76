"""Where a move request's time goes: one scorekeeper's moves, in-process, timed and profiled.

Runs in the benchmark's own process (Django set up with ``bench.settings`` on
the benchmark database) through Django's test ``Client`` — the WSGI handler
and every middleware, as under gunicorn, without the HTTP server. Games are
played from generated records in two passes over fresh games: one timed, with
each SQL statement's time taken by ``connection.execute_wrapper``; one under
``cProfile``, whose overhead would distort the times.
"""

from __future__ import annotations

import cProfile
import pstats
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from bench.load import record_events, table_records

# What the categories of the breakdown are, as (module file suffix, function name).
CATEGORIES: list[tuple[str, tuple[str, str]]] = [
    (
        "whole request (Django handler, middleware, DRF)",
        ("django/core/handlers/base.py", "get_response"),
    ),
    ("DRF view dispatch", ("rest_framework/views.py", "dispatch")),
    ("authentication (table token → game)", ("referee/api/auth.py", "authenticate")),
    ("  store.live_token: the token and its game, one SELECT", ("referee/store.py", "live_token")),
    ("GameMixin.get_game (game row, access check)", ("referee/api/writes.py", "get_game")),
    ("services.event_submit", ("referee/services/events.py", "event_submit")),
    (
        "  _submit_at_version: the fast path (no lock)",
        ("referee/services/events.py", "_submit_at_version"),
    ),
    (
        "    store._append_at_version: one compare-and-set statement",
        ("referee/store.py", "_append_at_version"),
    ),
    ("  store.lock: SELECT … FOR UPDATE (the locked path)", ("referee/store.py", "lock")),
    (
        "  store.current_round (cached on the row, else events, seats)",
        ("referee/store.py", "current_round"),
    ),
    ("  folding.fold (replay the round so far)", ("referee/folding.py", "fold")),
    ("  folding.apply_event (rules core, all events)", ("referee/folding.py", "apply_event")),
    ("  selectors.game_state (the state answered)", ("referee/selectors.py", "game_state")),
    (
        "  seat_rounds_settle (league rows, round end)",
        ("scoring/services.py", "seat_rounds_settle"),
    ),
    ("  _open_session", ("referee/services/events.py", "_open_session")),
    ("  store.append_event (event insert + game update)", ("referee/store.py", "append_event")),
    ("  Model.save (other rows)", ("django/db/models/base.py", "save")),
    ("  transaction commit", ("django/db/backends/base/base.py", "commit")),
    ("JSON response rendering", ("rest_framework/response.py", "rendered_content")),
    ("SQL: psycopg Cursor.execute (incl. server wait)", ("psycopg/cursor.py", "execute")),
    ("SQL: Django query compiler (as_sql)", ("django/db/models/sql/compiler.py", "as_sql")),
]


@dataclass
class SqlTimer:
    """Each SQL statement's wall time, as ``connection.execute_wrapper`` sees it."""

    statements: list[tuple[str, float]] = field(default_factory=list)

    def __call__(
        self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any
    ) -> Any:
        start = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.statements.append((sql, time.perf_counter() - start))


@dataclass
class Game:
    url: str
    auth: str
    events: list[tuple[str, dict[str, Any]]]


def _games(count: int, rounds: int, seed: int) -> Iterator[Game]:
    from referee import services

    for record in table_records(tables=count, rounds=rounds, seed=seed):
        game = services.game_create(players=record["players"], rules=record.get("rules"))
        key, _ = services.table_join(join_code=game.join_code)
        yield Game(f"/api/v1/games/{game.pk}/", f"Table {key}", record_events(record))


def _post(client: Any, game: Game, suffix: str, body: dict[str, Any]) -> None:
    response = client.post(
        game.url + suffix,
        body,
        content_type="application/json",
        HTTP_AUTHORIZATION=game.auth,
        secure=True,  # as behind the TLS proxy: production's SSL redirect stays on
    )
    if response.status_code != 201:
        raise RuntimeError(
            f"profile: {suffix} → {response.status_code}: {response.content[:300]!r}"
        )


@contextmanager
def _sql_timer() -> Iterator[SqlTimer]:
    from django.db import connection

    timer = SqlTimer()
    with connection.execute_wrapper(timer):
        yield timer


def run(*, games: int = 4, rounds: int = 3, seed: int = 99, top: int = 25) -> dict[str, Any]:
    """Time and profile move requests; the figures and tables the report shows."""
    from django.test import Client

    client = Client()
    # Warm up: imports, URL resolver, translations, the connection.
    for game in _games(1, 1, seed):
        for suffix, body in game.events:
            _post(client, game, suffix, body)

    # Pass 1: wall time per request and its SQL, one scorekeeper at a time.
    walls: list[float] = []
    sql_times: list[float] = []
    query_counts: list[int] = []
    sample: list[tuple[str, float]] = []
    for game in _games(games, rounds, seed + 1):
        for index, (suffix, body) in enumerate(game.events):
            with _sql_timer() as timer:
                start = time.perf_counter()
                _post(client, game, suffix, body)
                walls.append(time.perf_counter() - start)
            sql_times.append(sum(t for _, t in timer.statements))
            query_counts.append(len(timer.statements))
            if not sample and suffix == "moves/" and index == 5:
                sample = timer.statements  # a move in the middle of a round

    # Pass 2: cProfile over the same number of fresh games.
    profiler = cProfile.Profile()
    requests = 0
    for game in _games(games, rounds, seed + 2):
        for suffix, body in game.events:
            profiler.enable()
            _post(client, game, suffix, body)
            profiler.disable()
            requests += 1
    stats = pstats.Stats(profiler)
    return {
        "requests": len(walls),
        "wall_ms_mean": statistics.fmean(walls) * 1e3,
        "wall_ms_median": statistics.median(walls) * 1e3,
        "sql_ms_mean": statistics.fmean(sql_times) * 1e3,
        "queries_median": statistics.median(query_counts),
        "queries_max": max(query_counts),
        "sample_move_sql": [(" ".join(sql.split()), seconds * 1e3) for sql, seconds in sample],
        "profiled_requests": requests,
        "categories": _categories(stats, requests),
        "top_cumulative": _top(stats, "cumulative", top, requests),
        "top_own": _top(stats, "tottime", top, requests),
    }


def _entries(stats: pstats.Stats) -> dict[tuple[str, int, str], tuple[Any, ...]]:
    return stats.stats  # type: ignore[attr-defined,no-any-return]


def _categories(stats: pstats.Stats, requests: int) -> list[dict[str, Any]]:
    """Cumulative time per request of each category's function (summed over its definitions)."""
    entries = _entries(stats)
    whole = None
    rows = []
    for label, (suffix, name) in CATEGORIES:
        cumulative = calls = 0.0
        for (filename, _, function), (_, ncalls, _, ct, _) in entries.items():
            if function == name and filename.endswith(suffix):
                # Recursive entries (get_response → middleware → get_response) count once.
                cumulative = max(cumulative, ct) if name == "get_response" else cumulative + ct
                calls += ncalls
        if whole is None:
            whole = cumulative or 1.0
        rows.append(
            {
                "label": label,
                "ms_per_request": cumulative / requests * 1e3,
                "share": cumulative / whole,
                "calls_per_request": calls / requests,
            }
        )
    return rows


def _top(stats: pstats.Stats, key: str, count: int, requests: int) -> list[dict[str, Any]]:
    entries = _entries(stats)
    index = {"cumulative": 3, "tottime": 2}[key]
    ranked = sorted(entries.items(), key=lambda item: item[1][index], reverse=True)
    rows = []
    for (filename, line, function), (_, ncalls, tottime, cumtime, _) in ranked[:count]:
        rows.append(
            {
                "function": f"{_short(filename)}:{line}({function})",
                "calls_per_request": ncalls / requests,
                "own_ms": tottime / requests * 1e3,
                "cumulative_ms": cumtime / requests * 1e3,
            }
        )
    return rows


def _short(filename: str) -> str:
    for marker in ("site-packages/", "/work/main/", "/lib/python3"):
        if marker in filename:
            return filename.split(marker, 1)[1]
    return filename
