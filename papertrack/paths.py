"""Where papertrack keeps its data, and where its bundled data lives.

Nothing here creates a directory: callers create them lazily on first write.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

APP_NAME = "papertrack"

# The files papertrack keeps in its data home, by name. Every module names its
# files from here, so this is the one list of what papertrack owns there (``-o``
# refuses to write over any of them; see :func:`is_own_file`).
#: The store's folder, unless --db or PAPERTRACK_DB name another.
STORE_FOLDER = "store"
#: The models taught topics learned, a file a topic.
MODELS_FOLDER = "models"
TOPICS_FILE = "topics.toml"
EXAMPLES_FILE = "examples.json"
CONFIG_FILE = "config.toml"
#: The topics ``follow`` adds, and when each was followed.
FOLLOWING_FILE = "following.json"
#: When ``digest`` last ran, and what it showed.
DIGEST_STATE_FILE = "digest-state.json"
DIGEST_LOCK = "digest.lock"
LOG_FILE = "papertrack.log"
#: Held while teach, add and remove change what topics were taught.
TEACH_LOCK = ".teach.lock"
FETCH_LOCK = "fetch.lock"
FETCH_CHECKPOINT = "fetch-checkpoint.json"
#: The day of the last listing fetched, per category: how a fetch finds the listings
#: a failed or skipped run missed.
FETCH_LISTINGS = "fetch-listings.json"
#: Held while either fetch file above is read, changed and written back.
FETCH_STATE_LOCK = "fetch-state.lock"
#: Fetch's run locks, one for each set of categories, whose names match this.
FETCH_RUN_LOCKS = "fetch-run-*.lock"
OWN_FILES = (
    TOPICS_FILE,
    EXAMPLES_FILE,
    CONFIG_FILE,
    FOLLOWING_FILE,
    DIGEST_STATE_FILE,
    DIGEST_LOCK,
    LOG_FILE,
    TEACH_LOCK,
    FETCH_LOCK,
    FETCH_CHECKPOINT,
    FETCH_LISTINGS,
    FETCH_STATE_LOCK,
)


def home(env: Mapping[str, str] | None = None) -> Path:
    """The data home: ``PAPERTRACK_HOME`` if set, else the platform's user data dir."""
    env = os.environ if env is None else env
    value = env.get("PAPERTRACK_HOME")
    if value:
        # Absolute: `path --json` and every message name it so, right from any folder
        # (a cron job's is not the one the variable was written in).
        return _expanded(value, "PAPERTRACK_HOME")
    import platformdirs  # deferred: only needed when no PAPERTRACK_HOME is set

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def store_dir(
    db: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None
) -> Path:
    """The store directory: ``--db`` > ``PAPERTRACK_DB`` > ``<home>/store``."""
    env = os.environ if env is None else env
    if db:
        return _expanded(db, "the store's path")
    value = env.get("PAPERTRACK_DB")
    if value:
        return _expanded(value, "PAPERTRACK_DB")
    return home(env) / STORE_FOLDER


def _expanded(value: str | os.PathLike[str], what: str) -> Path:
    """``value`` with ``~`` expanded, made absolute.

    Raises:
        StoreError: ``~name`` names no user of this machine (pathlib's RuntimeError
            reached the command line as "papertrack failed unexpectedly").
    """
    try:
        return Path(value).expanduser().absolute()
    except RuntimeError:
        from papertrack.errors import StoreError

        raise StoreError(
            f"{what} {os.fspath(value)!r} starts with a ~user this machine has no home "
            "for. Write the path in full"
        ) from None


def user_topics_file(env: Mapping[str, str] | None = None) -> Path:
    """The user's topics file (TOML), which adds to and overrides the default catalog."""
    return home(env) / TOPICS_FILE


def user_models_dir(env: Mapping[str, str] | None = None) -> Path:
    """Models the user taught (``topics teach``, ``topics add --like``), one file per topic."""
    return home(env) / MODELS_FOLDER


def user_model_file(slug: str, env: Mapping[str, str] | None = None) -> Path:
    """The model the user taught the topic ``slug`` (in :func:`user_models_dir`)."""
    return user_models_dir(env) / f"{slug}.json"


def user_examples_file(env: Mapping[str, str] | None = None) -> Path:
    """The papers the user taught each topic with: slug -> {id: in the topic?}."""
    return home(env) / EXAMPLES_FILE


def labels_file() -> Path:
    """The labelled papers the default models were fitted on (shipped with papertrack)."""
    return data_dir() / "labels" / "corpus.jsonl.gz"


def config_file(env: Mapping[str, str] | None = None) -> Path:
    """The optional config.toml with defaults for repeated options (see papertrack.config)."""
    return home(env) / CONFIG_FILE


def fetch_pace_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where the time of the last arXiv request is kept, shared by every data home.

    arXiv's rate limit is per machine, not per data home, so two papertrack
    processes with different PAPERTRACK_HOMEs must still queue behind each other:
    ``PAPERTRACK_FETCH_LOCK_DIR`` if set, else a per-user folder in the system's
    temporary directory. A folder there that another user owns is not trusted;
    the data home is used instead.
    """
    env = os.environ if env is None else env
    value = env.get("PAPERTRACK_FETCH_LOCK_DIR")
    if value:
        return _expanded(value, "PAPERTRACK_FETCH_LOCK_DIR")
    import tempfile

    user = str(os.getuid()) if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    folder = Path(tempfile.gettempdir()) / f"papertrack-{user}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        stat = folder.lstat()
        if hasattr(os, "getuid") and (stat.st_uid != os.getuid() or folder.is_symlink()):
            return home(env)
    except OSError:
        return home(env)
    return folder


def rotated(log: Path) -> Path:
    """Where a log past its size is moved to: ``papertrack.log.1``."""
    return log.with_name(log.name + ".1")


def is_own_file(path: Path, env: Mapping[str, str] | None = None) -> bool:
    """Whether ``path`` (after symbolic links) is one of papertrack's files in the
    data home: one of :data:`OWN_FILES`, the rotated log or a fetch run lock."""
    import fnmatch

    target = Path(os.path.realpath(path))
    where = home(env)
    named = (*OWN_FILES, rotated(Path(LOG_FILE)).name)
    if target in {Path(os.path.realpath(where / name)) for name in named}:
        return True
    in_home = target.parent == Path(os.path.realpath(where))
    return in_home and fnmatch.fnmatch(target.name, FETCH_RUN_LOCKS)


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
