"""Related topics: the topics whose papers overlap most with a topic's.

A paper tagged with two topics links them. :func:`shared_counts` counts, for every
pair of topics, the papers tagged with both (and each topic's own papers);
:func:`related_topics` reads a topic's neighbours off those counts: by their
overlap, the papers shared over the papers of either (Jaccard's index), so a broad
topic that holds most papers is not every topic's neighbour. By shared papers
alone, Large Language Models led the related topics of 13 of 19 topic pages of the
83,510 real papers, and GUI agents did not list computer-use agents, every one of
which is a GUI agent. Both are pure. :func:`count_shared` reads the counts from a
store's week files, which the index does not keep.

Used by the static site's topic pages (:mod:`papertrack.site`); a terminal view
can call the same functions.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from datetime import date
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from papertrack.store import Store

__all__ = ["Related", "SharedCounts", "count_shared", "related_topics", "shared_counts"]

#: {topic: {other topic: papers tagged with both}}; symmetric; a topic with itself
#: is its own papers.
SharedCounts = Mapping[str, Mapping[str, int]]

#: Fewer shared papers than this make a topic a neighbour only when no other is:
#: two papers of terminal agents that are also computer-use agents read as the
#: nearest topic of terminal agents.
MIN_SHARED = 3


class Related(NamedTuple):
    """A topic near another: its slug, the papers both hold, and those over the papers
    of either (what ranks it; None without the topics' own counts)."""

    slug: str
    shared: int
    overlap: float | None


def shared_counts(tag_lists: Iterable[Iterable[str]]) -> dict[str, dict[str, int]]:
    """How many papers each pair of topics shares, and each topic holds (its count
    with itself), from the papers' tag lists. A tag listed twice on one paper counts
    once.
    """
    shared: dict[str, dict[str, int]] = {}
    for tags in tag_lists:
        for a in (unique := list(dict.fromkeys(tags))):
            row = shared.setdefault(a, {})
            for b in unique:
                row[b] = row.get(b, 0) + 1
    return shared


def related_topics(
    shared: SharedCounts,
    slug: str,
    n: int = 3,
    among: Collection[str] | None = None,
) -> list[Related]:
    """The ``n`` topics whose papers overlap most with ``slug``'s, nearest first: by
    the papers shared over the papers of either; those sharing fewer than
    :data:`MIN_SHARED` come after all the others. Without the topics' own counts (a
    topic with itself), by the papers shared.

    Ties go by shared papers, then slug, so the answer is the same on every run.
    Topics sharing no paper are never listed, so fewer than ``n`` may come back.

    Args:
        shared: the counts of :func:`shared_counts`.
        among: only these topics may be listed (e.g. the catalog's current topics:
            a stored tag of a topic since removed is not a neighbour).
    """
    row = shared.get(slug, {})
    own = row.get(slug)

    def overlap(other: str, count: int) -> float | None:
        theirs = shared.get(other, {}).get(other)
        if own is None or theirs is None:
            return None
        return count / max(own + theirs - count, 1)

    found = [
        Related(other, count, overlap(other, count))
        for other, count in row.items()
        if count > 0 and other != slug and (among is None or other in among)
    ]
    found.sort(
        key=lambda r: (
            r.shared < MIN_SHARED,
            -(r.shared if r.overlap is None else r.overlap),
            -r.shared,
            r.slug,
        )
    )
    return found[: max(n, 0)]


def count_shared(store: Store, first: date, last: date) -> dict[str, dict[str, int]]:
    """:func:`shared_counts` over the stored papers dated ``first`` to ``last`` (UTC days).

    Reads only the week files of those weeks.
    """
    from papertrack.index import week_key

    # Week keys are ISO dates of Mondays: they sort as strings ('undated' is left out).
    low, high = week_key(first), week_key(last)
    weeks = [w for w in store.weeks() if w[:1].isdigit() and low <= w <= high]

    low_day, high_day = first.isoformat(), last.isoformat()

    def tags() -> Iterable[list[str]]:
        for week in weeks:
            for moment, tags in store.week_tags(week):
                # Stored times are UTC ("2026-06-01T00:00:00Z"): the day is their head.
                if moment is not None and low_day <= moment[:10] <= high_day:
                    yield tags

    return shared_counts(tags())
