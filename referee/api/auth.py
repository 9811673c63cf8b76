"""Who is calling: organisers (Django users) and phones (table tokens scoped to one game).

A phone sends ``Authorization: Table <key>``; the key was handed out once by
``POST /api/v1/join/`` and only its SHA-256 is stored. Organisers use the
session (browser) or ``Authorization: Token <key>`` (scripts, DRF authtoken).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.utils.translation import gettext
from drf_spectacular.authentication import SessionScheme
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions, permissions
from rest_framework.request import Request

from referee.league import league
from referee.models import Game, TableToken, hash_token
from referee.services import Actor
from referee.store import live_token

TABLE_KEYWORD = "Table"


class SessionAuthentication(authentication.SessionAuthentication):
    """DRF's, with its CSRF refusal (403 ``permission_denied``) in the client's language
    and saying what to send; DRF's own is "CSRF Failed: …" in English, whatever the
    client asked for."""

    def enforce_csrf(self, request: Request) -> None:
        try:
            super().enforce_csrf(request)
        except exceptions.PermissionDenied:
            raise exceptions.PermissionDenied(
                gettext(
                    "CSRF check failed: send the csrftoken cookie's value in the "
                    "X-CSRFToken header, or sign in with a token (Authorization: Token …)."
                )
            ) from None


class TableTokenAuthentication(authentication.BaseAuthentication):
    """``Authorization: Table <key>`` → (anonymous user, the game's ``TableToken``)."""

    def authenticate(self, request: Request) -> tuple[AnonymousUser, TableToken] | None:
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].decode(errors="replace") != TABLE_KEYWORD:
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed(gettext("Invalid table token header."))
        key = header[1].decode(errors="replace")
        token = live_token(hash_token(key))
        if token is None:
            raise exceptions.AuthenticationFailed(gettext("Invalid or revoked table token."))
        return AnonymousUser(), token

    def authenticate_header(self, request: Request) -> str:
        return TABLE_KEYWORD


class SessionAuthenticationScheme(SessionScheme):  # type: ignore[no-untyped-call]
    """The schema's ``cookieAuth``, as drf-spectacular gives DRF's own session class."""

    target_class = "referee.api.auth.SessionAuthentication"


class TableTokenScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    target_class = TableTokenAuthentication
    name = "tableToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Table <key>`: the key `POST /api/v1/join/` returned for one game.",
        }


def actor_of(request: Request) -> Actor:
    """The ``Actor`` behind a request (its table token, or its user)."""
    token = request.auth if isinstance(request.auth, TableToken) else None
    return Actor(user=request.user, token=token)


def can_access(request: Request, game: Game) -> bool:
    """A phone may use only its own game; an organiser, the games they created and the games
    of the clubs they organise (a director may correct any event, logged); staff: all."""
    if isinstance(request.auth, TableToken):
        return request.auth.game_id == game.pk
    user = request.user
    return bool(
        user
        and user.is_authenticated
        and (
            user.is_staff
            or game.created_by_id == user.pk
            or league().organises(user=user, game=game)
        )
    )


class IsOrganiser(permissions.BasePermission):
    """Only an authenticated Django user (an organiser) — not a phone."""

    message = "Only an organiser (a signed-in user) may do this."

    def has_permission(self, request: Request, view: Any) -> bool:
        return bool(request.user and request.user.is_authenticated)


class CanUseGame(permissions.BasePermission):
    """The game's own table tokens and its organiser; 401 without credentials."""

    message = "This token or user has no access to this game."

    def has_permission(self, request: Request, view: Any) -> bool:
        return isinstance(request.auth, TableToken) or bool(
            request.user and request.user.is_authenticated
        )

    def has_object_permission(self, request: Request, view: Any, obj: Any) -> bool:
        return can_access(request, obj)
