"""The data papertrack works with: frozen dataclasses plus their JSON forms."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any


def _iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is not UTC:
        value = value.astimezone(UTC)
    return value.isoformat().replace("+00:00", "Z")


def utc_text(moment: datetime) -> str:
    """A time as papertrack writes one for others to read: UTC, to the second, with
    "Z" (``2026-12-03T06:30:00Z``), as a paper's times are stored."""
    # isoformat, not strftime: glibc writes the year 999 as "999", which no reader
    # of RFC 3339 takes (a site --as-of 0500-06-01 wrote it into its feeds).
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def from_iso(value: str | None) -> datetime | None:
    """An ISO 8601 timestamp as stored (``2026-08-20T17:01:02Z``) → aware UTC datetime.

    Raises:
        ValueError: not such a timestamp, or one whose UTC time is past the calendar
            (``0001-01-01T00:00:00+05:00``).
    """
    if not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC)
    except OverflowError:
        raise ValueError(f"{value!r} is out of the calendar's range in UTC") from None


# The kind of each stored field (see Paper.to_record), for check_kinds and mend_record.
_TEXT_FIELDS = ("title", "abstract")
_LIST_FIELDS = ("authors", "categories", "tags")
#: Text a feed may give or not (None when it did not).
_FEED_TEXT_FIELDS = ("doi", "journal_ref", "comment", "url", "pdf_url", "license", "announce_type")
_OPTIONAL_TEXT_FIELDS = ("primary_category", "source", *_FEED_TEXT_FIELDS)
_TIME_FIELDS = ("published", "updated", "announced", "paper_date")


def _field_fault(key: str, value: Any) -> bool:
    """Whether a stored record's ``value`` for ``key`` is of the wrong kind."""
    if key in _TEXT_FIELDS:
        return not isinstance(value, str)
    if key in _LIST_FIELDS:
        return not isinstance(value, list) or not all(isinstance(v, str) for v in value)
    if key == "author_affiliations":
        return not isinstance(value, list) or not all(
            isinstance(names, list) and all(isinstance(n, str) for n in names) for names in value
        )
    if key in _OPTIONAL_TEXT_FIELDS:
        return value is not None and not isinstance(value, str)
    if key == "version":
        return value is not None and (not isinstance(value, int) or isinstance(value, bool))
    if key == "primary_guessed":
        return not isinstance(value, bool)
    if key in _TIME_FIELDS:
        if value is None:
            return False
        try:
            return not isinstance(value, str) or from_iso(value) is None
        except ValueError:
            return True
    return False


def check_kinds(record: dict[str, Any]) -> None:
    """Raise TypeError for a field of the wrong kind, which Paper would take: authors
    "Alice Smith" became one author a letter in an export, version "two" went out
    as text, and doctor called the file damaged while every reader went on.

    Run on every record read, so only each field's container is looked at; doctor's
    :func:`mend_record` looks at everything.
    """
    for key in (*_LIST_FIELDS, "author_affiliations"):
        if not isinstance(record.get(key) or [], list):
            raise TypeError(f"{key} is not a list")
    for key in (*_TEXT_FIELDS, "primary_category"):
        if not isinstance(record.get(key) or "", str):
            raise TypeError(f"{key} is not text")
    version = record.get("version")
    if version is not None and (type(version) is not int or version < 0):
        raise TypeError("version is not a whole number")


def mend_record(doc: Any) -> tuple[dict[str, Any], list[str]] | None:
    """A stored record with each field of the wrong kind dropped, and those fields' names.

    Readers take a record's fields as they come (a list of authors written as a
    string reads as one author per letter); ``doctor`` finds such fields and a
    repair drops them, keeping the rest of the paper. None: no paper record at all,
    which needs a non-empty ``arxiv_id`` and the ``title`` every record is written
    with (a record cut down to its id is not a paper that can be kept).
    """
    if not isinstance(doc, dict) or "title" not in doc:
        return None
    arxiv_id = doc.get("arxiv_id")
    if not isinstance(arxiv_id, str) or not arxiv_id.strip():
        return None
    bad = [key for key, value in doc.items() if _field_fault(key, value)]
    if not bad:
        return doc, []
    mended = {key: value for key, value in doc.items() if key not in bad}
    for key in bad:
        if key in _TEXT_FIELDS:
            mended[key] = ""
        elif key in _LIST_FIELDS or key == "author_affiliations":
            mended[key] = []
        elif key == "primary_guessed":
            mended[key] = False
        else:
            mended[key] = None
    return mended, bad


#: Told (files done, files in all) as a long scan of the store goes through its
#: week files; the CLI draws a spinner with it, core code never prints.
Progress = Callable[[int, int], None]

#: Stored fields that are not part of the JSON schema.
_PROVENANCE = frozenset({"primary_guessed", "source"})


@dataclass(frozen=True, slots=True)
class Paper:
    """One arXiv article (or one entry of a non-arXiv feed), keyed by ``arxiv_id``.

    ``arxiv_id`` is versionless (``2508.13167``, ``hep-th/9901001``); entries of
    other feeds keep their guid or link there. ``author_affiliations`` runs
    parallel to ``authors`` (empty when the feed names none). All datetimes are
    timezone-aware UTC.
    """

    arxiv_id: str
    title: str
    version: int | None = None
    abstract: str = ""
    authors: tuple[str, ...] = ()
    author_affiliations: tuple[tuple[str, ...], ...] = ()
    primary_category: str | None = None
    categories: tuple[str, ...] = ()
    published: datetime | None = None
    updated: datetime | None = None
    announced: datetime | None = None
    announce_type: str | None = None
    doi: str | None = None
    journal_ref: str | None = None
    comment: str | None = None
    url: str | None = None
    pdf_url: str | None = None
    license: str | None = None
    tags: tuple[str, ...] = ()
    #: True when ``primary_category`` is only the feed's first category (listing feeds).
    primary_guessed: bool = False
    #: Which format the record came from: api, listing, legacy-rss, kaggle, oai, feed.
    source: str = ""

    @property
    def paper_date(self) -> datetime | None:
        """First-version date; the announcement date until a better one is known."""
        return self.published or self.announced

    @property
    def changed_at(self) -> datetime | None:
        """When the paper last changed, as far as known: its newest version's date, else
        its paper date (an Atom entry's ``updated``, and a feed's, from its newest entry)."""
        return self.updated or self.published or self.announced

    def dated_from(self, since: datetime | None) -> bool:
        """Whether the paper is dated on or after ``since`` (any paper when None; an
        undated one never otherwise): what every --since keeps."""
        date = self.paper_date
        return since is None or (date is not None and date >= since)

    def dated_before(self, until: datetime | None) -> bool:
        """Whether the paper is dated before ``until`` (any paper when None; an undated
        one never otherwise): what ``ask --as-of`` keeps."""
        date = self.paper_date
        return until is None or (date is not None and date < until)

    @property
    def shown_title(self) -> str:
        """The title to show a reader: an entry without one (a generic feed's) by its id."""
        return self.title if self.title.strip() else f"(untitled: {self.arxiv_id})"

    @property
    def affiliations(self) -> list[str]:
        """Distinct affiliations in author order."""
        seen: dict[str, None] = {}
        for names in self.author_affiliations:
            for name in names:
                seen.setdefault(name, None)
        return list(seen)

    def with_tags(self, tags: tuple[str, ...]) -> Paper:
        return replace(self, tags=tags)

    def to_dict(self) -> dict[str, Any]:
        """The stable JSON schema of docs/output.md (plus a few documented extras).

        The stored record without its provenance fields, with ``affiliations``
        (derived from ``author_affiliations``) after ``authors``.
        """
        out: dict[str, Any] = {}
        for key, value in self.to_record().items():
            if key in _PROVENANCE:
                continue
            out[key] = value
            if key == "authors":
                out["affiliations"] = self.affiliations
        return out

    def to_record(self) -> dict[str, Any]:
        """The form kept in the store: the JSON schema plus provenance fields.

        Built field by field (a bulk import makes one for every paper), without
        the derived ``affiliations`` that :meth:`to_dict` adds.
        """
        return {
            "arxiv_id": self.arxiv_id,
            "version": self.version,
            "title": self.title,
            "abstract": self.abstract,
            "authors": list(self.authors),
            "author_affiliations": [list(a) for a in self.author_affiliations],
            "primary_category": self.primary_category,
            "categories": list(self.categories),
            "published": _iso(self.published),
            "updated": _iso(self.updated),
            "announced": _iso(self.announced),
            "announce_type": self.announce_type,
            "paper_date": _iso(self.paper_date),
            "doi": self.doi,
            "journal_ref": self.journal_ref,
            "comment": self.comment,
            "url": self.url,
            "pdf_url": self.pdf_url,
            "license": self.license,
            "tags": list(self.tags),
            "primary_guessed": self.primary_guessed,
            "source": self.source,
        }

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Paper:
        return cls(
            arxiv_id=record["arxiv_id"],
            title=record.get("title") or "",
            version=record.get("version"),
            abstract=record.get("abstract") or "",
            authors=tuple(record.get("authors") or ()),
            author_affiliations=tuple(tuple(a) for a in record.get("author_affiliations") or ()),
            primary_category=record.get("primary_category"),
            categories=tuple(record.get("categories") or ()),
            published=from_iso(record.get("published")),
            updated=from_iso(record.get("updated")),
            announced=from_iso(record.get("announced")),
            announce_type=record.get("announce_type"),
            doi=record.get("doi"),
            journal_ref=record.get("journal_ref"),
            comment=record.get("comment"),
            url=record.get("url"),
            pdf_url=record.get("pdf_url"),
            license=record.get("license"),
            tags=tuple(record.get("tags") or ()),
            primary_guessed=bool(record.get("primary_guessed")),
            source=record.get("source") or "",
        )


@dataclass(slots=True)
class SourceReport:
    """What ingesting one source did. ``error`` is set when the source failed or was cut off."""

    source: str
    kind: str = ""
    papers: int = 0
    new: int = 0
    updated: int = 0
    unchanged: int = 0
    #: Entries dropped for want of an arXiv id, and the ids of the first few as given.
    skipped: int = 0
    skipped_ids: list[str] = field(default_factory=list)
    #: Papers left out by a category filter.
    filtered: int = 0
    #: The line an interrupted ingest of this file was resumed at.
    resumed_at: int | None = None
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    #: Warnings said even without -v (an empty page that claims results).
    notices: list[str] = field(default_factory=list)


@dataclass(slots=True)
class UpsertResult:
    """Counts of one store write."""

    new: int = 0
    updated: int = 0
    unchanged: int = 0

    def add(self, other: UpsertResult) -> None:
        self.new += other.new
        self.updated += other.updated
        self.unchanged += other.unchanged


@dataclass(slots=True)
class IngestReport:
    """What ``papertrack ingest`` did, source by source."""

    sources: list[SourceReport] = field(default_factory=list)

    @property
    def failed(self) -> list[SourceReport]:
        return [s for s in self.sources if s.error]

    def totals(self) -> UpsertResult:
        total = UpsertResult()
        for s in self.sources:
            total.add(UpsertResult(s.new, s.updated, s.unchanged))
        return total


_FILLABLE = ("abstract", *_FEED_TEXT_FIELDS, "updated")


def paper_date_key(paper: Paper) -> tuple[str, str]:
    """The order of papers by paper date, then id: sorted with ``reverse=True``, newest first.

    Undated papers sort last when newest-first. Every newest-first list (``latest``,
    search, export, digest, the site, ``ask``'s ties) sorts by this one key.
    """
    moment = paper.paper_date
    return (moment.isoformat() if moment else "", paper.arxiv_id)


def merge_papers(stored: Paper | None, incoming: Paper) -> Paper:
    """Combine what the store holds about a paper with a newly read record.

    The record with the higher version supplies the content (title, abstract,
    authors, version, updated); an older version never overwrites a newer one.
    Either side fills fields the other lacks, so an API page adds the
    submission date, the real primary category and affiliations to a paper first
    seen in a listing feed. Tags are left to the caller.
    """
    if stored is None:
        return incoming
    if (incoming.version or 0) > (stored.version or 0):
        base, other = incoming, stored
    else:
        base, other = stored, incoming
    changes: dict[str, Any] = {}
    # An older version's date is not the newer one's: a listing announcing v2 has no
    # 'updated', and v1's was shown as v2's.
    older = (other.version or 0) < (base.version or 0)
    for name in _FILLABLE:
        if name == "updated" and older:
            continue
        if not getattr(base, name) and getattr(other, name):
            changes[name] = getattr(other, name)
    if not base.title and other.title:
        changes["title"] = other.title
    if not base.authors and other.authors:
        changes["authors"] = other.authors
    if not base.categories and other.categories:
        changes["categories"] = other.categories
    # The v1 date is the same in every version; keep whichever side knows it.
    if base.published is None and other.published is not None:
        changes["published"] = other.published
    # The first announcement is the one that dates the paper.
    announced = [d for d in (base.announced, other.announced) if d is not None]
    if announced and min(announced) != base.announced:
        changes["announced"] = min(announced)
    if (
        (base.primary_guessed or not base.primary_category)
        and other.primary_category
        and (not other.primary_guessed or not base.primary_category)
    ):
        changes["primary_category"] = other.primary_category
        changes["primary_guessed"] = other.primary_guessed
    authors = changes.get("authors", base.authors)
    if not any(base.author_affiliations) and any(other.author_affiliations):
        if len(other.author_affiliations) == len(authors):
            changes["author_affiliations"] = other.author_affiliations
    return replace(base, **changes) if changes else base


def paper_filter(patterns: Iterable[str]) -> Callable[[Paper], bool] | None:
    """:func:`category_test` of a paper (None for no patterns): what ``-c`` keeps."""
    test = category_test(patterns)
    if test is None:
        return None
    return lambda paper: test(paper.categories)


def category_test(patterns: Iterable[str]) -> Callable[[Iterable[str]], bool] | None:
    """A test that a paper's categories include one of ``patterns``, or None for no patterns.

    A pattern is a category (``cs.AI``, any case) or a prefix ending in ``*``
    (``cs.*``, ``math*``). Cross-lists count: every category of a paper is tried.
    """
    exact = {p.casefold() for p in patterns if p and not p.endswith("*")}
    prefixes = tuple(p[:-1].casefold() for p in patterns if p.endswith("*"))
    if not exact and not prefixes:
        return None

    def test(categories: Iterable[str]) -> bool:
        for category in categories:
            folded = category.casefold()
            if folded in exact or (prefixes and folded.startswith(prefixes)):
                return True
        return False

    return test
