"""What every organiser's page shares: who may open it (``organiser_page``: the game's
creator, an organiser of its club, or staff; else the 403 page, ``forbidden``) and the
games of the evening an organiser runs (``evening_games``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone

from referee.league import league
from referee.models import Game
from referee.web.session import session_token

# A game counts as one of the evening's while open, or for this long after it was created.
EVENING = timedelta(hours=14)


# -- access ---------------------------------------------------------------------------------


def organiser_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Resolve ``game_id`` to the game for its organiser, else refuse.

    Not signed in: the sign-in page (a phone of the table: 403). Signed in but
    not the game's creator, an organiser of its club, or staff: 403. No such
    game: 404.
    """

    @functools.wraps(view)
    def wrapped(request: HttpRequest, game_id: Any, *args: Any, **kwargs: Any) -> HttpResponse:
        user = request.user
        if not user.is_authenticated:
            if session_token(request) is not None:  # a phone of a table: not an organiser
                return forbidden(request)
            return redirect_to_login(request.get_full_path())
        game = get_object_or_404(Game, pk=game_id)
        if not (
            user.is_staff
            or game.created_by_id == user.pk
            or league().organises(user=user, game=game)
        ):
            return forbidden(request)
        return view(request, game, *args, **kwargs)

    return wrapped


def forbidden(request: HttpRequest) -> HttpResponse:
    """The 403 page: organisers only, in the page's language."""
    return render(request, "referee/organiser_forbidden.html", status=403)


# -- the evening's games --------------------------------------------------------------------


def evening_games(user: Any) -> tuple[list[Game], list[Game]]:
    """The games ``user`` organises: those of the evening (open, or created in the last
    ``EVENING``) and the earlier ones, newest first, at most 50 in all."""
    games: QuerySet[Game] = league().games_accessible(user=user)
    since = timezone.now() - EVENING
    evening, earlier = [], []
    for game in games[:50]:
        if game.status == Game.Status.OPEN or game.created_at >= since:
            evening.append(game)
        else:
            earlier.append(game)
    return evening, earlier
