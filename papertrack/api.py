"""papertrack from Python: open a store, ingest, latest, momentum, search, ask.

Everything the commands do to answer, without the command line::

    import papertrack

    store = papertrack.open_store()                 # the store `papertrack path` names
    papertrack.ingest_files(store, ["listing.xml"])
    for paper in papertrack.latest_papers(store, "llm-agent-training", limit=5):
        print(paper.paper_date, paper.title)
    gui = papertrack.topic_momentum(store, "gui-agents")
    print(gui.current.count, gui.previous.count, gui.change_pct)
    answer = papertrack.ask_question(store, "how are GUI agents evaluated?", topic="gui-agents")
    for sentence in answer.sentences:
        print(sentence.text, f"[{sentence.cite}]")

Topics are named as on the command line (name or slug, any case). Nothing here
prints; errors are :class:`papertrack.errors.PapertrackError` with the message the
command line would show.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from papertrack.errors import UsageError

# Only the defaults: momentum imports nothing but the standard library.
from papertrack.momentum import DEFAULT_WEEKS, DEFAULT_WINDOW

if TYPE_CHECKING:
    from papertrack.ask import Answer
    from papertrack.models import IngestReport, Paper
    from papertrack.momentum import Momentum
    from papertrack.store import Store
    from papertrack.topics import Catalog, Topic

__all__ = [
    "ask_question",
    "ingest_files",
    "latest_papers",
    "load_catalog",
    "open_store",
    "search_papers",
    "topic_momentum",
]


def open_store(path: str | Path | None = None, *, create: bool = False) -> Store:
    """The store at ``path``, or the default one (PAPERTRACK_DB, PAPERTRACK_HOME, the data home).

    Raises:
        StoreError: ``path`` (or PAPERTRACK_DB) names no store and ``create`` is false,
            as on the command line: a mistyped path answered "no papers" instead.
            With ``create``, the first ingest makes the store there.
        UsageError: ``path`` is not a path.
    """
    import os

    from papertrack import paths
    from papertrack.errors import StoreError
    from papertrack.store import Store
    from papertrack.text import visible

    if path is not None and not isinstance(path, str | os.PathLike):
        raise UsageError(f"path is {type(path).__name__}, not a path. Pass a str or a Path")
    named = path is not None or bool(os.environ.get("PAPERTRACK_DB"))
    where = Path(path) if path is not None else paths.store_dir(None)
    if named and not create and not os.path.exists(where):
        raise StoreError(
            f"no store at {visible(str(where))}. Check the path, or pass create=True "
            "to make one there with ingest_files"
        )
    return Store(where)


def load_catalog() -> Catalog:
    """The topics: the default catalog with the user's topics.toml applied."""
    from papertrack import paths
    from papertrack.topics import Catalog

    user = paths.user_topics_file()
    return Catalog.load(paths.default_topics_file(), user if user.is_file() else None)


def _moment(since: datetime | date | None, name: str = "since") -> datetime | None:
    """``since`` as an aware datetime: a date is its midnight UTC, a naive datetime UTC."""
    if since is None:
        return None
    if isinstance(since, datetime):
        return since if since.tzinfo is not None else since.replace(tzinfo=UTC)
    if isinstance(since, date):
        return datetime(since.year, since.month, since.day, tzinfo=UTC)
    raise UsageError(
        f"{name} is {type(since).__name__}, not a date or datetime. Pass a "
        "datetime.date or datetime.datetime (papertrack.dates.parse_date reads text)"
    )


def _day(as_of: datetime | date | None) -> date | None:
    """``as_of`` as a calendar day (a datetime's day in UTC)."""
    moment = _moment(as_of, "as_of")
    return moment.astimezone(UTC).date() if moment is not None else None


def _find(topics: Catalog, topic: object) -> Topic:
    """The topic ``topic`` names (``Catalog.find``), which must be a str."""
    if not isinstance(topic, str):
        raise UsageError(
            f"topic is {type(topic).__name__}, not a topic's name or slug. "
            "Name one, e.g. 'gui-agents' (load_catalog() lists them)"
        )
    return topics.find(topic)


def _slug(topics: Catalog, topic: object) -> str | None:
    """The slug of the topic ``topic`` names; None for None (all papers)."""
    return None if topic is None else _find(topics, topic).slug


def _at_least(name: str, value: int, least: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise UsageError(f"{name} is {value!r}; it must be a whole number of {least} or more")
    return value


def _current(store: Store, topics: Catalog) -> None:
    if not store.tags_current(topics) or store.index_outdated():
        store.refresh(topics)


def ingest_files(store: Store, sources: Iterable[str | Path]) -> IngestReport:
    """Read feed files or URLs into ``store`` (as ``papertrack ingest`` does); the
    store is made if it is not there (open it with ``create=True``)."""
    from papertrack.ingest import ingest as run

    if isinstance(sources, str | Path):
        # A str is an Iterable[str] too: its characters were read as file names.
        raise UsageError(
            f"sources is one {type(sources).__name__}, not a list of them. Pass [{str(sources)!r}]"
        )
    topics = load_catalog()
    with store.writer(topics) as writer:
        return run([str(source) for source in sources], writer)


def latest_papers(
    store: Store,
    topic: str | None = None,
    *,
    limit: int = 20,
    since: datetime | date | None = None,
    query: str | None = None,
) -> list[Paper]:
    """The newest papers of ``topic`` (all papers when None), matching ``query`` when given,
    dated ``since`` or later (a date is its midnight UTC; a naive datetime is UTC)."""
    from papertrack.topics import Topic

    _at_least("limit", limit)
    start = _moment(since)
    topics = load_catalog()
    slug = _slug(topics, topic)
    unsaved = Topic(name="Query", slug="query", query=query) if query is not None else None
    _current(store, topics)
    return store.latest(
        slug,
        limit=limit,
        since=start,
        match=unsaved.matches_fields if unsaved else None,
        within=store.candidates(unsaved.node) if unsaved else None,
    )


def topic_momentum(
    store: Store,
    topic: str,
    *,
    as_of: date | datetime | None = None,
    window: int = DEFAULT_WINDOW,
    weeks: int = DEFAULT_WEEKS,
) -> Momentum:
    """A topic's momentum as of ``as_of`` (default: the store's newest paper date; a
    datetime counts as its day in UTC), over windows of ``window`` weeks."""
    from papertrack import momentum as core

    _at_least("window", window)
    _at_least("weeks", weeks)
    given = _day(as_of)
    topics = load_catalog()
    chosen = _find(topics, topic)
    _current(store, topics)
    day = given or store.newest_day() or core.today()
    days = store.index().days
    try:
        return core.measure_topic(
            days, chosen.slug, chosen.name, as_of=day, window=window, weeks=weeks
        )
    except ValueError:
        raise UsageError(
            f"as_of {day} with window {window} and weeks {weeks} reaches past the calendar "
            "(year 1 to 9999). Choose another day or fewer weeks"
        ) from None


def search_papers(
    store: Store, query: str, *, topic: str | None = None, limit: int = 20
) -> list[Paper]:
    """Stored papers matching ``query`` (the topic language): title hits first, then newest."""
    from papertrack.export import search_papers as run
    from papertrack.topics import Topic

    _at_least("limit", limit)
    topics = load_catalog()
    slug = _slug(topics, topic)
    _current(store, topics)
    unsaved = Topic(name="Query", slug="query", query=query)
    return run(store, unsaved, topic=slug, limit=limit).papers


def ask_question(
    store: Store,
    question: str,
    *,
    topic: str | None = None,
    since: datetime | date | None = None,
    papers: int = 8,
) -> Answer:
    """An answer made of the best sentences of the best papers, each cited (see ``ask``)."""
    from papertrack.ask import answer_question

    _at_least("papers", papers)
    if not isinstance(question, str) or not question.strip():
        raise UsageError("the question is empty. Ask something, e.g. 'how are agents trained?'")
    start = _moment(since)
    topics = load_catalog()
    slug = _slug(topics, topic)
    _current(store, topics)
    return answer_question(store, question, topic=slug, since=start, papers=papers)
