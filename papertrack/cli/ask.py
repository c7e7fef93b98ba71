"""The ask command: answer a question from the stored papers, cited, offline."""

from __future__ import annotations

import re
import shlex
import sys
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer

from papertrack.cli.common import (
    EXIT_CODES,
    NO_PAPERS_YET,
    JsonOpt,
    app,
    as_of_moved,
    errors,
    fresh_tags,
    load_catalog,
    newest_paper_note,
    open_store,
    out,
    pick_format,
    say,
    since_on_store,
    span_on_store,
    store_is_empty,
)
from papertrack.cli.output import emit_json, emit_text
from papertrack.errors import PapertrackError, UnknownTopicError, UsageError
from papertrack.text import visible

if TYPE_CHECKING:
    from datetime import datetime

    from papertrack.ask import Answer
    from papertrack.models import Paper
    from papertrack.store import Store
    from papertrack.topics import Catalog


class AskFormat(StrEnum):
    text = "text"
    markdown = "markdown"
    json = "json"


#: Where an Ollama server listens unless PAPERTRACK_OLLAMA_URL says otherwise.
OLLAMA_URL = "http://127.0.0.1:11434"


@app.command(epilog=EXIT_CODES)
def ask(
    words: Annotated[
        list[str],
        typer.Argument(
            metavar="[TOPIC] QUESTION",
            help="A question; before it, a topic to ask about (name or slug).",
            show_default=False,
        ),
    ],
    topic_option: Annotated[
        str | None,
        typer.Option(
            "--topic",
            "-t",
            help="The topic to ask about, as search and export take it (or give it before "
            "the question).",
            show_default=False,
        ),
    ] = None,
    since: Annotated[
        str | None,
        typer.Option(
            "--since",
            "-s",
            help=(
                "Only papers dated on or after: 2026-05-01, '8 weeks ago' (on a store "
                "more than a week behind, '8 weeks ago' counts back from its newest paper; "
                "with --as-of, from that day)."
            ),
        ),
    ] = None,
    as_of: Annotated[
        str | None,
        typer.Option(
            "--as-of",
            help=(
                "Answer as the store stood that day (UTC): papers dated later are left "
                "out, and a question about what is new draws on the four weeks to it: "
                "2026-06-26, 'Jun 26 2026'."
            ),
            show_default=False,
        ),
    ] = None,
    limit: Annotated[
        int,
        typer.Option(
            "--limit",
            "-n",
            min=1,
            max=50,
            help="How many papers to draw on; the answer quotes at most 5 sentences of them.",
        ),
    ] = 8,
    fmt: Annotated[
        AskFormat, typer.Option("--format", "-f", help="text, markdown or json.")
    ] = AskFormat.text,
    as_json: JsonOpt = False,
    context: Annotated[
        bool,
        typer.Option(
            "--context", help="Print the cited context pack for a model instead of an answer."
        ),
    ] = False,
    llm: Annotated[
        bool,
        typer.Option(
            "--llm",
            help="Hand the context pack to a model you have: the 'llm' command if it is on "
            "PATH, else an Ollama server (PAPERTRACK_OLLAMA_URL, default " + OLLAMA_URL + ").",
        ),
    ] = False,
    model: Annotated[
        str | None,
        typer.Option("--model", "-m", help="The model --llm asks (llm's default if not given)."),
    ] = None,
) -> None:
    """Answer a question from the stored papers: the best sentences, each cited [n].

    Papers are ranked against the question with BM25 over the full-text index
    (newest first among equally relevant ones); the answer is made of the
    sentences of their abstracts that best match it, no two saying the same
    thing, followed by the cited papers. No model or key is needed; --context
    prints what a model would need to answer from the same papers, and --llm
    asks one you already have. A question about people ("who works on GUI
    agents?", "which labs study world models?") is answered with the authors,
    and affiliations, with the most of the papers that match.

    Examples:

    \b
        papertrack ask 'how are GUI agents trained with reinforcement learning?'
        papertrack ask llm-agent-training 'which rewards are used for multi-turn tool use?'
        papertrack ask -t gui-agents 'how do agents ground instructions on screen?' -f markdown
        papertrack ask 'world models for planning' --since '8 weeks ago' --format json
        papertrack ask 'agent memory' --context | llm -s 'Answer concisely'
        papertrack ask gui-agents 'who works on this?'
    """
    from papertrack.ask import (
        answer_question,
        asked_words,
        asks_new,
        asks_who,
        check_question,
        context_pack,
        question_words,
        respond,
        without_fields,
    )

    with errors():
        catalog = load_catalog()
        if len(words) > 2:
            raise UsageError(
                "give a topic and one question. Put the question in quotes: "
                "papertrack ask gui-agents 'how are they evaluated?'"
            )
        if topic_option is not None and len(words) == 2:
            raise UsageError(
                f"two topics given: {words[0]!r} and --topic {topic_option!r}. Give one"
            )
        named = words[0] if len(words) == 2 else topic_option
        if len(words) == 2 and _is_topic(catalog, words[1]) and not _is_topic(catalog, words[0]):
            # `ask 'how are agents grounded?' gui-agents`: the two the other way round.
            raise UsageError(
                f"{words[1]!r} is a topic, and a topic goes before the question. Write: "
                f"papertrack ask {shlex.quote(words[1])} {shlex.quote(words[0])}"
            )
        lone = words[0].strip() if len(words) == 1 else ""
        if "-" in lone and lone.casefold() in {t.slug for t in catalog.topics}:
            # `ask llm-agent-training` answered the slug as a question ("llm agent
            # training"): a topic with its question left out.
            raise UsageError(
                f"{lone!r} is a topic: ask it something. Write e.g. papertrack ask "
                f"{shlex.quote(lone)} 'what is new?'"
            )
        if context and llm:
            raise UsageError(
                "--context prints the papers for a model, and --llm asks one itself. Give one"
            )
        topic = catalog.find(named) if named is not None else None
        if model is not None and not llm:
            say(
                "Note: --model names the model --llm asks; without --llm the answer is "
                "papertrack's own, from the papers' sentences."
            )
        if (context or llm) and (as_json or fmt is not AskFormat.text):
            # The context pack and a model's reply are text; a script asking for
            # JSON must not get them quietly instead.
            raise UsageError(
                f"{'--context' if context else '--llm'} prints text, not --format/--json. "
                "Drop one of them"
            )
        question = " ".join(words[-1].split())
        if not question:
            raise UsageError("the question is empty. Ask something, e.g. 'how are agents trained?'")
        stripped, field = without_fields(question)
        if field is not None:
            # "author:lecun world models" answered with papers that say "authored".
            # Closed, as the question left it open ('author:"Yann LeCun world models'),
            # and quoted for the shell whatever it holds ("author:O'Brien" broke it).
            if field.count('"') % 2:
                field += '"'  # (a parenthesis inside the quote is text)
            elif field.count("(") > field.count(")"):
                field += ")" * (field.count("(") - field.count(")"))
            typed = shlex.quote(field)
            typed = typed if typed != field else f"'{field}'"
            say(
                f"Note: ask reads the question as words; {field.split(':')[0]!r} is no "
                f"field here and is left out. To find papers by a field, use papertrack "
                f"search {visible(typed)}."
            )
            question = stripped
        new, people = asks_new(question), asks_who(question)
        check_question(question, topic=topic is not None, for_model=context or llm)
        start = None
        if since is not None:
            from papertrack.dates import parse_date

            start = parse_date(since)
        if as_of is not None:
            from papertrack.dates import parse_date

            parse_date(as_of, option="--as-of")  # refused before the store is read
        store = open_store()
        until = _until(store, as_of)
        if until is not None and since is not None:
            start = _since_as_of(since, until)
        else:
            start = since_on_store(since, start, store)
        if start is not None and until is not None and start >= until:
            raise UsageError(
                f"--since {since!r} is after --as-of {as_of!r}: no paper can be dated in "
                "between. Give a --since on or before the --as-of day"
            )
        fresh_tags(store, catalog)
        if new and start is None:
            start = _new_since(store, until)
        scope = f"of {topic.name}" if topic else "in the store"
        slug = topic.slug if topic else None
        if context or llm:
            if people and topic is not None:
                new = new or not question_words(question)  # "who works on this?": its newest
            answer = answer_question(
                store, question, topic=slug, since=start, papers=limit, new=new, until=until
            )
        else:
            # "who works on GUI agents?" quoted sentences with the word "work" in them.
            answer = respond(store, question, topic=slug, since=start, papers=limit, until=until)
            if answer.who:
                _say_who(answer, store, scope + _dated(start, until), start)
                chosen = pick_format(fmt, as_json)
                if answer.counted or chosen is AskFormat.json:  # a script gets its document
                    _emit(answer, chosen, {t.slug: t.name for t in catalog.topics})
                return
        if not answer.considered:
            scope += _dated(start, until)
            empty_topic = topic is not None and store.exists() and not store.count(topic.slug)
            say(
                NO_PAPERS_YET
                if store_is_empty(store)
                # Not "try an earlier --since": no stored paper is in the topic at all.
                else f"No stored paper is in {topic.name} yet, so there is nothing to answer "
                "from. Ask without the topic, or see 'papertrack topics' for those that "
                "hold papers."
                if empty_topic and topic is not None
                else f"No paper {scope} matches the question's words. Try other words"
                + (", an earlier --since" if start is not None else "")
                + (", a later --as-of" if until is not None else "")
                + ", or 'papertrack search' to see what is stored."
                + (newest_paper_note(store) if start is not None else "")
            )
            if not (context or llm) and pick_format(fmt, as_json) is AskFormat.json:
                _emit(answer, AskFormat.json, {})  # a script still gets its document
            return
        if answer.unmatched:
            # The papers nearest the question's other words are drawn on all the same:
            # say which part of the question none of them speaks to.
            said = [repr(visible(w)) for w in answer.unmatched]
            shown = " or ".join([", ".join(said[:-1]), said[-1]] if len(said) > 1 else said)
            count = len(answer.papers or answer.considered)
            which = "the answer quotes" if answer.papers else "drawn on"
            papers = (
                f"the paper {which} does not mention"
                if count == 1
                else f"none of the {count:,} papers {which} mentions"
            )
            say(
                f"Note: {papers} {shown}: the answer does not speak to "
                f"{'it' if len(answer.unmatched) == 1 else 'them'}."
            )
            asked = asked_words(question)
            missed = set(answer.unmatched)
            if len(missed) >= 3 and len(missed) >= 0.6 * len(asked):
                # "Wie werden Agenten ... trainiert?" was answered from papers on WIE
                # (web information extraction), as confidently as any other answer.
                kept = [w for w in asked if w not in missed]
                by = f" ({', '.join(repr(visible(w)) for w in kept[:3])})" if kept else ""
                say(
                    "Note: most of the question's words are in none of these papers, so "
                    f"they were chosen by the few that are{by} and may miss the question. "
                    "The stored papers are in English: ask in English, or in other words."
                )
        if answer.apart:
            said = [repr(visible(w)) for w in answer.apart]
            shown = f"{', '.join(said[:-1])} and {said[-1]}"
            say(
                f"Note: no paper the answer quotes holds all of {shown}: it joins papers "
                "on each part, which may not answer the question together."
            )
        if context or llm:
            # Numbered as the answer numbers them, so [2] is the same paper in both.
            pack = context_pack(question, answer.numbered(), _names)
            if not llm:
                emit_text(pack)
                return
            _ask_model(pack, model, len(answer.considered))
            return
        names = {t.slug: t.name for t in catalog.topics}
        if not answer.sentences:
            # The papers hold the words in their titles only, or have no abstract:
            # there is no sentence to quote, but the papers are still the answer.
            n = len(answer.considered)
            papers = "the paper" if n == 1 else f"the {n:,} papers"
            say(
                f"No abstract sentence of {papers} {scope} that {'matches' if n == 1 else 'match'} "
                f"the question holds its words: listed {'is' if n == 1 else 'are'} "
                f"{'that paper' if n == 1 else 'those papers'}. Try other words, or "
                "'papertrack show ID' to read one."
            )
        _emit(answer, pick_format(fmt, as_json), names)


#: A search field written into a question ("author:lecun", "title: memory"): ask does
#: not read fields, and took "author" for a word of the question.


def _until(store: Store, as_of: str | None) -> datetime | None:
    """The end (exclusive) of the day ``--as-of`` names, as topic and momentum read it
    ('2 weeks ago' on a store more than a week behind counts back from its newest
    paper, said on stderr); None without --as-of."""
    from datetime import UTC

    from papertrack.ask import day_end
    from papertrack.dates import parse_date

    if as_of is None:
        return None
    day = parse_date(as_of, option="--as-of").astimezone(UTC).date()
    found = span_on_store(as_of, store)
    if found is not None:
        newest, moved = found
        day = moved.astimezone(UTC).date()
        say(as_of_moved(as_of, newest, day))
    return day_end(day)


def _since_as_of(since: str, until: datetime) -> datetime:
    """--since with --as-of: a span ('2 weeks ago') counts back from the --as-of day,
    as topic, momentum and trending count a relative --as-of; it was counted from the
    newest stored paper, and '--as-of 2026-03-01 --since "2 weeks ago"' was refused
    as a --since after the --as-of."""
    from datetime import timedelta

    from papertrack.dates import parse_date

    return parse_date(since, now=until - timedelta(days=1))


def _dated(since: datetime | None, until: datetime | None) -> str:
    """' dated 2026-05-01 or later', ' dated 2026-06-26 or earlier', ' dated 2026-05-01
    to 2026-06-26', or '' without bounds."""
    from papertrack.ask import last_day

    last = last_day(until).isoformat() if until is not None else None
    if since is not None and last is not None:
        return f" dated {since.date().isoformat()} to {last}"
    if since is not None:
        return f" dated {since.date().isoformat()} or later"
    return f" dated {last} or earlier" if last is not None else ""


def _new_since(store: Store, until: datetime | None = None) -> datetime | None:
    """:func:`papertrack.ask.new_since`, said on stderr."""
    from datetime import timedelta

    from papertrack.ask import NEW_DAYS, last_day, new_since
    from papertrack.dates import shown_span

    start = new_since(store, until)
    if start is None:
        return None
    first, to = start.date(), "the newest stored one"
    last = first + timedelta(days=NEW_DAYS - 1)
    if until is not None:
        to, last = "--as-of", last_day(until)
    days = shown_span(first, last, " to ")
    say(
        f"Note: a question about what is new draws on the papers of the {NEW_DAYS} days "
        f"to {to}, {days}. Give --since for others."
    )
    return start


def _say_who(answer: Answer, store: Store, scope: str, since: datetime | None) -> None:
    """What a question about people leaves unanswered, on stderr (one naming neither
    what nor a topic is refused by :func:`papertrack.ask.respond`)."""
    from papertrack.ask import asks_places

    if not answer.counted:
        # Only a topic's question with no other word gets here: the topic has no paper.
        say(
            NO_PAPERS_YET
            if store_is_empty(store)
            else f"No paper {scope}." + (newest_paper_note(store) if since is not None else "")
        )
    elif not answer.people:
        none_stands = (
            f"No author has two or more of the {answer.counted:,} papers counted"
            if answer.counted > 1
            else "Only one paper was counted"
        )
        say(
            f"{none_stands}, so none stands out: listed are the papers. Ask about something "
            "broader, or an earlier --since."
        )
    elif not answer.affiliations and asks_places(answer.question):
        # "which labs study world models?" on a store of listings, which name none.
        say(
            "Note: none of these papers names its authors' affiliations (arXiv's API "
            "gives them where authors did; its listings and snapshots do not): listed "
            "are the authors."
        )


def _counted(answer: Answer, names: dict[str, str]) -> str:
    """Which papers a question about people counted: "the 194 papers that match 'gui
    agents' (of the 200 the index ranks best)", "the 57 papers of GUI Agents"."""
    from papertrack.ask import PEOPLE_POOL

    n = answer.counted
    papers = f"{n:,} papers" if n != 1 else "one paper"
    if answer.about:
        within = f" in {names.get(answer.topic, answer.topic)}" if answer.topic else ""
        asked = f"{' '.join(answer.about)!r}{within}"
        # Of the best the index ranked: more may match further down.
        if answer.capped and n >= PEOPLE_POOL:
            return f"the {papers} that best match {asked}"
        of = f" (of the {PEOPLE_POOL} the index ranks best)" if answer.capped else ""
        return f"the {papers} that {'matches' if n == 1 else 'match'} {asked}{of}"
    newest = " newest" if answer.capped else ""
    topic = names.get(str(answer.topic), answer.topic)
    return f"the one paper of {topic}" if n == 1 else f"the {n:,}{newest} papers of {topic}"


def _names(paper: Paper) -> str:
    from papertrack.text import names_plus

    return names_plus(paper.authors)


def _emit(answer: Answer, fmt: AskFormat, names: dict[str, str]) -> None:
    if fmt is AskFormat.json:
        emit_json(answer.to_dict())
        return
    from papertrack.ask import Cited, Person

    def who_lines(people: list[Person], markdown: bool) -> list[str]:
        from rich.cells import cell_len

        width = min(40, max((cell_len(p.name) for p in people), default=0))
        out = []
        for p in people:
            cites = " ".join(f"[{n}]" for n in p.cites)
            count = f"{p.count} papers"
            if markdown:
                from papertrack.digest import markdown_escape

                out.append(f"- {markdown_escape(p.name)}: {count} {cites}")
            else:
                pad = " " * max(0, width - cell_len(p.name))
                out.append(f"  {p.name}{pad}  {count:>10}  {cites}")
        return out

    def day(c: Cited) -> str:
        return c.paper.paper_date.date().isoformat() if c.paper.paper_date else "undated"

    def by(c: Cited) -> str:
        return f" — {_names(c.paper)}" if c.paper.authors else ""

    # With no sentence to cite, the papers that match are the answer, best first.
    listed = answer.papers or [
        Cited(n, r.paper, r.score) for n, r in enumerate(answer.considered, start=1)
    ]
    lines: list[str] = []
    if fmt is AskFormat.markdown:
        from papertrack.ask import reference
        from papertrack.digest import link, markdown_escape, markdown_link

        lines.append(f"## {markdown_escape(answer.question)}")
        lines.append("")
        if answer.people:
            lines.append(f"Authors with the most of {markdown_escape(_counted(answer, names))}:")
            lines.append("")
            lines += who_lines(answer.people, True)
            lines.append("")
        if answer.affiliations:
            of = "them" if answer.people else markdown_escape(_counted(answer, names))
            lines.append(f"Affiliations with the most of {of}:")
            lines.append("")
            lines += who_lines(answer.affiliations, True)
            lines.append("")
        for sentence in answer.sentences:
            # A paragraph each, as the text form has a line each (lines of one
            # paragraph run together); a sentence starting "2) Action ..." or "# "
            # must not turn the answer into a list or a heading.
            lines.append(f"{markdown_escape(sentence.text, line_start=True)} [{sentence.cite}]")
            lines.append("")
        for c in listed:
            title = markdown_escape(" ".join(c.paper.shown_title.split()))
            lines.append(
                f"{c.n}. "
                + markdown_link(title, link(c.paper))
                # clean() trims the text it escapes: the space before the dash was lost.
                + (f" — {markdown_escape(_names(c.paper))}" if c.paper.authors else "")
                + f", {day(c)}, {markdown_escape(reference(c.paper))}"
            )
    else:
        lines.append(answer.question)
        lines.append("")
        lines += [f"{' '.join(s.text.split())} [{s.cite}]" for s in answer.sentences]
        if answer.people:
            lines.append(f"Authors with the most of {_counted(answer, names)}:")
            lines += who_lines(answer.people, False)
        if answer.affiliations:
            of = "them" if answer.people else _counted(answer, names)
            lines += ["", f"Affiliations with the most of {of}:"]
            lines += who_lines(answer.affiliations, False)
        lines.append("")
        for c in listed:
            lines.append(
                f"[{c.n}] {c.paper.arxiv_id}  {day(c)}  {' '.join(c.paper.shown_title.split())}"
                + by(c)
            )
        if sys.stdout.isatty():
            lines = _wrapped(lines, out().width)
    emit_text("\n".join(lines))


def _wrapped(lines: list[str], width: int) -> list[str]:
    """``lines`` in lines of at most ``width`` cells, broken between words, for a
    terminal (which broke them mid-word); a reference "[3] ..." hangs under its text.
    A word wider than a line (a long URL) is left whole. Piped, lines stay whole."""
    from rich.cells import cell_len

    wrapped: list[str] = []
    for line in lines:
        lead = len(line) - len(line.lstrip(" "))
        hang = re.match(r"\[\d+\] ", line)
        indent = " " * (len(hang.group()) if hang else lead)
        current = line[:lead]
        for word in line[lead:].split(" "):
            joined = f"{current} {word}" if current.strip() else current + word
            if current.strip() and cell_len(joined) > width:
                wrapped.append(current.rstrip())
                current = indent + word
            else:
                current = joined
        wrapped.append(current.rstrip())
    return wrapped


def _is_topic(catalog: Catalog, name: str) -> bool:
    try:
        catalog.find(name)
    except UnknownTopicError:
        return False
    return True


def _ask_model(pack: str, model: str | None, papers: int) -> None:
    """Print a model's answer to the pack, with citations naming no paper marked [n?]."""
    import os
    import shutil

    from papertrack.ask import check_citations

    command = shutil.which("llm")
    if command is not None:
        reply = _run_llm(command, pack, model)
    else:
        url = os.environ.get("PAPERTRACK_OLLAMA_URL", OLLAMA_URL)
        reply = _run_ollama(url, pack, model)
    if not reply.strip():
        # A blank line and exit 0 read to a script as an answer.
        raise PapertrackError(
            f"the model sent an empty answer ({'llm' if command else 'Ollama'}). Try again, "
            "or ask another model with -m MODEL"
        )
    marked, unknown = check_citations(reply, papers)
    emit_text(marked.rstrip())
    if unknown:
        shown = ", ".join(f"[{n}]" for n in unknown)
        which = "which name no paper" if len(unknown) > 1 else "which names no paper"
        say(
            f"Warning: the answer cites {shown}, {which} of the {papers} it was given. "
            "Check those claims against the papers listed with --context."
        )


def _run_llm(command: str, pack: str, model: str | None) -> str:
    import subprocess

    args = [command] + (["-m", model] if model else [])
    try:
        # The reply is untrusted text: bytes that are not UTF-8 (a plugin writing in
        # cron's C locale) are replaced, as a feed's are.
        done = subprocess.run(
            args,
            input=pack,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=600,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PapertrackError(
            f"the 'llm' command failed ({exc}). Try it alone: llm 'hello'"
        ) from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise PapertrackError(
            f"the 'llm' command failed (exit {done.returncode}: {visible(last)}). "
            "Try it alone: llm 'hello'"
        )
    return done.stdout


def _run_ollama(url: str, pack: str, model: str | None) -> str:
    import json
    import urllib.error
    import urllib.request

    from papertrack.net import said

    if not url.startswith(("http://", "https://")):
        raise UsageError(f"PAPERTRACK_OLLAMA_URL is {visible(url)!r}, not an http(s) URL. Fix it")
    body = json.dumps({"model": model or "llama3.2", "prompt": pack, "stream": False}).encode()
    request = urllib.request.Request(
        url.rstrip("/") + "/api/generate", data=body, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=600) as response:  # noqa: S310 (http(s) only)
            data = json.loads(response.read(32 * 1024 * 1024))
    except urllib.error.HTTPError as exc:
        raise PapertrackError(
            f"the Ollama server at {visible(url)} answered {exc.code} {said(str(exc.reason))}. "
            "Check the model name (--model) with 'ollama list'"
        ) from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise PapertrackError(
            f"no model to ask: 'llm' is not on PATH and no Ollama server answered at "
            f"{visible(url)} ({said(str(reason))}). Install llm (pipx install llm), start "
            "Ollama, or leave out --llm"
        ) from None
    except (ValueError, RecursionError):  # RecursionError: [[[[... nested past Python's stack
        raise PapertrackError(
            f"the server at {visible(url)} did not answer in Ollama's JSON. "
            "Check PAPERTRACK_OLLAMA_URL"
        ) from None
    reply = data.get("response") if isinstance(data, dict) else None
    if not isinstance(reply, str):
        raise PapertrackError(
            f"the Ollama server at {visible(url)} sent no answer. Check the model name (--model)"
        )
    return reply
