"""Bulk import of a JSON-lines snapshot: worker processes, --category, resume, progress, stats."""

from __future__ import annotations

import gzip
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer
from typer.testing import CliRunner

from bench.synth import kaggle_line, synthetic_papers
from papertrack import ingest as ingest_module
from papertrack import paths
from papertrack.cli import app
from papertrack.feeds import parse_jsonl_line
from papertrack.ingest import IngestOptions, ingest_source
from papertrack.models import SourceReport, category_test
from papertrack.store import ALL, Store, StoreWriter
from papertrack.topics import Catalog

DATA = Path(__file__).parent / "data"
KAGGLE = DATA / "kaggle-jsonl" / "arxiv-metadata-oai-snapshot.head200.jsonl"


def snapshot(path: Path, synthetic: int = 0, seed: int = 3) -> Path:
    """The 200 real snapshot lines followed by ``synthetic`` generated ones."""
    lines = KAGGLE.read_bytes().splitlines(keepends=True)
    lines += [(kaggle_line(p) + "\n").encode() for p in synthetic_papers(synthetic, seed=seed)]
    path.write_bytes(b"".join(lines))
    return path


def records(store: Store) -> dict[str, dict[str, object]]:
    """Every stored record by id, with the week it sits in; fails on a paper stored twice."""
    found: dict[str, dict[str, object]] = {}
    for week in store.weeks():
        data = json.loads(store.partition_path(week).read_bytes())
        for doc in data["papers"].values():
            assert doc["arxiv_id"] not in found, f"{doc['arxiv_id']} stored twice"
            found[doc["arxiv_id"]] = {**doc, "_week": week}
    return found


def index_terms(store: Store) -> set[tuple[str, str, str]]:
    """Every (paper id, word, column) of the store's full-text index."""
    assert store.search_path.is_file()
    db = sqlite3.connect(store.search_path)
    try:
        db.execute("CREATE VIRTUAL TABLE temp.terms USING fts5vocab(main, text, instance)")
        found = db.execute(
            "SELECT docs.arxiv_id, terms.term, terms.col FROM temp.terms JOIN docs"
            " ON docs.rowid = terms.doc"
        )
        return set(found)
    finally:
        db.close()


def ingest_file(
    path: Path, store: Store, catalog: Catalog, **options: object
) -> tuple[SourceReport, StoreWriter]:
    with store.writer(catalog) as writer:
        report = ingest_source(str(path), writer, options=IngestOptions(**options))  # type: ignore[arg-type]
    return report, writer


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.default()


def test_worker_processes_store_exactly_what_one_process_stores(
    tmp_path: Path, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    feed = snapshot(tmp_path / "snap.jsonl", synthetic=1200)
    one = Store(tmp_path / "one")
    report_one, _ = ingest_file(feed, one, catalog, jobs=1, batch_size=300)
    # Start the pool at once and cut small chunks, so both workers see many of them.
    monkeypatch.setattr(ingest_module, "PARALLEL_AFTER", 0)
    monkeypatch.setattr(ingest_module, "CHUNK_LINES", 37)
    two = Store(tmp_path / "two")
    report_two, _ = ingest_file(feed, two, catalog, jobs=2, batch_size=300)

    assert report_one.error is None and report_two.error is None
    assert report_one.new == report_two.new == 1400
    assert records(one) == records(two)
    assert one.index().counts == two.index().counts
    assert one.index().days == two.index().days
    assert one.index().listed == two.index().listed
    # With workers or without, the full-text index is what a rebuild from the week files makes.
    made = index_terms(two)
    assert len(made) > 100_000 and made == index_terms(one)
    two.search_path.unlink()
    with two.writer(catalog) as writer, writer.holding():
        pass  # no index: the writer builds it from the week files
    assert index_terms(two) == made

    # Stopped half way with workers, then resumed with workers: the same store again.
    three = Store(tmp_path / "three")
    flushes: list[int] = []

    def stop_after_two(source: str, done: int, total: int | None, papers: int) -> None:
        flushes.append(papers)
        if len(flushes) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt), three.writer(catalog) as writer:
        options = IngestOptions(jobs=2, batch_size=300, on_bytes=stop_after_two)
        ingest_source(str(feed), writer, options=options)
    assert 600 <= three.count() < 1400
    resumed, _ = ingest_file(feed, three, catalog, jobs=2, batch_size=300)
    assert resumed.resumed_at is not None and resumed.unchanged == 0
    assert records(three) == records(one)
    assert three.index().counts == one.index().counts


def test_bulk_records_equal_papers_upserted_one_by_one(tmp_path: Path, catalog: Catalog) -> None:
    # The fast path for new records must store what the general upsert stores.
    feed = snapshot(tmp_path / "snap.jsonl", synthetic=300)
    bulk = Store(tmp_path / "bulk")
    ingest_file(feed, bulk, catalog, batch_size=100)
    slow = Store(tmp_path / "slow")
    papers = [
        parse_jsonl_line(line, "x", n)
        for n, line in enumerate(feed.read_bytes().splitlines(), start=1)
    ]
    with slow.writer(catalog) as writer:
        for start in range(0, len(papers), 100):
            writer.upsert(papers[start : start + 100])
    assert records(bulk) == records(slow)
    assert bulk.index().counts == slow.index().counts
    assert bulk.index().primary == slow.index().primary


def test_a_paper_twice_in_one_batch_and_a_newer_version_later(
    tmp_path: Path, catalog: Catalog
) -> None:
    lines = KAGGLE.read_bytes().splitlines()
    first = json.loads(lines[0])
    newer = {
        **first,
        "title": "A revised title",
        "versions": [
            *first["versions"],
            {"version": "v9", "created": "Mon, 1 Jan 2024 00:00:00 GMT"},
        ],
    }
    older = {**first, "title": "An older title", "versions": first["versions"][:1]}
    feed = tmp_path / "dup.jsonl"
    rows = [json.dumps(first), json.dumps(newer), json.dumps(older), *map(bytes.decode, lines[1:5])]
    feed.write_text("\n".join(rows) + "\n", encoding="utf-8")
    store = Store(tmp_path / "s")
    report, _ = ingest_file(feed, store, catalog)
    stored = records(store)
    assert len(stored) == 5
    assert stored[first["id"]]["title"] == "A revised title"
    assert stored[first["id"]]["version"] == 9
    # Every line is counted: the paper once, by what the run did to it, its other
    # copies as unchanged.
    assert (report.new, report.updated, report.unchanged) == (5, 0, 2)
    # Again, in another run: everything is unchanged.
    again, _ = ingest_file(feed, store, catalog)
    assert (again.new, again.updated) == (0, 0)
    assert again.unchanged == 7
    assert store.count() == 5


def test_category_filter_keeps_only_matching_papers_while_streaming(
    tmp_path: Path, catalog: Catalog
) -> None:
    expected = {
        p.arxiv_id
        for n, line in enumerate(KAGGLE.read_bytes().splitlines(), start=1)
        if (p := parse_jsonl_line(line, "x", n)).categories
        and any(c.startswith("cs.") or c == "math.CO" for c in p.categories)
    }
    assert 0 < len(expected) < 200
    result = CliRunner().invoke(
        app,
        ["--db", str(tmp_path / "s"), "ingest", "-v", "-c", "cs.*", "-c", "MATH.co", str(KAGGLE)],
    )
    assert result.exit_code == 0, result.output
    assert set(records(Store(tmp_path / "s"))) == expected
    assert f"{200 - len(expected)} left out by --category" in result.stderr


def test_category_filter_applies_to_xml_feeds_too(tmp_path: Path) -> None:
    feed = Path(__file__).parent.parent / "data" / "samples" / "api-query-testing-100.xml"
    runner = CliRunner()
    result = runner.invoke(app, ["--db", str(tmp_path / "s"), "ingest", "-c", "cs.SE", str(feed)])
    assert result.exit_code == 0, result.output
    stored = records(Store(tmp_path / "s"))
    assert stored
    assert all("cs.SE" in doc["categories"] for doc in stored.values())  # type: ignore[operator]


def test_category_test_reads_exact_names_and_prefixes() -> None:
    test = category_test(["cs.*", "stat.ML"])
    assert test is not None
    assert test(["math.CO", "cs.LG"]) and test(["STAT.ml"])
    assert not test(["stat.ME", "physics.cs"]) and not test([])
    assert category_test([]) is None


def test_interrupted_snapshot_resumes_where_it_stopped(tmp_path: Path, catalog: Catalog) -> None:
    feed = snapshot(tmp_path / "snap.jsonl", synthetic=900)
    store = Store(tmp_path / "s")
    flushes: list[int] = []

    def stop_after_three(source: str, done: int, total: int | None, papers: int) -> None:
        flushes.append(done)
        if len(flushes) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt), store.writer(catalog) as writer:
        ingest_source(
            str(feed), writer, options=IngestOptions(batch_size=250, on_bytes=stop_after_three)
        )
    kept = records(store)
    assert len(kept) == 750  # three whole batches
    checkpoints = list((store.path / "resume").glob("*.json"))
    assert len(checkpoints) == 1

    report, _ = ingest_file(feed, store, catalog, batch_size=250)
    assert report.resumed_at == 751
    assert report.error is None
    assert (report.papers, report.new, report.unchanged) == (1100, 1100, 0)
    assert len(records(store)) == 1100
    assert not list((store.path / "resume").glob("*.json"))  # done: nothing left to resume

    # The same store built in one go holds the same papers and counts.
    whole = Store(tmp_path / "whole")
    ingest_file(feed, whole, catalog, batch_size=250)
    assert records(store).keys() == records(whole).keys()
    assert store.index().counts == whole.index().counts


def test_a_changed_file_or_no_resume_reads_from_the_start(tmp_path: Path, catalog: Catalog) -> None:
    feed = snapshot(tmp_path / "snap.jsonl", synthetic=400)

    def stop(source: str, done: int, total: int | None, papers: int) -> None:
        raise KeyboardInterrupt

    for options in ({"resume": False}, {}):
        store = Store(tmp_path / f"s{len(options)}")
        with pytest.raises(KeyboardInterrupt), store.writer(catalog) as writer:
            ingest_source(str(feed), writer, options=IngestOptions(batch_size=200, on_bytes=stop))
        if options:
            report, _ = ingest_file(feed, store, catalog, batch_size=200, **options)
            assert report.resumed_at is None and report.unchanged == 200
        else:
            with feed.open("ab") as handle:  # the file changed: its checkpoint means nothing
                handle.write((kaggle_line(next(synthetic_papers(1, seed=99))) + "\n").encode())
            report, _ = ingest_file(feed, store, catalog, batch_size=200)
            assert report.resumed_at is None
            # Read from line 1: the 200 papers of the first batch are met again.
            assert report.papers == 601 and report.unchanged >= 200


def test_a_run_with_another_category_filter_does_not_resume(
    tmp_path: Path, catalog: Catalog
) -> None:
    # A run that kept only some categories stored nothing else before its line:
    # resuming it without the filter would skip every other paper it had passed.
    feed = snapshot(tmp_path / "snap.jsonl", synthetic=900)
    store = Store(tmp_path / "s")

    def stop(source: str, done: int, total: int | None, papers: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt), store.writer(catalog) as writer:
        options = IngestOptions(batch_size=250, on_bytes=stop, categories=("cs.SE",))
        ingest_source(str(feed), writer, options=options)
    filtered = len(records(store))
    assert 0 < filtered < 250
    report, _ = ingest_file(feed, store, catalog, batch_size=250)
    assert report.resumed_at is None
    assert report.papers == 1100 and len(records(store)) == 1100


def test_a_checkpoint_an_older_papertrack_wrote_is_resumed(
    tmp_path: Path, catalog: Catalog
) -> None:
    """Checkpoints written before the category filter was part of them name no
    categories: after an upgrade the interrupted ingest started again at line 1."""
    feed = snapshot(tmp_path / "snap.jsonl", synthetic=900)
    store = Store(tmp_path / "s")

    def stop(source: str, done: int, total: int | None, papers: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt), store.writer(catalog) as writer:
        ingest_source(str(feed), writer, options=IngestOptions(batch_size=250, on_bytes=stop))
    (checkpoint,) = (store.path / "resume").glob("*.json")
    data = json.loads(checkpoint.read_text(encoding="utf-8"))
    del data["identity"]["categories"]
    checkpoint.write_text(json.dumps(data), encoding="utf-8")
    report, _ = ingest_file(feed, store, catalog, batch_size=250)
    assert report.resumed_at == 251 and report.unchanged == 0
    assert len(records(store)) == 1100


def test_a_gz_snapshot_resumes_past_its_compressed_size(tmp_path: Path, catalog: Catalog) -> None:
    # The checkpoint's offset is one in the decompressed text, which is several
    # times the size of the file: a resume there is still a resume.
    plain = snapshot(tmp_path / "snap.jsonl", synthetic=900)
    packed = tmp_path / "snap.jsonl.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    store = Store(tmp_path / "s")
    seen: list[int] = []

    def stop_late(source: str, done: int, total: int | None, papers: int) -> None:
        seen.append(papers)
        if papers >= 1000:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt), store.writer(catalog) as writer:
        ingest_source(
            str(packed), writer, options=IngestOptions(batch_size=250, on_bytes=stop_late)
        )
    (checkpoint,) = (store.path / "resume").glob("*.json")
    assert json.loads(checkpoint.read_text())["offset"] > packed.stat().st_size
    report, _ = ingest_file(packed, store, catalog, batch_size=250)
    assert report.resumed_at == 1001
    assert (report.papers, report.new) == (1100, 1100)
    assert len(records(store)) == 1100


#: A papertrack run whose ingest stops after its third checkpoint (600 lines, in
#: batches of 200) and waits there, to be killed or stopped.
PAUSED_INGEST = textwrap.dedent(
    """
    import sys, time
    import papertrack.ingest as ingest
    ingest.BATCH_SIZE = 200
    save = ingest._Checkpoint.save
    def save_then_wait(self, line, *args):
        save(self, line, *args)
        if line >= 600:  # three batches stored: wait here to be killed
            open(sys.argv[-1] + ".paused", "w").close()
            time.sleep(120)
    ingest._Checkpoint.save = save_then_wait
    from papertrack.cli import main
    sys.argv = ["papertrack", *sys.argv[1:]]
    main()
    """
)
#: The environment that runs this checkout's papertrack in a child process.
CHILD_ENV = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)}


def paused_ingest(
    feed: Path, db: Path, workers: int, script: str = "", at: str = ".paused"
) -> subprocess.Popen[str]:
    """An ingest of ``feed`` into ``db`` by ``script`` (:data:`PAUSED_INGEST`: waiting
    after its third checkpoint), once it has made the file ``feed`` + ``at``."""
    args = ["--db", str(db), "ingest", "-j", str(workers), str(feed)]
    proc = subprocess.Popen(
        [sys.executable, "-c", script or PAUSED_INGEST, *args],
        env=CHILD_ENV,
        stderr=subprocess.PIPE,
        text=True,
    )
    paused = Path(str(feed) + at)
    deadline = time.monotonic() + 60
    while not paused.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert paused.exists(), f"the ingest never made {paused.name}"
    return proc


def ingest_again(feed: Path, db: Path) -> subprocess.CompletedProcess[str]:
    """The same ingest run again, to the end, saying where it resumed (-v)."""
    return subprocess.run(
        [sys.executable, "-m", "papertrack", "--db", str(db), "ingest", "-v", str(feed)],
        env=CHILD_ENV,
        capture_output=True,
        text=True,
        check=False,
    )


def test_resume_after_a_kill_loses_nothing_and_doubles_nothing(tmp_path: Path) -> None:
    feed = snapshot(tmp_path / "snap.jsonl", synthetic=2800)
    db = tmp_path / "s"
    proc = paused_ingest(feed, db, workers=1)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the ingest ended before it could be killed"

    again = ingest_again(feed, db)
    assert again.returncode == 0, again.stderr
    assert "resumed at line" in again.stderr
    # The counts are the whole file's, and say so: 3,000 new, not the rest alone.
    assert "; counts include the earlier run's): 3,000 papers: 3,000 new" in again.stderr
    # And without -v, in the summary every run prints.
    assert again.stderr.rstrip().splitlines()[-1] == (
        "1 source ok; papers: 3,000 new, 0 updated, 0 unchanged (resumed where an "
        "interrupted ingest stopped: its papers are counted too, those stored after its "
        "last checkpoint as unchanged)"
    )
    stored = records(Store(db))  # fails on any paper stored twice
    assert len(stored) == 3000
    index = Store(db).index()
    weeks = Counter(doc["_week"] for doc in stored.values())
    assert {w: n for w, n in index.counts[ALL].items() if n} == dict(weeks)


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_stops_an_ingest_like_ctrl_c_and_the_next_run_resumes(
    tmp_path: Path, stop: signal.Signals
) -> None:
    # cron, systemd and `kill` stop a long ingest with SIGTERM, a closed terminal or
    # ssh session with SIGHUP. Python's default died at once: no word of what was
    # kept, and the worker pool's semaphores left to a "leaked semaphore objects"
    # warning. Each is handled as Ctrl-C is, with exit 128 + its number.
    feed = snapshot(tmp_path / "snap.jsonl", synthetic=2800)
    db = tmp_path / "s"
    proc = paused_ingest(feed, db, workers=2)
    proc.send_signal(stop)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 128 + stop, stderr
    assert stderr.strip().splitlines()[-1] == (
        f"Stopped by {stop.name}. Everything written before the interruption is kept."
    )
    assert "Traceback" not in stderr and "leaked" not in stderr, stderr

    again = ingest_again(feed, db)
    assert again.returncode == 0, again.stderr
    assert "resumed at line" in again.stderr
    assert len(records(Store(db))) == 3000


def test_progress_reports_bytes_of_a_gz_snapshot(tmp_path: Path, catalog: Catalog) -> None:
    plain = snapshot(tmp_path / "snap.jsonl", synthetic=600)
    packed = tmp_path / "snap.jsonl.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    seen: list[tuple[int, int | None, int]] = []
    store = Store(tmp_path / "s")
    report, _ = ingest_file(
        packed, store, catalog, batch_size=200, on_bytes=lambda s, d, t, p: seen.append((d, t, p))
    )
    assert report.error is None and report.new == 800
    assert len(seen) == 4
    totals = {t for _, t, _ in seen}
    assert totals == {packed.stat().st_size}
    done = [d for d, _, _ in seen]
    assert done == sorted(done) and done[-1] == packed.stat().st_size
    assert [p for _, _, p in seen] == [200, 400, 600, 800]


def test_broken_lines_before_and_after_a_resume_are_all_reported(
    tmp_path: Path, catalog: Catalog
) -> None:
    good = snapshot(tmp_path / "good.jsonl", synthetic=300).read_bytes().splitlines()
    good[10] = b"{not json"
    good[420] = b'{"id": "not an id"}'
    feed = tmp_path / "snap.jsonl"
    feed.write_bytes(b"\n".join(good) + b"\n")
    store = Store(tmp_path / "s")

    def stop(source: str, done: int, total: int | None, papers: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt), store.writer(catalog) as writer:
        ingest_source(str(feed), writer, options=IngestOptions(batch_size=250, on_bytes=stop))
    report, _ = ingest_file(feed, store, catalog, batch_size=250)
    assert report.resumed_at is not None
    assert report.skipped == 2
    assert report.error is not None and "lines 11, 421" in report.error
    assert store.count() == 498


# --------------------------------------------------------------------------- stats


def test_stats_counts_what_the_store_holds(tmp_path: Path) -> None:
    db = tmp_path / "s"
    runner = CliRunner()
    assert runner.invoke(app, ["--db", str(db), "ingest", "--sample"]).exit_code == 0
    result = runner.invoke(app, ["--db", str(db), "stats", "--json"])  # every category
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert len(data["categories"]) == data["categories_total"] > 20
    stored = records(Store(db))
    # The two recorded feeds (186 papers) and the 12-week listing sample, one paper a line.
    sample = next(paths.samples_dir().glob("*.jsonl.gz"))
    with gzip.open(sample, "rt", encoding="utf-8") as lines:
        in_sample = sum(1 for line in lines if line.strip())
    assert data["papers"] == len(stored) == 186 + in_sample
    listed = Counter(c for doc in stored.values() for c in doc["categories"])  # type: ignore[attr-defined]
    primary = Counter(doc["primary_category"] for doc in stored.values())
    assert {c["category"]: c["listed"] for c in data["categories"]} == dict(listed)
    assert {c["category"]: c["primary"] for c in data["categories"]} == {
        c: primary.get(c, 0) for c in listed
    }
    dates = sorted(str(doc["paper_date"])[:10] for doc in stored.values())
    assert (data["first_date"], data["last_date"]) == (dates[0], dates[-1])
    assert data["partitions"] == len(list((db / "papers").glob("*.json")))
    on_disk = sum(p.stat().st_size for p in db.rglob("*") if p.is_file())
    assert data["size_bytes"] == on_disk

    table = runner.invoke(app, ["--db", str(db), "stats", "-n", "3"])
    assert table.exit_code == 0
    assert "Papers" in table.stdout and f"{len(stored):,}" in table.stdout
    assert "Categories (3 of" in table.stdout
    assert "more categories: papertrack stats --top 0" in table.stderr
    # --top given cuts the JSON too; a table lists 20 unless told.
    top = json.loads(runner.invoke(app, ["--db", str(db), "stats", "-n", "3", "--json"]).stdout)
    assert top["categories"] == data["categories"][:3]
    assert "Categories (20 of" in runner.invoke(app, ["--db", str(db), "stats"]).stdout


def test_stats_on_an_empty_store_creates_nothing(tmp_path: Path) -> None:
    db = tmp_path / "none"
    # A store --db names that is not there is a mistyped path, not an empty store.
    result = CliRunner().invoke(app, ["--db", str(db), "stats"])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: no store at {db}, which --db or PAPERTRACK_DB")
    assert not db.exists()
    typo = CliRunner().invoke(app, ["latest"], env={"PAPERTRACK_DB": str(db)})
    assert typo.exit_code == 1 and "Error: no store at" in typo.stderr
    link = tmp_path / "unmounted"
    link.symlink_to(tmp_path / "not-there")  # a link to a disk not mounted
    dangling = CliRunner().invoke(app, ["--db", str(link), "latest"])
    assert dangling.exit_code == 1 and "Error: no store at" in dangling.stderr
    # Commands that may make a store leave one they need not make unmade.
    forgot = CliRunner().invoke(app, ["--db", str(db), "topics", "teach", "gui-agents", "--forget"])
    assert forgot.exit_code == 0, forgot.stderr
    assert not db.exists() and not (tmp_path / "not-there").exists()
    db.mkdir()
    result = CliRunner().invoke(app, ["--db", str(db), "stats"])
    assert result.exit_code == 0
    assert "holds no papers yet" in result.stderr
    assert list(db.iterdir()) == []


def test_stats_upgrades_an_index_without_category_counts(tmp_path: Path) -> None:
    db = tmp_path / "s"
    runner = CliRunner()
    assert runner.invoke(app, ["--db", str(db), "ingest", str(KAGGLE)]).exit_code == 0
    index = json.loads((db / "index.json").read_text())
    del index["categories"]
    index["meta"]["1"]["schema"] = 2
    (db / "index.json").write_text(json.dumps(index))
    data = json.loads(runner.invoke(app, ["--db", str(db), "stats", "--json"]).stdout)
    assert data["papers"] == 200
    assert sum(c["primary"] for c in data["categories"]) > 0


_BAR_CHILD = (
    "import sys, papertrack.ingest as ingest\n"
    "ingest.BATCH_SIZE = 100\n"
    "from papertrack.cli import main\n"
    "sys.argv = ['papertrack', *sys.argv[1:]]\n"
    "main()\n"
)


def _bar_env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent), "COLUMNS": "160"}
    env.pop("NO_COLOR", None)
    return env


def _on_a_terminal(args: list[str]) -> tuple[int, str]:
    """(exit code, what reached stderr) of ``args`` with stderr a pseudo-terminal."""
    leader, follower = os.openpty()
    try:
        done = subprocess.run(
            args, env=_bar_env(), stdout=subprocess.DEVNULL, stderr=follower, check=False
        )
        os.close(follower)
        seen = b""
        while True:
            try:
                piece = os.read(leader, 65536)
            except OSError:  # the terminal is gone: everything was read
                break
            if not piece:
                break
            seen += piece
    finally:
        os.close(leader)
    return done.returncode, seen.decode("utf-8", "replace")


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_a_terminal_sees_a_progress_bar_by_bytes_and_a_pipe_does_not(tmp_path: Path) -> None:
    feed = snapshot(tmp_path / "snap.jsonl", synthetic=600)
    args = [sys.executable, "-c", _BAR_CHILD, "--db", str(tmp_path / "s"), "ingest", "-j", "1"]
    code, text = _on_a_terminal([*args, str(feed)])
    assert code == 0
    assert "snap.jsonl" in text and "papers" in text  # the bar: file name, papers so far
    assert "/" in text and "MB" in text  # bytes read of the total
    assert "800 new" in text  # the summary line, after the bar is gone

    piped = subprocess.run(
        [*args, "-v", str(feed)], env=_bar_env(), capture_output=True, check=False
    )
    assert piped.returncode == 0
    assert b"\x1b[" not in piped.stderr and b"MB" not in piped.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_a_file_name_reaches_the_bar_and_the_log_as_plain_text(tmp_path: Path) -> None:
    # A file name is untrusted: Rich markup in it is shown as written, a terminal
    # escape in it never reaches the terminal, and a line break in it cannot
    # start a line of its own (a forged "Error:" in -v output or the log).
    name = "[bold]x\x1b]0;pwned\x07\nError: forged.jsonl"
    feed = snapshot(tmp_path / name, synthetic=600)
    log = tmp_path / "papertrack.log"
    args = [sys.executable, "-c", _BAR_CHILD, "--db", str(tmp_path / "s"), "--log-file", str(log)]
    code, text = _on_a_terminal([*args, "ingest", "-j", "1", "-v", str(feed)])
    assert code == 0
    assert "[bold]x" in text and "papers" in text
    assert "pwned" not in text and "\x1b]" not in text
    lines = text.replace("\r", "\n").splitlines() + log.read_text("utf-8").splitlines()
    assert not [line for line in lines if "Error: forged" in line and "[bold]" not in line]


# --------------------------------------------------------------------------- over http


def test_a_gzipped_snapshot_url_is_streamed(tmp_path: Path, httpserver: HTTPServer) -> None:
    body = gzip.compress(snapshot(tmp_path / "snap.jsonl", synthetic=300).read_bytes())
    httpserver.expect_request("/snap.jsonl.gz").respond_with_data(
        body, content_type="application/gzip"
    )
    db = tmp_path / "s"
    result = CliRunner().invoke(
        app, ["--db", str(db), "ingest", httpserver.url_for("/snap.jsonl.gz")]
    )
    assert result.exit_code == 0, result.output
    assert len(records(Store(db))) == 500


def test_a_password_in_a_source_url_is_never_printed_or_logged(
    tmp_path: Path, httpserver: HTTPServer
) -> None:
    httpserver.expect_request("/snap.jsonl").respond_with_data(
        snapshot(tmp_path / "snap.jsonl").read_bytes()
    )
    httpserver.expect_request("/gone.xml").respond_with_data("gone", status=404)
    log = tmp_path / "papertrack.log"
    port = httpserver.port
    urls = [f"http://reader:s3cret@127.0.0.1:{port}/{name}" for name in ("snap.jsonl", "gone.xml")]
    args = ["--db", str(tmp_path / "s"), "--log-file", str(log), "ingest", "-v", *urls]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1, result.output
    said = result.stderr + log.read_text("utf-8")
    assert "s3cret" not in said
    assert f"http://reader:***@127.0.0.1:{port}/snap.jsonl (kaggle): 200 papers" in result.stderr
    assert f"http://reader:***@127.0.0.1:{port}/gone.xml answered HTTP 404" in result.stderr


def test_a_connection_cut_mid_snapshot_keeps_the_whole_lines(tmp_path: Path) -> None:
    lines = snapshot(tmp_path / "snap.jsonl", synthetic=300).read_bytes().splitlines(keepends=True)
    sent = b"".join(lines[:250]) + lines[250][:100]  # the server hangs up inside line 251
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(sent) * 2}\r\n\r\n".encode()
            conn.sendall(head + sent)

    thread = threading.Thread(target=serve)
    thread.start()
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/snap.jsonl"
    db = tmp_path / "s"
    result = CliRunner().invoke(app, ["--db", str(db), "ingest", url])
    thread.join()
    listener.close()
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    # The body ends early (urllib reads lines up to the hang-up without complaint):
    # the cut line is named, the lines before it are kept.
    first = result.stderr.splitlines()[0]
    assert first.startswith(f"Error: {url}: skipped 1 broken line (line 251)")
    assert "(the last line looks cut off); kept 250 papers" in first
    assert len(records(Store(db))) == 250


def test_an_xml_feed_url_over_the_size_limit_is_refused_unread(
    tmp_path: Path, httpserver: HTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from papertrack import feeds

    page = (
        Path(__file__).parent.parent / "data" / "samples" / "api-query-testing-100.xml"
    ).read_bytes()
    httpserver.expect_request("/big.xml").respond_with_data(page, content_type="application/xml")
    monkeypatch.setattr(feeds, "MAX_FEED_BYTES", len(page) - 1)
    db = tmp_path / "s"
    result = CliRunner().invoke(app, ["--db", str(db), "ingest", httpserver.url_for("/big.xml")])
    assert result.exit_code == 1
    assert "is larger than" in result.stderr and "Traceback" not in result.output
    assert not (db / "papers").exists()
    monkeypatch.setattr(feeds, "MAX_FEED_BYTES", len(page))
    again = CliRunner().invoke(app, ["--db", str(db), "ingest", httpserver.url_for("/big.xml")])
    assert again.exit_code == 0, again.output
    assert len(records(Store(db))) == 100


def _children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if entry.name.isdigit() and int(stat[stat.rindex(")") + 2 :].split()[1]) == pid:
            found.add(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_workers_end_with_a_killed_ingest(tmp_path: Path) -> None:
    """The workers of a ``kill -9``-ed ingest end, and multiprocessing's resource
    tracker, which cleans up after them, says nothing on the command's stderr (it
    printed a "leaked semaphore objects" UserWarning into cron mail)."""
    feed = snapshot(tmp_path / "snap.jsonl", synthetic=2800)
    child = (
        "import sys, papertrack.ingest as ingest\n"
        "ingest.PARALLEL_AFTER = 0\n"
        "ingest.BATCH_SIZE = 200\n"
        "from papertrack.cli import main\n"
        "sys.argv = ['papertrack', *sys.argv[1:]]\n"
        "main()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)}
    args = [sys.executable, "-c", child, "--db", str(tmp_path / "s"), "ingest", "-j", "2"]
    err = tmp_path / "stderr"
    env.pop("PYTHONWARNINGS", None)
    with err.open("wb") as sink:
        proc = subprocess.Popen([*args, str(feed)], env=env, stderr=sink)
    deadline = time.monotonic() + 60
    workers: set[int] = set()
    tracker: set[int] = set()
    while len(workers) < 2 and time.monotonic() < deadline:
        children = {pid: Path(f"/proc/{pid}/cmdline").read_bytes() for pid in _children(proc.pid)}
        workers = {pid for pid, line in children.items() if b"spawn_main" in line}
        tracker = {pid for pid, line in children.items() if b"resource_tracker" in line}
        time.sleep(0.02)
    assert len(workers) == 2, "the workers never started"
    assert tracker, "no resource tracker: the check of its warning below would pass idly"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    while (
        any(Path(f"/proc/{pid}").exists() for pid in workers | tracker)
        and time.monotonic() < deadline
    ):
        time.sleep(0.05)
    alive = [pid for pid in workers if Path(f"/proc/{pid}").exists()]
    for pid in alive:  # do not leave them behind even when the test fails
        os.kill(pid, signal.SIGKILL)
    assert not alive, "workers outlived the killed ingest"
    assert not any(Path(f"/proc/{pid}").exists() for pid in tracker)
    assert "Warning" not in err.read_text(), err.read_text()


@pytest.mark.parametrize("before", [None, "default"])
def test_quieting_the_tracker_leaves_the_environment_as_it_was(
    before: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from papertrack.snapshot import _quiet_tracker

    if before is None:
        monkeypatch.delenv("PYTHONWARNINGS", raising=False)
    else:
        monkeypatch.setenv("PYTHONWARNINGS", before)
    _quiet_tracker()
    assert os.environ.get("PYTHONWARNINGS") == before


def test_a_category_that_matches_nothing_gets_a_hint(tmp_path: Path) -> None:
    db = str(tmp_path / "s")
    result = CliRunner().invoke(app, ["--db", db, "ingest", "-c", "cs", str(KAGGLE)])
    assert result.exit_code == 0
    assert "No paper matched --category cs: all 200 were left out." in result.stderr
    assert "-c 'cs.*'" in result.stderr
    right = CliRunner().invoke(app, ["--db", db, "ingest", "-c", "cs.*", str(KAGGLE)])
    again = CliRunner().invoke(app, ["--db", db, "ingest", "-c", "cs.*", str(KAGGLE)])
    assert "No paper matched" not in right.stderr + again.stderr  # stored, then unchanged


def test_an_error_at_a_terminal_is_on_a_line_of_its_own_under_the_byte_bar(
    tmp_path: Path,
) -> None:
    """A cut-off .gz snapshot, the likeliest failure of a big download: its error was
    written straight after the progress bar, on the bar's own line."""
    import re

    from helpers import run_in_pty

    plain = snapshot(tmp_path / "snap.jsonl", synthetic=6000)
    packed = gzip.compress(plain.read_bytes(), compresslevel=1)
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(packed[: len(packed) * 3 // 4])
    env = {**CHILD_ENV, "PAPERTRACK_HOME": str(tmp_path / "home")}
    code, seen = run_in_pty("ingest", str(cut), env=env, columns=100)
    assert code == 1
    text = seen.decode("utf-8", "replace")
    assert re.search(r"[\d.]+/[\d.]+ [kM]?B", text)  # the byte bar was drawn
    at = text.index("Error: could not read")
    before = text[:at].rsplit("\n", 1)[-1]
    # What the terminal keeps of the line before "Error:": a carriage return and a
    # line clear may come first, no text.
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", before).rsplit("\r", 1)[-1]
    assert shown == "", repr(before)


MID_WRITE_INGEST = textwrap.dedent(
    """
    import sys, time
    import papertrack.ingest as ingest
    import papertrack.writer as writer
    ingest.BATCH_SIZE = 200
    flush = writer._Partitions.flush
    writes = []
    def slow_flush(self):
        flush(self)
        writes.append(1)
        if len(writes) == 3:  # inside the third batch's write: stop it here
            open(sys.argv[-1] + ".writing", "w").close()
            time.sleep(3)
    writer._Partitions.flush = slow_flush
    from papertrack.cli import main
    sys.argv = ["papertrack", *sys.argv[1:]]
    main()
    """
)


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_inside_a_batchs_write_lets_the_batch_finish(
    tmp_path: Path, stop: signal.Signals
) -> None:
    """Stopped in the middle of a batch's write, an ingest said everything written was
    kept, and left the .dirty marker of a write cut short: doctor then reported
    damage and asked for a repair. The batch's write now ends first."""
    feed = snapshot(tmp_path / "snap.jsonl", synthetic=2800)
    db = tmp_path / "s"
    proc = paused_ingest(feed, db, workers=1, script=MID_WRITE_INGEST, at=".writing")
    proc.send_signal(stop)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == (130 if stop == signal.SIGINT else 128 + stop), stderr
    assert "Everything written before the interruption is kept." in stderr
    assert not (db / ".dirty").exists()
    assert not Store(db).temp_files()
    checked = subprocess.run(
        [sys.executable, "-m", "papertrack", "--db", str(db), "doctor"],
        env=CHILD_ENV,
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert len(records(Store(db))) == 600  # three whole batches, the third included
    again = ingest_again(feed, db)
    assert again.returncode == 0, again.stderr
    assert len(records(Store(db))) == 3000


#: Runs `papertrack fetch`, sending itself SIGTERM while the command's body imports
#: papertrack.config: before the command's own handler is in place.
SIGTERM_EARLY = textwrap.dedent(
    """
    import os, signal, sys
    import papertrack, papertrack.config
    del sys.modules["papertrack.config"], papertrack.config

    class Stop:
        def find_spec(self, name, path=None, target=None):
            if name == "papertrack.config":
                os.kill(os.getpid(), signal.SIGTERM)
            return None

    sys.meta_path.insert(0, Stop())
    from papertrack.cli import main
    sys.argv = ["papertrack", *sys.argv[1:]]
    main()
    """
)


def test_sigterm_before_a_command_takes_charge_still_exits_143_and_says_so(
    tmp_path: Path,
) -> None:
    """Early in a fetch, SIGTERM exited 130 with nothing said, as a Ctrl-C: Typer turns
    any KeyboardInterrupt outside the command's own handler into a silent 130."""
    env = {**CHILD_ENV, "PAPERTRACK_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        # (A refused port on this machine, should the signal not come: no internet.)
        [sys.executable, "-c", SIGTERM_EARLY, "fetch", "-c", "cs.AI", "--days", "1",
         "--api-url", "http://127.0.0.1:9/api"],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert done.returncode == 143, done.stderr
    assert done.stderr.strip() == "Stopped by SIGTERM."
    assert not (tmp_path / "home").exists()
