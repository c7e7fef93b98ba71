"""Writing the store: batches of papers, retags and rebuilds, under the store lock.

Made by :meth:`papertrack.store.Store.writer`. Every file goes through
:func:`papertrack.files.write_atomic`, and a ``.dirty`` marker is set while a
batch is in flight, so a kill leaves files the next writer can recover from
(see docs/store.md, "The store").
"""

from __future__ import annotations

import contextlib
import copy
import secrets
import sqlite3
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tinydb import TinyDB
from tinydb.middlewares import CachingMiddleware
from tinydb.table import Document

from papertrack.errors import StoreError
from papertrack.files import all_or_nothing, remove_file, write_atomic
from papertrack.index import ALL, Index, week_of
from papertrack.models import (
    Paper,
    Progress,
    UpsertResult,
    from_iso,
    merge_papers,
    paper_date_key,
)
from papertrack.parallel import forked_map
from papertrack.storage import PAPERS_TABLE, AtomicJSONStorage, dumps_json, stat_key
from papertrack.store import IdMap, Store, id_shard, paper_of_record, record_fields
from papertrack.text import counted

if TYPE_CHECKING:
    from papertrack.fulltext import TextIndex
    from papertrack.topics import Catalog
    from papertrack.vectors import VectorTagger

__all__ = ["PinsMoved", "StoreWriter", "build_text_index"]


def _write_index_file(store: Store, index: Index) -> None:
    """Write index.json (staged when inside :func:`all_or_nothing`) with a new generation."""
    index.generation = secrets.token_hex(8)
    write_atomic(store.index_path, dumps_json(index.to_tinydb()))


def _recency(paper: Paper) -> tuple[int, str]:
    updated = paper.updated.isoformat() if paper.updated else ""
    return (paper.version or 0, updated)


def _text_of(paper: Paper) -> tuple[str, str, list[str], list[str]]:
    return (paper.title, paper.abstract, list(paper.authors), list(paper.categories))


#: What the ``.dirty`` marker holds while a retag writes: only tags can be cut short.
RETAGGING = b"retag"

#: Retags over at least this many stored papers spread over worker processes
#: (below it, starting them costs more than they save).
SPREAD_AT = 2_000


#: How many of the papers that gained or lost a tag a retag keeps to show (newest).
RETAG_SAMPLES = 3
#: How many of each are kept: a teach shows the newest three it did not name itself
#: (the papers just taught filled the three places, and hid what else moved).
RETAG_KEPT = RETAG_SAMPLES + 10


@dataclass
class Retagged:
    """What a retag did to one topic: how many papers gained and lost its tag, the
    newest few of each (newest first, at most :data:`RETAG_KEPT`), and every one's id
    (``topics teach --json`` lists them all: a few ids each, even for a topic of
    30,000 papers retagged whole)."""

    gained: int = 0
    lost: int = 0
    newly: list[Paper] = field(default_factory=list)
    dropped: list[Paper] = field(default_factory=list)
    gained_ids: list[str] = field(default_factory=list)
    lost_ids: list[str] = field(default_factory=list)

    def keep(self, papers: list[Paper], paper: Paper) -> None:
        papers.append(paper)
        if len(papers) > 4 * RETAG_KEPT:
            self.trim()

    def trim(self) -> None:
        for papers in (self.newly, self.dropped):
            papers.sort(key=paper_date_key, reverse=True)
            del papers[RETAG_KEPT:]


class _RetagJob:
    """What a retag computes for each stored paper: its tags among the changed topics."""

    def __init__(
        self,
        subset: Catalog,
        within: dict[str, set[str]] | None,
        changed: set[str],
        order: dict[str, int],
        holding: set[str] | None = None,
    ) -> None:
        self.subset = subset
        self.within = within
        self.changed = changed
        #: Outside ``within``, only a paper holding one of these tags can change.
        self.holding = changed if holding is None else holding
        #: slug -> place in the catalog: stored tags keep catalog order.
        self.order = order

    def tag_week(self, path: Path, docs: list[dict[str, Any]]) -> dict[Any, Any]:
        """Paper id -> its tags of the changed topics, for the records of one week file;
        None: it cannot change (not a candidate of the full-text pre-filter, and
        holding no changed tag). The papers that may change are tagged together
        (:meth:`Catalog.tag_many`)."""
        week = path.stem
        found: dict[Any, Any] = {}
        asked: list[tuple[str, str, Any, Any, Any]] = []
        for doc in docs:
            pid = doc.get("arxiv_id")
            if self.within is not None and pid not in self.within.get(week, ()):
                if not self.holding.intersection(doc.get("tags") or ()):
                    found[pid] = None  # cannot change
                    continue
            found[pid] = ()
            if len(self.subset):
                asked.append((*record_fields(doc), pid))
        for paper, tags in zip(asked, self.subset.tag_many(asked), strict=True):
            found[paper[4]] = tags
        return found


class _VectorRetagJob(_RetagJob):
    """A retag whose topics decide from features alone: from kept vectors
    (:class:`papertrack.vectors.VectorTagger`), reading text only where needed."""

    def __init__(self, tagger: VectorTagger, changed: set[str], order: dict[str, int]) -> None:
        super().__init__(tagger.subset, None, changed, order)
        self.tagger = tagger

    def tag_week(self, path: Path, docs: list[dict[str, Any]]) -> dict[Any, Any]:
        try:
            return dict(self.tagger.tag_week(path, docs))
        except OSError:
            return super().tag_week(path, docs)  # vectors not kept (a full disk): from text


@dataclass(frozen=True)
class PinsMoved:
    """A teach that pinned papers to ``slug`` and kept its model: besides those
    papers, every decision of every topic is what ``before`` (the catalog the teach
    read) gave. A retag for the new catalog then need only tag ``papers`` (see
    :meth:`StoreWriter.narrowed`)."""

    before: Catalog
    slug: str
    papers: frozenset[str]


@dataclass
class _WeekRetagged:
    """One week file retagged: each changed record as it was, with its new tags, and
    the file's new bytes (None: nothing changed)."""

    changes: list[tuple[dict[str, Any], list[str]]]
    data: bytes | None


def _retag_week(job: _RetagJob, path: Path, quiet: bool = True) -> Any:
    """Retag one week file: read it, tag its papers, and make its new bytes
    (a :class:`_WeekRetagged`).

    Runs in a forked worker, or in the writing process; only the writing process
    writes. ``quiet``: None if the file cannot be read (the writing process reads
    it again, not quietly, and the error says what is wrong).
    """
    try:
        data = AtomicJSONStorage(path).read()
    except Exception:  # noqa: BLE001 - the writing process's own read raises the real error
        if not quiet:
            raise
        return None
    docs = list(((data or {}).get(PAPERS_TABLE) or {}).values())
    found = job.tag_week(path, docs) if docs else {}
    changes: list[tuple[dict[str, Any], list[str]]] = []
    order, changed = job.order, job.changed
    for doc in docs:
        new = found.get(doc.get("arxiv_id"))
        if new is None:
            continue  # cannot match a changed topic, and holds none of them
        old = list(doc.get("tags") or ())
        kept = [t for t in old if t not in changed and t in order]
        kept += new
        tags = sorted(kept, key=order.__getitem__)
        if tags != old:
            changes.append((dict(doc), tags))
            doc["tags"] = tags
    return _WeekRetagged(changes, dumps_json(data) if changes else None)


class StoreWriter:
    """Writes batches of papers while the store lock is held. Made by :meth:`Store.writer`."""

    def __init__(self, store: Store, catalog: Catalog, progress: Progress | None = None) -> None:
        self.store = store
        self.catalog = catalog
        self.progress = progress
        #: ``catalog`` stands in for the user's, which could not be read
        #: (:attr:`Catalog.stand_in`), or is older than the stored tags (see
        #: :meth:`prepare`): stored tags are left as they are, and the topics whose
        #: tags it may give otherwise are marked out of date.
        self.stand_in = catalog.stand_in
        #: A rebuild goes on without the papers of week files gone missing: only
        #: doctor --repair, which names them, sets it.
        self.accept_losses = False
        self.index = Index()
        #: (inode, mtime, size) of index.json as this writer last left it: while the file
        #: is unchanged, no other writer came in between and ``index`` is still right.
        self._left: tuple[int, int, int] | None = None
        self._held = False
        #: slug -> what the last retag did to that topic's tag.
        self.retagged: dict[str, Retagged] = {}
        from papertrack.fulltext import TextIndex

        self.text = TextIndex(store.search_path)
        #: Whether the full-text index holds exactly the stored papers (checked under the lock).
        self.text_live = False
        self._batch = _TextBatch()
        #: Set by a teach that only pinned papers (:meth:`Store.refresh`).
        self.pins_moved: PinsMoved | None = None

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
            if self._left is None or self._left != stat_key(self.store.index_path):
                self.prepare()
            yield
        finally:
            self._held = False
            self._left = stat_key(self.store.index_path)
            self.text.close()
            lock.release()

    def prepare(self) -> None:
        """Recover from an interrupted write and retag changed topics (the lock is held)."""
        self.store.mark()
        for stray in self.store.temp_files():
            # Leftovers of killed writers (a live writer's temp files are not listed).
            with contextlib.suppress(OSError):
                stray.unlink()
        lost_index = not self.store.index_path.exists() and bool(self.store.weeks(check=False))
        if self._retag_cut_short(lost_index):
            self.recount()
        elif self._dirty.exists() or self.store.index_outdated() or lost_index:
            self.rebuild()
        else:
            # A week file gone by hand: writing on would count its papers twice when
            # they came again, and no reader could tell. Restored or repaired first.
            self.store.weeks()
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
        changed = self.index.changed_topics(self.catalog.fingerprints())
        if changed and not self.stand_in and self.index.topics_read_at > self.catalog.read_at:
            # Another process tagged the store by topics read after this writer's (a
            # teach or topics add during a long fetch): retagged back to these, the
            # teach was undone until the next command, and each command and the
            # fetch's next batch retagged the store in turn. Those topics are left to
            # the next command that reads the topics, as for a stand-in.
            self.stand_in = True
        if changed and not self.stand_in:
            self.retag(changed, self.narrowed(changed))

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

    def upsert_records(
        self,
        records: Iterable[dict[str, Any]],
        text_rows: Sequence[tuple[str, str, str, str]] = (),
    ) -> UpsertResult:
        """Like :meth:`upsert` for papers already in their stored form and tagged.

        The bulk-import path (:mod:`papertrack.ingest` prepares records in worker
        processes): a paper the store does not hold yet is written as it comes,
        without building a :class:`Paper`; every other one takes the
        :meth:`upsert` path. ``tags`` must come from this writer's catalog.
        ``text_rows``, when given, are the records' full-text index rows
        (:func:`papertrack.fulltext.index_row` of each), made by the workers.
        """
        records = list(records)
        if not records:
            return UpsertResult()
        with self.holding():
            return self._upsert_records(records, text_rows)

    def _upsert_records(
        self, records: list[dict[str, Any]], text_rows: Sequence[tuple[str, str, str, str]]
    ) -> UpsertResult:
        result = UpsertResult()
        shards = _Shards(self.store)
        parts = _Partitions(self.store)
        fresh: dict[str, dict[str, Any]] = {}
        rows: dict[str, tuple[str, str, str, str]] = {}
        others: list[Paper] = []
        for at, record in enumerate(records):
            pid = record["arxiv_id"]
            if pid in fresh or shards.get(pid) is not None:
                others.append(Paper.from_record(record))
            else:
                fresh[pid] = record
                if text_rows:
                    rows[pid] = text_rows[at]
        for pid in {p.arxiv_id for p in others} & fresh.keys():
            others.insert(0, Paper.from_record(fresh.pop(pid)))  # twice in one batch
        for pid, record in fresh.items():
            moment = from_iso(record.get("paper_date"))
            week = week_of(moment)
            parts.put_record(week, pid, record)
            shards.set(pid, week)
            if self.text_live:
                self._batch.add(pid, week, record_fields(record), rows.get(pid))
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
            earlier = incoming.get(paper.arxiv_id)
            if earlier is not None:
                # The paper is counted once below, by what the batch did to it; each
                # further copy in the batch as unchanged, so that the counts add up to
                # the papers read (9,000 lines of 3,000 papers said "3,000 new, 3,000
                # unchanged").
                result.unchanged += 1
            incoming[paper.arxiv_id] = merge_papers(earlier, paper)
        if not incoming:
            return
        old_weeks = {pid: shards.get(pid) for pid in incoming}
        found: dict[str, tuple[Paper | None, Paper]] = {}
        for pid, paper in incoming.items():
            old_week = old_weeks[pid]
            stored = parts.get(old_week, pid) if old_week is not None else None
            found[pid] = (stored, merge_papers(stored, paper))
        # Tagged together: the models score the whole batch in one pass.
        tags = self.catalog.tag_many(
            [(m.title, m.abstract, m.authors, m.categories, pid) for pid, (_, m) in found.items()]
        )
        for (pid, (stored, merged)), tagged in zip(found.items(), tags, strict=True):
            old_week = old_weeks[pid]
            if stored is not None and self.stand_in:
                # Tags that are not the topics' own (the stand-in's, or older ones)
                # are no change to a paper: 992 papers fetched again while topics.toml
                # was broken were all "updated", and rewritten.
                same = merged.with_tags(stored.tags).to_record() == stored.to_record()
                tagged = stored.tags if same else tagged
            merged = merged.with_tags(tagged)
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
        """Write one batch; a Ctrl-C, SIGTERM or SIGHUP that comes meanwhile acts once
        it is written whole (see :func:`papertrack.errors.stops_held`)."""
        from papertrack.errors import stops_held

        with stops_held():
            self._write_batch(parts, shards)

    def _write_batch(self, parts: _Partitions, shards: _Shards) -> None:
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
        except BaseException:
            # Ctrl-C: the rows' thread lets go of the index's connection before the
            # lock's release closes it (closed under a running executemany, SQLite
            # crashed the process). The marker stays: the renames may be cut short.
            batch.abandon()
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
        wanted = self.catalog.fingerprints()
        if self.stand_in:
            # New papers got the stand-in's tags. A topic it defines as the stored tags
            # were made keeps its fingerprint; any other (the user's own, one redefined
            # or hidden, one the stand-in lacks) gets one no catalog has, so the next
            # command that reads the user's file retags it, on old and new papers alike.
            wanted |= dict.fromkeys(self.index.changed_topics(wanted), "")
        self.index.fingerprints = wanted
        self.index.topics_read_at = max(self.index.topics_read_at, self.catalog.read_at)
        _write_index_file(self.store, self.index)
        if mark_text and self.text_live:
            # Only tags and counts changed: the text index is still in step.
            self.text.mark_synced(self.index.generation)

    # -- maintenance
    def narrowed(self, changed: AbstractSet[str]) -> frozenset[str] | None:
        """The only papers whose tags a retag of ``changed`` can change, when a teach
        pinned them and kept its model (:attr:`pins_moved`); None: any paper can.

        Narrowed only while it is sure: the stored tags of every changed topic are the
        ones ``before`` gave, and the catalog differs from ``before`` in that topic's
        model file alone. Topics edited in between, by hand or by another command,
        make it a whole retag.
        """
        moved = self.pins_moved
        if moved is None:
            return None
        before, now = moved.before, self.catalog
        own_before = {t.slug: t for t in before.topics}
        own_now = {t.slug: t for t in now.topics}
        if own_before.keys() != own_now.keys():
            return None
        for slug, topic in own_now.items():
            was = own_before[slug]
            if now.implied_by(slug) != before.implied_by(slug):
                return None
            if slug == moved.slug:
                # Its model file is the teach's to say about; its query and rule are not.
                same = (was.definition, was.decide_rule) == (topic.definition, topic.decide_rule)
            else:
                same = was.fingerprint == topic.fingerprint
            if not same:
                return None
        tagged_by = before.fingerprints()
        held = self.index.fingerprints
        if any(held.get(slug) != tagged_by.get(slug) for slug in changed):
            return None
        return moved.papers

    def retag(self, changed: set[str], papers: AbstractSet[str] | None = None) -> int:
        """Recompute the tags of ``changed`` topics on every paper; returns how many changed.

        Works on the stored records, not on :class:`Paper` objects, and keeps the
        index in step as it goes: a retag reads each week file once and rewrites
        only the weeks where a tag changed. Only the changed topics are matched
        (compiled together, see :meth:`Catalog.subset`). A topic that was removed
        needs no matching at all, only the weeks the index says hold it.
        ``papers``: only these can change (see :meth:`narrowed`); None: any.
        """
        order = {t.slug: n for n, t in enumerate(self.catalog.topics)}
        # A topic's tag implies others' (Catalog.settle): the topics linked to a
        # changed one by implications are decided with it. Their own decisions do
        # not change, so only a paper that a changed topic's query may match, that
        # holds a changed topic's tag, or that holds the tag of a topic implying a
        # changed one (which an `implies` added, or the topic added again, brings
        # in) can get other tags.
        asked = set(changed)
        for slug in asked:
            # Retagged, if nothing moved: a teach tells that from a retag another
            # command did first (no entry), which its "+0 papers tagged" hid.
            self.retagged.setdefault(slug, Retagged())
        changed = self.catalog.family(changed)
        subset = self.catalog.subset(changed)
        own = self.catalog.subset(asked)
        holding = asked | {above for slug in asked for above in self.catalog.implied_by(slug)}
        counts = self.index.counts
        held = {w for slug in holding for w, n in counts.get(slug, {}).items() if n}
        only = self._weeks_of(papers) if papers is not None else None
        touched = 0
        job: _RetagJob
        if only is not None:
            # A teach pinned these papers and kept its model: they alone are read
            # and tagged (from their text: a few papers), where a whole retag of a
            # big store took seconds to change nothing else.
            weeks = [w for w in self.store.weeks() if w in only]
            job = _RetagJob(subset, only, changed, order, holding=set())
        else:
            within = self._retag_candidates(own) if len(own) else {}
            if within is None:
                weeks = self.store.weeks()
            else:
                # Only papers that hold a changed tag now, or whose words can match a
                # changed topic's query, can change: only their weeks are read.
                weeks = [w for w in self.store.weeks() if w in held or w in within]
            job = self._vector_job(subset, changed, order) or _RetagJob(
                subset, within, changed, order, holding
            )
        # Tagging is the slow part (~150 µs a paper from text, ~25 µs from kept
        # vectors): forked workers read, tag and serialise the weeks ahead, while
        # this process, the only one that writes, applies them in order.
        stored = sum(self.index.counts.get(ALL, {}).get(w, 0) for w in weeks)
        paths = [self.store.partition_path(week) for week in weeks]
        spread = len(subset) > 0 and stored >= SPREAD_AT and only is None
        if isinstance(job, _VectorRetagJob) and not all(map(job.tagger.kept, paths)):
            job.tagger.ready()  # the tables that make new vectors, built before forking
        ahead = forked_map(_retag_week, job, paths, spread=spread)
        if weeks:
            write_atomic(self._dirty, RETAGGING)
            self._mark_retagging(changed)
        with contextlib.closing(ahead):
            for done, (path, week_done) in enumerate(zip(paths, ahead, strict=True)):
                if self.progress is not None:
                    self.progress(done, len(weeks))
                if week_done is None:  # a worker could not read it: read here, and say why
                    week_done = _retag_week(job, path, quiet=False)
                for record, tags in week_done.changes:
                    before = paper_of_record(record, path)
                    old = set(before.tags)
                    for slug in changed:
                        had, has = slug in old, slug in tags
                        if had != has:
                            change = self.retagged.setdefault(slug, Retagged())
                            change.gained += has
                            change.lost += had
                            change.keep(change.newly if has else change.dropped, before)
                            (change.gained_ids if has else change.lost_ids).append(before.arxiv_id)
                    self.index.bump(before, -1)
                    self.index.bump(before.with_tags(tuple(tags)), +1)
                if week_done.data is not None:
                    write_atomic(path, week_done.data)
                    touched += len(week_done.changes)
        for slug in [s for s in self.index.counts if s != ALL and s not in order]:
            # Topics that no longer exist: their counts are all zero by now.
            self.index.counts.pop(slug, None)
            self.index.days.pop(slug, None)
        for change in self.retagged.values():
            change.trim()
        self._write_index()
        with contextlib.suppress(OSError):
            self._dirty.unlink()
        return touched

    def _weeks_of(self, papers: AbstractSet[str]) -> dict[str, set[str]] | None:
        """Week -> the ids of ``papers`` stored in it; None when the id map cannot
        say where each one is (a damaged or missing shard: a whole retag then). A
        teach pins stored papers only, so one the map lacks is the map's fault: read
        as not stored, a paper kept its tags for good under the new fingerprints."""
        found: dict[str, set[str]] = {}
        shards = IdMap(self.store)
        try:
            for pid in papers:
                week = shards.get(pid)
                if week is None:
                    return None
                found.setdefault(week, set()).add(pid)
        except StoreError:
            return None
        return found

    def _mark_retagging(self, slugs: set[str]) -> None:
        """Say in index.json, before any week is written, that the tags of ``slugs``
        are of no catalog until the retag ends. Cut short, a retag left some weeks
        tagged anew and the index with the old fingerprints: a catalog back at the old
        ones (``topics teach --forget`` after a killed teach) then retagged nothing,
        and half the store kept the taught model's tags. Now any catalog retags them.
        Each is marked with a fingerprint no catalog has, not dropped: a topic being
        removed, dropped, was then in neither the index nor the catalog, so "not
        changed", and the papers kept its tag for good after a killed `topics remove`.
        """
        import dataclasses

        kept = {**self.index.fingerprints, **dict.fromkeys(slugs, "")}
        marked = dataclasses.replace(self.index, fingerprints=kept)
        _write_index_file(self.store, marked)
        if self.text_live:
            self.text.mark_synced(marked.generation)  # only the fingerprints changed

    def _vector_job(
        self, subset: Catalog, changed: set[str], order: dict[str, int]
    ) -> _VectorRetagJob | None:
        """A retag from kept feature vectors, when its topics decide from features alone
        and the store keeps the vocabulary (the first refit on this store wrote it)."""
        from papertrack import paths
        from papertrack.vectors import LABELLED, VectorTagger, read_labelled, vocabulary_key

        folder = self.store.vectors_dir
        # The file first: without it (no refit on this store yet) there is nothing to
        # read, and asking whether the topics suit builds their models' scoring table.
        if not (folder / LABELLED).is_file() or not VectorTagger.suits(subset):
            return None
        try:
            key = vocabulary_key(paths.labels_file(), paths.default_topics_file())
        except OSError:
            return None
        found = read_labelled(folder / LABELLED, key)
        if found is None:
            return None
        tagger = VectorTagger(subset, found[0], folder, None)
        if self.text_live:
            # A topic's own query (made with --like and --query) is matched only on the
            # papers the index says may match it: 35 µs a paper, 2.9 s at 83,510.
            from papertrack.fulltext import fts_query

            for slug, topic in tagger.own_queries.items():
                query = fts_query(topic.membership)
                within = None if query is None else self._text_candidates(query)
                if within is not None:
                    tagger.query_within[slug] = within
        # Features no labelled paper has (from the user's examples): only papers whose
        # words may make one, and whose kept vectors leave a decision open with them,
        # are read from their text.
        tagger.bound_outside(self._text_candidates if self.text_live else None)
        return _VectorRetagJob(tagger, changed, order)

    def _text_candidates(self, query: str) -> dict[str, set[str]] | None:
        """Week -> ids of the papers the FTS5 ``query`` may match; None when the search
        index turns out damaged. This writer then leaves it alone (unmarked: the next
        command builds it again) and reads every paper, as without one."""
        from papertrack.fulltext import IndexDamaged

        if not self.text_live:
            return None
        try:
            return self.text.candidates(query)
        except IndexDamaged:
            self.text_live = False
            return None

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
            within = self._text_candidates(query)
            if within is None:
                return None
            for week, ids in within.items():
                found.setdefault(week, set()).update(ids)
        return found

    def _retag_cut_short(self, lost_index: bool) -> bool:
        """Whether the write cut short was a retag (the ``.dirty`` marker holds
        :data:`RETAGGING`; ``b"1"`` is a batch of papers), with index.json whole."""
        try:
            if lost_index or self._dirty.read_bytes() != RETAGGING:
                return False
            return not self.store.index_outdated()
        except (OSError, StoreError):
            return False  # no marker; or a damaged index, which a rebuild makes anew

    def recount(self) -> None:
        """Count the index's tags again from the week files after a retag cut short.

        A retag writes each week file whole and changes nothing but tags: the papers,
        their weeks, the id map and the full-text index (words, not tags) are as they
        were, and only the counts may be off. A whole :meth:`rebuild` made the next
        command after a Ctrl-C'd teach take 17 s on the 83,510-paper store, 12 of them
        building the full-text index again, where its retag took 3.
        """
        kept = self.store.index()
        synced = self.text.synced_with(kept.generation)
        index = Index()
        for week in self.store.weeks():
            for paper in self.store.read_partition(week):
                index.bump(paper, +1)
        index.fingerprints, index.topics_read_at = kept.fingerprints, kept.topics_read_at
        self.index = index
        _write_index_file(self.store, index)
        if synced:
            self.text.mark_synced(index.generation)  # only the tags' counts changed
        with contextlib.suppress(OSError):
            self._dirty.unlink()

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

        weeks = self.store.weeks(check=False)
        for week in weeks:
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
        if not self.accept_losses:
            self._refuse_missing_papers(set(weeks), best)
        parts = _Partitions(self.store)
        for week, pid in duplicates:
            parts.remove(week, pid)
        parts.flush()

        shard_maps: dict[str, dict[str, str]] = defaultdict(dict)
        index = Index()
        for pid, (week, paper) in best.items():
            shard_maps[id_shard(pid)][pid] = week
            index.bump(paper, +1)
        on_disk = {p.stem for p in self.store.shard_files()}
        for shard in on_disk - set(shard_maps):
            self.store.shard_path(shard).unlink()
        for shard, mapping in shard_maps.items():
            write_atomic(self.store.shard_path(shard), dumps_json({"ids": {"1": mapping}}))
        try:
            kept = self.store.index()
            index.fingerprints, index.topics_read_at = kept.fingerprints, kept.topics_read_at
        except (StoreError, LookupError, TypeError, AttributeError, ValueError):
            index.fingerprints = {}  # a damaged index only costs a full retag
        self.index = index
        _write_index_file(self.store, self.index)
        with contextlib.suppress(OSError):
            self._dirty.unlink()

    def _refuse_missing_papers(self, on_disk: AbstractSet[str], found: Mapping[str, Any]) -> None:
        """Refuse a rebuild that would forget papers: those the id map places in a week
        file that is gone, which no other week file holds. With a write cut short
        (.dirty), readers let a missing week pass for the rebuild to set right, and
        the rebuild made a new id map and index without its papers: 304 papers went
        with no word, and doctor then found nothing. Papers an interrupted repair
        already recorded as lost are let go (the next doctor reports them)."""
        from papertrack.salvage import pending_losses

        placed = self.store.ids_placed_outside(on_disk)
        gone = {w: [p for p in ids if p not in found] for w, ids in placed.items()}
        gone = {w: ids for w, ids in gone.items() if ids}
        if not gone:
            return
        recorded = pending_losses(self.store)[1]
        gone = {w: ids for w, ids in gone.items() if not set(ids) <= recorded}
        if not gone:
            return
        count = sum(len(ids) for ids in gone.values())
        raise self.store.missing_weeks_error(
            sorted(gone),
            f", and the id map places {counted(count, 'paper')} there that no other week "
            "file holds",
            named=True,
        )


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
                yield pid, week, index_row(*record_fields(doc))

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

    def add(
        self,
        pid: str,
        week: str,
        fields: tuple[str, str, list[str], list[str]],
        row: tuple[str, str, str, str] | None = None,
    ) -> None:
        """Put the paper's index row (``row`` when a worker made it from ``fields``)."""
        if row is None:
            from papertrack.fulltext import index_row

            row = index_row(*fields)
        self.rows.append((pid, week, row))

    def start(self, text: TextIndex) -> None:
        self.text = text

        def work() -> None:
            try:
                with text.writing():
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
            # After the rows are in: a join cut short by Ctrl-C marks the thread done
            # while it still runs (CPython 3.11), and a rollback under its executemany
            # left the rest of its rows committed one by one.
            with self.text.writing():
                self.text.rollback()


class _Shards(IdMap):
    """The id -> week map, loaded shard by shard as ids need it, and written back."""

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self.changed: set[str] = set()

    def set(self, arxiv_id: str, week: str) -> None:
        shard = id_shard(arxiv_id)
        mapping = self.shard(shard)
        if mapping.get(arxiv_id) != week:
            mapping[arxiv_id] = week
            self.changed.add(shard)

    def flush(self) -> None:
        for shard in sorted(self.changed):
            write_atomic(self.store.shard_path(shard), dumps_json({"ids": {"1": self.maps[shard]}}))
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
        return [paper_of_record(doc, path) for doc in self.docs[week].values()]

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
        return paper_of_record(doc, self.store.partition_path(week)) if doc is not None else None

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
