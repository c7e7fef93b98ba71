"""Commands about papers: ingest, latest, path."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from papertrack import paths
from papertrack.categories import check_categories
from papertrack.cli import common
from papertrack.cli.common import (
    EXIT_CODES,
    NO_PAPERS_YET,
    Format,
    FormatOpt,
    JsonOnlyOpt,
    JsonOpt,
    QuietOpt,
    ReadSinceOpt,
    ViewFormat,
    ViewFormatOpt,
    app,
    complete_topic,
    emit_papers,
    errors,
    fresh_tags,
    load_catalog,
    log,
    newest_paper_note,
    no_blank_category,
    none_of_topic,
    note_operator_words,
    note_query_store,
    note_topic_store,
    open_store,
    out,
    pick_format,
    say,
    since_on_store,
    state,
    store_is_empty,
)
from papertrack.cli.output import emit_json
from papertrack.errors import UsageError
from papertrack.models import paper_filter
from papertrack.text import counted, newest_of, visible

if TYPE_CHECKING:
    from rich.progress import TaskID

    from papertrack.ingest import ByteProgress
    from papertrack.models import IngestReport, SourceReport
    from papertrack.store import Store, StoreStats
    from papertrack.topics import Catalog, Topic

# --------------------------------------------------------------------------- ingest


def _source_line(item: SourceReport) -> str:
    kind = f" ({item.kind})" if item.kind else ""
    counts = f"{item.new:,} new, {item.updated:,} updated, {item.unchanged:,} unchanged"
    skipped = f", {item.skipped:,} skipped" if item.skipped else ""
    filtered = f", {item.filtered:,} left out by --category" if item.filtered else ""
    # The counts are the whole file's: "83,510 new" after a resume at line 10,001 read
    # as 83,510 papers new to this run.
    resumed = (
        f" (resumed at line {item.resumed_at:,}; counts include the earlier run's)"
        if item.resumed_at
        else ""
    )
    papers = f"{item.papers:,} paper{'s' if item.papers != 1 else ''}"
    # visible(): a line break in a file name would start a line of its own.
    source = visible(item.source)
    return f"{source}{kind}{resumed}: {papers}: {counts}{skipped}{filtered}"


@contextlib.contextmanager
def _byte_bar(show: bool) -> Iterator[ByteProgress | None]:
    """A Rich progress bar by bytes on stderr while a snapshot streams, or None."""
    if not show:
        yield None
        return
    from rich.progress import DownloadColumn, TransferSpeedColumn

    with (
        common.papers_bar(DownloadColumn(), TransferSpeedColumn()) as bar,
        common.showing(bar),
    ):
        tasks: dict[str, TaskID] = {}

        def update(source: str, done: int, total: int | None, papers: int) -> None:
            if source not in tasks:
                name = visible(Path(source).name) if source != "-" else "stdin"
                tasks[source] = bar.add_task(name, total=total, papers=0)
            bar.update(tasks[source], completed=done, total=total, papers=papers)

        yield update


def _summary(report: IngestReport) -> str:
    failed = len(report.failed)
    ok = len(report.sources) - failed
    totals = report.totals()
    sources = f"{ok} source{'s' if ok != 1 else ''} ok"
    if failed:
        sources += f", {failed} error{'s' if failed != 1 else ''}"
    counts = f"{totals.new:,} new, {totals.updated:,} updated, {totals.unchanged:,} unchanged"
    # A resumed snapshot's counts are the whole file's: "83,510 new" after a kill at
    # 35,000 read as 83,510 papers new to this run.
    if any(item.resumed_at for item in report.sources):
        # A kill lands after a write and before the checkpoint that counts it: those
        # papers are met again, stored, and counted as unchanged (3,000 of 28,000).
        counts += (
            " (resumed where an interrupted ingest stopped: its papers are counted too, "
            "those stored after its last checkpoint as unchanged)"
        )
    return f"{sources}; papers: {counts}"


@app.command(epilog=EXIT_CODES)
def ingest(
    sources: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[SOURCE]...",
            help="Feed files (.xml, .jsonl, .gz), http(s) URLs, or '-' for standard input.",
            show_default=False,
        ),
    ] = None,
    sample: Annotated[
        bool, typer.Option("--sample", help="Also ingest the bundled sample of real arXiv feeds.")
    ] = False,
    category: Annotated[
        list[str] | None,
        typer.Option(
            "--category",
            "-c",
            help="Keep only papers in this category (cross-lists count); repeat it, "
            "or end with * for a group: -c cs.* -c stat.ML.",
            show_default=False,
            callback=no_blank_category,
        ),
    ] = None,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            min=1,
            # This process writes every batch (a fifth of the work), so past some 8
            # workers more only cost memory: 64 stops a typo forking thousands.
            max=64,
            help="Processes that parse and tag a large snapshot, 1 to 64 [default: the CPU count].",
            show_default=False,
        ),
    ] = None,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume/--no-resume",
            help="Continue an interrupted snapshot ingest of the same unchanged file where it "
            "stopped, or read it from the start.",
        ),
    ] = True,
    quiet: QuietOpt = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Print one line per source.")
    ] = False,
    as_json: Annotated[
        bool,
        typer.Option("--json", help="Also write what each source did as JSON on standard output."),
    ] = False,
) -> None:
    """Read arXiv feeds into the store; re-reading a feed changes nothing.

    Formats are detected: arXiv API pages (Atom), rss.arxiv.org listings (RSS 2.0 or
    Atom), legacy RSS 1.0 listings, OAI-PMH responses, Kaggle snapshot JSON lines
    (plain or .gz) and any other RSS/Atom feed.

    A snapshot is streamed, never loaded whole, with a progress bar by bytes on a
    terminal. An interrupted snapshot ingest (Ctrl-C, a kill, a full disk) keeps
    what it wrote; running the same command again continues where it stopped.

    Examples:

    \b
        papertrack ingest api-page.xml listing.xml
        papertrack ingest -c 'cs.*' arxiv-metadata-oai-snapshot.json.gz
        curl -s 'https://rss.arxiv.org/atom/cs.AI' | papertrack ingest -
        papertrack ingest --sample
        papertrack ingest --json listing.xml | jq .new
    """
    from papertrack.ingest import IngestOptions
    from papertrack.ingest import ingest as run_ingest

    names = list(sources or [])
    if sample:
        names += [
            str(p)
            for p in sorted(paths.samples_dir().glob("*"))
            if p.name.endswith((".xml", ".jsonl", ".jsonl.gz"))
        ]
    with errors():
        if quiet and verbose:
            raise UsageError("--quiet and --verbose ask for opposites. Give one")
        if not names:
            raise UsageError(
                "nothing to ingest. Name a feed file, a URL or '-' for standard input, "
                "or use --sample for the bundled sample"
            )

        if names.count("-") > 1:
            # Read once, the second '-' was "empty" and failed the run.
            raise UsageError("'-' (standard input) is named twice. Name it once")
        if "-" in names and sys.stdin is None:
            # `papertrack ingest - <&-`: Python has no sys.stdin then.
            raise UsageError(
                "standard input is closed, so '-' has nothing to read. Pipe a feed into "
                "it (curl URL | papertrack ingest -), or name a file"
            )
        progress = _source_reporter(verbose)
        store, catalog = open_store(create=True), load_catalog(storing=True)
        stdin = sys.stdin.buffer if "-" in names else None
        show = not quiet and sys.stderr.isatty()
        with _byte_bar(show) as on_bytes, store.writer(catalog) as writer:
            options = IngestOptions(
                categories=tuple(category or ()),
                jobs=jobs or min(os.cpu_count() or 1, 64),
                resume=resume,
                on_bytes=on_bytes,
            )
            report = run_ingest(names, writer, stdin=stdin, progress=progress, options=options)
        # One source that failed and stored nothing: its Error line says it all, and is
        # the one line an error gets (totals of nothing came after it); to the log.
        totals = report.totals()
        alone = (
            len(report.sources) == 1
            and report.failed
            and not (totals.new or totals.updated or totals.unchanged)
        )
        say(_summary(report), quiet=alone or (quiet and not report.failed))
        if category:
            _hint_categories(report, category)
        if as_json:
            emit_json(ingest_json(report, catalog.warnings))
        if report.failed:
            raise typer.Exit(1)


def ingest_json(report: IngestReport, warnings: Sequence[str] = ()) -> dict[str, Any]:
    """``ingest --json``: the totals, each source's counts and error, and the
    ``warnings`` of the whole ingest (a topics file that cannot be read: said on
    stderr, a script reading the JSON alone never knew its tags were stand-ins)."""
    totals = report.totals()
    return {
        "ok": not report.failed,
        "new": totals.new,
        "updated": totals.updated,
        "unchanged": totals.unchanged,
        "warnings": list(warnings),
        "sources": [
            {
                "source": item.source,
                "kind": item.kind or None,
                "papers": item.papers,
                "new": item.new,
                "updated": item.updated,
                "unchanged": item.unchanged,
                "skipped": item.skipped,
                "skipped_ids": item.skipped_ids,
                "filtered": item.filtered,
                "resumed_at": item.resumed_at,
                "error": item.error,
                "warnings": [*item.notices, *item.warnings],
            }
            for item in report.sources
        ],
    }


def _names_source(error: str, source: str) -> bool:
    """Whether an ingest ``error`` names its ``source`` as the errors of opening and
    reading a source do ("no such file: x.xml", "x.xml is a directory"): a name
    found anywhere in it ("incorrect id format for abc" of a file named abc) was
    taken for one. Standard input and URLs are always named where they fail."""
    if source == "-" or source.startswith(("http://", "https://")):
        return True
    heads = (f"no such file: {source}", f"could not open {source}", f"could not read {source}")
    return error.startswith((f"{source} ", f"{source}:", f"{source!r} ", *heads))


def _source_reporter(verbose: bool) -> Callable[[SourceReport], None]:
    """What ingest says about each source as it is done: errors always, the rest with -v.
    Warnings (dates ignored, fields cut) go to the log always: a cron ingest has no
    -v, and kept no trace of the papers it re-dated."""

    def progress(item: SourceReport) -> None:
        if item.error:
            error = item.error
            if not _names_source(error, item.source):
                # "arXiv API error: ..." alone: an ingest of a folder of pages, from
                # cron, could not tell which one it was about.
                error = f"{item.source}: {error}"
            say(f"Error: {visible(error).rstrip('.')}.")  # one line, whatever it quotes
        elif verbose:
            say(_source_line(item))
        if item.skipped_ids:
            # Said without -v too: papers a feed holds were not stored. (A snapshot's
            # broken lines are counted as skipped too, and said in its error.)
            say(f"Warning: {_skipped_line(item)}")
        for notice in item.notices:
            say(f"Warning: {visible(notice)}")
        for warning in item.warnings:
            line = f"Warning: {visible(warning)}"  # one line, whatever it quotes
            if verbose:
                say(line)
            else:
                log(line)

    return progress


def _skipped_line(item: SourceReport) -> str:
    """Which entries of a feed were dropped for want of an arXiv id, the first few named."""
    count = item.skipped
    named = ", ".join(repr(visible(i)) for i in item.skipped_ids)
    more = count - len(item.skipped_ids)
    if named and more > 0:
        named += f" and {more:,} more"
    return (
        f"{visible(item.source)}: skipped {counted(count, 'entry', 'entries')} without a "
        "valid arXiv id"
        f"{': ' + named if named else ''}. They were not stored; an arXiv id looks "
        "like 2401.00001 or hep-th/9901001."
    )


def _hint_categories(report: IngestReport, category: list[str]) -> None:
    """When --category left every paper out, say so and how categories are written."""
    left_out = sum(item.filtered for item in report.sources)
    if left_out and not sum(item.papers for item in report.sources):
        groups = [c for c in category if not c.endswith("*") and "." not in c]
        hint = f" For a whole archive, end it with '*': -c '{groups[0]}.*'." if groups else ""
        say(
            f"No paper matched --category {' '.join(category)}: all {left_out:,} were "
            f"left out.{hint} Categories are arXiv's names, such as cs.AI or math.GT."
        )


# --------------------------------------------------------------------------- latest


@app.command(epilog=EXIT_CODES)
def latest(
    topic: Annotated[
        str | None,
        typer.Argument(
            metavar="[TOPIC]",
            help="Topic name or slug, any case (see 'papertrack topics'). Omit for all papers.",
            autocompletion=complete_topic,
        ),
    ] = None,
    limit: Annotated[
        int, typer.Option("--limit", "-n", min=1, help="How many papers to show.")
    ] = 20,
    since: ReadSinceOpt = None,
    category: Annotated[
        list[str] | None,
        typer.Option(
            "--category",
            "-c",
            help=(
                "Only papers in this arXiv category, primary or cross-listed "
                "(repeatable; cs.* works)."
            ),
            callback=no_blank_category,
        ),
    ] = None,
    abstract: Annotated[
        bool, typer.Option("--abstract", "-a", help="Show a card per paper with its abstract.")
    ] = False,
    query: Annotated[
        str | None,
        typer.Option(
            "--query",
            help="Only papers matching this query, as a topic would (see docs/topics.md).",
            show_default=False,
        ),
    ] = None,
    fmt: FormatOpt = Format.table,
    as_json: JsonOpt = False,
) -> None:
    """Show the latest papers of a topic, newest first by paper date.

    --query matches a query as an unsaved topic would: alone it searches every
    paper, with a TOPIC only that topic's papers. Week files are read newest first
    until --limit papers match.

    Examples:

    \b
        papertrack latest LLM-agent-training
        papertrack latest "GUI Agents" -n 5 --abstract
        papertrack latest llm-agent-training --since '2 weeks ago' --category cs.CL
        papertrack latest llm-agent-training --format json | jq '.[].title'
        papertrack latest --query 'agent* AND benchmark*'
        papertrack latest llm-agent-training --query 'title:(rl OR "reinforcement learning")'
    """
    from papertrack.dates import parse_date
    from papertrack.topics import Topic

    with errors():
        fmt = pick_format(fmt, as_json)
        # Parsed first: a syntax error stops the command before anything is read.
        unsaved = Topic(name="Query", slug="query", query=query) if query is not None else None
        if query is not None:
            note_operator_words(query)
        catalog = load_catalog()
        chosen = catalog.find(topic) if topic is not None else None
        start = parse_date(since) if since is not None else None
        store = open_store()
        start = since_on_store(since, start, store)
        fresh_tags(store, catalog)
        check_categories(store, category or [])
        note_topic_store(store, chosen)
        if query is not None:
            note_query_store(store, query)
        slug = chosen.slug if chosen else None
        header, name, total = _latest_header(store, chosen, query, start, category or [])
        papers = store.latest(
            slug,
            # Where the index does not count the matches, one more: whether more
            # match than are shown.
            limit=limit + (total is None),
            since=start,
            keep=paper_filter(category or []),
            match=unsaved.matches_fields if unsaved else None,
            within=store.candidates(unsaved.node) if unsaved else None,
        )
        more = len(papers) > limit
        papers = papers[:limit]
        names = {t.slug: t.name for t in catalog.topics}

        def table() -> Any:
            from papertrack import render

            shown = render.led_by(papers, slug)
            view: Any
            if abstract:
                view = render.paper_cards(shown, header, names)
            else:
                view = render.papers_table(shown, header, names, out().width)
            return render.with_note(view, _more_latest(len(papers), total, more))

        emit_papers(papers, fmt, table)
        if not papers:
            given = [o for o, v in (("--since", since), ("--category", category)) if v]
            untagged = slug is not None and _left_untagged(store, catalog, slug)
            say(_nothing_latest(store, name, given, query, untagged=untagged))


# --------------------------------------------------------------------------- path


@app.command(epilog=EXIT_CODES)
def path(as_json: JsonOnlyOpt = False) -> None:
    """Show where papertrack keeps its data.

    Example:

    \b
        papertrack path
        PAPERTRACK_HOME=/tmp/pt papertrack path --json
    """
    with errors():
        where = {
            "home": str(paths.home()),
            "store": str(paths.store_dir(state.db)),
            "topics": str(paths.user_topics_file()),
            "config": str(paths.config_file()),
            "default_topics": str(paths.default_topics_file()),
        }
        if as_json:
            emit_json(where)
        else:
            width = max(map(len, where))
            sys.stdout.writelines(
                f"{key + ':':<{width + 1}} {value}\n" for key, value in where.items()
            )


# --------------------------------------------------------------------------- stats


@app.command(epilog=EXIT_CODES)
def stats(
    top: Annotated[
        int | None,
        typer.Option(
            "--top",
            "-n",
            min=0,
            show_default=False,
            help="How many categories to list, most papers first (0: all) [default: 20 in "
            "the table, all in JSON].",
        ),
    ] = None,
    fmt: ViewFormatOpt = ViewFormat.table,
    as_json: JsonOpt = False,
) -> None:
    """Show what the store holds: papers, paper dates, week files, size on disk, categories.

    Categories are counted twice: as the paper's primary category, and as any
    category it is listed in (cross-lists included). Read from the store's index,
    so it answers at once even for millions of papers.

    Examples:

    \b
        papertrack stats
        papertrack stats --top 0
        papertrack stats --json | jq '.categories[:5]'
    """
    with errors():
        store = open_store()
        if store.exists() or store.index_outdated():  # (a lost index.json is rebuilt)
            fresh_tags(store, load_catalog())  # upgrades an index that predates category counts
        info = store.stats()
        rows = sorted(info.listed.items(), key=lambda kv: (-kv[1], kv[0]))
        as_json = as_json or fmt is ViewFormat.json
        if top is None:
            # The JSON has them all, as docs/output.md says; a table the first 20.
            top = 0 if as_json else 20
        shown = rows if top == 0 else rows[:top]
        if as_json:
            emit_json(_stats_dict(info, shown))
            return
        if not info.papers:
            say(f"The store at {info.path} holds no papers yet. Try: papertrack ingest --sample")
            return
        from papertrack import render

        out().print(render.stats_view(info, shown, len(rows)))
        if len(shown) < len(rows):
            say(f"{len(rows) - len(shown):,} more categories: papertrack stats --top 0")


def _stats_dict(info: StoreStats, shown: list[tuple[str, int]]) -> dict[str, Any]:
    return {
        "store": str(info.path),
        "papers": info.papers,
        "undated": info.undated,
        "first_date": info.first_date.isoformat() if info.first_date else None,
        "last_date": info.last_date.isoformat() if info.last_date else None,
        "partitions": info.partitions,
        "size_bytes": sum(info.sizes.values()),
        "sizes": info.sizes,
        "categories_total": len(info.listed),
        "categories": [
            {"category": cat, "primary": info.primary.get(cat, 0), "listed": n} for cat, n in shown
        ],
    }


def _latest_header(
    store: Store,
    chosen: Topic | None,
    query: str | None,
    since: datetime | None = None,
    categories: Sequence[str] = (),
) -> tuple[str, str, int | None]:
    """The table's header, what the papers are of (for messages), and how many
    papers the rows are the newest of, where the index's counts say (None: unknown).

    The count is the topic's stored papers, as the index keeps it, and with --since
    from a day's start those dated since then, which the index's counts per day
    give too ("since 2026-06-20: 42 of 1,783 in the topic"). With --category it
    would take reading every week file, so the header says what the count covers
    and which filters the rows passed.
    """
    name = chosen.name if chosen else "All papers"
    if query is None:
        slug = chosen.slug if chosen else None
        count = store.count(slug)
        day = since.astimezone(UTC).date() if since else None
        filters = [f"since {day.isoformat()}"] if day else []
        if categories:
            filters.append("in " + ", ".join(categories))
        if not filters:
            return f"{name} — latest papers ({count:,})", name, count
        whole = "in the topic" if chosen else "stored"
        if day and since == datetime(day.year, day.month, day.day, tzinfo=UTC) and not categories:
            dated = count - store.count_through(slug, day - timedelta(days=1))
            header = f"{name} — latest papers since {day}: {dated:,} of {count:,} {whole}"
            return header, name, dated
        # The count is not of the rows: "(148 in all)" above 74 rows of cs.CL read
        # as a count of them.
        return f"{name} — latest papers {' '.join(filters)} (of {count:,} {whole})", name, None
    # Counting every match would read the whole store: the header gives none. The
    # query is shown as typed, not in quotes of the header's own, which made
    # 'world model*' (two words) read as the phrase "world model*".
    flat = " ".join(query.split())
    scope = f"{chosen.name}, query:" if chosen else "Query:"
    where = f" in {chosen.name}" if chosen else ""
    return f"{scope} {flat} — latest papers", f"the query {flat}{where}", None


def _more_latest(shown: int, total: int | None, more: bool) -> str:
    """What `latest` says under its rows when they are not all there is: "Latest
    papers (147)" over 20 rows read as the whole list. ``total``: how many there
    are, where the index counts them; ``more``: whether more match than are shown."""
    if total is not None:
        return newest_of(shown, total)
    if shown and more:  # matches of --category or --query are not counted
        return f"The newest {shown:,} of those that match (-n sets how many)."
    return ""


def _left_untagged(store: Store, catalog: Catalog, slug: str) -> bool:
    """Whether the topic ``slug`` is one the stored tags are not current for, in a store
    this process cannot write (so they stay so: :func:`fresh_tags` has said it)."""
    if os.access(store.path, os.W_OK):
        return False
    return slug in store.index().changed_topics(catalog.fingerprints())


def _nothing_latest(
    store: Store, name: str, given: Sequence[str], query: str | None, *, untagged: bool = False
) -> str:
    """What to say when `latest` has no paper to show, and what to try; ``given``:
    the filter options given (``--since``, ``--category``); ``untagged``: the topic's
    papers cannot be tagged, the store being read-only."""
    if store_is_empty(store):
        return NO_PAPERS_YET
    if untagged:
        # "Ingest feeds of its categories" sent the user to fetch papers the store
        # held already, untagged.
        return (
            f"No papers are tagged {name} yet: the store is read-only, so its papers wait "
            "for a command that can write it to tag them."
        )
    if given:
        of = "No stored papers" if name == "All papers" else f"No papers of {name}"
        newest = newest_paper_note(store)
        what = "that filter" if len(given) == 1 else "those filters"
        return f"{of} match {' and '.join(given)}. Widen or drop {what}.{newest}"
    if query is not None:
        from papertrack.hints import no_match_hint

        return f"No papers match {name}. {no_match_hint(store, query)}"
    return none_of_topic(name)
