"""The load process: N tables play generated legal games over HTTP at once, or hit the baseline.

Run by ``python -m bench`` as a separate process (``python -m bench.load``),
so that the server's workers and the load share no interpreter. It needs no
Django: only the pure rules core, to make the records and replay them.

``moves`` mode, per table: the organiser creates a game (``POST /games/``), a
scorekeeper phone joins (``POST /join/``) — both before the clock starts —,
then every table plays its record at once, move by move
(``POST /games/{id}/moves/``) and, at a blocked round, seat by seat
(``POST /reveals/``), each request sent as soon as the last one was answered
(no think time). When all are done, each game's ``GET /result/`` must equal
``replay_record(record)``.

``baseline`` mode: the same tables send the same bodies, as many as the table
sent events, to ``POST /bench/baseline/``.

``open`` mode (open loop, a fixed arrival rate): the tables are set up as for
``moves``, then each table enters its record's next event once every ``--period``
seconds (tables start at random phases), for ``--seconds``: ``tables / period``
moves a second whatever the answers' latency. A table's next move waits for its
previous answer (a table enters one move at a time), but its latency is counted
from when it was due, not when it could be sent, so a slow server shows in the
percentiles instead of lowering the rate (no coordinated omission). ``late``
counts the moves sent more than 10 ms after they were due.

``--connection per-request`` opens a connection for each request (``Connection:
close``), as a TLS proxy without upstream keep-alive talks to gunicorn;
``keep-alive`` keeps one per table, as phones talking to gunicorn directly would.

``--base-url`` given more than once (several app servers on one PostgreSQL): each new
connection goes to the next server in turn, as a round-robin balancer sends them, so
with one connection a request a table's consecutive moves are answered by different
processes. ``--finish`` (``open`` mode): once the timed window is over, each table
plays the rest of its record untimed, and every game's result is checked against
its replay, as in ``moves`` mode.

The client is a minimal HTTP/1.1 client on asyncio streams rather than a
general one (httpx, aiohttp): the load shares the machine's cores with the
server and PostgreSQL, and a lean client takes less CPU from them, the same
per request for a move and for the baseline. Its own CPU time is reported.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import sys
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from bench.server import cpu_spent, server_cpu_seconds
from referee.engine.records import replay_record
from referee.engine.simulation import random_record

API = "/api/v1"
BASELINE_PATH = "/bench/baseline/"
TIMEOUT_SECONDS = 120.0
SETUP_CONCURRENCY = 16


class HttpError(Exception):
    """No complete answer: the connection failed or closed, or the answer was malformed."""


@dataclass
class Answer:
    status: int
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


class Connection:
    """One keep-alive HTTP/1.1 connection to the server (reopened when the server closes it).

    Sends ``X-Forwarded-Proto: https`` as the production TLS proxy does, so that
    production settings (``SECURE_SSL_REDIRECT``) serve plain loopback HTTP.
    """

    # Every server of the run, ``(host, port)``, when there are several (``--base-url``
    # more than once): each connection opened goes to the next (round robin).
    spread: tuple[tuple[str, int], ...] = ()
    _opened = 0

    def __init__(self, host: str, port: int, *, keep_alive: bool = True) -> None:
        self.host, self.port, self.keep_alive = host, port, keep_alive
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.reconnects = 0  # a kept-alive connection found closed before any answer

    async def request(
        self, method: str, path: str, body: Any = None, *, auth: str | None = None
    ) -> Answer:
        data = b"" if body is None else json.dumps(body, separators=(",", ":")).encode()
        lines = [
            f"{method} {path} HTTP/1.1",
            f"Host: {self.host}:{self.port}",
            "Accept: application/json",
            "X-Forwarded-Proto: https",
            f"Content-Length: {len(data)}",
        ]
        if not self.keep_alive:
            lines.append("Connection: close")
        if body is not None:
            lines.append("Content-Type: application/json")
        if auth:
            lines.append(f"Authorization: {auth}")
        raw = ("\r\n".join(lines) + "\r\n\r\n").encode() + data
        reused = self.writer is not None
        try:
            return await self._exchange(raw)
        except _ClosedBeforeAnswer:
            self.close()
            if not reused:
                raise HttpError(f"{method} {path}: connection closed before an answer") from None
            # The server closed an idle kept-alive connection as the request went out: it
            # read none of it. Every HTTP client resends then, on a new connection.
            self.reconnects += 1
            try:
                return await self._exchange(raw)
            except _ClosedBeforeAnswer:
                self.close()
                raise HttpError(f"{method} {path}: connection closed before an answer") from None

    async def _exchange(self, raw: bytes) -> Answer:
        if self.writer is None:
            if Connection.spread:
                self.host, self.port = Connection.spread[
                    Connection._opened % len(Connection.spread)
                ]
                Connection._opened += 1
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        try:
            self.writer.write(raw)
            await self.writer.drain()
            status_line = await self.reader.readline()
        except (ConnectionError, OSError):
            raise _ClosedBeforeAnswer() from None
        if not status_line:
            raise _ClosedBeforeAnswer()
        try:
            status = int(status_line.split(b" ", 2)[1])
            headers: dict[bytes, bytes] = {}
            while True:
                line = await self.reader.readline()
                if line in (b"\r\n", b"\n", b""):
                    break
                name, _, value = line.partition(b":")
                headers[name.strip().lower()] = value.strip()
            if b"content-length" in headers:
                body = await self.reader.readexactly(int(headers[b"content-length"]))
            elif headers.get(b"transfer-encoding", b"").lower() == b"chunked":
                body = await self._chunked()
            else:
                body = await self.reader.read()
                headers[b"connection"] = b"close"
        except (ValueError, IndexError, ConnectionError, OSError, asyncio.IncompleteReadError):
            self.close()
            raise HttpError("malformed or truncated answer") from None
        if headers.get(b"connection", b"").lower() == b"close":
            self.close()  # e.g. gunicorn's sync workers: one request per connection
        return Answer(status, body)

    async def _chunked(self) -> bytes:
        assert self.reader is not None
        parts = []
        while True:
            size = int((await self.reader.readline()).split(b";")[0], 16)
            if size == 0:
                await self.reader.readline()
                return b"".join(parts)
            parts.append(await self.reader.readexactly(size))
            await self.reader.readline()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


class _ClosedBeforeAnswer(Exception):
    pass


# -- what the tables play ----------------------------------------------------------------


def table_records(*, tables: int, rounds: int, seed: int) -> list[dict[str, Any]]:
    """One legal ``domeng-record/1`` record per table, the same for the same arguments."""
    return [
        random_record(random.Random(seed * 1_000_003 + i), rounds=rounds) for i in range(tables)
    ]


def record_events(record: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The requests a table makes for a record: ``("moves/" | "reveals/", body)`` in order.

    Reveals follow a blocked round's moves, seat 0 to 4 (R34), tiles or pip sum (R18).
    """
    events: list[tuple[str, dict[str, Any]]] = []
    for data in record["rounds"]:
        events.extend(("moves/", move) for move in data["moves"])
        reveal, pips = data.get("reveal") or {}, data.get("pips") or {}
        for seat in range(5):
            if str(seat) in reveal:
                events.append(("reveals/", {"seat": seat, "tiles": reveal[str(seat)]}))
            elif str(seat) in pips:
                events.append(("reveals/", {"seat": seat, "pips": pips[str(seat)]}))
    return events


# -- the run -----------------------------------------------------------------------------


@dataclass
class Tally:
    """Latencies (seconds) of the timed requests, and every failure met."""

    latencies: list[float] = field(default_factory=list)
    due: list[float] = field(default_factory=list)  # when each timed request was due
    errors: list[str] = field(default_factory=list)
    reconnects: int = 0

    def fail(self, what: str) -> None:
        self.errors.append(what)


async def _timed(
    tally: Tally,
    conn: Connection,
    method: str,
    path: str,
    body: Any,
    auth: str | None,
    ok: int,
    *,
    due: float | None = None,
) -> Answer | None:
    """Send one request; its latency counts from ``due`` (``time.perf_counter()``) if given."""
    start = time.perf_counter() if due is None else due
    try:
        answer = await asyncio.wait_for(
            conn.request(method, path, body, auth=auth), TIMEOUT_SECONDS
        )
    except (HttpError, TimeoutError, OSError) as error:
        conn.close()
        tally.fail(f"{method} {path}: {type(error).__name__}: {error}")
        return None
    tally.latencies.append(time.perf_counter() - start)
    tally.due.append(start)
    if answer.status != ok:
        tally.fail(f"{method} {path}: HTTP {answer.status}: {answer.body[:300]!r}")
        return None
    return answer


@dataclass
class Table:
    record: dict[str, Any]
    events: list[tuple[str, dict[str, Any]]]
    game_id: str = ""
    auth: str = ""
    sent: int = 0  # events answered 201 (the open loop's next event)


async def _setup(host: str, port: int, tables: list[Table], organiser: str) -> list[str]:
    """Create each table's game and join it as its scorekeeper (not timed)."""
    errors: list[str] = []
    gate = asyncio.Semaphore(SETUP_CONCURRENCY)

    async def one(table: Table) -> None:
        async with gate:
            conn = Connection(host, port)
            try:
                body = {"players": table.record["players"], "rules": table.record.get("rules")}
                created = await conn.request(
                    "POST", f"{API}/games/", body, auth=f"Token {organiser}"
                )
                if created.status != 201:
                    errors.append(f"create: HTTP {created.status}: {created.body[:300]!r}")
                    return
                game = created.json()
                joined = await conn.request(
                    "POST", f"{API}/join/", {"join_code": game["join_code"], "label": "bench"}
                )
                if joined.status != 201:
                    errors.append(f"join: HTTP {joined.status}: {joined.body[:300]!r}")
                    return
                table.game_id, table.auth = game["id"], f"Table {joined.json()['token']}"
            except HttpError as error:
                errors.append(f"setup: {error}")
            finally:
                conn.close()

    await asyncio.gather(*(one(table) for table in tables))
    return errors


async def _play(
    host: str, port: int, tables: list[Table], tally: Tally, *, keep_alive: bool
) -> None:
    async def one(table: Table) -> None:
        conn = Connection(host, port, keep_alive=keep_alive)
        try:
            for suffix, body in table.events:
                path = f"{API}/games/{table.game_id}/{suffix}"
                if await _timed(tally, conn, "POST", path, body, table.auth, 201) is None:
                    return  # the rest of this game would only be refused
        finally:
            tally.reconnects += conn.reconnects
            conn.close()

    await asyncio.gather(*(one(table) for table in tables))


LATE_SECONDS = 0.010


async def _open_loop(
    host: str,
    port: int,
    tables: list[Table],
    tally: Tally,
    *,
    period: float,
    seconds: float,
    keep_alive: bool,
    seed: int,
) -> int:
    """Each table's next event every ``period`` seconds for ``seconds``; how many were late."""
    rng = random.Random(seed)
    start = time.perf_counter() + 0.2
    late = 0

    async def one(table: Table, phase: float) -> None:
        nonlocal late
        conn = Connection(host, port, keep_alive=keep_alive)
        try:
            for index, (suffix, body) in enumerate(table.events):
                due = start + phase + index * period
                if due - start >= seconds:
                    return
                wait = due - time.perf_counter()
                if wait > 0:
                    await asyncio.sleep(wait)
                elif -wait > LATE_SECONDS:
                    late += 1  # the table's previous answer came after this move was due
                path = f"{API}/games/{table.game_id}/{suffix}"
                if await _timed(tally, conn, "POST", path, body, table.auth, 201, due=due) is None:
                    return
                table.sent = index + 1
        finally:
            tally.reconnects += conn.reconnects
            conn.close()

    await asyncio.gather(*(one(table, rng.random() * period) for table in tables))
    return late


async def _finish(
    host: str, port: int, tables: list[Table], tally: Tally, *, keep_alive: bool
) -> None:
    """Each table's events the open loop did not reach (``Table.sent`` on), untimed: the
    games then end as their records do and their results can be checked."""

    async def one(table: Table) -> None:
        conn = Connection(host, port, keep_alive=keep_alive)
        try:
            for suffix, body in table.events[table.sent :]:
                path = f"{API}/games/{table.game_id}/{suffix}"
                answer = await conn.request("POST", path, body, auth=table.auth)
                if answer.status != 201:
                    tally.fail(f"finish {path}: HTTP {answer.status}: {answer.body[:300]!r}")
                    return
        except HttpError as error:
            tally.fail(f"finish: {error}")
        finally:
            conn.close()

    gate = asyncio.Semaphore(SETUP_CONCURRENCY)

    async def gated(table: Table) -> None:
        async with gate:
            await one(table)

    await asyncio.gather(*(gated(table) for table in tables))


async def _baseline(
    host: str, port: int, tables: list[Table], tally: Tally, *, keep_alive: bool
) -> None:
    async def one(table: Table) -> None:
        conn = Connection(host, port, keep_alive=keep_alive)
        try:
            for _, body in table.events:
                await _timed(tally, conn, "POST", BASELINE_PATH, body, None, 201)
        finally:
            tally.reconnects += conn.reconnects
            conn.close()

    await asyncio.gather(*(one(table) for table in tables))


def rules_part(result: dict[str, Any]) -> dict[str, Any]:
    """A stored game's result without each round's ``verification`` at the table (issue 11),
    which no replay of its record knows: ``referee.services.verification.without_verification``, for
    this client, which runs without Django."""
    rounds = [{k: v for k, v in r.items() if k != "verification"} for r in result["rounds"]]
    return {**result, "rounds": rounds}


async def _verify(host: str, port: int, tables: list[Table]) -> tuple[int, list[str]]:
    """How many games' ``GET /result/`` equal ``replay_record(record)``, and the differences."""
    gate = asyncio.Semaphore(SETUP_CONCURRENCY)
    problems: list[str] = []
    same = 0

    async def one(table: Table) -> None:
        nonlocal same
        async with gate:
            conn = Connection(host, port)
            try:
                answer = await conn.request(
                    "GET", f"{API}/games/{table.game_id}/result/", auth=table.auth
                )
            except HttpError as error:
                problems.append(f"result of {table.game_id}: {error}")
                return
            finally:
                conn.close()
        if answer.status != 200:
            problems.append(f"result of {table.game_id}: HTTP {answer.status}")
        elif rules_part(answer.json()) != replay_record(table.record):
            problems.append(f"result of {table.game_id} differs from replay_record(record)")
        else:
            same += 1

    await asyncio.gather(*(one(table) for table in tables))
    return same, problems


def timeline(due: list[float], latencies: list[float], start: float) -> list[list[float]]:
    """Per whole second of the run (by when each request was due): ``[second, requests,
    p99 ms, max ms]`` — where the stalls of a run are, not only how long its tail is."""
    seconds: dict[int, list[float]] = {}
    for at, latency in zip(due, latencies, strict=True):
        seconds.setdefault(int(at - start), []).append(latency)
    rows = []
    for second in sorted(seconds):
        values = sorted(seconds[second])
        p99 = values[min(len(values) - 1, int(0.99 * len(values)))]
        rows.append([second, len(values), round(p99 * 1e3, 1), round(values[-1] * 1e3, 1)])
    return rows


def wal_and_checkpoints() -> dict[str, int] | None:
    """PostgreSQL's WAL position (bytes) and checkpoint counts, from ``DATABASE_URL`` (the
    server's database, given by ``python -m bench``); None without it."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        return None
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT pg_current_wal_lsn() - '0/0'::pg_lsn, checkpoints_timed, checkpoints_req"
            " FROM pg_stat_bgwriter"
        ).fetchone()
    assert row is not None
    return {"wal_bytes": int(row[0]), "checkpoints": int(row[1]) + int(row[2])}


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def run(
    *,
    base_url: str,
    mode: str,
    tables: int,
    rounds: int,
    seed: int,
    organiser: str = "",
    keep_alive: bool = True,
    period: float = 5.0,
    seconds: float = 30.0,
    server_pid: int | None = None,
    database: str = "",
    also: tuple[str, ...] = (),
    also_pids: tuple[int, ...] = (),
    finish: bool = False,
) -> dict[str, Any]:
    """Play (or hit the baseline with) ``tables`` tables at once; the measurements as a dict.

    ``period`` and ``seconds``: the ``open`` mode's interval between a table's moves and
    the length of its run. With ``server_pid`` (the gunicorn master) and ``database``, the
    server's CPU time (workers, PostgreSQL backends) is read when the clock starts and
    stops, so it counts the timed requests only, not the set-up or the results' check.
    ``also``: further servers' base URLs (on the same database), ``also_pids`` their
    gunicorn masters: every connection goes to the next server in turn (``Connection``'s
    ``spread``) and the server's CPU is all of theirs. ``finish`` (``open`` mode): play the
    rest of each record once the window is over, then check every result.
    """
    host, _, port = base_url.removeprefix("http://").rstrip("/").partition(":")
    if also:
        Connection.spread = tuple(
            (h, int(p))
            for h, _, p in (
                url.removeprefix("http://").rstrip("/").partition(":") for url in (base_url, *also)
            )
        )
    masters = (server_pid, *also_pids) if server_pid else ()
    records = table_records(tables=tables, rounds=rounds, seed=seed)
    table_list = [Table(record, record_events(record)) for record in records]
    tally = Tally()
    setup_errors: list[str] = []
    if mode in ("moves", "open"):
        setup_errors = await _setup(host, int(port), table_list, organiser)
        if setup_errors:
            return {
                "mode": mode,
                "tables": tables,
                "errors": len(setup_errors),
                "error_samples": setup_errors[:5],
                "requests": 0,
            }
    server_before = _servers_cpu(masters, database) if masters else None
    wal_before = wal_and_checkpoints()
    cpu_before, start = _cpu_seconds(), time.perf_counter()
    late = 0
    if mode == "moves":
        await _play(host, int(port), table_list, tally, keep_alive=keep_alive)
    elif mode == "open":
        late = await _open_loop(
            host,
            int(port),
            table_list,
            tally,
            period=period,
            seconds=seconds,
            keep_alive=keep_alive,
            seed=seed,
        )
    else:
        await _baseline(host, int(port), table_list, tally, keep_alive=keep_alive)
    wall = time.perf_counter() - start
    cpu = _cpu_seconds() - cpu_before
    wal_after = wal_and_checkpoints()
    server_spent: dict[str, Any] = {}
    if server_before is not None and masters:
        after_each = [_servers_cpu((m,), database) for m in masters]
        server_spent = cpu_spent(server_before, _merged(after_each))
        if len(masters) > 1:  # how evenly the balancing spread the work
            server_spent["servers"] = len(masters)
            server_spent["workers_cpu_seconds_each_server"] = [
                cpu_spent(server_before, after)["workers_cpu_seconds"] for after in after_each
            ]
    result: dict[str, Any] = {
        "mode": mode,
        "tables": tables,
        "rounds": rounds,
        "requests": len(tally.latencies),
        "expected_requests": sum(len(t.events) for t in table_list),
        "wall_seconds": wall,
        "load_cpu_seconds": cpu,
        "latencies": tally.latencies,
        "errors": len(tally.errors),
        "error_samples": tally.errors[:5],
        "reconnects": tally.reconnects,
        "keep_alive": keep_alive,
        **server_spent,
    }
    if wal_before and wal_after:
        # WAL written by the whole server while the clock ran (this run is alone on it).
        result["wal_bytes"] = wal_after["wal_bytes"] - wal_before["wal_bytes"]
        result["checkpoints"] = wal_after["checkpoints"] - wal_before["checkpoints"]
    if mode == "open":
        result.update(
            period_seconds=period,
            run_seconds=seconds,
            offered_per_second=tables / period,
            late=late,
            timeline=timeline(tally.due, tally.latencies, start),
        )
    if mode == "open" and finish:
        finished = Tally()
        await _finish(host, int(port), table_list, finished, keep_alive=keep_alive)
        result["finish_errors"] = len(finished.errors)
        result["error_samples"] = (tally.errors + finished.errors)[:5]
        result["errors"] += len(finished.errors)
    if mode == "moves" or (mode == "open" and finish):
        same, problems = await _verify(host, int(port), table_list)
        result.update(games=tables, results_equal=same, result_problems=problems[:5])
    return result


def _servers_cpu(masters: tuple[int, ...], database: str) -> dict[str, dict[int, float]]:
    """``server_cpu_seconds`` of several gunicorn masters on one database: every master's
    workers, and the database's PostgreSQL backends (counted once)."""
    return _merged([server_cpu_seconds(master, database) for master in masters])


def _merged(each: list[dict[str, dict[int, float]]]) -> dict[str, dict[int, float]]:
    found: dict[str, dict[int, float]] = {"workers": {}, "postgres": {}}
    for one in each:
        found["workers"].update(one["workers"])
        found["postgres"].update(one["postgres"])
    return found


def _event_loop_runner() -> Callable[[Coroutine[Any, Any, dict[str, Any]]], dict[str, Any]]:
    """``uvloop.run`` when uvloop is installed (``make bench``'s extras), else ``asyncio.run``.

    The load shares the machine's two cores with the server and PostgreSQL: uvloop's event
    loop (libuv, in C) takes less of them for the same requests than asyncio's own."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run
    return uvloop.run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--base-url",
        required=True,
        action="append",
        help="e.g. http://127.0.0.1:8123; more than once: requests spread over the servers",
    )
    parser.add_argument("--mode", choices=["moves", "baseline", "open"], required=True)
    parser.add_argument("--tables", type=int, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--organiser-token", default="", help="DRF token of an organiser")
    parser.add_argument(
        "--period", type=float, default=5.0, help="open mode: seconds between a table's moves"
    )
    parser.add_argument("--seconds", type=float, default=30.0, help="open mode: run length")
    parser.add_argument(
        "--server-pid",
        type=int,
        action="append",
        help="the gunicorn master (once per --base-url): read its CPU over the timed part",
    )
    parser.add_argument(
        "--finish",
        action="store_true",
        help="open mode: play the rest of each record untimed, then check every result",
    )
    parser.add_argument("--database", default="", help="PostgreSQL's database of the server")
    parser.add_argument("--out", help="write the JSON here (default: standard output)")
    parser.add_argument(
        "--connection",
        choices=["keep-alive", "per-request"],
        default="keep-alive",
        help="one kept-alive connection per table, or a new one for each request",
    )
    args = parser.parse_args(argv)
    if not all(url.startswith(("http://127.", "http://localhost")) for url in args.base_url):
        parser.error("the load goes to a loopback address only (http://127.0.0.1:PORT)")
    urls = [url.replace("localhost", "127.0.0.1") for url in args.base_url]
    pids = args.server_pid or []
    result = _event_loop_runner()(
        run(
            base_url=urls[0],
            mode=args.mode,
            tables=args.tables,
            rounds=args.rounds,
            seed=args.seed,
            organiser=args.organiser_token,
            keep_alive=args.connection == "keep-alive",
            period=args.period,
            seconds=args.seconds,
            server_pid=pids[0] if pids else None,
            database=args.database,
            also=tuple(urls[1:]),
            also_pids=tuple(pids[1:]),
            finish=args.finish,
        )
    )
    text = json.dumps(result)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as out:
            out.write(text)
    else:
        sys.stdout.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
