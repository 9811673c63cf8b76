"""Issue 12, item 5 and issue 13, item 4: spreadsheets and identities.

Every CSV cell a spreadsheet could run as a formula is defused whatever separator the
reader's spreadsheet splits at; the spreadsheet export (UTF-8 with a byte-order mark, the
language's separator and decimal mark) reads back Polish and French names intact; member
numbers are one number after NFKC and case folding; names refuse invisible characters.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata

import pytest

from scoring.api.renderers import CSVRenderer, SpreadsheetCSVRenderer, defuse
from tests.scoring.conftest import API, PROBLEM
from tests.scoring.factories import PlayerFactory

pytestmark = pytest.mark.django_db

ATTACKS = ["=cmd|' /C calc'!A0", "+1+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1"]
NAMES = ["Łucja Bęsse", "Zoë Gaëlle Ñúñez", "Benoît d'Arcy-Sœur", "Żaneta Świątek"]


@pytest.fixture
def standings(club, players, import_game, load_scenario):
    """Scenario 02 with Polish and French names, one of them a formula after a ``;``."""
    players[0].display_name = NAMES[0]
    players[1].display_name = "Andi;=cmd|' /C calc'!A0"
    players[2].display_name = NAMES[1]
    players[3].display_name = NAMES[2]
    players[4].display_name = NAMES[3]
    for player in players[:5]:
        player.save()
    import_game(load_scenario("02_ceki")["record"], players[:5])
    return f"{API}/clubs/{club.slug}/standings/"


def cells_as_a_spreadsheet_splits_them(text: str, separator: str) -> list[str]:
    """What a spreadsheet whose list separator is ``separator`` makes of one CSV file: every
    cell, split at that separator whatever the file was written with."""
    cells = []
    for row in csv.reader(io.StringIO(text.lstrip("\ufeff")), delimiter=separator):
        cells.extend(row)
    return cells


def runs_as_formula(cell: str) -> bool:
    """A cell a spreadsheet runs, unless it is a text formula holding only a quoted literal
    (``="-2+3"``: the spreadsheet shows the text ``-2+3``), and what follows it when the
    line is read at another separator holds no quote, bracket or ``|`` (``="-2+3",-3``:
    an error, never a call)."""
    if re.fullmatch(r'="[^"]*"[^"()|\'!]*', cell):
        return False
    return cell.lstrip(" ").startswith(("=", "+", "-", "@", "\t", "\r"))


@pytest.mark.parametrize("attack", ATTACKS)
@pytest.mark.parametrize("before", ["", "Andi;", "Andi,", "Andi\t", "Andi\n", "Andi; "])
def test_no_cell_runs_as_a_formula_whatever_separator_splits_it(attack, before):
    """The hole: ``Andi;=cmd|…`` was defused at its start only; a spreadsheet splitting at
    ``;`` (French, Polish) ran the formula after it."""
    rows = [{"name": before + attack, "member": "0042", "count": -3}]
    columns = ["name", "member", "count"]
    for renderer in (CSVRenderer(), SpreadsheetCSVRenderer()):
        text = renderer.render(rows, renderer_context={"csv_columns": columns})
        for separator in (",", ";", "\t"):
            cells = cells_as_a_spreadsheet_splits_them(text.decode("utf-8"), separator)
            formulas = [c for c in cells if runs_as_formula(c) and c.strip() not in ("-3",)]
            assert formulas == [], (renderer.format, separator, cells)


def test_defusing_keeps_ordinary_names_and_numbers_as_they_are():
    assert defuse("Jean-Luc Ñúñez") == "Jean-Luc Ñúñez"
    assert defuse("Andi;=1") == "Andi;'=1"
    assert CSVRenderer().render([{"n": -3, "x": 2.5}]).decode() == "n,x\r\n-3,2.5\r\n"


@pytest.mark.parametrize(
    ("language", "separator"), [("fr", ";"), ("pl", ";"), ("id", ";"), ("en", ",")]
)
def test_the_spreadsheet_export_has_a_bom_and_the_languages_separator(
    member_client, standings, language, separator
):
    response = member_client.get(
        standings, {"format": "spreadsheet"}, HTTP_ACCEPT_LANGUAGE=language
    )

    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response.content.startswith("\ufeff".encode())  # Excel then reads UTF-8
    text = response.content.decode("utf-8-sig")
    rows = list(csv.DictReader(io.StringIO(text), delimiter=separator))
    assert {row["display_name"] for row in rows} >= set(NAMES)  # Łucja, not "Å\x81ucja"
    average = rows[0]["average_stones"]
    assert ("," in average) == (separator == ";") or "." not in average
    assert response["Content-Disposition"].endswith('.csv"')


def test_the_spreadsheet_export_separator_can_be_chosen(member_client, standings):
    response = member_client.get(
        standings, {"format": "spreadsheet", "separator": "comma"}, HTTP_ACCEPT_LANGUAGE="pl"
    )

    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert {row["display_name"] for row in rows} >= set(NAMES)


def test_the_plain_csv_stays_rfc_4180_without_a_bom(member_client, standings):
    response = member_client.get(standings, {"format": "csv"}, HTTP_ACCEPT_LANGUAGE="fr")

    assert not response.content.startswith(b"\xef\xbb\xbf")
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8"))))
    assert {row["display_name"] for row in rows} >= set(NAMES)
    assert "Andi;'=cmd|' /C calc'!A0" in {row["display_name"] for row in rows}


# -- identities --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (unicodedata.normalize("NFC", "É-7"), unicodedata.normalize("NFD", "É-7")),
        ("B-01", "Ｂ-01"),
        ("B-01", "b-01"),
        ("MDC-ß", "mdc-ss"),
    ],
)
def test_member_numbers_that_read_alike_are_one_number(club, organiser_client, first, second):
    """The hole: ``É-7`` in NFC and NFD, or ``B-01`` and ``Ｂ-01``, were two numbers."""
    url = f"{API}/clubs/{club.slug}/players/"
    created = organiser_client.post(url, {"display_name": "A", "member_number": first}, "json")

    taken = organiser_client.post(url, {"display_name": "B", "member_number": second}, "json")
    renamed = organiser_client.patch(
        f"{url}{PlayerFactory(club=club).pk}/", {"member_number": second}, format="json"
    )

    assert created.status_code == 201
    assert created.json()["member_number"] == first  # kept as typed
    assert (taken.status_code, taken.json()["code"]) == (409, "member_number_taken")
    assert (renamed.status_code, renamed.json()["code"]) == (409, "member_number_taken")


def test_the_database_holds_member_numbers_unique_after_nfkc_and_case_folding(club):
    from django.db import IntegrityError, transaction

    PlayerFactory(club=club, member_number="B-01")
    with pytest.raises(IntegrityError), transaction.atomic():
        PlayerFactory(club=club, member_number="Ｂ-01")


INVISIBLE = {
    "right-to-left override": "Andi\u202e",
    "left-to-right isolate": "\u2066Andi",
    "zero-width space": "An\u200bdi",
    "zero-width joiner": "An\u200ddi",
    "byte-order mark": "\ufeffAndi",
    "line separator": "An\u2028di",
}


@pytest.mark.parametrize("name", list(INVISIBLE.values()), ids=list(INVISIBLE))
def test_names_refuse_invisible_and_direction_changing_characters(club, organiser_client, name):
    players = f"{API}/clubs/{club.slug}/players/"

    player = organiser_client.post(players, {"display_name": name}, format="json")
    season = organiser_client.post(f"{API}/clubs/{club.slug}/seasons/", {"name": name}, "json")
    club_ = organiser_client.post(f"{API}/clubs/", {"name": name, "slug": "x"}, "json")
    game = organiser_client.post(
        f"{API}/games/", {"players": [name, "B", "C", "D", "E"]}, format="json"
    )
    score = organiser_client.post(
        f"{API}/records/score/",
        {"format": "domeng-record/1", "players": ["A", "B", name, "D", "E"], "rounds": []},
        format="json",
    )

    for response in (player, season, club_):
        assert response.status_code == 400
        assert response["Content-Type"] == PROBLEM
        assert response.json()["errors"][0]["code"] == "name_invalid"
    for response in (game, score):
        assert response.status_code == 400
        assert (response.json()["code"], response.json()["rule"]) == ("record_invalid", "R3")
