"""Commands about momentum: momentum, trending, and the topic page."""

from __future__ import annotations

from datetime import UTC, date
from typing import TYPE_CHECKING, Annotated, Any

import typer

from papertrack.cli.common import (
    EXIT_CODES,
    AsOfOpt,
    Format,
    FormatOpt,
    JsonOpt,
    ViewFormat,
    ViewFormatOpt,
    app,
    as_of_moved,
    behind_store_day,
    complete_topic,
    errors,
    fresh_tags,
    load_catalog,
    note_topic_store,
    open_store,
    out,
    pick_format,
    say,
    span_on_store,
)
from papertrack.cli.output import emit, emit_json
from papertrack.dates import shown_day
from papertrack.errors import UsageError
from papertrack.text import counted

if TYPE_CHECKING:
    from papertrack.momentum import Momentum, SpanError
    from papertrack.related import Related
    from papertrack.store import Store
    from papertrack.topics import Catalog, Topic


WindowOpt = Annotated[
    int,
    typer.Option("--window", help="Window in weeks: the last N weeks against the N weeks before."),
]
WeeksOpt = Annotated[int, typer.Option("--weeks", help="How many ISO weeks the chart shows.")]
TopicArg = Annotated[
    str,
    typer.Argument(
        metavar="TOPIC", help="Topic name or slug, any case.", autocompletion=complete_topic
    ),
]

EMPTY_STORE = (
    "No papers in the store yet. Run 'papertrack ingest FILE' with arXiv feeds of whole "
    "categories (the share counts every paper), or 'papertrack ingest --sample'."
)


def parse_as_of(text: str | None, window: int, weeks: int, *, fixed: bool = False) -> date:
    """The day --as-of names (today when it is not given), refused with the error a
    user can act on when ``window`` and a chart of ``weeks`` ending with it cannot be
    measured. ``fixed``: the command has no --window or --weeks to name."""
    from papertrack import momentum
    from papertrack.dates import parse_date

    day = (
        momentum.today()
        if text is None
        else parse_date(text, option="--as-of").astimezone(UTC).date()
    )
    try:
        momentum.check_span(day, window, weeks)
    except momentum.SpanError as exc:
        raise _span_error(exc, day, window, weeks, fixed=fixed) from None
    return day


def _span_error(
    exc: SpanError, day: date, window: int, weeks: int, *, fixed: bool = False
) -> UsageError:
    """The error for a window or chart :func:`papertrack.momentum.check_span` refused."""
    from papertrack.momentum import MAX_WEEKS

    if exc.part in ("window", "weeks"):
        option, value, example = (
            ("--window", window, 4) if exc.part == "window" else ("--weeks", weeks, 12)
        )
        if value < 1:
            return UsageError(
                f"{option} {value} is not a number of weeks. Use 1 or more, e.g. {example}"
            )
        return UsageError(
            f"{option} {value:,} is more weeks than arXiv has existed. Use {MAX_WEEKS:,} or fewer"
        )
    return _past_calendar(day, window, weeks, fixed=fixed)


def _past_calendar(day: date, window: int, weeks: int, *, fixed: bool = False) -> UsageError:
    """The error for a day whose chart would reach past the calendar.

    ``fixed``: the command has no --window or --weeks (``site``), so only the day can change.
    """
    if fixed:
        # Near year 1 the chart starts before the calendar; near 9999 its last week
        # (Monday to Sunday) ends after it.
        late = day.year > 5000
        return UsageError(
            f"--as-of {day} reaches past the calendar (year 1 to 9999): its {weeks}-week "
            f"chart would {'end after' if late else 'start before'} it. "
            f"Choose {'an earlier' if late else 'a later'} date"
        )
    return UsageError(
        f"--as-of {day} with --window {window} and --weeks {weeks} reaches past the "
        "calendar (year 1 to 9999). Choose another date or fewer weeks"
    )


def as_of_day(
    store: Store,
    as_of: str | None,
    window: int,
    weeks: int,
    quiet: bool = False,
    *,
    fixed: bool = False,
) -> date:
    """The day to measure at: --as-of, else today, else the store's newest paper's day.

    A store that is behind today (its newest paper is more than a week old, as a
    bundled sample's or a stopped fetch's is) is never shown as current and never
    as empty: the views measure at its newest paper and say so on stderr. An
    --as-of after today is measured as given, with a note that its last weeks are
    still to come. ``fixed``: the command has no --window or --weeks to name in an error.
    """
    day = parse_as_of(as_of, window, weeks, fixed=fixed)
    if as_of is None:
        return behind_store_day(store, day, quiet)
    found = span_on_store(as_of, store)
    if found is not None:
        # '3 weeks ago' counted from today on a store whose newest paper is months
        # old showed every week as "no data" while the papers listed were June's;
        # --since counts such a span back from the newest paper, and so does this.
        newest, moved = found
        counted = moved.astimezone(UTC).date()
        parse_as_of(counted.isoformat(), window, weeks, fixed=fixed)
        if not quiet:
            say(as_of_moved(as_of, newest, counted))
        return counted
    from papertrack.momentum import today

    if day > today() and not quiet:
        # Accepted (a chart may be drawn ahead), but said: its last weeks are empty
        # because they have not happened, not because the topic went quiet.
        say(
            f"Note: --as-of {shown_day(day)} is after today ({shown_day(today())}): "
            "the weeks after today hold no papers yet."
        )
    return day


def _topic_momentum(
    topic: str, as_of: str | None, window: int, weeks: int
) -> tuple[Catalog, Topic, Store, date, Momentum]:
    """Resolve the topic and the day, bring tags up to date, and measure (momentum, topic)."""
    catalog = load_catalog()
    chosen = catalog.find(topic)
    parse_as_of(as_of, window, weeks)  # a bad option fails before the store is read
    store = open_store()
    fresh_tags(store, catalog)
    note_topic_store(store, chosen)
    day = as_of_day(store, as_of, window, weeks)
    return catalog, chosen, store, day, measure_topic(store, chosen, day, window, weeks)


def measure_topic(store: Store, topic: Topic, as_of: date, window: int, weeks: int) -> Momentum:
    from papertrack import momentum
    from papertrack.momentum import SpanError

    days = store.index().days
    try:
        return momentum.measure_topic(
            days, topic.slug, topic.name, as_of=as_of, window=window, weeks=weeks
        )
    except SpanError as exc:
        raise _span_error(exc, as_of, window, weeks) from None


# --------------------------------------------------------------------------- momentum


@app.command(epilog=EXIT_CODES)
def momentum(
    topic: TopicArg,
    window: WindowOpt = 4,
    weeks: WeeksOpt = 12,
    as_of: AsOfOpt = None,
    fmt: ViewFormatOpt = ViewFormat.table,
    as_json: JsonOpt = False,
) -> None:
    """Show whether a topic is growing: its papers in the last weeks against the weeks before.

    Prints a sentence such as '54 papers in the last four weeks, up 145% on the four
    weeks before. 0.5% of all new papers.', then a bar chart of the topic's papers per
    ISO week. Weeks the store holds no paper for show as 'no data'. Reads only the
    store's index, so it is as fast on a million papers as on a thousand.

    Examples:

    \b
        papertrack momentum LLM-agent-training
        papertrack momentum "GUI Agents" --window 2 --weeks 26
        papertrack momentum llm-agent-training --as-of 2026-06-26 --json
    """
    with errors():
        catalog, chosen, store, day, result = _topic_momentum(topic, as_of, window, weeks)
        if as_json or fmt is ViewFormat.json:
            emit_json(result.to_dict())
        else:
            from papertrack import render

            title = f"{chosen.name} — momentum as of {shown_day(day)}"
            console = out()
            console.print(render.momentum_block(result, title, console.width))
        if store.count() == 0:
            say(EMPTY_STORE)


# --------------------------------------------------------------------------- trending

TRENDING_CSV = (
    "rank",
    "topic",
    "name",
    "current",
    "previous",
    "change_pct",
    "share",
    "total_current",
    "low_count",
    "sparkline",
    # Last, so the columns before keep their places: a weekly CSV appended by cron
    # could not tell one week's rows from another's.
    "as_of",
    "window_days",
    # Then what says a change is per day of data: 35 from 1,096 papers against 29
    # read as an error where a window held one day of data.
    "little_data",
    "coverage_current",
    "coverage_previous",
)


@app.command(epilog=EXIT_CODES)
def trending(
    window: WindowOpt = 4,
    weeks: WeeksOpt = 12,
    as_of: AsOfOpt = None,
    min_count: Annotated[
        int,
        typer.Option("--min", help="Hide topics with fewer papers than this in the last window."),
    ] = 0,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            "-n",
            min=1,
            help="Show only the N fastest growing topics (default: all).",
            show_default=False,
        ),
    ] = None,
    fmt: FormatOpt = Format.table,
    as_json: JsonOpt = False,
) -> None:
    """Rank every topic by its change over the window, fastest growing first.

    A topic new in the window (none in the weeks before) ranks first; ties go to the
    topic with more papers. Each row has a sparkline of its weekly papers.

    Examples:

    \b
        papertrack trending
        papertrack trending --min 20 --window 2
        papertrack trending -n 5
        papertrack trending --as-of 2026-06-26 --format csv > trending.csv
    """
    from papertrack import momentum as core

    with errors():
        fmt = pick_format(fmt, as_json)
        parse_as_of(as_of, window, weeks)
        if min_count < 0:
            raise UsageError(f"--min {min_count} is not a number of papers. Use 0 or more")
        catalog = load_catalog()
        store = open_store()
        fresh_tags(store, catalog)
        day = as_of_day(store, as_of, window, weeks)
        measured = core.rank(measure_topic(store, t, day, window, weeks) for t in catalog.topics)
        kept = [m for m in measured if m.current.count >= min_count]
        results = kept[:limit] if limit is not None else kept
        rows = [
            {"rank": n, **m.to_dict(), "sparkline": core.sparkline([w.count for w in m.weeks])}
            for n, m in enumerate(results, start=1)
        ]

        def table() -> Any:
            from papertrack import render

            title = (
                f"Trending — the {core.window_phrase(window)} to "
                f"{shown_day(day)} against the {core.window_phrase(window, last=False)} "
                "before"
            )
            view = render.trending_table(results, title, out().width)
            if len(results) == len(kept):
                return view
            # Under the rows, as latest and search say it.
            said = f"The top {len(results):,} of {len(kept):,} topics (-n sets how many)."
            return render.with_note(view, said)

        if fmt.value == "csv":
            rows = [
                {**row, **{f"coverage_{w}": row["coverage"][w] for w in ("current", "previous")}}
                for row in rows
            ]
        empty = store.count() == 0
        if not (empty and fmt.value == "table"):
            # An empty store's table was 20 rows of "no data", numbered as if ranked;
            # the hint below is all there is to say (data formats keep their rows).
            emit(fmt.value, rows, table, columns=TRENDING_CSV)
        if empty:
            say(EMPTY_STORE)
        elif not results:
            say(f"No topic has {min_count:,} or more papers in the window. Lower --min.")
        elif len(kept) < len(measured):
            # Said: 12 of the 20 topics read as all there are.
            hidden = len(measured) - len(kept)
            say(
                f"{counted(hidden, 'topic')} with "
                + ("no paper" if min_count == 1 else f"fewer than {min_count:,} papers")
                + f" in the window {'is' if hidden == 1 else 'are'} left out (--min {min_count})."
            )


# --------------------------------------------------------------------------- topic page


@app.command("topic", epilog=EXIT_CODES)
def topic_page(
    topic: TopicArg,
    limit: Annotated[
        int, typer.Option("--limit", "-n", min=1, help="How many latest papers to show.")
    ] = 10,
    abstract: Annotated[
        bool, typer.Option("--abstract", "-a", help="Show a card per paper with its abstract.")
    ] = False,
    window: WindowOpt = 4,
    weeks: WeeksOpt = 12,
    as_of: AsOfOpt = None,
    fmt: ViewFormatOpt = ViewFormat.table,
    as_json: JsonOpt = False,
) -> None:
    """Show a topic's page: its momentum and weekly chart above its latest papers.

    With --as-of, the page is as it stood that day: papers dated later are left out.

    Examples:

    \b
        papertrack topic LLM-agent-training
        papertrack topic "GUI Agents" -n 5 --abstract
        papertrack topic llm-agent-training --as-of 2026-06-26 --json
    """

    with errors():
        catalog, chosen, store, day, result = _topic_momentum(topic, as_of, window, weeks)
        total = store.count_through(chosen.slug, day)
        papers = store.latest(
            chosen.slug,
            limit=limit,
            keep=lambda p: p.paper_date is None or p.paper_date.astimezone(UTC).date() <= day,
        )
        related = _related(store, catalog, chosen.slug, result)
        names = {t.slug: t.name for t in catalog.topics}
        import shlex

        # Quoted for a shell, so it runs when pasted whatever the name holds ("Bob's").
        ask = f"papertrack ask {chosen.slug} {shlex.quote(f'what is new in {chosen.name}?')}"
        if as_of is not None:
            # The page as it stood that day: so is the answer (papers of later days left out).
            ask += f" --as-of {day.isoformat()}"
        from papertrack.cli.digest import is_followed

        # The page's "Follow this topic": the command, or that it is followed.
        following = is_followed(chosen.slug)
        follow = f"papertrack {'unfollow' if following else 'follow'} {chosen.slug}"
        if as_json or fmt is ViewFormat.json:
            emit_json(
                {
                    "topic": chosen.slug,
                    "name": chosen.name,
                    "description": chosen.description,
                    "momentum": result.to_dict(),
                    "papers_total": total,
                    "papers": [p.to_dict() for p in papers],
                    "related": [
                        {
                            "topic": r.slug,
                            "name": names.get(r.slug, r.slug),
                            "shared": r.shared,
                            "overlap": r.overlap,
                        }
                        for r in related
                    ],
                    "following": following,
                    "follow": follow,
                    "ask": ask,
                }
            )
        else:
            from papertrack import render
            from papertrack.text import newest_of

            header = f"Latest papers ({total:,})"
            table: Any = None
            console = out()
            led = render.led_by(papers, chosen.slug)
            if papers and abstract:
                table = render.paper_cards(led, header, names)
            elif papers:
                table = render.papers_table(led, header, names, console.width)
            shown = [(names.get(r.slug, r.slug), r.shared, r.overlap) for r in related]
            console.print(
                render.topic_page(
                    result,
                    chosen.description,
                    table,
                    header,
                    console.width,
                    shown,
                    ask,
                    following=following,
                    follow=follow,
                    shown_of=newest_of(len(papers), total),
                )
            )
        if store.count() == 0:
            say(EMPTY_STORE)


def _related(store: Store, catalog: Catalog, slug: str, result: Momentum) -> list[Related]:
    """The three topics whose papers overlap most with ``slug``'s in the chart's weeks.

    Counted as the static site counts them, so the two pages agree.
    """
    from papertrack.related import count_shared, related_topics

    last = result.as_of
    first = result.weeks[0].start if result.weeks else last
    shared = count_shared(store, first, last)
    return related_topics(shared, slug, 3, {t.slug for t in catalog.topics})
