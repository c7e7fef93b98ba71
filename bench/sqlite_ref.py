"""The reference papertrack is measured against: the same papers in an indexed SQLite file.

``build(store, db)`` copies every paper of a papertrack store (with the tags
papertrack gave it) into SQLite, indexed for the two questions benchmarked. Run
as a script, it answers one of them in a fresh process the way the CLI would:
importing the same libraries (typer, rich, tinydb, dateutil), querying, and
printing a Rich table, so that the comparison is of stores, not of start-up.

    python bench/sqlite_ref.py DB latest TOPIC
    python bench/sqlite_ref.py DB momentum TOPIC --as-of 2026-11-22
"""

from __future__ import annotations

import json
import sqlite3
import sys
from datetime import date, timedelta
from pathlib import Path

SCHEMA = """
CREATE TABLE papers (
    id TEXT PRIMARY KEY, paper_date TEXT, primary_category TEXT,
    title TEXT, authors TEXT, record TEXT
);
CREATE TABLE tags (tag TEXT, paper_date TEXT, id TEXT);
"""
INDEXES = """
CREATE INDEX tags_by_topic_date ON tags (tag, paper_date);
CREATE INDEX papers_by_date ON papers (paper_date);
"""


def build(store: Path, db: Path) -> int:
    """Copy every paper of ``store`` into a new SQLite file ``db``; returns how many."""
    db.unlink(missing_ok=True)
    con = sqlite3.connect(db)
    con.executescript(SCHEMA)
    count = 0
    for week_file in sorted((store / "papers").glob("*.json")):
        docs = json.loads(week_file.read_bytes()).get("papers", {}).values()
        rows, tags = [], []
        for doc in docs:
            when = doc.get("paper_date") or ""
            rows.append(
                (
                    doc["arxiv_id"],
                    when,
                    doc.get("primary_category"),
                    doc.get("title"),
                    json.dumps(doc.get("authors") or []),
                    json.dumps(doc),
                )
            )
            tags.extend((tag, when, doc["arxiv_id"]) for tag in doc.get("tags") or ())
        con.executemany("INSERT INTO papers VALUES (?, ?, ?, ?, ?, ?)", rows)
        con.executemany("INSERT INTO tags VALUES (?, ?, ?)", tags)
        count += len(rows)
    con.executescript(INDEXES)
    con.commit()
    con.close()
    return count


def latest(con: sqlite3.Connection, topic: str, limit: int = 20) -> None:
    from rich.console import Console
    from rich.table import Table

    rows = con.execute(
        "SELECT p.paper_date, p.primary_category, p.title, p.authors FROM tags t "
        "JOIN papers p ON p.id = t.id WHERE t.tag = ? ORDER BY t.paper_date DESC LIMIT ?",
        (topic, limit),
    ).fetchall()
    table = Table(title=f"{topic} — latest papers ({len(rows)})")
    for column in ("Date", "Category", "Title", "Authors"):
        table.add_column(column)
    for when, category, title, authors in rows:
        names = json.loads(authors)
        shown = ", ".join(names[:3]) + (f" +{len(names) - 3}" if len(names) > 3 else "")
        table.add_row(when[:10], category or "", title, shown)
    Console().print(table)


def momentum(con: sqlite3.Connection, topic: str, as_of: date, weeks: int = 12) -> None:
    from rich.console import Console
    from rich.table import Table

    start = as_of - timedelta(weeks=weeks) + timedelta(days=1)
    lo, hi = start.isoformat(), (as_of + timedelta(days=1)).isoformat()
    per_day = dict(
        con.execute(
            "SELECT substr(paper_date, 1, 10), count(*) FROM tags WHERE tag = ? "
            "AND paper_date >= ? AND paper_date < ? GROUP BY 1",
            (topic, lo, hi),
        ).fetchall()
    )
    window = (as_of - timedelta(days=27)).isoformat()
    (everything,) = con.execute(
        "SELECT count(*) FROM papers WHERE paper_date >= ? AND paper_date < ?", (window, hi)
    ).fetchone()
    table = Table(title=f"{topic} — momentum as of {as_of}")
    table.add_column("Week of")
    table.add_column("Papers", justify="right")
    for n in range(weeks):
        first = start + timedelta(weeks=n)
        count = sum(per_day.get((first + timedelta(days=d)).isoformat(), 0) for d in range(7))
        table.add_row(first.isoformat(), str(count))
    now = sum(v for k, v in per_day.items() if k >= window)
    Console().print(table)
    Console().print(f"{now} papers in the last four weeks, of {everything} in all.")


def main() -> None:
    # The libraries papertrack's CLI imports, so that start-up costs the same.
    import dateutil.parser  # noqa: F401
    import tinydb  # noqa: F401
    import typer  # noqa: F401

    db, command, topic = sys.argv[1], sys.argv[2], sys.argv[3]
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    if command == "latest":
        latest(con, topic)
    else:
        as_of = date.fromisoformat(sys.argv[sys.argv.index("--as-of") + 1])
        momentum(con, topic, as_of)


if __name__ == "__main__":
    main()
