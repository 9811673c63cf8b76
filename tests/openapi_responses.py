"""Every API response a test receives, checked against the OpenAPI schema (issue 31).

The schema is generated once per test session, in-process, with drf-spectacular's own
generator (what ``make schema`` writes), and read by openapi-core, a validator this project
does not otherwise use. Its properties are closed: a body field the schema does not name is
an error (``additional_properties_default_policy="forbid"``), as is a ``null`` where the
schema has none, a status or a media type the operation does not declare, a header that does
not match its schema.

``install`` (an autouse fixture of ``tests/conftest.py``) wraps ``django.test.Client.request``,
which DRF's ``APIClient`` also goes through: every response to a path under ``/api/`` that
the schema documents (the schema document and the Swagger page themselves aside) is checked
before the test sees it, success or problem; a response that is not what the schema says
fails the test with the validator's errors. A path or a method the schema does not have (the
catch-all 404, a 405), or a 5xx, has no operation to hold it to: its body is checked
against the ``Problem`` component alone.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from functools import cache
from typing import Any

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.test.client import Client
from jsonschema import Draft202012Validator, ValidationError
from openapi_core import Config, OpenAPI
from openapi_core.contrib.django import DjangoOpenAPIResponse
from openapi_core.datatypes import RequestParameters
from openapi_core.templating.paths.exceptions import OperationNotFound, PathNotFound
from werkzeug.datastructures import Headers, ImmutableMultiDict

API_PREFIX = "/api/"
PROBLEM_CONTENT_TYPE = "application/problem+json"
# The schema document and its Swagger UI describe the API; they are not operations of it.
NOT_OPERATIONS = ("/api/v1/schema/", "/api/v1/docs/")

# How many responses were checked ("problem_only": of those, how many had no documented
# operation and were held to the problem object alone), and how many were refused.
COUNTS: Counter[str] = Counter()


class ResponseNotAsDocumented(AssertionError):
    """A response of the API that its OpenAPI operation does not allow."""


@cache
def document() -> dict[str, Any]:
    """The OpenAPI document, as ``make schema`` would write it (JSON-compatible)."""
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.renderers import OpenApiJsonRenderer

    schema = SchemaGenerator().get_schema(request=None, public=True)
    loaded: dict[str, Any] = json.loads(OpenApiJsonRenderer().render(schema))
    return loaded


def _text(body: bytes, charset: str = "utf-8", **parameters: str) -> str:
    """A text body (the standings' CSV) as the string its schema describes."""
    return body.decode(charset)


@cache
def validator() -> OpenAPI:
    """openapi-core over ``document()``, undeclared properties refused."""
    return OpenAPI.from_dict(
        document(),
        config=Config(
            additional_properties_default_policy="forbid",
            # A problem (RFC 9457) is JSON under its own media type.
            extra_media_type_deserializers={
                "application/problem+json": json.loads,
                "text/csv": _text,
            },
        ),
    )


class _Request:
    """openapi-core's request protocol over a Django request; the path is matched against
    the schema's templates (not Django's route), so a route the schema spells otherwise is
    not silently taken for another."""

    def __init__(self, request: HttpRequest) -> None:
        self.request = request
        try:
            headers = Headers(request.headers.items())
        except ValueError:  # a header the test sent malformed (a newline): not ours to check
            headers = Headers()
        self.parameters = RequestParameters(
            query=ImmutableMultiDict(list(request.GET.lists())),
            header=headers,
            cookie=ImmutableMultiDict(dict(request.COOKIES)),
        )

    @property
    def host_url(self) -> str:
        return f"{self.request.scheme}://{self.request.get_host()}"

    @property
    def path(self) -> str:
        return self.request.path

    @property
    def method(self) -> str:
        return (self.request.method or "").lower()

    @property
    def body(self) -> bytes:
        return b""  # only the response is checked

    @property
    def content_type(self) -> str:
        return str(self.request.META.get("CONTENT_TYPE", ""))


def is_api(path: str) -> bool:
    return path.startswith(API_PREFIX) and not path.startswith(NOT_OPERATIONS)


def check(response: HttpResponse | StreamingHttpResponse) -> None:
    """Raise ``ResponseNotAsDocumented`` unless ``response`` (of the test client, with its
    ``wsgi_request``) is what its operation in the schema allows. A response with no
    documented operation (a path or method the schema does not have) or a 5xx must be a
    ``Problem``."""
    request: HttpRequest = response.wsgi_request  # type: ignore[union-attr]
    if not is_api(request.path):
        return
    errors = list(
        validator().iter_response_errors(_Request(request), DjangoOpenAPIResponse(response))
    )
    if any(isinstance(error, (PathNotFound, OperationNotFound)) for error in errors) or (
        response.status_code >= 500
    ):
        # No operation to hold it to (the catch-all 404, a 405), or a server fault no
        # operation promises: it is still the API's problem object.
        COUNTS["problem_only"] += 1
        try:
            body = json.loads(response.content)
        except ValueError:
            body = None
        errors = [ValidationError(error.message) for error in problem_validator().iter_errors(body)]
        if response["Content-Type"] != PROBLEM_CONTENT_TYPE:
            errors.append(ValidationError(f"not {PROBLEM_CONTENT_TYPE}"))
    if errors:
        COUNTS["refused"] += 1
        raise ResponseNotAsDocumented(describe(request, response, errors))
    COUNTS["checked"] += 1


@cache
def problem_validator() -> Draft202012Validator:
    """The ``Problem`` component of ``document()``, undeclared properties refused."""
    schema = {**document(), "$ref": "#/components/schemas/Problem"}
    schema["components"]["schemas"]["Problem"] = {
        **schema["components"]["schemas"]["Problem"],
        "additionalProperties": False,
    }
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def _leaves(error: Any) -> list[Any]:
    """The innermost schema errors under ``error`` (a ``oneOf``'s branches' reasons)."""
    if not getattr(error, "context", None):
        return [error]
    return [leaf for sub in error.context for leaf in _leaves(sub)]


def describe(request: HttpRequest, response: Any, errors: list[Exception]) -> str:
    lines = [f"{request.method} {request.get_full_path()} -> {response.status_code}:"]
    for error in errors:
        lines.append(f"  {type(error).__name__}: {str(error)[:200]}")
        cause = error.__cause__ or error
        for schema_error in getattr(cause, "schema_errors", ()) or ():
            for leaf in _leaves(schema_error):
                where = "/".join(str(part) for part in leaf.absolute_path)
                lines.append(f"    at /{where}: {leaf.message[:300]}")
    body = b"(stream)" if response.streaming else response.content[:800]
    lines.append(f"  body: {body!r}")
    return "\n".join(lines)


def checking(request: Callable[..., Any]) -> Callable[..., Any]:
    """``Client.request`` that checks every API response before returning it."""

    def checked(self: Client, **kwargs: Any) -> Any:
        response = request(self, **kwargs)
        check(response)
        return response

    checked.__wrapped__ = request  # type: ignore[attr-defined]
    return checked
