"""CSV exports through DRF's own renderer mechanism and the standard library's ``csv``.

Why not ``djangorestframework-csv``: its last release (3.0.2) dates from
December 2023, its classifiers stop at Python 3.11, a pull request adding
Django 5 and Python 3.12 to its CI was closed unmerged, and it sorts columns
alphabetically unless told, renders error bodies as CSV rows and does not
guard against spreadsheet formulas. What we need is fifty lines: a fixed
column order, one header row, problems left as JSON, and text cells that a
spreadsheet would run as a formula defused (OWASP's "CSV injection" advice).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from typing import Any

from rest_framework.renderers import BaseRenderer, JSONRenderer

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: Any) -> Any:
    """A cell: ``None`` empty, text that starts like a formula prefixed with ``'``."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
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
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\r\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow([_cell(row.get(column)) for column in columns])
        return buffer.getvalue().encode(self.charset)
