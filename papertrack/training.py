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

import gzip
import json
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from papertrack import learn
from papertrack.errors import PapertrackError
from papertrack.topics import DECISIONS

#: The split of the labelled papers that fitting and every choice may use.
TRAIN = "train"
#: Fitting settings of every model, chosen by 5-fold cross-validation on the train
#: split (llm-agent-training, ai-agent-benchmarks, long-horizon-agent-tasks; l2 1 or
#: 3, 8 or 30 features per positive, 1,000 or 4,000 features at most): out-of-fold
#: F1 moved by up to 0.05 between them, best here.
FIT_ARGS: dict[str, Any] = {"l2": 3.0, "features_per_positive": 30.0, "max_features": 4000}
SEED = 20261201
#: Below this many examples in the topic, no cross-validation: see _few_examples.
MIN_CV_POSITIVES = 8
#: Share of the other labelled papers a topic made from a few examples may take.
BACKGROUND_SHARE = 0.01
FOLDS = 5
#: Folds when a user teaches a topic: the default models' 5 folds over ~10,000
#: labelled papers take 10-14 s to refit one topic in pure Python; 3 folds take
#: about 60% of that, and their figures differ from 5 folds' by a few hundredths.
TEACH_FOLDS = 3


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
    try:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            rows = [json.loads(line) for line in handle if line.strip()]
    except (OSError, ValueError, EOFError) as exc:
        raise PapertrackError(
            f"could not read the labelled papers {path} ({exc}). Reinstall papertrack"
        ) from None
    return [
        Labelled(
            arxiv_id=row["arxiv_id"],
            title=row["title"],
            abstract=row["abstract"],
            categories=tuple(row.get("categories", "").split()),
            labels=frozenset(row.get("labels", ())),
            split=row.get("split", TRAIN),
            date=row.get("date", ""),
        )
        for row in rows
    ]


@dataclass
class Choice:
    """A fitted model and the decision rule that measured best, with every rule's figures."""

    model: learn.TopicModel
    decide: str
    #: rule -> {"precision", "recall", "f1"} out of fold, on the examples.
    rules: dict[str, dict[str, float]] = field(default_factory=dict)


def _folds(labels: Sequence[bool], k: int, seed: int) -> list[int]:
    positives = [i for i, y in enumerate(labels) if y]
    negatives = [i for i, y in enumerate(labels) if not y]
    rng = random.Random(seed)
    rng.shuffle(positives)
    rng.shuffle(negatives)
    fold = [0] * len(labels)
    for group in (positives, negatives):
        for position, i in enumerate(group):
            fold[i] = position % k
    return fold


def choose(
    docs: Sequence[frozenset[Any]],
    labels: Sequence[bool],
    query_hits: Sequence[bool] | None,
    *,
    rules: Iterable[str] = DECISIONS,
    seed: int = SEED,
    folds: int = FOLDS,
) -> Choice:
    """Fit a model and choose the rule (of ``rules``) with the best out-of-fold F1.

    ``query_hits`` says which examples the topic's query matches (None: the topic
    has no query, so only "model" is possible). Every example gets a score from a
    model fitted on the other folds; for each rule the threshold that maximises F1
    of the rule's out-of-fold decisions is found, and that threshold is the final
    model's. Ties go to the rule listed first.
    """
    y = [bool(v) for v in labels]
    allowed = [r for r in rules if query_hits is not None or r == "model"]
    if sum(y) < MIN_CV_POSITIVES or all(y):
        return _few_examples(docs, y, query_hits, seed)
    k = min(folds, sum(y))
    fold = _folds(y, k, seed)
    scores = [0.0] * len(y)
    # Document counts of all examples, once; each fold's are these less its own.
    counts = learn.document_counts(docs, y)
    for f in range(k):
        train = [i for i in range(len(y)) if fold[i] != f]
        held_out = [i for i in range(len(y)) if fold[i] == f]
        minus = learn.document_counts([docs[i] for i in held_out], [y[i] for i in held_out])
        fitted = learn.fit(
            [docs[i] for i in train],
            [y[i] for i in train],
            seed=seed,
            counts=learn.subtract_counts(counts, minus),
            **FIT_ARGS,
        )
        for i in held_out:
            scores[i] = fitted.score(docs[i])
    cuts = _candidate_cuts(sorted(set(scores), reverse=True))
    results = {rule: _best_cut(rule, cuts, scores, y, query_hits) for rule in allowed}
    decide = max(allowed, key=lambda r: (results[r][0], -allowed.index(r)))
    model = learn.fit(docs, y, seed=seed, counts=counts, **FIT_ARGS)
    model.threshold = round(results[decide][1], 4)
    model.meta["cv"] = dict(results["model"][2]) if "model" in results else None
    return Choice(model, decide, {rule: result[2] for rule, result in results.items()})


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
) -> tuple[float, float, dict[str, float]]:
    """(F1, threshold, figures) of ``rule`` at its best threshold of ``cuts`` (descending).

    One sweep down the examples sorted by score: lowering the threshold past an
    example turns its model decision on, which changes the rule's decision only
    for "model", for "either" without a query hit and for "both" with one. The
    first of equally good thresholds wins, the highest.
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
    best: tuple[float, float, dict[str, float]] | None = None
    for cut in cuts:
        while at < len(order) and scores[order[at]] >= cut:
            i = order[at]
            if moves[i]:
                tagged += 1
                tp += y[i]
            at += 1
        rated = _counts_rate(tp, tagged, positives)
        if best is None or rated["f1"] > best[0]:
            best = (rated["f1"], cut, rated)
    assert best is not None
    return best


def _few_examples(
    docs: Sequence[frozenset[Any]], y: list[bool], query_hits: Sequence[bool] | None, seed: int
) -> Choice:
    """A model from a handful of examples ("more like these"), too few to cross-validate.

    The threshold sits between the lowest-scoring example and the score only the top
    :data:`BACKGROUND_SHARE` of the other labelled papers reach, so the topic takes
    papers that look like the examples and not a broad slice of everything. With a
    query as well, either of the two decides.
    """
    model = learn.fit(docs, y, seed=seed, **FIT_ARGS)
    positives = sorted(model.score(d) for d, label in zip(docs, y, strict=True) if label)
    negatives = sorted(model.score(d) for d, label in zip(docs, y, strict=True) if not label)
    if negatives:
        background = negatives[
            min(len(negatives) - 1, int(len(negatives) * (1 - BACKGROUND_SHARE)))
        ]
    else:
        background = (positives[0] - 1.0) if positives else 0.0
    lowest = positives[0] if positives else background + 1.0
    model.threshold = round((lowest + background) / 2 if lowest > background else background, 4)
    model.meta["cv"] = None
    model.meta["note"] = f"{sum(y)} examples in the topic: too few to cross-validate"
    return Choice(model, "either" if query_hits is not None else "model")


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
    """The train-split papers with their label for ``slug``, the user's examples winning.

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
        labels.append(taught.pop(paper.arxiv_id, slug in paper.labels))
    for arxiv_id, label in sorted(taught.items()):
        if extra is not None and arxiv_id in extra:
            papers.append(extra[arxiv_id])
            labels.append(label)
    return papers, labels


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
            f"{path} is damaged ({exc}). Fix it, or remove it to forget taught examples"
        ) from None
    topics = data.get("topics") if isinstance(data, dict) else None
    if not isinstance(topics, dict):
        raise PapertrackError(f"{path} is damaged (no topics). Fix it, or remove it")
    return {
        str(slug): {str(k): bool(v) for k, v in examples.items()}
        for slug, examples in topics.items()
        if isinstance(examples, dict)
    }


def save_examples(path: Path, examples: Mapping[str, Mapping[str, bool]]) -> None:
    from papertrack.files import write_json

    data = {"topics": {slug: dict(sorted(ex.items())) for slug, ex in sorted(examples.items())}}
    write_json(path, data)


def teach(
    topic: Any,
    taught: Mapping[str, bool],
    texts: Mapping[str, Labelled],
    labelled: Sequence[Labelled],
) -> Choice:
    """Refit ``topic``'s model from the shipped labels plus the user's examples.

    ``taught`` maps paper ids to the user's label; ``texts`` gives the text of taught
    papers (from the store). A topic the labels do not know (the user's own) learns
    from the user's positives against the labelled papers as background: nearly all
    of them are out of any narrow topic, and taught negatives say which are not.
    """
    papers, labels = examples_for(topic.slug, labelled, taught, texts)
    has_query = bool(topic.query.strip())
    hits = query_hits(topic, papers) if has_query else None
    choice = choose(paper_features(papers), labels, hits, folds=TEACH_FOLDS)
    positives = sum(labels)
    choice.model.meta.update(
        {
            "topic": topic.slug,
            "decide": choice.decide,
            "rules": choice.rules,
            "examples": {"positives": positives, "negatives": len(labels) - positives},
            "taught": {"in": sum(taught.values()), "out": sum(not v for v in taught.values())},
            "pinned": dict(sorted(taught.items())),
            "fitted_on": "the labelled papers shipped with papertrack and your examples",
            "seed": SEED,
            "fit": FIT_ARGS,
        }
    )
    return choice


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
    """Which papers ``topic``'s query (with its category filter) matches."""
    return [topic.matches_fields(p.title, p.abstract, (), p.categories) for p in papers]


def paper_features(papers: Sequence[Labelled]) -> list[frozenset[Any]]:
    """Each paper's model features, as :meth:`papertrack.topics.Catalog.tag` computes them."""
    from papertrack.topics import model_features

    return [model_features(p.title, p.abstract, (), p.categories) for p in papers]


def fit_default(topic: Any, labelled: Sequence[Labelled]) -> Choice:
    """The model of a default topic, from the train split alone, with its rule chosen."""
    papers, labels = examples_for(topic.slug, labelled)
    has_query = bool(topic.query.strip())
    choice = choose(
        paper_features(papers), labels, query_hits(topic, papers) if has_query else None
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
        precision, recall, f1 = learn.prf(guess, truth)
        rows.append(
            {
                "topic": topic.slug,
                "decide": topic.decide,
                "labelled": sum(truth),
                "tagged": sum(guess),
                "correct": sum(g and t for g, t in zip(guess, truth, strict=True)),
                "precision": round(precision, 2),
                "recall": round(recall, 2),
                "f1": round(f1, 2),
            }
        )
    return rows


def table(rows: Sequence[Mapping[str, Any]]) -> str:
    """``rows`` of :func:`evaluate` as a Markdown table."""
    lines = [
        "| topic | decides by | labelled | tagged | correct | precision | recall | F1 |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['topic']} | {r['decide']} | {r['labelled']} | {r['tagged']} | {r['correct']} "
            f"| {r['precision']:.2f} | {r['recall']:.2f} | {r['f1']:.2f} |"
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
    args = parser.parse_args(argv)
    labelled = load_labelled(paths.labels_file())
    catalog = Catalog.default()
    if args.fit:
        folder = paths.data_dir() / "models"
        for topic in catalog.topics:
            choice = fit_default(topic, labelled)
            save_model(choice.model, folder / f"{topic.slug}.json")
            rules = ", ".join(f"{r} {v['f1']:.2f}" for r, v in choice.rules.items())
            print(f"{topic.slug}: decides by {choice.decide} (out-of-fold F1: {rules})", flush=True)
        catalog = Catalog.default()
    print(table(evaluate(catalog, labelled, args.split)))


if __name__ == "__main__":
    main()
