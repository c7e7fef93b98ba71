"""Work spread over forked workers gives what one process gives, in order, and a
retag with workers stores exactly the tags a retag without them stores."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from papertrack import parallel
from tests.helpers import LISTING, error_line, run


def _square_and_pid(offset: int, item: int) -> tuple[int, int]:
    return item * item + offset, os.getpid()


@pytest.mark.skipif(not parallel._can_fork(), reason="needs fork")
def test_forked_map_keeps_order_and_runs_in_other_processes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(parallel.WORKERS_ENV, "2")
    results = list(parallel.forked_map(_square_and_pid, 7, list(range(40))))
    assert [value for value, _ in results] == [i * i + 7 for i in range(40)]
    assert os.getpid() not in {pid for _, pid in results}


def _blas_threads(_: None, item: int) -> tuple[int, list[int]]:
    from threadpoolctl import threadpool_info

    return os.getpid(), [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


@pytest.mark.skipif(not parallel._can_fork(), reason="needs fork")
def test_forked_workers_use_one_blas_thread_each(monkeypatch: pytest.MonkeyPatch) -> None:
    # Workers take every core already: BLAS threads of their own oversubscribe them.
    import numpy  # noqa: F401 - loads numpy's BLAS before the fork
    from threadpoolctl import threadpool_limits

    monkeypatch.setenv(parallel.WORKERS_ENV, "2")
    with threadpool_limits(limits=2):  # what the workers would inherit
        _, here = _blas_threads(None, 0)
        if set(here) != {2}:
            pytest.skip(f"this BLAS would not take 2 threads here ({here})")
        found = list(parallel.forked_map(_blas_threads, None, list(range(6))))
    assert os.getpid() not in {pid for pid, _ in found}
    assert all(threads and set(threads) == {1} for _, threads in found)


@pytest.mark.skipif(not parallel._can_fork(), reason="needs fork")
def test_workers_run_when_the_blas_limit_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    import threadpoolctl

    def broken(**_: object) -> None:
        raise RuntimeError("no BLAS to limit")

    monkeypatch.setattr(threadpoolctl, "threadpool_limits", broken)
    monkeypatch.setenv(parallel.WORKERS_ENV, "2")
    results: list[tuple[int, int]] = []
    # A worker whose start fails is started again and again: without the guard
    # this would never end, so it runs in a thread that is given a minute.
    work = threading.Thread(
        target=lambda: results.extend(parallel.forked_map(_square_and_pid, 1, list(range(8)))),
        daemon=True,
    )
    work.start()
    work.join(timeout=60)
    assert not work.is_alive(), "the workers never started"
    assert [value for value, _ in results] == [i * i + 1 for i in range(8)]
    assert os.getpid() not in {pid for _, pid in results}


def test_one_worker_or_no_spread_runs_here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(parallel.WORKERS_ENV, "1")
    assert {pid for _, pid in parallel.forked_map(_square_and_pid, 0, [1, 2, 3])} == {os.getpid()}
    monkeypatch.setenv(parallel.WORKERS_ENV, "4")
    spread = parallel.forked_map(_square_and_pid, 0, [1, 2], spread=False)
    assert {pid for _, pid in spread} == {os.getpid()}


@pytest.mark.parametrize(("given", "expected"), [("3", 3), (" 2 ", 2), ("99", 8)])
def test_the_worker_count_reads_the_environment(
    monkeypatch: pytest.MonkeyPatch, given: str, expected: int
) -> None:
    monkeypatch.setenv(parallel.WORKERS_ENV, given)
    assert parallel.worker_count() == expected


def test_a_bad_worker_count_is_one_line_and_changes_nothing(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run("ingest", str(LISTING)).exit_code == 0
    paper = json.loads(run("latest", "--json", "-n", "1").stdout)[0]["arxiv_id"]
    before = _stored_tags(isolated_home)
    for bad in ("many", "0", "-2", "1.5"):
        monkeypatch.setenv(parallel.WORKERS_ENV, bad)
        error_line(
            run("topics", "teach", "gui-agents", paper), 2, "PAPERTRACK_WORKERS=", "1 or more"
        )
    assert _stored_tags(isolated_home) == before
    assert not (isolated_home / "examples.json").exists()


def _stored_tags(home: Path) -> dict[str, list[str]]:
    tags: dict[str, list[str]] = {}
    for week in sorted((home / "store" / "papers").glob("*.json")):
        for doc in json.loads(week.read_text())["papers"].values():
            tags[doc["arxiv_id"]] = doc["tags"]
    return tags


@pytest.mark.slow
@pytest.mark.skipif(not parallel._can_fork(), reason="needs fork")
def test_a_retag_spread_over_workers_stores_what_one_process_stores(
    sample_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The sample: ~4,800 real papers, above SPREAD_AT.
    tagged = json.loads(run("latest", "llm-agent-training", "--json", "-n", "5").stdout)
    untagged = next(
        p["arxiv_id"]
        for p in json.loads(run("latest", "--json", "-n", "50").stdout)
        if "llm-agent-training" not in p["tags"]
    )
    copy = sample_home.parent / "second-home"
    shutil.copytree(sample_home, copy)
    said = {}
    for home, workers in ((sample_home, "1"), (copy, "2")):
        monkeypatch.setenv("PAPERTRACK_HOME", str(home))
        monkeypatch.setenv(parallel.WORKERS_ENV, workers)
        result = run(
            "topics", "teach", "llm-agent-training", untagged, "--not", tagged[0]["arxiv_id"]
        )
        assert result.exit_code == 0, result.stderr
        said[workers] = result.stderr
    assert said["1"] == said["2"] and "+" in said["1"]
    serial, spread = _stored_tags(sample_home), _stored_tags(copy)
    assert len(serial) > 4000 and serial == spread
    assert "llm-agent-training" in serial[untagged]
    assert "llm-agent-training" not in serial[tagged[0]["arxiv_id"]]


def python_child(script: str, **options: Any) -> subprocess.Popen[str]:
    """``python -c script``, its output piped as text."""
    return subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **options,
    )


SLOW_POOL = """
import os, sys, time
from papertrack import parallel

def work(state, item):
    os.write(1, b"started\\n")  # one write: the two workers' lines do not mix
    time.sleep(5)
    return item

list(parallel.forked_map(work, None, [1, 2]))
"""


def test_workers_whose_parent_is_killed_stop_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A teach killed with SIGKILL (cron's `timeout -s KILL`) left its workers to
    finish and print a BrokenPipeError traceback each into the cron mail."""
    import signal
    import time

    monkeypatch.setenv("PAPERTRACK_WORKERS", "2")
    child = python_child(SLOW_POOL)
    assert child.stdout is not None and child.stderr is not None
    assert child.stdout.readline().startswith("started")
    started = time.monotonic()
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    # EOF comes when every holder of the pipe, the workers too, has exited.
    errors = child.stderr.read()
    assert "Traceback" not in errors, errors
    assert time.monotonic() - started < 4  # stopped with the parent, not after their task


CTRL_C_IN_A_FORK = """
import os, signal
from papertrack.parallel import forked_map

def square(state, item):
    return item * item

sent = []

def interrupt():
    # Ctrl-C arriving while the pool forks its workers.
    if not sent:
        sent.append(1)
        os.kill(os.getpid(), signal.SIGINT)

os.register_at_fork(after_in_parent=interrupt)
try:
    print(list(forked_map(square, None, list(range(6)))))
except KeyboardInterrupt:
    print("interrupted")
"""


def test_ctrl_c_while_the_workers_fork_stops_the_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Ctrl-C during a fork was raised in logging's fork hook, where Python ignores
    it: the teach printed "Exception ignored ... KeyboardInterrupt" and ran on to its
    end with exit 0 (1 in 25 interrupted teaches)."""
    import subprocess
    import sys

    monkeypatch.setenv("PAPERTRACK_WORKERS", "2")
    done = subprocess.run(
        [sys.executable, "-c", CTRL_C_IN_A_FORK], capture_output=True, text=True, timeout=60
    )
    assert done.stdout.strip() == "interrupted", (done.stdout, done.stderr)
    assert "Exception ignored" not in done.stderr, done.stderr


TWO_CTRL_CS = """
import signal, threading, time
from papertrack.parallel import forked_map

def slow(state, item):
    time.sleep(3)
    return item

main = threading.main_thread().ident

def second():
    # The second Ctrl-C, while the pool waits for its workers' items to end.
    time.sleep(0.3)
    signal.pthread_kill(main, signal.SIGINT)

ahead = forked_map(slow, None, list(range(8)))
try:
    for item in ahead:
        threading.Thread(target=second).start()
        raise KeyboardInterrupt  # the first
except KeyboardInterrupt:
    try:
        ahead.close()
    except KeyboardInterrupt:
        import glob, os
        from concurrent.futures.process import _ExecutorManagerThread
        # Stopped, not stopping: the workers gone and reaped (no child process at all,
        # zombies included) and the pool's manager thread done (the exit raced it
        # closing its pipe: "Exception ignored ... Errno 9").
        kids = []
        for listed in glob.glob(f"/proc/{os.getpid()}/task/*/children"):
            try:
                kids += open(listed).read().split()
            except FileNotFoundError:  # a thread that ended meanwhile
                pass
        managers = [t for t in threading.enumerate() if isinstance(t, _ExecutorManagerThread)]
        print("interrupted twice", len(kids), sum(t.is_alive() for t in managers), flush=True)
"""


def test_a_second_ctrl_c_while_the_workers_stop_does_not_hang(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A second Ctrl-C (or SIGTERM: GNU timeout signals the command, then its process
    group) cut the pool's shutdown short, and the workers waited for work that never
    came: the command hung at its exit for good, holding the store's lock (1 run in
    8 of `timeout -s INT 3.4 papertrack topics teach ...` on a large store)."""
    import subprocess

    monkeypatch.setenv("PAPERTRACK_WORKERS", "2")
    child = python_child(TWO_CTRL_CS, start_new_session=True)
    try:
        out, err = child.communicate(timeout=40)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, 9)
        child.communicate()
        pytest.fail("the process hung at its exit, its workers waiting for work")
    assert out.strip() == "interrupted twice 0 0", (out, err)
    assert "Traceback" not in err, err


ONE_CTRL_C = """
import os, signal, threading, time
from papertrack.parallel import forked_map

def slow(state, item):
    time.sleep(2)
    return item

def press():
    time.sleep(0.5)  # the workers are busy with their first items
    signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)

threading.Thread(target=press).start()
try:
    print(list(forked_map(slow, None, list(range(8)))))
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""


def test_ctrl_c_on_a_terminal_says_the_workers_are_finishing() -> None:
    """The wait for each worker to end its week file took up to 12 s on the real
    papers, and nothing was said meanwhile: it read as a hang."""
    import sys

    from helpers import run_argv_in_pty

    env = {**os.environ, "PAPERTRACK_WORKERS": "2"}
    _, seen = run_argv_in_pty([sys.executable, "-c", ONE_CTRL_C], env=env)
    text = seen.decode()
    assert "Stopping: each worker finishes the file it is writing" in text, text
    assert text.index("Stopping:") < text.index("interrupted"), text


WORKER_KILLED = """
import os, signal, time
from papertrack.errors import PapertrackError
from papertrack.parallel import forked_map

def work(state, item):
    if item == 3:
        os.kill(os.getpid(), signal.SIGKILL)  # the OOM killer, or a kill of a "stray" python
    time.sleep(0.05)
    return item

try:
    print(list(forked_map(work, None, list(range(40)))))
except PapertrackError as exc:
    print("error:", exc)
"""


def test_a_worker_killed_mid_work_is_an_error_not_a_wait_for_ever(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """multiprocessing.Pool waited for a dead worker's result for ever, and SIGTERM
    could not stop the wait: the command held the store lock, and every cron run
    after it failed on the lock."""
    import subprocess
    import sys

    monkeypatch.setenv("PAPERTRACK_WORKERS", "2")
    done = subprocess.run(
        [sys.executable, "-c", WORKER_KILLED], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("error: a worker process stopped unexpectedly"), done.stdout
    assert "PAPERTRACK_WORKERS=1" in done.stdout and "Traceback" not in done.stderr


WORKER_RAISES = """
from papertrack.errors import QuerySyntaxError
from papertrack.parallel import forked_map

class Odd(Exception):
    def __init__(self, a, b):
        super().__init__(f"odd {a} {b}")

def work(state, item):
    if item == 2:
        raise QuerySyntaxError("unbalanced parenthesis at column 3", 3)
    if item == 5:
        raise Odd(1, 2)
    return item

for items in ([0, 1, 2, 3], [4, 5, 6]):
    try:
        list(forked_map(work, None, items))
    except Exception as exc:
        print(type(exc).__name__, getattr(exc, "column", "-"), exc)
"""


def test_an_error_a_worker_raises_reaches_the_parent_as_it_was(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A QuerySyntaxError (two arguments) raised in a worker could not be sent back:
    the pool broke, and the error was said as a worker killed or out of memory."""
    import subprocess
    import sys

    monkeypatch.setenv("PAPERTRACK_WORKERS", "2")
    done = subprocess.run(
        [sys.executable, "-c", WORKER_RAISES], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "QuerySyntaxError 3 unbalanced parenthesis at column 3",
        "_Unsent - Odd: odd 1 2",
    ]
