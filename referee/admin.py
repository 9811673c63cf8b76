"""Django admin for stored games: seats and events are read-only, as the referee keeps them.

A game is created, played and corrected through the API (the rules core
checks every event, corrections are audited); here an organiser can only
see it and put it in a club and season (the league's stats follow through
``scoring.services.game_league_assign``).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest

from referee.models import Correction, Event, Game, Seat
from scoring import services as league


class ReadOnlyInline(admin.TabularInline):  # type: ignore[type-arg]
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class SeatInline(ReadOnlyInline):
    model = Seat
    fields = ("number", "name", "player")
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


class GameLeagueForm(forms.ModelForm):  # type: ignore[type-arg]
    class Meta:
        model = Game
        fields = ["club", "season"]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        club, season = data.get("club"), data.get("season")
        if season is not None and club is not None and season.club_id != club.pk:
            raise forms.ValidationError("This season belongs to another club.")
        if season is not None and season.is_archived and season.pk != self.instance.season_id:
            raise forms.ValidationError("This season is archived.")
        if (club.pk if club else None) != self.instance.club_id and self.instance.seats.filter(
            player__isnull=False
        ).exists():
            raise forms.ValidationError("Registered players are seated: the club cannot change.")
        return data


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    form = GameLeagueForm
    list_display = ["id", "club", "season", "status", "version", "created_at", "closed_at"]
    list_filter = ["status", "club", "season"]
    search_fields = ["id", "join_code", "seats__name"]
    list_select_related = ["club", "season"]
    fields = [
        "id",
        "club",
        "season",
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

    def save_model(self, request: HttpRequest, obj: Game, form: Any, change: bool) -> None:
        league.game_league_assign(
            game=obj, club=form.cleaned_data.get("club"), season=form.cleaned_data.get("season")
        )
