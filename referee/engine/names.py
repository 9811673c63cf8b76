"""Names as a table reads them: visible text only, and identities compared as people read them.

A name that carries a bidirectional override (U+202E turns ``Andi`` into what
reads as another name), a zero-width character (two names that look equal but
differ) or any other invisible control cannot be told apart at the table; it
is refused. Member numbers are compared after Unicode NFKC and case folding,
so ``É-7`` typed in NFC and in NFD, or ``B-01`` and ``Ｂ-01``, are one number.
"""

from __future__ import annotations

import unicodedata

# Categories of characters a name may not hold: controls (Cc), formats (Cf: the bidi
# marks, embeddings, overrides and isolates, the zero-width space, joiners, the BOM…),
# surrogates (Cs), private use (Co), unassigned (Cn), line and paragraph separators.
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def is_visible_name(name: str) -> bool:
    """True if ``name`` holds no invisible, control or direction-changing character."""
    return not any(unicodedata.category(ch) in INVISIBLE_CATEGORIES for ch in name)


# The explicit bidirectional embeddings, overrides and isolates (U+202A–U+202E,
# U+2066–U+2069): they reorder how the rest of a text is shown, so a reason shown on every
# phone could read as something else. A free text (a reason, a note) may hold any other
# character a name may not (an emoji's zero-width joiner, say), but not these.
DIRECTION_CONTROLS = frozenset(
    [chr(c) for c in range(0x202A, 0x202F)] + [chr(c) for c in range(0x2066, 0x206A)]
)


def reorders_text(text: str) -> bool:
    """True if ``text`` holds a bidirectional embedding, override or isolate."""
    return not DIRECTION_CONTROLS.isdisjoint(text)


def identity_key(text: str) -> str:
    """``text`` as identities are compared: stripped, NFKC-normalised and case-folded
    (``" Ｂ-01 "`` → ``"b-01"``; NFC and NFD spellings give one key)."""
    return unicodedata.normalize("NFKC", text.strip()).casefold()
