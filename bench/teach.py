"""Benchmark: `topics teach` on a store of real papers: refit, retag, and the two apart.

`topics teach` refits the topic's model (cross-validated over the ~13,145 labelled
train papers shipped in data/labels, plus the examples; numpy and scipy) and
retags every stored paper with it. The first refit and the first retag by a model
on a store keep every paper's features as ids (the store's vectors/ folder, see
papertrack/vectors.py); later ones read those instead of the text. This times, in
fresh processes:

* the first teach on a copy of the store without its vectors (it makes them);
* then ``topics teach llm-agent-training IN --not OUT`` (refit and retag) and
  ``topics teach llm-agent-training --forget`` (back to the shipped model: retag
  only), alternately, with one process and with the default number of workers
  (``PAPERTRACK_WORKERS``, default one per core, at most 8).

The store is built once from a Kaggle-format snapshot of real papers
(``--snapshot``, e.g. the 83,510-paper 40-week corpus) into bench/out/teach-home,
or given as an existing data home (``--home``, copied, never changed).

    python bench/teach.py --snapshot corpus.jsonl.gz
    python bench/teach.py --home ~/.local/share/papertrack --runs 3
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOPIC = "llm-agent-training"


def papertrack(home: Path, *args: str, workers: str | None = None) -> tuple[float, str]:
    env = dict(os.environ, PAPERTRACK_HOME=str(home), NO_COLOR="1")
    env.pop("PAPERTRACK_DB", None)
    if workers is not None:
        env["PAPERTRACK_WORKERS"] = workers
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "papertrack", *args],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return time.perf_counter() - started, done.stdout + done.stderr


def build(snapshot: str) -> Path:
    home = HERE / "out" / "teach-home"
    if not (home / "store").is_dir():
        print(f"building {home} from {snapshot} ...", flush=True)
        papertrack(home, "ingest", snapshot, "-q")
    return home


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--snapshot", help="Kaggle-format snapshot of real papers to build from")
    where.add_argument("--home", type=Path, help="an existing data home (copied)")
    parser.add_argument("--runs", type=int, default=3, help="runs per figure (median)")
    opts = parser.parse_args()

    source = opts.home if opts.home is not None else build(opts.snapshot)
    with tempfile.TemporaryDirectory(prefix="papertrack-teach-") as tmp:
        home = Path(tmp) / "home"
        shutil.copytree(
            source, home, ignore=shutil.ignore_patterns("examples.json", "models", "vectors")
        )
        papertrack(home, "stats")  # retags anything out of date before timing starts
        _, out = papertrack(home, "latest", "--json", "-n", "200")
        papers = json.loads(out[out.index("[") :])
        stored = int(json.loads(papertrack(home, "stats", "--json")[1])["papers"])
        inside = next(p["arxiv_id"] for p in papers if TOPIC in p["tags"])
        outside = next(p["arxiv_id"] for p in papers if TOPIC not in p["tags"])
        print(f"{stored:,} stored papers; teaching {TOPIC} {outside} --not {inside}")
        first = papertrack(home, "topics", "teach", TOPIC, outside, "--not", inside)[0]
        kept = sum(f.stat().st_size for f in (home / "store" / "vectors").iterdir())
        print(
            f"first teach on the store, default workers: {first:.1f} s "
            f"(it keeps the papers' vectors: {kept / 1e6:.0f} MB)"
        )
        papertrack(home, "topics", "teach", TOPIC, "--forget")
        for workers in ("1", None):
            teach, forget = [], []
            for _ in range(opts.runs):
                teach.append(
                    papertrack(
                        home, "topics", "teach", TOPIC, outside, "--not", inside, workers=workers
                    )[0]
                )
                forget.append(
                    papertrack(home, "topics", "teach", TOPIC, "--forget", workers=workers)[0]
                )
            label = "1 process" if workers == "1" else f"default workers ({os.cpu_count()} cores)"
            print(
                f"{label}: teach (refit + retag) {statistics.median(teach):.1f} s, "
                f"--forget (retag only) {statistics.median(forget):.1f} s "
                f"(medians of {opts.runs})"
            )


if __name__ == "__main__":
    main()
