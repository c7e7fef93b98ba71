"""The papertrack command line: parse options, call the core, render, set the exit code.

Each module registers its commands on the one Typer app of :mod:`papertrack.cli.common`.
Heavy modules (feedparser, dateutil) are imported inside the commands that need
them, so ``papertrack latest`` starts fast from cron.
"""

from __future__ import annotations

# Commands register on import, and --help lists them in that order: papers first.
# isort: off
from papertrack.cli import papers  # noqa: F401
from papertrack.cli import fetch, momentum, topics  # noqa: F401
from papertrack.cli import find  # noqa: F401
from papertrack.cli import digest  # noqa: F401
from papertrack.cli import doctor  # noqa: F401

# isort: on
from papertrack.cli.common import app

__all__ = ["app", "main"]


def main() -> None:
    """Console-script entry point."""
    app(prog_name="papertrack")
