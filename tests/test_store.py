"""The partitioned TinyDB store: identity, versions, partitions, index, atomic writes, lock."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from papertrack.errors import StoreError
from papertrack.models import Paper
from papertrack.store import ALL, AtomicJSONStorage, FieldMatcher, Store, id_shard, week_of
from papertrack.topics import Catalog
from tests.helpers import killed_writers_temp

TOPICS = """
[[topic]]
name = "Agents"
query = 'agent OR agents'

[[topic]]
name = "Vision"
query = 'image OR vision'
"""


@pytest.fixture
def catalog(tmp_path: Path) -> Catalog:
    path = tmp_path / "topics.toml"
    path.write_text(TOPICS, encoding="utf-8")
    return Catalog.load(path)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "store")


def day(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def paper(
    pid: str, when: str | None, version: int = 1, title: str = "An agent", **kw: object
) -> Paper:
    return Paper(
        arxiv_id=pid,
        title=title,
        version=version,
        abstract=kw.pop("abstract", "Abstract."),  # type: ignore[arg-type]
        published=day(when) if when else None,
        updated=day(when) if when else None,
        **kw,  # type: ignore[arg-type]
    )


def stored_ids(store: Store) -> list[str]:
    return sorted(p.arxiv_id for w in store.weeks() for p in store.read_partition(w))


def recount(store: Store) -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = {}
    for week in store.weeks():
        for p in store.read_partition(week):
            for topic in (ALL, *p.tags):
                counts.setdefault(topic, {}).setdefault(week, 0)
                counts[topic][week] += 1
    return counts


def test_times_are_written_as_rfc_3339_reads_them_in_every_year() -> None:
    from datetime import timedelta, timezone

    from papertrack.models import from_iso, utc_text

    for moment in (
        datetime(2026, 12, 3, 6, 30, 0, 500, tzinfo=UTC),  # microseconds dropped
        datetime(999, 1, 2, 3, 4, 5, tzinfo=UTC),  # the year in four digits
        datetime(2026, 1, 1, 1, 0, tzinfo=timezone(timedelta(hours=5))),  # as UTC
    ):
        text = utc_text(moment)
        assert len(text) == 20 and text.endswith("Z") and text[4] == "-", text
        assert from_iso(text) == moment.replace(microsecond=0)


def test_week_of_is_the_monday_of_the_iso_week_in_utc() -> None:
    assert week_of(day("2026-08-06")) == "2026-08-03"  # a Thursday
    assert week_of(day("2026-08-03")) == "2026-08-03"  # Monday itself
    assert week_of(day("2026-08-09T23:59:59")) == "2026-08-03"  # Sunday night
    late_sunday_in_new_york = datetime.fromisoformat("2026-08-09T21:00:00-04:00")
    assert week_of(late_sunday_in_new_york) == "2026-08-10"  # already Monday in UTC
    assert week_of(None) == "undated"


@pytest.mark.parametrize(
    "pid",
    ["../../etc/passwd", "/abs/path", "a/../../b", "x" * 500, "..", "C:\\evil", "2508.1316/../x"],
)
def test_id_shard_never_makes_a_path(pid: str) -> None:
    shard = id_shard(pid)
    assert "/" not in shard and "\\" not in shard and ".." not in shard
    assert len(shard) <= 5


def test_id_shards_by_month() -> None:
    assert id_shard("2508.13167") == "2508"
    assert id_shard("hep-th/9901001") == "o9901"


def test_new_unchanged_updated(store: Store, catalog: Catalog) -> None:
    with store.writer(catalog) as w:
        first = w.upsert([paper("2508.00001", "2025-08-04"), paper("2508.00002", "2025-08-12")])
        again = w.upsert([paper("2508.00001", "2025-08-04"), paper("2508.00002", "2025-08-12")])
    assert (first.new, first.updated, first.unchanged) == (2, 0, 0)
    assert (again.new, again.updated, again.unchanged) == (0, 0, 2)
    assert store.count() == 2
    assert store.count("agents") == 2
    assert sorted(store.weeks()) == ["2025-08-04", "2025-08-11"]


def test_newer_version_updates_and_older_never_overwrites(store: Store, catalog: Catalog) -> None:
    with store.writer(catalog) as w:
        w.upsert([paper("2508.00001", "2025-08-04", version=1, title="An agent")])
        v3 = paper("2508.00001", "2025-08-04", version=3, title="A vision model", abstract="New.")
        res = w.upsert([v3])
        assert (res.new, res.updated) == (0, 1)
        res = w.upsert([paper("2508.00001", "2025-08-04", version=2, title="Old title")])
        assert res.unchanged == 1
    [stored] = store.latest(None)
    assert (stored.version, stored.title, stored.abstract) == (3, "A vision model", "New.")
    # tags follow the new title, and so do the counts
    assert stored.tags == ("vision",)
    assert store.count("agents") == 0 and store.count("vision") == 1


def test_a_newer_version_without_a_date_of_its_own_keeps_none_of_the_older(
    store: Store, catalog: Catalog
) -> None:
    """A listing announcing v2 carries no 'updated': v1's was shown as v2's. Fields
    the versions share (the v1 date, the journal) are still filled in."""
    from dataclasses import replace

    v1 = replace(paper("2509.13400", "2025-09-15"), journal_ref="J. Agents 1")
    v2 = replace(paper("2509.13400", "2025-09-15", version=2), updated=None, published=None)
    with store.writer(catalog) as w:
        w.upsert([v1])
        w.upsert([v2])
    [stored] = store.latest(None)
    assert stored.version == 2
    assert stored.updated is None
    assert stored.published == v1.published and stored.journal_ref == "J. Agents 1"
    with store.writer(catalog) as w:  # the same version again: its own date stays
        w.upsert([replace(v2, updated=day("2025-09-22"))])
        w.upsert([replace(v2, updated=None)])
    [stored] = store.latest(None)
    assert stored.updated == day("2025-09-22")


def test_listing_paper_moves_week_when_its_submission_date_arrives(
    store: Store, catalog: Catalog
) -> None:
    listed = Paper(
        arxiv_id="2508.00009",
        title="An agent",
        version=1,
        announced=day("2025-08-20"),
        primary_category="cs.AI",
        categories=("cs.AI", "cs.CL"),
        primary_guessed=True,
        source="listing",
    )
    from_api = Paper(
        arxiv_id="2508.00009",
        title="An agent",
        version=1,
        published=day("2025-08-14"),
        updated=day("2025-08-14"),
        primary_category="cs.CL",
        categories=("cs.CL", "cs.AI"),
        author_affiliations=(("MIT",),),
        authors=("A. Author",),
        source="api",
    )
    with store.writer(catalog) as w:
        w.upsert([listed])
        assert store.weeks() == ["2025-08-18"]
        res = w.upsert([from_api])
    assert res.updated == 1
    assert store.weeks() == ["2025-08-11"]
    [p] = store.latest("agents")
    assert p.published == day("2025-08-14") and p.announced == day("2025-08-20")
    assert p.primary_category == "cs.CL" and not p.primary_guessed
    assert p.affiliations == ["MIT"]
    assert store.index().counts == recount(store)


def test_an_undated_listing_paper_read_back_from_its_export_keeps_its_guess(
    store: Store, catalog: Catalog
) -> None:
    # A replacement of an older paper is known from the listing with no date of its
    # own (only ``updated``); its primary is still a guess after an export and an
    # ingest of that export, so the API's primary corrects it later.
    from papertrack.feeds.exports import paper_from_export

    listed = Paper(
        arxiv_id="2501.00009",
        title="An agent",
        version=2,
        updated=day("2025-08-20"),
        primary_category="cs.AI",
        categories=("cs.AI", "cs.CL"),
        primary_guessed=True,
        source="listing",
    )
    from_api = Paper(
        arxiv_id="2501.00009",
        title="An agent",
        version=2,
        published=day("2025-01-03"),
        updated=day("2025-08-20"),
        primary_category="cs.CL",
        categories=("cs.CL", "cs.AI"),
        source="api",
    )
    with store.writer(catalog) as w:
        w.upsert([listed])
        (stored,) = store.latest(None)
        back = paper_from_export(json.loads(json.dumps(stored.to_dict())))
        assert back.primary_guessed
        w.upsert([back])
        w.upsert([from_api])
    (paper,) = store.latest(None)
    assert paper.primary_category == "cs.CL" and not paper.primary_guessed


def test_duplicates_inside_one_batch_keep_the_newest(store: Store, catalog: Catalog) -> None:
    with store.writer(catalog) as w:
        res = w.upsert(
            [
                paper("2508.00001", "2025-08-04", version=2, title="Second"),
                paper("2508.00001", "2025-08-04", version=1, title="First"),
            ]
        )
    assert res.new == 1
    [p] = store.latest(None)
    assert (p.version, p.title) == (2, "Second")


def test_latest_is_newest_first_and_reads_only_what_it_needs(
    store: Store, catalog: Catalog
) -> None:
    papers = [paper(f"2508.{n:05d}", f"2025-08-{n:02d}") for n in range(1, 29)]
    with store.writer(catalog) as w:
        w.upsert(papers)
    got = store.latest("agents", limit=5)
    assert [p.arxiv_id for p in got] == [f"2508.{n:05d}" for n in (28, 27, 26, 25, 24)]
    opened: list[str] = []
    original = store._search_partition

    def spy(
        week: str, topic: str | None, match: FieldMatcher | None = None, ids: object = None
    ) -> list[Paper]:
        opened.append(week)
        return original(week, topic, match, ids)  # type: ignore[arg-type]

    store._search_partition = spy  # type: ignore[method-assign]
    store.latest("agents", limit=3)
    assert opened == ["2025-08-25"]  # the newest week holds 4 papers: enough
    since = store.latest("agents", limit=None, since=day("2025-08-20"))
    assert [p.paper_date for p in since] == sorted((p.paper_date for p in since), reverse=True)
    assert len(since) == 9
    assert store.latest("vision") == []


def test_many_papers_are_found_with_each_week_file_read_once(
    store: Store, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A teach looks up every example of its topic: one week file read per id made
    a teach of a topic with 500 examples take half a minute."""
    from papertrack import store as store_module

    papers = [paper(f"2508.{n:05d}", f"2025-08-{n:02d}") for n in range(1, 29)]
    with store.writer(catalog) as w:
        w.upsert(papers)
    reads: list[Path] = []
    read = store_module.week_records

    def counted(path: Path) -> dict[str, dict[str, object]]:
        reads.append(path)
        return read(path)

    monkeypatch.setattr(store_module, "week_records", counted)
    odd = [f"2508.{n:05d}" for n in range(1, 29, 2)]
    found = store.get_many([*odd, "2508.99999", "2508.00003"])  # one not stored, one twice
    weeks = {store.partition_path(week) for week in store.weeks()}
    assert len(weeks) == 5 and sorted(reads) == sorted(weeks)  # each once
    monkeypatch.setattr(store_module, "week_records", read)
    assert sorted(found) == odd
    assert all(found[pid] == store.get(pid) for pid in odd)


def test_undated_entries_are_kept_and_sorted_last(store: Store, catalog: Catalog) -> None:
    with store.writer(catalog) as w:
        w.upsert([paper("https://blog.example/post-1", None), paper("2508.00001", "2025-08-04")])
    got = store.latest("agents")
    assert [p.arxiv_id for p in got] == ["2508.00001", "https://blog.example/post-1"]
    assert "undated" in store.weeks()


def test_catalog_change_retags_only_changed_topics(
    store: Store, catalog: Catalog, tmp_path: Path
) -> None:
    with store.writer(catalog) as w:
        w.upsert([paper("2508.00001", "2025-08-04", title="An agent for image editing")])
    assert store.latest(None)[0].tags == ("agents", "vision")
    changed = tmp_path / "changed.toml"
    changed.write_text(TOPICS.replace("image OR vision", "editing"), encoding="utf-8")
    new_catalog = Catalog.load(changed)
    assert not store.tags_current(new_catalog)
    store.refresh(new_catalog)
    assert store.tags_current(new_catalog)
    assert store.latest(None)[0].tags == ("agents", "vision")
    gone = tmp_path / "gone.toml"
    gone.write_text(TOPICS.replace("image OR vision", "telescope"), encoding="utf-8")
    store.refresh(Catalog.load(gone))
    assert store.latest(None)[0].tags == ("agents",)
    assert store.count("vision") == 0


def test_atomic_storage_keeps_the_old_file_when_a_write_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "part.json"
    storage = AtomicJSONStorage(target)
    storage.write({"papers": {"1": {"arxiv_id": "old"}}})

    def broken_replace(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(StoreError, match="No space left on device"):
        storage.write({"papers": {"1": {"arxiv_id": "new"}}})
    monkeypatch.undo()
    assert json.loads(target.read_text())["papers"]["1"]["arxiv_id"] == "old"
    assert list(tmp_path.glob(".*.tmp")) == []


def test_damaged_partition_is_reported_by_name(store: Store, catalog: Catalog) -> None:
    with store.writer(catalog) as w:
        w.upsert([paper("2508.00001", "2025-08-04")])
    part = store.partition_path("2025-08-04")
    part.write_text(part.read_text()[:40], encoding="utf-8")
    with pytest.raises(StoreError, match="2025-08-04.json is damaged"):
        store.latest("agents")


def test_interrupted_write_is_recovered_by_the_next_writer(store: Store, catalog: Catalog) -> None:
    with store.writer(catalog) as w:
        w.upsert([paper("2508.00001", "2025-08-04"), paper("2508.00002", "2025-08-12")])
    # What a kill between the partitions and the index leaves behind: a stale index,
    # a stray temp file, a copy of a paper in its old week, and the marker.
    store.index_path.unlink()
    killed_writers_temp(store.partition_path("2025-08-04")).write_text("{garbage")
    old = store.partition_path("2025-08-04")
    data = json.loads(old.read_text())
    stale = dict(data["papers"]["1"], arxiv_id="2508.00002", version=0, title="stale copy")
    data["papers"]["2"] = stale
    old.write_text(json.dumps(data))
    (store.path / ".dirty").write_text("1")
    store.refresh(catalog)
    assert stored_ids(store) == ["2508.00001", "2508.00002"]
    assert store.index().counts == recount(store)
    assert not (store.path / ".dirty").exists()
    assert list(store.path.rglob("*.tmp")) == []
    assert store.latest(None)[0].title == "An agent"


@pytest.mark.parametrize("empty", ["{}", '{"_default": {}}'])
def test_an_index_emptied_to_a_bare_tinydb_is_rebuilt_not_read_as_an_empty_store(
    store: Store, catalog: Catalog, empty: str
) -> None:
    """index.json reset to an empty TinyDB (valid JSON) made every reader say the store
    was empty, exit 0, and the next ingest counted on from nothing."""
    with store.writer(catalog) as w:
        w.upsert([paper("2508.00001", "2025-08-04"), paper("2508.00002", "2025-08-12")])
    counted = store.index().counts
    assert counted[ALL]
    store.index_path.write_text(empty, encoding="utf-8")
    assert store.index_outdated()
    store.refresh(catalog)
    assert store.index().counts == counted == recount(store)
    assert [p.arxiv_id for p in store.latest(None)] == ["2508.00002", "2508.00001"]
    with store.writer(catalog) as w:
        w.upsert([paper("2508.00003", "2025-08-12")])
    assert store.index().counts == recount(store)
    assert sum(store.index().counts[ALL].values()) == 3


def test_a_live_processs_temp_file_is_left_to_it(store: Store, catalog: Catalog) -> None:
    # A snapshot import writes its checkpoint next to the store; a writer taking the
    # lock at that moment must not clear the temp file before its rename.
    with store.writer(catalog) as w:
        w.upsert([paper("2508.00001", "2025-08-04")])
    store.resume_dir.mkdir(exist_ok=True)
    dead = killed_writers_temp(store.resume_dir / "a.json")
    dead.write_text("{")
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        mine = store.resume_dir / f".b.json.{live.pid}.tmp"
        mine.write_text("{")
        assert store.temp_files() == [dead]
        store.refresh(catalog)
        assert mine.exists() and not dead.exists()
    finally:
        live.kill()
        live.wait()
    assert store.temp_files() == [mine]  # its writer is gone now


def test_second_writer_waits_for_the_lock_then_gives_up(tmp_path: Path, catalog: Catalog) -> None:
    holder = Store(tmp_path / "store")
    waiter = Store(tmp_path / "store", lock_timeout=0.3)
    with holder.writer(catalog) as held, held.holding():
        started = time.monotonic()
        with pytest.raises(StoreError, match="lock"):
            waiter.refresh(catalog)
        assert time.monotonic() - started >= 0.3
    with waiter.writer(catalog) as w:  # free again
        assert w.upsert([paper("2508.00001", "2025-08-04")]).new == 1


def test_store_path_that_is_a_file_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "papers.json"
    f.write_text("{}")
    with pytest.raises(StoreError, match="not a papertrack store directory"):
        Store(f)


WRITER = textwrap.dedent(
    """
    import sys
    from datetime import UTC, datetime, timedelta
    from pathlib import Path
    from papertrack.models import Paper
    from papertrack.store import Store
    from papertrack.topics import Catalog

    store = Store(Path(sys.argv[1]))
    catalog = Catalog.load(Path(sys.argv[2]))
    start = datetime(2025, 1, 6, tzinfo=UTC)
    with store.writer(catalog) as w:
        for batch in range(1000):
            papers = [
                Paper(arxiv_id=f"2501.{batch * 50 + n:05d}",
                      title="An agent" if n % 2 else "Vision", version=1, abstract="x" * 800,
                      published=start + timedelta(days=(batch * 50 + n) % 120))
                for n in range(50)
            ]
            w.upsert(papers)
            print(batch, flush=True)
    """
)


def test_kill_during_writes_loses_nothing_committed(tmp_path: Path, catalog: Catalog) -> None:
    """SIGKILL a writer at several moments; the store always opens whole and consistent."""
    topics = tmp_path / "topics.toml"
    topics.write_text(TOPICS, encoding="utf-8")
    root = tmp_path / "store"
    for delay in (0.35, 0.6, 0.9, 1.3):
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(root), str(topics)],
            stdout=subprocess.PIPE,
            text=True,
        )
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate()
        committed = {int(line) for line in out.split()}
        store = Store(root)
        store.refresh(catalog)  # recovery, as the next run would do
        ids = stored_ids(store)
        assert len(ids) == len(set(ids)), "a paper is stored twice"
        for batch in committed:
            assert f"2501.{batch * 50:05d}" in ids
        assert store.index().counts == recount(store)
        assert store.count() == len(ids)


# ------------------------------------------------------------- topics: get, search, retag

REAL = Path(__file__).parent / "data"


def real_papers() -> list[Paper]:
    from papertrack.feeds import parse_feed

    found: list[Paper] = []
    for name in (
        "rss/atom-cs.AI-2025-08-20.first86.xml",
        "api-atom/arxiv.py-2026-recorded/q_testing_s0_m100_cfe7536492ca.xml",
    ):
        found += parse_feed((REAL / name).read_bytes()).papers
    return found


def test_get_finds_a_paper_through_the_id_map(store: Store, catalog: Catalog) -> None:
    with store.writer(catalog) as w:
        w.upsert([paper("2508.00001", "2025-08-04"), paper("2507.00002", "2025-07-01")])
        w.upsert([paper("hep-th/9901001", "1999-01-04"), paper("https://blog.example/1", None)])
    for pid in ("2508.00001", "2507.00002", "hep-th/9901001", "https://blog.example/1"):
        got = store.get(pid)
        assert got is not None and got.arxiv_id == pid
    assert store.get("2508.99999") is None
    assert store.get("2601.00001") is None  # no shard at all
    assert Store(store.path.parent / "nothing-here").get("2508.00001") is None


def test_latest_with_a_query_reads_newest_weeks_until_it_has_enough(
    store: Store, catalog: Catalog
) -> None:
    from papertrack.topics import Topic

    papers = [
        paper(f"2508.{n:05d}", f"2025-08-{n:02d}", title="An agent" if n % 2 else "A robot")
        for n in range(1, 29)
    ]
    with store.writer(catalog) as w:
        w.upsert(papers)
    query = Topic("Query", "query", "robot")
    opened: list[str] = []
    original = store._search_partition

    def spy(
        week: str, topic: str | None, match: FieldMatcher | None = None, ids: object = None
    ) -> list[Paper]:
        opened.append(week)
        return original(week, topic, match, ids)  # type: ignore[arg-type]

    store._search_partition = spy  # type: ignore[method-assign]
    got = store.latest(None, limit=2, match=query.matches_fields)
    assert [p.arxiv_id for p in got] == ["2508.00028", "2508.00026"]
    assert opened == ["2025-08-25"]  # the newest week holds two robots: enough
    opened.clear()
    got = store.latest(None, limit=3, match=query.matches_fields)
    assert [p.arxiv_id for p in got] == ["2508.00028", "2508.00026", "2508.00024"]
    assert opened == ["2025-08-25", "2025-08-18"]  # two are not enough: the week before
    hits = [p.arxiv_id for _, p in store.search(query.matches_fields)]
    assert sorted(hits) == [f"2508.{n:05d}" for n in range(2, 29, 2)]


def test_retag_after_a_catalog_change_equals_tagging_from_scratch(tmp_path: Path) -> None:
    from papertrack.paths import default_topics_file
    from papertrack.store import Index

    default = Catalog.load(default_topics_file())
    store = Store(tmp_path / "store")
    with store.writer(default) as w:
        w.upsert(real_papers())
    user = tmp_path / "topics.toml"
    user.write_text(
        # one changed, one hidden, one new topic; the rest as they were
        "[[topic]]\nname = \"GUI Agents\"\nquery = 'gui OR agent*'\n\n"
        '[[topic]]\nslug = "computer-vision"\nhidden = true\n\n'
        '[[topic]]\nname = "Benchmarks"\nquery = \'benchmark* AND NOT author:"Zhang"\'\n',
        encoding="utf-8",
    )
    changed = Catalog.load(default_topics_file(), user)
    assert store.count("computer-vision") > 0
    store.refresh(changed)
    stored = [p for week in store.weeks() for p in store.read_partition(week)]
    assert len(stored) == 186
    for item in stored:
        assert item.tags == changed.tag(item), item.arxiv_id
    assert sum("benchmarks" in p.tags for p in stored) > 0
    expected = Index()
    for item in stored:
        expected.bump(item, +1)
    index = store.index()
    assert index.counts == {t: w for t, w in expected.counts.items() if any(w.values())}
    assert index.days == {t: d for t, d in expected.days.items() if t in index.counts}
    assert "computer-vision" not in index.counts
    assert store.tags_current(changed)
    assert not (store.path / ".dirty").exists()


def test_a_retag_cut_short_is_done_again_whatever_the_catalog_is_next(
    store: Store, catalog: Catalog, tmp_path: Path
) -> None:
    """Killed halfway, a retag left some weeks with the new catalog's tags and the
    index with the old fingerprints: a catalog back at the old one (teach --forget
    after a killed teach) retagged nothing, and those weeks kept the new tags."""
    with store.writer(catalog) as w:
        w.upsert([
            paper(f"2508.{n:05d}", f"2025-{m:02d}-04", title="An agent for image editing")
            for n, m in enumerate(range(1, 9), start=1)
        ])  # fmt: skip
    before = {p.arxiv_id: p.tags for p in store.latest(None, limit=100)}
    assert set(before.values()) == {("agents", "vision")}
    changed = tmp_path / "changed.toml"
    changed.write_text(TOPICS.replace("image OR vision", "telescope"), encoding="utf-8")

    def stop(done: int, total: int) -> None:
        if done == 3:  # three weeks retagged and written
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        store.refresh(Catalog.load(changed), stop)
    assert {p.tags for p in store.latest(None, limit=100)} == {("agents",), ("agents", "vision")}
    assert not store.tags_current(catalog)  # the index does not claim the old tags
    store.refresh(catalog)  # back at the first catalog
    assert {p.arxiv_id: p.tags for p in store.latest(None, limit=100)} == before
    assert store.tags_current(catalog) and recount(store) == {
        k: {w: n for w, n in v.items() if n} for k, v in store.index().counts.items()
    }


def test_a_retag_cut_short_for_a_removed_topic_takes_its_tag_off_next_time(
    store: Store, catalog: Catalog, tmp_path: Path
) -> None:
    """A `topics remove` killed during its retag left the removed topic in neither
    the index's fingerprints nor the catalog's: "not changed", so no command retagged
    it, and every paper kept the removed topic's tag for good."""
    with store.writer(catalog) as w:
        w.upsert([
            paper(f"2508.{n:05d}", f"2025-{m:02d}-04", title="An agent for image editing")
            for n, m in enumerate(range(1, 9), start=1)
        ])  # fmt: skip
    removed = tmp_path / "removed.toml"
    removed.write_text(TOPICS.split('[[topic]]\nname = "Vision"')[0], encoding="utf-8")
    without = Catalog.load(removed)
    assert [t.slug for t in without.topics] == ["agents"]

    def stop(done: int, total: int) -> None:
        if done == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        store.refresh(without, stop)
    assert not store.tags_current(without)  # so the next command retags
    store.refresh(without)
    assert {p.tags for p in store.latest(None, limit=100)} == {("agents",)}
    assert "vision" not in store.index().counts
    assert store.tags_current(without)


def test_a_retag_cut_short_is_recounted_without_rebuilding_the_text_index(
    store: Store, catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A retag changes tags alone: after a Ctrl-C'd teach the next command rebuilt the
    id map and the full-text index too, 17 s on the 83,510-paper store for a 3 s retag."""
    from papertrack import writer as writer_module

    with store.writer(catalog) as w:
        w.upsert([
            paper(f"2508.{n:05d}", f"2025-{m:02d}-04", title="An agent for image editing")
            for n, m in enumerate(range(1, 9), start=1)
        ])  # fmt: skip
    assert store.text_index() is not None  # in step with the papers
    changed = tmp_path / "changed.toml"
    changed.write_text(TOPICS.replace("image OR vision", "telescope"), encoding="utf-8")

    def stop(done: int, total: int) -> None:
        if done == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        store.refresh(Catalog.load(changed), stop)
    assert store.dirty_path.read_bytes() == writer_module.RETAGGING

    def no_rebuild(*args: object, **kwargs: object) -> None:
        raise AssertionError("rebuilt")

    monkeypatch.setattr(writer_module, "build_text_index", no_rebuild)
    monkeypatch.setattr(writer_module.StoreWriter, "rebuild", no_rebuild)
    store.refresh(Catalog.load(changed))
    assert not store.dirty_path.exists()
    assert {p.tags for p in store.latest(None, limit=100)} == {("agents",)}
    counts = {k: {w: n for w, n in v.items() if n} for k, v in store.index().counts.items()}
    assert store.tags_current(Catalog.load(changed))
    assert recount(store) == {k: v for k, v in counts.items() if v}
    assert store.text_index() is not None  # still in step, not built again
    # A batch of papers cut short is rebuilt whole, as before.
    store.dirty_path.write_bytes(b"1")
    with pytest.raises(AssertionError, match="rebuilt"):
        store.refresh(catalog)


def test_a_week_a_writer_adds_while_a_reader_lists_is_not_called_missing(
    store: Store, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer renames a new week file into place before the index that counts it. A
    reader that listed the folder before the rename and read the index after it
    said "store file ... is missing ... run doctor --repair to go on without those
    papers" (18 of 205 `latest` runs beside a writer making a week a batch)."""
    with store.writer(catalog) as writer:
        writer.upsert([paper("2508.00001", "2025-08-04"), paper("2508.00002", "2025-08-11")])
    reader = Store(store.path)
    real = Store.week_paths
    calls = []

    def listed_before_the_rename(self: Store) -> list[Path]:
        calls.append(1)
        paths = real(self)
        return [p for p in paths if p.stem != "2025-08-11"] if len(calls) == 1 else paths

    monkeypatch.setattr(Store, "week_paths", listed_before_the_rename)
    assert reader.weeks() == ["2025-08-11", "2025-08-04"]
    assert len(calls) == 2
    # A week file that is gone stays an error.
    calls.clear()
    monkeypatch.setattr(Store, "week_paths", real)
    store.partition_path("2025-08-11").unlink()
    with pytest.raises(StoreError, match="2025-08-11.json is missing"):
        Store(store.path).weeks()


def test_an_index_older_than_the_week_files_is_not_called_missing_weeks(
    store: Store, catalog: Catalog
) -> None:
    """An index.json restored from a backup counted a week whose papers have since moved
    to a later week: readers said its week file "is missing. Restore it from a
    backup, or run doctor --repair to go on without those papers" of no lost paper."""
    with store.writer(catalog) as writer:
        writer.upsert([paper("2508.00001", "2025-08-04"), paper("2508.00002", "2025-08-11")])
    backup = store.index_path.read_bytes()
    with store.writer(catalog) as writer:
        writer.upsert([paper("2508.00002", "2025-09-01", version=2)])
    assert not store.partition_path("2025-08-11").exists()
    store.index_path.write_bytes(backup)
    with pytest.raises(StoreError) as raised:
        Store(store.path).weeks()
    said = str(raised.value)
    assert "is older than the week files" in said and "the week of 2025-08-11" in said
    assert "missing" not in said and "backup, or" not in said
    # Beside a killed write's marker it is work the next write does: read on.
    store.dirty_path.write_bytes(b"1")
    assert Store(store.path).weeks() == ["2025-09-01", "2025-08-04"]
    store.dirty_path.unlink()
    # A week file the id map still places papers in is missing, as before.
    week = store.partition_path("2025-08-04")
    kept = week.read_bytes()
    week.unlink()
    with pytest.raises(StoreError, match="2025-08-04.json is missing"):
        Store(store.path).weeks()
    week.write_bytes(kept)
    # An id map gone or damaged cannot tell: the week may hold lost papers.
    for shard in store.shard_files():
        shard.write_bytes(b"damaged")
    with pytest.raises(StoreError, match="2025-08-11.json is missing"):
        Store(store.path).weeks()
    import shutil

    shutil.rmtree(store.ids_dir)
    with pytest.raises(StoreError, match="2025-08-11.json is missing"):
        Store(store.path).weeks()
    store.partition_path("2025-08-04").unlink()
    with pytest.raises(StoreError, match="2025-08-04.json and 1 more week file are missing"):
        Store(store.path).weeks()


def test_get_finds_a_paper_a_writer_is_moving_to_another_week(
    store: Store, catalog: Catalog
) -> None:
    """A writer moving a paper to another week (a new date) takes it out of the week
    the id map names before it writes the id map: `show` said "no paper X in the
    store" for a stored paper (1 of 42,000 reads beside such a writer)."""
    with store.writer(catalog) as writer:
        writer.upsert(
            [
                paper("2508.00001", "2025-08-04"),
                paper("2508.00004", "2025-08-05"),
                paper("2508.00002", "2025-08-11"),
            ]
        )
    source, target = store.partition_path("2025-08-04"), store.partition_path("2025-08-11")
    moved = json.loads(source.read_bytes())
    key = next(k for k, doc in moved["papers"].items() if doc["arxiv_id"] == "2508.00001")
    record = moved["papers"].pop(key)
    into = json.loads(target.read_bytes())
    into["papers"]["9"] = record
    target.write_text(json.dumps(into))
    source.write_text(json.dumps(moved))
    (store.path / ".dirty").write_bytes(b"1")  # the writer is mid-batch
    found = Store(store.path).get("2508.00001")
    assert found is not None and found.arxiv_id == "2508.00001"
    assert Store(store.path).get("2508.00003") is None
