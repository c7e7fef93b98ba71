"""follow, unfollow, following and digest: over feeds ingested on successive simulated days."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from xml.sax.saxutils import escape

import pytest
from helpers import error_line, ingest, run
from typer.testing import CliRunner

from papertrack.cli import app
from papertrack.digest import DigestState, build_digest, markdown_escape
from papertrack.models import Paper
from tests.htmlcheck import Elements

HOSTILE = "*bold* [x](javascript:alert(1)) <script>alert(2)</script> zebra"
NOW = datetime.now(UTC).replace(microsecond=0)

# (arxiv_id, version, title, days before now, authors)
Entry = tuple[str, int, str, int, list[str]]


def api_feed(path: Path, entries: list[Entry]) -> Path:
    """An arXiv API Atom page of the given papers, dated relative to now."""
    body = ""
    for arxiv_id, version, title, age, authors in entries:
        day = (NOW - timedelta(days=age)).strftime("%Y-%m-%dT%H:%M:%SZ")
        names = "".join(f"<author><name>{escape(a)}</name></author>" for a in authors)
        body += (
            f"<entry><id>http://arxiv.org/abs/{arxiv_id}v{version}</id>"
            f"<updated>{day}</updated><published>{day}</published>"
            f"<title>{escape(title)}</title><summary>An abstract.</summary>{names}"
            '<arxiv:primary_category term="cs.AI"/><category term="cs.AI"/>'
            '<category term="cs.LG"/></entry>'
        )
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">'
        "<id>http://arxiv.org/api/test</id><title>t</title>"
        f"<updated>{NOW:%Y-%m-%dT%H:%M:%SZ}</updated>{body}</feed>",
        encoding="utf-8",
    )
    return path


@pytest.fixture(autouse=True)
def topics(isolated_home: Path) -> None:
    isolated_home.mkdir(parents=True, exist_ok=True)
    (isolated_home / "topics.toml").write_text(
        "[[topic]]\nname = \"Zebra Studies\"\nquery = 'zebra*'\n\n"
        "[[topic]]\nname = \"Stripe Science\"\nquery = 'stripe*'\n",
        encoding="utf-8",
    )


def follow(*names: str) -> None:
    result = run("follow", *names)
    assert result.exit_code == 0, result.stderr


def digest_json(*args: str) -> dict:
    result = run("digest", "--format", "json", "--empty-ok", *args)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def ids(data: dict) -> list[str]:
    return [p["arxiv_id"] for t in data["topics"] for p in t["papers"]]


# --------------------------------------------------------------------------- follow


def test_follow_unfollow_following(isolated_home: Path) -> None:
    follow("zebra studies", "STRIPE-SCIENCE", "zebra-studies")
    listed = json.loads(run("following", "--json").stdout)
    assert listed == [
        {"topic": "zebra-studies", "name": "Zebra Studies", "missing": False, "skipped": False},
        {"topic": "stripe-science", "name": "Stripe Science", "missing": False, "skipped": False},
    ]
    assert run("following").stdout.splitlines() == [
        "Zebra Studies (zebra-studies)",
        "Stripe Science (stripe-science)",
    ]
    assert json.loads((isolated_home / "following.json").read_text())["topics"] == [
        "zebra-studies",
        "stripe-science",
    ]
    gone = run("unfollow", "Zebra Studies", "zebra-studies")
    assert gone.exit_code == 0, gone.stderr
    # Named as follow names it, once.
    assert gone.stderr == "Unfollowed Zebra Studies (zebra-studies).\n"
    assert [t["topic"] for t in json.loads(run("following", "--json").stdout)] == ["stripe-science"]
    again = run("unfollow", "zebra-studies")
    assert again.stderr == "Not following Zebra Studies (zebra-studies).\n"


def test_following_an_unknown_topic_is_a_usage_error(isolated_home: Path) -> None:
    result = run("follow", "zebra-studies", "zebra-studys")
    assert result.exit_code == 2
    assert "Error:" in result.stderr and "zebra-studies" in result.stderr  # a suggestion
    assert not (isolated_home / "following.json").exists()  # nothing half-done
    assert run("unfollow", "no-such-thing").exit_code == 2


def test_digest_without_followed_topics_is_a_usage_error() -> None:
    result = run("digest")
    assert result.exit_code == 2
    assert "papertrack follow" in result.stderr


def test_a_digest_of_followed_topics_that_are_all_gone_says_so(isolated_home: Path) -> None:
    # "you follow no topic" (exit 2) was untrue: the topic is followed, and gone.
    follow("zebra-studies")
    assert run("topics", "remove", "zebra-studies").exit_code == 0
    result = run("digest", "--empty-ok")
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert lines[0].startswith("Warning: you follow 'zebra-studies', which is no longer a topic")
    assert lines[-1].startswith("Error: no topic you follow is a topic any more")


# --------------------------------------------------------------------------- days


def test_successive_days_no_paper_twice_none_missing(tmp_path: Path, isolated_home: Path) -> None:
    follow("zebra-studies", "stripe-science")
    ingest(
        api_feed(
            tmp_path / "day1.xml",
            [
                ("2611.00001", 1, "Zebra one", 3, ["A"]),
                ("2611.00002", 1, "Zebra two", 2, ["A", "B"]),
                ("2611.00003", 1, "Stripes one", 2, ["C"]),
                ("2610.00009", 1, "Zebra too old for the first digest", 20, ["D"]),
            ],
        )
    )
    first = digest_json()
    assert ids(first) == ["2611.00002", "2611.00001", "2611.00003"]  # newest first per topic
    state = json.loads((isolated_home / "digest-state.json").read_text())
    assert sorted(state["digested"]) == ["2611.00001", "2611.00002", "2611.00003"]

    # Day 2: a new version of a day-1 paper, a re-fetch of another, and new papers.
    ingest(
        api_feed(
            tmp_path / "day2.xml",
            [
                ("2611.00001", 2, "Zebra one, revised", 3, ["A"]),
                ("2611.00003", 1, "Stripes one", 2, ["C"]),
                ("2611.00004", 1, "Zebra four", 1, ["E"]),
                ("2611.00005", 1, "Stripes five", 0, ["F"]),
                ("2611.00006", 1, "Zebra six, dated before the first digest", 6, ["G"]),
            ],
        )
    )
    second = digest_json()
    assert sorted(ids(second)) == ["2611.00004", "2611.00005", "2611.00006"]
    assert ids(second)[:2] == ["2611.00004", "2611.00006"]  # newest first within the topic
    third = digest_json()
    assert ids(third) == []
    assert third["topics"][0]["momentum_text"]  # the sentence is there even when empty
    # The old paper never comes: nothing dated before the first digest's 7-day window.
    shown = ids(first) + ids(second)
    assert len(shown) == len(set(shown))
    assert "2610.00009" not in shown


def test_paper_in_two_topics_appears_once_with_other_tags(tmp_path: Path) -> None:
    follow("stripe-science", "zebra-studies")
    ingest(
        api_feed(
            tmp_path / "f.xml",
            [
                ("2611.00010", 1, "Zebra stripes explained", 1, ["A", "B", "C", "D", "E"]),
                ("2611.00011", 1, "Zebra only", 1, ["A"]),
            ],
        )
    )
    data = digest_json("--dry-run")
    assert [t["topic"] for t in data["topics"]] == ["stripe-science", "zebra-studies"]
    assert [p["arxiv_id"] for p in data["topics"][0]["papers"]] == ["2611.00010"]
    assert [p["arxiv_id"] for p in data["topics"][1]["papers"]] == ["2611.00011"]
    text = run("digest", "--dry-run").stdout
    assert text.count("Zebra stripes explained") == 1
    assert "Also in: Zebra Studies" in text
    assert "A, B, C +2" in text
    assert "cs.AI" in text and "https://arxiv.org/abs/2611.00010" in text
    assert "\x1b" not in text
    md = run("digest", "--dry-run", "--format", "markdown").stdout
    assert "Also in: Zebra Studies" in md
    short = json.loads(run("digest", "--dry-run", "--json").stdout)  # short for --format json
    assert ids(short) == ids(data) and short["topics"] == data["topics"]


def test_dry_run_does_not_move_the_mark_and_since_shows_again(
    tmp_path: Path, isolated_home: Path
) -> None:
    follow("zebra-studies")
    ingest(api_feed(tmp_path / "f.xml", [("2611.00020", 1, "Zebra", 1, ["A"])]))
    assert ids(digest_json("--dry-run")) == ["2611.00020"]
    assert not (isolated_home / "digest-state.json").exists()
    assert ids(digest_json("--dry-run")) == ["2611.00020"]
    assert ids(digest_json()) == ["2611.00020"]
    assert ids(digest_json()) == []
    since = (NOW - timedelta(days=3)).strftime("%Y-%m-%d")
    again = digest_json("--since", since)
    assert ids(again) == ["2611.00020"]
    assert again["since"].startswith(since)
    later = (NOW + timedelta(days=1)).strftime("%Y-%m-%d")
    assert ids(digest_json("--since", later)) == []


def test_empty_digest_prints_nothing_or_nothing_new(tmp_path: Path) -> None:
    follow("zebra-studies")
    ingest(api_feed(tmp_path / "f.xml", [("2611.00030", 1, "Unrelated", 1, ["A"])]))
    for fmt in ("text", "markdown", "json"):
        result = run("digest", "--format", fmt)
        assert result.exit_code == 0, result.stderr
        assert result.stdout == ""
    result = run("digest", "--empty-ok")
    assert result.exit_code == 0
    assert result.stdout.startswith("papertrack digest, ") and "Nothing new." in result.stdout
    markdown = run("digest", "--empty-ok", "-f", "markdown").stdout
    assert markdown.startswith("# papertrack digest, ") and "Nothing new." in markdown
    html = run("digest", "--empty-ok", "-f", "html").stdout
    assert html.lstrip().lower().startswith("<!doctype html")


def test_a_first_empty_digest_says_what_it_covered_and_an_empty_store_is_named(
    tmp_path: Path, isolated_home: Path
) -> None:
    """The first digest ever said "Nothing new since the last digest", of none; and
    a digest of a store with no papers printed nothing at all, as a quiet day does."""
    follow("zebra-studies")
    ingest(api_feed(tmp_path / "f.xml", [("2611.00032", 1, "Unrelated", 1, ["A"])]))
    target = tmp_path / "first.md"
    first = run("digest", "-f", "markdown", "-o", str(target))
    week = (NOW - timedelta(days=7)).strftime("%Y-%m-%d")
    assert first.stderr == (
        f"Nothing new dated {week} or later: wrote an empty digest to {target}\n"
    ), first.stderr
    again = run("digest", "-f", "markdown", "-o", str(target))
    assert again.stderr.startswith("Nothing new since the last digest: wrote an empty digest")
    elsewhere: dict[str, str | None] = {"PAPERTRACK_HOME": str(tmp_path / "no-papers")}
    assert run("follow", "llm-agent-training", env=elsewhere).exit_code == 0
    empty = run("digest", env=elsewhere)
    assert empty.exit_code == 0 and empty.stdout == ""
    assert empty.stderr.startswith("Warning: no papers in the store yet. Run 'papertrack ingest")
    assert run("digest", "-q", env=elsewhere).stderr == empty.stderr  # said to cron too


def test_an_empty_digest_replaces_the_file_in_the_format_asked(tmp_path: Path) -> None:
    follow("zebra-studies")
    ingest(api_feed(tmp_path / "f.xml", [("2611.00031", 1, "Zebra stripes", 1, ["A"])]))
    target = tmp_path / "digest.html"
    assert run("digest", "-f", "html", "-o", str(target)).exit_code == 0
    assert "Zebra stripes" in target.read_text(encoding="utf-8")
    again = run("digest", "-f", "html", "-o", str(target))  # nothing new since
    assert again.exit_code == 0
    assert again.stderr == (
        f"Nothing new since the last digest: wrote an empty digest to {target}\n"
    )
    text = target.read_text(encoding="utf-8")
    assert "Zebra stripes" not in text  # a cron job never mails the old digest again
    assert text.lstrip().lower().startswith("<!doctype html")


def test_markdown_escapes_hostile_feed_text(tmp_path: Path) -> None:
    follow("zebra-studies")
    ingest(api_feed(tmp_path / "f.xml", [("2611.00040", 1, HOSTILE, 1, ["<b>Eve</b> *x*"])]))
    md = run("digest", "--format", "markdown", "--dry-run").stdout
    line = next(x for x in md.splitlines() if "bold" in x)
    assert r"\*bold\*" in line
    assert r"\[x\](javascript:alert(1))" in line  # no "[" opens a link: nothing to follow
    assert "&lt;script>" in line  # "\<" is a backslash and raw HTML to Python-Markdown
    # Each "<" of a tag and "[" of a link is escaped: a renderer shows them as text.
    assert not re.search(r"(?<!\\)(?:<script>|<b>|\[x\]\(javascript)", md)
    assert "(https://arxiv.org/abs/2611.00040)" in line
    assert markdown_escape("a|b#c`d_e\\f") == r"a\|b#c\`d_e\\f"  # "#", "_" inside words: plain
    assert markdown_escape("two\nlines") == "two lines"


def test_json_shape(tmp_path: Path) -> None:
    follow("zebra-studies", "stripe-science")
    ingest(api_feed(tmp_path / "f.xml", [("2611.00050", 1, "Zebra", 1, ["A"])]))
    data = digest_json("--dry-run")
    assert {"generated", "since", "topics"} <= set(data)
    datetime.fromisoformat(data["generated"])
    assert data["since"] is not None  # the first digest's 7-day window
    zebra, stripe = data["topics"]
    assert set(zebra) == {"topic", "name", "momentum", "momentum_text", "papers", "shown_above"}
    assert (zebra["topic"], zebra["name"]) == ("zebra-studies", "Zebra Studies")
    assert zebra["momentum_text"].endswith(".")
    # The momentum object of the stable schema, as `momentum --json` gives it.
    alone = json.loads(run("momentum", "zebra-studies", "--json").stdout)
    assert zebra["momentum"] == alone
    # Times as a paper's are written: UTC to the second, with "Z".
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", data["generated"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", data["since"])
    paper = zebra["papers"][0]
    assert paper["arxiv_id"] == "2611.00050" and paper["title"] == "Zebra"
    assert paper["authors"] == ["A"] and paper["primary_category"] == "cs.AI"
    assert stripe["papers"] == []


def test_the_digests_momentum_keeps_its_cautions(tmp_path: Path) -> None:
    """ "down 53%" from a store a few weeks old came without the note that most of the
    four weeks before had no data; the digest now carries the cautions `momentum` shows."""
    follow("zebra-studies")
    entries: list[Entry] = [("2611.00070", 1, "Zebra one", 1, ["A"])]
    entries += [(f"2611.0008{n}", 1, f"Zebra old {n}", 33, ["A"]) for n in range(3)]
    ingest(api_feed(tmp_path / "f.xml", entries))
    shown = run("momentum", "zebra-studies", "--json")
    assert shown.exit_code == 0, shown.stderr
    measured = json.loads(shown.stdout)
    assert any(note.startswith("No data for") for note in measured["notes"])
    sentence = digest_json("--dry-run")["topics"][0]["momentum_text"]
    assert sentence == " ".join([measured["summary"], *measured["notes"]])


def test_a_digest_whose_newest_days_hold_no_paper_yet_is_measured_to_the_newest(
    tmp_path: Path,
) -> None:
    """On a Monday, as of today, the windows count today as a day of none: momentum
    says so and names the --as-of that ends them at the newest paper; the digest,
    which has no --as-of, measures as of that day itself and says so."""
    follow("zebra-studies")
    entries: list[Entry] = [(f"2611.001{n:02d}", 1, f"Zebra {n}", n, ["A"]) for n in range(1, 15)]
    ingest(api_feed(tmp_path / "f.xml", entries))
    measured = json.loads(run("momentum", "zebra-studies", "--json").stdout)
    newest = (NOW - timedelta(days=1)).date()
    assert any(note.startswith("No paper is dated") for note in measured["notes"])
    assert f"--as-of {newest.isoformat()} ends them" in " ".join(measured["notes"])
    topic = digest_json("--dry-run")["topics"][0]
    assert topic["momentum"]["as_of"] == newest.isoformat()
    assert topic["momentum_text"].startswith(f"As of {newest:%b} {newest.day}, {newest.year}:")
    assert "No paper is dated" not in topic["momentum_text"]
    again = json.loads(
        run("momentum", "zebra-studies", "--json", "--as-of", newest.isoformat()).stdout
    )
    assert topic["momentum"] == again


def test_output_is_written_atomically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    follow("zebra-studies")
    ingest(api_feed(tmp_path / "f.xml", [("2611.00060", 1, "Zebra", 1, ["A"])]))
    target = tmp_path / "out" / "digest.md"
    target.parent.mkdir()
    replaced: list[tuple[str, str]] = []
    real_replace = os.replace

    def spy(src: str, dst: str) -> None:
        replaced.append((str(src), str(dst)))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    result = run("digest", "--format", "markdown", "-o", str(target))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    assert "Zebra" in target.read_text(encoding="utf-8")
    assert any(dst == str(target) and src != dst for src, dst in replaced)
    assert [p.name for p in target.parent.iterdir()] == ["digest.md"]  # no temp file left


def test_a_digest_file_that_cannot_be_written_marks_nothing(
    tmp_path: Path, isolated_home: Path
) -> None:
    """A wrong folder or a failed write used up the whole digest: the mark was saved
    before the file was written. Now the file and the mark are put in place together."""
    follow("zebra-studies")
    ingest(api_feed(tmp_path / "f.xml", [("2611.00062", 1, "Zebra", 1, ["A"])]))
    missing = run("digest", "-o", str(tmp_path / "no-such-folder" / "d.txt"))
    assert missing.exit_code == 2 and "Create it" in missing.stderr
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder", encoding="utf-8")
    failed = run("digest", "-o", str(blocked / "d.txt"))
    assert failed.exit_code != 0 and failed.stderr.startswith("Error: ")
    assert not (isolated_home / "digest-state.json").exists()
    # The mark cannot be saved (its name is taken by a folder): the file is not
    # replaced either, so what a job mails is never a digest that was not marked.
    target = tmp_path / "digest.txt"
    target.write_text("the last digest\n", encoding="utf-8")
    (isolated_home / "digest-state.json").mkdir()
    unsaved = run("digest", "-o", str(target))
    assert unsaved.exit_code == 1 and "digest-state.json" in unsaved.stderr
    assert target.read_text(encoding="utf-8") == "the last digest\n"
    left = sorted(p.name for p in tmp_path.iterdir() if p != isolated_home)
    assert left == ["a-file", "digest.txt", "f.xml"]  # no temp file either
    (isolated_home / "digest-state.json").rmdir()
    done = run("digest", "-o", str(target))
    assert done.exit_code == 0 and "Zebra" in target.read_text(encoding="utf-8")
    assert run("digest", "--dry-run").stdout == ""  # shown once, and now marked


def test_digest_into_a_pipe_whose_reader_is_gone_is_not_reported_written_or_marked(
    tmp_path: Path, isolated_home: Path
) -> None:
    """`-o /dev/stdout` into a pipe nobody reads: exit 0, but no "Wrote a digest" line,
    which the whole digest written says, and no mark moved."""
    follow("zebra-studies")
    ingest(api_feed(tmp_path / "f.xml", [("2611.00061", 1, "Zebra", 1, ["A"])]))
    command = [sys.executable, "-m", "papertrack", "digest", "--dry-run", "-o", "/dev/stdout"]
    into, out = os.pipe()
    os.close(into)  # the reader is gone before the first byte
    gone = subprocess.run(command, stdout=out, stderr=subprocess.PIPE, env=os.environ)
    os.close(out)
    assert gone.returncode == 0, gone.stderr
    assert b"Wrote" not in gone.stderr and b"Error" not in gone.stderr
    whole = subprocess.run(command, capture_output=True, env=os.environ)
    assert b"Zebra" in whole.stdout and b"Wrote a digest of 1 paper" in whole.stderr
    # A reader gone before the digest was all written (`| head`, a mail command that
    # died) did not take it: the mark goes back, and the papers come again next time.
    for args in ([], ["-o", "/dev/stdout"]):
        into, out = os.pipe()
        os.close(into)
        unread = subprocess.run(
            [*command[:4], *args], stdout=out, stderr=subprocess.PIPE, env=os.environ
        )
        os.close(out)
        assert unread.returncode == 0, unread.stderr
        assert "Zebra" in run("digest", "--dry-run").stdout, args
        # The new mark was dropped with its group, never put in place and back.
        assert list(isolated_home.glob(".digest-state.json.*")) == []
        # Not an error, so not on stderr; but the log says what became of it.
        logged = (isolated_home / "papertrack.log").read_text(encoding="utf-8")
        said = "The digest's reader stopped before its end: nothing is marked as shown"
        assert logged.count(said) == len(args) // 2 + 1, args
    assert "Zebra" in run("digest").stdout  # read whole: marked
    assert run("digest", "--dry-run").stdout == ""


def test_a_digest_stopped_by_a_signal_while_a_reader_is_slow_marks_nothing(
    tmp_path: Path, isolated_home: Path
) -> None:
    # `digest | mail` with a mail command that stalls, stopped by cron's timeout or a
    # shutdown: 804 papers were marked shown and 25 delivered, and never came again.
    import signal

    follow("zebra-studies")
    entries: list[Entry] = [
        (f"2611.{n:05d}", 1, f"Zebra number {n} " + "stripes " * 20, n % 5, ["A"])
        for n in range(100, 500)
    ]
    ingest(api_feed(tmp_path / "f.xml", entries))
    state = isolated_home / "digest-state.json"
    assert not state.exists()
    digest = subprocess.Popen(
        [sys.executable, "-m", "papertrack", "digest", "--format", "json"],
        stdout=subprocess.PIPE,  # not read: the write blocks once the pipe is full
        stderr=subprocess.PIPE,
        env=os.environ,
    )
    _wait_for_the_staged_mark(isolated_home)
    digest.send_signal(signal.SIGTERM)
    _, stderr = digest.communicate(timeout=60)
    assert digest.returncode == 143, stderr
    assert (
        b"Stopped by SIGTERM. This digest is not marked as shown: the next one shows its papers."
        in stderr
    )
    assert b"Traceback" not in stderr
    assert not state.exists()  # the mark as it was: none
    assert list(isolated_home.glob(".digest-state.json.*")) == []
    again = digest_json("--dry-run")
    assert sorted(ids(again)) == sorted(e[0] for e in entries)


def _wait_for_the_staged_mark(home: Path) -> None:
    """Until a digest has written its new mark to a temp file (before the digest, which
    then blocks on a pipe no one reads), and half a second more."""
    import time

    deadline = time.monotonic() + 60
    while not list(home.glob(".digest-state.json.*.tmp")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list(home.glob(".digest-state.json.*.tmp")), "the digest never wrote its mark"
    time.sleep(0.5)


def test_a_digest_killed_while_a_reader_is_slow_marks_nothing(
    tmp_path: Path, isolated_home: Path
) -> None:
    """`digest | mail` killed by SIGKILL (`timeout -s KILL`, the OOM killer, systemd's
    last resort), which no handler sees, while the mail command was slow: 1,613 papers
    were marked shown and 296 delivered, and the next digest was empty."""
    import signal

    follow("zebra-studies")
    ingest(api_feed(tmp_path / "a.xml", [("2611.00090", 1, "Zebra first", 1, ["A"])]))
    assert "Zebra first" in run("digest").stdout
    state = isolated_home / "digest-state.json"
    old = state.read_bytes()
    entries: list[Entry] = [
        (f"2611.{n:05d}", 1, f"Zebra number {n} " + "stripes " * 20, n % 5, ["A"])
        for n in range(100, 500)
    ]
    ingest(api_feed(tmp_path / "f.xml", entries))
    digest = subprocess.Popen(
        [sys.executable, "-m", "papertrack", "digest", "--format", "json"],
        stdout=subprocess.PIPE,  # not read: the write blocks once the pipe is full
        stderr=subprocess.PIPE,
        env=os.environ,
    )
    _wait_for_the_staged_mark(isolated_home)
    digest.send_signal(signal.SIGKILL)
    digest.communicate(timeout=60)
    assert digest.returncode == -signal.SIGKILL
    assert state.read_bytes() == old
    again = digest_json("--dry-run")
    assert sorted(ids(again)) == sorted(e[0] for e in entries)
    assert len(list(isolated_home.glob(".digest-state.json.*.tmp"))) == 1
    # The next digest marks them, and deletes what the killed one left.
    assert sorted(ids(digest_json())) == sorted(e[0] for e in entries)
    assert state.read_bytes() != old
    assert list(isolated_home.glob(".digest-state.json.*")) == []


# --------------------------------------------------------------------------- pure core


def _paper(arxiv_id: str, age: int, tags: tuple[str, ...]) -> Paper:
    return Paper(arxiv_id=arxiv_id, title=arxiv_id, published=NOW - timedelta(days=age), tags=tags)


def test_a_year_of_weekly_digests_keeps_its_state_bounded_and_shows_each_paper_once(
    tmp_path: Path,
) -> None:
    # Every id ever shown was kept, and every paper since the first digest read again:
    # two broad topics over eleven months, 4.6 s a digest and a 1 MB state file.
    from papertrack.digest import KEEP_DAYS, load_state, save_state, window_start

    start = datetime(2026, 1, 5, 9, tzinfo=UTC)
    papers: list[Paper] = []
    state, shown = DigestState(), []
    sizes = []
    for week in range(52):
        now = start + timedelta(weeks=week)
        # 30 papers a day of the week just gone, and one dated 20 days back that a
        # backfill brought in only now (still new: it is inside the kept days).
        for day in range(7):
            dated = now - timedelta(days=day + 1)
            papers += [
                Paper(arxiv_id=f"{week:02d}.{day}.{n:02d}", title="t", published=dated, tags=("x",))
                for n in range(30)
            ]
        papers.append(
            Paper(
                arxiv_id=f"{week:02d}.late",
                title="t",
                published=now - timedelta(days=20),
                tags=("x",),
            )
        )
        floor = window_start(state, now)
        candidates = [p for p in papers if p.published >= floor]  # type: ignore[operator]
        digest = build_digest([("x", "X")], {"x": candidates}, state, now)
        shown += digest.arxiv_ids()
        state = DigestState.after(state, digest)
        save_state(tmp_path / "state.json", state)
        state = load_state(tmp_path / "state.json")
        sizes.append((tmp_path / "state.json").stat().st_size)
    assert len(shown) == len(set(shown))  # never a paper twice
    late = [pid for pid in shown if pid.endswith(".late")]
    # Every late one but those of the first two weeks, dated before the first window.
    assert len(late) == 50 and late[0] == "02.late"
    # The window and what is remembered reach KEEP_DAYS back, not to the first digest.
    assert state.floor is not None and now - state.floor <= timedelta(days=KEEP_DAYS + 1)
    assert len(state.digested) <= (KEEP_DAYS // 7 + 1) * (7 * 30 + 1)
    assert sizes[-1] < sizes[12] * 1.2  # flat after the kept days fill up
    # A state of an older papertrack (ids without their day) still loads, and its ids
    # count as shown on its last digest's day.
    old = tmp_path / "old.json"
    old.write_text(
        json.dumps({"last_digest": NOW.isoformat(), "floor": None, "digested": ["a", "b"]}),
        encoding="utf-8",
    )
    loaded = load_state(old)
    assert loaded.digested == {"a", "b"} and loaded.shown == {}
    kept = loaded.after(build_digest([("x", "X")], {"x": []}, loaded, NOW + timedelta(days=1)))
    assert kept.shown == {"a": NOW.date(), "b": NOW.date()}
    forgotten = kept.after(
        build_digest([("x", "X")], {"x": []}, kept, NOW + timedelta(days=KEEP_DAYS + 2))
    )
    assert forgotten.digested == set()
    # The kept days count back from the store's newest paper, not the clock: with
    # fetching stopped for months and digests still running, the papers fetched once
    # it resumed fell behind the floor (52 of 188 in a simulated run), for good.
    later = NOW + timedelta(days=150)
    stalled = kept.after(build_digest([("x", "X")], {"x": []}, kept, later), NOW.date())
    assert stalled.floor == kept.floor and stalled.digested == {"a", "b"}
    moved = kept.after(build_digest([("x", "X")], {"x": []}, kept, later))  # by the clock
    assert moved.floor is not None and moved.floor > kept.floor  # type: ignore[operator]
    # An old papertrack reads the state written now: the ids stay a list.
    save_state(tmp_path / "new.json", kept)
    written = json.loads((tmp_path / "new.json").read_text(encoding="utf-8"))
    assert sorted(written["digested"]) == ["a", "b"]
    assert written["shown_on"] == {NOW.date().isoformat(): ["a", "b"]}
    # A paper dated after the day it was shown is remembered until its own date ages.
    ahead = Paper(arxiv_id="f", title="t", published=NOW + timedelta(days=30), tags=("x",))
    shown = DigestState().after(build_digest([("x", "X")], {"x": [ahead]}, DigestState(), NOW))
    assert shown.shown == {"f": (NOW + timedelta(days=30)).date()}


def test_build_digest_is_pure_and_dedupes() -> None:
    a = _paper("1", 1, ("x", "y"))
    b = _paper("2", 2, ("y",))
    old = _paper("3", 30, ("x",))
    topics = [("x", "X"), ("y", "Y")]
    papers = {"x": [old, a], "y": [b, a]}
    first = build_digest(topics, papers, DigestState(), NOW)
    assert [[p.arxiv_id for p in s.papers] for s in first.sections] == [["1"], ["2"]]
    state = DigestState().after(first)
    assert state.digested == {"1", "2"} and state.last == NOW
    # The window starts at the start of the day 7 days back, as its header says.
    week_ago = NOW - timedelta(days=7)
    assert state.floor == datetime(week_ago.year, week_ago.month, week_ago.day, tzinfo=UTC)
    # Later: undigested papers dated after the first window's start, however late they came.
    late = _paper("4", 6, ("y",))
    later = build_digest(topics, {**papers, "y": [b, a, late]}, state, NOW + timedelta(days=9))
    assert later.arxiv_ids() == ["4"]
    again = build_digest(topics, papers, state, NOW, since=NOW - timedelta(days=5))
    assert again.arxiv_ids() == ["1", "2"]


# --------------------------------------------------------------------------- html

HTML_HOSTILE = ["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "]]>"]


def test_html_digest_is_escaped_and_self_contained(tmp_path: Path) -> None:
    follow("zebra-studies", "stripe-science")
    title = "Zebra stripes " + " ".join(HTML_HOSTILE)
    ingest(
        api_feed(
            tmp_path / "f.xml",
            [
                ("2611.00070", 1, title, 1, [HTML_HOSTILE[1], "B"]),
                ("2611.00071", 1, "Stripes galore", 2, ["C"]),
                ("2611.00072", 1, "Stripes only", 9, ["D"]),  # counted in the chart only
            ],
        )
    )
    result = run("digest", "--format", "html", "--dry-run")
    assert result.exit_code == 0, result.stderr
    page = result.stdout
    assert "<script" not in page.lower() and "onerror=" not in page.replace("onerror=alert", "")
    assert "<img" not in page.lower() and "<link" not in page.lower()
    assert 'src="http' not in page and "src=" not in page.replace("src=x", "")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;" in page
    assert "]]&gt;" in page and "]]>" not in page
    assert "@import" not in page and "url(" not in page and "<style" not in page
    urls = set(re.findall(r"https?://[^\s\"'<>]+", page))
    assert urls == {"https://arxiv.org/abs/2611.00070", "https://arxiv.org/abs/2611.00071"}

    checker = Elements(page)
    assert checker.problems == [] and checker.stack == []
    tags = [t for t, _ in checker.tags]
    assert tags.count("svg") == 2  # one chart per topic with new papers
    assert set(tags) <= {
        "html", "head", "meta", "title", "body", "table", "tr", "td", "h1", "h2", "p",
        "span", "a", "svg", "rect", "line", "text",
    }  # fmt: skip
    for tag, attrs in checker.tags:
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)
        if tag == "a":
            assert (attrs["href"] or "").startswith("https://arxiv.org/abs/")
    # The hostile text comes out as the text it was, in the title and the authors.
    assert title in checker.text
    assert HTML_HOSTILE[1] + ", B" in checker.text
    assert "Also in: Stripe Science" in checker.text
    # Two charts of 12 weekly bars, with week labels; the week of today is marked as
    # partial unless today is its Sunday (then the week is whole).
    rects = [a for t, a in checker.tags if t == "rect"]
    assert len(rects) == 24
    today = datetime.now(UTC).date()
    monday = today - timedelta(days=today.weekday())
    assert checker.text.count(f"{monday:%b} {monday.day}") == 2  # the newest week, named
    partial = [a for a in rects if a.get("stroke-dasharray")]
    if today.weekday() == 6:
        assert partial == [] and "the week so far" not in page
    else:
        assert len(partial) == 2 and checker.text.count("Dashed last bar: the week so far") == 2
    assert run("digest", "--format", "html").stdout == page  # the same, then the mark moves
    assert run("digest", "--format", "html").stdout == ""  # empty: nothing for cron to mail


def test_html_chart_geometry() -> None:
    from datetime import date

    from papertrack.digest_html import CHART_HEIGHT, chart

    weeks = [(date(2026, 1, 5) + timedelta(weeks=i), c) for i, c in enumerate([None, 0, 2, 4])]
    made = chart(weeks, week_labels=True)  # the digest's chart
    heights = [b.height for b in made.bars]
    assert heights == [1, 1, CHART_HEIGHT // 2, CHART_HEIGHT]
    assert [b.no_data for b in made.bars] == [True, False, False, False]
    assert made.summary == "no data, 0, 2, 4" and made.peak == 4
    assert all(b.y + b.height == CHART_HEIGHT for b in made.bars)
    # Every other week is labelled, counted back from the newest, which is named at
    # the chart's right edge; no week is partial unless the caller says so.
    assert [(w.text, w.anchor) for w in made.labels] == [("Jan 12", "middle"), ("Jan 26", "end")]
    assert made.labels[-1].x == made.width
    assert not any(b.partial for b in made.bars) and made.note == ""


def test_week_labels_name_the_year_of_a_week_before_the_new_one() -> None:
    """A chart across New Year labelled "Dec 22" and "Jan 5" alike: the digest's and
    the site's labels, and the week each bar names, now give an earlier year, as the
    terminal's chart and momentum's sentence do."""
    from datetime import date

    from papertrack.dates import shown_span, shown_week
    from papertrack.digest_html import chart

    weeks = [(date(2025, 12, 15) + timedelta(weeks=i), 3) for i in range(5)]
    made = chart(weeks, week_labels=True)
    assert [w.text for w in made.labels] == ["Dec 15, 2025", "Dec 29, 2025", "Jan 12"]
    assert [b.week for b in made.bars[1::3]] == ["Dec 22, 2025", "Jan 12"]
    assert shown_week(date(2026, 1, 12), date(2026, 1, 14)) == "Jan 12"
    assert shown_span(date(2025, 12, 15), date(2026, 1, 11)) == "Dec 15, 2025 – Jan 11, 2026"
    assert shown_span(date(2026, 9, 2), date(2026, 9, 29)) == "Sep 2 – Sep 29, 2026"


def test_html_chart_marks_the_partial_week() -> None:
    from datetime import date

    from papertrack.digest_html import PARTIAL_NOTE, chart

    weeks = [(date(2026, 1, 5) + timedelta(weeks=i), i) for i in range(12)]
    made = chart(weeks, partial_last=True, week_labels=True)
    assert [b.partial for b in made.bars] == [False] * 11 + [True]
    assert made.note == PARTIAL_NOTE == "the week so far"
    assert made.bars[-1].label == "week of 2026-03-23: 11 papers (the week so far)"
    assert made.summary.endswith("10, 11 (the week so far)")
    assert [w.text for w in made.labels] == [
        "Jan 12",
        "Jan 26",
        "Feb 9",
        "Feb 23",
        "Mar 9",
        "Mar 23",
    ]
    assert made.note_y < made.height  # the note has a line of its own inside the chart
    assert chart(weeks) == chart(weeks, partial_last=False)  # the old call is unchanged


# --------------------------------------------------------------------------- two at once


def slowed_at_once(function: str, *commands: list[str]) -> list[bytes]:
    """The standard output of ``commands``, run at once, each in its own process, with
    papertrack.digest's ``function`` made to sleep 0.5 s first (so that, without a
    lock, each would read what the others are about to change); each must succeed."""
    slow = (
        f"import time; from papertrack import digest as d; real = d.{function}; "
        f"d.{function} = lambda *a: (time.sleep(0.5), real(*a))[1]; "
        "from papertrack.cli import main; main()"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)}
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", slow, *command],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        for command in commands
    ]
    outputs = [r.communicate(timeout=120) for r in runs]
    assert [r.returncode for r in runs] == [0] * len(runs), [e.decode() for _, e in outputs]
    return [out for out, _ in outputs]


def test_two_digests_at_once_never_show_a_paper_twice(tmp_path: Path) -> None:
    follow("zebra-studies", "stripe-science")
    entries: list[Entry] = [
        (f"2611.{n:05d}", 1, f"Zebra number {n}", n % 5, ["A"]) for n in range(100, 160)
    ]
    ingest(api_feed(tmp_path / "f.xml", entries))
    # Each run dawdles between building its digest and saving the state, so that two runs
    # without the lock would both build from the same state and show the same papers.
    command = ["digest", "--format", "json", "--empty-ok"]
    outputs = slowed_at_once("save_state", command, command)
    shown = [ids(json.loads(out)) for out in outputs]
    assert sorted(shown[0] + shown[1]) == sorted(e[0] for e in entries)  # each exactly once
    assert not set(shown[0]) & set(shown[1])


def test_digest_waits_for_the_lock_a_bounded_time(
    tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from papertrack.files import Lock

    follow("zebra-studies")
    ingest(api_feed(tmp_path / "f.xml", [("2611.00080", 1, "Zebra", 1, ["A"])]))
    held = Lock(isolated_home / "digest.lock", 1)
    held.acquire()
    try:
        monkeypatch.setenv("PAPERTRACK_LOCK_TIMEOUT", "0.2")
        result = run("digest")
        assert result.exit_code == 1
        assert "digest lock" in result.stderr and "PAPERTRACK_LOCK_TIMEOUT" in result.stderr
        assert not (isolated_home / "digest-state.json").exists()
        assert "Waiting" not in result.stderr  # under a second: nothing to say
        # Waited a second, it says so (a second teach sat silent behind the first).
        monkeypatch.setenv("PAPERTRACK_LOCK_TIMEOUT", "1.5")
        waited = run("digest")
        assert waited.exit_code == 1
        assert waited.stderr.splitlines()[0] == (
            "Waiting for another papertrack process to release the digest lock "
            "(for at most 1.5 s)..."
        )
        # With -q, the wait goes to the log alone: cron mailed it for a night that
        # went well.
        quiet = run("digest", "-q")
        assert quiet.exit_code == 1
        assert "Waiting" not in quiet.stderr and quiet.stderr.startswith("Error: ")
        log = (isolated_home / "papertrack.log").read_text(encoding="utf-8")
        assert log.count("[digest] Waiting for another papertrack process") == 2
        monkeypatch.setenv("PAPERTRACK_LOCK_TIMEOUT", "soon")
        assert run("digest").exit_code == 2
    finally:
        held.release()
    monkeypatch.setenv("PAPERTRACK_LOCK_TIMEOUT", "5")
    assert "2611.00080" in run("digest").stdout


def test_quiet_follow_and_digest_print_nothing_on_success(tmp_path: Path) -> None:

    runner = CliRunner()
    followed = runner.invoke(app, ["follow", "-q", "llm-agent-training"])
    assert followed.exit_code == 0 and followed.stderr == ""
    # A store with papers (one without any is warned of, -q or not).
    ingest(api_feed(tmp_path / "f.xml", [("2611.00040", 1, "Unrelated", 1, ["A"])]))
    out = tmp_path / "d.md"
    result = runner.invoke(app, ["digest", "-q", "--format", "markdown", "--output", str(out)])
    assert result.exit_code == 0 and result.stderr == ""
    gone = runner.invoke(app, ["unfollow", "-q", "llm-agent-training"])
    assert gone.exit_code == 0 and gone.stderr == ""


HOSTILE_MARKDOWN = [
    "*star* **bold** _under_ __dunder__ `tick` ``two``",
    "[x](javascript:alert(1)) ![img](https://evil.example/t.png) [ref]: https://evil.example",
    "<script>alert(1)</script> <img src=x onerror=alert(2)> <!-- c --> <https://evil.example>",
    "see https://evil.example/x, www.evil.example and mail eve@evil.example",
    "&lt;b&gt; &#60;i&#62; &amp; ~~struck~~ ~one~ |a|b| $x^2$ \\*not* a\\",
]
LINE_STARTS = ["# Heading", "## H2 ##", "- item", "+ item", "* item", "1. one", "12) twelve",
               "> quote", "---", "===", "<div>block</div>"]  # fmt: skip
ORDINARY = [
    "2026-11-24", "cs.AI", "cs.LG + stat.ML", "100% of 5: done.", "state-of-the-art",
    "snake_case_names", "Q&A", "p < 0.05", "C++ and C#", "Self-Play (SPIRAL): v2.0!",
    "What's new? \"Quotes\" = fine", "O'Brien, J.-P. Dupont",
]  # fmt: skip


def _render(markdown: str) -> Elements:
    from markdown_it import MarkdownIt

    # CommonMark with GitHub's strikethrough and tables: raw HTML passes through.
    return Elements(MarkdownIt("commonmark").enable(["strikethrough", "table"]).render(markdown))


@pytest.mark.parametrize("text", HOSTILE_MARKDOWN + LINE_STARTS)
def test_markdown_escape_keeps_hostile_text_inert(text: str) -> None:
    # As the digest places it: at the start of a list item's line, and inside a bold link.
    source = f"- **[x](https://arxiv.org/abs/1)**  \n  {markdown_escape(text, line_start=True)}\n"
    page = _render(source)
    assert page.problems == [] and page.stack == []
    assert [tag for tag, _ in page.tags] == ["ul", "li", "strong", "a", "br"], page.tags
    assert page.hrefs() == ["https://arxiv.org/abs/1"]
    shown = " ".join(page.text.split())
    assert shown == "x " + " ".join(text.split()), shown
    # Python-Markdown reads "\\<" as a backslash and raw HTML: no element from the
    # text there either (it may show a stray backslash, but nothing runs or links).
    import markdown

    other = Elements(markdown.markdown(source))
    assert {tag for tag, _ in other.tags} <= {"ul", "li", "strong", "a", "br", "p"}, other.tags
    assert other.hrefs() == ["https://arxiv.org/abs/1"]
    # GFM's extended autolinks (not in markdown-it's CommonMark) need a bare
    # scheme, "www." or "name@host": an escaped ":" "." or "@" breaks each.
    bare = markdown_escape(text)
    assert not re.search(r"(?i)\b(?:https?|ftp)://|\bwww\.\w|\w@[\w-]+\.\w", bare), bare


@pytest.mark.parametrize("text", ORDINARY)
def test_markdown_escape_leaves_ordinary_text_alone(text: str) -> None:
    assert markdown_escape(text) == text
    assert markdown_escape(text, line_start=True) == text
    assert markdown_escape("2026-11-24") == "2026-11-24" and markdown_escape("cs.AI") == "cs.AI"


def test_the_first_digest_holds_every_paper_of_its_first_day() -> None:
    """Papers are dated to the day: the first window starts at that day's start, not
    at the clock time a week before (which left them out, and for good)."""
    now = datetime(2026, 12, 3, 16, 13, 7, tzinfo=UTC)
    first_day = Paper(
        arxiv_id="5", title="5", published=datetime(2026, 11, 26, tzinfo=UTC), tags=("x",)
    )
    before = Paper(
        arxiv_id="6", title="6", published=datetime(2026, 11, 25, 23, tzinfo=UTC), tags=("x",)
    )
    digest = build_digest([("x", "X")], {"x": [first_day, before]}, DigestState(), now)
    assert digest.arxiv_ids() == ["5"]
    # A window an older papertrack kept at the clock time holds that day's papers too.
    kept = DigestState(last=now, digested=set(), floor=datetime(2026, 11, 26, 16, 13, tzinfo=UTC))
    assert build_digest([("x", "X")], {"x": [first_day]}, kept, now).arxiv_ids() == ["5"]
    # Months into daily digests, not: that day's papers are months old, not new.
    later = now + timedelta(days=90)
    assert not build_digest([("x", "X")], {"x": [first_day]}, kept, later).arxiv_ids()
    fresh = Paper(arxiv_id="7", title="7", published=later - timedelta(days=1), tags=("x",))
    assert build_digest([("x", "X")], {"x": [fresh]}, kept, later).arxiv_ids() == ["7"]


def test_a_topic_followed_later_starts_a_week_before_it_was_followed() -> None:
    """Following a topic a month into daily digests shows its last week, not its month."""
    floor = NOW - timedelta(days=40)  # the first digest was 33 days ago
    state = DigestState(last=NOW - timedelta(days=1), digested=set(), floor=floor)
    papers = {
        "x": [_paper("1", 30, ("x",)), _paper("2", 2, ("x",))],
        "y": [_paper("3", 30, ("y",)), _paper("4", 6, ("y",)), _paper("5", 9, ("y",))],
    }
    topics = [("x", "X"), ("y", "Y")]
    followed = {"x": floor, "y": NOW - timedelta(days=1)}  # y followed yesterday
    digest = build_digest(topics, papers, state, NOW, followed=followed)
    assert [[p.arxiv_id for p in s.papers] for s in digest.sections] == [["2", "1"], ["4"]]
    # Without a time (followed by an older papertrack) it starts at the first window.
    unknown = build_digest(topics, papers, state, NOW, followed={"x": floor})
    assert unknown.arxiv_ids() == ["2", "1", "4", "5", "3"]
    # --since shows what it names, whenever the topic was followed.
    since = build_digest(topics, papers, state, NOW, since=floor, followed=followed)
    assert since.arxiv_ids() == ["2", "1", "4", "5", "3"]


def test_following_after_a_month_of_digests_does_not_flood_the_next(
    tmp_path: Path, isolated_home: Path
) -> None:
    follow("zebra-studies")
    listing = json.loads((isolated_home / "following.json").read_text())
    assert set(listing["followed"]) == {"zebra-studies"}
    # As if zebra was followed, and the first digest made, 40 days ago.
    long_ago = (NOW - timedelta(days=40)).isoformat()
    listing["followed"]["zebra-studies"] = long_ago
    (isolated_home / "following.json").write_text(json.dumps(listing))
    (isolated_home / "digest-state.json").write_text(
        json.dumps({"last_digest": NOW.isoformat(), "floor": long_ago, "digested": []})
    )
    ingest(
        api_feed(
            tmp_path / "month.xml",
            [
                ("2611.00001", 1, "Zebra of the month", 20, ["A"]),
                ("2611.00002", 1, "Stripes of the month", 20, ["B"]),
                ("2611.00003", 1, "Stripes of the week", 3, ["C"]),
            ],
        )
    )
    result = run("follow", "stripe-science")
    assert result.exit_code == 0, result.stderr
    assert "last 7 days" in result.stderr
    data = digest_json()
    assert ids(data) == ["2611.00001", "2611.00003"]
    assert run("unfollow", "zebra-studies").exit_code == 0
    kept = json.loads((isolated_home / "following.json").read_text())
    assert kept["topics"] == ["stripe-science"] and list(kept["followed"]) == ["stripe-science"]


def test_a_topic_redefined_since_the_last_digest_does_not_flood_the_next(
    tmp_path: Path, isolated_home: Path
) -> None:
    """A teach or a broader query of a followed topic put every paper it newly took,
    back to the floor two months before the last digest, into the next digest (17
    papers of seven weeks in a simulated cron run). As for a topic just followed,
    only those dated in the week before the last digest or later are new."""
    from papertrack.topics import Catalog

    follow("zebra-studies")
    listing = json.loads((isolated_home / "following.json").read_text())
    listing["followed"]["zebra-studies"] = (NOW - timedelta(days=90)).isoformat()
    (isolated_home / "following.json").write_text(json.dumps(listing))
    definition = Catalog.of_home().fingerprints()["zebra-studies"]
    (isolated_home / "digest-state.json").write_text(
        json.dumps(
            {
                "last_digest": (NOW - timedelta(days=1)).isoformat(),
                "floor": (NOW - timedelta(days=60)).isoformat(),
                "digested": [],
                "definitions": {"zebra-studies": definition},
            }
        )
    )
    ingest(
        api_feed(
            tmp_path / "papers.xml",
            [
                ("2611.00001", 1, "Zebra, fetched late", 40, ["A"]),
                ("2611.00002", 1, "Stripes of last month", 40, ["B"]),
                ("2611.00003", 1, "Stripes of the week", 3, ["C"]),
            ],
        )
    )
    assert ids(digest_json("--dry-run")) == ["2611.00001"]  # as defined: new
    replaced = run("topics", "add", "Zebra Studies", "--replace", "--query", "zebra* OR stripe*")
    assert replaced.exit_code == 0, replaced.stderr
    # The note on stderr for a digest written to a file; on standard output the
    # digest ends with the same line (cron mailed both).
    out = tmp_path / "digest.json"
    dry = run("digest", "--format", "json", "--dry-run", "-o", str(out))
    assert "are not shown as new. " in " ".join(dry.stderr.split())  # and marked: not so
    assert "and marked as shown" not in dry.stderr
    assert run("digest", "--format", "json", "--dry-run").stderr == ""
    shown = run("digest", "--format", "json", "-o", str(out))
    assert shown.exit_code == 0 and ids(json.loads(out.read_text())) == ["2611.00003"]
    said = " ".join(shown.stderr.split())
    assert (
        "Note: Zebra Studies changed since the last digest (taught, redefined or upgraded), "
        "so it starts as if just followed: 2 papers of it dated before "
    ) in said
    assert "and not shown yet are not shown as new, and marked as shown." in said
    # Said in the digest itself too: a cron job's -q kept the note from its reader.
    data = json.loads(out.read_text())
    starts = (NOW - timedelta(days=8)).date().isoformat()  # a week before the last digest
    assert data["set_aside"] == [
        {"topic": "zebra-studies", "name": "Zebra Studies", "papers": 2, "dated_before": starts}
    ]
    state = json.loads((isolated_home / "digest-state.json").read_text())
    now = Catalog.of_home().fingerprints()["zebra-studies"]
    assert now != definition and state["definitions"] == {"zebra-studies": now}
    ingest(api_feed(tmp_path / "more.xml", [("2611.00004", 1, "Zebra, fetched later", 30, ["D"])]))
    assert ids(digest_json()) == ["2611.00004"]  # not redefined since: the floor again


def _followed_long_ago(home: Path, slugs: list[str], last_days: int = 1) -> None:
    """``slugs`` followed 90 days ago, the last digest ``last_days`` ago, the floor
    60 days back, and their definitions as they are now."""
    from papertrack.topics import Catalog

    listing = json.loads((home / "following.json").read_text())
    for slug in slugs:
        listing["followed"][slug] = (NOW - timedelta(days=90)).isoformat()
    (home / "following.json").write_text(json.dumps(listing))
    prints = Catalog.of_home().fingerprints()
    (home / "digest-state.json").write_text(
        json.dumps(
            {
                "last_digest": (NOW - timedelta(days=last_days)).isoformat(),
                "floor": (NOW - timedelta(days=60)).isoformat(),
                "digested": [],
                "definitions": {slug: prints[slug] for slug in slugs},
            }
        )
    )


def test_a_followed_default_redefined_with_a_typo_keeps_its_definition_until_mended(
    tmp_path: Path, isolated_home: Path
) -> None:
    """An entry of topics.toml that redefines a default topic, broken by a typo: the
    default decided in its place (while the warning said the topic was skipped) and
    its definition was recorded, so the mended entry counted as redefined and a
    paper fetched late was set aside as shown, never to come."""
    user = isolated_home / "topics.toml"
    user.write_text('[[topic]]\nname = "GUI Agents"\nslug = "gui-agents"\nquery = "zebra*"\n')
    follow("gui-agents")
    _followed_long_ago(isolated_home, ["gui-agents"])
    ingest(api_feed(tmp_path / "a.xml", [("2611.00003", 1, "Zebra herds this week", 3, ["C"])]))
    assert ids(digest_json()) == ["2611.00003"]
    user.write_text(user.read_text().replace('"zebra*"', '"zebra* AND (gait"'))
    broken = run("digest", "--format", "json", "--empty-ok")
    assert broken.exit_code == 0, broken.stderr
    assert "the default topic 'GUI Agents' decides in its place." in broken.stderr
    assert "that topic is skipped" not in broken.stderr
    user.write_text(user.read_text().replace('"zebra* AND (gait"', '"zebra*"'))
    late = [("2611.00002", 1, "Zebra gait, fetched late", 40, ["B"])]
    ingest(api_feed(tmp_path / "b.xml", late))
    mended = run("digest", "--format", "json")
    assert mended.exit_code == 0, mended.stderr
    assert "changed since the last digest" not in mended.stderr
    assert ids(json.loads(mended.stdout)) == ["2611.00002"]


def test_a_since_digest_or_a_skipped_topic_does_not_let_a_redefinition_flood_later(
    tmp_path: Path, isolated_home: Path
) -> None:
    """A --since digest recorded the new definition and set nothing aside, and a
    topic skipped for a typo lost its recorded one: either way the next digest
    brought the redefined topic's older papers as new."""
    follow("zebra-studies", "stripe-science")
    _followed_long_ago(isolated_home, ["zebra-studies", "stripe-science"])
    ingest(
        api_feed(
            tmp_path / "papers.xml",
            [
                ("2611.00002", 1, "Horses of last month", 40, ["B"]),
                ("2611.00005", 1, "Horses of five weeks ago", 35, ["B"]),
                ("2611.00003", 1, "Horses of the week", 3, ["C"]),
            ],
        )
    )
    user = isolated_home / "topics.toml"
    user.write_text(user.read_text().replace("query = 'zebra*'", "query = 'zebra* OR (horse*'"))
    skipped = run("digest", "--format", "json", "--empty-ok")
    assert skipped.exit_code == 0 and "that topic is skipped" in skipped.stderr
    state = json.loads((isolated_home / "digest-state.json").read_text())
    assert "zebra-studies" in state["definitions"]  # kept while it is skipped
    user.write_text(user.read_text().replace("(horse*", "horse*"))
    since = run("digest", "--format", "json", "--since", "2 days ago", "--empty-ok")
    assert since.exit_code == 0, since.stderr
    assert ids(json.loads(since.stdout)) == []
    shown = run("digest", "--format", "json")
    assert ids(json.loads(shown.stdout)) == ["2611.00003"]
    assert [a["topic"] for a in json.loads(shown.stdout)["set_aside"]] == ["zebra-studies"]


def test_a_since_digest_keeps_no_definition_of_a_topic_no_longer_followed(
    tmp_path: Path, isolated_home: Path
) -> None:
    """Kept, it made a topic unfollowed, redefined and followed again count as
    changed, where after a plain digest it started afresh as followed."""
    follow("zebra-studies", "stripe-science")
    _followed_long_ago(isolated_home, ["zebra-studies", "stripe-science"])
    assert run("unfollow", "zebra-studies").exit_code == 0
    assert run("digest", "--format", "json", "--since", "2 days ago", "--empty-ok").exit_code == 0
    state = json.loads((isolated_home / "digest-state.json").read_text())
    assert list(state["definitions"]) == ["stripe-science"]


def _zebras_widened_to_stripes(tmp_path: Path, home: Path, papers: list[Entry]) -> None:
    """zebra-studies followed long ago, the last digest 20 days ago; ``papers``
    stored, then the topic widened to stripes (its older papers are set aside)."""
    follow("zebra-studies")
    _followed_long_ago(home, ["zebra-studies"], last_days=20)
    ingest(api_feed(tmp_path / "papers.xml", papers))
    query = "zebra* OR stripe*"
    assert run("topics", "add", "Zebra Studies", "--replace", "--query", query).exit_code == 0


@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_a_quiet_digest_says_in_itself_what_a_changed_topic_set_aside(
    tmp_path: Path, isolated_home: Path, fmt: str
) -> None:
    """The note went to stderr only: with cron's `digest -q -o FILE` the reader was
    never told that a changed topic's older papers were passed over."""
    stripes = [("2611.00002", 1, "Stripes 40", 40, ["B"]), ("2611.00003", 1, "Stripes 3", 3, ["C"])]
    _zebras_widened_to_stripes(tmp_path, isolated_home, stripes)
    out = tmp_path / f"digest.{fmt}"
    quiet = run("digest", "-q", "-o", str(out), "--format", fmt)
    assert quiet.exit_code == 0 and quiet.stderr == "", quiet.stderr
    text = " ".join(out.read_text(encoding="utf-8").split()).replace("&#39;", "'")
    assert (
        "Zebra Studies changed since the last digest (taught, redefined or upgraded): "
        "1 paper of it dated before "
    ) in text
    assert "is not shown as new. 'papertrack latest zebra-studies' lists them." in text


def test_a_quiet_digest_that_only_sets_papers_aside_is_not_empty(
    tmp_path: Path, isolated_home: Path
) -> None:
    """With nothing new, a digest to standard output printed nothing with -q while
    it marked a changed topic's older papers as shown: no reader was told."""
    papers = [("2611.00002", 1, "Stripes 40", 40, ["B"]), ("2611.00009", 1, "Horses", 1, ["D"])]
    _zebras_widened_to_stripes(tmp_path, isolated_home, papers)
    quiet = run("digest", "-q")
    assert quiet.exit_code == 0 and quiet.stderr == "", quiet.stderr
    text = " ".join(quiet.stdout.split())
    assert "Nothing new." in text
    assert "Zebra Studies changed since the last digest" in text and "1 paper of it" in text
    # The log says it too, for a digest the mail lost: it was said on stderr alone
    # (with -o FILE), and a digest to standard output left only "Wrote a digest".
    logged = (isolated_home / "papertrack.log").read_text(encoding="utf-8")
    assert "[digest] Note: Zebra Studies changed since the last digest" in logged


def test_the_note_of_a_redefined_topic_gives_the_day_it_now_starts(
    tmp_path: Path, isolated_home: Path
) -> None:
    """The note names the day the redefined topic starts from (a week before the
    last digest), and counts only papers the topic would have shown unchanged:
    refollowed after the last digest, it counted papers older than its own start,
    which were never new, and named a day before them."""
    from papertrack.dates import shown_day

    follow("zebra-studies")
    _followed_long_ago(isolated_home, ["zebra-studies"], last_days=20)
    ingest(
        api_feed(
            tmp_path / "papers.xml",
            [
                ("2611.00002", 1, "Stripes 40", 40, ["B"]),
                ("2611.00007", 1, "Stripes 12", 12, ["B"]),
                ("2611.00003", 1, "Stripes 3", 3, ["C"]),
            ],
        )
    )
    query = "zebra* OR stripe*"
    home = isolated_home
    before = {name: (home / name).read_bytes() for name in ("following.json", "digest-state.json")}
    replaced = run("topics", "add", "Zebra Studies", "--replace", "--query", query)
    assert replaced.exit_code == 0, replaced.stderr
    shown = run("digest", "--format", "text")
    assert "Stripes 3" in shown.stdout and "Stripes 12" in shown.stdout
    starts = (NOW - timedelta(days=27)).date()  # a week before the last digest
    assert f"1 paper of it dated before {shown_day(starts)}" in " ".join(shown.stdout.split())
    # Refollowed since the last digest: it starts a week before now either way, so
    # the older papers are not new, and nothing is set aside or said.
    for name, data in before.items():
        (home / name).write_bytes(data)
    assert run("topics", "add", "Zebra Studies", "--replace", "--query", "zebra*").exit_code == 0
    assert run("unfollow", "zebra-studies").exit_code == 0
    follow("zebra-studies")
    replaced = run("topics", "add", "Zebra Studies", "--replace", "--query", query)
    assert replaced.exit_code == 0, replaced.stderr
    again = run("digest", "--format", "json")
    assert ids(json.loads(again.stdout)) == ["2611.00003"]
    assert "changed since the last digest" not in again.stderr, again.stderr
    assert ids(digest_json()) == []


def test_two_follows_at_once_both_stay_followed(isolated_home: Path) -> None:
    # Each follow is slowed between reading following.json and writing it: without
    # the lock both read the same list and the second write drops the first topic.
    slowed_at_once(
        "save_following", ["follow", "-q", "zebra-studies"], ["follow", "-q", "stripe-science"]
    )
    followed = [t["topic"] for t in json.loads(run("following", "--json").stdout)]
    assert sorted(followed) == ["stripe-science", "zebra-studies"]


# --------------------------------------------------------------------------- output failures


def _limited_output(limit: int) -> None:
    """In the child: files may grow to ``limit`` bytes; past it a write is cut short, then
    fails with EFBIG, as on a nearly full disk (SIGXFSZ ignored, as a shell leaves it)."""
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file size limits")
def test_a_digest_cut_short_by_a_full_disk_fails_and_keeps_its_papers(tmp_path: Path) -> None:
    """`digest > file` on a nearly full disk wrote the first 4,096 bytes and exited 0
    (Python's buffered stdout drops a short write's count), and the papers were marked:
    the next digest never showed them."""
    follow("zebra-studies")
    entries = [(f"2611.{n:05d}", 1, f"Zebra {'stripes ' * 30}{n}", 1, ["A"]) for n in range(60)]
    ingest(api_feed(tmp_path / "f.xml", entries))
    log = tmp_path / "log.txt"
    env = {**os.environ, "PAPERTRACK_LOG_FILE": str(log)}
    out = tmp_path / "digest.txt"
    with out.open("wb") as handle:
        cut = subprocess.run(
            [sys.executable, "-m", "papertrack", "digest"],
            stdout=handle,
            stderr=subprocess.PIPE,
            env=env,
            preexec_fn=lambda: _limited_output(4096),
        )
    assert cut.returncode == 1, cut.stderr
    assert b"Error: could not write the output" in cut.stderr and b"Traceback" not in cut.stderr
    assert out.stat().st_size == 4096
    again = run("digest", "--dry-run")
    assert again.stdout.count("Zebra stripes") == 60  # the mark was put back


def test_a_digest_to_a_closed_stdout_is_one_error_and_marks_nothing(tmp_path: Path) -> None:
    """`digest >&-` stopped with "This is a bug" (sys.stdout is None) after marking."""
    follow("zebra-studies")
    ingest(api_feed(tmp_path / "f.xml", [("2611.00071", 1, "Zebra closed", 1, ["A"])]))
    closed = subprocess.run(
        ["sh", "-c", '"$0" -m papertrack digest >&-', sys.executable],
        stderr=subprocess.PIPE,
        env=os.environ,
    )
    assert closed.returncode == 1
    assert closed.stderr.decode().splitlines() == [
        "Error: could not write the output: standard output is closed. Send it somewhere: "
        "> FILE, | COMMAND, or -o FILE where the command has it."
    ]
    assert "Zebra closed" in run("digest", "--dry-run").stdout
    assert not (Path(os.environ["PAPERTRACK_HOME"]) / "store" / "1").exists()  # no stray file


def test_an_empty_digest_to_dev_stdout_prints_nothing(tmp_path: Path) -> None:
    """As into stdout itself: `digest -o /dev/stdout | mail -E` sent "Nothing new." daily."""
    follow("zebra-studies")
    command = [sys.executable, "-m", "papertrack", "digest", "-o", "/dev/stdout"]
    empty = subprocess.run(command, capture_output=True, env=os.environ)
    assert empty.returncode == 0, empty.stderr
    assert empty.stdout == b"" and b"Wrote" not in empty.stderr
    written = subprocess.run([*command, "--empty-ok"], capture_output=True, env=os.environ)
    assert b"Nothing new" in written.stdout


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("-o", ""), "-o is empty"),
        (("-o", "reports/"), "names a folder"),
        (("--since", ""), "can't read --since ''"),
    ],
)
def test_empty_or_folder_options_are_refused_before_marking(
    tmp_path: Path, args: tuple[str, ...], said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unset variable in cron (`-o "$OUT"`, `--since "$DAY"`) was ignored or read as
    the current folder, and `-o reports/` wrote a file named reports."""
    follow("zebra-studies")
    ingest(api_feed(tmp_path / "f.xml", [("2611.00081", 1, "Zebra options", 1, ["A"])]))
    from tests.helpers import error_line

    monkeypatch.chdir(tmp_path)  # where a file named reports would land

    error_line(run("digest", *args), 2, said)
    assert not Path("reports").exists()
    assert "Zebra options" in run("digest", "--dry-run").stdout


def test_a_damaged_mark_with_ids_as_a_string_is_refused(
    isolated_home: Path, tmp_path: Path
) -> None:
    """Its characters were taken for paper ids: shown papers came again, and the file
    filled with '1', '2', '.'."""
    follow("zebra-studies")
    ingest(api_feed(tmp_path / "f.xml", [("2611.00091", 1, "Zebra mark", 1, ["A"])]))
    state = isolated_home / "digest-state.json"
    state.write_text('{"last_digest": null, "digested": "2611.00091"}', encoding="utf-8")
    from tests.helpers import error_line

    error_line(run("digest"), 1, "digest-state.json is damaged")
    assert state.read_text(encoding="utf-8") == '{"last_digest": null, "digested": "2611.00091"}'


def test_json_says_when_the_last_digest_was_also_under_since(tmp_path: Path) -> None:
    follow("zebra-studies")
    ingest(api_feed(tmp_path / "f.xml", [("2611.00101", 1, "Zebra since", 1, ["A"])]))
    assert run("digest").exit_code == 0
    data = digest_json("--since", "3 days ago")
    assert data["last_digest"] is not None and ids(data) == ["2611.00101"]


def test_a_removed_topic_is_unfollowed_by_its_name_and_remove_says_it_is_followed() -> None:
    follow("zebra-studies")
    removed = run("topics", "remove", "Zebra Studies")
    assert removed.exit_code == 0, removed.stderr
    assert "You still follow it" in removed.stderr
    assert "papertrack unfollow zebra-studies" in removed.stderr
    gone = run("unfollow", "Zebra Studies")
    assert gone.exit_code == 0, gone.stderr
    assert gone.stderr.strip() == "Unfollowed zebra-studies."


def test_following_shows_names_without_their_terminal_escapes(isolated_home: Path) -> None:
    with (isolated_home / "topics.toml").open("a", encoding="utf-8") as handle:
        handle.write('\n[[topic]]\nname = "Tab\\u001b[2JClear \\u001b]8;;http://x\\u0007Link"\n')
        handle.write("query = 'zebra*'\n")
    follow("tabclear-link")
    listed = run("following")
    assert listed.exit_code == 0, listed.stderr
    assert "\x1b" not in listed.stdout and "TabClear Link (tabclear-link)" in listed.stdout


def test_every_digest_leaves_a_line_in_the_log(tmp_path: Path, isolated_home: Path) -> None:
    """`digest | mail` (standard output) wrote nothing to the log, and -q -o FILE
    neither: a digest the mail lost could not be traced to its day."""
    follow("zebra-studies")
    ingest(api_feed(tmp_path / "f.xml", [("2611.00090", 1, "Zebra", 1, ["A"])]))
    assert "2611.00090" in run("digest").stdout
    quiet = run("digest", "-q", "--since", "2000-01-01", "-o", str(tmp_path / "d.txt"))
    assert quiet.exit_code == 0 and quiet.stderr == ""
    log = (isolated_home / "papertrack.log").read_text(encoding="utf-8").splitlines()
    said = [line.split("] ", 1)[1] for line in log if "[digest] Wrote a digest" in line]
    assert said == [
        "Wrote a digest of 1 paper to standard output",
        f"Wrote a digest of 1 paper to {tmp_path / 'd.txt'}",
    ]
    # An empty one too, in the log only: cron mails nothing for it.
    empty = run("digest", "-q")
    assert empty.exit_code == 0 and empty.stdout == "" and empty.stderr == ""
    log = (isolated_home / "papertrack.log").read_text(encoding="utf-8").splitlines()
    assert log[-1].endswith("[digest] Nothing new since the last digest: nothing written")


def test_a_followed_topic_whose_papers_are_all_shown_above_is_named(tmp_path: Path) -> None:
    """A paper of two followed topics is shown once, under the first: the second had
    no section, and a reader could not tell it from a topic with nothing new."""
    follow("zebra-studies", "stripe-science")
    ingest(api_feed(tmp_path / "f.xml", [("2611.00095", 1, "Zebra stripes", 1, ["A"])]))
    data = digest_json("--dry-run")
    assert [(t["topic"], ids({"topics": [t]}), t["shown_above"]) for t in data["topics"]] == [
        ("zebra-studies", ["2611.00095"], []),
        ("stripe-science", [], ["2611.00095"]),
    ]
    line = "Stripe Science: 1 new paper, shown above under an earlier topic (see 'Also in')."
    for fmt in ("text", "markdown", "html"):
        shown = run("digest", "--dry-run", "-f", fmt)
        assert shown.exit_code == 0, shown.stderr
        assert line.replace("'", "&#39;" if fmt == "html" else "'") in shown.stdout, fmt
    # A topic with nothing new at all gets no such line.
    ingest(api_feed(tmp_path / "g.xml", [("2611.00096", 1, "Zebra herds", 1, ["B"])]))
    assert "Stripe Science: 2" not in run("digest", "--dry-run").stdout
    # One with papers of its own too says in its heading how many more are above:
    # "Stripe Science (1 new paper)" read as all it had.
    ingest(api_feed(tmp_path / "h.xml", [("2611.00097", 1, "Stripe maps", 1, ["C"])]))
    headings = {
        "text": "Stripe Science (1 new paper, 1 more shown above)",
        "markdown": "## Stripe Science (1 new paper, 1 more shown above)",
        "html": "(1 new paper, 1 more shown above)",
    }
    for fmt, heading in headings.items():
        shown = run("digest", "--dry-run", "-f", fmt)
        assert heading in shown.stdout, fmt
        assert "Zebra Studies (2 new papers)" in shown.stdout or fmt == "html", fmt


def test_a_followed_topic_that_is_gone_is_listed_as_missing(isolated_home: Path) -> None:
    """following --json left it out without a word, while every digest warned of it."""
    follow("zebra-studies", "stripe-science")
    topics = isolated_home / "topics.toml"
    topics.write_text(topics.read_text(encoding="utf-8").split("\n\n")[0] + "\n", "utf-8")
    listed = run("following", "--json")
    assert json.loads(listed.stdout) == [
        {"topic": "zebra-studies", "name": "Zebra Studies", "missing": False, "skipped": False},
        {"topic": "stripe-science", "name": None, "missing": True, "skipped": False},
    ]
    assert "Warning: you follow 'stripe-science', which is no longer a topic" in listed.stderr
    # The text lists it too: it said only "You follow no topic" when that was the one.
    shown = run("following")
    assert shown.stdout.splitlines() == [
        "Zebra Studies (zebra-studies)",
        "stripe-science (gone)",
    ]


def test_a_followed_topic_whose_entry_has_a_slip_is_skipped_not_gone(
    isolated_home: Path,
) -> None:
    """A typo in a followed topic's entry got "no longer a topic. Run 'papertrack
    unfollow'", which loses when it was followed; the digest keeps that topic's papers
    for when the entry is fixed, so the advice is to fix it."""
    follow("stripe-science")
    topics = isolated_home / "topics.toml"
    good = topics.read_text(encoding="utf-8")
    assert "Stripe Science" in good
    entries = good.split("\n\n")
    broken = [e.replace("query = '", "query = '(", 1) if "Stripe" in e else e for e in entries]
    topics.write_text("\n\n".join(broken), "utf-8")
    listed = run("following", "--json")
    assert json.loads(listed.stdout) == [
        {"topic": "stripe-science", "name": None, "missing": True, "skipped": True},
    ]
    assert "that topic is skipped" in listed.stderr
    assert "left out until that entry is fixed" in listed.stderr
    assert "unfollow" not in listed.stderr
    assert run("following").stdout.splitlines() == [
        "stripe-science (skipped: its entry has an error)"
    ]
    shown = run("digest", "--dry-run")
    assert shown.exit_code == 1
    assert "Fix the entries of your topics file" in shown.stderr
    assert "unfollow" not in shown.stderr
    topics.write_text(good, "utf-8")
    assert json.loads(run("following", "--json").stdout)[0]["missing"] is False


def test_a_data_home_that_is_a_file_is_said_to_be_one(tmp_path: Path) -> None:
    """PAPERTRACK_HOME naming a file: digest said "Not a directory. Check its
    permissions", a fix that fixes nothing."""
    afile = tmp_path / "afile"
    afile.write_text("mine\n", encoding="utf-8")
    for command in (["digest"], ["following"]):
        result = run(*command, env={"PAPERTRACK_HOME": str(afile)})
        line = error_line(result, 1, "Not a directory", "A file stands where a folder")
        assert "permissions" not in line
    assert afile.read_text(encoding="utf-8") == "mine\n"
