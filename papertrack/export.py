"""Find and use stored papers: look one up, search them, write them out as BibTeX, Atom or data.

Everything here streams the store's week files newest first, one file in memory at a
time, and never prints: the CLI (:mod:`papertrack.cli.find`) renders and writes.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import itertools
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, TextIO
from urllib.parse import quote
from xml.etree import ElementTree as ET

from papertrack.errors import PapertrackError, UsageError
from papertrack.ids import abs_url, parse_paper_id, stored_arxiv_id
from papertrack.models import Paper, Progress, paper_date_key, utc_text
from papertrack.text import TEX_ACCENT_MARKS, UNSHOWN_RE, is_web, json_text, web_url

if TYPE_CHECKING:
    from papertrack.matching import Matcher
    from papertrack.query import Node
    from papertrack.store import Candidates, Store
    from papertrack.topics import Topic

__all__ = [
    "CSV_COLUMNS",
    "EXPORT_FORMATS",
    "SearchResult",
    "atom_entry",
    "bibtex_entry",
    "bibtex_escape",
    "bibtex_key",
    "csv_cell",
    "csv_row",
    "iter_papers",
    "resolve_id",
    "search_papers",
    "title_matcher",
    "write_export",
]

EXPORT_FORMATS = ("bibtex", "json", "jsonl", "csv", "atom")

# --------------------------------------------------------------------------- show


def resolve_id(text: str, *, stored: bool = False) -> str:
    """The versionless id named by ``text`` in any form :func:`parse_paper_id` accepts.
    ``stored``: ``text`` was looked up as a stored entry's own id first, and the
    error says so (an entry of another feed, "blog-post-2", is no arXiv id either).

    Raises:
        UsageError: when ``text`` is not an arXiv identifier.
    """
    parsed = parse_paper_id(text)
    if parsed is None:
        parts = [part.strip() for part in text.replace(";", ",").split(",")]
        if len(parts) > 1 and all(parse_paper_id(part) for part in parts if part):
            # "2606.14397,2606.16432": ids are separate arguments.
            raise UsageError(
                f"{text!r} is several arXiv ids in one. Separate them with spaces: "
                f"{' '.join(part for part in parts if part)}"
            )
        forms = (
            "2508.13167, 2508.13167v2, arXiv:2508.13167, cs/0503050 or "
            "https://arxiv.org/abs/2508.13167"
        )
        if stored:
            raise UsageError(
                f"{text!r} is not an arXiv id, nor the id of a stored paper. Give one as "
                f"{forms}, or a stored paper's id as 'papertrack latest --json' lists it"
            )
        raise UsageError(f"{text!r} is not an arXiv id. Give one as {forms}")
    return parsed[0]


#: Longer text is no paper id of any feed: it is not looked up as one.
MAX_ID_CHARS = 2000


def other_version(given: str, paper: Paper, doing: str) -> str | None:
    """What to say when ``given`` names a version of ``paper`` the store does not hold
    ("2606.18448v2 is not stored; showing the stored version (v1). …"), else None:
    ``show`` says it on stderr, the Python API as a warning."""
    from papertrack.ids import parse_paper_id

    asked = parse_paper_id(given)
    if asked is None or asked[1] is None or asked[1] == paper.version:
        return None
    stored = f"v{paper.version}" if paper.version else "no version named"
    # An older version is never stored over a newer one: no ingest brings it.
    how = (
        "The store keeps a paper's newest version."
        if paper.version and asked[1] < paper.version
        else f"Ingest a feed that lists v{asked[1]} to store it."
    )
    return f"{asked[0]}v{asked[1]} is not stored; {doing} the stored version ({stored}). {how}"


def find_paper(store: Store, text: str) -> Paper | None:
    """The stored paper ``text`` names, or None.

    A paper of a generic (non-arXiv) feed is stored under its feed's own id, the
    one ``latest --json`` lists, so ``text`` is looked up as it is first, then as
    an arXiv id in any form :func:`resolve_id` accepts.

    Raises:
        UsageError: ``text`` is neither a stored id nor an arXiv identifier.
    """
    key = text.strip()  # pasted with a space: as the id it names
    paper = store.get(key) if len(key) <= MAX_ID_CHARS else None
    return paper or store.get(resolve_id(text, stored=True))  # an error names the text as given


def find_papers(store: Store, texts: Iterable[str], *, lenient: bool = False) -> dict[str, Paper]:
    """:func:`find_paper` of each of ``texts``, by the text as given (those the store
    lacks are left out), each week file read once (:meth:`Store.get_many`).

    Raises:
        UsageError: the first of ``texts`` that the store lacks and that is neither a
            stored id nor an arXiv identifier (``lenient``: left out as well).
    """
    texts = list(dict.fromkeys(texts))
    keys = {text: text.strip() for text in texts}
    direct = store.get_many(key for key in keys.values() if len(key) <= MAX_ID_CHARS)
    found = {text: direct[key] for text, key in keys.items() if key in direct}
    resolved: dict[str, str] = {}
    for text in texts:
        if text not in found:
            try:
                resolved[text] = resolve_id(text, stored=True)
            except UsageError:
                if not lenient:
                    raise
    stored = store.get_many(resolved.values())
    found.update((text, stored[key]) for text, key in resolved.items() if key in stored)
    return found


def no_such_paper(text: str) -> PapertrackError:
    """The error for a paper ``text`` names that the store lacks (exit 1).

    Raises:
        UsageError: ``text`` is not an arXiv identifier (exit 2).
    """
    return PapertrackError(
        f"no paper {resolve_id(text)} in the store. Ingest a feed that lists it "
        "('papertrack fetch' or 'papertrack ingest FILE'), or check the id"
    )


# --------------------------------------------------------------------------- search


def title_matcher(node: Node) -> Matcher | None:
    """A test for "the query hit the title": any positive word or phrase found in the title.

    Terms without a field search title and abstract, so they count as title hits
    when found in the title; ``title:`` terms count too. None when the query has
    no such term (``author:`` or ``category:`` only): then no paper is a title hit.
    """
    from papertrack.matching import compile_query
    from papertrack.query import Or, Term, query_terms

    terms: dict[Term, None] = {}
    for term, positive in query_terms(node):
        if positive and isinstance(term, Term) and term.field in ("text", "title"):
            terms.setdefault(Term("title", term.words, term.prefix), None)
    if not terms:
        return None
    children = tuple(terms)
    return compile_query(children[0] if len(children) == 1 else Or(children))


@dataclass(slots=True)
class SearchResult:
    """The best ``limit`` matches, title hits first, and how many matches were seen."""

    papers: list[Paper] = field(default_factory=list)
    #: Matches seen; all matches unless ``complete`` is False.
    seen: int = 0
    #: False when the scan stopped early because older weeks could not change the answer.
    complete: bool = True


def search_papers(
    store: Store,
    query: Topic,
    *,
    topic: str | None = None,
    limit: int = 20,
    since: datetime | None = None,
    progress: Progress | None = None,
) -> SearchResult:
    """Papers matching ``query`` (inside ``topic``, a slug, when given; dated on or
    after ``since``, when given), ranked.

    Ranking: papers with a title hit (see :func:`title_matcher`) before papers
    that match elsewhere only (abstract, authors, categories), then newest paper
    date first, then arxiv_id.

    Week files are read newest first, one at a time. Only the newest ``limit``
    title hits and the newest ``limit`` other hits are kept, so memory stays
    bounded by ``2 * limit`` papers however large the store. Every match must be
    seen to be sure no title hit is missed, except that once ``limit`` title
    hits are in hand after a whole week, older weeks can only add older papers
    that rank below them, and the scan stops there (for a query no title can hit,
    once ``limit`` matches are): the answer is exact either way.
    ``progress`` is told (weeks read, weeks in all) before each week file.
    """
    from papertrack.matching import PaperText
    from papertrack.tex import render_tex

    in_title = title_matcher(query.node)
    title_hits: list[Paper] = []
    other_hits: list[Paper] = []
    result = SearchResult()
    from papertrack.store import UNDATED, week_of

    within = store.candidates(query.node)
    weeks = [w for w in store.weeks() if within is None or w in within]
    if topic is not None:
        # Only the weeks that hold the topic's papers, and in them only its papers are
        # matched: matched first and then filtered, a 47-paper topic took 4-10 s.
        holding = store.topic_weeks(topic)
        weeks = [w for w in weeks if w in holding]
    if since is not None:
        # Weeks come newest first: the first one before ``since`` ends the list.
        since_week = week_of(since)
        weeks = list(itertools.takewhile(lambda w: w != UNDATED and w >= since_week, weeks))
    for done, week in enumerate(weeks):
        if progress is not None:
            progress(done, len(weeks))
        # With no word that could hit a title (NOT agent, abstract:model*, category:cs.*)
        # every match ranks by date alone, as in latest: it read the whole store (4-5 s
        # at 83,510 papers) for what the newest weeks hold.
        enough = title_hits if in_title is not None else other_hits
        if len(enough) >= limit:
            result.complete = False
            break
        for paper in store.search_week(week, query.matches_fields, within, topic):
            if not paper.dated_from(since):
                continue
            result.seen += 1
            # The title alone: the test reads nothing else, and splitting the abstract
            # again was half of a search for a word most abstracts hold.
            if in_title is not None and in_title(PaperText(render_tex(paper.title))):
                title_hits.append(paper)
            else:
                other_hits.append(paper)
        # Within a week papers are unsorted; across weeks newer weeks hold newer papers.
        title_hits = sorted(title_hits, key=paper_date_key, reverse=True)[:limit]
        other_hits = sorted(other_hits, key=paper_date_key, reverse=True)[:limit]
    result.papers = (title_hits + other_hits)[:limit]
    return result


# --------------------------------------------------------------------------- export


def iter_papers(
    store: Store,
    *,
    topic: str | None = None,
    since: datetime | None = None,
    match: Callable[[str, str, list[str], list[str]], bool] | None = None,
    within: Candidates | None = None,
    progress: Progress | None = None,
) -> Iterator[Paper]:
    """Every stored paper (of ``topic``, dated on or after ``since``, accepted by ``match``).

    Newest paper date first; one week file in memory at a time. ``within`` (see
    :meth:`Store.candidates`) limits the weeks read; ``progress`` is told (weeks
    read, weeks in all) before each week file.
    """
    from papertrack.store import UNDATED, week_of

    since_week = week_of(since) if since else None
    weeks = store.weeks()
    if topic is not None:
        holding = store.topic_weeks(topic)  # (order kept: since_week ends the loop)
        weeks = [w for w in weeks if w in holding]
    # A writer may move a paper to another week (a newer version, a better date)
    # between the reads of two weeks: its two copies are listed once.
    seen: set[str] = set()
    for done, week in enumerate(weeks):
        if progress is not None:
            progress(done, len(weeks))
        if since_week is not None and (week == UNDATED or week < since_week):
            break
        papers = store.search_week(week, match, within, topic)
        keep = [p for p in papers if p.dated_from(since) and p.arxiv_id not in seen]
        seen.update(p.arxiv_id for p in keep)
        yield from sorted(keep, key=paper_date_key, reverse=True)


CSV_COLUMNS = (
    "arxiv_id",
    "version",
    "paper_date",
    "published",
    "updated",
    "announced",
    "primary_category",
    "categories",
    "title",
    "authors",
    "affiliations",
    "tags",
    "doi",
    "url",
    "pdf_url",
)


#: Columns papertrack writes itself (a version number, ISO 8601 times): never feed text.
_OWN_CSV_COLUMNS = frozenset({"version", "paper_date", "published", "updated", "announced"})
#: What makes a spreadsheet read a cell as a formula (OWASP, "CSV Injection"); and
#: the quote that guards one, which a spreadsheet takes as its text mark and hides.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "'")


def csv_cell(text: str) -> str:
    """Feed text made inert for spreadsheets: a leading ``'`` when it would start a formula.

    Spreadsheets run a cell that starts with ``=``, ``+``, ``-`` or ``@`` as a
    formula, and some skip a leading tab or carriage return before looking, so a
    title such as ``=HYPERLINK("http://…")`` in an opened CSV could fetch a URL or
    worse. The quote makes the cell plain text, as OWASP's "CSV Injection" page advises.
    A cell that starts with a quote of its own gets one more: a spreadsheet hid the
    first ("'Your AI Text is not Mine'" lost it), and a script could not tell the
    guard from the text. So a cell starting with ``'`` had exactly one added.
    """
    text = _CONTROL_RE.sub("", text)  # nothing a terminal showing the file could act on
    return "'" + text if text.startswith(_FORMULA_START) else text


def csv_row(paper: Paper) -> list[str]:
    """One CSV row of :data:`CSV_COLUMNS`: lists joined with '; ', None as ''.

    Every cell of feed text goes through :func:`csv_cell`; the version and the
    dates are papertrack's own and are written as they are.
    """
    data = paper.to_dict()
    row = []
    for key in CSV_COLUMNS:
        value = data[key]
        cell = "; ".join(value) if isinstance(value, list) else "" if value is None else str(value)
        row.append(cell if key in _OWN_CSV_COLUMNS else csv_cell(cell))
    return row


# BibTeX ---------------------------------------------------------------------

_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_LATEX_RE = re.compile(r"[\\{}&%$#_~^]")
# Control characters, and the invisible and bidi formatting ones a feed may carry,
# mean nothing in TeX or XML and could hide or reorder text; the parsers remove them
# already, so this only guards against a store written before they did.
_CONTROL_RE = UNSHOWN_RE
_SPACE_RE = re.compile(r"\s+")


def bibtex_escape(text: str) -> str:
    """Feed text made literal for (La)TeX: every special character escaped, one line.

    In one pass, so the backslash of ``\\&`` is never escaped again. Feed text is
    treated as plain text: TeX a feed carries (``$\\alpha$``) is printed as written,
    never run, so a hostile title cannot break the entry or the document. Greek
    letters, math symbols and raised or lowered digits, which papertrack renders TeX
    into and pdfLaTeX cannot set from UTF-8, are written as TeX (:func:`_pdftex_table`).
    """
    text = _SPACE_RE.sub(" ", _CONTROL_RE.sub("", text)).strip()
    # BibTeX ends a field at the brace that balances its opening one, and it counts
    # escaped braces too: "\}" closes the field as well as "}" would. A title such
    # as "x}, note = y} @misc(evil, …" could then end the entry and start another.
    # So only braces that pair up inside the text become "\{" "\}"; the others are
    # written as commands whose own braces are balanced.
    paired = _paired_braces(text)

    def escape(match: re.Match[str]) -> str:
        char = match.group()
        if char in "{}" and match.start() not in paired:
            return r"\textbraceleft{}" if char == "{" else r"\textbraceright{}"
        return _LATEX_SPECIALS[char]

    text = _LATEX_RE.sub(escape, text)
    if text.isascii():
        return text
    return _BEYOND_PDFTEX.sub(_accented, text.translate(_pdftex_table()))


#: Letters pdfLaTeX's UTF-8 input does not set: beyond Latin-1 and Latin Extended-A,
#: or a letter with a combining mark written after it ("V̱", V and U+0331), with
#: the marks that follow.
_BEYOND_PDFTEX = re.compile("[^\x00-\u017f\u0300-\u036f][\u0300-\u036f]*|[A-Za-z][\u0300-\u036f]+")

#: Accents set below a letter: an i or a j keeps its dot under them.
_BELOW = frozenset("dckb")

#: The LaTeX accent command of each combining mark a letter may carry: the commands
#: papertrack reads TeX accents from, the other way round.
_ACCENTS = {mark: command for command, mark in TEX_ACCENT_MARKS.items()}


def _accented(match: re.Match[str]) -> str:
    """A Latin letter with accents pdfLaTeX has no UTF-8 for, as LaTeX accent
    commands: "ȩ" (U+0229) is ``{\\c{e}}``, "ệ" ``{\\^{\\d{e}}}``. Two real authors'
    names (Wałȩga, Tolúlọpé) stopped a pdfLaTeX build of the export ("Unicode
    character ȩ (U+0229) not set up for use with LaTeX"). Anything else stays."""
    import unicodedata

    char = match.group()
    decomposed = unicodedata.normalize("NFD", char)
    base, marks = decomposed[0], decomposed[1:]
    if not base.isascii() or not base.isalpha() or not marks:
        return char
    if any(mark not in _ACCENTS for mark in marks):
        return char
    commands = [_ACCENTS[mark] for mark in marks]
    # "ǐ" is \v{\i}: \v{i} printed the dot and the caron both.
    text = f"\\{base}" if base in "ij" and not _BELOW.issuperset(commands) else base
    for command in commands:
        text = f"\\{command}{{{text}}}"
    return f"{{{text}}}"


@functools.cache
def _pdftex_table() -> dict[int, str]:
    """Characters beyond Latin-1 that papertrack's TeX rendering makes, as the TeX
    that prints them: pdfLaTeX, Overleaf's default, stops at a Greek letter or a math
    symbol in a .bib ("Unicode character α (U+03B1) not set up for use with LaTeX").
    Greek letters and symbols become math (``{$\\alpha$}``), raised and lowered
    digits ``\\textsuperscript``/``\\textsubscript``. Latin-1 (``×``, ``²``,
    accented letters) stays: pdfLaTeX's UTF-8 input sets it."""
    from papertrack.tex import GREEK, MATH_SYMBOLS, SCRIPTS

    # ε and φ are TeX's \\varepsilon and \\varphi; its \\epsilon and \\phi are ϵ and ϕ.
    table: dict[int, str] = {
        ord(char): f"{{$\\{command}$}}"
        for char, command in (("ε", "varepsilon"), ("φ", "varphi"), ("ϵ", "epsilon"), ("ϕ", "phi"))
    }
    for names in (MATH_SYMBOLS, GREEK):
        for command, symbol in names.items():  # \leq before \le: the first name wins
            if len(symbol) == 1 and ord(symbol) > 0xFF:
                table.setdefault(ord(symbol), f"{{$\\{command}$}}")
    for command, raised in SCRIPTS.items():
        for plain, code in raised.items():
            if code > 0xFF:
                table.setdefault(code, f"\\{command}{{{chr(plain)}}}")
    return table


def _paired_braces(text: str) -> set[int]:
    """Positions of the braces in ``text`` that open and close each other, properly nested."""
    if "{" not in text or "}" not in text:
        return set()
    opened: list[int] = []
    paired: set[int] = set()
    for index, char in enumerate(text):
        if char == "{":
            opened.append(index)
        elif char == "}" and opened:
            paired.update((opened.pop(), index))
    return paired


def bibtex_verbatim(text: str) -> str:
    """A URL, DOI or eprint for BibTeX: read verbatim by biblatex and the url package.

    LaTeX escapes would corrupt them (a DOI with ``_`` would read ``\\_``), so only
    what could end the field or start a command is dropped: backslashes, white
    space, control characters and braces that do not pair up (a DOI may hold a pair,
    which a braced field keeps as it is).
    """
    text = _CONTROL_RE.sub("", text)
    text = "".join(ch for ch in text if ch != "\\" and not ch.isspace())
    paired = _paired_braces(text)
    return "".join(ch for i, ch in enumerate(text) if ch not in "{}" or i in paired)


def bibtex_key(paper: Paper) -> str:
    """``arxiv:2508.13167``: stable across runs and versions, unique because the id is.

    Entries of other feeds (no arXiv id) get ``feed:`` and a hash of their guid, so
    no feed text ever reaches the key.
    """
    arxiv_id = stored_arxiv_id(paper.arxiv_id)
    if arxiv_id is not None:
        return f"arxiv:{arxiv_id}"
    return "feed:" + hashlib.sha1(paper.arxiv_id.encode("utf-8")).hexdigest()[:12]


def _bib_author(name: str) -> str:
    escaped = bibtex_escape(name)
    # A name containing the word "and" would be split into two authors, and one with
    # a comma read as "Last, First" ("Google, Inc." as I. Google; two commas made
    # strict parsers refuse the file): brace it, so it is one name as written.
    if "," in escaped or re.search(r"\band\b", escaped, re.IGNORECASE):
        return f"{{{escaped}}}"
    words = escaped.split()
    if len(words) >= 3 and words[-1] in _NAME_SUFFIXES:
        # "Martin Luther King Jr." read as first "Martin Luther King", last "Jr.": it
        # was cited as "Jr., M. L. K.". BibTeX's "von Last, Jr, First" form keeps the
        # suffix where it belongs, and any lower-case particle ("de la") with the last name.
        *given, last = words[:-1]
        von = len(given)
        while von > 1 and given[von - 1][:1].islower():
            von -= 1
        return f"{' '.join([*given[von:], last])}, {words[-1]}, {' '.join(given[:von])}"
    return escaped


#: Name suffixes BibTeX must be told apart from the last name.
_NAME_SUFFIXES = frozenset({"Jr.", "Jr", "Sr.", "Sr", "II", "III", "IV"})


# A word between any opening and closing punctuation.
_WORD_RE = re.compile(r"^([(\[\"'`]*)(.+?)([)\]\"',.:;!?]*)$")
# A capital after the first letter or digit of a word or of one of its hyphenated
# parts: an acronym or a name (LLM, GPT-4o, ReAct, UI-KOBE), not Title-Case
# ("Knowledge-Oriented", which sentence case may lower).
_KEEP_CASE_RE = re.compile(r"(?:^|-)(?:\\[#$%&_])?[A-Za-z0-9][^ -]*[A-Z]")


def _case_kept(title: str) -> str:
    """``title`` with its acronyms and names braced: ``{GUI} Agents with {LLMs}``.

    The standard BibTeX styles (plain, abbrv, alpha, acm, ...) print titles in
    sentence case, so "GUI Agents with LLMs" came out "Gui agents with llms". Braces
    keep a word as written; words capitalised only at the start are left to the
    style. Punctuation stays outside, where the styles look for a colon.
    """
    words = []
    for word in title.split(" "):
        match = _WORD_RE.match(word)
        if match and _KEEP_CASE_RE.search(match[2]):
            core, after = match[2], match[3]
            # A bracket the word opened closes inside its braces: {SE(3)}, not {SE(3}).
            while after[:1] in (")", "]") and core.count(
                "(" if after[0] == ")" else "["
            ) > core.count(after[0]):
                core, after = core + after[0], after[1:]
            # A group opening with a command is a "special character" to BibTeX,
            # whose letters it still lowers: a second pair of braces stops that.
            core = f"{{{core}}}" if core.startswith("\\") else core
            word = f"{match[1]}{{{core}}}{after}"
        words.append(word)
    return " ".join(words)


_MONTH_MACROS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def bibtex_entry(paper: Paper) -> str:
    """One ``@misc`` entry with eprint, archivePrefix, primaryClass, url and doi."""
    fields: list[tuple[str, str]] = [("title", _case_kept(bibtex_escape(paper.title)))]
    if paper.authors:
        fields.append(("author", " and ".join(_bib_author(a) for a in paper.authors)))
    if paper.paper_date:
        fields.append(("year", str(paper.paper_date.year)))
        # The month macro (jan … dec), unbraced: BibTeX styles print it as the
        # style's month name; a braced number prints as "2".
        fields.append(("month", _MONTH_MACROS[paper.paper_date.month - 1]))
    arxiv_id = stored_arxiv_id(paper.arxiv_id)
    if arxiv_id is not None:
        fields.append(("eprint", bibtex_verbatim(arxiv_id)))
        fields.append(("archivePrefix", "arXiv"))
        if paper.primary_category:
            fields.append(("primaryClass", bibtex_escape(paper.primary_category)))
        fields.append(("url", bibtex_verbatim(abs_url(arxiv_id))))
    elif url := web_url(paper.url):
        # As in the Atom export: a javascript: or file: link is no reference.
        fields.append(("url", url))
    if paper.doi:
        fields.append(("doi", bibtex_verbatim(paper.doi)))
    if paper.journal_ref:
        fields.append(("note", bibtex_escape(paper.journal_ref)))
    if paper.version is not None and arxiv_id is not None:
        fields.append(("version", str(paper.version)))
    if paper.abstract:
        fields.append(("abstract", bibtex_escape(paper.abstract)))
    width = max(len(name) for name, _ in fields)
    body = ",\n".join(
        f"  {name:<{width}} = {value if name == 'month' else '{' + value + '}'}"
        for name, value in fields
    )
    return f"@misc{{{bibtex_key(paper)},\n{body}\n}}\n"


# Atom -----------------------------------------------------------------------

ATOM_NS = "http://www.w3.org/2005/Atom"
# XML 1.0 forbids some of these even escaped (a feed reader would reject the file);
# the others are the control and invisible characters of UNSHOWN_RE.
_XML_INVALID_RE = UNSHOWN_RE  # U+FFFE and U+FFFF among them (noncharacters)


def _xml_text(text: str) -> str:
    return _XML_INVALID_RE.sub("", text)


def _entry_id(paper: Paper) -> str:
    arxiv_id = stored_arxiv_id(paper.arxiv_id)
    if arxiv_id is not None:
        return abs_url(arxiv_id)
    return "urn:papertrack:" + quote(paper.arxiv_id, safe="")


def sub_element(parent: ET.Element, tag: str, text: str | None = None, **attrib: str) -> ET.Element:
    element = ET.SubElement(parent, tag, {k: _xml_text(v) for k, v in attrib.items()})
    if text is not None:
        element.text = _xml_text(text)
    return element


#: arXiv's own namespace, as its API feeds use it (primary category, affiliations, DOI).
ARXIV_NS = "http://arxiv.org/schemas/atom"
#: papertrack's namespace: the stored fields Atom has no element for, so that
#: ``papertrack ingest`` reads the export back unchanged (feed readers skip them).
PAPERTRACK_NS = "urn:papertrack:schema:export:1"


def atom_entry(paper: Paper, now: datetime) -> str:
    """One ``<entry>``: every feed-supplied string is element text or an attribute
    value, escaped by ElementTree, so no feed text can become markup.

    Besides the Atom elements a feed reader shows, it carries the rest of the
    stored paper in the ``arxiv:`` and ``papertrack:`` namespaces (declared on the
    feed), the exact dates among them: Atom's ``<published>`` is the paper date,
    which for a paper known from a listing only is its announcement, not a
    submission date.
    """
    entry = ET.Element("entry")
    sub_element(entry, "id", _entry_id(paper))
    sub_element(entry, "title", paper.title, type="text")
    updated = paper.changed_at or now
    sub_element(entry, "updated", utc_text(updated))
    if paper.paper_date:
        sub_element(entry, "published", utc_text(paper.paper_date))
    for index, name in enumerate(paper.authors):
        author = sub_element(entry, "author")
        sub_element(author, "name", name)
        if index < len(paper.author_affiliations):
            for affiliation in paper.author_affiliations[index]:
                sub_element(author, "arxiv:affiliation", affiliation)
    # A javascript: or file: link is no link.
    link = web_url(_entry_id(paper) if stored_arxiv_id(paper.arxiv_id) else paper.url) or None
    if link is not None:
        sub_element(entry, "link", rel="alternate", type="text/html", href=link)
    pdf = web_url(paper.pdf_url)
    if pdf:
        sub_element(entry, "link", rel="related", type="application/pdf", href=pdf)
    for category in paper.categories:
        sub_element(entry, "category", term=category)
    if paper.abstract:
        sub_element(entry, "summary", paper.abstract, type="text")
    if link is None:
        # RFC 4287 §4.1.1.1: an entry without an alternate link must have content
        # (an entry of another feed whose link was no web address, or none).
        sub_element(entry, "content", paper.abstract, type="text")
    if paper.primary_category:
        sub_element(entry, "arxiv:primary_category", term=paper.primary_category)
    for name in ("comment", "journal_ref", "doi"):
        value = getattr(paper, name)
        if value:
            sub_element(entry, "arxiv:" + name, value)
    record = paper.to_record()
    if stored_arxiv_id(paper.arxiv_id) is None:
        sub_element(entry, "papertrack:id", paper.arxiv_id)
    if paper.version is not None:
        sub_element(entry, "papertrack:version", str(paper.version))
    for name in ("published", "updated", "announced", "announce_type", "license"):
        if record[name]:
            sub_element(entry, "papertrack:" + name, record[name])
    for name in ("url", "pdf_url"):
        # Only web links: a feed's "javascript:" URL is not carried into anyone's reader.
        if record[name] and is_web(str(record[name])):
            sub_element(entry, "papertrack:" + name, record[name])
    return ET.tostring(entry, encoding="unicode") + "\n"


#: The ``<updated>`` of an Atom entry for a paper with no date, and of a feed of
#: no entries (RFC 4287 requires one): the Unix epoch, the same every run.
UNDATED_STAMP = datetime(1970, 1, 1, tzinfo=UTC)


def atom_head(
    title: str,
    feed_id: str,
    updated: datetime,
    *,
    subtitle: str = "",
    page: str | None = None,
    self_url: str | None = None,
) -> str:
    """An Atom feed's opening, up to its entries: the export's and the site's feeds.

    ``page`` is the HTML page the feed is of (``rel="alternate"``), ``self_url``
    where the feed itself lives (RFC 4287 §4.2.7.2; feed validators ask for it).
    The entries carry the stored paper in the arxiv: and papertrack: namespaces.
    """
    head = ET.Element(
        "feed",
        {"xmlns": ATOM_NS, "xmlns:arxiv": ARXIV_NS, "xmlns:papertrack": PAPERTRACK_NS},
    )
    sub_element(head, "title", title, type="text")
    if subtitle:
        sub_element(head, "subtitle", subtitle, type="text")
    sub_element(head, "id", feed_id)
    sub_element(head, "updated", utc_text(updated))
    if page:
        sub_element(head, "link", rel="alternate", type="text/html", href=page)
    if self_url:
        sub_element(head, "link", rel="self", type="application/atom+xml", href=self_url)
    # Entries without authors inherit this one (RFC 4287 §4.1.1 needs an author somewhere).
    sub_element(sub_element(head, "author"), "name", "papertrack")
    sub_element(head, "generator", "papertrack")
    text = ET.tostring(head, encoding="unicode")
    # ElementTree writes an empty-content element in full; cut before the closing tag.
    return '<?xml version="1.0" encoding="utf-8"?>\n' + text.removesuffix("</feed>") + "\n"


# Writing --------------------------------------------------------------------


def write_export(
    papers: Iterable[Paper],
    fmt: str,
    stream: TextIO,
    *,
    title: str = "papertrack export",
    now: datetime | None = None,
    self_url: str | None = None,
) -> int:
    """Write ``papers`` to ``stream`` in ``fmt`` (one of :data:`EXPORT_FORMATS`), as they come.

    ``now``: an Atom feed's stamp where no paper gives one (default
    :data:`UNDATED_STAMP`).

    ``self_url`` is where an Atom feed will be found, its ``rel="self"`` link
    (default: the feed's own ``urn:`` id, for a feed written to a pipe).

    Returns:
        How many papers were written.
    """
    # An undated paper's entry, and a feed of none, are stamped with a fixed time,
    # not the run's: a cron job's empty feed changed every run with no paper changed.
    now = now or UNDATED_STAMP
    count = 0
    if fmt == "json":
        stream.write("[")
        for paper in papers:
            item = json_text(paper.to_dict(), indent=2)
            # The same text json.dumps(list, indent=2) gives, one paper at a time.
            stream.write(("," if count else "") + "\n  " + item.replace("\n", "\n  "))
            count += 1
        stream.write("\n]\n" if count else "]\n")
    elif fmt == "jsonl":
        for paper in papers:
            stream.write(json_text(paper.to_dict()) + "\n")
            count += 1
    elif fmt == "csv":
        writer = csv.writer(stream, lineterminator="\n")
        writer.writerow(CSV_COLUMNS)
        for paper in papers:
            writer.writerow(csv_row(paper))
            count += 1
    elif fmt == "bibtex":
        for paper in papers:
            stream.write(("\n" if count else "") + bibtex_entry(paper))
            count += 1
    elif fmt == "atom":
        import shutil
        import tempfile

        digest = hashlib.sha1(title.encode("utf-8")).hexdigest()[:16]
        feed_id = f"urn:papertrack:export:{digest}"
        # The feed is as new as its newest entry, as a site's feeds are: stamped with
        # the time of the export, a cron job's feed changed every run with no paper
        # changed. The entries wait in a spooled file (memory, then disk) until the
        # newest is known.
        newest: datetime | None = None
        with tempfile.SpooledTemporaryFile(16 * 2**20, "w+", encoding="utf-8") as entries:
            for paper in papers:
                entries.write(atom_entry(paper, now))
                moment = paper.changed_at
                if moment is not None and (newest is None or moment > newest):
                    newest = moment
                count += 1
            stream.write(atom_head(title, feed_id, newest or now, self_url=self_url or feed_id))
            entries.seek(0)
            shutil.copyfileobj(entries, stream)
        stream.write("</feed>\n")
    else:
        raise UsageError(f"unknown export format {fmt!r}. Use one of {', '.join(EXPORT_FORMATS)}")
    return count
