"""Fit a topic's model from labelled papers and choose how the topic decides.

A topic can decide by its query, by its learned model, by either or by both
(:data:`DECISIONS`). Which one measures best is settled here, by cross-validation on
the labelled papers only (``data/labels``, train split, plus the user's own examples
taught with ``papertrack topics teach``); the test split is never looked at.

The labelled papers ship with papertrack, so a user's examples are added to the
same data the default models were fitted on, and the refit model is the default
model plus what the user taught.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import statistics
import zlib
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from papertrack import learn
from papertrack.errors import PapertrackError
from papertrack.parallel import forked_map
from papertrack.topics import DECISIONS

if TYPE_CHECKING:
    from papertrack.fitting import Matrix

#: The split of the labelled papers that fitting and every choice may use.
TRAIN = "train"
#: Fitting settings of every model, chosen by 5-fold cross-validation on the train
#: split (llm-agent-training, ai-agent-benchmarks, long-horizon-agent-tasks; l2 1 or
#: 3, 8 or 30 features per positive, 1,000 or 4,000 features at most): out-of-fold
#: F1 moved by up to 0.05 between them, best here. ``tol``: the norm of the gradient
#: at which the solver stops, where the weights have converged to the 4 decimals a
#: model file keeps (see :mod:`papertrack.fitting`).
FIT_ARGS: dict[str, Any] = {
    "l2": 3.0,
    "features_per_positive": 30.0,
    "max_features": 4000,
    "tol": 1e-3,
}
SEED = 20261201
#: Below this many examples in the topic, no cross-validation: see _like_examples.
MIN_CV_POSITIVES = 8
#: A topic the shipped labels do not know (made with ``topics add --like``, taught
#: with ``topics teach``) is made from what its examples share (:func:`learn.centroid`)
#: until it has this many in it, and fitted like a default topic from then on.
#: Simulated on the train split (k positives of one of 14 topics drawn at random,
#: the rest of the earlier 70% as background, scored on the later 30%), mean F1
#: of the two ways: 0.46 against 0.21 at 8 examples, 0.45 against 0.39 at 16,
#: 0.45 against 0.52 at 32.
LIKE_UNTIL = 24
#: Share of the other labelled papers a topic made from its examples' shared
#: features takes: its threshold is the score only this top share reaches. Same
#: simulation, 4 examples: mean F1 0.32 at 1%, 0.36 at 2%, 0.37 at 3%, 0.34 at 5%.
BACKGROUND_SHARE = 0.03
#: A topic whose examples, held out in turn, score far above that cut is a tight
#: one: its threshold rises to this share of their median score (each as a
#: multiple of its own model's cut). Same simulation, mean F1 with 4 and 12
#: examples: 0.364 and 0.466 at the cut alone, 0.374 and 0.491 at 0.5, 0.383 and
#: 0.505 at 0.7 (deep research at 12: 0.38 to 0.63); the lowest held-out score
#: instead of the median: 0.377 and 0.487.
HELD_OUT_SHARE = 0.7
#: A topic made from fewer examples than this also learns from the background
#: papers its first model scores highest (:data:`FEEDBACK_PAPERS` of them, each
#: counting :data:`FEEDBACK_WEIGHT` of an example): pseudo-relevance feedback,
#: which fills in the words a few examples share only by chance. Same simulation
#: (train split alone, 14 topics, 5 draws), mean F1 without and with it: 0.21 and
#: 0.27 with 1 example, 0.23 and 0.33 with 2, 0.39 and 0.43 with 4, 0.47 and 0.48
#: with 6, 0.48 and 0.49 with 8, 0.49 and 0.49 with 10, 0.50 and 0.48 with 12. With
#: 4 examples: 0.41-0.43 for 5 to 40 papers at weights 0.25-0.5, 0.39-0.40 where
#: they weigh 10 examples or more in all.
FEEDBACK_UNTIL = 10
FEEDBACK_PAPERS = 20
FEEDBACK_WEIGHT = 0.25
FOLDS = 5


@dataclass(frozen=True)
class Labelled:
    """A paper of the labelled set: text, topic slugs and where it came from."""

    arxiv_id: str
    title: str
    abstract: str
    categories: tuple[str, ...]
    labels: frozenset[str]
    split: str = TRAIN
    date: str = ""


def load_labelled(path: Path) -> list[Labelled]:
    """The labelled papers of ``path`` (``data/labels/corpus.jsonl.gz``).

    Raises:
        PapertrackError: the file is missing or damaged (reinstall papertrack).
    """
    import orjson

    try:
        # Whole, then a line at a time with orjson: 0.39-0.43 s for the 15,545 papers
        # against 0.44-0.59 s through gzip's text stream and json (every teach reads
        # them); and a damaged block raises zlib.error here, caught below.
        lines = gzip.decompress(path.read_bytes()).splitlines()
        return [_labelled(orjson.loads(line)) for line in lines if line.strip()]
    except (OSError, ValueError, EOFError, zlib.error, KeyError, TypeError, AttributeError) as exc:
        raise PapertrackError(
            f"could not read the labelled papers {path} ({type(exc).__name__}: {exc}). "
            "Reinstall papertrack"
        ) from None


def _labelled(row: dict[str, Any]) -> Labelled:
    return Labelled(
        arxiv_id=row["arxiv_id"],
        title=row["title"],
        abstract=row["abstract"],
        categories=tuple(row.get("categories", "").split()),
        labels=frozenset(row.get("labels", ())),
        split=row.get("split", TRAIN),
        date=row.get("date", ""),
    )


@dataclass
class Choice:
    """A fitted model and the decision rule that measured best, with every rule's figures."""

    model: learn.TopicModel
    decide: str
    #: rule -> {"precision", "recall", "f1"} out of fold, on the examples.
    rules: dict[str, dict[str, float]] = field(default_factory=dict)


def _folds(keys: Sequence[str], k: int, seed: int) -> list[int]:
    """Each example's fold, from its paper id alone (a seeded CRC-32, modulo ``k``).

    Folds drawn by shuffling moved every example to another fold whenever one was
    added, and with them the out-of-fold scores and the threshold: teaching one
    paper changed about a tenth of the tags of llm-agent-training on the labelled
    papers. By id, an added example changes only its own fold. Folds are not
    stratified; with at least MIN_CV_POSITIVES positives, every fold gets some
    on the real topics.
    """
    return [zlib.crc32(f"{seed}:{key}".encode()) % k for key in keys]


def choose(
    matrix: Matrix | Sequence[AbstractSet[str]],
    labels: Sequence[bool],
    query_hits: Sequence[bool] | None,
    *,
    keys: Sequence[str],
    rules: Iterable[str] = DECISIONS,
    seed: int = SEED,
    folds: int = FOLDS,
    outside: AbstractSet[str] = frozenset(),
    like_until: int = MIN_CV_POSITIVES,
    few_rule: str = "either",
    fit_args: Mapping[str, Any] = FIT_ARGS,
    prefer_cut: float | None = None,
) -> Choice:
    """Fit a model and choose the rule (of ``rules``) with the best out-of-fold F1.

    ``matrix`` holds the examples' features, a row each (or a set of feature
    names each), with ``labels``;
    ``query_hits`` says which examples the topic's query matches (None: the topic
    has no query, so only "model" is possible); ``keys`` are the examples' paper
    ids, which assign the folds (:func:`_folds`). Every example gets a score from a
    model fitted on the other folds; for each rule the threshold that maximises F1
    of the rule's out-of-fold decisions is found, and that threshold is the final
    model's. Ties go to the rule listed first.

    With fewer than ``like_until`` positives (and always below
    :data:`MIN_CV_POSITIVES`) the model is made from what the positives share
    instead (:func:`_like_examples`); ``outside`` are the keys of the examples a
    user said are not in the topic, and ``few_rule`` how such a topic with a query
    decides ("either": the examples widen the query; "query": they are pinned).
    ``fit_args`` go to :func:`papertrack.fitting.fit`. ``prefer_cut``: of the
    near-best thresholds, take the one nearest this (see :func:`_best_cut`).
    """
    from papertrack import fitting

    if not isinstance(matrix, fitting.Matrix):
        matrix = fitting.Matrix.from_sets(matrix)
    y = [bool(v) for v in labels]
    allowed = [r for r in rules if query_hits is not None or r == "model"]
    if sum(y) < max(like_until, MIN_CV_POSITIVES) or all(y):
        return _like_examples(matrix, y, query_hits, keys, outside, seed, few_rule)
    k = min(folds, sum(y))
    fold = _folds(keys, k, seed)
    # Document counts of all examples, once; each fold's are these less its own.
    everyone = list(range(len(y)))
    job = _FoldJob(matrix, y, fold, fitting.counts(matrix, everyone, y), dict(fit_args))
    parts = [_FINAL, *range(k)]
    final: learn.TopicModel | None = None
    scores = [0.0] * len(y)
    # The k fold fits and the final fit are independent: forked workers share them
    # (the matrix is inherited, only scores and the final model come back).
    fits = forked_map(_fit_part, job, parts, spread=len(y) >= SPREAD_AT)
    # Closed here on a Ctrl-C, as the retag's pool is: left to the garbage collector,
    # it was stopped after "Interrupted." was said, and a second signal then killed
    # the command outright (exit -2, not 130).
    with contextlib.closing(fits):
        for part, fitted in zip(parts, fits, strict=True):
            if isinstance(fitted, learn.TopicModel):
                final = fitted
            else:
                for i, score in zip(job.held_out(part), fitted, strict=True):
                    scores[i] = score
    assert final is not None
    cuts = _candidate_cuts(sorted(set(scores), reverse=True))
    results = {rule: _best_cut(rule, cuts, scores, y, query_hits, prefer_cut) for rule in allowed}
    decide = max(allowed, key=lambda r: (results[r][0], -allowed.index(r)))
    model = final
    model.threshold = round(results[decide][1], 4)
    model.meta["cv"] = dict(results["model"][2]) if "model" in results else None
    model.meta["seed"] = seed
    return Choice(model, decide, {rule: result[2] for rule, result in results.items()})


#: A topic's threshold is the middle one of the candidate thresholds whose
#: out-of-fold F1 is within this of the best (see _best_cut).
BAND = 0.01
#: Cross-validation over at least this many examples spreads its fits over
#: worker processes (see :mod:`papertrack.parallel`).
SPREAD_AT = 2_000
#: The part of a :class:`_FoldJob` that is the final fit, on every example.
_FINAL = -1


@dataclass(frozen=True)
class _FoldJob:
    """The fits of one cross-validation: the examples, their folds and counts."""

    matrix: Matrix
    y: list[bool]
    fold: list[int]
    counts: tuple[Any, Any]
    fit_args: dict[str, Any]

    def held_out(self, part: int) -> list[int]:
        return [i for i, f in enumerate(self.fold) if f == part]


def _fit_part(job: _FoldJob, part: int) -> learn.TopicModel | list[float]:
    """The final model (``part`` is :data:`_FINAL`), or fold ``part``'s held-out scores
    from a model fitted on the other folds."""
    from papertrack import fitting

    if part == _FINAL:
        return fitting.fit(job.matrix, job.y, counted=job.counts, **job.fit_args)
    train = [i for i, f in enumerate(job.fold) if f != part]
    held_out = job.held_out(part)
    minus = fitting.counts(job.matrix, held_out, [job.y[i] for i in held_out])
    counted = (job.counts[0] - minus[0], job.counts[1] - minus[1])
    fitted = fitting.fit(job.matrix, job.y, train, counted=counted, **job.fit_args)
    return [p / learn.SCALE for p in fitting.points(fitted, job.matrix, held_out)]


def _counts_rate(tp: int, tagged: int, positives: int) -> dict[str, float]:
    """Precision, recall and F1, rounded, of ``tagged`` papers tagged, ``tp`` of them right."""
    precision, recall, f1 = learn.prf_counts(tp, tagged - tp, positives - tp)
    return {"precision": round(precision, 4), "recall": round(recall, 4), "f1": round(f1, 4)}


def _best_cut(
    rule: str,
    cuts: Sequence[float],
    scores: Sequence[float],
    y: Sequence[bool],
    query_hits: Sequence[bool] | None,
    prefer: float | None = None,
) -> tuple[float, float, dict[str, float]]:
    """(F1, threshold, figures) of ``rule`` at its best threshold of ``cuts`` (descending).

    One sweep down the examples sorted by score: lowering the threshold past an
    example turns its model decision on, which changes the rule's decision only
    for "model", for "either" without a query hit and for "both" with one. Of
    the thresholds whose F1 is within :data:`BAND` of the best, the middle one
    wins (with one example flipped, the single best moved the threshold of
    llm-agent-training by up to 0.6 logits, and the middle by up to 0.13), or,
    given ``prefer``, the one nearest it.
    """
    queried = query_hits if query_hits is not None else y
    positives = sum(y)
    query_tagged = sum(1 for q in queried if q)
    query_tp = sum(1 for q, label in zip(queried, y, strict=True) if q and label)
    if rule == "query":
        rated = _counts_rate(query_tp, query_tagged, positives)
        return rated["f1"], cuts[0], rated
    # Whether the model's decision counts for the rule, and the hits without it.
    if rule == "model":
        moves = [True] * len(y)
    elif rule == "either":
        moves = [not q for q in queried]
    else:  # both
        moves = [bool(q) for q in queried]
    tagged, tp = (query_tagged, query_tp) if rule == "either" else (0, 0)
    order = sorted(range(len(y)), key=lambda i: -scores[i])
    at = 0
    swept: list[tuple[float, float, dict[str, float]]] = []
    for cut in cuts:
        while at < len(order) and scores[order[at]] >= cut:
            i = order[at]
            if moves[i]:
                tagged += 1
                tp += y[i]
            at += 1
        rated = _counts_rate(tp, tagged, positives)
        swept.append((rated["f1"], cut, rated))
    # F1 is flat near its best: the best single cut jumps across that plateau when
    # one example changes. The middle of the cuts within BAND of the best moves
    # far less (see BAND).
    top = max(f1 for f1, _, _ in swept)
    near = [entry for entry in swept if entry[0] >= top - BAND]
    if prefer is not None:
        # A teach's refit: of the near-best cuts, the one nearest the shipped model's.
        # The middle moved llm-agent-training's from +0.59 to +0.50 for two examples,
        # and 26 other papers with it, most of them out.
        return min(near, key=lambda entry: abs(entry[1] - prefer))
    return near[(len(near) - 1) // 2]


def _like_examples(
    matrix: Matrix,
    y: list[bool],
    query_hits: Sequence[bool] | None,
    keys: Sequence[str],
    outside: AbstractSet[str],
    seed: int,
    rule: str,
) -> Choice:
    """A model from a handful of examples ("more like these"): :func:`fitting.centroid`.

    The threshold is the score only the top :data:`BACKGROUND_SHARE` of the other
    labelled papers reach, so the topic takes the papers that look most like the
    examples and not a broad slice of everything; higher for examples that, held
    out, score far above it (:data:`HELD_OUT_SHARE`). With a query as well, ``rule``
    says how the topic decides: "either" for a topic made with ``--like`` and a
    query, "query" for a query topic taught a few papers: teaching a query that
    matched 614 of 83,510 real papers one paper it missed added 2,752 papers by
    "either", where the user meant that one paper.

    There is no precision to measure (the other papers are not labelled for this
    topic), but recall is: each example is held out in turn (alone, up to
    :data:`FOLDS` examples; in :func:`_folds`' folds beyond) and scored by a model
    made from the others.
    """
    examples = [i for i, label in enumerate(y) if label]
    # Papers said to be out stay out (they are pinned), and are never taken as like
    # the examples (the feedback step); they stay in the background the threshold
    # is a share of. Left out of it, the cut fell when a labelled paper was taught
    # out, and the topic took more papers like it: on the train split, its wrong
    # papers grew in 19 of 42 teaches out; kept, in none (bench/like_teach.py).
    background = [i for i, label in enumerate(y) if not label]
    judged = frozenset(i for i in background if keys[i] in outside)
    model = _centroid(matrix, examples, background, judged)
    ratios: list[float] = []  # each held-out example's score over its model's threshold
    if len(examples) >= 2:
        # (Up to FOLDS examples, their folds are not read.)
        fold = _folds([keys[i] for i in examples], FOLDS, seed) if len(examples) > FOLDS else []
        if len(set(fold)) < 2:
            # Each on its own: by id, two or three examples share one fold half the
            # time, nothing was held out, and the threshold was never raised (two
            # unlearning papers took 3,641 of 83,510 papers, 1,338 held out in turn).
            fold = list(range(len(examples)))
        for part in sorted(set(fold)):
            rest = [e for e, f in zip(examples, fold, strict=True) if f != part]
            held = [e for e, f in zip(examples, fold, strict=True) if f == part]
            if not rest:
                continue
            trial = _centroid(matrix, rest, background, judged)
            ratios += [trial.score(matrix.doc(e)) / trial.threshold for e in held]
    found, tried = sum(r >= 1.0 for r in ratios), len(ratios)
    if ratios:
        tight = HELD_OUT_SHARE * statistics.median(ratios)
        model.threshold = round(model.threshold * max(1.0, tight), 4)
    n = len(examples)
    if n == 0:
        # Only papers taught out: there is nothing for a model to be made from.
        note = "no example in the topic yet, only papers taught out of it"
    elif n == 1:
        note = "1 example in the topic: made from its words"
    else:
        note = f"{n} examples in the topic: made from what they share"
    if tried:
        note += f"; held out in turn, {found} of {tried} reach the threshold"
    model.meta["cv"] = None
    model.meta["note"] = note
    model.meta["held_out_recall"] = round(found / tried, 4) if tried else None
    return Choice(model, rule if query_hits is not None else "model")


def _centroid(
    matrix: Matrix,
    examples: list[int],
    background: list[int],
    judged: AbstractSet[int] = frozenset(),
) -> learn.TopicModel:
    """:func:`fitting.centroid` with its threshold at :data:`BACKGROUND_SHARE` of
    ``background``; the rows ``judged`` out of the topic are never fed back as near it."""
    from papertrack import fitting

    model = fitting.centroid(matrix, examples, background)
    if len(examples) < FEEDBACK_UNTIL and background:
        points = fitting.points(model, matrix, background)
        # The highest-scoring background papers, ties to the earlier row.
        ranked = sorted(
            (i for i in range(len(background)) if background[i] not in judged),
            key=lambda i: (-points[i], i),
        )
        nearest = [background[i] for i in ranked[:FEEDBACK_PAPERS] if points[i] > 0]
        model = fitting.centroid(
            matrix, examples, background, nearest=nearest, nearest_weight=FEEDBACK_WEIGHT
        )
    scores = sorted(p / learn.SCALE for p in fitting.points(model, matrix, background))
    if scores:
        cut = scores[min(len(scores) - 1, int(len(scores) * (1 - BACKGROUND_SHARE)))]
    else:
        cut = 0.0
    # A paper that shares nothing with the examples scores 0: it never qualifies.
    smallest = min((w for w in model.weights.values() if w > 0), default=1.0)
    model.threshold = round(max(cut, smallest), 4)
    return model


def _candidate_cuts(cuts: list[float]) -> list[float]:
    """Thresholds halfway between neighbouring distinct scores (at most ~400 of them)."""
    if len(cuts) > 400:
        step = len(cuts) / 400
        cuts = [cuts[int(i * step)] for i in range(400)]
    middles = [(a + b) / 2 for a, b in zip(cuts, cuts[1:], strict=False)]
    return [cuts[0] + 1.0, *middles, cuts[-1] - 1.0]


def examples_for(
    slug: str,
    labelled: Sequence[Labelled],
    taught: Mapping[str, bool] | None = None,
    extra: Mapping[str, Labelled] | None = None,
) -> tuple[list[Labelled], list[bool]]:
    """The train-split papers with their label for ``slug``, the user's examples winning
    (``slug`` "": none has one, each is out unless taught in).

    ``taught`` maps ids to the user's label (True: in the topic); ``extra`` gives the
    text of taught papers that are not in the labelled set (read from the store).
    """
    taught = dict(taught or {})
    papers: list[Labelled] = []
    labels: list[bool] = []
    for paper in labelled:
        if paper.split != TRAIN:
            continue
        papers.append(paper)
        labels.append(taught.pop(paper.arxiv_id, bool(slug) and slug in paper.labels))
    for arxiv_id, label in sorted(taught.items()):
        if extra is not None and arxiv_id in extra:
            papers.append(extra[arxiv_id])
            labels.append(label)
    return papers, labels


@dataclass(frozen=True)
class TrainSet:
    """The labelled train papers and their features as a matrix: row i is papers[i]."""

    papers: list[Labelled]
    matrix: Matrix


#: Train sets this process made or read, by (vocabulary key, paper ids): with the
#: bytes of their vectors file, for the next store that needs one.
_TRAIN_SETS: dict[tuple[str, tuple[str, ...]], tuple[TrainSet, bytes]] = {}


def train_set(labelled: Sequence[Labelled], folder: Path | None = None) -> TrainSet:
    """The train split of ``labelled`` with its features, kept in ``folder`` between runs.

    Making the features of the 12,850 labelled train papers from their text, and
    the vocabulary of all of them (:func:`train_matrix`), takes about 5 s;
    ``folder`` (a store's ``vectors``, see :mod:`papertrack.vectors`) keeps them,
    with the vocabulary a retag from kept vectors needs, and reading them back
    takes about 0.5 s.
    Without a folder nothing is kept on disk (this process keeps them in memory).
    """
    from papertrack import fitting, paths, vectors

    papers = [p for p in labelled if p.split == TRAIN]
    ids = [p.arxiv_id for p in papers]
    key = vectors.vocabulary_key(paths.labels_file(), paths.default_topics_file())
    path = folder / vectors.LABELLED if folder is not None else None
    known = _TRAIN_SETS.get((key, tuple(ids)))
    if known is not None:
        if path is not None and not path.is_file():
            with contextlib.suppress(OSError):  # a full disk: the next refit writes it
                vectors.write_file(path, known[1])
        return known[0]
    found = vectors.read_labelled(path, key) if path is not None else None
    if path is not None and found is not None and found[1] == ids:
        vocabulary, _, lengths, deltas = found
        train = TrainSet(papers, fitting.Matrix.from_deltas(lengths, deltas, vocabulary.names))
        with contextlib.suppress(OSError):
            _TRAIN_SETS[key, tuple(ids)] = (train, path.read_bytes())
        return train
    matrix, table = train_matrix(papers)
    vectors.keep_table(key, table)
    data = vectors.labelled_file(vectors.Vocabulary(key, list(matrix.names)), ids, *matrix.deltas())
    train = TrainSet(papers, matrix)
    _TRAIN_SETS[key, tuple(ids)] = (train, data)
    if path is not None:
        with contextlib.suppress(OSError):
            vectors.write_file(path, data)
    return train


def examples_matrix(train: TrainSet, papers: Sequence[Labelled]) -> Matrix:
    """The features of ``papers`` as :func:`examples_for` gives them (the train papers
    in order, then taught papers from the store), as a matrix."""
    return train.matrix.with_rows(paper_features(papers[len(train.papers) :]))


# --------------------------------------------------------------------------- teaching


def load_examples(path: Path) -> dict[str, dict[str, bool]]:
    """The user's examples: slug -> {paper id: in the topic?} ({} without a file).

    Raises:
        PapertrackError: the file is damaged (it names it and how to start afresh).
    """
    try:
        data = json.loads(path.read_bytes())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise PapertrackError(
            f"{path} is damaged ({exc}). Fix it, or remove it and forget what each topic "
            "was taught with 'papertrack topics teach TOPIC --forget'"
        ) from None
    topics = data.get("topics") if isinstance(data, dict) else None
    if not isinstance(topics, dict):
        raise PapertrackError(f"{path} is damaged (no topics). Fix it, or remove it")
    found: dict[str, dict[str, bool]] = {}
    for slug, examples in topics.items():
        if not isinstance(examples, dict):
            continue
        for pid, inside in examples.items():
            if not isinstance(inside, bool):
                # "yes", or "false" (read as in: a non-empty string is true), by hand.
                raise PapertrackError(
                    f"{path} is damaged ({slug}: {pid} is {json.dumps(inside)}, not true or "
                    "false). Write true (in the topic) or false (out of it), or remove it"
                )
        found[str(slug)] = {str(pid): inside for pid, inside in examples.items()}
    return found


def save_examples(path: Path, examples: Mapping[str, Mapping[str, bool]]) -> None:
    from papertrack.files import write_json

    data = {"topics": {slug: dict(sorted(ex.items())) for slug, ex in sorted(examples.items())}}
    write_json(path, data)


def teach(
    topic: Any,
    taught: Mapping[str, bool],
    texts: Mapping[str, Labelled],
    labelled: Sequence[Labelled],
    *,
    like: bool = False,
    folder: Path | None = None,
    rule: str = "",
) -> Choice:
    """Refit ``topic``'s model from the shipped labels plus the user's examples.

    ``taught`` maps paper ids to the user's label; ``texts`` gives the text of taught
    papers (from the store). A topic the labels do not know (the user's own) learns
    from the user's positives against the labelled papers as background, which is
    unlabelled for it: made from what the examples share until it has
    :data:`LIKE_UNTIL` of them, then fitted against that background; taught
    negatives say which papers are out. ``like``: the topic was made with
    ``topics add --like`` ("more like these"), so with a query as well the
    examples' model widens it while it is made from few; otherwise a query
    topic goes on deciding by its query, its taught papers held as taught.
    ``folder`` keeps the labelled papers' features between refits (:func:`train_set`).
    ``rule``: how a topic made from few examples and a query decides ("both": a paper
    must match the query too; default "either" with ``like``, else "query").
    """
    from papertrack.topics import as_bundled

    # The labels were read against the bundled definition: a default you redefined
    # with your own query or categories is your topic, taught from your examples
    # alone (with the shipped model's labels it went back to the default's tags).
    known = as_bundled(topic) and any(topic.slug in p.labels for p in labelled if p.split == TRAIN)
    papers, labels = examples_for(topic.slug if known else "", labelled, taught, texts)
    matrix = examples_matrix(train_set(labelled, folder), papers)
    hits = feature_hits(topic, papers, matrix) if topic.query.strip() else None
    keys = [p.arxiv_id for p in papers]
    choice = choose(
        matrix,
        labels,
        hits,
        keys=keys,
        outside={pid for pid, label in taught.items() if not label},
        like_until=MIN_CV_POSITIVES if known else LIKE_UNTIL,
        few_rule=rule or ("either" if like else "query"),
        # A default topic keeps its shipped threshold where the refit does as well
        # with it: a teach moves the papers it names, not a slice of others.
        prefer_cut=_shipped_threshold(topic.slug) if known else None,
    )
    positives = sum(labels)
    choice.model.meta.update(
        {
            "topic": topic.slug,
            # What it was taught to: a query edited by hand is said not to decide.
            "definition": topic.definition,
            "decide": choice.decide,
            "rules": choice.rules,
            "examples": {"positives": positives, "negatives": len(labels) - positives},
            "taught": {"in": sum(taught.values()), "out": sum(not v for v in taught.values())},
            "pinned": dict(sorted(taught.items())),
            "like": like,
            "fitted_on": "the labelled papers shipped with papertrack and your examples",
            "seed": SEED,
            "fit": FIT_ARGS,
        }
    )
    return choice


def model_threshold(topic: Any) -> float | None:
    """The threshold of ``topic``'s model (None: no model, or one that cannot be read)."""
    if topic is None or not topic.model_file:
        return None
    try:
        return float(topic.model.threshold)
    except (OSError, ValueError, PapertrackError):
        return None


def _shipped_threshold(slug: str) -> float | None:
    """The threshold of the model papertrack ships for the default topic ``slug``."""
    from papertrack.topics import Catalog

    return model_threshold(Catalog.default().by_slug(slug))


def from_paper(paper: Any) -> Labelled:
    """A stored paper as a labelled example's text (its labels come from the user)."""
    return Labelled(
        arxiv_id=paper.arxiv_id,
        title=paper.title,
        abstract=paper.abstract,
        categories=tuple(paper.categories),
        labels=frozenset(),
        split=TRAIN,
    )


def cv_summary(model: Any, rule: str) -> dict[str, Any] | None:
    """How the topic's rule did on its examples, out of fold: precision, recall, F1, counts."""
    if model is None:
        return None
    rules = model.meta.get("rules") or {}
    figures = rules.get(rule) or model.meta.get("cv")
    if not figures:
        return None
    examples = model.meta.get("examples") or {}
    return {
        "rule": rule,
        "precision": figures.get("precision"),
        "recall": figures.get("recall"),
        "f1": figures.get("f1"),
        "positives": examples.get("positives"),
        "negatives": examples.get("negatives"),
        "taught": model.meta.get("taught"),
    }


# --------------------------------------------------------------------------- defaults


def query_hits(topic: Any, papers: Sequence[Labelled]) -> list[bool]:
    """Which papers ``topic``'s query (with its category filter) matches, their TeX
    read as it renders, as tagging reads it (a taught paper titled
    ``$\\textbf{A}$gent`` has the word "agent")."""
    return [topic.matches_fields(p.title, p.abstract, (), p.categories) for p in papers]


def feature_hits(topic: Any, papers: Sequence[Labelled], matrix: Matrix) -> list[bool]:
    """:func:`query_hits`, read from ``matrix`` (the features of ``papers``, a row each)
    where it holds them: the matches of a bundled topic's query as bundled are every
    paper's feature ``"q:" + slug``, so they need not be matched again (0.3 s for
    the labelled papers). A topic whose query or categories differ from the bundled
    ones (your own, or a default you replaced) is matched on the text."""
    from papertrack.topics import as_bundled

    if not as_bundled(topic):
        return query_hits(topic, papers)
    held: list[bool] = matrix.holding("q:" + topic.slug).tolist()
    return held


def paper_features(papers: Sequence[Labelled]) -> list[frozenset[Any]]:
    """Each paper's model features, as :meth:`papertrack.topics.Catalog.tag` computes them."""
    from papertrack.topics import model_features

    return [model_features(p.title, p.abstract, (), p.categories) for p in papers]


def train_matrix(papers: Sequence[Labelled]) -> tuple[Matrix, learn.FeatureIds]:
    """The matrix of ``papers``' :func:`paper_features`, columns every feature any of
    them has, in name order (:meth:`papertrack.fitting.Matrix.from_sets` of them),
    and the :class:`papertrack.learn.FeatureIds` of those names.

    Made by :func:`papertrack.learn.vocabulary_of` without each paper's feature
    names. From :data:`SPREAD_AT` papers up, forked workers read slices of the
    papers' text into words (:func:`papertrack.learn.word_runs`) and this process
    puts them together: for the 12,850 labelled train papers, 4.6-5.2 s on 2 cores
    (5.2-5.8 s with the words read here; making and numbering every feature's name
    took 6.5-8 s over 2 cores).
    """
    import numpy as np

    from papertrack import fitting
    from papertrack.learn import row_bounds, vocabulary_of

    step = -(-len(papers) // 8) if len(papers) >= SPREAD_AT else max(len(papers), 1)
    parts = [papers[i : i + step] for i in range(0, len(papers), step)]
    names, rows, ids, table = vocabulary_of(forked_map(_word_runs, None, parts))
    indptr = row_bounds(rows, len(papers))
    return fitting.Matrix.from_arrays(indptr, ids.astype(np.int32), names), table


def _word_runs(_: None, papers: Sequence[Labelled]) -> Any:
    from papertrack.learn import word_runs
    from papertrack.topics import model_words

    return word_runs(model_words(p.title, p.abstract, (), p.categories) for p in papers)


def fit_default(topic: Any, labelled: Sequence[Labelled], train: TrainSet | None = None) -> Choice:
    """The model of a default topic, from the train split alone, with its rule chosen."""
    papers, labels = examples_for(topic.slug, labelled)
    matrix = (train or train_set(labelled)).matrix
    choice = choose(
        matrix,
        labels,
        feature_hits(topic, papers, matrix) if topic.query.strip() else None,
        keys=[p.arxiv_id for p in papers],
    )
    choice.model.meta.update(
        {
            "topic": topic.slug,
            "decide": choice.decide,
            "rules": choice.rules,
            "examples": {"positives": sum(labels), "negatives": len(labels) - sum(labels)},
            "fitted_on": "data/labels/corpus.jsonl.gz, train split",
            "seed": SEED,
            "fit": FIT_ARGS,
        }
    )
    return choice


def save_model(model: learn.TopicModel, path: Path) -> None:
    from papertrack.files import write_atomic

    text = json.dumps(model.to_json(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    write_atomic(path, (text + "\n").encode("utf-8"))


def evaluate(
    catalog: Any, labelled: Sequence[Labelled], split: str = "test"
) -> list[dict[str, Any]]:
    """Precision, recall and F1 of every topic of ``catalog`` on one split of the labels."""
    papers = [p for p in labelled if p.split == split]
    tagged = [set(catalog.tag_fields(p.title, p.abstract, (), p.categories)) for p in papers]
    rows = []
    for topic in catalog.topics:
        truth = [topic.slug in p.labels for p in papers]
        guess = [topic.slug in t for t in tagged]
        positives, taken = sum(truth), sum(guess)
        correct = sum(map(bool.__and__, guess, truth))
        counts = (correct, taken - correct, positives - correct)
        precision, recall, f1 = learn.prf_counts(*counts)
        low, high = f1_interval(*counts, len(papers))
        rows.append(
            {
                "topic": topic.slug,
                "decide": topic.decide,
                "labelled": positives,
                "tagged": taken,
                "correct": correct,
                "precision": round(precision, 2),
                "recall": round(recall, 2),
                "f1": round(f1, 2),
                "f1_low": round(low, 2),
                "f1_high": round(high, 2),
            }
        )
    return rows


#: Resamples behind :func:`f1_interval`.
BOOTSTRAP_DRAWS = 2000


def f1_interval(tp: int, fp: int, fn: int, papers: int) -> tuple[float, float]:
    """A 95% interval for F1 on a split of ``papers`` papers with these counts.

    A bootstrap over papers (seeded, :data:`BOOTSTRAP_DRAWS` draws): each draw
    takes ``papers`` papers with replacement, which is one multinomial draw of how
    many are true positives, false positives, false negatives and the rest. It
    says how far a figure could move on another sample drawn the same way: with
    ten positives, one paper is 0.05 to 0.1 of F1.
    """
    import numpy as np

    if papers <= 0:
        return 0.0, 0.0
    shares = np.asarray([tp, fp, fn, papers - tp - fp - fn], dtype=np.float64) / papers
    draws = np.random.default_rng(SEED).multinomial(papers, shares, size=BOOTSTRAP_DRAWS)
    hits, wrong = 2 * draws[:, 0], draws[:, 1] + draws[:, 2]
    f1 = np.divide(hits, hits + wrong, out=np.zeros(len(draws)), where=hits > 0)
    low, high = np.percentile(f1, [2.5, 97.5])
    return float(low), float(high)


#: The figures of record, beside the shipped models: `topics show` says them.
FIGURES = "test-split.json"


def figures_file() -> Path:
    from papertrack import paths

    return paths.data_dir() / "models" / FIGURES


def write_figures(rows: Sequence[Mapping[str, Any]], papers: int) -> None:
    """Keep :func:`evaluate`'s test-split rows beside the models they measure."""
    data = {"split": "test", "papers": papers, "topics": {row["topic"]: dict(row) for row in rows}}
    figures_file().write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def shipped_figures(slug: str) -> dict[str, Any] | None:
    """The test-split figures of the shipped catalog's ``slug`` (None: none recorded),
    with ``papers``, how many labelled papers the split holds."""
    try:
        data = json.loads(figures_file().read_text(encoding="utf-8"))
        row = data["topics"].get(slug)
        return None if row is None else {**row, "papers": int(data["papers"])}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def table(rows: Sequence[Mapping[str, Any]]) -> str:
    """``rows`` of :func:`evaluate` as a Markdown table."""
    lines = [
        "| topic | decides by | labelled | tagged | correct | precision | recall | F1 "
        "| F1, 95% interval |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['topic']} | {r['decide']} | {r['labelled']} | {r['tagged']} | {r['correct']} "
            f"| {r['precision']:.2f} | {r['recall']:.2f} | {r['f1']:.2f} "
            f"| {r['f1_low']:.2f}-{r['f1_high']:.2f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    """Refit the default models (``--fit``) and print the test-split table.

    python -m papertrack.training --fit     # rewrite data/models/*.json (seeded)
    python -m papertrack.training           # the precision/recall table, test split
    """
    import argparse

    from papertrack import paths
    from papertrack.topics import Catalog

    parser = argparse.ArgumentParser(prog="python -m papertrack.training")
    parser.add_argument("--fit", action="store_true", help="refit and rewrite the default models")
    parser.add_argument("--split", default="test", help="the split to report on (default: test)")
    parser.add_argument(
        "--record",
        action="store_true",
        help=f"write the test-split figures to data/models/{FIGURES} (--fit does too)",
    )
    args = parser.parse_args(argv)
    labelled = load_labelled(paths.labels_file())
    catalog = Catalog.default()
    if args.fit:
        folder = paths.data_dir() / "models"
        train = train_set(labelled)
        for topic in catalog.topics:
            choice = fit_default(topic, labelled, train)
            save_model(choice.model, folder / f"{topic.slug}.json")
            rules = ", ".join(f"{r} {v['f1']:.2f}" for r, v in choice.rules.items())
            print(f"{topic.slug}: decides by {choice.decide} (out-of-fold F1: {rules})", flush=True)
        catalog = Catalog.default()
    rows = evaluate(catalog, labelled, args.split)
    if (args.fit or args.record) and args.split == "test":
        write_figures(rows, sum(p.split == "test" for p in labelled))
    print(table(rows))


if __name__ == "__main__":
    main()
