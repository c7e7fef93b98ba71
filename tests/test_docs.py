"""The docs follow the code: the command reference is the commands' own --help, every
command is in the README, and nothing in the repository cites a file outside it."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import pytest

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
    for name in ("topics", "momentum", "digests", "site", "fetching", "feeds", "output", "store"):
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


def _examples() -> list[list[str]]:
    """Every example command line of every --help, as argument lists (pipes and redirects cut)."""
    import shlex

    from typer.testing import CliRunner

    from papertrack.cli import app

    spec = importlib.util.spec_from_file_location("reference", ROOT / "docs" / "reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found: list[list[str]] = []
    for path in module.commands():
        text = CliRunner().invoke(app, [*path, "--help"]).stdout
        if "Examples:" not in text:
            continue
        block = text.split("Examples:", 1)[1].split("Exit codes:", 1)[0]
        joined = block.replace("\\\n", " ")
        for line in joined.splitlines():
            try:
                words = shlex.split(line.strip(), comments=False)
            except ValueError:  # prose with an apostrophe, not a command line
                continue
            if not words or words[0] != "papertrack":
                continue
            for cut in ("|", ">", ">>"):
                if cut in words:
                    words = words[: words.index(cut)]
            found.append(words[1:])
    # An example shown in a group's help and a command's is run once.
    return [list(words) for words in dict.fromkeys(map(tuple, found))]


def test_every_example_in_every_help_runs(
    sample_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.helpers import no_traceback, run

    monkeypatch.chdir(tmp_path)  # files the examples write land here, not in the checkout

    assert run("follow", "llm-agent-training").exit_code == 0  # what digest's examples assume
    examples = _examples()
    assert len(examples) >= 30
    ran = 0
    failures: list[tuple[list[str], str]] = []
    for args in examples:
        if args[0] == "fetch":
            continue  # needs arXiv: tested against local servers in test_fetch.py
        result = run(*args)
        no_traceback(result)
        # Exit 2 is a usage error: an example that does not run as written. So is
        # one naming a paper the sample lacks ("no paper 2606.17952 in the store").
        if result.exit_code == 2 or "Error: no paper " in result.stderr:
            failures.append((args, result.stderr.strip()))
        ran += 1
    assert failures == []
    assert ran >= 25


@pytest.mark.parametrize("name", ["README.md", "docs/topics.md", "docs/digests.md"])
def test_the_docs_sessions_show_what_the_sample_prints(name: str) -> None:
    """README's Quick start, the console blocks of docs/topics.md and the ask example of
    docs/digests.md are real runs on the bundled sample, command by command in one
    fresh data home (docs/examples.py)."""
    spec = importlib.util.spec_from_file_location("examples", ROOT / "docs" / "examples.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    written = (ROOT / name).read_text(encoding="utf-8")
    assert module.render(name) == written, "run: python docs/examples.py"


def test_the_readmes_python_example_runs_on_a_store_with_an_undated_paper(
    sample_home: Path, tmp_path: Path
) -> None:
    """Its loop called paper.paper_date.date(), which an undated paper (a plain RSS
    item) broke; every line must run as written, on the sample store."""
    import os
    import sys

    from helpers import run

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## From Python") :]
    code = section[section.index("```python\n") + 10 :]
    code = code[: code.index("```")]
    undated = tmp_path / "undated.xml"
    undated.write_text(
        '<?xml version="1.0"?><rss version="2.0"><channel><title>x</title>'
        "<item><title>Training LLM agents with reinforcement learning for tool use</title>"
        "<link>https://example.org/a</link><guid>example-undated-1</guid>"
        "<description>We train large language model agents with reinforcement learning "
        "to use tools over many turns.</description></item></channel></rss>",
        encoding="utf-8",
    )
    assert run("ingest", str(undated)).exit_code == 0
    script = tmp_path / "example.py"
    # The loop as far as the undated paper: every paper the topic has.
    script.write_text(code.replace("limit=5", "limit=10_000", 1), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)],
        env={**os.environ, "PAPERTRACK_HOME": str(sample_home)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and '"answer"' in done.stdout
