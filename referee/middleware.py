"""Middleware of the whole site: text at the edge, language tags and conditional requests.

Text that crosses the edge in a URL or a header is checked before any view sees it
(``EdgeTextMiddleware``).

Conditional requests on every route (RFC 9110 §13.1), the API's and the phone form's alike.

Every request's ``If-Match`` and ``If-None-Match`` are read by the one parser,
``referee.conditional``: a malformed or over-long one is a 400
(``precondition_invalid``; a problem under ``/api/``). A view that knows its
resource's version (a game's writes: the API's ``GameMixin`` views and the phone
form's taps, marked ``checks_conditions``) evaluates them under the game's lock.
On every other write the resource has no entity tag, so ``If-Match: *`` holds and
a list of tags does not, ``If-None-Match: *`` fails and a list holds; a failed
condition is a 412 (``precondition_failed``) and the view never runs.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.utils import timezone
from django.utils.translation import gettext

from referee import conditional
from referee.api.parsers import text_fault
from referee.api.problems import (
    conditional_invalid_detail,
    precondition_failed_detail,
    problem,
    problem_response,
)

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})


def checks_conditions(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Mark a function view that evaluates ``If-Match``/``If-None-Match`` itself."""
    view.checks_conditions = True  # type: ignore[attr-defined]
    return view


class ConditionalRequestMiddleware:
    """Parse the conditional headers of every request; evaluate them where no view does."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(
        self,
        request: HttpRequest,
        view_func: Callable[..., HttpResponse],
        view_args: Any,
        view_kwargs: Any,
    ) -> HttpResponse | None:
        view_class = getattr(view_func, "cls", None) or getattr(view_func, "view_class", None)
        if view_class is not None and not hasattr(view_class, (request.method or "").lower()):
            return None  # a method the view does not have: its 405 comes first (issue 31)
        try:
            conditions = conditional.conditions_of(
                if_match=request.headers.get("If-Match"),
                if_none_match=request.headers.get("If-None-Match"),
            )
        except conditional.ConditionalHeaderInvalid as error:
            if getattr(view_class, "defers_conditional_faults", False):
                # A game's view finds the game (404) and the caller's right to it (403)
                # first, then raises this (``GameMixin.get_game``).
                request.conditional_fault = error  # type: ignore[attr-defined]
                return None
            return _refusal(request, 400, error.code, conditional_invalid_detail(error))
        if conditions is None or request.method in SAFE_METHODS:
            return None
        if getattr(view_func, "answers_not_found", False):
            return None  # no such resource: its 404 comes before any precondition (issue 31)
        if getattr(view_func, "checks_conditions", False) or getattr(
            view_class, "checks_conditions", False
        ):
            return None
        if conditions.admits(None):
            return None
        if request.path_info.startswith("/api/"):
            answer = _answer_without_applying(request, view_func, view_args, view_kwargs)
            if answer.status_code >= 400:
                return answer
        return _refusal(request, 412, "precondition_failed", precondition_failed_detail())


def _answer_without_applying(
    request: HttpRequest, view_func: Callable[..., HttpResponse], view_args: Any, view_kwargs: Any
) -> HttpResponse:
    """What the view would answer without the failed precondition, with everything it wrote
    rolled back. RFC 9110 §13.2.1: a precondition only matters where the request would
    otherwise succeed, so an unknown resource (404), missing credentials (401/403) or a
    refused body keep their own answer and only a write that would apply gets the 412
    (issue 31: ``If-Match`` on an unknown club was 412, not 404)."""
    with transaction.atomic():
        answer = view_func(request, *view_args, **view_kwargs)
        render = getattr(answer, "render", None)
        if callable(render):
            answer = render()
        transaction.set_rollback(True)
    return answer


def _refusal(request: HttpRequest, status: int, code: str, detail: str) -> HttpResponse:
    if request.path_info.startswith("/api/"):
        return problem_response(problem(status, code, detail))
    return HttpResponse(detail, status=status, content_type="text/plain; charset=utf-8")


# ISO 639 codes withdrawn in 1989 that Java's ``Locale`` (and so older Android WebViews)
# still sends: ``in-ID`` is Indonesian. Django's negotiation does not know them.
LEGACY_LANGUAGE_CODES = {"in": "id", "iw": "he", "ji": "yi", "jw": "jv", "mo": "ro"}


def modern_accept_language(header: str) -> str:
    """``Accept-Language`` with each legacy primary subtag replaced by today's code and
    Java's ``_`` separators by ``-`` (``in_ID;q=0.9`` → ``id-ID;q=0.9``); the rest as sent."""
    items = []
    for item in header.split(","):
        tag, semicolon, params = item.partition(";")
        parts = tag.strip().replace("_", "-").split("-")
        parts[0] = LEGACY_LANGUAGE_CODES.get(parts[0].lower(), parts[0])
        items.append("-".join(parts) + semicolon + params)
    return ",".join(items)


class LegacyLanguageMiddleware:
    """Before Django's ``LocaleMiddleware``: let legacy and Java-style tags negotiate.

    Regional variants (``pl-PL``, ``fr-CA``, ``fr-BE``, ``id-ID``) already fall
    back to their language in Django's negotiation; this adds the legacy codes
    (``in-ID`` → Indonesian), so pages, API problems and ``Content-Language``
    all speak the language the phone asked for.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        header = request.META.get("HTTP_ACCEPT_LANGUAGE")
        if header:
            request.META["HTTP_ACCEPT_LANGUAGE"] = modern_accept_language(header)
        return self.get_response(request)


# C0 controls but the tab, and DEL: what a header's text may not hold (one search of each
# header, where testing each character in Python was ≈ 90 steps of every request).
_HEADER_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f]")


class EdgeTextMiddleware:
    """400 for a path, query parameter or header holding NUL, a control character or a lone
    surrogate, or a query text over ``MAX_TEXT_LENGTH`` (``text_invalid``/``text_too_long``:
    a problem under ``/api/``, a plain 400 page elsewhere). A body is the parser's
    (``referee.api.parsers``) or the form's business."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        fault = self.fault(request)
        if fault is None:
            return self.get_response(request)
        if request.path_info.startswith("/api/"):
            detail = gettext("A text of the request's URL or headers cannot be kept.")
            return problem_response(problem(400, fault, detail))
        return HttpResponseBadRequest()

    @staticmethod
    def fault(request: HttpRequest) -> str | None:
        texts = [request.path_info]
        for key, values in request.GET.lists():
            texts.append(key)
            texts.extend(values)
        for text in texts:
            if (fault := text_fault(text)) is not None:
                return fault
        for key, value in request.META.items():
            # A header's bytes arrive as Latin-1, so UTF-8 text in it shows C1 controls:
            # only C0 controls (NUL…) are refused there.
            if key.startswith("HTTP_") and isinstance(value, str):
                if _HEADER_CONTROL.search(value) is not None:
                    return "text_invalid"
        return None


class HeadWithoutBodyMiddleware:
    """A ``HEAD`` answer carries the headers of ``GET`` and no body (RFC 9110 §9.3.2).

    Django leaves dropping the body to the server; Django's ``runserver`` and gunicorn do,
    waitress (``make run``) did not, so a kept-alive client read the body as the next
    answer's status line (QA). ``Content-Length`` stays the ``GET``'s. Outermost but for
    ``ReleaseRequestMiddleware``, which changes no answer: it sees the final answer.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if request.method != "HEAD":
            return response
        length = response.get("Content-Length")
        if response.streaming:
            response.streaming_content = []  # type: ignore[attr-defined]
        else:
            response.content = b""
        if length is not None:
            response["Content-Length"] = length
        return response


class ReleaseRequestMiddleware:
    """Outermost: once the answer is made, cut the reference cycles that DRF's request,
    view and answer form, and Django's request's hold on the API's token.

    DRF's ``Request`` names itself and the view in its ``parser_context``, the view holds
    the request, the answer and (a view that reads) its own ``get`` as ``head``, and the
    answer names all three in its ``renderer_context``;
    Django's request is itself in cycles (its session's messages, ``request.htmx``) and DRF
    sets ``auth`` on it. So everything they reach — a move's token, its game and state,
    the answer's data — outlived the request until the cyclic garbage collector found it,
    and walking it cost that collector ≈ 0.08 ms of a move's CPU (``gc.callbacks``,
    in-process; issue 14). Cut here, it is freed by reference counting as the request
    ends. Nothing reads these after the answer is rendered (Django renders it before the
    middleware's answer phase); the answer's body, status and headers are untouched.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        context = getattr(response, "renderer_context", None)
        if isinstance(context, dict):  # an answer of a DRF view
            view, drf_request = context.get("view"), context.get("request")
            for key in ("view", "request", "response"):
                context.pop(key, None)
            if drf_request is not None and isinstance(drf_request.parser_context, dict):
                for key in ("view", "request"):
                    drf_request.parser_context.pop(key, None)
            if view is not None:  # ``head``: Django's ``View.setup`` binds ``get`` to it
                for key in ("request", "response", "head"):
                    view.__dict__.pop(key, None)
        request.__dict__.pop("auth", None)  # DRF's copy of the API token (and its game)
        return response


class InstantsInUtcMiddleware:
    """Under ``/api/`` the current time zone is UTC, whatever the server's ``TIME_ZONE``
    (``DJANGO_TIME_ZONE``): every instant the API answers is ISO 8601 in UTC with a ``Z``
    (DRF writes instants in the current zone), and a club's pages, not its API, are local
    (``scoring.zones.club_time``)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path_info.startswith("/api/"):
            return self.get_response(request)
        with timezone.override(dt.UTC):
            return self.get_response(request)
