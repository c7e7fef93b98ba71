"""The Kaggle ``arxiv-metadata-oai-snapshot`` JSON lines, and papertrack's own jsonl/json exports.

A JSON-lines file is read line by line: a line with an ``id`` is a snapshot
record (read here); one with an ``arxiv_id`` and no ``id`` is a line of
``papertrack export -f jsonl`` (read by :mod:`papertrack.feeds.exports`). A JSON
array, ``export -f json``, is streamed item by item as if each were a line.
"""

from __future__ import annotations

import io
import json
from datetime import datetime
from typing import Any

import orjson

from ..errors import FeedError, JsonArrayError
from ..ids import parse_arxiv_id
from ..models import Paper
from ..text import counted
from .authors import kaggle_authors
from .common import (
    MAX_FEED_BYTES,
    UTF8_BOM,
    DateRule,
    ParsedFeed,
    arxiv_categories,
    arxiv_urls,
    bounded,
    first_doi,
    opt,
    rfc2822,
    tex,
    version_number,
    version_order,
)
from .exports import ArrayLines, is_export_record, looks_like_json_array, paper_from_export


def looks_like_jsonl(head: bytes) -> bool:
    """True when the first non-blank byte (after a UTF-8 BOM) is ``{``."""
    return head.removeprefix(UTF8_BOM).lstrip(b" \t\r\n").startswith(b"{")


def _loads(line: bytes | str) -> Any:
    """One JSON value: orjson first (7 against 13 us for a snapshot line, measured
    here), json for what orjson refuses and json reads (a BOM, UTF-16, NaN, huge
    integers), so that the lines accepted are exactly json's."""
    try:
        return orjson.loads(line)
    except ValueError:
        pass
    try:
        return json.loads(line)
    except UnicodeDecodeError:
        if not isinstance(line, bytes):
            raise
        # A byte that is not UTF-8 (in a title, say) is U+FFFD, as in an XML feed:
        # the whole line, its paper, was dropped as broken.
        return json.loads(line.decode("utf-8", "replace"))


def parse_jsonl_line(
    line: bytes | str, source: str, lineno: int, dates: DateRule | None = None
) -> Paper:
    """Parse one line of the Kaggle ``arxiv-metadata-oai-snapshot.json``.

    Dates are checked by ``dates`` (default: the rule at the clock, uncounted):
    one that cannot be right is dropped, and the line is kept.

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
            return bounded(paper_from_export(record, dates))[0]
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
        numbers = [version_number(v.get("version")) for v in versions]
    except FeedError as exc:
        raise FeedError(f"{source}: line {lineno} has a {exc}. Check the line") from None
    # In version order, whatever order the list is in (the snapshot's is v1 first; a
    # reversed list stored v1 with v11's date as the paper date).
    order = version_order(numbers)
    version = numbers[order[-1]] if versions else None
    # The paper date is the first version's submission: v1's, not update_date, which
    # is the last metadata change (docs/feeds.md, "Kaggle snapshot").
    published = rfc2822(versions[order[0]].get("created")) if versions else None
    updated = rfc2822(versions[order[-1]].get("created")) if versions else None
    # As in XML feeds (see EntryDates): a date before arXiv or in the future cannot be right.
    rule = dates or DateRule.at(None)
    published, updated = rule.check_pair(published, updated)

    categories = arxiv_categories(
        (record.get("categories") or "").split()
        if isinstance(record.get("categories"), str)
        else ()
    )
    url, pdf = arxiv_urls(arxiv_id, version)
    paper = Paper(
        arxiv_id=arxiv_id,
        title=tex(record.get("title")),
        version=version,
        abstract=tex(record.get("abstract")),
        authors=kaggle_authors(record),
        # "categories" lists the primary first: observed and documented.
        primary_category=categories[0] if categories else None,
        categories=categories,
        published=published,
        updated=updated,
        doi=first_doi(record.get("doi")),
        journal_ref=opt(record.get("journal-ref")),
        comment=opt(record.get("comments")),
        url=url,
        pdf_url=pdf,
        license=opt(record.get("license")),
        source="kaggle",
    )
    return bounded(paper)[0]  # cut quietly: a snapshot's summary counts papers, not fields


def parse_jsonl(data: bytes, source: str = "<jsonl>", *, now: datetime | None = None) -> ParsedFeed:
    """Parse a whole JSON lines file (see :func:`parse_jsonl_line`), or a JSON array.

    A last line that is broken and not newline-terminated is a cut-off download:
    it sets ``error`` and keeps the lines before it. Any other broken line raises.
    Dates are checked against ``now`` (default: the clock).
    """
    papers: list[Paper] = []
    dates = DateRule.at(now)

    def done(kind: str, error: str | None = None) -> ParsedFeed:
        warning = dates.warning(source)
        return ParsedFeed(
            kind=kind, papers=papers, error=error, warnings=[warning] if warning else []
        )

    if looks_like_json_array(data[:4096]):
        array = ArrayLines(io.BytesIO(data), MAX_FEED_BYTES)
        try:
            for number, line in enumerate(array._iter_lines(), start=1):
                papers.append(parse_jsonl_line(line, source, number, dates))
        except JsonArrayError as exc:
            return done("export", f"{source}: {exc}; kept {counted(len(papers), 'paper')}")
        return done("export")
    lines = data.removeprefix(UTF8_BOM).split(b"\n")
    last = len(lines)
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            papers.append(parse_jsonl_line(line, source, lineno, dates))
        except FeedError as exc:
            if lineno == last:  # no newline after it: the download stopped mid-line
                return done(
                    "kaggle",
                    f"{source}: the file is cut off at line {lineno}; "
                    f"kept the {counted(len(papers), 'line')} that arrived whole",
                )
            raise exc
    return done("kaggle")
