"""The stored game's one owner: its cached state, its current round, its rule set, its writes.

A game is its events (``referee.models.Event``); what the table sees is the
rules core's fold over them. The ``Game`` row caches what a fold needs so that
a move reads one row and writes one row:

- ``GameState`` is the typed form of ``Game.state`` (the JSON column). Only this
  module reads or writes that JSON: ``state_of(game)`` and ``set_state(game, state)``.
- ``GameState.snapshot``: the standing at the start of the last round begun
  (``referee.folding.advance_snapshot``, R27); folding that round's live events from
  it gives the whole game's state.
- ``GameState.current``: that round's live events and the seats' names, valid for
  one version of the game only (``RoundCache.version``). A write that moves the
  version on without refreshing it (a sitting, a correction, a re-seating)
  invalidates it, and the next read takes the events from their table again.
- ``rules_of(game)``: the game's ``RuleSet`` (R40), parsed once per process for a
  given rule set (rules never change after creation).

``append_event`` stores an accepted event with the game's new version and state:
one statement on PostgreSQL (a data-modifying ``WITH``), two elsewhere. The
caller holds the game's row lock (``lock``) in the same transaction — or, with
``expected_version``, holds no lock: the write applies only if the game is still at
the version the caller read and folded (a compare-and-set on ``Game.version``), and
otherwise writes nothing and returns ``None``. That is a move's fast path
(``referee.services.event_submit``): one read (the table token's, with its game) and
this one statement, with the idempotent answer in the same statement. The
compare-and-set compares ``version`` (and ``revocations``, moved on by every table token
revoked) only, so every write of ``Game.state`` happens in a transaction that moves
``version`` on (under the lock): a sitting, a correction, a verification, a computer
seat's set-up at creation (before any phone can join).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from functools import cache, lru_cache
from operator import attrgetter
from typing import Any, NamedTuple, TypeVar

import orjson
import psycopg
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, IntegrityError, connections, models, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper
from django.db.models.base import ModelState
from django.db.models.signals import post_init, pre_init
from django.utils import timezone

from referee import folding
from referee.engine import Game as EngineGame
from referee.engine import RuleSet
from referee.models import (
    Correction,
    Event,
    Game,
    GameSession,
    IdempotencyRecord,
    SettledRound,
    TableToken,
)

_M = TypeVar("_M", bound=models.Model)

__all__ = [
    "Answer",
    "CachedEffects",
    "CachedEvent",
    "CurrentRound",
    "GameState",
    "RoundCache",
    "Sitting",
    "append_event",
    "commit",
    "commit_refold",
    "current_round",
    "live_events",
    "live_token",
    "live_token_window",
    "lock",
    "lock_games",
    "replace",
    "replace_events",
    "reserve_sitting_id",
    "revoke_events",
    "revoke_tokens",
    "rule_set",
    "rules_of",
    "forget_settled",
    "save_state",
    "set_state",
    "state_of",
]


# -- the rule set ----------------------------------------------------------------------


@lru_cache(maxsize=256)
def _rules(canonical: str) -> RuleSet:
    return RuleSet.from_dict(orjson.loads(canonical))


def rules_of(game: Game) -> RuleSet:
    """The game's rule set (R40), parsed once per process per distinct rule set.

    ``RuleSet`` is frozen: sharing one instance between games and threads is safe.
    """
    return rule_set(game.rules)


def rule_set(rules: dict[str, Any]) -> RuleSet:
    """``Game.rules`` (a stored rule set's dict, R40) as a ``RuleSet``, parsed once per
    process per distinct rule set (``rules_of`` for a game row)."""
    return _rules(orjson.dumps(rules, option=orjson.OPT_SORT_KEYS).decode())


# -- the cached state ------------------------------------------------------------------


class CachedEvent(NamedTuple):
    """A live event of the current round as the fold and the table's state read it.

    Same attribute names as ``referee.models.Event`` for what those readers use. A named
    tuple, not a frozen dataclass: every move reads a round's worth of them from the
    game row, and a tuple is built ≈ 5× faster (issue 14).
    """

    position: int
    kind: str
    payload: dict[str, Any]
    round_number: int
    entered_by: str
    revoked_by_id: None = None

    @classmethod
    def of(cls, event: Any) -> CachedEvent:
        return cls(event.position, event.kind, event.payload, event.round_number, event.entered_by)

    @classmethod
    def from_json(cls, data: list[Any]) -> CachedEvent:
        """An event as rows written before ``RoundCache`` listed authors once hold it."""
        position, kind, payload, round_number, entered_by = data
        return cls(position, kind, payload, round_number, entered_by)


@dataclass(frozen=True, slots=True)
class RoundCache:
    """The current round's live events and the seats' names, as of ``version`` only.

    ``effects``: what each event did (``folding.Effects``, one per event), worked out
    when it was accepted, or ``None`` when the row does not say (rows written before
    it was kept). With them a fold replays the round without working them out again
    (``folding.fold``'s ``effects``).

    The JSON is written for size, since every move writes it again (and PostgreSQL's
    work on the row grows with it, issue 14): ``by`` lists each author (``entered_by``)
    once and an event names its author by index; ``effects`` holds, by event index, only
    the effects beyond naming the event's round (most plays name nothing and move no
    stone) as ``[named, transfers, round_ended, settled, camat_elected, round]`` with a
    transfer as ``[move, from, to, stones, reason]`` and trailing defaults left out.
    Rows written before either was kept still read: a label in place of an index, no
    ``effects`` (unknown).

    ``written``: the ``events`` and ``by`` lists of the row this cache was read from
    (``from_json``) or grown from (``appended``), kept so that a move writes the round
    out again by appending one event's list to them rather than rebuilding every
    event's (issue 29); ``None`` when it was made otherwise (``to_json`` builds them).
    """

    version: int
    round: int
    events: tuple[CachedEvent, ...]
    players: tuple[str, ...]
    effects: Sequence[folding.Effects] | None = None
    written: tuple[list[Any], list[str]] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.effects is None:
            return
        if len(self.effects) != len(self.events):
            raise ValueError("one effect for each cached event")
        if not isinstance(self.effects, CachedEffects):
            object.__setattr__(self, "effects", CachedEffects.of(self.events, self.effects))

    def to_json(self) -> dict[str, Any]:
        if self.written is not None:
            events, by = self.written
        else:
            authors: dict[str, int] = {}
            events = [
                [
                    e.position,
                    e.kind,
                    e.payload,
                    e.round_number,
                    authors.setdefault(e.entered_by, len(authors)),
                ]
                for e in self.events
            ]
            by = list(authors)
        data: dict[str, Any] = {
            "version": self.version,
            "round": self.round,
            "events": events,
            "by": by,
            "players": list(self.players),
        }
        if isinstance(self.effects, CachedEffects):
            data["effects"] = self.effects.to_json()
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RoundCache:
        authors = data.get("by")
        written: tuple[list[Any], list[str]] | None = None
        if authors is None:  # a row written before authors were listed once
            events = tuple(CachedEvent.from_json(e) for e in data["events"])
        else:
            events = tuple(
                CachedEvent(position, kind, payload, round_number, authors[author])
                for position, kind, payload, round_number, author in data["events"]
            )
            if type(data["events"]) is list and type(authors) is list:
                written = (data["events"], authors)
        return cls(
            int(data["version"]),
            int(data["round"]),
            events,
            tuple(data["players"]),
            _effects_of(data.get("effects"), events),
            written,
        )

    def appended(
        self, version: int, event: CachedEvent, effects: Sequence[folding.Effects] | None
    ) -> RoundCache:
        """This round's cache for ``version`` with ``event`` after its events (the round
        goes on); ``effects``: one for each event, ``event``'s last (or ``None``). The
        lists it was read as are extended, not built again (``written``); what
        ``to_json`` then writes reads as the cache built from scratch would (tested)."""
        written = None
        if self.written is not None:
            events, by = self.written
            if event.entered_by in by:
                author = by.index(event.entered_by)
            else:
                author, by = len(by), [*by, event.entered_by]
            entry = [event.position, event.kind, event.payload, event.round_number, author]
            written = ([*events, entry], by)
        return RoundCache(
            version, self.round, (*self.events, event), self.players, effects, written
        )


def _effects_of(known: Any, events: tuple[CachedEvent, ...]) -> CachedEffects | None:
    """The effects ``RoundCache.to_json`` wrote for ``events``, or ``None`` (unknown: the
    fold works them out) when there are none or they are not in the shape it writes: a
    cache never stops a move."""
    if not isinstance(known, dict):
        return None
    try:
        return CachedEffects.from_json(known, tuple(e.round_number for e in events))
    except (TypeError, ValueError, KeyError):
        return None


class CachedEffects(Sequence[folding.Effects]):
    """What each event of a cached round did (``folding.Effects``, one per event, in order),
    as ``RoundCache`` keeps them: only the effects that say more than their event's round
    (``_plain``) are held, each with the JSON it is written as; the others — most plays —
    are made when read.

    A move reads the last twelve (its answer) and appends one; building every event's
    ``Effects`` from the row and writing each again took ≈ 60 µs of a 30-event round's
    move (issue 14). Immutable: ``appended`` gives a new one.
    """

    __slots__ = ("_rounds", "_known", "_json")

    def __init__(
        self,
        rounds: tuple[int, ...],
        known: dict[int, folding.Effects],
        json: dict[str, list[Any]],
    ) -> None:
        self._rounds = rounds  # each event's round number
        self._known = known  # event index → its effects, only where not ``_plain``
        self._json = json  # the same as ``RoundCache.to_json`` writes them

    @classmethod
    def of(cls, events: Sequence[CachedEvent], effects: Sequence[folding.Effects]) -> CachedEffects:
        """``effects`` (one per event of ``events``) as held by a ``RoundCache``."""
        rounds = tuple(event.round_number for event in events)
        known: dict[int, folding.Effects] = {}
        json: dict[str, list[Any]] = {}
        for index, (number, effect) in enumerate(zip(rounds, effects, strict=True)):
            if not _plain(effect, number):
                known[index], json[str(index)] = effect, _effect_json(effect, number)
        return cls(rounds, known, json)

    @classmethod
    def from_json(cls, known: dict[str, Any], rounds: tuple[int, ...]) -> CachedEffects:
        """The effects ``to_json`` wrote for events of ``rounds``; ``ValueError`` (or
        ``TypeError``, ``KeyError``) for anything else."""
        effects: dict[int, folding.Effects] = {}
        for key, values in known.items():
            index = int(key)
            if not 0 <= index < len(rounds) or key != str(index):
                raise ValueError("not an event of the round")
            effects[index] = _effect_of(values, rounds[index])
        return cls(rounds, effects, dict(known))

    def __len__(self) -> int:
        return len(self._rounds)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self._rounds)))]
        if index < 0:
            index += len(self._rounds)
        if not 0 <= index < len(self._rounds):
            raise IndexError("no such cached event")
        known = self._known.get(index)
        return known if known is not None else folding.Effects(self._rounds[index])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CachedEffects):
            return self._rounds == other._rounds and self._json == other._json
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"CachedEffects({self._rounds!r}, {self._json!r})"

    def appended(self, effect: folding.Effects, round_number: int) -> CachedEffects:
        """These effects and ``effect``, of an event of round ``round_number``."""
        index = len(self._rounds)
        rounds = (*self._rounds, round_number)
        if _plain(effect, round_number):
            return CachedEffects(rounds, self._known, self._json)
        return CachedEffects(
            rounds,
            {**self._known, index: effect},
            {**self._json, str(index): _effect_json(effect, round_number)},
        )

    def to_json(self) -> dict[str, list[Any]]:
        """``{"<event index>": effect}`` of the events whose effects are not ``_plain``."""
        return dict(self._json)


_TRANSFER_KEYS = ("move", "from", "to", "stones", "reason")


def _plain(effect: folding.Effects, round_number: int) -> bool:
    """Whether ``effect`` only names its event's round: nothing named, no stone moved."""
    return (
        not effect.named
        and not effect.transfers
        and effect.round == round_number
        and not effect.round_ended
        and not effect.settled
        and effect.camat_elected is None
    )


def _effect_defaults(round_number: int) -> tuple[Any, ...]:
    """What ``_effect_json`` leaves out at the end of an effect of round ``round_number``."""
    return ([], [], False, False, None, round_number)


def _effect_json(effect: folding.Effects, round_number: int) -> list[Any]:
    """``effect`` as ``RoundCache`` writes it (``[]`` when it is ``_plain``)."""
    values: list[Any] = [
        effect.named,
        [[transfer[key] for key in _TRANSFER_KEYS] for transfer in effect.transfers],
        effect.round_ended,
        effect.settled,
        effect.camat_elected,
        effect.round,
    ]
    defaults = _effect_defaults(round_number)
    while values and values[-1] == defaults[len(values) - 1]:
        values.pop()
    return values


def _effect_of(values: list[Any], round_number: int) -> folding.Effects:
    """The ``folding.Effects`` that ``_effect_json`` wrote as ``values``; ``ValueError``
    for anything else."""
    if type(values) is not list or len(values) > 6:
        raise ValueError("not an effect")
    named, transfers, round_ended, settled, camat_elected, number = (
        *values,
        *_effect_defaults(round_number)[len(values) :],
    )
    if type(named) is not list or type(transfers) is not list:
        raise ValueError("not an effect")
    return folding.Effects(
        number,
        list(named),
        [dict(zip(_TRANSFER_KEYS, transfer, strict=True)) for transfer in transfers],
        round_ended,
        settled,
        camat_elected,
    )


# The organiser's corrections a phone is told of at most at once (the newest).
NOTICES_KEPT = 3


@dataclass(frozen=True, slots=True)
class CorrectionNotice:
    """What an organiser's correction of a round changed, as every phone is told (issue 28).

    ``correction``: the ``Correction``'s id; ``kind``: ``corrected`` (R37), ``voided``
    (R35) or ``adjusted`` (R36); ``round``: the first round it changed; ``before`` and
    ``after``: each seat's stones (seats 0–4, whole stones) just before and just after it;
    ``until``: the round whose lead ends the notice, the first to begin after it
    (``ends_at``).
    """

    correction: int
    kind: str
    round: int
    before: tuple[int, ...]
    after: tuple[int, ...]
    until: int

    @staticmethod
    def ends_at(number: int, *, led: bool) -> int:
        """The round whose lead ends a notice given while round ``number`` is the table's
        current one (the round in play, else the next; ``led``: its lead is in)."""
        return number + 1 if led else number

    def is_shown(self, number: int, *, led: bool) -> bool:
        """Whether a table whose current round is ``number`` still shows it: until the
        lead of round ``until``."""
        return number < self.until or (number == self.until and not led)

    def to_json(self) -> dict[str, Any]:
        return {
            "correction": self.correction,
            "kind": self.kind,
            "round": self.round,
            "before": list(self.before),
            "after": list(self.after),
            "until": self.until,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CorrectionNotice:
        return cls(
            correction=int(data["correction"]),
            kind=str(data["kind"]),
            round=int(data["round"]),
            before=tuple(int(n) for n in data["before"]),
            after=tuple(int(n) for n in data["after"]),
            until=int(data["until"]),
        )


@dataclass(frozen=True, slots=True)
class GameState:
    """``Game.state``, typed. Every field but ``snapshot`` may be absent from old rows.

    ``snapshot``: ``{"round", "rounds_played", "standing"}`` (``folding.advance_snapshot``);
    ``next_position``: the next event's position (one past the last ever stored);
    ``session`` / ``session_id``: the open sitting's number and id (R27), or ``None``;
    ``sittings``: how many sittings the game has had (the last one's number), or ``None``
    when the row does not know (rows written before it was kept: counted under the lock);
    ``substitutes``: ``[[round, seat, name, player], …]`` of the live substitutes (R38);
    ``computer_seats``: ``{"<seat>": strategy}`` (R39);
    ``current``: the current round's cache (``RoundCache``), or ``None``;
    ``verification``: ``{"<round>": verification}`` of the rounds the state can show
    (``referee.services.verification`` keeps it, issue 11);
    ``notices``: the organiser's corrections every phone is told of until the next round
    begins (``CorrectionNotice.to_json`` each, oldest first, issue 28).
    """

    snapshot: dict[str, Any]
    next_position: int | None = None
    session: int | None = None
    session_id: int | None = None
    sittings: int | None = None
    substitutes: tuple[tuple[Any, ...], ...] = ()
    computer_seats: dict[str, str] = field(default_factory=dict)
    current: RoundCache | None = None
    verification: dict[str, Any] = field(default_factory=dict)
    notices: tuple[dict[str, Any], ...] = ()

    @classmethod
    def initial(cls, rules: RuleSet) -> GameState:
        """A new game's state: no event, every stone on the table (R22)."""
        return cls(snapshot=folding.initial_snapshot(rules), next_position=0, sittings=0)

    @classmethod
    def from_json(cls, data: dict[str, Any], rules: RuleSet | None = None) -> GameState:
        snapshot = data.get("snapshot")
        if snapshot is None:
            snapshot = folding.initial_snapshot(rules or RuleSet())
        current = data.get("current")
        return cls(
            snapshot=snapshot,
            next_position=data.get("next_position"),
            session=data.get("session"),
            session_id=data.get("session_id"),
            sittings=data.get("sittings"),
            substitutes=tuple(tuple(s) for s in data.get("substitutes") or ()),
            computer_seats=dict(data.get("computer_seats") or {}),
            current=RoundCache.from_json(current) if current else None,
            verification=dict(data.get("verification") or {}),
            notices=tuple(data.get("notices") or ()),
        )

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "snapshot": self.snapshot,
            "next_position": self.next_position,
            "session": self.session,
            "session_id": self.session_id,
            "substitutes": [list(s) for s in self.substitutes],
        }
        if self.sittings is not None:
            data["sittings"] = self.sittings
        if self.computer_seats:
            data["computer_seats"] = dict(self.computer_seats)
        if self.current is not None:
            data["current"] = self.current.to_json()
        if self.verification:
            data["verification"] = dict(self.verification)
        if self.notices:
            data["notices"] = [dict(n) for n in self.notices]
        return data


_STATE_ATTRIBUTE = "_domeng_state"


def state_of(game: Game) -> GameState:
    """The game row's cached state, typed (parsed once per row instance)."""
    cached = getattr(game, _STATE_ATTRIBUTE, None)
    if cached is not None and cached[0] is game.state:
        return cached[1]  # type: ignore[no-any-return]
    snapshot = game.state.get("snapshot") if isinstance(game.state, dict) else None
    state = GameState.from_json(
        game.state if isinstance(game.state, dict) else {},
        None if snapshot is not None else rules_of(game),
    )
    setattr(game, _STATE_ATTRIBUTE, (game.state, state))
    return state


def set_state(game: Game, state: GameState) -> None:
    """Put ``state`` on the row, unsaved. Only this module's writes (``commit``,
    ``save_state``, ``append_event``) call it; elsewhere a test that shapes a row."""
    game.state = state.to_json()
    setattr(game, _STATE_ATTRIBUTE, (game.state, state))


def commit(
    game: Game,
    state: GameState | None = None,
    *,
    version: int | None = None,
    fields: Sequence[str] = (),
) -> None:
    """Move ``game`` on to its next version (or to ``version``, an import's count of events)
    with ``state`` (default: the row's state as it is) and save it, with the row's other
    ``fields`` the caller changed (e.g. ``status``). The caller holds the game's lock.

    Every write that changes what the table sees moves the version on: phones redraw
    (``ETag``), a client's ``If-Match`` of the old version is stale (412/409), and the
    fast path's compare-and-set (``append_event``) sees that another write came first.
    A write that moves the version on without a new ``current`` drops the round cache
    (it is of the older version: the next read takes the events from their table).
    """
    game.version = game.version + 1 if version is None else version
    set_state(game, state if state is not None else state_of(game))
    game.save(update_fields=["version", "state", *fields])


def commit_refold(
    game: Game,
    *,
    snapshot: dict[str, Any],
    substitutes: Sequence[Sequence[Any]],
    verification: dict[str, Any],
    next_position: int | None = None,
    notice: CorrectionNotice | None = None,
) -> None:
    """``commit`` after the game's events changed under it (an undo, a correction, a ruling,
    R35–R38): ``snapshot``, the standing at the start of the last round begun of the whole
    game's fold (``folding.advance_snapshot``), the live ``substitutes`` (``[round, seat,
    name, player]`` each, R38), the verifications the state shows
    (``referee.services.verification.shown``) and the next position when it grew. The
    round cache is dropped: it is of the older version. ``notice``: what an organiser's
    correction changed, for every phone (kept with the earlier notices still shown)."""
    state = state_of(game)
    notices = state.notices
    if notice is not None:  # the earlier ones still shown at the table, and this one
        kept = [n for n in notices if n["until"] >= notice.until][-(NOTICES_KEPT - 1) :]
        notices = (*kept, notice.to_json())
    commit(
        game,
        replace(
            state,
            snapshot=snapshot,
            substitutes=tuple(tuple(s) for s in substitutes),
            current=None,
            verification=dict(verification),
            notices=notices,
            next_position=max(state.next_position or 0, next_position or 0)
            if next_position is not None
            else state.next_position,
        ),
    )


def save_state(game: Game, state: GameState) -> None:
    """Save ``state`` without moving the version: only for what no phone has seen yet (a
    game's computer seats set up in the transaction that creates it, R39)."""
    set_state(game, state)
    game.save(update_fields=["state"])


# Positions moved by a correction park here first: a live position is unique per game.
_PARKING_OFFSET = 1_000_000_000

ROUND_GAP = 8
"""Positions left free before each round's first event (after the first round's): where a
ruling of the round before (a void, adjustments, substitutes: R35, R36, R38) or an event
inserted into it lands, so that a correction of round k moves none of the events of the
rounds after it (``replace_events``; at 600 rounds that was 15,000 rows written twice,
issue 29). Positions only order a game's events; a removal leaves a gap too."""


@dataclass(frozen=True)
class ShiftRun:
    """Live events at positions ``first``..``last`` (inclusive, as stored), every live
    event between them included, all moved by ``shift`` positions."""

    first: int
    last: int
    shift: int
    count: int


def shift_runs(moves: Sequence[tuple[int, int]]) -> list[ShiftRun]:
    """The runs of ``moves`` (each kept live event's ``(position, new position)``, every
    live event a correction read, sorted by position) that move: consecutive events moved
    by the same shift form one run. An insertion before the last round moves every later
    event by one: one run, however long the game (issue 29)."""
    runs: list[ShiftRun] = []
    previous = -1
    for old, new in moves:
        shift = new - old
        last = runs[-1] if runs else None
        if shift and last is not None and last.shift == shift and last.last == previous:
            runs[-1] = ShiftRun(last.first, old, shift, last.count + 1)
        elif shift:
            runs.append(ShiftRun(old, old, shift, 1))
        previous = old
    return runs


def replace_events(
    game: Game,
    *,
    correction: Correction,
    revoked: Sequence[Event],
    shifts: Sequence[ShiftRun],
    new: Sequence[Event],
    until: int | None = None,
) -> list[Event]:
    """Write a correction's events (R37): ``revoked`` revoked by ``correction``, the kept
    events of each run of ``shifts`` (``shift_runs``) moved by its shift, ``new`` inserted
    (unsaved ``Event`` rows, at their final positions). Only rows that change are written:
    one ``UPDATE`` for the revoked, one per run (every later event after an insertion, say:
    a range of positions, not a list of ids, so its cost is the rows', not the statement's)
    and one to unpark them, one ``INSERT``. The new rows, saved. The caller holds the
    game's lock and commits the version (``commit_refold``); a run that does not find
    exactly its events raises ``RuntimeError`` (the transaction rolls back). ``until``: the
    last round whose settled row may change (``forget_settled``)."""
    revoke_events(revoked, correction, until=until)
    forget_settled(game.pk, new, until=until)
    live = Event.objects.filter(game=game, revoked_by__isnull=True)
    for run in shifts:  # parked out of the way first
        moved = live.filter(position__gte=run.first, position__lte=run.last).update(
            position=models.F("position") + run.shift + _PARKING_OFFSET
        )
        if moved != run.count:
            raise RuntimeError(f"positions {run.first}..{run.last}: {moved} of {run.count}")
    created = Event.objects.bulk_create(new) if new else []
    if shifts:
        live.filter(position__gte=_PARKING_OFFSET).update(
            position=models.F("position") - _PARKING_OFFSET
        )
    return created


def revoke_tokens(game: Game, tokens: Sequence[TableToken]) -> None:
    """Revoke table ``tokens`` of ``game`` under its lock: those phones lose the game at once
    and their seats are free. ``Game.revocations`` counts them: a move such a phone read
    before cannot land after, since the fast path's compare-and-set (``append_event``) wants
    the count it read, and the locked path reads the token again. The version stays: the
    other phones' taps made on it still apply (QA)."""
    if not tokens:
        return
    now = timezone.now()
    TableToken.objects.filter(pk__in=[t.pk for t in tokens]).update(revoked_at=now)
    for token in tokens:
        token.revoked_at = now
    game.revocations += len(tokens)
    game.save(update_fields=["revocations"])


def revoke_events(
    events: Sequence[Event], correction: Correction, until: int | None = None
) -> None:
    """Revoke ``events`` by ``correction`` (an undo, a correction: R37): kept, never deleted,
    no longer live. One ``UPDATE``; the rows given follow. The caller commits a version.
    ``until``: as ``forget_settled``'s."""
    if not events:
        return
    Event.objects.filter(pk__in=[e.pk for e in events]).update(revoked_by=correction)
    for event in events:
        event.revoked_by = correction
    forget_settled(correction.game_id, events, until=until)


def forget_settled(game_id: Any, events: Sequence[Event], until: int | None = None) -> None:
    """Delete the game's stored settled rounds (``SettledRound``) from the first round that
    ``events`` (revoked or inserted ones) belong to or, for a ruling, name (R35, R36, R38):
    their rows no longer say what a replay says. One ``DELETE``, none without events.
    The caller holds the game's lock; whoever judged the change writes them again
    (``referee.settled.keep``), else the next read does. ``until``: the rows after that
    round are kept (a ruling judged only to the round whose standing came back, issue 29:
    they say what a replay says)."""
    numbers = [e.round_number for e in events]
    numbers += [n for e in events if (n := folding.ruling_round(e.kind, e.payload)) is not None]
    if numbers:
        rows = SettledRound.objects.filter(game_id=game_id, number__gte=min(numbers))
        if until is not None:
            rows = rows.filter(number__lte=until)
        rows.delete()


# -- many rows at once ---------------------------------------------------------------


def insert_rows(model: type[models.Model], objs: Sequence[models.Model]) -> int:
    """Insert ``objs`` (unsaved instances of ``model``, whose keys are not wanted back): on
    PostgreSQL one ``COPY … FROM STDIN`` of every concrete field but the automatic key
    (an import's ≈ 15,000 events of 600 rounds, its 3,000 seat-rounds: the ORM's
    ``bulk_create`` spent ≈ 60 µs a row making its ``INSERT``, issue 29), elsewhere
    ``bulk_create``. How many rows; no signal is sent, as with ``bulk_create``. Raises
    the database's ``IntegrityError`` for a row a constraint refuses (none is stored)."""
    if not objs:
        return 0
    db = _db()
    if db.vendor != "postgresql":
        model.objects.bulk_create(objs)  # type: ignore[attr-defined]
        return len(objs)
    pk = model._meta.pk
    fields = [
        f
        for f in model._meta.concrete_fields
        if not (f is pk and isinstance(f, models.AutoField | models.BigAutoField))
    ]
    for f in fields:
        if isinstance(f, models.DateTimeField) and (f.auto_now or f.auto_now_add):
            for obj in objs:
                setattr(obj, f.attname, f.pre_save(obj, add=True))
    values = attrgetter(*(f.attname for f in fields))
    rows = (list(values(obj)) if len(fields) > 1 else [values(obj)] for obj in objs)
    _copy_rows(db, model, fields, rows)
    return len(objs)


def insert_values(model: type[models.Model], rows: Sequence[dict[str, Any]]) -> int:
    """``insert_rows`` of ``model(**row)`` for each of ``rows`` (each field by its
    ``attname``, ``game_id``; a field not given its default), without making the
    instances: an import's 15,000 events (issue 29). The same rows (tested)."""
    if not rows:
        return 0
    db = _db()
    if db.vendor != "postgresql":
        return insert_rows(model, [model(**row) for row in rows])
    pk = model._meta.pk
    fields = [
        f
        for f in model._meta.concrete_fields
        if not (f is pk and isinstance(f, models.AutoField | models.BigAutoField))
    ]
    given = [f.attname in rows[0] for f in fields]
    for f, known in zip(fields, given, strict=True):
        if not known and isinstance(f, models.DateTimeField) and (f.auto_now or f.auto_now_add):
            raise ValueError(f"insert_values: {f.attname} is set by the ORM on save")

    def row_of(values: dict[str, Any]) -> list[Any]:
        return [
            values[f.attname] if known else f.get_default()
            for f, known in zip(fields, given, strict=True)
        ]

    _copy_rows(db, model, fields, (row_of(values) for values in rows))
    return len(rows)


def _copy_rows(
    db: BaseDatabaseWrapper,
    model: type[models.Model],
    fields: Sequence[models.Field[Any, Any]],
    rows: Iterable[list[Any]],
) -> None:
    """One ``COPY … FROM STDIN`` of ``rows`` (each the values of ``fields``, in order)."""
    encoded = [i for i, f in enumerate(fields) if isinstance(f, models.JSONField)]
    quote = db.ops.quote_name
    sql = (
        f"COPY {quote(model._meta.db_table)} ({', '.join(quote(f.column) for f in fields)}) "
        "FROM STDIN"
    )
    with db.wrap_database_errors, db.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        for row in rows:
            for i in encoded:
                if row[i] is not None:
                    row[i] = _json(row[i])  # as its text, keys made text as json.dumps does
            copy.write_row(row)


# -- the current round -----------------------------------------------------------------


@dataclass
class CurrentRound:
    """The snapshot a fold resumes from, the live events since, and the seat names;
    ``effects``: what each event did, when the row's cache knows it, else ``None``."""

    snapshot: dict[str, Any]
    events: list[Any]  # ``Event`` rows or ``CachedEvent``s: the same attributes
    players: list[str]
    effects: Sequence[folding.Effects] | None = None

    def events_as_pairs(self) -> list[tuple[str, dict[str, Any]]]:
        return [(e.kind, e.payload) for e in self.events]

    def fold(self, rules: RuleSet) -> tuple[EngineGame, Sequence[folding.Effects]]:
        """The engine after the round's events and each event's effects
        (``folding.fold``): replayed with the effects the cache keeps, when it does, and
        those returned as they are (``CachedEffects``)."""
        return folding.fold(
            rules, self.events_as_pairs(), snapshot=self.snapshot, effects=self.effects
        )


def current_round(game: Game) -> CurrentRound:
    """The live events of the game's last round and the seat names.

    No query when the row's ``RoundCache`` is of this version; else two (events, seats).
    """
    state = state_of(game)
    snapshot = state.snapshot
    cache = state.current
    if cache is not None and cache.version == game.version and cache.round == snapshot["round"]:
        return CurrentRound(snapshot, list(cache.events), list(cache.players), cache.effects)
    events = list(
        Event.objects.filter(
            game=game, revoked_by__isnull=True, round_number__gte=snapshot["round"]
        ).order_by("position")
    )
    players = list(game.seats.order_by("number").values_list("name", flat=True))
    for _, seat, name, _ in sorted(state.substitutes, key=lambda sub: sub[0] or 0):
        players[seat] = name  # who sits the seat now (R38)
    return CurrentRound(snapshot, events, players)


# -- writes ----------------------------------------------------------------------------


def _db() -> BaseDatabaseWrapper:
    """This thread's connection to the default database: ``django.db.connection``
    without its proxy, which looks the connection up again (a thread-local read) on every
    attribute — ≈ 25 times a move, and every Django cursor wrapper given the proxy does
    it again on each statement (issue 14)."""
    return connections[DEFAULT_DB_ALIAS]


class _PreparingCursor(psycopg.Cursor[Any]):
    """psycopg's server-binding cursor that prepares each statement it runs (``prepare``).

    Django's cursors bind parameters on the client, so PostgreSQL parses and plans every
    statement anew; a move's few statements are the same text every time, and prepared
    once per connection they cost the server about half (``bench/ANALYSIS.md``). Django
    leaves psycopg's preparing off for the sake of poolers in transaction mode; the
    settings turn it on for PostgreSQL (``prepare_threshold``, unless
    ``DATABASE_PREPARED_STATEMENTS=false``), and then only these cursors prepare: Django's
    own bind on the client, which never does. With it off, these statements are sent
    unprepared, as before.
    """

    def execute(  # type: ignore[override]
        self, query: Any, params: Any = None, *, prepare: bool | None = None, binary: Any = None
    ) -> _PreparingCursor:
        super().execute(query, params, prepare=True if prepare is None else prepare, binary=binary)
        return self


class _KeptCursorWrapper(CursorWrapper):
    """Django's cursor wrapper around the connection's kept cursor, which leaving the
    ``with`` block does not close (``_prepared_cursor``)."""

    def __exit__(self, *exc: object) -> None:
        return None


class _PreparedDebugWrapper(CursorDebugWrapper):
    """Django's query log for a server-binding cursor: the statement as written (``%s``
    placeholders), since Django can rebuild only a client-bound one with its values."""

    def __exit__(self, *exc: object) -> None:
        return None

    def execute(self, sql: Any, params: Any = None) -> Any:
        with self.debug_sql(sql, params, use_last_executed_query=False):
            return CursorWrapper.execute(self, sql, params)


_KEPT_CURSOR = "_domeng_prepared_cursor"


def _prepared_cursor(db: BaseDatabaseWrapper) -> Any:
    """A cursor for this module's statements on PostgreSQL: prepared on the server, and
    wrapped as Django wraps its own (query logging, ``execute_wrapper``, error mapping).

    One such cursor is kept on each database connection and used again (a connection
    serves one thread at a time, pooled or not): making a cursor and its wrapper for each
    statement was ≈ 1.5 % of a move's CPU (issue 14). Leaving the ``with`` block leaves
    it open; it goes with its connection. ``db``: the caller's ``_db()``."""
    db.ensure_connection()
    db.validate_thread_sharing()
    raw_connection = db.connection
    raw = getattr(raw_connection, _KEPT_CURSOR, None)
    if raw is None or raw.closed:
        raw = _PreparingCursor(raw_connection)
        setattr(raw_connection, _KEPT_CURSOR, raw)
    wrapper = _PreparedDebugWrapper if db.queries_logged else _KeptCursorWrapper
    return wrapper(raw, db)  # as Django's make_cursor / make_debug_cursor do


@cache
def _columns(model: type[models.Model], alias: str) -> str:
    """``alias."column", …`` of every concrete column of ``model`` (PostgreSQL's quoting);
    a ``json`` column as its text, a date and time as its microseconds since 1970 UTC,
    which ``_instance`` turns back (``_loads``, ``_from_epoch``)."""
    kinds = _layout(model)[1]
    return ", ".join(
        f'{alias}."{f.column}"::text'
        if kind is _JSON
        else f'(extract(epoch from {alias}."{f.column}") * 1000000)::bigint'
        if kind is _DATETIME
        else f'{alias}."{f.column}"'
        for f, kind in zip(model._meta.concrete_fields, kinds, strict=True)
    )


# How ``_instance`` turns a raw column into its Python value (``_layout``).
_RAW, _JSON, _DATETIME = "raw", "json", "datetime"
# Django's loader of ``timestamptz`` (``BaseTzLoader``) subclasses psycopg's pure-Python
# one: ≈ 25 µs a value, most of reading a long game's 15,000 events (issue 29). Integer
# microseconds are exact, and make the same aware ``datetime`` in UTC.
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _from_epoch(microseconds: int) -> datetime:
    return _EPOCH + timedelta(microseconds=microseconds)


@cache
def _layout(model: type[models.Model]) -> tuple[list[str], tuple[str, ...]]:
    """``model``'s concrete columns as ``from_db`` takes them, and how each is read: JSON,
    a date and time (with ``USE_TZ``: Django's connection to PostgreSQL reads them in
    UTC), or as psycopg gives it."""
    fields = model._meta.concrete_fields
    return [f.attname for f in fields], tuple(
        _JSON
        if isinstance(f, models.JSONField)
        else _DATETIME
        if isinstance(f, models.DateTimeField) and settings.USE_TZ
        else _RAW
        for f in fields
    )


def _instances(model: type[_M], rows: Sequence[Sequence[Any]]) -> list[_M]:
    """A model instance for each of ``rows``, the concrete columns' raw values (``_columns``),
    as the ORM would build it on PostgreSQL (psycopg gives every type but JSON and dates its
    Python form; JSON comes as text, a date and time as microseconds).

    ``Model.from_db`` with every field is ``Model.__init__``, which sets each attribute and
    sends ``pre_init`` and ``post_init``; with nobody listening to those for ``model``
    (looked up once for all ``rows``: a long game's 15,000 events, issue 29), the attributes
    are set directly (a move builds two such rows: ≈ 2 % of its CPU, issue 14). Equal to
    ``from_db``'s instance in every field and in its ``_state`` (tested)."""
    names, kinds = _layout(model)
    if pre_init.has_listeners(model) or post_init.has_listeners(model):
        return [model.from_db(DEFAULT_DB_ALIAS, names, _converted(kinds, row)) for row in rows]
    instances = []
    for values in rows:
        instance = model.__new__(model)
        state = instance._state = ModelState()
        state.adding = False
        state.db = DEFAULT_DB_ALIAS
        instance.__dict__.update(zip(names, _converted(kinds, values), strict=True))
        instances.append(instance)
    return instances


def _converted(kinds: tuple[str, ...], values: Sequence[Any]) -> list[Any]:
    converted = list(values)
    json_columns, datetime_columns = _typed_columns(kinds)
    for index in json_columns:
        if isinstance(value := converted[index], str):
            converted[index] = _loads(value)
    for index in datetime_columns:
        if (value := converted[index]) is not None:
            converted[index] = _from_epoch(value)
    return converted


@cache
def _typed_columns(kinds: tuple[str, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Which columns of a ``_layout`` hold JSON, and which a date and time."""
    return (
        tuple(i for i, kind in enumerate(kinds) if kind is _JSON),
        tuple(i for i, kind in enumerate(kinds) if kind is _DATETIME),
    )


def _instance(model: type[_M], values: Sequence[Any]) -> _M:
    """The instance of one row (``_instances``)."""
    return _instances(model, (values,))[0]


def live_events(game: Game, since_round: int = 1, until_round: int | None = None) -> list[Event]:
    """The game's live events, in position order, as ``Event`` rows (issue 29): on
    PostgreSQL one prepared statement whose rows are built as ``_instance`` builds them,
    not through the ORM's iterator (a correction reads every live event of the game: at
    600 rounds ≈ 15,000 rows, and building them through ``Model.__init__`` was half its
    time); elsewhere the ORM's query. ``since_round``: only those of the rounds from it
    on (an undo refolds from its round); ``until_round``: and to it (a ruling's window,
    issue 29). The caller holds the game's lock."""
    db = _db()
    if db.vendor != "postgresql":
        events = game.events.filter(revoked_by__isnull=True, round_number__gte=since_round)
        if until_round is not None:
            events = events.filter(round_number__lte=until_round)
        return list(events.order_by("position"))
    params: list[Any] = [game.pk]
    if since_round > 1:
        params.append(since_round)
    if until_round is not None:
        params.append(until_round)
    sql = (
        f"SELECT {_columns(Event, 'e')} FROM {db.ops.quote_name(Event._meta.db_table)} e "
        "WHERE e.game_id = %s AND e.revoked_by_id IS NULL"
        + (" AND e.round_number >= %s" if since_round > 1 else "")
        + (" AND e.round_number <= %s" if until_round is not None else "")
        + " ORDER BY e.position"
    )
    with _prepared_cursor(db) as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return _instances(Event, rows)


class SettledText(NamedTuple):
    """One stored settled round (``SettledRound``) as its columns' text: ``compact`` when
    its ``record`` and ``result`` are orjson's compact text, the bytes an answer gives.
    A column not read is ``None``; ``after`` is the result's ``after`` when the result is
    not read (where a fold of the next round resumes)."""

    number: int
    record: str | None
    result: str | None
    compact: bool
    after: str | None = None


def settled_texts(game: Game, only: str | None = None) -> list[SettledText]:
    """Each stored settled round of ``game`` (``SettledRound``) in round order, its JSON as
    text, not parsed (issue 29: a 600-round game's 1,200 documents parsed were most of its
    result's read; a compact row's text is its part of the answer). ``only``: ``"record"``
    or ``"result"``, the one column read (the export reads its records and each result's
    ``after``). On PostgreSQL one prepared statement; elsewhere the ORM's query, the JSON
    written again as text (never ``compact``: the ORM wrote it)."""
    db = _db()
    if db.vendor != "postgresql":
        rows = SettledRound.objects.filter(game=game).order_by("number")
        return [
            SettledText(number, _json(record), _json(result), False)
            for number, record, result in rows.values_list("number", "record", "result")
        ]
    record = "NULL" if only == "result" else "s.record::text"
    result = "NULL" if only == "record" else "s.result::text"
    after = "(s.result -> 'after')::text" if only == "record" else "NULL"
    sql = (
        f"SELECT s.number, {record}, {result}, s.compact, {after} FROM "
        f"{db.ops.quote_name(SettledRound._meta.db_table)} s "
        "WHERE s.game_id = %s ORDER BY s.number"
    )
    with _prepared_cursor(db) as cursor:
        cursor.execute(sql, [game.pk])
        rows = cursor.fetchall()
    return [SettledText(*row) for row in rows]


def settled_loads(text: str) -> Any:
    """A ``SettledText``'s ``record`` or ``result`` as Python values (``json.loads``'s)."""
    return _loads(text)


def compact_json(value: Any) -> bytes | None:
    """``value`` as orjson's compact JSON, what the API's renderer writes for it (keys made
    text); ``None`` for what orjson does not encode (an integer beyond 64 bits)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        return None


def settled_insert(
    game: Game, rows: Sequence[tuple[int, dict[str, Any], dict[str, Any]]], *, skip_stored: bool
) -> None:
    """Store settled rounds ``(number, record, result)`` of ``game`` (``SettledRound``). On
    PostgreSQL their JSON is written as orjson's compact text and the row marked
    ``compact`` (its text is then its part of the result's and the export's answer, read
    without parsing, issue 29): ``skip_stored``, one ``INSERT … ON CONFLICT DO NOTHING``
    (a round just settled, which another request may have stored), else one ``COPY``
    (a correction of round 1 writes 600; raises ``IntegrityError`` for a round stored).
    Elsewhere ``bulk_create``, not compact."""
    db = _db()
    if db.vendor != "postgresql":
        objs = [SettledRound(game=game, number=n, record=r, result=s) for n, r, s in rows]
        SettledRound.objects.bulk_create(objs, ignore_conflicts=skip_stored)
        return
    encoded: list[tuple[Any, int, str, str, bool]] = []
    for number, record, result in rows:
        record_text, result_text = compact_json(record), compact_json(result)
        compact = record_text is not None and result_text is not None
        encoded.append(
            (
                game.pk,
                number,
                record_text.decode() if record_text is not None else _json(record),
                result_text.decode() if result_text is not None else _json(result),
                compact,
            )
        )
    quote = db.ops.quote_name
    columns = ", ".join(
        quote(f.column)
        for name in ("game", "number", "record", "result", "compact")
        if isinstance(f := SettledRound._meta.get_field(name), models.Field)
    )
    table = quote(SettledRound._meta.db_table)
    with db.wrap_database_errors, db.cursor() as cursor:
        if skip_stored:
            values = ", ".join(["(%s, %s, %s::json, %s::json, %s)"] * len(encoded))
            cursor.execute(
                f"INSERT INTO {table} ({columns}) VALUES {values} ON CONFLICT DO NOTHING",
                [value for row in encoded for value in row],
            )
            return
        with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
            for row in encoded:
                copy.write_row(row)


def lock(game_id: Any) -> Game:
    """The game row, locked until the transaction ends (serialises writes to one game).

    Raises ``Game.DoesNotExist``. On PostgreSQL one prepared statement, no query compiled.
    """
    db = _db()
    if db.vendor != "postgresql":
        return Game.objects.select_for_update().get(pk=game_id)
    pk = Game._meta.pk.to_python(game_id)  # type: ignore[union-attr]
    sql = (
        f"SELECT {_columns(Game, 'g')} FROM {db.ops.quote_name(Game._meta.db_table)} g "
        "WHERE g.id = %s FOR UPDATE"
    )
    with _prepared_cursor(db) as cursor:
        cursor.execute(sql, [pk])
        row = cursor.fetchone()
    if row is None:
        raise Game.DoesNotExist("Game matching query does not exist.")
    return _instance(Game, row)


def lock_games(game_ids: Sequence[Any]) -> None:
    """Lock the rows of games ``game_ids`` until the transaction ends, in id order (two
    writers that lock several games never wait for each other in a circle): a league
    write that touches every game a player sat (a merge)."""
    list(Game.objects.select_for_update().filter(pk__in=list(game_ids)).order_by("pk").values("pk"))


def live_token(key_hash: str) -> TableToken | None:
    """The live (unrevoked) table token whose key hashes to ``key_hash``, with its game
    (``token.game`` costs no further query), or ``None``. One query."""
    db = _db()
    if db.vendor != "postgresql":
        return (
            TableToken.objects.filter(key_hash=key_hash, revoked_at__isnull=True)
            .select_related("game")
            .first()
        )
    quote = db.ops.quote_name
    sql = (
        f"SELECT {_columns(TableToken, 't')}, {_columns(Game, 'g')} "
        f"FROM {quote(TableToken._meta.db_table)} t "
        f"JOIN {quote(Game._meta.db_table)} g ON g.id = t.game_id "
        "WHERE t.key_hash = %s AND t.revoked_at IS NULL"
    )
    with _prepared_cursor(db) as cursor:
        cursor.execute(sql, [key_hash])
        row = cursor.fetchone()  # key_hash is unique
    if row is None:
        return None
    width = len(TableToken._meta.concrete_fields)
    token = _instance(TableToken, row[:width])
    TableToken.game.field.set_cached_value(token, _instance(Game, row[width:]))
    return token


def live_token_window(token_id: int) -> tuple[int, datetime | None] | None:
    """The probe window (R31) of table token ``token_id`` as it is now: ``(probes,
    probes_until)``, or ``None`` if it was revoked (or is gone). One query (prepared on
    PostgreSQL): the locked path reads it again under the game's lock."""
    db = _db()
    if db.vendor != "postgresql":
        return (
            TableToken.objects.filter(pk=token_id, revoked_at__isnull=True)
            .values_list("probes", "probes_until")
            .first()
        )
    sql = (
        f"SELECT t.probes, t.probes_until FROM "
        f"{db.ops.quote_name(TableToken._meta.db_table)} t "
        "WHERE t.id = %s AND t.revoked_at IS NULL"
    )
    with _prepared_cursor(db) as cursor:
        cursor.execute(sql, [token_id])
        row = cursor.fetchone()
    return None if row is None else (row[0], row[1])


_APPEND_SQL = """
WITH new_event AS (
    INSERT INTO {event} (game_id, position, kind, payload, round_number, session_id,
                         entered_by, created_at, revoked_by_id)
    VALUES (%s, %s, %s, %s::jsonb, %s, %s, %s, %s, NULL)
    RETURNING id
)
UPDATE {game} SET version = %s, state = %s::json WHERE id = %s
RETURNING (SELECT id FROM new_event)
"""

# The fast path's compare-and-set: the game moves on only from ``expected_version`` (and
# only while open); the event and the idempotent answer are inserted only if it did. One
# statement, so one transaction even in autocommit; a second answer under the same
# ``Idempotency-Key`` violates its unique constraint and aborts the whole statement.
_APPEND_AT_VERSION_SQL = """
WITH moved AS (
    UPDATE {game} SET version = %s, state = %s::json
    WHERE id = %s AND version = %s AND revocations = %s AND status = %s
    RETURNING id
){sitting}, new_event AS (
    INSERT INTO {event} (game_id, position, kind, payload, round_number, session_id,
                         entered_by, created_at, revoked_by_id)
    SELECT id, %s::int, %s::varchar, %s::jsonb, %s::int, %s::bigint, %s::varchar,
           %s::timestamptz, NULL::bigint FROM moved
    RETURNING id
){remember}
SELECT id FROM new_event
"""

# A sitting's first move opens it in the same statement (R27), with the id reserved for it
# (``reserve_sitting_id``): the state written with the game names it. Another sitting
# opened meanwhile moved the version on (nothing is written) or violates one of the
# sittings' unique constraints (the whole statement is undone).
_SITTING_SQL = """, opened AS (
    INSERT INTO {session} (id, game_id, number, started_at, ended_at)
    SELECT %s::bigint, id, %s::int, %s::timestamptz, NULL::timestamptz FROM moved
)"""

_REMEMBER_SQL = """, remembered AS (
    INSERT INTO {record} (scope, key, fingerprint, outcome, status_code, body, created_at)
    SELECT %s::varchar, %s::varchar, %s::varchar, %s::varchar, NULL::int, %s::json,
           %s::timestamptz
    FROM moved
)"""


@dataclass(frozen=True, slots=True)
class Sitting:
    """A sitting to open with a move (R27): ``GameSession``'s reserved id, its number
    (one more than ``GameState.sittings``) and when it starts (the move's time)."""

    id: int
    number: int
    started_at: datetime


def reserve_sitting_id() -> int | None:
    """A new sitting's id, taken from its sequence before its row is written, so that a
    sitting's first move can be stored in one statement with it (``append_event``'s
    ``opens``). ``None`` where that is not done (SQLite: the locked path opens it). An id
    reserved but not used leaves a gap, as a rolled-back insert does."""
    db = _db()
    if db.vendor != "postgresql":
        return None
    sql = "SELECT nextval(pg_get_serial_sequence(%s, 'id'))"
    with _prepared_cursor(db) as cursor:
        cursor.execute(sql, [GameSession._meta.db_table])
        row = cursor.fetchone()
    assert row is not None
    return int(row[0])


@dataclass(frozen=True, slots=True)
class Answer:
    """An idempotent outcome to store with the event: ``IdempotencyRecord``'s fields
    (``outcome``: the result's name, ``body``: the result as it keeps itself)."""

    scope: str
    key: str
    fingerprint: str
    outcome: str
    body: dict[str, Any]


def append_event(
    game: Game,
    *,
    position: int,
    kind: str,
    payload: dict[str, Any],
    round_number: int,
    session_id: int | None,
    entered_by: str,
    state: GameState,
    expected_version: int | None = None,
    answer: Callable[[Event], Answer | None] | None = None,
    opens: Sitting | None = None,
) -> Event | None:
    """Store an accepted event at ``position`` and the game at its next version and ``state``.

    ``state`` is the game's state after the event (its ``current`` cache, if any, made
    for the next version). Returns the stored ``Event``.

    Without ``expected_version`` the caller holds the game's lock (``lock``) in the
    current transaction. With it, no lock: the write is a compare-and-set — the game
    moves on only if it is still open at ``expected_version`` and no table token was
    revoked since it was read (``Game.revocations``); else nothing is written,
    ``game`` is left as it was and the answer is ``None`` (the caller then takes the
    locked path). ``answer(event)``, called once the game row holds the new version and
    state, gives the idempotent answer to store in the same statement (``None``: none);
    if its key was stored meanwhile, nothing is written either (``None``).

    ``opens`` (with ``expected_version``, on PostgreSQL; ``session_id`` is its id and
    ``state`` names it as the open sitting): the sitting this event opens (R27), inserted
    in the same statement; if it cannot be (another sitting was opened meanwhile),
    nothing is written (``None``).
    """
    assert opens is None or (expected_version is not None and session_id == opens.id)
    event = new_event(
        game,
        position=position,
        kind=kind,
        payload=payload,
        round_number=round_number,
        session_id=session_id,
        entered_by=entered_by,
        created_at=timezone.now(),
    )
    before = (game.version, game.state, getattr(game, _STATE_ATTRIBUTE, None))
    game.version += 1
    set_state(game, state)
    remembered = answer(event) if answer is not None else None
    if expected_version is None:
        assert remembered is None, "the locked path stores its answer itself"
        _append_locked(game, event)
        return event
    if _append_at_version(game, event, expected_version, remembered, opens):
        return event
    game.version, game.state = before[0], before[1]
    if before[2] is not None:
        setattr(game, _STATE_ATTRIBUTE, before[2])
    return None


def new_event(game: Game, **fields: Any) -> Event:
    """``Event(game=game, **fields)``, unsaved: every other field its default.

    ``Model.__init__`` with keyword arguments (a descriptor set for each, ``pre_init`` and
    ``post_init`` sent) was ≈ 2 % of a move's CPU (issue 14); with nobody listening to
    those signals for ``Event``, the attributes are set directly, as ``_instance`` does
    for a row read. Equal to ``Event(game=game, **fields)`` in every field, in its
    ``_state`` and in its cached game (tested)."""
    if pre_init.has_listeners(Event) or post_init.has_listeners(Event):
        return Event(game=game, **fields)
    event = Event.__new__(Event)
    state = event._state = ModelState()
    state.adding = True
    state.db = game._state.db or DEFAULT_DB_ALIAS  # as setting ``game`` sets it (its router)
    event.__dict__.update(dict.fromkeys(_layout(Event)[0]))  # the id, ``revoked_by_id``…
    event.__dict__.update(fields, game_id=game.pk)
    Event.game.field.set_cached_value(event, game)
    return event


def _append_locked(game: Game, event: Event) -> None:
    db = _db()
    if db.vendor != "postgresql":
        event.save(force_insert=True)
        game.save(update_fields=["version", "state"])
        return
    sql = _APPEND_SQL.format(
        event=db.ops.quote_name(Event._meta.db_table),
        game=db.ops.quote_name(Game._meta.db_table),
    )
    with _prepared_cursor(db) as cursor:
        cursor.execute(
            sql,
            [game.pk, *_event_values(event), game.version, _json(game.state), game.pk],
        )
        row = cursor.fetchone()
    assert row is not None  # the locked row exists
    _stored(event, row[0])


def _append_at_version(
    game: Game, event: Event, expected_version: int, answer: Answer | None, opens: Sitting | None
) -> bool:
    """The compare-and-set write of ``append_event``: whether it was applied."""
    db = _db()
    if db.vendor != "postgresql":
        assert opens is None, "reserve_sitting_id reserves none here"
        try:
            with transaction.atomic():
                moved = Game.objects.filter(
                    pk=game.pk,
                    version=expected_version,
                    revocations=game.revocations,
                    status=Game.Status.OPEN,
                ).update(version=game.version, state=game.state)
                if not moved:
                    return False
                event.save(force_insert=True)
                if answer is not None:
                    IdempotencyRecord.objects.create(
                        scope=answer.scope,
                        key=answer.key,
                        fingerprint=answer.fingerprint,
                        outcome=answer.outcome,
                        body=answer.body,
                    )
        except IntegrityError:  # the key was stored meanwhile: its retry replays it
            return False
        return True
    quote = db.ops.quote_name
    params: list[Any] = [
        game.version,
        _json(game.state),
        game.pk,
        expected_version,
        game.revocations,
        Game.Status.OPEN.value,
    ]
    sitting = ""
    if opens is not None:
        sitting = _SITTING_SQL.format(session=quote(GameSession._meta.db_table))
        params += [opens.id, opens.number, opens.started_at]
    params += _event_values(event)
    remember = ""
    if answer is not None:
        remember = _REMEMBER_SQL.format(record=quote(IdempotencyRecord._meta.db_table))
        params += [
            answer.scope,
            answer.key,
            answer.fingerprint,
            answer.outcome,
            _json(answer.body),
            event.created_at,
        ]
    sql = _APPEND_AT_VERSION_SQL.format(
        game=quote(Game._meta.db_table),
        event=quote(Event._meta.db_table),
        sitting=sitting,
        remember=remember,
    )
    try:
        # In a transaction (a test's, a caller's) a savepoint keeps a refused key's error
        # from aborting it; in autocommit the one statement is its own transaction.
        with transaction.atomic() if db.in_atomic_block else _no_block():
            with _prepared_cursor(db) as cursor:
                cursor.execute(sql, params)
                row = cursor.fetchone()
    except IntegrityError:  # the key was stored, or a sitting opened, meanwhile
        return False
    if row is None:  # the game moved on (or closed) since it was read
        return False
    _stored(event, row[0])
    return True


# Each ASCII digit made a 9 and every other byte a space: 19 nines in a row are possibly
# an integer beyond 64 bits, which orjson would read as a float. (A translation and a
# substring search: 3 µs on a game's 2.4 KB state, where ``re.search(r"\d{19}")`` took 24.)
_DIGITS_NINE = bytes(0x39 if 0x30 <= byte <= 0x39 else 0x20 for byte in range(256))
_LONG_DIGITS = b"9" * 19


def _loads(text: str) -> Any:
    """A JSON column's text as Python values, as ``json.loads`` reads it: orjson, except
    for text that may hold an integer beyond 64 bits (orjson makes it a float)."""
    data = text.encode()
    if _LONG_DIGITS in data.translate(_DIGITS_NINE):
        return json.loads(text)
    return orjson.loads(data)


def _json(value: Any) -> str:
    """``value`` as JSON text for a ``%s::json`` or ``%s::jsonb`` parameter. orjson: the
    state is written on every move, and the standard library's encoder took ~5 % of a
    move's CPU; integer keys become strings, as ``json.dumps`` makes them. What orjson
    cannot encode (an integer beyond 64 bits, which the API refuses but a page's form or
    an import may still carry) is written by the standard library, so stored data never
    fails to be written again."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(value)


@contextmanager
def _no_block() -> Iterator[None]:
    yield


def _event_values(event: Event) -> list[Any]:
    """The new event's columns in the order the append statements list them."""
    return [
        event.position,
        event.kind,
        _json(event.payload),
        event.round_number,
        event.session_id,
        event.entered_by,
        event.created_at,
    ]


def _stored(event: Event, pk: int) -> None:
    event.pk = pk
    event._state.adding = False
    event._state.db = DEFAULT_DB_ALIAS
