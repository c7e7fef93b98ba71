"""The Python API gives what the commands give."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from helpers import DATA, LISTING, run

import papertrack


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


def test_importing_papertrack_loads_no_api() -> None:
    code = "import sys, papertrack; print('papertrack.api' in sys.modules, papertrack.__version__)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split()[0] == "False"
