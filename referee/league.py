"""The referee's window on a league: what it asks, never whom (the league registers itself).

The referee does not import the league (``scoring``). Where a game needs it —
who a registered player's seat is, whether a user organises a game's club,
which games a user may list, the league fields of a new game or an import —
the referee asks the ``League`` registered here. This base class is the answer
without a league: every seat a guest's name, no club, no organiser but the
game's creator. ``scoring.apps`` registers the league's implementation in
``ready()``; what the league must *write* when a game changes it learns from
``referee.signals`` (a new game's club, season and seat players: ``game_created``;
a re-seated player: ``seat_reseated``). The referee's own tables hold nothing of
the league: no game's club or season, no seat's registered player.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

if TYPE_CHECKING:
    from django.db.models import QuerySet
    from rest_framework.fields import Field

    from referee.models import Game

UserLike = AbstractBaseUser | AnonymousUser | None


@dataclass(frozen=True)
class Seating:
    """A new game's five seats as the league resolved them.

    ``names``: what each seat is called (seat 0–4; a guest's name as sent, or a
    registered player's display name; anything else is passed on for the
    record check, ``record_invalid`` R3). ``players``: each seat's registered
    player id, or ``None`` for a guest. ``club_id``/``season_id``: the league
    the game counts for, or ``None``.
    """

    names: list[Any]
    players: list[int | None]
    club_id: Any = None
    season_id: Any = None


@dataclass(frozen=True)
class LeagueChoice:
    """A league a new game from the organiser's form can count for: a club, or one of its
    open seasons. ``key``: the form's value (``"<club>"`` or ``"<club>/<season>"``);
    ``label``: what the form shows; ``club``/``season``: the league's own objects, passed
    back unchanged to ``game_create``; ``players``: a club's (not a season's) registered
    players as (player id, label), for the form's seat pickers."""

    key: str
    label: str
    club: Any
    season: Any = None
    players: tuple[tuple[int, str], ...] = ()


class League:
    """What the referee asks of a league. Every method has the answer of no league."""

    def new_game_leagues(self, *, user: UserLike) -> list[LeagueChoice]:
        """The clubs ``user`` organises and their open seasons, for the new-game form (a
        game of one counts for its room view and standings): none without a league."""
        return []

    def seating(
        self,
        *,
        players: Sequence[Any],
        club: Any,
        season: Any,
        created_by: UserLike,
        allow_seated_elsewhere: bool,
    ) -> Seating:
        """Resolve a new game's seats (guests' names or player ids) against its league.

        Raises the league's errors (``ServiceError`` subclasses with a ``code``).
        """
        return Seating(names=list(players), players=[None] * len(players))

    def occupant(
        self, *, game: Game, player: Any, allow_elsewhere: bool, seat: int | None = None
    ) -> tuple[str, int]:
        """A registered ``player`` who takes a seat of ``game`` (R38): (display name, id).

        With ``seat`` (a re-seating), the player may not already sit another
        seat of the game. Raises the league's errors.
        """
        from referee.engine.errors import RecordInvalid, gettext_noop

        raise RecordInvalid(gettext_noop("a seat is sat by a non-empty name"), rule="R38")

    def seat_players(self, *, game: Game) -> dict[int, int]:
        """The registered players who sit ``game``'s seats from its start, as seat number
        (0–4) → player id; a guest's seat is absent (substitutes are the referee's own,
        R38: ``Game.seats_now``). None without a league."""
        return {}

    def substitute_players(self, *, game: Game, names: Sequence[str]) -> list[int | None]:
        """The registered players a record's substitutes (R38) name, for an import or a
        replaced record (whose ``substitutes`` hold names only, RECORD.md): a name that is
        exactly one registered player's of the game's club (letter case and spaces aside)
        is that player's id, any other is ``None`` (a guest). Without a league: all
        ``None``."""
        return [None] * len(names)

    def organises(self, *, user: UserLike, game: Game) -> bool:
        """Whether ``user`` organises the league (club) ``game`` counts for."""
        return False

    def time_zone(self, *, game: Game) -> dt.tzinfo | None:
        """The time zone of the club ``game`` counts for, in which its organiser's pages
        show times and dates; ``None`` (the server's, ``TIME_ZONE``) without one."""
        return None

    def language(self, *, game: Game) -> str | None:
        """The language of the club ``game`` counts for, which its phones' pages speak to a
        browser that names none of the project's (``referee.languages``); ``None`` (the
        server's, ``LANGUAGE_CODE``) without one."""
        return None

    def games_accessible(self, *, user: UserLike) -> QuerySet[Game]:
        """The games an organiser may list, newest first (staff: every game)."""
        from referee.models import Game

        if user is None or not user.is_authenticated:
            return Game.objects.none()
        games = Game.objects.prefetch_related("seats")
        if not getattr(user, "is_staff", False):
            games = games.filter(created_by_id=user.pk)
        return games.order_by("-created_at", "-pk")

    def club_players(self, *, game: Game) -> list[tuple[int, str]]:
        """The registered players who may take a seat of ``game`` (R38), as (player id,
        label) sorted by name, for the organiser's re-seating form: none without a league."""
        return []

    def registered_seats(self, *, club: Any, names: list[str]) -> list[Any]:
        """The seats of a new game of ``club`` typed as names on the organiser's form: a name
        that is exactly one registered player's of the club (letter case and spaces aside),
        or else the name of players merged into one, becomes that player's id, any other name
        stays a guest's (R3). Without a league:
        ``names`` unchanged."""
        return list(names)

    def create_fields(self) -> dict[str, Field[Any, Any, Any, Any]]:
        """Serializer fields a new game's body gains (after ``rules``): their values are
        passed to ``game_create`` by name."""
        return {}

    def list_fields(self) -> dict[str, Field[Any, Any, Any, Any]]:
        """Read-only serializer fields a game in the list of games gains (after ``players``),
        read from the games of ``games_accessible``."""
        return {}

    def import_query(self, query: Mapping[str, Any], *, user: Any = None) -> dict[str, Any]:
        """Validate an import's query string (the game's league) for ``user`` (a league it
        may not read is as missing); keyword arguments for ``game_import``. Raises DRF's
        ``ValidationError`` (400)."""
        return {}


_registered: list[League] = [League()]


def register(league: League) -> None:
    """Make ``league`` the one the referee asks (the latest registered wins)."""
    _registered[0] = league


def league() -> League:
    """The registered league (without one, the base ``League``: no league)."""
    return _registered[0]
