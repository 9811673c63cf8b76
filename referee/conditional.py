"""Conditional requests (RFC 9110 §13.1): the one parser of ``If-Match`` and ``If-None-Match``.

A game's entity tags name its version. A write's answer carries ``"<version>"``: that
answer goes to its writer alone. A read's answer depends on who asks (a phone's own
declared hand, R31; the organiser's view of a blocked round's hands, R18/R33), so its tag
is that viewer's body's: ``"<version>.<digest>"`` (``representation_etag``; issue 27),
and two viewers whose bodies differ never share a strong tag, while one viewer's
unchanged body keeps its tag. Both spell the version first, so either names it in a
write's ``If-Match`` (the writes' precondition is about the game's version alone). This
module reads the headers'
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

A read's ``If-None-Match`` is compared with the whole tag of the body the caller would
get (``Conditions.not_modified``): a bare ``"3"``, or another viewer's ``"3.<digest>"``,
gets the body (200), never a 304 that would let a client keep another viewer's body.

Only a tag that spells a version canonically (``"0"``, ``"17"``, ``"17.<digest>"``; not
``"017"``) can name one; any other well-formed tag is simply some other representation's
and matches nothing. Pure Python: the API and the phone form both call it.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

MAX_HEADER_LENGTH = 1024
"""Longest ``If-Match`` / ``If-None-Match`` value read (characters); longer is malformed."""
MAX_VERSION_DIGITS = 18
"""A version has at most this many digits (a game's version fits a 64-bit column)."""

# entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE ; etagc = %x21 / %x23-7E / obs-text
_ENTITY_TAG_RE = re.compile(r'(W/)?"([\x21\x23-\x7e\x80-\xff]*)"')
_ENTITY_TAG_PATTERN = r'(W/)?"[\x21\x23-\x7e\x80-\xff]*"'
ENTITY_TAGS_PATTERN = (
    r"^[ \t]*(\*|([ \t]*,)*[ \t]*"
    + _ENTITY_TAG_PATTERN
    + r"([ \t]*,([ \t]*"
    + _ENTITY_TAG_PATTERN
    + r")?)*)[ \t]*$"
)
"""What ``parse_entity_tags`` takes, as an ECMA-262 pattern for the API schema (RFC 9110
§13.1): ``*`` or a comma-separated list of entity tags, empty elements allowed, one tag at
least; anything else is 400 ``precondition_invalid``."""
CONDITIONAL_HEADER_PATTERN = f"^$|{ENTITY_TAGS_PATTERN}"
"""``ENTITY_TAGS_PATTERN`` or empty: ``conditions_of`` reads an empty header as not sent."""
_VERSION_RE = re.compile(rf"0|[1-9][0-9]{{0,{MAX_VERSION_DIGITS - 1}}}")
DIGEST_LENGTH = 16
"""Hex digits of a body's digest in a read's entity tag (64 bits of SHA-256)."""
_TAG_VERSION_RE = re.compile(
    rf"(0|[1-9][0-9]{{0,{MAX_VERSION_DIGITS - 1}}})(?:\.[0-9a-f]{{{DIGEST_LENGTH}}})?"
)
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
        """The game version this tag spells (``"3"`` and ``"3.<digest>"`` → 3), else ``None``."""
        match = _TAG_VERSION_RE.fullmatch(self.opaque)
        return int(match.group(1)) if match else None

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
    """The strong entity tag of a write's answer at ``version``: ``"<version>"``."""
    return f'"{version}"'


def body_digest(body: Any) -> str:
    """``DIGEST_LENGTH`` hex digits of the SHA-256 of ``body``: bytes as they are, anything
    else as canonical JSON (sorted keys, no spaces; other values by ``str``)."""
    if not isinstance(body, bytes):
        body = json.dumps(
            body, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
        ).encode()
    return hashlib.sha256(body).hexdigest()[:DIGEST_LENGTH]


def representation_etag(version: int, body: Any) -> str:
    """The strong entity tag of one viewer's read of a game at ``version``:
    ``"<version>.<digest>"`` of the body that viewer gets (``body_digest``)."""
    return f'"{version}.{body_digest(body)}"'


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

    def not_modified(self, current: str) -> bool:
        """A read's ``If-None-Match`` test (§13.1.2, weak comparison): 304 when it is ``*``
        or lists the tag ``current`` of the body this caller would get (weak or not). A
        tag of the same version for another viewer's body, or a bare ``"<version>"``,
        does not match: the caller gets its own body."""
        tags = self.if_none_match
        if tags is None:
            return False
        opaque = parse_entity_tags("ETag", current).tags[0].opaque
        return tags.any or any(tag.opaque == opaque for tag in tags.tags)


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
