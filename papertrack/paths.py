"""Where papertrack keeps its data, and where its bundled data lives.

Nothing here creates a directory: callers create them lazily on first write.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

APP_NAME = "papertrack"


def home(env: Mapping[str, str] | None = None) -> Path:
    """The data home: ``PAPERTRACK_HOME`` if set, else the platform's user data dir."""
    env = os.environ if env is None else env
    value = env.get("PAPERTRACK_HOME")
    if value:
        return Path(value).expanduser()
    import platformdirs  # deferred: only needed when no PAPERTRACK_HOME is set

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def store_dir(
    db: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None
) -> Path:
    """The store directory: ``--db`` > ``PAPERTRACK_DB`` > ``<home>/store``."""
    env = os.environ if env is None else env
    if db:
        return Path(db).expanduser()
    value = env.get("PAPERTRACK_DB")
    if value:
        return Path(value).expanduser()
    return home(env) / "store"


def user_topics_file(env: Mapping[str, str] | None = None) -> Path:
    """The user's topics file (TOML), which adds to and overrides the default catalog."""
    return home(env) / "topics.toml"


def config_file(env: Mapping[str, str] | None = None) -> Path:
    """The optional config.toml with defaults for repeated options (see papertrack.config)."""
    return home(env) / "config.toml"


def data_dir() -> Path:
    """The bundled ``data/`` directory: inside the wheel, or at the top of a checkout."""
    package = Path(__file__).resolve().parent
    installed = package / "_data"
    if installed.is_dir():
        return installed
    return package.parent / "data"


def default_topics_file() -> Path:
    return data_dir() / "topics.toml"


def samples_dir() -> Path:
    return data_dir() / "samples"
