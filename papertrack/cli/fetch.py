"""The fetch command: pull the daily listing or a date range from arXiv into the store."""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Callable, Iterator, Sequence
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from papertrack import paths
from papertrack.categories import CATEGORY_NAME as _CATEGORY_RE
from papertrack.cli.common import (
    EXIT_CODES,
    QuietOpt,
    app,
    errors,
    load_catalog,
    no_blank_fetch_category,
    open_store,
    say,
)
from papertrack.cli.output import emit_json
from papertrack.dates import ANNOUNCED_WITHIN
from papertrack.errors import UsageError
from papertrack.text import counted

if TYPE_CHECKING:
    from papertrack.fetch import FetchProgress, FetchReport
    from papertrack.models import Paper, UpsertResult

_API_URL = "https://export.arxiv.org/api/query"
# An archive (hep-th, cs) or archive.subject (cs.AI, cond-mat.stat-mech), as arXiv names them.

_LISTING_URL = "https://rss.arxiv.org/atom"


def _seconds(wait: float) -> str:
    """A wait as said: '0.2 s' below ten seconds ('0 s' read as no wait at all), else whole."""
    return f"{wait:.1f} s" if wait < 10 else f"{wait:,.0f} s"


def _say_retries(event: FetchProgress, quiet: bool = False) -> None:
    """Without a progress bar, each retry is a line: a long wait is never silent
    (with --quiet, a line of the log alone)."""
    if event.retry:
        say(f"Retrying in {_seconds(event.wait)}: {event.retry}.", quiet=quiet)


@contextlib.contextmanager
def _progress_bar(show: bool, quiet: bool) -> Iterator[Callable[[FetchProgress], None] | None]:
    """A Rich progress bar on stderr; else retry lines (with --quiet, to the log alone)."""
    if not show:
        yield functools.partial(_say_retries, quiet=quiet)
        return
    from rich.progress import MofNCompleteColumn, TextColumn

    from papertrack.cli import common

    with (
        common.papers_bar(MofNCompleteColumn(), TextColumn("pages")) as bar,
        common.showing(bar),
    ):  # messages (a resume, a warning) print above the bar
        task = bar.add_task("fetching", total=None, papers=0)

        def update(event: FetchProgress) -> None:
            if event.retry:
                # The reason gets a line of its own above the bar, wrapped like any
                # message: inside the bar's description it pushed the bar, the page
                # count and the time off an 80-column line and was cut with "…". And
                # into the log, as off a terminal: read in the morning, a night's
                # fetch on a terminal showed no retry.
                say(f"Retrying in {_seconds(event.wait)}: {event.retry}.", quiet=quiet)
            note = f"waiting {event.wait:,.0f} s" if event.retry else "fetching"
            bar.update(
                task,
                completed=event.pages,
                total=event.pages_total,
                papers=event.papers,
                description=note,
            )

        yield update


def _days_before(last: date, option: str, value: int, days: int) -> date:
    """``days`` days before ``last``; a span reaching past year 1 is a usage error."""
    try:
        return last - timedelta(days=days)
    except OverflowError:
        raise UsageError(
            f"{option} {value} reaches back before the year 1. "
            "Give a smaller number, or a start day with --since"
        ) from None


def _pick(flag: Any, configured: Any, default: Any) -> Any:
    """Flag (or its environment variable) > config file > built-in default."""
    return flag if flag is not None else configured if configured is not None else default


@app.command(epilog=EXIT_CODES)
def fetch(
    category: Annotated[
        list[str] | None,
        typer.Option(
            "--category",
            "-c",
            help="arXiv category to fetch (repeatable).",
            show_default=False,
            callback=no_blank_fetch_category,
        ),
    ] = None,
    listing: Annotated[
        bool,
        typer.Option(
            "--listing", help="Fetch today's listing (the default without a date option)."
        ),
    ] = False,
    since: Annotated[
        str | None,
        typer.Option(
            "--since", "-s", help="API: papers submitted since this day (UTC).", show_default=False
        ),
    ] = None,
    days: Annotated[
        int | None,
        typer.Option(
            "--days",
            min=0,
            help=f"API: papers submitted in the last N days, and the {ANNOUNCED_WITHIN} "
            "before them, which arXiv usually announces within (papers already stored "
            "count as unchanged); and back to where the last fetch left off, up to "
            "31 days, after days without a run.",
            show_default=False,
        ),
    ] = None,
    backfill: Annotated[
        int | None,
        typer.Option(
            "--backfill",
            min=1,
            help="API: papers submitted in the last N weeks.",
            show_default=False,
        ),
    ] = None,
    page_size: Annotated[
        int | None,
        typer.Option(
            "--page-size", min=1, max=2000, help="API results per request [default: 2000]."
        ),
    ] = None,
    retries: Annotated[
        int | None,
        typer.Option(
            "--retries",
            min=0,
            help="Retries per request on 429/5xx/timeouts/bad pages [default: 5].",
        ),
    ] = None,
    interval: Annotated[
        float | None,
        typer.Option(
            "--interval",
            min=0.0,
            envvar="PAPERTRACK_FETCH_INTERVAL",
            help="Seconds between requests, across all papertrack processes [default: 3].",
        ),
    ] = None,
    backoff: Annotated[
        float | None,
        typer.Option(
            "--backoff",
            min=0.0,
            envvar="PAPERTRACK_FETCH_BACKOFF",
            help="Seconds before the first retry (half to all of it), doubled on each "
            "[default: the interval, at least 1].",
            show_default=False,
        ),
    ] = None,
    timeout: Annotated[
        float | None,
        typer.Option(
            "--timeout",
            min=0.1,
            help="Seconds a request may take, its whole answer included [default: 60].",
        ),
    ] = None,
    api_url: Annotated[
        str | None, typer.Option("--api-url", help=f"arXiv API endpoint [default: {_API_URL}].")
    ] = None,
    listing_url: Annotated[
        str | None,
        typer.Option("--listing-url", help=f"Listing feeds base URL [default: {_LISTING_URL}]."),
    ] = None,
    quiet: QuietOpt = False,
    as_json: Annotated[
        bool,
        typer.Option("--json", help="Also write what the fetch did as JSON on standard output."),
    ] = False,
) -> None:
    """Fetch new papers from arXiv into the store, politely and resumably.

    Without a date option, fetch today's listing from rss.arxiv.org (new, cross-lists
    and replacements). --since, --days or --backfill page through the arXiv API by
    submission date instead. Requests are at least --interval seconds apart, 429s,
    5xx, timeouts and empty or cut-off pages are retried with backoff, and a run that
    stops half-way continues where it stopped when run again.

    Examples:

    \b
        papertrack fetch -c cs.AI -c cs.CL
        papertrack fetch -c cs.AI --days 7
        papertrack fetch -c cs.AI -c cs.CL --backfill 12 --page-size 1000
        papertrack fetch -c cs.AI --days 2 -q --json | jq .new
    """
    from papertrack import config
    from papertrack.fetch import (
        FetchRunning,
        FetchSettings,
        fetch_listing,
        fetch_range,
        today,
    )

    with errors():
        conf_path = paths.config_file()
        conf = config.fetch_defaults(config.load(conf_path), conf_path)
        cats = _categories(category, conf, conf_path)
        options = (("--since", since), ("--days", days), ("--backfill", backfill))
        chosen = [name for name, value in options if value is not None]
        chosen += ["--listing"] if listing else []
        if len(chosen) > 1:
            raise UsageError(f"{' and '.join(chosen)} exclude each other. Use one of them")
        for option, given, kind in (
            ("--api-url", api_url, config.API_WORDS),
            ("--listing-url", listing_url, config.LISTING_WORDS),
        ):
            if given is not None:
                config.check_url(given, option, kind)
        if not quiet:
            _say_unused_url(chosen, api_url, listing_url, conf)
        settings = FetchSettings(
            home=paths.home(),
            pace_dir=paths.fetch_pace_dir(),
            api_url=api_url or conf.get("api_url") or _API_URL,
            listing_url=listing_url or conf.get("listing_url") or _LISTING_URL,
            page_size=_pick(page_size, conf.get("page_size"), 2000),
            retries=_pick(retries, conf.get("retries"), 5),
            interval=float(_pick(interval, conf.get("interval"), 3.0)),
            timeout=float(_pick(timeout, conf.get("timeout"), 60.0)),
            backoff=_pick(backoff, conf.get("backoff"), None),
        )
        last = today()
        first = _first_day(last, since, days, backfill)
        store, catalog = open_store(create=True), load_catalog(storing=True)
        # The data home is made now, as a writer's: the log lives in it, and a listing
        # fetch that failed on a fresh machine (the first nights of a cron job) left
        # no trace, where an API fetch's checkpoint made the home and logged it.
        with contextlib.suppress(OSError):
            settings.home.mkdir(parents=True, exist_ok=True)

        def upsert(papers: list[Paper]) -> UpsertResult:
            # One short store transaction per page: a concurrent ingest is not held up
            # for the whole (polite, hence slow) fetch, and every page is kept at once.
            with store.writer(catalog) as writer:
                return writer.upsert(papers)

        # A bar only for the multi-page API fetches; a listing is one request.
        show = first is not None and not quiet and sys.stderr.isatty()
        with _progress_bar(show, quiet) as progress:
            if first is None:
                report = fetch_listing(cats, upsert, settings, progress=progress)
            else:
                # The range as asked: a --days run and a --backfill keep apart checkpoints.
                run = (
                    f"--since {first}"
                    if since is not None
                    else f"--days {days}"
                    if days is not None
                    else f"--backfill {backfill}"
                )

                def resumed(pages: int) -> None:
                    # At the start: said at the end, a long backfill's user learned it
                    # only when done, and a resumed run that failed never did.
                    said = f"Resuming after {counted(pages, 'page')} fetched by an earlier run."
                    say(said, quiet=quiet)

                try:
                    report = fetch_range(
                        cats, first, last, upsert, settings, progress=progress, run=run,
                        on_resume=resumed, catch_up=days is not None,
                    )  # fmt: skip
                except FetchRunning as running:
                    # Cron firing while last night's long fetch still runs: not an
                    # error, and not a second fetch of every page left.
                    say(f"Nothing fetched: {running}.", quiet=quiet)
                    if as_json:
                        emit_json({"fetched": False, "reason": f"{running}."})
                    return
        for warning in dict.fromkeys(report.warnings):
            say(f"Warning: {warning}")
        for note in dict.fromkeys(report.notes):
            say(f"Note: {note}", quiet=quiet)
        say(report.summary(), quiet=quiet)
        if as_json:
            emit_json(fetch_json(report, catalog.warnings))


def fetch_json(report: FetchReport, warnings: Sequence[str] = ()) -> dict[str, Any]:
    """``fetch --json``: what :meth:`FetchReport.summary` says, as numbers, and the
    fetch's warnings with ``warnings`` of the whole run (a topics file that cannot
    be read) first."""
    return {
        "fetched": True,
        "categories": list(report.categories),
        "mode": report.mode,
        "new": report.new,
        "updated": report.updated,
        "unchanged": report.unchanged,
        "skipped": report.skipped,
        "papers": report.papers,
        "pages": report.pages,
        "pages_retried": report.pages_retried,
        "retries": report.retries,
        "resumed_after_pages": report.resumed_at,
        "note": report.note,
        "warnings": list(dict.fromkeys([*warnings, *report.warnings])),
        "notes": list(dict.fromkeys(report.notes)),
    }


def _say_unused_url(
    chosen: list[str], api_url: str | None, listing_url: str | None, conf: dict[str, Any]
) -> None:
    """Say so when the one URL given is for the other kind of fetch: `--api-url MIRROR`
    alone fetched the listing from rss.arxiv.org, and a mirror's user hit the public
    arXiv with nothing said (or was told of "a typo in the URL" of a host never typed)."""
    ranged = any(name in chosen for name in ("--since", "--days", "--backfill"))
    if not ranged and api_url is not None and listing_url is None and "listing_url" not in conf:
        say(
            f"Note: --api-url is for --since, --days and --backfill; today's listing comes "
            f"from {_LISTING_URL}. Give --listing-url for a mirror's listing."
        )
    if ranged and listing_url is not None and api_url is None and "api_url" not in conf:
        say(
            f"Note: --listing-url is for today's listing; {chosen[0]} pages through "
            f"{_API_URL}. Give --api-url for a mirror's API."
        )


def _categories(given: list[str] | None, conf: dict[str, Any], conf_path: Path) -> list[str]:
    """The categories to fetch (--category, else the config file's), checked and canonical."""
    from papertrack.categories import TAXONOMY_URL, canonical, is_arxiv_category, suggest

    cats = list(dict.fromkeys(given or conf.get("categories") or []))
    if not cats:
        raise UsageError(
            "no category to fetch. Name categories with --category cs.AI --category cs.CL, "
            f"or set categories in the [fetch] section of {conf_path}"
        )
    where = "--category" if given else f"the [fetch] section of {conf_path}"
    for cat in cats:
        # Categories become part of the request URL: only arXiv's own names may.
        if any(c in cat for c in "*?["):
            # A pattern, as latest and ingest take: arXiv serves categories by name.
            raise UsageError(
                f"{cat!r} (in {where}) is a pattern: fetch asks arXiv for categories by "
                "name. Name each one: -c cs.AI -c cs.CL"
            )
        if not _CATEGORY_RE.fullmatch(cat):
            raise UsageError(
                f"{cat!r} (in {where}) is not an arXiv category. "
                "Write categories as arXiv does: cs.AI, math.GT, hep-th, cond-mat.stat-mech"
            )
        if not is_arxiv_category(cat):
            # Well-formed but unknown: arXiv would answer an empty listing, every
            # day, and the user would never learn of the typo.
            close = suggest(cat)
            hint = f" Did you mean {close}?" if close else ""
            raise UsageError(
                f"{cat!r} (in {where}) is not an arXiv category.{hint} "
                f"arXiv lists its categories at {TAXONOMY_URL}"
            )
    return list(dict.fromkeys(canonical(cat) for cat in cats))


def _first_day(
    last: date, since: str | None, days: int | None, backfill: int | None
) -> date | None:
    """The first day of an API range fetch; None: today's listing."""
    from papertrack.dates import parse_date

    if since is not None:
        return parse_date(since).date()
    if days is not None:
        # Reaching back as far as arXiv may take to announce a submission: a nightly
        # --days 1 missed every Monday's papers (Friday's, announced Sunday night).
        return _days_before(last, "--days", days, days + ANNOUNCED_WITHIN)
    if backfill is not None:
        return _days_before(last, "--backfill", backfill, backfill * 7)
    return None
