"""Tests for papertrack.topics: the query language, the matcher and the topic catalog."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from papertrack.errors import PapertrackError, QuerySyntaxError, UnknownTopicError, UsageError
from papertrack.models import Paper
from papertrack.paths import default_topics_file
from papertrack.topics import (
    And,
    Catalog,
    Category,
    Not,
    Or,
    PaperText,
    Term,
    Topic,
    compile_query,
    parse_query,
    slugify,
    tokenize,
)

REQUIRED_TOPICS = [
    "LLM Agent Training",
    "RL for LLM Agents",
    "Agentic RL",
    "LLM Tool Use",
    "GUI Agents",
    "Computer-Use Agents",
    "Terminal Agents",
    "Deep Research Agents",
    "Web Search Agents",
    "Multi-Agent LLM Systems",
    "LLM World Models",
    "AI Agent Benchmarks",
    "Knowledge Distillation",
    "Synthetic Data Generation",
    "Long-Horizon Agent Tasks",
    "Agentic RAG",
    "Large Language Models",
    "Reinforcement Learning",
    "Computer Vision",
]


def word(text: str, field: str = "text", prefix: bool = False) -> Term:
    return Term(field, (text,), (prefix,))  # type: ignore[arg-type]


def phrase(*words: str, field: str = "text", last_prefix: bool = False) -> Term:
    flags = (False,) * (len(words) - 1) + (last_prefix,)
    return Term(field, words, flags)  # type: ignore[arg-type]


def matches(
    query: str,
    title: str = "",
    abstract: str = "",
    authors: tuple[str, ...] = (),
    categories: tuple[str, ...] = (),
) -> bool:
    text = PaperText(title, abstract, authors, categories)
    return compile_query(parse_query(query))(text)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    # These tests are about the query language: the learned models are set aside.
    return Catalog.default().queries_only()


# ---------------------------------------------------------------------------
# Tokenizing and slugs


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("LLM-based Agents", ["llm", "based", "agents"]),
        ("Müller’s naïve CAFÉ", ["muller", "s", "naive", "cafe"]),
        ("ﬁne-tuning Straße", ["fine", "tuning", "strasse"]),
        ("LL\u200bM fine\u00adtuning", ["llm", "finetuning"]),
        ("cs.AI  snake_case\tGPT-4o", ["cs", "ai", "snake", "case", "gpt", "4o"]),
        ("$\\alpha$-divergence, ω", ["alpha", "divergence", "ω"]),
        # Letters with no accent to drop, as a reader of the name types them.
        ("Søgaard, Łukasz Yıldırım", ["sogaard", "lukasz", "yildirim"]),
        ("ÆRØ Œuvre Þór Đorđe", ["aero", "oeuvre", "thor", "dorde"]),
        ("", []),
    ],
)
def test_tokenize_folds_case_and_accents_and_splits_on_punctuation(
    text: str, words: list[str]
) -> None:
    assert tokenize(text) == words


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("LLM Agent Training", "llm-agent-training"),
        ("RL for LLM Agents", "rl-for-llm-agents"),
        ("Computer-Use Agents", "computer-use-agents"),
        ("  Café  Agents!! ", "cafe-agents"),
    ],
)
def test_slugify(name: str, slug: str) -> None:
    assert slugify(name) == slug


# ---------------------------------------------------------------------------
# Parser


@pytest.mark.parametrize(
    ("query", "tree"),
    [
        ("agent", word("agent")),
        ("Agent", word("agent")),
        ("a OR b AND c", Or((word("a"), And((word("b"), word("c")))))),
        ("a AND b OR c", Or((And((word("a"), word("b"))), word("c")))),
        ("NOT a AND b", And((Not(word("a")), word("b")))),
        ("NOT (a AND b)", Not(And((word("a"), word("b"))))),
        ("a b OR c", Or((And((word("a"), word("b"))), word("c")))),
        ("a (b OR c)", And((word("a"), Or((word("b"), word("c")))))),
        ("a -b", And((word("a"), Not(word("b"))))),
        ("a -(b c)", And((word("a"), Not(And((word("b"), word("c"))))))),
        ("a and b", And((word("a"), word("and"), word("b")))),
        ('"large language model"', phrase("large", "language", "model")),
        ('"language model*"', phrase("language", "model", last_prefix=True)),
        ('"agent* train*"', Term("text", ("agent", "train"), (True, True))),
        ("LLM-based", phrase("llm", "based")),
        ("distill*", word("distill", prefix=True)),
        ("LLM-bas*", phrase("llm", "bas", last_prefix=True)),
        ("title:agent*", word("agent", "title", prefix=True)),
        ('author:"Yann LeCun"', phrase("yann", "lecun", field="author")),
        ("abs:x au:y", And((word("x", "abstract"), word("y", "author")))),
        ("title: agent", word("agent", "title")),
        ("title:(agent OR agents)", Or((word("agent", "title"), word("agents", "title")))),
        ("title:(a OR abstract:b)", Or((word("a", "title"), word("b", "abstract")))),
        ("category:cs.AI", Category("cs.ai")),
        ("cat:cs.*", Category("cs.", prefix=True)),
        ("cs.AI", phrase("cs", "ai")),
        ("a # a comment (\nOR b", Or((word("a"), word("b")))),
        ("C# OR b", Or((word("c"), word("b")))),
    ],
)
def test_parse(query: str, tree: object) -> None:
    assert parse_query(query) == tree


def test_parenthesised_groups_are_kept_as_nodes() -> None:
    # A shared group stays one node, which lets a catalog evaluate it once per paper.
    assert parse_query("(a OR b) OR c") == Or((Or((word("a"), word("b"))), word("c")))


@pytest.mark.parametrize(
    "query",
    [
        'title:(agent* OR "language model*") AND NOT category:cs.CV OR author:"yann lecun"',
        "(a AND b) AND c",
        "NOT NOT a",
        "-a OR (b c)",
    ],
)
def test_str_of_a_tree_parses_back_to_the_same_tree(query: str) -> None:
    tree = parse_query(query)
    assert parse_query(str(tree)) == tree


@pytest.mark.parametrize(
    ("query", "column", "message"),
    [
        ("", 1, "empty query. "),
        ("   \n ", 1, "empty query. "),
        ("# just a comment", 1, "empty query (all of it is a comment"),
        (
            "agent AND (llm OR gpt",
            11,
            "unbalanced parenthesis at column 11. Close it with ')' or remove it.",
        ),
        ("((a)", 1, "unbalanced parenthesis at column 1."),
        ("agent)", 6, "unbalanced parenthesis at column 6: ')' closes nothing."),
        (") agent", 1, "unbalanced parenthesis at column 1: ')' closes nothing."),
        ('agent "large language', 7, "unterminated quote at column 7."),
        # Closed with the quote that was opened: '«' was told to close with '"'.
        ("«large language", 1, "unterminated quote at column 1. Close the phrase with '»'."),
        ("a “large language", 3, "unterminated quote at column 3. Close the phrase with '”'."),
        ("AND agent", 1, "operator AND at column 1 has nothing before it."),
        ("(OR agent)", 2, "operator OR at column 2 has nothing before it."),
        ("agent OR", 7, "operator OR at column 7 has nothing after it."),
        ("(agent AND)", 8, "operator AND at column 8 has nothing after it."),
        ("agent NOT", 7, "operator NOT at column 7 has nothing after it."),
        ("agent AND OR llm", 11, "operator OR at column 11 follows operator AND at column 7."),
        ("foo:bar", 1, "unknown field 'foo:' at column 1. Use title:, abstract:, author:"),
        ("agent http://x.org", 7, "unknown field 'http:' at column 7."),
        ("a ()", 3, "empty parentheses at column 3."),
        ('a ""', 3, "empty phrase at column 3."),
        ("title:", 1, "field title: at column 1 has no term after it."),
        ("a title:)", 3, "field title: at column 3 has no term after it."),
        ("title:AND x", 1, 'followed by the operator AND. To find the word, quote it: title:"and"'),
        ("abstract:OR", 1, 'the operator OR. To find the word, quote it: abstract:"or"'),
        ("a \u200b", 3, "term '\\u200b' at column 3 has no letters or digits."),
        ("title:author:x", 7, "field author: at column 7 follows field title: at column 1."),
        ("a*b", 2, "misplaced wildcard '*' in 'a*b' at column 2."),
        ("x *", 3, "misplaced wildcard '*' in '*' at column 3."),
        ("LLM-*", 5, "misplaced wildcard '*' in 'LLM-*' at column 5."),
        ('"a *b"', 4, "misplaced wildcard '*' in '*b' at column 4."),
        ("category:*", 10, "misplaced wildcard"),
        ("category:cs_AI!", 10, "'cs_AI!' at column 10 is not a category name."),
        ('category:"cs ai"', 10, "'cs ai' at column 10 is not a category name."),
        ("agent - llm", 7, "term '-' at column 7 has no letters or digits."),
        ("(" * 150 + "a" + ")" * 150, 102, "query nested too deeply at column 102."),
    ],
)
def test_syntax_errors_say_what_and_where(query: str, column: int, message: str) -> None:
    with pytest.raises(QuerySyntaxError) as caught:
        parse_query(query)
    assert caught.value.column == column
    assert message in str(caught.value)
    # Every message ends with a hint after the "what and where" sentence.
    assert str(caught.value).count(". ") >= 1


def test_query_syntax_errors_are_usage_errors() -> None:
    with pytest.raises(UsageError) as caught:
        parse_query("(")
    assert caught.value.exit_code == 2


QUERYISH = st.lists(
    st.sampled_from(
        [
            "agent", "LLM-based", "AND", "OR", "NOT", "and", "(", ")", '"', "*", "-", "#",
            "title:", "author:", "category:", "cs.*", "x*", "é", "\n", " ", " ", ":",
        ]
    ),
    max_size=20,
).map("".join)  # fmt: skip


@given(st.one_of(st.text(max_size=60), QUERYISH))
def test_parse_query_returns_a_tree_or_raises_query_syntax_error(text: str) -> None:
    try:
        tree = parse_query(text)
    except QuerySyntaxError as exc:
        assert 1 <= exc.column <= len(text) + 1
        return
    # Whatever parses prints back to an equal tree and compiles into a matcher.
    assert parse_query(str(tree)) == tree
    sample = PaperText("LLM-based agents", "we train agents", ("Ann Lee",), ("cs.AI",))
    assert compile_query(tree)(sample) in (True, False)


@given(st.text(max_size=80))
def test_tokenize_is_idempotent(text: str) -> None:
    words = tokenize(text)
    assert tokenize(" ".join(words)) == words


# ---------------------------------------------------------------------------
# Matcher


def test_words_match_whole_words_only() -> None:
    assert matches("agent", "An agent for X")
    assert not matches("agent", "Agents for X")
    assert not matches("agent", "A reagent for X")
    assert not matches("agent", "Agentic X")


def test_prefix_matches_the_start_of_words() -> None:
    assert matches("agent*", "Agents for X")
    assert matches("agent*", "agentic X")
    assert not matches("agent*", "a reagent")
    assert not matches("agent*", "agen")


def test_matching_ignores_case_and_accents() -> None:
    assert matches("MÜLLER", "a study by muller")
    assert matches("naive", "A Naïve Approach")
    assert matches('"e commerce"', "E-Commerce search")
    assert matches("fine", "ﬁne tuning")


def test_hyphens_split_words_in_queries_and_text() -> None:
    title = "LLM-based Agents"
    assert matches('"llm based"', title)
    assert matches("LLM-based", title)
    assert matches("llm AND based", title)
    assert matches("LLM-based", "An LLM based agent")
    assert not matches("LLM-based", "based on an LLM")


def test_phrases_need_adjacent_words_in_order() -> None:
    assert matches('"large language model"', "", "We study a large language model.")
    assert not matches('"large language model"', "", "We study large language models.")
    assert not matches('"language large"', "", "large language models")
    assert not matches('"large model"', "", "large language models")
    assert matches('"language model*"', "", "advances in language modeling")
    assert matches('"agent* train*"', "", "agents trained with RL")
    assert not matches('"agent* train*"', "", "agents were trained with RL")


def test_phrases_never_cross_from_title_into_abstract() -> None:
    title, abstract = "Scaling large", "language models to new tasks"
    assert not matches('"large language model*"', title, abstract)
    assert matches('large AND "language model*"', title, abstract)


def test_unscoped_terms_search_title_and_abstract_only() -> None:
    paper = {
        "title": "On X",
        "abstract": "We do Y.",
        "authors": ("Yann LeCun",),
        "categories": ("cs.AI",),
    }
    assert matches("x", **paper) and matches("y", **paper)
    assert not matches("lecun", **paper)
    assert not matches("cs", **paper)
    assert not matches('"cs ai"', **paper)


def test_field_scopes() -> None:
    title, abstract = "Agents at work", "We train models."
    assert matches("title:agents", title, abstract)
    assert not matches("abstract:agents", title, abstract)
    assert matches("abstract:train", title, abstract)
    assert not matches("title:train", title, abstract)
    assert matches("title:(x OR agent*) abstract:models", title, abstract)
    assert matches('abstract:"train models"', title, abstract)
    assert not matches('title:"at work we"', title, abstract)


def test_a_field_takes_a_negated_term_as_a_bare_term_does() -> None:
    """ "title:-survey" read the "-" into the word and matched the surveys (5 papers
    where 970 were meant); "title:NOT survey" read NOT as the word "not"."""
    survey, method = ("A survey of agents", "Agents."), ("Agents that plan", "Agents.")
    for query in ("agent* AND title:-survey", "agent* AND title:NOT survey"):
        assert not matches(query, *survey), query
        assert matches(query, *method), query
    assert matches("title:-survey", "Agents", "A survey.")  # the abstract is not the title
    assert not matches("author:-Smith", authors=("Ann Smith",))
    assert matches("author:-Smith", authors=("Ann Lee",))
    assert matches("title:NOT (survey OR review)", *method)
    with pytest.raises(QuerySyntaxError, match='followed by the operator AND.*title:"and"'):
        Topic(name="x", slug="x", query="title:AND agents")


def test_pasted_phrases_read_typographic_quotes_and_lone_punctuation() -> None:
    title = "Pruning & Quantization: tool use for agents"
    assert matches('"pruning & quantization"', title)
    assert matches('"Agents – A Survey"', "Agents - A Survey")
    assert not matches('"pruning & tool"', title)  # still a phrase
    # Pasted from a word processor: a phrase, not the words tool AND use.
    assert matches("“tool use”", title) and matches("„tool use“", title)
    assert not matches("“tool use”", "Use of a tool")
    assert matches("«tool use»", title)
    # Single typographic quotes too; an apostrophe inside a word does not close them.
    assert matches("‘tool use’", title) and not matches("‘tool use’", "Use of a tool")
    assert matches("‘agent’s memory’", "An agent's memory") and matches("agent’s", "An agent's")
    assert not matches("‘agent’s memory’", "Memory of an agent's")
    assert not matches("agents -‘tool use’", title) and matches("agents -‘use tool’", title)
    assert matches("rock‘n’roll", "Rock n roll agents")  # inside a word: no quote
    assert matches("title:‘tool use’", title) and not matches("title:‘use tool’", title)
    # A ‘ that opens no phrase is part of a word, as it always was: no new errors.
    assert matches("‘tool use", title) and matches("‘90s", "Agents of the ‘90s")
    # Inside a “phrase” or a comment, a ‘ is what it was: a character of the phrase
    # (“an ‘agent’ loop” had become three terms), or of the comment.
    assert matches("“tool ‘use’ for”", title.replace("tool use", "tool ‘use’"))
    assert not matches("“pruning ‘tool’ use”", title)
    assert matches('"rock ‘n roll" OR agents', title)
    assert matches("tool # it’s ‘good\nAND ‘tool use’", title)
    with pytest.raises(QuerySyntaxError, match="has no letters or digits"):
        Topic(name="x", slug="x", query="LLM & agents")  # a bare '&' is still refused
    with pytest.raises(QuerySyntaxError, match="has no letters or digits"):
        Topic(name="x", slug="x", query='"& –"')


def test_author_phrases_stay_within_one_author() -> None:
    assert matches('author:"Yann LeCun"', authors=("Yann LeCun",))
    assert matches('author:"yann lecun"', authors=("Ann Lee", "Yann  LeCun"))
    assert not matches('author:"Yann LeCun"', authors=("Yann Smith", "Bob LeCun"))
    assert matches("author:lecun", authors=("Yann Smith", "Bob LeCun"))
    assert not matches('author:"smith bob"', authors=("Yann Smith", "Bob LeCun"))


def test_author_names_with_tex_accents_match_their_letters() -> None:
    # The arXiv listing feed writes accents in TeX in author names.
    authors = ("Paulo Andr\\'e Lima de Castro", 'J{\\"o}rg M\\"uller')
    assert matches('author:"André Lima"', authors=authors)
    assert matches("author:jorg AND author:muller", authors=authors)


def test_categories_match_whole_names_case_insensitively_or_by_prefix() -> None:
    categories = ("cs.AI", "stat.ML")
    assert matches("category:cs.ai", categories=categories)
    assert matches("category:STAT.ML", categories=categories)
    assert not matches("category:cs", categories=categories)
    assert not matches("category:cs.A", categories=categories)
    assert matches("category:cs.*", categories=categories)
    assert matches("category:cs.A*", categories=categories)
    assert not matches("category:math.*", categories=categories)
    assert not matches("category:cs.*", categories=("math.OC",))


def test_boolean_operators() -> None:
    title = "Agents and tools"
    assert matches("agents tools", title)
    assert not matches("agents robots", title)
    assert matches("robots OR tools", title)
    assert not matches("agents NOT tools", title)
    assert matches("agents -robots", title)
    assert matches("NOT robots", title)
    assert matches("(robots OR agents) AND (tools OR apis)", title)
    assert not matches("robots OR agents AND apis", title)


def test_a_topic_category_filter_requires_one_matching_category() -> None:
    topic = Topic("Agents", "agents", "agent*", categories=("cs.*", "stat.ML"))
    assert topic.matches(Paper("1", "Agents", categories=("cs.AI",)))
    assert topic.matches(Paper("2", "Agents", categories=("math.OC", "stat.ML")))
    assert not topic.matches(Paper("3", "Agents", categories=("q-bio.NC",)))
    assert not topic.matches(Paper("4", "Agents"))
    assert not topic.matches(Paper("5", "Robots", categories=("cs.AI",)))


def test_a_topic_with_a_bad_query_or_category_fails_when_built() -> None:
    with pytest.raises(QuerySyntaxError):
        Topic("Bad", "bad", "agent AND")
    with pytest.raises(UsageError, match="bad category 'cs ai'"):
        Topic("Bad", "bad", "agent", categories=("cs ai",))


def test_fingerprint_follows_what_decides_membership() -> None:
    base = Topic("A", "a", "agent* AND llm")
    assert len(base.fingerprint) == 12
    assert Topic("Renamed", "b", "agent*  llm", description="x").fingerprint == base.fingerprint
    assert Topic("A", "a", "agent* AND llms").fingerprint != base.fingerprint
    assert Topic("A", "a", "agent* AND llm", categories=("cs.*",)).fingerprint != base.fingerprint


def test_explain_finds_the_terms_of_the_alternatives_that_held() -> None:
    """A paper in through title:m4fuse alone was shown with causal* "found", a term of
    an alternative whose author: did not hold: it read as if causal* had counted."""
    from papertrack.diagnose import explain_topic

    topic = Topic("A", "a", "(author:scholkopf AND causal*) OR title:m4fuse")
    paper = Paper("1", "M4Fuse: causal fusion", abstract="A causal model.", authors=("Ann Lee",))
    found = [hit.term for hit in explain_topic(topic, paper).hits]
    assert found == ["title:m4fuse"]
    # A paper the query misses still shows every term it holds (what came close).
    missed = Paper("2", "Fusion", abstract="A causal model.", authors=("Ann Lee",))
    assert [hit.term for hit in explain_topic(topic, missed).hits] == ["causal*"]


@pytest.mark.parametrize(
    ("query", "meant"), [("authors:lecun", "author"), ("titel:agent", "title"),
                         ("categories:cs.AI", "category")],
)  # fmt: skip
def test_a_near_miss_of_a_field_names_the_field(query: str, meant: str) -> None:
    with pytest.raises(QuerySyntaxError, match=f"Did you mean {meant}:\\?"):
        Topic(name="x", slug="x", query=query)
    with pytest.raises(QuerySyntaxError) as raised:
        Topic(name="x", slug="x", query="foo:bar")
    assert "Did you mean" not in str(raised.value)


def test_a_wildcard_after_a_phrase_is_shown_inside_it() -> None:
    with pytest.raises(QuerySyntaxError, match='inside the quotes: "tool use\\*"') as raised:
        Topic(name="x", slug="x", query='agent AND "tool use"*')
    assert raised.value.column == 21
    assert matches('"tool use*"', "Tool users and agents")


# ---------------------------------------------------------------------------
# Catalog


def test_default_catalog_has_the_required_topics(catalog: Catalog) -> None:
    names = [topic.name for topic in catalog]
    for name in REQUIRED_TOPICS:
        assert name in names
    slugs = [topic.slug for topic in catalog]
    assert len(set(slugs)) == len(slugs)
    for topic in catalog:
        assert topic.slug == slugify(topic.name)
        assert topic.description
        assert topic.source == "default"
    assert catalog.warnings == ()
    assert (
        Catalog.load(default_topics_file()).queries_only().fingerprints() == catalog.fingerprints()
    )


@pytest.mark.parametrize(
    "key",
    [
        "LLM Agent Training",
        "llm agent training",
        "llm-agent-training",
        "LLM-agent-training",
        "  LLM Agent  Training ",
        "LLM_Agent_Training",
    ],
)
def test_find_accepts_names_and_slugs_in_any_case(catalog: Catalog, key: str) -> None:
    assert catalog.find(key).slug == "llm-agent-training"


def test_find_and_by_slug(catalog: Catalog) -> None:
    assert catalog.find("Computer-Use Agents").slug == "computer-use-agents"
    assert catalog.find("rl for llm agents").name == "RL for LLM Agents"
    assert catalog.by_slug("agentic-rag") is catalog.find("Agentic RAG")
    assert catalog.by_slug("Agentic RAG") is None


def test_find_unknown_topic_suggests_close_names(catalog: Catalog) -> None:
    with pytest.raises(UnknownTopicError) as caught:
        catalog.find("llm-agnt")
    message = str(caught.value)
    assert message.startswith(
        "no topic named 'llm-agnt'. Did you mean: LLM Agent Training (llm-agent-training)"
    )
    assert message.endswith("? Run 'papertrack topics' to list them.")
    # A word of a topic's name; several topics have it.
    with pytest.raises(UnknownTopicError) as caught:
        catalog.find("vision")
    assert "Did you mean: Computer Vision (computer-vision)?" in str(caught.value)
    with pytest.raises(UnknownTopicError) as caught:
        catalog.find("rl")
    assert str(caught.value).count("(rl-for-") == 2
    # Letters in common are not a slip: a removed topic of the user's own.
    for far in ("llm-watermarking", "agent-memory"):
        with pytest.raises(UnknownTopicError) as caught:
            catalog.find(far)
        assert "Did you mean" not in str(caught.value)
    with pytest.raises(UnknownTopicError) as caught:
        catalog.find("quantum chromodynamics")
    assert str(caught.value) == (
        "no topic named 'quantum chromodynamics'. Run 'papertrack topics' to list them."
    )


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_a_default_copied_to_rename_it_keeps_its_model(tmp_path: Path) -> None:
    """Copied into topics.toml without its model line, to rename the topic, a default
    decided by its query alone without a word (llm-agent-training's query: F1 0.55 on
    the test split, its model 0.69)."""
    default = Catalog.default().by_slug("llm-agent-training")
    assert default is not None and default.model_file and default.decide == "model"
    quoted_query = "'''" + default.query + "'''"
    entry = (
        f"[[topic]]\nname = 'Agent Training'\nslug = 'llm-agent-training'\nquery = {quoted_query}\n"
    )
    for extra, decides, model in (
        ("", "model", default.model_file),  # the same definition: its model
        ("decide = 'query'\n", "query", ""),  # told to decide by its query alone
    ):
        user = write(tmp_path / "topics.toml", entry + extra)
        copied = Catalog.load(default_topics_file(), user).by_slug("llm-agent-training")
        assert copied is not None and copied.name == "Agent Training"
        assert (copied.decide, copied.model_file) == (decides, model)
    # Another query is another topic: its own rule, the query.
    user = write(tmp_path / "topics.toml", entry.replace(default.query, "agent* AND train*"))
    changed = Catalog.load(default_topics_file(), user).by_slug("llm-agent-training")
    assert changed is not None and changed.decide == "query" and not changed.model_file


def test_user_topics_override_hide_and_add(catalog: Catalog, tmp_path: Path) -> None:
    user = write(
        tmp_path / "topics.toml",
        """
[[topic]]
name = "GUI Agents"
description = "Mine."
query = "gui AND agent*"

[[topic]]
slug = "terminal-agents"
hidden = true

[[topic]]
name = "Computer Vision"
hidden = true

[[topic]]
name = "Protein Folding"
query = '''"protein folding" OR alphafold'''
categories = ["q-bio.*"]
""",
    )
    merged = Catalog.load(default_topics_file(), user).queries_only()
    slugs = [t.slug for t in merged]
    default_slugs = [t.slug for t in catalog]
    # The override keeps its place; hidden topics are gone; new ones come last.
    assert slugs == [
        s for s in default_slugs if s not in ("terminal-agents", "computer-vision")
    ] + ["protein-folding"]
    gui = merged.find("gui agents")
    assert (gui.query, gui.description, gui.source) == ("gui AND agent*", "Mine.", "user")
    assert merged.find("protein folding").categories == ("q-bio.*",)
    with pytest.raises(UnknownTopicError):
        merged.find("Terminal Agents")
    assert merged.fingerprints()["gui-agents"] != catalog.fingerprints()["gui-agents"]
    assert (
        merged.fingerprints()["llm-agent-training"] == catalog.fingerprints()["llm-agent-training"]
    )
    assert merged.tag(Paper("1", "GUI agents")) == ("gui-agents",)


def test_hiding_a_topic_that_does_not_exist_is_a_warning(tmp_path: Path) -> None:
    user = write(tmp_path / "topics.toml", '[[topic]]\nslug = "no-such-topic"\nhidden = true\n')
    merged = Catalog.load(default_topics_file(), user).queries_only()
    assert len(merged.warnings) == 1
    assert "hides the topic 'no-such-topic', but there is no such topic" in merged.warnings[0]


def test_a_missing_user_file_is_no_error(catalog: Catalog, tmp_path: Path) -> None:
    merged = Catalog.load(default_topics_file(), tmp_path / "absent.toml").queries_only()
    assert merged.fingerprints() == catalog.fingerprints()


def test_a_bad_user_query_names_the_file_and_the_topic(tmp_path: Path) -> None:
    user = write(
        tmp_path / "topics.toml",
        '[[topic]]\nname = "My Agents"\nquery = "(agent* OR llm"\n',
    )
    with pytest.raises(QuerySyntaxError) as caught:
        Catalog.load(default_topics_file(), user)
    assert caught.value.column == 1
    assert str(caught.value) == (
        f"topic 'My Agents' in {user}: unbalanced parenthesis at column 1. "
        "Close it with ')' or remove it."
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[topic]\nname = 'x'\n", "is not valid TOML"),
        # tomllib reads nesting by recursion: this passed Python's stack.
        ("x = " + "[" * 100_000 + "]" * 100_000 + "\n", "is not valid TOML: nested too deeply"),
        ("[[topics]]\nname = 'x'\nquery = 'x'\n", "unknown top-level key 'topics'"),
        ("[[topic]]\nname = 'X'\nquery = 'x'\nquerry = 'y'\n", "has unknown key 'querry'"),
        ("[[topic]]\nname = 'X'\n", "topic 'X' in"),
        # What is left of a hidden default once its `hidden = true` line is deleted.
        ("[[topic]]\nname = 'GUI Agents'\nslug = 'gui-agents'\n", "left from hiding a default"),
        ("[[topic]]\nquery = 'x'\n", "has no name"),
        ("[[topic]]\nname = 'X'\nslug = 'My Slug'\nquery = 'x'\n", "e.g. 'my-slug'"),
        ("[[topic]]\nname = 'X'\nquery = 'x'\ncategories = 'cs.AI'\n", "list of strings"),
        ("[[topic]]\nname = 'X'\nquery = 'x'\ncategories = ['cs AI']\n", "bad category"),
        ("[[topic]]\nname = 'X'\nquery = 3\n", "query must be a string"),
        ("[[topic]]\nname = 'X'\nquery = 'x'\n[[topic]]\nname = 'x'\nquery = 'y'\n", "twice"),
    ],
)
def test_malformed_user_files_are_usage_errors(tmp_path: Path, text: str, message: str) -> None:
    user = write(tmp_path / "topics.toml", text)
    with pytest.raises(UsageError) as caught:
        Catalog.load(default_topics_file(), user)
    assert message in str(caught.value)
    assert str(user) in str(caught.value)


def test_a_missing_default_catalog_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(PapertrackError, match="default topic catalog"):
        Catalog.load(tmp_path / "nope.toml")


def test_catalog_rejects_duplicate_names() -> None:
    with pytest.raises(UsageError, match="two topics are named"):
        Catalog([Topic("Agents", "agents", "a"), Topic("agents", "agents-2", "b")])


def test_tag_lists_slugs_in_catalog_order() -> None:
    topics = [
        Topic("Tools", "tools", "tool*"),
        Topic("Agents", "agents", "agent*"),
        Topic("Both", "both", "(agent* AND tool*) OR robots"),
    ]
    catalog = Catalog(topics)
    assert catalog.tag(Paper("1", "Agents that use tools")) == ("tools", "agents", "both")
    assert catalog.tag(Paper("2", "Robots")) == ("both",)
    assert catalog.tag(Paper("3", "Nothing here")) == ()


# ---------------------------------------------------------------------------
# Real papers (from the arXiv cs.AI listing of 2025-08-20 and an API page)

COMPUTER_RL = Paper(
    arxiv_id="2508.14040",
    title="ComputerRL: Scaling End-to-End Online Reinforcement Learning for Computer Use Agents",
    abstract=(
        "We introduce ComputerRL, a framework for autonomous desktop intelligence that enables "
        "agents to operate complex digital workspaces skillfully. ComputerRL features the "
        "API-GUI paradigm, which unifies programmatic API calls and direct GUI interaction to "
        "address the inherent mismatch between machine agents and human-centric desktop "
        "environments. Scaling end-to-end RL training is crucial for improvement and "
        "generalization across diverse desktop tasks, yet remains challenging due to "
        "environmental inefficiency and instability in extended training. To support scalable "
        "and robust training, we develop a distributed RL infrastructure capable of "
        "orchestrating thousands of parallel virtual desktop environments to accelerate "
        "large-scale online RL. Furthermore, we propose Entropulse, a training strategy that "
        "alternates reinforcement learning with supervised fine-tuning, effectively mitigating "
        "entropy collapse during extended training runs. We employ ComputerRL on open models "
        "GLM-4-9B-0414 and Qwen2.5-14B, and evaluate them on the OSWorld benchmark. The "
        "AutoGLM-OS-9B based on GLM-4-9B-0414 achieves a new state-of-the-art accuracy of "
        "48.1%, demonstrating significant improvements for general agents in desktop "
        "automation. The algorithm and framework are adopted in building AutoGLM (Liu et al., "
        "2024a)"
    ),
    authors=("Hanyu Lai", "Xiao Liu", "Yanxiao Zhao"),
    categories=("cs.AI",),
)

CAUSAL_PLAN = Paper(
    arxiv_id="2508.13721",
    title=(
        "CausalPlan: Empowering Efficient LLM Multi-Agent Collaboration Through "
        "Causality-Driven Planning"
    ),
    abstract=(
        "Large language model (LLM) agents-especially smaller, open-source models-often produce"
        " causally invalid or incoherent actions in collaborative tasks due to their reliance "
        "on surface-level correlations rather than grounded causal reasoning. This limitation "
        "undermines their performance in terms of coordination and planning in dynamic "
        "environments. We address this challenge with CausalPlan, a two-phase framework that "
        "integrates explicit structural causal reasoning into the LLM planning process. At the "
        "core of CausalPlan is the Structural Causal Action (SCA) model, which learns a causal "
        "graph from agent trajectories to capture how prior actions and current environment "
        "states influence future decisions. This structure is then used to guide action "
        "selection by assigning causal scores to LLM-generated proposals, reweighting them "
        "accordingly, or falling back to causally grounded alternatives when needed. By "
        "embedding this causal knowledge directly into the decision loop, CausalPlan constrains"
        " planning to intervention-consistent behaviours without requiring fine-tuning of the "
        "LLM itself. We evaluate CausalPlan on the Overcooked-AI benchmark across five "
        "multi-agent coordination tasks and four LLMs of varying sizes: Gemma-7B, Llama-8B, "
        "Qwen-14B, and Llama-70B. Experimental results show that CausalPlan consistently "
        "reduces invalid actions and improves collaboration in both AI-AI and human-AI "
        "settings, outperforming strong reinforcement learning baselines. Our findings "
        "highlight the value of causality-driven planning for deploying efficient, "
        "interpretable, and generalisable multi-agent LLM systems."
    ),
    authors=("Minh Hoang Nguyen", "Van Dai Do", "Dung Nguyen"),
    categories=("cs.AI",),
)

MM_BROWSECOMP = Paper(
    arxiv_id="2508.13186",
    title="MM-BrowseComp: A Comprehensive Benchmark for Multimodal Browsing Agents",
    abstract=(
        "AI agents with advanced reasoning and tool use capabilities have demonstrated "
        "impressive performance in web browsing for deep search. While existing benchmarks such"
        " as BrowseComp evaluate these browsing abilities, they primarily focus on textual "
        "information, overlooking the prevalence of multimodal content. To bridge this gap, we "
        "introduce MM-BrowseComp, a novel benchmark comprising 224 challenging, hand-crafted "
        "questions specifically designed to assess agents' multimodal retrieval and reasoning "
        "capabilities. These questions often incorporate images in prompts, and crucial "
        "information encountered during the search and reasoning process may also be embedded "
        "within images or videos on webpages. Consequently, methods relying solely on text "
        "prove insufficient for our benchmark. Additionally, we provide a verified checklist "
        "for each question, enabling fine-grained analysis of multimodal dependencies and "
        "reasoning paths. Our comprehensive evaluation of state-of-the-art models on "
        "MM-BrowseComp reveals that even top models like OpenAI o3 with tools achieve only "
        "29.02\\% accuracy, highlighting the suboptimal multimodal capabilities and lack of "
        "native multimodal reasoning in current models."
    ),
    authors=("Shilong Li", "Xingyuan Bu", "Wenjie Wang"),
    categories=("cs.CL", "cs.AI", "cs.CV"),
)

GENETIC = Paper(
    arxiv_id="2508.14020",
    title="A Biased Random Key Genetic Algorithm for Solving the Longest Run Subsequence Problem",
    abstract=(
        "The longest run subsequence (LRS) problem is an NP-hard combinatorial optimization "
        "problem belonging to the class of subsequence problems from bioinformatics. In "
        "particular, the problem plays a role in genome reassembly. In this paper, we present a"
        " solution to the LRS problem using a Biased Random Key Genetic Algorithm (BRKGA). Our "
        "approach places particular focus on the computational efficiency of evaluating "
        "individuals, which involves converting vectors of gray values into valid solutions to "
        "the problem. For comparison purposes, a Max-Min Ant System is developed and "
        "implemented. This is in addition to the application of the integer linear programming "
        "solver CPLEX for solving all considered problem instances. The computation results "
        "show that the proposed BRKGA is currently a state-of-the-art technique for the LRS "
        "problem. Nevertheless, the results also show that there is room for improvement, "
        "especially in the context of input strings based on large alphabet sizes."
    ),
    authors=("Christian Blum", "Pedro Pinacho-Davidson"),
    categories=("cs.AI", "cs.DM"),
)

MUTATION_DRL = Paper(
    arxiv_id="2301.05651",
    title="Mutation Testing of Deep Reinforcement Learning Based on Real Faults",
    abstract=(
        "Testing Deep Learning (DL) systems is a complex task as they do not behave like "
        "traditional systems would, notably because of their stochastic nature. Nonetheless, "
        "being able to adapt existing testing techniques such as Mutation Testing (MT) to DL "
        "settings would greatly improve their potential verifiability. While some efforts have "
        "been made to extend MT to the Supervised Learning paradigm, little work has gone into "
        "extending it to Reinforcement Learning (RL) which is also an important component of "
        "the DL ecosystem but behaves very differently from SL. This paper builds on the "
        "existing approach of MT in order to propose a framework, RLMutation, for MT applied to"
        " RL. Notably, we use existing taxonomies of faults to build a set of mutation "
        "operators relevant to RL and use a simple heuristic to generate test cases for RL. "
        "This allows us to compare different mutation killing definitions based on existing "
        "approaches, as well as to analyze the behavior of the obtained mutation operators and "
        "their potential combinations called Higher Order Mutation(s) (HOM). We show that the "
        "design choice of the mutation killing definition can affect whether or not a mutation "
        "is killed as well as the generated test cases. Moreover, we found that even with a "
        "relatively small number of test cases and operators we manage to generate HOM with "
        "interesting properties which can enhance testing capability in RL systems."
    ),
    authors=("Florian Tambon", "Vahid Majdinasab", "Amin Nikanjam"),
    categories=("cs.LG", "cs.SE"),
)

WHISPERING = Paper(
    arxiv_id="2508.13376",
    title="Whispering Context: Distilling Syntax and Semantics for Long Speech Transcripts",
    abstract=(
        "ASR systems often struggle with maintaining syntactic and semantic accuracy in long "
        "audio transcripts, impacting tasks like Named Entity Recognition (NER), "
        "capitalization, and punctuation. We propose a novel approach that enhances ASR by "
        "distilling contextual knowledge from LLaMA models into Whisper. Our method uses two "
        "strategies: (1) token level distillation with optimal transport to align dimensions "
        "and sequence lengths, and (2) representation loss minimization between sentence "
        "embeddings of Whisper and LLaMA, blending syntax and semantics. Evaluations on the "
        "Spoken Wikipedia dataset, a benchmark with long audios and rich entities demonstrate "
        "significant improvements in Word Error Rate (WER), NER, capitalization, and "
        "punctuation success. By introducing novel NER metrics and exploring semantics aware "
        "ASR, our work highlights the value of integrating linguistic context into "
        "transcription, setting a foundation for robust, context-aware ASR in longform speech."
    ),
    authors=("Duygu Altinok",),
    categories=("cs.CL", "cs.AI"),
)


@pytest.mark.parametrize(
    ("paper", "tags"),
    [
        (
            COMPUTER_RL,
            {
                "llm-agent-training",
                "rl-for-llm-agents",
                "agentic-rl",
                "gui-agents",
                "computer-use-agents",
                "large-language-models",
                "reinforcement-learning",
            },
        ),
        (CAUSAL_PLAN, {"multi-agent-llm-systems", "large-language-models"}),
        (
            MM_BROWSECOMP,
            {"web-search-agents", "ai-agent-benchmarks", "computer-vision"},
        ),
        (GENETIC, set()),
        (MUTATION_DRL, {"reinforcement-learning"}),
        (WHISPERING, {"knowledge-distillation", "large-language-models"}),
    ],
    ids=lambda value: value.arxiv_id if isinstance(value, Paper) else "",
)
def test_real_papers_get_the_right_topics(catalog: Catalog, paper: Paper, tags: set[str]) -> None:
    assert set(catalog.tag(paper)) == tags


def test_catalog_and_single_topics_agree(catalog: Catalog) -> None:
    # The catalog shares sub-queries between topics and caches them per paper;
    # that must never change an answer.
    papers = [COMPUTER_RL, CAUSAL_PLAN, MM_BROWSECOMP, GENETIC, MUTATION_DRL, WHISPERING]
    for paper in papers:
        text = PaperText.of(paper)
        alone = tuple(t.slug for t in catalog if t.matches(PaperText.of(paper)))
        assert catalog.tag_text(text) == alone
        assert catalog.tag_text(text) == alone  # again, from the cache


# ---------------------------------------------------------------------------
# The prefilter: a cheap substring test before tokenizing, never a false "no"


def test_prefilter_rules_out_only_papers_that_cannot_match(catalog: Catalog) -> None:
    from papertrack.topics import prefilter

    papers = [COMPUTER_RL, CAUSAL_PLAN, MM_BROWSECOMP, GENETIC, MUTATION_DRL, WHISPERING]
    for topic in catalog:
        possible = prefilter([topic.membership])
        for paper in papers:
            if topic.matches(paper):
                assert possible(paper.title, paper.abstract, paper.authors), topic.slug
            assert topic.matches_fields(
                paper.title, paper.abstract, paper.authors, paper.categories
            ) == topic.matches(paper)
    agents = prefilter([parse_query("agent* AND (llm OR gpt)")])
    assert not agents("Robots", "We study robots.", ())
    assert agents("Agents", "no model here", ())  # passes the test, fails the query
    # Without a word every match needs (NOT, categories only), everything passes.
    assert prefilter([parse_query("NOT agent")])("x", "y", ())
    assert prefilter([parse_query("category:cs.AI")])("x", "y", ())


@pytest.mark.parametrize(
    ("query", "title", "authors"),
    [
        ("naive", "Naïve Bayes", ()),  # accents: not ASCII, always tokenized
        ('author:"andre lima"', "x", ("Paulo Andr\\'e Lima",)),  # TeX accents in names
        ("strasse", "Straße", ()),
        ('"large language model*"', "Large-Language-Models", ()),
    ],
)
def test_prefilter_never_hides_a_match_in_unusual_text(
    query: str, title: str, authors: tuple[str, ...]
) -> None:
    topic = Topic("T", "t", query)
    assert topic.matches(Paper("1", title, authors=authors))
    assert topic.matches_fields(title, "", authors, ())


@given(
    words=st.lists(
        st.sampled_from(["Agent", "agents", "LLM", "llm-based", "GPT-4o", "rl"]), max_size=8
    ),
    query=st.sampled_from(
        ["agent*", "llm", '"llm based"', "gpt AND NOT rl", "(agents OR rl) AND 4o", "title:llm*"]
    ),
)
def test_prefilter_agrees_with_the_matcher(words: list[str], query: str) -> None:
    topic = Topic("T", "t", query)
    title = " ".join(words[:3])
    abstract = ", ".join(words[3:])
    paper = Paper("1", title, abstract=abstract)
    assert topic.matches_fields(title, abstract, (), ()) == topic.matches(paper)


# ---------------------------------------------------------------------------
# Implications: a topic's papers are in the topics it implies


def _nested() -> Catalog:
    return Catalog(
        [
            Topic("Training", "training", "train*"),
            Topic("Agentic RL", "agentic-rl", "reinforcement", implies=("training",)),
            Topic("Tool RL", "tool-rl", "tool AND reinforcement", implies=("agentic-rl",)),
            Topic("Vision", "vision", "image*"),
        ]
    )


def test_a_paper_in_a_topic_is_in_every_topic_it_implies_even_through_others() -> None:
    nested = _nested()
    assert nested.tag(Paper("1", "Reinforcement learning with a tool")) == (
        "training",
        "agentic-rl",
        "tool-rl",
    )
    assert nested.tag(Paper("2", "Reinforcement learning on images")) == (
        "training",
        "agentic-rl",
        "vision",
    )
    assert nested.tag(Paper("3", "A tool for images")) == ("vision",)  # implies nothing
    assert nested.implied_by("training") == ("agentic-rl", "tool-rl")
    assert nested.implied_by("vision") == ()
    assert nested.family({"training"}) == {"training", "agentic-rl", "tool-rl"}
    assert nested.family({"tool-rl", "gone"}) == {"training", "agentic-rl", "tool-rl", "gone"}
    assert nested.family({"vision"}) == {"vision"}


def test_a_taught_decision_holds_over_an_implication() -> None:
    nested = _nested()
    assert nested.settle(["tool-rl"], {"agentic-rl": False}) == ("training", "tool-rl")
    assert nested.settle([], {"agentic-rl": True}) == ("training", "agentic-rl")
    assert nested.settle(["agentic-rl"], {"agentic-rl": False}) == ()


def test_an_implied_topics_fingerprint_changes_with_the_topics_that_imply_it() -> None:
    nested = _nested()
    changed = Catalog(
        [
            t
            if t.slug != "tool-rl"
            else Topic("Tool RL", "tool-rl", "tool", implies=("agentic-rl",))
            for t in nested.topics
        ]
    )
    before, after = nested.fingerprints(), changed.fingerprints()
    assert before["vision"] == after["vision"]
    assert before["tool-rl"] != after["tool-rl"]
    # Their tags hold the changed topic's papers: they are retagged with it.
    assert before["agentic-rl"] != after["agentic-rl"]
    assert before["training"] != after["training"]
    # A topic nothing implies keeps the fingerprint of its own definition.
    assert before["tool-rl"] == nested.by_slug("tool-rl").fingerprint  # type: ignore[union-attr]


def test_the_default_catalog_nests_the_agent_rl_topics_as_the_guidelines_do(
    catalog: Catalog,
) -> None:
    assert set(catalog.implied_by("llm-agent-training")) == {
        "rl-for-llm-agents",
        "agentic-rl",
        "rl-for-tool-use",
    }
    assert catalog.implied_by("gui-agents") == ("computer-use-agents",)
    assert catalog.implied_by("llm-tool-use") == ("rl-for-tool-use",)
    assert catalog.implied_by("computer-vision") == ()


def test_implies_in_a_users_file_is_checked(tmp_path: Path) -> None:
    user = write(
        tmp_path / "topics.toml",
        """
[[topic]]
name = "Robot RL"
query = "robot* AND reinforcement"
implies = ["reinforcement-learning", "robot-learning"]

[[topic]]
slug = "computer-vision"
hidden = true

[[topic]]
name = "Robot Vision"
query = "robot* AND image*"
implies = ["computer-vision"]
""",
    )
    merged = Catalog.load(default_topics_file(), user).queries_only()
    # An implied topic that exists nowhere is a warning; a hidden one is simply gone.
    assert merged.warnings == (
        "topic 'robot-rl' implies 'robot-learning', but there is no such topic; "
        "that implication is ignored.",
    )
    tags = merged.tag(Paper("1", "Robot reinforcement learning from images"))
    assert "robot-rl" in tags and "reinforcement-learning" in tags
    assert "computer-vision" not in tags
    for bad in ("'agentic-rl'", "[3]", '["Agentic RL"]', '["x-y", ""]', '["robot-rl"]'):
        write(user, f'[[topic]]\nname = "Robot RL"\nquery = "robot"\nimplies = {bad}\n')
        with pytest.raises(UsageError, match="implies must be a list of other topics' slugs"):
            Catalog.load(default_topics_file(), user)


def test_a_model_file_rewritten_at_once_is_read_anew_and_a_damaged_one_is_an_error(
    tmp_path: Path,
) -> None:
    """A process keeps the models and queries it read (the Python API and the tests
    load many catalogs): a model file rewritten with other bytes of the same size,
    as fast as a teach can, is read anew, and a damaged one still names its file."""
    import dataclasses
    import json

    from papertrack.topics import Catalog

    topic = Catalog.default().by_slug("gui-agents")
    assert topic is not None and topic.model_file
    data = json.loads(Path(topic.model_file).read_text(encoding="utf-8"))
    path = tmp_path / "model.json"

    def catalog_with(threshold: float) -> Catalog:
        data["threshold"] = threshold
        path.write_text(json.dumps(data), encoding="utf-8")
        return Catalog([dataclasses.replace(topic, model_file=str(path))])

    first = catalog_with(1.25)
    assert first.topics[0].model.threshold == 1.25
    size = path.stat().st_size
    second = catalog_with(1.75)  # the same size, within the clock's tick
    assert path.stat().st_size == size
    assert second.topics[0].model.threshold == 1.75
    assert second.model_set is not first.model_set
    again = catalog_with(1.25)
    assert again.model_set is first.model_set  # the same models: merged once
    path.write_text(path.read_text(encoding="utf-8")[:-20], encoding="utf-8")
    broken = Catalog([dataclasses.replace(topic, model_file=str(path))])
    with pytest.raises(PapertrackError, match="cannot be read"):
        _ = broken.topics[0].model
    # A query is parsed once, but an error in one is raised every time.
    for _ in range(2):
        with pytest.raises(QuerySyntaxError):
            dataclasses.replace(topic, query="agent AND (gui")
