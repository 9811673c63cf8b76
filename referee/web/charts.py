"""Pictures of a game and of a player's evenings, drawn server-side as SVG with pygal.

No script reaches the browser: pygal's tooltips are off (``js=[]``) and the SVG is
written into the page (``Picture.svg``), scaled by CSS to the card's width (no fixed
width or height, only a ``viewBox``), so one drawing reads on a 360 px phone and on the
1920 px TV. Every picture comes with the same numbers as a table (``Picture.rows``) for
screen readers and for print; the SVG itself is ``aria-hidden``.

- ``game_stones``: stones held by each seat after each round (R22, R23), the rounds
  that elected a CAMAT (R24) marked on the line of the seat elected, and the first
  round of each sitting (R27) a major label of the round axis.
- ``evenings``: a player's evenings of a season, one point per club evening: stones
  received, rounds won and the rating after the evening (right axis).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import pygal
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, pgettext
from pygal.style import Style

# pygal adds an old-style import hook for its map plugins (``pygal.maps.*``, unused here)
# that every later import warns about (ImportWarning: no ``find_spec``): taken out again.
sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "PluginImportFixer"]

# Seat colours: the table's own five, dark enough on white (WCAG 3:1 for a line).
SEAT_COLOURS = ("#1f5fa8", "#b3401a", "#2c7a3b", "#7a3c99", "#8a6d00")

STYLE = Style(
    background="transparent",
    plot_background="transparent",
    foreground="#222",
    foreground_strong="#111",
    foreground_subtle="#666",
    colors=SEAT_COLOURS,
    font_family="system-ui, sans-serif",
    label_font_size=15,
    major_label_font_size=15,
    legend_font_size=15,
    title_font_size=18,
    value_font_size=14,
    tooltip_font_size=14,
)


@dataclass(frozen=True)
class Picture:
    """An SVG (``svg``: safe markup, ``aria-hidden``) and its text equivalent.

    ``caption``: one sentence of what it shows; ``columns``: the header of the table;
    ``rows``: one list of cells per x value (round or evening), first cell the label.
    """

    svg: SafeString
    caption: str
    columns: list[str]
    rows: list[list[Any]] = field(default_factory=list)


def _chart(kind: type[Any], columns: int, **config: Any) -> Any:
    return kind(
        js=[],  # no script: the page stays usable offline and without a CDN
        disable_xml_declaration=True,
        explicit_size=False,
        style=STYLE,
        width=480,
        height=360,
        legend_at_bottom=True,
        # One row of legend, one column per series: pygal's room for the legend below is
        # right only then (rows = series // columns).
        legend_at_bottom_columns=columns,
        show_y_guides=True,
        truncate_legend=9,  # a long name is whole in the table of numbers
        dots_size=3,
        margin=8,
        margin_bottom=24,  # the legend row below the x labels, drawn lower than pygal counts
        **config,
    )


_SCRIPT = re.compile(r"<script\b.*?</script>", re.S)
_COMMENT = re.compile(r"<!--.*?-->", re.S)


def _svg(chart: Any) -> SafeString:
    markup = chart.render(is_unicode=True)
    # ``js=[]`` leaves the tooltips' config behind, as a script: not sent; nor pygal's
    # credits comment (with the day it was drawn).
    markup = _COMMENT.sub("", _SCRIPT.sub("", markup))
    # Hidden from screen readers: the table beside it says the same.
    markup = markup.replace("<svg ", '<svg aria-hidden="true" focusable="false" ', 1)
    return mark_safe(markup)  # noqa: S308 - pygal's own markup, labels escaped by it


def game_stones(
    *, names: Sequence[str], rounds: Sequence[dict[str, Any]], sittings: dict[int, int]
) -> Picture | None:
    """The stones each seat held after each round of a game (``None`` before any round).

    ``names``: the five seats' names; ``rounds``: the game's ``domeng-result/1`` rounds;
    ``sittings``: round number → sitting number (R27) for the rounds of a known sitting.
    A round that elected a CAMAT (R24) is a larger dot on the elected seat's line; the
    first round of each sitting is a major label (``S2 · 5``). Voided rounds (R35) keep
    the stones as they were and are labelled so.
    """
    done = [r for r in rounds if r.get("ending") is not None or r.get("void")]
    if not done:
        return None
    labels: list[str] = []
    major: list[str] = []
    previous_sitting = None
    for r in done:
        number = r["number"]
        sitting = sittings.get(number)
        label = str(number)
        if sitting is not None and sitting != previous_sitting:
            label = gettext("S%(sitting)s · %(round)s") % {"sitting": sitting, "round": number}
            major.append(label)
        previous_sitting = sitting
        labels.append(label)
    chart = _chart(
        pygal.Line,
        len(names),
        x_title=gettext("Round"),
        y_title=gettext("Stones held"),
        x_labels=labels,
        x_labels_major=major or None,
        show_minor_x_labels=True,
        min_scale=2,
        include_x_axis=True,
        y_labels=_whole_numbers(max(max(r["after"]["stones"]) for r in done)),
    )
    for seat, name in enumerate(names):
        points = []
        for r in done:
            value: dict[str, Any] = {"value": r["after"]["stones"][seat]}
            if r.get("camat_elected") == seat:
                value["node"] = {"r": 9}
                value["label"] = "CAMAT"
            points.append(value)
        chart.add(f"{seat} {name}", points)
    rows = []
    for r in done:
        if r.get("void"):
            what = pgettext("round", "void")
        elif r.get("camat_elected") is not None:
            what = gettext("CAMAT: %(name)s") % {"name": names[r["camat_elected"]]}
        else:
            what = ""
        sitting = sittings.get(r["number"])
        rows.append([r["number"], sitting or "", *r["after"]["stones"], what])
    columns = [
        gettext("Round"),
        gettext("Sitting"),
        *[f"{seat} {name}" for seat, name in enumerate(names)],
        gettext("CAMAT elected"),
    ]
    caption = gettext(
        "Stones held by each seat after each round; a large dot marks the seat elected CAMAT, "
        "S marks the first round of a sitting."
    )
    return Picture(svg=_svg(chart), caption=caption, columns=columns, rows=rows)


def _whole_numbers(top: int) -> list[int]:
    """Axis labels for a count of stones or rounds: whole numbers from 0 to at least
    ``top``, at most about eight of them (a stone is never a fraction, R22)."""
    step = max(1, -(-max(top, 2) // 8))
    return list(range(0, max(top, 2) + step, step))


class Evening(Protocol):
    """One club evening of a player (``scoring.selectors.PlayerEvening``): its local
    ``date``, ``rounds`` played, ``won``, ``received`` (stones received, R23) and
    ``rating`` (the ordinal μ − 3σ after the evening, ``None`` before the first completed
    CAMAT cycle, R24)."""

    @property
    def date(self) -> Any: ...
    @property
    def rounds(self) -> int: ...
    @property
    def won(self) -> int: ...
    @property
    def received(self) -> int: ...
    @property
    def rating(self) -> float | None: ...


def evenings(*, name: str, nights: Sequence[Evening], date_format: Any) -> Picture | None:
    """A player's evenings: stones received, rounds won and rating (right axis), lines.

    ``date_format``: a callable drawing an evening's date in the page's language.
    ``None`` when the player has no evening.
    """
    if not nights:
        return None
    labels = [date_format(n.date) for n in nights]
    rated = any(n.rating is not None for n in nights)  # none before a first CAMAT cycle (R24)
    chart = _chart(
        pygal.Line,
        3 if rated else 2,
        x_labels=labels,
        x_label_rotation=-30 if len(labels) > 6 else 0,
        y_title=gettext("Stones, rounds"),
        include_x_axis=True,
        min_scale=2,
        y_labels=_whole_numbers(max(max(n.received, n.won) for n in nights)),
    )
    chart.add(gettext("Stones received"), [n.received for n in nights])
    chart.add(gettext("Rounds won"), [n.won for n in nights])
    if rated:
        chart.add(
            gettext("Rating"),
            [None if n.rating is None else round(n.rating, 2) for n in nights],
            secondary=True,
        )
    rows = [
        [label, n.rounds, n.received, n.won, "" if n.rating is None else f"{n.rating:.2f}"]
        for label, n in zip(labels, nights, strict=True)
    ]
    columns = [
        gettext("Evening"),
        gettext("Rounds"),
        gettext("Stones received"),
        gettext("Rounds won"),
        gettext("Rating"),
    ]
    caption = gettext(
        "%(name)s's evenings: stones received and rounds won, and the rating after each "
        "evening (right axis)."
    ) % {"name": name}
    return Picture(svg=_svg(chart), caption=caption, columns=columns, rows=rows)
