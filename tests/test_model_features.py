"""The models' concept and query-match features, as the catalog computes them when it tags.

The catalog evaluates the bundled queries once per paper (their matches are every
model's "q:" features) and reads from that pass the query result of each topic whose
query is the bundled one. These tests check that shortcut against the plain
definition, topic by topic, on real labelled papers, also with a user's file that
rewrites some topics' queries.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from papertrack import paths, training
from papertrack.fulltext import index_row
from papertrack.learn import features, read
from papertrack.paths import default_topics_file
from papertrack.tex import render_tex
from papertrack.topics import (
    Catalog,
    PaperText,
    decided,
    default_hits,
    model_text,
    model_words,
)

LABELLED = list(itertools.islice(training.load_labelled(paths.labels_file()), 0, 12850, 43))


def reference_tags(catalog: Catalog, paper: training.Labelled) -> tuple[str, ...]:
    """Each topic decided on its own: its query, its model over features with the bundled
    queries' matches, and its rule; no shared pass."""
    title, abstract = render_tex(paper.title), render_tex(paper.abstract)
    feats = features(title, abstract, default_hits(title, abstract, (), paper.categories))
    tags = []
    for topic in catalog.topics:
        query = bool(topic.query.strip()) and topic.matches_fields(
            title, abstract, (), paper.categories
        )
        model = topic.model is not None and topic.model.decide(feats)
        if decided(topic.decide, model, query):
            tags.append(topic.slug)
    # Then each topic's papers are in the topics it implies, and in theirs.
    found = implied(catalog, set(tags))
    return tuple(t.slug for t in catalog.topics if t.slug in found)


def implied(catalog: Catalog, slugs: set[str]) -> set[str]:
    """``slugs`` and every topic they imply, directly or not."""
    found = set(slugs)
    while True:
        more = found | {i for t in catalog.topics if t.slug in found for i in t.implies}
        if more == found:
            return found
        found = more


@pytest.mark.parametrize("shift", [0, 1, 2, 3])
def test_the_default_catalog_tags_as_each_topic_decides_alone(shift: int) -> None:
    # Whatever rule each model file chose when it was fitted, every topic is made to
    # decide by each of the rules in turn, so the shared pass is checked for all four.
    rules = ("model", "either", "both", "query")
    catalog = Catalog(
        replace(topic, decide_rule=rules[(index + shift) % len(rules)])
        for index, topic in enumerate(Catalog.default().topics)
    )
    assert {t.decide for t in catalog.topics} == set(rules)
    tagged = 0
    for paper in LABELLED:
        tags = catalog.tag_fields(paper.title, paper.abstract, (), paper.categories)
        assert tags == reference_tags(catalog, paper), paper.arxiv_id
        tagged += bool(tags)
    assert tagged > len(LABELLED) // 2  # the sample is not all negatives
    # A bulk import tags a chunk at once: the same tags.
    chunk = [(p.title, p.abstract, (), p.categories, p.arxiv_id) for p in LABELLED]
    assert catalog.tag_many(chunk) == [catalog.tag_fields(*paper) for paper in chunk]


def test_a_rewritten_query_decides_its_topic_but_not_the_other_models(tmp_path: Path) -> None:
    # A user's entry replaces the default whole: these two decide by their new query
    # alone (no model, and nothing implied).
    user = tmp_path / "topics.toml"
    user.write_text(
        '[[topic]]\nslug = "rl-for-tool-use"\nname = "RL for Tool Use"\nquery = "zebra*"\n'
        '[[topic]]\nslug = "knowledge-distillation"\nname = "Knowledge Distillation"\n'
        'query = "distill* OR teacher*"\n',
        encoding="utf-8",
    )
    mine = Catalog.load(default_topics_file(), user)
    bundled = Catalog.default()
    assert mine.by_slug("rl-for-tool-use").query == "zebra*"
    differs = 0
    for paper in LABELLED:
        tags = mine.tag_fields(paper.title, paper.abstract, (), paper.categories)
        assert tags == reference_tags(mine, paper), paper.arxiv_id
        theirs = bundled.tag_fields(paper.title, paper.abstract, (), paper.categories)
        # Topics the user left alone tag exactly as the bundled ones: the models'
        # query-match features come from the bundled queries, whatever the file says.
        # (So may those the bundled ones imply, which they no longer do.)
        rewritten = implied(bundled, {"rl-for-tool-use", "knowledge-distillation"})
        assert [t for t in tags if t not in rewritten] == [t for t in theirs if t not in rewritten]
        differs += tags != theirs
    assert differs  # the rewritten queries did change some papers' tags


@pytest.mark.parametrize(
    ("title", "abstract", "wanted"),
    [
        (
            "Training LLM agents",
            "We fine-tune language model agents with GRPO on multi-turn tool use.",
            {"llm-agent-training", "agentic-rl"},
        ),
        ("Cats", "Cats sleep a lot.", set()),
    ],
)
def test_default_hits_are_the_bundled_queries_matches(
    title: str, abstract: str, wanted: set[str]
) -> None:
    hits = default_hits(title, abstract)
    catalog = Catalog.default()
    expected = tuple(
        t.slug
        for t in catalog.topics
        if t.query.strip() and t.matches_fields(title, abstract, (), ())
    )
    assert hits == expected
    assert wanted <= set(hits)
    assert {"q:" + slug for slug in hits} <= features(title, abstract, hits)


def test_tag_text_reads_bundled_queries_from_the_shared_pass_as_each_topic_alone() -> None:
    catalog = Catalog.default()
    assert catalog._hinted  # topics deciding with their bundled query
    for paper in LABELLED:
        text = PaperText(paper.title, paper.abstract, (), paper.categories)
        alone = tuple(
            t.slug
            for t in catalog.topics
            if t.decide != "model"
            and t.matches(PaperText(paper.title, paper.abstract, (), paper.categories))
        )
        assert catalog.tag_text(text) == alone, paper.arxiv_id


def check_split_once(title: str, abstract: str) -> None:
    """Title and abstract split into words once (as ingest and a retag split them) are
    read as each reader splitting them itself reads them: the queries, the models
    and the search index row."""
    authors, categories = ["Ann O'Neil", "B. Ü"], ["cs.AI", "cs.CL"]
    rendered = render_tex(title), render_tex(abstract)
    words = read(*rendered)
    flat = itertools.chain.from_iterable(words[1])
    alone = PaperText(*rendered, authors, categories)
    shared = PaperText.of_words(words[0], flat, authors, categories)
    for name in ("text_set", "text_str", "title_set", "title_str", "categories", "author_str"):
        assert getattr(shared, name) == getattr(alone, name), name
    assert index_row(title, abstract, authors, categories, words) == index_row(
        title, abstract, authors, categories
    )
    made = model_words(title, abstract, authors, categories)
    text = model_text(title, abstract, authors, categories)
    assert made == (*words, text[2])
    assert made[2] == default_hits(*rendered, authors, categories)


def test_real_text_split_once_is_read_as_each_reader_splits_it() -> None:
    for paper in LABELLED:
        check_split_once(paper.title, paper.abstract)


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet="aAzé ß1.?!\n$\\{}^_-~|\u200b", max_size=40),
    st.text(alphabet="aAzé ß1.?!\n$\\{}^_-~|\u200b", max_size=80),
)
def test_any_text_split_once_is_read_as_each_reader_splits_it(title: str, abstract: str) -> None:
    # TeX ($, \\, braces), carets that join, sentence ends, accents, zero-width spaces.
    check_split_once(title, abstract)
    check_split_once(f"$\\textbf{{A}}$gent {title}", f"We train M$^3$ agents. {abstract}")
