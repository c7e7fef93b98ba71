"""The full-text index: an SQLite FTS5 table beside the store, to find candidates fast.

The TinyDB week files stay the store of record. This index only *narrows*: a
query is turned into an FTS5 expression that matches every paper the exact
matcher (:mod:`papertrack.topics`) could accept, and more; the exact matcher
then decides on the stored record. So every answer is the answer a full scan
gives, read from a few week files instead of all of them.

Layout (``search.sqlite`` in the store directory):

* ``text``: FTS5, contentless (``content=''``: the text is not stored twice),
  ``detail=column`` (which column a word is in, no positions: a phrase is looked
  up as all of its words, which is a superset), columns title, abstract, authors,
  categories. The text put in is already folded and split by the query
  language's own tokenizer, so the ``ascii`` tokenizer sees exactly the query
  language's words (non-ASCII letters are word characters to both). Each
  column holds each word once: with ``detail=column`` counts are not kept anyway.
* ``docs``: rowid -> (arxiv_id, week). An updated paper gets a new rowid; its
  old FTS row stays behind, unreachable (contentless rows cannot be deleted on
  this SQLite without their old text). ``meta.orphans`` counts them, and a
  rebuild drops them.
* ``meta``: ``version`` of this layout, and ``synced``: the ``generation`` of the
  store's index.json (a random token, new at every write) when this index was
  last known to hold exactly the store's papers. A write this index did not see
  (a kill between the two, an older papertrack) shows as a mismatch: the index
  is stale, readers do not use it, and it is rebuilt (by the next writer, the
  first search, or ``doctor --repair``). A copied store keeps its index.

Measured on the 83,510 papers of the real 40-week corpus (2 cores): 48 MB on disk
(contentless FTS5 with full positions: 80 MB; storing the text as well: 240 MB).
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import sqlite3
import threading
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

from papertrack.errors import StoreError
from papertrack.index import week_sort_key
from papertrack.query import And, Category, Not, Or, Term, author_words, tokenize

if TYPE_CHECKING:
    from papertrack.learn import Words

__all__ = [
    "FILE",
    "VERSION",
    "TextIndex",
    "fts_query",
    "index_row",
    "quote_word",
]

#: The index file's name in the store directory (SQLite adds a -journal beside it while writing).
FILE = "search.sqlite"
#: What doctor and a rebuild say of a folder where the index belongs, and the fix.
FOLDER_PROBLEM = "is a folder, not papertrack's search index"
FOLDER_FIX = "Move it out of the store"
#: Bump when what is indexed, or how, changes: an index of another version is rebuilt.
VERSION = "4 unicode " + unicodedata.unidata_version
# 4: a caret between letters or digits joins them (query.join_carets). 2: ø, ł, ı,
# æ... folded to o, l, i, ae. The Unicode database folding reads is part
# of it: a Python whose NFKD splits other letters rebuilds the index too.

_SCHEMA = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS text USING fts5("
    "title, abstract, authors, categories, tokenize='ascii', detail=column, content='')",
    "CREATE TABLE IF NOT EXISTS docs (rowid INTEGER PRIMARY KEY, arxiv_id TEXT NOT NULL UNIQUE,"
    " week TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
)
_TEX = re.compile(r"[\\$]")


def _column(text: str, read: Iterable[str] | None = None) -> str:
    """The folded words of ``text``, each once, and those of its rendered TeX;
    ``read``: the words of ``text`` as rendered, if split already."""
    if _TEX.search(text):
        from papertrack.tex import render_tex

        words = tokenize(text) + tokenize(render_tex(text))  # tagging reads TeX as it renders
        return " ".join(dict.fromkeys(words))
    # Without TeX, the text is its rendering: the words tagging split are its words.
    return " ".join(dict.fromkeys(tokenize(text) if read is None else read))


def index_row(
    title: str,
    abstract: str,
    authors: Sequence[str],
    categories: Sequence[str],
    words: Words | None = None,
) -> tuple[str, str, str, str]:
    """The four FTS columns of a paper's raw fields; ``words``: title and abstract as
    tagging read them (:func:`papertrack.learn.read` of their rendered text), if it did."""
    title_words = abstract_words = None
    if words is not None:
        title_words, abstract_words = words[0], chain.from_iterable(words[1])
    return (
        _column(title, title_words),
        _column(abstract, abstract_words),
        " ".join(dict.fromkeys(author_words(authors))),
        " ".join(dict.fromkeys(tokenize(" ".join(categories)))),
    )


# --------------------------------------------------------------------------- queries


def _quote(word: str, prefix: bool) -> str:
    return '"' + word.replace('"', '""') + '"' + (" *" if prefix else "")


def _matching(db: sqlite3.Connection, expression: str) -> int:
    """How many indexed papers the FTS5 ``expression`` matches."""
    return int(
        db.execute("SELECT count(*) FROM text WHERE text MATCH ?", (expression,)).fetchone()[0]
    )


def _all_of(words: Iterable[str], field: str) -> str:
    """The FTS5 expression of papers holding every one of ``words`` in ``field``."""
    each = " AND ".join(_quote(word, False) for word in words)
    return f"{_COLUMNS[field]} : ({each})"


def quote_word(word: str) -> str:
    """One whole word as an FTS5 string."""
    return _quote(word, False)


_COLUMNS = {
    "text": "{title abstract}",
    "title": "title",
    "abstract": "abstract",
    "author": "authors",
}


#: Groups nested deeper than this are not narrowed by the index: FTS5's parser
#: has a fixed stack, which a query of some 25 nested AND/OR groups overflows
#: (its error then read as a damaged index). A query that deep is rare, and the
#: groups below this depth still narrow.
_MAX_FTS_DEPTH = 12


def _spliced(node: And | Or) -> Iterator[Any]:
    """The children of ``node``, with those of nested groups of the same kind in its place."""
    for child in node.children:
        if type(child) is type(node):
            yield from _spliced(child)
        else:
            yield child


def fts_query(node: Any, depth: int = 0) -> str | None:
    """An FTS5 expression matching at least every paper ``node`` matches; None: no narrowing.

    ``NOT`` and category prefixes cannot narrow (None stands for "any paper");
    a phrase is looked up as all of its words.
    """
    if isinstance(node, Term):
        words = [_quote(w, p) for w, p in zip(node.words, node.prefix, strict=True) if w]
        if not words:
            return None
        return f"{_COLUMNS[node.field]} : ({' AND '.join(words)})"
    if isinstance(node, Category):
        if node.prefix:
            return None
        words = tokenize(node.name)
        return f"categories : ({' AND '.join(_quote(w, False) for w in words)})" if words else None
    if isinstance(node, Not) or depth >= _MAX_FTS_DEPTH:
        return None
    if isinstance(node, And):
        parts = [q for q in (fts_query(c, depth + 1) for c in _spliced(node)) if q is not None]
        return " AND ".join(f"({q})" for q in parts) if parts else None
    if isinstance(node, Or):
        alternatives = [fts_query(c, depth + 1) for c in _spliced(node)]
        if not alternatives or any(q is None for q in alternatives):
            return None
        return " OR ".join(f"({q})" for q in alternatives)
    return None


# --------------------------------------------------------------------------- the index


class IndexDamaged(StoreError):
    """A read found the search index's file damaged (SQLite says it is corrupt, or no
    database, or its text cannot be decoded). It is derived from the week files: a
    reader scans them instead (see :meth:`papertrack.store.Store.text_index_broke`).
    ``signature`` tells the file read from any file put in its place since;
    ``reason`` is what happened, without the fix."""

    def __init__(self, reason: str, signature: tuple[int, ...] | None = None) -> None:
        super().__init__(f"{reason}. Run 'papertrack doctor --repair' to rebuild it")
        self.reason = reason
        self.signature = signature


def _unreadable(exc: sqlite3.Error, signature: tuple[int, ...] | None = None) -> StoreError:
    name = getattr(exc, "sqlite_errorname", "") or ""
    # Garbled text in a row is no SQLite error but Python's, with the garble in it.
    garbled = isinstance(exc, sqlite3.OperationalError) and str(exc).startswith("Could not decode")
    if garbled or name.startswith("SQLITE_CORRUPT") or name == "SQLITE_NOTADB":
        reason = (
            "the search index could not be read ("
            + ("some of its text is garbled" if garbled else str(exc))
            + ")"
        )
        return IndexDamaged(reason, signature)
    return StoreError(
        f"the search index could not be read ({exc}). "
        "Run 'papertrack doctor --repair' to rebuild it"
    )


def file_signature(path: Path) -> tuple[int, ...] | None:
    """What tells one file at ``path`` from another put there since (None: none there)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)  # a rebuild renames a new file into place


class TextIndex:
    """One store's full-text index file. Writers hold the store lock; readers never lock."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None
        #: Held by a thread putting rows (see :meth:`writing`); :meth:`close` waits for it.
        self._using = threading.Lock()
        #: The file this connection opened (:func:`file_signature`), for telling it
        #: from one a rebuild put in its place since.
        self.signature: tuple[int, ...] | None = None

    # -- connection
    def _connect(self, create: bool = False) -> sqlite3.Connection | None:
        if self._db is not None:
            return self._db
        if not create and not self.path.exists():
            return None
        self.signature = file_signature(self.path)
        try:
            db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            # A rollback journal, not WAL: a reader then never writes to the file.
            db.execute("PRAGMA synchronous=NORMAL")
            if create:
                for statement in _SCHEMA:
                    db.execute(statement)
        except sqlite3.Error as exc:
            raise StoreError(
                f"the search index {self.path} could not be opened ({exc}). "
                "Run 'papertrack doctor --repair' to rebuild it"
            ) from None
        self._db = db
        return db

    @contextlib.contextmanager
    def _reading(self) -> Iterator[None]:
        """An SQLite error of a read as :func:`_unreadable` words it."""
        try:
            yield
        except sqlite3.Error as exc:
            raise _unreadable(exc, self.signature) from None

    def close(self) -> None:
        # After a thread's rows: a connection closed under a running executemany (a
        # Ctrl-C while a batch was written) crashed the process.
        with self._using:
            if self._db is not None:
                self._db.close()
                self._db = None

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """Held by a thread that writes rows through this index's connection."""
        with self._using:
            yield

    def _meta(self, db: sqlite3.Connection, key: str) -> str | None:
        row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def synced_with(self, generation: str) -> bool:
        """Whether this index holds exactly the papers of the store at this generation.

        Never a link: one to a file outside the store was written through, so it is
        taken as behind, and the rebuild replaces the link (as a week file's is).
        """
        if self.path.is_symlink():
            return False
        try:
            db = self._connect()
            if db is None:
                return False
            return (
                bool(generation)
                and self._meta(db, "version") == VERSION
                and self._meta(db, "synced") == generation
            )
        except (sqlite3.Error, StoreError):
            return False

    def other_version(self) -> bool:
        """Whether the file was made by a papertrack that indexed otherwise (the next
        search rebuilds it: no damage, nothing to repair)."""
        try:
            db = self._connect()
            return db is not None and self._meta(db, "version") not in (None, VERSION)
        except (sqlite3.Error, StoreError):
            return False

    def damage(self) -> str | None:
        """What SQLite's structural check finds wrong with the file (None: nothing).

        The meta and id rows can read well while other pages of the file are garbled:
        then every search failed with "database disk image is malformed" and the
        doctor found nothing to repair.

        Raises:
            sqlite3.Error: the file cannot be checked at all (it is damaged too).
        """
        db = self._connect()
        if db is None:
            return None
        rows = [str(row[0]) for row in db.execute("PRAGMA quick_check")]
        return None if rows == ["ok"] else "; ".join(rows[:3])

    # -- writes (the store lock is held)
    def begin(self) -> sqlite3.Connection:
        """Open a write transaction; the index counts as stale until :meth:`mark_synced`."""
        db = self._connect(create=True)
        assert db is not None
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT OR REPLACE INTO meta VALUES ('synced', 'pending')")
        return db

    def put(
        self,
        db: sqlite3.Connection,
        rows: Iterable[tuple[str, str, tuple[str, str, str, str]]],
    ) -> None:
        """Add or replace ``(arxiv_id, week, columns)`` rows inside a :meth:`begin` transaction."""
        rows = list(rows)
        if not rows:
            return
        ids = [r[0] for r in rows]
        old = 0
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            cur = db.execute(f"DELETE FROM docs WHERE arxiv_id IN ({marks})", chunk)
            old += max(cur.rowcount, 0)
        first = (db.execute("SELECT max(rowid) FROM docs").fetchone()[0] or 0) + 1
        top = db.execute("SELECT value FROM meta WHERE key='top'").fetchone()
        first = max(first, int(top[0]) + 1 if top else 1)
        db.executemany(
            "INSERT INTO text(rowid, title, abstract, authors, categories) VALUES (?, ?, ?, ?, ?)",
            ((first + n, *cols) for n, (_, _, cols) in enumerate(rows)),
        )
        db.executemany(
            "INSERT INTO docs(rowid, arxiv_id, week) VALUES (?, ?, ?)",
            ((first + n, pid, week) for n, (pid, week, _) in enumerate(rows)),
        )
        db.execute("INSERT OR REPLACE INTO meta VALUES ('top', ?)", (str(first + len(rows) - 1),))
        if old:
            orphans = int(self._meta(db, "orphans") or 0) + old
            db.execute("INSERT OR REPLACE INTO meta VALUES ('orphans', ?)", (str(orphans),))

    def move(self, db: sqlite3.Connection, moves: Iterable[tuple[str, str]]) -> None:
        """Record that papers (arxiv_id, new week) moved week without a change of text."""
        db.executemany("UPDATE docs SET week = ? WHERE arxiv_id = ?", ((w, p) for p, w in moves))

    def commit(self, db: sqlite3.Connection) -> None:
        db.execute("COMMIT")

    def commit_open(self) -> None:
        """Commit the transaction :meth:`begin` opened."""
        if self._db is not None and self._db.in_transaction:
            self._db.execute("COMMIT")

    def rollback(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            if self._db is not None and self._db.in_transaction:
                self._db.execute("ROLLBACK")

    def mark_synced(self, generation: str) -> None:
        """Say the index holds the store's papers as of index.json's ``generation``."""
        db = self._connect(create=True)
        assert db is not None
        db.execute("INSERT OR REPLACE INTO meta VALUES ('synced', ?)", (generation,))

    def mark_stale(self) -> None:
        """Say the index is not in step (without rewriting it): readers then scan instead."""
        with contextlib.suppress(sqlite3.Error, StoreError):
            db = self._connect()
            if db is not None:
                db.execute("INSERT OR REPLACE INTO meta VALUES ('synced', 'stale')")

    # -- rebuild
    @staticmethod
    def build(
        path: Path,
        papers: Iterable[tuple[str, str, tuple[str, str, str, str]]],
        generation: str,
        progress: Callable[[int], None] | None = None,
    ) -> None:
        """Write a new index of ``papers`` at ``path`` (replaced whole, by rename).

        Raises:
            StoreError: ``path`` is a folder (not papertrack's: it is left alone).
        """
        if path.is_dir():
            # Found only at the rename, after the whole index was written beside it,
            # each try left a copy of it (48 MB at 83,510 papers).
            raise StoreError(f"{path} {FOLDER_PROBLEM}. {FOLDER_FIX}, then run the command again")
        temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{temp}{suffix}")
        db = sqlite3.connect(temp, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=OFF")
            db.execute("PRAGMA synchronous=OFF")
            for statement in _SCHEMA:
                db.execute(statement)
            db.execute("INSERT INTO text(text, rank) VALUES ('automerge', 0)")
            db.execute("BEGIN")
            batch: list[tuple[str, str, tuple[str, str, str, str]]] = []
            top = 0
            done = 0
            for row in papers:
                batch.append(row)
                if len(batch) >= 2000:
                    _insert(db, batch, top)
                    top += len(batch)
                    done += len(batch)
                    batch = []
                    if progress is not None:
                        progress(done)
            _insert(db, batch, top)
            top += len(batch)
            done += len(batch)
            db.execute("INSERT INTO text(text, rank) VALUES ('automerge', 4)")
            db.execute("INSERT INTO text(text) VALUES ('optimize')")
            db.executemany(
                "INSERT OR REPLACE INTO meta VALUES (?, ?)",
                [
                    ("version", VERSION),
                    ("top", str(top)),
                    ("orphans", "0"),
                    ("synced", generation),
                ],
            )
            db.execute("COMMIT")
            if progress is not None:
                progress(done)
        except BaseException:
            db.close()
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)
            raise
        db.close()
        try:
            with open(temp, "rb") as handle:
                os.fsync(handle.fileno())
            # A journal a killed write left is the old file's: beside the new one,
            # SQLite would "roll it back" into it, and garble it.
            for suffix in ("-wal", "-shm", "-journal"):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(f"{path}{suffix}")
            os.replace(temp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)
            raise

    # -- reads
    def candidates(self, query: str) -> dict[str, set[str]]:
        """Week -> ids of the papers the FTS5 ``query`` matches."""
        db = self._connect()
        found: dict[str, set[str]] = {}
        if db is None:
            return found
        try:
            rows = db.execute(
                "SELECT d.week, d.arxiv_id FROM text JOIN docs d ON d.rowid = text.rowid"
                " WHERE text MATCH ?",
                (query,),
            )
            for week, pid in rows:
                found.setdefault(week, set()).add(pid)
        except sqlite3.Error as exc:
            raise _unreadable(exc, self.signature) from None
        return found

    def ranked(
        self,
        terms: Sequence[str],
        weights: Mapping[str, float] | None = None,
    ) -> Iterator[list[tuple[str, str, float]]]:
        """(arxiv_id, week, score; higher is better) of every paper holding any term, in
        groups of equal score (to 3 decimals), best first; in a group, newest week first.

        ``terms`` are FTS5 terms (``'"agent" *'``). The score is BM25 with every term
        frequency taken as one (``detail=column`` keeps no counts, and SQLite's own
        bm25() needs them): the sum, over the terms a paper holds, of the term's
        inverse document frequency times the weight of each column holding it
        (title 4, abstract 1), times the share of the terms the paper holds (a paper
        holding one rare term in both columns beat the papers holding every term:
        "GRPO's main weakness" was answered from papers on weaknesses of other
        things). Many papers still score alike, and a caller that needs n papers
        takes whole groups: a cut inside one kept the papers first indexed.
        """
        db = self._connect()
        if db is None:
            return
        weights = weights or {"title": 4.0, "abstract": 1.0}
        scores: dict[int, float] = {}
        held: Counter[int] = Counter()  # how many of the terms each paper holds
        terms = list(dict.fromkeys(terms))
        try:
            total = int(db.execute("SELECT count(*) FROM docs").fetchone()[0])
            for term in terms:
                df = _matching(db, f"{{title abstract}} : {term}")
                if not df:
                    continue
                idf = math.log(1 + (total - df + 0.5) / (df + 0.5))
                holding: set[int] = set()
                for column, weight in weights.items():
                    rows = [
                        rowid
                        for (rowid,) in db.execute(
                            "SELECT rowid FROM text WHERE text MATCH ?", (f"{column} : {term}",)
                        )
                    ]
                    gain = weight * idf
                    for rowid in rows:
                        scores[rowid] = scores.get(rowid, 0.0) + gain
                    holding.update(rows)
                held.update(holding)
        except sqlite3.Error as exc:
            raise _unreadable(exc, self.signature) from None
        for rowid, count in held.items():
            scores[rowid] *= count / len(terms)
        groups: dict[float, list[int]] = {}
        for rowid, score in scores.items():
            groups.setdefault(round(score, 3), []).append(rowid)
        for key in sorted(groups, reverse=True):
            rowids = groups[key]
            found: list[tuple[str, str, float, int]] = []
            try:
                for start in range(0, len(rowids), 500):
                    chunk = rowids[start : start + 500]
                    marks = ",".join("?" * len(chunk))
                    for rowid, pid, week in db.execute(
                        f"SELECT rowid, arxiv_id, week FROM docs WHERE rowid IN ({marks})", chunk
                    ):  # orphans have no docs row
                        found.append((str(pid), str(week), scores[rowid], rowid))
            except sqlite3.Error as exc:
                raise _unreadable(exc, self.signature) from None
            # Newest week first (the undated last), then the latest indexed.
            found.sort(key=lambda f: (week_sort_key(f[1]), f[3]), reverse=True)
            if found:
                yield [(pid, week, score) for pid, week, score, _ in found]

    def document_frequency(
        self, words: Iterable[str], field: str | None = None
    ) -> tuple[int, dict[str, int]]:
        """(papers indexed, word -> papers holding it) for the given folded words: in
        any column, or in the query field ``field`` ("text" is title and abstract)."""
        db = self._connect()
        if db is None:
            return 0, {}
        where = f"{_COLUMNS[field]} : " if field is not None else ""
        counts = {}
        with self._reading():
            total = int(db.execute("SELECT count(*) FROM docs").fetchone()[0])
            for word in set(words):
                counts[word] = _matching(db, where + _quote(word, False))
        return total, counts

    def together(
        self, phrases: Iterable[tuple[str, ...]], field: str
    ) -> dict[tuple[str, ...], int]:
        """Folded words -> papers holding all of them in the query field ``field``; empty
        when there is no index. Side by side or not: the index keeps no positions
        (``detail=column``), so it bounds a phrase's papers from above, and 0 is exact."""
        db = self._connect()
        if db is None:
            return {}
        with self._reading():
            return {words: _matching(db, _all_of(words, field)) for words in set(phrases)}

    def holding_all(self, words: tuple[str, ...], field: str) -> dict[str, set[str]]:
        """Week -> ids of the papers holding every one of ``words`` (folded) in the
        query field ``field``, side by side or not (see :meth:`together`)."""
        return self.candidates(_all_of(words, field))

    def stats(self) -> dict[str, int]:
        """Papers, unreachable rows and bytes on disk."""
        db = self._connect()
        if db is None:
            return {"papers": 0, "orphans": 0, "bytes": 0}
        papers = int(db.execute("SELECT count(*) FROM docs").fetchone()[0])
        orphans = int(self._meta(db, "orphans") or 0)
        size = sum(
            os.path.getsize(f"{self.path}{s}")
            for s in ("", "-wal")
            if os.path.exists(f"{self.path}{s}")
        )
        return {"papers": papers, "orphans": orphans, "bytes": size}

    def ids(self) -> Iterator[tuple[str, str]]:
        """Every (arxiv_id, week) the index holds."""
        db = self._connect()
        if db is None:
            return
        yield from db.execute("SELECT arxiv_id, week FROM docs")


def _insert(
    db: sqlite3.Connection, batch: list[tuple[str, str, tuple[str, str, str, str]]], top: int
) -> None:
    db.executemany(
        "INSERT INTO text(rowid, title, abstract, authors, categories) VALUES (?, ?, ?, ?, ?)",
        ((top + n + 1, *cols) for n, (_, _, cols) in enumerate(batch)),
    )
    db.executemany(
        "INSERT INTO docs(rowid, arxiv_id, week) VALUES (?, ?, ?)",
        ((top + n + 1, pid, week) for n, (pid, week, _) in enumerate(batch)),
    )
