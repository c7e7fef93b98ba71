"""Learned topic classifiers: one small logistic regression per topic, in pure Python.

A query (:mod:`papertrack.topics`) says exactly which words a topic needs; a learned
model instead weighs every word and word pair of a paper by how well it told
labelled papers of the topic apart from the rest. The two are complementary: a
model catches papers a query misses for want of a synonym, and its
:meth:`TopicModel.contributions` say which words made it fire.

Design constraints, and what they imply:

* ``ingest`` runs :func:`features` and :meth:`ModelSet.scores` on every paper, so
  both are built from set operations and C-level iteration, and this module
  imports nothing beyond the standard library and :mod:`papertrack.topics`.
* Models are files users keep and diff, so :meth:`TopicModel.to_json` is
  deterministic and small (weights rounded to 4 decimals, at most
  ``max_features`` of them), and training gives the same model on every run and
  in every process: shuffling is seeded and no result depends on the iteration
  order of a set of strings (which changes with ``PYTHONHASHSEED``).
* Labelled positives are rare (1-5 % of papers for most topics), so training
  weights the classes to balance, and :func:`fit_topic` picks the decision
  threshold by cross-validation instead of trusting a logit of 0.
"""

from __future__ import annotations

import copy
import heapq
import math
import random
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from papertrack.query import tokenize

__all__ = [
    "FORMAT",
    "ModelSet",
    "TopicModel",
    "describe",
    "features",
    "fit",
    "fit_topic",
    "prf",
    "prf_counts",
]

#: Written into every model file, and checked when one is read back.
FORMAT = "papertrack-topic-model"
FORMAT_VERSION = 1

#: Which :func:`features` a model was fitted on, kept in its meta: 2 added the
#: concepts and the bundled queries' matches. A model fitted on older features
#: still scores (its words and word pairs are the same) but misses what they add.
FEATURE_SET = 2

#: Decimals kept for weights, bias and threshold: 1e-4 is far below any weight that
#: matters, and it roughly halves the size of a model file.
DECIMALS = 4

_join = " ".join
_isdigit = str.isdigit

# ---------------------------------------------------------------------------
# Features


#: Kinds of thing the agent topics are made of, each a list of words and word
#: pairs (as :func:`tokenize` writes them). A topic such as "LLM agent training"
#: is a conjunction: the paper trains (TRAIN) a model that acts (AGENT, ACT) and
#: is a language model (LLM). A linear model over words can only add evidence up,
#: so it cannot tell "we train an agent" from an abstract that trains something
#: and mentions agents elsewhere; a feature for two kinds in *one sentence*
#: ("s:AGENT+TRAIN") can. The lists were written by hand from the topics'
#: definitions, not selected on labelled papers.
CONCEPTS: dict[str, tuple[str, ...]] = {
    "AGENT": ("agent", "agents", "agentic", "multi agent", "multiagent"),
    "LLM": (
        "llm",
        "llms",
        "language model",
        "language models",
        "vlm",
        "vlms",
        "mllm",
        "mllms",
        "gpt",
        "qwen",
        "qwen2",
        "qwen3",
        "llama",
        "deepseek",
        "foundation model",
        "foundation models",
    ),
    "TRAIN": (
        "train",
        "training",
        "trained",
        "trains",
        "fine tune",
        "fine tuning",
        "fine tuned",
        "finetune",
        "finetuning",
        "finetuned",
        "sft",
        "post training",
        "distill",
        "distillation",
        "distilled",
    ),
    "RL": (
        "rl",
        "reinforcement",
        "grpo",
        "ppo",
        "dpo",
        "reward",
        "rewards",
        "policy optimization",
        "policy gradient",
        "rlvr",
        "rlhf",
    ),
    "TOOL": (
        "tool",
        "tools",
        "function calling",
        "function call",
        "api",
        "apis",
        "mcp",
        "tool use",
        "tool calling",
        "code interpreter",
        "calculator",
    ),
    "SEARCH": (
        "search",
        "retrieval",
        "retrieve",
        "web",
        "browse",
        "browsing",
        "search engine",
        "rag",
    ),
    "ACT": (
        "multi turn",
        "trajectory",
        "trajectories",
        "environment",
        "environments",
        "interactive",
        "interaction",
        "long horizon",
        "actions",
        "action",
        "step",
        "steps",
        "rollout",
        "rollouts",
        "episode",
        "episodes",
    ),
    "BENCH": ("benchmark", "benchmarks", "evaluation", "evaluate", "suite", "leaderboard"),
    "DATA": (
        "synthetic",
        "synthesize",
        "synthesized",
        "synthesis",
        "data generation",
        "generated data",
        "augmentation",
    ),
    "GUI": (
        "gui",
        "screen",
        "screenshot",
        "screenshots",
        "click",
        "web page",
        "webpage",
        "mobile",
        "android",
        "desktop",
        "ui",
    ),
    "MEM": ("memory", "long context", "long horizon", "planning", "plan"),
    "ROBOT": ("robot", "robots", "robotic", "robotics", "manipulation", "embodied", "vla"),
    "REASON": ("reasoning", "math", "mathematical", "cot"),
}


#: How :func:`describe` names each kind of :data:`CONCEPTS`.
CONCEPT_NAMES = {
    "AGENT": "agents",
    "LLM": "language models",
    "TRAIN": "training",
    "RL": "RL",
    "TOOL": "tools",
    "SEARCH": "search",
    "ACT": "actions",
    "BENCH": "benchmarks",
    "DATA": "synthetic data",
    "GUI": "GUIs",
    "MEM": "memory or planning",
    "ROBOT": "robots",
    "REASON": "reasoning",
}


def describe(feature: str) -> str:
    """A feature as a reader would say it: ``"s:AGENT+TRAIN"`` is
    ``"one sentence: agents + training"``, ``"t:agent"`` is ``"title: agent"``."""
    kind, _, rest = feature.partition(":")
    if not rest or kind not in ("t", "tc", "s", "q"):
        return feature
    if kind == "t":
        return f"title: {rest}"
    if kind == "q":
        return f"query of {rest} matches"
    named = " + ".join(CONCEPT_NAMES.get(part, part) for part in rest.split("+"))
    return f"title: {named}" if kind == "tc" else f"one sentence: {named}"


def _concept_masks(pairs: bool) -> dict[str, int]:
    """Phrase -> bit mask of the kinds it belongs to (bit i: the i-th kind of CONCEPTS)."""
    masks: dict[str, int] = {}
    for bit, phrases in enumerate(CONCEPTS.values()):
        for phrase in phrases:
            if (" " in phrase) == pairs:
                masks[phrase] = masks.get(phrase, 0) | 1 << bit
    return masks


_WORD_MASKS = _concept_masks(pairs=False)
_PAIR_MASKS = _concept_masks(pairs=True)
_WORD_KEYS = frozenset(_WORD_MASKS)
_PAIR_KEYS = frozenset(_PAIR_MASKS)
_KINDS = tuple(CONCEPTS)
#: A sentence ends at ., ! or ? followed by white space.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
#: (prefix, mask) -> the features of the kinds in mask, alone (title only) and in pairs.
_MASK_FEATURES: dict[tuple[str, int], tuple[str, ...]] = {}


def _mask_features(prefix: str, mask: int) -> tuple[str, ...]:
    """``tc:AGENT``, ``tc:AGENT+TRAIN``, ... for the kinds in ``mask`` (memoised: there
    are few distinct masks, and this runs for every sentence)."""
    key = (prefix, mask)
    found = _MASK_FEATURES.get(key)
    if found is None:
        kinds = sorted(kind for bit, kind in enumerate(_KINDS) if mask >> bit & 1)
        pairs = [f"{prefix}{a}+{b}" for i, a in enumerate(kinds) for b in kinds[i + 1 :]]
        alone = [prefix + kind for kind in kinds] if prefix == "tc:" else []
        found = _MASK_FEATURES[key] = (*alone, *pairs)
    return found


def _mask(words: list[str], pairs: list[str]) -> int:
    """The kinds of CONCEPTS a run of words (and its word pairs) mentions, as a bit mask."""
    mask = 0
    for word in _WORD_KEYS.intersection(words):
        mask |= _WORD_MASKS[word]
    for pair in _PAIR_KEYS.intersection(pairs):
        mask |= _PAIR_MASKS[pair]
    return mask


def features(title: str, abstract: str, hints: Iterable[str] = ()) -> frozenset[str]:
    """The features of a paper: its words, title words, word pairs, concepts and hints.

    * every word of title and abstract (``"agent"``), except pure numbers, which
      say little on their own;
    * every title word again, prefixed ``"t:"`` (``"t:agent"``): a word in the
      title says more about a paper's topic than the same word in the abstract;
    * every pair of adjacent words (``"language model"``), numbers included
      (``"gpt 4"``), within the title and within one sentence of the abstract;
    * every :data:`CONCEPTS` kind the title mentions (``"tc:AGENT"``) and every two
      kinds mentioned together, in the title (``"tc:AGENT+TRAIN"``) or in one
      sentence of the abstract (``"s:AGENT+TRAIN"``);
    * ``"q:" + hint`` for each of ``hints``: the default topics whose query the
      paper matches (see :func:`papertrack.topics.default_hits`), so a model can
      lean on the hand-written conjunctions of the queries.

    Words are :func:`papertrack.topics.tokenize`'s (case- and accent-folded, split at
    every non-alphanumeric), so models see the text the way queries do.
    """
    # Written for speed (this runs on every paper at ingest): set updates fed by
    # C-level map/zip, and str.isdigit only on the distinct words.
    title_words = tokenize(title)
    title_pairs = list(map(_join, zip(title_words, title_words[1:], strict=False)))
    feats = set(title_words)
    feats.update(["t:" + word for word in title_words if not word.isdigit()])
    feats.update(title_pairs)
    mask = _mask(title_words, title_pairs)
    if mask:
        feats.update(_mask_features("tc:", mask))
    for part in _SENTENCE_END.split(abstract):
        words = tokenize(part)
        pairs = list(map(_join, zip(words, words[1:], strict=False)))
        feats.update(words)
        feats.update(pairs)
        mask = _mask(words, pairs)
        if mask & (mask - 1):  # two kinds or more
            feats.update(_mask_features("s:", mask))
    numbers = list(filter(_isdigit, feats))
    if numbers:
        feats.difference_update(numbers)
    feats.update(["q:" + hint for hint in hints])
    return frozenset(feats)


# ---------------------------------------------------------------------------
# Models


@dataclass
class TopicModel:
    """A linear classifier over :func:`features`: ``score = bias + sum of weights``.

    ``score`` is a logit; the model decides a paper is on topic when
    ``score >= threshold``. ``meta`` is free-form JSON-compatible data (training
    counts, cross-validated precision and recall, the seed and hyper-parameters)
    kept with the model so a model file says how it was made.
    """

    weights: dict[str, float]
    bias: float
    threshold: float
    meta: dict[str, Any] = field(default_factory=dict)

    def score(self, feats: AbstractSet[str]) -> float:
        """The logit of a paper with features ``feats``.

        The sum is :func:`math.fsum`, exact and so independent of the order the
        features come in: a model read back from its file scores every paper
        exactly as the model that wrote it.
        """
        weights = self.weights
        return self.bias + math.fsum(map(weights.__getitem__, feats & weights.keys()))

    def decide(self, feats: AbstractSet[str]) -> bool:
        """Whether a paper with features ``feats`` is on topic."""
        return self.score(feats) >= self.threshold

    def contributions(
        self, feats: AbstractSet[str], k: int = 8
    ) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
        """The ``k`` features of a paper that raised its score most, and the ``k`` that cut it most.

        Features are present or absent, so a feature's contribution is its weight.
        Both lists run from the strongest feature down; ties go by name so the
        explanation is stable.
        """
        weights = self.weights
        present = [(name, weights[name]) for name in feats & weights.keys()]
        up = sorted((item for item in present if item[1] > 0.0), key=lambda x: (-x[1], x[0]))
        down = sorted((item for item in present if item[1] < 0.0), key=lambda x: (x[1], x[0]))
        return up[:k], down[:k]

    def to_json(self) -> dict[str, Any]:
        """The model as JSON-compatible data, the same for the same model on every run.

        Weights are rounded to 4 decimals, zero weights dropped and names sorted, so
        a saved file diffs cleanly and stays small.
        """
        weights = {}
        for name in sorted(self.weights):
            value = round(self.weights[name], DECIMALS)
            if value != 0.0:
                weights[name] = value
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "bias": round(self.bias, DECIMALS),
            "threshold": round(self.threshold, DECIMALS),
            "meta": copy.deepcopy(self.meta),
            "weights": weights,
        }

    @classmethod
    def from_json(cls, data: object) -> TopicModel:
        """A model from :meth:`to_json` data; :class:`ValueError` saying what is wrong if not."""
        if not isinstance(data, dict):
            raise ValueError(f"a topic model must be a JSON object, not {_kind(data)}")
        if data.get("format") != FORMAT:
            raise ValueError(
                f"not a papertrack topic model: 'format' is {data.get('format')!r}, "
                f"expected {FORMAT!r}"
            )
        if data.get("version") != FORMAT_VERSION:
            raise ValueError(
                f"unsupported topic model version {data.get('version')!r} "
                f"(this papertrack reads version {FORMAT_VERSION})"
            )
        bias = _number(data, "bias")
        threshold = _number(data, "threshold")
        meta = data.get("meta", {})
        if not isinstance(meta, dict):
            raise ValueError(f"topic model 'meta' must be an object, not {_kind(meta)}")
        raw = data.get("weights")
        if not isinstance(raw, dict):
            raise ValueError(f"topic model 'weights' must be an object, not {_kind(raw)}")
        weights: dict[str, float] = {}
        for name, value in raw.items():
            if not isinstance(name, str) or not name:
                raise ValueError(f"topic model weight name {name!r} is not a non-empty string")
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(
                    f"topic model weight {name!r} must be a number, not {_kind(value)}"
                )
            if not math.isfinite(value):
                raise ValueError(f"topic model weight {name!r} is not finite: {value!r}")
            weights[name] = float(value)
        return cls(weights=weights, bias=bias, threshold=threshold, meta=copy.deepcopy(meta))


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


def _number(data: dict[Any, Any], key: str) -> float:
    if key not in data:
        raise ValueError(f"topic model has no {key!r}")
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"topic model {key!r} must be a number, not {_kind(value)}")
    if not math.isfinite(value):
        raise ValueError(f"topic model {key!r} is not finite: {value!r}")
    return float(value)


class ModelSet:
    """Many topic models scored together, in one pass over a paper's features.

    The weights of all models are merged into one table, feature -> ((topic index,
    weight), ...). Scoring a paper intersects its features with the table's keys
    (one C-level set operation) and adds up only the weights of features the
    paper has, instead of one look-up per feature per topic.

    Scores agree with each model's :meth:`TopicModel.score` up to float rounding
    (about 1e-12: plain float addition here, exact sums there). The set copies
    the models' weights when it is built: build a new one after changing a model.
    """

    def __init__(self, models: Mapping[str, TopicModel]) -> None:
        self.models: dict[str, TopicModel] = dict(models)
        self._slugs = list(self.models)
        self._biases = [model.bias for model in self.models.values()]
        self._thresholds = [model.threshold for model in self.models.values()]
        merged: dict[str, list[tuple[int, float]]] = {}
        for index, model in enumerate(self.models.values()):
            for name, weight in model.weights.items():
                if weight != 0.0:
                    merged.setdefault(name, []).append((index, weight))
        self._table: dict[str, tuple[tuple[int, float], ...]] = {
            name: tuple(entries) for name, entries in merged.items()
        }
        self._keys = frozenset(self._table)

    def __len__(self) -> int:
        return len(self._slugs)

    def _logits(self, feats: AbstractSet[str]) -> list[float]:
        totals = self._biases.copy()
        table = self._table
        for name in feats & self._keys:
            for index, weight in table[name]:
                totals[index] += weight
        return totals

    def scores(self, feats: AbstractSet[str]) -> dict[str, float]:
        """Every topic's logit for a paper with features ``feats``."""
        return dict(zip(self._slugs, self._logits(feats), strict=True))

    def decide(self, feats: AbstractSet[str]) -> set[str]:
        """The slugs of the topics whose model fires on a paper with features ``feats``."""
        return {
            slug
            for slug, total, threshold in zip(
                self._slugs, self._logits(feats), self._thresholds, strict=True
            )
            if total >= threshold
        }


# ---------------------------------------------------------------------------
# Training


def _most_telling(
    names: Sequence[str], df: Counter[str], pos_df: Counter[str], n: int, positives: int, k: int
) -> list[str]:
    """The ``k`` of ``names`` with the largest chi-square statistic of feature
    presence against the label, ties by name.

    For the 2x2 table (a: positive with the feature, b: negative with it, c:
    positive without, d: negative without) the statistic is ``n (ad - bc)^2 /
    (df (n - df) positives (n - positives))``, and ``ad - bc`` is ``pos_df * n -
    df * positives``. Computed inline, in Python's exact integers up to the one
    division: a topic's fit ranks ~190,000 candidate features, and a function
    call per feature was a fifth of a refit.
    """
    spread = positives * (n - positives)
    counted, held = df.get, pos_df.get  # .get: Counter's [] runs Python code for a miss
    scored = []
    for name in names:
        d = counted(name, 0)
        denominator = d * (n - d) * spread
        gap = held(name, 0) * n - d * positives
        scored.append((-(n * gap * gap / denominator) if denominator else -0.0, name))
    return [name for _, name in heapq.nsmallest(k, scored)]


#: The smallest feature budget ``features_per_positive`` gives: a topic with
#: a handful of positives still gets its telling words and some counter-evidence.
_MIN_FEATURES = 100


def _constant(fires: bool, meta: dict[str, Any]) -> TopicModel:
    # score is always 0.0: a threshold of 1.0 never fires, -1.0 always does.
    return TopicModel(weights={}, bias=0.0, threshold=-1.0 if fires else 1.0, meta=meta)


def fit(
    docs: Sequence[frozenset[str]],
    labels: Sequence[bool],
    *,
    seed: int = 0,
    l2: float = 1.0,
    epochs: int = 100,
    min_df: int = 2,
    max_features: int | None = 1000,
    features_per_positive: float | None = 8.0,
    pos_weight: float | None = None,
    tol: float = 0.01,
    counts: tuple[Counter[str], Counter[str]] | None = None,
) -> TopicModel:
    """An L2-regularised logistic regression of ``labels`` on the feature sets ``docs``.

    The objective is ``sum_i c_i * logloss_i + l2/2 * |w|^2`` (``l2`` is
    liblinear's ``1/C``). ``c_i`` balances the classes (each class weighs half of
    the data) unless ``pos_weight`` gives the weight of a positive against 1 for
    a negative: without it a topic with 2 % positives would learn mostly "never".

    ``counts`` are :func:`document_counts` of ``docs`` and ``labels`` if the caller
    has them already (cross-validation does).

    Only features in at least ``min_df`` documents are used (a feature seen once
    is noise or a typo), and of those the most telling by chi-square against the
    labels (computed on ``docs``, so cross-validation stays honest): at most
    ``features_per_positive`` per positive document (but at least 100), and
    never more than ``max_features``. The budget follows the positives because
    they are what a rare topic is learned from: with a few dozen of them, extra
    features mostly fit noise, and the model's weight leaks from the telling
    words to their chance neighbours. On synthetic topics with 1-5 % positives,
    held-out F1 was 0.93 with 500 features, 0.88 with 1,000, 0.76 with 4,000 and
    0.75 with all of them; on a small corpus with 45 positives, 0.97-0.99 with
    135-360 features, 0.85 with 1,000. 8 per positive was as good as the best
    fixed budget on each of three synthetic families (few or many telling words),
    leaving room for real topics' richer vocabularies. The cap of 1,000 keeps a
    model file near 25 KB.

    ``l2 = 1`` (liblinear's default ``C = 1``) did as well as anything from 0.1 to
    3 on those topics once :func:`fit_topic` chooses the threshold, and worse
    from 10 up; class weighting mattered little there either, for the same reason.

    The solver is dual coordinate descent (:func:`_solve_dual`), at most
    ``epochs`` passes over the documents in an order shuffled by
    ``random.Random(seed)``, stopping early once the largest dual gradient falls
    to ``tol`` times its first value. Features are indexed in sorted order and
    each document's indices sorted, so the model is the same in every process
    whatever ``PYTHONHASHSEED`` is.
    """
    if len(docs) != len(labels):
        raise ValueError(f"{len(docs)} documents but {len(labels)} labels")
    if not l2 > 0.0 or epochs < 1 or min_df < 1 or not tol > 0.0:
        raise ValueError("need l2 > 0, epochs >= 1, min_df >= 1 and tol > 0")
    if max_features is not None and max_features < 1:
        raise ValueError("max_features must be at least 1 (or None for no limit)")
    if features_per_positive is not None and not features_per_positive > 0.0:
        raise ValueError("features_per_positive must be positive (or None for no limit)")
    if pos_weight is not None and not pos_weight > 0.0:
        raise ValueError("pos_weight must be positive (or None to balance the classes)")
    y = [bool(label) for label in labels]
    n = len(y)
    positives = sum(y)
    negatives = n - positives
    meta: dict[str, Any] = {
        "feature_set": FEATURE_SET,
        "docs": n,
        "positives": positives,
        "negatives": negatives,
        "seed": seed,
        "l2": l2,
        "epochs": epochs,
        "tol": tol,
        "min_df": min_df,
        "max_features": max_features,
        "features_per_positive": features_per_positive,
        "pos_weight": pos_weight,
    }
    if positives == 0 or negatives == 0:
        meta["features"] = 0
        meta["note"] = (
            "no positives: never fires" if not positives else "no negatives: fires always"
        )
        return _constant(positives > 0, meta)

    df, pos_df = counts if counts is not None else document_counts(docs, y)
    vocabulary = [name for name, count in df.items() if count >= min_df]
    meta["candidates"] = len(vocabulary)
    budget = max_features
    if features_per_positive is not None:
        wanted = max(_MIN_FEATURES, math.ceil(features_per_positive * positives))
        budget = wanted if budget is None else min(budget, wanted)
    if budget is not None and len(vocabulary) > budget:
        vocabulary = _most_telling(vocabulary, df, pos_df, n, positives, budget)
    vocabulary.sort()
    index = {name: i for i, name in enumerate(vocabulary)}
    keys = index.keys()
    rows = [sorted(map(index.__getitem__, doc & keys)) for doc in docs]

    if pos_weight is None:
        cost_pos, cost_neg = n / (2.0 * positives), n / (2.0 * negatives)
    else:
        cost_pos, cost_neg = pos_weight, 1.0
    costs = [(cost_pos if label else cost_neg) / l2 for label in y]
    w, bias, passes = _solve_dual(rows, y, costs, len(vocabulary), seed, epochs, tol)

    weights = {}
    for name, value in zip(vocabulary, w, strict=True):
        rounded = round(value, DECIMALS)
        if rounded != 0.0:
            weights[name] = rounded
    meta["features"] = len(weights)
    meta["passes"] = passes
    # Rounded now, so the model in memory is exactly the one its file holds.
    return TopicModel(weights=weights, bias=round(bias, DECIMALS), threshold=0.0, meta=meta)


#: How many weights a model made from a few examples keeps (see :func:`centroid`).
CENTROID_FEATURES = 300


def centroid(
    examples: Sequence[AbstractSet[str]],
    background: Sequence[AbstractSet[str]],
    *,
    counts: Counter[str] | None = None,
    top: int = CENTROID_FEATURES,
) -> TopicModel:
    """A "more like these" model from a few ``examples``: what they share, weighed by rarity.

    A feature's weight is its inverse document frequency (over ``background`` and
    the examples) times the share of examples that hold it; the ``top`` largest
    are kept, and the bias is 0. A paper then scores high when it has many of the
    examples' rare features, and a word every paper uses counts for nothing.

    A logistic regression of a handful of examples against the background learns
    little but those examples: the background is unlabelled for the new topic, so
    papers like the examples sit in it as negatives. Simulated on the train split
    (4 positives of one topic drawn at random, the other train papers as
    background, scored on the later 30% of the split, 14 topics, 5 draws each), the
    regression took none of the held-out papers; this model reached mean F1 0.37.
    Papers said to be out of the topic are left out here: taking off the features
    they share with the examples (the three best-scoring wrong papers of the
    background, 3 draws) moved that F1 from 0.364 to 0.357 at a quarter of an
    example's weight, 0.338 at half and 0.197 at a whole one.

    The caller sets the threshold. ``counts`` are the background's document
    counts if the caller has them (one background, many sets of examples).
    """
    n = len(background) + len(examples)
    if counts is None:
        counts = Counter()
        for doc in background:
            counts.update(doc)
    held: Counter[str] = Counter()
    for doc in examples:
        held.update(doc)
    k = max(len(examples), 1)
    weights = {
        name: round(count / k * math.log((n + 1) / (counts[name] + count + 1)), DECIMALS)
        for name, count in held.items()
    }
    kept = sorted(weights.items(), key=lambda item: (-item[1], item[0]))[:top]
    meta = {
        "feature_set": FEATURE_SET,
        "kind": "centroid",
        "docs": n,
        "positives": len(examples),
        "top": top,
    }
    return TopicModel(
        weights={name: w for name, w in sorted(kept) if w > 0}, bias=0.0, threshold=0.0, meta=meta
    )


def document_counts(
    docs: Sequence[AbstractSet[str]], labels: Sequence[bool]
) -> tuple[Counter[str], Counter[str]]:
    """(documents with each feature, positive documents with it): what :func:`fit`
    selects features by. Cross-validation counts all examples once and gives each
    fold these less its held-out part (:func:`subtract_counts`)."""
    df: Counter[str] = Counter()
    pos_df: Counter[str] = Counter()
    for doc, label in zip(docs, labels, strict=True):
        df.update(doc)
        if label:
            pos_df.update(doc)
    return df, pos_df


def drop_rare(
    docs: Sequence[frozenset[str]], counts: tuple[Counter[str], Counter[str]], min_df: int
) -> tuple[list[frozenset[str]], tuple[Counter[str], Counter[str]]]:
    """``docs`` and their :func:`document_counts` without the features in fewer than
    ``min_df`` of them: :func:`fit` with that ``min_df`` never uses those, on these
    documents or any subset of them."""
    df, pos_df = counts
    kept = frozenset(name for name, count in df.items() if count >= min_df)
    reduced = [doc & kept for doc in docs]
    return reduced, (
        Counter({name: df[name] for name in kept}),
        Counter({name: pos_df[name] for name in kept if pos_df[name]}),
    )


def subtract_counts(
    whole: tuple[Counter[str], Counter[str]], part: tuple[Counter[str], Counter[str]]
) -> tuple[Counter[str], Counter[str]]:
    """The :func:`document_counts` of ``whole``'s documents without ``part``'s."""
    df, pos_df = whole[0].copy(), whole[1].copy()
    df.subtract(part[0])
    pos_df.subtract(part[1])
    return df, pos_df


#: The bias is learned as the weight of a constant feature of this value. The
#: dual solver regularises it like any weight, so a large value makes that
#: penalty (on bias / _BIAS_FEATURE) negligible; much larger slows convergence.
_BIAS_FEATURE = 10.0


def _solve_dual(
    rows: list[list[int]],
    y: list[bool],
    costs: list[float],
    dim: int,
    seed: int,
    passes: int,
    tol: float,
) -> tuple[list[float], float, int]:
    """Minimise ``|w|^2 / 2 + sum_i costs[i] * logloss(y_i, w . x_i)`` by dual coordinate descent.

    This is liblinear's solver for L2-regularised logistic regression (Yu, Huang
    and Lin, "Dual coordinate descent methods for logistic regression and maximum
    entropy models", Machine Learning 85, 2011), for binary features given as
    index lists. Each step solves one document's dual variable exactly (a few
    scalar Newton steps) and moves ``w`` along that document's features only,
    and a document whose variable is already optimal costs one dot product. It
    reaches the optimum to within 1 % in 10-40 passes; stochastic gradient
    descent with AdaGrad, tried first, was still short of it after 300, the
    positives' fifty-fold weights making its steps noisy.

    Returns (weights, bias, passes made).
    """
    log = math.log
    n = len(rows)
    sign = [1.0 if label else -1.0 for label in y]
    bias_x = _BIAS_FEATURE
    # alpha[i] in (0, costs[i]); w = sum_i alpha[i] * sign[i] * x_i, from a tiny start.
    alpha = [min(0.001 * c, 1e-8) for c in costs]
    w = [0.0] * dim
    b = 0.0  # the weight of the constant feature
    for row, s, a in zip(rows, sign, alpha, strict=True):
        step = s * a
        for j in row:
            w[j] += step
        b += step * bias_x
    squares = [len(row) + bias_x * bias_x for row in rows]
    order = list(range(n))
    rng = random.Random(seed)
    inner_tol = 0.01
    first_gmax = 0.0
    done = 0
    for done in range(1, passes + 1):
        rng.shuffle(order)
        gmax = 0.0
        newton = 0
        for i in order:
            row = rows[i]
            yi = sign[i]
            c = costs[i]
            q = squares[i]
            margin = yi * (sum(map(w.__getitem__, row)) + b * bias_x)
            old = alpha[i]
            # The sub-problem in z = alpha or z = c - alpha, whichever keeps z
            # away from c, where the log terms lose precision.
            if 0.5 * q * (c - 2.0 * old) + margin < 0.0:
                z0, direction = c - old, -1.0
            else:
                z0, direction = old, 1.0
            z = z0 if c - z0 >= 0.5 * c else 0.1 * z0
            # The stopping test reads the gradient where the variable is (z0),
            # not at the shifted start of the Newton steps below.
            rest = c - z0
            if z0 > 0.0 and rest > 0.0:
                g0 = abs(direction * margin + log(z0 / rest))
                if g0 > gmax:
                    gmax = g0
            gp = q * (z - z0) + direction * margin + log(z / (c - z))
            steps = 0
            while steps <= 100 and abs(gp) >= inner_tol:
                nz = z - gp / (q + c / (c - z) / z)
                if nz <= 0.0:
                    z *= 0.1
                elif nz >= c:  # not expected (liblinear does not check); keeps log() defined
                    z = 0.5 * (z + c)
                else:
                    z = nz
                gp = q * (z - z0) + direction * margin + log(z / (c - z))
                steps += 1
            if steps:
                newton += steps
                alpha[i] = z if direction > 0.0 else c - z
                step = direction * (z - z0) * yi
                for j in row:
                    w[j] += step
                b += step * bias_x
        if done == 1:
            first_gmax = gmax
        elif gmax <= tol * first_gmax:
            break
        if newton <= n // 10:
            # Few documents still move: ask more of each sub-problem.
            inner_tol = max(1e-8, 0.1 * inner_tol)
    return w, b * bias_x, done


def _best_threshold(scored: list[tuple[float, bool]]) -> tuple[float, int, int]:
    """The threshold that maximises F1 on ``scored`` (score, label) pairs.

    Returns (threshold, true positives, false positives) at that threshold. The
    threshold sits halfway between the lowest score kept and the next score
    below it, so that the final model (fitted on slightly more data than each
    fold's) has some room either side.
    """
    ordered = sorted(scored, key=lambda item: -item[0])
    positives = sum(label for _, label in ordered)
    best = (-1.0, 0, 0, 0)  # f1, cut index, tp, fp
    tp = fp = 0
    for i, (value, label) in enumerate(ordered):
        if label:
            tp += 1
        else:
            fp += 1
        if i + 1 < len(ordered) and ordered[i + 1][0] == value:
            continue  # a threshold cannot split equal scores
        f1 = 2 * tp / (2 * tp + fp + (positives - tp))
        if f1 > best[0]:
            best = (f1, i, tp, fp)
    _, cut, tp, fp = best
    lowest = ordered[cut][0]
    below = ordered[cut + 1][0] if cut + 1 < len(ordered) else lowest - 2.0
    return (lowest + below) / 2.0, tp, fp


def fit_topic(
    docs: Sequence[frozenset[str]],
    labels: Sequence[bool],
    *,
    seed: int = 0,
    folds: int = 5,
    **fit_args: Any,
) -> TopicModel:
    """A model for one topic, with its threshold and quality measured by cross-validation.

    The documents are split into ``folds`` stratified folds (each gets its share of
    the positives; seeded). A model fitted on the other folds scores each fold, so
    every document gets a score from a model that never saw it. Those out-of-fold
    scores choose the threshold that maximises F1 and give honest precision,
    recall and F1, stored in ``meta["cv"]``. The returned model is then fitted on
    all the documents, with that threshold.

    With fewer positives than ``folds``, there are as many folds as positives; with
    a single positive there is no cross-validation (``meta["cv"]`` is None) and the
    threshold is 0.0; with none the model never fires. ``fit_args`` go to :func:`fit`.
    """
    if len(docs) != len(labels):
        raise ValueError(f"{len(docs)} documents but {len(labels)} labels")
    if folds < 2:
        raise ValueError("folds must be at least 2")
    y = [bool(label) for label in labels]
    positives = [i for i, label in enumerate(y) if label]
    negatives = [i for i, label in enumerate(y) if not label]
    k = min(folds, len(positives))
    if k < 2 or not negatives:
        model = fit(docs, y, seed=seed, **fit_args)
        model.meta["folds"] = 0
        model.meta["cv"] = None
        return model

    rng = random.Random(seed)
    rng.shuffle(positives)
    rng.shuffle(negatives)
    fold_of = [0] * len(y)
    for position, i in enumerate(positives):
        fold_of[i] = position % k
    for position, i in enumerate(negatives):
        fold_of[i] = position % k
    scored: list[tuple[float, bool]] = []
    for fold in range(k):
        train = [i for i in range(len(y)) if fold_of[i] != fold]
        test = [i for i in range(len(y)) if fold_of[i] == fold]
        model = fit([docs[i] for i in train], [y[i] for i in train], seed=seed, **fit_args)
        scored.extend((model.score(docs[i]), y[i]) for i in test)

    threshold, tp, fp = _best_threshold(scored)
    fn = len(positives) - tp
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    final = fit(docs, y, seed=seed, **fit_args)
    final.threshold = round(threshold, DECIMALS)
    final.meta["folds"] = k
    final.meta["cv"] = {
        "precision": round(precision, DECIMALS),
        "recall": round(recall, DECIMALS),
        "f1": round(f1, DECIMALS),
        "positives": len(positives),
        "negatives": len(negatives),
        "true_positives": tp,
        "false_positives": fp,
    }
    return final


def prf(predicted: Iterable[bool], actual: Iterable[bool]) -> tuple[float, float, float]:
    """Precision, recall and F1 of ``predicted`` against ``actual``, 0.0 where undefined.

    The two must have the same length (:class:`ValueError` otherwise): a report
    built on a silently truncated list would be wrong without saying so.
    """
    tp = fp = fn = 0
    for guess, truth in zip(predicted, actual, strict=True):
        if guess and truth:
            tp += 1
        elif guess:
            fp += 1
        elif truth:
            fn += 1
    return prf_counts(tp, fp, fn)


def prf_counts(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    """:func:`prf` from the counts of true positives, false positives and false negatives."""
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    return precision, recall, f1
