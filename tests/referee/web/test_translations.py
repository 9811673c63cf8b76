"""Every word in French, Polish and Indonesian: the referee's messages, the page, the API.

The rules core marks its English message templates with ``gettext_noop``; the
catalogs in ``locale/`` must translate each one (same ``%(name)s`` placeholders)
and keep the game's own terms as they are.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import polib
import pytest
from rest_framework.test import APIClient

from referee.models import Game

ROOT = Path(__file__).resolve().parents[3]
LANGUAGES = ("fr", "pl", "id")
GAME_TERMS = (
    "LEMPA",
    "PASSEBUNGE",
    "MAPPANO",
    "CAPPU",
    "MAPPAKULING",
    "CEKI",
    "POLLO",
    "MANGUNO",
    "MATTIKKENG",
    "CUCUQ",
    "CAMAT",
)
PLACEHOLDER = re.compile(r"%\(\w+\)s")


def engine_templates() -> set[str]:
    """Every string the rules core (and the fold over stored events) marks for translation."""
    sources = [*sorted((ROOT / "referee" / "engine").glob("*.py")), ROOT / "referee" / "folding.py"]
    found = set()
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", getattr(node.func, "attr", None)) == "gettext_noop"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                found.add(node.args[0].value)
    return found


def catalog(language: str) -> polib.POFile:
    return polib.pofile(str(ROOT / "locale" / language / "LC_MESSAGES" / "django.po"))


def test_the_engine_marks_its_messages() -> None:
    assert len(engine_templates()) > 60


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_engine_message_is_translated(language: str) -> None:
    entries = {e.msgid: e for e in catalog(language) if not e.obsolete}
    missing = sorted(t for t in engine_templates() if t not in entries)
    assert missing == [], "run `make makemessages` and translate"
    for template in engine_templates():
        entry = entries[template]
        assert entry.msgstr, template
        assert "fuzzy" not in entry.flags, template
        assert set(PLACEHOLDER.findall(entry.msgstr)) == set(PLACEHOLDER.findall(template))


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_catalog_is_complete_and_keeps_the_games_own_words(language: str) -> None:
    po = catalog(language)
    assert po.untranslated_entries() == []
    assert po.fuzzy_entries() == []
    for entry in po.translated_entries():
        translations = [entry.msgstr, *entry.msgstr_plural.values()]
        for term in GAME_TERMS:
            if re.search(rf"\b{term}\b", entry.msgid):
                assert all(term in text for text in translations if text), (term, entry.msgid)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_compiled_catalog_is_up_to_date(language: str) -> None:
    po_path = ROOT / "locale" / language / "LC_MESSAGES" / "django.po"
    mo_path = po_path.with_suffix(".mo")
    assert mo_path.exists(), "run `make messages` (scripts/compile-messages)"
    assert mo_path.stat().st_mtime >= po_path.stat().st_mtime, "run `make messages`"
    compiled = {(e.msgctxt, e.msgid): e.msgstr for e in polib.mofile(str(mo_path))}
    for entry in catalog(language).translated_entries():
        if not entry.msgid_plural:
            assert compiled[(entry.msgctxt, entry.msgid)] == entry.msgstr


@pytest.mark.parametrize(
    ("language", "detail", "stones"),
    [
        ("en", "1-1 matches neither open end (6, 5)", "stones"),
        ("fr", "1-1 ne va sur aucun des bouts ouverts (6, 5)", "pierres"),
        ("pl", "1-1 nie pasuje do żadnego wolnego końca (6, 5)", "kamienie"),
        ("id", "1-1 tidak cocok dengan kedua ujung terbuka (6, 5)", "batu"),
    ],
)
def test_an_illegal_move_over_the_api_is_explained_in_the_callers_language(
    db: None, game: Game, language: str, detail: str, stones: str
) -> None:
    phone = APIClient()
    joined = phone.post("/api/v1/join/", {"join_code": game.join_code}, format="json")
    assert joined.status_code == 201, joined.content
    phone.credentials(HTTP_AUTHORIZATION=f"Table {joined.json()['token']}")
    moves = f"/api/v1/games/{game.pk}/moves/"
    for move in ({"seat": 0, "tile": "6-6"}, {"seat": 1, "tile": "5-6"}):
        assert phone.post(moves, move, format="json").status_code == 201
    response = phone.post(
        moves, {"seat": 2, "tile": "1-1"}, format="json", headers={"Accept-Language": language}
    )
    assert response.status_code == 422
    assert response["Content-Language"] == language
    body = response.json()
    assert body["code"] == "tile_does_not_match"  # codes never change
    assert body["detail"] == detail
    # The same words on the page: "stones" is translated, CAMAT/CEKI… never are.
    assert stones in catalog_word("Stones", language).lower()


def catalog_word(msgid: str, language: str) -> str:
    if language == "en":
        return msgid
    return next(e.msgstr for e in catalog(language) if e.msgid == msgid and not e.msgctxt)


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_message_is_in_a_catalog_twice(language: str) -> None:
    """Branches append to the catalogs and git unites them (.gitattributes): a message two
    branches both added must still be there once, or one translation silently wins."""
    seen: set[tuple[str | None, str]] = set()
    twice = []
    for entry in catalog(language):
        key = (entry.msgctxt, entry.msgid)
        if key in seen:
            twice.append(entry.msgid)
        seen.add(key)
    assert twice == []


@pytest.mark.parametrize(
    ("language", "short", "long", "time"),
    [
        ("en", "01/12/2026", "1 December 2026", "19:00"),  # day first: config/formats/en
        ("fr", "01/12/2026", "1 décembre 2026", "19:00"),
        ("pl", "01-12-2026", "1 grudnia 2026", "19:00"),
        ("id", "01-12-2026", "1 Des. 2026", "19.00"),
    ],
)
def test_each_language_writes_dates_day_first_and_times_on_24_hours(language, short, long, time):
    """Issue 28: English dates are day-month (01/12/2026 is 1 December), not US-style."""
    import datetime as dt

    from django.utils import formats, translation

    at = dt.datetime(2026, 12, 1, 19, 0)
    with translation.override(language):
        assert formats.date_format(at, "SHORT_DATE_FORMAT") == short
        assert formats.date_format(at, "DATE_FORMAT") == long
        assert formats.time_format(at, "TIME_FORMAT") == time
        assert formats.date_format(at, "SHORT_DATETIME_FORMAT").startswith(short)
