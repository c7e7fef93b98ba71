"""Seeing what a topic definition does: try it on the store, explain a match.

* :func:`try_topic` runs a definition (a saved topic, or a query not saved yet)
  over every stored paper: how many match, their share of the store, matches per
  ISO week, and a reproducible sample of hits. It streams the store one week file
  at a time.
* :func:`explain` tells, for one paper, which terms of which topics it contains
  and in which field, and for one topic which of its conditions failed.

Pure over a :class:`~papertrack.store.Store` and a :class:`~papertrack.topics.Catalog`:
nothing here prints or reads the clock (``as_of`` is a parameter).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import date, timedelta
from functools import lru_cache
from typing import Any, Literal

from papertrack.errors import PapertrackError
from papertrack.matching import Matcher, PaperText, compile_query
from papertrack.models import Paper, Progress
from papertrack.momentum import (
    DEFAULT_WINDOW,
    WeekBucket,
    count_days,
    day_counts,
    measure,
    papers_through,
)
from papertrack.query import And, Category, Node, Not, Or, Term, query_terms
from papertrack.store import ALL, Store
from papertrack.text import shorten
from papertrack.topics import Catalog, Topic, decided

__all__ = [
    "Condition",
    "TermHit",
    "TopicExplanation",
    "Trial",
    "explain",
    "explain_topic",
    "recent_count",
    "try_topic",
]

#: Days in the "last 4 weeks" window (the momentum window): papers dated in
#: (as_of − 28 days, as_of].
RECENT_DAYS = 7 * DEFAULT_WINDOW


def recent_count(store: Store, slug: str | None, as_of: date, days: int = RECENT_DAYS) -> int:
    """Papers of topic ``slug`` (every paper when None) dated in the ``days`` days ending ``as_of``.

    Read from the index's daily counts, as ``momentum``'s current window is.
    """
    counts = store.index().days.get(slug or ALL, {})
    return count_days(counts, as_of - timedelta(days=days - 1), as_of)


# --------------------------------------------------------------------------- try


@dataclass(frozen=True)
class Trial:
    """What a definition matches in the store. ``saved`` is false for an ad-hoc query."""

    topic: Topic
    saved: bool
    as_of: date
    matches: int
    total: int
    #: Matches in the :data:`RECENT_DAYS` to :attr:`as_of`; None when the store holds
    #: no paper of those days ("no data", as ``topics list`` and momentum say).
    recent: int | None
    #: As momentum counts them: "no data" (count None), zero so far, the week so far.
    weeks: tuple[WeekBucket, ...]
    sample: tuple[Paper, ...]
    seed: int
    #: Matches, total and sample counted only papers dated up to :attr:`as_of`
    #: (``topics test --as-of``, as ``topics list`` counts).
    dated_to_as_of: bool = False

    @property
    def share(self) -> float | None:
        """Matches as a fraction of every stored paper; None for an empty store."""
        return self.matches / self.total if self.total else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "topic": self.topic.slug if self.saved else None,
            "name": self.topic.name if self.saved else None,
            "query": self.topic.query,
            "categories": list(self.topic.categories),
            "as_of": self.as_of.isoformat(),
            "dated_to_as_of": self.dated_to_as_of,
            "matches": self.matches,
            "total": self.total,
            "share": self.share,
            "recent_days": RECENT_DAYS,
            "recent": self.recent,
            "weeks": [w.to_dict() for w in self.weeks],
            "seed": self.seed,
            "sample": [p.to_dict() for p in self.sample],
        }


def query_papers(
    store: Store, topic: Topic, progress: Progress | None = None
) -> Iterator[tuple[str, Paper]]:
    """(week, paper) of every stored paper ``topic``'s query and categories match, as
    an unsaved topic matches them; the full-text index narrows the weeks read."""
    within = store.candidates(topic.membership) if topic.narrowable else None
    return store.search(topic.matches_fields, within, progress=progress)


def try_topic(
    store: Store,
    topic: Topic,
    *,
    as_of: date,
    saved: bool = True,
    weeks: int = 12,
    sample: int = 5,
    seed: int = 0,
    progress: Progress | None = None,
    keep: Callable[[Paper], bool] | None = None,
    until_as_of: bool = False,
) -> Trial:
    """Match ``topic`` against every stored paper, without saving or tagging anything.

    A ``saved`` topic (one of the catalog's, its tags brought up to date) holds the
    papers tagged with it, exactly as every other command counts them; a definition
    not saved is matched by its query.

    Week files are read one at a time, newest first; only papers that match are
    kept, and of those only ``sample`` (reservoir sampling with ``seed``, so the
    same store and seed give the same sample). The weekly series is the ``weeks``
    ISO weeks ending with ``as_of``'s week, counting papers dated up to ``as_of``.
    ``keep``, when given, narrows the matches further (a topic's papers in some
    categories). With ``until_as_of``, matches, total and sample are of the papers
    dated up to ``as_of`` alone (an --as-of given: it counted the whole store, and
    sampled papers after that day, where ``topics list`` counted to it).
    """
    rng = random.Random(seed)
    chosen: list[Paper] = []
    matches = 0
    per_day: dict[date, int] = {}
    if saved:
        # A saved topic's papers are those its tags are on (the caller brings them
        # up to date): its rule, model, implications and taught papers, as stored.
        found = store.search(None, progress=progress, topic=topic.slug)
    else:
        found = query_papers(store, topic, progress)
    for _week, paper in found:
        if keep is not None and not keep(paper):
            continue
        if until_as_of and (paper.paper_date is None or paper.paper_date.date() > as_of):
            continue
        matches += 1
        if paper.paper_date is not None:
            day = paper.paper_date.date()
            per_day[day] = per_day.get(day, 0) + 1
        # Reservoir sampling (Algorithm R): every match is kept with equal chance.
        if len(chosen) < sample:
            chosen.append(paper)
        else:
            slot = rng.randrange(matches)
            if slot < sample:
                chosen[slot] = paper
    all_days = store.index().days.get(ALL, {})
    # Its weeks and last 4 weeks as momentum counts them: no data, zero so far.
    measured = measure(
        day_counts(per_day), all_days, as_of=as_of, window=DEFAULT_WINDOW, weeks=weeks
    )
    recent = measured.current.count if measured.current.total else None
    chosen.sort(key=lambda p: (p.paper_date.isoformat() if p.paper_date else "", p.arxiv_id))
    return Trial(
        topic=topic,
        saved=saved,
        as_of=as_of,
        matches=matches,
        total=papers_through(all_days, as_of) if until_as_of else store.count(),
        recent=recent,
        weeks=measured.weeks,
        sample=tuple(reversed(chosen)),
        seed=seed,
        dated_to_as_of=until_as_of,
    )


# --------------------------------------------------------------------------- explain

Field = Literal["title", "abstract", "author", "category"]


@dataclass(frozen=True)
class TermHit:
    """A term of a query that the paper contains, and the fields it is in."""

    term: str
    fields: tuple[Field, ...]

    def __str__(self) -> str:
        return f"{self.term} ({', '.join(self.fields)})"

    def to_dict(self) -> dict[str, Any]:
        return {"term": self.term, "fields": list(self.fields)}


@dataclass(frozen=True)
class Condition:
    """One condition a paper must meet to belong to a topic.

    A topic's membership is its category filter (if any) AND each top-level
    AND-branch of its query. ``kind`` is ``categories`` for the filter,
    ``excludes`` for a ``NOT`` branch and ``requires`` for the others. ``hits``
    are the terms of the condition found in the paper: for ``excludes``, what
    triggered the exclusion.
    """

    kind: Literal["categories", "requires", "excludes"]
    text: str
    met: bool
    hits: tuple[TermHit, ...]
    #: For an unmet OR with AND-ed alternatives: what its closest alternative lacks.
    lacking: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "condition": self.text,
            "met": self.met,
            "found": [h.to_dict() for h in self.hits],
            "closest_alternative_lacks": list(self.lacking),
        }


@dataclass(frozen=True)
class ModelView:
    """What a topic's learned model says of a paper: its score against its threshold, and why."""

    score: float
    threshold: float
    #: (feature, weight): the features of the paper that raised the score most, and lowered it.
    up: tuple[tuple[str, float], ...]
    down: tuple[tuple[str, float], ...]
    #: Where every paper's score starts (the model's bias): shown, so the features add
    #: up to the score (+4.77 of features "pushed up" a paper to -1.79 unexplained).
    start: float = 0.0
    #: How many of the paper's features the model weighs, listed or not.
    weighed: int = 0

    @property
    def fired(self) -> bool:
        """Whether the score reaches the threshold, counted as the tagger counts it
        (:meth:`~papertrack.learn.TopicModel.decide`, in whole units of 1e-4): in
        floats, a threshold of 0.12344 against a score of 0.1234 said "does not
        fire" for a paper the store tagged."""
        from papertrack.learn import units

        return units(self.score) >= units(self.threshold)

    @property
    def places(self) -> int:
        """Decimal places that tell score and threshold apart (2 at least): "+0.59
        against threshold +0.59: it does not fire" was 0.5851 against 0.5880."""
        places = 2
        while places < 6 and round(self.score, places) == round(self.threshold, places):
            places += 1
        return places

    @property
    def listed(self) -> float:
        """What the features listed (``up`` and ``down``) add up to."""
        return sum(w for _, w in self.up) + sum(w for _, w in self.down)

    @property
    def rest(self) -> float:
        """What the features not listed add up to."""
        return self.score - self.start - self.listed

    def to_dict(self) -> dict[str, Any]:
        from papertrack.learn import describe

        # To the 4 places a model decides in (learn.DECIMALS): at 3, a start of
        # -6.2748 read as -6.275, and a script's sum of the parts missed the view's.
        def listed(items: tuple[tuple[str, float], ...]) -> list[dict[str, Any]]:
            return [{"feature": f, "about": describe(f), "weight": round(w, 4)} for f, w in items]

        return {
            "score": round(self.score, 4),
            "threshold": round(self.threshold, 4),
            "fired": self.fired,
            "start": round(self.start, 4),
            "up": listed(self.up),
            "down": listed(self.down),
            "rest": round(self.rest, 4) + 0.0,  # (-0.0 read as a sign of something)
            "weighed": self.weighed,
        }


@dataclass(frozen=True)
class TopicExplanation:
    """Whether a paper belongs to a topic, and why (or why not)."""

    slug: str
    name: str
    matched: bool
    hits: tuple[TermHit, ...]
    conditions: tuple[Condition, ...]
    categories: tuple[str, ...]
    #: How the topic decides ("query", "model", "either", "both").
    decide: str = "query"
    #: Whether the query alone matches.
    query_matched: bool = False
    model: ModelView | None = None
    #: The topics the paper is in that imply this one (so it is in it too), as
    #: (slug, name): slugs in JSON, as every JSON output names topics; names shown.
    implied_by: tuple[tuple[str, str], ...] = ()
    #: The user's decision for this paper (``topics teach``): True in, False out,
    #: None if not taught. It holds whatever the rule, model and query say.
    taught: bool | None = None
    #: Whether the model was fitted with this paper as an example (one you taught,
    #: or one of the labelled papers it learns from): its own words then weigh in
    #: its score, which says little of papers like it.
    fitted_on: bool = False
    #: The paper's label for this topic among the labelled papers papertrack ships
    #: (True in, False out); None: not one of them, or a topic they do not cover.
    labelled: bool | None = None

    @property
    def has_query(self) -> bool:
        """Whether the topic has a query: a topic made from examples alone has only
        its model (and maybe a category filter)."""
        return any(c.kind != "categories" for c in self.conditions)

    def reasons(self) -> list[str]:
        """Why the paper does not match, one sentence a failed condition."""
        if self.taught is not None:
            return [] if self.taught else ["you taught that it is not in the topic"]
        reasons = []
        if self.model is not None and not self.model.fired and self.decide != "query":
            places = self.model.places
            reasons.append(
                f"its model scores the paper {self.model.score:.{places}f}, below the "
                f"threshold {self.model.threshold:.{places}f}"
            )
        if self.decide in ("model", "either") and self.model is not None and self.model.fired:
            return []  # the model decides, and it is in
        for cond in self.conditions:
            if cond.met:
                continue
            found = "; ".join(map(str, cond.hits))
            if cond.kind == "categories":
                have = ", ".join(self.categories) or "none"
                reasons.append(
                    f"the topic needs a category among {cond.text}; the paper has {have}"
                )
            elif cond.kind == "excludes":
                reasons.append(f"the topic excludes {shorten(cond.text)}; the paper has {found}")
            elif cond.hits:
                reason = f"{shorten(cond.text)} does not hold: the paper has only {found}"
                if cond.lacking:
                    lacks = " and ".join(shorten(text, 48) for text in cond.lacking)
                    reason += f"; the closest alternative also needs {lacks}"
                reasons.append(reason)
            else:
                reasons.append(f"nothing of {shorten(cond.text)} is in the paper")
        return reasons

    def to_dict(self) -> dict[str, Any]:
        return {
            "topic": self.slug,
            "name": self.name,
            "matched": self.matched,
            "decide": self.decide,
            "query_matched": self.query_matched,
            "model": self.model.to_dict() if self.model is not None else None,
            "found": [h.to_dict() for h in self.hits],
            "conditions": [c.to_dict() for c in self.conditions],
            "reasons": self.reasons(),
            "implied_by": [slug for slug, _ in self.implied_by],
            "taught": self.taught,
            "fitted_on": self.fitted_on,
            "labelled": self.labelled,
        }


@lru_cache(maxsize=4096)
def _matcher(node: Node) -> Matcher:
    return compile_query(node)


def _fields_of(node: Term | Category, text: PaperText) -> tuple[Field, ...]:
    if isinstance(node, Category):
        return ("category",) if _matcher(node)(text) else ()
    if node.field == "text":
        found: list[Field] = []
        if _matcher(Term("title", node.words, node.prefix))(text):
            found.append("title")
        if _matcher(Term("abstract", node.words, node.prefix))(text):
            found.append("abstract")
        return tuple(found)
    return (node.field,) if _matcher(node)(text) else ()


def _holding(node: Node, text: PaperText) -> Iterator[Term | Category]:
    """The terms of the parts of ``node`` that hold for the paper (outside any NOT):
    of an OR, only its alternatives that hold."""
    if isinstance(node, Term | Category):
        yield node
    elif isinstance(node, Or):
        for child in node.children:
            if _matcher(child)(text):
                yield from _holding(child, text)
    elif isinstance(node, And):
        for child in node.children:
            yield from _holding(child, text)


def _hits(node: Node, text: PaperText) -> tuple[TermHit, ...]:
    """The terms of ``node`` outside any NOT that the paper contains, each once; of a
    query the paper matches, only those of the parts that made it match (a term of an
    alternative that failed read as if it had counted)."""
    found: dict[str, TermHit] = {}
    terms: Iterable[tuple[Term | Category, bool]] = (
        ((term, True) for term in _holding(node, text))
        if _matcher(node)(text)
        else query_terms(node)
    )
    for term, positive in terms:
        if not positive or str(term) in found:
            continue
        fields = _fields_of(term, text)
        if fields:
            found[str(term)] = TermHit(str(term), fields)
    return tuple(found.values())


def _lacking(node: Node, text: PaperText) -> tuple[str, ...]:
    """For an OR, the unmet parts of its AND-ed alternative that comes closest to holding."""
    if not isinstance(node, Or):
        return ()
    best: tuple[tuple[int, int], list[Node]] | None = None
    for child in node.children:
        if isinstance(child, And):
            unmet = [part for part in child.children if not _matcher(part)(text)]
            met = len(child.children) - len(unmet)
            score = (len(unmet), -met)
            if met and (best is None or score < best[0]):
                best = (score, unmet)
    return tuple(str(part) for part in best[1]) if best else ()


def explain_topic(topic: Topic, paper: Paper, text: PaperText | None = None) -> TopicExplanation:
    """Which of ``topic``'s conditions ``paper`` meets, and which of its terms it contains.

    ``text`` is the paper already tokenized, when the caller has it.
    """
    text = text or PaperText.of(paper)
    conditions: list[Condition] = []
    if topic.categories:
        assert isinstance(topic.membership, And)
        node = topic.membership.children[0]
        conditions.append(
            Condition(
                "categories", ", ".join(topic.categories), _matcher(node)(text), _hits(node, text)
            )
        )
    branches = topic.node.children if isinstance(topic.node, And) else (topic.node,)
    if not topic.query.strip():
        branches = ()  # a topic made from examples alone: its model decides, no query
    for branch in branches:
        if isinstance(branch, Not):
            hits = _hits(branch.child, text)
            conditions.append(
                Condition("excludes", str(branch.child), _matcher(branch)(text), hits)
            )
        else:
            met = _matcher(branch)(text)
            lacking = () if met else _lacking(branch, text)
            conditions.append(Condition("requires", str(branch), met, _hits(branch, text), lacking))
    query_matched = bool(topic.query.strip()) and topic.matches(text)
    view = None
    if topic.decide != "query":
        from papertrack.topics import model_features

        feats = model_features(paper.title, paper.abstract, paper.authors, paper.categories)
        model = topic.model
        up, down = model.contributions(feats)
        view = ModelView(
            model.score(feats),
            model.threshold,
            tuple(up),
            tuple(down),
            start=model.bias,
            weighed=len(feats & model.weights.keys()),
        )
    return TopicExplanation(
        slug=topic.slug,
        name=topic.name,
        matched=decided(topic.decide, view is not None and view.fired, query_matched),
        hits=_hits(topic.membership, text),
        conditions=tuple(conditions),
        categories=paper.categories,
        decide=topic.decide,
        query_matched=query_matched,
        model=view,
    )


def explain(paper: Paper, catalog: Catalog, topic: Topic | None = None) -> list[TopicExplanation]:
    """Why ``paper`` matches each topic it matches, then each topic it was taught out
    of (a paper taught out was missing from the list, and nothing said the user's own
    teaching kept it out); or, given ``topic``, that topic alone."""
    text = PaperText.of(paper)
    tags = catalog.tag(paper)
    if topic is not None:
        chosen = [topic]
    else:
        pinned = catalog.pins.get(paper.arxiv_id) or {}
        chosen = [catalog.find(slug) for slug in tags]
        chosen += [t for t in catalog.topics if pinned.get(t.slug) is False and t.slug not in tags]
    found = []
    for each in chosen:
        item = explain_topic(each, paper, text)
        above = [(s, catalog.find(s).name) for s in catalog.implied_by(each.slug) if s in tags]
        if above and each.slug in tags:
            item = replace(item, matched=True, implied_by=tuple(above))
        taught = (catalog.pins.get(paper.arxiv_id) or {}).get(each.slug)
        if taught is not None:
            item = replace(
                item, matched=taught, taught=taught, fitted_on=_fitted_on(each, paper.arxiv_id)
            )
        elif item.model is not None:
            item = _as_labelled(item, each, paper.arxiv_id)
        found.append(item)
    return found


def _as_labelled(item: TopicExplanation, topic: Topic, arxiv_id: str) -> TopicExplanation:
    """``item`` for a paper among the labelled papers the models learn from: the
    model was fitted on it if it is of the train split (a default topic's as a
    labelled example, a topic of examples' as background), and its label for a
    default topic is said. Its words weighed in its own score, which read as
    evidence about papers like it."""
    from papertrack.teach import model_meta
    from papertrack.topics import as_bundled
    from papertrack.training import TRAIN

    found = _labelled_papers().get(arxiv_id)
    if found is None:
        return item
    split, labels = found
    meta = model_meta(topic)
    # A topic made from a few examples weighs only their words: the labelled papers
    # are the background it is measured against, and their own words are no evidence.
    fitted = split == TRAIN and "fitted_on" in meta and meta.get("kind") != "centroid"
    label = topic.slug in labels if as_bundled(topic) else None
    return replace(item, fitted_on=fitted, labelled=label)


@lru_cache(maxsize=1)
def _labelled_papers() -> dict[str, tuple[str, frozenset[str]]]:
    """arXiv id -> (split, the topics it is labelled in) of the shipped labelled
    papers; empty when they cannot be read (explain goes on without them)."""
    from papertrack import paths
    from papertrack.training import load_labelled

    try:
        return {p.arxiv_id: (p.split, p.labels) for p in load_labelled(paths.labels_file())}
    except PapertrackError:
        return {}


def _fitted_on(topic: Topic, arxiv_id: str) -> bool:
    """Whether ``topic``'s model was fitted with the paper ``arxiv_id`` as an example:
    a model refit by a teach, not a copy of the shipped one with the paper pinned,
    nor pinned to it since its last fit. A paper taught out of a topic made from a
    few examples is not: only the papers in it give that model its words, and
    explain said a paper taught out had its "own words weigh in the score"."""
    from papertrack.teach import model_meta

    meta = model_meta(topic)
    pinned = meta.get("pinned") or {}
    if meta.get("kind") == "centroid" and pinned.get(arxiv_id) is False:
        return False
    return (
        "copy_of" not in meta
        and arxiv_id in pinned
        and arxiv_id not in (meta.get("unfitted") or [])
    )
