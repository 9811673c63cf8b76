"""The CSV renderer: columns in order, text that looks like a formula defused, errors as JSON."""

from __future__ import annotations

import json
from types import SimpleNamespace

from scoring.api.renderers import CSVRenderer


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
