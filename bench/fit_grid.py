"""The fitting settings against out-of-fold F1 on the train split, for every default topic.

``training.FIT_ARGS`` (the L2 penalty, features per positive and the most
features a model keeps) were chosen on three topics. This refits every default
topic's cross-validation (:func:`papertrack.training.choose`, as
``python -m papertrack.training --fit`` does: 5 folds, the rule chosen) under
each setting of a grid and prints, per setting, the macro mean over the topics of
the chosen rule's out-of-fold F1 and of the model alone's, each averaged over
``--draws`` draws of the folds. The test split is never read.

    python bench/fit_grid.py                                  # about 15 minutes
    python bench/fit_grid.py --l2 3,10 --per-positive 10,30 --draws 1
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from papertrack import paths, training  # noqa: E402
from papertrack.topics import Catalog  # noqa: E402


def numbers(text: str) -> list[float]:
    return [float(part) for part in text.split(",") if part.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--l2", type=numbers, default=numbers("0.3,1,3,10,30"))
    parser.add_argument("--per-positive", type=numbers, default=numbers("10,30"))
    parser.add_argument("--max-features", type=numbers, default=numbers("4000"))
    parser.add_argument("--draws", type=int, default=2, help="draws of the folds (seeds)")
    opts = parser.parse_args()

    labelled = training.load_labelled(paths.labels_file())
    train = training.train_set(labelled)
    topics = Catalog.default().topics
    seeds = [training.SEED + i for i in range(opts.draws)]
    grid = list(itertools.product(opts.l2, opts.per_positive, opts.max_features))
    print(f"{len(topics)} topics, {len(train.papers):,} train papers, {len(seeds)} draws")
    print(f"{'l2':>6} {'per positive':>12} {'at most':>8} {'chosen rule':>12} {'model':>8}")
    for l2, per_positive, most in grid:
        started = time.perf_counter()
        args = dict(
            training.FIT_ARGS, l2=l2, features_per_positive=per_positive, max_features=int(most)
        )
        chosen, model = [], []
        for topic in topics:
            papers, labels = training.examples_for(topic.slug, labelled)
            hits = (
                training.feature_hits(topic, papers, train.matrix) if topic.query.strip() else None
            )
            keys = [p.arxiv_id for p in papers]
            picks = [
                training.choose(train.matrix, labels, hits, keys=keys, seed=s, fit_args=args)
                for s in seeds
            ]
            chosen.append(statistics.fmean(c.rules[c.decide]["f1"] for c in picks))
            model.append(statistics.fmean(c.rules["model"]["f1"] for c in picks))
        shipped = (l2, per_positive, int(most)) == (
            training.FIT_ARGS["l2"],
            training.FIT_ARGS["features_per_positive"],
            training.FIT_ARGS["max_features"],
        )
        print(
            f"{l2:>6g} {per_positive:>12g} {int(most):>8,} {statistics.fmean(chosen):>12.4f} "
            f"{statistics.fmean(model):>8.4f}  ({time.perf_counter() - started:.0f} s)"
            + ("  <- shipped" if shipped else ""),
            flush=True,
        )


if __name__ == "__main__":
    main()
