"""-c/--category names arXiv's categories: a typo is refused, not an empty answer."""

from __future__ import annotations

import json
from pathlib import Path

from papertrack.categories import ARXIV_CATEGORIES, canonical, is_arxiv_category, suggest
from tests.helpers import LISTING, error_line, run


def test_the_taxonomy_knows_arxivs_names_in_any_case() -> None:
    for name in ("cs.AI", "cs.ai", "math.GT", "hep-th", "cond-mat.stat-mech", "astro-ph", "cmp-lg"):
        assert is_arxiv_category(name), name
    for name in ("cs.XX", "cs.FOO", "cs", "hep-thh", "math.gt.x"):
        assert not is_arxiv_category(name), name
    assert canonical("cs.ai") == "cs.AI" and canonical("eess.sp") == "eess.SP"
    assert suggest("cs.LGG") == "cs.LG" and suggest("cs.XX") is None
    assert len(ARXIV_CATEGORIES) > 150


def test_latest_refuses_a_category_neither_arxiv_nor_stored() -> None:
    assert run("ingest", str(LISTING)).exit_code == 0
    for name, hint in (
        ("cs.XX", ""),
        ("cs.AII", "Did you mean cs.AI?"),
        ("cs", "Did you mean cs.*?"),
    ):
        result = run("latest", "-c", name)
        line = error_line(result, 2, f"no such category {name!r}", hint)
        assert "papertrack stats --top 0" in line and "category_taxonomy" in line
        assert result.stdout == ""


def test_latest_accepts_any_case_wildcards_and_known_but_unstored_categories() -> None:
    assert run("ingest", str(LISTING)).exit_code == 0
    lower = json.loads(run("latest", "-c", "cs.ai", "--json").stdout)
    assert lower and lower == json.loads(run("latest", "-c", "cs.AI", "--json").stdout)
    assert json.loads(run("latest", "-c", "cs.*", "--json").stdout)
    # An arXiv category no stored paper has: a real, empty answer.
    empty = run("latest", "-c", "hep-th", "--json")
    assert empty.exit_code == 0 and empty.stdout == "[]\n"


def test_an_empty_category_is_refused_not_read_as_none() -> None:
    # -c "$CATEGORY" with the variable unset kept every paper, silently.
    assert run("ingest", str(LISTING)).exit_code == 0
    for args in (
        ["latest", "-c", ""],
        ["ingest", "-c", "", str(LISTING)],
        ["topics", "test", "agent*", "-c", "cs.AI", "-c", "  "],
        ["fetch", "-c", ""],
    ):
        result = run(*args)
        line = error_line(result, 2, "'' names no category", "cs.AI")
        assert result.stdout == ""
        # fetch asks for categories by name: its hint was cs.*, which it then refused.
        assert ("cs.*" in line) == (args[0] != "fetch")
    for pattern in ("cs.*", "cs.A?"):
        line = error_line(
            run("fetch", "-c", pattern), 2, f"'{pattern}' (in --category) is a pattern"
        )
        assert "-c cs.AI -c cs.CL" in line


def test_topics_test_of_a_topic_within_categories_counts_its_papers_there() -> None:
    # With -c the slug was read as the phrase "llm agent training": 0 papers, no word.
    assert run("ingest", str(LISTING)).exit_code == 0
    slug = "llm-agent-training"
    every = json.loads(run("export", "-t", slug, "-f", "json").stdout)
    within = [p for p in every if "cs.CL" in p["categories"]]
    assert every and within and len(within) < len(every)
    trial = json.loads(run("topics", "test", slug, "-c", "cs.CL", "--json").stdout)
    assert trial["topic"] == slug and trial["matches"] == len(within)
    whole = json.loads(run("topics", "test", slug, "--json").stdout)
    assert whole["matches"] == len(every)
    shown = run("topics", "test", slug, "-c", "cs.CL", "--sample", "0")
    assert shown.stdout.startswith(f"LLM Agent Training ({slug}) in cs.CL\n")


def test_a_category_typo_is_refused_by_topics_and_noted_in_a_query() -> None:
    assert run("ingest", str(LISTING)).exit_code == 0
    for args in (
        ["topics", "test", "llm-agent-training", "-c", "cs.XX"],
        ["topics", "test", "agent*", "-c", "cs.AII"],
        ["topics", "add", "Typo", "--query", "agent*", "-c", "cs.XX"],
    ):
        error_line(run(*args), 2, "no such category")
    assert "typo" not in run("topics", "--json").stdout  # nothing was added
    note = "Note: the query's category:cs.aii can match no paper"
    for args in (
        ["search", "agent* AND category:cs.AII"],
        ["latest", "--query", "agent* AND category:cs.AII"],
        ["topics", "test", "agent* AND category:cs.AII"],
        ["export", "--query", "agent* AND category:cs.AII", "-f", "jsonl"],
        ["topics", "add", "Typo", "--query", "agent* AND category:cs.AII"],
    ):
        result = run(*args)
        assert result.exit_code == 0, (args, result.stderr)
        assert note in result.stderr and "Did you mean cs.AI?" in result.stderr, args
    # Real names, in any case, and stored ones are said nothing of.
    for query in ("agent* AND category:cs.ai", "category:hep-th", "category:cs.*"):
        assert "can match no paper" not in run("search", query).stderr, query


def test_a_category_typo_in_a_hand_written_topic_is_warned_of(isolated_home: Path) -> None:
    """categories = ["cs.Al"] written by hand gave a topic of no paper, without a word."""
    assert run("ingest", str(LISTING)).exit_code == 0
    (isolated_home / "topics.toml").write_text(
        '[[topic]]\nname = "Typo"\nquery = "agent*"\ncategories = ["cs.Al"]\n\n'
        '[[topic]]\nname = "Query typo"\nquery = "agent* AND category:cs.AII"\n\n'
        '[[topic]]\nname = "Fine"\nquery = "agent*"\ncategories = ["cs.ai", "hep-th", "cs.*"]\n'
    )
    said = "Warning: topic 'Typo' of {}: its category 'cs.Al' can match no paper"
    said = said.format(isolated_home / "topics.toml")
    for args in (
        ["latest", "typo"],
        ["topic", "typo"],
        ["momentum", "typo"],
        ["topics", "show", "typo"],
        ["topics", "test", "typo"],
    ):
        result = run(*args)
        assert result.exit_code == 0, (args, result.stderr)
        assert said in result.stderr and "Did you mean cs.AI?" in result.stderr, args
    queried = run("latest", "query-typo").stderr
    assert "its query's category:cs.aii can match no paper" in queried
    assert "Warning" not in run("latest", "fine").stderr
    assert "Warning" not in run("latest", "llm-agent-training").stderr
    doctor = run("doctor")
    assert doctor.exit_code == 1
    shown = [line for line in doctor.stdout.splitlines() if line.startswith("In your files: ")]
    assert len(shown) == 2 and "'cs.Al'" in shown[0] and "category:cs.aii" in shown[1]
    assert "2 problems in papertrack's own files" in doctor.stderr


def test_a_typo_is_pointed_to_the_category_with_its_letters_in_place() -> None:
    """fetch -c cs.AJ suggested cs.NA (the same letters, moved): difflib's order."""
    from papertrack.categories import suggest

    assert suggest("cs.AJ") in ("cs.AI", "cs.AR")
    assert suggest("cs.AJ", ["cs.AI", "cs.CL"]) == "cs.AI"  # one the store holds
    assert suggest("cs.AII") == "cs.AI" and suggest("hep-tj") == "hep-th"
    assert suggest("cs.XX") is None
    # A lower-case L for a capital I (cs.Al reads as cs.AI in most fonts): it was cs.PL.
    assert suggest("cs.Al") == "cs.AI" and suggest("stat.Ml") == "stat.ML"
