"""The API's JSON renderer (orjson) writes what DRF's own renderer writes, and the strict
serializers' cheap field copies validate as DRF's deep copies do."""

from __future__ import annotations

import datetime
import decimal
import json
import uuid
import zoneinfo

import pytest
from django.utils.translation import gettext_lazy, override
from rest_framework import renderers, serializers

from referee.api.renderers import JSONRenderer
from referee.api.serializers import MoveSerializer
from referee.inputs import StrictSerializer

pytestmark = pytest.mark.django_db

SAMPLES = [
    {"tile": "3-5", "seats": [0, 1, 2, 3, 4], "named": ["PASSEBUNGE", "CAMAT"], "on": None},
    {"at": datetime.datetime(2026, 11, 30, 20, 5, 1, 123456, tzinfo=datetime.UTC)},
    {"day": datetime.date(2026, 11, 30), "time": datetime.time(20, 5)},
    {"id": uuid.UUID("12345678-1234-5678-1234-567812345678"), "big": 2**63 - 1},
    {"stones": decimal.Decimal("1.5"), "ratio": 0.1, "nested": {"a": [True, False, None]}},
    {"name": "Évi \u2028 Ĺ \u2029 ✓", "empty": {}, "list": []},
    {1: "an integer key", "2": "a text key"},
    [{"tuple": (1, 2)}, "text"],
]


@pytest.mark.parametrize("data", SAMPLES)
def test_the_renderer_writes_the_bytes_drf_writes(data):
    assert JSONRenderer().render(data) == renderers.JSONRenderer().render(data)


def test_a_lazy_translation_is_rendered_in_the_language_of_the_answer():
    data = {"detail": gettext_lazy("Not found.")}
    with override("fr"):
        ours = JSONRenderer().render(data)
        drf = renderers.JSONRenderer().render(data)
    assert ours == drf
    assert json.loads(ours)["detail"] != "Not found."


def test_an_integer_beyond_64_bits_falls_back_to_drf():
    data = {"huge": 2**70}
    assert JSONRenderer().render(data) == renderers.JSONRenderer().render(data)


def test_an_indented_answer_is_drfs_own_and_nothing_renders_as_empty():
    media = "application/json; indent=2"
    data = {"a": [1, 2]}
    assert JSONRenderer().render(data, media) == renderers.JSONRenderer().render(data, media)
    assert b"\n  " in JSONRenderer().render(data, media)
    assert JSONRenderer().render(None) == b""


def test_each_serializer_gets_its_own_fields_and_the_declared_ones_stay_unbound():
    first, second = MoveSerializer(data={}), MoveSerializer(data={})
    assert first.fields["seat"] is not second.fields["seat"]
    assert first.fields["seat"].parent is first
    assert second.fields["seat"].parent is second
    declared = MoveSerializer._declared_fields["seat"]
    assert declared.parent is None
    assert declared.field_name is None


def test_cheap_field_copies_validate_as_deep_copies_do():
    class Nested(StrictSerializer):
        n = serializers.IntegerField(min_value=1)

    class Outer(StrictSerializer):
        count = serializers.IntegerField(min_value=0, max_value=4)
        inner = Nested(required=False)

    good = Outer(data={"count": 2, "inner": {"n": 3}})
    assert good.is_valid(), good.errors
    assert good.validated_data == {"count": 2, "inner": {"n": 3}}
    bad = Outer(data={"count": 9, "inner": {"n": 0}})
    assert not bad.is_valid()
    assert set(bad.errors) == {"count", "inner"}
    assert Outer().fields["inner"] is not Outer().fields["inner"]  # nested: deep copies


def test_a_moves_answer_spells_its_time_as_the_events_list_does(client, django_user_model):
    """QA: the 201 of a move said ``…+00:00`` where ``GET …/events/`` says ``…Z``."""
    from referee import services

    organiser = django_user_model.objects.create_user("org", password="x", is_staff=True)
    game = services.game_create(players=["A", "B", "C", "D", "E"], created_by=organiser)
    key, _ = services.table_join(join_code=game.join_code)
    answer = client.post(
        f"/api/v1/games/{game.pk}/moves/",
        {"seat": 3, "tile": "6-6"},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Table {key}",
        secure=True,
    )
    assert answer.status_code == 201, answer.content[:300]
    spelled = answer.json()["event"]["created_at"]
    assert spelled.endswith("Z")
    listed = client.get(
        f"/api/v1/games/{game.pk}/events/", HTTP_AUTHORIZATION=f"Table {key}", secure=True
    )
    assert listed.status_code == 200, listed.content[:300]
    rows = listed.json()["events"]
    assert spelled in [row["created_at"] for row in rows]


@pytest.mark.parametrize(
    "moment",
    [
        datetime.datetime(2026, 12, 1, 5, 24, 12, 580200, tzinfo=datetime.UTC),
        datetime.datetime(2026, 12, 1, 5, 24, 12, tzinfo=datetime.UTC),  # no microseconds
        datetime.datetime(1999, 1, 2, 3, 4, 5, 6, tzinfo=datetime.UTC),
        datetime.datetime(2026, 6, 1, 7, 0, tzinfo=datetime.timezone(datetime.timedelta(hours=8))),
        datetime.datetime(2026, 6, 1, 7, 0, tzinfo=zoneinfo.ZoneInfo("Asia/Makassar")),
        datetime.datetime(2026, 6, 1, 7, 0, tzinfo=zoneinfo.ZoneInfo("UTC")),
    ],
)
def test_an_answers_time_is_spelled_as_drfs_datetime_field_spells_it(moment):
    """``answers._when`` spells a UTC time without DRF's field (issue 14): the same text."""
    from referee.api.answers import _when

    assert _when(moment) == serializers.DateTimeField().to_representation(moment)
