"""Django admin for stored games: seats and events are read-only, as the referee keeps them.

A game is created, played and corrected through the API (the rules core
checks every event, corrections are audited); here an organiser can only
see it. The league (``scoring.admin``) registers its own ``GameAdmin`` over
this one, to put a game in a club and season.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from referee.models import Correction, Event, Game, Seat


class ReadOnlyInline(admin.TabularInline):  # type: ignore[type-arg]
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class SeatInline(ReadOnlyInline):
    model = Seat
    fields = ("number", "name")
    readonly_fields = fields


class EventInline(ReadOnlyInline):
    model = Event
    fields = (
        "position",
        "round_number",
        "kind",
        "payload",
        "entered_by",
        "created_at",
        "revoked_by",
    )
    readonly_fields = fields
    ordering = ["position", "id"]


class CorrectionInline(ReadOnlyInline):
    model = Correction
    fields = ("kind", "entered_by", "reason", "replacement", "created_at")
    readonly_fields = fields


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["id", "status", "version", "created_at", "closed_at"]
    list_filter = ["status"]
    search_fields = ["id", "join_code", "seats__name"]
    fields = [
        "id",
        "status",
        "join_code",
        "rules",
        "version",
        "created_by",
        "created_at",
        "closed_at",
    ]
    readonly_fields = [
        "id",
        "status",
        "join_code",
        "rules",
        "version",
        "created_by",
        "created_at",
        "closed_at",
    ]
    inlines = [SeatInline, CorrectionInline, EventInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # games are created through the API, where the rules are checked

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
