"""Query parameters of the API: each operation takes those its OpenAPI schema documents,
with the values the schema allows; anything else is a 400 problem ``invalid_query``.

A strict API: an unknown parameter (``GET /games/?status=open`` where the list has no
such filter) or an invalid value of a known one (``?season=0``, ``?format=xml``,
``?ordering=bogus``, ``?page=`` with no value, a parameter given twice) is refused
before the view runs, naming the parameter (``parameter``, and ``errors[0].field``),
rather than ignored. The operation's parameters are read from the schema itself
(drf-spectacular, generated once per process on the first request that carries a query
string), so what is accepted and what is documented cannot drift apart. Operations
outside the schema (the schema and its UI, the catch-all 404) are left alone.
"""

from __future__ import annotations

import datetime as dt
import re
import threading
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext, ngettext

from referee.api.problems import problem, problem_response

CODE = "invalid_query"

# (the view function of a URL pattern, HTTP method) → {parameter name: its OpenAPI object}
Operations = dict[tuple[Any, str], dict[str, dict[str, Any]]]

_lock = threading.Lock()
_operations: Operations | None = None

DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
TRUE_FALSE = ("true", "false", "1", "0")


def operations() -> Operations:
    """Every operation of the schema with its query parameters (built once, then kept)."""
    global _operations
    with _lock:
        if _operations is None:
            _operations = _build()
        return _operations


def _build() -> Operations:
    from drf_spectacular.generators import SchemaGenerator

    generator = SchemaGenerator()
    schema = generator.get_schema(request=None, public=True)
    found: Operations = {}
    # drf-spectacular types them as triples; they are (path, regex, method, view function).
    endpoints: list[Any] = list(generator.endpoints or ())
    for path, _regex, method, callback in endpoints:
        # The schema's path as drf-spectacular writes it ({pk} → {id}).
        path = generator.coerce_path(path, method, generator.create_view(callback, method))
        operation = schema["paths"].get(path, {}).get(method.lower())
        if operation is None:
            continue
        found[(callback, method.upper())] = {
            parameter["name"]: parameter
            for parameter in operation.get("parameters", [])
            if parameter.get("in") == "query"
        }
    return found


def query_fault(request: HttpRequest, view_func: Any) -> tuple[str, str] | None:
    """``(parameter, detail)`` for the first query parameter the operation does not take or
    whose value it does not allow; ``None`` if all are fine or the operation is not in the
    schema."""
    if not request.GET:
        return None
    method = "GET" if request.method == "HEAD" else (request.method or "").upper()
    known = operations().get((view_func, method))
    if known is None:
        return None
    for name, values in request.GET.lists():
        parameter = known.get(name)
        if parameter is None:
            return name, _unknown_detail(name, sorted(known))
        schema = parameter.get("schema") or {}
        if len(values) > 1 and schema.get("type") != "array":
            return name, gettext("The query parameter %(parameter)s is given more than once.") % {
                "parameter": name
            }
        for value in values:
            if (detail := value_fault(name, value, schema)) is not None:
                return name, detail
    return None


def _unknown_detail(name: str, known: list[str]) -> str:
    if not known:
        return gettext("This operation takes no query parameter; %(parameter)s was given.") % {
            "parameter": name
        }
    return gettext(
        "%(parameter)s is not a query parameter of this operation (it takes %(known)s)."
    ) % {"parameter": name, "known": ", ".join(known)}


def value_fault(name: str, value: str, schema: dict[str, Any]) -> str | None:
    """Why ``value`` is not one ``schema`` (an OpenAPI parameter schema) allows, or ``None``."""
    kind = schema.get("type")
    if kind == "integer":
        low, high = schema.get("minimum"), schema.get("maximum")
        number = int(value) if value.isascii() and value.isdigit() and len(value) <= 20 else None
        if (
            number is None
            or (low is not None and number < low)
            or (high is not None and number > high)
        ):
            return gettext(
                "The query parameter %(parameter)s must be a whole number from %(min)s to %(max)s."
            ) % {"parameter": name, "min": low if low is not None else 0, "max": high}
        return None
    if kind == "boolean":
        if value not in TRUE_FALSE:
            return gettext("The query parameter %(parameter)s must be true or false.") % {
                "parameter": name
            }
        return None
    if "enum" in schema:
        if value not in schema["enum"]:
            return gettext("The query parameter %(parameter)s must be one of %(choices)s.") % {
                "parameter": name,
                "choices": ", ".join(map(str, schema["enum"])),
            }
        return None
    if schema.get("format") == "date":
        try:
            valid = DATE.fullmatch(value) is not None and bool(dt.date.fromisoformat(value))
        except ValueError:
            valid = False
        if not valid:
            return gettext("The query parameter %(parameter)s must be a date, YYYY-MM-DD.") % {
                "parameter": name
            }
        return None
    longest = schema.get("maxLength")
    if longest is not None and len(value) > longest:
        return ngettext(
            "The query parameter %(parameter)s is longer than %(max)s character.",
            "The query parameter %(parameter)s is longer than %(max)s characters.",
            longest,
        ) % {"parameter": name, "max": longest}
    pattern = schema.get("pattern")
    if (pattern is not None and re.search(pattern, value) is None) or (
        not value and schema.get("minLength", 1) > 0
    ):
        return gettext(
            "The query parameter %(parameter)s does not have the form this operation takes "
            "(%(pattern)s)."
        ) % {"parameter": name, "pattern": pattern or ".+"}
    return None


def query_problem(parameter: str, detail: str) -> dict[str, Any]:
    """The 400 problem naming the refused query parameter."""
    return problem(
        400,
        CODE,
        detail,
        parameter=parameter,
        errors=[{"field": parameter, "code": CODE, "detail": detail}],
    )


class QueryParametersMiddleware:
    """Refuse, under ``/api/``, a query parameter the operation does not document or a value
    its schema does not allow (400 ``invalid_query``), before the view runs."""

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
        if not request.path_info.startswith("/api/") or not request.GET:
            return None
        fault = query_fault(request, view_func)
        if fault is None:
            return None
        return problem_response(query_problem(*fault))
