"""Crash safety, proven: SIGKILL `papertrack ingest` at every write, then check the store.

The killed process runs the real command line (``papertrack.cli.main``) under
``python -c SERVER``, which adds no hook to papertrack: it wraps ``write_atomic``
(every store file goes through it), ``os.replace`` and ``os.unlink`` to follow
the states the store's files go through (before a file is written, once it is
in its temp file, once the temp file is renamed into place, after an unlink),
and SIGKILLs the process in state N. Two steps with no file change between them
(after one write, before the next) are one state. It also lowers the ingest
batch size, so that one ingest commits several batches, and notes each batch in
a side file once its upsert has returned: those batches are committed and must
survive. SERVER imports papertrack once and forks a fresh process per kill,
which saves ~0.5 s of imports per kill; after the kill, a second fork reads the
store as a reader would, then runs ``papertrack ingest`` of a small feed, which
recovers it.

Sizes, chosen to keep this file within ~40 s on two cores: a base store of
2,086 papers (the recorded API page, listing and Kaggle head, plus 1,700
synthetic papers from bench/synth.py), and one ingest of 643 Kaggle lines in
batches of 220: three batches, the second also bringing newer versions of 43
stored papers dated nine days earlier, which moves them to another week. A
reference run notes every state (42, with the resume checkpoints); the test
kills the ingest once in each, and 4 more times at random moments.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from papertrack.doctor import check_store
from papertrack.fulltext import TextIndex
from papertrack.models import Paper
from papertrack.paths import default_topics_file
from papertrack.store import Index, Store
from papertrack.topics import Catalog

pytestmark = pytest.mark.skipif(
    not hasattr(os, "fork"), reason="the kills need fork and SIGKILL (POSIX only)"
)

DATA = Path(__file__).parent / "data"
LISTING = DATA / "rss" / "atom-cs.AI-2025-08-20.first86.xml"
SMALL_FEED = DATA / "rss-derived" / "rss20-cs.AI-2025-08-20.6items.xml"  # same papers: no writes
API_PAGE = DATA / "api-atom" / "arxiv.py-2026-recorded" / "q_testing_s0_m100_cfe7536492ca.xml"
KAGGLE = DATA / "kaggle-jsonl" / "arxiv-metadata-oai-snapshot.head200.jsonl"

SYNTHETIC_BASE = 1700
NEW_PAPERS = 600
UPDATED_EVERY = 40  # every 40th synthetic base paper gets a newer version: 43 papers
BATCH = 220
WORKERS = 2

SERVER = textwrap.dedent(
    """
    import json, os, shutil, signal, sys, time, traceback
    from pathlib import Path

    import papertrack.feeds.syndication  # warm: every fork parses a feed (and feedparser)
    import papertrack.ingest as ingest
    import papertrack.store as store
    from papertrack.cli import main

    config = json.loads(Path(sys.argv[1]).read_text())
    # A SIGKILL is not a power cut: what the killed process wrote stays in the page
    # cache, so fsync changes nothing this test can see. Skipping it spares the ~150
    # disk flushes of each kill and recovery (most of their time on a slow disk).
    os.fsync = lambda fd: None


    def note(side, entry):
        with open(side, "a") as handle:
            handle.write(json.dumps(entry) + "\\n")


    def cli(*args):
        sys.argv = ["papertrack", *args]
        try:
            main()
        except SystemExit as exc:
            return exc.code or 0
        return 0


    def arm(kill_at, where):
        # In the ingest process: small batches, and a SIGKILL at the kill_at-th state of
        # the files (see the module docstring). The reference run (kill_at 0) notes them.
        batch = config["batch"]
        ingest.BATCH_SIZE = batch
        if "batch_size" in (getattr(ingest.ingest_source, "__kwdefaults__", None) or {}):
            ingest.ingest_source.__kwdefaults__["batch_size"] = batch
        if hasattr(ingest, "CHUNK_LINES"):
            ingest.CHUNK_LINES = min(ingest.CHUNK_LINES, batch)
        if hasattr(ingest, "IngestOptions"):
            options = ingest.IngestOptions
            ingest.IngestOptions = lambda *a, **kw: options(*a, **{**kw, "batch_size": batch})

        side, root = where / "side.jsonl", where / "store"
        state = {"count": 0, "changed": True}
        real_write, real_replace, real_unlink = store.write_atomic, os.replace, os.unlink
        # Modules that imported write_atomic by name (ingest's checkpoints) write through it too.
        users = [
            module
            for name, module in sys.modules.items()
            if name.startswith("papertrack") and getattr(module, "write_atomic", None) is real_write
        ]

        def step(what):
            if not state["changed"]:
                return  # no file changed since the last step: the same state again
            state["count"] += 1
            state["changed"] = False
            if kill_at == 0:
                note(side, {"state": state["count"], "what": what})
            elif state["count"] == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)

        def changed():
            state["changed"] = True

        def rel(path):
            return os.path.relpath(path, root)

        def write_atomic(path, data):
            step(f"before {rel(path)} is written")
            changed()  # its temp file
            real_write(path, data)
            step(f"{rel(path)} is in its temp file")  # when its rename waits for others

        def replace(src, dst, *args, **kwargs):
            step(f"{rel(dst)} is in its temp file")
            real_replace(src, dst, *args, **kwargs)
            changed()
            step(f"{rel(dst)} is renamed into place")

        def unlink(path, *args, **kwargs):
            real_unlink(path, *args, **kwargs)
            changed()  # the state after it is the next step's

        for module in users:
            module.write_atomic = write_atomic
        os.replace, os.unlink = replace, unlink

        def recording(method):
            def wrapper(self, items, *rest):
                items = list(items)
                result = method(self, items, *rest)
                ids = [i["arxiv_id"] if isinstance(i, dict) else i.arxiv_id for i in items]
                note(side, {"batch": ids, "after_state": state["count"]})
                return result
            return wrapper

        for name in ("upsert", "upsert_records"):
            if hasattr(store.StoreWriter, name):
                setattr(store.StoreWriter, name, recording(getattr(store.StoreWriter, name)))
        return state


    def ingest_until_killed(kill_at, where):
        # The killed process: the real command line, dying at state kill_at.
        code = 70
        try:
            log = os.open(where / "ingest.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
            os.dup2(log, 1)
            os.dup2(log, 2)
            state = arm(kill_at, where)
            code = cli("--db", str(where / "store"), "ingest", config["feed"])
            note(where / "side.jsonl", {"states": state["count"]})
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(code)


    def point(kill_at, where, delay):
        # Copy the store, run an ingest killed at one point, read the store, recover it.
        where = Path(where)
        shutil.copytree(config["base"], where / "store")
        child = os.fork()
        if child == 0:
            ingest_until_killed(kill_at, where)
        if delay is not None:
            time.sleep(delay)
            os.kill(child, signal.SIGKILL)
        _, status = os.waitpid(child, 0)
        result = {"status": status, "unreadable": []}
        # A reader right after the kill, before any writer recovered the store.
        for path in sorted((where / "store").rglob("*.json")):
            try:
                json.loads(path.read_bytes())
            except ValueError as exc:
                result["unreadable"].append(f"{path.name}: {exc}")
        try:
            reader = store.Store(where / "store")
            reader.latest(None, limit=20)
            reader.count()
        except Exception as exc:
            result["unreadable"].append(repr(exc))
        os.dup2(os.open(where / "recovery.log", os.O_WRONLY | os.O_CREAT), 2)
        result["recovery"] = cli("--db", str(where / "store"), "ingest", config["recovery_feed"])
        (where / "result.tmp").write_text(json.dumps(result))
        os.replace(where / "result.tmp", where / "result.json")


    # Up to config["jobs"] points at a time, each in a fork of this warm process.
    running = set()
    for kill_at, where, delay in config["points"]:
        while len(running) >= config["jobs"]:
            running.discard(os.wait()[0])
        pid = os.fork()
        if pid == 0:
            try:
                point(kill_at, where, delay)
            finally:
                os._exit(0)
        running.add(pid)
    while running:
        running.discard(os.wait()[0])
    """
)


def kaggle_line(paper: Paper, version: int, first: datetime) -> str:
    """``paper`` as a line of the Kaggle snapshot, with ``version`` versions from ``first``."""
    stamps = [
        (first + timedelta(days=n)).strftime("%a, %d %b %Y %H:%M:%S GMT") for n in range(version)
    ]
    return json.dumps(
        {
            "id": paper.arxiv_id,
            "title": paper.title,
            "abstract": paper.abstract,
            "authors": ", ".join(paper.authors),
            "categories": " ".join(paper.categories),
            "versions": [{"version": f"v{n}", "created": s} for n, s in enumerate(stamps, 1)],
        }
    )


def dated(paper: Paper) -> datetime:
    assert paper.published is not None, "synthetic papers are dated"
    return paper.published


@dataclass
class World:
    """The base store, the feed the killed ingests read, and what a whole ingest does."""

    root: Path
    base: Path
    feed: Path
    env: dict[str, str]
    catalog: Catalog
    base_ids: set[str]
    new_ids: set[str]
    #: Stored papers the feed brings a newer version of: id -> that version.
    updated: dict[str, int]
    #: The states of the files one whole ingest goes through: number -> what led to it.
    states: dict[int, str] = field(default_factory=dict)
    #: The last state before each batch's upsert returned.
    batch_ends: list[int] = field(default_factory=list)

    @property
    def batches(self) -> int:
        return len(self.batch_ends)

    @property
    def allowed(self) -> set[str]:
        return self.base_ids | self.new_ids


def child_env(root: Path) -> dict[str, str]:
    """A child environment that cannot reach the real home directory."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERTRACK_")}
    env.update(
        PAPERTRACK_HOME=str(root / "home"),
        HOME=str(root / "user-home"),
        XDG_DATA_HOME=str(root / "xdg"),
        PAPERTRACK_LOCK_TIMEOUT="30",
        NO_COLOR="1",
    )
    return env


@dataclass
class Point:
    """One killed ingest: where it ran and what came of it."""

    name: str
    where: Path
    kill_at: int = 0
    delay: float | None = None

    @property
    def store(self) -> Path:
        return self.where / "store"

    def notes(self) -> list[dict[str, Any]]:
        side = self.where / "side.jsonl"
        if not side.exists():
            return []
        return [json.loads(line) for line in side.read_text().splitlines() if line.strip()]

    def batches(self) -> list[list[str]]:
        """The batches whose upsert returned before the kill: committed."""
        return [n["batch"] for n in self.notes() if "batch" in n]

    def result(self) -> dict[str, Any]:
        return dict(json.loads((self.where / "result.json").read_text()))


def run_points(world: World, points: list[Point]) -> None:
    """Run every point through the warm server (see SERVER), two at a time."""
    config = {
        "base": str(world.base),
        "feed": str(world.feed),
        "recovery_feed": str(SMALL_FEED),
        "batch": BATCH,
        "jobs": WORKERS,
        "points": [[p.kill_at, str(p.where), p.delay] for p in points],
    }
    path = world.root / f"points-{points[0].name}.json"
    path.write_text(json.dumps(config))
    done = subprocess.run(
        [sys.executable, "-c", SERVER, str(path)], env=world.env, capture_output=True, timeout=300
    )
    assert done.returncode == 0, done.stderr.decode()


@dataclass
class Base:
    """The store every kill starts from: recorded feeds plus synthetic papers."""

    root: Path
    store: Path
    catalog: Catalog
    real: list[Paper]
    synthetic: list[Paper]


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Base:
    from bench.synth import synthetic_papers
    from papertrack.feeds import parse_feed, parse_jsonl

    root = tmp_path_factory.mktemp("crash")
    catalog = Catalog.load(default_topics_file())
    real = parse_feed(API_PAGE.read_bytes()).papers + parse_feed(LISTING.read_bytes()).papers
    real += parse_jsonl(KAGGLE.read_bytes()).papers
    synthetic = list(synthetic_papers(SYNTHETIC_BASE))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "fsync", lambda fd: None)  # as in SERVER: no power cut here
        with Store(root / "base").writer(catalog) as writer:
            writer.upsert(real)
            writer.upsert(synthetic)
    return Base(root, root / "base", catalog, real, synthetic)


def make_world(base: Base, name: str, move_days: int, reference: bool = True) -> World:
    """A feed of three batches, the second also bringing newer versions of stored papers
    dated ``move_days`` away (so they move week), and a reference run of its ingest."""
    from bench.synth import synthetic_papers

    root = base.root / name
    root.mkdir()
    new = list(synthetic_papers(NEW_PAPERS, seed=11, end=datetime(2027, 2, 1, tzinfo=UTC)))
    moved = base.synthetic[::UPDATED_EVERY]
    lines = [kaggle_line(p, 1, dated(p)) for p in new]
    lines[BATCH + 100 : BATCH + 100] = [
        kaggle_line(p, 4, dated(p) + timedelta(days=move_days)) for p in moved
    ]
    feed = root / "snapshot.jsonl"
    feed.write_text("\n".join(lines) + "\n", encoding="utf-8")
    found = World(
        root=root,
        base=base.store,
        feed=feed,
        env=child_env(root),
        catalog=base.catalog,
        base_ids={p.arxiv_id for p in base.real + base.synthetic},
        new_ids={p.arxiv_id for p in new},
        updated={p.arxiv_id: 4 for p in moved},
    )

    if not reference:
        return found
    # The reference run, not killed: the states of the files and the batches.
    reference_run = Point("reference", root / "reference")
    run_points(found, [reference_run])
    notes = reference_run.notes()
    found.states = {n["state"]: n["what"] for n in notes if "state" in n}
    found.batch_ends = [n["after_state"] for n in notes if "batch" in n]
    assert next(n["states"] for n in notes if "states" in n) == len(found.states)
    assert found.batches >= 3, "the bootstrap no longer makes ingest write in small batches"
    assert reference_run.result()["status"] == 0
    assert verdict(reference_run, found) == []
    ids = {p.arxiv_id for p in Store(reference_run.store).latest(None, limit=None)}
    assert ids == found.allowed
    assert check_store(Store(reference_run.store)).healthy
    return found


@pytest.fixture(scope="module")
def world(base: Base) -> World:
    # Moved nine days earlier, as a paper first seen in a listing moves when the API
    # gives its submission date.
    return make_world(base, "earlier", -9)


def problems(store: Path, world: World, batches: list[list[str]]) -> list[str]:
    """Everything wrong with ``store`` after a kill and a recovery (empty when all is well)."""
    found: list[str] = []
    records: list[tuple[str, dict[str, Any]]] = []
    for path in sorted((store / "papers").glob("*.json")):
        records += [(path.stem, r) for r in json.loads(path.read_bytes())["papers"].values()]
    ids = [r["arxiv_id"] for _, r in records]
    twice = sorted(pid for pid, n in Counter(ids).items() if n > 1)
    if twice:
        found.append(f"stored twice: {twice[:5]}")
    held = set(ids)
    if world.base_ids - held:
        found.append(f"base papers lost: {sorted(world.base_ids - held)[:5]}")
    committed = {pid for batch in batches for pid in batch}
    if committed - held:
        found.append(f"committed papers lost: {sorted(committed - held)[:5]}")
    if held - world.allowed:
        found.append(f"papers from nowhere: {sorted(held - world.allowed)[:5]}")
    versions = {r["arxiv_id"]: r["version"] for _, r in records}
    stale = [pid for pid, v in world.updated.items() if pid in committed and versions.get(pid) != v]
    if stale:
        found.append(f"committed new versions not stored: {stale[:5]}")

    # The id map sends every paper to the week file that holds it, and nothing else.
    id_map: dict[str, str] = {}
    for path in (store / "ids").glob("*.json"):
        id_map.update(json.loads(path.read_bytes())["ids"]["1"])
    if id_map != {r["arxiv_id"]: week for week, r in records}:
        found.append("the id map disagrees with the week files")

    # index.json counts what the week files hold, per topic, week and day.
    recount = Index()
    for _, record in records:
        recount.bump(Paper.from_record(record), +1)
    index = Store(store).index()
    for name, counted, real in (
        ("counts", index.counts, recount.counts),
        ("days", index.days, recount.days),
    ):
        if nonzero(counted) != nonzero(real):
            found.append(f"index {name} disagree with the week files")
    if index.fingerprints != world.catalog.fingerprints():
        found.append("tags were made with other topic definitions")

    # The full-text index is in step and names every paper in its week, nothing else.
    text = TextIndex(store / "search.sqlite")
    try:
        if not text.synced_with(index.generation):
            found.append("the full-text index is not in step after recovery")
        elif dict(text.ids()) != id_map:
            found.append("the full-text index disagrees with the week files")
        elif held and not text.candidates('"the"'):
            found.append("the full-text index finds nothing")
    finally:
        text.close()
    return found


def nonzero(counts: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    kept = {
        t: {w: n for w, n in weeks.items() if n and n != [0] * 7} for t, weeks in counts.items()
    }
    return {t: weeks for t, weeks in kept.items() if weeks}


def verdict(point: Point, world: World) -> list[str]:
    result = point.result()
    found = [f"unreadable right after the kill: {b}" for b in result["unreadable"]]
    if result["recovery"] != 0:
        log = (point.where / "recovery.log").read_text()[-400:]
        return [*found, f"the next ingest failed ({result['recovery']}): {log}"]
    if (point.store / ".dirty").exists() or list(point.store.rglob(".*.tmp")):
        found.append("the next ingest left .dirty or temp files")
    return found + [f"{point.name}: {p}" for p in problems(point.store, world, point.batches())]


def test_a_kill_at_any_write_loses_nothing_committed(world: World) -> None:
    points = [
        Point(f"{n}: {what}", world.root / f"state-{n}", n) for n, what in world.states.items()
    ]
    run_points(world, points)
    failures: list[str] = []
    committed: set[int] = set()
    for point in points:
        status = point.result()["status"]
        if not (os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL):
            failures.append(f"{point.name}: the ingest was not killed (status {status})")
        committed.add(len(point.batches()))
        failures += verdict(point, world)
    assert failures == []
    # Kills fell before the first commit, between every two, and after the last.
    assert set(range(world.batches + 1)) <= committed


def test_a_kill_at_a_random_moment_loses_nothing_committed(world: World) -> None:
    rng = random.Random(8)
    points = [
        Point(f"random-{n}", world.root / f"random-{n}", delay=rng.uniform(0.05, 0.6))
        for n in range(4)
    ]
    run_points(world, points)
    failures = [p for point in points for p in verdict(point, world)]
    assert failures == []
    killed = [p for p in points if os.WIFSIGNALED(p.result()["status"])]
    assert any(len(p.batches()) < world.batches for p in killed), "no kill hit the ingest"


def test_a_kill_while_a_paper_moves_to_a_later_week_loses_nothing(base: Base, world: World) -> None:
    """Newer versions dated nine days later: the kills fall inside the batch that moves them."""
    later = make_world(base, "later", +9, reference=False)
    # The files go through the same states as in ``world``, only the weeks the papers
    # move to differ: kill as each week file of the second batch is in place.
    first, second = world.batch_ends[:2]
    weeks = [
        n
        for n in range(first + 1, second + 1)
        if world.states[n].startswith("papers/") and world.states[n].endswith("into place")
    ]
    assert len(weeks) >= 2
    points = [Point(f"later-{n}", later.root / f"state-{n}", n) for n in weeks]
    run_points(later, points)
    failures = [p for point in points for p in verdict(point, later)]
    assert failures == []


READER = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from papertrack.store import Store

    root, stop = Path(sys.argv[1]), Path(sys.argv[2])
    rounds = 0
    while not stop.exists():
        placed = {}
        for path in sorted((root / "papers").glob("*.json")):
            try:
                data = json.loads(path.read_bytes())
            except FileNotFoundError:
                continue
            except ValueError as exc:
                sys.exit(f"half-written {path.name}: {exc}")
            for doc in data["papers"].values():
                if doc["arxiv_id"] in placed:
                    sys.exit(f"{doc['arxiv_id']} in {placed[doc['arxiv_id']]} and {path.name}")
                placed[doc["arxiv_id"]] = path.name
        for path in [root / "index.json", *sorted((root / "ids").glob("*.json"))]:
            try:
                json.loads(path.read_bytes())
            except FileNotFoundError:
                continue
            except ValueError as exc:
                sys.exit(f"half-written {path.name}: {exc}")
        got = [p.arxiv_id for p in Store(root).latest(None, limit=300)]
        if len(got) != len(set(got)):
            sys.exit("latest returned a paper twice")
        rounds += 1
        time.sleep(0.01)
    print(rounds)
    """
)


def test_concurrent_ingests_end_with_the_union_and_readers_see_whole_files(
    tmp_path: Path,
) -> None:
    """Four writers at once lose and double nothing; readers never see half a file."""
    from bench.synth import synthetic_papers

    synthetic = list(synthetic_papers(2500, seed=3, end=datetime(2027, 6, 7, tzinfo=UTC)))
    bulk = tmp_path / "synthetic.jsonl"
    bulk.write_text("".join(kaggle_line(p, 1, dated(p)) + "\n" for p in synthetic), "utf-8")
    store, stop = tmp_path / "store", tmp_path / "stop"
    env = child_env(tmp_path)

    def papertrack(*args: str) -> list[str]:
        return [sys.executable, "-m", "papertrack", "--db", str(store), *args]

    pipes: dict[str, Any] = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "env": env}
    reader = subprocess.Popen([sys.executable, "-c", READER, str(store), str(stop)], **pipes)
    writers = [
        subprocess.Popen(papertrack("ingest", str(feed)), **pipes)
        for feed in (LISTING, API_PAGE, KAGGLE, bulk)
    ]
    try:
        latest_runs = 0
        while any(w.poll() is None for w in writers):
            if not store.exists():  # a store named by --db is read once a writer made it
                time.sleep(0.02)
                continue
            shown = subprocess.run(papertrack("latest", "-n", "500", "--json"), **pipes, timeout=60)
            assert shown.returncode == 0, shown.stderr.decode()
            ids = [p["arxiv_id"] for p in json.loads(shown.stdout)]
            assert len(ids) == len(set(ids)), "latest showed a paper twice"
            latest_runs += 1
        for writer in writers:
            _, err = writer.communicate(timeout=120)
            assert writer.returncode == 0, err.decode()
        stop.touch()
        out, err = reader.communicate(timeout=60)
        assert reader.returncode == 0, err.decode()
    finally:
        for proc in [reader, *writers]:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    # The readers did read while the writers wrote.
    assert int(out) >= 2 and latest_runs >= 1

    expected = 86 + 100 + 200 + len(synthetic)
    held = Store(store)
    ids = [p.arxiv_id for p in held.latest(None, limit=None)]
    assert len(ids) == len(set(ids)) == expected
    assert held.count() == expected
    assert {p.arxiv_id for p in synthetic} <= set(ids)
    assert check_store(held).healthy
