"""The full-text index narrows searches and never changes an answer."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

import pytest
from helpers import DATA, LISTING, kaggle_line, ok, run

from papertrack.fulltext import TextIndex, fts_query
from papertrack.store import Store
from papertrack.topics import Topic, tokenize

FEEDS = [
    LISTING,
    *sorted((DATA / "api-atom").glob("*.xml")),
    *sorted((DATA / "kaggle-jsonl").glob("*.jsonl")),
]


@pytest.fixture
def store(isolated_home: Path) -> Store:
    for feed in FEEDS:
        done = run("ingest", str(feed))
        assert done.exit_code in (0, 1), done.stderr  # some recorded files hold a broken line
    found = Store(isolated_home / "store")
    assert found.count() > 250
    return found


def ids(found: object) -> set[str]:
    return {paper.arxiv_id for _, paper in found}  # type: ignore[attr-defined]


def generated_queries(store: Store, n: int, seed: int) -> list[str]:
    """Queries of every kind the language has, from the stored papers' own words."""
    rng = random.Random(seed)
    papers = [p for _, p in store.search(lambda *_: True)]
    queries = []
    for _ in range(n):
        paper = rng.choice(papers)
        title = tokenize(paper.title) or ["model"]
        words = tokenize(paper.abstract) or title
        word = rng.choice(words)
        start = rng.randrange(len(title))
        phrase = " ".join(title[start : start + rng.choice((2, 3))])
        author = tokenize(rng.choice(paper.authors)) if paper.authors else ["smith"]
        kinds = [
            word,
            f"{word[:4]}*",
            f'"{phrase}"',
            f"title:{rng.choice(title)}",
            f"abstract:({word} OR {rng.choice(words)})",
            f'author:"{" ".join(author)}"',
            f"category:{paper.primary_category or 'cs.AI'}",
            f"{word} AND NOT {rng.choice(title)}",
            f"({rng.choice(title)} OR {word[:3]}*) {rng.choice(words)}",
            f"-{word}",
            f"category:cs.* AND {word}",
        ]
        queries.append(rng.choice(kinds))
    return queries


def test_every_generated_query_finds_what_a_full_scan_finds(store: Store) -> None:
    narrowed = 0
    for query in generated_queries(store, 150, seed=3):
        topic = Topic(name="Q", slug="q", query=query)
        within = store.candidates(topic.membership)
        full = ids(store.search(topic.matches_fields))
        fast = ids(store.search(topic.matches_fields, within))
        assert fast == full, query
        if within is not None:
            narrowed += 1
            assert full <= {pid for week in within.values() for pid in week}, query
    assert narrowed > 100  # the index did the work, not a fallback to scanning


def test_a_deeply_nested_query_finds_what_a_full_scan_finds(store: Store) -> None:
    # FTS5's parser has a fixed stack: some 25 nested groups overflowed it, and
    # every command that read the topic failed as if the index were damaged.
    query = "agent*"
    for i in range(45):
        query = f"(zzq{i} OR ({query} AND (agent* OR yyq{i})))"
    topic = Topic(name="Q", slug="q", query=query)
    within = store.candidates(topic.membership)
    full = ids(store.search(topic.matches_fields))
    assert full == ids(store.search(Topic(name="A", slug="a", query="agent*").matches_fields))
    assert ids(store.search(topic.matches_fields, within)) == full
    assert run("topics", "add", "Deep", "--query", query).exit_code == 0
    latest = run("latest", "deep", "-n", "1000", "--format", "jsonl")
    assert latest.exit_code == 0, latest.stderr
    assert {json.loads(line)["arxiv_id"] for line in latest.stdout.splitlines()} == full


def test_search_latest_and_export_answer_the_same_with_and_without_the_index(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    commands = [
        ["search", "agent* AND benchmark*", "-n", "50", "--format", "jsonl"],
        ["latest", "--query", '"language model*"', "-n", "40", "--format", "jsonl"],
        ["export", "--query", "title:agent*", "--format", "jsonl"],
        ["topics", "test", "reinforcement learning OR rl", "--seed", "7", "--json"],
    ]
    with_index = [run(*c) for c in commands]
    assert all(r.exit_code == 0 for r in with_index), [r.stderr for r in with_index]
    assert all(r.stdout.strip() for r in with_index)
    # Turned off, every reader scans every week file: the same answers.
    monkeypatch.setenv("PAPERTRACK_FULLTEXT", "off")
    scanned = [run(*c) for c in commands]
    for a, b, command in zip(with_index, scanned, commands, strict=True):
        assert a.stdout == b.stdout, command


def test_tex_accents_and_authors_are_indexed_as_the_matchers_read_them(
    isolated_home: Path, tmp_path: Path
) -> None:
    lines = [
        kaggle_line(
            "2601.00001",
            r"$\textbf{A}$gent training at scale",
            authors="José Müller",
            authors_parsed=[["Müller", "José", ""]],
        ),
        kaggle_line("2601.00002", "Naïve Bayes for cs.AI tasks", abstract=r"We use \emph{tools}."),
        kaggle_line(
            "2601.00003",
            "Unrelated work",
            authors="Paulo Andr\\'e Lima",
            authors_parsed=[["Lima", "Paulo Andr\\'e", ""]],
        ),
    ]
    feed = tmp_path / "tex.jsonl"
    feed.write_text("\n".join(lines) + "\n", "utf-8")
    assert run("ingest", str(feed)).exit_code == 0
    store = Store(isolated_home / "store")
    for query, want in [
        ("agent", {"2601.00001"}),
        ("author:muller", {"2601.00001"}),
        ("author:jose", {"2601.00001"}),
        ("naive", {"2601.00002"}),
        ("tools", {"2601.00002"}),
        ('author:"andre lima"', {"2601.00003"}),
    ]:
        topic = Topic(name="Q", slug="q", query=query)
        within = store.candidates(topic.membership)
        assert within is not None
        assert ids(store.search(topic.matches_fields, within)) == want, query


def test_tex_left_in_stored_text_is_read_as_tagging_reads_it(
    isolated_home: Path, tmp_path: Path
) -> None:
    # Text read back from an export is stored as written: markup in it must be
    # read the same way by the tags, search, --query and explain.
    record = {
        "arxiv_id": "2601.00007",
        "title": r"$\textbf{A}$gent-R1: \emph{Training} tool-using LLM agents with RL",
        "abstract": r"We train $\textsc{Agent}$s by reinforcement learning.",
        "categories": ["cs.CL"],
        "primary_category": "cs.CL",
        "published": "2026-01-05T00:00:00Z",
    }
    feed = tmp_path / "tex.jsonl"
    feed.write_text(json.dumps(record) + "\n", "utf-8")
    assert run("ingest", str(feed)).exit_code == 0
    (stored,) = json.loads(run("export", "-f", "json").stdout)
    # Stored as written, shown as it renders (as a paper's TeX is everywhere).
    assert stored["title"] == "Agent-R1: Training tool-using LLM agents with RL"
    assert "llm-agent-training" in stored["tags"]
    for command in (
        ["search", "title:agent-r1", "--format", "jsonl"],
        ["search", '"train agents"', "--format", "jsonl"],
        ["latest", "--query", "title:agent*", "--format", "jsonl"],
        ["export", "--query", "title:agent*", "--format", "jsonl"],
    ):
        found = run(*command)
        assert found.exit_code == 0, (command, found.stderr)
        assert "2601.00007" in found.stdout, command
    explained = run("topics", "explain", "2601.00007", "llm-agent-training", "--json")
    assert explained.exit_code == 0, explained.stderr
    (verdict,) = json.loads(explained.stdout)["topics"]
    assert verdict["matched"] is True and verdict["query_matched"] is True


def test_a_superscripted_name_is_found_as_it_reads_in_every_form_it_is_stored(
    isolated_home: Path, tmp_path: Path
) -> None:
    # Stored before scripts rendered raised ("M^3Exam", the words m and 3exam), from a
    # formula with a base ("G^2RPO"), and as papertrack renders now ("C³ache").
    titles = {
        "2601.00011": "M^3Exam: a benchmark for agents",
        "2601.00012": r"$\text{G}^2$RPO trains agents",
        "2601.00013": "C$^3$ache: caching for agents",
        "2601.00014": "X^{10}Y: scripts of two digits",
    }
    feed = tmp_path / "scripts.jsonl"
    feed.write_text(
        "".join(
            json.dumps(
                {
                    "arxiv_id": pid,
                    "title": title,
                    "abstract": "Agents.",
                    "categories": ["cs.CL"],
                    "published": "2026-01-05T00:00:00Z",
                }
            )
            + "\n"
            for pid, title in titles.items()
        ),  # fmt: skip
        "utf-8",
    )
    assert run("ingest", str(feed)).exit_code == 0
    for word, pid in (
        ("M3Exam", "2601.00011"),
        ("m^3exam", "2601.00011"),
        ("G2RPO", "2601.00012"),
        ("C3ache", "2601.00013"),
        ("C³ache", "2601.00013"),
        ("X10Y", "2601.00014"),
    ):
        for command in (
            ["search", word, "--format", "jsonl"],
            ["latest", "--query", f"title:{word}", "--format", "jsonl"],
        ):
            found = run(*command)
            assert found.exit_code == 0, (command, found.stderr)
            assert [json.loads(line)["arxiv_id"] for line in found.stdout.splitlines()] == [pid], (
                command
            )
    # A topic of such a word tags it (a fast substring test once let it pass untested).
    tried = run("topics", "test", "title:m3exam", "--json")
    assert tried.exit_code == 0, tried.stderr
    assert "2601.00011" in tried.stdout


def test_not_and_category_prefixes_do_not_narrow() -> None:
    assert fts_query(Topic(name="Q", slug="q", query="-agent").membership) is None
    assert fts_query(Topic(name="Q", slug="q", query="category:cs.*").membership) is None
    assert fts_query(Topic(name="Q", slug="q", query="a OR -b").membership) is None
    kept = fts_query(Topic(name="Q", slug="q", query="agent* AND NOT web").membership)
    assert kept == '({title abstract} : ("agent" *))'


def test_an_old_store_gets_its_index_on_first_use(store: Store) -> None:
    for suffix in ("", "-journal"):
        Path(f"{store.search_path}{suffix}").unlink(missing_ok=True)
    raw = json.loads(store.index_path.read_bytes())
    raw["meta"]["1"].pop("generation")  # as a papertrack before the index wrote it
    store.index_path.write_text(json.dumps(raw))
    checked = run("doctor", "--json")
    assert checked.exit_code == 0  # pending work, as the docs say: not a problem
    assert "missing-search-index" in checked.stdout
    assert run("search", "agent*").exit_code == 0
    assert store.search_path.exists()
    assert TextIndex(store.search_path).synced_with(Store(store.path).index().generation)
    assert run("doctor").exit_code == 0


def test_doctor_says_a_read_only_store_cannot_have_its_index_built(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It said "The next command builds it" of a store no command can write to."""
    import os

    store.search_path.unlink()
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    checked = run("doctor")
    assert checked.exit_code == 0, checked.stderr
    assert (
        "search.sqlite is missing. It cannot be built in a read-only store: searches read "
        "every week file instead (slower)."
    ) in checked.stdout + checked.stderr
    assert "The next command builds it" not in checked.stdout + checked.stderr
    assert "No damage found: only work still to do, as said above." in checked.stderr


def test_a_damaged_index_is_found_and_rebuilt_by_doctor(store: Store) -> None:
    db = sqlite3.connect(store.search_path)
    with db:
        db.execute("DELETE FROM docs WHERE rowid IN (SELECT rowid FROM docs LIMIT 5)")
    db.close()
    checked = run("doctor")
    assert checked.exit_code == 1
    assert "search.sqlite disagrees with the week files about 5 papers" in checked.stdout
    repaired = run("doctor", "--repair")
    assert repaired.exit_code == 0, repaired.stderr
    assert run("doctor").exit_code == 0
    assert len(dict(TextIndex(store.search_path).ids())) == store.count()


def _garble_past_meta(store: Store) -> None:
    """Garble pages of the search index until its meta rows still say it is in step
    with the store but a search of the text fails as damaged (as the pages SQLite
    finds corrupt at random, on a disk or in a copy, do)."""
    from papertrack.errors import StoreError

    whole = store.search_path.read_bytes()
    pages = len(whole) // 4096
    generation = Store(store.path).index().generation
    for start in range(pages - 2, 2, -1):
        raw = bytearray(whole)
        raw[start * 4096 : (start + 2) * 4096] = random.Random(start).randbytes(4096 * 2)
        store.search_path.write_bytes(bytes(raw))
        text = TextIndex(store.search_path)
        try:
            if text.synced_with(generation):
                text.candidates('"agent" *')
        except StoreError:
            return
        finally:
            text.close()
    raise AssertionError("no pages found whose damage only a search meets")


def test_a_search_index_found_damaged_is_answered_by_a_scan_and_built_again(
    store: Store,
) -> None:
    """Its meta rows read well, so only the search itself found the damage: search,
    export --query and ask failed with "Run 'papertrack doctor --repair'" until one
    did. The index is derived from the week files: the answer is theirs, as exact."""
    asked = [
        ("search", "agent*", "--json", "-n", "50"),
        ("export", "--query", "agent* AND NOT robot*", "-f", "jsonl"),
        ("ask", "which agents learn with reinforcement learning", "--json"),
    ]
    # ask scores by the index, and otherwise by each word's count.
    expected = [ok(*args).stdout for args in asked[:2]]
    expected.append(run(*asked[2], env={"PAPERTRACK_FULLTEXT": "off"}).stdout)
    for args, answer in zip(asked, expected, strict=True):
        _garble_past_meta(store)
        got = ok(*args)
        assert got.stdout == answer, args
        assert (
            "Note: the search index could not be read (database disk image is malformed), "
            "so this answer comes from reading every week file (slower). The next command "
            "builds the index again."
        ) in got.stderr
        assert not store.search_path.exists()
        again = ok(*args)  # builds it, and answers from it
        assert "Note:" not in again.stderr
        assert again.stdout == answer or args[0] == "ask"
        assert TextIndex(store.search_path).synced_with(Store(store.path).index().generation)


def test_a_writer_that_meets_a_damaged_search_index_tags_as_without_one(
    store: Store, isolated_home: Path
) -> None:
    """A retag narrowed by the index failed ("Tags are updated by the next command
    instead"), and so did every command after it."""
    _garble_past_meta(store)
    added = ok("topics", "add", "Agents", "--query", "title:agent*")
    assert "Warning" not in added.stderr
    topic = Topic(name="A", slug="a", query="title:agent*")
    scanned = ids(Store(store.path).search(topic.matches_fields))
    assert scanned
    listed = ok("latest", "agents", "-n", "1000", "--json")
    assert {p["arxiv_id"] for p in json.loads(listed.stdout)} == scanned
    found = ok("search", "title:agent*", "-n", "1000", "--json")
    assert {p["arxiv_id"] for p in json.loads(found.stdout)} == scanned
    assert TextIndex(store.search_path).synced_with(Store(store.path).index().generation)
    assert run("doctor").exit_code == 0


def test_a_script_is_warned_when_a_damaged_search_index_is_read_around(store: Store) -> None:
    import warnings

    import papertrack

    before = [
        p.arxiv_id for p in papertrack.search_papers(papertrack.open_store(), "agent*", limit=20)
    ]
    _garble_past_meta(store)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        after = [
            p.arxiv_id
            for p in papertrack.search_papers(papertrack.open_store(), "agent*", limit=20)
        ]
    assert after == before
    assert [Path(w.filename) for w in said if "search index" in str(w.message)] == [Path(__file__)]
    assert [str(w.message) for w in said if "search index" in str(w.message)] == [
        "the search index could not be read (database disk image is malformed), so this "
        "answer comes from reading every week file (slower). The next command builds the "
        "index again."
    ]


def test_garbled_text_in_the_index_is_damage_too_and_its_garble_is_not_shown(
    store: Store,
) -> None:
    """Python's "Could not decode to UTF-8 column 'week' with text '\ufffd\ufffd'" is
    no SQLite error code: it failed every search with the garble in the message."""
    expected = ok("search", "agent*", "--json", "-n", "50").stdout
    db = sqlite3.connect(store.search_path)
    with db:
        db.execute("UPDATE docs SET week = CAST(x'ffff41' AS TEXT)")
    db.close()
    got = ok("search", "agent*", "--json", "-n", "50")
    assert got.stdout == expected
    assert (
        "Note: the search index could not be read (some of its text is garbled), so this "
        "answer comes from reading every week file (slower)." in got.stderr
    )
    assert "\ufffd" not in got.stderr and not store.search_path.exists()


def test_an_index_built_again_since_the_damage_was_read_is_kept(store: Store) -> None:
    """A reader that found damage took the lock and removed the file: one another
    process had built again in between went with it."""
    from papertrack.fulltext import IndexDamaged, file_signature
    from papertrack.writer import build_text_index

    damage = IndexDamaged("the search index could not be read (x)")
    damage.signature = file_signature(store.search_path)
    build_text_index(store)  # another process, meanwhile
    said: list[str] = []
    reader = Store(store.path)
    reader.note = said.append
    reader.text_index_broke(damage)
    assert store.search_path.exists() and reader.text_index() is None  # this command scans
    assert said == [
        "the search index could not be read (x), so this answer comes from reading every "
        "week file (slower). Another papertrack command has built it again since."
    ]


def test_a_script_reads_the_search_index_again_once_it_is_built_again(store: Store) -> None:
    import warnings

    import papertrack

    _garble_past_meta(store)
    opened = papertrack.open_store()
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        first = papertrack.search_papers(opened, "agent*", limit=20)
    assert not store.search_path.exists()
    again = papertrack.search_papers(opened, "agent*", limit=20)  # the next call
    assert [p.arxiv_id for p in again] == [p.arxiv_id for p in first]
    assert TextIndex(store.search_path).synced_with(Store(store.path).index().generation)


def test_a_rebuilt_index_drops_the_journal_a_killed_write_left(store: Store) -> None:
    """Beside the new file, SQLite took the old file's journal for its own and "rolled
    it back" into it: the new index was garbled from the start."""
    import subprocess
    import sys

    from papertrack.writer import build_text_index

    killed = subprocess.run(
        [
            sys.executable,
            "-c",
            "import os, signal, sqlite3, sys\n"
            "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
            "db.execute('PRAGMA cache_size=5')\n"
            "db.execute('BEGIN')\n"
            "db.execute('DELETE FROM docs')\n"
            "db.executemany('INSERT INTO text(rowid, title, abstract, authors, categories)"
            " VALUES (?, ?, ?, ?, ?)', ((10**6 + n, f'w{n}', f'x{n} ' * 50, '', '')"
            " for n in range(3000)))\n"
            "os.kill(os.getpid(), signal.SIGKILL)\n",
            str(store.search_path),
        ],
        check=False,
    )
    journal = Path(f"{store.search_path}-journal")
    assert killed.returncode == -9 and journal.stat().st_size > 4096  # the write spilled
    build_text_index(store)  # as a writer or the doctor does, under the lock
    db = sqlite3.connect(store.search_path)
    try:
        assert db.execute("PRAGMA quick_check").fetchall() == [("ok",)]
        assert db.execute("SELECT count(*) FROM docs").fetchone()[0] == store.count()
    finally:
        db.close()
    assert not journal.exists()


def test_a_write_the_index_missed_makes_it_stale_and_the_next_writer_rebuilds_it(
    store: Store, tmp_path: Path
) -> None:
    text = TextIndex(store.search_path)
    text.mark_stale()
    text.close()
    assert Store(store.path).text_index() is not None  # a reader rebuilds it, under the lock
    feed = tmp_path / "one.jsonl"
    feed.write_text(kaggle_line("2601.09999", "Zyzzyva agents") + "\n", "utf-8")
    assert run("ingest", str(feed)).exit_code == 0
    topic = Topic(name="Q", slug="q", query="zyzzyva")
    within = Store(store.path).candidates(topic.membership)
    assert within is not None
    assert {pid for week in within.values() for pid in week} == {"2601.09999"}


def test_a_retag_narrowed_by_the_index_tags_exactly_as_a_full_retag(
    store: Store, isolated_home: Path
) -> None:
    from papertrack import paths
    from papertrack.topics import Catalog

    for query in ('"language model*" AND title:agent*', "benchmark* OR author:smith", "rl -web"):
        added = run("topics", "add", "Probe", "--query", query, "--replace")
        assert added.exit_code == 0, added.stderr
        assert run("latest", "probe", "-n", "1").exit_code == 0  # retags, narrowed
        catalog = Catalog.load(paths.default_topics_file(), isolated_home / "topics.toml")
        probe = catalog.find("probe")
        fresh = Store(store.path)
        for _, paper in fresh.search(lambda *_: True):
            want = probe.matches_fields(
                paper.title, paper.abstract, paper.authors, paper.categories
            )
            assert ("probe" in paper.tags) == want, (query, paper.arxiv_id)
        assert fresh.count("probe") == sum(
            1 for _, p in fresh.search(lambda *_: True) if "probe" in p.tags
        )


def test_a_query_topic_that_model_topics_imply_is_retagged_as_tagging_from_scratch(
    sample_home: Path,
) -> None:
    # Agentic RL and the other RL topics (by their models) imply llm-agent-training.
    # Made a query topic, it is retagged with them, over the papers its query may
    # match and those holding its tag: the tags must be those of tagging anew.
    from papertrack import paths
    from papertrack.topics import Catalog

    store = Store(sample_home / "store")
    stored = [p for _, p in store.search(lambda *_: True)]
    implied = [p for p in stored if "agentic-rl" in p.tags]
    assert implied and all("llm-agent-training" in p.tags for p in implied)
    linked = set(Catalog.default().implied_by("llm-agent-training"))
    # Papers it tags by its model alone: they must lose it.
    assert [p for p in stored if "llm-agent-training" in p.tags and not linked & set(p.tags)]
    (sample_home / "topics.toml").write_text(
        '[[topic]]\nname = "LLM Agent Training"\nquery = \'title:"nothing at all"\'\n',
        encoding="utf-8",
    )
    assert run("latest", "llm-agent-training", "-n", "1").exit_code == 0  # retags
    catalog = Catalog.load(paths.default_topics_file(), sample_home / "topics.toml")
    assert catalog.find("llm-agent-training").decide == "query"
    papers = [p for _, p in Store(store.path).search(lambda *_: True)]
    for paper in papers:
        fields = (paper.title, paper.abstract, paper.authors, paper.categories)
        assert paper.tags == catalog.tag_fields(*fields, paper.arxiv_id), paper.arxiv_id
    # Its query matches nothing now: it holds exactly the papers the others imply.
    held = {p.arxiv_id for p in papers if "llm-agent-training" in p.tags}
    assert held == {p.arxiv_id for p in papers if linked & set(p.tags)}
    assert {p.arxiv_id for p in implied} <= held


def test_a_query_topic_newly_implied_gets_the_papers_of_the_topics_that_imply_it(
    sample_home: Path,
) -> None:
    """A retag of a topic read only the papers its own query may match and those that
    held its own tag: an `implies` added by hand to another topic, or the implied
    topic removed and added again, left it without the papers the other's tag brings
    (a child topic went from 1,633 papers to 0), while explain said they were in it."""
    from papertrack import paths
    from papertrack.topics import Catalog

    topics = sample_home / "topics.toml"
    parent = '[[topic]]\nname = "Parent Z"\nquery = "survey"\n'
    child = '[[topic]]\nname = "Child W"\nquery = "okapi"\n'
    topics.write_text(parent + child, encoding="utf-8")
    assert run("latest", "child-w", "-n", "1").exit_code == 0  # tags both

    def tags_are_as_tagged_anew() -> set[str]:
        catalog = Catalog.load(paths.default_topics_file(), topics)
        papers = [p for _, p in Store(sample_home / "store").search(lambda *_: True)]
        for paper in papers:
            fields = (paper.title, paper.abstract, paper.authors, paper.categories)
            assert paper.tags == catalog.tag_fields(*fields, paper.arxiv_id), paper.arxiv_id
        return {p.arxiv_id for p in papers if "child-w" in p.tags}

    assert tags_are_as_tagged_anew() == set()
    topics.write_text(parent + 'implies = ["child-w"]\n' + child, encoding="utf-8")
    assert run("latest", "child-w", "-n", "1").exit_code == 0  # retags
    surveys = tags_are_as_tagged_anew()
    assert len(surveys) > 10
    assert run("topics", "remove", "child-w").exit_code == 0
    added = run("topics", "add", "Child W", "--query", "okapi")
    assert added.exit_code == 0, added.stderr
    assert tags_are_as_tagged_anew() == surveys


def test_the_first_command_on_a_store_without_the_index_builds_it_with_a_spinner(
    store: Store, isolated_home: Path
) -> None:
    import os

    from helpers import run_in_pty

    store.search_path.unlink()
    env = {**os.environ, "PAPERTRACK_HOME": str(isolated_home)}
    code, seen = run_in_pty("latest", "-n", "1", env=env)
    assert code == 0, seen
    assert b"Building the search index (once)" in seen
    assert TextIndex(store.search_path).synced_with(Store(store.path).index().generation)
    piped = run("latest", "-n", "1")  # now in step: nothing more to build, nothing said
    assert piped.exit_code == 0 and "search index" not in piped.stderr


def test_closing_the_index_waits_for_a_thread_writing_rows(tmp_path: Path) -> None:
    """A Ctrl-C during a big ingest closed the connection under the thread putting a
    batch's rows, and SQLite crashed the process (exit 139, about one run in four)."""
    import threading

    index = TextIndex(tmp_path / "search.sqlite")
    entered, release, closed = threading.Event(), threading.Event(), threading.Event()
    rows = [(f"2601.{n:05d}", "2026-01-05", ("title", "abstract", "", "cs ai")) for n in range(50)]

    def write() -> None:
        with index.writing():
            db = index.begin()
            entered.set()
            release.wait(30)
            index.put(db, rows)

    writer = threading.Thread(target=write)
    writer.start()
    assert entered.wait(30)
    closer = threading.Thread(target=lambda: (index.close(), closed.set()))
    closer.start()
    assert not closed.wait(0.3)  # held back while the rows go in
    release.set()
    writer.join(30)
    closer.join(30)
    assert closed.is_set()
    # Closed with its transaction open, the rows were never committed.
    assert TextIndex(tmp_path / "search.sqlite").stats()["papers"] == 0


def test_an_interrupted_batch_lets_go_of_the_index_before_the_store_lock(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C while a batch's week files are written: the rows' thread is joined and its
    transaction rolled back, and the store is as it was."""
    import papertrack.writer as writer

    db = str(tmp_path / "store")
    feed = [kaggle_line(f"2601.{n:05d}", f"Paper {n}") for n in range(20)]
    source = tmp_path / "papers.jsonl"
    source.write_text("\n".join(feed) + "\n", encoding="utf-8")
    assert run("--db", db, "ingest", str(source)).exit_code == 0
    before = run("--db", db, "export", "-f", "jsonl").stdout
    abandoned: list[bool] = []
    real_abandon = writer._TextBatch.abandon

    def abandon(self: writer._TextBatch) -> None:
        real_abandon(self)
        abandoned.append(self.thread is not None and not self.thread.is_alive())

    def interrupted(self: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(writer._TextBatch, "abandon", abandon)
    monkeypatch.setattr(writer._Partitions, "flush", interrupted)
    more = tmp_path / "more.jsonl"
    more.write_text(kaggle_line("2601.99999", "One more") + "\n", encoding="utf-8")
    result = run("--db", db, "ingest", str(more))
    assert result.exit_code == 130
    assert abandoned == [True]
    monkeypatch.undo()
    assert run("--db", db, "export", "-f", "jsonl").stdout == before
    assert run("--db", db, "search", "more").stdout.count("2601.99999") == 0
