"""Write docs/reference.md from every command's own --help (a test keeps the two equal).

python docs/reference.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def commands() -> list[list[str]]:
    """Every command path of the CLI, groups before their commands, in help order."""
    import typer.main

    from papertrack.cli import app  # importing app loads every command module

    def walk(command: object, path: list[str]) -> list[list[str]]:
        found = [path]
        subs = getattr(command, "commands", None) or {}
        for name in sorted(subs):
            found += walk(subs[name], [*path, name])
        return found

    return walk(typer.main.get_command(app), [])


def reference() -> str:
    """The Markdown reference: one section per command, its help as printed at 100 columns."""
    from typer.testing import CliRunner

    from papertrack.cli import app

    runner = CliRunner(env={"COLUMNS": "100", "NO_COLOR": "1"})
    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"  # click measures the terminal before the runner's env applies
    parts = [
        "# Command reference",
        "",
        "Every command's `--help`, as printed at 100 columns. Written by",
        "`python docs/reference.py`; `tests/test_docs.py` fails when this file and the",
        "code differ.",
        "",
    ]
    for path in commands():
        result = runner.invoke(app, [*path, "--help"], prog_name="papertrack")
        name = " ".join(["papertrack", *path])
        text = "\n".join(line.rstrip() for line in result.stdout.strip().splitlines())
        parts += [f"## `{name}`", "", "```", text, "```", ""]
    if saved is None:
        del os.environ["COLUMNS"]
    else:
        os.environ["COLUMNS"] = saved
    return "\n".join(parts)


if __name__ == "__main__":
    (HERE / "reference.md").write_text(reference(), encoding="utf-8")
