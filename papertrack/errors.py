"""Errors papertrack raises for people to read.

Every message is written as ``<what happened>. <how to fix it>`` so that the CLI
can print it after ``Error: `` unchanged.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from papertrack.models import IngestReport


class PapertrackError(Exception):
    """Base class of every error papertrack reports without a traceback."""

    #: Exit code the CLI uses: 1 for runtime errors, 2 for bad usage.
    exit_code = 1
    #: Warnings of the work done before the error, said before it (a fetch's pages
    #: stored before the one that failed).
    warnings: tuple[str, ...] = ()


class UsageError(PapertrackError):
    """The user asked for something malformed (a date, a query, an option)."""

    exit_code = 2


class FeedError(PapertrackError):
    """A feed could not be read or parsed."""


class FeedTooLargeError(FeedError):
    """A feed larger than papertrack reads whole: asking again gives the same."""


class StoreError(PapertrackError):
    """The store could not be read, written or locked."""


class SourcesFailed(FeedError):
    """Some sources of an ingest could not be read; the papers of the others were
    stored. ``report`` says what happened to each source."""

    def __init__(self, message: str, report: IngestReport) -> None:
        super().__init__(message)
        self.report = report


class UnknownTopicError(UsageError):
    """No topic has the given name or slug."""


class TopicsFileError(UsageError):
    """The user's topics.toml cannot be read at all (not TOML, not UTF-8, not a file),
    as opposed to one malformed topic in it, which is skipped with a warning."""


class QuerySyntaxError(UsageError):
    """A topic query does not parse; ``column`` is 1-based."""

    def __init__(self, message: str, column: int) -> None:
        super().__init__(message)
        self.column = column

    def __reduce__(self) -> tuple[type[QuerySyntaxError], tuple[str, int]]:
        # As raised in a worker process, it is pickled back to the parent: without
        # this its two arguments were not, and the pool broke on it.
        return type(self), (str(self), self.column)


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, a cron daemon or a service manager stopping papertrack), or
    SIGHUP (the terminal or the ssh session closed); ``signum`` says which.

    Raised where the command is, like Ctrl-C's KeyboardInterrupt, so every clean-up
    that runs on Ctrl-C runs on it too: worker pools are stopped, partly written
    files removed, the store left as after an interruption. Unhandled, Python died
    on the signal at once and left its worker processes' semaphores to a warning.
    """

    def __init__(self, signum: int = 15) -> None:
        super().__init__()
        self.signum = signum

    @property
    def name(self) -> str:
        """The signal's name: SIGTERM, SIGHUP."""
        import signal

        return signal.Signals(self.signum).name


@contextlib.contextmanager
def stops_held() -> Iterator[None]:
    """Hold Ctrl-C, SIGTERM and SIGHUP until the block is done, then let the first
    one that came act as it would have.

    For a store's write of one batch (under a second): stopped inside it, the
    write was undone or cut short and left the ``.dirty`` marker, so that after a
    clean "Interrupted. Everything written before the interruption is kept."
    ``doctor`` reported damage. A signal a command ignores stays ignored, and a
    thread other than the main one (which cannot set handlers) holds nothing.
    """
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list[int] = []
    before = {}
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        handler = signal.getsignal(number)
        if handler is not None and handler is not signal.SIG_IGN:
            before[number] = handler
            signal.signal(number, lambda signum, _frame: came.append(signum))
    try:
        yield
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)
    if came:
        signal.raise_signal(came[0])


def stop_status(stop: KeyboardInterrupt) -> int:
    """The exit status of a command stopped by a signal: 128 + its number, as shells say."""
    return 128 + stop.signum if isinstance(stop, Terminated) else 130


class JsonArrayError(ValueError):
    """A JSON array (``export -f json``) that breaks off or is malformed; says where.

    Raised while the array streams, like a read error, so the papers before the
    break are kept.
    """
