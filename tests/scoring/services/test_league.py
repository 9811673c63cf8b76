"""Clubs, players, seasons and seats: who sits where, merges, links, archives."""

from __future__ import annotations

import pytest
from django.db.models import ProtectedError

from referee import services as referee_services
from referee.engine.errors import RefereeError
from referee.models import Seat
from referee.services import corrections
from scoring import exceptions as errors
from scoring import services
from scoring.league import ClubLeague
from scoring.models import (
    GameLeague,
    Membership,
    Player,
    PlayerMerge,
    SeatLink,
    SeatPlayer,
    SeatRound,
)
from tests.factories import UserFactory
from tests.scoring.factories import ClubFactory, PlayerFactory, SeasonFactory

pytestmark = pytest.mark.django_db


# -- games with registered players ---------------------------------------------------------


def test_a_club_game_seats_registered_players_under_their_names_and_guests_by_name(
    organiser, club, season, players
):
    game = referee_services.game_create(
        players=[
            players[0].pk,
            {"player": players[1].pk},
            "Guest Gita",
            players[2].pk,
            players[3].pk,
        ],
        created_by=organiser,
        club=club,
        season=season,
    )

    seats = list(game.seats.order_by("number").values_list("name", "registered__player"))
    assert [name for name, _ in seats] == ["Andi", "Besse", "Guest Gita", "Cakra", "Daeng"]
    assert [player for _, player in seats] == [
        players[0].pk,
        players[1].pk,
        None,
        players[2].pk,
        players[3].pk,
    ]
    assert (game.league.club, game.league.season) == (club, season)


def test_a_season_alone_puts_the_game_in_its_club(organiser, club, season, players):
    game = referee_services.game_create(
        players=[p.pk for p in players[:5]], created_by=organiser, season=season
    )

    assert game.league.club == club


def test_a_friendly_game_leaves_no_league_rows(organiser):
    game = referee_services.game_create(players=list("ABCDE"), created_by=organiser)

    assert not GameLeague.objects.filter(game=game).exists()
    assert not SeatPlayer.objects.filter(seat__game=game).exists()


def test_re_seating_a_player_then_a_guest_keeps_the_seats_player_in_the_league_R38(
    organiser, club, season, players
):
    game = referee_services.game_create(
        players=[p.pk for p in players[:4]] + ["Gita"],
        created_by=organiser,
        club=club,
        season=season,
    )
    actor = referee_services.Actor(user=organiser)

    corrections.seat_rename(game_id=game.pk, seat=4, player=players[4].pk, actor=actor)
    assert SeatPlayer.objects.get(seat__game=game, seat__number=4).player == players[4]
    corrections.seat_rename(game_id=game.pk, seat=0, name="Guest Andi", actor=actor)

    assert not SeatPlayer.objects.filter(seat__game=game, seat__number=0).exists()
    assert ClubLeague().seat_players(game=game) == {
        1: players[1].pk,
        2: players[2].pk,
        3: players[3].pk,
        4: players[4].pk,
    }
    audit = [c.changes[0] for c in game.corrections.order_by("created_at", "id")]
    assert [(c["previous"]["player"], c["player"]) for c in audit] == [
        (None, players[4].pk),
        (players[0].pk, None),
    ]
    names = [o.name for o in game.seats_now()]
    assert names == ["Guest Andi", "Besse", "Cakra", "Daeng", players[4].display_name]


@pytest.mark.parametrize(
    ("make_seats", "error"),
    [
        (lambda ps, other: [other.pk, *[p.pk for p in ps[1:5]]], errors.PlayerNotInClub),
        (lambda ps, other: [ps[0].pk, ps[0].pk, *[p.pk for p in ps[2:5]]], errors.PlayerTwice),
        (lambda ps, other: [999_999, *[p.pk for p in ps[1:5]]], errors.PlayerNotInClub),
    ],
)
def test_a_seat_must_be_a_player_of_the_games_club_seated_once(
    organiser, club, players, make_seats, error
):
    other = PlayerFactory()  # another club's

    with pytest.raises(error):
        referee_services.game_create(
            players=make_seats(players, other), created_by=organiser, club=club
        )


def test_a_player_id_needs_the_games_club(organiser, players):
    with pytest.raises(errors.ClubRequired):
        referee_services.game_create(
            players=[players[0].pk, "B", "C", "D", "E"], created_by=organiser
        )


def test_no_game_can_join_an_archived_season(organiser, club, season, players):
    services.season_archive(season=season, by=organiser)

    with pytest.raises(errors.SeasonArchived):
        referee_services.game_create(
            players=["A", "B", "C", "D", "E"], created_by=organiser, season=season
        )


def test_a_season_of_another_club_is_refused(organiser, club):
    with pytest.raises(errors.SeasonNotInClub):
        referee_services.game_create(
            players=["A", "B", "C", "D", "E"],
            created_by=organiser,
            club=club,
            season=SeasonFactory(),
        )


def test_only_an_organiser_of_the_club_creates_its_games(member, club):
    with pytest.raises(errors.NotClubOrganiser):
        referee_services.game_create(
            players=["A", "B", "C", "D", "E"], created_by=member, club=club
        )


def test_five_seats_are_still_checked_by_the_rules_R3(organiser, club, players):
    with pytest.raises(RefereeError) as raised:
        referee_services.game_create(
            players=[p.pk for p in players[:4]], created_by=organiser, club=club
        )

    assert raised.value.code == "record_invalid"


# -- linking a guest's seat ----------------------------------------------------------------


def test_linking_a_guest_seat_gives_its_rounds_to_the_player_and_is_audited(
    organiser, club, season, players, import_game, load_scenario
):
    game = import_game(
        load_scenario("14_camat_election_reset_25")["record"],
        [*players[:4], "Guest Evi"],
        season,
    )
    assert SeatRound.objects.filter(game=game, seat=4, player=None).count() == 3

    services.seat_link(game=game, seat_number=4, player=players[4], by=organiser)

    assert Seat.objects.get(game=game, number=4).registered.player == players[4]
    assert SeatRound.objects.filter(game=game, seat=4, player=players[4]).count() == 3
    link = SeatLink.objects.get()
    assert (link.previous, link.player, link.linked_by) == (None, players[4], organiser)


def test_a_seated_player_cannot_be_linked_to_a_second_seat(
    organiser, club, players, import_game, load_scenario
):
    game = import_game(load_scenario("01_plain_finish")["record"], [*players[:4], "Guest"])

    with pytest.raises(errors.PlayerTwice):
        services.seat_link(game=game, seat_number=4, player=players[0], by=organiser)


def test_a_member_cannot_link_seats(member, organiser, players, import_game, load_scenario):
    game = import_game(load_scenario("01_plain_finish")["record"], [*players[:4], "Guest"])

    with pytest.raises(errors.NotClubOrganiser):
        services.seat_link(game=game, seat_number=4, player=players[4], by=member)


# -- players and merges --------------------------------------------------------------------


def test_a_member_number_is_unique_in_the_club_but_may_be_left_blank(organiser, club):
    services.player_create(club=club, display_name="Andi", member_number="7", by=organiser)
    services.player_create(club=club, display_name="Besse", by=organiser)
    services.player_create(club=club, display_name="Cakra", by=organiser)
    services.player_create(
        club=ClubFactory(), display_name="Other", member_number="7", by=UserFactory(is_staff=True)
    )

    with pytest.raises(errors.MemberNumberTaken):
        services.player_create(club=club, display_name="Daeng", member_number="7", by=organiser)


def test_merging_a_duplicate_moves_its_seats_and_stats_and_keeps_an_audit(
    organiser, club, season, players, import_game, load_scenario
):
    duplicate = PlayerFactory(club=club, display_name="Andi (again)", member_number="X-9")
    first = import_game(load_scenario("01_plain_finish")["record"], players[:5], season)
    second = import_game(load_scenario("02_ceki")["record"], [duplicate, *players[1:5]], season)

    merge = services.player_merge(
        survivor=players[0], duplicate=duplicate, by=organiser, reason="registered twice"
    )

    duplicate.refresh_from_db()
    assert duplicate.merged_into == players[0]
    assert Seat.objects.get(game=second, number=0).registered.player == players[0]
    assert SeatRound.objects.filter(player=players[0]).count() == 2
    assert not SeatRound.objects.filter(player=duplicate).exists()
    assert (merge.seats_moved, merge.seat_rounds_moved) == (1, 1)
    assert (merge.merged_name, merge.merged_member_number, merge.merged_by) == (
        "Andi (again)",
        "X-9",
        organiser,
    )
    assert PlayerMerge.objects.get(merged=duplicate) == merge
    assert Player.objects.filter(pk=duplicate.pk).exists()  # kept, never deleted
    assert first.seats.get(number=0).registered.player == players[0]


def test_two_players_who_sat_at_one_game_cannot_be_merged(
    organiser, club, players, import_game, load_scenario
):
    import_game(load_scenario("01_plain_finish")["record"], players[:5])

    with pytest.raises(errors.MergeInvalid):
        services.player_merge(survivor=players[0], duplicate=players[1], by=organiser)


def test_a_merged_player_can_neither_be_merged_again_nor_seated(organiser, club, players):
    services.player_merge(survivor=players[0], duplicate=players[5], by=organiser)

    with pytest.raises(errors.PlayerMerged):
        services.player_merge(survivor=players[1], duplicate=players[5], by=organiser)
    with pytest.raises(errors.PlayerMerged):
        referee_services.game_create(
            players=[players[5].pk, *[p.pk for p in players[1:5]]], created_by=organiser, club=club
        )


def test_players_of_two_clubs_cannot_be_merged(organiser, club, players):
    with pytest.raises(errors.MergeInvalid):
        services.player_merge(survivor=players[0], duplicate=PlayerFactory(), by=organiser)


# -- seasons and roles ---------------------------------------------------------------------


def test_archiving_a_season_keeps_it_and_its_games(
    organiser, club, season, players, import_game, load_scenario
):
    game = import_game(load_scenario("01_plain_finish")["record"], players[:5], season)

    services.season_archive(season=season, by=organiser)

    season.refresh_from_db()
    assert season.is_archived
    assert season.archived_at is not None
    assert GameLeague.objects.get(game=game).season == season
    with pytest.raises(ProtectedError):
        season.delete()  # PROTECT: a season with games is never deleted


def test_the_creator_of_a_club_is_its_organiser_and_can_name_members(db):
    founder = UserFactory(username="founder")
    besse = UserFactory(username="besse")

    club = services.club_create(name="Sengkang", slug="sengkang", created_by=founder)
    services.membership_set(club=club, username="besse", role="member", by=founder)

    assert Membership.objects.get(club=club, user=founder).role == "organiser"
    assert Membership.objects.get(club=club, user=besse).role == "member"
    with pytest.raises(errors.NotClubOrganiser):
        services.membership_set(club=club, username="founder", role="member", by=besse)
    with pytest.raises(errors.UserUnknown):
        services.membership_set(club=club, username="nobody", role="member", by=founder)


def test_moving_a_game_to_another_season_moves_its_seat_rounds(
    organiser, club, season, players, import_game, load_scenario
):
    game = import_game(load_scenario("01_plain_finish")["record"], players[:5], season)
    later = SeasonFactory(club=club, name="2026 second half")

    services.game_league_assign(game=game, club=club, season=later)

    assert set(SeatRound.objects.filter(game=game).values_list("season_id", flat=True)) == {
        later.pk
    }


# -- seasons' periods and the database's guard ----------------------------------------------


def test_the_services_refuse_a_season_ending_before_its_stored_start(organiser, club):
    import datetime as dt

    season = SeasonFactory(club=club, name="H1")

    with pytest.raises(errors.SeasonEndsBeforeStart) as refused:
        services.season_update(season=season, by=organiser, ends_on=dt.date(2025, 12, 1))
    with pytest.raises(errors.SeasonEndsBeforeStart):
        services.season_create(
            club=club,
            name="Backwards",
            by=organiser,
            starts_on=dt.date(2026, 6, 1),
            ends_on=dt.date(2026, 1, 1),
        )

    assert (refused.value.status, refused.value.code) == (400, "invalid")
    assert refused.value.extra["errors"][0]["field"] == "ends_on"
    season.refresh_from_db()
    assert season.ends_on == dt.date(2026, 6, 30)


def test_the_database_keeps_no_season_ending_before_it_starts(club):
    import datetime as dt

    from django.db import IntegrityError, transaction

    from scoring.models import Season

    season = SeasonFactory(club=club, name="H1")

    with pytest.raises(IntegrityError), transaction.atomic():
        Season.objects.filter(pk=season.pk).update(ends_on=dt.date(2025, 1, 1))


def test_the_models_clean_refuses_what_the_api_refuses(club, players):
    import datetime as dt

    from django.core.exceptions import ValidationError

    from scoring.models import Season

    backwards = Season(
        club=club, name="B", starts_on=dt.date(2026, 6, 1), ends_on=dt.date(2026, 1, 1)
    )
    twin = Player(club=club, display_name="Twin", member_number="mdc-1")
    hidden = Player(club=club, display_name="Andi\u200b")

    for instance, field, code in (
        (backwards, "ends_on", "ends_before_start"),
        (twin, "member_number", "member_number_taken"),
        (hidden, "display_name", "name_invalid"),
    ):
        with pytest.raises(ValidationError) as refused:
            instance.full_clean()
        assert [e.code for e in refused.value.error_dict[field]] == [code]
