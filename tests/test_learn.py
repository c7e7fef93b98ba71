"""Tests for papertrack.learn: features, the per-topic classifier, its file format and training."""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from papertrack.learn import (
    FORMAT,
    ModelSet,
    TopicModel,
    _best_threshold,
    centroid,
    features,
    fit,
    fit_topic,
    prf,
)

ROOT = Path(__file__).resolve().parent.parent

# ---------------------------------------------------------------------------
# A synthetic corpus with a learnable but not trivial topic
#
# Every paper is Zipf-distributed filler words. A positive mentions 2 or 3 of the
# topic's six indicative words; a sixth of the negatives mention one of them
# too, so no single word decides, and a rule "any indicative word" has poor
# precision. A linear model has to learn that two of them are needed.

INDICATIVE = ("screenshot", "click", "widget", "android", "touchscreen", "cursor")
FILLER = [f"filler{i}" for i in range(300)]
ZIPF = [1.0 / (rank + 1) for rank in range(len(FILLER))]


def corpus(
    n: int, *, rate: float = 0.08, seed: int = 0
) -> tuple[list[frozenset[str]], list[bool], list[int]]:
    """``n`` papers' features, their labels and how many indicative words each has."""
    rng = random.Random(seed)
    docs: list[frozenset[str]] = []
    labels: list[bool] = []
    counts: list[int] = []
    for _ in range(n):
        positive = rng.random() < rate
        title = rng.choices(FILLER, weights=ZIPF, k=6)
        abstract = rng.choices(FILLER, weights=ZIPF, k=50)
        if positive:
            chosen = rng.sample(INDICATIVE, rng.randint(2, 3))
        elif rng.random() < 0.17:
            chosen = [rng.choice(INDICATIVE)]
        else:
            chosen = []
        for word in chosen:
            words = title if rng.random() < 0.3 else abstract
            words.insert(rng.randrange(len(words) + 1), word)
        docs.append(features(" ".join(title), " ".join(abstract)))
        labels.append(positive)
        counts.append(len(chosen))
    return docs, labels, counts


@pytest.fixture(scope="module")
def train() -> tuple[list[frozenset[str]], list[bool], list[int]]:
    return corpus(600, seed=1)


@pytest.fixture(scope="module")
def held_out() -> tuple[list[frozenset[str]], list[bool], list[int]]:
    return corpus(400, seed=2)


@pytest.fixture(scope="module")
def model(train: tuple[list[frozenset[str]], list[bool], list[int]]) -> TopicModel:
    docs, labels, _ = train
    return fit_topic(docs, labels, seed=0)


# ---------------------------------------------------------------------------
# Features


def test_features_of_a_known_paper() -> None:
    feats = features(
        "LLM-based GUI Agents for GPT-4",
        "We train 3 agents on Android; accuracy rises by 12 points. Évaluation follows.",
    )
    # Title words twice: plain and prefixed; folded like queries fold them.
    assert {"llm", "based", "gui", "agents", "gpt"} <= feats
    assert {"t:llm", "t:based", "t:gui", "t:agents", "t:for", "t:gpt"} <= feats
    assert "t:we" not in feats and "t:android" not in feats
    assert {"android", "evaluation", "t:llm"} <= feats and "Évaluation" not in feats
    # Pairs within the title and within a sentence of the abstract, across other punctuation.
    assert {"llm based", "based gui", "gui agents", "gpt 4"} <= feats
    assert {"we train", "train 3", "3 agents", "android accuracy"} <= feats
    # No pair from the title into the abstract, nor from one sentence into the next.
    assert "4 we" not in feats and "points evaluation" not in feats
    # Pure numbers are no unigrams (nor title words), but stay in pairs.
    assert not {"3", "4", "12", "t:4"} & feats
    assert "by 12" in feats and "12 points" in feats


def test_features_exact_set_of_a_tiny_paper() -> None:
    assert features("Deep Agents", "Agents act 2 times") == {
        "deep",
        "agents",
        "act",
        "times",
        "t:deep",
        "t:agents",
        "deep agents",
        "agents act",
        "act 2",
        "2 times",
        "tc:AGENT",  # the title mentions a kind of CONCEPTS
    }


def test_features_of_an_empty_paper() -> None:
    assert features("", "") == frozenset()
    assert features("Agents", "") == {"agents", "t:agents", "tc:AGENT"}
    assert features("Cats", "", ["llm-tool-use"]) == {"cats", "t:cats", "q:llm-tool-use"}


def test_concepts_pair_within_one_sentence_only() -> None:
    together = features("A study", "We fine-tune LLM agents with GRPO. Results follow.")
    apart = features("A study", "We fine-tune a model with GRPO. Elsewhere, LLM agents act.")
    # "fine tune" is a word pair of TRAIN; agents and LLM are in the same sentence.
    assert {"s:AGENT+TRAIN", "s:AGENT+LLM", "s:LLM+RL", "s:RL+TRAIN"} <= together
    assert "s:AGENT+TRAIN" not in apart and "s:AGENT+RL" not in apart
    assert {"s:RL+TRAIN", "s:AGENT+LLM"} <= apart
    # The title's kinds, alone and in pairs; no sentence pairs from a one-kind sentence.
    title = features("Training Web Agents", "Cats sleep.")
    assert {"tc:AGENT", "tc:SEARCH", "tc:TRAIN", "tc:AGENT+SEARCH", "tc:AGENT+TRAIN"} <= title
    assert not any(name.startswith("s:") for name in title)


def test_describe_names_features_as_a_reader_would() -> None:
    from papertrack.learn import describe

    assert describe("agent") == "agent" and describe("language model") == "language model"
    assert describe("t:agent") == "title: agent"
    assert describe("tc:AGENT") == "title: agents"
    assert describe("s:AGENT+TRAIN") == "one sentence: agents + training"
    assert describe("q:gui-agents") == "query of gui-agents matches"
    assert describe("x:odd") == "x:odd"


def test_every_concept_phrase_is_written_as_tokenize_writes_it() -> None:
    from papertrack.learn import CONCEPTS
    from papertrack.query import tokenize

    for kind, phrases in CONCEPTS.items():
        assert kind.isupper()
        for phrase in phrases:
            assert " ".join(tokenize(phrase)) == phrase
            assert len(phrase.split()) <= 2  # words and word pairs only


# ---------------------------------------------------------------------------
# prf


def test_prf_counts() -> None:
    predicted = [True, True, True, False, False, True]
    actual = [True, False, True, True, False, False]
    precision, recall, f1 = prf(predicted, actual)
    assert precision == pytest.approx(2 / 4)
    assert recall == pytest.approx(2 / 3)
    assert f1 == pytest.approx(2 * 2 / (2 * 2 + 2 + 1))


def test_prf_undefined_is_zero_and_lengths_must_match() -> None:
    assert prf([False, False], [False, False]) == (0.0, 0.0, 0.0)
    assert prf([True, True], [False, False]) == (0.0, 0.0, 0.0)
    assert prf([False], [True]) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError):
        prf([True, False], [True])


# ---------------------------------------------------------------------------
# Learning


def test_fit_topic_learns_the_topic_and_beats_baselines(
    model: TopicModel,
    train: tuple[list[frozenset[str]], list[bool], list[int]],
    held_out: tuple[list[frozenset[str]], list[bool], list[int]],
) -> None:
    docs, labels, _ = train
    cv = model.meta["cv"]
    assert cv["positives"] == sum(labels) and cv["negatives"] == len(labels) - sum(labels)
    assert model.meta["folds"] == 5
    # Trivial baseline: call everything positive.
    always = prf([True] * len(labels), labels)[2]
    assert always < 0.2
    assert cv["f1"] >= 0.85 > always
    assert cv["precision"] >= 0.8 and cv["recall"] >= 0.8

    test_docs, test_labels, counts = held_out
    predicted = [model.decide(doc) for doc in test_docs]
    precision, recall, f1 = prf(predicted, test_labels)
    assert f1 >= 0.93, (precision, recall)
    # The cross-validated threshold does better than the plain logit threshold of 0.
    assert f1 > prf([model.score(doc) >= 0.0 for doc in test_docs], test_labels)[2] + 0.05
    # A keyword rule "any indicative word" is fooled by the decoys; the model is not.
    keyword_f1 = prf([count > 0 for count in counts], test_labels)[2]
    assert f1 >= keyword_f1 + 0.2


def test_cv_statistics_are_consistent(model: TopicModel) -> None:
    cv = model.meta["cv"]
    tp, fp = cv["true_positives"], cv["false_positives"]
    assert cv["precision"] == pytest.approx(tp / (tp + fp), abs=1e-4)
    assert cv["recall"] == pytest.approx(tp / cv["positives"], abs=1e-4)
    assert cv["f1"] == pytest.approx(2 * tp / (tp + fp + cv["positives"]), abs=1e-4)


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


def test_threshold_rescues_an_unweighted_model(
    train: tuple[list[frozenset[str]], list[bool], list[int]],
    held_out: tuple[list[frozenset[str]], list[bool], list[int]],
) -> None:
    docs, labels, _ = train
    test_docs, test_labels, _ = held_out
    learned = fit_topic(docs, labels, pos_weight=1.0)
    assert learned.threshold < 0.0
    assert prf([learned.decide(d) for d in test_docs], test_labels)[2] >= 0.93
    assert prf([learned.score(d) >= 0.0 for d in test_docs], test_labels)[2] < 0.7


def test_contributions_name_the_indicative_words(
    model: TopicModel, train: tuple[list[frozenset[str]], list[bool], list[int]]
) -> None:
    top = sorted(model.weights, key=lambda name: -model.weights[name])[:6]
    assert set(top) & set(INDICATIVE), top
    docs, labels, _ = train
    for doc, label in zip(docs, labels, strict=True):
        if not label:
            continue
        up, down = model.contributions(doc, k=3)
        assert len(up) <= 3 and len(down) <= 3
        present = {word for word in INDICATIVE if word in doc}
        assert up[0][0] in present or up[0][0].removeprefix("t:") in present, up
        assert [w for _, w in up] == sorted((w for _, w in up), reverse=True)
        assert all(w > 0 for _, w in up) and all(w < 0 for _, w in down)
        assert [w for _, w in down] == sorted(w for _, w in down)
        # Contributions are the weights of features the paper has.
        assert all(model.weights[name] == w and name in doc for name, w in up + down)


def test_fit_is_deterministic(train: tuple[list[frozenset[str]], list[bool], list[int]]) -> None:
    docs, labels, _ = train
    first = json.dumps(fit_topic(docs, labels, seed=4).to_json())
    second = json.dumps(fit_topic(docs, labels, seed=4).to_json())
    assert first == second
    # The same for documents given as differently built sets in another order.
    rebuilt = [frozenset(sorted(doc, reverse=True)) for doc in docs]
    assert json.dumps(fit_topic(rebuilt, labels, seed=4).to_json()) == first


_SUBPROCESS_FIT = """
import json, random, sys
sys.path.insert(0, sys.argv[1])
from tests.test_learn import corpus
from papertrack.learn import fit
docs, labels, _ = corpus(300, seed=5)
print(json.dumps(fit(docs, labels, seed=1).to_json()))
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


def test_max_features_and_min_df_limit_the_model(
    train: tuple[list[frozenset[str]], list[bool], list[int]],
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


def test_the_most_telling_features_are_those_chi_square_ranks_highest() -> None:
    """The inline ranking fit() uses is exactly a sort by chi-square, ties by name."""
    from papertrack.learn import _most_telling

    def chi2(n: int, positives: int, df: int, pos_df: int) -> float:
        # The statistic of the 2x2 table, written out cell by cell.
        a, b = pos_df, df - pos_df
        c, d = positives - pos_df, n - positives - (df - pos_df)
        denominator = df * (n - df) * positives * (n - positives)
        return n * (a * d - b * c) ** 2 / denominator if denominator else 0.0

    rng = random.Random(7)
    n, positives = 500, 40
    df: Counter[str] = Counter()
    pos_df: Counter[str] = Counter()
    for i in range(3000):
        name = f"f{i}"
        df[name] = rng.choice([1, 2, 2, 3, 5, 40, 499, 500])  # ties, and every paper
        if rng.random() < 0.5:
            pos_df[name] = rng.randint(0, min(df[name], positives))
    names = list(df)
    for k in (1, 50, 2999, 5000):
        ranked = sorted(names, key=lambda f: (-chi2(n, positives, df[f], pos_df[f]), f))
        assert _most_telling(names, df, pos_df, n, positives, k) == ranked[:k]


def test_fit_rejects_bad_arguments() -> None:
    docs, labels, _ = corpus(20, seed=6)
    with pytest.raises(ValueError, match="labels"):
        fit(docs, labels[:-1])
    with pytest.raises(ValueError):
        fit(docs, labels, l2=0.0)
    with pytest.raises(ValueError):
        fit(docs, labels, max_features=0)
    with pytest.raises(ValueError):
        fit_topic(docs, labels, folds=1)


# ---------------------------------------------------------------------------
# Thresholds and edge cases


def test_best_threshold_maximises_f1_between_scores() -> None:
    scored = [(3.0, True), (2.0, True), (1.0, False), (0.5, True), (0.0, False)]
    threshold, tp, fp = _best_threshold(scored)
    # Keeping the top 4 gives F1 6/7, better than the top 2 (0.8) or all (0.75).
    assert (tp, fp) == (3, 1)
    assert threshold == pytest.approx(0.25)
    # Equal scores are never split.
    threshold, tp, fp = _best_threshold([(1.0, True), (1.0, False), (0.0, False)])
    assert (tp, fp) == (1, 1) and threshold == pytest.approx(0.5)


def test_no_positives_never_fires() -> None:
    docs, _, _ = corpus(50, seed=7)
    learned = fit_topic(docs, [False] * len(docs))
    assert learned.meta["cv"] is None and "no positives" in learned.meta["note"]
    assert not any(learned.decide(doc) for doc in docs)
    assert not any(learned.decide(features(word, word)) for word in INDICATIVE)
    restored = TopicModel.from_json(json.loads(json.dumps(learned.to_json())))
    assert not any(restored.decide(doc) for doc in docs)


def test_no_negatives_always_fires() -> None:
    docs, _, _ = corpus(30, seed=8)
    learned = fit_topic(docs, [True] * len(docs))
    assert learned.meta["cv"] is None and "no negatives" in learned.meta["note"]
    assert all(learned.decide(doc) for doc in docs)


def test_one_positive_skips_cross_validation() -> None:
    docs, labels, _ = corpus(200, rate=0.0, seed=9)
    labels = list(labels)
    docs = list(docs)
    docs[17] = docs[17] | {"screenshot", "click", "t:widget"}
    docs[18] = docs[18] | {"screenshot"}  # so the feature survives min_df=2
    labels[17] = True
    learned = fit_topic(docs, labels)
    assert learned.meta["cv"] is None and learned.meta["folds"] == 0
    assert learned.threshold == 0.0
    assert learned.meta["positives"] == 1
    assert learned.weights["screenshot"] > 0


def test_few_positives_use_fewer_folds() -> None:
    docs, labels, _ = corpus(300, rate=0.0, seed=10)
    labels = list(labels)
    docs = list(docs)
    for i in (5, 50, 150):
        docs[i] = docs[i] | {"screenshot", "click", "widget"}
        labels[i] = True
    learned = fit_topic(docs, labels, folds=5)
    assert learned.meta["folds"] == 3
    assert learned.meta["cv"]["positives"] == 3
    assert learned.meta["cv"]["recall"] > 0
    assert learned.decide(docs[5]) and learned.decide(docs[150])


def test_a_centroid_weighs_what_the_examples_share_by_rarity() -> None:
    background = [frozenset({"model", "data", f"w{i}"}) for i in range(400)]
    background += [frozenset({"model", "memory"})] * 40
    examples = [
        frozenset({"model", "memory", "agent", "episodic"}),
        frozenset({"model", "memory", "agent", "recall"}),
        frozenset({"model", "memory", "episodic", "w1"}),
    ]
    learned = centroid(examples, background)
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
    assert sorted(centroid(examples, background, top=2).weights) == ["agent", "episodic"]


# ---------------------------------------------------------------------------
# The file format


def test_json_round_trip_scores_identically(
    model: TopicModel, held_out: tuple[list[frozenset[str]], list[bool], list[int]]
) -> None:
    data = model.to_json()
    text = json.dumps(data)
    restored = TopicModel.from_json(json.loads(text))
    assert json.dumps(restored.to_json()) == text
    docs, _, _ = held_out
    assert [restored.score(d) for d in docs] == [model.score(d) for d in docs]
    assert [restored.decide(d) for d in docs] == [model.decide(d) for d in docs]
    assert restored.meta == model.meta


def test_json_is_sorted_rounded_and_without_zeros() -> None:
    raw = TopicModel(
        weights={"zeta": 0.123456, "alpha": -2.0, "tiny": 0.00001, "mid": 1 / 3},
        bias=-1.234567,
        threshold=0.5,
        meta={"seed": 3},
    )
    data = raw.to_json()
    assert data["format"] == FORMAT and data["version"] == 1
    assert list(data["weights"]) == ["alpha", "mid", "zeta"]
    assert data["weights"] == {"alpha": -2.0, "mid": 0.3333, "zeta": 0.1235}
    assert data["bias"] == -1.2346 and data["meta"] == {"seed": 3}
    # Editing the data does not edit the model.
    data["meta"]["seed"] = 4
    assert raw.meta == {"seed": 3}


def _valid() -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": 1,
        "bias": -1.0,
        "threshold": 0.0,
        "meta": {},
        "weights": {"agent": 0.5},
    }


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: ["not", "a", "dict"], "JSON object"),
        (lambda d: {**d, "format": "something-else"}, "format"),
        (lambda d: {k: v for k, v in d.items() if k != "format"}, "format"),
        (lambda d: {**d, "version": 2}, "version"),
        (lambda d: {k: v for k, v in d.items() if k != "bias"}, "bias"),
        (lambda d: {**d, "bias": "1.0"}, "bias"),
        (lambda d: {**d, "threshold": True}, "threshold"),
        (lambda d: {**d, "threshold": math.nan}, "threshold"),
        (lambda d: {**d, "weights": [["agent", 0.5]]}, "weights"),
        (lambda d: {k: v for k, v in d.items() if k != "weights"}, "weights"),
        (lambda d: {**d, "weights": {"agent": "0.5"}}, "agent"),
        (lambda d: {**d, "weights": {"agent": None}}, "agent"),
        (lambda d: {**d, "weights": {"agent": math.inf}}, "agent"),
        (lambda d: {**d, "weights": {"": 1.0}}, "name"),
        (lambda d: {**d, "meta": [1, 2]}, "meta"),
    ],
)
def test_from_json_rejects_malformed_models(change: Any, message: str) -> None:
    assert TopicModel.from_json(_valid()).weights == {"agent": 0.5}
    with pytest.raises(ValueError, match=message):
        TopicModel.from_json(change(_valid()))


# ---------------------------------------------------------------------------
# ModelSet


def test_model_set_matches_each_model(
    held_out: tuple[list[frozenset[str]], list[bool], list[int]],
) -> None:
    docs, labels, counts = corpus(500, seed=11)
    models = {
        "gui": fit_topic(docs, labels, folds=3),
        # A second topic: papers with many indicative words, sharing features with "gui".
        "dense": fit(docs, [count >= 3 for count in counts]),
        # A hand-made one with a feature no other model has.
        "hand": TopicModel(weights={"filler0": -0.5, "t:filler1": 2.0}, bias=-1.0, threshold=0.0),
        "empty": TopicModel(weights={}, bias=0.0, threshold=1.0),
    }
    models["dense"].threshold = -1.0
    both = ModelSet(models)
    assert len(both) == 4
    test_docs, _, _ = held_out
    fired = 0
    for doc in test_docs:
        scores = both.scores(doc)
        assert list(scores) == list(models)
        for slug, topic_model in models.items():
            assert scores[slug] == pytest.approx(topic_model.score(doc), abs=1e-9)
        decided = both.decide(doc)
        assert decided == {slug for slug, m in models.items() if m.decide(doc)}
        fired += bool(decided)
    assert fired > 0
    assert "empty" not in set().union(*(both.decide(doc) for doc in test_docs))


def test_empty_model_set() -> None:
    empty = ModelSet({})
    assert empty.scores(features("Agents", "act")) == {}
    assert empty.decide(features("Agents", "act")) == set()
