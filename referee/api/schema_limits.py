"""What the server accepts, declared where clients and fuzzers read it (issue 31).

A postprocessing hook of drf-spectacular (``declare_input_limits``) writes into every
operation the limits the server enforces before any view runs, so a request the schema
calls valid is not refused at the edge and one it calls invalid is:

- ``If-Match``/``If-None-Match``: ``*`` or a list of entity tags, at most
  ``referee.conditional.MAX_HEADER_LENGTH`` characters (else 400 ``precondition_invalid``),
  or empty (as if not sent);
- a club's ``slug`` in a path: the characters Django's ``slug`` converter matches;
- an integer in a path: 0 to ``MAX_ID`` (Django's ``int`` converter takes no sign), a seat
  0 to 4 (R3), a round's number from 1.
"""

from __future__ import annotations

from typing import Any

from referee.conditional import CONDITIONAL_HEADER_PATTERN, MAX_HEADER_LENGTH
from referee.inputs import MAX_ID

SLUG_PATTERN = r"^[-a-zA-Z0-9_]+$"
CONDITIONAL_HEADERS = ("If-Match", "If-None-Match")
# A seat is 0–4 (R3) and rounds are counted from 1: the views refuse others with 400.
PATH_INTEGER_BOUNDS = {"seats": (0, 4), "rounds": (1, MAX_ID)}
HTTP_METHODS = ("get", "put", "post", "patch", "delete", "head", "options")


def declare_input_limits(result: dict[str, Any], generator: Any, request: Any, public: bool) -> Any:
    """drf-spectacular postprocessing hook: the edge's limits on every operation's
    conditional headers and path parameters (see the module's docstring)."""
    for path, item in result.get("paths", {}).items():
        for method, operation in item.items():
            if method not in HTTP_METHODS:
                continue
            for parameter in operation.get("parameters", []):
                _declare(path, parameter)
    return result


def _declare(path: str, parameter: dict[str, Any]) -> None:
    schema = parameter.setdefault("schema", {})
    where, name = parameter.get("in"), parameter.get("name")
    if where == "header" and name in CONDITIONAL_HEADERS:
        schema.setdefault("pattern", CONDITIONAL_HEADER_PATTERN)
        schema["maxLength"] = min(schema.get("maxLength", MAX_HEADER_LENGTH), MAX_HEADER_LENGTH)
    elif where == "path" and name == "slug" and schema.get("type") == "string":
        schema.setdefault("pattern", SLUG_PATTERN)
    elif where == "path" and schema.get("type") == "integer":
        low, high = 0, MAX_ID
        for segment, bounds in PATH_INTEGER_BOUNDS.items():
            if f"/{segment}/{{{name}}}/" in path:
                low, high = bounds
        schema.setdefault("minimum", low)
        schema.setdefault("maximum", high)


# What no text of a body may hold (``referee.api.parsers``: C0 controls but tab and line
# breaks, DEL, C1; ``referee.inputs.shown_text``: bidirectional embeddings and isolates).
_FORBIDDEN = r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069"
TEXT_PATTERN = rf"^[^{_FORBIDDEN}]*$"
NON_BLANK_TEXT_PATTERN = rf"^[^{_FORBIDDEN}]*[^{_FORBIDDEN}\s][^{_FORBIDDEN}]*$"
"""A text DRF takes when ``allow_blank`` is off: one character at least that is not a
space (``CharField`` trims the rest)."""


def declare_text_limits(serializer: Any, schema: dict[str, Any]) -> None:
    """Each string field of a request body's ``schema`` says what its ``CharField`` refuses:
    ``minLength: 1`` and a non-blank pattern where blanks are refused, and no control or
    direction-changing character (400 ``text_invalid``) where no pattern or enum says more."""
    from rest_framework import serializers

    properties = schema.get("properties", {})
    for name, field in serializer.fields.items():
        prop = properties.get(name)
        if prop is None or field.read_only or not isinstance(field, serializers.CharField):
            continue
        if prop.get("type") != "string" or {"enum", "pattern", "format"} & set(prop):
            continue
        if field.allow_blank:
            prop["pattern"] = TEXT_PATTERN
        else:
            prop["minLength"] = max(prop.get("minLength", 1), 1)
            prop["pattern"] = NON_BLANK_TEXT_PATTERN
