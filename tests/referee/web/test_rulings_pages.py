"""The phone pages keep working after the organiser's rulings (R35, R36, R38)."""

from __future__ import annotations

from referee import services
from referee.services import corrections
from tests.factories import UserFactory
from tests.referee.web.conftest import enter


def test_the_table_page_shows_a_substitute_an_adjustment_to_the_table_and_a_void_R35_R36_R38(
    game, scorekeeper, joined, load_scenario
):
    rounds = load_scenario("40_void_adjust_substitute")["record"]["rounds"]
    organiser = services.Actor(user=UserFactory())
    enter(game, scorekeeper(game), rounds[1]["moves"])
    adjustment = rounds[1]["adjustments"][0]
    corrections.round_adjust(
        game_id=game.pk,
        round=1,
        source=adjustment["from"],
        to=adjustment["to"],
        stones=adjustment["stones"],
        reason=adjustment["reason"],
        actor=organiser,
    )
    client = joined(game)

    page = client.get("/table/")

    assert page.status_code == 200
    assert "stone to the table" in page.content.decode()  # the adjustment's, R36
    corrections.seat_substitute(game_id=game.pk, seat=4, round=None, name="Fajar", actor=organiser)
    assert "Fajar" in client.get("/table/").content.decode()
    enter(game, scorekeeper(game), rounds[2]["moves"][:3])
    corrections.round_void(game_id=game.pk, round=2, reason="tiles shown", actor=organiser)
    assert client.get("/table/").status_code == 200
    assert client.get("/table/live/").status_code == 200
