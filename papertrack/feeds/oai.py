"""OAI-PMH ListRecords and GetRecord pages (export.arxiv.org/oai2), in arXiv's three formats.

``arXivRaw`` carries the version history (so the version and the first
submission date), ``arXiv`` the parsed author names, ``oai_dc`` only Dublin Core
(creators "Last, First", category names instead of codes, no version). A page is
streamed record by record, so a cut-off response keeps every whole record; an
OAI-PMH ``<error>`` raises, except ``noRecordsMatch``, which is an empty page.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import datetime

from ..errors import FeedError
from ..ids import parse_arxiv_id
from ..models import Paper
from ..text import clean_text
from .authors import oai_arxiv_authors, oai_dc_authors, split_authors
from .common import (
    DateRule,
    ParsedFeed,
    arxiv_categories,
    arxiv_urls,
    first_doi,
    int_or_none,
    opt,
    rfc2822,
    tex,
    version_number,
    version_order,
    ymd,
)
from .xml import cut_off, iter_elements

_OAI = "{http://www.openarchives.org/OAI/2.0/}"
_ARXIV_RAW = "{http://arxiv.org/OAI/arXivRaw/}"
_ARXIV_OAI = "{http://arxiv.org/OAI/arXiv/}"
_OAI_DC = "{http://www.openarchives.org/OAI/2.0/oai_dc/}"
_DC = "{http://purl.org/dc/elements/1.1/}"


def _raw_versions(meta: ET.Element) -> tuple[int | None, datetime | None, datetime | None]:
    versions = meta.findall(_ARXIV_RAW + "version")
    if not versions:
        return None, None, None
    numbers = [version_number(v.get("version")) for v in versions]
    order = version_order(numbers)
    return (
        numbers[order[-1]],
        rfc2822(versions[order[0]].findtext(_ARXIV_RAW + "date")),
        rfc2822(versions[order[-1]].findtext(_ARXIV_RAW + "date")),
    )


def _oai_paper(record: ET.Element, dates: DateRule) -> Paper | None:
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
        authors = split_authors(meta.findtext(ns + "authors") or "")
    elif meta.tag == _ARXIV_OAI + "arXiv":
        ns = _ARXIV_OAI
        ident = parse_arxiv_id(meta.findtext(ns + "id") or "") or ident
        version = None  # only arXivRaw carries the version history
        published = ymd(meta.findtext(ns + "created"))
        updated = ymd(meta.findtext(ns + "updated")) or published
        authors = oai_arxiv_authors(meta, ns)
    elif meta.tag == _OAI_DC + "dc":
        return _oai_dc_paper(meta, ident, dates)
    else:
        return None
    if ident is None:
        return None
    arxiv_id = ident[0]
    published, updated = dates.check_pair(published, updated)
    categories = arxiv_categories((meta.findtext(ns + "categories") or "").split())
    url, pdf = arxiv_urls(arxiv_id, version)
    return Paper(
        arxiv_id=arxiv_id,
        title=tex(meta.findtext(ns + "title")),
        version=version,
        abstract=tex(meta.findtext(ns + "abstract")),
        authors=authors,
        primary_category=categories[0] if categories else None,  # primary first
        categories=categories,
        published=published,
        updated=updated,
        doi=first_doi(meta.findtext(ns + "doi")),
        journal_ref=opt(meta.findtext(ns + "journal-ref")),
        comment=opt(meta.findtext(ns + "comments")),
        url=url,
        pdf_url=pdf,
        license=opt(meta.findtext(ns + "license")),
        source="oai",
    )


def _oai_dc_paper(
    meta: ET.Element, ident: tuple[str, int | None] | None, rule: DateRule
) -> Paper | None:
    """``oai_dc``: creators are "Last, First"; subjects are category *names*, not codes."""
    doi = None
    for identifier in meta.findall(_DC + "identifier"):
        text = (identifier.text or "").strip()
        if text.lower().startswith("doi:"):
            doi = doi or first_doi(text[4:])
        elif ident is None and "arxiv.org/abs/" in text:
            ident = parse_arxiv_id(text)
    if ident is None:
        return None
    found = (rule.check(ymd(e.text)) for e in meta.findall(_DC + "date"))
    dates = [d for d in found if d is not None]
    arxiv_id = ident[0]
    url, pdf = arxiv_urls(arxiv_id, None)
    return Paper(
        arxiv_id=arxiv_id,
        title=tex(meta.findtext(_DC + "title")),
        # The first dc:description is the abstract; later ones are comments.
        abstract=tex(meta.findtext(_DC + "description")),
        authors=oai_dc_authors(meta, _DC),
        published=dates[0] if dates else None,
        updated=dates[-1] if dates else None,
        doi=doi,
        url=url,
        pdf_url=pdf,
        source="oai",
    )


def parse_oai(data: bytes, source: str, now: datetime | None = None) -> ParsedFeed:
    result = ParsedFeed(kind="oai", papers=[])
    dates = DateRule.at(now)
    wanted = frozenset({_OAI + "record", _OAI + "error", _OAI + "resumptionToken"})
    errors: list[tuple[str, str]] = []
    for item in iter_elements(data, wanted):
        if isinstance(item, ET.ParseError):
            result.error = cut_off(source, item, len(result.papers))
            break
        if item.tag == _OAI + "error":
            errors.append((item.get("code") or "unknown", clean_text(item.text)))
        elif item.tag == _OAI + "resumptionToken":
            result.resumption_token = clean_text(item.text) or None
            result.total_results = int_or_none(item.get("completeListSize"))
        else:
            try:
                paper = _oai_paper(item, dates)
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
    warning = dates.warning(source)
    if warning:
        result.warnings.append(warning)
    return result
