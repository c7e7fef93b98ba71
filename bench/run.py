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


def timed_runs(commands: dict[str, list[str]], runs: int) -> dict[str, list[float]]:
    """Wall times of ``runs`` fresh processes per command, taken round-robin.

    Interleaving the commands spreads the machine's passing noise (other tenants
    of a 2-core VM) over every figure alike, so the ratios compare like with like.
    """
    env = bench_env(PAPERTRACK_HOME=str(OUT / "home"))
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env}
    for args in commands.values():
        # One untimed run first: it writes the bytecode caches a real install has
        # (and brings a store's tags up to date with the current catalog).
        subprocess.run(args, check=True, **quiet)  # type: ignore[call-overload]
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, args in commands.items():
            started = time.perf_counter()
            subprocess.run(args, check=True, **quiet)  # type: ignore[call-overload]
            times[name].append(time.perf_counter() - started)
    return times


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
    built = {size: build(size) for size in sizes}
    commands: dict[str, list[str]] = {"pass": [python, "-c", "pass"]}
    for size, (path, _rate) in built.items():
        db = [python, "-m", "papertrack", "--db", str(path)]
        commands[f"latest {size}"] = [*db, "latest", opts.topic]
        commands[f"momentum {size}"] = [*db, "momentum", opts.topic, "--as-of", AS_OF]
        commands[f"trending {size}"] = [*db, "trending", "--as-of", AS_OF]
    times = timed_runs(commands, opts.runs)
    med = {name: statistics.median(t) for name, t in times.items()}
    low = {name: min(t) for name, t in times.items()}
    n = opts.runs
    print(f"python -c pass: {med['pass']:.3f} s (median of {n}, min {low['pass']:.3f})")
    for size, (path, rate) in built.items():
        papers = Store(path).count()
        index_kib = (path / "index.json").stat().st_size / 1024
        print(
            f"{size:>9,} papers: latest {opts.topic} cold {med[f'latest {size}']:.3f} s "
            f"(median of {n}, min {low[f'latest {size}']:.3f}); "
            f"store built at {rate:,.0f} papers/s; {papers:,} stored"
        )
        print(
            f"{size:>9,} papers: momentum {opts.topic} cold {med[f'momentum {size}']:.3f} s, "
            f"trending cold {med[f'trending {size}']:.3f} s (median of {n}); "
            f"index.json {index_kib:,.0f} KiB"
        )
    first = sizes[0]
    for size in sizes[1:]:
        for what in ("latest", "momentum", "trending"):
            ratio = med[f"{what} {size}"] / med[f"{what} {first}"]
            ratio_min = low[f"{what} {size}"] / low[f"{what} {first}"]
            print(
                f"ratio {what} {size:,} / {first:,}: {ratio:.2f}x (medians), "
                f"{ratio_min:.2f}x (minimums)"
            )


if __name__ == "__main__":
    main()
