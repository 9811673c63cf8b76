"""A stored game's life: created (R3, R40), imported from a record, exported, closed.

``game_create`` seats five players (guests' names or a club's players, whom the league
resolves: ``referee.league``) under a rule set; ``game_import`` stores a whole
``domeng-record/1`` record (a paper sheet) as events, judged first; ``game_export`` gives
the record back; ``game_close`` ends the game (the organiser's, on the version they saw).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, ClassVar

from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from referee import folding, settled, signals, store
from referee.engine import Game as EngineGame
from referee.engine.errors import RecordInvalid, ngettext_noop
from referee.engine.records import RECORD_FORMAT, Record, replay
from referee.engine.tiles import SEATS
from referee.exceptions import PreconditionRequired
from referee.idempotency import Idempotency, Replay, outcome, remember, replay_of
from referee.league import league
from referee.models import Event, Game, GameSession, Seat, TableToken
from referee.services import guard
from referee.services.guard import Actor, Precondition
from referee.store import GameState, rules_of, state_of

# A seat stores its player's name in at most this many characters (``Seat.name``).
PLAYER_NAME_MAX_LENGTH = 80


@outcome
@dataclass(frozen=True)
class Closed:
    """A game just closed (``game_close``): the game at its new version."""

    outcome_kind: ClassVar[str] = "closed"

    game: Game

    def to_stored(self) -> dict[str, Any]:
        return {}  # a closed game changes no more: its state is read again

    @classmethod
    def from_stored(cls, game: Game, data: dict[str, Any]) -> Closed:
        return cls(game)


@transaction.atomic
def game_create(
    *,
    players: list[Any],
    rules: dict[str, Any] | None = None,
    created_by: User | AnonymousUser | None = None,
    club: Any = None,
    season: Any = None,
    allow_seated_elsewhere: bool = True,
) -> Game:
    """Create a game with five seats (seat 0 to 4, R3) and a rule set (R40).

    Each seat is a guest's name or, in a club's game, a registered player's
    id (the registered league resolves them, ``referee.league``). Raises ``record_invalid``
    (R3/R40) for players that are not five names (of at most
    ``PLAYER_NAME_MAX_LENGTH`` characters, what a seat stores) or rules R40
    does not allow, and the league's errors (``player_not_in_club``,
    ``season_archived`` …). Without ``allow_seated_elsewhere`` (the API asks the
    organiser), a club player sitting in another open game is
    ``player_seated_elsewhere`` (409, R38).
    """
    if not isinstance(players, list) or len(players) != SEATS:
        # Not five seats: the rules core says so (record_invalid, R3), as for an import.
        Record.parse({"format": RECORD_FORMAT, "players": players, "rounds": []})
    seating = league().seating(
        players=players,
        club=club,
        season=season,
        created_by=created_by,
        allow_seated_elsewhere=allow_seated_elsewhere,
    )
    players = seating.names
    record = Record.parse(
        {"format": "domeng-record/1", "players": players, "rules": rules, "rounds": []}
    )
    _check_name_lengths(record.players)
    rule_set = record.rules
    game = Game.objects.create(
        rules=rule_set.to_dict(),
        created_by=created_by if created_by is not None and created_by.is_authenticated else None,
        state=store.replace(
            GameState.initial(rule_set),
            current=store.RoundCache(0, 1, (), tuple(n.strip() for n in seating.names), ()),
        ).to_json(),
    )
    seats = Seat.objects.bulk_create(
        Seat(game=game, number=number, name=name.strip())
        for number, name in enumerate(seating.names)
    )
    signals.game_created.send(  # the league keeps its club, season and seat players
        Game,
        game=game,
        club_id=seating.club_id,
        season_id=seating.season_id,
        players=list(seating.players),
        seats=seats,
    )
    return game


@transaction.atomic
def game_import(
    *,
    record: Any,
    created_by: User | AnonymousUser | None = None,
    club: Any = None,
    season: Any = None,
    players: list[Any] | None = None,
    played_at: Any = None,
) -> Game:
    """Store a ``domeng-record/1`` record (e.g. a paper sheet) as a game with its events.

    ``club``/``season``/``players`` (names or player ids, replacing the
    record's names) make it a league game, as in ``game_create``;
    ``played_at`` (a datetime) dates its rounds in the league, else the time
    of the import. Its rulings (void R35, adjustments R36, substitutes R38)
    are stored as events; in a club's game a substitute's name that is exactly one club
    player's is that player (``substitute_players``: a record holds names only), so a
    game's export imported again credits the same rounds. Raises the record's first
    ``RefereeError``; nothing is stored then.
    """
    parsed = Record.parse(record)
    settled_by: dict[int, int | None] = {}
    # The whole record must be possible before anything is stored; its replay is also
    # the engine stored from, with the event that settled each round (issue 29).
    judged = replay(parsed, settled_by=settled_by)
    folding.check_storable(record)
    game = game_create(
        players=players if players is not None else list(parsed.players),
        rules=parsed.rules.to_dict(),
        created_by=created_by,
        club=club,
        season=season,
    )
    entries = substitute_players(game, folding.record_entries(parsed.rounds))
    engine, folded = folding.fold_record(parsed.rules, entries, judged, settled_by)
    entries = folding.with_sides(engine, entries)  # where each tile lies (R11)
    actor = Actor(user=created_by).label
    now = timezone.now()
    if isinstance(played_at, str):  # an ISO 8601 date and time, as the API takes it
        played_at = parse_datetime(played_at)
    # One instant an event, in the record's order (a microsecond apart): its rounds settle
    # one after another, so a league history in their order pages by time without ties (a
    # cursor's position, issue 32).
    times = [(played_at or now) + timedelta(microseconds=p) for p in range(len(entries))]
    # As a table enters them: ``store.ROUND_GAP`` positions free before each later round.
    positions = _gapped_positions(folded.rounds)
    entered_by = f"import by {actor}"
    store.insert_values(
        Event,
        [
            {
                "game_id": game.pk,
                "position": positions[index],
                "kind": entry.kind,
                "payload": entry.payload,
                "round_number": number,
                "entered_by": entered_by,
                "created_at": times[index],
            }
            for index, (entry, number) in enumerate(zip(entries, folded.rounds, strict=True))
        ],
    )
    # Each round dated by the event that settled it: the league need not fold it again.
    settled_at = {
        number: times[p]
        for p, (number, settles) in enumerate(zip(folded.rounds, folded.settled, strict=True))
        if settles
    }
    version = len(entries)  # one version an event, as if each had been entered
    snapshot = folding.advance_snapshot(engine, folding.initial_snapshot(parsed.rules))
    substitutes = tuple(
        (e.payload["round"], e.payload["seat"], e.payload["name"], e.payload.get("player"))
        for e in entries
        if e.kind == "substitute"
    )
    created = state_of(game).current
    assert created is not None  # game_create caches the seats' names
    players = list(created.players)
    for _, seat, name, _ in sorted(substitutes, key=lambda sub: sub[0] or 0):
        players[seat] = name  # who sits the seat now (R38)
    # The events of the last round begun, with what each did: the round cache.
    head = len(entries) - len(folded.tail)
    kept = [
        (store.CachedEvent(position, e.kind, e.payload, effect.round, f"import by {actor}"), effect)
        for position, e, effect in zip(positions[head:], entries[head:], folded.tail, strict=True)
    ]
    current = store.RoundCache(
        version,
        snapshot["round"],
        tuple(event for event, _ in kept),
        tuple(players),
        tuple(effect for _, effect in kept),
    )
    store.commit(
        game,
        GameState(
            snapshot=snapshot,
            next_position=positions[-1] + 1 if positions else 0,
            sittings=0,  # an imported record's rounds belong to no sitting
            substitutes=substitutes,
            current=current,
        ),
        version=version,
    )
    # Each round is dated by the event that settled it (``played_at`` or now, in order).
    signals.rounds_changed.send(Game, game=game, engine=engine, settled_at=settled_at)
    return game


def _gapped_positions(rounds: Sequence[int]) -> list[int]:
    """The positions of events of the given rounds, in order: one after another, and
    ``store.ROUND_GAP`` left free before the first event of each round after the first
    event's (as ``services.events`` places a table's events, issue 29)."""
    positions: list[int] = []
    for index, number in enumerate(rounds):
        if not positions:
            positions.append(0)
            continue
        gap = store.ROUND_GAP if number != rounds[index - 1] else 0
        positions.append(positions[-1] + 1 + gap)
    return positions


def substitute_players(
    game: Game, entries: list[folding.Entry], stored: Sequence[Any] = ()
) -> list[folding.Entry]:
    """A record's events with each substitute's registered player (R38), which a record
    does not carry (its ``substitutes`` hold names, RECORD.md): the player of a ``stored``
    live substitute event (``kind``/``payload``, e.g. the game's own) of the same round,
    seat and name, else the club player the name is (``League.substitute_players``: a
    name that is exactly one club player's), else none (a guest). So a game's export
    imported again, or put back as its corrected record, credits the same players."""
    known = {
        (e.payload.get("round"), e.payload.get("seat"), e.payload.get("name")): e.payload
        for e in stored
        if e.kind == "substitute"
    }
    result: list[folding.Entry] = []
    unknown: list[int] = []
    for entry in entries:
        if entry.kind != "substitute" or "player" in entry.payload:
            result.append(entry)
            continue
        payload = entry.payload
        same = known.get((payload.get("round"), payload.get("seat"), payload.get("name")))
        if same is not None:
            payload = {**payload, "player": same.get("player")}
        else:
            unknown.append(len(result))
        result.append(folding.Entry(entry.kind, payload, entry.round))
    if unknown:
        found = league().substitute_players(
            game=game, names=[result[i].payload["name"] for i in unknown]
        )
        for index, player in zip(unknown, found, strict=True):
            entry = result[index]
            result[index] = folding.Entry(
                entry.kind, {**entry.payload, "player": player}, entry.round
            )
    return result


def _check_name_lengths(players: tuple[str, ...]) -> None:
    """Raise ``record_invalid`` (R3) for a seat's name longer than a seat stores."""
    for seat, name in enumerate(players):
        if len(name.strip()) > PLAYER_NAME_MAX_LENGTH:
            raise RecordInvalid(
                ngettext_noop(
                    "seat %(seat)s's name is longer than %(max)s character",
                    "seat %(seat)s's name is longer than %(max)s characters",
                    number="max",
                ),
                rule="R3",
                seat=seat,
                max=PLAYER_NAME_MAX_LENGTH,
            )


def game_export(game: Game, *, reader: TableToken | None = None) -> dict[str, Any]:
    """The game as a ``domeng-record/1`` record: every live event, in order.

    Declared hands of a round still in play are left out: no one may read
    them before the round is over (R31). ``reader`` is the table token of the phone
    asking (``None``: the organiser, or the service itself replaying the game): while a
    blocked round still waits for reveals (R18) a phone reads only the hand it declared
    itself, not another seat's, which would let it tailor a ``pips`` reveal (R33, R31);
    every hand is in once the round is settled.
    """
    rounds, tail = game_export_rounds(game, reader=reader)
    record = rounds.record(game.players)
    record["rounds"][rounds.stored :] = tail
    return record


def game_export_rounds(
    game: Game, *, reader: TableToken | None = None
) -> tuple[settled.GameRounds, list[dict[str, Any]]]:
    """``game_export``'s parts: the game's rounds (``settled.game_rounds``: the stored
    settled rounds, the tail folded, issue 29) and the record's rounds after the stored
    ones as ``reader`` may read them (R31, R18, R33). The stored rounds are settled or
    voided: every reader reads them whole, so the API joins their kept text."""
    rounds = settled.game_rounds(game, only="record")
    tail = [dict(data) for data in rounds.tail_records]
    engine = rounds.engine
    if not engine.rounds:
        return rounds, tail
    last = engine.rounds[-1].round
    if not last.is_over():
        tail[-1].pop("hands", None)
    elif reader is not None and not last.is_settled():
        hands = tail[-1].pop("hands", None) or {}
        own = _declared_by(game, reader, last.number)
        if own is not None and str(own) in hands:
            tail[-1]["hands"] = {str(own): hands[str(own)]}
    return rounds, tail


def _declared_by(game: Game, reader: TableToken, number: int) -> int | None:
    """The seat whose live hand of round ``number`` ``reader`` declared, if any (R31)."""
    if reader.seat is None:
        return None
    live = game.events.filter(
        kind=Event.Kind.HAND, round_number=number, revoked_by__isnull=True
    ).order_by("position")
    declared = [e for e in live if e.payload.get("seat") == reader.seat]  # five at most
    return reader.seat if declared and declared[-1].entered_by == reader.actor else None


def full_fold(game: Game) -> tuple[EngineGame, list[folding.Effects]]:
    """Fold every live event of the game from its start (after a correction, for export)."""
    events = game.events.filter(revoked_by__isnull=True).order_by("position")
    return folding.fold(rules_of(game), [(e.kind, e.payload) for e in events])


@transaction.atomic
def game_close(
    *,
    game_id: Any,
    actor: Actor,
    precondition: Precondition | None = None,
    idempotency: Idempotency | None = None,
) -> Closed | Replay[Closed]:
    """Close the game: no more events; its record and result stay readable.

    The organiser's only, on the version they saw (``If-Match``). Returns the closed game
    (``Closed``), or the stored answer when ``idempotency``'s key was seen (``Replay``: a
    retried close gets its first answer, not ``game_closed``). Raises ``organiser_only``
    (403), ``precondition_required`` (428) without a version from ``If-Match``,
    ``precondition_failed`` (412) for a stale one, ``game_closed`` (409).
    """
    guard.check_organiser(actor)
    game = guard.lock(game_id, actor)
    if (replayed := replay_of(game, idempotency)) is not None:
        return replayed
    guard.check_open(game, precondition, actor)  # a failing If-Match/If-None-Match: 412 first
    if precondition is None or not precondition.names_a_version_by_header:
        raise PreconditionRequired()  # the version they saw, as If-Match
    now = timezone.now()
    GameSession.objects.filter(game=game, ended_at__isnull=True).update(ended_at=now)
    game.status = Game.Status.CLOSED
    game.closed_at = now
    store.commit(
        game,
        store.replace(state_of(game), session=None, session_id=None),
        fields=["status", "closed_at"],
    )
    closed = Closed(game)
    remember(game, idempotency, closed)
    return closed
