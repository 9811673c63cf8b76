"""The room view of a club night: every open table of a club and the evening's standings.

A read-only page for a TV or a projector (``/room/<club slug>/``): no seat, no
tap, nothing private. Each open game of the club shows its seats' names, the
stones each holds, the CAMAT, whose turn it is, the tiles each still holds
(a count) and its last event; the evening's standings are the league's
(``scoring.selectors.standings``) over the rounds settled since the evening
began (``evening_start``). A declared hand (R31) is never on it: the page is
built from the state any viewer without a seat gets (``viewer=None``) and
draws no hand, no chain and no playable tile, only the last event.

Who may open it: whoever may read the club's league records
(``scoring.selectors.club_can_read``: everyone for a published club, its
members and staff otherwise), or anyone holding the room link an organiser
shares from the games page (``room_url``: the club's slug signed with a
timestamp, good for ``ROOM_LINK_MAX_AGE`` seconds, one club night). An
expired link says so (403); any other refusal is a 404, as for a club that
does not exist.

It updates itself: ``static/referee/room.js`` polls ``room_live`` every few
seconds with the signature of what the page shows (``v``); an unchanged room
answers 204, a changed one its partial, merged into the page with the
vendored idiomorph. Every request costs the same number of SQL queries
however many tables and rounds the club has (``room_state``: five).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.core import signing
from django.db.models import Q
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from django_htmx.http import HttpResponseClientRedirect

from referee import folding, selectors
from referee.languages import speak_by_default
from referee.models import Event, Game
from referee.store import rules_of, state_of
from referee.web.panels import event_view, round_banner, seat_view
from referee.web.taps import POLL_SECONDS, HtmxHttpRequest, database_unavailable_as_503
from scoring import zones
from scoring.api.filters import STANDINGS_DEFAULT_ORDERING
from scoring.models import Club, ClubSlug, Membership
from scoring.selectors import club_can_read, league_rows, standings

ROOM_SALT = "referee.web.room"
# A shared room link is good for one club night (seconds).
ROOM_LINK_MAX_AGE = getattr(settings, "DOMENG_ROOM_LINK_MAX_AGE", 24 * 3600)
# The evening begins at this local hour: a round settled after midnight still counts for
# the night before it (the club's local time, ``Club.time_zone``).
EVENING_STARTS_AT = 6
MAX_TABLES = 60  # open games drawn; a club night has a handful
MAX_STANDINGS = 40  # players listed


@dataclass(frozen=True)
class RoomTable:
    """One open game as the room sees it: seats 0–4 (name, stones, CAMAT, tiles left,
    turn), the stones on the table, the round, its last event and a finished round's
    banner (named outcomes, winner). No hand, no chain."""

    number: int
    game_id: str
    version: int
    round: int
    status: str
    seats: list[dict[str, Any]]
    table_stones: int
    turn: dict[str, Any] | None
    last: dict[str, Any] | None
    banner: dict[str, Any] | None


@dataclass(frozen=True)
class Room:
    """Everything the room page draws; ``signature`` changes whenever any of it does."""

    club: Club
    tables: list[RoomTable]
    standings: list[dict[str, Any]]
    since: dt.datetime
    signature: str


# -- the shared link -----------------------------------------------------------------------


def _signer() -> signing.TimestampSigner:
    return signing.TimestampSigner(salt=ROOM_SALT)


def room_key(club: Club) -> str:
    """The key of the club's room link: a timestamp and a signature of its slug."""
    return _signer().sign(club.slug).split(":", 1)[1]


def room_url(club: Club) -> str:
    """The room view's path with a fresh key (good for ``ROOM_LINK_MAX_AGE`` seconds)."""
    return reverse("league:room", args=[club.slug]) + "?" + urlencode({"key": room_key(club)})


def key_status(slug: str, key: str) -> str:
    """``valid``, ``expired`` or ``invalid`` (no key, another club's, tampered)."""
    if not key:
        return "invalid"
    try:
        _signer().unsign(f"{slug}:{key}", max_age=ROOM_LINK_MAX_AGE)
    except signing.SignatureExpired:
        return "expired"
    except signing.BadSignature:
        return "invalid"
    return "valid"


def organised_clubs(user: Any) -> list[Club]:
    """The clubs whose room link ``user`` may share: those they organise (staff: every
    club with an open game). One query."""
    if user is None or not user.is_authenticated:
        return []
    if getattr(user, "is_staff", False):
        clubs = Club.objects.filter(
            Q(memberships__user_id=user.pk, memberships__role=Membership.Role.ORGANISER)
            | Q(games__game__status=Game.Status.OPEN)
        )
    else:
        clubs = Club.objects.filter(
            memberships__user_id=user.pk, memberships__role=Membership.Role.ORGANISER
        )
    return list(clubs.distinct().order_by("name")[:20])


# -- what the room shows -------------------------------------------------------------------


def evening_start(now: dt.datetime | None = None, tz: dt.tzinfo | None = None) -> dt.datetime:
    """When this evening began, aware in ``tz`` (a club's zone; default the current one):
    today at ``EVENING_STARTS_AT`` local time, or yesterday's when it is earlier than that
    (a club night that goes on past midnight: at 01:15 in Montreal the evening is the
    previous day's from 06:00 Montreal time)."""
    local = timezone.localtime(now, tz)
    start = local.replace(hour=EVENING_STARTS_AT, minute=0, second=0, microsecond=0)
    if local < start:
        start -= dt.timedelta(days=1)
    return start


def room_state(club: Club, *, now: dt.datetime | None = None) -> Room:
    """The club's open tables and the evening's standings, in five queries whatever
    their number: the games, their seats, their current rounds' events, the standings.

    Each game is folded from the snapshot cached on its row (``Game.state``) as
    ``referee.selectors.game_state_for`` does, but with every game's events read
    in one query. Tables are numbered 1, 2, … in the order their games were
    created.
    """
    games = list(
        Game.objects.filter(league__club=club, status=Game.Status.OPEN)
        .prefetch_related("seats")
        .order_by("created_at", "pk")[:MAX_TABLES]
    )
    snapshots = {game.pk: state_of(game).snapshot for game in games}
    events: dict[Any, list[Event]] = {game.pk: [] for game in games}
    if games:
        current = Q()
        for game in games:  # one query: each game's events since its snapshot's round
            current |= Q(game_id=game.pk, round_number__gte=snapshots[game.pk]["round"])
        for event in Event.objects.filter(current, revoked_by__isnull=True).order_by(
            "game_id", "position"
        ):
            events[event.game_id].append(event)
    tables = [
        _table(number, game, snapshots[game.pk], events[game.pk])
        for number, game in enumerate(games, start=1)
    ]
    since = evening_start(now, zones.zone(club.time_zone))
    rows = league_rows(club=club).filter(played_at__gte=since)
    ranking = list(standings(rows).order_by(*STANDINGS_DEFAULT_ORDERING)[:MAX_STANDINGS])
    return Room(club, tables, ranking, since, _signature(club, tables, ranking, since))


def _players(game: Game) -> list[str]:
    """The names at the game's seats now, substitutes included (R38), as
    ``referee.selectors.load_current_round`` gives them (from the prefetched seats)."""
    players = [seat.name for seat in sorted(game.seats.all(), key=lambda s: s.number)]
    for _, seat, name, _ in sorted(state_of(game).substitutes, key=lambda sub: sub[0] or 0):
        players[seat] = name
    return players


def _table(number: int, game: Game, snapshot: dict[str, Any], events: list[Event]) -> RoomTable:
    engine, effects = folding.fold(
        rules_of(game), [(e.kind, e.payload) for e in events], snapshot=snapshot
    )
    # viewer=None: the state of a page without a seat, where no declared hand is read (R31).
    state = selectors.game_state(game, engine, events, effects, viewer=None, players=_players(game))
    seats = [_public_seat(seat_view(seat, state, None)) for seat in state["seats"]]
    last = state["last_events"][-1] if state["last_events"] else None
    status = state["round"]["status"]
    turn = state["turn"]
    return RoomTable(
        number=number,
        game_id=str(game.pk),
        version=game.version,
        round=state["round"]["number"],
        status=status,
        seats=seats,
        table_stones=state["table"],
        turn=seats[turn] if turn is not None and status != "awaiting_reveals" else None,
        last=event_view(last, seats) if last is not None else None,
        banner=round_banner(state, seats, rules_of(game)),
    )


def _public_seat(seat: dict[str, Any]) -> dict[str, Any]:
    """A seat as the room shows it: never its hand, its tiles or what it passed on."""
    keep = ("seat", "name", "stones", "is_camat", "tiles_left", "is_turn", "computer")
    return {key: seat[key] for key in keep}


def _signature(
    club: Club, tables: list[RoomTable], ranking: list[dict[str, Any]], since: dt.datetime
) -> str:
    drawn = [
        club.name,
        [(t.game_id, t.version) for t in tables],
        ranking,
        since.isoformat(),
    ]
    text = json.dumps(drawn, default=str, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


# -- the pages -----------------------------------------------------------------------------


def _moved(request: HtmxHttpRequest, slug: str) -> Club | None:
    """The club that gave up ``slug`` (renamed in the admin, ``ClubSlug``; a slug in use is
    nobody's old slug), if this request may see it: its old room link (a key signed for
    the old slug) or a reader of the club."""
    moved = ClubSlug.objects.filter(slug=slug).select_related("club").first()
    if moved is None:
        return None
    valid = key_status(slug, request.GET.get("key", "")) == "valid"
    return moved.club if valid or club_can_read(user=request.user, club=moved.club) else None


def _room_club(request: HtmxHttpRequest, slug: str) -> tuple[Club, str, str]:
    """The club, the key given and its status; 404 for one this request may not read."""
    club = Club.objects.filter(slug=slug).first()
    key = request.GET.get("key", "")
    status = key_status(slug, key)
    if club is None:
        raise Http404
    if status != "valid" and not club_can_read(user=request.user, club=club):
        if status == "expired":
            return club, key, status
        raise Http404
    return club, key, "valid"


def _context(room: Room, key: str) -> dict[str, Any]:
    query = urlencode({"key": key, "v": room.signature} if key else {"v": room.signature})
    return {
        "club": room.club,
        "room": room,
        "poll_url": reverse("league:room-live", args=[room.club.slug]) + "?" + query,
        "poll_seconds": max(POLL_SECONDS, 2),
    }


@never_cache
@require_safe
@database_unavailable_as_503
def room(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """The room view of a club: its open tables and the evening's standings (read-only).
    An old slug of a renamed club leads to its room link now (a fresh key)."""
    try:
        club, key, status = _room_club(request, slug)
    except Http404:
        moved = _moved(request, slug)  # no club has that slug now: a renamed one had it?
        if moved is None:
            raise
        return redirect(room_url(moved), permanent=False)
    speak_by_default(request, club.language)  # no language the browser chose: the club's
    if status == "expired":
        return render(request, "scoring/room_expired.html", {"club": club}, status=403)
    with zones.club_time(club):
        return render(request, "scoring/room.html", _context(room_state(club), key))


@never_cache
@require_safe
@database_unavailable_as_503
def room_live(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """The polled partial of the room view; 204 while it shows what the page shows (``v``).

    An expired link answers 403 (the page then stops being updated and says why); a renamed
    club's old link sends the TV to its room link now (``HX-Redirect``).
    """
    try:
        club, key, status = _room_club(request, slug)
    except Http404:
        moved = _moved(request, slug)
        if moved is None:
            raise
        return HttpResponseClientRedirect(room_url(moved))
    speak_by_default(request, club.language)
    if status == "expired":
        return HttpResponse(status=403)
    state = room_state(club)
    if request.GET.get("v") == state.signature:
        return HttpResponse(status=204)
    with zones.club_time(club):
        return render(request, "scoring/_room_live.html", _context(state, key))
