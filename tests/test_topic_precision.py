"""Precision and recall of the default catalog on labelled real papers."""

from __future__ import annotations

import pytest

from papertrack.topics import Catalog
from tests.precision import LABELLED, evaluate, load_labelled, markdown_table

THRESHOLD = 0.85


@pytest.fixture(scope="module")
def scores() -> dict:  # type: ignore[type-arg]
    return evaluate(Catalog.default())


def test_labelled_set_is_large_enough() -> None:
    papers = load_labelled()
    assert len(papers) >= 60
    assert len({p.arxiv_id for p, _ in papers}) == len(papers), "a paper is labelled twice"
    used = {label for _, labels in papers for label in labels}
    assert used <= set(LABELLED), f"unknown labels: {used - set(LABELLED)}"


@pytest.mark.parametrize("topic", LABELLED)
def test_topic_precision_and_recall(topic: str, scores: dict) -> None:  # type: ignore[type-arg]
    score = scores[topic]
    table = markdown_table(scores)
    if score.recall is None and score.precision is None:
        pytest.skip(f"{topic}: no labelled positives and no hits to measure")
    if score.precision is not None:
        assert score.precision >= THRESHOLD, f"{topic} precision {score.precision:.2f}\n{table}"
    if score.recall is not None:
        assert score.recall >= THRESHOLD, f"{topic} recall {score.recall:.2f}\n{table}"
