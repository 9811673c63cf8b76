"""The stored-game services without HTTP: events, refusals, the cached fold, import and export."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee import folding, selectors, services
from referee.engine import RefereeError, RuleSet
from referee.engine.records import Record, export_record, replay, replay_record
from referee.engine.simulation import PLAYERS, random_record
from referee.exceptions import (
    EventNotAmendable,
    GameClosed,
    JoinCodeInvalid,
    JoinLockedOut,
    SeatNotAllowed,
)
from referee.models import Correction, Event, Game, RefusedEvent, TableToken
from tests.factories import GameFactory, TableTokenFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def organiser():
    return services.Actor(user=UserFactory())


def submit(game: Game, kind: str, payload: dict[str, Any], actor: services.Actor) -> Any:
    return services.event_submit(game_id=game.pk, kind=kind, payload=payload, actor=actor)


def play_record_through_services(game: Game, record: dict[str, Any], actor: services.Actor):
    """Enter a record's events as a table would: hands, moves, reveals seat 0 to 4 (R34)."""
    phones: dict[int, services.Actor] = {}  # a seat is claimed by one phone for the game
    for data in record["rounds"]:
        for seat, tiles in sorted((data.get("hands") or {}).items()):
            if int(seat) not in phones:
                phones[int(seat)] = services.Actor(
                    token=TableTokenFactory(game=game, seat=int(seat))
                )
            submit(game, "hand", {"seat": int(seat), "tiles": tiles}, phones[int(seat)])
        for move in data["moves"]:
            submit(game, "move", move, actor)
        for seat in range(5):
            if str(seat) in (data.get("reveal") or {}):
                submit(game, "reveal", {"seat": seat, "tiles": data["reveal"][str(seat)]}, actor)
            elif str(seat) in (data.get("pips") or {}):
                submit(game, "reveal", {"seat": seat, "pips": data["pips"][str(seat)]}, actor)


def full_fold_standing(game: Game) -> dict[str, Any]:
    """The standing from folding every live event from the game's start (no cached snapshot)."""
    events = game.events.filter(revoked_by__isnull=True).order_by("position")
    engine, _ = folding.fold(RuleSet.from_dict(game.rules), [(e.kind, e.payload) for e in events])
    return engine.standing().to_dict()


def cached_state_standing(game: Game) -> dict[str, Any]:
    game.refresh_from_db()
    state = selectors.game_state_for(game)
    return {
        "table": state["table"],
        "stones": [seat["stones"] for seat in state["seats"]],
        "camat": state["camat"],
        "next_leader": state["turn"],
    }


def test_game_create_stores_five_seats_the_rule_set_and_the_empty_fold_R3_R40(organiser):
    game = services.game_create(
        players=list(PLAYERS), rules={"pass_stones": 2}, created_by=organiser.user
    )

    assert game.players == list(PLAYERS)
    assert game.rules["pass_stones"] == 2
    assert game.rules["starting_stones"] == 25
    assert game.version == 0
    assert game.state["snapshot"]["standing"]["table"] == 25


@pytest.mark.parametrize("players", [PLAYERS[:4], [*PLAYERS[:4], ""], [*PLAYERS, "Fajar"]])
def test_game_create_refuses_anything_but_five_names_R3(players):
    with pytest.raises(RefereeError) as excinfo:
        services.game_create(players=list(players))

    assert excinfo.value.code == "record_invalid"
    assert not Game.objects.exists()


def test_an_accepted_event_is_stored_with_its_round_session_and_author(organiser):
    game = GameFactory()

    submitted = submit(game, "move", {"seat": 0, "tile": "6-6"}, organiser)

    assert isinstance(submitted, services.Submitted)
    event = Event.objects.get()
    assert (submitted.event.pk, submitted.game.version) == (event.pk, 1)
    assert submitted.effect.round == 1
    assert submitted.state["version"] == 1
    assert (event.position, event.kind, event.round_number) == (0, "move", 1)
    assert event.payload == {"seat": 0, "tile": "6-6"}
    assert event.session.number == 1
    assert event.entered_by == f"user {organiser.user.username}"
    game.refresh_from_db()
    assert game.version == 1


def test_a_refused_event_raises_the_rules_error_logs_it_and_stores_nothing_else_R8(organiser):
    game = GameFactory()
    submit(game, "move", {"seat": 0, "tile": "6-6"}, organiser)

    with pytest.raises(RefereeError) as excinfo:
        submit(game, "move", {"seat": 3, "tile": "3-6"}, organiser)

    assert (excinfo.value.code, excinfo.value.rule) == ("not_your_turn", "R8")
    refused = RefusedEvent.objects.get()
    assert (refused.code, refused.rule, refused.kind) == ("not_your_turn", "R8", "move")
    assert refused.payload == {"seat": 3, "tile": "3-6"}
    assert Event.objects.count() == 1
    game.refresh_from_db()
    assert game.version == 1


def test_only_the_seats_own_token_may_declare_its_hand_R31(organiser):
    game = GameFactory()
    hand = {"seat": 1, "tiles": ["3-6", "5-6", "0-0", "0-1", "0-2"]}
    scorekeeper = services.Actor(token=TableTokenFactory(game=game))
    seat_1 = services.Actor(token=TableTokenFactory(game=game, seat=1))

    for actor in (organiser, scorekeeper):
        with pytest.raises(SeatNotAllowed):
            submit(game, "hand", hand, actor)
    assert isinstance(submit(game, "hand", hand, seat_1), services.Submitted)


def test_a_closed_game_refuses_events(organiser):
    game = GameFactory()
    services.game_close(
        game_id=game.pk,
        actor=organiser,
        precondition=services.Precondition(game.version, from_header=True),
    )

    with pytest.raises(GameClosed):
        submit(game, "move", {"seat": 0, "tile": "6-6"}, organiser)


def test_a_phone_amends_no_event_outside_the_current_round_R37(organiser, load_scenario):
    game = GameFactory()
    play_record_through_services(game, load_scenario("01_plain_finish")["record"], organiser)
    submit(game, "move", {"seat": 0, "tile": "3-3"}, organiser)
    phone = services.Actor(token=TableTokenFactory(game=game, seat=None))

    with pytest.raises(EventNotAmendable):
        services.event_amend(
            game_id=game.pk, position=0, payload={"seat": 0, "tile": "6-6"}, actor=phone
        )
    with pytest.raises(EventNotAmendable):  # no live event there, whoever asks
        services.event_amend(
            game_id=game.pk, position=99, payload={"seat": 0, "tile": "6-6"}, actor=organiser
        )


def test_a_refused_amendment_revokes_nothing_and_logs_the_refusal(organiser, load_scenario):
    game = GameFactory()
    moves = load_scenario("05_blocked_no_mattikkeng")["record"]["rounds"][0]["moves"]
    for move in moves[:4]:
        submit(game, "move", move, organiser)

    with pytest.raises(RefereeError) as excinfo:
        services.event_amend(
            game_id=game.pk, position=1, payload={"seat": 1, "tile": "1-6"}, actor=organiser
        )

    assert excinfo.value.code == "tile_does_not_match"
    assert not Correction.objects.exists()
    assert not Event.objects.filter(revoked_by__isnull=False).exists()
    assert RefusedEvent.objects.get().code == "tile_does_not_match"


def test_an_amendment_may_not_move_later_events_into_another_round_R14_R30(
    organiser, load_scenario
):
    game = GameFactory()
    moves = load_scenario("01_plain_finish")["record"]["rounds"][0]["moves"]
    for move in moves[:-1]:
        submit(game, "move", move, organiser)
    submit(game, "move", {"seat": 0, "pass": True}, organiser)
    seat_1 = services.Actor(token=TableTokenFactory(game=game, seat=1))
    submit(game, "hand", {"seat": 1, "tiles": ["5-6", "3-3", "0-1", "0-2", "2-5"]}, seat_1)

    with pytest.raises(RefereeError) as excinfo:
        services.event_amend(
            game_id=game.pk, position=20, payload={"seat": 0, "tile": "1-4"}, actor=organiser
        )

    assert (excinfo.value.code, excinfo.value.round) == ("round_over", 1)
    assert not Correction.objects.exists()


def test_undo_and_amend_refold_and_recache_the_snapshot(organiser, load_scenario):
    game = GameFactory()
    play_record_through_services(game, load_scenario("02_ceki")["record"], organiser)
    submit(game, "move", {"seat": 0, "tile": "3-3"}, organiser)

    services.event_undo(game_id=game.pk, actor=organiser)
    services.event_undo(game_id=game.pk, actor=organiser)
    assert cached_state_standing(game) == full_fold_standing(game)
    services.event_amend(
        game_id=game.pk, position=19, payload={"seat": 4, "tile": "1-3"}, actor=organiser
    )
    submit(game, "move", {"seat": 0, "tile": "1-4"}, organiser)

    assert cached_state_standing(game) == full_fold_standing(game)
    assert cached_state_standing(game)["table"] == 24


def test_game_import_stores_every_event_in_order_and_exports_the_same_record(
    organiser, load_scenario
):
    record = load_scenario("06_blocked_one_mattikkeng_lower")["record"]

    game = services.game_import(record=record, created_by=organiser.user)

    assert game.version == Event.objects.filter(game=game).count() == 12 + 5
    assert [e.kind for e in Event.objects.filter(game=game)][-5:] == ["reveal"] * 5
    assert services.game_export(game) == export_record(replay(Record.parse(record)), PLAYERS)


def test_game_import_of_an_impossible_record_stores_nothing(organiser, load_scenario):
    with pytest.raises(RefereeError):
        services.game_import(
            record=load_scenario("22_end_required")["record"], created_by=organiser.user
        )

    assert not Game.objects.exists()
    assert not Event.objects.exists()


def test_table_join_hands_out_a_key_stored_only_as_its_hash():
    game = GameFactory()

    key, token = services.table_join(join_code=game.join_code.lower(), seat=2, client="1.2.3.4")

    assert token.seat == 2
    assert token.key_hash != key
    assert TableToken.objects.get().game == game


def test_table_join_locks_a_client_out_after_repeated_wrong_codes(settings):
    settings.JOIN_LOCKOUT_FAILURES = 3
    game = GameFactory()
    for _ in range(settings.JOIN_LOCKOUT_FAILURES):
        with pytest.raises(JoinCodeInvalid):
            services.table_join(join_code="WRONG", client="1.2.3.4")

    with pytest.raises(JoinLockedOut) as locked:
        services.table_join(join_code=game.join_code, client="1.2.3.4")
    assert 0 < locked.value.retry_after <= settings.JOIN_LOCKOUT_SECONDS
    assert services.table_join(join_code=game.join_code, client="5.6.7.8")[1].game == game


def test_the_web_forms_code_check_and_table_join_count_the_same_wrong_codes(settings):
    settings.JOIN_LOCKOUT_FAILURES = 4
    game = GameFactory()
    for _ in range(2):
        with pytest.raises(JoinCodeInvalid):
            services.join_code_check(join_code="WRONG", client="1.2.3.4")
        with pytest.raises(JoinCodeInvalid):
            services.table_join(join_code="WRONG", client="1.2.3.4")

    with pytest.raises(JoinLockedOut):
        services.join_code_check(join_code=game.join_code, client="1.2.3.4")
    with pytest.raises(JoinLockedOut):
        services.table_join(join_code=game.join_code, client="1.2.3.4")


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1), rounds=st.integers(1, 4))
def test_a_game_entered_event_by_event_reads_as_its_record_R23_R27_R31(organiser, seed, rounds):
    """The cached fold equals the full fold; stones are conserved; export replays to the game."""
    record = random_record(
        random.Random(seed),
        rounds=rounds,
        declare_probability=0.3,
        finish_last_round=seed % 2 == 0,
    )
    game = GameFactory()

    play_record_through_services(game, record, organiser)

    standing = cached_state_standing(game)
    assert standing == full_fold_standing(game)
    assert standing["table"] + sum(standing["stones"]) == 25
    assert min(standing["stones"]) >= 0
    assert replay_record(services.game_export(game)) == replay_record(record)
