"""``referee.store``: the game row's cached current round always agrees with the event table.

The cache (``GameState.current``) is valid for one version of the game: every write that
moves the version on either refreshes it (a move) or leaves it stale, so that the next read
goes to the tables (a sitting, an undo, an amendment, a re-seating). These tests drive a
game through random sequences of those writes and compare, after each, the round the cache
gives with the round read from the tables (R27: folding it from the snapshot gives the
whole game's state).
"""

from __future__ import annotations

import json
import random
import uuid
from typing import Any

import pytest
from django.db import connection, transaction
from django.db.models.signals import post_init
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from referee import folding, selectors, services, store
from referee.engine import RefereeError
from referee.engine.simulation import random_record
from referee.exceptions import ServiceError
from referee.models import Event, Game, TableToken, hash_token
from referee.services import corrections
from tests.factories import TableTokenFactory, UserFactory

pytestmark = pytest.mark.django_db

STEPS = ("event", "event", "event", "undo", "session", "rename")


def read_from_tables(game: Game) -> store.CurrentRound:
    """The current round as the tables give it, whatever the row caches."""
    uncached = Game.objects.get(pk=game.pk)
    store.set_state(uncached, store.replace(store.state_of(uncached), current=None))
    return store.current_round(uncached)


def as_compared(game: Game, current: store.CurrentRound) -> tuple[Any, ...]:
    """The round's events and seats, and what folding them gives: each event's effects and
    the table's state. The cache's fold replays its events with the effects it keeps; the
    tables' works every effect out again (issue 14)."""
    events = [(e.position, e.kind, e.payload, e.round_number, e.entered_by) for e in current.events]
    engine, effects = current.fold(store.rules_of(game))
    state = selectors.game_state(
        game, engine, current.events, effects, viewer=None, players=current.players
    )
    return current.snapshot, events, current.players, [e.to_dict() for e in effects], state


def read_state(game: Game, actor: services.Actor) -> dict[str, Any]:
    """The state as ``GET …/games/{id}/`` gives it to ``actor`` now (a fresh row)."""
    fresh = Game.objects.get(pk=game.pk)
    return selectors.game_state_for(fresh, viewer=actor.seat, viewer_label=actor.label)


def test_the_answer_to_a_rounds_lead_is_the_state_a_read_gives_R6_R27():
    """QA: the 201 of a round's first move listed the last round's events among its
    ``last_events``, where a read of the game at that version lists the new round's."""
    import random

    record = random_record(random.Random(4), rounds=2)
    organiser = services.Actor(user=UserFactory())
    game = services.game_create(players=record["players"], created_by=organiser.user)
    answers = []
    for kind, payload in record_events(record):
        result = services.event_submit(game_id=game.pk, kind=kind, payload=payload, actor=organiser)
        assert isinstance(result, services.Submitted)
        answers.append((result, read_state(game, organiser)))
    result, read = next(
        (result, read)
        for result, read in answers
        if result.event.kind == "move" and result.event.round_number == 2
    )
    assert [e["round"] for e in result.state["last_events"]] == [2]
    assert result.state == read
    assert all(result.state == read for result, read in answers)


def record_events(record: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    events: list[tuple[str, dict[str, Any]]] = []
    for data in record["rounds"]:
        events.extend(("move", move) for move in data["moves"])
        for seat in range(5):
            if str(seat) in (data.get("reveal") or {}):
                events.append(("reveal", {"seat": seat, "tiles": data["reveal"][str(seat)]}))
            elif str(seat) in (data.get("pips") or {}):
                events.append(("reveal", {"seat": seat, "pips": data["pips"][str(seat)]}))
    return events


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    seed=st.integers(0, 10_000),
    prefix=st.integers(0, 60),
    steps=st.lists(st.sampled_from(STEPS), max_size=30),
)
def test_the_cached_round_agrees_with_the_tables_after_every_write_R27(seed, prefix, steps):
    import random

    record = random_record(random.Random(seed), rounds=3)
    organiser = services.Actor(user=UserFactory())
    game = services.game_create(players=record["players"], created_by=organiser.user)
    pending = record_events(record)
    entered: list[tuple[str, dict[str, Any]]] = []
    # A prefix of the record first: the later steps then often cross a round's end.
    for index, step in enumerate(["event"] * prefix + steps):
        try:
            if step == "event" and pending:
                kind, payload = pending[0]
                result = services.event_submit(
                    game_id=game.pk, kind=kind, payload=payload, actor=organiser
                )
                entered.append(pending.pop(0))
                # The answer is the state a read of the game gives at its new version.
                assert isinstance(result, services.Submitted)
                assert result.state == read_state(game, organiser)
            elif step == "undo" and entered:
                services.event_undo(game_id=game.pk, actor=organiser)
                pending.insert(0, entered.pop())  # entered again by a later step
            elif step == "session":
                services.session_start(game_id=game.pk, actor=organiser)
            elif step == "rename":
                corrections.seat_rename(
                    game_id=game.pk, seat=index % 5, name=f"Player {index}", actor=organiser
                )
        except (RefereeError, ServiceError):
            pass  # e.g. nothing to undo, or the record's next event no longer fits
        game.refresh_from_db()
        cache = store.state_of(game).current
        if cache is not None and cache.version == game.version:
            assert cache.effects is not None  # a write that keeps the cache keeps them
        cached = store.current_round(game)
        assert as_compared(game, cached) == as_compared(game, read_from_tables(game))


def a_game_led_by_seat_2() -> tuple[services.Actor, Game]:
    """A new game whose organiser entered its first lead, seat 2's 6-6 (R5)."""
    organiser = services.Actor(user=UserFactory())
    game = services.game_create(players=["A", "B", "C", "D", "E"], created_by=organiser.user)
    services.event_submit(
        game_id=game.pk, kind="move", payload={"seat": 2, "tile": "6-6"}, actor=organiser
    )
    return organiser, game


def test_after_a_move_the_current_round_costs_no_query_R27():
    organiser, game = a_game_led_by_seat_2()
    game.refresh_from_db()

    with CaptureQueriesContext(connection) as queries:
        current = store.current_round(game)

    assert len(queries) == 0
    assert [(e.kind, e.payload) for e in current.events] == [("move", {"seat": 2, "tile": "6-6"})]
    assert current.players == ["A", "B", "C", "D", "E"]


def test_a_write_that_moves_the_version_on_without_the_cache_reads_the_tables_again_R38():
    organiser, game = a_game_led_by_seat_2()
    corrections.seat_rename(game_id=game.pk, seat=3, name="Daeng", actor=organiser)
    game.refresh_from_db()

    with CaptureQueriesContext(connection) as queries:
        current = store.current_round(game)

    assert len(queries) == 2  # the round's events, the seats' names
    assert current.players == ["A", "B", "C", "Daeng", "E"]


def test_the_round_cache_reads_back_every_effect_it_writes_R13_R17_R23_R24_R35():
    events = tuple(
        store.CachedEvent(position, "move", {"seat": position % 5, "pass": True}, 4, author)
        for position, author in enumerate(["seat 1", "seat 2", "seat 1", "organiser", "seat 2"])
    )
    effects = (
        folding.Effects(4),  # a play that named nothing
        folding.Effects(
            4, ["PASSEBUNGE"], [{"move": 1, "from": 1, "to": "table", "stones": 2, "reason": "x"}]
        ),
        folding.Effects(4, ["MAPPAKULING"]),
        folding.Effects(
            4,
            ["MANGUNO", "CAMAT"],
            [{"move": None, "from": "table", "to": 3, "stones": 4, "reason": "manguno"}],
            round_ended=True,
            settled=True,
            camat_elected=3,
        ),
        folding.Effects(2),  # a ruling naming an earlier round (R35)
    )
    cache = store.RoundCache(9, 4, events, ("A", "B", "C", "D", "E"), effects)

    data = json.loads(json.dumps(cache.to_json()))
    again = store.RoundCache.from_json(data)

    assert again == cache
    assert again.effects is not None
    assert [e.to_dict() for e in again.effects] == [e.to_dict() for e in effects]
    assert data["by"] == ["seat 1", "seat 2", "organiser"]  # each author written once
    assert set(data["effects"]) == {"1", "2", "3", "4"}  # a plain play's effect is not written
    # Effects in a shape it does not write are unknown, never an error: the fold works
    # them out again.
    for odd in ({"1": {"round": 4}}, {"1": [["PASS"], [[1, 2]]]}, ["PASS"], {"1": 5}):
        assert store.RoundCache.from_json({**data, "effects": odd}).effects is None


@given(
    st.lists(st.sampled_from(["seat 1", "seat 2", "organiser", "table token 7"]), max_size=8),
    st.lists(st.sampled_from(["seat 1", "seat 3", "organiser", "computer"]), max_size=6),
)
def test_a_round_cache_grown_from_its_row_writes_what_one_built_whole_writes_R27(before, added):
    """``RoundCache.appended`` extends the lists the row was read as (issue 29: a move
    appends one event instead of writing every event again); what it writes reads as the
    cache built from scratch with the same events, and its authors are listed once each,
    in the order they first entered an event, as ``to_json`` lists them."""

    def event(position: int, author: str) -> store.CachedEvent:
        return store.CachedEvent(position, "move", {"seat": position % 5, "pass": True}, 3, author)

    events = tuple(event(i, author) for i, author in enumerate(before))
    effects = [folding.Effects(3, ["PASS"] if i % 3 else []) for i in range(len(events))]
    row = json.loads(json.dumps(store.RoundCache(5, 3, events, tuple("ABCDE"), effects).to_json()))
    cache = store.RoundCache.from_json(row)
    assert cache.written is not None
    for offset, author in enumerate(added):
        new = event(len(before) + offset, author)
        effects.append(folding.Effects(3, ["CEKI"] if offset % 2 else []))
        cache = cache.appended(cache.version + 1, new, effects)
        events = (*events, new)
        whole = store.RoundCache(cache.version, 3, events, tuple("ABCDE"), effects)
        assert cache == whole
        assert cache.to_json() == whole.to_json()
        again = store.RoundCache.from_json(json.loads(json.dumps(cache.to_json())))
        assert again == whole
        assert [e.to_dict() for e in again.effects or ()] == [e.to_dict() for e in effects]
    assert row == json.loads(json.dumps(store.RoundCache.from_json(row).to_json()))  # untouched


def test_a_move_grows_the_rows_round_cache_from_the_json_it_read_R27(monkeypatch):
    """A move in the middle of a round writes the round cache by appending to the lists
    the row was read as (``RoundCache.appended``), not by building every event again."""
    game = services.game_create(players=["A", "B", "C", "D", "E"])
    record = random_record(random.Random(3), rounds=1)
    key, _ = services.table_join(join_code=game.join_code)
    grown: list[int] = []
    original = store.RoundCache.appended

    def spy(self, version, event, effects):  # type: ignore[no-untyped-def]
        grown.append(len(self.events))
        return original(self, version, event, effects)

    monkeypatch.setattr(store.RoundCache, "appended", spy)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Table {key}")
    moves = record["rounds"][0]["moves"][:4]
    for move in moves:
        response = client.post(f"/api/v1/games/{game.pk}/moves/", move, format="json")
        assert response.status_code == 201, response.json()
    # The first move opens the sitting (R27); each next one grows the cache by one.
    assert grown[-(len(moves) - 1) :] == list(range(1, len(moves)))
    game.refresh_from_db()
    assert [e[0] for e in game.state["current"]["events"]] == list(range(len(moves)))


_TRANSFERS = st.lists(
    st.fixed_dictionaries(
        {
            "move": st.none() | st.integers(0, 40),
            "from": st.sampled_from(["table", 0, 1, 2, 3, 4]),
            "to": st.sampled_from(["table", 0, 1, 2, 3, 4]),
            "stones": st.integers(1, 9),
            "reason": st.sampled_from(["pass", "passebunge", "cappu", "manguno"]),
        }
    ),
    max_size=2,
)
_EFFECTS = st.builds(
    folding.Effects,
    st.integers(1, 3),
    st.lists(st.sampled_from(["PASS", "PASSEBUNGE", "MAPPAKULING", "CEKI", "CAMAT"]), max_size=2),
    _TRANSFERS,
    st.booleans(),
    st.booleans(),
    st.none() | st.integers(0, 4),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 3), _EFFECTS), max_size=20), st.data())
def test_cached_effects_read_as_the_effects_they_keep_R13_R17_R23(pairs, data):
    """``CachedEffects`` is the tuple of effects it was made of, by index, slice and
    iteration, after a trip through the row's JSON and after ``appended``; it holds only
    the effects that say more than their event's round (R13, R17, R23: passes, PASSEBUNGE
    and CAMAT are written, a plain play is not)."""
    rounds = [number for number, _ in pairs]
    effects = [effect for _, effect in pairs]
    events = tuple(
        store.CachedEvent(i, "move", {"seat": i % 5, "pass": True}, number, "seat 1")
        for i, number in enumerate(rounds)
    )
    kept = store.CachedEffects.of(events, effects)
    again = store.CachedEffects.from_json(json.loads(json.dumps(kept.to_json())), tuple(rounds))
    expected = [e.to_dict() for e in effects]
    for value in (kept, again):
        assert len(value) == len(effects)
        assert [e.to_dict() for e in value] == expected
        assert [value[i].to_dict() for i in range(-len(effects), len(effects))] == expected * 2
        start = data.draw(st.integers(-25, 25))
        assert [e.to_dict() for e in value[start:]] == expected[start:]
    assert again == kept
    assert set(kept.to_json()) == {
        str(i) for i, (n, e) in enumerate(pairs) if e.to_dict() != folding.Effects(n).to_dict()
    }
    extra = data.draw(_EFFECTS)
    grown = kept.appended(extra, 2)
    assert [e.to_dict() for e in grown] == [*expected, extra.to_dict()]
    assert [e.to_dict() for e in kept] == expected  # ``appended`` leaves the first as it was
    with pytest.raises(IndexError):
        kept[len(effects)]


def test_cached_effects_of_events_the_round_does_not_have_are_unknown_R27():
    """An effect keyed by an index the cached round has not (or not as ``to_json`` writes
    it) makes the cache's effects unknown: the fold works them out (R27), never a 500."""
    events = tuple(
        store.CachedEvent(i, "move", {"seat": i, "pass": True}, 1, "seat 1") for i in range(3)
    )
    cache = store.RoundCache(4, 1, events, ("A", "B", "C", "D", "E"), [folding.Effects(1)] * 3)
    data = cache.to_json()
    for odd in ({"3": [["PASS"]]}, {"-1": [["PASS"]]}, {"01": [["PASS"]]}, {"x": [["PASS"]]}):
        assert store.RoundCache.from_json({**data, "effects": odd}).effects is None
    assert store.RoundCache.from_json({**data, "effects": {"2": [["PASS"]]}}).effects is not None


def test_a_round_cache_written_before_effects_were_kept_still_reads_and_a_move_renews_it_R27():
    organiser, game = a_game_led_by_seat_2()
    game.refresh_from_db()
    old = dict(game.state)
    current = dict(old["current"])
    authors = current.pop("by")
    current.pop("effects")
    current["events"] = [[*e[:4], authors[e[4]]] for e in current["events"]]  # labels inline
    Game.objects.filter(pk=game.pk).update(state={**old, "current": current})
    game.refresh_from_db()

    cached = store.current_round(game)
    assert cached.effects is None  # unknown: the fold works them out
    assert [(e.payload, e.entered_by) for e in cached.events] == [
        ({"seat": 2, "tile": "6-6"}, organiser.label)
    ]
    services.event_submit(
        game_id=game.pk, kind="move", payload={"seat": 3, "tile": "6-5"}, actor=organiser
    )
    game.refresh_from_db()
    renewed = store.state_of(game).current
    assert renewed is not None
    assert renewed.effects is not None
    assert as_compared(game, store.current_round(game)) == as_compared(game, read_from_tables(game))


def test_the_rule_set_is_parsed_once_for_games_with_the_same_rules_R40():
    first = services.game_create(players=["A", "B", "C", "D", "E"], rules={"pass_stones": 2})
    second = services.game_create(players=["F", "G", "H", "I", "J"], rules={"pass_stones": 2})
    other = services.game_create(players=["F", "G", "H", "I", "J"])

    assert store.rules_of(first) is store.rules_of(second)
    assert store.rules_of(first).pass_stones == 2
    assert store.rules_of(other).pass_stones == 1


def test_a_move_is_stored_with_the_game_in_one_statement_on_postgresql():
    if connection.vendor != "postgresql":
        pytest.skip("the one-statement write is PostgreSQL's (a data-modifying WITH)")
    game = services.game_create(players=["A", "B", "C", "D", "E"])
    game = store.lock(game.pk)
    state = store.state_of(game)

    with CaptureQueriesContext(connection) as queries:
        event = store.append_event(
            game,
            position=0,
            kind="move",
            payload={"seat": 2, "tile": "6-6"},
            round_number=1,
            session_id=None,
            entered_by="test",
            state=store.replace(state, next_position=1),
        )

    assert len(queries) == 1
    stored = Game.objects.get(pk=game.pk)
    assert (stored.version, store.state_of(stored).next_position) == (1, 1)
    assert stored.events.get().pk == event.pk


def test_a_live_token_comes_with_its_game_in_one_query_and_a_revoked_one_not_at_all():
    game = services.game_create(players=["A", "B", "C", "D", "E"])
    key, token = services.table_join(join_code=game.join_code, seat=3)

    with CaptureQueriesContext(connection) as queries:
        found = store.live_token(hash_token(key))
        assert found is not None
        assert (found.pk, found.seat, found.game.pk, found.game.rules) == (
            token.pk,
            3,
            game.pk,
            game.rules,
        )
        assert store.state_of(found.game).next_position == 0

    assert len(queries) == 1
    services.table_leave(token=token)
    assert store.live_token(hash_token(key)) is None
    assert store.live_token(hash_token("not a key")) is None


def test_the_lock_reads_the_row_as_the_orm_does():
    game = services.game_create(players=["A", "B", "C", "D", "E"], rules={"pass_stones": 2})
    services.session_start(game_id=game.pk, actor=services.Actor(user=UserFactory()))

    with transaction.atomic():
        locked = store.lock(str(game.pk))
    read = Game.objects.get(pk=game.pk)

    fields = [f.attname for f in Game._meta.concrete_fields]
    assert [getattr(locked, f) for f in fields] == [getattr(read, f) for f in fields]
    with pytest.raises(Game.DoesNotExist), transaction.atomic():
        store.lock(uuid.uuid4())


def test_a_live_tokens_rows_are_the_orms_in_every_field_and_state():
    game = services.game_create(players=["A", "B", "C", "D", "E"], rules={"pass_stones": 2})
    key, _ = services.table_join(join_code=game.join_code, seat=1, label="Evi")

    found = store.live_token(hash_token(key))
    assert found is not None
    for ours, orm in [
        (found, TableToken.objects.get(pk=found.pk)),
        (found.game, Game.objects.get(pk=game.pk)),
    ]:
        fields = [f.attname for f in type(orm)._meta.concrete_fields]
        assert [getattr(ours, f) for f in fields] == [getattr(orm, f) for f in fields]
        assert (ours._state.adding, ours._state.db) == (orm._state.adding, orm._state.db)
        assert ours == orm
    found.game.save(update_fields=["version"])  # a row built so saves as an update


def test_a_new_event_is_the_orms_in_every_field_state_and_cached_game():
    game = services.game_create(players=["A", "B", "C", "D", "E"])
    fields = {
        "position": 3,
        "kind": "move",
        "payload": {"seat": 2, "pass": True},
        "round_number": 1,
        "session_id": None,
        "entered_by": "seat 2",
        "created_at": timezone.now(),
    }

    ours, orm = store.new_event(game, **fields), Event(game=game, **fields)

    names = [f.attname for f in Event._meta.concrete_fields]
    assert [getattr(ours, n) for n in names] == [getattr(orm, n) for n in names]
    assert (ours._state.adding, ours._state.db) == (orm._state.adding, orm._state.db)
    assert ours.game is game
    ours.save(force_insert=True)  # a new row, saved as the ORM saves one
    assert Event.objects.get(pk=ours.pk).payload == {"seat": 2, "pass": True}

    built: list[Any] = []

    def listener(sender: Any, instance: Any, **kwargs: Any) -> None:
        built.append(instance)

    post_init.connect(listener, sender=Event)
    try:
        heard = store.new_event(game, **fields)
    finally:
        post_init.disconnect(listener, sender=Event)
    assert built == [heard]  # someone listens: built through __init__


def test_a_row_is_built_through_init_when_someone_listens_to_its_signals():
    game = services.game_create(players=["A", "B", "C", "D", "E"])
    key, _ = services.table_join(join_code=game.join_code)
    built: list[Any] = []

    def listener(sender: Any, instance: Any, **kwargs: Any) -> None:
        built.append(instance)

    post_init.connect(listener, sender=Game)
    try:
        found = store.live_token(hash_token(key))
    finally:
        post_init.disconnect(listener, sender=Game)
    assert found is not None
    assert built == [found.game]


def test_the_moves_statements_are_prepared_once_per_connection():
    """The token's read and the compare-and-set are prepared on PostgreSQL (the settings'
    ``prepare_threshold``); Django's own client-bound statements never are."""
    if connection.vendor != "postgresql":
        pytest.skip("prepared statements are PostgreSQL's")
    for _ in range(3):
        assert store.live_token("0" * 64) is None
    Game.objects.count()

    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        statements = [row[0] for row in cursor.fetchall()]

    assert sum("referee_tabletoken" in s for s in statements) == 1
    assert not any("COUNT(*)" in s for s in statements)


@pytest.mark.parametrize(
    "text",
    [
        '{"stones": 18446744073709551616}',  # beyond 64 bits: orjson would make it a float
        '{"stones": -9223372036854775809, "round": 3}',
        "[1, 99999999999999999999999]",
        '{"seat": 9223372036854775807}',  # 19 digits, in range
        '{"reason": "card 12345678901234567890", "seat": 1}',  # digits in a text
        '{"reason": "٣٣٣٣٣٣٣٣٣٣٣٣٣٣٣٣٣٣٣٣", "n": 12}',  # other scripts' digits
        '{"snapshot": {"round": 1}, "events": [[1, "move", {"seat": 0}]]}',
    ],
)
def test_a_json_columns_text_is_read_as_the_standard_library_reads_it(text):
    read = store._loads(text)
    assert read == json.loads(text)
    assert repr(read) == repr(json.loads(text))  # integers stay integers, not floats


@pytest.mark.parametrize("seed", range(4))
def test_hands_declared_before_a_lead_leave_the_state_as_the_finished_round_left_it_R27_R31(
    seed,
):
    """Issue 28: a hand declared for the next round begins that round in the core; the
    state still shows the finished round (its chain and outcome) until the lead, on a read
    and in the declaration's own answer, whichever seats declare."""
    import random

    rng = random.Random(seed)
    record = random_record(rng, rounds=3)
    organiser = services.Actor(user=UserFactory())
    game = services.game_create(players=record["players"], created_by=organiser.user)
    for kind, payload in record_events(record):
        result = services.event_submit(game_id=game.pk, kind=kind, payload=payload, actor=organiser)
        assert isinstance(result, services.Submitted)
    before = read_state(game, organiser)
    assert before["round"]["status"] == "awaiting_lead"
    assert before["round"]["previous"]["number"] == 3
    tiles = [f"{a}-{b}" for a in range(7) for b in range(a, 7)]
    rng.shuffle(tiles)

    for k, seat in enumerate(rng.sample(range(5), rng.randint(1, 5))):
        hand = {"seat": seat, "tiles": tiles[5 * k : 5 * k + 5]}
        phone = services.Actor(token=TableTokenFactory(game=game, seat=seat))
        result = services.event_submit(game_id=game.pk, kind="hand", payload=hand, actor=phone)
        assert isinstance(result, services.Submitted)
        for after in (result.state, read_state(game, organiser)):
            # the round a hand began has no outcome yet; all else is as the round ended
            assert after["round"].pop("outcome") is None
            assert after["round"] == before["round"]
            assert {
                k: v for k, v in after.items() if k not in ("version", "last_events", "seats")
            } == {k: v for k, v in before.items() if k not in ("version", "last_events", "seats")}
