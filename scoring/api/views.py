"""The league-records API: one view per resource, each parsing, calling one service or
selector, and rendering.

Reading (clubs, players, seasons, standings, histories, ratings) is open to
the club's members, and to everyone once the club publishes its records
(``is_public``); writing to its organisers (the services check the role).
A table token reads nothing here unless the club is public. A private club the caller
may not read is not found (404, as a club that does not exist: ``ClubMixin``).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from django.utils.cache import patch_cache_control
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import (
    NotFound,
    PermissionDenied,
    ValidationError,
)
from rest_framework.permissions import AllowAny, IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from referee.api.pagination import BoundedCursorPagination, BoundedPageNumberPagination
from referee.api.problems import PROBLEM_CONTENT_TYPE
from referee.api.renderers import JSONRenderer
from referee.api.schema import PROBLEM_RESPONSE_GENERIC
from referee.inputs import MAX_ID
from referee.models import Game, Occupant
from scoring import ratings as ratings_core
from scoring import selectors, services, zones
from scoring.api import examples as ex
from scoring.api import serializers as s
from scoring.api.filters import (
    STANDINGS_DEFAULT_ORDERING,
    STANDINGS_ORDERING_FIELDS,
    ClubDatesFilterBackend,
    PlayedBetweenFilter,
    RowsFilterBackend,
    StableOrderingFilter,
    StandingsFilter,
)
from scoring.api.renderers import EXPORT_FORMATS, CSVRenderer, SpreadsheetCSVRenderer
from scoring.exceptions import NotClubOrganiser
from scoring.models import Club, Membership, Player, Season, SeatRound

PROBLEMS = {
    (400, PROBLEM_CONTENT_TYPE): PROBLEM_RESPONSE_GENERIC,
    (401, PROBLEM_CONTENT_TYPE): PROBLEM_RESPONSE_GENERIC,
    (403, PROBLEM_CONTENT_TYPE): PROBLEM_RESPONSE_GENERIC,
    (404, PROBLEM_CONTENT_TYPE): PROBLEM_RESPONSE_GENERIC,
}
WRITE_PROBLEMS = {**PROBLEMS, (409, PROBLEM_CONTENT_TYPE): PROBLEM_RESPONSE_GENERIC}
SEASON_PARAM = OpenApiParameter(
    "season",
    {"type": "integer", "minimum": 1, "maximum": MAX_ID},
    required=False,
    description="Only this season of the club (its id).",
)
PLAYER_ID = {"type": "integer", "minimum": 1, "maximum": MAX_ID}


class LeaguePagination(BoundedPageNumberPagination):
    page_size = 50
    max_page_size = 500


class RoundsHistoryPagination(BoundedCursorPagination):
    """A player's rounds, newest first, by cursor: a round settled meanwhile goes before
    the first page, never onto the next (issue 32)."""

    ordering = ("-played_at", "-game_id", "-round_number")


class GamesHistoryPagination(BoundedCursorPagination):
    """A player's games, the last played first, by cursor."""

    ordering = ("-last_played_at", "-game")


class ClubGamesPagination(BoundedCursorPagination):
    """A club's games, newest first, by cursor: a game created meanwhile goes first."""

    ordering = ("-created_at", "-id")


def _managed_club(request: Request, slug: str) -> Club:
    """The club in the URL if the caller organises it: 404 if there is no such club or the
    caller may not read it, else ``not_club_organiser`` (403) for a member who does not
    organise it.

    A private club is looked up among the clubs the caller may read
    (``selectors.clubs_visible``), as ``ClubMixin`` reads do: an outsider's write to it
    answers the same 404 body as a write to a missing slug, on every method (issue 27), so
    writes cannot tell which private slugs exist. Checked before anything else of the club
    is looked up, so that an outsider learns nothing of its players, seasons or games.
    """
    club = get_object_or_404(selectors.clubs_visible(user=request.user), slug=slug)
    if not selectors.club_can_manage(user=request.user, club=club):
        raise NotClubOrganiser()
    return club


def _validated(serializer_class: type[Any], data: Any, **context: Any) -> dict[str, Any]:
    serializer = serializer_class(data=data, context=context)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


class LeagueCaching(APIView):
    """``Cache-Control: private, no-store`` on every answer that depends on who asks (issue 27).

    A private club's records are its members' (an outsider gets 404 for the same URL),
    the club list and a club's ``role`` are the caller's, the member list is its
    organisers', and a write's answer or an error is the caller's: none of them may be
    kept by a shared cache keyed on the URL, nor stored on the caller's disk. A 200 read
    of a published club by a view whose body is the same for everyone
    (``cache_privacy = "unless_public"``) stays cacheable. The OpenAPI schema declares the
    header on every league operation (``referee.api.schema.AutoSchema``).
    """

    cache_privacy = "always"  # or "unless_public": a published club's 200 is everyone's

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any) -> Any:
        response = super().finalize_response(request, response, *args, **kwargs)
        if not self._same_for_everyone(request, response):
            patch_cache_control(response, private=True, no_store=True)
        return response

    def _same_for_everyone(self, request: Request, response: Any) -> bool:
        club = getattr(self, "_club", None)
        return (
            self.cache_privacy == "unless_public"
            and request.method in ("GET", "HEAD")
            and response.status_code == 200
            and club is not None
            and club.is_public
        )


class ClubMixin(LeagueCaching):
    """The club named in the URL, if the caller may read it — one query.

    A private club the caller may not read (an outsider, an anonymous caller, a table
    token) is looked up among the clubs they may read (``selectors.clubs_visible``) and
    so answers 404 exactly as a club that does not exist: same code, same body (issue
    27). A 401 or 403 would tell that a private club has this slug.
    """

    def get_club(self) -> Club:
        if not hasattr(self, "_club"):
            visible = selectors.clubs_visible(user=self.request.user)
            self._club = get_object_or_404(visible, slug=self.kwargs["slug"])
        return self._club

    def get_player(self, pk: Any = None) -> Player:
        pk = pk if pk is not None else self.kwargs["pk"]
        return get_object_or_404(Player, club=self.get_club(), pk=pk)

    def get_season(self, pk: Any = None) -> Season:
        pk = pk if pk is not None else self.kwargs["season"]  # ?season=0 is a season id too
        return get_object_or_404(Season, club=self.get_club(), pk=pk)

    def season_from_query(self) -> Season | None:
        raw = self.request.query_params.get("season") or ""
        if not raw:
            return None
        if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= MAX_ID:
            raise ValidationError({"season": [gettext("A season id.")]})
        return self.get_season(int(raw))


def _schema_stub(view: Any) -> bool:
    """True while drf-spectacular inspects the view (no request data, no URL kwargs)."""
    return bool(getattr(view, "swagger_fake_view", False))


# -- clubs ---------------------------------------------------------------------------------


class ClubListCreateView(LeagueCaching, generics.ListAPIView):  # type: ignore[type-arg]
    """The clubs you may read; create a club (you become its organiser)."""

    permission_classes = [IsAuthenticatedOrReadOnly]
    serializer_class = s.ClubSerializer
    pagination_class = LeaguePagination

    def get_queryset(self) -> QuerySet[Club]:
        return selectors.clubs_visible(user=self.request.user).order_by("name", "id")

    def get_serializer_context(self) -> dict[str, Any]:
        context = super().get_serializer_context()
        user = self.request.user
        if user.is_authenticated:
            context["roles"] = dict(
                Membership.objects.filter(user_id=user.pk).values_list("club_id", "role")
            )
        return context

    @extend_schema(
        operation_id="clubs_list",
        tags=["league"],
        summary="Clubs you may read",
        description="Published clubs and the clubs you belong to, with your role.",
        responses={200: s.ClubSerializer(many=True), **PROBLEMS},
        examples=[ex.response("A club", ex.CLUB)],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        operation_id="clubs_create",
        tags=["league"],
        summary="Create a club",
        description="You become its first organiser. Its records are private unless "
        "`is_public`. Its `time_zone` (IANA name) is the server's unless given: its pages' "
        "times and dates, its evening and its date filters are local to it.",
        request=s.ClubCreateSerializer,
        responses={201: s.ClubSerializer, **WRITE_PROBLEMS},
        examples=[
            ex.OpenApiExample(
                "A private club",
                request_only=True,
                value={
                    "name": "Makassar Domeng Club",
                    "slug": "makassar-domeng",
                    "time_zone": "Asia/Makassar",
                },
            ),
            ex.response("Created", ex.CLUB),
        ],
    )
    def post(self, request: Request) -> Response:
        data = _validated(s.ClubCreateSerializer, request.data)
        club = services.club_create(created_by=request.user, **data)  # type: ignore[arg-type]
        body = s.ClubSerializer(club, context={"roles": {club.pk: "organiser"}}).data
        return Response(body, status=status.HTTP_201_CREATED)


class ClubDetailView(ClubMixin, APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(
        operation_id="clubs_retrieve",
        description="Its name, whether its records are public, and your role in it.",
        tags=["league"],
        summary="A club",
        responses={200: s.ClubSerializer, **PROBLEMS},
        examples=[ex.response("A club", ex.CLUB)],
    )
    def get(self, request: Request, slug: str) -> Response:
        club = self.get_club()
        role = selectors.club_role(user=request.user, club=club)
        return Response(s.ClubSerializer(club, context={"roles": {club.pk: role}}).data)

    @extend_schema(
        operation_id="clubs_update",
        tags=["league"],
        summary="Rename, publish or move a club to another time zone",
        description="Organisers only. `is_public: true` opens the league records to everyone; "
        "`time_zone` (IANA name) changes its local times, evening and dates.",
        request=s.ClubUpdateSerializer,
        responses={200: s.ClubSerializer, **WRITE_PROBLEMS},
        examples=[ex.OpenApiExample("Publish", request_only=True, value={"is_public": True})],
    )
    def patch(self, request: Request, slug: str) -> Response:
        club = self.get_club()
        data = _validated(s.ClubUpdateSerializer, request.data)
        club = services.club_update(club=club, by=request.user, **data)
        role = selectors.club_role(user=request.user, club=club)
        return Response(s.ClubSerializer(club, context={"roles": {club.pk: role}}).data)


class MembershipListCreateView(ClubMixin, APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="clubs_members_list",
        tags=["league"],
        summary="The club's organisers and members",
        description="Organisers only.",
        responses={200: s.MembershipSerializer(many=True), **PROBLEMS},
    )
    def get(self, request: Request, slug: str) -> Response:
        club = self.get_club()
        if not selectors.club_can_manage(user=request.user, club=club):
            raise PermissionDenied()
        members = Membership.objects.filter(club=club).select_related("user")
        return Response(s.MembershipSerializer(members, many=True).data)

    @extend_schema(
        operation_id="clubs_members_set",
        tags=["league"],
        summary="Give a user a role in the club",
        description="Organisers only: `organiser` (manages players, seasons, games, corrects "
        "any event) or `member` (reads the league records). A club keeps at least one "
        "organiser: its last one is not made a member (409 `last_organiser`).",
        request=s.MembershipSetSerializer,
        responses={200: s.MembershipSerializer, **WRITE_PROBLEMS},
        examples=[
            ex.OpenApiExample(
                "A member", request_only=True, value={"username": "besse", "role": "member"}
            )
        ],
    )
    def post(self, request: Request, slug: str) -> Response:
        club = _managed_club(request, slug)
        data = _validated(s.MembershipSetSerializer, request.data)
        membership = services.membership_set(club=club, by=request.user, **data)
        return Response(s.MembershipSerializer(membership).data)


# -- players -------------------------------------------------------------------------------


class PlayerListCreateView(ClubMixin, generics.ListAPIView):  # type: ignore[type-arg]
    cache_privacy = "unless_public"
    permission_classes = [IsAuthenticatedOrReadOnly]
    serializer_class = s.PlayerSerializer
    pagination_class = LeaguePagination

    def get_queryset(self) -> QuerySet[Player]:
        if _schema_stub(self):
            return Player.objects.none()
        merged = self.request.query_params.get("include_merged") in ("1", "true")
        return selectors.club_players(club=self.get_club(), include_merged=merged)

    @extend_schema(
        operation_id="clubs_players_list",
        description="Registered players, by display name; `include_merged` also lists the "
        "duplicates merged into others.",
        tags=["league"],
        summary="The club's players",
        parameters=[
            OpenApiParameter(
                "include_merged", OpenApiTypes.BOOL, description="Also list merged duplicates."
            )
        ],
        responses={200: s.PlayerSerializer(many=True), **PROBLEMS},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        operation_id="clubs_players_create",
        tags=["league"],
        summary="Register a player",
        description="Organisers only. `member_number` is optional and unique in the club.",
        request=s.PlayerCreateSerializer,
        responses={201: s.PlayerSerializer, **WRITE_PROBLEMS},
        examples=[
            ex.OpenApiExample(
                "A member",
                request_only=True,
                value={"display_name": "Andi", "member_number": "MDC-004"},
            ),
            ex.response("Registered", ex.PLAYER),
        ],
    )
    def post(self, request: Request, slug: str) -> Response:
        club = _managed_club(request, slug)
        data = _validated(s.PlayerCreateSerializer, request.data)
        player = services.player_create(club=club, by=request.user, **data)
        return Response(s.PlayerSerializer(player).data, status=status.HTTP_201_CREATED)


class PlayerDetailView(ClubMixin, APIView):
    cache_privacy = "unless_public"
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(
        operation_id="clubs_players_retrieve",
        description="A registered player: display name, member number, and the player it was "
        "merged into, if any.",
        tags=["league"],
        summary="A player",
        responses={200: s.PlayerSerializer, **PROBLEMS},
        examples=[ex.response("A player", ex.PLAYER)],
    )
    def get(self, request: Request, slug: str, pk: int) -> Response:
        return Response(s.PlayerSerializer(self.get_player()).data)

    @extend_schema(
        operation_id="clubs_players_update",
        description="Organisers only. `member_number` stays unique in the club.",
        tags=["league"],
        summary="Rename a player or change their member number",
        request=s.PlayerUpdateSerializer,
        responses={200: s.PlayerSerializer, **WRITE_PROBLEMS},
        examples=[
            ex.OpenApiExample("Rename", request_only=True, value={"display_name": "Andi M."})
        ],
    )
    def patch(self, request: Request, slug: str, pk: int) -> Response:
        player = get_object_or_404(Player, club=_managed_club(request, slug), pk=pk)
        data = _validated(s.PlayerUpdateSerializer, request.data)
        player = services.player_update(player=player, by=request.user, **data)
        return Response(s.PlayerSerializer(player).data)


class PlayerMergeView(LeagueCaching):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="clubs_players_merge",
        tags=["league"],
        summary="Merge a duplicate into this player",
        description="Organisers only. The duplicate's seats and stats move to this player; the "
        "duplicate is kept, marked merged, and the merge is audited. Two players who sat at "
        "the same game cannot be merged (`merge_invalid`).",
        request=s.PlayerMergeSerializer,
        responses={200: s.PlayerMergedSerializer, **WRITE_PROBLEMS},
        examples=[
            ex.OpenApiExample(
                "Andi was registered twice",
                request_only=True,
                value={"duplicate": 23, "reason": "registered twice"},
            )
        ],
    )
    def post(self, request: Request, slug: str, pk: int) -> Response:
        club = _managed_club(request, slug)
        survivor = get_object_or_404(Player, club=club, pk=pk)
        data = _validated(s.PlayerMergeSerializer, request.data)
        duplicate = get_object_or_404(Player, club=club, pk=data["duplicate"])
        merge = services.player_merge(
            survivor=survivor, duplicate=duplicate, by=request.user, reason=data.get("reason", "")
        )
        survivor.refresh_from_db()
        duplicate.refresh_from_db()
        body = {
            "survivor": survivor,
            "merged": duplicate,
            "seats_moved": merge.seats_moved,
            "seat_rounds_moved": merge.seat_rounds_moved,
            "merged_by": request.user.get_username(),
            "reason": merge.reason,
            "created_at": merge.created_at,
        }
        return Response(s.PlayerMergedSerializer(body).data)


class PlayerRoundsView(ClubMixin, generics.ListAPIView):  # type: ignore[type-arg]
    """A player's rounds, newest first, with the named outcomes that fell on them."""

    cache_privacy = "unless_public"

    permission_classes = [AllowAny]
    serializer_class = s.PlayerRoundSerializer
    pagination_class = RoundsHistoryPagination
    filter_backends = [ClubDatesFilterBackend]
    filterset_class = PlayedBetweenFilter

    def get_queryset(self) -> QuerySet[SeatRound]:
        if _schema_stub(self):
            return SeatRound.objects.none()
        return selectors.player_rounds(player=self.get_player())

    @extend_schema(
        operation_id="clubs_players_rounds",
        tags=["league"],
        summary="A player's rounds, newest first",
        responses={200: s.PlayerRoundSerializer(many=True), **PROBLEMS},
        examples=[ex.response("A round: FIRST CAPPU with CEKI, elected CAMAT", ex.ROUND)],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class PlayerGamesView(ClubMixin, generics.ListAPIView):  # type: ignore[type-arg]
    """A player's games, newest first, each with their totals in it."""

    cache_privacy = "unless_public"

    permission_classes = [AllowAny]
    serializer_class = s.PlayerGameSerializer
    pagination_class = GamesHistoryPagination
    filter_backends = [ClubDatesFilterBackend]
    filterset_class = PlayedBetweenFilter

    def get_queryset(self) -> QuerySet[Any]:
        if _schema_stub(self):
            return SeatRound.objects.none()
        return selectors.player_games(player=self.get_player())

    @extend_schema(
        operation_id="clubs_players_games",
        tags=["league"],
        summary="A player's games, newest first",
        responses={200: s.PlayerGameSerializer(many=True), **PROBLEMS},
        examples=[ex.response("A game", ex.GAME_TOTALS)],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


# -- seasons -------------------------------------------------------------------------------


class SeasonListCreateView(ClubMixin, generics.ListAPIView):  # type: ignore[type-arg]
    cache_privacy = "unless_public"
    permission_classes = [IsAuthenticatedOrReadOnly]
    serializer_class = s.SeasonSerializer
    pagination_class = LeaguePagination

    def get_queryset(self) -> QuerySet[Season]:
        if _schema_stub(self):
            return Season.objects.none()
        return selectors.club_seasons(club=self.get_club())

    @extend_schema(
        operation_id="clubs_seasons_list",
        description="The club's seasons, archived ones included.",
        tags=["league"],
        summary="The club's seasons (archived ones too)",
        responses={200: s.SeasonSerializer(many=True), **PROBLEMS},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        operation_id="clubs_seasons_create",
        tags=["league"],
        summary="Open a season",
        description="Organisers only. Seasons are archived, never deleted.",
        request=s.SeasonCreateSerializer,
        responses={201: s.SeasonSerializer, **WRITE_PROBLEMS},
        examples=[
            ex.OpenApiExample(
                "A half-year",
                request_only=True,
                value={
                    "name": "2026 first half",
                    "starts_on": "2026-01-01",
                    "ends_on": "2026-06-30",
                },
            ),
            ex.response("Opened", ex.SEASON),
        ],
    )
    def post(self, request: Request, slug: str) -> Response:
        club = _managed_club(request, slug)
        data = _validated(s.SeasonCreateSerializer, request.data)
        season = services.season_create(club=club, by=request.user, **data)
        return Response(s.SeasonSerializer(season).data, status=status.HTTP_201_CREATED)


class SeasonDetailView(ClubMixin, APIView):
    cache_privacy = "unless_public"
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(
        operation_id="clubs_seasons_retrieve",
        description="A season: its name, dates, and whether it is archived.",
        tags=["league"],
        summary="A season",
        responses={200: s.SeasonSerializer, **PROBLEMS},
        examples=[ex.response("A season", ex.SEASON)],
    )
    def get(self, request: Request, slug: str, season: int) -> Response:
        return Response(s.SeasonSerializer(self.get_season()).data)

    @extend_schema(
        operation_id="clubs_seasons_update",
        description="Organisers only; `ends_on` may not come before `starts_on`.",
        tags=["league"],
        summary="Rename a season or change its dates",
        request=s.SeasonUpdateSerializer,
        responses={200: s.SeasonSerializer, **WRITE_PROBLEMS},
        examples=[ex.OpenApiExample("Extend", request_only=True, value={"ends_on": "2026-07-31"})],
    )
    def patch(self, request: Request, slug: str, season: int) -> Response:
        target = get_object_or_404(Season, club=_managed_club(request, slug), pk=season)
        data = _validated(s.SeasonUpdateSerializer, request.data, season=target)
        target = services.season_update(season=target, by=request.user, **data)
        return Response(s.SeasonSerializer(target).data)


class SeasonArchiveView(LeagueCaching):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="clubs_seasons_archive",
        tags=["league"],
        summary="Archive a season",
        description="Organisers only. Its games and standings stay; no new game may join it. "
        "There is no way to delete a season.",
        request=None,
        responses={200: s.SeasonSerializer, **WRITE_PROBLEMS},
        examples=[
            ex.response(
                "Archived",
                {**ex.SEASON, "is_archived": True, "archived_at": "2026-07-01T08:00:00Z"},
            )
        ],
    )
    def post(self, request: Request, slug: str, season: int) -> Response:
        target = get_object_or_404(Season, club=_managed_club(request, slug), pk=season)
        target = services.season_archive(season=target, by=request.user)
        return Response(s.SeasonSerializer(target).data)


# -- games ---------------------------------------------------------------------------------


class ClubGamesView(ClubMixin, generics.ListAPIView):  # type: ignore[type-arg]
    cache_privacy = "unless_public"
    permission_classes = [AllowAny]
    serializer_class = s.ClubGameSerializer
    pagination_class = ClubGamesPagination

    def get_queryset(self) -> QuerySet[Game]:
        if _schema_stub(self):
            return Game.objects.none()
        games = selectors.club_games(club=self.get_club())
        season = self.season_from_query()
        return games.filter(league__season=season) if season is not None else games

    @extend_schema(
        operation_id="clubs_games_list",
        tags=["league"],
        summary="The club's games, newest first",
        description="Create one with `POST /games/` (`club`, `season`, seats as names or "
        "player ids); organisers of the club may correct any of its events.",
        parameters=[SEASON_PARAM],
        responses={200: s.ClubGameSerializer(many=True), **PROBLEMS},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class SeatLinkView(LeagueCaching):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="clubs_games_seats_link",
        tags=["league"],
        summary="Link a seat to a registered player",
        description="Organisers only: e.g. a guest identified after the game. The seat's "
        "rounds count for the player from now on; the link is audited. `null` makes the "
        "seat a guest's again.",
        request=s.SeatLinkSerializer,
        responses={200: s.ClubGameSeatSerializer, **WRITE_PROBLEMS},
        examples=[ex.OpenApiExample("Cakra was a guest", request_only=True, value={"player": 19})],
    )
    def post(self, request: Request, slug: str, game_id: Any, number: int) -> Response:
        club = _managed_club(request, slug)
        game = get_object_or_404(Game, league__club=club, pk=game_id)
        data = _validated(s.SeatLinkSerializer, request.data)
        player = None
        if data["player"] is not None:
            player = get_object_or_404(Player, club=club, pk=data["player"])
        if not 0 <= number <= 4:
            raise NotFound()
        seat = services.seat_link(game=game, seat_number=number, player=player, by=request.user)
        occupant = Occupant(seat.number, seat.name, player.pk if player is not None else None)
        return Response(s.ClubGameSeatSerializer(occupant).data)


# -- standings, head-to-head, ratings ------------------------------------------------------

STANDINGS_DESCRIPTION = (
    "Per registered player: rounds played and won, FIRST CAPPU, CEKI, POLLO, MANGUNO, "
    "MATTIKKENG, CUCUQ, PASS and PASSEBUNGE counts, stones received and given, CAMAT "
    "elections and stones received per round. Read from per-player totals kept with the "
    "rounds: the cost does not grow with the number of rounds (with `played_after`, "
    "`played_before` or `verified`, one aggregate over the rounds asked for). Sort with "
    "`ordering` (any column, `-` for descending; ties by player id), filter rounds by date "
    "(the club's local dates, in its `time_zone`) "
    "or to the rounds verified at the table (`verified=true`: confirmed by a second seat's "
    "phone or resolved by the organiser; `verified=false`: the others), page with "
    "`page`/`page_size`. `?format=csv` (or `Accept: text/csv`) gives every row as plain RFC "
    "4180 CSV (UTF-8, `,`); `?format=spreadsheet` as Excel and LibreOffice open it: UTF-8 "
    "with a byte-order mark, `;` and a decimal comma for French, Polish and Indonesian "
    "(`Accept-Language` or the language chosen), `,` otherwise (`separator=semicolon` or "
    "`comma` to choose). In both, a text cell that a spreadsheet could run as a formula is "
    "defused with a leading `'`, at its start and after any `,`, `;`, tab or line break."
)


SEPARATOR_PARAM = OpenApiParameter(
    "separator",
    OpenApiTypes.STR,
    enum=["semicolon", "comma"],
    required=False,
    description="With `format=spreadsheet`: the list separator (`;` also writes decimal "
    "commas); by default the one of the response's language.",
)


STANDINGS_CSV = (
    "Every row as CSV: plain (`format=csv`) or for spreadsheets (`format=spreadsheet`: "
    "byte-order mark, the language's separator): a header line, then a line for each player, "
    "with these columns in this order: "
    + ", ".join(f"`{column}`" for column in selectors.STANDING_COLUMNS)
    + "."
)
"""The standings' CSV body (a string: no generator can type it as the JSON page)."""


class StandingsView(ClubMixin, generics.ListAPIView):  # type: ignore[type-arg]
    """Standings of a club: lifetime, or one season's (``season`` in the URL)."""

    cache_privacy = "unless_public"

    permission_classes = [AllowAny]
    serializer_class = s.StandingSerializer
    pagination_class = LeaguePagination
    renderer_classes = [JSONRenderer, CSVRenderer, SpreadsheetCSVRenderer]
    filter_backends = [RowsFilterBackend, StableOrderingFilter]
    filterset_class = StandingsFilter
    ordering_fields = STANDINGS_ORDERING_FIELDS
    ordering = STANDINGS_DEFAULT_ORDERING

    def get_queryset(self) -> QuerySet[Any]:
        """The stored totals (one row per player); with a date range, the aggregate of the
        rounds in it (the totals hold no dates), which the filter then narrows."""
        if _schema_stub(self):
            return SeatRound.objects.none()
        club = self.get_club()
        season = self.get_season() if "season" in self.kwargs else None
        if any(self.request.query_params.get(name) for name in StandingsFilter.base_filters):
            return selectors.standings(selectors.league_rows(club=club, season=season))
        return selectors.standings_totals(club=club, season=season)

    def paginate_queryset(self, queryset: Any) -> Any:
        if getattr(self.request.accepted_renderer, "format", None) in EXPORT_FORMATS:
            return None  # an export is the whole table
        return super().paginate_queryset(queryset)

    def get_renderer_context(self) -> dict[str, Any]:
        return {**super().get_renderer_context(), "csv_columns": selectors.STANDING_COLUMNS}

    def finalize_response(
        self, request: Request, response: Response, *args: Any, **kwargs: Any
    ) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)
        renderer = getattr(request, "accepted_renderer", None)
        if getattr(renderer, "format", None) in EXPORT_FORMATS and response.status_code == 200:
            name = "-".join(str(part) for part in ("standings", *self.kwargs.values()))
            response["Content-Disposition"] = f'attachment; filename="{name}.csv"'
        return response

    @extend_schema(
        operation_id="clubs_standings",
        tags=["league"],
        summary="Lifetime standings of the club",
        description=STANDINGS_DESCRIPTION,
        parameters=[SEPARATOR_PARAM],
        responses={
            (200, "application/json"): s.StandingSerializer(many=True),
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description=STANDINGS_CSV),
            **PROBLEMS,
        },
        examples=[
            ex.response("A player's line", ex.STANDING),
            ex.response("As CSV", ex.STANDINGS_CSV, media_type="text/csv"),
        ],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class SeasonStandingsView(StandingsView):
    @extend_schema(
        operation_id="clubs_seasons_standings",
        tags=["league"],
        summary="Standings of a season",
        description=STANDINGS_DESCRIPTION,
        parameters=[SEPARATOR_PARAM],
        responses={
            (200, "application/json"): s.StandingSerializer(many=True),
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description=STANDINGS_CSV),
            **PROBLEMS,
        },
        examples=[
            ex.response("A player's line", ex.STANDING),
            ex.response("As CSV", ex.STANDINGS_CSV, media_type="text/csv"),
        ],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class HeadToHeadView(ClubMixin, APIView):
    cache_privacy = "unless_public"
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="clubs_head_to_head",
        tags=["league"],
        summary="Head-to-head between two players",
        description="Over the rounds both played at the same table, across the club's "
        "seasons: what each got (wins, named outcomes, passes, stones, CAMATs) and how many "
        "CAMAT cycles each finished ahead of the other; totals, then season by season.",
        parameters=[
            OpenApiParameter("a", PLAYER_ID, required=True, description="A player id."),
            OpenApiParameter("b", PLAYER_ID, required=True, description="Another one."),
            OpenApiParameter(
                "played_after",
                OpenApiTypes.DATE,
                required=False,
                description="Only rounds settled on or after this date: the club's local "
                "date, in its `time_zone`.",
            ),
            OpenApiParameter(
                "played_before",
                OpenApiTypes.DATE,
                required=False,
                description="Only rounds settled on or before this date: the club's local "
                "date, in its `time_zone`.",
            ),
        ],
        responses={200: s.HeadToHeadSerializer, **PROBLEMS},
        examples=[ex.response("Andi and Besse", ex.HEAD_TO_HEAD)],
    )
    def get(self, request: Request, slug: str) -> Response:
        club = self.get_club()
        ids = _validated(s.HeadToHeadQuerySerializer, request.query_params)
        a = self.get_player(ids["a"])
        b = self.get_player(ids["b"])
        rows = PlayedBetweenFilter(
            request.query_params,
            queryset=SeatRound.objects.filter(club=club),
            zone=zones.zone(club.time_zone),
        )
        if not rows.is_valid():
            raise ValidationError(rows.errors)
        result = selectors.head_to_head(rows=rows.qs, a=a, b=b)
        empty = dict.fromkeys(selectors.HEAD_TO_HEAD_COLUMNS, 0)
        body = {
            "games_together": result.games_together,
            "rounds_together": result.rounds_together,
            "a": {"player": a, "totals": result.totals[a.pk]},
            "b": {"player": b, "totals": result.totals[b.pk]},
            "seasons": [
                {
                    **{k: v for k, v in season.items() if k != "players"},
                    "a": season["players"].get(a.pk, empty),
                    "b": season["players"].get(b.pk, empty),
                }
                for season in result.seasons
            ],
        }
        return Response(s.HeadToHeadSerializer(body).data)


class RatingsView(ClubMixin, APIView):
    cache_privacy = "unless_public"
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="clubs_ratings",
        tags=["league"],
        summary="Ratings (OpenSkill, Bradley–Terry)",
        description="Each completed CAMAT cycle (from every stone on the table to an "
        "election) is rated as a five-seat free-for-all: the CAMAT first, the others by the "
        "stones they held when it ended, fewer first, equal stones tied. Stored, and updated "
        "in the same transaction as any change to a cycle, so corrections flow through. "
        "Guest seats play with a fresh default rating and are not listed. Sorted by "
        "ordinal (μ − 3σ); equal ordinals share a rank (1, 2, 2, 4). The model is "
        "OpenSkill's Bradley–Terry with full pairing, which treats equal stones as a draw "
        "(Plackett–Luce mishandles ties).",
        parameters=[SEASON_PARAM],
        responses={200: s.RatingsSerializer, **PROBLEMS},
        examples=[ex.response("Ratings", ex.RATINGS)],
    )
    def get(self, request: Request, slug: str) -> Response:
        club = self.get_club()
        season = self.season_from_query()
        ratings = selectors.club_ratings(club=club, season=season)
        body = {
            "model": ratings_core.MODEL_NAME,
            "season": season.pk if season else None,
            "cycles": ratings.cycles,
            "results": [asdict(rating) for rating in ratings.ratings],
        }
        return Response(s.RatingsSerializer(body).data)
