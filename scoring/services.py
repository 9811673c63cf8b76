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
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from referee import folding
from referee.engine import Game as EngineGame
from referee.engine import RuleSet
from referee.engine.names import identity_key
from referee.models import Game, Seat
from scoring import selectors
from scoring.exceptions import (
    ClubRequired,
    ClubSlugTaken,
    MemberNumberTaken,
    MergeInvalid,
    NotClubOrganiser,
    PlayerMerged,
    PlayerNotInClub,
    PlayerSeatedElsewhere,
    PlayerTwice,
    SeasonArchived,
    SeasonNameTaken,
    SeasonNotInClub,
    UserUnknown,
)
from scoring.lines import SeatLine, game_lines, round_lines
from scoring.models import Club, Membership, Player, PlayerMerge, Season, SeatLink, SeatRound

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
def club_create(*, name: str, slug: str, is_public: bool = False, created_by: Any) -> Club:
    """Create a club; its creator becomes its first organiser. Raises ``club_slug_taken``."""
    if Club.objects.filter(slug=slug).exists():
        raise ClubSlugTaken()
    club = Club.objects.create(name=name.strip(), slug=slug, is_public=is_public)
    Membership.objects.create(club=club, user=created_by, role=Membership.Role.ORGANISER)
    return club


@transaction.atomic
def club_update(
    *, club: Club, by: UserLike, name: str | None = None, is_public: bool | None = None
) -> Club:
    """Rename a club or publish/unpublish its records (organisers)."""
    _require_organiser(by, club)
    if name is not None:
        club.name = name.strip()
    if is_public is not None:
        club.is_public = is_public
    club.save(update_fields=["name", "is_public"])
    return club


@transaction.atomic
def membership_set(*, club: Club, username: str, role: str, by: UserLike) -> Membership:
    """Give a user a role in the club (organiser or member). Raises ``user_unknown``."""
    _require_organiser(by, club)
    user = get_user_model().objects.filter(**{get_user_model().USERNAME_FIELD: username}).first()
    if user is None:
        raise UserUnknown()
    membership, _ = Membership.objects.update_or_create(
        club=club, user=user, defaults={"role": role}
    )
    return membership


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
    game_ids = list(
        Seat.objects.filter(player=duplicate).values_list("game_id", flat=True).distinct()
    )
    list(Game.objects.select_for_update().filter(pk__in=game_ids).order_by("pk").values("pk"))
    locked = {
        p.pk: p
        for p in Player.objects.select_for_update().filter(pk__in=[survivor.pk, duplicate.pk])
    }
    survivor, duplicate = locked[survivor.pk], locked[duplicate.pk]
    if survivor.is_merged or duplicate.is_merged:
        raise PlayerMerged()
    if Seat.objects.filter(player=survivor, game_id__in=game_ids).exists():
        raise MergeInvalid(
            "These players sat at the same game: they are two people, not duplicates."
        )
    seats_moved = Seat.objects.filter(player=duplicate).update(player=survivor)
    rows_moved = SeatRound.objects.filter(player=duplicate).update(player=survivor)
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
    """Open a season of the club. Raises ``season_name_taken``."""
    _require_organiser(by, club)
    if Season.objects.filter(club=club, name=name.strip()).exists():
        raise SeasonNameTaken()
    return Season.objects.create(club=club, name=name.strip(), starts_on=starts_on, ends_on=ends_on)


@transaction.atomic
def season_update(*, season: Season, by: UserLike, **fields: Any) -> Season:
    """Rename a season or change its dates (``name``, ``starts_on``, ``ends_on``)."""
    _require_organiser(by, season.club)
    if "name" in fields:
        name = fields["name"].strip()
        if Season.objects.filter(club=season.club, name=name).exclude(pk=season.pk).exists():
            raise SeasonNameTaken()
        season.name = name
    for key in ("starts_on", "ends_on"):
        if key in fields:
            setattr(season, key, fields[key])
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
class GameLeague:
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
) -> GameLeague:
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
    return GameLeague(club, season, seats)


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
    game = Game.objects.select_for_update().get(pk=game.pk)
    if game.club is None:
        raise ClubRequired()
    _require_organiser(by, game.club)
    seat = Seat.objects.get(game=game, number=seat_number)
    if player is not None:
        if player.club_id != game.club_id:
            raise PlayerNotInClub(player=player.pk)
        if player.is_merged:
            raise PlayerMerged(player=player.pk, merged_into=player.merged_into_id)
        if Seat.objects.filter(game=game, player=player).exclude(pk=seat.pk).exists():
            raise PlayerTwice()
    SeatLink.objects.create(
        seat=seat, previous=seat.player, player=player, linked_by=_user_or_none(by)
    )
    seat.player = player
    seat.save(update_fields=["player"])
    SeatRound.objects.filter(game=game, seat=seat_number).update(player=player)
    return seat


@transaction.atomic
def game_league_assign(*, game: Game, club: Club | None, season: Season | None) -> Game:
    """Put a game in a club and season (e.g. from the admin); its seat-rounds follow.

    Raises ``season_not_in_club`` and ``season_archived``; a club change
    with registered players seated is ``player_not_in_club``.
    """
    game = Game.objects.select_for_update().get(pk=game.pk)
    if season is not None:
        if club is None:
            club = season.club
        if season.club_id != club.pk:
            raise SeasonNotInClub()
        if season.is_archived and season.pk != game.season_id:
            raise SeasonArchived()
    if club is None or club.pk != game.club_id:
        if game.seats.filter(player__isnull=False).exists():
            raise PlayerNotInClub()
    game.club = club
    game.season = season
    game.save(update_fields=["club", "season"])
    SeatRound.objects.filter(game=game).update(club=club, season=season)
    return game


# -- the seat-round stats (called by referee.services in its transaction) -----------------


def seat_rounds_settle(
    *, game: Game, engine: EngineGame, snapshot: Mapping[str, Any], played_at: datetime
) -> list[SeatRound]:
    """Store the five seat-rounds of the round the last event settled (three queries).

    ``engine`` is the fold that applied the event, resumed from ``snapshot``
    (``Game.state["snapshot"]``: the standing at the start of its first round).
    Any rows already stored for that round are replaced.
    """
    game_round = engine.rounds[-1]
    if len(engine.rounds) >= 2:
        previous = engine.rounds[-2].after
        assert previous is not None
        before: Sequence[int] = previous.stones
    else:
        before = snapshot["standing"]["stones"]
    lines = round_lines(game_round, before)
    SeatRound.objects.filter(game=game, round_number=game_round.round.number).delete()
    return _insert(game, lines, lambda _: played_at)


def seat_rounds_rebuild(
    *,
    game: Game,
    engine: EngineGame | None = None,
    played_at: datetime | None = None,
    settled_at: Mapping[int, datetime] | None = None,
) -> tuple[int, int]:
    """Bring the game's seat-rounds in line with the fold of its live events.

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
    """
    if engine is None or settled_at is None:
        live = list(game.events.filter(revoked_by__isnull=True).order_by("position"))
        pairs = [(event.kind, event.payload) for event in live]
        folded, effects = folding.fold(RuleSet.from_dict(game.rules), pairs)
        engine = engine or folded
        settled_at = {
            effect.round: event.created_at
            for event, effect in zip(live, effects, strict=True)
            if effect.settled
        }
    times = settled_at
    return _sync(
        game,
        list(game_lines(engine)),
        lambda number: (
            (played_at if played_at is not None else times.get(number)) or game.created_at
        ),
    )


# A seat-round's values that a fold derives (besides its game, round and seat).
_DERIVED = ("player_id", "club_id", "season_id", *(f.name for f in dataclasses.fields(SeatLine)))


def _sync(game: Game, lines: list[SeatLine], dated: Any) -> tuple[int, int]:
    """Write only the seat-rounds whose values differ from ``lines`` (delete them, insert
    them again) and those of rounds not stored yet; delete those of rounds gone. A row kept
    or rewritten keeps its ``played_at``; a new round's is ``dated(round_number)``.
    Returns how many rows were deleted and inserted."""
    stored = {
        (row["round_number"], row["seat"]): row
        for row in SeatRound.objects.filter(game=game).values("pk", "played_at", *_DERIVED)
    }
    player_of = _players_by_round(game)
    stale: list[int] = []
    fresh: list[SeatRound] = []
    for line in lines:
        values = {
            "player_id": player_of(line.round_number, line.seat),
            "club_id": game.club_id,
            "season_id": game.season_id,
            **line.to_dict(),
        }
        old = stored.pop((line.round_number, line.seat), None)
        if old is not None and all(old[f] == values[f] for f in _DERIVED):
            continue
        if old is not None:
            stale.append(old["pk"])
        played_at = old["played_at"] if old is not None else dated(line.round_number)
        fresh.append(SeatRound(game=game, played_at=played_at, **values))
    stale.extend(row["pk"] for row in stored.values())  # rounds no longer settled, or voided
    if stale:
        SeatRound.objects.filter(pk__in=stale).delete()
    if fresh:
        SeatRound.objects.bulk_create(fresh)
    return len(stale), len(fresh)


def check_not_seated_elsewhere(*, player: Player, game: Game | None = None) -> None:
    """Raise ``player_seated_elsewhere`` (409, naming the game) if ``player`` sits now in
    an open game other than ``game``: in a seat no substitute took over, or as the
    latest substitute of a seat (R38)."""
    games = Game.objects.filter(status=Game.Status.OPEN)
    if game is not None:
        games = games.exclude(pk=game.pk)
    candidates = games.filter(Q(seats__player=player) | Q(state__has_key="substitutes"))
    for other in candidates.distinct():
        if player.pk in occupants_now(other).values():
            raise PlayerSeatedElsewhere(game=str(other.pk))


def occupants_now(game: Game) -> dict[int, int | None]:
    """Seat → the club player sitting it now (``None`` for a guest), substitutes applied."""
    return {occupant.number: occupant.player_id for occupant in game.seats_now()}


def _insert(game: Game, lines: Iterable[SeatLine], dated: Any) -> list[SeatRound]:
    return SeatRound.objects.bulk_create(_rows(game, lines, dated))


def _rows(game: Game, lines: Iterable[SeatLine], dated: Any) -> list[SeatRound]:
    """The unsaved seat-rounds of ``lines``, each credited to whoever sat it (R38)."""
    player_of = _players_by_round(game)
    return [
        SeatRound(
            game=game,
            player_id=player_of(line.round_number, line.seat),
            club_id=game.club_id,
            season_id=game.season_id,
            played_at=dated(line.round_number),
            **line.to_dict(),
        )
        for line in lines
    ]


def _players_by_round(game: Game) -> Any:
    """``(round, seat) → the club player who sat it`` (``None`` for a guest): the seat's,
    or the latest substitute's from that round on (R38)."""
    players = dict(game.seats.values_list("number", "player_id"))
    substitutes = sorted(game.state.get("substitutes") or [], key=lambda sub: sub[0] or 0)

    def player_of(number: int, seat: int) -> int | None:
        who = players.get(seat)
        for start, sub_seat, _, player in substitutes:
            if sub_seat == seat and start <= number:
                who = player
        return who

    return player_of
