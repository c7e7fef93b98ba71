"""papertrack: track arXiv papers by topic, from the terminal."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
