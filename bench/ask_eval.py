"""How well `ask` ranks papers, on 20 questions judged by hand against the real corpus.

    python bench/ask_eval.py CORPUS.jsonl.gz [--store DIR]

CORPUS is the 40-week daily-listings corpus the labels were drawn from (see
data/labels/SOURCES.md); it is ingested once into DIR (default
bench/out/ask-store). The questions and the judgements are in data/labels/ask/
(how they were made: data/labels/ask/METHOD.md). For each question, asked of the
whole store and of its topic, the top 10 papers of `ask`'s ranking are scored:

* MRR: 1 / the rank of the first judged-relevant paper (0 when none is in the top 10);
* P@10: judged-relevant papers in the top 10, out of 10;
* R@10: judged-relevant papers in the top 10, out of min(10, relevant papers known);
* unjudged: top-10 papers nobody judged (counted as not relevant above, so the
  figures are lower bounds where the relevant lists are incomplete);

and, of the answer's quoted sentences (8 papers, 5 sentences), how many come from
papers judged relevant.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from papertrack.ask import answer_question, rank_papers  # noqa: E402
from papertrack.store import Store  # noqa: E402

JUDGED = ROOT / "data" / "labels" / "ask" / "judgments.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus")
    parser.add_argument("--store", default=str(ROOT / "bench" / "out" / "ask-store"))
    args = parser.parse_args()
    home = Path(args.store)
    store_dir = home / "store"
    if not (store_dir / "index.json").exists():
        env = {**os.environ, "PAPERTRACK_HOME": str(home)}
        subprocess.run(
            [sys.executable, "-m", "papertrack", "ingest", args.corpus], env=env, check=True
        )
    store = Store(store_dir)
    questions = [json.loads(line) for line in JUDGED.read_text("utf-8").splitlines() if line]
    print(f"{store.count():,} papers; {len(questions)} questions")
    print("| scope | MRR | P@10 | R@10 | unjudged in top 10 |")
    print("|---|---:|---:|---:|---:|")
    for scope in ("store", "topic"):
        mrr = p10 = r10 = unjudged = 0.0
        for q in questions:
            relevant = set(q["relevant"])
            judged = relevant | set(q["judged_not_relevant"])
            topic = q["topic"] if scope == "topic" else None
            top = [
                r.paper.arxiv_id for r in rank_papers(store, q["question"], topic=topic, limit=10)
            ]
            first = next((n for n, pid in enumerate(top, 1) if pid in relevant), None)
            mrr += 1 / first if first else 0.0
            hits = sum(pid in relevant for pid in top)
            p10 += hits / 10
            r10 += hits / min(10, len(relevant))
            unjudged += sum(pid not in judged for pid in top) / 10
        n = len(questions)
        print(f"| {scope} | {mrr / n:.2f} | {p10 / n:.2f} | {r10 / n:.2f} | {unjudged / n:.0%} |")
    # What the answer quotes: its sentences come from the 8 papers drawn on, and the
    # more of them from papers judged relevant, the more of the answer answers.
    for scope in ("store", "topic"):
        quoted = relevant_quoted = 0
        for q in questions:
            topic = q["topic"] if scope == "topic" else None
            answer = answer_question(store, q["question"], topic=topic, papers=8, sentences=5)
            cited = {c.n: c.paper.arxiv_id for c in answer.papers}
            quoted += len(answer.sentences)
            relevant_quoted += sum(cited[s.cite] in set(q["relevant"]) for s in answer.sentences)
        print(
            f"answer sentences ({scope}): {relevant_quoted} of {quoted} quoted from papers "
            "judged relevant"
        )


if __name__ == "__main__":
    main()
