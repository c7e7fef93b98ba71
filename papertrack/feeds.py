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
``feed``        any other RSS/Atom feed
==============  ===============================================================

The layouts, and every quirk handled here, are written up with their sources in
``ARXIV_FORMATS.md`` (cited below by section). Nothing here prints, reads the
environment or touches the network: the caller fetches, this module parses.
"""

from __future__ import annotations

import io
import json
import re
import time
import xml.etree.ElementTree as ET
import xml.parsers.expat
import xml.sax
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import feedparser

from .errors import FeedError
from .ids import abs_url, parse_arxiv_id, pdf_url
from .models import Paper
from .text import clean_text, decode_tex_accents, strip_html

__all__ = [
    "ParsedFeed",
    "looks_like_jsonl",
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


def _rfc2822(value: Any) -> datetime | None:
    """``Mon, 2 Apr 2007 19:18:42 GMT`` (Kaggle, arXivRaw) → aware UTC datetime."""
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        parsed = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)  # "-0000" means UTC with no zone claim
    return parsed.astimezone(UTC)


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
    """arXiv text (titles, abstracts, names) is TeX: decode accents, then clean."""
    if not isinstance(value, str):
        return ""
    return clean_text(decode_tex_accents(value))


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


def _int_or_none(value: Any) -> int | None:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


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
    strings = [p if isinstance(p, str) else "" for p in parts[:3]] + ["", "", ""]
    last, first, suffix = strings[0], strings[1], strings[2]
    # The snapshot's name splitter spaces hyphenated initials: "C.-P." comes out
    # as "C. -P." (0704.0001); put them back together.
    first = first.replace(". -", ".-")
    return clean_text(" ".join(p for p in (first, last, suffix) if p))


def parse_jsonl_line(line: bytes | str, source: str, lineno: int) -> Paper:
    """Parse one line of the Kaggle ``arxiv-metadata-oai-snapshot.json`` (§4).

    Raises:
        FeedError: the line is not a JSON object with a valid arXiv ``id``.
    """
    try:
        record = json.loads(line)
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
    version = _int_or_none(str(versions[-1].get("version", "")).lstrip("v")) if versions else None
    # The paper date is the first version's submission (PRODUCT.md): versions[0],
    # not update_date, which is the last metadata change.
    published = _rfc2822(versions[0].get("created")) if versions else None
    updated = _rfc2822(versions[-1].get("created")) if versions else None

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
    return Paper(
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


def parse_jsonl(data: bytes, source: str = "<jsonl>") -> ParsedFeed:
    """Parse a whole JSON lines file (see :func:`parse_jsonl_line`).

    A last line that is broken and not newline-terminated is a cut-off download:
    it sets ``error`` and keeps the lines before it. Any other broken line raises.
    """
    papers: list[Paper] = []
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
                    f"kept the {len(papers)} lines that arrived whole",
                )
            raise exc
    return ParsedFeed(kind="kaggle", papers=papers)


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
    numbers = [_int_or_none((v.get("version") or "").lstrip("v")) for v in versions]
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
    dates = [d for d in (_ymd(e.text) for e in meta.findall(_DC + "date")) if d is not None]
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
                f"({reason}); kept the {len(result.papers)} entries that arrived whole"
            )
            break
        if item.tag == _OAI + "error":
            errors.append((item.get("code") or "unknown", clean_text(item.text)))
        elif item.tag == _OAI + "resumptionToken":
            result.resumption_token = clean_text(item.text) or None
            result.total_results = _int_or_none(item.get("completeListSize"))
        else:
            paper = _oai_paper(item)
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
            names.append(clean_text(author.findtext(_ATOM + "name")))
            affiliations.append(
                _unique(clean_text(a.text) for a in author.findall(_ARXIV + "affiliation"))
            )
        if any(affiliations):
            found[(item.findtext(_ATOM + "id") or "").strip()] = (tuple(names), tuple(affiliations))
        item.clear()
    return found


def _field(item: Any, key: str) -> Any:
    """Read a feedparser dict without its aliasing.

    ``FeedParserDict.get("updated_parsed")`` falls back to ``published_parsed``
    with a DeprecationWarning when a feed has no updated date; the plain dict
    lookup reads exactly the key asked for (and is faster).
    """
    return dict.get(item, key) if isinstance(item, dict) else None


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


def _api_paper(entry: Any, affiliations: _Affiliations) -> Paper | None:
    entry_id = _field(entry, "id") or ""
    ident = parse_arxiv_id(entry_id) or parse_arxiv_id(_field(entry, "link") or "")
    if ident is None:
        return None
    arxiv_id, version = ident
    authors = tuple(
        name for name in (clean_text(a.get("name")) for a in _field(entry, "authors") or ()) if name
    )
    author_affiliations: tuple[tuple[str, ...], ...] = ()
    if entry_id in affiliations:
        # Names and affiliations come from the same XML pass, so they stay aligned.
        authors, author_affiliations = affiliations[entry_id]
    categories = _arxiv_categories(_tag_terms(entry, arxiv_only=True))
    primary = (_field(entry, "arxiv_primary_category") or {}).get("term")
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
        published=_dt(_field(entry, "published_parsed")),
        updated=_dt(_field(entry, "updated_parsed")),
        doi=_first_doi(_field(entry, "arxiv_doi")),
        journal_ref=_opt(_field(entry, "arxiv_journal_ref")),
        comment=_opt(_field(entry, "arxiv_comment")),
        url=url,
        pdf_url=pdf,
        primary_guessed=guessed,
        source="api",
    )


def _listing_paper(entry: Any, channel_date: datetime | None) -> Paper | None:
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
        announced=_dt(_field(entry, "published_parsed")) or channel_date,
        announce_type=_opt(_field(entry, "arxiv_announce_type")),
        doi=_first_doi(_field(entry, "arxiv_doi")),  # arxiv:DOI, upper case in the XML
        journal_ref=_opt(_field(entry, "arxiv_journal_reference")),  # not journal_ref here
        url=url,
        pdf_url=pdf,
        license=_opt(_field(entry, "rights")),  # dc:rights
        source="listing",
    )


def _legacy_paper(entry: Any, channel_date: datetime | None) -> Paper | None:
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
        announced=_dt(_field(entry, "updated_parsed") or _field(entry, "published_parsed"))
        or channel_date,
        announce_type=announce_type,
        url=url,
        pdf_url=pdf,
        source="legacy-rss",
    )


def _generic_paper(entry: Any) -> Paper | None:
    guid = _field(entry, "id") or ""
    link = _field(entry, "link") or ""
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
    published = _dt(_field(entry, "published_parsed")) or _dt(_field(entry, "updated_parsed"))
    return Paper(
        arxiv_id=key,
        title=_entry_text(entry, "title"),
        version=version,
        abstract=_entry_text(entry, "summary"),
        authors=authors,
        categories=_unique(clean_text(t) for t in _tag_terms(entry, arxiv_only=False)),
        published=published,
        updated=_dt(_field(entry, "updated_parsed")) or published,
        url=url,
        pdf_url=pdf,
        source="feed",
    )


def _detect_kind(parsed: Any, entries: list[Any]) -> str:
    version = _field(parsed, "version") or ""
    feed = _field(parsed, "feed") or {}
    first = entries[0] if entries else {}
    first_id = (_field(first, "id") or "").lower()
    feed_link = (_field(feed, "link") or "").lower()
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


def _feedparser(data: bytes) -> Any:
    """Run feedparser on bytes, safely.

    Always a stream: given bytes or str, feedparser may treat them as a file
    name or URL and read or fetch it (feedparser.parse docstring). Sanitising
    is skipped because every string is reduced to plain text here anyway.
    """
    return feedparser.parse(io.BytesIO(data), sanitize_html=False, resolve_relative_uris=False)


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


def parse_feed(data: bytes, source: str = "<feed>") -> ParsedFeed:
    """Parse any supported document, detecting its kind.

    Args:
        data: the raw bytes as served (encoding is detected from the document).
        source: a name for messages (URL or path).

    Returns:
        A :class:`ParsedFeed`. A cut-off or malformed document does not raise:
        ``error`` says where it broke and ``papers`` holds only whole entries.

    Raises:
        FeedError: an arXiv API error feed, an OAI-PMH error, a broken JSON
            line, or bytes that are no feed at all.
    """
    head = data[:4096]
    if looks_like_jsonl(head):
        return parse_jsonl(data, source)
    if _OAI_ROOT_RE.search(head):
        return _parse_oai(data, source)

    data = _trim_partial_utf8(data)
    parsed = _feedparser(data)
    entries: list[Any] = list(_field(parsed, "entries") or ())
    exc = _field(parsed, "bozo_exception") if _field(parsed, "bozo") else None
    # Only XML errors mean lost data; feedparser also reports benign things
    # (CharacterEncodingOverride, NonXMLContentType) through bozo.
    broken = isinstance(exc, xml.sax.SAXException)
    if not _field(parsed, "version") and not entries:
        if not (broken and _FEED_ROOT_RE.search(head)):
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
                f"kept the {repair.whole} entries that arrived whole"
            )
            if repair.document is None:
                entries = []
            else:
                data = repair.document
                parsed = _feedparser(data)
                entries = list(_field(parsed, "entries") or ())[: repair.whole]

    kind = _detect_kind(parsed, entries)
    feed = _field(parsed, "feed") or {}
    result = ParsedFeed(kind=kind, papers=[], error=error, warnings=warnings)
    channel_date = _dt(_field(feed, "updated_parsed")) or _dt(_field(feed, "published_parsed"))

    if kind == "api":
        _api_error(entries)
        result.total_results = _int_or_none(_field(feed, "opensearch_totalresults"))
        affiliations = _read_affiliations(data) if b"affiliation" in data else {}
        for entry in entries:
            paper = _api_paper(entry, affiliations)
            _collect(result, paper)
        start = _int_or_none(_field(feed, "opensearch_startindex"))
        total = result.total_results or 0
        if not entries and error is None and (start or 0) < total:
            # arXiv intermittently serves a valid but empty page although more
            # results exist (§1.5, arxiv.py #43); the caller should retry.
            result.warnings.append(
                f"{source}: the arXiv API returned an empty page although it reports "
                f"{total} results; retry later"
            )
    elif kind == "listing":
        for entry in entries:
            _collect(result, _listing_paper(entry, channel_date))
    elif kind == "legacy-rss":
        for entry in entries:
            _collect(result, _legacy_paper(entry, channel_date))
    else:
        for entry in entries:
            _collect(result, _generic_paper(entry))
    return result


def _collect(result: ParsedFeed, paper: Paper | None) -> None:
    if paper is None:
        result.skipped += 1
    else:
        result.papers.append(paper)
