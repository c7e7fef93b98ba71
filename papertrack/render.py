"""Rich renderables for papertrack's views. Functions here return, never print.

Everything that came from a feed is wrapped in ``rich.text.Text`` (never parsed as
markup) after control characters are removed, so a title like ``[bold red]x[/]``
or one holding a terminal escape sequence prints literally and harmlessly.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from papertrack.dates import shown_day, shown_week
from papertrack.models import Paper, utc_text
from papertrack.text import counted, names_plus, visible


def safe(value: object) -> str:
    """Feed text made harmless for a terminal: no escape or unseen character."""
    return visible(value, keep_lines=True)


#: Lists and cards cut feed text here: the longest arXiv titles have about 300
#: characters and abstracts at most 1,920, so only a hostile or broken feed is cut
#: (Rich takes about a second to wrap a 1 MB title). `show` and JSON keep it whole.
TITLE_CHARS = 1000
#: The narrowest a table's title column gets: the longest word of most titles.
TITLE_MIN_WIDTH = 24
ABSTRACT_CHARS = 10_000
#: `show` lists at most this many authors, one a row: a paper of 571 authors took 598
#: lines, its tags and abstract after them (`show --json` lists them all).
SHOWN_AUTHORS = 50


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis and the size of what was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit].rstrip()}… [{len(text) - limit:,} more characters]"


def format_date(moment: datetime | None) -> str:
    """'Aug 6, 2026' as the topic page shows it."""
    return "undated" if moment is None else shown_day(moment)


def format_affiliations(names: Sequence[str], shown: int = 3) -> str:
    """'Shanghai Jiao Tong University · Zhejiang University · … +4'."""
    return names_plus(names, shown, sep=" · ")


def format_tags(tags: Sequence[str], names: Mapping[str, str], shown: int | None = None) -> str:
    """'LLM World Models · Agentic RL · LLM Agent Training +2' (topic names, catalog order)."""
    labels = [names.get(tag, tag) for tag in tags]
    return names_plus(labels, len(labels) if shown is None else shown, sep=" · ")


#: The widest tag word the tags column makes room for (longer ones are folded).
TAG_WORD_MAX = 16
#: Below this console width the tags column's ratio share is too narrow for a tag word.
NARROW_TABLE = 120
#: Below this console width the latest-papers table has three columns, not five,
#: and below the next one two.
COMPACT_TABLE = 100
TWO_COLUMNS = 60


def led_by(papers: Sequence[Paper], slug: str | None) -> list[Paper]:
    """``papers`` with the tag ``slug`` first, for a view of that topic: the table
    shows four tags in catalog order, and a topic of the user's own (last in it) was
    hidden in "+2" on its own page."""
    import dataclasses

    if not slug:
        return list(papers)
    return [
        dataclasses.replace(p, tags=(slug, *(t for t in p.tags if t != slug)))
        if slug in p.tags[1:]
        else p
        for p in papers
    ]


def with_note(view: RenderableType, note: str) -> RenderableType:
    """``view`` with ``note`` dim under it, when there is one: what `latest`, `search`
    and `trending` say of rows that are not all there is ("The newest 20 of 147")."""
    return Group(view, Text(note, style="dim")) if note else view


def papers_table(
    papers: Sequence[Paper], title: str, tag_names: Mapping[str, str], width: int | None = None
) -> Table:
    """The 'latest papers' table: one row a paper, newest first, its id under its date.

    ``width``, the console's, lets a narrow table keep whole tag words (see below);
    below :data:`COMPACT_TABLE` columns the table is :func:`_compact_table`.
    """
    if width is not None and width < COMPACT_TABLE:
        return _compact_table(papers, title, tag_names, width)
    # The title is what a reader scans: it gets half the width the date and category
    # leave (ratio 4 of 8, with authors and tags at 2 each), and never so little that
    # a long word of it is cut ("Psychology-Grounded"). Rich applies ratios only to
    # an expanded table; without them it shrinks every column by its content's
    # width, which gave titles 16 characters at 80 columns and three lines at 160
    # beside half-empty author and tag columns. Only a word longer than the column
    # (a URL) is folded.
    table = Table(title=Text(safe(title), style="bold"), title_justify="left", expand=True)
    table.add_column("Date", no_wrap=True)
    table.add_column("Cat.", no_wrap=True, style="cyan")
    table.add_column("Title", ratio=4, min_width=TITLE_MIN_WIDTH, overflow="fold", style="bold")
    table.add_column("Authors", ratio=2, overflow="fold")
    # Listing feeds carry no affiliations: an empty column would only cost width.
    with_affiliations = any(paper.author_affiliations for paper in papers)
    if with_affiliations:
        table.add_column("Affiliations", ratio=2, overflow="fold", style="dim")
    fixed = width is not None and width < NARROW_TABLE
    _tags_column(table, papers, tag_names, fixed)
    for paper in papers:
        when = Text(format_date(paper.paper_date))
        if shown_id := _shown_id(paper):
            when.append("\n" + shown_id, style="dim")
        cells = [
            when,
            Text(safe(paper.primary_category or "")),
            Text(safe(clip(paper.shown_title, TITLE_CHARS))),
            Text(safe(names_plus(paper.authors))),
        ]
        if with_affiliations:
            cells.append(Text(safe(format_affiliations(paper.affiliations))))
        cells.append(Text(safe(format_tags(paper.tags, tag_names, shown=4))))
        table.add_row(*cells)
    return table


#: An id longer than this (a generic feed's entry key) is left out of a table's date
#: column, which it would widen; `--json` and `--abstract` have it whole.
ID_CHARS = 20


def _shown_id(paper: Paper) -> str:
    """The paper's id under its date, to copy into `show`, `topics explain`, `topics
    teach` or `add --like`: the tables showed none, and each of those needs one."""
    text = paper.arxiv_id
    # An id cut short is no id `show` takes: a long entry key is left out.
    return safe(text) if len(text) <= ID_CHARS else ""


def _tags_column(
    table: Table, papers: Sequence[Paper], tag_names: Mapping[str, str], fixed: bool
) -> None:
    """The tags column, wide enough for the longest word of a tag shown ("Reinforcement"):
    a topic name broken mid-word is one a reader cannot recognise. Rich gives a column
    with a ratio its share and ignores min_width, so where the share would be narrower
    than that word (``fixed``) the column gets a fixed width instead (padding included)."""
    words = [w for p in papers for t in p.tags[:4] for w in tag_names.get(t, t).split()]
    tag_width = min(max(map(len, words), default=4), TAG_WORD_MAX) + 2
    table.add_column(
        "Tags",
        ratio=None if fixed else 2,
        width=tag_width if fixed else None,
        overflow="fold",
        style="green",
    )


def _compact_table(
    papers: Sequence[Paper], title: str, tag_names: Mapping[str, str], width: int
) -> Table:
    """The latest-papers table for a narrow terminal (and a pipe's 80 columns): three
    columns, the category and the id under the date and the authors (then
    affiliations) under the title. Five columns at 80 left the authors 10
    characters, and at 60 three, so that names were broken mid-word ("Tia/nyi").
    Below :data:`TWO_COLUMNS` the tags go under the authors too: beside them, the
    paper had no room left."""
    beside = width >= TWO_COLUMNS
    table = Table(title=Text(safe(title), style="bold"), title_justify="left", expand=True)
    table.add_column("Date", no_wrap=True)
    table.add_column("Paper", ratio=1, overflow="fold")
    if beside:
        _tags_column(table, papers, tag_names, fixed=True)
    for paper in papers:
        when = Text(format_date(paper.paper_date))
        if paper.primary_category:
            when.append("\n" + safe(paper.primary_category), style="cyan")
        if shown_id := _shown_id(paper):
            when.append("\n" + shown_id, style="dim")
        about = Text(safe(clip(paper.shown_title, TITLE_CHARS)), style="bold")
        if paper.authors:
            about.append("\n" + safe(names_plus(paper.authors)))
        if paper.author_affiliations:
            about.append("\n" + safe(format_affiliations(paper.affiliations)), style="dim")
        tags = Text(safe(format_tags(paper.tags, tag_names, shown=4)), style="green")
        if beside:
            table.add_row(when, about, tags)
        else:
            if tags:
                about.append("\n").append_text(tags)
            table.add_row(when, about)
    return table


def paper_cards(papers: Sequence[Paper], title: str, tag_names: Mapping[str, str]) -> Group:
    """The topic page's cards: meta line, title, authors, affiliations, abstract, tags."""
    cards: list[RenderableType] = [Text(safe(title), style="bold")]
    for paper in papers:
        meta = Text(format_date(paper.paper_date))
        if paper.primary_category:
            meta.append("  ")
            meta.append(safe(paper.primary_category), style="cyan")
        meta.append(f"  {safe(paper.arxiv_id)}", style="dim")
        body: list[RenderableType] = [
            Text(safe(clip(paper.shown_title, TITLE_CHARS)), style="bold"),
            meta,
        ]
        if paper.authors:
            body.append(Text(safe(names_plus(paper.authors))))
        if paper.affiliations:
            body.append(Text(safe(format_affiliations(paper.affiliations)), style="dim"))
        if paper.abstract:
            body.append(Padding(Text(safe(clip(paper.abstract, ABSTRACT_CHARS))), (1, 0, 0, 0)))
        if paper.tags:
            body.append(
                Padding(Text(safe(format_tags(paper.tags, tag_names)), style="green"), (1, 0, 0, 0))
            )
        cards.append(Panel(Group(*body)))
    return Group(*cards)


#: Below this console width `topics` and `trending` leave out a column (Source,
#: Weeks): at 60 the others were cut to "1,7…" and "+100…".
NARROW_LIST = 80
#: Below this one they leave out more (topics its names: the slug names the topic;
#: trending its ranks and shares): at 50 a count of 48 was cut to "4", and at 40
#: trending's topic column was drawn 0 wide.
NARROWEST_LIST = 60


def _count_column(table: Table, header: str) -> None:
    """A right-aligned column of numbers: never wrapped, never narrower than its header."""
    table.add_column(header, justify="right", no_wrap=True, min_width=len(header))


#: A slug this long stays on one line in `topics list` while the table has room: the
#: longest default slug, synthetic-data-generation, is 25.
SLUG_KEPT = 25


def fold_at_hyphens(slug: str, width: int) -> str:
    """``slug`` in lines of at most ``width``, broken after a hyphen where it can be:
    "llm-agent-" and "training", not "llm-agent-tr" and "aining". A part longer than
    ``width`` is left whole, for the table to fold."""
    lines = [""]
    for part in re.split(r"(?<=-)", slug):
        if lines[-1] and len(lines[-1]) + len(part) > width:
            lines.append(part)
        else:
            lines[-1] += part
    return "\n".join(lines)


def topics_table(
    rows: Sequence[Mapping[str, object]], title: str = "Topics", width: int | None = None
) -> Table:
    """`topics`: one row a topic with its slug, source and counts (no source below
    :data:`NARROW_LIST` columns of ``width``)."""
    narrow = width is not None and width < NARROW_LIST
    narrowest = width is not None and width < NARROWEST_LIST
    table = Table(title=Text(safe(title), style="bold"), title_justify="left")
    if not narrowest:
        # A word longer than a narrow Name column is folded, not cut to "Compute…".
        table.add_column("Name", style="bold", ratio=1, overflow="fold" if narrow else "ellipsis")
    # The slug is what a user types: never wrapped or cut; the name wraps instead.
    slug_width = max((len(str(row["topic"])) for row in rows), default=4)
    recent_header = "Last 4 weeks"
    fold_width = 0
    # The count columns at their widest, "Last 4 weeks" in two lines (it wraps).
    widest = [
        max([len(header)] + [len(f"{row[key] or 0:,}") for row in rows])
        for key, header in (("papers", "Papers"), ("last_4_weeks", "Last 4"))
    ]
    if narrowest:  # the one text column left: folded rather than pushing counts off
        table.add_column("Slug", style="cyan", overflow="fold", min_width=6)
        # What the counts leave the slug: 10 for the borders and padding of three
        # columns, the counts at their widest, the header in two lines.
        recent_header = "Last 4\nweeks"
        fold_width = max(6, (width or 0) - 10 - sum(widest))
    else:
        # Whole on one line, unless the longest slug would take more than half of
        # what the counts leave, or push them off the table (a topic of your own named
        # by a long phrase, 75 characters): then the long ones fold at hyphens, to
        # half of that (the name has the other half) but never under SLUG_KEPT, and
        # the name keeps 8 columns.
        columns = 4 if narrow else 5
        source = 0 if narrow else max([len("Source")] + [len(str(row["source"])) for row in rows])
        left = (width or 0) - (3 * columns + 1) - sum(widest) - source
        kept = min(left - 8, max(left // 2, SLUG_KEPT))
        if width is not None and slug_width > kept:
            fold_width = max(12, kept)
        if fold_width:
            # A part with no hyphen longer than that is folded where it must be.
            table.add_column("Slug", style="cyan", overflow="fold", width=fold_width)
        else:
            table.add_column("Slug", style="cyan", no_wrap=True, min_width=slug_width)
    if not narrow:
        table.add_column("Source")
    _count_column(table, "Papers")
    table.add_column(recent_header, justify="right", min_width=6)  # the header may wrap
    for row in rows:
        cells = [] if narrowest else [Text(safe(row["name"]))]
        slug = safe(row["topic"])
        cells.append(Text(fold_at_hyphens(slug, fold_width) if fold_width else slug))
        if not narrow:
            cells.append(Text(safe(row["source"])))
        recent = row["last_4_weeks"]
        cells.append(Text(f"{row['papers']:,}"))
        cells.append(Text("no data", style="dim italic") if recent is None else Text(f"{recent:,}"))
        table.add_row(*cells)
    return table


# --------------------------------------------------------------------------- momentum

from datetime import date  # noqa: E402  (this block was appended; momentum.py is pure)

from papertrack.momentum import (  # noqa: E402
    Momentum,
    WeekBucket,
    describe,
    footer,
    format_share,
    format_shares,
    notes,
    sparkline,
    window_phrase,
)

_EIGHTHS = ("", "▏", "▎", "▍", "▌", "▋", "▊", "▉")


def bar(value: int, top: int, width: int) -> str:
    """A horizontal bar of ``value`` out of ``top`` in ``width`` cells, to an eighth of a cell.

    Any paper at all shows at least a sliver, so one paper never looks like none.
    """
    if value <= 0 or top <= 0:
        return ""
    eighths = max(1, round(value / top * width * 8))
    full, rest = divmod(eighths, 8)
    return "█" * full + _EIGHTHS[rest]


def week_label(start: date, as_of: date) -> str:
    """'Week of Sep 28' (with the year when it is not the as-of day's)."""
    return f"Week of {shown_week(start, as_of)}"


def change_label(m: Momentum) -> str:
    """'+145%', '-30%', '0%', 'new', or '–' when there is nothing to compare."""
    pct = m.change_pct
    if pct is None:
        return "new" if m.current.count and m.previous.covered_days else "–"
    return f"{pct:+d}%" if pct else "0%"


def momentum_chart(
    m: Momentum, width: int = 40, compact: bool = False, counted: bool = True
) -> Table:
    """One bar per ISO week, oldest first, the count beside it, the current window bracketed
    (``compact``: "Apr 6" for "Week of Apr 6" and the bracket without its words;
    ``counted``: the bracket says how many of its first bar's papers the window counts)."""
    table = Table(box=None, show_header=False, padding=(0, 1), pad_edge=False)
    table.add_column("Week", no_wrap=True)
    table.add_column("Bar", no_wrap=True, min_width=width)
    table.add_column("Count", no_wrap=True, justify="right")
    table.add_column("Window", no_wrap=True, style="bold")
    top = max((w.count or 0 for w in m.weeks), default=0)
    labels, brackets = _chart_words(m, compact, counted)
    for week, label, bracket in zip(m.weeks, labels, brackets, strict=True):
        table.add_row(
            Text(label, style="bold" if week.current else ""),
            *_bar_cells(week, top, width),
            Text(bracket),
        )
    return table


def _chart_words(m: Momentum, compact: bool, counted: bool) -> tuple[list[str], list[str]]:
    """The week labels and bracket marks of :func:`momentum_chart`'s rows."""
    current = [n for n, w in enumerate(m.weeks) if w.current]
    labels, brackets = [], []
    for n, week in enumerate(m.weeks):
        label = week_label(week.start, m.as_of)
        bracket = _bracket(n, current, m, counted)
        if not week.complete:
            # A chart of one bracketed week said "◀ last four weeks, from May 30 so far".
            bracket += " (this week so far)" if ", from " in bracket else " so far"
        if compact:
            label, bracket = label.removeprefix("Week of "), bracket[:1]
        labels.append(label)
        brackets.append(bracket)
    return labels, brackets


#: What a week the store holds no paper of shows in place of its bar.
NO_DATA = "no data"


def _bar_cells(week: WeekBucket, top: int, width: int) -> tuple[Text, Text]:
    if week.count is None:
        # A bar narrower than the words (a console under 22 columns): a dash, as the
        # sentence above the chart says which days have no data.
        return Text(NO_DATA if width >= len(NO_DATA) else "–", style="dim italic"), Text("")
    cells = Text(bar(week.count, top, width), style="bold cyan" if week.current else "cyan")
    return cells, Text(f"{week.count:,}")


def _bracket(n: int, rows: list[int], m: Momentum, counted: bool = True) -> str:
    """The mark beside row ``n`` of the chart: the bracket over the weeks that overlap
    the current window, its first row saying the window's first day when that is not
    the first bar's Monday, and how many of that bar's papers the window counts (its
    bar counts days before the window: the bracketed bars added up to 70 where the
    sentence said 48, and to 332 where it said 250)."""
    if n not in rows:
        return ""
    label = window_phrase(m.window_weeks)
    first = m.current.first
    if n == rows[0] and first != m.weeks[n].start:
        label += f", from {shown_week(first, m.as_of)}"
        week = m.weeks[n].count
        # Only when this bar is the week the window starts in: a chart of fewer weeks
        # than the window said "from May 28: 31 of 17" of a later week.
        starts_here = m.weeks[n].start <= first <= m.weeks[n].start + timedelta(days=6)
        if counted and starts_here and week is not None and len(rows) > 1:
            # Of the first bar, the papers the window counts: the rest are before it.
            later = sum(m.weeks[r].count or 0 for r in rows[1:])
            label += f": {max(0, m.current.count - later):,} of {week:,}"
    if len(rows) == 1:
        return f"◀ {label}"
    if n == rows[0]:
        return f"┐ {label}"
    return "┘" if n == rows[-1] else "│"


#: The fewest cells the longest bar is drawn in before the chart gives up words.
SHORTEST_BAR = 8
#: The fewest cells of the longest bar of a compact chart on a narrow console.
NARROWEST_BAR = 3


def chart_fit(m: Momentum, console_width: int) -> tuple[int, bool, bool]:
    """(cells for the longest bar, compact, counted) for a chart of ``m`` on a console
    ``console_width`` wide: the fullest chart whose labels, counts and bracket fit
    whole beside a bar of at least :data:`SHORTEST_BAR` cells (40 at most), first
    with the bracket's count of its first bar ("from May 30: 12 of 82"), then
    without, then compact (see :func:`momentum_chart`), whose bar is shorter still
    where the console is too narrow (down to :data:`NARROWEST_BAR` cells).

    Measured on the chart itself: widths guessed for "Week of Apr 6" left a chart
    across New Year ("Week of Dec 22, 2025") no room, and its counts were dropped
    at 80 columns, the width of every pipe and cron mail.
    """
    from rich.cells import cell_len

    counts = max((len(f"{w.count:,}") for w in m.weeks if w.count is not None), default=0)
    tried = ((False, True), (False, False), (True, False))
    for compact, with_count in tried:
        labels, brackets = _chart_words(m, compact, with_count)
        words = max(map(cell_len, labels), default=0)
        marks = max(map(cell_len, brackets), default=0)
        # Three gaps of two cells between the four columns (padding (0, 1), no edges).
        room = console_width - words - counts - marks - 6
        if room >= SHORTEST_BAR:
            return min(40, room), compact, with_count
        if compact:
            # A shorter bar, not cut labels: at 20 columns "Apr …" named no week, and
            # the bracket of the last four weeks was gone.
            return max(NARROWEST_BAR, room), compact, with_count
    raise AssertionError("unreachable: the compact chart is always taken")


def momentum_block(
    m: Momentum, title: str | None = None, console_width: int | None = None
) -> Group:
    """The topic page's momentum: the sentence, cautions, the weekly chart, what was counted.

    ``console_width`` sizes the chart (:func:`chart_fit`); None draws its longest
    bar 40 cells long.
    """
    parts: list[RenderableType] = []
    if title:
        parts.append(Text(safe(title), style="bold"))
    parts.append(Text(describe(m)))
    parts.extend(Text(note, style="yellow") for note in notes(m))
    # Blank lines rather than Padding, which fills its lines with spaces to the full width.
    width, compact, counted = (
        (40, False, True) if console_width is None else chart_fit(m, console_width)
    )
    parts.extend((Text(""), momentum_chart(m, width, compact, counted), Text("")))
    parts.append(Text(footer(m), style="dim"))
    return Group(*parts)


def trending_table(results: Sequence[Momentum], title: str, width: int | None = None) -> Table:
    """Topics ranked by momentum: counts in both windows, change, share and a sparkline
    (none below :data:`NARROW_LIST` columns of ``width``)."""
    narrow = width is not None and width < NARROW_LIST
    narrowest = width is not None and width < NARROWEST_LIST
    # Below 60 columns no padding at the table's edges: at 40, with counts in the
    # thousands, the table took 42 columns, and its title was cut to the table's width.
    table = Table(
        title=Text(safe(title), style="bold"), title_justify="left", pad_edge=not narrowest
    )
    if not narrowest:
        table.add_column("#", justify="right", style="dim", no_wrap=True)
    table.add_column("Topic", style="bold", min_width=10, overflow="fold")
    for header in ("Now", "Before"):
        _count_column(table, header)
    table.add_column("Change", justify="right", no_wrap=True, min_width=7)
    if not narrowest:
        _count_column(table, "Share")
    if not narrow:
        table.add_column("Weeks", no_wrap=True, style="cyan")
    few = gaps = False
    rows: list[list[str | Text]] = []
    for n, m in enumerate(results, start=1):
        change = change_label(m)
        if (m.low_count or m.little_data) and change != "–":
            change += "*"
            few = True
        if change != "–" and m.partial:
            # As momentum says: with days of no data the counts are compared per day
            # of data, so "15 │ 10 │ 0%" is no error; it was shown with no word of why.
            change += "†"
            gaps = True
        share = "–" if m.share is None else format_share(m.share, short=True)
        cells: list[str | Text] = [
            Text(safe(m.name)),
            f"{m.current.count:,}" if m.current.covered_days else "no data",
            f"{m.previous.count:,}" if m.previous.covered_days else "no data",
            change,
        ]
        if not narrowest:
            cells = [str(n), *cells, share]
        rows.append(cells)
    marks = None if narrow or width is None else _weeks_room(table, rows, width)
    cut = 0
    for m, cells in zip(results, rows, strict=True):
        if not narrow:
            line = sparkline([w.count for w in m.weeks])
            if marks is not None and len(line) > marks:
                # The newest weeks are what a trend is read from: the oldest give way
                # (the line was cut at its newest end, with no mark of it).
                kept = max(marks - 1, 4)
                cut = max(cut, len(line) - kept)
                line = "…" + line[-kept:]
            cells.append(line)
        table.add_row(*cells)
    notes = []
    first = results[0] if results else None
    if first is not None and first.unlisted_days and first.newest_day is not None:
        # Every Monday most topics read "down", with no word of why.
        notes.append(
            f"Now: no paper is dated after {shown_day(first.newest_day, year=False)} yet, "
            f"so it reads low; --as-of {first.newest_day.isoformat()} ends the windows there"
        )
    if cut:
        notes.append(
            f"Weeks: … stands for the oldest {cut:,} weeks, which do not fit this width "
            "(-f csv has them all)"
        )
    if few:
        notes.append(
            "* fewer than 10 papers, or under a week of data, in a window: too few to call "
            "a trend, ranked after the others"
        )
    if gaps:
        notes.append("† a window has days with no data: compared per day of data")
    last = results[0].weeks[-1] if results and results[0].weeks else None
    if not narrow and last is not None and not last.complete and not last.no_data:
        # Its last mark is the week so far: a Tuesday's two days read as a collapse.
        as_of = results[0].as_of
        days = shown_day(last.start, year=False)
        if as_of != last.start:
            days += f" – {shown_day(as_of, year=False)}"
        notes.append(f"Weeks: a mark a week; the last, {days}, is the week so far")
    if notes:
        table.caption = "\n".join(notes)
        table.caption_justify = "left"
    return table


#: At most this many cells of a trending table's Topic column are kept for its
#: longest name before the weekly marks give way (a longer name wraps): with 12
#: weeks, the default, every mark fits at 80 columns.
TOPIC_KEPT = 20


def _weeks_room(table: Table, rows: Sequence[Sequence[str | Text]], width: int) -> int:
    """How many weekly marks fit in the last column of a trending ``table`` of ``rows``
    (each row's cells but that one) on ``width`` columns, names whole up to
    :data:`TOPIC_KEPT` cells: at 80 columns, 26 weeks cut the newest marks off
    and wrapped names, and 40 left the Topic column no room at all."""
    from rich.cells import cell_len

    if not rows:
        return width
    shown = len(rows[0])
    used = 0
    for column, header in enumerate(table.columns[:shown]):
        cells = [str(row[column]) for row in rows]
        widest = max([cell_len(str(header.header)), header.min_width or 0, *map(cell_len, cells)])
        used += min(widest, TOPIC_KEPT) if header.header == "Topic" else widest
    # Each column's padding and border, and the last border (the marks' column too).
    return width - used - (3 * (shown + 1) + 1)


def topic_page(
    m: Momentum,
    description: str,
    papers: RenderableType | None,
    latest_title: str,
    console_width: int | None = None,
    related: Sequence[tuple[str, int, float | None]] = (),
    ask: str = "",
    *,
    following: bool = False,
    follow: str = "",
    shown_of: str = "",
) -> Group:
    """The topic page: header, momentum with its chart, the latest papers (``shown_of``
    says how many of them, when not all), related topics, follow, ask.

    ``related`` is (topic name, shared papers, overlap) of the nearest topics
    (:mod:`papertrack.related`);
    ``follow`` the command line that follows the topic (or, ``following`` it, that
    unfollows it); ``ask`` the command line that asks about the topic.
    """
    parts: list[RenderableType] = [Text(safe(m.name), style="bold")]
    if description:
        parts.append(Text(safe(description), style="dim"))
    parts.extend(
        (
            Text(""),
            momentum_block(m, f"Momentum as of {shown_day(m.as_of)}", console_width),
            Text(""),
        )
    )
    listed = papers if papers is not None else Text(safe(latest_title), style="bold")
    parts.append(with_note(listed, shown_of))
    if related:
        # Ranked by overlap, so that is what is shown: "67 shared" before "98 shared"
        # read as a list out of order.
        shares = format_shares([overlap or 0.0 for _, _, overlap in related])
        shown = ", ".join(
            f"{safe(name)} ({n:,} shared)" if overlap is None else f"{safe(name)} {share} ({n:,})"
            for (name, n, overlap), share in zip(related, shares, strict=True)
        )
        # Counted in the chart's weeks, as the site says: under "Latest papers (497)",
        # "25% (220)" read as of every stored paper, where 407 are in both.
        span = "week" if len(m.weeks) == 1 else f"{len(m.weeks)} weeks"
        head = f"Related topics in the {span} charted" + (
            " (papers in both, of those in either)"
            if any(r[2] is not None for r in related)
            else ""
        )
        parts.extend((Text(""), Text.assemble((f"{head}: ", "bold"), shown)))
    if follow:
        if following:
            said = f"yes: new papers come in your digest ('{safe(follow)}' stops that)"
            parts.append(Text.assemble(("Following: ", "bold"), said))
        else:
            parts.append(Text.assemble(("Follow: ", "bold"), safe(follow)))
    if ask:
        parts.append(Text.assemble(("Ask: ", "bold"), safe(ask)))
    return Group(*parts)


# ------------------------------------------------------------- topics: show, test, explain

from typing import TYPE_CHECKING, Any  # noqa: E402  (this block was appended)

from papertrack.text import shorten  # noqa: E402

if TYPE_CHECKING:
    from papertrack.diagnose import TopicExplanation, Trial
    from papertrack.store import StoreStats


#: Ids ``topics show`` lists of each side of a topic's examples.
TAUGHT_SHOWN = 8


def _taught_line(taught: Mapping[str, list[str]]) -> str:
    """`2 in: 2605.08721, 2606.26758; 1 out: 2606.06560` (the first few of each)."""
    parts = []
    cut = False
    for side in ("in", "out"):
        ids = taught.get(side) or []
        if ids:
            shown = ", ".join(ids[:TAUGHT_SHOWN])
            more = f" and {len(ids) - TAUGHT_SHOWN:,} more" if len(ids) > TAUGHT_SHOWN else ""
            cut = cut or bool(more)
            parts.append(f"{len(ids):,} {side}: {shown}{more}")
    # The rest were nowhere to be read but examples.json.
    return "; ".join(parts) + (" (--json lists them all)" if cut else "")


def _was_taught(info: Mapping[str, Any]) -> bool:
    """Whether a topic card's topic has papers taught to it."""
    taught = info.get("taught") or {}
    return bool(taught.get("in") or taught.get("out"))


def topic_card(info: Mapping[str, Any]) -> Group:
    """`topics show`: a topic's definition and its counts."""
    head = Text(safe(info["name"]), style="bold")
    head.append(f"  ({safe(info['topic'])})", style="cyan")
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="dim", no_wrap=True)
    grid.add_column(overflow="fold")  # the topics file's path is wrapped, not cut
    source = str(info["source"])
    if info.get("overrides_default"):
        source += ", replacing the default topic with this slug"
    grid.add_row("source", Text(safe(f"{source} ({info['file']})")))
    grid.add_row("categories", Text(safe(", ".join(info["categories"]) or "any")))
    grid.add_row(
        "papers",
        Text(
            f"{info['papers']:,} stored, "
            + (
                f"{info['last_4_weeks']:,} in the last 4 weeks"
                if info["last_4_weeks"] is not None
                else "no data for the last 4 weeks: the store holds no paper of them"
            )
            + f" (to {info['as_of']})"
        ),
    )
    if info.get("decide"):
        grid.add_row("decides by", Text(safe(info["decide"])))
    figures = info.get("examples")
    if figures:
        taught = info.get("taught") or {}
        yours = " and your examples" if taught.get("in") or taught.get("out") else ""
        grid.add_row(
            "examples",
            Text(
                f"{figures['positives']:,} in, {figures['negatives']:,} out (papertrack's "
                f"labelled papers{yours}); 5-fold cross-validated, before implications: "
                f"precision {figures['precision']:.2f}, recall "
                f"{figures['recall']:.2f}, F1 {figures['f1']:.2f}"
            ),
        )
    elif info.get("model_file") and info.get("decide") == "query":
        # A query topic taught a few papers: they are pinned, and its model decides
        # nothing; "teach it more" promised what more examples never do.
        grid.add_row(
            "examples", Text("the papers taught are decided as taught; its query, the rest")
        )
    elif info.get("model_file"):
        note = info.get("note") or "too few"
        # An older papertrack's note says it already ("... too few to cross-validate").
        said = "cross-validate" in note
        grid.add_row(
            "examples",
            Text(f"{safe(note)}{'' if said else '; not cross-validated'}: teach it more"),
        )
    test = info.get("test_split")
    if test:
        grid.add_row(
            "test split",
            Text(
                f"precision {test['precision']:.2f}, recall {test['recall']:.2f}, F1 "
                f"{test['f1']:.2f} (95% interval {test['f1_low']:.2f}-{test['f1_high']:.2f}) "
                f"on {test['papers']:,} labelled papers never fitted on, {test['labelled']:,} "
                "of them in: its tags as shipped, implications included"
            ),
        )
    elif "test_split" in info and info.get("source") == "default" and _was_taught(info):
        # The line went with the first teach, and nothing said why.
        grid.add_row(
            "test split",
            Text(
                "measured for the topic as shipped, before papers were taught to it: the "
                "cross-validated figures above are its model's now"
            ),
        )
    if _was_taught(info):
        grid.add_row("taught", Text(safe(_taught_line(info["taught"]))))
    if info.get("implies"):
        grid.add_row("implies", Text(safe(", ".join(info["implies"]))))
    if info.get("implied_by"):
        grid.add_row("implied by", Text(safe(", ".join(info["implied_by"]))))
    if info.get("model_current") is False:
        grid.add_row(
            "model",
            Text(
                safe(
                    f"made by an older papertrack, {info.get('model_outdated') or 'differently'}"
                    f": teach it again to refit it (papertrack topics teach {info['topic']} ID)"
                ),
                style="yellow",
            ),
        )
    parts: list[RenderableType] = [head]
    if info["description"]:
        parts.append(Text(safe(info["description"])))
    parts += [Text(""), grid, Text(""), Text("query", style="dim")]
    if not str(info["query"]).strip():
        parts.append(Text("  none: it decides by its model alone", style="dim"))
    return Group(*parts)


def query_lines(query: str) -> list[Text]:
    """A topic's query as written, a line each, indented by two: to be printed
    unwrapped (``soft_wrap``), so that it can be copied whole. Wrapped to the
    terminal, a comment went on in a line without its '#', and the query copied
    from the card did not parse."""
    return [Text("  " + safe(line)) for line in query.strip("\n").splitlines()]


def trial_view(trial: Trial, title: str, width: int | None = None) -> Group:
    """`topics test`: matches, share of the store, matches per week and a sample of hits.

    Below :data:`NARROW_LIST` columns of ``width`` the weeks go without their year
    and the sample without its dates: at 40 columns "Jun 22, 2026 (so far)" left
    the counts "2…" and "7…", and the titles broke mid-word ("Empirica|l")."""
    narrow = width is not None and width < NARROW_LIST
    # Two decimals, for telling queries apart; a share that rounds to none is not 0.
    share = (
        "–"
        if trial.share is None
        else "under 0.01%"
        if 0 < trial.share < 0.00005
        else f"{100 * trial.share:.2f}%"
    )
    recent = (
        f"{trial.recent:,} in the last 4 weeks"
        if trial.recent is not None
        else "no data for the last 4 weeks"
    )
    parts: list[RenderableType] = [
        Text(safe(title), style="bold"),
        Text(
            f"{trial.matches:,} of {trial.total:,} stored papers"
            + (f" dated up to {trial.as_of.isoformat()}" if trial.dated_to_as_of else "")
            + f" match ({share}); {recent} (to {trial.as_of.isoformat()})."
        ),
        Text(""),
    ]
    so_far = any(not week.complete for week in trial.weeks)
    weeks = Table(
        title="Matches per week",
        title_justify="left",
        caption="* the week so far" if narrow and so_far else None,
        caption_justify="left",
    )
    weeks.add_column("Week of", no_wrap=True)
    weeks.add_column("Matches" if not narrow else "Hits", justify="right", no_wrap=True)
    weeks.add_column("All papers" if not narrow else "All", justify="right", no_wrap=True)
    weeks.add_column("Share", justify="right", no_wrap=True)
    for week in trial.weeks:
        shown = f"{week.start:%b} {week.start.day}" if narrow else shown_day(week.start)
        if not week.complete:
            # A week of two days read as a collapse: momentum and trending say so too.
            shown += "*" if narrow else " (so far)"
        if week.count is None:  # no data
            weeks.add_row(shown, Text("no data", style="dim italic"), "0", "–")
            continue
        part = format_share(week.count / week.total, short=True) if week.total else "–"
        weeks.add_row(shown, f"{week.count:,}", f"{week.total:,}", part)
    parts += [weeks, Text("")]
    if trial.sample:
        sample = Table(
            title=f"Sample: {len(trial.sample):,} of {trial.matches:,} (--seed {trial.seed})",
            title_justify="left",
        )
        if not narrow:
            sample.add_column("Date", no_wrap=True)
        # A feed entry's id is its link: folded at a third of the width, or it left
        # the title no room at all.
        sample.add_column(
            "arXiv id",
            style="cyan",
            overflow="fold",
            max_width=max(12, (width or 80) // 3),
        )
        sample.add_column("Title", overflow="fold", style="bold")
        for paper in trial.sample:
            cells = [
                Text(safe(paper.arxiv_id)),
                Text(safe(clip(paper.shown_title, TITLE_CHARS))),
            ]
            sample.add_row(*([] if narrow else [format_date(paper.paper_date)]), *cells)
        parts.append(sample)
    return Group(*parts)


def _in_by(item: TopicExplanation) -> str:
    """What put a paper in a topic, as `topics explain ID` says it: the user's
    teaching, a topic that implies it, or the topic's own rule, and whether its
    query matches (the terms it found are not the reason when it does not)."""
    from papertrack.topics import decided

    if item.taught:
        return "in: taught by you"
    fired = item.model is not None and item.model.fired
    if item.implied_by and not decided(item.decide, fired, item.query_matched):
        return f"in: implied by {', '.join(name for _, name in item.implied_by)}"
    if item.decide == "query" or (item.decide == "either" and not fired):
        return "in by its query"
    if item.decide == "both" or (item.decide == "either" and item.query_matched):
        return "in by its model and its query"
    if not item.has_query:
        return "in by its model"
    said = "matches too" if item.query_matched else "does not match"
    return f"in by its model; its query {said}"


def _taught_out_lines(paper: Paper, taught_out: Sequence[TopicExplanation]) -> list[Text]:
    """The topics a paper was taught out of, which its tags no longer name: without
    them, a paper a user took out of a topic looked as if the topic had missed it."""
    if not taught_out:
        return []
    named = ", ".join(f"{item.name} ({item.slug})" for item in taught_out)
    undo = [
        f"'papertrack topics teach {item.slug} --unteach {paper.arxiv_id}'" for item in taught_out
    ]
    # One command a topic: one for the first, said to take "that" back, left the rest.
    takes = "takes that back" if len(undo) == 1 else "take those back, one a topic"
    return [
        Text(safe(f"Taught out by you: {named}."), style="italic"),
        Text(safe(f"{' and '.join(undo)} {takes}."), style="dim"),
    ]


def explanation_view(paper: Paper, explanations: Sequence[TopicExplanation], asked: bool) -> Group:
    """`topics explain`: the terms of each matching topic found, and in which fields.

    With one topic asked for (``asked``): each of its conditions, met or not, and why not.
    """
    head = Text(safe(paper.arxiv_id), style="cyan")
    head.append("  ")
    head.append(safe(clip(paper.shown_title, TITLE_CHARS)), style="bold")
    meta = Text(format_date(paper.paper_date), style="dim")
    meta.append(f"  {safe(', '.join(paper.categories))}", style="dim")
    parts: list[RenderableType] = [head, meta, Text("")]
    if not asked:
        taught_out = [item for item in explanations if item.taught is False]
        explanations = [item for item in explanations if item.taught is not False]
        if not explanations:
            parts.append(Text("Matches no topic."))
            parts += _taught_out_lines(paper, taught_out)
            return Group(*parts)
        table = Table(
            title=f"Matches {len(explanations)} topic{'s' if len(explanations) != 1 else ''}",
            title_justify="left",
        )
        table.add_column("Topic", style="bold")
        table.add_column("Why; the query's terms found")
        table.add_column("Found in", style="green")
        for item in explanations:
            table.add_row(
                Text(safe(item.name)),
                Text(safe(_in_by(item)), style="italic"),
                Text(""),
                end_section=not item.hits,
            )
            for n, hit in enumerate(item.hits):
                table.add_row(
                    Text(""),
                    Text(safe(hit.term)),
                    Text(", ".join(hit.fields)),
                    end_section=n == len(item.hits) - 1,
                )
        parts.append(table)
        parts += _taught_out_lines(paper, taught_out)
        if any(item.model is not None for item in explanations):
            parts.append(
                Text(
                    safe(f"What a model weighed: papertrack topics explain {paper.arxiv_id} TOPIC"),
                    style="dim",
                )
            )
        return Group(*parts)
    item = explanations[0]
    verdict = "is in" if item.matched else "is not in"
    parts.append(Text(safe(f"{paper.arxiv_id} {verdict} {item.name} ({item.slug})."), style="bold"))
    rules = {
        "query": "its query",
        "model": "its model",
        "either": "its model or its query",
        "both": "its model and its query together",
    }
    parts.append(Text(f"The topic decides by {rules[item.decide]}."))
    if item.taught is not None:
        where = "in" if item.taught else "out of"
        parts.append(
            Text(
                f"You taught it this paper is {where} the topic ('papertrack topics teach'): "
                "that holds, whatever its rule says below.",
                style="bold",
            )
        )
        if item.fitted_on and item.model is not None:
            # After a teach, words only this paper has (its "transforms") showed as
            # the evidence for it, and its score rose from -4.03 to +3.56.
            parts.append(
                Text(
                    "Its model was fitted with it as an example, so its own words weigh in "
                    "the score below: that says more about the example than about papers "
                    "like it ('papertrack topics explain' of one you did not teach shows "
                    "how the model sees those)."
                )
            )
    if (
        item.taught is None
        and item.model is not None
        and (item.fitted_on or item.labelled is not None)
    ):
        label = (
            ""
            if item.labelled is None
            else f", labelled {'in the topic' if item.labelled else 'out of it'}"
        )
        if item.fitted_on:
            said = (
                f"This paper is one of the labelled papers its model was fitted on{label}, "
                "so its own words weigh in the score below: that says more about this "
                "paper than about papers like it."
            )
        else:
            said = (
                "This paper is one of the labelled papers its figures are measured on "
                f"(the test split, which nothing is fitted on){label}."
            )
        parts.append(Text(said))
    if item.implied_by:
        which = " and ".join(name for _, name in item.implied_by)
        verb = "implies" if len(item.implied_by) == 1 else "imply"
        parts.append(Text(safe(f"It is in {which}, which {verb} this topic."), style="bold"))
    if item.model is not None:
        model = item.model
        said = "fires" if model.fired else "does not fire"
        places = model.places
        parts.append(
            Text(
                f"Model: score {model.score:+.{places}f} against threshold "
                f"{model.threshold:+.{places}f}: it {said}.",
                style="bold",
            )
        )
        shown = len(model.up) + len(model.down)
        others = model.weighed - shown
        # A topic made from examples starts every paper at 0: nothing to say of it.
        sums = [f"{model.start:+.{places}f} for every paper"] if model.start else []
        if shown:
            sums.append(f"{model.listed:+.{places}f} from the {counted(shown, 'feature')} below")
        if others > 0:
            more = "other " if shown else ""
            sums.append(
                f"{model.rest:+.{places}f} from the {counted(others, more + 'feature')} it weighs "
                "here"
            )
        if sums:
            parts.append(Text(f"The score is the sum of: {'; '.join(sums)}."))
        from papertrack.learn import describe

        words = Table(title_justify="left", box=None, pad_edge=False)
        words.add_column("Pushed up", style="green", overflow="fold")
        words.add_column("Pushed down", style="red", overflow="fold")
        for n in range(max(len(model.up), len(model.down))):
            up = model.up[n] if n < len(model.up) else None
            down = model.down[n] if n < len(model.down) else None
            words.add_row(
                Text(safe(f"{describe(up[0])}  {up[1]:+.2f}")) if up else Text(""),
                Text(safe(f"{describe(down[0])}  {down[1]:+.2f}")) if down else Text(""),
            )
        if model.up or model.down:
            parts.append(words)
        if item.has_query:
            said = "matches" if item.query_matched else "does not match"
            unused = " (not asked: the topic decides by its model alone)"
            parts.append(Text(f"Query: {said}{unused if item.decide == 'model' else ''}."))
        else:
            parts.append(Text("Query: none; the topic decides by its model alone."))
    if item.conditions:
        table = Table(title_justify="left")
        table.add_column("Condition", overflow="fold")
        table.add_column("Met", no_wrap=True)
        table.add_column("Found", overflow="fold", style="green")
        labels = {"categories": "in one of", "requires": "needs", "excludes": "excludes"}
        for cond in item.conditions:
            table.add_row(
                Text(safe(f"{labels[cond.kind]} {shorten(cond.text)}")),
                Text("yes" if cond.met else "NO", style="green" if cond.met else "bold red"),
                Text(safe("; ".join(map(str, cond.hits)) or "nothing")),
            )
        parts.append(table)
    if not item.matched:
        parts.append(Text("Why not:", style="bold"))
        for reason in item.reasons():
            parts.append(Text(safe(f"  - {reason}" + ("" if reason.endswith("…") else "."))))
    return Group(*parts)


def paper_view(paper: Paper, tag_names: Mapping[str, str]) -> Group:
    """`show`: everything stored about one paper, field by field, then its abstract."""
    from papertrack.ids import format_arxiv_id

    head = Text(safe(format_arxiv_id(paper.arxiv_id, paper.version)), style="cyan")
    head.append("  ")
    head.append(safe(paper.shown_title), style="bold")
    table = Table(show_header=False, box=None, padding=(0, 1))
    table.add_column("Field", style="dim", no_wrap=True)
    table.add_column("Value", overflow="fold")

    def row(label: str, value: object) -> None:
        if value not in (None, "", (), []):
            table.add_row(label, Text(safe(value)))

    # The day latest sorts by and --since filters on: the first version's date, else
    # the announcement's. Only the raw times were shown, and which one counts is a
    # rule a reader comparing show with latest had to know.
    row("Paper date", paper.paper_date and format_date(paper.paper_date))
    row("Version", f"v{paper.version}" if paper.version is not None else None)
    row("Published", paper.published and utc_text(paper.published))
    row("Updated", paper.updated and utc_text(paper.updated))
    row("Announced", paper.announced and utc_text(paper.announced))
    row("Announce type", paper.announce_type)
    primary = paper.primary_category
    if primary and paper.primary_guessed:
        primary += " (first listed; the feed names no primary)"
    row("Primary", primary)
    row("Categories", ", ".join(paper.categories))
    for n, name in enumerate(paper.authors[:SHOWN_AUTHORS]):
        where = paper.author_affiliations[n] if n < len(paper.author_affiliations) else ()
        label = "Authors" if n == 0 else ""
        row(label, name + (f" ({'; '.join(where)})" if where else ""))
    hidden = len(paper.authors) - SHOWN_AUTHORS
    if hidden > 0:
        row("", f"… and {counted(hidden, 'more author')} (--json lists them all)")
    row("DOI", paper.doi)
    row("Journal ref", paper.journal_ref)
    row("Comment", paper.comment)
    row("Abstract page", paper.url)
    row("PDF", paper.pdf_url)
    row("License", paper.license)
    row("Tags", format_tags(paper.tags, tag_names) or "none")
    row("Source", paper.source)
    parts: list[RenderableType] = [head, table]
    if paper.abstract:
        parts.append(Padding(Text(safe(paper.abstract)), (1, 0, 0, 0)))
    return Group(*parts)


def _bytes(size: int) -> str:
    """'385.2 KiB'."""
    if size < 1024:
        return f"{size:,} bytes"
    value, unit = size / 1024, "KiB"
    for bigger in ("MiB", "GiB", "TiB"):
        if value < 1024:
            break
        value, unit = value / 1024, bigger
    return f"{value:,.1f} {unit}"


def stats_view(info: StoreStats, shown: Sequence[tuple[str, int]], categories: int) -> Group:
    """``papertrack stats``: the store summary, then papers per category (``shown`` of them)."""
    span = (
        f"{shown_day(info.first_date)} – {shown_day(info.last_date)}"
        if info.first_date and info.last_date
        else "none dated"
    )
    sizes = info.sizes
    summary = Table.grid(padding=(0, 2))
    summary.add_column(style="bold")
    summary.add_column(overflow="fold")  # a long store path is wrapped, not cut: it is copied
    summary.add_row("Store", Text(safe(str(info.path))))
    undated = f" ({info.undated:,} undated)" if info.undated else ""
    summary.add_row("Papers", f"{info.papers:,}{undated}")
    summary.add_row("Paper dates", span)
    summary.add_row("Week files", f"{info.partitions:,}")
    parts = f"papers {_bytes(sizes['papers'])}, id map {_bytes(sizes['ids'])}"
    parts += f", index {_bytes(sizes['index'])}"
    if sizes.get("search"):
        parts += f", search index {_bytes(sizes['search'])}"
    if sizes.get("vectors"):
        parts += f", kept vectors {_bytes(sizes['vectors'])}"
    summary.add_row("On disk", f"{_bytes(sum(sizes.values()))} ({parts})")
    summary.add_row("Categories", f"{len(info.listed):,}")
    if not shown:
        return Group(summary)
    table = Table()
    table.add_column("Category")
    table.add_column("Primary", justify="right")
    table.add_column("Listed", justify="right")
    table.add_column("Share", justify="right")
    for cat, n in shown:
        share = f"{100 * n / info.papers:.1f}%"
        table.add_row(Text(safe(cat)), f"{info.primary.get(cat, 0):,}", f"{n:,}", share)
    heading = Text(f"Categories ({len(shown):,} of {categories:,}, most papers first)")
    return Group(summary, Text(""), heading, table)
