"""Ratings: OpenSkill's Bradley–Terry over completed CAMAT cycles, recomputed from the games."""

from __future__ import annotations

import pytest

from referee import services as referee_services
from referee.models import Event
from scoring import selectors
from scoring.ratings import rating_model

pytestmark = pytest.mark.django_db


def _by_player(ratings):
    return {rating.player: rating for rating in ratings.ratings}


def test_a_cycle_ranks_the_camat_first_then_the_others_by_the_stones_they_held(
    club, season, players, import_game, load_scenario
):
    import_game(load_scenario("14_camat_election_reset_25")["record"], players[:5], season)

    ratings = selectors.club_ratings(club=club, season=season)

    # Round 3 ends the cycle: Besse CAMAT (0), then Evi 3, Cakra and Daeng 7 (a tie), Andi 8.
    model = rating_model()
    expected = model.rate([[model.rating()] for _ in range(5)], ranks=[9, 0, 8, 8, 4])
    rated = _by_player(ratings)
    assert ratings.cycles == 1
    for seat, [want] in enumerate(expected):
        got = rated[players[seat].pk]
        assert (got.mu, got.sigma) == pytest.approx((want.mu, want.sigma), abs=1e-3)
        assert got.cycles == 1
    assert [r.player for r in ratings.ratings][0] == players[1].pk
    assert rated[players[2].pk].mu == pytest.approx(rated[players[3].pk].mu)  # tied on 7
    # Equal ratings share a rank, and the next rank skips: Besse 1, Evi 2, Cakra = Daeng 3, Andi 5.
    assert [r.rank for r in ratings.ratings] == [1, 2, 3, 3, 5]
    assert rated[players[2].pk].rank == rated[players[3].pk].rank == 3


def test_games_without_an_election_are_not_rated(club, season, players, import_game, load_scenario):
    import_game(load_scenario("01_plain_finish")["record"], players[:5], season)

    ratings = selectors.club_ratings(club=club, season=season)

    assert (ratings.cycles, ratings.ratings) == (0, [])


def test_a_guest_is_rated_against_but_not_listed(club, season, players, import_game, load_scenario):
    import_game(
        load_scenario("14_camat_election_reset_25")["record"], [*players[:4], "Guest"], season
    )

    ratings = selectors.club_ratings(club=club, season=season)

    assert {r.player for r in ratings.ratings} == {p.pk for p in players[:4]}


def test_a_correction_flows_into_the_ratings(
    organiser, club, season, players, import_game, load_scenario
):
    game = import_game(load_scenario("14_camat_election_reset_25")["record"], players[:5], season)
    before = selectors.club_ratings(club=club, season=season)

    # Undo the POLLO that elected the CAMAT: the cycle is no longer complete.
    referee_services.event_undo(game_id=game.pk, actor=referee_services.Actor(user=organiser))

    after = selectors.club_ratings(club=club, season=season)
    assert before.cycles == 1
    assert (after.cycles, after.ratings) == (0, [])
    assert Event.objects.filter(game=game, revoked_by__isnull=False).count() == 1


def test_ratings_fold_cycles_in_the_order_they_ended(
    club, season, players, import_game, load_scenario
):
    record = load_scenario("14_camat_election_reset_25")["record"]
    import_game(record, players[:5], season)
    import_game(record, [players[1], players[0], *players[2:5]], season)

    rated = _by_player(selectors.club_ratings(club=club, season=season))

    model = rating_model()
    people = {p.pk: model.rating() for p in players[:5]}
    for order in ([0, 1, 2, 3, 4], [1, 0, 2, 3, 4]):
        teams = [[people[players[i].pk]] for i in order]
        for i, [rating] in zip(order, model.rate(teams, ranks=[9, 0, 8, 8, 4]), strict=True):
            people[players[i].pk] = rating
    for pk, want in people.items():
        assert (rated[pk].mu, rated[pk].sigma) == pytest.approx((want.mu, want.sigma), abs=1e-3)
        assert rated[pk].cycles == 2
