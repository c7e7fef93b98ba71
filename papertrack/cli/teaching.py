"""What `topics add --like` and `topics teach` share: the lock on taught topics, the
refit, and what they say of a topic's model and its papers."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from papertrack import paths, teach
from papertrack.cli.common import busy, say
from papertrack.errors import PapertrackError
from papertrack.files import lock_timeout
from papertrack.text import counted, name_some

if TYPE_CHECKING:
    from papertrack.store import Store
    from papertrack.topics import Topic


@contextlib.contextmanager
def teaching_lock() -> Iterator[None]:
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


def teach_command(slug: str, taught: dict[str, bool]) -> str:
    """The command that teaches ``slug`` the examples ``taught`` again."""
    ins = sorted(pid for pid, inside in taught.items() if inside)
    outs = sorted(pid for pid, inside in taught.items() if not inside)
    return " ".join(["papertrack topics teach", slug, *ins, *(["--not", *outs] if outs else [])])


#: A topic made from examples that takes more than this share of the stored papers is
#: broad for one: one example tagged 2,437 of 83,510 real papers (2.9%), 16% of them
#: on its theme, while its report read "1 of 1 reach the threshold".
BROAD_SHARE = 0.01


def share_over(taken: int, total: int) -> str:
    """``taken`` of ``total`` as a share above :data:`BROAD_SHARE`, never shown as it
    ("1.00%" read as the rule's 1%, which it is more than)."""
    shown = f"{100 * taken / total:.2f}%"
    return "just over 1%" if shown == f"{100 * BROAD_SHARE:.2f}%" else shown


def say_breadth(store: Store | None, slug: str, name: str, *, narrowed: bool = False) -> None:
    """A note when a topic made from examples takes a broad share of the store;
    ``narrowed``: it decides by a query as well already (--decide both), which was
    told to add one."""
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
            made += f" && {teach_command(slug, outs)}"
        which = "A narrower query" if narrowed else "A query"
        say(
            f"Note: it takes {taken:,} of the {total:,} stored papers "
            f"({share_over(taken, total)}), broad for a topic made from examples. {which} "
            f"its papers must also match narrows it: {made}. A paper taught --not stays "
            "out, and moves no other."
        )


def paper_line(paper: Any) -> str:
    """A paper on one line of a message: id, paper date and the start of its title."""
    from papertrack.render import format_date
    from papertrack.text import shorten

    # Dates padded to one width ("Jun 9, 2026" and "Jun 16, 2026"): the titles line up.
    head = f"  {paper.arxiv_id}  {format_date(paper.paper_date):<12}  "
    return head + shorten(paper.shown_title, title_room(len(head)))


def title_room(used: int) -> int:
    """How much of a title a message line has room for: the rest of a terminal's
    width (a 50-column terminal wrapped every paper line mid-word), else 70."""
    import sys

    from papertrack.cli.common import err

    if not sys.stderr.isatty():
        return 70
    return max(20, min(70, err().width - used - 1))


def examples_count(count: int) -> str:
    return counted(count, "example")


def taught_papers(store: Store, ids: list[str]) -> dict[str, Any]:
    """The stored papers named by ``ids`` (any id form), by the id as given."""
    from papertrack.export import find_papers

    stored = find_papers(store, ids)
    found = {given: stored[given] for given in ids if given in stored}
    # Named twice, said once.
    missing = [given for given in dict.fromkeys(ids) if given not in stored]
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


def refit(
    store: Store,
    topic: Topic,
    taught: dict[str, bool],
    papers: dict[str, Any],
    *,
    like: bool | None = None,
    rule: str = "",
    save: bool = True,
    new: Iterable[str] = (),
) -> Any:
    """Fit ``topic``'s model from the shipped labels plus ``taught``; write it (unless
    not ``save``: the caller writes it with the examples); return it.

    ``like``: the topic was made from examples (``topics add --like``); None: as
    its model says (False for a topic without a model of its own yet), and so is
    ``rule`` then (``add --like --query --decide both`` stays "both"). ``new``: the
    papers this teach named, of which those papertrack's labels have the other way
    are said.
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
    _say_against_labels(topic, {pid: taught[pid] for pid in new if pid in taught}, labelled)
    if save:
        training.save_model(choice.model, paths.user_model_file(topic.slug))
    return choice


def _say_against_labels(topic: Topic, named: Mapping[str, bool], labelled: Sequence[Any]) -> None:
    """A word for the papers taught otherwise than papertrack's labels have them: the
    refit learns the user's decision instead, and a count of examples one off was
    all that showed it."""
    from papertrack.topics import as_bundled
    from papertrack.training import TRAIN

    if not named or not as_bundled(topic):
        return
    against = sorted(
        paper.arxiv_id
        for paper in labelled
        if paper.split == TRAIN
        and paper.arxiv_id in named
        and (topic.slug in paper.labels) is not named[paper.arxiv_id]
    )
    if against:
        say(
            f"Note: papertrack's labelled papers have {name_some(against, 5)} the other way "
            f"for {topic.name}; the refit learns from your decision instead."
        )


def implied_move(topic: Topic, gained: int, lost: int, now: int) -> str:
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


def say_figures(choice: Any) -> None:
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
