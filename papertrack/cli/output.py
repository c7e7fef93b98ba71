"""The output layer: every command writes JSON, JSON lines, CSV and tables through here.

One place decides how data leaves papertrack, so every command gets the same
guarantees:

* JSON goes through :func:`papertrack.text.json_text`, which writes non-ASCII as
  is but escapes every control, bidi and invisible character (a title cannot
  move a terminal's cursor through ``jq``'s output);
* every CSV cell goes through :func:`papertrack.export.csv_cell`, so feed text
  that starts like a spreadsheet formula (``=HYPERLINK(…)``) is written inert;
  lists are joined with ``"; "``, None is empty, booleans are ``true``/``false``;
* tables are Rich renderables printed on standard output, and only when there is
  something to show (the command says "nothing" on stderr instead).

Commands choose a :class:`~papertrack.cli.common.Format` (or their own subset)
and call :func:`emit`, :func:`emit_json`, :func:`emit_lines` or :func:`emit_csv`.
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from papertrack.text import json_text

__all__ = ["cell", "emit", "emit_csv", "emit_json", "emit_lines", "emit_text"]


def emit_json(data: Any) -> None:
    """``data`` as one indented JSON document."""
    sys.stdout.write(json_text(data, indent=2) + "\n")


def emit_lines(rows: Iterable[Any]) -> None:
    """One compact JSON document per line (JSON lines)."""
    sys.stdout.writelines(json_text(row) + "\n" for row in rows)


def cell(value: Any) -> str:
    """A CSV cell: lists joined with '; ', None empty, booleans lower case, text made inert."""
    from papertrack.export import csv_cell

    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return csv_cell("; ".join(str(v) for v in value))
    if isinstance(value, int | float):
        return str(value)  # papertrack's own numbers: a negative change is not a formula
    return csv_cell(str(value))


def emit_csv(columns: Sequence[str], rows: Iterable[Mapping[str, Any] | Sequence[Any]]) -> None:
    """A header of ``columns``, then a row per mapping (by column) or sequence (in order)."""
    write_csv(
        columns,
        (
            [cell(v) for v in ([row.get(c) for c in columns] if isinstance(row, Mapping) else row)]
            for row in rows
        ),
    )


def write_csv(columns: Sequence[str], rows: Iterable[Sequence[str]]) -> None:
    """A header of ``columns``, then ``rows`` of cells made inert already (:func:`cell`,
    or :func:`papertrack.export.csv_row`)."""
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(rows)


def emit_text(text: str) -> None:
    """Plain text for people, with nothing a terminal could act on."""
    from papertrack.text import visible

    sys.stdout.write(visible(text, keep_lines=True) + "\n")


def emit(
    fmt: str,
    rows: Sequence[Any],
    table: Callable[[], Any] | None,
    *,
    columns: Sequence[str] | None = None,
    document: Any = None,
) -> None:
    """Write ``rows`` as ``fmt`` ('json', 'jsonl', 'csv', or 'table'/'text' for ``table()``).

    ``document`` replaces ``rows`` as the JSON document when given (a command whose
    JSON is an object rather than a list). CSV needs ``columns`` (default: the keys of
    the first row). ``table`` is called only for a table, and only with rows to show.
    """
    if fmt == "json":
        emit_json(rows if document is None else document)
    elif fmt == "jsonl":
        emit_lines(rows)
    elif fmt == "csv":
        if columns is None:
            columns = list(rows[0]) if rows and isinstance(rows[0], Mapping) else []
        emit_csv(columns, rows)
    elif rows and table is not None:
        from papertrack.cli.common import out

        out().print(table())
