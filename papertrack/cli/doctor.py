"""The doctor command: check the store for damage and repair it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from papertrack.cli.common import (
    EXIT_CODES,
    app,
    busy,
    errors,
    load_catalog,
    log,
    open_store,
    say,
)
from papertrack.cli.output import emit_json
from papertrack.errors import PapertrackError
from papertrack.text import counted, visible

if TYPE_CHECKING:
    from papertrack.doctor import Checkup, RepairReport
    from papertrack.store import Store
    from papertrack.topics import Catalog


def _overview(checkup: Checkup) -> str:
    unreadable = f" ({checkup.unreadable:,} unreadable)" if checkup.unreadable else ""
    return (
        f"Store {checkup.path}: {counted(checkup.papers, 'paper')} in "
        f"{counted(checkup.partitions, 'week file')}{unreadable}, "
        f"{counted(checkup.shards, 'id map shard')}."
    )


def _repair_lines(report: RepairReport) -> list[str]:
    from papertrack.doctor import name_some

    lines = [f"Found: {p.what()}." for p in report.before.problems]
    named: set[str] = set()
    for item in report.salvages:
        moved = f" ({item.moved:,} of them to the week of their date)" if item.moved else ""
        line = (
            f"Repaired {item.file}: salvaged {counted(item.salvaged, 'paper')}{moved}; "
            f"the damaged file is kept as {item.kept_at}"
        )
        if item.lost:
            line += f"; lost {len(item.lost):,}: {name_some(item.lost)}"
            named.update(item.lost)
        if item.lost_unnamed:
            line += (
                f"; lost {counted(item.lost_unnamed, 'more paper')} whose ids nothing names "
                "any more (index.json counted them)"
            )
        if item.mended:
            shown = [f"{pid}: {', '.join(fields)}" for pid, fields in item.mended.items()]
            line += (
                f"; kept {counted(len(item.mended), 'paper')} without the fields that were of "
                f"the wrong kind ({name_some(shown, 3)})"
            )
        if not item.lost and not item.lost_unnamed:
            line += "; nothing lost"
        lines.append(line + ".")
    if report.interrupted:
        named.update(report.interrupted)
        lines.append(
            f"Lost {counted(len(report.interrupted), 'paper')} an interrupted repair could "
            f"not salvage: {name_some(report.interrupted)}."
        )
    elsewhere = [pid for pid in report.lost if pid not in named]
    if elsewhere:
        lines.append(
            f"Lost {counted(len(elsewhere), 'paper')} the id map named but no week file held: "
            f"{name_some(elsewhere)}."
        )
    if report.rebuilt:
        lines.append(
            f"Rebuilt {', '.join(report.rebuilt)} from the week files (derived data: nothing lost)."
        )
    if report.merged:
        lines.append(
            f"Kept the newest copy of {counted(len(report.merged), 'paper')} stored in two "
            f"weeks: {name_some(report.merged)}."
        )
    if report.cleared:
        lines.append(
            f"Cleared what an interrupted write left: {', '.join(report.cleared)}"
            + (
                " (a copy of each temp file is kept in damaged/)."
                if any(not f.endswith(".dirty") for f in report.cleared)
                else "."
            )
        )
    if report.retagged:
        lines.append("Retagged every paper: index.json had lost the topic fingerprints.")
    elif report.moved:
        lines.append(_moved_line(report))
    return lines


def _moved_line(report: RepairReport) -> str:
    moves = ", ".join(f"{slug} +{g:,} -{lost:,}" for slug, (g, lost) in report.moved.items())
    return (
        "Retagged the stored papers for topics changed since they were tagged (a teach, "
        f"an edit or an upgrade of papertrack the papers had not caught up with): {moves}."
    )


def _home_problems(store: Store) -> list[str]:
    """What is wrong with papertrack's own files beside the store (topics.toml,
    config.toml, following.json, the digest's mark, taught examples): a broken
    topics.toml stopped every night's fetch while doctor said "No problems found".
    A repair does not touch them: they are the user's to fix."""
    from papertrack import config, paths, training
    from papertrack.cli.digest import following_file, state_file
    from papertrack.digest import load_following, load_state
    from papertrack.errors import PapertrackError
    from papertrack.topics import Catalog

    topics, settings = paths.user_topics_file(), paths.config_file()
    checks: list[tuple[Path, Callable[[], object]]] = [
        (topics, lambda: Catalog.load(paths.default_topics_file(), topics, lenient=True)),
        (settings, lambda: config.fetch_defaults(config.load(settings), settings)),
        (following_file(), lambda: load_following(following_file())),
        (state_file(), lambda: load_state(state_file())),
        (paths.user_examples_file(), lambda: training.load_examples(paths.user_examples_file())),
    ]
    problems: list[str] = []
    for path, check in checks:
        if not path.exists():
            continue
        try:
            done = check()
        except PapertrackError as exc:
            problems.append(str(exc).rstrip(".") + ".")
            continue
        for warning in getattr(done, "warnings", ()):
            problems.append(f"{path}: {warning}")
        if isinstance(done, Catalog):
            problems += _topic_problems(store, done)
    return problems


def _topic_problems(store: Store, catalog: Catalog) -> list[str]:
    """The categories of the user's topics that can match no stored paper: a typo
    made by hand (``cs.Al``) left a topic empty for good. Not judged without a
    readable store, whose papers from other feeds may hold categories arXiv lacks."""
    from papertrack import hints

    if not store.exists():
        return []
    try:
        return [note for topic in catalog.topics for note in hints.topic_notes(store, topic)]
    except PapertrackError:
        return []  # a damaged index: the store's checks say so


def _say_home_problems(problems: list[str]) -> None:
    for problem in problems:
        typer.echo(f"In your files: {visible(problem)}")


def _check(store: Store, as_json: bool) -> None:
    from papertrack.doctor import check_store

    home = _home_problems(store)
    with busy("Checking the store") as progress:
        checkup = check_store(store, progress)
    if as_json:
        emit_json({**checkup.to_dict(), "home_problems": home})
    elif checkup.exists:
        typer.echo(_overview(checkup))
        for problem in checkup.problems:
            typer.echo(problem.line())
    if not as_json:
        _say_home_problems(home)
    if home and not checkup.damage:
        them = "it" if len(home) == 1 else "them"
        raise PapertrackError(
            f"{counted(len(home), 'problem')} in papertrack's own files, as said above. "
            f"Fix {them} by hand ('papertrack doctor --repair' changes only the store)"
        )
    if not checkup.exists:
        say(f"No store at {store.path} yet: nothing to check.")
    elif checkup.damage:
        count = counted(len(checkup.damage), "problem")
        if any(p.kind == "unreadable" for p in checkup.damage):
            # A repair stops at a file it cannot read: pointing to it went in circles.
            raise PapertrackError(
                f"{count} found. Fix what cannot be read first, as said above, "
                "then run 'papertrack doctor' again"
            )
        them = "it" if len(checkup.damage) == 1 else "them"
        raise PapertrackError(f"{count} found. Run 'papertrack doctor --repair' to fix {them}")
    elif checkup.problems:
        say("No damage found: only work still to do, as said above.")
    else:
        say("No problems found.")


def _repair(store: Store, as_json: bool) -> None:
    from papertrack.doctor import repair_store

    home = _home_problems(store)
    catalog = load_catalog()
    with busy("Repairing the store") as progress:
        report = repair_store(store, catalog, progress=progress)
    after = report.after
    if as_json:
        emit_json({**report.to_dict(), "home_problems": home})
    elif report.before.exists:
        typer.echo(_overview(report.before))
        typer.echo("\n".join(_repair_lines(report)))
        for problem in after.problems:
            typer.echo(f"Still wrong: {problem.what()}.")
    if report.moved and not report.retagged:
        # Tags moved: kept in the log with what moved them, as a retag on read keeps them.
        log(_moved_line(report))
    if not report.before.exists:
        say(f"No store at {store.path} yet: nothing to repair.")
    elif after.problems and not all(p.kind.endswith("-search-index") for p in after.problems):
        raise PapertrackError(
            f"{counted(len(after.problems), 'problem')} "
            f"{'remains' if len(after.problems) == 1 else 'remain'} after the repair. "
            f"Keep {store.path} as it is and report this as a papertrack bug"
        )
    elif report.repaired or after.problems:
        count = report.lost_count
        lost = f"lost {counted(count, 'paper')}" if count else "nothing lost"
        say(f"Repaired: the store holds {counted(after.papers, 'paper')}; {lost}.")
        if report.lost:
            # Every id, not the first ten of the report: a repair run from cron is read
            # in the log, and there is no other place the ids are left.
            log(f"Lost in the repair: {', '.join(report.lost)}.")
        if after.problems:
            # The week files are whole; only the search index, which a full disk
            # stopped, is behind. "Report this as a papertrack bug" sent the user away.
            import shutil

            free = shutil.disk_usage(store.path).free
            raise PapertrackError(
                "the search index could not be rebuilt with "
                f"{free / 2**20:,.1f} MB free on the disk. Free some space and run "
                "'papertrack doctor --repair' again (until then, searches read every week "
                "file)"
            )
    else:
        say("No problems found: nothing to repair.")
    if home:
        if not as_json:
            _say_home_problems(home)
        raise PapertrackError(
            f"{counted(len(home), 'problem')} in papertrack's own files, which a "
            "repair leaves to you: fix them by hand, as said above"
        )


@app.command(epilog=EXIT_CODES)
def doctor(
    repair: Annotated[
        bool,
        typer.Option(
            "--repair",
            help="Fix what the check finds: salvage damaged week files (their bytes are kept "
            "in <store>/damaged/), rebuild the id map and index, name the papers lost.",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Check the store for damage; with --repair, fix it and report what was lost.

    The check reads every file of the store: each week file must hold whole paper
    records dated in its week, the id map must agree with the week files, the
    index must count what they hold, and no interrupted write may have left temp
    files. It waits for a running ingest to finish first, and exits with 1 when it
    finds a problem (one line each, naming the file). A .dirty marker of a write cut
    short is named but is no problem: the next command that writes finishes it. Your
    own files beside the store (topics.toml, config.toml, following.json, the
    digest's mark, taught examples) are checked too; a repair leaves them to you.

    Examples:

    \b
        papertrack doctor
        papertrack doctor --repair
        papertrack doctor --json | jq '.problems[].file'
    """
    with errors():
        # As every command that reads: a store --db or PAPERTRACK_DB names must be
        # there. A cron health check of a mistyped path said "nothing to check", exit 0.
        store = open_store()
        if repair:
            _repair(store, as_json)
        else:
            _check(store, as_json)
