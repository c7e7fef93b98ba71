"""Reading feedparser's entries: its dicts without their aliasing, text fields, tags and dates.

feedparser itself is run in :mod:`papertrack.feeds.syndication`; the API,
listing and generic-feed parsers read the entries it gives through these
helpers, so that each field is read the same way in every format.
"""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime
from typing import Any

from ..text import clean_text, strip_html
from .common import ARXIV_NS, DateRule


def field(item: Any, key: str) -> Any:
    """Read a feedparser dict without its aliasing.

    ``FeedParserDict.get("updated_parsed")`` falls back to ``published_parsed``
    with a DeprecationWarning when a feed has no updated date; the plain dict
    lookup reads exactly the key asked for (and is faster).
    """
    return dict.get(item, key) if isinstance(item, dict) else None


def text_field(item: Any, key: str) -> str:
    """A field that should be text: "" when missing, or when a broken feed made it a dict."""
    value = field(item, key)
    return value if isinstance(value, str) else ""


def entry_text(entry: Any, key: str) -> str:
    """An entry's text field, with HTML removed when the feed marks it as HTML."""
    value = field(entry, key)
    if not isinstance(value, str):
        return ""
    detail = field(entry, key + "_detail") or {}
    if "html" in str(detail.get("type", "")):
        value = strip_html(value)
    return clean_text(value)


def tag_terms(entry: Any, arxiv_only: bool) -> list[str]:
    """The terms of an entry's categories (only arXiv's own scheme when ``arxiv_only``)."""
    terms = []
    for tag in field(entry, "tags") or ():
        term = tag.get("term")
        # API entries may add other schemes (ACM, MSC classes); arXiv's own
        # categories have the arXiv scheme (or none, in listings).
        if arxiv_only and tag.get("scheme") not in (None, "", ARXIV_NS):
            continue
        if isinstance(term, str):
            terms.append(term)
    return terms


# --- dates ---------------------------------------------------------------------

# An ISO 8601 / W3CDTF date, basic or extended, with an optional time: feedparser
# rolls impossible ones over ("2026-02-30" → Mar 2, "9999-99-99" → Nov 1, 9999).
_ISO_DATE_RE = re.compile(
    r"\s*(?P<sign>[+-])?(?P<y>\d{4})-?(?P<m>\d{2})-?(?P<d>\d{2})"
    r"(?:[Tt ]\s*(?P<H>\d{2}):?(?P<M>\d{2})(?::?(?P<S>\d{2}))?)?"
)


def _dt(value: Any) -> datetime | None:
    """feedparser's ``*_parsed`` (a UTC ``struct_time``) → aware UTC datetime."""
    if not isinstance(value, time.struct_time):
        return None
    try:
        return datetime(*value[:6], tzinfo=UTC)
    except (TypeError, ValueError):
        return None


# A time's numeric UTC offset at the end (ISO ``+05:30``, RFC 822 ``+0530``): feedparser
# applies any it reads, so ``+99:00`` moved a paper back four days.
_OFFSET_RE = re.compile(r"\d{2}(?:\.\d+)?\s*(?P<sign>[+-])(?P<h>\d{2}):?(?P<m>\d{2})\s*$")
#: Real offsets run from -12:00 to +14:00.
_LONGEST_OFFSET = 14 * 60


def _real_offset(raw: str) -> bool:
    match = _OFFSET_RE.search(raw)
    if match is None:
        return True
    return int(match["m"]) < 60 and int(match["h"]) * 60 + int(match["m"]) <= _LONGEST_OFFSET


def _real_iso_date(raw: Any) -> bool:
    """False when ``raw`` spells an ISO date or time that does not exist (2026-02-30, 25:61),
    or a UTC offset no place has (+99:00)."""
    if isinstance(raw, str) and not _real_offset(raw):
        return False
    match = _ISO_DATE_RE.match(raw) if isinstance(raw, str) else None
    if match is None:
        return True  # other forms: feedparser's RFC 822 parser already refuses bad days
    if match["sign"]:
        return False
    try:
        datetime(
            int(match["y"]),
            int(match["m"]),
            int(match["d"]),
            int(match["H"] or 0),
            int(match["M"] or 0),
            min(int(match["S"] or 0), 59),  # a leap second is a real time
        )
    except ValueError:
        return False
    return True


class EntryDates(DateRule):
    """Reads feedparser dates, dropping those that cannot be right.

    Besides the dates :class:`~papertrack.feeds.common.DateRule` refuses, an
    impossible date (2026-02-30, year 0, 9999-99-99), which feedparser would roll
    over, and text that is no date at all are counted in ``dropped``; the entry is
    then dated by another field or undated.
    """

    def get(self, item: Any, key: str) -> datetime | None:
        raw = field(item, key)
        parsed = _dt(field(item, key + "_parsed"))
        if parsed is None:
            if isinstance(raw, str) and raw.strip():
                self.refuse()
            return None
        if not _real_iso_date(raw):
            self.refuse()
            return None
        return self.check(parsed)
