"""One output layer: JSON escaping and inert CSV cells in every command that writes them."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

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
