"""Followed topics and digests: what is new in them since the last digest.

``<home>/following.json`` lists the followed topics' slugs in the order they were
followed, and when each was followed. ``<home>/digest-state.json`` holds the time
of the last digest and every arxiv_id a digest has shown (versionless, so a new
version or a re-fetch of a paper is never shown again). Both are replaced
atomically.

:func:`build_digest` is pure: it takes the candidate papers of each topic, the
state and the time, and decides. The CLI (:mod:`papertrack.cli.digest`) reads the
store, renders with :func:`render_text`, :func:`render_markdown` or
:func:`digest_dict`, and saves the state with :func:`save_state`.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from papertrack.errors import StoreError
from papertrack.files import write_json
from papertrack.ids import abs_url, stored_arxiv_id
from papertrack.models import Paper, paper_date_key, utc_text
from papertrack.text import counted, names_plus, one_line, web_url

__all__ = [
    "FIRST_DIGEST_DAYS",
    "Digest",
    "DigestState",
    "Section",
    "build_digest",
    "digest_dict",
    "first_cutoff",
    "window_start",
    "load_following",
    "load_state",
    "markdown_escape",
    "nothing_new",
    "render_markdown",
    "set_aside_lines",
    "shown_above_lines",
    "render_text",
    "section_count",
    "save_following",
    "save_state",
]

#: The first digest ever shows the papers dated within this many days before it.
FIRST_DIGEST_DAYS = 7
#: How long a digest remembers the papers it showed: a paper dated earlier than this
#: before a digest is no longer new to the ones after it. Without a bound every id
#: ever shown was kept and every paper since the first digest read again: two
#: broad topics followed for eleven months took a digest from 0.35 s to 4.6 s and
#: its state to 1 MB, rewritten whole each time.
KEEP_DAYS = 60

# --------------------------------------------------------------------------- files


def _read(path: Path) -> Any:
    """A file of the data home (not of the store: doctor does not repair it)."""
    from papertrack.errors import PapertrackError

    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        from papertrack.files import home_fix

        raise PapertrackError(
            f"could not read {path}: {exc.strerror or exc}. {home_fix(exc)}"
        ) from None
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise PapertrackError(
            f"{path} is damaged ({exc}). Fix it, or remove it to start afresh"
        ) from None
    if data is None:  # not missing: a following.json of null is no "you follow nothing"
        raise PapertrackError(f"{path} is damaged (null). Fix it, or remove it to start afresh")
    return data


def load_following(path: Path) -> tuple[list[str], dict[str, datetime]]:
    """The followed slugs, in the order they were followed ([] when the file is
    missing), and when each was followed, from one read of the file.

    A topic followed by an older papertrack, which did not keep the time, has none
    (so does one whose time is unreadable: it only narrows a digest, and a digest is
    no reason to fail).
    """
    data = _read(path)
    if data is None:
        return [], {}
    slugs = data.get("topics") if isinstance(data, dict) else None
    if not isinstance(slugs, list) or not all(isinstance(s, str) for s in slugs):
        raise StoreError(f"{path} is damaged (no list of topics). Remove it and follow again")
    kept = data.get("followed")
    times: dict[str, datetime] = {}
    for slug, when in (kept if isinstance(kept, dict) else {}).items():
        try:
            times[slug] = datetime.fromisoformat(when).astimezone(UTC)
        except (TypeError, ValueError):
            continue
    return list(dict.fromkeys(slugs)), times


def save_following(
    path: Path, slugs: Sequence[str], times: Mapping[str, datetime] | None = None
) -> None:
    """The followed ``slugs``, in order, with the time each was followed (``times``)."""
    kept = list(dict.fromkeys(slugs))
    known = times or {}
    followed = {s: known[s].astimezone(UTC).isoformat() for s in kept if s in known}
    write_json(path, {"topics": kept, "followed": followed})


@dataclass(slots=True)
class DigestState:
    """When the last digest was made, and the arxiv_ids digests have shown.

    ``floor`` is the oldest paper date still new: the start of the first digest's
    window, moved on to :data:`KEEP_DAYS` before the last digest once that is later
    (a backfill of old papers does not flood the next digest). ``shown`` is the day
    each id of ``digested`` was shown; an id shown before the floor's day is
    forgotten, as its paper, dated no later than that, can never be new again.
    """

    last: datetime | None = None
    digested: set[str] = field(default_factory=set)
    floor: datetime | None = None
    shown: dict[str, date] = field(default_factory=dict)
    #: Slug -> fingerprint of each followed topic's definition at the last digest.
    definitions: dict[str, str] = field(default_factory=dict)

    def redefined(self, prints: Mapping[str, str]) -> set[str]:
        """The slugs of ``prints`` (slug -> fingerprint now) whose topic was defined
        otherwise at the last digest (taught, replaced, edited; upgraded)."""
        return {
            slug
            for slug, now in prints.items()
            if self.definitions.get(slug, now) != now and self.last is not None
        }

    def after(
        self,
        digest: Digest,
        newest: date | None = None,
        definitions: Mapping[str, str] | None = None,
    ) -> DigestState:
        """The state once ``digest`` has been delivered. ``newest``: the store's newest
        paper date, from which the kept days count back (not from the clock: with
        fetching stopped for months and digests still running, papers fetched late
        would have fallen behind a floor the clock moved). ``definitions``: the
        followed topics' fingerprints now (kept as they were when not given)."""
        now = digest.generated
        today = now.astimezone(UTC).date()
        # Ids kept without their day (a state of an older papertrack): the last
        # digest's day, the latest they can have been shown.
        before = self.last.astimezone(UTC).date() if self.last else today
        shown = {pid: self.shown.get(pid, before) for pid in self.digested}
        for paper in [*(p for section in digest.sections for p in section.papers), *digest.passed]:
            # Remembered until its paper is surely too old to be new again: a
            # paper dated after the day it was shown (a feed's future date) too.
            dated = paper.paper_date.astimezone(UTC).date() if paper.paper_date else today
            shown[paper.arxiv_id] = max(today, dated)
        anchor = min(today, newest) if newest is not None else today
        kept_from = _day_start(
            datetime(anchor.year, anchor.month, anchor.day, tzinfo=UTC) - timedelta(days=KEEP_DAYS)
        )
        floor = max(self.floor or first_cutoff(now), kept_from)
        kept = {pid: day for pid, day in shown.items() if day >= floor.date()}
        prints = dict(self.definitions if definitions is None else definitions)
        return DigestState(now, set(kept), floor, kept, prints)


def load_state(path: Path) -> DigestState:
    data = _read(path)
    if data is None:
        return DigestState()
    try:
        last, floor, digested = data["last_digest"], data.get("floor"), data["digested"]
        if not isinstance(digested, list):
            raise TypeError("not a list")  # a string's characters are no paper ids
        # {day: [ids shown that day]} beside the list, which a papertrack before
        # 2026-12-06 reads as it always did (and writes without it).
        days = data.get("shown_on") or {}
        if not isinstance(days, dict):
            raise TypeError("not a mapping")
        ids = {str(i) for i in digested}
        shown = {
            str(pid): date.fromisoformat(day)
            for day, pids in days.items()
            for pid in pids
            if str(pid) in ids
        }
        # (Not kept by a papertrack before 2026-12-06: no topic counts as redefined.)
        prints = data.get("definitions") or {}
        if not isinstance(prints, dict):
            raise TypeError("not a mapping")
        return DigestState(
            datetime.fromisoformat(last).astimezone(UTC) if last else None,
            ids,
            datetime.fromisoformat(floor).astimezone(UTC) if floor else None,
            shown,
            {str(slug): str(value) for slug, value in prints.items()},
        )
    except (KeyError, TypeError, ValueError):
        raise StoreError(
            f"{path} is damaged. Remove it: the next digest then shows the last "
            f"{FIRST_DIGEST_DAYS} days again"
        ) from None


def save_state(path: Path, state: DigestState) -> None:
    fallback = (state.last or datetime.now(UTC)).astimezone(UTC).date()
    days: dict[str, list[str]] = {}
    for pid in state.digested:
        days.setdefault(state.shown.get(pid, fallback).isoformat(), []).append(pid)
    write_json(
        path,
        {
            "last_digest": state.last.isoformat() if state.last else None,
            "floor": state.floor.isoformat() if state.floor else None,
            "digested": sorted(state.digested),
            "shown_on": {day: sorted(pids) for day, pids in sorted(days.items())},
            "definitions": dict(sorted(state.definitions.items())),
        },
    )


# --------------------------------------------------------------------------- building


@dataclass(slots=True)
class Section:
    """One followed topic of a digest: its new papers, newest first."""

    topic: str
    name: str
    momentum: str
    papers: list[Paper] = field(default_factory=list)
    #: Its new papers shown under a topic followed before it (a paper appears once).
    shown_above: list[str] = field(default_factory=list)

    @property
    def only_above(self) -> bool:
        """All its new papers are shown under earlier topics: it has no section of its
        own, and without a word a reader could not tell it from one with nothing new."""
        return not self.papers and bool(self.shown_above)


@dataclass(slots=True)
class Digest:
    generated: datetime
    #: Papers dated on or after this (--since, or the window start of the first digest).
    since: datetime
    sections: list[Section]
    #: Last digest's time (None before the first digest).
    last: datetime | None = None
    #: Whether --since chose the papers (then the header names that day, not the last digest).
    by_since: bool = False
    #: Papers of a topic redefined since the last digest, dated before its start:
    #: marked as shown without being shown, or the next digest brought them all.
    passed: list[Paper] = field(default_factory=list)
    #: Slug -> (papers it set aside as :attr:`passed`, the date they are older than).
    passed_by: dict[str, tuple[int, datetime]] = field(default_factory=dict)

    def arxiv_ids(self) -> list[str]:
        return [p.arxiv_id for s in self.sections for p in s.papers]

    def set_aside(self) -> list[tuple[str, str, int, date]]:
        """(slug, name, papers, the day they are dated before) of each topic that
        set papers aside (:attr:`passed_by`), by slug."""
        names = {section.topic: section.name for section in self.sections}
        return [
            (slug, names.get(slug, slug), count, before.date())
            for slug, (count, before) in sorted(self.passed_by.items())
        ]

    @property
    def empty(self) -> bool:
        return not any(s.papers for s in self.sections)


def first_cutoff(now: datetime) -> datetime:
    """The oldest paper date the first digest ever shows: the start (UTC) of the day
    :data:`FIRST_DIGEST_DAYS` days before it, as its header says ("papers dated
    2026-11-26 or later"). Papers are dated to the day; a cut at the clock time
    would leave out that day's papers, and for good once the window is kept."""
    return _day_start(now - timedelta(days=FIRST_DIGEST_DAYS))


def _day_start(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def window_start(state: DigestState, now: datetime) -> datetime:
    """The oldest paper date a digest without --since shows. A window kept by an
    older papertrack, cut at the clock time, starts at the start of its day too,
    while that day is recent: months into daily digests, the first one after an
    upgrade listed a whole day of months-old papers as new."""
    if state.floor is None:
        return first_cutoff(now)
    start = _day_start(state.floor)
    if start != state.floor and now - state.floor > timedelta(days=2 * FIRST_DIGEST_DAYS):
        return state.floor
    return start


def build_digest(
    topics: Sequence[tuple[str, str]],
    papers: Mapping[str, Iterable[Paper]],
    state: DigestState,
    now: datetime,
    *,
    since: datetime | None = None,
    momentum: Mapping[str, str] | None = None,
    followed: Mapping[str, datetime] | None = None,
    redefined: AbstractSet[str] = frozenset(),
) -> Digest:
    """The digest of the followed ``topics`` ((slug, name), in following order).

    Args:
        papers: candidate papers of each slug (any order; more than needed is fine).
        state: the last digest's time and the ids already digested.
        now: the digest's time.
        since: show every paper dated on or after this, digested before or not.
            Without it: papers not yet digested and dated on or after the first
            digest's window start, :data:`FIRST_DIGEST_DAYS` days before it
            (``state.floor``; ``now`` minus those days on the first digest ever).
        momentum: the momentum sentence of each slug.
        followed: when each slug was followed. Without --since, a topic followed
            after the first digest starts as the first digest did: at the papers
            dated in the :data:`FIRST_DIGEST_DAYS` days before it was followed,
            not at the first digest's window (months of its papers at once).
        redefined: topics defined otherwise since the last digest (taught, replaced):
            without --since, only the papers they now take dated in the
            :data:`FIRST_DIGEST_DAYS` days before the last digest or later are new,
            as for a topic just followed (a teach or a broader query put up to
            :data:`KEEP_DAYS` of older papers in the next digest).

    A paper of several followed topics goes under the first of them only.
    """
    cutoff = since if since is not None else window_start(state, now)
    placed: set[str] = set()
    passed: dict[str, tuple[str, Paper]] = {}
    starts: dict[str, datetime] = {}
    sections = []
    for slug, name in topics:
        start = cutoff
        if since is None and followed is not None and slug in followed:
            start = max(cutoff, first_cutoff(followed[slug]))
        # Where the topic would start were it not redefined: older papers are not new
        # either way, and only those from here on are set aside (and counted).
        unchanged_start = start
        if since is None and slug in redefined and state.last is not None:
            start = max(start, first_cutoff(state.last))
        chosen = []
        above = []
        for paper in papers.get(slug, ()):
            if since is None and paper.arxiv_id in state.digested:
                continue
            if not paper.dated_from(start):
                if slug in redefined and paper.dated_from(unchanged_start):
                    passed.setdefault(paper.arxiv_id, (slug, paper))
                    starts[slug] = start
                continue
            if paper.arxiv_id in placed:
                above.append(paper.arxiv_id)
                continue
            placed.add(paper.arxiv_id)
            chosen.append(paper)
        chosen.sort(key=paper_date_key, reverse=True)
        sections.append(Section(slug, name, (momentum or {}).get(slug, ""), chosen, above))
    unshown = [(slug, paper) for pid, (slug, paper) in passed.items() if pid not in placed]
    counts = Counter(slug for slug, _ in unshown)
    by = {slug: (count, starts[slug]) for slug, count in counts.items()}
    return Digest(
        now,
        cutoff,
        sections,
        state.last,
        by_since=since is not None,
        passed=[paper for _, paper in unshown],
        passed_by=by,
    )


# --------------------------------------------------------------------------- rendering


def day_text(moment: datetime | None) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d") if moment else "undated"


def link(paper: Paper) -> str:
    """The abs page of an arXiv paper; a non-arXiv entry's own http(s) link, or ''.

    Only a stored key in arXiv's bare form is arXiv's paper: another feed's entry
    whose guid is ``arXiv:2606.00006`` links to its own page (see stored_arxiv_id).
    """
    if stored_arxiv_id(paper.arxiv_id):
        return abs_url(paper.arxiv_id)
    return web_url(paper.url)


def other_tags(paper: Paper, slug: str, names: Mapping[str, str]) -> list[str]:
    return [one_line(names.get(t, t)) for t in paper.tags if t != slug]


def scope_text(digest: Digest) -> str:
    if digest.last is not None and not digest.by_since:
        return f"new since the last digest ({digest.last.astimezone(UTC):%Y-%m-%d %H:%M} UTC)"
    return f"papers dated {day_text(digest.since)} or later"


def nothing_new(digest: Digest) -> str:
    """What an empty digest says of itself: "since the last digest" only when there
    was one and no --since replaced it (the first digest ever said it too)."""
    if digest.last is not None and not digest.by_since:
        return "Nothing new since the last digest"
    return f"Nothing new dated {day_text(digest.since)} or later"


def count_text(n: int) -> str:
    return f"{n:,} new paper{'' if n == 1 else 's'}"


def section_count(section: Section) -> str:
    """A section's heading count: "29 new papers, 13 more shown above". The papers
    shown under an earlier topic were left out of it unsaid, and a topic with 42
    new papers read as one with 29."""
    above = len(section.shown_above)
    more = f", {above:,} more shown above" if above else ""
    return count_text(len(section.papers)) + more


def render_text(digest: Digest, names: Mapping[str, str]) -> str:
    """Plain lines for a mail body."""
    lines = [f"papertrack digest, {day_text(digest.generated)}: {scope_text(digest)}"]
    if digest.empty:
        lines += ["", "Nothing new."]
    for section in digest.sections:
        if not section.papers:
            continue
        title = f"{one_line(section.name)} ({section_count(section)})"
        lines += ["", title, "=" * len(title)]
        if section.momentum:
            lines.append(one_line(section.momentum))
        for paper in section.papers:
            lines += ["", f"* {one_line(paper.shown_title)}"]
            if paper.authors:
                lines.append(f"  {names_plus(paper.authors)}")
            facts = [
                day_text(paper.paper_date),
                one_line(paper.primary_category or ""),
                link(paper),
            ]
            lines.append("  " + " | ".join(f for f in facts if f))
            others = other_tags(paper, section.topic, names)
            if others:
                lines.append("  Also in: " + ", ".join(others))
    lines += [f"\n{line}" for line in shown_above_lines(digest, one_line)]
    lines += [f"\n{line}" for line in set_aside_lines(digest, one_line)]
    return "\n".join(lines) + "\n"


def shown_above_lines(digest: Digest, escape: Callable[[str], str]) -> list[str]:
    """A line for each followed topic whose new papers are all shown under an earlier
    one: "GUI Agents: 1 new paper, shown above (Also in)". It had no section, so a
    reader could not tell it from a topic with nothing new."""
    return [
        f"{escape(section.name)}: {count_text(len(section.shown_above))}, shown above "
        f"under {'an earlier topic' if len(section.shown_above) == 1 else 'earlier topics'}"
        " (see 'Also in')."
        for section in digest.sections
        if section.only_above
    ]


def set_aside_lines(digest: Digest, escape: Callable[[str], str]) -> list[str]:
    """A line for each topic that changed since the last digest and set older papers
    aside (:attr:`Digest.passed_by`): said on stderr only, a cron job's `-q` kept it
    from the digest's reader, who was never told papers were passed over."""
    from papertrack.dates import shown_day

    return [
        f"{escape(name)} changed since the last digest (taught, redefined or upgraded): "
        f"{counted(count, 'paper')} of it dated before {shown_day(before)} "
        f"{'is' if count == 1 else 'are'} not shown as new. 'papertrack latest {slug}' "
        "lists them."
        for slug, name, count, before in digest.set_aside()
    ]


# What a Markdown renderer (CommonMark, and GitHub's GFM) would read as markup
# anywhere in a line: escapes, emphasis, code, links and images (through "["),
# GFM tables, strikethrough and GitHub's math, raw HTML and autolinks ("<" before a
# tag or scheme), entity references. "_" inside a word (snake_case) starts no
# emphasis, "<" before a space no tag, "&" outside an entity no entity: those stay.
_MD_INLINE = re.compile(
    r"[\\`*\[\]|~$]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])|<(?=[A-Za-z/!?])|&(?=#?[A-Za-z0-9]+;)"
)
# GFM's extended autolinks turn bare URLs and e-mail addresses in text into links;
# an escaped ":", "." or "@" splits the text the extension looks at, so none forms.
_MD_AUTOLINK = re.compile(
    r"(?i)(?:(?<=\bhttp)|(?<=\bhttps)|(?<=\bftp)):(?=//)|(?<=\bwww)\.(?=\w)|(?<=\w)@(?=[\w-]+\.\w)"
)
# At the start of a line, what would start a block: a heading, a quote, a list
# item (bullet, or a number with "." or ")"), a thematic break or setext underline.
_MD_LINE_START = re.compile(r"^(?:[#>+=-]|\d{1,9}(?=[.)]))")


# "<" and "&" as character references, not backslash escapes: CommonMark reads "\<"
# as a "<", but Markdown.pl and Python-Markdown (MkDocs, Pelican) read a backslash
# and then raw HTML, so a feed's <img onerror> or <script> came through live.
_MD_REFERENCES = {"<": "&lt;", "&": "&amp;"}


def _md_escaped(found: re.Match[str]) -> str:
    char = found.group(0)
    return _MD_REFERENCES.get(char) or "\\" + char


def markdown_escape(text: object, *, line_start: bool = False) -> str:
    """Feed text shown literally by a Markdown renderer (GitHub's included), on one line.

    Only what a renderer would misread is escaped (see ``_MD_INLINE``): ``<`` and
    ``&`` as ``&lt;`` and ``&amp;``, the rest with a backslash,
    so ``*x*``, ``[x](javascript:…)``, ``<script>`` and a bare ``https://…`` print
    as written while ``2026-11-24``, ``cs.AI``, ``100%`` and ``C++`` stay as they
    are. ``line_start``: the text begins a line, where ``# ``, ``- ``, ``> `` or
    ``1.`` would start a heading, list or quote, so that first character is
    escaped too.
    """
    line = _MD_INLINE.sub(_md_escaped, one_line(text))
    line = _MD_AUTOLINK.sub(r"\\\g<0>", line)
    if line_start:
        found = _MD_LINE_START.match(line)
        if found is not None:
            end = found.end()
            if found.group(0)[0].isdigit():  # "1." or "1)": the mark after the number
                line = line[:end] + "\\" + line[end:]
            else:
                line = "\\" + line
    return line


def _md_line(text: str) -> str:
    return markdown_escape(text, line_start=True)


def _md_url(url: str) -> str:
    # A link's own parentheses would end the link destination. The rest that would
    # (a space, "<", ">", a quote, a backslash) link() has percent-encoded already
    # (text.web_url), and a "%" stays: "x%20y" linked to "x%2520y".
    return url.replace("(", "%28").replace(")", "%29")


def markdown_link(title: str, url: str) -> str:
    """``title`` (escaped already, :func:`markdown_escape`) linked to ``url``, which
    :func:`link` gives; the title alone when there is none."""
    return f"[{title}]({_md_url(url)})" if url else title


def render_markdown(digest: Digest, names: Mapping[str, str]) -> str:
    """Markdown that renders well on GitHub; feed text escaped."""
    scope = markdown_escape(scope_text(digest), line_start=True)
    lines = [f"# papertrack digest, {day_text(digest.generated)}", "", scope]
    if digest.empty:
        lines += ["", "Nothing new."]
    for section in digest.sections:
        if not section.papers:
            continue
        lines += ["", f"## {markdown_escape(section.name)} ({section_count(section)})"]
        if section.momentum:
            lines += ["", f"*{markdown_escape(section.momentum)}*"]
        lines.append("")
        for paper in section.papers:
            title = markdown_escape(paper.shown_title)
            head = f"**{markdown_link(title, link(paper))}**"
            # The authors begin the item's second line, where "- " or "1." would
            # start a nested list.
            names_line = markdown_escape(names_plus(paper.authors), line_start=True)
            facts = [names_line] if paper.authors else []
            facts.append(day_text(paper.paper_date))
            if paper.primary_category:
                facts.append(markdown_escape(paper.primary_category))
            lines.append(f"- {head}  \n  " + " · ".join(facts))
            others = other_tags(paper, section.topic, names)
            if others:
                lines[-1] += "  \n  Also in: " + ", ".join(markdown_escape(o) for o in others)
    lines += [f"\n{line}" for line in shown_above_lines(digest, _md_line)]
    lines += [f"\n{line}" for line in set_aside_lines(digest, _md_line)]
    return "\n".join(lines) + "\n"


def digest_dict(
    digest: Digest, momentum: Mapping[str, Mapping[str, Any]] | None = None
) -> dict[str, Any]:
    """{generated, since, last_digest, topics: [{topic, name, momentum, momentum_text,
    papers: [paper dicts], shown_above: [ids]}]}; ``momentum`` maps a slug to its
    momentum object, the same as ``papertrack momentum --json`` gives."""
    return {
        "generated": utc_text(digest.generated),
        "since": utc_text(digest.since),
        "last_digest": utc_text(digest.last) if digest.last else None,
        "topics": [
            {
                "topic": s.topic,
                "name": s.name,
                "momentum": (momentum or {}).get(s.topic),
                "momentum_text": s.momentum,
                "papers": [p.to_dict() for p in s.papers],
                # Its new papers shown under a topic followed before it.
                "shown_above": list(s.shown_above),
            }
            for s in digest.sections
        ],
        # Topics changed since the last digest: their older papers, not shown as new.
        "set_aside": [
            {"topic": slug, "name": name, "papers": count, "dated_before": before.isoformat()}
            for slug, name, count, before in digest.set_aside()
        ],
    }
