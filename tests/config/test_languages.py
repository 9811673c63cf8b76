"""Language negotiation: every supported language, its regional variants and legacy codes,
on pages, API problems, the rules core's messages and ``Content-Language``."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import translation
from hypothesis import given
from hypothesis import strategies as st

from referee.middleware import modern_accept_language

# Accept-Language → the language the product answers in.
NEGOTIATED = [
    ("en", "en"),
    ("en-US", "en"),
    ("en-GB", "en"),
    ("fr", "fr"),
    ("fr-FR", "fr"),
    ("fr-CA", "fr"),
    ("fr-BE", "fr"),
    ("fr-CH", "fr"),
    ("pl", "pl"),
    ("pl-PL", "pl"),
    ("id", "id"),
    ("id-ID", "id"),
    ("in", "id"),  # ISO 639 withdrew "in" in 1989; Java's Locale still sends it
    ("in-ID", "id"),
    ("IN-id", "id"),
    ("in_ID", "id"),  # Java's Locale.toString()
    ("pl_PL", "pl"),
    ("id-Latn-ID", "id"),
    ("de-DE", "en"),  # not a language of the product: English
    ("de-DE, pl;q=0.8, en;q=0.5", "pl"),
    ("in-ID,en-US;q=0.9,en;q=0.8", "id"),
    ("iw-IL, fr-BE;q=0.7", "fr"),
    ("*", "en"),
]
GAME_URL = "/api/v1/records/score/"
# Two plays of the same tile: tile_already_played (R1), a message of the rules core.
RECORD = {
    "format": "domeng-record/1",
    "players": ["Andi", "Besse", "Cakra", "Daeng", "Evi"],
    "rounds": [{"moves": [{"seat": 0, "tile": "6-6"}, {"seat": 1, "tile": "6-6"}]}],
}


def _in(language: str, message: str) -> str:
    with translation.override(language):
        return translation.gettext(message)


@pytest.mark.parametrize(("header", "language"), NEGOTIATED)
def test_a_page_speaks_the_negotiated_language(client: Client, header, language):
    response = client.get("/", headers={"Accept-Language": header})

    assert response.status_code == 200
    assert response["Content-Language"] == language
    page = response.content.decode()
    assert f'<html lang="{language}">' in page
    assert _in(language, "Join code") in page


@pytest.mark.parametrize(("header", "language"), NEGOTIATED)
def test_an_api_problem_speaks_the_negotiated_language(client: Client, header, language):
    response = client.get("/api/v1/no-such-thing/", headers={"Accept-Language": header})

    assert response.status_code == 404
    assert response["Content-Language"] == language
    assert response.json()["title"] == _in(language, "Not found")


@pytest.mark.parametrize(("header", "language"), NEGOTIATED)
def test_a_rule_refusal_speaks_the_negotiated_language(client: Client, db, header, language):
    """The public scoring endpoint counts its throttle in the database cache (issue 12)."""
    response = client.post(
        GAME_URL, RECORD, content_type="application/json", headers={"Accept-Language": header}
    )

    assert response.status_code == 422
    assert response["Content-Language"] == language
    body = response.json()
    assert body["code"] == "tile_already_played"
    template = "%(tile)s was already played this round"
    assert body["detail"] == _in(language, template) % {"tile": "6-6"}


@pytest.mark.parametrize("language", ["fr", "pl", "id"])
def test_each_language_really_differs_from_english(language):
    assert _in(language, "Not found") != "Not found"
    assert _in(language, "Join code") != "Join code"


@given(st.text(max_size=80))
def test_the_rewrite_of_any_header_keeps_its_items_and_weights(header):
    rewritten = modern_accept_language(header)

    assert rewritten.count(",") == header.count(",")
    assert [item.partition(";")[2] for item in rewritten.split(",")] == [
        item.partition(";")[2] for item in header.split(",")
    ]
