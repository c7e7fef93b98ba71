"""The default catalog's precision and recall on labelled real papers.

Two labelled sets:

* ``data/labels/corpus.jsonl.gz``, test split (2,400 papers of the last 8 weeks of
  the corpus, never fitted or tuned on): the figures of record
  (``python -m papertrack.training`` prints the table). Targets: F1 0.85 for every
  topic, precision and recall 0.90 for llm-agent-training. Most agent topics miss
  them; each topic is held to the F1 measured when its model was last fitted, so
  it cannot get worse unnoticed, and a topic that reaches the target fails the
  test until its floor is raised.
* ``tests/data/labels/papers.jsonl`` (505 papers, 17 agent topics, labelled under
  the first guidelines; the old queries were tuned on it): held to floors too.
"""

from __future__ import annotations

import pytest

from papertrack import paths, training
from papertrack.topics import Catalog
from tests.precision import LABELLED, Score, evaluate, load_labelled, markdown_table

TARGET = 0.85

#: topic -> F1 on the corpus test split, measured on 2026-12-06 (models fitted by
#: `python -m papertrack.training --fit` on the seven train rounds, to the optimum of
#: each objective; 2,400 test papers; a topic's papers in the topics it implies).
#: Every one below TARGET keeps the issue's target unmet; docs/topics.md says so.
TEST_SPLIT_F1: dict[str, float] = {
    "llm-agent-training": 0.69,
    "rl-for-llm-agents": 0.68,
    "agentic-rl": 0.71,
    "rl-for-tool-use": 0.70,
    "llm-tool-use": 0.71,
    "gui-agents": 0.93,
    "computer-use-agents": 0.87,
    "terminal-agents": 0.62,
    "deep-research-agents": 0.83,
    "web-search-agents": 0.78,
    "multi-agent-llm-systems": 0.81,
    "llm-world-models": 0.55,
    "ai-agent-benchmarks": 0.75,
    "knowledge-distillation": 0.76,
    "synthetic-data-generation": 0.62,
    "long-horizon-agent-tasks": 0.72,
    "agentic-rag": 0.66,
    "large-language-models": 0.95,
    "reinforcement-learning": 0.89,
    "computer-vision": 0.92,
}

#: topic -> (precision floor, recall floor) on the 505-paper set, for the topics
#: below TARGET there, measured on 2026-12-06 with the learned catalog.
BELOW_TARGET: dict[str, tuple[float, float]] = {
    "rl-for-tool-use": (0.76, 0.90),
    "llm-tool-use": (0.72, 0.96),
    "deep-research-agents": (1.00, 0.50),
    "llm-world-models": (1.00, 0.33),
    "ai-agent-benchmarks": (0.67, 0.82),
    "knowledge-distillation": (1.00, 0.75),
    "synthetic-data-generation": (0.54, 0.90),
    "long-horizon-agent-tasks": (0.72, 0.86),
    "agentic-rag": (1.00, 0.83),
}


@pytest.fixture(scope="module")
def test_split() -> dict[str, dict[str, float]]:
    labelled = training.load_labelled(paths.labels_file())
    return {row["topic"]: row for row in training.evaluate(Catalog.default(), labelled, "test")}


def test_the_labelled_corpus_covers_every_topic_and_both_splits() -> None:
    labelled = training.load_labelled(paths.labels_file())
    assert len(labelled) >= 2500
    assert len({p.arxiv_id for p in labelled}) == len(labelled), "a paper is labelled twice"
    splits = {p.split for p in labelled}
    assert splits == {"train", "test"}
    last_train = max(p.date for p in labelled if p.split == "train")
    first_test = min(p.date for p in labelled if p.split == "test")
    assert last_train < first_test, "the split is by date: every test paper is later"
    used = {label for p in labelled for label in p.labels}
    assert used == {t.slug for t in Catalog.default().topics}


def test_the_boundary_audit_labels_test_papers_as_its_kinds_say() -> None:
    """data/labels/boundary-audit.jsonl: second labels of test papers, each drawn as an
    error of the catalog (fp: labelled out, fn: labelled in) or a control."""
    import json

    first = {p.arxiv_id: p for p in training.load_labelled(paths.labels_file())}
    slugs = {t.slug for t in Catalog.default().topics}
    audit = paths.labels_file().parent / "boundary-audit.jsonl"
    rows = [json.loads(line) for line in audit.read_text(encoding="utf-8").splitlines()]
    assert len(rows) >= 900
    assert len({(r["arxiv_id"], r["topic"]) for r in rows}) == len(rows)
    for row in rows:
        paper = first[row["arxiv_id"]]
        assert paper.split == "test" and row["topic"] in slugs
        assert isinstance(row["in"], bool) and row["note"].strip()
        if row["kind"] != "control":
            assert (row["topic"] in paper.labels) == (row["kind"] == "fn"), row
    kinds = [r["kind"] for r in rows]
    assert kinds.count("control") == len(rows) - kinds.count("control")


def test_the_figures_topics_show_says_are_the_test_splits(
    test_split: dict[str, dict[str, float]],
) -> None:
    """data/models/test-split.json, which `topics show` reads, holds what the shipped
    catalog does on the test split now (`python -m papertrack.training --record`)."""
    import json

    recorded = json.loads(training.figures_file().read_text(encoding="utf-8"))
    assert recorded["topics"] == test_split
    labelled = training.load_labelled(paths.labels_file())
    assert recorded["papers"] == sum(p.split == "test" for p in labelled)


@pytest.mark.parametrize("topic", sorted(TEST_SPLIT_F1))
def test_topic_f1_on_the_test_split_holds_its_floor(
    topic: str, test_split: dict[str, dict[str, float]]
) -> None:
    row = test_split[topic]
    floor = TEST_SPLIT_F1[topic]
    assert row["f1"] >= floor - 1e-9, f"{topic} F1 fell to {row['f1']:.2f} (floor {floor:.2f})"
    if floor < TARGET:
        assert row["f1"] < TARGET, f"{topic} now reaches {TARGET}: raise its floor"


def test_labelled_set_is_large_enough() -> None:
    papers = load_labelled()
    assert len(papers) >= 60
    assert len({p.arxiv_id for p, _ in papers}) == len(papers), "a paper is labelled twice"
    used = {label for _, labels in papers for label in labels}
    assert used <= set(LABELLED), f"unknown labels: {used - set(LABELLED)}"


@pytest.fixture(scope="module")
def scores() -> dict[str, Score]:
    return evaluate(Catalog.default())


@pytest.mark.parametrize("topic", LABELLED)
def test_topic_precision_and_recall(topic: str, scores: dict[str, Score]) -> None:
    score = scores[topic]
    table = markdown_table(scores)
    if score.recall is None and score.precision is None:
        pytest.skip(f"{topic}: no labelled positives and no hits to measure")
    precision = score.precision if score.precision is not None else 0.0
    recall = score.recall if score.recall is not None else 1.0
    if topic in BELOW_TARGET:
        floor_p, floor_r = BELOW_TARGET[topic]
        assert precision >= floor_p - 1e-9, f"{topic} precision fell to {precision:.2f}\n{table}"
        assert recall >= floor_r - 1e-9, f"{topic} recall fell to {recall:.2f}\n{table}"
        assert not (precision >= TARGET and recall >= TARGET), (
            f"{topic} now reaches the target: remove it from BELOW_TARGET"
        )
        return
    assert precision >= TARGET, f"{topic} precision {precision:.2f}\n{table}"
    assert recall >= TARGET, f"{topic} recall {recall:.2f}\n{table}"
