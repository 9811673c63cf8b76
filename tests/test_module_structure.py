"""The project's modules keep to their layers: no import circle, no private name shared.

A module's private names (``_helper``) are its own: another module that needs one
needs a public name in a module both may import (issue 26: two circles through ten
modules were held together by 21 imports of private helpers). Imports inside
functions and under ``TYPE_CHECKING`` count like any other: an import hidden in a
function to dodge a circle is still the circle. And a game's version moves in one
place only, ``referee.store`` (``commit``, ``append_event``): a write that bumped it by
hand could forget the round cache, the ETag or the fast path's compare-and-set.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("referee", "scoring", "config")


@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    shown: str  # the path from the project's root

    @property
    def package(self) -> str:
        return self.name if self.path.name == "__init__.py" else self.name.rpartition(".")[0]


def project_modules(root: Path = ROOT) -> dict[str, Module]:
    """Every Python module of the project's packages (migrations left out), by dotted name."""
    found: dict[str, Module] = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = Module(".".join(parts), path, str(path.relative_to(root)))
    return found


def _absolute(module: Module, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.package.split(".")
    base = base[: len(base) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


@dataclass(frozen=True)
class Found:
    where: str
    what: str

    def __str__(self) -> str:
        return f"{self.where}: {self.what}"


def private_names_shared(modules: dict[str, Module]) -> list[Found]:
    """``from other import _name`` and ``other._name`` (``other`` a project module bound by an
    import) in any module, at any depth (functions included)."""
    found: list[Found] = []
    for module in modules.values():
        tree = ast.parse(module.path.read_text(encoding="utf-8"))
        bound: dict[str, str] = {}  # local name → project module it names
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                source = _absolute(module, node)
                if source not in modules:
                    continue
                for alias in node.names:
                    private = alias.name.startswith("_") and not alias.name.startswith("__")
                    if private and source != module.name:
                        where = f"{module.shown}:{node.lineno}"
                        found.append(Found(where, f"from {source} import {alias.name}"))
                    elif f"{source}.{alias.name}" in modules:
                        bound[alias.asname or alias.name] = f"{source}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in modules and alias.asname:
                        bound[alias.asname] = alias.name
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and isinstance(node.value, ast.Name)
                and bound.get(node.value.id, module.name) != module.name
            ):
                where = f"{module.shown}:{node.lineno}"
                found.append(Found(where, f"{node.value.id}.{node.attr}"))
    return found


def import_graph(modules: dict[str, Module]) -> dict[str, set[str]]:
    """Module → the project modules it imports, at any depth; ``from package import sub``
    imports the submodule ``sub`` (not the whole package)."""
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for module in modules.values():
        for node in ast.walk(ast.parse(module.path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                source = _absolute(module, node)
                for alias in node.names:
                    sub = f"{source}.{alias.name}"
                    targets.append(sub if sub in modules else source)
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            graph[module.name].update(t for t in targets if t in modules and t != module.name)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(name: str) -> None:
        index[name] = low[name] = len(index)
        stack.append(name)
        on_stack.add(name)
        for other in sorted(graph[name]):
            if other not in index:
                visit(other)
                low[name] = min(low[name], low[other])
            elif other in on_stack:
                low[name] = min(low[name], index[other])
        if low[name] == index[name]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == name:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return found


def version_writes(modules: dict[str, Module]) -> list[Found]:
    """Assignments to ``….version`` and calls of ``set_state`` outside ``referee.store``."""
    found: list[Found] = []
    for module in modules.values():
        if module.name == "referee.store":
            continue
        for node in ast.walk(ast.parse(module.path.read_text(encoding="utf-8"))):
            where = f"{module.shown}:{getattr(node, 'lineno', 0)}"
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            for target in targets:
                if isinstance(target, ast.Attribute) and target.attr == "version":
                    found.append(Found(where, f"{ast.unparse(target)} = …"))
            if isinstance(node, ast.Call):
                called = node.func
                name = (
                    called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")
                )
                if name == "set_state":
                    found.append(Found(where, f"{ast.unparse(called)}(…)"))
    return found


# -- the project as it is ---------------------------------------------------------------


def test_no_module_uses_another_modules_private_name():
    assert [str(f) for f in private_names_shared(project_modules())] == []


def test_no_import_circle_between_modules():
    assert circles(import_graph(project_modules())) == []


def test_a_games_version_moves_in_the_store_only():
    assert [str(f) for f in version_writes(project_modules())] == []


# -- the checks can fail ----------------------------------------------------------------


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A project of three modules in ``referee/``: ``a`` and ``b`` import each other (``b``
    inside a function), ``c`` reads ``a``'s private name two ways and bumps a version."""
    package = tmp_path / "referee"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from referee import b\n\ndef _helper():\n    return 1\n")
    (package / "b.py").write_text("def later():\n    from referee.a import _helper\n")
    (package / "c.py").write_text(
        "from referee import a\n"
        "from referee.store import set_state\n\n"
        "def go(game):\n"
        "    game.version += 1\n"
        "    set_state(game, None)\n"
        "    return a._helper()\n"
    )
    return tmp_path


def test_the_checks_find_a_circle_private_names_and_a_version_moved_by_hand(tree):
    modules = project_modules(tree)

    assert circles(import_graph(modules)) == [["referee.a", "referee.b"]]
    shared = {f.what for f in private_names_shared(modules)}
    assert shared == {"from referee.a import _helper", "a._helper"}
    assert {f.what for f in version_writes(modules)} == {"game.version = …", "set_state(…)"}
