"""Benchmark: how long the first command takes after one topic's definition changed.

Editing a topic (by hand or with `papertrack topics add --replace`) changes its
fingerprint; the next command that answers from tags retags that topic on every
stored paper. This builds (or reuses) bench/out/store-100000 with bench/run.py's
``build()``, copies it (the original keeps the default tags), then, in fresh
processes, alternates a user topics file between two definitions of one topic
and times `papertrack --db COPY topics`, which retags before it answers. The
same command with nothing to retag is the baseline.

    python bench/retag.py              # 100k papers, 5 runs
    python bench/retag.py --size 10000 --runs 3
"""

from __future__ import annotations

import argparse
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

from run import bench_env, build  # noqa: E402

from papertrack.store import Store  # noqa: E402

TOPIC = "llm-agent-training"
# Two definitions of one topic, used in turn, so that every run has a change to retag.
QUERIES = ("agent* AND (train* OR benchmark*)", "agent* AND (train* OR evaluat*)")
TOPICS_FILE = """\
# bench/retag.py: one topic redefined
[[topic]]
name = "LLM Agent Training"
query = '{query}'
"""


def timed(args: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size", type=int, default=100_000, help="papers in the store")
    parser.add_argument("--runs", type=int, default=5, help="cold processes per figure (median)")
    opts = parser.parse_args()

    source, _ = build(opts.size)
    with tempfile.TemporaryDirectory(prefix="papertrack-retag-") as tmp:
        home, store = Path(tmp) / "home", Path(tmp) / "store"
        home.mkdir()
        shutil.copytree(source, store)
        env = bench_env(PAPERTRACK_HOME=str(home))
        args = [sys.executable, "-m", "papertrack", "--db", str(store), "topics"]
        topics_file = home / "topics.toml"
        retag, still = [], []
        for run in range(opts.runs):
            query = QUERIES[run % 2]
            topics_file.write_text(TOPICS_FILE.format(query=query), encoding="utf-8")
            retag.append(timed(args, env))
            still.append(timed(args, env))
        papers = Store(store).count()
        tagged = Store(store).count(TOPIC)
    print(
        f"{papers:,} papers: retag one topic ({TOPIC}) on the next command, cold: "
        f"{statistics.median(retag):.2f} s (median of {opts.runs}; "
        f"min {min(retag):.2f}, max {max(retag):.2f}); {tagged:,} papers match its last query"
    )
    baseline = statistics.median(still)
    print(f"{papers:,} papers: the same command with nothing to retag: {baseline:.2f} s")


if __name__ == "__main__":
    main()
