"""The bundled sample shows a real topic page, and a store behind today is never shown
as current or as empty: the views measure at its newest paper and say so."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run


@pytest.fixture
def sample(sample_home: Path) -> Path:
    return sample_home


def test_the_sample_lists_dozens_of_real_agent_training_papers(sample: Path) -> None:
    papers = json.loads(run("latest", "llm-agent-training", "--json", "-n", "100").stdout)
    assert len(papers) >= 24
    assert all("llm-agent-training" in p["tags"] for p in papers)
    assert papers[0]["published"] >= "2026-06"  # the sample's last weeks come first


def test_momentum_of_a_store_behind_today_is_shown_as_of_its_newest_paper(sample: Path) -> None:
    result = run("momentum", "llm-agent-training", "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["as_of"] == "2026-06-26"  # the newest paper of the sample, not today
    assert data["current"] > 10 and data["previous"] > 10 and data["change_pct"] is not None
    weeks = [w for w in data["weeks"] if w["count"]]
    assert len(weeks) == 12  # a real chart: every week of the sample has papers
    assert "newest paper in the store is from Jun 26, 2026" in result.stderr
    assert "--as-of" in result.stderr
    chosen = run("momentum", "llm-agent-training", "--json", "--as-of", "2026-05-31")
    assert json.loads(chosen.stdout)["as_of"] == "2026-05-31" and chosen.stderr == ""


def test_trending_and_the_topic_page_show_the_sample_with_a_note(sample: Path) -> None:
    trending = run("trending", "--json")
    rows = json.loads(trending.stdout)
    assert rows and all(r["as_of"] == "2026-06-26" for r in rows)
    assert any(r["current"] > 0 for r in rows)
    assert "newest paper in the store" in trending.stderr
    page = run("topic", "llm-agent-training", "-n", "3")
    assert page.exit_code == 0
    assert "Momentum as of Jun 26, 2026" in page.stdout and "no data" not in page.stdout
    assert "papers in the last four weeks" in page.stdout


def test_a_digest_of_a_store_whose_fetch_stopped_says_so(sample: Path) -> None:
    assert run("follow", "llm-agent-training").exit_code == 0
    result = run("digest", "--since", "2026-06-20", "-q")
    assert result.exit_code == 0
    assert "Warning: the newest paper in the store is from 2026-06-26" in result.stderr
    assert "Fetch new papers with 'papertrack fetch'" in result.stderr


def test_an_empty_digest_of_a_store_that_is_behind_says_how_to_see_its_last_week(
    sample: Path,
) -> None:
    """The first digest of the sample (or of a store whose fetch stopped) counts from
    today and printed nothing but the warning: where `latest` counts back from the
    newest paper, nothing said how to see its papers."""
    assert run("follow", "gui-agents").exit_code == 0
    empty = run("digest", "--dry-run")
    assert empty.exit_code == 0 and empty.stdout == ""
    note = next(line for line in empty.stderr.splitlines() if line.startswith("Note:"))
    assert "'papertrack digest --since 2026-06-20 --dry-run' shows the store's last week" in note
    shown = run(*shlex.split(note.split("'")[1])[1:])
    assert shown.exit_code == 0 and "GUI Agents" in shown.stdout
    assert "Note: nothing is dated" not in shown.stderr
    # -q: warnings only (the stale store's), not this note.
    assert "Note:" not in run("digest", "--dry-run", "-q").stderr


def test_a_terminal_that_cannot_show_unicode_gets_replacements_not_a_traceback(
    sample: Path,
) -> None:
    import os

    from tests.helpers import run_in_pty

    env = {**os.environ, "PYTHONIOENCODING": "ascii", "PAPERTRACK_HOME": str(sample)}
    for args in (["latest", "llm-agent-training", "-n", "5"], ["momentum", "llm-agent-training"]):
        code, seen = run_in_pty(*args, env=env, columns=120)
        assert code == 0, seen
        assert b"Traceback" not in seen
        assert b"LLM Agent Training" in seen
        assert seen.isascii()  # what the terminal cannot show is replaced


def test_data_into_a_pipe_is_utf8_whatever_the_locale(sample: Path) -> None:
    """JSON and CSV into a pipe or file are data: written in UTF-8 even where Python's
    own encoding is ASCII, so no name reaches jq or a file as "Jim?nez"."""
    import os
    import subprocess
    import sys

    from tests.helpers import run

    env = {**os.environ, "PYTHONIOENCODING": "ascii", "PAPERTRACK_HOME": str(sample)}
    expected = run("latest", "-n", "300", "--json").stdout
    names = {a for p in json.loads(expected) for a in p["authors"] if not a.isascii()}
    assert names  # the sample has names like that

    def piped(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "papertrack", *args],
            env=env,
            capture_output=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.decode("utf-8")

    assert json.loads(piped("latest", "-n", "300", "--json")) == json.loads(expected)
    csv_out = piped("latest", "-n", "300", "-f", "csv")
    assert all(name in csv_out for name in names)


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "json"])
def test_a_reader_that_stops_early_is_no_error(sample: Path, fmt: str) -> None:
    """`papertrack latest -f csv | head -1` under `set -o pipefail`: the reader chose to
    stop, so papertrack ends quietly with 0, in every format."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "PAPERTRACK_HOME": str(sample)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "papertrack", "latest", "-n", "5000", "-f", fmt],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline()
    proc.stdout.close()  # as head does after its line
    stderr = proc.stderr.read()
    assert proc.wait(timeout=60) == 0, stderr
    assert b"Traceback" not in stderr and b"Error" not in stderr


def papertrack_into(stdout: Any, home: Path, command: list[str]) -> Any:
    """papertrack run in a process of its own with ``stdout`` as its standard output."""
    import os
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "papertrack", *command],
        env={**os.environ, "PAPERTRACK_HOME": str(home)},
        stdout=stdout,
        stderr=subprocess.PIPE,
        timeout=120,
    )


@pytest.mark.parametrize("command", [["latest", "-n", "3"], ["momentum", "gui-agents"]])
def test_a_table_into_a_pipe_closed_before_it_is_written_is_no_error(
    sample: Path, command: list[str]
) -> None:
    """`papertrack momentum gui-agents 2>&1 | head -1`: the note fills head's line, head
    exits, and the table met a closed pipe: Rich's own handling ended with exit 1."""
    import os

    read, write = os.pipe()
    os.close(read)  # the reader is gone before anything is written
    try:
        done = papertrack_into(write, sample, command)
    finally:
        os.close(write)
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr and b"Error" not in done.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("command", [["latest", "--json"], ["latest"], ["export", "-f", "csv"]])
def test_output_onto_a_full_disk_is_an_error_not_a_bug(sample: Path, command: list[str]) -> None:
    with open("/dev/full", "wb") as full:
        done = papertrack_into(full, sample, command)
    assert done.returncode == 1
    lines = done.stderr.decode().splitlines()
    assert lines[-1] == (
        "Error: could not write the output: No space left on device. "
        "Free some space, or write it elsewhere."
    )
    assert "bug" not in done.stderr.decode()


def test_show_of_a_version_not_stored_says_which_one_it_shows(sample: Path) -> None:
    from tests.helpers import run

    paper = next(p for p in json.loads(run("latest", "-n", "50", "--json").stdout) if p["version"])
    pid, version = paper["arxiv_id"], paper["version"]
    same = run("show", f"{pid}v{version}", "--json")
    assert same.exit_code == 0 and "Note" not in same.stderr
    other = run("show", f"{pid}v{version + 1}", "--json")
    assert other.exit_code == 0
    assert json.loads(other.stdout)["version"] == version
    assert f"Note: {pid}v{version + 1} is not stored; showing the stored version (v{version})" in (
        other.stderr
    )
    assert f"Ingest a feed that lists v{version + 1} to store it." in other.stderr
    # An older version: no ingest brings it back over the newer one, so none is advised.
    older = next(
        p
        for p in json.loads(run("latest", "-n", "10000", "--json").stdout)
        if (p["version"] or 0) > 1
    )
    before = run("show", f"{older['arxiv_id']}v1")
    assert before.exit_code == 0
    assert f"showing the stored version (v{older['version']})" in before.stderr
    assert "The store keeps a paper's newest version." in before.stderr
    assert "Ingest a feed" not in before.stderr
    # As people copy it too: the HTML view's link names the version as well.
    html = run("show", f"https://arxiv.org/html/{pid}v{version + 1}", "--json")
    assert f"Note: {pid}v{version + 1} is not stored" in html.stderr
