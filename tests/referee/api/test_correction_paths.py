"""One correction path (R37): ``PUT …/events/{position}/`` and ``POST …/corrections/``
with that one amendment give the same outcome for every actor and kind of event —
the organiser correcting a computer seat's hand included, before and after it moved
(R31, R39)."""

from __future__ import annotations

from typing import Any

import pytest

from referee.models import Event, Game
from tests.referee.conftest import API, GameApi

COMPUTER = 3
HAND_0 = ["6-6", "0-1", "0-2", "0-3", "0-4"]  # seat 0 leads 6-6 (R5)
HAND_3 = ["4-5", "1-1", "1-2", "1-3", "1-4"]  # the computer's: 4-5 is its only play on 5


@pytest.fixture
def computer_table(organiser_client) -> GameApi:
    """Seat 3 is the computer's. Round 1: seat 0 declares its hand from its phone, the
    organiser enters the computer's; seat 0 leads 6-6, seat 1 plays 5-6, seat 2 passes
    and the computer plays 4-5 on the 5 at once (R39)."""
    response = organiser_client.post(
        f"{API}/games/",
        {"players": ["Andi", "Besse", "Cakra", "Computer", "Evi"], "computer": {"3": "strong"}},
        format="json",
    )
    assert response.status_code == 201, response.content
    table = GameApi(Game.objects.get(pk=response.json()["id"]), organiser_client)
    table.accept(table.declare(0, HAND_0))
    hand = table.organiser.post(
        table.url(f"seats/{COMPUTER}/computer/hand/"), {"tiles": HAND_3}, format="json"
    )
    assert hand.status_code == 201, hand.content
    table.accept(table.play(0, "6-6"))
    table.accept(table.play(1, "5-6"))
    table.accept(table.pass_(2))
    assert [e.payload.get("tile") for e in live(table, "move")][-1] == "4-5"  # the computer's
    return table


def live(table: GameApi, kind: str | None = None) -> list[Event]:
    events = Event.objects.filter(game=table.game, revoked_by__isnull=True).order_by("position")
    return [e for e in events if kind is None or e.kind == kind]


def entered(payload: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in payload.items() if k != "side"}


def target(table: GameApi, name: str) -> Event:
    events = live(table)
    moves = [e for e in events if e.kind == "move"]
    hands = {e.payload["seat"]: e for e in events if e.kind == "hand"}
    return {
        "person's hand": hands.get(0),
        "computer's hand": hands.get(COMPUTER),
        "lead": moves[0],
        "move": moves[1],
        "pass": moves[2],
        "computer's move": moves[3],
    }[name]


def both_paths(table: GameApi, client, position: int, payload: dict[str, Any]) -> list[Any]:
    """The outcome (status, code) of the amendment by ``client`` through each path."""
    put = client.put(table.url(f"events/{position}/"), payload, format="json")
    post = client.post(
        table.url("corrections/"),
        {"changes": [{"op": "amend", "position": position, "event": payload}]},
        format="json",
    )
    return [
        (r.status_code, r.json().get("code") if r.status_code >= 400 else None) for r in (put, post)
    ]


ACTORS = ["organiser", "scorekeeper", "own phone", "another phone"]


def client_of(table: GameApi, actor: str, seat: int):
    if actor == "organiser":
        return table.organiser
    if actor == "scorekeeper":
        return table.scorekeeper
    if actor == "own phone":
        return table.phone(seat) if seat != COMPUTER else table.scorekeeper
    return table.phone(4)


@pytest.mark.parametrize("actor", ACTORS)
@pytest.mark.parametrize(
    "kind", ["person's hand", "computer's hand", "lead", "move", "pass", "computer's move"]
)
def test_both_correction_paths_agree_for_every_actor_and_kind_R37(computer_table, actor, kind):
    """The same amendment (the event as entered: nothing to change) is accepted or
    refused with the same code by both paths, whoever asks (R31, R37, R39)."""
    event = target(computer_table, kind)
    payload = entered(event.payload)
    if kind == "person's hand":
        payload = {"seat": 0, "tiles": HAND_0}
    if kind == "computer's hand":
        payload = {"seat": COMPUTER, "tiles": HAND_3}
    client = client_of(computer_table, actor, payload["seat"])

    put, post = both_paths(computer_table, client, event.position, payload)

    assert put == post
    if actor == "organiser":
        assert put == (200, None)  # the organiser corrects any event, a hand included


@pytest.fixture
def blocked_table(table, load_scenario) -> GameApi:
    """Scenario 05 entered from the phones: a blocked round and its reveals (R18)."""
    table.play_record(load_scenario("05_blocked_no_mattikkeng")["record"])
    return table


@pytest.mark.parametrize("actor", ACTORS)
def test_both_correction_paths_agree_for_reveals_R37(blocked_table, actor):
    event = next(e for e in live(blocked_table) if e.kind == "reveal")
    payload = dict(event.payload)
    client = client_of(blocked_table, actor, payload["seat"])

    put, post = both_paths(blocked_table, client, event.position, payload)

    assert put == post
    if actor == "organiser":
        assert put == (200, None)


# -- the computer seat's hand -----------------------------------------------------------------


@pytest.mark.parametrize("path", ["put", "post"])
def test_the_organiser_corrects_a_computer_hand_after_it_moved_R39_R37(computer_table, path):
    """Its move stays a fact, judged again against the corrected hand (R31)."""
    hand = target(computer_table, "computer's hand")
    fixed = {"seat": COMPUTER, "tiles": ["4-5", "1-1", "1-2", "1-3", "2-2"]}

    response = amend(computer_table, path, [(hand.position, fixed)])

    assert response.status_code == 200, response.content
    assert target(computer_table, "computer's hand").payload["tiles"] == fixed["tiles"]
    assert target(computer_table, "computer's move").payload["tile"] == "4-5"


@pytest.mark.parametrize("path", ["put", "post"])
def test_a_corrected_computer_hand_that_its_move_contradicts_is_refused_naming_it_R39(
    computer_table, path
):
    hand = target(computer_table, "computer's hand")
    version = computer_table.state()["version"]
    without = {"seat": COMPUTER, "tiles": ["3-5", "1-1", "1-2", "1-3", "1-4"]}

    response = amend(computer_table, path, [(hand.position, without)])

    assert response.status_code == 422
    body = response.json()
    assert (body["code"], body["rule"], body["round"], body["move"]) == (
        "tile_not_in_hand",
        "R31",
        1,
        3,
    )
    assert computer_table.state()["version"] == version


def test_a_batch_corrects_a_computer_hand_and_the_move_it_made_R39_R37(computer_table):
    hand = target(computer_table, "computer's hand")
    move = target(computer_table, "computer's move")
    fixed = {"seat": COMPUTER, "tiles": ["3-5", "1-1", "1-2", "1-3", "1-4"]}

    response = amend(
        computer_table,
        "post",
        [(hand.position, fixed), (move.position, {"seat": 3, "tile": "3-5"})],
    )

    assert response.status_code == 200, response.content
    assert computer_table.record(client=computer_table.organiser)["rounds"][0]["moves"][3] == {
        "seat": COMPUTER,
        "tile": "3-5",
    }


def test_the_organiser_inserts_a_computer_hand_but_not_a_persons_R39_R31(computer_table):
    """A hand inserted by the organiser: the computer's (R39), never a person's (R31)."""
    hand = target(computer_table, "computer's hand")
    removed = computer_table.organiser.post(
        computer_table.url("corrections/"),
        {"changes": [{"op": "remove", "position": hand.position}]},
        format="json",
    )
    assert removed.status_code == 200, removed.content
    first = live(computer_table)[0].position

    def insert(payload):
        return computer_table.organiser.post(
            computer_table.url("corrections/"),
            {"changes": [{"op": "insert", "position": first, "kind": "hand", "event": payload}]},
            format="json",
        )

    person = insert({"seat": 1, "tiles": ["2-2", "2-3", "2-4", "2-5", "2-6"]})
    assert (person.status_code, person.json()["code"]) == (403, "seat_not_allowed")
    computer = insert({"seat": COMPUTER, "tiles": HAND_3})
    assert computer.status_code == 200, computer.content


def amend(table: GameApi, path: str, changes: list[tuple[int, dict[str, Any]]]):
    if path == "put":
        assert len(changes) == 1
        position, payload = changes[0]
        return table.organiser.put(table.url(f"events/{position}/"), payload, format="json")
    return table.organiser.post(
        table.url("corrections/"),
        {
            "changes": [
                {"op": "amend", "position": position, "event": payload}
                for position, payload in changes
            ]
        },
        format="json",
    )
