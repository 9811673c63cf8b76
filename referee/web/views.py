"""Pages of the phone web form. Each view parses its input, calls one service and renders.

A browser joins a table with the game's join code (typed, or scanned from the
organiser's QR code) and keeps the table token in its session; from then on
it acts with that token's rights, like a phone of the API. The table page is
one server-rendered partial (``_live.html``) that htmx polls every few
seconds (an unchanged version answers 204: nothing to redraw) and that every
tap replaces with the answer of ``event_submit`` / ``event_undo``.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect
from django_htmx.middleware import HtmxDetails

from referee import conditional, services
from referee.api.auth import join_client
from referee.api.problems import referee_message
from referee.engine import RefereeError
from referee.engine.strategies import STRATEGIES
from referee.exceptions import IdempotencyKeyReused, ServiceError, VersionMismatch
from referee.lockouts import JoinClient, give_device
from referee.middleware import checks_conditions
from referee.models import Game, TableToken
from referee.services import Actor, Idempotency, Precondition, join_code_check
from referee.web import forms
from referee.web.qr import qr_svg
from referee.web.selectors import TablePage, table_page
from referee.web.session import forget_token, remember_token, session_token

FLASH_KEY = "domeng_flash"
POLL_SECONDS = getattr(settings, "DOMENG_POLL_SECONDS", 2)


class HtmxHttpRequest(HttpRequest):
    """A request seen by django-htmx's middleware (``request.htmx``)."""

    htmx: HtmxDetails


# -- joining ---------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def home(request: HtmxHttpRequest) -> HttpResponse:
    """Type the table's join code (or come back to the table this browser joined)."""
    form = forms.JoinCodeForm(request.POST or None)
    refused: ServiceError | None = None
    if request.method == "POST" and form.is_valid():
        try:
            game = join_code_check(join_code=form.cleaned_data["code"], client=_client(request))
        except ServiceError as error:
            form.add_error("code", error.detail)
            refused = error
        else:
            return redirect("web:join", code=game.join_code)
    context = {"form": form, "token": session_token(request)}
    status = refused.status if refused is not None else 200
    response = render(request, "referee/home.html", context, status=status)
    return give_device(request, _with_retry_after(response, refused))


@require_http_methods(["GET", "POST"])
def join(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """Pick a seat, or the scorekeeper for the whole table; the token goes to the session."""
    if request.method == "POST":
        form = forms.SeatForm(request.POST)
        if form.is_valid():
            try:
                key, _ = services.table_join(
                    join_code=code,
                    seat=form.cleaned_data["seat"],
                    label="web",
                    client=_client(request),
                )
            except ServiceError as error:
                return _join_failed(request, error, code)
            remember_token(request, key)
            return redirect("web:table")
    try:
        game = join_code_check(join_code=code, client=_client(request))
    except ServiceError as error:
        return _join_failed(request, error, code)
    taken = set(game.tokens.filter(revoked_at__isnull=True).values_list("seat", flat=True))
    context = {"game": game, "seats": game.seats.all(), "taken": taken}
    return give_device(request, render(request, "referee/join.html", context))


@require_POST
def leave(request: HtmxHttpRequest) -> HttpResponse:
    """Leave the table: the token is revoked (its seat is free for another phone) and this
    browser forgets it."""
    token = session_token(request)
    if token is not None:
        services.table_leave(token=token)
    forget_token(request)
    return redirect("web:home")


def _join_failed(request: HtmxHttpRequest, error: ServiceError, code: str) -> HttpResponse:
    """The home page again, the code shown with why it was refused (bound, so it can err)."""
    form = forms.JoinCodeForm({"code": code})
    form.is_valid()
    form.add_error("code", error.detail)
    context = {"form": form, "token": session_token(request)}
    response = render(request, "referee/home.html", context, status=error.status)
    return give_device(request, _with_retry_after(response, error))


def _with_retry_after(response: HttpResponse, error: ServiceError | None) -> HttpResponse:
    """A lockout says when to try again (``Retry-After``, seconds), as the API's 429 does."""
    if error is not None and error.retry_after is not None:
        response["Retry-After"] = str(error.retry_after)
    return response


# -- the table -------------------------------------------------------------------------


@never_cache
@require_GET
def table(request: HtmxHttpRequest) -> HttpResponse:
    """The table page: state, chain, seats, last events and the move entry."""
    token = session_token(request)
    if token is None:
        return redirect("web:home")
    context = _table_context(request, token, request.session.pop(FLASH_KEY, None), modes=True)
    join_url = request.build_absolute_uri(reverse("web:join", args=[token.game.join_code]))
    context["join_code"] = _spaced(token.game.join_code)
    context["qr"] = qr_svg(join_url, title=gettext("Scan to join this table"))
    return render(request, "referee/table.html", context)


@never_cache
@require_GET
def live(request: HtmxHttpRequest) -> HttpResponse:
    """The polled partial: 204 while the game's version is the one the page shows."""
    token = session_token(request)
    if token is None:
        return HttpResponseClientRedirect(reverse("web:home"))
    shown = request.GET.get("v")
    if shown is not None and shown == str(token.game.version):
        return HttpResponse(status=204, headers={"ETag": f'"{token.game.version}"'})
    # A tap's own modes (pick, undo) need the version they were opened at; a reveal
    # being entered survives another seat's reveal.
    context = _table_context(request, token, None, modes=shown is None)
    response = render(request, "referee/_live.html", context)
    response["ETag"] = f'"{context["page"].state["version"]}"'
    return response


@checks_conditions
@require_POST
def move(request: HtmxHttpRequest) -> HttpResponse:
    """One tap: a play (tile, and its end when it fits two) or PASS, for the seat to move."""
    token = session_token(request)
    if token is None:
        return _gone(request)
    form = forms.MoveForm(request.POST)
    if not form.is_valid():
        return _answer(request, token, _form_refusal(form), 400)
    return _submit(request, token, form, "move")


@checks_conditions
@require_POST
def reveal(request: HtmxHttpRequest) -> HttpResponse:
    """A blocked round: one seat's remaining tiles or their pip sum (R18, R33)."""
    token = session_token(request)
    if token is None:
        return _gone(request)
    form = forms.RevealForm(request.POST)
    if not form.is_valid():
        seat = request.POST.get("seat", "")
        extra = {"reveal": int(seat)} if _is_seat(seat) else {}
        return _answer(request, token, _form_refusal(form), 400, **extra)
    return _submit(request, token, form, "reveal")


@checks_conditions
@require_POST
def undo(request: HtmxHttpRequest) -> HttpResponse:
    """Undo the game's last event (after the page asked for confirmation)."""
    token = session_token(request)
    if token is None:
        return _gone(request)
    form = forms.UndoForm(request.POST)
    if not form.is_valid():
        return _answer(request, token, _form_refusal(form), 400)
    data = form.cleaned_data
    try:
        outcome = services.event_undo(
            game_id=token.game_id,
            actor=Actor(token=token),
            precondition=_precondition(request, data),
            idempotency=_idempotency(request, data, {}),
            reason="undo on the table page",
        )
    except (RefereeError, ServiceError) as error:
        return _answer(request, token, *_refusal(error))
    return _answer(request, token, _accepted(outcome, undone=True), 200)


def _submit(
    request: HtmxHttpRequest, token: TableToken, form: forms.MoveForm | forms.RevealForm, kind: str
) -> HttpResponse:
    data = form.cleaned_data
    payload = form.payload()
    try:
        outcome = services.event_submit(
            game_id=token.game_id,
            kind=kind,
            payload=payload,
            actor=Actor(token=token),
            precondition=_precondition(request, data),
            idempotency=_idempotency(request, data, {"kind": kind, "payload": payload}),
        )
    except (RefereeError, ServiceError) as error:
        flash, status = _refusal(error)
        keep = {"reveal": payload["seat"]} if kind == "reveal" and status == 422 else {}
        return _answer(request, token, flash, status, **keep)
    return _answer(request, token, _accepted(outcome), 201)


# -- organisers ------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def organiser_games(request: HtmxHttpRequest) -> HttpResponse:
    """An organiser's games, and a form to start one with five players (R3)."""
    user = request.user
    if isinstance(user, AnonymousUser):  # login_required let nobody else in
        raise PermissionDenied
    form = forms.GameCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            game = services.game_create(players=form.players(), created_by=user)
        except RefereeError as error:
            form.add_error(None, referee_message(error))
        else:
            return redirect("web:organiser-game", game_id=game.pk)
    games = Game.objects.filter(created_by=user).prefetch_related("seats")[:50]
    return render(request, "referee/organiser_games.html", {"form": form, "games": games})


@login_required
@require_GET
def organiser_game(request: HtmxHttpRequest, game_id: Any) -> HttpResponse:
    """The organiser's page of one game: its join code and a QR code to join it."""
    game = get_object_or_404(Game, pk=game_id)
    user = request.user
    if not (user.is_staff or game.created_by_id == user.pk):
        raise Http404
    join_url = request.build_absolute_uri(reverse("web:join", args=[game.join_code]))
    context = {
        "game": game,
        "seats": game.seats.all(),
        "join_url": join_url,
        "join_code": _spaced(game.join_code),
        "qr": qr_svg(join_url, title=gettext("Scan to join this table")),
        "strategies": sorted(STRATEGIES),  # computer seats (R39)
    }
    return render(request, "referee/organiser_game.html", context)


# -- helpers ---------------------------------------------------------------------------


def _client(request: HtmxHttpRequest) -> JoinClient:
    """The client as the API's join tells it apart (address by NUM_PROXIES, device cookie)."""
    return join_client(request)


def _is_seat(text: str) -> bool:
    """``text`` is a seat number 0–4 as a form or a query sends it (``"²"`` is not)."""
    return text in {"0", "1", "2", "3", "4"}


def _spaced(code: str) -> str:
    """``K7QH2MXP9R`` → ``K7QH-2MXP-9R``: easier to read aloud."""
    return "-".join(code[i : i + 4] for i in range(0, len(code), 4))


def _precondition(request: HtmxHttpRequest, data: dict[str, Any]) -> Precondition:
    """The version the page showed (its form's ``version``: 409 when stale) and any
    ``If-Match``/``If-None-Match`` the request carries (412), read by the API's parser;
    ``ConditionalRequestMiddleware`` has already answered a malformed one with 400."""
    conditions = conditional.conditions_of(
        if_match=request.headers.get("If-Match"),
        if_none_match=request.headers.get("If-None-Match"),
    )
    return Precondition(data["version"], conditions=conditions)


def _idempotency(
    request: HtmxHttpRequest, data: dict[str, Any], body: dict[str, Any]
) -> Idempotency:
    """The tap's key (rendered with its form) and what it asked: a retry re-sends both."""
    fingerprint = Idempotency.fingerprint_of(
        "POST", request.path, {**body, "version": data["version"]}
    )
    return Idempotency(f"web:{data['key']}", fingerprint)


def _table_context(
    request: HtmxHttpRequest, token: TableToken, flash: dict[str, Any] | None, *, modes: bool
) -> dict[str, Any]:
    reveal_seat = request.GET.get("reveal", "")
    page = table_page(
        token,
        pick=request.GET.get("pick") if modes else None,
        reveal=int(reveal_seat) if _is_seat(reveal_seat) else None,
        confirm_undo=modes and request.GET.get("confirm") == "undo",
    )
    return _live_context(page, flash)


def _live_context(page: TablePage, flash: dict[str, Any] | None) -> dict[str, Any]:
    # ``new_key`` is called once per form rendered: each form carries its own fresh key.
    return {"page": page, "flash": flash, "poll_seconds": POLL_SECONDS, "new_key": uuid.uuid4}


def _answer(
    request: HtmxHttpRequest,
    token: TableToken,
    flash: dict[str, Any] | None,
    status: int,
    **modes: Any,
) -> HttpResponse:
    """htmx: the refreshed partial (with the flash); a plain form post: back to the page."""
    token.game.refresh_from_db()
    if not request.htmx:
        if flash is not None:
            request.session[FLASH_KEY] = flash
        url = reverse("web:table")
        if modes.get("reveal") is not None:
            url += f"?reveal={modes['reveal']}"
        return redirect(url)
    page = table_page(token, reveal=modes.get("reveal"))
    return render(request, "referee/_live.html", _live_context(page, flash), status=status)


def _gone(request: HtmxHttpRequest) -> HttpResponse:
    """The session lost its token (left, expired, revoked): back to the join page."""
    if request.htmx:
        return HttpResponseClientRedirect(reverse("web:home"))
    return redirect("web:home")


def _refusal(error: RefereeError | ServiceError) -> tuple[dict[str, Any], int]:
    if isinstance(error, RefereeError):
        flash = {
            "level": "error",
            "text": referee_message(error),
            "code": error.code,
            "rule": error.rule,
        }
        return flash, 400 if error.malformed else 422
    if isinstance(error, (VersionMismatch, IdempotencyKeyReused)):
        text = gettext(
            "Another phone entered something first. Nothing was applied: the table below "
            "is up to date, check it and tap again if needed."
        )
        return {"level": "warning", "text": text, "code": error.code, "rule": None}, 409
    return {"level": "error", "text": error.detail, "code": error.code, "rule": None}, error.status


def _form_refusal(form: Any) -> dict[str, Any]:
    messages = [str(m) for errors in form.errors.values() for m in errors]
    return {"level": "error", "text": " ".join(messages), "code": "form_invalid", "rule": None}


def _accepted(outcome: services.Outcome, *, undone: bool = False) -> dict[str, Any] | None:
    if outcome.replayed:
        text = gettext("That tap had already been counted: it counts once.")
        return {"level": "ok", "text": text, "code": None, "rule": None}
    if undone:
        return {"level": "ok", "text": gettext("Undone."), "code": None, "rule": None}
    return None
