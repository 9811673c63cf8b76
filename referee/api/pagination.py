"""Pages of the API's lists: ``page`` and ``page_size`` within stated bounds, or a 400.

DRF's ``PageNumberPagination`` quietly caps an oversized ``page_size`` and falls back to
the default for a malformed one; here either is a 400 problem (``invalid``, naming the
parameter), and the OpenAPI schema states the same bounds (``minimum``/``maximum``).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from rest_framework import serializers
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request

MAX_PAGE = 2**31 - 1


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
