"""The API's one error envelope: RFC 9457 problem details with a stable ``code``.

Every error under ``/api/`` leaves through here: the referee's ``RefereeError``
(400 when the input is malformed, 422 when the rules forbid it), the services'
``ServiceError`` (each with its own title), DRF's own exceptions (parse errors,
validation, 404, 405, 415, throttling, auth), a body too large (413) or nested
too deeply to parse (400), a busy database (503, ``Retry-After``), the API's
catch-all route and Django's 400/403/404/500 handlers, and anything unexpected
(a 500 without a traceback).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from http import HTTPStatus
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.db import DataError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.functional import Promise
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext, gettext_noop, ngettext
from django.utils.translation import gettext_lazy as _
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import set_rollback

from referee.api.renderers import JSONRenderer
from referee.conditional import MAX_HEADER_LENGTH, ConditionalHeaderInvalid
from referee.engine.errors import RefereeError
from referee.exceptions import ServiceError, referee_message

logger = logging.getLogger(__name__)

PROBLEM_CONTENT_TYPE = "application/problem+json"
PROBLEM_TYPE_PREFIX = "urn:domeng:problem:"

TITLES: dict[int, Promise] = {
    400: _("Malformed request"),
    401: _("Not authenticated"),
    403: _("Permission denied"),
    404: _("Not found"),
    405: _("Method not allowed"),
    406: _("Not acceptable"),
    415: _("Unsupported media type"),
    409: _("Conflict"),
    412: _("Precondition failed"),
    413: _("Request too large"),
    422: _("Refused by the rules"),
    429: _("Too many requests"),
    500: _("Server error"),
    503: _("Service unavailable"),
}
MALFORMED_RECORD_TITLE = _("Malformed record")
# DRF's own messages that a problem's ``detail`` carries and DRF's catalogs leave in English
# in Indonesian or Polish (DRF 3.18): marked here so that ``make makemessages`` keeps them
# in our catalogs, which Django reads before DRF's (``LOCALE_PATHS``). Django merges the
# catalogs, so DRF's lazy texts are translated from ours.
DRF_MESSAGES = (
    gettext_noop("Invalid input."),
    gettext_noop("Malformed request."),
    gettext_noop('Method "{method}" not allowed.'),
    gettext_noop("Invalid token."),
    gettext_noop("Invalid token header. No credentials provided."),
    gettext_noop("Invalid token header. Token string should not contain spaces."),
    gettext_noop("Invalid token header. Token string should not contain invalid characters."),
)
# Seconds a client waits before retrying a write the database was too busy to take.
DATABASE_BUSY_RETRY_AFTER = 2


def problem(
    status: int, code: str, detail: str, *, title: str | None = None, **extra: Any
) -> dict[str, Any]:
    """The problem-details body for ``status`` and ``code`` (extra members appended as given)."""
    if title is None:
        title = str(TITLES[status]) if status in TITLES else HTTPStatus(status).phrase
    return {
        "type": PROBLEM_TYPE_PREFIX + code,
        "title": title,
        "status": status,
        "detail": bounded_text(detail),
        "code": code,
        **extra,
    }


# A problem's texts are bounded: a message that quotes what the client sent (a tile, a
# slug) never echoes megabytes back.
PROBLEM_TEXT_MAX = 500


def bounded_text(text: str) -> str:
    """``text`` cut to ``PROBLEM_TEXT_MAX`` characters (``…`` marks the cut)."""
    return text if len(text) <= PROBLEM_TEXT_MAX else text[:PROBLEM_TEXT_MAX] + "…"


def referee_problem(err: RefereeError) -> dict[str, Any]:
    """The problem for a referee error: 400 if malformed, else 422; ``detail`` translated."""
    body = err.to_dict(detail=referee_message(err))
    if err.malformed:
        return problem(400, title=str(MALFORMED_RECORD_TITLE), **body)
    return problem(422, **body)


def throttled_detail(wait: int | None) -> str:
    """The translated detail of a 429 ``throttled``, with the seconds to wait in the
    language's plural form (``wait``: whole seconds, as ``Retry-After`` says)."""
    text = gettext("Request was throttled.")
    if wait is None:
        return text
    return " ".join(
        (
            text,
            ngettext(
                "Expected available in %(count)s second.",
                "Expected available in %(count)s seconds.",
                wait,
            )
            % {"count": wait},
        )
    )


def api_exception_problem(exc: exceptions.APIException) -> dict[str, Any]:
    """The problem for one of DRF's exceptions; field errors are listed under ``errors``."""
    if isinstance(exc, exceptions.Throttled):
        wait: int | None = getattr(exc, "wait", None)
        if str(exc.detail) == str(exceptions.Throttled(wait=wait).detail):
            # DRF formats its wait sentence before ``ngettext`` looks it up, so no catalog
            # matches it (it stayed English in Indonesian and Polish) and its plural is English.
            return problem(exc.status_code, "throttled", throttled_detail(wait))
    if isinstance(exc.detail, (list, dict)):
        return problem(
            exc.status_code,
            exc.default_code,
            str(exc.default_detail),
            errors=list(_field_errors(exc.detail)),
        )
    code = getattr(exc.detail, "code", None) or exc.default_code
    return problem(exc.status_code, str(code), str(exc.detail))


def _field_errors(detail: Any, path: tuple[str, ...] = ()) -> Iterator[dict[str, Any]]:
    """Flatten DRF's nested error details into ``{field, code, detail}`` (field: dotted path)."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            yield from _field_errors(value, (*path, str(key)))
    elif isinstance(detail, list):
        for index, item in enumerate(detail):
            nested = isinstance(item, (dict, list))
            yield from _field_errors(item, (*path, str(index)) if nested else path)
    else:
        field = ".".join(p for p in path if p != api_settings.NON_FIELD_ERRORS_KEY)
        yield {
            "field": bounded_text(field) or None,
            "code": getattr(detail, "code", "invalid"),
            "detail": bounded_text(str(detail)),
        }


def server_error_problem() -> dict[str, Any]:
    """The problem for an unexpected failure; it tells nothing about the failure itself."""
    return problem(500, "server_error", gettext("A server error occurred."))


def request_too_large_problem() -> dict[str, Any]:
    """413: the body is over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (Django's ``RequestDataTooBig``)."""
    return problem(413, "request_too_large", gettext("The request body is too large."))


def database_busy_problem() -> dict[str, Any]:
    """503: the database could not take the request now (e.g. SQLite's write lock)."""
    return problem(
        503, "database_busy", gettext("The database is busy: nothing was applied, try again.")
    )


def conditional_invalid_detail(error: ConditionalHeaderInvalid) -> str:
    """The translated detail of a malformed conditional header."""
    if error.too_long:
        return ngettext(
            "%(header)s is longer than %(count)s character.",
            "%(header)s is longer than %(count)s characters.",
            MAX_HEADER_LENGTH,
        ) % {"header": error.header, "count": MAX_HEADER_LENGTH}
    return gettext(
        '%(header)s must be "*" or a list of entity tags such as "3" or W/"3", separated by commas.'
    ) % {"header": error.header}


def precondition_failed_detail() -> str:
    """The translated detail of a failed precondition on a resource without an entity tag."""
    return gettext(
        "This resource has no entity tag that the request's precondition names: "
        "nothing was applied."
    )


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    """DRF's ``EXCEPTION_HANDLER``: turn any exception raised by an API view into a problem."""
    headers: dict[str, str] = {}
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()

    if isinstance(exc, RefereeError):
        body = referee_problem(exc)
    elif isinstance(exc, ServiceError):
        body = problem(exc.status, exc.code, exc.detail, title=str(exc.title), **exc.extra)
        if exc.retry_after is not None:
            headers["Retry-After"] = str(exc.retry_after)
    elif isinstance(exc, exceptions.APIException):
        body = api_exception_problem(exc)
        if auth_header := getattr(exc, "auth_header", None):
            headers["WWW-Authenticate"] = auth_header
        if wait := getattr(exc, "wait", None):
            headers["Retry-After"] = str(int(wait))
    elif isinstance(exc, ConditionalHeaderInvalid):
        body = problem(400, exc.code, conditional_invalid_detail(exc))
    elif isinstance(exc, RequestDataTooBig):
        body = request_too_large_problem()
    elif isinstance(exc, RecursionError):  # JSON nested deeper than Python's recursion limit
        logger.warning("Refused a request nested too deeply: %s", exc)
        body = api_exception_problem(
            exceptions.ParseError(gettext("JSON parse error - nested too deeply."))
        )
    elif isinstance(exc, DataError):  # a value the database refuses that no check caught
        logger.warning("Database refused a value in an API view: %s", exc)
        body = problem(400, "value_invalid", gettext("A value of the request cannot be kept."))
    elif isinstance(exc, OperationalError):  # e.g. SQLite's "database is locked"
        logger.warning("Database busy in an API view: %s", exc)
        body = database_busy_problem()
        headers["Retry-After"] = str(DATABASE_BUSY_RETRY_AFTER)
    else:
        logger.error("Unhandled error in an API view", exc_info=exc)
        body = server_error_problem()
    set_rollback()
    return ProblemResponse(body, headers=headers)


_PROBLEM_RENDERER = JSONRenderer()


def render_problem(body: dict[str, Any]) -> bytes:
    """A problem's bytes: compact UTF-8 JSON, members in ``problem``'s order, however it
    leaves (a DRF view, a plain Django view, a middleware, Django's error handlers)."""
    return _PROBLEM_RENDERER.render(body)


class ProblemResponse(Response):
    """A DRF view's problem: always ``render_problem``'s JSON, labelled
    ``application/problem+json``, whatever renderer the view negotiated or fell back to
    (QA: the schema view rendered its 404 and 406 problems as YAML, the docs view as
    text, the 405 indented)."""

    def __init__(self, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        super().__init__(
            body, status=body["status"], headers=headers, content_type=PROBLEM_CONTENT_TYPE
        )

    @property
    def rendered_content(self) -> bytes:  # type: ignore[override]  # DRF's is bytes too
        self["Content-Type"] = PROBLEM_CONTENT_TYPE
        return render_problem(self.data)


def problem_response(body: dict[str, Any]) -> HttpResponse:
    """A plain Django response carrying a problem (for code outside DRF's views), spelled
    as a DRF view's (``render_problem``)."""
    return HttpResponse(
        render_problem(body), status=body["status"], content_type=PROBLEM_CONTENT_TYPE
    )


def _is_api(request: HttpRequest) -> bool:
    return request.path_info.startswith("/api/")


# Django's error handlers (``handler400``… in the root URLconf): problems under
# /api/, Django's own pages elsewhere.


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        if isinstance(exception, RequestDataTooBig):
            return problem_response(request_too_large_problem())
        return problem_response(problem(400, "bad_request", gettext("Bad request.")))
    return defaults.bad_request(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        return problem_response(api_exception_problem(exceptions.PermissionDenied()))
    return defaults.permission_denied(request, exception)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        return problem_response(api_exception_problem(exceptions.NotFound()))
    return defaults.page_not_found(request, exception)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """``CSRF_FAILURE_VIEW``: a form sent without a valid CSRF token (a page open too long,
    or cookies off) is the site's own 403 page, in the page's language, with a way back;
    under /api/ the 403 ``permission_denied`` problem the API's session check gives."""
    if _is_api(request):
        detail = gettext(
            "CSRF check failed: send the csrftoken cookie's value in the "
            "X-CSRFToken header, or sign in with a token (Authorization: Token …)."
        )
        return problem_response(api_exception_problem(exceptions.PermissionDenied(detail)))
    back = request.META.get("HTTP_REFERER", "")
    if not url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        back = ""
    context = {"back": back, "code": "csrf_failed"}
    return render(request, "referee/csrf_failure.html", context, status=403)


def server_error(request: HttpRequest) -> HttpResponse:
    if _is_api(request):
        return problem_response(server_error_problem())
    return defaults.server_error(request)


@csrf_exempt
def api_not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    """The API's catch-all route: any method on any unknown URL under ``/api/`` is a 404
    problem, even under DEBUG (no HTML page) and without a trailing slash (no APPEND_SLASH
    redirect, which a POST cannot follow). A plain Django view: not in the OpenAPI schema."""
    return problem_response(api_exception_problem(exceptions.NotFound()))


# No resource behind it, so no precondition to fail: ``If-Match`` gets the 404, not a 412
# (``referee.middleware.ConditionalRequestMiddleware``).
api_not_found.answers_not_found = True  # type: ignore[attr-defined]
