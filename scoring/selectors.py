"""Reads of league records: who may read or manage a club, standings, histories, ratings.

Standings read the stored per-player totals (``PlayerTotals``: one row per
player, whatever the history) and ratings the stored ratings (``PlayerRating``),
both kept with the seat-rounds by ``scoring.services``. What the totals cannot
serve (a date range, a player's games, head-to-head) is one aggregate SQL query
over ``SeatRound`` (``values(...).annotate(...)``): a constant number of queries.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta, tzinfo
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import (
    Avg,
    Count,
    F,
    FloatField,
    Max,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Sum,
)
from django.db.models.functions import Cast, Coalesce, Round

from referee.models import Game, Occupant, Seat
from scoring import ratings as ratings_core
from scoring.models import (
    Club,
    GameLeague,
    Membership,
    Player,
    PlayerRating,
    PlayerTotals,
    RatingFold,
    Season,
    SeatRound,
)

UserLike = AbstractBaseUser | AnonymousUser | None

# A game's seats with their registered players (``SeatPlayer``) in the same query: for
# ``prefetch_related`` (``seat_players`` then reads them without a query).
SEATS = Prefetch("seats", queryset=Seat.objects.select_related("registered"))

# -- a game's league -----------------------------------------------------------------------


def game_league(*, game: Game) -> GameLeague | None:
    """The club and season ``game`` counts for (``None``: a friendly game), with its club.
    No query when read already (``select_related("league__club")``), else one, whose answer
    ``game.league`` keeps."""
    cache = game._state.fields_cache
    if "league" not in cache:  # the reverse one-to-one's cache: None is "no row"
        cache["league"] = GameLeague.objects.select_related("club").filter(game=game).first()
    return cache["league"]  # type: ignore[no-any-return]


def seat_players(*, game: Game) -> dict[int, int]:
    """Seat number (0–4) → the registered player who sits it from the game's start (R38;
    guests' seats absent). No query with the seats prefetched through ``SEATS``, else one."""
    seats = getattr(game, "_prefetched_objects_cache", {}).get("seats")
    if seats is not None and all(Seat.registered.is_cached(seat) for seat in seats):
        return {
            seat.number: seat.registered.player_id
            for seat in seats
            if getattr(seat, "registered", None) is not None
        }
    return dict(
        Seat.objects.filter(game=game, registered__isnull=False).values_list(
            "number", "registered__player"
        )
    )


def seats_now(game: Game) -> list[Occupant]:
    """Who sits each seat of ``game`` now (``Game.seats_now``: substitutes applied, R38)
    with the registered players the league keeps; a substitute's player since merged is
    the player they were merged into (``survivors``). No query beyond ``seat_players``'
    unless a club player substitutes."""
    registered = seat_players(game=game)
    now = game.seats_now(registered)
    named = {o.player_id for o in now if o.player_id is not None} - set(registered.values())
    if not named:
        return now
    into = survivors(named)
    return [
        o if o.player_id is None else replace(o, player_id=into.get(o.player_id, o.player_id))
        for o in now
    ]


def survivors(players: Iterable[int]) -> dict[int, int]:
    """Each merged player among ``players`` (ids) → the player they were merged into (a
    merge re-points earlier merges, so one step). Where a game names a player by id
    outside the league's own rows (a substitute's event, R38), this is who they are now.
    One query (none for no ids)."""
    wanted = set(players)
    if not wanted:
        return {}
    return dict(
        Player.objects.filter(pk__in=wanted, merged_into__isnull=False).values_list(
            "pk", "merged_into_id"
        )
    )


# -- who may do what -----------------------------------------------------------------------


def club_role(*, user: UserLike, club: Club) -> str | None:
    """The user's role in the club (``organiser``/``member``) or ``None`` (one query)."""
    if user is None or not user.is_authenticated:
        return None
    return (
        Membership.objects.filter(club=club, user_id=user.pk).values_list("role", flat=True).first()
    )


def club_can_manage(*, user: UserLike, club: Club | None) -> bool:
    """Organisers of the club (and staff) manage its players, seasons and games."""
    if club is None or user is None or not user.is_authenticated:
        return False
    if getattr(user, "is_staff", False):
        return True
    return Membership.objects.filter(
        club=club, user_id=user.pk, role=Membership.Role.ORGANISER
    ).exists()


def club_can_read(*, user: UserLike, club: Club) -> bool:
    """A published club's records are open to all; otherwise to its members (and staff)."""
    if club.is_public:
        return True
    if user is None or not user.is_authenticated:
        return False
    if getattr(user, "is_staff", False):
        return True
    return Membership.objects.filter(club=club, user_id=user.pk).exists()


def game_organised_by(*, user: UserLike, game: Game) -> bool:
    """Whether the user organises the game's club (a director may correct its events)."""
    if user is None or not user.is_authenticated:
        return False
    return Membership.objects.filter(
        club__games__game=game, user_id=user.pk, role=Membership.Role.ORGANISER
    ).exists()


def games_accessible(*, user: UserLike) -> QuerySet[Game]:
    """The games an organiser may use, newest first: those they created and those of the
    clubs they organise (staff: every game); with their club and seats (two queries)."""
    if user is None or not user.is_authenticated:
        return Game.objects.none()
    games = Game.objects.select_related("league__club").prefetch_related("seats")
    if not getattr(user, "is_staff", False):
        organised = Membership.objects.filter(
            user_id=user.pk, role=Membership.Role.ORGANISER
        ).values("club_id")
        games = games.filter(Q(created_by_id=user.pk) | Q(league__club_id__in=organised))
    return games.order_by("-created_at", "-pk")


def clubs_visible(*, user: UserLike) -> QuerySet[Club]:
    """The clubs a user may read: published ones and those they belong to (staff: all)."""
    clubs = Club.objects.all()
    if user is not None and user.is_authenticated:
        if getattr(user, "is_staff", False):
            return clubs
        return clubs.filter(Q(is_public=True) | Q(memberships__user_id=user.pk)).distinct()
    return clubs.filter(is_public=True)


# -- lists ---------------------------------------------------------------------------------


def club_players(*, club: Club, include_merged: bool = False) -> QuerySet[Player]:
    players = Player.objects.filter(club=club)
    if not include_merged:
        players = players.filter(merged_into__isnull=True)
    return players.order_by("display_name", "id")


def club_seasons(*, club: Club) -> QuerySet[Season]:
    return Season.objects.filter(club=club).order_by(F("starts_on").desc(nulls_last=True), "-id")


def club_games(*, club: Club) -> QuerySet[Game]:
    """The club's games, newest first, with their league and seats (with their registered
    players): two queries."""
    return (
        Game.objects.filter(league__club=club)
        .select_related("league")
        .prefetch_related(SEATS)
        .order_by("-created_at")
    )


# -- standings -----------------------------------------------------------------------------

STANDING_COLUMNS = (
    "player",
    "display_name",
    "member_number",
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
    "net_stones",
    "camat_elected",
    "average_stones",
)


def league_rows(*, club: Club, season: Season | None = None) -> QuerySet[SeatRound]:
    """The club's seat-rounds (one season's, or lifetime), registered players only."""
    rows = SeatRound.objects.filter(club=club, player__isnull=False)
    if season is not None:
        rows = rows.filter(season=season)
    return rows


def standings_totals(*, club: Club, season: Season | None = None) -> QuerySet[Any]:
    """Per player, the stored totals of the season (or lifetime): one row per player read.

    The same rows, columns and values as ``standings(league_rows(club, season))``
    (``PlayerTotals`` is kept equal to that aggregate), so it can be ordered and
    paged alike; players whose every round went (a correction) are left out.
    """
    totals = PlayerTotals.objects.filter(club=club, season=season, rounds_played__gt=0)
    return totals.annotate(
        display_name=F("player__display_name"),
        member_number=F("player__member_number"),
        net_stones=F("stones_received") - F("stones_given"),
        average_stones=Round(
            Cast(F("stones_received"), output_field=FloatField())
            / Cast(F("rounds_played"), output_field=FloatField()),
            3,
            output_field=FloatField(),
        ),
    ).values(*STANDING_COLUMNS)


def standings(rows: QuerySet[SeatRound]) -> QuerySet[Any]:
    """Per player, one aggregate query: rounds, named outcomes, passes, stones, CAMATs.

    Over any rows (e.g. a date range); ``standings_totals`` serves a whole season or
    the lifetime without reading the rows.

    ``average_stones`` is stones received per round played (3 decimals);
    ``net_stones`` received minus given. Rows are dicts with ``STANDING_COLUMNS``.
    """
    # Each aggregate is resolved when it is added, and in a values() query an annotation
    # may shadow the model field of the same name: the ones that read a field someone
    # else renames (stones_received) come first.
    return rows.values("player").annotate(
        display_name=F("player__display_name"),
        member_number=F("player__member_number"),
        net_stones=Coalesce(Sum("stones_received"), 0) - Coalesce(Sum("stones_given"), 0),
        average_stones=Round(
            Cast(Avg("stones_received"), output_field=FloatField()),
            3,
            output_field=FloatField(),
        ),
        rounds_played=Count("id"),
        rounds_won=Count("id", filter=Q(won=True)),
        **_counts(),
    )


def _counts() -> dict[str, Any]:
    """Per-row outcome counts and sums, named as the seat-round fields they add up."""
    return {
        "first_cappu": Count("id", filter=Q(first_cappu=True)),
        "ceki": Count("id", filter=Q(ceki=True)),
        "pollo": Count("id", filter=Q(pollo=True)),
        "manguno": Count("id", filter=Q(manguno=True)),
        "mattikkeng": Count("id", filter=Q(mattikkeng=True)),
        "cucuq": Count("id", filter=Q(cucuq=True)),
        "passes": Coalesce(Sum("passes"), 0),
        "passebunge": Coalesce(Sum("passebunge"), 0),
        "stones_received": Coalesce(Sum("stones_received"), 0),
        "stones_given": Coalesce(Sum("stones_given"), 0),
        "camat_elected": Count("id", filter=Q(camat_elected=True)),
    }


# -- a player's history --------------------------------------------------------------------


def player_rounds(*, player: Player) -> QuerySet[SeatRound]:
    """The player's rounds, newest first, with their game's season (one query a page)."""
    return (
        SeatRound.objects.filter(player=player)
        .select_related("season")
        .order_by("-played_at", "-game_id", "-round_number")
    )


def player_games(*, player: Player) -> QuerySet[Any]:
    """The player's games, newest first, each with its totals (one aggregate query)."""
    return (
        SeatRound.objects.filter(player=player)
        .values("game")
        .annotate(
            season_name=F("season__name"),
            started_at=F("game__created_at"),
            status=F("game__status"),
            last_played_at=Max("played_at"),
            rounds_played=Count("id"),
            rounds_won=Count("id", filter=Q(won=True)),
            **_counts(),
        )
        .annotate(season=F("season_id"), seat=F("seat"))
        .order_by("-last_played_at", "-game")
    )


HEAD_TO_HEAD_COLUMNS = (
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
    "cycles_ahead",
)


@dataclass(frozen=True)
class HeadToHead:
    """Two players over the rounds they sat at the same table (all seasons of the club)."""

    games_together: int
    rounds_together: int
    totals: dict[int, dict[str, int]]
    seasons: list[dict[str, Any]]


def head_to_head(*, rows: QuerySet[SeatRound], a: Player, b: Player) -> HeadToHead:
    """Player ``a`` against player ``b``: what each got in the rounds both played (3 queries).

    ``cycles_ahead`` counts the CAMAT cycles both are credited with (``cycle_player``: who
    sat most of the seat's cycle, R38, as the ratings credit it) where the player ranked
    ahead of the other: elected CAMAT, or holding fewer stones (R24).
    """
    pair = rows.filter(player__in=[a.pk, b.pk])
    # The other player's row of the same round, if they sat at that table.
    other = SeatRound.objects.filter(
        game=OuterRef("game"), round_number=OuterRef("round_number"), player__in=[a.pk, b.pk]
    ).exclude(player=OuterRef("player"))
    shared = pair.annotate(
        other_held=Subquery(other.values("stones_held")[:1]),
        other_camat=Subquery(other.values("camat_elected")[:1]),
    ).filter(other_held__isnull=False)
    # A cycle is the one it is credited to (R38): the rows ending it, by ``cycle_player``.
    other_cycle = SeatRound.objects.filter(
        game=OuterRef("game"),
        round_number=OuterRef("round_number"),
        cycle_ended=True,
        cycle_player__in=[a.pk, b.pk],
    ).exclude(cycle_player=OuterRef("cycle_player"))
    ahead = Q(camat_elected=True) | (Q(other_camat=False) & Q(stones_held__lt=F("other_held")))
    cycles_ahead = {
        (row["cycle_player"], row["season"]): row["ahead"]
        for row in rows.filter(cycle_ended=True, cycle_player__in=[a.pk, b.pk])
        .annotate(
            other_held=Subquery(other_cycle.values("stones_held")[:1]),
            other_camat=Subquery(other_cycle.values("camat_elected")[:1]),
        )
        .filter(other_held__isnull=False)
        .values("cycle_player", "season")
        .annotate(ahead=Count("id", filter=ahead))
        .order_by()
    }
    counts = {
        "rounds_won": Count("id", filter=Q(won=True)),
        **_counts(),
        "rounds": Count("id"),
        "games": Count("game", distinct=True),
    }
    by_season = list(
        shared.values("player", "season", "season__name")
        .annotate(**counts)
        .order_by(F("season__starts_on").asc(nulls_first=True), "season", "player")
    )
    totals: dict[int, dict[str, int]] = {
        a.pk: dict.fromkeys(HEAD_TO_HEAD_COLUMNS, 0),
        b.pk: dict.fromkeys(HEAD_TO_HEAD_COLUMNS, 0),
    }
    seasons: dict[Any, dict[str, Any]] = {}
    rounds_together = games_together = 0
    for row in by_season:
        season = seasons.setdefault(
            row["season"],
            {
                "season": row["season"],
                "season_name": row["season__name"],
                "rounds_together": row["rounds"],
                "games_together": row["games"],
                "players": {},
            },
        )
        row["cycles_ahead"] = cycles_ahead.pop((row["player"], row["season"]), 0)
        line = {key: row[key] for key in HEAD_TO_HEAD_COLUMNS}
        season["players"][row["player"]] = line
        for key in HEAD_TO_HEAD_COLUMNS:
            totals[row["player"]][key] += row[key]
    for (player, _season), ahead_count in cycles_ahead.items():  # no round together there
        totals[player]["cycles_ahead"] += ahead_count
    for season in seasons.values():
        rounds_together += season["rounds_together"]
        games_together += season["games_together"]
    return HeadToHead(games_together, rounds_together, totals, list(seasons.values()))


# -- ratings -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rating:
    """A player's OpenSkill rating (``scoring.ratings``): ``mu``, ``sigma``, ``ordinal``
    (μ − 3σ) and ``rank`` (1-based; equal ordinals share a rank: 1, 2, 2, 4)."""

    player: int
    display_name: str
    mu: float
    sigma: float
    ordinal: float
    cycles: int
    last_played_at: datetime | None
    rank: int = 0


@dataclass(frozen=True)
class Ratings:
    """The ratings of a club (or one season) and how many CAMAT cycles they fold."""

    cycles: int
    ratings: list[Rating]


def club_ratings(*, club: Club, season: Season | None = None, model: Any = None) -> Ratings:
    """The stored ratings of the club (or one season): two queries, no fold.

    ``scoring.services`` keeps them with the seat-rounds, equal to what
    ``club_ratings_folded`` computes from them (a correction flows through in
    its own transaction). Given a ``model`` other than the default, the
    ratings are folded anew with it.
    """
    if model is not None:
        return club_ratings_folded(club=club, season=season, model=model)
    fold = RatingFold.objects.filter(club=club, season=season).first()
    if fold is None:
        return Ratings(0, [])
    model = ratings_core.rating_model()
    rows = PlayerRating.objects.filter(club=club, season=season).values_list(
        "player_id", "player__display_name", "mu", "sigma", "cycles", "last_played_at"
    )
    result = [
        Rating(
            player=player,
            display_name=name,
            mu=round(mu, 4),
            sigma=round(sigma, 4),
            ordinal=round(model.rating(mu=mu, sigma=sigma).ordinal(), 4),
            cycles=cycles,
            last_played_at=last,
        )
        for player, name, mu, sigma, cycles, last in rows
    ]
    return _ranked(fold.cycles, result)


def club_ratings_folded(*, club: Club, season: Season | None = None, model: Any = None) -> Ratings:
    """Ratings folded from the club's completed CAMAT cycles in the order they ended.

    Each cycle — from every stone on the table (R22, R25) to an election
    (R24) — is one five-seat free-for-all: the CAMAT first, the others by the
    stones they held when it ended (before the reset), fewer is better, equal
    stones a tie (``scoring.ratings``: Bradley–Terry, full pairing). Guest
    seats take part with a fresh default rating each time and are not kept.
    Folded on every call from ``SeatRound`` (what the stored ratings must
    equal); two queries, then one ``rate`` per cycle. Best first (highest
    ordinal); equal ordinals share a rank and are listed by name.
    """
    model = model or ratings_core.rating_model()
    ends = SeatRound.objects.filter(club=club, cycle_ended=True)
    if season is not None:
        ends = ends.filter(season=season)
    rows = ends.order_by("played_at", "game_id", "round_number", "seat").values_list(
        "game_id", "round_number", "cycle_player_id", "camat_elected", "stones_held", "played_at"
    )
    ratings: dict[int, Any] = {}
    cycles: dict[int, int] = {}
    last: dict[int, datetime] = {}
    played = 0
    for table in _tables(rows):
        played += 1
        seats = [ratings_core.CycleSeat(row[2], row[3], row[4]) for row in table]
        ratings_core.rate_cycle(model, ratings, seats)
        for _, _, player, _, _, played_at in table:
            if player is not None:
                cycles[player] = cycles.get(player, 0) + 1
                last[player] = played_at
    names = dict(Player.objects.filter(pk__in=ratings).values_list("pk", "display_name"))
    result = [
        Rating(
            player=player,
            display_name=names.get(player, ""),
            mu=round(rating.mu, 4),
            sigma=round(rating.sigma, 4),
            ordinal=round(rating.ordinal(), 4),
            cycles=cycles[player],
            last_played_at=last.get(player),
        )
        for player, rating in ratings.items()
    ]
    return _ranked(played, result)


def _ranked(cycles: int, result: list[Rating]) -> Ratings:
    """Best first (highest ordinal), equal ordinals by name then id, sharing a rank."""
    result.sort(key=lambda r: (-r.ordinal, r.display_name, r.player))
    ranks = ratings_core.competition_ranks(r.ordinal for r in result)
    return Ratings(cycles, [replace(r, rank=k) for r, k in zip(result, ranks, strict=True)])


def _tables(rows: Iterable[tuple[Any, ...]]) -> Iterable[list[tuple[Any, ...]]]:
    """Group the ordered rows into one table (five seats) per cycle-ending round."""
    table: list[tuple[Any, ...]] = []
    key = None
    for row in rows:
        if (row[0], row[1]) != key and table:
            yield table
            table = []
        key = (row[0], row[1])
        table.append(row)
    if table:
        yield table


@dataclass(frozen=True)
class PlayerEvening:
    """One club evening of a player (``scoring.web``'s picture): the evening's local
    ``date`` (from ``starts_at`` o'clock to the next day's, club time), ``rounds`` played,
    rounds ``won``, stones ``received`` (R23) and the player's rating ordinal (μ − 3σ)
    once the evening's CAMAT cycles are folded (R24; ``None`` before the first one)."""

    date: date
    rounds: int
    won: int
    received: int
    rating: float | None


def player_evenings(
    *, club: Club, player: Player, season: Season | None, tz: tzinfo, starts_at: int
) -> list[PlayerEvening]:
    """A player's evenings at the club (or in one season), oldest first.

    Two queries whatever the number of evenings: the player's settled seat-rounds, and the
    club's cycle-ending rounds folded in order as ``club_ratings_folded`` does (the rating
    after an evening is the one after the last cycle that ended that evening or before).
    """

    def evening(at: datetime) -> date:
        return (at.astimezone(tz) - timedelta(hours=starts_at)).date()

    rows = league_rows(club=club, season=season).filter(player=player)
    nights: dict[date, list[int]] = {}
    for played_at, was_won, stones in rows.order_by("played_at").values_list(
        "played_at", "won", "stones_received"
    ):
        counts = nights.setdefault(evening(played_at), [0, 0, 0])
        counts[0] += 1
        counts[1] += int(was_won)
        counts[2] += stones
    if not nights:
        return []
    model = ratings_core.rating_model()
    ends = SeatRound.objects.filter(club=club, cycle_ended=True)
    if season is not None:
        ends = ends.filter(season=season)
    cycles = ends.order_by("played_at", "game_id", "round_number", "seat").values_list(
        "game_id", "round_number", "cycle_player_id", "camat_elected", "stones_held", "played_at"
    )
    ratings: dict[int, Any] = {}
    after: dict[date, float] = {}
    for table in _tables(cycles):
        seats = [ratings_core.CycleSeat(row[2], row[3], row[4]) for row in table]
        ratings_core.rate_cycle(model, ratings, seats)
        if player.pk in ratings:
            after[evening(table[0][5])] = round(ratings[player.pk].ordinal(), 4)
    result = []
    latest: float | None = None
    folded = sorted(after.items())
    for night, (rounds, won, received) in sorted(nights.items()):
        while folded and folded[0][0] <= night:
            latest = folded.pop(0)[1]
        result.append(PlayerEvening(night, rounds, won, received, latest))
    return result
