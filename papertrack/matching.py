"""Compiling topic queries into fast matchers, and the text they match.

Speed matters: ``ingest`` tags every paper against the whole catalog. A paper is
therefore folded and split into words once (:class:`PaperText`), and each query
is compiled once into a Python function made mostly of set look-ups; a catalog
evaluates the sub-queries its topics share (the block of LLM terms) once per
paper. :func:`prefilter` rules papers out before they are even tokenized.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, TypeAlias

from papertrack.models import Paper
from papertrack.query import And, Category, Node, Not, Or, Term, fold, tokenize, unaccent_tex

__all__ = [
    "MATCHER_VERSION",
    "Matcher",
    "PaperText",
    "Prefilter",
    "compile_catalog",
    "compile_query",
    "prefilter",
    "shared_nodes",
]

#: Bump when tokenizing or matching changes meaning, so that every topic's
#: fingerprint changes and stored tags are recomputed.
MATCHER_VERSION = "2"  # 2: a caret between letters or digits joins them (query.join_carets)


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
        # One split for title and abstract together: on a typical abstract,
        # splitting and building the set of words is most of the cost of tagging
        # a paper. The "|" token between them survives because folding is already
        # done; it keeps phrases from running from title into abstract, and no
        # query word can ever be "|".
        words = (fold(title) + " | " + fold(abstract)).split()
        self._set(words, words[: words.index("|")], authors, categories)

    @classmethod
    def of_words(
        cls,
        title: list[str],
        abstract: Iterable[str],
        authors: Iterable[str] = (),
        categories: Iterable[str] = (),
    ) -> PaperText:
        """The text of a paper whose title and abstract are already split into words
        (:func:`papertrack.query.tokenize`'s): ingest splits them once for the queries,
        the models and the search index."""
        text = cls.__new__(cls)
        text._set([*title, "|", *abstract], title, authors, categories)
        return text

    def _set(
        self,
        words: list[str],
        title_words: list[str],
        authors: Iterable[str],
        categories: Iterable[str],
    ) -> None:
        self.text_set: AbstractSet[str] = set(words)
        self.text_str = " " + " ".join(words) + " "
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
        """Tokenize ``paper``'s title, abstract, authors and categories; TeX markup
        left in title or abstract is read as it renders, as tagging reads it."""
        from papertrack.tex import render_tex

        title, abstract = render_tex(paper.title), render_tex(paper.abstract)
        return cls(title, abstract, paper.authors, paper.categories)

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
            names.append(tokenize(unaccent_tex(author)))
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
    :func:`shared_nodes`); their results are cached per paper.
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


def shared_nodes(nodes: Iterable[Node]) -> frozenset[Node]:
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
    lower-cased text. Other text, text with a caret (which folding may drop), and
    authors written with TeX accents, always pass (and are tokenized).
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
        if not raw.isascii() or "^" in raw:
            return True  # a caret between letters joins them: "m3exam" of "M^3Exam"
        low = raw.lower()
        return any(word in low for word in words)

    return possible


def _always(title: str, abstract: str, authors: Sequence[str]) -> bool:
    return True
