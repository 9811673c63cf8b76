"""Pages of the phone web form. Each view parses its input, calls one service and renders.

A browser joins a table with the game's join code (typed, or scanned from the
organiser's QR code) and keeps the table token in its session; from then on
it acts with that token's rights, like a phone of the API. The table page is
one server-rendered partial (``_live.html``) that the page's script
(``static/referee/table.js``, which sends ``HX-Request``) polls every few
seconds (an unchanged version answers 204: nothing to redraw) and that every
tap's answer (``event_submit`` / ``event_undo``) is merged into.

A poll carries what the phone is in the middle of (a tile waiting for its end,
the undo being confirmed, the tiles ticked at a reveal): a newer version is
drawn with that input re-checked — kept if it still applies, else cancelled
with the reason — never silently dropped. A database that cannot answer is a
503 with ``Retry-After`` (``referee.web.taps``), never a 500 page.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext, pgettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django_htmx.http import HttpResponseClientRedirect

from referee import conditional, services
from referee.engine import RefereeError
from referee.engine.strategies import STRATEGIES
from referee.exceptions import (
    SeatedElsewhere,
    ServiceError,
    referee_message,
)
from referee.inputs import join_client
from referee.league import league
from referee.lockouts import JoinClient, device_of, give_device
from referee.middleware import checks_conditions
from referee.models import Game, RoundVerification, TableToken
from referee.services import Actor, join_code_check
from referee.web import forms, lan, taps
from referee.web.organising import evening_games
from referee.web.panels import verification_context
from referee.web.qr import qr_svg
from referee.web.selectors import TablePage, table_page
from referee.web.session import (
    SESSION_KEY,
    forget_token,
    remember_token,
    session_token,
    speak_the_clubs_language,
)
from referee.web.taps import HtmxHttpRequest, database_unavailable_as_503

# -- joining ---------------------------------------------------------------------------


@require_http_methods(["GET", "HEAD", "POST"])
@database_unavailable_as_503
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
    token = session_token(request)
    # The browser still holds a key whose token is no longer live: the organiser revoked
    # it or released its seat (leaving forgets the key). Say so once, then forget it.
    removed = token is None and bool(request.session.get(SESSION_KEY))
    if removed:
        forget_token(request)
    context = {"form": form, "token": token, "removed": removed}
    status = refused.status if refused is not None else 200
    response = render(request, "referee/home.html", context, status=status)
    return give_device(request, _with_retry_after(response, refused))


@require_http_methods(["GET", "HEAD", "POST"])
@database_unavailable_as_503
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
    if not device_of(request) and request.GET.get("device") != "1":
        # A phone new to this server (scanning the QR code) gets its device cookie first,
        # and its code is judged as that device's, a newcomer's (``referee.lockouts``), not
        # in the bucket of the cookieless requests of its address, which a guesser behind
        # the same Wi-Fi may have used up (issue 27). A browser that keeps no cookie comes
        # back with ``device=1`` and is judged as before.
        return give_device(request, redirect(f"{request.path}?device=1"))
    try:
        game = join_code_check(join_code=code, client=_client(request))
    except ServiceError as error:
        return _join_failed(request, error, code)
    speak_the_clubs_language(request, game)  # no language the browser chose: the club's
    taken = set(game.tokens.filter(revoked_at__isnull=True).values_list("seat", flat=True))
    context = {"game": game, "seats": game.seats.all(), "taken": taken}
    return give_device(request, render(request, "referee/join.html", context))


@require_POST
@database_unavailable_as_503
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
@require_safe
@database_unavailable_as_503
def table(request: HtmxHttpRequest) -> HttpResponse:
    """The table page: state, chain, seats, last events and the move entry."""
    token = session_token(request)
    if token is None:
        return redirect("web:home")
    page = table_page(token, **_wanted_modes(request))
    context = taps.live_context(page, request.session.pop(taps.FLASH_KEY, None))
    context.update(_join_context(request, token.game))
    return render(request, "referee/table.html", context)


@never_cache
@require_safe
@database_unavailable_as_503
def live(request: HtmxHttpRequest) -> HttpResponse:
    """The polled partial: 204 while the game's version is the one the page shows.

    Without ``v`` it opens a mode on the page shown (``pick``, ``confirm=undo``,
    ``reveal``). With ``v`` (a poll) and a newer version, the mode the phone
    was in is re-checked at that version (``_recheck``).
    """
    token = session_token(request)
    if token is None:
        return HttpResponseClientRedirect(reverse("web:home"))
    shown = request.GET.get("v")
    if shown is not None and shown == str(token.game.version):
        return HttpResponse(status=204, headers={"ETag": conditional.etag(token.game.version)})
    wanted = _wanted_modes(request)
    page = table_page(token, **wanted)
    flash = _recheck(request, page, wanted) if shown is not None else None
    response = render(request, "referee/_live.html", taps.live_context(page, flash))
    # The partial is this phone's (its own declared hand, R31): the tag is its body's.
    response["ETag"] = conditional.representation_etag(page.state["version"], response.content)
    return response


@checks_conditions
@require_POST
@database_unavailable_as_503
def move(request: HtmxHttpRequest) -> HttpResponse:
    """One tap: a play (tile, and its end when it fits two) or PASS, for the seat to move."""
    token = session_token(request)
    if token is None:
        return taps.gone(request)
    form = forms.MoveForm(request.POST)
    if not form.is_valid():
        return taps.answer(request, token, taps.form_refusal(form), 400)
    return _submit(request, token, form, "move")


@checks_conditions
@require_POST
@database_unavailable_as_503
def reveal(request: HtmxHttpRequest) -> HttpResponse:
    """A blocked round: one seat's remaining tiles or their pip sum (R18, R33).

    A refused reveal is drawn again with what was ticked, to correct and resend.
    """
    token = session_token(request)
    if token is None:
        return taps.gone(request)
    form = forms.RevealForm(request.POST)
    ticked = frozenset(request.POST.getlist("tiles"))
    if not form.is_valid():
        seat = request.POST.get("seat", "")
        pips = request.POST.get("pips", "")
        extra: dict[str, Any] = (
            {"reveal": int(seat), "ticked": ticked, "pips": pips} if _is_seat(seat) else {}
        )
        return taps.answer(request, token, taps.form_refusal(form), 400, **extra)
    return _submit(request, token, form, "reveal")


@checks_conditions
@require_POST
@database_unavailable_as_503
def undo(request: HtmxHttpRequest) -> HttpResponse:
    """Undo the game's last event (after the page asked for confirmation)."""
    token = session_token(request)
    if token is None:
        return taps.gone(request)
    form = forms.UndoForm(request.POST)
    if not form.is_valid():
        return taps.answer(request, token, taps.form_refusal(form), 400)
    data = form.cleaned_data
    try:
        result = services.event_undo(
            game_id=token.game_id,
            actor=Actor(token=token),
            precondition=taps.precondition(request, data),
            idempotency=taps.idempotency(request, data, {}),
            reason="undo on the table page",
        )
    except (RefereeError, ServiceError) as error:
        return taps.answer(request, token, *taps.refusal(error, token, gettext("the undo")))
    return taps.answer(
        request, token, taps.accepted(result, undone=True), 200, state=taps.fresh_state(result)
    )


@require_POST
@database_unavailable_as_503
def notice(request: HtmxHttpRequest) -> HttpResponse:
    """ "Dismiss" under the notices of the organiser's corrections: gone from this phone
    until another correction (issue 28); the table is unchanged."""
    token = session_token(request)
    if token is None:
        return taps.gone(request)
    form = forms.NoticeForm(request.POST)
    if not form.is_valid():
        return taps.answer(request, token, taps.form_refusal(form), 400)
    services.notice_dismiss(token=token, seen=form.cleaned_data["seen"])
    return taps.answer(request, token, None, 200)


def _submit(
    request: HtmxHttpRequest,
    token: TableToken,
    form: forms.MoveForm | forms.RevealForm,
    kind: str,
) -> HttpResponse:
    data = form.cleaned_data
    payload = form.payload()
    try:
        result = services.event_submit(
            game_id=token.game_id,
            kind=kind,
            payload=payload,
            actor=Actor(token=token),
            precondition=taps.precondition(request, data),
            idempotency=taps.idempotency(request, data, {"kind": kind, "payload": payload}),
            seen=token.game,  # read with the token: the fast path writes against it
        )
    except (RefereeError, ServiceError) as error:
        flash, status = taps.refusal(error, token, _tap_text(token, kind, payload))
        keep = {}
        if kind == "reveal" and status in {400, 422}:  # to correct and send again
            keep = {
                "reveal": payload["seat"],
                "ticked": frozenset(payload.get("tiles", ())),
                "pips": str(payload.get("pips", "")),
            }
        return taps.answer(request, token, flash, status, **keep)
    if (refused := taps.replayed_refusal(result)) is not None:
        return taps.answer(request, token, *refused)
    return taps.answer(request, token, taps.accepted(result), 201, state=taps.fresh_state(result))


# -- organisers ------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
@database_unavailable_as_503
def organiser_games(request: HtmxHttpRequest) -> HttpResponse:
    """The games of the evening an organiser runs (and earlier ones), and a form to start
    one with five players (R3)."""
    user = request.user
    if isinstance(user, AnonymousUser):  # login_required let nobody else in
        raise PermissionDenied
    leagues = league().new_game_leagues(user=user)  # the clubs (and seasons) it organises
    form = forms.GameCreateForm(
        request.POST or None, leagues=leagues, for_league=request.GET.get("league", "")
    )
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            chosen = form.league()
            players: list[Any] = form.players()  # a chosen club player's id, or a name
            if chosen is not None:  # the club's registered players by the names typed
                typed = [p for p in players if isinstance(p, str)]
                found = iter(league().registered_seats(club=chosen.club, names=typed))
                players = [p if isinstance(p, int) else next(found) for p in players]
            try:
                game = services.game_create(
                    players=players,
                    created_by=user,
                    club=chosen.club if chosen else None,
                    season=chosen.season if chosen else None,
                    allow_seated_elsewhere=form.cleaned_data.get("seat_anyway", False),
                )
            except SeatedElsewhere as error:  # R38: said with who and where, confirmable
                form.add_error(None, ValidationError(_seated_elsewhere(error), code=error.code))
                status = error.status
            except RefereeError as error:
                form.add_error(None, referee_message(error))
            except ServiceError as error:  # the league's: not_club_organiser, season_archived…
                form.add_error(None, str(error.detail))
                status = error.status
            else:
                return redirect("web:organiser-game", game_id=game.pk)
    games, earlier = evening_games(user)  # open or recent; then the earlier ones
    _flag_disputed([*games, *earlier])
    context = {"form": form, "games": games, "earlier": earlier}
    return render(request, "referee/organiser_games.html", context, status=status)


def _seated_elsewhere(error: SeatedElsewhere) -> str:
    """The new-game form's refusal of a player who sits in another open game (R38): the
    player and that game by who sits it now, and how to seat them anyway."""
    other = (
        Game.objects.prefetch_related("seats").filter(pk=error.game).first() if error.game else None
    )
    where = " · ".join(other.players_now) if other is not None else error.game
    return gettext(
        "%(player)s already sits in another open game (%(game)s). To seat them in this "
        "game as well (they stay seated in the other until its organiser changes it), "
        "tick “Seat anyway” and create it again."
    ) % {"player": error.player or gettext("A player"), "game": where}


def _flag_disputed(games: list[Game]) -> None:
    """Set each game's ``disputed``: the rounds a phone disputed and nobody resolved yet
    (issue 11), in one query for the whole list."""
    counts = dict(
        RoundVerification.objects.filter(game__in=games, status=RoundVerification.Status.DISPUTED)
        .values("game")
        .annotate(n=Count("pk"))
        .values_list("game", "n")
    )
    for game in games:
        game.disputed = counts.get(game.pk, 0)  # type: ignore[attr-defined]


@login_required
@require_safe
@database_unavailable_as_503
def organiser_game(request: HtmxHttpRequest, game_id: Any) -> HttpResponse:
    """The organiser's page of one game: its join code and a QR code to join it.

    Opened at a loopback address (``127.0.0.1``, ``localhost``), which no phone
    can reach, the page says so and its QR code and link give this machine's
    address on the local network instead (``lan.join_base``).
    """
    game = get_object_or_404(Game, pk=game_id)
    user = request.user
    if not (
        user.is_staff
        or game.created_by_id == user.pk
        or league().organises(user=user, game=game)  # another organiser of its club
    ):
        raise Http404
    context = {"game": game, "seats": game.seats.all(), **_join_context(request, game)}
    context.update(verification_context(game))  # disputed rounds (issue 11)
    return render(request, "referee/organiser_game.html", context)


def _join_context(request: HtmxHttpRequest, game: Game) -> dict[str, Any]:
    """The join link, code and QR code of ``game`` for the phones at the table.

    They follow the address the page was opened with, unless it is a loopback one
    (``loopback``: the page warns), where they give this machine's LAN address
    (``lan_found``) — a QR code of ``127.0.0.1`` would take a phone nowhere.
    """
    path = reverse("web:join", args=[game.join_code])
    opened_at = request.build_absolute_uri(path)
    loopback = lan.is_loopback(request.get_host())
    lan_base = lan.join_base(request) if loopback else None
    join_url = lan_base + path if lan_base else opened_at
    return {
        "join_url": join_url,
        "loopback": loopback,
        "opened_at": opened_at,
        "lan_found": lan_base is not None,
        "join_code": _spaced(game.join_code),
        "qr": qr_svg(join_url, title=gettext("Scan to join this table")),
        "strategies": sorted(STRATEGIES),  # computer seats (R39)
    }


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


def _wanted_modes(request: HtmxHttpRequest) -> dict[str, Any]:
    """The mode the phone asks for or is in: ``pick`` (and its ``seat``), ``confirm=undo``,
    ``reveal`` (a seat) with the ``tiles`` ticked so far."""
    reveal_seat = request.GET.get("reveal", "")
    return {
        "pick": request.GET.get("pick") or None,
        "reveal": int(reveal_seat) if _is_seat(reveal_seat) else None,
        "confirm_undo": request.GET.get("confirm") == "undo",
        "ticked": frozenset(request.GET.getlist("tiles")),
        "pips": request.GET.get("pips", ""),
        "declare": request.GET.get("declare") == "1",
    }


def _recheck(
    request: HtmxHttpRequest, page: TablePage, wanted: dict[str, Any]
) -> dict[str, Any] | None:
    """A poll found a newer version: keep the phone's pending input if it still applies,
    else cancel it on the page with the reason. Returns the flash that says which."""
    change = taps.latest_change(page)
    if wanted["pick"]:
        seat = request.GET.get("seat", "")
        same_seat = not seat.isdigit() or int(seat) == page.move_seat
        tile = wanted["pick"]
        if page.pick is not None and same_seat:
            text = gettext(
                "The table changed (%(change)s). Your choice of %(tile)s still applies: "
                "name its end."
            )
            return taps.flash_message("info", text % {"change": change, "tile": tile})
        page.pick = None
        text = gettext(
            "Your choice of %(tile)s was cancelled: the table changed (%(change)s). "
            "Nothing was entered."
        )
        return taps.flash_message("warning", text % {"change": change, "tile": tile})
    if wanted["confirm_undo"]:
        # The last entry may be another one now: never undo what was not confirmed.
        page.confirm_undo = False
        text = gettext(
            "Nothing was undone: the table changed (%(change)s). Check the last entry "
            "before undoing it."
        )
        return taps.flash_message("warning", text % {"change": change})
    if wanted["reveal"] is not None:
        if page.reveal is not None:
            if not wanted["ticked"] and not wanted["pips"]:
                return None
            text = gettext("The table changed (%(change)s). What you ticked is kept.")
            return taps.flash_message("info", text % {"change": change})
        name = page.seats[wanted["reveal"]]["name"] if 0 <= wanted["reveal"] < 5 else ""
        text = gettext(
            "The reveal of %(name)s was cancelled: the table changed (%(change)s). "
            "Nothing of it was sent."
        )
        return taps.flash_message("warning", text % {"name": name, "change": change})
    return None


def _tap_text(token: TableToken, kind: str, payload: dict[str, Any]) -> str:
    """What a tap asked, in a few words: "Besse 1-6", "Besse PASS", "Besse: remaining tiles"."""
    seat = payload.get("seat")
    players = _players(token)
    name = players[seat] if isinstance(seat, int) and 0 <= seat < len(players) else str(seat)
    if kind == "reveal":
        return gettext("%(name)s: remaining tiles") % {"name": name}
    if payload.get("pass"):
        return f"{name} {pgettext('button', 'PASS')}"
    on = f" ({payload['on']})" if payload.get("on") is not None else ""
    return f"{name} {payload.get('tile')}{on}"


def _players(token: TableToken) -> list[str]:
    return list(token.game.seats.order_by("number").values_list("name", flat=True))
