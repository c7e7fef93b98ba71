"""The HTML digest: a self-contained e-mail body rendered from a Jinja2 template.

Every value reaches the template as data and is escaped by Jinja2's autoescaping
(feed text is untrusted). The page has inline CSS only, no scripts, no remote
images or style sheets, and a layout of simple tables that mail clients render.
Each topic gets a small inline SVG bar chart of its weekly paper counts, with
week labels under the bars and the week still under way drawn lighter and named
"this week, so far"; the geometry is computed here and the template only prints
numbers.

jinja2 is imported inside :func:`environment` so other commands start without it.
The static site (:mod:`papertrack.site`) shares the chart and the environment.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jinja2

from papertrack.dates import shown_week
from papertrack.digest import (
    Digest,
    count_text,
    day_text,
    link,
    other_tags,
    scope_text,
    section_count,
    set_aside_lines,
    shown_above_lines,
)
from papertrack.text import names_plus, one_line

__all__ = ["PARTIAL_NOTE", "Bar", "Chart", "WeekLabel", "chart", "environment", "render_html"]

#: Chart geometry, in CSS pixels.
BAR_WIDTH = 14
BAR_GAP = 4
CHART_HEIGHT = 48
LABEL_HEIGHT = 12
#: A week label ("Jun 15", 9 px type) is about 30 px wide: one every other bar.
LABEL_EVERY = 2
#: What the last bar is called when its week has not ended yet.
PARTIAL_NOTE = "the week so far"


@dataclass(frozen=True, slots=True)
class Bar:
    x: int
    y: int
    width: int
    height: int
    label: str
    no_data: bool
    #: The week's papers (None: no data), and its start as 'Apr 6'.
    count: int | None = None
    week: str = ""
    #: The as-of day's week when that day is not its Sunday: the week so far.
    partial: bool = False
    #: Whether some of the week's days fall in the current momentum window.
    current: bool = False


@dataclass(frozen=True, slots=True)
class WeekLabel:
    """A week's start date under its bar, placed at ``x`` as SVG's ``text-anchor`` says.

    Centred on its bar, except at the chart's two ends, where it is aligned with
    the bar's outer edge so that it is not cut off.
    """

    x: int
    text: str
    anchor: str = "middle"


@dataclass(frozen=True, slots=True)
class Chart:
    """An SVG bar chart of weekly counts, oldest week first."""

    width: int
    height: int
    bars: tuple[Bar, ...]
    summary: str
    first: str
    last: str
    peak: int
    labels: tuple[WeekLabel, ...] = ()
    #: PARTIAL_NOTE when the last week is partial and labels are drawn, else "".
    note: str = ""
    #: The y of the axis line, and the baselines of the week labels, the caption and the note.
    axis_y: int = CHART_HEIGHT
    labels_y: int = CHART_HEIGHT + LABEL_HEIGHT - 2
    caption_y: int = CHART_HEIGHT + 2 * LABEL_HEIGHT - 1
    note_y: int = CHART_HEIGHT + 3 * LABEL_HEIGHT - 1


def label_weeks(starts: Sequence[date], bar_width: int, gap: int) -> tuple[WeekLabel, ...]:
    """The labels under bars of weeks starting ``starts``: every :data:`LABEL_EVERY`
    week counted back from the last, which always has one; the first and the last
    aligned with the chart's edges, so that neither is cut off."""
    pitch = bar_width + gap
    labels = []
    for i, start in enumerate(starts):
        if (len(starts) - 1 - i) % LABEL_EVERY:
            continue
        text = shown_week(start, starts[-1])  # the year of a week before the last's
        if i == len(starts) - 1 and i:
            labels.append(WeekLabel(i * pitch + bar_width, text, "end"))
        elif i == 0:
            labels.append(WeekLabel(0, text, "start"))
        else:
            labels.append(WeekLabel(i * pitch + bar_width // 2, text))
    return tuple(labels)


def chart(
    weeks: Sequence[tuple[date, int | None]],
    *,
    bar_width: int = BAR_WIDTH,
    gap: int = BAR_GAP,
    height: int = CHART_HEIGHT,
    label_height: int = LABEL_HEIGHT,
    top: int = 0,
    partial: Sequence[bool] = (),
    current: Sequence[bool] = (),
    partial_last: bool = False,
    week_labels: bool = False,
) -> Chart:
    """Bars for ``(week start, count)`` pairs; a None count is a week with no data.

    The defaults are the digest's small chart. ``top`` leaves room above the bars
    (for their counts); ``partial`` and ``current`` flag each week as the week so
    far and as inside the current window (the site's chart marks both);
    ``partial_last`` flags the last week alone. ``week_labels`` lays out labels
    under the bars (every other week) and, for a partial last week, the note
    :data:`PARTIAL_NOTE` (the digest's chart; the site draws its own labels).
    """
    if partial_last and weeks:
        partial = [False] * (len(weeks) - 1) + [True]
    counts = [c for _, c in weeks if c is not None]
    peak = max(counts, default=0)
    bars = []
    for i, (start, count) in enumerate(weeks):
        x = i * (bar_width + gap)
        so_far = i < len(partial) and partial[i]
        now = i < len(current) and current[i]
        week = shown_week(start, weeks[-1][0])
        tail = f" ({PARTIAL_NOTE})" if so_far else ""
        if count is None:
            y, size, label = top + height - 1, 1, f"week of {start}: no data{tail}"
        else:
            size = round(height * count / peak) if peak else 0
            size = max(size, 1)  # a zero week still shows a baseline mark
            papers = f"{count:,} paper{'' if count == 1 else 's'}"
            y, label = top + height - size, f"week of {start}: {papers}{tail}"
        bars.append(Bar(x, y, bar_width, size, label, count is None, count, week, so_far, now))
    width = max(len(weeks) * (bar_width + gap) - gap, 1)
    # Read aloud: "–" was said as "dash" or not at all, for a week the store has nothing of.
    summary = ", ".join("no data" if c is None else str(c) for _, c in weeks)
    so_far = bool(weeks) and len(partial) >= len(weeks) and bool(partial[len(weeks) - 1])
    if so_far:
        summary += f" ({PARTIAL_NOTE})"
    first = weeks[0][0].isoformat() if weeks else ""
    last = weeks[-1][0].isoformat() if weeks else ""
    if not week_labels:
        return Chart(width, top + height + label_height, tuple(bars), summary, first, last, peak)
    labels = label_weeks([start for start, _ in weeks], bar_width, gap)
    note = PARTIAL_NOTE if so_far else ""
    rows = 3 if note else 2  # week labels, caption, and the note on a line of its own
    axis = top + height
    return Chart(
        width,
        axis + rows * label_height,
        tuple(bars),
        summary,
        first,
        last,
        peak,
        labels,
        note,
        axis,
        axis + label_height - 2,
        axis + 2 * label_height - 1,
        axis + 3 * label_height - 1,
    )


def environment() -> jinja2.Environment:
    """The Jinja2 environment of papertrack's HTML: autoescaping on, every value escaped.

    Feed text reaches templates as data only; a value the template does not
    define is an error, never an empty string.
    """
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("papertrack", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _context(
    digest: Digest,
    names: Mapping[str, str],
    weeks: Mapping[str, Sequence[tuple[date, int | None]]],
    partial: Mapping[str, bool],
) -> dict[str, Any]:
    sections = []
    for section in digest.sections:
        if not section.papers:
            continue
        papers = []
        for paper in section.papers:
            papers.append(
                {
                    "title": one_line(paper.shown_title),
                    "url": link(paper),
                    "authors": names_plus(paper.authors) if paper.authors else "",
                    "day": day_text(paper.paper_date),
                    "category": one_line(paper.primary_category or ""),
                    "others": other_tags(paper, section.topic, names),
                }
            )
        series = weeks.get(section.topic, ())
        sections.append(
            {
                "name": one_line(section.name),
                "count": section_count(section),
                "momentum": one_line(section.momentum),
                "chart": (
                    chart(series, partial_last=partial.get(section.topic, False), week_labels=True)
                    if series
                    else None
                ),
                "papers": papers,
            }
        )
    return {
        "day": day_text(digest.generated),
        "scope": scope_text(digest),
        "total": count_text(len(digest.arxiv_ids())),
        "sections": sections,
        "shown_above": shown_above_lines(digest, one_line) + set_aside_lines(digest, one_line),
    }


def render_html(
    digest: Digest,
    names: Mapping[str, str],
    weeks: Mapping[str, Sequence[tuple[date, int | None]]],
    partial: Mapping[str, bool] | None = None,
) -> str:
    """The digest as one HTML document for a mail body.

    Args:
        names: topic names by slug (for a paper's other topics).
        weeks: each slug's weekly counts, oldest first, as (week start, count or None).
        partial: by slug, whether the last of its weeks is still under way.
    """
    context = _context(digest, names, weeks, partial or {})
    return environment().get_template("digest.html.j2").render(context)
