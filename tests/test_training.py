"""How a topic's model and rule are chosen: folds that stay put when an example is
added, a threshold from the middle of the best ones, and the same choice whether
the fits run in one process or in several."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import random
from pathlib import Path

import pytest
from hypothesis import given, settings

from papertrack import learn, parallel, paths, training
from papertrack.fitting import Matrix
from papertrack.topics import model_text
from tests.helpers import paper_texts
from tests.synthetic import corpus


def test_an_added_example_leaves_every_other_fold_where_it_was() -> None:
    keys = [f"2601.{i:05d}" for i in range(1000)]
    before = training._folds(keys, 5, training.SEED)
    after = training._folds([*keys[:500], "2601.99999", *keys[500:]], 5, training.SEED)
    assert after[:500] == before[:500] and after[501:] == before[500:]
    sizes = [before.count(f) for f in range(5)]
    assert min(sizes) > 150  # the folds share the examples about evenly
    assert training._folds(keys, 5, training.SEED + 1) != before  # the seed matters


def test_the_threshold_is_the_middle_of_the_near_best_ones() -> None:
    # Overlapping scores: F1 is flat over a stretch of thresholds near its best.
    rng = random.Random(4)
    y = [i < 60 for i in range(300)]
    scores = [rng.gauss(1.0 if label else -1.0, 1.0) for label in y]
    cuts = training._candidate_cuts(sorted(set(scores), reverse=True))
    f1, cut, rated = training._best_cut("model", cuts, scores, y, None)
    swept = {}
    for c in cuts:
        tp = sum(1 for s, label in zip(scores, y, strict=True) if s >= c and label)
        tagged = sum(1 for s in scores if s >= c)
        swept[c] = round(learn.prf_counts(tp, tagged - tp, 60 - tp)[2], 4)
    best = max(swept.values())
    near = [c for c in cuts if swept[c] >= best - training.BAND]
    assert len(near) > 1 and cut == near[(len(near) - 1) // 2]
    assert f1 == rated["f1"] >= best - training.BAND - 1e-4
    assert cut != max(near)  # not simply the highest of the best
    # A teach's refit keeps, of the near-best, the one nearest the shipped threshold:
    # the middle moved llm-agent-training's by 0.09 for two examples, 26 papers with it.
    for prefer in (max(near) + 5.0, min(near) - 5.0, near[len(near) // 3] + 1e-6):
        f1, kept, _ = training._best_cut("model", cuts, scores, y, None, prefer)
        assert kept == min(near, key=lambda c: abs(c - prefer))
        assert f1 >= best - training.BAND - 1e-4
    assert training._best_cut("model", cuts, scores, y, None, max(near) + 5.0)[1] == max(near)


@pytest.mark.skipif(not parallel._can_fork(), reason="needs fork")
def test_cross_validation_chooses_the_same_in_one_process_or_several(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    docs, labels, _ = corpus(training.SPREAD_AT + 200, seed=5)
    keys = [f"2602.{i:05d}" for i in range(len(docs))]
    hits = [("click" in d) for d in docs]
    chosen = {}
    for workers in ("1", "2"):
        monkeypatch.setenv(parallel.WORKERS_ENV, workers)
        choice = training.choose(docs, labels, hits, keys=keys)
        chosen[workers] = (json.dumps(choice.model.to_json(), sort_keys=True), choice.rules)
    assert chosen["1"] == chosen["2"]
    assert json.loads(chosen["1"][0])["weights"]  # a real model, not a constant
    assert os.environ[parallel.WORKERS_ENV] == "2"


@pytest.mark.skipif(not parallel._can_fork(), reason="needs fork")
def test_a_ctrl_c_in_cross_validation_stops_its_workers_before_it_is_raised(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The fold fits' pool was left to the garbage collector: stopped only after
    "Interrupted." was said, and a second Ctrl-C then killed the command outright
    (exit -2, not 130)."""
    import glob

    def children() -> set[str]:
        found: set[str] = set()
        for listed in glob.glob(f"/proc/{os.getpid()}/task/*/children"):
            with contextlib.suppress(FileNotFoundError):  # a thread that ended meanwhile
                found.update(Path(listed).read_text(encoding="ascii").split())
        return found

    # This process's own, from tests before this one in it: not the pool's.
    earlier = children()
    docs, labels, _ = corpus(training.SPREAD_AT + 200, seed=5)
    keys = [f"2602.{i:05d}" for i in range(len(docs))]
    monkeypatch.setenv(parallel.WORKERS_ENV, "2")

    parent = os.getpid()
    held_out = training._FoldJob.held_out

    def interrupted(self: training._FoldJob, part: int) -> list[int]:
        if os.getpid() == parent:  # as if pressed while the folds' scores come back
            raise KeyboardInterrupt
        return held_out(self, part)  # the workers fit on

    monkeypatch.setattr(training._FoldJob, "held_out", interrupted)
    with pytest.raises(KeyboardInterrupt) as caught:
        training.choose(docs, labels, None, keys=keys)
    # The traceback holds the frame, and the pool with it, alive: stopped all the same.
    assert caught.traceback
    assert children() <= earlier


def test_a_topic_made_from_four_examples_finds_more_of_its_kind() -> None:
    # As `topics add NAME --like ID...` makes a topic the labels do not know: four
    # GUI-agent papers of the train split, every other label of the topic hidden,
    # scored on the test split where its 41 positives (of 2,400) are known.
    labelled = training.load_labelled(paths.labels_file())
    train = [p for p in labelled if p.split == training.TRAIN]
    test = [p for p in labelled if p.split != training.TRAIN]
    matrix = training.train_set(labelled).matrix
    test_docs = training.paper_features(test)
    keys = [p.arxiv_id for p in train]
    gold = ["gui-agents" in p.labels for p in test]
    pool = [i for i, p in enumerate(train) if "gui-agents" in p.labels]
    figures = []
    for draw in range(3):
        chosen = set(random.Random(draw).sample(pool, 4))
        y = [i in chosen for i in range(len(train))]
        choice = training.choose(matrix, y, None, keys=keys, like_until=training.LIKE_UNTIL)
        assert choice.model.meta["kind"] == "centroid" and choice.decide == "model"
        assert "4 examples in the topic: made from what they share" in choice.model.meta["note"]
        predicted = [choice.model.decide(doc) for doc in test_docs]
        figures.append((*learn.prf(predicted, gold), sum(predicted)))
    precision = sum(f[0] for f in figures) / 3
    recall = sum(f[1] for f in figures) / 3
    # Measured 0.81 and 0.67 (0.54 and 0.71 before the feedback of FEEDBACK_UNTIL); a
    # regression on the examples against the background
    # found none of the held-out papers.
    assert precision > 0.35 and recall > 0.45
    assert all(tagged < 0.06 * len(test) for *_, tagged in figures)  # not everything


def test_a_taught_topic_turns_from_its_examples_share_to_a_fitted_model() -> None:
    docs, labels, _ = corpus(600, rate=0.0, seed=12)
    docs, labels = list(docs), list(labels)
    keys = [f"2601.{i:05d}" for i in range(len(docs))]
    for count in (training.LIKE_UNTIL - 1, training.LIKE_UNTIL):
        y = [i < count for i in range(len(docs))]
        marked = [d | {"widget"} if label else d for d, label in zip(docs, y, strict=True)]
        unknown = training.choose(marked, y, None, keys=keys, like_until=training.LIKE_UNTIL)
        default = training.choose(marked, y, None, keys=keys)
        made = "centroid" if count < training.LIKE_UNTIL else None
        assert unknown.model.meta.get("kind") == made
        assert default.model.meta.get("kind") is None and default.model.meta["cv"]


def test_a_topic_made_from_one_example_takes_it_and_papers_like_it() -> None:
    docs, labels, _ = corpus(400, rate=0.0, seed=13)
    telling = {"episodic", "recall", "replay", "hippocampal", "consolidation", "t:memory"}
    docs = [*docs[:-1], docs[-1] | telling]
    docs += [docs[i] | telling for i in range(3)]  # three papers like it
    y = [i == 399 for i in range(len(docs))]
    keys = [f"2601.{i:05d}" for i in range(len(docs))]
    choice = training.choose(docs, y, None, keys=keys, like_until=training.LIKE_UNTIL)
    model = choice.model
    assert model.meta["note"] == "1 example in the topic: made from its words"
    assert model.meta["held_out_recall"] is None
    assert all(model.decide(docs[i]) for i in (399, 400, 401, 402))
    assert sum(model.decide(d) for d in docs) <= 0.05 * len(docs) + 4


def test_examples_that_score_far_above_the_cut_when_held_out_raise_it() -> None:
    docs, labels, _ = corpus(500, rate=0.0, seed=14)
    telling = {f"memory{i}" for i in range(8)}
    rng = random.Random(3)
    # Six tight examples share all eight telling words; 20 papers share two of them.
    docs = [*docs, *(docs[100 + i] | telling for i in range(6))]
    docs = [d | set(rng.sample(sorted(telling), 2)) if i < 20 else d for i, d in enumerate(docs)]
    y = [i >= 500 for i in range(len(docs))]
    keys = [f"2601.{i:05d}" for i in range(len(docs))]
    model = training.choose(docs, y, None, keys=keys, like_until=training.LIKE_UNTIL).model
    examples = [d for d, label in zip(docs, y, strict=True) if label]
    matrix = Matrix.from_sets(docs)
    rows = [i for i, label in enumerate(y) if label]
    cut = training._centroid(matrix, rows, [i for i, label in enumerate(y) if not label]).threshold
    assert model.threshold > cut  # held out, the examples scored far above it: raised
    assert "6 of 6 reach the threshold" in model.meta["note"]
    assert all(model.decide(d) for d in examples)
    assert not any(model.decide(d) for d in docs[:20])  # two telling words are not enough


def test_papers_taught_out_of_a_topic_made_from_examples_bring_in_no_other() -> None:
    """Teaching the papers a topic wrongly takes out of it took them out of the
    background its threshold is a share of: the cut fell, and papers like them came in."""
    docs, _, _ = corpus(400, rate=0.0, seed=15)
    telling = [f"memory{i}" for i in range(10)]
    rng = random.Random(5)
    # Background papers sharing some of the examples' words, more or fewer.
    docs = [d | set(rng.sample(telling, rng.randint(1, 6))) if i < 60 else d
            for i, d in enumerate(docs)]  # fmt: skip
    # As many examples as need no feedback step: the model is what they share.
    docs += [docs[200 + i] | set(telling) for i in range(training.FEEDBACK_UNTIL)]
    y = [i >= 400 for i in range(len(docs))]
    keys = [f"2601.{i:05d}" for i in range(len(docs))]

    def taken(outside: set[str]) -> tuple[set[int], float]:
        model = training.choose(
            docs, y, None, keys=keys, outside=outside, like_until=training.LIKE_UNTIL
        ).model
        return {i for i, d in enumerate(docs) if not y[i] and model.decide(d)}, model.threshold

    before, threshold = taken(set())
    assert 3 <= len(before) <= 40
    wrong = set(sorted(before)[:3])
    # Pinned out by the caller; the model is the one it was, cut and all.
    assert taken({keys[i] for i in wrong}) == (before, threshold)


def test_the_shipped_models_are_what_the_labels_refit_to() -> None:
    # `python -m papertrack.training --fit` rebuilds data/models from the labels: a
    # refit of one topic here gives its shipped file back (to the last decimal kept,
    # give or take one where a float lands on a rounding boundary).
    from papertrack.topics import Catalog

    labelled = training.load_labelled(paths.labels_file())
    topic = Catalog.default().by_slug("gui-agents")
    assert topic is not None
    refit = training.fit_default(topic, labelled, training.train_set(labelled)).model
    shipped = topic.model
    assert refit.meta["decide"] == shipped.meta["decide"]
    assert refit.weights.keys() == shipped.weights.keys()
    for name, weight in shipped.weights.items():
        assert refit.weights[name] == pytest.approx(weight, abs=1.5e-4), name
    assert refit.threshold == pytest.approx(shipped.threshold, abs=1.5e-4)
    assert refit.meta["rules"] == shipped.meta["rules"]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_the_train_matrix_is_the_matrix_of_each_papers_feature_names(
    workers: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(parallel.WORKERS_ENV, workers)  # 2: slices read in workers
    papers = training.load_labelled(paths.labels_file())[: training.SPREAD_AT + 7]
    # One paper with no text at all: no features, not one empty one.
    papers[3] = dataclasses.replace(papers[3], title="", abstract="")
    made, table = training.train_matrix(papers)
    named = Matrix.from_sets(training.paper_features(papers))
    assert list(made.names) == list(named.names)
    assert (made.rows != named.rows).nnz == 0 and made.rows.shape == named.rows.shape
    assert made.rows[3].nnz == 0 and made.rows[4].nnz > 100
    # The table made with the vocabulary gives the ids the one read from its names
    # gives, on papers it was not made from as well (words it lacks).
    other = training.load_labelled(paths.labels_file())[-300:]
    texts = [model_text(p.title, p.abstract, (), p.categories) for p in [*papers[:300], *other]]
    read = learn.read_all(texts)
    from_names = learn.FeatureIds(list(made.names)).ids(read)
    assert all((a == b).all() for a, b in zip(table.ids(read), from_names, strict=True))
    assert table.size == len(made.names) and len(from_names[1]) > 300 * 250


@settings(max_examples=150, deadline=None)
@given(paper_texts())
def test_the_vocabulary_of_any_text_is_its_feature_names(
    papers: list[tuple[str, str, list[str]]],
) -> None:
    names, rows, ids = learn.vocabulary(papers)
    for cut in range(len(papers) + 1):  # read in two parts, put together: the same
        read = learn.read_all(papers)
        parts = [learn.word_runs(read[:cut]), learn.word_runs(read[cut:])]
        apart = learn.vocabulary_of(parts)
        assert apart[0] == names and apart[1].tolist() == rows.tolist()
        assert apart[2].tolist() == ids.tolist()
        # Its table finds those ids again, as the table read from the names does.
        found = apart[3].ids(read)
        assert found[0].tolist() == rows.tolist() and found[1].tolist() == ids.tolist()
        swapped = learn.read_all((abstract, title, hints) for title, abstract, hints in papers)
        mine, theirs = apart[3].ids(swapped), learn.FeatureIds(names).ids(swapped)
        assert mine[0].tolist() == theirs[0].tolist() and mine[1].tolist() == theirs[1].tolist()
    made = [learn.features(*paper) for paper in papers]
    assert names == sorted(set().union(*made))
    for n, feats in enumerate(made):
        assert [names[i] for i in ids[rows == n].tolist()] == sorted(feats)


def test_the_f1_interval_holds_the_figure_and_narrows_with_more_papers() -> None:
    counts = (6, 3, 4)  # terminal agents' shape: ten positives, nine tagged
    low, high = training.f1_interval(*counts, 2400)
    f1 = learn.prf_counts(*counts)[2]
    assert low < f1 < high
    assert high - low > 0.3  # one paper of ten moves F1 a lot
    assert training.f1_interval(*counts, 2400) == (low, high)  # seeded
    wide = high - low
    low10, high10 = training.f1_interval(*(10 * c for c in counts), 24000)
    assert low10 < f1 < high10 and high10 - low10 < wide / 2
    assert training.f1_interval(10, 0, 0, 100) == (1.0, 1.0)
    assert training.f1_interval(0, 0, 0, 0) == (0.0, 0.0)
    assert training.f1_interval(0, 5, 5, 100) == (0.0, 0.0)


def test_the_labelled_papers_read_as_the_text_stream_reads_them() -> None:
    import gzip

    path = paths.labels_file()
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    papers = training.load_labelled(path)
    assert len(papers) == len(rows) > 15_000
    for paper, row in zip(papers, rows, strict=True):
        assert (paper.arxiv_id, paper.title, paper.abstract) == (
            row["arxiv_id"],
            row["title"],
            row["abstract"],
        )
        assert paper.labels == frozenset(row["labels"]) and paper.split == row["split"]
        assert paper.categories == tuple(row["categories"].split())


@pytest.mark.parametrize("damage", ["cut", "flipped", "not-gzip", "not-json", "no-id"])
def test_a_damaged_labels_file_is_one_error_saying_reinstall(tmp_path: Path, damage: str) -> None:
    import gzip

    from papertrack.errors import PapertrackError

    data = paths.labels_file().read_bytes()
    head = gzip.compress(b'{"arxiv_id": "1", "title": "t", "abstract": "a"}\n')
    damaged = {
        "cut": data[: len(data) // 2],
        "flipped": data[:5_000] + bytes(b ^ 0xFF for b in data[5_000:5_100]) + data[5_100:],
        "not-gzip": b"arxiv_id,title\n1,t\n",
        "not-json": gzip.compress(b'{"arxiv_id": "1", "title": \n'),
        "no-id": head + gzip.compress(b'{"title": "t", "abstract": "a"}\n'),
    }[damage]
    path = tmp_path / "corpus.jsonl.gz"
    path.write_bytes(damaged)
    with pytest.raises(PapertrackError, match=r"could not read the labelled papers .*Reinstall"):
        training.load_labelled(path)


def test_the_query_hits_a_refit_weighs_read_tex_as_tagging_does() -> None:
    from papertrack.topics import Catalog, Topic

    topic = Topic(name="Agents", slug="agents", query="title:agent*")
    texed = training.Labelled("x1", r"$\textbf{A}$gent training", "We train.", (), frozenset())
    plain = training.Labelled("x2", "Tool use at scale", "We train an agent.", (), frozenset())
    assert training.query_hits(topic, [texed, plain]) == [True, False]
    catalog = Catalog([topic])
    assert catalog.tag_fields(texed.title, texed.abstract, (), (), "x1") == ("agents",)


def test_a_bundled_querys_hits_are_read_from_the_features_as_matching_finds_them() -> None:
    import dataclasses as dc

    from papertrack.topics import Catalog

    labelled = training.load_labelled(paths.labels_file())[:2500]
    train = training.train_set(labelled)
    # Taught papers beyond the labelled ones: a TeX title, one no query matches, and
    # one whose every feature name sorts after "q:", so that its match is the first
    # feature of its row.
    texts = {
        "t1": training.Labelled("t1", r"$\textbf{A}$gentic RL", "We train.", (), frozenset()),
        "t2": training.Labelled("t2", "Protein folding", "A kernel.", ("q-bio.BM",), frozenset()),
        "t3": training.Labelled("t3", "RL with reward", "RL via reward.", (), frozenset()),
    }
    taught = {"t1": True, "t2": False, "t3": True}
    catalog = Catalog.default()
    for topic in catalog.topics:
        papers, _ = training.examples_for(topic.slug, labelled, taught, texts)
        matrix = training.examples_matrix(train, papers)
        hits = training.feature_hits(topic, papers, matrix)
        assert hits == training.query_hits(topic, papers)
        if topic.slug == "reinforcement-learning":
            assert hits[-3:] == [True, False, True]
            assert min(matrix.doc(len(papers) - 1)) == "q:reinforcement-learning"
    # A default replaced by a query of your own is matched on the text.
    topic = catalog.find("llm-agent-training")
    own = dc.replace(topic, query='title:"protein folding"')
    papers, _ = training.examples_for(own.slug, labelled, taught, texts)
    matrix = training.examples_matrix(train, papers)
    mine = training.feature_hits(own, papers, matrix)
    assert mine == training.query_hits(own, papers) and mine[-3:] == [False, True, False]
    assert sum(mine) < 10
    assert mine != training.feature_hits(topic, papers, matrix)
