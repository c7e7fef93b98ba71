"""papertrack: track arXiv papers by topic, from the terminal and from Python.

From Python::

    import papertrack
    store = papertrack.open_store()
    papers = papertrack.latest_papers(store, "llm-agent-training", limit=5)

The functions: open_store, load_catalog, refresh_tags, ingest_files, latest_papers,
topic_momentum, trending_topics, search_papers, get_paper and ask_question (see
``help(papertrack.api)``); errors are PapertrackError. They are imported on first
use, so that ``papertrack latest`` starts without them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what a type checker and an editor see; imported on first use
    from papertrack.api import (
        ask_question,
        get_paper,
        ingest_files,
        latest_papers,
        load_catalog,
        open_store,
        refresh_tags,
        search_papers,
        topic_momentum,
        trending_topics,
    )
    from papertrack.errors import PapertrackError

__version__ = "0.3.0"

__all__ = [
    "PapertrackError",
    "__version__",
    "ask_question",
    "get_paper",
    "ingest_files",
    "latest_papers",
    "load_catalog",
    "open_store",
    "refresh_tags",
    "search_papers",
    "topic_momentum",
    "trending_topics",
]


def __getattr__(name: str) -> Any:
    if name in ("api", "errors"):
        # `help(papertrack.api)`, `papertrack.errors.SourcesFailed`: the modules the
        # docs name, loaded on first use as the functions are.
        import importlib

        return importlib.import_module(f"papertrack.{name}")
    if name == "PapertrackError":
        from papertrack.errors import PapertrackError

        return PapertrackError
    if name in __all__:
        from papertrack import api

        return getattr(api, name)
    raise AttributeError(f"module 'papertrack' has no attribute {name!r}")


def __dir__() -> list[str]:
    # What a notebook completes: the API, not this module's imports.
    return sorted({*__all__, "api", "errors"})
