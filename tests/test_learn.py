"""Tests for papertrack.learn: features, the per-topic classifier's scores and its file format.

Fitting is tested in tests/test_fitting.py; both use the synthetic corpus of
tests/synthetic.py."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from papertrack.learn import FORMAT, ModelSet, TopicModel, features, prf, read_all, units
from tests.synthetic import INDICATIVE, Corpus, corpus, cross_validated

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def model(train: Corpus) -> TopicModel:
    docs, labels, _ = train
    return cross_validated(docs, labels)


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

    assert describe("agent") == "agent" and describe("language model") == '"language model"'
    assert describe("t:agent") == "title: agent"
    assert describe("tc:AGENT") == "title names agents"  # apart from the word "title: agents"
    assert describe("t:agents") == "title: agents"
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
# Scores and explanations


def test_contributions_name_the_indicative_words(model: TopicModel, train: Corpus) -> None:
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


def test_a_score_is_counted_exactly_whatever_the_order_of_features() -> None:
    # 0.1 + 0.2 is not 0.3 in floating point; in units of 1e-4 it is, so a paper
    # exactly at the threshold is in the topic by every path that decides.
    model = TopicModel(weights={"a": 0.1, "b": 0.2, "c": -0.3}, bias=0.0, threshold=0.3)
    assert 0.1 + 0.2 < 0.3 or 0.1 + 0.2 > 0.3  # the float sum misses
    assert model.points(frozenset({"a", "b"})) == units(0.3) == 3000
    assert model.decide(frozenset({"a", "b"})) and model.score(frozenset({"a", "b"})) == 0.3
    assert not model.decide(frozenset({"a", "b", "c"}))
    both = ModelSet({"t": model})
    assert both.decide(frozenset({"b", "a"})) == {"t"}
    assert both.scores(frozenset({"a", "b"})) == {"t": 0.3}


def test_explain_says_a_model_fires_exactly_when_the_tagger_decides_so() -> None:
    from papertrack.diagnose import ModelView

    # A model file written by hand, with more places than papertrack writes: the
    # threshold it decides with is the one it shows.
    for bias, threshold in ((0.1234, 0.12344), (0.1234, 0.12336), (0.3, 0.29999), (-1.0, -0.5)):
        data = TopicModel(weights={"a": 0.1}, bias=0.0, threshold=0.0).to_json()
        data.update(bias=bias, threshold=threshold)
        model = TopicModel.from_json(data)
        for feats in (frozenset(), frozenset({"a"})):
            view = ModelView(model.score(feats), model.threshold, (), (), start=model.bias)
            assert view.fired is model.decide(feats), (bias, threshold, feats)
    # Counted as the tagger counts: 0.1 + 0.2 reaches a threshold of 0.3.
    assert ModelView(0.1 + 0.2, 0.3, (), ()).fired


# ---------------------------------------------------------------------------
# The file format


def test_json_round_trip_scores_identically(model: TopicModel, held_out: Corpus) -> None:
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
    held_out: Corpus,
) -> None:
    docs, labels, counts = corpus(500, seed=11)
    models = {
        "gui": cross_validated(docs, labels),
        # A second topic: papers with many indicative words, sharing features with "gui".
        "dense": cross_validated(docs, [count >= 3 for count in counts]),
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
            assert scores[slug] == topic_model.score(doc)
        decided = both.decide(doc)
        assert decided == {slug for slug, m in models.items() if m.decide(doc)}
        fired += bool(decided)
    assert fired > 0
    assert "empty" not in set().union(*(both.decide(doc) for doc in test_docs))


def test_empty_model_set() -> None:
    empty = ModelSet({})
    assert empty.scores(features("Agents", "act")) == {}
    assert empty.decide(features("Agents", "act")) == set()


# ---------------------------------------------------------------------------
# The ingest path: sentences and the finder decide as features() and decide do

_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+")

# Text made of the pieces that matter to a sentence split and a fold: ends of
# sentences followed or not by every kind of white space (ASCII's \x1c-\x1f and
# Unicode's too), punctuation that only looks like an end, digits, accents,
# a dotless i, a ligature and a zero-width space.
_PIECES = st.sampled_from(
    [
        "Agents",
        "LLM",
        "fine",
        "tune",
        "fine-tuning",
        "GRPO",
        "2",
        "x²",
        "Qwen3",
        "e.g.,",
        ".",
        "!",
        "?",
        "...",
        ". ",
        "? ",
        "!\n",
        ".\t",
        ".\x1c",
        ".\x1f",
        ".\u00a0",
        ".\u2003",
        " ",
        "  ",
        "\n",
        "\x1d",
        ",",
        ")",
        "(",
        "-",
        "Café",
        "İ",
        "ﬁne",
        "L\u200bLM",
        "—",
        ":",
    ]
)
_TEXTS = st.lists(_PIECES, max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(_TEXTS)
def test_sentences_split_and_fold_as_the_regex_and_tokenize_do(text: str) -> None:
    from papertrack.learn import sentences
    from papertrack.query import tokenize

    assert sentences(text) == [tokenize(part) for part in _SENTENCE_SPLIT.split(text)]


def _finder_models() -> ModelSet:
    # Weights on every kind of feature, and on names features() never makes
    # (a number, a title number, a three-word "pair", an unknown prefix): those
    # must never count, on either path.
    names = [
        "agents",
        "llm",
        "fine tune",
        "tune 2",
        "t:agents",
        "t:llm",
        "tc:AGENT",
        "tc:AGENT+LLM",
        "s:AGENT+TRAIN",
        "s:LLM+RL",
        "q:gui-agents",
        "cafe",
        "2",
        "t:2",
        "fine tune 2",
        "x:agents",
        "agents llm",
    ]
    return ModelSet(
        {
            f"m{i}": TopicModel(
                weights={name: (1.0 if (j + i) % 3 else -0.7) for j, name in enumerate(names)},
                bias=-0.5,
                threshold=0.1 * i,
            )
            for i in range(6)
        }
    )


@settings(max_examples=200, deadline=None)
@given(_TEXTS, _TEXTS, st.lists(st.sampled_from(["gui-agents", "llm-tool-use"]), max_size=3))
def test_decide_text_decides_as_features_and_decide(
    title: str, abstract: str, hints: list[str]
) -> None:
    models = _finder_models()
    expected = models.decide(features(title, abstract, hints))
    assert models.decide_text(title, abstract, hints) == expected
    # In a batch, beside papers with other text and none at all (first, between
    # and last, where a paper has no feature to sum): the same.
    batch = [
        ("", "", []),
        ("llm agents", "fine tune 2. cafe!", []),
        ("", "", []),
        (title, abstract, hints),
        ("", "", []),
    ]
    assert models.decide_many(read_all(batch))[3] == expected
    assert models.decide_many(read_all(batch)) == [
        models.decide(features(*paper)) for paper in batch
    ]


def test_decide_many_sums_weights_beyond_32_bits_exactly() -> None:
    """A weight too large for the int32 copy of the weights (a hand-made model file):
    decide_many keeps int64 and decides as decide does."""
    models = ModelSet(
        {
            "big": TopicModel({"agents": 300_000.0, "cafe": -299_999.9}, -0.5, 0.0),
            "small": TopicModel({"agents": 1.0}, -0.5, 0.0),
        }
    )
    batch = [("agents", "cafe", []), ("agents", "", []), ("", "cafe", []), ("", "", [])]
    assert models.decide_many(read_all(batch)) == [
        models.decide(features(*paper)) for paper in batch
    ]
    assert models.decide_many(read_all(batch)) == [{"small"}, {"big", "small"}, set(), set()]


def test_the_finder_finds_the_weighed_features_of_real_papers() -> None:
    """On 3,000 real papers and the bundled models: each weighed feature once, the
    same as features() gives, and the same decisions."""
    from papertrack.learn import _Finder
    from papertrack.tex import render_tex
    from papertrack.topics import Catalog, default_hits
    from papertrack.training import load_labelled

    models = Catalog.default().model_set
    finder = _Finder(models._rows)
    papers = load_labelled(ROOT / "data" / "labels" / "corpus.jsonl.gz")[::5][:3000]
    assert len(papers) == 3000
    non_ascii = fired = 0
    batch: list[tuple[tuple[str, str, tuple[str, ...]], set[str]]] = []
    for paper in papers:
        title, abstract = render_tex(paper.title), render_tex(paper.abstract)
        non_ascii += not abstract.isascii()
        hints = default_hits(title, abstract, (), paper.categories)
        feats = features(title, abstract, hints)
        rows = finder.rows(title, abstract, hints)
        assert len(rows) == len(set(rows))
        assert set(rows) == {models._rows[f] for f in feats if f in models._rows}
        decided = models.decide_text(title, abstract, hints)
        assert decided == models.decide(feats)
        fired += bool(decided)
        batch.append(((title, abstract, hints), decided))
    many = [
        d
        for i in range(0, len(batch), 500)
        for d in models.decide_many(read_all(paper for paper, _ in batch[i : i + 500]))
    ]
    assert many == [decided for _, decided in batch]
    # Both ways of splitting an abstract were used, and the models did fire.
    assert non_ascii > 30 and fired > 1000
