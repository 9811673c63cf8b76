"""The data migration that gives the plays stored before sides were kept the side of the
chain they lie on (R11), as the fold of their game places them."""

from __future__ import annotations

import importlib
import random

import pytest
from django.apps import apps

from referee import services
from referee.engine.simulation import random_record
from referee.models import Event
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

derive_sides = importlib.import_module("referee.migrations.0016_play_sides").derive_sides


def test_the_migration_gives_old_plays_the_sides_their_fold_places_them_on_R11():
    game = services.game_import(
        record=random_record(random.Random(32), rounds=3), created_by=UserFactory()
    )
    stored = {e.pk: dict(e.payload) for e in Event.objects.filter(game=game, kind="move")}
    assert sum("side" in p for p in stored.values()) > 10  # an import keeps them too
    for event in Event.objects.filter(game=game, kind="move"):
        event.payload.pop("side", None)
        event.save(update_fields=["payload"])

    derive_sides(apps, None)

    assert {e.pk: e.payload for e in Event.objects.filter(game=game, kind="move")} == stored
    before = services.game_export(game)
    derive_sides(apps, None)  # nothing left to derive: unchanged
    assert services.game_export(game) == before
