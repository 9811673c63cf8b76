"""Play a whole game through the Python client generated from the OpenAPI schema, and
nothing else: no raw HTTP, no untyped value (``mypy --strict`` checks this file against
the generated package ``domeng_client``).

    python play_game.py BASE_URL ORGANISER_TOKEN RECORD.json [ROUNDS]

plays the first ROUNDS rounds (default 5) of the record's events at a live server, as an
integrator's app would: the organiser creates the game and starts a sitting, a
scorekeeper's phone joins with the join code and enters every play and pass, a seat's
phone declares its hand (R31), a blocked round is settled with reveals (R18). On the way
it reads a refused move as a typed problem (R8), catches up from the ``state`` of a 412
after a stale ``If-Match``, retries a move with its ``Idempotency-Key``, undoes a move,
corrects a mistaken pass by amending it, reads the audit trail, gets a 304 for an
unchanged state, ends the sitting, and checks that the stored game's result equals what
the public scoring endpoint makes of its exported record. Exits non-zero on any surprise.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path
from typing import TypeVar
from uuid import UUID

from domeng_client import AuthenticatedClient, Client
from domeng_client.api.corrections import games_events_amend, games_events_list, games_undo
from domeng_client.api.games import games_create, games_join, games_state
from domeng_client.api.play import games_hands_create, games_moves_create, games_reveals_create
from domeng_client.api.records import games_record, games_result, records_score
from domeng_client.api.sessions import games_close, games_sessions_end, games_sessions_start
from domeng_client.models import (
    Amend,
    AuditTrail,
    Correction,
    CorrectionKind,
    CorrectionResult,
    EventResult,
    GameCreate,
    GameCreated,
    GameCreatePlayersItemType2,
    GameState,
    Hand,
    Join,
    Joined,
    MovePass,
    MovePlay,
    NamedOutcome,
    Pass,
    Play,
    Problem,
    Record,
    Result,
    Reveal,
    RoundEnding,
    Session,
    Undo,
)
from domeng_client.types import Response, Unset

T = TypeVar("T")


class Surprise(Exception):
    """The server answered something the integrator did not expect."""


def expect(response: Response[T | Problem], status: int, kind: type[T]) -> T:
    """The parsed body of a ``status`` answer of type ``kind``, else ``Surprise``."""
    parsed = response.parsed
    if response.status_code != status or not isinstance(parsed, kind):
        detail = parsed.code if isinstance(parsed, Problem) else response.content[:300].decode()
        raise Surprise(f"expected {status} {kind.__name__}, got {response.status_code}: {detail}")
    return parsed


def expect_problem(response: Response[T | Problem], status: int, code: str) -> Problem:
    """The ``Problem`` of a ``status`` answer with this ``code``, else ``Surprise``."""
    problem = response.parsed
    if response.status_code != status or not isinstance(problem, Problem) or problem.code != code:
        raise Surprise(f"expected {status} {code}, got {response.status_code}")
    return problem


def stored(result: CorrectionResult) -> Correction:
    """The correction an answer stored (``null`` when it changed nothing), else ``Surprise``."""
    if result.correction is None:
        raise Surprise("the correction changed nothing")
    return result.correction


def check(condition: bool, what: str) -> None:
    if not condition:
        raise Surprise(what)


def etag(version: int) -> str:
    return f'"{version}"'


class Table:
    """The scorekeeper's phone: enters events with an idempotency key and ``If-Match``."""

    def __init__(self, client: AuthenticatedClient, game: UUID, state: GameState) -> None:
        self.client = client
        self.game = game
        self.state = state

    @property
    def version(self) -> int:
        return self.state.version

    def move(self, raw: Play | Pass) -> EventResult:
        result = expect(
            games_moves_create.sync_detailed(
                self.game,
                client=self.client,
                body=move_of(raw),
                idempotency_key=str(uuid.uuid4()),
                if_match=etag(self.version),
            ),
            201,
            EventResult,
        )
        self.state = result.state
        return result

    def reveal(self, body: Reveal) -> EventResult:
        result = expect(
            games_reveals_create.sync_detailed(
                self.game, client=self.client, body=body, if_match=etag(self.version)
            ),
            201,
            EventResult,
        )
        self.state = result.state
        return result

    def refresh(self) -> GameState:
        self.state = expect(
            games_state.sync_detailed(self.game, client=self.client), 200, GameState
        )
        return self.state


def move_of(raw: Play | Pass) -> MovePlay | MovePass:
    """A record's move (a ``Play`` or a ``Pass``) as the body of ``POST …/moves/``: the
    schema's ``oneOf`` of a play and a pass."""
    if isinstance(raw, Pass):
        return MovePass(seat=raw.seat, pass_=True)
    return MovePlay(seat=raw.seat, tile=raw.tile, on=raw.on)


def tiles_of(seat: int, moves: list[Pass | Play]) -> list[str]:
    """The tiles ``seat`` plays in a round's ``moves``."""
    return [m.tile for m in moves if isinstance(m, Play) and m.seat == seat]


def ending_of(number: int, state: GameState) -> RoundEnding:
    """How the round just settled ended (the state's ``round.previous``), printed."""
    previous = state.round_.previous
    if previous is None or isinstance(previous, Unset):
        raise Surprise(f"round {number} did not end")
    if previous.ending is None:  # voided by the organiser (R35): none is here
        raise Surprise(f"round {number} was voided")
    named = ", ".join(name.value for name in previous.named)
    print(f"Round {number:2}  {previous.ending.value:8} {named}; table {state.table}")
    return previous.ending


def play(base_url: str, organiser_token: str, record: Record, rounds: int) -> None:
    organiser = AuthenticatedClient(
        base_url, token=organiser_token, prefix="Token", raise_on_unexpected_status=True
    )
    public = Client(base_url, raise_on_unexpected_status=True)
    played = record.rounds[:rounds]

    response = games_create.sync_detailed(
        client=organiser,
        body=GameCreate(players=list[int | str | GameCreatePlayersItemType2](record.players)),
    )
    created = expect(response, 201, GameCreated)
    check(response.headers.get("ETag") == etag(created.version), "ETag of a new game")
    game = created.id
    sitting = expect(games_sessions_start.sync_detailed(game, client=organiser), 201, Session)
    check(sitting.number == 1 and not sitting.ended_at, "the first sitting is open")

    joined = expect(
        games_join.sync_detailed(client=public, body=Join(join_code=created.join_code)),
        201,
        Joined,
    )
    check(joined.seat is None, "a scorekeeper's token is for the whole table")
    scorekeeper = AuthenticatedClient(
        base_url, token=joined.token, prefix="Table", raise_on_unexpected_status=True
    )
    table = Table(scorekeeper, game, created.state)
    table.refresh()

    first = played[0].moves
    declaring = next(s for s in range(5) if len(tiles_of(s, first)) == 5)
    mistaken = next(i for i in range(2, len(first)) if first[i].seat != declaring)
    endings: list[RoundEnding] = []
    for number, game_round in enumerate(played, 1):
        moves = game_round.moves
        reveal = game_round.reveal.additional_properties if game_round.reveal else {}
        pips = game_round.pips.additional_properties if game_round.pips else {}
        for index, raw in enumerate(moves):
            if number == 1 and index == 1:
                refuse_and_catch_up(table, raw)
            if number == 1 and index == mistaken and isinstance(raw, Play):
                correct_a_mistaken_pass(table, raw)
                continue
            if number == 2 and index == 3:
                undo_and_enter_again(table, raw)
                continue
            if number == 3 and index == 0:
                retry_with_the_same_key(table, raw)
                continue
            table.move(raw)
            if number == 1 and index == 0:
                declare_a_hand(base_url, table, created.join_code, declaring, moves)
        for seat, tiles in sorted(reveal.items()):
            table.reveal(Reveal(seat=int(seat), tiles=tiles))
        for seat, pip_sum in sorted(pips.items()):
            table.reveal(Reveal(seat=int(seat), pips=pip_sum))
        endings.append(ending_of(number, table.state))
        if number == 3:
            ended = expect(games_sessions_end.sync_detailed(game, client=organiser), 200, Session)
            check(ended.number == 1 and bool(ended.ended_at), "the first sitting ended")
            sitting = expect(
                games_sessions_start.sync_detailed(game, client=organiser), 201, Session
            )
            check(sitting.number == 2, "the second sitting started")
            table.refresh()

    check(RoundEnding.BLOCKED in endings, "a blocked round was settled with reveals")

    current = games_state.sync_detailed(game, client=scorekeeper)
    tag = current.headers.get("ETag", "")
    check(tag.startswith(f'"{table.version}.'), "the state's ETag is its version and its body's")
    unchanged = games_state.sync_detailed(game, client=scorekeeper, if_none_match=tag)
    check(unchanged.status_code == 304 and unchanged.parsed is None, "304 while unchanged")

    trail = expect(games_events_list.sync_detailed(game, client=organiser), 200, AuditTrail)
    check(any(r.code == "not_your_turn" for r in trail.refused), "the refusal is logged")
    kinds = {c.kind for c in trail.corrections}
    check(kinds == {CorrectionKind.UNDO, CorrectionKind.AMEND}, f"corrections {kinds}")
    check(all(bool(e.created_at.tzinfo) for e in trail.events), "datetimes, not strings")

    expect(games_sessions_end.sync_detailed(game, client=organiser), 200, Session)
    exported = expect(games_record.sync_detailed(game, client=scorekeeper), 200, Record)
    stored = expect(games_result.sync_detailed(game, client=organiser), 200, Result)
    scored = expect(records_score.sync_detailed(client=public, body=exported), 200, Result)
    # A stored game's rounds also carry their verification at the table (issue 11).
    unverified = [
        str(r.verification.status)
        for r in stored.rounds
        if not isinstance(r.verification, Unset) and r.verification.seat is None
    ]
    check(unverified == ["unverified"] * len(stored.rounds), f"verifications {unverified}")
    rules_part = stored.to_dict()
    for rnd in rules_part["rounds"]:
        rnd.pop("verification")
    check(scored.to_dict() == rules_part, "the stored result equals the scored record")
    check(len(stored.rounds) == len(played), "every round is in the result")
    camat = stored.rounds[-1].after.camat
    print(
        f"Result: {len(stored.rounds)} rounds, table {stored.rounds[-1].after.table}, "
        f"stones {stored.rounds[-1].after.stones}, CAMAT {camat}"
    )

    # Closing is the organiser's, on the version they saw (If-Match, else 428): the client
    # must give one (the schema declares it required); an empty one is no precondition.
    unversioned = games_close.sync_detailed(game, client=organiser, if_match="")
    expect_problem(unversioned, 428, "precondition_required")
    seen = expect(games_state.sync_detailed(game, client=organiser), 200, GameState)
    closed = expect(
        games_close.sync_detailed(game, client=organiser, if_match=etag(seen.version)),
        200,
        GameState,
    )
    check(closed.status.value == "closed", "the game is closed")
    late = games_moves_create.sync_detailed(
        game, client=scorekeeper, body=MovePass(seat=0, pass_=True)
    )
    expect_problem(late, 409, "game_closed")
    print("Check OK: played, corrected and scored through the generated client only")


def refuse_and_catch_up(table: Table, raw: Play | Pass) -> None:
    """A move by the wrong seat is a typed 422 (R8); a write on a stale version is a 412
    whose ``state`` the phone catches up from, then the right move goes in."""
    wrong = MovePass(seat=(raw.seat + 1) % 5, pass_=True)
    refused = expect_problem(
        games_moves_create.sync_detailed(table.game, client=table.client, body=wrong),
        422,
        "not_your_turn",
    )
    check(refused.rule == "R8" and refused.round_ == 1, "the refusal names R8 and round 1")
    print(f"Refused: {refused.code} ({refused.rule}) round {refused.round_} move {refused.move}")

    stale = expect_problem(
        games_moves_create.sync_detailed(
            table.game, client=table.client, body=move_of(raw), if_match=etag(table.version - 1)
        ),
        412,
        "version_mismatch",
    )
    state = stale.state
    if isinstance(state, Unset):
        raise Surprise("a 412 carries the current state")
    check(state.version == table.version, "caught up to the current version")
    table.state = state


def declare_a_hand(
    base_url: str, table: Table, join_code: str, seat: int, moves: list[Pass | Play]
) -> None:
    """The phone of a seat that plays all five tiles this round declares them (R31): only it
    reads them back while the round is in play."""
    joined = expect(
        games_join.sync_detailed(
            client=Client(base_url, raise_on_unexpected_status=True),
            body=Join(join_code=join_code, seat=seat),
        ),
        201,
        Joined,
    )
    phone = AuthenticatedClient(
        base_url, token=joined.token, prefix="Table", raise_on_unexpected_status=True
    )
    declared = expect(
        games_hands_create.sync_detailed(
            table.game, client=phone, body=Hand(seat=seat, tiles=tiles_of(seat, moves))
        ),
        201,
        EventResult,
    )
    own = declared.state.seats[seat]
    check(own.has_declared and own.hand is not None and len(own.hand) == 5, "own hand")
    others = table.refresh().seats[seat]
    check(others.has_declared and others.hand is None, "the hand is hidden from the table")
    print(f"Declared: seat {seat}'s hand, hidden from the scorekeeper")


def correct_a_mistaken_pass(table: Table, raw: Play) -> None:
    """The scorekeeper enters a pass where the seat played; the amendment replaces it."""
    seat = raw.seat
    mistaken = table.move(Pass(seat=seat, pass_=True))
    check(bool(mistaken.effects.named), "a pass is named (PASS or PASSEBUNGE)")
    corrected = expect(
        games_events_amend.sync_detailed(
            table.game,
            mistaken.event.position,
            client=table.client,
            body=Amend(seat=seat, tile=raw.tile, on=raw.on, reason="it was a play"),
            if_match=etag(table.version),
        ),
        200,
        CorrectionResult,
    )
    check(stored(corrected).kind is CorrectionKind.AMEND, "an amendment")
    replacement = stored(corrected).replacement
    check(replacement is not None and replacement.tile == raw.tile, "the play replaced it")
    table.state = corrected.state
    print(f"Amended: event {mistaken.event.position}, a pass, into seat {seat}'s play")


def undo_and_enter_again(table: Table, raw: Play | Pass) -> None:
    entered = table.move(raw)
    undone = expect(
        games_undo.sync_detailed(
            table.game,
            client=table.client,
            body=Undo(reason="tapped too early"),
            if_match=etag(table.version),
        ),
        200,
        CorrectionResult,
    )
    check(stored(undone).kind is CorrectionKind.UNDO, "an undo")
    check(stored(undone).replaced[0].position == entered.event.position, "that event")
    table.state = undone.state
    table.move(raw)
    print(f"Undone and entered again: event {entered.event.position}")


def retry_with_the_same_key(table: Table, raw: Play | Pass) -> None:
    """A move whose answer was lost is sent again with the same key: it counts once."""
    key, if_match = str(uuid.uuid4()), etag(table.version)
    first = expect(
        games_moves_create.sync_detailed(
            table.game,
            client=table.client,
            body=move_of(raw),
            idempotency_key=key,
            if_match=if_match,
        ),
        201,
        EventResult,
    )
    again = games_moves_create.sync_detailed(
        table.game,
        client=table.client,
        body=move_of(raw),
        idempotency_key=key,
        if_match=if_match,
    )
    replayed = expect(again, 201, EventResult)
    check(again.headers.get("Idempotent-Replayed") == "true", "the first answer, replayed")
    check(replayed.event.position == first.event.position, "applied once")
    check(NamedOutcome.CAMAT not in first.effects.named, "a lead elects no CAMAT")
    table.state = first.state
    print(f"Retried: event {first.event.position} with the same Idempotency-Key, applied once")


def main(argv: list[str]) -> int:
    base_url, token, path = argv[1], argv[2], Path(argv[3])
    rounds = int(argv[4]) if len(argv) > 4 else 5
    data = json.loads(path.read_text())
    record = Record.from_dict(data.get("record", data))  # a scenario file, or a bare record
    try:
        play(base_url.rstrip("/"), token, record, rounds)
    except Surprise as surprise:
        print(f"FAILED: {surprise}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
