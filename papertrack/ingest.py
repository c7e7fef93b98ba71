"""Read sources (files, URLs, stdin), parse them and write their papers to the store.

Never prints: progress goes to an optional callback and the result is an
:class:`IngestReport`.
"""

from __future__ import annotations

import gzip
import io
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from http.client import HTTPException
from pathlib import Path
from typing import IO, Any, cast

from papertrack.errors import FeedError
from papertrack.models import IngestReport, Paper, SourceReport, category_test
from papertrack.snapshot import (
    _READ_ERRORS,
    MAX_LINE_BYTES,
    MAX_LINES_NAMED,
    _Checkpoint,
    _Snapshot,
    count_upsert,
    read_lines,
)
from papertrack.text import is_web
from papertrack.writer import StoreWriter

# The snapshot machinery moved to papertrack.snapshot; these names stay importable
# from here (_Checkpoint too: tests replace its methods).
__all__ = [
    "BATCH_SIZE",
    "CHUNK_LINES",
    "MAX_LINE_BYTES",
    "MAX_LINES_NAMED",
    "PARALLEL_AFTER",
    "ByteProgress",
    "IngestOptions",
    "Progress",
    "_Checkpoint",
    "ingest",
    "ingest_source",
    "open_source",
    "read_lines",
]

#: Papers written per store transaction when streaming a snapshot: large enough that
#: each touched week file is rewritten rarely, small enough to keep memory flat.
BATCH_SIZE = 5000
#: Lines per chunk sent to a worker: big enough that shipping it costs little.
CHUNK_LINES = 500
#: Lines read in this process before worker processes are worth starting (they take
#: ~0.3 s to start): a daily feed never starts them, a snapshot at once.
PARALLEL_AFTER = 4 * CHUNK_LINES
#: Bytes of an HTTP error answer read for the arXiv API's error feed (a few hundred).
MAX_ERROR_BODY = 1024 * 1024
#: Bytes per second a download must average (after its first 30 s) not to be given up.
MIN_RATE = 1024

Progress = Callable[[SourceReport], None]
ByteProgress = Callable[[str, int, int | None, int], None]


#: The first two bytes of every gzip file, whatever its name says.
GZIP_MAGIC = b"\x1f\x8b"


def _is_url(source: str) -> bool:
    return is_web(source)


def _fetch(url: str, timeout: float) -> IO[bytes]:
    """The body of ``url`` as a stream: a snapshot is read as it arrives, never held whole."""
    from papertrack import net

    try:
        # No deadline for the whole body (a snapshot takes minutes), but a minimum
        # average speed: a server trickling a byte now and then is given up on.
        response = net.get(url, timeout=timeout, min_rate=MIN_RATE)
    except net.NetError as exc:
        raise FeedError(
            f"could not fetch {net.said_url(url)}: {exc.reason}. Check the URL"
        ) from None
    if response.status >= 400:
        # The arXiv API sends its error feed with HTTP 400: parse it for the real message.
        try:
            body = response.read_body(MAX_ERROR_BODY)
        except net.NetError:
            body = b""
        finally:
            response.close()
        if response.status == 400 and body.lstrip().startswith(b"<"):
            return io.BytesIO(body)  # maybe the API's error feed, which says what is wrong
        # A 404 is a wrong URL, a 500 (with the HTML page a proxy sends) the server's.
        late = response.status >= 500 or response.status == 429
        fix = "Try again later" if late else "Check the URL"
        from papertrack.feeds.syndication import html_title

        title = html_title(body[:4096])
        page = f' with a web page titled "{net.said(title, 80)}"' if title else ""
        raise FeedError(
            f"{net.said_url(url)} answered HTTP {response.status} {response.reason}{page}. {fix}"
        )
    return io.BufferedReader(response, buffer_size=1024 * 1024)


class _OwnedGzip(gzip.GzipFile):
    """A gzip file read from a file papertrack opened, which it closes when closed:
    ``gzip.open(handle)`` leaves ``handle`` open, and every ingest of a .gz file
    (the bundled sample's too) left a ResourceWarning in a Python API caller's output."""

    def close(self) -> None:
        inner = self.fileobj
        try:
            super().close()
        finally:
            closer = getattr(inner, "close", None)
            if closer is not None:
                closer()


def open_source(source: str, stdin: IO[bytes] | None = None, timeout: float = 60.0) -> IO[bytes]:
    """A binary stream for a file path (plain or .gz), an http(s) URL, or '-' for stdin."""
    if source == "-":
        if stdin is None:
            raise FeedError("'-' needs standard input. Pipe a feed into papertrack")
        head = _first_bytes(stdin, 6)
        if head[:2] == GZIP_MAGIC:  # `gzip -c feed.xml | papertrack ingest -`
            return gzip.GzipFile(fileobj=stdin, mode="rb")  # type: ignore[return-value]
        _refuse_packed(head, "standard input", None)
        return stdin
    if _is_url(source):
        response = _fetch(source, timeout)
        head = _first_bytes(response, 6)
        if head[:2] == GZIP_MAGIC:
            return gzip.GzipFile(fileobj=response, mode="rb")  # type: ignore[return-value]
        try:
            _refuse_packed(head, source, "")
        except FeedError:
            response.close()
            raise
        return response
    if not source.strip():  # an unset shell variable: Path("") is the current folder
        raise FeedError("an empty name is no file. Name a feed file, a URL, or - for stdin")
    path = Path(source)
    try:
        handle: IO[bytes] = open(path, "rb")  # noqa: SIM115 - closed by the caller
    except FileNotFoundError:
        raise FeedError(f"no such file: {source}. Check the path") from None
    except IsADirectoryError:
        raise FeedError(f"{source} is a directory. Name the feed files inside it") from None
    except ValueError:  # a NUL in the name: only a Python caller can pass one
        raise FeedError(f"{source!r} is not a file name. Check the path") from None
    except OSError as exc:
        raise FeedError(
            f"could not open {source}: {exc.strerror or exc}. Check its permissions"
        ) from exc
    try:
        # peek, not read and seek: a pipe (`<(cat feed.xml)`, a FIFO) cannot seek back.
        magic = handle.peek(6)[:6]  # type: ignore[attr-defined]
    except OSError as exc:  # /proc/self/mem and other files that refuse a read
        handle.close()
        raise FeedError(
            f"could not read {source}: {exc.strerror or exc}. Name a feed or snapshot file"
        ) from None
    if magic[:2] == GZIP_MAGIC:
        return _OwnedGzip(fileobj=handle, mode="rb")  # type: ignore[return-value]
    try:
        _refuse_packed(magic, source, source)
    except FeedError:
        handle.close()
        raise
    return handle


#: Packings papertrack does not read, by their first bytes: (magic, what it is, the
#: command that unpacks a file of it, the one that unpacks it in a pipe, if any).
#: Kaggle's arXiv snapshot downloads as a zip archive, and was called "not an
#: RSS/Atom feed, arXiv API page or JSON lines file".
_OTHER_PACKINGS = (
    (b"PK\x03\x04", "a zip archive", "unzip", "funzip"),
    (b"BZh", "bzip2-compressed", "bunzip2 -k", "bunzip2"),
    (b"\xfd7zXZ\x00", "xz-compressed", "unxz -k", "unxz"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed", "unzstd", "unzstd"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive", "7z x", ""),
)


def _refuse_packed(magic: bytes, source: str, path: str | None) -> None:
    """Refuse data packed in a way papertrack does not read, saying how to unpack it:
    a file (``path``), a download (``""``) or standard input (None). Piped or
    downloaded, it was "not an RSS/Atom feed", where the file got its unpack command.
    """
    for start, kind, undo, stream in _OTHER_PACKINGS:
        if not magic.startswith(start):
            continue
        if path:
            fix = f"Unpack it first ({undo} {path})"
        elif path is None and stream:
            fix = f"Unpack it in the pipe first: ... | {stream} | papertrack ingest -"
        else:
            fix = f"Download it, unpack it ({undo} FILE) and ingest the file"
        raise FeedError(f"{source} is {kind}; papertrack reads plain and gzip data. {fix}")


def _first_bytes(stream: IO[bytes], size: int) -> bytes:
    """Up to ``size`` bytes at the start of ``stream``, left in place (b"" when they
    cannot be looked at without being taken)."""
    try:
        peek = getattr(stream, "peek", None)
        if peek is not None:
            return bytes(peek(size)[:size])
        if stream.seekable():
            at = stream.tell()
            head = stream.read(size)
            stream.seek(at)
            return head
    except (OSError, ValueError):
        return b""
    return b""


#: How far past leading blank lines the format is looked for in a file.
_BLANK_LOOKAHEAD = 16 * 1024 * 1024


def _head(stream: IO[bytes]) -> tuple[bytes, IO[bytes]]:
    """The first bytes of ``stream`` past any blank ones, and the stream to read
    from the start: ``stream`` itself, or (a pipe that began with more blank lines
    than a peek sees) one that gives the blank bytes taken back first.
    """
    peek = getattr(stream, "peek", None)
    try:
        if peek is not None:
            head: bytes = peek(64)
        elif stream.seekable():
            head = stream.read(64)
            stream.seek(0)
        else:
            return b"", stream
        if not head or head.strip():
            return head, stream
        return _past_blanks(stream)
    except (OSError, EOFError, gzip.BadGzipFile, HTTPException) as exc:
        raise FeedError(f"could not read the stream: {exc}. Check that the file is whole") from exc


def _rewindable(stream: IO[bytes]) -> bool:
    """Whether ``stream`` can go back to where it was (a .gz one only when its file can)."""
    inner = getattr(stream, "fileobj", None) if isinstance(stream, gzip.GzipFile) else stream
    return inner is not None and inner.seekable()


class _Replayed(io.RawIOBase):
    """``taken`` (bytes already read from ``rest``), then the rest of ``rest``.

    Closing it leaves ``rest`` open: its opener closes it (or, for stdin, does not).
    """

    def __init__(self, taken: bytes, rest: IO[bytes]) -> None:
        self.taken = memoryview(taken)
        self.rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.taken:
            n = min(len(buffer), len(self.taken))
            buffer[:n] = self.taken[:n]
            self.taken = self.taken[n:]
            return n
        data = self.rest.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def _past_blanks(stream: IO[bytes]) -> tuple[bytes, IO[bytes]]:
    """:func:`_head` for a stream that starts with more blank bytes than a peek sees.

    They are read on to the first other byte (at most 16 MB of them); a file is
    then put back where it was, a pipe replayed from what was read.
    """
    rewind = _rewindable(stream)
    at = stream.tell() if rewind else 0
    taken: list[bytes] = []
    head = b""
    seen = 0
    while seen < _BLANK_LOOKAHEAD:
        block = stream.read(65536)
        if not block:
            break
        taken.append(block)
        seen += len(block)
        rest = block.lstrip(b" \t\r\n")
        if rest:
            more = stream.read(64)
            taken.append(more)
            head = (rest + more)[:64]
            break
    if rewind:
        stream.seek(at)
        return head, stream
    replayed = io.BufferedReader(_Replayed(b"".join(taken), stream))
    return head, cast("IO[bytes]", replayed)


@dataclass(frozen=True)
class IngestOptions:
    """How sources are read; the defaults are what ``papertrack ingest`` does."""

    #: Keep only papers with one of these categories (``cs.AI``, ``cs.*``).
    categories: tuple[str, ...] = ()
    #: Processes that parse and tag a large JSON-lines snapshot (1: all in this one).
    jobs: int = 1
    #: Continue a JSON-lines file where an interrupted ingest of it stopped.
    resume: bool = True
    #: Called with (source, bytes read, total bytes or None, papers) while a snapshot streams.
    on_bytes: ByteProgress | None = None
    #: Papers per store write; None for :data:`BATCH_SIZE`.
    batch_size: int | None = None


def ingest_source(
    source: str,
    writer: StoreWriter,
    *,
    stdin: IO[bytes] | None = None,
    options: IngestOptions | None = None,
) -> SourceReport:
    """Ingest one source; parse problems end up in ``report.error``, never as an exception."""
    from papertrack import feeds
    from papertrack.feeds.common import UTF8_BOM

    options = options or IngestOptions()
    name = source
    if _is_url(source):
        from papertrack.net import without_password

        name = without_password(source)  # as it is shown and logged
    report = SourceReport(source=name)
    try:
        opened = stream = open_source(source, stdin=stdin)
    except FeedError as exc:
        report.error = str(exc)
        return report
    try:
        head, stream = _head(opened)
        _refuse_utf16_json(head, name)
        start = head.removeprefix(UTF8_BOM).lstrip()
        lines = start.split(b"\n", 2)
        if lines[0].strip() == b"{":
            # What `jq .` prints: each of its lines read as a broken JSON line, with
            # advice to download the file again.
            # A record's first key is arxiv_id (an export's) or id (the snapshot's).
            if len(lines) > 1 and lines[1].strip().startswith((b'"arxiv_id"', b'"id"')):
                fix = f"Put each record on one line: jq -c . {name} > lines.jsonl"
            else:
                # `topic --json`, `digest --json`: a view, its papers inside it; the
                # hint for one paper led to a second error, of a "cut-off" file.
                fix = (
                    "Take the papers out of it, one a line: jq -c '.. | objects | "
                    f'select(has("arxiv_id"))\' {name} > lines.jsonl'
                )
            raise FeedError(
                f"{name} is JSON spread over many lines, not JSON lines (one record a line). {fix}"
            )
        if feeds.looks_like_jsonl(head):
            # export -f jsonl writes arxiv_id first; the snapshot's lines start with "id".
            own = start.startswith(b'{"arxiv_id"')
            report.kind = "export" if own else "kaggle"
            _Snapshot(stream, name, writer, report, options, **_sizes(options)).run()
        elif feeds.looks_like_json_array(head):
            # export -f json: read item by item as if each were a JSON line.
            report.kind = "export"
            items = cast("IO[bytes]", feeds.ArrayLines(stream, MAX_LINE_BYTES))
            _Snapshot(items, name, writer, report, options, **_sizes(options)).run()
        else:
            # One byte over the limit is enough for parse_feed to refuse the feed;
            # a bigger file (or a gzip bomb) is never read into memory whole.
            data = stream.read(feeds.MAX_FEED_BYTES + 1)
            parsed = feeds.parse_feed(data, name)
            report.kind = parsed.kind
            report.skipped = parsed.skipped
            report.skipped_ids = parsed.skipped_ids
            report.warnings.extend(parsed.warnings)
            report.notices.extend(parsed.notices)
            papers = parsed.papers
            keep = category_test(options.categories)
            if keep is not None:
                papers = [p for p in papers if keep(p.categories)]
                report.filtered += len(parsed.papers) - len(papers)
            _write(writer, papers, report)
            if parsed.error:
                report.error = parsed.error
    except _READ_ERRORS as exc:  # gzip.BadGzipFile is an OSError
        report.error = f"could not read {name}: {exc}. Check that the file is whole"
    except FeedError as exc:
        report.error = str(exc)
    finally:
        if stream is not opened:
            stream.close()  # the replay of a pipe's first bytes (it leaves the pipe open)
        if opened is not stdin:
            opened.close()
    return report


def _refuse_utf16_json(head: bytes, name: str) -> None:
    """JSON lines saved as UTF-16 (Windows PowerShell's ``>``) are refused, saying how
    to convert them: with a byte-order mark they were "not a feed", without one half
    read, the papers of broken lines lost. (XML says its own encoding.)"""
    marks = {b"\xff\xfe": "utf-16-le", b"\xfe\xff": "utf-16-be"}
    codec = marks.get(head[:2])
    if codec is not None:
        head = head[2:]
    elif len(head) >= 4 and (head[1:4:2] == b"\0\0" or head[0:3:2] == b"\0\0"):
        codec = "utf-16-le" if head[1:4:2] == b"\0\0" else "utf-16-be"
    else:
        return
    text = head[: len(head) // 2 * 2].decode(codec, "replace").lstrip()
    if text.startswith(("{", "[")):
        raise FeedError(
            f"{name} is UTF-16 text; papertrack reads JSON in UTF-8. Convert it: "
            f"iconv -f UTF-16 -t UTF-8 {name} > converted.jsonl"
        )


def _sizes(options: IngestOptions) -> dict[str, int]:
    # Read at each ingest, not at import: tests and benchmarks set these module values.
    return {
        "batch_size": options.batch_size or BATCH_SIZE,
        "chunk_lines": CHUNK_LINES,
        "parallel_after": PARALLEL_AFTER,
    }


def _write(writer: StoreWriter, papers: list[Paper], report: SourceReport) -> None:
    count_upsert(writer.upsert(papers), len(papers), report)


def ingest(
    sources: Iterable[str],
    writer: StoreWriter,
    *,
    stdin: IO[bytes] | None = None,
    progress: Progress | None = None,
    options: IngestOptions | None = None,
) -> IngestReport:
    """Ingest every source in turn; a failed source does not stop the others."""
    report = IngestReport()
    for source in sources:
        item = ingest_source(source, writer, stdin=stdin, options=options)
        report.sources.append(item)
        if progress is not None:
            progress(item)
    return report
