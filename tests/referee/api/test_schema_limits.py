"""The schema declares the limits the server enforces at the edge (issue 31): what it calls
valid is not refused, what it calls invalid is."""

from __future__ import annotations

import re

import pytest
from drf_spectacular.generators import SchemaGenerator
from hypothesis import given
from hypothesis import strategies as st

from referee import conditional
from referee.api.schema_limits import CONDITIONAL_HEADERS, NON_BLANK_TEXT_PATTERN, TEXT_PATTERN

SCHEMA = SchemaGenerator().get_schema(request=None, public=True)
PARAMETERS = [
    (f"{method.upper()} {path}", parameter)
    for path, item in SCHEMA["paths"].items()
    for method, operation in item.items()
    if isinstance(operation, dict)
    for parameter in operation.get("parameters", [])
]
CONDITIONAL = [
    (op, p) for op, p in PARAMETERS if p["in"] == "header" and p["name"] in CONDITIONAL_HEADERS
]
PATTERN = next(p for _, p in CONDITIONAL if not p.get("required"))["schema"]["pattern"]

VALID_HEADERS = ['"7"', "*", 'W/"3"', '"1", "2"', ' "7.0123456789abcdef" ', 'W/"a",W/"b"']
MALFORMED_HEADERS = ["7", "0", "5YL;3", '"7', " ", ",", '"q7)"x', "W/7"]


def test_every_conditional_header_declares_the_grammar_and_length():
    assert len(CONDITIONAL) > 20
    for operation, parameter in CONDITIONAL:
        schema = parameter["schema"]
        # A header the operation requires (close's If-Match, else 428) may not be empty.
        expected = conditional.ENTITY_TAGS_PATTERN if parameter.get("required") else PATTERN
        assert schema["pattern"] == expected, operation
        assert schema["maxLength"] == conditional.MAX_HEADER_LENGTH, operation


@pytest.mark.parametrize("value", VALID_HEADERS)
def test_a_header_the_pattern_takes_the_parser_takes(value):
    assert re.search(PATTERN, value)
    conditional.parse_entity_tags("If-Match", value)


@pytest.mark.parametrize("value", MALFORMED_HEADERS)
def test_a_header_the_parser_refuses_the_pattern_refuses(value):
    assert not re.search(PATTERN, value)
    with pytest.raises(conditional.ConditionalHeaderInvalid):
        conditional.parse_entity_tags("If-Match", value)


def test_an_empty_header_is_as_if_not_sent_and_the_pattern_takes_it():
    """An empty ``If-Match`` is no condition (not a 400), so the schema may not call it
    invalid; blanks alone are an empty list and refused, by both."""
    assert re.search(PATTERN, "")
    assert conditional.conditions_of(if_match="", if_none_match="") is None
    assert not re.search(PATTERN, " ")
    with pytest.raises(conditional.ConditionalHeaderInvalid):
        conditional.conditions_of(if_match=" ", if_none_match=None)


def test_every_slug_and_integer_in_a_path_is_bounded():
    path_parameters = [(op, p) for op, p in PARAMETERS if p["in"] == "path"]
    slugs = [p for _op, p in path_parameters if p["name"] == "slug"]
    assert slugs
    assert all(p["schema"]["pattern"] == "^[-a-zA-Z0-9_]+$" for p in slugs)
    for operation, parameter in path_parameters:
        bounds = (0, 2**63 - 1)
        if f"/seats/{{{parameter['name']}}}/" in operation:
            bounds = (0, 4)  # R3
        elif f"/rounds/{{{parameter['name']}}}/" in operation:
            bounds = (1, 2**63 - 1)
        if parameter["schema"].get("type") == "integer":
            assert parameter["schema"]["minimum"] == bounds[0], operation
            assert parameter["schema"]["maximum"] == bounds[1], operation


def test_a_body_text_that_refuses_blanks_says_so():
    join = SCHEMA["components"]["schemas"]["Join"]["properties"]["join_code"]
    assert join["minLength"] == 1
    assert join["pattern"] == NON_BLANK_TEXT_PATTERN
    # An address is declared by its formats, which no blank matches.
    lift = SCHEMA["components"]["schemas"]["LockoutLift"]["properties"]["address"]
    assert {branch["format"] for branch in lift["anyOf"]} == {"ipv4", "ipv6"}


@pytest.mark.parametrize(
    ("text", "taken"),
    [
        ("Andi", True),
        ("  Andi ", True),
        ("", False),
        ("   ", False),
        ("A\x00", False),
        ("A\x9d", False),
        ("A\u202eB", False),
        ("Besse\tM.", True),
    ],
)
def test_the_non_blank_pattern_is_what_the_fields_take(text, taken):
    assert bool(re.search(NON_BLANK_TEXT_PATTERN, text)) is taken
    assert bool(re.search(TEXT_PATTERN, text)) is (taken or text.strip() == "")


def test_an_empty_idempotency_key_is_declared_as_taken_and_is_no_key(rf):
    """The server takes an empty ``Idempotency-Key`` as none (not a 400), so the schema
    may not call it too short; one over 255 characters is declared and refused alike."""
    from rest_framework.exceptions import ValidationError
    from rest_framework.request import Request

    from referee.api.writes import IDEMPOTENCY_KEY_MAX_LENGTH, idempotency_of

    keys = [p for _op, p in PARAMETERS if p["in"] == "header" and p["name"] == "Idempotency-Key"]
    assert len(keys) > 10
    for parameter in keys:
        assert parameter["schema"].get("minLength", 0) == 0
        assert parameter["schema"]["maxLength"] == IDEMPOTENCY_KEY_MAX_LENGTH

    assert idempotency_of(Request(rf.post("/", HTTP_IDEMPOTENCY_KEY=""))) is None
    with pytest.raises(ValidationError):
        idempotency_of(Request(rf.post("/", HTTP_IDEMPOTENCY_KEY="k" * 256)))


@given(st.text(alphabet=' \t,"W/*7a.\x80!#', max_size=24))
def test_the_schema_pattern_is_the_grammar_the_parser_reads(value):
    """One grammar (``referee.conditional``): a header the pattern takes is read, one it
    refuses is 400 ``precondition_invalid`` — for every string of the grammar's characters."""
    try:
        conditional.conditions_of(if_match=value, if_none_match=None)
    except conditional.ConditionalHeaderInvalid:
        accepted = False
    else:
        accepted = True
    assert bool(re.search(conditional.CONDITIONAL_HEADER_PATTERN, value)) is accepted
    assert PATTERN == conditional.CONDITIONAL_HEADER_PATTERN
