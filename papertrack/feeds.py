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

The layouts, and every quirk handled here, are written up with their sources in
``ARXIV_FORMATS.md`` (cited below by section). Nothing here prints, reads the
environment or touches the network: the caller fetches, this module parses.
"""

from __future__ import annotations

import codecs
import io
import json
import re
import time
import xml.etree.ElementTree as ET
import xml.parsers.expat
import xml.sax
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any

import feedparser
import orjson

from .errors import FeedError, JsonArrayError
from .ids import abs_url, parse_arxiv_id, pdf_url
from .models import Paper, from_iso
from .tex import render_tex
from .text import clean_text, decode_tex_accents, shorten, strip_html

__all__ = [
    "ParsedFeed",
    "ArrayLines",
    "looks_like_json_array",
    "looks_like_jsonl",
    "paper_from_export",
    "parse_feed",
    "parse_jsonl",
    "parse_jsonl_line",
]


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
    warnings: list[str] = field(default_factory=list)
    resumption_token: str | None = None


# --- namespaces and patterns (compiled once; parse_feed runs them per entry) ---

_ATOM = "{http://www.w3.org/2005/Atom}"
_ARXIV_NS = "http://arxiv.org/schemas/atom"
_ARXIV = "{" + _ARXIV_NS + "}"
_OPENSEARCH_NS = "http://a9.com/-/spec/opensearch/1.1/"
_OAI = "{http://www.openarchives.org/OAI/2.0/}"
_ARXIV_RAW = "{http://arxiv.org/OAI/arXivRaw/}"
_ARXIV_OAI = "{http://arxiv.org/OAI/arXiv/}"
_OAI_DC = "{http://www.openarchives.org/OAI/2.0/oai_dc/}"
_DC = "{http://purl.org/dc/elements/1.1/}"

_UTF8_BOM = b"\xef\xbb\xbf"
_NOT_A_FEED = (
    "{source} is not an RSS/Atom feed, arXiv API page or JSON lines file. Check the URL or file."
)
# An arXiv category code: cs.AI, hep-th, cond-mat.str-el, q-fin.CP, math-ph.
# API entries may also carry ACM/MSC classes as <category> (§1.3), which are not.
_CATEGORY_RE = re.compile(r"[a-z]+(?:-[a-z]+)?(?:\.[A-Za-z]+(?:-[A-Za-z]+)?)?", re.ASCII)
# Legacy RSS titles end in "(arXiv:1606.08480v1 [cs.CY])", "(… [cs.LG] UPDATED)"
# (§2.6), or "(… [math.GR] CROSS LISTED)" (seen in 2018 and 2021 captures quoted
# in steog88/PhysBiblio's tests).
_LEGACY_TITLE_RE = re.compile(
    r"(?P<title>.*?)\.?\s*\(arXiv:(?P<id>[^\s\[\]()]+)\s*\[(?P<cat>[^\]]*)\]"
    r"\s*(?P<flag>UPDATED|CROSS LISTED)?\s*\)\s*",
    re.DOTALL,
)
_LEGACY_FLAGS = {None: "new", "UPDATED": "replace", "CROSS LISTED": "cross"}
# The listing description starts "arXiv:2509.13332v1 Announce Type: new \nAbstract: …" (§2.2).
_DESCRIPTION_ID_RE = re.compile(r"arXiv:(\S+)")
_FEED_ROOT_RE = re.compile(rb"<(?:[\w.-]+:)?(?:feed|rss|RDF)[\s>/]")
_OAI_ROOT_RE = re.compile(rb"<(?:[\w.-]+:)?OAI-PMH[\s>/]")
# A web page where a feed was expected: a 503 or 404 page, a login or captcha wall.
_HTML_RE = re.compile(rb"<(?:!doctype\s+html|html)[\s>]", re.IGNORECASE)
_HTML_TITLE_RE = re.compile(rb"<title[^>]*>(.*?)</title", re.IGNORECASE | re.DOTALL)

#: The largest XML document :func:`parse_feed` reads. feedparser holds the whole
#: document and several copies of its text in memory (a 200 MB feed peaked at
#: 870 MB), while the largest page arXiv serves, 2,000 API results, is about 5 MB.
#: The JSON-lines snapshot is streamed and has no such limit.
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


def bounded(paper: Paper) -> tuple[Paper, str]:
    """``paper`` with every field within the limits above, and what was cut ("" if nothing)."""
    cut: dict[str, Any] = {}
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
    if not cut:
        return paper, ""
    import dataclasses

    return dataclasses.replace(paper, **cut), ", ".join(sorted(set(cut) - {"author_affiliations"}))


# Dates outside these bounds are a feed's mistake (or a trick to stay on top of
# every listing), not a paper's date: arXiv opened in August 1991, and a listing
# is dated at most a few hours ahead of UTC (§2.3).
_EARLIEST_DATE = datetime(1991, 1, 1, tzinfo=UTC)
_FUTURE_SLACK = timedelta(days=2)


def plausible_date(moment: datetime | None, now: datetime | None = None) -> datetime | None:
    """``moment`` when it can be a paper's date, else None: the one date rule of every format.

    A date before arXiv opened, or more than :data:`_FUTURE_SLACK` after ``now``
    (default: the clock), is a feed's mistake or a trick to stay on top of every
    ``latest`` list; the paper is kept, dated otherwise or undated.
    """
    if moment is None:
        return None
    latest = (now or datetime.now(UTC)) + _FUTURE_SLACK
    return moment if _EARLIEST_DATE <= moment <= latest else None


# An ISO 8601 / W3CDTF date, basic or extended, with an optional time: feedparser
# rolls impossible ones over ("2026-02-30" → Mar 2, "9999-99-99" → Nov 1, 9999).
_ISO_DATE_RE = re.compile(
    r"\s*(?P<sign>[+-])?(?P<y>\d{4})-?(?P<m>\d{2})-?(?P<d>\d{2})"
    r"(?:[Tt ]\s*(?P<H>\d{2}):?(?P<M>\d{2})(?::?(?P<S>\d{2}))?)?"
)
# Authors in a Kaggle/OAI string: "A, B and C", "A, B, and C" (§3.2, §4).
_AUTHOR_SPLIT_RE = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+")


# --- small helpers -------------------------------------------------------------


def _dt(value: Any) -> datetime | None:
    """feedparser's ``*_parsed`` (a UTC ``struct_time``) → aware UTC datetime."""
    if not isinstance(value, time.struct_time):
        return None
    try:
        return datetime(*value[:6], tzinfo=UTC)
    except (TypeError, ValueError):
        return None


def _real_iso_date(raw: Any) -> bool:
    """False when ``raw`` spells an ISO date or time that does not exist (2026-02-30, 25:61)."""
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


@dataclass
class _Dates:
    """Reads feedparser dates, dropping those that cannot be right.

    An impossible date (2026-02-30, year 0, 9999-99-99), one before arXiv or more
    than :data:`_FUTURE_SLACK` after ``now``, and text that is no date at all are
    counted in ``dropped``; the entry is then dated by another field or undated.
    """

    latest: datetime
    dropped: int = 0

    def get(self, item: Any, key: str) -> datetime | None:
        raw = _field(item, key)
        parsed = _dt(_field(item, key + "_parsed"))
        if parsed is None:
            if isinstance(raw, str) and raw.strip():
                self.dropped += 1
            return None
        if not _real_iso_date(raw) or plausible_date(parsed, self.latest - _FUTURE_SLACK) is None:
            self.dropped += 1
            return None
        return parsed


_MONTHS = {m: n for n, m in enumerate("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(), 1)}


def _rfc2822(value: Any) -> datetime | None:
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


def _ymd(value: str | None) -> datetime | None:
    """``2008-11-26`` (OAI ``arXiv`` format, dc:date) → midnight UTC."""
    if not value:
        return None
    try:
        return datetime.strptime(value.strip()[:10], "%Y-%m-%d").replace(tzinfo=UTC)
    except ValueError:
        return None


def _opt(value: Any) -> str | None:
    """Clean optional text; empty becomes None."""
    if not isinstance(value, str):
        return None
    return clean_text(value) or None


def _first_doi(value: Any) -> str | None:
    """The first DOI: arXivRaw and Kaggle may list several, separated by spaces (§3.2)."""
    if not isinstance(value, str):
        return None
    parts = value.split()
    if not parts:
        return None
    return clean_text(parts[0]) or None


def _tex(value: Any) -> str:
    """arXiv text (titles, abstracts, names) is TeX: decode accents, render the markup
    as the text it shows (``$\\textbf{A}$gent`` is "Agent", ``$\\alpha$`` "α"), clean."""
    if not isinstance(value, str):
        return ""
    return clean_text(render_tex(decode_tex_accents(value)))


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(item for item in items if item))


def _arxiv_categories(terms: Iterable[Any]) -> tuple[str, ...]:
    return _unique(
        t.strip() for t in terms if isinstance(t, str) and _CATEGORY_RE.fullmatch(t.strip())
    )


def _split_authors(names: str) -> tuple[str, ...]:
    """Split "A, B and C" (TeX accents decoded) into names."""
    text = _tex(names)
    if not text:
        return ()
    return tuple(name for name in (n.strip() for n in _AUTHOR_SPLIT_RE.split(text)) if name)


def _trim_partial_utf8(data: bytes) -> bytes:
    """Drop a UTF-8 sequence cut in half at the very end of a truncated download.

    Otherwise feedparser finds the bytes invalid as UTF-8, falls back to another
    encoding and garbles every entry ("Wübben" → "WÃ¼bben"), whole ones included.
    """
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte & 0xC0 == 0x80:
            continue  # a continuation byte: look further back for the lead byte
        if byte >= 0xC0:
            needed = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            if needed > back:
                return data[:-back]
        break
    return data


# The encoding an XML declaration names; only ASCII-compatible documents match.
_DECLARED_RE = re.compile(rb"(?:\xef\xbb\xbf)?\s*<\?xml[^>]*?\sencoding\s*=\s*([\"'])(.*?)\1", re.S)
_DECLARATION_RE = re.compile(r"(<\?xml[^>]*?\sencoding\s*=\s*)([\"']).*?\2", re.S)
# How a UTF-16 or UTF-32 document starts: a byte order mark, or "<" (XML 1.0, appendix F).
_WIDE_STARTS = (
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"<\x00\x00\x00", "utf-32-le"),
    (b"\x00\x00\x00<", "utf-32-be"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
    (b"<\x00", "utf-16-le"),
    (b"\x00<", "utf-16-be"),
)


def _expat_readable(data: bytes) -> bytes:
    """The document re-encoded as UTF-8 when expat could not read it as it is.

    expat reads UTF-8 and single-byte encodings. A document in UTF-16 or UTF-32
    declaring another encoding or none it knows ("utf-16-le"), in a multi-byte
    encoding (Shift JIS, GB 2312, UTF-7), or naming an encoding Python does not
    know ("TTF-8", non-ASCII bytes), made it raise LookupError or ValueError where
    feedparser had read the text by falling back to UTF-8 or Windows-1252. Decoded
    the same way and declared UTF-8, both read the same text.
    """
    wide = next((codec for start, codec in _WIDE_STARTS if data.startswith(start)), None)
    if wide is not None:
        text = data.decode(wide, "replace")
    else:
        found = _DECLARED_RE.match(data, 0, 1024)
        if found is None:
            return data
        try:
            codec = codecs.lookup(found.group(2).decode("ascii")).name
        except (LookupError, ValueError):  # unknown, not ASCII, or a NUL in the name
            codec = None
        if codec is not None and codec.startswith(("utf-16", "utf-32")):
            codec = None  # its declaration is readable as ASCII, so it is neither
        if codec is not None and (
            codec in ("utf-8", "utf-16", "utf-16-le", "utf-16-be")
            # pyexpat reads any Python codec that maps each byte to one character.
            or len(bytes(range(256)).decode(codec, "replace")) == 256
        ):
            return data
        if codec is not None:
            text = data.decode(codec, "replace")
        else:
            try:
                text = _trim_partial_utf8(data).decode("utf-8")
            except UnicodeDecodeError:
                try:
                    text = data.decode("cp1252")
                except UnicodeDecodeError:
                    text = data.decode("latin-1")
    text = text.removeprefix("\ufeff")
    text = _DECLARATION_RE.sub(r"\1\2utf-8\2", text, count=1)
    return text.encode("utf-8", "replace")  # UTF-7 can decode to lone surrogates


def _int_or_none(value: Any) -> int | None:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


def _version(value: Any) -> int | None:
    """A version number ("v3" or 3); None when missing or below 1 (versions start at v1).

    Raises:
        FeedError: a version above MAX_VERSION: no real paper has one, and a number
            of 2**64 or more cannot even be stored.
    """
    number = _int_or_none(str(value or "").strip().lstrip("vV"))
    if number is None or number < 1:
        return None
    if number > MAX_VERSION:
        raise FeedError(f"version {shorten(str(number), 24)}, out of range (1 to {MAX_VERSION})")
    return number


def _arxiv_urls(arxiv_id: str, version: int | None) -> tuple[str, str]:
    return abs_url(arxiv_id), pdf_url(arxiv_id, version)


# --- JSON lines (Kaggle snapshot) ---------------------------------------------


def looks_like_jsonl(head: bytes) -> bool:
    """True when the first non-blank byte (after a UTF-8 BOM) is ``{``."""
    return head.removeprefix(_UTF8_BOM).lstrip(b" \t\r\n").startswith(b"{")


def _kaggle_name(parts: Any) -> str:
    """``[last, first, suffix]`` → "First Last Suffix" (already Unicode in the snapshot)."""
    if not isinstance(parts, list):
        return ""
    strings = [p if isinstance(p, str) else "" for p in parts[:3]]
    if len(strings) < 3:
        strings += [""] * (3 - len(strings))
    last, first, suffix = strings
    # The snapshot's name splitter spaces hyphenated initials: "C.-P." comes out
    # as "C. -P." (0704.0001); put them back together.
    if ". -" in first:
        first = first.replace(". -", ".-")
    return clean_text(f"{first} {last} {suffix}")


def _loads(line: bytes | str) -> Any:
    """One JSON value: orjson first (7 against 13 us for a snapshot line, measured
    here), json for what orjson refuses and json reads (a BOM, UTF-16, NaN, huge
    integers), so that the lines accepted are exactly json's."""
    try:
        return orjson.loads(line)
    except ValueError:
        return json.loads(line)


def parse_jsonl_line(line: bytes | str, source: str, lineno: int) -> Paper:
    """Parse one line of the Kaggle ``arxiv-metadata-oai-snapshot.json`` (§4).

    Raises:
        FeedError: the line is not a JSON object with a valid arXiv ``id``.
    """
    try:
        record = _loads(line)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError and UnicodeDecodeError
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else type(exc).__name__
        raise FeedError(
            f"{source}: line {lineno} is not valid JSON ({reason}). "
            "Check the file: it should hold one JSON object per line."
        ) from None
    if not isinstance(record, dict):
        raise FeedError(
            f"{source}: line {lineno} is not a JSON object. "
            "Check the file: it should hold one JSON object per line."
        )
    if is_export_record(record):
        try:
            return bounded(paper_from_export(record))[0]
        except FeedError as exc:
            raise FeedError(f"{source}: line {lineno} {exc}. Check the line") from None
    raw_id = record.get("id")
    ident = parse_arxiv_id(raw_id) if isinstance(raw_id, str) else None
    if ident is None:
        raise FeedError(
            f"{source}: line {lineno} has no valid arXiv id ({raw_id!r}). "
            "Check that the file is the arXiv metadata snapshot."
        )
    arxiv_id = ident[0]

    raw_versions = record.get("versions")
    versions = (
        [v for v in raw_versions if isinstance(v, dict)] if isinstance(raw_versions, list) else []
    )
    try:
        version = _version(versions[-1].get("version")) if versions else None
    except FeedError as exc:
        raise FeedError(f"{source}: line {lineno} has a {exc}. Check the line") from None
    # The paper date is the first version's submission (PRODUCT.md): versions[0],
    # not update_date, which is the last metadata change.
    published = _rfc2822(versions[0].get("created")) if versions else None
    updated = _rfc2822(versions[-1].get("created")) if versions else None
    # As in XML feeds (see _Dates): a date before arXiv or in the future cannot be right.
    published, updated = plausible_date(published), plausible_date(updated)

    parsed_names = record.get("authors_parsed")
    if isinstance(parsed_names, list) and parsed_names:
        authors = _unique(_kaggle_name(p) for p in parsed_names)
    else:
        authors = _split_authors(record.get("authors") or "")

    categories = _arxiv_categories(
        (record.get("categories") or "").split()
        if isinstance(record.get("categories"), str)
        else ()
    )
    url, pdf = _arxiv_urls(arxiv_id, version)
    paper = Paper(
        arxiv_id=arxiv_id,
        title=_tex(record.get("title")),
        version=version,
        abstract=_tex(record.get("abstract")),
        authors=authors,
        # "categories" lists the primary first (§4): observed and documented.
        primary_category=categories[0] if categories else None,
        categories=categories,
        published=published,
        updated=updated,
        doi=_first_doi(record.get("doi")),
        journal_ref=_opt(record.get("journal-ref")),
        comment=_opt(record.get("comments")),
        url=url,
        pdf_url=pdf,
        license=_opt(record.get("license")),
        source="kaggle",
    )
    return bounded(paper)[0]  # cut quietly: a snapshot's summary counts papers, not fields


def parse_jsonl(data: bytes, source: str = "<jsonl>") -> ParsedFeed:
    """Parse a whole JSON lines file (see :func:`parse_jsonl_line`), or a JSON array.

    A last line that is broken and not newline-terminated is a cut-off download:
    it sets ``error`` and keeps the lines before it. Any other broken line raises.
    """
    papers: list[Paper] = []
    if looks_like_json_array(data[:4096]):
        array = ArrayLines(io.BytesIO(data), MAX_FEED_BYTES)
        try:
            for number, line in enumerate(array._iter_lines(), start=1):
                papers.append(parse_jsonl_line(line, source, number))
        except JsonArrayError as exc:
            return ParsedFeed(
                kind="export", papers=papers, error=f"{source}: {exc}; kept {len(papers):,} papers"
            )
        return ParsedFeed(kind="export", papers=papers)
    lines = data.removeprefix(_UTF8_BOM).split(b"\n")
    last = len(lines)
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            papers.append(parse_jsonl_line(line, source, lineno))
        except FeedError as exc:
            if lineno == last:  # no newline after it: the download stopped mid-line
                return ParsedFeed(
                    kind="kaggle",
                    papers=papers,
                    error=f"{source}: the file is cut off at line {lineno}; "
                    f"kept the {len(papers):,} lines that arrived whole",
                )
            raise exc
    return ParsedFeed(kind="kaggle", papers=papers)


# --- papertrack's own exports (export -f jsonl, json, atom) ---------------------

#: The namespace of the papertrack fields in an Atom export (``papertrack export -f atom``).
PAPERTRACK_NS = "urn:papertrack:schema:export:1"
_PT = "{" + PAPERTRACK_NS + "}"
# Exports written before the papertrack namespace existed only name papertrack as
# their generator: their <published> may be a listing's announcement date.
_PT_HEAD_RE = re.compile(
    re.escape(PAPERTRACK_NS.encode()) + rb"|<generator[^>]*>\s*papertrack\s*</generator>"
)
_EXPORT_SOURCE = "export"


def is_export_record(record: dict[str, Any]) -> bool:
    """True for a line of ``papertrack export -f jsonl`` (or an item of ``-f json``)."""
    return "arxiv_id" in record and "id" not in record


def _export_text(record: dict[str, Any], key: str) -> str:
    value = record.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise FeedError(f"has a {key} that is not text")
    return clean_text(value)


def _export_strings(record: dict[str, Any], key: str) -> tuple[str, ...]:
    value = record.get(key)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise FeedError(f"has {key} that are not a list of text")
    return _unique(clean_text(v) for v in value)


def _export_date(value: Any, key: str) -> datetime | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise FeedError(f"has a {key} date that is not text")
    try:
        moment = from_iso(value.strip())
    except ValueError:
        raise FeedError(f"has a {key} date that is not ISO 8601 ({shorten(value, 40)!r})") from None
    return plausible_date(moment)


def _export_paper(
    ident: str,
    *,
    version: Any,
    dates: tuple[datetime | None, datetime | None, datetime | None],
    **fields: Any,
) -> Paper:
    """A paper read back from an export; ``ident`` is the stored id, as exported."""
    parsed = parse_arxiv_id(ident)
    arxiv_id = parsed[0] if parsed is not None else clean_text(ident)
    if not arxiv_id:
        raise FeedError("has no id")
    published, updated, announced = dates
    primary = fields.get("primary_category") or None
    return Paper(
        arxiv_id=arxiv_id,
        version=_version(version) if version is not None else None,
        published=published,
        updated=updated,
        announced=announced,
        # Exports leave out whether the primary category was only guessed: it was
        # when the paper is known from a listing alone (no submission date yet),
        # so an API page read later may still correct it.
        primary_guessed=bool(primary) and published is None and announced is not None,
        source=_EXPORT_SOURCE,
        **fields,
    )


def paper_from_export(record: dict[str, Any]) -> Paper:
    """The paper of one ``export -f jsonl`` line or ``-f json`` item (its ``to_dict`` form).

    ``tags`` are left out: the store tags every paper with its own topics, and
    ``paper_date`` and ``affiliations`` are derived from the other fields.

    Raises:
        FeedError: a field of the wrong type (the message completes "line N …").
    """
    ident = record.get("arxiv_id")
    if not isinstance(ident, str):
        raise FeedError("has no arxiv_id")
    version = record.get("version")
    if version is not None and (isinstance(version, bool) or not isinstance(version, int)):
        raise FeedError("has a version that is not a number")
    authors = _export_strings(record, "authors")
    raw = record.get("author_affiliations") or []
    if not isinstance(raw, list) or not all(
        isinstance(a, list) and all(isinstance(n, str) for n in a) for a in raw
    ):
        raise FeedError("has author_affiliations that are not lists of text")
    affiliations = tuple(_unique(clean_text(n) for n in a) for a in raw)
    if len(affiliations) != len(authors):
        affiliations = ()
    optional = {
        key: _export_text(record, key) or None
        for key in ("announce_type", "doi", "journal_ref", "comment", "url", "pdf_url", "license")
    }
    return _export_paper(
        ident,
        version=version,
        dates=(
            _export_date(record.get("published"), "published"),
            _export_date(record.get("updated"), "updated"),
            _export_date(record.get("announced"), "announced"),
        ),
        title=_export_text(record, "title"),
        abstract=_export_text(record, "abstract"),
        authors=authors,
        author_affiliations=affiliations if any(affiliations) else (),
        primary_category=_export_text(record, "primary_category") or None,
        categories=_export_strings(record, "categories"),
        **optional,
    )


def _atom_export_paper(entry: ET.Element, now: datetime | None) -> Paper | None:
    """One entry of ``export -f atom`` (see :func:`papertrack.export.atom_entry`)."""

    def text(tag: str) -> str:
        return clean_text(entry.findtext(tag))

    def date(name: str) -> datetime | None:
        found = entry.find(_PT + name)
        if found is None:
            return None
        try:
            moment = _export_date(found.text or "", name)
        except FeedError:
            return None
        return plausible_date(moment, now)

    ident = text(_PT + "id") or text(_ATOM + "id")
    if parse_arxiv_id(ident) is None and not entry.findtext(_PT + "id"):
        return None
    authors: list[str] = []
    affiliations: list[tuple[str, ...]] = []
    for author in entry.iter(_ATOM + "author"):
        name = clean_text(author.findtext(_ATOM + "name"))
        if name:
            authors.append(name)
            affiliations.append(
                _unique(clean_text(a.text) for a in author.iter(_ARXIV + "affiliation"))
            )
    links = {link.get("rel"): link.get("href") for link in entry.iter(_ATOM + "link")}
    primary = entry.find(_ARXIV + "primary_category")
    if entry.find(_PT + "version") is not None or entry.find(_PT + "url") is not None:
        version: Any = text(_PT + "version") or None
        dates = (date("published"), date("updated"), date("announced"))
        url, pdf = text(_PT + "url") or None, text(_PT + "pdf_url") or None
    else:
        # An export written before the papertrack namespace: <published> is the
        # paper date, an announcement as often as a submission, so it is kept as
        # the announcement, which never overwrites a submission date.
        try:
            announced = from_iso(text(_ATOM + "published"))
        except ValueError:
            announced = None
        version, dates = None, (None, None, plausible_date(announced, now))
        url, pdf = (
            clean_text(links.get("alternate")) or None,
            clean_text(links.get("related")) or None,
        )
    try:
        return _export_paper(
            ident,
            version=version,
            dates=dates,
            title=text(_ATOM + "title"),
            abstract=text(_ATOM + "summary"),
            authors=tuple(authors),
            author_affiliations=tuple(affiliations) if any(affiliations) else (),
            primary_category=clean_text(primary.get("term")) or None
            if primary is not None
            else None,
            categories=_unique(clean_text(c.get("term")) for c in entry.iter(_ATOM + "category")),
            announce_type=text(_PT + "announce_type") or None,
            doi=text(_ARXIV + "doi") or None,
            journal_ref=text(_ARXIV + "journal_ref") or None,
            comment=text(_ARXIV + "comment") or None,
            url=url,
            pdf_url=pdf,
            license=text(_PT + "license") or None,
        )
    except FeedError:
        return None


def _parse_atom_export(data: bytes, source: str, now: datetime | None) -> ParsedFeed:
    """``export -f atom`` read back exactly, from its papertrack fields."""
    result = ParsedFeed(kind="export", papers=[])
    for item in _iter_elements(data, frozenset({_ATOM + "entry"})):
        if isinstance(item, ET.ParseError):
            line, column = item.position
            reason = str(item).split(":")[0]
            result.error = (
                f"{source}: the feed is cut off or malformed at line {line}, column {column} "
                f"({reason}); kept the {len(result.papers):,} entries that arrived whole"
            )
            break
        _collect(result, _atom_export_paper(item, now))
        item.clear()
    return result


def looks_like_json_array(head: bytes) -> bool:
    """True when the first non-blank byte (after a UTF-8 BOM) is ``[``: ``export -f json``."""
    return head.removeprefix(_UTF8_BOM).lstrip(b" \t\r\n").startswith(b"[")


_NON_BLANK_RE = re.compile(r"[^ \t\r\n]")


class ArrayLines:
    """A JSON array (``export -f json``) read as JSON lines: one item a line.

    The array is decoded as it streams, one item at a time, so an export of a
    whole store is never held in memory; the JSON-lines reader then does the
    rest (batches, workers, broken items). An item longer than ``limit``
    characters, or a break in the array, raises :class:`JsonArrayError`.
    """

    def __init__(self, stream: Any, limit: int) -> None:
        self.raw = stream
        self.limit = limit
        self.items = 0
        self._lines = self._iter_lines()

    def close(self) -> None:
        self.raw.close()

    def read1(self, size: int = -1) -> bytes:
        """Whole lines, at least ``size`` bytes of them unless the array ends first."""
        out: list[bytes] = []
        total = 0
        while total < max(size, 1):
            line = next(self._lines, b"")
            if not line:
                break
            out.append(line)
            total += len(line)
        return b"".join(out)

    read = read1

    def _iter_lines(self) -> Iterator[bytes]:
        decoder = json.JSONDecoder()
        text = codecs.getincrementaldecoder("utf-8-sig")()
        read = getattr(self.raw, "read1", self.raw.read)
        buf, pos, eof = "", 0, False

        def fill() -> bool:
            nonlocal buf, pos, eof
            if eof:
                return False
            block = read(1 << 20)
            try:
                more = text.decode(block, final=not block)
            except UnicodeDecodeError:
                raise JsonArrayError(f"item {self.items + 1:,} is not UTF-8 text") from None
            buf, pos, eof = buf[pos:] + more, 0, not block
            return not eof or bool(more)

        def next_char() -> str:
            nonlocal pos
            while True:
                found = _NON_BLANK_RE.search(buf, pos)
                if found is not None:
                    pos = found.start()
                    return buf[pos]
                pos = len(buf)
                if not fill():
                    return ""

        if next_char() != "[":
            raise JsonArrayError("it does not start with '['")
        pos += 1
        while True:
            char = next_char()
            if char == "]":
                pos += 1
                if next_char():
                    raise JsonArrayError(
                        f"there is more after the ']' that ends the {self.items:,} items"
                    )
                return
            if self.items:
                if char != ",":
                    raise JsonArrayError(f"item {self.items:,} is not followed by ',' or ']'")
                pos += 1
                char = next_char()
            if not char:
                raise JsonArrayError(f"the array is cut off after {self.items:,} items")
            while True:
                try:
                    value, end = decoder.raw_decode(buf, pos)
                except json.JSONDecodeError as exc:
                    if len(buf) - pos <= self.limit and fill():
                        continue
                    if len(buf) - pos > self.limit:
                        raise JsonArrayError(
                            f"item {self.items + 1:,} is longer than {self.limit:,} characters"
                        ) from None
                    raise JsonArrayError(
                        f"item {self.items + 1:,} is cut off or not valid JSON ({exc.msg})"
                    ) from None
                if end == len(buf) and fill():
                    continue  # a number at the end of the data read may go on
                break
            pos = end
            self.items += 1
            try:
                line = orjson.dumps(value)
            except TypeError:  # what orjson cannot write (huge integers) json can
                line = json.dumps(value).encode("utf-8")
            yield line + b"\n"


# --- OAI-PMH (§3) --------------------------------------------------------------


def _iter_elements(data: bytes, tags: frozenset[str]) -> Iterator[ET.Element | ET.ParseError]:
    """Yield each complete element whose tag is in ``tags``, in document order.

    Ends with a :class:`ET.ParseError` item where the document breaks, so a
    cut-off response still yields every element that arrived whole.
    """
    parser: ET.XMLPullParser[ET.Element] = ET.XMLPullParser(events=("end",))

    def ready() -> Iterator[ET.Element]:
        # A parse error met while feeding is queued behind the events before
        # it, and raised by read_events when reached.
        for event in parser.read_events():
            # Only "end" events were asked for: (event name, element) pairs.
            element = event[1] if len(event) == 2 else None
            if isinstance(element, ET.Element) and element.tag in tags:
                yield element

    step = 1 << 16
    try:
        for start in range(0, len(data), step):
            parser.feed(data[start : start + step])
            yield from ready()
        parser.close()  # raises at once if the document is unfinished
        yield from ready()
    except ET.ParseError as exc:
        yield exc


def _raw_versions(meta: ET.Element) -> tuple[int | None, datetime | None, datetime | None]:
    versions = meta.findall(_ARXIV_RAW + "version")
    if not versions:
        return None, None, None
    numbers = [_version(v.get("version")) for v in versions]
    known = [n for n in numbers if n is not None]
    return (
        max(known) if known else None,
        _rfc2822(versions[0].findtext(_ARXIV_RAW + "date")),
        _rfc2822(versions[-1].findtext(_ARXIV_RAW + "date")),
    )


def _oai_paper(record: ET.Element) -> Paper | None:
    header = record.find(_OAI + "header")
    if header is None or header.get("status") == "deleted":
        return None
    ident = parse_arxiv_id(header.findtext(_OAI + "identifier") or "")
    metadata = record.find(_OAI + "metadata")
    if metadata is None or len(metadata) == 0:
        return None
    meta = metadata[0]

    if meta.tag == _ARXIV_RAW + "arXivRaw":
        ns = _ARXIV_RAW
        ident = parse_arxiv_id(meta.findtext(ns + "id") or "") or ident
        version, published, updated = _raw_versions(meta)
        authors = _split_authors(meta.findtext(ns + "authors") or "")
    elif meta.tag == _ARXIV_OAI + "arXiv":
        ns = _ARXIV_OAI
        ident = parse_arxiv_id(meta.findtext(ns + "id") or "") or ident
        version = None  # only arXivRaw carries the version history (§3.2)
        published = _ymd(meta.findtext(ns + "created"))
        updated = _ymd(meta.findtext(ns + "updated")) or published
        names = []
        for author in meta.iter(ns + "author"):
            parts = (author.findtext(ns + k) or "" for k in ("forenames", "keyname", "suffix"))
            names.append(_tex(" ".join(parts)))
        authors = _unique(names)
    elif meta.tag == _OAI_DC + "dc":
        return _oai_dc_paper(meta, ident)
    else:
        return None
    if ident is None:
        return None
    arxiv_id = ident[0]
    published, updated = plausible_date(published), plausible_date(updated)
    categories = _arxiv_categories((meta.findtext(ns + "categories") or "").split())
    url, pdf = _arxiv_urls(arxiv_id, version)
    return Paper(
        arxiv_id=arxiv_id,
        title=_tex(meta.findtext(ns + "title")),
        version=version,
        abstract=_tex(meta.findtext(ns + "abstract")),
        authors=authors,
        primary_category=categories[0] if categories else None,  # primary first (§3.2)
        categories=categories,
        published=published,
        updated=updated,
        doi=_first_doi(meta.findtext(ns + "doi")),
        journal_ref=_opt(meta.findtext(ns + "journal-ref")),
        comment=_opt(meta.findtext(ns + "comments")),
        url=url,
        pdf_url=pdf,
        license=_opt(meta.findtext(ns + "license")),
        source="oai",
    )


def _oai_dc_paper(meta: ET.Element, ident: tuple[str, int | None] | None) -> Paper | None:
    """``oai_dc``: creators are "Last, First"; subjects are category *names*, not codes."""
    doi = None
    for identifier in meta.findall(_DC + "identifier"):
        text = (identifier.text or "").strip()
        if text.lower().startswith("doi:"):
            doi = doi or _first_doi(text[4:])
        elif ident is None and "arxiv.org/abs/" in text:
            ident = parse_arxiv_id(text)
    if ident is None:
        return None
    names = []
    for creator in meta.findall(_DC + "creator"):
        last, _, first = (creator.text or "").partition(",")
        names.append(_tex(f"{first} {last}"))
    found = (plausible_date(_ymd(e.text)) for e in meta.findall(_DC + "date"))
    dates = [d for d in found if d is not None]
    arxiv_id = ident[0]
    url, pdf = _arxiv_urls(arxiv_id, None)
    return Paper(
        arxiv_id=arxiv_id,
        title=_tex(meta.findtext(_DC + "title")),
        # The first dc:description is the abstract; later ones are comments (§3.2).
        abstract=_tex(meta.findtext(_DC + "description")),
        authors=_unique(names),
        published=dates[0] if dates else None,
        updated=dates[-1] if dates else None,
        doi=doi,
        url=url,
        pdf_url=pdf,
        source="oai",
    )


def _parse_oai(data: bytes, source: str) -> ParsedFeed:
    result = ParsedFeed(kind="oai", papers=[])
    wanted = frozenset({_OAI + "record", _OAI + "error", _OAI + "resumptionToken"})
    errors: list[tuple[str, str]] = []
    for item in _iter_elements(data, wanted):
        if isinstance(item, ET.ParseError):
            line, column = item.position
            reason = str(item).split(":")[0]
            result.error = (
                f"{source}: the feed is cut off or malformed at line {line}, column {column} "
                f"({reason}); kept the {len(result.papers):,} entries that arrived whole"
            )
            break
        if item.tag == _OAI + "error":
            errors.append((item.get("code") or "unknown", clean_text(item.text)))
        elif item.tag == _OAI + "resumptionToken":
            result.resumption_token = clean_text(item.text) or None
            result.total_results = _int_or_none(item.get("completeListSize"))
        else:
            try:
                paper = _oai_paper(item)
            except FeedError as exc:  # a record no store can hold (a version of 2**64)
                result.warnings.append(f"{source}: skipped a record with a {exc}")
                paper = None
            if paper is None:
                result.skipped += 1
            else:
                result.papers.append(paper)
            item.clear()  # a full harvest page holds 1000 records; free each one
    for code, text in errors:
        if code == "noRecordsMatch":
            # Not a failure: the range or set simply holds nothing (yet).
            result.total_results = 0
            continue
        detail = text.rstrip(".")
        raise FeedError(
            f"OAI-PMH error {code} from {source}: {detail}. Check the request arguments."
        )
    return result


# --- feedparser-based formats ---------------------------------------------------

# Entry id → (author names, affiliations of each author), from the XML itself.
_Affiliations = dict[str, tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]]


def _read_affiliations(data: bytes) -> _Affiliations:
    """Entry id → (author names, affiliations per author), read with ElementTree.

    feedparser folds every ``arxiv:affiliation`` of an entry into one key that
    keeps only the last one (§1.6: 0804.0970 has Gaudel (LRI) and Le Gall
    (IBISC) and feedparser says only "IBISC"), so the XML is read again.
    """
    found: _Affiliations = {}
    for item in _iter_elements(data, frozenset({_ATOM + "entry"})):
        if isinstance(item, ET.ParseError):
            break
        names: list[str] = []
        affiliations: list[tuple[str, ...]] = []
        for author in item.findall(_ATOM + "author"):
            name = clean_text(author.findtext(_ATOM + "name"))
            if not name:
                continue  # a nameless author is dropped, as in _api_paper
            names.append(name)
            affiliations.append(
                _unique(clean_text(a.text) for a in author.findall(_ARXIV + "affiliation"))
            )
        key = (item.findtext(_ATOM + "id") or "").strip()
        if key and any(affiliations):  # an entry without <id> cannot be told from another
            found[key] = (tuple(names), tuple(affiliations))
        item.clear()
    return found


def _field(item: Any, key: str) -> Any:
    """Read a feedparser dict without its aliasing.

    ``FeedParserDict.get("updated_parsed")`` falls back to ``published_parsed``
    with a DeprecationWarning when a feed has no updated date; the plain dict
    lookup reads exactly the key asked for (and is faster).
    """
    return dict.get(item, key) if isinstance(item, dict) else None


def _text_field(item: Any, key: str) -> str:
    """A field that should be text: "" when missing, or when a broken feed made it a dict."""
    value = _field(item, key)
    return value if isinstance(value, str) else ""


def _entry_text(entry: Any, key: str) -> str:
    """An entry's text field, with HTML removed when the feed marks it as HTML."""
    value = _field(entry, key)
    if not isinstance(value, str):
        return ""
    detail = _field(entry, key + "_detail") or {}
    if "html" in str(detail.get("type", "")):
        value = strip_html(value)
    return clean_text(value)


def _tag_terms(entry: Any, arxiv_only: bool) -> list[str]:
    terms = []
    for tag in _field(entry, "tags") or ():
        term = tag.get("term")
        # API entries may add other schemes (ACM, MSC classes); arXiv's own
        # categories have the arXiv scheme (or none, in listings).
        if arxiv_only and tag.get("scheme") not in (None, "", _ARXIV_NS):
            continue
        if isinstance(term, str):
            terms.append(term)
    return terms


def _api_paper(entry: Any, affiliations: _Affiliations, dates: _Dates) -> Paper | None:
    entry_id = _field(entry, "id") or ""
    ident = parse_arxiv_id(entry_id) or parse_arxiv_id(_field(entry, "link") or "")
    if ident is None:
        return None
    arxiv_id, version = ident
    authors = tuple(
        name for name in (clean_text(a.get("name")) for a in _field(entry, "authors") or ()) if name
    )
    author_affiliations: tuple[tuple[str, ...], ...] = ()
    if entry_id and entry_id in affiliations:
        # Names and affiliations come from the same XML pass, so they stay aligned.
        authors, author_affiliations = affiliations[entry_id]
    categories = _arxiv_categories(_tag_terms(entry, arxiv_only=True))
    # Checked like the other categories: a term that is no category name is dropped.
    term = (_field(entry, "arxiv_primary_category") or {}).get("term")
    primary = next(iter(_arxiv_categories([term])), None)
    guessed = False
    if not primary and categories:
        primary, guessed = categories[0], True
    url, pdf = _arxiv_urls(arxiv_id, version)
    return Paper(
        arxiv_id=arxiv_id,
        title=_tex(_field(entry, "title")),
        version=version,
        abstract=_tex(_field(entry, "summary")),
        authors=authors,
        author_affiliations=author_affiliations,
        primary_category=primary or None,
        categories=categories,
        # A bad <published> leaves the paper undated: <updated> is the date of the
        # latest version, which would misdate it.
        published=dates.get(entry, "published"),
        updated=dates.get(entry, "updated"),
        doi=_first_doi(_field(entry, "arxiv_doi")),
        journal_ref=_opt(_field(entry, "arxiv_journal_ref")),
        comment=_opt(_field(entry, "arxiv_comment")),
        url=url,
        pdf_url=pdf,
        primary_guessed=guessed,
        source="api",
    )


def _listing_paper(entry: Any, channel_date: datetime | None, dates: _Dates) -> Paper | None:
    summary = _field(entry, "summary") or ""
    ident = parse_arxiv_id(_field(entry, "id") or "")  # guid: oai:arXiv.org:<id>v<N>
    if ident is None:
        match = _DESCRIPTION_ID_RE.search(summary[:200])
        ident = parse_arxiv_id(match.group(1)) if match else None
    if ident is None:
        ident = parse_arxiv_id(_field(entry, "link") or "")  # has no version
    if ident is None:
        return None
    arxiv_id, version = ident
    # "arXiv:<id>vN Announce Type: new \nAbstract: <abstract>" (§2.2)
    start = summary.find("Abstract:")
    abstract = summary[start + len("Abstract:") :] if start >= 0 else summary
    # dc:creator is one comma-joined string, TeX accents and all (§2.2, §2.5).
    creators = _field(entry, "authors") or ()
    if len(creators) > 1:
        authors = _unique(_tex(c.get("name")) for c in creators)
    else:
        authors = _unique(
            _tex(n) for n in decode_tex_accents(_field(entry, "author") or "").split(",")
        )
    categories = _arxiv_categories(_tag_terms(entry, arxiv_only=False))
    url, pdf = _arxiv_urls(arxiv_id, version)
    return Paper(
        arxiv_id=arxiv_id,
        title=_tex(_field(entry, "title")),
        version=version,
        abstract=_tex(abstract),
        authors=authors,
        # No arxiv:primary_category in listings (§2.3); the first category was
        # the primary in every entry of the real sample, which is a heuristic.
        primary_category=categories[0] if categories else None,
        primary_guessed=bool(categories),
        categories=categories,
        # The entry date is the announcement, not the submission (§2.3).
        announced=dates.get(entry, "published") or channel_date,
        announce_type=_opt(_field(entry, "arxiv_announce_type")),
        doi=_first_doi(_field(entry, "arxiv_doi")),  # arxiv:DOI, upper case in the XML
        journal_ref=_opt(_field(entry, "arxiv_journal_reference")),  # not journal_ref here
        url=url,
        pdf_url=pdf,
        license=_opt(_field(entry, "rights")),  # dc:rights
        source="listing",
    )


def _legacy_paper(entry: Any, channel_date: datetime | None, dates: _Dates) -> Paper | None:
    title = _field(entry, "title") or ""
    match = _LEGACY_TITLE_RE.fullmatch(title)
    ident = parse_arxiv_id(match.group("id")) if match else None
    if ident is None:
        ident = parse_arxiv_id(_field(entry, "link") or "") or parse_arxiv_id(
            _field(entry, "id") or ""
        )
    if ident is None:
        return None
    arxiv_id, version = ident
    categories: tuple[str, ...] = ()
    announce_type = None
    if match:
        title = match.group("title")
        # The bracket holds the primary category, so a cross-list shows another one (§2.6).
        categories = _arxiv_categories([match.group("cat")])
        announce_type = _LEGACY_FLAGS[match.group("flag")]
    description = _field(entry, "summary") or ""
    # 2016-2019 feeds appended "<p>DONATE to arXiv: …</p>" to every abstract (§2.6).
    donate = description.find("DONATE to arXiv")
    if donate > 0:
        description = description[:donate]
    # dc:creator is HTML: '<a href="…/au:+Perera_C/…">Charith Perera</a>, <a …>…</a>'.
    names = strip_html(_field(entry, "author") or "").split(",")
    authors = _unique(
        name for name in (_tex(n) for n in names) if name and not name.startswith("et al")
    )
    url, pdf = _arxiv_urls(arxiv_id, version)
    return Paper(
        arxiv_id=arxiv_id,
        title=_tex(title),
        version=version,
        abstract=_tex(strip_html(description)),
        authors=authors,
        primary_category=categories[0] if categories else None,
        categories=categories,
        announced=dates.get(entry, "updated") or dates.get(entry, "published") or channel_date,
        announce_type=announce_type,
        url=url,
        pdf_url=pdf,
        source="legacy-rss",
    )


def _generic_paper(entry: Any, dates: _Dates) -> Paper | None:
    guid = _field(entry, "id") or ""
    # A link is feed text too: no control, zero-width or bidi characters in it.
    link = clean_text(_field(entry, "link"))
    ident = None
    for candidate in (guid, link):
        # Only an arXiv URL or guid makes an arXiv id: a bare "1234.5678" guid
        # on some other site is just that site's number.
        if "arxiv.org" in candidate.lower():
            ident = parse_arxiv_id(candidate)
            if ident is not None:
                break
    version = None
    url: str | None = link or None
    pdf: str | None = None
    if ident is not None:
        key, version = ident
        url, pdf = _arxiv_urls(key, version)
    else:
        key = clean_text(guid) or clean_text(link)
        if not key:
            return None
    names = [a.get("name") for a in _field(entry, "authors") or ()]
    authors = _unique(clean_text(strip_html(n)) for n in names if isinstance(n, str))
    published = dates.get(entry, "published")
    updated = dates.get(entry, "updated")
    published = published or updated
    return Paper(
        arxiv_id=key,
        title=_entry_text(entry, "title"),
        version=version,
        abstract=_entry_text(entry, "summary"),
        authors=authors,
        categories=_unique(clean_text(t) for t in _tag_terms(entry, arxiv_only=False)),
        published=published,
        updated=updated or published,
        url=url,
        pdf_url=pdf,
        source="feed",
    )


def _detect_kind(parsed: Any, entries: list[Any]) -> str:
    version = _field(parsed, "version") or ""
    feed = _field(parsed, "feed") or {}
    first = entries[0] if entries else {}
    first_id = _text_field(first, "id").lower()
    feed_link = _text_field(feed, "link").lower()
    if version in ("rss10", "rss090"):
        title = _field(first, "title") or ""
        if "(arXiv:" in title or (not entries and "arxiv.org" in feed_link):
            return "legacy-rss"
    if "arxiv_announce_type" in first or first_id.startswith("oai:arxiv.org:"):
        return "listing"
    if not entries and "rss.arxiv.org" in feed_link:
        return "listing"  # a weekend or holiday listing is empty (§2.1)
    namespaces = set((_field(parsed, "namespaces") or {}).values())
    # An empty API page has no entry to go by: its feed id is
    # "http(s)://arxiv.org/api/<hash>" and it carries opensearch counters (§1.3).
    empty_api_page = _OPENSEARCH_NS in namespaces and (
        _ARXIV_NS in namespaces or "arxiv.org/api/" in (_field(feed, "id") or "").lower()
    )
    if version.startswith("atom") and (
        "arxiv.org/abs/" in first_id or "arxiv.org/api/errors#" in first_id or empty_api_page
    ):
        return "api"
    return "feed"


def _api_error(entries: list[Any]) -> None:
    """An API error comes back as a one-entry feed whose id holds ``/api/errors#`` (§1.4)."""
    for entry in entries:
        if "/api/errors#" in (_field(entry, "id") or ""):
            message = clean_text(_field(entry, "summary")) or clean_text(_field(entry, "id"))
            raise FeedError(f"arXiv API error: {message.rstrip('.')}. Check the query or id list.")


def _feedparser(data: bytes, source: str) -> Any:
    """Run feedparser on bytes, safely.

    Always a stream: given bytes or str, feedparser may treat them as a file
    name or URL and read or fetch it (feedparser.parse docstring). Sanitising
    is skipped because every string is reduced to plain text here anyway.
    """
    try:
        return feedparser.parse(io.BytesIO(data), sanitize_html=False, resolve_relative_uris=False)
    except (LookupError, ValueError) as exc:
        # feedparser's own encoding sniffing fails on some mangled declarations
        # (an EBCDIC document naming "\0utf-8" as its encoding).
        raise FeedError(
            f"{source} could not be decoded ({exc}). Check the encoding its XML declaration names"
        ) from None


@dataclass
class _Repair:
    """Where a document broke, and the well-formed part of it that holds whole entries."""

    line: int
    column: int
    reason: str
    whole: int  # entries that closed before the break
    document: bytes | None  # None when the break came before the first entry


def _qualified(name: str) -> tuple[str, str]:
    """expat's name ("uri local prefix", "uri local" or "local") → (local, as written)."""
    parts = name.split(" ")
    if len(parts) == 3:
        return parts[1], f"{parts[2]}:{parts[1]}"
    return parts[-1], parts[-1]


def _repair(data: bytes) -> _Repair | None:
    """Find the XML error and rebuild the document up to the last whole entry.

    Returns None when expat finds the document well-formed after all.
    """
    # Namespace processing on, as in feedparser's SAX parser, so an undeclared
    # prefix is an error here too; prefixes are kept to write the closing tags.
    parser = xml.parsers.expat.ParserCreate(namespace_separator=" ")
    parser.namespace_prefixes = True
    encoding = "utf-8"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        encoding = "utf-16-le" if data.startswith(b"\xff\xfe") else "utf-16-be"
    gt = ">".encode(encoding)
    stack: list[str] = []
    # The last safe cut: (byte offset, elements open there, whole entries before it).
    safe: list[tuple[int, list[str], int]] = []

    def start(name: str, _attrs: Any) -> None:
        local, written = _qualified(name)
        if not safe and local in ("entry", "item"):
            # Before the first entry: the place to cut when no entry is whole,
            # so that the feed's own header (and so its kind) survives.
            safe.append((parser.CurrentByteIndex, list(stack), 0))
        stack.append(written)

    def end(name: str) -> None:
        stack.pop()
        if _qualified(name)[0] in ("entry", "item"):
            close = data.find(gt, parser.CurrentByteIndex) + len(gt)
            whole = safe[-1][2] + 1 if safe else 1
            safe[:] = [(close, list(stack), whole)]

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(data, True)
    except xml.parsers.expat.ExpatError as exc:
        reason = xml.parsers.expat.errors.messages.get(exc.code, str(exc))
        if not safe:
            return _Repair(exc.lineno, exc.offset, reason, 0, None)
        cut, still_open, whole = safe[-1]
        closing = "".join(f"</{name}>" for name in reversed(still_open)).encode(encoding)
        return _Repair(exc.lineno, exc.offset, reason, whole, data[:cut] + closing)
    return None


def parse_feed(data: bytes, source: str = "<feed>", *, now: datetime | None = None) -> ParsedFeed:
    """Parse any supported document, detecting its kind.

    Every paper's fields are bounded (:func:`bounded`); a cut is a warning.

    Args:
        data: the raw bytes as served (encoding is detected from the document).
        source: a name for messages (URL or path).
        now: the time dates are checked against (default: the clock). An entry
            date more than two days after it, before 1991 or impossible
            (2026-02-30) is dropped with a warning; see :class:`_Dates`.

    Returns:
        A :class:`ParsedFeed`. A cut-off or malformed document does not raise:
        ``error`` says where it broke and ``papers`` holds only whole entries.

    Raises:
        FeedError: an arXiv API error feed, an OAI-PMH error, a broken JSON
            line, an XML document over :data:`MAX_FEED_BYTES`, or bytes that
            are no feed at all (an HTML page is named as one).
    """
    if not data.strip():
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
    head = data[:4096]
    if looks_like_jsonl(head) or looks_like_json_array(head):
        return parse_jsonl(data, source)
    _refuse_lossy_export(head, source)
    if len(data) > MAX_FEED_BYTES:
        raise FeedError(
            f"{source} is larger than {MAX_FEED_BYTES // (1024 * 1024)} MB, more than papertrack "
            "reads from one XML feed (arXiv's own pages stay under 10 MB). Split it into "
            "smaller files, or use the JSON-lines snapshot, which is read as a stream"
        )
    data = _expat_readable(data)
    head = data[:4096]
    if _OAI_ROOT_RE.search(head):
        return _parse_oai(data, source)
    if _PT_HEAD_RE.search(head) and _FEED_ROOT_RE.search(head):
        return _parse_atom_export(data, source, now)

    data = _trim_partial_utf8(data)
    parsed = _feedparser(data, source)
    entries: list[Any] = list(_field(parsed, "entries") or ())
    exc = _field(parsed, "bozo_exception") if _field(parsed, "bozo") else None
    # Only XML errors mean lost data; feedparser also reports benign things
    # (CharacterEncodingOverride, NonXMLContentType) through bozo.
    broken = isinstance(exc, xml.sax.SAXException)
    if not _field(parsed, "version") and not entries:
        if not (broken and _FEED_ROOT_RE.search(head)):
            _refuse_html(head, source)
            raise FeedError(_NOT_A_FEED.format(source=source))

    error = None
    warnings: list[str] = []
    if broken:
        repair = _repair(data)
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
                f"kept the {repair.whole:,} entries that arrived whole"
            )
            if repair.document is None:
                entries = []
            else:
                data = repair.document
                parsed = _feedparser(data, source)
                entries = list(_field(parsed, "entries") or ())[: repair.whole]

    kind = _detect_kind(parsed, entries)
    feed = _field(parsed, "feed") or {}
    result = ParsedFeed(kind=kind, papers=[], error=error, warnings=warnings)
    dates = _Dates(latest=(now or datetime.now(UTC)) + _FUTURE_SLACK)
    channel_date = dates.get(feed, "updated") or dates.get(feed, "published")

    if kind == "api":
        _api_error(entries)
        result.total_results = _int_or_none(_field(feed, "opensearch_totalresults"))
        affiliations = _read_affiliations(data) if b"affiliation" in data else {}
        for entry in entries:
            paper = _api_paper(entry, affiliations, dates)
            _collect(result, paper)
        start = _int_or_none(_field(feed, "opensearch_startindex"))
        total = result.total_results or 0
        if not entries and error is None and (start or 0) < total:
            # arXiv intermittently serves a valid but empty page although more
            # results exist (§1.5, arxiv.py #43); the caller should retry.
            result.warnings.append(
                f"{source}: the arXiv API returned an empty page although it reports "
                f"{total:,} results; retry later"
            )
    elif kind == "listing":
        for entry in entries:
            _collect(result, _listing_paper(entry, channel_date, dates))
    elif kind == "legacy-rss":
        for entry in entries:
            _collect(result, _legacy_paper(entry, channel_date, dates))
    else:
        for entry in entries:
            _collect(result, _generic_paper(entry, dates))
    if dates.dropped:
        result.warnings.append(
            f"{source}: ignored {dates.dropped:,} date{'s' if dates.dropped != 1 else ''} that "
            "cannot be right (impossible, before 1991, in the future or not a date); those "
            "entries are dated by another of their dates or left undated"
        )
    return result


def _refuse_lossy_export(head: bytes, source: str) -> None:
    """Name a CSV or BibTeX export: they leave out too much to be read back as papers."""
    start = head.removeprefix(_UTF8_BOM).lstrip()
    if start.startswith(b"arxiv_id,version,paper_date,"):
        what = "a papertrack CSV export"
    elif start.startswith((b"@misc{arxiv:", b"@misc{feed:")):
        what = "a papertrack BibTeX export"
    else:
        return
    raise FeedError(
        f"{source} is {what}, which leaves out abstracts, affiliations and exact dates, "
        "so papertrack does not read it back. Export with --format jsonl, json or atom "
        "to move papers between stores"
    )


def _refuse_html(head: bytes, source: str) -> None:
    """Raise a clear error when the document is a web page (a 503 or 404 page, a login wall)."""
    if not _HTML_RE.search(head[:1024]):
        return
    found = _HTML_TITLE_RE.search(head)
    title = clean_text(strip_html(found.group(1).decode("utf-8", "replace"))) if found else ""
    named = f' titled "{shorten(title, 80)}"' if title else ""
    raise FeedError(
        f"{source} is an HTML web page{named}, not a feed. The site may be down or the "
        "address may be a web page: check the URL (or the file), or try again later"
    )


def _collect(result: ParsedFeed, paper: Paper | None) -> None:
    if paper is None:
        result.skipped += 1
    else:
        result.papers.append(paper)
