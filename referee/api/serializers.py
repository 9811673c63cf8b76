"""Request bodies of the live-table API: they check JSON types only.

The rules (seat 0–4, tile spellings, which end, whose turn …) are checked by
the rules core, which reports them with the codes of RECORD.md in R34's
order; a serializer that also checked them would be a second, diverging
referee. Unknown fields are refused.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from scoring.api.fields import SeatField
from scoring.models import Club, Season


class StrictSerializer(serializers.Serializer):  # type: ignore[type-arg]
    """A serializer that refuses fields it does not know."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError(
                    {key: ["Unknown field."] for key in unknown}, code="unknown_field"
                )
        return super().to_internal_value(data)


class VersionedSerializer(StrictSerializer):
    expected_version = serializers.IntegerField(
        required=False,
        min_value=0,
        help_text="The state `version` the client saw; a stale one gets 409 and nothing is "
        "applied. Same as sending `If-Match` with the state's ETag (412).",
    )


class GameCreateSerializer(StrictSerializer):
    players = serializers.ListField(
        child=SeatField(),
        min_length=5,
        max_length=5,
        help_text="Five seats, seat 0 to seat 4, clockwise (R3): each a guest's name or the id "
        "of a registered player of the game's `club`.",
    )
    rules = serializers.JSONField(
        required=False,
        allow_null=True,
        help_text='Rule set (R40): keys override the defaults, e.g. `{"starting_stones": 30}`; '
        "fixed for the game's life.",
    )
    club = serializers.SlugRelatedField(
        slug_field="slug",
        queryset=Club.objects.all(),
        required=False,
        allow_null=True,
        help_text="The club the game counts for (its slug); you must organise it.",
    )
    season = serializers.PrimaryKeyRelatedField(
        queryset=Season.objects.all(),
        required=False,
        allow_null=True,
        help_text="The club's season (id); not an archived one. Implies the club.",
    )


class GameCreatedSerializer(serializers.Serializer):  # type: ignore[type-arg]
    id = serializers.UUIDField()
    join_code = serializers.CharField(help_text="Give it to the table's phones (POST /join/).")
    version = serializers.IntegerField()
    state = serializers.JSONField()


class JoinSerializer(StrictSerializer):
    join_code = serializers.CharField(max_length=32)
    seat = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=0,
        max_value=4,
        help_text="Bind the phone to one seat (0–4); leave out for a scorekeeper of the table.",
    )
    label = serializers.CharField(  # type: ignore[assignment]  # the field, not Field.label
        required=False, allow_blank=True, max_length=80
    )


class JoinedSerializer(serializers.Serializer):  # type: ignore[type-arg]
    token = serializers.CharField(help_text="Send as `Authorization: Table <token>`. Shown once.")
    game = serializers.UUIDField()
    seat = serializers.IntegerField(allow_null=True)


class MoveSerializer(VersionedSerializer):
    seat = serializers.IntegerField(help_text="The seat moving, 0–4 (R3, R8).")
    tile = serializers.CharField(
        required=False,
        max_length=16,
        help_text="A play: the tile, `a-b`, `a|b` or `[a|b]` (R1).",
    )
    on = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="The value of the open end the tile goes on; needed only when it fits two "
        "open ends of different values (R11).",
    )
    # ``pass`` is a Python keyword: the field is declared under another name below.

    def get_fields(self) -> dict[str, serializers.Field]:  # type: ignore[type-arg]
        fields = super().get_fields()
        fields["pass"] = serializers.BooleanField(
            required=False, help_text="`true` for a pass (R9): the seat holds no matching tile."
        )
        return fields


class HandSerializer(VersionedSerializer):
    seat = serializers.IntegerField(help_text="The phone's own seat, 0–4.")
    tiles = serializers.ListField(
        child=serializers.CharField(max_length=16), help_text="Five distinct tiles (R31)."
    )


class RevealSerializer(VersionedSerializer):
    seat = serializers.IntegerField(help_text="The seat revealing, 0–4.")
    tiles = serializers.ListField(
        child=serializers.CharField(max_length=16),
        required=False,
        help_text="The tiles the seat still holds (preferred: they are checked, R33).",
    )
    pips = serializers.IntegerField(
        required=False, help_text="Or the sum of their pips (R18), checked for reachability."
    )


class AmendSerializer(MoveSerializer):
    tiles = serializers.ListField(child=serializers.CharField(max_length=16), required=False)
    pips = serializers.IntegerField(required=False)
    reason = serializers.CharField(required=False, allow_blank=True, max_length=200)


class UndoSerializer(VersionedSerializer):
    reason = serializers.CharField(required=False, allow_blank=True, max_length=200)


EVENT_FIELDS = ("seat", "tile", "on", "pass", "tiles", "pips")


def event_payload(data: dict[str, Any]) -> dict[str, Any]:
    """The event in record form: only the event's own fields, as sent."""
    return {key: data[key] for key in EVENT_FIELDS if key in data}
