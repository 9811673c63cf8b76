"""Writes to stored games. Every write to one game is serialised by a row lock.

Each service locks the game row (``SELECT … FOR UPDATE`` on PostgreSQL),
checks the client's version and ``Idempotency-Key``, folds the new event
through the rules core and stores it — the event, the refused attempt, the
cached fold and the idempotent answer all in one transaction.

Services take and return domain values and know nothing of HTTP: a write returns
what it stored and caused (``Submitted``, ``Undone``, ``SessionChanged``, …) or,
for a retried ``Idempotency-Key``, the answer stored the first time
(``referee.idempotency.Replay``). The API renders a result as JSON, status and
``ETag``; the phone pages as HTML; both from the same result, folded once.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.core.cache import cache
from django.db import transaction
from django.db.models import Max, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext

from referee import conditional, folding, lockouts, signals, store
from referee.engine import Game as EngineGame
from referee.engine import RefereeError
from referee.engine.errors import RecordInvalid, ngettext_noop
from referee.engine.records import RECORD_FORMAT, Record, export_record, replay
from referee.engine.tiles import SEATS
from referee.exceptions import (
    GameClosed,
    JoinCodeInvalid,
    NothingToUndo,
    OrganiserOnly,
    PreconditionFailed,
    PreconditionRequired,
    ProbeLimited,
    SeatIsComputer,
    SeatNotAllowed,
    SeatTaken,
    SessionState,
    TokenNotFound,
    TokenRevoked,
    VersionMismatch,
)
from referee.idempotency import (
    Idempotency,
    Replay,
    remember,
    remember_refusal,
    replay_of,
    scope_of,
)
from referee.league import league
from referee.lockouts import JoinClient
from referee.models import (
    JOIN_CLIENT_MAX_LENGTH,
    Correction,
    Event,
    Game,
    GameSession,
    RefusedEvent,
    Seat,
    TableAlert,
    TableToken,
    hash_token,
)
from referee.selectors import game_state, game_state_for
from referee.store import GameState, rules_of, set_state, state_of

if TYPE_CHECKING:
    from referee.corrections import Corrected

# A seat stores its player's name in at most this many characters (``Seat.name``).
PLAYER_NAME_MAX_LENGTH = 80

AFTER_EVENT_HOOKS: list[Callable[[Game, Actor], bool]] = []
"""Called once an event ``event_submit`` accepted is committed (not for an idempotent
replay) with the game row and who entered it; a hook that wrote to the game returns True.
``referee.computer`` registers the computer seats' turn here (R39): this layer never
imports it."""


@dataclass(frozen=True)
class Actor:
    """Who is writing: an organiser (Django user) or a phone's table token."""

    user: AbstractBaseUser | AnonymousUser | None = None
    token: TableToken | None = None

    @property
    def label(self) -> str:
        if self.token is not None:
            return self.token.actor
        if self.user is not None and self.user.is_authenticated:
            return f"user {self.user.get_username()}"
        return "anonymous"

    @property
    def seat(self) -> int | None:
        """The seat this phone is joined to, or ``None`` (organiser, scorekeeper)."""
        return self.token.seat if self.token is not None else None

    def check_table_wide(self) -> None:
        """Raise ``seat_not_allowed`` (403) for a phone bound to one seat.

        Sittings and releasing a seat are the organiser's or the table's
        scorekeeper's business, not one seat's (closing the game is the
        organiser's alone).
        """
        if self.seat is not None:
            raise SeatNotAllowed(_table_wide_detail())

    def check_seat(self, seat: object) -> None:
        """Raise ``seat_not_allowed`` (403) if a seat-bound phone enters for another seat.

        A ``seat`` that is not a whole number at all is left to the rules core, which
        refuses it as in a record (``record_invalid``, R3).
        """
        if self.seat is not None and _is_whole_number(seat) and seat != self.seat:
            raise SeatNotAllowed()

    def may_declare(self, seat: object) -> bool:
        """Only a phone joined to ``seat`` declares its hand (R31); a ``seat`` that is not a
        whole number is left to the rules core, as in ``check_seat``."""
        if self.token is None or self.seat is None:
            return False
        return not _is_whole_number(seat) or seat == self.seat


def _is_whole_number(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class Precondition:
    """The versions a write may apply at, checked under the game's lock.

    ``version``: the one version the client saw — a body field (``expected_version``,
    the phone form's ``version``: 409 when stale), or with ``from_header`` an
    ``If-Match`` (412). ``conditions``: the request's ``If-Match`` (strong) and
    ``If-None-Match`` (weak) as ``referee.conditional`` parsed them. A failed
    header condition is 412, checked before ``version``.
    """

    version: int | None = None
    from_header: bool = False
    conditions: conditional.Conditions | None = None

    def headers_admit(self, version: int) -> bool:
        """Whether the conditional headers let a write proceed at ``version``."""
        if self.conditions is not None and not self.conditions.admits(version):
            return False
        return not (self.from_header and self.version is not None and self.version != version)

    @property
    def names_a_version_by_header(self) -> bool:
        """Whether the write came with an ``If-Match`` (parsed, or as ``from_header``)."""
        if self.conditions is not None and self.conditions.if_match is not None:
            return True
        return self.from_header and self.version is not None

    def admits(self, version: int) -> bool:
        """Whether a write may proceed at ``version`` (headers and body alike)."""
        return self.headers_admit(version) and self.version in (None, version)


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

    game: Game
    event: Event
    effect: folding.Effects
    state: dict[str, Any]


@dataclass(frozen=True)
class Undone:
    """The game's last live event, revoked by ``event_undo``.

    ``game``: the game row at its new version; ``correction``: the stored ``undo``
    ``Correction`` (author, time, reason); ``undone``: the revoked ``Event`` (kept,
    never deleted); ``state``: the game's state, refolded, as the one who undid it sees it.
    """

    game: Game
    correction: Correction
    undone: Event
    state: dict[str, Any]


@dataclass(frozen=True)
class Closed:
    """A game just closed (``game_close``): the game at its new version."""

    game: Game


@dataclass(frozen=True)
class SessionChanged:
    """A sitting started or ended (R27): ``game`` at its new version and the ``session``."""

    game: Game
    session: GameSession


# -- games -----------------------------------------------------------------------------


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
    are stored as events. Raises the record's first ``RefereeError``;
    nothing is stored then.
    """
    parsed = Record.parse(record)
    replay(parsed)  # the whole record must be possible before anything is stored
    folding.check_storable(record)
    game = game_create(
        players=players if players is not None else list(parsed.players),
        rules=parsed.rules.to_dict(),
        created_by=created_by,
        club=club,
        season=season,
    )
    entries = folding.record_entries(parsed.rounds)
    engine, effects = folding.fold(parsed.rules, [(e.kind, e.payload) for e in entries])
    actor = Actor(user=created_by).label
    now = timezone.now()
    Event.objects.bulk_create(
        Event(
            game=game,
            position=position,
            kind=entry.kind,
            payload=entry.payload,
            round_number=effect.round,
            entered_by=f"import by {actor}",
            created_at=played_at or now,
        )
        for position, (entry, effect) in enumerate(zip(entries, effects, strict=True))
    )
    game.version = len(entries)
    snapshot = folding.advance_snapshot(engine, folding.initial_snapshot(parsed.rules))
    substitutes = tuple(
        (e.payload["round"], e.payload["seat"], e.payload["name"], None)
        for e in entries
        if e.kind == "substitute"
    )
    created = state_of(game).current
    assert created is not None  # game_create caches the seats' names
    players = list(created.players)
    for _, seat, name, _ in sorted(substitutes, key=lambda sub: sub[0] or 0):
        players[seat] = name  # who sits the seat now (R38)
    kept = [
        (store.CachedEvent(position, e.kind, e.payload, effect.round, f"import by {actor}"), effect)
        for position, (e, effect) in enumerate(zip(entries, effects, strict=True))
        if effect.round >= snapshot["round"]
    ]
    current = store.RoundCache(
        game.version,
        snapshot["round"],
        tuple(event for event, _ in kept),
        tuple(players),
        tuple(effect for _, effect in kept),
    )
    set_state(
        game,
        GameState(
            snapshot=snapshot,
            next_position=len(entries),
            sittings=0,  # an imported record's rounds belong to no sitting
            substitutes=substitutes,
            current=current,
        ),
    )
    game.save(update_fields=["version", "state"])
    signals.rounds_changed.send(Game, game=game, engine=engine, played_at=played_at)
    return game


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


def game_export(game: Game) -> dict[str, Any]:
    """The game as a ``domeng-record/1`` record: every live event, in order.

    Declared hands of a round still in play are left out: no one may read
    them before the round is over (R31).
    """
    engine, _ = _full_fold(game)
    record = export_record(engine, game.players)
    if engine.rounds and not engine.rounds[-1].round.is_over():
        record["rounds"][-1].pop("hands", None)
    return record


# -- table tokens ----------------------------------------------------------------------


def normalise_join_code(text: str) -> str:
    """``k7qh-2mxp 9r`` → ``K7QH2MXP9R``: a join code as typed, read aloud or scanned."""
    return "".join(ch for ch in text.upper() if ch.isalnum())


def join_code_check(*, join_code: str, client: str | JoinClient) -> Game:
    """The open game named by ``join_code``; every join (API and web form) goes through here.

    ``client`` is who tries it (``referee.lockouts.JoinClient``: its address as DRF's
    throttle ident gives it, honouring ``NUM_PROXIES``, and its device cookie; a bare
    address is a client without a cookie). Only a wrong code counts against it; after
    ``settings.JOIN_LOCKOUT_FAILURES`` of them from one phone (or
    ``JOIN_LOCKOUT_ADDRESS_FAILURES`` from its whole address) within
    ``settings.JOIN_LOCKOUT_SECONDS`` of the first, every attempt is refused with
    ``join_locked_out`` (429, ``retry_after``: the seconds left) until that window ends
    or an organiser lifts it. Raises ``join_code_invalid`` (404) for a wrong code.
    """
    if isinstance(client, str):
        client = JoinClient(address=client)
    lockouts.join_lockout_check(client)
    game = Game.objects.filter(
        join_code=normalise_join_code(join_code), status=Game.Status.OPEN
    ).first()
    if game is None:
        lockouts.join_failure_record(client)
        raise JoinCodeInvalid()
    return game


def table_join(
    *, join_code: str, seat: int | None = None, label: str = "", client: str | JoinClient = ""
) -> tuple[str, TableToken]:
    """Exchange a game's join code for a table token (the key is returned once, never stored).

    ``seat`` 0–4 binds the phone to one seat, which no other phone may then claim;
    ``None`` is a scorekeeper for the whole table. Raises ``join_code_invalid`` (404) and
    ``join_locked_out`` (429) as ``join_code_check`` does, and ``seat_taken`` (409) for a
    seat another phone holds (until it is released or that phone leaves), and
    ``seat_is_computer`` (409) for a computer seat (R39).

    The new token starts with the probe window (R31) of the game's tokens that the same
    client joined before, live or not (``_probe_siblings``): joining again, joining a
    second token, leaving or being released and joining again keeps the count, and a
    ``probe_limited`` client is still limited on its new token until that window ends.
    """
    if isinstance(client, str):
        client = JoinClient(address=client)
    game = join_code_check(join_code=join_code, client=client)
    if seat is not None and str(seat) in state_of(game).computer_seats:
        raise SeatIsComputer()  # R39: no phone reads the computer's hand
    key = secrets.token_urlsafe(32)
    with transaction.atomic():
        _lock(game.pk)  # two phones claiming one seat at once: one of them gets it
        if seat is not None and game.tokens.filter(seat=seat, revoked_at__isnull=True).exists():
            raise SeatTaken()
        token = TableToken(
            game=game,
            seat=seat,
            key_hash=hash_token(key),
            label=label,
            client_device=client.device,
            client_issued=client.issued[:JOIN_CLIENT_MAX_LENGTH],
            client_address=client.address[:JOIN_CLIENT_MAX_LENGTH],
        )
        _inherit_probes(game, token)
        token.save()
    return key, token


def table_tokens(*, game: Game, actor: Actor) -> list[TableToken]:
    """The game's table tokens, live and revoked, oldest first (the organiser's only)."""
    _check_organiser(actor)
    return list(game.tokens.order_by("created_at", "id"))


@transaction.atomic
def token_revoke(*, game_id: Any, token_id: int, actor: Actor) -> TableToken:
    """Revoke one of the game's table tokens (the organiser's only): the phone loses the game
    at once and its seat is free. Raises ``organiser_only`` (403), ``token_not_found`` (404)."""
    _check_organiser(actor)
    game = _lock(game_id, actor)
    token = game.tokens.filter(pk=token_id, revoked_at__isnull=True).first()
    if token is None:
        raise TokenNotFound()
    _revoke(game, token)
    return token


@transaction.atomic
def seat_release(*, game_id: Any, seat: int, actor: Actor) -> TableToken:
    """Free ``seat`` for another phone: its token is revoked (the organiser's or the table's
    scorekeeper's). Raises ``seat_not_allowed`` (403) for a seat-bound phone,
    ``token_not_found`` (404) when no phone holds the seat."""
    actor.check_table_wide()
    game = _lock(game_id, actor)
    token = game.tokens.filter(seat=seat, revoked_at__isnull=True).first()
    if token is None:
        raise TokenNotFound()
    _revoke(game, token)
    return token


@transaction.atomic
def table_leave(*, token: TableToken) -> None:
    """A phone leaves its table: its token is revoked and its seat, if any, is free."""
    game = _lock(token.game_id)
    live = game.tokens.filter(pk=token.pk, revoked_at__isnull=True).first()
    if live is not None:
        _revoke(game, live)


def _revoke(game: Game, token: TableToken) -> None:
    """Revoke ``token`` under ``game``'s lock and count it (``Game.revocations``): a move of
    that phone read before cannot land after, since the fast path's compare-and-set wants
    the count it read, and the locked path reads the token again. The version stays: the
    other phones' taps made on it still apply (QA)."""
    token.revoked_at = timezone.now()
    token.save(update_fields=["revoked_at"])
    game.revocations += 1
    game.save(update_fields=["revocations"])


def _check_organiser(actor: Actor) -> None:
    """Raise ``organiser_only`` (403) for a phone (the caller checked the game's access)."""
    if actor.token is not None or actor.user is None or not actor.user.is_authenticated:
        raise OrganiserOnly()


# -- probing declared hands (R31) ------------------------------------------------------


def _check_probe_limit(actor: Actor, game_id: Any = None) -> None:
    """Raise ``probe_limited`` (429, ``retry_after``) for a token whose client probed declared
    hands ``TABLE_PROBE_LIMIT`` times within ``TABLE_PROBE_SECONDS``, from this token or
    another it joined (R31; read from the token's row, which authenticating it loaded: no
    query, since ``_count_probe`` and ``table_join`` keep the client's window on each
    row). An organiser (a signed-in user, who may not read a declared hand either, R31) is
    counted per game in Django's cache: ``game_id``."""
    token = actor.token
    if token is None:
        if game_id is None or actor.user is None or not actor.user.is_authenticated:
            return
        window = cache.get(_organiser_probe_key(game_id, actor.user))
        now_ts = timezone.now().timestamp()
        if window and window["count"] >= settings.TABLE_PROBE_LIMIT and window["until"] > now_ts:
            raise ProbeLimited(
                gettext(
                    "Too many refused or undone moves against declared hands from this "
                    "organiser: try again later. The seats concerned have been told."
                ),
                retry_after=max(1, math.ceil(window["until"] - now_ts)),
            )
        return
    if token.probes < settings.TABLE_PROBE_LIMIT:
        return
    now = timezone.now()
    if token.probes_until is not None and token.probes_until > now:
        left = (token.probes_until - now).total_seconds()
        raise ProbeLimited(retry_after=max(1, math.ceil(left)))


def _probe_siblings(token: TableToken) -> QuerySet[TableToken]:
    """The tokens of ``token``'s game that share its probe window (R31): joined by the same
    client, live or revoked, ``token`` included once saved.

    The same client is the same device, wherever it joins from (a phone moving from the
    club's Wi-Fi to mobile data keeps its count): the signed device cookie a join sent, or
    the one its answer gave a join that sent none (``client_issued``), so a phone whose
    first join had no cookie and whose next one sends the cookie it got is one client
    (QA). A join without a device cookie (a script) is also told apart by its address,
    among the other joins without one. The address is deliberately not shared with the
    joins that sent a cookie: at a club every phone may reach the referee through one
    address (the Wi-Fi's NAT, a proxy), and a phone joining there must not start limited
    because another phone probed. The price: a client that throws away every cookie it
    is given and joins from new addresses starts a fresh count each time; it still stops
    at ``TABLE_PROBE_LIMIT`` per identity, and each time the organiser and the probed
    seats get an alert naming its token.
    A token with none of these (made without a join) keeps a window of its own.
    """
    device = token.client_device or token.client_issued
    same = Q(pk=token.pk) if token.pk is not None else Q(pk__in=[])
    if device:
        same |= Q(client_device=device) | Q(client_issued=device)
    if not token.client_device and token.client_address:
        same |= Q(client_device="", client_address=token.client_address)
    return TableToken.objects.filter(same, game_id=token.game_id)


def _inherit_probes(game: Game, token: TableToken) -> None:
    """Give a joining ``token`` (not saved yet, ``game``'s lock held) the live probe window
    of the tokens its client joined before (R31), if any: one query, at the join only."""
    window = (
        _probe_siblings(token)
        .filter(probes_until__gt=timezone.now())
        .order_by("-probes")
        .values_list("probes", "probes_until")
        .first()
    )
    if window is not None:
        token.probes, token.probes_until = window


def _organiser_probe_key(game_id: Any, user: Any) -> str:
    return f"referee-probes:{game_id}:{user.pk}"


def _count_organiser_probe(game: Game, actor: Actor) -> int:
    """Count an organiser's probe of ``game``'s declared hands (R31) in Django's cache, over
    a window of ``TABLE_PROBE_SECONDS`` from the first; the count so far."""
    key = _organiser_probe_key(game.pk, actor.user)
    now_ts = timezone.now().timestamp()
    window = cache.get(key)
    if not window or window["until"] <= now_ts:
        window = {"count": 0, "until": now_ts + settings.TABLE_PROBE_SECONDS}
    window["count"] += 1
    cache.set(key, window, max(1, math.ceil(window["until"] - now_ts)))
    return int(window["count"])


def _count_probe(game: Game, actor: Actor, kind: str, seats: list[int]) -> None:
    """Count a refusal against declared hands or an undo of another seat's move while that
    seat's hand is declared (the game's lock is held); at the limit, alert the organiser
    and the seats concerned. A phone counts on its token's row and on the rows of every
    token its client joined (``_probe_siblings``), so a second token or a new one joined
    later is limited with it; an organiser counts in the cache."""
    token = actor.token
    if not seats:
        return
    if token is None:
        if actor.user is None or not actor.user.is_authenticated:
            return
        count = _count_organiser_probe(game, actor)
    else:
        token.refresh_from_db(fields=["probes", "probes_until"])
        now = timezone.now()
        if token.probes_until is None or token.probes_until <= now:
            token.probes = 0
            token.probes_until = now + timedelta(seconds=settings.TABLE_PROBE_SECONDS)
        token.probes += 1
        # The same window on every token of the client (R31): the move path keeps reading
        # its own token's row only.
        _probe_siblings(token).update(probes=token.probes, probes_until=token.probes_until)
        count = token.probes
    if count == settings.TABLE_PROBE_LIMIT:
        TableAlert.objects.create(
            game=game,
            kind=kind,
            entered_by=actor.label,
            seats=sorted(set(seats)),
            count=count,
        )


def _declared_seats(events: list[Event], *, besides: int | None) -> list[int]:
    """The seats with a live declared hand among ``events``, other than ``besides``."""
    return [
        e.payload["seat"]
        for e in events
        if e.kind == Event.Kind.HAND and e.payload.get("seat") != besides
    ]


def _may_correct_hand(actor: Actor, hand: Event) -> bool:
    """A declared hand is undone or amended by the phone that declared it, or by the
    organiser through a logged correction (who never reads it before the round ends, R31)."""
    if actor.token is not None:
        return hand.entered_by == actor.label
    return actor.user is not None and actor.user.is_authenticated


# -- events ----------------------------------------------------------------------------


def event_submit(
    *,
    game_id: Any,
    kind: str,
    payload: dict[str, Any],
    actor: Actor,
    precondition: Precondition | None = None,
    idempotency: Idempotency[Submitted] | None = None,
    seen: Game | None = None,
) -> Submitted | Replay:
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
        raise SeatNotAllowed(_hand_detail())
    actor.check_seat(payload.get("seat"))
    try:
        _check_probe_limit(actor, game_id)
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
    with transaction.atomic():
        game = _lock(game_id, actor)
        if (replayed := replay_of(game, idempotency)) is not None:
            return replayed
        _check_probe_limit(actor, game_id)  # again, with the count read under the lock (R31)
        _check_open(game, precondition, actor)
        try:
            if folded is not None and folded.version == game.version:
                # The fast path judged this event at this very version: no second fold.
                current, engine, effects, effect = folded.as_tuple()
            else:
                current = store.current_round(game)
                engine, effects = current.fold(rules_of(game))
                effect = folding.apply_event(engine, kind, payload)
        except RefereeError as error:
            refused = error.with_names(game.players)
            _refusal_log(game, kind, payload, error, actor)
            if error.rule == "R31":
                _count_probe(
                    game,
                    actor,
                    TableAlert.Kind.REFUSALS,
                    _declared_seats(current.events, besides=actor.seat),
                )
            remember_refusal(game, idempotency, refused)  # a retry gets it, counted once
        if refused is None:
            session_id, session_number = _open_session(game)
            snapshot = folding.advance_snapshot(engine, current.snapshot)
            position = _next_position(game)
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
    if refused is not None:
        try:
            raise refused
        finally:
            # The error's traceback holds this frame: no local names the error, or the
            # two (and the request under them) would wait for the cyclic collector.
            refused = None
    return _after_event(submitted, actor)


def _after_event(submitted: Submitted, actor: Actor) -> Submitted:
    """An accepted event, once committed: the hooks' turn (e.g. a computer seat moves,
    R39), then the state as it stands after them."""
    game = submitted.game
    if any([hook(game, actor) for hook in AFTER_EVENT_HOOKS]):  # e.g. a computer moved (R39)
        game.refresh_from_db()
        state = game_state_for(game, viewer=actor.seat, viewer_label=actor.label)
        submitted = replace(submitted, state=state)
    return submitted


def _next_round_cache(
    version: int,
    snapshot: dict[str, Any],
    current: store.CurrentRound,
    effects: Sequence[folding.Effects],
    new: store.CachedEvent,
    effect: folding.Effects,
) -> store.RoundCache:
    """The round cache for ``version``, the game's version once ``new`` is stored: the
    live events from ``snapshot``'s round on (the round the next fold resumes at), with
    their effects (``effects``: the fold's of ``current``'s events; ``effect``: ``new``'s)."""
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
    idempotency: Idempotency[Submitted] | None,
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
    position = _next_position(game)
    new = store.CachedEvent(position, kind, payload, effect.round, actor.label)
    cache = _next_round_cache(read_version + 1, snapshot, current, effects, new, effect)
    answered: list[Submitted] = []

    def answer(event: Event) -> store.Answer | None:
        submitted = _submitted(game, actor, cache, engine, effect, event)
        answered.append(submitted)
        if idempotency is None:
            return None
        status, body = idempotency.render(submitted)
        return store.Answer(scope_of(game), idempotency.key, idempotency.fingerprint, status, body)

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
    idempotency: Idempotency[Undone] | None = None,
    reason: str = "",
) -> Undone | Replay:
    """Undo the game's last live event (it is revoked, never deleted) and refold.

    Returns the correction and the event it revoked (``Undone``), or the stored answer
    when ``idempotency``'s key was seen (``Replay``). An undo of a round's last move
    reopens that round until the next round's first move is entered. Raises
    ``nothing_to_undo``, ``game_closed``, ``version_mismatch`` / ``precondition_failed``.
    """
    with transaction.atomic():
        game = _lock(game_id, actor)
        if (replayed := replay_of(game, idempotency)) is not None:
            return replayed
        _check_open(game, precondition, actor)
        last = game.events.filter(revoked_by__isnull=True).order_by("-position").first()
        if last is None:
            raise NothingToUndo()
        if last.kind in folding.RULING_KINDS and actor.token is not None:
            raise OrganiserOnly()  # a ruling (R35, R36, R38) is the organiser's to take back
        actor.check_seat(last.payload.get("seat"))
        if last.kind == Event.Kind.HAND and not _may_correct_hand(actor, last):
            raise SeatNotAllowed(_hand_undo_detail())
        if last.kind == Event.Kind.MOVE and last.payload.get("seat") != actor.seat:
            # Undoing another seat's accepted move tells whether its declared hand held
            # the tile: a probe when that hand is declared (R31).
            _check_probe_limit(actor, game.pk)
            round_events = game.events.filter(
                revoked_by__isnull=True, round_number=last.round_number, kind=Event.Kind.HAND
            )
            seats = [e.payload.get("seat") for e in round_events]
            if last.payload.get("seat") in seats:
                _count_probe(game, actor, TableAlert.Kind.UNDOS, [last.payload["seat"]])
        correction = Correction.objects.create(
            game=game, kind=Correction.Kind.UNDO, entered_by=actor.label, reason=reason
        )
        last.revoked_by = correction
        last.save(update_fields=["revoked_by"])
        undone = Undone(game, correction, last, _after_correction(game, actor))
        remember(game, idempotency, undone)
    return undone


def event_amend(
    *,
    game_id: Any,
    position: int,
    payload: dict[str, Any],
    actor: Actor,
    precondition: Precondition | None = None,
    idempotency: Idempotency[Corrected] | None = None,
    reason: str = "",
) -> Corrected | Replay:
    """Replace an event; the game is judged again as a replay of its corrected record (R37).

    A phone amends an event of the current round only; an organiser any event
    of any round (``referee.corrections.event_amend_any``). If the
    replacement or any later event becomes impossible, the amendment is
    refused with that event's ``RefereeError`` and nothing changes. Raises
    ``event_not_amendable`` for an event that is not live (or, from a phone,
    not of the current round).
    """
    from referee import corrections  # corrections build on this module's helpers

    return corrections.event_amend_any(
        game_id=game_id,
        position=position,
        payload=payload,
        actor=actor,
        precondition=precondition,
        idempotency=idempotency,
        reason=reason,
    )


# -- sessions and closing --------------------------------------------------------------


@transaction.atomic
def session_start(
    *,
    game_id: Any,
    actor: Actor,
    precondition: Precondition | None = None,
    idempotency: Idempotency[SessionChanged] | None = None,
) -> SessionChanged | Replay:
    """Open a new sitting of the game (R27); an open one is ended first.

    Returns the game at its new version and the new sitting, or the stored answer when
    ``idempotency``'s key was seen (``Replay``: a retry opens no second sitting). Raises
    ``seat_not_allowed`` (403) for a seat's phone, ``game_closed``, ``version_mismatch`` /
    ``precondition_failed``.
    """
    game = _lock(game_id, actor)
    if (replayed := replay_of(game, idempotency)) is not None:
        return replayed
    actor.check_table_wide()
    _check_open(game, precondition, actor)
    GameSession.objects.filter(game=game, ended_at__isnull=True).update(ended_at=timezone.now())
    session = GameSession.objects.create(game=game, number=game.sessions.count() + 1)
    game.version += 1
    set_state(
        game,
        store.replace(
            state_of(game), session=session.number, session_id=session.pk, sittings=session.number
        ),
    )
    game.save(update_fields=["version", "state"])
    started = SessionChanged(game, session)
    remember(game, idempotency, started)
    return started


@transaction.atomic
def session_end(
    *,
    game_id: Any,
    actor: Actor,
    precondition: Precondition | None = None,
    idempotency: Idempotency[SessionChanged] | None = None,
) -> SessionChanged | Replay:
    """End the open sitting; stones, CAMAT and next leader wait for the next one (R27).

    Returns the game at its new version and the sitting ended, or a ``Replay`` as
    ``session_start``. Raises ``session_state`` (409) when no session is open, and as
    ``session_start``.
    """
    game = _lock(game_id, actor)
    if (replayed := replay_of(game, idempotency)) is not None:
        return replayed
    actor.check_table_wide()
    _check_open(game, precondition, actor)
    session = GameSession.objects.filter(game=game, ended_at__isnull=True).first()
    if session is None:
        raise SessionState()
    session.ended_at = timezone.now()
    session.save(update_fields=["ended_at"])
    game.version += 1
    set_state(game, store.replace(state_of(game), session=None, session_id=None))
    game.save(update_fields=["version", "state"])
    ended = SessionChanged(game, session)
    remember(game, idempotency, ended)
    return ended


@transaction.atomic
def game_close(
    *,
    game_id: Any,
    actor: Actor,
    precondition: Precondition | None = None,
    idempotency: Idempotency[Closed] | None = None,
) -> Closed | Replay:
    """Close the game: no more events; its record and result stay readable.

    The organiser's only, on the version they saw (``If-Match``). Returns the closed game
    (``Closed``), or the stored answer when ``idempotency``'s key was seen (``Replay``: a
    retried close gets its first answer, not ``game_closed``). Raises ``organiser_only``
    (403), ``precondition_required`` (428) without a version from ``If-Match``,
    ``precondition_failed`` (412) for a stale one, ``game_closed`` (409).
    """
    _check_organiser(actor)
    game = _lock(game_id, actor)
    if (replayed := replay_of(game, idempotency)) is not None:
        return replayed
    _check_open(game, precondition, actor)  # a failing If-Match/If-None-Match: 412 first
    if precondition is None or not precondition.names_a_version_by_header:
        raise PreconditionRequired()  # the version they saw, as If-Match
    now = timezone.now()
    GameSession.objects.filter(game=game, ended_at__isnull=True).update(ended_at=now)
    game.status = Game.Status.CLOSED
    game.closed_at = now
    game.version += 1
    set_state(game, store.replace(state_of(game), session=None, session_id=None))
    game.save(update_fields=["status", "closed_at", "version", "state"])
    closed = Closed(game)
    remember(game, idempotency, closed)
    return closed


# -- helpers ---------------------------------------------------------------------------

# A refused event's payload is kept for disputes, bounded: a string longer than this many
# characters, or a list longer than this many items, is cut (the log never grows by what
# a client chose to send).
REFUSED_TEXT_MAX = 64
REFUSED_ITEMS_MAX = 10


def bounded_payload(value: Any, *, depth: int = 0) -> Any:
    """``value`` with strings cut to ``REFUSED_TEXT_MAX`` characters (``…`` appended), lists
    and objects to ``REFUSED_ITEMS_MAX`` items, nesting to three levels."""
    if isinstance(value, str):
        return value if len(value) <= REFUSED_TEXT_MAX else value[:REFUSED_TEXT_MAX] + "…"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**18:
        return "…"  # beyond what jsonb keeps exactly, and no seat, pip sum or value anyway
    if depth >= 3 and isinstance(value, (list, dict)):
        return "…"
    if isinstance(value, list):
        return [bounded_payload(v, depth=depth + 1) for v in value[:REFUSED_ITEMS_MAX]]
    if isinstance(value, dict):
        items = list(value.items())[:REFUSED_ITEMS_MAX]
        return {bounded_payload(str(k)): bounded_payload(v, depth=depth + 1) for k, v in items}
    return value


def _refusal_log(
    game: Game, kind: str, payload: dict[str, Any], error: RefereeError, actor: Actor
) -> None:
    """Keep a refused event for disputes at the table: bounded payload, code, rule, detail."""
    RefusedEvent.objects.create(
        game=game,
        kind=kind,
        payload=bounded_payload(payload),
        code=error.code,
        rule=error.rule or "",
        detail=error.message[:500],
        entered_by=actor.label,
    )


def _next_position(game: Game) -> int:
    """The position of the game's next event: one past the last ever stored (live or revoked).

    ``game_create`` and ``game_import`` set ``state["next_position"]`` and each new event
    moves it on; a game stored before they did gets it from its events (never from the
    version, which sittings and corrections also move on).
    """
    if (position := state_of(game).next_position) is not None:
        return int(position)
    last = game.events.aggregate(last=Max("position"))["last"]
    return 0 if last is None else last + 1


def _lock(game_id: Any, actor: Actor | None = None) -> Game:
    """The game row, locked until the transaction ends (serialises writes to one game).

    For a phone (``actor`` with a table token) its token is read again under the lock: a
    token revoked, released or left since the request authenticated raises
    ``TokenRevoked`` (401 ``authentication_failed``), and its probe count (R31) is the
    current one. Revoking takes the same lock (``_revoke``), so no write of a phone lands
    after its revocation returned.
    """
    game = store.lock(game_id)
    token = actor.token if actor is not None else None
    if token is not None:
        # A statement of its own, not joined to the lock's: PostgreSQL re-reads only the
        # locked row once a waited-for lock is granted, and a joined token row would keep
        # the count from before the request that held the lock (R31; issue 14 tried it,
        # test_probes_sent_at_once_get_no_more_answers_than_the_limit_R31 caught it).
        fresh = store.live_token_window(token.pk)
        if fresh is None:
            raise TokenRevoked()
        token.probes, token.probes_until = fresh
    return game


def _check_open(game: Game, precondition: Precondition | None, actor: Actor) -> None:
    if game.status != Game.Status.OPEN:
        raise GameClosed()
    if precondition is not None and not precondition.admits(game.version):
        stale_header = not precondition.headers_admit(game.version)
        error = PreconditionFailed if stale_header else VersionMismatch
        raise error(state=game_state_for(game, viewer=actor.seat, viewer_label=actor.label))


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


def _full_fold(game: Game) -> tuple[EngineGame, list[folding.Effects]]:
    """Fold every live event of the game from its start (after a correction, for export)."""
    events = game.events.filter(revoked_by__isnull=True).order_by("position")
    return folding.fold(rules_of(game), [(e.kind, e.payload) for e in events])


def _after_correction(game: Game, actor: Actor) -> dict[str, Any]:
    """Refold the whole game after a correction and re-cache its snapshot and substitutes;
    the game's state as ``actor`` sees it then."""
    engine, _ = _full_fold(game)
    snapshot = folding.advance_snapshot(engine, folding.initial_snapshot(engine.rules))
    substitutes = tuple(
        (p.get("round"), p.get("seat"), p.get("name"), p.get("player"))
        for p in game.events.filter(revoked_by__isnull=True, kind=Event.Kind.SUBSTITUTE)
        .order_by("position")
        .values_list("payload", flat=True)
    )
    game.version += 1  # the current round's cache is of an older version: read again
    set_state(
        game,
        store.replace(state_of(game), snapshot=snapshot, substitutes=substitutes, current=None),
    )
    game.save(update_fields=["version", "state"])
    # The correction may change any settled round; each keeps its time (issue 13 item 5).
    signals.rounds_changed.send(Game, game=game, engine=engine, played_at=None)
    from referee.verification import verifications_refresh  # it builds on this module

    verifications_refresh(game=game, actor=actor)  # an undo may reopen a verified round
    return game_state_for(game, viewer=actor.seat, viewer_label=actor.label)


def _hand_detail() -> str:
    return gettext("Only a phone joined to this seat may declare its hand (R31).")


def _hand_undo_detail() -> str:
    return gettext(
        "This hand can be undone only by the phone that declared it, or by the organiser (R31)."
    )


def _hand_change_detail() -> str:
    return gettext(
        "This hand can be changed only by the phone that declared it, or by the organiser (R31)."
    )


def _table_wide_detail() -> str:
    return gettext("Only the organiser or the table's scorekeeper may do this.")
