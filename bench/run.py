"""Benchmarks for papertrack's store: cold `latest` and `momentum` time as the store grows.

Builds synthetic stores (see bench/synth.py) of growing size under bench/out/,
then times `papertrack latest TOPIC`, `papertrack momentum TOPIC` and
`papertrack trending` in fresh processes (cold: a new interpreter each time, as
cron or a shell runs it) and prints the median of several runs and the ratio to
the smallest store. Their cost must not grow with the store.

    python bench/run.py --quick          # 10k and 100k papers (a few minutes the first time)
    python bench/run.py                  # 10k, 100k and 1M papers
    python bench/run.py --sizes 10000 --runs 9
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from synth import synthetic_papers  # noqa: E402

from papertrack.store import Store  # noqa: E402
from papertrack.topics import Catalog  # noqa: E402

OUT = HERE / "out"
TOPIC = "llm-agent-training"
#: The last day of the synthetic papers (synth.py ends them in the week before 2026-11-23).
AS_OF = "2026-11-22"


def build(size: int, batch: int = 5000) -> tuple[Path, float]:
    """A store of ``size`` synthetic papers; reused when already built. Returns (path, papers/s)."""
    path = OUT / f"store-{size}"
    done = path / ".bench-complete"
    if done.exists():
        store = Store(path)
        if store.index_outdated():
            # Built by an older papertrack: upgrade the index now, not inside a timed run.
            with store.writer(Catalog.default()):
                pass
        return path, float(done.read_text() or 0)
    shutil.rmtree(path, ignore_errors=True)
    catalog = Catalog.default()
    store = Store(path)
    started = time.perf_counter()
    papers = synthetic_papers(size)
    with store.writer(catalog) as writer:
        chunk = []
        for paper in papers:
            chunk.append(paper)
            if len(chunk) >= batch:
                writer.upsert(chunk)
                chunk = []
        if chunk:
            writer.upsert(chunk)
    rate = size / (time.perf_counter() - started)
    done.write_text(f"{rate:.0f}")
    return path, rate


def bench_env(**extra: str) -> dict[str, str]:
    """The environment of a timed process: as a user's shell has it, with bytecode caching on.

    PYTHONDONTWRITEBYTECODE (set in some sandboxes) would make every run compile
    papertrack's modules from source, which no installed papertrack does.
    """
    env = dict(os.environ, COLUMNS="200", **extra)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def cold(args: list[str], runs: int) -> float:
    """Median wall time of ``runs`` fresh processes."""
    env = bench_env(PAPERTRACK_HOME=str(OUT / "home"))
    # One untimed run first: it writes the bytecode caches a real install has.
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(
            args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
        )
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="only 10k and 100k papers")
    parser.add_argument("--sizes", type=int, nargs="*", help="store sizes to measure")
    parser.add_argument("--runs", type=int, default=7, help="cold processes per figure (median)")
    parser.add_argument("--topic", default=TOPIC)
    opts = parser.parse_args()
    sizes = opts.sizes or ([10_000, 100_000] if opts.quick else [10_000, 100_000, 1_000_000])

    python = sys.executable
    floor = cold([python, "-c", "pass"], opts.runs)
    print(f"python -c pass: {floor:.3f} s (median of {opts.runs})")
    rows = []
    momentum_rows = []
    for size in sizes:
        path, rate = build(size)
        latest = cold(
            [python, "-m", "papertrack", "--db", str(path), "latest", opts.topic], opts.runs
        )
        papers = Store(path).count()
        rows.append((size, latest))
        print(
            f"{size:>9,} papers: latest {opts.topic} cold {latest:.3f} s "
            f"(median of {opts.runs}); store built at {rate:,.0f} papers/s; {papers:,} stored"
        )
        db = [python, "-m", "papertrack", "--db", str(path)]
        momentum = cold([*db, "momentum", opts.topic, "--as-of", AS_OF], opts.runs)
        trending = cold([*db, "trending", "--as-of", AS_OF], opts.runs)
        index_kib = (path / "index.json").stat().st_size / 1024
        momentum_rows.append((size, momentum, trending))
        print(
            f"{size:>9,} papers: momentum {opts.topic} cold {momentum:.3f} s, trending cold "
            f"{trending:.3f} s (median of {opts.runs}); index.json {index_kib:,.0f} KiB"
        )
    base = rows[0][1]
    for size, latest in rows[1:]:
        print(f"ratio latest {size:,} / {rows[0][0]:,}: {latest / base:.2f}x")
    first = momentum_rows[0]
    for size, momentum, trending in momentum_rows[1:]:
        print(
            f"ratio momentum {size:,} / {first[0]:,}: {momentum / first[1]:.2f}x; "
            f"trending {trending / first[2]:.2f}x"
        )


if __name__ == "__main__":
    main()
