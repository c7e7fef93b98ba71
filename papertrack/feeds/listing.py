"""rss.arxiv.org daily listings: the 2024 redesign (Atom and RSS 2.0, kind ``listing``) and
the export.arxiv.org/rss layout before it (RSS 1.0 / RDF, kind ``legacy-rss``).

feedparser reads the listing (:mod:`papertrack.feeds.syndication`); each entry
is turned into a paper here. A listing's date is the announcement, not the
submission, so it fills ``announced``; the channel's date stands in for an
entry without one.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from ..ids import id_month, parse_arxiv_id
from ..models import Paper
from ..text import strip_html
from .authors import legacy_authors, listing_authors
from .common import arxiv_categories, arxiv_urls, first_doi, opt, tex
from .entries import EntryDates, field, tag_terms

# The listing description starts "arXiv:2509.13332v1 Announce Type: new \nAbstract: …".
_DESCRIPTION_ID_RE = re.compile(r"arXiv:(\S+)")
# Legacy RSS titles end in "(arXiv:1606.08480v1 [cs.CY])", "(… [cs.LG] UPDATED)",
# or "(… [math.GR] CROSS LISTED)" (seen in 2018 and 2021 captures quoted
# in steog88/PhysBiblio's tests).
_LEGACY_TITLE_RE = re.compile(
    r"(?P<title>.*?)\.?\s*\(arXiv:(?P<id>[^\s\[\]()]+)\s*\[(?P<cat>[^\]]*)\]"
    r"\s*(?P<flag>UPDATED|CROSS LISTED)?\s*\)\s*",
    re.DOTALL,
)
_LEGACY_FLAGS = {None: "new", "UPDATED": "replace", "CROSS LISTED": "cross"}
#: The announce types of a new version of a paper announced before.
_REPLACED = frozenset({"replace", "replace-cross"})


def _dated(
    arxiv_id: str, announce_type: str | None, when: datetime | None
) -> tuple[datetime | None, datetime | None]:
    """(``announced``, ``updated``) of a listing entry announced at ``when``.

    A replacement of a paper whose id is from an earlier month than the listing is an
    old paper's new version: ``when`` dates that version (``updated``), not the paper,
    whose date is unknown until an API page or a snapshot gives it. As its
    announcement it counted a paper of 2025 as new in 2026, in momentum, ``latest
    --since`` and digests. Within the month the announcement stays the nearer guess.
    """
    if announce_type in _REPLACED and when is not None:
        month = id_month(arxiv_id)
        if month is not None and month < (when.year, when.month):
            return None, when
    return when, None


def listing_paper(entry: Any, channel_date: datetime | None, dates: EntryDates) -> Paper | None:
    summary = field(entry, "summary") or ""
    ident = parse_arxiv_id(field(entry, "id") or "")  # guid: oai:arXiv.org:<id>v<N>
    if ident is None:
        match = _DESCRIPTION_ID_RE.search(summary[:200])
        ident = parse_arxiv_id(match.group(1)) if match else None
    if ident is None:
        ident = parse_arxiv_id(field(entry, "link") or "")  # has no version
    if ident is None:
        return None
    arxiv_id, version = ident
    # "arXiv:<id>vN Announce Type: new \nAbstract: <abstract>"
    start = summary.find("Abstract:")
    abstract = summary[start + len("Abstract:") :] if start >= 0 else summary
    categories = arxiv_categories(tag_terms(entry, arxiv_only=False))
    url, pdf = arxiv_urls(arxiv_id, version)
    kind = opt(field(entry, "arxiv_announce_type"))
    # The entry date is the announcement, not the submission.
    announced, updated = _dated(arxiv_id, kind, dates.get(entry, "published") or channel_date)
    return Paper(
        arxiv_id=arxiv_id,
        title=tex(field(entry, "title")),
        version=version,
        abstract=tex(abstract),
        authors=listing_authors(entry),
        # No arxiv:primary_category in listings; the first category was
        # the primary in every entry of the real sample, which is a heuristic.
        primary_category=categories[0] if categories else None,
        primary_guessed=bool(categories),
        categories=categories,
        announced=announced,
        updated=updated,
        announce_type=kind,
        doi=first_doi(field(entry, "arxiv_doi")),  # arxiv:DOI, upper case in the XML
        journal_ref=opt(field(entry, "arxiv_journal_reference")),  # not journal_ref here
        url=url,
        pdf_url=pdf,
        license=opt(field(entry, "rights")),  # dc:rights
        source="listing",
    )


def legacy_paper(entry: Any, channel_date: datetime | None, dates: EntryDates) -> Paper | None:
    title = field(entry, "title") or ""
    match = _LEGACY_TITLE_RE.fullmatch(title)
    ident = parse_arxiv_id(match.group("id")) if match else None
    if ident is None:
        ident = parse_arxiv_id(field(entry, "link") or "") or parse_arxiv_id(
            field(entry, "id") or ""
        )
    if ident is None:
        return None
    arxiv_id, version = ident
    categories: tuple[str, ...] = ()
    announce_type = None
    if match:
        title = match.group("title")
        # The bracket holds the primary category, so a cross-list shows another one.
        categories = arxiv_categories([match.group("cat")])
        announce_type = _LEGACY_FLAGS[match.group("flag")]
    description = field(entry, "summary") or ""
    # 2016-2019 feeds appended "<p>DONATE to arXiv: …</p>" to every abstract.
    donate = description.find("DONATE to arXiv")
    if donate > 0:
        description = description[:donate]
    url, pdf = arxiv_urls(arxiv_id, version)
    when = dates.get(entry, "updated") or dates.get(entry, "published") or channel_date
    announced, updated = _dated(arxiv_id, announce_type, when)
    return Paper(
        arxiv_id=arxiv_id,
        title=tex(title),
        version=version,
        abstract=tex(strip_html(description)),
        authors=legacy_authors(entry),
        primary_category=categories[0] if categories else None,
        categories=categories,
        announced=announced,
        updated=updated,
        announce_type=announce_type,
        url=url,
        pdf_url=pdf,
        source="legacy-rss",
    )
