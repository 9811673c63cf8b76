"""``python -m bench`` (``make bench``): every benchmark, then BENCHMARKS.md and BENCHMARKS.json.

1. The rules core alone (``bench.core``), before anything else runs.
2. A dedicated PostgreSQL database (``domeng_bench``, dropped at the end) on the
   server ``DATABASE_URL`` names; ``migrate``; an organiser with a DRF token.
3. gunicorn with ``bench.settings`` (production's plus the baseline endpoint),
   a warm-up, then for each table count N: the baseline, then the moves, each
   from a separate load process (``bench.load``); the workers' peak RSS.
4. With gunicorn stopped: one move request timed and profiled (``bench.profiling``),
   then league reads at each season size (``bench.league``).

5. Corrections of round 1 of a 40-round game over the API (``bench.corrections``, R35–R37).
6. The computer seats' strength ladder (``bench.ladder``, R39), in the rules core alone.
7. A long game (``bench.long_game``, R27): each read and ruling at 40, 250 and 600 rounds,
   with its queries, the rounds the rules core begins and the growth ratio.

Every knob is an environment variable (``BENCH_*``, listed in ``Config``);
``BENCH_QUICK=1`` is a run of about a minute. ``python -m bench --render`` writes
BENCHMARKS.md again from BENCHMARKS.json (after editing ``bench/ANALYSIS.md``);
``python -m bench --ladder`` (``make bench-ladder``) runs the ladder alone and puts it
into the saved measurements of the last full run. ``python -m bench --league``
(``make bench-league``) runs the league reads alone (``BENCH_LEAGUE_SIZES``,
``BENCH_LEAGUE_REPEAT``) on their own database and prints them (with
``BENCH_LEAGUE_OUTPUT``, also as JSON there); BENCHMARKS.md is left as it is.
``python -m bench --corrections`` (``make bench-corrections``) runs the corrections
alone, on its own database, into the saved measurements of the last full run;
``python -m bench --long`` (``make bench-long``) the long game the same way
(``BENCH_LONG_SIZES``, ``BENCH_LONG_REPEAT``).
``python -m bench --load`` (``make bench-load``) runs the live load alone (sections 1–2:
the moves against the baseline at ``BENCH_TABLES``, then the open loop unless
``BENCH_OPEN_TABLES=0``) on its own database and prints it; BENCHMARKS.md is left as it is.
With ``BENCH_SERVERS=2`` it serves from two gunicorn servers on separate ports (one
database), spreads every load process's connections over them in turn, and plays the open
loop's games to their end to check each result against its replay.
The exit status is 1 when a check fails (an error, a result that differs from
the replay, growth worse than linear, query counts that grow), 0 otherwise.
"""

from __future__ import annotations

import datetime as dt
import importlib.metadata
import json
import math
import os
import platform
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench import core, ladder, report
from bench.server import (
    ROOT,
    Gunicorn,
    bench_database,
    cpu_spent,
    gunicorn_server,
    server_facts,
)

LOAD_TIMEOUT_SECONDS = 900


def _ints(name: str, default: str) -> tuple[int, ...]:
    raw = os.environ.get(name) or default
    return tuple(int(part) for part in raw.replace(" ", "").split(",") if part)


def _int(name: str, default: int) -> int:
    return int(os.environ.get(name) or default)


@dataclass(frozen=True)
class Config:
    """What a run does; each field is ``BENCH_<FIELD>`` in the environment."""

    quick: bool
    tables: tuple[int, ...]
    rounds: int
    min_requests: int
    max_requests: int
    load_repeats: int
    workers: int
    threads: int
    worker_class: str
    db_connections: str
    connection: str
    core_records: int
    core_rounds: int
    core_baseline: str
    growth_sizes: tuple[int, ...]
    growth_records: int
    league_sizes: tuple[int, ...]
    league_repeat: int
    profile_games: int
    open_tables: int
    open_period: float
    open_seconds: float
    servers: int
    corrections_repeat: int
    long_sizes: tuple[int, ...]
    long_repeat: int
    ladder_rounds: int
    ladder_game_rounds: int
    ladder_jobs: int
    ladder_ablation: int
    seed: int
    database: str
    output: str

    def rounds_for(self, tables: int) -> int:
        """Rounds a game at ``tables`` tables: ``rounds``, more or fewer to keep a run's
        requests between ``min_requests`` and ``max_requests`` (a round is about 25).

        A run of a few hundred requests lasts seconds, too short to measure a rate; one
        of 40,000 would take the whole run's time budget.
        """
        if tables * self.rounds * 25 > self.max_requests:
            return max(1, self.max_requests // (25 * tables))
        return max(self.rounds, math.ceil(self.min_requests / (25 * tables)))

    @classmethod
    def from_env(cls) -> Config:
        quick = os.environ.get("BENCH_QUICK", "") not in ("", "0", "false", "no")
        return cls(
            quick=quick,
            tables=_ints("BENCH_TABLES", "10,50" if quick else "10,100,500"),
            rounds=_int("BENCH_ROUNDS", 2 if quick else 3),
            min_requests=_int("BENCH_MIN_REQUESTS", 1000 if quick else 4000),
            max_requests=_int("BENCH_MAX_REQUESTS", 5000 if quick else 25000),
            # Each N's moves run this many times between baseline runs (B M B M B): the
            # machine's speed drifts by ±10 % within minutes, and one pair's ratio with it.
            load_repeats=max(1, _int("BENCH_LOAD_REPEATS", 1 if quick else 2)),
            # gunicorn's own advice for a CPU-bound application behind a proxy: sync
            # workers, 2 × cores + 1. Threads in one worker share its GIL: a request waiting
            # for PostgreSQL waits again for the GIL behind another's Python, and the open
            # loop's p99 at 400 moves/s was 1.8 s with 3 gthread workers × 4 threads, 0.2 s
            # with 5 sync workers on the same machine (bench/ANALYSIS.md, eighth pass).
            workers=_int("BENCH_WORKERS", 2 * (os.cpu_count() or 1) + 1),
            threads=_int("BENCH_THREADS", 1),
            worker_class=os.environ.get("BENCH_WORKER_CLASS") or "sync",
            db_connections=os.environ.get("BENCH_DB_CONNECTIONS") or "pool",
            connection=os.environ.get("BENCH_CONNECTION") or "per-request",
            core_records=_int("BENCH_CORE_RECORDS", 40 if quick else 200),
            core_rounds=_int("BENCH_CORE_ROUNDS", 20 if quick else 40),
            # The "before" of the core's before-and-after ("none": skip it).
            core_baseline=os.environ.get("BENCH_CORE_BASELINE") or core.BASELINE_REF,
            growth_sizes=_ints("BENCH_GROWTH_SIZES", "10,20,40,80" if quick else "10,20,40,80,160"),
            growth_records=_int("BENCH_GROWTH_RECORDS", 4 if quick else 10),
            league_sizes=_ints(
                "BENCH_LEAGUE_SIZES", "1000,10000" if quick else "1000,10000,100000"
            ),
            league_repeat=_int("BENCH_LEAGUE_REPEAT", 5 if quick else 15),
            profile_games=_int("BENCH_PROFILE_GAMES", 2 if quick else 4),
            # The open loop: 2,000 tables each moving once every 5 s is 400 moves/s.
            open_tables=_int("BENCH_OPEN_TABLES", 200 if quick else 2000),
            open_period=float(os.environ.get("BENCH_OPEN_PERIOD") or 5.0),
            open_seconds=float(os.environ.get("BENCH_OPEN_SECONDS") or (15 if quick else 60)),
            # ``--load`` with 2 or more: that many gunicorn servers on one database, the
            # load spread over them (``run_load``); the workers are shared out among them.
            servers=max(1, _int("BENCH_SERVERS", 1)),
            corrections_repeat=_int("BENCH_CORRECTIONS_REPEAT", 3 if quick else 10),
            long_sizes=_ints("BENCH_LONG_SIZES", "40,120" if quick else "40,250,600"),
            long_repeat=_int("BENCH_LONG_REPEAT", 1 if quick else 3),
            ladder_rounds=_int("BENCH_LADDER_ROUNDS", 1000 if quick else 10000),
            ladder_game_rounds=_int("BENCH_LADDER_GAME_ROUNDS", 20),
            ladder_jobs=_int("BENCH_LADDER_JOBS", 0),
            ladder_ablation=_int("BENCH_LADDER_ABLATION", 0),
            seed=_int("BENCH_SEED", 1),
            database=os.environ.get("BENCH_DATABASE") or "domeng_bench",
            output=os.environ.get("BENCH_OUTPUT") or str(ROOT / "BENCHMARKS.md"),
        )


def say(line: str) -> None:
    print(f"bench: {line}", flush=True)


def environment(database_url: str) -> dict[str, str]:
    """The machine, the versions, the database server's settings, the date."""
    cpu = "?"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    memory = Path("/proc/meminfo").read_text().splitlines()[0].split()[1]
    os_name = "?"
    for line in Path("/etc/os-release").read_text().splitlines():
        if line.startswith("PRETTY_NAME="):
            os_name = line.split("=", 1)[1].strip('"')

    def version(package: str) -> str:
        try:
            return importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            return "not installed"

    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    changed = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    pg = server_facts(database_url)
    return {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": (commit or "?") + (" (with uncommitted changes)" if changed else ""),
        "CPU": f"{cpu}, {os.cpu_count()} cores",
        "memory": f"{int(memory) / 1024 / 1024:.1f} GiB",
        "OS": f"{os_name}, Linux {platform.release()}",
        "load average at start": " ".join(f"{v:.2f}" for v in os.getloadavg()),
        "Python": platform.python_version(),
        "Django": version("django"),
        "Django REST framework": version("djangorestframework"),
        "psycopg": version("psycopg"),
        "psycopg-pool": version("psycopg-pool"),
        "gunicorn": version("gunicorn"),
        "PostgreSQL": pg.pop("server_version"),
        "PostgreSQL settings": ", ".join(f"{k}={v}" for k, v in pg.items()),
    }


def server_env(config: Config, database_url: str) -> dict[str, str]:
    """The environment of the server (and of this process's Django): production's variables."""
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "bench.settings",
        "DATABASE_URL": database_url,
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost,testserver",
        # 500 tables join from one address in seconds; production's default is 30/min.
        "JOIN_THROTTLE_RATE": "1000000/min",
        "DJANGO_LOG_LEVEL": "WARNING",
        "BENCH_DB_CONNECTIONS": config.db_connections,
        "BENCH_POOL_SIZE": str(config.threads),
        "PYTHONUNBUFFERED": "1",
    }


def load_run(
    base_url: str,
    env: dict[str, str],
    *,
    mode: str,
    tables: int,
    rounds: int,
    seed: int,
    token: str,
    tmp: Path,
    server: Gunicorn,
    config: Config,
    others: Sequence[Gunicorn] = (),
    finish: bool = False,
) -> dict[str, Any]:
    """One load process's run, with the server's CPU time (workers, PostgreSQL) during it.

    ``others``: more app servers on the same database; the load spreads its connections
    over all of them (``bench.load``) and their CPU counts as the server's. ``finish``:
    the open loop's games are played to their end and their results checked."""
    out = tmp / f"{mode}-{tables}-{seed}.json"
    command = [
        sys.executable, "-m", "bench.load", "--base-url", base_url, "--mode", mode,
        "--tables", str(tables), "--rounds", str(rounds), "--seed", str(seed),
        "--organiser-token", token, "--out", str(out), "--connection", config.connection,
        "--period", str(config.open_period), "--seconds", str(config.open_seconds),
        "--server-pid", str(server.process.pid), "--database", config.database,
    ]  # fmt: skip
    for other in others:
        command += ["--base-url", other.base_url, "--server-pid", str(other.process.pid)]
    if finish:
        command.append("--finish")
    everyone = (server, *others)

    def cpu_now() -> dict[str, dict[int, float]]:
        found: dict[str, dict[int, float]] = {"workers": {}, "postgres": {}}
        for one in everyone:
            each = one.cpu_seconds(config.database)
            found["workers"].update(each["workers"])
            found["postgres"].update(each["postgres"])
        return found

    before = cpu_now()
    done = subprocess.run(command, cwd=ROOT, env=env, timeout=LOAD_TIMEOUT_SECONDS, check=False)
    after = cpu_now()
    if done.returncode != 0:
        raise SystemExit(f"bench: the load process failed ({mode}, {tables} tables)")
    raw: dict[str, Any] = json.loads(out.read_text())
    # The load process reads the server's CPU when its clock starts and stops; the whole
    # process's (set-up and results' check included) is kept apart, for the record.
    whole = cpu_spent(before, after)
    raw["whole_run_cpu_seconds"] = {
        k: whole[k] for k in ("workers_cpu_seconds", "postgres_cpu_seconds")
    }
    for key, value in whole.items():
        raw.setdefault(key, value)
    return raw


def run_load(config: Config, env: dict[str, str], token: str, tmp: Path) -> dict[str, Any]:
    """Section 1, 2 and 5: gunicorn, the warm-up, baseline and moves per N, worker memory.

    With ``BENCH_SERVERS`` of 2 or more, that many separate gunicorn servers (each on its
    own port, ``BENCH_WORKERS`` shared out among them, rounded up) on the one database:
    every load process spreads its connections over them in turn, and the open loop's
    games are then played to their end and every result checked against its replay
    (nothing may depend on which process answered)."""
    results: dict[str, Any] = {"load": []}
    count = config.servers
    workers = -(-config.workers // count)
    with ExitStack() as stack:
        servers = [
            stack.enter_context(
                gunicorn_server(
                    env=env,
                    workers=workers,
                    threads=config.threads,
                    worker_class=config.worker_class,
                    log=tmp / f"gunicorn-{index}.log",
                )
            )
            for index in range(count)
        ]
        server, others = servers[0], servers[1:]
        pool = (
            f"psycopg pool of {config.threads} connections per worker"
            if config.db_connections == "pool"
            else "persistent connections (CONN_MAX_AGE=600, health checks)"
        )
        spread = f"{count} gunicorn servers on separate ports, each with " if others else ""
        results["server"] = {
            **server.options,
            "servers": count,
            "db_connections": config.db_connections,
            "connection": config.connection,
            "description": (
                f"{spread}{workers} `{config.worker_class}` workers × {config.threads} threads, "
                f"{pool}, "
                + (
                    "no keep-alive (a sync worker closes each connection)"
                    if config.worker_class == "sync"
                    else "keep-alive 30 s"
                )
                + ", production settings (`bench.settings`)"
            ),
        }
        start_memory = {pid: m for one in servers for pid, m in one.memory().items()}
        say(
            f"gunicorn up at {', '.join(one.base_url for one in servers)}: "
            f"{results['server']['description']}"
        )
        warm = config.workers * config.threads * 2
        for mode in ("baseline", "moves"):
            load_run(server.base_url, env, mode=mode, tables=warm * count, rounds=1,
                     seed=10_000, token=token, tmp=tmp, server=server, config=config,
                     others=others)  # fmt: skip
        for n in config.tables:
            # The baseline runs before and after each run of the moves (B M B, or B M B M B
            # with ``load_repeats`` 2), and the runs of a mode count as one: the machine's
            # other work shifts a short run's rate more than a long one's.
            runs: dict[str, list[dict[str, Any]]] = {"baseline": [], "moves": []}
            rounds = config.rounds_for(n)
            for mode in ("baseline", *("moves", "baseline") * config.load_repeats):
                started = time.perf_counter()
                raw = load_run(server.base_url, env, mode=mode, tables=n, rounds=rounds,
                               seed=config.seed, token=token, tmp=tmp, server=server,
                               config=config, others=others)  # fmt: skip
                runs[mode].append(raw)
                r = report.summarise_load(raw)
                say(
                    f"{n:>4} tables {mode:<8} {r['requests']:>6} requests {r['per_second']:8.1f}/s "
                    f"p50 {r['p50_ms']:7.1f} p95 {r['p95_ms']:7.1f} p99 {r['p99_ms']:7.1f} ms, "
                    f"errors {r['errors']} ({time.perf_counter() - started:.0f} s)"
                )
            row: dict[str, Any] = {
                "moves": report.summarise_load(report.merge_runs(runs["moves"])),
                "baseline": report.summarise_load(report.merge_runs(runs["baseline"])),
            }
            row["baseline"]["each_per_second"] = [
                report.summarise_load(raw)["per_second"] for raw in runs["baseline"]
            ]
            row["moves"]["each_per_second"] = [
                report.summarise_load(raw)["per_second"] for raw in runs["moves"]
            ]
            row["ratio"] = row["baseline"]["per_second"] / row["moves"]["per_second"]
            row["cpu_ratio"] = row["moves"]["server_cpu_ms"] / row["baseline"]["server_cpu_ms"]
            row["p50_ratio"] = row["moves"]["p50_ms"] / row["baseline"]["p50_ms"]
            row["each_ratio"], row["each_cpu_ratio"] = report.pair_ratios(
                runs["moves"], runs["baseline"]
            )
            memory = {pid: m for one in servers for pid, m in one.memory().items()}
            row["peak_worker_mib"] = max(m["VmHWM"] for m in memory.values()) / 1024
            results["load"].append(row)
        results["open_loop"] = run_open_loop(config, env, token, tmp, server, others=others)
        if results["load"] and config.open_tables > 0:
            # Half the rate the closed loop carried at its fewest tables: not saturated.
            rate = results["load"][0]["moves"]["per_second"] / 2
            tables = max(1, int(rate * config.open_period))
            results["open_loop_within"] = run_open_loop(
                config, env, token, tmp, server, tables=tables, others=others
            )
        memory = {pid: m for one in servers for pid, m in one.memory().items()}
        results["memory"] = {
            "peak_worker_mib": max(m["VmHWM"] for m in memory.values()) / 1024,
            "peak_worker_mib_each": [m["VmHWM"] / 1024 for m in memory.values()],
            "start_worker_mib_each": [m["VmRSS"] / 1024 for m in start_memory.values()],
        }
        for one in servers:
            if one.process.poll() is not None:
                raise SystemExit(f"bench: gunicorn died:\n{one.log_tail()}")
    return results


def run_open_loop(
    config: Config,
    env: dict[str, str],
    token: str,
    tmp: Path,
    server: Gunicorn,
    *,
    tables: int | None = None,
    others: Sequence[Gunicorn] = (),
) -> dict[str, Any]:
    """Section 1b: moves at a fixed arrival rate (``bench.load``'s ``open`` mode):
    ``tables`` (``BENCH_OPEN_TABLES``) each moving once every ``BENCH_OPEN_PERIOD`` s.
    With ``others`` (more app servers), the games are then finished and checked."""
    tables = config.open_tables if tables is None else tables
    if tables <= 0:
        return {}
    # Enough events for every table's moves in the run: a round is about 25.
    rounds = max(1, math.ceil(config.open_seconds / config.open_period / 20))
    started = time.perf_counter()
    raw = load_run(server.base_url, env, mode="open", tables=tables, rounds=rounds,
                   seed=config.seed + 1, token=token, tmp=tmp, server=server,
                   config=config, others=others, finish=bool(others))  # fmt: skip
    r = report.summarise_load(raw)
    r.update({key: raw.get(key) for key in ("offered_per_second", "late", "period_seconds",
                                             "run_seconds", "servers",
                                             "workers_cpu_seconds_each_server")})  # fmt: skip
    say(
        f"open loop: {tables} tables × 1 move / {config.open_period:g} s = "
        f"{r['offered_per_second']:.0f} moves/s offered, {r['per_second']:.1f}/s achieved, "
        f"p50 {r['p50_ms']:.1f} p95 {r['p95_ms']:.1f} p99 {r['p99_ms']:.1f} ms, "
        f"late {r['late']}, errors {r['errors']} ({time.perf_counter() - started:.0f} s)"
    )
    say(f"open loop: {report.stall_line(r)}")
    if others:
        each = r.get("workers_cpu_seconds_each_server") or []
        say(
            f"open loop over {len(others) + 1} servers: {r.get('results_equal')} of "
            f"{r.get('games')} finished games' results equal their replay; workers' CPU "
            f"each server {', '.join(f'{s:.1f}' for s in each)} s"
        )
    return r


def run_ladder(config: Config) -> dict[str, Any]:
    """Section 6: the computer seats' strength ladder (R39)."""
    say(f"strength ladder: {config.ladder_rounds} rounds a rung")
    results = ladder.run(
        rounds=config.ladder_rounds,
        game_rounds=config.ladder_game_rounds,
        seed=config.seed,
        jobs=config.ladder_jobs,
        ablation=bool(config.ladder_ablation),
    )
    for row in results["rungs"]:
        a = row["advantage"]
        say(
            f"ladder: {row['tested']} vs 4 {row['field']}: {a['mean']:+.3f} stones "
            f"[{a['low']:+.3f}, {a['high']:+.3f}], p50/p99 {row['ms_per_move']['p50']:.2f}/"
            f"{row['ms_per_move']['p99']:.1f} ms a move ({row['seconds']:.0f} s)"
        )
    for row in results["paired"]:
        d = row["minus_greedy"]
        say(
            f"ladder: {row['tested']} minus greedy vs 4 {row['field']} on the same deals: "
            f"{d['mean']:+.3f} [{d['low']:+.3f}, {d['high']:+.3f}]"
        )
    if "gap_closed" in results:
        g = results["gap_closed"]
        say(f"ladder: strong closes {g['share']:.0%} [{g['low']:.0%}, {g['high']:.0%}] of the gap")
    return results


def run_league_alone(config: Config) -> int:
    """Section 4 alone: league reads at each size, printed (and saved as JSON if asked)."""
    with bench_database(config.database) as database_url:
        os.environ.update(server_env(config, database_url))
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connections

        from bench import league

        try:
            call_command("migrate", verbosity=0)
            say(f"league reads at {', '.join(map(str, config.league_sizes))} rounds")
            results = league.run(sizes=config.league_sizes, repeat=config.league_repeat)
        finally:
            connections.close_all()
    for lg in results["leagues"]:
        say(
            f"league of {lg['rounds']:,} rounds built in {lg['build_seconds']:.1f} s "
            f"(stored totals and ratings counted in {lg['recount_seconds']:.2f} s)"
        )
    for m in [*results["measurements"], *results["refolds"]]:
        say(
            f"{m['rounds']:>7,} rounds  {m['endpoint']:<36} {m['ms_median']:8.1f} ms median "
            f"({m['ms_min']:.1f} min), {m['queries']} queries"
        )
    if os.environ.get("BENCH_LEAGUE_OUTPUT"):
        Path(os.environ["BENCH_LEAGUE_OUTPUT"]).write_text(
            json.dumps(results, indent=1, default=str) + "\n", encoding="utf-8"
        )
    failed = [what for what, ok in report.checks({"league": results}) if not ok]
    for what in failed:
        say(f"FAILED: {what}")
    return 1 if failed else 0


def run_corrections(config: Config, token: str) -> dict[str, Any]:
    """Section 5: corrections of round 1 of a 40-round game (R35–R37), in-process."""
    from bench import corrections

    say(f"corrections of round 1 of a 40-round game, {config.corrections_repeat} times each way")
    results = corrections.run(repeat=config.corrections_repeat, token=token)
    for line in corrections.say_lines(results):
        say(line)
    return results


def run_long_game(config: Config, token: str) -> dict[str, Any]:
    """Section 7: a long game's reads and rulings at each size (R27), in-process."""
    from bench import long_game

    sizes = ", ".join(map(str, config.long_sizes))
    say(f"a long game at {sizes} rounds, each request {config.long_repeat} times")
    results = long_game.run(sizes=config.long_sizes, repeat=config.long_repeat, token=token)
    for line in long_game.say_lines(results):
        say(line)
    return results


def corrections_alone(config: Config) -> int:
    """``--corrections``: the corrections section alone, into the last full run's report."""
    return section_alone(
        config,
        "corrections",
        run_corrections,
        {"BENCH_CORRECTIONS_REPEAT": config.corrections_repeat},
    )


def long_game_alone(config: Config) -> int:
    """``--long``: the long game section alone, into the last full run's report."""
    return section_alone(
        config,
        "long_game",
        run_long_game,
        {
            "BENCH_LONG_SIZES": ",".join(map(str, config.long_sizes)),
            "BENCH_LONG_REPEAT": config.long_repeat,
        },
    )


def section_alone(
    config: Config,
    name: str,
    run: Any,
    knobs: dict[str, Any],
) -> int:
    """One in-process section on its own database, into the last full run's report."""
    with bench_database(config.database) as database_url:
        os.environ.update(server_env(config, database_url))
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connections

        from referee.management.commands.demo import create_organiser

        try:
            call_command("migrate", verbosity=0)
            found = run(config, create_organiser("bench-organiser"))
        finally:
            for connection in connections.all():
                connection.close()
                close_pool = getattr(connection, "close_pool", None)
                if close_pool is not None:
                    close_pool()
    output = Path(config.output)
    saved_path = output.with_suffix(".json")
    saved = json.loads(saved_path.read_text(encoding="utf-8")) if saved_path.exists() else {}
    saved[name] = found
    saved.setdefault("config", {}).update(knobs)
    output.write_text(report.render(saved), encoding="utf-8")
    saved_path.write_text(json.dumps(saved, indent=1) + "\n", encoding="utf-8")
    failed = [what for what, ok in report.checks({name: found}) if not ok]
    for what in failed:
        say(f"FAILED: {what}")
    return 1 if failed else 0


def verdict(results: dict[str, Any]) -> int:
    """Say issue 14's targets (met or not) and the failed checks; 1 if a check failed."""
    for what, ok in report.targets(results):
        say(f"target {'met' if ok else 'NOT MET'}: {what}")
    failed = [what for what, ok in report.checks(results) if not ok]
    for what in failed:
        say(f"FAILED: {what}")
    return 1 if failed else 0


def load_alone(config: Config) -> int:
    """``--load``: the live load alone (moves, baseline, open loop), printed with its ratios."""
    with (
        tempfile.TemporaryDirectory(prefix="domeng-bench-") as tmp_name,
        bench_database(config.database) as database_url,
    ):
        env = server_env(config, database_url)
        os.environ.update(env)
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connections

        from referee.management.commands.demo import create_organiser

        call_command("migrate", verbosity=0)
        token = create_organiser("bench-organiser")
        connections.close_all()  # the server's workers get their own
        results = run_load(config, env, token, Path(tmp_name))
    for row in results["load"]:
        moves, baseline = row["moves"], row["baseline"]
        say(
            f"{moves['tables']:>4} tables: ratio {row['ratio']:.2f}x (throughput), "
            f"{row['cpu_ratio']:.2f}x (server CPU ms a request: {moves['workers_cpu_ms']:.2f} + "
            f"{moves['postgres_cpu_ms']:.2f} PG vs {baseline['workers_cpu_ms']:.2f} + "
            f"{baseline['postgres_cpu_ms']:.2f} PG); each run: "
            f"{', '.join(f'{r:.2f}' for r in row['each_ratio'])} (throughput), "
            f"{', '.join(f'{r:.2f}' for r in row['each_cpu_ratio'])} (CPU)"
        )
    return verdict(results)


def main() -> int:
    config = Config.from_env()
    if sys.argv[1:] == ["--load"]:
        return load_alone(config)
    if sys.argv[1:] == ["--league"]:
        return run_league_alone(config)
    if sys.argv[1:] == ["--corrections"]:
        return corrections_alone(config)
    if sys.argv[1:] == ["--long"]:
        return long_game_alone(config)
    if sys.argv[1:] == ["--render"]:  # after editing bench/ANALYSIS.md: no new measurement
        output = Path(config.output)
        saved = json.loads(output.with_suffix(".json").read_text(encoding="utf-8"))
        output.write_text(report.render(saved), encoding="utf-8")
        say(f"rendered {output} from {output.with_suffix('.json').name}")
        return 0
    if sys.argv[1:] == ["--ladder"]:  # the ladder alone, into the last full run's report
        output = Path(config.output)
        saved_path = output.with_suffix(".json")
        saved = json.loads(saved_path.read_text(encoding="utf-8")) if saved_path.exists() else {}
        saved["ladder"] = run_ladder(config)
        for key in (
            "BENCH_LADDER_ROUNDS",
            "BENCH_LADDER_GAME_ROUNDS",
            "BENCH_LADDER_JOBS",
            "BENCH_LADDER_ABLATION",
        ):
            saved.setdefault("config", {})[key] = getattr(config, key[6:].lower())
        output.write_text(report.render(saved), encoding="utf-8")
        saved_path.write_text(json.dumps(saved, indent=1) + "\n", encoding="utf-8")
        failed = [what for what, ok in report.checks({"ladder": saved["ladder"]}) if not ok]
        for what in failed:
            say(f"FAILED: {what}")
        return 1 if failed else 0
    started = time.perf_counter()
    results: dict[str, Any] = {
        "config": {f"BENCH_{k.upper()}": v for k, v in asdict(config).items()}
    }
    results["config"] = {
        k: ",".join(map(str, v)) if isinstance(v, tuple) else v
        for k, v in results["config"].items()
    }
    say("rules core: generating records and replaying them")
    results["core"] = core.run(
        records=config.core_records,
        rounds=config.core_rounds,
        sizes=config.growth_sizes,
        records_per_size=config.growth_records,
        seed=config.seed,
        baseline=None if config.core_baseline == "none" else config.core_baseline,
    )
    say(f"rules core: {results['core']['throughput']['rounds_per_second']:.0f} rounds/s")
    if "before_after" in results["core"]:
        say(f"rules core: {results['core']['before_after']['ratio']:.2f}x the baseline's")
    results["ladder"] = run_ladder(config)
    with (
        tempfile.TemporaryDirectory(prefix="domeng-bench-") as tmp_name,
        bench_database(config.database) as database_url,
    ):
        tmp = Path(tmp_name)
        say(f"database {config.database} created")
        results["environment"] = environment(database_url)
        env = server_env(config, database_url)
        os.environ.update(env)
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connections
        from django.urls import get_resolver

        # Import every view and service now: the in-process parts then run the code the
        # server's workers loaded, even if the tree is edited during the run.
        get_resolver().url_patterns  # noqa: B018
        from bench import league, profiling
        from referee.management.commands.demo import create_organiser

        try:
            call_command("migrate", verbosity=0)
            token = create_organiser("bench-organiser")
            connections.close_all()  # the server's workers get their own
            results.update(run_load(config, env, token, tmp))
            say("profiling move requests in-process")
            results["profile"] = profiling.run(games=config.profile_games, seed=config.seed)
            say(f"league reads at {', '.join(map(str, config.league_sizes))} rounds")
            results["league"] = league.run(sizes=config.league_sizes, repeat=config.league_repeat)
            results["corrections"] = run_corrections(config, token)
            results["long_game"] = run_long_game(config, token)
        finally:
            for connection in connections.all():
                connection.close()
                close_pool = getattr(connection, "close_pool", None)
                if close_pool is not None:
                    close_pool()
    results["environment"]["load average at end"] = " ".join(f"{v:.2f}" for v in os.getloadavg())
    results["total_seconds"] = time.perf_counter() - started
    output = Path(config.output)
    output.write_text(report.render(results), encoding="utf-8")
    output.with_suffix(".json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    say(
        f"wrote {output} and {output.with_suffix('.json').name} in {results['total_seconds']:.0f} s"
    )
    return verdict(results)


if __name__ == "__main__":
    sys.exit(main())
