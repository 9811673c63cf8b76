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


# -- ratings: a cycle is rated for who sat it (R38) -------------------------------------------

G101 = "g101_generated_40_rounds"  # elections in rounds 6, 10, 16, 26 and 32


def _round_events(data: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """A record round as the table enters it: moves, then reveals seat 0 to 4 (R34)."""
    events: list[tuple[str, dict[str, Any]]] = [("move", move) for move in data["moves"]]
    for seat in range(5):
        if str(seat) in (data.get("reveal") or {}):
            events.append(("reveal", {"seat": seat, "tiles": data["reveal"][str(seat)]}))
        elif str(seat) in (data.get("pips") or {}):
            events.append(("reveal", {"seat": seat, "pips": data["pips"][str(seat)]}))
    return events


def _cycles_of(club: Any, player: Player) -> int:
    rated = {r.player: r.cycles for r in selectors.club_ratings(club=club).ratings}
    return rated.get(player.pk, 0)


def _assert_cycle_credit(game: Game, club: Any, cakra: Player, gita: Player) -> None:
    """Cakra sat seat 2 for rounds 17–25 of the cycle that round 26 ended, Gita only its
    last round: the cycle is Cakra's; the cycle of rounds 27–32 is all Gita's."""
    ends = {
        r.round_number: (r.player_id, r.cycle_player_id)
        for r in SeatRound.objects.filter(game=game, seat=2, cycle_ended=True)
    }
    assert ends[26] == (gita.pk, cakra.pk)  # the round is Gita's, the cycle Cakra's
    assert ends[32] == (gita.pk, gita.pk)
    assert _cycles_of(club, cakra) == 4  # rounds 6, 10, 16 and 26
    assert _cycles_of(club, gita) == 1
    assert selectors.club_ratings(club=club) == selectors.club_ratings_folded(club=club)


def test_a_cycle_is_rated_for_who_sat_most_of_it_not_a_late_substitute_import_R38(
    import_game, club, players, load_scenario
):
    gita = PlayerFactory(club=club, display_name="Gita")
    record = load_scenario(G101)["record"]
    record["rounds"][25]["substitutes"] = {"2": "Gita"}  # from round 26

    game = import_game(record, players[:5])

    _assert_cycle_credit(game, club, players[2], gita)


def test_a_cycle_is_rated_for_who_sat_most_of_it_when_played_live_R38(
    organiser, club, players, load_scenario
):
    """The live path (each round settled as it is played) credits as the rebuild does."""
    gita = PlayerFactory(club=club, display_name="Gita")
    record = load_scenario(G101)["record"]
    game = referee_services.game_create(
        players=[p.pk for p in players[:5]], created_by=organiser, club=club
    )
    actor = Actor(user=organiser)
    for number, data in enumerate(record["rounds"], 1):
        if number == 26:
            _substituted_at(organiser, game, gita, seat=2, round=26)
        for kind, payload in _round_events(data):
            referee_services.event_submit(game_id=game.pk, kind=kind, payload=payload, actor=actor)
    live = list(
        SeatRound.objects.filter(game=game).values_list("round_number", "seat", "cycle_player")
    )

    _assert_cycle_credit(game, club, players[2], gita)
    league.seat_rounds_rebuild(game=Game.objects.get(pk=game.pk))
    assert (
        list(
            SeatRound.objects.filter(game=game).values_list("round_number", "seat", "cycle_player")
        )
        == live
    )


def test_a_merge_moves_the_cycles_rated_for_the_duplicate_R38(
    import_game, organiser, club, players, load_scenario
):
    gita = PlayerFactory(club=club, display_name="Gita")
    duplicate = PlayerFactory(club=club, display_name="Gita", member_number="G-2")
    record = load_scenario(G101)["record"]
    game = import_game(record, players[:5])
    _substituted_at(organiser, game, duplicate, seat=2, round=26)

    league.player_merge(survivor=gita, duplicate=duplicate, by=organiser)

    _assert_cycle_credit(game, club, players[2], gita)
    assert not SeatRound.objects.filter(cycle_player=duplicate).exists()


def _substituted_at(organiser: Any, game: Game, player: Player, *, seat: int, round: int) -> None:
    corrections.seat_substitute(
        game_id=game.pk,
        seat=seat,
        round=round,
        player=player.pk,
        allow_elsewhere=True,
        actor=Actor(user=organiser),
    )


def test_every_read_of_who_sat_follows_a_merged_substitute_R38(
    import_game, organiser, club, players, load_scenario
):
    """The club's games list (who sits now), the survivor's history, the standings and
    their CSV export, and the ratings read the survivor where the duplicate substituted."""
    record = load_scenario(SCENARIO)["record"]
    record["rounds"][2].pop("substitutes")
    game = import_game(record, players[:5])
    survivor = PlayerFactory(club=club, display_name="Gita")
    duplicate = PlayerFactory(club=club, display_name="gita")
    _substituted(organiser, game, duplicate)
    league.player_merge(survivor=survivor, duplicate=duplicate, by=organiser)
    client = token_client(organiser)
    base = f"{API}/clubs/{club.slug}"

    listed = client.get(f"{base}/games/").json()["results"]
    history = client.get(f"{base}/players/{survivor.pk}/rounds/").json()["results"]
    standings = client.get(f"{base}/standings/").json()["results"]
    csv = client.get(f"{base}/standings/?format=csv").content.decode()

    assert [seat["player"] for seat in listed[0]["seats"]][4] == survivor.pk
    assert sorted(r["round"] for r in history) == [3, 4]
    rows = {line["player"]: line["rounds_played"] for line in standings}
    assert (rows[survivor.pk], rows.get(duplicate.pk), rows[players[4].pk]) == (2, None, 1)
    assert "Gita" in csv
    assert "gita" not in csv


def test_head_to_head_credits_a_cycle_to_who_sat_most_of_it_as_the_ratings_do_R38_R24(
    import_game, club, players, load_scenario
):
    """Head-to-head's ``cycles_ahead`` follows ``cycle_player``: the cycle that round 26
    ended is Cakra's (seat 2, rounds 17–25), not Gita's, who sat only round 26."""
    gita = PlayerFactory(club=club, display_name="Gita")
    record = load_scenario(G101)["record"]
    record["rounds"][25]["substitutes"] = {"2": "Gita"}  # from round 26
    game = import_game(record, players[:5])
    cakra = players[2]
    rows = {(r.round_number, r.seat): r for r in SeatRound.objects.filter(game=game)}
    for other in (players[0], players[1], players[3], players[4]):
        seat = players.index(other)
        ahead = {cakra.pk: 0, other.pk: 0}
        for (number, s), row in rows.items():
            if s != 2 or not row.cycle_ended or row.cycle_player_id != cakra.pk:
                continue
            theirs = rows[(number, seat)]
            if row.camat_elected or (
                not theirs.camat_elected and row.stones_held < theirs.stones_held
            ):
                ahead[cakra.pk] += 1
            if theirs.camat_elected or (
                not row.camat_elected and theirs.stones_held < row.stones_held
            ):
                ahead[other.pk] += 1

        result = selectors.head_to_head(rows=SeatRound.objects.filter(club=club), a=cakra, b=other)

        assert result.totals[cakra.pk]["cycles_ahead"] == ahead[cakra.pk], other.display_name
        assert result.totals[other.pk]["cycles_ahead"] == ahead[other.pk], other.display_name
    ended_26 = rows[(26, 2)]
    assert (ended_26.player_id, ended_26.cycle_player_id) == (gita.pk, cakra.pk)
    gita_vs_andi = selectors.head_to_head(
        rows=SeatRound.objects.filter(club=club), a=gita, b=players[0]
    )
    assert gita_vs_andi.totals[gita.pk]["cycles_ahead"] <= 1  # only round 32's cycle is hers
