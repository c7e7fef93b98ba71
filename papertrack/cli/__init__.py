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


def main() -> None:
    """Console-script entry point."""
    for stream in (sys.stdout, sys.stderr):
        # A terminal that cannot show some character (PYTHONIOENCODING=ascii, a
        # Latin-1 locale) gets a replacement for it, never a UnicodeEncodeError.
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="replace")
    if not _is_terminal(sys.stdout) and not _utf8(sys.stdout):
        # Standard output into a pipe or a file carries data (JSON, CSV, an export, a
        # digest): written in UTF-8, as those formats are, whatever the locale says,
        # so a name such as "Jiménez" reaches jq or a file whole, not as "Jim?nez".
        reconfigure = getattr(sys.stdout, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(encoding="utf-8")
    modules: Sequence[str] = MODULES
    completing = any(key.endswith("_COMPLETE") for key in os.environ)
    command = command_of(sys.argv[1:])
    if not completing and command in COMMANDS:
        modules = (COMMANDS[command],)
    try:
        _load(modules)(prog_name="papertrack")
    except SystemExit as done:
        # Typer ends a command whose reader closed the pipe (`papertrack latest -f csv |
        # head -1`) with exit 1, after putting a wrapper on stdout that hushes the
        # last flush. The reader chose to stop: that is no error, in any format.
        if done.code == 1 and type(sys.stdout).__name__ == "PacifyFlushWrapper":
            raise SystemExit(0) from None
        raise
    except KeyboardInterrupt:
        raise SystemExit(130) from None  # outside a command (while loading): no traceback
    except OSError as exc:
        if exc.errno not in _FULL:
            _unexpected(exc)
        # Writing the answer to standard output (`> /dev/full`, a full disk): the
        # store's own writes say so themselves.
        from papertrack.cli.common import say

        say(
            f"Error: could not write the output: {exc.strerror}. "
            "Free some space, or write it elsewhere."
        )
        raise SystemExit(1) from None
    except Exception as exc:  # noqa: BLE001 - the last resort: every command has its own
        _unexpected(exc)


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
