"""The attacks of a careful tester, each reproduced: what is not papertrack's is never
touched, one bad line never stops an import, nothing waits or grows without bound,
and nothing a source says reaches a terminal or the log as control codes."""

from __future__ import annotations

import gzip
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from papertrack import net
from papertrack.store import MARKER, Store
from tests.helpers import (
    DATA,
    LISTING,
    error_line,
    kaggle_line,
    killed_writers_temp,
    no_traceback,
    run,
)

OAI_PAGE = DATA / "oai" / "arXivOAIHarvester-2015" / "ListRecordsResponse.xml"
ESCAPES = ("\x1b", "\x07", "\x9b")


# --------------------------------------------------------------------------- not ours


def someone_elses_folder(root: Path) -> dict[Path, bytes]:
    """A folder of a user's own files, hidden temp files among them."""
    files = {
        root / ".draft.tmp": b"draft",
        root / "notes.txt": b"notes",
        root / "projects" / "a" / ".report.docx.tmp": b"report",
        root / "projects" / "a" / ".report.docx.123.tmp": b"looks like ours",
    }
    for path, data in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return files


@pytest.mark.parametrize(
    "command",
    [
        ["ingest", str(LISTING)],
        ["doctor", "--repair"],
        ["doctor"],
        ["latest", "llm-agent-training"],
        ["stats"],
    ],
)
def test_a_folder_that_is_not_a_store_is_refused_and_left_alone(
    tmp_path: Path, command: list[str]
) -> None:
    folder = tmp_path / "documents"
    files = someone_elses_folder(folder)
    before = sorted(p.relative_to(folder) for p in folder.rglob("*"))
    result = run("--db", str(folder), *command)
    error_line(result, 1, "is not a papertrack store", "empty or new directory")
    assert sorted(p.relative_to(folder) for p in folder.rglob("*")) == before
    assert all(path.read_bytes() == data for path, data in files.items())


@pytest.mark.parametrize(
    "inside",
    ["papers/thesis.pdf", "ids/scan.png", "resume/cv.docx", "vectors/notes.txt", "papers/sub/x"],
)
@pytest.mark.parametrize("command", [["ingest", str(LISTING)], ["doctor", "--repair"]])
def test_a_folder_using_a_stores_folder_names_for_other_files_is_refused(
    tmp_path: Path, inside: str, command: list[str]
) -> None:
    # ~/research holding nothing but papers/ full of PDFs passed for a store made
    # before the marker: the week files were written beside the PDFs.
    folder = tmp_path / "research"
    mine = folder / inside
    mine.parent.mkdir(parents=True)
    mine.write_bytes(b"mine")
    before = sorted(p.relative_to(folder) for p in folder.rglob("*"))
    result = run("--db", str(folder), *command)
    error_line(result, 1, "is not a papertrack store", inside.split("/sub")[0])
    assert sorted(p.relative_to(folder) for p in folder.rglob("*")) == before
    assert mine.read_bytes() == b"mine"


def test_the_root_of_the_file_system_is_refused_without_walking_it() -> None:
    started = time.monotonic()
    error_line(run("--db", "/", "doctor"), 1, "is not a papertrack store")
    assert time.monotonic() - started < 10  # one directory listing, never a walk


def test_a_store_is_marked_and_clean_up_touches_only_its_own_temp_files(tmp_path: Path) -> None:
    db = tmp_path / "store"
    assert run("--db", str(db), "ingest", str(LISTING)).exit_code == 0
    assert json.loads((db / MARKER).read_text()) == {"format": 1}
    ours = killed_writers_temp(db / "papers" / "2025-08-18.json")
    ours.write_bytes(b"half")
    nested = db / "papers" / "deeper" / ".x.json.1.tmp"
    nested.parent.mkdir()
    nested.write_bytes(b"not in a folder papertrack writes")
    assert run("--db", str(db), "ingest", str(LISTING)).exit_code == 0
    assert not ours.exists()
    assert nested.read_bytes() == b"not in a folder papertrack writes"


def test_a_store_made_before_the_marker_is_adopted(tmp_path: Path) -> None:
    db = tmp_path / "store"
    assert run("--db", str(db), "ingest", str(LISTING)).exit_code == 0
    (db / MARKER).unlink()
    latest = run("--db", str(db), "latest", "--json", "-n", "3")
    assert latest.exit_code == 0 and len(json.loads(latest.stdout)) == 3
    assert run("--db", str(db), "ingest", str(LISTING)).exit_code == 0
    assert (db / MARKER).exists()


def test_a_file_of_someones_in_an_adopted_stores_ids_is_never_read_or_removed(
    tmp_path: Path,
) -> None:
    """A contacts.json in ids/ of a store made before the marker: the store is
    adopted (its week files hold papers), and a rebuild deleted the file as a shard
    no paper maps to, saying "nothing lost"; doctor counted it as a shard."""
    db = tmp_path / "store"
    assert run("--db", str(db), "ingest", str(LISTING)).exit_code == 0
    shards = len(list((db / "ids").iterdir()))
    (db / MARKER).unlink()
    contacts = db / "ids" / "contacts.json"
    contacts.write_bytes(b'{"alice": "555-0100"}')
    whole = (db / "index.json").read_bytes()
    (db / "index.json").write_bytes(whole[:50])  # cut short: the repair rebuilds
    repaired = run("--db", str(db), "doctor", "--repair")
    assert repaired.exit_code == 0, repaired.stderr
    assert f"{shards} id map shard" in repaired.stdout + repaired.stderr
    assert contacts.read_bytes() == b'{"alice": "555-0100"}'
    checked = run("--db", str(db), "doctor")
    assert checked.exit_code == 0, checked.stdout + checked.stderr
    assert "contacts" not in checked.stdout + checked.stderr
    assert contacts.read_bytes() == b'{"alice": "555-0100"}'


def test_a_store_made_before_the_marker_with_a_stray_file_is_adopted_and_the_file_kept(
    tmp_path: Path,
) -> None:
    """A Finder .DS_Store or a notes.txt beside an old store's files made every
    command, doctor too, refuse it as "not a papertrack store", naming the store's
    own files (.lock, ids, index.json) and telling the user to leave it."""
    db = tmp_path / "store"
    assert run("--db", str(db), "ingest", str(LISTING)).exit_code == 0
    (db / MARKER).unlink()
    strays = {
        db / ".DS_Store": b"finder",
        db / "notes.txt": b"mine",
        db / "papers" / ".DS_Store": b"f",
    }
    for path, data in strays.items():
        path.write_bytes(data)
    latest = run("--db", str(db), "latest", "--json", "-n", "3")
    assert latest.exit_code == 0 and len(json.loads(latest.stdout)) == 3, latest.stderr
    # A hidden file makes no store someone else's: with its index.json cut short
    # too, the repair was refused, blaming the .DS_Store.
    whole = (db / "index.json").read_bytes()
    (db / "index.json").write_bytes(whole[:100])
    (db / "notes.txt").unlink()
    repaired = run("--db", str(db), "doctor", "--repair")
    assert repaired.exit_code == 0, repaired.stderr
    (db / MARKER).unlink()
    (db / "notes.txt").write_bytes(strays[db / "notes.txt"])
    assert run("--db", str(db), "ingest", str(LISTING)).exit_code == 0
    assert (db / MARKER).exists()
    assert all(path.read_bytes() == data for path, data in strays.items())
    # A folder that is no store is still refused, and only what is not a store's is named.
    other = tmp_path / "other"
    (other / "ids").mkdir(parents=True)
    (other / "index.json").write_text("{}")
    (other / "notes.txt").write_text("mine")
    said = error_line(run("--db", str(other), "latest"), 1, "is not a papertrack store")
    assert "(notes.txt)" in said
    # Nor is one with an index.json and a dated file of someone's notes: its index was
    # overwritten by an ingest, and doctor --repair moved the notes to damaged/.
    notes = tmp_path / "notes"
    (notes / "papers").mkdir(parents=True)
    mine = {
        notes / "index.json": b'{"site": "my notes"}',
        notes / "papers" / "2020-01-06.json": b'{"day": "notes"}',
        notes / "notes.txt": b"mine",
    }
    for path, data in mine.items():
        path.write_bytes(data)
    for command in (["ingest", str(LISTING)], ["doctor", "--repair"]):
        error_line(run("--db", str(notes), *command), 1, "is not a papertrack store")
    # Nor a store's copy with someone's PDF among its week files; but it is said to be
    # a store that lost its marker, with what to move out ("point --db elsewhere", of
    # the default store, and doctor refused it too).
    (db / "papers" / "paper.pdf").write_bytes(b"%PDF")
    (db / MARKER).unlink()
    for command in (["latest"], ["doctor"], ["doctor", "--repair"]):
        said = error_line(run("--db", str(db), *command), 1, "lost its papertrack-store.json")
        assert "(papers/paper.pdf). Move it out of the store" in said and "--db" not in said
    assert (db / "papers" / "paper.pdf").read_bytes() == b"%PDF"
    (db / "papers" / "paper.pdf").unlink()
    assert run("--db", str(db), "latest", "-n", "1").exit_code == 0
    assert all(path.read_bytes() == data for path, data in mine.items())
    assert sorted(p.name for p in notes.rglob("*")) == sorted(
        ["index.json", "papers", "2020-01-06.json", "notes.txt"]
    )


@pytest.mark.parametrize(
    "files",
    [
        # A web site's folder a Mac user has opened: its index.json was overwritten.
        {
            "index.json": b'{"pages": ["a"]}',
            "papers/2024-01-01.json": b'{"t": 1}',
            ".DS_Store": b"",
        },
        {"index.json": b'{"pages": ["a"]}'},
        {"papers/reading-list.json": b"[]", ".DS_Store": b""},
        {"papers/2024-01-01.json": b'{"papers": "mine"}', "ids/x.json": b"{}"},
        {"resume/resume.json": b'{"basics": {}}'},  # a JSON Resume CV
        # A project's index.json with keys of the same names, beside its own files.
        {"index.json": b'{"counts": {}, "meta": {}}', "README.md": b"# mine", "src/a.py": b""},
        {"index.json": b'{"counts": {}, "meta": {"1": {"schema": 3}}}', "README.md": b"# mine"},
        {"index.json": b'{"counts": {}, "meta": {"1": {"version": 3}}}'},
        # Beside files of their own, a dated file, an empty table or a contacts file.
        {
            "index.json": b'{"counts": {}, "meta": {"1": {"schema": 1}}}',
            "papers/2024-01-01.json": b'{"notes": "mine"}',
            "README.md": b"# mine",
        },
        {"papers/2024-01-01.json": b'{"papers": {}}', "README.md": b"# mine"},
        {"index.json": b'{"counts": {}, "meta": {"1": {"schema": 1}}}', "ids/contacts.json": b"{}"},
        {"index.json": None},  # a folder named so, empty: no store folder
    ],
    ids=[
        "site-with-ds-store",
        "index-alone",
        "reading-list",
        "look-alike-week",
        "cv",
        "project",
        "project-schema",
        "look-alike-index",
        "project-dated-file",
        "empty-table",
        "contacts",
        "index-folder",
    ],
)
def test_a_folder_holding_only_a_stores_names_is_refused_unless_its_files_are_papertracks(
    tmp_path: Path, files: dict[str, bytes | None]
) -> None:
    folder = tmp_path / "site"
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        if data is None:
            (folder / name).mkdir()
        else:
            (folder / name).write_bytes(data)
    before = sorted(p.relative_to(folder) for p in folder.rglob("*"))
    for command in (["ingest", str(LISTING)], ["doctor", "--repair"], ["latest"]):
        error_line(run("--db", str(folder), *command), 1, "is not a papertrack store")
    assert sorted(p.relative_to(folder) for p in folder.rglob("*")) == before
    assert all(
        (folder / name).read_bytes() == data for name, data in files.items() if data is not None
    )


def test_a_store_made_before_the_marker_without_its_index_is_adopted(tmp_path: Path) -> None:
    """Its week files say it is papertrack's when its index.json is lost, even with
    the first few cut short; an index of papertrack's does with no week file."""
    empty = tmp_path / "empty"
    assert run("--db", str(empty), "ingest", str(LISTING)).exit_code == 0
    (empty / MARKER).unlink()
    for week in (empty / "papers").iterdir():
        week.unlink()
    repaired = run("--db", str(empty), "doctor", "--repair")
    assert repaired.exit_code == 0, repaired.stderr
    db = tmp_path / "store"
    api_page = DATA / "api-atom" / "arxiv.py-2026-recorded" / "q_testing_s0_m100_cfe7536492ca.xml"
    assert run("--db", str(db), "ingest", str(LISTING), str(api_page)).exit_code == 0
    (db / MARKER).unlink()
    (db / "index.json").unlink()
    (db / ".DS_Store").write_bytes(b"finder")
    weeks = sorted((db / "papers").iterdir())
    assert len(weeks) > 4
    for week in weeks[:3]:
        week.write_bytes(b"")  # cut short by a kill or a full disk
    repaired = run("--db", str(db), "doctor", "--repair")
    assert repaired.exit_code == 0, repaired.stderr
    latest = run("--db", str(db), "latest", "--json", "-n", "500")
    assert latest.exit_code == 0 and json.loads(latest.stdout), latest.stderr
    assert (db / ".DS_Store").read_bytes() == b"finder"


def test_a_folder_with_a_dot_folder_of_its_own_is_still_someone_elses(tmp_path: Path) -> None:
    """Only a file manager's files (.DS_Store) count for nothing: a repository with a
    .git beside papers/ of JSON files is someone's, and left alone."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "papers").mkdir()
    (repo / "papers" / "notes.json").write_text("{}")
    before = sorted(p.relative_to(repo) for p in repo.rglob("*"))
    for command in (["ingest", str(LISTING)], ["doctor", "--repair"]):
        error_line(run("--db", str(repo), *command), 1, "is not a papertrack store", ".git")
    assert sorted(p.relative_to(repo) for p in repo.rglob("*")) == before


def test_a_store_of_a_newer_format_gets_its_own_message(tmp_path: Path) -> None:
    db = tmp_path / "store"
    assert run("--db", str(db), "ingest", str(LISTING)).exit_code == 0
    (db / MARKER).write_text('{"format": 7}')
    error_line(run("--db", str(db), "latest", "llm-agent-training"), 1, "format 7", "Upgrade")
    (db / MARKER).write_text("garbage")
    error_line(run("--db", str(db), "latest", "llm-agent-training"), 1, "is damaged")


# --------------------------------------------------------------------------- one bad line


def stored_ids(home: Path) -> set[str]:
    store = Store(home / "store")
    return {p.arxiv_id for week in store.weeks() for p in store.read_partition(week)}


def test_lines_no_store_can_hold_are_broken_lines_and_the_rest_is_stored(
    tmp_path: Path, isolated_home: Path
) -> None:
    huge = [{"version": "v99999999999999999999", "created": "Mon, 4 Aug 2025 10:00:00 GMT"}]
    lines = [
        kaggle_line("2508.00001"),
        kaggle_line("2508.00002", versions=huge),
        kaggle_line("2508.00003", title="lone \ud800 surrogate"),
        kaggle_line("2508.00004"),
    ]
    snap = tmp_path / "snap.jsonl"
    snap.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for _ in range(2):  # the rerun neither crashes nor loses anything
        result = run("ingest", str(snap))
        error_line(result, 1, "1 broken line (line 2)")
        assert stored_ids(isolated_home) == {"2508.00001", "2508.00003", "2508.00004"}
    shown = json.loads(run("show", "2508.00003", "--json").stdout)
    assert shown["title"] == "lone surrogate"
    assert not (isolated_home / "store" / ".dirty").exists()


def test_an_oai_record_with_an_impossible_version_is_skipped_with_a_warning(
    tmp_path: Path, isolated_home: Path
) -> None:
    page = OAI_PAGE.read_text(encoding="utf-8")
    page = page.replace('<version version="v4">', '<version version="v99999999999999999999">', 1)
    feed = tmp_path / "oai.xml"
    feed.write_text(page, encoding="utf-8")
    result = run("ingest", "-v", str(feed))
    assert result.exit_code == 0, result.stderr
    assert "Warning:" in result.stderr and "out of range" in result.stderr
    assert "0704.0716" not in stored_ids(isolated_home)
    assert len(stored_ids(isolated_home)) == 5


def test_an_oai_record_dated_2090_is_refused_like_any_other_format(
    tmp_path: Path, isolated_home: Path
) -> None:
    page = OAI_PAGE.read_text(encoding="utf-8").replace("Tue, 3 Apr 2007", "Tue, 3 Apr 2090")
    feed = tmp_path / "oai.xml"
    feed.write_text(page, encoding="utf-8")
    assert run("ingest", str(feed)).exit_code == 0
    shown = json.loads(run("show", "0704.0471", "--json").stdout)
    assert shown["published"] is None  # kept, undated: never on top of every list


def test_a_line_over_the_limit_is_broken_and_never_held_whole(
    tmp_path: Path, isolated_home: Path
) -> None:
    snap = tmp_path / "snap.jsonl.gz"
    with gzip.open(snap, "wt", encoding="utf-8") as out:
        out.write(kaggle_line("2508.00001") + "\n")
        out.write(kaggle_line("2508.00002", abstract="x" * (5 * 2**20)) + "\n")
        out.write("\n" * 100_000)  # blank lines count in line numbers, nothing more
        out.write(kaggle_line("2508.00003"))  # no final newline
    result = run("ingest", str(snap))
    error_line(result, 1, "line 2", "longer than 4 MiB")
    assert stored_ids(isolated_home) == {"2508.00001", "2508.00003"}


def measured_ingest(source: Path, home: Path) -> tuple[subprocess.CompletedProcess[str], int]:
    """``papertrack ingest SOURCE`` in a child; its peak memory in KiB."""
    probe = (
        "import resource, subprocess, sys\n"
        "p = subprocess.run([sys.executable, '-m', 'papertrack', 'ingest', sys.argv[1]],"
        " capture_output=True, text=True)\n"
        "sys.stdout.write(p.stderr)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
        "sys.exit(p.returncode)\n"
    )
    env = {**os.environ, "PAPERTRACK_HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-c", probe, str(source)],
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
        check=False,
    )
    return done, int(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_a_huge_line_and_gigabytes_of_blank_lines_stay_small_and_quick(tmp_path: Path) -> None:
    # One 300 MB line, then 2 GB of newlines and a good line, in an 11 MB gzip (level
    # 1: written in half the time of level 6's 2.4 MB, and read in an eighth).
    snap = tmp_path / "snap.jsonl.gz"
    with gzip.open(snap, "wb", compresslevel=1) as out:
        out.write(b'{"id": "2508.00001", "title": "' + b"x" * (300 * 2**20) + b'"}\n')
        block = b"\n" * (64 * 2**20)
        for _ in range(32):
            out.write(block)
        out.write(kaggle_line("2508.00002").encode() + b"\n")
    done, peak_kib = measured_ingest(snap, tmp_path / "home")
    assert done.returncode == 1, done.stdout
    assert "longer than 4 MiB" in done.stdout
    assert peak_kib < 300 * 1024, peak_kib  # far below the 300 MB line
    assert "2508.00002" in {
        p.arxiv_id
        for w in Store(tmp_path / "home" / "store").weeks()
        for p in Store(tmp_path / "home" / "store").read_partition(w)
    }


# --------------------------------------------------------------------------- servers


@pytest.fixture
def raw_server() -> Iterator[Callable[[Callable[[socket.socket], None]], str]]:
    """A loopback server answering each connection with ``handler``; yields a URL maker."""
    sockets: list[socket.socket] = []
    stop = threading.Event()

    def start(handler: Callable[[socket.socket], None]) -> str:
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        listener.settimeout(0.2)
        sockets.append(listener)

        def serve() -> None:
            while not stop.is_set():
                try:
                    conn, _ = listener.accept()
                except OSError:
                    continue
                conn.settimeout(5)
                threading.Thread(target=_answer, args=(conn, handler), daemon=True).start()

        threading.Thread(target=serve, daemon=True).start()
        return f"http://127.0.0.1:{listener.getsockname()[1]}"

    yield start
    stop.set()
    for listener in sockets:
        listener.close()


def _answer(conn: socket.socket, handler: Callable[[socket.socket], None]) -> None:
    try:
        conn.recv(65536)
        handler(conn)
    except OSError:
        pass
    finally:
        conn.close()


def trickling(head: bytes, byte: bytes) -> Callable[[socket.socket], None]:
    """A raw server's answer: ``head``, then ``byte`` every 0.25 s for 30 s, so that
    no single read ever times out."""

    def answer(conn: socket.socket) -> None:
        conn.sendall(head)
        for _ in range(120):
            conn.sendall(byte)
            time.sleep(0.25)

    return answer


# The body a byte at a time; the headers a byte at a time (the deadline bounded only
# the body, and headers trickled past --timeout for hours).
BODY = trickling(b"HTTP/1.1 200 OK\r\nContent-Type: application/atom+xml\r\n\r\n<?xml ", b" ")
HEADERS = trickling(b"HTTP/1.1 200 OK\r\n", b"X")


@pytest.mark.parametrize(
    ("answer", "needles"),
    [
        (BODY, ("too slow to arrive whole in the time allowed", "bytes came", "--timeout")),
        (HEADERS, ("no answer from 127.0.0.1 in time", "headers came too slowly")),
    ],
    ids=["body", "headers"],
)
def test_a_server_sending_a_byte_at_a_time_runs_into_the_request_deadline(
    raw_server: Callable[[Callable[[socket.socket], None]], str],
    answer: Callable[[socket.socket], None],
    needles: tuple[str, ...],
) -> None:
    url = raw_server(answer)
    started = time.monotonic()
    result = run(
        "fetch", "-c", "cs.AI", "--listing-url", url, "--timeout", "2", "--retries", "0",
        "--interval", "0",
    )  # fmt: skip
    took = time.monotonic() - started
    error_line(result, 1, *needles)
    assert took < 15, took  # the deadline, not 120 trickled bytes (30 s)


def silent(conn: socket.socket) -> None:
    """A raw server's answer: none (the connection is taken, and nothing is sent)."""
    conn.recv(4096)
    time.sleep(3)


def test_a_server_that_never_answers_is_said_so_with_the_timeout_to_raise(
    raw_server: Callable[[Callable[[socket.socket], None]], str],
) -> None:
    """'arXiv kept answering a timeout waiting for 127.0.0.1', and no word of the
    --timeout that may help."""
    url = raw_server(silent)
    result = run(
        "fetch", "-c", "cs.AI", "--listing-url", url, "--timeout", "0.5", "--retries", "0",
        "--interval", "0",
    )  # fmt: skip
    line = error_line(result, 1, "arXiv gave no answer from 127.0.0.1 in time", "--timeout 180")
    assert "kept answering" not in line


def redirect_to(location: bytes) -> Callable[[socket.socket], None]:
    """A raw server's answer: a 302 to ``location``, sent as the bytes given."""

    def redirect(conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 302 Found\r\nLocation: " + location + b"\r\n\r\n")

    return redirect


def test_a_redirect_to_another_host_is_not_followed(
    raw_server: Callable[[Callable[[socket.socket], None]], str],
) -> None:
    url = raw_server(redirect_to(b"http://localhost:9/x"))
    error_line(run("ingest", url + "/feed.xml"), 1, "redirects to another host (localhost)")
    result = run("fetch", "-c", "cs.AI", "--listing-url", url, "--retries", "3", "--interval", "0")
    error_line(result, 1, "redirects to another host")
    assert "Retrying" not in result.stderr


@pytest.mark.parametrize(
    ("first", "moved", "same"),
    [
        ("http://h/x", "http://h:80/y", True),  # refused by the first port rule
        ("http://h:80/x", "https://h/y", True),
        ("http://h/x", "https://h:443/y", True),
        ("https://h:8443/x", "https://h:8443/y", True),
        ("http://h/x", "http://h:8080/y", False),
        ("https://h/x", "https://h:8443/y", False),
        ("http://h:8080/x", "https://h/y", False),
    ],
)
def test_a_redirect_stays_on_its_server_by_the_port_it_connects_to(
    first: str, moved: str, same: bool
) -> None:
    """Ports compared as written refused http://h/ to http://h:80/, the same server."""
    import urllib.parse

    assert net.same_port(urllib.parse.urlsplit(first), urllib.parse.urlsplit(moved)) is same


def test_a_redirect_to_another_port_of_the_host_is_not_followed(
    raw_server: Callable[[Callable[[socket.socket], None]], str],
) -> None:
    """Another port is another server: the docs promise the same host only."""
    reached: list[bytes] = []

    def other(conn: socket.socket) -> None:
        reached.append(b"here")
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")

    other_url = raw_server(other)
    url = raw_server(redirect_to(other_url.encode() + b"/x"))
    line = error_line(run("ingest", url + "/feed.xml"), 1, "redirects to another port")
    assert other_url.rpartition(":")[2] in line
    assert reached == []


def test_without_a_deadline_the_headers_still_have_twice_the_timeout(
    raw_server: Callable[[Callable[[socket.socket], None]], str],
) -> None:
    """ingest URL has no deadline (a snapshot may take an hour): a server trickling its
    headers still does not hold it for hours."""
    url = raw_server(HEADERS)
    started = time.monotonic()
    with pytest.raises(net.NetError, match="headers came too slowly"):
        net.get(url + "/feed.xml", timeout=1)
    assert time.monotonic() - started < 15


def test_an_invalid_url_typed_or_sent_as_a_redirect_is_one_error_line(
    raw_server: Callable[[Callable[[socket.socket], None]], str],
) -> None:
    url = raw_server(redirect_to(b"http://[::1/\x1b[31mx"))
    line = error_line(run("ingest", url + "/feed.xml"), 1, "redirects to", "not a valid URL")
    assert "\x1b" not in line
    error_line(run("ingest", "http://127.0.0.1:99999/x"), 1, "not a valid URL", "Port out of range")
    error_line(run("ingest", "http://[::1/x"), 1, "not a valid URL")
    result = run(
        "fetch", "-c", "cs.AI", "--listing-url", "http://127.0.0.1:99999", "--retries", "0"
    )
    error_line(result, 2, "not a valid URL")  # typed: refused before any request


def test_a_refused_connection_fails_at_once_and_says_so() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again: nothing listens there
    started = time.monotonic()
    result = run(
        "fetch", "-c", "cs.AI", "--listing-url", f"http://127.0.0.1:{port}", "--retries", "5",
    )  # fmt: skip
    error_line(result, 1, f"127.0.0.1:{port} refused the connection")  # which port, too
    assert "Retrying" not in result.stderr
    assert time.monotonic() - started < 10


def test_what_a_server_says_reaches_no_terminal_as_control_codes(
    raw_server: Callable[[Callable[[socket.socket], None]], str], isolated_home: Path
) -> None:
    def hostile(conn: socket.socket) -> None:
        conn.sendall(
            b"HTTP/1.1 503 \x1b]52;c;cHduZWQ=\x07Busy\x1b]0;title\x07\r\nContent-Length: 22\r\n\r\n"
            b"\x1b[2J\x1b]52;c;eA==\x07 down"
        )

    url = raw_server(hostile)
    isolated_home.mkdir(parents=True)
    results = [
        run("fetch", "-c", "cs.AI", "--listing-url", url, "--retries", "1", "--interval", "0"),
        run("ingest", url + "/feed.xml"),
    ]
    log = (isolated_home / "papertrack.log").read_text(encoding="utf-8")
    for result in results:
        assert result.exit_code == 1
        no_traceback(result)
        assert not any(c in result.stderr for c in ESCAPES), repr(result.stderr)
    assert "503" in log and not any(c in log for c in ESCAPES)


def test_a_file_name_with_escape_sequences_is_printed_and_logged_as_text(
    tmp_path: Path, isolated_home: Path
) -> None:
    feed = tmp_path / "x\x1b]52;c;aGk=\x07\x1b]0;pwn\x07\u202e.xml"
    feed.write_bytes(LISTING.read_bytes())
    result = run("ingest", "-v", str(feed))
    assert result.exit_code == 0
    missing = run("ingest", str(tmp_path / "gone\x1b[31m.xml"))
    assert missing.exit_code == 1
    log = (isolated_home / "papertrack.log").read_text(encoding="utf-8")
    for text in (result.stderr, missing.stderr, log):
        assert not any(c in text for c in (*ESCAPES, "\u202e")), repr(text)


# ------------------------------------------------------------------- odd sources and numbers


def test_a_pipe_and_an_unreadable_file_are_read_or_named(isolated_home: Path) -> None:
    env = {**os.environ, "PAPERTRACK_HOME": str(isolated_home)}
    with open(LISTING, "rb") as feed:
        piped = subprocess.run(
            [sys.executable, "-m", "papertrack", "ingest", "/dev/stdin"],
            stdin=feed,
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )
    assert piped.returncode == 0, piped.stderr
    assert "86 new" in piped.stderr
    if Path("/proc/self/mem").exists():
        error_line(run("ingest", "/proc/self/mem"), 1, "could not read /proc/self/mem")


@pytest.mark.parametrize(
    ("args", "env", "config"),
    [
        (["--interval", "nan"], {}, None),
        (["--interval", "inf"], {}, None),
        (["--timeout", "nan"], {}, None),
        (["--timeout", "inf"], {}, None),
        ([], {"PAPERTRACK_FETCH_INTERVAL": "inf"}, None),
        ([], {}, "interval = nan"),
        ([], {}, "timeout = inf"),
        ([], {"PAPERTRACK_LOCK_TIMEOUT": "nan"}, None),
    ],
)
def test_numbers_that_are_not_finite_are_refused(
    args: list[str],
    env: dict[str, str],
    config: str | None,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    if config is not None:
        isolated_home.mkdir(parents=True)
        (isolated_home / "config.toml").write_text(f"[fetch]\n{config}\n")
    result = run("fetch", "-c", "cs.AI", "--listing-url", "http://127.0.0.1:9", *args)
    error_line(result, 2, "is not a number of seconds")


# ------------------------------------------------------------------ readers and doctor agree


def test_a_paper_left_in_two_weeks_by_a_kill_is_shown_once(isolated_home: Path) -> None:
    assert run("ingest", str(LISTING)).exit_code == 0
    db = isolated_home / "store"
    # What a kill between a week move's renames and its clean-up leaves: the new copy
    # in place and named by the id map, the old copy still in its week, .dirty set.
    week = db / "papers" / "2025-08-18.json"
    data = json.loads(week.read_text())
    first = next(iter(data["papers"].values()))
    moved = dict(first, paper_date="2025-09-03T00:00:00+00:00")
    (db / "papers" / "2025-09-01.json").write_text(json.dumps({"papers": {"1": moved}}))
    shard = db / "ids" / (first["arxiv_id"][:4] + ".json")
    ids = json.loads(shard.read_text())
    ids["ids"]["1"][first["arxiv_id"]] = "2025-09-01"
    shard.write_text(json.dumps(ids))
    (db / ".dirty").write_text("1")
    for args in (["latest", "--json", "-n", "200"], ["export", "-f", "json"]):
        listed = [p["arxiv_id"] for p in json.loads(run(*args).stdout)]
        assert len(listed) == len(set(listed)) >= 85, args
    assert run("ingest", str(LISTING)).exit_code == 0  # the next writer cleans up
    listed = [p["arxiv_id"] for p in json.loads(run("export", "-f", "json").stdout)]
    assert len(listed) == len(set(listed)) == 86


def test_a_week_file_with_a_key_of_a_later_version_is_fine_for_readers_and_doctor(
    isolated_home: Path,
) -> None:
    assert run("ingest", str(LISTING)).exit_code == 0
    week = isolated_home / "store" / "papers" / "2025-08-18.json"
    data = json.loads(week.read_text())
    data["_future"] = {"written_by": "papertrack 9"}
    data["notes"] = 3
    week.write_text(json.dumps(data))
    assert run("latest", "--json", "-n", "1").exit_code == 0
    checked = run("doctor", "--json")
    assert checked.exit_code == 0 and json.loads(checked.stdout)["healthy"] is True
    data["papers"] = []  # a known table of the wrong shape is damage, for both
    week.write_text(json.dumps(data))
    error_line(run("latest", "--json"), 1, "doctor --repair")
    assert json.loads(run("doctor", "--json").stdout)["healthy"] is False


def test_invisible_characters_of_whole_unicode_classes_never_reach_an_output(
    tmp_path: Path,
) -> None:
    hidden = "\u200f\u061c\u180e\U000e0041\U000e007f\u00ad\ufe0f\u2066"
    feed = tmp_path / "feed.xml"
    text = LISTING.read_text(encoding="utf-8").replace(
        "<title>", f"<title>Agent{hidden} ", 1
    )  # fmt: skip
    feed.write_text(text, encoding="utf-8")
    assert run("ingest", str(feed)).exit_code == 0
    outputs = [
        run("latest", "-n", "3").stdout,
        run("latest", "--json", "-n", "100").stdout,
        run("export", "-f", "csv").stdout,
        run("export", "-f", "bibtex").stdout,
    ]
    for out in outputs:
        assert not any(c in out for c in hidden), [c for c in hidden if c in out]
