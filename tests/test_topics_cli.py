"""`papertrack topics …` and `latest --query`: topics a user can see, test and trust.

Real recorded feeds, a real store under the isolated PAPERTRACK_HOME, numbers
cross-checked between commands and against the papers themselves.
"""

from __future__ import annotations

import csv
import io
import json
import re
import tomllib
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from helpers import error_line, kaggle_line, no_traceback, ok, run

from papertrack.store import Store
from papertrack.topics import tokenize

DATA = Path(__file__).parent / "data"
LISTING = DATA / "rss" / "atom-cs.AI-2025-08-20.first86.xml"
API_PAGE = DATA / "api-atom" / "arxiv.py-2026-recorded" / "q_testing_s0_m100_cfe7536492ca.xml"
AS_OF = "2025-08-31"

# A paper of the listing in many topics, and one in AI Agent Benchmarks but not in
# LLM Agent Training (no LLM term, no training term).
CHAIN_OF_AGENTS = "2508.13167"
BROWSECOMP = "2508.13186"


def data(*args: str) -> Any:
    return json.loads(ok(*args).stdout)


def papers(*args: str) -> list[dict[str, Any]]:
    return data("latest", *args, "-n", "10000", "--json")  # type: ignore[no-any-return]


def words(paper: dict[str, Any]) -> list[str]:
    return tokenize(paper["title"]) + tokenize(paper["abstract"])


@pytest.fixture
def stored() -> None:
    ok("ingest", str(API_PAGE), str(LISTING))


@pytest.fixture
def user_file(isolated_home: Path) -> Path:
    isolated_home.mkdir(parents=True, exist_ok=True)
    return isolated_home / "topics.toml"


HAND_WRITTEN = """\
# My topics -- written by hand.

# Robots, but only in the title.
[[topic]]
name = "Robot Papers"   # short name
query = 'title:robot*'

# Benchmarks of any kind
[[topic]]
name = "Benchmarks"
query = '''
benchmark*   # the word and its forms
'''
"""


# --------------------------------------------------------------------------- list and show


def test_topics_list_counts_agree_with_latest(stored: None) -> None:
    assert data("topics", "--json") == data("topics", "list", "--json")
    tagged = {slug: papers(slug) for slug in (r["topic"] for r in data("topics", "--json"))}
    for as_of in (AS_OF, "2025-10-01", "2026-03-01"):
        rows = data("topics", "--json", "--as-of", as_of)
        first = (date.fromisoformat(as_of) - timedelta(days=27)).isoformat()
        recent = 0
        for row in rows:
            assert row["source"] == "default"
            mine = tagged[row["topic"]]
            # With --as-of, the papers dated up to that day (as the topic page counts).
            assert row["papers"] == sum(
                not p["paper_date"] or p["paper_date"][:10] <= as_of for p in mine
            )
            assert row["last_4_weeks"] == sum(first <= p["paper_date"][:10] <= as_of for p in mine)
            assert row["as_of"] == as_of
            recent += row["last_4_weeks"]
        if as_of == AS_OF:
            assert recent >= 20  # the listing's Aug 20 papers are in the window


def test_topics_list_table_and_csv(stored: None) -> None:
    rows = {r["topic"]: r for r in data("topics", "--json", "--as-of", AS_OF)}
    table = ok("topics", "--as-of", AS_OF).stdout
    assert "Last 4 weeks" in table
    line = next(x for x in table.splitlines() if "llm-agent-training" in x)
    cells = [c.strip() for c in line.split("│") if c.strip()]
    row = rows["llm-agent-training"]
    tagged = papers("llm-agent-training")  # every one of them from the Aug 2025 listing or page
    recent = sum(p["paper_date"][:10] >= "2025-08-04" for p in tagged)
    assert tagged and recent
    assert cells == [
        "LLM Agent Training",
        "llm-agent-training",
        "default",
        *map(str, (len(tagged), recent)),
    ]
    assert (row["papers"], row["last_4_weeks"]) == (len(tagged), recent)
    parsed = list(csv.DictReader(io.StringIO(ok("topics", "-f", "csv", "--as-of", AS_OF).stdout)))
    assert [r["topic"] for r in parsed] == list(rows)
    for line in parsed:
        row = rows[line["topic"]]
        assert line["query"] == row["query"]  # multi-line queries survive, quoted
        assert (int(line["papers"]), int(line["last_4_weeks"])) == (
            row["papers"],
            row["last_4_weeks"],
        )


def test_topics_show_prints_the_definition_and_counts(stored: None) -> None:
    shown = data("topics", "show", "LLM Agent Training", "--json", "--as-of", AS_OF)
    listed = {r["topic"]: r for r in data("topics", "--json", "--as-of", AS_OF)}
    row = listed["llm-agent-training"]
    # The slug is "topic", the key every other command uses.
    assert list(row)[:2] == ["topic", "name"] and "slug" not in row and "slug" not in shown
    for key in ("name", "topic", "source", "description", "query", "categories", "papers"):
        assert shown[key] == row[key]
    assert shown["last_4_weeks"] == row["last_4_weeks"]
    assert shown["overrides_default"] is False
    assert shown["file"].endswith("topics.toml")
    table = ok("topics", "show", "llm-agent-training", "--as-of", AS_OF).stdout
    assert "LLM Agent Training" in table and "(llm-agent-training)" in table
    count, recent = row["papers"], row["last_4_weeks"]
    assert count == len(papers("llm-agent-training")) > 0
    assert f"{count} stored, {recent} in the last 4 weeks (to 2025-08-31)" in table
    assert "  AND agent*" in table  # the query as written, indented


def test_topics_show_prints_the_query_as_written_so_a_copy_of_it_parses(stored: None) -> None:
    """Wrapped to the terminal, a comment of a default query went on in a line without
    its '#', and the query copied from the card to make a variant did not parse
    ("unbalanced parenthesis at column 5049"). Each line is printed whole, as written."""
    from papertrack.topics import Catalog

    shown = run("topics", "show", "llm-agent-training", env={"COLUMNS": "60"})
    assert shown.exit_code == 0, shown.stderr
    block = shown.stdout.split("\nquery\n", 1)[1].rstrip("\n").splitlines()
    query = Catalog.default().find("llm-agent-training").query.strip("\n").splitlines()
    assert max(len(line) for line in query) > 60  # lines wider than the terminal
    assert block == ["  " + line for line in query]
    copied = "\n".join(line[2:] for line in block)
    tried = run("topics", "test", copied, "--json")
    assert tried.exit_code == 0, tried.stderr
    # Its comments are on purpose: no note for each (there was one a comment line).
    assert "is a comment" not in tried.stderr


def test_topics_show_unknown_topic_is_a_usage_error() -> None:
    result = run("topics", "show", "llm-agent-trainin")
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: no topic named 'llm-agent-trainin'. Did you mean")


# --------------------------------------------------------------------------- add and remove


def test_add_appends_an_entry_and_keeps_the_users_comments(stored: None, user_file: Path) -> None:
    user_file.write_text(HAND_WRITTEN, encoding="utf-8")
    result = ok(
        "topics", "add", "Agent Benchmarks", "--query", 'agent* AND "benchmark*"',
        "--category", "cs.AI", "-c", "cs.CL", "--description", "Benchmarks  for agents.",
    )  # fmt: skip
    text = user_file.read_text(encoding="utf-8")
    assert text.startswith(HAND_WRITTEN)  # every byte the user wrote is still there
    assert text[len(HAND_WRITTEN) :] == (
        "\n[[topic]]\n"
        'name = "Agent Benchmarks"\n'
        'description = "Benchmarks for agents."\n'
        "query = 'agent* AND \"benchmark*\"'\n"
        'categories = ["cs.AI", "cs.CL"]\n'
    )
    matched = papers("agent-benchmarks")
    assert matched
    assert f"{len(matched)} stored papers are in it." in result.stderr
    assert "Added the topic 'Agent Benchmarks' (agent-benchmarks) to " in result.stderr
    for paper in matched:
        assert any(w.startswith("agent") for w in words(paper))
        assert any(w.startswith("benchmark") for w in words(paper))
        assert {"cs.AI", "cs.CL"} & set(paper["categories"])
    row = {r["topic"]: r for r in data("topics", "--json")}["agent-benchmarks"]
    assert (row["source"], row["papers"]) == ("user", len(matched))


def test_messages_name_a_topic_as_it_was_written(user_file: Path) -> None:
    """repr doubled the backslash of 'Agent "Memory" \\ v2' and put "Alice's" in double
    quotes; the names are quoted as written now."""
    added = ok("topics", "add", 'Agent "Memory" \\ v2', "--query", "memory")
    assert "Added the topic 'Agent \"Memory\" \\ v2' (agent-memory-v2)" in added.stderr
    ok("topics", "add", "Alice's Topic", "--query", "memory")
    removed = ok("topics", "remove", "alice-s-topic")
    assert removed.stderr.startswith("Removed your topic 'Alice's Topic' (alice-s-topic)")


def test_add_creates_a_commented_file_that_loads(user_file: Path) -> None:
    ok("topics", "add", "Agents", "--query", "agent*")
    text = user_file.read_text(encoding="utf-8")
    assert text.startswith("# Your papertrack topics.")
    assert tomllib.loads(text) == {"topic": [{"name": "Agents", "query": "agent*"}]}


def test_a_query_with_a_syntax_error_is_refused_before_writing(user_file: Path) -> None:
    result = run("topics", "add", "Broken", "--query", "agent* AND (llm OR gpt")
    assert result.exit_code == 2
    assert result.stderr == (
        "Error: unbalanced parenthesis at column 12. Close it with ')' or remove it.\n"
    )
    assert not user_file.exists()  # not even created
    user_file.write_text(HAND_WRITTEN, encoding="utf-8")
    before = user_file.read_bytes()
    for query, column in (("agent* AND", 8), ('"open phrase', 1), ("title:author:x", 7)):
        result = run("topics", "add", "Broken", "--query", query)
        assert result.exit_code == 2, query
        assert f"at column {column}" in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
        assert user_file.read_bytes() == before


def test_add_refuses_a_taken_slug_unless_replace(stored: None, user_file: Path) -> None:
    user_file.write_text(HAND_WRITTEN, encoding="utf-8")
    before = user_file.read_bytes()
    result = run("topics", "add", "Robot Papers", "--query", "robot*")
    assert result.exit_code == 2
    assert "your topic 'Robot Papers' already has the slug 'robot-papers'" in result.stderr
    assert "--replace" in result.stderr
    result = run("topics", "add", "GUI Agents", "--query", "gui")
    assert result.exit_code == 2 and "the default topic 'GUI Agents'" in result.stderr
    clash = run("topics", "add", "benchmarks", "--query", "x", "--slug", "other-benchmarks")
    assert clash.exit_code == 2 and "two topics are named" in clash.stderr
    assert user_file.read_bytes() == before

    result = ok("topics", "add", "Robot Papers", "--query", "robot* OR robotic", "--replace")
    assert "Redefined the topic 'Robot Papers' (robot-papers) in" in result.stderr
    text = user_file.read_text(encoding="utf-8")
    # The entry is rewritten where it was; the comments around it stay.
    assert text == HAND_WRITTEN.replace(
        "name = \"Robot Papers\"   # short name\nquery = 'title:robot*'\n",
        "name = \"Robot Papers\"\nquery = 'robot* OR robotic'\n",
    )


def test_a_user_topic_with_a_defaults_slug_overrides_it(stored: None, user_file: Path) -> None:
    default_count = len(papers("gui-agents"))
    result = ok("topics", "add", "GUI Agents", "--query", "gui OR guis", "--replace")
    assert "it replaces the default topic with this slug" in result.stderr
    mine = papers("gui-agents")
    assert mine and len(mine) != default_count
    assert all({"gui", "guis"} & set(words(p)) for p in mine)
    shown = data("topics", "show", "gui-agents", "--json")
    assert (shown["source"], shown["overrides_default"]) == ("user", True)
    assert shown["file"] == str(user_file)


def test_remove_deletes_a_user_topic_and_its_tags(stored: None, user_file: Path) -> None:
    user_file.write_text(HAND_WRITTEN, encoding="utf-8")
    tagged = papers("benchmarks")
    assert tagged
    result = ok("topics", "remove", "Benchmarks")
    assert f"Removed your topic 'Benchmarks' (benchmarks) from {user_file}." in result.stderr
    assert f"{len(tagged)} stored papers had its tag." in result.stderr
    # The entry and the comment above it are gone; the rest is as the user wrote it.
    kept = HAND_WRITTEN.split("# Benchmarks of")[0].rstrip("\n") + "\n"
    assert user_file.read_text(encoding="utf-8") == kept
    assert all("benchmarks" not in p["tags"] for p in papers())
    assert "benchmarks" not in Store(user_file.parent / "store").index().counts
    assert "benchmarks" not in {r["topic"] for r in data("topics", "--json")}
    result = run("latest", "benchmarks")
    assert result.exit_code == 2 and "no topic named 'benchmarks'" in result.stderr


def test_remove_hides_a_default_and_removing_an_override_restores_it(
    stored: None, user_file: Path
) -> None:
    count = len(papers("gui-agents"))
    assert count
    ok("topics", "add", "GUI Agents", "--query", "gui", "--replace")
    result = ok("topics", "remove", "gui-agents")
    assert "The default topic 'GUI Agents' with this slug is back" in result.stderr
    assert len(papers("gui-agents")) == count  # the default's tags, recomputed
    result = ok("topics", "remove", "GUI Agents")
    assert result.stderr.startswith("Hid the default topic 'GUI Agents' (gui-agents)")
    assert tomllib.loads(user_file.read_text(encoding="utf-8"))["topic"] == [
        {"name": "GUI Agents", "slug": "gui-agents", "hidden": True}
    ]
    assert "gui-agents" not in {r["topic"] for r in data("topics", "--json")}
    assert all("gui-agents" not in p["tags"] for p in papers())
    # Adding it again replaces the hidden entry.
    ok("topics", "add", "GUI Agents", "--query", "gui")
    assert tomllib.loads(user_file.read_text(encoding="utf-8"))["topic"] == [
        {"name": "GUI Agents", "query": "gui"}
    ]


def test_remove_says_what_its_implications_took_from_other_topics(sample_home: Path) -> None:
    """Hiding agentic-rl untags the papers only its implication put in
    llm-agent-training; a teach said so of the topics it moved, a removal did not."""
    ids = {p["arxiv_id"] for p in papers("llm-agent-training")}
    result = ok("topics", "remove", "agentic-rl")
    after = {p["arxiv_id"] for p in papers("llm-agent-training")}
    assert after < ids
    assert (
        f"Through the topics' implications, LLM Agent Training (llm-agent-training): "
        f"{len(ids) - len(after)} untagged; {len(after)} stored papers in it now."
    ) in " ".join(result.stderr.split())
    # A topic nothing else is implied by moves no other.
    assert "implications" not in ok("topics", "remove", "computer-vision").stderr


def test_remove_unknown_topic_is_a_usage_error(user_file: Path) -> None:
    result = run("topics", "remove", "no such topic")
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: no topic named 'no such topic'.")
    assert not user_file.exists()


def test_authors_are_topics_too(stored: None) -> None:
    ok("topics", "add", "Weizhen Li", "--query", 'author:"Weizhen Li"')
    found = papers("weizhen-li")
    assert [p["arxiv_id"] for p in found] == [CHAIN_OF_AGENTS]
    assert "Weizhen Li" in found[0]["authors"]
    explained = data("topics", "explain", CHAIN_OF_AGENTS, "weizhen-li", "--json")
    assert explained["topics"][0]["found"] == [
        {"term": 'author:"weizhen li"', "fields": ["author"]}
    ]


# --------------------------------------------------------------------------- tags stay true


def test_a_hand_edit_is_seen_by_the_next_latest(stored: None, user_file: Path) -> None:
    user_file.write_text('[[topic]]\nname = "Mine"\nquery = "benchmark"\n', encoding="utf-8")
    first = papers("mine")
    assert first and all("benchmark" in words(p) for p in first)
    user_file.write_text('[[topic]]\nname = "Mine"\nquery = "planning"\n', encoding="utf-8")
    second = papers("mine")
    assert second and all("planning" in words(p) for p in second)
    assert {p["arxiv_id"] for p in first} != {p["arxiv_id"] for p in second}
    # Every stored paper's tag is true, not just those latest shows.
    every = papers()
    assert sum("mine" in p["tags"] for p in every) == len(second)
    assert sum("planning" in words(p) for p in every) == len(second)
    assert {r["topic"]: r["papers"] for r in data("topics", "--json")}["mine"] == len(second)
    # What the retag moved is in the log (an upgrade's models moved counts without a word).
    logged = (user_file.parent / "papertrack.log").read_text(encoding="utf-8")
    lost = len({p["arxiv_id"] for p in first} - {p["arxiv_id"] for p in second})
    assert "[latest] Retagged the stored papers for topics whose definition changed" in logged
    moved = f"mine +{len(second) - len(first) + lost} -{lost}"
    # With the topic's size before and after when it moved by half or a third: an
    # interrupted teach's catch-up said "+17 -330" where the teach says "-41%".
    assert 3 * len(second) <= 2 * len(first), (len(first), len(second))
    change = 100 * (len(second) - len(first)) / len(first)
    assert f"{moved} ({len(first):,} papers to {len(second):,}, {change:+.0f}%)." in logged


def test_what_a_retag_moved_is_said_on_a_terminal(stored: None, user_file: Path) -> None:
    """After a Ctrl-C during a teach the next command retagged for 20 s and said nothing
    of what moved: on a terminal the note is said; piped (cron) it goes to the log alone."""
    import os

    from helpers import run_in_pty

    user_file.write_text('[[topic]]\nname = "Mine"\nquery = "benchmark"\n', encoding="utf-8")
    env = {**os.environ, "PAPERTRACK_HOME": str(user_file.parent)}
    code, seen = run_in_pty("latest", "mine", "-n", "1", env=env, columns=200)
    assert code == 0, seen
    said = b" ".join(seen.split())  # as one line, however the terminal wrapped it
    assert b"Note: Retagged the stored papers for topics whose definition changed" in said
    assert b"mine +" in said
    user_file.write_text('[[topic]]\nname = "Mine"\nquery = "planning"\n', encoding="utf-8")
    piped = run("latest", "mine", "-n", "1")
    assert piped.exit_code == 0 and "Retagged" not in piped.stderr


# --------------------------------------------------------------------------- test


def test_topics_test_counts_share_weeks_and_a_reproducible_sample(stored: None) -> None:
    query = "agent* AND benchmark*"
    trial = data("topics", "test", query, "--json", "--seed", "7", "--as-of", AS_OF)
    matches = papers("--query", query)
    # --as-of counts the papers dated up to it (6 of the 186 are later).
    dated = [p for p in papers() if p["paper_date"] and p["paper_date"][:10] <= AS_OF]
    counted = [p for p in matches if p["paper_date"] and p["paper_date"][:10] <= AS_OF]
    assert trial["matches"] == len(counted) > 5
    assert trial["total"] == len(dated) == 180 and len(papers()) == 186
    assert trial["share"] == pytest.approx(len(counted) / 180)
    assert trial["topic"] is None and trial["query"] == query
    weeks = trial["weeks"]
    assert len(weeks) == 12
    starts = [date.fromisoformat(w["week_start"]) for w in weeks]
    assert all(d.weekday() == 0 for d in starts)
    assert starts[-1] == date(2025, 8, 25) and starts == sorted(starts)
    in_series = [p for p in matches if starts[0].isoformat() <= p["paper_date"][:10] <= AS_OF]
    assert sum(w["count"] or 0 for w in weeks) == len(in_series)
    # A week the store holds nothing of is no data, as in momentum, not zero matches.
    for week in weeks:
        assert week["no_data"] == (week["total"] == 0)
        assert (week["count"] is None) == week["no_data"]
    assert any(w["no_data"] for w in weeks) and not all(w["no_data"] for w in weeks)
    table = run("topics", "test", query, "--as-of", AS_OF).stdout
    assert table.count("no data") == sum(w["no_data"] for w in weeks)
    aug18 = next(w for w in weeks if w["week_start"] == "2025-08-18")
    assert aug18["total"] == sum(
        "2025-08-18" <= p["paper_date"][:10] <= "2025-08-24" for p in papers()
    )
    assert aug18["total"] >= 86  # the listing's day
    assert trial["recent"] == sum(
        (date.fromisoformat(AS_OF) - timedelta(days=27)).isoformat() <= p["paper_date"][:10]
        for p in matches
    )
    ids = {p["arxiv_id"] for p in matches}
    sample = [p["arxiv_id"] for p in trial["sample"]]
    assert len(sample) == 5 and set(sample) <= ids
    again = data("topics", "test", query, "--json", "--seed", "7", "--as-of", AS_OF)
    assert [p["arxiv_id"] for p in again["sample"]] == sample
    others = {
        tuple(p["arxiv_id"] for p in data("topics", "test", query, "--json", "--seed", s)["sample"])
        for s in ("1", "2", "3", "4")
    }
    assert len(others | {tuple(sample)}) > 1
    everything = data("topics", "test", query, "--json", "--sample", "1000")
    assert {p["arxiv_id"] for p in everything["sample"]} == ids
    # Without --as-of, a store that is behind is counted as of its newest paper's day,
    # as 'topics' counts it (it said "0 in the last 4 weeks (to <today>)").
    assert everything["as_of"] == max(p["paper_date"][:10] for p in papers())
    # An earlier --as-of counts and samples the papers dated up to it, as 'topics
    # list --as-of' does: it counted the whole store, and sampled later papers.
    broad = "model*"
    every = papers("--query", broad)
    days = sorted({p["paper_date"][:10] for p in every if p["paper_date"]})
    early = days[-2]
    before = data("topics", "test", broad, "--json", "--sample", "1000", "--as-of", early)
    dated = [p for p in papers() if p["paper_date"] and p["paper_date"][:10] <= early]
    kept = {p["arxiv_id"] for p in every if p["paper_date"] and p["paper_date"][:10] <= early}
    assert 0 < len(kept) < len(every) and 0 < len(dated) < len(papers())
    assert before["matches"] == len(kept) and before["total"] == len(dated)
    assert before["dated_to_as_of"] is True
    assert {p["arxiv_id"] for p in before["sample"]} == kept
    shown = run("topics", "test", broad, "--as-of", early, "--sample", "0").stdout
    assert f"{len(kept)} of {len(dated)} stored papers dated up to {early} match" in shown


def test_topics_test_a_saved_topic_and_the_table(stored: None) -> None:
    trial = data("topics", "test", "LLM Agent Training", "--json", "--as-of", AS_OF)
    assert trial["topic"] == "llm-agent-training"
    assert trial["matches"] == len(papers("llm-agent-training"))
    table = ok("topics", "test", "agent* AND benchmark*", "--seed", "7", "--as-of", AS_OF)
    assert "Query: agent* AND benchmark*" in table.stdout
    matches = len(papers("--query", "agent* AND benchmark*"))
    said = f"{matches} of 180 stored papers dated up to {AS_OF} match ({100 * matches / 180:.2f}%)"
    assert said in table.stdout
    assert "Aug 18, 2025" in table.stdout and "Sample: 5 of" in table.stdout
    assert "(--seed 7)" in table.stdout
    # A last week that is not over is said to be, as momentum says it.
    assert "so far" not in table.stdout and "Aug 25, 2025" in table.stdout  # to a Sunday
    wednesday = ok("topics", "test", "agent*", "--as-of", "2025-08-27").stdout
    assert re.search(r"│ Aug 25, 2025 \(so far\) +│", wednesday)
    assert wednesday.count("so far") == 1


def test_topics_test_tells_no_data_and_empty_weeks_as_momentum_and_topics_list(
    stored: None,
) -> None:
    """topics test said "0 in the last 4 weeks" where topics list said "no data", a
    Monday's week "no data" where momentum said zero so far, and "No papers in the
    store yet. Run 'papertrack ingest'" as of a day before the first paper."""
    ahead = (date.today() + timedelta(days=400)).isoformat()
    slug = "llm-agent-training"
    # 2025-08-25: a Monday after the listing's week; 2001-03-16: before the first paper.
    for day in ("2025-08-25", "2025-08-27", "2001-03-16", ahead):
        result = ok("topics", "test", slug, "--json", "--sample", "0", "--as-of", day)
        trial = json.loads(result.stdout)
        measured = data("momentum", slug, "--json", "--as-of", day, "--weeks", "12")
        # Its weeks are momentum's: the same keys, and but for the count (the
        # query's matches, not the stored tags) the same values.
        assert [{**w, "count": 0} for w in trial["weeks"]] == [
            {**w, "count": 0} for w in measured["weeks"]
        ], day
        listed = {t["topic"]: t for t in data("topics", "list", "--json", "--as-of", day)}
        assert trial["recent"] == listed[slug]["last_4_weeks"], day
        if measured["coverage"]["current"]:
            assert trial["recent"] == measured["current"], day
        else:  # momentum: "No data for the last four weeks"
            assert trial["recent"] is None, day
        assert "No papers in the store yet" not in result.stderr, day
    monday = data("topics", "test", "agent*", "--json", "--sample", "0", "--as-of", "2025-08-25")
    assert monday["weeks"][-1] == {
        "week_start": "2025-08-25",
        "count": 0,
        "total": 0,
        "no_data": False,
        "complete": False,
        "in_current_window": True,
    }

    early = run("topics", "test", "agent*", "--sample", "0", "--as-of", "2001-03-16")
    assert early.exit_code == 0
    assert "no data for the last 4 weeks" in early.stdout
    assert "Note: no stored paper is dated up to Mar 16, 2001 (the first is from" in early.stderr
    assert data("topics", "test", "agent*", "--json", "--as-of", ahead)["recent"] is None


def test_topics_test_with_categories_and_errors(stored: None) -> None:
    query = "agent*"
    every = data("topics", "test", query, "--json")["matches"]
    narrowed = data("topics", "test", query, "-c", "cs.CL", "--json")
    assert 0 < narrowed["matches"] < every
    assert narrowed["matches"] == len(papers("--query", query, "--category", "cs.CL"))
    bad = run("topics", "test", "agent* OR")
    assert bad.exit_code == 2
    assert "Error: operator OR at column 8 has nothing after it" in bad.stderr


# --------------------------------------------------------------------------- explain


def test_explain_a_paper_lists_its_topics_terms_and_fields(stored: None) -> None:
    stored_paper = next(p for p in papers() if p["arxiv_id"] == CHAIN_OF_AGENTS)
    result = data("topics", "explain", CHAIN_OF_AGENTS, "--json")
    assert result["arxiv_id"] == CHAIN_OF_AGENTS
    assert [t["topic"] for t in result["topics"]] == stored_paper["tags"]
    training = result["topics"][0]
    assert training["topic"] == "llm-agent-training" and training["matched"] is True
    found = {h["term"]: h["fields"] for h in training["found"]}
    assert found["agent*"] == ["title", "abstract"]
    assert found['"agentic rl"'] == ["title", "abstract"]
    assert found["title:distill*"] == ["title"]
    for form in (f"{CHAIN_OF_AGENTS}v2", f"arXiv:{CHAIN_OF_AGENTS}",
                 f"https://arxiv.org/abs/{CHAIN_OF_AGENTS}v1",
                 f"https://arxiv.org/pdf/{CHAIN_OF_AGENTS}"):  # fmt: skip
        assert data("topics", "explain", form, "--json") == result
    table = ok("topics", "explain", CHAIN_OF_AGENTS).stdout
    assert f"Matches {len(stored_paper['tags'])} topics" in table
    assert "Chain-of-Agents" in table and "title, abstract" in table


def test_explain_a_paper_says_what_put_it_in_each_topic(stored: None) -> None:
    """The terms a topic's query found are not why a paper is in it when its model
    decided and the query does not match: each topic says what put the paper in."""
    seen: set[str] = set()
    for paper in papers():
        if not paper["tags"]:
            continue
        topics = data("topics", "explain", paper["arxiv_id"], "--json")["topics"]
        names = {item["topic"]: item["name"] for item in data("topics", "--json")}
        kinds = {}
        for item in topics:
            fired = bool(item["model"] and item["model"]["fired"])
            if item["implied_by"] and not (fired or item["query_matched"]):
                # Slugs in JSON, as every JSON output names topics; names in the table.
                shown = [names[slug] for slug in item["implied_by"]]
                kinds["implied"] = "in: implied by " + ", ".join(shown)
            elif item["decide"] == "model" and fired and not item["query_matched"]:
                kinds["model alone"] = "in by its model; its query does not match"
            elif item["decide"] == "model" and fired:
                kinds["model and query"] = "in by its model; its query matches too"
        if not kinds.keys() - seen:
            continue
        table = ok("topics", "explain", paper["arxiv_id"]).stdout
        flat = " ".join(table.replace("│", " ").split())
        for kind, why in kinds.items():
            assert why in flat, (paper["arxiv_id"], kind, flat)
            seen.add(kind)
        if {"model alone", "model and query"} <= seen:
            break
    assert {"model alone", "model and query"} <= seen


def test_explain_why_a_paper_is_not_in_a_topic(stored: None) -> None:
    assert BROWSECOMP not in {p["arxiv_id"] for p in papers("llm-agent-training")}
    result = data("topics", "explain", BROWSECOMP, "llm-agent-training", "--json")
    why = result["topics"][0]
    assert why["matched"] is False
    met = [c["met"] for c in why["conditions"]]
    assert met == [False, True, False]  # no LLM term; agent*; no training signal
    assert why["conditions"][0]["found"] == []
    assert why["conditions"][1]["found"] == [{"term": "agent*", "fields": ["title", "abstract"]}]
    # The topic decides by its model (and maybe its query): each says no, and why.
    assert why["decide"] in ("model", "either") and why["query_matched"] is False
    model = why["model"]
    assert model["fired"] is False and model["score"] < model["threshold"]
    assert model["up"] and model["down"]  # the words that pushed the score either way
    assert why["reasons"][0].startswith("its model scores the paper")
    assert why["reasons"][1].startswith("nothing of llm OR llms OR")
    assert len(why["reasons"]) == 3
    table = ok("topics", "explain", BROWSECOMP, "llm-agent-training").stdout
    assert f"{BROWSECOMP} is not in LLM Agent Training (llm-agent-training)." in table
    assert "Pushed up" in table and "Pushed down" in table and "threshold" in table
    assert "Why not:" in table
    # A matching paper, asked about one topic: every condition met.
    yes = data("topics", "explain", CHAIN_OF_AGENTS, "llm-agent-training", "--json")
    assert yes["topics"][0]["matched"] is True
    assert all(c["met"] for c in yes["topics"][0]["conditions"])


def test_explain_a_failed_category_filter(stored: None) -> None:
    ok("topics", "add", "Vision Agents", "--query", "agent*", "--category", "cs.CV")
    result = data("topics", "explain", CHAIN_OF_AGENTS, "vision-agents", "--json")
    why = result["topics"][0]
    assert why["matched"] is False
    assert [(c["kind"], c["met"]) for c in why["conditions"]] == [
        ("categories", False),
        ("requires", True),
    ]
    assert why["reasons"] == ["the topic needs a category among cs.CV; the paper has cs.AI, cs.CL"]


def test_explain_unknown_or_malformed_ids() -> None:
    ok("ingest", str(LISTING))
    result = run("topics", "explain", "2508.99999")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: no paper 2508.99999 in the store. ")
    result = run("topics", "explain", "not-an-id")
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: 'not-an-id' is not an arXiv id")


# --------------------------------------------------------------------------- latest --query


def test_latest_query_is_newest_first_and_stops_at_the_limit(stored: None) -> None:
    every = papers("--query", "agent*")
    assert len(every) > 20
    assert all(any(w.startswith("agent") for w in words(p)) for p in every)
    assert sum(any(w.startswith("agent") for w in words(p)) for p in papers()) == len(every)
    keys = [(p["paper_date"], p["arxiv_id"]) for p in every]
    assert keys == sorted(keys, reverse=True)
    five = data("latest", "--query", "agent*", "-n", "5", "--json")
    assert five == every[:5]
    # With a topic: the topic's papers that also match.
    both = papers("llm-agent-training", "--query", "title:distill*")
    assert [p["arxiv_id"] for p in both] == [CHAIN_OF_AGENTS]
    table = ok("latest", "--query", "agent*  AND\nbenchmark*", "-n", "2").stdout
    assert table.splitlines()[0].strip() == "Query: agent* AND benchmark* — latest papers"
    header = ok("latest", "llm-agent-training", "--query", "rl").stdout.splitlines()[0]
    assert header.strip() == "LLM Agent Training, query: rl — latest papers"


def test_latest_query_errors_and_empty_results(stored: None) -> None:
    result = run("latest", "--query", "agent* AND (benchmark")
    assert result.exit_code == 2
    assert result.stderr == (
        "Error: unbalanced parenthesis at column 12. Close it with ')' or remove it.\n"
    )
    empty = run("latest", "--query", "zyzzyva", "--json")
    assert empty.exit_code == 0 and empty.stdout.strip() == "[]"
    assert "No papers match" in empty.stderr


# --------------------------------------------------------------------------- help


@pytest.mark.parametrize("command", ["list", "show", "add", "remove", "test", "explain"])
def test_every_topics_command_has_help_with_an_example_and_is_documented(command: str) -> None:
    result = ok("topics", command, "--help")
    assert f"papertrack topics {command}" in result.stdout
    assert "Examples:" in result.stdout
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    assert f"papertrack topics {command}" in readme


def test_topics_count_the_last_weeks_of_a_store_that_is_behind(sample_home: Path) -> None:
    """As momentum does: a store whose newest paper is weeks old (the bundled sample)
    is counted as of that paper's day, and says so, unless --as-of is given."""
    listed = run("topics", "--json")
    assert listed.exit_code == 0, listed.stderr
    assert "Note: the newest paper in the store is from Jun 26, 2026" in listed.stderr
    rows = {row["topic"]: row for row in json.loads(listed.stdout)}
    assert 0 < rows["llm-agent-training"]["last_4_weeks"] < rows["llm-agent-training"]["papers"]
    # A script reads which 28 days were counted from the rows, not from stderr.
    assert {row["as_of"] for row in rows.values()} == {"2026-06-26"}
    shown = json.loads(run("topics", "show", "llm-agent-training", "--json").stdout)
    assert shown["last_4_weeks"] == rows["llm-agent-training"]["last_4_weeks"]
    assert shown["as_of"] == "2026-06-26"
    momentum = json.loads(run("momentum", "llm-agent-training", "--json").stdout)
    assert momentum["current"] == rows["llm-agent-training"]["last_4_weeks"]
    # 28 days the store holds no paper of are no data, never zero, as momentum says.
    today = json.loads(run("topics", "--json", "--as-of", "2026-12-01").stdout)
    assert {row["last_4_weeks"] for row in today} == {None}
    assert "no data" in run("topics", "--as-of", "2026-12-01").stdout
    shown = run("topics", "show", "gui-agents", "--as-of", "2026-12-01").stdout
    assert "no data for the last 4 weeks" in " ".join(shown.split())
    momentum = json.loads(run("momentum", "gui-agents", "--as-of", "2026-12-01", "--json").stdout)
    assert momentum["windows"]["current"]["covered_days"] == 0


def test_no_store_yet_is_no_data_for_the_last_four_weeks(isolated_home: Path) -> None:
    """It read 0 where momentum said "no data": a script could not tell "none lately"
    from "nothing stored"."""
    rows = data("topics", "--json")
    assert rows and all(r["papers"] == 0 and r["last_4_weeks"] is None for r in rows)
    shown = data("topics", "show", "gui-agents", "--json")
    assert shown["last_4_weeks"] is None
    assert "no data" in ok("topics").stdout
    assert not (isolated_home / "store").exists()


def test_a_hidden_default_topic_is_named_as_hidden_not_unknown(isolated_home: Path) -> None:
    ok("topics", "remove", "terminal-agents")
    for name in ("terminal-agents", "Terminal Agents"):
        result = run("latest", name)
        assert result.exit_code == 2
        assert result.stderr.splitlines() == [
            "Error: the default topic 'Terminal Agents' (terminal-agents) is hidden: your "
            "topics file says 'hidden = true' for it. Delete that entry to bring it back "
            "('papertrack path' shows where the file is)."
        ]
    assert "no topic named 'terminal-agent'" in run("latest", "terminal-agent").stderr
    # topics test ran its name as a phrase query, exit 0, with no word.
    for name in ("terminal-agents", "Terminal Agents"):
        tried = run("topics", "test", name, "--json")
        assert tried.exit_code == 2 and tried.stdout == ""
        assert "is hidden" in tried.stderr


def test_the_topic_pages_ask_line_runs_in_a_shell_whatever_the_name(
    isolated_home: Path,
) -> None:
    import shlex

    ok("topics", "add", "Bob's Agents", "--query", "agent*")
    page = json.loads(ok("topic", "bob-s-agents", "--json").stdout)
    assert shlex.split(page["ask"]) == [
        "papertrack",
        "ask",
        "bob-s-agents",
        "what is new in Bob's Agents?",
    ]


def test_explain_finds_a_paper_of_another_feed_by_its_own_key(tmp_path: Path) -> None:
    """A feed's key that looks like an id people copy (arXiv's DOI) is tried as typed
    first, as show does: explain read it as 2501.99999 and found nothing."""
    key = "https://doi.org/10.48550/arXiv.2501.99999"
    feed = tmp_path / "other.xml"
    feed.write_text(
        '<?xml version="1.0"?><rss version="2.0"><channel><title>Other</title>'
        f"<item><title>Agents that train agents</title><guid>{key}</guid>"
        "<description>We train LLM agents with reinforcement learning.</description>"
        "<pubDate>Mon, 06 Jan 2025 10:00:00 GMT</pubDate></item></channel></rss>",
        encoding="utf-8",
    )
    ok("ingest", str(feed))
    assert json.loads(ok("show", key, "--json").stdout)["arxiv_id"] == key
    explained = ok("topics", "explain", key, "--json")
    assert json.loads(explained.stdout)["arxiv_id"] == key


def test_options_before_a_subcommand_are_refused_not_ignored(isolated_home: Path) -> None:
    """`topics --json list` printed a table, and `topics --as-of D show T` counted to
    today: the options were the group's, which only a bare `topics` reads."""
    from tests.helpers import error_line

    for args, option, sub in (
        (["--json", "list"], "--json", "list"),
        (["--as-of", "2026-03-01", "show", "gui-agents"], "--as-of", "show"),
        (["-f", "json", "show", "gui-agents"], "--format", "show"),
    ):
        result = run("topics", *args)
        error_line(result, 2, f"{option} belongs to the subcommand: write it after 'topics {sub}'")
        assert result.stdout == ""
    # A subcommand without that option is not told to take it.
    error_line(
        run("topics", "--json", "remove", "gui-agents"), 2, "'topics remove' takes no --json"
    )
    listed = run("topics", "--json")
    assert listed.exit_code == 0 and json.loads(listed.stdout)


def test_lower_case_operators_and_a_mistyped_topic_name_are_pointed_out(stored: None) -> None:
    # Both are read as words to match: the answer looks right and is not what was meant.
    for args in (
        ["search", "agent or benchmark"],
        ["latest", "--query", "agent and not web"],
        ["export", "-f", "jsonl", "--query", "agent Or web"],
        ["topics", "test", "agent or web"],
    ):
        result = run(*args)
        assert result.exit_code == 0, (args, result.stderr)
        (note,) = [line for line in result.stderr.splitlines() if line.startswith("Note: '")]
        assert "to match; operators are written in capitals:" in note, args
    capitals = run("search", "agent OR benchmark")
    assert "operators are written" not in capitals.stderr
    # C++ is matched as "c", and so finds "Hepatitis C": the note says why.
    for args in (["search", "C++ OR agent"], ["latest", "--query", '"F# code" OR agent']):
        result = run(*args)
        assert result.exit_code == 0, (args, result.stderr)
        name, word = ("C++", "c") if "C++" in args[-1] else ("F#", "f")
        assert f"Note: '{name}' is matched as the word '{word}'" in result.stderr
    assert "is matched as the word" not in run("search", "A+ grade OR Cpp").stderr
    # '#' starts a comment, for topics.toml: typed on one line it took the rest of the
    # query with it, while the header showed the whole query.
    commented = run("search", "robot #1 OR agent", "--json")
    assert commented.exit_code == 0, commented.stderr
    assert "Note: '#1 OR agent' is a comment ('#' runs to the end of the line)" in (
        commented.stderr
    )
    assert json.loads(commented.stdout) == json.loads(run("search", "robot", "--json").stdout)
    assert "is a comment" not in run("search", '"#1" OR agent').stderr
    error_line(run("search", "#MeToo"), 2, "empty query (all of it is a comment")
    mistyped = run("topics", "test", "gui-agent", "--json")
    assert mistyped.exit_code == 0
    assert "Note: no topic is named 'gui-agent', so it is tried as a query." in mistyped.stderr
    assert "Did you mean: GUI Agents (gui-agents)" in mistyped.stderr
    assert "no topic is named" not in run("topics", "test", "gui-agents", "--json").stderr
    # Words that are no query either get their error alone, not the note first.
    for broken in ("gui agent AND", "agent OR OR llm", "agent NOT"):
        said = run("topics", "test", broken)
        assert said.exit_code == 2 and len(said.stderr.splitlines()) == 1, said.stderr
        assert said.stderr.startswith("Error: operator ")
    # A category name as a bare word is the words "cs ai": said, with the field.
    bare = run("search", "agent* AND cs.AI")
    assert "Note: 'cs.AI' is matched as words of titles and abstracts; to match papers in " in (
        bare.stderr
    )
    assert "category:cs.AI" in bare.stderr
    assert "is matched as words" not in run("search", "agent* AND category:cs.AI").stderr
    assert "is matched as words" not in run("search", "agent* AND astro.ai").stderr
    # A name that is also words: the topic is tested, and how to test the words is said.
    named = run("topics", "test", "gui agents", "--json")
    assert (
        "Note: 'gui agents' names the topic GUI Agents (gui-agents), which is tested. To "
        "test the words as a query, put them in parentheses: '(gui agents)'."
    ) in " ".join(named.stderr.split())
    words = data("topics", "test", "(gui agents)", "--json")
    assert words["matches"] == len(papers("--query", "gui agents"))
    assert "names the topic" not in run("topics", "test", "gui-agents", "--json").stderr


def test_counts_of_one_are_written_in_the_singular(stored: None) -> None:
    first = data("latest", "-n", "1", "--json")[0]
    title = " ".join(first["title"].split())
    added = run("topics", "add", "Just One", "--query", f'title:"{title}"')
    assert added.exit_code == 0, added.stderr
    assert ". 1 stored paper is in it.\n" in added.stderr


def test_a_query_starting_with_a_dash_and_an_empty_field_get_a_fix_that_works(
    stored: None,
) -> None:
    from helpers import error_line

    for command, option in ((["search"], ["-n", "1"]), (["topics", "test"], ["--sample", "1"])):
        shown = " ".join(command)
        line = error_line(run(*command, "-agent"), 2, "No such option: -a")
        fix = "If '-agent' is part of the query, put it after '--' (options before it): "
        assert f"{fix}papertrack {shown} -- -agent." in line
        assert run(*command, "--", "-agent").exit_code == 0
        # Options typed after the query go before '--' in the fix, which then runs.
        line = error_line(run(*command, "-agent", *option), 2)
        assert f"{fix}papertrack {shown} {' '.join(option)} -- -agent." in line
        assert run(*command, *option, "--", "-agent").exit_code == 0
    # An option that is no query gets no word about queries.
    assert "goes after" not in run("latest", "-x").stderr
    line = error_line(run("search", "category:"), 2, "has no term after it")
    assert "category:cs.AI or category:(cs.AI OR cs.CL)" in line
    assert run("search", "category:cs.AI OR category:(cs.AI OR cs.CL)").exit_code == 0


def test_a_topics_own_tag_leads_its_papers_tags_on_its_own_pages(sample_home: Path) -> None:
    """The table shows four tags in catalog order: a topic of the user's own, last in
    it, was hidden in "+2" on its own page."""
    ok("topics", "add", "Zq Agents", "--query", "title:agent* AND reinforcement")
    found = papers("zq-agents")
    assert any(len(p["tags"]) > 4 for p in found)  # the case that hid it
    for args in (("latest", "zq-agents", "-n", "100"), ("topic", "zq-agents", "-n", "100")):
        text = ok(*args).stdout
        rows = [line for line in text.splitlines() if re.match(r"│ \w{3} \d", line)]
        assert len(rows) == min(100, len(found)), args
        assert all("Zq" in row for row in rows), args
    # Scripts get the tags as stored.
    assert [p["tags"] for p in papers("zq-agents")] == [p["tags"] for p in found]


def test_topics_as_of_a_day_counts_the_papers_the_topic_page_counts(sample_home: Path) -> None:
    """At the same --as-of, topics said 1,766 papers and the topic page 1,724: the
    list counted every stored paper, the page those dated up to the day."""
    day = "2026-06-22"
    rows = {r["topic"]: r for r in data("topics", "--as-of", day, "--json")}
    for slug in ("llm-agent-training", "gui-agents"):
        page = data("topic", slug, "--as-of", day, "--json")
        assert rows[slug]["papers"] == page["papers_total"]
        dated = [p for p in papers(slug) if (p["paper_date"] or "")[:10] <= day]
        assert page["papers_total"] == len(dated) < len(papers(slug))
        assert data("topics", "show", slug, "--as-of", day, "--json")["papers"] == len(dated)
    # Without --as-of, every stored paper, as before.
    assert {r["topic"]: r["papers"] for r in data("topics", "--json")}["gui-agents"] == len(
        papers("gui-agents")
    )


BROKEN_BY_HAND = """[[topic]]
name = "Broken multi"
query = '''
agent*   # agents
AND (llm OR gpt   # models
AND NOT title:survey
'''
"""


def test_an_entry_broken_by_hand_is_named_by_line_and_blocks_no_other_edit(
    stored: None, user_file: Path
) -> None:
    user_file.write_text(BROKEN_BY_HAND, encoding="utf-8")
    listed = ok("topics")
    # Column 23 counted across the query's lines; the '(' is on its line 2, column 5.
    assert "unbalanced parenthesis at line 2, column 5 of its query" in listed.stderr
    # Another topic can be added (it was refused with the broken entry's error) ...
    added = ok("topics", "add", "Q Other", "--query", "agent*")
    assert "q-other" in {r["topic"] for r in data("topics", "--json")}
    assert "Broken multi" in user_file.read_text(encoding="utf-8")  # left to its owner
    assert "Added the topic 'Q Other'" in added.stderr
    # ... but not one broken by the edit itself.
    refused = run("topics", "add", "Q Bad", "--query", "agent*", "-c", "cs..AI")
    assert refused.exit_code == 2 and "Broken multi" not in refused.stderr
    # And the broken one can be removed by its name.
    removed = ok("topics", "remove", "Broken multi")
    assert "Removed your topic 'Broken multi'" in removed.stderr
    assert "Broken multi" not in user_file.read_text(encoding="utf-8")
    assert "skipped" not in ok("topics").stderr


def test_a_slug_defined_twice_is_named_and_its_second_entry_removed_by_its_name(
    isolated_home: Path,
) -> None:
    """With a second entry repeating a slug, `topics remove NAME-OF-THE-SECOND` said "no
    topic named", `topics remove SLUG` took the first, good entry away and called the
    broken copy "the default topic ... is back", and the warning named neither entry."""
    topics = isolated_home / "topics.toml"
    assert run("topics", "add", "World Mine", "--query", '"world model*"').exit_code == 0
    with topics.open("a", encoding="utf-8") as file:
        file.write('\n[[topic]]\nname = "Typo Copy"\nslug = "world-mine"\nquery = "x"\n')
    listed = run("topics", "list")
    warning = " ".join(listed.stderr.split())
    assert "defines the topic 'world-mine' twice, as 'World Mine' and then as 'Typo Copy'" in (
        warning
    )
    assert "'papertrack topics remove Typo Copy' removes the second" in warning
    assert "the second is skipped" in warning
    removed = run("topics", "remove", "typo  copy")
    assert removed.exit_code == 0, removed.stderr
    text = topics.read_text(encoding="utf-8")
    assert "Typo Copy" not in text and 'name = "World Mine"' in text
    assert data("topics", "show", "world-mine", "--json")["name"] == "World Mine"
    # The slug removes the topic in use; the other entry is then the topic, said so.
    with topics.open("a", encoding="utf-8") as file:
        file.write('\n[[topic]]\nname = "Typo Copy"\nslug = "world-mine"\nquery = "x"\n')
    first = run("topics", "remove", "world-mine")
    said = " ".join(first.stderr.split()) + " ".join(first.stdout.split())
    assert "Your other entry with this slug, 'Typo Copy', is the topic now" in said, said
    assert "default topic" not in said
    assert data("topics", "show", "world-mine", "--json")["name"] == "Typo Copy"


def test_a_topics_file_that_cannot_be_read_does_not_stop_ingest(sample_home: Path) -> None:
    """A half-saved topics.toml stopped every cron fetch until it was fixed, and a
    listing not fetched on its night is not in the next one. The papers are stored,
    tagged by the default topics, and the first command after the fix retags them:
    every stored tag and count is then what the user's topics give."""
    from papertrack.topics import Catalog

    user = sample_home / "topics.toml"
    good = (
        '[[topic]]\nname = "Memory"\nquery = "memory"\n\n'
        '[[topic]]\nname = "GUI Agents"\nhidden = true\n\n'
        '[[topic]]\nname = "Knowledge Distillation"\nquery = "distill* AND student*"\n'
    )
    user.write_text(good)
    ok("topics", "list")  # the store retagged by the user's topics
    store = Store(sample_home / "store")
    before = store.index().fingerprints
    user.write_text(good.replace("[[topic]]", "[[topic]", 1))

    new = [
        ("Episodic memory for GUI agents", "A GUI agent clicks through apps with a memory."),
        ("Distilling a student from a teacher", "Knowledge distillation into a student model."),
        ("Training LLM agents with RL", "We train LLM agents by reinforcement learning."),
        ("A survey of sorting", "Sorting numbers fast."),
    ]
    feed = sample_home.parent / "new.jsonl"
    feed.write_text(
        "".join(
            kaggle_line(f"2608.{n:05d}", title, abstract=abstract) + "\n"
            for n, (title, abstract) in enumerate(new, 1)
        )
    )
    result = run("ingest", "-q", str(feed))
    assert result.exit_code == 0, result.stderr
    no_traceback(result)
    warning = [line for line in result.stderr.splitlines() if line.startswith("Warning: ")]
    assert len(warning) == 1 and f"{user} is not valid TOML" in warning[0], result.stderr
    assert "new papers are stored with the default topics' tags" in warning[0]
    store = Store(sample_home / "store")
    stored = {p.arxiv_id: p for w in store.weeks() for p in store.read_partition(w)}
    assert len(stored) == 4_802 + len(new)
    assert "memory" not in stored["2608.00001"].tags  # tagged by the defaults for now
    # The stand-in retagged nothing: no stored paper lost the user's own topic.
    assert sum("memory" in p.tags for p in stored.values()) > 0
    # What the stand-in may tag otherwise is marked for a retag; the rest is kept.
    marked = store.index().fingerprints
    assert {s for s, f in marked.items() if not f} >= {
        "memory",
        "gui-agents",
        "knowledge-distillation",
    }
    assert all(marked[s] == f for s, f in before.items() if marked.get(s) != "")
    error_line(run("latest"), 2, "is not valid TOML")  # readers still stop

    user.write_text(good)
    ok("topics", "list")
    store, catalog = Store(sample_home / "store"), Catalog.of_home()
    papers = [p for w in store.weeks() for p in store.read_partition(w)]
    assert len(papers) == 4_802 + len(new)
    assert "memory" in next(p for p in papers if p.arxiv_id == "2608.00001").tags
    wrong = [p.arxiv_id for p in papers if p.tags != catalog.tag(p)]
    assert not wrong, wrong[:5]
    assert store.index().fingerprints == catalog.fingerprints()
    counts = store.index().counts
    for slug in ("memory", "knowledge-distillation", "llm-agent-training"):
        assert sum(counts.get(slug, {}).values()) == sum(slug in p.tags for p in papers), slug
    assert "gui-agents" not in counts and not any("gui-agents" in p.tags for p in papers)

    # Fetched again while the file is broken, stored papers are unchanged: their tags
    # are not the stand-in's to change (they were all "updated", and rewritten).
    user.write_text(good.replace("[[topic]]", "[[topic]", 1))
    (sample_home / "models").mkdir(exist_ok=True)
    (sample_home / "models" / "gui-agents.json").write_text("{")  # a damaged taught model
    again = run("ingest", str(feed))
    assert again.exit_code == 0, again.stderr
    assert "0 new, 0 updated, 4 unchanged" in again.stderr
    # One warning: the stand-in's own (the defaults' taught models) speak of no file of yours.
    assert sum(line.startswith("Warning: ") for line in again.stderr.splitlines()) == 1
    kept = Store(sample_home / "store").get("2608.00001")
    assert kept is not None and "memory" in kept.tags


def test_a_topics_file_that_links_to_nothing_is_not_read_as_no_file(sample_home: Path) -> None:
    """A topics.toml that is a link to a file not there was read as no file: every
    topic of yours was gone and the defaults you hid were back, and an ingest took
    their tags off every stored paper."""
    user = sample_home / "topics.toml"
    user.write_text('[[topic]]\nname = "Memory"\nquery = "memory"\n')
    ok("topics", "list")
    holding = _holding(Store(sample_home / "store"), "memory")
    assert holding
    user.unlink()
    user.symlink_to(sample_home / "gone.toml")
    error_line(run("latest", "memory"), 2, "topics.toml links to", "which is not there")
    result = run(
        "ingest",
        str(Path(__file__).parent / "data" / "rss-derived" / "rss20-cs.AI-2025-08-20.6items.xml"),
    )
    assert result.exit_code == 0 and "which is not there" in result.stderr
    assert _holding(Store(sample_home / "store"), "memory") == holding


def test_a_long_ingest_does_not_undo_a_topic_added_while_it_runs(sample_home: Path) -> None:
    """A fetch reads the topics at its start. A topic added (or taught) while it ran
    was retagged back at its next batch: the new topic lost every tag until the
    next command, and each command and each batch retagged the store in turn. The
    writer now leaves such topics to the next command that reads the topics."""
    from papertrack.cli.common import load_catalog
    from papertrack.models import Paper
    from papertrack.topics import Catalog

    store = Store(sample_home / "store")
    ok("latest", "-n", "1")  # the store tagged for the topics as they are
    old = load_catalog()
    with store.writer(old) as fetch:  # a long fetch, reading its topics here
        added = ok("topics", "add", "Zebras", "--query", "agent* AND memory")
        tagged = _holding(Store(sample_home / "store"), "zebras")
        assert len(tagged) > 10, added.stderr
        fresh = Paper(
            arxiv_id="2608.00001",
            title="Memory for LLM agents",
            abstract="An agent with memory.",
            published=datetime(2026, 6, 30, tzinfo=UTC),
        )
        fetch.upsert([fresh])  # its next batch
    with store.writer(old) as page:  # fetch makes a writer a page, with its first topics
        page.upsert([fresh.with_tags(())])
    store = Store(sample_home / "store")
    assert _holding(store, "zebras") == tagged  # not retagged back to the fetch's topics
    assert store.index().fingerprints["zebras"] == ""  # left to the next command
    ok("latest", "zebras", "-n", "1")
    store, catalog = Store(sample_home / "store"), Catalog.of_home()
    papers = [p for w in store.weeks() for p in store.read_partition(w)]
    assert [p.arxiv_id for p in papers if p.tags != catalog.tag(p)] == []
    assert "zebras" in next(p for p in papers if p.arxiv_id == "2608.00001").tags
    assert store.index().fingerprints == catalog.fingerprints()


def _holding(store: Store, slug: str) -> set[str]:
    """The ids of the stored papers tagged ``slug``."""
    return {p.arxiv_id for w in store.weeks() for p in store.read_partition(w) if slug in p.tags}


def test_topics_newer_than_the_stored_tags_are_retagged_whatever_wrote_last(
    sample_home: Path,
) -> None:
    """Whether a writer's topics are older than the stored tags is told by when the
    topics were read, not by when index.json was written: a writer's own rebuild
    after a killed write, or an older ingest's batch while a newer command waited
    for the lock, left topics edited by hand untagged (doctor --repair too)."""
    from papertrack.cli.common import load_catalog
    from papertrack.models import Paper
    from papertrack.topics import Catalog

    user = sample_home / "topics.toml"
    ok("latest", "-n", "1")
    older = load_catalog()  # an ingest's topics, read before the edit
    user.write_text('[[topic]]\nname = "Memory"\nquery = "memory"\n')
    store = Store(sample_home / "store")
    with store.writer(load_catalog()) as newer:  # a command that waits for the lock...
        with store.writer(older) as ingest:  # ...while an older ingest writes a batch
            ingest.upsert(
                [
                    Paper(
                        arxiv_id="2608.00001",
                        title="A paper",
                        published=datetime(2026, 6, 30, tzinfo=UTC),
                    )
                ]
            )
        with newer.holding():
            pass
    assert len(_holding(store, "memory")) > 10
    # After a killed write (.dirty: the next writer rebuilds index.json first).
    user.write_text('[[topic]]\nname = "Memory"\nquery = "memory OR forgetting"\n')
    (sample_home / "store" / ".dirty").write_bytes(b"1")
    ok("latest", "memory", "-n", "1")
    store, catalog = Store(sample_home / "store"), Catalog.of_home()
    papers = [p for w in store.weeks() for p in store.read_partition(w)]
    assert [p.arxiv_id for p in papers if p.tags != catalog.tag(p)] == []
    assert store.index().fingerprints == catalog.fingerprints()
