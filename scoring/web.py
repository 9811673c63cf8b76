"""The league's pages, mounted at ``/`` beside the phone web form (namespace ``league``):
a club's standings and the room view of a club night (``scoring.room``).

The league depends on the referee (its pages reuse the form's 403 page, session and
503 handling); the referee's pages link here by URL name only.
"""

from __future__ import annotations

from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import path
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from referee.web.organising import forbidden
from referee.web.session import session_token
from referee.web.taps import database_unavailable_as_503
from scoring import room
from scoring.api.filters import STANDINGS_DEFAULT_ORDERING
from scoring.models import Club
from scoring.selectors import club_can_read, league_rows, standings

app_name = "league"


@never_cache
@require_safe
@database_unavailable_as_503
def club_standings(request: HttpRequest, slug: str) -> HttpResponse:
    """A club's standings as a page (the API's ``…/standings/``, same order): lifetime, or
    one season's with ``?season=<id>`` (at most 200 rows). A club's records are open to its
    members (a published club's to all): a signed-out visitor is sent to sign in, anyone
    else gets the 403 page; an unknown club is a 404."""
    club = get_object_or_404(Club, slug=slug)
    if not club_can_read(user=request.user, club=club):
        if not request.user.is_authenticated and session_token(request) is None:
            return redirect_to_login(request.get_full_path())
        return forbidden(request)
    season_id = request.GET.get("season", "")
    season = club.seasons.filter(pk=int(season_id)).first() if season_id.isdigit() else None
    rows = standings(league_rows(club=club, season=season)).order_by(*STANDINGS_DEFAULT_ORDERING)
    context = {"club": club, "season": season, "rows": list(rows[:200])}
    return render(request, "scoring/club_standings.html", context)


urlpatterns = [
    path("clubs/<slug:slug>/standings/", club_standings, name="club-standings"),
    path("room/<slug:slug>/", room.room, name="room"),
    path("room/<slug:slug>/live/", room.room_live, name="room-live"),
]
