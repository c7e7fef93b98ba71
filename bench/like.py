"""How well a topic made from a few examples (`topics add NAME --like ID...`) finds the rest.

A topic the shipped labels do not know learns from the user's examples against
the labelled papers as background, which is unlabelled for it. This simulates
that with the topics the labels do know: draw ``--examples`` train-split
positives of one topic at random (seeded), hide every other label of that topic,
make the topic as ``topics add --like`` does (:func:`papertrack.training.choose`
with the same settings), and score it on the test split, where the topic's
labels are known. Each topic is drawn ``--draws`` times; the table gives mean
precision, recall, F1 and papers tagged per draw.

    python bench/like.py
    python bench/like.py --examples 8 --draws 3 --topics gui-agents,agentic-rag
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from papertrack import learn, paths, training  # noqa: E402

TOPICS = (
    "gui-agents",
    "computer-use-agents",
    "deep-research-agents",
    "web-search-agents",
    "agentic-rag",
    "llm-world-models",
    "rl-for-tool-use",
    "knowledge-distillation",
    "llm-tool-use",
    "llm-agent-training",
    "long-horizon-agent-tasks",
    "multi-agent-llm-systems",
    "ai-agent-benchmarks",
    "synthetic-data-generation",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=4, help="examples per topic (default 4)")
    parser.add_argument("--draws", type=int, default=5, help="draws per topic (default 5)")
    parser.add_argument("--topics", default=",".join(TOPICS), help="comma-separated slugs")
    args = parser.parse_args()

    started = time.perf_counter()
    labelled = training.load_labelled(paths.labels_file())
    train = [p for p in labelled if p.split == training.TRAIN]
    test = [p for p in labelled if p.split != training.TRAIN]
    train_matrix = training.train_set(labelled).matrix
    test_docs = training.paper_features(test)
    keys = [p.arxiv_id for p in train]
    print(
        f"{len(train):,} train papers as background, {len(test):,} test papers scored; "
        f"{args.examples} examples a draw, {args.draws} draws a topic"
    )
    print()
    print("| topic | test positives | precision | recall | F1 | tagged |")
    print("|---|---:|---:|---:|---:|---:|")
    means = []
    for slug in args.topics.split(","):
        pool = [i for i, p in enumerate(train) if slug in p.labels]
        gold = [slug in p.labels for p in test]
        rows = []
        for draw in range(args.draws):
            chosen = set(random.Random(f"{slug}:{draw}").sample(pool, args.examples))
            y = [i in chosen for i in range(len(train))]
            model = training.choose(
                train_matrix, y, None, keys=keys, like_until=training.LIKE_UNTIL
            ).model
            predicted = [model.decide(doc) for doc in test_docs]
            rows.append((*learn.prf(predicted, gold), sum(predicted)))
        p, r, f, n = (statistics.mean(row[j] for row in rows) for j in range(4))
        means.append(f)
        print(f"| {slug} | {sum(gold)} | {p:.2f} | {r:.2f} | {f:.2f} | {n:.0f} |")
    print()
    print(f"mean F1 {statistics.mean(means):.3f} ({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
