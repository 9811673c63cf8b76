"""The pictures of a game (``referee.web.charts``): stones per seat over the rounds with
CAMAT elections (R24) and sittings (R27) marked, no script, a table of the same numbers,
and a page whose queries do not grow with its rounds."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from referee import services
from referee.models import Game
from referee.web import charts
from tests.referee.web.conftest import PLAYERS, enter
from tests.referee.web.walks import CEKI_WITH_A_PASS, record_move

CEKI = [record_move(*step) for step in CEKI_WITH_A_PASS]


def _round(number: int, stones: list[int], *, camat: int | None = None) -> dict[str, Any]:
    return {
        "number": number,
        "ending": "cappu",
        "void": False,
        "camat_elected": camat,
        "after": {"table": 25 - sum(stones), "stones": stones, "camat": camat},
    }


def test_a_game_picture_marks_the_camat_elected_and_each_sitting_r24_r27() -> None:
    rounds = [
        _round(1, [1, 0, 3, 0, 0]),
        _round(2, [1, 4, 3, 0, 0]),
        _round(3, [0, 0, 0, 0, 0], camat=1),
        {"number": 4, "ending": None, "void": False, "after": {"stones": [0, 0, 0, 0, 0]}},
    ]

    picture = charts.game_stones(names=PLAYERS, rounds=rounds, sittings={1: 1, 2: 1, 3: 2})

    assert picture is not None
    svg = str(picture.svg)
    assert "<script" not in svg  # no pygal tooltips: no script at all
    assert 'aria-hidden="true"' in svg
    assert 'width="' not in svg.split(">", 1)[0]  # scales with the page (viewBox only)
    assert "viewBox" in svg.split(">", 1)[0]
    assert len(set(re.findall(r'class="series serie-\d', svg))) == 5  # one line per seat
    # The round in play is not drawn; the CAMAT election is on the table of numbers.
    assert [row[0] for row in picture.rows] == [1, 2, 3]
    assert picture.rows[1][2:7] == [1, 4, 3, 0, 0]
    assert picture.rows[2][-1] == "CAMAT: Besse"
    assert [row[1] for row in picture.rows] == [1, 1, 2]
    # The first round of each sitting is a major label.
    assert "S1 · 1" in svg
    assert "S2 · 3" in svg
    assert re.search(r'class="axis x[^"]*".*?class="major"', svg, re.S)


def _y_labels(svg: str) -> list[str]:
    axis = re.split(r'<g class="(?:axis|series|plot)', svg.split('class="axis y', 1)[1])[0]
    return re.findall(r"<text[^>]*>([^<]+)</text>", axis)


@pytest.mark.parametrize("top", [1, 2, 7, 25])
def test_the_stones_axis_counts_whole_stones_r22(top: int) -> None:
    """QA: an axis of 0, 0.1 … 1 drew fractions of a stone; stones are whole (R22)."""
    rounds = [_round(1, [top, 0, 0, 0, 0]), _round(2, [0, top, 0, 0, 0])]

    picture = charts.game_stones(names=PLAYERS, rounds=rounds, sittings={})

    assert picture is not None
    labels = _y_labels(str(picture.svg))
    assert labels, "no y-axis labels found"
    assert all(label.strip().isdigit() for label in labels), labels
    assert max(int(label) for label in labels) >= top


def test_no_picture_before_a_round_ends() -> None:
    in_play = [{"number": 1, "ending": None, "void": False, "after": {"stones": [0] * 5}}]

    assert charts.game_stones(names=PLAYERS, rounds=in_play, sittings={}) is None


@pytest.fixture
def organiser(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user("orga", password="correct horse battery")


def _manage(client: Client, game: Game) -> tuple[str, int]:
    with CaptureQueriesContext(connection) as queries:
        page = client.get(f"/games/{game.pk}/manage/")
    assert page.status_code == 200
    return page.content.decode(), len(queries)


@pytest.mark.django_db
def test_the_organiser_page_draws_the_stones_in_the_same_queries_for_one_round_or_two(
    client: Client, organiser: Any, scorekeeper: Any
) -> None:
    game = services.game_create(players=list(PLAYERS), created_by=organiser)
    client.force_login(organiser)
    before, _ = _manage(client, game)
    assert 'id="game-stones"' not in before  # nothing to draw yet

    enter(game, scorekeeper(game), CEKI)
    one, one_round = _manage(client, game)
    enter(game, scorekeeper(game), CEKI)
    two, two_rounds = _manage(client, game)

    assert 'id="game-stones"' in one
    assert "<svg" in one
    assert "<script" not in two.split('id="game-stones"', 1)[1].split("</figure>", 1)[0]
    table = two.split('class="picture-numbers"', 1)[1].split("</table>", 1)[0]
    assert table.count('<th scope="row">') == 2  # one row per finished round
    assert two_rounds == one_round  # the picture reads nothing more per round
