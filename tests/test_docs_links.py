"""Every relative link of README.md and the manual (docs/*.md) reaches a file, and its
``#anchor``, when it names a Markdown page, one of that page's headings."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)
INLINE_CODE = re.compile(r"`[^`\n]*`")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*$", re.MULTILINE)


def links(text: str) -> list[str]:
    """The relative link targets of a Markdown text (code blocks and code spans left out)."""
    prose = INLINE_CODE.sub("", FENCE.sub("", text))
    return [t for t in LINK.findall(prose) if not re.match(r"[a-z][a-z0-9+.-]*:", t)]


def anchors(text: str) -> set[str]:
    """The anchors a Markdown page's headings get, as GitHub makes them."""
    return {
        re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        for heading in HEADING.findall(FENCE.sub("", text))
    }


def test_the_link_finder_skips_code_and_urls() -> None:
    text = "[a](docs/a.md) [b](https://x.org/b) `[c](c.md)`\n```\n[d](d.md)\n```\n[e](#e)"
    assert links(text) == ["docs/a.md", "#e"]


def test_anchors_are_made_as_github_makes_them() -> None:
    assert anchors("### Seats — who sits where\n## The organiser's `pages`") == {
        "seats--who-sits-where",
        "the-organisers-pages",
    }


def test_every_relative_link_reaches_a_file_and_its_heading() -> None:
    broken = []
    for page in PAGES:
        for target in links(page.read_text(encoding="utf-8")):
            path, _, anchor = target.partition("#")
            file = (page.parent / path).resolve() if path else page
            if not file.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
            elif anchor and file.suffix == ".md" and anchor not in anchors(file.read_text("utf-8")):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert broken == []


def test_the_readme_links_into_the_manual() -> None:
    targets = links((ROOT / "README.md").read_text(encoding="utf-8"))
    assert {"docs/index.md", "docs/rules.md", "docs/record-format.md"} <= set(targets)
