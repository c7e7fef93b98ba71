"""Run the console examples of the docs on the bundled sample and write what they print.

README.md's Quick start, every ```console block of docs/topics.md and the ask
example of docs/digests.md show real sessions: each ``$ papertrack ...`` line is
run, in order, in one fresh data home that first ingested the bundled sample,
and the lines after it are what it printed (stderr first, as a terminal shows a
warning before the output; the data home's path written as "…"). A command shown
without output is run but not written; one with a pipe or redirect is not run. A
test keeps the docs equal to what this writes:

python docs/examples.py
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: Each file, and the part of it whose console blocks are sessions (None: all of it).
DOCS = {
    "README.md": "## Quick start",
    "docs/topics.md": None,
    "docs/digests.md": "### Ask about a topic",
}
#: The width a command gets unless its line sets COLUMNS, as a pipe gives Rich.
COLUMNS = "80"
_BLOCK = re.compile(r"(```console\n)(.*?)(\n```)", re.S)


def _blocks(text: str, section: str | None) -> list[re.Match[str]]:
    if section is None:
        return list(_BLOCK.finditer(text))
    start = text.index(section)
    end = text.find("\n## ", start + len(section))
    return list(_BLOCK.finditer(text, start, end if end >= 0 else len(text)))[:1]


def _run(command: str, home: Path) -> list[str] | None:
    """What ``command`` (a ``papertrack ...`` line, maybe with VAR=value first) prints."""
    if any(mark in command for mark in ("|", ">", "<")):
        return None
    words = shlex.split(command)
    env = {**os.environ, "PAPERTRACK_HOME": str(home), "NO_COLOR": "1", "COLUMNS": COLUMNS}
    while words and "=" in words[0] and not words[0].startswith("-"):
        name, _, value = words.pop(0).partition("=")
        env[name] = value
    if not words or words[0] != "papertrack":
        raise SystemExit(f"not a papertrack command: {command}")
    for name in ("PAPERTRACK_DB", "PAPERTRACK_WORKERS", "FORCE_COLOR"):
        env.pop(name, None)
    done = subprocess.run(
        [sys.executable, "-m", "papertrack", *words[1:]],
        env=env,
        cwd=home.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    printed = (done.stderr + done.stdout).replace(str(home), "…").rstrip("\n")
    return [line.rstrip() for line in printed.split("\n")]


def _session(body: str, home: Path) -> str:
    """``body`` (a console block) with each command's shown output replaced by a fresh run."""
    segments: list[list[str]] = []
    for line in body.split("\n"):
        if line.startswith("$ ") or not segments:
            segments.append([line])
        else:
            segments[-1].append(line)
    written: list[str] = []
    for segment in segments:
        command, shown = segment[0], segment[1:]
        printed = _run(command[2:], home) if command.startswith("$ ") else None
        if printed is not None and any(line.strip() for line in shown):
            # The blank lines that part this output from the next command stay.
            blank = len(shown) - len("\n".join(shown).rstrip("\n").split("\n"))
            written += [command, *printed, *[""] * blank]
        else:
            written += segment
    return "\n".join(written)


def render(name: str) -> str:
    """``name`` (a key of :data:`DOCS`) as it reads with every session run afresh."""
    text = (ROOT / name).read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="papertrack-docs-") as tmp:
        home = Path(tmp) / "home"
        blocks = _blocks(text, DOCS[name])
        if not blocks or not blocks[0].group(2).startswith("$ papertrack ingest --sample\n"):
            _run("papertrack ingest --sample", home)
        parts: list[str] = []
        at = 0
        for match in blocks:
            parts += [text[at : match.start(2)], _session(match.group(2), home)]
            at = match.end(2)
        parts.append(text[at:])
    return "".join(parts)


def main() -> None:
    for name in DOCS:
        path = ROOT / name
        new = render(name)
        if new != path.read_text(encoding="utf-8"):
            path.write_text(new, encoding="utf-8")
            print(f"wrote {name}")


if __name__ == "__main__":
    main()
