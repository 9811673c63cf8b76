"""Request bodies as they cross the edge: JSON whose every text the database can keep.

PostgreSQL's ``text`` and ``jsonb`` cannot store NUL (U+0000), and a lone
surrogate (``"\\ud800"``, which JSON allows) cannot be encoded as UTF-8 at all;
either used to reach the database or the log and end in a 500. Every key and
string of a body is checked here, before a serializer, the rules core, the
database or the log sees it: 400 ``text_invalid`` (NUL, lone surrogate, a
control character other than tab and newlines) or ``text_too_long`` (over
``MAX_TEXT_LENGTH`` characters, however lenient a field would be), naming
where (``errors[].field``) and never echoing the text. A number too large for a float
(``1e400``) or an integer beyond 64 bits (``1e23`` written out) is refused like the
``NaN``/``Infinity`` literals: 400 ``parse_error``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from typing import Any

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.parsers import JSONParser

# No text of the API is longer: names 80, reasons 200, tiles 16, join codes 32 characters.
MAX_TEXT_LENGTH = 1000
# C0 controls other than tab, newline and carriage return, DEL and the C1 controls.
_FORBIDDEN_CONTROLS = frozenset(
    [chr(c) for c in range(0x20) if chr(c) not in "\t\n\r"]
    + [chr(0x7F)]
    + [chr(c) for c in range(0x80, 0xA0)]
)


class TextInvalid(exceptions.ParseError):
    """400: a text of the request the server will not keep (``text_invalid``)."""

    default_code = "text_invalid"
    default_detail = _("A text of the request cannot be kept: nothing was applied.")


class TextTooLong(exceptions.ParseError):
    """400: a text longer than any field takes (``text_too_long``)."""

    default_code = "text_too_long"
    default_detail = _("A text of the request is too long: nothing was applied.")


def text_fault(text: str) -> str | None:
    """``"text_invalid"``, ``"text_too_long"`` or ``None`` for a text that may cross the edge."""
    if len(text) > MAX_TEXT_LENGTH:
        return "text_too_long"
    if not _FORBIDDEN_CONTROLS.isdisjoint(text):
        return "text_invalid"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate
        return "text_invalid"
    return None


def _texts(value: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], str]]:
    """Every text of a parsed JSON value (object keys included) with where it is."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield path, str(key)
            yield from _texts(item, (*path, str(key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _texts(item, (*path, str(index)))


def check_texts(data: Any) -> None:
    """Raise ``TextInvalid``/``TextTooLong`` for the first text of ``data`` that may not cross
    the edge; the problem names its place (``errors[0].field``), never the text itself."""
    for path, text in _texts(data):
        fault = text_fault(text)
        if fault is None:
            continue
        where = ".".join(_printable(p) for p in path) or None
        if fault == "text_too_long":
            detail = gettext("A text is longer than %(max)s characters.") % {"max": MAX_TEXT_LENGTH}
            raise TextTooLong({where or "non_field_errors": [detail]}, code=fault)
        detail = gettext(
            "A text holds a character the server does not keep (NUL, a control character "
            "or a lone surrogate)."
        )
        raise TextInvalid({where or "non_field_errors": [detail]}, code=fault)


def _printable(part: str) -> str:
    """A path's part as it may be shown: cut short and without the faulty characters."""
    part = part[:40]
    return part if text_fault(part) is None else "?"


# No number of the API is larger (seats, tiles' ends, stones, versions, ids); a JSON
# encoder or a database column may refuse what is (orjson, PostgreSQL's bigint).
_INT64 = range(-(2**63), 2**63)


def _numbers(value: Any) -> Iterator[float | int]:
    """Every number of a parsed JSON value (``bool`` excluded)."""
    if isinstance(value, (float, int)) and not isinstance(value, bool):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _numbers(item)
    elif isinstance(value, list):
        for item in value:
            yield from _numbers(item)


def _out_of_range(number: float | int) -> bool:
    if isinstance(number, int):
        return number not in _INT64
    return not math.isfinite(number)


def check_numbers(data: Any) -> None:
    """Raise ``parse_error`` (400) for a number too large for a float (``1e400`` reads as
    infinity), as DRF does for the ``NaN`` and ``Infinity`` literals, or an integer beyond
    64 bits: no database keeps the first as JSON, the second broke the state's encoding
    (QA), and either would reach the refusal log."""
    if any(_out_of_range(number) for number in _numbers(data)):
        raise _out_of_range_error()


def may_be_refused(data: Any) -> bool:
    """Whether ``check_texts`` or ``check_numbers`` may refuse ``data``: ``False`` when no
    text has a fault (``text_fault``; printable ASCII is looked at in C) and every number
    is in range, found in one pass with no path kept (a record of 600 rounds holds ≈ 300,000
    values: the two checks' walks were a quarter of its import, issue 29); ``True`` sends
    it to them, which say what and where."""
    stack = [data]
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind is str:
            if _text_may_fault(value):
                return True
        elif kind is dict:
            if any(type(key) is not str or _text_may_fault(key) for key in value):
                return True
            stack.extend(value.values())
        elif kind is list:
            stack.extend(value)
        elif kind is int:
            if value not in _INT64:
                return True
        elif kind is float:
            if not math.isfinite(value):
                return True
        elif value is not None and kind is not bool:
            return True  # not what a JSON parser makes: the walks judge it
    return False


def _text_may_fault(text: str) -> bool:
    if text.isascii() and text.isprintable():  # the common case, in C: no control at all
        return len(text) > MAX_TEXT_LENGTH
    return text_fault(text) is not None


def _out_of_range_error() -> exceptions.ParseError:
    return exceptions.ParseError(
        gettext("JSON parse error - a number is out of range: nothing was applied.")
    )


def _invalid_json_error(cause: BaseException | None) -> exceptions.ParseError:
    """``parse_error`` in the request's language: DRF passed on the ``json`` module's English
    message (QA); where the body breaks is kept, what Python thought of it is not."""
    if isinstance(cause, json.JSONDecodeError):
        return exceptions.ParseError(
            gettext(
                "JSON parse error - the body is not valid JSON (line %(line)s, column %(column)s)."
            )
            % {"line": cause.lineno, "column": cause.colno}
        )
    return exceptions.ParseError(gettext("JSON parse error - the body is not valid JSON."))


class CheckedJSONParser(JSONParser):
    """DRF's JSON parser, then ``check_texts`` and ``check_numbers`` on what it parsed."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except exceptions.ParseError as error:
            # An integer of more than 4,300 digits: Python refuses to read it, and DRF passed
            # on its English message naming sys.set_int_max_str_digits (QA). Out of range.
            if "integer string conversion" in str(error.detail):
                raise _out_of_range_error() from None
            raise _invalid_json_error(error.__context__) from None
        if may_be_refused(data):  # else no text or number of it is (a 600-round import)
            check_texts(data)
            check_numbers(data)
        return data
