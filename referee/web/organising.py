"""What every organiser's page shares: who may open it (``organiser_page``: the game's
creator, an organiser of its club, or staff; else the 403 page, ``forbidden``), the
games of the evening an organiser runs (``evening_games``), a write's form drawn again
(``rebound``, ``ids``, ``initial``), its key (``idempotency``), its answer (``said``,
``refusal``, ``form_refusal``) and the rounds' results (``round_results``).
"""

from __future__ import annotations

import functools
import re
import uuid
from collections.abc import Callable, Collection
from datetime import timedelta
from typing import Any

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.db.models import Max, Q, QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.utils.translation import gettext, pgettext

from referee import settled
from referee.engine import RefereeError
from referee.exceptions import (
    IdempotencyKeyReused,
    PreconditionRequired,
    ServiceError,
    VersionMismatch,
    referee_message,
)
from referee.idempotency import Idempotency, Replay
from referee.league import league
from referee.models import Event, Game
from referee.services import Actor
from referee.services.corrections import Corrected
from referee.web import organiser_forms as of
from referee.web.session import session_token

# A game counts as one of the evening's while open, or for this long after it was created.
EVENING = timedelta(hours=14)


# -- access ---------------------------------------------------------------------------------


def organiser_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Resolve ``game_id`` to the game for its organiser, else refuse.

    Not signed in: the sign-in page (a phone of the table: 403). Signed in but
    not the game's creator, an organiser of its club, or staff: 403. No such
    game: 404. The page is drawn in the time zone of the game's club
    (``League.time_zone``; the server's for a friendly game).
    """

    @functools.wraps(view)
    def wrapped(request: HttpRequest, game_id: Any, *args: Any, **kwargs: Any) -> HttpResponse:
        user = request.user
        if not user.is_authenticated:
            if session_token(request) is not None:  # a phone of a table: not an organiser
                return forbidden(request)
            return redirect_to_login(request.get_full_path())
        game = get_object_or_404(Game, pk=game_id)
        if not (
            user.is_staff
            or game.created_by_id == user.pk
            or league().organises(user=user, game=game)
        ):
            return forbidden(request)
        zone = league().time_zone(game=game)
        if zone is None:
            return view(request, game, *args, **kwargs)
        with timezone.override(zone):
            return view(request, game, *args, **kwargs)

    return wrapped


def forbidden(request: HttpRequest) -> HttpResponse:
    """The 403 page: organisers only, in the page's language."""
    return render(request, "referee/organiser_forbidden.html", status=403)


# -- the evening's games --------------------------------------------------------------------


def evening_games(user: Any) -> tuple[list[Game], list[Game]]:
    """The games ``user`` organises: those of the evening (open, or created in the last
    ``EVENING``) and the earlier ones, newest first, at most 50 in all."""
    games: QuerySet[Game] = league().games_accessible(user=user)
    since = timezone.now() - EVENING
    evening, earlier = [], []
    for game in games[:50]:
        if game.status == Game.Status.OPEN or game.created_at >= since:
            evening.append(game)
        else:
            earlier.append(game)
    return evening, earlier


# -- what the organiser's pages draw and answer ---------------------------------------------


def actor(request: HttpRequest) -> Actor:
    """Who writes from an organiser's page: the signed-in user."""
    return Actor(user=request.user)


def initial(game: Game) -> dict[str, Any]:
    """Every write form's hidden fields: the version shown and a fresh key."""
    return {"version": game.version, "key": uuid.uuid4()}


def ids(form: Any, prefix: str) -> Any:
    """Give ``form``'s fields ids of their own (``<prefix>-<field>``): a page draws several
    forms with the same fields, and each label must name its own form's field."""
    if form is not None:
        form.auto_id = f"{prefix}-%s"
    return form


def named_seats(form: Any, names: list[str]) -> Any:
    """``form``'s seat drop-downs (``seat``, ``source``, ``to``) with each seat's name
    beside its number (``2 · Cakra``): who sat it in the round shown (R38)."""
    if form is None:
        return form
    for field_name in ("seat", "source", "to"):
        field = form.fields.get(field_name)
        if field is None or not hasattr(field, "choices"):
            continue
        field.choices = [
            (value, f"{value} · {names[int(value)]}")
            if str(value).isdigit() and int(value) < len(names)
            else (value, label)
            for value, label in field.choices
        ]
    return form


def rebound(form: Any, game: Game) -> Any:
    """A refused form drawn again with what was typed, on the version now shown (and a
    fresh key): sending it again applies it to the game the page shows."""
    if form is not None and form.is_bound:
        data = form.data.copy()
        data["version"] = str(game.version)
        data["key"] = str(uuid.uuid4())
        form.data = data
    return form


def fresh(game: Game) -> Game:
    """``game`` read again (a write since the request read it moved its version on)."""
    game.refresh_from_db()
    return game


def live_events(game: Game, rounds: Collection[int] | None = None) -> list[Event]:
    """The game's events that stand (none revoked), in order; with ``rounds``, only those
    of these rounds and the substitutes (R38) of any round (issue 29: a round's page reads
    its own events, not the whole game's)."""
    live = Event.objects.filter(game=game, revoked_by__isnull=True)
    if rounds is not None:
        live = live.filter(Q(round_number__in=list(rounds)) | Q(kind=Event.Kind.SUBSTITUTE))
    return list(live.order_by("position"))


def last_round(game: Game) -> int:
    """The last round any live event belongs to (0 for none): one indexed query."""
    live = Event.objects.filter(game=game, revoked_by__isnull=True)
    return live.aggregate(last=Max("round_number"))["last"] or 0


def round_results(game: Game, live: list[Event] | None = None) -> list[dict[str, Any]]:
    """The game's rounds as ``domeng-result/1`` gives them (``GET …/result/``): the stored
    settled rounds and the round in play folded (``referee.settled``, issue 29). ``live``
    is not read: kept for the callers that pass the live events they hold."""
    del live
    return settled.game_rounds(game).results


def ending_words(result: dict[str, Any]) -> str:
    """``CEKI``, ``POLLO``, ``CAPPU``, ``MANGUNO``…, or "in play" / "void"."""
    if result.get("void"):
        return pgettext("round", "void")
    if result.get("ending") is None:
        return pgettext("round", "in play")
    words = []
    if result["ending"] == "cappu":
        finish = result.get("finish") or "plain"
        words.append("CAPPU" if finish == "plain" else finish.upper())
    else:
        words.append("MANGUNO")
        if result.get("mattikkeng"):
            words.append("MATTIKKENG")
    return " · ".join(words)


def idempotency(request: HttpRequest, form: of.OrganiserForm) -> Idempotency:
    """The form's key (rendered with it) and what it asked: a doubled submission counts once."""
    body = {k: v for k, v in request.POST.items() if k != "csrfmiddlewaretoken"}
    fingerprint = Idempotency.fingerprint_of(
        "POST", request.path, {"by": actor(request).label, "body": body}
    )
    return Idempotency(f"web-organiser:{form.cleaned_data['key']}", fingerprint)


def said(request: HttpRequest, result: Corrected | Replay, done: str) -> None:
    """The success message: what was done, or that nothing changed (no correction stored;
    for a doubled submission, none stored the first time)."""
    if isinstance(result, Replay):
        first = result.outcome
        if result.earlier is not None:  # kept by an earlier release
            nothing = result.earlier[1].get("correction", "") is None
        else:
            nothing = isinstance(first, Corrected) and first.correction is None
    else:
        nothing = result.correction is None
    if nothing:
        messages.info(request, gettext("Nothing changed: the game is as it was."))
    else:
        messages.success(request, done)


def refusal(error: RefereeError | ServiceError, game: Game) -> tuple[dict[str, Any], int]:
    """What the page says of a refused write, and its status.

    A rules error gives its message, ``code``, ``rule``, ``round`` and ``move``
    (0-based, as RECORD.md); a service error its message and ``code``.
    """
    if isinstance(error, RefereeError):
        error.with_names(game.players)
        refusal = {
            "text": referee_message(error),
            "code": error.code,
            "rule": error.rule,
            "round": error.round,
            "move": error.move,
            "move_number": error.move + 1 if error.move is not None else None,
            "choices": error.choices,  # end_required: the open ends' values (R11)
        }
        return refusal, 400 if error.malformed else 422
    text = str(error.detail)
    if isinstance(error, VersionMismatch):
        text = gettext(
            "Not applied: the game changed since this page was shown (another phone or "
            "organiser entered something). Check the page below and send again."
        )
    elif isinstance(error, IdempotencyKeyReused):
        text = gettext("Not applied: this form was already sent with other content.")
    elif isinstance(error, PreconditionRequired):
        text = gettext("Not applied: the page's version is missing. Reload and try again.")
    return {"text": text, "code": error.code, "rule": None, "round": None, "move": None}, (
        error.status
    )


def form_refusal(form: Any) -> dict[str, Any]:
    """What the page says of a form the page itself refuses (its fields' errors)."""
    texts = [str(m) for errors in form.errors.values() for m in errors]
    return {"text": " ".join(texts), "code": "form_invalid", "rule": None, "round": None}


# Who entered an event or a correction, as stored (``Actor.label``, ``TableToken.actor``,
# ``game_import``): the words the pages show in the reader's language.
_TOKEN_LABEL = re.compile(r"^table token (\d+) \((?:seat (\d)|scorekeeper)\)$")


def author_words(entered_by: str) -> str:
    """``entered_by`` (``user NAME``, ``table token 7 (seat 2)``, ``table token 7
    (scorekeeper)``, ``… for the computer at seat 3``, ``import by …``, ``anonymous``) in
    the reader's language; any other text as it is."""
    if entered_by.startswith("import by "):
        return gettext("import by %(who)s") % {"who": author_words(entered_by[10:])}
    computer = re.fullmatch(r"(.+) for the computer at seat (\d)", entered_by)
    if computer:
        return gettext("%(who)s for the computer at seat %(seat)s") % {
            "who": author_words(computer.group(1)),
            "seat": computer.group(2),
        }
    if entered_by.startswith("user "):
        return gettext("organiser %(name)s") % {"name": entered_by[5:]}
    token = _TOKEN_LABEL.match(entered_by)
    if token and token.group(2) is not None:
        return gettext("table token %(id)s (seat %(seat)s)") % {
            "id": token.group(1),
            "seat": token.group(2),
        }
    if token:
        return gettext("table token %(id)s (scorekeeper)") % {"id": token.group(1)}
    if entered_by == "anonymous":
        return gettext("anonymous")
    return entered_by
