"""The API's JSON renderer: DRF's ``JSONRenderer``, encoding with orjson.

Every answer of a move carries the table's state (≈ 4 KB); DRF's encoder (the
standard library's) took ≈ 40 µs of it, orjson a tenth. The bytes mean the same:
compact, UTF-8 (``UNICODE_JSON``), U+2028/U+2029 escaped as DRF escapes them; what
orjson does not encode itself (``Decimal``, lazy translations, and datetimes, so
that they keep DRF's ``…Z`` spelling) goes through DRF's encoder. An indented
answer (``Accept: application/json; indent=4``) is DRF's own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import orjson
from rest_framework import renderers

_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME
_LINE_SEPARATOR = "\u2028".encode()
_PARAGRAPH_SEPARATOR = "\u2029".encode()
_SEPARATORS_START = _LINE_SEPARATOR[:2]


class JSONRenderer(renderers.JSONRenderer):
    """``application/json``, as DRF's ``JSONRenderer`` renders it, faster."""

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        if data is None:
            return b""
        indented = (
            self.get_indent(accepted_media_type or "", dict(renderer_context or {})) is not None
        )
        if isinstance(data, JSONText):
            if indented:
                data = data.value()
            else:
                return _escape_separators(data.content)
        if indented:
            return super().render(data, accepted_media_type, renderer_context)
        text = dumps(data)
        if text is None:
            # What only the standard library takes (an integer beyond 64 bits, say).
            return super().render(data, accepted_media_type, renderer_context)
        return _escape_separators(text)


class JSONText:
    """An answer already written as the compact JSON this renderer would write for it
    (``dumps``, its parts joined: a long game's result and export, issue 29), but for the
    U+2028/U+2029 escapes, which the renderer adds. ``value`` gives it as Python values,
    for an indented answer (DRF's own)."""

    __slots__ = ("content", "value")

    def __init__(self, content: bytes, value: Callable[[], Any]) -> None:
        self.content = content
        self.value = value


def dumps(value: Any) -> bytes | None:
    """``value`` as this renderer writes it, before the U+2028/U+2029 escapes; ``None``
    for what only the standard library encodes (the renderer then uses DRF's)."""
    try:
        return orjson.dumps(value, default=_ENCODER.default, option=_OPTIONS)
    except orjson.JSONEncodeError:
        return None


def _escape_separators(text: bytes) -> bytes:
    """U+2028/U+2029 escaped as DRF escapes them (JavaScript reads them as line ends)."""
    # Both begin E2 80: one pass over a long answer where none is (issue 29).
    if _SEPARATORS_START in text and (_LINE_SEPARATOR in text or _PARAGRAPH_SEPARATOR in text):
        text = text.replace(_LINE_SEPARATOR, b"\\u2028").replace(_PARAGRAPH_SEPARATOR, b"\\u2029")
    return text


_ENCODER = JSONRenderer.encoder_class()

__all__ = ["JSONRenderer", "JSONText", "dumps"]
