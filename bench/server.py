"""The benchmark's own database and its gunicorn server, both gone when the run ends.

``bench_database`` creates the dedicated database (``domeng_bench`` unless
``BENCH_DATABASE`` says otherwise) on the server that ``DATABASE_URL`` names,
and drops it afterwards; no other database is touched. ``gunicorn_server``
runs ``config.wsgi`` under ``bench.settings`` on a free port of 127.0.0.1.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import sql

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SERVER_URL = "postgres://postgres@127.0.0.1:5432/postgres"
DATABASE_NAME_RE = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
START_SECONDS = 60.0


def database_url(name: str, server_url: str | None = None) -> str:
    """``server_url`` (default: ``DATABASE_URL``, else local PostgreSQL) with database ``name``."""
    parts = urlsplit(server_url or os.environ.get("DATABASE_URL") or DEFAULT_SERVER_URL)
    if parts.scheme not in {"postgres", "postgresql", "pgsql"}:
        raise SystemExit(f"bench: PostgreSQL only, not {parts.scheme}:// (DATABASE_URL)")
    return urlunsplit(parts._replace(path=f"/{name}"))


@contextmanager
def bench_database(name: str) -> Iterator[str]:
    """Create database ``name`` (dropped first if a killed run left it) and drop it afterwards."""
    if not DATABASE_NAME_RE.match(name) or not name.startswith("domeng_bench"):
        raise SystemExit(f"bench: refusing database {name!r}: its name must start domeng_bench")
    url = database_url(name)
    maintenance = database_url("postgres")
    with psycopg.connect(maintenance, autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield url
    finally:
        with psycopg.connect(maintenance, autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


def server_facts(url: str) -> dict[str, str]:
    """PostgreSQL's version and the settings that weigh on a write-heavy load."""
    names = [
        "server_version",
        "max_connections",
        "shared_buffers",
        "synchronous_commit",
        "fsync",
        "wal_level",
        "work_mem",
    ]
    with psycopg.connect(url, autocommit=True) as conn:
        return {
            n: str(conn.execute(sql.SQL("SHOW {}").format(sql.Identifier(n))).fetchone()[0])
            for n in names
        }


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (a gunicorn master's workers), from /proc."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            pids.append(int(entry.name))
    return sorted(pids)


def server_cpu_seconds(master_pid: int, database: str) -> dict[str, dict[int, float]]:
    """CPU time (user + system, seconds) so far of each worker of the gunicorn master
    ``master_pid`` and of each PostgreSQL backend serving ``database`` (its process title
    names the database): ``{"workers": {pid: s}, "postgres": {pid: s}}``."""
    found: dict[str, dict[int, float]] = {"workers": {}, "postgres": {}}
    ticks = os.sysconf("SC_CLK_TCK")
    workers = set(children(master_pid))
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        try:
            if pid in workers:
                kind = "workers"
            else:
                title = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                if not title.startswith("postgres: ") or f" {database} " not in title:
                    continue
                kind = "postgres"
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        found[kind][pid] = (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
    return found


def cpu_spent(
    before: dict[str, dict[int, float]], after: dict[str, dict[int, float]]
) -> dict[str, Any]:
    """What ``server_cpu_seconds`` rose by from ``before`` to ``after``: the workers' and
    PostgreSQL's seconds in all, and each worker's (by pid)."""
    spent: dict[str, Any] = {}
    for kind in ("workers", "postgres"):
        each = {pid: cpu - before[kind].get(pid, 0.0) for pid, cpu in after[kind].items()}
        spent[f"{kind}_cpu_seconds"] = sum(each.values())
        if kind == "workers":
            spent["cpu_seconds_each_worker"] = [each[pid] for pid in sorted(each)]
    return spent


@dataclass
class Gunicorn:
    """A running gunicorn: its master process, base URL and options."""

    base_url: str
    process: subprocess.Popen[bytes]
    options: dict[str, str | int]
    log: Path
    rss_samples: dict[int, int] = field(default_factory=dict)

    def worker_pids(self) -> list[int]:
        """The master's children (its workers), from /proc."""
        return children(self.process.pid)

    def memory(self) -> dict[int, dict[str, int]]:
        """Each worker's current (VmRSS) and peak (VmHWM) resident memory, in KiB."""
        found = {}
        for pid in self.worker_pids():
            try:
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue
            values = dict(re.findall(r"^(VmRSS|VmHWM):\s+(\d+) kB", status, re.MULTILINE))
            found[pid] = {key: int(value) for key, value in values.items()}
        return found

    def cpu_seconds(self, database: str) -> dict[str, dict[int, float]]:
        """CPU time so far of each worker and PostgreSQL backend (``server_cpu_seconds``)."""
        return server_cpu_seconds(self.process.pid, database)

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


@contextmanager
def gunicorn_server(
    *, env: dict[str, str], workers: int, threads: int, worker_class: str, log: Path
) -> Iterator[Gunicorn]:
    """gunicorn serving ``config.wsgi:application`` with ``env`` (bench settings), then stopped."""
    port = free_port()
    options: dict[str, str | int] = {
        "worker_class": worker_class,
        "workers": workers,
        "threads": threads,
        "keep_alive": 30,
        "backlog": 2048,
    }
    command = [
        str(Path(sys.executable).with_name("gunicorn")),
        "config.wsgi:application",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(workers),
        "--worker-class",
        worker_class,
        "--threads",
        str(threads),
        "--keep-alive",
        "30",
        "--backlog",
        "2048",
        "--timeout",
        "120",
        "--graceful-timeout",
        "10",
        "--log-level",
        "warning",
        "--error-logfile",
        "-",
    ]
    with log.open("wb") as out:
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    server = Gunicorn(f"http://127.0.0.1:{port}", process, options, log)
    try:
        _wait_until_up(server, workers)
        yield server
    finally:
        _stop(process)


def _wait_until_up(server: Gunicorn, workers: int) -> None:
    deadline = time.monotonic() + START_SECONDS
    while True:
        if server.process.poll() is not None:
            raise SystemExit(f"bench: gunicorn exited at start:\n{server.log_tail()}")
        if time.monotonic() > deadline:
            raise SystemExit(f"bench: gunicorn did not answer in {START_SECONDS:.0f} s")
        request = urllib.request.Request(
            server.base_url + "/api/v1/games/", headers={"X-Forwarded-Proto": "https"}
        )
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        try:
            opener.open(request, timeout=5).close()
        except urllib.error.HTTPError:
            if len(server.worker_pids()) >= workers:
                return
        except OSError:
            pass
        time.sleep(0.2)


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)  # gunicorn's graceful stop of master and workers
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # its own session: the master and its workers
        process.wait()
