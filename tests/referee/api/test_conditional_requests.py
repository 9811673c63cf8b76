"""RFC 9110 §13.1 on every write: strong If-Match, weak If-None-Match, lists, ``*``, bad values.

Each case runs over every write operation of a game (moves, hands, reveals,
undo, amend, sessions, close) and every write without an entity tag (create,
import, join); the phone form's taps are in ``tests/referee/web/test_conditional.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee import conditional
from referee.engine.simulation import PLAYERS
from referee.models import Game
from tests.referee.conftest import API, PROBLEM, GameApi

pytestmark = pytest.mark.django_db

BLOCKED_MOVES = "05_blocked_no_mattikkeng"


@dataclass(frozen=True)
class Write:
    """A write to a game: bring the game to where it is legal, then send it with headers."""

    name: str
    prepare: Callable[[GameApi, Any], None]
    send: Callable[[GameApi, dict[str, str]], Any]
    ok: int


def _lead(table: GameApi, load_scenario: Any) -> None:
    table.accept(table.play(0, "6-6"))


def _lead_and_pass(table: GameApi, load_scenario: Any) -> None:
    _lead(table, load_scenario)
    table.accept(table.pass_(1))


def _blocked(table: GameApi, load_scenario: Any) -> None:
    table.play_round({"moves": load_scenario(BLOCKED_MOVES)["record"]["rounds"][0]["moves"]})


def _session(table: GameApi, load_scenario: Any) -> None:
    assert table.post("sessions/", client=table.scorekeeper).status_code == 201


def _nothing(table: GameApi, load_scenario: Any) -> None:
    return None


WRITES = [
    Write("move", _lead, lambda t, h: t.play(1, "3-6", **h), 201),
    Write(
        "hand", _nothing, lambda t, h: t.declare(1, ["3-6", "5-6", "0-0", "0-1", "0-2"], **h), 201
    ),  # noqa: E501
    Write("reveal", _blocked, lambda t, h: t.reveal(0, tiles=["0-3", "0-4", "0-5"], **h), 201),
    Write("undo", _lead, lambda t, h: t.undo(**h), 200),
    Write("amend", _lead_and_pass, lambda t, h: t.amend(1, {"seat": 1, "tile": "3-6"}, **h), 200),
    Write(
        "session_start", _nothing, lambda t, h: t.post("sessions/", client=t.scorekeeper, **h), 201
    ),  # noqa: E501
    Write(
        "session_end",
        _session,
        lambda t, h: t.post("sessions/end/", client=t.scorekeeper, **h),
        200,
    ),  # noqa: E501
    # Closing is the organiser's and always names its version (issue 12): where the case
    # under test sends no If-Match, the current one goes with it.
    Write(
        "close",
        _nothing,
        lambda t, h: t.post(
            "close/",
            client=t.organiser,
            **({"If-Match": f'"{t.state()["version"]}"'} | h),
        ),
        200,
    ),
]
MALFORMED = [
    "3",  # not quoted
    '"3',  # unclosed
    'W/ "3"',  # space inside the weak prefix
    'w/"3"',  # the weak prefix is case-sensitive
    '"3" "4"',  # no comma
    ",",  # an empty list
    '"3";q=1',
    '"a b"',  # a space is not an etagc
    '*, "3"',  # "*" stands alone
    "5" * 5000,  # absurdly long, unquoted
    '"' + "5" * 5000 + '"',  # absurdly long, quoted
]
# Over every write: one of each kind of fault (the whole list runs on reads and in the parser).
MALFORMED_ON_WRITES = ["3", 'W/ "3"', '"3" "4"', ",", "5" * 5000, '"' + "5" * 5000 + '"']


@pytest.fixture(params=WRITES, ids=[w.name for w in WRITES])
def write(request, table, load_scenario):
    """A write operation of the game, its game prepared, and the version it is sent at."""
    spec: Write = request.param
    spec.prepare(table, load_scenario)
    table.game.refresh_from_db()
    return spec, table, table.game.version


def _version(table: GameApi) -> int:
    return Game.objects.get(pk=table.game.pk).version


@pytest.mark.parametrize(
    "header",
    ['"{v}"', '"{v}", "99"', '"99","{v}"', ' , "{v}" ,', 'W/"99", "{v}"', "*", " * "],
    ids=[
        "strong",
        "list-first",
        "list-no-space",
        "empty-elements",
        "weak-and-strong",
        "star",
        "star-blanks",
    ],
)
def test_if_match_with_a_strong_tag_of_the_current_version_applies_the_write(write, header):
    spec, table, version = write

    response = spec.send(table, {"If-Match": header.format(v=version)})

    assert response.status_code == spec.ok, response.content
    assert _version(table) == version + 1


@pytest.mark.parametrize(
    "header",
    ['W/"{v}"', 'W/"{v}", W/"99"', '"{v0}"', '"0{v}"', '"{v}x"', '"99"', '"' + "9" * 1000 + '"'],
    ids=["weak", "weak-list", "stale", "leading-zero", "suffixed", "other", "a-thousand-digits"],
)
def test_if_match_uses_the_strong_comparison_so_anything_else_is_412_and_nothing_changes(
    write, header
):
    spec, table, version = write

    response = spec.send(table, {"If-Match": header.format(v=version, v0=version + 5)})

    assert response.status_code == 412, response.content
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "version_mismatch"
    assert response.json()["state"]["version"] == version
    assert _version(table) == version


@pytest.mark.parametrize("header", ['W/"{v}"', '"{v}"', '"99", W/"{v}"', "*"])
def test_if_none_match_naming_the_current_version_weakly_or_star_refuses_the_write(write, header):
    spec, table, version = write

    response = spec.send(table, {"If-None-Match": header.format(v=version)})

    assert response.status_code == 412, response.content
    assert _version(table) == version


def test_if_none_match_naming_another_version_lets_the_write_through(write):
    spec, table, version = write

    response = spec.send(table, {"If-None-Match": f'W/"{version + 1}", "{version + 7}"'})

    assert response.status_code == spec.ok, response.content


@pytest.mark.parametrize("header_name", ["If-Match", "If-None-Match"])
@pytest.mark.parametrize("value", MALFORMED_ON_WRITES, ids=range(len(MALFORMED_ON_WRITES)))
def test_a_malformed_conditional_header_is_400_precondition_invalid_and_nothing_changes(
    write, header_name, value
):
    spec, table, version = write

    response = spec.send(table, {header_name: value})

    assert response.status_code == 400, response.content
    assert response["Content-Type"] == PROBLEM
    body = response.json()
    assert body["code"] == "precondition_invalid"
    assert header_name in body["detail"]
    assert _version(table) == version


# -- reads -------------------------------------------------------------------------------


@pytest.mark.parametrize("value", MALFORMED, ids=range(len(MALFORMED)))
def test_a_read_with_a_malformed_if_none_match_is_400_not_a_guess(table, value):
    response = table.get(**{"If-None-Match": value})

    assert response.status_code == 400
    assert response.json()["code"] == "precondition_invalid"


@pytest.mark.parametrize(
    ("header", "status"),
    [
        ("W/{tag}", 304),
        ("{tag}", 304),
        ('"1", W/{tag}', 304),
        ("*", 304),
        ('"1"', 200),
        ('"00"', 200),
        ('"0"', 200),  # the version, but not this caller's body (issue 27)
    ],
)
def test_a_read_compares_if_none_match_weakly(table, header, status):
    tag = table.get()["ETag"]

    assert table.get(**{"If-None-Match": header.format(tag=tag)}).status_code == status


# -- writes without an entity tag ----------------------------------------------------------


def _create(organiser_client, headers):
    return organiser_client.post(
        f"{API}/games/", {"players": list(PLAYERS)}, format="json", headers=headers
    )


def _import(organiser_client, headers):
    record = {"format": "domeng-record/1", "players": list(PLAYERS), "rounds": []}
    return organiser_client.post(f"{API}/games/import/", record, format="json", headers=headers)


def _join(organiser_client, headers):
    code = _create(organiser_client, {}).json()["join_code"]
    return organiser_client.post(
        f"{API}/join/", {"join_code": code, "seat": None}, format="json", headers=headers
    )


COLLECTION_WRITES = {"create": _create, "import": _import, "join": _join}


@pytest.mark.parametrize("name", COLLECTION_WRITES)
@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"If-Match": "*"}, 201),
        ({"If-Match": '"0"'}, 412),  # the collection has no entity tag to match
        ({"If-None-Match": '"0"'}, 201),
        ({"If-None-Match": "*"}, 412),  # it exists
        ({"If-Match": 'W/"0'}, 400),
        ({"If-None-Match": "0" * 5000}, 400),
    ],
)
def test_writes_without_an_entity_tag_evaluate_the_headers_too(
    organiser_client, name, headers, status
):
    before = Game.objects.count()

    response = COLLECTION_WRITES[name](organiser_client, headers)

    assert response.status_code == status, response.content
    if status != 201:
        expected = "precondition_failed" if status == 412 else "precondition_invalid"
        assert response.json()["code"] == expected
        assert Game.objects.count() == before + (1 if name == "join" else 0)


# -- the parser itself (no database) --------------------------------------------------------

_etagc = st.characters(min_codepoint=0x21, max_codepoint=0x7E).filter(lambda c: c != '"')
_tags = st.lists(st.tuples(st.booleans(), st.text(_etagc, max_size=6)), min_size=1, max_size=5)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(tags=_tags, separator=st.sampled_from([",", ", ", " ,", " , ", ",,"]))
def test_any_list_of_entity_tags_parses_back_to_its_tags(tags, separator):
    header = separator.join(f'{"W/" if weak else ""}"{opaque}"' for weak, opaque in tags)

    parsed = conditional.parse_entity_tags("If-Match", header)

    assert [(t.weak, t.opaque) for t in parsed.tags] == tags


@settings(deadline=None)
@given(version=st.integers(min_value=0, max_value=10**12), tags=_tags)
def test_if_match_never_matches_a_weak_tag_and_if_none_match_ignores_weakness(version, tags):
    listed = [(weak, opaque) for weak, opaque in tags] + [(True, str(version))]
    header = ", ".join(f'{"W/" if weak else ""}"{opaque}"' for weak, opaque in listed)
    parsed = conditional.parse_entity_tags("If-Match", header)
    strong_named = any(not weak and opaque == str(version) for weak, opaque in tags)

    assert conditional.Conditions(if_match=parsed).admits(version) is strong_named
    assert conditional.Conditions(if_none_match=parsed).not_modified(f'"{version}"')


@settings(deadline=None)
@given(
    version=st.integers(min_value=0, max_value=10**12),
    body=st.dictionaries(st.text(), st.integers()),
)
def test_a_reads_tag_names_its_version_and_matches_only_its_own_body(version, body):
    """Issue 27: ``"<version>.<digest>"`` names ``version`` for If-Match (strongly) and
    matches If-None-Match only for the same body."""
    tag = conditional.representation_etag(version, body)
    other = conditional.representation_etag(version, {**body, "hand": ["6-6"]})
    parsed = conditional.parse_entity_tags("If-Match", tag)

    assert conditional.Conditions(if_match=parsed).admits(version)
    assert not conditional.Conditions(if_match=parsed).admits(version + 1)
    assert conditional.Conditions(if_none_match=parsed).not_modified(tag)
    assert tag != other
    assert not conditional.Conditions(if_none_match=parsed).not_modified(other)


@pytest.mark.parametrize("value", MALFORMED)
def test_the_parser_refuses_every_malformed_value(value):
    with pytest.raises(conditional.ConditionalHeaderInvalid) as raised:
        conditional.parse_entity_tags("If-Match", value)

    assert raised.value.too_long is (len(value) > conditional.MAX_HEADER_LENGTH)


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"seat": {}, "tile": "3-6"}, "record_invalid"),  # R3: a seat is a whole number 0–4
        ({"seat": 1, "pass": True, "on": {}}, "record_invalid"),  # a pass has no end (R9)
        ({"seat": 1, "tile": {}}, "tile_invalid"),  # R1: a tile is spelt `a-b`
    ],
    ids=["seat", "pass-with-end", "tile"],
)
@pytest.mark.parametrize(
    "stale",
    [{"headers": {"If-Match": '"99"'}}, {"body": {"expected_version": 99}}],
    ids=["if-match", "expected-version"],
)
def test_a_malformed_move_keeps_its_400_whatever_its_precondition(table, body, code, stale):
    """Issue 31: the rules core judges a move's fields after the version, yet a body that
    is not well formed is its 400 with a stale ``If-Match`` (not 412) or
    ``expected_version`` (not 409), and nothing changes."""
    table.accept(table.play(0, "6-6"))
    version = _version(table)

    response = table.post(
        "moves/",
        {**body, **stale.get("body", {})},
        client=table.scorekeeper,
        **stale.get("headers", {}),
    )

    assert response.status_code == 400, response.content
    assert response.json()["code"] == code
    assert _version(table) == version


@pytest.mark.parametrize(
    ("stale", "status"),
    [({"headers": {"If-Match": '"99"'}}, 412), ({"body": {"expected_version": 99}}, 409)],
    ids=["if-match", "expected-version"],
)
def test_a_malformed_move_out_of_turn_is_its_rule_refusal_and_stale_first_R34_R31(
    table, stale, status
):
    """Issue 31: R34 judges the seat's turn before the tile's shape, so a malformed tile
    from a seat out of turn is ``not_your_turn`` (422), and at a stale version the stale
    version's answer (only a malformed 400 outranks it, R31); nothing changes either way."""
    table.accept(table.play(0, "6-6"))
    version = _version(table)
    body = {"seat": 3, "tile": {}}  # seat 1's turn (R8), and no tile is an object (R1)

    fresh = table.post("moves/", body, client=table.scorekeeper)
    response = table.post(
        "moves/",
        {**body, **stale.get("body", {})},
        client=table.scorekeeper,
        **stale.get("headers", {}),
    )

    assert fresh.status_code == 422, fresh.content
    assert (fresh.json()["code"], fresh.json()["rule"]) == ("not_your_turn", "R8")
    assert response.status_code == status, response.content
    assert response.json()["code"] == "version_mismatch"
    assert _version(table) == version


def test_a_well_formed_event_at_a_stale_version_is_still_412(table):
    table.accept(table.play(0, "6-6"))
    version = _version(table)

    response = table.post("moves/", {"seat": 1, "tile": "3-6"}, **{"If-Match": '"99"'})

    assert response.status_code == 412, response.content
    assert _version(table) == version
