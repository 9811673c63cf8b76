"""The request parser's quick screen (issue 29) never lets through what its checks refuse:
``may_be_refused`` is ``False`` only for data ``check_texts`` and ``check_numbers`` accept."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rest_framework import exceptions

from referee.api.parsers import MAX_TEXT_LENGTH, check_numbers, check_texts, may_be_refused

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=20,
)


def _refused(data: object) -> bool:
    try:
        check_texts(data)
        check_numbers(data)
    except exceptions.ParseError:
        return True
    return False


@given(JSON)
def test_the_screen_passes_only_what_the_checks_accept(data):
    if not may_be_refused(data):
        assert not _refused(data)
    if _refused(data):
        assert may_be_refused(data)


@pytest.mark.parametrize(
    "data",
    [
        {"name": "Evi\x00"},
        {"na\x07me": 1},
        ["\ud800"],
        {"n": 2**63},
        {"n": float("inf")},
        {"note": "x" * (MAX_TEXT_LENGTH + 1)},
        {"nested": [[{"deep": ["ok", "\x9f"]}]]},
    ],
)
def test_the_screen_sends_every_fault_to_the_checks(data):
    assert may_be_refused(data)
    assert _refused(data)


def test_a_plain_record_needs_no_walk():
    data = {"format": "domeng-record/1", "rounds": [{"moves": [{"seat": 0, "tile": "3-5"}]}]}
    assert not may_be_refused(data)
    assert not may_be_refused({"players": ["Daeng Façade", "Évi"], "n": -(2**63)})
