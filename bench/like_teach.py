"""What teaching does to a topic made from a few examples, on the train split alone.

A user makes a topic with `topics add --like` and then teaches it: the papers it
misses in, the papers it wrongly takes out (`--not`). This simulates both with the
topics the labels know, on the train split only (nothing here looks at the test
split): the earlier 70% of the train papers by date are what the user can teach
from and the background the model learns against, the later 30% are scored. For
each topic and draw: ``--examples`` positives drawn at random (seeded) make the
topic; then ``--teaches`` times, ``--add`` of the positives it does not take are
taught in; then 3 papers it takes that are not in the topic are taught out. Each
step is made by :func:`papertrack.training.choose`, as `topics teach` makes it.

It prints mean F1 on the later papers before and after the teaches in, how many
teaches in left fewer right papers tagged (and how many were lost in all), and how
many teaches out left more wrong papers tagged.

    python bench/like_teach.py
    python bench/like_teach.py --draws 1 --topics gui-agents,agentic-rag
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from papertrack import fitting, learn, paths, training  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from like import TOPICS  # noqa: E402  (the same 14 topics as bench/like.py)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=6, help="examples to start (default 6)")
    parser.add_argument("--teaches", type=int, default=3, help="teaches in (default 3)")
    parser.add_argument("--add", type=int, default=3, help="papers a teach in (default 3)")
    parser.add_argument("--draws", type=int, default=3, help="draws per topic (default 3)")
    parser.add_argument("--topics", default=",".join(TOPICS), help="comma-separated slugs")
    args = parser.parse_args()

    started = time.perf_counter()
    labelled = training.load_labelled(paths.labels_file())
    train = training.train_set(labelled)
    papers, whole = train.papers, train.matrix
    order = sorted(range(len(papers)), key=lambda i: (papers[i].date, papers[i].arxiv_id))
    split = int(len(order) * 0.7)
    pool, later = order[:split], order[split:]
    part = whole.rows[pool]
    matrix = fitting.Matrix.from_arrays(part.indptr, part.indices, whole.names)
    keys = [papers[i].arxiv_id for i in pool]
    print(
        f"{len(pool):,} earlier train papers to teach from, {len(later):,} later ones scored; "
        f"{args.examples} examples, then {args.teaches} teaches of {args.add} papers it misses, "
        f"then 3 it takes wrongly taught out; {args.draws} draws a topic"
    )

    def make(examples: set[int], outside: set[int]) -> learn.TopicModel:
        y = [i in examples for i in range(len(pool))]
        return training.choose(
            matrix, y, None, keys=keys, outside={keys[i] for i in outside},
            like_until=training.LIKE_UNTIL,
        ).model  # fmt: skip

    def taken(model: learn.TopicModel, source: fitting.Matrix, rows: list[int]) -> list[int]:
        points = fitting.points(model, source, rows)
        return [r for r, p in zip(rows, points, strict=True) if p / learn.SCALE >= model.threshold]

    starts, ends, lost_steps, lost, steps, worse_out, outs = [], [], 0, 0, 0, 0, 0
    for slug in args.topics.split(","):
        positives = [n for n, i in enumerate(pool) if slug in papers[i].labels]
        gold = {i for i in later if slug in papers[i].labels}

        def scored(model: learn.TopicModel, gold: set[int] = gold) -> tuple[int, int, float]:
            found = taken(model, whole, later)
            right = sum(i in gold for i in found)
            precision = right / len(found) if found else 0.0
            recall = right / len(gold) if gold else 0.0
            f1 = 2 * precision * recall / (precision + recall) if right else 0.0
            return right, len(found) - right, f1

        for draw in range(args.draws):
            rng = random.Random(f"{slug}:{draw}")
            examples = set(rng.sample(positives, args.examples))
            model = make(examples, set())
            right, wrong, f1 = scored(model)
            starts.append(f1)
            for _ in range(args.teaches):
                inside = set(taken(model, matrix, list(range(len(pool)))))
                missed = [n for n in positives if n not in examples and n not in inside]
                if not missed:
                    break
                examples |= set(rng.sample(missed, min(args.add, len(missed))))
                model = make(examples, set())
                now_right, wrong, f1 = scored(model)
                steps += 1
                if now_right < right:
                    lost_steps += 1
                    lost += right - now_right
                right = now_right
            ends.append(f1)
            inside = set(taken(model, matrix, list(range(len(pool)))))
            mistaken = sorted(n for n in inside if n not in examples and n not in positives)
            if mistaken:
                out = set(rng.sample(mistaken, min(3, len(mistaken))))
                outs += 1
                worse_out += scored(make(examples, out))[1] > wrong
    print(f"mean F1 on the later papers: {statistics.mean(starts):.3f} as made, "
          f"{statistics.mean(ends):.3f} after the teaches in")  # fmt: skip
    print(f"teaches in that left fewer right papers tagged: {lost_steps} of {steps} "
          f"({lost} right papers lost in all)")  # fmt: skip
    print(f"teaches out that left more wrong papers tagged: {worse_out} of {outs}")
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
