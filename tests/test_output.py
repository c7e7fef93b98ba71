"""One output layer: JSON escaping and inert CSV cells in every command that writes them."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import LISTING, run

HOSTILE = '=HYPERLINK("http://evil.example/x")'


@pytest.fixture
def home(isolated_home: Path) -> Path:
    (isolated_home / "topics.toml").parent.mkdir(parents=True, exist_ok=True)
    (isolated_home / "topics.toml").write_text(
        f"[[topic]]\nname = '{HOSTILE}'\nslug = 'evil'\nquery = 'agent*'\n"
        'description = "bell \\u0007 and bidi \\u202e here"\n',
        "utf-8",
    )
    assert run("ingest", str(LISTING)).exit_code == 0
    return isolated_home


@pytest.mark.parametrize(
    "args",
    [
        ["topics", "--format", "csv"],
        ["trending", "--format", "csv", "--as-of", "2025-08-22"],
        ["latest", "evil", "--format", "csv"],
    ],
)
def test_no_csv_cell_starts_a_formula(home: Path, args: list[str]) -> None:
    done = run(*args)
    assert done.exit_code == 0, done.stderr
    rows = list(csv.reader(io.StringIO(done.stdout)))
    assert len(rows) > 1
    for row in rows:
        for value in row:
            assert not value.startswith(("=", "+", "@", "\t", "\r")), (args, value)
    if args[0] in ("topics", "trending"):
        assert any(value == "'" + HOSTILE for row in rows for value in row)


@pytest.mark.parametrize(
    "args",
    [
        ["topics", "--json"],
        ["topics", "show", "evil", "--json"],
        ["trending", "--json", "--as-of", "2025-08-22"],
        ["doctor", "--json"],
        ["path", "--json"],
    ],
)
def test_json_never_carries_a_control_or_bidi_character_raw(home: Path, args: list[str]) -> None:
    done = run(*args)
    assert done.exit_code == 0, done.stderr
    json.loads(done.stdout)
    assert "\u0007" not in done.stdout and "\u202e" not in done.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["latest", "-n", "5"],
        ["momentum", "evil", "--as-of", "2025-08-22"],
        ["trending", "--as-of", "2025-08-22"],
        ["topics"],
        ["stats"],
        ["show", "2508.13167"],
    ],
)
def test_tables_off_a_terminal_have_no_trailing_spaces(home: Path, args: list[str]) -> None:
    """Rich pads every line to the width: noise in a diff, a grep or a mail."""
    result = run(*args)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) > 3
    assert [line for line in lines if line != line.rstrip(" ")] == []


# --------------------------------------------------------------------------- standard output


def _papertrack(*args: str, env: dict[str, str] | None = None, **kwargs: Any) -> Any:
    """``python -m papertrack ARGS`` as a console run: through main(), buffered stdout."""
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    return subprocess.run(
        [sys.executable, "-m", "papertrack", *args], env={**environ, **(env or {})}, **kwargs
    )


def test_a_reader_gone_before_the_last_flush_is_no_error(sample_home: Path) -> None:
    """What stayed buffered was written at the interpreter's exit, outside main():
    `latest -f csv | head -1` exited 120 with "Exception ignored ... BrokenPipeError"."""
    # Smaller than the buffer: all of it waits for the last flush.
    for args in (("latest", "-f", "csv", "-n", "1"), ("latest", "--json", "-n", "1")):
        into, out = os.pipe()
        os.close(into)  # the reader is gone before the first byte
        done = _papertrack(*args, stdout=out, stderr=-1)
        os.close(out)
        assert (done.returncode, done.stderr) == (0, b""), args


def test_a_closed_or_full_stdout_is_one_error_line(sample_home: Path) -> None:
    """`latest --json >&-` gave a traceback and exit 120; `export -o /dev/stdout >&-`
    said "Wrote 4,802 papers" into the /dev/null papertrack puts on a closed stdout."""
    for command in ('"$0" -m papertrack latest --json -n 2 >&-',
                    '"$0" -m papertrack export -f json -o /dev/stdout >&-'):  # fmt: skip
        closed = subprocess.run(["sh", "-c", command, sys.executable], capture_output=True)
        assert closed.returncode == 1, command
        lines = closed.stderr.decode().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: could not write"), lines
        assert "closed" in lines[0]
    for unbuffered in ({}, {"PYTHONUNBUFFERED": "1"}):
        with open("/dev/full", "wb") as full:
            done = _papertrack(
                "latest", "--json", "-n", "2", stdout=full, stderr=-1, env=unbuffered
            )
        assert done.returncode == 1, unbuffered
        assert done.stderr.decode().startswith("Error: could not write the output: No space")


def test_a_closed_stderr_stops_nothing(isolated_home: Path) -> None:
    """`ingest FEED 2>&-` and `fetch --days 1 2>&-` (a launcher that closes stderr)
    raised on sys.stderr, which Python sets to None, before reading a byte: nothing
    stored, exit 1, nothing said. The notes go nowhere; the log still has them."""
    command = f'"$0" -m papertrack ingest {LISTING} 2>&- && "$0" -m papertrack stats --json 2>&-'
    done = subprocess.run(["sh", "-c", command, sys.executable], capture_output=True)
    assert done.returncode == 0
    assert json.loads(done.stdout)["papers"] == 86
    # A fetch whose server refuses: its error is in the log, not lost with a traceback.
    fetch = (
        '"$0" -m papertrack fetch -c cs.AI --days 1 --api-url http://127.0.0.1:9/q --retries 0 2>&-'
    )
    done = subprocess.run(["sh", "-c", fetch, sys.executable], capture_output=True)
    assert done.returncode == 1
    log = (isolated_home / "papertrack.log").read_text(encoding="utf-8")
    assert "[fetch] Error: 127.0.0.1:9 refused the connection." in log
    assert "unexpectedly" not in log
    # -o /dev/stderr is not the /dev/null put there: refused, as -o /dev/stdout is.
    export = '"$0" -m papertrack export -f json -o /dev/stderr 2>&-'
    done = subprocess.run(["sh", "-c", export, sys.executable], capture_output=True)
    assert done.returncode == 1
    said = "could not write /dev/stderr: it was closed when papertrack started. Send it"
    assert said in (isolated_home / "papertrack.log").read_text(encoding="utf-8")


def test_ingest_from_a_closed_or_twice_named_stdin_is_one_usage_error(isolated_home: Path) -> None:
    """`ingest - <&-` ended in "failed unexpectedly (AttributeError ...)"; `ingest - -`
    read the feed and then failed the run on an "empty" second read."""
    closed = subprocess.run(
        ["sh", "-c", '"$0" -m papertrack ingest - <&-', sys.executable], capture_output=True
    )
    lines = closed.stderr.decode().splitlines()
    assert closed.returncode == 2 and len(lines) == 1, lines
    assert lines[0].startswith("Error: standard input is closed, so '-' has nothing to read.")
    twice = _papertrack("ingest", "-", "-", stdin=subprocess.DEVNULL, stdout=-1, stderr=-1)
    assert twice.returncode == 2
    assert twice.stderr.decode().startswith("Error: '-' (standard input) is named twice.")
    assert not (isolated_home / "store").exists()  # nothing was made


def test_unbuffered_output_keeps_stdout_and_stderr_in_order(
    sample_home: Path, tmp_path: Path
) -> None:
    """PYTHONUNBUFFERED (or `python -u`): the CSV header came after the note on stderr."""
    both = tmp_path / "both.txt"
    with both.open("wb") as handle:
        _papertrack("export", "-f", "csv", "--since", "2030-01-01", stdout=handle, stderr=handle,
                    env={"PYTHONUNBUFFERED": "1"})  # fmt: skip
    first, second = both.read_text(encoding="utf-8").splitlines()[:2]
    assert first.startswith("arxiv_id,") and second.startswith("No paper is dated 2030-01-01")
