"""Parse what arXiv (and other sites) serve into :class:`~papertrack.models.Paper` records.

One entry point, :func:`parse_feed`, takes the raw bytes of any supported
document and works out what it is:

==============  ===============================================================
kind            what it is
==============  ===============================================================
``api``         export.arxiv.org/api/query Atom pages, 2007-2025 and 2026 layouts
``listing``     rss.arxiv.org daily listings (2024 redesign), Atom and RSS 2.0
``legacy-rss``  export.arxiv.org/rss listings before 2024 (RSS 1.0 / RDF)
``oai``         OAI-PMH ListRecords/GetRecord (arXivRaw, arXiv, oai_dc)
``kaggle``      the Kaggle ``arxiv-metadata-oai-snapshot`` JSON lines
``export``      papertrack's own ``export -f jsonl``, ``-f json`` and ``-f atom``
``feed``        any other RSS/Atom feed
==============  ===============================================================

The layouts, and every quirk handled here, are written up in docs/feeds.md ("How
each format is read"). Nothing here prints, reads the environment or touches
the network: the caller fetches, this package parses.

Where each part lives:

==================  ============================================================
module              what it holds
==================  ============================================================
``__init__``        :func:`parse_feed`: which format a document is, and the size
                    limit; the public names other modules import
``common``          :class:`ParsedFeed`, the field bounds, the date rule, small
                    readers (dates, DOIs, categories, TeX text) every format uses
``authors``         every format's author (and affiliation) parser
``xml``             encoding repair, streaming elements, rebuilding a broken
                    document up to its last whole entry
``syndication``     feedparser: one read of any RSS/Atom document, repair and
                    second read, which kind it is (``api``, ``listing``, …)
``entries``         reading feedparser's entries: fields, tags, dates
``atom``            ``api``: arXiv API pages
``api_xml``         ``api``: the pages arXiv serves, read without feedparser
``listing``         ``listing`` and ``legacy-rss``: daily listings, new and old
``generic``         ``feed``: any other RSS/Atom feed
``oai``             ``oai``: OAI-PMH pages
``kaggle``          ``kaggle``: JSON lines (the snapshot, and ``export -f jsonl``)
``exports``         ``export``: papertrack's own jsonl/json/atom exports read back
==================  ============================================================

feedparser is imported only when an RSS/Atom document is parsed, and not for an
API page in the shape arXiv serves it.
"""

from __future__ import annotations

import re
from datetime import datetime

from ..errors import FeedError, FeedTooLargeError
from .common import MAX_FEED_BYTES, UTF8_BOM, ParsedFeed, bounded
from .exports import (
    EXPORT_HEAD_RE,
    ArrayLines,
    looks_like_json_array,
    paper_from_export,
    parse_atom_export,
)
from .kaggle import looks_like_jsonl, parse_jsonl, parse_jsonl_line
from .oai import parse_oai
from .xml import FEED_ROOT_RE, expat_readable

__all__ = [
    "MAX_FEED_BYTES",
    "ParsedFeed",
    "ArrayLines",
    "looks_like_json_array",
    "looks_like_jsonl",
    "paper_from_export",
    "parse_feed",
    "parse_jsonl",
    "parse_jsonl_line",
]

_OAI_ROOT_RE = re.compile(rb"<(?:[\w.-]+:)?OAI-PMH[\s>/]")
# An Atom feed that declares arXiv's namespace or names the API: maybe an API page.
_API_HEAD_RE = re.compile(rb"<feed[\s>].*?(?:arxiv\.org/schemas/atom|arxiv\.org/api)", re.S)


def parse_feed(data: bytes, source: str = "<feed>", *, now: datetime | None = None) -> ParsedFeed:
    """Parse any supported document, detecting its kind.

    Every paper's fields are bounded (:func:`bounded`); a cut is a warning.

    Args:
        data: the raw bytes as served (encoding is detected from the document).
        source: a name for messages (URL or path).
        now: the time dates are checked against (default: the clock). In every
            format a date more than two days after it, before 1991 or impossible
            (2026-02-30) is dropped, the paper kept, with one warning; see
            :class:`~papertrack.feeds.common.DateRule`.

    Returns:
        A :class:`ParsedFeed`. A cut-off or malformed document does not raise:
        ``error`` says where it broke and ``papers`` holds only whole entries.

    Raises:
        FeedError: an arXiv API error feed, an OAI-PMH error, a broken JSON
            line, an XML document over :data:`MAX_FEED_BYTES`, or bytes that
            are no feed at all (an HTML page is named as one).
    """
    if not data.strip():
        if source == "-":
            raise FeedError("standard input is empty. Pipe a feed into papertrack")
        raise FeedError(f"{source} is empty. Check the file, or download it again")
    result = _parse_any(data, source, now)
    kept = []
    for paper in result.papers:
        paper, cut = bounded(paper)
        if cut:
            result.warnings.append(f"{source}: {paper.arxiv_id}: cut {cut} to the limit")
        kept.append(paper)
    result.papers = kept
    return result


def _parse_any(data: bytes, source: str, now: datetime | None) -> ParsedFeed:
    """Tell the format from the first bytes and hand the document to its parser."""
    head = data[:4096]
    if looks_like_jsonl(head) or looks_like_json_array(head):
        return parse_jsonl(data, source, now=now)
    _refuse_lossy_export(head, source)
    # Read here, not imported by value, so that a test can lower the limit on the package.
    if len(data) > MAX_FEED_BYTES:
        raise FeedTooLargeError(
            f"{source} is larger than {MAX_FEED_BYTES // (1024 * 1024)} MB, more than papertrack "
            "reads from one XML feed (arXiv's own pages stay under 10 MB). Split it into "
            "smaller files, or use JSON lines, which are read as a stream (arXiv's "
            "snapshot; for a papertrack export, 'papertrack export -f jsonl')"
        )
    data = expat_readable(data)
    head = data[:4096]
    if _OAI_ROOT_RE.search(head):
        return parse_oai(data, source, now)
    if EXPORT_HEAD_RE.search(head) and FEED_ROOT_RE.search(head):
        return parse_atom_export(data, source, now)
    if _API_HEAD_RE.search(head):
        # An API page as arXiv serves it is read without feedparser (ten times faster);
        # any other, or a broken one, goes on to feedparser below.
        from .api_xml import read_api_xml

        read = read_api_xml(data, source, now)
        if read is not None:
            return read
    # feedparser, and so every RSS/Atom format, is imported only now.
    from .syndication import parse_syndication

    return parse_syndication(data, source, now)


def _refuse_lossy_export(head: bytes, source: str) -> None:
    """Name a CSV or BibTeX export: they leave out too much to be read back as papers."""
    start = head.removeprefix(UTF8_BOM).lstrip()
    if start.startswith(b"arxiv_id,version,paper_date,"):
        what = "a papertrack CSV export, which leaves out abstracts"
    elif start.startswith((b"@misc{arxiv:", b"@misc{feed:")):
        what = "a papertrack BibTeX export, which leaves out affiliations and exact dates"
    else:
        return
    raise FeedError(
        f"{source} is {what}, "
        "so papertrack does not read it back. Export with --format jsonl, json or atom "
        "to move papers between stores"
    )
