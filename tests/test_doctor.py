"""papertrack doctor: finds each kind of damage, names the file, repairs it, names what was lost.

Every case damages a copy of a real store (the recorded listing, API page and
Kaggle head: 386 papers in ~100 week files) the way a disk, a sync tool or a
hand edit could, then runs the real command line.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from helpers import error_line, killed_writers_temp, no_traceback, run

from papertrack.doctor import check_store, salvage_records
from papertrack.feeds import parse_feed, parse_jsonl
from papertrack.files import Lock
from papertrack.models import Paper
from papertrack.paths import default_topics_file
from papertrack.store import Index, Store, id_shard
from papertrack.topics import Catalog

DATA = Path(__file__).parent / "data"
LISTING = DATA / "rss" / "atom-cs.AI-2025-08-20.first86.xml"
API_PAGE = DATA / "api-atom" / "arxiv.py-2026-recorded" / "q_testing_s0_m100_cfe7536492ca.xml"
KAGGLE = DATA / "kaggle-jsonl" / "arxiv-metadata-oai-snapshot.head200.jsonl"
#: The week of the listing's 86 papers: damaged in most cases below.
WEEK = "2025-08-18"
PART = f"papers/{WEEK}.json"
TOTAL = 386
FIX = "papertrack doctor --repair"


@pytest.fixture(autouse=True)
def no_fsync(monkeypatch: pytest.MonkeyPatch) -> None:
    # A repair rewrites ~80 small files, each with two fsyncs: most of its time on a
    # slow disk. Nothing here cuts the power, so flushing to the platter changes nothing.
    monkeypatch.setattr(os, "fsync", lambda fd: None)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load(default_topics_file())


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory, catalog: Catalog) -> Path:
    root = tmp_path_factory.mktemp("doctor") / "store"
    papers = parse_feed(LISTING.read_bytes()).papers + parse_feed(API_PAGE.read_bytes()).papers
    papers += parse_jsonl(KAGGLE.read_bytes()).papers
    with Store(root).writer(catalog) as writer:
        writer.upsert(papers)
    assert Store(root).count() == TOTAL
    return root


@pytest.fixture
def store(template: Path, isolated_home: Path) -> Store:
    """A fresh copy of the template, where the CLI finds it by default."""
    shutil.copytree(template, isolated_home / "store")
    return Store(isolated_home / "store")


def records(store: Store, week: str = WEEK) -> list[dict[str, Any]]:
    data = json.loads(store.partition_path(week).read_bytes())
    return list(data["papers"].values())


def stored(store: Store) -> list[Paper]:
    return [p for week in store.weeks() for p in store.read_partition(week)]


# --------------------------------------------------------------------------- damage


@dataclass
class Damage:
    """What a case did to the store: the file to name, and the papers it destroyed."""

    file: str
    lost: list[str]
    #: The damaged bytes of a week file, which a repair must keep in damaged/.
    kept: bytes | None = None
    #: Commands that read the damaged file and must fail, naming it.
    readers: tuple[tuple[str, ...], ...] = ()
    #: Bytes the repair must keep a copy of in damaged/ (a killed writer's temp file).
    copied: bytes | None = None
    #: Not damage: left for the next writer to clear (doctor says so and exits 0).
    pending: bool = False


# Both read the listing's week: latest reads every week, ingest looks up each paper.
READERS = (("latest", "-n", "500"), ("ingest", str(LISTING)))


def truncated(store: Store) -> Damage:
    """Cut inside the 41st record: records 1-40 are whole, the rest is gone."""
    path = store.partition_path(WEEK)
    raw, docs = path.read_bytes(), records(store)
    cut = raw.index(b',"41":{') + 30
    path.write_bytes(raw[:cut])
    return Damage(PART, sorted(d["arxiv_id"] for d in docs[40:]), raw[:cut], READERS)


def emptied(store: Store) -> Damage:
    """A week file cut to nothing (a full disk, a sync tool): doctor said "not valid
    JSON (Expecting value: line 1 column 1 (char 0))"."""
    docs = records(store)
    store.partition_path(WEEK).write_bytes(b"")
    return Damage(
        PART, sorted(d["arxiv_id"] for d in docs), b"", readers=(("export", "-f", "jsonl"),)
    )


def garbled(store: Store) -> Damage:
    """Random bytes over the whole file: nothing can be read."""
    path = store.partition_path(WEEK)
    docs = records(store)
    noise = random.Random(5).randbytes(path.stat().st_size)
    path.write_bytes(noise)
    return Damage(PART, sorted(d["arxiv_id"] for d in docs), noise, READERS)


def garbled_middle(store: Store) -> Damage:
    """Sixty random bytes inside one abstract: only that paper is lost."""
    path = store.partition_path(WEEK)
    raw, docs = path.read_bytes(), records(store)
    at = raw.index(b'"abstract":', raw.index(b',"30":{')) + 40
    rng = random.Random(6)
    damaged = raw[:at] + bytes(rng.randrange(0x80, 0x100) for _ in range(60)) + raw[at + 60 :]
    path.write_bytes(damaged)
    return Damage(PART, [docs[29]["arxiv_id"]], damaged, READERS)


def not_tinydb(store: Store) -> Damage:
    """Valid JSON, but a list of the records instead of a TinyDB database: nothing lost."""
    path = store.partition_path(WEEK)
    listed = json.dumps(records(store)).encode()
    path.write_bytes(listed)
    return Damage(PART, [], listed, READERS)


def record_without_id(store: Store) -> Damage:
    """A whole file whose 5th record lost its arxiv_id."""
    path = store.partition_path(WEEK)
    data = json.loads(path.read_bytes())
    lost = data["papers"]["5"].pop("arxiv_id")
    path.write_bytes(json.dumps(data).encode())
    return Damage(PART, [lost], path.read_bytes(), READERS)


def index_damaged(store: Store) -> Damage:
    raw = store.index_path.read_bytes()
    store.index_path.write_bytes(raw[: len(raw) // 3])
    return Damage("index.json", [], readers=(("latest",), ("ingest", str(LISTING))))


def shard_damaged(store: Store) -> Damage:
    path = store.shard_path(id_shard("2508.13167"))  # the listing's month
    path.write_bytes(random.Random(7).randbytes(path.stat().st_size))
    return Damage(f"ids/{path.name}", [], readers=(("ingest", str(LISTING)),))


def week_file_deleted(store: Store) -> Damage:
    """A week file removed by hand: the id map still names its papers. Readers took
    the store without it for the whole: an export wrote the rest and exited 0, and
    an ingest of those papers again counted them twice."""
    docs = records(store)
    store.partition_path(WEEK).unlink()
    readers = (("export", "-f", "jsonl"), ("show", "2508.13167"), ("ingest", str(LISTING)))
    # Those that count from index.json alone went on counting its papers, exit 0.
    readers += (("momentum", "llm-agent-training"), ("trending",), ("topics", "list"))
    return Damage(PART, sorted(d["arxiv_id"] for d in docs), readers=readers)


def week_file_deleted_after_a_cut_short_write(store: Store) -> Damage:
    """The same, with the marker any killed write leaves: readers let a missing week
    pass for the next writer's rebuild, which made the id map and index anew without
    its papers (304 of 4,802 gone with no word, and doctor then found nothing)."""
    damage = week_file_deleted(store)
    store.dirty_path.write_bytes(b"1")
    return damage


def paper_in_two_weeks(store: Store) -> Damage:
    """An older copy of a paper in the week before, as a kill mid-move could leave."""
    doc = dict(records(store)[0], version=0, published="2025-08-12T10:00:00Z")
    earlier = store.partition_path("2025-08-11")
    data = json.loads(earlier.read_bytes()) if earlier.exists() else {"papers": {}}
    data["papers"][str(len(data["papers"]) + 1)] = doc
    earlier.write_bytes(json.dumps(data).encode())
    return Damage(f"papers/2025-08-11.json, {PART}", [])


def misplaced(store: Store) -> Damage:
    """A paper whose date says another week than the file it sits in."""
    path = store.partition_path(WEEK)
    data = json.loads(path.read_bytes())
    data["papers"]["3"]["published"] = "2025-06-03T09:00:00Z"
    path.write_bytes(json.dumps(data).encode())
    return Damage(PART, [], path.read_bytes())


def fields_of_the_wrong_kind(store: Store) -> Damage:
    """Authors as one string, a version as a word (a hand edit): every reader went on,
    an export wrote one author a letter and "version": "two"."""
    path = store.partition_path(WEEK)
    data = json.loads(path.read_bytes())
    data["papers"]["2"]["authors"] = "Alice Smith"
    data["papers"]["5"]["version"] = "two"
    path.write_bytes(json.dumps(data).encode())
    readers = (("export", "-f", "jsonl"), ("show", data["papers"]["2"]["arxiv_id"]))
    return Damage(PART, [], path.read_bytes(), readers=readers)


def stray_temp_file(store: Store) -> Damage:
    """A killed writer's temp file: cleared, its bytes kept (it may be the only whole
    copy of a week damaged as well)."""
    stray = killed_writers_temp(store.partition_path(WEEK))
    stray.write_bytes(b'{"papers":{"1":{')
    return Damage(f"papers/{stray.name}", [], copied=b'{"papers":{"1":{', pending=True)


def leftover_dirty(store: Store) -> Damage:
    (store.path / ".dirty").write_bytes(b"1")
    return Damage(".dirty", [])


CASES: list[Callable[[Store], Damage]] = [
    truncated,
    emptied,
    garbled,
    garbled_middle,
    not_tinydb,
    record_without_id,
    index_damaged,
    shard_damaged,
    week_file_deleted,
    week_file_deleted_after_a_cut_short_write,
    paper_in_two_weeks,
    misplaced,
    fields_of_the_wrong_kind,
    stray_temp_file,
]


# --------------------------------------------------------------------------- tests


def test_a_healthy_store_passes(store: Store) -> None:
    result = run("doctor")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert f"{TOTAL} papers in" in result.stdout
    assert "No problems found." in result.stderr
    data = json.loads(run("doctor", "--json").stdout)
    assert data["healthy"] is True and data["problems"] == [] and data["papers"] == TOTAL
    repaired = run("doctor", "--repair")
    assert repaired.exit_code == 0
    assert "nothing to repair" in repaired.stderr
    assert not (store.path / "damaged").exists()


def test_papertracks_own_files_are_checked_too(store: Store, isolated_home: Path) -> None:
    """A missing quote in topics.toml stopped every night's fetch while doctor said
    "No problems found": it checked the store alone."""
    data = json.loads(run("doctor", "--json").stdout)
    assert data["home_problems"] == []
    repaired = json.loads(run("doctor", "--repair", "--json").stdout)
    # The repair's JSON keeps the check's figures, as docs/output.md says.
    assert {k: repaired[k] for k in ("partitions", "unreadable", "shards")} == {
        k: data[k] for k in ("partitions", "unreadable", "shards")
    }
    topics = isolated_home / "topics.toml"
    topics.write_text('[[topic]]\nname = "Diffusion Policies\nquery = "x"\n', "utf-8")
    (isolated_home / "following.json").write_text("{not json", "utf-8")
    result = run("doctor")
    error_line(result, 1, "2 problems in papertrack's own files", "Fix them by hand")
    shown = [line for line in result.stdout.splitlines() if line.startswith("In your files: ")]
    assert len(shown) == 2 and f"{topics} is not valid TOML" in shown[0], shown
    assert "following.json" in shown[1]
    home = json.loads(run("doctor", "--json").stdout)["home_problems"]
    assert len(home) == 2 and f"{topics} is not valid TOML" in home[0]
    # A topic that cannot work is skipped with a warning by every command: said here too.
    topics.write_text('[[topic]]\nname = "Empty"\n', "utf-8")
    (isolated_home / "following.json").unlink()
    home = json.loads(run("doctor", "--json").stdout)["home_problems"]
    assert len(home) == 1 and home[0].startswith(f"{topics}: ") and "skipped" in home[0]


def test_no_store_yet_is_not_a_problem(isolated_home: Path) -> None:
    result = run("doctor")
    assert result.exit_code == 0
    assert "nothing to check" in result.stderr
    assert not isolated_home.exists(), "a check creates nothing"


@pytest.mark.parametrize("args", [["doctor"], ["doctor", "--repair"], ["doctor", "--json"]])
def test_a_store_path_that_names_nothing_is_an_error(isolated_home: Path, args: list[str]) -> None:
    # A cron health check of a mistyped --db said "nothing to check", exit 0, as if
    # all were well; every command that reads calls it an error.
    missing = isolated_home / "no-such-store"
    result = run("--db", str(missing), *args)
    line = error_line(result, 1, "no store at", "which --db or PAPERTRACK_DB names")
    assert "no-such-store" in line
    assert not missing.exists()


@pytest.mark.parametrize("damage", CASES, ids=[c.__name__ for c in CASES])
def test_doctor_finds_names_and_repairs(
    damage: Callable[[Store], Damage], store: Store, catalog: Catalog
) -> None:
    done = damage(store)

    # The check names the file and the fix, reads only, and fails.
    before = sorted(p.relative_to(store.path) for p in store.path.rglob("*"))
    found = run("doctor")
    # A killed writer's temp file fails no health check (a cron one failed after every
    # kill -9 until the next ingest): said, with what clears it.
    assert found.exit_code == (0 if done.pending else 1)
    no_traceback(found)
    lines = [line for line in found.stdout.splitlines() if done.file in line]
    assert lines, found.stdout
    if done.kept == b"":
        assert f"{done.file} is damaged: it is empty." in lines[0]
    if done.pending:
        assert lines[0].endswith(
            "The next command that writes to the store deletes it, or 'papertrack doctor "
            "--repair' does it now."
        )
        assert json.loads(run("doctor", "--json").stdout)["healthy"] is True
    else:
        # (A .dirty marker is said with what the next write does about it.)
        problems = [x for x in found.stdout.splitlines()[1:] if not x.startswith(".dirty ")]
        assert all(line.endswith(f"Run '{FIX}'.") for line in problems)
        assert f"Run '{FIX}'" in found.stderr
    assert sorted(p.relative_to(store.path) for p in store.path.rglob("*")) == before

    # Other commands that read the damaged file say which and how to fix it.
    for reader in done.readers:
        other = run(*reader)
        assert other.exit_code == 1, reader
        no_traceback(other)
        assert other.stderr.startswith("Error: store file "), other.stderr
        assert done.file in other.stderr
        assert FIX in other.stderr.splitlines()[-1]

    # The repair fixes it, names exactly the papers lost, keeps the damaged bytes.
    repaired = run("doctor", "--repair", "--json")
    assert repaired.exit_code == 0, repaired.stdout + repaired.stderr
    report = json.loads(repaired.stdout)
    assert report["healthy"] is True and report["remaining"] == []
    assert report["lost"] == done.lost
    if done.kept is not None:
        [salvage] = report["salvaged"]
        assert salvage["file"] == done.file
        assert (store.path / salvage["kept_at"]).read_bytes() == done.kept
        assert salvage["kept_at"].startswith(f"damaged/{WEEK}.json.")
        assert salvage["lost"] == done.lost
    elif done.copied is not None:
        assert report["salvaged"] == []
        [copy] = (store.path / "damaged").iterdir()
        assert copy.read_bytes() == done.copied
    else:
        assert report["salvaged"] == [] and not (store.path / "damaged").exists()

    # ... and the store is whole again: a second check is clean, counts and tags are right.
    again = run("doctor")
    assert again.exit_code == 0, again.stdout
    papers = stored(store)
    ids = [p.arxiv_id for p in papers]
    assert len(ids) == len(set(ids)) == TOTAL - len(done.lost)
    assert not set(done.lost) & set(ids)
    recount = Index()
    for paper in papers:
        assert paper.tags == catalog.tag(paper), paper.arxiv_id
        recount.bump(paper, +1)
    assert store.index().counts == {t: w for t, w in recount.counts.items() if any(w.values())}
    assert store.tags_current(catalog)
    assert run("latest", "-n", "500", "--json").exit_code == 0


def test_repair_report_for_people_names_the_lost_papers(store: Store) -> None:
    done = truncated(store)
    index_damaged(store)
    result = run("doctor", "--repair")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert f"Found: {PART} is damaged: not valid JSON" in out
    assert f"Repaired {PART}: salvaged 40 papers" in out
    assert f"the damaged file is kept as damaged/{WEEK}.json." in out
    named = ", ".join(done.lost[:10])
    assert f"lost {len(done.lost)}: {named} and {len(done.lost) - 10} more." in out
    # Said once: the next repair finds nothing, and names no loss again.
    again = run("doctor", "--repair")
    assert again.exit_code == 0 and "No problems found" in again.stderr
    assert "lost" not in (again.stdout + again.stderr).lower()
    assert (
        "Rebuilt index.json, search.sqlite from the week files (derived data: nothing lost)." in out
    )
    assert "Retagged every paper" in out
    assert f"lost {len(done.lost)} papers" in result.stderr


def test_a_repair_cut_short_still_has_its_losses_named_by_the_next(
    store: Store, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed after it rewrote the week file and rebuilt the id map, a repair left a
    store the next repair found only missing its derived files: "nothing lost"."""
    import papertrack.salvage as salvage

    done = truncated(store)
    real = salvage.checkup_of
    calls = []

    def killed_after_the_rewrite(*args: object, **kwargs: object) -> object:
        calls.append(1)
        if len(calls) == 2:  # the check after the rewrite and the rebuild
            raise KeyboardInterrupt  # as a kill there: nothing after it ran
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(salvage, "checkup_of", killed_after_the_rewrite)
    assert run("doctor", "--repair").exit_code == 130
    monkeypatch.setattr(salvage, "checkup_of", real)
    # A plain doctor said "No problems found", the losses named nowhere but damaged/.
    record = next(store.damaged_dir.glob("repair-*.lost.json"))
    named = json.loads(record.read_bytes())
    record.write_text(json.dumps({"lost": [*named["lost"], "\x1b]0;owned\x07x"]}))
    checked = run("doctor")
    assert checked.exit_code == 1, checked.stderr
    assert "\x1b" not in checked.stdout  # the record's ids are text, not escapes
    record.write_text(json.dumps(named))
    checked = run("doctor")
    assert checked.exit_code == 1, checked.stderr
    assert (
        f"names {len(done.lost)} papers an interrupted repair lost and did not report "
        f"({', '.join(sorted(done.lost)[:10])}"
    ) in checked.stdout
    assert "Run 'papertrack doctor --repair' to report them" in checked.stdout
    assert json.loads(run("doctor", "--json").stdout)["healthy"] is False
    again = run("doctor", "--repair")
    assert again.exit_code == 0, again.stderr
    assert f"Lost {len(done.lost)} papers an interrupted repair could not salvage" in again.stdout
    assert run("doctor").exit_code == 0
    assert f"lost {len(done.lost)} papers" in again.stderr
    logged = (isolated_home / "papertrack.log").read_text(encoding="utf-8")
    assert f"Lost in the repair: {', '.join(sorted(done.lost))}." in logged
    # Reported once: the record is kept, marked, beside the damaged file.
    third = run("doctor", "--repair")
    assert "No problems found" in third.stderr
    kept = sorted(p.name for p in store.damaged_dir.iterdir())
    assert any(name.endswith(".lost.reported.json") for name in kept), kept


def test_a_week_file_the_repair_cannot_read_stops_it_with_the_store_as_it_was(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It left the .dirty marker behind, which the next check reported as an
    interrupted write."""
    truncated(store)
    week = store.partition_path(WEEK)
    damaged = week.read_bytes()
    real = Path.read_bytes

    def no_permission(path: Path) -> bytes:
        if path == week:
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(Path, "read_bytes", no_permission)
    result = run("doctor", "--repair")
    error_line(result, 1, f"{PART} could not be read (Permission denied)", "Check its permissions")
    monkeypatch.setattr(Path, "read_bytes", real)
    assert not store.dirty_path.exists()
    assert week.read_bytes() == damaged
    assert run("doctor", "--repair").exit_code == 0


def test_repair_retags_with_the_current_topics_when_the_index_is_lost(
    store: Store, isolated_home: Path
) -> None:
    """The index held the topic fingerprints: without them every topic is matched again."""
    user = isolated_home / "topics.toml"
    user.write_text("[[topic]]\nname = \"Benchmarks\"\nquery = 'benchmark*'\n", "utf-8")
    current = Catalog.load(default_topics_file(), user)
    index_damaged(store)
    result = run("doctor", "--repair")
    assert result.exit_code == 0, result.stderr
    assert "Retagged every paper" in result.stdout
    papers = stored(store)
    assert all(p.tags == current.tag(p) for p in papers)
    assert sum("benchmarks" in p.tags for p in papers) == store.count("benchmarks") > 0
    assert store.tags_current(current)


@pytest.mark.parametrize("command", [["latest", "-n", "1000", "--json"], ["stats", "--json"]])
def test_a_deleted_index_is_rebuilt_by_the_next_command_not_read_as_an_empty_store(
    store: Store, command: list[str]
) -> None:
    # Without index.json the store read as empty: "No papers in the store yet",
    # exit 0, beside TOTAL papers in their week files.
    store.index_path.unlink()
    result = run(*command)
    assert result.exit_code == 0, result.stderr
    assert "No papers in the store yet" not in result.stderr
    shown = json.loads(result.stdout)
    assert (len(shown) if command[0] == "latest" else shown["papers"]) == TOTAL
    assert store.index_path.exists() and store.count() == TOTAL


def test_a_deleted_id_map_file_does_not_hide_stored_papers(store: Store) -> None:
    # show, explain and teach said "no paper 2508.13167 in the store, ingest it".
    store.shard_path(id_shard("2508.13167")).unlink()
    shown = run("show", "2508.13167", "--json")
    assert shown.exit_code == 0, shown.stderr
    assert json.loads(shown.stdout)["arxiv_id"] == "2508.13167"
    assert run("topics", "explain", "2508.13167", "llm-agent-training").exit_code == 0
    assert run("show", "2508.99999").exit_code == 1  # not stored is still not stored


def test_two_weeks_keeps_the_newest_copy(store: Store) -> None:
    first = records(store)[0]
    paper_in_two_weeks(store)
    result = run("doctor", "--repair")
    assert result.exit_code == 0
    assert f"Kept the newest copy of 1 paper stored in two weeks: {first['arxiv_id']}." in (
        result.stdout
    )
    kept = store.get(first["arxiv_id"])
    assert kept is not None and kept.version == first["version"]
    assert not store.read_partition("2025-08-11") or all(
        p.arxiv_id != first["arxiv_id"] for p in store.read_partition("2025-08-11")
    )


def test_misplaced_paper_moves_to_the_week_of_its_date(store: Store) -> None:
    pid = records(store)[2]["arxiv_id"]
    misplaced(store)
    assert run("doctor", "--repair").exit_code == 0
    assert [p.arxiv_id for p in store.read_partition("2025-06-02")] == [pid]
    assert pid not in {p.arxiv_id for p in store.read_partition(WEEK)}


def test_repair_waits_for_the_writer_lock_then_gives_up(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    truncated(store)
    monkeypatch.setenv("PAPERTRACK_LOCK_TIMEOUT", "0.2")
    before = store.partition_path(WEEK).read_bytes()
    # The lock alone: a writer would stop at the damaged file while preparing.
    lock = Lock(store.path / ".lock", 1.0)
    lock.acquire()
    try:
        result = run("doctor", "--repair")
    finally:
        lock.release()
    assert result.exit_code == 1
    no_traceback(result)
    assert "another papertrack process has held the store lock" in result.stderr
    assert store.partition_path(WEEK).read_bytes() == before
    assert not (store.path / "damaged").exists()


# --------------------------------------------------------------------------- salvage


def record_ends(raw: bytes, count: int) -> list[int]:
    """Where each record of a whole week file ends: just before the next one's `,"<id>":{`."""
    starts = [raw.index(f',"{n}":{{'.encode()) for n in range(2, count + 1)]
    return [*starts, len(raw) - 2]  # the last record ends before the closing "}}"


def test_salvage_keeps_every_complete_record_wherever_the_file_is_cut(store: Store) -> None:
    raw = store.partition_path(WEEK).read_bytes()
    docs = records(store)
    ends = record_ends(raw, len(docs))
    # Every 97 bytes of the first 20 records, one byte short of and at the end of each.
    cuts = {*range(0, ends[19], 97), *(e - 1 for e in ends), *ends}
    for cut in sorted(cuts):
        got = [d["arxiv_id"] for d in salvage_records(raw[:cut])]
        whole = [d["arxiv_id"] for d, end in zip(docs, ends, strict=True) if end <= cut]
        assert got == whole, cut
    assert salvage_records(raw) == docs


def test_salvage_skips_garbled_records_and_keeps_the_rest(store: Store) -> None:
    raw = store.partition_path(WEEK).read_bytes()
    docs = records(store)
    ends = record_ends(raw, len(docs))
    # Garbage from inside record 10 to inside record 12, and a lost closing brace of 50.
    damaged = bytearray(raw)
    damaged[ends[8] + 100 : ends[11] - 50] = b"\xff\x00garbage" * 5
    damaged = bytes(damaged)
    brace = damaged.index(b',"51":{') - 1
    assert damaged[brace : brace + 1] == b"}"
    damaged = damaged[:brace] + damaged[brace + 1 :]
    got = {d["arxiv_id"] for d in salvage_records(damaged)}
    lost = {docs[n]["arxiv_id"] for n in (9, 10, 11, 49)}
    assert got == {d["arxiv_id"] for d in docs} - lost


def test_salvage_reads_records_from_valid_json_of_another_shape(store: Store) -> None:
    docs = records(store)
    assert salvage_records(json.dumps(docs).encode()) == docs
    assert salvage_records(json.dumps({"x": {"y": docs[:3]}}).encode()) == docs[:3]
    assert salvage_records(b"[[[[[[[[") == []
    assert salvage_records(b"\x00\xff" * 100) == []


def test_check_reports_each_problem_once(store: Store) -> None:
    truncated(store)
    stray_temp_file(store)
    leftover_dirty(store)
    checkup = check_store(store)
    kinds = sorted(p.kind for p in checkup.problems)
    assert kinds == ["damaged", "dirty", "temp-file"]
    assert checkup.papers == TOTAL - 86


# --------------------------------------------------------------------------- walkthrough finds


@pytest.mark.parametrize("kind", ["dangling-link", "file"])
def test_a_papers_folder_that_cannot_be_read_is_no_empty_store(
    store: Store, tmp_path: Path, kind: str
) -> None:
    """Read as empty: `doctor` reported a healthy store of 0 papers (and every id map
    shard stale), and `--repair` rebuilt the id map and index from nothing."""
    papers = store.papers_dir
    papers.rename(tmp_path / "papers")
    if kind == "file":
        papers.write_bytes(b"not a folder")
    else:
        papers.symlink_to(tmp_path / "unmounted" / "papers")
    derived = {p: p.read_bytes() for p in [store.index_path, *store.ids_dir.iterdir()]}
    checked = run("doctor")
    assert checked.exit_code == 1
    assert checked.stdout.splitlines()[1].startswith("papers ")
    assert len(checked.stdout.splitlines()) == 2  # that one problem, not 70 stale shards
    assert "Fix what cannot be read first" in checked.stderr
    error_line(run("doctor", "--repair"), 1, "papers", "then repair again")
    assert {p: p.read_bytes() for p in derived} == derived
    error_line(run("latest", "-n", "500"), 1, "papers")
    error_line(run("stats"), 1, "papers")
    papers.unlink()
    (tmp_path / "papers").rename(papers)
    assert run("doctor").exit_code == 0
    assert len(stored(store)) == TOTAL


def test_a_garbled_search_index_is_found_and_rebuilt(store: Store) -> None:
    """Its meta and id rows read well while other pages were garbled: every search
    failed "Run 'papertrack doctor --repair'", and the doctor found nothing."""
    raw = bytearray(store.search_path.read_bytes())
    pages = len(raw) // 4096
    assert pages > 8
    start = 4096 * (pages // 2)
    raw[start : start + 4096 * 2] = random.Random(8).randbytes(4096 * 2)
    store.search_path.write_bytes(bytes(raw))
    checked = run("doctor")
    assert checked.exit_code == 1 and "search.sqlite is damaged" in checked.stdout
    repaired = run("doctor", "--repair")
    assert repaired.exit_code == 0, repaired.stderr
    assert "nothing lost" in repaired.stderr
    assert run("doctor").exit_code == 0
    found = run("search", "learning", "-n", "3", "--json")
    assert found.exit_code == 0 and json.loads(found.stdout), found.stderr


def test_fields_of_the_wrong_kind_are_found_and_only_they_are_dropped(store: Store) -> None:
    """A date past the calendar crashed doctor (OverflowError); a bad date lost the
    whole paper in a repair; authors and tags written as strings passed the check and
    read as one letter each."""
    path = store.partition_path(WEEK)
    data = json.loads(path.read_bytes())
    docs = list(data["papers"].values())
    docs[0]["updated"] = "2025-13-45"
    docs[1]["authors"] = "Alice Smith"
    docs[1]["tags"] = "gui-agents"
    docs[2]["updated"] = "0001-01-01T00:00:00+05:00"
    path.write_bytes(json.dumps(data).encode())
    ids = [d["arxiv_id"] for d in docs[:3]]
    checked = run("doctor")
    no_traceback(checked)
    assert checked.exit_code == 1
    assert (
        f"{PART} is damaged: 3 papers have fields of the wrong kind ({ids[0]}: updated, "
        f"{ids[1]}: authors, tags, {ids[2]}: updated)"
    ) in checked.stdout
    repaired = run("doctor", "--repair")
    assert repaired.exit_code == 0, repaired.stderr
    assert "kept 3 papers without the fields that were of the wrong kind" in repaired.stdout
    assert "nothing lost" in repaired.stderr
    assert run("doctor").exit_code == 0
    kept = {p.arxiv_id: p for p in stored(store)}
    assert len(kept) == TOTAL
    assert kept[ids[1]].authors == () and kept[ids[1]].title == docs[1]["title"]
    assert kept[ids[0]].updated is None and kept[ids[0]].abstract == docs[0]["abstract"]


def test_a_paper_in_two_weeks_beside_the_dirty_marker_is_work_for_the_next_write(
    store: Store,
) -> None:
    """A write killed while moving papers to later weeks leaves both copies and its
    marker; the next writer keeps the newest copy. doctor called them problems, exit
    1 ("Run --repair"), so a cron health check fired after every killed ingest."""
    paper_in_two_weeks(store)
    assert run("doctor").exit_code == 1  # without the marker: damage
    # A killed teach's marker: the next write only recounts, and leaves both copies.
    store.dirty_path.write_bytes(b"retag")
    assert run("doctor").exit_code == 1
    store.dirty_path.write_bytes(b"1")
    found = run("doctor")
    assert found.exit_code == 0, found.stdout
    assert "both hold the same 1 paper" in found.stdout
    assert "The next command that writes to the store" in found.stdout
    assert "No damage found: only work still to do" in found.stderr
    assert run("ingest", str(LISTING)).exit_code == 0
    again = run("doctor")
    assert again.exit_code == 0 and "No problems found" in again.stderr
    assert len(stored(store)) == len({p.arxiv_id for p in stored(store)})


def test_a_paper_kept_without_its_tags_is_tagged_again(store: Store) -> None:
    """Tags written as a string were dropped by the repair and never made again: the
    paper left every topic for good, while 'topics explain' said it was in them."""
    path = store.partition_path(WEEK)
    data = json.loads(path.read_bytes())
    doc = next(d for d in data["papers"].values() if len(d["tags"]) >= 2)
    tags, pid = list(doc["tags"]), doc["arxiv_id"]
    topic = tags[0]
    counted = len(json.loads(run("latest", topic, "--json", "-n", "1000").stdout))
    doc["tags"] = ", ".join(tags)
    path.write_bytes(json.dumps(data).encode())
    repaired = run("doctor", "--repair")
    assert repaired.exit_code == 0, repaired.stderr
    assert f"{pid}: tags" in repaired.stdout
    kept = {p.arxiv_id: p for p in stored(store)}
    assert list(kept[pid].tags) == tags
    assert run("doctor").exit_code == 0  # the index counts it in its topics again
    again = json.loads(run("latest", topic, "--json", "-n", "1000").stdout)
    assert len(again) == counted and pid in {p["arxiv_id"] for p in again}


def test_a_record_cut_down_to_its_id_is_lost_not_salvaged(store: Store) -> None:
    """It was kept as a whole paper with no title, dates or authors, and moved to an
    undated week "of its date"."""
    path = store.partition_path(WEEK)
    data = json.loads(path.read_bytes())
    stub = data["papers"]["7"]["arxiv_id"]
    data["papers"]["7"] = {"arxiv_id": stub}
    path.write_bytes(json.dumps(data).encode())
    repaired = run("doctor", "--repair")
    assert repaired.exit_code == 0, repaired.stderr
    assert f"lost 1: {stub}" in repaired.stdout
    assert not store.partition_path("undated").exists()


def test_records_wrapped_in_lists_are_salvaged(store: Store) -> None:
    path = store.partition_path(WEEK)
    data = json.loads(path.read_bytes())
    path.write_bytes(json.dumps({"papers": {k: [v] for k, v in data["papers"].items()}}).encode())
    repaired = run("doctor", "--repair")
    assert repaired.exit_code == 0, repaired.stderr
    assert "nothing lost" in repaired.stderr and len(stored(store)) == TOTAL


def test_papers_whose_id_map_and_index_are_damaged_too_are_named_from_the_search_index(
    store: Store,
) -> None:
    """With the week file's id map shard garbled the lost were 'unnamed' and the last
    line said "nothing lost"; with index.json garbled as well no loss was said at all,
    and the rebuild wiped the search index, their last record."""
    done = truncated(store)
    shard_damaged(store)
    index_damaged(store)
    repaired = run("doctor", "--repair")
    assert repaired.exit_code == 0, repaired.stderr
    assert f"lost {len(done.lost)}: {', '.join(done.lost[:10])}" in repaired.stdout
    assert f"lost {len(done.lost)} papers" in repaired.stderr
    report = json.loads(run("doctor", "--repair", "--json").stdout)
    assert report["lost"] == [] and report["healthy"] is True  # said once


def test_a_week_file_that_is_a_folder_is_named_as_one(store: Store) -> None:
    odd = store.partition_path("2025-08-25")
    odd.mkdir()
    checked = run("doctor")
    assert "papers/2025-08-25.json is a folder, not a week file. Move it out of the store." in (
        checked.stdout
    )
    assert "Fix what cannot be read first" in checked.stderr


def test_an_id_map_folder_that_is_a_file_stops_the_repair_before_it_writes(store: Store) -> None:
    """The repair failed at its first shard ("File exists") and left .dirty behind."""
    shutil.rmtree(store.ids_dir)
    store.ids_dir.write_bytes(b"x")
    checked = run("doctor")
    assert "ids is a file, not the id map's folder. Move it out of the store." in checked.stdout
    error_line(run("doctor", "--repair"), 1, "ids is a file")
    assert not store.dirty_path.exists()
    store.ids_dir.unlink()
    assert run("doctor", "--repair").exit_code == 0
    assert run("doctor").exit_code == 0


def test_a_search_index_of_an_earlier_version_is_no_problem_and_the_next_search_rebuilds_it(
    store: Store,
) -> None:
    """After an upgrade that indexes otherwise, doctor failed every cron health check
    once ('search.sqlite is behind the week files') for what the next search redoes."""
    import sqlite3

    from papertrack.fulltext import VERSION

    with sqlite3.connect(store.search_path) as db:
        db.execute("UPDATE meta SET value = '0' WHERE key = 'version'")
    db.close()
    checked = run("doctor")
    assert checked.exit_code == 0, checked.stderr
    assert "No problems found." in checked.stderr
    assert run("search", "agent*").exit_code == 0
    with sqlite3.connect(store.search_path) as db:
        (version,) = db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
    db.close()
    assert version == VERSION


@pytest.mark.parametrize("left", ["dirty", "stale search index"])
def test_what_an_interrupted_write_left_is_said_but_is_no_damage(
    store: Store, catalog: Catalog, left: str
) -> None:
    """After a Ctrl-C during a teach's retag doctor failed with "Run 'papertrack doctor
    --repair'", though the teach had said the next command catches up, and it did."""
    if left == "dirty":
        leftover_dirty(store)
        name, fix = ".dirty", "The next command that writes to the store"
    else:
        import sqlite3

        with sqlite3.connect(store.search_path) as db:
            db.execute("UPDATE meta SET value = 'an-earlier-write' WHERE key = 'synced'")
        db.close()
        name, fix = "search.sqlite", "The next search rebuilds it"
    checked = run("doctor")
    assert checked.exit_code == 0, checked.stdout + checked.stderr
    [line] = [x for x in checked.stdout.splitlines() if x.startswith(name)]
    assert fix in line and "doctor --repair' does it now" in line
    assert checked.stderr.startswith("No damage found: only work still to do")
    data = json.loads(run("doctor", "--json").stdout)
    assert data["healthy"] is True and data["problems"] == []
    assert [p["file"] for p in data["pending"]] == [name]
    # A real problem beside it still fails, and counts only itself.
    truncated(store)
    damaged = run("doctor")
    assert damaged.exit_code == 1
    assert "Error: 1 problem found." in damaged.stderr
    # The repair finishes it.
    assert run("doctor", "--repair").exit_code == 0
    assert not store.dirty_path.exists()
    clean = run("doctor", "--json")
    assert json.loads(clean.stdout)["pending"] == [] and "No problems found." in clean.stderr


def test_counts_an_interrupted_write_left_behind_are_pending_while_its_marker_is_there(
    store: Store,
) -> None:
    """A Ctrl-C during a teach's retag left index counts behind the week files with the
    .dirty marker: doctor failed on them, though the next writer rebuilds them."""
    data = json.loads(store.index_path.read_bytes())
    row = next(iter(data["counts"].values()))  # {"t": topic, "weeks": {week: count}}
    week = next(iter(row["weeks"]))
    row["weeks"][week] += 1
    store.index_path.write_text(json.dumps(data), encoding="utf-8")
    behind = run("doctor")
    assert behind.exit_code == 1 and "index.json has counts that disagree" in behind.stdout
    leftover_dirty(store)
    pending = run("doctor")
    assert pending.exit_code == 0, pending.stdout + pending.stderr
    [line] = [x for x in pending.stdout.splitlines() if x.startswith("index.json")]
    assert "The next command that writes to the store" in line
    report = json.loads(run("doctor", "--json").stdout)
    assert report["healthy"] and {p["file"] for p in report["pending"]} == {"index.json", ".dirty"}
    assert run("ingest", str(LISTING)).exit_code == 0  # the next writer
    assert "No problems found." in run("doctor").stderr


def test_a_repair_says_what_its_retag_moved(store: Store, isolated_home: Path) -> None:
    """A teach cut short in its retag left the tags behind its model; the repair
    retagged them (+24 on one topic) and said nothing of it, not even in the log."""
    (isolated_home / "topics.toml").write_text(
        '[[topic]]\nname = "Planners"\nquery = "planning"\n', encoding="utf-8"
    )
    leftover_dirty(store)
    repaired = run("doctor", "--repair", "--json")
    assert repaired.exit_code == 0, repaired.stderr
    moved = json.loads(repaired.stdout)["moved"]
    planners = sum("planning" in (p.title + " " + p.abstract).lower() for p in stored(store))
    assert moved["planners"]["gained"] > 0 and moved["planners"]["lost"] == 0
    assert moved["planners"]["gained"] <= planners
    logged = (isolated_home / "papertrack.log").read_text(encoding="utf-8")
    assert f"planners +{moved['planners']['gained']:,} -0" in logged
    # Said to people too; a repair with nothing to retag says nothing of it.
    leftover_dirty(store)
    again = run("doctor", "--repair")
    assert again.exit_code == 0 and "Retagged the stored papers" not in again.stdout


def test_a_search_index_that_is_no_database_is_called_damaged_not_behind(store: Store) -> None:
    """Random bytes in search.sqlite read as "is behind the week files"."""
    store.search_path.write_bytes(random.Random(9).randbytes(300_000))
    checked = run("doctor")
    assert checked.exit_code == 1
    [line] = [x for x in checked.stdout.splitlines() if x.startswith("search.sqlite")]
    assert line.startswith("search.sqlite is damaged (") and "not a database" in line
    assert line.count("Run 'papertrack doctor --repair'") == 1
    assert run("doctor", "--repair").exit_code == 0
    assert run("doctor").exit_code == 0


def test_a_paper_the_id_map_places_in_the_wrong_week_sends_show_to_the_repair(
    store: Store,
) -> None:
    """`show` said "no paper X in the store. Ingest a feed that lists it", and an
    ingest of it then counted it as new, a second time in the index."""
    pid = records(store)[0]["arxiv_id"]
    other = next(week for week in store.weeks() if week != WEEK)
    shard = store.shard_path(id_shard(pid))
    data = json.loads(shard.read_bytes())
    data["ids"]["1"][pid] = other
    shard.write_bytes(json.dumps(data).encode())
    line = error_line(run("show", pid), 1, f"the id map places {pid} in", f"Run '{FIX}'")
    assert f"papers/{other}.json" in line
    assert run("doctor", "--repair").exit_code == 0
    shown = run("show", pid, "-f", "json")
    assert shown.exit_code == 0 and json.loads(shown.stdout)["arxiv_id"] == pid


def test_a_killed_search_index_build_leaves_nothing_for_doctor(store: Store) -> None:
    """A search killed while it built the search index left a temp file of 2 to 50 MB:
    doctor called it a problem until the next ingest, and a repair kept a copy of it
    in damaged/, though the index is made again from the week files."""
    store.search_path.unlink(missing_ok=True)
    stray = killed_writers_temp(store.search_path)
    stray.write_bytes(b"SQLite format 3\x00" + b"\x00" * 4096)
    assert run("search", "agent*").exit_code == 0
    assert not stray.exists()
    checked = run("doctor")
    assert checked.exit_code == 0, checked.stdout
    # A repair clears such a file without keeping it: only a week file holds papers.
    stray.write_bytes(b"SQLite format 3\x00" + b"\x00" * 4096)
    repaired = run("doctor", "--repair")
    assert repaired.exit_code == 0, repaired.stdout + repaired.stderr
    assert not stray.exists()
    kept = list(store.damaged_dir.iterdir()) if store.damaged_dir.is_dir() else []
    assert kept == []
