"""Stored games: the events a table entered, in order, and who entered them.

Events are append-only: an undo or an amendment never edits or deletes a
row, it revokes it (``revoked_by``) and, for an amendment, adds the
replacement at the same ``position``. A game's state is the rules core's
fold over its live events (``referee.engine``), cached on the ``Game`` row in
the same transaction as the event that changed it.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from psycopg.types.json import Json, Jsonb

JOIN_CODE_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"  # no 0/O, 1/I: read aloud at a table
JOIN_CODE_LENGTH = 10  # 32**10 ≈ 10**15 codes: not guessable under the join throttle


def new_join_code() -> str:
    """A random join code such as ``K7QH-2MXP-9R`` without the dashes (10 characters)."""
    return "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))


class StoredJSONField(models.JSONField):  # type: ignore[type-arg]
    """A JSON document kept as written: PostgreSQL's ``json`` (its text, checked but not
    decomposed) where ``JSONField`` is ``jsonb``; elsewhere ``JSONField`` itself.

    For documents the database never looks into, only stores and hands back: a game's
    cached state, written on every move (``jsonb`` parsed and rebuilt its 2–4 KB on each
    write and serialised it on each read, ≈ twice ``json``'s cost, issue 14), and an
    idempotent answer, which a retry must get back byte for byte (``jsonb`` sorts an
    object's keys). Lookups into the document (``state__round``) need ``jsonb``: none is
    made. Written as ``json`` (psycopg's ``Json``, not Django's ``Jsonb``, which would be
    cast through text); read back as psycopg parsed it, or as text (``referee.store``
    selects it as text and parses it itself).
    """

    def db_type(self, connection: Any) -> str | None:
        if connection.vendor == "postgresql":
            return "json"
        return super().db_type(connection)

    def get_db_prep_value(self, value: Any, connection: Any, prepared: bool = False) -> Any:
        adapted = super().get_db_prep_value(value, connection, prepared)
        if connection.vendor == "postgresql" and isinstance(adapted, Jsonb):
            return Json(adapted.obj, dumps=adapted.dumps)
        return adapted

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        if value is None or isinstance(value, str):
            return super().from_db_value(value, expression, connection)
        return value  # psycopg's own loader parsed the ``json`` column


class Game(models.Model):
    """A game of Domeng: five seats, a rule set (R40) fixed at creation, its events."""

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        CLOSED = "closed", _("closed")

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    join_code = models.CharField(max_length=16, unique=True, default=new_join_code)
    rules = models.JSONField(help_text="The rule set (R40), every key; never changed.")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.OPEN)
    version = models.PositiveIntegerField(
        default=0, help_text="Increases with every accepted event or correction."
    )
    revocations = models.PositiveIntegerField(
        default=0,
        help_text="Increases with every table token revoked (by the organiser, a released "
        "seat, a phone leaving): a move read before cannot be stored after one.",
    )
    state = StoredJSONField(
        default=dict, help_text="Cache of the fold over the live events (same transaction)."
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="created_games",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Game {self.id} ({self.status})"

    @property
    def players(self) -> list[str]:
        """The seats' names as the game began, seat 0 to 4 (the record's ``players``)."""
        return [seat.name for seat in self.seats.all()]

    def seats_now(self, registered: Mapping[int, int | None] | None = None) -> list[Occupant]:
        """Who sits each seat now, seat 0 to 4: the seat's name and registered player, or
        those of the latest substitute of that seat (R38). Uses prefetched ``seats`` if any.

        The referee keeps no seat's player: ``registered`` (seat number → player id, as
        the league keeps them, ``referee.league.League.seat_players``) gives those from the
        game's start; without it only a substitute's player is known (R38)."""
        registered = registered or {}
        now = [Occupant(s.number, s.name, registered.get(s.number)) for s in self.seats.all()]
        for _round, seat, name, player in sorted(
            self.state.get("substitutes") or [], key=lambda sub: sub[0] or 0
        ):
            if isinstance(seat, int) and 0 <= seat < len(now):
                now[seat] = Occupant(seat, name, player)
        return now

    @property
    def players_now(self) -> list[str]:
        """The names of who sits each seat now, seat 0 to 4 (R38): what lists show."""
        return [occupant.name for occupant in self.seats_now()]


@dataclass(frozen=True)
class Occupant:
    """Who sits a seat (0–4): a name, and the club's player (``None`` for a guest, or not
    known: see ``Game.seats_now``)."""

    number: int
    name: str
    player_id: int | None


class Seat(models.Model):
    """One of a game's five seats, 0–4 clockwise (R3), and the name of who sits there."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=80)
    computer = models.CharField(
        max_length=16,
        blank=True,
        default="",
        help_text="The strategy of a computer seat (R39: random, greedy, strong); "
        "empty for a person.",
    )

    class Meta:
        ordering = ["game", "number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="seat_unique_number"),
            models.CheckConstraint(condition=Q(number__lte=4), name="seat_number_0_to_4"),
        ]

    def __str__(self) -> str:
        return f"{self.number}: {self.name}"


class GameSession(models.Model):
    """A sitting of a game (R27): stones, CAMAT and next leader carry over between them."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="sessions")
    number = models.PositiveIntegerField()
    started_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["game", "number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="session_unique_number"),
            models.UniqueConstraint(
                fields=["game"],
                condition=Q(ended_at__isnull=True),
                name="session_one_open_per_game",
            ),
        ]

    def __str__(self) -> str:
        return f"Session {self.number} of {self.game_id}"


class Event(models.Model):
    """One accepted event: a move (play or pass), a declared hand or a reveal.

    ``position`` orders a game's live events; an amendment's replacement
    takes the position of the event it revokes. ``payload`` is the event in
    record form: a move ``{"seat", "tile", "on"?}`` / ``{"seat", "pass": true}``,
    a hand ``{"seat", "tiles": [...]}``, a reveal ``{"seat", "tiles"|"pips"}``.
    """

    class Kind(models.TextChoices):
        MOVE = "move", _("move")
        HAND = "hand", _("declared hand")
        REVEAL = "reveal", _("reveal")
        VOID = "void", _("void")  # the organiser's rulings (R35, R36, R38)
        ADJUSTMENT = "adjustment", _("adjustment")
        SUBSTITUTE = "substitute", _("substitute")

    # No index of its own: (game, round_number) and the live positions' unique index both
    # begin with it, and each index is one more write on every move.
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="events", db_index=False)
    position = models.PositiveIntegerField()
    kind = models.CharField(max_length=16, choices=Kind.choices)
    payload = models.JSONField()
    round_number = models.PositiveIntegerField()
    session = models.ForeignKey(
        GameSession, null=True, blank=True, on_delete=models.SET_NULL, related_name="events"
    )
    entered_by = models.CharField(max_length=120, help_text="Who entered it: user or table token.")
    # When it was first entered: an amendment's replacement keeps its original's (R37).
    created_at = models.DateTimeField(default=timezone.now)
    revoked_by = models.ForeignKey(
        "Correction",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="revoked",
        db_index=False,  # indexed where set only (``event_revoked_by``): a new event is live
    )

    class Meta:
        ordering = ["game", "position", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "position"],
                condition=Q(revoked_by__isnull=True),
                name="event_one_live_per_position",
            ),
        ]
        indexes = [
            models.Index(fields=["game", "round_number"]),
            models.Index(
                fields=["revoked_by"],
                condition=Q(revoked_by__isnull=False),
                name="event_revoked_by",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} #{self.position} of {self.game_id}"


class SettledRound(models.Model):
    """A round as it stood when it was settled (issue 29, R27): written with the event that
    settled it (or the import, correction or ruling that judged it) in the same
    transaction, so that a read takes the rounds before the one in play from here and
    folds only that one.

    ``record``: the round as ``domeng-record/1`` writes it (``{"moves", "hands"?,
    "reveal"?, "pips"?, "void"?, "adjustments"?, "substitutes"?}``); ``result``: the round
    as ``domeng-result/1`` gives it, whose ``after`` (``{table, stones, camat,
    next_leader}``) is where the fold of the next round resumes. Any change of the live
    events of round k (an undo, a correction, a ruling R35–R38) deletes the rows from k on
    in its transaction (``referee.store.forget_settled``); they are written again from the
    replay that judged it. Always equal to the replay of the events (tested).

    ``compact``: ``record`` and ``result`` are held as orjson's compact text, the bytes
    the export's and the result's answers give for the round (``referee.store.
    settled_insert`` writes them so, issue 29): those answers join them without parsing
    them. A row written otherwise (by the ORM, or before this) is parsed and written
    again, as before.
    """

    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="settled_rounds", db_index=False
    )  # the unique (game, number) index begins with it
    number = models.PositiveIntegerField()
    record = StoredJSONField()
    result = StoredJSONField()
    compact = models.BooleanField(
        default=False, help_text="Whether record and result hold orjson's compact text."
    )

    class Meta:
        ordering = ["game", "number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="settled_round_unique_number"),
        ]

    def __str__(self) -> str:
        return f"settled round {self.number} of {self.game_id}"


class Correction(models.Model):
    """A correction or a ruling: who, when, why, what was replaced (the audit trail).

    ``changes`` lists what it did, in order: ``{"op": "amend" | "insert" |
    "remove", "position", "round", "kind", "replaced"?, "payload"?}`` (R37),
    or for a re-seating ``{"op": "seat", "seat", "previous", "name", "player"}``.
    """

    class Kind(models.TextChoices):
        UNDO = "undo", _("undo")
        AMEND = "amend", _("amend")
        CORRECT = "correct", _("correction")
        VOID = "void", _("void")
        ADJUST = "adjust", _("adjustment")
        SUBSTITUTE = "substitute", _("substitute")
        SEAT = "seat", _("re-seating")
        REPLACE = "replace", _("record replaced")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="corrections")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    changes = models.JSONField(default=list, blank=True)
    replacement = models.ForeignKey(
        Event, null=True, blank=True, on_delete=models.PROTECT, related_name="replaces"
    )
    entered_by = models.CharField(max_length=120)
    reason = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "created_at", "id"]

    def __str__(self) -> str:
        return f"{self.kind} in {self.game_id}"


class RefusedEvent(models.Model):
    """An event the referee refused, with the error it got (for disputes at the table)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="refused_events")
    kind = models.CharField(max_length=16, choices=Event.Kind.choices)
    payload = models.JSONField()
    code = models.CharField(max_length=40)
    rule = models.CharField(max_length=8, blank=True)
    detail = models.TextField(blank=True)
    entered_by = models.CharField(max_length=120)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "created_at", "id"]

    def __str__(self) -> str:
        return f"refused {self.code} in {self.game_id}"


def hash_token(key: str) -> str:
    """The stored form of a table token: its SHA-256 (the key itself is never stored)."""
    return hashlib.sha256(key.encode()).hexdigest()


# The longest device cookie (``referee.lockouts.device_of``) or address kept with a token.
JOIN_CLIENT_MAX_LENGTH = 64


class TableToken(models.Model):
    """A phone's access to one game, optionally to one seat, got with the join code."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="tokens")
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    key_hash = models.CharField(max_length=64, unique=True)
    label = models.CharField(max_length=80, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    # Probes of declared hands (R31) in the window that ends at ``probes_until``: kept on the
    # row that every request of the token reads anyway, so checking them costs no query.
    # The window is the joining client's, not the token's alone: every token of the game
    # joined by the same client (``client_device``, else ``client_address``) holds the same
    # one, so leaving, being released or joining again does not start a fresh count.
    probes = models.PositiveIntegerField(default=0)
    probes_until = models.DateTimeField(null=True, blank=True)
    # Who joined with it (``referee.lockouts.JoinClient``): the signed device cookie it sent,
    # else the device id its join's answer gave it (``client_issued``), and its address.
    # All empty: a token made without a join (no client to share with).
    client_device = models.CharField(max_length=JOIN_CLIENT_MAX_LENGTH, blank=True, default="")
    client_issued = models.CharField(max_length=JOIN_CLIENT_MAX_LENGTH, blank=True, default="")
    client_address = models.CharField(max_length=JOIN_CLIENT_MAX_LENGTH, blank=True, default="")
    # The newest organiser's correction this phone dismissed the notice of (issue 28).
    notice_seen = models.PositiveIntegerField(
        default=0, help_text="The last correction whose notice this phone dismissed."
    )

    class Meta:
        ordering = ["game", "created_at"]
        constraints = [
            # A seat is claimed by one phone at a time (released: revoked_at set).
            models.UniqueConstraint(
                fields=["game", "seat"],
                condition=Q(revoked_at__isnull=True, seat__isnull=False),
                name="table_token_one_live_per_seat",
            ),
        ]

    def __str__(self) -> str:
        who = "scorekeeper" if self.seat is None else f"seat {self.seat}"
        return f"token {self.pk} ({who}) for {self.game_id}"

    @property
    def actor(self) -> str:
        who = "scorekeeper" if self.seat is None else f"seat {self.seat}"
        return f"table token {self.pk} ({who})"


class TableAlert(models.Model):
    """A table token that probed declared hands (R31): too many refusals against them, or
    undos of another seat's moves; or a declared hand that shares tiles with another
    seat's (``shared``, the round's first only, with the ``tiles`` shared and its
    ``round_number``). Shown to the organiser and to the seats concerned (a shared hand's
    tiles to the organiser alone)."""

    class Kind(models.TextChoices):
        REFUSALS = "refusals", _("refusals against declared hands")
        UNDOS = "undos", _("undos of another seat's moves")
        SHARED = "shared", _("a declared hand sharing tiles with another seat's")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="alerts")
    kind = models.CharField(max_length=12, choices=Kind.choices)
    entered_by = models.CharField(max_length=120, help_text="The table token that probed.")
    seats = models.JSONField(default=list, help_text="The seats whose declared hands were probed.")
    count = models.PositiveIntegerField()
    round_number = models.PositiveIntegerField(
        null=True, blank=True, help_text="The round of a shared hand, or the round probed."
    )
    tiles = models.JSONField(
        default=list, blank=True, help_text="The tiles a shared hand shares (the organiser's)."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "created_at", "id"]

    def __str__(self) -> str:
        return f"alert {self.kind} in {self.game_id}"


class IdempotencyRecord(models.Model):
    """The first outcome of a write carrying an ``Idempotency-Key`` (our own store).

    A retry with the same key and the same body gets this outcome again; the same key
    with another body is refused (``idempotency_key_reused``). ``outcome`` names the
    service's result (``submitted``, ``corrected`` …, or ``refused`` by the rules) and
    ``body`` holds it as that result keeps itself (``referee.idempotency``); a row of an
    earlier release has no ``outcome`` but the HTTP ``status_code`` and body answered.
    """

    scope = models.CharField(max_length=120, help_text="Whose key: a game, a user.")
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64, help_text="SHA-256 of method, path and body.")
    outcome = models.CharField(
        max_length=20, blank=True, default="", help_text="The result kept, by name."
    )
    status_code = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="An earlier release's HTTP status (no outcome)."
    )
    body = StoredJSONField(help_text="The outcome as its result keeps itself (JSON).")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scope", "key"], name="idempotency_unique_key"),
        ]

    def __str__(self) -> str:
        return f"{self.scope}:{self.key}"


class RoundVerification(models.Model):
    """A finished round's verification at the table (issue 11): a phone of another seat
    than the one that entered the round's last event confirms its summary or disputes it
    with a short reason, until the organiser resolves a dispute.

    No row means ``unverified``. ``digest`` is the SHA-256 of the round's live events
    when the row was last written: a correction or undo that changes them resets a
    confirmation, and an organiser's correction or void resolves a dispute
    (``referee.services.verification``).
    """

    class Status(models.TextChoices):
        UNVERIFIED = "unverified", _("unverified")
        CONFIRMED = "confirmed", _("confirmed")
        DISPUTED = "disputed", _("disputed")
        RESOLVED = "resolved", _("resolved")

    class Resolution(models.TextChoices):
        CONFIRMED = "confirmed", _("marked confirmed")
        CORRECTED = "corrected", _("corrected")
        VOIDED = "voided", _("voided")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="verifications")
    round_number = models.PositiveIntegerField()
    status = models.CharField(max_length=12, choices=Status.choices)
    seat = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="The seat that confirmed or disputed it (0–4)."
    )
    reason = models.CharField(max_length=200, blank=True, help_text="Why it was disputed.")
    entered_by = models.CharField(
        max_length=120, help_text="The table token that confirmed or disputed it."
    )
    resolution = models.CharField(max_length=12, choices=Resolution.choices, blank=True)
    resolved_by = models.CharField(max_length=120, blank=True)
    note = models.CharField(max_length=200, blank=True, help_text="The organiser's note.")
    digest = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["game", "round_number"]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "round_number"], name="round_verification_unique_round"
            ),
            models.CheckConstraint(
                condition=Q(seat__isnull=True) | Q(seat__lte=4),
                name="round_verification_seat_0_to_4",
            ),
        ]

    def __str__(self) -> str:
        return f"round {self.round_number} of {self.game_id}: {self.status}"


class SetupLink(models.Model):
    """The one-time link of a fresh installation: it opens the first-run page, which makes
    the first organiser's account and club (``referee.setup``).

    Only the SHA-256 of its key is kept (``hash_token``). Made by ``manage.py serve`` on
    each start while the database has no user (the previous unused one is dropped); dead
    once used (``used_at``) or once any account exists.
    """

    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"setup link {self.pk} ({'used' if self.used_at else 'unused'})"
