"""Commands about topics: the `topics` group (list, show, add, remove). `topics teach`
is written in :mod:`papertrack.cli.topics_teach` and registered here; `topics test`
and `explain` are in :mod:`papertrack.cli.topics_try`."""

from __future__ import annotations

import re
from datetime import date
from typing import TYPE_CHECKING, Annotated, Any

import typer

from papertrack import paths, teach
from papertrack.categories import check_categories
from papertrack.cli import topics_teach
from papertrack.cli.common import (
    EXIT_CODES,
    AsOfOpt,
    Format,
    FormatOpt,
    JsonOpt,
    ViewFormat,
    ViewFormatOpt,
    app,
    complete_topic,
    errors,
    fresh_tags,
    load_catalog,
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
from papertrack.cli.teaching import (
    examples_count,
    implied_move,
    paper_line,
    refit,
    say_breadth,
    say_figures,
    taught_papers,
    teach_command,
    teaching_lock,
)
from papertrack.errors import PapertrackError, UsageError
from papertrack.files import all_or_nothing
from papertrack.text import counted, quoted, visible

if TYPE_CHECKING:
    from pathlib import Path

    from papertrack.store import Store
    from papertrack.topics import Catalog, Topic
    from papertrack.userfile import TopicEdit

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
        with teaching_lock():
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
                say_figures(choice)
            if store is not None:
                pinned = choice.model.meta.get("pinned") if choice is not None else None
                _say_newest(store, edit.slug, set(pinned or {}))
                if choice is not None:
                    say_breadth(store, edit.slug, edit.name, narrowed=choice.decide == "both")


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
            f". {model.capitalize()}{examples_count(len(taught))} ({ins:,} in, "
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
    refit(store, topic, taught, known)


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
        then = teach_command(topic.slug, outs) if outs else ""
    else:
        then = teach_command(topic.slug, taught) if taught else ""
    if topic.query.strip():
        # As written: a query of several lines may hold comments.
        made += ["--query", shlex.quote(topic.query.strip())]
        made += [f"-c {shlex.quote(c)}" for c in topic.categories]
        if like and ins and topic.decide == "both":
            made += ["--decide", "both"]  # "either", with --like and --query, is the default
    if replace:
        made += ["--replace"]
    return " ".join(made) + (f" && {then}" if then else "")


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
    named = taught_papers(store, like)
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
        choice = refit(store, draft, taught, papers, like=True, rule=rule, save=False)
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
        again = teach_command(chosen_slug, dropped)
        say(
            f"The topic is made from {'this' if len(taught) == 1 else 'these'} "
            f"{examples_count(len(taught))} alone: "
            f"{examples_count(len(dropped))} taught before {were} dropped. To teach "
            f"{'it' if len(dropped) == 1 else 'them'} again: {again}"
        )
    return choice


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
        message += _of_query_matches(store, edit.catalog.by_slug(edit.slug))
    return message, store


def _of_query_matches(store: Store, topic: Topic | None) -> str:
    """For a topic that decides by its model and its query both: how many stored
    papers its query matches, and how many of those the topic takes. Made from 4
    papers on speculative decoding with a query 272 papers match, "both" kept 151,
    6 of 20 of the others read plainly on topic, and nothing said the query took
    more. One pass over the papers the query may match (0.6 s for a narrow query,
    3.7 s for 'agent* OR model*' on 83,510 papers)."""
    from papertrack.diagnose import query_papers
    from papertrack.topics import Topic

    if topic is None or topic.decide != "both" or not topic.query.strip():
        return ""
    query = Topic(name="Query", slug="query", query=topic.query, categories=topic.categories)
    matched = taken = 0
    for _, paper in query_papers(store, query):
        matched += 1
        taken += topic.slug in paper.tags
    if matched == 0:
        return ""
    # (The topic also holds the papers taught in, and those a topic implying it has.)
    return (
        f"; its query matches {counted(matched, 'stored paper')}, of which the model of "
        f"your examples takes {taken:,}"
    )


def _say_newest(store: Store, slug: str, examples: set[str]) -> None:
    """The newest few papers a new topic took, besides its examples: what it is about."""
    newest = store.latest(slug, limit=3, keep=lambda p: p.arxiv_id not in examples)
    if newest:
        besides = " besides your examples" if examples else ""
        say("\n".join([f"The newest{besides}:", *map(paper_line, newest)]))


# Registered here, between add and remove, so that `topics --help` lists it there
# whichever module is imported first.
topics_app.command("teach", epilog=EXIT_CODES, cls=many_values("--not", "--unteach"))(
    topics_teach.topics_teach
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

    with errors(), teaching_lock():
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
                again = f"To teach {them} again: {teach_command(edit.slug, taught)}"
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
                    message += " " + implied_move(linked_topic, gained, lost, after)
        from papertrack.cli.digest import is_followed

        if edit.restored is None and is_followed(edit.slug):
            message += (
                f" You still follow it, and the digest warns of that: run 'papertrack "
                f"unfollow {edit.slug}'."
            )
        say(message + (f"\n{again}" if again else ""))


# `topics test` and `topics explain` live in a module of their own; importing it
# registers them.
from papertrack.cli import topics_try  # noqa: E402, F401
