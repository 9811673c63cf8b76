"""Numeric query parameters of the league API stay within the bounds the schema states: an
id out of range or not a plain whole number is a 400 problem naming it, never a 500."""

from __future__ import annotations

import pytest

API = "/api/v1"
PROBLEM = "application/problem+json"


@pytest.mark.parametrize("resource", ["ratings", "games"])
@pytest.mark.parametrize("season", ["0", "-1", "²", "1.5", "x", str(2**63)])
def test_a_season_id_out_of_bounds_is_a_400_naming_it(member_client, club, resource, season):
    response = member_client.get(f"{API}/clubs/{club.slug}/{resource}/", {"season": season})

    assert response.status_code == 400, response.content
    assert response["Content-Type"] == PROBLEM
    assert response.json()["errors"][0]["field"] == "season"


@pytest.mark.parametrize("resource", ["ratings", "games"])
def test_a_season_id_within_bounds_but_unknown_is_a_404(member_client, club, resource):
    response = member_client.get(f"{API}/clubs/{club.slug}/{resource}/", {"season": 2**63 - 1})

    assert response.status_code == 404


@pytest.mark.parametrize("value", ["0", str(2**63)])
def test_head_to_head_ids_out_of_bounds_are_a_400(member_client, club, players, value):
    response = member_client.get(
        f"{API}/clubs/{club.slug}/head-to-head/", {"a": players[0].pk, "b": value}
    )

    assert response.status_code == 400, response.content
    assert response.json()["errors"][0]["field"] == "b"
