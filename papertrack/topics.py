"""Topics: named queries over papers, and the catalog of them.

A topic is a name, a slug and a query in the language of :mod:`papertrack.query`
(compiled by :mod:`papertrack.matching`), optionally a category filter and a
learned model. The catalog is the default topics file plus the user's own.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import json
import os
import threading
import time
import tomllib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

from papertrack.config import loads_toml
from papertrack.errors import (
    PapertrackError,
    QuerySyntaxError,
    TopicsFileError,
    UnknownTopicError,
    UsageError,
)
from papertrack.matching import (
    MATCHER_VERSION,
    Matcher,
    PaperText,
    Prefilter,
    compile_catalog,
    compile_query,
    prefilter,
    shared_nodes,
)
from papertrack.models import Paper
from papertrack.paths import default_topics_file
from papertrack.query import (
    FIELDS,
    And,
    Category,
    Node,
    Not,
    Or,
    Term,
    TextField,
    author_words,
    category_filter,
    parse_query,
    query_terms,
    tokenize,
)
from papertrack.text import clean_text, quoted, visible

if TYPE_CHECKING:
    from papertrack.learn import Words

# The query language and the matchers moved to papertrack.query and
# papertrack.matching; their names stay importable from here.
__all__ = [
    "DECISIONS",
    "FIELDS",
    "MATCHER_VERSION",
    "And",
    "Catalog",
    "Category",
    "Matcher",
    "Node",
    "Not",
    "Or",
    "PaperText",
    "Prefilter",
    "Term",
    "TextField",
    "Topic",
    "author_words",
    "as_bundled",
    "bundled_membership",
    "compile_catalog",
    "compile_query",
    "decided",
    "default_hits",
    "model_features",
    "model_text",
    "model_words",
    "parse_query",
    "prefilter",
    "query_terms",
    "slugify",
    "tokenize",
]


#: The longest slug, in UTF-8 bytes: it names files (``models/SLUG.json`` and their
#: temp files), and a file name of 256 bytes or more is refused by the file system,
#: which stopped every command (100 CJK characters are 300 bytes).
MAX_SLUG = 100


def slug_bytes(slug: str) -> int:
    """The length of ``slug`` in a file name: UTF-8 bytes, which :data:`MAX_SLUG` bounds."""
    return len(slug.encode("utf-8", "surrogatepass"))


def slugify(name: str) -> str:
    """The slug of a topic name: ``"RL for LLM Agents"`` -> ``"rl-for-llm-agents"``.

    A terminal escape in the name is dropped whole, as it is when the name is shown
    (``"\x1b[1mBold"`` is ``"bold"``, not ``"1mbold"``).
    """
    return "-".join(tokenize(clean_text(name)))


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
    #: Slugs of the topics this one implies: a paper in this topic is in them too
    #: (``rl-for-tool-use`` implies ``agentic-rl``), whatever their own query and model say.
    implies: tuple[str, ...] = ()
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
        alone = not self.query.strip() and bool(self.model_file)
        node, membership, fingerprint = _definition(self.query, categories, self.name, alone)
        object.__setattr__(self, "categories", categories)
        object.__setattr__(self, "implies", tuple(self.implies))
        object.__setattr__(self, "node", node)
        object.__setattr__(self, "membership", membership)
        object.__setattr__(self, "_fingerprint", fingerprint)

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
        """Like :meth:`matches` for raw fields; tokenizes only what :func:`prefilter` passes.

        TeX markup in ``title`` and ``abstract`` is read as it renders, as tagging reads it.
        """
        from papertrack.tex import render_tex

        title, abstract = render_tex(title), render_tex(abstract)
        if self._prefilter is None:
            object.__setattr__(self, "_prefilter", prefilter([self.membership]))
        assert self._prefilter is not None
        if not self._prefilter(title, abstract, authors):
            return False
        return self.matches(PaperText(title, abstract, authors, categories))

    @property
    def definition(self) -> str:
        """A short hash of the topic's definition alone (its parsed query and
        categories): a taught model records the one it was taught to."""
        return self._fingerprint

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
            try:
                self.load_model()
            except _MODEL_ERRORS as exc:
                from papertrack.paths import data_dir, user_model_file

                where = Path(self.model_file).resolve()
                shipped = where.is_relative_to(data_dir().resolve())
                taught = where == user_model_file(self.slug).resolve()
                if shipped:
                    fix = "Reinstall papertrack"
                elif not taught:
                    # A path written into topics.toml by hand: not papertrack's to delete.
                    fix = "Fix the topic's 'model = ...' in your topics file, or remove that line"
                elif self.source == "default":
                    fix = (
                        f"Run 'papertrack topics teach {self.slug} --forget' to go back to "
                        "its shipped model, then teach it again"
                    )
                elif self.query.strip():
                    fix = "Delete that file to go back to its query, then teach it again"
                else:
                    fix = (
                        f'Make the topic again with \'papertrack topics add "{self.name}" '
                        f"--like ID... --replace', or remove it with 'papertrack topics remove "
                        f"{self.slug}'"
                    )
                raise PapertrackError(
                    f"the model of topic {quoted(self.name)} ({self.model_file}) cannot be read "
                    f"({exc}). {fix}"
                ) from None
        return self._model

    def load_model(self) -> Any:
        """:attr:`model`, read once, with the file's own error when it cannot be
        (one of :data:`_MODEL_ERRORS`)."""
        if self._model is None:
            object.__setattr__(self, "_model", _read_model(Path(self.model_file)))
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
        if self.decide not in ("query", "both"):
            return False
        return not (self.model_file and self.model.meta.get("pinned"))


@functools.lru_cache(maxsize=512)
def _definition(
    query: str, categories: tuple[str, ...], name: str, examples_alone: bool
) -> tuple[Node, Node, str]:
    """A topic's parsed query, its membership (categories and query) and the short
    hash of that; a :class:`~papertrack.query.QuerySyntaxError` or
    :class:`~papertrack.errors.TopicsFileError` (not kept) if they cannot be read.

    Kept for the process, as the trees are never changed: a command parses each
    query once either way, but a process that loads many catalogs (the Python API
    in a long-lived program, the test suite) parsed the bundled ~20,000
    characters of queries each time, about 0.05 s a catalog.
    """
    node = Or(()) if examples_alone else parse_query(query)
    category_node = category_filter(categories, f"topic {quoted(name)}")
    membership = node if category_node is None else And((category_node, node))
    digest = hashlib.sha256(f"{MATCHER_VERSION}\n{membership}".encode()).hexdigest()
    return node, membership, digest[:12]


_TOPIC_KEYS = frozenset(
    {"name", "slug", "description", "query", "categories", "hidden", "model", "decide", "implies"}
)
#: How a topic with a model may decide (see :attr:`Topic.decide`).
DECISIONS = ("query", "model", "either", "both")


def _read_toml(path: Path, text: str | None = None) -> dict[str, Any]:
    try:
        # utf-8-sig: a byte-order mark (some Windows editors write one) is no error.
        return loads_toml(path.read_text(encoding="utf-8-sig") if text is None else text)
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
    path: Path,
    source: str,
    text: str | None = None,
    skipped: list[tuple[str, str, str]] | None = None,
    pending_model: str = "",
) -> list[tuple[str, str, Topic | None]]:
    """(slug, name, topic) for each [[topic]] of ``path``; the topic is None when hidden.

    ``text``, when given, is read instead of the file (messages still name ``path``).
    With ``skipped``, a malformed entry is left out and (its slug and name, each ""
    before it is known; its error) added there, so one bad topic in the user's file
    does not stop every command.
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
        slug = name = ""
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
            if slug_bytes(slug) > MAX_SLUG:
                raise UsageError(
                    f"{where} has a slug of {slug_bytes(slug)} bytes; a slug names files and "
                    f'is at most {MAX_SLUG} (UTF-8). Give the topic a shorter slug = "..."'
                )
            if hidden:
                result.append((slug, name.strip(), None))
                continue
            if not set(entry) - {"name", "slug", "description", "hidden"}:
                # What is left of a hidden default whose `hidden = true` line alone was
                # deleted: "Add query" told the user to do what they did not want.
                raise UsageError(
                    f"{where} has a name and no query or model. Delete the entry if it is "
                    "left from hiding a default topic (that brings the default back), "
                    'or add query = "..."'
                )
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
            implies = entry.get("implies", [])
            if (
                not isinstance(implies, list)
                or not all(isinstance(i, str) and i and slugify(i) == i for i in implies)
                or slug in implies
            ):
                raise UsageError(
                    f"{where}: implies must be a list of other topics' slugs, "
                    'e.g. ["llm-agent-training"].'
                )
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
                    implies=tuple(dict.fromkeys(implies)),
                )
            except QuerySyntaxError as exc:
                raise QuerySyntaxError(
                    f"{where}: {_on_its_line(str(exc), query, exc.column)}", exc.column
                ) from None
            except UsageError as exc:
                raise UsageError(str(exc).replace(f"topic {name.strip()!r}", where, 1)) from None
            # (A model an edit being checked writes next is not there yet: said as
            # "missing", it hid the edit's real problem, a name taken.)
            problem = (
                model_problem(topic)
                if skipped is not None and model and topic.model_file != pending_model
                else None
            )
            taught = path.parent / "models" / f"{slug}.json"
            if problem == "is missing" and source == "user" and taught.is_file():
                # Its slug renamed by hand, the entry's `model = ...` still names the
                # old slug's file; the model taught since under the new slug is the
                # one that decides (with_models puts it in place). The old file
                # deleted with another topic of the old slug knocked this one out.
                import dataclasses

                topic = dataclasses.replace(topic, model_file=str(taught))
                problem = model_problem(topic)
            if problem is not None:
                # Read as the file is (not an edit being checked, whose model may be
                # written next): a topic that cannot tag would stop every command.
                raise UsageError(
                    f"{where}: its model file {topic.model_file} {problem}. Fix its "
                    "'model = ...', remove that line, or make the topic again with "
                    "'papertrack topics add NAME --like ID... --replace'"
                )
            result.append((slug, topic.name, topic))
        except (UsageError, QuerySyntaxError) as exc:
            if skipped is None:
                raise
            skipped.append((slug, name.strip(), str(exc)))
    return result


def _on_its_line(message: str, query: str, column: int | None) -> str:
    """``message`` with "column N" of a query of several lines (a hand-written entry
    of topics.toml) as its line and column: counted across the lines, column 23 was
    a place no editor shows."""
    if column is None or "\n" not in query or f"column {column}" not in message:
        return message
    before = query[: column - 1]
    line = before.count("\n") + 1
    at = column - (before.rfind("\n") + 1)
    return message.replace(f"column {column}", f"line {line}, column {at} of its query", 1)


#: What reading a model file that is not a model raises.
_MODEL_ERRORS = (OSError, ValueError, TypeError, KeyError, AttributeError)

#: Models this process read, by a digest of their file's bytes (the newest
#: :data:`_KEPT` of them), and the model sets made of them. A command reads each
#: model once either way; a process that makes many catalogs (the Python API in a
#: long-lived program, the test suite) read and merged the same 20 files each
#: time, about 0.2 s a catalog. Keyed by the bytes, not the file's time and size:
#: a teach that rewrites a model within one tick of the clock is still seen.
#: Loaded models are never changed in place (a teach writes a new file), so one
#: object serves every catalog.
_KEPT = 64
_MODELS_READ: dict[bytes, Any] = {}
_MODEL_SETS: dict[tuple[tuple[str, int], ...], tuple[Any, list[Any]]] = {}
#: Held while either is read or changed: threads of the Python API share them.
_KEEPING = threading.Lock()


def _read_model(path: Path) -> Any:
    """The :class:`papertrack.learn.TopicModel` in ``path`` (one of
    :data:`_MODEL_ERRORS` if it cannot be read)."""
    from papertrack.learn import TopicModel

    data = path.read_bytes()
    key = hashlib.blake2b(data, digest_size=16).digest()
    return _kept(_MODELS_READ, key, lambda: TopicModel.from_json(json.loads(data)), _KEPT)


def _model_set(models: Mapping[str, Any]) -> Any:
    """A :class:`papertrack.learn.ModelSet` of ``models``, made once for the same models
    (the same objects: see :data:`_MODELS_READ`)."""
    from papertrack.learn import ModelSet

    key = tuple((slug, id(model)) for slug, model in models.items())
    # The models are kept beside it, so no id in the key is another object's.
    found = _kept(_MODEL_SETS, key, lambda: (ModelSet(models), list(models.values())), 4)
    return found[0]


def _kept(cache: dict[Any, Any], key: Any, make: Callable[[], Any], most: int) -> Any:
    """``cache[key]``, made by ``make`` (outside the lock: a slow make holds no other
    thread) when it is not there; the newest ``most`` entries are kept."""
    with _KEEPING:
        found = cache.pop(key, None)
    if found is None:
        found = make()
    with _KEEPING:
        cache[key] = found  # the newest last
        while len(cache) > most:
            del cache[next(iter(cache))]
    return found


def model_digest(path: str | Path) -> str:
    """A short digest of a model file's bytes: which shipped model a pinned copy copies."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def model_problem(topic: Topic) -> str | None:
    """Why ``topic``'s model file cannot be used ("is missing", "cannot be read
    (…)"), or None; the model read is kept, so tagging does not read it again."""
    try:
        topic.load_model()
    except FileNotFoundError:
        return "is missing"
    except _MODEL_ERRORS as exc:
        return f"cannot be read ({type(exc).__name__}: {str(exc)[:80]})"
    return None


def _inherit_model(topic: Topic, default: Topic | None, source: str) -> Topic:
    """``topic``, a user's entry that replaces ``default``, with the default's model and
    rule when it names neither and is defined as the default is: an entry copied into
    topics.toml to rename a topic or reword its description decided by its query
    alone, without a word (F1 0.55 for llm-agent-training's query on the test split,
    0.69 for its model). ``decide = "query"`` keeps the query alone."""
    import dataclasses

    if (
        source != "user"
        or default is None
        or not default.model_file
        or topic.model_file
        or topic.decide_rule
        or topic.definition != default.definition
    ):
        return topic
    return dataclasses.replace(
        topic, model_file=default.model_file, decide_rule=default.decide_rule
    )


def _clash(topic: Topic, others: Iterable[Topic]) -> str | None:
    """Why ``topic`` cannot sit beside ``others``, or None.

    A topic is looked up by slug or name in any case (:meth:`Catalog.find`), so no
    two may share a slug, a name in any case, or a name that is the other's slug
    ("gui-agents" with slug "mine" beside the default gui-agents: which one
    ``latest GUI-Agents`` meant would depend on the case typed).
    """
    folded, named = topic.name.casefold(), slugify(topic.name)
    for other in others:
        if other.slug == topic.slug:
            return (
                f"two topics have the slug {topic.slug!r} "
                f"({quoted(other.name)} and {quoted(topic.name)}). Give one of them another slug."
            )
        if other.name.casefold() == folded:
            return (
                f"two topics are named {quoted(topic.name)} "
                f"(slugs {other.slug!r} and {topic.slug!r}). Rename one of them."
            )
        if named == other.slug or slugify(other.name) == topic.slug:
            first, second = (topic, other) if named == other.slug else (other, topic)
            return (
                f"the topic {quoted(first.name)} ({first.slug}) is named as the slug of "
                f"{quoted(second.name)} ({second.slug}), so a lookup could find either. "
                "Rename one of them."
            )
    return None


def _closure(edges: Mapping[str, Sequence[str]]) -> dict[str, frozenset[str]]:
    """slug -> every slug reachable from it along ``edges`` (itself excluded), for the
    slugs that reach any; cycles are fine."""
    reach: dict[str, frozenset[str]] = {}
    for start, direct in edges.items():
        seen: set[str] = set()
        todo = list(direct)
        while todo:
            slug = todo.pop()
            if slug not in seen:
                seen.add(slug)
                todo.extend(edges.get(slug, ()))
        seen.discard(start)
        if seen:
            reach[start] = frozenset(seen)
    return reach


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


class _Hints:
    """The bundled topics' queries, compiled once: which of them a paper matches.

    Every model sees these matches as features (``"q:<slug>"``, see
    :func:`papertrack.learn.features`), always of the queries as bundled, so a
    model scores a paper the same whatever the user's own topics file says.
    """

    def __init__(self) -> None:
        topics = [t for t in Catalog.default().topics if t.query.strip()]
        self.memberships = {t.slug: t.membership for t in topics}
        pairs = list(self.memberships.items())
        self.prefilter = prefilter(self.memberships.values())
        self.tagger = compile_catalog(pairs, shared_nodes(self.memberships.values()))


_HINTS: _Hints | None = None


def _hints() -> _Hints:
    global _HINTS
    if _HINTS is None:
        _HINTS = _Hints()
    return _HINTS


def bundled_membership(slug: str) -> Any:
    """The membership (query and category filter) of the bundled topic ``slug`` as
    bundled, whose matches are the model feature ``"q:" + slug``; None: no such query."""
    return _hints().memberships.get(slug)


def put_back(topic: Topic, meta: Mapping[str, Any]) -> bool:
    """Whether ``topic`` is a default as bundled whose taught model (``meta``) is the one
    a topic defined in its place left: a query topic's, its taught papers pinned,
    taught to another definition. It then decides by the query with those pins, not
    by its shipped model, until a teach fits it again (:func:`papertrack.teach.is_current`).
    """
    return (
        topic.source == "default"
        and as_bundled(topic)
        and str(meta.get("decide") or "model") == "query"
        and meta.get("definition") not in (None, topic.definition)
    )


def _redefined(topic: Topic, meta: Mapping[str, Any]) -> str:
    """The warning for a topic whose definition in topics.toml is not the one its taught
    model (``meta``) was taught to (edited by hand); "" when none is due.

    Only a model that decides alone makes the query shown no part of what decides
    (1,780 papers where the new query matched 710). A topic deciding with its query
    (its taught papers pinned, or a model of examples beside it) decides by the new
    query: saying the earlier one still did was false, and its advice ("--replace
    --query") deleted a model made with --like. A default put back as bundled
    (:func:`put_back`) decides by its query, as the topic that replaced it did, and
    not by its shipped model. A default as bundled whose model decides alone is
    told nothing: only a new papertrack's matcher changes its definition.
    """
    name = quoted(topic.name)
    rule = str(meta.get("decide") or "model")
    if put_back(topic, meta):
        pinned = meta.get("pinned")
        taught = dict(pinned) if isinstance(pinned, dict) else {}
        # An example as it was taught: the command teaches it so again (one taught out,
        # named bare, was taught in).
        example = next((pid for pid, inside in taught.items() if inside), None)
        if example is not None:
            again = visible(str(example))
        else:
            out = next(iter(taught), None)
            again = "ID" if out is None else f"--not {visible(str(out))}"
        return (
            f"{name} decides by its query and the papers taught to it, as the topic you "
            "defined in its place did, and not by its shipped model. 'papertrack topics "
            f"teach {topic.slug} {again}' (an example as taught before) fits it again with "
            "your examples"
        )
    if rule != "model" or (topic.source == "default" and as_bundled(topic)):
        return ""
    if meta.get("like"):
        if not topic.query.strip():
            return ""
        return (
            f"the model of {name}, made from your examples, decides alone still, not with "
            "the query topics.toml gives it now; teaching it a paper it misses fits it "
            "again with both"
        )
    return (
        f"the model taught to {name} was taught to its earlier query or categories, "
        "and decides still, not the definition topics.toml gives it now. 'papertrack "
        f'topics add "{visible(topic.name)}" --replace --query ...\' redefines it and '
        f"keeps your examples; 'papertrack topics teach {topic.slug} --forget' drops them"
    )


def as_bundled(topic: Topic) -> bool:
    """Whether ``topic`` decides membership as the bundled topic of its slug does (same
    query, same category filter): the shipped labels and the ``"q:"`` features hold
    for it. A default you redefined, or a topic of your own, does not."""
    bundled = bundled_membership(topic.slug)
    return bundled is not None and bundled == topic.membership


def default_hits(
    title: str,
    abstract: str,
    authors: Sequence[str] = (),
    categories: Sequence[str] = (),
    words: Words | None = None,
) -> tuple[str, ...]:
    """The slugs of the bundled topics whose bundled query (and category filter) the
    paper matches; ``title`` and ``abstract`` already TeX-rendered, ``words`` their
    :func:`papertrack.learn.read`, if made already."""
    hints = _hints()
    if not hints.prefilter(title, abstract, authors):
        return ()
    if words is None:
        return hints.tagger(PaperText(title, abstract, authors, categories))
    title_words, sentences = words
    abstract_words = chain.from_iterable(sentences)
    return hints.tagger(PaperText.of_words(title_words, abstract_words, authors, categories))


def model_text(
    title: str, abstract: str, authors: Sequence[str] = (), categories: Sequence[str] = ()
) -> tuple[str, str, tuple[str, ...]]:
    """What a paper's model features are made from: title and abstract with TeX read
    as it renders, and the bundled queries' matches (:func:`default_hits`) as hints."""
    from papertrack.tex import render_tex

    title, abstract = render_tex(title), render_tex(abstract)
    return title, abstract, default_hits(title, abstract, authors, categories)


def model_words(
    title: str, abstract: str, authors: Sequence[str] = (), categories: Sequence[str] = ()
) -> tuple[list[str], list[list[str]], tuple[str, ...]]:
    """:func:`model_text` with title and abstract :func:`papertrack.learn.read`, split
    once for the queries and the models: (title words, sentences, hints)."""
    from papertrack.learn import read
    from papertrack.tex import render_tex

    title, abstract = render_tex(title), render_tex(abstract)
    words = read(title, abstract)
    return (*words, default_hits(title, abstract, authors, categories, words))


def model_features(
    title: str, abstract: str, authors: Sequence[str] = (), categories: Sequence[str] = ()
) -> frozenset[str]:
    """A paper's model features as :meth:`Catalog.tag` computes them: :func:`features`
    of its :func:`model_text`."""
    from papertrack.learn import features

    return features(*model_text(title, abstract, authors, categories))


def _similarity(typed: str, known: str) -> float:
    """How close ``typed`` is to ``known``, also as a shortened form ("llm-agnt")."""
    whole = difflib.SequenceMatcher(None, typed, known).ratio()
    start = difflib.SequenceMatcher(None, typed, known[: len(typed) + 1]).ratio()
    return max(whole, start)


#: The subcommands of `papertrack topics`: one of them where a topic goes, when no
#: topic has that name (`papertrack topic list`), meant that command.
_TOPICS_COMMANDS = frozenset({"list", "show", "add", "remove", "test", "explain", "teach"})


class Catalog:
    """The topics papers are tagged with, in catalog order.

    ``warnings`` collects problems worth telling the user that do not stop
    loading (a user file hiding a topic that does not exist).
    """

    def __init__(
        self,
        topics: Iterable[Topic] = (),
        warnings: Iterable[str] = (),
        hidden: Mapping[str, str] | None = None,
        skipped: Mapping[str, str] | None = None,
    ) -> None:
        self.topics: tuple[Topic, ...] = tuple(topics)
        self.warnings: tuple[str, ...] = tuple(warnings)
        #: slug -> why: the user's topics skipped for an error in their entry (a
        #: missing model file), so that asking for one says that, not "no topic".
        self.skipped: dict[str, str] = dict(skipped or {})
        #: When the topics were read (ns since the epoch): a writer with topics read
        #: before the stored tags' does not retag the store back to them.
        self.read_at = time.time_ns()
        #: Stands in for the user's topics file, which could not be read
        #: (:meth:`for_storing`): a writer leaves stored tags as they are and marks
        #: the topics it may tag otherwise out of date.
        self.stand_in = False
        #: slug -> name of the default topics the user's file hides.
        self.hidden: dict[str, str] = dict(hidden or {})
        self._by_slug: dict[str, Topic] = {}
        by_name: dict[str, Topic] = {}
        by_name_slug: dict[str, Topic] = {}
        for topic in self.topics:
            named = slugify(topic.name)
            near = [
                t
                for t in (
                    self._by_slug.get(topic.slug),
                    by_name.get(topic.name.casefold()),
                    self._by_slug.get(named),
                    by_name_slug.get(topic.slug),
                )
                if t is not None
            ]
            problem = _clash(topic, near) if near else None
            if problem is not None:
                raise UsageError(problem)
            self._by_slug[topic.slug] = topic
            by_name[topic.name.casefold()] = topic
            by_name_slug[named] = topic
        self._by_name = by_name
        self._compiled: Callable[[PaperText], tuple[str, ...]] | None = None
        self._prefilter: Prefilter | None = None
        self._models: Any = None  # a learn.ModelSet of the topics that have a model
        self._hinted_slugs: frozenset[str] | None = None
        self._pins: dict[str, dict[str, bool]] | None = None
        #: slug -> every topic of this catalog its tag implies, directly or through others.
        self._implied: dict[str, frozenset[str]] = _closure(
            {t.slug: [i for i in t.implies if i in self._by_slug] for t in self.topics}
        )

    @property
    def _tagger(self) -> Callable[[PaperText], tuple[str, ...]]:
        # Compiled on first use: read-only commands such as `latest` never tag, and
        # compiling the catalog costs ~25 ms of their start-up. Compiled together
        # so that sub-queries common to several topics (the block of LLM terms,
        # agent*) are evaluated once per paper.
        if self._compiled is None:
            # A topic that decides by its model alone needs no query evaluated, and
            # a bundled query is evaluated once, for the models' hints.
            queried = [t for t in self._queried_topics if t.slug not in self._hinted]
            shared = shared_nodes(t.membership for t in queried)
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
        pending_model: str = "",
    ) -> Catalog:
        """The default catalog at ``default_path`` merged with the user's file, if it exists.

        A user topic with a default topic's slug replaces it in place; other user
        topics follow the defaults. A user entry with ``hidden = true`` removes
        the topic with its slug (or name). ``user_text``, when given, is read as
        the user's file instead of the file itself (to check an edit before
        writing it). ``lenient`` skips a malformed entry of the user's file with a
        warning instead of raising (the CLI's reading, so one bad topic does not
        stop every command). ``pending_model`` is a model file an edit being
        checked names and writes next: not read.

        Raises:
            UsageError: a file is not valid TOML or a topic is malformed.
            QuerySyntaxError: a topic's query does not parse; the message names file and topic.
        """
        if not default_path.is_file():
            raise PapertrackError(
                f"the default topic catalog {default_path} is missing. Reinstall papertrack."
            )
        merged: dict[str, Topic] = {}
        hidden: dict[str, str] = {}
        warnings: list[str] = []
        gone: dict[str, str] = {}
        sources = [(default_path, "default")]
        if user_path is not None and (user_text is not None or user_path.exists()):
            sources.append((user_path, "user"))
        for path, source in sources:
            seen: dict[str, str] = {}  # slug -> the name of its first entry in this file
            text = user_text if source == "user" else None
            # lenient (the CLI reading the user's file as it is, not an edit being
            # checked): a bad entry is reported and skipped, and the other topics work,
            # a cron digest too.
            skipped: list[tuple[str, str, str]] | None = (
                [] if lenient and source == "user" else None
            )
            try:
                entries = _topics_in(path, source, text, skipped, pending_model)
            except UsageError as exc:
                if skipped is None:
                    raise
                # Read leniently, a bad entry is skipped: what still fails is the file.
                raise TopicsFileError(str(exc)) from None
            for slug, name, why in skipped or ():
                # Asked for by its slug, or by its name, as find() takes either.
                gone |= {key: why for key in (slug, slugify(name)) if key}
                default = merged.get(slug or slugify(name))
                if default is not None:
                    # An entry that redefines a default topic: the default stands in
                    # (a digest keeps the definition it last showed the topic by).
                    warnings.append(
                        f"{why.rstrip('.')}; until it is mended, the default topic "
                        f"{quoted(default.name)} decides in its place."
                    )
                else:
                    warnings.append(f"{why.rstrip('.')}; that topic is skipped.")
            for slug, name, topic in entries:
                twice = slug in seen
                problem = (
                    f"{path} defines the topic {slug!r} twice, as {seen[slug]!r} and then as "
                    f"{name!r}. Remove one ('papertrack topics remove {name}' removes the second), "
                    "or give one another slug"
                    if twice
                    # (The defaults are checked once, by the catalog: not at every start-up.)
                    else _clash(topic, [t for s, t in merged.items() if s != slug])
                    if topic is not None and source == "user"
                    else None
                )
                if problem is not None:
                    if skipped is None:
                        raise UsageError(problem)
                    skips = "the second is skipped" if twice else "that topic is skipped"
                    warnings.append(f"{problem.rstrip('.')}; {skips}.")
                    if not twice:
                        gone |= {key: problem for key in (slug, slugify(name)) if key}
                    continue
                seen[slug] = name
                if topic is not None:
                    merged[slug] = _inherit_model(topic, merged.get(slug), source)
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
                    hidden[target] = merged.pop(target).name
        for topic in merged.values():
            for target in topic.implies:
                if target not in merged and target not in hidden:
                    warnings.append(
                        f"topic {topic.slug!r} implies {target!r}, but there is no such topic; "
                        "that implication is ignored."
                    )
        return cls(merged.values(), warnings, hidden, gone)

    @classmethod
    def default(cls) -> Catalog:
        """The catalog bundled with papertrack (``data/topics.toml``)."""
        return cls.load(default_topics_file())

    @classmethod
    def of_home(cls) -> Catalog:
        """The topics as the data home defines them: the default catalog with the
        user's topics.toml applied (a malformed entry skipped, with a warning in
        :attr:`warnings`) and the models the user taught in place. Every reader
        (the commands, the Python API, completion) takes this one: the API's read
        without the taught models, and each call retagged the store the other way.

        Raises:
            TopicsFileError: the user's topics.toml is not a file, or not valid TOML.
        """
        from papertrack import paths

        read_at = time.time_ns()  # before any file is read: a teach after it is newer
        user = paths.user_topics_file()
        if user.exists() and not user.is_file():
            raise TopicsFileError(f"{user} is not a file. Remove it, or put your topics.toml there")
        if user.is_symlink() and not user.exists():
            # Read as no file, every topic of yours was gone and the defaults you hid
            # were back: an ingest then took their tags off every stored paper.
            raise TopicsFileError(
                f"{visible(str(user))} links to {visible(os.readlink(user))}, which is not "
                "there. Restore it, or remove the link"
            )
        catalog = cls.load(default_topics_file(), user if user.is_file() else None, lenient=True)
        catalog.read_at = read_at
        return catalog.with_models(paths.user_models_dir())

    @classmethod
    def for_storing(cls) -> Catalog:
        """The catalog ingest and fetch tag new papers with: :meth:`of_home`, or a
        :attr:`stand_in` for it whose one warning says why.

        A topics.toml that cannot be read at all (a half-saved edit) stopped every
        cron fetch until it was fixed, and a listing not fetched on its night is not
        in the next one. The papers are stored all the same, tagged by the default
        topics (with the models the user taught them): the writer marks the topics
        whose tags may differ, and the first command that reads the fixed file
        retags them.
        """
        try:
            return cls.of_home()
        except TopicsFileError as exc:
            from papertrack import paths

            why = (
                f"{str(exc).rstrip('.')}. Until it is, new papers are stored with the "
                "default topics' tags; the first command after the fix retags them by yours."
            )
            stand_in = cls.default().with_models(paths.user_models_dir())
            # Its own warnings speak of the defaults, not of your file: a model taught to a
            # default you redefined "was taught to its earlier query", and 'teach --forget'
            # was offered, which would drop your examples.
            stand_in.warnings = (why,)
            stand_in.stand_in = True
            return stand_in

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

    def withheld(self, name_or_slug: str) -> bool:
        """Whether ``name_or_slug`` names a topic this catalog leaves out on purpose or
        by a slip: a default hidden by the user's topics file, or an entry skipped
        for an error (:meth:`find` then says which)."""
        key = name_or_slug.strip()
        slug = slugify(key)
        return slug in self.skipped or self._hidden_one(key, slug) is not None

    def _hidden_one(self, key: str, slug: str) -> tuple[str, str] | None:
        """(slug, name) of the hidden default topic that ``key`` (slugged ``slug``)
        names, or None."""
        for hid, name in self.hidden.items():
            if slug == hid or key.casefold() == name.casefold() or slugify(name) == slug:
                return hid, name
        return None

    def _unknown(self, key: str, slug: str) -> str:
        if not key:
            # `papertrack export -t "$TOPIC"` with TOPIC unset: say what went wrong.
            return (
                "the topic name is empty (a script's unset variable?). Name a topic: "
                "'papertrack topics' lists them"
            )
        hidden = self._hidden_one(key, slug)
        if hidden is not None:
            hid, name = hidden
            return (
                f"the default topic {quoted(name)} ({hid}) is hidden: your topics file says "
                "'hidden = true' for it. Delete that entry to bring it back "
                "('papertrack path' shows where the file is)"
            )
        why = self.skipped.get(slug)
        if why is not None:
            # "no topic named 'agent-memory'. Did you mean: Agentic RL?" after a
            # warning that it is skipped for a missing model file.
            return f"{why.rstrip('.')}; until then that topic is skipped"
        if len(key) > 100:
            # 100,000 characters were echoed whole, and compared with every name.
            return (
                f"no topic named {quoted(key[:60] + '…')} ({len(key):,} characters). "
                "Run 'papertrack topics' to list them."
            )
        scored: list[tuple[float, int, Topic]] = []
        typed = set(slug.split("-"))
        for index, topic in enumerate(self.topics):
            score = max(
                _similarity(slug, topic.slug), _similarity(key.casefold(), topic.name.casefold())
            )
            if typed <= set(topic.slug.split("-")):
                # A word of a topic's name: "vision", "rag", "benchmarks".
                score = max(score, 0.9)
            # At 0.6, a removed "llm-watermarking" suggested LLM Agent Training (0.65)
            # and "agent-memory" Agentic RL (0.64): letters in common, not a slip.
            if score >= 0.68:
                scored.append((-score, index, topic))
        scored.sort(key=lambda item: (item[0], item[1]))
        message = f"no topic named {quoted(key)}."
        if key.casefold() in _TOPICS_COMMANDS:
            # `papertrack topic list`: one letter short of the command meant.
            return message + f" Did you mean 'papertrack topics {key.casefold()}'?"
        if scored:
            close = ", ".join(f"{t.name} ({t.slug})" for _, _, t in scored[:3])
            message += f" Did you mean: {close}?"
        return message + " Run 'papertrack topics' to list them."

    def tag(self, paper: Paper) -> tuple[str, ...]:
        """The slugs of every topic ``paper`` is in, in catalog order."""
        return self.tag_fields(
            paper.title, paper.abstract, paper.authors, paper.categories, paper.arxiv_id
        )

    def own_tags(self, paper: Paper) -> tuple[str, ...]:
        """The topics whose own rule (query, model, either or both) takes ``paper``:
        what :meth:`tag` gives before taught decisions and implications."""
        return self._tag_fields(paper.title, paper.abstract, paper.authors, paper.categories)

    def tag_text(self, text: PaperText) -> tuple[str, ...]:
        """The topics whose query ``text`` matches (models are not asked), as the
        compiled catalog finds them: shared sub-queries, bundled queries read once."""
        queried = set(self._tagger(text))
        if self._hinted:
            queried.update(slug for slug in _hints().tagger(text) if slug in self._hinted)
        return tuple(t.slug for t in self._queried_topics if t.slug in queried)

    @property
    def _queried_topics(self) -> list[Topic]:
        return [t for t in self.topics if t.decide != "model"]

    @property
    def _hinted(self) -> frozenset[str]:
        """Slugs of the topics that decide with a query the bundled one's: their query
        result is read from :func:`default_hits`, which every model needs anyway."""
        if self._hinted_slugs is None:
            if self.model_set is None:
                self._hinted_slugs = frozenset()
            else:
                bundled = _hints().memberships
                self._hinted_slugs = frozenset(
                    t.slug for t in self._queried_topics if bundled.get(t.slug) == t.membership
                )
        return self._hinted_slugs

    @property
    def hinted(self) -> frozenset[str]:
        """Slugs of the topics whose query result is a model feature (``"q:<slug>"``):
        they decide with their bundled query, unchanged."""
        return self._hinted

    @property
    def model_set(self) -> Any:
        """A :class:`papertrack.learn.ModelSet` of every topic that has a model (or None)."""
        if self._models is None:
            models = {t.slug: t.model for t in self.topics if t.decide != "query"}
            self._models = _model_set(models) if models else False
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
                # Whatever the topic decides by, even its query alone (a query
                # topic taught a few papers), a taught paper holds as taught.
                if topic.model_file:
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
        return self.settled(self._tag_fields(title, abstract, authors, categories), arxiv_id)

    def settled(self, decided: tuple[str, ...], arxiv_id: str | None) -> tuple[str, ...]:
        """:meth:`settle` for the paper ``arxiv_id`` with its taught decisions, if any;
        ``decided`` as it is when nothing taught or implied changes it (the common case)."""
        pinned = self.pins.get(arxiv_id) if arxiv_id is not None and self.pins else None
        if pinned or not self._implied.keys().isdisjoint(decided):
            return self.settle(decided, pinned)
        return decided

    def settle(
        self, decided: Iterable[str], pinned: Mapping[str, bool] | None = None
    ) -> tuple[str, ...]:
        """The tags of a paper whose topics' own rules decided ``decided``, in catalog
        order: the user's taught decisions (``pinned``, slug -> in the topic?) hold,
        and a topic is in every topic it implies, unless taught otherwise there."""
        tags = set(decided)
        if pinned:
            tags = {t for t in tags if pinned.get(t, True)} | {s for s, v in pinned.items() if v}
        if self._implied:
            tags.update(*(self._implied[t] for t in tags if t in self._implied))
            if pinned:
                tags.difference_update(s for s, v in pinned.items() if not v)
        return tuple(t.slug for t in self.topics if t.slug in tags)

    def implied_by(self, slug: str) -> tuple[str, ...]:
        """The topics of this catalog (in catalog order) whose tag implies ``slug``'s."""
        return tuple(t.slug for t in self.topics if slug in self._implied.get(t.slug, ()))

    def family(self, slugs: Iterable[str]) -> set[str]:
        """``slugs`` with every topic linked to one of them by implications, either way:
        what a retag of them must decide together (a slug not in the catalog stays)."""
        found = set(slugs)
        grew = True
        while grew:
            linked = {i for s in found for i in self._implied.get(s, ())}
            linked.update(s for s, implied in self._implied.items() if implied & found)
            grew = not linked <= found
            found |= linked
        return found

    def _tag_fields(
        self, title: str, abstract: str, authors: Sequence[str], categories: Sequence[str]
    ) -> tuple[str, ...]:
        from papertrack.tex import render_tex

        title, abstract = render_tex(title), render_tex(abstract)
        queried = self._queried(title, abstract, authors, categories)
        models = self.model_set
        if models is None:
            return queried
        hits = default_hits(title, abstract, authors, categories)
        return self._decided(models.decide_text(title, abstract, hits), queried, hits)

    def tag_many(
        self,
        papers: Sequence[tuple[str, str, Sequence[str], Sequence[str], str | None]],
        words_out: list[Words] | None = None,
    ) -> list[tuple[str, ...]]:
        """:meth:`tag_fields` of each of ``papers`` (its arguments, a tuple a paper),
        the models' scores made for all of them at once (:meth:`ModelSet.decide_many`):
        for a chunk of a bulk import. Each paper's rendered title and abstract are
        split into words once, and, when the catalog has models, those words
        (:func:`papertrack.learn.read`) are added to ``words_out`` for the
        paper's search index row (:func:`papertrack.fulltext.index_row`)."""
        from papertrack.learn import read
        from papertrack.tex import render_tex

        models = self.model_set
        if models is None or not papers:
            return [self.tag_fields(*paper) for paper in papers]
        made = []
        for title, abstract, authors, categories, _ in papers:
            title, abstract = render_tex(title), render_tex(abstract)
            queried = self._queried(title, abstract, authors, categories)
            title_words, sentences = words = read(title, abstract)
            if words_out is not None:
                words_out.append(words)
            hits = default_hits(title, abstract, authors, categories, words)
            made.append((title_words, sentences, hits, queried))
        fired = models.decide_many([(title, sentences, hits) for title, sentences, hits, _ in made])
        return [
            self.settled(self._decided(decided, queried, hits), paper[4])
            for (_, _, hits, queried), decided, paper in zip(made, fired, papers, strict=True)
        ]

    def _queried(
        self, title: str, abstract: str, authors: Sequence[str], categories: Sequence[str]
    ) -> tuple[str, ...]:
        """The topics whose query decides with them and matches (TeX already rendered),
        but for those read from the bundled queries' matches (:attr:`hinted`)."""
        if self._prefilter is None:
            hinted = self._hinted
            queried_topics = [t.membership for t in self._queried_topics if t.slug not in hinted]
            self._prefilter = prefilter(queried_topics) if queried_topics else _never
        if self._prefilter(title, abstract, authors):
            return self._tagger(PaperText(title, abstract, authors, categories))
        return ()

    def _decided(
        self, fired: AbstractSet[str], queried: tuple[str, ...], hits: Sequence[str]
    ) -> tuple[str, ...]:
        """The topics that decide a paper is theirs, by their rules: ``fired`` are the
        models that fire, ``queried`` and the :attr:`hinted` of ``hits`` the queries."""
        hinted = self._hinted
        if hinted:
            queried = (*queried, *(slug for slug in hits if slug in hinted))
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
            self.hidden,
            self.skipped,
        )

    def with_models(self, folder: Path) -> Catalog:
        """This catalog with the models a user taught (``folder/<slug>.json``) in place."""
        import dataclasses

        if not folder.is_dir():
            return self
        topics = []
        warnings = list(self.warnings)
        for topic in self.topics:
            taught = folder / f"{topic.slug}.json"
            if taught.is_file():
                # Derived data, made again by teaching: one damaged file must not
                # stop every command, nor send the user to forget their examples.
                taught_topic = dataclasses.replace(topic, model_file=str(taught), decide_rule="")
                problem = model_problem(taught_topic)
                if problem is None:
                    meta = taught_topic.model.meta
                    if meta.get("definition") not in (None, topic.definition):
                        redefined = _redefined(topic, meta)
                        if redefined:
                            warnings.append(redefined)
                    copied = meta.get("copy_of")
                    if copied and topic.model_file and copied != model_digest(topic.model_file):
                        # Papers taught that the topic already decided so pin a copy of
                        # the shipped model: one papertrack updated is not followed.
                        warnings.append(
                            f"{quoted(topic.name)} decides by a copy of an earlier shipped "
                            "model, kept when you taught it papers it already decided so; "
                            f"papertrack's model of it has changed since. 'papertrack topics "
                            f"teach {topic.slug} --forget' takes the new one (then teach "
                            "the papers again)"
                        )
                    topic = taught_topic
                else:
                    warnings.append(
                        f"the model taught to {quoted(topic.name)} ({taught}) {problem}: it "
                        "decides as it did before it was taught. Your examples are kept: "
                        f"'papertrack topics teach {topic.slug} ID' fits it again with them"
                    )
            topics.append(topic)
        with_taught = Catalog(topics, warnings, self.hidden, self.skipped)
        with_taught.read_at = self.read_at
        return with_taught

    def fingerprints(self) -> dict[str, str]:
        """Slug -> fingerprint of every topic, to tell which tags are out of date: a topic
        that others imply has theirs in its own (their tags are in its tags)."""
        own = {t.slug: t.fingerprint for t in self.topics}
        prints = dict(own)
        for slug in own:
            above = self.implied_by(slug)
            if above:
                parts = " ".join(f"{a}={own[a]}" for a in above)
                prints[slug] = hashlib.sha256(f"{own[slug]} {parts}".encode()).hexdigest()[:12]
        return prints

    def subset(self, slugs: AbstractSet[str]) -> Catalog:
        """The topics with these slugs, in catalog order: retagging compiles only those."""
        return Catalog(t for t in self.topics if t.slug in slugs)
