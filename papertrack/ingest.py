"""Read sources (files, URLs, stdin), parse them and write their papers to the store.

Never prints: progress goes to an optional callback and the result is an
:class:`IngestReport`.
"""

from __future__ import annotations

import gzip
import io
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO

from papertrack import __version__
from papertrack.errors import FeedError
from papertrack.models import IngestReport, Paper, SourceReport
from papertrack.store import StoreWriter

#: Papers written per store transaction when streaming a snapshot: large enough that
#: each touched week file is rewritten rarely, small enough to keep memory flat.
BATCH_SIZE = 5000
#: At most this many broken-line numbers are named in a report.
MAX_LINES_NAMED = 10
USER_AGENT = f"papertrack/{__version__} (arXiv paper tracker; https://pypi.org/project/papertrack/)"

Progress = Callable[[SourceReport], None]


def _is_url(source: str) -> bool:
    return source.startswith(("http://", "https://"))


def _fetch(url: str, timeout: float) -> bytes:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            data: bytes = response.read()
            return data
    except urllib.error.HTTPError as exc:
        # The arXiv API sends its error feed with HTTP 400: parse it for the real message.
        body = exc.read()
        if body.lstrip().startswith(b"<"):
            return body
        raise FeedError(f"{url} answered HTTP {exc.code} {exc.reason}. Try again later") from exc
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise FeedError(
            f"could not fetch {url} ({reason}). Check the URL and your connection"
        ) from exc


def open_source(source: str, stdin: IO[bytes] | None = None, timeout: float = 60.0) -> IO[bytes]:
    """A binary stream for a file path (plain or .gz), an http(s) URL, or '-' for stdin."""
    if source == "-":
        if stdin is None:
            raise FeedError("'-' needs standard input. Pipe a feed into papertrack")
        return stdin
    if _is_url(source):
        return io.BytesIO(_fetch(source, timeout))
    path = Path(source)
    try:
        handle: IO[bytes] = open(path, "rb")  # noqa: SIM115 - closed by the caller
    except FileNotFoundError:
        raise FeedError(f"no such file: {source}. Check the path") from None
    except IsADirectoryError:
        raise FeedError(f"{source} is a directory. Name the feed files inside it") from None
    except OSError as exc:
        raise FeedError(
            f"could not open {source}: {exc.strerror or exc}. Check its permissions"
        ) from exc
    if handle.read(2) == b"\x1f\x8b":
        handle.seek(0)
        return gzip.open(handle, "rb")  # type: ignore[return-value]
    handle.seek(0)
    return handle


def _head(stream: IO[bytes]) -> bytes:
    """The first bytes of ``stream``, left in place for the parser."""
    peek = getattr(stream, "peek", None)
    try:
        if peek is not None:
            head: bytes = peek(64)
            return head
        if stream.seekable():
            head = stream.read(64)
            stream.seek(0)
            return head
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise FeedError(f"could not read the stream: {exc}. Check that the file is whole") from exc
    return b""


def ingest_source(
    source: str,
    writer: StoreWriter,
    *,
    stdin: IO[bytes] | None = None,
    batch_size: int = BATCH_SIZE,
) -> SourceReport:
    """Ingest one source; parse problems end up in ``report.error``, never as an exception."""
    from papertrack import feeds

    report = SourceReport(source=source)
    try:
        stream = open_source(source, stdin=stdin)
    except FeedError as exc:
        report.error = str(exc)
        return report
    try:
        if feeds.looks_like_jsonl(_head(stream)):
            report.kind = "kaggle"
            _ingest_jsonl(stream, source, writer, report, batch_size)
        else:
            data = stream.read()
            parsed = feeds.parse_feed(data, source)
            report.kind = parsed.kind
            report.skipped = parsed.skipped
            report.warnings.extend(parsed.warnings)
            _write(writer, parsed.papers, report)
            if parsed.error:
                report.error = parsed.error
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        report.error = f"could not read {source}: {exc}. Check that the file is whole"
    except FeedError as exc:
        report.error = str(exc)
    finally:
        if stream is not stdin:
            stream.close()
    return report


def _write(writer: StoreWriter, papers: list[Paper], report: SourceReport) -> None:
    result = writer.upsert(papers)
    report.papers += len(papers)
    report.new += result.new
    report.updated += result.updated
    report.unchanged += result.unchanged


def _lines(stream: IO[bytes]) -> Iterator[tuple[int, bytes]]:
    for lineno, line in enumerate(stream, start=1):
        if line.strip():
            yield lineno, line


def _ingest_jsonl(
    stream: IO[bytes], source: str, writer: StoreWriter, report: SourceReport, batch_size: int
) -> None:
    from papertrack import feeds

    broken: list[int] = []
    batch: list[Paper] = []
    last_line = 0
    try:
        for lineno, line in _lines(stream):
            last_line = lineno
            try:
                batch.append(feeds.parse_jsonl_line(line, source, lineno))
            except FeedError:
                broken.append(lineno)
                continue
            if len(batch) >= batch_size:
                _write(writer, batch, report)
                batch = []
    finally:
        # A read error (a .gz cut short) ends the loop: the lines read before it were
        # whole, so they are kept before the error is reported.
        if batch:
            _write(writer, batch, report)
    if broken:
        report.skipped += len(broken)
        named = ", ".join(map(str, broken[:MAX_LINES_NAMED]))
        more = f" and {len(broken) - MAX_LINES_NAMED} more" if len(broken) > MAX_LINES_NAMED else ""
        cut = " (the last line looks cut off)" if broken[-1] == last_line else ""
        report.error = (
            f"{source}: skipped {len(broken)} broken line{'s' if len(broken) != 1 else ''} "
            f"(line {named}{more}){cut}; kept {report.papers} papers. "
            "Download the file again if it was cut short"
        )


def ingest(
    sources: Iterable[str],
    writer: StoreWriter,
    *,
    stdin: IO[bytes] | None = None,
    progress: Progress | None = None,
) -> IngestReport:
    """Ingest every source in turn; a failed source does not stop the others."""
    report = IngestReport()
    for source in sources:
        item = ingest_source(source, writer, stdin=stdin)
        report.sources.append(item)
        if progress is not None:
            progress(item)
    return report
