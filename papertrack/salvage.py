"""Repair a damaged store (``papertrack doctor --repair``), salvaging what is still readable.

A repair, under the store's writer lock:

* copies every damaged week file, byte for byte, to ``damaged/<name>.<UTC time>``
  (it never deletes one), salvages each complete paper record still readable in
  it, writes those back as a fresh week file (a paper dated in another week goes
  to that week), then
* rebuilds the derived files (id map, index) from the week files and retags if
  the topic fingerprints were lost, as the next writer after a kill would, and
* reports the papers the old id map placed in a damaged week that could not be
  salvaged: those are lost, and named.

The problems come from :mod:`papertrack.doctor`'s check. Never prints; the CLI
renders :class:`RepairReport`.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections import defaultdict
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from papertrack.doctor import Checkup, checkup_of, paper_of_mended, relative_name
from papertrack.errors import StoreError
from papertrack.files import out_of_space, write_atomic
from papertrack.index import week_of
from papertrack.models import Paper, Progress, mend_record
from papertrack.storage import PAPERS_TABLE, AtomicJSONStorage
from papertrack.store import Store
from papertrack.text import UNDECODED
from papertrack.writer import StoreWriter, build_text_index

if TYPE_CHECKING:
    from papertrack.topics import Catalog

__all__ = ["RepairReport", "Salvage", "repair_store", "salvage_records"]

# Problems whose fix rewrites a week file (the others only touch derived files).
_PARTITION_KINDS = frozenset(
    {"damaged", "bad-name", "bad-records", "bad-fields", "misplaced", "duplicate"}
)


@dataclass
class Salvage:
    """What a repair did with one damaged week file."""

    file: str
    kept_at: str
    salvaged: int
    #: Salvaged papers dated in another week, written there.
    moved: int = 0
    #: Papers the id map placed in this week that are not in the store after the repair.
    lost: list[str] = field(default_factory=list)
    #: More papers the index counted in this week whose ids nothing names any more.
    lost_unnamed: int = 0
    #: Salvaged papers kept without a field of the wrong kind, by id: the fields dropped.
    mended: dict[str, list[str]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "kept_at": self.kept_at,
            "salvaged": self.salvaged,
            "moved": self.moved,
            "mended": self.mended,
            "lost": self.lost,
            "lost_unnamed": self.lost_unnamed,
        }


@dataclass
class RepairReport:
    """What :func:`repair_store` found and did; ``after`` is a fresh check."""

    before: Checkup
    after: Checkup
    salvages: list[Salvage] = field(default_factory=list)
    #: Derived files rebuilt from the week files (id map shards, index.json).
    rebuilt: list[str] = field(default_factory=list)
    #: Leftovers of an interrupted write that were removed (.dirty, temp files).
    cleared: list[str] = field(default_factory=list)
    #: Papers that were stored in more than one week: only the newest copy is kept.
    merged: list[str] = field(default_factory=list)
    #: True when every topic was re-matched (index.json had lost the fingerprints).
    retagged: bool = False
    #: slug -> (papers that gained its tag, papers that lost it) in the retag the
    #: repair ran for topics changed since the papers were tagged (a teach cut short):
    #: it moved 24 tags without a word.
    moved: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: Papers named by the old id map that no week file holds after the repair.
    lost: list[str] = field(default_factory=list)
    #: Those of ``lost`` only an interrupted repair's record named.
    interrupted: list[str] = field(default_factory=list)

    @property
    def repaired(self) -> bool:
        return not self.before.healthy or bool(self.interrupted)

    @property
    def lost_count(self) -> int:
        """Papers lost: those named, and those only index.json counted."""
        return len(self.lost) + sum(s.lost_unnamed for s in self.salvages)

    def to_dict(self) -> dict[str, Any]:
        return {
            "store": str(self.before.path),
            "healthy": self.after.healthy,
            "papers": self.after.papers,
            # The check's figures, after the repair (the check's JSON has them too).
            "partitions": self.after.partitions,
            "unreadable": self.after.unreadable,
            "shards": self.after.shards,
            "problems": [p.to_dict() for p in self.before.problems],
            "salvaged": [s.to_dict() for s in self.salvages],
            "rebuilt": self.rebuilt,
            "cleared": self.cleared,
            "merged": self.merged,
            "retagged": self.retagged,
            "moved": {slug: {"gained": g, "lost": lost} for slug, (g, lost) in self.moved.items()},
            "lost": self.lost,
            "lost_count": self.lost_count,
            "remaining": [p.to_dict() for p in self.after.problems],
        }


# --------------------------------------------------------------------------- salvage

# A TinyDB document as dumps_json writes it: `"<doc id>":{` right after the `{` or `,` that
# opens it. Inside a JSON string a quote is always escaped (\"), so this never matches
# text within a title or an abstract.
_DOC_START = re.compile(r'[{,]\s*"(\d+)"\s*:\s*(?=\{)')


def salvage_records(raw: bytes) -> list[dict[str, Any]]:
    """Every paper record that can still be read from a damaged week file, mended."""
    return [doc for doc, _ in _salvage(raw)]


def _salvage(raw: bytes) -> list[tuple[dict[str, Any], list[str]]]:
    """Every complete paper record that can still be read from a damaged week file,
    each with its fields of the wrong kind dropped (their names beside it).

    A whole file gives its papers table. A cut or garbled one is walked document by
    document with :meth:`json.JSONDecoder.raw_decode`: ``{"papers": {"1": {…},
    "2": {…}, "3": {"arxiv_`` still gives records 1 and 2, and a garbled stretch
    in the middle costs only the records it touches. A record holding bytes that
    are not UTF-8 is garbled and dropped (store files are written as UTF-8).
    Valid JSON of another shape gives every paper record found inside it.
    """
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        pass
    else:
        return [m for doc in _records_in(data) if (m := _mended(doc)) is not None]
    text = raw.decode("utf-8", errors="surrogateescape")
    decoder = json.JSONDecoder()
    found: list[tuple[dict[str, Any], list[str]]] = []
    pos = 0
    while True:
        match = _DOC_START.search(text, pos)
        if match is None:
            return found
        start = match.end()
        try:
            doc, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            pos = match.start() + 1
            continue
        mended = _mended(doc)
        if _garbled(text[start:end]) or mended is None or _swallowed(doc):
            pos = match.start() + 1
            continue
        found.append(mended)
        pos = end


def _mended(doc: Any) -> tuple[dict[str, Any], list[str]] | None:
    """``doc`` mended (:func:`mend_record`) when it is a paper record that reads as one."""
    mended = mend_record(doc)
    return mended if paper_of_mended(mended) is not None else None


def _swallowed(doc: dict[str, Any]) -> bool:
    # A record never holds an object: one that does swallowed the next record because
    # its own closing brace was lost.
    return any(isinstance(v, dict) for v in doc.values())


def _garbled(span: str) -> bool:
    return UNDECODED.search(span) is not None


def _records_in(data: Any) -> list[dict[str, Any]]:
    """Paper records in parsed JSON: the papers table, or any object with an arxiv_id."""
    if isinstance(data, dict):
        table = data.get(PAPERS_TABLE)
        if isinstance(table, dict) and "arxiv_id" not in data:
            return [doc for value in table.values() for doc in _records_in(value)]
        if "arxiv_id" in data:
            return [data]
        return [doc for value in data.values() for doc in _records_in(value)]
    if isinstance(data, list):
        return [doc for value in data for doc in _records_in(value)]
    return []


# --------------------------------------------------------------------------- repair


def repair_store(
    store: Store,
    catalog: Catalog,
    now: datetime | None = None,
    progress: Progress | None = None,
) -> RepairReport:
    """Repair ``store`` under its writer lock; see the module docstring for what that means.

    ``progress`` is told (week files done, week files in all) as they are read.

    Raises:
        StoreError: the lock is held by another writer, or a file cannot be written.
    """
    if not store.path.is_dir():
        empty = Checkup(store.path, exists=False)
        return RepairReport(empty, empty)
    lock = store.lock()
    try:
        lock.acquire()
    except StoreError as exc:
        if not isinstance(exc.__cause__, OSError):
            raise
        # The lock file cannot even be made (a read-only store): nobody writes it, so a
        # healthy one is said to be healthy, as `doctor` says; any repair needs the lock.
        checked = checkup_of(store, progress)
        if checked.healthy and not pending_losses(store)[1]:
            return RepairReport(checked, checked)
        raise
    try:
        before = checkup_of(store, progress)
        pending, earlier = pending_losses(store)
        if before.healthy:
            lost = sorted(earlier - set(before.placed))
            report = RepairReport(before, before, lost=lost, interrupted=lost)
            _reported(pending)
            return report
        unreadable = [p for p in before.problems if p.kind == "unreadable"]
        if unreadable:
            # Nothing a repair can do for a file it cannot read, and a rebuild without
            # it would drop its papers from the id map: stop before writing anything.
            raise StoreError(f"{unreadable[0].what()}. {unreadable[0].fix}, then repair again")
        report = RepairReport(before, before)
        stamp = (now or datetime.now(UTC)).astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
        had_fingerprints = _fingerprints_readable(store)

        def mark() -> None:
            # A kill during the repair leaves this marker: the next writer rebuilds.
            # Written once every damaged file was read: one that cannot be (no
            # permission) stops the repair with the store as it was.
            write_atomic(store.dirty_path, b"1")

        report.salvages = _salvage_partitions(store, before, stamp, mark, catalog)
        report.rebuilt = sorted(
            {p.file for p in before.problems if p.kind.endswith(("-map", "-index"))}
        )
        report.cleared = [p.file for p in before.problems if p.kind in ("temp-file", "dirty")]
        _keep_temp_files(store, before, stamp)
        report.merged = sorted(pid for pid, weeks in before.placed.items() if len(weeks) > 1)
        # prepare() drops temp files, rebuilds the id map and index from the week files
        # (keeping the newest copy of a paper stored twice) and retags changed topics.
        writer = StoreWriter(store, catalog, progress)
        writer.accept_losses = True  # the losses are named in this report
        writer.prepare()
        report.moved = {
            slug: (change.gained, change.lost)
            for slug, change in sorted(writer.retagged.items())
            if change.gained or change.lost
        }
        if any(p.kind.endswith("-search-index") for p in before.problems):
            try:
                build_text_index(store, progress)  # even one marked in step: its rows disagreed
            except Exception as exc:
                if not out_of_space(exc):
                    raise
                # A full disk: the damaged index goes (derived data, and its space is
                # freed); readers scan until a search with room builds it again. The
                # check below names it, and the command says why.
                with contextlib.suppress(OSError):
                    store.search_path.unlink()
                report.rebuilt = [f for f in report.rebuilt if f != store.search_path.name]
        report.retagged = not had_fingerprints
        report.after = checkup_of(store, progress)
        _account_losses(report, earlier)
        # Every record, this repair's own included: its losses are in this report.
        _reported(pending_losses(store)[0])
    finally:
        lock.release()
    return report


def _keep_temp_files(store: Store, before: Checkup, stamp: str) -> None:
    """Copy the temp files a killed writer left into ``damaged/`` before they are
    cleared: one may be the only whole copy of a week whose file is damaged too
    (a repair deleted such a file, then named its 348 papers lost)."""
    import shutil

    for problem in before.problems:
        if problem.kind != "temp-file":
            continue
        path = store.path / problem.file
        if path.parent != store.papers_dir:
            # Only a week file holds papers: the index, id map, search index and kept
            # vectors are made again from the week files (a killed build of the search
            # index left 50 MB, kept here for nothing).
            continue
        try:
            if path.stat().st_size:
                store.damaged_dir.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, store.damaged_dir / f"{path.name.lstrip('.')}.{stamp}")
        except OSError:
            pass  # gone meanwhile, or unreadable: clearing it is all that is left


#: What a repair is about to lose, written before it rewrites any week file: a repair
#: killed after that still has its losses named by the next one (which found the
#: store only missing its derived files, and said "nothing lost").
_PENDING_GLOB = "repair-*.lost.json"


def pending_losses(store: Store) -> tuple[list[Path], set[str]]:
    """The records of losses no finished repair reported yet, and the ids they name."""
    files = sorted(store.damaged_dir.glob(_PENDING_GLOB)) if store.damaged_dir.is_dir() else []
    ids: set[str] = set()
    for path in files:
        try:
            data = json.loads(path.read_bytes())
            ids.update(str(pid) for pid in data["lost"])
        except (OSError, ValueError, KeyError, TypeError):
            continue  # unreadable: the week files' bytes are kept beside it all the same
    return files, ids


def _reported(files: list[Path]) -> None:
    """Mark loss records as reported (renamed, kept beside the damaged files)."""
    for path in files:
        with contextlib.suppress(OSError):
            path.rename(path.with_name(path.name.removesuffix(".json") + ".reported.json"))


def _fingerprints_readable(store: Store) -> bool:
    try:
        return bool(store.index().fingerprints)
    except (StoreError, LookupError, TypeError, AttributeError, ValueError):
        return False


#: A record's fields its tags are made from (and the tags): one of them dropped as
#: of the wrong kind, the paper is tagged again by the repair's topics.
_TAGGED_FROM = frozenset({"tags", "title", "abstract", "authors", "categories"})


def _salvage_partitions(
    store: Store, before: Checkup, stamp: str, mark: Callable[[], None], catalog: Catalog
) -> list[Salvage]:
    """Salvage the damaged week files: read them all (their bytes kept aside), then,
    after ``mark()``, write back what was read. A paper kept without a field its tags
    are made from is tagged again: kept without its tags, it left every topic for
    good (the index took it as tagged with the current topics)."""
    files = sorted({p.file for p in before.problems if p.kind in _PARTITION_KINDS})
    salvages: list[Salvage] = []
    incoming: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for file in files:
        path = store.path / file
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise StoreError(
                f"could not read {path}: {exc.strerror or exc}. Check its permissions"
            ) from exc
        records = _salvage(raw)
        kept = _keep_aside(store, path, raw, stamp)
        salvage = Salvage(file=file, kept_at=relative_name(store, kept), salvaged=len(records))
        for doc, dropped in records:
            if dropped:
                salvage.mended[doc["arxiv_id"]] = dropped
            paper = Paper.from_record(doc)
            if _TAGGED_FROM.intersection(dropped):
                doc["tags"] = list(catalog.tag(paper))
            week = week_of(paper.paper_date)
            if week != path.stem:
                salvage.moved += 1
            _keep_newest(incoming[week], doc)
        salvages.append(salvage)
    damaged = {Path(f).stem for f in files}
    salvaged = {pid for docs in incoming.values() for pid in docs}
    elsewhere = {pid for pid, weeks in before.placed.items() if set(weeks) - damaged}
    lost = [
        pid
        for pid, week in sorted(_known_weeks(before, damaged).items())
        if week in damaged and pid not in salvaged and pid not in elsewhere
    ]
    if lost:
        record = json.dumps({"lost": lost}).encode("utf-8")
        write_atomic(store.damaged_dir / f"repair-{stamp}.lost.json", record)
    mark()
    rewritten = {store.path / f for f in files}
    for week, docs in sorted(incoming.items()):
        path = store.partition_path(week)
        merged: dict[str, dict[str, Any]] = {}
        if path not in rewritten and path.exists():
            data = AtomicJSONStorage(path, read_only=True).read() or {}
            for doc in (data.get(PAPERS_TABLE) or {}).values():
                merged[doc["arxiv_id"]] = doc
        for doc in docs.values():
            _keep_newest(merged, doc)
        table = {str(n): doc for n, doc in enumerate(merged.values(), start=1)}
        AtomicJSONStorage(path).write({PAPERS_TABLE: table})
    for path in sorted(rewritten):
        if path.stem not in incoming:
            # Nothing of it could be read, or all of it belongs to other weeks; its
            # bytes are kept in damaged/.
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
    return salvages


def _keep_newest(docs: dict[str, dict[str, Any]], doc: dict[str, Any]) -> None:
    pid = doc["arxiv_id"]
    held = docs.get(pid)
    if held is None or _recency(doc) > _recency(held):
        docs[pid] = doc


def _recency(doc: dict[str, Any]) -> tuple[int, str]:
    version = doc.get("version")
    return (version if isinstance(version, int) else 0, str(doc.get("updated") or ""))


def _keep_aside(store: Store, path: Path, raw: bytes, stamp: str) -> Path:
    """Copy ``raw`` (the bytes of ``path``) to damaged/<name>.<stamp>; never overwrite."""
    folder = store.damaged_dir
    target = folder / f"{path.name}.{stamp}"
    n = 1
    while target.exists():
        n += 1
        target = folder / f"{path.name}.{stamp}-{n}"
    write_atomic(target, raw)
    return target


def _known_weeks(before: Checkup, damaged: AbstractSet[str]) -> dict[str, str]:
    """arxiv_id -> week of every paper the store named before the repair: the id map's,
    and the search index's in the ``damaged`` weeks. The search index names the papers
    of a damaged week whose id map shard is damaged too: without it they were lost
    unnamed, or, with index.json damaged as well, not even counted ("nothing lost"),
    and the rebuild wiped their last record."""
    return {pid: w for pid, w in before.text_ids.items() if w in damaged} | before.id_map


def _account_losses(report: RepairReport, earlier: AbstractSet[str] = frozenset()) -> None:
    """The papers lost: named by the old id map (or by an interrupted repair's record,
    ``earlier``) and held by no week file now."""
    before, after = report.before, report.after
    weeks = _known_weeks(before, {Path(s.file).stem for s in report.salvages})
    known = set(weeks) | set(before.placed) | earlier
    report.lost = sorted(pid for pid in known if pid not in after.placed)
    report.interrupted = sorted(set(report.lost) & earlier - set(weeks))
    by_week: dict[str, list[str]] = defaultdict(list)
    for pid in report.lost:
        week = weeks.get(pid)
        if week is not None:
            by_week[week].append(pid)
    dirty = any(p.kind == "dirty" for p in before.problems)
    for salvage in report.salvages:
        week = Path(salvage.file).stem
        salvage.lost = by_week.get(week, [])
        if before.index_weeks is not None and not dirty:
            # Papers whose id map shard is damaged too have no name left; the index
            # still knows how many the week held.
            counted = before.index_weeks.get(week, 0)
            salvage.lost_unnamed = max(0, counted - salvage.salvaged - len(salvage.lost))
