"""A game seat as the API takes it: a guest's name or a registered player's id."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

SEAT_SCHEMA = {
    "oneOf": [
        {"type": "string", "maxLength": 80, "description": "A guest's name.", "example": "Evi"},
        {
            "type": "integer",
            "minimum": 1,
            "description": "A registered player's id (a player of the game's club).",
            "example": 17,
        },
        {
            "type": "object",
            "required": ["player"],
            "additionalProperties": False,
            "properties": {"player": {"type": "integer", "minimum": 1}},
            "description": 'The same, spelled out: `{"player": 17}`.',
        },
    ]
}


@extend_schema_field(SEAT_SCHEMA)
class SeatField(serializers.Field):  # type: ignore[type-arg]
    """A name (``str``, a guest) or a player id (``int`` or ``{"player": id}``) → str | int."""

    default_error_messages = {
        "invalid": "A seat is a guest's name or a registered player's id.",
        "blank": "A name may not be blank.",
    }

    def to_internal_value(self, data: Any) -> str | int:
        if isinstance(data, dict) and set(data) == {"player"}:
            data = data["player"]
            if not isinstance(data, int) or isinstance(data, bool):
                self.fail("invalid")
        if isinstance(data, bool):
            self.fail("invalid")
        if isinstance(data, int):
            if data < 1:
                self.fail("invalid")
            return data
        if isinstance(data, str):
            name = data.strip()
            if not name:
                self.fail("blank")
            return name  # its length is R3's (``game_create``: record_invalid), as in an import
        self.fail("invalid")
        raise AssertionError  # pragma: no cover - ``fail`` raises

    def to_representation(self, value: Any) -> Any:
        return value
