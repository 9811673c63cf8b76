"""What the table enters: events (R7–R18, R31, R33), undos, sittings (R27).

``event_submit`` enters a move (a play or a pass), a declared hand or a reveal, judged by
the rules core (``referee.folding``) against the round so far; a move that settles no
round and falls in an open sitting is stored by one compare-and-set statement with no
lock (the fast path, ``referee.store.append_event``), anything else under the game's lock
(``guard.lock``). ``event_undo`` revokes the last live event; ``event_amend`` replaces one
(``referee.services.corrections``). ``session_start`` / ``session_end`` open and end a
sitting: stones, CAMAT and the next leader carry over (R27).

Each write checks the client's version (``guard.check_open``) and ``Idempotency-Key``
(``referee.idempotency``) under the lock and stores the event, the refused attempt, the
cached state and the idempotent answer in one transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from referee import folding, settled, signals, store
from referee.engine import Game as EngineGame
from referee.engine import RefereeError
from referee.engine.tiles import Tile
from referee.exceptions import (
    NothingToUndo,
    OrganiserOnly,
    ProbeLimited,
    SeatNotAllowed,
    SessionState,
)
from referee.idempotency import (
    Idempotency,
    Replay,
    outcome,
    remember,
    remember_refusal,
    replay_of,
    row_from_stored,
    row_to_stored,
    scope_of,
)
from referee.models import Correction, Event, Game, GameSession, TableAlert
from referee.selectors import game_state, game_state_for
from referee.services import corrections, guard, probes, verification
from referee.services.corrections import Corrected
from referee.services.guard import Actor, Precondition
from referee.store import rules_of, state_of

AFTER_EVENT_HOOKS: list[Callable[[Game, Actor], bool]] = []
"""Called once an event ``event_submit`` accepted is committed (not for an idempotent
replay) with the game row and who entered it; a hook that wrote to the game returns True.
``referee.services.computer`` registers the computer seats' turn here (R39): this module
never imports it."""


@outcome
@dataclass(frozen=True)
class Submitted:
    """An event ``event_submit`` accepted and stored.

    ``game``: the game row at its new version (``game.version``); ``event``: the stored
    ``Event`` (its position, round, payload and author); ``effect``: what it caused
    (``folding.Effects``: named outcomes, stones moved, whether it settled its round);
    ``state``: the game's state as the one who entered it sees it (the read model of
    ``referee.selectors.game_state``, e.g. their own declared hand, R31), after any
    computer move it led to (R39).
    """

    outcome_kind: ClassVar[str] = "submitted"

    game: Game
    event: Event
    effect: folding.Effects
    state: dict[str, Any]

    def to_stored(self) -> dict[str, Any]:
        """What a retried key gets again (``referee.idempotency``): the event's row, its
        effects and the state answered."""
        return {
            "event": row_to_stored(self.event),
            "effect": self.effect.to_dict(),
            "state": self.state,
        }

    @classmethod
    def from_stored(cls, game: Game, data: dict[str, Any]) -> Submitted:
        event = row_from_stored(Event, data["event"], game=game)
        return cls(game, event, folding.Effects(**data["effect"]), data["state"])


@outcome
@dataclass(frozen=True)
class Undone:
    """The game's last live event, revoked by ``event_undo``.

    ``game``: the game row at its new version; ``correction``: the stored ``undo``
    ``Correction`` (author, time, reason); ``undone``: the revoked ``Event`` (kept,
    never deleted); ``state``: the game's state, refolded, as the one who undid it sees it.
    """

    outcome_kind: ClassVar[str] = "undone"

    game: Game
    correction: Correction
    undone: Event
    state: dict[str, Any]

    def to_stored(self) -> dict[str, Any]:
        return {
            "correction": row_to_stored(self.correction),
            "undone": row_to_stored(self.undone),
            "state": self.state,
        }

    @classmethod
    def from_stored(cls, game: Game, data: dict[str, Any]) -> Undone:
        correction = row_from_stored(Correction, data["correction"], game=game)
        undone = row_from_stored(Event, data["undone"], game=game)
        return cls(game, correction, undone, data["state"])


@outcome
@dataclass(frozen=True)
class SessionChanged:
    """A sitting started or ended (R27): ``game`` at its new version and the ``session``."""

    outcome_kind: ClassVar[str] = "session"

    game: Game
    session: GameSession

    def to_stored(self) -> dict[str, Any]:
        return {"session": row_to_stored(self.session)}

    @classmethod
    def from_stored(cls, game: Game, data: dict[str, Any]) -> SessionChanged:
        return cls(game, row_from_stored(GameSession, data["session"], game=game))


# -- events ------------------------------------------------------------------------------


def event_submit(
    *,
    game_id: Any,
    kind: str,
    payload: dict[str, Any],
    actor: Actor,
    precondition: Precondition | None = None,
    idempotency: Idempotency | None = None,
    seen: Game | None = None,
) -> Submitted | Replay[Submitted]:
    """Enter one event — a move (R7–R17), a declared hand (R31) or a reveal (R18, R33).

    Returns what was stored and caused (``Submitted``), or the stored answer when
    ``idempotency``'s key was seen (``Replay``: nothing is written; a refusal by the rules
    is kept under its key too, so a retry gets it again without being judged, logged or
    counted as a probe again, R31). Raises the core's ``RefereeError`` (logged as a
    ``RefusedEvent``; nothing else changes),
    ``seat_not_allowed``, ``game_closed``, ``version_mismatch`` /
    ``precondition_failed`` and ``idempotency_key_reused``.

    ``seen``: the game's row as this request already read it (its table token's join,
    or the view's access check). An event that is accepted, ends no round and falls in
    an open sitting is then stored by one compare-and-set statement against that row's
    version (``_submit_at_version``), with no lock taken; anything else — a refusal, a
    stale version or precondition, a round's end, a replayed key — takes the locked path
    below, which decides it as if the fast path had not been tried.
    """
    if kind == "hand" and not actor.may_declare(payload.get("seat")):
        raise SeatNotAllowed(guard.hand_detail())
    actor.check_seat(payload.get("seat"))
    try:
        probes.check_probe_limit(actor)
    except ProbeLimited:
        if idempotency is None:
            raise
        # A retry of a key already answered gets that answer, even once the limit is
        # reached (R31): the locked path replays it before it checks the limit again.
        seen = None
    folded: _Folded | None = None
    if seen is not None:
        fast = _submit_at_version(seen, kind, payload, actor, precondition, idempotency)
        if isinstance(fast, Submitted):
            return _after_event(fast, actor)
        folded = fast
    refused: RefereeError | None = None
    again: Submitted | None = None
    with transaction.atomic():
        game = guard.lock(game_id, actor)
        if (replayed := replay_of(game, idempotency)) is not None:
            return replayed
        probes.check_probe_limit(actor)  # again, with the count read under the lock (R31)
        guard.check_open(game, precondition, actor)
        try:
            if folded is not None and folded.version == game.version:
                # The fast path judged this event at this very version: no second fold.
                current, engine, effects, effect = folded.as_tuple()
                payload = folding.placed(engine, kind, payload)  # the side it lies on (R11)
            else:
                current = store.current_round(game)
                engine, effects = current.fold(rules_of(game))
                effect = folding.apply_event(engine, kind, payload)
                payload = folding.placed(engine, kind, payload)  # the side it lies on (R11)
        except RefereeError as error:
            copy = _same_hand(current, kind, payload, actor)
            if copy is not None:  # a phone's copy of the hand it declared (R31): its answer
                again = _declared_again(game, actor, current, copy)
                remember(game, idempotency, again)
            else:
                refused = error.with_names(game.players)
                # A probe only if the answer depended on another seat's declared hand, and
                # not a copy of a refusal this phone already got (R31).
                seats = probes.declared_seats(current.events, besides=actor.seat)
                if (
                    seats
                    and actor.token is not None
                    and not probes.is_repeat(game, kind, payload, actor, error.code)
                    and probes.depends_on_hands(
                        rules_of(game), current, kind, payload, actor.seat, error
                    )
                ):
                    probes.count_probe(
                        game,
                        actor,
                        TableAlert.Kind.REFUSALS,
                        seats,
                        round_number=error.round or current.snapshot.get("round"),
                    )
                guard.refusal_log(game, kind, payload, error, actor)
                remember_refusal(game, idempotency, refused)  # a retry gets it, counted once
        if refused is None and again is None:
            session_id, session_number = _open_session(game)
            snapshot = folding.advance_snapshot(engine, current.snapshot)
            position = _next_position(game, current, effect.round)
            new = store.CachedEvent(position, kind, payload, effect.round, actor.label)
            # The round the next fold resumes at, for the version written now.
            cache = _next_round_cache(game.version + 1, snapshot, current, effects, new, effect)
            event = store.append_event(
                game,
                position=position,
                kind=kind,
                payload=payload,
                round_number=effect.round,
                session_id=session_id,
                entered_by=actor.label,
                state=store.replace(
                    state_of(game),
                    snapshot=snapshot,
                    next_position=position + 1,
                    session=session_number,
                    session_id=session_id,
                    sittings=session_number,  # the open sitting is the last one begun
                    current=cache,
                ),
            )
            assert event is not None  # under the lock, the write always applies
            if effect.settled:  # the league's stats of that round, in this transaction
                signals.round_settled.send(
                    Game,
                    game=game,
                    engine=engine,
                    snapshot=current.snapshot,
                    played_at=event.created_at,
                )
            submitted = _submitted(game, actor, cache, engine, effect, event)
            remember(game, idempotency, submitted)
    if again is not None:
        return _after_event(again, actor)
    if refused is not None:
        try:
            raise refused
        finally:
            # The error's traceback holds this frame: no local names the error, or the
            # two (and the request under them) would wait for the cyclic collector.
            refused = None
    return _after_event(submitted, actor)


def _same_hand(
    current: store.CurrentRound, kind: str, payload: dict[str, Any], actor: Actor
) -> Any | None:
    """The live hand of this round that ``payload`` (a ``hand``) repeats: the same seat and
    the same five tiles, however spelt or ordered, declared by this very phone (``actor``'s
    label) — a copy it sent again without an ``Idempotency-Key`` on bad Wi-Fi. ``None``
    for anything else, which stays refused (R31: a seat declares once a round)."""
    if kind != Event.Kind.HAND or actor.token is None:
        return None
    wanted = _tile_set(payload.get("tiles"))
    if wanted is None:
        return None
    for event in current.events:
        if (
            event.kind == Event.Kind.HAND
            and event.payload.get("seat") == payload.get("seat")
            and event.entered_by == actor.label
            and _tile_set(event.payload.get("tiles")) == wanted
        ):
            return event
    return None


def _tile_set(tiles: Any) -> frozenset[Tile] | None:
    if not isinstance(tiles, list) or len(tiles) > 5:
        return None
    try:
        return frozenset(Tile.parse(tile) for tile in tiles)
    except (RefereeError, TypeError, ValueError):
        return None


def _declared_again(game: Game, actor: Actor, current: store.CurrentRound, copy: Any) -> Submitted:
    """The answer to a copy of a declared hand: the hand as it was stored (its event and
    what it caused) and the state now; nothing is written, nothing is refused or counted."""
    _, effects = current.fold(rules_of(game))
    index = next(i for i, e in enumerate(current.events) if e.position == copy.position)
    event = game.events.get(position=copy.position, revoked_by__isnull=True)
    state = game_state_for(
        game, viewer=actor.seat, viewer_label=actor.label, organiser=actor.is_organiser
    )
    return Submitted(game, event, effects[index], state)


def _after_event(submitted: Submitted, actor: Actor) -> Submitted:
    """An accepted event, once committed: a declared hand sharing tiles with another's
    raises its round's alert (R31; the answer is the same either way), then the hooks'
    turn (e.g. a computer seat moves, R39), then the state as it stands after them."""
    game = submitted.game
    if submitted.event.kind == Event.Kind.HAND:
        probes.note_shared_hand(game.pk, submitted.event.round_number)
    if any([hook(game, actor) for hook in AFTER_EVENT_HOOKS]):  # e.g. a computer moved (R39)
        game.refresh_from_db()
        state = game_state_for(
            game, viewer=actor.seat, viewer_label=actor.label, organiser=actor.is_organiser
        )
        submitted = replace(submitted, state=state)
    return submitted


def _next_round_cache(
    version: int,
    snapshot: dict[str, Any],
    current: store.CurrentRound,
    effects: Sequence[folding.Effects],
    new: store.CachedEvent,
    effect: folding.Effects,
    cached: store.RoundCache | None = None,
) -> store.RoundCache:
    """The round cache for ``version``, the game's version once ``new`` is stored: the
    live events from ``snapshot``'s round on (the round the next fold resumes at), with
    their effects (``effects``: the fold's of ``current``'s events; ``effect``: ``new``'s).
    ``cached``: the row's cache that ``current`` was read from, if it was: grown by one
    (``RoundCache.appended``: its JSON extended, not written again event by event)."""
    if snapshot["round"] == current.snapshot["round"] and all(
        isinstance(e, store.CachedEvent) for e in current.events
    ):
        # The round goes on: its cache grows by one.
        events: tuple[store.CachedEvent, ...] = (*current.events, new)
        known: Sequence[folding.Effects] = (
            effects.appended(effect, new.round_number)
            if isinstance(effects, store.CachedEffects)
            else (*effects, effect)
        )
        if (
            cached is not None
            and cached.round == snapshot["round"]
            and len(cached.events) == len(current.events)
            and all(a is b for a, b in zip(cached.events, current.events, strict=True))
        ):
            return cached.appended(version, new, known)
    else:
        kept = [
            (store.CachedEvent.of(e), f)
            for e, f in zip([*current.events, new], [*effects, effect], strict=True)
            if e.round_number >= snapshot["round"]
        ]
        events = tuple(e for e, _ in kept)
        known = tuple(f for _, f in kept)
    return store.RoundCache(version, snapshot["round"], events, tuple(current.players), known)


def _submitted(
    game: Game,
    actor: Actor,
    cache: store.RoundCache,
    engine: EngineGame,
    effect: folding.Effects,
    event: Event,
) -> Submitted:
    """``event``, stored, with what it caused and the state as ``actor`` sees it now: the
    state a read of the game at its new version gives, from the round cache written with
    it (``cache``: once ``event`` began a round, the last round's events are no longer
    among its ``last_events``, QA)."""
    assert cache.effects is not None  # ``_next_round_cache`` keeps every effect
    state = game_state(
        game,
        engine,
        cache.events,
        cache.effects,
        viewer=actor.seat,
        viewer_label=actor.label,
        players=list(cache.players),
        organiser=actor.is_organiser,
    )
    return Submitted(game, event, effect, state)


@dataclass(frozen=True)
class _Folded:
    """An event the fast path judged accepted at ``version`` but left to the locked path
    (it settles a round or opens a sitting): the fold, reused if the version still holds."""

    version: int
    current: store.CurrentRound
    engine: EngineGame
    effects: Sequence[folding.Effects]
    effect: folding.Effects

    def as_tuple(
        self,
    ) -> tuple[store.CurrentRound, EngineGame, Sequence[folding.Effects], folding.Effects]:
        return self.current, self.engine, self.effects, self.effect


def _submit_at_version(
    game: Game,
    kind: str,
    payload: dict[str, Any],
    actor: Actor,
    precondition: Precondition | None,
    idempotency: Idempotency | None,
) -> Submitted | _Folded | None:
    """A move's fast path: fold, judge and store the event against ``game`` as read, with
    no lock — one compare-and-set statement (``store.append_event`` with
    ``expected_version``) that applies only if the game is still open at that version.

    Returns what was stored and caused (``Submitted``, the game at its new version). Otherwise
    the locked path decides, as if this had not been tried: with ``_Folded`` (its fold,
    to reuse at the same version) when the event is accepted but settles a round (the
    league writes its rows in the same transaction) or opens a sitting where the row does
    not know how many there were or the database cannot reserve its id (R27; on
    PostgreSQL a sitting's first move opens it in its one statement, a second before it
    to reserve the id); with
    ``None`` when the game is closed or the precondition does not admit its version (the
    locked path raises the error with the current state), the rules core refuses the
    event (the locked path logs the refusal, R31 probes included), or another write came
    first (the version moved, or the same ``Idempotency-Key`` was answered: the locked
    path replays it). Never raises a ``RefereeError``; writes nothing unless it returns
    ``Submitted``.
    """
    state = state_of(game)
    if game.status != Game.Status.OPEN or (
        precondition is not None and not precondition.admits(game.version)
    ):
        return None
    read_version = game.version
    current = store.current_round(game)
    try:
        engine, effects = current.fold(rules_of(game))
        effect = folding.apply_event(engine, kind, payload)
        payload = folding.placed(engine, kind, payload)  # the side it lies on (R11)
    except RefereeError:
        return None
    if effect.settled:
        return _Folded(read_version, current, engine, effects, effect)
    opens: store.Sitting | None = None
    session_id, session = state.session_id, state.session
    if session is None or session_id is None:
        # The sitting's first move opens it (R27), in the same statement when the row
        # knows how many sittings there were and the database reserves the new one's id.
        if state.sittings is None or (reserved := store.reserve_sitting_id()) is None:
            return _Folded(read_version, current, engine, effects, effect)
        opens = store.Sitting(reserved, state.sittings + 1, timezone.now())
        session_id, session = opens.id, opens.number
    snapshot = folding.advance_snapshot(engine, current.snapshot)
    position = _next_position(game, current, effect.round)
    new = store.CachedEvent(position, kind, payload, effect.round, actor.label)
    cache = _next_round_cache(
        read_version + 1, snapshot, current, effects, new, effect, state.current
    )
    answered: list[Submitted] = []

    def answer(event: Event) -> store.Answer | None:
        submitted = _submitted(game, actor, cache, engine, effect, event)
        answered.append(submitted)
        if idempotency is None:
            return None
        return store.Answer(
            scope_of(game),
            idempotency.key,
            idempotency.fingerprint,
            submitted.outcome_kind,
            submitted.to_stored(),
        )

    stored = store.append_event(
        game,
        position=position,
        kind=kind,
        payload=payload,
        round_number=effect.round,
        session_id=session_id,
        entered_by=actor.label,
        state=store.replace(
            state,
            snapshot=snapshot,
            next_position=position + 1,
            session=session,
            session_id=session_id,
            sittings=session,  # the open sitting is the last one begun
            current=cache,
        ),
        expected_version=read_version,
        answer=answer,
        opens=opens,
    )
    if stored is None:
        return None
    return answered[0]


def event_undo(
    *,
    game_id: Any,
    actor: Actor,
    precondition: Precondition | None = None,
    idempotency: Idempotency | None = None,
    reason: str = "",
) -> Undone | Replay[Undone]:
    """Undo the game's last live event (it is revoked, never deleted) and refold.

    Returns the correction and the event it revoked (``Undone``), or the stored answer
    when ``idempotency``'s key was seen (``Replay``). An undo of a round's last move
    reopens that round until the next round's first move is entered. Raises
    ``nothing_to_undo``, ``game_closed``, ``version_mismatch`` / ``precondition_failed``.
    """
    with transaction.atomic():
        game = guard.lock(game_id, actor)
        if (replayed := replay_of(game, idempotency)) is not None:
            return replayed
        guard.check_open(game, precondition, actor)
        last = game.events.filter(revoked_by__isnull=True).order_by("-position").first()
        if last is None:
            raise NothingToUndo()
        if last.kind in folding.RULING_KINDS and actor.token is not None:
            raise OrganiserOnly()  # a ruling (R35, R36, R38) is the organiser's to take back
        actor.check_seat(last.payload.get("seat"))
        if last.kind == Event.Kind.HAND and not probes.may_correct_hand(actor, last):
            raise SeatNotAllowed(guard.hand_undo_detail())
        if last.kind == Event.Kind.MOVE and last.payload.get("seat") != actor.seat:
            # Undoing another seat's accepted move tells whether its declared hand held
            # the tile: a probe when that hand is declared (R31).
            probes.check_probe_limit(actor)
            round_events = game.events.filter(
                revoked_by__isnull=True, round_number=last.round_number, kind=Event.Kind.HAND
            )
            seats = [e.payload.get("seat") for e in round_events]
            if last.payload.get("seat") in seats:
                probes.count_probe(
                    game,
                    actor,
                    TableAlert.Kind.UNDOS,
                    [last.payload["seat"]],
                    round_number=last.round_number,
                )
        correction = Correction.objects.create(
            game=game, kind=Correction.Kind.UNDO, entered_by=actor.label, reason=reason
        )
        store.revoke_events([last], correction)
        undone = Undone(game, correction, last, _after_correction(game, actor, last))
        remember(game, idempotency, undone)
    return undone


def event_amend(
    *,
    game_id: Any,
    position: int,
    payload: dict[str, Any],
    actor: Actor,
    precondition: Precondition | None = None,
    idempotency: Idempotency | None = None,
    reason: str = "",
) -> Corrected | Replay[Corrected]:
    """Replace an event; the game is judged again as a replay of its corrected record (R37).

    A phone amends an event of the current round only; an organiser any event
    of any round (``corrections.event_amend_any``). If the
    replacement or any later event becomes impossible, the amendment is
    refused with that event's ``RefereeError`` and nothing changes. Raises
    ``event_not_amendable`` for an event that is not live (or, from a phone,
    not of the current round).
    """
    return corrections.event_amend_any(
        game_id=game_id,
        position=position,
        payload=payload,
        actor=actor,
        precondition=precondition,
        idempotency=idempotency,
        reason=reason,
    )


# -- sittings ----------------------------------------------------------------------------


@transaction.atomic
def session_start(
    *,
    game_id: Any,
    actor: Actor,
    precondition: Precondition | None = None,
    idempotency: Idempotency | None = None,
) -> SessionChanged | Replay[SessionChanged]:
    """Open a new sitting of the game (R27); an open one is ended first.

    Returns the game at its new version and the new sitting, or the stored answer when
    ``idempotency``'s key was seen (``Replay``: a retry opens no second sitting). Raises
    ``seat_not_allowed`` (403) for a seat's phone, ``game_closed``, ``version_mismatch`` /
    ``precondition_failed``.
    """
    game = guard.lock(game_id, actor)
    if (replayed := replay_of(game, idempotency)) is not None:
        return replayed
    actor.check_table_wide()
    guard.check_open(game, precondition, actor)
    GameSession.objects.filter(game=game, ended_at__isnull=True).update(ended_at=timezone.now())
    session = GameSession.objects.create(game=game, number=game.sessions.count() + 1)
    store.commit(
        game,
        store.replace(
            state_of(game), session=session.number, session_id=session.pk, sittings=session.number
        ),
    )
    started = SessionChanged(game, session)
    remember(game, idempotency, started)
    return started


@transaction.atomic
def session_end(
    *,
    game_id: Any,
    actor: Actor,
    precondition: Precondition | None = None,
    idempotency: Idempotency | None = None,
) -> SessionChanged | Replay[SessionChanged]:
    """End the open sitting; stones, CAMAT and next leader wait for the next one (R27).

    Returns the game at its new version and the sitting ended, or a ``Replay`` as
    ``session_start``. Raises ``session_state`` (409) when no session is open, and as
    ``session_start``.
    """
    game = guard.lock(game_id, actor)
    if (replayed := replay_of(game, idempotency)) is not None:
        return replayed
    actor.check_table_wide()
    guard.check_open(game, precondition, actor)
    session = GameSession.objects.filter(game=game, ended_at__isnull=True).first()
    if session is None:
        raise SessionState()
    session.ended_at = timezone.now()
    session.save(update_fields=["ended_at"])
    store.commit(game, store.replace(state_of(game), session=None, session_id=None))
    ended = SessionChanged(game, session)
    remember(game, idempotency, ended)
    return ended


# -- helpers -----------------------------------------------------------------------------


def _next_position(game: Game, current: store.CurrentRound, round_number: int) -> int:
    """The position of the game's next event, of round ``round_number``: one past the last
    ever stored (live or revoked), and ``store.ROUND_GAP`` further for the first event of a
    round after another (no event of ``current`` of that round): the room a ruling or an
    inserted event of the round before takes later, moving no event of the rounds after it
    (issue 29).

    ``game_create`` and ``game_import`` set ``state["next_position"]`` and each new event
    moves it on; a game stored before they did gets it from its events (never from the
    version, which sittings and corrections also move on).
    """
    if (position := state_of(game).next_position) is not None:
        position = int(position)
    else:
        last = game.events.aggregate(last=Max("position"))["last"]
        position = 0 if last is None else last + 1
    if position > 0 and all(e.round_number != round_number for e in current.events[-1:]):
        position += store.ROUND_GAP
    return position


def _open_session(game: Game) -> tuple[int, int]:
    """The open sitting's (id, number), started on the first event if none is open.

    The game row caches it (``state["session_id"]``, written by the services that open
    and end sittings under the same lock), so a move in an open sitting costs no query.
    """
    state = state_of(game)
    if state.session is not None and state.session_id is not None:
        return state.session_id, state.session
    session = GameSession.objects.filter(game=game, ended_at__isnull=True).first()
    if session is None:
        session = GameSession.objects.create(game=game, number=game.sessions.count() + 1)
    return session.pk, session.number


def _after_correction(game: Game, actor: Actor, undone: Event) -> dict[str, Any]:
    """Refold the game after an undo of ``undone``, from the round it belongs to (or names,
    a ruling) on, resumed at the standing stored before it (``settled.snapshot_before``,
    issue 29; from the start without one): a new version with the fold's snapshot, the
    live substitutes (R38) and the verifications as they stand (an undo may reopen a
    verified round); the league follows, rows from that round on. The game's state as
    ``actor`` sees it then."""
    named = folding.ruling_round(undone.kind, undone.payload)
    number = min(undone.round_number, named or undone.round_number)
    last = game.events.filter(revoked_by__isnull=True).aggregate(last=Max("round_number"))
    number = min(number, last["last"] or 1)  # a round left with no event is not begun
    start = settled.snapshot_before(game, number)
    first = start["round"] if start is not None else 1
    live = store.live_events(game, since_round=first)
    engine, effects = folding.fold(
        rules_of(game), [(e.kind, e.payload) for e in live], snapshot=start
    )
    settled_at = {
        effect.round: event.created_at
        for event, effect in zip(live, effects, strict=True)
        if effect.settled
    }
    snapshot = folding.advance_snapshot(engine, start or folding.initial_snapshot(engine.rules))
    substitutes = [
        [p.get("round"), p.get("seat"), p.get("name"), p.get("player")]
        for p in game.events.filter(revoked_by__isnull=True, kind=Event.Kind.SUBSTITUTE)
        .order_by("position")
        .values_list("payload", flat=True)
    ]
    verification.verifications_refresh(game=game, actor=actor, engine=engine, since=first)
    store.commit_refold(
        game,
        snapshot=snapshot,
        substitutes=substitutes,
        verification=verification.shown(game, snapshot),
    )
    # The correction may change any settled round; each keeps its time (issue 13 item 5).
    signals.rounds_changed.send(
        Game, game=game, engine=engine, played_at=None, settled_at=settled_at, snapshot=start
    )
    return game_state_for(
        game, viewer=actor.seat, viewer_label=actor.label, organiser=actor.is_organiser
    )
