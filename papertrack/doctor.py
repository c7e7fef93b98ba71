"""Check a store for damage, and repair what can be repaired (``papertrack doctor``).

papertrack itself never leaves a damaged file behind (every write is atomic, see
:mod:`papertrack.store`), but a disk, a sync tool or a hand edit can. A check
reads every file of the store and names each problem; a repair, under the
store's writer lock:

* copies every damaged week file, byte for byte, to ``damaged/<name>.<UTC time>``
  (it never deletes one), salvages each complete paper record still readable in
  it, writes those back as a fresh week file (a paper dated in another week goes
  to that week), then
* rebuilds the derived files (id map, index) from the week files and retags if
  the topic fingerprints were lost, as the next writer after a kill would, and
* reports the papers the old id map placed in a damaged week that could not be
  salvaged: those are lost, and named.

Never prints; the CLI renders :class:`Checkup` and :class:`RepairReport`.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from papertrack.errors import StoreError
from papertrack.files import write_atomic
from papertrack.index import ALL, SCHEMA, UNDATED, Index, week_of
from papertrack.models import Paper, Progress
from papertrack.storage import PAPERS_TABLE, AtomicJSONStorage, _shape_problem
from papertrack.store import Store, id_shard
from papertrack.writer import StoreWriter, build_text_index

if TYPE_CHECKING:
    from papertrack.topics import Catalog

#: Where a repair keeps the bytes of the files it replaced, inside the store.
#: At most this many ids are named in one line of a report.
MAX_NAMED = 10
FIX = "Run 'papertrack doctor --repair'"

# Problems whose fix rewrites a week file (the others only touch derived files).
_PARTITION_KINDS = frozenset({"damaged", "bad-name", "bad-records", "misplaced", "duplicate"})


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the store: ``file`` is relative to the store directory."""

    file: str
    kind: str
    detail: str
    fix: str = FIX

    def what(self) -> str:
        """The problem as a sentence without the fix: ``papers/x.json is damaged: …``."""
        return f"{self.file} {self.detail}"

    def line(self) -> str:
        return f"{self.what()}. {self.fix}."

    def to_dict(self) -> dict[str, str]:
        return {"file": self.file, "kind": self.kind, "detail": self.detail, "fix": self.fix}


@dataclass
class Checkup:
    """What :func:`check_store` found."""

    path: Path
    exists: bool = True
    partitions: int = 0
    #: Week files that could not be read at all (their papers are not in ``placed``).
    unreadable: int = 0
    shards: int = 0
    problems: list[Problem] = field(default_factory=list)
    #: arxiv_id -> every readable week file holding it (twice means a problem).
    placed: dict[str, list[str]] = field(default_factory=dict)
    #: arxiv_id -> week, as the readable id map shards say.
    id_map: dict[str, str] = field(default_factory=dict)
    #: Papers per week as index.json counted them, when it could be read.
    index_weeks: dict[str, int] | None = None

    @property
    def healthy(self) -> bool:
        return not self.problems

    @property
    def papers(self) -> int:
        return len(self.placed)

    def to_dict(self) -> dict[str, Any]:
        return {
            "store": str(self.path),
            "healthy": self.healthy,
            "papers": self.papers,
            "partitions": self.partitions,
            "unreadable": self.unreadable,
            "shards": self.shards,
            "problems": [p.to_dict() for p in self.problems],
        }


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

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "kept_at": self.kept_at,
            "salvaged": self.salvaged,
            "moved": self.moved,
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
    #: Papers named by the old id map that no week file holds after the repair.
    lost: list[str] = field(default_factory=list)

    @property
    def repaired(self) -> bool:
        return not self.before.healthy

    def to_dict(self) -> dict[str, Any]:
        return {
            "store": str(self.before.path),
            "healthy": self.after.healthy,
            "papers": self.after.papers,
            "problems": [p.to_dict() for p in self.before.problems],
            "salvaged": [s.to_dict() for s in self.salvages],
            "rebuilt": self.rebuilt,
            "cleared": self.cleared,
            "merged": self.merged,
            "retagged": self.retagged,
            "lost": self.lost,
            "remaining": [p.to_dict() for p in self.after.problems],
        }


def name_some(ids: list[str], limit: int = MAX_NAMED) -> str:
    """``a, b, c`` or ``a, b, … and 7 more``: a list of ids short enough for one line."""
    named = ", ".join(ids[:limit])
    return f"{named} and {len(ids) - limit:,} more" if len(ids) > limit else named


# --------------------------------------------------------------------------- check


def check_store(store: Store, progress: Progress | None = None) -> Checkup:
    """Read every file of ``store`` and list what is wrong with it.

    Takes the writer lock (waiting up to ``store.lock_timeout``) so that a write in
    flight is not mistaken for damage; writes nothing but the lock file, and not
    even that when the lock file cannot be created (a read-only store).

    ``progress`` is told (week files read, week files in all) as they are read.

    Raises:
        StoreError: another writer held the lock for too long.
    """
    if not store.path.is_dir():
        return Checkup(store.path, exists=False)
    lock = store.lock()
    try:
        lock.acquire()
    except StoreError as exc:
        if not isinstance(exc.__cause__, OSError):
            raise
        return _check(store, progress)  # cannot even open the lock file: nobody can write
    try:
        return _check(store, progress)
    finally:
        lock.release()


def _check(store: Store, progress: Progress | None = None) -> Checkup:
    checkup = Checkup(store.path)
    unreadable: set[str] = set()
    papers: dict[str, list[tuple[str, Paper]]] = defaultdict(list)
    folder = store.papers_dir
    files = sorted(folder.glob("*.json")) if folder.is_dir() else []
    for done, path in enumerate(files):
        if progress is not None:
            progress(done, len(files))
        if path.name.startswith("."):
            continue
        checkup.partitions += 1
        week = path.stem
        found = _check_partition(store, path, checkup.problems)
        if found is None:
            unreadable.add(week)
            checkup.unreadable += 1
            continue
        for paper in found:
            papers[paper.arxiv_id].append((week, _shell(paper)))
    checkup.placed = {pid: [w for w, _ in copies] for pid, copies in papers.items()}
    _check_two_weeks(checkup)
    damaged_shards = _check_shards(store, checkup, unreadable)
    _check_missing_from_map(checkup, damaged_shards)
    _check_index(store, checkup, papers, unreadable)
    _check_text_index(store, checkup, unreadable)
    for stray in store.temp_files():
        checkup.problems.append(
            Problem(_rel(store, stray), "temp-file", "is a temp file left by an interrupted write")
        )
    if store.dirty_path.exists():
        checkup.problems.append(
            Problem(
                ".dirty",
                "dirty",
                "is left by an interrupted write: the id map and index may be out of date",
            )
        )
    return checkup


def _shell(paper: Paper) -> Paper:
    """What the checks need of a paper, without its text: a million papers fit in memory."""
    return Paper(
        arxiv_id=paper.arxiv_id,
        title="",
        version=paper.version,
        published=paper.paper_date,
        updated=paper.updated,
        tags=paper.tags,
    )


def _rel(store: Store, path: Path) -> str:
    return path.relative_to(store.path).as_posix()


def _is_week_key(name: str) -> bool:
    if name == UNDATED:
        return True
    try:
        day = date.fromisoformat(name)
    except ValueError:
        return False
    return day.isoformat() == name and day.weekday() == 0


def _parse(path: Path, file: str) -> tuple[Any, Problem | None]:
    """The JSON in ``path`` (``file`` in the store), or the problem that keeps it unread."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        why = f"could not be read ({exc.strerror or exc})"
        return None, Problem(file, "unreadable", why, "Check its permissions")
    try:
        return json.loads(raw), None
    except (ValueError, RecursionError) as exc:  # also UnicodeDecodeError
        return None, Problem(file, "damaged", f"is damaged: not valid JSON ({exc})")


def _paper(doc: Any) -> Paper | None:
    """A stored record as a Paper, or None when it is not a whole paper record."""
    if not isinstance(doc, dict) or not isinstance(doc.get("arxiv_id"), str):
        return None
    if not doc["arxiv_id"]:
        return None
    try:
        return Paper.from_record(doc)
    except (TypeError, ValueError, AttributeError, KeyError):
        return None


def _check_partition(store: Store, path: Path, problems: list[Problem]) -> list[Paper] | None:
    """The papers of one week file (each once), or None when it cannot be read at all."""
    file = _rel(store, path)
    week = path.stem
    if not _is_week_key(week):
        problems.append(
            Problem(
                file, "bad-name", "is not named after a week (a Monday, YYYY-MM-DD, or undated)"
            )
        )
    data, problem = _parse(path, file)
    if problem is not None:
        problems.append(problem)
        return None
    shape = _shape_problem(data)  # what readers refuse, doctor reports
    if shape is not None:
        problems.append(Problem(file, "damaged", f"is damaged: {shape}"))
        return None
    bad: list[str] = []
    misplaced: list[str] = []
    twice: list[str] = []
    found: dict[str, Paper] = {}
    for doc_id, doc in (data.get(PAPERS_TABLE) or {}).items():
        paper = _paper(doc)
        if paper is None or not doc_id.isdigit():
            bad.append(doc_id)
            continue
        if paper.arxiv_id in found:
            twice.append(paper.arxiv_id)
            continue
        found[paper.arxiv_id] = paper
        if week_of(paper.paper_date) != week:
            misplaced.append(paper.arxiv_id)
    if bad:
        problems.append(
            Problem(
                file,
                "bad-records",
                f"is damaged: {len(bad):,} record{'s are' if len(bad) != 1 else ' is'} not a "
                f"paper (record {name_some(bad)})",
            )
        )
    if misplaced:
        problems.append(
            Problem(
                file,
                "misplaced",
                f"holds {len(misplaced):,} paper{'s' if len(misplaced) != 1 else ''} dated in "
                f"another week ({name_some(misplaced)})",
            )
        )
    if twice:
        problems.append(
            Problem(file, "duplicate", f"holds the same paper twice ({name_some(twice)})")
        )
    return list(found.values())


def _check_two_weeks(checkup: Checkup) -> None:
    groups: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for pid, weeks in checkup.placed.items():
        if len(weeks) > 1:
            groups[tuple(sorted(weeks))].append(pid)
    for key, pids in sorted(groups.items()):
        files = ", ".join(f"papers/{w}.json" for w in key)
        checkup.problems.append(
            Problem(
                files,
                "two-weeks",
                f"{'all' if len(key) > 2 else 'both'} hold the same "
                f"{len(pids):,} paper{'s' if len(pids) != 1 else ''} ({name_some(sorted(pids))}); "
                "a paper belongs to one week",
            )
        )


def _check_shards(store: Store, checkup: Checkup, unreadable: set[str]) -> set[str]:
    """Check every id map shard against the week files; returns the unreadable shards."""
    damaged: set[str] = set()
    folder = store.ids_dir
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        if path.name.startswith("."):
            continue
        checkup.shards += 1
        file, shard = _rel(store, path), path.stem
        data, problem = _parse(path, file)
        shape = _shape_problem(data) if problem is None else None
        if shape is not None:
            problem = Problem(file, "damaged-map", f"is damaged: {shape}")
        if problem is not None:
            if problem.kind == "damaged":
                problem = Problem(file, "damaged-map", problem.detail)
            checkup.problems.append(problem)
            damaged.add(shard)
            continue
        stale: list[str] = []
        for doc in data.get("ids", {}).values():
            for pid, week in doc.items():
                if id_shard(pid) != shard:
                    stale.append(pid)
                    continue
                checkup.id_map[pid] = week
                if week not in unreadable and week not in checkup.placed.get(pid, ()):
                    stale.append(pid)
        if stale:
            checkup.problems.append(
                Problem(
                    file,
                    "stale-map",
                    f"has {len(stale):,} entr{'ies' if len(stale) != 1 else 'y'} pointing at a "
                    f"week file that does not hold the paper ({name_some(sorted(stale))})",
                )
            )
    return damaged


def _check_missing_from_map(checkup: Checkup, damaged_shards: set[str]) -> None:
    missing: dict[str, list[str]] = defaultdict(list)
    for pid, weeks in checkup.placed.items():
        shard = id_shard(pid)
        if shard not in damaged_shards and checkup.id_map.get(pid) not in weeks:
            missing[shard].append(pid)
    for shard, pids in sorted(missing.items()):
        checkup.problems.append(
            Problem(
                f"ids/{shard}.json",
                "missing-map",
                f"lacks {len(pids):,} stored paper{'s' if len(pids) != 1 else ''} "
                f"({name_some(sorted(pids))})",
            )
        )


def _check_index(
    store: Store,
    checkup: Checkup,
    papers: dict[str, list[tuple[str, Paper]]],
    unreadable: set[str],
) -> None:
    path = store.index_path
    if not path.exists():
        if papers:
            checkup.problems.append(
                Problem("index.json", "missing-index", "is missing, so no paper is counted")
            )
        return
    data, problem = _parse(path, "index.json")
    index: Index | None = None
    why = problem.detail if problem is not None else _shape_problem(data)
    if problem is None and why is not None:
        why = f"is damaged: {why}"
    elif problem is None:
        try:
            index = Index.from_tinydb(data)
        except (LookupError, TypeError, AttributeError, ValueError) as exc:
            why = f"is damaged: not a papertrack index ({type(exc).__name__}: {exc})"
    if index is None:
        fix = problem.fix if problem is not None else FIX
        checkup.problems.append(Problem("index.json", "damaged-index", why or "", fix))
        return
    checkup.index_weeks = dict(index.counts.get(ALL, {}))
    recount = Index()
    for copies in papers.values():
        # The copy a rebuild keeps: the newest; counted once.
        best = max(copies, key=lambda c: ((c[1].version or 0), c[1].updated or _EPOCH))[1]
        recount.bump(best, +1)
    differences = _differences(index.counts, recount.counts, unreadable)
    if index.schema >= SCHEMA:
        differences += _differences(index.days, recount.days, unreadable, "days")
    if differences:
        more = f" and {len(differences) - 3:,} more" if len(differences) > 3 else ""
        checkup.problems.append(
            Problem(
                "index.json",
                "stale-index",
                "has counts that disagree with the week files ("
                + "; ".join(differences[:3])
                + more
                + ")",
            )
        )


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
#: Until the full-text index is rebuilt, searches read every week file.
_TEXT_FIX = FIX


def _check_text_index(store: Store, checkup: Checkup, unreadable: set[str]) -> None:
    """The full-text index: present, in step with index.json, and naming every paper once.

    Papers of week files that cannot be read are not held against it (reported once, above).
    """
    import sqlite3

    from papertrack.fulltext import FILE, TextIndex

    if not checkup.placed and not store.search_path.exists():
        return
    if not store.search_path.exists():
        checkup.problems.append(Problem(FILE, "missing-search-index", "is missing", _TEXT_FIX))
        return
    text = TextIndex(store.search_path)
    try:
        try:
            generation = store.index().generation
        except StoreError:
            generation = ""  # index.json is damaged: reported above
        if not text.synced_with(generation):
            checkup.problems.append(
                Problem(FILE, "stale-search-index", "is behind the week files", _TEXT_FIX)
            )
            return
        held = dict(text.ids())
    except (sqlite3.Error, StoreError) as exc:
        checkup.problems.append(
            Problem(FILE, "damaged-search-index", f"is damaged ({exc})", _TEXT_FIX)
        )
        return
    finally:
        text.close()
    placed = {pid: weeks[0] for pid, weeks in checkup.placed.items() if len(weeks) == 1}
    wrong = sorted(
        pid for pid in placed.keys() | held.keys() if pid in placed and held.get(pid) != placed[pid]
    )
    extra = sorted(
        pid for pid in held.keys() - checkup.placed.keys() if held[pid] not in unreadable
    )
    if wrong or extra:
        named = name_some(wrong + extra)
        checkup.problems.append(
            Problem(
                FILE,
                "stale-search-index",
                f"disagrees with the week files about {len(wrong) + len(extra):,} papers ({named})",
                _TEXT_FIX,
            )
        )


def _differences(
    counted: dict[str, dict[str, Any]],
    stored: dict[str, dict[str, Any]],
    skip: set[str],
    what: str = "papers",
) -> list[str]:
    """Where the index's counts differ from a recount, skipping weeks that cannot be read."""

    def nonzero(value: Any) -> bool:
        return bool(any(value) if isinstance(value, list) else value)

    found: list[str] = []
    for topic in sorted(set(counted) | set(stored)):
        mine = {k: v for k, v in counted.get(topic, {}).items() if nonzero(v) and k not in skip}
        real = {k: v for k, v in stored.get(topic, {}).items() if nonzero(v) and k not in skip}
        for week in sorted(set(mine) | set(real)):
            if mine.get(week) != real.get(week):
                found.append(
                    f"{what} of {topic!r} in {week}: {mine.get(week, 0)} counted, "
                    f"{real.get(week, 0)} stored"
                )
    return found


# --------------------------------------------------------------------------- salvage

# A TinyDB document as _dumps writes it: `"<doc id>":{` right after the `{` or `,` that
# opens it. Inside a JSON string a quote is always escaped (\"), so this never matches
# text within a title or an abstract.
_DOC_START = re.compile(r'[{,]\s*"(\d+)"\s*:\s*(?=\{)')


def salvage_records(raw: bytes) -> list[dict[str, Any]]:
    """Every complete paper record that can still be read from a damaged week file.

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
        return [doc for doc in _records_in(data) if _paper(doc) is not None]
    text = raw.decode("utf-8", errors="surrogateescape")
    decoder = json.JSONDecoder()
    found: list[dict[str, Any]] = []
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
        if _garbled(text[start:end]) or not _whole_record(doc):
            pos = match.start() + 1
            continue
        found.append(doc)
        pos = end


def _whole_record(doc: Any) -> bool:
    # A record never holds an object: one that does swallowed the next record because
    # its own closing brace was lost.
    return _paper(doc) is not None and not any(isinstance(v, dict) for v in doc.values())


# surrogateescape turns each byte that is not UTF-8 into one of U+DC80..U+DCFF.
_NOT_UTF8 = re.compile("[\udc80-\udcff]")


def _garbled(span: str) -> bool:
    return _NOT_UTF8.search(span) is not None


def _records_in(data: Any) -> list[dict[str, Any]]:
    """Paper records in parsed JSON: the papers table, or any object with an arxiv_id."""
    if isinstance(data, dict):
        table = data.get(PAPERS_TABLE)
        if isinstance(table, dict) and "arxiv_id" not in data:
            return [doc for doc in table.values() if isinstance(doc, dict)]
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
    lock.acquire()
    try:
        before = _check(store, progress)
        if before.healthy:
            return RepairReport(before, before)
        report = RepairReport(before, before)
        stamp = (now or datetime.now(UTC)).astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
        had_fingerprints = _fingerprints_readable(store)
        # A kill during the repair leaves this marker: the next writer rebuilds.
        write_atomic(store.dirty_path, b"1")
        report.salvages = _salvage_partitions(store, before, stamp)
        report.rebuilt = sorted(
            {p.file for p in before.problems if p.kind.endswith(("-map", "-index"))}
        )
        report.cleared = [p.file for p in before.problems if p.kind in ("temp-file", "dirty")]
        report.merged = sorted(pid for pid, weeks in before.placed.items() if len(weeks) > 1)
        # prepare() drops temp files, rebuilds the id map and index from the week files
        # (keeping the newest copy of a paper stored twice) and retags changed topics.
        StoreWriter(store, catalog, progress).prepare()
        if any(p.kind.endswith("-search-index") for p in before.problems):
            build_text_index(store, progress)  # even one marked in step: its rows disagreed
        report.retagged = not had_fingerprints
        report.after = _check(store, progress)
    finally:
        lock.release()
    _account_losses(report)
    return report


def _fingerprints_readable(store: Store) -> bool:
    try:
        return bool(store.index().fingerprints)
    except (StoreError, LookupError, TypeError, AttributeError, ValueError):
        return False


def _salvage_partitions(store: Store, before: Checkup, stamp: str) -> list[Salvage]:
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
        records = salvage_records(raw)
        kept = _keep_aside(store, path, raw, stamp)
        salvage = Salvage(file=file, kept_at=_rel(store, kept), salvaged=len(records))
        for doc in records:
            paper = Paper.from_record(doc)
            week = week_of(paper.paper_date)
            if week != path.stem:
                salvage.moved += 1
            _keep_newest(incoming[week], doc)
        salvages.append(salvage)
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


def _account_losses(report: RepairReport) -> None:
    before, after = report.before, report.after
    known = set(before.id_map) | set(before.placed)
    report.lost = sorted(pid for pid in known if pid not in after.placed)
    by_week: dict[str, list[str]] = defaultdict(list)
    for pid in report.lost:
        week = before.id_map.get(pid)
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
