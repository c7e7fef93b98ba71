"""Precision and recall of the default topics on a labelled set of real papers.

The labels in ``tests/data/labels/papers.jsonl`` were written from the topic
descriptions alone, without the queries (see ``tests/data/labels/GUIDELINES.md``).
Run ``python tests/precision.py`` to print the table docs/topics.md shows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from papertrack.models import Paper
from papertrack.topics import Catalog

LABELS = Path(__file__).parent / "data" / "labels" / "papers.jsonl"
#: The LLM-agent family of default topics: the ones the labels cover.
LABELLED = (
    "llm-agent-training",
    "rl-for-llm-agents",
    "agentic-rl",
    "rl-for-tool-use",
    "llm-tool-use",
    "gui-agents",
    "computer-use-agents",
    "terminal-agents",
    "deep-research-agents",
    "web-search-agents",
    "multi-agent-llm-systems",
    "llm-world-models",
    "ai-agent-benchmarks",
    "knowledge-distillation",
    "synthetic-data-generation",
    "long-horizon-agent-tasks",
    "agentic-rag",
)


@dataclass(frozen=True)
class Score:
    topic: str
    true_positive: int
    false_positive: int
    false_negative: int

    @property
    def precision(self) -> float | None:
        found = self.true_positive + self.false_positive
        return self.true_positive / found if found else None

    @property
    def recall(self) -> float | None:
        wanted = self.true_positive + self.false_negative
        return self.true_positive / wanted if wanted else None


def load_labelled() -> list[tuple[Paper, frozenset[str]]]:
    rows = []
    for line in LABELS.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        item = json.loads(line)
        paper = Paper(
            arxiv_id=item["arxiv_id"],
            title=item["title"],
            abstract=item.get("abstract") or "",
            authors=tuple(item.get("authors") or ()),
            categories=tuple(item.get("categories") or ()),
        )
        rows.append((paper, frozenset(item["labels"])))
    return rows


def evaluate(catalog: Catalog | None = None) -> dict[str, Score]:
    catalog = catalog or Catalog.default()
    counts = {slug: [0, 0, 0] for slug in LABELLED}
    for paper, labels in load_labelled():
        tags = set(catalog.tag(paper))
        for slug in LABELLED:
            hit, wanted = slug in tags, slug in labels
            if hit and wanted:
                counts[slug][0] += 1
            elif hit:
                counts[slug][1] += 1
            elif wanted:
                counts[slug][2] += 1
    return {slug: Score(slug, *c) for slug, c in counts.items()}


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def markdown_table(scores: dict[str, Score]) -> str:
    lines = [
        "| topic | labelled | tagged | correct | precision | recall |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for s in scores.values():
        wanted = s.true_positive + s.false_negative
        found = s.true_positive + s.false_positive
        lines.append(
            f"| {s.topic} | {wanted} | {found} | {s.true_positive} "
            f"| {_fmt(s.precision)} | {_fmt(s.recall)} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(f"{len(load_labelled())} labelled papers")
    print(markdown_table(evaluate()))
