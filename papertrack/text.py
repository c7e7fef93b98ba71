"""Make untrusted feed text safe and readable: one line, no control codes, real accents.

Feed text ends up in a terminal, in JSON and in BibTeX, and a feed is written by
strangers. So everything a feed says goes through :func:`clean_text`, which
drops what could move the cursor, recolour the screen or reorder the line.
arXiv metadata is TeX, so :func:`decode_tex_accents` turns ``Andr\\'e`` into
``André`` (listing feeds, the Kaggle snapshot and OAI-PMH all carry raw TeX
accents; ARXIV_FORMATS.md §2.2, §3.2, §4).
"""

from __future__ import annotations

import html
import re
import unicodedata

__all__ = ["clean_text", "decode_tex_accents", "json_text", "shorten", "strip_html"]


def _build_clean_table() -> dict[int, str | None]:
    table: dict[int, str | None] = {}
    # C0 controls and DEL. Those that separate words in practice (tab, line
    # and page breaks, the ASCII information separators) become spaces, so
    # "a\nb" stays two words; the rest vanish. ESC vanishing is what makes a
    # terminal escape sequence inert.
    separators = (0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1C, 0x1D, 0x1E, 0x1F)
    for code in range(0x00, 0x20):
        table[code] = " " if code in separators else None
    table[0x7F] = None
    # C1 controls (0x9B is the one-byte CSI). NEL (0x85) is a line break.
    for code in range(0x80, 0xA0):
        table[code] = " " if code == 0x85 else None
    # Zero-width characters: invisible, and they defeat matching ("LL\u200bM").
    for code in (0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF):
        table[code] = None
    # Bidi embeddings, overrides and isolates: they can make a title display
    # reversed ("Trojan Source"). Right-to-left letters themselves are kept.
    for code in (*range(0x202A, 0x202F), *range(0x2066, 0x206A)):
        table[code] = None
    return table


_CLEAN_TABLE = _build_clean_table()
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

# One pattern, compiled once. Forms handled (ARXIV_FORMATS.md §2.2 and §4
# examples, plus the listing sample: Jakub\r{u}v, Kra{\ss}, S{\o}gaard):
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


def shorten(s: str, width: int = 72) -> str:
    """``s`` on one line, cut to ``width`` characters with an ellipsis (long queries in tables)."""
    flat = " ".join(s.split())
    return flat if len(flat) <= width else flat[: width - 1].rstrip() + "…"


# What JSON would carry raw with ensure_ascii=False although a terminal may act on it
# or hide it: C1 controls (U+009B is a one-byte CSI), zero-width and bidi controls.
# json.dumps escapes C0 controls (ESC included) itself.
_JSON_UNSAFE = re.compile(
    "[\x7f-\x9f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060\u2066-\u2069\ufeff]"
)


def json_text(data: object, indent: int | None = None) -> str:
    """``data`` as JSON with readable Unicode, but every invisible or control character escaped.

    The data stays exact (``"\\u202e"`` reads back as U+202E); only what a terminal
    could act on, or a reader not see, is written as an escape. The parsers clean
    feed text already: this covers stores written before they did, and user text.
    """
    import json

    out = json.dumps(data, ensure_ascii=False, indent=indent)
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", out)
