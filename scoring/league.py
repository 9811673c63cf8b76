"""The league as the referee asks for it (``referee.league``): clubs, seasons, players.

Registered in ``ScoringConfig.ready()``. The referee never imports this
module; it calls the registered ``League``.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Mapping, Sequence
from types import SimpleNamespace
from typing import Any

from django.db.models import QuerySet
from rest_framework.fields import Field

from referee import league as referee_league
from referee.league import LeagueChoice, Seating, UserLike
from referee.models import Game
from scoring import selectors, services, zones
from scoring.exceptions import PlayerTwice
from scoring.models import Club, Membership, Player, Season


def _player_label(player: Player) -> str:
    """A player as the organiser's forms list them: the name, and the member number if any."""
    return (
        f"{player.display_name} ({player.member_number})"
        if player.member_number
        else player.display_name
    )


def _tell_apart(players: list[tuple[int, str]]) -> None:
    """Two players of a club listed alike (the same name, no member number) are told apart
    by their ids (``#12``, as the API's ``/players/{id}/`` names them), in place."""
    counts = Counter(label for _pk, label in players)
    for index, (pk, label) in enumerate(players):
        if counts[label] > 1:
            players[index] = (pk, f"{label} (#{pk})")


class ClubLeague(referee_league.League):
    """Seats are guests' names or the players of the game's club; games count for a club
    and season; a club's organisers may use its games."""

    def seating(
        self,
        *,
        players: Sequence[Any],
        club: Any,
        season: Any,
        created_by: UserLike,
        allow_seated_elsewhere: bool,
    ) -> Seating:
        """``scoring.services.game_league_resolve``; without ``allow_seated_elsewhere`` a club
        player in another open game is ``player_seated_elsewhere`` (409, R38)."""
        resolved = services.game_league_resolve(
            players=players, club=club, season=season, created_by=created_by
        )
        if not allow_seated_elsewhere:
            for _, player in resolved.seats:
                if player is not None:
                    services.check_not_seated_elsewhere(player=player)
        return Seating(
            names=resolved.names,
            players=[player.pk if player is not None else None for _, player in resolved.seats],
            club_id=resolved.club.pk if resolved.club is not None else None,
            season_id=resolved.season.pk if resolved.season is not None else None,
        )

    def occupant(
        self, *, game: Game, player: Any, allow_elsewhere: bool, seat: int | None = None
    ) -> tuple[str, int]:
        """A player of the game's club (``player_not_in_club``, ``player_merged``), not in
        another open game unless allowed (``player_seated_elsewhere``), nor, re-seating
        ``seat``, in another seat of this game (``player_twice``)."""
        in_league = selectors.game_league(game=game)
        resolved = services.game_league_resolve(
            players=[player], club=in_league.club if in_league else None, season=None
        )
        found = resolved.seats[0][1]
        assert found is not None
        if not allow_elsewhere:
            services.check_not_seated_elsewhere(player=found, game=game)
        if seat is not None and any(
            number != seat and pk == found.pk
            for number, pk in selectors.seat_players(game=game).items()
        ):
            raise PlayerTwice()
        return found.display_name, found.pk

    def seat_players(self, *, game: Game) -> dict[int, int]:
        """``selectors.seat_players``: one query (none with the seats prefetched)."""
        return selectors.seat_players(game=game)

    def new_game_leagues(self, *, user: UserLike) -> list[LeagueChoice]:
        """Each club ``user`` organises (by membership, staff too) with its players (not
        merged ones, by name: the form's seat pickers), then its seasons not archived,
        newest first. Three queries."""
        if user is None or not user.is_authenticated:
            return []
        clubs = list(
            Club.objects.filter(
                memberships__user_id=user.pk, memberships__role=Membership.Role.ORGANISER
            )
            .distinct()
            .order_by("name", "pk")
        )
        seasons: dict[int, list[Season]] = {}
        for season in Season.objects.filter(club__in=clubs, is_archived=False).order_by(
            "-starts_on", "-pk"
        ):
            seasons.setdefault(season.club_id, []).append(season)
        players: dict[int, list[tuple[int, str]]] = {}
        for player in Player.objects.filter(club__in=clubs, merged_into__isnull=True).order_by(
            "display_name", "pk"
        ):
            players.setdefault(player.club_id, []).append((player.pk, _player_label(player)))
        for club_players in players.values():
            _tell_apart(club_players)
        choices = []
        for club in clubs:
            choices.append(
                referee_league.LeagueChoice(
                    key=str(club.pk),
                    label=club.name,
                    club=club,
                    players=tuple(players.get(club.pk, ())),
                )
            )
            choices.extend(
                referee_league.LeagueChoice(
                    key=f"{club.pk}/{season.pk}",
                    label=f"{club.name} · {season.name}",
                    club=club,
                    season=season,
                )
                for season in seasons.get(club.pk, [])
            )
        return choices

    def substitute_players(self, *, game: Game, names: Sequence[str]) -> list[int | None]:
        """``registered_seats`` against the game's club (one query, none in no club)."""
        in_league = selectors.game_league(game=game)
        if in_league is None or not names:
            return [None] * len(names)
        seats = self.registered_seats(club=in_league.club, names=list(names))
        return [seat if isinstance(seat, int) else None for seat in seats]

    def organises(self, *, user: UserLike, game: Game) -> bool:
        return selectors.game_organised_by(user=user, game=game)

    def games_accessible(self, *, user: UserLike) -> QuerySet[Game]:
        return selectors.games_accessible(user=user)

    def time_zone(self, *, game: Game) -> dt.tzinfo | None:
        """The zone of the game's club (``Club.time_zone``); ``None`` for a friendly game.
        No query for a game read with its league, else one (``selectors.game_league``)."""
        in_league = selectors.game_league(game=game)
        return zones.zone(in_league.club.time_zone) if in_league is not None else None

    def language(self, *, game: Game) -> str | None:
        """The language of the game's club (``Club.language``); ``None`` for a friendly game.
        No query for a game read with its league, else one (``selectors.game_league``)."""
        in_league = selectors.game_league(game=game)
        return in_league.club.language if in_league is not None else None

    def club_players(self, *, game: Game) -> list[tuple[int, str]]:
        in_league = selectors.game_league(game=game)
        if in_league is None:
            return []
        rows = selectors.club_players(club=in_league.club).order_by("display_name", "pk")
        players = [(p.pk, _player_label(p)) for p in rows]
        _tell_apart(players)
        return players

    def registered_seats(self, *, club: Any, names: list[str]) -> list[Any]:
        if club is None:
            return list(names)
        # A merged player's row stays with ``merged_into`` set (a merge re-points earlier
        # ones, so one step): their name seats the player they were merged into, unless a
        # player of the club not merged bears it.
        found: dict[str, set[int]] = {}
        merged: dict[str, set[int]] = {}
        for player in selectors.club_players(club=club, include_merged=True):
            key = " ".join(player.display_name.split()).casefold()
            if player.merged_into_id is None:
                found.setdefault(key, set()).add(player.pk)
            else:
                merged.setdefault(key, set()).add(player.merged_into_id)
        seats: list[Any] = []
        for name in names:
            key = " ".join(name.split()).casefold()
            ids = found.get(key) or merged.get(key, set())
            seats.append(min(ids) if len(ids) == 1 else name)  # two players of one name: a guest
        return seats

    def create_fields(self) -> dict[str, Field[Any, Any, Any, Any]]:
        from scoring.api.serializers import game_league_fields

        return game_league_fields()

    def list_fields(self) -> dict[str, Field[Any, Any, Any, Any]]:
        from scoring.api.serializers import game_list_fields

        return game_list_fields()

    def import_query(self, query: Mapping[str, Any], *, user: Any = None) -> dict[str, Any]:
        from scoring.api.serializers import GameLeagueQuerySerializer

        # A private club the importer may not read is refused as a missing one (issue 27).
        context = {"request": SimpleNamespace(user=user)}
        league = GameLeagueQuerySerializer(data=query, context=context)
        league.is_valid(raise_exception=True)
        return dict(league.validated_data)
