"""Tests for papertrack.fitting: the feature matrix, feature selection, the regression
and the "more like these" model, on the synthetic corpus of tests/test_learn.py."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sparse
from scipy.optimize import minimize
from scipy.special import expit, log_expit

from papertrack import fitting, training
from papertrack.fitting import Matrix
from papertrack.learn import TopicModel, features, prf
from tests.synthetic import INDICATIVE, Corpus, corpus, cross_validated

ROOT = Path(__file__).resolve().parent.parent


def fit(docs: list[frozenset[str]], labels: list[bool], **args: object) -> TopicModel:
    return fitting.fit(Matrix.from_sets(docs), labels, **args)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- the matrix


def test_a_matrix_of_sets_has_a_row_a_paper_and_a_column_a_name_in_name_order() -> None:
    docs = [frozenset({"b", "d"}), frozenset(), frozenset({"f", "b"})]
    matrix = Matrix.from_sets(docs)
    assert list(matrix.names) == ["b", "d", "f"] and matrix.rank.tolist() == [0, 1, 2]
    assert matrix.rows.toarray().tolist() == [[1, 1, 0], [0, 0, 0], [1, 0, 1]]
    assert [matrix.doc(i) for i in range(3)] == docs


def test_rows_added_to_a_matrix_bring_their_new_names_in_name_order() -> None:
    matrix = Matrix.from_sets([frozenset({"b", "d"}), frozenset({"f"})])
    grown = matrix.with_rows([frozenset({"a", "d", "e"})]).with_rows([frozenset({"c", "g", "a"})])
    names = [grown.names[i] for i in range(len(grown.names))]
    assert names[:3] == ["b", "d", "f"]  # the known columns stay where they were
    assert [names[i] for i in np.argsort(grown.rank)] == list("abcdefg")
    assert [grown.doc(i) for i in range(len(grown))] == [
        {"b", "d"},
        {"f"},
        {"a", "d", "e"},
        {"a", "c", "g"},
    ]
    assert matrix.with_rows([]) is matrix


def test_a_matrix_reads_rows_as_the_vectors_file_keeps_them() -> None:
    rows = [[0, 3, 4, 9], [], [2], [1, 9]]
    # The format: each row's sorted ids as differences, the first from 0, 32-bit LE.
    kept = [0, 3, 1, 5, 2, 1, 8]
    deltas = b"".join(d.to_bytes(4, "little") for d in kept)
    matrix = Matrix.from_deltas([len(r) for r in rows], deltas, list("abcdefghij"))
    assert [
        sorted(matrix.rows.indices[a:b].tolist())
        for a, b in zip(matrix.rows.indptr, matrix.rows.indptr[1:], strict=False)
    ] == rows
    # And a matrix written that way reads back the same.
    assert matrix.deltas() == ([4, 0, 1, 2], deltas)
    made = Matrix.from_sets([{"a", "d", "e", "j"}, set(), {"c"}, {"b", "j"}])
    assert made.names == list("abcdej")
    again = Matrix.from_deltas(*made.deltas(), made.names)
    assert (again.rows != made.rows).nnz == 0
    assert Matrix.from_sets([]).deltas() == ([], b"")


# --------------------------------------------------------------------------- selection


def test_selection_ranks_by_chi_square_with_ties_by_name() -> None:
    def chi2(n: int, positives: int, df: int, pos_df: int) -> float:
        # The statistic of the 2x2 table, written out cell by cell.
        a, b = pos_df, df - pos_df
        c, d = positives - pos_df, n - positives - (df - pos_df)
        denominator = df * (n - df) * positives * (n - positives)
        return n * (a * d - b * c) ** 2 / denominator if denominator else 0.0

    rng = random.Random(7)
    n, positives = 500, 40
    df = np.array([rng.choice([1, 2, 2, 3, 5, 40, 499, 500]) for _ in range(3000)])
    pos_df = np.array([rng.randint(0, min(d, positives)) if rng.random() < 0.5 else 0 for d in df])
    rank = np.array(rng.sample(range(3000), 3000))  # the columns' places in name order
    for k in (1, 50, 2999, 5000):
        chosen = fitting.select(
            df, pos_df, rank, papers=n, positives=positives, min_df=2, budget=k
        ).tolist()
        eligible = [j for j in range(3000) if df[j] >= 2]
        ranked = sorted(eligible, key=lambda j: (-chi2(n, positives, df[j], pos_df[j]), rank[j]))
        assert chosen == sorted(ranked[:k], key=lambda j: rank[j])


def test_max_features_and_min_df_limit_the_model(
    train: Corpus,
) -> None:
    docs, labels, _ = train
    small = fit(docs, labels, max_features=40)
    assert 0 < len(small.weights) <= 40
    # Chi-square keeps the telling words.
    assert set(INDICATIVE) <= set(small.weights)
    seen = Counter(name for doc in docs for name in doc)
    once = {name for name, count in seen.items() if count == 1}
    assert once
    full = fit(docs, labels, max_features=None, features_per_positive=None)
    assert len(full.weights) > 1000
    assert not once & set(full.weights)
    # The budget follows the positives: 8 per positive, at least 100.
    budget = max(100, 8 * sum(labels))
    assert budget - 5 < len(fit(docs, labels, max_features=None).weights) <= budget


# --------------------------------------------------------------------------- the regression


def test_the_fit_is_the_optimum_of_its_objective(
    train: Corpus,
) -> None:
    # The objective written out independently, solved by another method: the weights
    # agree to the 4 decimals a model keeps (up to the last one's rounding).
    docs, labels, _ = train
    model = fit(docs, labels, l2=3.0, max_features=300)
    names = sorted(model.weights)
    matrix = Matrix.from_sets(docs)
    selected = fitting.select(
        *fitting.counts(matrix, np.arange(len(docs)), labels),
        matrix.rank,
        papers=len(docs),
        positives=sum(labels),
        min_df=2,
        budget=300,
    )
    assert set(names) <= {matrix.names[j] for j in selected}
    x = matrix.rows[:, selected].toarray()
    x = np.hstack([x, np.full((len(docs), 1), 10.0)])  # the bias feature
    y = np.where(labels, 1.0, -1.0)
    positives = sum(labels)
    costs = np.where(labels, len(y) / (2 * positives), len(y) / (2 * (len(y) - positives))) / 3.0

    def objective(w: np.ndarray) -> float:
        return 0.5 * float(w @ w) - float(costs @ log_expit(y * (x @ w)))

    def gradient(w: np.ndarray) -> np.ndarray:
        return w - x.T @ (costs * y * expit(-y * (x @ w)))

    found = minimize(
        objective,
        np.zeros(x.shape[1]),
        jac=gradient,
        method="L-BFGS-B",
        options={"gtol": 1e-10, "ftol": 1e-15, "maxiter": 10000},
    )
    assert np.linalg.norm(gradient(found.x)) < 1e-4
    reference = dict(zip([matrix.names[j] for j in selected], found.x[:-1], strict=True))
    for name in reference:
        assert model.weights.get(name, 0.0) == pytest.approx(reference[name], abs=2e-4)
    assert model.bias == pytest.approx(found.x[-1] * 10.0, abs=2e-3)


def test_a_cross_validated_model_learns_the_topic_and_beats_baselines(
    train: Corpus,
    held_out: Corpus,
) -> None:
    docs, labels, _ = train
    model = cross_validated(docs, labels)
    cv = model.meta["cv"]
    always = prf([True] * len(labels), labels)[2]  # call everything positive
    assert always < 0.2
    assert cv["f1"] >= 0.85 > always
    assert cv["precision"] >= 0.8 and cv["recall"] >= 0.8
    p, r = cv["precision"], cv["recall"]
    assert cv["f1"] == pytest.approx(2 * p * r / (p + r), abs=1e-3)

    test_docs, test_labels, counts = held_out
    predicted = [model.decide(doc) for doc in test_docs]
    precision, recall, f1 = prf(predicted, test_labels)
    assert f1 >= 0.9, (precision, recall)
    # A keyword rule "any indicative word" is fooled by the decoys; the model is not.
    keyword_f1 = prf([count > 0 for count in counts], test_labels)[2]
    assert f1 >= keyword_f1 + 0.2


def test_class_weighting_learns_rare_positives() -> None:
    docs, labels, _ = corpus(700, rate=0.02, seed=4)
    test_docs, test_labels, _ = corpus(1000, rate=0.02, seed=104)
    assert 10 <= sum(labels) <= 30

    def recall_at_zero(learned: TopicModel) -> float:
        return prf([learned.score(d) >= 0.0 for d in test_docs], test_labels)[1]

    # At the plain logit threshold of 0, a model weighted to balance finds most of
    # them on papers it never saw; without the weights it finds few.
    assert recall_at_zero(fit(docs, labels)) >= 0.6
    assert recall_at_zero(fit(docs, labels, pos_weight=1.0)) <= 0.3


def test_fit_is_deterministic(train: Corpus) -> None:
    docs, labels, _ = train
    first = json.dumps(fit(docs, labels).to_json())
    assert json.dumps(fit(docs, labels).to_json()) == first
    # The same for documents given as differently built sets.
    rebuilt = [frozenset(sorted(doc, reverse=True)) for doc in docs]
    assert json.dumps(fit(rebuilt, labels).to_json()) == first


_SUBPROCESS_FIT = """
import json, sys
sys.path.insert(0, sys.argv[1])
from tests.synthetic import corpus
from papertrack import fitting
docs, labels, _ = corpus(300, seed=5)
print(json.dumps(fitting.fit(fitting.Matrix.from_sets(docs), labels).to_json()))
"""


def test_fit_is_the_same_under_any_hash_seed() -> None:
    # Set iteration order changes with PYTHONHASHSEED; the model must not.
    outputs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-c", _SUBPROCESS_FIT, str(ROOT)],
            capture_output=True,
            text=True,
            env=env,
            check=True,
            timeout=60,
        )
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    assert json.loads(outputs[0])["weights"]


def test_fit_rejects_bad_arguments() -> None:
    docs, labels, _ = corpus(20, seed=6)
    with pytest.raises(ValueError, match="labels"):
        fit(docs, labels[:-1])
    with pytest.raises(ValueError):
        fit(docs, labels, l2=0.0)
    with pytest.raises(ValueError):
        fit(docs, labels, max_features=0)


def test_no_positives_never_fires_and_no_negatives_always_does() -> None:
    docs, _, _ = corpus(50, seed=7)
    never = fit(docs, [False] * len(docs))
    assert "no positives" in never.meta["note"]
    assert not any(never.decide(doc) for doc in docs)
    assert not any(never.decide(features(word, word)) for word in INDICATIVE)
    restored = TopicModel.from_json(json.loads(json.dumps(never.to_json())))
    assert not any(restored.decide(doc) for doc in docs)
    always = fit(docs, [True] * len(docs))
    assert "no negatives" in always.meta["note"]
    assert all(always.decide(doc) for doc in docs)


def test_points_of_many_rows_are_each_rows_points(
    train: Corpus,
) -> None:
    docs, labels, _ = train
    model = fit(docs, labels)
    matrix = Matrix.from_sets(docs).with_rows([frozenset({"unseen", "click"})])
    rows = range(len(matrix))
    assert fitting.points(model, matrix, rows) == [model.points(matrix.doc(i)) for i in rows]


# --------------------------------------------------------------------------- more like these


def test_a_centroid_learns_from_its_nearest_papers_at_a_fraction_of_an_example() -> None:
    background = [frozenset({"model", "data", f"w{i}"}) for i in range(400)]
    background += [frozenset({"memory", "agent", "replay"})] * 5  # rows 400-404
    examples = [frozenset({"memory", "agent", word}) for word in ("episodic", "recall")]
    matrix = Matrix.from_sets([*background, *examples])
    rows, others, nearest = [405, 406], list(range(405)), list(range(400, 405))
    plain = fitting.centroid(matrix, rows, others)
    fed = fitting.centroid(matrix, rows, others, nearest=nearest, nearest_weight=0.25)
    # A word only the nearest papers hold now counts, less than what the examples share.
    assert "replay" not in plain.weights and 0 < fed.weights["replay"] < fed.weights["memory"]
    assert fed.meta["feedback"] == {"papers": 5, "weight": 0.25} and "feedback" not in plain.meta
    unweighted = fitting.centroid(matrix, rows, others, nearest=nearest, nearest_weight=0.0)
    assert unweighted.weights == plain.weights
    # Below FEEDBACK_UNTIL examples a topic takes the feedback, from there on not.
    assert training._centroid(matrix, rows, others).meta["feedback"]["papers"] > 0
    many = Matrix.from_sets([*background, *examples * (training.FEEDBACK_UNTIL // 2)])
    all_examples = list(range(405, 405 + 2 * (training.FEEDBACK_UNTIL // 2)))
    assert "feedback" not in training._centroid(many, all_examples, others).meta


def test_a_centroid_weighs_what_the_examples_share_by_rarity() -> None:
    background = [frozenset({"model", "data", f"w{i}"}) for i in range(400)]
    background += [frozenset({"model", "memory"})] * 40
    examples = [
        frozenset({"model", "memory", "agent", "episodic"}),
        frozenset({"model", "memory", "agent", "recall"}),
        frozenset({"model", "memory", "episodic", "w1"}),
    ]
    matrix = Matrix.from_sets([*background, *examples])
    rows = list(range(len(background), len(background) + 3))
    learned = fitting.centroid(matrix, rows, list(range(len(background))))
    w = learned.weights
    # In every paper: worth nothing. Rare and in two examples beats common in all
    # three (1 in 10 papers), which beats rare in one.
    assert "model" not in w and w["episodic"] > w["memory"] > w["recall"] > 0
    assert w["episodic"] == w["agent"]  # the same rarity, in as many examples
    assert learned.bias == 0.0 and learned.meta["kind"] == "centroid"
    # A paper like the examples outscores one that only shares the common words.
    assert learned.score(frozenset({"episodic", "memory"})) > learned.score(
        frozenset({"model", "data", "w7"})
    )
    top = fitting.centroid(matrix, rows, list(range(len(background))), top=2)
    assert sorted(top.weights) == ["agent", "episodic"]  # a tie, broken by name


def test_a_sparse_row_and_a_dense_one_give_the_same_counts() -> None:
    docs, labels, _ = corpus(200, seed=3)
    matrix = Matrix.from_sets(docs)
    df, pos_df = fitting.counts(matrix, np.arange(len(docs)), labels)
    dense = sparse.csr_matrix(matrix.rows).toarray()
    assert df.tolist() == dense.sum(axis=0).astype(int).tolist()
    assert pos_df.tolist() == dense[np.array(labels)].sum(axis=0).astype(int).tolist()
