"""papertrack's log: one line a message, stamped and named by what wrote it.

The commands write what they say there (a cron job's summaries and errors can be
read later), and so does the Python API when it retags the store. Writing it never
fails what is logged: the callers decide what to say when it cannot be written.
"""

from __future__ import annotations

import os
from pathlib import Path

from papertrack import paths
from papertrack.text import visible

#: Past this size papertrack's own log is moved to ``papertrack.log.1`` (the one
#: before it dropped), so that years of cron keep at most twice this.
LOG_MAX_BYTES = 1 << 20


def log_path(named: str | None) -> Path | None:
    """The log: ``named`` (--log-file or PAPERTRACK_LOG_FILE), else papertrack.log in
    the data home; None while that home does not exist, so that a read-only command
    on a fresh machine creates nothing, or when its path cannot be read."""
    from papertrack.errors import StoreError

    try:
        if named:
            return Path(named).expanduser()
        home = paths.home()
    except (RuntimeError, StoreError):
        return None  # a ~user with no home: the error that says so is not logged
    if not home.is_dir():
        return None
    return home / paths.LOG_FILE


def write(path: Path, message: str, writer: str, *, rotate: bool) -> None:
    """Append ``message`` to the log at ``path``, each line stamped (UTC) and named
    by ``writer`` ("[latest]", "[api]"); ``rotate``: papertrack's own log, moved aside
    past :data:`LOG_MAX_BYTES` (a log the user named is the user's to rotate).

    Raises:
        OSError: the log could not be written.
    """
    from datetime import UTC, datetime

    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    writer = visible(writer)
    message = visible(message, keep_lines=True)
    # Split at "\n" alone: splitlines also breaks at characters visible() keeps.
    lines = "".join(f"{stamp} [{writer}] {line}\n" for line in message.rstrip("\n").split("\n"))
    if rotate:
        _rotate(path)
    # Not blocking: a --log-file that is a pipe nobody reads (mkfifo) hung the
    # command for good, its SIGTERM too, which it went on to log.
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o666)
    with open(fd, "a", encoding="utf-8") as handle:
        handle.write(lines)


def _rotate(path: Path) -> None:
    """Move the log aside when it has grown past :data:`LOG_MAX_BYTES`."""
    try:
        if os.stat(path).st_size > LOG_MAX_BYTES:
            os.replace(path, paths.rotated(path))
    except FileNotFoundError:
        pass
