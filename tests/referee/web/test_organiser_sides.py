"""The everyday correction on the organiser's round page (R11, R37): a mistyped tile
amended after the next round's lead keeps the later tile where it lies; where no side
is known, the page asks which end in the same form and the answer goes in one batch."""

from __future__ import annotations

import html
import re
import uuid
from typing import Any

import pytest

from referee import services
from referee.models import Event, Game
from referee.services import games
from tests.referee.api.test_games_sides import DAENG, EVI, ROUND_1, ROUND_2
from tests.referee.web.conftest import PLAYERS, enter


@pytest.fixture
def organiser(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user("orga", password="correct horse battery")


@pytest.fixture
def evening(organiser, scorekeeper) -> Game:
    """Rounds 1 and 2 entered at the table (Daeng's 3-6 mistyped) and round 3's lead."""
    game = services.game_create(players=list(PLAYERS), created_by=organiser)
    enter(game, scorekeeper(game), [*ROUND_1, *ROUND_2, {"seat": DAENG, "tile": "2-2"}])
    game.refresh_from_db()
    return game


@pytest.fixture
def signed_in(client, organiser):
    client.force_login(organiser)
    return client


def move_position(game: Game, number: int, index: int) -> int:
    moves = Event.objects.filter(
        game=game, round_number=number, kind="move", revoked_by__isnull=True
    ).order_by("position")
    return list(moves)[index].position


def form(game: Game, **fields: Any) -> dict[str, Any]:
    game.refresh_from_db()
    return {"version": game.version, "key": str(uuid.uuid4()), **fields}


def text(response: Any) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode())).split())


def amend_move_20(client, game: Game, **extra: Any):
    return client.post(
        f"/games/{game.pk}/rounds/2/correct/",
        form(
            game,
            op="amend",
            position=move_position(game, 2, 20),
            what="play",
            seat=DAENG,
            tile="5-6",
            reason="Daeng played 5-6",
            **extra,
        ),
        follow=True,
    )


def later_moves(game: Game) -> list[dict[str, Any]]:
    game.refresh_from_db()
    return games.game_export(game)["rounds"][1]["moves"][20:]


def test_the_organiser_page_amends_a_mistyped_tile_and_the_later_tile_stays_R11_R37(
    signed_in, evening
):
    answer = amend_move_20(signed_in, evening)

    assert answer.redirect_chain[-1] == (f"/games/{evening.pk}/rounds/2/", 302)
    assert "The event is amended." in text(answer)
    assert later_moves(evening) == [
        {"seat": DAENG, "tile": "5-6"},
        {"seat": EVI, "tile": "0-5", "on": 0},  # where it lies: the 0 end (R11)
    ]
    assert "CEKI" in text(answer)


def test_the_organiser_page_asks_which_end_and_takes_the_answer_in_one_batch_R11_R37(
    signed_in, evening
):
    """Events stored with no side (before sides were kept): the page asks about move 22
    (0-5) in the correction's own form; answering sends both changes at once."""
    for event in Event.objects.filter(game=evening, kind="move"):
        event.payload.pop("side", None)
        event.save(update_fields=["payload"])
    version = Game.objects.get(pk=evening.pk).version

    refused = amend_move_20(signed_in, evening)

    assert refused.status_code == 422
    page = refused.content.decode()
    assert '<dd class="code-id">end_required</dd>' in page
    assert "move 22: Evi's 0-5 now fits both open ends" in text(refused)
    position = move_position(evening, 2, 21)
    assert f'name="answer_position" value="{position}"' in page
    assert re.findall(r'name="answer_on" value="(\d)"', page) == ["0", "5"]
    assert 'value="Daeng played 5-6"' in page  # what was typed is kept
    assert Game.objects.get(pk=evening.pk).version == version

    answer = amend_move_20(signed_in, evening, answer_position=position, answer_on=5)

    assert answer.redirect_chain[-1] == (f"/games/{evening.pk}/rounds/2/", 302)
    assert later_moves(evening) == [
        {"seat": DAENG, "tile": "5-6"},
        {"seat": EVI, "tile": "0-5", "on": 5},
    ]
