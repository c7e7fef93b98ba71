"""Store files on disk: reading them, TinyDB's atomic storage, and what makes one readable.

Every store file (week files, id map shards, index.json) is a TinyDB database
written whole and atomically through :func:`papertrack.files.write_atomic`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
from tinydb.storages import Storage

from papertrack.errors import StoreError
from papertrack.files import read_if_there, write_atomic

__all__ = ["PAPERS_TABLE", "REPAIR_HINT", "AtomicJSONStorage", "parse_json"]

#: The table of paper records in a week file.
PAPERS_TABLE = "papers"


def parse_json(path: Path, raw: bytes) -> Any:
    """The JSON of the store file ``path``, read as ``raw``; a damaged file is a
    StoreError naming it."""
    try:
        # orjson reads a week file of 2,000 papers in ~17 ms, json in ~28 ms.
        return orjson.loads(raw)
    except ValueError:
        pass  # json says what is wrong in its own familiar words, or reads what orjson won't
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as exc:  # RecursionError: garbage like [[[[…
        raise StoreError(f"store file {path} is damaged ({exc}). {REPAIR_HINT}") from exc


def dumps_json(data: Any) -> bytes:
    # Compact UTF-8 JSON, as json.dumps(separators=(",", ":")) would write it, but 8x
    # faster: a week file of 2,000 papers takes ~7 ms instead of ~55 ms, and a bulk
    # import or retag writes every week file it touches whole.
    return orjson.dumps(data)


class AtomicJSONStorage(Storage):
    """TinyDB storage that replaces its file atomically instead of rewriting it in place.

    TinyDB's own JSONStorage truncates and rewrites the file, so a kill during a
    write leaves it unreadable or silently cut (it did in 10 of 10 kills; see docs/store.md).
    """

    def __init__(self, path: Path, read_only: bool = False, week: bool = False) -> None:
        self.path = Path(path)
        self.read_only = read_only
        #: A week file read for its papers: checked by :func:`week_problem`.
        self.week = week

    def read(self) -> dict[str, dict[str, Any]] | None:
        raw = read_if_there(self.path)
        if raw is None:
            return None  # no file yet: an empty database
        # A file holding JSON null is damaged, not missing (shape_problem says so):
        # taken as missing, a week file of null hid its papers without a word.
        data = parse_json(self.path, raw)
        # Checked here, once, so that a garbled file is a StoreError naming it in every
        # reader rather than a KeyError deep inside TinyDB or Paper.from_record.
        problem = week_problem(data) if self.week else shape_problem(data)
        if problem or not isinstance(data, dict):
            raise StoreError(f"store file {self.path} is damaged ({problem}). {REPAIR_HINT}")
        return data

    def write(self, data: dict[str, dict[str, Any]]) -> None:
        if self.read_only:
            raise StoreError(f"{self.path} was opened read-only. This is a bug in papertrack")
        write_atomic(self.path, dumps_json(data))

    def close(self) -> None:
        pass


#: The fix every message about a damaged store file ends with.
REPAIR_HINT = "Run 'papertrack doctor --repair' to keep what can still be read and rebuild the rest"


def stat_key(path: Path) -> tuple[int, int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return (stat.st_ino, stat.st_mtime_ns, stat.st_size)


#: The tables of store files (week files, id map shards, the index).
_TABLES = frozenset({PAPERS_TABLE, "ids", "counts", "meta", "categories"})


def week_problem(data: Any) -> str | None:
    """Why ``data`` (a parsed week file) is damaged, or None: :func:`shape_problem`, or
    no papers at all. A week file that empties is removed, never written, so one of
    ``{}`` lost its papers, and read as an empty week it hid them from every command
    but doctor. Used by the readers and by doctor alike."""
    problem = shape_problem(data)
    if problem is None and not data.get(PAPERS_TABLE):
        return "it holds no papers"
    return problem


def shape_problem(data: Any) -> str | None:
    """Why ``data`` (a parsed store file) is not a TinyDB database papertrack can read, or None.

    The one definition of a readable store file, used by every reader and by
    ``doctor``. The tables papertrack reads must map numeric document ids to
    objects; paper records must carry an ``arxiv_id``, index counts a topic and its
    weeks, and the id map strings. Keys papertrack does not know are left alone (a
    later version may add some; a newer store *format* is refused by the marker).
    One pass of type checks: well under a millisecond for a week of 2,000 papers,
    against ~20 ms to parse it.
    """
    if not isinstance(data, dict):
        return f"a JSON {_json_type(data)}, not a TinyDB database"
    for name, table in data.items():
        if name not in _TABLES:
            continue
        if not isinstance(table, dict):
            return f"its table {name!r} is a JSON {_json_type(table)}"
        for doc_id, doc in table.items():
            if not doc_id.isdigit() or not isinstance(doc, dict):
                return f"record {doc_id!r} of table {name!r} is not a TinyDB document"
            if name == PAPERS_TABLE and not isinstance(doc.get("arxiv_id"), str):
                return f"paper record {doc_id} has no arxiv_id"
            if name == "counts" and not (
                isinstance(doc.get("t"), str) and isinstance(doc.get("weeks"), dict)
            ):
                return f"count record {doc_id} has no topic or weeks"
            if name == "ids" and not all(isinstance(week, str) for week in doc.values()):
                return f"id map record {doc_id} maps an id to something other than a week"
    return None


def _json_type(value: Any) -> str:
    names = {dict: "object", list: "list", str: "string", bool: "boolean", type(None): "null"}
    return names.get(type(value), "number")
