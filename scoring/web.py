"""The league's pages, mounted at ``/`` beside the phone web form (namespace ``league``):
a club's standings and the room view of a club night (``scoring.room``).

The league depends on the referee (its pages reuse the form's 403 page, session and
503 handling); the referee's pages link here by URL name only.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.utils import formats
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from referee.languages import speak_by_default
from referee.web import charts
from referee.web.organising import forbidden
from referee.web.session import session_token
from referee.web.taps import database_unavailable_as_503
from scoring import clubs, room, zones
from scoring.api.filters import STANDINGS_DEFAULT_ORDERING, PlayedBetweenFilter
from scoring.models import Club, ClubSlug
from scoring.selectors import club_can_read, league_rows, player_evenings, standings

app_name = "league"


class PlayedBetweenForm(forms.Form):
    """The standings page's date filter: the API's ``played_after``/``played_before``, the
    club's local dates (both included)."""

    played_after = forms.DateField(
        required=False,
        label=_("Played on or after"),
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
    )
    played_before = forms.DateField(
        required=False,
        label=_("Played on or before"),
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
    )


@never_cache
@require_safe
@database_unavailable_as_503
def club_standings(request: HttpRequest, slug: str) -> HttpResponse:
    """A club's standings as a page (the API's ``…/standings/``, same order): lifetime, or
    one season's with ``?season=<id>`` (at most 200 rows), of the rounds settled from
    ``?played_after=`` to ``?played_before=`` (YYYY-MM-DD, the club's local dates, both
    included; a date that is none is said and ignored). Times and dates are drawn in the
    club's time zone. A club's records are open to its
    members (a published club's to all): a signed-out visitor is sent to sign in, anyone
    else gets the 403 page; an unknown club is a 404."""
    club = Club.objects.filter(slug=slug).first()
    if club is None:  # an old slug of a renamed club, for those who may read it
        moved = ClubSlug.objects.filter(slug=slug).select_related("club").first()
        if moved is None or not club_can_read(user=request.user, club=moved.club):
            raise Http404
        target = reverse("league:club-standings", args=[moved.club.slug])
        query = request.META.get("QUERY_STRING", "")
        return redirect(f"{target}?{query}" if query else target, permanent=True)
    if not club_can_read(user=request.user, club=club):
        if not request.user.is_authenticated and session_token(request) is None:
            return redirect_to_login(request.get_full_path())
        return forbidden(request)
    speak_by_default(request, club.language)  # no language the browser chose: the club's
    season_id = request.GET.get("season", "")
    season = club.seasons.filter(pk=int(season_id)).first() if season_id.isdigit() else None
    dates = PlayedBetweenForm(request.GET)
    rows = league_rows(club=club, season=season)
    if dates.is_valid() and any(dates.cleaned_data.values()):
        rows = PlayedBetweenFilter(
            {k: v.isoformat() for k, v in dates.cleaned_data.items() if v},
            queryset=rows,
            zone=zones.zone(club.time_zone),
        ).qs
    ranked = standings(rows).order_by(*STANDINGS_DEFAULT_ORDERING)
    context: dict[str, Any] = {
        "club": club,
        "season": season,
        "rows": list(ranked[:200]),
        "dates": dates,
    }
    with zones.club_time(club):
        context["evenings"] = _evenings_picture(request, club, season)
        return render(request, "scoring/club_standings.html", context)


def _evenings_picture(request: HttpRequest, club: Club, season: Any) -> dict[str, Any] | None:
    """``?player=<id>``: that registered player's evenings (the season's, or lifetime) as
    a picture (``referee.web.charts.evenings``); an unknown player shows none."""
    player_id = request.GET.get("player", "")
    player = club.players.filter(pk=int(player_id)).first() if player_id.isdigit() else None
    if player is None:
        return None
    nights = player_evenings(
        club=club,
        player=player,
        season=season,
        tz=zones.zone(club.time_zone),
        starts_at=room.EVENING_STARTS_AT,
    )
    picture = charts.evenings(
        name=player.display_name,
        nights=nights,
        date_format=lambda day: formats.date_format(day, "SHORT_DATE_FORMAT"),
    )
    return {"player": player, "picture": picture}


urlpatterns = [
    path("clubs/<slug:slug>/standings/", club_standings, name="club-standings"),
    path("room/<slug:slug>/", room.room, name="room"),
    path("room/<slug:slug>/live/", room.room_live, name="room-live"),
    # The first run and the organiser's pages of a club (``scoring.clubs``).
    path("setup/<str:key>/", clubs.first_run, name="first-run"),
    path("clubs/", clubs.clubs, name="clubs"),
    path("clubs/<slug:slug>/manage/", clubs.club_manage, name="club-manage"),
    path("clubs/<slug:slug>/manage/players/", clubs.club_players, name="club-players"),
    path(
        "clubs/<slug:slug>/manage/players/<int:player_id>/",
        clubs.club_player,
        name="club-player",
    ),
    path("clubs/<slug:slug>/manage/seasons/", clubs.club_seasons, name="club-seasons"),
    path(
        "clubs/<slug:slug>/manage/seasons/<int:season_id>/",
        clubs.club_season,
        name="club-season",
    ),
    path("clubs/<slug:slug>/manage/organisers/", clubs.club_organisers, name="club-organisers"),
]
