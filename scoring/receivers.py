"""The league listens to the referee: its seat-round stats follow every change of a game.

Connected in ``ScoringConfig.ready()`` to the signals of ``referee.signals``,
which the referee sends inside the transaction of the write: these receivers
write in that same transaction, and an error here refuses the referee's write.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from referee.engine import Game as EngineGame
from referee.models import Game, Seat
from scoring import services


def game_created(
    sender: Any,
    *,
    game: Game,
    club_id: int | None,
    season_id: int | None,
    players: Sequence[int | None],
    seats: Sequence[Seat],
    **kwargs: Any,
) -> None:
    """A game was created: keep its club, season and seats' registered players."""
    services.game_league_record(
        game=game, club_id=club_id, season_id=season_id, players=players, seats=seats
    )


def seat_reseated(
    sender: Any, *, game: Game, seat: Seat, player: int | None, **kwargs: Any
) -> None:
    """Who sits a seat from the start changed (R38): keep its registered player."""
    services.seat_player_set(seat=seat, player=player)


def round_settled(
    sender: Any,
    *,
    game: Game,
    engine: EngineGame,
    snapshot: dict[str, Any],
    played_at: datetime,
    **kwargs: Any,
) -> None:
    """A round was settled at the table: store its five seat-rounds."""
    services.seat_rounds_settle(game=game, engine=engine, snapshot=snapshot, played_at=played_at)


def rounds_changed(
    sender: Any,
    *,
    game: Game,
    engine: EngineGame | None = None,
    played_at: datetime | None = None,
    settled_at: Mapping[int, datetime] | None = None,
    snapshot: Mapping[str, Any] | None = None,
    until: int | None = None,
    **kwargs: Any,
) -> None:
    """Any round may have changed (import, correction, ruling, re-seating): bring their
    rows in line (only those that changed are written). ``engine`` resumed from
    ``snapshot`` (a correction of round k): the rows from round k on; ``until``: to that
    round only (a ruling whose standing came back there, issue 29)."""
    services.seat_rounds_rebuild(
        game=game,
        engine=engine,
        played_at=played_at,
        settled_at=settled_at,
        snapshot=snapshot,
        until=until,
    )


def game_deleting(sender: Any, instance: Game, **kwargs: Any) -> None:
    """Django's ``pre_delete`` of a game, before it and its seat-rounds go (``CASCADE``):
    its rows leave the players' totals (``services.game_deleting``)."""
    services.game_deleting(game=instance)


def user_deleting(sender: Any, instance: Any, **kwargs: Any) -> None:
    """Django's ``pre_delete`` of a user: the last organiser of a club is not deleted
    (``services.check_user_deletable``, 409 ``last_organiser``)."""
    services.check_user_deletable(user=instance)
