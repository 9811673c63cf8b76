"""Fixtures for league records: a club with an organiser, a member, an outsider, six players."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from referee import services as referee_services
from referee.models import Game
from scoring.models import Club, Player, Season
from tests.factories import UserFactory
from tests.scoring.factories import (
    ClubFactory,
    MembershipFactory,
    OrganiserFactory,
    PlayerFactory,
    SeasonFactory,
)

API = "/api/v1"
PROBLEM = "application/problem+json"
NAMES = ["Andi", "Besse", "Cakra", "Daeng", "Evi", "Fajar"]


def token_client(user: Any) -> APIClient:
    """A client signed in as ``user`` with a DRF token."""
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


@pytest.fixture
def club(db: None) -> Club:
    return ClubFactory(name="Makassar Domeng Club", slug="makassar")


@pytest.fixture
def organiser(club: Club) -> Any:
    return OrganiserFactory(club=club, user=UserFactory(username="director")).user


@pytest.fixture
def member(club: Club) -> Any:
    return MembershipFactory(club=club, user=UserFactory(username="member")).user


@pytest.fixture
def outsider(db: None) -> Any:
    """An organiser of another club: no role in ``club``."""
    return OrganiserFactory(user=UserFactory(username="outsider")).user


@pytest.fixture
def organiser_client(organiser: Any) -> APIClient:
    return token_client(organiser)


@pytest.fixture
def member_client(member: Any) -> APIClient:
    return token_client(member)


@pytest.fixture
def outsider_client(outsider: Any) -> APIClient:
    return token_client(outsider)


@pytest.fixture
def season(club: Club) -> Season:
    return SeasonFactory(club=club, name="2026 first half")


@pytest.fixture
def players(club: Club) -> list[Player]:
    """Six registered players of the club: Andi … Fajar (Andi has a member number)."""
    return [
        PlayerFactory(club=club, display_name=name, member_number="MDC-1" if i == 0 else "")
        for i, name in enumerate(NAMES)
    ]


@pytest.fixture
def import_game(organiser: Any, club: Club) -> Callable[..., Game]:
    """Import a scenario's record as a league game: ``import_game(record, seats, season)``.

    ``seats`` are five players (or guest names) seat 0 to 4.
    """

    def do(record: dict[str, Any], seats: list[Any], season: Season | None = None) -> Game:
        return referee_services.game_import(
            record=record,
            created_by=organiser,
            club=club,
            season=season,
            players=[seat.pk if isinstance(seat, Player) else seat for seat in seats],
        )

    return do


# -- the numbers, worked out independently from ``replay_record``'s result ----------------

COUNTED = (
    "rounds_played",
    "rounds_won",
    "first_cappu",
    "ceki",
    "pollo",
    "manguno",
    "mattikkeng",
    "cucuq",
    "passes",
    "passebunge",
    "stones_received",
    "stones_given",
    "camat_elected",
)


def expected_lines(record: dict[str, Any], result: dict[str, Any]) -> list[dict[str, Any]]:
    """Each settled round's five seat lines, from a record and its ``domeng-result/1``.

    PASS and PASSEBUNGE are told apart from the record's moves (R10: a pass by
    a seat that has not played a tile yet this round); the rest is read off
    the result's named outcomes and transfers.
    """
    lines = []
    for data, rnd in zip(record["rounds"], result["rounds"], strict=True):
        if rnd["winner"] is None:
            continue
        played: set[int] = set()
        passes = Counter[int]()
        passebunge = Counter[int]()
        for move in data["moves"]:
            if move.get("pass"):
                (passes if move["seat"] in played else passebunge)[move["seat"]] += 1
            else:
                played.add(move["seat"])
        for seat in range(5):
            lines.append(
                {
                    "round": rnd["number"],
                    "seat": seat,
                    "rounds_played": 1,
                    "rounds_won": int(rnd["winner"] == seat),
                    "first_cappu": int(rnd["first_cappu"] == seat),
                    "ceki": int(rnd["first_cappu"] == seat and rnd["finish"] == "ceki"),
                    "pollo": int(rnd["first_cappu"] == seat and rnd["finish"] == "pollo"),
                    "manguno": int(rnd["manguno"] == seat),
                    "mattikkeng": int(seat in rnd["mattikkeng"]),
                    "cucuq": int(rnd["cucuq"] == seat),
                    "passes": passes[seat],
                    "passebunge": passebunge[seat],
                    "stones_received": sum(
                        t["stones"] for t in rnd["transfers"] if t["to"] == seat
                    ),
                    "stones_given": sum(t["stones"] for t in rnd["transfers"] if t["from"] == seat),
                    "camat_elected": int(rnd["camat_elected"] == seat),
                }
            )
    return lines


def expected_standings(games: list[tuple[dict[str, Any], dict[str, Any], list[Any]]]) -> dict:
    """Totals per player over ``(record, result, seats)`` games; guests (not ints) left out."""
    totals: dict[Any, Counter[str]] = {}
    for record, result, seats in games:
        for line in expected_lines(record, result):
            who = seats[line["seat"]]
            if not isinstance(who, int):
                continue
            totals.setdefault(who, Counter())
            totals[who].update({key: line[key] for key in COUNTED})
    return totals
