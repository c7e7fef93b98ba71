"""The Python API gives what the commands give."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, date, datetime, time
from pathlib import Path

import pytest
from helpers import DATA, LISTING, run

import papertrack
from papertrack.errors import PapertrackError


def test_the_api_answers_as_the_commands_do(isolated_home: Path) -> None:
    store = papertrack.open_store()
    feeds = [LISTING, *sorted((DATA / "api-atom" / "arxiv.py-2026-recorded").glob("*.xml"))]
    report = papertrack.ingest_files(store, [str(f) for f in feeds])
    assert sum(s.new for s in report.sources) == store.count() > 100
    papers = papertrack.latest_papers(store, "LLM Agent Training", limit=5)
    cli = json.loads(run("latest", "llm-agent-training", "-n", "5", "--json").stdout)
    assert [p.arxiv_id for p in papers] == [p["arxiv_id"] for p in cli]
    queried = papertrack.latest_papers(store, query="agent*", limit=50)
    cli = json.loads(run("latest", "--query", "agent*", "-n", "50", "--json").stdout)
    assert [p.arxiv_id for p in queried] == [p["arxiv_id"] for p in cli]
    found = papertrack.search_papers(store, "title:benchmark*", limit=10)
    cli = json.loads(run("search", "title:benchmark*", "--json").stdout)
    assert [p.arxiv_id for p in found] == [p["arxiv_id"] for p in cli][:10]
    measured = papertrack.topic_momentum(store, "gui-agents")
    cli = json.loads(run("momentum", "gui-agents", "--json").stdout)
    assert (measured.current.count, measured.previous.count) == (cli["current"], cli["previous"])
    assert measured.as_of.isoformat() == cli["as_of"]
    answer = papertrack.ask_question(store, "how are agents trained?", topic="llm-agent-training")
    assert answer.sentences and all("llm-agent-training" in c.paper.tags for c in answer.papers)


def test_dates_and_numbers_are_read_or_refused_as_the_commands_would(isolated_home: Path) -> None:
    store = papertrack.open_store()
    papertrack.ingest_files(store, [str(LISTING)])
    measured = papertrack.topic_momentum(store, "gui-agents")
    assert measured.current.count > 0
    # A datetime is its day in UTC, naive or aware; a date is its midnight UTC.
    moment = datetime.combine(measured.as_of, time(12))
    for as_of in (moment, moment.replace(tzinfo=UTC)):
        again = papertrack.topic_momentum(store, "gui-agents", as_of=as_of)
        assert again.as_of == measured.as_of and again.current == measured.current
    newest = max(p.paper_date for p in papertrack.latest_papers(store, limit=1000) if p.paper_date)
    day = newest.date()
    aware = papertrack.latest_papers(store, since=datetime.combine(day, time(), UTC), limit=1000)
    assert aware
    for since in (day, datetime.combine(day, time())):
        assert papertrack.latest_papers(store, since=since, limit=1000) == aware
    for call in (
        lambda: papertrack.topic_momentum(store, "gui-agents", window=0),
        lambda: papertrack.topic_momentum(store, "gui-agents", weeks=-1),
        lambda: papertrack.latest_papers(store, limit=-5),
        lambda: papertrack.latest_papers(store, since="2026-01-01"),  # type: ignore[arg-type]
        lambda: papertrack.search_papers(store, "agent", limit=0),
        lambda: papertrack.ask_question(store, "agents?", papers=0),
    ):
        with pytest.raises(PapertrackError, match="; it must be|not a date"):
            call()


def test_odd_arguments_are_papertracks_errors_naming_the_argument(
    isolated_home: Path, tmp_path: Path
) -> None:
    store = papertrack.open_store()
    papertrack.ingest_files(store, [str(LISTING)])
    for call, message in (
        # Raw ValueError, AttributeError and TypeError from deep inside, before.
        (lambda: papertrack.topic_momentum(store, "gui-agents", as_of=date(1, 1, 1)), "calendar"),
        (lambda: papertrack.topic_momentum(store, "gui-agents", as_of=date(9999, 12, 31)), "9999"),
        (lambda: papertrack.topic_momentum(store, None), "topic is NoneType"),  # type: ignore[arg-type]
        (lambda: papertrack.latest_papers(store, 5), "topic is int"),  # type: ignore[arg-type]
        (lambda: papertrack.search_papers(store, "x", topic=b"gui"), "topic is bytes"),  # type: ignore[arg-type]
        (
            lambda: papertrack.topic_momentum(store, "gui-agents", as_of="2026-03-18"),
            "as_of is str",
        ),  # type: ignore[arg-type]
        (lambda: papertrack.open_store(5), "path is int"),  # type: ignore[arg-type]
        (lambda: papertrack.ask_question(store, "  "), "the question is empty"),
        # A str is iterable: each of its characters was read as a file name.
        (lambda: papertrack.ingest_files(store, str(LISTING)), "not a list"),
    ):
        with pytest.raises(PapertrackError, match=message):
            call()
    assert papertrack.latest_papers(store, limit=1)  # nothing of the store was touched


def test_a_store_path_that_names_nothing_is_an_error_unless_asked_to_create(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As on the command line: a mistyped path answered "no papers" for ever.
    missing = tmp_path / "no-such-store"
    with pytest.raises(PapertrackError, match="no store at .*no-such-store"):
        papertrack.open_store(missing)
    monkeypatch.setenv("PAPERTRACK_DB", str(missing))
    with pytest.raises(PapertrackError, match="no store at"):
        papertrack.open_store()
    assert not missing.exists()
    made = papertrack.open_store(missing, create=True)
    papertrack.ingest_files(made, [LISTING])  # a Path is a source too
    assert papertrack.open_store(missing).count() == made.count() > 0


def test_importing_papertrack_loads_no_api() -> None:
    code = "import sys, papertrack; print('papertrack.api' in sys.modules, papertrack.__version__)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split()[0] == "False"
