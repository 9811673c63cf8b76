"""Property (R36, R27, issue 29): an adjustment judged only to the round whose standing
came back (``corrections._window``, ``_back_at``) stores exactly what the judge of the
whole game stores: the same live events, settled rows, seat-rounds, totals and ratings,
the same game state and answers; and it is refused alike.

Two leagues import the same record at the same date; the same adjustment is made in
each, one as the service makes it, the other with the window closed
(``WINDOW_ROUNDS = 0``: every round from the ruling's on judged again, as before)."""

from __future__ import annotations

import copy
import datetime
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from referee import selectors, services, settled
from referee.engine import RefereeError
from referee.engine.records import replay_record
from referee.engine.simulation import random_record
from referee.exceptions import ServiceError
from referee.models import Correction, Game, SettledRound
from referee.services import corrections
from referee.store import state_of
from scoring import services as league
from scoring.models import TOTAL_FIELDS, PlayerRating, PlayerTotals, RatingStep, SeatRound
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PLAYED_AT = datetime.datetime(2026, 12, 1, 19, 0, tzinfo=datetime.UTC)
SEAT_FIELDS = tuple(
    f.name
    for f in SeatRound._meta.concrete_fields
    if f.name not in {"id", "game", "club", "season", "player", "cycle_player", "played_at"}
)


def _league_game(record: dict[str, Any], user: Any, name: str) -> tuple[Game, list[int]]:
    club = league.club_create(name=name, slug=name, created_by=user)
    players = [
        league.player_create(club=club, display_name=seat, by=user).pk
        for seat in ("Andi", "Besse", "Cakra", "Daeng", "Evi")
    ]
    game = services.game_import(
        record=record, created_by=user, club=club, players=players, played_at=PLAYED_AT
    )
    return game, players


def _picture(game: Game, players: list[int]) -> dict[str, Any]:
    """What the game and its league hold, players named by their seat (ids differ)."""
    game = Game.objects.get(pk=game.pk)
    who = {player: index for index, player in enumerate(players)}
    state = state_of(game)
    notices = [{k: v for k, v in n.items() if k != "correction"} for n in state.notices]
    answer = selectors.game_state_for(game, organiser=True)
    return {
        "events": [
            (*row[:-1], row[-1] is None)
            for row in game.events.order_by("position", "id").values_list(
                "position", "kind", "payload", "round_number", "revoked_by_id"
            )
        ],
        "corrections": list(game.corrections.values_list("kind", "changes", "reason")),
        "settled": list(
            SettledRound.objects.filter(game=game)
            .order_by("number")
            .values_list("number", "record", "result", "compact")
        ),
        "seat_rounds": [
            (*row[:-2], who.get(row[-2]), who.get(row[-1]))
            for row in SeatRound.objects.filter(game=game)
            .order_by("round_number", "seat")
            .values_list(*SEAT_FIELDS, "player_id", "cycle_player_id")
        ],
        "totals": sorted(
            (who[row[0]], row[1] is None, *row[2:])
            for row in PlayerTotals.objects.filter(player_id__in=players).values_list(
                "player_id", "season_id", *TOTAL_FIELDS
            )
        ),
        "ratings": sorted(
            (who[row[0]], *row[1:])
            for row in PlayerRating.objects.filter(player_id__in=players).values_list(
                "player_id", "mu", "sigma", "cycles", "last_played_at"
            )
        ),
        "steps": sorted(
            (who[row[0]], *row[1:])
            for row in RatingStep.objects.filter(player_id__in=players).values_list(
                "player_id", "round_number", "mu", "sigma", "cycles"
            )
        ),
        "state": (
            state.snapshot,
            state.substitutes and [list(s[:3]) for s in state.substitutes],
            state.verification,
            notices,
            state.next_position,
            game.version,
        ),
        "answer": {k: v for k, v in answer.items() if k not in {"id", "version"}},
        "export": services.game_export(game),
        "result": settled.game_rounds(game).results,
        "differences": settled.differences(game),
    }


@st.composite
def cases(draw) -> tuple[dict[str, Any], dict[str, Any]]:
    """A record of random legal play (sometimes with a substitute, R38) and an adjustment
    after one of its closed rounds (R36), nearly always one its giver can pay."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    record = random_record(
        rng,
        rounds=draw(st.integers(2, 45)),
        declare_probability=draw(st.sampled_from([0.0, 0.2])),
        finish_last_round=draw(st.booleans()),
    )
    result = replay_record(record)
    if draw(st.booleans()) and len(record["rounds"]) > 2:
        record = copy.deepcopy(record)
        at = draw(st.integers(1, len(record["rounds"]) - 1))
        record["rounds"][at]["substitutes"] = {str(draw(st.integers(0, 4))): "Fajar"}
    closed = [i for i, r in enumerate(result["rounds"]) if r["after"]["next_leader"] is not None]
    early = [i for i in closed if i < 3]  # an early ruling, judged over the most rounds
    index = draw(st.sampled_from(early or [0]) | st.sampled_from(closed or [0]))
    after = result["rounds"][index]["after"]
    holders = (["table"] if after["table"] else []) + [s for s in range(5) if after["stones"][s]]
    giver = draw(st.sampled_from(holders or ["table"]))
    held = after["table"] if giver == "table" else after["stones"][giver]
    stones = held + 1 if draw(st.integers(0, 9)) == 0 else draw(st.integers(1, max(1, held)))
    receiver = draw(st.sampled_from([x for x in ("table", 0, 1, 2, 3, 4) if x != giver]))
    ruling = {"round": index + 1, "source": giver, "to": receiver, "stones": stones}
    return record, ruling


def _adjust(game: Game, user: Any, ruling: dict[str, Any]) -> str | None:
    """The ruling made on ``game``; the refusal's code, or ``None`` when accepted."""
    try:
        corrections.round_adjust(
            game_id=game.pk, actor=services.Actor(user=user), reason="a stone found", **ruling
        )
    except (RefereeError, ServiceError) as error:
        return str(getattr(error, "code", type(error).__name__))
    return None


@settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(case=cases())
def test_an_adjustment_judged_to_the_round_that_came_back_equals_the_whole_judge_R36_R27(
    db, monkeypatch, case
):
    record, ruling = case
    user = UserFactory()
    bounded, bounded_players = _league_game(record, user, f"b{Game.objects.count()}")
    whole, whole_players = _league_game(record, user, f"w{Game.objects.count()}")
    assert _picture(bounded, bounded_players) == _picture(whole, whole_players)

    backs: list[int | None] = []
    back_at = corrections._back_at

    def spied(*args: Any) -> int | None:
        backs.append(back_at(*args))
        return backs[-1]

    with monkeypatch.context() as patched:
        patched.setattr(corrections, "_back_at", spied)
        refused = _adjust(bounded, user, ruling)
    with monkeypatch.context() as patched:
        patched.setattr(corrections, "WINDOW_ROUNDS", 0)
        assert _adjust(whole, user, ruling) == refused
    if refused is not None:
        event("refused alike")
        assert not Correction.objects.filter(game__in=[bounded, whole]).exists()
    else:
        event("judged to the round back" if backs and backs[-1] is not None else "judged whole")
    assert _picture(bounded, bounded_players) == _picture(whole, whole_players)
    assert _picture(bounded, bounded_players)["differences"] == []


def _remove_adjustment(game: Game, user: Any) -> str | None:
    """The game's one live adjustment removed by a correction (R37); the refusal's code."""
    position = game.events.filter(kind="adjustment", revoked_by=None).values_list(
        "position", flat=True
    )
    try:
        corrections.events_correct(
            game_id=game.pk,
            changes=[corrections.Change("remove", position.get())],
            actor=services.Actor(user=user),
            reason="the stone was not found",
        )
    except (RefereeError, ServiceError) as error:
        return str(getattr(error, "code", type(error).__name__))
    return None


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(case=cases())
def test_an_adjustment_removed_to_the_round_that_came_back_equals_the_whole_judge_R36_R37(
    db, monkeypatch, case
):
    record, ruling = case
    user = UserFactory()
    bounded, bounded_players = _league_game(record, user, f"b{Game.objects.count()}")
    whole, whole_players = _league_game(record, user, f"w{Game.objects.count()}")
    with monkeypatch.context() as patched:
        patched.setattr(corrections, "WINDOW_ROUNDS", 0)
        if _adjust(bounded, user, ruling) is not None:
            event("the adjustment refused")
            return
        assert _adjust(whole, user, ruling) is None
    assert _picture(bounded, bounded_players) == _picture(whole, whole_players)

    backs: list[int | None] = []
    back_at = corrections._back_at

    def spied(*args: Any) -> int | None:
        backs.append(back_at(*args))
        return backs[-1]

    with monkeypatch.context() as patched:
        patched.setattr(corrections, "_back_at", spied)
        refused = _remove_adjustment(bounded, user)
    with monkeypatch.context() as patched:
        patched.setattr(corrections, "WINDOW_ROUNDS", 0)
        assert _remove_adjustment(whole, user) == refused
    if refused is not None:
        event("its removal refused alike")
    else:
        event("removed to the round back" if backs and backs[-1] is not None else "removed whole")
    assert _picture(bounded, bounded_players) == _picture(whole, whole_players)
    assert _picture(bounded, bounded_players)["differences"] == []
