"""The organiser's pages of a club (namespace ``league``): the first run of a fresh
installation, the club itself, its players and member numbers, its seasons and its
organisers. No admin is needed for a club night.

Every write goes through the league's services (``scoring.services``), which the API
uses too; a refusal (``member_number_taken``, ``season_name_taken``, ``last_organiser``…)
is drawn on the form, in the page's language, with the service's status. Who may open a
club's page: its organisers and staff; a member or a reader of a published club gets the
403 page, anyone else a 404 (as the API hides a private club). Not signed in: the
sign-in page. Times and dates are the club's (``Club.time_zone``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.tokens import default_token_generator
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from referee.exceptions import ServiceError
from referee.languages import speak_by_default
from referee.setup import setup_link_claim, setup_link_valid
from referee.web.organising import forbidden
from referee.web.taps import database_unavailable_as_503
from scoring import services, zones
from scoring.models import Club, Membership, Player, Season, validate_visible_name
from scoring.selectors import club_can_manage, club_can_read

# Where a service's refusal is drawn: on the field it is about, else above the form.
REFUSAL_FIELDS = {
    "member_number_taken": "member_number",
    "season_name_taken": "name",
    "club_slug_taken": "slug",
    "invalid": "ends_on",  # SeasonEndsBeforeStart, the only ``invalid`` these forms meet
}


def _time_zone_choices() -> list[tuple[str, str]]:
    return [(name, name) for name in zones.time_zone_names()]


# -- forms ------------------------------------------------------------------------------


class ClubFields(forms.Form):
    """A club's name, slug (its URLs), IANA time zone, language (``referee.languages``) and
    whether its records are public."""

    name = forms.CharField(label=_("Club name"), max_length=120, validators=[validate_visible_name])
    slug = forms.SlugField(
        label=_("Short name in links"),
        max_length=60,
        help_text=_("Letters, digits and hyphens: the room view and standings links use it."),
    )
    time_zone = forms.TypedChoiceField(
        label=_("Time zone"),
        choices=_time_zone_choices,
        help_text=_("The club's pages show times and dates of this zone."),
    )
    language = forms.ChoiceField(
        label=_("Language of the club's pages"),
        choices=settings.LANGUAGES,
        help_text=_(
            "Its room view, standings and games' phones speak it to a browser that asks for "
            "none of the referee's languages."
        ),
    )
    is_public = forms.BooleanField(
        label=_("Anyone may read the standings"), required=False, initial=False
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["time_zone"].initial = zones.default_time_zone()
        self.fields["language"].initial = translation.get_language()


class FirstRunForm(UserCreationForm):  # type: ignore[type-arg]
    """The first organiser's account (username, password twice, checked by the project's
    password validators) and the club, with the pages' language (the club's too)."""

    club_name = ClubFields.base_fields["name"]
    slug = ClubFields.base_fields["slug"]
    time_zone = ClubFields.base_fields["time_zone"]
    language = forms.ChoiceField(label=_("Language of the pages"), choices=settings.LANGUAGES)

    class Meta(UserCreationForm.Meta):  # type: ignore[name-defined]
        fields = ("username",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["time_zone"].initial = zones.default_time_zone()
        self.fields["language"].initial = translation.get_language()


class PlayerForm(forms.Form):
    """A player of the club: the name the table sees, and an optional member number."""

    display_name = forms.CharField(
        label=_("Player's name"), max_length=80, validators=[validate_visible_name]
    )
    member_number = forms.CharField(
        label=_("Member number"),
        max_length=32,
        required=False,
        help_text=_("Optional; unique in the club. Kept as text (0042 stays 0042)."),
    )


class SeasonForm(forms.Form):
    """A season's name and its optional first and last days (the club's dates)."""

    name = forms.CharField(
        label=_("Season name"), max_length=80, validators=[validate_visible_name]
    )
    starts_on = forms.DateField(
        label=_("First day"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    ends_on = forms.DateField(
        label=_("Last day"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )


class OrganiserAddForm(forms.Form):
    """Another organiser: an existing account's username, or a new account (with an
    optional e-mail address) whose password its owner sets from a one-time link."""

    username = forms.CharField(
        label=_("Username"),
        max_length=150,
        validators=[get_user_model().username_validator],  # type: ignore[attr-defined]
    )
    email = forms.EmailField(
        label=_("E-mail address"),
        required=False,
        help_text=_("Optional: the link to set a password is also sent there."),
    )


# -- access -------------------------------------------------------------------------------


def club_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Resolve ``slug`` to a club its user manages and draw the page in the club's zone.
    Not signed in: the sign-in page; a reader who does not manage it: 403; else 404."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, slug: str, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        club = Club.objects.filter(slug=slug).first()
        if club is None:
            raise Http404
        if not club_can_manage(user=request.user, club=club):
            if club_can_read(user=request.user, club=club):
                return forbidden(request)
            raise Http404
        speak_by_default(request, club.language)  # no language the browser chose: the club's
        with timezone.override(zones.zone(club.time_zone)):
            return view(request, club, *args, **kwargs)

    return never_cache(database_unavailable_as_503(wrapped))


def _posted(request: HttpRequest) -> Any:
    """The form's data: the POST, even an empty one (a form then bound, with its errors)."""
    return request.POST if request.method == "POST" else None


def _refused(form: forms.BaseForm, error: ServiceError) -> int:
    """Draw a service's refusal on the form; its HTTP status."""
    field = REFUSAL_FIELDS.get(error.code)
    form.add_error(field if field in form.fields else None, ValidationError(error.detail))
    return error.status


def _page(
    request: HttpRequest, template: str, context: dict[str, Any], status: int
) -> HttpResponse:
    return render(request, f"scoring/{template}", context, status=status)


# -- the first run --------------------------------------------------------------------------


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
@database_unavailable_as_503
def first_run(request: HttpRequest, key: str) -> HttpResponse:
    """The one-time page of a fresh installation (``referee.setup``): it makes the first
    organiser's account (a superuser: the installation is theirs) and the club, signs
    them in and opens the club's page. A used, replaced or unknown link: 410 page. Two
    tabs sending it at once: one wins, the other gets the 410 page."""
    if not setup_link_valid(key):
        return render(request, "scoring/first_run_gone.html", status=410)
    form = FirstRunForm(_posted(request))
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            data = form.cleaned_data
            try:
                with transaction.atomic():
                    if not setup_link_claim(key):
                        return render(request, "scoring/first_run_gone.html", status=410)
                    user = form.save(commit=False)
                    user.is_staff = user.is_superuser = True
                    user.save()
                    club = services.club_create(
                        name=data["club_name"],
                        slug=data["slug"],
                        time_zone=data["time_zone"],
                        language=data["language"],
                        created_by=user,
                    )
            except IntegrityError:  # the other tab's account came first
                return render(request, "scoring/first_run_gone.html", status=410)
            except ServiceError as error:
                status = _refused(form, error)
            else:
                login(request, user, backend="django.contrib.auth.backends.ModelBackend")
                translation.activate(data["language"])
                response = redirect("league:club-manage", slug=club.slug)
                response.set_cookie(settings.LANGUAGE_COOKIE_NAME, data["language"])
                return response
    return _page(request, "first_run.html", {"form": form}, status)


# -- the clubs an organiser runs ----------------------------------------------------------


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
@database_unavailable_as_503
def clubs(request: HttpRequest) -> HttpResponse:
    """The clubs the signed-in user organises, and a form to make another one (its maker
    becomes its organiser; ``club_slug_taken``)."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    form = ClubFields(_posted(request))
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            data = form.cleaned_data
            try:
                club = services.club_create(created_by=request.user, **data)
            except ServiceError as error:
                status = _refused(form, error)
            else:
                return redirect("league:club-manage", slug=club.slug)
    organised = Club.objects.filter(
        memberships__user_id=request.user.pk, memberships__role=Membership.Role.ORGANISER
    ).order_by("name")
    return _page(request, "clubs.html", {"form": form, "clubs": organised}, status)


@require_http_methods(["GET", "HEAD", "POST"])
@club_page
def club_manage(request: HttpRequest, club: Club) -> HttpResponse:
    """The club's page: its name, time zone, language and publication (``club_update``),
    and the links to its players, seasons, organisers, games, room view and standings."""
    initial = {
        "name": club.name,
        "slug": club.slug,
        "time_zone": club.time_zone,
        "language": club.language,
        "is_public": club.is_public,
    }
    form = ClubFields(_posted(request), initial=initial)
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            data = form.cleaned_data
            if Club.objects.filter(slug=data["slug"]).exclude(pk=club.pk).exists():
                form.add_error("slug", gettext("Another club has this slug."))
            else:
                with transaction.atomic():
                    services.club_update(
                        club=club,
                        by=request.user,
                        name=data["name"],
                        is_public=data["is_public"],
                        time_zone=data["time_zone"],
                        language=data["language"],
                    )
                    if data["slug"] != club.slug:  # its old links lead here (ClubSlug)
                        club.slug = data["slug"]
                        club.save(update_fields=["slug"])
                messages.success(request, gettext("The club is saved."))
                return redirect("league:club-manage", slug=club.slug)
    return _page(request, "club_manage.html", {"club": club, "form": form}, status)


# -- players ---------------------------------------------------------------------------------


@require_http_methods(["GET", "HEAD", "POST"])
@club_page
def club_players(request: HttpRequest, club: Club) -> HttpResponse:
    """The club's players (not merged ones) and a form to register one
    (``member_number_taken``)."""
    form = PlayerForm(_posted(request))
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                player = services.player_create(club=club, by=request.user, **form.cleaned_data)
            except ServiceError as error:
                status = _refused(form, error)
            else:
                messages.success(
                    request, gettext("%(name)s is one of the club's players.") % {"name": player}
                )
                return redirect("league:club-players", slug=club.slug)
    players = Player.objects.filter(club=club, merged_into__isnull=True).order_by(
        "display_name", "pk"
    )
    return _page(
        request, "club_players.html", {"club": club, "form": form, "players": players}, status
    )


@require_http_methods(["GET", "HEAD", "POST"])
@club_page
def club_player(request: HttpRequest, club: Club, player_id: int) -> HttpResponse:
    """Rename a player of the club or change their member number (``player_update``)."""
    player = get_object_or_404(Player, club=club, pk=player_id, merged_into__isnull=True)
    initial = {"display_name": player.display_name, "member_number": player.member_number}
    form = PlayerForm(_posted(request), initial=initial)
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                services.player_update(player=player, by=request.user, **form.cleaned_data)
            except ServiceError as error:
                status = _refused(form, error)
            else:
                messages.success(request, gettext("The player is saved."))
                return redirect("league:club-players", slug=club.slug)
    context = {"club": club, "form": form, "player": player}
    return _page(request, "club_player.html", context, status)


# -- seasons ---------------------------------------------------------------------------------


@require_http_methods(["GET", "HEAD", "POST"])
@club_page
def club_seasons(request: HttpRequest, club: Club) -> HttpResponse:
    """The club's seasons and a form to open one (``season_name_taken``; a season that
    ends before it starts: ``invalid`` on its last day)."""
    form = SeasonForm(_posted(request))
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                services.season_create(club=club, by=request.user, **form.cleaned_data)
            except ServiceError as error:
                status = _refused(form, error)
            else:
                messages.success(request, gettext("The season is open."))
                return redirect("league:club-seasons", slug=club.slug)
    seasons = Season.objects.filter(club=club)
    return _page(
        request, "club_seasons.html", {"club": club, "form": form, "seasons": seasons}, status
    )


@require_http_methods(["GET", "HEAD", "POST"])
@club_page
def club_season(request: HttpRequest, club: Club, season_id: int) -> HttpResponse:
    """Rename a season or change its days (``season_update``), or close it for good
    (``season_archive``: POST ``archive``; its records stay)."""
    season = get_object_or_404(Season, club=club, pk=season_id)
    initial = {"name": season.name, "starts_on": season.starts_on, "ends_on": season.ends_on}
    form = SeasonForm(None if "archive" in request.POST else _posted(request), initial=initial)
    status = 200
    if request.method == "POST" and "archive" in request.POST:
        services.season_archive(season=season, by=request.user)
        messages.success(request, gettext("The season is closed; its records stay."))
        return redirect("league:club-seasons", slug=club.slug)
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                services.season_update(season=season, by=request.user, **form.cleaned_data)
            except ServiceError as error:
                status = _refused(form, error)
            else:
                messages.success(request, gettext("The season is saved."))
                return redirect("league:club-seasons", slug=club.slug)
    context = {"club": club, "form": form, "season": season}
    return _page(request, "club_season.html", context, status)


# -- organisers ------------------------------------------------------------------------------


@require_http_methods(["GET", "HEAD", "POST"])
@club_page
def club_organisers(request: HttpRequest, club: Club) -> HttpResponse:
    """The club's organisers, and a form to add one: an existing account by its username,
    or a new account without a password, whose owner sets it from the one-time link the
    page then shows (and e-mails, given an address: Django's password-reset token)."""
    form = OrganiserAddForm(_posted(request))
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            username, email = form.cleaned_data["username"], form.cleaned_data["email"]
            users = get_user_model()
            with transaction.atomic():
                user, created = users.objects.get_or_create(
                    **{users.USERNAME_FIELD: username}, defaults={"email": email}
                )
                if created:
                    user.set_unusable_password()
                    user.save(update_fields=["password"])
                services.membership_set(
                    club=club, username=username, role=Membership.Role.ORGANISER, by=request.user
                )
            if created:
                link = request.build_absolute_uri(_password_link(user))
                messages.success(
                    request,
                    gettext(
                        "%(user)s is an organiser of the club. Give them this link to choose "
                        "their password (it works once): %(link)s"
                    )
                    % {"user": username, "link": link},
                )
                if email:
                    user.email_user(
                        gettext("Your organiser account of %(club)s") % {"club": club.name},
                        gettext("Choose your password here: %(link)s") % {"link": link},
                    )
            else:
                messages.success(
                    request, gettext("%(user)s is an organiser of the club.") % {"user": username}
                )
            return redirect("league:club-organisers", slug=club.slug)
    organisers = (
        Membership.objects.filter(club=club, role=Membership.Role.ORGANISER)
        .select_related("user")
        .order_by("user__username")
    )
    context = {"club": club, "form": form, "organisers": organisers}
    return _page(request, "club_organisers.html", context, status)


def _password_link(user: Any) -> str:
    """The path of Django's set-a-new-password page for ``user`` (its one-time token)."""
    return reverse(
        "web:password_reset_confirm",
        kwargs={
            "uidb64": urlsafe_base64_encode(force_bytes(user.pk)),
            "token": default_token_generator.make_token(user),
        },
    )
