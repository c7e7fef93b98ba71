"""Commands to find and use papers: show, search, export."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, BinaryIO, TextIO

import typer

from papertrack.cli import common
from papertrack.cli.common import (
    EXIT_CODES,
    NO_PAPERS_YET,
    Format,
    FormatOpt,
    JsonOnlyOpt,
    JsonOpt,
    OutputOpt,
    ReadSinceOpt,
    SinceOpt,
    ViewFormat,
    ViewFormatOpt,
    app,
    busy,
    complete_topic,
    emit_papers,
    errors,
    fresh_tags,
    load_catalog,
    newest_paper_note,
    none_of_topic,
    note_operator_words,
    note_query_store,
    open_store,
    output_path,
    pick_format,
    say,
    since_on_store,
    store_is_empty,
)
from papertrack.cli.output import emit_json
from papertrack.errors import UsageError
from papertrack.text import quoted, visible

if TYPE_CHECKING:
    from papertrack.models import Paper
    from papertrack.store import Store
    from papertrack.topics import Topic

TopicOpt = Annotated[
    str | None,
    typer.Option(
        "--topic",
        "-t",
        help="Only papers of this topic (name or slug, any case).",
        autocompletion=complete_topic,
    ),
]

# --------------------------------------------------------------------------- show


@app.command(epilog="Exit codes: 0 success, 1 error (no such paper stored, too), 2 bad usage.")
def show(
    paper_id: Annotated[
        str,
        typer.Argument(
            metavar="ID",
            help="arXiv id: 2508.13167, 2508.13167v2, arXiv:2508.13167, cs/0503050 or an "
            "abs/pdf URL.",
        ),
    ],
    fmt: ViewFormatOpt = ViewFormat.table,
    as_json: JsonOnlyOpt = False,
) -> None:
    """Show everything stored about one paper: dates, versions, authors, links, tags.

    Examples:

    \b
        papertrack show 2508.13167
        papertrack show https://arxiv.org/abs/2508.13167v2
        papertrack show arXiv:2508.13167 --json | jq .tags
    """
    from papertrack.export import find_paper, no_such_paper

    with errors():
        catalog = load_catalog()
        store = open_store()
        fresh_tags(store, catalog)
        paper = find_paper(store, paper_id)
        if paper is None:
            raise no_such_paper(paper_id)
        common.note_other_version(paper_id, paper, "showing")
        if as_json or fmt is ViewFormat.json:
            emit_json(paper.to_dict())
            return
        from papertrack import render

        common.out().print(render.paper_view(paper, {t.slug: t.name for t in catalog.topics}))


# --------------------------------------------------------------------------- search


@app.command(epilog=EXIT_CODES)
def search(
    query: Annotated[
        str,
        typer.Argument(metavar="QUERY", help="A query in the topic language (see docs/topics.md)."),
    ],
    topic: TopicOpt = None,
    limit: Annotated[
        int, typer.Option("--limit", "-n", min=1, help="How many papers to show.")
    ] = 20,
    since: ReadSinceOpt = None,
    fmt: FormatOpt = Format.table,
    as_json: JsonOpt = False,
) -> None:
    """Search stored papers: title hits first, then newest first.

    A paper whose title holds one of the query's words or phrases ranks above
    one that matches only in its abstract (or authors, categories), however new.
    Every week file is read, newest first and one at a time, unless --limit title
    hits are found first: older weeks could then only add lower-ranked papers.

    Examples:

    \b
        papertrack search '"world model*"'
        papertrack search '"tool use" AND benchmark*' -n 50
        papertrack search 'title:rl OR "reinforcement learning"' --topic llm-agent-training
        papertrack search 'author:"Yann LeCun"' --format jsonl
        papertrack search 'memory AND agent*' --since '4 weeks ago'
    """
    from papertrack.dates import parse_date
    from papertrack.export import find_paper, search_papers
    from papertrack.ids import parse_paper_id
    from papertrack.topics import Topic

    with errors():
        fmt = pick_format(fmt, as_json)
        # A paper's id, as copied (2606.23444, arXiv:2606.23444, its abs link): that
        # paper first, then the papers whose text names it. The id alone matched only
        # papers citing it, and "arXiv:" was an unknown field.
        named = parse_paper_id(query.strip()) if len(query.split()) == 1 else None
        text = query if named is None else f'"{named[0]}"'
        unsaved = Topic(name="Query", slug="query", query=text)  # syntax errors stop here
        if named is None:
            note_operator_words(query)
        catalog = load_catalog()
        chosen = catalog.find(topic) if topic is not None else None
        start = parse_date(since) if since is not None else None
        store = open_store()
        start = since_on_store(since, start, store)
        if named is None:
            note_query_store(store, query)
        fresh_tags(store, catalog)
        with busy("Searching the store") as progress:
            found = search_papers(
                store,
                unsaved,
                topic=chosen.slug if chosen else None,
                limit=limit,
                since=start,
                progress=progress,
            )
        if named is not None:
            paper = find_paper(store, named[0])
            if (
                paper is not None
                and paper.dated_from(start)
                and (chosen is None or chosen.slug in paper.tags)
            ):
                others = [p for p in found.papers if p.arxiv_id != paper.arxiv_id]
                if len(others) == len(found.papers) and not unsaved.matches_fields(
                    paper.title, paper.abstract, paper.authors, paper.categories
                ):
                    found.seen += 1  # in the answer, though its text does not name it
                found.papers = [paper, *others][:limit]
        scope = f"{chosen.name}: " if chosen else ""
        header = f"{scope}search: {' '.join(query.split())}"

        def table() -> Any:
            from papertrack import render

            names = {t.slug: t.name for t in catalog.topics}
            view = render.papers_table(found.papers, header, names, common.out().width)
            return render.with_note(
                view, _more_found(len(found.papers), found.seen, found.complete)
            )

        emit_papers(found.papers, fmt, table)
        if not found.papers:
            where = f"the papers of {chosen.name}" if chosen else "the store"
            if common.store_is_empty(store):
                say(common.NO_PAPERS_YET)
            elif start is not None:
                # Not the query's words, maybe: a '2 weeks ago' on a store behind.
                say(
                    f"No papers in {where} dated from {start:%Y-%m-%d} on match."
                    f"{newest_paper_note(store)} Try an earlier --since, or leave it out."
                )
            elif named is not None:
                say(
                    f"No paper {named[0]} in {where}, and none of its papers names it. "
                    "Ingest a feed that lists it ('papertrack fetch' or 'papertrack ingest "
                    "FILE'), or check the id."
                )
            else:
                _say_no_match(store, query, chosen)


# --------------------------------------------------------------------------- export


class ExportFormat(StrEnum):
    bibtex = "bibtex"
    json = "json"
    jsonl = "jsonl"
    csv = "csv"
    atom = "atom"


#: Reads of the store for an export to a file, before the last one holds its lock.
EXPORT_TRIES = 3


#: An export is kept in memory up to this size, then in a temporary file.
SPOOL_BYTES = 32 << 20


def _spool_folder(target: Path) -> Path | None:
    """Where an export to ``target`` spools: beside the file it replaces (on the disk
    it goes to, not in a small TMPDIR, whose filling was blamed on the output), or
    None (TMPDIR) for a device, a pipe or a folder papertrack cannot write."""
    import os
    import stat

    real = Path(os.path.realpath(target))
    try:
        mode = real.stat().st_mode
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        return None
    return real.parent if os.access(real.parent, os.W_OK | os.X_OK) else None


def _export_snapshot(
    store: Store, write: Callable[[TextIO], int], folder: Path | None = None
) -> tuple[BinaryIO, int]:
    """An export as one consistent state of the store: written again while a writer
    changed the store meanwhile (a paper moved between weeks was listed twice, or
    missed, by an export during an ingest), the last time under the store lock.

    Written into a temporary file past :data:`SPOOL_BYTES` (a StringIO held all
    83,510 papers' export, 765 MB); the caller copies it into place and closes it."""
    import tempfile

    spool = tempfile.SpooledTemporaryFile(
        max_size=SPOOL_BYTES, dir=None if folder is None else str(folder)
    )
    text = io.TextIOWrapper(spool, encoding="utf-8", newline="")

    def attempt() -> int:
        text.seek(0)
        text.truncate()
        count = write(text)
        text.flush()
        return count

    try:
        for _ in range(EXPORT_TRIES - 1):
            before = store.index().generation
            count = attempt()
            if store.index().generation == before:
                return text.detach(), count  # type: ignore[return-value]
        with store.lock():
            count = attempt()
        return text.detach(), count  # type: ignore[return-value]
    except BaseException:
        text.close()
        raise


def _say_none_stored(store: Store, topic: Topic | None) -> None:
    """What an export of no paper says, neither --since nor --query given: a cron job
    that writes a topic's .bib got an empty file, and nothing on stderr said why."""
    if store_is_empty(store):
        say(NO_PAPERS_YET)
    elif topic is not None:
        say(none_of_topic(quoted(topic.name)))


@app.command(epilog=EXIT_CODES)
def export(
    fmt: Annotated[
        ExportFormat | None,
        typer.Option(
            "--format",
            "-f",
            help="BibTeX, an Atom feed, or data as 'latest' writes it (required).",
            show_default=False,
        ),
    ] = None,
    topic: TopicOpt = None,
    since: SinceOpt = None,
    query: Annotated[
        str | None,
        typer.Option("--query", help="Only papers matching this query.", show_default=False),
    ] = None,
    output: OutputOpt = None,
    feed_url: Annotated[
        str | None,
        typer.Option(
            "--feed-url",
            help="Atom: the address the feed is served at, its self link (default: the "
            "file's file:// URI with -o, else the feed's urn: id).",
            show_default=False,
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Export stored papers as BibTeX, an Atom feed, JSON, JSON lines or CSV.

    Papers come newest first. BibTeX entries are @misc with the key arxiv:ID,
    stable across runs, and every LaTeX-special character of the feed text escaped.
    The Atom feed can be served to (or opened in) a feed reader.

    Examples:

    \b
        papertrack export --topic llm-agent-training --format bibtex -o agents.bib
        papertrack export --topic gui-agents --since '4 weeks ago' --format atom -o gui.xml
        papertrack export --query '"world model*"' --format csv > world-models.csv
    """
    from papertrack.dates import parse_date
    from papertrack.export import iter_papers, write_export
    from papertrack.files import write_output
    from papertrack.topics import Topic

    # The file is replaced in one step at the end: an interrupted export leaves it as it was.
    written = output is not None and str(output) != "-"
    left = f"{visible(output)} was left as it was." if written else "The export is incomplete."
    with errors(interrupted=left):
        target = output_path(output)
        if as_json:
            # --json is short for --format json in every command that has both.
            if fmt not in (None, ExportFormat.json):
                raise UsageError(
                    f"--json and --format {fmt.value} ask for two formats. Give one of them"
                )
            fmt = ExportFormat.json
        if fmt is None:
            # Click's own message for a missing choice spans seven lines.
            raise UsageError(
                "no --format given. Name one: -f bibtex, -f atom, -f json, -f jsonl or -f csv"
            )
        if feed_url is not None:
            if fmt is not ExportFormat.atom:
                raise UsageError(
                    f"--feed-url is the self link of an Atom feed, not of -f {fmt.value}. "
                    "Drop it, or export with -f atom"
                )
            from papertrack.site import web_address

            # Feed readers follow it: a javascript: or file: address must not become one.
            web_address(
                feed_url,
                "--feed-url",
                "Use the feed's web address, e.g. https://example.org/agents.xml",
            )
        unsaved = Topic(name="Query", slug="query", query=query) if query is not None else None
        if query is not None:
            note_operator_words(query)
        catalog = load_catalog()
        chosen = catalog.find(topic) if topic is not None else None
        start = parse_date(since) if since is not None else None
        store = open_store()
        if query is not None:
            note_query_store(store, query)
        fresh_tags(store, catalog)
        title = "papertrack: " + (chosen.name if chosen else "all papers")
        title += f", query: {' '.join(query.split())}" if query is not None else ""
        stdout = sys.stdout
        # No spinner while the export itself scrolls past on the same terminal.
        with busy("Exporting", show=target is not None or not stdout.isatty()) as progress:

            def papers() -> Iterator[Paper]:
                return iter_papers(
                    store,
                    topic=chosen.slug if chosen else None,
                    since=start,
                    match=unsaved.matches_fields if unsaved else None,
                    within=store.candidates(unsaved.node) if unsaved else None,
                    progress=progress,
                )

            if target is None:
                before = store.index().generation
                count = write_export(papers(), fmt.value, stdout, title=title, self_url=feed_url)
                if store.index().generation != before:
                    # Streamed as read: it cannot be read again, and a pipe's reader
                    # may be slow, so the store is not locked for it either.
                    say(
                        "Warning: the store was written while it was exported (an ingest "
                        "or fetch): a paper moved to another week meanwhile may be missing. "
                        "Export again once it is done, or to a file with -o."
                    )
                if count == 0 and start is not None:
                    day = start.date().isoformat()
                    # Of the topic or the query: "No paper is dated 2026-06-26 or later.
                    # The newest stored paper is from Jun 26, 2026." read as a contradiction.
                    of = " matching" if chosen is not None or unsaved is not None else ""
                    say(
                        f"No{of} paper is dated {day} or later.{newest_paper_note(store)}"
                        + _from_today(since, store)
                    )
                elif count == 0 and query is not None:
                    _say_no_match(store, query, chosen)
                elif count == 0:
                    _say_none_stored(store, chosen)
                return
            # Collected first, then written in one atomic replace: a reader of the
            # file (a feed reader polling it) never sees half an export.
            self_url = feed_url or target.resolve().as_uri()
            spool, count = _export_snapshot(
                store,
                lambda into: write_export(
                    papers(), fmt.value, into, title=title, self_url=self_url
                ),
                _spool_folder(target),
            )
            with spool:
                if not write_output(target, spool):
                    return  # its reader stopped early (`| head`): nothing to report
        note = (
            newest_paper_note(store) + _from_today(since, store)
            if count == 0 and start is not None
            else ""
        )
        # visible(): a line break in a file name forged a line of the log.
        say(f"Wrote {count:,} paper{'s' if count != 1 else ''} to {visible(output)}.{note}")
        from papertrack.feeds import MAX_FEED_BYTES

        if count == 0 and start is None and query is not None:
            _say_no_match(store, query, chosen)
        elif count == 0 and start is None:
            _say_none_stored(store, chosen)
        elif fmt is ExportFormat.atom and target.stat().st_size > MAX_FEED_BYTES:
            # Read back whole, an XML feed is refused over the limit.
            say(
                f"Note: {visible(output)} is larger than papertrack reads back from one XML "
                f"feed ({MAX_FEED_BYTES // (1024 * 1024)} MB). To move papers between "
                "stores, export with -f jsonl"
            )


def _more_found(shown: int, seen: int, complete: bool) -> str:
    """What `search` says under its rows when they may not be all that match, in the
    words `latest` uses: 20 rows, and nothing said of the 1,521 papers that match,
    read as all of them. A scan that stopped early (older weeks could not rank
    higher) did not count the matches: it knows more match only when it saw more
    than it shows, and otherwise that older weeks may hold some."""
    if not shown or (complete and seen <= shown):
        return ""
    if complete:
        return f"The first {shown:,} of the {seen:,} papers that match (-n sets how many)."
    if seen > shown:
        return f"The first {shown:,} of those that match (-n sets how many)."
    return f"The first {shown:,} that match; older weeks may hold more (-n sets how many)."


_ONE_WORD = (
    "Check the spelling, or end the word with * for its longer forms: agent* finds "
    "agents and agentic."
)


def _say_no_match(store: Store, query: str, chosen: Topic | None) -> None:
    """An export whose query matched nothing says why, as search does."""
    from papertrack.hints import FEWER_WORDS, no_match_hint

    where = f"the papers of {chosen.name}" if chosen else "the store"
    hint = no_match_hint(store, query)
    if hint == FEWER_WORDS and len(query.split()) == 1:
        hint = _ONE_WORD  # "words side by side must all match" made no sense for one
    say(f"No papers in {where} match. {hint}")


def _from_today(since: str | None, store: Store) -> str:
    """For an export that a span left empty on a store more than a week behind: that
    export counts --since from today (its feeds are for cron), and the date the span
    gives from the newest paper, as latest and search count it. The help's own
    '4 weeks ago' wrote an empty feed of the bundled sample with no way forward."""
    from papertrack.cli.common import span_on_store

    found = span_on_store(since, store) if since is not None else None
    if since is None or found is None:
        return ""
    moved = found[1].date().isoformat()
    return (
        f" export counts --since from today; --since {moved} counts "
        f"{since.strip()!r} from that paper's day, as latest and search do."
    )
