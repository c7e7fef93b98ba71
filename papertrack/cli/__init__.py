"""The papertrack command line: parse options, call the core, render, set the exit code.

Each module registers its commands on the one Typer app of :mod:`papertrack.cli.common`.
Heavy modules (feedparser, dateutil) are imported inside the commands that need
them, so ``papertrack latest`` starts fast from cron. For the same reason
:func:`main` imports only the module of the command being run (building every
command's options costs a cold `latest` ~25 ms); ``app`` itself, asked for by
name, has them all.
"""

from __future__ import annotations

import errno
import importlib
import io
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

__all__ = ["app", "main"]

#: Command modules in the order --help lists their commands: papers first.
MODULES = ("papers", "fetch", "momentum", "topics", "find", "ask", "digest", "site", "doctor")
#: Which module registers each command.
COMMANDS = {
    "ingest": "papers",
    "latest": "papers",
    "path": "papers",
    "stats": "papers",
    "fetch": "fetch",
    "momentum": "momentum",
    "trending": "momentum",
    "topic": "momentum",
    "topics": "topics",
    "show": "find",
    "search": "find",
    "export": "find",
    "ask": "ask",
    "follow": "digest",
    "unfollow": "digest",
    "following": "digest",
    "digest": "digest",
    "site": "site",
    "doctor": "doctor",
}
#: Options of the app itself that take a value (see cli/common.py's callback).
_VALUED = ("--db", "--log-file")


def _load(modules: Sequence[str]) -> Any:
    for name in modules:
        importlib.import_module(f"papertrack.cli.{name}")
    from papertrack.cli.common import app

    return app


def __getattr__(name: str) -> Any:
    if name == "app":
        return _load(MODULES)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def command_of(args: Sequence[str]) -> str | None:
    """The command named in ``args`` (the words after the program), skipping the app's options."""
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in _VALUED:
            skip = True
        elif not arg.startswith("-"):
            return arg
    return None


def _is_terminal(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (OSError, ValueError):
        return False


def _utf8(stream: object) -> bool:
    import codecs

    try:
        return codecs.lookup(getattr(stream, "encoding", None) or "ascii").name == "utf-8"
    except LookupError:
        return False


class _WholeWrites(io.RawIOBase):
    """A descriptor for io's buffered writer that writes every byte or raises.

    CPython's BufferedWriter hands a write larger than its buffer to the raw file
    once and returns the count that went out; the text layer above drops that count.
    On a nearly full disk a 13,829-byte digest (or a large table, an export) was cut
    at 4,096 bytes with exit 0. Here a short write is followed by the rest, so a full
    disk raises ENOSPC, which :func:`main` reports.

    ``closed_fd``: the descriptor was closed when papertrack started (``>&-``); it now
    holds /dev/null, so that no file papertrack opens takes its number, and every
    write fails as writing to a closed descriptor does.
    """

    def __init__(self, fd: int, closed_fd: bool = False) -> None:
        super().__init__()
        self._fd = fd
        self._closed_fd = closed_fd
        #: Set once a failed write was reported: what is left in the buffers is dropped,
        #: not tried again (and reported again) when Python exits.
        self.dropping = False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return not self._closed_fd and os.isatty(self._fd)

    def write(self, data: Any) -> int:
        if self.dropping:
            return len(memoryview(data).cast("B"))
        if self._closed_fd:
            raise OSError(errno.EBADF, "standard output is closed")
        view = memoryview(data).cast("B")
        size = len(view)
        while view:
            view = view[os.write(self._fd, view) :]
        return size


def _standard_output() -> None:
    """Put a standard output on fd 1 that writes whole or raises (:class:`_WholeWrites`).

    Off a terminal it writes UTF-8 whatever the locale says: standard output into a
    pipe or a file carries data (JSON, CSV, an export, a digest), and a name such as
    "Jiménez" must reach jq or a file whole, not as "Jim?nez". Everywhere a character
    the terminal cannot show (PYTHONIOENCODING=ascii, a Latin-1 locale) is replaced,
    never a UnicodeEncodeError.
    """
    try:
        os.fstat(1)
        closed = False
    except OSError:
        closed = True  # `papertrack digest >&-`: Python set sys.stdout to None
        null = os.open(os.devnull, os.O_WRONLY)
        if null != 1:
            os.dup2(null, 1)
            os.close(null)
    old = sys.stdout
    if old is not None and getattr(old, "fileno", None) is not None:
        try:
            if old.fileno() != 1:
                return  # not the process's own stdout (embedded, redirected in Python)
        except (OSError, ValueError):
            return
        old.flush()
    encoding = "utf-8"
    if old is not None and (_is_terminal(old) or _utf8(old)):
        encoding = old.encoding
    if closed:
        from papertrack.files import CLOSED_FDS

        CLOSED_FDS.add(1)  # -o /dev/stdout must not write into the /dev/null put there
    raw = _WholeWrites(1, closed)
    # PYTHONUNBUFFERED and `python -u`: nothing is held back, so stdout and stderr stay
    # in the order written (Python itself puts the text layer on the raw file then).
    unbuffered = bool(getattr(old, "write_through", False))
    sys.stdout = io.TextIOWrapper(
        raw if unbuffered else io.BufferedWriter(raw),
        encoding=encoding,
        errors="replace",
        line_buffering=bool(old is not None and old.line_buffering),
        write_through=unbuffered,
    )


def _standard_error() -> None:
    """Put /dev/null on fd 2 and a stream on it when papertrack started with stderr
    closed (``2>&-``, a launcher that closes it).

    Python then sets ``sys.stderr`` to None, and the first note or progress check
    (``sys.stderr.isatty()``) raised: ``fetch --days 1`` and ``ingest`` stored
    nothing and exited 1 with nothing said. Notes go nowhere now, as with
    ``2>/dev/null``, the log still gets them, and no file papertrack opens takes fd 2.
    """
    if sys.stderr is not None:
        return
    try:
        os.fstat(2)
    except OSError:
        null = os.open(os.devnull, os.O_WRONLY)
        if null != 2:
            os.dup2(null, 2)
            os.close(null)
        from papertrack.files import CLOSED_FDS

        CLOSED_FDS.add(2)  # -o /dev/stderr must not write into the /dev/null put there
    sys.stderr = io.TextIOWrapper(
        io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="replace", line_buffering=True
    )


#: The signal that stopped the command, once one has (see :func:`_terminate`).
_signalled: int | None = None


def _terminate(signum: int, frame: Any) -> NoReturn:
    from papertrack.errors import Terminated

    global _signalled
    _signalled = signum
    raise Terminated(signum)


def _utf8_arg(arg: str) -> str:
    """``arg`` read as UTF-8 when Python read it otherwise: under an ASCII locale it
    does not coerce (LC_ALL=C with PYTHONCOERCECLOCALE=0), a query of 'résumé' came as
    escaped bytes and was refused as "not UTF-8 text". Bytes that are not UTF-8 stay
    as they came, for the commands to name."""
    from papertrack.text import UNDECODED

    if UNDECODED.search(arg) is None:
        return arg
    try:
        return os.fsencode(arg).decode("utf-8")
    except UnicodeError:
        return arg


def main() -> None:
    """Console-script entry point."""
    import signal

    # SIGTERM stops a command as Ctrl-C does, clean-up included (exit 143, not 130),
    # and so does SIGHUP (a closed terminal or ssh session: 129), unless it is
    # ignored, as under nohup, which must keep the command running.
    signal.signal(signal.SIGTERM, _terminate)
    if signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:
        signal.signal(signal.SIGHUP, _terminate)
    _standard_output()
    _standard_error()
    for stream in (sys.stderr,):
        # A terminal that cannot show some character (PYTHONIOENCODING=ascii, a
        # Latin-1 locale) gets a replacement for it, never a UnicodeEncodeError.
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="replace")
    sys.argv[1:] = [_utf8_arg(arg) for arg in sys.argv[1:]]
    modules: Sequence[str] = MODULES
    completing = any(key.endswith("_COMPLETE") for key in os.environ)
    command = command_of(sys.argv[1:])
    if command == "help":
        # `papertrack help latest`, as git and pip take it: that command's --help.
        args = sys.argv[1:]
        at = args.index("help")
        sys.argv[1:] = [*args[:at], *args[at + 1 :], "--help"]
        command = command_of(sys.argv[1:])
    if not completing and command in COMMANDS:
        modules = (COMMANDS[command],)
    status: Any = None
    try:
        try:
            _load(modules)(prog_name="papertrack")
        except SystemExit as done:
            status = done.code
            if _signalled is not None and status == 130:
                # Stopped before the command's own handler was in place (while it
                # imported what it needs): Typer turns any KeyboardInterrupt into a
                # silent 130, and a SIGTERM read as a Ctrl-C to a cron wrapper.
                from papertrack.cli.common import say
                from papertrack.errors import Terminated, stop_status

                stop = Terminated(_signalled)
                say(f"Stopped by {stop.name}.")
                status = stop_status(stop)
            # Typer ends a command whose reader closed the pipe (`papertrack latest -f csv
            # | head -1`) with exit 1, after putting a wrapper on stdout that hushes the
            # last flush. The reader chose to stop: that is no error, in any format.
            if done.code == 1 and type(sys.stdout).__name__ == "PacifyFlushWrapper":
                status = 0
        # What is still buffered is written here, where a failure is reported as any
        # other; written at the interpreter's exit, it failed with a traceback.
        sys.stdout.flush()
    except BrokenPipeError:
        _drop_output()
        raise SystemExit(status or 0) from None  # the reader stopped early: its choice
    except KeyboardInterrupt as stop:
        from papertrack.errors import stop_status

        _drop_output()
        # Outside a command (while loading): no traceback.
        raise SystemExit(stop_status(stop)) from None
    except OSError as exc:
        from papertrack.cli.common import say

        _drop_output()
        # Writing the answer to standard output (`> /dev/full`, a full disk, `>&-`):
        # the store's own writes say so themselves.
        if exc.errno == errno.EBADF:
            say(
                "Error: could not write the output: standard output is closed. "
                "Send it somewhere: > FILE, | COMMAND, or -o FILE where the command has it."
            )
            raise SystemExit(1) from None
        if exc.errno not in _FULL:
            _unexpected(exc)
        say(
            f"Error: could not write the output: {exc.strerror}. "
            "Free some space, or write it elsewhere."
        )
        raise SystemExit(1) from None
    except Exception as exc:  # noqa: BLE001 - the last resort: every command has its own
        _unexpected(exc)
    raise SystemExit(status)


def _drop_output() -> None:
    """Drop what standard output still holds: it cannot be written (reported already)."""
    buffer = getattr(sys.stdout, "buffer", None)
    raw = getattr(buffer, "raw", buffer)
    if isinstance(raw, _WholeWrites):
        raw.dropping = True


#: errno of a write that found no room: no space, over quota, too big for the file.
_FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


def _unexpected(exc: Exception) -> NoReturn:
    """A failure no command turned into its own message: one ``Error:`` line instead of
    a traceback (which goes to the log, for a report), exit 1."""
    import traceback

    from papertrack.cli.common import log, say

    written = log("".join(traceback.format_exception(exc)))
    what = " ".join(str(exc).split())[:200] or "no message"
    where = f"the end of {written}" if written is not None else "this message"
    say(
        f"Error: papertrack failed unexpectedly ({type(exc).__name__}: {what}). "
        f"This is a bug: please report it with the command you ran and {where}."
    )
    raise SystemExit(1)
