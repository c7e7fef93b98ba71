"""`topics teach`: examples refit a topic's model, the store is retagged, and the
command says what changed (and, with --unteach or --forget, takes examples back)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Annotated, Any

import typer

from papertrack import paths, teach
from papertrack.cli.common import (
    busy,
    complete_topic,
    errors,
    fresh_tags,
    load_catalog,
    log,
    note_other_version,
    open_store,
    say,
)
from papertrack.cli.output import emit_json
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
from papertrack.text import counted, quoted

if TYPE_CHECKING:
    from papertrack.store import Store
    from papertrack.topics import Catalog, Topic
    from papertrack.writer import PinsMoved, Retagged


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
        f"'{teach_command(chosen.slug, stray)}' teaches {them} again."
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
        done = f"Forgot the {examples_count(count)} taught to {named}"
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


def _say_against_implications(
    catalog: Catalog, ids: list[str], slug: str, store: Store | None = None
) -> None:
    """A word for each paper of ``ids`` taught out of a topic that another topic it is
    in implies: the teaching holds, so it stays out, where the user may have expected
    the implication to put it there, or may have meant to correct the other topic.
    Taught into that other topic, or tagged so by it (read from ``store``): a paper
    taught out of LLM tool use while RL for tool use held it said nothing of it.
    Only of the topic taught now (``slug``), taught out or taught in: the same note
    came again at every later teach of the paper, into any topic."""
    tags = (
        {aid: set(p.tags) for aid, p in store.get_many(ids).items()}
        if store is not None and ids
        else {}
    )
    for aid in ids:
        taught = catalog.pins.get(aid) or {}
        for below, inside in taught.items():
            if inside:
                continue
            topic = catalog.by_slug(below)
            if topic is None:
                continue
            above = [s for s in catalog.implied_by(below) if taught.get(s)]
            if slug != below and slug not in above:
                continue
            if above:
                names = " and ".join(catalog.find(s).name for s in above)
                say(
                    f"Note: {aid} stays out of {topic.name} ({below}), as you "
                    f"taught it, though {names} implies it "
                    f"('papertrack topics teach {below} --unteach {aid}' lets it in)."
                )
                continue
            tagged = [
                s
                for s in catalog.implied_by(below)
                if s in tags.get(aid, ()) and taught.get(s) is None
            ]
            if tagged:
                names = " and ".join(catalog.find(s).name for s in tagged)
                verb = "implies" if len(tagged) == 1 else "imply"
                fixes = " and ".join(f"'papertrack topics teach {s} --not {aid}'" for s in tagged)
                which = "that" if len(tagged) == 1 else "those"
                say(
                    f"Note: {aid} stays out of {topic.name} ({below}), as you taught it, "
                    f"though it is in {names}, which {verb} it. If it is not in {which} "
                    f"either: {fixes}."
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
                f"{teach_command(topic.slug, taught)}"
            )


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
        said += (
            "; the model is not refit for what it already decides, so no other paper "
            "moves now (the next refit counts them as examples)"
        )
    return said + "."


def _listed(items: list[str]) -> str:
    """ "A", "A and B", "A, B and C" (the first five, then "and N more")."""
    shown = items[:5] + ([f"{len(items) - 5:,} more"] if len(items) > 5 else [])
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"


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
            say(implied_move(topic, change.gained, change.lost, store.count(topic.slug)))


def _others_moved(moved: Retagged | None, named: Mapping[str, Any]) -> bool:
    """Whether a retag moved papers besides those this teach named."""
    if moved is None:
        return False
    taught = {paper.arxiv_id for paper in named.values()}
    return any(pid not in taught for pid in (*moved.gained_ids, *moved.lost_ids))


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


#: A note names up to this many examples to unteach (more: "ID...").
_UNDO_NAMED = 10


def _say_swing(
    slug: str,
    changes: dict[str, Retagged],
    store: Store,
    undo: dict[str, bool] | None = None,
    taught_now: Sequence[str] = (),
) -> None:
    """A word when a teach swung the topic's size (:func:`_swung`): a topic made from a few
    examples moves its threshold with each one (223 papers became 605, mostly off
    its theme, on three more examples), and the counts alone did not say so.
    ``undo``: the examples this teach forgot, as they were taught (the command that
    takes the teach back teaches them again); ``taught_now``: those it taught, and
    those pinned since the last fit, which its refit fitted on (unteaching them
    takes it back)."""
    sizes = _sizes(slug, changes, store)
    if sizes is None or not _swung(*sizes):
        return
    before, now = sizes
    if undo:
        back = f"'{teach_command(slug, undo)}' teaches again what this forgot"
    elif 0 < len(taught_now) <= _UNDO_NAMED:
        # The biggest moves got the vaguest advice ("--unteach ID..."), where a
        # smaller one against what was taught named the ids.
        them = "it" if len(taught_now) == 1 else "them"
        back = (
            f"'papertrack topics teach {slug} --unteach {' '.join(taught_now)}' takes {them} back"
        )
    else:
        back = f"'papertrack topics teach {slug} --unteach ID...' takes back an example"
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
                lines += map(paper_line, shown)
    say("\n".join(lines))


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
        with teaching_lock():
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
            named = taught_papers(store, given)
            for pid in given:
                note_other_version(pid, named[pid], "teaching")
            now_in = {named[pid].arxiv_id for pid in ids or []}
            now_out = {named[pid].arxiv_id for pid in out_ids or []}
            both = now_in & now_out
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
                    choice = refit(store, chosen, taught, known, save=False, new=named_ids)
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
            # "Your examples are kept" read oddly after an --unteach, and "refit" after
            # a teach that kept the model.
            saved = (
                f"the model of {chosen.name} is refit and the examples are saved"
                if choice is not None
                else f"the examples of {chosen.name} are saved"
            ) + " as this teach left them"
            try:
                changes = _retag(store, refreshed, pins)
            except KeyboardInterrupt:
                say(
                    f"{saved[0].upper()}{saved[1:]}; the stored papers' tags catch up with it "
                    "on the next command."
                )
                raise
            except PapertrackError as exc:
                # (A damaged week file.) What is done is said, not only what failed.
                said = PapertrackError(
                    f"{saved}, but the stored papers could not be retagged: {str(exc).rstrip('.')}"
                )
                said.exit_code = exc.exit_code
                raise said from exc
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
                    f"Forgot {examples_count(len(forgotten))} taught to {chosen.name} "
                    f"({chosen.slug}); "
                    f"{_fitted_said(outcome, left=True, was_shipped=was_shipped)}. "
                    f"{n_in:,} in and {n_out:,} out are left."
                )
                _log_taught(chosen.slug, forgot=were)
            else:
                plural = "s" if len(now_in) != 1 else ""
                told = f"{len(now_in):,} paper{plural} in and {len(now_out):,} out"
                if forgotten:
                    told += f" and forgot {examples_count(len(forgotten))}"
                if (n_in, n_out) != (len(now_in), len(now_out)):
                    told += f" ({n_in:,} in and {n_out:,} out in all)"
                fitted = _fitted_said(outcome, left=False, was_shipped=was_shipped)
                say(f"Taught {chosen.name} ({chosen.slug}) {told}; {fitted}.")
                if choice is None and only_out and len(already) < len(given):
                    besides = ", nor for papers taught in that it already takes" if ids else ""
                    say(
                        "A topic made from examples is not refit for papers taught out"
                        f"{besides}: they stay as taught, and no other paper moves now "
                        "(the next refit counts them as examples)."
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
                _say_against_implications(refreshed, sorted(now_in | now_out), chosen.slug, store)
            if choice is not None:
                say_figures(choice)
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
                elif (
                    cut_before is not None
                    and choice.decide != "query"
                    and _others_moved(changes.get(chosen.slug), named)
                ):
                    # Ten papers besides the two taught moved at an unchanged +0.60, and
                    # nothing said why.
                    say(
                        f"The refit model's threshold stays {cut:+.2f}; its weights moved with "
                        "the examples, and papers near the threshold with them ('papertrack "
                        f"topics explain ID {chosen.slug}' shows a paper's score)."
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
            # Taught before without a refit, and fitted on in this one: taken back too.
            back_in = sorted(now_in | {a for a in unfitted if taught.get(a)})
            back_out = sorted(now_out | {a for a in unfitted if taught.get(a) is False})
            _say_swing(
                chosen.slug,
                changes,
                store,
                {a: earlier[a] for a in forgotten if a in earlier},
                back_in + back_out,
            )
            _say_against(chosen.slug, changes, store, sorted(now_in), sorted(now_out), forgotten,
                         back=(back_in, back_out))  # fmt: skip
            if choice is not None and choice.model.meta.get("like"):
                say_breadth(store, chosen.slug, chosen.name, narrowed=choice.decide == "both")
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
