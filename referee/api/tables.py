"""The table's phones over HTTP: a join code exchanged for a table token, tokens listed and
revoked, seats released, a phone leaving, a join lockout lifted (``referee.services.tables``).
"""

from __future__ import annotations

from typing import Any

from django.http import Http404
from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from referee import services
from referee.api import serializers as s
from referee.api.auth import IsOrganiser, actor_of
from referee.api.schema import (
    problems,
)
from referee.api.writes import (
    PROBLEMS,
    GameMixin,
    PerViewer,
    validated,
)
from referee.inputs import client_ident, join_client
from referee.lockouts import give_device, join_lockout_lift
from referee.models import TableToken


class JoinView(PerViewer):
    """Exchange a join code for a table token (its key is in the answer: never cached)."""

    authentication_classes: list[Any] = []
    permission_classes: list[Any] = []

    @extend_schema(
        operation_id="games_join",
        tags=["games"],
        summary="Join a game with its join code",
        description="A phone gets a table token scoped to one game (and optionally one seat, "
        "which no other phone may then claim: 409 `seat_taken` until the organiser or that "
        "seat's own phone releases it or its phone leaves). Only wrong codes count, per "
        "guesser: after `JOIN_LOCKOUT_FAILURES` of them from one phone (its address and its "
        "`domeng_device` cookie, set by this answer) it is locked out for a while (429 "
        "`join_locked_out`, with `Retry-After`: the seconds left), not the other phones "
        "behind its address. While an address is being guessed from, a cookie issued after "
        "the guessing began, or none, gets `JOIN_LOCKOUT_NEW_DEVICE_FAILURES`; a client "
        "refused without a cookie retries once with the one this answer sets. The whole "
        "address is locked at `JOIN_LOCKOUT_ADDRESS_FAILURES`. An organiser can lift it.",
        request=s.JoinSerializer,
        responses={
            201: s.JoinedSerializer,
            # 404: no game has this join code; 412: a precondition no entity tag meets
            **problems(400, 404, 409, 412, 429),
        },
    )
    def post(self, request: Request) -> Response:
        data = validated(s.JoinSerializer, request)
        key, token = services.table_join(
            join_code=data["join_code"],
            seat=data.get("seat"),
            label=data.get("label", ""),
            client=join_client(request),
        )
        return Response(
            {"token": key, "game": str(token.game_id), "seat": token.seat},
            status=status.HTTP_201_CREATED,
        )

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any) -> Any:
        # Refused or not, the phone gets a device cookie: its next typos count for it alone.
        return give_device(request, super().finalize_response(request, response, *args, **kwargs))  # type: ignore[arg-type]


class JoinLockoutLiftView(PerViewer):
    """Lift the join lockouts of an address (an organiser's; the answer is the caller's)."""

    permission_classes = [IsOrganiser]

    @extend_schema(
        operation_id="join_lockouts_lift",
        tags=["games"],
        summary="Lift a join lockout",
        description="Forgets every wrong join code counted against an address (all its "
        "phones): by default the address you call from, e.g. the club's Wi-Fi; staff may "
        "name any address.",
        request=s.LockoutLiftSerializer,
        responses={200: s.LockoutLiftedSerializer, **PROBLEMS},
    )
    def post(self, request: Request) -> Response:
        data = validated(s.LockoutLiftSerializer, request)
        own = client_ident(request)
        address = data.get("address") or own
        if address != own and not request.user.is_staff:
            raise PermissionDenied(gettext("Only staff may lift another address's lockout."))
        join_lockout_lift(address)
        return Response({"address": address, "lifted": True})


class GameTokensView(GameMixin, APIView):
    organiser_only_methods = frozenset({"GET"})

    @extend_schema(
        operation_id="games_tokens_list",
        tags=["games"],
        summary="The table's tokens",
        description="Every table token of the game, live and revoked, oldest first: the seat "
        "each claimed, its label, when it joined and when it was revoked. The organiser's "
        "only (403 `organiser_only` for a phone); keys are never shown.",
        responses={200: s.TableTokenSerializer(many=True), **PROBLEMS},
    )
    def get(self, request: Request, game_id: Any) -> Response:
        game = self.get_game(request, game_id)
        tokens = services.table_tokens(game=game, actor=actor_of(request))
        return Response(s.TableTokenSerializer(tokens, many=True).data)


class TokenRevokeView(GameMixin, APIView):
    organiser_only_methods = frozenset({"POST"})

    @extend_schema(
        operation_id="games_tokens_revoke",
        tags=["games"],
        summary="Revoke a table token",
        description="The phone loses the game at once and its seat is free for another "
        "phone. The organiser's only.",
        request=None,
        responses={200: s.TableTokenSerializer, **PROBLEMS},
    )
    def post(self, request: Request, game_id: Any, token_id: int) -> Response:
        game = self.get_game(request, game_id)
        token = services.token_revoke(game_id=game.pk, token_id=token_id, actor=actor_of(request))
        return Response(s.TableTokenSerializer(token).data)


class SeatReleaseView(GameMixin, APIView):
    @extend_schema(
        operation_id="games_seats_release",
        tags=["games"],
        summary="Release a seat",
        description="Revokes the token of the phone holding `seat` (0–4) so that another "
        "phone may claim it. A claimed seat is the claimer's (R31): the organiser or the "
        "seat's own phone (its own token) releases it; any other table token, the table's "
        "scorekeeper included, gets 403 `seat_not_allowed` and the seat's phone keeps its "
        "token. 404 `token_not_found` when no phone holds the seat.",
        request=None,
        responses={200: s.TableTokenSerializer, **PROBLEMS},
    )
    def post(self, request: Request, game_id: Any, seat: int) -> Response:
        game = self.get_game(request, game_id)
        if seat > 4:
            raise Http404
        token = services.seat_release(game_id=game.pk, seat=seat, actor=actor_of(request))
        return Response(s.TableTokenSerializer(token).data)


class LeaveView(GameMixin, APIView):
    @extend_schema(
        operation_id="games_leave",
        tags=["games"],
        summary="Leave the table",
        description="The calling phone's table token is revoked and its seat, if any, is "
        "free for another phone. Table tokens only.",
        request=None,
        responses={204: OpenApiResponse(description="Left."), **PROBLEMS},
    )
    def post(self, request: Request, game_id: Any) -> Response:
        game = self.get_game(request, game_id)
        token = request.auth
        if not isinstance(token, TableToken) or token.game_id != game.pk:
            raise PermissionDenied(gettext("Only a table token leaves a table."))
        services.table_leave(token=token)
        return Response(status=status.HTTP_204_NO_CONTENT)
