"""Learned topic classifiers: one small linear model per topic, scored on every paper.

A query (:mod:`papertrack.topics`) says exactly which words a topic needs; a learned
model instead weighs every word and word pair of a paper by how well it told
labelled papers of the topic apart from the rest. The two are complementary: a
model catches papers a query misses for want of a synonym, and its
:meth:`TopicModel.contributions` say which words made it fire.

This module is what runs on every ingested paper: :meth:`ModelSet.decide_text`
finds the features some model weighs with set operations and C-level iteration
(:func:`features` makes them all, for fitting and explaining), and scores them
as one numpy sum of a dense matrix's rows (numpy is imported when a
:class:`ModelSet` is first built, so commands that only read stored tags never
import it). Fitting a model (numpy and scipy) is :mod:`papertrack.fitting`'s, and
is imported only by the commands that fit.

* Models are files users keep and diff, so :meth:`TopicModel.to_json` is
  deterministic and small (weights rounded to 4 decimals).
* A decision is exact: weights, bias and threshold are counted in units of
  1e-4 (:data:`DECIMALS`), as integers, so a paper's score is the same
  whatever order its features are added in, and every path that decides (an
  ingest, a retag from stored vectors, ``topics explain``) decides alike.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

from papertrack.query import ASCII_FOLD, join_carets, tokenize

__all__ = [
    "FORMAT",
    "ModelSet",
    "TopicModel",
    "describe",
    "features",
    "prf",
    "prf_counts",
    "read",
    "read_all",
    "row_bounds",
    "units",
    "vocabulary",
    "vocabulary_of",
    "weight_sums",
    "word_runs",
]

#: Written into every model file, and checked when one is read back.
FORMAT = "papertrack-topic-model"
FORMAT_VERSION = 1

#: Which :func:`features` a model was fitted on, kept in its meta: 2 added the
#: concepts and the bundled queries' matches. A model fitted on older features
#: still scores (its words and word pairs are the same) but misses what they add.
FEATURE_SET = 2

#: Decimals kept for weights, bias and threshold: 1e-4 is far below any weight that
#: matters, and it roughly halves the size of a model file.
DECIMALS = 4
#: A weight of 1.0 in the integer units decisions are counted in.
SCALE: int = 10**DECIMALS


def units(value: float) -> int:
    """``value`` in whole units of 1e-4: how a decision counts weights, exactly."""
    return round(value * SCALE)


_join = " ".join
_isdigit = str.isdigit

# ---------------------------------------------------------------------------
# Features


#: Kinds of thing the agent topics are made of, each a list of words and word
#: pairs (as :func:`tokenize` writes them). A topic such as "LLM agent training"
#: is a conjunction: the paper trains (TRAIN) a model that acts (AGENT, ACT) and
#: is a language model (LLM). A linear model over words can only add evidence up,
#: so it cannot tell "we train an agent" from an abstract that trains something
#: and mentions agents elsewhere; a feature for two kinds in *one sentence*
#: ("s:AGENT+TRAIN") can. The lists were written by hand from the topics'
#: definitions, not selected on labelled papers.
CONCEPTS: dict[str, tuple[str, ...]] = {
    "AGENT": ("agent", "agents", "agentic", "multi agent", "multiagent"),
    "LLM": (
        "llm",
        "llms",
        "language model",
        "language models",
        "vlm",
        "vlms",
        "mllm",
        "mllms",
        "gpt",
        "qwen",
        "qwen2",
        "qwen3",
        "llama",
        "deepseek",
        "foundation model",
        "foundation models",
    ),
    "TRAIN": (
        "train",
        "training",
        "trained",
        "trains",
        "fine tune",
        "fine tuning",
        "fine tuned",
        "finetune",
        "finetuning",
        "finetuned",
        "sft",
        "post training",
        "distill",
        "distillation",
        "distilled",
    ),
    "RL": (
        "rl",
        "reinforcement",
        "grpo",
        "ppo",
        "dpo",
        "reward",
        "rewards",
        "policy optimization",
        "policy gradient",
        "rlvr",
        "rlhf",
    ),
    "TOOL": (
        "tool",
        "tools",
        "function calling",
        "function call",
        "api",
        "apis",
        "mcp",
        "tool use",
        "tool calling",
        "code interpreter",
        "calculator",
    ),
    "SEARCH": (
        "search",
        "retrieval",
        "retrieve",
        "web",
        "browse",
        "browsing",
        "search engine",
        "rag",
    ),
    "ACT": (
        "multi turn",
        "trajectory",
        "trajectories",
        "environment",
        "environments",
        "interactive",
        "interaction",
        "long horizon",
        "actions",
        "action",
        "step",
        "steps",
        "rollout",
        "rollouts",
        "episode",
        "episodes",
    ),
    "BENCH": ("benchmark", "benchmarks", "evaluation", "evaluate", "suite", "leaderboard"),
    "DATA": (
        "synthetic",
        "synthesize",
        "synthesized",
        "synthesis",
        "data generation",
        "generated data",
        "augmentation",
    ),
    "GUI": (
        "gui",
        "screen",
        "screenshot",
        "screenshots",
        "click",
        "web page",
        "webpage",
        "mobile",
        "android",
        "desktop",
        "ui",
    ),
    "MEM": ("memory", "long context", "long horizon", "planning", "plan"),
    "ROBOT": ("robot", "robots", "robotic", "robotics", "manipulation", "embodied", "vla"),
    "REASON": ("reasoning", "math", "mathematical", "cot"),
}


#: How :func:`describe` names each kind of :data:`CONCEPTS`.
CONCEPT_NAMES = {
    "AGENT": "agents",
    "LLM": "language models",
    "TRAIN": "training",
    "RL": "RL",
    "TOOL": "tools",
    "SEARCH": "search",
    "ACT": "actions",
    "BENCH": "benchmarks",
    "DATA": "synthetic data",
    "GUI": "GUIs",
    "MEM": "memory or planning",
    "ROBOT": "robots",
    "REASON": "reasoning",
}


def describe(feature: str) -> str:
    """A feature as a reader would say it: ``"s:AGENT+TRAIN"`` is
    ``"one sentence: agents + training"``, ``"t:agent"`` is ``"title: agent"``,
    ``"tc:AGENT"`` ``"title names agents"`` and the word pair ``tool use`` is quoted,
    ``'"tool use"'``."""
    kind, _, rest = feature.partition(":")
    if not rest or kind not in ("t", "tc", "s", "q"):
        # Two words in a row, quoted as a phrase: "r1 significantly +0.49" read as two
        # words weighed apart.
        return f'"{feature}"' if " " in feature else feature
    if kind == "t":
        return f"title: {rest}"
    if kind == "q":
        return f"query of {rest} matches"
    named = " + ".join(CONCEPT_NAMES.get(part, part) for part in rest.split("+"))
    # "title names agents" (any word for them), apart from the word "title: agents".
    return f"title names {named}" if kind == "tc" else f"one sentence: {named}"


def _concept_masks(pairs: bool) -> dict[str, int]:
    """Phrase -> bit mask of the kinds it belongs to (bit i: the i-th kind of CONCEPTS)."""
    masks: dict[str, int] = {}
    for bit, phrases in enumerate(CONCEPTS.values()):
        for phrase in phrases:
            if (" " in phrase) == pairs:
                masks[phrase] = masks.get(phrase, 0) | 1 << bit
    return masks


_WORD_MASKS = _concept_masks(pairs=False)
#: Word pairs as tuples of their two words: pairs of a paper are looked up as made
#: by zip, without joining each into a string.
_PAIR_MASKS = {
    (phrase.partition(" ")[0], phrase.partition(" ")[2]): mask
    for phrase, mask in _concept_masks(pairs=True).items()
}
_WORD_KEYS = frozenset(_WORD_MASKS)
_PAIR_KEYS = frozenset(_PAIR_MASKS)
_KINDS = tuple(CONCEPTS)
#: A sentence ends at ., ! or ? followed by white space.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _sentence_fold_table() -> bytes:
    # papertrack.query's ASCII fold (letters and digits lower-cased, anything else
    # a space), except that ".", "!" and "?" become \x1c and white space \x1d.
    # str.split takes both for white space, so words come out as tokenize's, and
    # "\x1c\x1d" marks exactly where _SENTENCE_END splits: after ., ! or ? and
    # before white space (the rest of a run of white space starts the next part,
    # where split ignores it).
    table = bytearray(ASCII_FOLD)
    for code in range(128):
        char = chr(code)
        if char in ".!?":
            table[code] = 0x1C
        elif char.isspace():
            table[code] = 0x1D
    return bytes(table)


_SENTENCE_FOLD = _sentence_fold_table()
_SENTENCE_MARK = "\x1c\x1d"


def sentences(abstract: str) -> list[list[str]]:
    """The folded words of each sentence of ``abstract``: ``tokenize`` of each part
    of ``_SENTENCE_END.split(abstract)``. Most abstracts are ASCII, and those are
    folded and split in a few C-level passes instead of a regex split and a fold a
    sentence."""
    if abstract.isascii():
        abstract = join_carets(abstract)
        folded = abstract.encode("ascii").translate(_SENTENCE_FOLD).decode("ascii")
        return [part.split() for part in folded.split(_SENTENCE_MARK)]
    return [tokenize(part) for part in _SENTENCE_END.split(abstract)]


#: A paper's words as :func:`features` reads them: its title's, and each sentence's
#: of its abstract (:func:`read`).
Words = tuple[list[str], list[list[str]]]
#: A paper as the models' ids are made from it: (title words, sentences, hints),
#: :func:`features`'s arguments :func:`read` (see :func:`read_all`).
ReadPaper = tuple[list[str], list[list[str]], Iterable[str]]


def read(title: str, abstract: str) -> Words:
    """``title`` and ``abstract`` split into words once, as :func:`features` reads them.

    Ingest's bundled queries, models and search index row all read these words
    (:func:`papertrack.topics.model_words`): split once, not three times (splitting
    a real abstract costs about 10-20 µs)."""
    return tokenize(title), sentences(abstract)


def read_all(papers: Iterable[tuple[str, str, Iterable[str]]]) -> list[ReadPaper]:
    """``papers`` as :func:`features` takes them, (title, abstract, hints), :func:`read`."""
    return [(*read(title, abstract), hints) for title, abstract, hints in papers]


#: (prefix, mask) -> the features of the kinds in mask, alone (title only) and in pairs.
_MASK_FEATURES: dict[tuple[str, int], tuple[str, ...]] = {}


def _mask_features(prefix: str, mask: int) -> tuple[str, ...]:
    """``tc:AGENT``, ``tc:AGENT+TRAIN``, ... for the kinds in ``mask`` (memoised: there
    are few distinct masks, and this runs for every sentence)."""
    key = (prefix, mask)
    found = _MASK_FEATURES.get(key)
    if found is None:
        kinds = sorted(kind for bit, kind in enumerate(_KINDS) if mask >> bit & 1)
        pairs = [f"{prefix}{a}+{b}" for i, a in enumerate(kinds) for b in kinds[i + 1 :]]
        alone = [prefix + kind for kind in kinds] if prefix == "tc:" else []
        found = _MASK_FEATURES[key] = (*alone, *pairs)
    return found


def _mask(words: list[str], pairs: Iterable[tuple[str, str]]) -> int:
    """The kinds of CONCEPTS a run of words (and its word pairs) mentions, as a bit mask."""
    mask = 0
    for word in _WORD_KEYS.intersection(words):
        mask |= _WORD_MASKS[word]
    for pair in _PAIR_KEYS.intersection(pairs):
        mask |= _PAIR_MASKS[pair]
    return mask


def features(title: str, abstract: str, hints: Iterable[str] = ()) -> frozenset[str]:
    """The features of a paper: its words, title words, word pairs, concepts and hints.

    * every word of title and abstract (``"agent"``), except pure numbers, which
      say little on their own;
    * every title word again, prefixed ``"t:"`` (``"t:agent"``): a word in the
      title says more about a paper's topic than the same word in the abstract;
    * every pair of adjacent words (``"language model"``), numbers included
      (``"gpt 4"``), within the title and within one sentence of the abstract;
    * every :data:`CONCEPTS` kind the title mentions (``"tc:AGENT"``) and every two
      kinds mentioned together, in the title (``"tc:AGENT+TRAIN"``) or in one
      sentence of the abstract (``"s:AGENT+TRAIN"``);
    * ``"q:" + hint`` for each of ``hints``: the default topics whose query the
      paper matches (see :func:`papertrack.topics.default_hits`), so a model can
      lean on the hand-written conjunctions of the queries.

    Words are :func:`papertrack.topics.tokenize`'s (case- and accent-folded, split at
    every non-alphanumeric), so models see the text the way queries do.
    """
    # Written for speed (this runs on every paper at ingest): set updates fed by
    # C-level map/zip, and str.isdigit only on the distinct words.
    title_words = tokenize(title)
    title_pairs = list(zip(title_words, title_words[1:], strict=False))
    feats = set(title_words)
    feats.update(["t:" + word for word in title_words if not word.isdigit()])
    feats.update(map(_join, title_pairs))
    mask = _mask(title_words, title_pairs)
    if mask:
        feats.update(_mask_features("tc:", mask))
    for words in sentences(abstract):
        pairs = list(zip(words, words[1:], strict=False))
        feats.update(words)
        feats.update(map(_join, pairs))
        mask = _mask(words, pairs)
        if mask & (mask - 1):  # two kinds or more
            feats.update(_mask_features("s:", mask))
    numbers = list(filter(_isdigit, feats))
    if numbers:
        feats.difference_update(numbers)
    feats.update(["q:" + hint for hint in hints])
    return frozenset(feats)


class _Known(dict[str, int]):
    """Word -> number, -1 for a word it does not hold (without adding it)."""

    def __missing__(self, word: str) -> int:
        return -1


class _Numbering(dict[str, int]):
    """Word -> number, a word not met before numbered next."""

    def __missing__(self, word: str) -> int:
        number = self[word] = len(self)
        return number


@dataclass
class _Runs:
    """The words of many papers as numbers, as :func:`features` reads them.

    ``words`` holds each paper's title and each sentence of its abstract, in turn,
    each run followed by -1 (so no word pair spans two runs); ``rows[i]`` is the
    paper of ``words[i]``. ``titles`` and ``title_rows`` are the title words alone,
    and ``named``/``named_rows`` each paper's concept and hint features, by name.
    """

    words: Any
    rows: Any
    titles: Any
    title_rows: Any
    named: list[str]
    named_rows: list[int]
    count: int

    @classmethod
    def of(cls, papers: Iterable[ReadPaper], number: Any) -> _Runs:
        """``papers`` as :func:`read_all` gives them; ``number`` maps a word to its
        number (a dict whose ``__missing__`` answers)."""
        import numpy as np

        get = number.__getitem__
        flat: list[int] = []
        lengths: list[int] = []
        titles: list[int] = []
        title_rows: list[int] = []
        named: list[str] = []
        named_rows: list[int] = []
        for row, (title_words, abstract_sentences, hints) in enumerate(papers):
            start = len(flat)
            numbers = list(map(get, title_words))
            flat += numbers
            flat.append(-1)
            titles += numbers
            title_rows += [row] * len(numbers)
            extra = ["q:" + hint for hint in hints]
            mask = _mask(title_words, zip(title_words, title_words[1:], strict=False))
            if mask:
                extra += _mask_features("tc:", mask)
            for words in abstract_sentences:
                flat += map(get, words)
                flat.append(-1)
                mask = _mask(words, zip(words, words[1:], strict=False))
                if mask & (mask - 1):
                    extra += _mask_features("s:", mask)
            distinct = set(extra)
            named += distinct
            named_rows += [row] * len(distinct)
            lengths.append(len(flat) - start)
        count = len(lengths)
        return cls(
            np.array(flat, dtype=np.int64),
            np.repeat(np.arange(count, dtype=np.int64), lengths),
            np.array(titles, dtype=np.int64),
            np.array(title_rows, dtype=np.int64),
            named,
            named_rows,
            count,
        )

    def pairs(self, width: int) -> tuple[Any, Any]:
        """(code, row) of every word pair of a run whose words both have numbers:
        ``first * width + second``."""
        words = self.words
        if len(words) < 2:
            return words[:0], words[:0]
        first, second = words[:-1], words[1:]
        both = (first >= 0) & (second >= 0)  # a run's last word meets its -1
        return first[both] * width + second[both], self.rows[:-1][both]


def _firsts(keys: Any) -> Any:
    """Which of ``keys`` (sorted) differ from the one before: the first of each value."""
    import numpy as np

    first = np.empty(len(keys), dtype=bool)
    first[:1] = True
    np.not_equal(keys[1:], keys[:-1], out=first[1:])
    return first


def _distinct(values: Any) -> Any:
    """The distinct ``values`` (integers), ascending: ``np.unique``, by a sort (its
    hashing took 4 times as long on these arrays)."""
    import numpy as np

    keys = np.sort(values)
    return keys[_firsts(keys)]


def _distinct_places(values: Any) -> tuple[Any, Any]:
    """:func:`_distinct` of ``values``, and each value's place among them, from one
    sort (searching for each value among the distinct ones took twice as long)."""
    import numpy as np

    order = np.argsort(values)
    keys = values[order]
    first = _firsts(keys)
    places = np.empty(len(values), dtype=np.int64)
    places[order] = np.cumsum(first) - 1
    return keys[first], places


def _unique_pairs(rows: Any, ids: Any, size: int) -> tuple[Any, Any]:
    """``rows`` and ``ids`` sorted by row, then id, each (row, id) once."""
    width = max(size, 1)
    keys = _distinct(rows * width + ids)
    return keys // width, keys % width


def row_bounds(rows: Any, count: int) -> Any:
    """Where each of ``count`` rows starts in ``rows`` (ascending row numbers), and
    the end: row n is ``bounds[n]:bounds[n + 1]``."""
    import numpy as np

    return np.searchsorted(rows, np.arange(count + 1))


def weight_sums(weights: Any, rows: Any, ids: Any, count: int) -> Any:
    """Each of ``count`` papers' sum of the weight rows of its features, in int64:
    ``weights`` a row a feature id (integer units, a column a topic), ``ids`` the
    papers' features and ``rows`` each one's paper, ascending. One ``reduceat``
    over the papers that have any features (it cannot take an empty range)."""
    import numpy as np

    bounds = row_bounds(rows, count)
    totals = np.zeros((count, weights.shape[1]), dtype=np.int64)
    starts = bounds[:-1]
    held = bounds[1:] > starts
    if held.any():
        totals[held] = np.add.reduceat(weights[ids], starts[held], axis=0, dtype=np.int64)
    return totals


class FeatureIds:
    """:func:`features` as ids into a sorted list of feature names, many papers at once.

    Making every feature's name and looking it up costs about 370 µs a paper (some
    330 names, most of them word pairs, looked up in a table of ~830,000). This
    looks up each word once, in a table of the ~43,000 words the names hold, and
    finds a word pair by the two words' numbers in a sorted numpy array: about
    125 µs a paper in batches of a week's papers, the same ids. Only concepts and
    query matches (a few a paper) are looked up by name.
    """

    def __init__(self, names: Sequence[str]) -> None:
        import numpy as np

        words = _Numbering()
        word_ids: list[int] = []
        title_ids: list[int] = []
        firsts: list[int] = []
        seconds: list[int] = []
        pair_ids: list[int] = []
        named: dict[str, int] = {}

        def number(word: str) -> int:
            found = words[word]
            if found == len(word_ids):
                word_ids.append(-1)
                title_ids.append(-1)
            return found

        for i, name in enumerate(names):
            kind, colon, rest = name.partition(":")
            if colon:
                if kind == "t":
                    if not rest.isdigit():  # features() has no pure number alone
                        title_ids[number(rest)] = i
                else:
                    named[name] = i
            elif " " in name:
                first, _, second = name.partition(" ")
                firsts.append(number(first))
                seconds.append(number(second))
                pair_ids.append(i)
            elif not name.isdigit():
                word_ids[number(name)] = i
        codes = np.array(firsts, dtype=np.int64) * len(words) + np.array(seconds, dtype=np.int64)
        order = np.argsort(codes, kind="stable")
        self._set(
            len(names),
            words,
            np.array(word_ids, dtype=np.int64),
            np.array(title_ids, dtype=np.int64),
            codes[order],
            np.array(pair_ids, dtype=np.int64)[order],
            named,
        )

    def _set(
        self,
        size: int,
        words: Mapping[str, int],
        word_ids: Any,
        title_ids: Any,
        codes: Any,
        pair_ids: Any,
        named: dict[str, int],
    ) -> None:
        """``words``: word -> number; ``word_ids``/``title_ids``: a word number's id as
        a word and as a title word (-1: none); ``codes``: the pairs' ``first * len(words)
        + second``, ascending, and ``pair_ids`` their ids; ``named``: the other names."""
        self.size = size
        self._words = _Known(words)
        self._named = named
        self._word_ids = word_ids
        self._title_ids = title_ids
        self._codes = codes
        self._pair_ids = pair_ids

    @classmethod
    def _of_parts(cls, *parts: Any) -> FeatureIds:
        """The table of the parts :func:`vocabulary_of` has (as :meth:`_set` takes
        them), without reading them back out of the ~830,000 names (0.7 s)."""
        table = cls.__new__(cls)
        table._set(*parts)
        return table

    def ids(self, papers: Iterable[ReadPaper]) -> tuple[Any, Any]:
        """(rows, ids) for ``papers`` given as :func:`read_all` gives them: for the n-th
        paper, rows holds n once for each of its features that ``names`` has, and ids
        that feature's place in ``names``; sorted by row, then id, no pair twice."""
        import numpy as np

        runs = _Runs.of(papers, self._words)
        known = runs.words >= 0
        rows, ids = [runs.rows[known]], [self._word_ids[runs.words[known]]]
        if len(self._codes):
            code, row_of = runs.pairs(len(self._words))
            # Looked for in ascending order, each search starts where the last ended:
            # with the sort, half the time of searching in the text's order.
            order = np.argsort(code)
            place = np.empty(len(code), dtype=np.int64)
            place[order] = np.searchsorted(self._codes, code[order])
            place[place == len(self._codes)] = 0
            hit = self._codes[place] == code
            rows.append(row_of[hit])
            ids.append(self._pair_ids[place[hit]])
        known = runs.titles >= 0
        rows.append(runs.title_rows[known])
        ids.append(self._title_ids[runs.titles[known]])
        rows.append(np.array(runs.named_rows, dtype=np.int64))
        ids.append(np.array([self._named.get(name, -1) for name in runs.named], dtype=np.int64))
        every_row, every_id = np.concatenate(rows), np.concatenate(ids)
        held = every_id >= 0  # a word of the names need not be a word feature itself
        return _unique_pairs(every_row[held], every_id[held], self.size)


def word_runs(papers: Iterable[ReadPaper]) -> tuple[list[str], _Runs]:
    """The words of ``papers`` (as :func:`read_all` gives them) as numbers, and the
    words those numbers stand for: one part of what :func:`vocabulary` reads."""
    numbering = _Numbering()
    runs = _Runs.of(papers, numbering)
    return list(numbering), runs


def _merged(parts: Iterable[tuple[list[str], _Runs]]) -> tuple[dict[str, int], _Runs]:
    """:func:`word_runs` of consecutive slices of papers as one, numbered anew: the
    numbering (word -> number, in number order) and the runs."""
    import numpy as np

    numbering = _Numbering()
    words, rows, titles, title_rows = [], [], [], []
    named: list[str] = []
    named_rows: list[int] = []
    count = 0
    for part_words, runs in parts:
        # A part's numbers in the whole's, and -1 (a run's end) to itself: -1 picks
        # the last place.
        remap = np.fromiter(
            chain(map(numbering.__getitem__, part_words), (-1,)),
            dtype=np.int64,
            count=len(part_words) + 1,
        )
        words.append(remap[runs.words])
        rows.append(runs.rows + count)
        titles.append(remap[runs.titles])
        title_rows.append(runs.title_rows + count)
        named += runs.named
        named_rows += [row + count for row in runs.named_rows]
        count += runs.count
    empty = np.zeros(0, dtype=np.int64)
    merged = _Runs(
        np.concatenate([empty, *words]),
        np.concatenate([empty, *rows]),
        np.concatenate([empty, *titles]),
        np.concatenate([empty, *title_rows]),
        named,
        named_rows,
        count,
    )
    return numbering, merged


def vocabulary(papers: Iterable[tuple[str, str, Iterable[str]]]) -> tuple[list[str], Any, Any]:
    """(names, rows, ids): every feature of ``papers`` (as :func:`features` takes them),
    sorted, and each paper's features as :meth:`FeatureIds.ids` gives them.

    Only the distinct words, word pairs and concepts get names. For the 12,850
    labelled train papers, in one process: 1.1 s for their hints, then 3.4 s here,
    where making every paper's feature names and numbering them took about 7.4 s
    with the hints.
    """
    names, rows, ids, _ = vocabulary_of([word_runs(read_all(papers))])
    return names, rows, ids


def vocabulary_of(
    parts: Iterable[tuple[list[str], _Runs]],
) -> tuple[list[str], Any, Any, FeatureIds]:
    """:func:`vocabulary` of the papers of ``parts``, :func:`word_runs` of consecutive
    slices of them (made in other processes, say), and the :class:`FeatureIds` of
    its names, made from the same parts."""
    import numpy as np

    numbering, runs = _merged(parts)
    words = list(numbering)
    width = len(words)
    codes, pair_rows = runs.pairs(width)
    distinct, pair_place = _distinct_places(codes)
    # Every candidate name, then its place in sorted order: words (pure numbers are
    # no feature alone), title words, word pairs, concepts and hints.
    is_number = np.fromiter(map(_isdigit, words), dtype=bool, count=width)
    firsts, seconds = (distinct // max(width, 1)).tolist(), (distinct % max(width, 1)).tolist()
    named = sorted(set(runs.named))
    names = [
        *words,
        *["t:" + word for word in words],
        *[words[a] + " " + words[b] for a, b in zip(firsts, seconds, strict=True)],
        *named,
    ]
    wanted = np.ones(len(names), dtype=bool)
    wanted[:width] = ~is_number
    wanted[width : 2 * width] = ~is_number
    title_used = np.zeros(width, dtype=bool)
    title_used[runs.titles] = True
    wanted[width : 2 * width] &= title_used
    word_used = np.zeros(width, dtype=bool)
    word_used[runs.words[runs.words >= 0]] = True
    wanted[:width] &= word_used
    candidates = np.flatnonzero(wanted).tolist()
    by_name = sorted(candidates, key=names.__getitem__)
    place = np.full(len(names), -1, dtype=np.int64)
    place[by_name] = np.arange(len(by_name), dtype=np.int64)
    sorted_names = [names[i] for i in by_name]
    known = runs.words >= 0
    rows = [runs.rows[known], runs.title_rows, pair_rows]
    ids = [
        place[runs.words[known]],
        place[width + runs.titles],
        place[2 * width + pair_place],
    ]
    named_at = 2 * width + len(distinct)
    named_place = {name: named_at + i for i, name in enumerate(named)}
    rows.append(np.array(runs.named_rows, dtype=np.int64))
    ids.append(place[np.array([named_place[n] for n in runs.named], dtype=np.int64)])
    every_row, every_id = np.concatenate(rows), np.concatenate(ids)
    held = every_id >= 0  # a pure number alone
    found_rows, found_ids = _unique_pairs(every_row[held], every_id[held], len(sorted_names))
    table = FeatureIds._of_parts(
        len(sorted_names),
        numbering,
        place[:width],
        place[width : 2 * width],
        distinct,
        place[2 * width : named_at],
        {name: int(place[at]) for name, at in named_place.items()},
    )
    return sorted_names, found_rows, found_ids, table


# ---------------------------------------------------------------------------
# Models


@dataclass
class TopicModel:
    """A linear classifier over :func:`features`: ``score = bias + sum of weights``.

    ``score`` is a logit; the model decides a paper is on topic when
    ``score >= threshold``. ``meta`` is free-form JSON-compatible data (training
    counts, cross-validated precision and recall, the seed and hyper-parameters)
    kept with the model so a model file says how it was made.
    """

    weights: dict[str, float]
    bias: float
    threshold: float
    meta: dict[str, Any] = field(default_factory=dict)

    def points(self, feats: AbstractSet[str]) -> int:
        """The score of a paper with features ``feats`` in units of 1e-4 (:func:`units`).

        Integers add up exactly in any order, so a model read back from its file,
        the merged :class:`ModelSet` of an ingest and a retag from stored vectors
        all score a paper alike, to the last unit.
        """
        weights = self.weights
        return units(self.bias) + sum(map(units, map(weights.__getitem__, feats & weights.keys())))

    def score(self, feats: AbstractSet[str]) -> float:
        """The logit of a paper with features ``feats``: :meth:`points` as a number."""
        return self.points(feats) / SCALE

    def decide(self, feats: AbstractSet[str]) -> bool:
        """Whether a paper with features ``feats`` is on topic: its score reaches the threshold."""
        return self.points(feats) >= units(self.threshold)

    def contributions(
        self, feats: AbstractSet[str], k: int = 8
    ) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
        """The ``k`` features of a paper that raised its score most, and the ``k`` that cut it most.

        Features are present or absent, so a feature's contribution is its weight.
        Both lists run from the strongest feature down; ties go by name so the
        explanation is stable.
        """
        weights = self.weights
        present = [(name, weights[name]) for name in feats & weights.keys()]
        up = sorted((item for item in present if item[1] > 0.0), key=lambda x: (-x[1], x[0]))
        down = sorted((item for item in present if item[1] < 0.0), key=lambda x: (x[1], x[0]))
        return up[:k], down[:k]

    def to_json(self) -> dict[str, Any]:
        """The model as JSON-compatible data, the same for the same model on every run.

        Weights are rounded to 4 decimals, zero weights dropped and names sorted, so
        a saved file diffs cleanly and stays small.
        """
        weights = {}
        for name in sorted(self.weights):
            value = round(self.weights[name], DECIMALS)
            if value != 0.0:
                weights[name] = value
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "bias": round(self.bias, DECIMALS),
            "threshold": round(self.threshold, DECIMALS),
            "meta": copy.deepcopy(self.meta),
            "weights": weights,
        }

    @classmethod
    def from_json(cls, data: object) -> TopicModel:
        """A model from :meth:`to_json` data; :class:`ValueError` saying what is wrong if not."""
        if not isinstance(data, dict):
            raise ValueError(f"a topic model must be a JSON object, not {_kind(data)}")
        if data.get("format") != FORMAT:
            raise ValueError(
                f"not a papertrack topic model: 'format' is {data.get('format')!r}, "
                f"expected {FORMAT!r}"
            )
        if data.get("version") != FORMAT_VERSION:
            raise ValueError(
                f"unsupported topic model version {data.get('version')!r} "
                f"(this papertrack reads version {FORMAT_VERSION})"
            )
        # As to_json writes them: a file written by hand or elsewhere with more
        # places shows the threshold the decision counts with (:func:`units`).
        bias = round(_number(data, "bias"), DECIMALS)
        threshold = round(_number(data, "threshold"), DECIMALS)
        meta = data.get("meta", {})
        if not isinstance(meta, dict):
            raise ValueError(f"topic model 'meta' must be an object, not {_kind(meta)}")
        _check_meta(meta)
        raw = data.get("weights")
        if not isinstance(raw, dict):
            raise ValueError(f"topic model 'weights' must be an object, not {_kind(raw)}")
        weights: dict[str, float] = {}
        for name, value in raw.items():
            if not isinstance(name, str) or not name:
                raise ValueError(f"topic model weight name {name!r} is not a non-empty string")
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(
                    f"topic model weight {name!r} must be a number, not {_kind(value)}"
                )
            if not math.isfinite(value):
                raise ValueError(f"topic model weight {name!r} is not finite: {value!r}")
            weights[name] = float(value)
        return cls(weights=weights, bias=bias, threshold=threshold, meta=copy.deepcopy(meta))


def _check_meta(meta: dict[Any, Any]) -> None:
    """ValueError if what papertrack reads from a model's ``meta`` is of the wrong kind
    (a hand-edited or damaged file): it would fail later, far from the file."""

    def figures(key: str, value: object) -> None:
        if not isinstance(value, dict):
            raise ValueError(f"topic model meta {key!r} must be an object, not {_kind(value)}")
        for name, number in value.items():
            if isinstance(number, bool) or not isinstance(number, int | float | type(None)):
                raise ValueError(
                    f"topic model meta {key!r}: {name!r} must be a number, not {_kind(number)}"
                )

    pinned = meta.get("pinned")
    if pinned is not None:
        if not isinstance(pinned, dict) or not all(
            isinstance(k, str) and isinstance(v, bool) for k, v in pinned.items()
        ):
            raise ValueError("topic model meta 'pinned' must map paper ids to true or false")
    for key in ("cv", "examples", "taught"):
        if meta.get(key) is not None:
            figures(key, meta[key])
    rules = meta.get("rules")
    if rules is not None:
        if not isinstance(rules, dict):
            raise ValueError(f"topic model meta 'rules' must be an object, not {_kind(rules)}")
        for rule, value in rules.items():
            figures(f"rules.{rule}", value)
    for key in ("decide", "note", "kind", "topic"):
        if meta.get(key) is not None and not isinstance(meta[key], str):
            raise ValueError(f"topic model meta {key!r} must be a string, not {_kind(meta[key])}")


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


def _number(data: dict[Any, Any], key: str) -> float:
    if key not in data:
        raise ValueError(f"topic model has no {key!r}")
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"topic model {key!r} must be a number, not {_kind(value)}")
    if not math.isfinite(value):
        raise ValueError(f"topic model {key!r} is not finite: {value!r}")
    return float(value)


class ModelSet:
    """Many topic models scored together, in one pass over a paper's features.

    The weights of all models are merged into one dense matrix, a row for each
    feature any model weighs and a column for each model. Scoring a paper looks
    its features up once (one C-level pass over them) and adds up the rows of
    those it has, in numpy: about 35% less time than adding each (topic, weight)
    pair of a merged table in Python, about 660 of them a paper of real text.

    Weights are kept in units of 1e-4 (integers), so scores are exactly each
    model's :meth:`TopicModel.points`. The set copies the models' weights when
    it is built: build a new one after changing a model.
    """

    def __init__(self, models: Mapping[str, TopicModel]) -> None:
        import numpy as np

        self.models: dict[str, TopicModel] = dict(models)
        self._slugs = list(self.models)
        rows: dict[str, int] = {}
        cells: list[tuple[int, int, int]] = []
        for index, model in enumerate(self.models.values()):
            for name, weight in model.weights.items():
                points = units(weight)
                if points:
                    cells.append((rows.setdefault(name, len(rows)), index, points))
        self._rows = rows
        # int64: a paper's sum of up to thousands of weights of up to ~1e5 units
        # each is far from overflowing, and is exact.
        matrix = np.zeros((len(rows), len(self._slugs)), dtype=np.int64)
        if cells:
            at = np.asarray(cells, dtype=np.int64)
            matrix[at[:, 0], at[:, 1]] = at[:, 2]
        self._matrix = matrix
        fitted = self.models.values()
        self._bias_row = np.asarray([units(m.bias) for m in fitted], dtype=np.int64)
        self._threshold_row = np.asarray([units(m.threshold) for m in fitted], dtype=np.int64)
        self._finder: _Finder | None = None
        self._table: FeatureIds | None = None
        self._by_id: Any = None

    def __len__(self) -> int:
        return len(self._slugs)

    def _totals(self, feats: Iterable[str]) -> Any:
        """The models' scores of a paper, in units, as a numpy row."""
        return self._summed([row for row in map(self._rows.get, feats) if row is not None])

    def _summed(self, rows: list[int]) -> Any:
        if not rows:
            return self._bias_row
        return self._bias_row + self._matrix[rows].sum(axis=0)

    def decide_text(self, title: str, abstract: str, hints: Iterable[str] = ()) -> set[str]:
        """``decide(features(title, abstract, hints))``, the way ingest runs it: only
        the features some model weighs are found (see :class:`_Finder`)."""
        if self._finder is None:
            self._finder = _Finder(self._rows)
        return self._fired(self._summed(self._finder.rows(title, abstract, hints)))

    def decide_many(self, papers: Sequence[ReadPaper]) -> list[set[str]]:
        """:meth:`decide_text` of each of ``papers`` (as :func:`read_all` gives them), at once.

        The weighed features of all of them are found by a :class:`FeatureIds` of the
        weighed names, and each paper's totals are one ``np.add.reduceat`` over the
        weight rows of its features: a few numpy passes for all the papers, with no
        scipy (ingest does not import it).
        """
        import numpy as np

        if self._table is None:
            names = sorted(self._rows)
            table = FeatureIds(names)
            rows_of = np.fromiter(
                map(self._rows.__getitem__, names), dtype=np.int64, count=len(names)
            )
            # The weights by feature id; int32 where they fit (a fitted weight is
            # far below 2**31 units): half the bytes to gather, summed in int64.
            by_id = self._matrix[rows_of]
            small = np.abs(by_id).max(initial=0) < 2**31
            # Both, or neither: one set is shared by every catalog of a process
            # (papertrack.topics keeps it), and a thread that saw the table before its
            # weights were set failed in another thread's ingest.
            self._by_id, self._table = (by_id.astype(np.int32) if small else by_id), table
        table, by_id = self._table, self._by_id
        rows, ids = table.ids(papers)
        # Each paper's sum of its features' weight rows (integers: exact): 9 µs a
        # paper of real text, against 35 µs for running sums of the int64 rows.
        totals = weight_sums(by_id, rows, ids, len(papers))
        totals += self._bias_row
        slugs = self._slugs
        fires = totals >= self._threshold_row
        return [{slugs[i] for i in np.flatnonzero(row).tolist()} for row in fires]

    def _fired(self, totals: Any) -> set[str]:
        """The slugs of the topics whose total (a numpy row, in units) reaches its threshold."""
        slugs = self._slugs
        return {slugs[index] for index in (totals >= self._threshold_row).nonzero()[0].tolist()}

    def scores(self, feats: AbstractSet[str]) -> dict[str, float]:
        """Every topic's logit for a paper with features ``feats``."""
        points = self._totals(feats).tolist()
        return {slug: total / SCALE for slug, total in zip(self._slugs, points, strict=True)}

    def decide(self, feats: AbstractSet[str]) -> set[str]:
        """The slugs of the topics whose model fires on a paper with features ``feats``."""
        return self._fired(self._totals(feats))


class _Finder:
    """Which of a set of named features a paper has, found without making the rest.

    :func:`features` makes every feature of a paper, about 340 of real text, for
    fitting and explaining. Scoring needs only those some model weighs, about half
    of them, and making and hashing the others costs as much as scoring does. This
    finds the same ones (``{rows[f] for f in features(...) if f in rows}``): words,
    title words and word pairs in tables of the weighed ones alone, pairs as the
    tuples zip makes instead of joined strings, and the concept features by
    their kinds' bit mask, from a memo.
    """

    def __init__(self, rows: Mapping[str, int]) -> None:
        self._rows = rows
        self.words: dict[str, int] = {}
        self.title: dict[str, int] = {}
        self.pairs: dict[tuple[str, str], int] = {}
        self.hints: dict[str, int] = {}
        for name, row in rows.items():
            kind, colon, rest = name.partition(":")
            if colon:
                # "tc:" and "s:" features are found by their concepts' mask.
                if kind == "t" and not rest.isdigit():
                    self.title[rest] = row
                elif kind == "q":
                    self.hints[rest] = row
            elif " " in name:
                first, _, second = name.partition(" ")
                if " " not in second:
                    self.pairs[first, second] = row
            elif not name.isdigit():  # features() drops pure numbers
                self.words[name] = row
        self._concepts: dict[tuple[str, int], tuple[int, ...]] = {}

    def _concept_rows(self, prefix: str, mask: int) -> tuple[int, ...]:
        key = (prefix, mask)
        found = self._concepts.get(key)
        if found is None:
            named = _mask_features(prefix, mask)
            found = self._concepts[key] = tuple(self._rows[f] for f in named if f in self._rows)
        return found

    def rows(self, title: str, abstract: str, hints: Iterable[str]) -> list[int]:
        """The rows of the weighed features of a paper, each once."""
        title_words = tokenize(title)
        title_pairs = list(zip(title_words, title_words[1:], strict=False))
        words = set(title_words)
        pairs = set(title_pairs)
        rows = [self.title[word] for word in self.title.keys() & words]
        concepts: set[int] = set()
        mask = _mask(title_words, title_pairs)
        if mask:
            concepts.update(self._concept_rows("tc:", mask))
        for sentence in sentences(abstract):
            sentence_pairs = list(zip(sentence, sentence[1:], strict=False))
            words.update(sentence)
            pairs.update(sentence_pairs)
            mask = _mask(sentence, sentence_pairs)
            if mask & (mask - 1):
                concepts.update(self._concept_rows("s:", mask))
        rows += [self.words[word] for word in self.words.keys() & words]
        rows += [self.pairs[pair] for pair in self.pairs.keys() & pairs]
        rows += concepts
        rows += [self.hints[hint] for hint in set(hints) if hint in self.hints]
        return rows


def prf(predicted: Iterable[bool], actual: Iterable[bool]) -> tuple[float, float, float]:
    """Precision, recall and F1 of ``predicted`` against ``actual``, 0.0 where undefined.

    The two must have the same length (:class:`ValueError` otherwise): a report
    built on a silently truncated list would be wrong without saying so.
    """
    tp = fp = fn = 0
    for guess, truth in zip(predicted, actual, strict=True):
        if guess and truth:
            tp += 1
        elif guess:
            fp += 1
        elif truth:
            fn += 1
    return prf_counts(tp, fp, fn)


def prf_counts(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    """:func:`prf` from the counts of true positives, false positives and false negatives."""
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    return precision, recall, f1
