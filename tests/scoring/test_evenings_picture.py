"""A player's evenings as a picture on the standings page (``?player=<id>``): one point per
club evening (local dates, from 06:00), the same numbers as a table, no script, and the
same queries for one evening or two."""

from __future__ import annotations

import datetime as dt
import html
import re
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from referee import services
from scoring.models import Club, Player, SeatRound
from tests.factories import UserFactory
from tests.referee.web.conftest import enter
from tests.referee.web.walks import CEKI_WITH_A_PASS, record_move
from tests.scoring.factories import ClubFactory, OrganiserFactory, PlayerFactory

CEKI = [record_move(*step) for step in CEKI_WITH_A_PASS]


@pytest.fixture
def club(db: None) -> Club:
    return ClubFactory(name="Makassar Domeng Club", slug="makassar", time_zone="Asia/Makassar")


@pytest.fixture
def organiser(club: Club) -> Any:
    return OrganiserFactory(club=club, user=UserFactory(username="director")).user


@pytest.fixture
def players(club: Club) -> list[Player]:
    return [
        PlayerFactory(club=club, display_name=n) for n in ["Andi", "Besse", "Cakra", "Daeng", "Evi"]
    ]


def _round_settled(club: Club, organiser: Any, players: list[Player]) -> None:
    """One CEKI round (R15): seat 3 receives 2 stones at its pass (R23a), CUCUQ seat 4
    receives 3 (R23b), seat 0 wins."""
    game = services.game_create(players=[p.pk for p in players], club=club, created_by=organiser)
    _, token = services.table_join(join_code=game.join_code)
    enter(game, services.Actor(token=token), CEKI)


def _page(client: Client, club: Club, player: Player) -> tuple[str, int]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(f"/clubs/{club.slug}/standings/?player={player.pk}")
    assert response.status_code == 200
    return response.content.decode(), len(queries)


def _numbers(page: str) -> list[list[str]]:
    table = page.split('class="picture-numbers"', 1)[1].split("</table>", 1)[0]
    body = table.split("<tbody>", 1)[1]
    return [
        [html.unescape(c).strip() for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
        for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)
    ]


def test_a_players_evenings_are_drawn_one_point_per_local_evening(
    client: Client, club: Club, organiser: Any, players: list[Player]
) -> None:
    client.force_login(organiser)
    evi = players[4]
    _round_settled(club, organiser, players)
    # The first round was played on 30 November at 01:30 Makassar time: the evening of
    # the 29th (evenings run from 06:00 to 06:00).
    SeatRound.objects.update(played_at=dt.datetime(2026, 11, 29, 17, 30, tzinfo=dt.UTC))
    one, one_evening = _page(client, club, evi)
    _round_settled(club, organiser, players)
    two, two_evenings = _page(client, club, evi)

    assert 'id="player-evenings"' in two
    assert "<script" not in two.split('id="player-evenings"', 1)[1].split("</figure>", 1)[0]
    rows = _numbers(two)
    assert len(rows) == 2
    assert rows[0][0] == "29/11/2026"  # the club's evening, day first
    assert rows[0][1:4] == ["1", "3", "0"]  # one round, 3 stones as CUCUQ (R23b), not won
    assert rows[1][1:4] == ["1", "3", "0"]
    assert len(_numbers(one)) == 1
    assert two_evenings == one_evening  # no query per evening


def test_an_unknown_player_draws_no_picture(client: Client, club: Club, organiser: Any) -> None:
    client.force_login(organiser)
    other = PlayerFactory(club=ClubFactory(slug="elsewhere"), display_name="Stranger")

    page = client.get(f"/clubs/{club.slug}/standings/?player={other.pk}").content.decode()

    assert 'id="evenings"' not in page


def test_the_rating_is_the_one_after_the_evenings_last_camat_cycle_r24(db: None) -> None:
    from referee.models import Game
    from scoring import selectors, zones
    from tests.scoring.factories import SeasonFactory, SeatRoundFactory

    season = SeasonFactory()
    club = season.club
    first = dt.datetime(2026, 11, 3, 12, 0, tzinfo=dt.UTC)
    second = first + dt.timedelta(days=7)
    seated = [PlayerFactory(club=club) for _ in range(5)]
    SeatRoundFactory(season=season, player=seated[0], played_at=first, stones_received=2)
    game = SeatRoundFactory(season=season, player=seated[0], played_at=second).game
    assert isinstance(game, Game)
    # Round 9 of the second evening elects seat 0 CAMAT (R24): a cycle that seat wins.
    SeatRound.objects.bulk_create(  # the five rows at once: no half-cycle to recount
        SeatRound(
            club=club,
            season=season,
            game=game,
            round_number=9,
            seat=seat,
            player=player,
            cycle_player=player,
            played_at=second,
            cycle_ended=True,
            camat_elected=seat == 0,
            stones_held=0 if seat == 0 else seat,
        )
        for seat, player in enumerate(seated)
    )

    nights = selectors.player_evenings(
        club=club, player=seated[0], season=season, tz=zones.zone("UTC"), starts_at=6
    )

    assert [n.date for n in nights] == [first.date(), second.date()]
    assert [n.rounds for n in nights] == [1, 2]
    assert nights[0].received == 2
    assert nights[0].rating is None  # no cycle had ended yet
    assert nights[1].rating is not None
    assert nights[1].rating > 0  # the CAMAT of the cycle rates above a fresh player (0)
