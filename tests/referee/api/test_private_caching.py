"""Issue 27, item 3: every answer under a game's URL depends on who asks (a phone reads its
own declared hand, R31, and not another seat's), so HTTP says it is private."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.referee.conftest import API

HAND = ["3-6", "5-6", "0-0", "0-1", "0-2"]
READS = ["", "record/", "result/", "events/"]


def is_private(response) -> bool:
    directives = {d.strip() for d in response.get("Cache-Control", "").split(",")}
    return {"private", "no-store"} <= directives


@pytest.mark.parametrize("suffix", READS)
@pytest.mark.parametrize("who", ["organiser", "scorekeeper", "seat 1"])
def test_every_per_viewer_read_of_a_game_is_private_R31(table, suffix, who):
    table.accept(table.declare(1, HAND))
    client = {"organiser": table.organiser, "scorekeeper": table.scorekeeper}.get(
        who, table.phone(1)
    )

    response = table.get(suffix, client=client)

    assert response.status_code == 200, response.content
    assert is_private(response)


def test_a_not_modified_state_and_the_tokens_list_are_private_too(table):
    etag = table.get("")["ETag"]

    not_modified = table.get("", **{"If-None-Match": etag})
    tokens = table.get("tokens/", client=table.organiser)

    assert not_modified.status_code == 304
    assert is_private(not_modified)
    assert tokens.status_code == 200
    assert is_private(tokens)


def test_a_refused_read_and_a_write_answer_are_private(table):
    refused = APIClient().get(table.url())
    written = table.declare(1, HAND)

    assert refused.status_code == 401
    assert is_private(refused)
    assert written.status_code == 201
    assert is_private(written)


def test_the_organisers_list_of_games_is_private(table):
    response = table.organiser.get(f"{API}/games/")

    assert response.status_code == 200
    assert is_private(response)


def test_a_join_answer_carrying_a_token_and_a_lockout_lift_are_private(table):
    """QA (issue 27): ``POST /join/`` answers the table token's key; it must never be kept."""
    joined = APIClient().post(f"{API}/join/", {"join_code": table.game.join_code}, format="json")
    refused = APIClient().post(f"{API}/join/", {"join_code": "NOPENOPENO"}, format="json")
    lifted = table.organiser.post(f"{API}/join/lockouts/lift/", {}, format="json")

    assert joined.status_code == 201, joined.content
    assert "token" in joined.json()
    for response in (joined, refused, lifted):
        assert is_private(response), response.status_code
