"""papertrack's benchmarks: does it stay fast as the store grows to a million papers?

Builds synthetic snapshots (bench/synth.py: real titles, abstracts, author counts
and categories, seeded) of growing size, ingests each with `papertrack ingest`
as a user would (that is the bulk-import figure), copies each store into an
indexed SQLite file (bench/sqlite_ref.py) and prints, as medians of cold
processes taken round-robin:

- `latest TOPIC` and `momentum TOPIC` (and `trending`) at each size, the ratio
  largest / smallest, and the ratio to the SQLite reference at the same size;
- bulk import throughput with the default catalog's tagging, and peak memory;
- a daily ingest of 500 papers into the largest store against an empty one;
- retagging every paper after one topic changes (bench/retag.py);
- ingesting a 2000-entry API page against feedparser.parse alone on its bytes;
- `site` (every default topic, 20: index, pages and feeds) at each size, into
  a folder it rewrote before (unchanged pages are compared, not written).

It ends with the targets of issues 7 and 17 and whether this run met them.

    python bench/run.py --quick      # 10k and 100k papers, under 2 minutes
    python bench/run.py              # 10k, 100k and 1M papers (about 15 minutes)
    python bench/run.py --sizes 10000 --runs 9

Stores and snapshots are kept in bench/out/ and reused while papertrack's index
schema is the same (--rebuild builds them again).
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
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import sqlite_ref  # noqa: E402
from synth import api_page, kaggle_line, synthetic_papers  # noqa: E402

from papertrack.store import SCHEMA, Store  # noqa: E402

OUT = HERE / "out"
TOPIC = "llm-agent-training"
#: The last day of the synthetic papers (synth.py ends them in the week before 2026-11-23).
AS_OF = "2026-11-22"
DAILY = 500
DAILY_END = datetime(2026, 11, 30, tzinfo=UTC)
FEED_ENTRIES = 2000


def bench_env(**extra: str) -> dict[str, str]:
    """The environment of a timed process: as a user's shell has it, with bytecode caching on.

    PYTHONDONTWRITEBYTECODE (set in some sandboxes) would make every run compile
    papertrack's modules from source, which no installed papertrack does.
    """
    env = dict(os.environ, COLUMNS="200", **extra)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def papertrack(db: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "papertrack", "--db", str(db), *args]


# --------------------------------------------------------------------------- memory


def _tree_rss(root: int) -> int:
    """Resident bytes of ``root`` and every process below it (Linux /proc), 0 elsewhere."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in Path("/proc").iterdir() if Path("/proc/self/stat").exists() else ():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            parents[int(entry.name)] = int(fields[1])
            rss[int(entry.name)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, IndexError):
            continue
    tree, frontier = {root}, [root]
    while frontier:
        pid = frontier.pop()
        kids = [p for p, parent in parents.items() if parent == pid and p not in tree]
        tree.update(kids)
        frontier.extend(kids)
    return sum(rss.get(pid, 0) for pid in tree)


def run_measured(args: list[str], env: dict[str, str]) -> tuple[float, int]:
    """Run ``args``; returns (wall seconds, peak resident bytes of its whole process tree)."""
    started = time.perf_counter()
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, _tree_rss(proc.pid))
        time.sleep(0.25)
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(
            f"{' '.join(args)} failed:\n{proc.stderr.read().decode() if proc.stderr else ''}"
        )
    return seconds, peak


# --------------------------------------------------------------------------- stores


def snapshot(size: int) -> Path:
    """A synthetic Kaggle snapshot of ``size`` papers (JSON lines), written once."""
    path = OUT / f"snapshot-{size}.jsonl"
    if not path.exists():
        OUT.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        with tmp.open("w", encoding="utf-8") as handle:
            for paper in synthetic_papers(size):
                handle.write(kaggle_line(paper) + "\n")
        tmp.replace(path)
    return path


def build(size: int, rebuild: bool = False) -> tuple[Path, dict[str, float]]:
    """The store of ``size`` synthetic papers, ingested with `papertrack ingest`.

    Returns its path and the figures of the ingest that built it (papers/s,
    seconds, peak bytes); reused while the index schema is the same.
    """
    path = OUT / f"store-{size}"
    done = path / ".bench-complete"
    if done.exists() and not rebuild:
        try:
            figures = json.loads(done.read_text())
            if isinstance(figures, dict) and figures.get("schema") == SCHEMA:
                # A store built before the full-text index gets it once, here, as a
                # user's store does on its first command (not timed as an ingest).
                Store(path).text_index()
                return path, figures
        except ValueError:
            pass
    source = snapshot(size)
    shutil.rmtree(path, ignore_errors=True)
    env = bench_env(PAPERTRACK_HOME=str(OUT / "home"))
    seconds, peak = run_measured(papertrack(path, "ingest", "-q", str(source)), env)
    figures = {
        "schema": SCHEMA,
        "rate": size / seconds,
        "seconds": seconds,
        "peak": peak,
        "jobs": os.cpu_count() or 1,
    }
    done.write_text(json.dumps(figures))
    return path, figures


def reference(size: int, store: Path) -> Path:
    """The SQLite file holding the same papers (and tags) as ``store``."""
    db = OUT / f"sqlite-{size}.db"
    marker = OUT / f"sqlite-{size}.built"
    stamp = (store / ".bench-complete").read_text()
    if not db.exists() or not marker.exists() or marker.read_text() != stamp:
        sqlite_ref.build(store, db)
        marker.write_text(stamp)
    return db


def linked_copy(source: Path, target: Path) -> None:
    """A copy of a store that shares its files: papertrack replaces them, never edits them,
    except the full-text index, which SQLite edits in place, so it is copied."""

    def link_or_copy(src: str, dst: str) -> None:
        if Path(src).name.startswith("search.sqlite"):
            shutil.copy2(src, dst)
        else:
            os.link(src, dst)

    shutil.rmtree(target, ignore_errors=True)
    try:
        shutil.copytree(source, target, copy_function=link_or_copy)
    except OSError:
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(source, target)


# --------------------------------------------------------------------------- timing


def timed_runs(
    commands: dict[str, list[str]],
    runs: int,
    env: dict[str, str],
    before: dict[str, Callable[[], None]] | None = None,
) -> dict[str, list[float]]:
    """Wall times of ``runs`` fresh processes per command, taken round-robin.

    Interleaving the commands spreads the machine's passing noise (other tenants
    of a 2-core VM) over every figure alike, so the ratios compare like with like.
    ``before[name]``, when given, runs untimed before each run of that command.
    """
    before = before or {}
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env}
    for name, args in commands.items():
        # One untimed run first: it writes the bytecode caches a real install has
        # (and brings a store's tags up to date with the current catalog).
        if name in before:
            before[name]()
        subprocess.run(args, check=True, **quiet)  # type: ignore[call-overload]
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, args in commands.items():
            if name in before:
                before[name]()
            started = time.perf_counter()
            subprocess.run(args, check=True, **quiet)  # type: ignore[call-overload]
            times[name].append(time.perf_counter() - started)
    return times


def feed_vs_feedparser(runs: int) -> tuple[list[float], list[float]]:
    """Seconds of ingesting a 2000-entry API page, and of feedparser.parse on it, run by run."""
    import feedparser

    from papertrack.ingest import ingest_source
    from papertrack.topics import Catalog

    papers = list(synthetic_papers(FEED_ENTRIES, seed=23))
    data = api_page(papers, total=FEED_ENTRIES)
    catalog = Catalog.default()
    catalog.tag(papers[0])  # compile the catalog once, as a long ingest would have
    ingest_times, parse_times = [], []
    with tempfile.TemporaryDirectory(prefix="papertrack-feed-") as tmp:
        page = Path(tmp) / "page.xml"
        page.write_bytes(data)
        for n in range(runs + 1):
            store = Store(Path(tmp) / f"store-{n}")
            started = time.perf_counter()
            with store.writer(catalog) as writer:
                report = ingest_source(str(page), writer)
            took = time.perf_counter() - started
            assert report.new == FEED_ENTRIES and not report.error, report
            started = time.perf_counter()
            feedparser.parse(data)
            parsed = time.perf_counter() - started
            if n:  # the first of each is a warm-up
                ingest_times.append(took)
                parse_times.append(parsed)
    return ingest_times, parse_times


# --------------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="only 10k and 100k papers")
    parser.add_argument("--sizes", type=int, nargs="*", help="store sizes to measure")
    parser.add_argument("--runs", type=int, help="cold processes per figure (median)")
    parser.add_argument("--topic", default=TOPIC)
    parser.add_argument("--rebuild", action="store_true", help="build every store again")
    opts = parser.parse_args()
    sizes = sorted(
        opts.sizes or ([10_000, 100_000] if opts.quick else [10_000, 100_000, 1_000_000])
    )
    runs = opts.runs or (5 if opts.quick else 7)
    few = 3 if opts.quick else 5  # runs of the figures that take seconds each
    began = time.perf_counter()
    python = sys.executable
    env = bench_env(PAPERTRACK_HOME=str(OUT / "home"))

    built = {size: build(size, opts.rebuild) for size in sizes}
    refs = {size: reference(size, path) for size, (path, _) in built.items()}
    small, large = sizes[0], sizes[-1]

    commands: dict[str, list[str]] = {"pass": [python, "-c", "pass"]}
    for size, (path, _) in built.items():
        commands[f"latest {size}"] = papertrack(path, "latest", opts.topic)
        commands[f"momentum {size}"] = papertrack(path, "momentum", opts.topic, "--as-of", AS_OF)
        commands[f"trending {size}"] = papertrack(path, "trending", "--as-of", AS_OF)
        site_dir = OUT / f"site-{size}"
        commands[f"site {size}"] = papertrack(
            path, "site", "-q", "-o", str(site_dir), "--as-of", AS_OF
        )
        ref = [python, str(HERE / "sqlite_ref.py"), str(refs[size])]
        commands[f"sqlite latest {size}"] = [*ref, "latest", opts.topic]
        commands[f"sqlite momentum {size}"] = [*ref, "momentum", opts.topic, "--as-of", AS_OF]
    times = timed_runs(commands, runs, env)

    # A day's ingest: 500 new papers (an API page) into the largest store and into
    # an empty one, each run on a fresh copy so that every run adds the same papers.
    work = Path(tempfile.mkdtemp(prefix="papertrack-daily-", dir=OUT))
    try:
        # Dated in the week after the stores' last one, with ids no store holds yet.
        day = [
            replace(p, arxiv_id=f"2611.9{n:04d}")
            for n, p in enumerate(synthetic_papers(DAILY, seed=31, end=DAILY_END))
        ]
        page = work / "daily.xml"
        page.write_bytes(api_page(day))
        full, empty = work / "full", work / "empty"
        daily = {
            f"daily {large}": papertrack(full, "ingest", "-q", str(page)),
            "daily empty": papertrack(empty, "ingest", "-q", str(page)),
        }
        prepare = {
            f"daily {large}": lambda: linked_copy(built[large][0], full),
            "daily empty": lambda: shutil.rmtree(empty, ignore_errors=True),
        }
        times.update(timed_runs(daily, runs, env, prepare))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    retag = subprocess.run(
        [python, str(HERE / "retag.py"), "--size", str(min(large, 100_000)), "--runs", str(few)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout.strip()
    # Each run takes seconds in this process, where the noise of a shared machine
    # weighs more than on cold starts: as many runs as the cold figures.
    feed_runs = feed_vs_feedparser(runs)
    feed_ingest, feed_parse = (statistics.median(t) for t in feed_runs)
    feed_best = min(feed_runs[0]) / min(feed_runs[1])

    med = {name: statistics.median(t) for name, t in times.items()}
    low = {name: min(t) for name, t in times.items()}
    print(f"{os.cpu_count()} cores; medians of {runs} cold processes, taken round-robin")
    print(f"python -c pass: {med['pass']:.3f} s")
    for size, (path, figures) in built.items():
        papers = Store(path).count()
        print(
            f"{size:>9,} papers: latest {med[f'latest {size}']:.3f} s "
            f"(sqlite {med[f'sqlite latest {size}']:.3f} s), "
            f"momentum {med[f'momentum {size}']:.3f} s "
            f"(sqlite {med[f'sqlite momentum {size}']:.3f} s), "
            f"trending {med[f'trending {size}']:.3f} s; {papers:,} stored"
        )
        print(
            f"{size:>9,} papers: bulk import {figures['rate']:,.0f} papers/s "
            f"({figures['seconds']:.1f} s, {int(figures['jobs'])} jobs, "
            f"peak memory {figures['peak'] / 2**20:,.0f} MiB for all its processes)"
        )
    for size in sizes:
        topics = len(list((OUT / f"site-{size}").glob("*.xml")))
        print(f"{size:>9,} papers: site of {topics} topics {med[f'site {size}']:.3f} s")
    for what in ("latest", "momentum", "trending"):
        print(
            f"ratio {what} {large:,} / {small:,}: "
            f"{med[f'{what} {large}'] / med[f'{what} {small}']:.2f}x (medians), "
            f"{low[f'{what} {large}'] / low[f'{what} {small}']:.2f}x (minimums)"
        )
    print(
        f"daily ingest of {DAILY} papers: {med[f'daily {large}']:.3f} s into {large:,}, "
        f"{med['daily empty']:.3f} s into an empty store"
    )
    print(retag)
    print(
        f"{FEED_ENTRIES}-entry API page: ingest {feed_ingest:.2f} s, "
        f"feedparser.parse alone {feed_parse:.2f} s (medians of {runs}; "
        f"{feed_best:.2f}x by minimums)"
    )

    rate = built[large][1]["rate"]
    targets = [
        (f"latest {large:,} / {small:,}", med[f"latest {large}"] / med[f"latest {small}"], 1.3),
        (
            f"momentum {large:,} / {small:,}",
            med[f"momentum {large}"] / med[f"momentum {small}"],
            1.3,
        ),
        (
            f"latest / sqlite at {large:,}",
            med[f"latest {large}"] / med[f"sqlite latest {large}"],
            2.0,
        ),
        (
            f"momentum / sqlite at {large:,}",
            med[f"momentum {large}"] / med[f"sqlite momentum {large}"],
            2.0,
        ),
        (f"daily ingest {large:,} / empty", med[f"daily {large}"] / med["daily empty"], 1.5),
        ("feed ingest / feedparser.parse", feed_ingest / feed_parse, 1.3),
    ]
    print("\ntargets (issues 7 and 17), measured in this run:")
    for name, ratio, limit in targets:
        verdict = "met" if ratio <= limit else "MISSED"
        print(f"  {name:<34} {ratio:5.2f}x  (target <= {limit}x)  {verdict}")
    seconds = med[f"site {large}"]
    name = f"site of 20 topics at {large:,}"
    print(f"  {name:<34} {seconds:5.2f} s  (target <= 5 s)  {'met' if seconds <= 5 else 'MISSED'}")
    verdict = "met" if rate >= 10_000 else "MISSED"
    name = f"bulk import at {large:,}"
    print(f"  {name:<34} {rate:,.0f} papers/s  (target >= 10,000)  {verdict}")
    print(f"\nbench/run.py took {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
