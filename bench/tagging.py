"""Benchmark: what the learned topic models cost, on real text.

bench/run.py builds its stores from synthetic snapshots (short made-up
abstracts), where the single writing process, not tagging, bounds a bulk import.
This measures tagging where it weighs: on real titles and abstracts.

1. Tagging alone, in this process: microseconds per paper with the default
   catalog (models and queries) and with the queries alone, on the labelled
   papers shipped in data/labels (3,050 real abstracts).
2. With a Kaggle-format snapshot of real papers given (``--snapshot``), a bulk
   import of it into a new store with each catalog, two worker processes, as
   ``papertrack ingest`` does it (papers per second, best of ``--runs``).

    python bench/tagging.py
    python bench/tagging.py --snapshot corpus.jsonl.gz --runs 2
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from papertrack import paths, training  # noqa: E402
from papertrack.ingest import IngestOptions, ingest  # noqa: E402
from papertrack.store import Store  # noqa: E402
from papertrack.topics import Catalog  # noqa: E402


def tag_cost(catalog: Catalog, papers: list[training.Labelled], runs: int) -> float:
    """Median microseconds per paper of ``catalog.tag_fields`` over ``papers``."""
    catalog.tag_fields("warm up", "the compiled catalog and models", (), ())
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        for p in papers:
            catalog.tag_fields(p.title, p.abstract, (), p.categories, p.arxiv_id)
        times.append((time.perf_counter() - started) / len(papers) * 1e6)
    return sorted(times)[len(times) // 2]


def bulk_rate(catalog: Catalog, snapshot: str, jobs: int) -> tuple[int, float]:
    """(papers, papers per second) of one bulk import of ``snapshot`` into a new store."""
    folder = Path(tempfile.mkdtemp(prefix="papertrack-bench-"))
    try:
        store = Store(folder / "store")
        started = time.perf_counter()
        with store.writer(catalog) as writer:
            report = ingest([snapshot], writer, options=IngestOptions(jobs=jobs))
        took = time.perf_counter() - started
        papers = report.sources[0].papers
        return papers, papers / took
    finally:
        shutil.rmtree(folder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--snapshot", help="a Kaggle-format snapshot of real papers (.jsonl[.gz])")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    learned = Catalog.default()
    catalogs = {"queries alone": learned.queries_only(), "models and queries": learned}
    papers = training.load_labelled(paths.labels_file())
    cost = {name: tag_cost(cat, papers, args.runs) for name, cat in catalogs.items()}
    for name, us in cost.items():
        print(f"tagging, {name}: {us:.0f} us a paper ({len(papers):,} real abstracts)")
    ratio = cost["models and queries"] / cost["queries alone"]
    print(f"ratio models / queries: {ratio:.2f}x")
    if args.snapshot:
        rates: dict[str, float] = {}
        for name, cat in catalogs.items():
            best = 0.0
            for _ in range(args.runs):
                count, rate = bulk_rate(cat, args.snapshot, args.jobs)
                best = max(best, rate)
            rates[name] = best
            print(f"bulk import, {name}: {best:,.0f} papers/s ({count:,} papers, {args.jobs} jobs)")
        slower = 100 * (1 - rates["models and queries"] / rates["queries alone"])
        print(f"bulk import with the models: {slower:.0f}% slower (target <= 10%)")


if __name__ == "__main__":
    main()
