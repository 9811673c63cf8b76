"""BENCHMARKS.md from a run's measurements (a dict, also saved as JSON beside it).

``render(results)`` is pure: the same measurements give the same Markdown.
The analysis written by hand (``bench/ANALYSIS.md``: where the time goes,
what was changed because of it) is appended as it is.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ANALYSIS = Path(__file__).with_name("ANALYSIS.md")


def squash_sql(sql: str, width: int = 140) -> str:
    """A statement on one line, its SELECT list elided: what it reads, filters and locks."""
    text = re.sub(r"^SELECT .*? FROM ", "SELECT … FROM ", " ".join(sql.split()))
    text = re.sub(r'"\w+"\.', "", text).replace('"', "")  # "table"."column" → column
    return text if len(text) <= width else text[: width - 1] + "…"


def percentile(values: Sequence[float], fraction: float) -> float:
    """The ``fraction`` percentile (0–1) of ``values``, linearly interpolated; NaN if empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    position = (len(ordered) - 1) * fraction
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def merge_runs(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Several load runs of one mode as one: requests, time, errors and latencies added up."""
    merged = dict(runs[0])
    for key in ("requests", "expected_requests", "wall_seconds", "load_cpu_seconds", "errors",
                "reconnects", "workers_cpu_seconds", "postgres_cpu_seconds", "wal_bytes",
                "checkpoints"):  # fmt: skip
        merged[key] = sum(run.get(key) or 0 for run in runs)
    for key in ("games", "results_equal"):  # the moves' results check, if any
        if any(key in run for run in runs):
            merged[key] = sum(run.get(key) or 0 for run in runs)
    if any("result_problems" in run for run in runs):
        merged["result_problems"] = [p for run in runs for p in run.get("result_problems") or []][
            :5
        ]
    merged["latencies"] = [value for run in runs for value in run.get("latencies") or []]
    merged["error_samples"] = [s for run in runs for s in run.get("error_samples") or []][:5]
    merged["runs"] = len(runs)
    return merged


def pair_ratios(
    moves: Sequence[dict[str, Any]], baseline: Sequence[dict[str, Any]]
) -> tuple[list[float], list[float]]:
    """Each run of the moves against the baseline runs on either side of it (B M B M B):
    the throughput ratios and the server CPU ratios, one per run of the moves — the
    spread that the pooled ratio hides."""
    throughput, cpu = [], []
    for index, run in enumerate(moves):
        around = merge_runs(baseline[index : index + 2])
        m, b = summarise_load(run), summarise_load(around)
        throughput.append(b["per_second"] / m["per_second"])
        cpu.append(m["server_cpu_ms"] / b["server_cpu_ms"])
    return throughput, cpu


def summarise_load(raw: dict[str, Any]) -> dict[str, Any]:
    """Requests per second, latency percentiles (ms), errors of one load run."""
    latencies = raw.get("latencies") or []
    wall = raw.get("wall_seconds") or math.nan
    summary = {
        key: raw.get(key)
        for key in (
            "mode",
            "tables",
            "rounds",
            "requests",
            "expected_requests",
            "errors",
            "error_samples",
            "reconnects",
            "games",
            "results_equal",
            "result_problems",
            "load_cpu_seconds",
            "runs",
            "cpu_seconds_each_worker",
            "checkpoints",
            "timeline",
        )
        if key in raw
    }
    requests = raw.get("requests") or 0
    workers_ms = (raw.get("workers_cpu_seconds") or 0.0) / max(requests, 1) * 1e3
    postgres_ms = (raw.get("postgres_cpu_seconds") or 0.0) / max(requests, 1) * 1e3
    summary.update(
        workers_cpu_ms=workers_ms,
        postgres_cpu_ms=postgres_ms,
        server_cpu_ms=workers_ms + postgres_ms,
        wal_bytes_per_request=(raw["wal_bytes"] / max(requests, 1)) if "wal_bytes" in raw else None,
        wall_seconds=wall,
        per_second=(raw.get("requests") or 0) / wall,
        p50_ms=percentile(latencies, 0.50) * 1e3,
        p95_ms=percentile(latencies, 0.95) * 1e3,
        p99_ms=percentile(latencies, 0.99) * 1e3,
        max_ms=max(latencies) * 1e3 if latencies else math.nan,
    )
    return summary


MOVE_COST_TARGET = 1.5
"""Issue 14: a move costs at most this many bare INSERT requests (throughput and CPU)."""
OPEN_LOOP_P99_TARGET_MS = 100.0
"""Issue 14: the open loop's p99 at its offered rate (400 moves/s)."""


def targets(results: dict[str, Any]) -> list[tuple[str, bool]]:
    """Issue 14's performance targets, each with whether this run met it."""
    found: list[tuple[str, bool]] = []
    for row in results.get("load", []):
        n = row["moves"].get("tables")
        found.append(
            (
                f"N={n}: a move costs at most {MOVE_COST_TARGET:g}x the bare INSERT: "
                f"throughput {row['ratio']:.2f}x, server CPU {row.get('cpu_ratio', math.nan):.2f}x",
                max(row["ratio"], row.get("cpu_ratio", math.inf)) <= MOVE_COST_TARGET,
            )
        )
    for key in ("open_loop", "open_loop_within"):
        o = results.get(key)
        if o:
            found.append(
                (
                    f"open loop at {o['offered_per_second']:.0f} moves/s offered "
                    f"({o['per_second']:.0f}/s achieved): p99 {o['p99_ms']:,.1f} ms under "
                    f"{OPEN_LOOP_P99_TARGET_MS:g} ms",
                    o["p99_ms"] < OPEN_LOOP_P99_TARGET_MS,
                )
            )
    return found


def checks(results: dict[str, Any]) -> list[tuple[str, bool]]:
    """Every pass/fail condition of the issue, in the report's order."""
    found: list[tuple[str, bool]] = []
    for row in results.get("load", []):
        moves, baseline = row["moves"], row["baseline"]
        n = moves.get("tables")
        found.append((f"N={n}: no error in the move run", moves.get("errors") == 0))
        found.append((f"N={n}: no error in the baseline run", baseline.get("errors") == 0))
        found.append(
            (
                f"N={n}: every game's GET /result/ equals replay_record(record)",
                moves.get("results_equal") == moves.get("games"),
            )
        )
    for key in ("open_loop", "open_loop_within"):
        if results.get(key):
            rate = results[key].get("offered_per_second") or 0
            found.append((f"open loop at {rate:.0f}/s: no error", results[key].get("errors") == 0))
            if "games" in results[key]:  # finished and checked (more than one app server)
                found.append(
                    (
                        f"open loop at {rate:.0f}/s: every finished game's GET /result/ "
                        "equals replay_record(record)",
                        results[key].get("results_equal") == results[key].get("games"),
                    )
                )
    if "core" in results:
        found.append(
            (
                "core: replay cost grows linearly or better",
                results["core"]["growth"]["is_linear_or_better"],
            )
        )
        before_after = results["core"].get("before_after")
        if before_after:
            found.append(
                (
                    f"core: at least {before_after['target']:g}x the replay rate of "
                    f"{before_after['ref']} (issue 14)",
                    before_after["ratio"] >= before_after["target"],
                )
            )
    if "league" in results:
        found.append(
            (
                "league: queries per request do not grow with the season",
                results["league"]["queries_constant"],
            )
        )
    if "corrections" in results:
        c = results["corrections"]
        found.append(
            (
                f"corrections: after each of {c['all']['n']} corrections of round 1 of a "
                f"{c['rounds']}-round game, its result equals the replay of its record and "
                "its league rows those of the replay",
                not c["failures"],
            )
        )
    if "long_game" in results:
        lg = results["long_game"]
        found.append(
            (
                f"long game: after the rulings at {', '.join(map(str, lg['sizes']))} rounds, "
                "each result equals the replay of its record",
                not lg["failures"],
            )
        )
    if "ladder" in results:
        found += _ladder_checks(results["ladder"])
    return found


def _ladder_checks(ladder: dict[str, Any]) -> list[tuple[str, bool]]:
    found: list[tuple[str, bool]] = []
    for row in ladder["rungs"]:
        found.append(
            (
                f"ladder: every {row['tested']}-vs-{row['field']} record replays to its result",
                row["replays_equal"] == row["games"],
            )
        )
    strong = next(
        (r for r in ladder["rungs"] if r["tested"] == "strong" and r["field"] == "greedy"), None
    )
    if strong is not None:
        high = strong["advantage"]["high"]
        found.append(
            (
                "ladder: strong holds measurably fewer stones than greedy in its seat "
                "(the 95 % interval of the difference is below 0)",
                high is not None and high < 0,
            )
        )
    p99 = max(
        (r["ms_per_move"]["p99"] for r in ladder["rungs"] if r["tested"] == "strong"), default=0
    )
    if strong is not None:
        found.append(
            (
                f"ladder: strong's p99 time per move ≤ {ladder['max_ms_per_move']:.0f} ms",
                p99 <= ladder["max_ms_per_move"],
            )
        )
    for row in ladder.get("paired", ()):
        if row["tested"] != "strong":
            continue
        high = row["minus_greedy"]["high"]
        found.append(
            (
                f"ladder: strong beats greedy against four {row['field']} on the same deals "
                "(the 95 % interval of strong minus greedy is below 0)",
                high is not None and high < 0,
            )
        )
    gap = ladder.get("gap_closed")
    if gap is not None:
        found.append(
            (
                "ladder: strong closes at least half of the gap between greedy and the "
                "omniscient seat (the interval's centre)",
                gap["share"] is not None and gap["share"] >= 0.5,
            )
        )
    return found


def _f(value: Any, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _table(head: Sequence[str], rows: Sequence[Sequence[Any]], align: str = "") -> list[str]:
    align = align or "l" + "r" * (len(head) - 1)
    marks = {"l": "---", "r": "--:", "c": ":-:"}
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(marks[a] for a in align) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return lines + [""]


def render(results: dict[str, Any]) -> str:
    """The whole report as Markdown."""
    env = results.get("environment", {})
    config = results.get("config", {})
    out: list[str] = [
        "# Benchmarks",
        "",
        "Written by `make bench` (`python -m bench`, see `bench/__init__.py`); do not edit",
        "by hand, except `bench/ANALYSIS.md`, which is appended below. The figure we track",
        "is the **ratio** of a move's cost to the baseline's on the same server in the same",
        "run, not an absolute time.",
        "",
        f"Run of {env.get('date', '?')}"
        + (" — **quick run (BENCH_QUICK=1)**" if config.get("BENCH_QUICK") else "")
        + f", {_f(results.get('total_seconds'), 0)} s in all.",
        "",
    ]
    verdicts = checks(results)
    if verdicts:
        out += ["## Checks", ""]
        out += [f"- {'PASS' if ok else '**FAIL**'}: {what}" for what, ok in verdicts]
        out.append("")
    aims = targets(results)
    if aims:
        out += [
            "## Targets of issue 14",
            "",
            "What the issue aims at, measured on this machine; unlike the checks above, a",
            "target not met does not fail the run (bench/ANALYSIS.md says why it is not met).",
            "",
        ]
        out += [f"- {'met' if ok else '**not met**'}: {what}" for what, ok in aims]
        out.append("")
    out += _summary(results)
    out += _environment(env, config)
    if "load" in results:
        out += _load(results)
    if "core" in results:
        out += _core(results["core"])
    if "league" in results:
        out += _league(results["league"])
    if "profile" in results:
        out += _profile(results["profile"])
    if "corrections" in results:
        out += _corrections(results["corrections"])
    if "long_game" in results:
        out += _long_game(results["long_game"])
    if "ladder" in results:
        out += _ladder(results["ladder"])
    if ANALYSIS.exists() and results.get("include_analysis", True):
        out += ["", ANALYSIS.read_text(encoding="utf-8").rstrip(), ""]
    return "\n".join(out).rstrip() + "\n"


def _spread(row: dict[str, Any]) -> str:
    """Each run of the moves' ratios, when there were several (``pair_ratios``)."""
    each, each_cpu = row.get("each_ratio") or [], row.get("each_cpu_ratio") or []
    if len(each) < 2:
        return ""
    return (
        f" (each run of the moves against the baseline around it: throughput "
        f"{', '.join(_f(v, 2) for v in each)}; CPU {', '.join(_f(v, 2) for v in each_cpu)})"
    )


def _summary(results: dict[str, Any]) -> list[str]:
    lines = ["## Summary", ""]
    for row in results.get("load", []):
        m, b = row["moves"], row["baseline"]
        lines.append(
            f"- **{m['tables']} tables**: {_f(m['per_second'])} moves/s "
            f"(p50 {_f(m['p50_ms'])} ms, p95 {_f(m['p95_ms'])} ms, p99 {_f(m['p99_ms'])} ms), "
            f"baseline {_f(b['per_second'])} req/s; **ratio {_f(row['ratio'], 2)}×** "
            f"(baseline req/s ÷ moves/s; server CPU per request: "
            f"{_f(row.get('cpu_ratio'), 2)}×){_spread(row)}; errors {m['errors']} + {b['errors']}; "
            f"results equal {m.get('results_equal')}/{m.get('games')}."
        )
    for o in [results[k] for k in ("open_loop", "open_loop_within") if results.get(k)]:
        lines.append(
            f"- **Open loop**: {_f(o['tables'])} tables, one move each every "
            f"{_f(o['period_seconds'], 0)} s = {_f(o['offered_per_second'])} moves/s offered, "
            f"{_f(o['per_second'])}/s achieved: p50 {_f(o['p50_ms'])} ms, p95 {_f(o['p95_ms'])} "
            f"ms, **p99 {_f(o['p99_ms'])} ms**; {_f(o['late'])} moves sent late; errors "
            f"{o['errors']}."
        )
    if "memory" in results:
        lines.append(
            f"- Peak RSS of a gunicorn worker: **{_f(results['memory']['peak_worker_mib'])} MiB**."
        )
    if "core" in results:
        t, g = results["core"]["throughput"], results["core"]["growth"]
        lines.append(
            f"- Rules core: **{_f(t['rounds_per_second'], 0)} rounds/s** "
            f"({_f(t['moves_per_second'], 0)} moves/s) replayed; cost ∝ rounds^{g['exponent']:.2f} "
            f"(≈ {_f(g['slope_microseconds_per_round'], 0)} µs a round)."
        )
    if "league" in results:
        by = {}
        for m in results["league"]["measurements"]:
            by.setdefault(m["endpoint"], []).append(m)
        parts = []
        for endpoint, ms in by.items():
            times = " / ".join(f"{_f(m['ms_median'])}" for m in ms)
            parts.append(f"{endpoint}: {times} ms, {ms[0]['queries']} queries")
        sizes = " / ".join(f"{s:,}" for s in results["league"]["sizes"])
        lines.append(f"- League reads at {sizes} rounds: " + "; ".join(parts) + ".")
    if "profile" in results:
        p = results["profile"]
        lines.append(
            f"- One move in-process: {_f(p['wall_ms_mean'], 2)} ms mean, of which SQL "
            f"{_f(p['sql_ms_mean'], 2)} ms over {_f(p['queries_median'], 0)} queries."
        )
    if "corrections" in results:
        c = results["corrections"]
        lines.append(
            f"- Correcting round 1 of a {c['rounds']}-round game ({c['events']} events): "
            f"**{_f(c['all']['mean_ms'])} ms** mean, p50 {_f(c['all']['p50_ms'])} ms, max "
            f"{_f(c['all']['max_ms'])} ms, at most {c['all']['queries']} queries "
            f"({c['all']['n']} corrections)."
        )
    if "ladder" in results:
        for row in results["ladder"]["rungs"]:
            a = row["advantage"]
            lines.append(
                f"- Ladder: **{row['tested']}** against four {row['field']} holds "
                f"**{_f(a['mean'], 2)}** stones a round more than they do "
                f"(95 % CI {_f(a['low'], 2)} to {_f(a['high'], 2)}; {_f(row['rounds'])} rounds); "
                f"{_f(row['ms_per_move']['p50'], 2)} / {_f(row['ms_per_move']['p99'], 1)} ms "
                "a move (p50/p99)."
            )
    return lines + [""]


def _environment(env: dict[str, Any], config: dict[str, Any]) -> list[str]:
    lines = ["## Machine, versions, settings", ""]
    rows = [[key, value] for key, value in env.items()]
    lines += _table(["", ""], rows, "ll")
    lines += ["Benchmark settings (environment variables of `make bench`):", ""]
    lines += _table(["setting", "value"], [[k, f"`{v}`"] for k, v in config.items()], "ll")
    return lines


def _load(results: dict[str, Any]) -> list[str]:
    server = results.get("server", {})
    lines = [
        "## 1–2. Live play under load, and the baseline",
        "",
        f"gunicorn {server.get('description', '')}. {_connection_text(server)} Each table",
        "sends its next request as soon as the last is answered (no think time): a closed",
        "loop, so at saturation latency ≈ tables ÷ throughput (Little's law), and the server",
        "is saturated from about 10 tables on. A *move* is `POST /games/{id}/moves/` or, at a",
        "blocked round,",
        "`POST /reveals/`, with a scorekeeper's table token. The *baseline* is",
        "`POST /bench/baseline/` (one INSERT in one transaction, same middleware and DRF),",
        "the same bodies from the same number of tables, once before and once after the",
        "moves (counted together: requests ÷ time of both). Games are created and joined before",
        "the clock starts; `GET /result/` is compared with `replay_record(record)` after it stops.",
        "The server's CPU (gunicorn's workers and PostgreSQL's backends, from /proc) is read",
        "by the load process when its clock starts and stops: it counts the timed requests",
        "only, not the set-up or the results' check.",
        "",
    ]
    head = [
        "tables",
        "endpoint",
        "requests",
        "per s",
        "p50 ms",
        "p95 ms",
        "p99 ms",
        "max ms",
        "errors",
        "server CPU ms / req",
        "WAL B / req",
        "load CPU s",
    ]
    rows = []
    for row in results["load"]:
        for name in ("moves", "baseline"):
            r = row[name]
            rows.append(
                [
                    _f(r["tables"]),
                    "move" if name == "moves" else "baseline",
                    _f(r["requests"]),
                    _f(r["per_second"]),
                    _f(r["p50_ms"]),
                    _f(r["p95_ms"]),
                    _f(r["p99_ms"]),
                    _f(r["max_ms"]),
                    _f(r["errors"]),
                    f"{_f(r.get('workers_cpu_ms'), 2)} + {_f(r.get('postgres_cpu_ms'), 2)} PG",
                    _f(r.get("wal_bytes_per_request"), 0),
                    _f(r.get("load_cpu_seconds"), 2),
                ]
            )
    lines += _table(head, rows, "rlrrrrrrrrrr")
    head = [
        "tables",
        "rounds a game",
        "ratio (baseline/s ÷ moves/s)",
        "server CPU ratio",
        "p50 ratio",
        "baseline/s before, after",
        "results equal",
        "worker peak RSS MiB",
        "worker CPU s (moves)",
    ]
    rows = [
        [
            _f(row["moves"]["tables"]),
            _f(row["moves"].get("rounds")),
            f"**{_f(row['ratio'], 2)}×**",
            f"{_f(row.get('cpu_ratio'), 2)}×",
            f"{_f(row['p50_ratio'], 2)}×",
            ", ".join(_f(v) for v in row["baseline"].get("each_per_second") or []),
            f"{row['moves'].get('results_equal')}/{row['moves'].get('games')}",
            _f(row.get("peak_worker_mib")),
            " / ".join(_f(s) for s in row["moves"].get("cpu_seconds_each_worker") or []),
        ]
        for row in results["load"]
    ]
    lines += _table(head, rows)
    problems = [
        s
        for row in results["load"]
        for n in ("moves", "baseline")
        for s in (row[n].get("error_samples") or []) + (row[n].get("result_problems") or [])
    ]
    if problems:
        lines += ["First errors:", ""] + [f"- `{p}`" for p in problems[:10]] + [""]
    lines += _open_loop(results.get("open_loop") or {}, results.get("open_loop_within") or {})
    if "memory" in results:
        mem = results["memory"]
        lines += [
            "## 5. Memory",
            "",
            f"Peak resident memory (VmHWM, /proc) of each gunicorn worker over the whole load run: "
            f"{', '.join(_f(v) for v in mem['peak_worker_mib_each'])} MiB; the largest "
            f"**{_f(mem['peak_worker_mib'])} MiB**. Before the first request: "
            f"{', '.join(_f(v) for v in mem['start_worker_mib_each'])} MiB. "
            "The peak after each load level is in the table above (it only grows).",
            "",
        ]
    return lines


def _open_loop(o: dict[str, Any], within: dict[str, Any] | None = None) -> list[str]:
    if not o:
        return []
    lines = [
        "### Open loop: a fixed arrival rate",
        "",
        f"{_f(o['tables'])} tables each enter their next move once every "
        f"{_f(o['period_seconds'], 0)} s (random phases) for {_f(o['run_seconds'], 0)} s: "
        f"{_f(o['offered_per_second'])} moves/s offered whatever the answers' latency. A table",
        "waits for its previous answer before its next move, but each latency is counted from",
        "when the move was due (no coordinated omission); *late* counts moves sent more than",
        "10 ms after they were due. The load process, gunicorn and PostgreSQL share the cores.",
        "The server CPU per move counts the timed moves only, as in the closed loop.",
        "The second row, when present, offers half the moves per second that the closed loop",
        "carried at its fewest tables: the latency of a server that is not saturated.",
        "",
    ]
    head = ["offered /s", "achieved /s", "requests", "p50 ms", "p95 ms", "p99 ms", "max ms"]
    head += ["late", "errors", "server CPU ms / req", "WAL B / move", "checkpoints"]
    head += ["worst second's p99 ms", "load CPU s"]
    rows = [_open_loop_row(r) for r in (o, within) if r]
    lines += _table(head, rows, "r" * len(head))
    lines += _stalls([r for r in (o, within) if r])
    samples = [*(o.get("error_samples") or []), *((within or {}).get("error_samples") or [])]
    if samples:
        lines += ["First errors:", ""] + [f"- `{p}`" for p in samples[:5]] + [""]
    return lines


def _open_loop_row(o: dict[str, Any]) -> list[str]:
    return [
        _f(o["offered_per_second"]),
        _f(o["per_second"]),
        _f(o["requests"]),
        _f(o["p50_ms"]),
        _f(o["p95_ms"]),
        f"**{_f(o['p99_ms'])}**",
        _f(o["max_ms"]),
        _f(o["late"]),
        _f(o["errors"]),
        f"{_f(o.get('workers_cpu_ms'), 2)} + {_f(o.get('postgres_cpu_ms'), 2)} PG",
        _f(o.get("wal_bytes_per_request"), 0),
        _f(o.get("checkpoints")),
        _f(max((row[2] for row in o.get("timeline") or []), default=None)),
        _f(o.get("load_cpu_seconds"), 2),
    ]


STALL_MS = 100.0


def stall_line(o: dict[str, Any]) -> str:
    """One open-loop run's WAL a move, checkpoints and slow seconds, for the console."""
    slow = [row for row in o.get("timeline") or [] if row[2] > STALL_MS]
    seconds = ", ".join(f"{row[0]} s {row[2]:g} ms" for row in slow) or "none"
    return (
        f"WAL {_f(o.get('wal_bytes_per_request'), 0)} B a move, {_f(o.get('checkpoints'))} "
        f"checkpoints; seconds with p99 over {STALL_MS:g} ms: {seconds}"
    )


def _stalls(runs: Sequence[dict[str, Any]]) -> list[str]:
    """The seconds of each open-loop run whose p99 was over the target: when the tail
    came (a stall of a few seconds, or all along)."""
    lines = []
    for o in runs:
        slow = [row for row in o.get("timeline") or [] if row[2] > STALL_MS]
        seconds = len(o.get("timeline") or [])
        text = ", ".join(f"{row[0]} s ({_f(row[2])} ms)" for row in slow[:12])
        more = f" and {len(slow) - 12} more" if len(slow) > 12 else ""
        lines.append(
            f"- At {_f(o['offered_per_second'])} moves/s: {len(slow)} of {seconds} seconds had "
            f"a p99 over {STALL_MS:g} ms" + (f": {text}{more}." if slow else ".")
        )
    return lines + [""] if lines else []


def _connection_text(server: dict[str, Any]) -> str:
    if server.get("connection", "keep-alive") == "keep-alive":
        return (
            "Each table keeps one connection alive from the load process (`bench/load.py`); "
            "a gthread worker keeps the connections it accepted, so the load may pile up on "
            "one worker (its CPU split is in the second table); a sync worker closes each "
            "after its answer."
        )
    return (
        "The load process (`bench/load.py`) opens a new connection for each request "
        "(`Connection: close`), as a TLS proxy without upstream keep-alive (nginx's default) "
        "talks to gunicorn: the requests spread over the workers."
    )


def _core(core: dict[str, Any]) -> list[str]:
    t, g = core["throughput"], core["growth"]
    lines = [
        "## 3. The rules core alone",
        "",
        f"`replay(Record.parse(record))` over {t['records']} generated records of "
        f"{t['rounds'] // max(t['records'], 1)} rounds ({_f(t['rounds'])} rounds, "
        f"{_f(t['moves'])} moves), "
        f"best of {core.get('repeat', 3)}: **{_f(t['rounds_per_second'], 0)} rounds/s**, "
        f"{_f(t['moves_per_second'], 0)} moves/s ({_f(t['seconds'], 2)} s). With the "
        f"`domeng-result/1` written out (`replay_record`): {_f(t['result_seconds'], 2)} s.",
        "",
        "Growth with the length of a record (several records per size, best of a few):",
        "",
    ]
    rows = [
        [
            _f(p["rounds"]),
            _f(p["seconds_per_record"] * 1e3, 2),
            _f(p["microseconds_per_round"], 0),
        ]
        for p in g["points"]
    ]
    lines += _table(["rounds in a record", "ms per record", "µs per round"], rows)
    verdict = "linear or better" if g["is_linear_or_better"] else "**worse than linear**"
    lines += [
        f"Fit: time ∝ rounds^**{g['exponent']:.3f}** (log-log least squares; ≤ 1.15 passes), "
        f"i.e. {verdict}; time ≈ {_f(g['intercept_microseconds'], 0)} µs + "
        f"{_f(g['slope_microseconds_per_round'], 0)} µs × rounds.",
        "",
    ]
    ba = core.get("before_after")
    if ba:
        lines += [
            f"Before and after (`bench.core.compare`): the same {_f(ba['records'])} records "
            f"replayed by the rules core of commit `{ba['ref']}` (before, `git archive`) and "
            f"of this tree (after), each in {ba['turns']} processes taking turns, best of "
            f"{ba['repeat']} a process:",
            "",
        ]
        rows = [
            [
                side,
                _f(ba[side]["rounds_per_second"], 0),
                _f(ba[side]["cpu_rounds_per_second"], 0),
            ]
            for side in ("before", "after")
        ]
        rows.append(["after ÷ before", f"**{ba['ratio']:.2f}×**", f"{ba['cpu_ratio']:.2f}×"])
        lines += _table(["", "rounds/s (wall)", "rounds/s (CPU time)"], rows)
        counted = ba.get("instructions", {})
        if "ratio" in counted:
            lines += [
                f"Instructions (valgrind callgrind, {counted['records']} records): "
                f"{_f(counted['before'])} before, {_f(counted['after'])} after, "
                f"{counted['ratio']:.2f}× fewer.",
                "",
            ]
    return lines


def _league(league: dict[str, Any]) -> list[str]:
    lines = [
        "## 4. League reads",
        "",
        f"One club per size with one season, {league['players']} players, games of "
        f"{league['rounds_per_game']} rounds; rows written directly (`bench/league.py`). "
        "A club member's DRF token; Django's test client (whole middleware and DRF stack, no "
        "HTTP server); the median of the repeats; queries of one request.",
        "",
    ]
    builds = [
        [
            _f(lg["rounds"]),
            _f(lg["rounds"] * 5),
            _f(lg["player_rows"]),
            _f(lg["build_seconds"], 1),
        ]
        for lg in league["leagues"]
    ]
    lines += _table(
        ["rounds in the season", "seat-round rows", "the player's rows", "built in s"], builds
    )
    sizes = league["sizes"]
    by: dict[str, dict[int, dict[str, Any]]] = {}
    for m in league["measurements"]:
        by.setdefault(m["endpoint"], {})[m["rounds"]] = m
    head = ["endpoint", *[f"{s:,} rounds ms" for s in sizes], *[f"queries @{s:,}" for s in sizes]]
    rows = []
    for endpoint, per in by.items():
        rows.append(
            [endpoint]
            + [_f(per[s]["ms_median"]) for s in sizes]
            + [_f(per[s]["queries"]) for s in sizes]
        )
    lines += _table(head, rows)
    return lines


def _profile(p: dict[str, Any]) -> list[str]:
    lines = [
        "## Where a move's time goes",
        "",
        f"In-process (`bench/profiling.py`): a scorekeeper's {p['requests']} moves and "
        f"reveals over fresh games through Django's test client, one at a time, no load. Mean "
        f"**{_f(p['wall_ms_mean'], 2)} ms** a request (median {_f(p['wall_ms_median'], 2)}), of "
        f"which **{_f(p['sql_ms_mean'], 2)} ms** waiting on SQL "
        f"({_f(p['sql_ms_mean'] / p['wall_ms_mean'] * 100, 0)} %) over "
        f"{_f(p['queries_median'], 0)} queries (max {p['queries_max']}, at a round's end).",
        "",
        "The SQL of one move in the middle of a round:",
        "",
    ]
    lines += _table(
        ["#", "statement", "ms"],
        [
            [i + 1, f"`{squash_sql(sql).replace('|', '¦')}`", _f(ms, 3)]
            for i, (sql, ms) in enumerate(p["sample_move_sql"])
        ],
        "rlr",
    )
    lines += [
        f"cProfile over another {p['profiled_requests']} requests (its overhead inflates Python "
        "time, so read shares, not milliseconds). Cumulative time per request of the parts:",
        "",
    ]
    lines += _table(
        ["part", "ms / request", "share", "calls / request"],
        [
            [
                c["label"],
                _f(c["ms_per_request"], 3),
                f"{c['share'] * 100:.1f} %",
                _f(c["calls_per_request"], 1),
            ]
            for c in p["categories"]
        ],
        "lrrr",
    )
    lines += ["Top functions by cumulative time per request:", ""]
    lines += _table(
        ["function", "calls / req", "own ms", "cumulative ms"],
        [
            [
                f"`{t['function']}`",
                _f(t["calls_per_request"], 1),
                _f(t["own_ms"], 3),
                _f(t["cumulative_ms"], 3),
            ]
            for t in p["top_cumulative"]
        ],
    )
    lines += ["Top functions by own time per request:", ""]
    lines += _table(
        ["function", "calls / req", "own ms", "cumulative ms"],
        [
            [
                f"`{t['function']}`",
                _f(t["calls_per_request"], 1),
                _f(t["own_ms"], 3),
                _f(t["cumulative_ms"], 3),
            ]
            for t in p["top_own"]
        ],
    )
    return lines


def _cpu(times: dict[str, float] | None) -> str:
    return "—" if times is None else f"{_f(times['p50'], 2)} / {_f(times['p99'], 1)}"


def _ladder(ladder: dict[str, Any]) -> list[str]:
    lines = [
        "## 6. Computer seats: the strength ladder (R39)",
        "",
        "The rules core alone (`bench/ladder.py`, `referee.engine.selfplay`): one seat plays "
        "the tested strategy, the other four another, over games of "
        f"{ladder['game_rounds']} rounds dealt from the seed; the tested seat moves round the "
        "table from game to game. *Difference* is the tested seat's mean stones held after a "
        "round minus the other four seats' mean (negative: it holds fewer, which is better), "
        "with a 95 % interval over the games (independent; rounds of a game are not). Every "
        "game's record is replayed and must give the result its play reached. Times are "
        f"measured around each decision of the tested strategy, in {ladder['jobs']} processes "
        f"(load average {ladder['load_average'][0]} at the start, "
        f"{ladder['load_average'][1]} at the end).",
        "",
    ]
    rows = []
    for row in ladder["rungs"]:
        a, m, c = row["advantage"], row["ms_per_move"], row["ms_per_move_with_a_choice"]
        rows.append(
            [
                f"{row['tested']} vs 4 × {row['field']}",
                _f(row["rounds"]),
                _f(row["held"]["mean"], 2),
                _f(row["others_held"]["mean"], 2),
                f"**{_f(a['mean'], 3)}** [{_f(a['low'], 3)}, {_f(a['high'], 3)}]",
                f"{_f(m['p50'], 2)} / {_f(m['p99'], 1)}",
                f"{_f(c['p50'], 2)} / {_f(c['p99'], 1)} / {_f(c['max'], 1)}",
                _cpu(row.get("cpu_ms_per_move_with_a_choice")),
                f"{row['replays_equal']}/{row['games']}",
                _f(row["seconds"], 0),
            ]
        )
    lines += _table(
        [
            "rung",
            "rounds",
            "tested holds",
            "others hold",
            "difference [95 % CI]",
            "ms a move p50 / p99",
            "with a choice p50 / p99 / max",
            "CPU with a choice p50 / p99",
            "replays equal",
            "s",
        ],
        rows,
    )
    if ladder.get("paired"):
        lines += [
            "",
            "On the same deals (paired: game g of a field is dealt alike for every tested "
            "strategy), the tested seat's difference minus greedy's in the same seat, "
            "with its 95 % interval over the games (negative: better than greedy):",
            "",
        ]
        lines += _table(
            ["tested", "field", "minus greedy [95 % CI]"],
            [
                [
                    row["tested"],
                    f"4 × {row['field']}",
                    f"**{_f(row['minus_greedy']['mean'], 3)}** "
                    f"[{_f(row['minus_greedy']['low'], 3)}, {_f(row['minus_greedy']['high'], 3)}]",
                ]
                for row in ladder["paired"]
            ],
        )
    gap = ladder.get("gap_closed")
    if gap is not None and gap["share"] is not None:
        lines += [
            "",
            f"**strong closes {_f(100 * gap['share'], 0)} %** of the gap between greedy and the "
            f"omniscient seat against four greedy (95 % interval {_f(100 * gap['low'], 0)} "
            f"to {_f(100 * gap['high'], 0)} %; delta method over {gap['n']} paired games).",
        ]
        for name, part in ladder.get("ablation", {}).items():
            if part["share"] is not None:
                lines.append(
                    f"- {name}: closes {_f(100 * part['share'], 0)} % "
                    f"[{_f(100 * part['low'], 0)}, {_f(100 * part['high'], 0)}]"
                )
    return lines


def _corrections(c: dict[str, Any]) -> list[str]:
    m = c["mistake"]
    out = [
        "## Corrections of round 1 (R35–R37)",
        "",
        f"A club game of {c['rounds']} rounds ({c['events']} events; `random_record` seed "
        f"{c['seed']}) imported with a mistake in round 1 (move {m['move']}: "
        f"`{m['played']}` entered as a pass), then corrected by the organiser over the API "
        "(Django's test `Client` with a DRF token: the whole middleware and DRF stack, no "
        f"HTTP server), {c['repeat']} times each way (`bench/corrections.py`): *amend* is one "
        "change (`POST …/corrections/`), *batch* two changes of round 1 in one correction, "
        "*void* `POST …/rounds/1/void/` and *unvoid* the void removed. After every one, "
        "`GET …/result/` equals the replay of `GET …/record/` and the league's rows those of "
        "the replay. *CPU ms* is this process's CPU time (Django, DRF, the referee; not "
        "PostgreSQL's): steadier than the wall clock on a busy machine.",
        "",
    ]
    rows = [
        (kind, k["n"], _f(k["mean_ms"]), _f(k["p50_ms"]), _f(k["max_ms"]),
         _f(k.get("cpu_mean_ms")), ", ".join(map(str, k["queries_each"])))
        for kind, k in c["kinds"].items()
    ]  # fmt: skip
    head = ["correction", "n", "mean ms", "p50 ms", "max ms", "CPU ms (mean)", "SQL queries"]
    out += _table(head, rows, "lrrrrrr")
    for failure in c["failures"]:
        out.append(f"- **FAIL**: {failure}")
    return out + [""]


def _long_game(lg: dict[str, Any]) -> list[str]:
    sizes = lg["sizes"]
    out = [
        "## A long game (R27)",
        "",
        f"One game imported at {', '.join(map(str, sizes))} rounds (`random_record` seed "
        f"{lg['seed']}, cut), each request {lg['repeat']} times over the API or the pages "
        "(Django's test `Client`: the whole stack, no HTTP server; `bench/long_game.py`). "
        "*ms* is the median wall clock; *begun* the rounds the rules core began answering it "
        "(a replay of the whole game begins every round again); *growth* the median at "
        f"{sizes[-1]} rounds over the median at {sizes[0]}.",
        "",
    ]
    head = ["request"]
    for size in sizes:
        head += [f"{size}: ms", "queries", "begun"]
    head.append("growth")
    rows = []
    for name, growth in lg["growth"].items():
        row: list[Any] = [name]
        for size in sizes:
            m = next(m for m in lg["measurements"] if m["request"] == name and m["rounds"] == size)
            row += [_f(m["ms_median"]), m["queries"], m["rounds_begun"]]
        row.append(f"{growth['time']:.2f}x" if growth["time"] is not None else "—")
        rows.append(row)
    out += _table(head, rows, "l" + "rrr" * len(sizes) + "r")
    for failure in lg["failures"]:
        out.append(f"- **FAIL**: {failure}")
    return out + [""]
