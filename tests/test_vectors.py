"""Kept feature vectors (papertrack/vectors.py): a retag from them tags every paper
exactly as a retag from its text does, on the bundled sample's real papers; a paper
whose text changed, a file of another vocabulary or a damaged one is read again."""

from __future__ import annotations

import dataclasses
import json
import random
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from papertrack import paths, training, vectors
from papertrack.fulltext import TextIndex
from papertrack.learn import features, read_all
from papertrack.storage import PAPERS_TABLE, AtomicJSONStorage
from papertrack.store import Store, record_fields
from papertrack.topics import Catalog, model_text
from tests.helpers import ok, paper_texts, run


@pytest.fixture
def sample(sample_home: Path) -> Store:
    store = Store(sample_home / "store")
    labelled = training.load_labelled(paths.labels_file())
    training.train_set(labelled, store.vectors_dir)  # the vocabulary, as a refit keeps it
    return store


_VOCABULARIES: dict[Path, vectors.Vocabulary] = {}


def vocabulary(store: Store) -> vectors.Vocabulary:
    """The store's kept vocabulary, read once a store (its look-up table is built once)."""
    if store.path not in _VOCABULARIES:
        key = vectors.vocabulary_key(paths.labels_file(), paths.default_topics_file())
        found = vectors.read_labelled(store.vectors_dir / vectors.LABELLED, key)
        assert found is not None
        _VOCABULARIES[store.path] = found[0]
    return _VOCABULARIES[store.path]


def retag(tagging: vectors.VectorTagger, stored: list[Any]) -> dict[str, tuple[str, ...]]:
    """Every stored paper's tags by one tagger, week by week (vectors kept as it goes)."""
    found: dict[str, tuple[str, ...]] = {}
    for path, docs in stored:
        found.update(tagging.tag_week(path, docs))
    return found


def weeks(store: Store) -> list[tuple[Path, list[dict[str, Any]]]]:
    found = []
    for week in store.weeks():
        path = store.partition_path(week)
        data = AtomicJSONStorage(path).read() or {}
        found.append((path, list((data.get(PAPERS_TABLE) or {}).values())))
    return found


def from_text(subset: Catalog, docs: list[dict[str, Any]]) -> dict[str, tuple[str, ...]]:
    return {d["arxiv_id"]: subset.tag_fields(*record_fields(d), d["arxiv_id"]) for d in docs}


def tagger(
    store: Store, subset: Catalog, read_text: dict[str, set[str]] | None = None
) -> vectors.VectorTagger:
    return vectors.VectorTagger(subset, vocabulary(store), store.vectors_dir, read_text or {})


def counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Ids of the papers the next retags read from their text."""
    read: list[str] = []
    one, many = vectors.VectorTagger.from_text, vectors.VectorTagger._from_batch

    def spy(self: vectors.VectorTagger, pid: str, fields: Any) -> Any:
        read.append(pid)
        return one(self, pid, fields)

    def batch_spy(self: vectors.VectorTagger, kept: Any, batch: list[Any]) -> Any:
        read.extend(pid for pid, _, _ in batch)
        return many(self, kept, batch)

    monkeypatch.setattr(vectors.VectorTagger, "from_text", spy)
    monkeypatch.setattr(vectors.VectorTagger, "_from_batch", batch_spy)
    return read


def counting_queries(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Titles of the papers whose text the next retags match a topic's query on."""
    from papertrack.topics import Topic

    tried: list[str] = []
    real = Topic.matches_fields

    def spy(self: Topic, title: str, *rest: Any) -> bool:
        tried.append(title)
        return real(self, title, *rest)

    monkeypatch.setattr(Topic, "matches_fields", spy)
    return tried


def test_a_retag_from_kept_vectors_tags_as_one_from_text(
    sample: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalog = Catalog.default()
    subset = catalog.subset({t.slug for t in catalog.topics if t.decide != "query"})
    assert vectors.VectorTagger.suits(subset)
    assert {t.decide for t in subset.topics} - {"model"}  # a rule with the query, too
    read = counting(monkeypatch)
    stored = weeks(sample)
    papers = sum(len(docs) for _, docs in stored)
    assert papers > 4000
    expected = {}
    for _, docs in stored:
        expected.update(from_text(subset, docs))
    assert retag(tagger(sample, subset), stored) == expected
    assert len(read) == papers  # all read from text, once
    assert sum(map(bool, expected.values())) > 500  # many papers in some topic
    read.clear()
    assert retag(tagger(sample, subset), stored) == expected
    assert read == []  # none read again
    kept = sum(f.stat().st_size for f in sample.vectors_dir.glob("*-*.bin"))
    assert kept < 700 * papers  # a few hundred bytes a paper


@pytest.mark.parametrize("rule", ["either", "both"])
def test_a_topic_with_a_query_of_its_own_tags_from_kept_vectors_as_from_text(
    sample: Store, monkeypatch: pytest.MonkeyPatch, rule: str
) -> None:
    """A topic made with --like and --query was retagged from the text of every paper
    at each teach (15 s at 83,510 papers), where its model needs only kept vectors."""
    catalog = Catalog.default()
    base = catalog.by_slug("gui-agents")
    assert base is not None
    own = [
        # Its own slug, and a default's slug with a query of the user's: neither query's
        # match is a feature of the models (the default's bundled one would be wrong).
        dataclasses.replace(base, slug="my-gui", name="My GUI", decide_rule=rule,
                            query="title:agent* OR screen*"),
        dataclasses.replace(base, decide_rule=rule, query="title:agent* AND benchmark*"),
    ]  # fmt: skip
    subset = Catalog(own)
    assert vectors.VectorTagger.suits(subset) and not subset.hinted
    stored = weeks(sample)
    expected = {}
    for _, docs in stored:
        expected.update(from_text(subset, docs))
    retag(tagger(sample, subset), stored)  # keeps every paper's vectors
    read = counting(monkeypatch)
    assert retag(tagger(sample, subset), stored) == expected
    assert read == []  # the queries read the text, the models the kept vectors
    by_query = sum(1 for tags in expected.values() if "my-gui" in tags)
    assert 20 < by_query < 2000
    # Matched only on the papers the full-text index says may match, as a retag does.
    from papertrack.fulltext import fts_query

    narrowed = tagger(sample, subset)
    index = TextIndex(sample.search_path)
    try:
        for topic in own:
            query = fts_query(topic.membership)
            assert query is not None
            narrowed.query_within[topic.slug] = index.candidates(query)
    finally:
        index.close()
    tried = counting_queries(monkeypatch)
    assert retag(narrowed, stored) == expected
    assert 0 < len(tried) < len(expected) / 4


def test_taught_papers_hold_as_taught_from_kept_vectors(
    sample: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalog = Catalog.default()
    topic = catalog.by_slug("llm-agent-training")
    assert topic is not None
    stored = weeks(sample)
    plain = catalog.subset({topic.slug})
    tags = {}
    for _, docs in stored:
        tags.update(from_text(plain, docs))
    inside = next(pid for pid, t in tags.items() if t)
    outside = next(pid for pid, t in tags.items() if not t)
    data = json.loads(Path(topic.model_file).read_text())
    data["meta"]["pinned"] = {inside: False, outside: True}
    taught = tmp_path / "taught.json"
    taught.write_text(json.dumps(data))
    pinned = Catalog([dataclasses.replace(topic, model_file=str(taught))])
    retag(tagger(sample, pinned), stored)  # keeps every paper's vectors
    read = counting(monkeypatch)
    found = retag(tagger(sample, pinned), stored)
    assert read == []
    assert found[inside] == () and found[outside] == (topic.slug,)
    expected = {}
    for _, docs in stored:
        expected.update(from_text(pinned, docs))
    assert found == expected


def test_a_weighed_feature_no_labelled_paper_has_is_looked_up_in_the_text(
    sample: Store, tmp_path: Path
) -> None:
    # A model that weighs a word pair no labelled paper has (as a topic taught with
    # the user's own examples may): the papers that hold it must be read from their
    # text, or their kept vectors (which cannot hold it) would decide them wrong.
    catalog = Catalog.default()
    topic = catalog.by_slug("gui-agents")
    assert topic is not None
    stored = weeks(sample)
    known = vocabulary(sample)
    from papertrack.topics import model_features

    rare = None
    for _, docs in stored:
        for doc in docs:
            extra = sorted(
                f for f in model_features(*record_fields(doc)) if " " in f and known.find(f) is None
            )
            if extra:
                rare, holder = extra[0], doc["arxiv_id"]
                break
        if rare:
            break
    assert rare is not None
    data = json.loads(Path(topic.model_file).read_text())
    data["weights"][rare] = 50.0
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps(data))
    widened = Catalog([dataclasses.replace(topic, model_file=str(odd))])
    expected = {}
    for _, docs in stored:
        expected.update(from_text(widened, docs))
    assert expected[holder] == ("gui-agents",)
    retag(tagger(sample, widened), stored)  # every paper's vectors kept
    blind = tagger(sample, widened)
    assert blind.outside() == {rare}
    assert retag(blind, stored)[holder] == ()  # what vectors alone would decide
    query = vectors.outside_query(blind.outside())
    assert query is not None
    candidates = TextIndex(sample.search_path).candidates(query)
    week_of = {d["arxiv_id"]: path.stem for path, docs in stored for d in docs}
    assert holder in candidates[week_of[holder]]
    assert retag(tagger(sample, widened, candidates), stored) == expected
    assert vectors.outside_query(["s:AGENT+TRAIN"]) is None  # a concept: read every paper


def test_papers_that_may_hold_outside_features_are_read_only_when_their_bound_is_open(
    sample: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A topic made from a few examples weighs hundreds of their rare word pairs that
    # no labelled paper has. Kept vectors cannot hold them, but each paper that may
    # hold some is bounded by the most and the least they add: only a paper whose
    # tags differ between the two is read, and every tag is a retag's from text.
    catalog = Catalog.default()
    widened_topics = []
    known = vocabulary(sample)
    stored = weeks(sample)
    from papertrack.topics import model_features

    rare: list[tuple[str, str]] = []  # (feature, a paper holding it)
    for _, docs in stored:
        for doc in docs:
            extra = sorted(
                f for f in model_features(*record_fields(doc)) if " " in f and known.find(f) is None
            )
            rare += [(f, doc["arxiv_id"]) for f in extra[:3]]
    draw = random.Random(13)
    draw.shuffle(rare)
    assert len(rare) > 200
    strong = {rare[0][0]: 50.0, rare[1][0]: -50.0}
    for slug, weighed in (("gui-agents", rare[:150]), ("computer-use-agents", rare[100:250])):
        topic = catalog.by_slug(slug)
        assert topic is not None
        data = json.loads(Path(topic.model_file).read_text())
        for name, _ in weighed:
            data["weights"][name] = strong.get(name, round(draw.uniform(-0.8, 0.8), 4))
        odd = sample.path.parent / f"{slug}-odd.json"
        odd.write_text(json.dumps(data))
        widened_topics.append(dataclasses.replace(topic, model_file=str(odd)))
    widened = Catalog(widened_topics)  # computer-use agents imply GUI agents
    assert widened.settle(("computer-use-agents",)) == ("gui-agents", "computer-use-agents")
    expected = {}
    for _, docs in stored:
        expected.update(from_text(widened, docs))
    holders = {pid for name, pid in rare[:2]}
    assert "gui-agents" in expected[rare[0][1]]
    vectors_alone = retag(tagger(sample, widened), stored)  # every paper's vectors kept
    assert vectors_alone != expected
    index = TextIndex(sample.search_path)

    bounded = tagger(sample, widened)
    bounded.bound_outside(index.candidates)
    assert bounded.read_text is not None
    may_hold = {pid for pids in bounded.read_text.values() for pid in pids}
    assert holders <= may_hold
    read = counting(monkeypatch)
    assert retag(bounded, stored) == expected
    assert 0 < len(read) < len(may_hold) // 4

    # Past OUTSIDE_ONE_BY_ONE features, one query for all: every paper it finds is read.
    monkeypatch.setattr(vectors, "OUTSIDE_ONE_BY_ONE", 10)
    together = tagger(sample, widened)
    together.bound_outside(index.candidates)
    assert together.read_text == bounded.read_text and not together.may_add
    read.clear()
    assert retag(together, stored) == expected
    assert set(read) == may_hold
    blind = tagger(sample, widened)
    blind.bound_outside(None)  # no index to ask
    assert blind.read_text is None  # every paper read


def test_a_changed_text_another_vocabulary_or_a_damaged_file_is_read_again(
    sample: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalog = Catalog.default()
    subset = catalog.subset({"llm-agent-training", "gui-agents"})
    path, docs = weeks(sample)[-1]
    tagger(sample, subset).tag_week(path, docs)
    read = counting(monkeypatch)
    changed = [dict(d) for d in docs]
    changed[0]["abstract"] = "We train GUI agents with reinforcement learning on Android."
    found = tagger(sample, subset).tag_week(path, changed)
    assert read == [changed[0]["arxiv_id"]]
    assert found == from_text(subset, changed)
    read.clear()
    tagger(sample, subset).tag_week(path, changed)
    assert read == []  # its new vectors were kept
    kept = sample.vectors_dir / f"{path.stem}.bin"
    flipped = bytearray(kept.read_bytes())
    flipped[-5] ^= 0x10  # an id's bits: the file has its size, but not its checksum
    for garbage in (b"not vectors", kept.read_bytes()[:-100], b"", bytes(flipped)):
        kept.write_bytes(garbage)
        read.clear()
        assert tagger(sample, subset).tag_week(path, changed) == from_text(subset, changed)
        assert len(read) == len(changed)
    other = vectors.Vocabulary("another-key", vocabulary(sample).names)
    read.clear()
    vectors.VectorTagger(subset, other, sample.vectors_dir, {}).tag_week(path, changed)
    assert len(read) == len(changed)  # kept under the real key: not this vocabulary's


def test_teach_keeps_vectors_and_a_second_teach_tags_as_a_retag_from_text(
    sample_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    topic = "llm-agent-training"
    before = json.loads(ok("latest", topic, "--json", "-n", "5000").stdout)
    outside = next(
        p["arxiv_id"]
        for p in json.loads(ok("latest", "--json", "-n", "300").stdout)
        if topic not in p["tags"]
    )
    inside = before[0]["arxiv_id"]
    monkeypatch.setenv("PAPERTRACK_WORKERS", "2")  # the sample's ~4,800 papers spread
    ok("topics", "teach", topic, outside)
    store = sample_home / "store"
    assert (store / "vectors" / vectors.LABELLED).is_file()
    assert len(list((store / "vectors").glob("*-*.bin"))) == len(Store(store).weeks())
    assert "kept vectors" in ok("stats").stdout
    ok("topics", "teach", topic, "--not", inside)  # from kept vectors
    with_vectors = json.loads(ok("latest", topic, "--json", "-n", "5000").stdout)
    assert inside not in {p["arxiv_id"] for p in with_vectors}
    # The same examples taught to a copy of the store without its vectors: the same tags.
    ok("topics", "teach", topic, "--forget")
    shutil.rmtree(store / "vectors")
    ok("topics", "teach", topic, outside, "--not", inside)
    from_text = json.loads(ok("latest", topic, "--json", "-n", "5000").stdout)
    assert [p["arxiv_id"] for p in from_text] == [p["arxiv_id"] for p in with_vectors]


def test_vectors_that_cannot_be_written_are_done_without(sample_home: Path) -> None:
    """Kept vectors are derived data: a file that cannot be written is skipped, the
    teach tags from text, and the store is left clean."""
    topic = "llm-agent-training"
    outside = next(
        p["arxiv_id"]
        for p in json.loads(ok("latest", "--json", "-n", "300").stdout)
        if topic not in p["tags"]
    )
    folder = sample_home / "store" / "vectors"
    week = Store(sample_home / "store").weeks()[-1]
    (folder / vectors.LABELLED / "x").mkdir(parents=True)  # a folder where a file goes
    (folder / f"{week}.bin" / "x").mkdir(parents=True)
    ok("topics", "teach", topic, outside)
    tagged = json.loads(ok("latest", topic, "--json", "-n", "5000").stdout)
    assert outside in {p["arxiv_id"] for p in tagged}
    assert not (sample_home / "store" / ".dirty").exists()
    ok("doctor")
    # The same teach with nothing in the way keeps its vectors, and tags the same.
    ok("topics", "teach", topic, "--forget")
    shutil.rmtree(folder)
    ok("topics", "teach", topic, outside)
    again = json.loads(ok("latest", topic, "--json", "-n", "5000").stdout)
    assert [p["arxiv_id"] for p in again] == [p["arxiv_id"] for p in tagged]
    assert (folder / f"{week}.bin").is_file()


def test_a_store_holding_only_its_vectors_and_layout_is_still_a_store(tmp_path: Path) -> None:
    folder = tmp_path / "old-store"
    (folder / "vectors").mkdir(parents=True)
    (folder / "papers").mkdir()
    Store(folder)  # no marker yet, only papertrack's own names: accepted
    result = run("--db", str(folder), "stats")
    assert result.exit_code == 0, result.stderr


def test_ids_from_text_in_batches_are_the_ids_of_each_papers_feature_names(
    sample: Store,
) -> None:
    # The first retag by a model makes every stored paper's ids a week at a time,
    # without each feature's name: they must be the ids of exactly those names.
    words = vocabulary(sample)
    docs = [doc for _, week in weeks(sample) for doc in week]
    texts = [model_text(*record_fields(doc)) for doc in docs]
    rows, ids = words.table.ids(read_all(texts))
    assert len(ids) > 200 * len(docs)  # hundreds of features a paper
    bounds = rows.searchsorted(range(len(texts) + 1)).tolist()
    made = [ids[bounds[n] : bounds[n + 1]].tolist() for n in range(len(texts))]
    assert made == [words.encode(features(*text)) for text in texts]


@settings(max_examples=150, deadline=None)
@given(paper_texts(), st.integers(min_value=0, max_value=2**32))
def test_ids_from_text_match_feature_names_for_any_text_and_vocabulary(
    papers: list[tuple[str, str, list[str]]], seed: int
) -> None:
    # Names drawn from the features of other texts (a vocabulary lacks some of a
    # paper's features, and holds words that only occur in pairs) must give the
    # same ids as looking each feature of the paper up by its name.
    every = sorted({name for p in papers for name in features(*p)})
    names = sorted(random.Random(seed).sample(every, len(every) // 2))
    found = vectors.Vocabulary("k", names)
    rows, ids = found.table.ids(read_all(papers))
    for n, paper in enumerate(papers):
        assert ids[rows == n].tolist() == found.encode(features(*paper))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=2**32 - 1), max_size=300))
def test_kept_ids_read_back_as_written(ids: list[int]) -> None:
    import numpy as np

    words = np.array(ids, dtype=np.uint32)
    assert vectors._unpack(vectors._pack(words)).tolist() == ids


def test_a_damaged_vectors_file_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "2026-06-22.bin"
    kept = vectors.WeekVectors(path, "key")
    kept.put("2606.00001", "digest-1", [3, 70_000, 70_004])
    kept.put("2606.00002", "digest-2", [1, 2**31 + 5])
    kept.save(["2606.00001", "2606.00002"])
    assert vectors.WeekVectors(path, "key").find("2606.00002", "digest-2") is not None
    good = path.read_bytes()
    for n in range(len(good)):
        for bit in (0x01, 0x80):
            damaged = bytearray(good)
            damaged[n] ^= bit
            path.write_bytes(bytes(damaged))
            assert vectors.WeekVectors(path, "key").kept == {}, (n, bit)
    for cut in (good[:-1], good[:30], good + b"\0"):
        path.write_bytes(cut)
        assert vectors.WeekVectors(path, "key").kept == {}


def test_kept_ids_outside_the_vocabulary_are_not_read(tmp_path: Path) -> None:
    path = tmp_path / "2026-06-22.bin"
    kept = vectors.WeekVectors(path, "key")
    kept.put("2606.00001", "digest-1", [3, 9])
    kept.put("2606.00002", "digest-2", [1, 10])
    kept.save(["2606.00001", "2606.00002"])
    assert vectors.WeekVectors(path, "key", size=11).find("2606.00002", "digest-2") == (2, 2)
    assert vectors.WeekVectors(path, "key", size=10).kept == {}
