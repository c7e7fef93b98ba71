"""The docs follow the code: the command reference is the commands' own --help, every
command is in the README, and nothing in the repository cites a file outside it."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_command_reference_is_the_commands_own_help() -> None:
    spec = importlib.util.spec_from_file_location("reference", ROOT / "docs" / "reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    written = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")
    assert module.reference() == written, "run: python docs/reference.py"


def test_every_doc_the_readme_links_exists() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in ("topics", "momentum", "digests", "fetching", "feeds", "output", "store"):
        assert f"(docs/{name}.md)" in readme
        assert (ROOT / "docs" / f"{name}.md").is_file()


def test_nothing_in_the_repository_cites_a_file_outside_it() -> None:
    tracked = subprocess.run(
        ["git", "ls-files", "papertrack", "tests", "docs", "README.md", "data"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if tracked.returncode != 0:  # not a git checkout (an sdist): nothing to check
        return
    outside = ["../" + "shared", "shared/" + "docs/"]
    for name in tracked.stdout.split():
        path = ROOT / name
        if path.suffix not in (".py", ".md", ".toml"):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        assert not any(needle in text for needle in outside), name
