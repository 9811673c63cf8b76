"""Every text a user reads goes through the catalogs: none is given to an error bare.

The catalog tests (``tests/referee/test_messages.py``) check that what is marked is
translated; this one finds what was never marked — a literal handed to a validation
error, a form error, a page message or one of our errors without ``gettext`` — which
would stay English under ``Accept-Language: pl`` (issue 28).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ERROR_MODULES = ["referee/exceptions.py", "scoring/exceptions.py", "referee/engine/errors.py"]
# Calls whose first argument is a message for people (DRF's, Django's, ours below).
MESSAGE_CALLS = {"ValidationError", "PermissionDenied", "NotFound", "ParseError"}
# Calls whose second argument is such a message: ``form.add_error(field, message)``,
# ``messages.error(request, message)`` …
SECOND_ARGUMENT_CALLS = {"add_error", "error", "warning", "info", "success", "debug"}


def _our_errors() -> set[str]:
    names = set()
    for module in ERROR_MODULES:
        tree = ast.parse((ROOT / module).read_text())
        names |= {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    return names


def _bare_texts(node: ast.AST) -> list[str]:
    """The literal texts in a message argument (a text, or lists and dicts of them)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value] if any(c.isalpha() for c in node.value) else []
    if isinstance(node, ast.JoinedStr):
        return ["<f-string>"]
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [t for e in node.elts for t in _bare_texts(e)]
    if isinstance(node, ast.Dict):
        return [t for v in node.values for t in _bare_texts(v)]
    return []


def bare_messages(source: str, filename: str, errors: set[str]) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name in MESSAGE_CALLS or name in errors:
            arguments = node.args[:1] + [k.value for k in node.keywords if k.arg == "detail"]
        elif name in SECOND_ARGUMENT_CALLS:
            arguments = node.args[1:2]
        else:
            continue
        found += [f"{filename}:{node.lineno}: {t!r}" for a in arguments for t in _bare_texts(a)]
    return found


def test_no_message_for_people_is_given_without_the_catalogs():
    errors = _our_errors()
    found = []
    for package in ("referee", "scoring", "config"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            found += bare_messages(path.read_text(), str(path.relative_to(ROOT)), errors)
    assert found == []


def test_the_scan_finds_a_bare_message_in_each_place_it_looks():
    source = """
raise serializers.ValidationError({"b": ["Two different players."]})
raise MergeInvalid("They sat at the same game.")
raise PermissionDenied(detail=f"Only {who}.")
form.add_error(None, "Ends before it starts.")
messages.error(request, "Saved.")
raise serializers.ValidationError({"b": [gettext("Two different players.")]})
raise MergeInvalid(_("They sat at the same game."))
"""

    found = bare_messages(source, "example.py", {"MergeInvalid"})

    assert [line.split(": ", 1)[1] for line in found] == [
        "'Two different players.'",
        "'They sat at the same game.'",
        "'<f-string>'",
        "'Ends before it starts.'",
        "'Saved.'",
    ]
