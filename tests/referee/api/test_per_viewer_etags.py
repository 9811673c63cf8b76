"""Issue 27, finding 5: a read's ETag differs when the body differs.

What ``GET /games/{id}/`` answers depends on who asks: a phone reads its own declared hand
(R31), and at a blocked round still waiting for reveals the organiser alone sees the hands
(R18, R33). The hole: every viewer got the same strong ``ETag: "<version>"`` whatever its
body, so a 304 could confirm one viewer's cached body to another. Now the tag is the body's
own (``"<version>.<digest>"``); a write's ``If-Match`` still compares the version alone.
"""

from __future__ import annotations

from itertools import combinations

import pytest

from tests.referee.api.test_games_reveals import REVEALS_05
from tests.referee.conftest import shows_tile

HAND = ["3-6", "5-6", "0-0", "0-1", "0-2"]


def viewers(table):
    return {
        "organiser": table.organiser,
        "scorekeeper": table.scorekeeper,
        "seat 1": table.phone(1),
        "seat 2": table.phone(2),
    }


def reads(table):
    return {name: table.get(client=client) for name, client in viewers(table).items()}


def assert_tags_follow_bodies(answers) -> None:
    for (one, a), (two, b) in combinations(answers.items(), 2):
        same_body = a.content == b.content
        assert (a["ETag"] == b["ETag"]) is same_body, (one, two)


def test_two_viewers_whose_bodies_differ_get_different_etags_R31(table):
    table.accept(table.declare(1, HAND))

    answers = reads(table)

    assert shows_tile(answers["seat 1"].content.decode(), "3-6")
    assert not shows_tile(answers["seat 2"].content.decode(), "3-6")
    assert answers["seat 1"]["ETag"] != answers["seat 2"]["ETag"]
    assert {a["ETag"][:3] for a in answers.values()} == {'"1.'}  # all at version 1
    assert_tags_follow_bodies(answers)


def test_the_organisers_view_at_a_block_has_its_own_etag_R18_R33(table, load_scenario):
    """Scenario 05 up to its block, seat 1's hand declared: the organiser reads it while
    the reveals are awaited, the scorekeeper and seat 2 do not."""
    table.accept(table.declare(1, HAND))
    for move in load_scenario("05_blocked_no_mattikkeng")["record"]["rounds"][0]["moves"]:
        table.accept(table.move(move))
    table.accept(table.reveal(0, **REVEALS_05[0]))

    answers = reads(table)

    assert shows_tile(answers["organiser"].content.decode(), "0-2")
    assert not shows_tile(answers["scorekeeper"].content.decode(), "0-2")
    assert answers["organiser"].content != answers["scorekeeper"].content
    assert answers["organiser"]["ETag"] != answers["scorekeeper"]["ETag"]
    assert_tags_follow_bodies(answers)


@pytest.mark.parametrize("who", ["organiser", "scorekeeper", "seat 1", "seat 2"])
def test_the_same_viewers_unchanged_body_keeps_its_etag_and_gets_304_R31(table, who):
    table.accept(table.declare(1, HAND))
    client = viewers(table)[who]
    first = table.get(client=client)

    again = table.get(client=client)
    not_modified = table.get(client=client, **{"If-None-Match": first["ETag"]})
    table.accept(table.play(0, "6-6"))
    changed = table.get(client=client, **{"If-None-Match": first["ETag"]})

    assert again["ETag"] == first["ETag"]
    assert again.content == first.content
    assert (not_modified.status_code, not_modified["ETag"]) == (304, first["ETag"])
    assert changed.status_code == 200
    assert changed["ETag"] != first["ETag"]


def test_another_viewers_tag_never_gets_a_304_organiser_and_phone_both_ways_R31(table):
    """The organiser sending the declaring phone's tag gets its own body (no hand), and the
    phone sending the organiser's gets its own body (with its hand): never a 304."""
    table.accept(table.declare(1, HAND))
    answers = reads(table)

    for asker, tag_of in [("organiser", "seat 1"), ("seat 1", "organiser"), ("seat 2", "seat 1")]:
        client = viewers(table)[asker]
        response = table.get(client=client, **{"If-None-Match": answers[tag_of]["ETag"]})
        assert response.status_code == 200, (asker, tag_of)
        assert response.content == answers[asker].content
        assert response["ETag"] == answers[asker]["ETag"]
    assert shows_tile(answers["seat 1"].content.decode(), "3-6")
    assert not shows_tile(answers["organiser"].content.decode(), "3-6")


def test_a_viewers_read_tag_is_a_writes_if_match_of_that_version(table):
    """The writes' precondition is about the game's version: any viewer's tag of the current
    version is admitted, and a tag of an older version is 412 with nothing applied."""
    table.accept(table.declare(1, HAND))
    old = table.get(client=table.phone(1))["ETag"]

    applied = table.play(0, "6-6", **{"If-Match": table.get(client=table.phone(2))["ETag"]})
    stale = table.play(1, "3-6", **{"If-Match": old})

    assert applied.status_code == 201, applied.content
    assert stale.status_code == 412
    assert stale.json()["code"] == "version_mismatch"
