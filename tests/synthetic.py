"""A synthetic corpus with a learnable but not trivial topic, for the learner's tests.

Every paper is Zipf-distributed filler words. A positive mentions 2 or 3 of the
topic's six indicative words; a sixth of the negatives mention one of them too,
so no single word decides, and a rule "any indicative word" has poor precision.
A linear model has to learn that two of them are needed. tests/conftest.py makes
the ``train`` and ``held_out`` fixtures of it.
"""

from __future__ import annotations

import random

from papertrack.learn import TopicModel, features

#: A corpus: each paper's features, its label, and how many indicative words it has.
Corpus = tuple[list[frozenset[str]], list[bool], list[int]]

INDICATIVE = ("screenshot", "click", "widget", "android", "touchscreen", "cursor")
FILLER = [f"filler{i}" for i in range(300)]
ZIPF = [1.0 / (rank + 1) for rank in range(len(FILLER))]


def corpus(n: int, *, rate: float = 0.08, seed: int = 0) -> Corpus:
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


def cross_validated(docs: list[frozenset[str]], labels: list[bool]) -> TopicModel:
    """A model as papertrack fits a default topic: cross-validated, threshold chosen.

    With the fit's own defaults (8 features a positive, at most 1,000), which suit a
    corpus of a few hundred papers: the catalog's 30 a positive suit 10,000."""
    from papertrack import training

    keys = [f"2601.{i:05d}" for i in range(len(docs))]
    return training.choose(docs, labels, None, keys=keys, fit_args={}).model
