"""League records: clubs, their organisers and players, seasons, and each seat's rounds.

A club's games (``GameLeague``: the club and season a ``referee.Game`` counts for, and
``SeatPlayer``: the registered player of a seat) are the source of truth;
``SeatRound`` is derived from them — one row per seat per settled round —
and is kept by ``scoring.services`` in the same transaction as the event or
correction that changed the game, never edited by hand. Per-player totals
(``PlayerTotals``) and ratings (``PlayerRating``) are kept with it, so the
standings and ratings read one row per player. Seasons and players are never deleted: a season
is archived, a duplicate player is merged into the one that stays (PROTECT
foreign keys keep history from being cascaded away).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from referee.engine.names import identity_key, is_visible_name
from referee.languages import default_language
from scoring.exceptions import ENDS_BEFORE_START
from scoring.zones import default_time_zone, validate_time_zone

NAME_INVALID = _("A name may not hold invisible or direction-changing characters.")


def ends_before_start(starts_on: Any, ends_on: Any) -> bool:
    """Whether a period ends before it starts (an open end never does)."""
    return starts_on is not None and ends_on is not None and ends_on < starts_on


def validate_visible_name(value: str) -> None:
    """A model field's twin of ``referee.inputs.visible_name`` (the API's), for the admin:
    no invisible, control or direction-changing character; ``name_invalid``."""
    if not is_visible_name(value):
        raise ValidationError(NAME_INVALID, code="name_invalid")


class Club(models.Model):
    """A club that keeps a league: its organisers, players, seasons and games."""

    name = models.CharField(max_length=120, validators=[validate_visible_name])
    slug = models.SlugField(max_length=60, unique=True, help_text="The club's name in URLs.")
    is_public = models.BooleanField(
        default=False,
        help_text="Published: anyone may read its league records (standings, histories).",
    )
    time_zone = models.CharField(
        max_length=64,
        default=default_time_zone,
        validators=[validate_time_zone],
        help_text="Its IANA time zone (e.g. Asia/Makassar): its pages' times and dates, its "
        "evening and its date filters are local to it. Default: the server's TIME_ZONE.",
    )
    language = models.CharField(
        max_length=8,
        choices=settings.LANGUAGES,
        default=default_language,
        help_text="The language of its pages (room view, standings, its games' phones) for a "
        "browser that names none the project has. Default: the server's LANGUAGE_CODE.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Save; a slug given up stays the club's old slug (``ClubSlug``), so its room link
        and standings page lead to the new one, and a slug in use is nobody's old slug."""
        previous = (
            Club.objects.filter(pk=self.pk).values_list("slug", flat=True).first()
            if self.pk is not None
            else None
        )
        with transaction.atomic():
            super().save(*args, **kwargs)
            ClubSlug.objects.filter(slug=self.slug).delete()
            if previous is not None and previous != self.slug:
                ClubSlug.objects.update_or_create(slug=previous, defaults={"club": self})


class ClubSlug(models.Model):
    """A slug a club used before it was renamed (in the admin): its pages' old links (the
    room view, the standings) are sent on to the club's slug now."""

    slug = models.SlugField(max_length=60, unique=True)
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="old_slugs")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.slug} → {self.club.slug}"


class Membership(models.Model):
    """A Django user's role in a club: organisers manage it, members read its records."""

    class Role(models.TextChoices):
        ORGANISER = "organiser", _("organiser")
        MEMBER = "member", _("member")

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="club_memberships"
    )
    role = models.CharField(max_length=12, choices=Role.choices, default=Role.MEMBER)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["club", "user"]
        constraints = [
            models.UniqueConstraint(fields=["club", "user"], name="membership_unique_user"),
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.role}) in {self.club}"


class Player(models.Model):
    """A person who plays in a club's games: a stable identity across games and seasons.

    ``member_number`` (optional) is unique among the club's players that are
    not merged, as people read it: ``member_key``, its NFKC case-folded form
    (``referee.engine.names.identity_key``), is what the constraint compares.
    A merged player keeps its row with ``merged_into`` set; its seats and
    stats now belong to that player.
    """

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="players")
    display_name = models.CharField(max_length=80, validators=[validate_visible_name])
    member_number = models.CharField(
        max_length=32, blank=True, default="", validators=[validate_visible_name]
    )
    member_key = models.CharField(
        max_length=96,
        blank=True,
        default="",
        editable=False,
        help_text="The member number as compared: NFKC, case-folded (set on save).",
    )
    merged_into = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="merged_players",
        help_text="Set when this player was a duplicate merged into another.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["club", "display_name", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["club", "member_key"],
                condition=~Q(member_key="") & Q(merged_into__isnull=True),
                name="player_unique_member_key",
            ),
        ]

    def __str__(self) -> str:
        return self.display_name

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.member_key = identity_key(self.member_number)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "member_number" in update_fields:
            kwargs["update_fields"] = {*update_fields, "member_key"}
        super().save(*args, **kwargs)

    def clean(self) -> None:
        """The member number is the club's as the API compares it (``member_number_taken``):
        the database's constraint compares ``member_key``, which no form holds."""
        super().clean()
        key = identity_key(self.member_number.strip())
        if not key or self.club_id is None or self.merged_into_id is not None:
            return
        taken = Player.objects.filter(club_id=self.club_id, member_key=key, merged_into=None)
        if taken.exclude(pk=self.pk).exists():
            raise ValidationError(
                {
                    "member_number": ValidationError(
                        _("Another player of the club has this member number."),
                        code="member_number_taken",
                    )
                }
            )

    @property
    def is_merged(self) -> bool:
        return self.merged_into_id is not None


class Season(models.Model):
    """A club's season: its games are played in it. Archived when over, never deleted."""

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="seasons")
    name = models.CharField(max_length=80, validators=[validate_visible_name])
    starts_on = models.DateField(null=True, blank=True)
    ends_on = models.DateField(null=True, blank=True)
    is_archived = models.BooleanField(
        default=False, help_text="Archived: no new game may be put in it; its records stay."
    )
    archived_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["club", "-starts_on", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["club", "name"], name="season_unique_name"),
            models.CheckConstraint(
                condition=Q(starts_on__isnull=True)
                | Q(ends_on__isnull=True)
                | Q(ends_on__gte=F("starts_on")),
                name="season_ends_after_start",
                violation_error_code="ends_before_start",
                violation_error_message=ENDS_BEFORE_START,
            ),
        ]

    def __str__(self) -> str:
        return f"{self.club}: {self.name}"

    def clean(self) -> None:
        """A season ends on or after its start (the API's ``ends_on`` error), and its name
        is its club's alone (``season_name_taken``), also where a form holds no club."""
        super().clean()
        if ends_before_start(self.starts_on, self.ends_on):
            # Not ``invalid``: a form would show its date field's "Enter a valid date." instead.
            raise ValidationError(
                {"ends_on": ValidationError(ENDS_BEFORE_START, code="ends_before_start")}
            )
        if (
            self.club_id is not None
            and Season.objects.filter(club_id=self.club_id, name=self.name.strip())
            .exclude(pk=self.pk)
            .exists()
        ):
            raise ValidationError(
                {
                    "name": ValidationError(
                        _("The club already has a season with this name."),
                        code="season_name_taken",
                    )
                }
            )


class GameLeague(models.Model):
    """The league a game counts for: its club and, if any, the club's season.

    One row per league game (a friendly game has none), written by the league
    when the referee announces the game (``referee.signals.game_created``) and
    by ``services.game_league_assign``. The referee's tables know nothing of
    it; ``Game.league`` reads it from the league's side.
    """

    game = models.OneToOneField(
        "referee.Game", primary_key=True, on_delete=models.CASCADE, related_name="league"
    )
    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="games")
    season = models.ForeignKey(
        Season, null=True, blank=True, on_delete=models.PROTECT, related_name="games"
    )

    class Meta:
        verbose_name = "game's league"

    def __str__(self) -> str:
        return f"{self.game_id} in {self.club_id}/{self.season_id or '-'}"


class SeatPlayer(models.Model):
    """The club's registered player who sits a seat from the game's start (R38); a guest's
    seat has no row. Substitutes are the referee's events, not rows here.

    Written by the league when the referee announces a new game or a re-seating
    (``referee.signals``), re-pointed by a merge; ``Seat.registered`` reads it.
    """

    seat = models.OneToOneField(
        "referee.Seat", primary_key=True, on_delete=models.CASCADE, related_name="registered"
    )
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="seats")

    def __str__(self) -> str:
        return f"seat {self.seat_id}: {self.player_id}"


class PlayerMerge(models.Model):
    """The audit of a merge: which duplicate went into which player, by whom, what moved."""

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="player_merges")
    survivor = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="merges_kept")
    merged = models.OneToOneField(Player, on_delete=models.PROTECT, related_name="merge")
    merged_name = models.CharField(max_length=80, help_text="The duplicate's name at the time.")
    merged_member_number = models.CharField(max_length=32, blank=True, default="")
    seats_moved = models.PositiveIntegerField()
    seat_rounds_moved = models.PositiveIntegerField()
    merged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reason = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.merged_name} → {self.survivor}"


class SeatLink(models.Model):
    """The audit of a seat (re)linked to a registered player, e.g. a guest identified later."""

    seat = models.ForeignKey("referee.Seat", on_delete=models.PROTECT, related_name="links")
    previous = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    player = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.PROTECT, related_name="seat_links"
    )
    linked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"seat {self.seat_id} → {self.player_id}"


class SeatRound(models.Model):
    """One seat's part in one settled round: what the round named it and the stones it moved.

    Derived from the game's events (``scoring.services``), one row per seat
    (0–4) per settled round. ``player`` is ``None`` for a guest seat; ``club``,
    ``season`` and ``played_at`` (when the round was settled) are copied from
    the game so that any aggregate is a single query. ``passes``
    counts plain PASSes, ``passebunge`` PASSEBUNGEs (R9, R10);
    ``stones_received``/``stones_given`` are the stones that moved to/from the
    seat in the round (R23; a CAMAT reset, R25, is neither); ``stones_held``
    is what the seat held after the round's awards, before any reset;
    ``cycle_ended`` marks the rows of a round that elected a CAMAT (R24), and on them
    ``cycle_player`` is who the ratings credit with the seat's cycle: whoever sat most of
    its rounds (a substitute, R38, sat only its last ones), ``None`` for a guest.
    """

    game = models.ForeignKey("referee.Game", on_delete=models.CASCADE, related_name="seat_rounds")
    round_number = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField()
    player = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.PROTECT, related_name="seat_rounds"
    )
    club = models.ForeignKey(
        Club, null=True, blank=True, on_delete=models.PROTECT, related_name="seat_rounds"
    )
    season = models.ForeignKey(
        Season, null=True, blank=True, on_delete=models.PROTECT, related_name="seat_rounds"
    )
    played_at = models.DateTimeField()
    won = models.BooleanField(default=False)
    first_cappu = models.BooleanField(default=False)
    ceki = models.BooleanField(default=False)
    pollo = models.BooleanField(default=False)
    manguno = models.BooleanField(default=False)
    mattikkeng = models.BooleanField(default=False)
    cucuq = models.BooleanField(default=False)
    passes = models.PositiveSmallIntegerField(default=0)
    passebunge = models.PositiveSmallIntegerField(default=0)
    stones_received = models.PositiveIntegerField(default=0)
    stones_given = models.PositiveIntegerField(default=0)
    stones_held = models.PositiveIntegerField(default=0)
    camat_elected = models.BooleanField(default=False)
    cycle_ended = models.BooleanField(default=False)
    cycle_player = models.ForeignKey(
        Player,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="cycles_rated",
        help_text="On a cycle's last round (cycle_ended): the player the cycle is rated for, "
        "who sat most of its rounds at this seat (R38; a tie: the later of them).",
    )

    class Meta:
        ordering = ["game", "round_number", "seat"]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "round_number", "seat"], name="seat_round_unique"
            ),
            models.CheckConstraint(condition=Q(seat__lte=4), name="seat_round_seat_0_to_4"),
        ]
        indexes = [
            models.Index(fields=["club", "player"], name="seat_round_club_player"),
            models.Index(fields=["season", "player"], name="seat_round_season_player"),
            models.Index(fields=["player", "-played_at"], name="seat_round_player_time"),
            models.Index(
                fields=["club", "played_at"],
                condition=Q(cycle_ended=True),
                name="seat_round_cycle_end",
            ),
        ]

    def __str__(self) -> str:
        return f"round {self.round_number} seat {self.seat} of {self.game_id}"

    @property
    def named(self) -> list[str]:
        """The named outcomes that fell on this seat, as the table calls them."""
        flags = [
            (self.first_cappu, "FIRST CAPPU"),
            (self.ceki, "CEKI"),
            (self.pollo, "POLLO"),
            (self.manguno, "MANGUNO"),
            (self.mattikkeng, "MATTIKKENG"),
            (self.cucuq, "CUCUQ"),
            (self.camat_elected, "CAMAT"),
        ]
        return [name for flag, name in flags if flag]


# Each total of a player's standing line, named as the standings column it is. The
# standings read them from ``PlayerTotals``; a date range reads them from ``SeatRound``.
TOTAL_FIELDS = (
    "rounds_played",
    "rounds_won",
    "first_cappu",
    "ceki",
    "pollo",
    "manguno",
    "mattikkeng",
    "cucuq",
    "passes",
    "passebunge",
    "stones_received",
    "stones_given",
    "camat_elected",
)


def _scoped(name: str) -> list[models.BaseConstraint]:
    """One row per (club, season, player) and one per (club, player) for the club-wide scope."""
    return [
        models.UniqueConstraint(
            fields=["club", "season", "player"],
            condition=Q(season__isnull=False),
            name=f"{name}_unique_season",
        ),
        models.UniqueConstraint(
            fields=["club", "player"],
            condition=Q(season__isnull=True),
            name=f"{name}_unique_club",
        ),
    ]


class PlayerTotals(models.Model):
    """A registered player's totals over the club's seat-rounds: one season's or lifetime.

    ``season`` set: the rounds of that season; ``season`` ``None``: every round
    of the club (all seasons and games in none), i.e. the lifetime standings.
    Each field is the count (or sum) of the ``SeatRound`` field it is named
    after over those rows (``rounds_played`` the rows, ``rounds_won`` ``won``)
    and is kept equal to that aggregate by ``scoring.services`` in the same
    transaction as the rows, so a standings page reads one row per player
    whatever the history. A row whose ``rounds_played`` fell to 0 is all zero
    and is not listed. Never edited by hand (``services.league_recount``
    rebuilds a club's from its rows).
    """

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="+")
    season = models.ForeignKey(
        Season, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="totals")
    rounds_played = models.IntegerField(default=0)
    rounds_won = models.IntegerField(default=0)
    first_cappu = models.IntegerField(default=0)
    ceki = models.IntegerField(default=0)
    pollo = models.IntegerField(default=0)
    manguno = models.IntegerField(default=0)
    mattikkeng = models.IntegerField(default=0)
    cucuq = models.IntegerField(default=0)
    passes = models.IntegerField(default=0)
    passebunge = models.IntegerField(default=0)
    stones_received = models.IntegerField(default=0)
    stones_given = models.IntegerField(default=0)
    camat_elected = models.IntegerField(default=0)

    class Meta:
        verbose_name_plural = "player totals"
        constraints = _scoped("player_totals")

    def __str__(self) -> str:
        return f"{self.player_id} in {self.club_id}/{self.season_id or 'lifetime'}"


class RatingFold(models.Model):
    """How far a club's (``season`` ``None``) or a season's ratings have been folded.

    The number of completed CAMAT cycles folded and the key of the last one
    (``played_at``, game, round: the order ``club_ratings`` folds them in).
    A cycle settled after it is folded on; any other change to a cycle of the
    scope (a correction, a void, a substitute, a merge, an older game
    imported) folds the scope again from its first cycle.
    """

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="+")
    season = models.ForeignKey(
        Season, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    cycles = models.PositiveIntegerField(default=0)
    last_played_at = models.DateTimeField(null=True, blank=True)
    last_game = models.UUIDField(null=True, blank=True)
    last_round = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["club", "season"],
                condition=Q(season__isnull=False),
                name="rating_fold_unique_season",
            ),
            models.UniqueConstraint(
                fields=["club"], condition=Q(season__isnull=True), name="rating_fold_unique_club"
            ),
        ]

    def __str__(self) -> str:
        return f"ratings of {self.club_id}/{self.season_id or 'lifetime'}: {self.cycles} cycles"


class PlayerRating(models.Model):
    """A registered player's stored rating in a club (``season`` ``None``) or a season.

    What ``scoring.ratings`` gives after the last completed CAMAT cycle the
    player sat (``mu``, ``sigma``, full precision), the number of those cycles
    and when the last one ended. Kept by ``scoring.services`` with the
    seat-rounds (see ``RatingFold``); read by ``selectors.club_ratings``.
    """

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="+")
    season = models.ForeignKey(
        Season, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="ratings")
    mu = models.FloatField()
    sigma = models.FloatField()
    cycles = models.PositiveIntegerField(default=0)
    last_played_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = _scoped("player_rating")

    def __str__(self) -> str:
        return f"{self.player_id}: {self.mu:.2f}±{self.sigma:.2f}"


class RatingStep(models.Model):
    """A registered player's rating after one completed CAMAT cycle, in one scope.

    One row per player seated (not guests) per cycle per scope (the club's,
    ``season`` ``None``, and the cycle's season): what ``scoring.ratings`` gave
    them after the cycle that ended at ``played_at`` in round ``round_number``
    of ``game``, and how many cycles they had then. When a cycle changes, the
    scope is folded again from it on, starting from each player's last step
    before it; ``PlayerRating`` is the latest step of each player.
    """

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="+")
    season = models.ForeignKey(
        Season, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    played_at = models.DateTimeField()
    game = models.UUIDField(help_text="The game (its id) whose round ended the cycle.")
    round_number = models.PositiveIntegerField()
    mu = models.FloatField()
    sigma = models.FloatField()
    cycles = models.PositiveIntegerField()

    class Meta:
        indexes = [
            models.Index(
                fields=["club", "season", "player", "played_at", "game", "round_number"],
                name="rating_step_player",
            ),
            models.Index(
                fields=["club", "season", "played_at", "game", "round_number"],
                name="rating_step_cycle",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} after round {self.round_number} of {self.game}"
