"""Fetch papers from arXiv: the daily listing and API date ranges, politely and resumably.

Every page goes through the same parse → store path as ``papertrack ingest``.
Nothing here prints: progress goes to an optional callback and the result is a
:class:`FetchReport`. Failures arXiv is known for (HTTP 429 with no Retry-After,
503s, empty pages while ``totalResults`` promises more, cut-off bodies; see
docs/feeds.md, "arXiv API pages") are retried with exponential backoff and jitter; when the
tries run out, :class:`FetchError` says so and everything stored before is kept.
A checkpoint in the data home lets the same command continue where it stopped.
"""

from __future__ import annotations

import contextlib
import email.utils
import hashlib
import math
import random
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from papertrack import paths
from papertrack.errors import FeedError, FeedTooLargeError, PapertrackError, UsageError
from papertrack.files import Lock, LockBusyError, StateFile
from papertrack.ingest import GZIP_MAGIC
from papertrack.models import Paper, UpsertResult

# The UTC day, as arXiv dates are (submittedDate is in GMT); the CLI imports it from here.
from papertrack.momentum import today as today
from papertrack.text import counted

__all__ = [
    "API_CAP",
    "DEFAULT_API_URL",
    "DEFAULT_INTERVAL",
    "DEFAULT_LISTING_URL",
    "FetchError",
    "FetchProgress",
    "FetchReport",
    "FetchSettings",
    "api_query",
    "fetch_listing",
    "fetch_range",
]

DEFAULT_API_URL = "https://export.arxiv.org/api/query"
DEFAULT_LISTING_URL = "https://rss.arxiv.org/atom"
#: arXiv's terms of use: "no more than one request every three seconds".
DEFAULT_INTERVAL = 3.0
DEFAULT_RETRIES = 5
DEFAULT_PAGE_SIZE = 2000
#: The API serves slices of at most 2000 and at most 30,000 results per query.
MAX_PAGE_SIZE = 2000
API_CAP = 30000
#: No single wait between tries is longer than this (Retry-After included).
#: The most one page waits between its tries, in all, before the fetch gives up.
MAX_TOTAL_WAIT = 1800.0
MAX_BACKOFF = 300.0
# The state lock (paths.FETCH_STATE_LOCK) is held while the checkpoint or the
# listings file is read, changed and written back: fetches of other categories run
# at once on one home, and each rewrote the file the other had just changed (a
# finished run's checkpoint came back, and resumed a fetch that was done).
#: A lock held for one small read and write: a wait this long means a stuck process.
STATE_LOCK_TIMEOUT = 60.0

Upsert = Callable[[list[Paper]], UpsertResult]


class FetchError(PapertrackError):
    """arXiv could not be fetched after every try; what was stored before is kept."""


#: The least first wait before a retry, in seconds, unless a backoff is set.
MIN_BACKOFF = 1.0

#: The longest interval and timeout a fetch takes, in seconds.
MAX_SECONDS = 3600


@dataclass
class FetchSettings:
    """How to talk to arXiv. ``home`` holds the politeness lock and the checkpoint."""

    home: Path
    api_url: str = DEFAULT_API_URL
    listing_url: str = DEFAULT_LISTING_URL
    page_size: int = DEFAULT_PAGE_SIZE
    retries: int = DEFAULT_RETRIES
    interval: float = DEFAULT_INTERVAL
    timeout: float = 60.0
    #: First backoff in seconds (doubled per try); None means ``interval``, at least
    #: :data:`MIN_BACKOFF`.
    backoff: float | None = None
    sleep: Callable[[float], None] = time.sleep
    #: Wall-clock seconds: the politeness file is shared between processes.
    clock: Callable[[], float] = time.time
    jitter: Callable[[], float] = random.random
    #: Folder of the politeness file shared by all processes on the machine; None: ``home``.
    pace_dir: Path | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.page_size <= MAX_PAGE_SIZE:
            raise UsageError(
                f"page size {self.page_size} is out of range. Set --page-size or page_size "
                f"in config.toml to 1 to {MAX_PAGE_SIZE}"
            )
        if self.retries < 0:
            raise UsageError(
                f"retries {self.retries} is below 0. Set --retries or retries in config.toml "
                "to 0 or more"
            )
        # NaN compares false with everything: "nan < 0" would let it through and turn
        # politeness off; infinity would wait for ever.
        # Past an hour both are typos (1e308 overflowed the clock when waited for).
        if not (math.isfinite(self.interval) and 0 <= self.interval <= MAX_SECONDS):
            raise UsageError(
                f"interval {self.interval:g} is not a number of seconds up to {MAX_SECONDS:,}. "
                "Set --interval, PAPERTRACK_FETCH_INTERVAL or interval in config.toml to e.g. 3"
            )
        if self.backoff is not None and not (
            math.isfinite(self.backoff) and 0 <= self.backoff <= MAX_SECONDS
        ):
            raise UsageError(
                f"backoff {self.backoff:g} is not a number of seconds up to {MAX_SECONDS:,}. "
                "Set --backoff, PAPERTRACK_FETCH_BACKOFF or backoff in config.toml to e.g. 3"
            )
        if not (math.isfinite(self.timeout) and 0 < self.timeout <= MAX_SECONDS):
            raise UsageError(
                f"timeout {self.timeout:g} is not a number of seconds up to {MAX_SECONDS:,}. "
                "Set --timeout or timeout in config.toml to e.g. 60"
            )
        for name, url in (("api-url", self.api_url), ("listing-url", self.listing_url)):
            if "#" in url:
                # The query was appended after the fragment, which is never sent: the
                # server got a bare request, and the error blamed arXiv.
                from papertrack.net import said_url

                raise UsageError(
                    f"--{name} {said_url(url)} has a #fragment, which is never sent to the "
                    f"server. Remove it (--{name} or {name.replace('-', '_')} in config.toml)"
                )


#: Submission days from the first to the last, both included.
Span = tuple[date, date]


@dataclass
class FetchProgress:
    """One step of a fetch, for progress bars: a stored page, or a retry about to wait."""

    pages: int
    pages_total: int | None
    papers: int
    retry: str | None = None
    wait: float = 0.0


@dataclass
class FetchReport:
    """What a fetch did."""

    categories: tuple[str, ...]
    mode: str  # "listing" or "api"
    pages: int = 0
    pages_retried: int = 0
    retries: int = 0
    papers: int = 0
    new: int = 0
    updated: int = 0
    unchanged: int = 0
    skipped: int = 0
    resumed_at: int | None = None  # pages already done by an earlier run
    #: The submission days an API fetch asked for: its range's, and the windows a
    #: stopped run left (:func:`_resume_plan`).
    asked: list[Span] = field(default_factory=list)
    #: The latest time the server's answers gave (their ``Date`` header).
    server_time: datetime | None = None
    note: str | None = None
    warnings: list[str] = field(default_factory=list)
    #: What a run says but need not mail from cron: printed without --quiet, and
    #: always in the log.
    notes: list[str] = field(default_factory=list)

    def add(self, result: UpsertResult, papers: int) -> None:
        self.papers += papers
        self.new += result.new
        self.updated += result.updated
        self.unchanged += result.unchanged

    def summary(self) -> str:
        """One line: ``cs.AI, cs.CL: 412 new, 37 updated, 3 unchanged, 2 pages retried``."""
        head = ", ".join(self.categories)
        if self.note and not self.papers and not self.skipped:
            return f"{head}: {self.note}"
        retried = f", {self.pages_retried:,} page{'s' if self.pages_retried != 1 else ''} retried"
        # Entries without a usable id: counted as ingest counts them, never dropped unsaid.
        skipped = f", {self.skipped:,} skipped" if self.skipped else ""
        note = f" ({self.note})" if self.note else ""
        return (
            f"{head}: {self.new:,} new, {self.updated:,} updated, {self.unchanged:,} unchanged"
            f"{skipped}{retried if self.pages_retried else ''}{note}"
        )


# --------------------------------------------------------------------------- HTTP


class _Retry(Exception):
    """A failed try worth repeating; ``reason`` is for people."""

    def __init__(self, reason: str, retry_after: float | None = None, slow: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after
        #: A page that arrived too slowly to be whole within --timeout.
        self.slow = slow


class _Unfilled(Exception):
    """The empty page of a count arXiv is known to leave unfilled: the end of its
    window at once, not after every retry."""


def _retry_after(value: str | None, now: float) -> float | None:
    """Seconds from a Retry-After header: delta-seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():  # "²" is a digit to str.isdigit, not to float
        return float(value)
    moment = _server_time(value)
    return None if moment is None else max(0.0, moment.timestamp() - now)


#: What to do when a fetch lock is held too long. PAPERTRACK_LOCK_TIMEOUT, which a
#: lock's message names by default, sets neither fetch lock's wait.
_OTHER_FETCH = "Wait for the other fetch to finish (or stop it), then run this again"


class _Throttle:
    """One request at a time across every papertrack process, at most one every
    ``interval`` seconds, counted from the end of the one before: a page that takes
    10 s to arrive is followed by ``interval`` s of quiet, not by the next request at
    once.

    The time of the last request's end lives in ``<home>/fetch.lock``, which is
    flock-ed from the wait before a request to its end, so concurrent processes
    queue behind each other (arXiv's limit applies "to all of the machines under
    your control as a whole"). Let go when the request was sent, another process
    waited from that moment: with a page taking 10 s and an interval of 3 s, its
    request reached arXiv while the first was still open.
    """

    def __init__(self, settings: FetchSettings) -> None:
        self.settings = settings
        self.path = (settings.pace_dir or settings.home) / paths.FETCH_LOCK
        self._held: Lock | None = None

    def _lock(self) -> Lock:
        # The wait can be long when other processes queue, each request up to its
        # timeout: never time out on it sooner than ten of those.
        settings = self.settings
        return Lock(
            self.path,
            timeout=max(
                600.0, settings.interval * 100, (settings.timeout + settings.interval) * 10
            ),
            what="the fetch lock",
            place="PAPERTRACK_FETCH_LOCK_DIR",
            busy_fix=_OTHER_FETCH,
        )

    def _stamp(self, handle: Any) -> None:
        handle.seek(0)
        handle.truncate()
        handle.write(f"{self.settings.clock():.6f}\n".encode("ascii"))
        handle.flush()

    def wait(self) -> None:
        """Wait until no request is open and ``interval`` seconds have passed since the
        last one ended; the lock is then held until :meth:`done`."""
        settings = self.settings
        if self._held is not None:  # a request never marked done: its start stands
            self._held.release()
            self._held = None
        lock = self._lock()
        lock.acquire()
        try:
            handle = lock.handle
            handle.seek(0)
            raw = handle.read().decode("ascii", "replace").strip()
            try:
                last = float(raw) if raw else 0.0
            except ValueError:
                last = 0.0
            now = settings.clock()
            # A last request "in the future" is a clock stepped back (NTP after a
            # laptop resumed): wait one interval, not the step too. A step of 40 s
            # made the next fetch sleep 40 s in silence, holding the lock every
            # papertrack fetch on the machine waits for.
            last = min(last, now)
            delay = last + settings.interval - now
            if delay > 0:
                settings.sleep(delay)
            self._stamp(handle)  # its start, until done() stamps its end
        except BaseException:
            lock.release()
            raise
        self._held = lock

    def done(self) -> None:
        """Mark the end of a request (answered or not) and let the next one go."""
        lock, self._held = self._held, None
        if lock is None:
            return
        try:
            self._stamp(lock.handle)
        finally:
            lock.release()


def _get(url: str, timeout: float, now: float) -> tuple[int, bytes, datetime | None]:
    """GET ``url`` on a fresh connection; retryable failures raise :class:`_Retry`.
    Returns the status, the body and the time the server's ``Date`` header gives.

    ``timeout`` bounds the whole request, body included (see :mod:`papertrack.net`).
    """
    from papertrack import feeds, net

    try:
        with net.get(url, timeout=timeout, deadline=timeout) as response:
            body = response.read_body(feeds.MAX_FEED_BYTES)
            said = _server_time(response.headers.get("Date"))
    except net.NetError as exc:
        if exc.retryable:
            raise _Retry(exc.reason, slow=exc.slow) from None
        # A reason that says its own fix (a redirect papertrack does not follow) keeps
        # it alone: two fixes read as contradicting each other.
        fix = "" if ". " in exc.reason else ". Check the URL and your connection"
        raise FetchError(f"{exc.reason}{fix}") from None
    if body[:2] == GZIP_MAGIC:
        # Gzip that papertrack did not ask for (a proxy's Content-Encoding, a .gz
        # mirror), as ingest reads it: unpacked, never past the limit of a page.
        import zlib

        unpack = zlib.decompressobj(wbits=31)
        try:
            body = unpack.decompress(body, feeds.MAX_FEED_BYTES + 1)
        except zlib.error:
            raise _Retry("a malformed gzip body") from None
    code = response.status
    if code == 429 or code >= 500:
        detail = net.said(body.decode("utf-8", "replace").strip(), 40)
        reason = f"HTTP {code}" + (f" ({detail})" if detail and "<" not in detail else "")
        raise _Retry(reason, _retry_after(response.headers.get("Retry-After"), now))
    if code >= 400:
        if code == 400 and body.lstrip().startswith(b"<"):
            # The arXiv API sends its error feed with HTTP 400: parse it. Any other
            # answer of 4xx is no page of papers, whatever its body holds.
            return code, body, said
        raise FeedError(
            f"{net.said_url(url)} answered HTTP {code} {response.reason}. Check the URL"
        ) from None
    return code, body, said


def _server_time(value: str | None) -> datetime | None:
    """A ``Date`` header as an aware time; None when there is none or it is no date."""
    if not value:
        return None
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


class _Client:
    def __init__(self, settings: FetchSettings, report: FetchReport) -> None:
        self.settings = settings
        self.report = report
        self.throttle = _Throttle(settings)

    def page(
        self,
        url: str,
        label: str,
        check: Callable[[int, bytes], Any],
        on_retry: Callable[[str, float], None],
    ) -> Any:
        """Fetch ``url`` and ``check`` it, retrying what may pass on a later try."""
        settings = self.settings
        # --interval 0 (a mirror of one's own) asks for no pause between pages, not for
        # retrying a failing server within a hundredth of a second.
        base = max(settings.interval, MIN_BACKOFF) if settings.backoff is None else settings.backoff
        tries = settings.retries + 1
        reason = ""
        slow = False
        waited = 0.0
        for attempt in range(tries):
            self.throttle.wait()
            try:
                try:
                    status, body, dated = _get(url, settings.timeout, settings.clock())
                finally:
                    self.throttle.done()
                if dated is not None:
                    # The server's clock, for what this fetch can have brought: a
                    # client clock a month fast vouched for days not yet announced.
                    seen = self.report.server_time
                    self.report.server_time = dated if seen is None else max(seen, dated)
                result = check(status, body)
                if attempt:
                    self.report.pages_retried += 1
                return result
            except _Retry as exc:
                reason, slow = exc.reason, exc.slow
                if attempt + 1 >= tries:
                    break
                if exc.retry_after is not None:
                    # A Retry-After of 0 (or a date gone by) is no licence to
                    # retry sooner than the backoff's first wait.
                    delay = min(max(exc.retry_after, base), MAX_BACKOFF)
                    if exc.retry_after > 86_400:  # 400 digits read "asked to wait inf s"
                        reason += ", asked to wait more than a day, longer than papertrack waits"
                    elif exc.retry_after > MAX_BACKOFF:
                        asked = f"{exc.retry_after:,.0f} s"
                        reason += f", asked to wait {asked}, longer than papertrack waits"
                else:
                    # Exponential backoff with "equal jitter": half fixed, half random.
                    full = min(MAX_BACKOFF, max(base, 0.01) * 2**attempt)
                    delay = full / 2 + full / 2 * settings.jitter()
                if waited + delay > MAX_TOTAL_WAIT:
                    reason += f"; stopped waiting after {waited:,.0f} s in all"
                    break
                waited += delay
                self.report.retries += 1
                on_retry(reason, delay)
                settings.sleep(delay)
        done = self.report.pages
        if slow:
            # Waiting longer between tries does not make a page arrive faster.
            smaller = max(100, settings.page_size // 4)
            said = (
                f"arXiv gave {reason}"
                if reason.startswith("no ") or tries == 1
                else f"arXiv kept sending {reason}"
            )
            raise FetchError(
                f"{said} for {label} after {tries} "
                f"tr{'ies' if tries != 1 else 'y'}. Give each page longer (--timeout "
                f"{max(180, 3 * round(settings.timeout)):g})"
                + (
                    ""
                    if label == "the listing"
                    else f" or ask for smaller ones (--page-size {smaller})"
                )
            )
        stored = f"the {counted(done, 'page')} fetched before {'are' if done != 1 else 'is'} kept"
        if reason.startswith("the page before result"):
            # Not arXiv's passing trouble: running again meets the same page.
            kept = (
                f"{f'{stored}, but ' if done else ''}the server (or a proxy between) answers "
                "as if the start of each page were not asked for. Check --api-url, or "
                "fetch without the proxy"
            )
        else:
            kept = (
                f"{stored}; run the same command again to resume"
                if done
                else "run the same command again later"
                if label != "the listing"
                # A listing holds one day's papers: tomorrow's run will not bring these.
                else "run the same command again before the next listing (midnight US "
                "Eastern), or a later fetch names the day to fetch from the API"
            )
        raise FetchError(
            f"arXiv {'kept answering' if tries != 1 else 'answered'} {reason} for {label} "
            f"after {tries} tr{'ies' if tries != 1 else 'y'}; {kept}"
        )


# --------------------------------------------------------------------------- listing


_FEED_DATE_RE = re.compile(
    rb"<(?:\w+:)?(?:updated|pubDate|lastBuildDate|dc:date)>([^<]+)<", re.IGNORECASE
)


def _feed_moment(data: bytes) -> tuple[datetime | None, str | None]:
    """The feed's own date (its first ``updated``, ``pubDate`` … element) as a time,
    and as the text it was written in (None: none found)."""
    from papertrack.feeds.common import plausible_date

    match = _FEED_DATE_RE.search(data[:8192])
    if not match:
        return None, None
    text = match.group(1).decode("utf-8", "replace").strip()
    moment: datetime | None = None
    with contextlib.suppress(ValueError):
        moment = datetime.fromisoformat(text)
    if moment is None:
        with contextlib.suppress(TypeError, ValueError, IndexError):
            moment = email.utils.parsedate_to_datetime(text)
    if moment is None:
        return None, text or None
    # The date rule of the papers' dates: a listing dated in the future (or before
    # arXiv) would be recorded as fetched, and hide the days really missed until then.
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    if plausible_date(aware) is None:
        return None, None
    return moment, text


def _not_a_feed(body: bytes) -> str:
    """What a body that is no feed is, for a retry's reason: "a malformed body" was
    all fetch said of arXiv's maintenance page, where ingest named it."""
    from papertrack import net
    from papertrack.feeds.syndication import html_title

    text = body.strip()
    if not text:
        return "an empty answer"
    title = html_title(text[:4096])
    if title is not None:
        return f'an HTML page titled "{net.said(title)}"' if title else "an HTML page"
    return f'an answer that is no feed ("{net.said(text[:200].decode("utf-8", "replace"), 40)}")'


def fetch_listing(
    categories: Sequence[str],
    upsert: Upsert,
    settings: FetchSettings,
    *,
    progress: Callable[[FetchProgress], None] | None = None,
) -> FetchReport:
    """Fetch today's rss.arxiv.org listing of ``categories`` (one request) and store it.

    An empty listing is normal on arXiv's weekends: the report's ``note`` then says
    "no announcement on Saturday 2026-12-05". One dated Monday to Friday (a holiday,
    or a listing not rebuilt yet) is a warning, then recorded as fetched.

    Raises:
        FetchError: every try failed; FeedError: the answer is no feed.
    """
    from papertrack import feeds, net

    report = FetchReport(categories=tuple(categories), mode="listing")
    url = listing_address(settings.listing_url, categories)

    def check(status: int, body: bytes) -> tuple[feeds.ParsedFeed, bytes]:
        try:
            parsed = feeds.parse_feed(body, net.without_password(url))
        except FeedError as exc:
            if isinstance(exc, FeedTooLargeError):
                raise _too_large(url) from None
            if status >= 400:
                raise
            raise _Retry(_not_a_feed(body)) from exc
        if parsed.error:
            cut[:] = [parsed]  # its whole entries are kept if every try is cut off
            raise _Retry("a cut-off or malformed listing")
        if status >= 400:  # a feed of papers sent as an error is no listing
            raise FeedError(f"{net.said_url(url)} answered HTTP {status}. Check the URL")
        return parsed, body

    def on_retry(reason: str, wait: float) -> None:
        if progress is not None:
            progress(FetchProgress(report.pages, 1, report.papers, retry=reason, wait=wait))

    cut: list[feeds.ParsedFeed] = []
    try:
        parsed, body = _Client(settings, report).page(url, "the listing", check, on_retry)
    except FetchError as exc:
        if not cut or not cut[0].papers:
            raise
        # A listing is one day's papers, which no later listing brings: the entries
        # that arrived whole are stored (as ingest of it does), the day not recorded.
        whole = cut[0].papers
        report.add(upsert(whole), len(whole))
        day = _listing_day(whole, b"")
        raise FetchError(
            f"arXiv kept answering a cut-off listing after {settings.retries + 1} "
            f"tr{'ies' if settings.retries else 'y'}: the {counted(len(whole), 'paper')} "
            f"that arrived whole {'is' if len(whole) == 1 else 'are'} stored. For the rest, "
            "run the same command again "
            "before the next listing (midnight US Eastern), or fetch the day from the "
            f"API: {_api_fetch(categories, day)}"
        ) from exc
    report.pages = 1
    report.skipped += parsed.skipped
    report.warnings.extend(parsed.warnings + parsed.notices)
    day = _listing_day(parsed.papers, body)
    if not parsed.papers and parsed.skipped:
        # Not a holiday: entries came, and none could be read (arXiv changed its ids or
        # its layout). Said as an error every night, the day not recorded as fetched.
        named = ", ".join(net.said(i, 60) for i in parsed.skipped_ids[:3])
        of = f"of {day:%A} {day} " if day is not None else ""
        unread = FetchError(
            f"the listing {of}held {counted(parsed.skipped, 'entry', 'entries')} and "
            f"papertrack could read none of them (ids such as {named}), so nothing was "
            "stored. arXiv may have changed its listings: fetch the day from the API "
            f"instead ({_api_fetch(categories, day)}), and check for a newer papertrack"
        )
        unread.warnings = tuple(report.warnings)
        raise unread
    # An empty listing dated Monday to Friday: a holiday, or a listing served before
    # it was rebuilt. Taken silently for a holiday, its day's papers were never named:
    # it is said, with the fetch that brings them. It is recorded as fetched all the
    # same: left out, every later night named it again as a day "a run failed or did
    # not run" on, a holiday week's mail growing by a warning a night.
    empty_weekday = not parsed.papers and day is not None and day.weekday() < 5
    if parsed.papers:
        report.add(upsert(parsed.papers), len(parsed.papers))
    elif empty_weekday:
        assert day is not None
        report.warnings.append(
            f"the listing of {day:%A} {day} is empty: an arXiv holiday, or a listing "
            "not rebuilt yet. Unless it was a holiday, fetch that day from the API: "
            f"{_api_fetch(categories, day)}"
        )
    else:
        on = f"on {day:%A} {day}" if day is not None else "in this listing"
        report.note = f"no announcement {on} (arXiv announces nothing on weekends)"
    if day is not None:
        if StateFile(settings.home / paths.FETCH_LISTINGS).damaged():
            # Read as empty, it named no missed day, and was then written anew.
            report.warnings.append(
                f"{settings.home / paths.FETCH_LISTINGS} could not be read, so no listing day "
                "missed before this one can be named; it starts again from this listing's day"
            )
        missed = _missed_listings(settings.home, categories, day)
        if missed:
            report.warnings.append(_missed_warning(missed))
        elif missed is None and parsed.papers and not report.new:
            # (A listing older than the last one fetched, served late, may still
            # bring papers: that one was not fetched before.)
            report.note = (
                f"the listing of {day}, fetched before: rss.arxiv.org rebuilds its "
                "listings at midnight US Eastern"
            )
    if progress is not None:
        progress(FetchProgress(report.pages, 1, report.papers))
    return report


def _listing_day(papers: Sequence[Paper], body: bytes) -> date | None:
    """The day of a listing: its papers' announcement day (UTC; an old paper's new
    version is dated as ``updated``), else the feed's date, in UTC as theirs are."""
    days = [d.date() for p in papers if (d := p.announced or p.updated) is not None]
    if days:
        return max(days)
    moment, _ = _feed_moment(body)
    if moment is None:
        return None
    return (moment if moment.tzinfo is None else moment.astimezone(UTC)).date()


def _missed_listings(
    home: Path, categories: Sequence[str], day: date
) -> dict[str, list[date]] | None:
    """For each of ``categories``, the weekdays between the last listing that held it
    (fetched with any other categories) and ``day``'s, which no run fetched; records
    ``day`` for each. None: every one of them was fetched on ``day`` or later before.

    A listing holds one day's announcements only, so a day whose run failed (or did
    not run) is never in a later listing: its papers are only to be had from the
    API. Weekends have no listing; a holiday's empty one counts as fetched when a
    run fetched it (that run said it was empty), and is named here when none did
    (fetching it again costs only papers already stored). A day named is named
    again by every later listing until an API fetch brings its papers, for
    :data:`MISSED_KEPT_DAYS` after the listing that first named it. The file is a
    shortcut: one that cannot be read is empty, and one that cannot be written does
    not fail the fetch.
    """
    lasts: dict[str, date | None] = {}

    def seen() -> bool:  # the same listing again, or an older one served late
        return all(last is not None and last >= day for last in lasts.values())

    def record(known: dict[str, Any]) -> dict[str, Any] | None:
        lasts.update(_last_listings(known, categories))
        if seen():
            # A missed day's own listing, served late: no longer missed.
            late = False
            for cat in categories:
                named = _still_missed(known, cat)
                if day in named:
                    late = True
                    _keep_missed(known, cat, {d: n for d, n in named.items() if d != day})
            return known if late else None
        for cat, last in lasts.items():
            known[cat] = max(day, last or day).isoformat()
        return known

    state = StateFile(home / paths.FETCH_LISTINGS)
    recorded = False
    with contextlib.suppress(OSError, PapertrackError):
        state.update(record, _state_lock(home), indent=1)
        recorded = True
    if not recorded:
        # Not locked or written: what the file said still names the days missed.
        lasts = _last_listings(state.read(), categories)
    if seen():
        return None
    named_on: dict[str, dict[date, date]] = {}  # category -> missed day -> first named
    fetched = state.read()
    for cat, last in lasts.items():
        newest = max(day, last or day)  # an older listing served late moves nothing
        # Each day is named for a month from the listing that first named it.
        days = {
            d: min(first, newest)  # a day in the future (edited, a clock set wrong): now
            for d, first in _still_missed(fetched, cat).items()
            if (newest - first).days <= MISSED_KEPT_DAYS
        }
        if last is not None and last < day:
            # The whole gap, however long: cut at a month when first named, a machine
            # off for six weeks was told of its last month only, and the fetch it was
            # given left out the rest.
            for n in range(1, (day - last).days):
                days.setdefault(last + timedelta(days=n), newest)
        covered = _api_range(fetched, cat)
        kept = [
            d
            for d in sorted(days)
            if d.weekday() < 5 and d < newest and d != day and not _brought(covered, d)
        ]
        if kept:
            named_on[cat] = {d: days[d] for d in kept}

    def keep(known: dict[str, Any]) -> dict[str, Any]:
        for cat in categories:
            _keep_missed(known, cat, named_on.get(cat, {}))
        return known

    if recorded:
        with contextlib.suppress(OSError, PapertrackError):
            state.update(keep, _state_lock(home), indent=1)
    return {cat: sorted(days) for cat, days in named_on.items()}


#: Days a missed listing is named again, by every listing fetched after it, until an
#: API fetch brings its papers (counted from the listing that first named it, so a
#: long gap is named whole): said once, a cron mail lost or unread lost them.
MISSED_KEPT_DAYS = 30


def _missed_key(category: str) -> str:
    return f"missed {category}"


def _still_missed(known: dict[str, Any], category: str) -> dict[date, date]:
    """The listing days of ``category`` named as missed before (and not brought
    since), each with the day of the listing that first named it. Where that was
    not kept (a list an earlier version kept, a value damaged), the category's
    last listing day stands in for it, which drops no day sooner than before."""
    kept = known.get(_missed_key(category))
    if isinstance(kept, dict):
        pairs: Iterable[tuple[Any, Any]] = kept.items()
    elif isinstance(kept, list):
        pairs = ((text, None) for text in kept)
    else:
        return {}  # damaged: nothing to name again
    fallback = _last_listings(known, [category]).get(category)
    days = {}
    for text, first in pairs:
        try:
            day = date.fromisoformat(text)
        except (TypeError, ValueError):
            continue
        if not _plausible(day):
            continue  # damaged (0001-01-01 overflowed the day arithmetic)
        try:
            named = date.fromisoformat(first)
        except (TypeError, ValueError):
            named = fallback or day
        days[day] = max(day, named)
    return days


def _plausible(day: date) -> bool:
    """Whether ``day`` can be a listing's or a submission's: after arXiv began and
    far from the calendar's ends (a damaged file's dates overflowed arithmetic)."""
    return date(1991, 1, 1) <= day <= date(9000, 1, 1)


def _keep_missed(known: dict[str, Any], category: str, days: Mapping[date, date]) -> None:
    """Record ``days`` (missed day -> the day first named) as the missed days of
    ``category`` (none: the entry goes)."""
    if days:
        known[_missed_key(category)] = {
            d.isoformat(): first.isoformat() for d, first in sorted(days.items())
        }
    else:
        known.pop(_missed_key(category), None)


def _api_key(category: str) -> str:
    return f"api {category}"


def _api_range(known: dict[str, Any], category: str) -> tuple[date, date, date] | None:
    """The submission days the last whole API fetch of ``category`` covered, and the
    day of the last listing all of whose papers it brought (:func:`_listings_through`).
    A record from before that was kept has its last submission day for it."""
    try:
        days = [date.fromisoformat(d) for d in known[_api_key(category)]]
        first, last = days[0], days[1]
        through = days[2] if len(days) > 2 else last
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    if not all(map(_plausible, (first, last, through))):
        return None
    return first, last, through


def _brought(covered: tuple[date, date, date] | None, day: date) -> bool:
    """Whether an API fetch of ``covered`` brought the papers of the listing of ``day``."""
    if covered is None:
        return False
    first, _, through = covered
    return first <= day - timedelta(days=LISTING_REACH) and through >= day


#: Hours after midnight UTC by which the API serves the papers of that day's listing:
#: arXiv announces them at 20:00 US Eastern (00:00 UTC in summer, 01:00 in winter),
#: and the API serves a paper only once it is announced. How soon after, arXiv does
#: not say: hours to spare, as counting a fetch too early loses a day without a word,
#: while counting it too late only names the day again.
LISTING_SERVED_HOURS = 6


def _listings_through(last: date, started: datetime) -> date:
    """The day of the last listing all of whose papers an API fetch of submissions
    through ``last``, started at ``started`` (UTC), can have brought.

    A listing holds papers submitted through the day before it, announced that
    evening: a fetch that ran on a Tuesday afternoon has Tuesday's listing but none
    of Wednesday's, though it asked for papers submitted on Tuesday. Counted as
    bringing Wednesday's ("through the day before it"), a failed or missed
    Wednesday run went unnamed, and those papers were lost without a word.
    """
    served = (started - timedelta(hours=LISTING_SERVED_HOURS)).date()
    return min(last + timedelta(days=1), served)


def _now() -> datetime:
    """The time (UTC); tests set it."""
    return datetime.now(UTC)


def _note_api_range(
    home: Path, categories: Sequence[str], first: date, last: date, through: date
) -> None:
    """Keep the days a whole API fetch of ``categories`` covered, so that the next
    listing does not name the days it brought as missed (it told the user to run
    that very fetch). A shortcut, as the listings file is: never fails the fetch."""

    def record(known: dict[str, Any]) -> dict[str, Any]:
        for cat in categories:
            before = _api_range(known, cat)
            if before is not None and before[0] <= first <= before[1] + timedelta(days=1):
                first_day = before[0]  # one span with the fetch before it
                reach = max(through, before[2])
            else:
                first_day = first
                reach = through
            span = (first_day, max(last, first_day), reach)
            known[_api_key(cat)] = [day.isoformat() for day in span]
            # The missed days it brought are crossed off now: kept only in the span,
            # a later fetch of other days replaced it, and they were named again.
            named = _still_missed(known, cat)
            rest = {d: first for d, first in named.items() if not _brought(span, d)}
            if len(rest) != len(named):
                _keep_missed(known, cat, rest)
        return known

    with contextlib.suppress(OSError, PapertrackError):
        StateFile(home / paths.FETCH_LISTINGS).update(record, _state_lock(home), indent=1)


#: How many days before its own a ``--days`` run reaches back for the papers no
#: fetch asked for (a machine off for a week, a failed night); older days no fetch
#: asked for are named with the fetch that brings them. (The help of fetch --days
#: names it.)
DAYS_CATCH_UP = 31
#: Days of API coverage kept (by the day a span ends): a gap older than that is no
#: longer named, as a missed listing is named for a month.
COVERAGE_KEPT_DAYS = 4 * DAYS_CATCH_UP


def _coverage_key(category: str) -> str:
    return f"api days {category}"


def _coverage(known: dict[str, Any], category: str) -> tuple[date | None, list[Span]]:
    """The day API fetches of ``category`` began to be followed, and the submission
    days they brought for sure since, as sorted spans (:func:`_note_coverage`); a
    damaged record is none."""
    record = known.get(_coverage_key(category))
    if not isinstance(record, dict) or not isinstance(record.get("spans"), list):
        return None, []
    try:
        start = date.fromisoformat(record.get("from", ""))
    except (TypeError, ValueError):
        return None, []
    spans = []
    for pair in record["spans"]:
        try:
            low, high = (date.fromisoformat(d) for d in pair)
        except (TypeError, ValueError):
            continue
        if _plausible(low) and _plausible(high) and low <= high:
            spans.append((low, high))
    return (start if _plausible(start) else None), _union(spans)


def _note_coverage(
    home: Path, categories: Sequence[str], asked: Sequence[Span], through: date
) -> None:
    """Add the submission days a whole API fetch brought for sure to each of
    ``categories``' coverage: of each span it asked for, the days up to
    ``ANNOUNCED_WITHIN`` before ``through``, the last listing it brought (a paper
    sent later may be announced after it ran). Kept as spans, not one range: a
    fetch of other days (a --since by hand after days off) replaced the record of
    the nights before, and the gap between them went unnamed. The coverage starts
    with the first fetch noted; days before it (a backfill, a clock set months
    back) are no gap of the fetches that follow."""
    from papertrack.dates import ANNOUNCED_WITHIN

    sure = through - timedelta(days=ANNOUNCED_WITHIN)
    brought = [(low, min(high, sure)) for low, high in asked if low <= min(high, sure)]
    oldest = through - timedelta(days=COVERAGE_KEPT_DAYS)

    def record(known: dict[str, Any]) -> dict[str, Any] | None:
        for cat in categories:
            start, spans = _coverage(known, cat)
            start = max(start or min(low for low, _ in brought), oldest)
            kept = [(a, b) for a, b in _union([*spans, *brought]) if b >= start]
            # Updated, not replaced: it also keeps the gap named last (:func:`_days_gap`).
            entry = known.get(_coverage_key(cat))
            entry = entry if isinstance(entry, dict) else {}
            entry["from"] = start.isoformat()
            entry["spans"] = [[a.isoformat(), b.isoformat()] for a, b in kept]
            known[_coverage_key(cat)] = entry
        return known

    if brought:
        with contextlib.suppress(OSError, PapertrackError):
            StateFile(home / paths.FETCH_LISTINGS).update(record, _state_lock(home), indent=1)


def _union(spans: Sequence[Span]) -> list[Span]:
    """``spans`` merged where they overlap or touch, sorted."""
    merged: list[Span] = []
    for low, high in sorted(spans):
        if merged and low <= merged[-1][1] + timedelta(days=1):
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    return merged


def _unasked(
    known: dict[str, Any], categories: Sequence[str], first: date
) -> dict[str, list[date]]:
    """Category -> the days before ``first`` whose papers of it no API fetch brought
    for sure, since the coverage began (the days before a user's first fetch are
    none of its business) or :data:`COVERAGE_KEPT_DAYS` ago: a gap is named until it
    is that old. Categories without such days are left out."""
    holes: dict[str, list[date]] = {}
    for cat in categories:
        start, spans = _coverage(known, cat)
        if start is None or start >= first:
            continue
        days = [
            low + timedelta(days=n)
            for low, high in _subtract([(start, first - timedelta(days=1))], spans)
            for n in range((high - low).days + 1)
        ]
        if days:
            holes[cat] = days
    return holes


def _catch_up(known: dict[str, Any], categories: Sequence[str], first: date) -> date:
    """The first day a ``--days`` run whose own days start on ``first`` asks for: the
    first of the last :data:`DAYS_CATCH_UP` days before it whose papers no fetch
    brought for sure (:func:`_unasked`). A nightly ``--days 1`` on a machine off for
    a week asked for its last six days only, and the papers submitted before them
    were never asked for (673 of them, exit 0, no word)."""
    holes = _unasked(known, categories, first).values()
    near = [d for days in holes for d in days if (first - d).days <= DAYS_CATCH_UP]
    return min([first, *near])


def _days_gap(home: Path, categories: Sequence[str], first: date, day: date) -> str | None:
    """The warning, on ``day``, for the days before ``first`` (the first a ``--days``
    run asked for, after :func:`_catch_up`) whose papers no fetch brought for sure:
    too far back to catch up. A gap is named by every such run for
    :data:`DAYS_CATCH_UP` days from the one that first named it, as a listing names
    a missed day (said once, one cron mail lost or unread lost them), and then no
    more: one API fetch tried months before a cron began was named every night for
    four months. A later gap is named anew."""
    told: list[tuple[str, list[date]]] = []

    def name(known: dict[str, Any]) -> dict[str, Any] | None:
        holes = _unasked(known, categories, first)
        changed = False
        for cat, days in holes.items():
            record = known.get(_coverage_key(cat))
            if not isinstance(record, dict):
                continue
            named = record.get("named")
            since = None
            with contextlib.suppress(TypeError, ValueError):
                if isinstance(named, list) and named[0] == days[0].isoformat():
                    since = date.fromisoformat(named[1])
            if since is None:
                record["named"] = [days[0].isoformat(), day.isoformat()]
                changed = True
            elif (day - since).days > DAYS_CATCH_UP:
                continue
            told.append((cat, days))
        return known if changed else None

    state = StateFile(home / paths.FETCH_LISTINGS)
    try:
        state.update(name, _state_lock(home), indent=1)
    except (OSError, PapertrackError):
        if not told:  # its lock not had (a home no one may write): every gap is named
            told = list(_unasked(state.read(), categories, first).items())
    if not told:
        return None
    # Of the categories with days missing: another on the same line has none.
    low = min(days[0] for _, days in told)
    high = max(days[-1] for _, days in told)
    span = f"on {low}" if low == high else f"from {low} to {high}"
    cats = [cat for cat, _ in told]
    return (
        f"no fetch asked arXiv for all the papers of {', '.join(cats)} submitted "
        f"{span}, more than {DAYS_CATCH_UP} days before this --days run's days. Fetch them: "
        f"{_fetch_command(cats, f'--since {low}')}"
    )


def _last_listings(known: dict[str, Any], categories: Sequence[str]) -> dict[str, date | None]:
    """The day of the last listing fetched of each of ``categories`` (None: none)."""
    lasts: dict[str, date | None] = {}
    latest = datetime.now(UTC).date() + timedelta(days=2)
    for cat in categories:
        lasts[cat] = None
        with contextlib.suppress(TypeError, ValueError):
            last = date.fromisoformat(known.get(cat) or "")
            # A day in the future (kept by a version that trusted a feed's date) is
            # no listing fetched: it would hide every missed day until then.
            lasts[cat] = last if _plausible(last) and last <= latest else None
    return lasts


def _missed_warning(missed: dict[str, list[date]]) -> str:
    days = sorted({d for each in missed.values() for d in each})
    first, count = days[0], len(days)
    span = first.isoformat() if count == 1 else f"{count} days from {first} to {days[-1]}"
    return (
        f"no listing was fetched for {span} (a run failed or did not run), and a "
        "listing holds only its own day's papers. Fetch them from the API: "
        f"{_api_fetch(list(missed), first)}"
    )


#: How long before its listing's day a paper may have been submitted: an API fetch
#: from that many days before the day brings the listing's papers.
LISTING_REACH = 7


def _api_fetch(categories: Sequence[str], day: date | None) -> str:
    """The fetch that brings the papers of the listing of ``day`` from the API. Papers
    are announced a day or more after they are submitted (weeks, when held): a week
    before that listing takes them all; the ones already stored stay unchanged."""
    if day is None:
        return _fetch_command(categories, f"--days {LISTING_REACH}")
    return _fetch_command(categories, f"--since {day - timedelta(days=LISTING_REACH)}")


def _fetch_command(categories: Sequence[str], span: str) -> str:
    """``papertrack fetch`` of ``categories`` over ``span`` (a range option)."""
    return " ".join(["papertrack fetch", *(f"-c {c}" for c in categories), span])


# --------------------------------------------------------------------------- API ranges


#: The first day of arXiv (hep-th, August 1991): nothing was submitted before it.
ARXIV_OPENED = date(1991, 8, 1)


def api_query(categories: Sequence[str], first: date, last: date) -> str:
    """``search_query`` for papers of ``categories`` submitted from ``first`` to ``last`` (UTC)."""
    cats = " OR ".join(f"cat:{c}" for c in categories)
    if len(categories) > 1:
        cats = f"({cats})"
    return f"{cats} AND submittedDate:[{_day(first)}0000 TO {_day(last)}2359]"


def _day(day: date) -> str:
    """YYYYMMDD, the year in four digits (strftime's %Y gives 101 for the year 101)."""
    return f"{day.year:04d}{day.month:02d}{day.day:02d}"


def _too_large(url: str, paged: bool = False) -> FeedError:
    """The error for an answer larger than papertrack reads whole: not retried."""
    from papertrack import net
    from papertrack.feeds import MAX_FEED_BYTES

    fix = "Ask for fewer papers a page with --page-size" if paged else "Check --listing-url"
    return FeedError(
        f"the answer of {net.said_url(url)} is larger than {MAX_FEED_BYTES // (1024 * 1024)} "
        f"MB, more than papertrack reads from one page. {fix}"
    )


def _api_url(base: str, query: str, start: int, size: int) -> str:
    # Spaces as '+', parentheses encoded, ':' and '[ ]' literal, as in arXiv's API user manual.
    params = [
        ("search_query", query),
        ("sortBy", "submittedDate"),
        ("sortOrder", "ascending"),
        ("start", str(start)),
        ("max_results", str(size)),
    ]
    encoded = urllib.parse.urlencode(params, quote_via=urllib.parse.quote_plus, safe=":[]")
    return f"{base}{'&' if '?' in base else '?'}{encoded}"


def listing_address(base: str, categories: Sequence[str]) -> str:
    """The listing feed of ``categories`` under ``base``: the categories end its path,
    and a query it has (a mirror's key) stays the query, not glued onto."""
    parts = urllib.parse.urlsplit(base)
    path = parts.path.rstrip("/") + "/" + "+".join(categories)
    return urllib.parse.urlunsplit(parts._replace(path=path))


class _Checkpoint:
    """Resume state of API fetches, one entry per query, in ``<home>/fetch-checkpoint.json``."""

    def __init__(self, home: Path, key: str) -> None:
        self.path = home / paths.FETCH_CHECKPOINT
        self.key = key

    def _all(self) -> dict[str, Any]:
        return StateFile(self.path).read()

    def load(self) -> dict[str, Any] | None:
        state = self._all().get(self.key)
        return state if isinstance(state, dict) else None

    def save(self, state: dict[str, Any] | None) -> None:
        """Keep ``state`` for this fetch (None: it finished), and drop the entries of
        other fetches last saved more than :data:`CHECKPOINT_DAYS` ago."""
        now = today()

        def change(data: dict[str, Any]) -> dict[str, Any] | None:
            changed = state is not None or self.key in data
            if state is None:
                data.pop(self.key, None)
            else:
                data[self.key] = {**state, "saved": now.isoformat()}
            changed = _expire(data, now) or changed
            return data if changed else None

        StateFile(self.path).update(change, _state_lock(self.path.parent), indent=1)


#: A fetch's checkpoint not saved again in this many days is dropped: a cron job with
#: a moving range (--since '2 days ago') names a new fetch every night, and each
#: night it failed left an entry (and the lock that guards it) for good. Run again
#: later, such a fetch starts over and stores nothing twice.
CHECKPOINT_DAYS = 30


def _expire(data: dict[str, Any], now: date) -> bool:
    """Drop from ``data`` the entries saved (or, for an unfilled count's mark, seen)
    more than :data:`CHECKPOINT_DAYS` before ``now``; one an older papertrack saved
    undated is dated now, and goes in as many days. Whether ``data`` changed."""
    changed = False
    for key, entry in list(data.items()):
        if not isinstance(entry, dict):
            continue
        when = entry.get("saved", entry.get("seen"))
        try:
            day = date.fromisoformat(str(when))
        except ValueError:
            entry["saved"] = now.isoformat()
            changed = True
            continue
        if (now - day).days > CHECKPOINT_DAYS:
            del data[key]
            changed = True
    return changed


def _window_total(reported: int | None, state: dict[str, Any]) -> int:
    """How many results the window holds: a page's own positive count (counts drift
    during a long fetch, and a smaller one is taken), else the count an earlier page
    of the window reported. A page saying 0, or no count, after one said more is
    arXiv's empty-page glitch, not the end of the window."""
    return reported if reported else int(state.get("total", 0))


#: How long a count arXiv left unfilled makes a fetch take the next such page as the
#: end of its window at once, instead of failing the run first.
SHORT_COUNT_DAYS = 30


def _seen_short(mark: dict[str, Any] | None) -> bool:
    """Whether ``mark`` says this fetch met an unfilled count in the last
    :data:`SHORT_COUNT_DAYS` days."""
    try:
        seen = date.fromisoformat(str((mark or {})["seen"]))
    except (KeyError, TypeError, ValueError):
        return False
    return 0 <= (today() - seen).days <= SHORT_COUNT_DAYS


def _stuck_at(mark: Any, place: list[Any]) -> bool:
    """Whether the empty page at ``place`` (window days, offset) is where the run before
    stopped: the same window, at that offset or later (a window that ends today gains
    papers overnight, and its empty page moves on with them)."""
    if not isinstance(mark, list) or len(mark) != 3 or not isinstance(mark[2], int):
        return False
    return bool(mark[:2] == place[:2] and place[2] >= mark[2])


#: An unfilled count is taken as one (after one known) only when this many results,
#: or a fiftieth of the count, are missing at most, past the papers the window sent:
#: a whole window empty at result 0, or most of it, is arXiv's empty-page glitch,
#: and taken as the end it lost papers for good.
SHORTFALL = 10


def _unfilled(start: int, total: int) -> bool:
    """Whether an empty page at ``start`` of ``total`` results reads as a count arXiv
    left unfilled rather than its passing glitch."""
    return start > 0 and total - start <= max(SHORTFALL, total // 50)


def _next_window(state: dict[str, Any]) -> None:
    """Done with the first window of ``state``: the next starts from its first result."""
    state["windows"].pop(0)
    state["start"] = 0
    state.pop("total", None)
    state.pop("stuck", None)
    state.pop("last_page", None)


def _page_key(papers: Sequence[Paper]) -> str:
    """A short key of a page's paper ids, whatever their order."""
    joined = "\n".join(sorted(p.arxiv_id for p in papers))
    return hashlib.sha1(joined.encode()).hexdigest()[:16]


def _state_lock(home: Path) -> Lock:
    return Lock(
        home / paths.FETCH_STATE_LOCK,
        STATE_LOCK_TIMEOUT,
        "the lock of the fetch's state files",
        busy_fix=_OTHER_FETCH,
    )


def _valid_state(state: dict[str, Any] | None) -> bool:
    """Whether a saved checkpoint can be resumed from; a damaged one is ignored (the
    fetch starts over, and stores nothing twice)."""
    if state is None:
        return False
    windows = state.get("windows")
    span = state.get("range")
    if not (
        isinstance(windows, list)
        and all(isinstance(w, list) and len(w) == 2 for w in windows)
        and isinstance(span, list)
        and len(span) == 2
        and all(isinstance(state.get(k), int) and state[k] >= 0 for k in ("start", "pages"))
    ):
        return False
    try:  # every day an ISO date: "2026-13-45" or a number stopped the fetch
        for day in (*span, *(d for w in windows for d in w)):
            date.fromisoformat(day)
    except (TypeError, ValueError):
        return False
    return True


def _subtract(spans: list[Span], cut: list[Span]) -> list[Span]:
    """The days of ``spans`` that are in no span of ``cut`` (inclusive date ranges), in order."""
    result: list[Span] = []
    for low, high in spans:
        pieces = [(low, high)]
        for c_low, c_high in cut:
            next_pieces = []
            for p_low, p_high in pieces:
                if c_high < p_low or c_low > p_high:
                    next_pieces.append((p_low, p_high))
                    continue
                if p_low < c_low:
                    next_pieces.append((p_low, c_low - timedelta(days=1)))
                if c_high < p_high:
                    next_pieces.append((c_high + timedelta(days=1), p_high))
            pieces = next_pieces
        result.extend(pieces)
    return sorted(result)


def _unnamed(key: str) -> str:
    """``key`` without its range option ("--days 3"): the fetch's categories, page size
    and API, as older papertracks keyed its checkpoint."""
    return key.rsplit(" --", 1)[0]


def _adopt_unnamed(
    home: Path, key: str, first: date, last: date, checkpoint: _Checkpoint
) -> dict[str, Any] | None:
    """The checkpoint an older papertrack kept for this fetch, moved under ``key``.

    Those were keyed without the range option ("--days 3"), which ``key`` ends with:
    after an upgrade, a stopped backfill started again at its first page and its
    checkpoint stayed for good. One whose range spans as many days as this run's
    (the same --days or --backfill, on a later day) is this fetch's.
    """
    if _unnamed(key) == key:
        return None
    older = _Checkpoint(home, _unnamed(key))
    state = older.load()
    if not _valid_state(state):
        return None
    assert state is not None  # for mypy: _valid_state said so
    low, high = (date.fromisoformat(day) for day in state["range"])
    if (high - low) != (last - first):
        return None
    checkpoint.save(state)
    older.save(None)
    return state


def _resume_plan(first: date, last: date, state: dict[str, Any]) -> tuple[list[Span], int]:
    """What is left of [first, last] after an earlier, interrupted run, and where to start.

    The earlier run may have asked for another range (``--days 7`` moves with the
    date): only the days it finished are skipped, every other day of the new range
    is fetched, and so is every window the earlier run left, first the one it
    stopped in, at the same offset. A window the new range no longer reaches is
    still fetched: only the same range option resumes a checkpoint, so its days
    were asked for. Dropped, a nightly ``--days 1`` after six days of failures lost
    the papers of the first failed night's window for good, and said nothing.
    """
    pending = [(date.fromisoformat(a), date.fromisoformat(b)) for a, b in state["windows"]]
    saved = (date.fromisoformat(state["range"][0]), date.fromisoformat(state["range"][1]))
    finished = _subtract([saved], pending)
    if not pending:
        return _subtract([(first, last)], finished), 0
    # Continue the window the earlier run stopped in, with the same query and offset,
    # even where it reaches outside the new range: extra papers are harmless,
    # refetching its finished pages is not.
    return [*pending, *_subtract([(first, last)], [*finished, *pending])], int(state["start"])


def fetch_range(
    categories: Sequence[str],
    first: date,
    last: date,
    upsert: Upsert,
    settings: FetchSettings,
    *,
    progress: Callable[[FetchProgress], None] | None = None,
    run: str = "",
    on_resume: Callable[[int], None] | None = None,
    catch_up: bool = False,
) -> FetchReport:
    """Fetch every paper of ``categories`` submitted from ``first`` to ``last`` from the API.

    ``catch_up`` (a ``--days`` run, which moves with the date): also ask for the
    papers no fetch asked for since the last API fetch of ``categories``, up to
    :data:`DAYS_CATCH_UP` days before ``first`` (said in the report's notes); a
    longer gap is named in its warnings, with the fetch that closes it.

    ``run`` names the range as the user asked for it ("--days 1", "--backfill 12"):
    only a run of that name resumes this one's checkpoint. Keyed by categories alone,
    a nightly ``--days 1`` took over a stopped ``--backfill 4``: it fetched the
    backfill's window instead of its own two days, then deleted the backfill's
    checkpoint, whose other windows were lost.

    Windows whose query exceeds the API's 30,000-result cap are split in halves by
    date; each window is paged in ``settings.page_size`` slices, sorted by submission
    date. A checkpoint after each stored page lets the same call resume.

    Raises:
        FetchError: a page failed every try (the pages before it are stored);
        FeedError: arXiv answered with an error feed (not retried).
        FetchRunning: the same fetch runs in another process.
    """
    if last < first:
        raise UsageError(f"the date range {first} to {last} is empty. Check --since")
    if first < ARXIV_OPENED:
        raise UsageError(
            f"the date range starts on {first}, before arXiv opened ({ARXIV_OPENED}). "
            "Start it later: --since 1991-08-01, or fewer --days"
        )
    cats = tuple(categories)
    report = FetchReport(categories=cats, mode="api")
    size = settings.page_size
    digest = hashlib.sha1(settings.api_url.encode()).hexdigest()[:8]
    # Keyed without the dates, so that a run resumed on a later day (when --days or
    # --backfill end today) still skips what the interrupted run finished.
    key = f"api {'+'.join(sorted(cats))} size={size} {digest}" + (f" {run}" if run else "")
    lock = _run_lock(settings.home, key)
    started = _now()
    try:
        if catch_up:
            # Read under the run's lock: a run that finds the same fetch running says
            # nothing of days it will not fetch.
            reach = _catch_up(StateFile(settings.home / paths.FETCH_LISTINGS).read(), cats, first)
            if reach < first:
                report.notes.append(
                    f"Also asking for the papers submitted from {reach} to "
                    f"{first - timedelta(days=1)}: no fetch asked for all of them after "
                    "the last one."
                )
                first = reach
        done = _fetch_windows(cats, first, last, upsert, settings, key, report, progress, on_resume)
        # What the fetch can have brought, by the server's clock when it is behind ours.
        server = report.server_time
        moment = min(started, server) if server else started
        through = _listings_through(last, moment)
        _note_api_range(settings.home, cats, first, last, through)
        _note_coverage(settings.home, cats, report.asked, through)
        if catch_up:
            # After this fetch is noted: the windows a stopped run left count as asked.
            gap = _days_gap(settings.home, cats, first, moment.date())
            if gap is not None:
                report.warnings.append(gap)
        return done
    except PapertrackError as exc:
        # What the pages stored before the failure found (a window taken as ended,
        # dates dropped) is still to be said: one of them names the fetch to run.
        exc.warnings = (*exc.warnings, *report.warnings)
        raise
    finally:
        with contextlib.suppress(OSError, PapertrackError):  # tidying never fails a fetch
            _sweep_run_locks(settings.home, lock)
        lock.release()


def _run_lock_name(key: str) -> str:
    return paths.FETCH_RUN_LOCKS.replace("*", hashlib.sha1(key.encode()).hexdigest()[:12])


def _sweep_run_locks(home: Path, held: Lock) -> None:
    """Delete the run locks no checkpoint needs, this run's (``held``) included: each
    range option names its own (--since 2026-12-01, then 12-02, ...), and a cron job
    with a moving --since left one file in the data home a night.

    A lock is deleted while held, so no run holds it then. A run that opened it
    before and locks it after holds a deleted file, as a third run started in the
    same few milliseconds may hold a new one: then both fetch, as before the run
    locks, and the checkpoint keeps what each stored.
    """
    kept = {_run_lock_name(key) for key in StateFile(home / paths.FETCH_CHECKPOINT).read()}
    for path in home.glob(paths.FETCH_RUN_LOCKS):
        if path.name in kept:
            continue
        if path == held.path:
            with contextlib.suppress(OSError):
                path.unlink()
            continue
        other = Lock(path, 0, "the lock of a fetch's checkpoint")
        try:
            other.acquire()
        except PapertrackError:
            continue  # a fetch running now
        try:
            with contextlib.suppress(OSError):
                path.unlink()
        finally:
            other.release()


class FetchRunning(PapertrackError):
    """The same fetch (categories, range option) is running in another process."""


def _run_lock(home: Path, key: str) -> Lock:
    """The lock of one fetch's checkpoint, held while it runs.

    Cron firing while last night's long fetch still ran: the second run took the
    live checkpoint for a stopped one ("Resuming after 5 pages fetched by an earlier
    run") and asked arXiv for every page left a second time.
    """
    lock = Lock(home / _run_lock_name(key), 0, "the lock of this fetch's checkpoint")
    try:
        lock.acquire()
    except LockBusyError:
        raise FetchRunning(
            "the same fetch is already running in another papertrack process, which will "
            "store what this one would. Let it finish"
        ) from None
    return lock


def _fetch_windows(
    cats: tuple[str, ...],
    first: date,
    last: date,
    upsert: Upsert,
    settings: FetchSettings,
    key: str,
    report: FetchReport,
    progress: Callable[[FetchProgress], None] | None,
    on_resume: Callable[[int], None] | None,
) -> FetchReport:
    """The pages of :func:`fetch_range`, its run's lock held."""
    from papertrack import feeds, net

    size = settings.page_size
    checkpoint = _Checkpoint(settings.home, key)
    saved = checkpoint.load()
    if saved is None:
        saved = _adopt_unnamed(settings.home, key, first, last, checkpoint)
    state: dict[str, Any] = {"windows": [[first.isoformat(), last.isoformat()]], "start": 0}
    state["pages"] = 0
    if saved is not None and _valid_state(saved):
        todo, offset = _resume_plan(first, last, saved)
        report.resumed_at = int(saved["pages"])
        if on_resume is not None and report.resumed_at:
            on_resume(report.resumed_at)  # said at the start of a long backfill, not its end
        state = {
            "windows": [[a.isoformat(), b.isoformat()] for a, b in todo],
            "start": offset,
            "pages": int(saved["pages"]),
        }
        total = saved.get("total")
        if offset and isinstance(total, int) and not isinstance(total, bool) and total > 0:
            state["total"] = total  # the count the window it continues reported
        if saved.get("stuck") is not None:
            state["stuck"] = saved["stuck"]
        if offset and isinstance(saved.get("last_page"), str):
            state["last_page"] = saved["last_page"]  # the page before the one to fetch
    state["range"] = [first.isoformat(), last.isoformat()]
    # Not the windows a stopped run finished: when it ran, papers of their last days
    # may not have been announced yet. Counted as not asked, they are asked again.
    report.asked = [(date.fromisoformat(a), date.fromisoformat(b)) for a, b in state["windows"]]
    # A count arXiv never filled on an earlier run of this fetch: arXiv's count stays
    # wrong for weeks at a time, and a nightly run failed every other night, each
    # failed run's mark deleted by the next run's success.
    # Kept per categories, size and API, not per range option: a cron line with a
    # moving --since is a new command every night.
    short_counts = _Checkpoint(settings.home, f"{_unnamed(key)} short counts")
    seen_short = _seen_short(short_counts.load())
    marked_before = seen_short
    client = _Client(settings, report)
    pages_total: int | None = None

    def notify(retry: str | None = None, wait: float = 0.0) -> None:
        if progress is not None:
            progress(FetchProgress(report.pages, pages_total, report.papers, retry, wait))

    # The page before, in this window, as its ids' key: kept in the checkpoint, so that
    # a resumed run knows it too (a server ignoring start moved each night's run on
    # by one repeated page, as if resumed).
    seen: str | None = state.get("last_page") if state["start"] else None
    while state["windows"]:
        low, high = (date.fromisoformat(d) for d in state["windows"][0])
        start: int = state["start"]
        place = [*state["windows"][0], start]
        if not start:
            seen = None
        emptied = [False]  # whether the last answer was the empty page of the glitch
        counted = [0]  # the count the empty page was answered with
        query = api_query(cats, low, high)
        url = _api_url(settings.api_url, query, start, size)
        label = f"{', '.join(cats)} {low}..{high} from result {start}"

        def check(
            status: int,
            body: bytes,
            start: int = start,
            url: str = url,
            emptied: list[bool] = emptied,
            counted: list[int] = counted,
            seen: str | None = seen,
            exact: bool = state.get("stuck") == place,
            near: bool = seen_short or _stuck_at(state.get("stuck"), place),
        ) -> feeds.ParsedFeed:
            try:
                parsed = feeds.parse_feed(body, net.without_password(url))
            except FeedError as exc:
                if isinstance(exc, FeedTooLargeError):
                    raise _too_large(url, paged=True) from None
                if status >= 400 or str(exc).startswith("arXiv API error"):
                    raise
                raise _Retry(_not_a_feed(body)) from exc
            if parsed.error:
                raise _Retry("a cut-off or malformed page")
            if status >= 400:  # a feed of papers sent as an error is no page of them
                raise FeedError(f"{net.said_url(url)} answered HTTP {status}. Check the URL")
            total = _window_total(parsed.total_results, state)
            emptied[0] = False
            if not parsed.papers and not parsed.skipped and start < min(total, API_CAP):
                # arxiv.py #43: a valid but empty page although more results exist (also
                # when this page says there are none, after an earlier page said more).
                emptied[0] = True
                counted[0] = total
                if exact or (near and _unfilled(start, total)):
                    # Known: every retry cost the interval and backoff again (19 s a
                    # night with --interval 0, a minute or more by default).
                    raise _Unfilled
                raise _Retry(f"an empty page although {total:,} results are reported")
            if start and len(parsed.papers) > 1 and _page_key(parsed.papers) == seen:
                # A server (or a caching proxy) that ignores start sent the page before
                # again: walking on counted the same papers "unchanged" up to the count.
                raise _Retry(f"the page before result {start} again")
            return parsed

        try:
            parsed = client.page(url, label, check, notify)
        except FetchError:
            if emptied[0]:
                # The count may be arXiv's passing glitch: the next run tries this page
                # again, and is told where it stopped. (A page taken as the end was
                # raised as _Unfilled at its first answer, below.)
                state["stuck"] = place
                if _unfilled(start, counted[0]):
                    # Marked for the next run of these categories, whatever its range
                    # option: with a moving --since each night is another command, no
                    # run met this page again, and every night failed.
                    short_counts.save({"seen": today().isoformat()})
            # Kept also when no page was stored yet: a --days run ends today, and the
            # days a failed night asked for were dropped from the next night's range,
            # their papers never fetched and nothing said.
            checkpoint.save(state)
            raise
        except _Unfilled:
            # A second run in a row at the same empty page, or a run of a fetch whose
            # count arXiv left unfilled lately: the count is wrong, and stopping here
            # kept every later run (and a cron job's digest) from getting past it. The
            # window ends where its papers did.
            reported = counted[0] or _window_total(None, state)
            why = (
                "on two runs"
                if _stuck_at(state.get("stuck"), place)
                else "as on an earlier run"
                if marked_before
                else "as another window of this run did"
            )
            # Said once as a warning; after that, arXiv's count is known to run a few
            # high for these categories, and a cron job mailed it every night.
            (report.notes if why == "as on an earlier run" else report.warnings).append(
                f"{', '.join(cats)} {low}..{high}: arXiv reports "
                f"{f'{reported:,}' if reported else 'more'} results but sent none past "
                f"result {start:,}, {why}; taken as the end of that window (if papers of "
                f"it are missing later: {_fetch_command(cats, f'--since {low}')})"
            )
            seen_short = True
            short_counts.save({"seen": today().isoformat()})
            _next_window(state)
            state["pages"] = int(state["pages"]) + 1
            checkpoint.save(state if state["windows"] else None)
            continue
        # (A mark of this window stays while it is paged: its empty page moves on
        # with the papers it gained overnight. The next window drops it.)
        seen = _page_key(parsed.papers)
        total = _window_total(parsed.total_results, state)
        received = len(parsed.papers) + parsed.skipped
        report.pages += 1
        report.skipped += parsed.skipped
        report.warnings.extend(parsed.warnings + parsed.notices)
        if parsed.papers:
            report.add(upsert(parsed.papers), len(parsed.papers))
        if total > API_CAP and low < high:
            # Too many for one query: split the window by date and page each half.
            mid = low + (high - low) // 2
            halves = [[low.isoformat(), mid.isoformat()]]
            halves.append([(mid + timedelta(days=1)).isoformat(), high.isoformat()])
            state["windows"][0:1] = halves
            state["start"] = 0
            state.pop("total", None)
        else:
            if total > API_CAP and start == 0:
                report.warnings.append(
                    f"{query}: {total:,} results on one day exceed the API's cap of {API_CAP:,}; "
                    f"only the first {API_CAP} are fetched"
                )
            # The next page starts after what this one held: arXiv sometimes sends
            # fewer entries than asked for (a page of 200 for 500), and a step of a
            # whole page size skipped the rest for good. Without any count of results,
            # a full page means there may be more.
            following = start + received
            if (parsed.total_results is None and not total) or (received and total < following):
                # No count, or one this very page contradicts (0 results on a page of
                # 30): a full page means there may be more.
                more = received >= size and following < API_CAP  # a server ignoring start
            else:
                more = received > 0 and following < min(total, API_CAP)
            if more:
                state["start"] = following
                state["last_page"] = seen
                if total:
                    state["total"] = total
                    pages_total = report.pages + -(-(min(total, API_CAP) - following) // size)
            else:
                _next_window(state)
        state["pages"] = int(state["pages"]) + 1
        checkpoint.save(state if state["windows"] else None)
        notify()
    if not state["windows"]:
        checkpoint.save(None)  # also when a resumed run found nothing left to fetch
    return report
