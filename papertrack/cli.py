"""The papertrack command line: parse options, call the core, render, set the exit code.

Heavy modules (feedparser, dateutil) are imported inside the commands that need
them, so ``papertrack latest`` starts fast from cron.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from enum import StrEnum
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any

import typer

from papertrack import __version__, paths
from papertrack.errors import PapertrackError, UsageError

if TYPE_CHECKING:
    from rich.console import Console

    from papertrack.models import IngestReport, Paper, SourceReport
    from papertrack.store import Store
    from papertrack.topics import Catalog

EXIT_CODES = "Exit codes: 0 success (also when nothing matches), 1 error, 2 bad usage."

app = typer.Typer(
    name="papertrack",
    help=(
        "Track arXiv papers by topic: ingest feeds into a local store, then see the "
        f"latest papers of a topic.\n\n{EXIT_CODES}"
    ),
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


class Format(StrEnum):
    table = "table"
    json = "json"
    jsonl = "jsonl"
    csv = "csv"


FormatOpt = Annotated[
    Format, typer.Option("--format", "-f", help="Output format: a table for people, or data.")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Short for --format json.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing on success.")]


class State:
    db: str | None = None


state = State()


@cache
def _out() -> Console:
    from rich.console import Console

    return Console(soft_wrap=False)


@cache
def _err() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def _say(message: str) -> None:
    """A message for people on stderr, printed as plain text (never as Rich markup)."""
    typer.echo(message, err=True)


@contextlib.contextmanager
def _errors() -> Iterator[None]:
    """Turn papertrack's own errors into ``Error: …`` on stderr and their exit code."""
    try:
        yield
    except PapertrackError as exc:
        message = str(exc).rstrip()
        if not message.endswith((".", "?", "!")):
            message += "."
        _say(f"Error: {message}")
        raise typer.Exit(exc.exit_code) from None
    except KeyboardInterrupt:
        _say("Interrupted. Everything written before the interruption is kept.")
        raise typer.Exit(130) from None


def _version(value: bool) -> None:
    if value:
        typer.echo(f"papertrack {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            envvar="PAPERTRACK_DB",
            help="Store directory (default: <PAPERTRACK_HOME>/store).",
            show_default=False,
        ),
    ] = None,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
) -> None:
    """Track arXiv papers by topic."""
    state.db = db


def _store() -> Store:
    from papertrack.store import Store

    timeout = os.environ.get("PAPERTRACK_LOCK_TIMEOUT", "60")
    try:
        seconds = float(timeout)
    except ValueError:
        raise UsageError(
            f"PAPERTRACK_LOCK_TIMEOUT={timeout!r} is not a number of seconds. Set it to e.g. 60"
        ) from None
    return Store(paths.store_dir(state.db), lock_timeout=seconds)


def _catalog() -> Catalog:
    from papertrack.topics import Catalog

    user = paths.user_topics_file()
    catalog = Catalog.load(paths.default_topics_file(), user if user.is_file() else None)
    for warning in catalog.warnings:
        _say(f"Warning: {warning}")
    return catalog


def _fresh_tags(store: Store, catalog: Catalog) -> None:
    """Retag stored papers before answering if a topic definition changed since they were tagged."""
    if not store.tags_current(catalog):
        with store.writer(catalog):
            pass


def _pick_format(fmt: Format, as_json: bool) -> Format:
    return Format.json if as_json else fmt


# --------------------------------------------------------------------------- ingest


def _source_line(item: SourceReport) -> str:
    kind = f" ({item.kind})" if item.kind else ""
    counts = f"{item.new} new, {item.updated} updated, {item.unchanged} unchanged"
    skipped = f", {item.skipped} skipped" if item.skipped else ""
    return f"{item.source}{kind}: {item.papers} papers: {counts}{skipped}"


def _summary(report: IngestReport) -> str:
    failed = len(report.failed)
    ok = len(report.sources) - failed
    totals = report.totals()
    sources = f"{ok} source{'s' if ok != 1 else ''} ok"
    if failed:
        sources += f", {failed} error{'s' if failed != 1 else ''}"
    counts = f"{totals.new} new, {totals.updated} updated, {totals.unchanged} unchanged"
    return f"{sources}; papers: {counts}"


@app.command()
def ingest(
    sources: Annotated[
        list[str] | None,
        typer.Argument(
            help="Feed files (.xml, .jsonl, .gz), http(s) URLs, or '-' for standard input.",
            show_default=False,
        ),
    ] = None,
    sample: Annotated[
        bool, typer.Option("--sample", help="Also ingest the bundled sample of real arXiv feeds.")
    ] = False,
    quiet: QuietOpt = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Print one line per source.")
    ] = False,
) -> None:
    """Read arXiv feeds into the store; re-reading a feed changes nothing.

    Formats are detected: arXiv API pages (Atom), rss.arxiv.org listings (RSS 2.0 or
    Atom), legacy RSS 1.0 listings, OAI-PMH responses, Kaggle snapshot JSON lines
    (plain or .gz) and any other RSS/Atom feed.

    Examples:

    \b
        papertrack ingest api-page.xml listing.xml arxiv-metadata-oai-snapshot.json.gz
        curl -s 'https://rss.arxiv.org/atom/cs.AI' | papertrack ingest -
        papertrack ingest --sample
    """
    from papertrack.ingest import ingest as run_ingest

    names = list(sources or [])
    if sample:
        names += [
            str(p) for p in sorted(paths.samples_dir().glob("*")) if p.suffix in (".xml", ".jsonl")
        ]
    with _errors():
        if not names:
            raise UsageError(
                "nothing to ingest. Name a feed file, a URL or '-' for standard input, "
                "or use --sample for the bundled sample"
            )

        def progress(item: SourceReport) -> None:
            if item.error:
                _say(f"Error: {item.error.rstrip('.')}.")
            elif verbose:
                _say(_source_line(item))
            for warning in item.warnings if verbose else ():
                _say(f"Warning: {warning}")

        store, catalog = _store(), _catalog()
        stdin = sys.stdin.buffer if "-" in names else None
        with store.writer(catalog) as writer:
            report = run_ingest(names, writer, stdin=stdin, progress=progress)
        if not quiet or report.failed:
            _say(_summary(report))
        if report.failed:
            raise typer.Exit(1)


# --------------------------------------------------------------------------- latest


def _csv_row(paper: Paper) -> list[str]:
    data = paper.to_dict()
    row = []
    for key in CSV_COLUMNS:
        value = data[key]
        row.append(
            "; ".join(value) if isinstance(value, list) else "" if value is None else str(value)
        )
    return row


CSV_COLUMNS = (
    "arxiv_id",
    "version",
    "paper_date",
    "published",
    "updated",
    "announced",
    "primary_category",
    "categories",
    "title",
    "authors",
    "affiliations",
    "tags",
    "doi",
    "url",
    "pdf_url",
)


def _emit_papers(papers: Sequence[Paper], fmt: Format, table: Callable[[], Any]) -> None:
    if fmt is Format.json:
        sys.stdout.write(
            json.dumps([p.to_dict() for p in papers], ensure_ascii=False, indent=2) + "\n"
        )
    elif fmt is Format.jsonl:
        for paper in papers:
            sys.stdout.write(json.dumps(paper.to_dict(), ensure_ascii=False) + "\n")
    elif fmt is Format.csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(CSV_COLUMNS)
        writer.writerows(_csv_row(p) for p in papers)
    elif papers:
        _out().print(table())


def _category_filter(categories: Sequence[str]) -> Callable[[Paper], bool] | None:
    if not categories:
        return None
    exact = {c.casefold() for c in categories if not c.endswith("*")}
    prefixes = tuple(c[:-1].casefold() for c in categories if c.endswith("*"))

    def keep(paper: Paper) -> bool:
        return any(
            cat.casefold() in exact or (prefixes and cat.casefold().startswith(prefixes))
            for cat in paper.categories
        )

    return keep


@app.command()
def latest(
    topic: Annotated[
        str | None,
        typer.Argument(
            help="Topic name or slug, any case (see 'papertrack topics'). Omit for all papers."
        ),
    ] = None,
    limit: Annotated[
        int, typer.Option("--limit", "-n", min=1, help="How many papers to show.")
    ] = 20,
    since: Annotated[
        str | None,
        typer.Option(
            "--since",
            "-s",
            help="Only papers dated on or after: 2026-08-01, 'Aug 1 2026', '3 weeks ago'.",
        ),
    ] = None,
    category: Annotated[
        list[str] | None,
        typer.Option(
            "--category", "-c", help="Only papers in this arXiv category (repeatable; cs.* works)."
        ),
    ] = None,
    abstract: Annotated[
        bool, typer.Option("--abstract", "-a", help="Show a card per paper with its abstract.")
    ] = False,
    fmt: FormatOpt = Format.table,
    as_json: JsonOpt = False,
) -> None:
    """Show the latest papers of a topic, newest first by paper date.

    Examples:

    \b
        papertrack latest LLM-agent-training
        papertrack latest "GUI Agents" -n 5 --abstract
        papertrack latest llm-agent-training --since '2 weeks ago' --category cs.CL
        papertrack latest llm-agent-training --format json | jq '.[].title'
    """
    from papertrack.dates import parse_date

    fmt = _pick_format(fmt, as_json)
    with _errors():
        catalog = _catalog()
        chosen = catalog.find(topic) if topic else None
        start = parse_date(since) if since else None
        store = _store()
        _fresh_tags(store, catalog)
        slug = chosen.slug if chosen else None
        papers = store.latest(slug, limit=limit, since=start, keep=_category_filter(category or []))
        total = store.count(slug)
        name = chosen.name if chosen else "All topics"
        header = f"{name} — latest papers ({total:,})"
        names = {t.slug: t.name for t in catalog.topics}

        def table() -> Any:
            from papertrack import render

            if abstract:
                return render.paper_cards(papers, header, names)
            return render.papers_table(papers, header, names)

        _emit_papers(papers, fmt, table)
        if not papers:
            if not store.exists() or store.count() == 0:
                _say(
                    "No papers in the store yet. Run 'papertrack ingest FILE' with an arXiv feed, "
                    "or 'papertrack ingest --sample' to try the bundled sample."
                )
            elif since or category:
                _say(f"No papers of {name} match --since/--category. Widen or drop those filters.")
            else:
                _say(f"No papers of {name} in the store yet. Ingest feeds of its categories.")


# --------------------------------------------------------------------------- topics


@app.command("topics")
def topics_list(fmt: FormatOpt = Format.table, as_json: JsonOpt = False) -> None:
    """List the topics papers are tagged with, and how many stored papers each has.

    Example:

    \b
        papertrack topics
        papertrack topics --json
    """
    fmt = _pick_format(fmt, as_json)
    with _errors():
        catalog = _catalog()
        store = _store()
        _fresh_tags(store, catalog)
        counts = store.index().counts if store.exists() else {}
        rows = [
            {
                "name": t.name,
                "slug": t.slug,
                "source": t.source,
                "description": t.description,
                "query": t.query,
                "papers": sum(counts.get(t.slug, {}).values()),
            }
            for t in catalog.topics
        ]
        if fmt is Format.json:
            sys.stdout.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
        elif fmt is Format.jsonl:
            sys.stdout.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        elif fmt is Format.csv:
            writer = csv.DictWriter(
                sys.stdout, fieldnames=list(rows[0]) if rows else ["name"], lineterminator="\n"
            )
            writer.writeheader()
            writer.writerows(rows)
        else:
            from papertrack import render

            _out().print(render.topics_table(rows))


# --------------------------------------------------------------------------- path


@app.command()
def path(as_json: JsonOpt = False) -> None:
    """Show where papertrack keeps its data.

    Example:

    \b
        papertrack path
        PAPERTRACK_HOME=/tmp/pt papertrack path --json
    """
    with _errors():
        where = {
            "home": str(paths.home()),
            "store": str(paths.store_dir(state.db)),
            "topics": str(paths.user_topics_file()),
            "default_topics": str(paths.default_topics_file()),
        }
        if as_json:
            sys.stdout.write(json.dumps(where, indent=2) + "\n")
        else:
            width = max(map(len, where))
            sys.stdout.writelines(
                f"{key + ':':<{width + 1}} {value}\n" for key, value in where.items()
            )


def main() -> None:
    """Console-script entry point."""
    app(prog_name="papertrack")


if __name__ == "__main__":
    main()
