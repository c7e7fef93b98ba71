"""What every format shares: the result type, field bounds, the one date rule, small readers.

A format module turns its document into :class:`~papertrack.models.Paper` records
with the helpers here, so that every format cuts fields at the same limits
(:func:`bounded`), refuses the same dates (:class:`DateRule`) and cleans text the
same way (:func:`tex`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any, Self

from ..categories import CATEGORY_NAME as _CATEGORY_RE
from ..errors import FeedError
from ..ids import abs_url, pdf_url, stored_arxiv_id
from ..models import Paper
from ..tex import arxiv_text
from ..text import clean_text, shorten


@dataclass
class ParsedFeed:
    """What one document held.

    ``error`` is set when the document was cut off or malformed; ``papers`` then
    holds only the entries that arrived whole. ``skipped`` counts entries that
    were dropped (no usable id). ``total_results`` is the API's
    ``opensearch:totalResults`` (or OAI-PMH's ``completeListSize``), and
    ``resumption_token`` the OAI-PMH token for the next page, if any.
    """

    kind: str
    papers: list[Paper]
    total_results: int | None = None
    error: str | None = None
    skipped: int = 0
    #: The ids (as the feed wrote them) of the first skipped entries, to name them.
    skipped_ids: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: Warnings said even without -v: the page is not what it claims to be.
    notices: list[str] = field(default_factory=list)
    resumption_token: str | None = None


#: How many skipped entries a feed's report names.
NAMED_SKIPS = 5


def collect(result: ParsedFeed, paper: Paper | None, entry_id: object = None) -> None:
    """Add ``paper`` to ``result``, or count it as skipped when the entry gave none;
    ``entry_id`` is the id the entry gave, to name it."""
    if paper is None:
        result.skipped += 1
        if len(result.skipped_ids) < NAMED_SKIPS:
            named = shorten(clean_text(entry_id), 80) if isinstance(entry_id, str) else ""
            result.skipped_ids.append(named or "(no id)")
    else:
        result.papers.append(paper)


# --- namespaces ------------------------------------------------------------------

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV_NS = "http://arxiv.org/schemas/atom"
ARXIV = "{" + ARXIV_NS + "}"
OPENSEARCH_NS = "http://a9.com/-/spec/opensearch/1.1/"
UTF8_BOM = b"\xef\xbb\xbf"


# --- field bounds ----------------------------------------------------------------

#: The largest XML document :func:`~papertrack.feeds.parse_feed` reads. feedparser
#: holds the whole document and several copies of its text in memory (a 200 MB
#: feed peaked at 870 MB), while the largest page arXiv serves, 2,000 API results,
#: is about 5 MB. The JSON-lines snapshot is streamed and has no such limit.
MAX_FEED_BYTES = 32 * 1024 * 1024
#: The highest version number accepted (arXiv's highest is in the dozens).
MAX_VERSION = 9999
#: Field limits of a stored paper, far above any real arXiv record (titles run to
#: about 300 characters, abstracts to 1,920, author lists to a few thousand names):
#: what is longer is cut, so no field can make a command slow or a store huge.
MAX_TITLE = 2_000
MAX_ABSTRACT = 20_000
MAX_AUTHORS = 10_000
MAX_FIELD = 2_000


_ARXIV_LINKS = tuple(
    f"{scheme}://{host}arxiv.org/" for scheme in ("https", "http") for host in ("", "export.")
)


def _on_arxiv(url: str) -> bool:
    """Whether ``url`` is on arxiv.org (or one of its hosts, export.arxiv.org)."""
    if url.startswith(_ARXIV_LINKS):
        return True  # nearly every link: no parse (7 µs a paper at ingest otherwise)
    from urllib.parse import urlsplit

    try:
        host = (urlsplit(url).hostname or "").rstrip(".")
    except ValueError:
        return False
    return host == "arxiv.org" or host.endswith(".arxiv.org")


def bounded(paper: Paper) -> tuple[Paper, str]:
    """``paper`` with every field within the limits above, and what was cut ("" if nothing).

    Its links are web addresses too: a ``javascript:`` or ``file:`` url (any RSS
    item's link, a crafted export line) reached every JSON and CSV a script builds
    pages from. An arXiv paper's is then its arXiv page; another entry's is dropped.
    An arXiv paper's links elsewhere than arxiv.org are its arXiv pages too.
    """
    cut: dict[str, Any] = {}
    fixed: dict[str, Any] = {}
    arxiv = stored_arxiv_id(paper.arxiv_id)
    for name, made in (("url", abs_url), ("pdf_url", lambda i: pdf_url(i, paper.version))):
        value = getattr(paper, name)
        if value is None:
            continue
        if not _WEB_LINK.match(value):
            fixed[name] = made(arxiv) if arxiv else None
        elif arxiv and not _on_arxiv(value):
            # An arXiv paper's links are arXiv's: a shared export pointed a real
            # paper's PDF at a look-alike site, which show and the Atom export gave.
            fixed[name] = made(arxiv)
    if len(paper.title) > MAX_TITLE:
        cut["title"] = paper.title[:MAX_TITLE].rstrip() + "…"
    if len(paper.abstract) > MAX_ABSTRACT:
        cut["abstract"] = paper.abstract[:MAX_ABSTRACT].rstrip() + "…"
    if len(paper.authors) > MAX_AUTHORS:
        cut["authors"] = paper.authors[:MAX_AUTHORS]
        cut["author_affiliations"] = paper.author_affiliations[:MAX_AUTHORS]
    for name in ("comment", "journal_ref", "doi", "license"):
        value = getattr(paper, name)
        if value is not None and len(value) > MAX_FIELD:
            cut[name] = value[:MAX_FIELD]
    if not cut and not fixed:
        return paper, ""
    import dataclasses

    kept = dataclasses.replace(paper, **cut, **fixed)
    return kept, ", ".join(sorted(set(cut) - {"author_affiliations"}))


#: A link papertrack keeps: http(s), any case, as browsers read the scheme.
_WEB_LINK = re.compile(r"https?://", re.IGNORECASE)


def version_number(value: Any) -> int | None:
    """A version number ("v3" or 3); None when missing or below 1 (versions start at v1).

    Raises:
        FeedError: a version above MAX_VERSION: no real paper has one, and a number
            of 2**64 or more cannot even be stored.
    """
    number = int_or_none(str(value or "").strip().lstrip("vV"))
    if number is None or number < 1:
        return None
    if number > MAX_VERSION:
        raise FeedError(f"version {shorten(str(number), 24)}, out of range (1 to {MAX_VERSION})")
    return number


def version_order(numbers: Sequence[int | None]) -> list[int]:
    """The places of a paper's versions (their numbers, None for none) from first to
    last: a snapshot or OAI record lists them v1 first, but a list out of order
    took the last listed as the newest and the first as the paper's date."""
    return sorted(range(len(numbers)), key=lambda i: (numbers[i] or 0, i))


# --- the date rule ---------------------------------------------------------------

# Dates outside these bounds are a feed's mistake (or a trick to stay on top of
# every listing), not a paper's date: arXiv opened in August 1991, and a listing
# is dated at most a few hours ahead of UTC.
EARLIEST_DATE = datetime(1991, 1, 1, tzinfo=UTC)
FUTURE_SLACK = timedelta(days=2)


def plausible_date(moment: datetime | None, now: datetime | None = None) -> datetime | None:
    """``moment`` when it can be a paper's date, else None (:class:`DateRule`, uncounted)."""
    return DateRule.at(now).check(moment)


@dataclass
class DateRule:
    """The one date rule of every format, counting the dates it refuses.

    A date before arXiv opened, or more than :data:`FUTURE_SLACK` after ``now``
    (default: the clock), is a feed's mistake or a trick to stay on top of every
    ``latest`` list. The date is dropped and the paper kept, dated by another of
    its dates or undated; :meth:`warning` then says how many were dropped, in the
    same words for every format. Readers that also refuse impossible or
    unreadable dates (feedparser's, see :class:`~papertrack.feeds.entries.EntryDates`)
    count them with :meth:`refuse`.
    """

    latest: datetime
    dropped: int = 0

    @classmethod
    def at(cls, now: datetime | None) -> Self:
        """The rule for dates read at ``now`` (default: the clock)."""
        return cls(latest=(now or datetime.now(UTC)) + FUTURE_SLACK)

    def check(self, moment: datetime | None) -> datetime | None:
        """``moment`` when it can be a paper's date, else None (and counted)."""
        if moment is None:
            return None
        if EARLIEST_DATE <= moment <= self.latest:
            return moment
        self.dropped += 1
        return None

    def check_pair(
        self, first: datetime | None, last: datetime | None
    ) -> tuple[datetime | None, datetime | None]:
        """:meth:`check` both; a date standing for both (a paper of one version) counts once."""
        checked = self.check(first)
        return checked, checked if last == first else self.check(last)

    def refuse(self) -> None:
        """Count a date dropped for another reason (impossible, not a date)."""
        self.dropped += 1

    def warning(self, source: str) -> str | None:
        """The warning for the dates dropped so far, or None when there were none."""
        if not self.dropped:
            return None
        return (
            f"{source}: ignored {self.dropped:,} date{'s' if self.dropped != 1 else ''} that "
            "cannot be right (impossible, before 1991, in the future or not a date); those "
            "entries are dated by another of their dates or left undated"
        )


# --- small readers ---------------------------------------------------------------

_MONTHS = {m: n for n, m in enumerate("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(), 1)}


def rfc2822(value: Any) -> datetime | None:
    """``Mon, 2 Apr 2007 19:18:42 GMT`` (Kaggle, arXivRaw) → aware UTC datetime."""
    if not isinstance(value, str) or not value.strip():
        return None
    # arXiv always writes this one shape in GMT: read it directly, 8x faster than
    # the email parser, which a snapshot of millions of dates would otherwise pay.
    parts = value.split()
    if len(parts) == 6 and parts[5] == "GMT" and parts[2] in _MONTHS and len(parts[3]) == 4:
        clock = parts[4].split(":")
        try:
            return datetime(
                int(parts[3]),
                _MONTHS[parts[2]],
                int(parts[1]),
                int(clock[0]),
                int(clock[1]),
                int(clock[2]) if len(clock) > 2 else 0,
                tzinfo=UTC,
            )
        except (ValueError, IndexError):
            pass  # let the general parser decide
    try:
        parsed = parsedate_to_datetime(value)
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)  # "-0000" means UTC with no zone claim
        return parsed.astimezone(UTC)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None  # unreadable, or past year 9999 once in UTC


def ymd(value: str | None) -> datetime | None:
    """``2008-11-26`` (OAI ``arXiv`` format, dc:date) → midnight UTC."""
    if not value:
        return None
    try:
        return datetime.strptime(value.strip()[:10], "%Y-%m-%d").replace(tzinfo=UTC)
    except ValueError:
        return None


def opt(value: Any) -> str | None:
    """Clean optional text; empty becomes None."""
    if not isinstance(value, str):
        return None
    return clean_text(value) or None


def first_doi(value: Any) -> str | None:
    """The first DOI: arXivRaw and Kaggle may list several, separated by spaces."""
    if not isinstance(value, str):
        return None
    parts = value.split()
    if not parts:
        return None
    return clean_text(parts[0]) or None


def tex(value: Any) -> str:
    """arXiv text (titles, abstracts, names) is TeX: :func:`papertrack.tex.arxiv_text`
    of ``value``, "" for what is not text."""
    return arxiv_text(value) if isinstance(value, str) else ""


def unique(items: Iterable[str]) -> tuple[str, ...]:
    """The non-empty ``items`` in order, each once."""
    return tuple(dict.fromkeys(item for item in items if item))


def present(items: Iterable[str]) -> tuple[str, ...]:
    """The ``items`` that name someone, in order: those with a letter or digit. A name
    given twice is kept twice: two authors may share a name (96 of the 83,510 corpus
    papers list one twice, "Zheng Wang" and "Zheng Wang" of 2509.15608), and one kept
    once lost an author. Punctuation alone is no name: arXiv lists a team's report
    as "NVIDIA, :, Aaron Blakeman, ..." (39 of the 83,510 corpus papers), and ":"
    was shown, and counted by ask's "who", as an author."""
    return tuple(filter(named, items))


def named(name: str) -> bool:
    """Whether ``name`` names someone: it has a letter or digit (":" does not)."""
    # Most names start with a letter: the search is for the rest (0.7 µs a paper of 20
    # authors, where testing every character cost 7.5).
    return name[:1].isalnum() or _NAMED.search(name) is not None


#: A letter or digit, in any script.
_NAMED = re.compile(r"[^\W_]")


# An arXiv category code: cs.AI, hep-th, cond-mat.str-el, q-fin.CP, math-ph.
# API entries may also carry ACM/MSC classes as <category>, which are not.


def arxiv_categories(terms: Iterable[Any]) -> tuple[str, ...]:
    """The terms that are arXiv category codes, in order, each once."""
    return unique(
        t.strip() for t in terms if isinstance(t, str) and _CATEGORY_RE.fullmatch(t.strip())
    )


def int_or_none(value: Any) -> int | None:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


def arxiv_urls(arxiv_id: str, version: int | None) -> tuple[str, str]:
    """The abstract page and the PDF of an arXiv paper."""
    return abs_url(arxiv_id), pdf_url(arxiv_id, version)
