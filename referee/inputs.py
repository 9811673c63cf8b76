"""What clients send, as both APIs (the referee's ``referee.api`` and the league's
``scoring.api``) and the phone pages (``referee.web``) take it, in one place.

- strict serializers (``StrictSerializer``: unknown fields are 400 ``unknown_field``;
  ``plainly_valid``: a plainly valid body without building the serializer), their
  fields (``WholeNumberField``, ``ReasonField``, a seat as sent: ``SeatField``, a guest's
  name or a registered player's id) and validators (``visible_name``, ``shown_text``);
- ``MAX_ID``: the largest id a path or query takes;
- who is asking (``client_ident``, ``join_client``: as throttles and the join lockout
  count them).

It imports nothing of ``referee.api``: the pages and the league import nothing of it
but the league's API's envelope (import-linter contract ``api-plumbing``).
"""

from __future__ import annotations

import copy
from typing import Any

from django.core.validators import (
    MaxLengthValidator,
    MaxValueValidator,
    MinLengthValidator,
    MinValueValidator,
)
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.fields import empty
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle
from rest_framework.utils.formatting import lazy_format

from referee.engine.names import is_visible_name, reorders_text
from referee.lockouts import JoinClient, device_issued, device_of

MAX_ID = 2**63 - 1
"""The largest id the database holds (``BigAutoField``): ids in paths and queries stay under it."""

__all__ = [
    "MAX_ID",
    "PlainField",
    "SEAT_SCHEMA",
    "SeatField",
    "StrictSerializer",
    "WholeNumberField",
    "client_ident",
    "join_client",
    "ReasonField",
    "shown_text",
    "visible_name",
]


def visible_name(value: str) -> None:
    """A name's validator: no invisible, control or direction-changing character
    (``referee.engine.names``); ``name_invalid``."""
    if not is_visible_name(value):
        raise serializers.ValidationError(
            _("A name may not hold invisible or direction-changing characters."),
            code="name_invalid",
        )


def shown_text(value: str) -> None:
    """A free text's validator (a reason, a note: shown on every phone): no bidirectional
    embedding, override or isolate (``referee.engine.names.reorders_text``);
    ``text_invalid``."""
    if reorders_text(value):
        raise serializers.ValidationError(
            _("A text may not hold characters that change its direction."),
            code="text_invalid",
        )


class ReasonField(serializers.CharField):
    """A reason or a note as typed (at most 200 characters unless told), shown as it is on
    every phone and in the audit trail: refused (``text_invalid``) if it holds a
    direction-changing character (``shown_text``)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", 200)
        super().__init__(**kwargs)
        self.validators.append(shown_text)


# A limit validator's message, by the key of its field's ``error_messages``.
LIMIT_MESSAGES = {
    MaxLengthValidator: "max_length",
    MinLengthValidator: "min_length",
    MaxValueValidator: "max_value",
    MinValueValidator: "min_value",
}


class EachTimeFormat:
    """A limit's message formatted in the active language each time it is read.

    DRF's ``lazy_format`` keeps its first rendering for good: a field shared by every
    request (``StrictSerializer``'s shallow copies) would answer "Ensure this field has
    no more than 32 characters." in English under ``Accept-Language: pl`` after one
    English request (issue 28)."""

    def __init__(self, template: Any, **params: Any) -> None:
        self.template, self.params = template, params

    def __str__(self) -> str:
        return str(self.template).format(**self.params)

    def __mod__(self, params: Any) -> str:  # Django's ValidationError fills its params
        return str(self) % params


def live_limit_messages(field: serializers.Field) -> None:  # type: ignore[type-arg]
    """Give ``field``'s limit validators (DRF's ``max_length``… made with ``lazy_format``)
    a message that follows the active language (``EachTimeFormat``)."""
    for validator in getattr(field, "validators", []):
        key = LIMIT_MESSAGES.get(type(validator))
        template = getattr(field, "error_messages", {}).get(key)
        if key and template is not None and isinstance(validator.message, lazy_format):
            validator.message = EachTimeFormat(template, **{key: validator.limit_value})


class StrictSerializer(serializers.Serializer):  # type: ignore[type-arg]
    """A serializer that refuses fields it does not know (400 ``unknown_field``) and, in a
    JSON body, a value of another JSON type than its field's: ``"name": 0`` or
    ``"is_public": "true"`` is 400 ``invalid`` naming the field, never coerced.

    Its fields are shallow copies of the declared ones: DRF deep-copies each declared
    field for every serializer (re-running its ``__init__`` with deep-copied arguments,
    lazy help texts included), ≈ 40 µs of every move. A declared field is never bound or
    used itself, and a copy shares only what validation reads (its arguments, validators
    and messages); a nested serializer is still deep-copied.
    """

    def get_fields(self) -> dict[str, serializers.Field]:  # type: ignore[type-arg]
        if "_messages_live" not in type(self).__dict__:  # once per class, before any copy
            for field in self._declared_fields.values():  # type: ignore[attr-defined]
                live_limit_messages(field)
            type(self)._messages_live = True  # type: ignore[attr-defined]
        return {
            name: copy.deepcopy(field)
            if isinstance(field, serializers.BaseSerializer)
            else copy.copy(field)
            for name, field in self._declared_fields.items()  # type: ignore[attr-defined]
        }

    @classmethod
    def plainly_valid(cls, data: Any) -> dict[str, Any] | None:
        """``validated_data`` for ``data`` when it is plainly valid, without building the
        serializer; ``None`` when DRF must judge it (``is_valid``).

        Plainly valid: a JSON object whose keys are all fields, with every required field
        present, and each value one its field takes as it is (``accepts_plainly``): what
        DRF would return for it, in the fields' order. Only serializers whose fields all
        say so (no defaults, no other validators, no ``validate_<field>`` nor
        ``validate``) have this path; any other data, valid or not, goes to DRF, which
        gives the same answer or the error. A move's body is checked this way: building
        the serializer and its bound fields was ≈ 8 % of a move's CPU (issue 14)."""
        plan = _PLANS.get(cls, _UNPLANNED)
        if plan is _UNPLANNED:
            plan = _PLANS[cls] = _plan(cls)
        if plan is None or type(data) is not dict:
            return None
        order, required, fields = plan
        if not data.keys() <= fields.keys() or not required <= data.keys():
            return None
        for key, value in data.items():
            if not fields[key].accepts_plainly(value):
                return None
        return {name: data[name] for name in order if name in data}

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError(
                    {key: [_("Unknown field.")] for key in unknown}, code="unknown_field"
                )
            if type(data) is dict:  # a JSON object (a query string's values are all text)
                mistyped = _mistyped_fields(self.fields, data)
                if mistyped:
                    raise serializers.ValidationError(mistyped, code="invalid")
        return super().to_internal_value(data)


# What a JSON body must hold for a DRF field as the OpenAPI schema declares it (issue 31):
# a string field takes no number (DRF's ``CharField`` turns ``0`` into ``"0"``), a boolean
# field neither ``"true"`` nor ``1`` (DRF's ``BooleanField`` takes both). Lists and objects
# are DRF's already (``not_a_list``, ``not_a_dict``); a list's items are checked here too.
_JSON_TYPES: tuple[tuple[type[Any], type[Any]], ...] = (
    (serializers.CharField, str),
    (serializers.BooleanField, bool),
)


def _json_type_fault(field: Any, value: Any) -> str | None:
    """DRF's own ``invalid`` message for ``value`` if it is not of the JSON type ``field``
    declares, else ``None`` (``null`` is left to the field: ``allow_null`` or its error; so
    is any value for a field with ``judges_its_own_type``, which answers with its own code)."""
    if value is None or field.read_only or getattr(field, "judges_its_own_type", False):
        return None
    if isinstance(field, serializers.ListField) and type(value) is list:
        for item in value:
            if (fault := _json_type_fault(field.child, item)) is not None:
                return fault
        return None
    for kind, json_type in _JSON_TYPES:
        if isinstance(field, kind) and type(value) is not json_type:
            return str(field.error_messages["invalid"])
    return None


def _mistyped_fields(fields: Any, data: dict[str, Any]) -> dict[str, list[Any]]:
    """``{name: [error]}`` for each value of ``data`` whose JSON type its field does not take."""
    errors: dict[str, list[Any]] = {}
    for name, value in data.items():
        fault = _json_type_fault(fields[name], value)
        if fault is not None:
            errors[name] = [serializers.ErrorDetail(fault, code="invalid")]
    return errors


_Plan = tuple[list[str], frozenset[str], dict[str, Any]]
_UNPLANNED: Any = object()
_PLANS: dict[type[StrictSerializer], _Plan | None] = {}


def _plan(cls: type[StrictSerializer]) -> _Plan | None:
    """What ``plainly_valid`` checks for ``cls``: its fields' order, the required ones and
    each field; ``None`` if any field or the serializer itself may do more than take a
    value as it is (``PlainField``)."""
    serializer = cls()
    if serializer.validators or cls.validate is not serializers.Serializer.validate:
        return None
    fields = serializer.fields
    for name, field in fields.items():
        if (
            not isinstance(field, PlainField)
            or not field.is_plain()
            or field.read_only
            or field.default is not empty
            or field.source != name
            or getattr(cls, f"validate_{name}", None) is not None
        ):
            return None
    required = frozenset(name for name, field in fields.items() if field.required)
    return list(fields), required, dict(fields)


class PlainField:
    """A field whose whole validation of a present value is ``accepts_plainly`` (the value
    is then its internal value, unchanged): ``StrictSerializer.plainly_valid`` may skip
    DRF for it."""

    def is_plain(self) -> bool:
        """Whether this instance has no validation beyond ``accepts_plainly``."""
        raise NotImplementedError

    def accepts_plainly(self, value: Any) -> bool:
        """Whether DRF would take ``value`` (present in the body) unchanged."""
        raise NotImplementedError


class WholeNumberField(PlainField, serializers.IntegerField):
    """An integer of a request body as JSON writes it: ``3``. DRF's ``IntegerField`` also
    takes ``"3"``, ``3.0`` and ``true``; here they are refused (400 ``invalid``), as every
    other number of the API is (QA: ``"expected_version": "3"`` was taken for 3). Answers
    and query strings keep DRF's ``IntegerField`` (a query string's numbers are text)."""

    def to_internal_value(self, data: Any) -> int:
        if not isinstance(data, int) or isinstance(data, bool):
            self.fail("invalid")
        return int(super().to_internal_value(data))

    def is_plain(self) -> bool:
        bounds = (MinValueValidator, MaxValueValidator)
        return all(type(validator) in bounds for validator in self.validators)

    def accepts_plainly(self, value: Any) -> bool:
        return (
            type(value) is int
            and (self.min_value is None or value >= self.min_value)
            and (self.max_value is None or value <= self.max_value)
        )


def client_ident(request: Request | HttpRequest) -> str:
    """Who is asking, as DRF's throttles tell clients apart: ``REMOTE_ADDR``, or the address
    ``NUM_PROXIES`` proxies back in ``X-Forwarded-For`` (the join lockout counts per ident)."""
    return str(BaseThrottle().get_ident(request) or "")  # type: ignore[arg-type]  # reads META


def join_client(request: Request | HttpRequest) -> JoinClient:
    """Who tries a join code: the client's address (``client_ident``), the device cookie
    it sent (``referee.lockouts``), so one phone's typos lock out that phone only, and
    without one the device id its answer gives it."""
    return JoinClient(
        address=client_ident(request),
        device=device_of(request),  # type: ignore[arg-type]
        issued=device_issued(request),  # type: ignore[arg-type]
    )


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
