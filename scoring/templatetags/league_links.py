"""``{% game_league game as name %}``: the league a game counts for, for the referee's pages.

The referee's tables hold no club or season (``scoring.GameLeague`` does): its
organiser pages ask here, as they ask ``room_links`` for the room view's links.
"""

from __future__ import annotations

from django import template

from referee.models import Game
from scoring import selectors
from scoring.models import GameLeague

register = template.Library()


@register.simple_tag
def game_league(game: Game) -> GameLeague | None:
    """``selectors.game_league``: the game's club and season (``None``: a friendly game).
    No query for a game read with its league (``selectors.games_accessible``), else one."""
    return selectors.game_league(game=game)
