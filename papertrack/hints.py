"""What papertrack tells a user about a query: how it is read, and what to try when it
matches nothing. Each function returns sentences; the CLI says them as notes.

Kept apart from the CLI so that every command that takes a query (search, latest
--query, topics add and try) gives the same advice, and a script can ask for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from papertrack.text import counted, visible

if TYPE_CHECKING:
    from papertrack.fulltext import TextIndex
    from papertrack.query import Term
    from papertrack.store import Store
    from papertrack.topics import Topic

__all__ = [
    "FEWER_WORDS",
    "glued_words_notes",
    "no_match_hint",
    "query_notes",
    "store_notes",
    "topic_notes",
]

FEWER_WORDS = "Words side by side must all match: try fewer words, or OR between them."
#: The most words a hint names, and the most glued names it gives a note each.
NAMED_WORDS = 5
#: Papers that must write two words glued for the spelling to be pointed out.
GLUED_PAIR_AT_LEAST = 3


def no_match_hint(store: Store, query: str) -> str:
    """What to try when ``query`` matched no paper: the spelling of its words that no
    stored paper holds ("reinforcment lerning" was told to try fewer words), else
    :data:`FEWER_WORDS`."""
    from papertrack.errors import QuerySyntaxError
    from papertrack.query import Term, parse_query, query_terms

    try:
        terms = [t for t, counts in query_terms(parse_query(query)) if counts]
    except QuerySyntaxError:
        return FEWER_WORDS
    # Each plain word, in the field its term looks in (a name only an author has is
    # in no title or abstract: "ogunremi agents" matches nothing, and says why).
    fields = {
        "text": "title or abstract",
        "title": "title",
        "abstract": "abstract",
        "author": "author names",  # author:"Yann LeCunn" was told to try fewer words
    }
    words: dict[tuple[str, str], None] = {}
    for term in terms:
        if isinstance(term, Term) and term.field in fields:
            for word, prefix in zip(term.words, term.prefix, strict=True):
                if not prefix and not word.isdigit():
                    words[(term.field, word)] = None
    from papertrack.fulltext import IndexDamaged

    text = store.text_index() if words else None
    if text is None:
        return FEWER_WORDS
    unknown = []
    held: dict[str, int] = {}  # author words: papers holding each
    # Words in no title or abstract: papers whose author names hold each.
    as_author: dict[str, int] = {}
    try:
        for field in fields:
            asked = [word for where, word in words if where == field]
            if asked:
                _, counts = text.document_frequency(asked, field)
                unknown += [(field, word) for word in asked if not counts.get(word)]
                if field == "author":
                    held = counts
        # A name searched as a plain word ("Schölkopf"): in no title or abstract, but in
        # 42 papers' author names, and the hint said to check its spelling.
        plain = [word for field, word in unknown if field == "text"]
        if plain:
            _, counts = text.document_frequency(plain, "author")
            as_author = {word: n for word, n in counts.items() if n}
    except IndexDamaged as exc:
        store.text_index_broke(exc)
        return FEWER_WORDS
    finally:
        text.close()
    if not unknown:
        names = [t for t in terms if isinstance(t, Term) and t.field == "author"]
        if names and len(names) == len(terms) and len(names[0].words) > 1:
            # author:"LeCun Yann", author:"Jian Luan Zhang": each word is some
            # author's, not one author's in that order. The rarest word finds most.
            rarest = min(names[0].words, key=lambda w: (held.get(w, 0), w))
            return (
                "Each of the name's words is some author's, but no paper names an author "
                f"with them in that order: try the rarest alone (author:{rarest})."
            )
        return FEWER_WORDS
    if as_author:
        word = max(as_author, key=lambda w: (as_author[w], w))
        return (
            f"{visible(word)!r} is in no stored title or abstract, but in the author names of "
            f"{counted(as_author[word], 'paper')}: write author:{visible(word)} "
            "to search names."
        )
    named = " or ".join(f"{visible(w)!r} ({fields[field]})" for field, w in unknown[:NAMED_WORDS])
    if len(unknown) > NAMED_WORDS:
        # A query of 3,000 unknown words printed a line of 100 KB.
        named += f" or {len(unknown) - NAMED_WORDS:,} more of its words"
    return (
        f"No stored paper holds {named}: check the spelling, or end a word with * for "
        "its longer forms (agent* finds agents and agentic)."
    )


def query_notes(query: str) -> list[str]:
    """What to know about how ``query`` is read: ``or``/``and``/``not`` in lower case
    are words to match (only AND, OR and NOT in capitals are operators); a comment
    typed on one line; a category name or a symbol read as words."""
    from papertrack.query import category_words, comments_of, operator_words, symbol_words

    notes: list[str] = []
    words = operator_words(query)
    if words:
        shown = ", ".join(f"'{w}'" for w in words)
        operators = ", ".join(w.upper() for w in words)
        notes.append(
            f"{shown} in the query {'is a word' if len(words) == 1 else 'are words'} "
            f"to match; operators are written in capitals: {operators}."
        )
    # A comment is for the long queries of topics.toml; typed on one line, the rest of
    # the query went with it while the header showed it all. A query of several lines
    # (one copied from `topics show`) has its comments on purpose.
    for comment in comments_of(query) if "\n" not in query.strip() else ():
        notes.append(
            f"{visible(comment)!r} is a comment ('#' runs to the end of the line) "
            "and is left out of the query. Put it in quotes to match it."
        )
    for name in category_words(query):
        # `search cs.AI` looked for the words "cs ai" and found nothing.
        notes.append(
            f"{visible(name)!r} is matched as words of titles and abstracts; to "
            f"match papers in that category, write category:{visible(name)}."
        )
    for name, word in symbol_words(query):
        # C++ cannot be told from C: a search that also lists "Hepatitis C" says why.
        notes.append(
            f"{visible(name)!r} is matched as the word {word!r} (words are letters "
            "and digits), so it also finds other uses of that letter."
        )
    return notes


def store_notes(store: Store, query: str) -> list[str]:
    """The notes on ``query`` that need the store: a ``category:`` that names a
    category arXiv lacks and no stored paper has (the query can only match nothing
    there, and a topic made with it stays empty, where ``-c`` with the same typo is
    refused); a name glued to its number, or not, when stored papers write it the
    other way (:func:`glued_words_notes`)."""
    from papertrack.errors import QuerySyntaxError
    from papertrack.query import parse_query

    notes = glued_words_notes(store, query)

    try:
        node = parse_query(query)
    except QuerySyntaxError:
        return notes  # said where the query is read, with where in it
    from papertrack.categories import unknown_categories

    for name, hint in unknown_categories(store, _query_categories(node)):
        notes.append(f"the query's category:{name} can match no paper: {hint}")
    return notes


def _query_categories(node: Any) -> list[str]:
    """The exact category names of a parsed query's ``category:`` terms."""
    from papertrack.query import Category, query_terms

    return [
        term.name for term, _ in query_terms(node) if isinstance(term, Category) and not term.prefix
    ]


def topic_notes(store: Store, topic: Topic) -> list[str]:
    """The notes on a topic of the user's topics file that need the store: each of
    its categories, and its query's ``category:``, that arXiv lacks and no stored
    paper has. ``categories = ["cs.Al"]`` written by hand gave a topic of no paper,
    without a word: the file is read without the store, whose papers from other
    feeds may hold categories arXiv lacks. The bundled topics are checked by tests."""
    if topic.source == "default":
        return []
    from papertrack.categories import unknown_categories
    from papertrack.paths import user_topics_file
    from papertrack.text import quoted

    own = list(dict.fromkeys(topic.categories))
    asked = own + [c for c in _query_categories(topic.node) if c not in own]
    where = f"topic {quoted(topic.name)} of {user_topics_file()}"
    notes = []
    for name, hint in unknown_categories(store, asked):
        named = f"category {name!r}" if name in own else f"query's category:{name}"
        notes.append(f"{where}: its {named} can match no paper: {hint}")
    return notes


def glued_words_notes(store: Store, query: str) -> list[str]:
    """A note for each name of ``query`` is written glued to its number and stored papers
    write it apart, or the other way round. `llama3` found 177 of the 83,510 real
    papers and missed the 919 that write "Llama-3" or "Llama 3". Where no stored paper
    holds the other spelling, it has nothing to add and is not given. The index keeps
    no positions: when few papers hold the other spelling's words at all, they are
    read for the spelling itself (on the real papers `fp8`: 6 hold "fp" and "8", none
    "fp 8"); without a text index, the note is given unchecked."""
    from papertrack.query import glued_words

    found = glued_words(query)
    if not found:
        return []
    from papertrack.fulltext import IndexDamaged

    text = store.text_index()
    if text is not None:
        held: dict[tuple[str, tuple[str, ...]], int] = {}
        try:
            for field in {term.field for *_, term in found}:
                asked = [term.words for *_, term in found if term.field == field]
                counts = text.together(asked, field)
                held |= {(field, words): n for words, n in counts.items()}
            spelled = _spelled(store, text, [term for *_, term in found], held)
            found = [
                (written, other, term)
                for written, other, term in found
                if term in spelled
                # Two words glued ("largelanguage" for "large language"): a spelling
                # when a few papers write it, a typo when one does.
                and (
                    len(term.words) > 1
                    or any(c.isdigit() for c in term.words[0])
                    or held.get((term.field, term.words), 0) >= GLUED_PAIR_AT_LEAST
                )
            ]
        except IndexDamaged as exc:
            store.text_index_broke(exc)  # the notes unchecked, as without an index
        finally:
            text.close()
    notes = [
        (
            f"{visible(written)} misses papers that write {visible(other)}; "
            f"to find both, write {visible(written)} OR {visible(str(term))}."
        )
        for written, other, term in found[:NAMED_WORDS]
    ]
    if len(found) > NAMED_WORDS:
        more = len(found) - NAMED_WORDS
        notes.append(
            f"{more:,} more word{'s' if more > 1 else ''} of the query "
            f"{'are' if more > 1 else 'is'} written another way by some papers too."
        )
    return notes


#: Papers holding a spelling's words, side by side or not, at most that are read to
#: find the spelling itself (a week file each, at worst); more hold it almost surely.
SPELLING_READ_AT = 12


def _spelled(
    store: Store,
    text: TextIndex,
    terms: list[Term],
    held: dict[tuple[str, tuple[str, ...]], int],
) -> set[Term]:
    """The ``terms`` some stored paper writes as spelled, given how many papers hold
    each one's words (``held``, a bound: the index keeps no positions). The few
    papers of the rare ones are read together, each week once: read term by term,
    a query of twelve names like fp8 spent 1.9 s here, more than its search."""
    from papertrack.topics import Topic

    spelled = {t for t in terms if held.get((t.field, t.words), 0) > SPELLING_READ_AT}
    rare = [t for t in terms if t not in spelled and 0 < held.get((t.field, t.words), 0)]
    if not rare:
        return spelled
    within: dict[str, set[str]] = {}
    for term in rare:
        for week, ids in text.holding_all(term.words, term.field).items():
            within.setdefault(week, set()).update(ids)
    readers = [(t, Topic(name="Spelling", slug="spelling", query=str(t))) for t in rare]

    def match(*fields: Any) -> bool:
        for term, reader in readers:
            if term not in spelled and reader.matches_fields(*fields):
                spelled.add(term)
        return False  # nothing is built: only which terms some paper spells

    for _ in store.search(match, within=within):
        pass
    return spelled
