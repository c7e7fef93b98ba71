"""`topics test` and `topics explain`: try a query or a topic, and say why a paper is tagged."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from papertrack.categories import check_categories
from papertrack.cli.common import (
    EXIT_CODES,
    NO_PAPERS_YET,
    AsOfOpt,
    JsonOpt,
    ViewFormat,
    ViewFormatOpt,
    busy,
    errors,
    load_catalog,
    note_operator_words,
    note_other_version,
    note_query_store,
    note_topic_store,
    open_store,
    out,
    say,
)
from papertrack.cli.output import emit_json
from papertrack.cli.topics import (
    CategoryOpt,
    as_of_date,
    counted_day,
    counted_store,
    model_info,
    topics_app,
)
from papertrack.errors import UnknownTopicError
from papertrack.models import paper_filter

if TYPE_CHECKING:
    from papertrack.topics import Catalog, Topic


# --------------------------------------------------------------------------- test


def _parses(text: str) -> bool:
    """Whether ``text`` is a query papertrack can read."""
    from papertrack.errors import QuerySyntaxError
    from papertrack.query import parse_query

    try:
        parse_query(text)
    except QuerySyntaxError:
        return False
    return True


def _definition(catalog: Catalog, text: str, categories: list[str]) -> tuple[Topic, bool]:
    """The topic ``text`` names, or an unsaved topic with ``text`` as its query."""
    import re

    from papertrack.topics import Topic

    # Only plain words can name a topic: anything with query syntax is a query.
    if re.fullmatch(r"[\w .-]+", text.strip()):
        try:
            found = catalog.find(text)
        except UnknownTopicError as exc:
            if catalog.withheld(text):
                # A hidden default (or a skipped entry) was tested as a phrase query,
                # exit 0, with no word: a script got that figure as the topic's.
                raise
            # A topic's name mistyped reads as a query: say so, with the names it is near
            # (not when it is no query either: 'agent AND' got the note, then its error).
            close = str(exc).partition(" Did you mean: ")[2].partition("?")[0]
            if close and _parses(text):
                say(
                    f"Note: no topic is named {text.strip()!r}, so it is tried as a query. "
                    f"Did you mean: {close}?"
                )
        else:
            if text.strip() != found.slug:
                # 'reinforcement learning' tested the topic's model (576 papers) where
                # search ran the words (513), and nothing said how to test the words.
                say(
                    f"Note: {text.strip()!r} names the topic {found.name} ({found.slug}), "
                    "which is tested. To test the words as a query, put them in "
                    f"parentheses: '({text.strip()})'."
                )
            return found, True
    unsaved = Topic(name="Query", slug="query", query=text, categories=tuple(categories))
    note_operator_words(text)
    return unsaved, False


@topics_app.command("test", epilog=EXIT_CODES)
def topics_test(
    definition: Annotated[
        str,
        typer.Argument(
            metavar="QUERY|TOPIC", help="A query, or the name or slug of a topic to test."
        ),
    ],
    category: CategoryOpt = None,
    as_of: AsOfOpt = None,
    sample: Annotated[
        int, typer.Option("--sample", min=0, help="How many matching papers to show.")
    ] = 5,
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed", help="Seed of the sample, to get the same one again.", show_default=False
        ),
    ] = None,
    fmt: ViewFormatOpt = ViewFormat.table,
    as_json: JsonOpt = False,
) -> None:
    """Try a query or a topic on the stored papers, without saving anything.

    Prints how many papers match and their share of the store, the matches in
    each of the 12 ISO weeks (Monday start, UTC) ending with --as-of, and a sample
    of matching papers (random; the seed is printed, pass it as --seed to get
    the same sample again). A topic's name or slug tests that topic; anything
    else is read as a query, with --category as 'topics add' takes it. With
    --as-of, only the papers dated up to that day are counted and sampled, as
    'topics list --as-of' counts them. Reads the whole store, one week at a time.

    Examples:

    \b
        papertrack topics test 'agent* AND benchmark*'
        papertrack topics test '"world model*" AND (llm* OR agent*)' -c 'cs.*' --sample 10
        papertrack topics test llm-agent-training --seed 7 --json
    """
    import secrets

    from papertrack.diagnose import try_topic

    with errors():
        as_of_date(as_of)  # a bad --as-of is refused before the catalog loads
        catalog = load_catalog()
        topic, saved = _definition(catalog, definition, category or [])
        store = counted_store(catalog) if saved else open_store()
        check_categories(store, category or [])
        if saved:
            # A topic's papers in these categories ('latest TOPIC -c' lists them);
            # read as a query, the slug found none.
            keep = paper_filter(category or [])
            note_topic_store(store, topic)
        else:
            keep = None
            note_query_store(store, topic.query)
        day = counted_day(store, as_of)  # as 'topics' and 'momentum' count
        chosen_seed = secrets.randbelow(10_000) if seed is None else seed
        with busy(f"Trying {topic.name} on every stored paper") as progress:
            trial = try_topic(
                store,
                topic,
                as_of=day,
                saved=saved,
                sample=sample,
                seed=chosen_seed,
                progress=progress,
                keep=keep,
                until_as_of=as_of is not None,
            )
        model = model_info(topic) if saved else {}
        if as_json or fmt is ViewFormat.json:
            emit_json({**trial.to_dict(), **model})
        else:
            from papertrack import render

            title = (
                f"{topic.name} ({topic.slug})"
                if saved
                else f"Query: {' '.join(topic.query.split())}"
            )
            if category:
                title += f" in {', '.join(category)}"
            console = out()
            console.print(render.trial_view(trial, title, console.width))
            figures = model.get("examples")
            if figures:
                say(
                    f"It decides by {model['decide']}; on the {figures['positives']:,} "
                    f"labelled papers in and {figures['negatives']:,} out it learns from, "
                    "5-fold cross-validated: precision "
                    f"{figures['precision']:.2f}, recall {figures['recall']:.2f}, "
                    f"F1 {figures['f1']:.2f}."
                )
            elif model.get("note"):
                say(f"It decides by {model['decide']}. {model['note']}.")
        if not store.exists() or store.count() == 0:
            say(NO_PAPERS_YET)
        elif trial.total == 0:
            # With --as-of before the first paper: "No papers in the store yet. Run
            # 'papertrack ingest'" of a store of 83,510 papers.
            from papertrack.dates import shown_day

            first = store.stats().first_date
            since = f" (the first is from {shown_day(first)})" if first else ""
            say(
                f"Note: no stored paper is dated up to {shown_day(day)}{since}. "
                "Choose a later --as-of."
            )


# --------------------------------------------------------------------------- explain


@topics_app.command("explain", epilog=EXIT_CODES)
def topics_explain(
    arxiv_id: Annotated[
        str,
        typer.Argument(
            metavar="ARXIV_ID",
            help="A stored paper: 2508.13167, 2508.13167v2, arXiv:2508.13167 or its URL.",
        ),
    ],
    topic: Annotated[
        str | None,
        typer.Argument(
            metavar="[TOPIC]",
            help="A topic to explain, also (above all) when the paper is not in it.",
        ),
    ] = None,
    fmt: ViewFormatOpt = ViewFormat.table,
    as_json: JsonOpt = False,
) -> None:
    """Explain which topics a paper is in: what put it in each (its model, its query,
    a topic that implies it, your teaching) and which query terms were found where;
    then the topics you taught it out of.

    With a TOPIC, goes through that topic's conditions (its category filter and
    each AND-ed part of its query) and says which the paper meets; when it is not
    in the topic, says why not.

    Examples:

    \b
        papertrack topics explain 2508.13167
        papertrack topics explain https://arxiv.org/abs/2508.13167v2 gui-agents
        papertrack topics explain arXiv:2508.13167 llm-agent-training --json
    """
    from papertrack.diagnose import explain
    from papertrack.export import find_paper, no_such_paper

    with errors():
        catalog = load_catalog()
        chosen = catalog.find(topic) if topic is not None else None
        store = open_store()
        # As typed first (a feed's own key, such as a doi.org link), as show finds it.
        paper = find_paper(store, arxiv_id) if store.exists() else None
        if paper is None:
            raise no_such_paper(arxiv_id)
        note_other_version(arxiv_id, paper, "explaining")
        explanations = explain(paper, catalog, chosen)
        if as_json or fmt is ViewFormat.json:
            emit_json(
                {
                    "arxiv_id": paper.arxiv_id,
                    "title": paper.title,
                    "categories": list(paper.categories),
                    "topics": [
                        e.to_dict() for e in explanations if chosen or e.taught is not False
                    ],
                    # The topics the user taught it out of (with a TOPIC: that one, if so).
                    "taught_out": [e.slug for e in explanations if e.taught is False],
                }
            )
        else:
            from papertrack import render

            out().print(render.explanation_view(paper, explanations, asked=chosen is not None))
