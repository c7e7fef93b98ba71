"""Commands to follow topics and get digests: follow, unfollow, following, digest."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from papertrack import paths
from papertrack.cli.common import (
    EXIT_CODES,
    JsonOnlyOpt,
    JsonOpt,
    OutputOpt,
    QuietOpt,
    app,
    complete_followed,
    complete_topic,
    errors,
    fresh_tags,
    load_catalog,
    log,
    open_store,
    output_path,
    pick_format,
    say,
    warn_if_stale,
)
from papertrack.cli.output import emit_json
from papertrack.errors import PapertrackError, UsageError
from papertrack.files import lock_timeout
from papertrack.text import counted, json_text, one_line, visible

if TYPE_CHECKING:
    from papertrack.digest import Digest, DigestState
    from papertrack.momentum import Momentum
    from papertrack.store import Store
    from papertrack.topics import Catalog, Topic

TopicsArg = Annotated[
    list[str],
    typer.Argument(
        metavar="TOPIC...", help="Topic names or slugs, any case.", autocompletion=complete_topic
    ),
]


def following_file() -> Path:
    return paths.home() / paths.FOLLOWING_FILE


def state_file() -> Path:
    return paths.home() / paths.DIGEST_STATE_FILE


def lock_file() -> Path:
    return paths.home() / paths.DIGEST_LOCK


def is_followed(slug: str) -> bool:
    """Whether ``slug`` is in following.json (False when that file cannot be read)."""
    from papertrack.digest import load_following

    try:
        return slug in load_following(following_file())[0]
    except PapertrackError:
        return False


def followed_topics(catalog: Catalog, slugs: Sequence[str] | None = None) -> list[Topic]:
    """The followed topics still in the catalog, in following order: of ``slugs``, or
    of following.json when not given."""
    from papertrack.digest import load_following
    from papertrack.errors import UnknownTopicError

    topics = []
    for slug in load_following(following_file())[0] if slugs is None else slugs:
        try:
            topics.append(catalog.find(slug))
        except UnknownTopicError:
            if slug in catalog.skipped:
                # A slip in its entry (warned of above), not a topic gone: unfollowing
                # it, as said before, lost when it was followed.
                say(
                    f"Warning: you follow {slug!r}, whose entry in your topics file is "
                    "skipped (see above); it is left out until that entry is fixed."
                )
                continue
            say(
                f"Warning: you follow {slug!r}, which is no longer a topic. "
                f"Run 'papertrack unfollow {slug}'."
            )
    return topics


# --------------------------------------------------------------------------- follow


@app.command(epilog=EXIT_CODES)
def follow(topics: TopicsArg, quiet: QuietOpt = False) -> None:
    """Follow topics: 'papertrack digest' then shows their new papers.

    Examples:

    \b
        papertrack follow llm-agent-training
        papertrack follow "GUI Agents" llm-world-models
    """
    from papertrack import digest as core

    with errors(), _digest_lock():
        catalog = load_catalog()
        chosen = [catalog.find(t) for t in topics]  # every name checked before writing
        slugs, times = core.load_following(following_file())
        now = datetime.now(UTC)
        lines = []
        for topic in chosen:
            if topic.slug in slugs:
                lines.append(f"Already following {topic.name} ({topic.slug}).")
            else:
                slugs.append(topic.slug)
                times[topic.slug] = now
                lines.append(f"Following {topic.name} ({topic.slug}).")
        core.save_following(following_file(), slugs, times)  # saved before it is said
        if _digested_before() and any(line.startswith("Following") for line in lines):
            lines.append(
                f"The next digest shows the papers of the last {core.FIRST_DIGEST_DAYS} days "
                "in what you just followed, not every one since your first digest."
            )
        for line in lines:
            say(line, quiet=quiet)


@contextlib.contextmanager
def _digest_lock() -> Iterator[None]:
    """The digest lock, held by follow and unfollow from reading following.json to
    writing it: of two follows at once, each adds its topic (one was lost before)."""
    from papertrack.files import Lock

    with Lock(lock_file(), lock_timeout(), "the digest lock"):
        yield


def _digested_before() -> bool:
    """Whether a digest was made before (False when its state cannot be read: the
    digest itself says so)."""
    from papertrack import digest as core

    try:
        return core.load_state(state_file()).last is not None
    except PapertrackError:
        return False


@app.command(epilog=EXIT_CODES)
def unfollow(
    topics: Annotated[
        list[str],
        typer.Argument(
            metavar="TOPIC...",
            help="Topic names or slugs, any case.",
            autocompletion=complete_followed,
        ),
    ],
    quiet: QuietOpt = False,
) -> None:
    """Stop following topics.

    Examples:

    \b
        papertrack unfollow llm-agent-training
        papertrack unfollow "GUI Agents"
    """
    from papertrack.digest import load_following, save_following
    from papertrack.topics import slugify

    with errors(), _digest_lock():
        slugs, times = load_following(following_file())
        catalog = load_catalog()
        drop: list[str] = []
        for name in topics:
            # A followed slug whose topic was since removed can still be unfollowed, by
            # its name in any case too ("Zebra Agents" for zebra-agents).
            known = [s for s in (name.strip(), slugify(name)) if s in slugs]
            slug = known[0] if known else catalog.find(name).slug
            drop.append(slug)
        names = {t.slug: t.name for t in catalog.topics}
        for slug in dict.fromkeys(drop):
            # Named as follow names it ("Following GUI Agents (gui-agents)."); a removed
            # topic by its slug alone.
            named = f"{names[slug]} ({slug})" if slug in names else slug
            say(f"Unfollowed {named}." if slug in slugs else f"Not following {named}.", quiet=quiet)
        save_following(following_file(), [s for s in slugs if s not in drop], times)


@app.command(epilog=EXIT_CODES)
def following(as_json: JsonOnlyOpt = False) -> None:
    """List the topics you follow, in the order the digest shows them.

    Examples:

    \b
        papertrack following
        papertrack following --json | jq -r '.[].topic'
    """
    from papertrack.digest import load_following

    with errors():
        catalog = load_catalog()
        slugs = load_following(following_file())[0]
        topics = followed_topics(catalog, slugs)
        found = {t.slug: t for t in topics}
        if as_json:
            # A followed slug no topic has is listed too ("missing": true), as the
            # digest warns of it: a script checking its follows never saw it;
            # "skipped": its entry in the topics file has an error.
            data = [
                {"topic": slug, "name": found[slug].name, "missing": False, "skipped": False}
                if slug in found
                else {
                    "topic": slug,
                    "name": None,
                    "missing": True,
                    "skipped": slug in catalog.skipped,
                }
                for slug in slugs
            ]
            emit_json(data)
            return
        for slug in slugs:
            # Every follow, as --json lists them: "You follow no topic" after a warning
            # about the one you follow said two things at once.
            if slug in found:
                typer.echo(f"{one_line(found[slug].name)} ({one_line(slug)})")
            else:
                gone = "skipped: its entry has an error" if slug in catalog.skipped else "gone"
                typer.echo(f"{one_line(slug)} ({gone})")
        if not slugs:
            say("You follow no topic. Run 'papertrack follow TOPIC'.")


# --------------------------------------------------------------------------- digest


class DigestFormat(StrEnum):
    text = "text"
    markdown = "markdown"
    html = "html"
    json = "json"


@app.command(epilog=EXIT_CODES)
def digest(
    fmt: Annotated[
        DigestFormat,
        typer.Option(
            "--format", "-f", help="Plain text (for mail), Markdown, HTML (a mail body), or JSON."
        ),
    ] = DigestFormat.text,
    as_json: JsonOpt = False,
    since: Annotated[
        str | None,
        typer.Option(
            "--since",
            "-s",
            help="Papers dated on or after this day, shown before or not: 2026-08-01, "
            "'1 week ago'.",
            show_default=False,
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show the digest without moving the mark.")
    ] = False,
    empty_ok: Annotated[
        bool,
        typer.Option("--empty-ok", help="Print an empty digest when there is nothing new."),
    ] = False,
    output: OutputOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Show the new papers of every followed topic since the last digest.

    Papers come newest first under their topic, with the topic's momentum
    sentence. A paper of several followed topics appears once, under the first
    one followed, with its other topics listed. A paper shown by one digest is
    never shown by another (new versions and re-fetches included) unless --since
    asks for it. The first digest ever shows the papers dated within the last 7
    days. --dry-run leaves the mark where it is. An empty digest prints nothing
    and exits 0 (with --empty-ok: the digest saying nothing is new, in the format
    asked for). With -o, the file is always replaced, by an empty digest when
    nothing is new, so a cron job never mails an old one again.

    Examples:

    \b
        papertrack digest
        papertrack digest --format markdown -o digest.md
        papertrack digest --format html -o digest.html
        papertrack digest --since '1 week ago' --dry-run
        papertrack digest --empty-ok | mail -s 'arXiv digest' me@example.org
    """
    from papertrack import digest as core
    from papertrack.dates import parse_date
    from papertrack.files import (
        Lock,
        all_or_nothing,
        is_stdout,
        write_output,
        writes_into,
    )

    # What a signal leaves: into a stream, the mark is put back (the next digest
    # shows the papers again); into a file, nothing is written or marked.
    with errors(interrupted="This digest is not marked as shown: the next one shows its papers."):
        target = output_path(output)
        now = datetime.now(UTC)
        start = parse_date(since, now=now) if since is not None else None
        if start is not None and start.date() > now.date() and not quiet:
            say(f"Note: --since {start.date()} is after today: no paper is dated then yet.")
        catalog = load_catalog()
        # The topics and when each was followed, from one read: an unfollow between
        # two reads left a topic without its time, and its papers since the first
        # digest all came.
        slugs, followed = core.load_following(following_file())
        topics = followed_topics(catalog, slugs)
        if not topics and slugs:
            # Each was named above; following something that is gone is no usage slip.
            if any(slug in catalog.skipped for slug in slugs):
                raise PapertrackError(
                    "every topic you follow is skipped or gone (each is named above). Fix "
                    "the entries of your topics file that the warnings name"
                )
            raise PapertrackError(
                "no topic you follow is a topic any more (each is named above). Follow "
                "another with 'papertrack follow TOPIC', or put the topic back"
            )
        if not topics:
            raise UsageError("you follow no topic. Run 'papertrack follow TOPIC' first")
        # One digest at a time: read state, build, show, save state. Two at once would
        # both see the same papers as new.
        # A dry run changes nothing, so it needs no lock (and works on a read-only home).
        lock = None if dry_run else Lock(lock_file(), lock_timeout(), "the digest lock")
        if lock is not None:
            lock.acquire()
            _clear_killed_marks(state_file())
        try:
            now = datetime.now(UTC)  # after any wait for the lock
            state = core.load_state(state_file())
            store = open_store()
            fresh_tags(store, catalog)
            behind = warn_if_stale(store, now.date())
            window = start if start is not None else core.window_start(state, now)
            every = catalog.fingerprints()
            # A followed topic whose entry in topics.toml is skipped for an error (a
            # default's stands in for it meanwhile) keeps the definition it was last
            # shown by: its default's, recorded, made the mended entry "redefined" and
            # set its papers aside.
            prints = {t.slug: every[t.slug] for t in topics if t.slug not in catalog.skipped}
            redefined = state.redefined(prints)
            # Kept for the next digest: a --since digest sets nothing aside, so it keeps
            # the definitions as they were (recorded, the next digest brought a redefined
            # topic's older papers); so does a followed topic skipped now (a typo in
            # topics.toml), until it is back.
            if start is not None:
                kept = {s: state.definitions[s] for s in slugs if s in state.definitions}
            else:
                kept = {
                    s: prints[s] if s in prints else state.definitions[s]
                    for s in slugs
                    if s in prints or s in state.definitions
                }
            result, measured = _collect(
                store, topics, followed, state, now, window, start, redefined
            )
            names = {t.slug: t.name for t in catalog.topics}
            # Said on stderr only for a digest written to a file: one on standard
            # output (a cron job's mail) ends with the same line, and cron mailed this
            # too. The log has it either way: a mail lost, it says what was passed over.
            to_file = target is not None and not is_stdout(target)
            for slug, name, count, since_day in result.set_aside():
                from papertrack.dates import shown_day

                # Counted are its papers not shown yet and older than where it now
                # starts: taken by the new definition, or fetched late.
                note = (
                    f"Note: {name} changed since the last digest (taught, "
                    f"redefined or upgraded), so it starts as if just followed: "
                    f"{counted(count, 'paper')} of it dated before "
                    f"{shown_day(since_day)} and not shown yet "
                    f"{'is' if count == 1 else 'are'} not shown as new"
                    f"{'' if dry_run else ', and marked as shown'}. "
                    f"'papertrack latest {slug}' lists them."
                )
                if to_file:
                    say(note, quiet=quiet)
                else:
                    log(note)
            # -o /dev/stdout is standard output too: an empty digest prints nothing there.
            # A digest that sets papers aside is not empty: with -q, what it says of
            # them reached no reader, while the papers were marked as shown.
            quiet_empty = (
                result.empty
                and not result.passed_by
                and not empty_ok
                and (target is None or is_stdout(target))
            )
            if result.empty and behind is not None and behind < window.date():
                # A store that is behind (warned of above): the digest counts from
                # today, and printed nothing more, where `latest` counts back from the
                # newest paper. The way to its last papers is said.
                from datetime import timedelta

                from papertrack.dates import shown_day

                week = (behind - timedelta(days=6)).isoformat()
                say(
                    f"Note: nothing is dated from {shown_day(window.date())} on. "
                    f"'papertrack digest --since {week} --dry-run' shows the store's "
                    "last week.",
                    quiet=quiet,
                )
            chosen = pick_format(fmt, as_json)
            text = "" if quiet_empty else _render(result, chosen, names, measured)
            data = text.encode("utf-8")
            # A file is written (to a temp file beside it) before the mark is saved, and
            # both are put in place together: a digest that cannot be written (no such
            # folder, a full disk) marks nothing, and one that is written is marked.
            # Into a stream (stdout, a pipe, a device) the new mark is written to its
            # temp file first: one that cannot be written stops the digest before anyone
            # reads it. It is put in place once the digest is written: a kill -9 (the
            # OOM killer, `timeout -s KILL`) while a slow reader took it had marked
            # 1,613 papers shown with 296 delivered. A write that fails (a full disk
            # under `> file`, a closed stdout) marks nothing, so those papers are not
            # lost; nor does a reader that stops early (`| head`, a mail command that
            # dies): what it did not read comes again next time.
            into = target is None or writes_into(target)
            whole = True
            try:
                with contextlib.suppress(_Unread), all_or_nothing():
                    if target is not None and not into:
                        whole = write_output(target, data)
                    if not dry_run:
                        core.save_state(state_file(), state.after(result, store.newest_day(), kept))
                    if target is None:
                        sys.stdout.write(text)
                        sys.stdout.flush()
                    elif into:
                        whole = write_output(target, data)
                        if not whole:
                            # Its reader stopped before the end (-o /dev/stdout, a FIFO):
                            # the new mark is dropped with the group, never put in place
                            # (put in place, then back, a SIGTERM between the two kept it).
                            raise _Unread
                if not whole:
                    _log_unread(dry_run)
            except (OSError, PapertrackError, KeyboardInterrupt) as exc:
                # Ctrl-C, SIGTERM or SIGHUP (cron's timeout, a shutdown) while a slow
                # reader took the digest (804 papers were once marked shown, 25
                # delivered): the new mark was never put in place.
                if isinstance(exc, BrokenPipeError):
                    _log_unread(dry_run)
                raise
            count = len(result.arxiv_ids())
            plural = "s" if count != 1 else ""
            if quiet_empty:
                # The log only: cron mails nothing for an empty digest, and the morning
                # log could not tell "ran and found nothing" from "did not run".
                log(f"{core.nothing_new(result)}: nothing written")
            if whole and not quiet_empty:
                # In the log with -q too, and for `digest | mail` (standard output,
                # where nothing is said): a digest the mail lost is traced to its day.
                # visible(): a line break in a file name forged a line of the log.
                where = "standard output" if target is None else visible(target)
                marked = " (a dry run: nothing marked as shown)" if dry_run else ""
                said = f"Wrote a digest of {count:,} paper{plural} to {where}{marked}"
                if not count:
                    # "0 papers" read as a digest that lost its papers.
                    what = "a digest of papers set aside" if result.passed_by else "an empty digest"
                    said = f"{core.nothing_new(result)}: wrote {what} to {where}"
                    said += marked
                if target is None:
                    log(said)
                else:
                    say(said, quiet=quiet)
        finally:
            if lock is not None:
                lock.release()


def _log_unread(dry_run: bool) -> None:
    """Trace in the log a digest whose reader stopped before its end (`| head`): not
    an error, so not said on stderr, and it left no line at all."""
    log(
        "The digest's reader stopped before its end: nothing is marked as shown, and "
        "the next digest shows those papers again"
        if not dry_run
        else "The dry run's reader stopped before its end"
    )


def _clear_killed_marks(path: Path) -> None:
    """Delete the temp files of the mark ``path`` that killed digests left (a mark is
    written to one before the digest, and put in place after it; the digest lock is
    held, so no live digest is writing one)."""
    from papertrack.files import temp_files

    for stray in temp_files(path.parent):
        if stray.name.startswith(f".{path.name}."):
            with contextlib.suppress(OSError):
                stray.unlink()


class _Unread(Exception):  # noqa: N818 - a signal inside the digest, not an error
    """The digest's reader stopped before its end: its mark is not to be put in place."""


def _collect(
    store: Store,
    topics: list[Topic],
    followed: dict[str, datetime],
    state: DigestState,
    now: datetime,
    window: datetime,
    start: datetime | None,
    redefined: set[str],
) -> tuple[Digest, dict[str, Momentum]]:
    """The digest of ``topics`` (followed at the times ``followed``) since ``window``,
    and each topic's momentum today."""
    from papertrack import digest as core
    from papertrack import momentum
    from papertrack.cli.momentum import measure_topic

    candidates = {t.slug: store.latest(t.slug, limit=None, since=window) for t in topics}
    # As the other views measure (the stale store is warned of already): as of today,
    # "8 new papers" sat over "No data for the last four weeks".
    today = momentum.today(now)
    day = momentum.default_day(store.newest_day() if store.exists() else None, today)
    # The newest days holding no paper yet (a Monday's digest, say) are the store's,
    # so one topic tells: the digest has no --as-of to end its windows at the newest
    # paper, as momentum's note says to, so it measures as of that day, and says so
    # ("As of Dec 4:").
    probed = day
    probe = measure_topic(store, topics[0], day, momentum.DEFAULT_WINDOW, momentum.DEFAULT_WEEKS)
    if probe.unlisted_days and probe.newest_day is not None:
        day = probe.newest_day
    measured = {
        t.slug: probe  # measured already, as of the same day
        if t is topics[0] and day == probed
        else measure_topic(store, t, day, momentum.DEFAULT_WINDOW, momentum.DEFAULT_WEEKS)
        for t in topics
    }
    # With its cautions ("No data for 26 of the 28 days …"): a digest's "down 53%"
    # from a store a week old read as news without them.
    # A store that is behind is measured as of its newest paper: said, or "the last
    # four weeks" read as the four weeks to today.
    from papertrack.dates import shown_day

    when = [] if day == today else [f"As of {shown_day(day)}:"]
    sentences = {
        slug: " ".join([*when, momentum.describe(m), *momentum.notes(m)])
        for slug, m in measured.items()
    }
    result = core.build_digest(
        [(t.slug, t.name) for t in topics],
        candidates,
        state,
        now,
        since=start,
        momentum=sentences,
        followed=followed,
        redefined=redefined,
    )
    return result, measured


def _render(
    result: Digest, fmt: DigestFormat, names: dict[str, str], measured: dict[str, Momentum]
) -> str:
    from papertrack import digest as core

    if fmt is DigestFormat.json:
        objects = {slug: m.to_dict() for slug, m in measured.items()}
        return json_text(core.digest_dict(result, objects), indent=2) + "\n"
    if fmt is DigestFormat.markdown:
        return core.render_markdown(result, names)
    if fmt is DigestFormat.html:
        from papertrack.digest_html import render_html

        weeks = {s: [(w.start, w.count) for w in m.weeks] for s, m in measured.items()}
        partial = {s: bool(m.weeks) and not m.weeks[-1].complete for s, m in measured.items()}
        return render_html(result, names, weeks, partial)
    return core.render_text(result, names)
