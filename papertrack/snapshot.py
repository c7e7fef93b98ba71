"""Bulk ingest of JSON-lines snapshots: read line by line, prepared in workers, resumable.

A JSON-lines snapshot (Kaggle's arxiv-metadata-oai-snapshot.json, 2.8M lines,
~4 GB) is read line by line and never held whole. Lines travel in chunks to
worker processes, which parse, filter and tag them into stored records; this
process only writes batches, so the two cores of a laptop both work. After
every batch a checkpoint (byte offset and line number) is saved in the store,
and the next ingest of the same unchanged file starts from there.

:mod:`papertrack.ingest` decides which sources are snapshots, and holds the
sizes (``BATCH_SIZE``, ``CHUNK_LINES``, ``PARALLEL_AFTER``) it runs them with.
"""

from __future__ import annotations

import gc
import gzip
import hashlib
import multiprocessing
import os
import re
import zlib
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from http.client import HTTPException
from pathlib import Path
from stat import S_ISREG
from typing import IO, TYPE_CHECKING, Any

import orjson

from papertrack.errors import FeedError, JsonArrayError
from papertrack.files import StateFile
from papertrack.models import SourceReport, UpsertResult, category_test
from papertrack.store import Store
from papertrack.text import counted

if TYPE_CHECKING:
    from papertrack.ingest import IngestOptions
    from papertrack.learn import Words
    from papertrack.topics import Catalog
    from papertrack.writer import StoreWriter

__all__ = ["MAX_LINE_BYTES", "MAX_LINES_NAMED", "count_upsert", "read_lines"]

#: At most this many broken-line numbers are named in a report.
MAX_LINES_NAMED = 10


def count_upsert(result: UpsertResult, papers: int, report: SourceReport) -> None:
    """Add a store write's counts to ``report``."""
    report.papers += papers
    report.new += result.new
    report.updated += result.updated
    report.unchanged += result.unchanged


# HTTPException: a connection that ended mid-body (IncompleteRead) is no OSError.
# JsonArrayError: an export -f json that breaks off or is malformed.
_READ_ERRORS = (OSError, EOFError, zlib.error, HTTPException, JsonArrayError)
# The categories field of a snapshot line, read without parsing the line, so that
# --category skips the papers it rejects for a fraction of their cost.
_CATEGORIES_RE = re.compile(rb'"categories"\s*:\s*"([^"\\]*)"')


#: The longest snapshot line accepted. A real record is a few KB; the longest, a
#: paper with thousands of authors, well under 1 MiB. A longer line is a broken
#: line, skipped without ever being held whole in memory.
MAX_LINE_BYTES = 4 * 1024 * 1024
#: Bytes read at a time from a snapshot.
_BLOCK = 1024 * 1024
# The first byte of a line's content: what comes before it is blank lines.
_CONTENT_RE = re.compile(rb"[^\s]")


def read_lines(
    stream: IO[bytes], line: int = 1, offset: int = 0, limit: int = MAX_LINE_BYTES
) -> Iterator[tuple[int, int, bytes | None]]:
    """(line number, offset after the line, the line) for each non-blank line of ``stream``.

    The line is None when it is longer than ``limit`` bytes: its rest is read and
    dropped, so memory stays bounded whatever the input. Runs of blank lines are
    skipped a block at a time (a gzip of gigabytes of newlines reads at the speed
    of gzip), though they still count in the line numbers. The last line need not
    end with a newline.
    """
    carry: list[bytes] = []  # the start of a line that continues in the next block
    carried = 0
    too_long = False
    # read1: what has arrived, in one read underneath. A .gz cut short then gives its
    # last whole data before the error, where read() would drop it with the error.
    read = getattr(stream, "read1", stream.read)
    while True:
        block = read(_BLOCK)
        if not block:
            break
        start, size = 0, len(block)
        while start < size:
            if not carry and not too_long:
                found = _CONTENT_RE.search(block, start)
                if found is None:  # the rest of the block is blank
                    line += block.count(b"\n", start)
                    offset += size - start
                    break
                begin = block.rfind(b"\n", start, found.start()) + 1
                if begin > start:
                    line += block.count(b"\n", start, begin)
                    offset += begin - start
                    start = begin
            end = block.find(b"\n", start)
            if end < 0:
                piece = block[start:]
                offset += len(piece)
                if not too_long:
                    carried += len(piece)
                    if carried > limit:
                        too_long, carry, carried = True, [], 0
                    else:
                        carry.append(piece)
                break
            piece = block[start : end + 1]
            offset += len(piece)
            start = end + 1
            if too_long:
                too_long = False
                yield line, offset, None
            elif carry:
                carry.append(piece)
                whole = b"".join(carry)
                carry, carried = [], 0
                if len(whole) > limit + 1:
                    yield line, offset, None
                elif whole.strip():
                    yield line, offset, whole
            elif len(piece) > limit + 1:
                yield line, offset, None
            elif piece.strip():
                yield line, offset, piece
            line += 1
    if too_long:
        yield line, offset, None
    elif carry:
        whole = b"".join(carry)
        if whole.strip():
            yield line, offset, whole


@dataclass
class _Chunk:
    #: Line numbers of ``lines`` (blank lines are not sent).
    numbers: list[int]
    lines: list[bytes]
    #: Lines longer than MAX_LINE_BYTES: broken, never sent.
    too_long: list[int]
    end_line: int
    end_offset: int


@dataclass
class _Prepared:
    records: list[dict[str, Any]] = field(default_factory=list)
    #: Each record's full-text index row, made here: in the writing process, where
    #: it was made before, it was 40% of that process's time, and a bulk import
    #: waited on it while the workers idled.
    text_rows: list[tuple[str, str, str, str]] = field(default_factory=list)
    broken: list[int] = field(default_factory=list)
    filtered: int = 0
    #: Dates the one date rule dropped (their papers are kept).
    dates_dropped: int = 0
    last_line: int = 0
    #: Whether that last line lacks its newline: the end of a cut download.
    last_unterminated: bool = False


class _Preparer:
    """Parses, filters and tags chunks of lines; lives in a worker or in this process."""

    def __init__(self, catalog: Catalog, categories: tuple[str, ...], source: str) -> None:
        self.catalog = catalog
        self.keep = category_test(categories)
        self.source = source

    def __call__(self, numbers: list[int], lines: list[bytes]) -> _Prepared:
        from papertrack import feeds
        from papertrack.feeds.common import DateRule
        from papertrack.fulltext import index_row
        from papertrack.store import record_fields

        out = _Prepared()
        dates = DateRule.at(None)
        keep = self.keep
        parsed: list[tuple[int, Any]] = []
        for lineno, line in zip(numbers, lines, strict=True):
            out.last_line = lineno
            out.last_unterminated = not line.endswith(b"\n")
            if keep is not None:
                found = _CATEGORIES_RE.search(line)
                if found is not None and not keep(found.group(1).decode("latin-1").split()):
                    out.filtered += 1
                    continue
            try:
                paper = feeds.parse_jsonl_line(line, self.source, lineno, dates)
            except FeedError:
                out.broken.append(lineno)
                continue
            if keep is not None and not keep(paper.categories):
                out.filtered += 1
                continue
            parsed.append((lineno, paper))
        # Tagged together: the models score the whole chunk in one pass. The words
        # tagging splits title and abstract into make the index rows too.
        words: list[Words] = []
        tags = self.catalog.tag_many(
            [(p.title, p.abstract, p.authors, p.categories, p.arxiv_id) for _, p in parsed],
            words,
        )
        for n, ((lineno, paper), tagged) in enumerate(zip(parsed, tags, strict=True)):
            record = paper.to_record()
            record["tags"] = list(tagged)
            try:
                # What the store cannot write is a broken line here, not a lost batch there.
                orjson.dumps(record)
            except TypeError:
                out.broken.append(lineno)
                continue
            out.records.append(record)
            out.text_rows.append(index_row(*record_fields(record), words[n] if words else None))
        out.broken.sort()
        out.dates_dropped = dates.dropped
        return out


_WORKER: _Preparer | None = None


def _rare_gc() -> None:
    """Collect garbage cycles rarely while a snapshot streams.

    Records, papers and their lists hold no cycles, but every container made
    counts towards a collection, and each collection walks the week files held
    for writing: 15% of the writing process's time at the default thresholds
    (measured here). Cycles, if any, are still collected, only less often.
    """
    gc.set_threshold(200_000, 20, 20)


def _start_worker(topics: list[tuple[Any, ...]], categories: tuple[str, ...], source: str) -> None:
    global _WORKER
    from papertrack.parallel import worker_signals
    from papertrack.topics import Catalog, Topic

    worker_signals()
    _rare_gc()
    _exit_with_parent()
    catalog = Catalog(Topic(*spec) for spec in topics)
    _WORKER = _Preparer(catalog, categories, source)


def _exit_with_parent() -> None:
    """End this worker when the process that started it is gone.

    A killed ingest (SIGKILL, out of memory) cannot stop its pool, and its
    workers would wait for work forever: every worker holds the writing end of
    the shared task queue, so none of them ever reads its end. The parent's
    sentinel closes when the parent exits, whatever killed it.
    """
    import threading

    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        parent.join()
        os._exit(1)

    threading.Thread(target=watch, name="papertrack-parent-watch", daemon=True).start()


#: What the resource tracker of a killed ingest would warn about (see _quiet_tracker).
_TRACKER_WARNING = "ignore::UserWarning:multiprocessing.resource_tracker"


def _quiet_tracker() -> None:
    """Start multiprocessing's resource tracker with its leak warning off.

    Spawned workers share named semaphores (the pool's queues), which the tracker,
    a process of its own, unlinks when the ingest that made them is gone. After a
    ``kill -9`` of ingest it did so and printed a Python ``UserWarning`` ("There
    appear to be 5 leaked semaphore objects to clean up at shutdown") on the
    command's stderr: a traceback-like line in cron mail about nothing the user
    can act on. The tracker reads warning filters from its environment when it
    starts, so it is started here, once, with that one warning ignored.
    """
    from multiprocessing import resource_tracker

    before = os.environ.get("PYTHONWARNINGS")
    os.environ["PYTHONWARNINGS"] = f"{before},{_TRACKER_WARNING}" if before else _TRACKER_WARNING
    try:
        resource_tracker.ensure_running()
    finally:
        if before is None:
            del os.environ["PYTHONWARNINGS"]
        else:
            os.environ["PYTHONWARNINGS"] = before


def _work(numbers: list[int], lines: list[bytes]) -> _Prepared:
    assert _WORKER is not None, "worker not started"
    return _WORKER(numbers, lines)


class _Done:
    """The result of a chunk prepared in this process, shaped like a Future."""

    def __init__(self, value: _Prepared) -> None:
        self.value = value

    def result(self) -> _Prepared:
        return self.value

    def done(self) -> bool:
        return True


class _Snapshot:
    """One JSON-lines source being ingested (see the comment above)."""

    def __init__(
        self,
        stream: IO[bytes],
        source: str,
        writer: StoreWriter,
        report: SourceReport,
        options: IngestOptions,
        *,
        batch_size: int,
        chunk_lines: int,
        parallel_after: int,
    ) -> None:
        #: Papers per store write; lines per chunk; lines read before workers start.
        self.batch_size = batch_size
        self.chunk_lines = chunk_lines
        self.parallel_after = parallel_after
        self.stream = stream
        self.source = source
        self.writer = writer
        self.report = report
        self.options = options
        from papertrack.feeds import ArrayLines

        array = isinstance(stream, ArrayLines)
        raw: Any = stream.raw if isinstance(stream, ArrayLines) else stream
        compressed = isinstance(raw, gzip.GzipFile)
        if compressed:
            raw = raw.fileobj
        self.raw: IO[bytes] = raw
        self.total = _size(self.raw)
        # The items of a JSON array have no offset to resume at: it is read whole again.
        self.checkpoint = (
            None
            if array
            else _Checkpoint.find(
                writer.store, source, self.raw, options.categories, compressed=compressed
            )
        )
        self.unit = ("item", "items") if array else ("line", "lines")
        self.broken: list[int] = []
        #: The full-text index rows of the records of the batch being gathered.
        self.text_rows: list[tuple[str, str, str, str]] = []
        self.dates_dropped = 0
        self.too_long = 0
        self.last_line = 0
        self.last_unterminated = False
        self.pool: ProcessPoolExecutor | None = None
        self.read_error: BaseException | None = None

    def run(self) -> None:
        start_line, offset = 1, 0
        if self.checkpoint is not None:
            if self.options.resume and self.checkpoint.load():
                start_line, offset = self.checkpoint.line + 1, self.checkpoint.offset
                self.stream.seek(offset)
                self.report.resumed_at = start_line
                for name, value in self.checkpoint.counts.items():
                    setattr(self.report, name, getattr(self.report, name) + value)
                self.broken = list(self.checkpoint.broken)
            else:
                self.checkpoint.clear()
        thresholds = gc.get_threshold()
        _rare_gc()
        try:
            self._stream(start_line, offset)
        finally:
            gc.set_threshold(*thresholds)
            if self.pool is not None:
                self.pool.shutdown(wait=True, cancel_futures=True)
        if self.dates_dropped:
            # The same warning, in the same words, as every other format gives.
            from papertrack.feeds.common import DateRule

            rule = DateRule.at(None)
            rule.dropped = self.dates_dropped
            warning = rule.warning(self.source)
            if warning:
                self.report.warnings.append(warning)
        broken = self._broken_clause()
        if self.read_error is not None:
            # The checkpoint stays: the same file again resumes at once (and fails the same way).
            self.report.skipped += len(self.broken)
            self.report.error = (
                f"could not read {self.source} to its end ({self.read_error}); kept the "
                f"{counted(self.report.papers, 'paper')} before that point"
                + (f" and skipped {broken}" if broken else "")
                + ". Check that the file is whole: download it again if it was cut short"
            )
            return
        if self.checkpoint is not None:
            self.checkpoint.clear()  # the whole file is in: nothing to resume
        if broken:
            self.report.skipped += len(self.broken)
            self.report.error = (
                f"{self.source}: skipped {broken}; kept {counted(self.report.papers, 'paper')}. "
                "Download the file again if it was cut short"
            )

    def _chunks(self, line: int, offset: int) -> Iterator[_Chunk]:
        # A chunk never holds more than a batch, so batches (and checkpoints) come
        # as often as asked for.
        size = min(self.chunk_lines, self.batch_size)
        chunk = _Chunk([], [], [], line - 1, offset)
        try:
            for number, end, raw in read_lines(self.stream, line, offset):
                if raw is None:
                    chunk.too_long.append(number)
                else:
                    chunk.numbers.append(number)
                    chunk.lines.append(raw)
                chunk.end_line, chunk.end_offset = number, end
                if len(chunk.lines) + len(chunk.too_long) >= size:
                    yield chunk
                    chunk = _Chunk([], [], [], number, end)
        except _READ_ERRORS as exc:
            # A .gz cut short: the lines read before the error were whole.
            self.read_error = exc
        if chunk.lines or chunk.too_long:
            yield chunk

    def _stream(self, line: int, offset: int) -> None:
        """Read, prepare and write every chunk, in order.

        With ``jobs`` > 1, that many worker processes prepare the chunks and this
        one only reads lines and writes batches (about a fifth of the work). Up to
        four chunks per worker are queued, so that the workers keep going while a
        batch is written.
        """
        local = _Preparer(self.writer.catalog, self.options.categories, self.source)
        jobs = self.options.jobs
        pending: deque[tuple[_Chunk, _Done | Future[_Prepared]]] = deque()
        batch: list[dict[str, Any]] = []
        taken: _Chunk | None = None  # the last chunk whose records are in ``batch``
        size = self.batch_size
        read = 0
        try:
            for chunk in self._chunks(line, offset):
                read += len(chunk.lines)
                if self.pool is None and jobs > 1 and read > self.parallel_after:
                    self.pool = self._pool(jobs)
                work: _Done | Future[_Prepared]
                if self.pool is not None:
                    work = self.pool.submit(_work, chunk.numbers, chunk.lines)
                else:
                    work = _Done(local(chunk.numbers, chunk.lines))
                pending.append((chunk, work))
                # Write what is ready, in order; wait only when the queue is full.
                while pending and (pending[0][1].done() or len(pending) > 4 * jobs):
                    taken = self._take(pending.popleft(), batch)
                    if len(batch) >= size:
                        self._flush(batch, taken)
            while pending:
                taken = self._take(pending.popleft(), batch)
                if len(batch) >= size:
                    self._flush(batch, taken)
        except BrokenProcessPool:
            raise FeedError(
                f"a worker process reading {self.source} stopped unexpectedly "
                "(out of memory?). The papers written so far are kept; run the same "
                "command again to resume, with --jobs 1 to use a single process"
            ) from None
        if batch and taken is not None:
            self._flush(batch, taken)

    def _pool(self, workers: int) -> ProcessPoolExecutor:
        topics = [
            (
                t.name,
                t.slug,
                t.query,
                t.description,
                t.categories,
                t.source,
                t.model_file,
                t.decide_rule,
                t.implies,
            )
            for t in self.writer.catalog.topics
        ]
        # spawn, not fork: a forked worker would inherit the store lock and hold it
        # after a killed parent; spawned ones hold nothing of the parent's.
        _quiet_tracker()
        return ProcessPoolExecutor(
            max_workers=workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker,
            initargs=(topics, self.options.categories, self.source),
        )

    def _take(
        self, item: tuple[_Chunk, _Done | Future[_Prepared]], batch: list[dict[str, Any]]
    ) -> _Chunk:
        """Add a prepared chunk's records to ``batch``; returns the chunk."""
        chunk, future = item
        prepared = future.result()
        batch.extend(prepared.records)
        self.text_rows.extend(prepared.text_rows)
        self.broken.extend(sorted(prepared.broken + chunk.too_long))
        self.too_long += len(chunk.too_long)
        self.report.filtered += prepared.filtered
        self.dates_dropped += prepared.dates_dropped
        if prepared.last_line > self.last_line:
            self.last_line = prepared.last_line
            self.last_unterminated = prepared.last_unterminated
        return chunk

    def _flush(self, batch: list[dict[str, Any]], chunk: _Chunk) -> None:
        """Write ``batch`` (emptied first: whatever happens next, it is not written twice)."""
        records = batch[:]
        batch.clear()
        rows, self.text_rows = self.text_rows, []
        # The checkpoint is written under the same hold of the lock as its batch: it
        # is in the store's folder, where a writer that takes the lock next clears
        # temp files left by killed writers.
        with self.writer.holding():
            done = self.writer.upsert_records(records, rows)
            count_upsert(done, len(records), self.report)
            if self.checkpoint is not None:
                self.checkpoint.save(chunk.end_line, chunk.end_offset, self.report, self.broken)
        if self.options.on_bytes is not None:
            self.options.on_bytes(self.source, _tell(self.raw), self.total, self.report.papers)

    def _broken_clause(self) -> str:
        """'2 broken lines (lines 3, 5)', with '(the last line looks cut off)' when it is."""
        broken = self.broken
        if not broken:
            return ""
        named = ", ".join(map(str, broken[:MAX_LINES_NAMED]))
        more = (
            f" and {len(broken) - MAX_LINES_NAMED:,} more" if len(broken) > MAX_LINES_NAMED else ""
        )
        cut = (
            " (the last line looks cut off)"
            if broken[-1] == self.last_line and self.last_unterminated
            else ""
        )
        lines = self.unit[1] if len(broken) > 1 else self.unit[0]
        long = (
            f"; {self.too_long:,} longer than {MAX_LINE_BYTES // 2**20} MiB, the limit"
            if self.too_long
            else ""
        )
        return f"{len(broken):,} broken {lines} ({lines} {named}{more}{long}){cut}"


def _size(raw: IO[bytes]) -> int | None:
    try:
        return os.fstat(raw.fileno()).st_size if raw.seekable() else None
    except (OSError, ValueError, AttributeError):
        return None


def _tell(raw: IO[bytes]) -> int:
    try:
        return raw.tell()
    except (OSError, ValueError):
        return 0


_COUNTS = ("papers", "new", "updated", "unchanged", "filtered")


@dataclass
class _Checkpoint:
    """Where an ingest of one file stopped: saved in the store after every batch.

    Kept only for a regular file, and trusted only while the file has the same
    path, size and modification time and is read with the same ``-c`` filter (a
    run that kept only cs.RO has not stored the other papers before its line);
    reading a file again from its start is always correct too (unchanged papers
    are left alone), only slower.
    """

    path: Path
    identity: dict[str, Any]
    line: int = 0
    offset: int = 0
    #: The report's counts when the checkpoint was saved (papers, new, …).
    counts: dict[str, int] = field(default_factory=dict)
    broken: tuple[int, ...] = ()

    @classmethod
    def find(
        cls,
        store: Store,
        source: str,
        raw: IO[bytes],
        categories: tuple[str, ...] = (),
        *,
        compressed: bool = False,
    ) -> _Checkpoint | None:
        try:
            stat = os.fstat(raw.fileno())
        except (OSError, ValueError, AttributeError):
            return None
        if not S_ISREG(stat.st_mode):
            return None
        real = str(Path(source).resolve())
        key = hashlib.sha1(real.encode("utf-8")).hexdigest()[:16]
        identity: dict[str, Any] = {
            "file": real,
            "size": stat.st_size,
            "mtime_ns": stat.st_mtime_ns,
            "categories": sorted(set(categories)),
        }
        if compressed:
            # The offset is then one in the decompressed text, which is longer than the file.
            identity["gzip"] = True
        return cls(store.resume_dir / f"{key}.json", identity)

    def load(self) -> bool:
        """Whether a checkpoint of this very file exists (then its position is loaded)."""
        data = StateFile(self.path).read()
        saved = data.get("identity")
        if isinstance(saved, dict) and "categories" not in saved and "categories" in self.identity:
            # Written before -c was part of it: an ingest of every category then.
            saved = {**saved, "categories": []}
        if saved != self.identity:
            return False
        try:
            self.line, self.offset = int(data["line"]), int(data["offset"])
            self.counts = {name: int(data["counts"][name]) for name in _COUNTS}
            self.broken = tuple(int(n) for n in data["broken"])
        except (KeyError, TypeError, ValueError, OverflowError):
            return False
        # An offset past the file's end (1e30 could not even be seeked to) is damage;
        # a .gz file's text may be any length, but not more than 2**62 bytes.
        end = 2**62 if self.identity.get("gzip") else int(self.identity["size"])
        return self.line > 0 and 0 < self.offset <= end

    def save(self, line: int, offset: int, report: SourceReport, broken: list[int]) -> None:
        data = {
            "identity": self.identity,
            "line": line,
            "offset": offset,
            "counts": {name: getattr(report, name) for name in _COUNTS},
            "broken": broken,
        }
        StateFile(self.path).write(data)

    def clear(self) -> None:
        StateFile(self.path).clear()
