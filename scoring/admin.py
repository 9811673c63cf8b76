"""Django admin for league records: clubs (with their organisers), players, seasons, merges.

Nothing here deletes: seasons are archived, duplicate players merged (through
the API, which audits it), and the foreign keys PROTECT the history anyway. A user's
account may be deleted, but not that of a club's last organiser (``LeagueUserAdmin``).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext

from referee.admin import GameAdmin, ReadOnlyInline, SeatInline
from referee.models import Game, Seat
from scoring import selectors, services
from scoring.exceptions import LastOrganiser
from scoring.models import Club, Membership, Player, PlayerMerge, Season, SeatLink, SeatPlayer


class NoDeleteAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class MembershipFormSet(forms.BaseInlineFormSet):  # type: ignore[type-arg]
    """A club's roles as the API keeps them: the last organiser is not demoted or removed
    (``services.check_organiser_left``)."""

    def clean(self) -> None:
        super().clean()
        if any(self.errors) or self.instance.pk is None:
            return
        organisers = {
            form.cleaned_data["user"].pk
            for form in self.forms
            if form.cleaned_data
            and not form.cleaned_data.get("DELETE")
            and form.cleaned_data.get("user") is not None
            and form.cleaned_data.get("role") == Membership.Role.ORGANISER
        }
        try:
            services.check_organiser_left(club=self.instance, organisers=organisers)
        except LastOrganiser as error:
            raise forms.ValidationError(error.detail, code=error.code) from error


class MembershipInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Membership
    formset = MembershipFormSet
    extra = 0
    autocomplete_fields = ["user"]
    fields = ["user", "role", "created_at"]
    readonly_fields = ["created_at"]


@admin.register(Club)
class ClubAdmin(NoDeleteAdmin):
    list_display = ["name", "slug", "is_public", "time_zone", "created_at"]
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

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # A merged player is kept as it was merged: the API refuses its change too.
        if obj is not None and obj.is_merged:
            return False
        return super().has_change_permission(request, obj)


@admin.register(Season)
class SeasonAdmin(NoDeleteAdmin):
    list_display = ["name", "club", "starts_on", "ends_on", "is_archived"]
    list_filter = ["club", "is_archived"]
    search_fields = ["name"]
    readonly_fields = ["archived_at", "created_at"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        if obj is None:
            return list(self.readonly_fields)
        # Archived stays archived, as in the API (no way back: its games are closed to it).
        return [*self.readonly_fields, "club", *(["is_archived"] if obj.is_archived else [])]

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
    """The game's league (``GameLeague``): not the game's fields, the league's."""

    club = forms.ModelChoiceField(Club.objects.all(), required=False)
    season = forms.ModelChoiceField(Season.objects.all(), required=False)

    class Meta:
        model = Game
        fields: list[str] = []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.league = (
            selectors.game_league(game=self.instance) if self.instance.pk is not None else None
        )
        if self.league is not None:
            self.fields["club"].initial = self.league.club_id
            self.fields["season"].initial = self.league.season_id

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        club, season = data.get("club"), data.get("season")
        league = self.league
        if season is not None and club is not None and season.club_id != club.pk:
            raise forms.ValidationError(gettext("This season belongs to another club."))
        if (
            season is not None
            and season.is_archived
            and (league is None or season.pk != league.season_id)
        ):
            raise forms.ValidationError(gettext("This season is archived."))
        was = league.club_id if league is not None else None
        if (club.pk if club else None) != was and SeatPlayer.objects.filter(
            seat__game=self.instance
        ).exists():
            raise forms.ValidationError(
                gettext("Registered players are seated: the club cannot change.")
            )
        return data


class LeagueSeatInline(ReadOnlyInline):
    """The referee's seats, with each seat's registered player (``SeatPlayer``), read-only:
    re-seat or link a seat through the API."""

    model = Seat
    fields = ("number", "name", "player")
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> Any:
        return super().get_queryset(request).select_related("registered__player")

    @admin.display(description="player")
    def player(self, seat: Seat) -> Any:
        registered = getattr(seat, "registered", None)
        return registered.player if registered is not None else None


class LeagueGameAdmin(GameAdmin):
    """The referee's game admin, where an organiser also puts a game in a club and season
    (its seat-rounds follow through ``scoring.services.game_league_assign``)."""

    form = GameLeagueForm
    list_display = ["id", "club", "season", *GameAdmin.list_display[1:]]
    list_filter = [*GameAdmin.list_filter, "league__club", "league__season"]
    list_select_related = ["league__club", "league__season"]
    fields = ["id", "club", "season", *GameAdmin.fields[1:]]
    inlines = [LeagueSeatInline if i is SeatInline else i for i in GameAdmin.inlines]

    @admin.display(description="club", ordering="league__club__name")
    def club(self, game: Game) -> Any:
        league = selectors.game_league(game=game)
        return league.club if league is not None else None

    @admin.display(description="season")
    def season(self, game: Game) -> Any:
        league = selectors.game_league(game=game)
        return league.season if league is not None else None

    def save_model(self, request: HttpRequest, obj: Game, form: Any, change: bool) -> None:
        services.game_league_assign(
            game=obj, club=form.cleaned_data.get("club"), season=form.cleaned_data.get("season")
        )


admin.site.unregister(Game)
admin.site.register(Game, LeagueGameAdmin)


class LeagueUserAdmin(UserAdmin):
    """Django's users, where the account of a club's last organiser is not deleted: its
    delete page (one user or the bulk action) lists the clubs it would leave without an
    organiser as what protects it, and offers no confirmation (``last_organiser``,
    ``services.check_user_deletable``, which every deletion asks)."""

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> Any:
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        for user in objs:
            for club in services.clubs_organised_only_by(user=user):
                protected = [
                    *protected,
                    gettext("%(club)s: %(user)s is its last organiser (name another first)")
                    % {"club": club.name, "user": user.get_username()},
                ]
        return deleted, counts, perms_needed, protected


User = get_user_model()
if admin.site.is_registered(User):
    admin.site.unregister(User)
admin.site.register(User, LeagueUserAdmin)
