"""Shared fixtures: every test gets its own data home; nothing touches the real one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.synthetic import Corpus, corpus

DATA = Path(__file__).parent / "data"


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path / "papertrack-home"
    monkeypatch.setenv("PAPERTRACK_HOME", str(home))
    monkeypatch.setenv("HOME", str(tmp_path / "user-home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.delenv("PAPERTRACK_DB", raising=False)
    monkeypatch.delenv("PAPERTRACK_LOCK_TIMEOUT", raising=False)
    monkeypatch.delenv("PAPERTRACK_WORKERS", raising=False)
    monkeypatch.setenv("PAPERTRACK_FETCH_LOCK_DIR", str(tmp_path / "fetch-pace"))
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("NO_COLOR", "1")
    yield home


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
