"""A JSON body's values are taken as the schema types them, never coerced (issue 31).

Every request serializer (``StrictSerializer``) of both APIs refuses a number where a
string is declared (``"name": 0``) and a string or number where a boolean is (``"true"``,
``1``): 400 ``invalid`` naming the field. DRF alone would take ``0`` as ``"0"``.
"""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework import serializers

# Every module of request serializers (each subclasses StrictSerializer).
import referee.api.computer  # noqa: F401
import referee.api.serializers  # noqa: F401
import referee.api.verification  # noqa: F401
import scoring.api.serializers  # noqa: F401
from referee.inputs import StrictSerializer


def _subclasses(cls: type) -> list[type]:
    found = []
    for sub in cls.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return sorted(set(found), key=lambda c: f"{c.__module__}.{c.__qualname__}")


WRONG_VALUES: list[tuple[type[Any], list[Any]]] = [
    (serializers.CharField, [0, 1.5, True]),
    (serializers.BooleanField, ["true", 1, 0, "1"]),
]


def _cases() -> list[Any]:
    cases = []
    for serializer_class in _subclasses(StrictSerializer):
        for name, field in serializer_class().fields.items():
            if field.read_only or getattr(field, "judges_its_own_type", False):
                continue  # the latter answer a wrong type with their own code
            for kind, values in WRONG_VALUES:
                if isinstance(field, kind):
                    label = f"{serializer_class.__qualname__}.{name}"
                    cases += [
                        pytest.param(serializer_class, name, v, id=f"{label}={v!r}") for v in values
                    ]
    return cases


CASES = _cases()


def test_every_kind_of_mistyped_field_is_covered():
    """Strings and booleans of several serializers, both APIs: the cases are not empty."""
    modules = {case.values[0].__module__ for case in CASES}
    assert {"referee.api.serializers", "scoring.api.serializers"} <= modules
    assert any(isinstance(case.values[2], str) for case in CASES)  # a boolean field exists


@pytest.mark.parametrize(("serializer_class", "name", "value"), CASES)
def test_a_value_of_another_json_type_is_refused_not_coerced(serializer_class, name, value):
    serializer = serializer_class(data={name: value})
    assert not serializer.is_valid()
    assert [error.code for error in serializer.errors[name]] == ["invalid"]


def test_a_query_dict_keeps_drf_reading_of_text():
    """Only a JSON object is typed: form and query values are text by nature."""
    from django.http import QueryDict

    from scoring.api.serializers import ClubUpdateSerializer

    serializer = ClubUpdateSerializer(data=QueryDict("is_public=true"))
    assert serializer.is_valid(), serializer.errors
    assert serializer.validated_data == {"is_public": True}


def test_a_list_of_strings_refuses_a_number_item():
    class Names(StrictSerializer):
        names = serializers.ListField(child=serializers.CharField())

    serializer = Names(data={"names": ["Andi", 3]})
    assert not serializer.is_valid()
    assert serializer.errors["names"][0].code == "invalid"
    assert Names(data={"names": ["Andi", "3"]}).is_valid()
