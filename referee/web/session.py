"""The table token a browser joined with, kept in its Django session (server side).

The session holds the token's key, never shown to the page; each request looks
the token up by its hash, so a revoked token stops working at once.
"""

from __future__ import annotations

from django.http import HttpRequest

from referee.languages import browser_chose, speak_by_default
from referee.league import league
from referee.models import Game, TableToken, hash_token
from referee.store import live_token

SESSION_KEY = "domeng_table_token"


def remember_token(request: HttpRequest, key: str) -> None:
    """Keep ``key`` in the session; a new session id, as at any change of rights."""
    request.session.cycle_key()
    request.session[SESSION_KEY] = key


def forget_token(request: HttpRequest) -> None:
    """Leave the table: the session no longer holds a token."""
    request.session.pop(SESSION_KEY, None)


def session_token(request: HttpRequest) -> TableToken | None:
    """The live token this browser joined with, with its game (one query), or ``None``.
    The page then speaks the language of the game's club if the browser chose none
    (``speak_the_clubs_language``)."""
    key = request.session.get(SESSION_KEY)
    if not isinstance(key, str) or not key:
        return None
    token = live_token(hash_token(key))
    if token is not None:
        speak_the_clubs_language(request, token.game)
    return token


def speak_the_clubs_language(request: HttpRequest, game: Game) -> None:
    """A page of ``game`` for a browser that names no language the project has speaks the
    language of the club the game counts for (``referee.languages``): one query then, none
    when the browser chose."""
    if not browser_chose(request):
        speak_by_default(request, league().language(game=game))
