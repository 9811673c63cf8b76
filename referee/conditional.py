"""Conditional requests (RFC 9110 §13.1): the one parser of ``If-Match`` and ``If-None-Match``.

A game's entity tag is its version, ``"<version>"`` (strong: two states with the
same version are byte-for-byte the same game). This module reads the headers'
whole grammar — ``*`` or a comma-separated list of entity tags, each ``"…"`` or
weak ``W/"…"``, with optional whitespace and empty list elements (§5.6.1) — and
turns them into the versions a write or a read may proceed at:

- ``If-Match`` uses the **strong** comparison (§8.8.3.2): a weak tag never
  matches, so ``W/"3"`` at version 3 fails (412);
- ``If-None-Match`` uses the **weak** comparison: ``W/"3"`` and ``"3"`` both
  name version 3 (304 on a read, 412 on a write);
- anything else — a bare ``3``, an unclosed quote, a character outside
  ``etagc``, a value over ``MAX_HEADER_LENGTH`` characters — is
  ``ConditionalHeaderInvalid`` (HTTP 400, code ``precondition_invalid``),
  never a guess and never a 500.

Only a tag that spells a version canonically (``"0"``, ``"17"``; not ``"017"``)
can name one; any other well-formed tag is simply some other representation's
and matches nothing. Pure Python: the API and the phone form both call it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_HEADER_LENGTH = 1024
"""Longest ``If-Match`` / ``If-None-Match`` value read (characters); longer is malformed."""
MAX_VERSION_DIGITS = 18
"""A version has at most this many digits (a game's version fits a 64-bit column)."""

# entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE ; etagc = %x21 / %x23-7E / obs-text
_ENTITY_TAG_RE = re.compile(r'(W/)?"([\x21\x23-\x7e\x80-\xff]*)"')
_VERSION_RE = re.compile(rf"0|[1-9][0-9]{{0,{MAX_VERSION_DIGITS - 1}}}")
_OWS = " \t"


class ConditionalHeaderInvalid(ValueError):
    """A conditional header that is not ``*`` or a list of entity tags (HTTP 400).

    ``header`` names it; ``too_long`` tells an over-long value from a malformed one.
    """

    code = "precondition_invalid"

    def __init__(self, header: str, reason: str, *, too_long: bool = False) -> None:
        self.header = header
        self.reason = reason
        self.too_long = too_long
        super().__init__(f"{header}: {reason}")


@dataclass(frozen=True, slots=True)
class EntityTag:
    """One entity tag: its opaque value (between the quotes) and whether it is weak."""

    opaque: str
    weak: bool = False

    def version(self) -> int | None:
        """The game version this tag spells (``"3"`` → 3), else ``None``."""
        return int(self.opaque) if _VERSION_RE.fullmatch(self.opaque) else None

    def __str__(self) -> str:
        return f'{"W/" if self.weak else ""}"{self.opaque}"'


@dataclass(frozen=True, slots=True)
class EntityTags:
    """A parsed conditional header: ``any`` (``*``) or its list of entity tags."""

    any: bool
    tags: tuple[EntityTag, ...] = ()

    def strong_versions(self) -> frozenset[int]:
        """The versions named by strong tags (If-Match's strong comparison)."""
        return frozenset(v for t in self.tags if not t.weak and (v := t.version()) is not None)

    def weak_versions(self) -> frozenset[int]:
        """The versions named by any tag, weak or strong (If-None-Match's weak comparison)."""
        return frozenset(v for t in self.tags if (v := t.version()) is not None)


def etag(version: int) -> str:
    """The strong entity tag of a game at ``version``: ``"<version>"``."""
    return f'"{version}"'


def parse_entity_tags(header: str, value: str) -> EntityTags:
    """Parse ``If-Match``/``If-None-Match`` (``header`` names it in errors).

    Returns ``EntityTags(any=True)`` for ``*``, else the list's tags in order.
    Raises ``ConditionalHeaderInvalid`` for anything outside the grammar, an
    empty list, or a value over ``MAX_HEADER_LENGTH`` characters.
    """
    if len(value) > MAX_HEADER_LENGTH:
        raise ConditionalHeaderInvalid(
            header, f"longer than {MAX_HEADER_LENGTH} characters", too_long=True
        )
    text = value.strip(_OWS)
    if text == "*":
        return EntityTags(any=True)
    tags: list[EntityTag] = []
    position = 0
    while position <= len(text):
        # One list element: optional whitespace, an optional entity tag, whitespace, a comma.
        while position < len(text) and text[position] in _OWS:
            position += 1
        match = _ENTITY_TAG_RE.match(text, position)
        if match is not None:
            tags.append(EntityTag(match.group(2), weak=match.group(1) is not None))
            position = match.end()
            while position < len(text) and text[position] in _OWS:
                position += 1
        if position == len(text):
            break
        if text[position] != ",":
            raise ConditionalHeaderInvalid(
                header, 'expected "*" or entity tags such as "3" or W/"3", separated by commas'
            )
        position += 1
    if not tags:
        raise ConditionalHeaderInvalid(header, 'expected "*" or at least one entity tag')
    return EntityTags(any=False, tags=tuple(tags))


def parse_version(text: str) -> int:
    """A version as the phone form sends it: plain ASCII digits, canonical, ≤ 18 digits.

    Raises ``ValueError`` otherwise (``"٣"``, ``"+3"``, ``"03"``, 5,000 digits).
    """
    stripped = text.strip(_OWS)
    if not _VERSION_RE.fullmatch(stripped):
        raise ValueError(f"not a version: {text[:40]!r}")
    return int(stripped)


@dataclass(frozen=True, slots=True)
class Conditions:
    """A request's ``If-Match`` and ``If-None-Match``, parsed (``None``: header absent)."""

    if_match: EntityTags | None = None
    if_none_match: EntityTags | None = None

    def admits(self, version: int | None) -> bool:
        """Whether a write may proceed on a resource at ``version`` (§13.2.2's order).

        ``version`` ``None`` is a resource with no entity tag (a collection, a
        form): ``If-Match: *`` holds for it, a list never does; ``If-None-Match:
        *`` fails on it (it exists), a list holds. For a game, ``If-Match`` holds
        when a strong tag names ``version`` and ``If-None-Match`` when no tag,
        weak or strong, does.
        """
        if self.if_match is not None and not self.if_match.any:
            if version not in self.if_match.strong_versions():
                return False
        if self.if_none_match is not None:
            if self.if_none_match.any:
                return False
            if version is not None and version in self.if_none_match.weak_versions():
                return False
        return True

    def not_modified(self, version: int) -> bool:
        """A read's ``If-None-Match`` test (§13.1.2, weak): 304 when it names ``version``."""
        tags = self.if_none_match
        return tags is not None and (tags.any or version in tags.weak_versions())


def conditions_of(*, if_match: str | None, if_none_match: str | None) -> Conditions | None:
    """Parse both headers as a request gives them (absent or empty: not sent).

    ``None`` when neither is sent; raises ``ConditionalHeaderInvalid`` when
    either is malformed.
    """
    match = parse_entity_tags("If-Match", if_match) if if_match else None
    none_match = parse_entity_tags("If-None-Match", if_none_match) if if_none_match else None
    if match is None and none_match is None:
        return None
    return Conditions(match, none_match)
