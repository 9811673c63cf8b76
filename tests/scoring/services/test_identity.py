"""One identity through every path (issue 32, point 3): a substitute's club player (R38)
survives an export and import, a record put back, a merge and the ratings."""

from __future__ import annotations

from typing import Any

import pytest

from referee import services as referee_services
from referee.models import Game
from referee.services import corrections
from referee.services.guard import Actor
from scoring import selectors
from scoring import services as league
from scoring.exceptions import MergeInvalid
from scoring.models import Player, SeatRound
from tests.scoring.conftest import API, token_client
from tests.scoring.factories import PlayerFactory

SCENARIO = "40_void_adjust_substitute"  # Fajar substitutes for seat 4 from round 3


def _credited(game: Game) -> dict[tuple[int, int], int | None]:
    """(round, seat) → the player each seat-round is credited to."""
    return {(r.round_number, r.seat): r.player_id for r in SeatRound.objects.filter(game=game)}


def _seat4(game: Game) -> dict[int, int | None]:
    return {number: who for (number, seat), who in _credited(game).items() if seat == 4}


def _substituted(organiser: Any, game: Game, player: Player, round: int = 3) -> None:
    corrections.seat_substitute(
        game_id=game.pk,
        seat=4,
        round=round,
        player=player.pk,
        allow_elsewhere=True,
        actor=Actor(user=organiser),
        reason="Evi went home",
    )


def test_an_imported_records_substitute_named_as_one_club_player_is_that_player_R38(
    import_game, players, load_scenario
):
    record = load_scenario(SCENARIO)["record"]

    game = import_game(record, players[:5])

    assert _seat4(game) == {2: players[4].pk, 3: players[5].pk, 4: players[5].pk}
    assert selectors.seats_now(Game.objects.get(pk=game.pk))[4].player_id == players[5].pk


def test_a_club_substitutes_rounds_stay_theirs_after_export_and_import_R38(
    import_game, organiser, players, load_scenario
):
    """Fajar substitutes by id; the game's export imported again credits Fajar's rounds."""
    record = load_scenario(SCENARIO)["record"]
    record["rounds"][2].pop("substitutes")
    game = import_game(record, players[:5])
    _substituted(organiser, game, players[5])

    again = import_game(referee_services.game_export(game), players[:5])

    assert _seat4(game) == _seat4(again) == {2: players[4].pk, 3: players[5].pk, 4: players[5].pk}


def test_a_club_substitute_stays_after_the_games_own_export_is_put_back_R37_R38(
    import_game, organiser, club, players, load_scenario
):
    """Two club players are called Fajar: the name alone names neither, the stored
    substitute does, and the record put back keeps it."""
    record = load_scenario(SCENARIO)["record"]
    record["rounds"][2].pop("substitutes")
    PlayerFactory(club=club, display_name="Fajar", member_number="F-2")
    game = import_game(record, players[:5])
    _substituted(organiser, game, players[5])
    exported = referee_services.game_export(game)

    response = token_client(organiser).put(
        f"{API}/games/{game.pk}/record/", {"record": exported}, format="json"
    )

    assert response.status_code == 200, response.content
    assert _seat4(game) == {2: players[4].pk, 3: players[5].pk, 4: players[5].pk}
    assert selectors.seats_now(Game.objects.get(pk=game.pk))[4].player_id == players[5].pk


def test_merging_a_duplicate_who_substituted_in_the_survivors_game_is_refused_R38(
    import_game, organiser, club, players, load_scenario
):
    """Decision: two players who sat one game, in a seat or as a substitute, are two
    people (409 ``merge_invalid``); nothing moves, so no round is credited twice."""
    record = load_scenario(SCENARIO)["record"]
    record["rounds"][2].pop("substitutes")
    game = import_game(record, players[:5])
    duplicate = PlayerFactory(club=club, display_name="andi")
    _substituted(organiser, game, duplicate)
    before = _credited(game)

    with pytest.raises(MergeInvalid):
        league.player_merge(survivor=players[0], duplicate=duplicate, by=organiser)

    assert _credited(game) == before
    assert SeatRound.objects.filter(game=game, player=players[0]).count() == 3  # 3 rounds


def test_a_merged_substitutes_rounds_stay_with_the_survivor_after_a_correction_R37_R38(
    import_game, organiser, club, players, load_scenario
):
    """The substitute's event still names the duplicate; every later rebuild of the
    rows, the room's occupants and the seated-elsewhere check read the survivor."""
    record = load_scenario(SCENARIO)["record"]
    record["rounds"][2].pop("substitutes")
    game = import_game(record, players[:5])
    survivor = PlayerFactory(club=club, display_name="Gita")
    duplicate = PlayerFactory(club=club, display_name="gita")
    _substituted(organiser, game, duplicate)

    league.player_merge(survivor=survivor, duplicate=duplicate, by=organiser)
    league.seat_rounds_rebuild(game=Game.objects.get(pk=game.pk))  # as every ruling does

    assert _seat4(game) == {2: players[4].pk, 3: survivor.pk, 4: survivor.pk}
    assert SeatRound.objects.filter(player=duplicate).count() == 0
    assert selectors.seats_now(Game.objects.get(pk=game.pk))[4].player_id == survivor.pk
