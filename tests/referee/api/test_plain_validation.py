"""``StrictSerializer.plainly_valid``: a body it takes is one DRF takes, with the same
validated data; anything else is left to DRF (issue 14: a move's body is checked without
building its serializer)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from rest_framework import serializers

from referee.api import serializers as s
from referee.inputs import StrictSerializer, WholeNumberField

EVENT_SERIALIZERS = [s.MoveSerializer, s.HandSerializer, s.RevealSerializer]

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["6-6", "4|5", "[1|2]", "", "x"]),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=8,
)
KEYS = st.sampled_from(
    ["seat", "tile", "on", "pass", "tiles", "pips", "expected_version", "reason", "Seat", ""]
)
BODIES = st.dictionaries(KEYS, JSON_VALUES, max_size=6) | JSON_VALUES


def _drf(serializer_class: type[StrictSerializer], data: Any) -> dict[str, Any] | None:
    serializer = serializer_class(data=data)
    return dict(serializer.validated_data) if serializer.is_valid() else None


@pytest.mark.parametrize("serializer_class", EVENT_SERIALIZERS)
@settings(max_examples=300, deadline=None)
@given(data=BODIES)
@example(data={"seat": 0, "tile": "6-6"})
@example(data={"seat": 0, "pass": True, "expected_version": 3})
@example(data={"seat": 0, "expected_version": -1})
@example(data={"seat": 0, "expected_version": True})
@example(data={"seat": 0, "expected_version": "3"})
@example(data={"seat": 0, "expected_version": None})
@example(data={"seat": None, "tiles": None})
@example(data={"seat": "2", "tile": 7, "on": None, "pass": "yes"})
@example(data={"tile": "6-6"})
@example(data={"seat": 1, "colour": "red"})
@example(data=[{"seat": 0}])
def test_a_plainly_valid_body_is_what_drf_validates(serializer_class, data):
    plain = serializer_class.plainly_valid(data)
    drf = _drf(serializer_class, data)
    if plain is not None:
        assert drf is not None
        assert list(plain.items()) == list(drf.items())  # same values, same order
    # The path exists to be taken: every body DRF takes is plain for these serializers.
    assert (plain is None) == (drf is None)


def test_a_serializer_with_more_than_plain_fields_has_no_plain_path():
    class Named(StrictSerializer):
        count = WholeNumberField(min_value=0)
        name = serializers.CharField()

    class Defaulted(StrictSerializer):
        count = WholeNumberField(default=0)

    class Validated(StrictSerializer):
        count = WholeNumberField()

        def validate_count(self, value: int) -> int:
            raise serializers.ValidationError("never")

    class Checked(StrictSerializer):
        count = WholeNumberField()

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            raise serializers.ValidationError("never")

    assert Named.plainly_valid({"count": 1, "name": "A"}) is None
    assert Defaulted.plainly_valid({"count": 1}) is None
    assert Validated.plainly_valid({"count": 1}) is None
    assert Checked.plainly_valid({"count": 1}) is None
    assert s.UndoSerializer.plainly_valid({}) is None  # a reason is DRF's to check


def test_a_bounded_whole_number_is_plain_only_within_its_bounds():
    class Seat(StrictSerializer):
        seat = WholeNumberField(min_value=0, max_value=4)

    assert Seat.plainly_valid({"seat": 4}) == {"seat": 4}
    assert Seat.plainly_valid({"seat": 5}) is None
    assert Seat.plainly_valid({"seat": -1}) is None
    assert _drf(Seat, {"seat": 5}) is None


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["fr", "id", "pl"])
def test_a_refused_bodys_field_messages_are_in_the_clients_language(client, language):
    """QA: "Unknown field." stayed English in every language (and so did the other field
    messages written in this project: checked by the same path)."""
    from referee import services

    game = services.game_create(players=["A", "B", "C", "D", "E"])
    key, _ = services.table_join(join_code=game.join_code)
    answer = client.post(
        f"/api/v1/games/{game.pk}/moves/",
        {"seat": 3, "tile": "6-6", "colour": "red"},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Table {key}",
        HTTP_ACCEPT_LANGUAGE=language,
        secure=True,
    )
    assert answer.status_code == 400, answer.content[:300]
    errors = answer.json()["errors"]
    assert [error.get("code") for error in errors] == ["unknown_field"], errors
    assert errors[0]["detail"] not in ("", "Unknown field.")
