"""Every rule of RULES.md is cited by at least one test (by its id, e.g. ``R23a``)."""

from __future__ import annotations

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


def _cited() -> set[str]:
    cited: set[str] = set()
    for path in TESTS.rglob("test_*.py"):
        if path.name == Path(__file__).name:
            continue
        cited.update(re.findall(r"R\d+[a-e]?", path.read_text(encoding="utf-8")))
    return cited


def test_every_rule_id_is_cited_by_a_test():
    assert sorted(set(RULE_IDS) - _cited()) == []
