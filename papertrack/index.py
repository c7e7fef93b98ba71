"""The store's index: per-topic weekly and daily counts and catalog fingerprints.

Derived from the week files (a writer rebuilds it after an interrupted write)
and kept in ``index.json``; see docs/store.md for the store layout.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from papertrack.errors import StoreError
from papertrack.models import Paper

__all__ = ["ALL", "SCHEMA", "UNDATED", "Index", "week_of", "week_start"]

#: Version of index.json. 2 added daily counts, 3 category counts; an index of an
#: older schema is rebuilt from the partitions by the next writer (see
#: :meth:`Store.index_outdated`).
SCHEMA = 3
UNDATED = "undated"
ALL = "*"


def week_sort_key(key: str) -> str:
    """A week key to sort by: undated entries after every dated week, i.e. last when
    newest first."""
    return "0000" if key == UNDATED else key


def week_of(moment: datetime | None) -> str:
    """The partition key: the Monday (UTC) of the ISO week of ``moment``, or 'undated'."""
    if moment is None:
        return UNDATED
    return week_key(moment.astimezone(UTC).date())


def week_before(until: datetime) -> str:
    """The partition key of the last moment before ``until``: no later week holds a
    paper dated before it."""
    return week_of(until - timedelta(microseconds=1))


def week_key(day: date) -> str:
    """The partition key of ``day``: its ISO week's Monday (:func:`papertrack.momentum.monday`,
    the same week the counts of momentum are made of)."""
    from papertrack.momentum import monday

    return monday(day).isoformat()


def week_start(key: str) -> date | None:
    return None if key == UNDATED else date.fromisoformat(key)


@dataclass
class Index:
    """Derived data kept beside the partitions: counts per topic and catalog fingerprints.

    ``counts`` is {topic: {week: papers}} (weeks as in :func:`week_of`, 'undated'
    included). ``days`` is {topic: {week: [papers on Monday, …, on Sunday]}} for
    dated papers, so that momentum windows such as (D − 28 days, D] are exact to the
    day when D is not a Sunday. Seven counts under a week key keep index.json at
    about 3× the size of weekly counts alone, against 7× for one key per day: at 1M
    synthetic papers (bench/run.py) index.json is 366 KiB and loads in ~10 ms; a
    simulation of one key per day gave 849 KiB and 20 ms, weekly counts alone 125 KiB.

    ``primary`` counts papers by primary category and ``listed`` by every category
    they are listed in (cross-lists included), for ``papertrack stats``.
    """

    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    days: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    primary: dict[str, int] = field(default_factory=dict)
    listed: dict[str, int] = field(default_factory=dict)
    fingerprints: dict[str, str] = field(default_factory=dict)
    #: The schema the index was read with; below :data:`SCHEMA` it lacks newer fields.
    schema: int = SCHEMA
    #: A new random token at every write: the full-text index records the one it is in
    #: step with (an index.json without one, from an older papertrack, matches none).
    generation: str = ""
    #: When the newest topics that tagged the stored papers were read (ns since the
    #: epoch, :attr:`Catalog.read_at`; 0: not recorded). A writer whose topics were
    #: read before it does not retag the store back to them (see StoreWriter.prepare).
    topics_read_at: int = 0

    def changed_topics(self, wanted: dict[str, str]) -> set[str]:
        """The slugs whose fingerprint in ``wanted`` (a catalog's) is not the one the
        stored tags were made with: changed, added or gone."""
        stored = self.fingerprints
        return {slug for slug in {*stored, *wanted} if stored.get(slug) != wanted.get(slug)}

    @classmethod
    def from_tinydb(cls, data: dict[str, Any] | None) -> Index:
        index = cls()
        if data is None:
            return index
        # Every index papertrack writes has its meta table. One without (an empty
        # TinyDB's {} or {"_default": {}}, by hand or by a restore) is as outdated as
        # can be: every reader took the store for empty, and the next ingest counted
        # on from nothing. The next command rebuilds it from the week files.
        index.schema = 0
        for doc in (data.get("counts") or {}).values():
            index.counts[doc["t"]] = {k: int(v) for k, v in doc["weeks"].items()}
            # json.loads already gives lists of ints; converting 10^5 of them costs ms.
            index.days[doc["t"]] = dict(doc.get("days") or {})
        for doc in (data.get("meta") or {}).values():
            schema = int(doc.get("schema", 1))
            if schema > SCHEMA:
                raise StoreError(
                    "the store was written by a newer papertrack. Upgrade papertrack to read it"
                )
            index.schema = schema
            index.fingerprints = dict(doc.get("topics") or {})
            index.generation = str(doc.get("generation") or "")
            read_at = doc.get("topics_read_at")
            index.topics_read_at = read_at if isinstance(read_at, int) else 0
        for doc in (data.get("categories") or {}).values():
            index.primary = {k: int(v) for k, v in (doc.get("primary") or {}).items()}
            index.listed = {k: int(v) for k, v in (doc.get("listed") or {}).items()}
        return index

    def to_tinydb(self) -> dict[str, Any]:
        counts = {
            str(n): {
                "t": topic,
                "weeks": dict(sorted((k, v) for k, v in weeks.items() if v)),
                "days": dict(sorted((k, v) for k, v in self.days.get(topic, {}).items() if any(v))),
            }
            for n, (topic, weeks) in enumerate(sorted(self.counts.items()), start=1)
        }
        meta = {
            "1": {
                "schema": SCHEMA,
                "topics": dict(sorted(self.fingerprints.items())),
                "generation": self.generation,
                "topics_read_at": self.topics_read_at,
            }
        }
        categories = {
            "1": {
                "primary": dict(sorted((k, v) for k, v in self.primary.items() if v)),
                "listed": dict(sorted((k, v) for k, v in self.listed.items() if v)),
            }
        }
        return {"counts": counts, "meta": meta, "categories": categories}

    def bump(self, paper: Paper, delta: int) -> None:
        self.bump_at(paper.paper_date, paper.tags, delta, paper.primary_category, paper.categories)

    def bump_at(
        self,
        moment: datetime | None,
        tags: Iterable[str],
        delta: int,
        primary: str | None = None,
        categories: Iterable[str] = (),
        week: str | None = None,
    ) -> None:
        """Count (``delta`` 1) or uncount (-1) a paper dated ``moment`` with these tags.

        ``week``, when the caller has it, is :func:`week_of` ``(moment)``.
        """
        if primary:
            self.primary[primary] = self.primary.get(primary, 0) + delta
        for category in categories:
            self.listed[category] = self.listed.get(category, 0) + delta
        if week is None:
            week = week_of(moment)
        weekday = moment.astimezone(UTC).weekday() if moment is not None else None
        for topic in (ALL, *tags):
            weeks = self.counts.setdefault(topic, {})
            weeks[week] = weeks.get(week, 0) + delta
            if weekday is not None:
                row = self.days.setdefault(topic, {}).setdefault(week, [0] * 7)
                row[weekday] += delta

    def total(self, topic: str) -> int:
        return sum(self.counts.get(topic, {}).values())
