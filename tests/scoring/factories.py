"""factory_boy factories for league records: clubs, memberships, players, seasons, seat-rounds.

``SeatRoundFactory`` makes derived rows directly: only for tests of the
queries over them (sizes, query counts). Anything that checks the numbers
themselves plays or imports real games through the services.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import factory
from django.utils import timezone
from factory.django import DjangoModelFactory

from scoring import services
from scoring.models import Club, Membership, Player, Season, SeatRound
from tests.factories import GameFactory, UserFactory


class ClubFactory(DjangoModelFactory):
    class Meta:
        model = Club
        django_get_or_create = ("slug",)

    name = factory.Sequence(lambda n: f"Domeng Club {n}")
    slug = factory.Sequence(lambda n: f"club-{n}")
    is_public = False


class MembershipFactory(DjangoModelFactory):
    class Meta:
        model = Membership

    club = factory.SubFactory(ClubFactory)
    user = factory.SubFactory(UserFactory)
    role = Membership.Role.MEMBER


class OrganiserFactory(MembershipFactory):
    role = Membership.Role.ORGANISER


class PlayerFactory(DjangoModelFactory):
    class Meta:
        model = Player

    club = factory.SubFactory(ClubFactory)
    display_name = factory.Sequence(lambda n: f"Player {n}")
    member_number = ""


class SeasonFactory(DjangoModelFactory):
    class Meta:
        model = Season

    club = factory.SubFactory(ClubFactory)
    name = factory.Sequence(lambda n: f"Season {n}")
    starts_on = dt.date(2026, 1, 1)
    ends_on = dt.date(2026, 6, 30)


class SeatRoundFactory(DjangoModelFactory):
    """A seat-round row of a game of the season's club (made directly, for query tests).

    The club's stored totals and ratings are then recounted from its rows
    (``services.league_recount``), as the services keep them for real rounds.
    """

    class Meta:
        model = SeatRound

    @classmethod
    def _create(cls, model_class: type[SeatRound], *args: Any, **kwargs: Any) -> SeatRound:
        row = super()._create(model_class, *args, **kwargs)
        if row.club is not None:
            services.league_recount(club=row.club)
        return row

    season = factory.SubFactory(SeasonFactory)
    club = factory.SelfAttribute("season.club")
    game = factory.SubFactory(
        GameFactory, club=factory.SelfAttribute("..club"), season=factory.SelfAttribute("..season")
    )
    round_number = factory.Sequence(lambda n: n + 1)
    seat = 0
    player = factory.SubFactory(PlayerFactory, club=factory.SelfAttribute("..club"))
    played_at = factory.LazyFunction(timezone.now)
    won = factory.Iterator([True, False, False, False, False])
    stones_received = factory.Iterator([0, 1, 2, 3])
