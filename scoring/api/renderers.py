"""CSV exports through DRF's own renderer mechanism and the standard library's ``csv``.

Why not ``djangorestframework-csv``: its last release (3.0.2) dates from
December 2023, its classifiers stop at Python 3.11, a pull request adding
Django 5 and Python 3.12 to its CI was closed unmerged, and it sorts columns
alphabetically unless told, renders error bodies as CSV rows and does not
guard against spreadsheet formulas. What we need is fifty lines: a fixed
column order, one header row, problems left as JSON, and text cells that a
spreadsheet would run as a formula defused (OWASP's "CSV injection" advice).

Two dialects: ``csv`` is plain RFC 4180 (UTF-8, ``,``, no byte-order mark),
for programs; ``spreadsheet`` is for Excel and LibreOffice as people open a
file: UTF-8 with a byte-order mark (else Excel on Windows reads it as a
legacy code page: "BÃ©sse"), and the list separator and decimal mark of the
reader's language (``;`` and ``3,5`` in French, Polish and Indonesian, where
``,`` is the decimal mark; ``,`` and ``3.5`` in English).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import get_language
from rest_framework.renderers import BaseRenderer

from referee.api.renderers import JSONRenderer

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# A spreadsheet may split a cell's text at any list separator of the reader's locale
# (``,`` or ``;``), or at a tab or a line break, whatever separator the file was written
# with: every piece that would then start like a formula is defused, not the first only
# (``Andi;=cmd|…`` read with ``;`` is ``Andi`` and a formula).
_FORMULA_PIECE = re.compile(r"(^|[,;\t\r\n])( *)(?=[=+\-@\t\r])")
# Text a spreadsheet would turn into a number, a date, a time or a truth value when it
# opens the file (``0042`` → 42, ``2024-01`` → Jan 2024, ``1.10`` → 1.1, ``3/4`` → 3 April,
# ``true`` → TRUE): it starts with a digit, or a sign or decimal mark before one, or it is
# a month's name before a digit, or a truth value.
_LOOKS_CONVERTED = re.compile(
    r"^\s*(?:[-+]?[.,]?\d|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*[ ./-]*\d"
    r"|(?:true|false|vrai|faux|prawda|fałsz|benar|salah)\s*$)",
    re.IGNORECASE,
)
# The characters such a text may carry to be written as a quoted text formula (``="0042"``):
# none separates cells in any locale and none starts a formula inside it.
_TEXT_FORMULA_SAFE = re.compile(r"^[0-9A-Za-zÀ-ÿłŁ .:/_%+\-]*$")
# Languages whose decimal mark is ``,``, so that spreadsheets there separate cells by ``;``.
SEMICOLON_LANGUAGES = frozenset({"fr", "pl", "id"})
# The formats that export every row (no pagination).
EXPORT_FORMATS = frozenset({"csv", "spreadsheet"})


def defuse(text: str) -> str:
    """``text`` with a ``'`` before every piece a spreadsheet would run as a formula."""
    return _FORMULA_PIECE.sub(lambda m: f"{m.group(1)}{m.group(2)}'", text)


def keep_text(text: str) -> str:
    """``text`` as a spreadsheet keeps it: a text that it would read as a number, date, time
    or truth value (``0042``, ``2024-01``, ``1.10``, ``-2``) is written as the text formula
    ``="0042"``, which Excel and LibreOffice show as ``0042``; any other text is defused
    (``defuse``). Only a text of letters, digits, spaces and ``.:/_%+-`` is wrapped, so the
    formula can hold nothing but that text; another one keeps the ``'`` guard."""
    if _LOOKS_CONVERTED.match(text) and _TEXT_FORMULA_SAFE.match(text):
        return f'="{text}"'
    return defuse(text)


def row_keeps_text(row: Mapping[str, Any], columns: Sequence[str]) -> bool:
    """Whether the row's first cell may be written as a text formula (``keep_text``): every
    text in the row is made of the characters ``keep_text`` wraps. A spreadsheet that splits
    the file at another separator than it was written with reads a line's start, and the
    rest of the line up to its own separator, as one cell: a text formula there would take
    that rest in; with no quote, bracket or ``|`` anywhere in the row the rest can only be
    an error, never a function call or a link to another program. Any later cell follows a
    separator that such a spreadsheet does not split at, so it never starts a cell there,
    and a spreadsheet that does split there splits it exactly (the wrapped text holds no
    separator): later cells are wrapped whatever the row holds, and then the first is not
    (their quotes would be in its formula)."""
    values = [row.get(column) for column in columns]
    later_wrapped = any(isinstance(v, str) and keep_text(v) != defuse(v) for v in values[1:])
    # A later text formula written into the line would bring its quotes into the first one.
    return not later_wrapped and all(
        not isinstance(value, str) or _TEXT_FORMULA_SAFE.match(value) for value in values
    )


def _cell(value: Any, *, decimal_comma: bool = False, spreadsheet: bool = False) -> Any:
    """A cell: ``None`` empty, text defused (``defuse``; in a spreadsheet also kept as text,
    ``keep_text``), a fraction with the decimal mark."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return keep_text(value) if spreadsheet else defuse(value)
    if isinstance(value, float) and decimal_comma:
        return repr(value).replace(".", ",")
    return value


class CSVRenderer(BaseRenderer):
    """Rows of dicts (or a page's ``results``) as RFC 4180 CSV with a header row.

    The columns are the view's renderer context ``csv_columns`` (in order),
    else the first row's keys. An error response (status ≥ 400) is rendered
    as the JSON problem it is.
    """

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"
    byte_order_mark = ""
    # Text cells written so that a spreadsheet keeps them as text (``keep_text``).
    keeps_text = False

    def separator(self, renderer_context: Mapping[str, Any]) -> str:
        return ","

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        context = renderer_context or {}
        response = context.get("response")
        if response is not None and response.status_code >= 400:
            return JSONRenderer().render(data, accepted_media_type, dict(context))
        rows: Sequence[Mapping[str, Any]]
        if isinstance(data, Mapping) and "results" in data:
            rows = data["results"]
        elif isinstance(data, Mapping):
            rows = [data]
        else:
            rows = data or []
        columns = list(context.get("csv_columns") or (rows[0].keys() if rows else []))
        separator = self.separator(context)
        buffer = io.StringIO()
        buffer.write(self.byte_order_mark)
        writer = csv.writer(buffer, delimiter=separator, lineterminator="\r\n")
        writer.writerow([defuse(str(column)) for column in columns])
        for row in rows:
            first = self.keeps_text and row_keeps_text(row, columns)
            writer.writerow(
                [
                    _cell(
                        row.get(column),
                        decimal_comma=separator == ";",
                        spreadsheet=self.keeps_text and (index > 0 or first),
                    )
                    for index, column in enumerate(columns)
                ]
            )
        return buffer.getvalue().encode(self.charset)


class SpreadsheetCSVRenderer(CSVRenderer):
    """CSV as a spreadsheet opens it (``?format=spreadsheet``): UTF-8 with a byte-order mark,
    and ``;`` with a decimal comma for the languages that write ``3,5`` (``fr``, ``pl``,
    ``id``), ``,`` otherwise; ``?separator=semicolon`` or ``comma`` chooses instead. Text
    that looks like a number or a date (member numbers ``0042``, ``2024-01``) is written as
    ``="0042"`` so that it stays the text it is (``keep_text``)."""

    format = "spreadsheet"
    byte_order_mark = "\ufeff"
    keeps_text = True

    def separator(self, renderer_context: Mapping[str, Any]) -> str:
        request = renderer_context.get("request")
        chosen = request.query_params.get("separator") if request is not None else None
        if chosen in ("semicolon", "comma"):
            return ";" if chosen == "semicolon" else ","
        language = (get_language() or "en").split("-")[0]
        return ";" if language in SEMICOLON_LANGUAGES else ","
