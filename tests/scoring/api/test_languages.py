"""The league's refusals in the reader's language (issue 28): texts that were given bare.

Each refusal is asked for in English, French, Polish and Indonesian; the English text must
not appear in another language's answer, and the answer carries the catalog's text.
"""

from __future__ import annotations

import pytest

from tests.scoring.conftest import API

pytestmark = pytest.mark.django_db

TEXTS = {
    "two_players": {
        "en": "Two different players.",
        "fr": "Deux joueurs différents.",
        "pl": "Dwóch różnych graczy.",
        "id": "Dua pemain yang berbeda.",
    },
    "ends_before": {
        "en": "Ends before it starts.",
        "fr": "Se termine avant de commencer.",
        "pl": "Kończy się, zanim się zaczyna.",
        "id": "Berakhir sebelum dimulai.",
    },
    "merge": {
        "en": "These players sat at the same game: they are two people, not duplicates.",
        "fr": "Ces joueurs étaient à la même partie : ce sont deux personnes, pas des doublons.",
        "pl": "Ci gracze siedzieli przy tej samej partii: to dwie osoby, nie duplikaty.",
        "id": "Para pemain ini duduk di permainan yang sama: mereka dua orang, bukan duplikat.",
    },
}
LANGUAGES = ["en", "fr", "pl", "id"]


def _details(body: dict) -> list[str]:
    return [body.get("detail", "")] + [e.get("detail", "") for e in body.get("errors", [])]


@pytest.mark.parametrize("language", LANGUAGES)
def test_head_to_head_of_one_player_is_refused_in_the_readers_language(
    member_client, club, players, language
):
    response = member_client.get(
        f"{API}/clubs/{club.slug}/head-to-head/",
        {"a": players[0].pk, "b": players[0].pk},
        HTTP_ACCEPT_LANGUAGE=language,
    )

    assert response.status_code == 400
    assert TEXTS["two_players"][language] in _details(response.json())


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_season_ending_before_it_starts_is_refused_in_the_readers_language(
    club, organiser_client, language
):
    response = organiser_client.post(
        f"{API}/clubs/{club.slug}/seasons/",
        {"name": "Backwards", "starts_on": "2026-06-01", "ends_on": "2026-01-01"},
        format="json",
        HTTP_ACCEPT_LANGUAGE=language,
    )

    assert response.status_code == 400
    assert TEXTS["ends_before"][language] in _details(response.json())


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_merge_of_two_people_is_refused_in_the_readers_language(
    club, organiser_client, players, import_game, load_scenario, language
):
    import_game(load_scenario("01_plain_finish")["record"], players[:5])

    response = organiser_client.post(
        f"{API}/clubs/{club.slug}/players/{players[0].pk}/merge/",
        {"duplicate": players[1].pk},
        format="json",
        HTTP_ACCEPT_LANGUAGE=language,
    )

    assert response.status_code == 409
    assert TEXTS["merge"][language] in _details(response.json())
    if language != "en":
        assert TEXTS["merge"]["en"] not in response.content.decode()
