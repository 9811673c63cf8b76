"""Writes to league records: clubs, members, players, seasons, seats, and the seat-round stats.

The stats (``SeatRound``) are derived from a game's events and written in
the same transaction as the referee's write that changed them: when an event
settles a round, that round's five rows are inserted (a constant cost); after
an undo, an amendment or an import the game's rows are rebuilt from the fold.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import IntegrityError, connection, transaction
from django.db.models import Count, Exists, IntegerField, Max, OuterRef, Q, QuerySet, Sum
from django.db.models.functions import Cast
from django.utils import timezone
from django.utils.translation import gettext

from referee import folding, store
from referee.engine import Game as EngineGame
from referee.engine.names import identity_key
from referee.languages import default_language
from referee.models import Event, Game, Seat
from scoring import ratings as ratings_core
from scoring import selectors
from scoring.exceptions import (
    ClubRequired,
    ClubSlugTaken,
    LastOrganiser,
    MemberNumberTaken,
    MergeInvalid,
    NotClubOrganiser,
    PlayerMerged,
    PlayerNotInClub,
    PlayerSeatedElsewhere,
    PlayerTwice,
    SeasonArchived,
    SeasonEndsBeforeStart,
    SeasonNameTaken,
    SeasonNotInClub,
    UserUnknown,
)
from scoring.lines import LINE_FIELDS, SeatLine, game_lines, round_lines
from scoring.models import (
    TOTAL_FIELDS,
    Club,
    GameLeague,
    Membership,
    Player,
    PlayerMerge,
    PlayerRating,
    PlayerTotals,
    RatingFold,
    RatingStep,
    Season,
    SeatLink,
    SeatPlayer,
    SeatRound,
    ends_before_start,
)
from scoring.zones import default_time_zone

UserLike = AbstractBaseUser | AnonymousUser | None

# The range of a player's id (``BigAutoField``).
PLAYER_ID_MIN, PLAYER_ID_MAX = 1, 2**63 - 1


def _user_or_none(user: UserLike) -> Any:
    return user if user is not None and user.is_authenticated else None


def _require_organiser(user: UserLike, club: Club) -> None:
    if not selectors.club_can_manage(user=user, club=club):
        raise NotClubOrganiser()


# -- clubs and members ---------------------------------------------------------------------


@transaction.atomic
def club_create(
    *,
    name: str,
    slug: str,
    is_public: bool = False,
    time_zone: str | None = None,
    language: str | None = None,
    created_by: Any,
) -> Club:
    """Create a club; its creator becomes its first organiser. ``time_zone``: an IANA name
    (checked by the caller, ``scoring.zones.is_time_zone``), else the server's
    ``TIME_ZONE``; ``language``: one of ``LANGUAGES`` (checked by the caller), else the
    server's ``LANGUAGE_CODE``. Raises ``club_slug_taken``."""
    if Club.objects.filter(slug=slug).exists():
        raise ClubSlugTaken()
    club = Club.objects.create(
        name=name.strip(),
        slug=slug,
        is_public=is_public,
        time_zone=time_zone or default_time_zone(),
        language=language or default_language(),
    )
    Membership.objects.create(club=club, user=created_by, role=Membership.Role.ORGANISER)
    return club


@transaction.atomic
def club_update(
    *,
    club: Club,
    by: UserLike,
    name: str | None = None,
    is_public: bool | None = None,
    time_zone: str | None = None,
    language: str | None = None,
) -> Club:
    """Rename a club, publish/unpublish its records, move it to another IANA time zone
    (``time_zone``, checked by the caller) or change its pages' language (``language``,
    one of ``LANGUAGES``, checked by the caller) (organisers)."""
    _require_organiser(by, club)
    if name is not None:
        club.name = name.strip()
    if is_public is not None:
        club.is_public = is_public
    if time_zone is not None:
        club.time_zone = time_zone
    if language is not None:
        club.language = language
    club.save(update_fields=["name", "is_public", "time_zone", "language"])
    return club


@transaction.atomic
def membership_set(*, club: Club, username: str, role: str, by: UserLike) -> Membership:
    """Give a user a role in the club (organiser or member). Raises ``user_unknown``, and
    ``last_organiser`` for the club's only organiser made a member (no one could manage it)."""
    _require_organiser(by, club)
    user = get_user_model().objects.filter(**{get_user_model().USERNAME_FIELD: username}).first()
    if user is None:
        raise UserUnknown()
    if role != Membership.Role.ORGANISER:
        Club.objects.select_for_update().filter(pk=club.pk).first()  # one role change at a time
        check_organiser_left(club=club, organisers=_organisers(club) - {user.pk})
    membership, _ = Membership.objects.update_or_create(
        club=club, user=user, defaults={"role": role}
    )
    return membership


def _organisers(club: Club) -> set[int]:
    return set(
        Membership.objects.filter(club=club, role=Membership.Role.ORGANISER).values_list(
            "user_id", flat=True
        )
    )


def check_organiser_left(*, club: Club, organisers: set[int]) -> None:
    """Refuse (``last_organiser``) a change of the club's roles that would leave it, which
    has organisers, with none (``organisers``: the users who would organise it after).
    The API's ``membership_set`` and the admin's club form both ask it."""
    if not organisers and _organisers(club):
        raise LastOrganiser()


def clubs_organised_only_by(*, user: Any) -> list[Club]:
    """The clubs whose only organiser is ``user`` (a user object or id): deleting the user's
    account would leave each without one. One query."""
    pk = getattr(user, "pk", user)
    others = Membership.objects.filter(club=OuterRef("pk"), role=Membership.Role.ORGANISER).exclude(
        user_id=pk
    )
    return list(
        Club.objects.filter(memberships__user_id=pk, memberships__role=Membership.Role.ORGANISER)
        .exclude(Exists(others))
        .order_by("name", "pk")
    )


def check_user_deletable(*, user: Any) -> None:
    """Refuse (``last_organiser``, 409) to delete the account of a club's last organiser,
    which would leave the club with no one to manage it (issue 32): name another organiser
    first. Asked before any user is deleted (``scoring.receivers.user_deleting``, Django's
    ``pre_delete``), so the admin, the shell and any service alike keep the rule; the
    admin's delete page lists those clubs as what protects the account."""
    clubs = clubs_organised_only_by(user=user)
    if clubs:
        raise LastOrganiser(club=clubs[0].slug)


# -- players -------------------------------------------------------------------------------


@transaction.atomic
def player_create(
    *, club: Club, display_name: str, member_number: str = "", by: UserLike
) -> Player:
    """Register a player of the club. Raises ``member_number_taken``."""
    _require_organiser(by, club)
    _check_member_number(club, member_number.strip(), None)
    return Player.objects.create(
        club=club, display_name=display_name.strip(), member_number=member_number.strip()
    )


@transaction.atomic
def player_update(
    *,
    player: Player,
    by: UserLike,
    display_name: str | None = None,
    member_number: str | None = None,
) -> Player:
    """Rename a player or change their member number (not a merged one)."""
    _require_organiser(by, player.club)
    if player.is_merged:
        raise PlayerMerged()
    if display_name is not None:
        player.display_name = display_name.strip()
    if member_number is not None:
        _check_member_number(player.club, member_number.strip(), player.pk)
        player.member_number = member_number.strip()
    player.save(update_fields=["display_name", "member_number"])
    return player


def _check_member_number(club: Club, number: str, exclude: int | None) -> None:
    if not number:
        return
    # Compared as people read it: NFKC and case folding (``É-7`` NFC/NFD, ``B-01``/``Ｂ-01``).
    taken = Player.objects.filter(
        club=club, member_key=identity_key(number), merged_into__isnull=True
    )
    if exclude is not None:
        taken = taken.exclude(pk=exclude)
    if taken.exists():
        raise MemberNumberTaken()


@transaction.atomic
def player_merge(
    *, survivor: Player, duplicate: Player, by: UserLike, reason: str = ""
) -> PlayerMerge:
    """Merge a duplicate into the player that stays; nothing of either history is lost.

    The duplicate's seats and seat-rounds are re-pointed to the survivor, the
    duplicate is marked merged (kept, never deleted) and a ``PlayerMerge``
    records who did it and what moved. The games of the duplicate are locked
    first, so a round settled meanwhile cannot keep the old player. Raises
    ``merge_invalid`` for players of two clubs, the same player, one already
    merged, or two players who sat at the same game (they are two people).
    """
    _require_organiser(by, survivor.club)
    if survivor.club_id != duplicate.club_id or survivor.pk == duplicate.pk:
        raise MergeInvalid()
    game_ids = sorted(_games_sat(duplicate), key=str)
    store.lock_games(game_ids)
    locked = {
        p.pk: p
        for p in Player.objects.select_for_update().filter(pk__in=[survivor.pk, duplicate.pk])
    }
    survivor, duplicate = locked[survivor.pk], locked[duplicate.pk]
    if survivor.is_merged or duplicate.is_merged:
        raise PlayerMerged()
    if _games_sat(survivor) & set(game_ids):  # a seat, a substitute's or a round's row
        raise MergeInvalid(
            gettext("These players sat at the same game: they are two people, not duplicates.")
        )
    seats_moved = SeatPlayer.objects.filter(player=duplicate).update(player=survivor)
    both = SeatRound.objects.filter(
        Q(player__in=[survivor, duplicate]) | Q(cycle_player__in=[survivor, duplicate])
    )
    old = list(both.values(*ROW_FIELDS))
    rows_moved = SeatRound.objects.filter(player=duplicate).update(player=survivor)
    SeatRound.objects.filter(cycle_player=duplicate).update(cycle_player=survivor)
    _rows_replace(old, list(both.values(*ROW_FIELDS)))
    Player.objects.filter(merged_into=duplicate).update(merged_into=survivor)
    merge = PlayerMerge.objects.create(
        club=survivor.club,
        survivor=survivor,
        merged=duplicate,
        merged_name=duplicate.display_name,
        merged_member_number=duplicate.member_number,
        seats_moved=seats_moved,
        seat_rounds_moved=rows_moved,
        merged_by=_user_or_none(by),
        reason=reason,
    )
    duplicate.merged_into = survivor
    duplicate.save(update_fields=["merged_into"])
    if not survivor.member_number and duplicate.member_number:
        survivor.member_number = duplicate.member_number
        survivor.save(update_fields=["member_number"])
    return merge


def _games_sat(player: Player) -> set[Any]:
    """The games ``player`` sat in any way (R38): a seat from the start, a substitute's
    event naming them, or a seat-round credited to them. Three queries."""
    seats = SeatPlayer.objects.filter(player=player).values_list("seat__game_id", flat=True)
    rows = SeatRound.objects.filter(player=player).values_list("game_id", flat=True)
    subs = Event.objects.filter(
        kind=Event.Kind.SUBSTITUTE, revoked_by__isnull=True, payload__player=player.pk
    ).values_list("game_id", flat=True)
    return {*seats.distinct(), *rows.order_by().distinct(), *subs.distinct()}


# -- seasons -------------------------------------------------------------------------------


@transaction.atomic
def season_create(
    *,
    club: Club,
    name: str,
    by: UserLike,
    starts_on: Any = None,
    ends_on: Any = None,
) -> Season:
    """Open a season of the club. Raises ``season_name_taken``, and ``invalid`` for a
    season that ends before it starts."""
    _require_organiser(by, club)
    if ends_before_start(starts_on, ends_on):
        raise SeasonEndsBeforeStart()
    if Season.objects.filter(club=club, name=name.strip()).exists():
        raise SeasonNameTaken()
    return Season.objects.create(club=club, name=name.strip(), starts_on=starts_on, ends_on=ends_on)


@transaction.atomic
def season_update(*, season: Season, by: UserLike, **fields: Any) -> Season:
    """Rename a season or change its dates (``name``, ``starts_on``, ``ends_on``); the
    period as it would be stored is checked (``invalid``)."""
    _require_organiser(by, season.club)
    if "name" in fields:
        name = fields["name"].strip()
        if Season.objects.filter(club=season.club, name=name).exclude(pk=season.pk).exists():
            raise SeasonNameTaken()
        season.name = name
    for key in ("starts_on", "ends_on"):
        if key in fields:
            setattr(season, key, fields[key])
    if ends_before_start(season.starts_on, season.ends_on):  # a date against the stored one
        raise SeasonEndsBeforeStart()
    season.save(update_fields=["name", "starts_on", "ends_on"])
    return season


@transaction.atomic
def season_archive(*, season: Season, by: UserLike) -> Season:
    """Archive a season: its records stay, no new game may join it (never deleted)."""
    _require_organiser(by, season.club)
    if not season.is_archived:
        season.is_archived = True
        season.archived_at = timezone.now()
        season.save(update_fields=["is_archived", "archived_at"])
    return season


# -- games: who sits where -----------------------------------------------------------------


@dataclass(frozen=True)
class LeagueSeating:
    """A new game's club, season and seats: (name, registered player or ``None``) each."""

    club: Club | None
    season: Season | None
    seats: list[tuple[Any, Player | None]]

    @property
    def names(self) -> list[Any]:
        return [name for name, _ in self.seats]


def game_league_resolve(
    *,
    players: Sequence[Any],
    club: Club | None = None,
    season: Season | None = None,
    created_by: UserLike = None,
) -> LeagueSeating:
    """Check a new game's seats against its club: each a guest's name or a player id.

    A name (``str``) is a guest; an ``int`` (or ``{"player": id}``) is a
    registered player of the game's club, seated under their display name.
    The club is taken from the season when only a season is given. Anything
    else is passed through for the record check (``record_invalid``, R3).
    Raises ``club_required``, ``season_not_in_club``, ``season_archived``,
    ``not_club_organiser`` (a creator who does not organise the club),
    ``player_not_in_club``, ``player_merged`` and ``player_twice``.
    """
    if season is not None:
        if club is None:
            club = season.club
        elif season.club_id != club.pk:
            raise SeasonNotInClub()
        if season.is_archived:
            raise SeasonArchived()
    wanted = [_player_id(entry) for entry in players]
    ids = [pk for pk in wanted if pk is not None]
    if ids and club is None:
        raise ClubRequired()
    if club is not None and created_by is not None:
        _require_organiser(created_by, club)
    # An id no player can have (out of the primary key's range) is simply not the club's:
    # never sent to the database, which would overflow (SQLite: OverflowError).
    possible = [pk for pk in ids if PLAYER_ID_MIN <= pk <= PLAYER_ID_MAX]
    found = {p.pk: p for p in Player.objects.filter(club=club, pk__in=possible)} if possible else {}
    if len(set(ids)) != len(ids):
        raise PlayerTwice()
    seats: list[tuple[Any, Player | None]] = []
    for entry, pk in zip(players, wanted, strict=True):
        if pk is None:
            seats.append((entry, None))
            continue
        player = found.get(pk)
        if player is None:
            raise PlayerNotInClub(player=pk)
        if player.is_merged:
            raise PlayerMerged(player=pk, merged_into=player.merged_into_id)
        seats.append((player.display_name, player))
    return LeagueSeating(club, season, seats)


def _player_id(entry: Any) -> int | None:
    if isinstance(entry, Mapping) and set(entry) == {"player"}:
        entry = entry["player"]
    if isinstance(entry, int) and not isinstance(entry, bool):
        return entry
    return None


@transaction.atomic
def seat_link(*, game: Game, seat_number: int, player: Player | None, by: UserLike) -> Seat:
    """Link a seat to a registered player of the game's club (``None`` makes it a guest).

    E.g. a guest identified after the game. The seat's rounds follow; the
    link is audited (``SeatLink``). The game row is locked like every write
    to a game. Raises ``not_club_organiser``, ``player_not_in_club``,
    ``player_merged`` and ``player_twice`` (already in another seat).
    """
    game = store.lock(game.pk)
    league = selectors.game_league(game=game)
    if league is None:
        raise ClubRequired()
    _require_organiser(by, league.club)
    seat = Seat.objects.select_related("registered__player").get(game=game, number=seat_number)
    if player is not None:
        if player.club_id != league.club_id:
            raise PlayerNotInClub(player=player.pk)
        if player.is_merged:
            raise PlayerMerged(player=player.pk, merged_into=player.merged_into_id)
        if (
            SeatPlayer.objects.filter(seat__game=game, player=player)
            .exclude(seat_id=seat.pk)
            .exists()
        ):
            raise PlayerTwice()
    registered = getattr(seat, "registered", None)
    SeatLink.objects.create(
        seat=seat,
        previous=registered.player if registered is not None else None,
        player=player,
        linked_by=_user_or_none(by),
    )
    _seat_player_write(seat, player.pk if player is not None else None)
    rows = SeatRound.objects.filter(game=game, seat=seat_number)
    old = list(rows.values(*ROW_FIELDS))
    rows.update(player=player)
    _rows_replace(old, list(rows.values(*ROW_FIELDS)))
    return seat


@transaction.atomic
def game_league_assign(*, game: Game, club: Club | None, season: Season | None) -> Game:
    """Put a game in a club and season (e.g. from the admin); its seat-rounds follow.

    Raises ``season_not_in_club`` and ``season_archived``; a club change
    with registered players seated is ``player_not_in_club``.
    """
    game = store.lock(game.pk)
    current = selectors.game_league(game=game)
    if season is not None:
        if club is None:
            club = season.club
        if season.club_id != club.pk:
            raise SeasonNotInClub()
        if season.is_archived and (current is None or season.pk != current.season_id):
            raise SeasonArchived()
    if club is None or current is None or club.pk != current.club_id:
        if SeatPlayer.objects.filter(seat__game=game).exists():
            raise PlayerNotInClub()
    if club is None:
        GameLeague.objects.filter(game=game).delete()
    else:
        GameLeague.objects.update_or_create(game=game, defaults={"club": club, "season": season})
    rows = SeatRound.objects.filter(game=game)
    old = list(rows.values(*ROW_FIELDS))
    rows.update(club=club, season=season)
    _rows_replace(old, list(rows.values(*ROW_FIELDS)))
    return game


def game_league_record(
    *,
    game: Game,
    club_id: int | None,
    season_id: int | None,
    players: Sequence[int | None],
    seats: Sequence[Seat],
) -> None:
    """Keep a new game's league (``referee.signals.game_created``, in its transaction): its
    club and season (``GameLeague``, none for a friendly game) and each seat's registered
    player (``SeatPlayer``, none for a guest). ``seats``: the game's five saved seats, seat
    0–4; ``players``: their player ids as ``ClubLeague.seating`` resolved them. No query for
    a guests' friendly game, two at most otherwise."""
    if club_id is not None:
        GameLeague.objects.create(game=game, club_id=club_id, season_id=season_id)
    links = [
        SeatPlayer(seat=seat, player_id=player)
        for seat, player in zip(seats, players, strict=True)
        if player is not None
    ]
    if links:
        SeatPlayer.objects.bulk_create(links)


def seat_player_set(*, seat: Seat, player: int | None) -> None:
    """A re-seating (``referee.signals.seat_reseated``, R38): ``seat`` is sat from the game's
    start by the registered ``player`` (its id), or a guest (``None``). One query, two when
    a guest's seat gets a player; the caller holds the game's lock."""
    _seat_player_write(seat, player)


def _seat_player_write(seat: Seat, player: int | None) -> None:
    if player is None:
        SeatPlayer.objects.filter(seat=seat).delete()
    elif not SeatPlayer.objects.filter(seat=seat).update(player_id=player):
        SeatPlayer.objects.create(seat=seat, player_id=player)


# -- the seat-round stats (scoring.receivers, on the referee's signals, in its transaction) ---


def seat_rounds_settle(
    *, game: Game, engine: EngineGame, snapshot: Mapping[str, Any], played_at: datetime
) -> None:
    """Store the five seat-rounds of the round the last event settled; totals follow.

    ``engine`` is the fold that applied the event, resumed from ``snapshot``
    (``Game.state["snapshot"]``: the standing at the start of its first round).
    Two statements for a game in no club (the seats' players, one multi-row
    ``INSERT … ON CONFLICT DO NOTHING``), two more for a club's game (the totals'
    upserts), and, when the round ended a CAMAT cycle, one to read the cycle's earlier
    rounds (its rows are rated for whoever sat most of them, R38) and the ratings'. Any rows
    already stored for that round (left by a path that did not delete them) are
    replaced: those the insert skipped are read, deleted and inserted again (three
    statements more), and leave the totals and ratings as they go. Without
    ``RETURNING`` (SQLite before 3.35) the round's rows are read (and deleted, if
    any) before the insert: one statement more, two with rows there.
    """
    game_round = engine.rounds[-1]
    if len(engine.rounds) >= 2:
        previous = engine.rounds[-2].after
        assert previous is not None
        before: Sequence[int] = previous.stones
    else:
        before = snapshot["standing"]["stones"]
    player_of, club_id, season_id = _players_by_round(game)
    lines = list(round_lines(game_round, before))
    credited: dict[tuple[int, int], int | None] = {}
    if any(line.cycle_ended for line in lines):  # the cycle's earlier rounds: one query
        earlier = SeatRound.objects.filter(
            game=game, round_number__lt=game_round.round.number
        ).values_list("round_number", "seat", "player_id", "cycle_ended")
        sat = [
            *earlier,
            *(
                (ln.round_number, ln.seat, player_of(ln.round_number, ln.seat), ln.cycle_ended)
                for ln in lines
            ),
        ]
        credited = _cycle_players(sat)
    new = [
        {
            "club_id": club_id,
            "season_id": season_id,
            "player_id": player_of(line.round_number, line.seat),
            "cycle_player_id": credited.get((line.round_number, line.seat)),
            "game_id": game.pk,
            "played_at": played_at,
            **line.to_dict(),
        }
        for line in lines
    ]
    # Without ``RETURNING`` (SQLite before 3.35) the round's rows are looked up first.
    returning = _returning()
    stored = _settle_insert(game, played_at, new, returning) if returning else set()
    old: list[Row] = []
    if len(stored) < len(new):  # some seats' rows were there: replace them
        number = game_round.round.number
        left = [row for row in new if row["seat"] not in stored]
        rows = SeatRound.objects.filter(
            game=game, round_number=number, seat__in=[row["seat"] for row in left]
        )
        old = list(rows.values(*ROW_FIELDS))
        if old:
            rows.delete()
        stored |= _settle_insert(game, played_at, left, returning)
        assert len(stored) == len(new), (number, stored)
    _rows_replace(old, new)


def _returning() -> bool:
    """Whether the database returns columns from an ``INSERT`` (PostgreSQL; SQLite >= 3.35)."""
    return bool(connection.features.can_return_columns_from_insert)


# ``SeatRound``'s columns a settle inserts, in ``_settle_insert``'s order.
_SETTLE_COLUMNS = (
    "game_id",
    "player_id",
    "club_id",
    "season_id",
    "played_at",
    *LINE_FIELDS,
    "cycle_player_id",
)


def _settle_insert(
    game: Game, played_at: datetime, rows: Sequence[Row], returning: bool
) -> set[int]:
    """Insert the seat-rounds ``rows`` (dicts of ``_SETTLE_COLUMNS``) of one round of
    ``game`` where none is stored yet: one statement. Returns the seats inserted (a seat
    whose row was already there is skipped, ``ON CONFLICT DO NOTHING``). Without
    ``RETURNING`` (``returning`` false: SQLite before 3.35) the caller has deleted them:
    all are inserted."""
    game_id = Game._meta.pk.get_db_prep_value(game.pk, connection)  # type: ignore[union-attr]
    at = connection.ops.adapt_datetimefield_value(played_at)
    fixed = {"game_id": game_id, "played_at": at}
    params = [fixed.get(column, row[column]) for row in rows for column in _SETTLE_COLUMNS]
    with connection.cursor() as cursor:
        cursor.execute(_settle_sql(len(rows), returning), params)
        if returning:
            return {seat for (seat,) in cursor.fetchall()}
        assert cursor.rowcount == len(rows), (cursor.rowcount, len(rows))
    return {row["seat"] for row in rows}


@cache
def _settle_sql(count: int, returning: bool) -> str:
    """``INSERT`` of ``count`` seat-rounds, skipping any whose game, round and seat are
    stored (``seat_round_unique``), ``returning`` the seats inserted (PostgreSQL, and
    SQLite >= 3.35)."""
    quote = connection.ops.quote_name
    table = quote(SeatRound._meta.db_table)
    row = "(" + ", ".join(["%s"] * len(_SETTLE_COLUMNS)) + ")"
    return (
        f"INSERT INTO {table} ({', '.join(map(quote, _SETTLE_COLUMNS))}) "
        f"VALUES {', '.join([row] * count)} "
        f"ON CONFLICT ({quote('game_id')}, {quote('round_number')}, {quote('seat')}) "
        "DO NOTHING" + (f" RETURNING {quote('seat')}" if returning else "")
    )


def seat_rounds_rebuild(
    *,
    game: Game,
    engine: EngineGame | None = None,
    played_at: datetime | None = None,
    settled_at: Mapping[int, datetime] | None = None,
    snapshot: Mapping[str, Any] | None = None,
    until: int | None = None,
) -> tuple[int, int]:
    """Bring the game's seat-rounds in line with the fold of its live events.

    ``engine`` may be resumed after the game's first rounds (``rounds_before``, a
    correction of round k, issue 29) from ``snapshot`` (``{"round": k, "rounds_played",
    "standing"}``): the rows of the rounds before k are then kept as stored, and only
    those from k on are compared and written (a CAMAT cycle begun before k is credited
    from the rows of its first rounds, R38).

    ``engine`` is that fold if the caller has it, with ``settled_at`` (round
    number → the time of the event that settled it); without them the live
    events are loaded and folded here. A round keeps the time it was settled
    at the table: the time already stored for it, else that of the event that
    settled it (an event keeps its first entry's time), else ``played_at`` (an
    import's date) or the game's creation. So a correction never re-dates a
    round (issue 13 item 5). A voided round has no row (R35); each round is
    credited to whoever sat it (R38). Only the rows whose values changed are
    written (deleted and inserted again: three queries at most, with the seats'
    players); returns how many rows were deleted and inserted. Called after
    any correction or an import, in the same transaction.

    ``until``: ``engine`` was judged only to that round, a CAMAT's election (R24) that the
    stored rows hold too, after which every round is as stored (a ruling, issue 29): the
    rows after it are kept as they are.
    """
    if engine is None or settled_at is None:
        live = list(game.events.filter(revoked_by__isnull=True).order_by("position"))
        pairs = [(event.kind, event.payload) for event in live]
        folded, effects = folding.fold(store.rules_of(game), pairs)
        engine = engine or folded
        settled_at = {
            effect.round: event.created_at
            for event, effect in zip(live, effects, strict=True)
            if effect.settled
        }
    times = settled_at
    since = engine.rounds_before + 1
    stones = None
    if since > 1:
        if snapshot is None or snapshot["rounds_played"] != engine.rounds_before:
            raise ValueError("a resumed fold comes with the snapshot it resumed from")
        stones = snapshot["standing"]["stones"]
    lines = list(game_lines(engine, stones))
    if until is not None:
        lines = [line for line in lines if line.round_number <= until]
    return _sync(
        game,
        lines,
        lambda number: (
            (played_at if played_at is not None else times.get(number)) or game.created_at
        ),
        since=since,
        until=until,
    )


# A seat-round's values that a fold derives (besides its game, round and seat).
_DERIVED = (
    "player_id",
    "club_id",
    "season_id",
    *(f.name for f in dataclasses.fields(SeatLine)),
    "cycle_player_id",
)


def _sync(
    game: Game, lines: list[SeatLine], dated: Any, since: int = 1, until: int | None = None
) -> tuple[int, int]:
    """Write only the seat-rounds whose values differ from ``lines`` (delete them, insert
    them again) and those of rounds not stored yet; delete those of rounds gone. A row kept
    or rewritten keeps its ``played_at``; a new round's is ``dated(round_number)``.
    ``since``: ``lines`` are those of the rounds from ``since`` on, and the rows before it
    stay; those of the CAMAT cycle under way at ``since`` (from the round after the last
    election before it, R24) are read to credit it (R38): two queries more. ``until``:
    ``lines`` end there, and the rows after it stay.
    Returns how many rows were deleted and inserted."""
    fields = dict.fromkeys(("pk", *ROW_FIELDS, *_DERIVED))
    rows = SeatRound.objects.filter(game=game)
    if until is not None:
        rows = rows.filter(round_number__lte=until)
    earlier: list[tuple[int, int, int | None, bool]] = []
    if since > 1:
        before = rows.filter(round_number__lt=since)
        elected = before.filter(cycle_ended=True).aggregate(last=Max("round_number"))["last"]
        cycle = before.filter(round_number__gt=elected or 0)
        earlier = list(cycle.values_list("round_number", "seat", "player_id", "cycle_ended"))
        rows = rows.filter(round_number__gte=since)
    stored = {(row["round_number"], row["seat"]): row for row in rows.values(*fields)}
    player_of, club_id, season_id = _players_by_round(game)
    credited = _cycle_players(
        [
            *earlier,
            *(
                (ln.round_number, ln.seat, player_of(ln.round_number, ln.seat), ln.cycle_ended)
                for ln in lines
            ),
        ]
    )
    stale: list[dict[str, Any]] = []
    fresh: list[dict[str, Any]] = []  # each a new row's values (``ROW_FIELDS`` among them)
    for line in lines:
        values = {
            "player_id": player_of(line.round_number, line.seat),
            "club_id": club_id,
            "season_id": season_id,
            **line.to_dict(),
            "cycle_player_id": credited.get((line.round_number, line.seat)),
        }
        old = stored.pop((line.round_number, line.seat), None)
        if old is not None and all(old[f] == values[f] for f in _DERIVED):
            continue
        if old is not None:
            stale.append(old)
        played_at = old["played_at"] if old is not None else dated(line.round_number)
        fresh.append({"game_id": game.pk, "played_at": played_at, **values})
    stale.extend(stored.values())  # rounds no longer settled, or voided
    if stale:
        SeatRound.objects.filter(pk__in=[row["pk"] for row in stale]).delete()
    # A COPY on PostgreSQL, no instance made: an import writes thousands (issue 29).
    store.insert_values(SeatRound, fresh)
    _rows_replace(stale, [{f: row[f] for f in ROW_FIELDS} for row in fresh])  # totals follow
    return len(stale), len(fresh)


def _cycle_players(
    sat: Iterable[tuple[int, int, int | None, bool]],
) -> dict[tuple[int, int], int | None]:
    """Who each completed CAMAT cycle is rated for, seat by seat (R38): ``sat`` is each
    settled round's ``(round, seat, player, cycle_ended)`` of one game (``player``: who
    sat it, ``None`` a guest); the answer maps a cycle's last round and seat to the
    player who sat most of the cycle's rounds at that seat, a tie going to the later of
    them. A cycle runs from the round after the game's previous election (or its first
    round) to the round that elects (R24, R25); voided rounds have no row and count in
    no cycle (R35)."""
    since: dict[int, list[int | None]] = {}
    credited: dict[tuple[int, int], int | None] = {}
    for number, seat, player, ended in sorted(sat, key=lambda line: (line[0], line[1])):
        sitters = since.setdefault(seat, [])
        sitters.append(player)
        if ended:
            counts: dict[int | None, int] = {}
            for who in sitters:
                counts[who] = counts.get(who, 0) + 1
            most = max(counts.values())
            credited[(number, seat)] = next(w for w in reversed(sitters) if counts[w] == most)
            since[seat] = []
    return credited


def check_not_seated_elsewhere(*, player: Player, game: Game | None = None) -> None:
    """Raise ``player_seated_elsewhere`` (409, naming the game) if ``player`` sits now in
    an open game other than ``game``: in a seat no substitute took over, or as the
    latest substitute of a seat (R38)."""
    games = Game.objects.filter(status=Game.Status.OPEN)
    if game is not None:
        games = games.exclude(pk=game.pk)
    # A game where a substitute took a seat (a live ``substitute`` event, R38) may seat
    # ``player`` in a seat that is not registered to them: ``occupants_now`` tells.
    substituted = Event.objects.filter(
        game=OuterRef("pk"), kind=Event.Kind.SUBSTITUTE, revoked_by__isnull=True
    )
    seated = Seat.objects.filter(game=OuterRef("pk"), registered__player=player)
    # Two ``Exists``, not joins: no row twice, so no ``DISTINCT`` over the game's columns
    # (its cached state is ``json``, which has no equality).
    candidates = games.filter(Q(Exists(seated)) | Q(Exists(substituted))).prefetch_related(
        selectors.SEATS
    )
    for other in candidates:
        if player.pk in occupants_now(other).values():
            raise PlayerSeatedElsewhere(game=str(other.pk), player=player.display_name)


def occupants_now(game: Game) -> dict[int, int | None]:
    """Seat → the club player sitting it now (``None`` for a guest), substitutes applied."""
    return {occupant.number: occupant.player_id for occupant in selectors.seats_now(game)}


# -- totals and ratings kept with the seat-rounds ---------------------------------------------
#
# Every write of ``SeatRound`` rows goes through ``_rows_replace(old, new)`` in the same
# transaction: the rows that went (as they were) and the rows that came. The players'
# totals (``PlayerTotals``, season and lifetime) move by the difference, in one upsert per
# scope kind; the ratings (``PlayerRating``) fold a new CAMAT cycle on, or fold a scope
# again when one of its cycles changed. So a standings or ratings read never aggregates
# the history, and stays exactly what an aggregate over the rows would give.

# The seat-round fields that the totals and the ratings read.
ROW_FIELDS = (
    "club_id",
    "season_id",
    "player_id",
    "game_id",
    "round_number",
    "seat",
    "played_at",
    "won",
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
    "stones_held",
    "camat_elected",
    "cycle_ended",
    "cycle_player_id",
)

Key = tuple[int, int | None, int]  # club, season (None: the club's lifetime), player
Row = Mapping[str, Any]


def _counts_of(row: Row) -> tuple[int, ...]:
    """One row's part of each of ``TOTAL_FIELDS`` (in that order)."""
    return (
        1,
        int(row["won"]),
        int(row["first_cappu"]),
        int(row["ceki"]),
        int(row["pollo"]),
        int(row["manguno"]),
        int(row["mattikkeng"]),
        int(row["cucuq"]),
        row["passes"],
        row["passebunge"],
        row["stones_received"],
        row["stones_given"],
        int(row["camat_elected"]),
    )


def _tally(rows: Iterable[Row], sign: int, into: dict[Key, list[int]]) -> None:
    """Add (``sign`` 1) or take away (-1) each row's counts to its season and lifetime keys.

    Guest rows (no player) and rows of a game in no club count in no standings.
    """
    for row in rows:
        club, season, player = row["club_id"], row["season_id"], row["player_id"]
        if club is None or player is None:
            continue
        counts = _counts_of(row)
        for key in (
            ((club, None, player), (club, season, player)) if season else ((club, None, player),)
        ):
            total = into.setdefault(key, [0] * len(TOTAL_FIELDS))
            for index, value in enumerate(counts):
                total[index] += sign * value


def _rows_replace(old: Sequence[Row], new: Sequence[Row]) -> None:
    """Account a change of seat-rounds: the ``old`` rows went, the ``new`` ones came.

    Rows are dicts of ``ROW_FIELDS``. The totals move by the difference; the
    ratings follow if a cycle-ending row changed. Call it in the transaction
    that wrote the rows.
    """
    delta: dict[Key, list[int]] = {}
    _tally(old, -1, delta)
    _tally(new, 1, delta)
    _totals_add(delta)
    _ratings_follow(
        [row for row in old if row["cycle_ended"]], [row for row in new if row["cycle_ended"]]
    )


def _totals_add(delta: Mapping[Key, Sequence[int]]) -> None:
    """Add ``delta`` to the stored totals (creating rows as needed): one upsert per kind.

    Keys are locked in a fixed order (sorted), so two transactions never deadlock here.
    """
    changed = {key: counts for key, counts in delta.items() if any(counts)}
    seasons = sorted(key for key in changed if key[1] is not None)
    lifetime = sorted((key for key in changed if key[1] is None), key=lambda k: (k[0], k[2]))
    if seasons:
        _upsert(
            [(*key, *changed[key]) for key in seasons],
            '("club_id", "season_id", "player_id") WHERE "season_id" IS NOT NULL',
        )
    if lifetime:
        _upsert(
            [(*key, *changed[key]) for key in lifetime],
            '("club_id", "player_id") WHERE "season_id" IS NULL',
        )


def _upsert(values: list[tuple[Any, ...]], conflict: str) -> None:
    """``INSERT … ON CONFLICT … DO UPDATE SET total = total + excluded.total`` (PostgreSQL
    and SQLite ≥ 3.24 alike)."""
    table = connection.ops.quote_name(PlayerTotals._meta.db_table)
    columns = ["club_id", "season_id", "player_id", *TOTAL_FIELDS]
    quoted = [connection.ops.quote_name(column) for column in columns]
    row = "(" + ", ".join(["%s"] * len(columns)) + ")"
    adds = ", ".join(f"{name} = {table}.{name} + excluded.{name}" for name in quoted[3:])
    sql = (
        f"INSERT INTO {table} ({', '.join(quoted)}) VALUES {', '.join([row] * len(values))} "
        f"ON CONFLICT {conflict} DO UPDATE SET {adds}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [value for line in values for value in line])


# The order ratings fold cycles in: when the cycle ended, then the game and the round.
CycleKey = tuple[datetime, Any, int]


def _cycle_key(row: Row) -> CycleKey:
    return (row["played_at"], row["game_id"], row["round_number"])


def _cycle_line(row: Row) -> tuple[Any, ...]:
    return (
        *_cycle_key(row),
        row["seat"],
        row["cycle_player_id"],
        row["camat_elected"],
        row["stones_held"],
    )


def _ratings_follow(old: Sequence[Row], new: Sequence[Row]) -> None:
    """Keep the stored ratings of every scope whose cycle-ending rows changed (``old`` →
    ``new``): fold its cycles again from the earliest that changed (a cycle just settled
    after the others: that one alone)."""
    scopes: dict[tuple[int, int | None], tuple[list[Row], list[Row]]] = {}
    for index, rows in enumerate((old, new)):
        for row in rows:
            if row["club_id"] is None:
                continue
            for scope in {(row["club_id"], None), (row["club_id"], row["season_id"])}:
                scopes.setdefault(scope, ([], []))[index].append(row)
    for (club_id, season_id), (went, came) in sorted(
        scopes.items(), key=lambda item: (item[0][0], item[0][1] or 0)
    ):
        before = sorted(_cycle_line(row) for row in went)
        after = sorted(_cycle_line(row) for row in came)
        if before == after:
            continue
        changed = {line[:3] for line in set(before) ^ set(after)}  # their cycle keys
        _fold_from(_fold_locked(club_id, season_id), min(changed))


def _scope(club_id: int, season_id: int | None) -> Q:
    """The rows of a scope: the club's (``season_id`` ``None``) or one season's."""
    if season_id is None:
        return Q(club_id=club_id)
    return Q(club_id=club_id, season_id=season_id)


def _fold_locked(club_id: int, season_id: int | None) -> RatingFold:
    """The scope's fold state, locked for this transaction (created if it is the first)."""
    scope = RatingFold.objects.select_for_update().filter(club_id=club_id)
    scope = (
        scope.filter(season__isnull=True)
        if season_id is None
        else scope.filter(season_id=season_id)
    )
    fold = scope.first()
    if fold is None:
        try:
            with transaction.atomic():
                fold = RatingFold.objects.create(club_id=club_id, season_id=season_id)
        except IntegrityError:  # another transaction made it first: wait for its lock
            fold = scope.get()
    return fold


def _from_key(start: CycleKey, game: str) -> Q:
    """Rows whose cycle key (``played_at``, ``game``, ``round_number``) is ``start`` or later."""
    at, game_id, number = start
    return (
        Q(played_at__gt=at)
        | Q(played_at=at, **{f"{game}__gt": game_id})
        | Q(played_at=at, round_number__gte=number, **{game: game_id})
    )


def _stored(model: Any, fold: RatingFold) -> QuerySet[Any]:
    """``model``'s rows of the fold's scope (``season`` ``None``: the club-wide ones)."""
    rows = model.objects.filter(club_id=fold.club_id)
    if fold.season_id is None:
        return rows.filter(season__isnull=True)  # type: ignore[no-any-return]
    return rows.filter(season_id=fold.season_id)  # type: ignore[no-any-return]


def _fold_from(fold: RatingFold, start: CycleKey | None) -> None:
    """Fold the scope's completed cycles from ``start`` on (``None``: all), starting from
    each player's last ``RatingStep`` before it; store the new steps, the players'
    ratings and the fold's count and last cycle.

    The same fold, in the same order, as ``selectors.club_ratings_folded``: its
    result for the cycles before ``start`` is what the steps hold.
    """
    ends = SeatRound.objects.filter(_scope(fold.club_id, fold.season_id), cycle_ended=True)
    steps = _stored(RatingStep, fold)
    ratings_now = _stored(PlayerRating, fold)
    if start is None:
        steps.delete()
        folding = ends
        stale = set(ratings_now.values_list("player_id", flat=True))
    else:
        steps.filter(_from_key(start, "game")).delete()
        folding = ends.filter(_from_key(start, "game_id"))
        stale = set(
            ratings_now.filter(last_played_at__gte=start[0]).values_list("player_id", flat=True)
        )
    rows = list(
        folding.order_by("played_at", "game_id", "round_number", "seat").values(*ROW_FIELDS)
    )
    wanted = stale | {row["cycle_player_id"] for row in rows if row["cycle_player_id"] is not None}
    model = ratings_core.rating_model()
    before = _latest_steps(steps, wanted) if start is not None else {}
    ratings = {player: model.rating(mu=s.mu, sigma=s.sigma) for player, s in before.items()}
    cycles = {player: s.cycles for player, s in before.items()}
    last = {player: s.played_at for player, s in before.items()}
    new_steps = []
    for table in _tables(rows):
        _rate(model, ratings, table)
        seated = [row["cycle_player_id"] for row in table if row["cycle_player_id"] is not None]
        for player in seated:  # a player seated twice (a substitute's error) counts twice
            cycles[player] = cycles.get(player, 0) + 1
            last[player] = table[0]["played_at"]
        new_steps += [  # one step per player and cycle
            RatingStep(
                club_id=fold.club_id,
                season_id=fold.season_id,
                player_id=player,
                played_at=table[0]["played_at"],
                game=table[0]["game_id"],
                round_number=table[0]["round_number"],
                mu=ratings[player].mu,
                sigma=ratings[player].sigma,
                cycles=cycles[player],
            )
            for player in dict.fromkeys(seated)
        ]
    RatingStep.objects.bulk_create(new_steps)
    ratings_now.filter(player_id__in=wanted).delete()
    PlayerRating.objects.bulk_create(
        PlayerRating(
            club_id=fold.club_id,
            season_id=fold.season_id,
            player_id=player,
            mu=ratings[player].mu,
            sigma=ratings[player].sigma,
            cycles=cycles[player],
            last_played_at=last[player],
        )
        for player in sorted(wanted)
        if player in ratings
    )
    latest = (
        rows[-1]
        if rows
        else ends.order_by("-played_at", "-game_id", "-round_number").values(*ROW_FIELDS).first()
    )
    fold.cycles = ends.filter(seat=0).count()
    fold.last_played_at, fold.last_game, fold.last_round = (
        _cycle_key(latest) if latest is not None else (None, None, None)
    )
    fold.save()


def _latest_steps(steps: QuerySet[RatingStep], players: set[int]) -> dict[int, RatingStep]:
    """Each of ``players``' last step among ``steps`` (one query)."""
    if not players:
        return {}
    ordered = steps.filter(player_id__in=players).order_by(
        "player_id", "-played_at", "-game", "-round_number"
    )
    if connection.features.can_distinct_on_fields:  # PostgreSQL
        return {step.player_id: step for step in ordered.distinct("player_id")}
    latest: dict[int, RatingStep] = {}
    for step in ordered:
        latest.setdefault(step.player_id, step)
    return latest


def _rate(model: Any, ratings: dict[int, Any], table: Sequence[Row]) -> None:
    seats = [
        ratings_core.CycleSeat(row["cycle_player_id"], row["camat_elected"], row["stones_held"])
        for row in table
    ]
    ratings_core.rate_cycle(model, ratings, seats)


def _tables(rows: Iterable[Row]) -> Iterable[list[Row]]:
    """Group rows ordered by cycle key into one table (five seats) per cycle-ending round."""
    table: list[Row] = []
    key = None
    for row in rows:
        if (row["game_id"], row["round_number"]) != key and table:
            yield table
            table = []
        key = (row["game_id"], row["round_number"])
        table.append(row)
    if table:
        yield table


@transaction.atomic
def league_recount(*, club: Club) -> None:
    """Rebuild the club's stored totals and ratings from its seat-rounds (an aggregate and
    a fold over all of them). For rows written directly (benchmarks, query tests) and
    as a repair; every service keeps them without it."""
    PlayerTotals.objects.filter(club=club).delete()
    PlayerRating.objects.filter(club=club).delete()
    RatingStep.objects.filter(club=club).delete()
    RatingFold.objects.filter(club=club).delete()
    rows = SeatRound.objects.filter(club=club, player__isnull=False).order_by()
    sums = {name: Sum(Cast(name, IntegerField())) for name in TOTAL_FIELDS[1:]}
    sums["rounds_won"] = Sum(Cast("won", IntegerField()))
    delta: dict[Key, list[int]] = {}
    for grouping in (("season_id", "player_id"), ("player_id",)):
        for line in rows.values(*grouping).annotate(
            t_rounds_played=Count("id"), **{f"t_{name}": agg for name, agg in sums.items()}
        ):
            key = (club.pk, line.get("season_id"), line["player_id"])
            if len(grouping) == 2 and key[1] is None:
                continue  # counted in the lifetime grouping
            delta[key] = [line[f"t_{name}"] for name in TOTAL_FIELDS]
    _totals_add(delta)
    seasons = set(
        SeatRound.objects.filter(club=club, cycle_ended=True, season__isnull=False)
        .order_by()
        .values_list("season_id", flat=True)
        .distinct()
    )
    for season_id in [None, *sorted(seasons)]:
        _fold_from(_fold_locked(club.pk, season_id), None)


def game_deleting(*, game: Game) -> None:
    """Take a game's seat-rounds out of the totals and ratings before it is deleted.

    Else its rows would go with it (``CASCADE``) behind the totals' back.
    Games are never deleted by the product (the admin forbids it); this
    keeps a deletion by hand or by a test consistent. The rows are deleted
    here, then the ratings folded without them.
    """
    rows = SeatRound.objects.filter(game=game)
    old = list(rows.values(*ROW_FIELDS))
    rows.delete()
    _rows_replace(old, [])


def _players_by_round(game: Game) -> tuple[Any, int | None, int | None]:
    """``(round, seat) → the club player who sat it`` (``None`` for a guest): the seat's,
    or the latest substitute's from that round on (R38); and the game's club and season
    (ids, or ``None``). One query, two when a club player substitutes."""
    game_id = Game._meta.pk.get_db_prep_value(game.pk, connection)  # type: ignore[union-attr]
    with connection.cursor() as cursor:
        cursor.execute(_players_sql(), [game_id])
        rows = cursor.fetchall()
    players = {number: player for number, player, _, _ in rows}
    club_id, season_id = (rows[0][2], rows[0][3]) if rows else (None, None)
    substitutes = sorted(store.state_of(game).substitutes, key=lambda sub: sub[0] or 0)
    # A substitute's event names its player by id: one merged since is the survivor.
    into = selectors.survivors(sub[3] for sub in substitutes if isinstance(sub[3], int))

    def player_of(number: int, seat: int) -> int | None:
        who = players.get(seat)
        for start, sub_seat, _, player in substitutes:
            if sub_seat == seat and start <= number:
                who = into.get(player, player)
        return who

    return player_of, club_id, season_id


@cache
def _players_sql() -> str:
    """Each seat of a game (``%s``: its id): its number, registered player, and the game's
    club and season (``NULL`` for a guest, a game in no club or no season)."""
    quote = connection.ops.quote_name
    seat, link, league = (quote(model._meta.db_table) for model in (Seat, SeatPlayer, GameLeague))
    return (
        f"SELECT {seat}.{quote('number')}, {link}.{quote('player_id')}, "
        f"{league}.{quote('club_id')}, {league}.{quote('season_id')} FROM {seat} "
        f"LEFT JOIN {link} ON {link}.{quote('seat_id')} = {seat}.{quote('id')} "
        f"LEFT JOIN {league} ON {league}.{quote('game_id')} = {seat}.{quote('game_id')} "
        f"WHERE {seat}.{quote('game_id')} = %s"
    )
