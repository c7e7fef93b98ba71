"""Commands about topics: the `topics` group (list, show, add, remove, test, explain)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from datetime import date
from typing import TYPE_CHECKING, Annotated, Any

import typer

from papertrack import paths, teach
from papertrack.categories import check_categories
from papertrack.cli.common import (
    EXIT_CODES,
    AsOfOpt,
    Format,
    FormatOpt,
    JsonOpt,
    ViewFormat,
    ViewFormatOpt,
    app,
    busy,
    complete_topic,
    errors,
    fresh_tags,
    load_catalog,
    log,
    many_values,
    no_blank_category,
    note_operator_words,
    note_other_version,
    note_query_store,
    note_topic_store,
    open_store,
    out,
    pick_format,
    say,
    state,
)
from papertrack.cli.output import emit, emit_json
from papertrack.errors import PapertrackError, UsageError
from papertrack.files import all_or_nothing, lock_timeout
from papertrack.text import counted, quoted, visible

if TYPE_CHECKING:
    from pathlib import Path

    from papertrack.store import Store
    from papertrack.topics import Catalog, Topic
    from papertrack.userfile import TopicEdit
    from papertrack.writer import PinsMoved, Retagged

topics_app = typer.Typer(
    name="topics",
    epilog=EXIT_CODES,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(topics_app, name="topics")


CategoryOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--category",
        "-c",
        help="The paper must be in one of these categories (repeatable; cs.* works).",
        callback=no_blank_category,
    ),
]


def as_of_date(value: str | None) -> date:
    """--as-of of the topic lists and 'topics test', or today: their 12-week charts
    and 28-day counts must fit the calendar, as a momentum chart's must."""
    from papertrack import momentum
    from papertrack.cli.momentum import parse_as_of

    return parse_as_of(value, momentum.DEFAULT_WINDOW, momentum.DEFAULT_WEEKS, fixed=True)


def counted_day(store: Store, as_of: str | None) -> date:
    """The day the topic lists count to, as momentum measures to it
    (:func:`papertrack.cli.momentum.as_of_day`)."""
    from papertrack import momentum
    from papertrack.cli.momentum import as_of_day

    return as_of_day(store, as_of, momentum.DEFAULT_WINDOW, momentum.DEFAULT_WEEKS, fixed=True)


def counted_store(catalog: Catalog) -> Store:
    store = open_store()
    fresh_tags(store, catalog)
    return store


def model_info(topic: Topic) -> dict[str, Any]:
    """How a topic decides, its model file, and how it did on its examples (cross-validated)."""
    from papertrack.learn import FEATURE_SET
    from papertrack.training import cv_summary

    model = topic.model if topic.model_file else None
    outdated = None if model is None else teach.outdated(model.meta, FEATURE_SET)
    return {
        "decide": topic.decide,
        "model_file": topic.model_file or None,
        "examples": cv_summary(model, topic.decide),
        # How a model made from a few examples was made, when it is not cross-validated.
        "note": None if model is None else _made_note(topic.slug, model.meta),
        # False: made by an older papertrack (model_outdated says how); teaching refits it.
        "model_current": None if outdated is None else not outdated,
        "model_outdated": outdated or None,
    }


_MADE_FROM_RE = re.compile(r"(\d+) examples? in the topic")


def _made_note(slug: str, meta: dict[str, Any]) -> str | None:
    """The note of a model made from a few examples, and, when teaches since kept it
    (they changed nothing it decides), how many examples it was made from: "5
    examples in the topic" read on, unchanged, after seven and then 24."""
    note = meta.get("note")
    if not isinstance(note, str):
        return None
    found = _MADE_FROM_RE.match(note)
    if found is None:
        return note
    now = sum(teach.examples_of(slug).values())
    made = int(found.group(1))
    if now == made:
        return note
    return (
        f"{note}; the model was made from {made} of the {now:,} examples in the topic now "
        "(a teach that changes nothing it decides keeps it)"
    )


def _topic_row(topic: Topic, store: Store, as_of: date, *, through: bool = False) -> dict[str, Any]:
    """One topic's row of ``topics``; ``through``: count only the papers dated up to
    ``as_of`` (asked for with --as-of, as the topic page counts its latest papers)."""
    from papertrack.diagnose import recent_count

    counted = store.exists()
    recent: int | None = recent_count(store, topic.slug, as_of) if counted else None
    if counted and not recent and not recent_count(store, None, as_of):
        recent = None  # no paper at all in those 28 days: no data, never zero (as momentum)
    # (No store yet is no data too: it read 0, where momentum said "no data".)
    return {
        # "topic", as in every other command's JSON (momentum, trending, following).
        "topic": topic.slug,
        "name": topic.name,
        "source": topic.source,
        "description": topic.description,
        "query": topic.query,
        "categories": list(topic.categories),
        "papers": (
            0
            if not counted
            else store.count_through(topic.slug, as_of)
            if through
            else store.count(topic.slug)
        ),
        "last_4_weeks": recent,
        # The day the 4 weeks end: today, or the newest paper's on a store not fetched
        # for 4 weeks (a script could not tell which from the counts).
        "as_of": as_of.isoformat(),
    }


# --------------------------------------------------------------------------- list


@topics_app.callback(invoke_without_command=True)
def topics_main(
    ctx: typer.Context,
    fmt: FormatOpt = Format.table,
    as_json: JsonOpt = False,
    as_of: AsOfOpt = None,
) -> None:
    """List, show, add, remove and test topics; explain why a paper is in one.

    Without a subcommand, lists every topic (as 'papertrack topics list').

    Examples:

    \b
        papertrack topics
        papertrack topics show llm-agent-training
        papertrack topics test 'agent* AND benchmark*' --category 'cs.*'
        papertrack topics add "Agent Benchmarks" --query 'agent* AND benchmark*'
        papertrack topics explain 2508.13167 llm-agent-training
        papertrack topics remove gui-agents
    """
    state.command = f"topics {ctx.invoked_subcommand or 'list'}"
    if ctx.invoked_subcommand is None:
        topics_list(fmt, as_json, as_of)
        return
    given = [
        name
        for name, value, default in (
            ("--format", fmt, Format.table),
            ("--json", as_json, False),
            ("--as-of", as_of, None),
        )
        if value != default
    ]
    if given:
        # `topics --json list` printed a table: the options were the group's, not the list's.
        with errors():
            sub = ctx.invoked_subcommand
            group: Any = ctx.command
            command = group.get_command(ctx, sub) if sub else None
            takes = command is not None and any(given[0] in p.opts for p in command.params)
            if takes:
                raise UsageError(
                    f"{given[0]} belongs to the subcommand: write it after 'topics {sub}'"
                )
            raise UsageError(f"'topics {sub}' takes no {given[0]}. Leave it out")


@topics_app.command("list", epilog=EXIT_CODES)
def topics_list(
    fmt: FormatOpt = Format.table, as_json: JsonOpt = False, as_of: AsOfOpt = None
) -> None:
    """List every topic with its stored papers: all, and in the last 4 weeks.

    The last 4 weeks are the 28 days ending with --as-of (default today, UTC; or the
    newest stored paper's day, if that is more than a week ago), as in
    'papertrack momentum'. With --as-of, all is those dated up to that day. Source
    is 'default' (the bundled catalog) or 'user' (your topics file; see
    'papertrack path').

    Examples:

    \b
        papertrack topics list
        papertrack topics --json
        papertrack topics --format csv --as-of 2026-06-26
    """
    with errors():
        fmt = pick_format(fmt, as_json)
        as_of_date(as_of)  # a bad --as-of is refused before the catalog loads
        catalog = load_catalog()
        store = counted_store(catalog)
        day = counted_day(store, as_of)
        rows = [_topic_row(t, store, day, through=as_of is not None) for t in catalog.topics]

        def table() -> Any:
            from papertrack import render

            return render.topics_table(rows, f"Topics ({len(rows):,})", out().width)

        emit(fmt.value, rows, table, columns=list(rows[0]) if rows else ["name"])
        if not rows:
            say("No topics: every default is hidden. Add one with 'papertrack topics add'.")


# --------------------------------------------------------------------------- show


@topics_app.command("show", epilog=EXIT_CODES)
def topics_show(
    topic: Annotated[
        str,
        typer.Argument(
            metavar="TOPIC", help="Topic name or slug, any case.", autocompletion=complete_topic
        ),
    ],
    as_of: AsOfOpt = None,
    fmt: ViewFormatOpt = ViewFormat.table,
    as_json: JsonOpt = False,
) -> None:
    """Show a topic's definition and how many stored papers it has.

    Prints the name, slug, source (and file), description, categories and query
    as written, the topic's papers (all, and in the 28 days to --as-of), how it
    decides (its query, its model, either or both) and, for a model, how it does
    on what it learns from (cross-validated), the examples you taught it and the
    topics it implies.

    Examples:

    \b
        papertrack topics show llm-agent-training
        papertrack topics show "GUI Agents" --json
    """
    from papertrack.topics import Catalog

    with errors():
        as_of_date(as_of)  # a bad --as-of is refused before the catalog loads
        catalog = load_catalog()
        chosen = catalog.find(topic)
        store = counted_store(catalog)
        note_topic_store(store, chosen)
        day = counted_day(store, as_of)
        info = _topic_row(chosen, store, day, through=as_of is not None)
        default = Catalog.load(paths.default_topics_file()).by_slug(chosen.slug)
        user = chosen.source == "user"
        info.update(
            overrides_default=user and default is not None,
            file=str(paths.user_topics_file() if user else paths.default_topics_file()),
            fingerprint=chosen.fingerprint,
            as_of=day.isoformat(),
            **model_info(chosen),
            taught=_taught_ids(chosen.slug),
            implies=list(chosen.implies),
            implied_by=[t.slug for t in catalog.topics if chosen.slug in t.implies],
            test_split=_test_split(chosen, default),
        )
        if as_json or fmt is ViewFormat.json:
            emit_json(info)
        else:
            from papertrack import render

            out().print(render.topic_card(info))
            for line in render.query_lines(str(info["query"])):
                out().print(line, soft_wrap=True)


def _test_split(topic: Topic, default: Topic | None) -> dict[str, Any] | None:
    """How the shipped catalog tags ``topic`` on the labels' held-out test split, when
    its tags are the shipped catalog's: defined as shipped, no model taught."""
    from papertrack.training import shipped_figures

    if teach.taught_model(topic) or not teach.decides_as_shipped(topic, default):
        return None
    return shipped_figures(topic.slug)


def _taught_ids(slug: str) -> dict[str, list[str]] | None:
    """The papers taught to a topic: ``in`` and ``out``, ids sorted (None when the
    examples file cannot be read)."""
    from papertrack.training import load_examples

    try:
        taught = load_examples(paths.user_examples_file()).get(slug, {})
    except PapertrackError as exc:
        # The card is still worth showing; teach and latest say the same error.
        say(f"Warning: {visible(str(exc)).rstrip('.')}.")
        return None
    return {
        "in": sorted(pid for pid, inside in taught.items() if inside),
        "out": sorted(pid for pid, inside in taught.items() if not inside),
    }


# --------------------------------------------------------------------------- add / remove


def _tags_follow(catalog: Catalog) -> Store | None:
    """Retag the store for an edited catalog now, so the counts printed are true."""
    store = open_store(create=True)
    if not store.exists():
        return None
    try:
        fresh_tags(store, catalog)
    except PapertrackError as exc:
        # The file is written; the next command retags. Say so rather than fail.
        say(f"Warning: {str(exc).rstrip('.')}. Tags are updated by the next command instead.")
        return None
    return store


@topics_app.command("add", epilog=EXIT_CODES, cls=many_values("--like", "--category", "-c"))
def topics_add(
    name: Annotated[
        str, typer.Argument(metavar="NAME", help='The topic\'s name, e.g. "Agent Benchmarks".')
    ],
    query: Annotated[
        str | None,
        typer.Option(
            "--query",
            help="What the topic matches (see docs/topics.md).",
            show_default=False,
        ),
    ] = None,
    like: Annotated[
        list[str] | None,
        typer.Option(
            "--like",
            metavar="ID...",
            help="Stored papers the topic is about (--like A B C): learn the topic from them.",
            show_default=False,
        ),
    ] = None,
    category: CategoryOpt = None,
    description: Annotated[
        str, typer.Option("--description", help="One sentence on what the topic is.")
    ] = "",
    slug: Annotated[
        str | None,
        typer.Option("--slug", help="The slug (default: made from the name).", show_default=False),
    ] = None,
    replace: Annotated[
        bool,
        typer.Option(
            "--replace", help="Redefine the topic with this slug (yours or a default) whole."
        ),
    ] = False,
    decide: Annotated[
        str | None,
        typer.Option(
            "--decide",
            metavar="either|both",
            help="With --like and --query: a paper is in when either tags it (the "
            "default), or only when both do.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Add a topic to your topics file, or redefine one with --replace.

    The query is checked first: one that does not parse is refused with the column
    of the mistake, and the file is left as it was. A slug already in use, yours
    or a default topic's, needs --replace: it redefines that topic, rewriting its
    entry whole (options left out are dropped).
    Comments and the rest of the file stay as you wrote them. Stored papers are
    retagged for the new definition straight away.

    With --like, the topic is learned from example papers ("more like these"):
    until it has 24 examples, a paper is in it when its words are as like theirs
    (the rarer, the more they count) as those of the top 3% of the labelled papers
    shipped with papertrack; from then on a model is fitted on them against those
    papers. With --query as well, either one decides (--decide both: a paper must
    match the query too, and the examples rank within it). Teach it more with
    'papertrack topics teach'.

    Examples:

    \b
        papertrack topics add "Agent Benchmarks" --query 'agent* AND benchmark*'
        papertrack topics add "Agent Memory" --like 2606.22844 2606.19911 2606.14571 2606.16285
        papertrack topics add "MoE Routing" --like 2606.22798 2606.25092 --decide both \\
            --query '(moe OR "mixture of experts") AND (routing OR router*)'
        papertrack topics add "LeCun" --query 'author:"Yann LeCun"'
        papertrack topics add "GUI Agents" --query '"gui agent*" OR "web agent*"' --replace
        papertrack topics add "Diffusion LMs" --query '"diffusion language model*"' \\
            --description "Language models that generate by denoising." --slug dlm
    """
    from papertrack.userfile import add_topic, new_slug

    with errors():
        if query is None and not like:
            raise UsageError(
                "a topic needs --query, or example papers with --like. "
                "See 'papertrack topics add --help'"
            )
        if decide is not None and decide not in ("either", "both"):
            raise UsageError(f"--decide is 'either' or 'both', not {visible(decide)!r}")
        if decide is not None and not (like and (query or "").strip()):
            raise UsageError(
                "--decide says how a topic made from examples (--like) and a query "
                "(--query) combines them; give both, or leave out --decide"
            )

        if query:
            note_operator_words(query)
        if like and category and not (query or "").strip():
            raise UsageError(
                "--category filters a topic's query, and a topic made from examples alone "
                "has none (its model does not read categories). Give --query as well, or "
                "leave --category out"
            )
        if category or query:
            from papertrack.query import category_filter

            # A category typo makes a topic that stays empty: refused as 'latest -c' is
            # (after what is no category name at all, which is said as the file would).
            category_filter(tuple(category or ()), f"topic {quoted(name)}")
            known = open_store()
            check_categories(known, category or [])
            if query:
                note_query_store(known, query)

        def edit_file(model: str, write: bool) -> Any:
            return add_topic(
                paths.user_topics_file(),
                paths.default_topics_file(),
                name=name,
                query=query or "",
                categories=category or [],
                description=description,
                slug=slug,
                replace=replace,
                model=model,
                write=write,
            )

        choice = None
        with _teaching():
            if like:
                # Checked first: a refused edit must not leave a model or examples behind.
                planned = edit_file(_model_entry(new_slug(name, slug)), write=False)
                choice = _learn_from_examples(
                    name, planned.slug, query, category, like, rule=decide or ""
                )
                edit = edit_file(_model_entry(planned.slug), write=True)
            else:
                edit = edit_file("", write=True)
            dropped = "" if like else _drop_model(edit)
            if not like and teach.examples_of(edit.slug):
                # Kept for the new definition, and in use at once: listed as taught
                # by `topics show` while not applied, a paper taught out was the
                # first of the topic's papers until the next teach.
                _apply_examples(edit.slug)
        # Ctrl-C from here on (the retag) leaves the topic added: said, so that running
        # the command again, refused for the slug now taken, is no surprise.
        made = (
            f"The topic {quoted(edit.name)} ({edit.slug}) is added; the stored papers' "
            "tags catch up at the next command that reads them."
        )
        with errors(interrupted=made):
            message, store = _added_message(edit)
            message += dropped
            say(message + ".")
            if choice is not None:
                _say_figures(choice)
            if store is not None:
                pinned = choice.model.meta.get("pinned") if choice is not None else None
                _say_newest(store, edit.slug, set(pinned or {}))
                if choice is not None:
                    _say_breadth(store, edit.slug, edit.name)


def _log_taught(
    slug: str,
    taught_in: Iterable[str] | None = None,
    taught_out: Iterable[str] = (),
    *,
    forgot: Mapping[str, bool],
) -> None:
    """One line in the log of what a teach did, the papers by id, so that it can be
    looked back on: "Taught gui-agents: in 2606.24525; out none; forgot 2606.17871
    (in)." The examples file keeps only what is taught now."""
    parts = []
    if taught_in is not None:
        parts.append(f"in {', '.join(sorted(taught_in)) or 'none'}")
        parts.append(f"out {', '.join(sorted(taught_out)) or 'none'}")
    if forgot:
        was = ", ".join(
            f"{pid} ({'in' if inside else 'out'})" for pid, inside in sorted(forgot.items())
        )
        parts.append(f"forgot {was}")
    log(f"Taught {slug}: {'; '.join(parts)}.")


def _say_stray(chosen: Topic, stray: dict[str, bool]) -> None:
    """A word for the papers ``chosen``'s model pins that examples.json does not list,
    which the teach drops, with the command that teaches them again."""
    if not stray:
        return
    them = "it" if len(stray) == 1 else "them"
    say(
        f"Note: the model of {chosen.name} also pinned {_listed(sorted(stray))}, which "
        f"examples.json does not list (removed or edited by hand?). What examples.json "
        f"lists is what was taught, so this drops {them}; "
        f"'{_teach_command(chosen.slug, stray)}' teaches {them} again."
    )


def _forget(
    chosen: Topic,
    store: Store,
    *,
    last: str = "",
    as_json: bool = False,
    also: AbstractSet[str] = frozenset(),
) -> None:
    """Drop a topic's examples and taught model: a default topic goes back to its
    shipped model, one of the user's to its query; and retag. ``last``: the examples
    --unteach named, when they were the last ones (what was asked is what is said).
    ``as_json``: what it did is printed as JSON too (:func:`_teach_json`). ``also``:
    papers forgotten that examples.json did not list (the model pinned them)."""
    pinned = teach.pinned(chosen)
    taught, had_model = teach.delete_teaching(chosen.slug)
    taught = {**{pid: pinned.get(pid, True) for pid in also}, **taught}
    count = len(taught)
    named = f"{chosen.name} ({chosen.slug})"
    if not count and not had_model:
        say(f"{named} has no taught examples and no taught model: nothing to forget.")
        if as_json:
            emit_json(_teach_json(chosen, store, {}, model="unchanged"))
        return
    catalog = load_catalog()
    # As the topic now decides: an entry of yours that redefines a default topic as
    # it was keeps that topic's shipped model ("its query" was said of it).
    after = catalog.by_slug(chosen.slug)
    back_to = "shipped" if after is not None and after.model_file else "query"
    back = "its shipped model" if back_to == "shipped" else "its query"
    if last:
        done = f"Forgot {last}, the last of the examples taught to {named}"
    elif count:
        done = f"Forgot the {_examples_count(count)} taught to {named}"
    else:
        done = f"Deleted the model taught to {named}"
    say(f"{done}: it decides by {back} again.")
    if count:
        # The examples file was their one record: the log keeps what they were.
        _log_taught(chosen.slug, forgot=taught)
    try:
        changes = _retag(store, catalog)
    except KeyboardInterrupt:
        say("The stored papers' tags catch up with it on the next command.")
        raise
    _say_changes(chosen.slug, changes, store, catalog)
    if as_json:
        emit_json(_teach_json(chosen, store, changes, forgot=taught, model=back_to))


def _say_against_implications(catalog: Catalog, ids: list[str]) -> None:
    """A word for each paper of ``ids`` taught into a topic and out of one it implies:
    the teaching holds, so it stays out of that one, where the user who taught it in
    may have expected the implication to put it there too."""
    for aid in ids:
        taught = catalog.pins.get(aid) or {}
        for below, inside in taught.items():
            if inside:
                continue
            topic = catalog.by_slug(below)
            above = [s for s in catalog.implied_by(below) if taught.get(s)]
            if above and topic is not None:
                names = " and ".join(catalog.find(s).name for s in above)
                say(
                    f"Note: {aid} stays out of {topic.name} ({below}), as you "
                    f"taught it, though {names} implies it "
                    f"('papertrack topics teach {below} --unteach {aid}' lets it in)."
                )


#: What a teach did to the model, by :func:`_teach_json`'s "model", as its text says it.
_FITTED = {
    "shipped": "its shipped model is back, as it decides every example so",
    "kept": "its model is kept",
    "pinned": "pinned them",
    "refit": "refit its model",
}
#: The same, after --unteach alone: what became of the model for the examples left.
_FITTED_LEFT = {
    **_FITTED,
    "shipped": "its shipped model is back, as it decides every example left so",
    # A topic deciding by its query has no model to refit ("refit its model" was said).
    "pinned": "it decides by its query, the examples left as taught",
}


def _fitted_said(outcome: str, *, left: bool, was_shipped: bool) -> str:
    """What a teach did to the model, as its text says it. ``was_shipped``: the model
    was the shipped one before (pinned to examples it already decided), so it did not
    come "back"."""
    said = (_FITTED_LEFT if left else _FITTED)[outcome]
    if outcome == "shipped" and was_shipped:
        said = said.replace("is back", "stays")
    return said


def _teach_json(
    chosen: Topic,
    store: Store,
    changes: Mapping[str, Retagged],
    *,
    taught_in: Iterable[str] = (),
    taught_out: Iterable[str] = (),
    forgot: Iterable[str] = (),
    examples: Mapping[str, bool] | None = None,
    model: str,
    threshold: float | None = None,
    before: int | None = None,
) -> dict[str, Any]:
    """What a teach did, for `topics teach --json`: the papers it taught and forgot,
    the examples kept, what became of the model, and every paper that gained or lost
    the topic's tag (and the tags of the topics its implications moved), by id. The
    text names the newest three of each; a script, or a user checking a teach that
    moved 200 papers, wants them all."""
    kept = examples or {}
    change = changes.get(chosen.slug)
    now = store.count(chosen.slug) if store.exists() else 0
    if before is None:
        before = now - change.gained + change.lost if change is not None else now
    return {
        "topic": chosen.slug,
        "name": chosen.name,
        "taught": {"in": sorted(taught_in), "out": sorted(taught_out)},
        "forgot": sorted(forgot),
        "examples": {
            "in": sum(1 for inside in kept.values() if inside),
            "out": sum(1 for inside in kept.values() if not inside),
        },
        "model": model,
        "threshold": threshold,
        "before": before,
        "count": now,
        "tagged": sorted(change.gained_ids) if change is not None else [],
        "untagged": sorted(change.lost_ids) if change is not None else [],
        "implied": {
            slug: {
                "tagged": sorted(other.gained_ids),
                "untagged": sorted(other.lost_ids),
                "count": store.count(slug),
            }
            for slug, other in sorted(changes.items())
            if slug != chosen.slug and (other.gained or other.lost)
        },
    }


@contextlib.contextmanager
def _teaching() -> Iterator[None]:
    """Held while a command reads, refits and writes what topics were taught
    (examples.json and models/ in the data home): two teaches at once would each
    write back the examples they read, and one's would be lost."""
    from papertrack.files import Lock, temp_files

    lock = Lock(paths.home() / paths.TEACH_LOCK, lock_timeout(), "the lock on taught topics")
    try:
        lock.acquire()
    except KeyboardInterrupt:
        # Else only "Everything written before the interruption is kept", of nothing.
        say("Nothing was changed: stopped while waiting for the lock on taught topics.")
        raise
    try:
        # What a teach killed while writing left (of processes gone): never read,
        # and nothing else removed it.
        examples = paths.user_examples_file()
        left = temp_files(paths.user_models_dir())
        left += [t for t in temp_files(examples.parent) if t.name.startswith(f".{examples.name}.")]
        for temp in left:
            with contextlib.suppress(OSError):
                temp.unlink()
        yield
    finally:
        lock.release()


def _model_entry(slug: str) -> str:
    """A taught model's file as the user's topics.toml names it."""
    return f"models/{slug}.json"


def _drop_model(edit: TopicEdit) -> str:
    """Delete the model taught to an earlier definition of the topic ``edit`` added
    or redefined by its query (it decides by that query), if any; what to tell the
    user of that and of the examples kept for its slug."""
    from pathlib import Path

    from papertrack.userfile import Action

    slug = edit.slug
    path = paths.user_model_file(slug)
    # A topic whose slug was renamed by hand may still name the old slug's file: it
    # goes where that topic finds it (models/ITS-SLUG.json), not with this topic.
    owner = next(
        (
            t
            for t in edit.catalog.topics
            if t.slug != slug and t.model_file and Path(t.model_file).resolve() == path.resolve()
        ),
        None,
    )
    had_model = path.is_file()
    # A topic that decided by its query kept only its taught papers in that file: no
    # model the user knew of ("The model taught to its earlier definition is
    # deleted", of a topic that never had one).
    pins_only = had_model and _decides_by_query(path)
    if had_model and owner is not None:
        own = paths.user_model_file(owner.slug)
        if not own.exists():
            path.replace(own)
        had_model = False
    if path.is_file():
        path.unlink()
    taught = teach.examples_of(slug)
    if edit.action == Action.added and taught:
        # No topic had the slug: these were taught to one topics.toml no longer has,
        # and a new topic inherited them without a word.
        ins = sum(taught.values())
        model = "a model and " if had_model else ""
        return (
            f". {model.capitalize()}{_examples_count(len(taught))} ({ins:,} in, "
            f"{len(taught) - ins:,} out) were kept for '{slug}' from an earlier topic of "
            "that slug, which topics.toml no longer has (renamed or deleted by hand?): "
            + ("the model is deleted; " if had_model else "")
            + f"the examples teach this topic. 'papertrack topics teach {slug} --forget' "
            "drops them"
        )
    if not had_model or (pins_only and not taught):
        return ""
    count = len(taught)
    kept = f"its {count:,} examples stay" if count != 1 else "its 1 example stays"
    if pins_only:
        return f". {kept.capitalize()}, decided as taught with this definition"
    if not taught:
        return ". The model taught to its earlier definition is deleted"
    return (
        f". The model taught to its earlier definition is deleted; {kept}, decided as "
        "taught with this definition"
    )


def _decides_by_query(model_file: Path) -> bool:
    """Whether a taught model file is of a topic that decides by its query (the file
    then only pins the papers taught); False when it cannot be read."""
    import json

    try:
        meta = json.loads(model_file.read_text(encoding="utf-8")).get("meta") or {}
    except (OSError, ValueError, AttributeError):
        return False
    return isinstance(meta, dict) and meta.get("decide") == "query"


def _apply_examples(slug: str) -> None:
    """Fit the topic ``slug`` as now defined to the examples kept for it (a topic
    redefined by its query keeps what it was taught)."""
    topic = load_catalog().find(slug)
    store = open_store(create=True)
    taught = teach.examples_of(slug)
    known = {p.arxiv_id: p for p in teach.stored_papers(store, list(taught))}
    _refit(store, topic, taught, known)


def _taught_kept(slug: str) -> str:
    """What a hidden default topic keeps of its teaching, to say so (it comes back with it)."""
    count = len(teach.examples_of(slug))
    if not count:
        return ""
    return (
        f" Its {count:,} taught example{'s are' if count != 1 else ' is'} kept for when it "
        "comes back."
    )


def _forget_examples(slug: str) -> tuple[str, dict[str, bool]]:
    """Delete a topic's taught model and examples (it is removed); what to tell the
    user, and the examples deleted (to say how to teach them again)."""
    taught, had_model = teach.delete_teaching(slug)
    count = len(taught)
    parts = ["model"] if had_model else []
    if count:
        parts.append(f"{count:,} taught example{'s' if count != 1 else ''}")
    if not parts:
        return "", taught
    verb = "was" if parts == ["model"] or parts == ["1 taught example"] else "were"
    return f" Its {' and its '.join(parts)} {verb} deleted.", taught


def _remake_command(
    topic: Topic, taught: dict[str, bool], like: bool, replace: bool = False
) -> str:
    """The commands that make the removed ``topic`` again and teach it ``taught``;
    ``like``: it was made from examples (`topics add --like`), with or without a query;
    ``replace``: in place of the default topic its removal brought back.
    A topic of --like, --query and --decide both was offered back as its query alone,
    then taught: a topic of 1,099 papers deciding by the query, where it had 540."""
    import shlex

    from papertrack.topics import slugify

    ins = sorted(pid for pid, inside in taught.items() if inside)
    outs = {pid: False for pid, inside in taught.items() if not inside}
    made = ["papertrack topics add", shlex.quote(topic.name)]
    if topic.slug != slugify(topic.name):
        made += ["--slug", topic.slug]
    if topic.description:
        made += ["--description", shlex.quote(topic.description)]
    if like and ins:
        made += ["--like", *ins]
        then = _teach_command(topic.slug, outs) if outs else ""
    else:
        then = _teach_command(topic.slug, taught) if taught else ""
    if topic.query.strip():
        # As written: a query of several lines may hold comments.
        made += ["--query", shlex.quote(topic.query.strip())]
        made += [f"-c {shlex.quote(c)}" for c in topic.categories]
        if like and ins and topic.decide == "both":
            made += ["--decide", "both"]  # "either", with --like and --query, is the default
    if replace:
        made += ["--replace"]
    return " ".join(made) + (f" && {then}" if then else "")


def _note_orphaned_teaching(
    catalog: Catalog, examples: dict[str, dict[str, bool]], topic: Topic
) -> None:
    """Say so when examples are kept for slugs no topic has: a topic renamed by hand
    in topics.toml (its slug follows its name) left its teaching under the old slug,
    and teaching it under the new one starts from nothing. Only for a topic of the
    user's: a default one is no renamed topic (a `topics add --like` cut short
    before it wrote topics.toml was offered as one to Agentic RL)."""
    if topic.source == "default":
        return
    for old, taught in sorted(examples.items()):
        if taught and catalog.by_slug(old) is None and old not in catalog.hidden:
            say(
                f"Note: {len(taught):,} example{'s are' if len(taught) != 1 else ' is'} kept "
                f"for '{old}', which is no longer a topic (renamed in topics.toml?). To "
                f"teach {'them' if len(taught) != 1 else 'it'} to this topic too: "
                f"{_teach_command(topic.slug, taught)}"
            )


def _teach_command(slug: str, taught: dict[str, bool]) -> str:
    """The command that teaches ``slug`` the examples ``taught`` again."""
    ins = sorted(pid for pid, inside in taught.items() if inside)
    outs = sorted(pid for pid, inside in taught.items() if not inside)
    return " ".join(["papertrack topics teach", slug, *ins, *(["--not", *outs] if outs else [])])


def _learn_from_examples(
    name: str,
    slug: str,
    query: str | None,
    category: list[str] | None,
    like: list[str],
    rule: str = "",
) -> Any:
    """Fit a topic's model from the papers ``like`` names and keep them as its examples.

    Returns the fit (for its figures); the model file is :func:`_model_entry`.
    """
    from papertrack import training
    from papertrack.topics import Topic

    chosen_slug = slug
    draft = Topic(
        name=name,
        slug=chosen_slug,
        query=query or "",
        model_file=str(paths.user_model_file(chosen_slug)),
        categories=tuple(category or ()),
    )
    store = open_store(create=True)
    named = _taught_papers(store, like)
    for given in dict.fromkeys(like):
        note_other_version(given, named[given], "taking")  # as teach says it
    papers = {p.arxiv_id: p for p in named.values()}
    if len(papers) < len(like):
        # 'X Xv1 <URL of X>' made a topic of one example without a word.
        say(
            f"Note: the {len(like)} ids given name {counted(len(papers), 'paper')}: "
            "each is taken once."
        )
    taught = dict.fromkeys(papers, True)
    try:
        choice = _refit(store, draft, taught, papers, like=True, rule=rule, save=False)
    except KeyboardInterrupt:
        file = paths.user_topics_file()
        say(f"Nothing was added: {file} and the taught topics are as they were.")
        raise
    examples = training.load_examples(paths.user_examples_file())
    earlier = examples.get(chosen_slug) or {}
    dropped = {pid: inside for pid, inside in earlier.items() if pid not in taught}
    examples[chosen_slug] = taught
    with all_or_nothing():  # together, as a teach writes them
        training.save_examples(paths.user_examples_file(), examples)
        training.save_model(choice.model, paths.user_model_file(chosen_slug))
    if dropped:
        # --replace --like makes the topic anew from these papers: said, not silent,
        # and with the ids, which examples.json no longer holds.
        were = "was" if len(dropped) == 1 else "were"
        again = _teach_command(chosen_slug, dropped)
        say(
            f"The topic is made from {'this' if len(taught) == 1 else 'these'} "
            f"{_examples_count(len(taught))} alone: "
            f"{_examples_count(len(dropped))} taught before {were} dropped. To teach "
            f"{'it' if len(dropped) == 1 else 'them'} again: {again}"
        )
    return choice


#: A topic made from examples that takes more than this share of the stored papers is
#: broad for one: one example tagged 2,437 of 83,510 real papers (2.9%), 16% of them
#: on its theme, while its report read "1 of 1 reach the threshold".
BROAD_SHARE = 0.01


def _share_over(taken: int, total: int) -> str:
    """``taken`` of ``total`` as a share above :data:`BROAD_SHARE`, never shown as it
    ("1.00%" read as the rule's 1%, which it is more than)."""
    shown = f"{100 * taken / total:.2f}%"
    return "just over 1%" if shown == f"{100 * BROAD_SHARE:.2f}%" else shown


def _say_breadth(store: Store | None, slug: str, name: str) -> None:
    """A note when a topic made from examples takes a broad share of the store."""
    if store is None or not store.exists():
        return
    taken, total = store.count(slug), store.count()
    if total >= 1000 and taken > BROAD_SHARE * total:
        import shlex

        from papertrack import training

        taught = training.load_examples(paths.user_examples_file()).get(slug, {})
        ins = sorted(pid for pid, inside in taught.items() if inside)
        outs = {pid: False for pid, inside in taught.items() if not inside}
        # The topic's own name and examples: with placeholders, the same command
        # without --like was refused, and fewer ids dropped the others. Papers
        # taught out are taught again after it (add has no --not).
        made = shlex.join(["papertrack", "topics", "add", name, "--like", *ins])
        made += " --query QUERY --decide both --replace"
        if outs:
            made += f" && {_teach_command(slug, outs)}"
        say(
            f"Note: it takes {taken:,} of the {total:,} stored papers "
            f"({_share_over(taken, total)}), broad for a topic made from examples. A query "
            f"its papers must also match narrows it: {made}. A paper taught --not stays "
            "out, and moves no other."
        )


def _added_message(edit: Any) -> tuple[str, Store | None]:
    """What `topics add` did, and how many stored papers the topic now holds; and
    the store, retagged (None: there is none yet, or the retag waits)."""
    from papertrack.userfile import Action

    what = "Redefined the topic" if edit.action is Action.replaced else "Added the topic"
    where = "in" if edit.action is Action.replaced else "to"
    message = f"{what} {quoted(edit.name)} ({edit.slug}) {where} {edit.path}"
    if edit.action is Action.overrode:
        message += "; it replaces the default topic with this slug"
    store = _tags_follow(edit.catalog.with_models(paths.user_models_dir()))
    if store is not None:
        count = store.count(edit.slug)
        # "are in it", not "match": the topic holds the papers a topic implying it
        # has, and those taught, too ("389 stored papers match" of a query 290 match).
        verb = "is in it" if count == 1 else "are in it"
        message += f". {counted(count, 'stored paper')} {verb}"
    return message, store


def _paper_line(paper: Any) -> str:
    """A paper on one line of a message: id, paper date and the start of its title."""
    from papertrack.render import format_date
    from papertrack.text import shorten

    # Dates padded to one width ("Jun 9, 2026" and "Jun 16, 2026"): the titles line up.
    head = f"  {paper.arxiv_id}  {format_date(paper.paper_date):<12}  "
    return head + shorten(paper.shown_title, _title_room(len(head)))


def _title_room(used: int) -> int:
    """How much of a title a message line has room for: the rest of a terminal's
    width (a 50-column terminal wrapped every paper line mid-word), else 70."""
    import sys

    from papertrack.cli.common import err

    if not sys.stderr.isatty():
        return 70
    return max(20, min(70, err().width - used - 1))


def _say_newest(store: Store, slug: str, examples: set[str]) -> None:
    """The newest few papers a new topic took, besides its examples: what it is about."""
    newest = store.latest(slug, limit=3, keep=lambda p: p.arxiv_id not in examples)
    if newest:
        besides = " besides your examples" if examples else ""
        say("\n".join([f"The newest{besides}:", *map(_paper_line, newest)]))


def _examples_count(count: int) -> str:
    return counted(count, "example")


def _not_both(taught: AbstractSet[str], unteach: list[str]) -> None:
    """Refuse a paper named both to teach (``taught``: their ids) and to --unteach,
    before anything else is said of it ("not an example taught to" the topic, when it
    was not taught yet).

    Raises:
        UsageError: one is.
    """
    from papertrack.export import resolve_id

    for given in unteach:
        try:
            key = resolve_id(given)
        except UsageError:
            continue  # said by _unteach, as before
        if given in taught or key in taught:
            raise UsageError(f"{given} is named both to teach and --unteach. Name it once")


def _unteach(
    topic: Topic, taught: dict[str, bool], ids: list[str], pinned: Mapping[str, bool]
) -> set[str]:
    """Take the examples ``ids`` names (any id form) out of ``taught``; their ids.
    ``pinned``: the papers the topic's model pins.

    Raises:
        UsageError: an id names no example taught to ``topic``.
    """
    from papertrack.export import resolve_id

    # Papers the model pins that examples.json lacks (removed, or cut short by hand)
    # are taught all the same: `explain` says so and offers this to take them back.
    forgotten = set()
    for given in ids:
        key = given if given in taught or given in pinned else resolve_id(given)
        if key not in taught and key not in pinned and key not in forgotten:
            raise UsageError(
                f"{given} is not an example taught to {quoted(topic.name)}. "
                f"'papertrack topics show {topic.slug}' lists the ones it has"
            )
        taught.pop(key, None)
        forgotten.add(key)
    return forgotten


def _already_said(
    already: list[str], named: dict[str, Any], topic: Topic, ids: list[str], *, refit: bool = True
) -> str:
    """ "Already so before: 2508.13167 was in GUI Agents and 2508.12365 out; ..." """
    # Each paper once: "2606.26080v1 arXiv:2606.26080" named one paper twice.
    ins = list(dict.fromkeys(named[pid].arxiv_id for pid in already if pid in ids))
    outs = list(dict.fromkeys(named[pid].arxiv_id for pid in already if pid not in ids))
    parts = []
    if ins:
        parts.append(f"{_listed(ins)} {'was' if len(ins) == 1 else 'were'} in {topic.name}")
    if outs:
        parts.append(f"{_listed(outs)} {'was' if len(outs) == 1 else 'were'} out")
    kept = (
        "It is kept as an example, so it stays so"
        if len(ins) + len(outs) == 1
        else "They are kept as examples, so they stay so"
    )
    # A topic that decides by its query has no model to score them.
    decider = "its query matches" if topic.decide == "query" else "the model scores"
    said = f"Already so before this teach: {' and '.join(parts)}. {kept} whatever {decider}"
    if not refit:
        said += "; the model is not refit for what it already decides, so no other paper moves"
    return said + "."


def _listed(items: list[str]) -> str:
    """ "A", "A and B", "A, B and C" (the first five, then "and N more")."""
    shown = items[:5] + ([f"{len(items) - 5:,} more"] if len(items) > 5 else [])
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"


def _taught_papers(store: Store, ids: list[str]) -> dict[str, Any]:
    """The stored papers named by ``ids`` (any id form), by the id as given."""
    from papertrack.export import find_paper

    found: dict[str, Any] = {}
    missing: list[str] = []
    for given in ids:
        paper = find_paper(store, given)
        if paper is None:
            if given not in missing:  # named twice, said once
                missing.append(given)
        else:
            found[given] = paper
    if missing:
        # Not a usage error: the ids are well formed, the store lacks them (exit 1,
        # as for show and explain). All of them at once: one a run made the user
        # run it again for each.
        first, more = missing[:10], len(missing) - 10
        shown = ", ".join(first) + (f" and {more} more" if more > 0 else "")
        if len(first) > 1 and more <= 0:
            shown = f"{', '.join(first[:-1])} and {first[-1]}"
        raise PapertrackError(
            f"no paper{'s' if len(missing) > 1 else ''} {shown} in the store. Ingest "
            f"{'it' if len(missing) == 1 else 'them'} first ('papertrack ingest FILE' or "
            "'papertrack fetch'), then run this command again"
        )
    return found


def _refit(
    store: Store,
    topic: Topic,
    taught: dict[str, bool],
    papers: dict[str, Any],
    *,
    like: bool | None = None,
    rule: str = "",
    save: bool = True,
) -> Any:
    """Fit ``topic``'s model from the shipped labels plus ``taught``; write it (unless
    not ``save``: the caller writes it with the examples); return it.

    ``like``: the topic was made from examples (``topics add --like``); None: as
    its model says (False for a topic without a model of its own yet), and so is
    ``rule`` then (``add --like --query --decide both`` stays "both").
    """
    from papertrack import training

    if like is None:
        like = teach.taught_like(topic)
        if like and not rule and topic.query.strip() and topic.decide == "both":
            rule = "both"
    with busy(f"Fitting the model of {topic.name} to the labelled papers and your examples"):
        labelled = training.load_labelled(paths.labels_file())
        texts = {pid: training.from_paper(p) for pid, p in papers.items()}
        choice = training.teach(
            topic, taught, texts, labelled, like=like, folder=store.vectors_dir, rule=rule
        )
    if save:
        training.save_model(choice.model, paths.user_model_file(topic.slug))
    return choice


def _retag(store: Store, catalog: Catalog, pins: PinsMoved | None = None) -> dict[str, Retagged]:
    """Retag the store for ``catalog`` (a spinner on a terminal); what changed, per slug.
    A store not made yet is left so: a retag would make an empty one, where a --db
    with a typo in it then read as a store with no papers. ``pins``: a teach that
    kept its model, whose retag may read the pinned papers alone."""
    if not store.exists():
        return {}
    with busy("Retagging stored papers") as progress:
        return store.refresh(catalog, progress, pins)


def _say_changes(
    slug: str,
    changes: dict[str, Retagged],
    store: Store,
    catalog: Catalog,
    named: AbstractSet[str] = frozenset(),
    before: int | None = None,
) -> None:
    """What a retag did to ``slug``: the counts, then the newest papers that gained
    and lost the tag (besides the papers ``named``: those just taught), so a user can
    see whether that is what they meant; then the counts of the topics its
    implications moved with it. ``before``: the papers in the topic before the teach."""
    _say_topic_changes(slug, changes, store, named, before)
    linked = catalog.family({slug}) - {slug}
    for topic in catalog.topics:
        change = changes.get(topic.slug)
        if topic.slug in linked and change and (change.gained or change.lost):
            say(_implied_move(topic, change.gained, change.lost, store.count(topic.slug)))


def _implied_move(topic: Topic, gained: int, lost: int, now: int) -> str:
    """The line that says how a topic's implications moved ``topic``: a teach and a
    removal say it alike."""
    moved = ", ".join(
        part
        for part, count in ((f"+{gained:,} tagged", gained), (f"{lost:,} untagged", lost))
        if count
    )
    return (
        f"Through the topics' implications, {topic.name} ({topic.slug}): {moved}; "
        f"{counted(now, 'stored paper')} in it now."
    )


def _sizes(slug: str, changes: dict[str, Retagged], store: Store) -> tuple[int, int] | None:
    """How many stored papers ``slug`` held before a retag, and holds now (None: the
    retag did not touch it)."""
    change = changes.get(slug)
    if change is None:
        return None
    now = store.count(slug)
    return now - change.gained + change.lost, now


def _swung(before: int, now: int) -> bool:
    """Whether a topic of at least ten papers grew by half or more, or lost a third or
    more. Doubling was the mark, and four examples that took a topic made from six
    from 439 papers to 774, about one in four of the new ones on its theme, said
    nothing."""
    return before >= 10 and (2 * now >= 3 * before or 3 * now <= 2 * before)


def _say_swing(
    slug: str, changes: dict[str, Retagged], store: Store, undo: dict[str, bool] | None = None
) -> None:
    """A word when a teach swung the topic's size (:func:`_swung`): a topic made from a few
    examples moves its threshold with each one (223 papers became 605, mostly off
    its theme, on three more examples), and the counts alone did not say so.
    ``undo``: the examples this teach forgot, as they were taught (the command that
    takes the teach back teaches them again)."""
    sizes = _sizes(slug, changes, store)
    if sizes is None or not _swung(*sizes):
        return
    before, now = sizes
    back = (
        f"'{_teach_command(slug, undo)}' teaches again what this forgot"
        if undo
        else f"'papertrack topics teach {slug} --unteach ID...' takes back an example"
    )
    change = round(100 * (now - before) / before)
    say(
        f"Note: the topic went from {counted(before, 'paper')} to {now:,} ({change:+d}%). "
        f"Look over the papers above; {back}."
    )


def _say_against(
    slug: str,
    changes: dict[str, Retagged],
    store: Store,
    now_in: list[str],
    now_out: list[str],
    forgotten: set[str],
    back: tuple[list[str], list[str]] | None = None,
) -> None:
    """A word when a teach moved the topic against what was taught: papers taught in
    and the topic smaller. Two right examples more took a topic made from examples
    from 180 papers to 130, all 50 on its theme (its threshold rises as its examples
    grow alike), and the advice after it was to teach more. ``back``: the examples
    to unteach to undo it, in and out (this teach's, and those pinned since the
    model was last fitted, which this refit fitted on too)."""
    sizes = _sizes(slug, changes, store)
    if sizes is None or forgotten or bool(now_in) == bool(now_out) or _swung(*sizes):
        return  # (a swing: _say_swing has said it)
    before, now = sizes
    net = now - before
    undo_in, undo_out = back if back is not None else (now_in, now_out)
    if now_in and net < 0 and -net >= max(5, before // 20):
        what, ids = "in", undo_in
    elif now_out and net > 0 and net >= max(5, before // 20):
        what, ids = "out", undo_out
    else:
        return
    say(
        f"Note: teaching papers {what} left the topic {'smaller' if what == 'in' else 'larger'} "
        f"({counted(before, 'paper')} to {now:,}): a model moves its threshold with its examples. "
        f"Look over the {'untagged' if what == 'in' else 'newly tagged'} papers above; "
        f"'papertrack topics teach {slug} --unteach {' '.join(ids)}' takes "
        f"{'it' if len(ids) == 1 else 'them'} back."
    )


def _say_topic_changes(
    slug: str,
    changes: dict[str, Retagged],
    store: Store,
    named: AbstractSet[str] = frozenset(),
    before: int | None = None,
) -> None:
    from papertrack.writer import RETAG_SAMPLES

    change = changes.get(slug)
    gained, lost = (change.gained, change.lost) if change else (0, 0)
    now = store.count(slug)
    lines = [
        f"+{gained:,} paper{'s' if gained != 1 else ''} tagged, {lost:,} untagged; "
        f"{counted(now, 'stored paper')} in the topic now."
    ]
    if change is None and before is not None:
        # Another command took the store lock first and retagged for the new model:
        # "+0 papers tagged, 0 untagged" read as a teach that changed nothing.
        lines = [
            "Another papertrack command retagged the stored papers for it first: "
            f"{counted(before, 'stored paper')} in the topic before, {now:,} now."
        ]
    if change:
        for label, papers, count in (
            ("Newly tagged", change.newly, gained),
            ("Untagged", change.dropped, lost),
        ):
            # The papers just taught moved as asked: the others are what to look at.
            others = [p for p in papers if p.arxiv_id not in named]
            taught = sum(p.arxiv_id in named for p in papers)
            count -= taught
            shown = others[:RETAG_SAMPLES]
            if shown:
                newest = "the newest " if count > len(shown) else ""
                besides = ", besides the papers taught" if taught else ""
                lines.append(f"{label} ({newest}{len(shown)}{besides}):")
                lines += map(_paper_line, shown)
    say("\n".join(lines))


def _say_figures(choice: Any) -> None:
    figures = choice.rules.get(choice.decide)
    if choice.decide == "query" and not figures:
        # A query topic taught a few papers: its model decides nothing, and a note on
        # how that model did read as if it did.
        say("It decides by its query; the papers you taught are decided as taught.")
    elif not figures:
        say(
            f"It decides by {choice.decide}. "
            f"{choice.model.meta.get('note', 'Not measured')}. Teach it more examples "
            "with 'papertrack topics teach' to refine it and see how it does."
        )
        held = choice.model.meta.get("held_out_recall")
        if held is not None and held > 0.5:
            # "4 of 4 reach the threshold" read as a topic found whole; bench/like.py,
            # topics of the labelled papers made from 4 examples: recall 0.46.
            say(
                "Note: that says your examples are alike, not how much of the topic it "
                "finds: made from a few examples, topics of papertrack's labelled papers "
                "found about half of their papers. Teach it the papers it misses."
            )
        if held is not None and held < 0.5:
            # "1 of 4 reach the threshold" read as neutrally as "4 of 4".
            say(
                "Note: most of your examples, each held out, are not found by a model made "
                "from the others: they share little. The topic may be two topics, or a "
                "broad one; look over its papers with 'papertrack latest'."
            )
    elif choice.model.meta.get("like"):
        # A topic the labels do not know: the labelled papers are its background, read
        # as out of it, papers on its theme among them too.
        say(
            f"It decides by {choice.decide}; on its examples, cross-validated against the "
            f"labelled papers as background: recall {figures['recall']:.2f}, precision "
            f"{figures['precision']:.2f} (at least: papers on your theme among the "
            "labelled ones count as errors)."
        )
    else:
        # Counted, as `topics show` counts them: "on its examples" read as the two
        # papers just taught, where a default topic learns from ~13,000 labelled ones.
        learnt = choice.model.meta.get("examples") or {}
        on = (
            f"on the {learnt['positives']:,} papers in and {learnt['negatives']:,} out it "
            "learns from"
            if isinstance(learnt.get("positives"), int) and isinstance(learnt.get("negatives"), int)
            else "on its examples"
        )
        say(
            f"It decides by {choice.decide}; {on}, 5-fold cross-validated: precision "
            f"{figures['precision']:.2f}, recall {figures['recall']:.2f}, F1 {figures['f1']:.2f}."
        )


@topics_app.command("teach", epilog=EXIT_CODES, cls=many_values("--not", "--unteach"))
def topics_teach(
    topic: Annotated[
        str,
        typer.Argument(
            metavar="TOPIC", help="Topic name or slug, any case.", autocompletion=complete_topic
        ),
    ],
    ids: Annotated[
        list[str] | None,
        typer.Argument(metavar="[ID]...", help="Stored papers that are in the topic."),
    ] = None,
    out_ids: Annotated[
        list[str] | None,
        typer.Option(
            "--not", metavar="ID...", help="Stored papers that are not in the topic (--not A B)."
        ),
    ] = None,
    forget: Annotated[
        bool, typer.Option("--forget", help="Drop every example taught to this topic first.")
    ] = False,
    unteach: Annotated[
        list[str] | None,
        typer.Option(
            "--unteach",
            metavar="ID...",
            help="Examples to forget (--unteach A B): the model decides those papers again.",
        ),
    ] = None,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Also print what it did as JSON: every paper tagged and untagged, by id.",
        ),
    ] = False,
) -> None:
    """Teach a topic with examples: refit its model, retag, and say what changed.

    Examples are kept in your data home (examples.json). The topic's model is refit
    from the labelled papers shipped with papertrack plus every example you taught
    it, cross-validated to choose how it decides (model, query, either or both),
    and the stored papers are retagged at once. Works for default topics and your own.

    Examples:

    \b
        papertrack topics teach llm-agent-training 2605.08721 --not 2606.06560
        papertrack topics teach gui-agents --not 2508.13186
        papertrack topics teach gui-agents --unteach 2508.13186
        papertrack topics teach gui-agents --forget
        papertrack topics teach llm-agent-training 2605.08721 --json
    """
    from papertrack import training

    with errors():
        if forget and unteach:
            raise UsageError(
                "--forget drops every example and --unteach only the ones it names. Use one"
            )
        if not ids and not out_ids and not forget and not unteach:
            # `teach 2605.08721`: the topic left out is an unknown topic, not a teach
            # with no papers.
            load_catalog().find(topic)
            raise UsageError(
                "name papers to teach with: IDs in the topic, --not ID for papers outside "
                "it, --unteach ID for examples to forget"
            )
        with _teaching():
            # Read under the lock: another teach, add or remove may have changed it.
            catalog = load_catalog()
            chosen = catalog.find(topic)
            store = open_store(create=True)
            given = [*(ids or []), *(out_ids or [])]
            examples = training.load_examples(paths.user_examples_file())
            # What the topic was taught before this teach (``taught`` below is a copy).
            earlier = examples.get(chosen.slug, {})
            if not earlier and not forget:
                _note_orphaned_teaching(catalog, examples, chosen)
            from_examples = chosen.source != "default" and teach.made_from_examples(chosen)
            if forget and not given and from_examples:
                raise UsageError(
                    f"{chosen.name} is your own topic, made from your examples: without them "
                    "it has nothing to learn from. Start it again from other papers "
                    f"('papertrack topics teach {chosen.slug} --forget ID...'), take some "
                    f"back with --unteach ID, or remove it with 'papertrack topics remove "
                    f"{chosen.slug}'"
                )
            if forget and not given:
                # Before the tags are brought up to date: a damaged taught model, which
                # would stop that, is what --forget deletes.
                _forget(chosen, store, as_json=as_json)
                return
            # A teach interrupted before its retag is finished here: said, as its
            # own report would have been ("nothing changed" hid +4 -4).
            fresh_tags(store, catalog, said=True)
            named = _taught_papers(store, given)
            for pid in given:
                note_other_version(pid, named[pid], "teaching")
            both = {named[pid].arxiv_id for pid in ids or []}
            both &= {named[pid].arxiv_id for pid in out_ids or []}
            if both:
                raise UsageError(f"{sorted(both)[0]} is named both in and --not. Name it once")
            taught = {} if forget else dict(examples.get(chosen.slug, {}))
            named_ids = {paper.arxiv_id for paper in named.values()}
            # What the model pins, read before its file is replaced.
            pinned_before = teach.pinned(chosen)
            _not_both(named_ids, unteach or [])
            forgotten = _unteach(chosen, taught, unteach or [], pinned_before)
            again = forgotten & named_ids
            if again:
                raise UsageError(f"{min(again)} is named both to teach and --unteach. Name it once")
            if forget:
                # --forget with papers named: every earlier example goes, and is said
                # to go (a paper taught out came back as "newly tagged", unexplained).
                forgotten = set(earlier) - named_ids
            # Papers the model pins that examples.json does not list (removed, or cut
            # by hand): examples.json is the record of what was taught, so a teach
            # drops them, and they went unsaid (unteaching one dropped the others).
            stray = {
                pid: inside
                for pid, inside in pinned_before.items()
                if pid not in earlier and pid not in forgotten and pid not in named_ids
            }
            if forgotten and not taught and not given and not from_examples:
                # Every example unlearned: as --forget, a default topic goes back to
                # its shipped model, one of the user's to its query.
                _say_stray(chosen, stray)
                _forget(
                    chosen,
                    store,
                    last=_listed(sorted(forgotten)),
                    as_json=as_json,
                    also=forgotten | set(stray),
                )
                return
            # Each paper named, and whether it is taught in.
            asked = [(p, True) for p in ids or []] + [(p, False) for p in out_ids or []]
            # Taught the other way before: a wrong id pasted, or a change of mind.
            flipped = sorted(
                named[pid].arxiv_id
                for pid, inside in asked
                # As taught before this run: --forget emptied ``taught``, and a paper
                # it taught again the other way was then not said to be.
                if earlier.get(named[pid].arxiv_id) is (not inside)
            )
            for pid in ids or []:
                taught[named[pid].arxiv_id] = True
            for pid in out_ids or []:
                taught[named[pid].arxiv_id] = False
            if (
                given
                and not forget
                and not forgotten
                and taught == examples.get(chosen.slug)
                and teach.is_current(chosen)
                and teach.pinned(chosen) == taught
            ):
                # Every paper named was taught so already: a refit would give the same
                # model after seconds of work, and "Taught 1 paper" read as a change.
                # (Not so of a model an older papertrack made: `topics show` tells the
                # user to teach it again to refit it, and that did nothing.)
                say(
                    f"{'Each paper' if len(given) > 1 else 'The paper'} named was taught to "
                    f"{chosen.name} ({chosen.slug}) so already: nothing more to teach."
                )
                if as_json:
                    emit_json(_teach_json(chosen, store, {}, examples=taught, model="unchanged"))
                return
            if from_examples and not any(taught.values()):
                raise UsageError(
                    f"{chosen.name} is made from your examples, and this would leave it none "
                    "in the topic. Name at least one paper that is in it"
                )
            # A paper the topic already decides as taught: teaching it pins it, and the
            # refit may still move others; a user who thought it missed wants to know.
            already = [
                pid
                for pid, inside in asked
                if (chosen.slug in named[pid].tags) == inside and named[pid].arxiv_id not in earlier
            ]
            # Every paper named is decided so already: pinned as examples, the model
            # kept. A refit for them moved other tags (+99 and -27 for a paper the
            # topic of 30,000 already left out), where the user meant no change.
            # Papers taught only out of a topic made from examples: pinned out, its
            # model kept. Refit, it moved other papers where the user meant none, and
            # took in papers like those taught out (8 image-watermarking papers taught
            # out of "LLM watermarking" brought 3 more in).
            # (With papers taught in that it already takes, the same: taught in two
            # teaches the model was kept twice and one paper moved, taught in one it
            # was refit and 347 moved.)
            # Whether the topic decides each paper named as it is taught.
            so = [
                (
                    inside,
                    teach.decided_so(catalog, chosen.slug, named[pid], inside, named[pid].tags),
                )
                for pid, inside in asked
            ]
            only_out = (
                bool(out_ids)
                and teach.taught_like(chosen)
                and all(decided for inside, decided in so if inside)
            )
            decided_so = all(decided for _, decided in so)
            keep_model = (
                given
                and (decided_so or only_out)
                and not forgotten
                and not flipped
                and chosen.model_file
                and chosen.decide != "query"
                and teach.is_current(chosen)
                and teach.keeps_for_already_so(chosen)
            )
            unfitted: list[str] = []
            # Papers taught before that this store lacks (the store may have changed
            # with --db) are still pinned; they are fitted on where the labels have them.
            known = (
                {}
                if keep_model
                else {p.arxiv_id: p for p in teach.stored_papers(store, list(taught))}
            )
            # Every example decided so by the shipped model: that model, whatever the
            # teaches that led here (a teach in, then out).
            shipped = (
                None
                if keep_model or chosen.decide == "query"
                else teach.shipped_agrees(chosen, taught, known)
            )
            cut_before: float | None = None
            count_before = store.count(chosen.slug) if store.exists() else None
            # The model is the shipped one, pinned to examples it decides as taught.
            was_shipped = bool(teach.model_meta(chosen).get("copy_of")) and teach.is_current(chosen)
            pins = None
            choice = None
            if not keep_model and shipped is None:
                unfitted = teach.unfitted(chosen, taught)  # read before the refit replaces it
                if chosen.decide != "query":
                    cut_before = training.model_threshold(chosen)
                try:
                    choice = _refit(store, chosen, taught, known, save=False)
                except KeyboardInterrupt:
                    say("Nothing was taught: the examples and the model are as they were.")
                    raise
            examples[chosen.slug] = taught
            # The examples and the model are put in place together: killed between the
            # two, a model pinned to a paper examples.json did not name was refit
            # without it by the next teach, and the paper left the topic without a
            # word. The examples go first: were the renames cut short between them,
            # the next teach fits on the examples.
            if not forget:
                _say_stray(chosen, stray)
            with all_or_nothing():
                training.save_examples(paths.user_examples_file(), examples)
                if keep_model:
                    from papertrack.writer import PinsMoved

                    pins = PinsMoved(catalog, chosen.slug, teach.pin(chosen, taught))
                elif shipped is not None:
                    teach.pin(shipped, taught)
                else:
                    assert choice is not None
                    training.save_model(choice.model, paths.user_model_file(chosen.slug))
                    if chosen.decide == "query" and choice.decide == "query":
                        # Decided by its query before and after, its model unused: only
                        # the papers pinned otherwise can move, and the retag reads those
                        # alone (it read all 83,510 papers, 5 s, to untag one).
                        from papertrack.writer import PinsMoved

                        moved = frozenset(
                            pid
                            for pid in pinned_before.keys() | taught.keys()
                            if pinned_before.get(pid) != taught.get(pid)
                        )
                        pins = PinsMoved(catalog, chosen.slug, moved)
            refreshed = load_catalog()
            try:
                changes = _retag(store, refreshed, pins)
            except KeyboardInterrupt:
                say(
                    "The model is refit and your examples are kept; the stored papers' "
                    "tags catch up with it on the next command."
                )
                raise
            except PapertrackError as exc:
                # (A damaged week file.) What is done is said, not only what failed.
                said = PapertrackError(
                    f"the model of {chosen.name} is refit and your examples are kept, but "
                    f"the stored papers could not be retagged: {str(exc).rstrip('.')}"
                )
                said.exit_code = exc.exit_code
                raise said from exc
            now_in = {named[pid].arxiv_id for pid in ids or []}
            now_out = {named[pid].arxiv_id for pid in out_ids or []}
            n_in = sum(taught.values())
            # What this run taught, then every example kept, when earlier teaches
            # left some: "2 papers in and 2 out" after teaching one of each read as
            # this run's.
            n_out = len(taught) - n_in
            # What each forgotten example was taught as, for the log.
            were = {
                pid: earlier.get(pid, pinned_before.get(pid, True))
                for pid in forgotten | (set() if forget else set(stray))
            }
            # What became of the model (the key of `--json`'s "model").
            outcome = (
                "shipped"
                if shipped is not None
                else "kept"
                if choice is None
                else "pinned"
                if choice.decide == "query" and not choice.rules.get("query")
                else "refit"
            )
            if not given:
                say(
                    f"Forgot {_examples_count(len(forgotten))} taught to {chosen.name} "
                    f"({chosen.slug}); "
                    f"{_fitted_said(outcome, left=True, was_shipped=was_shipped)}. "
                    f"{n_in:,} in and {n_out:,} out are left."
                )
                _log_taught(chosen.slug, forgot=were)
            else:
                plural = "s" if len(now_in) != 1 else ""
                told = f"{len(now_in):,} paper{plural} in and {len(now_out):,} out"
                if forgotten:
                    told += f" and forgot {_examples_count(len(forgotten))}"
                if (n_in, n_out) != (len(now_in), len(now_out)):
                    told += f" ({n_in:,} in and {n_out:,} out in all)"
                fitted = _fitted_said(outcome, left=False, was_shipped=was_shipped)
                say(f"Taught {chosen.name} ({chosen.slug}) {told}; {fitted}.")
                if choice is None and only_out and len(already) < len(given):
                    besides = ", nor for papers taught in that it already takes" if ids else ""
                    say(
                        "A topic made from examples is not refit for papers taught out"
                        f"{besides}: they stay as taught, and no other paper moves."
                    )
                # The log names the papers, so what was taught can be looked back on.
                _log_taught(
                    chosen.slug,
                    now_in,
                    now_out,
                    forgot=were,
                )
                if already:
                    say(_already_said(already, named, chosen, ids or [], refit=choice is not None))
                for aid in flipped:
                    now = "in" if taught[aid] else "out"
                    was = "out" if taught[aid] else "in"
                    say(f"Note: {aid} was taught {was} before; it is taught {now} now.")
                _say_against_implications(refreshed, sorted(now_in | now_out))
            if choice is not None:
                _say_figures(choice)
                cut = choice.model.threshold
                if (
                    cut_before is not None
                    and choice.decide != "query"
                    and f"{cut:+.2f}" != f"{cut_before:+.2f}"
                ):
                    # Two examples moved it from +0.59 to +0.50 and 26 other papers in,
                    # and only a later explain showed it.
                    say(
                        f"The refit model's threshold is {cut:+.2f} (it was {cut_before:+.2f}); "
                        "papers near it moved with the refit ('papertrack topics explain ID "
                        f"{chosen.slug}' shows a paper's score)."
                    )
            size_before = count_before
            if refreshed.fingerprints().get(chosen.slug) == catalog.fingerprints().get(chosen.slug):
                count_before = None  # the teach changed no tag of it: none to retag
            _say_changes(
                chosen.slug,
                changes,
                store,
                refreshed,
                named_ids,
                count_before,
            )
            _say_swing(
                chosen.slug, changes, store, {a: earlier[a] for a in forgotten if a in earlier}
            )
            # Taught before without a refit, and fitted on in this one: taken back too.
            back_in = sorted(now_in | {a for a in unfitted if taught.get(a)})
            back_out = sorted(now_out | {a for a in unfitted if taught.get(a) is False})
            _say_against(chosen.slug, changes, store, sorted(now_in), sorted(now_out), forgotten,
                         back=(back_in, back_out))  # fmt: skip
            if choice is not None and choice.model.meta.get("like"):
                _say_breadth(store, chosen.slug, chosen.name)
            if as_json:
                emit_json(
                    _teach_json(
                        chosen,
                        store,
                        changes,
                        taught_in=now_in,
                        taught_out=now_out,
                        forgot=set(were),
                        examples=taught,
                        model=outcome,
                        threshold=(
                            choice.model.threshold
                            if choice is not None and choice.decide != "query"
                            else None
                        ),
                        before=size_before,
                    )
                )


@topics_app.command("remove", epilog=EXIT_CODES)
def topics_remove(
    topic: Annotated[
        str,
        typer.Argument(
            metavar="TOPIC", help="Topic name or slug, any case.", autocompletion=complete_topic
        ),
    ],
) -> None:
    """Remove a topic: delete your own, or hide a default one.

    Your topic's entry is deleted from your topics file (its comments with it; the
    rest of the file stays). If it replaced a default topic, that default comes
    back: remove it again to hide it. A default topic is hidden with a
    'hidden = true' entry in your file; delete that entry to bring it back.
    Stored papers lose the topic's tag straight away.

    Examples:

    \b
        papertrack topics remove agent-benchmarks
        papertrack topics remove "GUI Agents"
    """
    from papertrack.userfile import Action, remove_topic

    with errors(), _teaching():
        store = open_store(create=True)
        tagged = ""
        from papertrack.errors import UnknownTopicError

        earlier = load_catalog()
        try:
            gone: Topic | None = earlier.find(topic)
        except UnknownTopicError:
            gone = None  # an entry skipped for a mistake made by hand (remove_topic finds it)
        linked = sorted(earlier.family({gone.slug}) - {gone.slug}) if gone else []
        # Read before the entry goes: its model file is named there.
        like = gone is not None and gone.source != "default" and teach.made_from_examples(gone)
        sizes = {slug: store.count(slug) for slug in linked} if store.exists() else {}
        if store.exists() and gone is not None:
            before = store.count(gone.slug)
            tagged = f" {before:,} stored paper{'s' if before != 1 else ''} had its tag."
        edit = remove_topic(paths.user_topics_file(), paths.default_topics_file(), topic)
        again = ""
        if edit.action is Action.hid:
            message = (
                f"Hid the default topic {quoted(edit.name)} ({edit.slug}): {edit.path} now holds "
                f"'hidden = true' for it (delete that entry to bring it back).{tagged}"
            )
            message += _taught_kept(edit.slug)
        else:
            named = f"{quoted(edit.name)} ({edit.slug})"
            message = f"Removed your topic {named} from {edit.path}.{tagged}"
            # What it was taught belongs to it: left behind, it would take over the next
            # topic with this slug (the default it brings back, say).
            forgot, taught = _forget_examples(edit.slug)
            message += forgot
            them = "it" if len(taught) == 1 else "them"
            if taught and edit.restored is None and gone is not None:
                # No topic has the slug now: 'topics teach SLUG' could not run.
                again = f"To make it again with {them}: {_remake_command(gone, taught, like)}"
            elif taught and like and gone is not None and edit.restored is not None:
                # Taught to the default brought back, examples of another topic made
                # from them would move the shipped topic's tags.
                remake = _remake_command(gone, taught, like, replace=True)
                again = f"To make it again with {them}: {remake}"
            elif taught:
                # Their ids, or they could not be taught again (to the default brought back).
                again = f"To teach {them} again: {_teach_command(edit.slug, taught)}"
            if edit.restored is not None and edit.restored.source == "user":
                # The file defined the slug twice: its second entry is the topic now.
                message += (
                    f" Your other entry with this slug, {quoted(edit.restored.name)}, is the "
                    f"topic now; run 'papertrack topics remove {edit.slug}' again to remove it too."
                )
            elif edit.restored is not None:
                message += (
                    f" The default topic {quoted(edit.restored.name)} with this slug is back; run "
                    f"'papertrack topics remove {edit.slug}' again to hide it too."
                )
        now = edit.catalog.with_models(paths.user_models_dir())
        retagged = _tags_follow(now)
        if retagged is not None:
            # Its implications went with it: the papers only it put in another topic
            # leave that one too (a teach says so; a removal was silent).
            for slug, before in sizes.items():
                after = retagged.count(slug)
                linked_topic = now.by_slug(slug)
                if after != before and linked_topic is not None:
                    gained, lost = max(after - before, 0), max(before - after, 0)
                    message += " " + _implied_move(linked_topic, gained, lost, after)
        from papertrack.cli.digest import is_followed

        if edit.restored is None and is_followed(edit.slug):
            message += (
                f" You still follow it, and the digest warns of that: run 'papertrack "
                f"unfollow {edit.slug}'."
            )
        say(message + (f"\n{again}" if again else ""))


# `topics test` and `topics explain` live in their own module; importing it registers them.
from papertrack.cli import topics_try  # noqa: E402, F401
