"""``manage.py demo``: play a game record move by move over the live-table API.

By default the command starts its own server: a fresh SQLite database in a
temporary directory (``DATABASE_URL``), ``migrate``, an organiser with a DRF
token, and ``manage.py runserver --noreload`` on a free port of 127.0.0.1.
It then plays like a table would: the organiser creates the game
(``POST /games/``), a scorekeeper phone joins with the join code
(``POST /join/``) and enters every move, and at a blocked round every seat's
reveal (tiles or pip sum), printing one line per round and the standings at
the end. Last it checks that ``GET /games/{id}/result/`` equals what the
rules core concludes from the record (``replay_record``) and fails otherwise.
The server is stopped and the temporary directory removed in every case.

With ``--base-url`` it plays against a server that is already running
instead; the organiser is then made in this process's own database (the one
``make run`` uses, or the test database under a live-server test) unless
``--token`` gives one.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from referee.engine.errors import RefereeError
from referee.engine.records import replay_record
from referee.services.verification import without_verification

API = "/api/v1"
DEFAULT_RECORD = Path(settings.BASE_DIR) / "examples" / "club_night.json"
ORGANISER = "demo-organiser"
SERVER_START_SECONDS = 30.0
HTTP_TIMEOUT_SECONDS = 30.0
LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}


class DemoFailed(CommandError):
    """The demo could not be played, or the server disagreed with the rules core.

    ``server_fault``: the server gave no answer or a 5xx (its log may say why).
    """

    def __init__(self, message: str, *, server_fault: bool = False) -> None:
        super().__init__(message)
        self.server_fault = server_fault


def create_organiser(username: str = ORGANISER) -> str:
    """An organiser (a plain Django user, no password) and its DRF token key."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    user, created = get_user_model().objects.get_or_create(username=username)
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    token, _ = Token.objects.get_or_create(user=user)
    return str(token.key)


# -- HTTP ------------------------------------------------------------------------------


class ApiError(Exception):
    """An HTTP error answer (a problem document) or no answer at all."""

    def __init__(self, method: str, path: str, status: int | None, body: Any) -> None:
        self.method, self.path, self.status, self.body = method, path, status, body
        super().__init__(f"{method} {path} → {status or 'no answer'}: {_brief(body)}")


def _brief(body: Any) -> str:
    if isinstance(body, dict) and "code" in body:
        keys = ("code", "rule", "round", "move", "detail")
        return json.dumps({k: body[k] for k in keys if body.get(k) is not None}, ensure_ascii=False)
    return json.dumps(body, ensure_ascii=False)[:500]


class Api:
    """A JSON client on ``urllib.request`` (no proxy for a loopback server)."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url.rstrip("/")
        host = urllib.parse.urlsplit(self.base_url).hostname or ""
        handlers = [urllib.request.ProxyHandler({})] if host in LOOPBACK else []
        self._opener = urllib.request.build_opener(*handlers)

    def call(self, method: str, path: str, body: Any = None, *, auth: str | None = None) -> Any:
        """Send ``body`` as JSON; return the parsed answer or raise ``ApiError``."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base_url + path, data=data, method=method)
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if auth:
            request.add_header("Authorization", auth)
        try:
            with self._opener.open(request, timeout=HTTP_TIMEOUT_SECONDS) as response:
                raw = response.read()
        except urllib.error.HTTPError as error:
            with error:
                raw = error.read()
            raise ApiError(method, path, error.code, _parse(raw)) from None
        except (urllib.error.URLError, OSError) as error:
            raise ApiError(method, path, None, str(error)) from None
        return _parse(raw)

    def answers(self) -> bool:
        """Whether anything answers HTTP at the base URL (any status will do)."""
        try:
            self.call("GET", f"{API}/games/")
        except ApiError as error:
            return error.status is not None
        return True


def _parse(raw: bytes) -> Any:
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return raw.decode(errors="replace")


# -- the server ------------------------------------------------------------------------


@dataclass
class Server:
    base_url: str
    database: Path
    log: Path
    env: dict[str, str]
    process: subprocess.Popen[bytes] | None = None

    def manage(self, *args: str) -> str:
        """Run ``manage.py ARGS`` against the demo database; its standard output."""
        command = [sys.executable, str(Path(settings.BASE_DIR) / "manage.py"), *args]
        done = subprocess.run(command, env=self.env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise DemoFailed(f"manage.py {args[0]} failed:\n{done.stdout}{done.stderr}".rstrip())
        return done.stdout

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def demo_server(port: int | None = None) -> Iterator[Server]:
    """A migrated fresh SQLite database and ``runserver`` on it; both gone afterwards.

    The server is stopped (terminated, killed if it lingers) and the temporary
    directory removed on leaving the block, whatever happened in it.
    """
    with tempfile.TemporaryDirectory(prefix="domeng-demo-") as tmp:
        database = Path(tmp) / "db.sqlite3"
        port = port or free_port()
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.local",
            "DATABASE_URL": f"sqlite:///{database}",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "PYTHONUNBUFFERED": "1",
        }
        server = Server(f"http://127.0.0.1:{port}", database, Path(tmp) / "server.log", env)
        server.manage("migrate", "--noinput", "-v", "0")
        try:
            with server.log.open("wb") as log:
                server.process = subprocess.Popen(
                    [
                        sys.executable,
                        str(Path(settings.BASE_DIR) / "manage.py"),
                        "runserver",
                        "--noreload",
                        f"127.0.0.1:{port}",
                    ],
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,  # a ^C reaches the demo, which stops the server
                )
            _wait_until_up(server)
            yield server
        finally:
            _stop(server.process)


def _wait_until_up(server: Server) -> None:
    assert server.process is not None
    api = Api(server.base_url)
    deadline = time.monotonic() + SERVER_START_SECONDS
    while not api.answers():
        if server.process.poll() is not None:
            raise DemoFailed(f"the server exited at start:\n{server.log_tail()}")
        if time.monotonic() > deadline:
            raise DemoFailed(f"the server did not answer in {SERVER_START_SECONDS:.0f} s")
        time.sleep(0.1)


def _stop(process: subprocess.Popen[bytes] | None) -> None:
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


# -- playing ---------------------------------------------------------------------------


@dataclass
class Played:
    """What the demo saw: the game, each round's winner, the final state and the result."""

    game_id: str
    winners: list[int | None] = field(default_factory=list)
    live: list[dict[str, Any]] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] = field(default_factory=dict)


class Table:
    """One game at a server, entered like a table would: organiser, scorekeeper, seat phones."""

    def __init__(self, api: Api, organiser_token: str, record: dict[str, Any]) -> None:
        self.api = api
        created = api.call(
            "POST",
            f"{API}/games/",
            {"players": record["players"], "rules": record.get("rules")},
            auth=f"Token {organiser_token}",
        )
        self.game_id: str = created["id"]
        self.join_code: str = created["join_code"]
        self.scorekeeper = self.join(None)
        self.phones: dict[int, str] = {}

    def join(self, seat: int | None) -> str:
        """A phone's ``Authorization`` value: the scorekeeper (``None``) or one seat's."""
        body: dict[str, Any] = {"join_code": self.join_code, "label": "make demo"}
        if seat is not None:
            body["seat"] = seat
        return f"Table {self.api.call('POST', f'{API}/join/', body)['token']}"

    def get(self, suffix: str = "") -> dict[str, Any]:
        answer: dict[str, Any] = self.api.call(
            "GET", f"{API}/games/{self.game_id}/{suffix}", auth=self.scorekeeper
        )
        return answer

    def post(self, suffix: str, body: dict[str, Any], auth: str | None = None) -> dict[str, Any]:
        answer: dict[str, Any] = self.api.call(
            "POST", f"{API}/games/{self.game_id}/{suffix}", body, auth=auth or self.scorekeeper
        )
        return answer

    def play_round(self, data: dict[str, Any]) -> dict[str, Any] | None:
        """Declared hands (each from its seat's phone), the moves, then the reveals seat 0 to 4.

        Returns the answer to the round's last event (``{event, effects, state}``).
        """
        answer = None
        for key, tiles in sorted((data.get("hands") or {}).items()):
            seat = int(key)
            if seat not in self.phones:
                self.phones[seat] = self.join(seat)
            answer = self.post("hands/", {"seat": seat, "tiles": tiles}, self.phones[seat])
        for move in data["moves"]:
            answer = self.post("moves/", move)
        reveal, pips = data.get("reveal") or {}, data.get("pips") or {}
        for seat in range(5):
            if str(seat) in reveal:
                answer = self.post("reveals/", {"seat": seat, "tiles": reveal[str(seat)]})
            elif str(seat) in pips:
                answer = self.post("reveals/", {"seat": seat, "pips": pips[str(seat)]})
        return answer


def play(
    api: Api, organiser_token: str, record: dict[str, Any], say: Callable[[str], None]
) -> Played:
    """Play ``record`` at the server move by move, saying one line per round."""
    table = Table(api, organiser_token, record)
    players: list[str] = record["players"]
    say(f"Game {table.game_id} ({', '.join(players)}), join code {table.join_code}")
    played = Played(table.game_id)
    for number, data in enumerate(record["rounds"], start=1):
        answer = table.play_round(data)
        outcome = settled_outcome(answer, number)
        played.winners.append(outcome["winner"] if outcome else None)
        played.live.append(live_round(answer, outcome))
        say(round_line(number, answer, outcome, players))
    played.state = table.get()
    played.result = without_verification(table.get("result/"))  # the rules' part
    return played


def settled_outcome(answer: dict[str, Any] | None, number: int) -> dict[str, Any] | None:
    """The outcome of round ``number`` if its last event settled it, else ``None``."""
    if answer is None:
        return None
    rnd = answer["state"]["round"]
    outcome = rnd.get("previous") if rnd["status"] == "awaiting_lead" else None
    if outcome is None or outcome["number"] != number or outcome["winner"] is None:
        return None
    return dict(outcome)


# What a round's result says that the table also saw live, after the round's last event.
LIVE_KEYS = (
    "ending",
    "finish",
    "first_cappu",
    "manguno",
    "mattikkeng",
    "cucuq",
    "winner",
    "remaining_pips",
    "transfers",
    "camat_elected",
)


def live_round(answer: dict[str, Any] | None, outcome: dict[str, Any] | None) -> dict[str, Any]:
    """A settled round as the table saw it, in the terms of its ``domeng-result/1`` round."""
    if answer is None or outcome is None:
        return {}
    state = answer["state"]
    after = {
        "table": state["table"],
        "stones": [seat["stones"] for seat in state["seats"]],
        "camat": state["camat"],
    }
    return {**{key: outcome[key] for key in LIVE_KEYS}, "after": after}


def round_line(
    number: int,
    answer: dict[str, Any] | None,
    outcome: dict[str, Any] | None,
    players: list[str],
) -> str:
    """Round ``number``: its ending, the named outcomes and on whom, the CAMAT, stones left."""
    head = f"Round {number:>2}  "
    if answer is None:
        return head + "no move yet"
    state = answer["state"]
    if outcome is None:
        rnd = state["round"]
        if rnd["status"] == "awaiting_reveals":
            return head + f"blocked, waiting for reveals from seats {rnd['awaiting_reveal']}"
        turn = state["turn"]
        return head + "in play" + (f", {players[turn]} to move" if turn is not None else "")

    def name(seat: int) -> str:
        return players[seat]

    on = {
        "FIRST CAPPU": [outcome["first_cappu"]],
        "MANGUNO": [outcome["manguno"]],
        "MATTIKKENG": list(outcome["mattikkeng"]),
        "CUCUQ": [outcome["cucuq"]],
    }
    named = []
    for word in outcome["named"]:
        seats = [seat for seat in on.get(word, []) if seat is not None]
        named.append(f"{word} {' & '.join(map(name, seats))}" if seats else word)
    line = f"{head}{outcome['ending']:<7}  {', '.join(named)}"
    if outcome["remaining_pips"] is not None:
        line += f" (pips {' '.join(map(str, outcome['remaining_pips']))})"
    if outcome["ending"] == "blocked":
        line += f"; winner {name(outcome['winner'])}"
    paid: dict[int, int] = {}
    for transfer in outcome["transfers"]:
        if isinstance(transfer["from"], int):  # the table had run out: a shortfall (R23)
            paid[transfer["from"]] = paid.get(transfer["from"], 0) + transfer["stones"]
    if paid:
        line += "; shortfall paid by " + ", ".join(
            f"{name(seat)} {stones}" for seat, stones in sorted(paid.items())
        )
    if outcome["camat_elected"] is not None:
        line += f"; CAMAT elected: {name(outcome['camat_elected'])}, every stone back on the table"
    return line + f"; table {state['table']}"


def standings(played: Played) -> list[str]:
    """The game's standings: each seat's name, stones, rounds won, the CAMAT; table stones."""
    state = played.state
    rounds = len([w for w in played.winners if w is not None])
    width = max(4, *(len(seat["name"]) for seat in state["seats"]))
    lines = [
        f"Standings after {rounds} round{'s' if rounds != 1 else ''}:",
        f"  seat  {'name':<{width}}  stones  rounds won",
    ]
    for seat in state["seats"]:
        won = played.winners.count(seat["seat"])
        camat = "  CAMAT" if seat["is_camat"] else ""
        lines.append(
            f"  {seat['seat']:>4}  {seat['name']:<{width}}  {seat['stones']:>6}  {won:>10}{camat}"
        )
    lines.append(f"  {'':>4}  {'table':<{width}}  {state['table']:>6}")
    if state["camat"] is None:
        lines.append("  No CAMAT yet.")
    return lines


def differences(served: Any, expected: Any, where: str = "result") -> list[str]:
    """Where two JSON values differ (paths), at most a few."""
    if isinstance(served, dict) and isinstance(expected, dict):
        found = []
        for key in sorted(set(served) | set(expected), key=str):
            if key not in served or key not in expected:
                found.append(f"{where}.{key}: only in {'served' if key in served else 'expected'}")
            else:
                found += differences(served[key], expected[key], f"{where}.{key}")
        return found[:10]
    if isinstance(served, list) and isinstance(expected, list):
        if len(served) != len(expected):
            return [f"{where}: {len(served)} items served, {len(expected)} expected"]
        found = []
        for i, (a, b) in enumerate(zip(served, expected, strict=True)):
            found += differences(a, b, f"{where}[{i}]")
        return found[:10]
    if served != expected:
        return [f"{where}: served {served!r}, expected {expected!r}"]
    return []


# -- the command -----------------------------------------------------------------------


class Command(BaseCommand):
    help = (
        "Play a domeng-record/1 game (default: examples/club_night.json) move by move over "
        "the live-table API, print each round and the standings, and check that the "
        "server's result equals replay_record(record). Starts its own server on a fresh "
        "temporary SQLite database unless --base-url names a running one."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--record", type=Path, default=DEFAULT_RECORD, help="the record to play"
        )
        parser.add_argument(
            "--port", type=int, help="port of the demo server on 127.0.0.1 (default: a free one)"
        )
        parser.add_argument(
            "--base-url",
            help="play at this running server (e.g. http://127.0.0.1:8000) instead of "
            "starting one; the organiser is made in this process's database",
        )
        parser.add_argument(
            "--token", help="with --base-url: an organiser's DRF token instead of making one"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["record"]
        record = self.load(path)
        try:
            expected = replay_record(record)
        except RefereeError as error:
            raise DemoFailed(f"{path} is not a legal record: {_brief(error.to_dict())}") from None
        base_url: str | None = options["base_url"]
        if base_url:
            if options["port"]:
                raise CommandError("--port starts a server; --base-url uses a running one")
            token = options["token"] or create_organiser()
            self.run(Api(base_url), token, record, expected, path)
            return
        if options["token"]:
            raise CommandError("--token goes with --base-url (the demo server makes its own)")
        self.say("Starting a server on a fresh SQLite database…")
        with demo_server(options["port"]) as server:
            self.say(f"Server at {server.base_url}, database {server.database}")
            code = "from referee.management.commands.demo import create_organiser as c; print(c())"
            token = server.manage("shell", "-v", "0", "-c", code).strip().splitlines()[-1]
            try:
                self.run(Api(server.base_url), token, record, expected, path)
            except DemoFailed as error:
                if not error.server_fault:
                    raise
                raise DemoFailed(
                    f"{error}\n--- server log (tail) ---\n{server.log_tail()}"
                ) from None
        self.say("Server stopped, temporary database removed.")

    def load(self, path: Path) -> dict[str, Any]:
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise DemoFailed(f"cannot read the record {path}: {error}") from None
        if not isinstance(record, dict):
            raise DemoFailed(f"{path} is not a domeng-record/1 record")
        return record

    def run(
        self,
        api: Api,
        token: str,
        record: dict[str, Any],
        expected: dict[str, Any],
        path: Path,
    ) -> None:
        try:
            played = play(api, token, record, self.say)
        except ApiError as error:
            server_fault = error.status is None or error.status >= 500
            raise DemoFailed(f"the demo stopped: {error}", server_fault=server_fault) from None
        for line in standings(played):
            self.say(line)
        rounds = expected["rounds"]
        same = played.result == expected
        found = [] if same else differences(played.result, expected) or ["(values differ)"]
        for number, (live, rnd) in enumerate(zip(played.live, rounds, strict=False), start=1):
            if live:  # each settled round as the table saw it must be the result's round
                after = {key: rnd["after"][key] for key in live["after"]}
                want = {**{key: rnd[key] for key in LIVE_KEYS}, "after": after}
                found += differences(live, want, f"live round {number}")
        if rounds:  # the standings shown must be the result's last state
            state, last = played.state, rounds[-1]["after"]
            shown = {
                "table": state["table"],
                "stones": [seat["stones"] for seat in state["seats"]],
                "camat": state["camat"],
            }
            found += differences(shown, {key: last[key] for key in shown}, "standings")
        check = f"GET {API}/games/{played.game_id}/result/ == replay_record({path.name})"
        if found:
            self.say(f"Check FAILED: {check}")
            for line in found:
                self.say(f"  {line}")
            raise DemoFailed("the server's result differs from the rules core's")
        self.say(f"Check OK: {check} ({len(rounds)} rounds; live outcomes and standings agree)")

    def say(self, line: str) -> None:
        self.stdout.write(line)
        self.stdout.flush()
