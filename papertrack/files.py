"""File primitives every papertrack file write goes through: atomic writes, staged groups, locks.

A file is written to a temp file beside it (``.NAME.PID.tmp``), flushed to disk and
renamed over the old one, so a reader (or a kill) sees the old or the new file,
never a mix. :func:`all_or_nothing` groups several such writes so that a failure
while writing (a full disk) leaves every file as it was. :class:`Lock` is an
exclusive lock on a file, shared by every papertrack process on the machine.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from papertrack.errors import StoreError

#: The name pattern of :func:`write_atomic`'s temp files: only these are ever cleaned up.
TEMP_NAME = re.compile(r"\..+\.[0-9]+\.tmp")


def temp_path(path: Path) -> Path:
    """Where :func:`write_atomic` writes ``path`` before renaming it."""
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def temp_files(folder: Path) -> list[Path]:
    """The temp files :func:`write_atomic` left in ``folder`` (not below it).

    A temp file of a live process is about to be renamed into place, not left: it
    is not listed (see :func:`left_behind`).
    """
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    found = [folder / n for n in names if TEMP_NAME.fullmatch(n) and (folder / n).is_file()]
    return sorted(filter(left_behind, found))


def left_behind(temp: Path) -> bool:
    """Whether the process that wrote the temp file ``temp`` is gone (or is this one).

    A live writer's temp file is about to be renamed into place and must not be
    removed under it. Where a process cannot be asked about (Windows, where
    ``os.kill`` would end it), every temp file counts as left behind.
    """
    if sys.platform == "win32":
        return True
    pid = int(temp.name.rsplit(".", 2)[-2])
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # no such process (or no such pid)
        return True
    except PermissionError:
        return False  # a live process of another user
    return False


def _fsync_dir(path: Path) -> None:
    # Makes the rename itself durable; not possible on every platform (Windows).
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


#: Files written by :func:`write_atomic` inside :func:`all_or_nothing`, not yet in place:
#: (temp file, final path), and final paths to remove at the end (None: not staging).
_staged: list[tuple[Path, Path | None]] | None = None


def read_if_there(path: Path) -> bytes | None:
    """The bytes of ``path``, or None when it does not exist; other failures are one StoreError."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(f"could not read {path}: {exc.strerror or exc}. {os_fix(exc)}") from None


#: A file of data to write, read from its start in pieces of this many bytes: an
#: export of 83,510 papers held whole took 765 MB, and a million would take 10 GB.
CHUNK = 1 << 20


def _chunks(data: bytes | BinaryIO) -> Iterator[bytes]:
    """``data``'s bytes: itself, or a binary file's read from its start in pieces."""
    if isinstance(data, bytes | bytearray | memoryview):
        yield bytes(data)
        return
    data.seek(0)
    while chunk := data.read(CHUNK):
        yield chunk


def write_atomic(path: Path, data: bytes | BinaryIO, *, mode: int | None = None) -> None:
    """Write ``data`` (bytes, or a binary file read from its start) to ``path`` so
    that readers see the old or the new file, never a mix.

    Inside :func:`all_or_nothing` the file is only written and flushed to a temp
    file here; it replaces ``path`` when the whole group has been written.
    ``mode``: the new file's permission bits (default: as the umask makes them).
    """
    tmp = temp_path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as handle:
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
            for chunk in _chunks(data):
                handle.write(chunk)
            handle.flush()
            os.fsync(handle.fileno())
        if _staged is not None:
            _staged.append((tmp, path))
            return
        os.replace(tmp, path)
    except BaseException as exc:
        # A write error, or Ctrl-C while the bytes went down: no temp file is left.
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(exc, OSError):
            raise write_error(path, exc) from exc
        raise
    _fsync_dir(path.parent)


def write_output(path: Path, data: bytes | BinaryIO) -> bool:
    """Write a file the user named (``-o``): atomically, into a folder that must exist.
    ``data``: bytes, or a binary file read from its start in pieces.
    False when what reads it (a pipe's reader) stopped before the end.

    A symlink is written through (its target is replaced, the link stays), and a
    missing folder is an error rather than made: it is more often a typo. One of
    papertrack's own open streams (/dev/stdout, /dev/fd/N, through any symlinks) is
    written to at its own position, and anything else that is not a regular file (a
    FIFO, a device) is written into: neither is ever replaced. A file replaced keeps
    its permission bits.

    Raises:
        UsageError: the folder does not exist, the path is a folder, or the file is
            read-only.
        StoreError: the file could not be written.
    """
    fd = _stream_fd(path)
    if fd is not None:
        # Written through the descriptor the shell opened, at its position: a rename
        # over /dev/stdout's file lost what `>> app.log` held, and opening it again
        # wrote from its start, under what the shell wrote next.
        return _write_into(path, data, fd)
    mode = _checked(path)
    if mode is not None and not stat.S_ISREG(mode):
        # A FIFO, a terminal or another device is written into, never replaced: a
        # rename over it put a regular file in place of something that is not
        # papertrack's (as root, -o /dev/stderr 2>/dev/null replaced /dev/null).
        return _write_into(path, data)
    # A file replaced keeps its permissions: a private one stays private.
    target = Path(os.path.realpath(path))
    write_atomic(target, data, mode=None if mode is None else stat.S_IMODE(mode))
    return True


def check_output(path: Path) -> None:
    """Fail now, as :func:`write_output` would at the end, when ``path`` cannot be
    written: an export of 83,510 papers into a missing folder said so after 8 s."""
    if _stream_fd(path) is None:
        _checked(path)


def _checked(path: Path) -> int | None:
    """The mode of what ``path`` names (through symlinks), None when nothing is there.

    Raises:
        UsageError: the path is a folder, its folder does not exist, or the (regular)
            file is read-only.
        StoreError: it could not be looked at.
    """
    from papertrack.errors import UsageError

    try:
        mode: int | None = os.stat(path).st_mode  # through symlinks
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise write_error(path, exc) from None
    if mode is not None and stat.S_ISDIR(mode):
        raise UsageError(f"{path} is a folder. Name a file to write")
    if mode is not None and not stat.S_ISREG(mode):
        return mode
    target = Path(os.path.realpath(path))
    if not target.parent.is_dir():
        raise UsageError(f"no folder {target.parent} to write {path} in. Create it or fix the path")
    if mode is not None and (not os.access(target, os.W_OK) or not mode & 0o222):
        # A rename would replace it all the same; `>` and cp refuse a read-only file
        # (one with no write bit is refused to root too, who may write anything).
        raise UsageError(f"{path} is read-only. Make it writable (chmod u+w) or name another file")
    return mode


def is_stdout(path: Path) -> bool:
    """Whether ``path`` names this process's standard output (/dev/stdout, /dev/fd/1, …)."""
    return _stream_fd(path) == 1


def writes_into(path: Path) -> bool:
    """Whether :func:`write_output` writes into what ``path`` names (one of this
    process's streams, a FIFO, a device) at once, rather than replacing a file,
    which :func:`all_or_nothing` can stage."""
    if _stream_fd(path) is not None:
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False  # missing (made), or an error write_output will name
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


#: This process's descriptors that were closed when it started (``>&-``): papertrack put
#: /dev/null there, which ``-o /dev/stdout`` must not take for the user's output.
CLOSED_FDS: set[int] = set()


def _write_into(path: Path, data: bytes | BinaryIO, fd: int | None = None) -> bool:
    """Write ``data`` into what ``path`` names without replacing it: through the open
    descriptor ``fd`` (after what stdout and stderr hold), or else opened by name.
    A reader that stopped early (`| head`) is its choice, not an error: False."""
    if fd in CLOSED_FDS:
        raise StoreError(
            f"could not write {path}: it was closed when papertrack started. Send it "
            + ("somewhere: 2> FILE" if fd == 2 else "somewhere: > FILE or | COMMAND")
        )
    try:
        if fd is None:
            with open(path, "wb") as handle:
                for chunk in _chunks(data):
                    handle.write(chunk)
            return True
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        for chunk in _chunks(data):
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view) :]
    except BrokenPipeError:
        return False
    except OSError as exc:
        raise write_error(path, exc) from None
    return True


_STREAM = re.compile(r"/dev/(stdin|stdout|stderr)|/dev/fd/(\d+)|/proc/(?:self|\d+)/fd/(\d+)")


def _stream_fd(path: Path) -> int | None:
    """The descriptor of this process that ``path`` names (/dev/stdout, /dev/fd/N,
    /proc/self/fd/N, also through symlinks to them), or None: read from the path's
    links, one at a time, without opening anything."""
    name = os.path.abspath(path)
    for _ in range(40):  # the kernel's own bound on a chain of links
        name = "/" + os.path.normpath(name).lstrip("/")  # "//dev/stdout" too
        found = _STREAM.fullmatch(name)
        if found is not None:
            std, fd, proc = found.groups()
            if proc is not None and not name.startswith(("/proc/self/", f"/proc/{os.getpid()}/")):
                return None  # another process's descriptor
            return ("stdin", "stdout", "stderr").index(std) if std else int(fd or proc)
        try:
            target = os.readlink(name)
        except OSError:
            return None  # not a link: a file or folder of its own
        name = os.path.join(os.path.dirname(name), target)
    return None


def out_of_space(exc: BaseException) -> bool:
    """Whether ``exc`` says the disk (or the user's quota) is full: an OSError of
    ENOSPC or EDQUOT, or SQLite's "database or disk is full"."""
    import errno
    import sqlite3

    if isinstance(exc, OSError):
        return exc.errno in (errno.ENOSPC, errno.EDQUOT)
    if isinstance(exc, sqlite3.Error):
        return getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or (
            "disk is full" in str(exc)
        )
    return False


def write_error(path: Path, exc: OSError) -> StoreError:
    return StoreError(f"could not write {path}: {exc.strerror or exc}. {os_fix(exc, writing=True)}")


def os_fix(exc: OSError, *, writing: bool = False) -> str:
    """What to do about ``exc``, a failed read or write of one of papertrack's files:
    "check that the disk has space" was the advice for a folder where a file belongs."""
    import errno

    if exc.errno == errno.EISDIR:
        return "A folder stands where papertrack keeps that file: move it away"
    if exc.errno == errno.ENOTDIR:
        return "A file stands where a folder of that path belongs: move it away"
    if out_of_space(exc):
        return "Free some space on the disk"
    if not writing:
        return "Check its permissions"
    return "Check that the disk has space and the directory is writable"


def home_fix(exc: OSError) -> str:
    """:func:`os_fix` for a read of a file of the data home, which PAPERTRACK_HOME
    may have put below a file."""
    import errno

    if exc.errno == errno.ENOTDIR:
        return (
            "A file stands where a folder of that path belongs: move it away, or point "
            "PAPERTRACK_HOME at a folder"
        )
    return os_fix(exc)


def remove_file(path: Path) -> None:
    """Remove ``path`` (a week file left empty); inside :func:`all_or_nothing`, at its end."""
    if _staged is not None:
        _staged.append((path, None))
        return
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Hold Ctrl-C, SIGTERM and SIGHUP until the block ends: for the short clean-up
    that the first of them started, which a second one cut short (a digest's mark
    half put back). They are raised as the block ends, in the order they came."""
    import signal

    held = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
    before = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


@contextlib.contextmanager
def all_or_nothing() -> Iterator[None]:
    """Put every file written inside in place together, or none of them.

    A full disk or any other failure while the files are written leaves the
    store exactly as it was (the temp files are removed). Only the renames at
    the end, which need no space, can be cut short, by a kill: the caller's
    ``.dirty`` marker covers that.
    """
    global _staged
    if _staged is not None:
        yield  # already inside one: the outer group decides
        return
    staged: list[tuple[Path, Path | None]] = []
    _staged = staged
    try:
        yield
    except BaseException:
        _staged = None
        for tmp, path in staged:
            if path is not None:
                with contextlib.suppress(OSError):
                    tmp.unlink()
        raise
    _staged = None
    folders: set[Path] = set()
    for tmp, path in staged:
        try:
            if path is None:
                with contextlib.suppress(FileNotFoundError):
                    tmp.unlink()
                folders.add(tmp.parent)
            else:
                os.replace(tmp, path)
                folders.add(path.parent)
        except OSError as exc:
            raise write_error(path or tmp, exc) from exc
    for folder in folders:
        _fsync_dir(folder)


def write_json(path: Path, data: object) -> None:
    """Write a JSON file people may read (indented, readable Unicode, controls escaped)."""
    from papertrack.text import json_text

    write_atomic(path, (json_text(data, indent=2) + "\n").encode("utf-8"))


class StateFile:
    """A small JSON object kept between runs (where an interrupted job stopped).

    It is only ever a shortcut: a file that is missing, unreadable or not an object
    reads as empty, and the job then starts from the beginning.
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_bytes())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def damaged(self) -> bool:
        """Whether the file is there, readable, and not a JSON object (one that cannot
        be read at all, a folder in its place, is not "damaged": nothing replaces it)."""
        try:
            data = json.loads(self.path.read_bytes())
        except OSError:
            return False
        except ValueError:
            return True
        return not isinstance(data, dict)

    def write(
        self, data: dict[str, Any], *, indent: int | None = None, sort_keys: bool = False
    ) -> None:
        write_atomic(
            self.path, json.dumps(data, indent=indent, sort_keys=sort_keys).encode("utf-8")
        )

    def clear(self) -> None:
        with contextlib.suppress(OSError):
            self.path.unlink()

    def update(
        self,
        change: Callable[[dict[str, Any]], dict[str, Any] | None],
        lock: Lock,
        *,
        indent: int | None = None,
    ) -> None:
        """Read, ``change`` and write back the file while ``lock`` is held, so that two
        processes changing different keys keep both changes. ``change`` returns the new
        contents (an empty dict removes the file) or None to leave the file as it is.

        Raises:
            StoreError: the lock was held too long or cannot be made; OSError: the
                file could not be written.
        """
        with lock:
            data = change(self.read())
            if data is None:
                return
            if data:
                self.write(data, indent=indent, sort_keys=True)
            else:
                self.clear()


#: Told once (with the lock's name, "the store lock", and its timeout) when a lock has been waited
#: for :data:`WAIT_NOTICE` seconds: the command line says so, where a second teach
#: sat silent for ten seconds behind the first.
on_lock_wait: Callable[[str, float], None] | None = None
WAIT_NOTICE = 1.0


def lock_timeout() -> float:
    """How long to wait for a lock another papertrack holds: PAPERTRACK_LOCK_TIMEOUT, 60 s."""
    import math

    from papertrack.errors import UsageError
    from papertrack.text import visible

    timeout = os.environ.get("PAPERTRACK_LOCK_TIMEOUT", "60")
    try:
        seconds = float(timeout)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds >= 0):
        raise UsageError(
            f"PAPERTRACK_LOCK_TIMEOUT={visible(timeout)!r} is not a number of seconds. "
            "Set it to e.g. 60"
        )
    return seconds


class LockBusyError(StoreError):
    """Another process held the lock for longer than the wait allowed."""


class Lock:
    """An exclusive lock on ``.lock`` shared by every papertrack process on the machine."""

    def __init__(
        self,
        path: Path,
        timeout: float,
        what: str = "the store lock",
        place: str = "--db, PAPERTRACK_DB or PAPERTRACK_HOME",
        busy_fix: str = "Wait for it to finish, or raise PAPERTRACK_LOCK_TIMEOUT",
    ) -> None:
        self.path = path
        self.timeout = timeout
        self.what = what
        #: What to do when another process held it past the timeout.
        self.busy_fix = busy_fix
        #: What chooses the lock's folder, for the message when it cannot be made.
        self.place = place
        self._handle: Any = None

    def acquire(self) -> None:
        folder = self.path.parent
        existed = folder.is_dir()
        if not existed and folder.exists():
            # "could not create X: File exists" did not say what was wrong with it.
            raise StoreError(
                f"{folder} is a file, not a folder, so {self.what} cannot be kept there. "
                f"Move it away, or choose another folder with {self.place}"
            )
        try:
            folder.mkdir(parents=True, exist_ok=True)
            handle = open(self.path, "a+b")  # noqa: SIM115 - kept open while locked
        except OSError as exc:
            why = exc.strerror or str(exc)
            if existed and isinstance(exc, IsADirectoryError):
                fix = os_fix(exc)  # a folder where the lock file belongs
                raise StoreError(f"could not open {self.what} {self.path}: {why}. {fix}") from exc
            if existed:
                raise StoreError(
                    f"could not open {self.what} {self.path}: {why}. "
                    f"Check that {folder} is writable, or choose another place"
                ) from exc
            raise StoreError(
                f"could not create {folder}: {why}. Choose a writable place with {self.place}"
            ) from exc
        started = time.monotonic()
        deadline = started + self.timeout
        told = False
        while True:
            try:
                _try_lock(handle)
                break
            except BlockingIOError:
                now = time.monotonic()
                if not told and now - started >= WAIT_NOTICE and on_lock_wait is not None:
                    told = True
                    on_lock_wait(self.what, self.timeout)
                if now >= deadline:
                    handle.close()
                    raise LockBusyError(
                        f"another papertrack process has held {self.what} {self.path} "
                        f"for over {self.timeout:g} s. {self.busy_fix}"
                    ) from None
                time.sleep(0.05)
        self._handle = handle

    @property
    def handle(self) -> Any:
        """The open lock file while the lock is held (a process may keep a little state in it)."""
        return self._handle

    def release(self) -> None:
        if self._handle is not None:
            _unlock(self._handle)
            self._handle.close()
            self._handle = None

    def __enter__(self) -> Lock:
        """``with lock:`` holds it for the block, released however the block ends."""
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


if sys.platform == "win32":
    import msvcrt

    def _try_lock(handle: Any) -> None:
        try:
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            raise BlockingIOError from None

    def _unlock(handle: Any) -> None:
        with contextlib.suppress(OSError):
            msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(handle: Any) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(handle: Any) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
