"""The HTML digest: a self-contained e-mail body rendered from a Jinja2 template.

Every value reaches the template as data and is escaped by Jinja2's autoescaping
(feed text is untrusted). The page has inline CSS only, no scripts, no remote
images or style sheets, and a layout of simple tables that mail clients render.
Each topic gets a small inline SVG bar chart of its weekly paper counts; the bar
geometry is computed here and the template only prints numbers.

jinja2 is imported inside :func:`render_html` so other commands start without it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from papertrack.digest import Digest, _count, _day, _names, _other_tags, _scope, clean, link

__all__ = ["Chart", "chart", "render_html"]

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


def chart(weeks: Sequence[tuple[date, int | None]]) -> Chart:
    """Bars for ``(week start, count)`` pairs; a None count is a week with no data."""
    counts = [c for _, c in weeks if c is not None]
    peak = max(counts, default=0)
    bars = []
    for i, (start, count) in enumerate(weeks):
        x = i * (BAR_WIDTH + BAR_GAP)
        if count is None:
            bars.append(Bar(x, CHART_HEIGHT - 1, BAR_WIDTH, 1, f"week of {start}: no data", True))
            continue
        height = round(CHART_HEIGHT * count / peak) if peak else 0
        height = max(height, 1)  # a zero week still shows a baseline mark
        label = f"week of {start}: {count} paper{'' if count == 1 else 's'}"
        bars.append(Bar(x, CHART_HEIGHT - height, BAR_WIDTH, height, label, False))
    width = max(len(weeks) * (BAR_WIDTH + BAR_GAP) - BAR_GAP, 1)
    summary = ", ".join("–" if c is None else str(c) for _, c in weeks)
    first = weeks[0][0].isoformat() if weeks else ""
    last = weeks[-1][0].isoformat() if weeks else ""
    return Chart(width, CHART_HEIGHT + LABEL_HEIGHT, tuple(bars), summary, first, last, peak)


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
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("papertrack", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    return env.get_template("digest.html.j2").render(_context(digest, names, weeks))
