"""Every image README.md and the manual (docs/*.md) show exists (``make screenshots``)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMAGE = re.compile(r"""<img\s[^>]*src="([^"]+)"|!\[[^\]]*\]\(([^)\s]+)""")
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
"""The front page and the manual's pages."""


def readme_images(text: str) -> list[str]:
    """The local paths of the images a Markdown/HTML text shows (``<img src>``, ``![](…)``)."""
    found = [a or b for a, b in IMAGE.findall(text)]
    return [src for src in found if not re.match(r"[a-z]+:", src)]


def test_the_image_finder_finds_both_forms() -> None:
    text = '<img src="docs/a.png" alt="a">\n![b](docs/b.png)\n<img src="https://x/c.png">'
    assert readme_images(text) == ["docs/a.png", "docs/b.png"]


def test_the_readme_and_the_manual_show_the_screenshots() -> None:
    shown = {
        (page.parent / src).resolve()
        for page in PAGES
        for src in readme_images(page.read_text(encoding="utf-8"))
    }
    assert readme_images((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(shown) >= 10


def test_every_image_a_page_shows_exists() -> None:
    missing = [
        f"{page.relative_to(ROOT)}: {src}"
        for page in PAGES
        for src in readme_images(page.read_text(encoding="utf-8"))
        if not (page.parent / src).is_file()
    ]
    assert missing == []


def test_each_screenshot_is_shown_once_a_page() -> None:
    for page in PAGES:
        images = readme_images(page.read_text(encoding="utf-8"))
        assert len(images) == len(set(images)), page.name
