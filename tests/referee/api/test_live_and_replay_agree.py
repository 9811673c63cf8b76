"""The live table and a replay of its record judge alike (RECORD.md, R18, R30, R34).

Over generated situations — a random legal game entered up to a random event,
then one more event, legal or not — the live API's answer to that event
(accepted, or refused with ``code``, ``rule``, ``round``, ``move``) equals what
``replay_record`` says of the same events written as a record; and the stored
game's ``GET …/result/`` equals the replay of its accepted events, however
many rounds it has begun (an empty next round included).
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from referee import services
from referee.engine.errors import RefereeError
from referee.engine.records import Record, replay, replay_record, result_of
from referee.engine.simulation import PLAYERS, random_record
from referee.engine.tiles import ALL_TILES
from referee.models import Game
from tests.referee.conftest import API, GameApi

pytestmark = pytest.mark.django_db

TILES = [str(t) for t in ALL_TILES]


def table_replay(record: dict[str, Any]) -> dict[str, Any]:
    """``replay_record`` as a table judges its events: declared hands may share a tile
    (R31, issue 27: a hand is never refused for it, each seat is judged by its own)."""
    return result_of(replay(Record.parse(record), shared_hands=True))


class RecordWriter:
    """Writes events, as the table entered them, into a ``domeng-record/1`` record.

    A move goes into the last round while that round is in play, else it
    leads a new one (R30: after a round's end only the next round's lead);
    a hand goes into the last round while it is in play, else into a new
    round (R31: declared before the lead); a reveal goes into the last round.
    """

    def __init__(self) -> None:
        self.record: dict[str, Any] = {
            "format": "domeng-record/1",
            "players": list(PLAYERS),
            "rounds": [],
        }

    def _last_in_play(self) -> bool:
        if not self.record["rounds"]:
            return False
        try:
            result = table_replay(self.record)
        except RefereeError:
            return False
        last = result["rounds"][-1]
        return last["ending"] is None

    def expresses(self, kind: str, payload: dict[str, Any]) -> bool:
        """Whether a record can hold the event at all: a seat's second hand in a round in
        play, or its second reveal, has no place in it (a round's seats are keys)."""
        rounds = self.record["rounds"]
        if kind == "hand":
            return not (self._last_in_play() and _has_hand(rounds[-1], payload["seat"]))
        if kind == "reveal" and rounds:
            given = {**(rounds[-1].get("reveal") or {}), **(rounds[-1].get("pips") or {})}
            return str(payload["seat"]) not in given
        return True

    def with_event(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        """The record with one more event (this writer unchanged)."""
        record = copy.deepcopy(self.record)
        rounds = record["rounds"]
        if kind == "move":
            if self._last_in_play():
                rounds[-1]["moves"].append(payload)
            else:
                rounds.append({"moves": [payload]})
        elif kind == "hand":
            if self._last_in_play():
                rounds[-1].setdefault("hands", {})[str(payload["seat"])] = payload["tiles"]
            else:
                rounds.append({"moves": [], "hands": {str(payload["seat"]): payload["tiles"]}})
        else:
            if not rounds:
                rounds.append({"moves": []})
            field, value = (
                ("reveal", payload["tiles"]) if "tiles" in payload else ("pips", payload["pips"])
            )
            rounds[-1].setdefault(field, {})[str(payload["seat"])] = value
        return record

    def accept(self, kind: str, payload: dict[str, Any]) -> None:
        self.record = self.with_event(kind, payload)


def _has_hand(data: dict[str, Any], seat: Any) -> bool:
    return str(seat) in (data.get("hands") or {})


def _events(
    record: dict[str, Any],
) -> tuple[list[tuple[str, dict[str, Any]]], list[int], list[int]]:
    """A legal record's events in the order a table enters them (R34), and two kinds of
    places between them where the rules change: a round's start (after the previous
    round's end, before its lead) and every point of a blocked round's wait for its
    reveals."""
    events: list[tuple[str, dict[str, Any]]] = []
    starts: list[int] = []
    waits: list[int] = []
    for data in record["rounds"]:
        starts.append(len(events))
        for seat, tiles in sorted((data.get("hands") or {}).items()):
            events.append(("hand", {"seat": int(seat), "tiles": tiles}))
        events.extend(("move", move) for move in data["moves"])
        reveals = [
            ("reveal", {"seat": seat, "tiles": data["reveal"][str(seat)]})
            if str(seat) in (data.get("reveal") or {})
            else ("reveal", {"seat": seat, "pips": data["pips"][str(seat)]})
            for seat in range(5)
            if str(seat) in (data.get("reveal") or {}) or str(seat) in (data.get("pips") or {})
        ]
        waits.extend(len(events) + k for k in range(len(reveals)))
        events.extend(reveals)
    starts.append(len(events))
    return events, starts, waits


def _probe(rng: random.Random, following: tuple[str, dict[str, Any]] | None) -> tuple[str, Any]:
    """One more event: often the game's own next event, else a random one of any kind."""
    if following is not None and rng.random() < 0.25:
        return following
    kind = rng.choice(["move", "move", "move", "hand", "reveal"])
    seat = rng.choice([0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 5])
    if kind == "move":
        if rng.random() < 0.2:
            return "move", {"seat": seat, "pass": True}
        move: dict[str, Any] = {"seat": seat, "tile": rng.choice(TILES)}
        if rng.random() < 0.3:
            move["on"] = rng.randrange(7)
        return "move", move
    if kind == "hand":
        return "hand", {"seat": seat % 5, "tiles": rng.sample(TILES, rng.choice([5, 5, 4]))}
    if rng.random() < 0.5:
        return "reveal", {"seat": seat % 5, "pips": rng.randrange(0, 40)}
    return "reveal", {"seat": seat % 5, "tiles": rng.sample(TILES, rng.randrange(0, 5))}


def _send(table: GameApi, kind: str, payload: dict[str, Any]) -> Any:
    if kind == "move":
        return table.move(payload, client=table.scorekeeper)
    if kind == "hand":
        return table.declare(payload["seat"], payload["tiles"], client=table.phone(payload["seat"]))
    return table.post("reveals/", payload, client=table.scorekeeper)


def _verdict_of_replay(record: dict[str, Any]) -> tuple[Any, ...] | None:
    try:
        table_replay(record)
    except RefereeError as error:
        return (error.code, error.rule, error.round, error.move)
    return None


def _verdict_of_live(response: Any) -> tuple[Any, ...] | None:
    if response.status_code == 201:
        return None
    body = response.json()
    return (body["code"], body.get("rule"), body.get("round"), body.get("move"))


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    where=st.sampled_from(["any", "start", "wait"]),
)
def test_the_live_api_and_a_replay_of_the_same_events_judge_alike(new_game, seed, where):
    rng = random.Random(seed)
    source = random_record(
        rng,
        rounds=rng.randint(1, 3),
        declare_probability=0.15,
        finish_last_round=rng.random() < 0.7,
    )
    events, starts, waits = _events(source)
    places = {"any": range(len(events) + 1), "start": starts, "wait": waits or starts}[where]
    entered = rng.choice(places)
    table = new_game()
    writer = RecordWriter()
    for kind, payload in events[:entered]:
        seat = payload["seat"] if kind == "hand" else None
        if seat is not None:
            table.phone(seat)  # its token
        actor = services.Actor(token=table.game.tokens.get(seat=seat))
        services.event_submit(game_id=table.game.pk, kind=kind, payload=payload, actor=actor)
        writer.accept(kind, payload)

    probes = [_probe(rng, events[entered] if entered < len(events) else None) for _ in range(4)]
    assume(any(writer.expresses(kind, payload) for kind, payload in probes))
    for kind, payload in probes:  # each refused probe leaves the game as it was
        if not writer.expresses(kind, payload):
            continue
        live = _verdict_of_live(_send(table, kind, payload))
        replayed = _verdict_of_replay(writer.with_event(kind, payload))

        assert live == replayed, (kind, payload, writer.record)
        if live is None:
            writer.accept(kind, payload)
    assert table.result() == table_replay(writer.record)


@pytest.mark.parametrize("kind", ["lead", "hand"])
def test_the_next_rounds_event_while_a_blocked_round_waits_is_reveal_missing_R18(
    table, load_scenario, kind
):
    """The reported instance: the live API said round_over (R30) or tile_not_in_hand."""
    table.play_round(
        {"moves": load_scenario("05_blocked_no_mattikkeng")["record"]["rounds"][0]["moves"]}
    )
    before = table.state()
    if kind == "lead":
        response = table.play(1, "0-0")
    else:
        response = table.declare(1, ["0-0", "1-1", "2-2", "3-3", "4-4"])

    assert response.status_code == 422
    body = response.json()
    assert (body["code"], body["rule"], body["round"], body["move"]) == (
        "reveal_missing",
        "R18",
        1,
        None,
    )
    assert table.state() == before


def test_after_a_round_ends_the_result_and_the_replay_of_the_record_agree_on_the_next_leader(
    table, load_scenario
):
    table.play_round(load_scenario("01_plain_finish")["record"]["rounds"][0])
    state = table.state()
    assert state["round"]["status"] == "awaiting_lead"

    result, replayed = table.result(), replay_record(table.record())

    assert result == replayed
    assert len(result["rounds"]) == state["round"]["number"] - 1
    assert result["rounds"][-1]["after"]["next_leader"] == state["round"]["leader"]
    # A hand declared for the next round begins it: an empty round led by the expected leader.
    leader = state["round"]["leader"]
    table.accept(table.declare(leader, ["0-0", "0-1", "0-2", "0-3", "0-4"]))
    result, replayed = table.result(), replay_record(table.record())
    assert result == replayed
    assert len(result["rounds"]) == state["round"]["number"]
    assert result["rounds"][-1]["leader"] == result["rounds"][-1]["after"]["next_leader"] == leader


# -- POST /games/: the players a record would refuse ----------------------------------------

# Control characters and lone surrogates never reach the rules: the edge refuses them first
# (``text_invalid``, tests/referee/api/test_edge_input.py).
_text = st.text(st.characters(blacklist_categories=("Cc", "Cs")), max_size=6)
_name = st.one_of(_text, st.sampled_from(["", " ", "  ", "Andi"]))
_entry = st.one_of(
    _name,
    st.none(),
    st.booleans(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.just({"x": 1}),
)
_players = st.one_of(st.lists(_entry, max_size=7), _text, st.none(), st.integers(), st.just({}))


def _beyond_64_bits(value: Any) -> bool:
    """Whether ``value`` holds an integer the API refuses at its edge (400 ``parse_error``)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return not -(2**63) <= value < 2**63
    if isinstance(value, dict):
        return any(_beyond_64_bits(item) for item in value.values())
    if isinstance(value, list):
        return any(_beyond_64_bits(item) for item in value)
    return False


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(players=_players)
@example(players=2**63)
@example(players=["Andi", -(2**63) - 1, "C", "D", "E"])
def test_creating_a_game_refuses_what_an_imported_record_refuses_R3(organiser_client, players):
    record = {"format": "domeng-record/1", "players": players, "rounds": []}
    replayed = _verdict_of_replay(record)
    if _beyond_64_bits(players):  # refused where the body is parsed, before any rule
        replayed = ("parse_error", None, None, None)
    before = Game.objects.count()

    created = organiser_client.post(f"{API}/games/", {"players": players}, format="json")
    imported = organiser_client.post(f"{API}/games/import/", record, format="json")

    if replayed is None:
        assert (created.status_code, imported.status_code) == (201, 201)
        return
    for response in (created, imported):
        assert response.status_code == 400, response.content
        body = response.json()
        assert (body["code"], body.get("rule"), body.get("round"), body.get("move")) == replayed
    assert Game.objects.count() == before
