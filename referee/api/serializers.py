"""Request bodies of the live-table API.

An event's own fields (``seat``, ``tile``, ``on``, ``pass``, ``tiles``,
``pips``) reach the rules core exactly as the JSON had them (``AsSent``): the
core checks them as it checks a record's (seat 0–4, tile spellings, which end,
whose turn …) and reports them with the codes of RECORD.md in R34's order. A
serializer that also checked or coerced them (``"seat": "2"`` → 2) would be a
second, diverging referee. The request's other fields (``expected_version``,
``reason``, ``join_code``, ``label``…) are DRF's. Unknown fields are refused.
"""

from __future__ import annotations

import copy
from typing import Any

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.fields import empty

from referee.api.schema import (
    PIP_SUM,
    PIPS,
    SEAT,
    SEAT_KEY,
    GameStateDocument,
    GameStatusField,
    ref,
)
from referee.engine.strategies import STRATEGIES
from referee.inputs import (
    SEAT_SCHEMA,
    PlainField,
    ReasonField,
    SeatField,
    StrictSerializer,
    WholeNumberField,
    visible_name,
)
from referee.league import league


class AsSent(PlainField, serializers.Field):  # type: ignore[type-arg]
    """An event's field, passed on exactly as sent (``null`` included) for the rules core
    to judge; only its absence is DRF's (``required``). Each subclass documents the type
    the core expects."""

    def is_plain(self) -> bool:
        return not self.validators

    def accepts_plainly(self, value: Any) -> bool:
        return True

    def validate_empty_values(self, data: Any) -> tuple[bool, Any]:
        if data is empty:
            return super().validate_empty_values(data)
        return False, data

    def to_internal_value(self, data: Any) -> Any:
        return data

    def to_representation(self, value: Any) -> Any:
        return value


@extend_schema_field({"type": "integer"})
class IntegerAsSent(AsSent):
    """A whole number (a seat, an end's value, a pip sum)."""


@extend_schema_field(SEAT)
class SeatAsSent(IntegerAsSent):
    """A seat, 0–4 (R3); the rules core refuses any other (400 ``record_invalid``)."""


@extend_schema_field({**PIPS, "nullable": True})
class EndAsSent(IntegerAsSent):
    """An open end's value, 0–6 (R11)."""


@extend_schema_field(PIP_SUM)
class PipSumAsSent(IntegerAsSent):
    """A seat's remaining pip sum (R18)."""


@extend_schema_field({"type": "boolean"})
class BooleanAsSent(AsSent):
    """``true`` (a pass)."""


@extend_schema_field(ref("Tile"))
class TileAsSent(AsSent):
    """A tile, ``a-b``, ``a|b`` or ``[a|b]`` (R1)."""


@extend_schema_field({"type": "array", "items": ref("Tile"), "maxItems": 5})
class TilesAsSent(AsSent):
    """A list of tiles."""


@extend_schema_field({"type": "array", "minItems": 5, "maxItems": 5, "items": SEAT_SCHEMA})
class PlayersAsSent(AsSent):
    """Five seats, seat 0 to 4, as sent: their number and blank or malformed names are the
    rules core's to judge (``record_invalid``, R3), exactly as in an imported record."""


class VersionedSerializer(StrictSerializer):
    expected_version = WholeNumberField(
        required=False,
        min_value=0,
        help_text="The state `version` the client saw; a stale one gets 409 and nothing is "
        "applied. Same as sending `If-Match` with the state's ETag (412).",
    )


@extend_schema_field(ref("RuleSet", nullable=True))
class RuleSetField(serializers.JSONField):
    """A rule set (R40), checked by the rules core (``RuleSet.from_dict``)."""


@extend_schema_field(
    {
        "type": "object",
        "propertyNames": SEAT_KEY,
        "additionalProperties": ref("Strategy"),
    }
)
class ComputerSeatsField(serializers.DictField):
    """Computer seats (R39): a seat (``"0"``–``"4"``) → its strategy's name."""


class GameCreateSerializer(StrictSerializer):
    """A new game: its five seats, and optionally its rule set and league."""

    players = PlayersAsSent(
        help_text="Five seats, seat 0 to seat 4, clockwise (R3): each a guest's name or the id "
        "of a registered player of the game's `club`. Not five, or a blank name: 400 "
        "`record_invalid` (R3), as in an imported record.",
    )
    rules = RuleSetField(
        required=False,
        allow_null=True,
        help_text='Rule set (R40): keys override the defaults, e.g. `{"starting_stones": 30}`; '
        "fixed for the game's life.",
    )
    allow_seated_elsewhere = serializers.BooleanField(
        default=False,
        help_text="Seat club players who sit in another open game (else 409 "
        "`player_seated_elsewhere` naming it, R38).",
    )
    computer = ComputerSeatsField(
        child=serializers.ChoiceField(choices=sorted(STRATEGIES)),
        required=False,
        help_text='Computer seats (R39): seat ("0"–"4") → strategy, e.g. `{"3": "strong"}`. '
        "The organiser enters each round's hand of such a seat; the referee plays it.",
    )

    def get_fields(self) -> dict[str, Any]:
        """The declared fields, and after ``rules`` the registered league's (``club``,
        ``season``: ``referee.league``), passed to ``game_create`` by name."""
        fields: dict[str, Any] = {}
        for name, field in super().get_fields().items():
            fields[name] = field
            if name == "rules":
                fields.update(league().create_fields())
        return fields

    def validate_computer(self, value: dict[str, str]) -> dict[int, str]:
        if any(key not in {"0", "1", "2", "3", "4"} for key in value):
            raise serializers.ValidationError(_('Seats are "0" to "4" (R3).'))
        return {int(key): name for key, name in value.items()}


class GameCreatedSerializer(serializers.Serializer):  # type: ignore[type-arg]
    id = serializers.UUIDField()
    join_code = serializers.CharField(help_text="Give it to the table's phones (POST /join/).")
    version = serializers.IntegerField(min_value=0, help_text="The state's version (its ETag).")
    state = GameStateDocument()


class GameListItemSerializer(serializers.Serializer):  # type: ignore[type-arg]
    """A game in the list of your games; its state is `GET /games/{id}/`."""

    id = serializers.UUIDField()
    status = GameStatusField()
    created_at = serializers.DateTimeField()
    closed_at = serializers.DateTimeField(allow_null=True)
    players = serializers.ListField(
        child=serializers.CharField(),
        source="players_now",
        help_text="Who sits each seat now, seat 0 to seat 4 (R3): a re-seated name, or the "
        "latest substitute (R38).",
    )
    version = serializers.IntegerField(help_text="The state's version (its ETag).")

    def get_fields(self) -> dict[str, Any]:
        """The declared fields, and after ``players`` the registered league's (``club``,
        ``season``: ``referee.league.League.list_fields``)."""
        fields: dict[str, Any] = {}
        for name, field in super().get_fields().items():
            fields[name] = field
            if name == "players":
                fields.update(league().list_fields())
        return fields


class JoinSerializer(StrictSerializer):
    """The table's join code, and the seat this phone enters for (none: the scorekeeper)."""

    join_code = serializers.CharField(max_length=32)
    seat = WholeNumberField(
        required=False,
        allow_null=True,
        min_value=0,
        max_value=4,
        help_text="Bind the phone to one seat (0–4); leave out for a scorekeeper of the table.",
    )
    label = serializers.CharField(  # type: ignore[assignment]  # the field, not Field.label
        required=False, allow_blank=True, max_length=80, validators=[visible_name]
    )


class TableTokenSerializer(serializers.Serializer):  # type: ignore[type-arg]
    """A table token of the game, as its organiser sees it (never its key)."""

    id = serializers.IntegerField()
    seat = serializers.IntegerField(
        allow_null=True, help_text="The seat it claimed (0–4), or null for a scorekeeper."
    )
    label = serializers.CharField()  # type: ignore[assignment]
    created_at = serializers.DateTimeField()
    revoked_at = serializers.DateTimeField(
        allow_null=True, help_text="When it was revoked, released or left; null while live."
    )


@extend_schema_field(
    {"anyOf": [{"type": "string", "format": "ipv4"}, {"type": "string", "format": "ipv6"}]}
)
class AddressField(serializers.IPAddressField):
    """An IPv4 or IPv6 address as given (no space trimmed), declared as the formats
    ``ipv4``/``ipv6``; anything else is a 400 ``invalid`` naming the field."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(**kwargs)


class LockoutLiftSerializer(StrictSerializer):
    address = AddressField(
        required=False,
        help_text="The address whose join lockouts to lift; your own when left out (staff "
        "may name any).",
    )


class LockoutLiftedSerializer(serializers.Serializer):  # type: ignore[type-arg]
    address = serializers.IPAddressField(help_text="The address whose lockouts were lifted.")
    lifted = serializers.BooleanField(help_text="Always `true`.")


class JoinedSerializer(serializers.Serializer):  # type: ignore[type-arg]
    token = serializers.CharField(help_text="Send as `Authorization: Table <token>`. Shown once.")
    game = serializers.UUIDField()
    seat = serializers.IntegerField(
        allow_null=True,
        min_value=0,
        max_value=4,
        help_text="The phone's seat; `null`: the table's scorekeeper.",
    )


class MoveSerializer(VersionedSerializer):
    """A play `{seat, tile, on?}` or a pass `{seat, pass: true}`, as in a record."""

    seat = SeatAsSent(help_text="The seat moving, 0–4 (R3, R8).")
    tile = TileAsSent(
        required=False,
        help_text="A play: the tile, `a-b`, `a|b` or `[a|b]` (R1).",
    )
    on = EndAsSent(
        required=False,
        allow_null=True,
        help_text="The value of the open end the tile goes on; needed only when it fits two "
        "open ends of different values (R11).",
    )
    # ``pass`` is a Python keyword: the field is declared under another name below.

    def get_fields(self) -> dict[str, serializers.Field]:  # type: ignore[type-arg]
        fields = super().get_fields()
        fields["pass"] = copy.copy(_PASS)  # as ``StrictSerializer`` copies declared fields
        return fields


_PASS = BooleanAsSent(
    required=False, help_text="`true` for a pass (R9): the seat holds no matching tile."
)


class HandSerializer(VersionedSerializer):
    """A seat's five tiles, declared by the phone joined to that seat (R31)."""

    seat = SeatAsSent(help_text="The phone's own seat, 0–4.")
    tiles = TilesAsSent(help_text="Five distinct tiles (R31).")


class RevealSerializer(VersionedSerializer):
    """At a blocked round (R18): a seat's remaining tiles, or their pip sum."""

    seat = SeatAsSent(help_text="The seat revealing, 0–4.")
    tiles = TilesAsSent(
        required=False,
        help_text="The tiles the seat still holds (preferred: they are checked, R33).",
    )
    pips = PipSumAsSent(
        required=False, help_text="Or the sum of their pips (R18), checked for reachability."
    )


class AmendSerializer(MoveSerializer):
    """The event's new fields (same kind as the event it replaces) and why."""

    tiles = TilesAsSent(required=False)
    pips = PipSumAsSent(required=False)
    reason = ReasonField(required=False, allow_blank=True, max_length=200)


class UndoSerializer(VersionedSerializer):
    """Why the last event is undone (kept in the audit trail)."""

    reason = ReasonField(required=False, allow_blank=True, max_length=200)


EVENT_FIELDS = ("seat", "tile", "on", "pass", "tiles", "pips")


def event_payload(data: dict[str, Any]) -> dict[str, Any]:
    """The event in record form: only the event's own fields, as sent."""
    return {key: data[key] for key in EVENT_FIELDS if key in data}


# -- corrections of any round and the organiser's rulings (R35–R38) ------------------------


@extend_schema_field(ref("TransferSource"))
class HolderField(serializers.JSONField):
    """``"table"`` or a seat 0–4, passed to the rules as sent (R36 judges it)."""


@extend_schema_field(ref("Record"))
class RecordField(serializers.JSONField):
    """A ``domeng-record/1`` record, passed to the rules as sent."""


@extend_schema_field(ref("EventPayload"))
class EventFieldsField(serializers.JSONField):
    """An event's fields in record form, passed to the rules as sent."""


class CorrectionChangeSerializer(StrictSerializer):
    op = serializers.ChoiceField(
        choices=["amend", "insert", "remove"],
        help_text="`amend` the event at `position`, `remove` it, or `insert` a new one before "
        "it (`position` `null`: after the last event).",
    )
    position = WholeNumberField(
        required=False,
        allow_null=True,
        min_value=0,
        help_text="A live event's position as `GET …/events/` shows it, before this correction.",
    )
    kind = serializers.ChoiceField(
        choices=["move", "hand", "reveal", "void", "adjustment", "substitute"],
        required=False,
        help_text="`insert` only: the new event's kind. A declared hand is inserted only for "
        "a computer seat, whose hand the organiser enters (R39); a person's is its own "
        "phone's to declare (403 `seat_not_allowed`, R31).",
    )
    event = EventFieldsField(
        required=False,
        help_text="`amend`/`insert`: the event's fields in record form, passed to the rules as "
        'sent, e.g. `{"seat": 3, "tile": "4-6"}` or `{"seat": 2, "pass": true}`.',
    )
    round = WholeNumberField(
        required=False,
        allow_null=True,
        min_value=1,
        help_text="`insert` only: the round it belongs to (default: that of the event it "
        "precedes).",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        op = attrs["op"]
        if op != "insert" and attrs.get("position") is None:
            raise serializers.ValidationError({"position": [_("Required to amend or remove.")]})
        if op != "remove" and not isinstance(attrs.get("event"), dict):
            raise serializers.ValidationError({"event": [_("An object: the event's fields.")]})
        if op == "insert" and "kind" not in attrs:
            raise serializers.ValidationError({"kind": [_("Required to insert.")]})
        return attrs


class CorrectionRequestSerializer(VersionedSerializer):
    changes = serializers.ListField(
        child=CorrectionChangeSerializer(),
        min_length=1,
        max_length=2000,
        help_text="Applied in order, judged together as one correction (R37).",
    )
    reason = ReasonField(required=False, allow_blank=True, max_length=200)


class VoidSerializer(VersionedSerializer):
    reason = ReasonField(
        allow_blank=True,
        max_length=200,
        trim_whitespace=False,
        help_text="Why the round is voided (R35); an empty one is `ruling_invalid`.",
    )


class AdjustmentSerializer(VersionedSerializer):
    to = HolderField(help_text='`"table"` or a seat 0–4 (R36).')
    stones = IntegerAsSent(help_text="A whole number ≥ 1 that the giver holds (R36).")
    reason = ReasonField(
        allow_blank=True,
        max_length=200,
        trim_whitespace=False,
        help_text="Why (R36); an empty one is `ruling_invalid`.",
    )

    def get_fields(self) -> dict[str, serializers.Field]:  # type: ignore[type-arg]
        fields = super().get_fields()
        fields["from"] = HolderField(help_text='`"table"` or a seat 0–4 (R36).')
        return fields


class SeatOccupantSerializer(StrictSerializer):
    name = serializers.CharField(
        required=False, max_length=80, help_text="A guest's name (one of `name`, `player`)."
    )
    player = WholeNumberField(
        required=False, min_value=1, help_text="A registered player of the game's club (id)."
    )
    allow_seated_elsewhere = serializers.BooleanField(
        default=False,
        help_text="Seat a club player who sits in another open game (else 409 "
        "`player_seated_elsewhere`).",
    )
    reason = ReasonField(required=False, allow_blank=True, max_length=200)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("name" in attrs) == ("player" in attrs):
            raise serializers.ValidationError(_("Give exactly one of `name` and `player`."))
        return attrs


class SubstituteSerializer(SeatOccupantSerializer, VersionedSerializer):
    from_round = WholeNumberField(
        required=False,
        allow_null=True,
        min_value=1,
        help_text="The first round the substitute sits (default: the round in play, else the "
        "next).",
    )


class RecordReplaceSerializer(StrictSerializer):
    record = RecordField(help_text="The corrected `domeng-record/1` of this game.")
    reason = ReasonField(required=False, allow_blank=True, max_length=200)


class ImportSerializer(StrictSerializer):
    record = RecordField(help_text="The `domeng-record/1` record.")
    players = serializers.ListField(
        child=SeatField(),
        min_length=5,
        max_length=5,
        required=False,
        help_text="Replaces the record's names: guests' names or the club's player ids.",
    )
    played_at = serializers.DateTimeField(
        required=False, help_text="When the game was played: its rounds' date in the league."
    )
