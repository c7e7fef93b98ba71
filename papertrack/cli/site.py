"""The site command: the topic pages as a static web site with an Atom feed per topic."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from papertrack.cli.common import (
    EXIT_CODES,
    AsOfOpt,
    QuietOpt,
    app,
    errors,
    fresh_tags,
    load_catalog,
    open_store,
    output_path,
    say,
    say_behind,
    warn_if_stale,
)
from papertrack.errors import UsageError
from papertrack.files import lock_timeout

if TYPE_CHECKING:
    from papertrack.topics import Catalog, Topic


def _chosen(catalog: Catalog, names: list[str], following: bool) -> list[Topic]:
    """The topics of the site: --topics (comma lists too), the followed ones, or all."""
    if names and following:
        raise UsageError("--topics and --following both choose the topics. Give one of them")
    if following:
        from papertrack.cli.digest import followed_topics

        topics = followed_topics(catalog)
        if not topics:
            raise UsageError(
                "you follow no topic. Run 'papertrack follow TOPIC', or leave out --following"
            )
        return topics
    if names:
        picked = [catalog.find(n) for text in names for n in text.split(",") if n.strip()]
        if not picked:
            # An empty --topics "$T" in cron would otherwise make a site of no topic,
            # removing every page of the one published.
            raise UsageError(
                f"--topics names no topic ({', '.join(map(repr, names))}). Name topics, "
                "e.g. --topics llm-agent-training,gui-agents, or leave --topics out for all"
            )
        return list({t.slug: t for t in picked}.values())
    return list(catalog.topics)


@app.command(epilog=EXIT_CODES)
def site(
    output: Annotated[
        str,
        typer.Option(
            "--output",
            "-o",
            metavar="<path>",
            help="The site's folder: new, empty, or a site written before.",
        ),
    ],
    topics: Annotated[
        list[str] | None,
        typer.Option(
            "--topics", help="Only these topics (names or slugs; repeat, or separate by commas)."
        ),
    ] = None,
    following: Annotated[
        bool, typer.Option("--following", help="Only the topics you follow.")
    ] = False,
    limit: Annotated[
        int, typer.Option("--limit", "-n", min=1, help="Latest papers on each page and feed.")
    ] = 20,
    as_of: AsOfOpt = None,
    base_url: Annotated[
        str,
        typer.Option(
            "--base-url", help="Where the site is published, for absolute links in the feeds."
        ),
    ] = "",
    quiet: QuietOpt = False,
) -> None:
    """Write the topic pages as a static web site, with an Atom feed per topic.

    The folder (-o) gets index.html (every topic with its momentum, ordered as 'trending'
    orders them), and per topic SLUG.html (momentum, weekly chart, latest papers,
    related topics) and SLUG.xml (its Atom feed). No server and no JavaScript are
    needed to read it. Every file is replaced atomically, unchanged files are left
    alone, and a folder holding anything but a papertrack site is refused: run it
    from cron after 'papertrack fetch'.

    Examples:

    \b
        papertrack site -o site
        papertrack site -o site --following -n 50
        papertrack site -o site --topics llm-agent-training,gui-agents --as-of 2026-06-26
    """
    from papertrack import site as core
    from papertrack.cli.momentum import EMPTY_STORE, as_of_day

    with errors():
        base_url = core.base_url_of(base_url) if base_url else ""
        folder = output_path(output, folder=True) or Path(output)
        catalog = load_catalog()
        chosen = _chosen(catalog, topics or [], following)
        store = open_store()
        fresh_tags(store, catalog)
        from papertrack.momentum import today

        # The note that the store is behind waits for the site to be written: before an
        # error (-o not writable) it made the error two lines.
        day = as_of_day(store, as_of, 4, 12, quiet=quiet or as_of is None, fixed=True)
        if as_of is None and quiet:
            # From cron the site froze at its newest paper's day without a word.
            warn_if_stale(store, today())
        names = {t.slug: t.name for t in catalog.topics}
        gathered = core.gather(store, chosen, day, limit=limit, known=names)
        files = core.render_site(
            gathered, day, names=names, base_url=base_url, dated=as_of is not None
        )
        report = core.write_site(folder, files, lock_timeout=lock_timeout())
        if as_of is None and not quiet and day != today():
            say_behind(day)
        say(report.summary(len(chosen), day), quiet=quiet)
        if not quiet and store.count() == 0:
            say(EMPTY_STORE)
