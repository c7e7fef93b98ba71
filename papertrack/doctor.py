"""Check a store for damage (``papertrack doctor``).

papertrack itself never leaves a damaged file behind (every write is atomic, see
:mod:`papertrack.store`), but a disk, a sync tool or a hand edit can. A check
reads every file of the store and names each problem; :mod:`papertrack.salvage`
repairs what can be repaired (``doctor --repair``), and its names stay importable
from here.

Never prints; the CLI renders :class:`Checkup` and
:class:`~papertrack.salvage.RepairReport`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from papertrack.errors import StoreError
from papertrack.index import ALL, SCHEMA, UNDATED, Index, week_of
from papertrack.models import Paper, Progress, mend_record
from papertrack.storage import PAPERS_TABLE, shape_problem, week_problem
from papertrack.store import Store, UnlistedFolder, id_shard
from papertrack.text import MAX_NAMED, counted, name_some, visible

if TYPE_CHECKING:
    from papertrack.salvage import RepairReport, Salvage, repair_store, salvage_records

__all__ = [
    "FIX",
    "MAX_NAMED",
    "Checkup",
    "Problem",
    "RepairReport",
    "Salvage",
    "check_store",
    "name_some",
    "repair_store",
    "salvage_records",
]

_REPAIR_NAMES = frozenset({"RepairReport", "Salvage", "repair_store", "salvage_records"})


def __getattr__(name: str) -> Any:
    # Repairing lives in papertrack.salvage, loaded on first use (it imports this module).
    if name in _REPAIR_NAMES:
        from papertrack import salvage

        return getattr(salvage, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


FIX = "Run 'papertrack doctor --repair'"
#: What finishes what an interrupted write left: not damage, so no "Run --repair".
_DIRTY_FIX = (
    "The next command that writes to the store (an ingest, a fetch, a teach) brings them "
    "up to date, or 'papertrack doctor --repair' does it now"
)
#: Derived files that disagree with the week files, which the next writer rebuilds
#: from them while an interrupted write's .dirty marker is there; and a paper in two
#: weeks, which a write killed while moving papers to later weeks leaves (its
#: rebuild keeps the newest copy): a cron 'doctor || alert' fired after each.
_REBUILT_WHEN_DIRTY = frozenset({"stale-map", "stale-index", "two-weeks"})
_STALE_FIX = "The next search rebuilds it, or 'papertrack doctor --repair' does it now"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the store: ``file`` is relative to the store directory."""

    file: str
    kind: str
    detail: str
    fix: str = FIX
    #: Not damage: what an interrupted write left for the next command to finish
    #: (a Ctrl-C during a teach's retag made doctor fail with "Run --repair").
    pending: bool = False

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
    #: arxiv_id -> week, as search.sqlite holds them (when readable, stale or not): the
    #: last names of papers in a damaged week when its id map shard is damaged too.
    text_ids: dict[str, str] = field(default_factory=dict)

    @property
    def healthy(self) -> bool:
        """Nothing found at all, not even what the next write finishes (a repair's test)."""
        return not self.problems

    @property
    def damage(self) -> list[Problem]:
        """The problems that are damage: those the next command does not finish itself."""
        return [p for p in self.problems if not p.pending]

    @property
    def papers(self) -> int:
        return len(self.placed)

    def to_dict(self) -> dict[str, Any]:
        return {
            "store": str(self.path),
            "healthy": not self.damage,
            "papers": self.papers,
            "partitions": self.partitions,
            "unreadable": self.unreadable,
            "shards": self.shards,
            "problems": [p.to_dict() for p in self.damage],
            "pending": [p.to_dict() for p in self.problems if p.pending],
        }


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
        # Cannot even open the lock file: nobody can write.
        return _with_unreported_losses(store, checkup_of(store, progress))
    try:
        return _with_unreported_losses(store, checkup_of(store, progress))
    finally:
        lock.release()


def _retag_marker(store: Store) -> bool:
    """Whether the .dirty marker is a retag's (see StoreWriter.recount), not a write's."""
    from papertrack.writer import RETAGGING

    try:
        return store.dirty_path.read_bytes() == RETAGGING
    except OSError:
        return False


def _with_unreported_losses(store: Store, checkup: Checkup) -> Checkup:
    """``checkup`` with the losses of a repair killed before it reported them: doctor
    said "No problems found" while the papers a repair could not salvage were named
    nowhere but in ``damaged/`` (the next repair reports them)."""
    from papertrack.salvage import pending_losses

    files, lost = pending_losses(store)
    lost -= set(checkup.placed)
    if files and lost:
        them = "it" if len(lost) == 1 else "them"
        checkup.problems.append(
            Problem(
                relative_name(store, files[0]),
                "unreported-loss",
                f"names {counted(len(lost), 'paper')} an interrupted repair lost and did not "
                f"report ({visible(name_some(sorted(lost)))})",
                f"Run 'papertrack doctor --repair' to report {them}, then ingest or fetch {them} "
                "again",
            )
        )
    return checkup


def checkup_of(store: Store, progress: Progress | None = None) -> Checkup:
    checkup = Checkup(store.path)
    unreadable: set[str] = set()
    papers: dict[str, list[tuple[str, Paper]]] = defaultdict(list)
    try:
        files = store.week_paths()
    except UnlistedFolder as exc:
        # No week file can be read: every check after this one would call the whole
        # id map and index stale, and a repair would rebuild them from nothing.
        checkup.problems.append(Problem("papers", "unreadable", exc.why, exc.fix))
        checkup.unreadable += 1
        return checkup
    for done, path in enumerate(files):
        if progress is not None:
            progress(done, len(files))
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
    first_shard_problem = len(checkup.problems)
    damaged_shards = _check_shards(store, checkup, unreadable)
    # The cause first: "has 591 entries pointing at a week file that does not hold
    # the paper" did not say the file was gone.
    checkup.problems[first_shard_problem:first_shard_problem] = _missing_weeks(
        store, checkup, {path.stem for path in files}
    )
    _check_missing_from_map(checkup, damaged_shards)
    _check_index(store, checkup, papers, unreadable)
    _check_text_index(store, checkup, unreadable)
    for stray in store.temp_files():
        # Left by a writer that was killed (kill -9, the OOM killer): the file it was
        # replacing is whole, and the next writer deletes the leftover. Called damage,
        # it failed a cron health check after every such kill, until the next ingest.
        checkup.problems.append(
            Problem(
                relative_name(store, stray),
                "temp-file",
                "is a temp file left by an interrupted write",
                "The next command that writes to the store deletes it, or 'papertrack "
                "doctor --repair' does it now",
                pending=True,
            )
        )
    if store.lock_path.is_dir():
        # Every write failed "could not open the store lock" while doctor said the
        # store was healthy.
        checkup.problems.append(
            Problem(
                ".lock",
                "unreadable",
                "is a folder, not the store's lock file",
                "Move it out of the store",
            )  # fmt: skip
        )
    if store.dirty_path.exists():
        # What the marker says may be out of date is: the next writer rebuilds the id
        # map and index from the week files. After a Ctrl-C during a teach's retag,
        # doctor still failed on the counts the marker stands for. (Not with a week
        # file gone that the id map still places papers in: the next writer refuses
        # that rebuild, and only the repair goes on without them.)
        if not any(p.kind == "missing-week" for p in checkup.problems):
            finished = set(_REBUILT_WHEN_DIRTY)
            if _retag_marker(store):
                # A retag cut short is finished by a recount, which leaves a paper in
                # two weeks where it is: that stays damage.
                finished.discard("two-weeks")
            checkup.problems[:] = [
                dataclasses.replace(p, fix=_DIRTY_FIX, pending=True) if p.kind in finished else p
                for p in checkup.problems
            ]
        checkup.problems.append(
            Problem(
                ".dirty",
                "dirty",
                "is left by an interrupted write: the id map and index may be out of date",
                _DIRTY_FIX,
                pending=True,
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


def relative_name(store: Store, path: Path) -> str:
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
    except IsADirectoryError:
        why = "is a folder, not a week file"
        return None, Problem(file, "unreadable", why, "Move it out of the store")
    except FileNotFoundError:
        target = visible(os.readlink(path)) if path.is_symlink() else "a file"
        why = f"links to {target}, which is not there"
        return None, Problem(file, "unreadable", why, "Restore it, or remove the link")
    except OSError as exc:
        why = f"could not be read ({exc.strerror or exc})"
        return None, Problem(file, "unreadable", why, "Check its permissions")
    if not raw.strip():
        # "not valid JSON (Expecting value: line 1 column 1 (char 0))" said it obscurely.
        return None, Problem(file, "damaged", "is damaged: it is empty")
    try:
        return json.loads(raw), None
    except (ValueError, RecursionError) as exc:  # also UnicodeDecodeError
        return None, Problem(file, "damaged", f"is damaged: not valid JSON ({exc})")


def paper_of_mended(mended: tuple[dict[str, Any], list[str]] | None) -> Paper | None:
    """A record mended by :func:`~papertrack.models.mend_record` (its fields of the
    wrong kind dropped) as a Paper, or None when it is no paper record."""
    if mended is None:
        return None
    try:
        return Paper.from_record(mended[0])
    except (TypeError, ValueError, AttributeError, KeyError):
        return None


def _check_partition(store: Store, path: Path, problems: list[Problem]) -> list[Paper] | None:
    """The papers of one week file (each once), or None when it cannot be read at all."""
    file = relative_name(store, path)
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
    shape = week_problem(data)  # what readers refuse, doctor reports
    if shape is not None:
        problems.append(Problem(file, "damaged", f"is damaged: {shape}"))
        return None
    bad: list[str] = []
    faulty: list[str] = []
    misplaced: list[str] = []
    twice: list[str] = []
    found: dict[str, Paper] = {}
    for doc_id, doc in (data.get(PAPERS_TABLE) or {}).items():
        mended = mend_record(doc)
        paper = paper_of_mended(mended)
        if mended is None or paper is None or not doc_id.isdigit():
            bad.append(doc_id)
            continue
        faults = mended[1]
        if faults:
            faulty.append(f"{paper.arxiv_id}: {', '.join(faults)}")
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
    if faulty:
        problems.append(
            Problem(
                file,
                "bad-fields",
                f"is damaged: {len(faulty):,} paper{'s have' if len(faulty) != 1 else ' has'} "
                f"fields of the wrong kind ({name_some(faulty, 3)})",
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
    if folder.exists() and not folder.is_dir():
        # The repair would stop writing its first shard ("File exists") with .dirty left.
        why, fix = "is a file, not the id map's folder", "Move it out of the store"
        checkup.problems.append(Problem("ids", "unreadable", why, fix))
        return damaged
    for path in store.shard_files():
        checkup.shards += 1
        file, shard = relative_name(store, path), path.stem
        data, problem = _parse(path, file)
        shape = shape_problem(data) if problem is None else None
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


def _missing_weeks(store: Store, checkup: Checkup, on_disk: set[str]) -> list[Problem]:
    """A week file the id map places papers in that is not there (deleted by hand)."""
    placed: dict[str, list[str]] = defaultdict(list)
    for pid, week in checkup.id_map.items():
        if week not in on_disk:
            placed[week].append(pid)
    return [
        Problem(
            relative_name(store, store.partition_path(week)),
            "missing-week",
            f"is missing: the id map places {counted(len(ids), 'paper')} there "
            f"({name_some(sorted(ids))}); restore it from a backup if you have one, "
            "else the repair goes on without them",
        )
        for week, ids in sorted(placed.items())
    ]


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
    why = problem.detail if problem is not None else shape_problem(data)
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

    from papertrack.fulltext import FILE, FOLDER_FIX, FOLDER_PROBLEM, TextIndex

    if store.search_path.is_dir():
        checkup.problems.append(Problem(FILE, "unreadable", FOLDER_PROBLEM, FOLDER_FIX))
        return
    if not checkup.placed and not store.search_path.exists():
        return
    if store.search_path.is_symlink():
        checkup.problems.append(
            Problem(
                FILE,
                "linked-search-index",
                "is a link to another file, which papertrack does not write to",
                "The next search replaces the link by an index of the store's own, or "
                "'papertrack doctor --repair' does it now",
                pending=True,
            )
        )
        return
    if not store.search_path.exists():
        # A store from before the index (or one whose damaged index a reader
        # dropped) gets it from its next command: called a problem, an upgrade
        # failed a cron health check.
        writable = os.access(store.path, os.W_OK)
        checkup.problems.append(
            Problem(
                FILE,
                "missing-search-index",
                "is missing",
                "The next command builds it, or 'papertrack doctor --repair' does it now"
                if writable
                # Nothing builds it in a store no one may write: searches read every
                # week file, the same answers, slower.
                else "It cannot be built in a read-only store: searches read every week "
                "file instead (slower). Make the store writable to have it built",
                pending=True,
            )
        )
        return
    text = TextIndex(store.search_path)
    try:
        try:
            generation = store.index().generation
        except StoreError:
            generation = ""  # index.json is damaged: reported above
        if text.other_version():
            # Made by an earlier papertrack: the next search rebuilds it. Called a
            # problem, it failed every cron health check once after an upgrade.
            return
        if not text.synced_with(generation):
            # A file that is no database at all is damaged, not "behind the week files".
            damage = text.damage()
            if damage is not None:
                raise sqlite3.DatabaseError(damage)
            with contextlib.suppress(sqlite3.Error, StoreError):
                checkup.text_ids = dict(text.ids())
            checkup.problems.append(
                Problem(
                    FILE,
                    "stale-search-index",
                    "is behind the week files",
                    # With index.json damaged, only the repair rebuilds it.
                    _STALE_FIX if generation else _TEXT_FIX,
                    pending=bool(generation),
                )
            )
            return
        held = checkup.text_ids = dict(text.ids())
        damage = text.damage()
        if damage is not None:
            raise sqlite3.DatabaseError(damage)
    except (sqlite3.Error, StoreError) as exc:
        why = str(exc).split(". Run ", 1)[0]  # the fix is said once, after it
        checkup.problems.append(
            Problem(FILE, "damaged-search-index", f"is damaged ({why})", _TEXT_FIX)
        )
        return
    finally:
        text.close()
    placed = {pid: weeks[0] for pid, weeks in checkup.placed.items() if len(weeks) == 1}
    wrong = sorted(pid for pid, week in placed.items() if held.get(pid) != week)
    extra = sorted(
        pid for pid in held.keys() - checkup.placed.keys() if held[pid] not in unreadable
    )
    if wrong or extra:
        named = name_some(wrong + extra)
        checkup.problems.append(
            Problem(
                FILE,
                "stale-search-index",
                f"disagrees with the week files about {len(wrong) + len(extra):,} "
                f"paper{'s' if len(wrong) + len(extra) != 1 else ''} ({named})",
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
