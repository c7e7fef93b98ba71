"""Topics: a small query language over papers, and the catalog of named topics.

A topic is a name, a slug and a query such as::

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

Speed matters: ``ingest`` tags every paper against the whole catalog. A paper is
therefore folded and split into words once (:class:`PaperText`), and each query
is compiled once into a Python function made mostly of set look-ups; a catalog
evaluates the sub-queries its topics share (the block of LLM terms) once per
paper.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
import tomllib
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NamedTuple, TypeAlias, cast

from papertrack.errors import PapertrackError, QuerySyntaxError, UnknownTopicError, UsageError
from papertrack.models import Paper
from papertrack.paths import default_topics_file

__all__ = [
    "FIELDS",
    "MATCHER_VERSION",
    "And",
    "Catalog",
    "Category",
    "Node",
    "Not",
    "Or",
    "PaperText",
    "Term",
    "Topic",
    "author_words",
    "compile_query",
    "parse_query",
    "query_terms",
    "slugify",
    "tokenize",
]

#: Bump when tokenizing or matching changes meaning, so that every topic's
#: fingerprint changes and stored tags are recomputed.
MATCHER_VERSION = "1"

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


_ASCII_FOLD = _ascii_fold_table()
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
# TeX accent commands still found in some feeds' author names (the arXiv listing
# feed writes "Paulo Andr\'e Lima de Castro"). Dropping the command keeps the
# base letter, which is what accent folding would give for the real character.
_TEX_ACCENT = re.compile(r"\\(?:['\"`^~=.]|[uvHckrb](?=[\s{]))\s*")


#: Unicode categories that vanish when folding: accents and invisible format characters.
_DROPPED = frozenset({"Mn", "Mc", "Me", "Cf"})


def _fold_run(match: re.Match[str]) -> str:
    # NFKD splits "é" into "e" + a combining accent and "ﬁ" into "fi". Accents
    # and invisible format characters (soft hyphens, zero-width spaces: "LL\u200bM"
    # is "llm") are dropped; other non-alphanumerics (dashes, curly quotes)
    # become spaces.
    run = unicodedata.normalize("NFKD", match.group()).casefold()
    return "".join(
        char if char.isalnum() else ("" if unicodedata.category(char) in _DROPPED else " ")
        for char in run
    )


def _fold(text: str) -> str:
    """Case- and accent-folded ``text`` with every non-alphanumeric turned into a space."""
    if not text.isascii():
        # Only the non-ASCII runs need Unicode work; most abstracts have none.
        text = _NON_ASCII.sub(_fold_run, text)
    # bytes.translate is far faster than a regex tokenizer on long abstracts.
    return text.encode("utf-8").translate(_ASCII_FOLD).decode("utf-8")


def tokenize(text: str) -> list[str]:
    """Split ``text`` into folded words: ``"LLM-based AI"`` -> ``["llm", "based", "ai"]``."""
    return _fold(text).split()


def author_words(authors: Iterable[str]) -> list[str]:
    """The folded words of author names, TeX accent commands dropped (as ``author:`` reads them)."""
    words: list[str] = []
    for author in authors:
        if "\\" in author:
            author = _TEX_ACCENT.sub("", author).replace("{", "").replace("}", "")
        words += tokenize(author)
    return words


def slugify(name: str) -> str:
    """The slug of a topic name: ``"RL for LLM Agents"`` -> ``"rl-for-llm-agents"``."""
    return "-".join(tokenize(name))


# ---------------------------------------------------------------------------
# Paper text


class PaperText:
    """A paper folded and split into words once, ready to be matched by many queries.

    Only what nearly every query reads is built eagerly: the set of words of
    title and abstract together and of the title alone, and the same words
    joined into strings for phrase and prefix searches. The abstract alone and
    the authors are split on first use. ``memo`` caches the results of
    sub-queries that several topics share (the block of LLM terms, ``agent*``),
    so each is evaluated once per paper.

    Joined strings have single spaces between words and one at each end
    (``" large language models | we study "``), so a substring search for
    ``" language model "`` is an exact phrase match and ``" agent"`` a prefix
    match.
    """

    __slots__ = (
        "text_set",
        "text_str",
        "title_set",
        "title_str",
        "categories",
        "memo",
        "_authors",
        "_abstract_str",
        "_abstract_set",
        "_author_set",
        "_author_str",
    )

    def __init__(
        self,
        title: str,
        abstract: str = "",
        authors: Iterable[str] = (),
        categories: Iterable[str] = (),
    ) -> None:
        # One split and one set for title and abstract together: on a typical
        # abstract, splitting and building the set of words is most of the cost
        # of tagging a paper. The "|" token between them survives because
        # folding is already done; it keeps phrases from running from title into
        # abstract, and no query word can ever be "|".
        words = (_fold(title) + " | " + _fold(abstract)).split()
        self.text_set: AbstractSet[str] = set(words)
        self.text_str = " " + " ".join(words) + " "
        title_words = words[: words.index("|")]
        self.title_set: AbstractSet[str] = set(title_words)
        self.title_str = " " + " ".join(title_words) + " "
        self.categories: AbstractSet[str] = {c.strip().casefold() for c in categories}
        self.memo: dict[int, bool] = {}
        self._authors = tuple(authors)
        self._abstract_str: str | None = None
        self._abstract_set: AbstractSet[str] | None = None
        self._author_set: AbstractSet[str] | None = None
        self._author_str: str | None = None

    @classmethod
    def of(cls, paper: Paper) -> PaperText:
        """Tokenize ``paper``'s title, abstract, authors and categories."""
        return cls(paper.title, paper.abstract, paper.authors, paper.categories)

    @property
    def abstract_str(self) -> str:
        if self._abstract_str is None:
            self._abstract_str = self.text_str[self.text_str.index("|") + 1 :]
        return self._abstract_str

    @property
    def abstract_set(self) -> AbstractSet[str]:
        if self._abstract_set is None:
            self._abstract_set = set(self.abstract_str.split())
        return self._abstract_set

    def _split_authors(self) -> None:
        names = []
        for author in self._authors:
            if "\\" in author:
                author = _TEX_ACCENT.sub("", author).replace("{", "").replace("}", "")
            names.append(tokenize(author))
        self._author_set = {word for name in names for word in name}
        # " | " between authors keeps a phrase from spanning two names: in
        # "Yann Smith, Bob LeCun" the words "smith bob" are not adjacent.
        self._author_str = " " + " | ".join(" ".join(name) for name in names) + " "

    @property
    def author_set(self) -> AbstractSet[str]:
        if self._author_set is None:
            self._split_authors()
        assert self._author_set is not None
        return self._author_set

    @property
    def author_str(self) -> str:
        if self._author_str is None:
            self._split_authors()
        assert self._author_str is not None
        return self._author_str


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
_FIELD_RE = re.compile(r"([A-Za-z]+):")
_MAX_DEPTH = 100  # nesting past this is surely a mistake, and would hit Python's recursion limit


# A run of whitespace, and a word: everything up to whitespace, a parenthesis or a quote.
# (\s is exactly str.isspace.) The default catalog's queries hold ~20,000 characters,
# and every command that loads the catalog lexes them: a regex a word, not a loop a
# character, takes `latest` 15 ms faster.
_SPACE_RE = re.compile(r"\s+")
_WORD_RE = re.compile(r'[^\s()"]+')


def _lex(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char.isspace():
            i = _SPACE_RE.match(text, i).end()  # type: ignore[union-attr]  # char is one
        elif char == "#":
            # A comment runs to the end of the line, for long queries in topics.toml.
            end = text.find("\n", i)
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
                raise QuerySyntaxError(
                    f"unterminated quote at column {i + 1}. Close the phrase with '\"'.", i + 1
                )
            tokens.append(_Token("PHRASE", text[i + 1 : end], i + 1))
            i = end + 1
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
            while (match := _FIELD_RE.match(word)) is not None:
                name = match.group(1).lower()
                if name not in FIELDS:
                    raise QuerySyntaxError(
                        f"unknown field '{match.group(0)}' at column {start + 1}. {_FIELD_HINT}, "
                        "or quote the term if the colon is part of it.",
                        start + 1,
                    )
                tokens.append(_Token("FIELD", FIELDS[name], start + 1))
                word = word[match.end() :]
                start += match.end()
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
            raise QuerySyntaxError(
                'empty query. Write at least one word, e.g. agent or "language model".', 1
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
            if following.kind not in ("WORD", "PHRASE", "LPAREN"):
                raise QuerySyntaxError(
                    f"field {token.text}: at column {token.column} has no term after it. "
                    f"Write e.g. {token.text}:agent or {token.text}:(agent OR agents).",
                    token.column,
                )
            return self.primary(token.text)
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
        for chunk, column in chunks:
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
        folded = _fold(body)
        # "*" must come last, once, straight after a letter or digit ("LLM-*" is not).
        if star != len(raw) - 1 or not folded.strip() or folded.endswith(" "):
            raise _wildcard_error(raw, column + star)
    else:
        folded = _fold(raw)
    words = folded.split()
    if not words:
        raise QuerySyntaxError(
            f"term '{raw}' at column {column} has no letters or digits. Remove it.", column
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
    # a catalog computes it once per paper (see _shared_nodes).
    return children[0] if len(children) == 1 else kind(tuple(children))


def parse_query(text: str) -> Node:
    """Parse a topic query into its syntax tree.

    Raises:
        QuerySyntaxError: with a 1-based ``column``, saying what is wrong and how to fix it.
    """
    return _Parser(text).parse()


# ---------------------------------------------------------------------------
# Compiling queries to matchers
#
# A query is compiled into the source of one Python function, which is then
# exec'd (as dataclasses does for __init__): tagging runs every topic on every
# paper, and a tree of closures spends most of its time in Python calls, not in
# the set look-ups and substring searches that do the work. Only integers and
# repr() of strings reach the source; sets and regexes are passed as constants.

Matcher: TypeAlias = Callable[[PaperText], bool]

#: One small integer per distinct shared sub-query ever compiled: equal
#: sub-queries in different topics share a key in ``PaperText.memo``, and so
#: share one result per paper.
_MEMO_KEYS: dict[Node, int] = {}
#: Where each field's word set and joined string live on a PaperText.
_SETS = {
    "text": "ts",
    "title": "t.title_set",
    "abstract": "t.abstract_set",
    "author": "t.author_set",
}
_JOINED = {
    "text": "tx",
    "title": "t.title_str",
    "abstract": "t.abstract_str",
    "author": "t.author_str",
}


def _cost(node: Node) -> int:
    """A rough evaluation cost: children of AND and OR run cheapest first."""
    if isinstance(node, Term):
        if len(node.words) == 1:
            return 8 if node.prefix[0] else 1
        return 3  # a phrase: set look-ups first, a substring search only if they pass
    if isinstance(node, Category):
        return 2 if node.prefix else 1
    if isinstance(node, Not):
        # In an AND a NOT nearly always passes, so it cannot cut evaluation short: last.
        return 1000 + _cost(node.child)
    return sum(_cost(c) for c in node.children)


def _needle(term: Term) -> str:
    # " large language model " finds the exact phrase in a joined field, and
    # " language model" (no space after the last word) its prefix form.
    return " " + " ".join(term.words) + ("" if term.prefix[-1] else " ")


def _exact_words(term: Term) -> frozenset[str]:
    return frozenset(w for w, p in zip(term.words, term.prefix, strict=True) if not p)


class _Codegen:
    """Writes the source of a function ``match(t)`` for a query tree.

    Sub-queries in ``shared`` get a function of their own whose result is
    cached in ``PaperText.memo``; everything else is inlined.
    """

    def __init__(self, shared: AbstractSet[Node]) -> None:
        self.shared = shared
        self.constants: dict[str, object] = {}
        self.functions: dict[str, str] = {}

    def constant(self, value: object) -> str:
        name = f"_c{len(self.constants)}"
        self.constants[name] = value
        return name

    def function(self, name: str, expression: str, key: int | None = None) -> None:
        lines = [f"def {name}(t):"]
        # Locals for what the expression reads: a local is cheaper than an attribute.
        for local, attribute in (("m", "memo"), ("ts", "text_set"), ("tx", "text_str")):
            if re.search(rf"\b{local}\b", expression) or (local == "m" and key is not None):
                lines.append(f"    {local} = t.{attribute}")
        if key is None:
            lines.append(f"    return {expression}")
        else:
            lines.append(f"    r = m[{key}] = {expression}")
            lines.append("    return r")
        self.functions[name] = "\n".join(lines) + "\n"

    def expression(self, node: Node) -> str:
        """Source of a boolean expression over the locals ``t``, ``m``, ``ts`` and ``tx``."""
        if node in self.shared:
            key = _MEMO_KEYS.setdefault(node, len(_MEMO_KEYS))
            name = f"_f{key}"
            if name not in self.functions:
                self.function(name, self.uncached(node), key)
            # A hit costs two dictionary operations and no call.
            return f"(m[{key}] if {key} in m else {name}(t))"
        return self.uncached(node)

    def uncached(self, node: Node) -> str:
        if isinstance(node, Term):
            return self.term(node)
        if isinstance(node, Category):
            if node.prefix:
                return f"any(c.startswith({node.name!r}) for c in t.categories)"
            return f"({node.name!r} in t.categories)"
        if isinstance(node, Not):
            return f"(not {self.expression(node.child)})"
        if isinstance(node, Or):
            return self.any_of(node.children)
        return self.all_of(node.children)

    def term(self, term: Term) -> str:
        words, joined = _SETS[term.field], _JOINED[term.field]
        if len(term.words) == 1 and not term.prefix[0]:
            return f"({term.words[0]!r} in {words})"
        exact = _exact_words(term)
        if any(term.prefix[:-1]):
            # A wildcard before the last word: a regex, after a set test that
            # spares most papers the search.
            pattern = re.compile(
                " "
                + " ".join(
                    re.escape(w) + ("[^ |]*" if p else "")
                    for w, p in zip(term.words, term.prefix, strict=True)
                )
                + ("" if term.prefix[-1] else " ")
            )
            search = f"{self.constant(pattern)}.search({joined}) is not None"
        else:
            search = f"{_needle(term)!r} in {joined}"
        if not exact:
            return f"({search})"
        return f"({self.constant(exact)} <= {words} and {search})"

    def any_of(self, children: tuple[Node, ...]) -> str:
        # Plain words of one field become one isdisjoint() test, and the phrases
        # of one field share a pre-test on their anchors (each phrase's longest
        # exact word: long words are the rare ones), which most papers fail.
        words: dict[str, set[str]] = {}
        categories: set[str] = set()
        phrases: dict[str, list[Term]] = {}
        rest: list[Node] = []
        for child in children:
            if isinstance(child, Term) and len(child.words) == 1 and not child.prefix[0]:
                words.setdefault(child.field, set()).add(child.words[0])
            elif isinstance(child, Category) and not child.prefix:
                categories.add(child.name)
            elif (
                isinstance(child, Term)
                and len(child.words) > 1
                and not any(child.prefix[:-1])
                and _exact_words(child)
            ):
                phrases.setdefault(child.field, []).append(child)
            else:
                rest.append(child)
        parts = [
            f"not {self.constant(frozenset(group))}.isdisjoint({_SETS[where]})"
            for where, group in words.items()
        ]
        if categories:
            parts.append(f"not {self.constant(frozenset(categories))}.isdisjoint(t.categories)")
        for where, terms in phrases.items():
            anchors = frozenset(max(_exact_words(t), key=len) for t in terms)
            each = " or ".join(self.term(t) for t in terms)
            parts.append(f"(not {self.constant(anchors)}.isdisjoint({_SETS[where]}) and ({each}))")
        rest.sort(key=_cost)
        parts += [self.expression(child) for child in rest]
        return parts[0] if len(parts) == 1 else "(" + " or ".join(parts) + ")"

    def all_of(self, children: tuple[Node, ...]) -> str:
        words: set[str] = set()
        rest: list[Node] = []
        for child in children:
            if (
                isinstance(child, Term)
                and child.field == "text"
                and len(child.words) == 1
                and not child.prefix[0]
            ):
                words.add(child.words[0])
            else:
                rest.append(child)
        parts = [f"{self.constant(frozenset(words))} <= ts"] if words else []
        # Evaluation is pure, so the cheapest checks can run first: an AND stops
        # at the first miss.
        rest.sort(key=_cost)
        parts += [self.expression(child) for child in rest]
        return parts[0] if len(parts) == 1 else "(" + " and ".join(parts) + ")"


def compile_query(node: Node, shared: AbstractSet[Node] = frozenset()) -> Matcher:
    """A function telling whether a :class:`PaperText` matches ``node``.

    ``shared`` names sub-queries that other compiled queries contain too (see
    :func:`_shared_nodes`); their results are cached per paper.
    """
    codegen = _Codegen(shared)
    # A whole query is not cached: nothing else evaluates it for the same paper.
    codegen.function("match", codegen.uncached(node))
    source = "\n".join(codegen.functions.values())
    namespace: dict[str, Any] = dict(codegen.constants)
    exec(source, namespace)  # safe: see the comment at the top of this section
    matcher: Matcher = namespace["match"]
    return matcher


def compile_catalog(
    topics: Sequence[tuple[str, Node]], shared: AbstractSet[Node] = frozenset()
) -> Callable[[PaperText], tuple[str, ...]]:
    """One function giving the slugs of every topic a :class:`PaperText` matches, in order.

    Like :func:`compile_query` for each topic in turn, but a paper costs one call
    instead of one per topic, and the paper's word sets are looked up once.
    """
    codegen = _Codegen(shared)
    body = ["def tag(t):", "    m = t.memo", "    ts = t.text_set", "    tx = t.text_str"]
    body.append("    out = []")
    for slug, node in topics:
        body.append(f"    if {codegen.uncached(node)}:")
        body.append(f"        out.append({codegen.constant(slug)})")
    body.append("    return tuple(out)")
    source = "\n".join(codegen.functions.values()) + "\n" + "\n".join(body) + "\n"
    namespace: dict[str, Any] = dict(codegen.constants)
    exec(source, namespace)  # safe: see the comment at the top of this section
    tagger: Callable[[PaperText], tuple[str, ...]] = namespace["tag"]
    return tagger


def _shared_nodes(nodes: Iterable[Node]) -> frozenset[Node]:
    """The groups and lone prefix terms that occur more than once among ``nodes``."""
    counts: dict[Node, int] = {}
    pending = list(nodes)
    while pending:
        node = pending.pop()
        if isinstance(node, And | Or):
            counts[node] = counts.get(node, 0) + 1
            pending.extend(node.children)
        elif isinstance(node, Not):
            pending.append(node.child)
        elif isinstance(node, Term) and len(node.words) == 1 and node.prefix[0]:
            # A lone prefix scans the whole text; a phrase is cheap (set test first).
            counts[node] = counts.get(node, 0) + 1
    return frozenset(node for node, count in counts.items() if count > 1)


def query_terms(node: Node, positive: bool = True) -> Iterator[tuple[Term | Category, bool]]:
    """Every term and category test of ``node``, with whether it counts for (not under NOT)."""
    if isinstance(node, Term | Category):
        yield node, positive
    elif isinstance(node, Not):
        yield from query_terms(node.child, not positive)
    else:
        for child in node.children:
            yield from query_terms(child, positive)


# ---------------------------------------------------------------------------
# A cheap test before tokenizing
#
# Tokenizing a paper (PaperText) is most of the cost of matching it. When a
# query needs one of a few words, a paper whose raw text does not even contain
# one of them as a substring cannot match, and need not be tokenized: retagging
# one changed topic, `topics test` and `latest --query` scan whole stores.

#: A test on a paper's raw title, abstract and authors; False means it cannot match.
Prefilter: TypeAlias = Callable[[str, str, Sequence[str]], bool]


def _anchors(node: Node) -> frozenset[str] | None:
    """Words of which every paper ``node`` matches contains one; None when there is no such set.

    A term needs each of its words, so its longest word serves; an OR needs one
    of its children's anchors; an AND any one child's, the most selective. NOT
    and categories need no word.
    """
    if isinstance(node, Term):
        return frozenset({max(node.words, key=len)})
    if isinstance(node, Or):
        union: set[str] = set()
        for child in node.children:
            anchors = _anchors(child)
            if anchors is None:
                return None
            union |= anchors
        return frozenset(union)
    if isinstance(node, And):
        found = [a for a in map(_anchors, node.children) if a is not None]
        # Fewest and longest words: the most likely to rule a paper out.
        return min(found, key=lambda a: (len(a), -min(map(len, a))), default=None)
    return None


def prefilter(nodes: Iterable[Node]) -> Prefilter:
    """A substring test that is False only for papers none of ``nodes`` can match.

    It holds for ASCII text, where folding is lower-casing and a word is a run of
    letters and digits, so every word of the text is a substring of the
    lower-cased text. Other text, and authors written with TeX accents, always
    pass (and are tokenized).
    """
    union: set[str] = set()
    for node in nodes:
        anchors = _anchors(node)
        if anchors is None:
            return _always
        union |= anchors
    words = tuple(sorted(union, key=len, reverse=True))

    def possible(title: str, abstract: str, authors: Sequence[str]) -> bool:
        names = "\n".join(authors)
        if "\\" in names:
            return True
        raw = f"{title}\n{abstract}\n{names}"
        if not raw.isascii():
            return True
        low = raw.lower()
        return any(word in low for word in words)

    return possible


def _always(title: str, abstract: str, authors: Sequence[str]) -> bool:
    return True


# ---------------------------------------------------------------------------
# Topics


def _category_filter(patterns: tuple[str, ...], where: str) -> Node | None:
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


@dataclass(frozen=True)
class Topic:
    """A named query. ``categories``, when set, also requires one matching category.

    Building a topic parses its query, so a bad query raises
    :class:`QuerySyntaxError` here rather than at tagging time.
    """

    name: str
    slug: str
    query: str
    description: str = ""
    categories: tuple[str, ...] = ()
    source: str = "default"
    #: The learned model's file (a :class:`papertrack.learn.TopicModel` as JSON), or "".
    model_file: str = ""
    #: How the topic decides: "query", "model", "either" or "both"; "" means the
    #: model file's own choice (made by cross-validation when it was fitted), or
    #: "query" without a model.
    decide_rule: str = ""
    #: The parsed query, without the category filter.
    node: Node = field(init=False, repr=False, compare=False)
    #: What decides membership: the category filter AND the query.
    membership: Node = field(init=False, repr=False, compare=False)
    _matcher: Matcher | None = field(init=False, repr=False, compare=False, default=None)
    _prefilter: Prefilter | None = field(init=False, repr=False, compare=False, default=None)
    _fingerprint: str = field(init=False, repr=False, compare=False, default="")
    _model: Any = field(init=False, repr=False, compare=False, default=None)
    _model_fingerprint: str = field(init=False, repr=False, compare=False, default="")

    def __post_init__(self) -> None:
        categories = tuple(self.categories)
        # A topic made from examples alone ("more like these") has a model and no query.
        node = Or(()) if not self.query.strip() and self.model_file else parse_query(self.query)
        category_node = _category_filter(categories, f"topic {self.name!r}")
        membership = node if category_node is None else And((category_node, node))
        digest = hashlib.sha256(f"{MATCHER_VERSION}\n{membership}".encode()).hexdigest()
        object.__setattr__(self, "categories", categories)
        object.__setattr__(self, "node", node)
        object.__setattr__(self, "membership", membership)
        object.__setattr__(self, "_fingerprint", digest[:12])

    def matches(self, text: PaperText | Paper) -> bool:
        """Whether the paper belongs to this topic."""
        if isinstance(text, Paper):
            text = PaperText.of(text)
        if self._matcher is None:
            # Compiled on first use: a catalog compiles its topics itself (see Catalog).
            object.__setattr__(self, "_matcher", compile_query(self.membership))
        assert self._matcher is not None
        return self._matcher(text)

    def matches_fields(
        self, title: str, abstract: str, authors: Sequence[str], categories: Sequence[str]
    ) -> bool:
        """Like :meth:`matches` for raw fields; tokenizes only what :func:`prefilter` passes."""
        if self._prefilter is None:
            object.__setattr__(self, "_prefilter", prefilter([self.membership]))
        assert self._prefilter is not None
        if not self._prefilter(title, abstract, authors):
            return False
        return self.matches(PaperText(title, abstract, authors, categories))

    @property
    def fingerprint(self) -> str:
        """A short hash of what decides membership: the parsed query and categories,
        and the model file and decision rule when the topic has a model.

        Whitespace or comments in the query do not change it; a new matcher
        version (:data:`MATCHER_VERSION`) does, and so does a refit model.
        """
        if not self.model_file:
            return self._fingerprint
        if not self._model_fingerprint:
            # Read once per topic: every batch a writer commits asks for it, and a
            # refit model comes with a new catalog (and new topics).
            try:
                model = hashlib.sha256(Path(self.model_file).read_bytes()).hexdigest()[:12]
            except OSError:
                model = "missing"
            digest = hashlib.sha256(f"{self._fingerprint} {self.decide_rule} {model}".encode())
            object.__setattr__(self, "_model_fingerprint", digest.hexdigest()[:12])
        return self._model_fingerprint

    @property
    def model(self) -> Any:
        """The topic's :class:`papertrack.learn.TopicModel`, or None (read on first use).

        Raises:
            PapertrackError: the model file is missing or damaged.
        """
        if not self.model_file:
            return None
        if self._model is None:
            from papertrack.learn import TopicModel

            try:
                data = json.loads(Path(self.model_file).read_bytes())
                loaded = TopicModel.from_json(data)
            except (OSError, ValueError) as exc:
                raise PapertrackError(
                    f"the model of topic {self.name!r} ({self.model_file}) cannot be read "
                    f"({exc}). Reinstall papertrack, or refit it with 'papertrack topics teach'"
                ) from None
            object.__setattr__(self, "_model", loaded)
        return self._model

    @property
    def decide(self) -> str:
        """How the topic decides: "query", "model", "either" or "both"."""
        if self.decide_rule:
            return self.decide_rule
        if not self.model_file:
            return "query"
        rule = str(self.model.meta.get("decide") or "model")
        return rule if rule in DECISIONS else "model"

    @property
    def narrowable(self) -> bool:
        """Whether every paper the topic tags matches its query (so an index of words can
        narrow the search): it decides by its query, or by query and model with no paper
        taught by hand."""
        if self.decide == "query":
            return True
        return self.decide == "both" and not self.model.meta.get("pinned")

    def matched_terms(self, text: PaperText | Paper) -> tuple[str, ...]:
        """The query's terms (outside any NOT) that the paper contains: why it matched."""
        if isinstance(text, Paper):
            text = PaperText.of(text)
        seen: dict[str, None] = {}
        for term, positive in query_terms(self.node):
            if positive and compile_query(term)(text):
                seen.setdefault(str(term), None)
        return tuple(seen)


_TOPIC_KEYS = frozenset(
    {"name", "slug", "description", "query", "categories", "hidden", "model", "decide"}
)
#: How a topic with a model may decide (see :attr:`Topic.decide`).
DECISIONS = ("query", "model", "either", "both")


def _read_toml(path: Path, text: str | None = None) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8") if text is None else text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path} is not valid TOML: {exc}. Fix the file.") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not UTF-8 text. Save it as UTF-8.") from None
    except OSError as exc:
        raise UsageError(f"could not read topics file {path}: {exc.strerror}.") from None


def _string(entry: dict[str, Any], key: str, where: str, required: bool = False) -> str:
    value = entry.get(key, "")
    if not isinstance(value, str):
        raise UsageError(f"{where}: {key} must be a string. Quote it.")
    if required and not value.strip():
        raise UsageError(f'{where} has no {key}. Add {key} = "...".')
    return value


def _topics_in(
    path: Path, source: str, text: str | None = None, skipped: list[str] | None = None
) -> list[tuple[str, str, Topic | None]]:
    """(slug, name, topic) for each [[topic]] of ``path``; the topic is None when hidden.

    ``text``, when given, is read instead of the file (messages still name ``path``).
    With ``skipped``, a malformed entry is left out and its error added there, so
    one bad topic in the user's file does not stop every command.
    """
    data = _read_toml(path, text)
    extra = sorted(set(data) - {"topic"})
    if extra:
        raise UsageError(
            f"{path} has unknown top-level key {extra[0]!r}. Define topics as [[topic]] tables."
        )
    entries = data.get("topic", [])
    if not isinstance(entries, list):
        raise UsageError(f"{path}: 'topic' must be an array of tables. Write [[topic]].")
    result: list[tuple[str, str, Topic | None]] = []
    for index, entry in enumerate(entries, 1):
        try:
            where = f"topic #{index} in {path}"
            if not isinstance(entry, dict):
                raise UsageError(f"{where} is not a table. Write [[topic]].")
            unknown = sorted(set(entry) - _TOPIC_KEYS)
            if unknown:
                raise UsageError(
                    f"{where} has unknown key {unknown[0]!r}. "
                    f"Known keys: {', '.join(sorted(_TOPIC_KEYS))}."
                )
            hidden = entry.get("hidden", False)
            if not isinstance(hidden, bool):
                raise UsageError(f"{where}: hidden must be true or false.")
            name = _string(entry, "name", where, required=not ("slug" in entry and hidden))
            if name.strip():
                where = f"topic {name.strip()!r} in {path}"
            slug = _string(entry, "slug", where) or slugify(name)
            if not slug or slugify(slug) != slug:
                suggestion = slugify(slug) or "llm-agents"
                raise UsageError(
                    f"{where} has slug {slug!r}. A slug is lower-case words and digits joined "
                    f"by '-', e.g. {suggestion!r}."
                )
            if hidden:
                result.append((slug, name.strip(), None))
                continue
            query = _string(entry, "query", where, required="model" not in entry)
            categories = entry.get("categories", [])
            if not isinstance(categories, list) or not all(isinstance(c, str) for c in categories):
                raise UsageError(f'{where}: categories must be a list of strings, e.g. ["cs.*"].')
            model = _string(entry, "model", where)
            rule = _string(entry, "decide", where)
            if rule and rule not in DECISIONS:
                raise UsageError(f"{where}: decide must be one of {', '.join(DECISIONS)}.")
            if rule and rule != "query" and not model:
                raise UsageError(f"{where}: decide = {rule!r} needs a model file (model = ...).")
            try:
                topic = Topic(
                    name=name.strip(),
                    slug=slug,
                    query=query,
                    description=" ".join(_string(entry, "description", where).split()),
                    categories=tuple(categories),
                    source=source,
                    model_file=str(path.parent / model) if model else "",
                    decide_rule=rule,
                )
            except QuerySyntaxError as exc:
                raise QuerySyntaxError(f"{where}: {exc}", exc.column) from None
            except UsageError as exc:
                raise UsageError(str(exc).replace(f"topic {name.strip()!r}", where, 1)) from None
            result.append((slug, topic.name, topic))
        except (UsageError, QuerySyntaxError) as exc:
            if skipped is None:
                raise
            skipped.append(str(exc))
    return result


def _never(title: str, abstract: str, authors: Sequence[str]) -> bool:
    return False


def decided(rule: str, model_hit: bool, query_hit: bool) -> bool:
    """Whether a paper is in a topic that decides by ``rule``, given its model and query."""
    if rule == "query":
        return query_hit
    if rule == "model":
        return model_hit
    if rule == "either":
        return model_hit or query_hit
    return model_hit and query_hit


def _similarity(typed: str, known: str) -> float:
    """How close ``typed`` is to ``known``, also as a shortened form ("llm-agnt")."""
    whole = difflib.SequenceMatcher(None, typed, known).ratio()
    start = difflib.SequenceMatcher(None, typed, known[: len(typed) + 1]).ratio()
    return max(whole, start)


class Catalog:
    """The topics papers are tagged with, in catalog order.

    ``warnings`` collects problems worth telling the user that do not stop
    loading (a user file hiding a topic that does not exist).
    """

    def __init__(self, topics: Iterable[Topic] = (), warnings: Iterable[str] = ()) -> None:
        self.topics: tuple[Topic, ...] = tuple(topics)
        self.warnings: tuple[str, ...] = tuple(warnings)
        self._by_slug: dict[str, Topic] = {}
        by_name: dict[str, Topic] = {}
        for topic in self.topics:
            if topic.slug in self._by_slug:
                raise UsageError(
                    f"two topics have the slug {topic.slug!r} ({self._by_slug[topic.slug].name!r} "
                    f"and {topic.name!r}). Give one of them another slug."
                )
            folded = topic.name.casefold()
            if folded in by_name:
                raise UsageError(
                    f"two topics are named {topic.name!r} (slugs {by_name[folded].slug!r} and "
                    f"{topic.slug!r}). Rename one of them."
                )
            self._by_slug[topic.slug] = topic
            by_name[folded] = topic
        self._by_name = by_name
        self._compiled: Callable[[PaperText], tuple[str, ...]] | None = None
        self._prefilter: Prefilter | None = None
        self._models: Any = None  # a learn.ModelSet of the topics that have a model
        self._pins: dict[str, dict[str, bool]] | None = None

    @property
    def _tagger(self) -> Callable[[PaperText], tuple[str, ...]]:
        # Compiled on first use: read-only commands such as `latest` never tag, and
        # compiling the catalog costs ~25 ms of their start-up. Compiled together
        # so that sub-queries common to several topics (the block of LLM terms,
        # agent*) are evaluated once per paper.
        if self._compiled is None:
            # A topic that decides by its model alone needs no query evaluated.
            queried = [t for t in self.topics if t.decide != "model"]
            shared = _shared_nodes(t.membership for t in queried)
            self._compiled = compile_catalog([(t.slug, t.membership) for t in queried], shared)
        return self._compiled

    @classmethod
    def load(
        cls,
        default_path: Path,
        user_path: Path | None = None,
        *,
        user_text: str | None = None,
        lenient: bool = False,
    ) -> Catalog:
        """The default catalog at ``default_path`` merged with the user's file, if it exists.

        A user topic with a default topic's slug replaces it in place; other user
        topics follow the defaults. A user entry with ``hidden = true`` removes
        the topic with its slug (or name). ``user_text``, when given, is read as
        the user's file instead of the file itself (to check an edit before
        writing it). ``lenient`` skips a malformed entry of the user's file with a
        warning instead of raising (the CLI's reading, so one bad topic does not
        stop every command).

        Raises:
            UsageError: a file is not valid TOML or a topic is malformed.
            QuerySyntaxError: a topic's query does not parse; the message names file and topic.
        """
        if not default_path.is_file():
            raise PapertrackError(
                f"the default topic catalog {default_path} is missing. Reinstall papertrack."
            )
        merged: dict[str, Topic] = {}
        warnings: list[str] = []
        sources = [(default_path, "default")]
        if user_path is not None and (user_text is not None or user_path.exists()):
            sources.append((user_path, "user"))
        for path, source in sources:
            seen: set[str] = set()
            text = user_text if source == "user" else None
            # lenient (the CLI reading the user's file as it is, not an edit being
            # checked): a bad entry is reported and skipped, and the other topics work,
            # a cron digest too.
            skipped: list[str] | None = [] if lenient and source == "user" else None
            entries = _topics_in(path, source, text, skipped)
            warnings += [f"{why.rstrip('.')}; that topic is skipped." for why in skipped or ()]
            for slug, name, topic in entries:
                if slug in seen:
                    raise UsageError(f"{path} defines the topic {slug!r} twice. Remove one.")
                seen.add(slug)
                if topic is not None:
                    merged[slug] = topic
                    continue
                # Hide by slug, or by name when only the name was given and the
                # default's slug is not the name's slug.
                target = (
                    slug
                    if slug in merged
                    else next(
                        (s for s, t in merged.items() if t.name.casefold() == name.casefold()), None
                    )
                )
                if target is None:
                    warnings.append(f"{path} hides the topic {slug!r}, but there is no such topic.")
                else:
                    del merged[target]
        return cls(merged.values(), warnings)

    @classmethod
    def default(cls) -> Catalog:
        """The catalog bundled with papertrack (``data/topics.toml``)."""
        return cls.load(default_topics_file())

    def __iter__(self) -> Iterator[Topic]:
        return iter(self.topics)

    def __len__(self) -> int:
        return len(self.topics)

    def by_slug(self, slug: str) -> Topic | None:
        """The topic with exactly this slug, or None."""
        return self._by_slug.get(slug)

    def find(self, name_or_slug: str) -> Topic:
        """The topic named ``name_or_slug``: its name or slug, in any case, with '-' or spaces.

        Raises:
            UnknownTopicError: no such topic; the message suggests close names.
        """
        key = name_or_slug.strip()
        topic = self._by_slug.get(key) or self._by_name.get(key.casefold())
        if topic is not None:
            return topic
        slug = slugify(key)
        topic = self._by_slug.get(slug)
        if topic is not None:
            return topic
        for topic in self.topics:
            if slugify(topic.name) == slug:
                return topic
        raise UnknownTopicError(self._unknown(key, slug))

    def _unknown(self, key: str, slug: str) -> str:
        scored: list[tuple[float, int, Topic]] = []
        for index, topic in enumerate(self.topics):
            score = max(
                _similarity(slug, topic.slug), _similarity(key.casefold(), topic.name.casefold())
            )
            if score >= 0.6:
                scored.append((-score, index, topic))
        scored.sort(key=lambda item: (item[0], item[1]))
        message = f"no topic named {key!r}."
        if scored:
            close = ", ".join(f"{t.name} ({t.slug})" for _, _, t in scored[:3])
            message += f" Did you mean: {close}?"
        return message + " Run 'papertrack topics' to list them."

    def tag(self, paper: Paper) -> tuple[str, ...]:
        """The slugs of every topic ``paper`` is in, in catalog order."""
        return self.tag_fields(
            paper.title, paper.abstract, paper.authors, paper.categories, paper.arxiv_id
        )

    def tag_text(self, text: PaperText) -> tuple[str, ...]:
        """The topics whose query ``text`` matches (models are not asked)."""
        return self._tagger(text)

    @property
    def model_set(self) -> Any:
        """A :class:`papertrack.learn.ModelSet` of every topic that has a model (or None)."""
        if self._models is None:
            from papertrack.learn import ModelSet

            models = {t.slug: t.model for t in self.topics if t.decide != "query"}
            self._models = ModelSet(models) if models else False
        return self._models or None

    @property
    def pins(self) -> dict[str, dict[str, bool]]:
        """Paper id -> {slug: in the topic?} for the papers a user taught a topic with.

        A taught example is the user's own decision: it holds whatever the model and
        the query say (the model is also refit with it, so similar papers follow).
        """
        if self._pins is None:
            pins: dict[str, dict[str, bool]] = {}
            for topic in self.topics:
                if topic.model_file and topic.decide != "query":
                    for pid, label in (topic.model.meta.get("pinned") or {}).items():
                        pins.setdefault(pid, {})[topic.slug] = bool(label)
            self._pins = pins
        return self._pins

    def tag_fields(
        self,
        title: str,
        abstract: str,
        authors: Sequence[str],
        categories: Sequence[str],
        arxiv_id: str | None = None,
    ) -> tuple[str, ...]:
        """Like :meth:`tag` for raw fields; tokenizes only what :func:`prefilter` lets through.

        TeX markup is read as the text it renders (``$\\textbf{A}$gent`` is "Agent").
        A topic with a model decides by its model, its query, either or both; a paper
        the user taught the topic with (``arxiv_id``) is decided as taught.
        """
        tags = self._tag_fields(title, abstract, authors, categories)
        pinned = self.pins.get(arxiv_id) if arxiv_id is not None and self.pins else None
        if pinned:
            keep = {t for t in tags if pinned.get(t, True)} | {s for s, v in pinned.items() if v}
            tags = tuple(t.slug for t in self.topics if t.slug in keep)
        return tags

    def _tag_fields(
        self, title: str, abstract: str, authors: Sequence[str], categories: Sequence[str]
    ) -> tuple[str, ...]:
        from papertrack.tex import render_tex

        title, abstract = render_tex(title), render_tex(abstract)
        if self._prefilter is None:
            queried_topics = [t.membership for t in self.topics if t.decide != "model"]
            self._prefilter = prefilter(queried_topics) if queried_topics else _never
        queried: tuple[str, ...] = ()
        if self._prefilter(title, abstract, authors):
            queried = self._tagger(PaperText(title, abstract, authors, categories))
        models = self.model_set
        if models is None:
            return queried
        from papertrack.learn import features

        fired = models.decide(features(title, abstract))
        if not fired and not queried:
            return ()
        return tuple(
            t.slug for t in self.topics if decided(t.decide, t.slug in fired, t.slug in queried)
        )

    def queries_only(self) -> Catalog:
        """This catalog with every topic deciding by its query alone (models set aside)."""
        import dataclasses

        return Catalog(
            (dataclasses.replace(t, model_file="", decide_rule="") for t in self.topics),
            self.warnings,
        )

    def with_models(self, folder: Path) -> Catalog:
        """This catalog with the models a user taught (``folder/<slug>.json``) in place."""
        import dataclasses

        if not folder.is_dir():
            return self
        topics = []
        for topic in self.topics:
            taught = folder / f"{topic.slug}.json"
            if taught.is_file():
                topic = dataclasses.replace(topic, model_file=str(taught), decide_rule="")
            topics.append(topic)
        return Catalog(topics, self.warnings)

    def fingerprints(self) -> dict[str, str]:
        """Slug -> fingerprint of every topic, to tell which tags are out of date."""
        return {t.slug: t.fingerprint for t in self.topics}

    def subset(self, slugs: AbstractSet[str]) -> Catalog:
        """The topics with these slugs, in catalog order: retagging compiles only those."""
        return Catalog(t for t in self.topics if t.slug in slugs)
