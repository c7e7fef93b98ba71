"""arXiv API pages in their usual shape, read with ElementTree instead of feedparser.

feedparser reads a 2,000-entry API page in about 2 s here, more than
tagging and storing its papers take together; ElementTree reads it in a tenth of
that. :func:`read_api_xml` reads only the pages arXiv actually serves: an Atom
feed with the ``arxiv`` and ``opensearch`` prefixes, entries holding only the
elements arXiv writes, text without markup and dates in the one form arXiv
writes them. For any other page, including a broken one, it returns None and
the page goes to feedparser (:mod:`papertrack.feeds.syndication`), which repairs
and reads everything else.

Each entry is handed on as the dict feedparser would have made of it (the same
keys, texts stripped the same way, dates as UTC ``struct_time``), so that the
API parser (:func:`papertrack.feeds.atom.read_api_page`) is the same code for
both, and the tests compare both readers' papers on every API page they hold.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from typing import Any

from ..ids import parse_arxiv_id
from .atom import read_api_page
from .authors import Affiliations, add_affiliations
from .common import ARXIV, ARXIV_NS, ATOM, OPENSEARCH_NS, ParsedFeed
from .entries import EntryDates
from .xml import declared_encoding

_OPENSEARCH = "{" + OPENSEARCH_NS + "}"
_ATOM_NS = ATOM[1:-1]

# The prefixes arXiv declares. feedparser knows neither namespace, so it names an
# element by the prefix the document gives it ("arxiv_comment"): another prefix
# would name other keys, and the page goes to feedparser to read as it would.
_DECLARATIONS = {("", _ATOM_NS), ("arxiv", ARXIV_NS), ("opensearch", OPENSEARCH_NS)}
_XMLNS_RE = re.compile(rb"xmlns(?::([^\s=]*))?\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")
# The one form of arXiv's dates; any other goes to feedparser's date parsers.
_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:Z|[+-]\d{2}:\d{2})\Z")

# Elements read as text, by the feedparser key they stand for.
_ENTRY_TEXT = {
    ATOM + "id": "id",
    ATOM + "title": "title",
    ATOM + "summary": "summary",
    ATOM + "published": "published",
    ATOM + "updated": "updated",
    ARXIV + "comment": "arxiv_comment",
    ARXIV + "journal_ref": "arxiv_journal_ref",
    ARXIV + "doi": "arxiv_doi",
}
_FEED_TEXT = {
    ATOM + "updated": "updated",
    _OPENSEARCH + "totalResults": "opensearch_totalresults",
    _OPENSEARCH + "startIndex": "opensearch_startindex",
}
# The feed's other elements on arXiv's pages, which an API page's reading skips. Any
# other (an <item>, <Entry>, an entry inside another element, "totalresults"),
# feedparser may read as an entry or a count: the page goes to it.
_FEED_SKIPPED = frozenset(
    {ATOM + "id", ATOM + "title", ATOM + "link", _OPENSEARCH + "itemsPerPage"}
)
# The attributes arXiv writes on the elements read for their attributes.
_CATEGORY_ATTRIBUTES = frozenset({"term", "scheme"})
_LINK_ATTRIBUTES = frozenset({"href", "rel", "type", "title"})
_DATED = ("published", "updated")
_C1_RE = re.compile("[\x80-\x9f]")
# C1 controls as the bytes of Windows-1252 (five of them stand for nothing there).
_CP1252 = {}
for _code in range(0x80, 0xA0):
    try:
        _CP1252[_code] = bytes([_code]).decode("cp1252")
    except UnicodeDecodeError:
        pass
# feedparser's clean-up of a URI: "http:///x" is "http://x".
_SLASHES_RE = re.compile("^([A-Za-z][A-Za-z0-9+-.]*://)(/*)(.*?)")
# feedparser's types for an alternate link that names the entry's page.
_HTML_TYPES = {"text/html", "html", "application/xhtml+xml", "xhtml"}


class _Unusual(Exception):
    """The page is not in the shape this reader knows; feedparser reads it instead."""


def read_api_xml(data: bytes, source: str, now: datetime | None) -> ParsedFeed | None:
    """The papers of an arXiv API page in its usual shape, or None for feedparser to read.

    Raises:
        FeedError: the page is an arXiv API error, as :func:`read_api_page` says.
    """
    if not _plain_document(data):
        return None
    try:
        root = ET.fromstring(data)
        feed, entries, affiliations = _read_feed(root)
    except (ET.ParseError, _Unusual):
        return None
    first_id = str(entries[0].get("id", "")).lower()
    if not ("arxiv.org/abs/" in first_id or "arxiv.org/api/errors#" in first_id):
        return None  # not an API page (detect_kind's rule, for a page with entries)
    if first_id.startswith("oai:arxiv.org:"):
        return None
    result = ParsedFeed(kind="api", papers=[])
    dates = EntryDates.at(now)
    # As for every feed, a channel date that cannot be right is counted.
    dates.get(feed, "updated") or dates.get(feed, "published")
    read_api_page(result, feed, entries, data, dates, source, affiliations)
    warning = dates.warning(source)
    if warning:
        result.warnings.append(warning)
    return result


def _plain_document(data: bytes) -> bool:
    """UTF-8, no DTD or xml:base, and only arXiv's own namespace prefixes."""
    # (After a byte-order mark too: a page declaring windows-1251 behind one was read
    # in that encoding here and as UTF-8 by feedparser.)
    declared = declared_encoding(data)
    if declared is not None and declared.strip().lower() not in (b"utf-8", b"utf8"):
        return False
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data or b"xml:base" in data:
        return False
    for match in _XMLNS_RE.finditer(data):
        prefix = (match.group(1) or b"").decode("ascii", "replace")
        uri = (match.group(2) if match.group(2) is not None else match.group(3) or b"").decode(
            "utf-8", "replace"
        )
        if (prefix, uri) not in _DECLARATIONS:
            return False
    return True


def _read_feed(root: ET.Element) -> tuple[dict[str, Any], list[dict[str, Any]], Affiliations]:
    if root.tag != ATOM + "feed" or root.attrib:
        raise _Unusual
    feed: dict[str, Any] = {}
    entries: list[dict[str, Any]] = []
    affiliations: Affiliations = {}
    for child in root:
        if child.tag == ATOM + "entry":
            if child.attrib:
                raise _Unusual
            entries.append(_entry(child))
            add_affiliations(affiliations, child)
        elif child.tag in _FEED_TEXT:
            _put(feed, _FEED_TEXT[child.tag], child)
        elif child.tag in _FEED_SKIPPED:
            _leaf(child)  # not read, but nothing feedparser might read hides in it
        else:
            raise _Unusual
    if not entries:
        raise _Unusual  # an empty page: feedparser tells which kind it is
    return feed, entries, affiliations


def _entry(element: ET.Element) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    tags: list[dict[str, Any]] = []
    authors: list[dict[str, Any]] = []
    for child in element:
        tag = child.tag
        if tag in _ENTRY_TEXT:
            text_type = tag in (ATOM + "title", ATOM + "summary")
            if text_type and (child.get("type", "text") != "text" or set(child.attrib) - {"type"}):
                raise _Unusual
            _put(entry, _ENTRY_TEXT[tag], child, typed=text_type)
        elif tag == ATOM + "category":
            _leaf(child)
            if not set(child.attrib) <= _CATEGORY_ATTRIBUTES:
                raise _Unusual  # feedparser reads arxiv:term= and Term= as the term
            if (child.text or "").strip():
                raise _Unusual  # feedparser may take the text for its term
            scheme = child.get("scheme", child.get("domain"))
            tags.append({"term": child.get("term"), "scheme": scheme})
        elif tag == ATOM + "link":
            _link(entry, child)
        elif tag == ATOM + "author":
            authors.append(_author(child))
        elif tag == ARXIV + "primary_category":
            if "arxiv_primary_category" in entry or not set(child.attrib) <= _CATEGORY_ATTRIBUTES:
                raise _Unusual
            _leaf(child)
            if (child.text or "").strip():
                raise _Unusual  # feedparser makes the text the value
            entry["arxiv_primary_category"] = dict(child.attrib)
        else:
            raise _Unusual
    if tags:
        entry["tags"] = tags
    if authors:
        entry["authors"] = authors
    if "id" not in entry:
        raise _Unusual
    if parse_arxiv_id(entry["id"]) is None and "/api/errors#" not in entry["id"]:
        raise _Unusual  # read by its link, as feedparser would find it
    return entry


def _author(element: ET.Element) -> dict[str, Any]:
    if element.attrib:
        raise _Unusual
    author: dict[str, Any] = {}
    for child in element:
        if child.tag == ATOM + "name":
            _put(author, "name", child, as_text=False)
        elif child.tag != ARXIV + "affiliation" or child.attrib:
            raise _Unusual
        _leaf(child)
    return author


def _link(entry: dict[str, Any], element: ET.Element) -> None:
    _leaf(element)
    if "href" not in element.attrib or not set(element.attrib) <= _LINK_ATTRIBUTES:
        raise _Unusual
    if element.get("rel", "alternate") == "alternate" and (
        element.get("type", "text/html").lower() in _HTML_TYPES
    ):
        entry["link"] = element.get("href")


def _put(
    item: dict[str, Any],
    key: str,
    element: ET.Element,
    as_text: bool = True,
    typed: bool = False,
) -> None:
    """``item[key]``: the element's text as feedparser gives it, and the UTC
    ``struct_time`` of a date.

    feedparser strips every element's text. That of an element it reads as text
    (all but an author's name) it then changes twice, both for feeds that were
    encoded wrongly: text that is UTF-8 read as Latin-1 is decoded again ("Ã©" is
    "é"), and C1 control characters become the Windows-1252 characters of the
    same bytes (U+0080 is "€"). An id also loses extra slashes after its scheme.
    """
    if key in item:
        raise _Unusual  # which of two feedparser keeps is its own business
    if element.attrib and not typed:
        raise _Unusual  # feedparser keeps a dict of them for some elements, not the text
    _leaf(element)
    text = (element.text or "").strip()
    if as_text and key == "id":
        text = _SLASHES_RE.sub(r"\1\3", text)
    if as_text and not text.isascii():
        try:
            text = text.encode("iso-8859-1").decode("utf-8")
        except UnicodeError:
            pass
        if _C1_RE.search(text):
            text = text.translate(_CP1252)
    item[key] = text
    if key in _DATED and text:
        if not _DATE_RE.match(text):
            raise _Unusual
        try:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)
        except (ValueError, OverflowError):
            raise _Unusual from None
        item[key + "_parsed"] = moment.utctimetuple()


def _leaf(element: ET.Element) -> None:
    if len(element):
        raise _Unusual  # markup inside: feedparser's business
