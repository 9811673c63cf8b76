"""Messages that carry a number choose their plural form, in every language; seats are named.

The rules core marks such templates with ``ngettext_noop`` (still Django-free);
``referee.exceptions.referee_message`` renders them with ``ngettext`` for the
API and the phone form alike. Polish has three forms for whole numbers.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import polib
import pytest
from django.utils import translation

from referee.engine.errors import RefereeError, RevealInvalid, ngettext_noop
from referee.engine.records import replay_record
from referee.exceptions import referee_message

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [
    *sorted((ROOT / "referee" / "engine").glob("*.py")),
    ROOT / "referee" / "folding.py",
    *sorted((ROOT / "referee" / "services").glob("*.py")),
    ROOT / "scoring" / "services.py",
]
PLACEHOLDER = re.compile(r"%\(\w+\)s")
# A placeholder of these names is a quantity, never an identifier: its message is plural-aware.
QUANTITIES = ("count", "max", "limit", "stones", "pips")
PLAYERS = ["Andi", "Besse", "Cakra", "Daeng", "Evi"]


def _calls(name: str) -> list[tuple[str, ...]]:
    found = []
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", getattr(node.func, "attr", None)) == name
                and all(isinstance(arg, ast.Constant) for arg in node.args)
            ):
                found.append(tuple(arg.value for arg in node.args))
    return found


PLURALS = _calls("ngettext_noop")


def test_the_core_and_the_services_mark_their_counted_messages_as_plural():
    assert len(PLURALS) >= 4
    for (template,) in _calls("gettext_noop"):
        counted = [p for p in PLACEHOLDER.findall(template) if p[2:-2] in QUANTITIES]
        # "a pip sum of 7", "at most 1000" count no noun; anything else must be plural-aware.
        if counted and not re.search(r"(sum of|at most) %\((pips|limit)\)s(?! \w+s\b)", template):
            pytest.fail(f"{template!r} carries a number: mark it with ngettext_noop")


@pytest.mark.parametrize("language", ["fr", "pl", "id"])
def test_every_plural_message_has_every_form_in_every_catalog(language):
    catalog = polib.pofile(str(ROOT / "locale" / language / "LC_MESSAGES" / "django.po"))
    forms = int(re.search(r"nplurals=(\d+)", catalog.metadata["Plural-Forms"]).group(1))
    entries = {(e.msgid, e.msgid_plural): e for e in catalog}
    for singular, plural in PLURALS:
        entry = entries.get((singular, plural))
        assert entry is not None, (language, singular)
        assert sorted(entry.msgstr_plural) == list(range(forms))
        for text in entry.msgstr_plural.values():
            assert text
            assert set(PLACEHOLDER.findall(text)) == set(PLACEHOLDER.findall(plural))


def test_polish_counts_have_their_three_whole_number_forms():
    catalog = polib.pofile(str(ROOT / "locale" / "pl" / "LC_MESSAGES" / "django.po"))
    rule = catalog.metadata["Plural-Forms"]
    assert "nplurals=4" in rule  # the 4th form is for fractions, as in Django's own catalog
    with translation.override("pl"):
        one, few, many = (
            translation.ngettext("At most %(count)s character.", "At most %(count)s characters.", n)
            for n in (1, 3, 5)
        )
        for n, form in [
            (2, few),
            (4, few),
            (22, few),
            (12, many),
            (14, many),
            (25, many),
            (0, many),
            (101, many),
        ]:
            assert (
                translation.ngettext(
                    "At most %(count)s character.", "At most %(count)s characters.", n
                )
                == form
            ), n
    assert len({one, few, many}) == 3


# -- through the API ------------------------------------------------------------------------


@pytest.fixture
def blocked(table, load_scenario):
    table.play_round(
        {"moves": load_scenario("05_blocked_no_mattikkeng")["record"]["rounds"][0]["moves"]}
    )
    return table


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "seat 0 (Andi) must reveal exactly 3 distinct tiles"),
        ("fr", "le siège 0 (Andi) doit révéler exactement 3 dominos différents"),
        ("pl", "miejsce 0 (Andi) musi odkryć dokładnie 3 różne kostki"),
        ("id", "kursi 0 (Andi) harus membuka tepat 3 kartu yang berbeda"),
    ],
)
def test_a_reveal_of_the_wrong_count_says_the_count_in_its_form_and_names_the_player_R33(
    blocked, language, expected
):
    response = blocked.reveal(0, tiles=["0-3"], **{"Accept-Language": language})

    assert response.status_code == 422
    assert response.json()["code"] == "reveal_invalid"
    assert response.json()["detail"] == expected


@pytest.mark.parametrize(
    ("language", "count", "expected"),
    [
        ("en", 1, "seat 1 (Besse) must reveal exactly 1 distinct tile"),
        ("fr", 1, "le siège 1 (Besse) doit révéler exactement 1 domino différent"),
        ("pl", 1, "miejsce 1 (Besse) musi odkryć dokładnie 1 różną kostkę"),
        ("pl", 2, "miejsce 1 (Besse) musi odkryć dokładnie 2 różne kostki"),
        ("pl", 5, "miejsce 1 (Besse) musi odkryć dokładnie 5 różnych kostek"),
        ("id", 1, "kursi 1 (Besse) harus membuka tepat 1 kartu yang berbeda"),
    ],
)
def test_the_issue_instance_one_tile_due_is_singular_in_every_language(language, count, expected):
    """A reveal of two tiles where one is due said "1 distinct tiles" (fr, pl alike)."""
    singular, plural = next(p for p in PLURALS if "must reveal exactly" in p[0])
    error = RevealInvalid(ngettext_noop(singular, plural), seat=1, count=count)

    with translation.override(language):
        assert referee_message(error.with_names(PLAYERS)) == expected


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "name_in_detail"),
    [("en", "seat 0 (Andi)"), ("fr", "siège 0 (Andi)"), ("pl", "miejsca 0 (Andi)")],
)
def test_a_refusal_names_the_players_it_is_about_R8(table, language, name_in_detail):
    table.accept(table.play(0, "6-6"))

    response = table.play(0, "6-5", client=table.scorekeeper, **{"Accept-Language": language})

    assert response.json()["code"] == "not_your_turn"
    assert "1 (Besse)" in response.json()["detail"]
    assert name_in_detail in response.json()["detail"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "At most 255 characters."),
        ("pl", "Najwyżej 255 znaków."),
        ("fr", "Au plus 255 caractères."),
    ],
)
def test_an_over_long_idempotency_key_says_its_limit_in_the_right_form(table, language, expected):
    response = table.play(0, "6-6", **{"Idempotency-Key": "k" * 256, "Accept-Language": language})

    assert response.status_code == 400
    assert expected in response.content.decode()


def test_a_record_refusal_names_its_players_in_english_too():
    record = {
        "format": "domeng-record/1",
        "players": PLAYERS,
        "rounds": [{"moves": [{"seat": 0, "tile": "6-6"}, {"seat": 2, "tile": "6-5"}]}],
    }
    with pytest.raises(RefereeError) as caught:
        replay_record(record)

    assert caught.value.code == "not_your_turn"
    assert caught.value.message == "it is seat 1 (Besse)'s turn, not seat 2 (Cakra)'s"
