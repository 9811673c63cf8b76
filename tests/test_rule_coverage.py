"""Every rule of docs/rules.md is cited by at least one test (by its id, e.g. ``R23a``).

A test cites a rule in its name (``…_R23a``, or ``…_r23a`` in lower case) or in a
string of its own — its docstring, an asserted ``rule``, a parametrize value; a
comment or a module docstring cites nothing. The rule ids are the headings of
docs/rules.md, so a rule added there fails here until a test cites it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES_PAGE = ROOT / "docs" / "rules.md"
RULE_HEADING = re.compile(r"^#{2,6}\s+(R\d+[a-e]?)\b", re.MULTILINE)
"""A rule's heading on the rules page: ``### R23a — Stones for a pass``."""


def rule_ids(page: str) -> list[str]:
    """The rule ids a rules page defines, in order: each heading that starts with one."""
    return RULE_HEADING.findall(page)


RULE_IDS = rule_ids(RULES_PAGE.read_text(encoding="utf-8"))
"""The rule ids of docs/rules.md (R1–R27, R23a–R23e, R30–R40)."""

TESTS = Path(__file__).parent
RULE_ID = re.compile(r"R\d+[a-e]?")
RULE_ID_WORD = re.compile(r"[Rr]\d+[a-e]?")
"""A rule id as one word of a test's name (``test_…_R23a``, ``test_…_r39``)."""
CITED_IN_CODE = re.compile(r"\bR\d+[a-e]?\b")
"""A rule id in code, where it stands as a word (``R23a``, ``R34's``; not ``R2D2``)."""


def cited_by_tests(source: str) -> set[str]:
    """The rule ids that the test functions of a module's ``source`` cite."""
    cited: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
            "test_"
        ):
            cited.update(
                part.upper()[0] + part[1:]  # test names are lower case: ``…_r39`` is R39
                for part in node.name.split("_")
                if RULE_ID_WORD.fullmatch(part)
            )
            for inner in ast.walk(node):  # the body, the docstring and the decorators
                if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
                    cited.update(RULE_ID.findall(inner.value))
    return cited


def _cited() -> set[str]:
    cited: set[str] = set()
    for path in TESTS.rglob("test_*.py"):
        if path.name != Path(__file__).name:
            cited |= cited_by_tests(path.read_text(encoding="utf-8"))
    return cited


def _cited_by_code() -> dict[str, set[str]]:
    """The rule ids the referee's and the league's Python code cites, with where."""
    cited: dict[str, set[str]] = {}
    for package in ("referee", "scoring"):
        for path in (ROOT / package).rglob("*.py"):
            for rule in CITED_IN_CODE.findall(path.read_text(encoding="utf-8")):
                cited.setdefault(rule, set()).add(str(path.relative_to(ROOT)))
    return cited


def test_the_rules_page_defines_each_rule_once():
    assert len(RULE_IDS) == len(set(RULE_IDS))
    assert {"R1", "R23", "R23a", "R23e", "R35", "R39", "R40"} <= set(RULE_IDS)


def test_the_rule_finder_reads_headings_only():
    page = "## Stones\n### R22 — The table\n#### R23a — Pass\nSee R24.\n### Notes on R25\n"
    assert rule_ids(page) == ["R22", "R23a"]


def test_every_rule_the_code_cites_is_on_the_rules_page():
    cited = _cited_by_code()
    assert {rule: sorted(paths) for rule, paths in cited.items() if rule not in RULE_IDS} == {}


def test_every_rule_id_is_cited_by_a_test():
    assert sorted(set(RULE_IDS) - _cited()) == []


def test_a_rule_id_in_a_comment_or_a_helper_is_not_a_citation():
    source = '''
"""Module docstring naming R1."""
# R2 in a comment
def helper():
    return "R3"
def test_something():  # R4
    """Checks R5."""
    assert rule == "R6"
@pytest.mark.parametrize("rule", ["R7"])
def test_passes_R8_R23a(rule):
    pass
def test_refuses_a_corrected_event_r37_but_not_err3():
    pass
'''

    assert cited_by_tests(source) == {"R5", "R6", "R7", "R8", "R23a", "R37"}
