"""papertrack's own exports read back: ``export -f jsonl``, ``-f json`` and ``-f atom``.

jsonl lines and json items are the papers' ``to_dict`` form (:func:`paper_from_export`;
the JSON-lines reader in :mod:`papertrack.feeds.kaggle` hands them here); an
Atom export carries every stored field in the ``papertrack:`` namespace
(:func:`parse_atom_export`). A JSON array is streamed item by item
(:class:`ArrayLines`) so an export of a whole store is never held in memory.
"""

from __future__ import annotations

import codecs
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import orjson

from ..errors import FeedError, JsonArrayError
from ..ids import parse_arxiv_id
from ..models import Paper, from_iso
from ..text import clean_text, shorten
from .authors import export_atom_authors, export_record_authors
from .common import (
    ARXIV,
    ATOM,
    UTF8_BOM,
    DateRule,
    ParsedFeed,
    collect,
    unique,
    version_number,
)
from .xml import cut_off, iter_elements

PAPERTRACK_NS = "urn:papertrack:schema:export:1"
_PT = "{" + PAPERTRACK_NS + "}"
# Exports written before the papertrack namespace existed only name papertrack as
# their generator: their <published> may be a listing's announcement date.
EXPORT_HEAD_RE = re.compile(
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
    return unique(clean_text(v) for v in value)


def _export_date(value: Any, key: str, rule: DateRule) -> datetime | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise FeedError(f"has a {key} date that is not text")
    try:
        moment = from_iso(value.strip())
    except ValueError:
        raise FeedError(f"has a {key} date that is not ISO 8601 ({shorten(value, 40)!r})") from None
    return rule.check(moment)


def _export_paper(
    ident: str,
    *,
    version: Any,
    dates: tuple[datetime | None, datetime | None, datetime | None],
    as_stored: bool = False,
    **fields: Any,
) -> Paper:
    """A paper read back from an export; ``ident`` is the stored id, as exported.

    The store keys an entry of another feed by its guid as given, which may look
    like an arXiv id (``arXiv:2606.00006``): that is kept as it is when the entry's
    own link is not arXiv's (or ``as_stored`` says so: Atom's ``papertrack:id``), so
    it does not fold into arXiv's paper on read-back.
    """
    parsed = None if as_stored else parse_arxiv_id(ident)
    url = fields.get("url") or ""
    if parsed is not None and parsed != (ident, None) and url and "arxiv.org/" not in url:
        parsed = None
    arxiv_id = parsed[0] if parsed is not None else clean_text(ident)
    if not arxiv_id:
        raise FeedError("has no id")
    published, updated, announced = dates
    primary = fields.get("primary_category") or None
    return Paper(
        arxiv_id=arxiv_id,
        version=version_number(version) if version is not None else None,
        published=published,
        updated=updated,
        announced=announced,
        # Exports leave out whether the primary category was only guessed: it was
        # when the paper is known from a listing alone, which gives no submission
        # date (a new paper has its announcement, an older paper's replacement only
        # ``updated``), so an API page read later may still correct it.
        primary_guessed=bool(primary) and published is None,
        source=_EXPORT_SOURCE,
        **fields,
    )


def paper_from_export(record: dict[str, Any], dates: DateRule | None = None) -> Paper:
    """The paper of one ``export -f jsonl`` line or ``-f json`` item (its ``to_dict`` form).

    ``tags`` are left out: the store tags every paper with its own topics, and
    ``paper_date`` and ``affiliations`` are derived from the other fields. Dates
    are checked by ``dates`` (default: the rule at the clock, uncounted).

    Raises:
        FeedError: a field of the wrong type (the message completes "line N …").
    """
    rule = dates or DateRule.at(None)
    ident = record.get("arxiv_id")
    if not isinstance(ident, str):
        raise FeedError("has no arxiv_id")
    version = record.get("version")
    if version is not None and (isinstance(version, bool) or not isinstance(version, int)):
        raise FeedError("has a version that is not a number")
    authors, affiliations = export_record_authors(record)
    optional: dict[str, Any] = {
        key: _export_text(record, key) or None
        for key in ("announce_type", "doi", "journal_ref", "comment", "url", "pdf_url", "license")
    }
    return _export_paper(
        ident,
        version=version,
        dates=(
            _export_date(record.get("published"), "published", rule),
            _export_date(record.get("updated"), "updated", rule),
            _export_date(record.get("announced"), "announced", rule),
        ),
        title=_export_text(record, "title"),
        abstract=_export_text(record, "abstract"),
        authors=authors,
        author_affiliations=affiliations,
        primary_category=_export_text(record, "primary_category") or None,
        categories=_export_strings(record, "categories"),
        **optional,
    )


def atom_export_paper(entry: ET.Element, rule: DateRule) -> Paper | None:
    """One entry of ``export -f atom`` (see :func:`papertrack.export.atom_entry`)."""

    def text(tag: str) -> str:
        return clean_text(entry.findtext(tag))

    def date(name: str) -> datetime | None:
        found = entry.find(_PT + name)
        if found is None:
            return None
        try:
            return _export_date(found.text or "", name, rule)
        except FeedError:
            return None

    stored = text(_PT + "id")  # an entry of another feed: its key as stored
    if stored:
        ident = stored
    else:
        parsed = parse_arxiv_id(text(ATOM + "id"))
        if parsed is None:
            return None
        ident = parsed[0]
    authors, affiliations = export_atom_authors(entry)
    links = {link.get("rel"): link.get("href") for link in entry.iter(ATOM + "link")}
    primary = entry.find(ARXIV + "primary_category")
    # Any child in papertrack's namespace: a versionless entry without a web link has
    # neither papertrack:version nor papertrack:url, and read as an old export its
    # dates were lost.
    if any(child.tag.startswith(_PT) for child in entry):
        version: Any = text(_PT + "version") or None
        dates = (date("published"), date("updated"), date("announced"))
        url, pdf = text(_PT + "url") or None, text(_PT + "pdf_url") or None
    else:
        # An export written before the papertrack namespace: <published> is the
        # paper date, an announcement as often as a submission, so it is kept as
        # the announcement, which never overwrites a submission date.
        try:
            announced = from_iso(text(ATOM + "published"))
        except ValueError:
            announced = None
        version, dates = None, (None, None, rule.check(announced))
        url, pdf = (
            clean_text(links.get("alternate")) or None,
            clean_text(links.get("related")) or None,
        )
    try:
        return _export_paper(
            ident,
            version=version,
            dates=dates,
            as_stored=bool(stored),
            title=text(ATOM + "title"),
            abstract=text(ATOM + "summary"),
            authors=authors,
            author_affiliations=affiliations,
            primary_category=clean_text(primary.get("term")) or None
            if primary is not None
            else None,
            categories=unique(clean_text(c.get("term")) for c in entry.iter(ATOM + "category")),
            announce_type=text(_PT + "announce_type") or None,
            doi=text(ARXIV + "doi") or None,
            journal_ref=text(ARXIV + "journal_ref") or None,
            comment=text(ARXIV + "comment") or None,
            url=url,
            pdf_url=pdf,
            license=text(_PT + "license") or None,
        )
    except FeedError:
        return None


def parse_atom_export(data: bytes, source: str, now: datetime | None) -> ParsedFeed:
    """``export -f atom`` read back exactly, from its papertrack fields."""
    result = ParsedFeed(kind="export", papers=[])
    rule = DateRule.at(now)
    for item in iter_elements(data, frozenset({ATOM + "entry"})):
        if isinstance(item, ET.ParseError):
            result.error = cut_off(source, item, len(result.papers))
            break
        collect(result, atom_export_paper(item, rule))
        item.clear()
    warning = rule.warning(source)
    if warning:
        result.warnings.append(warning)
    return result


def looks_like_json_array(head: bytes) -> bool:
    """True when the first non-blank byte (after a UTF-8 BOM) is ``[``: ``export -f json``."""
    return head.removeprefix(UTF8_BOM).lstrip(b" \t\r\n").startswith(b"[")


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
        #: A break met after some whole items: raised on the next read, once they are taken.
        self._error: JsonArrayError | None = None

    def close(self) -> None:
        self.raw.close()

    def read1(self, size: int = -1) -> bytes:
        """Whole lines, at least ``size`` bytes of them unless the array ends first."""
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        out: list[bytes] = []
        total = 0
        while total < max(size, 1):
            try:
                line = next(self._lines, b"")
            except JsonArrayError as exc:
                if not out:
                    raise
                self._error = exc  # the items before the break are whole: they go first
                break
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
                except RecursionError:
                    raise JsonArrayError(
                        f"item {self.items + 1:,} is nested too deeply to be a paper"
                    ) from None
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
