"""Query filters of the league API (django-filter) and the standings' sort order."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import django_filters  # type: ignore[import-untyped]
from django.db.models import Exists, OuterRef
from django_filters.rest_framework import DjangoFilterBackend  # type: ignore[import-untyped]
from rest_framework.filters import OrderingFilter
from rest_framework.request import Request

from referee.models import RoundVerification
from scoring import zones
from scoring.models import SeatRound
from scoring.selectors import STANDING_COLUMNS


class PlayedBetweenFilter(django_filters.FilterSet):
    """Rounds settled from ``played_after`` to ``played_before``: dates, both included, the
    club's local dates (``zone``, ``scoring.zones``): ``played_before=2026-12-04`` in
    Makassar keeps a round settled at 23:30 local that Friday (15:30 UTC), and
    ``played_after`` the same day does not lose it. Without ``zone``: the server's."""

    played_after = django_filters.DateFilter(
        field_name="played_at",
        method="filter_played_after",
        label="Only rounds settled on or after this date (YYYY-MM-DD): the club's local date, "
        "in its `time_zone`.",
    )
    played_before = django_filters.DateFilter(
        field_name="played_at",
        method="filter_played_before",
        label="Only rounds settled on or before this date (YYYY-MM-DD): the club's local "
        "date, in its `time_zone`.",
    )

    class Meta:
        model = SeatRound
        fields = ["played_after", "played_before"]

    def __init__(self, *args: Any, zone: dt.tzinfo | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.zone = zone if zone is not None else zones.zone(None)

    def filter_played_after(self, queryset: Any, name: str, value: dt.date) -> Any:
        """From the local midnight that begins ``value`` (one range on ``played_at``)."""
        return queryset.filter(played_at__gte=zones.day_start(value, self.zone))

    def filter_played_before(self, queryset: Any, name: str, value: dt.date) -> Any:
        """Before the local midnight that ends ``value``."""
        return queryset.filter(played_at__lt=zones.day_end(value, self.zone))


class ClubDatesFilterBackend(DjangoFilterBackend):  # type: ignore[misc]
    """django-filter's backend whose dates are those of the view's club
    (``view.get_club().time_zone``): ``played_after``/``played_before`` are local dates."""

    def get_filterset_kwargs(self, request: Request, queryset: Any, view: Any) -> Any:
        kwargs = super().get_filterset_kwargs(request, queryset, view)
        get_club = getattr(view, "get_club", None)
        if get_club is not None:
            kwargs["zone"] = zones.zone(get_club().time_zone)
        return kwargs


class RowsFilterBackend(ClubDatesFilterBackend):
    """The club's dates for a view whose queryset is seat-rounds or, when no filter is
    asked for, stored totals (``PlayerTotals``): these it leaves as they are."""

    def filter_queryset(self, request: Request, queryset: Any, view: Any) -> Any:
        if queryset.model is not SeatRound:
            return queryset
        return super().filter_queryset(request, queryset, view)


class StandingsFilter(PlayedBetweenFilter):
    """The standings' rounds by date and, with ``verified``, by their verification at the
    table (issue 11): ``true`` counts only rounds confirmed by a second seat or resolved by
    the organiser; ``false`` only the others (unverified or disputed)."""

    verified = django_filters.ChoiceFilter(
        choices=[("true", "true"), ("false", "false")],
        method="filter_verified",
        label="true: only rounds confirmed at the table or resolved by the organiser; "
        "false: only rounds not verified (unverified or disputed). Absent: every round.",
    )

    class Meta:
        model = SeatRound
        fields = ["played_after", "played_before", "verified"]

    def filter_verified(self, queryset: Any, name: str, value: str) -> Any:
        if value not in {"true", "false"}:
            return queryset
        verified = Exists(
            RoundVerification.objects.filter(
                game=OuterRef("game"),
                round_number=OuterRef("round_number"),
                status__in=[
                    RoundVerification.Status.CONFIRMED,
                    RoundVerification.Status.RESOLVED,
                ],
            )
        )
        return queryset.filter(verified) if value == "true" else queryset.filter(~verified)


class StableOrderingFilter(OrderingFilter):
    """``?ordering=-rounds_won,average_stones``; ties always broken by player id (stable pages)."""

    tie_breaker = "player"
    ordering_description = (
        "Columns to sort by, comma-separated, `-` for descending, e.g. "
        "`-camat_elected,average_stones`. Default: `-camat_elected,-rounds_won,average_stones,"
        "display_name`."
    )

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        """``ordering`` with the pattern of the view's columns: anything else is a 400
        (``invalid_query``, ``referee.api.query``), never silently ignored."""
        parameters: list[dict[str, Any]] = super().get_schema_operation_parameters(view)
        columns = "|".join(
            re.escape(column) for column in getattr(view, "ordering_fields", None) or ()
        )
        for parameter in parameters:
            if parameter["name"] == self.ordering_param and columns:
                parameter["schema"] = {
                    "type": "string",
                    "pattern": f"^-?({columns})(,-?({columns}))*$",
                    "maxLength": 500,
                }
        return parameters

    def get_ordering(self, request: Request, queryset: Any, view: Any) -> list[str]:
        ordering = list(super().get_ordering(request, queryset, view) or [])
        if self.tie_breaker not in {field.lstrip("-") for field in ordering}:
            ordering.append(self.tie_breaker)
        return ordering


STANDINGS_ORDERING_FIELDS = [column for column in STANDING_COLUMNS if column != "member_number"]
STANDINGS_DEFAULT_ORDERING = ["-camat_elected", "-rounds_won", "average_stones", "display_name"]
