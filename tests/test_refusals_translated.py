"""Every refusal and form error reads in the page's language (issue 28).

The lists are derived from the code, never written by hand: every ``ServiceError``
subclass (the API's and the pages' refusal codes), every message template of the rules
core and the services (``gettext_noop``/``ngettext_noop``, each RefereeError's detail with
its rule id), every form of the phone and organiser pages and every serializer of the API,
bound to empty and to malformed input. Each text is rendered in English and under fr, pl
and id; the same text in both is an English leak (a string never marked, or a marked one
missing from a catalog). ``tests/test_marked_messages.py`` finds bare literals in the
source; ``tests/referee/test_messages.py`` checks the catalogs' plural forms.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django import forms
from django.utils import translation
from rest_framework import serializers

import referee
import scoring
from referee.exceptions import ServiceError

ROOT = Path(__file__).resolve().parents[1]
LANGUAGES = ["fr", "pl", "id"]
# Texts that are the same in a language by nature: codes, names, numbers.
SAME_EVERYWHERE = {"OK"}
# Whatever a form or serializer field gets that it cannot take.
MALFORMED = "\u00a0x\u00a0" * 300


def _import_all() -> None:
    """Import every module of both packages, so every subclass is known."""
    for package in (referee, scoring):
        for module in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            if ".migrations" in module.name or ".management" in module.name:
                continue
            importlib.import_module(module.name)


def _subclasses(base: type) -> Iterator[type]:
    for cls in base.__subclasses__():
        yield cls
        yield from _subclasses(cls)


def _ours(cls: type) -> bool:
    return cls.__module__.split(".")[0] in {"referee", "scoring"}


_import_all()
REFUSALS = sorted({c for c in _subclasses(ServiceError) if _ours(c)}, key=lambda c: c.__name__)
FORMS = sorted(
    {c for c in _subclasses(forms.BaseForm) if _ours(c) and not c.__name__.startswith("_")},
    key=lambda c: c.__qualname__,
)
SERIALIZERS = sorted(
    {
        c
        for c in _subclasses(serializers.BaseSerializer)
        if _ours(c) and c.__module__.endswith("serializers") and not inspect.isabstract(c)
    },
    key=lambda c: c.__qualname__,
)


def _templates() -> list[tuple[str, ...]]:
    """The messages the rules core and the services mark without Django (a RefereeError's
    detail: its template with its parameters): ``(text,)`` or ``(singular, plural)``."""
    sources = [
        *sorted((ROOT / "referee" / "engine").glob("*.py")),
        ROOT / "referee" / "folding.py",
        *sorted((ROOT / "referee" / "services").glob("*.py")),
    ]
    found = set()
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            name = getattr(node, "func", None)
            name = getattr(name, "id", getattr(name, "attr", None))
            if isinstance(node, ast.Call) and name in {"gettext_noop", "ngettext_noop"}:
                texts = [a.value for a in node.args if isinstance(a, ast.Constant)]
                if texts and all(isinstance(t, str) for t in texts):
                    found.add(tuple(texts))
    return sorted(found)


def _rendered(templates: list[tuple[str, ...]]) -> list[str]:
    """Each template through gettext, a plural one through ngettext at 1, 2 and 5."""
    out = []
    for texts in templates:
        if len(texts) == 2:
            out += [translation.ngettext(*texts, n) for n in (1, 2, 5)]
        else:
            out.append(translation.gettext(texts[0]))
    return out


TEMPLATES = _templates()


def _leaks(english: list[str], translated: list[str]) -> list[str]:
    return [
        text
        for text in set(english) & set(translated)
        if any(c.isalpha() for c in text) and text not in SAME_EVERYWHERE
    ]


def _in(language: str, render: Any) -> list[str]:
    with translation.override(language):
        return [str(text) for text in render()]


def test_the_lists_are_found_in_the_code() -> None:
    """The drive covers what there is: every refusal code, form and serializer."""
    codes = {cls.code for cls in REFUSALS}
    assert {"not_club_organiser", "member_number_taken", "last_organiser", "game_closed"} <= codes
    names = {cls.__name__ for cls in FORMS}
    assert {"GameCreateForm", "CorrectionForm", "PlayerForm", "SeasonForm", "FirstRunForm"} <= names
    assert len(SERIALIZERS) >= 20
    assert len(TEMPLATES) >= 50


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_refusal_code_reads_in_the_language(language: str) -> None:
    def render() -> list[str]:
        out = []
        for cls in REFUSALS:
            error = cls()
            out += [f"{cls.code}: {error.detail}", f"{cls.code}: {cls.title}"]
        return out

    leaks = _leaks(_in("en", render), _in(language, render))
    assert not leaks, "\n".join(sorted(leaks))


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_rule_message_reads_in_the_language(language: str) -> None:
    """A RefereeError's detail (R1–R40) as the API and the phones render it."""
    english = _in("en", lambda: _rendered(TEMPLATES))
    leaks = _leaks(english, _in(language, lambda: _rendered(TEMPLATES)))
    assert not leaks, "\n".join(sorted(leaks))


def _form_errors(cls: type[forms.BaseForm]) -> list[str]:
    out = []
    for data in ({}, {name: MALFORMED for name in cls.base_fields}):
        form = cls(data=data)  # type: ignore[call-arg]
        form.is_valid()
        out += [
            f"{cls.__name__}.{field}: {e}" for field, errors in form.errors.items() for e in errors
        ]
    return out


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_form_error_reads_in_the_language(language: str) -> None:
    def render() -> list[str]:
        return [text for cls in FORMS for text in _form_errors(cls)]

    english = _in("en", render)
    assert len(english) >= 2 * len(FORMS) - 10  # nearly every form refuses empty input
    leaks = _leaks(english, _in(language, render))
    assert not leaks, "\n".join(sorted(leaks))


def _flat(detail: Any) -> Iterator[str]:
    if isinstance(detail, dict):
        for value in detail.values():
            yield from _flat(value)
    elif isinstance(detail, list):
        for value in detail:
            yield from _flat(value)
    else:
        yield str(detail)


def _serializer_errors(cls: type[serializers.BaseSerializer]) -> list[str]:
    out = []
    fields = getattr(cls(), "fields", {})
    for data in ({}, {name: MALFORMED for name in fields}, {name: [MALFORMED] for name in fields}):
        serializer = cls(data=data, context={"request": None, "view": None})
        try:
            serializer.is_valid()
        except (AttributeError, KeyError, TypeError):  # a validator that needs the request
            continue
        out += [f"{cls.__name__}: {text}" for text in _flat(serializer.errors)]
    return out


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_serializer_field_error_reads_in_the_language(language: str) -> None:
    def render() -> list[str]:
        return [text for cls in SERIALIZERS for text in _serializer_errors(cls)]

    english = _in("en", render)
    assert len(english) >= len(SERIALIZERS)
    leaks = _leaks(english, _in(language, render))
    assert not leaks, "\n".join(sorted(leaks))
