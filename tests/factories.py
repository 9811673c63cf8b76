"""factory_boy factories for the referee's models (games, seats, table tokens, organisers).

Games and events are never made by hand: they go through ``referee.services``
so that the cached fold on the game row stays true (see ``GameApi`` in
``tests/referee/conftest.py``).
"""

from __future__ import annotations

import secrets
from typing import Any

import factory
from django.contrib.auth import get_user_model
from factory.django import DjangoModelFactory

from referee import services
from referee.engine.simulation import PLAYERS
from referee.models import Game, TableToken, hash_token


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
    """An open game with default rules (R40), five named seats (R3) and no event yet,
    made by ``services.game_create`` as the API makes it.

    A game of a club (``club``/``season``) has no creator unless one is given: the
    services ask that its creator organises the club.
    """

    class Meta:
        model = Game

    players = factory.LazyFunction(lambda: list(PLAYERS))
    rules = None
    club = None
    season = None
    created_by = factory.Maybe(
        factory.LazyAttribute(lambda o: o.club is None and o.season is None),
        yes_declaration=factory.SubFactory(UserFactory),
        no_declaration=None,
    )

    @classmethod
    def _create(cls, model_class: type[Game], *args: object, **kwargs: Any) -> Game:
        return services.game_create(**kwargs)


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
