"""What the full-text index costs and buys, at up to a million synthetic papers.

    python bench/fulltext.py                    # 1M papers (builds the store once)
    python bench/fulltext.py --size 100000
    python bench/fulltext.py --import-cost 100000 --before DIR

Prints, as medians of cold processes, with the index and with it set aside (the
same commands then scan every week file, as before the index existed):

- `search` and `latest --query` of a rare phrase, `topics test` of a query;
- `topics add` of a topic with a query (the retag it triggers), and the first
  `latest` after a hand edit of topics.toml;
- the index's size on disk beside the week files', and how long a rebuild takes.

``--import-cost N --before DIR`` times `ingest` of the N-paper snapshot with
papertrack as it is and with the checkout at DIR (another commit: one without
the index, say), alternating, and prints the ratio.

The synthetic papers reuse a pool of real titles and abstracts (bench/synth.py),
so a word of one real abstract recurs in thousands of papers; the queries timed
are chosen to be rare on such a store as on a real one.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from run import OUT, bench_env, build, papertrack, snapshot  # noqa: E402

from papertrack.fulltext import TextIndex  # noqa: E402
from papertrack.store import Store, build_text_index  # noqa: E402

RARE = '"zero shot" AND title:benchmark*'


def cold(args: list[str], env: dict[str, str], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(args, env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def size_of(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def searches(store: Path, home: Path, runs: int) -> dict[str, float]:
    env = bench_env(PAPERTRACK_HOME=str(home))
    return {
        "search": cold(papertrack(store, "search", RARE, "-n", "20"), env, runs),
        "latest --query": cold(papertrack(store, "latest", "--query", RARE), env, runs),
        "topics test": cold(papertrack(store, "topics", "test", RARE, "--seed", "1"), env, runs),
    }


def retags(store: Path, home: Path) -> dict[str, float]:
    """`topics add` and the first command after a hand edit, on a copy of the store."""
    env = bench_env(PAPERTRACK_HOME=str(home))
    topics = home / "topics.toml"
    topics.unlink(missing_ok=True)
    started = time.perf_counter()
    subprocess.run(
        papertrack(store, "topics", "add", "Zero-shot benchmarks", "--query", RARE),
        env=env,
        check=True,
        capture_output=True,
    )
    add = time.perf_counter() - started
    text = topics.read_text("utf-8").replace(RARE, RARE + " OR title:zero-shot")
    topics.write_text(text, "utf-8")
    started = time.perf_counter()
    subprocess.run(papertrack(store, "latest", "-n", "5"), env=env, check=True, capture_output=True)
    edit = time.perf_counter() - started
    topics.unlink()
    subprocess.run(papertrack(store, "latest", "-n", "1"), env=env, check=True, capture_output=True)
    return {"topics add": add, "first latest after an edit": edit}


def import_cost(size: int, before: Path, runs: int) -> None:
    source = snapshot(size)
    now: list[float] = []
    then: list[float] = []
    for _ in range(runs):
        for checkout, times in ((HERE.parent, now), (before, then)):
            work = Path(tempfile.mkdtemp(prefix="papertrack-import-", dir=OUT))
            env = bench_env(PAPERTRACK_HOME=str(work / "home"), PYTHONPATH=str(checkout))
            started = time.perf_counter()
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "papertrack",
                    "--db",
                    str(work / "store"),
                    "ingest",
                    "-q",
                    str(source),
                ],
                env=env,
                check=True,
                capture_output=True,
                cwd=checkout,
            )
            times.append(time.perf_counter() - started)
            shutil.rmtree(work)
    a, b = statistics.median(now), statistics.median(then)
    print(
        f"bulk import of {size:,} papers: {size / a:,.0f} papers/s here, "
        f"{size / b:,.0f} at {before} ({a / b:.2f}x the time; medians of {runs}, alternating)"
    )


def rebuild_index(store: Store) -> float:
    """Build the store's full-text index anew, under its lock; the seconds it took."""
    started = time.perf_counter()
    lock = store.lock()
    lock.acquire()
    try:
        build_text_index(store)
    finally:
        lock.release()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--import-cost", type=int, metavar="N")
    parser.add_argument("--before", type=Path, help="a checkout of another papertrack commit")
    opts = parser.parse_args()
    if opts.import_cost:
        if opts.before is None:
            raise SystemExit("--import-cost needs --before DIR")
        import_cost(opts.import_cost, opts.before, opts.runs)
        return
    path, _ = build(opts.size)
    home = OUT / "fulltext-home"
    home.mkdir(parents=True, exist_ok=True)
    store = Store(path)
    text = TextIndex(store.search_path)
    built = rebuild_index(store) if not text.synced_with(store.index().generation) else 0.0
    rebuild = rebuild_index(store)
    print(f"{store.count():,} papers in {len(store.weeks())} week files")
    index_bytes, papers_bytes = size_of(store.search_path), size_of(store.papers_dir)
    print(
        f"index: {index_bytes / 2**20:,.0f} MiB beside {papers_bytes / 2**20:,.0f} MiB of week "
        f"files; a rebuild takes {rebuild:.1f} s (first build here {built:.1f} s)"
    )
    fast = searches(path, home, opts.runs)
    changed = retags(path, home)
    print("with the index (medians of cold runs):")
    for name, seconds in {**fast, **changed}.items():
        print(f"  {name:<28} {seconds:6.2f} s")
    os.environ["PAPERTRACK_FULLTEXT"] = "off"  # every reader scans, as before the index
    slow = searches(path, home, 1)
    del os.environ["PAPERTRACK_FULLTEXT"]
    print("without it (the same commands scanning every week file, one run):")
    for name, seconds in slow.items():
        print(f"  {name:<28} {seconds:6.2f} s  ({seconds / fast[name]:.0f}x)")


if __name__ == "__main__":
    main()
