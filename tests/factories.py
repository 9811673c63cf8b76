"""factory_boy factories for the referee's models (games, seats, table tokens, organisers).

Events are never made by a factory: they go through ``referee.services`` so
that the cached fold on the game row stays true (see ``GameApi`` in
``tests/referee/conftest.py``).
"""

from __future__ import annotations

import secrets

import factory
from django.contrib.auth import get_user_model
from factory.django import DjangoModelFactory

from referee import folding
from referee.engine import DEFAULT_RULES, RuleSet
from referee.engine.simulation import PLAYERS
from referee.models import Game, Seat, TableToken, hash_token


class UserFactory(DjangoModelFactory):
    """An organiser: a plain Django user."""

    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"organiser{n}")
    email = factory.LazyAttribute(lambda o: f"{o.username}@example.org")
    password = factory.django.Password("correct horse battery staple")


class GameFactory(DjangoModelFactory):
    """An open game with default rules (R40), five named seats (R3) and no event yet."""

    class Meta:
        model = Game
        skip_postgeneration_save = True

    rules = factory.LazyFunction(DEFAULT_RULES.to_dict)
    state = factory.LazyAttribute(
        lambda o: {"snapshot": folding.initial_snapshot(RuleSet.from_dict(o.rules))}
    )
    created_by = factory.SubFactory(UserFactory)

    @factory.post_generation
    def seats(obj: Game, create: bool, extracted: list[str] | None, **kwargs: object) -> None:
        if not create:
            return
        names = list(extracted) if extracted is not None else list(PLAYERS)
        for number, name in enumerate(names):
            SeatFactory(game=obj, number=number, name=name)


class SeatFactory(DjangoModelFactory):
    class Meta:
        model = Seat

    game = factory.SubFactory(GameFactory)
    number = 0
    name = factory.Iterator(PLAYERS)


class TableTokenFactory(DjangoModelFactory):
    """A phone's table token; pass ``key_hash=hash_token(key)`` to know its key."""

    class Meta:
        model = TableToken

    game = factory.SubFactory(GameFactory)
    seat = None
    key_hash = factory.LazyFunction(lambda: hash_token(secrets.token_urlsafe(32)))
    label = ""


def table_key(*, game: Game, seat: int | None = None) -> str:
    """Make a table token for ``game`` (one seat, or the scorekeeper) and return its key."""
    key = secrets.token_urlsafe(32)
    TableTokenFactory(game=game, seat=seat, key_hash=hash_token(key))
    return key
