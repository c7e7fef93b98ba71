"""The paper store: TinyDB files partitioned by ISO week, written atomically.

Layout of a store directory::

    papertrack-store.json   marks the directory as a store, with its format version
    papers/2026-07-27.json  one TinyDB database per ISO week (Monday, UTC) of the paper date
    papers/undated.json     entries of non-arXiv feeds that carry no date at all
    ids/2508.json           arxiv_id -> week, sharded by the id's YYMM: finds a paper to update
    index.json              per-topic weekly and daily counts ('*' counts all), fingerprints
    .lock                   writers take it; readers never wait
    .dirty                  set while a write is in flight: the next writer rebuilds derived files
                            ("retag": only tags were written, and it counts them again)
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

Only this module, storage.py and writer.py import tinydb; see docs/store.md.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tinydb import TinyDB

from papertrack.errors import StoreError
from papertrack.files import (
    TEMP_NAME,
    Lock,
    lock_timeout,
    out_of_space,
    temp_files,
    write_atomic,
)
from papertrack.ids import id_month
from papertrack.index import (
    ALL,
    SCHEMA,
    UNDATED,
    Index,
    week_before,
    week_of,
    week_sort_key,
    week_start,
)
from papertrack.models import Paper, Progress, check_kinds, paper_date_key
from papertrack.storage import PAPERS_TABLE, REPAIR_HINT, AtomicJSONStorage
from papertrack.text import counted, visible

if TYPE_CHECKING:
    from papertrack.fulltext import IndexDamaged, TextIndex
    from papertrack.topics import Catalog
    from papertrack.writer import PinsMoved, Retagged, StoreWriter, build_text_index

# The index, the store files' format and the writer have modules of their own
# (index.py, storage.py, writer.py); their names stay importable from here.
__all__ = [
    "ALL",
    "MARKER",
    "PAPERS_TABLE",
    "REPAIR_HINT",
    "SCHEMA",
    "UNDATED",
    "AtomicJSONStorage",
    "Candidates",
    "FieldMatcher",
    "Index",
    "Store",
    "StoreStats",
    "StoreWriter",
    "build_text_index",
    "id_shard",
    "week_of",
    "week_start",
]


def __getattr__(name: str) -> Any:
    # The writer is loaded on first use: a reader (`latest`) never needs it.
    if name in ("StoreWriter", "build_text_index"):
        from papertrack import writer

        return getattr(writer, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: A test on a paper's raw title, abstract, authors and categories.
FieldMatcher = Callable[[str, str, list[str], list[str]], bool]
#: Week -> ids of the papers that may match a query (see :meth:`Store.candidates`).
Candidates = Mapping[str, AbstractSet[str]]
#: The file that makes a directory a papertrack store.
MARKER = "papertrack-store.json"
#: The store layout's version, in the marker. A store of a newer format is refused.
FORMAT = 1
#: Every name a store directory holds: a directory without the marker that holds
#: only these is a store made before the marker (or one being made).
_LAYOUT = frozenset(
    {MARKER, "papers", "ids", "index.json", ".lock", ".dirty", "resume", "damaged", "vectors"}
    | {"search.sqlite", "search.sqlite-wal", "search.sqlite-shm", "search.sqlite-journal"}
)


#: What a store holds once a writer has been at it (it marks the store first, with
#: only its lock made before): without the marker, these are papertrack's only if
#: they look it (:func:`_made_before_marker`).
_HOLDINGS = _LAYOUT - {MARKER, ".lock", ".dirty"}


#: What the folders of a store hold, by name: week files, id shards and checkpoints
#: (.json), kept vectors (.bin), week files kept aside by a repair (NAME.json.TIME).
_FOLDER_FILES = {
    "papers": re.compile(r"[^/]+\.json"),
    "ids": re.compile(r"(\d{4}|o\d{4}|x[0-9a-f]{2})\.json"),  # id_shard's names
    "resume": re.compile(r"[^/]+\.json"),
    "vectors": re.compile(r"[^/]+\.bin"),
    "damaged": re.compile(r"[^/]+\.json\.[^/]+"),
}


def _foreign_inside(path: Path, names: AbstractSet[str]) -> str | None:
    """The first entry (``papers/notes.pdf``) of a store's folders in ``path`` that no
    store holds, or None. Only a folder without the marker is looked into: it is a
    store made before the marker, or someone's folder that happens to use the names."""
    for folder, pattern in _FOLDER_FILES.items():
        if folder not in names:
            continue
        inside = path / folder
        if not inside.is_dir():
            return folder
        try:
            entries = os.listdir(inside)
        except OSError:
            return None  # unreadable: the command that reads it says so
        for entry in sorted(entries):
            # A file manager's file (Finder's .DS_Store), in any folder it showed,
            # makes no folder someone else's, and is left alone.
            ours = pattern.fullmatch(entry) or TEMP_NAME.fullmatch(entry)
            if not (ours or _file_managers(entry)):
                return f"{folder}/{entry}"
    return None


#: What file managers leave in any folder they show (Finder, KDE's Dolphin, Windows
#: Explorer), besides macOS's "._NAME" files: no sign of someone else's folder.
_FILE_MANAGER_FILES = frozenset(
    {".DS_Store", ".localized", ".directory", "Thumbs.db", "desktop.ini"}
)


def _file_managers(name: str) -> bool:
    """Whether ``name`` is a file a file manager left (Finder's .DS_Store). Not any
    dot file: a folder with a .git beside papers/ of JSON files is someone's."""
    return name in _FILE_MANAGER_FILES or name.startswith("._")


#: A week file's name: what only a store's papers/ holds.
_WEEK_FILE = re.compile(r"\d{4}-\d{2}-\d{2}\.json|undated\.json")


def _made_before_marker(path: Path, names: AbstractSet[str], alone: bool) -> bool:
    """Whether ``path`` (holding ``names``) is a papertrack store made before the
    marker: papers/, if there, holds week files and nothing else but a file
    manager's files (:func:`_file_managers`), and index.json is papertrack's or,
    the index lost or cut short (doctor --repair mends it), a week file is. The
    index is evidence only ``alone`` (nothing else in the folder but a store's
    names): a project folder with an index.json of two such keys was taken for a
    store. An index.json and a dated file of someone's notes were taken
    for a store, and the index overwritten."""
    weeks: list[str] = []
    if "papers" in names:
        try:
            entries = os.listdir(path / "papers")
        except OSError:
            return False
        if not all(
            _WEEK_FILE.fullmatch(n) or _file_managers(n) or TEMP_NAME.fullmatch(n) for n in entries
        ):
            return False
        weeks = sorted(n for n in entries if _WEEK_FILE.fullmatch(n))
    if alone and "index.json" in names and _papertracks_index(path / "index.json"):
        return True
    # Any of them: a kill or a full disk may have left the first few empty. Beside
    # files of someone else's, only a week file holding papers tells: a dated file
    # of a project's, with an index.json of the same keys, was taken for a store.
    return any(_papertracks_week(path / "papers" / week, papers=not alone) for week in weeks)


def _lost_its_marker(path: Path, names: AbstractSet[str]) -> bool:
    """Whether ``path`` (holding ``names``) has papertrack's own index.json and a week
    file papertrack wrote: a store whose marker was deleted, whatever else is in it.
    Not taken for a store (papertrack writes nothing into a folder holding files not
    its own), but said to be one."""
    if "index.json" not in names or not _papertracks_index(path / "index.json"):
        return False
    try:
        entries = os.listdir(path / "papers")
    except OSError:
        return False
    return any(_WEEK_FILE.fullmatch(n) and _papertracks_week(path / "papers" / n) for n in entries)


def _empty_folder(path: Path) -> bool:
    """Whether ``path`` is a folder holding nothing (a file manager's files aside):
    nothing in it to overwrite, whoever made it."""
    try:
        return path.is_dir() and all(_file_managers(n) for n in os.listdir(path))
    except OSError:
        return False


def _papertracks_index(path: Path) -> bool:
    """Whether ``path`` is an index.json papertrack wrote: its counts, and its meta
    with the index's schema."""
    try:
        with open(path, "rb") as handle:
            index = json.loads(handle.read(MAX_INDEX_PROBE))
    except (OSError, ValueError):
        return False
    if not isinstance(index, dict) or not isinstance(index.get("counts"), dict):
        return False
    meta = index.get("meta")
    docs = meta.values() if isinstance(meta, dict) else ()
    return any(isinstance(doc, dict) and isinstance(doc.get("schema"), int) for doc in docs)


#: How a week file papertrack wrote begins: its table of papers, each with an arXiv id.
_WEEK_START = re.compile(rb'\s*\{\s*"papers"\s*:\s*\{\s*(\}|"[^"]+"\s*:\s*\{[^{}]*"arxiv_id")')


def _papertracks_week(path: Path, papers: bool = False) -> bool:
    """Whether the week file ``path`` is one papertrack wrote (read from its start);
    ``papers``: one holding papers, not only an empty table."""
    try:
        with open(path, "rb") as handle:
            start = handle.read(1 << 16)
    except OSError:
        return False
    found = _WEEK_START.match(start)
    return found is not None and not (papers and found.group(1) == b"}")


#: Bytes of an index.json read to tell whether it is papertrack's (one of a million
#: papers is about 2 MB; one cut at this size is not JSON, and the folder refused).
MAX_INDEX_PROBE = 64 << 20


# --------------------------------------------------------------------------- keys


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


class UnlistedFolder(StoreError):
    """A store folder that is there but cannot be listed: ``why`` and the ``fix``, apart,
    for doctor's report."""

    def __init__(self, folder: Path, why: str, fix: str) -> None:
        super().__init__(f"{visible(str(folder))} {why}. {fix}")
        self.why = why
        self.fix = fix


def week_records(path: Path) -> dict[str, dict[str, Any]]:
    """The records of a week file by TinyDB id ({} when the file is gone).

    Raises:
        StoreError: the file is damaged (:func:`week_problem`), one of no papers too,
            or it links to something missing, or its folder does.
    """
    data = AtomicJSONStorage(path, read_only=True, week=True).read()
    if data is None:
        # Not a week a writer just emptied and removed: the link's target, or the
        # whole papers folder, is missing, and its papers are not "none".
        if path.is_symlink():
            raise StoreError(
                f"store file {visible(str(path))} links to something missing. Mount or "
                "restore it, then run 'papertrack doctor'"
            )
        if not path.parent.is_dir():
            raise StoreError(
                f"the store's folder of week files {visible(str(path.parent))} is not there "
                "(moved, or a link to a drive not mounted). Restore it, then run "
                "'papertrack doctor'"
            )
        return {}
    return data[PAPERS_TABLE]


def _is_utf8(text: str) -> bool:
    """Whether ``text`` can be written in UTF-8 (it holds no lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def record_fields(record: dict[str, Any]) -> tuple[str, str, list[str], list[str]]:
    """What topic queries read of a stored record: title, abstract, authors, categories."""
    return (
        record.get("title") or "",
        record.get("abstract") or "",
        record.get("authors") or [],
        record.get("categories") or [],
    )


#: TeX that ingest renders, left in the text of a paper stored before it did
#: (``A\textsuperscript{2}FM``, ``{\varepsilon}-Differentially``).
_UNRENDERED = re.compile(
    r"\\(?:text(?:superscript|subscript|bf|it|tt|sc|rm|sf|up)|emph|mathrm|mathbf|mathit"
    r"|mathcal|varepsilon|epsilon|alpha|beta|gamma|delta|lambda|mu|sigma|tau|pi|theta"
    r"|omega|phi|psi|rho|eta|kappa|xi|zeta|chi|nu)(?![A-Za-z])"
)


def _rendered(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` with its title and abstract as ingest stores them now, TeX rendered:
    papers stored before ingest rendered it were shown as written (see
    :data:`_UNRENDERED`) while search and tagging read them rendered, and a second
    ingest of their feed left them as they were ("unchanged")."""
    for key in ("title", "abstract"):
        value = record.get(key)
        if isinstance(value, str) and "\\" in value and _UNRENDERED.search(value):
            from papertrack.tex import arxiv_text

            record = {**record, key: arxiv_text(value)}
    return record


def paper_of_record(record: dict[str, Any], path: Path) -> Paper:
    """A stored record as a Paper; a record of the wrong types is a damaged file, named."""
    try:
        check_kinds(record)
        return Paper.from_record(_rendered(record))
    except (TypeError, ValueError, AttributeError, KeyError) as exc:
        raise StoreError(
            f"store file {path} is damaged (record {record.get('arxiv_id')!r}: {exc}). "
            f"{REPAIR_HINT}"
        ) from None


def _text_of(paper: Paper) -> tuple[str, str, list[str], list[str]]:
    return (paper.title, paper.abstract, list(paper.authors), list(paper.categories))


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
        #: A build of the search index ran out of disk space: readers scan instead.
        self.text_index_failed = False
        #: A read found the search index damaged: readers scan instead.
        self.text_index_damaged = False
        #: Told what a reader had to do otherwise (a damaged search index dropped):
        #: the command line says it as a note, the Python API as a warning.
        self.note: Callable[[str], object] = lambda text: None
        #: The store was there when opened without leave to make one (the Python
        #: API's open_store): gone since (moved, a disk unmounted), it must not be
        #: read as empty, nor made again by an ingest.
        self.required = False
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
            # ~/research holding only papers/ full of PDFs looked like a store.
            inside = _foreign_inside(self.path, names & _LAYOUT)
            foreign = {n for n in names - _LAYOUT if not _file_managers(n)}
            foreign |= {inside} if inside is not None else set()
            held = {
                n
                for n in names & _HOLDINGS
                if not (n in _FOLDER_FILES and _empty_folder(self.path / n))
            }
            if not foreign and not held:
                return  # empty, or being made: the next writer marks it
            if _made_before_marker(self.path, names, alone=not foreign):
                # A store of a papertrack before the marker, maybe with a file of
                # someone else's beside its own (Finder's .DS_Store, notes.txt): every
                # command, doctor too, refused it, naming the store's own files.
                return
            if not foreign:
                # Only a store's names, but not its files: someone's index.json (a
                # web site's) was overwritten by an ingest.
                shown = ", ".join(sorted(held)[:3])
                raise StoreError(
                    f"{visible(self.path)} is not a papertrack store: it has no {MARKER}, "
                    f"and what it holds ({visible(shown)}) is not papertrack's. Point --db or "
                    "PAPERTRACK_DB at an empty or new directory, or at a papertrack store"
                ) from None
            shown = ", ".join(sorted(visible(n) for n in foreign)[:3])
            more = ", …" if len(foreign) > 3 else ""
            if _lost_its_marker(self.path, names):
                # "Point --db elsewhere" of the default store, and doctor refused it too.
                # What keeps it from being taken for one: a file of another's among the
                # week files (beside them, such a store is taken: see above).
                what = visible(inside) if inside is not None else f"{shown}{more}"
                raise StoreError(
                    f"{visible(self.path)} looks like a papertrack store that lost its "
                    f"{MARKER}, but it holds a file that is not papertrack's ({what}). "
                    "Move it out of the store, and papertrack takes it for one again"
                ) from None
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

    def shard_files(self) -> list[Path]:
        """The id map's shard files, sorted: only files named as :func:`id_shard` names
        them. Anything else in ids/ (a file someone put there in a store made before
        the marker) is not papertrack's: never read, counted, rewritten or removed."""
        try:
            names = os.listdir(self.ids_dir)
        except OSError:
            return []  # none, or unreadable: as a glob, whoever reads a shard says so
        shard = _FOLDER_FILES["ids"]
        return [self.ids_dir / n for n in sorted(names) if shard.fullmatch(n)]

    @property
    def search_path(self) -> Path:
        """The full-text index (see :mod:`papertrack.fulltext`)."""
        return self.path / "search.sqlite"

    @property
    def index_path(self) -> Path:
        return self.path / "index.json"

    @property
    def vectors_dir(self) -> Path:
        """Kept feature vectors, for refits and retags (see :mod:`papertrack.vectors`)."""
        return self.path / "vectors"

    def temp_files(self) -> list[Path]:
        """Temp files an interrupted write left: papertrack's names, in the store's folders only.

        A live process's temp file (a checkpoint or kept vectors, written outside the
        lock) is not listed: :func:`papertrack.files.temp_files` leaves it out.
        """
        found: list[Path] = []
        for folder in (self.path, self.papers_dir, self.ids_dir, self.resume_dir, self.vectors_dir):
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
            return [
                paper_of_record(doc, path) for doc in db.table(PAPERS_TABLE, cache_size=0).all()
            ]
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
        records = week_records(path)
        if not records:
            self.weeks()  # a week file gone, not one emptied: an error naming it
        docs: Iterable[dict[str, Any]] = records.values()
        if ids is not None:
            docs = [doc for doc in docs if doc.get("arxiv_id") in ids]
        if topic is not None:
            docs = [doc for doc in docs if topic in (doc.get("tags") or ())]
        if match is not None:
            # Matched on the record: a Paper is built only for the hits.
            docs = [doc for doc in docs if match(*record_fields(doc))]
        return [paper_of_record(doc, path) for doc in self._current(week, docs)]

    def _current(self, week: str, docs: Iterable[dict[str, Any]]) -> Iterable[dict[str, Any]]:
        """``docs`` of ``week`` without a stale copy of a moved paper."""
        if self.dirty_path.exists():
            # A write was cut short: a paper moving to another week may still have its
            # old copy here. Show only the copy the id map names (it is written with
            # the new copy), so no reader lists a paper twice before the next writer
            # cleans up.
            shards = IdMap(self)
            docs = [doc for doc in docs if shards.get(doc["arxiv_id"]) in (week, None)]
        return docs

    def week_tags(self, week: str) -> list[tuple[str | None, list[str]]]:
        """(paper date as stored, an ISO UTC time; tags) of every paper of one week
        file, without building its papers: what related topics count, where a
        :class:`Paper` each made `topic` take 0.8 s for 12 weeks of real papers."""
        path = self.partition_path(week)
        records = week_records(path)
        if not records:
            self.weeks()  # a week file gone, not one emptied: an error naming it
        found: list[tuple[str | None, list[str]]] = []
        for doc in self._current(week, records.values()):
            moment, tags = doc.get("paper_date"), doc.get("tags")
            if not (
                "paper_date" in doc
                and (moment is None or isinstance(moment, str))
                and isinstance(tags, list)
                and all(isinstance(tag, str) for tag in tags)
            ):
                paper = paper_of_record(doc, path)  # a damaged record: named, or read
                moment = paper.paper_date.isoformat() if paper.paper_date else None
                tags = list(paper.tags)
            found.append((moment, tags))
        return found

    def get(self, arxiv_id: str) -> Paper | None:
        """The stored paper with this versionless id, or None: one id shard and one week read.

        With the id map's file gone (deleted by hand; doctor --repair makes it again)
        the week files that can hold the paper, which are the truth, are read instead:
        those of the month its id was given in, and the undated one.
        """
        if not arxiv_id.isascii() and not _is_utf8(arxiv_id):
            return None  # a shell's $(printf 'a\xff'): no stored id holds such bytes
        mapped = IdMap(self).get(arxiv_id)
        month = id_month(arxiv_id)
        if mapped is None:
            if month is None or self.shard_path(id_shard(arxiv_id)).exists():
                return None
            weeks = self._weeks_of_month(month)
        else:
            weeks = [mapped]
        for week in weeks:
            paper = self._paper_in(week, arxiv_id, missing_is_error=True)
            if paper is not None:
                return paper
        if mapped is not None and month is not None and self.dirty_path.exists():
            # A writer moving the paper to another week (a new date) has taken it out
            # of the mapped one and not yet written the id map: "no paper X in the
            # store" for a stored paper (1 of 42,000 reads beside such a writer). The
            # weeks of its id's month are where it can have gone.
            for week in self._weeks_of_month(month, check=False):
                paper = None if week == mapped else self._paper_in(week, arxiv_id)
                if paper is not None:
                    return paper
        if mapped is not None and not self.dirty_path.exists():
            # The id map names a week that does not hold the paper: "no paper X in the
            # store" sent the user to ingest it again, which counted it twice. Read
            # once more first: a writer may have renamed the week in since.
            now = IdMap(self).get(arxiv_id)
            paper = None if now is None else self._paper_in(now, arxiv_id)
            if paper is not None or now != mapped or self.dirty_path.exists():
                return paper
            raise StoreError(
                f"the id map places {visible(arxiv_id)} in "
                f"{visible(str(self.partition_path(mapped)))}, which does not hold it. Run "
                "'papertrack doctor --repair' to rebuild the id map from the week files"
            )
        return None

    def _weeks_of_month(self, month: tuple[int, int], *, check: bool = True) -> list[str]:
        """The weeks that can hold a paper whose id was given in ``month``, and the
        undated one (:meth:`weeks` checks for missing week files with ``check``)."""
        return [w for w in self.weeks(check=check) if w == UNDATED or _in_month(w, month)]

    def get_many(self, arxiv_ids: Iterable[str]) -> dict[str, Paper]:
        """The stored papers of these versionless ids, by id (those not stored are
        left out): as :meth:`get` finds each, but each week file read once. A
        teach names every example of a topic, hundreds of them after a while,
        and reading a week file for each made it take half a minute.
        """
        ids = list(dict.fromkeys(arxiv_ids))
        shards = IdMap(self)
        within: dict[str, set[str]] = {}
        for arxiv_id in ids:
            if arxiv_id.isascii() or _is_utf8(arxiv_id):
                week = shards.get(arxiv_id)
                if week is not None:
                    within.setdefault(week, set()).add(arxiv_id)
        # The weeks named alone: listing every week file (papers_within) also failed
        # on a week file gone that holds none of these papers, where get() does not.
        found = {
            paper.arxiv_id: paper
            for week, wanted in within.items()
            for paper in self._search_partition(week, None, None, wanted)
        }
        for arxiv_id in ids:
            if arxiv_id not in found:
                # Not where the id map says, or no id map: get() knows where else to look.
                paper = self.get(arxiv_id)
                if paper is not None:
                    found[arxiv_id] = paper
        return found

    def _paper_in(
        self, week: str, arxiv_id: str, *, missing_is_error: bool = False
    ) -> Paper | None:
        """The paper ``arxiv_id`` as week file ``week`` holds it, or None.
        ``missing_is_error``: a week file that is gone (not one emptied) is an error
        naming it (:meth:`weeks`)."""
        records = week_records(self.partition_path(week))
        if not records and missing_is_error:
            self.weeks()
        for doc in records.values():
            if doc.get("arxiv_id") == arxiv_id:
                return paper_of_record(doc, self.partition_path(week))
        return None

    def search(
        self,
        match: FieldMatcher | None,
        within: Candidates | None = None,
        progress: Progress | None = None,
        topic: str | None = None,
    ) -> Iterator[tuple[str, Paper]]:
        """(week, paper) for every stored paper ``match`` accepts, newest week first.

        One week file is in memory at a time, and a :class:`Paper` is built only
        for the papers that match. ``match`` gets the raw title, abstract,
        authors and categories (see :meth:`Catalog.tag_fields`); None accepts
        every paper. ``within`` (from :meth:`candidates`) limits the weeks read and
        the papers tried; ``topic``, to the papers tagged with it (only the weeks
        the index says hold some are read).
        ``progress`` is told (weeks read, weeks to read) before each week file.
        """
        weeks = [w for w in self.weeks() if within is None or w in within]
        if topic is not None:
            held = self.topic_weeks(topic)
            weeks = [w for w in weeks if w in held]
        for done, week in enumerate(weeks):
            if progress is not None:
                progress(done, len(weeks))
            ids = within.get(week) if within is not None else None
            for paper in self._search_partition(week, topic, match, ids):
                yield week, paper

    def search_week(
        self,
        week: str,
        match: FieldMatcher | None = None,
        within: Candidates | None = None,
        topic: str | None = None,
    ) -> list[Paper]:
        """The papers of one week file (``match`` accepts and tagged ``topic``, when
        given), in no set order."""
        if within is not None and week not in within:
            return []
        return self._search_partition(week, topic, match, within.get(week) if within else None)

    def papers_within(self, within: Candidates) -> list[Paper]:
        """The stored papers ``within`` names, reading only their weeks (in no set order)."""
        found: list[Paper] = []
        for week in self.weeks():
            if week in within:
                found += self._search_partition(week, None, None, within[week])
        return found

    def topic_weeks(self, topic: str) -> set[str]:
        """The weeks the index says hold papers of ``topic`` (:data:`ALL`: any paper)."""
        return {week for week, n in self.index().counts.get(topic, {}).items() if n > 0}

    def weeks(self, *, check: bool = True) -> list[str]:
        """Every partition key on disk, newest first.

        Raises:
            StoreError: with ``check``, a week file the index counts papers in is not
                there (:meth:`_refuse_missing_weeks`): read without it, an export wrote 12% of
                the store fewer and said nothing. A rebuild passes ``check=False``.
        """
        keys = {p.stem for p in self.week_paths()}
        if check:
            keys = self._refuse_missing_weeks(keys)
        return sorted(keys, key=week_sort_key, reverse=True)

    def _refuse_missing_weeks(self, on_disk: set[str]) -> set[str]:
        """Refuse to read on when a week file the index counts papers in is not among
        ``on_disk``, the week files listed; returns the listing checked (it may be
        read again). A write cut short (the ``.dirty`` marker) may leave such a week,
        which the next writer's rebuild sets right: no error then.

        Raises:
            StoreError: the file is missing, with how many papers it held.
        """
        if not self.exists():
            return on_disk
        for _ in range(3):
            counts = self.index().counts.get(ALL, {})
            gone = sorted(w for w, n in counts.items() if n > 0 and w not in on_disk)
            if not gone:
                return on_disk
            # A writer renames a new week file into place before the index that counts
            # it: listed before the rename and read after it, the index counted a week
            # the listing lacked ("store file ... is missing", 18 of 205 `latest` runs
            # beside a writer that made a week a batch). Listed again, after the index
            # was read, every week it counts is there unless it is gone.
            listed = {p.stem for p in self.week_paths()}
            if listed == on_disk:
                break
            on_disk = listed
        gone = [w for w in gone if w not in on_disk]
        if not gone:
            return on_disk
        # A week the id map places no paper in was emptied, its papers moved on, and
        # the index has not caught up: a write cut short (its marker is there), or an
        # index.json older than the week files, restored from a backup. One the id map
        # still places papers in is a week file gone by other hands: read on, an export
        # with a marker left by any killed write gave 4,498 of 4,802 papers and exit 0.
        placed, held, whole = self._ids_outside(on_disk)
        dirty = self.dirty_path.exists()
        # An id map damaged or gone cannot tell an emptied week from a lost one: "the
        # index is older" sent a user to a repair that dropped 2,226 papers and said
        # "nothing lost".
        trusted = dirty or (whole and held >= sum(counts.values()))
        emptied = [w for w in gone if trusted and not placed.get(w)]
        gone = [w for w in gone if not trusted or placed.get(w)]
        if gone:
            lost = sum(counts[w] for w in gone)
            raise self.missing_weeks_error(
                gone, f": the index counts {counted(lost, 'paper')} there"
            )
        if not dirty:
            # The readers' counts would be the old index's: stop, but not with "missing,
            # restore them from a backup", which sent the user hunting for files whose
            # papers are all in later weeks.
            more = f" and {len(emptied) - 1:,} more" if len(emptied) > 1 else ""
            raise StoreError(
                f"index.json counts papers in weeks that have no week file (the week of "
                f"{emptied[0]}{more}), and the id map places none there: the index is older "
                "than the week files, as one restored from a backup is. Run 'papertrack "
                "doctor --repair' to count the papers again from the week files"
            )
        return on_disk

    def missing_weeks_error(
        self, gone: Sequence[str], why: str, *, named: bool = False
    ) -> StoreError:
        """The error for week files ``gone`` (oldest first) that must be there: ``why``
        follows "store file X is missing" (readers: the index counts their papers; a
        rebuild: the id map places papers there that no other week holds). ``named``:
        the repair names the papers it goes on without."""
        what = visible(str(self.partition_path(gone[0])))
        if len(gone) > 1:
            what += f" and {len(gone) - 1:,} more week file{'s' if len(gone) > 2 else ''}"
        return StoreError(
            f"store file {what} {'is' if len(gone) == 1 else 'are'} missing{why}. Restore "
            f"{'it' if len(gone) == 1 else 'them'} from a backup, or run 'papertrack doctor "
            "--repair' to go on without those papers" + (" (it names them)" if named else "")
        )

    def ids_placed_outside(self, on_disk: AbstractSet[str]) -> dict[str, list[str]]:
        """Week -> the ids the id map places in it, for the weeks not in ``on_disk`` (a
        damaged shard is passed over: doctor names it). Reads every shard: for the
        rare checks of a store whose week files are missing."""
        return self._ids_outside(on_disk)[0]

    def _ids_outside(self, on_disk: AbstractSet[str]) -> tuple[dict[str, list[str]], int, bool]:
        """:meth:`ids_placed_outside`, with how many ids the shards read hold and
        whether every shard could be read."""
        id_map = IdMap(self)
        placed: dict[str, list[str]] = {}
        held, whole = 0, True
        for path in self.shard_files():
            try:
                pairs = [(str(p), str(w)) for p, w in id_map.shard(path.stem).items()]
            except (StoreError, ValueError, TypeError, AttributeError):
                whole = False
                continue
            held += len(pairs)
            for pid, week in pairs:
                if week not in on_disk:
                    placed.setdefault(week, []).append(pid)
        return placed, held, whole

    def week_paths(self) -> list[Path]:
        """Every week file on disk (``papers/*.json``, no hidden ones), in name order.

        No ``papers`` folder is a store without papers yet. One that is there but
        cannot be listed is an error: read as empty (as ``Path.glob`` reads it),
        the store looked empty, and ``doctor --repair`` rebuilt its id map from nothing.

        Raises:
            StoreError: ``papers`` cannot be listed (no permission, a file, a link to
                something not there).
        """
        folder = self.papers_dir
        try:
            names = os.listdir(folder)
        except FileNotFoundError:
            if not folder.is_symlink():
                return []
            why = f"links to {visible(os.readlink(folder))}, which is not there"
            fix = "Mount or restore it"
        except NotADirectoryError:
            why, fix = "is a file, not a folder of week files", "Move it away or restore the folder"
        except OSError as exc:
            why, fix = f"could not be read ({exc.strerror or exc})", "Check its permissions"
        else:
            return sorted(folder / n for n in names if n.endswith(".json") and n[0] != ".")
        raise UnlistedFolder(folder, why, fix)

    def latest(
        self,
        topic: str | None = None,
        *,
        limit: int | None = 20,
        since: datetime | None = None,
        keep: Callable[[Paper], bool] | None = None,
        match: FieldMatcher | None = None,
        within: Candidates | None = None,
        until: datetime | None = None,
    ) -> list[Paper]:
        """Papers of ``topic`` (every paper when None), newest paper date first; dated
        since ``since`` and before ``until`` when given (weeks after it are not read).

        Only the weeks the index says hold the topic are opened, newest first, and
        reading stops once ``limit`` papers are in hand: every older week holds only
        older papers, so the answer is already complete. ``match``, a test on the
        raw fields (an unsaved query), and ``keep``, a test on the paper, narrow
        the papers further.
        """
        weeks = sorted(self.topic_weeks(topic or ALL), key=week_sort_key, reverse=True)
        since_week = week_of(since) if since else None
        until_week = week_before(until) if until else None
        found: list[Paper] = []
        for week in weeks:
            if since_week is not None and (week == UNDATED or week < since_week):
                break
            if until_week is not None and (week == UNDATED or week > until_week):
                continue
            if within is not None and week not in within:
                continue
            ids = within.get(week) if within is not None else None
            for paper in self._search_partition(week, topic, match, ids):
                if not paper.dated_from(since) or not paper.dated_before(until):
                    continue
                if keep is not None and not keep(paper):
                    continue
                found.append(paper)
            if limit is not None and len(found) >= limit:
                break
        found.sort(key=paper_date_key, reverse=True)
        return found if limit is None else found[:limit]

    def count(self, topic: str | None = None) -> int:
        return self.index().total(topic or ALL)

    def count_through(self, topic: str | None, day: date) -> int:
        """Papers (of ``topic``) dated on or before ``day``, and the undated ones: what
        a view as of ``day`` holds, from the index."""
        from papertrack.momentum import papers_through

        index = self.index()
        slug = topic or ALL
        return papers_through(index.days.get(slug, {}), day) + index.counts.get(slug, {}).get(
            UNDATED, 0
        )

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
        sizes = {"papers": 0, "ids": 0, "index": 0, "search": 0, "vectors": 0, "other": 0}
        if self.path.is_dir():
            for root, _dirs, files in os.walk(self.path):
                part = Path(root).relative_to(self.path).parts
                kind = part[0] if part and part[0] in ("papers", "ids", "vectors") else "other"
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
        if self.text_index_damaged:
            return None
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
                from papertrack.writer import build_text_index

                # A build killed before (SIGKILL, the OOM killer) left its temp file,
                # 2 to 50 MB, that doctor then called a problem.
                stale = f".{self.search_path.name}."
                for stray in self.temp_files():
                    if stray.name.startswith(stale):
                        with contextlib.suppress(OSError):
                            stray.unlink()

                build_text_index(self, progress)
        except Exception as exc:
            if not out_of_space(exc):
                raise
            # A full disk: every command that reads crashed here ("This is a bug"),
            # export too, while the week files were whole. They answer by a scan.
            self.text_index_failed = True
            return None
        finally:
            lock.release()
        text = TextIndex(self.search_path)
        return text if text.synced_with(self.index().generation) else None

    def text_index_broke(self, damage: IndexDamaged) -> None:
        """A read found the search index damaged (``damage``): this command (this call
        of the Python API) answers by reading the week files from now on, and the file
        goes, unless a writer holds the lock or a rebuild has already replaced it. It is
        derived from the week files, and the next command builds it again: every
        search, export --query and ask had failed until a doctor --repair.
        """
        from papertrack.fulltext import file_signature

        if self.text_index_damaged:
            return
        self.text_index_damaged = True
        fix = "Run 'papertrack doctor --repair' to rebuild it."
        lock = Lock(self.lock_path, 0.0)
        try:
            lock.acquire()
        except StoreError:
            pass
        else:
            try:
                if damage.signature != file_signature(self.search_path):
                    fix = "Another papertrack command has built it again since."
                else:
                    # Its journal first: beside a new file, it would be rolled back into it.
                    for path in (Path(f"{self.search_path}-journal"), self.search_path):
                        path.unlink(missing_ok=True)
                    fix = "The next command builds the index again."
            except OSError:
                pass
            finally:
                lock.release()
        self.note(
            f"{damage.reason}, so this answer comes from reading every week file (slower). {fix}"
        )

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
        from papertrack.fulltext import IndexDamaged

        text = self.text_index()
        if text is None:
            return None
        try:
            return text.candidates(query)
        except IndexDamaged as exc:
            self.text_index_broke(exc)
            return None
        finally:
            text.close()

    def index_outdated(self) -> bool:
        """Whether index.json predates :data:`SCHEMA`, or is gone while week files are
        there (read as it is, the store looked empty): the next writer rebuilds it."""
        if not self.index_path.exists():
            return self.marker_path.exists() and bool(self.weeks())
        return self.index().schema < SCHEMA

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
        from papertrack.writer import StoreWriter

        yield StoreWriter(self, catalog, progress)

    def refresh(
        self,
        catalog: Catalog,
        progress: Progress | None = None,
        pins: PinsMoved | None = None,
    ) -> dict[str, Retagged]:
        """Recover from an interrupted write and retag changed topics, under the lock.

        Returns, for each retagged topic, how many papers gained and lost its tag
        and the newest of them.
        ``progress`` is told (weeks done, weeks in all) through the retag.
        ``pins``: a teach that only pinned papers, whose retag may read those alone.
        """
        with self.writer(catalog, progress) as writer:
            writer.pins_moved = pins
            with writer.holding():
                pass
        return writer.retagged


#: How :func:`bring_current` shows a slow step: ``busy(doing, unit)`` is a context
#: manager that yields the step's progress callback.
Busy = Callable[[str, str], contextlib.AbstractContextManager[Progress]]


def open_named(db: str | os.PathLike[str] | None, *, create: bool, missing: str) -> Store:
    """The store ``db`` (``--db`` or the API's path), PAPERTRACK_DB or the data home
    names, waiting PAPERTRACK_LOCK_TIMEOUT for its lock: how the commands and the
    Python API both open it.

    Raises:
        StoreError: a file sits where a folder of the path should be; or a store
            named by ``db`` or PAPERTRACK_DB is not there and ``create`` is false
            (a mistyped path in a cron job answered "no papers" for ever):
            "no store at PATH" and ``missing``, how to fix it.
        UsageError: PAPERTRACK_LOCK_TIMEOUT is not a number of seconds.
    """
    from papertrack import paths
    from papertrack.text import visible

    where = paths.store_dir(db)
    _refuse_file_above(where)
    named = bool(db) or bool(os.environ.get("PAPERTRACK_DB"))
    if named and not create and not os.path.exists(where):  # a dangling link too
        raise StoreError(f"no store at {visible(str(where))}{missing}")
    return Store(where, lock_timeout=lock_timeout())


def _refuse_file_above(where: Path) -> None:
    """Fail clearly when a regular file sits where a folder of the store's path should be.

    Then the store can be neither read nor created (ENOTDIR), however it is used;
    without this check a read would stop with a traceback.
    """
    for parent in where.parents:
        if parent.exists():  # False below a file: exists() swallows ENOTDIR
            if not parent.is_dir():
                raise StoreError(
                    # Not "could not create": a read (HOME=/dev/null in a cron job)
                    # creates nothing.
                    f"the store cannot be at {where}: {parent} is a file, not a "
                    "directory. Point --db, PAPERTRACK_DB or PAPERTRACK_HOME at a directory, "
                    "or move the file away"
                )
            return


def _quiet(doing: str, unit: str) -> contextlib.AbstractContextManager[Progress]:
    return contextlib.nullcontext(lambda done, total: None)


def bring_current(
    store: Store,
    catalog: Catalog,
    *,
    note: Callable[[str], None],
    busy: Busy = _quiet,
    record: Callable[[str], object] | None = None,
) -> None:
    """Make ``store`` ready to answer for ``catalog``: retag the papers of topics whose
    definition changed since they were tagged, upgrade an index an older papertrack
    wrote, and build a missing full-text index. The command line and the Python API
    both answer through this.

    A store this process cannot write is read with the tags it has, and ``note`` is
    told which topics may be out of date: every read of a shared or read-only store
    failed on its lock. ``record`` is told what a retag moved, topic by topic (an
    upgrade's new models moved counts and momentum, and nothing said why).

    Raises:
        StoreError: the store is read-only and its index needs the upgrade.
    """
    # A week file the index counts papers in, gone: every reader stops, naming it.
    # momentum, trending and topics read index.json alone and went on counting its
    # papers with exit 0, while latest and export stopped.
    store.weeks()
    outdated = store.index_outdated()
    current = store.tags_current(catalog)
    if (outdated or not current) and store.exists() and not os.access(store.path, os.W_OK):
        if outdated:
            # Also an index.json emptied to a bare TinyDB (schema 0), or one gone.
            raise StoreError(
                f"{visible(str(store.path))} needs its index.json made again from its week "
                "files (it is gone, emptied, or from an older papertrack), which the first "
                "command that can write the store does. Make it writable and run any command"
            )
        changed = sorted(store.index().changed_topics(catalog.fingerprints()))
        named = ", ".join(changed[:3]) + (
            f" and {len(changed) - 3} more" if len(changed) > 3 else ""
        )
        note(
            f"{visible(str(store.path))} is read-only, so its papers keep the tags "
            f"they were given; those of {named} may be out of date. Make the store "
            "writable to retag them."
        )
        return

    def build_text_index() -> None:
        # A store from before the full-text index (or after a write it missed): built
        # once, here, so that searches do not each read every week file.
        if store.text_index_missing() and not store.text_index_failed:
            with busy("Building the search index (once)", "paper") as progress:
                store.text_index(progress)
            if store.text_index_failed:
                note(
                    "The search index could not be built: the disk is full. Answers come "
                    "from reading every week file until it is (slower); free some space."
                )

    # First, when the index file is current: a retag then reads only the papers a
    # changed query can match, and did not build it under its own spinner ("week
    # file 2,001 of 83,510"). An outdated index file is rebuilt by the retag first.
    if not outdated:
        build_text_index()
    if not current or outdated:
        with busy("Retagging stored papers for the changed topics", "week file") as progress:
            moved = store.refresh(catalog, progress)
        changes = [
            _moved(store, slug, change.gained, change.lost)
            for slug, change in sorted(moved.items())
            if change.gained or change.lost
        ]
        if record is not None and changes:
            record(
                "Retagged the stored papers for topics whose definition changed since they "
                "were tagged (topics.toml edited, a teach interrupted before its retag, a "
                "fetch or ingest that began before a teach, or papertrack upgraded): "
                f"{', '.join(changes)}."
            )
    build_text_index()


def _moved(store: Store, slug: str, gained: int, lost: int) -> str:
    """ "slug +N -M", and the topic's size before and after when it grew by half or
    more or lost a third or more: a teach interrupted before its retag, run again,
    said "+17 -330" where the teach itself says "767 papers to 454 (-41%)"."""
    said = f"{slug} +{gained:,} -{lost:,}"
    now = store.count(slug)
    before = now - gained + lost
    if before > 0 and (2 * now >= 3 * before or 3 * now <= 2 * before):
        said += f" ({counted(before, 'paper')} to {now:,}, {100 * (now - before) / before:+.0f}%)"
    return said


def _in_month(week: str, month: tuple[int, int]) -> bool:
    """Whether the ISO week that starts on ``week`` can hold a paper whose id was given
    in ``month`` (year, month): one with a day in that month, or the week after (a
    paper known from a listing is dated by its announcement, days after submission)."""
    start = date.fromisoformat(week)
    end = start + timedelta(days=6)
    before = start - timedelta(days=7)
    return (before.year, before.month) <= month <= (end.year, end.month)


class IdMap:
    """The id -> week map, read shard by shard as ids need it (a writer's one also writes)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.maps: dict[str, dict[str, str]] = {}

    def shard(self, shard: str) -> dict[str, str]:
        """Id -> week, for the ids of one shard (``ids/SHARD.json``)."""
        if shard not in self.maps:
            data = AtomicJSONStorage(self.store.shard_path(shard)).read() or {}
            self.maps[shard] = dict((data.get("ids") or {}).get("1") or {})
        return self.maps[shard]

    def get(self, arxiv_id: str) -> str | None:
        return self.shard(id_shard(arxiv_id)).get(arxiv_id)


# --------------------------------------------------------------------------- damage
