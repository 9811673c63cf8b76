"""Answering a tap of the table page (a move, a reveal, an undo, a hand, a verification).

A tap is a form post, by htmx or plain. Its answer is the table's partial with a flash
saying what happened (``answer``; a plain post goes back to the page with the flash in
the session): accepted (``accepted``: counted once, undone, entered), refused by the
rules or the services (``refusal``, with why a tap on an older version was not applied),
or the form's own errors (``form_refusal``). A tap carries the version its page showed
(``precondition``) and a key of its own (``idempotency``): a retried tap counts once,
and one the rules refused is refused again as it was (``replayed_refusal``). A page or
tap whose database cannot answer is a 503 with ``Retry-After``
(``database_unavailable_as_503``).
"""

from __future__ import annotations

import functools
import logging
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import strip_tags
from django.utils.translation import gettext
from django_htmx.http import HttpResponseClientRedirect
from django_htmx.middleware import HtmxDetails

from referee import conditional
from referee.engine import RefereeError
from referee.exceptions import (
    IdempotencyKeyReused,
    PreconditionFailed,
    ServiceError,
    TokenRevoked,
    VersionMismatch,
    referee_message,
)
from referee.idempotency import Idempotency, Replay
from referee.models import Correction, Event, RoundVerification, TableToken
from referee.services import Precondition, Submitted, Undone
from referee.services.corrections import Corrected
from referee.services.verification import Verified
from referee.web.selectors import TablePage, table_page

logger = logging.getLogger(__name__)

FLASH_KEY = "domeng_flash"
POLL_SECONDS = getattr(settings, "DOMENG_POLL_SECONDS", 2)
# Seconds a phone waits before sending a kept tap again when the database cannot answer
# (the API's ``database_busy`` waits as long).
DATABASE_RETRY_AFTER = 2


class HtmxHttpRequest(HttpRequest):
    """A request seen by django-htmx's middleware (``request.htmx``)."""

    htmx: HtmxDetails


def database_unavailable_as_503(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A page or tap whose database is busy or down answers 503 with ``Retry-After``.

    Like the API's ``database_busy``: nothing was applied (the transaction rolled
    back). A tap (htmx) gets a short body its script shows while it keeps the tap
    and sends it again; a page gets a plain page saying the referee is unreachable.
    It renders without the database (no session, no user).
    """

    @functools.wraps(view)
    def wrapped(request: HtmxHttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except (OperationalError, InterfaceError) as error:  # locked, refused, gone away
            logger.warning("Database unavailable in a web view: %s", error)
        partial = bool(getattr(request, "htmx", False))
        template = "referee/_unavailable.html" if partial else "referee/unavailable.html"
        response = render(request, template, status=503)
        response["Retry-After"] = str(DATABASE_RETRY_AFTER)
        response["Cache-Control"] = "no-store"
        return response

    return wrapped


def flash_message(
    level: str, text: str, *, code: str | None = None, rule: str | None = None
) -> dict:
    """What a tap's answer says on the page: ``level`` (ok, info, warning, error), its text
    and the refusal's ``code`` and ``rule``."""
    return {"level": level, "text": text, "code": code, "rule": rule}


def accepted(result: Any, *, undone: bool = False) -> dict[str, Any]:
    """Every tap the referee took says so: counted once (a retry, ``Replay``), undone, or
    entered (``text`` filled in by ``answer`` from the event's line once the page is drawn;
    ``result`` a ``Submitted``, a declared hand's ``Corrected`` amendment without it)."""
    if isinstance(result, Replay):
        text = gettext("That tap had already been counted: it counts once.")
        return flash_message("ok", text)
    if undone:
        return flash_message("ok", gettext("Undone."))
    flash = flash_message("ok", gettext("Entered."))
    if isinstance(result, Submitted):
        flash["entered"] = result.event.position
    return flash


def refusal(
    error: RefereeError | ServiceError, token: TableToken, tap: str
) -> tuple[dict[str, Any], int]:
    """The flash and status of a refused tap: the rules' message, or what came first."""
    if isinstance(error, RefereeError):
        text = referee_message(error)
        flash = flash_message("error", text, code=error.code, rule=error.rule)
        return flash, 400 if error.malformed else 422
    if isinstance(error, PreconditionFailed):  # the request's own header, not the page's view
        text = gettext(
            "Not applied: %(tap)s. The request's If-Match or If-None-Match does not hold "
            "at the table's version (RFC 9110: a weak tag never matches If-Match)."
        )
        return flash_message("warning", text % {"tap": tap}, code=error.code), 412
    if isinstance(error, VersionMismatch):
        return flash_message("warning", _stale_text(token, tap), code=error.code), 409
    if isinstance(error, IdempotencyKeyReused):
        text = gettext(
            "Not applied: %(tap)s. This tap was already sent with other content; "
            "the table below is up to date, tap again if needed."
        )
        return flash_message("warning", text % {"tap": tap}, code=error.code), 409
    return flash_message("error", str(error.detail), code=error.code), error.status


def _stale_text(token: TableToken, tap: str) -> str:
    """Why a tap made on an older version was not applied: this phone's own earlier
    entry or another phone's (events and corrections carry who entered them)."""
    event = Event.objects.filter(game_id=token.game_id).order_by("-created_at", "-id").first()
    correction = (
        Correction.objects.filter(game_id=token.game_id).order_by("-created_at", "-id").first()
    )
    latest: Event | Correction | None = event
    if correction is not None and (event is None or correction.created_at >= event.created_at):
        latest = correction
    verified = (
        RoundVerification.objects.filter(game_id=token.game_id).order_by("-updated_at").first()
    )
    if verified is not None and (latest is None or verified.updated_at >= latest.created_at):
        # A round confirmed, disputed or resolved moves the version on too (issue 11): the
        # table's last event is not what changed.
        return gettext(
            "Not applied: %(tap)s. Round %(number)s was confirmed, disputed or resolved "
            "first; the table below is up to date, tap again if needed."
        ) % {"tap": tap, "number": verified.round_number}
    mine = latest is not None and latest.entered_by == token.actor
    if isinstance(latest, Correction):
        if mine:
            text = gettext(
                "Not applied: %(tap)s. This phone's undo was entered first; "
                "the table below shows it, tap again if needed."
            )
        else:
            text = gettext(
                "Not applied: %(tap)s. Another phone undid an entry first; "
                "the table below shows it, tap again if needed."
            )
        return text % {"tap": tap}
    token.game.refresh_from_db()  # another phone wrote after this request read the game
    page = table_page(token)
    change = latest_change(page)
    if mine:
        text = gettext(
            "Not applied: %(tap)s. This phone's earlier tap was entered first (%(change)s); "
            "the table below shows it, tap again if needed."
        )
    else:
        text = gettext(
            "Not applied: %(tap)s. Another phone entered something first (%(change)s); "
            "the table below is up to date, tap again if needed."
        )
    return text % {"tap": tap, "change": change}


def form_refusal(form: Any) -> dict[str, Any]:
    messages = [str(m) for errors in form.errors.values() for m in errors]
    return flash_message("error", " ".join(messages), code="form_invalid")


def replayed_refusal(result: Any) -> tuple[dict[str, Any], int] | None:
    """The flash and status of a retried tap that the rules refused the first time (the
    refusal its key kept: shown again, not judged again), else ``None``."""
    if not isinstance(result, Replay) or not result.refused:
        return None
    if result.earlier is not None:  # kept by an earlier release: what its flash needed
        status, body = result.earlier
        return flash_message("error", body["detail"], code=body["code"], rule=body["rule"]), status
    error = result.refusal
    assert error is not None
    flash = flash_message("error", referee_message(error), code=error.code, rule=error.rule)
    return flash, (400 if error.malformed else 422)


def fresh_state(
    result: Submitted | Undone | Corrected | Verified | Replay,
) -> dict[str, Any] | None:
    """The state a tap's result carries (the fold of its write, as this phone sees it),
    unless it is a replay (nothing written: the page reads the game as it is now)."""
    return None if isinstance(result, Replay) else result.state


def precondition(request: HtmxHttpRequest, data: dict[str, Any]) -> Precondition:
    """The version the page showed (its form's ``version``: 409 when stale) and any
    ``If-Match``/``If-None-Match`` the request carries (412), read by the API's parser;
    ``ConditionalRequestMiddleware`` has already answered a malformed one with 400."""
    conditions = conditional.conditions_of(
        if_match=request.headers.get("If-Match"),
        if_none_match=request.headers.get("If-None-Match"),
    )
    return Precondition(data["version"], conditions=conditions)


def idempotency(
    request: HtmxHttpRequest, data: dict[str, Any], body: dict[str, Any]
) -> Idempotency:
    """The tap's key (rendered with its form) and what it asked: a retry re-sends both."""
    fingerprint = Idempotency.fingerprint_of(
        "POST", request.path, {**body, "version": data["version"]}
    )
    return Idempotency(f"web:{data['key']}", fingerprint, keeps_refusals=True)


def answer(
    request: HtmxHttpRequest,
    token: TableToken,
    flash: dict[str, Any] | None,
    status: int,
    *,
    state: dict[str, Any] | None = None,
    **modes: Any,
) -> HttpResponse:
    """htmx: the refreshed partial (with the flash); a plain form post: back to the page.

    ``state``: the new state a service answered with, as this phone sees it; without it
    the game is read and folded again (a refusal, a replayed tap). A phone whose token was
    revoked while its tap was on the way (401 ``TokenRevoked``) goes to the home page,
    which says so (QA).
    """
    if status == TokenRevoked.status:
        return gone(request)
    if state is None:
        token.game.refresh_from_db()
    page = table_page(
        token,
        reveal=modes.get("reveal"),
        ticked=modes.get("ticked", frozenset()),
        pips=modes.get("pips", ""),
        state=state,
        declare=modes.get("declare", False),
    )
    if flash is not None and flash.get("entered") is not None:
        position = flash.pop("entered")
        entered = next((e for e in page.events if e.get("position") == position), None)
        if entered is not None:
            flash["text"] = gettext("Entered: %(event)s.") % {"event": event_text(entered)}
    if not request.htmx:
        if flash is not None:
            request.session[FLASH_KEY] = flash
        url = reverse("web:table")
        if modes.get("reveal") is not None:
            query = [("reveal", modes["reveal"]), *(("tiles", t) for t in modes.get("ticked", ()))]
            if modes.get("pips"):
                query.append(("pips", modes["pips"]))
            url += "?" + urlencode(query)
        elif modes.get("declare"):
            url += "?" + urlencode([("declare", 1), *(("tiles", t) for t in modes["ticked"])])
        return redirect(url)
    return render(request, "referee/_live.html", live_context(page, flash), status=status)


def gone(request: HtmxHttpRequest) -> HttpResponse:
    """The session lost its token (left, expired, revoked): back to the join page."""
    if request.htmx:
        return HttpResponseClientRedirect(reverse("web:home"))
    return redirect("web:home")


def live_context(page: TablePage, flash: dict[str, Any] | None) -> dict[str, Any]:
    # ``new_key`` is called once per form rendered: each form carries its own fresh key.
    return {"page": page, "flash": flash, "poll_seconds": POLL_SECONDS, "new_key": uuid.uuid4}


def latest_change(page: TablePage) -> str:
    """The newest entry of the table in words ("Cakra played 1-6"), or "an undo"."""
    return event_text(page.events[0]) if page.events else gettext("an undo")


def event_text(event: dict[str, Any]) -> str:
    """An event's line ("Besse played 1-6 on the 6 end") as plain text."""
    html = render_to_string("referee/_event_what.html", {"e": event})
    return " ".join(strip_tags(html).split())
