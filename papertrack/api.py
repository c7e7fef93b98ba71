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

Topics are named as on the command line (name or slug, any case), or passed as
the :class:`~papertrack.topics.Topic` objects ``load_catalog().topics`` holds.
Nothing here prints; errors are :class:`papertrack.errors.PapertrackError` with the
message the command line would show.

The reading functions answer as the commands do: when a topic's definition changed
since the store's papers were tagged (your topics.toml edited, papertrack upgraded),
the first call retags them, which takes the store's lock and reads every week
file (about 20 s at 80,000 papers; later calls take a fraction of a second). A
store this process cannot write is read with the tags it has, with a
:class:`UserWarning` naming the topics that may be out of date.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
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
    "get_paper",
    "ingest_files",
    "latest_papers",
    "load_catalog",
    "open_store",
    "refresh_tags",
    "search_papers",
    "topic_momentum",
    "trending_topics",
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

    from papertrack.store import open_named

    if path is not None and not isinstance(path, str | os.PathLike):
        raise UsageError(f"path is {type(path).__name__}, not a path. Pass a str or a Path")
    # As --db reads it, "~/papers" is in the home folder; "" (an unset variable) is
    # the default store, as an empty PAPERTRACK_DB is (--db "" is refused), not the
    # current folder.
    store = open_named(
        os.fsdecode(path) if path else None,
        create=create,
        missing=". Check the path, or pass create=True to make one there with ingest_files",
    )
    store.note = _warn
    store.required = not create and store.exists()
    return store


def _warn(text: str) -> None:
    """``text`` as a warning (:mod:`warnings`) at the line of the script that called
    papertrack, however deep inside papertrack it was said (a fixed stack level
    named a line of api.py, so ``filterwarnings(module=...)`` missed it, and the
    same api.py line warned only once for every function)."""
    import os
    import sys
    import warnings

    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    level, frame = 2, sys._getframe(1)
    while frame.f_back is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    warnings.warn(text, stacklevel=level)


def load_catalog() -> Catalog:
    """The topics as the commands read them: the default catalog with the user's
    topics.toml applied and the models the user taught in place. A malformed entry
    of topics.toml is skipped, as on the command line, and said in a warning
    (:mod:`warnings`) and in the catalog's ``warnings``."""
    return _catalog()


def refresh_tags(store: Store) -> None:
    """Bring ``store``'s tags up to date with the topics (topics.toml, taught models),
    as every command and every other function here does first. For code that reads
    the store through papertrack's modules (``papertrack.site.gather``, as
    docs/site.md shows): a site built so after an edit of topics.toml published a
    topic just added with no papers, where ``papertrack site`` showed 122."""
    _current(_checked(store), _catalog())


def _catalog(stacklevel: int = 3, *, storing: bool = False) -> Catalog:
    """:func:`load_catalog`, its warnings said at the caller ``stacklevel`` frames up:
    the line of the user's code that called the API, not the API's own. ``storing``:
    for :func:`ingest_files` (:meth:`Catalog.for_storing`)."""
    import warnings

    from papertrack.topics import Catalog

    catalog = Catalog.for_storing() if storing else Catalog.of_home()
    for warning in catalog.warnings:
        warnings.warn(warning, stacklevel=stacklevel)
    return catalog


def _moment(since: datetime | date | None, name: str = "since") -> datetime | None:
    """``since`` as an aware datetime: the start of its day in UTC, as ``--since``
    reads a date with a time (a naive datetime is UTC). Papers are dated by the day:
    ``now - 7 days`` kept to the second left out the whole seventh day."""
    if since is None:
        return None
    if isinstance(since, datetime):
        try:
            since = (since if since.tzinfo is not None else since.replace(tzinfo=UTC)).astimezone(
                UTC
            )
        except OverflowError:
            raise UsageError(
                f"{name} {since} is, in UTC, past the calendar (year 1 to 9999). Choose another day"
            ) from None
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
    """The topic ``topic`` names (``Catalog.find``): a str, or a Topic (by its slug)."""
    from papertrack.topics import Topic

    if isinstance(topic, Topic):
        found = topics.find(topic.slug)
        if found.fingerprint != topic.fingerprint:
            # Answered for the catalog's topic of that slug, without a word: a Topic
            # made by hand, or loaded before topics.toml was edited.
            raise UsageError(
                f"the topic {topic.name!r} passed is not the catalog's {found.name!r} "
                "of the same slug (made by hand, or loaded before topics.toml changed). "
                "Pass its name, or one of load_catalog().topics"
            )
        return found
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
    """``value`` as an int of at least ``least``; numpy's integers are whole numbers too."""
    import operator

    try:
        number = operator.index(value) if not isinstance(value, bool) else None
    except TypeError:
        number = None
    if number is None or number < least:
        raise UsageError(f"{name} is {value!r}; it must be a whole number of {least} or more")
    return number


def _checked(store: object) -> Store:
    """``store`` if it is one: a path passed instead failed deep inside."""
    from papertrack.store import Store

    if not isinstance(store, Store):
        raise UsageError(
            f"store is {type(store).__name__}, not a Store. Open one with "
            "papertrack.open_store(path)"
        )
    if store.required and not store.exists():
        # Read as empty, a moved store answered "no papers"; an ingest made a new one.
        from papertrack.errors import StoreError
        from papertrack.text import visible

        raise StoreError(
            f"no store at {visible(str(store.path))} any more: it was there when it was "
            "opened. Check whether it was moved or its disk unmounted, or open it "
            "again with create=True to make a new one there"
        )
    return store


def _text(name: str, value: object) -> str:
    if not isinstance(value, str):
        raise UsageError(f"{name} is {type(value).__name__}, not text. Pass a str")
    return value


def _categories(category: object) -> list[str]:
    """``category`` (a name, a list of names, or None) as a list of names.

    Raises:
        UsageError: not text or a list of text; or a blank name, which read as none
            kept every paper (a script's unset variable), as ``-c ''`` is refused.
    """
    from collections.abc import Iterable

    if category is None:
        return []
    if isinstance(category, str):
        wanted: list[object] = [category]
    elif isinstance(category, Iterable) and not isinstance(category, bytes | bytearray):
        wanted = list(category)  # a list, a set, dict.keys(), a generator
    else:
        raise UsageError(
            f"category is {type(category).__name__}, not a category's name or a list "
            "of them. Pass e.g. 'cs.CL' or ['cs.CL', 'cs.AI']"
        )
    names = [_text("category", name) for name in wanted]
    if any(not name.strip() for name in names):
        raise UsageError(
            "category '' names no category (a script's unset variable?). Name one, "
            "e.g. 'cs.AI', or pass None for every category"
        )
    return names


def _current(store: Store, topics: Catalog) -> None:
    """The store ready to answer for ``topics``, as the commands make it."""
    from papertrack.store import bring_current

    # Each call is a command: a search index found damaged in an earlier call (and
    # built again since, by this call or another process) is read again.
    store.text_index_damaged = False

    # What a retag moved goes to the log, as the commands log it: a script run first
    # after an edit of topics.toml changed every count, and nothing said what moved.
    bring_current(store, topics, note=_warn, record=_log)


def _log(text: str) -> None:
    """``text`` in papertrack's log (PAPERTRACK_LOG_FILE, else papertrack.log in the
    data home), from "[api]"; a log that cannot be written is passed over."""
    import contextlib
    import os

    from papertrack import logfile

    named = os.environ.get("PAPERTRACK_LOG_FILE") or None
    path = logfile.log_path(named)
    if path is not None:
        with contextlib.suppress(OSError):
            logfile.write(path, text, "api", rotate=named is None)


def ingest_files(
    store: Store, sources: Iterable[str | Path], *, strict: bool = True
) -> IngestReport:
    """Read feed files or URLs into ``store`` (as ``papertrack ingest`` does); the
    store is made if it is not there (open it with ``create=True``).

    Every source that can be read is stored. Then, as the command exits 1, a
    source that could not be read (a missing file, a cut-off feed) raises
    :class:`~papertrack.errors.SourcesFailed`, whose ``report`` is the report
    returned otherwise; with ``strict=False`` the failures are only in the
    report's ``failed``. A weekly script did not notice a feed that had stopped
    being written.
    """
    import os

    from papertrack.errors import SourcesFailed
    from papertrack.ingest import ingest as run

    store = _checked(store)
    if isinstance(sources, str | bytes | os.PathLike):
        # A str is an Iterable[str] too: its characters were read as file names.
        raise UsageError(
            f"sources is one {type(sources).__name__}, not a list of them. "
            f"Pass [{os.fsdecode(sources)!r}]"
        )
    names = []
    for source in sources:
        if not isinstance(source, str | bytes | os.PathLike):
            raise UsageError(
                f"a source is {type(source).__name__}, not a file name, path or URL. "
                "Pass str or Path items"
            )
        names.append(os.fsdecode(source))
    topics = _catalog(storing=True)
    with store.writer(topics) as writer:
        report = run(names, writer)
    failed = report.failed
    if strict and failed:
        first = (failed[0].error or "").rstrip(".")
        if len(report.sources) == 1:
            raise SourcesFailed(first, report)
        more = f" ({len(failed):,} of {len(report.sources):,} sources failed)"
        raise SourcesFailed(
            f"{first}{more if len(failed) > 1 else ''}; the papers of the other sources "
            "are stored (the error's report says what each source did)",
            report,
        )
    return report


def latest_papers(
    store: Store,
    topic: str | Topic | None = None,
    *,
    limit: int = 20,
    since: datetime | date | None = None,
    query: str | None = None,
    category: str | Sequence[str] | None = None,
) -> list[Paper]:
    """The newest papers of ``topic`` (all papers when None), matching ``query`` when given,
    dated ``since`` or later (from the start of its day in UTC, as ``--since``
    counts; a naive datetime is UTC), in ``category`` when given (a name or a list of
    them, as ``-c``: "cs.CL", "cs.*").

    Raises:
        UsageError: a category neither arXiv nor any stored paper has (a typo).
    """
    from papertrack.categories import check_categories
    from papertrack.models import paper_filter
    from papertrack.topics import Topic

    store = _checked(store)
    limit = _at_least("limit", limit)
    if query is not None:
        _text("query", query)
    wanted = _categories(category)
    check_categories(store, wanted)
    start = _moment(since)
    topics = _catalog()
    slug = _slug(topics, topic)
    unsaved = Topic(name="Query", slug="query", query=query) if query is not None else None
    _current(store, topics)
    if query is not None:
        _warn_query(store, query)
    return store.latest(
        slug,
        limit=limit,
        since=start,
        keep=paper_filter(wanted),
        match=unsaved.matches_fields if unsaved else None,
        within=store.candidates(unsaved.node) if unsaved else None,
    )


def topic_momentum(
    store: Store,
    topic: str | Topic,
    *,
    as_of: date | datetime | None = None,
    window: int = DEFAULT_WINDOW,
    weeks: int = DEFAULT_WEEKS,
) -> Momentum:
    """A topic's momentum as of ``as_of`` (a datetime counts as its day in UTC), over
    windows of ``window`` weeks.

    Without ``as_of``, as ``papertrack momentum`` measures: as of today, or as of the
    store's newest paper's day when that is more than a week before today (a store
    whose fetch stopped is not read as a topic gone quiet).
    """
    topics = _catalog()
    chosen = _find(topics, topic)
    return _measured(store, topics, [chosen], as_of, window, weeks)[0]


def trending_topics(
    store: Store,
    *,
    as_of: date | datetime | None = None,
    window: int = DEFAULT_WINDOW,
    weeks: int = DEFAULT_WEEKS,
) -> list[Momentum]:
    """Every topic's momentum, ranked as ``papertrack trending`` ranks them (the day
    as :func:`topic_momentum` takes it)."""
    from papertrack import momentum as core

    topics = _catalog()
    return core.rank(_measured(store, topics, topics.topics, as_of, window, weeks))


def _measured(
    store: Store,
    topics: Catalog,
    chosen: Sequence[Topic],
    as_of: date | datetime | None,
    window: int,
    weeks: int,
) -> list[Momentum]:
    from papertrack import momentum as core

    store = _checked(store)
    window = _at_least("window", window)
    weeks = _at_least("weeks", weeks)
    given = _day(as_of)
    # Checked before the store is brought up to date: weeks=2001 retagged it, then failed.
    _span(given or core.today(), window, weeks)
    _current(store, topics)
    day = given or core.default_day(store.newest_day(), core.today())
    if given is None:
        _span(day, window, weeks)  # the store's newest day, when it is behind today
    days = store.index().days
    return [
        core.measure_topic(days, t.slug, t.name, as_of=day, window=window, weeks=weeks)
        for t in chosen
    ]


def _span(day: date, window: int, weeks: int) -> None:
    """:func:`papertrack.momentum.check_span`, its refusal said as the API's arguments.

    Raises:
        UsageError: the window or chart cannot be measured.
    """
    from papertrack import momentum as core

    try:
        core.check_span(day, window, weeks)
    except core.SpanError as exc:
        if exc.part == "calendar":
            raise UsageError(
                f"as_of {day} with window {window} and weeks {weeks} reaches past the "
                "calendar (year 1 to 9999). Choose another day or fewer weeks"
            ) from None
        raise UsageError(
            f"{exc.part} is {window if exc.part == 'window' else weeks:,}, more weeks than "
            f"arXiv has existed. Use {core.MAX_WEEKS:,} or fewer"
        ) from None


def search_papers(
    store: Store,
    query: str,
    *,
    topic: str | Topic | None = None,
    limit: int = 20,
    since: datetime | date | None = None,
) -> list[Paper]:
    """Stored papers matching ``query`` (the topic language), dated ``since`` or later
    when given: title hits first, then newest. How the query is read, where it may
    not be as meant ('or' in lower case is a word), comes as a warning."""
    from papertrack.export import search_papers as run
    from papertrack.topics import Topic

    store = _checked(store)
    limit = _at_least("limit", limit)
    _text("query", query)
    start = _moment(since)
    # Parsed before the store is brought up to date: a typo waited for the lock.
    unsaved = Topic(name="Query", slug="query", query=query)
    topics = _catalog()
    slug = _slug(topics, topic)
    _current(store, topics)
    _warn_query(store, query)
    return run(store, unsaved, topic=slug, limit=limit, since=start).papers


def _warn_query(store: Store, query: str) -> None:
    """The notes the commands give on how ``query`` is read, as warnings
    (:mod:`warnings`, at the caller's line): 'planning or reasoning' matched 481
    papers where the caller meant 18,935, and nothing said 'or' is a word to match."""
    import warnings

    from papertrack import hints

    for note in [*hints.query_notes(query), *hints.store_notes(store, query)]:
        warnings.warn(note, stacklevel=3)


def get_paper(store: Store, paper_id: str) -> Paper | None:
    """The stored paper ``paper_id`` names in any form ``papertrack show`` takes
    (2508.13167, 2508.13167v2, arXiv:2508.13167, an abs or pdf link, arXiv's DOI, or a
    non-arXiv feed's own id); None when the store does not hold it. A version the
    store does not hold gives the stored one, with a warning (:mod:`warnings`).

    Raises:
        UsageError: ``paper_id`` is not an arXiv id.
    """
    import warnings

    from papertrack.export import find_paper, other_version

    store = _checked(store)
    _text("paper_id", paper_id)
    topics = _catalog()
    _current(store, topics)
    paper = find_paper(store, paper_id)
    note = other_version(paper_id, paper, "returning") if paper is not None else None
    if note is not None:
        # As `show` says it: "…v9" returned v1 without a word.
        warnings.warn(note, stacklevel=2)
    return paper


def ask_question(
    store: Store,
    question: str,
    *,
    topic: str | Topic | None = None,
    since: datetime | date | None = None,
    papers: int = 8,
    as_of: datetime | date | None = None,
) -> Answer:
    """The answer ``papertrack ask`` gives (without ``--context`` or ``--llm``): the
    best sentences of the best papers, each cited; for a question about people
    ("who works on GUI agents?") the authors with the most of the papers that match
    (``answer.who``); for one about what is new, from the papers of the four weeks
    to the newest stored one (or to ``as_of``) unless ``since`` is given. With
    ``as_of`` (a datetime counts as its day in UTC), papers dated after that day are
    left out. Query fields in the question (``author:lecun``) are read as plain
    words (see :func:`papertrack.ask.respond`)."""
    from papertrack.ask import check_question, day_end, respond, without_fields

    store = _checked(store)
    papers = _at_least("papers", papers)
    if not _text("question", question).strip():
        raise UsageError("the question is empty. Ask something, e.g. 'how are agents trained?'")
    start = _moment(since)
    day = _day(as_of)
    until = day_end(day) if day is not None else None
    if start is not None and until is not None and start >= until:
        raise UsageError(
            f"since {start.date()} is after as_of {day}: no paper can be dated in between. "
            "Give a since on or before the as_of day"
        )
    topics = _catalog()
    slug = _slug(topics, topic)
    # Checked before the store is brought up to date: "?" waited for the lock.
    check_question(without_fields(question)[0], topic=slug is not None)
    _current(store, topics)
    return respond(
        store, " ".join(question.split()), topic=slug, since=start, papers=papers, until=until
    )
