"""Django admin for league records: clubs (with their organisers), players, seasons, merges.

Nothing here deletes: seasons are archived, duplicate players merged (through
the API, which audits it), and the foreign keys PROTECT the history anyway.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest
from django.utils import timezone

from referee.admin import GameAdmin
from referee.models import Game
from scoring import services
from scoring.models import Club, Membership, Player, PlayerMerge, Season, SeatLink


class NoDeleteAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class MembershipInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]
    fields = ["user", "role", "created_at"]
    readonly_fields = ["created_at"]


@admin.register(Club)
class ClubAdmin(NoDeleteAdmin):
    list_display = ["name", "slug", "is_public", "created_at"]
    list_filter = ["is_public"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [MembershipInline]


@admin.register(Player)
class PlayerAdmin(NoDeleteAdmin):
    list_display = ["display_name", "member_number", "club", "merged_into", "created_at"]
    list_filter = ["club"]
    search_fields = ["display_name", "member_number"]
    readonly_fields = ["merged_into", "created_at"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        # A player never moves to another club: their seats and stats are the club's.
        return [*self.readonly_fields, "club"] if obj is not None else list(self.readonly_fields)


@admin.register(Season)
class SeasonAdmin(NoDeleteAdmin):
    list_display = ["name", "club", "starts_on", "ends_on", "is_archived"]
    list_filter = ["club", "is_archived"]
    search_fields = ["name"]
    readonly_fields = ["archived_at", "created_at"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [*self.readonly_fields, "club"] if obj is not None else list(self.readonly_fields)

    def save_model(self, request: HttpRequest, obj: Season, form: Any, change: bool) -> None:
        if obj.is_archived and obj.archived_at is None:
            obj.archived_at = timezone.now()
        super().save_model(request, obj, form, change)


class ReadOnlyAdmin(NoDeleteAdmin):
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(PlayerMerge)
class PlayerMergeAdmin(ReadOnlyAdmin):
    list_display = ["merged_name", "survivor", "club", "merged_by", "created_at"]
    list_filter = ["club"]


@admin.register(SeatLink)
class SeatLinkAdmin(ReadOnlyAdmin):
    list_display = ["seat", "previous", "player", "linked_by", "created_at"]


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


class LeagueGameAdmin(GameAdmin):
    """The referee's game admin, where an organiser also puts a game in a club and season
    (its seat-rounds follow through ``scoring.services.game_league_assign``)."""

    form = GameLeagueForm
    readonly_fields = [f for f in GameAdmin.readonly_fields if f not in ("club", "season")]

    def save_model(self, request: HttpRequest, obj: Game, form: Any, change: bool) -> None:
        services.game_league_assign(
            game=obj, club=form.cleaned_data.get("club"), season=form.cleaned_data.get("season")
        )


admin.site.unregister(Game)
admin.site.register(Game, LeagueGameAdmin)
