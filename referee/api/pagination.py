"""Pages of the API's lists: ``page`` and ``page_size`` within stated bounds, or a 400;
a list that grows while it is read pages by cursor (``BoundedCursorPagination``).

DRF's ``PageNumberPagination`` quietly caps an oversized ``page_size`` and falls back to
the default for a malformed one; here either is a 400 problem (``invalid``, naming the
parameter), and the OpenAPI schema states the same bounds (``minimum``/``maximum``).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.translation import gettext
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.pagination import CursorPagination, PageNumberPagination
from rest_framework.request import Request

MAX_PAGE = 2**31 - 1
# A cursor names an offset, a direction and one position (a time): far less than this.
CURSOR_MAX_LENGTH = 400


class BoundedPageNumberPagination(PageNumberPagination):
    """``?page=1..MAX_PAGE&page_size=1..max_page_size`` (default ``page_size``: 50)."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500

    def get_page_size(self, request: Request) -> int:
        return self._bounded(request, self.page_size_query_param, self.max_page_size) or int(
            self.page_size
        )

    def paginate_queryset(self, queryset: Any, request: Request, view: Any = None) -> Any:
        self._bounded(request, self.page_query_param, MAX_PAGE)
        return super().paginate_queryset(queryset, request, view)

    @staticmethod
    def _bounded(request: Request, name: str, maximum: int) -> int | None:
        """The query parameter ``name`` as a whole number 1..maximum, ``None`` if absent or
        blank; else a 400 naming it."""
        raw = request.query_params.get(name, "").strip()
        if not raw:
            return None
        if not (raw.isascii() and raw.isdigit()) or len(raw) > 12 or not 1 <= int(raw) <= maximum:
            raise serializers.ValidationError(
                {name: [gettext("A whole number from 1 to %(maximum)s.") % {"maximum": maximum}]},
                code="invalid",
            )
        return int(raw)

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters: list[dict[str, Any]] = super().get_schema_operation_parameters(view)
        bounds = {self.page_query_param: MAX_PAGE, self.page_size_query_param: self.max_page_size}
        for parameter in parameters:
            if parameter["name"] in bounds:
                parameter["schema"] = {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": bounds[parameter["name"]],
                }
        return parameters


class BoundedCursorPagination(CursorPagination):
    """Pages that hold still while the list grows: ``?cursor=…&page_size=1..max_page_size``
    (default ``page_size``: 50), answered as ``{next, previous, results}``.

    For a list that grows while it is read (a player's history, a list of games): a page
    number counts rows from the newest, so one more row at the front moves every row one
    place on and a reader's next page repeats one; a cursor names the last row read (its
    position in ``ordering``, whose first field is nearly unique and never changes for
    a row), so the next page starts after it whatever was added. Follow ``next`` and
    ``previous`` as given (opaque). A malformed or foreign cursor is a 400 problem
    (``invalid``, naming ``cursor``), as an out-of-range ``page_size`` is.
    """

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500

    def get_page_size(self, request: Request) -> int:
        return BoundedPageNumberPagination._bounded(
            request, self.page_size_query_param, self.max_page_size
        ) or int(self.page_size)

    def decode_cursor(self, request: Request) -> Any:
        try:
            return super().decode_cursor(request)
        except NotFound:
            raise self._invalid() from None

    def paginate_queryset(self, queryset: Any, request: Request, view: Any = None) -> Any:
        try:
            return super().paginate_queryset(queryset, request, view)
        except (DjangoValidationError, ValueError, TypeError, OverflowError):
            # A cursor whose position is no value of the ordering's field (made by hand).
            raise self._invalid() from None

    def _invalid(self) -> serializers.ValidationError:
        return serializers.ValidationError(
            {self.cursor_query_param: [gettext("Not a cursor this list gave.")]},
            code="invalid",
        )

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters: list[dict[str, Any]] = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"] = {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": self.max_page_size,
                }
            elif parameter["name"] == self.cursor_query_param:
                parameter["schema"] = {
                    "type": "string",
                    "maxLength": CURSOR_MAX_LENGTH,
                    "pattern": "^[A-Za-z0-9+/=]+$",  # base64, as DRF encodes it
                }
                parameter["description"] = (
                    "Where the page starts: the cursor of a `next` or `previous` link (opaque)."
                )
        return parameters
