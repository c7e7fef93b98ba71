"""papertrack: track arXiv papers by topic, from the terminal and from Python.

The Python API (:mod:`papertrack.api`) is imported on first use, so that
``papertrack latest`` starts without it::

    import papertrack
    store = papertrack.open_store()
    papers = papertrack.latest_papers(store, "llm-agent-training", limit=5)
"""

from __future__ import annotations

from typing import Any

__version__ = "0.2.1"

__all__ = [
    "__version__",
    "ask_question",
    "ingest_files",
    "latest_papers",
    "load_catalog",
    "open_store",
    "search_papers",
    "topic_momentum",
]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from papertrack import api

        return getattr(api, name)
    raise AttributeError(f"module 'papertrack' has no attribute {name!r}")
