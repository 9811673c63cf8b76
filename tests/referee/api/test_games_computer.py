"""Computer seats at a live table over HTTP (R39): four people and the computer play a game.

The organiser marks seat 3 as the computer's, enters its five tiles each round
(a declared hand, R31); on its turn the referee enters its move at once, judged
like any other; no other token ever reads its hand before the round is over.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from referee.engine.records import replay_record
from referee.engine.rules import DEFAULT_RULES
from referee.engine.simulation import PLAYERS, deal_hands
from referee.engine.tiles import Tile
from referee.models import Event, Game, TableToken
from referee.services.computer import computer_turns_play
from tests.referee.conftest import API, PROBLEM, GameApi

COMPUTER = 3


@pytest.fixture
def computer_table(organiser_client) -> GameApi:
    response = organiser_client.post(
        f"{API}/games/",
        {"players": [*PLAYERS[:3], "Computer", PLAYERS[4]], "computer": {"3": "strong"}},
        format="json",
    )
    assert response.status_code == 201, response.content
    assert [s["computer"] for s in response.json()["state"]["seats"]] == [
        None, None, None, "strong", None,
    ]  # fmt: skip
    return GameApi(Game.objects.get(pk=response.json()["id"]), organiser_client)


def enter_hand(table: GameApi, tiles: list[str], **headers: str) -> Any:
    return table.organiser.post(
        table.url(f"seats/{COMPUTER}/computer/hand/"),
        {"tiles": tiles},
        format="json",
        headers=headers or None,
    )


def greedy_move(seat: int, hand: set[Tile], ends: list[int] | None) -> dict[str, Any]:
    """What a person holding ``hand`` plays: the heaviest tile that fits, else a pass."""
    if ends is None:
        return {"seat": seat, "tile": str(max(hand, key=lambda t: (t.pips, t.high)))}
    fits = [(t, v) for t in hand for v in sorted(set(ends)) if t.carries(v)]
    if not fits:
        return {"seat": seat, "pass": True}
    tile, on = max(fits, key=lambda f: (f[0].pips, f[0].high))
    return {"seat": seat, "tile": str(tile), "on": on}


def assert_hand_hidden(table: GameApi, body: dict[str, Any], *, full: bool = False) -> None:
    """No token reads the computer's hand before its round is over (R31, R39).

    ``body`` is the answer a phone just got; every other token's state is read
    too, and with ``full`` its audit trail and the record export.
    """
    state = body["state"]
    rnd = state["round"]
    # Before a lead the seats show the round their hands are for: the next one once a hand
    # is declared for it (nothing played yet), else the finished one (issue 28).
    next_round = rnd["status"] == "awaiting_lead" and not played(state)
    if rnd["status"] == "in_play" or next_round:
        assert state["seats"][COMPUTER]["hand"] is None
        everyone = [table.scorekeeper, table.organiser, *(table.phone(s) for s in (0, 1, 2, 4))]
        for client in everyone if full else everyone[:1] + everyone[2:3]:
            assert table.state(client=client)["seats"][COMPUTER]["hand"] is None
            if full:
                events = table.events(client=client)["events"]
                assert all(e["payload"]["tiles"] is None for e in events if e["kind"] == "hand")
                assert "hands" not in table.record(client=client)["rounds"][-1]


def first_leader(hands: list[set[Tile]]) -> tuple[int, Tile]:
    """R5: the holder of the first listed double dealt, and that double."""
    double = next(d for d in DEFAULT_RULES.first_lead_doubles if any(d in h for h in hands))
    return next(s for s in range(5) if double in hands[s]), double


def play_round(table: GameApi, hands: list[set[Tile]], *, first: bool) -> dict[str, Any]:
    """Play one round: the organiser enters the computer's hand, the people move by phone."""
    body = table.accept(enter_hand(table, sorted(str(t) for t in hands[COMPUTER])))
    assert "tiles" not in body["event"]
    assert_hand_hidden(table, body, full=True)
    number = body["state"]["round"]["number"]  # the round this hand is for
    leader, double = first_leader(hands)
    if first and leader == COMPUTER and double != Tile.parse("6-6"):
        # It leads by itself only with 6-6; the table calls its 5-5 (R5).
        response = table.scorekeeper.post(
            table.url("computer/move/"), {"seat": COMPUTER}, format="json"
        )
        assert response.status_code == 200, response.content
    for _ in range(60):
        state = table.state()
        status = state["round"]["status"]
        if status == "awaiting_reveals":
            for seat in state["round"]["awaiting_reveal"]:
                assert seat != COMPUTER  # its remainder is known from its declared hand (R31)
                left = sorted(str(t) for t in hands[seat] if str(t) not in played(state))
                table.accept(table.reveal(seat, tiles=left))
            continue
        previous = state["round"]["previous"]
        if status == "awaiting_lead" and previous is not None and previous["number"] == number:
            return previous  # (before the lead, the round before stays on show: issue 28)
        seat = leader if state["turn"] is None else state["turn"]  # None: R5's first lead
        assert seat != COMPUTER, "the computer's move is entered at once, never awaited"
        unplayed = {t for t in hands[seat] if str(t) not in played(state)}
        body = table.accept(table.move(greedy_move(seat, unplayed, state["round"]["ends"])))
        assert_hand_hidden(table, body, full=len(played(body["state"])) == 6)
    raise AssertionError("the round did not end")


def played(state: dict[str, Any]) -> set[str]:
    return {t for s in state["seats"] for t in s["tiles_played"]}


def test_a_table_one_player_short_plays_several_rounds_with_a_computer_seat_r39(computer_table):
    table = computer_table
    rng = random.Random(39)
    outcomes = []
    for number in range(1, 4):
        hands = deal_hands(rng, DEFAULT_RULES, first=number == 1)
        outcomes.append(play_round(table, hands, first=number == 1))

    assert len(outcomes) == 3
    events = Event.objects.filter(game=table.game, revoked_by__isnull=True)
    computer_moves = [e for e in events if e.entered_by == "computer (strong) at seat 3"]
    assert computer_moves
    assert all(e.payload["seat"] == COMPUTER for e in computer_moves)
    hands = [e for e in events if e.kind == "hand"]
    assert all(e.entered_by.endswith("for the computer at seat 3") for e in hands)
    record = table.record()
    assert table.result() == replay_record(record)  # its moves judged like any other
    assert all(sorted(r["hands"]) == ["3"] for r in record["rounds"])  # shown once over


# -- who may do what ---------------------------------------------------------------------


def test_no_phone_may_join_a_computer_seat_r39(computer_table, api_client):
    response = api_client.post(
        f"{API}/join/",
        {"join_code": computer_table.game.join_code, "seat": COMPUTER},
        format="json",
    )

    assert response.status_code == 409
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "seat_is_computer"


def test_a_phone_may_not_enter_the_computers_hand_r39(computer_table):
    response = computer_table.scorekeeper.post(
        computer_table.url(f"seats/{COMPUTER}/computer/hand/"),
        {"tiles": ["6-6", "0-1", "0-2", "0-3", "0-4"]},
        format="json",
    )

    assert response.status_code == 403
    assert response.json()["code"] == "seat_not_allowed"


def test_the_organiser_enters_only_a_computer_seats_hand_r31(computer_table):
    response = computer_table.organiser.post(
        computer_table.url("seats/1/computer/hand/"),
        {"tiles": ["6-6", "0-1", "0-2", "0-3", "0-4"]},
        format="json",
    )

    assert response.status_code == 409
    assert response.json()["code"] == "seat_not_computer"


def test_a_computers_hand_is_judged_as_a_declared_hand_r31(computer_table):
    response = enter_hand(computer_table, ["6-6", "0-1", "0-2", "0-3", "0-3"])

    assert response.status_code == 400
    assert response.json()["code"] == "record_invalid"
    assert response.json()["rule"] == "R31"


def test_with_the_first_double_the_computer_leads_at_once_r5(computer_table):
    body = computer_table.accept(enter_hand(computer_table, ["6-6", "0-1", "0-2", "0-3", "0-4"]))

    assert body["state"]["round"]["chain"] == ["6-6"]
    assert body["state"]["last_events"][-1]["entered_by"] == "computer (strong) at seat 3"
    assert body["state"]["turn"] == 4


def test_a_seat_becomes_a_computer_only_between_rounds_and_loses_its_phones_r39(table):
    phone = table.phone(2)
    table.accept(table.play(0, "6-6"))

    during = table.organiser.put(
        table.url("seats/2/computer/"), {"strategy": "greedy"}, format="json"
    )
    assert during.status_code == 409
    assert during.json()["code"] == "round_in_play"

    assert table.undo().status_code == 200
    between = table.organiser.put(
        table.url("seats/2/computer/"), {"strategy": "greedy"}, format="json"
    )
    assert between.status_code == 200, between.content
    assert between.json()["seats"][2]["computer"] == "greedy"
    assert phone.get(table.url()).status_code == 401  # its token was revoked
    assert TableToken.objects.get(game=table.game, seat=2).revoked_at is not None

    back = table.organiser.put(table.url("seats/2/computer/"), {"strategy": None}, format="json")
    assert back.json()["seats"][2]["computer"] is None


def test_a_phone_may_not_make_a_seat_a_computer_r39(table):
    response = table.scorekeeper.put(
        table.url("seats/2/computer/"), {"strategy": "strong"}, format="json"
    )

    assert response.status_code == 403


@pytest.mark.parametrize("strategy", ["clever", 3, ""])
def test_an_unknown_strategy_is_a_400(table, strategy):
    response = table.organiser.put(
        table.url("seats/2/computer/"), {"strategy": strategy}, format="json"
    )

    assert response.status_code == 400


# -- undo, asking again, idempotency -------------------------------------------------------


def test_an_undone_computer_move_waits_until_the_table_asks_again_r39(computer_table):
    table = computer_table
    table.accept(enter_hand(table, ["6-6", "0-1", "2-6", "0-3", "5-6"]))
    first = table.state()["last_events"][-1]

    assert table.undo().status_code == 200
    assert table.state()["round"]["chain"] == []  # not played again by itself
    again = table.scorekeeper.post(table.url("computer/move/"), {}, format="json")

    assert again.status_code == 200, again.content
    replayed = again.json()["last_events"][-1]
    assert (replayed["seat"], replayed["tile"]) == (first["seat"], first["tile"])  # seeded


def test_asking_for_a_computer_move_when_none_is_due_is_a_409(computer_table):
    response = computer_table.scorekeeper.post(
        computer_table.url("computer/move/"), {}, format="json"
    )

    assert response.status_code == 409
    assert response.json()["code"] == "no_computer_turn"


def test_looking_twice_enters_the_computers_move_once(computer_table):
    table = computer_table
    table.accept(enter_hand(table, ["5-5", "0-1", "2-6", "0-3", "5-6"]))
    table.accept(table.play(2, "6-6"))  # seat 2 leads; seat 3 (the computer) answers at once
    moves = Event.objects.filter(game=table.game, kind="move", revoked_by__isnull=True).count()

    assert computer_turns_play(game_id=table.game.pk) == 0
    assert Event.objects.filter(game=table.game, kind="move").count() == moves == 2


def test_a_game_without_computer_seats_reports_none(table):
    assert [s["computer"] for s in table.state()["seats"]] == [None] * 5


def test_a_seat_key_outside_0_to_4_is_refused_at_creation(organiser_client):
    response = organiser_client.post(
        f"{API}/games/", {"players": list(PLAYERS), "computer": {"5": "strong"}}, format="json"
    )

    assert response.status_code == 400
