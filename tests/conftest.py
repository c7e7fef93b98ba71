"""Shared fixtures: every test gets its own data home; nothing touches the real one."""

from __future__ import annotations

import shutil
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer.testing

from tests.synthetic import Corpus, corpus

DATA = Path(__file__).parent / "data"

# The Ctrl-C tests send SIGINT as a terminal does. A suite started in the background
# of a script (`pytest &`) inherits SIGINT ignored, which survives exec into every
# papertrack the tests start, and those tests then failed. A handler does not
# survive exec: the processes started from here begin with SIGINT's default, as
# at a terminal.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


# Typer's test runner turns the app into a Click command on every invoke: 35 ms
# of reading every command's signature, about a quarter of what the suite's
# thousands of in-process runs took. The command is the same every time (Click
# makes a new context for each run), so it is made once per app. The real entry
# point builds it once a process, for the one command it runs.
_made: dict[int, Any] = {}
_make_command = typer.testing._get_command


def _command_once(app: Any) -> Any:
    if id(app) not in _made:
        _made[id(app)] = (app, _make_command(app))  # the app kept: its id is not reused
    return _made[id(app)][1]


typer.testing._get_command = _command_once  # type: ignore[attr-defined]


def _isolate(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point papertrack (and HOME) into ``folder``; the data home is ``folder/papertrack-home``."""
    home = folder / "papertrack-home"
    monkeypatch.setenv("PAPERTRACK_HOME", str(home))
    monkeypatch.setenv("HOME", str(folder / "user-home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(folder / "xdg-data"))
    monkeypatch.delenv("PAPERTRACK_DB", raising=False)
    monkeypatch.delenv("PAPERTRACK_LOCK_TIMEOUT", raising=False)
    monkeypatch.delenv("PAPERTRACK_WORKERS", raising=False)
    monkeypatch.setenv("PAPERTRACK_FETCH_LOCK_DIR", str(folder / "fetch-pace"))
    # Retries at once: the tests' servers fail on purpose (the default waits a second).
    monkeypatch.setenv("PAPERTRACK_FETCH_BACKOFF", "0")
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("NO_COLOR", "1")
    # A machine's proxy settings (a CI runner's, for its package index) are not the
    # tests': their servers are on 127.0.0.1, and the proxy tests set their own.
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    return home


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield _isolate(tmp_path, monkeypatch)


@pytest.fixture(scope="session")
def _ingested_sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data home after ``papertrack ingest --sample``, made once per test process."""
    from tests.helpers import run

    with pytest.MonkeyPatch.context() as monkeypatch:
        home = _isolate(tmp_path_factory.mktemp("sample"), monkeypatch)
        result = run("ingest", "--sample")
    assert result.exit_code == 0, result.stderr
    return home


@pytest.fixture
def sample_home(isolated_home: Path, _ingested_sample: Path) -> Path:
    """This test's data home, holding what ``papertrack ingest --sample`` leaves there.

    Ingesting the sample's ~4,800 real papers takes 10-20 s here; copying the
    result (a store keeps no absolute path) takes well under one. ``tests/test_cli.py``
    and the docs' sessions run the ingest itself.
    """
    shutil.copytree(_ingested_sample, isolated_home)
    return isolated_home


@pytest.fixture
def data_dir() -> Path:
    return DATA


@pytest.fixture(scope="module")
def train() -> Corpus:
    """600 papers of the synthetic corpus of tests/synthetic.py, to learn from."""
    return corpus(600, seed=1)


@pytest.fixture(scope="module")
def held_out() -> Corpus:
    """400 more, to score."""
    return corpus(400, seed=2)
