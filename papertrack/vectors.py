"""Feature vectors: each paper's model features as ids, kept so a retag need not read text again.

Teaching a topic refits its model and retags every stored paper. Both need each
paper's model features (words, word pairs, concepts, the bundled queries'
matches: :func:`papertrack.topics.model_features`), about 180 µs a paper to make
from text even as ids in batches (:class:`papertrack.learn.FeatureIds`). Those
features change only when the text or papertrack's feature code does, so the
first retag by a model keeps them here, and later ones add up weights instead
(about 25 µs a paper).

Everything is kept as ids into one **vocabulary**: every feature of the labelled
train papers, sorted. Those are the only features a model fitted on the labels
can weigh; a model that weighs others (features of a user's examples that no
labelled paper has) has them looked for by the full-text index, one by one, and a
paper that may hold some is read from its text only when its kept vectors and the
most those features can add do not decide it (:meth:`VectorTagger.bound_outside`).

In the store directory, folder ``vectors/``:

* ``labelled.bin``: the vocabulary and the labelled train papers' ids (the refit
  reads them instead of 10,450 papers' text);
* ``WEEK.bin``: the ids of the papers of one week file, each with a digest of the
  text they were made from, so a paper whose text changed is read again.

Each file starts with :data:`MAGIC`, a 4-byte little-endian length, a JSON header
(with the vocabulary's :func:`vocabulary_key`), then blocks of ids (:func:`_pack`),
each paper's sorted ascending and stored as differences, and ends with a CRC-32
of all that: a damaged file is not read. All of it is derived
data: a file of another vocabulary, version or shape is ignored and rewritten,
and the folder can be deleted at any time (the next retag by a model makes it
again). On the 83,510 papers of the real 40-week corpus it takes 64 MB (13 MB of
it the labelled papers), beside 166 MB of week files.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import zlib
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from itertools import chain
from operator import sub
from pathlib import Path
from typing import Any

__all__ = [
    "FOLDER",
    "LABELLED",
    "VectorTagger",
    "Vocabulary",
    "WeekVectors",
    "differences",
    "digest",
    "labelled_file",
    "outside_query",
    "read_labelled",
    "vocabulary_key",
    "write_file",
]

#: The folder in the store directory, and the labelled papers' file in it.
FOLDER = "vectors"
LABELLED = "labelled.bin"
#: Bump when what is kept, or how, changes: files of another version are rewritten.
#: 3: a formula that is a script alone renders raised (M$^3$Exam is M³Exam), so the
#: features of such papers, and the vocabulary, changed. 4: a caret between letters or
#: digits joins them (query.join_carets): M^3Exam's features are "m3exam"'s.
VERSION = 4
MAGIC = b"papertrack vectors\n"

_CODE = "I" if array("I").itemsize == 4 else "L"
#: numpy's name for the items of ``array(_CODE)``, in this machine's order.
_WORD = f"={_CODE}"


#: FeatureIds tables of vocabularies this process made, by vocabulary key.
_TABLES: dict[str, Any] = {}


def keep_table(key: str, table: Any) -> None:
    """Keep the :class:`papertrack.learn.FeatureIds` of the vocabulary of ``key``, made
    with it (:func:`papertrack.learn.vocabulary_of`), for :attr:`Vocabulary.table`:
    the first retag after the first refit on a store need not build it again."""
    _TABLES[key] = table


def vocabulary_key(labels_file: Path, topics_file: Path) -> str:
    """What the vocabulary and every id depend on: this layout, the feature code's
    version, the labelled papers and the bundled queries (whose matches are
    features). Files made under another key are ignored."""
    from papertrack import __version__
    from papertrack.learn import FEATURE_SET

    digest_ = hashlib.sha256(f"{VERSION}:{FEATURE_SET}:{__version__}:".encode())
    for path in (labels_file, topics_file):
        digest_.update(hashlib.sha256(path.read_bytes()).digest())
    return digest_.hexdigest()[:24]


def digest(title: str, abstract: str, authors: Sequence[str], categories: Sequence[str]) -> str:
    """A 64-bit digest of the text a paper's features are made from (its raw fields):
    CRC-32 and Adler-32 of it, a third of the time of a cryptographic hash (which
    nobody needs here: a collision only keeps one paper's old features)."""
    text = "\x1f".join((title, abstract, "\x1e".join(authors), " ".join(categories)))
    raw = text.encode("utf-8", "surrogatepass")
    return f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}"


class Vocabulary:
    """Every feature of the labelled train papers, sorted; a feature's id is its place."""

    def __init__(self, key: str, names: list[str]) -> None:
        self.key = key
        self.names = names
        self._ids: dict[str, int] | None = None
        self._table: Any = None

    def __len__(self) -> int:
        return len(self.names)

    @property
    def ids(self) -> dict[str, int]:
        """Name -> id, built on first use (0.1-0.2 s for ~700,000 names)."""
        if self._ids is None:
            self._ids = {name: i for i, name in enumerate(self.names)}
        return self._ids

    @property
    def table(self) -> Any:
        """A :class:`papertrack.learn.FeatureIds` over the names, built on first use
        (about 0.7 s for ~830,000 names) unless this process made the vocabulary
        (:func:`keep_table`): ids for a batch of papers from their text."""
        if self._table is None:
            from papertrack.learn import FeatureIds

            made = _TABLES.get(self.key)
            if made is None or made.size != len(self):
                made = FeatureIds(self.names)
            self._table = made
        return self._table

    def find(self, name: str) -> int | None:
        """The id of one feature, or None (by bisection: no table needed for a few)."""
        names = self.names
        i = bisect.bisect_left(names, name)
        return i if i < len(names) and names[i] == name else None

    def encode(self, feats: Iterable[str]) -> list[int]:
        """The sorted ids of the features of ``feats`` that are in the vocabulary.

        One look-up a feature, about 0.7 µs each in a table this size (the cost is
        the memory the table spans): the one step a retag pays once per paper, so
        that later retags of that paper need no look-ups at all.
        """
        return sorted([i for i in map(self.ids.get, feats) if i is not None])


# --------------------------------------------------------------------------- file format


def differences(ids: Any, bounds: Any) -> Any:
    """Rows of sorted ``ids`` (row n is ``ids[bounds[n]:bounds[n + 1]]``, numpy) as
    they are kept: each id less the one before it in its row, a row's first from 0."""
    deltas = ids.copy()
    deltas[1:] -= ids[:-1]
    starts = bounds[:-1][bounds[:-1] < bounds[1:]]
    deltas[starts] = ids[starts]
    return deltas


def _pack(words: Any) -> bytes:
    """Ids as differences (a numpy array of unsigned integers below 2**32) as a file
    keeps them: their count and the count of the wide ones (64-bit each), each
    id's low 16 bits, then the places of those wider than 16 bits (64-bit) and
    their high 16 bits; all little-endian.

    Differences of a paper's sorted ids are small: of the 23.6 million kept for the
    40-week corpus, 0.004% are wider (mostly a paper's first id). So this takes 47
    MB where zlib (level 1) of the 32-bit words took 55 MB, and about 0.05 s to
    write or read all of them where zlib took 1.6 s and 0.5 s.
    """
    import numpy as np

    wide = np.flatnonzero(words > 0xFFFF)
    return b"".join(
        [
            np.array([len(words), len(wide)], dtype="<u8").tobytes(),
            words.astype("<u2").tobytes(),
            wide.astype("<u8").tobytes(),
            (words[wide] >> 16).astype("<u2").tobytes(),
        ]
    )


def _unpack(block: bytes) -> Any:
    """The ids :func:`_pack` keeps in ``block``, as a numpy array of uint32 (native
    order). Raises ValueError if ``block`` is not such a block."""
    import numpy as np

    if len(block) < 16:
        raise ValueError("a block shorter than its counts")
    count, wide = (int(n) for n in np.frombuffer(block, dtype="<u8", count=2))
    if len(block) != 16 + 2 * count + 10 * wide:
        raise ValueError("a block whose size is not that of its counts")
    words = np.frombuffer(block, dtype="<u2", count=count, offset=16).astype(np.uint32)
    places = np.frombuffer(block, dtype="<u8", count=wide, offset=16 + 2 * count)
    if wide and int(places.max()) >= count:
        raise ValueError("a wide id's place past the end of the block")
    high = np.frombuffer(block, dtype="<u2", count=wide, offset=16 + 2 * count + 8 * wide)
    words[places] |= high.astype(np.uint32) << 16
    return words


def _unpack_array(block: bytes) -> array[int]:
    """:func:`_unpack` as an ``array`` of this machine's 32-bit words."""
    deltas = array(_CODE)
    deltas.frombytes(_unpack(block).astype(_WORD).tobytes())
    return deltas


def _file(header: dict[str, Any], blocks: Sequence[bytes]) -> bytes:
    header = {**header, "version": VERSION, "blocks": [len(b) for b in blocks]}
    head = json.dumps(header, separators=(",", ":")).encode()
    data = b"".join([MAGIC, len(head).to_bytes(4, "little"), head, *blocks])
    return data + zlib.crc32(data).to_bytes(4, "little")


def write_file(path: Path, data: bytes) -> None:
    """Write a vectors file (its folder made if need be), atomically.

    Raises:
        OSError: it could not be written (kept vectors are derived data: callers
            go on without them).
    """
    from papertrack.errors import StoreError
    from papertrack.files import write_atomic

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, data)
    except StoreError as exc:
        raise OSError(str(exc)) from None


def _write(path: Path, header: dict[str, Any], blocks: Sequence[bytes]) -> None:
    write_file(path, _file(header, blocks))


def _read(path: Path, key: str) -> tuple[dict[str, Any], list[bytes]] | None:
    """Header and blocks of a vectors file of this version and vocabulary, or None."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    start = len(MAGIC) + 4
    if not raw.startswith(MAGIC) or len(raw) < start + 4:
        return None
    # A CRC-32 of the rest ends the file: a damaged header or block is refused.
    raw, crc = raw[:-4], int.from_bytes(raw[-4:], "little")
    if zlib.crc32(raw) != crc:
        return None
    end = start + int.from_bytes(raw[len(MAGIC) : start], "little")
    try:
        header = json.loads(raw[start:end])
    except ValueError:
        return None
    if (
        not isinstance(header, dict)
        or header.get("version") != VERSION
        or header.get("key") != key
        or not isinstance(header.get("blocks"), list)
    ):
        return None
    blocks = []
    for size in header["blocks"]:
        if not isinstance(size, int) or size < 0 or end + size > len(raw):
            return None
        blocks.append(raw[end : end + size])
        end += size
    return header, blocks


# --------------------------------------------------------------------------- labelled papers


def labelled_file(
    vocabulary: Vocabulary, papers: Sequence[str], lengths: Sequence[int], deltas: bytes
) -> bytes:
    """The file that keeps the vocabulary and the labelled train papers' ids (``lengths``
    ids a paper; ``deltas`` as :func:`read_labelled` gives them back): write it with
    :func:`write_file`."""
    import numpy as np

    names = zlib.compress("\n".join(vocabulary.names).encode("utf-8"), 1)
    header = {"key": vocabulary.key, "papers": list(papers), "lengths": list(lengths)}
    return _file(header, [names, _pack(np.frombuffer(deltas, dtype="<u4"))])


def read_labelled(path: Path, key: str) -> tuple[Vocabulary, list[str], list[int], bytes] | None:
    """(vocabulary, paper ids, each paper's number of ids, the ids as differences in
    32-bit little-endian words) from a :func:`labelled_file`, or None if it is
    missing or of another vocabulary."""
    found = _read(path, key)
    if found is None:
        return None
    header, blocks = found
    try:
        names_block, rows_block = blocks
        names = zlib.decompress(names_block).decode("utf-8").split("\n")
        deltas = _unpack(rows_block).astype("<u4").tobytes()
    except (ValueError, zlib.error, UnicodeDecodeError):
        return None
    papers, lengths = header.get("papers"), header.get("lengths")
    if not isinstance(papers, list) or not isinstance(lengths, list):
        return None
    if len(papers) != len(lengths) or sum(lengths) * 4 != len(deltas):
        return None
    return Vocabulary(key, names), papers, lengths, deltas


# --------------------------------------------------------------------------- stored papers


class WeekVectors:
    """The kept ids of one week file's papers: looked up, added to, written back."""

    def __init__(self, path: Path, key: str, size: int | None = None) -> None:
        """The vectors kept at ``path`` under vocabulary ``key``; with ``size`` (the
        vocabulary's), a file holding an id outside it is taken as not kept."""
        self.path = path
        self.key = key
        #: paper id -> (text digest, start, length) in ``deltas``, in the file's order.
        self.kept: dict[str, tuple[str, int, int]] = {}
        #: Every kept paper's ids, as differences (each paper's first from 0).
        self.deltas: array[int] = array(_CODE)
        #: paper id -> (text digest, its ids as differences), to be written.
        self._added: dict[str, tuple[str, array[int]]] = {}
        found = _read(path, key)
        if found is None:
            return
        header, blocks = found
        try:
            deltas = _unpack_array(blocks[0])
        except (IndexError, ValueError):
            return
        start = 0
        kept: dict[str, tuple[str, int, int]] = {}
        for entry in header.get("papers") or ():
            if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[2], int)):
                return
            if entry[2] < 0:
                return
            kept[str(entry[0])] = (str(entry[1]), start, entry[2])
            start += entry[2]
        if start != len(deltas):
            return
        if size is not None and deltas:
            import numpy as np

            # A paper's largest id is the sum of its differences.
            lengths = np.fromiter((e[2] for e in kept.values()), dtype=np.int64, count=len(kept))
            starts = (np.cumsum(lengths) - lengths)[lengths > 0]
            words = np.frombuffer(deltas, dtype=_WORD).astype(np.int64)
            if int(np.add.reduceat(words, starts).max()) >= size:
                return
        self.kept, self.deltas = kept, deltas

    def find(self, arxiv_id: str, text: str) -> tuple[int, int] | None:
        """(start, length) in :attr:`deltas` of the ids kept for a paper whose text has
        digest ``text``, or None."""
        entry = self.kept.get(arxiv_id)
        if entry is None or entry[0] != text:
            return None
        return entry[1], entry[2]

    def put(self, arxiv_id: str, text: str, ids: Sequence[int]) -> None:
        """Keep ``ids`` (sorted) for a paper whose text has digest ``text``."""
        self._added[arxiv_id] = (text, array(_CODE, map(sub, ids, chain((0,), ids))))

    def put_deltas(self, arxiv_id: str, text: str, deltas: array[int]) -> None:
        """:meth:`put` of ids already given as differences (the first from 0)."""
        self._added[arxiv_id] = (text, deltas)

    def save(self, papers: Iterable[str]) -> None:
        """Write the file for exactly ``papers`` (the week file's, in order), if that
        changes it: papers added, or papers gone from the week."""
        order = list(papers)
        if not self._added and set(order) == self.kept.keys():
            return
        entries, deltas = [], array(_CODE)
        for pid in order:
            added = self._added.get(pid)
            if added is not None:
                text, more = added
                deltas.extend(more)
                entries.append([pid, text, len(more)])
            elif pid in self.kept:
                text, start, length = self.kept[pid]
                deltas.extend(self.deltas[start : start + length])
                entries.append([pid, text, length])
        import numpy as np

        words = np.frombuffer(deltas, dtype=_WORD) if deltas else np.zeros(0, np.uint32)
        _write(self.path, {"key": self.key, "papers": entries}, [_pack(words)])


#: At most this many weighed features outside the vocabulary are looked up in the
#: full-text index one by one (:meth:`VectorTagger.bound_outside`); past it, in one
#: query for them all. One look-up took 1-2 ms on the 83,510-paper store, so this
#: many take up to about a second: a topic made with --like from fewer than 24
#: examples weighs at most 300 features.
OUTSIDE_ONE_BY_ONE = 500


def outside_query(names: Iterable[str]) -> str | None:
    """An FTS5 expression (:mod:`papertrack.fulltext`) matching every paper that may
    hold one of the features ``names``; None if one of them cannot be looked up by
    its words (a concept or a query's match), so every paper must be read.

    A word is looked up in title and abstract, a title word (``t:agent``) in the
    title, a word pair as both of its words.
    """
    from papertrack.fulltext import quote_word

    parts = []
    for name in sorted(set(names)):
        kind, _, rest = name.partition(":")
        if rest and kind in ("tc", "s", "q"):
            return None
        column, words = ("title", rest) if rest and kind == "t" else ("{title abstract}", name)
        split = words.split()
        if not split:
            return None
        parts.append(f"{column} : ({' AND '.join(quote_word(w) for w in split)})")
    return " OR ".join(f"({part})" for part in parts) if parts else None


# --------------------------------------------------------------------------- retagging


class VectorTagger:
    """A retag's tags for its topics, from kept vectors where a paper has them.

    For a retag whose topics all decide by their model, or by their model and a
    bundled query (whose match is the feature ``q:<slug>``), a paper's decisions
    need nothing but its features. Papers with kept vectors for their current
    text are scored from those; the others (new, changed, or possibly holding a
    weighed feature outside the vocabulary, per ``read_text``) from their text,
    and their vectors are kept for next time. The tags are exactly those of
    :meth:`papertrack.topics.Catalog.tag_fields` for the same topics.
    """

    def __init__(
        self,
        subset: Any,
        vocabulary: Vocabulary,
        folder: Path,
        read_text: Mapping[str, AbstractSet[str]] | None,
    ) -> None:
        import numpy as np

        from papertrack.learn import units

        self.subset = subset
        self.vocabulary = vocabulary
        self.folder = folder
        #: week -> papers to read from their text even with kept vectors; None: all.
        self.read_text = read_text
        #: week -> paper id -> the most, then the least, that the weighed features
        #: outside the vocabulary the paper may hold add to each topic's score (a
        #: list of 2 x topics units): a paper of read_text that has an entry here
        #: and kept vectors is read only if that leaves a decision open.
        self.may_add: dict[str, dict[str, list[int]]] = {}
        # The models' weights as a dense matrix, a row a feature of the vocabulary
        # and a column a topic, in the integer units decisions count in: a week's
        # scores are then one sum of the rows of its papers' weighed ids
        # (learn.weight_sums), with no look-up by name. Only ids some topic weighs
        # are summed: for the five topics a teach of llm-agent-training decides,
        # 10,206 of the vocabulary's 841,076, about 53 of a paper's 280 ids. For a
        # week's 2,162 papers, 8 ms against 19 ms for a sparse product of all ids.
        topics = subset.topics
        self._weights = np.zeros((len(vocabulary), len(topics)), dtype=np.int64)
        self._rule_of = []
        #: Topics that decide with a query of their own, whose match no feature holds
        #: (a topic made with --like and --query): matched on each paper's text as its
        #: week is read, and the papers that match, by slug (:meth:`tag_week`).
        self._own_queries = {
            t.slug: t
            for t in topics
            if t.decide in ("either", "both") and t.slug not in subset.hinted
        }
        self._matched: dict[str, set[str]] = {}
        #: slug -> week -> the papers the full-text index says may match that query (no
        #: entry: try every paper); set by the caller when the index is in step.
        self.query_within: dict[str, Mapping[str, AbstractSet[str]]] = {}
        for column, topic in enumerate(topics):
            model = topic.model
            for name, weight in model.weights.items():
                found = vocabulary.find(name)
                if found is not None:
                    self._weights[found, column] = units(weight)
            bundled = topic.decide != "model" and topic.slug not in self._own_queries
            hint = vocabulary.find("q:" + topic.slug) if bundled else None
            self._rule_of.append((topic.decide, units(model.bias), units(model.threshold), hint))
        #: Which ids of the vocabulary some topic weighs.
        self._weighed: Any = self._weights.any(axis=1)
        self._by_name = subset.model_set
        self._rules = [(t.slug, t.decide) for t in subset.topics]

    @staticmethod
    def suits(subset: Any) -> bool:
        """Whether every topic of ``subset`` decides by its model (with a query, too:
        a bundled one's match is a feature, another is matched on the text as its week
        is read, a few µs a paper where the models' features take ~200)."""
        return len(subset) > 0 and all(
            t.decide in ("model", "both", "either") for t in subset.topics
        )

    @property
    def own_queries(self) -> Mapping[str, Any]:
        """The topics (by slug) that decide with a query of their own, matched on text."""
        return self._own_queries

    def outside(self) -> set[str]:
        """The weighed features of the topics' models that the vocabulary lacks."""
        return set(self.outside_weights())

    def outside_weights(self) -> dict[str, list[tuple[int, int]]]:
        """Name -> (topic column, weight in units) of each weighed feature of the
        topics' models that the vocabulary lacks (a weight of 0 units adds nothing)."""
        from papertrack.learn import units

        find = self.vocabulary.find
        found: dict[str, list[tuple[int, int]]] = {}
        for column, topic in enumerate(self.subset.topics):
            for name, weight in topic.model.weights.items():
                points = units(weight)
                if points and find(name) is None:
                    found.setdefault(name, []).append((column, points))
        return found

    def bound_outside(
        self, candidates: Callable[[str], Mapping[str, AbstractSet[str]] | None] | None
    ) -> None:
        """Set :attr:`read_text` and :attr:`may_add` for the weighed features outside
        the vocabulary, from ``candidates`` (an FTS5 query -> week -> ids of the papers
        it matches; None: the index cannot answer, and every paper is read).

        Kept vectors cannot hold such a feature, so a paper that may hold one was read
        from its text, all of them: 16,047 of 83,510 papers for a topic made from 4
        examples, whose 257 such features are their rare word pairs. Looked up one by
        one, each paper gets the most and the least those it may hold can add to each
        score; most papers' kept vectors are then decided whatever they hold, and the
        rest are read (:meth:`tag_week`). Past :data:`OUTSIDE_ONE_BY_ONE` features,
        one query for them all, and every paper it finds is read.
        """
        outside = self.outside_weights()
        self.may_add = {}
        if not outside:
            self.read_text = {}
            return
        self.read_text = None
        if candidates is None:
            return
        if len(outside) > OUTSIDE_ONE_BY_ONE:
            query = outside_query(outside)
            self.read_text = None if query is None else candidates(query)
            return
        width = len(self.subset)
        may_add: dict[str, dict[str, list[int]]] = {}
        for name, cells in sorted(outside.items()):
            query = outside_query([name])
            found = None if query is None else candidates(query)
            if found is None:
                return  # a concept or a query's match, or no index: read every paper
            for week, pids in found.items():
                papers = may_add.setdefault(week, {})
                for pid in pids:
                    adds = papers.get(pid)
                    if adds is None:
                        adds = papers[pid] = [0] * (2 * width)
                    for column, points in cells:
                        adds[column if points > 0 else width + column] += points
        # Every paper that may hold one, each with what it may add.
        self.read_text = {week: set(papers) for week, papers in may_add.items()}
        self.may_add = may_add

    def ready(self) -> None:
        """Build the vocabulary's look-up tables this retag will make vectors with
        (before forking, so workers share them): the batch table for papers read
        only to make their vectors, the table of names for those read for their
        features (:attr:`read_text`)."""
        if self.read_text is not None:
            self.vocabulary.table  # noqa: B018 - built on first use
        if self.read_text is None or any(self.read_text.values()):
            self.vocabulary.ids  # noqa: B018 - built on first use

    def kept(self, path: Path) -> bool:
        """Whether vectors are kept for the week file ``path`` (they may still be stale)."""
        return (self.folder / f"{path.stem}.bin").is_file()

    def _from_kept(
        self,
        kept: WeekVectors,
        wanted: list[str],
        may_add: Mapping[str, Sequence[int]] | None = None,
    ) -> list[tuple[str, ...] | None]:
        """The tags of the papers ``wanted`` (ids) from the vectors ``kept`` for them.

        Every kept paper of the file is decoded and scored at once (a cumulative sum
        and a gather in numpy), then the wanted ones are picked out. A paper with an
        entry in ``may_add`` (see :attr:`may_add`) whose decisions that leaves open
        gets None.
        """
        import numpy as np

        deltas = np.frombuffer(kept.deltas, dtype=_WORD)
        lengths = np.fromiter((e[2] for e in kept.kept.values()), dtype=np.int64)
        first = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=first[1:])
        row_of = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
        running = np.cumsum(deltas, dtype=np.int64)
        ids = running - np.concatenate([np.zeros(1, dtype=np.int64), running])[first[row_of]]
        place = {pid: row for row, pid in enumerate(kept.kept)}
        rows = [place[pid] for pid in wanted]
        count = len(lengths)
        if not may_add:
            return list(self._tags(row_of, ids, count, rows, wanted))
        # What the features outside the vocabulary may add: each decision only grows
        # with a score, and the tags with the decisions (taught papers and
        # implications included), so a paper tagged alike with the least and with the
        # most of it is tagged so whatever it holds.
        totals = self._totals(row_of, ids, count, rows)
        width = len(self._rule_of)
        none = [0] * (2 * width)
        adds = np.array([may_add.get(pid, none) for pid in wanted], dtype=np.int64)
        adds = adds.reshape(len(wanted), 2 * width)
        least = self._tags(row_of, ids, count, rows, wanted, totals + adds[:, width:])
        most = self._tags(row_of, ids, count, rows, wanted, totals + adds[:, :width])
        return [low if low == high else None for low, high in zip(least, most, strict=True)]

    def _totals(self, row_of: Any, ids: Any, count: int, rows: list[int]) -> Any:
        """The scores without bias (units, a column a topic) of rows ``rows`` of
        ``count`` papers whose features are ``ids``, each on its row ``row_of``."""
        from papertrack.learn import weight_sums

        weighed = self._weighed[ids]
        return weight_sums(self._weights, row_of[weighed], ids[weighed], count)[rows]

    def _tags(
        self,
        row_of: Any,
        ids: Any,
        count: int,
        rows: list[int],
        pids: list[str],
        totals: Any = None,
    ) -> list[tuple[str, ...]]:
        """The tags of papers ``pids``, rows ``rows`` of ``count`` papers whose features
        are ``ids``, each on its row ``row_of``: every row scored at once (or scored
        ``totals``, as :meth:`_totals` gives them)."""
        import numpy as np

        from papertrack.topics import decided

        if totals is None:
            totals = self._totals(row_of, ids, count, rows)
        decisions = []
        for column, (rule, bias, threshold, hint) in enumerate(self._rule_of):
            fires = (bias + totals[:, column] >= threshold).tolist()
            if rule == "model":
                decisions.append(fires)
                continue
            slug = self._rules[column][0]
            if slug in self._own_queries:
                matched = self._matched.get(slug, set())
                found = [pid in matched for pid in pids]
            else:
                has = np.zeros(count, dtype=bool)
                if hint is not None:
                    has[row_of[ids == hint]] = True
                found = has[rows].tolist()
            decisions.append([decided(rule, f, h) for f, h in zip(fires, found, strict=True)])
        slugs = [slug for slug, _ in self._rules]
        return [
            self.subset.settled(tuple(s for s, d in zip(slugs, made, strict=True) if d), pid)
            for pid, made in zip(pids, zip(*decisions, strict=True), strict=True)
        ]

    def _from_batch(
        self, kept: WeekVectors, batch: list[tuple[str, str, tuple[str, str, Any, Any]]]
    ) -> list[tuple[str, ...]]:
        """The tags of papers read from their text, (id, text digest, raw fields) each,
        scored at once from the ids :attr:`Vocabulary.table` makes; their vectors are
        kept in ``kept``."""
        import numpy as np

        from papertrack.learn import row_bounds
        from papertrack.topics import model_words

        row_of, ids = self.vocabulary.table.ids(model_words(*fields) for _, _, fields in batch)
        count = len(batch)
        starts = row_bounds(row_of, count)
        raw = differences(ids, starts).astype(_WORD).tobytes()
        width = np.dtype(_WORD).itemsize
        bounds = starts.tolist()
        for n, (pid, text, _) in enumerate(batch):
            held = array(_CODE)
            held.frombytes(raw[bounds[n] * width : bounds[n + 1] * width])
            kept.put_deltas(pid, text, held)
        pids = [pid for pid, _, _ in batch]
        return self._tags(row_of, ids, count, list(range(count)), pids)

    def from_text(
        self, pid: str, fields: tuple[str, str, Any, Any]
    ) -> tuple[frozenset[str], tuple[str, ...]]:
        """(features, tags) of a paper read from its raw fields."""
        from papertrack.topics import decided, model_features

        feats = model_features(*fields)
        fired = self._by_name.decide(feats)
        own = self._own_queries
        tags = tuple(
            slug
            for slug, rule in self._rules
            if decided(
                rule,
                slug in fired,
                pid in self._matched.get(slug, ()) if slug in own else f"q:{slug}" in feats,
            )
        )
        return feats, self.subset.settled(tags, pid)

    def tag_week(self, path: Path, docs: Iterable[dict[str, Any]]) -> dict[str, tuple[str, ...]]:
        """Paper id -> tags for the paper records ``docs`` of the week file ``path``;
        vectors made from text are kept in ``folder`` for the next retag."""
        from papertrack.store import record_fields

        week = path.stem
        kept = WeekVectors(self.folder / f"{week}.bin", self.vocabulary.key, len(self.vocabulary))
        docs = list(docs)
        self._matched = {}
        for slug, topic in self._own_queries.items():
            within = self.query_within.get(slug)
            may = within.get(week, frozenset()) if within is not None else None
            self._matched[slug] = {
                pid
                for doc in docs
                if isinstance(pid := doc.get("arxiv_id"), str)
                and (may is None or pid in may)
                and topic.matches_fields(*record_fields(doc))
            }
        must = None if self.read_text is None else self.read_text.get(week, frozenset())
        may_add = self.may_add.get(week, {})
        found: dict[str, tuple[str, ...]] = {}
        scored: list[str] = []
        #: Papers that may hold features outside the vocabulary, scored from their
        #: kept vectors with what those may add, and read if that leaves them open.
        bounded: dict[str, tuple[str, str, Any, Any]] = {}
        batch: list[tuple[str, str, tuple[str, str, Any, Any]]] = []
        for doc in docs:
            pid = doc.get("arxiv_id")
            if not isinstance(pid, str):
                continue
            fields = record_fields(doc)
            text = digest(*fields)
            where = kept.find(pid, text)
            if must is not None and pid not in must:
                # Its features are all in the vocabulary: scored below, in one pass
                # (the placeholder keeps the week's order).
                found[pid] = ()
                if where is not None:
                    scored.append(pid)
                else:
                    batch.append((pid, text, fields))
                continue
            if where is not None and pid in may_add:
                found[pid] = ()
                scored.append(pid)
                bounded[pid] = fields
                continue
            feats, found[pid] = self.from_text(pid, fields)
            if where is None:
                kept.put(pid, text, self.vocabulary.encode(feats))
        if scored:
            tagged = self._from_kept(kept, scored, may_add if bounded else None)
            for pid, tags in zip(scored, tagged, strict=True):
                found[pid] = self.from_text(pid, bounded[pid])[1] if tags is None else tags
        if batch:
            for (pid, _, _), tags in zip(batch, self._from_batch(kept, batch), strict=True):
                found[pid] = tags
        kept.save(found)
        return found
