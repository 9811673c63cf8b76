"""The rules core (``referee.engine``, ``scoring.core``) imports no Django or DRF."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]
CORE_PACKAGES = [ROOT / "referee" / "engine", ROOT / "scoring" / "core"]
ALLOWED_FIRST_PARTY = ("referee.engine", "scoring.core")


def _imports(path: Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def test_the_core_source_imports_only_the_standard_library_and_itself():
    offenders = []
    for package in CORE_PACKAGES:
        for path in package.rglob("*.py"):
            for name in _imports(path):
                top = name.split(".")[0]
                if name.startswith(ALLOWED_FIRST_PARTY) or top in sys.stdlib_module_names:
                    continue
                offenders.append(f"{path.relative_to(ROOT)}: {name}")
    assert offenders == []


def test_importing_the_core_loads_no_django_module():
    code = (
        "import sys, referee.engine, referee.engine.simulation, scoring.core;"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in {'django', 'rest_framework'});"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
