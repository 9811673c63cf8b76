"""Corrections of any round and the organiser's rulings (R35–R38): writes to stored games.

These are services like those of ``referee.services`` (same lock, version
check, ``Idempotency-Key`` and audit), kept in their own module. Every
correction — an amendment, insertion or removal of any event of any round,
one at a time or as one atomic batch, a void (R35), an adjustment (R36), a
substitute (R38), a whole corrected record — is judged by replaying the
corrected game as a record (R37): if any event becomes impossible, the whole
correction is refused with that event's error and nothing changes. Events
keep the time and author of their first entry; the correction is logged
(``Correction``: author, time, reason, what it replaced). League rows follow
in the same transaction, each round keeping the time it was settled at the
table (issue 13 item 5).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from django.db import transaction
from django.utils import timezone

from referee import folding, settled, signals, store
from referee.engine import Game as EngineGame
from referee.engine import RefereeError
from referee.engine.errors import RecordInvalid, RoundOver, gettext_noop
from referee.engine.records import Record, replay, result_of
from referee.engine.round import check_seat
from referee.exceptions import EventNotAmendable, OrganiserOnly, SeatNotAllowed, ServiceError
from referee.idempotency import (
    Idempotency,
    Replay,
    outcome,
    remember,
    replay_of,
    row_from_stored,
    row_to_stored,
)
from referee.league import league
from referee.models import Correction, Event, Game, Seat, SettledRound, TableAlert
from referee.selectors import game_state_for
from referee.services import games, guard, probes, verification
from referee.services.guard import Actor, Precondition
from referee.store import rules_of, state_of

# Within a round, a replay takes substitutes first, then the events of play, then the
# void and the adjustments (R34); a corrected game's events are kept in that order.
_RANK = {"substitute": 0, "hand": 1, "move": 1, "reveal": 1, "void": 2, "adjustment": 3}

EVENT_KINDS = frozenset(_RANK)


@dataclass(frozen=True)
class Change:
    """One change of a correction (R37).

    ``op`` is ``amend`` (the live event at ``position`` gets ``payload``),
    ``remove`` (the live event at ``position`` is revoked) or ``insert`` (a new
    event of ``kind`` with ``payload`` before the live event at ``position``,
    or after the last one when ``position`` is ``None``; it belongs to
    ``round``, by default the round of the event it precedes, else the last).
    Positions are those before the correction.
    """

    op: str
    position: int | None = None
    kind: str | None = None
    payload: dict[str, Any] | None = None
    round: int | None = None


@outcome
@dataclass(frozen=True)
class Corrected:
    """What a correction of the game did (R35–R38): an amendment, a batch of changes, a
    void, an adjustment, a substitute, a re-seating or a whole corrected record.

    ``game``: the game row, at a new version when something changed; ``correction``: the
    stored ``Correction`` (kind, author, time, reason, ``changes``, the events it revoked
    and its replacement), or ``None`` when the correction changed nothing and nothing was
    stored; ``state``: the game's state as the one who corrected it sees it.
    """

    outcome_kind: ClassVar[str] = "corrected"

    game: Game
    correction: Correction | None
    state: dict[str, Any]

    def to_stored(self) -> dict[str, Any]:
        """The correction by its id (its row is the audit trail, never changed), what it
        did and its replacement as answered (their keys in their order), and the state
        answered."""
        correction = self.correction
        if correction is None:
            return {"correction": None, "state": self.state}
        replacement = correction.replacement if correction.replacement_id else None
        return {
            "correction": correction.pk,
            "changes": correction.changes,
            "replacement": row_to_stored(replacement) if replacement is not None else None,
            "state": self.state,
        }

    @classmethod
    def from_stored(cls, game: Game, data: dict[str, Any]) -> Corrected:
        correction = None
        if data["correction"] is not None:
            correction = Correction.objects.get(pk=data["correction"], game=game)
            correction.changes = data["changes"]
            if data["replacement"] is not None:
                correction.replacement = row_from_stored(Event, data["replacement"], game=game)
        return cls(game, correction, data["state"])


@dataclass(frozen=True)
class _Slot:
    """An event of the corrected game: a live event kept or amended, or a new one."""

    kind: str
    payload: dict[str, Any]
    round: int
    origin: Event | None = None

    @property
    def changed(self) -> bool:
        return self.origin is None or self.origin.payload != self.payload


# -- services ------------------------------------------------------------------------------


def events_correct(
    *,
    game_id: Any,
    changes: Sequence[Change],
    actor: Actor,
    reason: str = "",
    precondition: Precondition | None = None,
    idempotency: Idempotency | None = None,
    kind: str = Correction.Kind.CORRECT,
) -> Corrected | Replay[Corrected]:
    """Amend, insert or remove any events of any rounds as one correction (R37).

    An organiser changes any event of any round; a phone (table token) only amends,
    as ``PUT …/events/{position}/`` lets it (``check_amend``: one rule for both paths).
    A declared hand is amended as ``check_amend`` says, and inserted only for a
    computer seat (R39: the organiser enters its hand), else ``seat_not_allowed``.
    Returns the stored correction (``Corrected``); a correction
    that changes nothing stores nothing (its ``correction`` is ``None``); the stored
    answer when ``idempotency``'s key was seen (``Replay``). Raises the first
    ``RefereeError`` of the corrected game's replay (logged as refused; nothing
    changes), ``event_not_amendable`` (409) for a position that is not a live event,
    ``organiser_only`` (403) for a phone's insertion or removal,
    ``game_closed``, ``version_mismatch`` / ``precondition_failed`` and
    ``idempotency_key_reused``.
    """
    if not actor.is_organiser and any(change.op != "amend" for change in changes):
        raise OrganiserOnly()

    def edit(game: Game, slots: list[_Slot]) -> list[_Slot]:
        for change in changes:
            if change.op == "amend":
                check_amend(game, actor, slots, change.position, change.payload or {})
        return _apply_changes(slots, changes, hand_seats=_computer_seats(game))

    return _correct(
        game_id=game_id,
        edit=edit,
        actor=actor,
        reason=reason,
        precondition=precondition,
        idempotency=idempotency,
        kind=kind,
        rounds_from=_first_round_of(changes) if actor.is_organiser else None,
        bounded=actor.is_organiser,  # when it changes adjustments only (R36, ``_correct``)
    )


def event_amend_any(
    *,
    game_id: Any,
    position: int,
    payload: dict[str, Any],
    actor: Actor,
    reason: str = "",
    precondition: Precondition | None = None,
    idempotency: Idempotency | None = None,
) -> Corrected | Replay[Corrected]:
    """Amend one event (``PUT …/events/{position}/``), as ``events_correct`` judges a
    batch of that one amendment (``check_amend``). Raises as ``events_correct``."""

    def edit(game: Game, slots: list[_Slot]) -> list[_Slot]:
        check_amend(game, actor, slots, position, payload)
        return _apply_changes(slots, [Change("amend", position, payload=payload)])

    return _correct(
        game_id=game_id,
        edit=edit,
        actor=actor,
        reason=reason,
        precondition=precondition,
        idempotency=idempotency,
        kind=Correction.Kind.AMEND,
        rounds_from=(
            _first_round_of([Change("amend", position, payload=payload)])
            if actor.is_organiser
            else None
        ),
    )


def check_amend(
    game: Game, actor: Actor, slots: list[_Slot], position: int | None, payload: dict[str, Any]
) -> None:
    """Who may amend the live event at ``position`` into ``payload`` — the one rule of
    both correction paths (``PUT …/events/{position}/`` and ``POST …/corrections/``).

    An organiser amends any event of any round (R37), a declared hand included: a
    person's through this logged correction, never reading it before the round is over
    (R31), a computer seat's as the one who entered it (R39). A phone amends only an
    event of the current round, for its own seat, never a ruling, and a declared hand only
    if it declared it (R31). Raises ``event_not_amendable`` (409), ``organiser_only``
    and ``seat_not_allowed`` (403), ``probe_limited`` (R31, issue 12).
    """
    target = next(
        (s for s in slots if s.origin is not None and s.origin.position == position), None
    )
    if target is None:
        raise EventNotAmendable()
    assert target.origin is not None
    organiser = actor.is_organiser
    if not organiser and target.round != slots[-1].round:
        raise EventNotAmendable()
    if target.kind in folding.RULING_KINDS and not organiser:
        raise OrganiserOnly()
    if target.kind == Event.Kind.HAND and not probes.may_correct_hand(actor, target.origin):
        raise SeatNotAllowed(guard.hand_change_detail())  # R31: only the phone that declared it
    actor.check_seat(target.payload.get("seat"))
    actor.check_seat(payload.get("seat"))
    probes.check_probe_limit(actor)  # a phone probing declared hands by amending (R31)


def _computer_seats(game: Game) -> frozenset[int]:
    """The game's computer seats (R39), from the game row: their hands are the organiser's."""
    return frozenset(int(seat) for seat in state_of(game).computer_seats)


def round_void(
    *,
    game_id: Any,
    round: int,
    reason: str,
    actor: Actor,
    precondition: Precondition | None = None,
    idempotency: Idempotency | None = None,
) -> Corrected | Replay[Corrected]:
    """Void round ``round`` with the organiser's reason (R35): its events are kept as
    entered but not judged, it moves no stone, and the next round is led as it
    should have been. The later rounds are judged again (R37)."""
    guard.check_organiser(actor)
    return _correct(
        game_id=game_id,
        edit=lambda game, slots: _apply_changes(
            slots,
            [Change("insert", None, "void", {"round": round, "reason": reason}, round)],
        ),
        actor=actor,
        reason=reason,
        precondition=precondition,
        idempotency=idempotency,
        kind=Correction.Kind.VOID,
        rounds_from=round,
    )


def round_adjust(
    *,
    game_id: Any,
    round: int,
    source: Any,
    to: Any,
    stones: Any,
    reason: str,
    actor: Actor,
    precondition: Precondition | None = None,
    idempotency: Idempotency | None = None,
) -> Corrected | Replay[Corrected]:
    """Move ``stones`` from ``source`` to ``to`` (``"table"`` or a seat 0–4) after round
    ``round``'s awards, with the organiser's reason (R36). Raises ``ruling_invalid``
    (R36) for a giver holding fewer, from = to, a round in play or waiting for reveals."""
    guard.check_organiser(actor)
    payload = {"round": round, "from": source, "to": to, "stones": stones, "reason": reason}
    return _correct(
        game_id=game_id,
        edit=lambda game, slots: _apply_changes(
            slots, [Change("insert", None, "adjustment", payload, round)]
        ),
        actor=actor,
        reason=reason,
        precondition=precondition,
        idempotency=idempotency,
        kind=Correction.Kind.ADJUST,
        rounds_from=round,
        bounded=True,
    )


def seat_substitute(
    *,
    game_id: Any,
    seat: int,
    round: int | None,
    name: str | None = None,
    player: Any = None,
    allow_elsewhere: bool = False,
    actor: Actor,
    reason: str = "",
    precondition: Precondition | None = None,
    idempotency: Idempotency | None = None,
) -> Corrected | Replay[Corrected]:
    """From round ``round`` on (default: the round in play, else the next), seat ``seat``
    is sat by ``name`` or by the club's ``player`` (R38): only the name changes.

    Raises ``record_invalid`` (R38), the league's ``player_not_in_club`` /
    ``player_merged``, and ``player_seated_elsewhere`` (409) for a club player
    in another open game unless ``allow_elsewhere``.
    """
    guard.check_organiser(actor)

    def edit(game: Game, slots: list[_Slot]) -> list[_Slot]:
        entry_name, player_id = _seat_entry(game, name, player, allow_elsewhere)
        number = round
        if number is None:
            number = _current_round_number(_fold_last_round(game, slots))
        payload = {"round": number, "seat": seat, "name": entry_name, "player": player_id}
        kept = [
            s
            for s in slots
            if not (
                s.kind == "substitute"
                and s.payload.get("round") == number
                and s.payload.get("seat") == seat
            )
        ]
        return _apply_changes(kept, [Change("insert", None, "substitute", payload, number)])

    return _correct(
        game_id=game_id,
        edit=edit,
        actor=actor,
        reason=reason,
        precondition=precondition,
        idempotency=idempotency,
        kind=Correction.Kind.SUBSTITUTE,
    )


@transaction.atomic
def seat_rename(
    *,
    game_id: Any,
    seat: int,
    name: str | None = None,
    player: Any = None,
    allow_elsewhere: bool = False,
    actor: Actor,
    reason: str = "",
) -> Corrected:
    """Re-seat: who sat seat ``seat`` from the game's start is ``name`` or the club's
    ``player`` (R38), e.g. a misspelt guest or a guest identified later. Everything
    that shows the name follows; the league credits the seat's rounds to them
    (those before any substitute). Audited as a ``seat`` correction."""
    guard.check_organiser(actor)
    game = guard.lock(game_id, actor)
    guard.check_open(game, None, actor)
    row = Seat.objects.get(game=game, number=check_seat(seat))
    entry_name, player_id = _seat_entry(game, name, player, allow_elsewhere, seat=row.number)
    previous = league().seat_players(game=game).get(row.number)  # the league keeps it
    if row.name == entry_name and previous == player_id:
        return Corrected(game, None, game_state_for(game, organiser=True))
    change = {
        "op": "seat",
        "seat": seat,
        "previous": {"name": row.name, "player": previous},
        "name": entry_name,
        "player": player_id,
    }
    correction = Correction.objects.create(
        game=game,
        kind=Correction.Kind.SEAT,
        entered_by=actor.label,
        reason=reason,
        changes=[change],
    )
    row.name = entry_name
    row.save(update_fields=["name"])
    store.commit(game)
    if previous != player_id:
        signals.seat_reseated.send(Game, game=game, seat=row, player=player_id)
    signals.rounds_changed.send(Game, game=game, engine=None, played_at=None)
    return Corrected(game, correction, game_state_for(game, organiser=True))


def game_replace(*, game_id: Any, record: Any, actor: Actor, reason: str = "") -> Corrected:
    """Replace a stored game's events by a corrected record of it (R37), audited.

    The record's events are matched with the stored ones: those unchanged keep
    their time and author, the rest are amended, inserted or removed; its
    players must be the game's seats. Raises the record's first
    ``RefereeError`` (nothing changes), ``organiser_only``.
    """
    guard.check_organiser(actor)
    parsed = Record.parse(record)

    def edit(game: Game, slots: list[_Slot]) -> list[_Slot]:
        if list(parsed.players) != game.players:
            raise RecordInvalid(
                gettext_noop("a corrected record keeps the game's players (re-seat them first)"),
                rule="R38",
            )
        if parsed.rules.to_dict() != rules_of(game).to_dict():
            raise RecordInvalid(gettext_noop("a game's rule set never changes"), rule="R40")
        folding.check_storable(record)
        replay(parsed)
        # A substitute the record repeats keeps its club player (R38): the record has names.
        wanted = games.substitute_players(game, folding.record_entries(parsed.rounds), slots)
        return _match(slots, wanted)

    corrected = _correct(
        game_id=game_id,
        edit=edit,
        actor=actor,
        reason=reason,
        precondition=None,
        idempotency=None,
        kind=Correction.Kind.REPLACE,
    )
    assert isinstance(corrected, Corrected)  # no key: never a replay
    return corrected


# -- the correction itself -----------------------------------------------------------------


def _correct(
    *,
    game_id: Any,
    edit: Callable[[Game, list[_Slot]], list[_Slot]],
    actor: Actor,
    reason: str,
    precondition: Precondition | None,
    idempotency: Idempotency | None,
    kind: str,
    rounds_from: Any = None,
    bounded: bool = False,
) -> Corrected | Replay[Corrected]:
    """Lock the game, ``edit`` its live events, judge the result as a replay and store it.

    ``rounds_from``: the first round ``edit`` may change (a ruling on round k: R35, R36),
    if known. The live events of the rounds from it on are then the only ones read and
    edited (``_tail``), so that a ruling on the last round reads that round, not the game
    (issue 29).

    ``bounded``: ``edit`` may change adjustments only (R36; else, or when it fails on the
    window, the game is judged as without ``bounded``). The rounds from
    ``rounds_from`` are then first judged a window at a time (``_window``), and when one of
    them elects the CAMAT its stored row elected with the standing stored after it
    (``_back_at``), every later round is judged as stored (R27: a round is judged from the
    standing before it): only the rounds to that one are written. Else, and for a refusal,
    the game is judged again as without ``bounded``."""
    refused: RefereeError | None = None

    def unbounded(rounds_from: Any = rounds_from) -> Corrected | Replay[Corrected]:
        return _correct(
            game_id=game_id,
            edit=edit,
            actor=actor,
            reason=reason,
            precondition=precondition,
            idempotency=idempotency,
            kind=kind,
            rounds_from=rounds_from,
        )

    with transaction.atomic():
        game = guard.lock(game_id, actor)
        if (replayed := replay_of(game, idempotency)) is not None:
            return replayed
        guard.check_open(game, precondition, actor)
        window = _window(game, rounds_from) if bounded else None
        if window is not None:
            live, since = window.live, window.since
        else:
            live, since = _tail(game, rounds_from)
        # What every phone is told of an organiser's correction (issue 28): the stones now.
        stones_before = _stones_now(game) if actor.is_organiser else None
        kept_snapshot = state_of(game).snapshot
        before = [_Slot(e.kind, e.payload, e.round_number, e) for e in live]
        try:
            after = edit(game, list(before))
        except (RefereeError, ServiceError):
            if window is not None:
                return unbounded()  # a position outside the window, say: as a whole read says
            raise
        moved = _adjustments_moved(before, after) if window is not None else None
        if window is not None and not moved:
            return unbounded()  # a play, a hand, another ruling changed: or nothing at all
        if _same(before, after):
            state = game_state_for(
                game, viewer=actor.seat, viewer_label=actor.label, organiser=actor.is_organiser
            )
            corrected = Corrected(game, None, state)
            remember(game, idempotency, corrected)
            return corrected
        start = _start(game, before, after)
        if since > 1 and (start is None or int(start["round"]) < since):
            # The change leaves the rounds read with no event (the round in play's only
            # move removed): judging starts before them, so the game is read whole.
            return unbounded(rounds_from=None)
        try:
            engine = _judge(game, after, start)
        except RefereeError as error:
            if window is not None:
                return unbounded()  # refused as a judge of the whole game refuses it
            refused = error.with_names(game.players)
            changes = _audit(before, after)
            single = changes[0] if len(changes) == 1 and "payload" in changes[0] else None
            # One event changed: the refused event itself; else the whole correction.
            logged_kind = changes[0]["kind"] if changes else Event.Kind.MOVE
            logged = single["payload"] if single else {"correction": kind, "changes": changes}
            seats = probes.declared_seats(live, besides=actor.seat)
            if (
                seats
                and actor.token is not None  # the organiser's repairs never count (R31)
                and not probes.is_repeat(game, logged_kind, logged, actor, error.code)
                and _depends_on_hands(game, after, actor.seat, error, start)
            ):
                probes.count_probe(
                    game, actor, TableAlert.Kind.REFUSALS, seats, round_number=error.round
                )
            guard.refusal_log(game, logged_kind, logged, error, actor)
        until = None
        if refused is None and window is not None:
            until = _back_at(game, window, engine)
            if (
                until is None
                or max(moved or (until + 1,)) > until
                or not _moves_none(before, after, tail=since > 1)
            ):
                return unbounded()
        if refused is None:
            after = _placed(engine, after)
            now = timezone.now()
            correction, next_position = _store(
                game, before, after, actor, reason, kind, now, tail=since > 1, until=until
            )
            verification.verifications_refresh(  # resolves or resets
                game=game, actor=actor, engine=engine, since=engine.rounds_before + 1
            )
            substitutes = _substitutes_before(game, since) + substitutes_of(after)
            now_engine = engine
            if window is not None:  # the rounds after the window are as they were
                snapshot = kept_snapshot
                substitutes += _substitutes_after(game, window.last)
                now_engine = store.current_round(game).fold(rules_of(game))[0]
            else:
                snapshot = folding.advance_snapshot(
                    engine, start or folding.initial_snapshot(engine.rules)
                )
            store.commit_refold(
                game,
                snapshot=snapshot,
                substitutes=substitutes,
                verification=verification.shown(game, snapshot),
                next_position=next_position,
                notice=_notice(correction, now_engine, stones_before)
                if stones_before is not None
                else None,
            )
            signals.rounds_changed.send(
                Game,
                game=game,
                engine=engine,
                played_at=None,
                settled_at=_settled_at(after, now),
                snapshot=start,  # the engine resumed there: rounds from its round on
                until=until,
            )
            state = game_state_for(
                game, viewer=actor.seat, viewer_label=actor.label, organiser=actor.is_organiser
            )
            corrected = Corrected(game, correction, state)
            remember(game, idempotency, corrected)
    if refused is not None:
        try:
            raise refused
        finally:
            refused = None  # as in ``services.event_submit``: no cycle through this frame
    for number in sorted({s.round for s in after if s.kind == Event.Kind.HAND and s.changed}):
        probes.note_shared_hand(game.pk, number)  # a hand amended into another's (R31)
    return corrected


def _depends_on_hands(
    game: Game,
    after: list[_Slot],
    seat: int | None,
    error: RefereeError,
    start: dict[str, Any] | None = None,
) -> bool:
    """Whether the refusal ``error`` of the corrected events ``after`` depended on another
    seat's declared hand (R31): judged without those hands, they are accepted or refused
    otherwise (``probes.depends_on_hands`` for one event)."""
    kept = probes.without_others_hands(after, seat)
    if len(kept) == len(after):
        return False
    try:
        _judge(game, kept, start)
    except RefereeError as other:
        return not probes.same_refusal(error, other)
    return True


def _apply_changes(
    slots: list[_Slot], changes: Sequence[Change], *, hand_seats: frozenset[int] = frozenset()
) -> list[_Slot]:
    """Apply ``changes`` in order to the game's events; positions are the live ones before.

    Inserting a declared hand is ``seat_not_allowed`` but for a seat of ``hand_seats``
    (the computer seats, whose hands the organiser enters, R39): only a seat's own
    phone declares a person's hand (R31). Who may amend an event is ``check_amend``'s.
    """
    result = list(slots)

    def index_of(position: int | None) -> int:
        for index, slot in enumerate(result):
            if slot.origin is not None and slot.origin.position == position:
                return index
        raise EventNotAmendable()

    for change in changes:
        folding.check_storable(change.payload)
        if change.op == "amend":
            index = index_of(change.position)
            payload = _amended(dict(change.payload or {}))
            if payload != _shown(result[index].payload):  # the same event as entered: kept
                result[index] = replace(result[index], payload=payload)
        elif change.op == "remove":
            del result[index_of(change.position)]
        elif change.op == "insert":
            if change.kind not in EVENT_KINDS:
                raise RecordInvalid(gettext_noop("unknown event kind %(kind)s"), kind=change.kind)
            if change.kind == Event.Kind.HAND and (change.payload or {}).get("seat") not in (
                hand_seats
            ):
                raise SeatNotAllowed(guard.hand_detail())
            at = len(result) if change.position is None else index_of(change.position)
            payload = _amended(dict(change.payload or {}))
            number = folding.ruling_round(change.kind, payload) or change.round
            if number is None:
                neighbour = result[at] if at < len(result) else (result[-1] if result else None)
                number = neighbour.round if neighbour is not None else 1
            last = max((slot.round for slot in result), default=0)
            if (
                number < 1 or number > last + 1
            ):  # a round is begun by its first event, one after another
                raise RecordInvalid(
                    gettext_noop("round %(number)s has not begun: the next is %(next)s"),
                    number=number,
                    next=last + 1,
                ).at(round=last + 1)
            result.insert(at, _Slot(change.kind, payload, number))
        else:
            raise RecordInvalid(gettext_noop("unknown correction %(op)s"), op=change.op)
    return _canonical(result)


def _amended(payload: dict[str, Any]) -> dict[str, Any]:
    """An amended or inserted event's payload as the organiser gives it: a play's side of
    the chain is never taken from outside — the replay places it by its ``on`` or as R11
    infers, and ``_placed`` stores the side. (Its old side is not kept: two entries
    swapped between turns put each tile where the other's event said.)"""
    payload.pop("side", None)
    return payload


def _placed(engine: EngineGame, slots: list[_Slot]) -> list[_Slot]:
    """``slots`` judged into ``engine``, each new or amended play carrying the side of the
    chain the replay placed it on (``folding.with_sides``, R11); kept events as stored."""
    changed = {s.round for s in slots if s.changed and s.kind == Event.Kind.MOVE}
    if not changed:  # a ruling, a hand or a reveal: no play to place
        return slots
    entries = folding.with_sides(
        engine, [folding.Entry(s.kind, s.payload, s.round) for s in slots], rounds=changed
    )
    return [
        replace(slot, payload=entry.payload) if slot.changed else slot
        for slot, entry in zip(slots, entries, strict=True)
    ]


def _canonical(slots: list[_Slot]) -> list[_Slot]:
    """The events in the order a replay takes them: by round, then R34's order within it."""
    return sorted(slots, key=lambda s: (s.round, _RANK.get(s.kind, 1)))


def _match(slots: list[_Slot], wanted: list[folding.Entry]) -> list[_Slot]:
    """The wanted events, each kept as the stored event it repeats where one does (so it
    keeps its first entry's time and author), amended where only its payload changed."""
    import difflib

    def key(kind: str, payload: Any, number: int) -> str:
        return json.dumps([kind, payload, number], sort_keys=True)

    def unplaced(payload: dict[str, Any]) -> dict[str, Any]:  # a record gives no side (R11)
        return {k: v for k, v in payload.items() if k != "side"}

    old = [key(s.kind, unplaced(s.payload), s.round) for s in slots]
    new = [key(e.kind, e.payload, e.round) for e in wanted]
    result: list[_Slot] = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            result.extend(slots[a0:a1])
            continue
        olds = slots[a0:a1] if op == "replace" else []
        for offset, entry in enumerate(wanted[b0:b1]):
            origin = olds[offset] if offset < len(olds) else None
            if origin is not None and (origin.kind, origin.round) != (entry.kind, entry.round):
                origin = None
            payload = _amended(dict(entry.payload))
            result.append(
                _Slot(entry.kind, payload, entry.round, origin.origin if origin else None)
            )
    return _canonical(result)


def _same(before: list[_Slot], after: list[_Slot]) -> bool:
    return len(before) == len(after) and all(
        a.origin is b.origin and a.payload == b.payload and a.round == b.round
        for a, b in zip(before, after, strict=True)
    )


def _judge(game: Game, slots: list[_Slot], snapshot: dict[str, Any] | None = None) -> EngineGame:
    """Judge the corrected game as the replay of its record (R37); the replay's ``Game`` is
    then cached and gives the league's rows.

    A replay takes a round's declared hands, then its moves, then its reveals seat by
    seat (R34). Where the table entered them in another order (a hand declared after
    some moves), the events are also folded in their own order, which must put each in
    the round it belongs to (R30): else ``round_over``. Raises the first ``RefereeError``.

    ``snapshot`` (``_start``): where the judging starts, the stored standing before round
    ``snapshot["round"]`` (issue 29): only the slots of that round on are judged, and the
    engine holds only those rounds (``rounds_before`` the rest). ``None``: from the start.
    """
    rules = rules_of(game)
    first = 1 if snapshot is None else int(snapshot["round"])
    slots = [s for s in slots if s.round >= first]
    entries = [folding.Entry(s.kind, s.payload, s.round - first + 1) for s in slots]
    record = folding.entries_record(game.players, rules, entries)
    # A table's declared hands may share a tile (R31): a correction judges them as the
    # live fold does, so that it answers no question about other hands either.
    start = folding.resume(rules, snapshot) if snapshot is not None else None
    engine = replay(Record.parse(record), stored=True, shared_hands=True, start=start)
    if not _in_record_order(entries, folding.record_entries(record["rounds"])):
        _, effects = _fold_slots(game, slots, snapshot)
        for slot, effect in zip(slots, effects, strict=True):
            if effect.round != slot.round:
                raise RoundOver(gettext_noop("the round is over: no event can follow its end")).at(
                    round=slot.round
                )
    return engine


def _in_record_order(entries: list[folding.Entry], replayed: list[folding.Entry]) -> bool:
    """Whether ``entries`` come in the order a replay of their record takes them (then a
    fold of them is that replay): the same events, rulings compared by kind and round."""
    if len(entries) != len(replayed):
        return False
    for entry, other in zip(entries, replayed, strict=True):
        if (entry.kind, entry.round) != (other.kind, other.round):
            return False
        if entry.kind not in folding.RULING_KINDS and entry.payload != other.payload:
            return False
    return True


def _fold_slots(
    game: Game, slots: list[_Slot], snapshot: dict[str, Any] | None = None
) -> tuple[EngineGame, list[folding.Effects]]:
    return folding.fold(rules_of(game), [(s.kind, s.payload) for s in slots], snapshot=snapshot)


def _first_round_of(changes: Sequence[Change]) -> Callable[[Game], int | None]:
    """The first round that ``changes`` may touch, found under the game's lock: the rounds
    of the live events at their positions (one query), the rounds that insertions and
    amended rulings name. ``None`` (read the whole game) when an insertion names no round
    and precedes no event, or a position is no live event (the whole game's read then
    says so: ``event_not_amendable``)."""

    def first(game: Game) -> int | None:
        numbers: list[int] = []
        for change in changes:
            payload = change.payload or {}
            named = payload.get("round") if change.op != "insert" else None
            if change.op == "insert":
                named = folding.ruling_round(change.kind or "", payload) or change.round
                if named is None and change.position is None:
                    return None
            if named is not None:
                if type(named) is not int:
                    return None
                numbers.append(named)
        positions = {c.position for c in changes if c.position is not None}
        if positions:
            found = dict(
                Event.objects.filter(
                    game=game, revoked_by__isnull=True, position__in=positions
                ).values_list("position", "round_number")
            )
            if set(found) != positions:
                return None
            numbers.extend(found.values())
        return min(numbers) if numbers else None

    return first


def _tail(game: Game, rounds_from: Any) -> tuple[list[Event], int]:
    """The live events a correction reads, and the first round among them: those of the
    rounds from ``rounds_from`` on when round ``rounds_from - 1`` has a stored row (its
    standing is where the judging resumes, ``settled.snapshot_before``) and some event is
    of those rounds; else every live event, from round 1. Built without the ORM's
    iterator (issue 29). ``rounds_from`` may be a function of the locked game."""
    if callable(rounds_from):
        rounds_from = rounds_from(game)
    if type(rounds_from) is int and rounds_from > 1:
        if settled.snapshot_before(game, rounds_from) is not None:
            live = store.live_events(game, since_round=rounds_from)
            if live:
                return live, rounds_from
    return store.live_events(game), 1


# How many rounds from a ruling's round a bounded judge reads (``_window``, issue 29): an
# adjustment's standing came back within 19 rounds in the games measured (bench/ANALYSIS.md).
WINDOW_ROUNDS = 32


@dataclass(frozen=True)
class _Window:
    """The rounds ``since`` to ``last`` of a game: their live events and stored results."""

    live: list[Event]
    since: int
    last: int
    stored: dict[int, Any]


def _window(game: Game, rounds_from: Any) -> _Window | None:
    """The window a ruling on round ``rounds_from`` is first judged on (``_correct``'s
    ``bounded``): its round and up to ``WINDOW_ROUNDS`` - 1 after it, all closed (before
    the last round begun), each with its stored row, and round ``rounds_from`` - 1's row
    too (where the judging resumes). ``None`` when there is no such window."""
    if callable(rounds_from):
        rounds_from = rounds_from(game)
    if type(rounds_from) is not int or rounds_from < 1:
        return None
    last = min(rounds_from + WINDOW_ROUNDS - 1, int(state_of(game).snapshot["round"]) - 1)
    if last < rounds_from:
        return None
    if rounds_from > 1 and settled.snapshot_before(game, rounds_from) is None:
        return None
    rows = SettledRound.objects.filter(game=game, number__gte=rounds_from, number__lte=last)
    stored = dict(rows.values_list("number", "result"))
    if len(stored) != last - rounds_from + 1:
        return None
    live = store.live_events(game, since_round=rounds_from, until_round=last)
    if not live:
        return None
    return _Window(live, rounds_from, last, stored)


def _back_at(game: Game, window: _Window, engine: EngineGame) -> int | None:
    """The first round of ``window`` whose judging (``engine``) elected the CAMAT its stored
    row elected, with the standing stored after it (R24, R25), when every round of the
    window after it is judged as stored and no verification after it needs its outcome
    (``verification.verifications_refresh``). From that round on the game is as stored:
    each round is judged from the standing before it (R27), and its events are the same
    (a ruling changes no play). ``None`` when there is none (then judge the whole game)."""
    judged = {entry["number"]: entry for entry in result_of(engine)["rounds"]}
    if set(judged) != set(window.stored):
        return None
    back = next(
        (
            number
            for number in sorted(judged)
            if window.stored[number]["camat_elected"] is not None
            and judged[number]["camat_elected"] == window.stored[number]["camat_elected"]
            and judged[number]["after"] == window.stored[number]["after"]
        ),
        None,
    )
    if back is None:
        return None
    if any(judged[number] != window.stored[number] for number in judged if number > back):
        return None
    if game.verifications.filter(round_number__gt=back).exists():
        return None
    return back


def _adjustments_moved(before: list[_Slot], after: list[_Slot]) -> tuple[int, ...]:
    """The rounds of the adjustments (R36) that ``after`` inserts, removes or changes
    against ``before``; empty when ``after`` changes anything else, or nothing."""
    kept = {id(s.origin) for s in after if s.origin is not None and not s.changed}
    gone = [s for s in before if s.origin is not None and id(s.origin) not in kept]
    came = [s for s in after if s.changed]
    touched = gone + came
    if not touched or any(s.kind != Event.Kind.ADJUSTMENT for s in touched):
        return ()
    return tuple(sorted({s.round for s in touched}))


def _substitutes_after(game: Game, last: int) -> list[list[Any]]:
    """``substitutes_of`` the live substitute events of the rounds after ``last`` (R38)."""
    rows = (
        Event.objects.filter(
            game=game, kind=Event.Kind.SUBSTITUTE, revoked_by__isnull=True, round_number__gt=last
        )
        .order_by("position")
        .values_list("payload", flat=True)
    )
    return substitutes_of([_Slot(Event.Kind.SUBSTITUTE, payload, 0) for payload in rows])


def _substitutes_before(game: Game, since: int) -> list[list[Any]]:
    """``substitutes_of`` the live substitute events of the rounds before ``since`` (those
    a correction read from round ``since`` on did not read, R38). No query for round 1."""
    if since <= 1:
        return []
    rows = (
        Event.objects.filter(
            game=game, kind=Event.Kind.SUBSTITUTE, revoked_by__isnull=True, round_number__lt=since
        )
        .order_by("position")
        .values_list("payload", flat=True)
    )
    return substitutes_of([_Slot(Event.Kind.SUBSTITUTE, payload, 0) for payload in rows])


def _fold_last_round(game: Game, slots: list[_Slot]) -> EngineGame:
    """The fold of the last round of ``slots`` (the game's live events), resumed at the
    standing stored before it (``settled.snapshot_before``, issue 29), else of them all:
    enough to tell the round in play (``_current_round_number``)."""
    last = max((s.round for s in slots), default=1)
    snapshot = settled.snapshot_before(game, last)
    if snapshot is None:
        return _fold_slots(game, slots)[0]
    return _fold_slots(game, [s for s in slots if s.round >= last], snapshot)[0]


def _first_changed(before: list[_Slot], after: list[_Slot]) -> int:
    """The first round whose events differ between ``before`` and ``after`` (both in a
    replay's order, ``_canonical``): the rounds before it are the same events. 1 when
    ``before`` is not in that order (then nothing is assumed)."""
    rounds = [s.round for s in before]
    if rounds != sorted(rounds):
        return 1
    for old, new in zip(before, after, strict=False):
        if old.origin is not new.origin or old.payload != new.payload or old.round != new.round:
            return min(old.round, new.round)
    rest = before[len(after) :] or after[len(before) :]
    return rest[0].round if rest else max(rounds, default=1)


def _start(game: Game, before: list[_Slot], after: list[_Slot]) -> dict[str, Any] | None:
    """Where a correction's judging starts (issue 29): the snapshot before the first round
    it changes, k (``_first_changed``), read from round k - 1's stored result
    (``settled.snapshot_before``), so that a change of round k replays the rounds from k
    on only. ``None`` (judge from the start) for round 1, or when round k - 1 has no
    stored row. A change that leaves round k with no event starts at the last round that
    has one (the game's snapshot is always the start of its last round)."""
    number = _first_changed(before, after)
    number = min(number, max((s.round for s in after), default=1))
    return settled.snapshot_before(game, number)


# The organiser's corrections every phone is told of (issue 28), in the table's words.
_NOTICE_KINDS = {
    Correction.Kind.AMEND: "corrected",
    Correction.Kind.CORRECT: "corrected",
    Correction.Kind.REPLACE: "corrected",
    Correction.Kind.VOID: "voided",
    Correction.Kind.ADJUST: "adjusted",
}


def _stones_now(game: Game) -> tuple[int, ...]:
    """Each seat's stones as the table holds them now (seats 0–4): the current round
    folded from the row's snapshot, as the phones see it."""
    engine, _ = store.current_round(game).fold(rules_of(game))
    return tuple(engine.standing().stones)


def _notice(
    correction: Correction, engine: EngineGame, before: tuple[int, ...]
) -> store.CorrectionNotice | None:
    """What every phone is told of ``correction`` (R35–R37): the first round it changed and
    each seat's stones before and after it, until the next round begins; ``None`` for a
    correction that is not the organiser's ruling on a round (a substitute, a re-seating:
    only a name changes, R38)."""
    kind = _NOTICE_KINDS.get(Correction.Kind(correction.kind))
    rounds = [c["round"] for c in correction.changes if isinstance(c.get("round"), int)]
    if kind is None or not rounds:
        return None
    current = engine.current
    return store.CorrectionNotice(
        correction=correction.pk,
        kind=kind,
        round=min(rounds),
        before=before,
        after=tuple(engine.standing().stones),
        until=store.CorrectionNotice.ends_at(
            _current_round_number(engine), led=current is not None and bool(current.round.moves)
        ),
    )


def _current_round_number(engine: EngineGame) -> int:
    """The round in play, else (the last being settled or voided) the next one."""
    if not engine.rounds:
        return 1
    last = engine.rounds[-1]
    return last.round.number + 1 if last.is_closed() else last.round.number


def _store(
    game: Game,
    before: list[_Slot],
    after: list[_Slot],
    actor: Actor,
    reason: str,
    kind: str,
    now: Any,
    tail: bool = False,
    until: int | None = None,
) -> tuple[Correction, int]:
    """Write the corrected events (``store.replace_events``): revoke the replaced, add the
    new, renumber the rest. The correction, and the position after the last event."""
    correction = Correction.objects.create(
        game=game,
        kind=kind,
        entered_by=actor.label,
        reason=reason,
        changes=_audit(before, after),  # before any position moves: the positions it had
    )
    kept_ids = {s.origin.pk for s in after if s.origin is not None and not s.changed}
    revoked = [s.origin for s in before if s.origin is not None and s.origin.pk not in kept_ids]
    positions = _positions(before, after, tail)
    kept = sorted(
        (slot.origin.position, position, slot.origin)
        for slot, position in zip(after, positions, strict=True)
        if slot.origin is not None and not slot.changed
    )
    shifts = store.shift_runs([(old, new) for old, new, _ in kept])
    for _, position, moved in kept:
        moved.position = position
    session_id = state_of(game).session_id
    new_rows = []
    for slot, position in zip(after, positions, strict=True):
        if not slot.changed:
            continue
        origin = slot.origin
        new_rows.append(
            Event(
                game=game,
                position=position,
                kind=slot.kind,
                payload=slot.payload,
                round_number=slot.round,
                session_id=origin.session_id if origin else session_id,
                entered_by=origin.entered_by if origin else actor.label,
                created_at=origin.created_at if origin else now,
            )
        )
    created = store.replace_events(
        game, correction=correction, revoked=revoked, shifts=shifts, new=new_rows, until=until
    )
    if kind == Correction.Kind.AMEND and len(created) == 1:
        correction.replacement = created[0]
        correction.save(update_fields=["replacement"])
    return correction, max(p + 1 for p in positions) if positions else 0


def _positions(before: list[_Slot], after: list[_Slot], tail: bool) -> list[int]:
    """The final position of each slot of ``after``: increasing; an event kept or amended in
    order keeps its position. ``tail``: ``before`` was read from a later round on
    (``_tail``), after the earlier events."""
    positions: list[int] = []
    previous = -1
    if tail:
        previous = min((s.origin.position for s in before if s.origin is not None), default=0) - 1
    for slot in after:
        origin = slot.origin
        previous = (
            origin.position if origin is not None and origin.position > previous else previous + 1
        )
        positions.append(previous)
    return positions


def _moves_none(before: list[_Slot], after: list[_Slot], tail: bool) -> bool:
    """Whether storing ``after`` keeps every event of ``before`` kept where it is (the new
    ones in the room between rounds, ``store.ROUND_GAP``): then the events after a window
    read (``_window``) stay clear of it."""
    last = max((s.origin.position for s in before if s.origin is not None), default=-1)
    return all(
        position <= last and (slot.origin is None or slot.origin.position == position)
        for slot, position in zip(after, _positions(before, after, tail), strict=True)
    )


def _settled_at(slots: list[_Slot], now: Any) -> dict[int, Any]:
    """Round → when the event that settled it was first entered: its last move or reveal
    (rulings come after; a new event is entered ``now``). The league dates a round not
    stored yet by it (issue 13 item 5)."""
    found: dict[int, Any] = {}
    for slot in slots:
        if slot.kind in (Event.Kind.MOVE, Event.Kind.REVEAL):
            found[slot.round] = slot.origin.created_at if slot.origin is not None else now
    return found


def _shown(payload: dict[str, Any]) -> dict[str, Any]:
    """An event as the organiser entered it: without the stored side of a play (R11)."""
    return {k: v for k, v in payload.items() if k != "side"} if "side" in payload else payload


def _audit(before: list[_Slot], after: list[_Slot]) -> list[dict[str, Any]]:
    """What a correction did, event by event: amended, inserted, removed (R37). The
    payloads are as entered: a play's stored side (R11) is not part of them."""
    changes: list[dict[str, Any]] = []
    kept = {id(s.origin) for s in after if s.origin is not None}
    for slot in after:
        if not slot.changed:
            continue
        if slot.origin is None:
            changes.append(
                {
                    "op": "insert",
                    "round": slot.round,
                    "kind": slot.kind,
                    "payload": _shown(slot.payload),
                }
            )
        else:
            changes.append(
                {
                    "op": "amend",
                    "position": slot.origin.position,
                    "round": slot.round,
                    "kind": slot.kind,
                    "replaced": _shown(slot.origin.payload),
                    "payload": _shown(slot.payload),
                }
            )
    for slot in before:
        if slot.origin is not None and id(slot.origin) not in kept:
            changes.append(
                {
                    "op": "remove",
                    "position": slot.origin.position,
                    "round": slot.round,
                    "kind": slot.kind,
                    "replaced": _shown(slot.payload),
                }
            )
    return changes


def substitutes_of(slots: Sequence[Any]) -> list[list[Any]]:
    """``[[round, seat, name, player], …]`` of the live substitute events, in order (R38)."""
    return [
        [
            s.payload.get("round"),
            s.payload.get("seat"),
            s.payload.get("name"),
            s.payload.get("player"),
        ]
        for s in slots
        if s.kind == "substitute"
    ]


def _seat_entry(
    game: Game, name: str | None, player: Any, allow_elsewhere: bool, seat: int | None = None
) -> tuple[str, int | None]:
    """A seat's occupant as (name, player id): a guest's name, or a club player (R38),
    whom the league resolves (``referee.league``; with ``seat``, not in another seat)."""
    if player is None:
        if not isinstance(name, str) or not name.strip():
            raise RecordInvalid(gettext_noop("a seat is sat by a non-empty name"), rule="R38")
        return name.strip(), None
    return league().occupant(game=game, player=player, allow_elsewhere=allow_elsewhere, seat=seat)


def redacted(changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A declared hand's tiles are never shown in the trail (R31)."""
    result = []
    for change in changes:
        if change.get("kind") == Event.Kind.HAND:
            change = {
                **change,
                **{
                    k: {"seat": change[k].get("seat"), "tiles": None}
                    for k in ("payload", "replaced")
                    if isinstance(change.get(k), dict)
                },
            }
        result.append(change)
    return result
