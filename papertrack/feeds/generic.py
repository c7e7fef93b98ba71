"""Any other RSS or Atom feed (kind ``feed``): a journal's, a blog's, a preprint server's.

An entry keeps its guid or link as its id, unless that is an arXiv URL; text
marked as HTML is reduced to plain text; no TeX is decoded.
"""

from __future__ import annotations

from typing import Any

from ..ids import parse_arxiv_id
from ..models import Paper
from ..text import clean_text
from .authors import generic_authors
from .common import arxiv_urls, unique
from .entries import EntryDates, entry_text, field, tag_terms


def generic_paper(entry: Any, dates: EntryDates) -> Paper | None:
    guid = field(entry, "id") or ""
    # A link is feed text too: no control, zero-width or bidi characters in it.
    link = clean_text(field(entry, "link"))
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
        url, pdf = arxiv_urls(key, version)
    else:
        key = clean_text(guid) or clean_text(link)
        if not key:
            return None
    published = dates.get(entry, "published")
    updated = dates.get(entry, "updated")
    published = published or updated
    return Paper(
        arxiv_id=key,
        title=entry_text(entry, "title"),
        version=version,
        abstract=entry_text(entry, "summary"),
        authors=generic_authors(entry),
        categories=unique(clean_text(t) for t in tag_terms(entry, arxiv_only=False)),
        published=published,
        updated=updated or published,
        url=url,
        pdf_url=pdf,
        source="feed",
    )
