"""The HTML digest: a self-contained e-mail body rendered from a Jinja2 template.

Every value reaches the template as data and is escaped by Jinja2's autoescaping
(feed text is untrusted). The page has inline CSS only, no scripts, no remote
images or style sheets, and a layout of simple tables that mail clients render.
Each topic gets a small inline SVG bar chart of its weekly paper counts; the bar
geometry is computed here and the template only prints numbers.

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

from papertrack.digest import Digest, _count, _day, _names, _other_tags, _scope, clean, link

__all__ = ["Chart", "chart", "environment", "render_html"]

#: Chart geometry, in CSS pixels.
BAR_WIDTH = 14
BAR_GAP = 4
CHART_HEIGHT = 48
LABEL_HEIGHT = 12


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
class Chart:
    """An SVG bar chart of weekly counts, oldest week first."""

    width: int
    height: int
    bars: tuple[Bar, ...]
    summary: str
    first: str
    last: str
    peak: int


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
) -> Chart:
    """Bars for ``(week start, count)`` pairs; a None count is a week with no data.

    The defaults are the digest's small chart. ``top`` leaves room above the bars
    (for their counts); ``partial`` and ``current`` flag each week as the week so
    far and as inside the current window (the site's chart marks both).
    """
    counts = [c for _, c in weeks if c is not None]
    peak = max(counts, default=0)
    bars = []
    for i, (start, count) in enumerate(weeks):
        x = i * (bar_width + gap)
        so_far = i < len(partial) and partial[i]
        now = i < len(current) and current[i]
        week = f"{start:%b} {start.day}"
        head = f"week of {start}{' so far' if so_far else ''}"
        if count is None:
            y, size, label = top + height - 1, 1, f"{head}: no data"
        else:
            size = round(height * count / peak) if peak else 0
            size = max(size, 1)  # a zero week still shows a baseline mark
            y, label = top + height - size, f"{head}: {count} paper{'' if count == 1 else 's'}"
        bars.append(Bar(x, y, bar_width, size, label, count is None, count, week, so_far, now))
    width = max(len(weeks) * (bar_width + gap) - gap, 1)
    summary = ", ".join("–" if c is None else str(c) for _, c in weeks)
    first = weeks[0][0].isoformat() if weeks else ""
    last = weeks[-1][0].isoformat() if weeks else ""
    return Chart(width, top + height + label_height, tuple(bars), summary, first, last, peak)


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
) -> dict[str, Any]:
    sections = []
    for section in digest.sections:
        if not section.papers:
            continue
        papers = []
        for paper in section.papers:
            papers.append(
                {
                    "title": clean(paper.title),
                    "url": link(paper),
                    "authors": _names(paper.authors) if paper.authors else "",
                    "day": _day(paper.paper_date),
                    "category": clean(paper.primary_category or ""),
                    "others": _other_tags(paper, section.topic, names),
                }
            )
        series = weeks.get(section.topic, ())
        sections.append(
            {
                "name": clean(section.name),
                "count": _count(len(section.papers)),
                "momentum": clean(section.momentum),
                "chart": chart(series) if series else None,
                "papers": papers,
            }
        )
    return {
        "day": _day(digest.generated),
        "scope": _scope(digest),
        "total": _count(len(digest.arxiv_ids())),
        "sections": sections,
    }


def render_html(
    digest: Digest,
    names: Mapping[str, str],
    weeks: Mapping[str, Sequence[tuple[date, int | None]]],
) -> str:
    """The digest as one HTML document for a mail body.

    Args:
        names: topic names by slug (for a paper's other topics).
        weeks: each slug's weekly counts, oldest first, as (week start, count or None).
    """
    return environment().get_template("digest.html.j2").render(_context(digest, names, weeks))
