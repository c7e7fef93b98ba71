"""export.arxiv.org/api/query Atom pages, 2007-2025 and 2026 layouts (kind ``api``).

feedparser reads the page (:mod:`papertrack.feeds.syndication`), or, for a page
in the shape arXiv serves, ElementTree gives the same entries faster
(:mod:`papertrack.feeds.api_xml`); each entry is turned into a paper here.
Affiliations are read from the XML itself
(:func:`papertrack.feeds.authors.read_affiliations`), because feedparser keeps
only one per entry.
"""

from __future__ import annotations

from typing import Any

from ..errors import FeedError
from ..ids import parse_arxiv_id
from ..models import Paper
from ..text import clean_text
from .authors import Affiliations, api_authors, read_affiliations
from .common import (
    ParsedFeed,
    arxiv_categories,
    arxiv_urls,
    collect,
    first_doi,
    int_or_none,
    opt,
    tex,
)
from .entries import EntryDates, field, tag_terms


def api_paper(entry: Any, affiliations: Affiliations, dates: EntryDates) -> Paper | None:
    """One API entry, or None when it has no arXiv id."""
    entry_id = field(entry, "id") or ""
    ident = parse_arxiv_id(entry_id) or parse_arxiv_id(field(entry, "link") or "")
    if ident is None:
        return None
    arxiv_id, version = ident
    authors, author_affiliations = api_authors(entry, affiliations)
    categories = arxiv_categories(tag_terms(entry, arxiv_only=True))
    # Checked like the other categories: a term that is no category name is dropped.
    primary_field = field(entry, "arxiv_primary_category")
    # A dict of its attributes; text inside the element made it a string ("math.CO").
    term = primary_field.get("term") if isinstance(primary_field, dict) else None
    primary = next(iter(arxiv_categories([term])), None)
    guessed = False
    if not primary and categories:
        primary, guessed = categories[0], True
    url, pdf = arxiv_urls(arxiv_id, version)
    return Paper(
        arxiv_id=arxiv_id,
        title=tex(field(entry, "title")),
        version=version,
        abstract=tex(field(entry, "summary")),
        authors=authors,
        author_affiliations=author_affiliations,
        primary_category=primary or None,
        categories=categories,
        # A bad <published> leaves the paper undated: <updated> is the date of the
        # latest version, which would misdate it.
        published=dates.get(entry, "published"),
        updated=dates.get(entry, "updated"),
        doi=first_doi(field(entry, "arxiv_doi")),
        journal_ref=opt(field(entry, "arxiv_journal_ref")),
        comment=opt(field(entry, "arxiv_comment")),
        url=url,
        pdf_url=pdf,
        primary_guessed=guessed,
        source="api",
    )


def api_error(entries: list[Any]) -> None:
    """An API error comes back as a one-entry feed whose id holds ``/api/errors#``."""
    for entry in entries:
        if "/api/errors#" in (field(entry, "id") or ""):
            message = clean_text(field(entry, "summary")) or clean_text(field(entry, "id"))
            raise FeedError(f"arXiv API error: {message.rstrip('.')}. Check the query or id list.")


def read_api_page(
    result: ParsedFeed,
    feed: Any,
    entries: list[Any],
    data: bytes,
    dates: EntryDates,
    source: str,
    affiliations: Affiliations | None = None,
) -> None:
    """Fill ``result`` from an API page's feed and entries, as feedparser gives them
    (``data`` is the XML they were read from, for the ``affiliations`` when not given)."""
    api_error(entries)
    result.total_results = int_or_none(field(feed, "opensearch_totalresults"))
    if affiliations is None:
        affiliations = read_affiliations(data) if b"affiliation" in data else {}
    for entry in entries:
        collect(result, api_paper(entry, affiliations, dates), field(entry, "id"))
    start = int_or_none(field(feed, "opensearch_startindex"))
    total = result.total_results or 0
    if not entries and result.error is None and (start or 0) < total:
        # arXiv intermittently serves a valid but empty page although more
        # results exist (arxiv.py #43); the caller should retry.
        result.notices.append(
            f"{source}: the arXiv API returned an empty page although it reports "
            f"{total:,} results; retry later"
        )
