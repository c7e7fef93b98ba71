"""Every RSS and Atom document: run feedparser, repair a broken document, tell which kind it is.

:func:`parse_syndication` reads the API's Atom pages (:mod:`~papertrack.feeds.atom`),
the daily listings old and new (:mod:`~papertrack.feeds.listing`) and any other
feed (:mod:`~papertrack.feeds.generic`): feedparser reads the document once,
:func:`detect_kind` decides which of them it is, and each entry goes to that
format's parser. A document that breaks is cut after its last whole entry
(:func:`papertrack.feeds.xml.repair`) and read again.
"""

from __future__ import annotations

import io
import re
import xml.sax
from datetime import datetime
from typing import Any

import feedparser

from ..errors import FeedError
from ..text import clean_text, counted, shorten, strip_html
from . import xml as _xml
from .atom import read_api_page
from .common import ARXIV_NS, OPENSEARCH_NS, UTF8_BOM, ParsedFeed, collect
from .entries import EntryDates, field, text_field
from .generic import generic_paper
from .listing import legacy_paper, listing_paper
from .xml import FEED_ROOT_RE, trim_partial_utf8

_NOT_A_FEED = (
    "{source} is not an RSS/Atom feed, arXiv API page or JSON lines file. Check the URL or file."
)
# A web page where a feed was expected: a 503 or 404 page, a login or captcha wall.
_HTML_RE = re.compile(rb"<(?:!doctype\s+html|html)[\s>]", re.IGNORECASE)
_HTML_TITLE_RE = re.compile(rb"<title[^>]*>(.*?)</title", re.IGNORECASE | re.DOTALL)


def detect_kind(parsed: Any, entries: list[Any]) -> str:
    """The kind of a feed feedparser read: ``api``, ``listing``, ``legacy-rss`` or ``feed``."""
    version = field(parsed, "version") or ""
    feed = field(parsed, "feed") or {}
    first = entries[0] if entries else {}
    first_id = text_field(first, "id").lower()
    feed_link = text_field(feed, "link").lower()
    if version in ("rss10", "rss090"):
        title = field(first, "title") or ""
        if "(arXiv:" in title or (not entries and "arxiv.org" in feed_link):
            return "legacy-rss"
    if "arxiv_announce_type" in first or first_id.startswith("oai:arxiv.org:"):
        return "listing"
    if not entries and "rss.arxiv.org" in feed_link:
        return "listing"  # a weekend or holiday listing is empty
    namespaces = set((field(parsed, "namespaces") or {}).values())
    # An empty API page has no entry to go by: its feed id is
    # "http(s)://arxiv.org/api/<hash>" and it carries opensearch counters.
    empty_api_page = OPENSEARCH_NS in namespaces and (
        ARXIV_NS in namespaces or "arxiv.org/api/" in (field(feed, "id") or "").lower()
    )
    if version.startswith("atom") and (
        "arxiv.org/abs/" in first_id or "arxiv.org/api/errors#" in first_id or empty_api_page
    ):
        return "api"
    return "feed"


def _feedparser(data: bytes, source: str) -> Any:
    """Run feedparser on bytes, safely.

    Always a stream: given bytes or str, feedparser may treat them as a file
    name or URL and read or fetch it (feedparser.parse docstring). Sanitising
    is skipped because every string is reduced to plain text here anyway.
    """
    # Blank lines before the first "<" take feedparser time quadratic in their
    # number (60,000 newlines: 15 s); they mean nothing, so they go first.
    bom = UTF8_BOM if data.startswith(UTF8_BOM) else b""
    body = data[len(bom) :]
    if body[:1] in (b" ", b"\t", b"\r", b"\n"):
        data = bom + body.lstrip(b" \t\r\n")
    try:
        return feedparser.parse(io.BytesIO(data), sanitize_html=False, resolve_relative_uris=False)
    except (LookupError, ValueError) as exc:
        # feedparser's own encoding sniffing fails on some mangled declarations
        # (an EBCDIC document naming "\0utf-8" as its encoding).
        raise FeedError(
            f"{source} could not be decoded ({exc}). Check the encoding its XML declaration names"
        ) from None


def _read(data: bytes, source: str) -> tuple[Any, list[Any], Any]:
    """feedparser's reading of ``data``: the result, its entries, and its XML error
    (or benign complaint), None when it had none."""
    parsed = _feedparser(data, source)
    entries = list(field(parsed, "entries") or ())
    return parsed, entries, field(parsed, "bozo_exception") if field(parsed, "bozo") else None


def parse_syndication(data: bytes, source: str, now: datetime | None) -> ParsedFeed:
    """Parse an RSS or Atom document (already readable by expat) of any kind but OAI-PMH.

    Raises:
        FeedError: an arXiv API error feed, or bytes that are no feed at all.
    """
    head = data[:4096]
    data = trim_partial_utf8(data)
    scrubbed = 0
    try:
        parsed, entries, exc = _read(data, source)
    except FeedError:
        # A reference to a surrogate (&#xD800;) made feedparser's decoding fail.
        data, scrubbed = _xml.scrub(data)
        if not scrubbed:
            raise
        parsed, entries, exc = _read(data, source)
    if isinstance(exc, xml.sax.SAXException) and not scrubbed:
        # A character XML does not allow, or &nbsp;: dropped (or written as a
        # number), the document is whole; cut at it, every later entry was lost.
        # Still broken (cut off as well), it is repaired below from there.
        data, scrubbed = _xml.scrub(data)
        if scrubbed:
            parsed, entries, exc = _read(data, source)
    # Only XML errors mean lost data; feedparser also reports benign things
    # (CharacterEncodingOverride, NonXMLContentType) through bozo.
    broken = isinstance(exc, xml.sax.SAXException)
    if not field(parsed, "version") and not entries:
        if not (broken and FEED_ROOT_RE.search(head)):
            _refuse_html(head, source)
            raise FeedError(_NOT_A_FEED.format(source=source))

    error = None
    warnings: list[str] = []
    if scrubbed:
        warnings.append(
            f"{source}: dropped {counted(scrubbed, 'character')} XML does not allow (a "
            "control character, a reference to a surrogate) or wrote an HTML entity as "
            "a number; the rest of the feed was read as it is"
        )
    if broken:
        repair = _xml.repair(data)
        if repair is None:
            # expat accepts what feedparser's SAX parser rejected (rare): keep
            # what feedparser read, but say so.
            warnings.append(f"{source}: the feed is not well-formed XML ({exc}); read it leniently")
        else:
            # feedparser's fallback (loose) parser is no substitute for the
            # strict one: it keeps the entry that was being read when the data
            # ended (the real truncated listing gives 87 entries, the 87th
            # empty), leaves "&amp;" escaped in arxiv:* elements, loses
            # namespaces declared per element (the legacy API layout) and
            # double-escaped HTML. So the document is cut after the last entry
            # that closed before the error, the open elements are closed, and
            # the result is parsed strictly again.
            error = (
                f"{source}: the feed is cut off or malformed at line {repair.line}, "
                f"column {repair.column} ({repair.reason}); "
                f"kept the {counted(repair.whole, 'entry', 'entries')} that arrived whole"
                f"{_xml.FETCH_AGAIN}"
            )
            if repair.document is None:
                entries = []
            else:
                data = repair.document
                parsed = _feedparser(data, source)
                entries = list(field(parsed, "entries") or ())[: repair.whole]

    kind = detect_kind(parsed, entries)
    feed = field(parsed, "feed") or {}
    result = ParsedFeed(kind=kind, papers=[], error=error, warnings=warnings)
    dates = EntryDates.at(now)
    channel_date = dates.get(feed, "updated") or dates.get(feed, "published")

    if kind == "api":
        read_api_page(result, feed, entries, data, dates, source)
    else:
        for entry in entries:
            if kind == "listing":
                paper = listing_paper(entry, channel_date, dates)
            elif kind == "legacy-rss":
                paper = legacy_paper(entry, channel_date, dates)
            else:
                paper = generic_paper(entry, dates)
            collect(result, paper, field(entry, "id") or field(entry, "link"))
    warning = dates.warning(source)
    if warning:
        result.warnings.append(warning)
    return result


def html_title(head: bytes) -> str | None:
    """The title of the web page ``head`` begins (``""`` for one without), or None
    when it is no web page."""
    if not _HTML_RE.search(head[:1024]):
        return None
    found = _HTML_TITLE_RE.search(head)
    return clean_text(strip_html(found.group(1).decode("utf-8", "replace"))) if found else ""


def _refuse_html(head: bytes, source: str) -> None:
    """Raise a clear error when the document is a web page (a 503 or 404 page, a login wall)."""
    title = html_title(head)
    if title is None:
        return
    named = f' titled "{shorten(title, 80)}"' if title else ""
    raise FeedError(
        f"{source} is an HTML web page{named}, not a feed. The site may be down or the "
        "address may be a web page: check the URL (or the file), or try again later"
    )
