"""The paper store: TinyDB files partitioned by ISO week, written atomically.

Layout of a store directory::

    papertrack-store.json   marks the directory as a store, with its format version
    papers/2026-07-27.json  one TinyDB database per ISO week (Monday, UTC) of the paper date
    papers/undated.json     entries of non-arXiv feeds that carry no date at all
    ids/2508.json           arxiv_id -> week, sharded by the id's YYMM: finds a paper to update
    index.json              per-topic weekly and daily counts ('*' counts all), fingerprints
    .lock                   writers take it; readers never wait
    .dirty                  set while a write is in flight: the next writer rebuilds derived files
    resume/                 where an interrupted snapshot import stopped
    damaged/                copies of files that doctor --repair replaced

papertrack writes into a directory only when it is empty, holds the marker, or is
a store made before the marker existed (nothing but the names above in it): any
other directory is refused, and clean-up only ever removes papertrack's own temp
files (``.NAME.PID.tmp``) from the store's own folders.

A single TinyDB file is parse-bound (measured: 1.2 s per cold query at 100k papers,
15 s at 1M) and rewrites itself in place, which corrupted it in 10 of 10 kills. Here a
query reads the small index plus the newest week files only, and every file is
replaced atomically (temp file, fsync, ``os.replace``), so a kill leaves either
the old or the new file, never a mix.

This is the only module that imports tinydb.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import os
import sqlite3
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from tinydb import TinyDB
from tinydb.middlewares import CachingMiddleware
from tinydb.storages import Storage
from tinydb.table import Document

from papertrack.errors import StoreError
from papertrack.files import (
    TEMP_NAME,
    Lock,
    all_or_nothing,
    remove_file,
    temp_files,
    write_atomic,
)
from papertrack.models import Paper, Progress, UpsertResult, from_iso, merge_papers
from papertrack.text import visible

if TYPE_CHECKING:
    from papertrack.fulltext import TextIndex
    from papertrack.topics import Catalog

#: Version of index.json. 2 added daily counts, 3 category counts; an index of an
#: older schema is rebuilt from the partitions by the next writer (see
#: :meth:`Store.index_outdated`).
SCHEMA = 3
#: A test on a paper's raw title, abstract, authors and categories.
FieldMatcher = Callable[[str, str, list[str], list[str]], bool]
#: Week -> ids of the papers that may match a query (see :meth:`Store.candidates`).
Candidates = Mapping[str, AbstractSet[str]]
UNDATED = "undated"
ALL = "*"
PAPERS_TABLE = "papers"
#: The file that makes a directory a papertrack store.
MARKER = "papertrack-store.json"
#: The store layout's version, in the marker. A store of a newer format is refused.
FORMAT = 1
#: Every name a store directory holds: a directory without the marker that holds
#: only these is a store made before the marker (or one being made).
_LAYOUT = frozenset(
    {MARKER, "papers", "ids", "index.json", ".lock", ".dirty", "resume", "damaged"}
    | {"search.sqlite", "search.sqlite-wal", "search.sqlite-shm", "search.sqlite-journal"}
)


# --------------------------------------------------------------------------- files


def read_json(path: Path) -> Any:
    """Read one store file; a damaged file is a StoreError naming it."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(
            f"could not read {path}: {exc.strerror or exc}. Check its permissions"
        ) from exc
    try:
        # orjson reads a week file of 2,000 papers in ~17 ms, json in ~28 ms.
        return orjson.loads(raw)
    except ValueError:
        pass  # json says what is wrong in its own familiar words, or reads what orjson won't
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as exc:  # RecursionError: garbage like [[[[…
        raise StoreError(f"store file {path} is damaged ({exc}). {REPAIR_HINT}") from exc


def _dumps(data: Any) -> bytes:
    # Compact UTF-8 JSON, as json.dumps(separators=(",", ":")) would write it, but 8x
    # faster: a week file of 2,000 papers takes ~7 ms instead of ~55 ms, and a bulk
    # import or retag writes every week file it touches whole.
    return orjson.dumps(data)


class AtomicJSONStorage(Storage):
    """TinyDB storage that replaces its file atomically instead of rewriting it in place.

    TinyDB's own JSONStorage truncates and rewrites the file, so a kill during a
    write leaves it unreadable or silently cut (STORE_MEASUREMENTS.md §4).
    """

    def __init__(self, path: Path, read_only: bool = False) -> None:
        self.path = Path(path)
        self.read_only = read_only

    def read(self) -> dict[str, dict[str, Any]] | None:
        data = read_json(self.path)
        if data is None:
            return None
        # Checked here, once, so that a garbled file is a StoreError naming it in every
        # reader rather than a KeyError deep inside TinyDB or Paper.from_record.
        problem = _shape_problem(data)
        if problem or not isinstance(data, dict):
            raise StoreError(f"store file {self.path} is damaged ({problem}). {REPAIR_HINT}")
        return data

    def write(self, data: dict[str, dict[str, Any]]) -> None:
        if self.read_only:
            raise StoreError(f"{self.path} was opened read-only. This is a bug in papertrack")
        write_atomic(self.path, _dumps(data))

    def close(self) -> None:
        pass


# --------------------------------------------------------------------------- keys


def week_of(moment: datetime | None) -> str:
    """The partition key: the Monday (UTC) of the ISO week of ``moment``, or 'undated'."""
    if moment is None:
        return UNDATED
    day = moment.astimezone(UTC).date()
    return (day - timedelta(days=day.weekday())).isoformat()


def week_start(key: str) -> date | None:
    return None if key == UNDATED else date.fromisoformat(key)


def id_shard(arxiv_id: str) -> str:
    """A safe file name for the id map shard holding ``arxiv_id``.

    New-style ids shard by their YYMM, old-style ones by archive-independent YYMM;
    anything else (guids of other feeds) by a hash, so an id never becomes a path.
    """
    if len(arxiv_id) >= 9 and arxiv_id[:4].isdigit() and arxiv_id[4] == ".":
        return arxiv_id[:4]
    head, sep, tail = arxiv_id.partition("/")
    if sep and len(tail) >= 4 and tail[:4].isdigit() and head.replace("-", "").isalpha():
        return "o" + tail[:4]
    return "x" + hashlib.sha1(arxiv_id.encode("utf-8")).hexdigest()[:2]


def _week_sort_key(key: str) -> str:
    # Undated entries sort after every dated week, i.e. last when newest-first.
    return "0000" if key == UNDATED else key


def _recency(paper: Paper) -> tuple[int, str]:
    updated = paper.updated.isoformat() if paper.updated else ""
    return (paper.version or 0, updated)


def _fields(record: dict[str, Any]) -> tuple[str, str, list[str], list[str]]:
    """What topic queries read of a stored record: title, abstract, authors, categories."""
    return (
        record.get("title") or "",
        record.get("abstract") or "",
        record.get("authors") or [],
        record.get("categories") or [],
    )


def _paper(record: dict[str, Any], path: Path) -> Paper:
    """A stored record as a Paper; a record of the wrong types is a damaged file, named."""
    try:
        return Paper.from_record(record)
    except (TypeError, ValueError, AttributeError, KeyError) as exc:
        raise StoreError(
            f"store file {path} is damaged (record {record.get('arxiv_id')!r}: {exc}). "
            f"{REPAIR_HINT}"
        ) from None


def _write_index_file(store: Store, index: Index) -> None:
    """Write index.json (staged when inside :func:`all_or_nothing`) with a new generation."""
    import secrets

    index.generation = secrets.token_hex(8)
    write_atomic(store.index_path, _dumps(index.to_tinydb()))


def _text_of(paper: Paper) -> tuple[str, str, list[str], list[str]]:
    return (paper.title, paper.abstract, list(paper.authors), list(paper.categories))


def _paper_sort_key(paper: Paper) -> tuple[str, str]:
    moment = paper.paper_date
    return (moment.isoformat() if moment else "", paper.arxiv_id)


# --------------------------------------------------------------------------- lock


# --------------------------------------------------------------------------- index


@dataclass
class Index:
    """Derived data kept beside the partitions: counts per topic and catalog fingerprints.

    ``counts`` is {topic: {week: papers}} (weeks as in :func:`week_of`, 'undated'
    included). ``days`` is {topic: {week: [papers on Monday, …, on Sunday]}} for
    dated papers, so that momentum windows such as (D − 28 days, D] are exact to the
    day when D is not a Sunday. Seven counts under a week key keep index.json at
    about 3× the size of weekly counts alone, against 7× for one key per day: at 1M
    synthetic papers (bench/run.py) index.json is 366 KiB and loads in ~10 ms; a
    simulation of one key per day gave 849 KiB and 20 ms, weekly counts alone 125 KiB.

    ``primary`` counts papers by primary category and ``listed`` by every category
    they are listed in (cross-lists included), for ``papertrack stats``.
    """

    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    days: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    primary: dict[str, int] = field(default_factory=dict)
    listed: dict[str, int] = field(default_factory=dict)
    fingerprints: dict[str, str] = field(default_factory=dict)
    #: The schema the index was read with; below :data:`SCHEMA` it lacks newer fields.
    schema: int = SCHEMA
    #: A new random token at every write: the full-text index records the one it is in
    #: step with (an index.json without one, from an older papertrack, matches none).
    generation: str = ""

    @classmethod
    def from_tinydb(cls, data: dict[str, Any] | None) -> Index:
        index = cls()
        if not data:
            return index
        for doc in (data.get("counts") or {}).values():
            index.counts[doc["t"]] = {k: int(v) for k, v in doc["weeks"].items()}
            # json.loads already gives lists of ints; converting 10^5 of them costs ms.
            index.days[doc["t"]] = dict(doc.get("days") or {})
        for doc in (data.get("meta") or {}).values():
            schema = int(doc.get("schema", 1))
            if schema > SCHEMA:
                raise StoreError(
                    "the store was written by a newer papertrack. Upgrade papertrack to read it"
                )
            index.schema = schema
            index.fingerprints = dict(doc.get("topics") or {})
            index.generation = str(doc.get("generation") or "")
        for doc in (data.get("categories") or {}).values():
            index.primary = {k: int(v) for k, v in (doc.get("primary") or {}).items()}
            index.listed = {k: int(v) for k, v in (doc.get("listed") or {}).items()}
        return index

    def to_tinydb(self) -> dict[str, Any]:
        counts = {
            str(n): {
                "t": topic,
                "weeks": dict(sorted((k, v) for k, v in weeks.items() if v)),
                "days": dict(sorted((k, v) for k, v in self.days.get(topic, {}).items() if any(v))),
            }
            for n, (topic, weeks) in enumerate(sorted(self.counts.items()), start=1)
        }
        meta = {
            "1": {
                "schema": SCHEMA,
                "topics": dict(sorted(self.fingerprints.items())),
                "generation": self.generation,
            }
        }
        categories = {
            "1": {
                "primary": dict(sorted((k, v) for k, v in self.primary.items() if v)),
                "listed": dict(sorted((k, v) for k, v in self.listed.items() if v)),
            }
        }
        return {"counts": counts, "meta": meta, "categories": categories}

    def bump(self, paper: Paper, delta: int) -> None:
        self.bump_at(paper.paper_date, paper.tags, delta, paper.primary_category, paper.categories)

    def bump_at(
        self,
        moment: datetime | None,
        tags: Iterable[str],
        delta: int,
        primary: str | None = None,
        categories: Iterable[str] = (),
        week: str | None = None,
    ) -> None:
        """Count (``delta`` 1) or uncount (-1) a paper dated ``moment`` with these tags.

        ``week``, when the caller has it, is :func:`week_of` ``(moment)``.
        """
        if primary:
            self.primary[primary] = self.primary.get(primary, 0) + delta
        for category in categories:
            self.listed[category] = self.listed.get(category, 0) + delta
        if week is None:
            week = week_of(moment)
        weekday = moment.astimezone(UTC).weekday() if moment is not None else None
        for topic in (ALL, *tags):
            weeks = self.counts.setdefault(topic, {})
            weeks[week] = weeks.get(week, 0) + delta
            if weekday is not None:
                row = self.days.setdefault(topic, {}).setdefault(week, [0] * 7)
                row[weekday] += delta

    def total(self, topic: str) -> int:
        return sum(self.counts.get(topic, {}).values())


# --------------------------------------------------------------------------- store


@dataclass(frozen=True)
class StoreStats:
    """What a store holds, for ``papertrack stats``: read from the index and file sizes."""

    path: Path
    papers: int
    undated: int
    first_date: date | None
    last_date: date | None
    #: Week files, the undated file included.
    partitions: int
    #: Bytes on disk of the week files, the id map, the index and everything else.
    sizes: dict[str, int]
    #: Category -> papers with it as primary category.
    primary: dict[str, int]
    #: Category -> papers listed in it, cross-lists included.
    listed: dict[str, int]


class Store:
    """A papertrack store directory. Reads never lock; writes go through :meth:`writer`."""

    def __init__(self, path: Path, lock_timeout: float = 60.0) -> None:
        self.path = Path(path)
        self.lock_timeout = lock_timeout
        self._index: tuple[tuple[int, int, int] | None, Index] | None = None
        if self.path.exists() and not self.path.is_dir():
            raise StoreError(
                f"{visible(self.path)} is a file, not a papertrack store directory. "
                "Point --db or PAPERTRACK_DB at a directory"
            )
        self._check_identity()

    def _check_identity(self) -> None:
        """Refuse a directory that is not a store, or a store of a newer format."""
        try:
            raw = self.marker_path.read_bytes()
        except FileNotFoundError:
            try:
                names = {n for n in os.listdir(self.path) if not TEMP_NAME.fullmatch(n)}
            except FileNotFoundError:
                return  # made on the first write
            except OSError as exc:
                raise StoreError(
                    f"could not read the store directory {visible(self.path)}: "
                    f"{exc.strerror or exc}. Check its permissions"
                ) from None
            if names <= _LAYOUT:
                return  # empty, being made, or made before the marker: the next writer marks it
            shown = ", ".join(sorted(visible(n) for n in names)[:3])
            more = ", …" if len(names) > 3 else ""
            raise StoreError(
                f"{visible(self.path)} is not a papertrack store: it holds other files "
                f"({shown}{more}). Point --db or PAPERTRACK_DB at an empty or new directory, "
                "or at a papertrack store"
            ) from None
        except OSError as exc:
            raise StoreError(
                f"could not read {visible(self.marker_path)}: {exc.strerror or exc}. "
                "Check its permissions"
            ) from None
        try:
            found = json.loads(raw).get("format")
        except (ValueError, AttributeError):
            found = None
        if not isinstance(found, int) or isinstance(found, bool) or found < 1:
            raise StoreError(
                f"{visible(self.marker_path)} is damaged (no store format in it). "
                f'If this is a papertrack store, write {{"format": {FORMAT}}} into it'
            )
        if found > FORMAT:
            raise StoreError(
                f"the store at {visible(self.path)} has format {found}, newer than this "
                f"papertrack reads ({FORMAT}). Upgrade papertrack, or use another --db"
            )

    def mark(self) -> None:
        """Make the directory recognisable as a store (writers call it under the lock)."""
        if not self.marker_path.exists():
            write_atomic(self.marker_path, json.dumps({"format": FORMAT}).encode() + b"\n")

    # paths: the store's layout, here and nowhere else
    @property
    def marker_path(self) -> Path:
        return self.path / MARKER

    @property
    def lock_path(self) -> Path:
        return self.path / ".lock"

    @property
    def dirty_path(self) -> Path:
        return self.path / ".dirty"

    @property
    def resume_dir(self) -> Path:
        return self.path / "resume"

    @property
    def damaged_dir(self) -> Path:
        return self.path / "damaged"

    @property
    def papers_dir(self) -> Path:
        return self.path / "papers"

    @property
    def ids_dir(self) -> Path:
        return self.path / "ids"

    @property
    def search_path(self) -> Path:
        """The full-text index (see :mod:`papertrack.fulltext`)."""
        return self.path / "search.sqlite"

    @property
    def index_path(self) -> Path:
        return self.path / "index.json"

    def temp_files(self) -> list[Path]:
        """Temp files an interrupted write left: papertrack's names, in the store's folders only."""
        found: list[Path] = []
        for folder in (self.path, self.papers_dir, self.ids_dir, self.resume_dir):
            found += temp_files(folder)
        return found

    def partition_path(self, week: str) -> Path:
        return self.papers_dir / f"{week}.json"

    def shard_path(self, shard: str) -> Path:
        return self.ids_dir / f"{shard}.json"

    def exists(self) -> bool:
        return self.index_path.exists()

    # reads
    def index(self) -> Index:
        """The index as on disk; read once per change of the file, not once per question."""
        try:
            stat = self.index_path.stat()
            key: tuple[int, int, int] | None = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
        except FileNotFoundError:
            key = None
        if self._index is None or self._index[0] != key:
            data = AtomicJSONStorage(self.index_path, read_only=True).read() if key else None
            try:
                index = Index.from_tinydb(data)
            except (TypeError, ValueError, AttributeError, KeyError) as exc:
                raise StoreError(
                    f"store file {self.index_path} is damaged ({exc}). {REPAIR_HINT}"
                ) from None
            self._index = (key, index)
        return self._index[1]

    def read_partition(self, week: str) -> list[Paper]:
        path = self.partition_path(week)
        if not path.exists():
            return []
        db = TinyDB(path, storage=AtomicJSONStorage, read_only=True)
        try:
            return [_paper(doc, path) for doc in db.table(PAPERS_TABLE, cache_size=0).all()]
        finally:
            db.close()

    def _search_partition(
        self,
        week: str,
        topic: str | None,
        match: FieldMatcher | None = None,
        ids: AbstractSet[str] | None = None,
    ) -> list[Paper]:
        path = self.partition_path(week)
        # The week file's records as TinyDB stores them, filtered here: a TinyDB
        # Query costs ~10 us a record, 40 ms of a cold `latest` that reads two weeks.
        data = AtomicJSONStorage(path, read_only=True).read() or {}
        docs: Iterable[dict[str, Any]] = (data.get(PAPERS_TABLE) or {}).values()
        if ids is not None:
            docs = [doc for doc in docs if doc.get("arxiv_id") in ids]
        if topic is not None:
            docs = [doc for doc in docs if topic in (doc.get("tags") or ())]
        if match is not None:
            # Matched on the record: a Paper is built only for the hits.
            docs = [doc for doc in docs if match(*_fields(doc))]
        if self.dirty_path.exists():
            # A write was cut short: a paper moving to another week may still have its
            # old copy here. Show only the copy the id map names (it is written with
            # the new copy), so no reader lists a paper twice before the next writer
            # cleans up.
            shards = _Shards(self)
            docs = [doc for doc in docs if shards.get(doc["arxiv_id"]) in (week, None)]
        return [_paper(doc, path) for doc in docs]

    def get(self, arxiv_id: str) -> Paper | None:
        """The stored paper with this versionless id, or None: one id shard and one week read."""
        week = _Shards(self).get(arxiv_id)
        if week is None:
            return None
        data = AtomicJSONStorage(self.partition_path(week), read_only=True).read() or {}
        for doc in (data.get(PAPERS_TABLE) or {}).values():
            if doc.get("arxiv_id") == arxiv_id:
                return _paper(doc, self.partition_path(week))
        return None

    def search(
        self,
        match: FieldMatcher,
        within: Candidates | None = None,
        progress: Progress | None = None,
    ) -> Iterator[tuple[str, Paper]]:
        """(week, paper) for every stored paper ``match`` accepts, newest week first.

        One week file is in memory at a time, and a :class:`Paper` is built only
        for the papers that match. ``match`` gets the raw title, abstract,
        authors and categories (see :meth:`Catalog.tag_fields`). ``within``
        (from :meth:`candidates`) limits the weeks read and the papers tried.
        ``progress`` is told (weeks read, weeks to read) before each week file.
        """
        weeks = [w for w in self.weeks() if within is None or w in within]
        for done, week in enumerate(weeks):
            if progress is not None:
                progress(done, len(weeks))
            ids = within.get(week) if within is not None else None
            for paper in self._search_partition(week, None, match, ids):
                yield week, paper

    def search_week(
        self, week: str, match: FieldMatcher | None = None, within: Candidates | None = None
    ) -> list[Paper]:
        """The papers of one week file (``match`` accepts, when given), in no set order."""
        if within is not None and week not in within:
            return []
        return self._search_partition(week, None, match, within.get(week) if within else None)

    def papers_within(self, within: Candidates) -> list[Paper]:
        """The stored papers ``within`` names, reading only their weeks (in no set order)."""
        found: list[Paper] = []
        for week in self.weeks():
            if week in within:
                found += self._search_partition(week, None, None, within[week])
        return found

    def weeks(self) -> list[str]:
        """Every partition key on disk, newest first."""
        folder = self.path / "papers"
        if not folder.is_dir():
            return []
        keys = [p.stem for p in folder.glob("*.json") if not p.name.startswith(".")]
        return sorted(keys, key=_week_sort_key, reverse=True)

    def latest(
        self,
        topic: str | None = None,
        *,
        limit: int | None = 20,
        since: datetime | None = None,
        keep: Callable[[Paper], bool] | None = None,
        match: FieldMatcher | None = None,
        within: Candidates | None = None,
    ) -> list[Paper]:
        """Papers of ``topic`` (every paper when None), newest paper date first.

        Only the weeks the index says hold the topic are opened, newest first, and
        reading stops once ``limit`` papers are in hand: every older week holds only
        older papers, so the answer is already complete. ``match``, a test on the
        raw fields (an unsaved query), and ``keep``, a test on the paper, narrow
        the papers further.
        """
        counts = self.index().counts.get(topic or ALL, {})
        weeks = sorted((w for w, n in counts.items() if n > 0), key=_week_sort_key, reverse=True)
        since_week = week_of(since) if since else None
        found: list[Paper] = []
        for week in weeks:
            if since_week is not None and (week == UNDATED or week < since_week):
                break
            if within is not None and week not in within:
                continue
            ids = within.get(week) if within is not None else None
            for paper in self._search_partition(week, topic, match, ids):
                if since is not None and (paper.paper_date is None or paper.paper_date < since):
                    continue
                if keep is not None and not keep(paper):
                    continue
                found.append(paper)
            if limit is not None and len(found) >= limit:
                break
        found.sort(key=_paper_sort_key, reverse=True)
        return found if limit is None else found[:limit]

    def count(self, topic: str | None = None) -> int:
        return self.index().total(topic or ALL)

    def newest_day(self) -> date | None:
        """The paper date of the newest dated paper, from the index (None: no dated paper)."""
        days = self.index().days.get(ALL, {})
        dated = [week for week, row in days.items() if week != UNDATED and any(row)]
        if not dated:
            return None
        week = max(dated)
        row = days[week]
        return date.fromisoformat(week) + timedelta(days=max(i for i, n in enumerate(row) if n))

    def stats(self) -> StoreStats:
        """Counts from the index, sizes from the directory: no week file is read."""
        index = self.index()
        days = index.days.get(ALL, {})
        dated = sorted(week for week, row in days.items() if any(row))
        first = last = None
        if dated:
            row = days[dated[0]]
            first = date.fromisoformat(dated[0]) + timedelta(
                days=next(i for i, n in enumerate(row) if n)
            )
            row = days[dated[-1]]
            last = date.fromisoformat(dated[-1]) + timedelta(
                days=max(i for i, n in enumerate(row) if n)
            )
        sizes = {"papers": 0, "ids": 0, "index": 0, "search": 0, "other": 0}
        if self.path.is_dir():
            for root, _dirs, files in os.walk(self.path):
                part = Path(root).relative_to(self.path).parts
                kind = part[0] if part and part[0] in ("papers", "ids") else "other"
                for name in files:
                    try:
                        size = os.stat(os.path.join(root, name)).st_size
                    except OSError:
                        continue  # removed while we looked
                    if kind == "other" and not part and name == "index.json":
                        sizes["index"] += size
                    elif kind == "other" and not part and name.startswith("search.sqlite"):
                        sizes["search"] += size
                    else:
                        sizes[kind] += size
        return StoreStats(
            path=self.path,
            papers=index.total(ALL),
            undated=index.counts.get(ALL, {}).get(UNDATED, 0),
            first_date=first,
            last_date=last,
            partitions=len(self.weeks()),
            sizes=sizes,
            primary=dict(index.primary),
            listed=dict(index.listed),
        )

    def text_index(self, progress: Callable[[int, int], None] | None = None) -> TextIndex | None:
        """The full-text index, in step with the papers; None when it cannot be (scan instead).

        A store without one, or with one a write did not reach, gets it built here,
        under the lock (``progress(done, total)`` is told how far). A store this
        process cannot write to, or one with an interrupted write pending, is
        answered by a scan.
        """
        from papertrack.fulltext import TextIndex

        text = TextIndex(self.search_path)
        if not self.exists() or os.environ.get("PAPERTRACK_FULLTEXT") == "off":
            return None  # off: every reader scans (for comparison, or to rule the index out)
        if text.synced_with(self.index().generation):
            return text
        if self.dirty_path.exists() or not os.access(self.path, os.W_OK):
            return None
        text.close()
        # Never wait: while a writer holds the lock, this answer comes from a scan.
        lock = Lock(self.lock_path, 0.0)
        try:
            lock.acquire()
        except StoreError:
            return None
        try:
            if not text.synced_with(self.index().generation) and not self.dirty_path.exists():
                text.close()
                build_text_index(self, progress)
        finally:
            lock.release()
        text = TextIndex(self.search_path)
        return text if text.synced_with(self.index().generation) else None

    def text_index_missing(self) -> bool:
        """Whether the store has papers but no full-text index in step with them."""
        from papertrack.fulltext import TextIndex

        if not self.exists() or os.environ.get("PAPERTRACK_FULLTEXT") == "off":
            return False
        text = TextIndex(self.search_path)
        try:
            return self.count() > 0 and not text.synced_with(self.index().generation)
        finally:
            text.close()

    def candidates(self, node: Any) -> Candidates | None:
        """Week -> ids of the papers that can match the query ``node``; None: read every week.

        The full-text index narrows; the exact matcher still decides on each record.
        """
        from papertrack.fulltext import fts_query

        query = fts_query(node)
        if query is None:
            return None
        text = self.text_index()
        if text is None:
            return None
        try:
            return text.candidates(query)
        finally:
            text.close()

    def index_outdated(self) -> bool:
        """Whether index.json predates :data:`SCHEMA`: the next writer rebuilds it."""
        return self.exists() and self.index().schema < SCHEMA

    def tags_current(self, catalog: Catalog) -> bool:
        """Whether stored tags were computed with this catalog's definitions."""
        return not self.exists() or self.index().fingerprints == catalog.fingerprints()

    # writes
    def lock(self) -> Lock:
        """The writer lock (not yet taken)."""
        return Lock(self.lock_path, self.lock_timeout)

    @contextlib.contextmanager
    def writer(self, catalog: Catalog, progress: Progress | None = None) -> Iterator[StoreWriter]:
        """A writer: each batch it writes holds the store lock only while it is written.

        So concurrent ingests queue batch by batch instead of one waiting for the
        other's whole run, and nothing is locked while a source is still being read.
        ``progress`` is told (weeks done, weeks in all) through a retag.
        """
        yield StoreWriter(self, catalog, progress)

    def refresh(
        self, catalog: Catalog, progress: Progress | None = None
    ) -> dict[str, tuple[int, int]]:
        """Recover from an interrupted write and retag changed topics, under the lock.

        Returns, for each retagged topic, how many papers gained and lost its tag.
        ``progress`` is told (weeks done, weeks in all) through the retag.
        """
        with self.writer(catalog, progress) as writer, writer.holding():
            pass
        return writer.retagged


class StoreWriter:
    """Writes batches of papers while the store lock is held. Made by :meth:`Store.writer`."""

    def __init__(self, store: Store, catalog: Catalog, progress: Progress | None = None) -> None:
        self.store = store
        self.catalog = catalog
        self.progress = progress
        self.index = Index()
        #: (inode, mtime, size) of index.json as this writer last left it: while the file
        #: is unchanged, no other writer came in between and ``index`` is still right.
        self._left: tuple[int, int, int] | None = None
        self._held = False
        #: slug -> (papers that gained the tag, papers that lost it) in the last retag.
        self.retagged: dict[str, tuple[int, int]] = {}
        from papertrack.fulltext import TextIndex

        self.text = TextIndex(store.search_path)
        #: Whether the full-text index holds exactly the stored papers (checked under the lock).
        self.text_live = False
        self._batch = _TextBatch()

    @property
    def _dirty(self) -> Path:
        return self.store.dirty_path

    @contextlib.contextmanager
    def holding(self) -> Iterator[None]:
        """Hold the store lock for one batch; recover and retag first when needed."""
        if self._held:
            yield
            return
        lock = self.store.lock()
        lock.acquire()
        self._held = True
        try:
            if self._left is None or self._left != _stat_key(self.store.index_path):
                self.prepare()
            yield
        finally:
            self._held = False
            self._left = _stat_key(self.store.index_path)
            self.text.close()
            lock.release()

    def prepare(self) -> None:
        """Recover from an interrupted write and retag changed topics (the lock is held)."""
        self.store.mark()
        for stray in self.store.temp_files():
            # Only writers make temp files, and we hold the lock: these are leftovers of a kill.
            with contextlib.suppress(OSError):
                stray.unlink()
        lost_index = not self.store.index_path.exists() and bool(self.store.weeks())
        if self._dirty.exists() or self.store.index_outdated() or lost_index:
            self.rebuild()
        # A private copy: the writer bumps counts before they are committed.
        self.index = copy.deepcopy(self.store.index())
        self.text_live = self.text.synced_with(self.index.generation)
        if not self.text_live:
            # A store made before the index, or a write the index did not see.
            self.text.close()
            try:
                build_text_index(self.store, self.progress)
            except (OSError, sqlite3.Error):
                pass  # no index (a full disk): readers scan, and the next writer tries again
            self.index = copy.deepcopy(self.store.index())  # with the generation it wrote
            self.text_live = self.text.synced_with(self.index.generation)
        wanted = self.catalog.fingerprints()
        if self.index.fingerprints != wanted:
            changed = {
                slug
                for slug in set(wanted) | set(self.index.fingerprints)
                if wanted.get(slug) != self.index.fingerprints.get(slug)
            }
            self.retag(changed)

    # -- batches
    def upsert(self, papers: Iterable[Paper]) -> UpsertResult:
        """Insert new papers, update papers with newer versions, leave the rest alone."""
        papers = list(papers)
        result = UpsertResult()
        if not papers:
            return result
        with self.holding():
            shards = _Shards(self.store)
            parts = _Partitions(self.store)
            self._merge_into(parts, shards, papers, result)
            if parts.changed or shards.changed:
                self._commit(parts, shards)
        return result

    def upsert_records(self, records: Iterable[dict[str, Any]]) -> UpsertResult:
        """Like :meth:`upsert` for papers already in their stored form and tagged.

        The bulk-import path (:mod:`papertrack.ingest` prepares records in worker
        processes): a paper the store does not hold yet is written as it comes,
        without building a :class:`Paper`; every other one takes the
        :meth:`upsert` path. ``tags`` must come from this writer's catalog.
        """
        records = list(records)
        if not records:
            return UpsertResult()
        with self.holding():
            return self._upsert_records(records)

    def _upsert_records(self, records: list[dict[str, Any]]) -> UpsertResult:
        result = UpsertResult()
        shards = _Shards(self.store)
        parts = _Partitions(self.store)
        fresh: dict[str, dict[str, Any]] = {}
        others: list[Paper] = []
        for record in records:
            pid = record["arxiv_id"]
            if pid in fresh or shards.get(pid) is not None:
                others.append(Paper.from_record(record))
            else:
                fresh[pid] = record
        for pid in {p.arxiv_id for p in others} & fresh.keys():
            others.insert(0, Paper.from_record(fresh.pop(pid)))  # twice in one batch
        for pid, record in fresh.items():
            moment = from_iso(record.get("paper_date"))
            week = week_of(moment)
            parts.put_record(week, pid, record)
            shards.set(pid, week)
            if self.text_live:
                self._batch.add(pid, week, _fields(record))
            self.index.bump_at(
                moment,
                record.get("tags") or (),
                +1,
                record.get("primary_category"),
                record.get("categories") or (),
                week=week,
            )
            result.new += 1
        self._merge_into(parts, shards, others, result)
        if parts.changed or shards.changed:
            self._commit(parts, shards)
        return result

    def _merge_into(
        self, parts: _Partitions, shards: _Shards, papers: Iterable[Paper], result: UpsertResult
    ) -> None:
        incoming: dict[str, Paper] = {}
        for paper in papers:
            incoming[paper.arxiv_id] = merge_papers(incoming.get(paper.arxiv_id), paper)
        if not incoming:
            return
        old_weeks = {pid: shards.get(pid) for pid in incoming}
        for pid, paper in incoming.items():
            old_week = old_weeks[pid]
            stored = parts.get(old_week, pid) if old_week is not None else None
            merged = merge_papers(stored, paper)
            merged = merged.with_tags(
                self.catalog.tag_fields(
                    merged.title, merged.abstract, merged.authors, merged.categories, pid
                )
            )
            if stored is None:
                result.new += 1
            elif stored.to_record() == merged.to_record():
                result.unchanged += 1
                continue
            new_week = week_of(merged.paper_date)
            if stored is not None:
                result.updated += 1
                self.index.bump(stored, -1)
                if old_week is not None and old_week != new_week:
                    # Out of the old week only once the new copy is in place (see _commit).
                    parts.moved_out.append((old_week, pid))
            parts.put(new_week, merged)
            shards.set(pid, new_week)
            self.index.bump(merged, +1)
            if self.text_live:
                if stored is None or _text_of(stored) != _text_of(merged):
                    self._batch.add(pid, new_week, _text_of(merged))
                elif old_week != new_week:
                    self._batch.moves.append((pid, new_week))

    def _commit(self, parts: _Partitions, shards: _Shards) -> None:
        # Mark dirty; write the partitions (the truth), id shards and index (derived)
        # to temp files, then put them all in place; unmark. A failed write (a full
        # disk) leaves the store as it was. A kill during the renames leaves whole
        # files, and the marker makes the next writer rebuild the derived ones.
        write_atomic(self._dirty, b"1")
        batch, self._batch = self._batch, _TextBatch()
        if self.text_live:
            batch.start(self.text)
        try:
            with all_or_nothing():
                parts.flush()
                shards.flush()
                self._write_index(mark_text=False)
                # The index rows are in before any week file is renamed into place.
                self.text_live = self.text_live and batch.commit()
        except StoreError:
            # Nothing of this batch reached the store: forget its counts too.
            self.index = copy.deepcopy(self.store.index())
            batch.abandon()
            with contextlib.suppress(OSError):
                self._dirty.unlink()
            raise
        if self.text_live:
            self.text.mark_synced(self.index.generation)
        if parts.moved_out:
            # Papers that moved to another week (a newer version, a better date) left
            # their old copy behind so that a kill during the renames above cannot lose
            # them; now that the new copies are in place, remove the old ones. A kill or
            # a failure here leaves a paper in two weeks and the marker set: the next
            # writer's rebuild keeps the newer copy.
            later = _Partitions(self.store)
            for week, pid in parts.moved_out:
                later.remove(week, pid)
            with all_or_nothing():
                later.flush()
        with contextlib.suppress(OSError):
            self._dirty.unlink()

    def _write_index(self, mark_text: bool = True) -> None:
        self.index.fingerprints = self.catalog.fingerprints()
        _write_index_file(self.store, self.index)
        if mark_text and self.text_live:
            # Only tags and counts changed: the text index is still in step.
            self.text.mark_synced(self.index.generation)

    # -- maintenance
    def retag(self, changed: set[str]) -> int:
        """Recompute the tags of ``changed`` topics on every paper; returns how many changed.

        Works on the stored records, not on :class:`Paper` objects, and keeps the
        index in step as it goes: a retag reads each week file once and rewrites
        only the weeks where a tag changed. Only the changed topics are matched
        (compiled together, see :meth:`Catalog.subset`). A topic that was removed
        needs no matching at all, only the weeks the index says hold it.
        """
        order = {t.slug: n for n, t in enumerate(self.catalog.topics)}
        subset = self.catalog.subset(changed)
        held = {w for slug in changed for w, n in self.index.counts.get(slug, {}).items() if n}
        within = self._retag_candidates(subset) if len(subset) else {}
        if within is None:
            weeks = self.store.weeks()
        else:
            # Only papers that hold a changed tag now, or whose words can match a
            # changed topic's query, can change: only their weeks are read.
            weeks = [w for w in self.store.weeks() if w in held or w in within]
        touched = 0
        if weeks:
            write_atomic(self._dirty, b"1")
        for done, week in enumerate(weeks):
            if self.progress is not None:
                self.progress(done, len(weeks))
            path = self.store.partition_path(week)
            data = AtomicJSONStorage(path).read()
            if not data:
                continue
            week_touched = 0
            maybe = within.get(week, set()) if within is not None else None
            for doc in (data.get(PAPERS_TABLE) or {}).values():
                old = list(doc.get("tags") or ())
                if maybe is not None and doc.get("arxiv_id") not in maybe:
                    if not changed.intersection(old):
                        continue  # cannot match a changed topic, and holds none of them
                kept = [t for t in old if t not in changed and t in order]
                if len(subset):
                    kept += subset.tag_fields(*_fields(doc), doc.get("arxiv_id"))
                tags = sorted(kept, key=order.__getitem__)
                if tags == old:
                    continue
                for slug in changed:
                    had, has = slug in old, slug in tags
                    if had != has:
                        gained, lost = self.retagged.get(slug, (0, 0))
                        self.retagged[slug] = (gained + has, lost + had)
                before = Paper.from_record(doc)
                self.index.bump(before, -1)
                self.index.bump(before.with_tags(tuple(tags)), +1)
                doc["tags"] = tags
                week_touched += 1
            if week_touched:
                write_atomic(path, _dumps(data))
                touched += week_touched
        for slug in [s for s in self.index.counts if s != ALL and s not in order]:
            # Topics that no longer exist: their counts are all zero by now.
            self.index.counts.pop(slug, None)
            self.index.days.pop(slug, None)
        self._write_index()
        with contextlib.suppress(OSError):
            self._dirty.unlink()
        return touched

    def _retag_candidates(self, subset: Catalog) -> dict[str, set[str]] | None:
        """Week -> ids of papers a retag of ``subset`` must try; None: try every paper."""
        from papertrack.fulltext import fts_query

        if not self.text_live or not all(t.narrowable for t in subset.topics):
            return None
        queries = [fts_query(t.membership) for t in subset.topics]
        if any(q is None for q in queries):
            return None
        found: dict[str, set[str]] = {}
        for query in queries:
            assert query is not None
            for week, ids in self.text.candidates(query).items():
                found.setdefault(week, set()).update(ids)
        return found

    def rebuild(self) -> None:
        """Rebuild the id map and the index from the partitions after an interrupted write.

        A paper found in two partitions (a kill between writing its new week and
        removing it from the old one) keeps its newest copy; between equally new
        copies, the one the id map points to, which a commit writes with the new copy.
        """
        best: dict[str, tuple[str, Paper]] = {}
        duplicates: list[tuple[str, str]] = []
        shards = _Shards(self.store)

        def mapped(pid: str) -> str | None:
            try:
                return shards.get(pid)
            except StoreError:
                return None  # a damaged shard: rebuilt below anyway

        for week in self.store.weeks():
            for paper in self.store.read_partition(week):
                seen = best.get(paper.arxiv_id)
                if seen is None:
                    best[paper.arxiv_id] = (week, paper)
                    continue
                new, old = _recency(paper), _recency(seen[1])
                keep_new = new > old or (new == old and mapped(paper.arxiv_id) == week)
                loser = seen[0] if keep_new else week
                duplicates.append((loser, paper.arxiv_id))
                if keep_new:
                    best[paper.arxiv_id] = (week, paper)
        parts = _Partitions(self.store)
        for week, pid in duplicates:
            parts.remove(week, pid)
        parts.flush()

        shard_maps: dict[str, dict[str, str]] = defaultdict(dict)
        index = Index()
        for pid, (week, paper) in best.items():
            shard_maps[id_shard(pid)][pid] = week
            index.bump(paper, +1)
        folder = self.store.path / "ids"
        on_disk = {p.stem for p in folder.glob("*.json")} if folder.is_dir() else set()
        for shard in on_disk - set(shard_maps):
            self.store.shard_path(shard).unlink()
        for shard, mapping in shard_maps.items():
            write_atomic(self.store.shard_path(shard), _dumps({"ids": {"1": mapping}}))
        try:
            index.fingerprints = self.store.index().fingerprints
        except (StoreError, LookupError, TypeError, AttributeError, ValueError):
            index.fingerprints = {}  # a damaged index only costs a full retag
        self.index = index
        _write_index_file(self.store, self.index)
        with contextlib.suppress(OSError):
            self._dirty.unlink()


def build_text_index(store: Store, progress: Callable[[int, int], None] | None = None) -> None:
    """Build the full-text index of every stored paper anew (the store lock is held)."""
    from papertrack.fulltext import TextIndex, index_row

    index = store.index()
    if not index.generation:
        # Written by a papertrack before the full-text index: give it a generation.
        index = copy.deepcopy(index)
        _write_index_file(store, index)
    total = index.total(ALL)

    def rows() -> Iterator[tuple[str, str, tuple[str, str, str, str]]]:
        seen: set[str] = set()
        for week in store.weeks():
            data = AtomicJSONStorage(store.partition_path(week), read_only=True).read() or {}
            for doc in (data.get(PAPERS_TABLE) or {}).values():
                pid = doc.get("arxiv_id")
                if not isinstance(pid, str) or pid in seen:
                    continue  # a copy left by a cut-short move: the index names one week
                seen.add(pid)
                yield pid, week, index_row(*_fields(doc))

    TextIndex.build(
        store.search_path,
        rows(),
        index.generation,
        None if progress is None else (lambda done: progress(done, total)),
    )


class _TextBatch:
    """A batch's changes to the full-text index, written beside the week files.

    The rows are put in a thread while the week files are written (SQLite lets go
    of the GIL while it works), in a transaction committed before any week file is
    renamed into place; the index is marked in step only after the renames. A kill
    in between leaves it marked "pending", which readers take as stale.
    """

    def __init__(self) -> None:
        self.rows: list[tuple[str, str, tuple[str, str, str, str]]] = []
        self.moves: list[tuple[str, str]] = []
        self.thread: threading.Thread | None = None
        self.error: BaseException | None = None
        self.text: TextIndex

    def add(self, pid: str, week: str, fields: tuple[str, str, list[str], list[str]]) -> None:
        from papertrack.fulltext import index_row

        self.rows.append((pid, week, index_row(*fields)))

    def start(self, text: TextIndex) -> None:
        self.text = text

        def work() -> None:
            try:
                db = text.begin()
                text.put(db, self.rows)
                text.move(db, self.moves)
            except BaseException as exc:  # reported by commit(); the store write goes on
                self.error = exc

        self.thread = threading.Thread(target=work, name="papertrack-fulltext")
        self.thread.start()

    def commit(self) -> bool:
        """Wait for the rows to be in and commit them; whether they all went in."""
        if self.thread is None:
            return False
        self.thread.join()
        if self.error is None:
            try:
                self.text.commit_open()
                return True
            except (sqlite3.Error, OSError) as exc:
                self.error = exc
        self.text.rollback()
        return False

    def abandon(self) -> None:
        """The store write failed: undo the rows, so the index stays as it was."""
        if self.thread is not None:
            self.thread.join()
            self.text.rollback()


class _Shards:
    """The id -> week map, loaded shard by shard as ids need it."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.maps: dict[str, dict[str, str]] = {}
        self.changed: set[str] = set()

    def _map(self, shard: str) -> dict[str, str]:
        if shard not in self.maps:
            data = AtomicJSONStorage(self.store.shard_path(shard)).read() or {}
            self.maps[shard] = dict((data.get("ids") or {}).get("1") or {})
        return self.maps[shard]

    def get(self, arxiv_id: str) -> str | None:
        return self._map(id_shard(arxiv_id)).get(arxiv_id)

    def set(self, arxiv_id: str, week: str) -> None:
        shard = id_shard(arxiv_id)
        mapping = self._map(shard)
        if mapping.get(arxiv_id) != week:
            mapping[arxiv_id] = week
            self.changed.add(shard)

    def flush(self) -> None:
        for shard in sorted(self.changed):
            write_atomic(self.store.shard_path(shard), _dumps({"ids": {"1": self.maps[shard]}}))
        self.changed.clear()


class _Partitions:
    """Week partitions opened for writing: one read and one atomic write per touched file."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.dbs: dict[str, TinyDB] = {}
        self.docs: dict[str, dict[str, Document]] = {}
        self.removed: dict[str, set[int]] = defaultdict(set)
        self.added: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
        self.changed: set[str] = set()
        #: (old week, id) of papers put in another week, removed after the commit.
        self.moved_out: list[tuple[str, str]] = []

    def load(self, week: str) -> list[Paper]:
        """The papers of ``week`` as stored (opening the file for writing)."""
        self._open(week)
        path = self.store.partition_path(week)
        return [_paper(doc, path) for doc in self.docs[week].values()]

    def _open(self, week: str) -> None:
        if week not in self.dbs:
            path = self.store.partition_path(week)
            db = TinyDB(path, storage=CachingMiddleware(AtomicJSONStorage))  # type: ignore[no-untyped-call]
            table = db.table(PAPERS_TABLE, cache_size=0)
            self.dbs[week] = db
            self.docs[week] = {doc["arxiv_id"]: doc for doc in table.all()}

    def get(self, week: str, arxiv_id: str) -> Paper | None:
        self._open(week)
        record = self.added[week].get(arxiv_id)
        if record is not None:
            return Paper.from_record(record)
        doc = self.docs[week].get(arxiv_id)
        return _paper(doc, self.store.partition_path(week)) if doc is not None else None

    def remove(self, week: str, arxiv_id: str) -> None:
        self._open(week)
        self.added[week].pop(arxiv_id, None)
        doc = self.docs[week].pop(arxiv_id, None)
        if doc is not None:
            self.removed[week].add(doc.doc_id)
        self.changed.add(week)

    def put(self, week: str, paper: Paper) -> None:
        self.put_record(week, paper.arxiv_id, paper.to_record())

    def put_record(self, week: str, arxiv_id: str, record: dict[str, Any]) -> None:
        self._open(week)
        if arxiv_id in self.docs[week]:
            self.remove(week, arxiv_id)
        self.added[week][arxiv_id] = record
        self.changed.add(week)

    replace = put

    def flush(self) -> None:
        for week in sorted(self.changed):
            db = self.dbs[week]
            table = db.table(PAPERS_TABLE, cache_size=0)
            if self.removed[week]:
                table.remove(doc_ids=sorted(self.removed[week]))
            if self.added[week]:
                table.insert_multiple(list(self.added[week].values()))
            if len(table) == 0:
                db.storage.cache = None  # type: ignore[attr-defined]  # nothing to flush
                remove_file(self.store.partition_path(week))
                continue
            db.close()  # CachingMiddleware: exactly one atomic write of the whole week
        self.changed.clear()


# --------------------------------------------------------------------------- damage

#: The fix every message about a damaged store file ends with.
REPAIR_HINT = "Run 'papertrack doctor --repair' to keep what can still be read and rebuild the rest"


def _stat_key(path: Path) -> tuple[int, int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return (stat.st_ino, stat.st_mtime_ns, stat.st_size)


#: The tables of store files (week files, id map shards, the index).
_TABLES = frozenset({PAPERS_TABLE, "ids", "counts", "meta", "categories"})


def _shape_problem(data: Any) -> str | None:
    """Why ``data`` (a parsed store file) is not a TinyDB database papertrack can read, or None.

    The one definition of a readable store file, used by every reader and by
    ``doctor``. The tables papertrack reads must map numeric document ids to
    objects; paper records must carry an ``arxiv_id``, index counts a topic and its
    weeks, and the id map strings. Keys papertrack does not know are left alone (a
    later version may add some; a newer store *format* is refused by the marker).
    One pass of type checks: well under a millisecond for a week of 2,000 papers,
    against ~20 ms to parse it.
    """
    if not isinstance(data, dict):
        return f"a JSON {_json_type(data)}, not a TinyDB database"
    for name, table in data.items():
        if name not in _TABLES:
            continue
        if not isinstance(table, dict):
            return f"its table {name!r} is a JSON {_json_type(table)}"
        for doc_id, doc in table.items():
            if not doc_id.isdigit() or not isinstance(doc, dict):
                return f"record {doc_id!r} of table {name!r} is not a TinyDB document"
            if name == PAPERS_TABLE and not isinstance(doc.get("arxiv_id"), str):
                return f"paper record {doc_id} has no arxiv_id"
            if name == "counts" and not (
                isinstance(doc.get("t"), str) and isinstance(doc.get("weeks"), dict)
            ):
                return f"count record {doc_id} has no topic or weeks"
            if name == "ids" and not all(isinstance(week, str) for week in doc.values()):
                return f"id map record {doc_id} maps an id to something other than a week"
    return None


def _json_type(value: Any) -> str:
    names = {dict: "object", list: "list", str: "string", bool: "boolean", type(None): "null"}
    return names.get(type(value), "number")
