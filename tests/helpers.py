"""Helpers shared by the test modules: run the CLI, check its errors, make snapshot lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from papertrack.cli import app

DATA = Path(__file__).parent / "data"
LISTING = DATA / "rss" / "atom-cs.AI-2025-08-20.first86.xml"

#: A pid no process can have (Linux pids stay below 2**22, macOS below 10**5): the
#: writer of a temp file named with it is gone, as after a kill.
DEAD_PID = 9_999_999


def killed_writers_temp(path: Path) -> Path:
    """The temp file a writer killed while writing ``path`` leaves behind."""
    return path.with_name(f".{path.name}.{DEAD_PID}.tmp")


def run(
    *args: str, input: bytes | str | None = None, env: dict[str, str | None] | None = None
) -> Result:
    """``papertrack ARGS`` in this process, stdout and stderr kept apart; ``sys.argv``
    is the command line meanwhile, as a console run has it (an error's fix may quote
    it: a query starting with '-')."""
    import sys

    saved = sys.argv
    sys.argv = ["papertrack", *args]
    try:
        return CliRunner().invoke(app, list(args), input=input, env=env)
    finally:
        sys.argv = saved


def ok(*args: str) -> Result:
    """``papertrack ARGS``, which must succeed without a traceback."""
    result = run(*args)
    assert result.exit_code == 0, result.stderr
    no_traceback(result)
    return result


def ingest(*paths: Path | str) -> Result:
    """``papertrack ingest PATHS``, which must succeed."""
    result = run("ingest", *map(str, paths))
    assert result.exit_code == 0, result.stderr
    return result


def no_traceback(result: Result) -> None:
    assert "Traceback" not in result.stdout + result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception


def error_line(result: Result, code: int, *needles: str) -> str:
    """The one ``Error: …`` line of a command that failed with ``code``; it holds every needle."""
    assert result.exit_code == code, (result.exit_code, result.stdout, result.stderr)
    no_traceback(result)
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1, result.stderr
    for needle in needles:
        assert needle in errors[0], errors[0]
    return errors[0]


def kaggle_line(arxiv_id: str, title: str = "A paper", **fields: Any) -> str:
    """One line of the Kaggle snapshot format."""
    record: dict[str, Any] = {
        "id": arxiv_id,
        "title": title,
        "abstract": "An abstract.",
        "authors": "Ada Lovelace",
        "categories": "cs.AI",
        "versions": [{"version": "v1", "created": "Mon, 4 Aug 2025 10:00:00 GMT"}],
        "authors_parsed": [["Lovelace", "Ada", ""]],
    }
    record.update(fields)
    return json.dumps(record)


def run_in_pty(
    *args: str, env: dict[str, str], columns: int = 80, timeout: float = 60.0
) -> tuple[int, bytes]:
    """``papertrack ARGS`` in a child process whose stdout and stderr are a pseudo-terminal.

    Returns the exit code and every byte the terminal got, so that a test sees
    what a person at a terminal of ``columns`` columns would (spinners included).
    """
    import sys

    return run_argv_in_pty(
        [sys.executable, "-m", "papertrack", *args], env=env, columns=columns, timeout=timeout
    )


def run_argv_in_pty(
    argv: list[str], *, env: dict[str, str], columns: int = 80, timeout: float = 60.0
) -> tuple[int, bytes]:
    """The program ``argv`` in a child process whose stdout and stderr are a
    pseudo-terminal: its exit code and every byte the terminal got."""
    import fcntl
    import os
    import pty
    import select
    import struct
    import termios
    import time

    pid, fd = pty.fork()
    if pid == 0:  # the child: the program on the terminal
        os.environ.clear()
        os.environ.update({**env, "COLUMNS": str(columns), "TERM": "xterm"})
        os.execv(argv[0], argv)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    seen = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if not ready:
            continue
        try:
            data = os.read(fd, 65536)
        except OSError:  # the child closed the terminal: it ended
            break
        if not data:
            break
        seen += data
    os.close(fd)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), seen


_WORDS = ["agent", "agents", "train", "llm", "language", "model", "rl", "the", "4", "é", "x2"]


def paper_texts() -> st.SearchStrategy[list[tuple[str, str, list[str]]]]:
    """Papers as :func:`papertrack.learn.features` reads them, (title, abstract,
    hints): concept words, numbers, accents, sentence ends and runs of nothing."""
    return st.lists(
        st.tuples(
            st.lists(st.sampled_from([*(w + " " for w in _WORDS), ". ", "-", "! "])).map("".join),
            st.lists(st.sampled_from([*(w + " " for w in _WORDS), ". ", "?", "\n", "Ü"])).map(
                "".join
            ),
            st.lists(st.sampled_from(["llm-agent-training", "gui-agents"]), max_size=2),
        ),
        max_size=6,
    )
