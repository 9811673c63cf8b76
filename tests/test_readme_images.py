"""Every image README.md shows exists in the repository (``make screenshots`` re-takes them)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMAGE = re.compile(r"""<img\s[^>]*src="([^"]+)"|!\[[^\]]*\]\(([^)\s]+)""")


def readme_images(text: str) -> list[str]:
    """The local paths of the images a Markdown/HTML text shows (``<img src>``, ``![](…)``)."""
    found = [a or b for a, b in IMAGE.findall(text)]
    return [src for src in found if not re.match(r"[a-z]+:", src)]


def test_the_image_finder_finds_both_forms() -> None:
    text = '<img src="docs/a.png" alt="a">\n![b](docs/b.png)\n<img src="https://x/c.png">'
    assert readme_images(text) == ["docs/a.png", "docs/b.png"]


def test_every_image_the_readme_shows_exists() -> None:
    images = readme_images((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(images) >= 10
    missing = [src for src in images if not (ROOT / src).is_file()]
    assert missing == []


def test_each_screenshot_is_shown_once() -> None:
    images = readme_images((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(images) == len(set(images))
