"""The static site: a page and an Atom feed per topic, and an index of them, from the store.

:func:`gather` reads what the pages show (momentum from the index, the latest
papers and the related topics from the newest week files, read once for every
topic), :func:`render_site` turns it into files (pure: the same store and day
give the same bytes, so no generated-at stamp is written anywhere), and
:func:`write_site` puts them in a folder.

Feed text is data: pages are rendered by the HTML digest's Jinja2 environment
(autoescaping on) after :func:`papertrack.text.one_line` drops control, bidi and
invisible characters; links are arXiv's own pages or the site's pages, never a
URL a feed gave (but an http(s) link of a non-arXiv entry); feeds are built with
ElementTree by :func:`papertrack.export.atom_entry`. Each page also carries a
Content-Security-Policy that allows no script at all.

Writing (:func:`write_site`): every file is written to a temp file beside it and
renamed over the old one (:func:`papertrack.files.write_atomic`), so a reader, or
a kill, sees a whole old file or a whole new one, never half of one. Files are
written in an order that never leaves a link to a missing page, wherever a kill
stops it: first the manifest naming every file about to exist; then a stub page
("being updated", linking only to the index) for each new page, so that every
page linked to exists; then the feeds and pages, ``index.html`` last; then the
pages leaving the site become stubs, and only then are they removed; last the
manifest of this run. A file whose bytes are unchanged is not rewritten. A
folder is claimed only when it is new, empty, or already a site
(``papertrack-site.json``), and only files that manifest lists are ever replaced
or removed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import SplitResult, quote, urlsplit

from papertrack import momentum as core
from papertrack.dates import shown_day, shown_week
from papertrack.digest import link
from papertrack.errors import StoreError, UsageError
from papertrack.models import Paper, paper_date_key
from papertrack.related import Related, related_topics, shared_counts
from papertrack.text import newest_of, one_line, plus_more

if TYPE_CHECKING:
    from papertrack.digest_html import Chart
    from papertrack.store import Store
    from papertrack.topics import Topic

__all__ = [
    "DEFAULT_LIMIT",
    "LOCK",
    "MARKER",
    "SiteReport",
    "SiteTopic",
    "base_url_of",
    "feed_name",
    "gather",
    "page_name",
    "render_site",
    "write_site",
]

#: The file that makes a folder a papertrack site, listing every file papertrack wrote.
MARKER = "papertrack-site.json"
#: Held while a site is written, so two runs (cron overlapping a manual one) take turns.
LOCK = ".papertrack-site.lock"
SITE_FORMAT = 1
DEFAULT_LIMIT = 20
#: Feed text longer than this is cut on pages (only hostile or broken feeds have it).
TITLE_CHARS = 1000
ABSTRACT_CHARS = 10_000
SHOWN_NAMES = 3
#: The topic page's chart (CSS pixels; it shrinks to fit a phone): room above the
#: bars for their counts, below them for the week labels and 'so far'.
LARGE = {"bar_width": 30, "gap": 8, "height": 96, "top": 16, "label_height": 30}
#: The index's small chart: the digest's.
SMALL_HEIGHT = 48


# --------------------------------------------------------------------------- names


def web_address(text: str, option: str, fix: str) -> SplitResult:
    """``text`` split as an ``http(s)://host/...`` address a feed may link to.

    Refused: any other scheme (``javascript:``, ``file:``), no host (``https:///x``,
    as an unset shell variable leaves it), credentials, which every feed would
    publish, and spaces or control characters, none of which belong in a link.

    Raises:
        UsageError: ``text`` is not such an address; the message names ``option``.
    """
    shown = repr(one_line(text)) if text.isprintable() else "given"
    if not text.isprintable() or any(c.isspace() for c in text):
        raise UsageError(f"{option} {shown} holds spaces or control characters. {fix}")
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 (raises ValueError for a port that is not a number)
    except ValueError:
        raise UsageError(f"{option} {shown} is not a web address. {fix}") from None
    if "@" in parts.netloc:
        raise UsageError(
            f"{option} {shown} holds a user name or password, which every feed would publish. {fix}"
        )
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise UsageError(f"{option} {shown} is not a web address with a host. {fix}")
    return parts


def base_url_of(text: str) -> str:
    """``text`` as the address the site is published at: ``http(s)://host[:port]/path/``.

    The scheme is lowered and a missing final ``/`` added. Refused: what
    :func:`web_address` refuses, and a query or fragment (the file names would
    land inside them).

    Raises:
        UsageError: ``text`` is not such an address.
    """
    fix = "Use the folder's web address, e.g. https://example.org/papers/"
    parts = web_address(text, "--base-url", fix)
    if parts.query or parts.fragment or text.endswith(("?", "#")):
        raise UsageError(
            f"--base-url {one_line(text)!r} has a query or fragment, which the file names "
            f"would follow. {fix}"
        )
    path = parts.path if parts.path.endswith("/") else parts.path + "/"
    return f"{parts.scheme.lower()}://{parts.netloc}{path}"


def _stem(slug: str) -> str:
    # A slug is lower-case letters, digits and '-': '_' is never in one, so the
    # renamed 'index' topic cannot collide with another topic's page.
    return f"{slug}_" if slug == "index" else slug


def page_name(slug: str) -> str:
    """The file name of a topic's page: ``SLUG.html``."""
    return f"{_stem(slug)}.html"


def feed_name(slug: str) -> str:
    """The file name of a topic's Atom feed: ``SLUG.xml``."""
    return f"{_stem(slug)}.xml"


def _href(name: str) -> str:
    return quote(name)


# --------------------------------------------------------------------------- gathering


@dataclass(frozen=True, slots=True)
class SiteTopic:
    """What one topic's page and feed show."""

    slug: str
    name: str
    description: str
    momentum: core.Momentum
    #: The topic's papers dated up to the as-of day (undated ones included).
    total: int
    #: Its latest papers, newest first.
    papers: tuple[Paper, ...]
    #: The topics whose papers overlap most with its own.
    related: tuple[Related, ...]


def _day_of(paper: Paper) -> date | None:
    moment = paper.paper_date
    return moment.astimezone(UTC).date() if moment else None


def gather(
    store: Store,
    topics: Sequence[Topic],
    as_of: date,
    *,
    limit: int = DEFAULT_LIMIT,
    window: int = core.DEFAULT_WINDOW,
    weeks: int = core.DEFAULT_WEEKS,
    known: Collection[str] | None = None,
) -> list[SiteTopic]:
    """Every topic's momentum, latest papers and related topics as of ``as_of``.

    Papers dated after ``as_of`` are left out. Related topics count the papers
    shared in the weeks the chart shows (the store keeps no all-time pair counts,
    and reading every week file of a large store would take minutes); only
    topics of ``known`` (default: ``topics``) are listed as related.

    Week files are read newest first, once for all topics: every week of the
    chart, then older weeks only while a topic that the index says has papers
    there still lacks ``limit`` of them.

    Raises:
        UsageError: ``as_of`` with ``weeks`` reaches past the calendar.
    """
    from papertrack.store import UNDATED

    index = store.index()
    days, counts = index.days, index.counts
    try:
        measured = {
            t.slug: core.measure_topic(
                days, t.slug, t.name, as_of=as_of, window=window, weeks=weeks
            )
            for t in topics
        }
    except ValueError:
        raise UsageError(
            f"--as-of {as_of} reaches past the calendar (year 1 to 9999). Choose another date"
        ) from None
    chart_first = core.chart_first(as_of, weeks)
    first_key, last_key = chart_first.isoformat(), core.monday(as_of).isoformat()
    found: dict[str, list[Paper]] = {t.slug: [] for t in topics}
    tag_lists: list[tuple[str, ...]] = []
    for week in store.weeks():  # newest first, 'undated' last
        dated = week != UNDATED
        if dated and week > last_key:
            continue
        in_chart = dated and week >= first_key
        short = [s for s, got in found.items() if len(got) < limit]
        needy = {s for s in short if counts.get(s, {}).get(week, 0)}
        if not in_chart and not needy:
            if not short:
                break
            continue
        for paper in store.search_week(week):
            day = _day_of(paper)
            if day is not None and day > as_of:
                continue
            if in_chart and day is not None:
                tag_lists.append(paper.tags)
            for tag in paper.tags:
                if tag in needy:
                    found[tag].append(paper)
    shared = shared_counts(tag_lists)
    among = set(known) if known is not None else set(found)
    result = []
    for topic in topics:
        papers = sorted(found[topic.slug], key=paper_date_key, reverse=True)[:limit]
        total = core.papers_through(days.get(topic.slug, {}), as_of)
        total += counts.get(topic.slug, {}).get(UNDATED, 0)
        result.append(
            SiteTopic(
                slug=topic.slug,
                name=topic.name,
                description=topic.description,
                momentum=measured[topic.slug],
                total=total,
                papers=tuple(papers),
                related=tuple(related_topics(shared, topic.slug, 3, among)),
            )
        )
    return result


# --------------------------------------------------------------------------- rendering


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit].rstrip()}… [{len(text) - limit:,} more characters]"


def _change(m: core.Momentum) -> tuple[str, str]:
    """('+145%', 'up'), ('-30%', 'down'), ('0%', 'flat'), ('new', 'new') or ('–', 'none')."""
    pct = m.change_pct
    if pct is None:
        return ("new", "new") if m.current.count and m.previous.covered_days else ("–", "none")
    if pct == 0:
        return "0%", "flat"
    return f"{pct:+d}%", "up" if pct > 0 else "down"


def _chart(m: core.Momentum, large: bool) -> Chart:
    from papertrack.digest_html import chart, label_weeks

    weeks = [(w.start, w.count) for w in m.weeks]
    partial = [not w.complete for w in m.weeks]
    current = [w.current for w in m.weeks]
    if large:
        drawn = chart(
            weeks,
            bar_width=LARGE["bar_width"],
            gap=LARGE["gap"],
            height=LARGE["height"],
            label_height=LARGE["label_height"],
            top=LARGE["top"],
            partial=partial,
            current=current,
        )
        # The digest's labels (every other week), under the site's own axis: at 10 px
        # one a week ran into each other and the first was cut at the chart's edge.
        starts = [start for start, _ in weeks]
        return replace(drawn, labels=label_weeks(starts, LARGE["bar_width"], LARGE["gap"]))
    return chart(weeks, height=SMALL_HEIGHT, label_height=0, partial=partial, current=current)


def _momentum(m: core.Momentum, large: bool) -> dict[str, Any]:
    change, trend = _change(m)
    return {
        "sentence": core.describe(m),
        "notes": core.notes(m),
        "footer": core.footer(m),
        "change": change,
        "trend": trend,
        "current": f"{m.current.count:,}",
        "window": core.window_phrase(m.window_weeks),
        # The dark bars are the weeks the window overlaps: its first day, when not a
        # Monday, says why they add up to more than the sentence's count (98 to 75).
        "window_from": (
            shown_week(m.current.first, m.as_of)
            if m.weeks and m.current.first not in {w.start for w in m.weeks}
            else ""
        ),
        "chart": _chart(m, large),
        # A dashed bar only when a week is counted so far (an --as-of on a Sunday has none).
        "so_far": any(not w.complete for w in m.weeks),
        # Where the bars stand: the chart's height less the room for week labels.
        "baseline": LARGE["top"] + LARGE["height"] if large else SMALL_HEIGHT,
    }


def _paper(paper: Paper, pages: Mapping[str, str], names: Mapping[str, str]) -> dict[str, Any]:
    day = _day_of(paper)
    return {
        "id": one_line(paper.arxiv_id),
        "day": shown_day(day) if day else "undated",
        "iso": day.isoformat() if day else "",
        "category": one_line(paper.primary_category or ""),
        "title": one_line(_clip(paper.shown_title, TITLE_CHARS)),
        "url": link(paper),
        # Each name on its own (in <bdi>): two right-to-left names side by side were
        # shown in reversed order. "+N" counts the names left out.
        "authors": [one_line(n) for n in paper.authors[:SHOWN_NAMES]],
        "more_authors": plus_more(len(paper.authors), SHOWN_NAMES),
        "affiliations": [one_line(n) for n in paper.affiliations[:SHOWN_NAMES]],
        "more_affiliations": plus_more(len(paper.affiliations), SHOWN_NAMES),
        "abstract": one_line(_clip(paper.abstract, ABSTRACT_CHARS)),
        "tags": [
            {"name": one_line(names.get(tag, tag)), "href": pages.get(tag)}
            for tag in paper.tags
            if tag in names
        ],
    }


def _topic_context(
    topic: SiteTopic,
    pages: Mapping[str, str],
    names: Mapping[str, str],
    as_of: date,
    *,
    dated: bool = False,
) -> dict[str, Any]:
    return {
        "as_of": shown_day(as_of),
        "name": one_line(topic.name),
        "description": one_line(topic.description),
        "feed": _href(feed_name(topic.slug)),
        "momentum": _momentum(topic.momentum, large=True),
        "total": f"{topic.total:,}",
        "newest_of": newest_of(len(topic.papers), topic.total, hint=False),
        "papers": [_paper(p, pages, names) for p in topic.papers],
        "related": [
            {
                "name": one_line(names.get(slug, slug)),
                "href": pages.get(slug),
                "shared": f"{count:,} shared paper{'' if count == 1 else 's'}"
                + (f", {share} of those in either" if overlap is not None else ""),
            }
            for (slug, count, overlap), share in zip(
                topic.related,
                core.format_shares([overlap or 0.0 for _, _, overlap in topic.related]),
                strict=True,
            )
        ],
        # Slugs are lower-case words and digits joined by '-': safe unquoted in a shell.
        "ask": f"papertrack ask {topic.slug} '…'" + (f" --as-of {as_of}" if dated else ""),
    }


def _index_context(topics: Sequence[SiteTopic], as_of: date, every: bool = True) -> dict[str, Any]:
    ranked = {m.topic: n for n, m in enumerate(core.rank(t.momentum for t in topics))}
    rows = []
    for topic in sorted(topics, key=lambda t: ranked[t.slug]):
        rows.append(
            {
                "name": one_line(topic.name),
                "href": _href(page_name(topic.slug)),
                "feed": _href(feed_name(topic.slug)),
                "total": f"{topic.total:,} paper{'' if topic.total == 1 else 's'}",
                "momentum": _momentum(topic.momentum, large=False),
            }
        )
    weeks = topics[0].momentum.window_weeks if topics else core.DEFAULT_WINDOW
    return {
        "as_of": shown_day(as_of),
        "window": core.window_phrase(weeks),
        "window_before": core.window_phrase(weeks, last=False),
        "topics": rows,
        # A site of some topics (--following, --topics) said "Every topic".
        "every": every,
        # Ranked after the others, as trending ranks them: +100% below -32% needs saying.
        "few": any(t.momentum.low_count or t.momentum.little_data for t in topics),
    }


def _atom_updated(papers: Sequence[Paper], as_of: date) -> datetime:
    dated = [p.changed_at for p in papers if p.changed_at is not None]
    return max(dated) if dated else datetime.combine(as_of, time(0), UTC)


def _feed(topic: SiteTopic, as_of: date, base_url: str) -> str:
    from papertrack.export import atom_entry, atom_head

    feed, page = _href(feed_name(topic.slug)), _href(page_name(topic.slug))
    head = atom_head(
        f"{one_line(topic.name)} — papertrack",
        base_url + feed if base_url else f"urn:papertrack:site:{quote(topic.slug)}",
        _atom_updated(topic.papers, as_of),
        subtitle=one_line(topic.description),
        page=base_url + page,
        self_url=base_url + feed if base_url else None,
    )
    # An entry without a date of its own takes the as-of day, never the clock.
    moment = datetime.combine(as_of, time(0), UTC)
    entries = "".join(atom_entry(p, moment) for p in topic.papers)
    return f"{head}{entries}</feed>\n"


def render_site(
    topics: Sequence[SiteTopic],
    as_of: date,
    *,
    names: Mapping[str, str],
    base_url: str = "",
    dated: bool = False,
) -> dict[str, bytes]:
    """Every file of the site, {file name: bytes}: ``index.html``, and per topic a page and a feed.

    Args:
        names: topic names by slug, for tags and related topics (a tag of a topic
            without a page is shown unlinked; one not in ``names`` is left out).
        base_url: where the site is published (``https://…/``), for absolute feed
            links; '' keeps them relative to the feed.
        dated: the site is of a day asked for (``--as-of``): its pages' Ask line
            asks as of that day, as the topic page's does.
    """
    from papertrack.digest_html import environment

    if base_url and not base_url.endswith("/"):
        base_url += "/"
    env = environment()
    pages = {t.slug: _href(page_name(t.slug)) for t in topics}
    files: dict[str, bytes] = {}
    page = env.get_template("site_topic.html.j2")
    for topic in topics:
        html = page.render(_topic_context(topic, pages, names, as_of, dated=dated))
        files[page_name(topic.slug)] = html.encode("utf-8")
        files[feed_name(topic.slug)] = _feed(topic, as_of, base_url).encode("utf-8")
    every = {t.slug for t in topics} >= set(names)
    index = env.get_template("site_index.html.j2").render(_index_context(topics, as_of, every))
    files["index.html"] = index.encode("utf-8")
    return files


# --------------------------------------------------------------------------- writing


@dataclass(slots=True)
class SiteReport:
    """What :func:`write_site` did, file names relative to the folder."""

    folder: Path
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    def summary(self, topics: int, as_of: date) -> str:
        text = (
            f"Site of {topics} topic{'' if topics == 1 else 's'} as of {shown_day(as_of)} in "
            f"{self.folder}: {len(self.written)} file{'' if len(self.written) == 1 else 's'} "
            f"written, {len(self.unchanged)} unchanged"
        )
        if self.removed:
            text += f", {len(self.removed)} removed"
        return text + "."


def _manifest(names: Collection[str]) -> bytes:
    data = {
        "papertrack_site": SITE_FORMAT,
        "note": "Written by 'papertrack site': it replaces or removes only the files listed here.",
        "files": sorted(names),
    }
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _read_manifest(folder: Path) -> set[str] | None:
    """The files the site in ``folder`` lists, or None when ``folder`` holds no site."""
    from papertrack.files import read_if_there

    path = folder / MARKER
    raw = read_if_there(path)
    if raw is None:
        return None
    try:
        data = json.loads(raw)
        files = data["files"]
        if not isinstance(files, list):
            raise TypeError("not a list")  # a string's letters are no file names
        if data.get("papertrack_site") != SITE_FORMAT or not all(
            isinstance(f, str) and f == os.path.basename(f) and f not in ("", ".", "..")
            for f in files
        ):
            raise ValueError("not a list of file names")
    except (ValueError, KeyError, TypeError):
        raise StoreError(
            f"{path} is damaged or not papertrack's. Write the site to a new folder, or "
            "restore the file"
        ) from None
    return set(files)


def _ours(name: str, listed: Collection[str]) -> bool:
    """Whether the folder's entry ``name`` is papertrack's: listed, the lock, or a temp file."""
    from papertrack.files import TEMP_NAME

    if name in listed or name in (MARKER, LOCK):
        return True
    if TEMP_NAME.fullmatch(name):
        # '.NAME.PID.tmp', written by write_atomic for a file of the site
        stem = name[1:].rsplit(".", 2)[0]
        return stem in listed or stem == MARKER
    return False


def _claim(folder: Path) -> set[str]:
    """The files of the site already in ``folder`` (none for a new or empty folder).

    Raises:
        UsageError: ``folder`` is a file, has no parent folder, or holds files but no site.
    """
    if folder.exists() and not folder.is_dir():
        # /dev/stdout is a pipe or a terminal, not "a file".
        what = "a file" if folder.is_file() else "no folder"
        raise UsageError(f"{folder} is {what}. Name a folder for the site")
    if not folder.exists():
        if not folder.parent.is_dir():
            raise UsageError(
                f"no folder {folder.parent} to write the site in. Create it or fix the path"
            )
        return set()
    listed = _read_manifest(folder)
    if listed is None:
        others = [n for n in sorted(os.listdir(folder)) if not _ours(n, ())]
        if others:
            raise UsageError(
                f"{folder} is not empty and is not a papertrack site (no {MARKER}; it holds "
                f"{others[0]!r}). Choose a new or empty folder"
            )
        return set()
    return listed


def _stub(folder: Path) -> bytes:
    """A whole page standing in for one being written or removed; it links only to the index."""
    back = ' <a href="index.html">All topics</a>' if (folder / "index.html").is_file() else ""
    # (the index's own stub, written first on a new site, finds no index and links nowhere)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        "<title>papertrack</title>\n</head>\n<body>\n"
        f"<p>This page is being updated.{back}</p>\n</body>\n</html>\n"
    ).encode()


def _same(path: Path, data: bytes) -> bool:
    try:
        return path.is_file() and path.stat().st_size == len(data) and path.read_bytes() == data
    except OSError:
        return False


def write_site(folder: Path, files: Mapping[str, bytes], *, lock_timeout: float) -> SiteReport:
    """Write ``files`` ({name: bytes}) into ``folder`` as a site, replacing its previous run.

    See the module docstring for the order of writes that keeps every link whole.

    Raises:
        UsageError: the folder is not papertrack's, or a file of the site would
            replace one that is not papertrack's.
        StoreError: a file could not be written, or another run held the lock too long.
    """
    from papertrack.files import Lock, temp_files, write_atomic

    _claim(folder)  # fail before creating anything
    try:
        folder.mkdir(exist_ok=True)
    except OSError as exc:
        raise StoreError(
            f"could not create {folder}: {exc.strerror or exc}. Check the path"
        ) from None
    with Lock(folder / LOCK, lock_timeout, "the site lock"):
        old = _claim(folder)  # again: another run may have written it while we waited
        new = set(files)
        for leftover in temp_files(folder):  # of a run that was killed
            if _ours(leftover.name, old | new):
                leftover.unlink(missing_ok=True)
        for name in sorted(new - old):
            path = folder / name
            if path.exists() or path.is_symlink():
                raise UsageError(
                    f"{path} is not papertrack's, and the site would replace it. Move it "
                    "away, or write the site to another folder"
                )
        report = SiteReport(folder)
        if old != old | new or not (folder / MARKER).exists():
            write_atomic(folder / MARKER, _manifest(old | new))
        # A page that is new gets a stub first, so every page can link to every other
        # one from the start.
        # Feeds before pages (a page links to its feed), the index last.
        order = sorted(new - {"index.html"}, key=lambda n: (n.endswith(".html"), n))
        order += ["index.html"] if "index.html" in new else []
        fresh = [n for n in order if not (folder / n).exists()]
        # A page new to a site already published takes the index's permissions: under
        # cron's umask 077 a topic added later got 0600 beside 0644 pages, and the
        # index linked to a page the web server refused (403).
        sibling = _mode_of(folder / "index.html") if old else None
        for name in sorted(fresh, key=lambda n: n != "index.html"):  # the index's stub first
            if name.endswith(".html"):
                write_atomic(folder / name, _stub(folder), mode=sibling)
        for name in order:
            if name not in fresh and _same(folder / name, files[name]):
                report.unchanged.append(name)
            else:
                # A page rewritten keeps its permissions, as export -o and digest -o
                # keep a file's: under cron's umask 077 a published 0644 page became
                # 0600, and the web server answered 403.
                mode = _mode_of(folder / name)
                write_atomic(folder / name, files[name], mode=sibling if mode is None else mode)
                report.written.append(name)
        # Pages leaving the site may link to each other: each becomes a stub before
        # any is removed, so a kill in between leaves no link to a missing page.
        stale = [n for n in sorted(old - new) if (folder / n).is_file()]
        for name in stale:
            if name.endswith(".html"):
                write_atomic(folder / name, _stub(folder), mode=_mode_of(folder / name))
        for name in stale:
            (folder / name).unlink(missing_ok=True)
            report.removed.append(name)
        # Last: until now the manifest also named every file this run might leave behind.
        manifest = _manifest(new)
        if not _same(folder / MARKER, manifest):
            write_atomic(folder / MARKER, manifest, mode=_mode_of(folder / MARKER))
        return report


def _mode_of(path: Path) -> int | None:
    """``path``'s permission bits, or None when it is not there (then the umask's)."""
    import os
    import stat

    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return None
