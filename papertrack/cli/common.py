"""What every papertrack command shares: the Typer app, consoles, errors, output formats.

Only the modules of this package import typer; only they and render.py import rich.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from typer.core import TyperCommand

from papertrack import __version__, paths
from papertrack.errors import PapertrackError, Terminated, UsageError, stop_status
from papertrack.text import visible

if TYPE_CHECKING:
    from datetime import date, datetime

    from rich.console import Console

    from papertrack.models import Paper
    from papertrack.store import Store
    from papertrack.topics import Catalog, Topic

EXIT_CODES = "Exit codes: 0 success (also when nothing matches), 1 error, 2 bad usage."

app = typer.Typer(
    name="papertrack",
    help=(
        "Track arXiv papers by topic: ingest feeds into a local store, then see the "
        "latest papers of a topic.\n\n"
        "Examples:\n\n"
        "\b\n"
        "    papertrack ingest --sample\n"
        "    papertrack latest llm-agent-training\n"
        "    papertrack topic gui-agents\n"
        "    papertrack trending\n"
        "    papertrack ask llm-agent-training 'how are agents trained with RL?'\n"
        "    papertrack fetch -c cs.AI -c cs.CL"
    ),
    epilog=EXIT_CODES,
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _usage_error_line(error: Any, file: Any = None) -> None:
    """A usage error Click finds (a missing argument, a value out of range) as one
    line, like every other error: what happened and how to fix it. Click's own
    print is the command's usage, a hint, a blank line and then the error."""
    ctx = getattr(error, "ctx", None)
    # Some errors of Click's parser come without the command (an option missing its
    # value): the help to read is then the command's, found in the command line.
    # The app's callback has named the command by then (`digest`, `topics add`).
    path = ctx.command_path if ctx is not None else f"papertrack {state.command}"
    where = f"'{path} --help'" if path != "papertrack papertrack" else "the command with --help"
    message = _plain_range(error.format_message().rstrip("."))
    fix = f"Run {where} to see how to use it"
    option = getattr(error, "option_name", None) or ""
    command = path.partition(" ")[2]
    other = _OTHER_OPTION.get((option, command in _COUNTING))
    if type(error).__name__ == "NoSuchOption" and other is not None:
        # Click's guess by spelling offered --json for --since: say which option to use.
        message = f"'{command}' has no {option}"
        fix = f"{other}. {fix}"
    if (
        path == "papertrack topics"
        and message.startswith("No such command '")
        and "?" not in message
    ):
        # `papertrack topics gui-agents`: a topic where a subcommand goes.
        import shlex

        name = shlex.quote(message.removeprefix("No such command '").rstrip("'"))
        fix = (
            f"For a topic, run 'papertrack topic {name}' (its page) or 'papertrack topics "
            f"show {name}' (how it is defined). {fix}"
        )
    arguments = (
        {p.name for p in ctx.command.params if getattr(p, "param_type_name", "") == "argument"}
        if ctx is not None
        else set()
    )
    # A query of the topic language (search, topics test), or ask's question, whose
    # words are plain words: told only of '--'.
    takes_query = bool(arguments & {"query", "definition"})
    takes_words = takes_query or "words" in arguments
    if (
        ctx is not None
        and takes_query
        and type(error).__name__ == "NoSuchOption"
        and option in ("-c", "--category")
    ):
        # `search agent -c cs.AI`, as latest takes it: the query language has it.
        message = f"'{command}' has no {option}"
        fix = f"Put the category in the query: 'agent* AND category:cs.AI'. {fix}"
    elif (
        ctx is not None
        and takes_words
        and type(error).__name__ == "NoSuchOption"
        and option[1:2] != "-"
    ):
        # `search -agent`: a query's NOT, read by the shell's rules as an option (Click
        # names it -a). Said as a condition: `-n 1` is an option the command lacks.
        hint = dash_query_hint(ctx)
        if hint:
            fix = f"{hint.strip()}. {fix}"
        elif takes_query:
            fix = (
                f"If a query starts with '-', it goes after '--' (options before it): "
                f"{ctx.command_path} -- '-agent'. " + fix
            )
    if type(error).__name__ == "NoSuchOption" and option in ("--db", "--log-file"):
        # `papertrack latest --db DIR`: the app's own options go before the command.
        where = command if ctx is not None else "COMMAND"
        fix = f"{option} goes before the command: papertrack {option} VALUE {where}"
    if takes_words and type(error).__name__ != "NoSuchOption":
        hint = dash_query_hint(ctx)
        if hint:
            fix = f"{hint.strip()}. {fix}"
    # "Did you mean 'latest'?" ends a sentence already.
    end = "" if message.endswith(("?", "!")) else "."
    print(f"Error: {message}{end} {fix}.", file=sys.stderr if file is None else file)


def _plain_range(message: str) -> str:
    """Click's words for a number out of range or not a number ("'abc' is not a valid
    int range", "0 is not in the range x>=1") said as a user reads them."""
    # The value as Click quoted it (its repr: escapes shown, never sent to the terminal,
    # in the quotes Python chose: "it's"), whole even with ": " in it ('a: b'); the kind
    # by the type's name, not by the text ('point5' for a float is no "whole number").
    bad = re.fullmatch(
        r"""(?P<head>.*?): (?P<given>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*") is not a valid """
        r"(?P<kind>int range|integer|int|float range|float)",
        message,
        re.S,
    )
    if bad:
        kind = "a whole number" if bad["kind"].startswith("int") else "a number"
        return f"{bad['head']}: {bad['given']} is not {kind}"
    head, colon, value = message.rpartition(": ")
    if not colon:
        return message
    out = re.fullmatch(r"(\S+) is not in the range (?:(\S+)<=x<=(\S+)|x>=(\S+)|x<=(\S+))", value)
    if out is None:
        return message
    given, low, high, least, most = out.groups()
    if least is not None:
        return f"{head}: it must be at least {least}, not {given}"
    if most is not None:
        return f"{head}: it must be at most {most}, not {given}"
    return f"{head}: it must be from {low} to {high}, not {given}"


#: The commands that count papers per week up to a day (--as-of), not list them.
_COUNTING = frozenset({"momentum", "trending", "topic", "topics", "topics list", "topics test"})
#: What to use instead of an option a command lacks, by (option, counting command).
_OTHER_OPTION = {
    ("--as-of", False): "It lists the newest papers, and --since DATE keeps those dated from "
    "it on; 'momentum', 'trending' and 'topic' count up to --as-of DATE",
    ("--since", True): "It counts the weeks up to --as-of DATE (default today, or the "
    "newest paper's day); --since DATE is for the commands that list papers",
}


def _click() -> Any:
    """Click as Typer runs it: typer >= 0.26 carries its own copy; earlier ones use Click."""
    from typer import core

    return getattr(core, "_click", None) or getattr(core, "click", None)


def _one_line_usage_errors() -> None:
    usage_error = getattr(getattr(_click(), "exceptions", None), "UsageError", None)
    if usage_error is not None:
        usage_error.show = _usage_error_line


_one_line_usage_errors()


def spread_values(args: Sequence[str], options: Sequence[str]) -> list[str]:
    """``args`` with every bare word after one of ``options`` made a value of it too.

    ``--like A B C`` becomes ``--like A --like B --like C``: the usage ``--like ID...``
    reads that way, and Click would otherwise take B and C for arguments (an error
    at best; for ``topics teach T --not A B``, B taught *in* the topic). A word
    starting with "-" ends the run, and so does ``--``.
    """
    spread: list[str] = []
    taking: str | None = None
    at = 0
    while at < len(args):
        word = args[at]
        at += 1
        if word == "--":
            spread.append(word)
            spread.extend(args[at:])
            break
        if taking is not None and not word.startswith("-"):
            spread += [taking, word]
            continue
        taking = None
        spread.append(word)
        name = word.partition("=")[0]
        if name in options:
            taking = name
            if "=" not in word and at < len(args):
                spread.append(args[at])  # the option's own value, whatever it looks like
                at += 1
    return spread


def many_values(*options: str) -> type[TyperCommand]:
    """A command class whose ``options`` take every value that follows them
    (:func:`spread_values`); pass it as ``cls=`` to ``app.command``."""

    class ManyValues(TyperCommand):
        def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
            return super().parse_args(ctx, spread_values(args, options))

    return ManyValues


class Format(StrEnum):
    table = "table"
    json = "json"
    jsonl = "jsonl"
    csv = "csv"


FormatOpt = Annotated[
    Format, typer.Option("--format", "-f", help="Output format: a table for people, or data.")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Short for --format json.")]
#: --since of export, whose cron jobs count from today.
SinceOpt = Annotated[
    str | None,
    typer.Option(
        "--since",
        "-s",
        help=(
            "Only papers dated on or after: 2026-08-01, 'Aug 1 2026', '3 weeks ago' (counted "
            "from today, as a cron job wants, even on a store that stopped growing, where "
            "latest and search count back from its newest paper)."
        ),
        show_default=False,
    ),
]
#: --since of the commands that list papers for people (see :func:`since_on_store`).
ReadSinceOpt = Annotated[
    str | None,
    typer.Option(
        "--since",
        "-s",
        help=(
            "Only papers dated on or after: 2026-08-01, 'Aug 1 2026', '3 weeks ago' (on a "
            "store more than a week behind, '3 weeks ago' counts back from its newest paper)."
        ),
        show_default=False,
    ),
]
#: --json of a command that has no --format.
JsonOnlyOpt = Annotated[bool, typer.Option("--json", help="Write JSON instead of text.")]


def _quiet(value: bool) -> bool:
    # Kept for what prints outside the command's own code (a lock's wait notice).
    state.quiet = value
    return value


QuietOpt = Annotated[
    bool,
    typer.Option(
        "--quiet",
        "-q",
        help="Print nothing on success but warnings, such as a store that stopped "
        "growing (the log still says what was done).",
        callback=_quiet,
    ),
]

#: ``-o FILE`` of the commands that write a document (export, digest): see :func:`output_path`.
OutputOpt = Annotated[
    str | None,
    typer.Option(
        "--output",
        "-o",
        metavar="<file>",
        help="Write to this file instead of standard output (- for standard output): "
        "a file is replaced atomically, keeping its permissions; a pipe or a device "
        "(/dev/stdout) is written into.",
    ),
]


class ViewFormat(StrEnum):
    """Formats of the single-answer views (momentum, topic page, topic details)."""

    table = "table"
    json = "json"


ViewFormatOpt = Annotated[
    ViewFormat, typer.Option("--format", "-f", help="Output format: a view for people, or JSON.")
]
AsOfOpt = Annotated[
    str | None,
    typer.Option(
        "--as-of",
        help="Count up to this day (UTC; default today, or the newest paper's day when it is "
        "more than a week old): 2026-09-30, 'Sep 30 2026', '1 week ago' (counted back from "
        "that day too).",
        show_default=False,
    ),
]


class State:
    db: str | None = None
    log_file: str | None = None
    #: The command running, as the log names it: "fetch", "topics teach". (Taken from
    #: the arguments it read "fetch -c" and "fetch -q" for two runs of one command.)
    command: str = "papertrack"
    #: The command's --quiet: notices it did not ask for go to the log alone.
    quiet: bool = False
    #: Whether writing the log failed in this run (said once).
    log_failed: bool = False
    #: The locks a wait was said for: a fetch waits for the pace lock before each page.
    waited: frozenset[str] | set[str] = frozenset()


state = State()


#: The narrowest width tables are drawn at: COLUMNS=0 drew nothing at all.
MIN_WIDTH = 20
#: The widest: at COLUMNS=99999999 Rich took minutes to lay out a table of three papers.
MAX_WIDTH = 2000


def _width() -> int | None:
    """The width to draw at when COLUMNS would give Rich too few columns to
    draw anything (COLUMNS=0) or more than it can lay out, else None: Rich's own choice."""
    columns = os.environ.get("COLUMNS", "")
    if not columns.isdigit():
        return None
    if int(columns) < MIN_WIDTH:
        return 80
    return MAX_WIDTH if int(columns) > MAX_WIDTH else None


class _Unpadded:
    """Standard output off a terminal, for tables: each line without the spaces Rich
    pads it with to the console's width, which were noise in a diff, a grep or a
    mail. Spaces at the end of a write are held until the next one says whether
    its line goes on."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.held = ""

    def write(self, text: str) -> int:
        lines = (self.held + text).split("\n")
        last = lines.pop()
        kept = last.rstrip(" ")
        self.held = last[len(kept) :]
        self.stream.write("".join(line.rstrip(" ") + "\n" for line in lines) + kept)
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


@cache
def out() -> Console:
    from rich.console import Console

    class _Out(Console):
        def on_broken_pipe(self) -> None:
            # The reader stopped (`| head -1`): its choice, no error, as for JSON and
            # CSV. Rich's own ends with exit 1, which failed a script's pipefail.
            self.quiet = True
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise SystemExit(0)

    console = _Out(soft_wrap=False, width=_width())
    if not console.is_terminal:
        unpadded: Any = _Unpadded(sys.stdout)  # a file as Rich writes to one
        console.file = unpadded
    return console


@cache
def err() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False, width=_width())


#: What a command that lists papers says when the store has none at all.
NO_PAPERS_YET = (
    "No papers in the store yet. Run 'papertrack ingest FILE' with an arXiv feed, "
    "or 'papertrack ingest --sample' to try the bundled sample."
)


def none_of_topic(name: str) -> str:
    """What a command that lists a topic's papers says when it has none (the store
    holding papers): ``name`` as the command shows it."""
    return f"No papers of {name} in the store yet. Ingest feeds of its categories."


def store_is_empty(store: Store) -> bool:
    """Whether ``store`` holds no paper (or was never written)."""
    return not store.exists() or store.count() == 0


#: A progress display drawing on stderr now (a snapshot's byte bar): messages are
#: printed through it, above the bar. Written past it, an error was glued to the end
#: of the bar's line.
live: Any = None


@contextlib.contextmanager
def showing(display: Any) -> Iterator[None]:
    """Make ``display`` (a Rich progress bar on stderr) :data:`live` while the block runs."""
    global live
    live = display
    try:
        yield
    finally:
        live = None


def papers_bar(*columns: Any) -> Any:
    """A progress bar on stderr for work that stores papers: its description (as
    text, never markup: a file name is untrusted), a bar, ``columns`` for what it
    counts (pages, bytes), the papers so far and the time left. It leaves nothing
    behind; make it :func:`showing` so that messages print above it."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    return Progress(
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        *columns,
        TextColumn("{task.fields[papers]:,} papers"),
        TimeRemainingColumn(),
        console=err(),
        transient=True,
    )


def say(message: str, *, quiet: bool = False) -> None:
    """A message for people on stderr, printed as plain text (never as Rich markup).

    Every message also goes to the log file, so a cron job's summaries and errors
    can be read later (see :func:`log`). With ``quiet`` (a command's --quiet) it goes
    to the log alone: `fetch -q` in cron printed nothing, as asked, and left no
    record of what it fetched either.
    """
    if quiet:
        log(message)
        return
    message = visible(message, keep_lines=True)
    if live is not None:
        from rich.text import Text

        live.console.print(Text(message), soft_wrap=True)
    else:
        typer.echo(message, err=True)
    log(message)


def log(message: str) -> Path | None:
    """Append ``message`` to the log (:mod:`papertrack.logfile`): ``--log-file`` or
    PAPERTRACK_LOG_FILE, else papertrack.log in the data home, once that exists.
    A log that cannot be written never fails the command. Returns the log's path,
    or None when nothing was written.
    """
    from papertrack import logfile

    path = logfile.log_path(state.log_file)
    if path is None:
        if state.log_file and not state.log_failed:
            # A named log whose ~user has no home: skipped without a word, as an
            # unwritable one was.
            state.log_failed = True
            typer.echo(
                f"Warning: could not write the log {visible(state.log_file)}: "
                f"{visible(state.log_file.split('/')[0])} names no user's home. Name "
                "another with --log-file or PAPERTRACK_LOG_FILE.",
                err=True,
            )
        return None
    try:
        logfile.write(path, message, state.command, rotate=not state.log_file)
    except OSError as exc:
        import errno

        if not state.log_file and (exc.errno == errno.EROFS or not os.access(path.parent, os.W_OK)):
            # A data home no one may write (a read-only mount shared by a group): no
            # log is possible there, and a warning on every read command's run was
            # mailed by cron each time. A command that writes fails on the store.
            state.log_failed = True
            return None
        if not state.log_failed:
            # Once a run, on stderr (-q too): a log that could not be written was
            # skipped without a word, and "read last night's summary in the
            # morning" found nothing there.
            state.log_failed = True

            why = "it is a pipe nothing reads" if exc.errno == errno.ENXIO else exc.strerror
            # A folder that is not there is made by no one (papertrack makes none for
            # a log named): "make it writable" was no fix for it.
            fix = "Create its folder" if exc.errno == errno.ENOENT else "Make it writable"
            typer.echo(
                f"Warning: could not write the log {visible(str(path))}: "
                f"{why or exc}. {fix}, or name another with "
                "--log-file or PAPERTRACK_LOG_FILE.",
                err=True,
            )
        return None
    return path


def complete_topic(incomplete: str) -> list[str]:
    """Shell completion for topic arguments: the slugs that start with what was typed."""
    try:
        from papertrack.topics import Catalog

        catalog = Catalog.of_home()
    except Exception:  # completion must never print a traceback into the shell
        return []
    typed = incomplete.casefold()
    return [t.slug for t in catalog.topics if t.slug.startswith(typed)]


def complete_followed(incomplete: str) -> list[str]:
    """Shell completion for `unfollow`: the followed slugs that start with what was
    typed, a topic removed since it was followed too (every topic was offered, and
    a removed one, which only its slug unfollows, was not)."""
    try:
        from papertrack.digest import load_following

        slugs, _ = load_following(paths.home() / paths.FOLLOWING_FILE)
    except Exception:  # completion must never print a traceback into the shell
        return []
    typed = incomplete.casefold()
    return [slug for slug in slugs if slug.startswith(typed)]


#: The commands whose query (or question) is an argument, which a word of the query
#: language's NOT ('-survey') may start.
_QUERY_COMMANDS = frozenset({"search", "ask", "topics test"})


def dash_query_hint(ctx: Any = None) -> str:
    """For a usage error of a command that takes a query: the way to give a query that
    starts with '-', when the command line holds such a word ("" when not). The shell's
    rules read '-survey' as -s with 'urvey' glued on ("can't read --since 'urvey'"),
    and '-survey title:agent' left the query missing.

    The command offered has every option before '--' and the words of the query
    after it: '-survey -n 3' was offered as 'search -- -survey -n 3', where -n 3
    became two more words of the query and the command failed again.
    """
    import shlex

    if state.command not in _QUERY_COMMANDS:
        return ""
    args = sys.argv[1:]
    if "--" in args:
        args = args[: args.index("--")]
    if ctx is None:
        import importlib

        ctx = importlib.import_module(f"{_click().__name__}.globals").get_current_context(
            silent=True
        )
    takes: dict[str, bool] = {}  # each option's names: whether it takes a value
    for param in ctx.command.params if ctx is not None else ():
        if getattr(param, "param_type_name", "") == "option":
            for name in (*param.opts, *param.secondary_opts):
                takes[name] = not param.is_flag and not param.count

    def option_of(arg: str) -> str | None:
        """The option ``arg`` gives ('-n', '--limit=3', '-n3' with a number glued on).
        A word glued on ('-survey', which Click reads as -s 'urvey') is taken for the
        dash word the user meant."""
        name = arg.partition("=")[0]
        if name in takes:
            return name
        glued = arg[:2]
        if arg[1:2] != "-" and takes.get(glued) and arg[2:].replace(".", "", 1).isdigit():
            return glued
        return None

    at = next(
        (
            i
            for i, a in enumerate(args)
            if len(a) > 2 and a[0] == "-" and a[1].isalpha() and option_of(a) is None
        ),
        None,
    )
    if at is None:
        return ""
    # The words before the command's own (papertrack's options, 'topics test'), as typed.
    words = state.command.split()
    start = next((i + len(words) for i in range(len(args)) if args[i : i + len(words)] == words), 0)
    options: list[str] = []
    query: list[str] = []
    i = start
    while i < len(args):
        arg = args[i]
        name = option_of(arg) if i != at else None
        if name is not None:
            options.append(arg)
            if takes[name] and arg == name and i + 1 < len(args):
                options.append(args[i + 1])  # its value, the next word
                i += 1
        else:
            query.append(arg)
        i += 1
    one = any(
        getattr(param, "param_type_name", "") == "argument" and param.nargs == 1
        for param in (ctx.command.params if ctx is not None else ())
    )
    # A query is one argument: '-survey' 'agent*' typed as two words is one query.
    # So is ask's question, typed in words ('ask what is -survey about' offered as
    # 'ask -- what is ...' read 'what' as a topic), after a topic named first.
    first = 1 if not one and query and _names_topic(query[0]) else 0
    if len(query) > first + 1:
        query = [*query[:first], " ".join(query[first:])]
    typed = [*args[:start], *options, "--", *query]
    noun = "question" if state.command == "ask" else "query"
    return (
        f" If {visible(args[at])!r} is part of the {noun}, put it after '--' (options "
        f"before it): papertrack {visible(shlex.join(typed))}"
    )


def _names_topic(word: str) -> bool:
    """Whether ``word`` names a topic (ask's first word may): False when the topics
    cannot be read either."""
    try:
        load_catalog().find(word)
    except PapertrackError:
        return False
    return True


@contextlib.contextmanager
def errors(
    interrupted: str = "Everything written before the interruption is kept.",
) -> Iterator[None]:
    """Turn papertrack's own errors into ``Error: …`` on stderr and their exit code;
    Ctrl-C into "Interrupted." and ``interrupted``, what became of the command's work."""
    try:
        yield
    except PapertrackError as exc:
        # One line whatever it quotes: a file name with a line break in it made two,
        # the second a log entry of its own.
        message = visible(str(exc)).rstrip()
        if not message.endswith((".", "?", "!")):
            message += "."
        for warning in dict.fromkeys(exc.warnings):
            say(f"Warning: {warning}")
        if exc.exit_code == 2:
            message += dash_query_hint()
        say(f"Error: {message}")
        raise typer.Exit(exc.exit_code) from None
    except KeyboardInterrupt as stop:
        stopped = f"Stopped by {stop.name}" if isinstance(stop, Terminated) else "Interrupted"
        say(f"{stopped}. {interrupted}")
        raise typer.Exit(stop_status(stop)) from None


def _version(value: bool) -> None:
    if value:
        typer.echo(f"papertrack {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    ctx: typer.Context,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            envvar="PAPERTRACK_DB",
            help="Store directory (default: <PAPERTRACK_HOME>/store).",
            show_default=False,
        ),
    ] = None,
    log_file: Annotated[
        str | None,
        typer.Option(
            "--log-file",
            envvar="PAPERTRACK_LOG_FILE",
            help="Append messages and errors here (default: <PAPERTRACK_HOME>/papertrack.log).",
            show_default=False,
        ),
    ] = None,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
) -> None:
    """Track arXiv papers by topic."""
    state.db = db
    state.log_file = log_file
    state.command = ctx.invoked_subcommand or "papertrack"
    state.quiet = False  # a command's -q sets it (one process may run several: tests)
    state.waited = set()
    state.log_failed = False
    from papertrack import files

    files.on_lock_wait = _waiting
    # Rich reads COLUMNS, NO_COLOR and the terminal once, when a console is built:
    # each run builds its own (a Python caller running several commands, or the
    # tests, may change them in between).
    out.cache_clear()
    err.cache_clear()


def _waiting(what: str, timeout: float) -> None:
    """Said once a lock has been waited for a second: a command queued behind another
    (a teach behind a teach, a cron fetch behind an ingest) sat silent."""
    # Once a run, and with -q in the log alone: cron mailed it for a night that went
    # well, once for every page a fetch waited to send.
    if what in state.waited:
        return
    state.waited = {*state.waited, what}
    say(
        f"Waiting for another papertrack process to release {what} (for at most {timeout:g} s)...",
        quiet=state.quiet,
    )


def open_store(*, create: bool = False) -> Store:
    """The store ``--db``, PAPERTRACK_DB or the data home names.

    Raises:
        StoreError: a store named by ``--db`` or PAPERTRACK_DB is not there, and the
            command only reads (``create`` False): a mistyped path in a cron job
            answered "no papers" for ever.
    """
    from papertrack.parallel import worker_count
    from papertrack.store import open_named

    if state.db is not None and not state.db.strip():
        # `--db "$STORE"` with STORE unset wrote into the user's own store.
        raise UsageError(
            "--db is empty (a script's unset variable?). Name the store's folder, or leave "
            "out --db for the default store"
        )
    store = open_named(
        state.db,
        create=create,
        missing=", which --db or PAPERTRACK_DB names. Check the path, or make a store "
        "there with 'papertrack ingest' or 'papertrack fetch'",
    )
    worker_count()  # a bad PAPERTRACK_WORKERS fails here, before anything is written
    store.note = lambda text: say(f"Note: {text}")
    return store


def output_path(text: str | None, *, folder: bool = False) -> Path | None:
    """Where ``-o`` writes: ``text`` as a path, or None for standard output (``-o -``).

    The option is read as text, not as a path: a path would make ``''`` (an unset
    shell variable) the current folder and drop the ``/`` that says ``reports/`` is
    meant as a folder.

    Raises:
        UsageError: ``text`` is empty, names a folder for a file, or is (or is
            inside) what papertrack keeps (the store, its files in the data home):
            replacing one lost stored papers.
    """
    if text is None:
        return None
    kind = "folder" if folder else "file"
    if not text.strip():
        more = "" if folder else ", or - for standard output"
        raise UsageError(f"-o is empty. Name a {kind}{more}")
    if text == "-":
        if folder:
            raise UsageError("-o names the site's folder, not standard output. Name a folder")
        return None
    if not folder and text.endswith(("/", os.sep)):
        raise UsageError(f"{visible(text)} ends in /, so it names a folder. Name a file to write")
    output = Path(text)
    target = Path(os.path.realpath(output))
    # The store in effect, the data home's own (another command may use it), and models.
    folders = (
        ("the store", paths.store_dir(state.db)),
        ("the store", paths.home() / paths.STORE_FOLDER),
        ("the folder of taught models", paths.user_models_dir()),
    )
    for what, where in folders:
        place = Path(os.path.realpath(where))
        if target == place or place in target.parents:
            # Not "X is X, which ...": the path as typed is named once.
            said = what if target == place else f"inside {what}, {visible(str(place))}"
            raise UsageError(
                f"{visible(text)} is {said}, which papertrack keeps: writing there would "
                f"damage it. Name a {kind} elsewhere"
            )
    from papertrack import logfile
    from papertrack.files import writes_into

    # None for a ~user with no home (warned of once, when a message is logged).
    named = logfile.log_path(state.log_file) if state.log_file else None
    log_file = Path(os.path.realpath(named)) if named else None
    # A device or a pipe is written into, never replaced: /dev/null may be both.
    own_log = target == log_file and not writes_into(output)
    if own_log or paths.is_own_file(target):
        raise UsageError(
            f"{visible(text)} is papertrack's own {target.name}. Name a {kind} elsewhere"
        )
    if not folder:
        from papertrack.files import check_output

        check_output(output)  # before the work, not after it
    return output


def newest_paper_note(store: Store) -> str:
    """A sentence naming the newest stored paper's day (" The newest stored paper is
    from Jun 26, 2026."), for a message about a --since that left no paper: a
    '2 weeks ago' on a store whose fetch stopped."""
    from papertrack.dates import shown_day

    newest = store.newest_day() if store.exists() else None
    return f" The newest stored paper is from {shown_day(newest)}." if newest else ""


def note_other_version(given: str, paper: Paper, doing: str) -> None:
    """Say so on stderr when ``given`` names a version of ``paper`` the store does not
    hold (:func:`papertrack.export.other_version`)."""
    from papertrack.export import other_version

    note = other_version(given, paper, doing)
    if note is not None:
        say(f"Note: {note}")


def warn_if_stale(store: Store, today: date) -> date | None:
    """Said even with -q: a cron digest or site of a store whose fetch stopped says so
    (the site froze at an old day without a word), and of a store with no papers.
    Returns the newest paper's day when the store is behind (None otherwise)."""
    from papertrack.momentum import BEHIND_DAYS

    if store_is_empty(store):
        # A digest of an empty store printed nothing at all, as for a day with
        # nothing new: a cron job pointed at the wrong store never said so.
        say(f"Warning: {NO_PAPERS_YET[0].lower()}{NO_PAPERS_YET[1:]}")
        return None
    newest = store.newest_day()
    if newest is None or (today - newest).days <= BEHIND_DAYS:
        return None
    say(
        f"Warning: the newest paper in the store is from {newest.isoformat()}, "
        f"{(today - newest).days} days ago. Fetch new papers with 'papertrack fetch' "
        "(has its cron job stopped?)."
    )
    return newest


def behind_store_day(store: Store, day: date, quiet: bool = False) -> date:
    """``day`` (today, no --as-of given), or the store's newest paper's day if the
    store is behind (:func:`papertrack.momentum.default_day`): the bundled sample, or a
    store whose fetch stopped, is never shown as current and never as empty. Says so
    on stderr unless ``quiet``."""
    from papertrack.momentum import default_day

    if not store.exists():
        return day
    chosen = default_day(store.newest_day(), day)
    if chosen != day and not quiet:
        say_behind(chosen)
    return chosen


def since_on_store(text: str | None, start: datetime | None, store: Store) -> datetime | None:
    """The start ``--since`` gives (``start``, read from ``text`` by today) on
    ``store``: a span ('2 weeks ago', :func:`papertrack.dates.is_span`) counts back
    from the store's newest paper's day when the store is more than a week behind,
    as `topic` and `momentum` measure such a store (said on stderr). Counted from
    today, the help's examples found nothing on the bundled sample while `topic`
    counted 47 papers in the last four weeks. For latest, search and ask, which
    people read; export, which cron jobs write feeds with, counts from today."""
    from papertrack.dates import shown_day

    if text is None or start is None:
        return start
    found = span_on_store(text, store)
    if found is None:
        return start
    day, moved = found
    # "to that day", not "as momentum measures": '4 weeks ago' is 29 days with it,
    # where momentum's last four weeks are 28, and the note read as a promise.
    say(
        f"Note: the newest paper in the store is from {shown_day(day)}, more than a week "
        "ago: topic, momentum and trending measure such a store to that day unless given "
        f"--as-of, and --since {text.strip()!r} counts back from it too, to "
        f"{shown_day(moved.date())}. Fetch new papers, or give --since a date."
    )
    return moved


def as_of_moved(text: str, newest: date, day: date) -> str:
    """The note for an --as-of span (``text``) counted back from the newest paper's
    day ``newest`` of a store behind, to ``day`` (:func:`span_on_store`)."""
    from papertrack.dates import shown_day

    return (
        f"Note: the newest paper in the store is from {shown_day(newest)}, more than a "
        f"week ago: --as-of {text.strip()!r} counts back from it, to {shown_day(day)}. "
        "Fetch new papers, or give --as-of a date."
    )


def span_on_store(text: str, store: Store) -> tuple[date, datetime] | None:
    """The newest paper's day of a store more than a week behind, and the start the
    span ``text`` ('2 weeks ago', :func:`papertrack.dates.is_span`) gives counted
    back from it; None for a store that is current, or ``text`` that is no span."""
    from datetime import UTC, datetime, time

    from papertrack.dates import is_span, parse_date

    if not is_span(text):
        return None
    today = datetime.now(UTC).date()
    day = behind_store_day(store, today, quiet=True)
    if day == today:
        return None
    try:
        return day, parse_date(text, now=datetime.combine(day, time(12), UTC))
    except UsageError:
        return None  # a span back past the calendar's start from that day


def say_behind(day: date) -> None:
    """The note of :func:`behind_store_day`: the store is shown as of ``day``."""
    from papertrack.dates import shown_day

    say(
        f"Note: the newest paper in the store is from {shown_day(day)}, more than "
        "a week ago: showing the store as of that day. Fetch new papers, or choose the "
        "day with --as-of."
    )


def load_catalog(*, storing: bool = False) -> Catalog:
    """The topics (:meth:`Catalog.of_home`), their warnings said. ``storing``: for
    ingest and fetch, which store papers even when topics.toml cannot be read
    (:meth:`Catalog.for_storing`)."""
    from papertrack.topics import Catalog

    catalog = Catalog.for_storing() if storing else Catalog.of_home()
    for warning in catalog.warnings:
        say(f"Warning: {warning}{'' if warning.endswith(('.', '?', '!')) else '.'}")
    return catalog


@contextlib.contextmanager
def busy(
    doing: str, *, show: bool = True, unit: str = "week file"
) -> Iterator[Callable[[int, int], None]]:
    """A spinner on stderr while a slow step runs: ``doing`` ("Searching"), then the
    week files read so far, from the core's progress callback that this yields.

    Only when stderr is a terminal: piped or redirected (cron, a log file, the
    tests) nothing is drawn, so no spinner bytes reach a file. The spinner is
    transient: it is gone when the step ends, before the command's own output.
    ``show=False`` draws nothing either (output streaming to the same terminal).
    """
    if not show or not sys.stderr.isatty():
        yield lambda done, total: None
        return
    from rich.markup import escape

    with err().status(escape(doing) + "…") as status:

        def progress(done: int, total: int) -> None:
            status.update(f"{escape(doing)}… {unit} {min(done + 1, total):,} of {total:,}")

        yield progress


def fresh_tags(store: Store, catalog: Catalog, *, said: bool = False) -> None:
    """Retag stored papers before answering if a topic definition changed since they
    were tagged (:func:`papertrack.store.bring_current`), under a spinner on a terminal;
    a read-only store is read as it is, with a note. What a retag moved goes to the
    log, and to stderr too with ``said`` (a teach: its user is there to read it) or
    when stderr is a terminal: a retag after a Ctrl-C took 20 s and said nothing."""
    from papertrack.store import bring_current

    def record(text: str) -> None:
        if said or sys.stderr.isatty():
            say(f"Note: {text}")  # (say logs it too)
        else:
            log(text)  # the log only off a terminal: a cron job's mail is not the place

    bring_current(
        store,
        catalog,
        note=lambda text: say(f"Note: {text}"),
        busy=lambda doing, unit: busy(doing, unit=unit),
        record=record,
    )


_Formats = TypeVar("_Formats", bound=StrEnum)


def pick_format(fmt: _Formats, as_json: bool) -> _Formats:
    """``fmt``, or its enum's "json" member when ``--json`` was given.

    Raises:
        UsageError: ``--json`` with a format other than json and the default (its
            enum's first member): two formats asked for.
    """
    if not as_json:
        return fmt
    kind = type(fmt)
    if fmt not in (next(iter(kind)), kind("json")):
        raise UsageError(f"--json and --format {fmt.value} ask for two formats. Give one of them")
    return kind("json")


def emit_papers(papers: Sequence[Paper], fmt: Format, table: Callable[[], Any]) -> None:
    """Papers as ``fmt``: the JSON of :meth:`Paper.to_dict`, CSV of export's columns, or a table."""
    from papertrack.cli.output import emit

    if fmt is Format.csv:
        from papertrack.cli.output import write_csv
        from papertrack.export import CSV_COLUMNS, csv_row

        # Export's rows: their cells are made inert already (a second pass would add a
        # second quote to every guarded cell).
        write_csv(CSV_COLUMNS, (csv_row(p) for p in papers))
        return
    rows = [p.to_dict() for p in papers] if fmt in (Format.json, Format.jsonl) else papers
    emit(fmt.value, rows, table)


def _no_blank(hint: str) -> Callable[[list[str] | None], list[str] | None]:
    """A ``--category`` callback: an empty ``-c ''`` (a variable left unset) names no
    category, and read as none it quietly kept every paper. ``hint`` says what to give."""

    def check(values: list[str] | None) -> list[str] | None:
        for value in values or ():
            if not value.strip():
                raise typer.BadParameter(f"'' names no category. {hint}")
        return values

    return check


no_blank_category = _no_blank("Give one like cs.AI, or cs.* for a group")
#: fetch asks arXiv for whole categories: its hint was cs.*, which fetch then refused.
no_blank_fetch_category = _no_blank("Name each one to fetch: -c cs.AI -c cs.CL")


def note_operator_words(query: str) -> None:
    """Say the notes on how ``query`` is read (:func:`papertrack.hints.query_notes`)."""
    from papertrack import hints

    for note in hints.query_notes(query):
        say(f"Note: {note}")


def note_topic_store(store: Store, topic: Topic | None) -> None:
    """Warn of what in a topic of the user's file can match no stored paper
    (:func:`papertrack.hints.topic_notes`): a category mistyped by hand."""
    if topic is None:
        return
    from papertrack import hints

    for note in hints.topic_notes(store, topic):
        say(f"Warning: {note}")


def note_query_store(store: Store, query: str) -> None:
    """Say the notes on ``query`` that need the store (:func:`papertrack.hints.store_notes`)."""
    from papertrack import hints

    for note in hints.store_notes(store, query):
        say(f"Note: {note}")
