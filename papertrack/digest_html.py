"""The HTML digest: a self-contained e-mail body rendered from a Jinja2 template.

Every value reaches the template as data and is escaped by Jinja2's autoescaping
(feed text is untrusted). The page has inline CSS only, no scripts, no remote
images or style sheets, and a layout of simple tables that mail clients render.
Each topic gets a small inline SVG bar chart of its weekly paper counts, with
week labels under the bars and the week still under way drawn lighter and named
"this week, so far"; the geometry is computed here and the template only prints
numbers. :func:`chart` is meant to be reused (a static site): its parameters
after ``weeks`` are keyword-only and optional.

jinja2 is imported inside :func:`render_html` so other commands start without it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from papertrack.digest import Digest, _count, _day, _names, _other_tags, _scope, clean, link

__all__ = ["PARTIAL_NOTE", "Bar", "Chart", "WeekLabel", "chart", "render_html"]

#: Chart geometry, in CSS pixels.
BAR_WIDTH = 14
BAR_GAP = 4
CHART_HEIGHT = 48
LABEL_HEIGHT = 12
#: A week label ("Jun 15", 9 px type) is about 30 px wide: one every other bar.
LABEL_EVERY = 2
#: What the last bar is called when its week has not ended yet.
PARTIAL_NOTE = "this week, so far"


@dataclass(frozen=True, slots=True)
class Bar:
    x: int
    y: int
    width: int
    height: int
    label: str
    no_data: bool
    #: The week has not ended: drawn lighter, with a dashed outline.
    partial: bool = False


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
    """An SVG bar chart of weekly counts, oldest week first.

    Below the bars, ``labels`` name every :data:`LABEL_EVERY`-th week (counted
    back from the last, so the newest week is always named), and ``note`` says
    when the last bar is a week still under way.
    """

    width: int
    height: int
    bars: tuple[Bar, ...]
    summary: str
    first: str
    last: str
    peak: int
    labels: tuple[WeekLabel, ...] = ()
    #: PARTIAL_NOTE when the last week is partial, else "".
    note: str = ""
    #: The y of the axis line, and the baselines of the week labels, the caption and the note.
    axis_y: int = CHART_HEIGHT
    labels_y: int = CHART_HEIGHT + LABEL_HEIGHT - 2
    caption_y: int = CHART_HEIGHT + 2 * LABEL_HEIGHT - 1
    note_y: int = CHART_HEIGHT + 3 * LABEL_HEIGHT - 1


def _week_label(start: date) -> str:
    return f"{start:%b} {start.day}"


def chart(weeks: Sequence[tuple[date, int | None]], *, partial_last: bool = False) -> Chart:
    """Bars for ``(week start, count)`` pairs; a None count is a week with no data.

    ``partial_last``: the last week has not ended (the digest's own week), so its
    bar is no full week's count: it is drawn lighter and dashed, its label says
    "so far", and the chart's ``note`` is :data:`PARTIAL_NOTE`.
    """
    counts = [c for _, c in weeks if c is not None]
    peak = max(counts, default=0)
    pitch = BAR_WIDTH + BAR_GAP
    bars = []
    for i, (start, count) in enumerate(weeks):
        x = i * pitch
        partial = partial_last and i == len(weeks) - 1
        if count is None:
            label = f"week of {start}: no data"
            bars.append(Bar(x, CHART_HEIGHT - 1, BAR_WIDTH, 1, label, True, partial))
            continue
        height = round(CHART_HEIGHT * count / peak) if peak else 0
        height = max(height, 1)  # a zero week still shows a baseline mark
        label = f"week of {start}: {count:,} paper{'' if count == 1 else 's'}"
        label += f" ({PARTIAL_NOTE})" if partial else ""
        bars.append(Bar(x, CHART_HEIGHT - height, BAR_WIDTH, height, label, False, partial))
    width = max(len(weeks) * pitch - BAR_GAP, 1)
    labels = []
    for i, (start, _) in enumerate(weeks):
        if (len(weeks) - 1 - i) % LABEL_EVERY:
            continue
        if i == len(weeks) - 1 and i:
            labels.append(WeekLabel(i * pitch + BAR_WIDTH, _week_label(start), "end"))
        elif i == 0:
            labels.append(WeekLabel(0, _week_label(start), "start"))
        else:
            labels.append(WeekLabel(i * pitch + BAR_WIDTH // 2, _week_label(start)))
    summary = ", ".join("–" if c is None else str(c) for _, c in weeks)
    if partial_last and weeks:
        summary += f" ({PARTIAL_NOTE})"
    first = weeks[0][0].isoformat() if weeks else ""
    last = weeks[-1][0].isoformat() if weeks else ""
    note = PARTIAL_NOTE if partial_last and weeks else ""
    rows = 3 if note else 2  # week labels, caption, and the note on a line of its own
    return Chart(
        width,
        CHART_HEIGHT + rows * LABEL_HEIGHT,
        tuple(bars),
        summary,
        first,
        last,
        peak,
        tuple(labels),
        note,
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
                "chart": (
                    chart(series, partial_last=partial.get(section.topic, False))
                    if series
                    else None
                ),
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
    partial: Mapping[str, bool] | None = None,
) -> str:
    """The digest as one HTML document for a mail body.

    Args:
        names: topic names by slug (for a paper's other topics).
        weeks: each slug's weekly counts, oldest first, as (week start, count or None).
        partial: by slug, whether the last of its weeks is still under way.
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
    context = _context(digest, names, weeks, partial or {})
    return env.get_template("digest.html.j2").render(context)
