"""Slow commands show a spinner on stderr at a terminal, and nothing when piped."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.helpers import LISTING, run, run_in_pty

# Rich's default spinner ("dots") draws braille cells; any escape sequence counts too.
SPINNER = re.compile("[\u2800-\u28ff]|\x1b")

COMMANDS = [
    (("search", "agent"), "Searching the store"),
    (("topics", "test", "agent*"), "Trying Query on every stored paper"),
    (("doctor",), "Checking the store"),
    (("export", "-f", "jsonl", "-o", "{tmp}/out.jsonl"), "Exporting"),
]


@pytest.fixture
def store(isolated_home: Path) -> dict[str, str]:
    assert run("ingest", str(LISTING)).exit_code == 0
    return {**os.environ, "PAPERTRACK_HOME": str(isolated_home)}


@pytest.mark.parametrize(("args", "label"), COMMANDS)
def test_piped_output_has_no_spinner(
    args: tuple[str, ...], label: str, store: dict[str, str], tmp_path: Path
) -> None:
    result = run(*(a.format(tmp=tmp_path) for a in args))
    assert result.exit_code == 0, result.stderr
    assert label not in result.stderr
    assert not SPINNER.search(result.stderr), repr(result.stderr)


@pytest.mark.parametrize(("args", "label"), COMMANDS)
def test_a_terminal_sees_a_spinner(
    args: tuple[str, ...], label: str, store: dict[str, str], tmp_path: Path
) -> None:
    code, seen = run_in_pty(*(a.format(tmp=tmp_path) for a in args), env=store)
    text = seen.decode("utf-8", "replace")
    assert code == 0, text
    assert label + "…" in text
    assert re.search("[\u2800-\u28ff] " + re.escape(label), text), text[:300]


def test_a_retag_shows_a_spinner_at_a_terminal_only(store: dict[str, str]) -> None:
    # A topic added by the user: every stored paper is tagged with it at once.
    code, seen = run_in_pty("topics", "add", "Zebras", "--query", "zebra*", env=store)
    text = seen.decode("utf-8", "replace")
    assert code == 0, text
    assert "Retagging stored papers for the changed topics…" in text
    piped = run("topics", "add", "Zebras too", "--query", "zebra*")
    assert piped.exit_code == 0, piped.stderr
    assert "Retagging" not in piped.stderr and not SPINNER.search(piped.stderr)


def test_a_store_without_its_index_and_with_a_changed_topic_says_each_step(
    store: dict[str, str], isolated_home: Path
) -> None:
    """Both at once (a store from an older papertrack): the index was built under the
    retag's spinner, which counted its papers as week files ("week file 2,001 of
    83,510"). It is built first, under its own."""
    from papertrack.store import Store

    stored = Store(isolated_home / "store")
    stored.search_path.unlink()
    (isolated_home / "topics.toml").write_text(
        '[[topic]]\nname = "Zebras"\nquery = "zebra*"\n', encoding="utf-8"
    )
    code, seen = run_in_pty("latest", "-n", "1", env=store)
    text = seen.decode("utf-8", "replace")
    assert code == 0, text
    built = text.find("Building the search index (once)…")
    retagged = text.find("Retagging stored papers for the changed topics…")
    assert 0 <= built < retagged, text[:400]
    weeks = len(stored.weeks())
    for shown in re.findall(r"week file [\d,]+ of ([\d,]+)", text):
        assert int(shown.replace(",", "")) == weeks


def test_a_topics_paper_lines_fit_a_narrow_terminal(store: dict[str, str]) -> None:
    """At 50 columns every line of a teach or add report wrapped mid-word: titles were
    cut at 70 characters whatever the terminal's width."""
    code, seen = run_in_pty("topics", "add", "Zebras", "--query", "agent*", env=store, columns=60)
    text = SPINNER.sub("", seen.decode("utf-8", "replace"))
    assert code == 0, text
    lines = [line for line in text.replace("\r", "").split("\n") if line.startswith("  25")]
    assert lines, text
    assert all(len(line) <= 60 for line in lines), lines
    assert any(line.endswith("…") for line in lines)  # titles cut to fit, not wrapped
