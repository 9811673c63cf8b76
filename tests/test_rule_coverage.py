"""Every rule of RULES.md is cited by at least one test (by its id, e.g. ``R23a``).

A test cites a rule in its name (``…_R23a``) or in a string of its own — its
docstring, an asserted ``rule``, a parametrize value; a comment or a module
docstring cites nothing.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

RULE_IDS = [
    *(f"R{n}" for n in range(1, 23)),
    "R23", "R23a", "R23b", "R23c", "R23d", "R23e",
    "R24", "R25", "R26", "R27",
    "R30", "R31", "R32", "R33", "R34",
    "R40",
]  # fmt: skip
"""The rule ids of RULES.md (R1–R27, R30–R34, R40)."""

TESTS = Path(__file__).parent
RULE_ID = re.compile(r"R\d+[a-e]?")


def cited_by_tests(source: str) -> set[str]:
    """The rule ids that the test functions of a module's ``source`` cite."""
    cited: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
            "test_"
        ):
            cited.update(RULE_ID.findall(node.name))
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
'''

    assert cited_by_tests(source) == {"R5", "R6", "R7", "R8", "R23a"}
