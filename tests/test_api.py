"""The Python API gives what the commands give."""

from __future__ import annotations

import email.utils
import json
import os
import subprocess
import sys
import warnings
from datetime import UTC, date, datetime, time, timedelta, timezone
from pathlib import Path

import pytest
from helpers import DATA, LISTING, kaggle_line, run

import papertrack
from papertrack.errors import PapertrackError


def test_the_api_answers_as_the_commands_do(isolated_home: Path) -> None:
    store = papertrack.open_store()
    feeds = [LISTING, *sorted((DATA / "api-atom" / "arxiv.py-2026-recorded").glob("*.xml"))]
    # One of the recorded pages is arXiv's error feed: said in the report, not raised.
    report = papertrack.ingest_files(store, [str(f) for f in feeds], strict=False)
    assert [s.error for s in report.failed] == [
        "arXiv API error: incorrect id format for abc. Check the query or id list."
    ]
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


def test_an_unknown_topic_error_carries_no_terminal_escapes(isolated_home: Path) -> None:
    store = papertrack.open_store(create=True)
    papertrack.ingest_files(store, [LISTING])
    with pytest.raises(PapertrackError) as caught:
        papertrack.latest_papers(store, "\x1b[2J\x1b[31mfoo")
    assert "\x1b" not in str(caught.value) and "'foo'" in str(caught.value)


def test_ask_question_answers_people_news_and_fields_as_ask_does(sample_home: Path) -> None:
    """The API answered "who works on GUI agents?" with quoted sentences where the
    command named the authors, "what is new in GUI agents?" from papers nine months
    old, and read "author:" as a word."""
    store = papertrack.open_store()
    questions = [
        ("who works on GUI agents?", None),
        ("what is new in GUI agents?", None),
        ("author:lecun world models", None),
        ("how are they evaluated?", "gui-agents"),
        ("who works on this?", "gui-agents"),
    ]
    for question, topic in questions:
        answer = papertrack.ask_question(store, question, topic=topic).to_dict()
        args = ["ask", *([topic] if topic else []), question, "--json"]
        cli = json.loads(run(*args).stdout)
        assert answer == cli, question
    who = papertrack.ask_question(store, "who works on GUI agents?")
    assert who.who and who.people
    new = papertrack.ask_question(store, "what is new in GUI agents?")
    newest = store.newest_day()
    assert newest is not None and new.considered
    assert all(
        r.paper.paper_date is not None and (newest - r.paper.paper_date.date()).days < 28
        for r in new.considered
    )


def test_ask_question_refuses_what_ask_refuses(sample_home: Path) -> None:
    """ "?", "who?" and "what is new?" gave a script an empty answer, where the command
    says what to ask instead."""
    store = papertrack.open_store()
    for question in ("?", "who?", "what is new?", "the of and", "who works?"):
        refused = run("ask", question)
        assert refused.exit_code == 2, question
        with pytest.raises(PapertrackError) as caught:
            papertrack.ask_question(store, question)
        assert f"Error: {caught.value}." in refused.stderr, question
    # Of a topic, "who?" and "what is new?" are questions its papers answer.
    assert papertrack.ask_question(store, "what is new?", topic="gui-agents").considered


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
        # As on the command line: 100,000 weeks took 30 s and reached back to year 109.
        (lambda: papertrack.topic_momentum(store, "gui-agents", weeks=100_000), "Use 2,000"),
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


def test_the_api_opens_a_store_as_the_commands_do(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAPERTRACK_LOCK_TIMEOUT", "5")
    assert papertrack.open_store(create=True).lock_timeout == 5
    monkeypatch.setenv("PAPERTRACK_LOCK_TIMEOUT", "soon")
    said = "PAPERTRACK_LOCK_TIMEOUT='soon' is not a number of seconds"
    with pytest.raises(PapertrackError, match=said):
        papertrack.open_store(create=True)
    assert said in run("latest").stderr
    monkeypatch.delenv("PAPERTRACK_LOCK_TIMEOUT")
    # A file where a folder of the path should be: said, not an error from the system.
    (tmp_path / "afile").write_text("x")
    under = tmp_path / "afile" / "store"
    with pytest.raises(PapertrackError, match="afile is a file, not a directory"):
        papertrack.open_store(under, create=True)
    assert "afile is a file, not a directory" in run("--db", str(under), "latest").stderr


def test_importing_papertrack_loads_no_api() -> None:
    code = "import sys, papertrack; print('papertrack.api' in sys.modules, papertrack.__version__)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split()[0] == "False"


def _dated(tmp_path: Path, *days: date) -> Path:
    """A snapshot of one GUI-agent paper submitted on each of ``days``."""
    lines = []
    for number, day in enumerate(days, 1):
        moment = datetime.combine(day, time(10), UTC)
        lines.append(
            kaggle_line(
                f"2601.{number:05d}",
                f"GUI agents for mobile apps, part {number}",
                abstract="We train a GUI agent with a vision language model to operate apps.",
                versions=[{"version": "v1", "created": email.utils.format_datetime(moment)}],
            )
        )
    path = tmp_path / "dated.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_momentum_is_measured_as_of_the_day_the_command_measures(
    isolated_home: Path, tmp_path: Path
) -> None:
    """A store fetched a few days ago is current: the command measures as of today,
    and the API measured as of its newest paper, so a weekly script said -28% where
    the terminal said -35% of the same store."""
    today = datetime.now(UTC).date()
    store = papertrack.open_store(create=True)
    papertrack.ingest_files(
        store, [_dated(tmp_path, today - timedelta(days=3), today - timedelta(days=30))]
    )
    measured = papertrack.topic_momentum(store, "gui-agents")
    cli = json.loads(run("momentum", "gui-agents", "--json").stdout)
    assert measured.as_of.isoformat() == cli["as_of"] == today.isoformat()
    assert (measured.current.count, measured.previous.count) == (cli["current"], cli["previous"])


def test_a_datetime_since_counts_from_the_start_of_its_day_as_since_does(
    isolated_home: Path, tmp_path: Path
) -> None:
    day = date(2026, 3, 10)
    store = papertrack.open_store(create=True)
    papertrack.ingest_files(store, [_dated(tmp_path, day, day - timedelta(days=1))])
    noon = datetime.combine(day, time(12))
    api = [p.arxiv_id for p in papertrack.latest_papers(store, since=noon, limit=10)]
    cli = json.loads(run("latest", "--since", "2026-03-10 12:00", "--json").stdout)
    assert api == [p["arxiv_id"] for p in cli] == ["2601.00001"]


def test_a_store_path_is_read_as_db_reads_it(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "me"))
    monkeypatch.chdir(tmp_path)
    made = papertrack.open_store("~/papers", create=True)
    papertrack.ingest_files(made, [LISTING])
    assert (tmp_path / "me" / "papers").is_dir() and not (tmp_path / "~").exists()
    assert papertrack.open_store("~/papers").count() == made.count() > 0
    # "" (an unset variable) is the default store, as an empty PAPERTRACK_DB is, not the
    # current folder.
    assert papertrack.open_store("").path == papertrack.open_store().path != Path(".")


def test_a_store_it_cannot_write_is_read_with_its_tags_and_a_warning(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every read of a shared or read-only store whose tags predate the user's
    topics failed on the store's lock, where the command reads it with a note."""
    import papertrack.store

    store = papertrack.open_store(create=True)
    papertrack.ingest_files(store, [LISTING])
    shown = [p.arxiv_id for p in papertrack.latest_papers(store, limit=5)]
    (isolated_home / "topics.toml").write_text(
        '[[topic]]\nname = "Zebras"\nquery = "zebra*"\n', encoding="utf-8"
    )
    files = {p: p.read_bytes() for p in store.path.rglob("*") if p.is_file()}
    monkeypatch.setattr(papertrack.store.os, "access", lambda path, mode: False)
    with pytest.warns(UserWarning, match="is read-only, so its papers keep the tags.*zebras") as w:
        again = [p.arxiv_id for p in papertrack.latest_papers(store, limit=5)]
    assert again == shown
    # At this line, not at one of api.py's (a filter by module missed it).
    assert [Path(x.filename) for x in w if "read-only" in str(x.message)] == [Path(__file__)]
    with pytest.warns(UserWarning, match="is read-only") as w:
        papertrack.trending_topics(store)
    assert [Path(x.filename) for x in w if "read-only" in str(x.message)] == [Path(__file__)]
    assert {p: p.read_bytes() for p in store.path.rglob("*") if p.is_file()} == files


def test_the_api_takes_topics_numpy_numbers_and_refuses_what_is_no_store(
    isolated_home: Path, tmp_path: Path
) -> None:
    import numpy as np

    store = papertrack.open_store(create=True)
    papertrack.ingest_files(store, [LISTING])
    topic = papertrack.load_catalog().find("gui-agents")
    by_topic = papertrack.latest_papers(store, topic, limit=np.int64(3))
    assert by_topic == papertrack.latest_papers(store, "gui-agents", limit=3)
    for call, message in (
        (lambda: papertrack.latest_papers(str(store.path)), "store is str, not a Store"),  # type: ignore[arg-type]
        (lambda: papertrack.search_papers(store, None), "query is NoneType"),  # type: ignore[arg-type]
        (lambda: papertrack.latest_papers(store, query=5), "query is int"),  # type: ignore[arg-type]
        (lambda: papertrack.ingest_files(store, [5]), "a source is int"),  # type: ignore[list-item]
    ):
        with pytest.raises(PapertrackError, match=message):
            call()


def test_a_source_that_cannot_be_read_raises_after_the_others_are_stored(
    isolated_home: Path, tmp_path: Path
) -> None:
    from papertrack.errors import SourcesFailed

    store = papertrack.open_store(create=True)
    missing = tmp_path / "listing.xml"
    with pytest.raises(SourcesFailed, match="no such file.*listing.xml") as raised:
        papertrack.ingest_files(store, [missing, LISTING])
    report = raised.value.report
    assert [bool(s.error) for s in report.sources] == [True, False]
    assert store.count() == report.sources[1].new > 0
    quiet = papertrack.ingest_files(store, [os.fsencode(missing)], strict=False)
    assert quiet.failed and "no such file" in (quiet.failed[0].error or "")


def test_the_package_shows_and_types_its_api() -> None:
    code = (
        "import sys, papertrack; print(sorted(dir(papertrack)));"
        "print('papertrack.api' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    listed, loaded = done.stdout.splitlines()
    assert "latest_papers" in listed and "PapertrackError" in listed and "Any" not in listed
    assert loaded == "False"  # dir() lists without importing
    assert papertrack.PapertrackError is PapertrackError
    code = "import papertrack as p; print(p.api.__name__, p.errors.SourcesFailed.__name__)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["papertrack.api", "SourcesFailed"]  # as README names them
    assert (Path(papertrack.__file__).parent / "py.typed").is_file()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert callable(papertrack.topic_momentum)


def test_what_the_commands_filter_by_the_api_does_too(isolated_home: Path) -> None:
    """-c, search --since and show had no counterpart: a script read every paper."""
    store = papertrack.open_store(create=True)
    papertrack.ingest_files(store, [LISTING])
    cli = json.loads(run("latest", "-c", "cs.CL", "-c", "stat.*", "-n", "500", "--json").stdout)
    api = papertrack.latest_papers(store, category=["cs.CL", "stat.*"], limit=500)
    assert [p.arxiv_id for p in api] == [p["arxiv_id"] for p in cli] != []
    one = papertrack.latest_papers(store, category="cs.CL", limit=500)
    assert all("cs.CL" in p.categories for p in one) and len(one) <= len(api)
    with pytest.raises(PapertrackError, match="no such category 'cs.XX'"):
        papertrack.latest_papers(store, category="cs.XX")
    day = papertrack.latest_papers(store, limit=1)[0].paper_date
    assert day is not None
    found = papertrack.search_papers(store, "agent*", since=day.date(), limit=500)
    cli = json.loads(
        run("search", "agent*", "--since", day.date().isoformat(), "-n", "500", "--json").stdout
    )
    assert [p.arxiv_id for p in found] == [p["arxiv_id"] for p in cli][:500] != []
    paper = found[0]
    for form in (
        paper.arxiv_id,
        f"arXiv:{paper.arxiv_id}",
        f"https://arxiv.org/abs/{paper.arxiv_id}v1",
    ):
        assert papertrack.get_paper(store, form) == paper
    assert papertrack.get_paper(store, "2601.99999") is None
    with pytest.raises(PapertrackError, match="is not an arXiv id"):
        papertrack.get_paper(store, "not an id")
    # A version the store does not hold: the stored one, with the note `show` gives
    # (it was returned without a word).
    stored = f"v{paper.version}" if paper.version else "no version named"
    with pytest.warns(UserWarning, match=rf"{paper.arxiv_id}v9 is not stored; returning"):
        assert papertrack.get_paper(store, f"{paper.arxiv_id}v9") == paper
    shown = run("show", f"{paper.arxiv_id}v9")
    assert f"is not stored; showing the stored version ({stored})." in shown.stderr


def test_trending_ranks_every_topic_as_the_command_does(isolated_home: Path) -> None:
    store = papertrack.open_store(create=True)
    papertrack.ingest_files(store, [LISTING])
    day = papertrack.latest_papers(store, limit=1)[0].paper_date
    assert day is not None
    ranked = papertrack.trending_topics(store, as_of=day.date())
    cli = json.loads(run("trending", "--as-of", day.date().isoformat(), "--json").stdout)
    assert [m.topic for m in ranked] == [r["topic"] for r in cli]
    assert [m.change_pct for m in ranked] == [r["change_pct"] for r in cli]
    assert ranked[0].as_of == day.date()
    with pytest.raises(PapertrackError, match="window is 0"):
        papertrack.trending_topics(store, window=0)


def test_the_api_reads_the_topics_a_user_taught_as_the_commands_do(isolated_home: Path) -> None:
    store = papertrack.open_store(create=True)
    papertrack.ingest_files(store, [LISTING])
    # A paper gui-agents leaves out, taught in: the taught model decides after.
    outside = next(
        p.arxiv_id
        for p in papertrack.latest_papers(store, limit=1000)
        if "gui-agents" not in p.tags
    )
    assert run("topics", "teach", "gui-agents", outside).exit_code == 0
    cli = [p["arxiv_id"] for p in json.loads(run("latest", "gui-agents", "--json").stdout)]
    assert outside in cli
    files = {p: p.read_bytes() for p in store.path.rglob("*") if p.is_file()}
    api = [p.arxiv_id for p in papertrack.latest_papers(store, "gui-agents", limit=1000)]
    assert api == cli
    # Read as the commands read it, the store needed no retag: nothing was rewritten.
    assert {p: p.read_bytes() for p in store.path.rglob("*") if p.is_file()} == files


def test_the_api_refuses_a_window_before_it_retags_and_warns_at_the_callers_line(
    isolated_home: Path,
) -> None:
    store = papertrack.open_store(create=True)
    papertrack.ingest_files(store, [LISTING])
    # A topics.toml edit that changes what is tagged: the next call retags.
    (isolated_home / "topics.toml").write_text(
        '[[topic]]\nname = "Zebras"\nquery = "zebra"\n\n[[topic]]\nname = "Broken"\n',
        encoding="utf-8",
    )
    index = store.index_path.read_bytes()
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        with pytest.raises(PapertrackError, match="weeks is 2,001, more weeks than arXiv"):
            papertrack.trending_topics(store, weeks=2001)
    assert store.index_path.read_bytes() == index  # refused before anything was written
    assert said and all(Path(w.filename) == Path(__file__) for w in said), [
        (w.filename, str(w.message)) for w in said
    ]
    assert any("Broken" in str(w.message) for w in said)


def test_ingest_files_stores_papers_when_the_topics_file_cannot_be_read(
    isolated_home: Path,
) -> None:
    """As `papertrack ingest` does: the papers are stored with the defaults' tags and
    a warning; the readers stop until the file is fixed, then retag."""
    store = papertrack.open_store(create=True)
    topics = isolated_home / "topics.toml"
    topics.parent.mkdir(parents=True, exist_ok=True)
    topics.write_text('[[topic]]\nname = "Zebras"\nquery = "zebra*"\n')
    papertrack.ingest_files(store, [str(LISTING)])
    stored = store.count()
    topics.write_bytes(b'[[topic]]\nname = "Zebras"\nquery = "zebra*\n')
    new = isolated_home.parent / "new.jsonl"
    new.write_text(kaggle_line("2608.00001", "Zebra crossings for robots") + "\n")
    with pytest.warns(UserWarning, match="is not valid TOML.*default topics' tags"):
        papertrack.ingest_files(store, [str(new)])
    assert store.count() == stored + 1
    with pytest.raises(PapertrackError, match="is not valid TOML"):
        papertrack.latest_papers(store, "zebras")
    topics.write_text('[[topic]]\nname = "Zebras"\nquery = "zebra* OR sorting"\n')
    assert [p.arxiv_id for p in papertrack.latest_papers(store, "zebras")] == ["2608.00001"]
    assert store.index().fingerprints == papertrack.load_catalog().fingerprints()


def test_bad_arguments_are_refused_before_a_retag_and_the_retag_is_logged(
    isolated_home: Path,
) -> None:
    """search_papers('(') and ask_question('?') retagged the store (or waited for a
    writer's lock) before their own error; a retag the API ran went to no log, where
    the commands log what it moved."""
    store = papertrack.open_store(create=True)
    papertrack.ingest_files(store, [LISTING])
    (isolated_home / "topics.toml").write_text(
        '[[topic]]\nname = "Zebras"\nquery = "agent*"\n', encoding="utf-8"
    )
    index = store.index_path.read_bytes()
    log = isolated_home / "papertrack.log"
    before = log.read_text(encoding="utf-8") if log.exists() else ""
    for call in (
        lambda: papertrack.search_papers(store, "("),
        lambda: papertrack.ask_question(store, "?"),
        lambda: papertrack.ask_question(store, 5),  # type: ignore[arg-type]
        lambda: papertrack.latest_papers(store, category=""),
        lambda: papertrack.latest_papers(store, category=[" "]),
        lambda: papertrack.latest_papers(store, category=5),  # type: ignore[arg-type]
        lambda: papertrack.latest_papers(store, category=b"cs.CL"),  # type: ignore[arg-type]
        lambda: papertrack.latest_papers(
            store, since=datetime.max.replace(tzinfo=timezone(timedelta(hours=-1)))
        ),
    ):
        with pytest.raises(PapertrackError) as refused:
            call()
        assert "Traceback" not in str(refused.value)
    assert store.index_path.read_bytes() == index  # nothing retagged yet
    with pytest.raises(PapertrackError, match="question is int, not text"):
        papertrack.ask_question(store, 5)  # type: ignore[arg-type]
    with pytest.raises(PapertrackError, match="category is bytes, not a category's name"):
        papertrack.latest_papers(store, category=b"cs.CL")  # type: ignore[arg-type]
    with pytest.raises(PapertrackError, match="names no category"):
        papertrack.latest_papers(store, category="")
    # Any iterable of names, as before: dict keys, a generator.
    every = papertrack.latest_papers(store, category=["cs.AI"], limit=50)
    assert papertrack.latest_papers(store, category={"cs.AI": 1}.keys(), limit=50) == every
    assert papertrack.latest_papers(store, category=(c for c in ["cs.AI"]), limit=50) == every
    assert papertrack.latest_papers(store, "zebras")  # the retag runs here ...
    logged = log.read_text(encoding="utf-8")[len(before) :]
    assert "[api] Retagged the stored papers" in logged and "zebras +" in logged  # ... and says so


def test_a_store_gone_since_it_was_opened_is_not_read_as_empty(
    isolated_home: Path, tmp_path: Path
) -> None:
    """A store moved away (a disk unmounted) after open_store answered "no papers",
    and the next ingest_files made a new store in its place."""
    where = tmp_path / "papers"
    papertrack.ingest_files(papertrack.open_store(where, create=True), [LISTING])
    store = papertrack.open_store(where)
    assert papertrack.latest_papers(store, limit=1)
    where.rename(tmp_path / "moved")
    for call in (
        lambda: papertrack.latest_papers(store),
        lambda: papertrack.topic_momentum(store, "gui-agents"),
        lambda: papertrack.ingest_files(store, [LISTING]),
    ):
        with pytest.raises(PapertrackError, match="no store at .* any more"):
            call()
    assert not where.exists()  # nothing made there
    # Opened with leave to make one, it is made.
    papertrack.ingest_files(papertrack.open_store(where, create=True), [LISTING])
    assert where.is_dir()
    with pytest.raises(PapertrackError, match="~user this machine has no home for"):
        papertrack.open_store("~no-such-user-here/papers")
    # The command line said "papertrack failed unexpectedly ... This is a bug".
    said = run("--db", "~no-such-user-here/papers", "latest")
    assert said.exit_code == 1 and "Traceback" not in said.stderr
    assert said.stderr.startswith("Error: the store's path '~no-such-user-here/papers' starts")
    # A single source that fails is named alone, not "the other sources are stored".
    with pytest.raises(PapertrackError) as failed:
        papertrack.ingest_files(store := papertrack.open_store(where), [tmp_path / "none.xml"])
    assert "other sources" not in str(failed.value) and store.exists()


def test_a_topic_object_unlike_the_catalogs_is_refused_not_answered_for_another(
    isolated_home: Path,
) -> None:
    """A Topic with a catalog slug but another query got the catalog topic's papers."""
    from papertrack.topics import Topic

    store = papertrack.open_store(create=True)
    papertrack.ingest_files(store, [LISTING])
    gui = next(t for t in papertrack.load_catalog().topics if t.slug == "gui-agents")
    assert papertrack.latest_papers(store, gui) == papertrack.latest_papers(store, "gui-agents")
    other = Topic(name="GUI Agents", slug="gui-agents", query="title:quantum")
    with pytest.raises(PapertrackError, match="is not the catalog's 'GUI Agents'"):
        papertrack.latest_papers(store, other)
    with pytest.raises(PapertrackError, match="is not the catalog's"):
        papertrack.topic_momentum(store, other)


def test_refresh_tags_brings_a_topic_just_added_to_the_site_built_from_python(
    isolated_home: Path,
) -> None:
    """docs/site.md builds the site with papertrack.site.gather, which reads the tags as
    stored: a topic just added to topics.toml got a page with no papers, where
    `papertrack site` showed its papers. refresh_tags retags first."""
    from datetime import date

    import papertrack
    from papertrack.site import gather

    assert run("ingest", str(LISTING)).exit_code == 0
    (isolated_home / "topics.toml").write_text(
        "[[topic]]\nname = \"Agent Papers\"\nquery = 'agent*'\n", encoding="utf-8"
    )
    store = papertrack.open_store()
    catalog = papertrack.load_catalog()
    day = date(2025, 8, 20)

    def shown() -> int:
        (topic,) = [
            t for t in gather(store, catalog.topics, day, limit=500) if t.slug == "agent-papers"
        ]
        return len(topic.papers)

    assert shown() == 0  # tags as stored: the new topic is on no paper yet
    papertrack.refresh_tags(store)
    matched = json.loads(run("search", "agent*", "--json", "-n", "500").stdout)
    assert shown() == len(matched) > 0


def test_ingesting_a_gz_file_leaves_no_file_open(isolated_home: Path, tmp_path: Path) -> None:
    """gzip.open(handle) leaves the handle open: every ingest of a .gz file (the
    bundled sample's too) left a ResourceWarning in an API caller's output."""
    import gc
    import gzip
    import warnings

    import papertrack

    feed = tmp_path / "papers.jsonl.gz"
    feed.write_bytes(gzip.compress((kaggle_line("2601.00001", "Agents") + "\n").encode()))
    store = papertrack.open_store(create=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        papertrack.ingest_files(store, [feed])
        gc.collect()
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)], caught
    assert papertrack.get_paper(store, "2601.00001") is not None


def test_a_query_read_otherwise_than_meant_is_warned_of(isolated_home: Path) -> None:
    """The commands note a lowercase 'or' (a word to match) and a category no paper
    has; the API said nothing: 'planning or reasoning' matched 481 papers where the
    caller meant 18,935."""
    import warnings

    import papertrack

    assert run("ingest", str(LISTING)).exit_code == 0
    store = papertrack.open_store()
    with pytest.warns(UserWarning, match="'or' in the query is a word to match"):
        papertrack.search_papers(store, "planning or reasoning")
    with pytest.warns(UserWarning, match="category:cs.xx can match no paper"):
        papertrack.latest_papers(store, query="agent* AND category:cs.XX")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a query read as written: no word
        papertrack.search_papers(store, "planning OR reasoning")
