"""Render the TeX markup of arXiv titles and abstracts as the text it shows.

Why: arXiv metadata is TeX source, and arXiv's own pages show it through MathJax.
Read as written, ``$\\textbf{A}$gent-R1`` is the words "gent" and "R1", so the paper
is never tagged or found as an *agent* paper; ``\\emph{foo}`` shows its backslash;
``$\\alpha$`` is unreadable. :func:`render_tex` turns that markup into the text it
renders, for tagging, search and display.

It is deliberately conservative: it never loses a real word and never turns plain
text into something else. Whatever it does not fully understand stays as written:
an unknown command (``\\cite{x}``), a formula that is not plain text once rendered
(``$\\frac{1}{2}$``, kept with its dollars), a single ``$``, a ``$5 and $10`` that only
looks like math. Accent commands (``\\'e``) are left alone: that is
:func:`papertrack.text.decode_tex_accents`. Run that one first: it skips everything
between dollars, and render_tex turns ``\\$`` into a bare ``$``.

What it renders:

* Text-formatting commands with a braced argument become the argument, in text and in
  math: ``\\textbf{A}``, ``\\emph{x}``, ``\\mathcal{O}``, ``\\operatorname{ReLU}`` (see
  :data:`TEXT_ARG_COMMANDS` and :data:`MATH_ARG_COMMANDS`), and so do font-switch
  groups ``{\\bf X}``, ``{\\em X}``, ``{\\it X}``, … (:data:`FONT_SWITCHES`).
* ``\\%`` ``\\&`` ``\\_`` ``\\#`` ``\\$`` ``\\{`` ``\\}`` become the character, ``\\ ``
  ``\\,`` ``\\;`` ``\\:`` a space, and so does the line break ``\\\\`` in running text;
  ``\\ldots`` and ``\\dots`` an ellipsis; a stray backslash before a letter beyond
  ASCII (``St\\ütz``, the accent already typed out) goes.
* A formula (``$…$``, ``$$…$$``, ``\\(…\\)``) is replaced by its content when that
  content, rendered, is plain text: letters, digits, spaces, common punctuation,
  Greek letters (``\\alpha`` → α, :data:`GREEK`), a few symbols (``\\times`` → ×,
  ``\\leq`` → ≤, :data:`MATH_SYMBOLS`) and operator names (``\\log`` → log). Nothing
  is added around it: ``$k$-means`` → ``k-means``, ``$\\textbf{A}$gent`` → ``Agent``.
  A formula that is not plain keeps its delimiters and everything but the
  text-formatting commands as written: ``$\\mathbf{x}^\\top$`` → ``$x^\\top$``.
* Superscripts and subscripts keep their ``^`` and ``_`` (``x^2`` stays ``x^2``:
  dropping the mark would make ``10^4`` read as ``104``). A braced script of one
  character loses its braces (``10^{4}`` → ``10^4``); a longer one keeps them
  (``10^{-3}``), so ``n^{1/2}`` never reads as ``n^1/2``. A formula that is a
  script alone, or letters and a script glued to the word after it, is part of a
  name and renders raised or lowered where Unicode has a character for each:
  ``M$^3$Exam`` → ``M³Exam``, ``$\\text{G}^2$RPO`` → ``G²RPO``.

Formulas pair up as in MathJax: each ``$`` closes the one before it, and ``\\$`` is no
delimiter. Because a stray pair of dollars in an abstract is more often money than
math, a formula of bare text (no command, brace or script) is only rendered when it
is written like math: no space just inside either dollar and no digit right after the
closing one (Pandoc's rule): ``$n$`` renders, ``$5 and $10`` stays as written.

Outside math, Greek letters are rendered too: abstracts write ``{\\alpha}-Cloak`` and
``\\epsilon-greedy`` for the letter (a group holding just one loses its braces); other
math symbols stay as written, and a plain group keeps its braces (``{BERT}``). A
formula that is not plain still names its Greek letters: ``$\\alpha < \\frac{1}{2L}$``
→ ``$α < \\frac{1}{2L}$``, so a search for α finds it. ``\\textsuperscript{2}`` is
``²``, ``\\textsubscript{2}`` is ``₂``.

The function is total and cheap: it never raises; it runs in time linear in the
markup (a tokenizer with no backtracking, a parser with an explicit stack, groups
nested deeper than :data:`MAX_DEPTH` kept as written), and text with more than
:data:`MAX_MARKUP` markup characters, which no arXiv abstract has, is returned as
written; its output is never longer than its input; and text without a backslash or
a dollar, most abstracts, comes back at once.
"""

from __future__ import annotations

import re

__all__ = [
    "arxiv_text",
    "untie",
    "FONT_SWITCHES",
    "GREEK",
    "MATH_ARG_COMMANDS",
    "MATH_SYMBOLS",
    "MAX_DEPTH",
    "MAX_MARKUP",
    "OPERATORS",
    "SCRIPTS",
    "TEXT_ARG_COMMANDS",
    "render_tex",
]

#: Commands whose braced argument is text, shown as it is: ``\\emph{x}`` → ``x``.
TEXT_ARG_COMMANDS = frozenset(
    {
        "textbf",
        "textit",
        "emph",
        "texttt",
        "textsc",
        "textsf",
        "textrm",
        "textnormal",
        "textsl",
        "textup",
        "textmd",
        "text",
        "mbox",
        "textsuperscript",
        "textsubscript",
    }
)
#: Raised and lowered text: the argument in Unicode's superscript or subscript
#: characters when it has one for every character (``P\textsuperscript{2}-DPO`` →
#: ``P²-DPO``, which search folds back to "p2"), else the argument as it is
#: (``4\textsuperscript{th}`` → ``4th``).
SCRIPTS = {
    "textsuperscript": str.maketrans("0123456789+-=()n", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿ"),
    "textsubscript": str.maketrans("0123456789+-=()", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎"),
}


_SCRIPT_ALONE = re.compile(r"([A-Za-z]*)([\^_])(?:\{([^{}]+)\}|(.))")


def _script_alone(text: str, glued: bool = False) -> str:
    """A rendered formula that is a superscript or subscript and nothing else, as
    Unicode's raised or lowered characters when it has one for each: the name
    ``M$^3$Exam`` is ``M³Exam`` (which search folds to "m3exam"), where ``M^3Exam``
    split it into the words "m" and "3exam". ``glued``: a letter follows the formula,
    so it is part of a name, and letters before the script are kept before it:
    ``$\text{G}^2$RPO`` is ``G²RPO``. Anything else, ``x^2`` and ``$L^2$-norm``
    included, as it is."""
    match = _SCRIPT_ALONE.fullmatch(text)
    if match is None or (match.group(1) and not glued):
        return text
    body = match.group(3) or match.group(4)
    table = SCRIPTS["textsuperscript" if match.group(2) == "^" else "textsubscript"]
    raised = _raise(body, table)
    return match.group(1) + raised if raised != body and " " not in body else text


def _raise(text: str, table: dict[int, int]) -> str:
    """``text`` in the characters of ``table`` if it has one for each (spaces aside)."""
    raised = text.translate(table)
    changed = all(c != r or c.isspace() for c, r in zip(text, raised, strict=True))
    return raised if changed else text


#: Commands whose braced argument keeps the current mode (math inside ``$``).
MATH_ARG_COMMANDS = frozenset(
    {
        "underline",
        "mathbf",
        "mathit",
        "mathrm",
        "mathsf",
        "mathtt",
        "mathcal",
        "mathbb",
        "mathfrak",
        "mathscr",
        "mathnormal",
        "boldsymbol",
        "bm",
        "operatorname",
    }
)
#: Font switches that, first in a group, just restyle it: ``{\\bf X}`` → ``X``.
FONT_SWITCHES = frozenset(
    {
        "bf",
        "it",
        "em",
        "sc",
        "tt",
        "rm",
        "sf",
        "sl",
        "bfseries",
        "itshape",
        "scshape",
        "ttfamily",
        "rmfamily",
        "sffamily",
        "slshape",
        "upshape",
        "mdseries",
        "normalfont",
    }
)

#: Greek letter commands (math only). ``\\epsilon`` and ``\\phi`` give the ordinary
#: letters ε and φ, as do ``\\varepsilon`` and ``\\varphi``: those are what people type
#: and search for. Variants Unicode spells apart (ϑ ϱ ς ϖ) keep their own letter.
GREEK: dict[str, str] = {
    "alpha": "α",
    "beta": "β",
    "gamma": "γ",
    "delta": "δ",
    "epsilon": "ε",
    "varepsilon": "ε",
    "zeta": "ζ",
    "eta": "η",
    "theta": "θ",
    "vartheta": "ϑ",
    "iota": "ι",
    "kappa": "κ",
    "lambda": "λ",
    "mu": "μ",
    "nu": "ν",
    "xi": "ξ",
    "pi": "π",
    "varpi": "ϖ",
    "rho": "ρ",
    "varrho": "ϱ",
    "sigma": "σ",
    "varsigma": "ς",
    "tau": "τ",
    "upsilon": "υ",
    "phi": "φ",
    "varphi": "φ",
    "chi": "χ",
    "psi": "ψ",
    "omega": "ω",
    "Gamma": "Γ",
    "Delta": "Δ",
    "Theta": "Θ",
    "Lambda": "Λ",
    "Xi": "Ξ",
    "Pi": "Π",
    "Sigma": "Σ",
    "Upsilon": "Υ",
    "Phi": "Φ",
    "Psi": "Ψ",
    "Omega": "Ω",
}
#: Symbol commands rendered inside math.
MATH_SYMBOLS: dict[str, str] = {
    "times": "×",
    "cdot": "·",
    "leq": "≤",
    "le": "≤",
    "geq": "≥",
    "ge": "≥",
    "neq": "≠",
    "ne": "≠",
    "approx": "≈",
    "sim": "~",
    "simeq": "≃",
    "equiv": "≡",
    "propto": "∝",
    "ll": "≪",
    "gg": "≫",
    "pm": "±",
    "mp": "∓",
    "infty": "∞",
    "rightarrow": "→",
    "to": "→",
    "leftarrow": "←",
    "gets": "←",
    "Rightarrow": "⇒",
    "leftrightarrow": "↔",
    "ldots": "…",
    "dots": "…",
    "cdots": "⋯",
    "in": "∈",
    "ell": "ℓ",
    "partial": "∂",
    "nabla": "∇",
    "circ": "∘",
    "ast": "∗",
    "star": "⋆",
    "mid": "|",
    "prime": "′",
}
#: Operator names: shown as the word (``$O(n \\log n)$`` → ``O(n log n)``).
OPERATORS = frozenset(
    {
        "log",
        "ln",
        "exp",
        "min",
        "max",
        "sin",
        "cos",
        "tan",
        "lim",
        "sup",
        "inf",
        "det",
        "arg",
        "dim",
        "ker",
        "deg",
        "gcd",
        "Pr",
    }
)
#: Groups nested deeper than this are kept exactly as written, so that recursion,
#: time and memory stay bounded on hostile input (``{{{{…``).
MAX_DEPTH = 32

_MATH_WORDS: dict[str, str] = {**GREEK, **MATH_SYMBOLS, **{name: name for name in OPERATORS}}
# Commands rendered in running text: those that mean the same in text and in math,
# and Greek letters, which only math has but abstracts write outside it too
# ("{\alpha}-Cloak", "\epsilon-greedy") for the letter.
_TEXT_WORDS = {"ldots": "…", "dots": "…", **GREEK}
# Control symbols (backslash and one non-letter) rendered in both modes.
_ESCAPES = {
    "%": "%",
    "&": "&",
    "_": "_",
    "#": "#",
    "$": "$",
    "{": "{",
    "}": "}",
    " ": " ",
    "\n": " ",
    "\t": " ",
    ",": " ",
    ";": " ",
    ":": " ",
}
_ASCII_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGITS = frozenset("0123456789")

# Token kinds: the number of the group of _TOKEN_RE that matched (Match.lastindex).
_TEXT, _WORD, _MOPEN, _MCLOSE, _SYM, _DDOLLAR, _DOLLAR, _LBRACE, _RBRACE, _RAW = range(1, 11)
# A run of plain text, a control word, \( or \), another control symbol (or a lone
# trailing backslash), a math delimiter or a brace. Each alternative starts with a
# character no earlier one accepts, or is one or two characters long, so nothing
# backtracks.
_TOKEN_RE = re.compile(
    r"([^\\${}]+)|(\\[A-Za-z]+)|(\\\()|(\\\))|(\\[^A-Za-z]?)|(\$\$)|(\$)|(\{)|(\})"
)
# A character that is not plain text inside math: TeX's specials (& # % are alignment,
# parameter and comment) and anything that is neither a word character, a space, common
# punctuation nor one of the symbols above typed as itself.
_NOT_PLAIN_MATH = re.compile(
    r"[^\w\s!\"'()*+,\-./:;<=>?@\[\]^|~"
    + "".join(re.escape(c) for c in sorted({*GREEK.values(), *MATH_SYMBOLS.values()}))
    + "]"
)

# Rendering modes: running text; math; text inside math (\text{…}), where a nested
# formula is not plain; and "keep" for a formula that is not plain, which unwraps
# only the text-formatting commands and leaves everything else as written.
_TEXT_MODE, _MATH_MODE, _INNER_MODE, _KEEP_MODE = range(4)

#: Text with more markup characters (``\\ $ { }``) than this is returned as written.
#: The work is linear in the markup, but pure Python: this bounds it to a few
#: milliseconds. An arXiv abstract is at most 1,920 characters, so no real title or
#: abstract comes near it.
MAX_MARKUP = 10_000


class _Group:
    """A ``{…}`` group: what is inside it, and whether its ``}`` came."""

    __slots__ = ("closed", "items")

    def __init__(self) -> None:
        self.items: list[_Item] = []
        self.closed = False


_Token = tuple[int, int, int]  # kind, start, end
_Item = _Token | _Group


def arxiv_text(s: str) -> str:
    """arXiv text (a title, an abstract, a name) as it shows and as papertrack keeps it:
    TeX accents decoded, the markup rendered (``$\\textbf{A}$gent`` is "Agent",
    ``$\\alpha$`` "α"), braces inside a word and ties dropped (:func:`untie`), made
    one clean line (:func:`papertrack.text.clean_text`)."""
    from papertrack.text import clean_text, decode_tex_accents

    return clean_text(untie(render_tex(decode_tex_accents(s))))


# A word of letters and groups of letters ("Schr{ö}dinger", "G{é}n{é}ralis{é}",
# "{B}ias", "Allo{SR}²"), not a command's name or argument (\\sqrt{T}, x^{AB},
# \\textcolor{red}{c}): TeX's braces that keep a letter's case in BibTeX, not a set.
_BRACED_WORD_RE = re.compile(r"(?<![\\\w^_$}])(?:[^\W_]|\{[^\W_]+\})+")
# A group inside a word: letters or digits after it, or a letter beyond ASCII in it.
# "sqrt{T}" and "f{x}" at a word's end, written for TeX without its backslash, stay.
_GLUED_GROUP_RE = re.compile(r"\{[^\W_]+\}(?=[^\W_])|\{[^\W_]*[^\x00-\x7f][^\W_]*\}")
# A formula kept as written (render_tex leaves one that is not plain text): untouched.
_FORMULA_RE = re.compile(r"(\$\$.*?\$\$|\$[^$]*\$)", re.S)
# A tie between two words ("Large Language~Models", "Dr.~RTL"). Beside a digit it
# is as often a range or "about" ("2~4 GB", "AUC~0.8") as a tie, and stays; so does
# one in an address (".../~user", "host/a~b").
# Two letters on each side at least: "X~N(0,1)" is "distributed as".
_TIE_RE = re.compile(r"(?:(?<=[^\W\d_]{2})|(?<=[^\W\d_]{2}\.))~(?=[^\W\d_]{2})")
_ADDRESS_RE = re.compile(r"(\S*(?:/|@|www\.)\S*)")


def _unbrace(match: re.Match[str]) -> str:
    word = match.group(0)
    if "{" not in word or not _GLUED_GROUP_RE.search(word):
        return word  # a group alone ("{BERT}") keeps its braces, as render_tex keeps them
    return word.replace("{", "").replace("}", "")


def _untie_text(s: str) -> str:
    """:func:`untie` of text outside formulas."""
    if "{" in s:
        s = _BRACED_WORD_RE.sub(_unbrace, s)
    if "~" in s:
        parts = _ADDRESS_RE.split(s)
        s = "".join(part if i % 2 else _TIE_RE.sub(" ", part) for i, part in enumerate(parts))
    return s


def untie(s: str) -> str:
    """``s`` without the braces of a group glued inside a word and with its ties as spaces.

    Written without a backslash, they came through :func:`render_tex` as written, so
    "Schr{ö}dinger" was the words "schr", "ö" and "dinger" to search and tagging, and
    showed its braces everywhere. A formula kept as written is left alone.

    >>> untie("The Ensemble Schr{ö}dinger Bridge: Large Language~Models, {0,1}, 2~4 GB")
    'The Ensemble Schrödinger Bridge: Large Language Models, {0,1}, 2~4 GB'
    """
    if "{" not in s and "~" not in s:
        return s
    if "$" not in s:
        return _untie_text(s)
    parts = _FORMULA_RE.split(s)
    return "".join(part if i % 2 else _untie_text(part) for i, part in enumerate(parts))


def render_tex(s: str) -> str:
    """``s`` with its TeX markup rendered as the text it shows; see the module docstring.

    >>> render_tex(r"$\\textbf{A}$gent-R1: \\emph{training} with $\\alpha$-RL")
    'Agent-R1: training with α-RL'
    """
    if "\\" not in s and "$" not in s:
        return s
    if s.count("\\") + s.count("$") + s.count("{") + s.count("}") > MAX_MARKUP:
        return s
    items = _parse(s)
    return _Renderer(s).run(items, 0, len(items), _TEXT_MODE)[0]


def _parse(s: str) -> list[_Item]:
    """Tokens of ``s`` nested by braces; an unmatched ``}`` is text, an unclosed ``{`` open.

    Groups nested deeper than :data:`MAX_DEPTH` are one token, kept as written.
    """
    root: list[_Item] = []
    items = root
    stack: list[_Group] = []
    raw = 0  # brace depth inside a group nested too deep, which is kept as written
    raw_start = 0
    for match in _TOKEN_RE.finditer(s):
        kind = match.lastindex or _TEXT
        if kind < _LBRACE and not raw:
            start, end = match.span()
            items.append((kind, start, end))
        elif raw:
            if kind == _LBRACE:
                raw += 1
            elif kind == _RBRACE:
                raw -= 1
                if not raw:
                    items.append((_RAW, raw_start, match.end()))
        elif kind == _LBRACE:
            if len(stack) >= MAX_DEPTH:
                raw, raw_start = 1, match.start()
            else:
                group = _Group()
                items.append(group)
                stack.append(group)
                items = group.items
        elif kind == _RBRACE and stack:
            group = stack.pop()
            group.closed = True
            items = stack[-1].items if stack else root
        else:  # an unmatched "}" is text
            start, end = match.span()
            items.append((_TEXT, start, end))
    if raw:
        items.append((_RAW, raw_start, len(s)))
    return root


class _Renderer:
    __slots__ = ("s",)

    def __init__(self, s: str) -> None:
        self.s = s

    def run(self, items: list[_Item], lo: int, hi: int, mode: int) -> tuple[str, bool]:
        """Render ``items[lo:hi]``; the flag is false once anything was kept as written."""
        s = self.s
        out: list[str] = []
        ok = True
        math = mode == _MATH_MODE
        keep = mode == _KEEP_MODE
        script = False  # in math: the text before ends with ^ or _, so a group is a script
        glue = False  # the output ends with a control word kept as written
        args = False  # a group here is an argument of that control word: kept with braces
        unpaired: set[int] = set()  # closing delimiters that do not occur after here
        i = lo
        while i < hi:
            item = items[i]
            i += 1
            piece: str | None = None  # rendered text
            kept: str | None = None  # text kept as written
            was_script, script = script, False
            was_args, args = args, False
            if isinstance(item, _Group):
                if keep or was_args or not item.closed:
                    text = self.run(item.items, 0, len(item.items), mode)[0]
                    kept = "{" + text + "}" if item.closed else "{" + text
                    args = was_args  # \href{url}{text}
                elif math or self.switch_end(item) is not None:
                    piece, good = self.content(item, mode)
                    ok = ok and good
                    if was_script and len(piece) != 1:
                        piece = "{" + piece + "}"  # 10^{-3}: the braces say how far
                elif (letter := self.greek_alone(item)) is not None:
                    piece = letter  # {\alpha}-Translution: α-Translution
                else:  # a plain group in text: {BERT} keeps its braces
                    kept = "{" + self.run(item.items, 0, len(item.items), mode)[0] + "}"
            else:
                kind, start, end = item
                if kind == _TEXT:
                    text = s[start:end]
                    if math:
                        if _NOT_PLAIN_MATH.search(text) is not None:
                            ok = False
                        text = text.replace("~", " ")  # a tie: a space
                        tail = text.rstrip()
                        script = tail[-1] in "^_" if tail else was_script
                    elif was_args and text.isspace():
                        args = True  # \cite {x}: the group is still the argument
                    out.append(text)
                    glue = False
                    continue
                if kind == _WORD:
                    name = s[start + 1 : end]
                    text_arg = name in TEXT_ARG_COMMANDS
                    if text_arg or name in MATH_ARG_COMMANDS:
                        j = i + 1 if i < hi and self.is_space(items[i]) else i
                        arg = items[j] if j < hi else None
                        if isinstance(arg, _Group) and arg.closed:
                            piece, good = self.content(
                                arg, _INNER_MODE if text_arg and math else mode
                            )
                            ok = ok and good
                            if name in SCRIPTS:
                                piece = _raise(piece, SCRIPTS[name])
                            if was_script and len(piece) != 1:
                                piece = "{" + piece + "}"  # x^\text{max}
                            i = j + 1
                    elif keep:
                        piece = GREEK.get(name)  # $\alpha < \frac{1}{2}$ still names α
                    else:
                        piece = _MATH_WORDS.get(name) if math else _TEXT_WORDS.get(name)
                        if piece is not None and name in OPERATORS:
                            # Keep the name a word of its own: m\log n, \log{n}, \log\alpha.
                            if out and out[-1][-1:].isalnum():
                                piece = " " + piece
                            nxt = items[i] if i < hi else None
                            if isinstance(nxt, _Group) or (nxt is not None and nxt[0] == _WORD):
                                piece += " "
                    if piece is None:  # unknown: kept, and so are its arguments
                        out.append(s[start:end])
                        ok = False
                        glue = args = True
                        continue
                elif kind == _SYM and not keep and s[start + 1 : end] in _ESCAPES:
                    piece = _ESCAPES[s[start + 1 : end]]
                elif kind == _SYM and mode == _TEXT_MODE and s[start + 1 : end] == "\\":
                    piece = " "  # a line break in running text ("Aakur\\" ends a name)
                elif kind == _SYM and mode == _TEXT_MODE and s[start + 1 : end].isalpha():
                    # A backslash before a letter beyond ASCII, which no command starts
                    # with: "St\ütz" is a stray one (the accent already typed out).
                    piece = s[start + 1 : end]
                elif kind == _SYM and math and s[start + 1 : end] == "!":
                    piece = ""  # a negative thin space
                elif kind in (_DOLLAR, _DDOLLAR, _MOPEN) and mode == _TEXT_MODE:
                    # The next closing delimiter: a scan the formula then skips, and at
                    # most one fruitless scan per kind, so linear in all.
                    want = _MCLOSE if kind == _MOPEN else kind
                    closer: _Token | None = None
                    k = hi if want in unpaired else i
                    while k < hi:
                        after = items[k]
                        if not isinstance(after, _Group) and after[0] == want:
                            closer = after
                            break
                        k += 1
                    if closer is None:
                        unpaired.add(want)
                    else:
                        piece, good = self.formula(items, i, k, item, closer)
                        ok = ok and good
                        i = k + 1
                if piece is None:  # not plain here, or no partner: as written
                    kept = s[start:end]
            if piece is not None:
                if piece:
                    if glue and piece[0] in _ASCII_LETTERS:
                        piece = " " + piece  # \foo\emph{x} is \foo x, not \foox
                    out.append(piece)
                    glue = False
            elif kept is not None:
                out.append(kept)
                ok = False
                glue = False
        return "".join(out), ok

    def content(self, group: _Group, mode: int) -> tuple[str, bool]:
        """A group's content without its braces (and font switches, except in keep mode)."""
        first = 0 if mode == _KEEP_MODE else self.switch_end(group)
        if first is None:
            first = 0
        text, ok = self.run(group.items, first, len(group.items), mode)
        return (text.lstrip() if first else text), ok

    def switch_end(self, group: _Group) -> int | None:
        """Index after the font switches (and spaces) a group starts with, or None."""
        items = group.items
        i = 0
        seen = False
        while i < len(items):
            item = items[i]
            if isinstance(item, _Group):
                break
            kind, start, end = item
            if kind == _WORD and self.s[start + 1 : end] in FONT_SWITCHES:
                seen = True
            elif not self.is_space(item):
                break
            i += 1
        return i if seen else None

    def greek_alone(self, group: _Group) -> str | None:
        """The Greek letter a group holds alone (``{\alpha}``, ``{ \varepsilon }``), or None."""
        words = [item for item in group.items if not self.is_space(item)]
        if len(words) != 1 or isinstance(words[0], _Group) or words[0][0] != _WORD:
            return None
        return GREEK.get(self.s[words[0][1] + 1 : words[0][2]])

    def is_space(self, item: _Item) -> bool:
        if isinstance(item, _Group):
            return False
        kind, start, end = item
        return kind == _TEXT and self.s[start:end].isspace()

    def formula(
        self, items: list[_Item], lo: int, hi: int, opener: _Token, closer: _Token
    ) -> tuple[str, bool]:
        """The formula ``items[lo:hi]`` between ``opener`` and ``closer``."""
        s = self.s
        raw_open, raw_close = s[opener[1] : opener[2]], s[closer[1] : closer[2]]
        if lo == hi:
            return raw_open + raw_close, False
        if all(not isinstance(item, _Group) and item[0] == _TEXT for item in items[lo:hi]):
            # Bare text ($n$, $p=2,3$, or $5 and $): no markup to render. Between dollars,
            # only math if written like math.
            inside = s[opener[2] : closer[1]]
            text = inside.replace("~", " ").strip()
            if (
                text
                and _NOT_PLAIN_MATH.search(inside) is None
                and (
                    opener[0] == _MOPEN
                    or not (
                        inside[0].isspace()
                        or inside[-1].isspace()
                        or s[closer[2] : closer[2] + 1] in _DIGITS
                    )
                )
            ):
                return _script_alone(text, s[closer[2] : closer[2] + 1].isalpha()), True
            return raw_open + inside + raw_close, False
        text, ok = self.run(items, lo, hi, _MATH_MODE)
        text = text.strip()
        if ok and text:
            return _script_alone(text, s[closer[2] : closer[2] + 1].isalpha()), True
        return raw_open + self.run(items, lo, hi, _KEEP_MODE)[0] + raw_close, False
