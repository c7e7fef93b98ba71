"""Make untrusted feed text safe and readable: one line, no control codes, real accents.

Feed text ends up in a terminal, in JSON and in BibTeX, and a feed is written by
strangers. So everything a feed says goes through :func:`clean_text`, which
drops what could move the cursor, recolour the screen or reorder the line.
arXiv metadata is TeX, so :func:`decode_tex_accents` turns ``Andr\\'e`` into
``André`` (listing feeds, the Kaggle snapshot and OAI-PMH all carry raw TeX
accents).
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Sequence

__all__ = [
    "clean_text",
    "decode_tex_accents",
    "json_text",
    "names_plus",
    "one_line",
    "plus_more",
    "shorten",
    "strip_html",
    "visible",
]


#: Unicode's Bidi_Control characters: they reorder how a line is shown ("Trojan
#: Source"). Right-to-left letters themselves are kept.
BIDI_CONTROL: tuple[range, ...] = (
    range(0x061C, 0x061D),
    range(0x200E, 0x2010),
    range(0x202A, 0x202F),
    range(0x2066, 0x206A),
)
#: Unicode's Default_Ignorable_Code_Point characters (DerivedCoreProperties.txt):
#: shown as nothing, so they hide text and defeat matching ("LL\u200bM").
DEFAULT_IGNORABLE: tuple[range, ...] = (
    range(0x00AD, 0x00AE),
    range(0x034F, 0x0350),
    range(0x061C, 0x061D),
    range(0x115F, 0x1161),
    range(0x17B4, 0x17B6),
    range(0x180B, 0x1810),
    range(0x200B, 0x2010),
    range(0x202A, 0x202F),
    range(0x2060, 0x2070),
    range(0x3164, 0x3165),
    range(0xFE00, 0xFE10),
    range(0xFEFF, 0xFF00),
    range(0xFFA0, 0xFFA1),
    range(0xFFF0, 0xFFF9),
    range(0x1BCA0, 0x1BCA4),
    range(0x1D173, 0x1D17B),
    range(0xE0000, 0xE1000),
)
#: Unicode's noncharacters (U+FDD0-U+FDEF, and the last two code points of every
#: plane): never text, legal in XML, and a .bib holding one is refused whole by biber.
NONCHARACTERS: tuple[range, ...] = (
    range(0xFDD0, 0xFDF0),
    *(range(plane + 0xFFFE, plane + 0x10000) for plane in range(0, 0x110000, 0x10000)),
)
#: Every character no output of papertrack shows as it is: C0 controls but tab and
#: line feed, DEL, C1 controls, the three classes above, and lone UTF-16 surrogates
#: (JSON can spell "\ud800", but no UTF-8 file can hold it).
UNSHOWN: tuple[range, ...] = (
    range(0xD800, 0xE000),
    range(0x00, 0x09),
    range(0x0B, 0x20),
    range(0x7F, 0xA0),
    *BIDI_CONTROL,
    *DEFAULT_IGNORABLE,
    *NONCHARACTERS,
)


def _char_class(ranges: tuple[range, ...]) -> str:
    return "".join(
        re.escape(chr(r.start)) + ("-" + re.escape(chr(r.stop - 1)) if len(r) > 1 else "")
        for r in ranges
    )


#: One of :data:`UNSHOWN`: what :func:`visible` removes and :func:`json_text` escapes.
UNSHOWN_RE = re.compile(f"[{_char_class(UNSHOWN)}]")
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
#: What Python makes of a byte that is not UTF-8 (surrogateescape: U+DC80..U+DCFF),
#: on the command line or in a file read with errors="surrogateescape".
UNDECODED = re.compile("[\udc80-\udcff]")


#: Controls besides tab and line feed that separate words in practice: carriage
#: return, vertical tab, form feed, the ASCII information separators and NEL.
_BREAK_CODES = (0x0B, 0x0C, 0x0D, 0x1C, 0x1D, 0x1E, 0x1F, 0x85)


def _build_clean_table() -> dict[int, str | None]:
    table: dict[int, str | None] = {}
    for block in UNSHOWN:
        for code in block:
            table[code] = None
    # Controls that separate words in practice (tab, line and page breaks, the
    # ASCII information separators, NEL) become spaces, so "a\nb" stays two
    # words; the rest vanish. ESC vanishing is what makes a terminal escape
    # sequence inert.
    for code in (0x09, 0x0A, *_BREAK_CODES):
        table[code] = " "
    return table


_CLEAN_TABLE = _build_clean_table()
_WORD_BREAKS = dict.fromkeys(_BREAK_CODES, " ")
# A whole ANSI/VT escape sequence (CSI, OSC or a two-byte escape), removed as one
# piece so that its parameters ("[31m") do not linger once ESC is gone.
_ANSI_RE = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])|\x9b[0-?]*[ -/]*[@-~]"
)


def clean_text(s: str | None) -> str:
    """Turn untrusted feed text into one clean line.

    Collapses all whitespace (newlines included) to single spaces and strips
    the ends; removes C0/C1 control characters (so no terminal escape sequence
    survives), zero-width characters and bidi embedding/override/isolate
    controls; NFC-normalises. ``None`` gives ``""``.
    """
    if not s:
        return ""
    if s.isascii():
        # The common case, about 20x faster: ASCII needs no NFC, and str.split()
        # already breaks at every separator of the table. Anything non-printable
        # left after that (ESC, other C0 controls, DEL) takes the full path.
        line = " ".join(s.split())
        if line.isprintable():
            return line
    if "\x1b" in s or "\x9b" in s:
        s = _ANSI_RE.sub("", s)
    s = s.translate(_CLEAN_TABLE)
    # NFC before collapsing: NFC never creates whitespace or control codes.
    s = unicodedata.normalize("NFC", s)
    return " ".join(s.split())


# TeX accent commands → Unicode combining marks (composed afterwards by NFC).
_SYMBOL_ACCENTS = {
    "'": "\u0301",  # acute
    "`": "\u0300",  # grave
    "^": "\u0302",  # circumflex
    '"': "\u0308",  # diaeresis
    "~": "\u0303",  # tilde
    "=": "\u0304",  # macron
    ".": "\u0307",  # dot above
}
_LETTER_ACCENTS = {
    "c": "\u0327",  # cedilla
    "v": "\u030c",  # caron
    "u": "\u0306",  # breve
    "H": "\u030b",  # double acute
    "k": "\u0328",  # ogonek
    "r": "\u030a",  # ring above
    "d": "\u0323",  # dot below
    "b": "\u0331",  # macron below
}
#: The combining mark of each TeX accent command (``c`` for ``\c{e}``): what
#: BibTeX export writes back as commands (:func:`papertrack.export.bibtex_escape`).
TEX_ACCENT_MARKS = {**_SYMBOL_ACCENTS, **_LETTER_ACCENTS}
# Letters that are commands of their own.
_SPECIAL_LETTERS = {
    "ss": "ß",
    "aa": "å",
    "AA": "Å",
    "ae": "æ",
    "AE": "Æ",
    "oe": "œ",
    "OE": "Œ",
    "o": "ø",
    "O": "Ø",
    "l": "ł",
    "L": "Ł",
    "i": "ı",
    "j": "ȷ",
}

# One pattern, compiled once. Forms handled (examples from listings and the Kaggle
# snapshot, plus the listing sample: Jakub\r{u}v, Kra{\ss}, S{\o}gaard):
#   \'e  \'{e}  {\'e}  \' e  \'\i  \'{\i}        symbol accents
#   \v{s}  \c c  {\v{s}}                          letter accents: braced or spaced
#   \ss  {\ss}  \o  \aa{}  \O rsted               special letters
# A letter accent must be followed by a brace, a space or a backslash, so math
# such as \cdot, \varepsilon or \underline never matches. The optional outer
# brace is only consumed together with its partner (the conditional group), so
# "\textit{Andr\'e}" keeps its closing brace.
_TEX_RE = re.compile(
    r"(?P<open>\{\s*)?"
    r"\\(?:"
    r"(?:(?P<sym>['`^\"~=.])\s*|(?P<let>[cvuHkrdb])(?=[\s{\\]))"
    r"(?:\{\s*(?P<barg>\\[ij](?![A-Za-z])|[A-Za-z])\s*\}"
    r"|\s*(?P<carg>\\[ij](?![A-Za-z]))"
    r"|\s*(?P<larg>[A-Za-z]))"
    r"|(?P<special>ss|aa|AA|ae|AE|oe|OE|o|O|l|L|i|j)(?![A-Za-z])(?:\{\}|[ \t]+(?=[A-Za-z]))?"
    r")"
    r"(?(open)\s*\})"
)
# Every place _TEX_RE could match starts with one of these: a cheap test (it scans
# for the backslash) that spares most TeX-heavy abstracts (math, \cite) the full pattern.
_TEX_HINT = re.compile(
    r"\\(?:['`^\"~=.]|[cvuHkrdb](?=[\s{\\])|(?:ss|aa|AA|ae|AE|oe|OE|o|O|l|L|i|j)(?![A-Za-z]))"
)
# Inline and display math are left exactly as written (`$\omega$`, `$\'a$`).
_MATH_RE = re.compile(r"(\$\$.*?\$\$|\$.*?\$)", re.DOTALL)


def _tex_replace(match: re.Match[str]) -> str:
    special = match.group("special")
    if special is not None:
        return _SPECIAL_LETTERS[special]
    sym = match.group("sym")
    mark = _SYMBOL_ACCENTS[sym] if sym is not None else _LETTER_ACCENTS[match.group("let")]
    base = match.group("barg") or match.group("carg") or match.group("larg") or ""
    # An accent sits on the dotless i/j (\'{\i}); in Unicode that is plain i/j
    # plus the mark, which NFC then composes into í.
    if base.startswith("\\"):
        base = base[1]
    return base + mark


def _decode_outside_math(s: str) -> str:
    return _TEX_RE.sub(_tex_replace, s)


def decode_tex_accents(s: str) -> str:
    """Turn TeX accent commands into Unicode letters, leaving math untouched.

    ``Andr\\'e`` → ``André``, ``\\v{s}`` → ``š``, ``{\\"o}`` → ``ö``,
    ``\\'{\\i}`` → ``í``, ``{\\ss}`` → ``ß``. Braces that only grouped an
    accent are removed; anything else (``$\\omega$``, ``\\emph{x}``) stays.
    """
    if "\\" not in s or _TEX_HINT.search(s) is None:
        return s  # the common case: nothing to do, no regex, no normalising
    if "$" in s:
        parts = _MATH_RE.split(s)
        # re.split with one capturing group puts math spans at odd indexes.
        decoded = "".join(
            part if index % 2 else _decode_outside_math(part) for index, part in enumerate(parts)
        )
    else:
        decoded = _decode_outside_math(s)
    return unicodedata.normalize("NFC", decoded)


# Tags whose content is not text at all.
_DROP_RE = re.compile(r"<(script|style)\b[^>]*>.*?</\1\s*>|<!--.*?-->", re.IGNORECASE | re.DOTALL)
_CDATA_RE = re.compile(r"<!\[CDATA\[(.*?)\]\]>", re.DOTALL)
# Block-level tags separate words; inline tags (<b>, <a>, <sub>) do not.
_BLOCK_TAG_RE = re.compile(
    r"</?(?:p|br|div|li|ul|ol|tr|td|th|table|h[1-6]|blockquote|pre|hr|dd|dt|dl)\b[^>]*>",
    re.IGNORECASE,
)
_TAG_RE = re.compile(r"</?[A-Za-z][^<>]*>|<![^<>]*>|<\?[^<>]*\?>")


def strip_html(s: str | None) -> str:
    """Remove HTML tags and unescape entities, keeping the text.

    For legacy RSS creators and descriptions (``<a href=…>Name</a>``,
    ``<p>…</p>``) and generic feeds. Script and style content is dropped;
    block tags become spaces so paragraphs do not run together. The result
    is not yet one line: pass it through :func:`clean_text`.
    """
    if not s:
        return ""
    if "<" in s:
        s = _CDATA_RE.sub(r"\1", s)
        s = _DROP_RE.sub(" ", s)
        s = _BLOCK_TAG_RE.sub(" ", s)
        s = _TAG_RE.sub("", s)
    if "&" in s:
        s = html.unescape(s)
    return s


def newest_of(shown: int, total: int, *, hint: bool = True) -> str:
    """What a topic page that lists the newest ``shown`` of its ``total`` papers says
    under them ("" when it lists them all): "Latest papers (47)" over 20 of them read
    as the whole list. With ``hint``, that -n sets how many (not for a web page's
    reader, who runs no command)."""
    if not shown or shown >= total:
        return ""
    return f"The newest {shown:,} of {total:,}" + (" (-n sets how many)." if hint else ".")


def counted(n: int, word: str, many: str | None = None) -> str:
    """``n`` and the noun for it: '1 entry', '12 entries' (``many`` when not word + 's')."""
    return f"{n:,} {word if n == 1 else many or word + 's'}"


#: At most this many ids are named in one line of a report (:func:`name_some`).
MAX_NAMED = 10


def name_some(ids: Sequence[str], limit: int = MAX_NAMED) -> str:
    """``a, b, c`` or ``a, b, … and 7 more``: a list of ids short enough for one line."""
    named = ", ".join(ids[:limit])
    return f"{named} and {len(ids) - limit:,} more" if len(ids) > limit else named


def quoted(name: str) -> str:
    """``name`` in single quotes as written, for a message: ``repr`` doubled every
    backslash and put a name holding an apostrophe in double quotes. Without its
    terminal escapes (:func:`visible`): an API error is printed by scripts, unlike
    the command's, which are cleaned on output."""
    return f"'{visible(name)}'"


def shorten(s: str, width: int = 72) -> str:
    """``s`` on one line, cut to ``width`` characters with an ellipsis (long queries in tables)."""
    flat = " ".join(s.split())
    return flat if len(flat) <= width else flat[: width - 1].rstrip() + "…"


# What JSON would carry raw with ensure_ascii=False although a terminal may act on it
# or hide it: C1 controls (U+009B is a one-byte CSI), zero-width and bidi controls.
# json.dumps escapes C0 controls (ESC included) itself.
def json_text(data: object, indent: int | None = None) -> str:
    """``data`` as JSON with readable Unicode, but every invisible or control character escaped.

    The data stays exact (``"\\u202e"`` reads back as U+202E); only what a terminal
    could act on, or a reader not see, is written as an escape. The parsers clean
    feed text already: this covers stores written before they did, and user text.
    """
    import json

    out = json.dumps(data, ensure_ascii=False, indent=indent)
    # Of ASCII, json.dumps leaves only DEL raw; the class is looked up in the runs of
    # other characters alone (the whole text through it was half of `export -f json`).
    if "\x7f" in out:
        out = out.replace("\x7f", "\\u007f")
    if out.isascii():
        return out
    return _NON_ASCII_RE.sub(_escape_run, out)


_NON_ASCII_RE = re.compile("[^\x00-\x7f]+")


def _escape_run(match: re.Match[str]) -> str:
    return _JSON_ESCAPE.sub(_escape, match.group())


# JSON must escape the line separators too: some JavaScript readers end a string at them.
_JSON_ESCAPE = re.compile(f"[{_char_class(UNSHOWN)}\u2028\u2029]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code > 0xFFFF:  # as a UTF-16 surrogate pair, which is what JSON's \\u means
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def visible(value: object, keep_lines: bool = False) -> str:
    """``value`` as text with every terminal escape sequence and :data:`UNSHOWN` character removed.

    For whatever reaches a terminal, a log or a file from an untrusted source
    (feed text, file names, what a server answered). ``keep_lines`` keeps line
    breaks (a message of several lines); otherwise they become spaces.
    """
    s = str(value)
    if s.isascii() and s.isprintable():
        return s
    if "\x1b" in s or "\x9b" in s:
        s = _ANSI_RE.sub("", s)
    if not keep_lines:
        s = s.replace("\n", " ").replace("\t", " ")
    # The other controls that separate words in practice (carriage return, vertical
    # tab, form feed, the ASCII information separators, NEL) are spaces, as in
    # clean_text: "Deep\rLearning" is two words, not "DeepLearning".
    s = s.replace("\r\n", "\n").translate(_WORD_BREAKS)
    # The Unicode line and paragraph separators break a line for str.splitlines (the
    # log's) and for some terminals: a space, kept lines or not, so that only a
    # "\n" papertrack wrote starts a line.
    s = s.replace("\u2028", " ").replace("\u2029", " ")
    # A byte no UTF-8 text holds (a file name or argument of another encoding,
    # which Python keeps as a lone surrogate) is shown as "�": dropped, the name
    # shown was not the one given.
    s = _SURROGATE_RE.sub("\ufffd", s)
    return UNSHOWN_RE.sub("", s)


_SPACES = re.compile(r"\s+")


def one_line(value: object) -> str:
    """Untrusted text as it is shown on one line (a card, a page, a digest entry):
    :func:`visible`, every run of whitespace a single space, the ends stripped.

    Unlike :func:`clean_text`, which stores feed text, it does not NFC-normalise:
    what was stored is shown as it was stored.
    """
    return _SPACES.sub(" ", visible(value)).strip()


#: What :func:`web_url` keeps as it is, besides letters, digits and ``-._``: URL
#: punctuation, and "%" (a stored address is often encoded already: "x%20y" linked
#: to "x%2520y").
_URL_SAFE = "!#$%&'()*+,/:;=?@[]~"


def is_web(url: str) -> bool:
    """Whether ``url`` is an http or https address, its scheme in any case
    (``HTTPS://`` is one too: RFC 3986 schemes are case-insensitive)."""
    return url[:8].lower().startswith(("http://", "https://"))


def web_url(url: object) -> str:
    """A feed's ``url`` as a link: a web address on one line, its scheme in lower case,
    percent-encoded where it holds a space, quote, angle bracket or non-ASCII letter
    ("https://x.example/a b" is "https://x.example/a%20b"); '' for anything else
    (a javascript:, data: or file: link is no link)."""
    from urllib.parse import quote

    url = one_line(url or "")
    if not is_web(url):
        return ""
    scheme, rest = url.split(":", 1)
    return quote(f"{scheme.lower()}:{rest}", safe=_URL_SAFE)


def plus_more(count: int, shown: int) -> str:
    """' +1,204': how many of ``count`` names are past the ``shown`` ones ('' when none)."""
    return f" +{count - shown:,}" if count > shown else ""


def names_plus(names: Sequence[str], shown: int = 3, sep: str = ", ") -> str:
    """'Ada Lovelace, Alan Turing, Grace Hopper +1,204': the first ``shown`` names,
    each on one line (:func:`one_line`), then how many more."""
    return sep.join(one_line(n) for n in names[:shown]) + plus_more(len(names), shown)
