"""The command line: wiring, output formats, messages and exit codes, on real recorded feeds."""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import ingest, kaggle_line, no_traceback, run
from pytest_httpserver import HTTPServer

from papertrack import __version__
from papertrack.cli import app

DATA = Path(__file__).parent / "data"
LISTING = DATA / "rss" / "atom-cs.AI-2025-08-20.first86.xml"
TRUNCATED = DATA / "rss" / "atom-cs.AI-2025-08-20.TRUNCATED.xml"
API_PAGE = DATA / "api-atom" / "arxiv.py-2026-recorded" / "q_testing_s0_m100_cfe7536492ca.xml"
API_ERROR = DATA / "api-atom" / "arxiv.py-2026-recorded" / "id_abc_s0_m100_b79c8dcf6bc3.xml"
KAGGLE = DATA / "kaggle-jsonl" / "arxiv-metadata-oai-snapshot.head200.jsonl"

SCHEMA_KEYS = {
    "arxiv_id", "version", "title", "abstract", "authors", "affiliations", "primary_category",
    "categories", "published", "updated", "announced", "doi", "journal_ref", "comment", "url",
    "pdf_url", "tags",
}  # fmt: skip


def test_version() -> None:
    result = run("--version")
    assert result.exit_code == 0
    assert result.stdout.strip() == f"papertrack {__version__}"


def test_ingest_is_idempotent_and_says_so() -> None:
    first = ingest(LISTING)
    assert "papers: 86 new, 0 updated, 0 unchanged" in first.stderr
    again = ingest(LISTING)
    assert "1 source ok; papers: 0 new, 0 updated, 86 unchanged" in again.stderr
    assert again.stdout == ""


def test_ingest_names_the_entries_it_skips_without_an_arxiv_id(tmp_path: Path) -> None:
    """A feed entry with no valid arXiv id cannot be stored: said without -v, by id,
    while the feed's other papers are stored and the exit is 0."""
    page = API_PAGE.read_text(encoding="utf-8")
    page = page.replace("2202.12139", "2202.1213").replace("2405.13786", "2413.13786")
    broken = tmp_path / "page.xml"
    broken.write_text(page, encoding="utf-8")
    result = ingest(broken)
    assert result.exit_code == 0, result.stderr
    assert "papers: 98 new" in result.stderr
    warning = next(line for line in result.stderr.splitlines() if "skipped" in line)
    assert warning.startswith("Warning: ")
    assert "skipped 2 entries without a valid arXiv id" in warning
    assert "'http://arxiv.org/abs/2202.1213v1'" in warning
    assert "'http://arxiv.org/abs/2413.13786v1'" in warning
    ids = {p["arxiv_id"] for p in json.loads(run("latest", "--json", "-n", "1000").stdout)}
    assert len(ids) == 98 and "2202.12139" not in ids
    # With -q too: a cron job hears of papers it did not store, and of nothing else.
    quiet = run("ingest", "-q", str(broken))
    assert quiet.exit_code == 0
    assert [line.split(":")[0] for line in quiet.stderr.splitlines()] == ["Warning"]


def test_a_snapshots_broken_lines_are_said_once(tmp_path: Path) -> None:
    """Broken lines are the error's; they were said again as entries without an id."""
    lines = KAGGLE.read_text(encoding="utf-8").splitlines()
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join([*lines[:50], '{"id": "cut', *lines[50:]]) + "\n", "utf-8")
    result = run("ingest", str(broken))
    assert result.exit_code == 1
    assert "skipped 1 broken line (line 51)" in result.stderr
    assert "without a valid arXiv id" not in result.stderr


@pytest.mark.parametrize(
    ("pack", "kind", "undo"),
    [
        ("zip", "a zip archive", "unzip"),
        ("bz2", "bzip2-compressed", "bunzip2 -k"),
        ("xz", "xz-compressed", "unxz -k"),
    ],
)
def test_a_packed_snapshot_is_named_with_the_command_that_unpacks_it(
    tmp_path: Path, pack: str, kind: str, undo: str, httpserver: HTTPServer
) -> None:
    """Kaggle's arXiv snapshot downloads as a zip: it was 'not an RSS/Atom feed, arXiv
    API page or JSON lines file', which said nothing of what to do."""
    import bz2
    import lzma
    import zipfile

    data = KAGGLE.read_bytes()
    packed = tmp_path / f"arxiv.{pack}"
    if pack == "zip":
        with zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("arxiv-metadata-oai-snapshot.json", data)
    else:
        packed.write_bytes(bz2.compress(data) if pack == "bz2" else lzma.compress(data))
    ingest(LISTING)
    result = run("ingest", str(packed))
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == (
        f"Error: {packed} is {kind}; papertrack reads plain and gzip data. "
        f"Unpack it first ({undo} {packed})."
    )
    # Piped or downloaded, it was "not an RSS/Atom feed": named too, with what to do.
    piped = run("ingest", "-", input=packed.read_bytes())
    stream = {"zip": "funzip", "bz2": "bunzip2", "xz": "unxz"}[pack]
    assert piped.stderr.splitlines()[0] == (
        f"Error: standard input is {kind}; papertrack reads plain and gzip data. "
        f"Unpack it in the pipe first: ... | {stream} | papertrack ingest -."
    )
    httpserver.expect_request("/arxiv").respond_with_data(packed.read_bytes())
    url = httpserver.url_for("/arxiv")
    fetched = run("ingest", url)
    assert fetched.stderr.splitlines()[0] == (
        f"Error: {url} is {kind}; papertrack reads plain and gzip data. "
        f"Download it, unpack it ({undo} FILE) and ingest the file."
    )
    again = run("ingest", str(LISTING))  # what was stored before is all there
    assert "papers: 0 new, 0 updated, 86 unchanged" in again.stderr


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be"])
def test_json_lines_in_utf16_are_refused_with_the_conversion(tmp_path: Path, codec: str) -> None:
    """What PowerShell's '>' writes: with a byte-order mark it was 'not a feed',
    without one read half, a paper lost for each 'broken line'. XML in UTF-16, which
    names its encoding, is read."""
    text = KAGGLE.read_text(encoding="utf-8")
    saved = tmp_path / "snapshot.jsonl"
    saved.write_bytes(text.encode(codec))
    result = run("ingest", str(saved))
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == (
        f"Error: {saved} is UTF-16 text; papertrack reads JSON in UTF-8. Convert it: "
        f"iconv -f UTF-16 -t UTF-8 {saved} > converted.jsonl."
    )
    page = API_PAGE.read_text(encoding="utf-8").replace("encoding='UTF-8'", "encoding='UTF-16'")
    xml = tmp_path / "page.xml"
    xml.write_bytes(page.encode(codec if codec == "utf-16" else "utf-16"))
    assert "papers: 100 new" in ingest(xml).stderr


def test_one_pretty_printed_json_record_is_refused_with_the_fix(tmp_path: Path) -> None:
    """What `jq .` prints: every line was a 'broken line', with advice to download the
    file again. A pretty-printed array of records is read."""
    record = json.loads(KAGGLE.read_text(encoding="utf-8").splitlines()[0])
    pretty = tmp_path / "one.json"
    pretty.write_text(json.dumps(record, indent=2), encoding="utf-8")
    result = run("ingest", str(pretty))
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == (
        f"Error: {pretty} is JSON spread over many lines, not JSON lines (one record a "
        f"line). Put each record on one line: jq -c . {pretty} > lines.jsonl."
    )
    listed = tmp_path / "list.json"
    listed.write_text(json.dumps([record], indent=2), encoding="utf-8")
    assert "papers: 1 new" in ingest(listed).stderr
    # A saved view (topic --json, digest --json) holds its papers inside: the fix for
    # one record led to a second error, of a "cut-off" file.
    view = tmp_path / "view.json"
    view.write_text(run("topic", "llm-agent-training", "--json").stdout, encoding="utf-8")
    line = run("ingest", str(view)).stderr.splitlines()[0]
    assert line.endswith(
        "Take the papers out of it, one a line: jq -c '.. | objects | "
        f'select(has("arxiv_id"))\' {view} > lines.jsonl.'
    ), line


def test_ingest_every_format_together() -> None:
    result = ingest(API_PAGE, LISTING, KAGGLE)
    assert "3 sources ok; papers: 386 new" in result.stderr
    data = json.loads(run("latest", "--json", "-n", "1000").stdout)
    assert len(data) == 386
    assert {p["arxiv_id"] for p in data} >= {"0704.0001", "2508.13426", "cs/0503050"}


def test_latest_json_follows_the_schema_newest_first() -> None:
    ingest(API_PAGE, LISTING)
    result = run("latest", "LLM-agent-training", "--format", "json", "-n", "50")
    assert result.exit_code == 0, result.stderr
    papers = json.loads(result.stdout)
    assert papers, "the cs.AI listing holds LLM agent training papers"
    for paper in papers:
        assert SCHEMA_KEYS <= set(paper)
        assert "llm-agent-training" in paper["tags"]
        assert isinstance(paper["authors"], list) and isinstance(paper["affiliations"], list)
    dates = [(p["paper_date"], p["arxiv_id"]) for p in papers]
    assert dates == sorted(dates, reverse=True)


def test_latest_limit_jsonl_and_csv_agree() -> None:
    ingest(API_PAGE)
    as_json = json.loads(run("latest", "-n", "7", "--json").stdout)
    lines = run("latest", "-n", "7", "-f", "jsonl").stdout.splitlines()
    assert [json.loads(line) for line in lines] == as_json
    csv_out = run("latest", "-n", "7", "-f", "csv").stdout.splitlines()
    assert csv_out[0].startswith("arxiv_id,version,paper_date")
    assert len(csv_out) == 8
    assert [row.split(",")[0] for row in csv_out[1:]] == [p["arxiv_id"] for p in as_json]


def test_latest_table_shows_the_topic_page() -> None:
    ingest(LISTING)
    result = run("latest", "llm-agent-training")
    assert result.exit_code == 0
    count = len(json.loads(run("latest", "llm-agent-training", "--json", "-n", "500").stdout))
    assert f"LLM Agent Training — latest papers ({count})" in result.stdout
    assert "Aug 20, 2025" in result.stdout
    assert "cs.AI" in result.stdout
    # authors as "A, B, C +N"
    assert re.search(r"\w+, [^,\n│]+, [^,\n│]+ \+\d+", result.stdout)
    # All of them (fewer than -n) say nothing more; fewer rows than "(N)" say they
    # are the newest of N.
    assert 2 < count < 20
    assert "The newest" not in result.stdout and result.stdout.rstrip().endswith("┘")
    some = run("latest", "llm-agent-training", "-n", "2").stdout
    assert some.rstrip().endswith(f"The newest 2 of {count} (-n sets how many).")
    cards = run("latest", "llm-agent-training", "-n", "2", "--abstract").stdout
    assert cards.rstrip().endswith(f"The newest 2 of {count} (-n sets how many).")


def test_latest_header_says_what_its_count_covers_under_filters() -> None:
    ingest(LISTING)
    whole = json.loads(run("latest", "llm-agent-training", "--json", "-n", "500").stdout)
    only = [p for p in whole if "cs.CL" in p["categories"]]
    assert 0 < len(only) < len(whole)
    result = run("latest", "llm-agent-training", "-c", "cs.CL", "-n", "500")
    assert result.exit_code == 0
    header = f"LLM Agent Training — latest papers in cs.CL (of {len(whole)} in the topic)"
    assert header in " ".join(result.stdout.split())
    assert "The newest" not in result.stdout  # fewer than -n: all that match
    exact = run("latest", "llm-agent-training", "-c", "cs.CL", "-n", str(len(only))).stdout
    assert "The newest" not in exact  # as many as -n: all that match
    # Fewer than match, of a filter the index does not count: not "of N".
    cut = run("latest", "llm-agent-training", "-c", "cs.CL", "-n", str(len(only) - 1)).stdout
    more = f"The newest {len(only) - 1} of those that match (-n sets how many)."
    assert cut.rstrip().endswith(more)
    assert len(json.loads(run("latest", "-c", "cs.CL", "-n", "2", "--json").stdout)) == 2
    since = run("latest", "llm-agent-training", "--since", "2025-08-20", "-c", "cs.CL")
    assert "latest papers since 2025-08-20 in cs.CL" in " ".join(since.stdout.split())
    # A --since that leaves nothing names the newest stored paper (a stopped fetch).
    late = run("latest", "llm-agent-training", "--since", "2100-01-01")
    assert late.exit_code == 0 and late.stdout == ""
    said = "match --since. Widen or drop that filter. The newest stored paper is from Aug "
    assert said in late.stderr  # it named --category, which was not given
    both = run("latest", "llm-agent-training", "--since", "2100-01-01", "-c", "cs.CL")
    assert "match --since and --category. Widen or drop those filters." in both.stderr
    empty = run("export", "-f", "json", "--since", "2100-01-01")
    assert empty.stdout == "[]\n"
    assert "No paper is dated 2100-01-01 or later. The newest stored paper is from Aug " in (
        empty.stderr
    )
    stored = json.loads(run("stats", "--json").stdout)["papers"]
    every = " ".join(run("latest", "-c", "cs.CL", "-n", "1").stdout.split())
    assert f"All papers — latest papers in cs.CL (of {stored} stored)" in every
    # --since alone: the index's counts per day say how many match, not just the whole.
    ingest(API_PAGE)
    every_paper = json.loads(run("latest", "--json", "-n", "1000").stdout)
    days = sorted(p["paper_date"][:10] for p in every_paper if p["paper_date"])
    day = days[len(days) // 2]
    dated = [p for p in every_paper if p["paper_date"] and p["paper_date"][:10] >= day]
    assert 0 < len(dated) < len(every_paper)
    alone = run("latest", "--since", day, "-n", "3")
    header = f"latest papers since {day}: {len(dated)} of {len(every_paper)} stored"
    assert header in " ".join(alone.stdout.split())
    assert alone.stdout.rstrip().endswith(f"The newest 3 of {len(dated)} (-n sets how many).")


def test_latest_abstract_cards_show_the_abstract() -> None:
    ingest(API_PAGE)
    papers = json.loads(run("latest", "-n", "2", "--json").stdout)
    result = run("latest", "-n", "2", "--abstract")
    assert result.exit_code == 0
    flat = " ".join(result.stdout.replace("│", " ").split())
    for paper in papers:
        assert " ".join(paper["abstract"].split()[:6]) in flat


def test_latest_since_and_category_filter() -> None:
    ingest(API_PAGE)
    every = json.loads(run("latest", "-n", "1000", "--json").stdout)
    recent = json.loads(run("latest", "-n", "1000", "--json", "--since", "2024-01-01").stdout)
    assert recent and len(recent) < len(every)
    assert all(p["paper_date"] >= "2024-01-01" for p in recent)
    assert len(recent) == sum(p["paper_date"] >= "2024-01-01" for p in every)
    cs = json.loads(run("latest", "-n", "1000", "--json", "--category", "cs.*").stdout)
    assert cs and all(any(c.startswith("cs.") for c in p["categories"]) for p in cs)
    assert len(cs) == sum(any(c.startswith("cs.") for c in p["categories"]) for p in every)


def test_relative_since_counts_back_from_the_newest_paper_of_a_store_behind(
    tmp_path: Path,
) -> None:
    """'3 weeks ago' counted from today found nothing in a store whose newest paper
    is months old (the help's examples, on the bundled sample), while the views
    measure such a store as of its newest paper's day. A date is a date."""
    from datetime import UTC, date, datetime, timedelta

    from papertrack.dates import shown_day

    ingest(LISTING)
    newest = max(p["paper_date"][:10] for p in json.loads(run("latest", "--json").stdout))
    start = date.fromisoformat(newest) - timedelta(weeks=3)
    result = run("latest", "--since", "3 weeks ago", "--json", "-n", "500")
    assert result.exit_code == 0, result.stderr
    papers = json.loads(result.stdout)
    assert papers and all(p["paper_date"][:10] >= start.isoformat() for p in papers)
    said = f"--since '3 weeks ago' counts back from it too, to {shown_day(start)}."
    assert said in result.stderr
    dated = run("latest", "--since", start.isoformat(), "--json", "-n", "500")
    assert json.loads(dated.stdout) == papers and dated.stderr == ""
    # search and ask take it so too.
    found = run("search", "agent*", "--since", "3 weeks ago", "--json", "-n", "500")
    assert json.loads(found.stdout) and said in found.stderr
    asked = run("ask", "how are agents evaluated?", "--since", "3 weeks ago", "--json")
    assert json.loads(asked.stdout)["papers"] and said in asked.stderr
    # A day named by its name is that day; export (cron's feeds) counts from today.
    for args in (["latest", "-s", "yesterday", "--json"], ["export", "-f", "json", "-s", "3w"]):
        calendar = run(*args)
        assert calendar.exit_code == 0 and "counts back" not in calendar.stderr
        assert json.loads(calendar.stdout) == [], args
    # ... and says how to count it from the newest paper, which it left an empty feed.
    told = f"export counts --since from today; --since {start.isoformat()} counts '3w'"
    assert told in calendar.stderr
    assert told in run("export", "-f", "json", "-s", "3w", "-o", str(tmp_path / "x.json")).stderr
    assert "export counts" not in run("export", "-f", "json", "-s", "2100-01-01").stderr
    # A wider span never finds fewer: '1 day ago' found none where '2 days ago' found
    # 151; and a count of 0 is today in every unit ('0w' counted back to the same day).
    one_day = run("latest", "--since", "1 day ago", "--json", "-n", "500")
    assert json.loads(one_day.stdout) and "counts back" in one_day.stderr
    for zero in ("0 days ago", "0w"):
        today = run("latest", "--since", zero, "--json")
        assert today.exit_code == 0 and "counts back" not in today.stderr, zero
        assert json.loads(today.stdout) == [], zero
    # A span past the calendar's start from that day is read from today, as given.
    far = run("latest", "--since", "739800 days ago", "--json", "-n", "500")
    assert far.exit_code == 0 and "counts back" not in far.stderr, far.stderr
    assert len(json.loads(far.stdout)) == 86
    # Of a query, what found nothing is said to be of it ("No paper is dated DAY or
    # later. The newest stored paper is from DAY." read as a contradiction).
    nothing = run("export", "-f", "json", "--query", "zebrafish", "-s", newest)
    assert f"No matching paper is dated {newest} or later." in nothing.stderr
    # A store that is current counts from today.
    lately = datetime.now(UTC) - timedelta(days=2)
    line = kaggle_line(
        "2611.00001",
        versions=[{"version": "v1", "created": f"{lately:%a, %d %b %Y} 10:00:00 GMT"}],
    )
    (tmp_path / "today.jsonl").write_text(line + "\n", encoding="utf-8")
    ingest(tmp_path / "today.jsonl")
    current = run("latest", "--since", "3 weeks ago", "--json", "-n", "500")
    assert [p["arxiv_id"] for p in json.loads(current.stdout)] == ["2611.00001"]
    assert "counts back" not in current.stderr


def test_bad_since_names_the_accepted_forms() -> None:
    result = run("latest", "--since", "the day after tomorrow-ish")
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: can't read --since")
    assert "3 weeks ago" in result.stderr and "2026-08-01" in result.stderr
    no_traceback(result)


def test_unknown_topic_suggests_close_names() -> None:
    result = run("latest", "llm-agent-trainin")
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: no topic named 'llm-agent-trainin'")
    assert "LLM Agent Training" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    no_traceback(result)


def test_topic_lookup_ignores_case_and_form() -> None:
    ingest(LISTING)
    outputs = {
        run("latest", name, "--json").stdout
        for name in (
            "LLM Agent Training",
            "llm-agent-training",
            "LLM-AGENT-TRAINING",
            "llm agent training",
        )
    }
    assert len(outputs) == 1


def test_empty_store_prints_a_hint_and_succeeds() -> None:
    result = run("latest", "llm-agent-training")
    assert result.exit_code == 0
    assert result.stdout == ""
    assert "papertrack ingest" in result.stderr
    assert run("latest", "--json").stdout.strip() == "[]"


def test_truncated_feed_keeps_whole_entries_and_fails(tmp_path: Path) -> None:
    result = run("ingest", str(TRUNCATED))
    assert result.exit_code == 1
    assert "Error:" in result.stderr and "cut off" in result.stderr
    no_traceback(result)
    stored = json.loads(run("latest", "-n", "500", "--json").stdout)
    assert len(stored) == 86  # the 87th entry was cut off mid-way and must not be stored
    other = str(tmp_path / "other-store")
    assert run("--db", other, "ingest", str(LISTING)).exit_code == 0
    whole = json.loads(run("--db", other, "latest", "-n", "500", "--json").stdout)
    assert stored == whole  # the same papers, field for field, as from the intact file


def test_failed_source_does_not_stop_the_others() -> None:
    result = run("ingest", str(API_ERROR), "missing.xml", str(LISTING))
    assert result.exit_code == 1
    assert "incorrect id format for abc" in result.stderr
    assert "Error: no such file: missing.xml" in result.stderr
    assert "1 source ok, 2 errors; papers: 86 new" in result.stderr
    no_traceback(result)
    # One source that stored nothing: its Error line is the one line (with -q too).
    for quiet in ((), ("-q",)):
        alone = run("ingest", *quiet, "missing.xml")
        assert alone.exit_code == 1
        assert alone.stderr == "Error: no such file: missing.xml. Check the path.\n"


def test_each_ingest_error_names_its_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "Error: arXiv API error: ..." and "Error: could not read the stream: ..." named
    no file: an ingest of a folder of pages, from cron, could not tell which failed."""
    broken = tmp_path / "broken.gz"
    broken.write_bytes(b"\x1f\x8b\x08\x00garbage")
    result = run("ingest", str(API_ERROR), str(broken), str(LISTING))
    assert result.exit_code == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error: ")]
    assert errors == [
        f"Error: {API_ERROR}: arXiv API error: incorrect id format for abc. Check the query "
        "or id list.",
        f"Error: {broken}: could not read the stream: Compressed file ended before the "
        "end-of-stream marker was reached. Check that the file is whole.",
    ]
    # A name the message holds for another reason ("for abc") is no naming of the file.
    named_abc = tmp_path / "abc"
    named_abc.write_bytes(API_ERROR.read_bytes())
    monkeypatch.chdir(tmp_path)
    said = run("ingest", "abc")
    assert said.stderr.startswith("Error: abc: arXiv API error: incorrect id format for abc")
    empty = run("ingest", "-", input=b"")
    assert empty.stderr == "Error: standard input is empty. Pipe a feed into papertrack.\n"


def test_ingest_from_stdin() -> None:
    result = run("ingest", "-", input=LISTING.read_bytes())
    assert result.exit_code == 0, result.stderr
    assert "86 new" in result.stderr


def _ingest_piped(data: bytes, home: Path) -> subprocess.CompletedProcess[bytes]:
    """``papertrack ingest -`` with ``data`` on a real pipe (CliRunner's stdin is a file)."""
    env = {**os.environ, "PAPERTRACK_HOME": str(home)}
    env["PYTHONPATH"] = str(Path(__file__).parent.parent)
    env.pop("PAPERTRACK_DB", None)
    command = [sys.executable, "-m", "papertrack", "ingest", "-"]
    return subprocess.run(command, input=data, capture_output=True, env=env, check=False)


def test_gzip_and_leading_blank_lines_are_read_from_a_file_a_pipe_and_stdin(
    tmp_path: Path,
) -> None:
    # Blank lines past what one peek sees (8 KB) hid the format; a gzip on stdin
    # was read as a feed of binary bytes. A broken line keeps its own number.
    lines = KAGGLE.read_bytes().splitlines(keepends=True)
    lines[4] = b"{broken\n"
    snapshot = b"\n" * 20_000 + b"".join(lines)
    listing = b"\n" * 20_000 + LISTING.read_bytes()
    plain = tmp_path / "blank.jsonl"
    plain.write_bytes(snapshot)
    for n, (data, new) in enumerate(
        [(snapshot, 199), (gzip.compress(snapshot), 199), (gzip.compress(listing), 86)]
    ):
        piped = _ingest_piped(data, tmp_path / f"pipe{n}")
        said = piped.stderr.decode()
        assert f"papers: {new} new" in said, said
        assert ("(line 20005)" in said) == (new == 199), said
        fed = run("--db", str(tmp_path / f"stdin{n}"), "ingest", "-", input=data)
        assert f"papers: {new} new" in fed.stderr, fed.stderr
    from_file = run("--db", str(tmp_path / "file"), "ingest", str(plain))
    assert "papers: 199 new" in from_file.stderr and "(line 20005)" in from_file.stderr


def test_feedparser_is_handed_a_feed_from_its_first_tag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Blank lines before the first "<" take feedparser time quadratic in their number.
    import feedparser

    handed: list[bytes] = []
    parse = feedparser.parse

    def recording(stream: Any, **options: Any) -> Any:
        data = stream.read()
        handed.append(data)
        return parse(io.BytesIO(data), **options)

    monkeypatch.setattr(feedparser, "parse", recording)
    feed = tmp_path / "blank.xml"
    feed.write_bytes(b"\xef\xbb\xbf" + b"\r\n" * 30_000 + LISTING.read_bytes())
    result = run("ingest", str(feed))
    assert "papers: 86 new" in result.stderr, result.stderr
    assert handed and all(data.removeprefix(b"\xef\xbb\xbf")[:1] == b"<" for data in handed)


def test_ingest_without_sources_is_a_usage_error() -> None:
    result = run("ingest")
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: nothing to ingest")


def test_sample_shows_llm_agent_papers() -> None:
    result = run("ingest", "--sample")
    assert result.exit_code == 0
    assert "0 errors" not in result.stderr and "sources ok" in result.stderr
    papers = json.loads(run("latest", "llm-agent-training", "--json").stdout)
    assert len(papers) >= 2
    assert all("llm-agent-training" in p["tags"] for p in papers)


HOSTILE = """<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0"><channel><title>t</title>
<item><title>[bold red]Injected[/] \u009b31mred \u202eevil</title>
<link>https://blog.example/1</link><guid>https://blog.example/1</guid>
<description>[link=http://evil]click[/link] agents</description>
<pubDate>Tue, 19 Aug 2025 10:00:00 GMT</pubDate></item>
</channel></rss>
"""


def hostile_jsonl_line() -> str:
    record = json.loads(KAGGLE.read_text(encoding="utf-8").splitlines()[0])
    record["id"] = "0704.9999"
    record["title"] = "\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\ \x1b[2J[red]cleared[/red]"
    return json.dumps(record) + "\n"


def test_feed_text_never_becomes_markup_or_escape_sequences(tmp_path: Path) -> None:
    feed = tmp_path / "hostile.xml"
    feed.write_text(HOSTILE, encoding="utf-8")
    snapshot = tmp_path / "hostile.jsonl"
    snapshot.write_text(hostile_jsonl_line(), encoding="utf-8")
    ingest(feed, snapshot)
    for args in (["latest"], ["latest", "--abstract"]):
        out = run(*args).stdout
        assert "[bold red]Injected[/]" in out
        assert "[red]cleared[/red]" in out
        for bad in ("\x1b", "\x9b", "\u202e"):
            assert bad not in out
    cards = run("latest", "--abstract").stdout
    assert "[link=http://evil]click[/link]" in cards
    raw = run("latest", "--json").stdout
    assert "\x1b" not in raw and "\x9b" not in raw


def test_path_and_db_override(
    tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = run("path")
    assert "home:" in result.stdout and str(isolated_home) in result.stdout
    assert str(isolated_home / "store") in result.stdout
    assert str(tmp_path / "x") in run("--db", str(tmp_path / "x"), "path").stdout
    monkeypatch.setenv("PAPERTRACK_DB", str(tmp_path / "y"))
    assert json.loads(run("path", "--json").stdout)["store"] == str(tmp_path / "y")
    ingest(LISTING)
    assert (tmp_path / "y" / "index.json").exists()
    assert not (isolated_home / "store").exists()
    # Relative names are made absolute: right in a cron job run from another folder.
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PAPERTRACK_HOME", "h")
    monkeypatch.delenv("PAPERTRACK_DB")
    shown = json.loads(run("path", "--json").stdout)
    assert (shown["home"], shown["store"]) == (str(tmp_path / "h"), str(tmp_path / "h" / "store"))
    assert json.loads(run("--db", "s", "path", "--json").stdout)["store"] == str(tmp_path / "s")
    assert json.loads(run("stats", "--json").stdout)["store"] == str(tmp_path / "h" / "store")


def test_db_pointing_at_a_file_is_a_clear_error(tmp_path: Path) -> None:
    f = tmp_path / "papers.json"
    f.write_text("{}")
    result = run("--db", str(f), "latest")
    assert result.exit_code == 1
    assert (
        result.stderr.startswith("Error:") and "not a papertrack store directory" in result.stderr
    )


def test_python_dash_m_and_console_script_share_the_cli(isolated_home: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "papertrack", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == f"papertrack {__version__}"


def test_every_command_has_help_with_an_example() -> None:
    for command in (
        "ingest", "fetch", "latest", "topics", "path", "momentum", "trending", "topic",
        "show", "search", "export", "follow", "unfollow", "following", "digest",
    ):  # fmt: skip
        result = run(command, "--help")
        assert result.exit_code == 0
        assert "papertrack " + command in result.stdout
        assert "Example" in result.stdout


def test_every_command_help_ends_with_the_exit_codes() -> None:
    import typer

    def walk(command: Any, path: list[str]) -> list[list[str]]:
        found = [path]
        if hasattr(command, "commands"):  # a group
            for name, sub in command.commands.items():
                found += walk(sub, [*path, name])
        return found

    paths = walk(typer.main.get_command(app), [])
    assert ["digest"] in paths and ["topics", "add"] in paths
    for path in paths:
        result = run(*path, "--help")
        assert result.exit_code == 0, path
        # show exits 1 for an id the store lacks: "also when nothing matches" was wrong.
        said = (
            "Exit codes: 0 success, 1 error (no such paper stored, too), 2 bad usage."
            if path == ["show"]
            else "Exit codes: 0 success (also when nothing matches), 1 error, 2 bad usage."
        )
        assert result.stdout.rstrip().endswith(said), path


def test_readme_documents_every_command() -> None:
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    import typer.main

    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    assert {"ingest", "latest", "stats", "doctor"} <= set(commands)
    for command in commands:
        assert f"papertrack {command}" in readme


def test_user_topics_file_adds_a_topic_and_warnings_reach_stderr(isolated_home: Path) -> None:
    isolated_home.mkdir(parents=True, exist_ok=True)
    (isolated_home / "topics.toml").write_text(
        "[[topic]]\nname = \"Benchmarks Everywhere\"\nquery = 'benchmark*'\n\n"
        '[[topic]]\nslug = "no-such-topic"\nhidden = true\n',
        encoding="utf-8",
    )
    ingest(LISTING)
    papers = json.loads(run("latest", "benchmarks-everywhere", "--json", "-n", "100").stdout)
    assert papers
    for paper in papers:
        text = (paper["title"] + " " + paper["abstract"]).lower()
        assert "benchmark" in text
    result = run("topics", "--json")
    assert "Warning:" in result.stderr and "no-such-topic" in result.stderr
    rows = {row["topic"]: row for row in json.loads(result.stdout)}
    assert rows["benchmarks-everywhere"]["source"] == "user"
    assert rows["benchmarks-everywhere"]["papers"] == len(papers)


def test_ingest_from_a_url_served_on_loopback(httpserver) -> None:  # type: ignore[no-untyped-def]
    """A real HTTP server on 127.0.0.1 replays recorded arXiv answers."""
    httpserver.expect_request("/atom/cs.AI").respond_with_data(
        LISTING.read_bytes(), content_type="application/atom+xml"
    )
    httpserver.expect_request("/api/query").respond_with_data(
        API_ERROR.read_bytes(), status=400, content_type="application/atom+xml"
    )
    httpserver.expect_request("/down").respond_with_data("Service Unavailable", status=503)
    # What a proxy sends: a web page with its 500, and a 404 for a mistyped path.
    page = "<!DOCTYPE html><html><title>500 Internal Server Error</title></html>"
    httpserver.expect_request("/proxy").respond_with_data(page, status=500)
    httpserver.expect_request("/typo").respond_with_data("<html>not here</html>", status=404)
    result = run(
        "ingest", httpserver.url_for("/atom/cs.AI"), httpserver.url_for("/api/query"),
        httpserver.url_for("/down"), httpserver.url_for("/proxy"), httpserver.url_for("/typo"),
    )  # fmt: skip
    assert result.exit_code == 1
    assert "86 new" in result.stderr
    assert "incorrect id format for abc" in result.stderr  # the error feed came with HTTP 400
    assert "HTTP 503" in result.stderr
    assert (
        '/proxy answered HTTP 500 INTERNAL SERVER ERROR with a web page titled "500 Internal '
        'Server Error". Try again later.'
    ) in result.stderr
    assert "/typo answered HTTP 404 NOT FOUND. Check the URL." in result.stderr
    no_traceback(result)
    user_agents = {req.headers.get("User-Agent", "") for req, _ in httpserver.log}
    assert all(ua.startswith(f"papertrack/{__version__}") for ua in user_agents)


def test_unwritable_store_location_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    for command in (["ingest", str(LISTING)], ["latest"]):
        result = run("--db", str(blocker / "store"), *command)
        assert result.exit_code == 1
        assert result.stderr.startswith("Error: the store cannot be at"), command
        assert "a-file is a file, not a directory" in result.stderr and "--db" in result.stderr
        no_traceback(result)
    assert blocker.read_text() == "not a directory"


def test_cross_listed_paper_in_another_listing_format_is_the_same_paper() -> None:
    ingest(LISTING)
    rss20 = DATA / "rss-derived" / "rss20-cs.AI-2025-08-20.6items.xml"
    result = ingest(rss20)
    assert "papers: 0 new, 0 updated, 6 unchanged" in result.stderr
    assert len(json.loads(run("latest", "-n", "500", "--json").stdout)) == 86


def test_concurrent_ingests_end_with_the_union(isolated_home: Path) -> None:
    """Three papertrack processes writing one store at once lose and double nothing."""
    feeds = [API_PAGE, LISTING, KAGGLE]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "papertrack", "ingest", str(feed)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for feed in feeds
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
    papers = json.loads(run("latest", "-n", "1000", "--json").stdout)
    ids = [p["arxiv_id"] for p in papers]
    assert len(ids) == len(set(ids)) == 386
    from papertrack.store import Store

    store = Store(isolated_home / "store")
    assert store.count() == 386
    assert sum(store.index().counts["*"].values()) == 386


def test_cut_off_gzip_snapshot_keeps_the_whole_lines_and_fails(tmp_path: Path) -> None:
    import gzip

    packed = gzip.compress(KAGGLE.read_bytes())
    cut = tmp_path / "snapshot.jsonl.gz"
    cut.write_bytes(packed[: len(packed) // 2])
    result = run("ingest", str(cut))
    assert result.exit_code == 1
    assert "Check that the file is whole" in result.stderr
    no_traceback(result)
    stored = json.loads(run("latest", "-n", "500", "--json").stdout)
    whole = {json.loads(line)["id"] for line in KAGGLE.read_text(encoding="utf-8").splitlines()}
    assert 0 < len(stored) < 200
    assert {p["arxiv_id"] for p in stored} <= whole


def completions(words: str) -> list[str]:
    """What bash completion offers after ``words`` (a trailing space: a new word)."""
    env = {
        **__import__("os").environ,
        "_PAPERTRACK_COMPLETE": "complete_bash",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(words.split()) - (0 if words.endswith(" ") else 1)),
    }
    done = subprocess.run(
        [sys.executable, "-m", "papertrack"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_shell_completion_offers_topic_slugs(isolated_home: Path) -> None:
    offered = completions("papertrack latest llm-a")
    assert "llm-agent-training" in offered
    assert all(slug.startswith("llm-a") for slug in offered)


def test_unfollow_completion_offers_what_is_followed_a_removed_topic_too(
    isolated_home: Path,
) -> None:
    """Every topic was offered, and a followed topic removed since, which only its
    slug unfollows, was not."""
    assert run("topics", "add", "Zebra Agents", "--query", "zebra").exit_code == 0
    for slug in ("zebra-agents", "gui-agents"):
        assert run("follow", slug).exit_code == 0
    assert run("topics", "remove", "zebra-agents").exit_code == 0
    assert sorted(completions("papertrack unfollow ")) == ["gui-agents", "zebra-agents"]
    assert completions("papertrack unfollow z") == ["zebra-agents"]
    assert "llm-agent-training" in completions("papertrack follow ll")


def test_messages_and_errors_are_logged(isolated_home: Path, tmp_path: Path) -> None:
    assert run("latest").exit_code == 0
    assert not isolated_home.exists(), "a read-only command on a fresh machine creates nothing"
    ingest(LISTING)
    run("ingest", "missing.xml")
    log = (isolated_home / "papertrack.log").read_text(encoding="utf-8").splitlines()
    assert any(line.endswith("1 source ok; papers: 86 new, 0 updated, 0 unchanged") for line in log)
    assert any("Error: no such file: missing.xml" in line for line in log)
    assert all(re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \[", line) for line in log)
    other = tmp_path / "logs" / "cron.log"
    other.parent.mkdir()  # papertrack makes no folder for a log named
    run("--log-file", str(other), "ingest", "missing.xml")
    assert "Error: no such file" in other.read_text(encoding="utf-8")


def test_the_log_is_rotated_past_its_size_and_a_named_one_is_left_alone(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Years of cron grew papertrack.log without a bound.
    from papertrack import logfile

    monkeypatch.setattr(logfile, "LOG_MAX_BYTES", 2_000)
    ingest(LISTING)
    log = isolated_home / "papertrack.log"
    log.write_text("old line\n" * 300, encoding="utf-8")  # 2,700 bytes: past the bound
    run("ingest", "missing.xml")
    rotated = isolated_home / "papertrack.log.1"
    assert rotated.read_text(encoding="utf-8") == "old line\n" * 300
    assert "Error: no such file: missing.xml" in log.read_text(encoding="utf-8")
    assert "old line" not in log.read_text(encoding="utf-8")
    # Past the bound again: the older one goes, so at most two are kept.
    log.write_text("newer line\n" * 300, encoding="utf-8")
    run("ingest", "missing.xml")
    assert rotated.read_text(encoding="utf-8") == "newer line\n" * 300
    assert sorted(p.name for p in isolated_home.glob("papertrack.log*")) == [
        "papertrack.log",
        "papertrack.log.1",
    ]
    # A log named with --log-file is the user's to rotate.
    named = tmp_path / "cron.log"
    named.write_text("mine\n" * 1_000, encoding="utf-8")
    run("--log-file", str(named), "ingest", "missing.xml")
    assert named.read_text(encoding="utf-8").startswith("mine\n" * 1_000)
    assert not (tmp_path / "cron.log.1").exists()


def test_a_log_that_cannot_be_written_is_said_once(isolated_home: Path) -> None:
    """It was skipped without a word: the morning's look at the log found nothing."""
    (isolated_home / "papertrack.log").mkdir(parents=True)
    quiet = run("ingest", "-q", str(LISTING))
    assert quiet.exit_code == 0
    assert quiet.stderr == (
        f"Warning: could not write the log {isolated_home / 'papertrack.log'}: Is a directory. "
        "Make it writable, or name another with --log-file or PAPERTRACK_LOG_FILE.\n"
    )
    failed = run("ingest", "missing.xml")
    assert failed.stderr.count("Warning: could not write the log") == 1


def test_a_log_named_in_a_folder_that_is_not_there_makes_no_folder(
    isolated_home: Path, tmp_path: Path
) -> None:
    """A mistyped PAPERTRACK_LOG_FILE made every folder of its path (as root,
    /nonexistent/dir/), and no warning said the log went somewhere unexpected."""
    named = tmp_path / "no-such" / "dir" / "cron.log"
    done = run("ingest", "-q", str(LISTING), env={"PAPERTRACK_LOG_FILE": str(named)})
    assert done.exit_code == 0
    assert done.stderr.startswith(f"Warning: could not write the log {named}: No such file")
    assert "Create its folder, or name another with --log-file" in done.stderr
    assert not (tmp_path / "no-such").exists()


def test_a_data_home_no_one_may_write_logs_nothing_and_says_nothing_of_it(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shared read-only home: every momentum, topics or digest run warned that the log
    could not be written, and cron mailed it each time."""
    import errno
    import os

    from papertrack.cli import common

    ingest(LISTING)
    real = os.open

    def read_only(path: object, *args: object, **kwargs: object) -> int:
        if str(path).endswith(".log"):
            raise OSError(errno.EROFS, "Read-only file system")
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(common.os, "open", read_only)
    shown = run("momentum", "llm-agent-training")
    assert shown.exit_code == 0 and "could not write the log" not in shown.stderr
    # A log named with --log-file is the user's choice: that one is said.
    named = run("--log-file", str(tmp_path / "cron.log"), "momentum", "llm-agent-training")
    assert "Warning: could not write the log" in named.stderr


def test_a_line_break_in_an_output_name_forges_no_line(isolated_home: Path, tmp_path: Path) -> None:
    ingest(LISTING)
    named = tmp_path / "a\nError: forged"
    result = run("export", "-f", "json", "-o", str(named))
    assert result.exit_code == 0, result.stderr
    assert result.stderr.count("\n") == 1 and "Wrote 86 papers to" in result.stderr
    assert json.loads(named.read_text(encoding="utf-8"))
    logged = (isolated_home / "papertrack.log").read_text(encoding="utf-8").splitlines()
    assert not [line for line in logged if line.startswith("Error: forged")]
    assert [line for line in logged if "[export]" in line and "forged" in line] == [
        next(line for line in logged if "[export] Wrote 86 papers to" in line)
    ]


def test_a_log_file_that_is_a_pipe_nobody_reads_never_hangs(
    isolated_home: Path, tmp_path: Path
) -> None:
    """`--log-file` on a FIFO without a reader blocked the command for good, and its
    SIGTERM too, which it went on to log: a cron job under `timeout` never ended."""
    fifo = tmp_path / "log.fifo"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "papertrack", "--log-file", str(fifo), "latest", "-n", "1"],
        capture_output=True, text=True, timeout=60, env=os.environ,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"Warning: could not write the log {fifo}: it is a pipe nothing reads." in done.stderr


def test_a_log_file_of_a_user_with_no_home_is_said_once(isolated_home: Path) -> None:
    """`--log-file '~nosuchuser/cron.log'` logged nothing and said nothing of it."""
    ingest(LISTING)
    named = "~papertrack-no-such-user/cron.log"
    done = run("--log-file", named, "ingest", str(LISTING), str(LISTING))
    assert done.exit_code == 0
    assert done.stderr.count("Warning: could not write the log") == 1
    assert (
        f"Warning: could not write the log {named}: ~papertrack-no-such-user names no "
        "user's home. Name another with --log-file or PAPERTRACK_LOG_FILE.\n"
    ) in done.stderr
    # A command writing a file checks it is not the log: that check failed with a
    # traceback (RuntimeError: Could not determine home directory), and wrote nothing.
    out = isolated_home / "out.json"
    wrote = run("--log-file", named, "export", "-f", "json", "-o", str(out))
    assert wrote.exit_code == 0, wrote.stderr
    assert len(json.loads(out.read_text(encoding="utf-8"))) == 86
    assert "Traceback" not in wrote.stderr and "Wrote 86 papers to" in wrote.stderr


def test_every_command_is_mapped_to_the_module_main_imports_for_it() -> None:
    import typer.main

    from papertrack import cli

    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    assert set(cli.COMMANDS) == set(commands)
    assert cli.command_of(["--db", "x", "-q", "latest", "--db"]) == "latest"
    assert cli.command_of(["--log-file", "latest", "ingest"]) == "ingest"
    assert cli.command_of(["--version"]) is None


def test_a_command_runs_with_only_its_own_module_imported(tmp_path: Path) -> None:
    code = (
        "import sys; from papertrack.cli import main; sys.argv = ['papertrack', '--db', "
        f"{str(tmp_path / 's')!r}, 'latest']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('papertrack.cli.')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # Shared: common (options, errors) and output (the output layer); no other command's module.
    assert done.stdout.strip().splitlines()[-1] == (
        "['papertrack.cli.common', 'papertrack.cli.output', 'papertrack.cli.papers']"
    )


def test_reading_commands_never_import_numpy_or_scipy(tmp_path: Path) -> None:
    # Ingest tags with the learned models (numpy); `latest` and `momentum`, which run
    # often and from cron, read stored tags and must not pay that import.
    snapshot = tmp_path / "s.jsonl"
    snapshot.write_text(
        kaggle_line("2508.00001", "Training LLM agents with reinforcement learning") + "\n"
    )
    store = str(tmp_path / "s")
    assert run("--db", store, "ingest", str(snapshot)).exit_code == 0
    for command in (["latest", "llm-agent-training"], ["momentum", "llm-agent-training"]):
        code = (
            "import sys; from papertrack.cli import main; "
            f"sys.argv = ['papertrack', '--db', {store!r}, *{command!r}]\n"
            "try:\n    main()\nexcept SystemExit as exit:\n    assert not exit.code, exit.code\n"
            "print(sorted(m for m in ('numpy', 'scipy') if m in sys.modules))"
        )
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
        assert done.stdout.strip().splitlines()[-1] == "[]", (command, done.stdout)


def test_counts_people_read_have_thousands_separators(tmp_path: Path) -> None:
    """Every count in a message or table reads 1,234, as the stats and topics tables do."""
    from papertrack.digest import count_text
    from papertrack.fetch import FetchReport
    from papertrack.site import SHOWN_NAMES
    from papertrack.text import names_plus, plus_more
    from tests.helpers import kaggle_line

    snapshot = tmp_path / "many.jsonl"
    snapshot.write_text(
        "".join(kaggle_line(f"2601.{n:05d}", f"Paper {n}") + "\n" for n in range(1, 1201))
    )
    result = run("ingest", str(snapshot))
    assert result.exit_code == 0, result.stderr
    assert "papers: 1,200 new, 0 updated, 0 unchanged" in result.stderr
    verbose = run("ingest", "-v", str(snapshot))
    assert "1,200 papers: 0 new, 0 updated, 1,200 unchanged" in verbose.stderr
    out = tmp_path / "all.jsonl"
    assert "Wrote 1,200 papers to" in run("export", "-f", "jsonl", "-o", str(out)).stderr
    report = FetchReport(("cs.AI",), "api", new=12_345, updated=1_000, unchanged=2)
    assert report.summary() == "cs.AI: 12,345 new, 1,000 updated, 2 unchanged"
    names = [f"Author {n}" for n in range(1_003)]
    assert names_plus(names).endswith("+1,000")
    assert plus_more(len(names), SHOWN_NAMES) == " +1,000"
    assert count_text(1_234) == "1,234 new papers"


def test_ingest_json_reports_each_source_and_still_exits_1_on_a_failed_one(
    tmp_path: Path,
) -> None:
    """A script (`papertrack ingest --json FILES | jq .new`) read the summary sentence
    off stderr; the counts are numbers on stdout now, failed sources included."""
    missing = tmp_path / "gone.xml"
    result = run("ingest", "--json", str(LISTING), str(missing))
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["ok"] is False
    assert (report["new"], report["updated"], report["unchanged"]) == (86, 0, 0)
    first, second = report["sources"]
    assert first["source"] == str(LISTING) and first["kind"] == "listing"
    assert (first["papers"], first["new"], first["error"]) == (86, 86, None)
    assert second["source"] == str(missing) and second["new"] == 0
    assert "gone.xml" in second["error"]
    assert "Error:" in result.stderr  # people still read why on stderr
    again = run("ingest", "--json", "-q", str(LISTING))
    assert again.exit_code == 0 and again.stderr == ""
    assert json.loads(again.stdout)["unchanged"] == 86
    assert json.loads(again.stdout)["ok"] is True
