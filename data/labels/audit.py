"""A second, blind labelling of the test papers the models get wrong (the boundary audit).

    python data/labels/audit.py --draw OUT_DIR   # write the batches (done once, 2026-12-03)
    python data/labels/audit.py                  # the table of boundary-audit.jsonl

The draw: for six topics, every test-split paper the shipped catalog (label round
7) tags against its label (``fp``: tagged, labelled out; ``fn``: labelled in, not
tagged), and as many ``control`` papers the catalog gets right, half of them tagged
and labelled in, half labelled out but in one of the other narrow topics (the near
misses), so the labeller cannot tell an error by its batch. Each batch was shuffled
(seed 20261203) and given, with the guidelines alone, to a labeller of the same
kind as the first ones: no first label, no tagger output. Every paper read is in
``boundary-audit.jsonl`` (``in``: the second label; ``kind``: as drawn).

The table says, per topic, on how many of its errors the second labeller sided
with the tagger, and the precision, recall and F1 of the catalog on the test
split when the papers the two labellings disagree on are left out (the tagged
and labelled-in papers scaled by the controls' rate of disagreement).
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
AUDIT = HERE / "boundary-audit.jsonl"
SEED = 20261203
GROUPS = {
    "A": ["llm-agent-training"],
    "B": ["ai-agent-benchmarks"],
    "C": ["long-horizon-agent-tasks"],
    "D": ["llm-world-models", "agentic-rag", "web-search-agents"],
    "E": ["synthetic-data-generation"],
}
BROAD = ("large-language-models", "reinforcement-learning", "computer-vision")
#: Its near misses are the LLM papers too: synthetic data is rarely an agent topic.
SYNTHETIC = "synthetic-data-generation"


def _outcomes() -> tuple[list, dict[str, dict[str, list]]]:
    """The test papers and, per topic, the ids the catalog gets wrong and right."""
    from papertrack import paths
    from papertrack.topics import Catalog
    from papertrack.training import load_labelled

    catalog = Catalog.default()
    test = [p for p in load_labelled(paths.labels_file()) if p.split == "test"]
    tagged = {p.arxiv_id: catalog.tag_fields(p.title, p.abstract, (), p.categories) for p in test}
    narrow = [t.slug for t in catalog.topics if t.slug not in BROAD]
    out: dict[str, dict[str, list]] = {}
    for slug in (t.slug for t in catalog.topics):
        kinds: dict[str, list] = {"fp": [], "fn": [], "tp": [], "near": []}
        for paper in test:
            guess, truth = slug in tagged[paper.arxiv_id], slug in paper.labels
            if guess != truth:
                kinds["fp" if guess else "fn"].append(paper)
            elif guess:
                kinds["tp"].append(paper)
            others = narrow + (["large-language-models"] if slug == SYNTHETIC else [])
            if not guess and not truth and any(o in paper.labels for o in others if o != slug):
                kinds["near"].append(paper)
        out[slug] = kinds
    return test, out


def draw(folder: Path) -> None:
    """Write ``audit-G.jsonl`` batches (papers to label) and ``draw-audit.json`` (kinds)."""
    _, outcomes = _outcomes()
    rng = random.Random(SEED)
    kinds = {}
    for group, slugs in GROUPS.items():
        items = []
        for slug in slugs:
            got = outcomes[slug]
            errors = len(got["fp"]) + len(got["fn"])
            right = min(len(got["tp"]), (errors + 1) // 2)
            controls = rng.sample(got["tp"], right) + rng.sample(got["near"], errors - right)
            for kind in ("fp", "fn"):
                items += [(slug, kind, p) for p in got[kind]]
            items += [(slug, "control", p) for p in controls]
        rng.shuffle(items)
        kinds[group] = [{"topic": s, "kind": k, "arxiv_id": p.arxiv_id} for s, k, p in items]
        with open(folder / f"audit-{group}.jsonl", "w", encoding="utf-8") as handle:
            for slug, _, paper in items:
                row = {
                    "topic": slug,
                    "arxiv_id": paper.arxiv_id,
                    "title": paper.title,
                    "abstract": paper.abstract,
                    "categories": list(paper.categories),
                }
                handle.write(json.dumps(row) + "\n")
    (folder / "draw-audit.json").write_text(json.dumps({"seed": SEED, "draw": kinds}))


def _f1(tp: float, fp: float, fn: float) -> tuple[float, float, float]:
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    return precision, recall, 2 * precision * recall / (precision + recall)


def report() -> None:
    """Print the audit's table (markdown) from ``boundary-audit.jsonl``."""
    test, outcomes = _outcomes()
    first = {p.arxiv_id: p.labels for p in test}
    rows = [json.loads(line) for line in AUDIT.read_text(encoding="utf-8").splitlines()]
    print(
        "| topic | tagged, labelled out | second label: in | labelled in, untagged "
        "| second label: out | controls differing | P / R / F1 | on the papers both agree on |"
    )
    print("|---|---:|---:|---:|---:|---:|---|---|")
    for slug in [s for group in GROUPS.values() for s in group]:
        mine = [r for r in rows if r["topic"] == slug]
        count = Counter((r["kind"], r["in"] == (slug in first[r["arxiv_id"]])) for r in mine)
        got = outcomes[slug]
        drawn = {r["arxiv_id"] for r in mine if r["kind"] in ("fp", "fn")}
        if drawn != {p.arxiv_id for p in got["fp"] + got["fn"]}:
            print(f"| {slug} | drawn against other models: the errors differ now |||||||")
            continue
        control_in = [r for r in mine if r["kind"] == "control" and slug in first[r["arxiv_id"]]]
        differ_in = sum(r["in"] is False for r in control_in) / max(1, len(control_in))
        tp, fp, fn = len(got["tp"]), len(got["fp"]), len(got["fn"])
        sided_fp, sided_fn = count["fp", False], count["fn", False]
        now = _f1(tp, fp, fn)
        agreed = _f1(tp * (1 - differ_in), fp - sided_fp, fn - sided_fn)
        controls = count["control", False]
        print(
            f"| {slug} | {fp} | {sided_fp} | {fn} | {sided_fn} | "
            f"{controls} of {controls + count['control', True]} | "
            + " / ".join(f"{x:.2f}" for x in now)
            + " | "
            + " / ".join(f"{x:.2f}" for x in agreed)
            + " |"
        )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--draw"]:
        draw(Path(sys.argv[2]))
    else:
        report()
