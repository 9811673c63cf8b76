"""Bodies of the league API: inputs checked for JSON types, outputs documented field by field."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from referee.api.schema import GameStatusField
from referee.inputs import (
    MAX_ID,
    ReasonField,
    StrictSerializer,
    WholeNumberField,
    visible_name,
)
from referee.models import Game
from scoring import selectors
from scoring.exceptions import ENDS_BEFORE_START
from scoring.models import Club, Membership, Player, Season, ends_before_start
from scoring.zones import (
    UNKNOWN_TIME_ZONE,
    UNKNOWN_TIME_ZONE_TEXT,
    is_time_zone,
    time_zone_pattern,
)

# -- clubs and members ---------------------------------------------------------------------


TIME_ZONE_HELP = (
    "The club's IANA time zone (e.g. `Asia/Makassar`, `America/Montreal`), spelt exactly. "
    "Its pages show times and dates in it, and its room view's evening and its standings' "
    "`played_after`/`played_before` are its local evening and dates; the API itself "
    "answers every instant in UTC. An unknown name is a 400 `invalid` whose field error "
    "is `unknown_time_zone`."
)


def time_zone_name(value: str) -> None:
    """A zone name's validator: an IANA name this server knows (``unknown_time_zone``)."""
    if not is_time_zone(value):
        raise serializers.ValidationError(UNKNOWN_TIME_ZONE_TEXT, code=UNKNOWN_TIME_ZONE)


@extend_schema_field({"type": "string", "maxLength": 64, "pattern": time_zone_pattern()})
class TimeZoneField(serializers.CharField):
    """A club's zone as given: an IANA name this server knows, spelt exactly (no space
    trimmed), declared as a pattern of exactly those names; else 400 ``invalid`` whose
    field error is ``unknown_time_zone``."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", 64)
        kwargs.setdefault("trim_whitespace", False)
        kwargs.setdefault("validators", [time_zone_name])
        super().__init__(**kwargs)


class ClubSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    role = serializers.SerializerMethodField(
        help_text="Your role in the club: `organiser`, `member` or null."
    )
    time_zone = serializers.CharField(help_text=TIME_ZONE_HELP)

    class Meta:
        model = Club
        fields = ["id", "slug", "name", "is_public", "time_zone", "created_at", "role"]
        read_only_fields = fields

    def get_role(self, club: Club) -> str | None:
        roles: dict[int, str] = self.context.get("roles", {})
        return roles.get(club.pk)


class ClubCreateSerializer(StrictSerializer):
    name = serializers.CharField(max_length=120, validators=[visible_name])
    slug = serializers.SlugField(max_length=60, help_text="The club's name in URLs.")
    is_public = serializers.BooleanField(
        required=False, default=False, help_text="Publish the league records to everyone."
    )
    time_zone = TimeZoneField(
        required=False,
        help_text=TIME_ZONE_HELP + " Default: the server's time zone (`TIME_ZONE`).",
    )


class ClubUpdateSerializer(StrictSerializer):
    name = serializers.CharField(max_length=120, required=False, validators=[visible_name])
    is_public = serializers.BooleanField(required=False)
    time_zone = TimeZoneField(required=False, help_text=TIME_ZONE_HELP)


class MembershipSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    username = serializers.CharField(source="user.get_username", read_only=True)

    class Meta:
        model = Membership
        fields = ["username", "role", "created_at"]
        read_only_fields = fields


class MembershipSetSerializer(StrictSerializer):
    username = serializers.CharField(max_length=150)
    role = serializers.ChoiceField(choices=Membership.Role.choices)


# -- players -------------------------------------------------------------------------------


class PlayerSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    class Meta:
        model = Player
        fields = ["id", "display_name", "member_number", "merged_into", "created_at"]
        read_only_fields = fields


MEMBER_NUMBER_HELP = (
    "Unique in the club, compared after Unicode NFKC and case folding (`É-7` in NFC and NFD, "
    "`B-01`, `b-01` and `Ｂ-01` are one number); no invisible or direction-changing character."
)


class PlayerCreateSerializer(StrictSerializer):
    display_name = serializers.CharField(max_length=80, validators=[visible_name])
    member_number = serializers.CharField(
        max_length=32,
        required=False,
        allow_blank=True,
        validators=[visible_name],
        help_text=MEMBER_NUMBER_HELP,
    )


class PlayerUpdateSerializer(StrictSerializer):
    display_name = serializers.CharField(max_length=80, required=False, validators=[visible_name])
    member_number = serializers.CharField(
        max_length=32,
        required=False,
        allow_blank=True,
        validators=[visible_name],
        help_text=MEMBER_NUMBER_HELP,
    )


class PlayerMergeSerializer(StrictSerializer):
    duplicate = WholeNumberField(
        help_text="The id of the duplicate player, merged into the one in the URL."
    )
    reason = ReasonField(max_length=200, required=False, allow_blank=True)


class PlayerMergedSerializer(serializers.Serializer):  # type: ignore[type-arg]
    survivor = PlayerSerializer()
    merged = PlayerSerializer()
    seats_moved = serializers.IntegerField()
    seat_rounds_moved = serializers.IntegerField()
    merged_by = serializers.CharField(allow_null=True)
    reason = serializers.CharField()
    created_at = serializers.DateTimeField()


# -- seasons -------------------------------------------------------------------------------


class SeasonSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    class Meta:
        model = Season
        fields = ["id", "name", "starts_on", "ends_on", "is_archived", "archived_at", "created_at"]
        read_only_fields = fields


class SeasonCreateSerializer(StrictSerializer):
    name = serializers.CharField(max_length=80, validators=[visible_name])
    starts_on = serializers.DateField(required=False, allow_null=True)
    ends_on = serializers.DateField(required=False, allow_null=True)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        # A partial update is checked against the stored season (``context["season"]``):
        # the period as it would be kept, not only the dates sent.
        stored = self.context.get("season")
        starts = attrs["starts_on"] if "starts_on" in attrs else getattr(stored, "starts_on", None)
        ends = attrs["ends_on"] if "ends_on" in attrs else getattr(stored, "ends_on", None)
        if ends_before_start(starts, ends):
            raise serializers.ValidationError({"ends_on": [ENDS_BEFORE_START]})
        return attrs


class SeasonUpdateSerializer(SeasonCreateSerializer):
    """A season's change; its ``context["season"]`` is the stored season."""

    name = serializers.CharField(max_length=80, required=False, validators=[visible_name])


# -- games ---------------------------------------------------------------------------------


class ClubGameSeatSerializer(serializers.Serializer):  # type: ignore[type-arg]
    seat = serializers.IntegerField(source="number")
    name = serializers.CharField()
    player = serializers.IntegerField(source="player_id", allow_null=True)


class _SeatsNowField(serializers.ListField):
    """A game's seats as ``selectors.seats_now`` gives them (the league's registered players,
    substitutes applied, R38): no query with ``selectors.club_games``' prefetch."""

    def get_attribute(self, instance: Game) -> list[Any]:
        return selectors.seats_now(instance)


class ClubGameSerializer(serializers.Serializer):  # type: ignore[type-arg]
    id = serializers.UUIDField()
    status = GameStatusField()
    season = serializers.IntegerField(source="league.season_id", allow_null=True)
    created_at = serializers.DateTimeField()
    closed_at = serializers.DateTimeField(allow_null=True)
    seats = _SeatsNowField(
        child=ClubGameSeatSerializer(),
        help_text="Who sits each seat now, seat 0 to 4: a re-seated name or the latest "
        "substitute (R38), with their club player (null: a guest).",
    )


class SeatLinkSerializer(StrictSerializer):
    player = WholeNumberField(
        allow_null=True, help_text="A player of the game's club; null makes the seat a guest's."
    )


# -- standings, histories, head-to-head, ratings ------------------------------------------


class StandingSerializer(serializers.Serializer):  # type: ignore[type-arg]
    player = serializers.IntegerField()
    display_name = serializers.CharField()
    member_number = serializers.CharField()
    rounds_played = serializers.IntegerField()
    rounds_won = serializers.IntegerField()
    first_cappu = serializers.IntegerField(help_text="Rounds ended by this player (R14).")
    ceki = serializers.IntegerField(help_text="FIRST CAPPU with CEKI (R15).")
    pollo = serializers.IntegerField(help_text="FIRST CAPPU with POLLO (R16).")
    manguno = serializers.IntegerField(help_text="Blocked rounds where they were MANGUNO (R17).")
    mattikkeng = serializers.IntegerField(help_text="Times MATTIKKENG (R19).")
    cucuq = serializers.IntegerField(help_text="Times CUCUQ (R21).")
    passes = serializers.IntegerField(help_text="Plain PASSes (R9), PASSEBUNGE not included.")
    passebunge = serializers.IntegerField(help_text="PASSEBUNGEs (R10).")
    stones_received = serializers.IntegerField(help_text="Stones received (R23); fewer is better.")
    stones_given = serializers.IntegerField(help_text="Stones handed to others (R23 shortfalls).")
    net_stones = serializers.IntegerField(help_text="Received minus given.")
    camat_elected = serializers.IntegerField(help_text="Times elected CAMAT (R24).")
    average_stones = serializers.FloatField(help_text="Stones received per round played.")


class PlayerRoundSerializer(serializers.Serializer):  # type: ignore[type-arg]
    game = serializers.UUIDField(source="game_id")
    season = serializers.IntegerField(source="season_id", allow_null=True)
    season_name = serializers.CharField(source="season.name", allow_null=True, default=None)
    played_at = serializers.DateTimeField(help_text="When the round was settled.")
    round = serializers.IntegerField(source="round_number")
    seat = serializers.IntegerField()
    won = serializers.BooleanField()
    named = serializers.ListField(
        child=serializers.CharField(),
        help_text="The named outcomes that fell on the player: FIRST CAPPU, CEKI, POLLO, "
        "MANGUNO, MATTIKKENG, CUCUQ, CAMAT.",
    )
    passes = serializers.IntegerField()
    passebunge = serializers.IntegerField()
    stones_received = serializers.IntegerField()
    stones_given = serializers.IntegerField()
    stones_held = serializers.IntegerField(help_text="Held after the round's awards (pre-reset).")


class PlayerGameSerializer(serializers.Serializer):  # type: ignore[type-arg]
    game = serializers.UUIDField()
    season = serializers.IntegerField(allow_null=True)
    season_name = serializers.CharField(allow_null=True)
    seat = serializers.IntegerField()
    status = GameStatusField()
    started_at = serializers.DateTimeField()
    last_played_at = serializers.DateTimeField()
    rounds_played = serializers.IntegerField()
    rounds_won = serializers.IntegerField()
    first_cappu = serializers.IntegerField()
    ceki = serializers.IntegerField()
    pollo = serializers.IntegerField()
    manguno = serializers.IntegerField()
    mattikkeng = serializers.IntegerField()
    cucuq = serializers.IntegerField()
    passes = serializers.IntegerField()
    passebunge = serializers.IntegerField()
    stones_received = serializers.IntegerField()
    stones_given = serializers.IntegerField()
    camat_elected = serializers.IntegerField()


class HeadToHeadQuerySerializer(serializers.Serializer):  # type: ignore[type-arg]
    a = serializers.IntegerField(min_value=1, max_value=MAX_ID)
    b = serializers.IntegerField(min_value=1, max_value=MAX_ID)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["a"] == attrs["b"]:
            raise serializers.ValidationError({"b": [gettext("Two different players.")]})
        return attrs


class HeadToHeadLineSerializer(serializers.Serializer):  # type: ignore[type-arg]
    rounds_won = serializers.IntegerField()
    first_cappu = serializers.IntegerField()
    ceki = serializers.IntegerField()
    pollo = serializers.IntegerField()
    manguno = serializers.IntegerField()
    mattikkeng = serializers.IntegerField()
    cucuq = serializers.IntegerField()
    passes = serializers.IntegerField()
    passebunge = serializers.IntegerField()
    stones_received = serializers.IntegerField()
    stones_given = serializers.IntegerField()
    camat_elected = serializers.IntegerField()
    cycles_ahead = serializers.IntegerField(
        help_text="CAMAT cycles credited to both (to who sat most of each, R38) where this "
        "player ranked ahead of the other (R24)."
    )


class HeadToHeadSideSerializer(serializers.Serializer):  # type: ignore[type-arg]
    player = PlayerSerializer()
    totals = HeadToHeadLineSerializer()


class HeadToHeadSeasonSerializer(serializers.Serializer):  # type: ignore[type-arg]
    season = serializers.IntegerField(allow_null=True)
    season_name = serializers.CharField(allow_null=True)
    games_together = serializers.IntegerField()
    rounds_together = serializers.IntegerField()
    a = HeadToHeadLineSerializer()
    b = HeadToHeadLineSerializer()


class HeadToHeadSerializer(serializers.Serializer):  # type: ignore[type-arg]
    games_together = serializers.IntegerField()
    rounds_together = serializers.IntegerField()
    a = HeadToHeadSideSerializer()
    b = HeadToHeadSideSerializer()
    seasons = HeadToHeadSeasonSerializer(many=True)


class RatingSerializer(serializers.Serializer):  # type: ignore[type-arg]
    rank = serializers.IntegerField(help_text="1-based; equal ordinals share a rank (1, 2, 2, 4).")
    player = serializers.IntegerField()
    display_name = serializers.CharField()
    mu = serializers.FloatField(help_text="OpenSkill Bradley–Terry μ (starts at 25).")
    sigma = serializers.FloatField(help_text="Uncertainty σ (starts at 25/3).")
    ordinal = serializers.FloatField(help_text="μ − 3σ: the conservative rating, sorted by.")
    cycles = serializers.IntegerField(help_text="Completed CAMAT cycles rated.")
    last_played_at = serializers.DateTimeField(allow_null=True)


class RatingsSerializer(serializers.Serializer):  # type: ignore[type-arg]
    model = serializers.CharField()
    season = serializers.IntegerField(allow_null=True)
    cycles = serializers.IntegerField(help_text="CAMAT cycles folded into these ratings.")
    results = RatingSerializer(many=True)


class _ClubSlugField(serializers.SlugRelatedField):  # type: ignore[type-arg]
    """A club's slug; one with a NUL character names no club (never sent to the database)."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str) and "\x00" in data:
            self.fail("does_not_exist", slug_name=self.slug_field, value=data)
        return super().to_internal_value(data)


def _caller(field: serializers.Field) -> Any:  # type: ignore[type-arg]
    """The user of the request in the serializer's context (``None`` without one)."""
    return getattr(field.context.get("request"), "user", None)


class _VisibleClubSlugField(_ClubSlugField):
    """A club's slug among the clubs the caller may read: a private club they may not read
    is refused as a slug no club has (issue 27: one answer for both)."""

    def get_queryset(self) -> Any:
        return selectors.clubs_visible(user=_caller(self))


class _VisibleSeasonField(serializers.PrimaryKeyRelatedField):  # type: ignore[type-arg]
    """A season's id among the seasons of the clubs the caller may read (as the club's)."""

    def get_queryset(self) -> Any:
        return Season.objects.filter(club__in=selectors.clubs_visible(user=_caller(self)))


class GameLeagueQuerySerializer(serializers.Serializer):  # type: ignore[type-arg]
    """``?club=<slug>&season=<id>`` on a game import: the league the game counts for."""

    club = _VisibleClubSlugField(
        slug_field="slug", queryset=Club.objects.all(), required=False, allow_null=True
    )
    season = _VisibleSeasonField(queryset=Season.objects.all(), required=False, allow_null=True)


def game_league_fields() -> dict[str, Any]:
    """A new game's league fields (``POST /games/``), new instances on each call: ``club``
    (its slug) and ``season`` (its id); ``referee.league`` puts them after ``rules``. Both
    are looked up among what the caller (``context["request"]``) may read, so a private
    club's slug or season is refused as a missing one, byte for byte but for the value."""
    return {
        "club": _VisibleClubSlugField(
            slug_field="slug",
            queryset=Club.objects.all(),
            required=False,
            allow_null=True,
            help_text="The club the game counts for (its slug); you must organise it.",
        ),
        "season": _VisibleSeasonField(
            queryset=Season.objects.all(),
            required=False,
            allow_null=True,
            help_text="The club's season (id); not an archived one. Implies the club.",
        ),
    }


def game_list_fields() -> dict[str, Any]:
    """A listed game's league fields (``GET /games/``), new instances on each call: ``club``
    (its slug) and ``season`` (its id), read through ``Game.league`` (the games of
    ``selectors.games_accessible`` have it); ``referee.league`` puts them after ``players``."""
    return {
        "club": serializers.CharField(
            source="league.club.slug", allow_null=True, help_text="The club's slug, if any."
        ),
        "season": serializers.IntegerField(
            source="league.season_id", allow_null=True, help_text="The club's season (id), if any."
        ),
    }
