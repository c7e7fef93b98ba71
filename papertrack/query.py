"""The topic query language: folding text into words, the syntax tree and its parser.

A topic's query looks like::

    (llm OR "language model*") AND agent* AND title:(train* OR "fine tuning")

Query language
--------------
* ``agent`` matches the whole word *agent* (not *agents*, not *reagent*);
  ``agent*`` matches every word that starts with *agent*.
* ``"large language model*"`` is a phrase: the words in this order, next to each
  other. A ``*`` may end any word of a phrase.
* Matching ignores case and accents. Text is cut into words at every character
  that is not a letter or digit, so ``LLM-based`` is the phrase ``"llm based"``
  and ``cs.AI`` (outside ``category:``) is the phrase ``"cs ai"``.
* ``AND``, ``OR`` and ``NOT`` (upper case) combine terms; ``-term`` is short for
  ``NOT term``; two terms side by side are joined by ``AND``. ``NOT`` binds
  tightest, then ``AND``, then ``OR``; parentheses group.
* Without a field a term searches the title and the abstract. ``title:``,
  ``abstract:``, ``author:`` and ``category:`` (or arXiv's ``ti:``, ``abs:``,
  ``au:``, ``cat:``) restrict the next term, phrase or parenthesised group.
  ``category:`` takes whole category names (``category:cs.AI``) or a prefix
  (``category:cs.*``).
* A phrase never runs from the title into the abstract or from one author into
  the next.
* ``#`` starts a comment that runs to the end of the line (``C#`` inside a word
  is not one).

Compiling a tree into a fast matcher lives in :mod:`papertrack.matching`; named
topics and the catalog in :mod:`papertrack.topics`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal, NamedTuple, TypeAlias, cast

from papertrack.errors import QuerySyntaxError, UsageError
from papertrack.text import UNDECODED

__all__ = [
    "ASCII_FOLD",
    "join_carets",
    "FIELDS",
    "And",
    "Category",
    "Node",
    "Not",
    "Or",
    "Term",
    "TextField",
    "author_words",
    "category_filter",
    "fold",
    "parse_query",
    "query_terms",
    "comments_of",
    "symbol_words",
    "tokenize",
    "unaccent_tex",
]

#: Fields a term can be scoped to, with arXiv's short names as aliases.
FIELDS: dict[str, str] = {
    "title": "title",
    "abstract": "abstract",
    "author": "author",
    "category": "category",
    "ti": "title",
    "abs": "abstract",
    "au": "author",
    "cat": "category",
}

#: Where a text term looks: "text" is title + abstract, the default.
TextField: TypeAlias = Literal["text", "title", "abstract", "author"]

_FIELD_HINT = "Use title:, abstract:, author: or category: (or ti:, abs:, au:, cat:)"

# ---------------------------------------------------------------------------
# Folding and tokenizing


def _ascii_fold_table() -> bytes:
    # Upper-case ASCII letters become lower case, every other ASCII byte that is
    # not a letter or digit becomes a space. Bytes >= 0x80 pass through, so
    # UTF-8 sequences of letters that survived _fold_run stay intact.
    table = bytearray(range(256))
    for code in range(128):
        char = chr(code)
        table[code] = ord(char.lower()) if char.isalnum() else 0x20
    return bytes(table)


#: bytes.translate table of :func:`fold` for ASCII text (papertrack.learn builds on it).
ASCII_FOLD = _ascii_fold_table()
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
# TeX accent commands still found in some feeds' author names (the arXiv listing
# feed writes "Paulo Andr\'e Lima de Castro"). Dropping the command keeps the
# base letter, which is what accent folding would give for the real character.
_TEX_ACCENT = re.compile(r"\\(?:['\"`^~=.]|[uvHckrb](?=[\s{]))\s*")


#: Unicode categories that vanish when folding: accents and invisible format characters.
_DROPPED = frozenset({"Mn", "Mc", "Me", "Cf"})


#: Letters NFKD does not split into a base letter and an accent, folded as a reader
#: of the name would type it: "Søgaard" is found by "Sogaard", "Łukasz" by "Lukasz",
#: "Yıldırım" by "Yildirim" (lower case: folding has lowered them first).
_UNSPLIT = str.maketrans(
    {"ø": "o", "ł": "l", "ı": "i", "đ": "d", "ð": "d", "ħ": "h", "ŧ": "t", "æ": "ae",
     "œ": "oe", "þ": "th", "ŀ": "l"}
)  # fmt: skip


def _fold_run(match: re.Match[str]) -> str:
    # NFKD splits "é" into "e" + a combining accent and "ﬁ" into "fi". Accents
    # and invisible format characters (soft hyphens, zero-width spaces: "LL\u200bM"
    # is "llm") are dropped; other non-alphanumerics (dashes, curly quotes)
    # become spaces.
    run = unicodedata.normalize("NFKD", match.group()).casefold().translate(_UNSPLIT)
    return "".join(
        char if char.isalnum() else ("" if unicodedata.category(char) in _DROPPED else " ")
        for char in run
    )


#: A caret between letters or digits, with the braces of a longer script: the mark of
#: a superscript, which joins what it stands between as the raised character would.
_CARET = re.compile(r"(?<=[^\W_])\^(?:\{([^\W_]+)\}|(?=[^\W_]))")


def join_carets(text: str) -> str:
    """``text`` with each script mark between letters or digits dropped: ``M^3Exam``
    is ``M3Exam``, as ``M³Exam`` folds. A paper stored as ``M^3Exam`` (a formula
    written ``$\\text{G}^2$``, or stored before ``M$^3$Exam`` rendered as ``M³Exam``)
    was the words "m" and "3exam", and no search for M3Exam found it."""
    return _CARET.sub(lambda m: m.group(1) or "", text) if "^" in text else text


def fold(text: str) -> str:
    """Case- and accent-folded ``text`` with every non-alphanumeric turned into a
    space (a superscript's caret between letters or digits joins them: :func:`join_carets`)."""
    text = join_carets(text)
    if not text.isascii():
        # Only the non-ASCII runs need Unicode work; most abstracts have none.
        text = _NON_ASCII.sub(_fold_run, text)
    # bytes.translate is far faster than a regex tokenizer on long abstracts.
    return text.encode("utf-8").translate(ASCII_FOLD).decode("utf-8")


def tokenize(text: str) -> list[str]:
    """Split ``text`` into folded words: ``"LLM-based AI"`` -> ``["llm", "based", "ai"]``."""
    return fold(text).split()


def unaccent_tex(author: str) -> str:
    """``author`` without TeX accent commands and braces: ``Andr\\'e`` -> ``Andre``."""
    if "\\" not in author:
        return author
    return _TEX_ACCENT.sub("", author).replace("{", "").replace("}", "")


def author_words(authors: Iterable[str]) -> list[str]:
    """The folded words of author names, TeX accent commands dropped (as ``author:`` reads them)."""
    words: list[str] = []
    for author in authors:
        words += tokenize(unaccent_tex(author))
    return words


# ---------------------------------------------------------------------------
# Query syntax tree


def _field_prefix(field: TextField) -> str:
    return "" if field == "text" else field + ":"


@dataclass(frozen=True, slots=True)
class Term:
    """One word or a phrase that must appear, in order and adjacent, in one field.

    ``prefix[i]`` is true when ``words[i]`` ended in ``*`` and matches any word
    starting with it. Words are already folded (lower case, no accents).
    """

    field: TextField
    words: tuple[str, ...]
    prefix: tuple[bool, ...]

    def __str__(self) -> str:
        body = " ".join(w + "*" if p else w for w, p in zip(self.words, self.prefix, strict=True))
        if len(self.words) > 1:
            body = f'"{body}"'
        return _field_prefix(self.field) + body


@dataclass(frozen=True, slots=True)
class Category:
    """A whole category name (``cs.ai``), or a prefix of one when ``prefix`` is true."""

    name: str
    prefix: bool = False

    def __str__(self) -> str:
        return f"category:{self.name}{'*' if self.prefix else ''}"


@dataclass(frozen=True, slots=True)
class Not:
    """Matches when ``child`` does not."""

    child: Node

    def __str__(self) -> str:
        return f"NOT {_grouped(self.child, (And, Or))}"


@dataclass(frozen=True, slots=True)
class And:
    """Matches when every child matches."""

    children: tuple[Node, ...]

    def __str__(self) -> str:
        return " AND ".join(_grouped(c, (And, Or)) for c in self.children)


@dataclass(frozen=True, slots=True)
class Or:
    """Matches when any child matches."""

    children: tuple[Node, ...]

    def __str__(self) -> str:
        # AND binds tighter, so "(a AND b) OR c" needs no parentheses; they are kept for people.
        return " OR ".join(_grouped(c, (And, Or)) for c in self.children)


Node: TypeAlias = Term | Category | Not | And | Or


def _grouped(node: Node, kinds: tuple[type, ...]) -> str:
    return f"({node})" if isinstance(node, kinds) else str(node)


# ---------------------------------------------------------------------------
# Lexer


class _Token(NamedTuple):
    kind: str  # WORD PHRASE FIELD LPAREN RPAREN AND OR NOT END
    text: str  # the source text (a phrase without its quotes, a field's canonical name)
    column: int  # 1-based column of the token's first character


_OPERATORS = frozenset({"AND", "OR", "NOT"})
#: Terms to show in an example of a field that has none.
_FIELD_EXAMPLES = {"category": ("cs.AI", "cs.CL"), "author": ("lecun", '"yann lecun"')}
_FIELD_RE = re.compile(r"([A-Za-z]+):")
_MAX_DEPTH = 100  # nesting past this is surely a mistake, and would hit Python's recursion limit


# A run of whitespace, and a word: everything up to whitespace, a parenthesis or a quote.
# (\s is exactly str.isspace.) The default catalog's queries hold ~20,000 characters,
# and every command that loads the catalog lexes them: a regex a word, not a loop a
# character, takes `latest` 15 ms faster.
_SPACE_RE = re.compile(r"\s+")
_WORD_RE = re.compile(r'[^\s()"]+')


#: Typographic double quotes, read as '"': a query pasted from a word processor, a
#: chat or a web page ("“tool use”") was the words tool AND use, without a word.
_QUOTES = str.maketrans(dict.fromkeys("“”„‟«»＂", '"'))
#: The quote that closes a phrase opened with each typographic one.
_CLOSING = {"“": "”", "„": "“", "‟": "”", "«": "»", "»": "«", "＂": "＂"}
#: A typographic single quote that closes a phrase: "’" not followed by a letter or digit
#: ("agent’s" is a word with an apostrophe, not the end of a phrase).
_SINGLE_CLOSE_RE = re.compile(r"’(?![^\W_])")


def _single_phrase_end(text: str, i: int) -> int | None:
    """Where the ‘phrase’ whose opening quote is at ``i`` ends (its closing ’), when
    ‘ opens one: at the start of a term (after a space, '(', a field's ':' or the
    '-' of NOT; ``rock‘n’roll`` is a word), closed on the same line. Else None, and
    the ‘ is part of a word, as it always was (``‘90s``). ‘language model’ pasted
    from a word processor was the words language AND model."""
    if i and text[i - 1] not in "(:-" and not text[i - 1].isspace():
        return None
    line_end = text.find("\n", i)
    close = _SINGLE_CLOSE_RE.search(text, i + 1, len(text) if line_end == -1 else line_end)
    return None if close is None else close.start()


def _lex(text: str, comments: list[str] | None = None) -> list[_Token]:
    """The tokens of ``text``; the text of each comment goes to ``comments`` if given."""
    tokens: list[_Token] = []
    typed = text
    text = text.translate(_QUOTES)  # one character for one: columns stay right
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char.isspace():
            i = _SPACE_RE.match(text, i).end()  # type: ignore[union-attr]  # char is one
        elif char == "#":
            # A comment runs to the end of the line, for long queries in topics.toml.
            end = text.find("\n", i)
            if comments is not None:
                comments.append(text[i : n if end == -1 else end])
            i = n if end == -1 else end
        elif char == "(":
            tokens.append(_Token("LPAREN", char, i + 1))
            i += 1
        elif char == ")":
            tokens.append(_Token("RPAREN", char, i + 1))
            i += 1
        elif char == '"':
            end = text.find('"', i + 1)
            if end == -1:
                # «language model was told to close it with '"'.
                closing = _CLOSING.get(typed[i], '"')
                raise QuerySyntaxError(
                    f"unterminated quote at column {i + 1}. Close the phrase with '{closing}'.",
                    i + 1,
                )
            tokens.append(_Token("PHRASE", text[i + 1 : end], i + 1))
            i = end + 1
            if text.startswith("*", i):
                # '"tool use"*': the '*' belongs to the phrase's last word, inside.
                raise QuerySyntaxError(
                    f"misplaced wildcard '*' after the phrase at column {i + 1}. Put it on "
                    f'the last word, inside the quotes: "{text[tokens[-1].column : end]}*".',
                    i + 1,
                )
        elif char == "‘" and (ends := _single_phrase_end(text, i)) is not None:
            tokens.append(_Token("PHRASE", text[i + 1 : ends], i + 1))
            i = ends + 1
        elif char == "-" and i + 1 < n and not text[i + 1].isspace() and text[i + 1] != ")":
            # "-term" is NOT term; a "-" inside a word ("LLM-based") never gets here.
            tokens.append(_Token("NOT", "-", i + 1))
            i += 1
        else:
            start = i
            i = _WORD_RE.match(text, i).end()  # type: ignore[union-attr]  # char is one
            word = text[start:i]
            if word in _OPERATORS:
                tokens.append(_Token(word, word, start + 1))
                continue
            # "title:agent*" is a field and a word; "title:author:x" two fields (an error later).
            fielded = False
            while (match := _FIELD_RE.match(word)) is not None:
                name = match.group(1).lower()
                if name not in FIELDS:
                    import difflib

                    # authors:, titel:, categories: are near misses of one field.
                    close = difflib.get_close_matches(name, FIELDS, n=1, cutoff=0.75)
                    hint = f"Did you mean {close[0]}:? " if close else ""
                    raise QuerySyntaxError(
                        f"unknown field '{match.group(0)}' at column {start + 1}. {hint}"
                        f"{_FIELD_HINT}, or quote the term if the colon is part of it.",
                        start + 1,
                    )
                tokens.append(_Token("FIELD", FIELDS[name], start + 1))
                word = word[match.end() :]
                start += match.end()
                fielded = True
            if fielded and len(word) > 1 and word[0] == "-":
                # "title:-survey" is title:NOT survey, as "-survey" is NOT survey: the
                # "-" was read into the word, and the query matched the surveys.
                tokens.append(_Token("NOT", "-", start + 1))
                word, start = word[1:], start + 1
            if fielded and word.startswith("‘"):
                ends = _single_phrase_end(text, start)
                if ends is not None:  # title:‘tool use’
                    tokens.append(_Token("PHRASE", text[start + 1 : ends], start + 1))
                    i = ends + 1
                    continue
            if fielded and word in _OPERATORS:
                # "title:NOT survey": the operator, not the word "not".
                tokens.append(_Token(word, word, start + 1))
                continue
            if word:
                tokens.append(_Token("WORD", word, start + 1))
    tokens.append(_Token("END", "", n + 1))
    return tokens


# ---------------------------------------------------------------------------
# Parser


def _describe(token: _Token) -> str:
    if token.kind in ("AND", "OR", "NOT"):
        return f"operator {token.text}"
    if token.kind == "FIELD":
        return f"field {token.text}:"
    return repr(token.text)


_CATEGORY_RE = re.compile(r"[a-z0-9][a-z0-9._-]*")


class _Parser:
    """Recursive descent over ``_lex`` tokens; ``scope`` is the field set by ``title:`` etc."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _lex(text)
        self.pos = 0
        self.depth = 0

    def peek(self) -> _Token:
        return self.tokens[self.pos]

    def take(self) -> _Token:
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def parse(self) -> Node:
        if self.peek().kind == "END":
            # '#MeToo' is all comment: say so, or "empty" reads as a bug.
            comment = (
                " (all of it is a comment: '#' runs to the end of the line; quote a word "
                "that starts with '#')"
                if "#" in self.text
                else ""
            )
            raise QuerySyntaxError(
                f'empty query{comment}. Write at least one word, e.g. agent or "language model".',
                1,
            )
        node = self.or_expr("text")
        token = self.peek()
        if token.kind == "RPAREN":
            raise QuerySyntaxError(
                f"unbalanced parenthesis at column {token.column}: ')' closes nothing. "
                "Remove it or add a '(' before it.",
                token.column,
            )
        assert token.kind == "END", token  # or_expr stops only at ')' or the end
        return node

    def or_expr(self, scope: str) -> Node:
        children = [self.and_expr(scope)]
        while self.peek().kind == "OR":
            self.take()
            children.append(self.and_expr(scope))
        return _combine(Or, children)

    def and_expr(self, scope: str) -> Node:
        children = [self.not_expr(scope)]
        while True:
            kind = self.peek().kind
            if kind == "AND":
                self.take()
            elif kind not in ("WORD", "PHRASE", "FIELD", "LPAREN", "NOT"):
                break  # OR, ')' or the end: implicit AND needs a term next
            children.append(self.not_expr(scope))
        return _combine(And, children)

    def not_expr(self, scope: str) -> Node:
        if self.peek().kind == "NOT":
            self.take()
            self.enter()
            child = self.not_expr(scope)
            self.depth -= 1
            return Not(child)
        return self.primary(scope)

    def enter(self) -> None:
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            column = self.peek().column
            raise QuerySyntaxError(
                f"query nested too deeply at column {column}. Use fewer parentheses or NOTs.",
                column,
            )

    def primary(self, scope: str) -> Node:
        token = self.take()
        if token.kind == "FIELD":
            following = self.peek()
            if following.kind == "FIELD":
                raise QuerySyntaxError(
                    f"field {following.text}: at column {following.column} follows field "
                    f"{token.text}: at column {token.column}. Give each term one field.",
                    following.column,
                )
            if following.kind in ("AND", "OR"):
                # title:AND read as an operator: the word is written in quotes.
                word = following.text.lower()
                raise QuerySyntaxError(
                    f"field {token.text}: at column {token.column} is followed by the "
                    f"operator {following.text}. To find the word, quote it: "
                    f'{token.text}:"{word}"',
                    token.column,
                )
            if following.kind not in ("WORD", "PHRASE", "LPAREN", "NOT"):
                one, two = _FIELD_EXAMPLES.get(token.text, ("agent", "agents"))
                raise QuerySyntaxError(
                    f"field {token.text}: at column {token.column} has no term after it. "
                    f"Write e.g. {token.text}:{one} or {token.text}:({one} OR {two}).",
                    token.column,
                )
            return self.not_expr(token.text)  # title:NOT survey, title:-survey
        if token.kind == "LPAREN":
            if self.peek().kind == "RPAREN":
                raise QuerySyntaxError(
                    f"empty parentheses at column {token.column}. "
                    "Put a term inside them or remove them.",
                    token.column,
                )
            self.enter()
            node = self.or_expr(scope)
            self.depth -= 1
            if self.peek().kind != "RPAREN":
                raise QuerySyntaxError(
                    f"unbalanced parenthesis at column {token.column}. "
                    "Close it with ')' or remove it.",
                    token.column,
                )
            self.take()
            return node
        if token.kind == "WORD":
            return self.term(scope, [(token.text, token.column)], token)
        if token.kind == "PHRASE":
            chunks = [
                (m.group(), token.column + 1 + m.start()) for m in re.finditer(r"\S+", token.text)
            ]
            if not chunks:
                raise QuerySyntaxError(
                    f"empty phrase at column {token.column}. "
                    "Put words between the quotes or remove them.",
                    token.column,
                )
            return self.term(scope, chunks, token)
        raise self.missing_operand(token)

    def missing_operand(self, token: _Token) -> QuerySyntaxError:
        """The error for ``token`` (AND, OR, ')' or the end) standing where a term should be."""
        before = self.tokens[self.pos - 2] if self.pos >= 2 else None
        after_operator = before is not None and before.kind in ("AND", "OR", "NOT")
        if token.kind in ("AND", "OR"):
            if before is not None and after_operator:
                return QuerySyntaxError(
                    f"operator {token.text} at column {token.column} follows "
                    f"{_describe(before)} at column {before.column}. "
                    "Put a term between them or remove one.",
                    token.column,
                )
            return QuerySyntaxError(
                f"operator {token.text} at column {token.column} has nothing before it. "
                "Put a term before it or remove it.",
                token.column,
            )
        if before is not None and after_operator:
            return QuerySyntaxError(
                f"{_describe(before)} at column {before.column} has nothing after it. "
                "Put a term after it or remove it.",
                before.column,
            )
        if token.kind == "END" and before is not None and before.kind == "LPAREN":
            return QuerySyntaxError(
                f"unbalanced parenthesis at column {before.column}. "
                "Close it with ')' or remove it.",
                before.column,
            )
        # Only a ')' right at the start gets here: the end alone is the empty query.
        return QuerySyntaxError(
            f"unbalanced parenthesis at column {token.column}: ')' closes nothing. "
            "Remove it or add a '(' before it.",
            token.column,
        )

    def term(self, scope: str, chunks: list[tuple[str, int]], token: _Token) -> Node:
        if scope == "category":
            return _category(" ".join(chunk for chunk, _ in chunks), token.column)
        words: list[str] = []
        prefix: list[bool] = []
        if token.kind == "PHRASE":
            # Punctuation on its own splits words, as "LLM-based" is "llm based": a
            # title pasted as a phrase ("Pruning & Quantization", "Agents – A Survey",
            # 1% of real titles) was refused for its '&'.
            kept = [c for c in chunks if "*" in c[0] or fold(c[0]).strip()]
            chunks = kept or chunks
        for chunk, column in chunks:
            if scope != "author" and ("$" in chunk or "\\" in chunk):
                # A paper's TeX is read as it renders ($\alpha$ is α): a query copied
                # from arXiv, "$\alpha$-divergences", read as "alpha divergences" and
                # found nothing. (Authors' TeX accents are dropped, not rendered.)
                from papertrack.tex import render_tex

                chunk = render_tex(chunk)
            chunk_words, chunk_prefix = _text_word(chunk, column)
            words.extend(chunk_words)
            prefix.extend([False] * (len(chunk_words) - 1) + [chunk_prefix])
        return Term(cast(TextField, scope), tuple(words), tuple(prefix))


def _wildcard_error(raw: str, column: int) -> QuerySyntaxError:
    return QuerySyntaxError(
        f"misplaced wildcard '*' in '{raw}' at column {column}. A '*' may only end a word "
        'after a letter or digit, as in distill* or "language model*".',
        column,
    )


def _text_word(raw: str, column: int) -> tuple[list[str], bool]:
    """The folded words of one whitespace-free chunk and whether its last word is a prefix."""
    star = raw.find("*")
    prefix = star != -1
    if prefix:
        body = raw[:-1]
        folded = fold(body)
        # "*" must come last, once, straight after a letter or digit ("LLM-*" is not).
        if star != len(raw) - 1 or not folded.strip() or folded.endswith(" "):
            raise _wildcard_error(raw, column + star)
    else:
        folded = fold(raw)
    words = folded.split()
    if not words:
        # A term of invisible characters alone (a zero-width space) was named as ''.
        shown = raw if raw.strip() and raw.isprintable() else ascii(raw)[1:-1]
        raise QuerySyntaxError(
            f"term '{shown}' at column {column} has no letters or digits. Remove it.", column
        )
    return words, prefix


def _category(raw: str, column: int) -> Category:
    name = raw.strip().casefold()
    prefix = name.endswith("*")
    if prefix:
        name = name[:-1]
    if "*" in name or (prefix and not name):
        raise _wildcard_error(raw, column + raw.find("*"))
    if not _CATEGORY_RE.fullmatch(name):
        raise QuerySyntaxError(
            f"'{raw}' at column {column} is not a category name. "
            "Write one like category:cs.AI or category:cs.*",
            column,
        )
    return Category(name, prefix)


def _combine(kind: type[And] | type[Or], children: list[Node]) -> Node:
    # Parenthesised groups are kept, not flattened into their parent: a group
    # repeated in many topics (the block of LLM terms) then stays one node, and
    # a catalog computes it once per paper (see papertrack.matching.shared_nodes).
    return children[0] if len(children) == 1 else kind(tuple(children))


def parse_query(text: str) -> Node:
    """Parse a topic query into its syntax tree.

    Raises:
        QuerySyntaxError: with a 1-based ``column``, saying what is wrong and how to fix it.
    """
    undecoded = UNDECODED.search(text)
    if undecoded is not None:
        # A byte that is not UTF-8 (a terminal or script in Latin-1: 'caf\xe9') reaches
        # Python as a lone surrogate, and the tokenizer dropped it: 'café' searched for
        # 'caf'.
        column = undecoded.start() + 1
        raise QuerySyntaxError(
            f"the query holds a byte that is not UTF-8 text at column {column}. Type it "
            "in UTF-8 (set LANG to a UTF-8 locale, or convert the script's text)",
            column,
        )
    return _Parser(text).parse()


def operator_words(text: str) -> list[str]:
    """The words of ``text`` that are operators written in lower or mixed case
    (``or``, ``Not``), each once: the language reads them as words to match, and
    a user who wrote them most likely meant the operator."""
    try:
        tokens = _lex(text)
    except QuerySyntaxError:
        return []
    found = [t.text for t in tokens if t.kind == "WORD" and t.text.upper() in _OPERATORS]
    return list(dict.fromkeys(found))


def comments_of(text: str) -> list[str]:
    """The comments of ``text`` (``# ...`` to the end of a line), as written: what a
    query typed on one line leaves out ("robot #1 OR agent" is the query "robot")."""
    found: list[str] = []
    try:
        _lex(text, found)
    except QuerySyntaxError:
        return []
    return [c for c in found if c[1:].strip()]


#: A programming language's name that folding cuts to a letter: C++, C#, F#.
_SYMBOL_NAME = re.compile(r"(?<![A-Za-z0-9])[A-Za-z](?:\+\+|#)(?![A-Za-z0-9])")


def symbol_words(text: str) -> list[tuple[str, str]]:
    """The names in ``text`` such as ``C++`` and ``C#``, each with the word it is
    matched as (``c``): words are letters and digits, so "C++" also finds "Hepatitis C"."""
    try:
        tokens = _lex(text)
    except QuerySyntaxError:
        return []
    found = [
        match.group()
        for t in tokens
        if t.kind in ("WORD", "PHRASE")
        for match in _SYMBOL_NAME.finditer(t.text)
    ]
    return [(name, fold(name).strip()) for name in dict.fromkeys(found)]


#: A name glued to its number ("llama3", "gpt4", "covid19"), and its two words apart.
_GLUED = re.compile(r"([^\W\d_]{2,})(\d+)")
_APART = re.compile(r"([^\W\d_]{2,}) (\d+)")
_LETTERS = re.compile(r"[^\W\d_]{2,}")


def glued_words(text: str) -> list[tuple[str, str, Term]]:
    """Names of ``text`` written with their number glued on or apart: ``llama3`` is one
    word and misses "Llama-3" and "Llama 3", the phrase ``"llama 3"`` misses "Llama3";
    and two words of letters typed with a hyphen, ``fine-tuning`` (the phrase "fine
    tuning"), miss "finetuning". (Not the other way: a glued word cannot be split without a
    dictionary, and "preserve" read as "pre serve", words many papers hold apart,
    would be said to be written so.)
    (the term, the other spelling, the other spelling as a term) triples, folded:
    ``("title:gpt4", '"gpt 4"', Term("title", ("gpt", "4")))``. Only terms a paper must hold (not
    those under NOT, where the other spelling is kept), in titles and abstracts (not
    author names), and not when the query holds the other spelling too."""
    try:
        node = parse_query(text)
    except QuerySyntaxError:
        return []
    terms = [t for t, holds in query_terms(node) if holds and isinstance(t, Term)]
    typed = {(t.field, t.words) for t in terms}
    folded = text.casefold()  # (fold() reads the hyphen as a space)
    found = []
    for term in terms:
        if term.field == "author" or any(term.prefix):
            continue
        words = term.words
        if len(words) == 1 and (glued := _GLUED.fullmatch(words[0])) is not None:
            other = Term(term.field, (glued[1], glued[2]), (False, False))
        elif len(words) == 2 and _APART.fullmatch(" ".join(words)) is not None:
            other = Term(term.field, ("".join(words),), (False,))
        elif (
            len(words) == 2
            and all(_LETTERS.fullmatch(w) for w in words)
            and re.search(rf"(?<![^\W_]){words[0]}-{words[1]}(?![^\W_])", folded)
        ):
            # Typed with a hyphen only: a quoted "in to" or "on line" meant two words,
            # and "into" and "online" are other words.
            other = Term(term.field, ("".join(words),), (False,))
        else:
            continue
        if (other.field, other.words) not in typed:
            bare = str(Term("text", other.words, other.prefix))
            found.append((str(term), bare, other))
    return list(dict.fromkeys(found))


def category_words(text: str) -> list[str]:
    """The bare words of ``text`` that are arXiv category names (``cs.AI``): matched as
    the words "cs ai" of a title or abstract, not as the category."""
    from papertrack.categories import is_arxiv_category

    try:
        tokens = _lex(text)
    except QuerySyntaxError:
        return []
    # The field each word is read in: a field applies to the term, group or NOT after
    # it. Only the word before was looked at, and category:(cs.AI OR cs.CL), as
    # papertrack's own error suggests it, was told to write category:cs.AI.
    scopes: list[str | None] = [None]
    pending: str | None = None
    found = []
    for token in tokens:
        if token.kind == "FIELD":
            pending = token.text
        elif token.kind == "LPAREN":
            scopes.append(pending or scopes[-1])
            pending = None
        elif token.kind == "RPAREN":
            if len(scopes) > 1:
                scopes.pop()
        elif token.kind in ("WORD", "PHRASE"):
            field = pending or scopes[-1]
            pending = None
            word = token.text
            if token.kind == "WORD" and field is None and "." in word:
                if is_arxiv_category(word.rstrip("*")):
                    found.append(word)
        elif token.kind != "NOT":
            pending = None
    return list(dict.fromkeys(found))


def query_terms(node: Node, positive: bool = True) -> Iterator[tuple[Term | Category, bool]]:
    """Every term and category test of ``node``, with whether it counts for (not under NOT)."""
    if isinstance(node, Term | Category):
        yield node, positive
    elif isinstance(node, Not):
        yield from query_terms(node.child, not positive)
    else:
        for child in node.children:
            yield from query_terms(child, positive)


def category_filter(patterns: tuple[str, ...], where: str) -> Node | None:
    """The OR of ``patterns`` as category tests (None for none); ``where`` names them in errors."""
    if not patterns:
        return None
    nodes: list[Node] = []
    for pattern in patterns:
        try:
            nodes.append(_category(pattern, 1))
        except QuerySyntaxError:
            raise UsageError(
                f"{where} has a bad category {pattern!r}. "
                "Write category names like cs.AI, or prefixes like cs.*"
            ) from None
    return _combine(Or, nodes)
