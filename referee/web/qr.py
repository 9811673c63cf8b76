"""QR codes for joining a table, drawn as inline SVG on the server (segno; no JavaScript)."""

from __future__ import annotations

import segno
from django.utils.safestring import SafeString, mark_safe


def qr_svg(url: str, *, title: str = "") -> SafeString:
    """``url`` as an inline ``<svg>`` QR code (error correction M, sized by CSS)."""
    code = segno.make(url, error="m", micro=False)
    svg = code.svg_inline(
        scale=1, border=4, dark="#000", light="#fff", omitsize=True, title=title or None
    )
    return mark_safe(svg)  # segno escapes the title; the rest is its own markup
