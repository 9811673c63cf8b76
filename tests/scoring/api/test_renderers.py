"""The CSV renderer: columns in order, text that looks like a formula defused, errors as JSON."""

from __future__ import annotations

import json
from types import SimpleNamespace

from scoring.api.renderers import CSVRenderer, SpreadsheetCSVRenderer


def test_rows_are_written_in_the_given_column_order_with_a_header():
    rows = [{"b": 2, "a": "x", "c": None}, {"a": "y", "b": -3, "c": True}]

    text = CSVRenderer().render(rows, renderer_context={"csv_columns": ["a", "b", "c"]}).decode()

    assert text == "a,b,c\r\nx,2,\r\ny,-3,true\r\n"


def test_text_a_spreadsheet_would_run_as_a_formula_is_prefixed_but_numbers_are_not():
    rows = [{"name": "=1+1"}, {"name": "@SUM(A1)"}, {"name": "-2"}, {"name": -2}]

    text = CSVRenderer().render({"results": rows}).decode()

    assert text.splitlines() == ["name", "'=1+1", "'@SUM(A1)", "'-2", "-2"]


def test_an_error_response_is_rendered_as_its_json_problem():
    problem = {"status": 403, "code": "permission_denied"}
    context = {"response": SimpleNamespace(status_code=403)}

    body = CSVRenderer().render(problem, renderer_context=context)

    assert json.loads(body) == problem


def test_no_rows_and_no_columns_is_an_empty_header():
    assert CSVRenderer().render([]) == b"\r\n"


def test_a_spreadsheet_keeps_identifiers_that_look_like_numbers_or_dates_as_text():
    rows = [
        {"member_number": value}
        for value in (
            "0042",
            "2024-01",
            "1.10",
            "3/4",
            "-2",
            ".5",
            "Jan-24",
            "true",
            "B-01",
            "Andi",
        )
    ]

    text = SpreadsheetCSVRenderer().render({"results": rows}).decode().lstrip("\ufeff")

    assert text.splitlines() == [
        "member_number",
        '"=""0042"""',
        '"=""2024-01"""',
        '"=""1.10"""',
        '"=""3/4"""',
        '"=""-2"""',
        '"="".5"""',
        '"=""Jan-24"""',
        '"=""true"""',
        "B-01",
        "Andi",
    ]


def test_a_spreadsheet_still_defuses_formulas_even_when_they_start_like_a_number():
    rows = [{"name": "1;=cmd|' /C calc'!A0"}, {"name": "=1+1"}, {"name": '12"3'}]

    text = SpreadsheetCSVRenderer().render({"results": rows}).decode().lstrip("\ufeff")

    assert text.splitlines() == ["name", "1;'=cmd|' /C calc'!A0", "'=1+1", '"12""3"']


def test_plain_csv_writes_identifiers_bare_for_programs():
    rows = [{"member_number": "0042"}, {"member_number": "2024-01"}]

    text = CSVRenderer().render({"results": rows}).decode()

    assert text.splitlines() == ["member_number", "0042", "2024-01"]


def test_a_row_with_a_quote_or_a_bracket_anywhere_keeps_the_apostrophe_guard_only():
    """Read at another separator than it was written with, a row is one cell: a text formula
    at its start would take in the rest of the line, so it is written only where the rest
    cannot call a function or another program."""
    rows = [
        {"member_number": "0042", "name": 'HYPERLINK("x")'},
        {"member_number": "0042", "name": "Andi"},
    ]

    text = SpreadsheetCSVRenderer().render(
        {"results": rows}, renderer_context={"csv_columns": ["member_number", "name"]}
    )

    assert text.decode().lstrip("\ufeff").splitlines()[1:] == [
        '0042,"HYPERLINK(""x"")"',
        '"=""0042""",Andi',
    ]


def test_a_later_cell_keeps_its_number_like_text_whatever_its_row_holds():
    """QA: ``O'Brien`` or ``Daeng "Big"`` beside a member number cost it its zeros; only a
    row's first cell can start a cell for a spreadsheet splitting at another separator."""
    rows = [
        {"name": 'Daeng "Big"', "member_number": "0903"},
        {"name": "O'Brien", "member_number": "0902"},
    ]

    text = SpreadsheetCSVRenderer().render(
        {"results": rows}, renderer_context={"csv_columns": ["name", "member_number"]}
    )

    assert text.decode().lstrip("\ufeff").splitlines()[1:] == [
        '"Daeng ""Big""","=""0903"""',
        'O\'Brien,"=""0902"""',
    ]
