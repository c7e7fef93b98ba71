"""Users teach topics: examples refit a topic's model, retag the store and say what changed;
`topics add --like` makes a topic from examples alone; explain and show cover the model."""

from __future__ import annotations

import itertools
import json
import os
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest

from papertrack.store import IdMap, Store
from tests.helpers import DATA, LISTING, error_line, run, run_in_pty

API_PAGE = DATA / "api-atom" / "arxiv.py-2026-recorded" / "q_testing_s0_m100_cfe7536492ca.xml"
CHAIN_OF_AGENTS = "2508.13167"  # an agent-training paper of the listing
DATARUS = "2508.13382"
COMPUTER_RL = "2508.14040"  # RL for computer-use agents, of the same listing


@pytest.fixture(scope="session")
def _ingested(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data home holding the listing and the API page, ingested once per process."""
    from tests.conftest import _isolate

    with pytest.MonkeyPatch.context() as monkeypatch:
        home = _isolate(tmp_path_factory.mktemp("teach"), monkeypatch)
        result = run("ingest", str(LISTING), str(API_PAGE))
    assert result.exit_code == 0, result.stderr
    return home


@pytest.fixture
def stored(isolated_home: Path, _ingested: Path) -> Path:
    """This test's data home, holding the listing and the API page: a copy (the
    ingest, 0.8 s, ran for each of the 80-odd tests here; a copy takes 0.05 s)."""
    shutil.copytree(_ingested, isolated_home)
    return isolated_home


def tagged(topic: str) -> list[str]:
    result = run("latest", topic, "--json", "-n", "500")
    assert result.exit_code == 0, result.stderr
    return [p["arxiv_id"] for p in json.loads(result.stdout)]


def first_not_in(topic_papers: list[str]) -> str:
    """The newest stored paper not among ``topic_papers``."""
    stored = json.loads(run("latest", "--json", "-n", "500").stdout)
    return next(p["arxiv_id"] for p in stored if p["arxiv_id"] not in topic_papers)


def teach_one_in_and_one_out() -> tuple[list[str], str, Any]:
    """Teach llm-agent-training the newest paper it lacks in and CHAIN_OF_AGENTS out:
    (its papers before, the paper taught in, the teach's result)."""
    before = tagged("llm-agent-training")
    assert CHAIN_OF_AGENTS in before
    outside = first_not_in(before)
    result = run("topics", "teach", "llm-agent-training", outside, "--not", CHAIN_OF_AGENTS)
    assert result.exit_code == 0, result.stderr
    return before, outside, result


def test_teach_json_lists_every_paper_it_moved_and_only_json_goes_to_stdout(
    stored: Path,
) -> None:
    """The text names the newest three papers a teach moved; --json gives them all,
    by id, for a script or a user checking a teach that moved many, with the tags
    its implications moved."""
    before = {slug: set(tagged(slug)) for slug in ("llm-agent-training", "agentic-rl")}
    outside = first_not_in(sorted(before["llm-agent-training"]))
    result = run(
        "topics", "teach", "llm-agent-training", outside, "--not", CHAIN_OF_AGENTS, "--json"
    )
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)  # the text stays on stderr
    assert "1 paper in and 1 out" in result.stderr
    after = set(tagged("llm-agent-training"))
    assert report["topic"] == "llm-agent-training"
    assert report["taught"] == {"in": [outside], "out": [CHAIN_OF_AGENTS]}
    assert report["examples"] == {"in": 1, "out": 1}
    assert report["forgot"] == []
    assert report["model"] == "refit" and isinstance(report["threshold"], float)
    assert report["tagged"] == sorted(after - before["llm-agent-training"])
    assert report["untagged"] == sorted(before["llm-agent-training"] - after)
    assert outside in report["tagged"] and CHAIN_OF_AGENTS in report["untagged"]
    assert (report["before"], report["count"]) == (len(before["llm-agent-training"]), len(after))
    rl_now = set(tagged("agentic-rl"))
    moved = report["implied"].get("agentic-rl", {"tagged": [], "untagged": []})
    assert moved["tagged"] == sorted(rl_now - before["agentic-rl"])
    assert moved["untagged"] == sorted(before["agentic-rl"] - rl_now)
    # The same teach again changes nothing, and says so in JSON too.
    again = run(
        "topics", "teach", "llm-agent-training", outside, "--not", CHAIN_OF_AGENTS, "--json"
    )
    assert again.exit_code == 0, again.stderr
    unchanged = json.loads(again.stdout)
    assert unchanged["model"] == "unchanged"
    assert unchanged["tagged"] == unchanged["untagged"] == []
    assert unchanged["count"] == len(after)
    # --forget: every example goes, and the papers they moved move back.
    forgot = run("topics", "teach", "llm-agent-training", "--forget", "--json")
    assert forgot.exit_code == 0, forgot.stderr
    undone = json.loads(forgot.stdout)
    assert undone["forgot"] == sorted([outside, CHAIN_OF_AGENTS])
    assert undone["model"] == "shipped" and undone["examples"] == {"in": 0, "out": 0}
    assert set(tagged("llm-agent-training")) == before["llm-agent-training"]
    assert undone["tagged"] == report["untagged"] and undone["untagged"] == report["tagged"]


def test_what_a_teach_says_of_its_model_matches_what_became_of_it(stored: Path) -> None:
    """Found walking through teaches: --unteach on a topic deciding by its query said
    "refit its model" (it has none); the shipped model "is back" when it never left;
    and a topic of yours redefined by --replace "deleted the model taught" to a topic
    that only ever pinned papers."""
    before = tagged("llm-agent-training")
    outside = first_not_in(before)
    kept = run("topics", "teach", "llm-agent-training", CHAIN_OF_AGENTS, "--not", outside)
    assert "its model is kept" in kept.stderr, kept.stderr
    stays = run("topics", "teach", "llm-agent-training", "--unteach", outside, "--json")
    assert stays.exit_code == 0, stays.stderr
    assert json.loads(stays.stdout)["model"] == "shipped"
    assert "its shipped model stays, as it decides every example left so" in stays.stderr
    assert "is back" not in stays.stderr
    # A refit, then an unteach that leaves what the shipped model decides: back.
    third = next(pid for pid in before if pid != CHAIN_OF_AGENTS)
    refit = run("topics", "teach", "llm-agent-training", third, "--not", CHAIN_OF_AGENTS)
    assert "refit its model" in refit.stderr, refit.stderr
    back = run("topics", "teach", "llm-agent-training", "--unteach", CHAIN_OF_AGENTS, "--json")
    assert json.loads(back.stdout)["model"] == "shipped"
    assert "its shipped model is back" in back.stderr, back.stderr

    assert run("topics", "add", "Agents Q", "--query", "agent*").exit_code == 0
    q_in = tagged("agents-q")[0]
    taught = run("topics", "teach", "agents-q", "--not", q_in, CHAIN_OF_AGENTS)
    assert taught.exit_code == 0, taught.stderr
    left = run("topics", "teach", "agents-q", "--unteach", q_in, "--json")
    assert left.exit_code == 0, left.stderr
    assert json.loads(left.stdout)["model"] == "pinned"
    assert "it decides by its query, the examples left as taught" in left.stderr
    assert "refit its model" not in left.stderr
    replaced = run("topics", "add", "Agents Q", "--query", "agent* OR tool*", "--replace")
    assert replaced.exit_code == 0, replaced.stderr
    said = " ".join(replaced.stderr.split())
    assert "Its 1 example stays, decided as taught with this definition" in said
    assert "model" not in said


def test_pins_examples_json_lacks_are_said_when_a_teach_drops_them(stored: Path) -> None:
    """examples.json without a topic whose model pins two papers: unteaching one (as
    explain offers) dropped the other too, said to be "the last of the examples",
    with "forgot": [] in --json and nothing in the log."""
    assert run("topics", "add", "Agents Q", "--query", "agent*").exit_code == 0
    inside = first_not_in(tagged("agents-q"))
    taught = run("topics", "teach", "agents-q", inside, "--not", CHAIN_OF_AGENTS)
    assert taught.exit_code == 0, taught.stderr
    (stored / "examples.json").unlink()
    undone = run("topics", "teach", "agents-q", "--unteach", CHAIN_OF_AGENTS, "--json")
    assert undone.exit_code == 0, undone.stderr
    said = " ".join(undone.stderr.split())
    assert (
        f"Note: the model of Agents Q also pinned {inside}, which examples.json does not "
        "list (removed or edited by hand?). What examples.json lists is what was taught, "
        f"so this drops it; 'papertrack topics teach agents-q {inside}' teaches it again."
    ) in said, said
    report = json.loads(undone.stdout)
    assert report["forgot"] == sorted([CHAIN_OF_AGENTS, inside])
    assert report["untagged"] == [inside] and report["tagged"] == [CHAIN_OF_AGENTS]
    log = (stored / "papertrack.log").read_text(encoding="utf-8")
    assert f"Taught agents-q: forgot {CHAIN_OF_AGENTS} (out)" in log
    # The command it gave teaches it again.
    again = run(*shlex.split(said.split("'")[1])[1:])
    assert again.exit_code == 0, again.stderr
    assert inside in tagged("agents-q")


def test_forget_on_your_entry_of_a_default_topic_says_its_shipped_model_is_back(
    stored: Path,
) -> None:
    """An entry of yours that redefines a default topic as it was keeps the shipped
    model; --forget said it went back to "its query" ("model": "query")."""
    query = json.loads(run("topics", "show", "gui-agents", "--json").stdout)["query"]
    assert run("topics", "add", "GUI Agents", "--query", query, "--replace").exit_code == 0
    assert run("topics", "teach", "gui-agents", "--not", CHAIN_OF_AGENTS).exit_code == 0
    forgot = run("topics", "teach", "gui-agents", "--forget", "--json")
    assert forgot.exit_code == 0, forgot.stderr
    assert json.loads(forgot.stdout)["model"] == "shipped"
    assert "it decides by its shipped model again" in forgot.stderr


def test_forget_on_a_topic_made_from_examples_says_the_ways_out(stored: Path) -> None:
    made = run("topics", "add", "Agent Stuff", "--like", CHAIN_OF_AGENTS, COMPUTER_RL)
    assert made.exit_code == 0, made.stderr
    refused = run("topics", "teach", "agent-stuff", "--forget")
    error_line(refused, 2, "without them it has nothing to learn from. Start it again")
    said = " ".join(refused.stderr.split())
    for way in (
        "'papertrack topics teach agent-stuff --forget ID...'",
        "--unteach ID",
        "'papertrack topics remove agent-stuff'",
    ):
        assert way in said, said


def test_teach_notes_a_paper_taught_again_the_other_way_after_forget(stored: Path) -> None:
    assert run("topics", "teach", "gui-agents", "--not", CHAIN_OF_AGENTS).exit_code == 0
    again = run("topics", "teach", "gui-agents", "--forget", CHAIN_OF_AGENTS, "--json")
    assert again.exit_code == 0, again.stderr
    assert f"Note: {CHAIN_OF_AGENTS} was taught out before; it is taught in now." in again.stderr
    assert json.loads(again.stdout)["taught"] == {"in": [CHAIN_OF_AGENTS], "out": []}


def test_a_paper_taught_out_of_a_topic_another_of_its_topics_implies_is_pointed_there(
    stored: Path,
) -> None:
    """Taught out of llm-agent-training while agentic-rl (which implies it) tags it: the
    teaching holds, and the user is pointed at the topic that put it there, where
    nothing was said of it."""
    assert COMPUTER_RL in tagged("agentic-rl") and COMPUTER_RL in tagged("llm-agent-training")
    result = run("topics", "teach", "llm-agent-training", "--not", COMPUTER_RL)
    assert result.exit_code == 0, result.stderr
    said = " ".join(result.stderr.split())
    assert (
        f"Note: {COMPUTER_RL} stays out of LLM Agent Training (llm-agent-training), as you "
        "taught it, though it is in "
    ) in said
    assert "Agentic RL" in said and f"--not {COMPUTER_RL}'." in said
    assert COMPUTER_RL not in tagged("llm-agent-training")
    # A later teach of the paper as to a topic no topic implies is not told of it again.
    later = run("topics", "teach", "knowledge-distillation", "--not", COMPUTER_RL)
    assert later.exit_code == 0 and "stays out of" not in later.stderr
    # Another paper, in no topic that implies it: no such word.
    other = first_not_in(tagged("agentic-rl") + tagged("rl-for-llm-agents"))
    quiet = run("topics", "teach", "llm-agent-training", "--not", other)
    assert "stays out of" not in quiet.stderr


def test_a_paper_taught_into_a_topic_and_out_of_one_it_implies_is_said_to_stay_out(
    stored: Path,
) -> None:
    """Taught out of llm-agent-training, then into agentic-rl (which implies it): the
    teaching holds and the paper stays out, and the user who taught it in is told."""
    assert run("topics", "teach", "llm-agent-training", "--not", COMPUTER_RL).exit_code == 0
    result = run("topics", "teach", "agentic-rl", COMPUTER_RL)
    assert result.exit_code == 0, result.stderr
    assert (
        f"Note: {COMPUTER_RL} stays out of LLM Agent Training (llm-agent-training), as you "
        "taught it, though Agentic RL implies it ('papertrack topics teach "
        f"llm-agent-training --unteach {COMPUTER_RL}' lets it in)."
    ) in " ".join(result.stderr.split())
    assert COMPUTER_RL in tagged("agentic-rl")
    assert COMPUTER_RL not in tagged("llm-agent-training")
    # Taught out of two topics: a command for each, said to take those back.
    assert run("topics", "teach", "gui-agents", "--not", COMPUTER_RL).exit_code == 0
    shown = " ".join(run("topics", "explain", COMPUTER_RL).stdout.split())
    assert (
        f"'papertrack topics teach llm-agent-training --unteach {COMPUTER_RL}' and "
        f"'papertrack topics teach gui-agents --unteach {COMPUTER_RL}' take those back, one "
        "a topic."
    ) in shown, shown
    # With a TOPIC, --json says it was taught out of that one.
    one = json.loads(run("topics", "explain", COMPUTER_RL, "gui-agents", "--json").stdout)
    assert one["taught_out"] == ["gui-agents"]
    other = json.loads(run("topics", "explain", COMPUTER_RL, "agentic-rl", "--json").stdout)
    assert other["taught_out"] == []


def test_a_paper_the_model_pins_can_be_unteached_when_examples_json_is_gone(
    stored: Path,
) -> None:
    """examples.json removed (as its damage message offered): the model still pinned
    the paper, explain offered --unteach, and that said it was no example taught."""
    before = tagged("llm-agent-training")
    assert run("topics", "teach", "llm-agent-training", "--not", CHAIN_OF_AGENTS).exit_code == 0
    (stored / "examples.json").unlink()
    explained = json.loads(run("topics", "explain", CHAIN_OF_AGENTS, "--json").stdout)
    assert explained["taught_out"] == ["llm-agent-training"]
    undone = run("topics", "teach", "llm-agent-training", "--unteach", CHAIN_OF_AGENTS)
    assert undone.exit_code == 0, undone.stderr
    assert f"Forgot {CHAIN_OF_AGENTS}, the last of the examples taught" in undone.stderr
    assert sorted(tagged("llm-agent-training")) == sorted(before)
    assert (
        json.loads(run("topics", "explain", CHAIN_OF_AGENTS, "--json").stdout)["taught_out"] == []
    )


def test_teaching_a_default_topic_changes_the_tags_it_should_and_says_so(stored: Path) -> None:
    shipped = json.loads(
        run("topics", "explain", CHAIN_OF_AGENTS, "llm-agent-training", "--json").stdout
    )
    before, outside, result = teach_one_in_and_one_out()
    assert "1 paper in and 1 out" in result.stderr
    # The threshold a refit moved is said (only a later explain showed it).
    refit = json.loads(
        run("topics", "explain", CHAIN_OF_AGENTS, "llm-agent-training", "--json").stdout
    )
    old, new = (e["topics"][0]["model"]["threshold"] for e in (shipped, refit))
    said = f"The refit model's threshold is {new:+.2f} (it was {old:+.2f})"
    assert (said in result.stderr) is (f"{new:+.2f}" != f"{old:+.2f}"), result.stderr
    # The log names the papers: what was taught can be looked back on.
    logged = (stored / "papertrack.log").read_text(encoding="utf-8")
    assert f"Taught llm-agent-training: in {outside}; out {CHAIN_OF_AGENTS}." in logged
    # On what it learns from, counted: "on its examples" read as the two just taught.
    model = json.loads((stored / "models" / "llm-agent-training.json").read_text())
    learnt = model["meta"]["examples"]
    assert learnt["positives"] + learnt["negatives"] > 10_000
    assert (
        f"on the {learnt['positives']:,} papers in and {learnt['negatives']:,} out it learns "
        "from, 5-fold cross-validated: precision"
    ) in result.stderr
    after = tagged("llm-agent-training")
    assert outside in after and CHAIN_OF_AGENTS not in after  # the user's word holds
    gained, lost = len(set(after) - set(before)), len(set(before) - set(after))
    plural = "s" if gained != 1 else ""
    assert f"+{gained} paper{plural} tagged, {lost} untagged; {len(after)} stored" in result.stderr
    # Then the newest papers of each change, by id: the ones that really changed,
    # besides the two taught (they moved as asked, and filled the three places that
    # show what else moved).
    said = result.stderr.split("stored papers in the topic now.", 1)[1]
    listed = {line.split()[0] for line in said.splitlines() if line.startswith("  ")}
    newly = said.split("Untagged", 1)[0]
    assert {i for i in listed if i in newly} <= set(after) - set(before)
    assert {i for i in listed if i not in newly} <= set(before) - set(after)
    assert len(listed) == min(gained - 1, 3) + min(lost - 1, 3)
    assert outside not in listed and CHAIN_OF_AGENTS not in listed
    examples = json.loads((stored / "examples.json").read_text())
    assert examples["topics"]["llm-agent-training"] == {outside: True, CHAIN_OF_AGENTS: False}
    model = json.loads((stored / "models" / "llm-agent-training.json").read_text())
    assert model["meta"]["taught"] == {"in": 1, "out": 1}
    # A later ingest of the same paper keeps the taught decision.
    assert run("ingest", str(LISTING)).exit_code == 0
    assert CHAIN_OF_AGENTS not in tagged("llm-agent-training")
    # A second teach says what it taught, then what all the examples come to.
    again = run("topics", "teach", "llm-agent-training", "--not", DATARUS)
    assert "Taught LLM Agent Training (llm-agent-training) 0 papers in and 1 out " in again.stderr
    assert "(1 in and 2 out in all); refit its model." in again.stderr
    # Forgetting goes back to the shipped model and its tags.
    forgot = run("topics", "teach", "llm-agent-training", "--forget")
    assert forgot.exit_code == 0, forgot.stderr
    assert sorted(tagged("llm-agent-training")) == sorted(before)
    assert not (stored / "models" / "llm-agent-training.json").exists()


def test_a_taught_topic_redefined_by_hand_says_its_model_still_decides(stored: Path) -> None:
    """Its query replaced in topics.toml, a taught default went on deciding by the
    model taught to its earlier query (1,780 papers, the new query matching 710),
    while topics show printed the new query, without a word."""
    teach_one_in_and_one_out()
    assert "Warning" not in run("topics", "show", "llm-agent-training").stderr
    (stored / "topics.toml").write_text(
        '[[topic]]\nname = "LLM Agent Training"\nslug = "llm-agent-training"\n'
        "query = 'title:agent* AND title:training'\n",
        encoding="utf-8",
    )
    shown = run("topics", "show", "llm-agent-training")
    assert shown.exit_code == 0
    assert (
        "Warning: the model taught to 'LLM Agent Training' was taught to its earlier query "
        "or categories, and decides still, not the definition topics.toml gives it now."
    ) in shown.stderr
    assert "--replace --query ...' redefines it and keeps your examples" in shown.stderr
    # Redefined through the command, the model goes and the examples stay: no warning.
    query = "title:agent* AND title:training"
    again = run("topics", "add", "LLM Agent Training", "--replace", "--query", query)
    assert again.exit_code == 0, again.stderr
    assert "was taught to its earlier" not in run("topics", "show", "llm-agent-training").stderr


def test_a_default_put_back_after_a_topic_in_its_place_is_told_how_to_get_its_model(
    stored: Path,
) -> None:
    """Found walking through teaching: a default replaced in topics.toml, redefined as
    the warning advised, then put back by deleting the entry, decided by its query,
    its shipped model gone, while the warning said the model still decided; and
    teaching it its examples again said "nothing more to teach"."""
    assert (
        run("topics", "teach", "gui-agents", COMPUTER_RL, "--not", CHAIN_OF_AGENTS).exit_code == 0
    )
    toml = stored / "topics.toml"
    toml.write_text(
        '[[topic]]\nname = "GUI Agents"\nslug = "gui-agents"\nquery = "title:gui"\n',
        encoding="utf-8",
    )
    assert "decides still" in run("topics", "show", "gui-agents").stderr
    redefined = run("topics", "add", "GUI Agents", "--replace", "--query", "title:gui")
    assert redefined.exit_code == 0, redefined.stderr
    toml.unlink()
    shown = run("topics", "show", "gui-agents", "--json")
    assert json.loads(shown.stdout)["decide"] == "query"
    warning = " ".join(shown.stderr.split())
    assert (
        "Warning: 'GUI Agents' decides by its query and the papers taught to it, as the topic "
        "you defined in its place did, and not by its shipped model. 'papertrack topics teach "
        f"gui-agents {COMPUTER_RL}' (an example as taught before) fits it again with your "
        "examples. "
    ) in warning
    assert "decides still" not in warning
    again = run("topics", "teach", "gui-agents", COMPUTER_RL)
    assert again.exit_code == 0, again.stderr
    assert "refit its model" in again.stderr and "nothing more to teach" not in again.stderr
    after = run("topics", "show", "gui-agents", "--json")
    assert json.loads(after.stdout)["decide"] == "model" and "Warning" not in after.stderr
    assert COMPUTER_RL in tagged("gui-agents") and CHAIN_OF_AGENTS not in tagged("gui-agents")


def test_a_topic_of_examples_and_a_query_edited_by_hand_decides_by_the_new_query(
    stored: Path,
) -> None:
    """Its query edited in topics.toml, a topic made with --like and --query was said to
    decide still by the earlier one (it did not), and the advice given deleted its model."""
    made = run(
        "topics", "add", "Agent Likes", "--like", CHAIN_OF_AGENTS, COMPUTER_RL,
        "--query", "agent*", "--decide", "both",
    )  # fmt: skip
    assert made.exit_code == 0, made.stderr
    before = tagged("agent-likes")
    toml = stored / "topics.toml"
    text = toml.read_text(encoding="utf-8")
    assert "query = 'agent*'" in text or 'query = "agent*"' in text
    toml.write_text(
        text.replace("'agent*'", "'title:agent*'").replace('"agent*"', '"title:agent*"'),
        encoding="utf-8",
    )
    shown = run("topics", "show", "agent-likes")
    assert shown.exit_code == 0 and "Warning" not in shown.stderr, shown.stderr
    narrowed = tagged("agent-likes")
    assert set(narrowed) < set(before)  # the new query decides, with the model
    titles = {
        p["arxiv_id"]: p["title"] for p in json.loads(run("latest", "--json", "-n", "500").stdout)
    }
    assert all("agent" in titles[pid].lower() for pid in narrowed)


def test_an_already_so_paper_named_twice_is_said_once_and_a_query_topic_has_no_model(
    stored: Path,
) -> None:
    assert run("topics", "add", "Agents Q", "--query", "agent*").exit_code == 0
    assert CHAIN_OF_AGENTS in tagged("agents-q")
    result = run("topics", "teach", "agents-q", f"{CHAIN_OF_AGENTS}v1", f"arXiv:{CHAIN_OF_AGENTS}")
    assert result.exit_code == 0, result.stderr
    already = next(line for line in result.stderr.splitlines() if line.startswith("Already so"))
    assert already.startswith(f"Already so before this teach: {CHAIN_OF_AGENTS} was in Agents Q.")
    assert "It is kept as an example, so it stays so whatever its query matches" in already


def test_teaching_what_the_topic_already_decides_says_so(stored: Path) -> None:
    """The help's own example taught a paper the topic already had, and another it
    already left out, and said only "+2 papers tagged": a user who thought the paper
    was missed learned nothing of it."""
    before = tagged("llm-agent-training")
    outside = first_not_in(before)
    result = run("topics", "teach", "llm-agent-training", f"{CHAIN_OF_AGENTS}v7", "--not", outside)
    assert result.exit_code == 0, result.stderr
    lines = result.stderr.splitlines()
    assert lines[0].startswith(f"Note: {CHAIN_OF_AGENTS}v7 is not stored; teaching the stored")
    already = next(line for line in lines if line.startswith("Already so"))
    assert f"{CHAIN_OF_AGENTS} was in LLM Agent Training and {outside} was out" in already
    assert already.endswith("They are kept as examples, so they stay so whatever the model "
                            "scores; the model is not refit for what it already decides, so "
                            "no other paper moves now (the next refit counts them as "
                            "examples).")  # fmt: skip
    # Nothing to learn: the model is kept, with them pinned, and no other paper moves
    # (a refit for a paper a topic already left out moved 126 other tags).
    assert "its model is kept" in lines[1] and "no other paper moves" in already
    assert "+0 papers tagged, 0 untagged" in result.stderr
    assert sorted(tagged("llm-agent-training")) == sorted(before)
    model = json.loads((stored / "models" / "llm-agent-training.json").read_text())
    assert model["meta"]["pinned"] == {CHAIN_OF_AGENTS: True, outside: False}
    from papertrack.topics import Catalog

    shipped = json.loads(Path(Catalog.default().find("llm-agent-training").model_file).read_text())
    assert model["weights"] == shipped["weights"] and model["threshold"] == shipped["threshold"]
    # One more paper already so, taught on its own: kept again. (The pinned copy was
    # not counted as the current model, and the second teach refit: +30 and -1.)
    third = next(pid for pid in before if pid != CHAIN_OF_AGENTS)
    more = run("topics", "teach", "llm-agent-training", third)
    assert more.exit_code == 0, more.stderr
    assert "its model is kept" in more.stderr and "+0 papers tagged, 0 untagged" in more.stderr
    assert sorted(tagged("llm-agent-training")) == sorted(before)
    # A copy of a shipped model that papertrack has since changed is said.
    path = stored / "models" / "llm-agent-training.json"
    copy = json.loads(path.read_text())
    copy["meta"]["copy_of"] = "0" * 16
    path.write_text(json.dumps(copy))
    warned = run("topics", "show", "llm-agent-training")
    assert "decides by a copy of an earlier shipped model" in warned.stderr
    assert "'papertrack topics teach llm-agent-training --forget'" in warned.stderr
    path.write_text(
        json.dumps({**copy, "meta": {**copy["meta"], "copy_of": model["meta"]["copy_of"]}})
    )
    # Taught the other way round, neither is "already so": each flip is said, and refit.
    result = run("topics", "teach", "llm-agent-training", outside, "--not", CHAIN_OF_AGENTS)
    assert result.exit_code == 0, result.stderr
    assert "Already so" not in result.stderr and "refit its model" in result.stderr
    assert f"Note: {outside} was taught out before; it is taught in now." in result.stderr
    assert f"Note: {CHAIN_OF_AGENTS} was taught in before; it is taught out now." in result.stderr


def test_unteach_forgets_one_example_and_show_lists_what_was_taught(stored: Path) -> None:
    before, outside, result = teach_one_in_and_one_out()
    shown = json.loads(run("topics", "show", "llm-agent-training", "--json").stdout)
    assert shown["taught"] == {"in": [outside], "out": [CHAIN_OF_AGENTS]}
    card = run("topics", "show", "llm-agent-training").stdout
    assert f"1 in: {outside}; 1 out: {CHAIN_OF_AGENTS}" in " ".join(card.split())
    # One example forgotten, in any id form: the model decides that paper again,
    # and the other example still holds.
    result = run("topics", "teach", "llm-agent-training", "--unteach", f"arXiv:{CHAIN_OF_AGENTS}v1")
    assert result.exit_code == 0, result.stderr
    said = "Forgot 1 example taught to LLM Agent Training (llm-agent-training); refit its model."
    assert said in result.stderr and "1 in and 0 out are left." in result.stderr
    logged = (stored / "papertrack.log").read_text(encoding="utf-8")
    assert f"Taught llm-agent-training: forgot {CHAIN_OF_AGENTS} (out)." in logged
    examples = json.loads((stored / "examples.json").read_text())
    assert examples["topics"]["llm-agent-training"] == {outside: True}
    after = tagged("llm-agent-training")
    assert CHAIN_OF_AGENTS in after and outside in after
    # What was not taught cannot be forgotten; nothing changes.
    model = (stored / "models" / "llm-agent-training.json").read_bytes()
    error_line(
        run("topics", "teach", "llm-agent-training", "--unteach", CHAIN_OF_AGENTS),
        2,
        f"{CHAIN_OF_AGENTS} is not an example taught to 'LLM Agent Training'",
        "topics show llm-agent-training",
    )
    both = run("topics", "teach", "llm-agent-training", outside, "--unteach", outside)
    error_line(both, 2, "named both to teach and --unteach")
    # Not taught before either: that, not "is not an example taught to", is the slip.
    fresh = run(
        "topics", "teach", "llm-agent-training", CHAIN_OF_AGENTS, "--unteach", CHAIN_OF_AGENTS
    )
    error_line(fresh, 2, f"{CHAIN_OF_AGENTS} is named both to teach and --unteach. Name it once")
    error_line(run("topics", "teach", "llm-agent-training", "--forget", "--unteach", outside), 2)
    assert (stored / "models" / "llm-agent-training.json").read_bytes() == model
    # The last example forgotten: the shipped model and its tags are back.
    result = run("topics", "teach", "llm-agent-training", "--unteach", outside)
    assert result.exit_code == 0, result.stderr
    # What was asked is what is said: one example, the last (it read "Forgot every
    # example", as --forget does).
    said = f"Forgot {outside}, the last of the examples taught to LLM Agent Training"
    assert said in result.stderr and "its shipped model again" in result.stderr
    assert sorted(tagged("llm-agent-training")) == sorted(before)
    assert not (stored / "models" / "llm-agent-training.json").exists()
    shown = json.loads(run("topics", "show", "llm-agent-training", "--json").stdout)
    assert shown["taught"] == {"in": [], "out": []}
    # Nothing left to forget: said so, and nothing is retagged.
    again = run("topics", "teach", "llm-agent-training", "--forget")
    assert again.exit_code == 0, again.stderr
    assert "no taught examples and no taught model: nothing to forget" in again.stderr
    assert "papers tagged" not in again.stderr
    # A damaged examples file does not stop the card: it says so, and taught is null.
    (stored / "examples.json").write_text("{broken", encoding="utf-8")
    damaged = run("topics", "show", "llm-agent-training", "--json")
    assert damaged.exit_code == 0 and json.loads(damaged.stdout)["taught"] is None
    assert "Warning: " in damaged.stderr and "examples.json is damaged" in damaged.stderr


def test_the_same_examples_give_the_same_tags_whatever_teaches_led_there(stored: Path) -> None:
    """Taught in and then out, a paper refit the model for the paper taught out, where
    teaching it out alone kept the shipped model: the same examples, tags 26 apart."""
    before = tagged("llm-agent-training")
    outside = first_not_in(before)
    taught_in = run("topics", "teach", "llm-agent-training", outside)
    assert taught_in.exit_code == 0 and outside in tagged("llm-agent-training")
    flipped = run("topics", "teach", "llm-agent-training", "--not", outside)
    assert flipped.exit_code == 0, flipped.stderr
    assert "its shipped model is back, as it decides every example so" in flipped.stderr
    assert tagged("llm-agent-training") == before
    model = json.loads((stored / "models" / "llm-agent-training.json").read_text())
    assert model["meta"]["pinned"] == {outside: False} and model["meta"]["copy_of"]
    # The way there alone: the same examples, the same model and tags.
    assert run("topics", "teach", "llm-agent-training", "--forget").exit_code == 0
    direct = run("topics", "teach", "llm-agent-training", "--not", outside)
    assert direct.exit_code == 0, direct.stderr
    assert tagged("llm-agent-training") == before
    again = json.loads((stored / "models" / "llm-agent-training.json").read_text())
    assert again["weights"] == model["weights"] and again["meta"]["pinned"] == {outside: False}
    # An example the shipped model decides otherwise still refits.
    refit = run("topics", "teach", "llm-agent-training", "--not", CHAIN_OF_AGENTS)
    assert refit.exit_code == 0 and "refit its model" in refit.stderr


def test_examples_taught_in_any_order_give_the_same_model(stored: Path) -> None:
    """A paper the topic already held, taught after a refit, kept the refit model as
    it was; taught first, it was fitted on: the same examples, 11 tags apart."""
    before = tagged("llm-agent-training")
    outside = first_not_in(before)
    assert CHAIN_OF_AGENTS in before  # already so: taught alone, the model is kept
    model = stored / "models" / "llm-agent-training.json"
    for order in ((outside, CHAIN_OF_AGENTS), (CHAIN_OF_AGENTS, outside)):
        assert run("topics", "teach", "llm-agent-training", "--forget").exit_code in (0, 1)
        for pid in order:
            done = run("topics", "teach", "llm-agent-training", pid)
            assert done.exit_code == 0, done.stderr
        fitted = json.loads(model.read_text())
        if order[0] == outside:
            first = (tagged("llm-agent-training"), fitted["weights"], fitted["threshold"])
    assert (tagged("llm-agent-training"), fitted["weights"], fitted["threshold"]) == first
    assert fitted["meta"]["pinned"] == {outside: True, CHAIN_OF_AGENTS: True}


def test_a_default_topics_refit_keeps_the_shipped_threshold_where_it_does_as_well(
    stored: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two examples moved llm-agent-training's threshold from +0.59 to +0.50 (the middle
    of the near-best) and 26 papers not taught with it, most of them out."""
    from papertrack import training
    from papertrack.topics import Catalog

    asked: list[float | None] = []
    real = training.choose

    def spy(*args: Any, **kwargs: Any) -> Any:
        asked.append(kwargs.get("prefer_cut"))
        return real(*args, **kwargs)

    monkeypatch.setattr(training, "choose", spy)
    teach_one_in_and_one_out()
    shipped = Catalog.default().find("llm-agent-training").model.threshold
    assert asked == [shipped]
    # A topic of the user's own has no shipped threshold to keep.
    assert run("topics", "add", "Chains", "--like", CHAIN_OF_AGENTS, DATARUS).exit_code == 0
    assert asked[1:] == [None]


def test_forget_with_papers_named_says_what_it_forgot(stored: Path) -> None:
    # --forget drops every earlier example before teaching the papers named: a paper
    # taught out came back as "newly tagged" under a report of an ordinary teach.
    _, outside, _ = teach_one_in_and_one_out()
    result = run("topics", "teach", "llm-agent-training", "--forget", outside)
    assert result.exit_code == 0, result.stderr
    assert (
        "Taught LLM Agent Training (llm-agent-training) 1 paper in and 0 out and forgot "
        "1 example; refit its model."
    ) in result.stderr
    examples = json.loads((stored / "examples.json").read_text())
    assert examples["topics"]["llm-agent-training"] == {outside: True}
    logged = (stored / "papertrack.log").read_text(encoding="utf-8")
    said = f"Taught llm-agent-training: in {outside}; out none; forgot {CHAIN_OF_AGENTS} (out)."
    assert said in logged


def test_unteach_keeps_a_topic_made_from_examples_one_paper_in(stored: Path) -> None:
    result = run("topics", "add", "Agent Memory", "--like", CHAIN_OF_AGENTS, COMPUTER_RL)
    assert result.exit_code == 0, result.stderr
    result = run("topics", "teach", "agent-memory", "--unteach", COMPUTER_RL)
    assert result.exit_code == 0, result.stderr
    assert "1 in and 0 out are left." in result.stderr
    error_line(
        run("topics", "teach", "agent-memory", "--unteach", CHAIN_OF_AGENTS),
        2,
        "made from your examples",
    )
    examples = json.loads((stored / "examples.json").read_text())
    assert examples["topics"]["agent-memory"] == {CHAIN_OF_AGENTS: True}


def test_a_papers_topics_hold_the_topics_they_imply_and_teaching_one_moves_them(
    stored: Path,
) -> None:
    training = set(tagged("llm-agent-training"))
    implying = set(tagged("agentic-rl")) | set(tagged("rl-for-llm-agents"))
    assert implying and implying <= training  # agentic RL is LLM agent training
    assert set(tagged("computer-use-agents")) <= set(tagged("gui-agents"))
    outside = first_not_in(list(training))
    result = run("topics", "teach", "agentic-rl", outside)
    assert result.exit_code == 0, result.stderr
    assert outside in tagged("agentic-rl") and outside in tagged("llm-agent-training")
    gained = len(set(tagged("llm-agent-training")) - training)
    assert gained >= 1
    said = "Through the topics' implications, LLM Agent Training (llm-agent-training): "
    now = len(tagged("llm-agent-training"))
    # Said as a removal says it: what moved, and how many papers the topic holds now.
    assert f"{said}+{gained} tagged; {now:,} stored papers in it now." in result.stderr
    explained = run("topics", "explain", outside, "llm-agent-training", "--json")
    item = json.loads(explained.stdout)["topics"][0]
    assert item["matched"] and item["implied_by"] == ["agentic-rl"]
    text = run("topics", "explain", outside, "llm-agent-training").stdout
    assert "is in LLM Agent Training" in text
    assert "It is in Agentic RL, which implies this topic." in text
    # Taught out of the implied topic, the paper stays out of it.
    result = run("topics", "teach", "llm-agent-training", "--not", outside)
    assert result.exit_code == 0, result.stderr
    assert outside in tagged("agentic-rl") and outside not in tagged("llm-agent-training")
    for topic in ("agentic-rl", "llm-agent-training"):
        assert run("topics", "teach", topic, "--forget").exit_code == 0
    assert set(tagged("llm-agent-training")) == training


def test_a_paper_in_only_through_an_implication_is_taught_out_with_no_refit(
    stored: Path,
) -> None:
    # COMPUTER_RL is in agentic-rl only because rl-for-llm-agents implies it: the
    # agentic-rl model leaves it out, so teaching it out asks nothing of the model.
    before = set(tagged("agentic-rl"))
    assert COMPUTER_RL in before and COMPUTER_RL in tagged("rl-for-llm-agents")
    explained = json.loads(run("topics", "explain", COMPUTER_RL, "agentic-rl", "--json").stdout)
    assert explained["topics"][0]["implied_by"]
    result = run("topics", "teach", "agentic-rl", "--not", COMPUTER_RL)
    assert result.exit_code == 0, result.stderr
    assert "0 papers in and 1 out; its model is kept." in result.stderr
    assert "refit" not in result.stderr
    assert set(tagged("agentic-rl")) == before - {COMPUTER_RL}
    assert COMPUTER_RL in tagged("rl-for-llm-agents")


def test_a_default_copied_to_rename_it_is_taught_as_the_default_is(stored: Path) -> None:
    from papertrack.topics import Catalog

    shipped = Catalog.default().by_slug("gui-agents")
    assert shipped is not None
    result = run(
        "topics", "add", "GUI and Web Agents", "--slug", "gui-agents",
        "--query", shipped.query, "--replace",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    shown = json.loads(run("topics", "show", "gui-agents", "--json").stdout)
    assert shown["decide"] == shipped.decide  # the default's model, kept
    # Not a topic made from examples: it may be taught out, and forgotten.
    inside = tagged("gui-agents")[0]
    taught = run("topics", "teach", "gui-agents", "--not", inside)
    assert taught.exit_code == 0, taught.stderr
    assert inside not in tagged("gui-agents")
    forgot = run("topics", "teach", "gui-agents", "--forget")
    assert forgot.exit_code == 0, forgot.stderr
    assert inside in tagged("gui-agents")


def test_teach_refuses_what_it_cannot_learn_from(stored: Path) -> None:
    error_line(run("topics", "teach", "llm-agent-training"), 2, "name papers to teach with")
    error_line(run("topics", "teach", "llm-agent-training", "2501.99999"), 1, "no paper 2501.99999")
    # Every one missing at once, in and out: one a run made the user run it again for each.
    missing = run(
        "topics",
        "teach",
        "llm-agent-training",
        "2501.99999",
        CHAIN_OF_AGENTS,
        "--not",
        "2501.99998",
    )
    error_line(missing, 1, "no papers 2501.99999 and 2501.99998 in the store. Ingest them first")
    # Named twice, said once ("no papers X and X").
    twice = run("topics", "teach", "llm-agent-training", "2501.99999", "--not", "2501.99999")
    error_line(twice, 1, "no paper 2501.99999 in the store. Ingest it first")
    like = run("topics", "add", "X", "--like", *[f"2501.999{n:02d}" for n in range(12)])
    error_line(
        like,
        1,
        "no papers 2501.99900, 2501.99901, 2501.99902, 2501.99903, 2501.99904, "
        "2501.99905, 2501.99906, 2501.99907, 2501.99908, 2501.99909 and 2 more in the store",
    )
    error_line(run("topics", "teach", "no-such-topic", CHAIN_OF_AGENTS), 2, "no topic named")
    # The topic left out: the id is read as the topic, and said to be none.
    error_line(run("topics", "teach", CHAIN_OF_AGENTS), 2, f"no topic named '{CHAIN_OF_AGENTS}'")
    both = run("topics", "teach", "gui-agents", CHAIN_OF_AGENTS, "--not", CHAIN_OF_AGENTS)
    error_line(both, 2, "named both in and --not")
    assert not (stored / "examples.json").exists()


def test_a_like_topic_whose_name_is_taken_is_told_so_not_that_its_model_is_missing(
    stored: Path,
) -> None:
    """It was told its (not yet written) model file was missing, and to make the topic
    again with --replace, which failed the same way."""
    result = run("topics", "add", "GUI Agents", "--slug", "my-gui", "--like", CHAIN_OF_AGENTS)
    line = error_line(result, 2, "two topics are named 'GUI Agents'")
    assert "model file" not in line and "--replace" not in line
    assert not (stored / "models" / "my-gui.json").exists()
    assert not (stored / "topics.toml").exists()
    again = run("topics", "add", "GUI Agents 2", "--slug", "my-gui", "--like", CHAIN_OF_AGENTS)
    assert again.exit_code == 0, again.stderr


def test_show_says_how_many_examples_a_kept_model_was_made_from(stored: Path) -> None:
    """After teaches that kept the model, show still said "2 examples in the topic"
    for a topic of three (and of 24, in a walkthrough)."""
    result = run("topics", "add", "Agent Foundations", "--like", CHAIN_OF_AGENTS, COMPUTER_RL)
    assert result.exit_code == 0, result.stderr
    shown = json.loads(run("topics", "show", "agent-foundations", "--json").stdout)
    assert (
        shown["note"].startswith("2 examples in the topic") and "the model was" not in shown["note"]
    )
    inside = next(p for p in tagged("agent-foundations") if p not in (CHAIN_OF_AGENTS, COMPUTER_RL))
    taught = run("topics", "teach", "agent-foundations", inside)
    assert taught.exit_code == 0, taught.stderr
    assert "not refit" in taught.stderr  # already in: the model is kept
    shown = json.loads(run("topics", "show", "agent-foundations", "--json").stdout)
    assert "the model was made from 2 of the 3 examples in the topic now" in shown["note"]
    text = run("topics", "show", "agent-foundations").stdout
    assert "made from 2 of the 3" in " ".join(text.split())


def test_add_like_says_when_ids_name_one_paper_or_a_version_not_stored(stored: Path) -> None:
    """'X Xv1 <URL of X>' made a one-example topic, and Xv9 took v1, without a word
    (teach says both)."""
    url = f"https://arxiv.org/abs/{CHAIN_OF_AGENTS}"
    result = run("topics", "add", "Once", "--like", CHAIN_OF_AGENTS, url, f"{COMPUTER_RL}v9")
    assert result.exit_code == 0, result.stderr
    assert "Note: the 3 ids given name 2 papers: each is taken once." in result.stderr
    assert f"Note: {COMPUTER_RL}v9 is not stored; taking the stored version" in result.stderr
    taught = json.loads((stored / "examples.json").read_text())["topics"]["once"]
    assert sorted(taught) == sorted([CHAIN_OF_AGENTS, COMPUTER_RL])


def test_two_examples_are_each_held_out_even_when_their_ids_share_a_fold(stored: Path) -> None:
    """Folds by id put two examples in one fold half the time: nothing was held out,
    the threshold was never raised, and the topic came out two to three times as broad."""
    from papertrack.training import FOLDS, SEED, _folds

    assert FOLDS >= 2
    candidates = tagged("llm-agent-training")[:30]
    a, b = next(
        (a, b)
        for a, b in itertools.combinations(candidates, 2)
        if len(set(_folds([a, b], 2, SEED))) == 1
    )
    result = run("topics", "add", "Pair", "--like", a, b)
    assert result.exit_code == 0, result.stderr
    assert "2 examples in the topic: made from what they share; held out in turn" in result.stderr
    model = json.loads((stored / "models" / "pair.json").read_text())
    assert model["meta"]["held_out_recall"] is not None


def test_a_topic_made_from_examples_tags_them_and_learns_more(stored: Path) -> None:
    examples = (CHAIN_OF_AGENTS, COMPUTER_RL)
    result = run("topics", "add", "Agent Foundations", "--like", examples[0], "--like", examples[1])
    assert result.exit_code == 0, result.stderr
    assert "2 examples in the topic: made from what they share; held out in turn" in result.stderr
    # Examples that find each other say they are alike, not that the topic is found
    # whole: "4 of 4 reach the threshold" read so, where such topics find about half.
    model = json.loads((stored / "models" / "agent-foundations.json").read_text())
    alike = "Note: that says your examples are alike, not how much of the topic it finds"
    assert model["meta"]["held_out_recall"] >= 0.5 and alike in result.stderr
    topics = (stored / "topics.toml").read_text()
    assert 'model = "models/agent-foundations.json"' in topics and "query =" not in topics
    found = tagged("agent-foundations")
    assert set(examples) <= set(found)
    assert len(found) < 40  # more like these, not everything
    # No query: its papers are in it, they do not "match".
    assert f". {len(found)} stored papers are in it." in result.stderr
    # It shows the newest papers it took besides the examples, which are in it.
    shown_ids = [
        line.split()[0]
        for line in result.stderr.split("besides your examples:", 1)[1].splitlines()
        if line.startswith("  ")
    ]
    others = [pid for pid in found if pid not in examples]
    assert others and shown_ids == others[:3]
    shown = json.loads(run("topics", "show", "agent-foundations", "--json").stdout)
    assert shown["decide"] == "model" and shown["examples"] is None
    assert shown["note"].startswith("2 examples in the topic") and shown["model_current"]
    tried = run("topics", "test", "agent-foundations")
    assert "It decides by model. 2 examples in the topic: made from what" in tried.stderr
    table = run("topics", "show", "agent-foundations").stdout
    assert "not cross-validated" in table and "none: it decides by its model alone" in table
    why = json.loads(
        run("topics", "explain", CHAIN_OF_AGENTS, "agent-foundations", "--json").stdout
    )
    model = why["topics"][0]["model"]
    assert why["topics"][0]["matched"] is True and model["fired"] is True
    assert model["up"][0]["weight"] > 0
    assert why["topics"][0]["conditions"] == []  # no query, so no query conditions
    said = run("topics", "explain", CHAIN_OF_AGENTS, "agent-foundations").stdout
    assert "Query: none; the topic decides by its model alone." in said and "needs" not in said
    # A category filter filters a query: without one it is refused, not ignored.
    filtered = ("Filtered Chains", "-c", "cs.AI", "--like", CHAIN_OF_AGENTS)
    error_line(run("topics", "add", *filtered), 2, "--category filters a topic's query")
    error_line(run("topics", "add", "Nothing"), 2, "--query, or example papers with --like")


def test_like_and_not_take_every_id_that_follows_them(stored: Path) -> None:
    """`--like A B` is `--like A --like B`, as the usage `--like ID...` reads; and
    `teach T --not A B` puts both out (Click alone would teach B *in*)."""
    spread = run("topics", "add", "Spread Chains", "--like", CHAIN_OF_AGENTS, DATARUS)
    assert spread.exit_code == 0, spread.stderr
    assert "2 examples in the topic" in spread.stderr
    twice = run("topics", "add", "Twice Chains", "--like", CHAIN_OF_AGENTS, "--like", DATARUS)
    assert twice.exit_code == 0, twice.stderr
    assert tagged("spread-chains") == tagged("twice-chains")
    assert run("topics", "add", "Chain Query", "--query", "title:chain*").exit_code == 0
    taught = run("topics", "teach", "chain-query", "--not", CHAIN_OF_AGENTS, DATARUS)
    assert taught.exit_code == 0, taught.stderr
    examples = json.loads((stored / "examples.json").read_text())
    assert examples["topics"]["chain-query"] == {CHAIN_OF_AGENTS: False, DATARUS: False}
    assert CHAIN_OF_AGENTS not in tagged("chain-query")
    # An unquoted two-word name is still refused, not read as an example.
    error_line(run("topics", "add", "Agent", "Chains", "--query", "chain*"), 2, "extra argument")


def test_papers_taught_out_of_a_topic_made_from_examples_move_no_other(stored: Path) -> None:
    """Refit for papers taught out alone, such a topic moved others and could take in
    more papers like those taught out, where its own note says none moves."""
    made = run("topics", "add", "Agent Chains", "--like", CHAIN_OF_AGENTS, COMPUTER_RL)
    assert made.exit_code == 0, made.stderr
    model = stored / "models" / "agent-chains.json"
    before, fitted = tagged("agent-chains"), json.loads(model.read_text(encoding="utf-8"))
    wrong = [pid for pid in before if pid not in (CHAIN_OF_AGENTS, COMPUTER_RL)][:2]
    assert wrong
    taught = run("topics", "teach", "agent-chains", "--not", *wrong)
    assert taught.exit_code == 0, taught.stderr
    assert "its model is kept" in taught.stderr
    assert "not refit for papers taught out: they stay as taught" in taught.stderr
    assert tagged("agent-chains") == [pid for pid in before if pid not in wrong]
    kept = json.loads(model.read_text(encoding="utf-8"))
    assert (kept["weights"], kept["threshold"]) == (fitted["weights"], fitted["threshold"])
    assert kept["meta"]["pinned"] == {CHAIN_OF_AGENTS: True, COMPUTER_RL: True} | dict.fromkeys(
        wrong, False
    )
    # A paper taught in refits it, those taught out left out of its feedback.
    again = run("topics", "teach", "agent-chains", first_not_in(tagged("agent-chains")))
    assert again.exit_code == 0 and "refit its model" in again.stderr
    assert not set(wrong) & set(tagged("agent-chains"))


def test_papers_taught_in_that_it_takes_with_papers_taught_out_move_no_other(
    sample_home: Path,
) -> None:
    """Taught in two teaches, a paper it took and a paper out kept the model twice and
    moved one paper; taught in one, the model was refit and 347 papers moved (a
    walkthrough on the 83,510 real papers)."""
    a, b = tagged("llm-agent-training")[:2]
    assert run("topics", "add", "Trained Agents", "--like", a, b).exit_code == 0
    before = tagged("trained-agents")
    inside, out = [p for p in before if p not in (a, b)][:2]
    both = run("topics", "teach", "trained-agents", inside, "--not", out)
    assert both.exit_code == 0, both.stderr
    assert "its model is kept" in both.stderr
    assert "nor for papers taught in that it already takes" in both.stderr
    assert tagged("trained-agents") == [pid for pid in before if pid != out]


@pytest.mark.parametrize("refit", [True, False], ids=["refit", "pinned"])
def test_a_teach_writes_its_examples_and_model_together_or_neither(
    stored: Path, monkeypatch: pytest.MonkeyPatch, refit: bool
) -> None:
    """Killed between the model's write and the examples', a teach left a model
    pinned to a paper examples.json did not name: topics show listed nothing taught,
    and the next teach refit without it, so the paper left the topic without a word.
    A write of the examples that fails now leaves the model as it was too."""
    from papertrack import training
    from papertrack.errors import StoreError

    assert run("topics", "teach", "llm-agent-training", "--not", CHAIN_OF_AGENTS).exit_code == 0
    model = stored / "models" / "llm-agent-training.json"
    examples = stored / "examples.json"
    before = (model.read_bytes(), examples.read_bytes())

    def full_disk(*args: Any) -> None:
        raise StoreError("could not write examples.json: No space left on device")

    monkeypatch.setattr(training, "save_examples", full_disk)
    outside = first_not_in(tagged("llm-agent-training"))
    # Taught in, it is refit; taught out, a paper it leaves out is pinned, the model kept.
    result = run("topics", "teach", "llm-agent-training", *([] if refit else ["--not"]), outside)
    error_line(result, 1, "No space left on device")
    assert (model.read_bytes(), examples.read_bytes()) == before


def test_a_topic_made_from_examples_writes_its_model_with_its_examples_or_neither(
    stored: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from papertrack import training
    from papertrack.errors import StoreError

    def full_disk(*args: Any) -> None:
        raise StoreError("could not write examples.json: No space left on device")

    monkeypatch.setattr(training, "save_examples", full_disk)
    made = run("topics", "add", "Agent Chains", "--like", CHAIN_OF_AGENTS, COMPUTER_RL)
    error_line(made, 1, "No space left on device")
    assert not (stored / "models" / "agent-chains.json").exists()
    assert "agent-chains" not in run("topics", "--json").stdout


def test_a_teach_removes_what_killed_teaches_left_and_only_that(stored: Path) -> None:
    """A teach killed while writing left temp files in models/ and beside
    examples.json, which nothing ever removed or reported."""
    assert run("topics", "teach", "llm-agent-training", "--not", CHAIN_OF_AGENTS).exit_code == 0
    gone = 2**22 + 7  # no such process
    left = [
        stored / "models" / f".llm-agent-training.json.{gone}.tmp",
        stored / f".examples.json.{gone}.tmp",
    ]
    kept = [
        stored / f".following.json.{gone}.tmp",  # not a teach's: left to its own command
        stored / "models" / f".agentic-rl.json.{os.getppid()}.tmp",  # a live process's
        stored / "models" / "notes.tmp",
    ]
    for path in left + kept:
        path.write_bytes(b"half")
    assert run("topics", "teach", "llm-agent-training", "--not", DATARUS).exit_code == 0
    assert not any(path.exists() for path in left)
    assert all(path.exists() for path in kept)


def test_teaching_again_mends_an_example_the_model_does_not_hold(stored: Path) -> None:
    """A teach killed between putting examples.json and the model in place (or
    examples.json edited by hand) left an example the model did not pin: teaching
    the same paper again said "so already: nothing more to teach", and the paper
    stayed as the model scored it."""
    made = run("topics", "add", "Agent Chains", "--like", CHAIN_OF_AGENTS, COMPUTER_RL)
    assert made.exit_code == 0, made.stderr
    inside = [p for p in tagged("agent-chains") if p not in (CHAIN_OF_AGENTS, COMPUTER_RL)][0]
    path = stored / "examples.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["topics"]["agent-chains"][inside] = False
    path.write_text(json.dumps(data), encoding="utf-8")
    again = run("topics", "teach", "agent-chains", "--not", inside)
    assert again.exit_code == 0, again.stderr
    assert "nothing more to teach" not in again.stderr
    assert inside not in tagged("agent-chains")


def every_tag(home: Path) -> dict[str, tuple[str, ...]]:
    """Every stored paper's tags, by id."""
    store = Store(home / "store")
    return {p.arxiv_id: p.tags for week in store.weeks() for p in store.read_partition(week)}


def weeks_read(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The week files every retag reads from now on, as they are read."""
    import papertrack.writer as writer

    read: list[str] = []
    real = writer._retag_week

    def spy(job: Any, path: Path, quiet: bool = True) -> Any:
        read.append(path.stem)
        return real(job, path, quiet)

    monkeypatch.setattr(writer, "_retag_week", spy)
    return read


def retagged_whole(home: Path, slug: str, read: list[str]) -> dict[str, tuple[str, ...]]:
    """Every stored paper's tags after a whole retag for the same catalog (``slug``'s
    fingerprint taken out of the index, as if the tags were of another catalog)."""
    path = home / "store" / "index.json"
    index = json.loads(path.read_text(encoding="utf-8"))
    del index["meta"]["1"]["topics"][slug]
    path.write_text(json.dumps(index), encoding="utf-8")
    read.clear()
    assert run("latest", slug).exit_code == 0
    assert sorted(read) == sorted(Store(home / "store").weeks())
    return every_tag(home)


def test_a_teach_that_keeps_its_model_reads_only_the_papers_it_pinned(
    stored: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Papers pinned, the model kept: no other paper's decision can change, so only
    the pinned papers' weeks are read and tagged (a whole retag of an 83,510-paper
    store took 6-7 s to change nothing else). The tags are those a whole retag gives."""

    made = run("topics", "add", "Agent Chains", "--like", CHAIN_OF_AGENTS, COMPUTER_RL)
    assert made.exit_code == 0, made.stderr
    wrong = [p for p in tagged("agent-chains") if p not in (CHAIN_OF_AGENTS, COMPUTER_RL)][:2]
    assert wrong
    store = Store(stored / "store")
    weeks = {IdMap(store).get(pid) for pid in wrong}
    assert len(store.weeks()) > len(weeks)
    read = weeks_read(monkeypatch)
    taught = run("topics", "teach", "agent-chains", "--not", *wrong)
    assert taught.exit_code == 0, taught.stderr
    assert "its model is kept" in taught.stderr
    assert sorted(read) == sorted(weeks)
    assert f"+0 papers tagged, {len(wrong)} untagged" in taught.stderr
    narrowed = every_tag(stored)
    assert not any("agent-chains" in narrowed[pid] for pid in wrong)
    # The same store retagged whole for the same catalog: the same tags.
    assert retagged_whole(stored, "agent-chains", read) == narrowed
    # A paper the id map has lost (its shard deleted by hand, which reads go round):
    # read as not stored, it kept its tags for good. The retag is whole then.
    outside = first_not_in(tagged("agent-chains"))
    (stored / "store" / "ids" / f"{outside[:4]}.json").unlink()
    read.clear()
    taught = run("topics", "teach", "agent-chains", "--not", outside)
    assert taught.exit_code == 0 and "its model is kept" in taught.stderr, taught.stderr
    assert sorted(read) == sorted(store.weeks())


def test_a_teach_of_a_query_topic_reads_only_the_papers_it_pinned(
    stored: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A topic that decides by its query, before and after the teach: only the papers
    pinned otherwise can move (a whole retag read all 83,510 papers, 5 s, to untag
    one). The tags are those a whole retag gives."""

    assert run("topics", "add", "Agents Q", "--query", "agent*").exit_code == 0
    wrong = tagged("agents-q")[:2]
    outside = first_not_in(tagged("agents-q"))
    store = Store(stored / "store")
    weeks = {IdMap(store).get(pid) for pid in [*wrong, outside]}
    assert len(store.weeks()) > len(weeks)
    read = weeks_read(monkeypatch)
    taught = run("topics", "teach", "agents-q", outside, "--not", *wrong, "--json")
    assert taught.exit_code == 0, taught.stderr
    report = json.loads(taught.stdout)
    assert report["model"] == "pinned"
    assert (report["tagged"], report["untagged"]) == ([outside], sorted(wrong))
    assert sorted(set(read)) == sorted(weeks)
    narrowed = every_tag(stored)
    # The same store retagged whole for the same catalog: the same tags.
    assert retagged_whole(stored, "agents-q", read) == narrowed
    # Unteaching one moves it back, reading its week alone.
    read.clear()
    back = run("topics", "teach", "agents-q", "--unteach", wrong[0])
    assert back.exit_code == 0, back.stderr
    assert set(read) == {IdMap(store).get(wrong[0])}
    assert wrong[0] in tagged("agents-q")


def test_a_pinning_retag_is_whole_when_the_topics_changed_meanwhile(stored: Path) -> None:
    """The retag reads only the pinned papers while it is sure nothing else moved:
    the stored tags are the catalog's the teach read, and no other topic changed
    since (topics.toml edited by hand or by another command during the teach)."""
    import dataclasses

    from papertrack.topics import Catalog
    from papertrack.writer import PinsMoved

    assert run("latest").exit_code == 0  # tagged by the default catalog
    store = Store(stored / "store")
    before = Catalog.default()
    pins = PinsMoved(before, "llm-agent-training", frozenset({CHAIN_OF_AGENTS}))

    def narrowed(now: Catalog, changed: set[str]) -> frozenset[str] | None:
        with store.writer(now) as writer:
            writer.pins_moved = pins
            writer.index = store.index()
            return writer.narrowed(changed)

    def edited(slug: str, **change: Any) -> Catalog:
        return Catalog(
            dataclasses.replace(t, **change) if t.slug == slug else t for t in before.topics
        )

    assert narrowed(Catalog.default(), {"llm-agent-training"}) == {CHAIN_OF_AGENTS}
    assert narrowed(edited("gui-agents", query="gui"), {"llm-agent-training"}) is None
    assert narrowed(edited("llm-agent-training", query="agent*"), {"llm-agent-training"}) is None
    assert narrowed(edited("gui-agents", implies=("llm-tool-use",)), {"gui-agents"}) is None
    assert narrowed(Catalog(before.topics[1:]), {"llm-agent-training"}) is None
    # Stored tags of another catalog (a retag cut short, a --db store tagged elsewhere).
    with store.writer(before) as writer:
        writer.pins_moved = pins
        writer.index = dataclasses.replace(store.index(), fingerprints={})
        assert writer.narrowed({"llm-agent-training"}) is None


def test_examples_pinned_without_a_refit_are_named_until_the_next_one(stored: Path) -> None:
    """A paper taught that the topic already took is pinned, its model kept; the next
    refit fits on it too, and the way back from that refit is to unteach both (the
    note named only the later one, which gave back 129 papers of 142)."""
    from papertrack.cli.common import load_catalog
    from papertrack.teach import unfitted as _unfitted

    made = run("topics", "add", "Agent Chains", "--like", CHAIN_OF_AGENTS, COMPUTER_RL)
    assert made.exit_code == 0, made.stderr
    inside = [p for p in tagged("agent-chains") if p not in (CHAIN_OF_AGENTS, COMPUTER_RL)][0]
    kept = run("topics", "teach", "agent-chains", inside)
    assert "its model is kept" in kept.stderr

    everything = {CHAIN_OF_AGENTS: True, COMPUTER_RL: True, inside: True}
    assert _unfitted(load_catalog().find("agent-chains"), everything) == [inside]
    refit = run("topics", "teach", "agent-chains", first_not_in(tagged("agent-chains")))
    assert "refit its model" in refit.stderr
    assert (
        "unfitted" not in json.loads((stored / "models" / "agent-chains.json").read_text())["meta"]
    )


def test_a_topic_of_examples_and_a_query_may_take_only_what_both_take(stored: Path) -> None:
    """Made with --like and --query, a topic took every paper either took: 474 papers
    on mixture-of-experts in general beside the query's 132 on routing."""
    query = "title:agent*"
    either = run("topics", "add", "Chains Either", "--query", query, "--like", DATARUS)
    both = run("topics", "add", "Chains Both", "--query", query, "--like", DATARUS,
               "--decide", "both")  # fmt: skip
    assert both.exit_code == 0, both.stderr
    assert "It decides by either." in either.stderr and "It decides by both." in both.stderr
    found = run("search", query, "--json", "-n", "500").stdout
    by_query = {p["arxiv_id"] for p in json.loads(found)}
    taken = set(tagged("chains-both"))
    assert taken <= by_query | {DATARUS} and taken < set(tagged("chains-either"))
    assert DATARUS in taken  # taught in: decided as taught
    # How many the query matches is said beside how many the topic takes: 'both'
    # kept 151 of a query's 272, and nothing said the query took more.
    in_query = len(taken & by_query)
    said = (
        f"{len(taken):,} stored papers are in it; its query matches {len(by_query):,} stored "
        f"papers, of which the model of your examples takes {in_query:,}."
    )
    assert said in " ".join(both.stderr.split())
    assert "its query matches" not in either.stderr
    # Taught again, it goes on deciding by both.
    more = first_not_in(tagged("chains-both"))
    again = run("topics", "teach", "chains-both", more)
    assert again.exit_code == 0 and "It decides by both." in again.stderr
    assert set(tagged("chains-both")) <= by_query | {DATARUS, more}
    for args in (["--query", query], ["--like", DATARUS]):
        error_line(run("topics", "add", "X", *args, "--decide", "both"), 2, "give both")
    error_line(run("topics", "add", "X", "--query", query, "--like", DATARUS, "--decide", "or"),
               2, "'either' or 'both'")  # fmt: skip


def test_a_topic_an_older_papertrack_made_from_examples_and_a_query_stays_either(
    stored: Path,
) -> None:
    """Models written before "like" was kept: one that decided "either" (made with
    --like and --query) goes on widening its query when taught again."""
    from papertrack import learn, training

    made = run("topics", "add", "Chains Then", "--query", "title:chain*", "--like", DATARUS)
    assert "It decides by either." in made.stderr
    path = stored / "models" / "chains-then.json"
    model = learn.TopicModel.from_json(json.loads(path.read_text(encoding="utf-8")))
    del model.meta["like"]
    training.save_model(model, path)
    taught = run("topics", "teach", "chains-then", CHAIN_OF_AGENTS)
    assert taught.exit_code == 0, taught.stderr
    assert "It decides by either." in taught.stderr
    refit = json.loads(path.read_text(encoding="utf-8"))
    assert refit["meta"]["like"] is True
    # A query topic taught a few papers (decides by its query) is not taken for one.
    assert run("topics", "add", "Chains Query", "--query", "title:chain*").exit_code == 0
    assert (
        "It decides by its query; the papers you taught are decided as taught."
        in run("topics", "teach", "chains-query", DATARUS).stderr
    )
    path = stored / "models" / "chains-query.json"
    model = learn.TopicModel.from_json(json.loads(path.read_text(encoding="utf-8")))
    del model.meta["like"]
    training.save_model(model, path)
    again = run("topics", "teach", "chains-query", CHAIN_OF_AGENTS)
    assert "It decides by its query; the papers you taught are decided as taught." in again.stderr
    # As those papertracks wrote it: every query topic taught a few papers decided
    # "either", and its next teach made it one "made from examples" (+21 papers off
    # its query). Its topics.toml entry names no model: it was made by its query.
    queried = set(tagged("chains-query"))
    model = learn.TopicModel.from_json(json.loads(path.read_text(encoding="utf-8")))
    del model.meta["like"]
    model.meta["decide"] = "either"
    training.save_model(model, path)
    third = run("topics", "teach", "chains-query", COMPUTER_RL)
    assert "It decides by its query; the papers you taught are decided as taught." in third.stderr
    assert set(tagged("chains-query")) <= queried | {COMPUTER_RL}


def test_spread_values_reads_a_run_of_values_after_an_option() -> None:
    from papertrack.cli.common import spread_values

    many = ("--like", "-c")
    assert spread_values(["N", "--like", "A", "B", "-c", "cs.AI", "cs.CL"], many) == [
        "N", "--like", "A", "--like", "B", "-c", "cs.AI", "-c", "cs.CL",
    ]  # fmt: skip
    assert spread_values(["--like=A", "B", "--replace", "C"], many) == [
        "--like=A", "--like", "B", "--replace", "C",
    ]  # fmt: skip
    # The option's own value is taken whatever it looks like; "--" ends it all.
    assert spread_values(["--like", "-x", "B", "--", "C"], many) == [
        "--like", "-x", "--like", "B", "--", "C",
    ]  # fmt: skip
    assert spread_values(["--query", "A", "B"], many) == ["--query", "A", "B"]


def test_a_query_topic_taught_a_few_papers_holds_them_and_stays_its_query(stored: Path) -> None:
    added = run("topics", "add", "Agent Chains", "--query", "title:chain*")
    assert added.exit_code == 0, added.stderr
    before = tagged("agent-chains")
    assert CHAIN_OF_AGENTS in before and DATARUS not in before
    taught = run("topics", "teach", "agent-chains", DATARUS, "--not", CHAIN_OF_AGENTS)
    assert taught.exit_code == 0, taught.stderr
    assert "It decides by its query; the papers you taught are decided as taught." in taught.stderr
    after = tagged("agent-chains")
    # The taught papers hold as taught, and nothing else moves: a model made from
    # one paper does not widen a query the user wrote.
    assert set(after) == (set(before) | {DATARUS}) - {CHAIN_OF_AGENTS}
    assert "+1 paper tagged, 1 untagged" in taught.stderr
    assert f"{len(after)} stored papers in the topic now." in taught.stderr
    assert run("ingest", str(LISTING)).exit_code == 0  # a later ingest keeps them
    assert set(tagged("agent-chains")) == set(after)
    # Made with --like and a query, the examples do widen it ("more like these").
    liked = run("topics", "add", "Chains Like", "--query", "title:chain*", "--like", DATARUS)
    assert liked.exit_code == 0, liked.stderr
    assert "It decides by either." in liked.stderr


def test_a_topic_left_with_one_paper_says_one_paper(stored: Path) -> None:
    assert run("topics", "add", "Agent Chains", "--query", "title:chain*").exit_code == 0
    before = tagged("agent-chains")
    assert len(before) == 2 and CHAIN_OF_AGENTS in before
    taught = run("topics", "teach", "agent-chains", "--not", CHAIN_OF_AGENTS)
    assert taught.exit_code == 0, taught.stderr
    assert "+0 papers tagged, 1 untagged; 1 stored paper in the topic now." in taught.stderr


def test_topics_show_reports_a_default_models_cross_validated_figures(stored: Path) -> None:
    shown = json.loads(run("topics", "show", "gui-agents", "--json").stdout)
    assert shown["decide"] in ("query", "model", "either", "both")
    figures = shown["examples"]
    assert figures["positives"] > 20 and figures["negatives"] > 1000
    assert 0 < figures["precision"] <= 1 and 0 < figures["recall"] <= 1
    table = run("topics", "show", "gui-agents").stdout
    assert "decides by" in table and "cross-validated" in table
    # On what, and how it does on the held-out labels ("its examples" read as the
    # user's; the docs' 0.65 sat beside show's 0.71 with no word of the difference).
    line = " ".join(table.split())
    assert "(papertrack's labelled papers); 5-fold cross-validated, before implications" in line
    from papertrack import paths, training
    from papertrack.topics import Catalog

    labelled = training.load_labelled(paths.labels_file())
    [row] = [
        r for r in training.evaluate(Catalog.default(), labelled) if r["topic"] == "gui-agents"
    ]
    test = shown["test_split"]
    assert {k: test[k] for k in row} == row
    assert test["papers"] == sum(p.split == "test" for p in labelled)
    assert f"test split precision {row['precision']:.2f}, recall {row['recall']:.2f}" in line
    # Implications, both ways.
    tool_rl = json.loads(run("topics", "show", "rl-for-tool-use", "--json").stdout)
    assert "llm-agent-training" in tool_rl["implies"] and tool_rl["implied_by"] == []
    training_card = run("topics", "show", "llm-agent-training").stdout
    assert "implied by" in training_card and "rl-for-tool-use" in training_card
    # A taught model is no longer the one measured there.
    taught = run("topics", "teach", "gui-agents", "--not", COMPUTER_RL)
    assert taught.exit_code == 0, taught.stderr
    after = json.loads(run("topics", "show", "gui-agents", "--json").stdout)
    assert after["test_split"] is None
    card = " ".join(run("topics", "show", "gui-agents").stdout.split())
    assert "and your examples); 5-fold" in card
    # One examples line: "too few; not cross-validated" came after the figures.
    assert card.count("examples ") == 1 and "not cross-validated" not in card


def test_tex_is_read_as_it_renders_for_display_search_and_tags(
    tmp_path: Path, isolated_home: Path
) -> None:
    from tests.helpers import kaggle_line

    title = r"$\textbf{A}$gent-R1: Training \emph{Powerful} LLM Agents with $\alpha$-RL"
    snap = tmp_path / "snap.jsonl"
    snap.write_text(kaggle_line("2511.00001", title=title) + "\n", encoding="utf-8")
    assert run("ingest", str(snap)).exit_code == 0
    shown = json.loads(run("show", "2511.00001", "--json").stdout)
    assert shown["title"] == "Agent-R1: Training Powerful LLM Agents with α-RL"
    found = json.loads(run("search", "title:agent", "--json").stdout)
    assert [p["arxiv_id"] for p in found] == ["2511.00001"]


def test_topics_test_tries_the_topic_as_it_decides_and_reports_its_examples(
    stored: Path,
) -> None:
    from papertrack.topics import Catalog

    trial = json.loads(run("topics", "test", "llm-agent-training", "--json").stdout)
    # The rule the shipped model file chose by cross-validation, whichever it is.
    assert trial["decide"] == Catalog.default().find("llm-agent-training").decide
    assert trial["decide"] in ("model", "either", "both")
    assert trial["examples"]["positives"] > 100
    # Tried as it decides, model included: its matches are the papers it tags.
    assert trial["matches"] == len(tagged("llm-agent-training"))
    said = " ".join(run("topics", "test", "llm-agent-training").stderr.split())
    assert "labelled papers in and" in said and "5-fold cross-validated: precision" in said


def test_one_bad_entry_in_the_users_topics_is_skipped_and_the_rest_work(stored: Path) -> None:
    (stored / "topics.toml").write_text(
        "[[topic]]\nname = \"Broken\"\nquery = 'agent* AND ('\n\n"
        "[[topic]]\nname = \"Zebra Agents\"\nquery = 'agent*'\n",
        encoding="utf-8",
    )
    result = run("latest", "zebra-agents", "--json", "-n", "3")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)
    assert "Warning:" in result.stderr and "Broken" in result.stderr
    assert "that topic is skipped" in result.stderr
    assert run("follow", "llm-agent-training").exit_code == 0
    assert run("digest", "--dry-run").exit_code == 0  # a cron digest goes on
    # An edit that would add a bad topic is still refused with its column.
    bad = run("topics", "add", "Worse", "--query", "x AND (")
    assert bad.exit_code == 2 and "column" in bad.stderr
    # A slug too long to name a file, written by hand, once a models folder exists:
    # every command failed with "File name too long".
    (stored / "models").mkdir(exist_ok=True)
    with (stored / "topics.toml").open("a", encoding="utf-8") as handle:
        handle.write(f"\n[[topic]]\nname = \"{'y' * 251}\"\nquery = 'agent*'\n")
    result = run("latest", "zebra-agents", "--json", "-n", "3")
    assert result.exit_code == 0, result.stderr
    assert "slug of 251 bytes" in result.stderr and "that topic is skipped" in result.stderr


def test_a_hand_written_clash_or_missing_model_skips_that_topic_alone(stored: Path) -> None:
    # Each stopped every command, ingest included; now each entry is skipped.
    (stored / "topics.toml").write_text(
        '[[topic]]\nname = "Mine"\nquery = \'agent*\'\nmodel = "nosuch.json"\n\n'
        '[[topic]]\nname = "gui-agents"\nslug = "mine-too"\nquery = \'agent*\'\n\n'
        '[[topic]]\nname = "GUI agents"\nslug = "other"\nquery = \'agent*\'\n\n'
        "[[topic]]\nname = \"Zebra Agents\"\nquery = 'agent*'\n\n"
        '[[topic]]\nname = "Zebra Two"\nslug = "zebra-agents"\nquery = \'x\'\n',
        encoding="utf-8",
    )
    result = run("latest", "zebra-agents", "--json", "-n", "3")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)
    warned = [line for line in result.stderr.splitlines() if line.startswith("Warning:")]
    assert len(warned) == 4 and all(
        w.endswith(("that topic is skipped.", "the second is skipped.")) for w in warned
    )
    assert "nosuch.json is missing" in warned[0]
    assert "'gui-agents' (mine-too) is named as the slug of 'GUI Agents'" in warned[1]
    assert "two topics are named 'GUI agents'" in warned[2]
    assert "defines the topic 'zebra-agents' twice" in warned[3]
    slugs = {t["topic"] for t in json.loads(run("topics", "--json").stdout)}
    assert "zebra-agents" in slugs and "gui-agents" in slugs
    assert not slugs & {"mine", "mine-too", "other"}
    # Asked for, a skipped topic is said to be skipped and why, not "no topic named
    # 'mine'. Did you mean ...?"
    for key in ("mine", "Mine"):
        asked = error_line(run("latest", key), 2, "nosuch.json is missing")
        assert asked.endswith("; until then that topic is skipped.") and "Did you" not in asked
    assert "two topics are named 'GUI agents'" in error_line(run("latest", "other"), 2)
    assert "is named as the slug of 'GUI Agents'" in error_line(run("latest", "mine-too"), 2)
    # The same clash, asked for by topics add, is refused and nothing is written.
    before = (stored / "topics.toml").read_bytes()
    refused = run("topics", "add", "GUI-Agents", "--slug", "mine3", "--query", "agent*")
    assert refused.exit_code == 2 and "is named as the slug of" in refused.stderr
    assert (stored / "topics.toml").read_bytes() == before


def test_a_skipped_topic_asked_for_by_its_name_is_said_to_be_skipped(stored: Path) -> None:
    (stored / "topics.toml").write_text(
        '[[topic]]\nname = "Agent Memory"\nslug = "amem"\nquery = "memory"\n'
        'model = "models/gone.json"\n',
        encoding="utf-8",
    )
    for key in ("amem", "Agent Memory", "agent-memory"):
        said = error_line(run("latest", key), 2, "gone.json is missing")
        assert said.endswith("; until then that topic is skipped."), said


def test_a_damaged_taught_model_stops_no_command_and_keeps_the_examples(stored: Path) -> None:
    # It stopped every command, doctor found nothing, and the fix it named
    # (--forget) deleted the examples it could be fitted again from.
    assert run("topics", "teach", "gui-agents", COMPUTER_RL, "--not", DATARUS).exit_code == 0
    model = stored / "models" / "gui-agents.json"
    examples = (stored / "examples.json").read_bytes()
    model.write_text('{"not": "a model"}', encoding="utf-8")
    result = run("latest", "llm-agent-training", "--json", "-n", "3")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)
    (warning,) = [line for line in result.stderr.splitlines() if line.startswith("Warning:")]
    assert f"the model taught to 'GUI Agents' ({model}) cannot be read" in warning
    assert "'papertrack topics teach gui-agents ID' fits it again with them" in warning
    assert run("stats").exit_code == 0
    assert (stored / "examples.json").read_bytes() == examples
    again = run("topics", "teach", "gui-agents", CHAIN_OF_AGENTS)
    assert again.exit_code == 0, again.stderr
    assert "(2 in and 1 out in all); refit its model." in again.stderr
    assert "Warning" not in run("latest", "gui-agents").stderr


def test_a_teach_that_cannot_retag_says_what_it_did_keep(stored: Path) -> None:
    week = max((stored / "store" / "papers").glob("*.json"))
    week.write_bytes(week.read_bytes()[:-200])  # damaged: doctor --repair is the fix
    result = run("topics", "teach", "llm-agent-training", "--not", CHAIN_OF_AGENTS)
    error_line(
        result,
        1,
        "the model of LLM Agent Training is refit and the examples are saved as this teach "
        "left them, but the "
        "stored papers could not be retagged: store file",
        "doctor --repair",
    )
    examples = json.loads((stored / "examples.json").read_text())["topics"]
    assert examples == {"llm-agent-training": {CHAIN_OF_AGENTS: False}}


def test_an_example_id_edited_by_hand_is_not_taken_for_one_typed(stored: Path) -> None:
    # "'notanid' is not an arXiv id" (exit 2) named an id the command line never had.
    examples = {"topics": {"gui-agents": {"notanid": True}}}
    (stored / "examples.json").write_text(json.dumps(examples), encoding="utf-8")
    result = run("topics", "teach", "gui-agents", COMPUTER_RL)
    assert result.exit_code == 0, result.stderr
    assert "(2 in and 0 out in all)" in result.stderr


def test_explain_names_the_models_features_as_a_reader_would(stored: Path) -> None:
    from papertrack.learn import describe

    result = run("topics", "explain", CHAIN_OF_AGENTS, "llm-agent-training", "--json")
    assert result.exit_code == 0, result.stderr
    model = json.loads(result.stdout)["topics"][0]["model"]
    pushed = model["up"] + model["down"]
    assert pushed and all(item["about"] == describe(item["feature"]) for item in pushed)
    # A paper about training agents is pushed up by concepts met in one sentence or
    # in its title, or by a bundled query's match, not only by single words.
    kinds = {item["feature"].partition(":")[0] for item in model["up"] if ":" in item["feature"]}
    assert kinds & {"s", "tc", "q"}
    text = run("topics", "explain", CHAIN_OF_AGENTS, "llm-agent-training").stdout
    assert "Pushed up" in text
    assert any(describe(item["feature"]) in text for item in model["up"][:3])
    # The score adds up: where every paper starts, the features listed, the rest
    # (+4.77 of features "pushed up" a paper that scored -1.79, unexplained).
    listed = sum(item["weight"] for item in pushed)
    assert model["start"] + listed + model["rest"] == pytest.approx(model["score"], abs=0.01)
    assert model["start"] < 0 < model["weighed"] and len(pushed) <= model["weighed"]
    line = " ".join(text.split())
    assert (
        f"The score is the sum of: {model['start']:+.2f} for every paper; {listed:+.2f} from the "
        in line
    )
    others = model["weighed"] - len(pushed)
    assert f"{model['rest']:+.2f} from the {others:,} other features it weighs here." in line
    assert "Query: " in line and "(not asked: the topic decides by its model alone)" in line


def test_explain_tells_a_score_and_a_threshold_apart_however_close() -> None:
    """A score 0.585 against a threshold 0.588 read "+0.59 against +0.59: it does not fire"."""
    from rich.console import Console

    from papertrack.diagnose import ModelView, TopicExplanation
    from papertrack.models import Paper
    from papertrack.render import explanation_view

    paper = Paper(arxiv_id="2601.00001", title="A paper")
    cases = [
        (0.5851, 0.588, "score +0.585 against threshold +0.588: it does not fire"),
        (0.5883, 0.5881, "score +0.5883 against threshold +0.5881: it fires"),
        (1.5, 0.588, "score +1.50 against threshold +0.59: it fires"),
    ]
    for score, threshold, said in cases:
        view = ModelView(score, threshold, (), (), start=-3.0, weighed=2)
        item = TopicExplanation("t", "T", view.fired, (), (), (), decide="model", model=view)
        console = Console(width=200, record=True, color_system=None)
        console.print(explanation_view(paper, [item], asked=True))
        text = console.export_text()
        assert said in text, text
        assert "Pushed up" not in text  # no empty table of features
        if not view.fired:
            assert "scores the paper 0.585, below the threshold 0.588" in text
        rest = score + 3.0
        assert (
            f"The score is the sum of: {-3:+.{view.places}f} for every paper; "
            f"{rest:+.{view.places}f} from the 2 features" in text
        )


@pytest.mark.parametrize(
    ("made_by", "slug", "dropped", "reason"),
    [
        (("teach", "gui-agents"), "gui-agents", "feature_set", "without the concept features"),
        (
            ("add", "Agent Chains", "--like"),
            "agent-chains",
            "kind",  # a regression of a few examples, not cross-validated
            "from a few examples by a fit that learned only them",
        ),
    ],
)
def test_topics_show_says_when_an_older_papertrack_made_a_taught_model(
    stored: Path, made_by: tuple[str, ...], slug: str, dropped: str, reason: str
) -> None:
    from papertrack import learn, training

    assert run("topics", *made_by, CHAIN_OF_AGENTS).exit_code == 0
    shown = json.loads(run("topics", "show", slug, "--json").stdout)
    assert shown["model_current"] is True and shown["model_outdated"] is None
    assert "older papertrack" not in run("topics", "show", slug).stdout
    # The same model file as an older papertrack wrote it.
    path = stored / "models" / f"{slug}.json"
    model = learn.TopicModel.from_json(json.loads(path.read_text(encoding="utf-8")))
    del model.meta[dropped]
    training.save_model(model, path)
    shown = json.loads(run("topics", "show", slug, "--json").stdout)
    assert shown["model_current"] is False and shown["model_outdated"] == reason
    text = " ".join(run("topics", "show", slug).stdout.split())
    assert f"made by an older papertrack, {reason}" in text
    if dropped == "kind":  # its note as the first papertracks wrote it, said once
        model.meta["note"] = "1 example in the topic: too few to cross-validate"
        training.save_model(model, path)
        text = " ".join(run("topics", "show", slug).stdout.split())
        assert "too few to cross-validate: teach it more" in text
        assert "not cross-validated" not in text
    assert f"papertrack topics teach {slug} ID" in text
    assert run("latest", slug).exit_code == 0  # it still tags and answers
    # Taught again the paper it was taught, as that advice says: refit, not "nothing
    # changed" with the older model deciding still.
    again = run("topics", "teach", slug, CHAIN_OF_AGENTS)
    assert again.exit_code == 0, again.stderr
    assert "nothing changed" not in again.stderr
    shown = json.loads(run("topics", "show", slug, "--json").stdout)
    assert shown["model_current"] is True and shown["model_outdated"] is None


def test_at_a_terminal_teach_says_what_it_is_doing_while_it_works(stored: Path) -> None:
    import os

    env = dict(os.environ)  # PAPERTRACK_HOME and the rest of the isolated home
    code, seen = run_in_pty("topics", "teach", "gui-agents", CHAIN_OF_AGENTS, env=env, timeout=120)
    assert code == 0, seen
    assert b"Fitting the model of GUI Agents to the labelled papers" in seen
    assert b"Retagging stored papers" in seen and b"Taught GUI Agents" in seen
    code, seen = run_in_pty("topics", "teach", "gui-agents", "--forget", env=env, timeout=120)
    assert code == 0 and b"Retagging stored papers" in seen and b"Fitting" not in seen
    piped = run("topics", "teach", "gui-agents", CHAIN_OF_AGENTS)  # no terminal: no spinner
    assert piped.exit_code == 0 and "Retagging" not in piped.stderr


def test_a_bulk_import_into_another_store_holds_taught_papers_as_taught(
    tmp_path: Path, isolated_home: Path
) -> None:
    # A snapshot's papers are tagged a chunk at a time (Catalog.tag_many): the
    # papers a topic was taught with hold as taught there too, and what they imply.
    from tests.helpers import kaggle_line

    trained = kaggle_line(
        "2511.00001",
        title="Training LLM Agents with Reinforcement Learning for Tool Use",
        abstract="We fine-tune LLM agents with reinforcement learning on multi-turn tool use.",
    )
    plain = kaggle_line("2511.00002", title="Soil moisture maps", abstract="We map soil.")
    snap = tmp_path / "snap.jsonl"
    snap.write_text(trained + "\n" + plain + "\n", encoding="utf-8")
    assert run("ingest", str(snap)).exit_code == 0
    before = json.loads(run("show", "2511.00001", "--json").stdout)["tags"]
    assert "llm-agent-training" in before  # so teaching it out changes something
    taught = run("topics", "teach", "llm-agent-training", "2511.00002", "--not", "2511.00001")
    assert taught.exit_code == 0, taught.output
    other = tmp_path / "other-store"
    assert run("--db", str(other), "ingest", str(snap)).exit_code == 0
    tags = {
        pid: json.loads(run("--db", str(other), "show", pid, "--json").stdout)["tags"]
        for pid in ("2511.00001", "2511.00002")
    }
    assert "llm-agent-training" not in tags["2511.00001"]
    assert "llm-agent-training" in tags["2511.00002"]


def test_a_refused_topics_add_like_leaves_nothing_behind(stored: Path) -> None:
    """The edit is checked before the model is fitted: a refused add writes no model
    and no examples, so nothing takes over the topic that has the slug."""
    shown = json.loads(run("topics", "show", "gui-agents", "--json").stdout)
    result = run("topics", "add", "GUI Agents", "--like", CHAIN_OF_AGENTS, DATARUS)
    assert result.exit_code == 2
    error_line(result, 2, "already has the slug")
    result = run("topics", "add", "Memory", "--slug", "Bad Slug", "--like", CHAIN_OF_AGENTS)
    error_line(result, 2, "is not a slug")
    assert not (stored / "models").exists() or not list((stored / "models").iterdir())
    assert not (stored / "examples.json").exists()
    assert json.loads(run("topics", "show", "gui-agents", "--json").stdout) == shown


def test_a_slug_renamed_by_hand_keeps_the_topic_when_its_old_model_goes(stored: Path) -> None:
    """The entry's model = "models/OLD.json" still named the old slug's file; a model
    taught under the new slug decides, but the old file deleted with another topic
    of the old slug knocked the renamed topic out ("that topic is skipped")."""
    made = run("topics", "add", "LLM Agent Memory", "--like", CHAIN_OF_AGENTS, COMPUTER_RL)
    assert made.exit_code == 0, made.stderr
    path = stored / "topics.toml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('slug = "llm-agent-memory"', 'slug = "agent-memory"'), "utf-8")
    taught = run("topics", "teach", "agent-memory", DATARUS)
    assert taught.exit_code == 0, taught.stderr
    assert (stored / "models" / "agent-memory.json").is_file()
    (stored / "models" / "llm-agent-memory.json").unlink()
    listed = run("topics", "--json")
    assert "skipped" not in listed.stderr, listed.stderr
    assert "agent-memory" in {t["topic"] for t in json.loads(listed.stdout)}
    assert run("latest", "agent-memory").exit_code == 0


def test_a_new_topic_on_a_slug_freed_by_hand_does_not_take_the_renamed_ones_model(
    stored: Path,
) -> None:
    """A slug renamed by hand, before any teach under the new one: a new topic of the
    old slug deleted the model the renamed topic's entry still named (it was then
    skipped), and took its examples as 'its earlier definition' without a word."""
    made = run("topics", "add", "LLM Agent Memory", "--like", CHAIN_OF_AGENTS, COMPUTER_RL)
    assert made.exit_code == 0, made.stderr
    path = stored / "topics.toml"
    text = path.read_text(encoding="utf-8")
    text = text.replace('slug = "llm-agent-memory"', 'slug = "agent-memory"')
    path.write_text(text.replace('name = "LLM Agent Memory"', 'name = "Agent Memory"'), "utf-8")
    renamed = tagged("agent-memory")
    added = run("topics", "add", "Mem Query", "--slug", "llm-agent-memory", "--query", "memory")
    assert added.exit_code == 0, added.stderr
    assert (
        "2 examples (2 in, 0 out) were kept for 'llm-agent-memory' from an earlier topic "
        "of that slug, which topics.toml no longer has (renamed or deleted by hand?): the "
        "examples teach this topic. 'papertrack topics teach llm-agent-memory --forget' "
        "drops them."
    ) in " ".join(added.stderr.split())
    assert "earlier definition" not in added.stderr
    listed = run("topics", "--json")
    assert "skipped" not in listed.stderr and "missing" not in listed.stderr, listed.stderr
    assert tagged("agent-memory") == renamed  # its model moved, not deleted
    assert (stored / "models" / "agent-memory.json").is_file()
    removed = run("topics", "remove", "llm-agent-memory")
    assert removed.exit_code == 0, removed.stderr
    assert tagged("agent-memory") == renamed


def remove_and_make_again(slug: str) -> str:
    """Remove ``slug``, then run the command its removal printed to make it again (each
    part of it must succeed); that last line of the removal's report."""
    removed = run("topics", "remove", slug)
    assert removed.exit_code == 0, removed.stderr
    last = removed.stderr.rstrip("\n").splitlines()[-1]
    for part in last.split(": ", 1)[1].split(" && "):
        assert run(*shlex.split(part)[1:]).exit_code == 0, part
    return last


def test_a_removed_query_topic_is_made_again_by_the_command_it_prints(stored: Path) -> None:
    query = "memory OR  agent*"
    assert run("topics", "add", "Mem Stuff", "--query", query, "-c", "cs.AI").exit_code == 0
    assert run("topics", "teach", "mem-stuff", CHAIN_OF_AGENTS, "--not", COMPUTER_RL).exit_code == 0
    taught = json.loads((stored / "examples.json").read_text())["topics"]["mem-stuff"]
    assert remove_and_make_again("mem-stuff") == (
        "To make it again with them: papertrack topics add 'Mem Stuff' --query "
        f"'{query}' -c cs.AI && papertrack topics teach mem-stuff {CHAIN_OF_AGENTS} "
        f"--not {COMPUTER_RL}"
    )
    assert json.loads((stored / "examples.json").read_text())["topics"]["mem-stuff"] == taught


def test_a_removed_like_topic_with_a_query_is_made_again_whole(stored: Path) -> None:
    """A topic of --like, --query and --decide both was offered back as its query
    alone, then taught: a topic deciding by the query, twice as large."""
    made = run(
        "topics", "add", "Agent Stuff", "--like", CHAIN_OF_AGENTS, COMPUTER_RL,
        "--query", "agent*", "--decide", "both", "--description", "Agents, as I read them.",
    )  # fmt: skip
    assert made.exit_code == 0, made.stderr
    assert run("topics", "teach", "agent-stuff", "--not", DATARUS).exit_code == 0
    before = json.loads(run("topics", "show", "agent-stuff", "--json").stdout)
    papers = tagged("agent-stuff")
    taught = json.loads((stored / "examples.json").read_text())["topics"]["agent-stuff"]
    ins = " ".join(sorted([CHAIN_OF_AGENTS, COMPUTER_RL]))
    assert remove_and_make_again("agent-stuff") == (
        "To make it again with them: papertrack topics add 'Agent Stuff' --description "
        f"'Agents, as I read them.' --like {ins} --query 'agent*' --decide both && "
        f"papertrack topics teach agent-stuff --not {DATARUS}"
    )
    assert json.loads((stored / "examples.json").read_text())["topics"]["agent-stuff"] == taught
    after = json.loads(run("topics", "show", "agent-stuff", "--json").stdout)
    assert after["decide"] == before["decide"] == "both"
    assert after["description"] == before["description"]
    assert tagged("agent-stuff") == papers


def test_a_topic_renamed_by_hand_keeps_its_teaching(stored: Path) -> None:
    """topics.toml is for editing by hand, and a slug followed the name: renamed, a
    topic made from examples lost them, and the next teach refit from one paper."""
    made = run("topics", "add", "Agent Memory", "--like", CHAIN_OF_AGENTS, COMPUTER_RL)
    assert made.exit_code == 0, made.stderr
    before = json.loads(run("topics", "show", "agent-memory", "--json").stdout)
    assert "2 examples in the topic" in before["note"]
    path = stored / "topics.toml"
    text = path.read_text(encoding="utf-8")
    assert 'slug = "agent-memory"' in text  # written out, so the name can change
    path.write_text(text.replace('name = "Agent Memory"', 'name = "LLM Memory"'), "utf-8")
    shown = json.loads(run("topics", "show", "agent-memory", "--json").stdout)
    assert shown == {**before, "name": "LLM Memory"}
    # A query topic's entry has no slug: renamed, teaching it anew names what was kept.
    assert run("topics", "add", "Mem Q", "--query", "memory").exit_code == 0
    assert run("topics", "teach", "mem-q", CHAIN_OF_AGENTS).exit_code == 0
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('name = "Mem Q"', 'name = "Memory Q"'), "utf-8")
    taught = run("topics", "teach", "memory-q", COMPUTER_RL)
    assert taught.exit_code == 0, taught.stderr
    assert (
        "Note: 1 example is kept for 'mem-q', which is no longer a topic (renamed in "
        f"topics.toml?). To teach it to this topic too: papertrack topics teach memory-q "
        f"{CHAIN_OF_AGENTS}"
    ) in taught.stderr
    # A default topic is no renamed one: its teach is not offered them.
    default = run("topics", "teach", "agentic-rl", CHAIN_OF_AGENTS)
    assert default.exit_code == 0, default.stderr
    assert "no longer a topic" not in default.stderr, default.stderr


def test_a_removed_topics_model_and_examples_go_with_it(stored: Path) -> None:
    """What a topic was taught belongs to it: removed, it does not take over the next
    topic with its slug, which decides by its own definition."""
    result = run("topics", "add", "Agent Memory", "--like", CHAIN_OF_AGENTS, COMPUTER_RL)
    assert result.exit_code == 0, result.stderr
    assert (stored / "models" / "agent-memory.json").is_file()
    result = run("topics", "remove", "agent-memory")
    assert result.exit_code == 0, result.stderr
    assert "Its model and its 2 taught examples were deleted." in result.stderr
    # With their ids, in the command that makes it again: nothing else has them, and
    # 'topics teach agent-memory' could not run with no such topic.
    again = sorted([CHAIN_OF_AGENTS, COMPUTER_RL])
    last = result.stderr.rstrip("\n").splitlines()[-1]
    command = f"papertrack topics add 'Agent Memory' --like {' '.join(again)}"
    assert last == f"To make it again with them: {command}"
    assert not (stored / "models" / "agent-memory.json").exists()
    assert "agent-memory" not in json.loads((stored / "examples.json").read_text())["topics"]
    made = run(*shlex.split(command)[1:])
    assert made.exit_code == 0, made.stderr
    assert run("topics", "remove", "agent-memory").exit_code == 0
    result = run("topics", "add", "Agent Memory", "--query", "memory")
    assert result.exit_code == 0, result.stderr
    shown = json.loads(run("topics", "show", "agent-memory", "--json").stdout)
    assert shown["decide"] == "query"
    trial = json.loads(run("topics", "test", "memory", "--json").stdout)
    assert len(tagged("agent-memory")) == trial["matches"]


def test_removing_a_like_topic_that_replaced_a_default_offers_to_make_it_again(
    stored: Path,
) -> None:
    """It offered 'topics teach gui-agents ID ID': the examples of your own topic
    taught to the shipped GUI Agents that its removal brought back."""
    result = run("topics", "add", "GUI Agents", "--like", CHAIN_OF_AGENTS, COMPUTER_RL, "--replace")
    assert result.exit_code == 0, result.stderr
    result = run("topics", "remove", "gui-agents")
    assert result.exit_code == 0, result.stderr
    assert "The default topic 'GUI Agents' with this slug is back" in result.stderr
    again = " ".join(sorted([CHAIN_OF_AGENTS, COMPUTER_RL]))
    command = f"papertrack topics add 'GUI Agents' --like {again} --replace"
    assert f"To make it again with them: {command}" in result.stderr
    assert "topics teach gui-agents" not in result.stderr
    made = run(*shlex.split(command)[1:])
    assert made.exit_code == 0, made.stderr
    shown = json.loads(run("topics", "show", "gui-agents", "--json").stdout)
    assert shown["source"] == "user"


def test_a_hidden_default_keeps_its_teaching_and_says_so(stored: Path) -> None:
    """Hiding a default is undone by deleting one line: what it was taught comes back
    with it. The message said nothing of it, and the docs said remove deletes it."""
    result = run("topics", "teach", "gui-agents", "--not", CHAIN_OF_AGENTS)
    assert result.exit_code == 0, result.stderr
    result = run("topics", "remove", "gui-agents")
    assert result.exit_code == 0, result.stderr
    assert "Its 1 taught example is kept for when it comes back." in result.stderr
    assert "gui-agents" in json.loads((stored / "examples.json").read_text())["topics"]
    (stored / "topics.toml").unlink()  # brought back, as the message says
    shown = json.loads(run("topics", "show", "gui-agents", "--json").stdout)
    assert shown["taught"]["out"] == [CHAIN_OF_AGENTS]


def test_a_topic_redefined_by_its_query_drops_the_model_of_the_old_definition(
    stored: Path,
) -> None:
    result = run("topics", "add", "Agent Memory", "--like", CHAIN_OF_AGENTS, COMPUTER_RL)
    assert result.exit_code == 0, result.stderr
    result = run("topics", "add", "Agent Memory", "--query", "memory", "--replace")
    assert result.exit_code == 0, result.stderr
    assert "The model taught to its earlier definition is deleted; its 2 examples" in (
        result.stderr
    )
    assert json.loads(run("topics", "show", "agent-memory", "--json").stdout)["decide"] == "query"
    # The examples stay, decided as taught with the new definition at once (listed as
    # taught and not applied, a paper taught out led the topic until the next teach).
    examples = json.loads((stored / "examples.json").read_text())["topics"]["agent-memory"]
    assert examples == {CHAIN_OF_AGENTS: True, COMPUTER_RL: True}
    model = json.loads((stored / "models" / "agent-memory.json").read_text())
    assert model["meta"]["pinned"] == examples and model["meta"]["decide"] == "query"
    assert {CHAIN_OF_AGENTS, COMPUTER_RL} <= set(tagged("agent-memory"))


def test_a_default_redefined_by_a_query_keeps_a_paper_taught_out_out(stored: Path) -> None:
    assert run("topics", "teach", "gui-agents", "--not", CHAIN_OF_AGENTS).exit_code == 0
    result = run("topics", "add", "GUI Agents", "--query", "agent*", "--replace")
    assert result.exit_code == 0, result.stderr
    assert "its 1 example stays, decided as taught with this definition" in result.stderr
    assert CHAIN_OF_AGENTS not in tagged("gui-agents")  # agent* matches it
    assert COMPUTER_RL in tagged("gui-agents")
    explained = run("topics", "explain", CHAIN_OF_AGENTS, "gui-agents")
    assert "You taught it this paper is out" in " ".join(explained.stdout.split())


def test_teaching_a_default_redefined_by_its_own_query_keeps_that_query(stored: Path) -> None:
    """The shipped labels were read against the default's definition: teaching a
    default the user redefined with a query made it decide by the shipped model again,
    untagging papers the user's query matched and nobody had taught out."""
    replaced = run("topics", "add", "GUI Agents", "--query", "agent*", "--replace")
    assert replaced.exit_code == 0, replaced.stderr
    matched = set(tagged("gui-agents"))
    assert CHAIN_OF_AGENTS in matched and COMPUTER_RL in matched and len(matched) > 3
    result = run("topics", "teach", "gui-agents", "--not", CHAIN_OF_AGENTS)
    assert result.exit_code == 0, result.stderr
    assert "It decides by its query; the papers you taught are decided as taught." in (
        result.stderr
    )
    # Its model decides nothing: a note on how that model did would read as if it did,
    # and "refit its model" and "teach it more" promised what more examples never do.
    assert "no example in the topic yet" not in result.stderr
    assert "1 out; pinned them." in result.stderr
    card = " ".join(run("topics", "show", "gui-agents").stdout.split())
    assert "the papers taught are decided as taught; its query, the rest" in card
    assert "teach it more" not in card
    assert set(tagged("gui-agents")) == matched - {CHAIN_OF_AGENTS}
    shown = json.loads(run("topics", "show", "gui-agents", "--json").stdout)
    assert shown["decide"] == "query"


def test_removing_a_topic_retags_with_the_taught_models(stored: Path) -> None:
    """The retag after a remove keeps the other topics' taught models: a paper taught
    out of a default topic stays out."""
    assert CHAIN_OF_AGENTS in tagged("llm-agent-training")
    taught = run("topics", "teach", "llm-agent-training", "--not", CHAIN_OF_AGENTS)
    assert taught.exit_code == 0, taught.stderr
    before = tagged("llm-agent-training")
    assert run("topics", "add", "Zorblax", "--query", "zorblax").exit_code == 0
    result = run("topics", "remove", "zorblax")
    assert result.exit_code == 0, result.stderr
    # As the remove left the store, before any other command brings tags up to date.
    assert Store(stored / "store").count("llm-agent-training") == len(before)
    assert tagged("llm-agent-training") == before


def test_explain_and_topics_test_hold_taught_papers_and_implications(stored: Path) -> None:
    result = run("topics", "teach", "llm-agent-training", "--not", CHAIN_OF_AGENTS)
    assert result.exit_code == 0, result.stderr
    explained = json.loads(
        run("topics", "explain", CHAIN_OF_AGENTS, "llm-agent-training", "--json").stdout
    )
    item = explained["topics"][0] if "topics" in explained else explained
    assert item["matched"] is False and item["taught"] is False
    assert item["reasons"] == ["you taught that it is not in the topic"]
    shown = run("topics", "explain", CHAIN_OF_AGENTS, "llm-agent-training")
    assert "is not in LLM Agent Training" in shown.stdout
    assert "You taught it this paper is out of the topic" in shown.stdout
    # Refit with it as an example: its own words weigh in its score, which is said
    # (after a teach, words only the taught paper has showed as the evidence).
    assert item["fitted_on"] is True
    assert "Its model was fitted with it as an example" in " ".join(shown.stdout.split())
    for slug in ("llm-agent-training", "agentic-rl", "llm-tool-use"):
        trial = json.loads(run("topics", "test", slug, "--json").stdout)
        assert trial["matches"] == len(tagged(slug)), slug


def test_explain_without_a_topic_names_the_topics_a_paper_was_taught_out_of(
    stored: Path,
) -> None:
    """A paper taught out of a topic was simply missing from the list of its topics,
    as if the topic had missed it: the list says the user took it out, and how to
    take that back."""
    before = json.loads(run("topics", "explain", CHAIN_OF_AGENTS, "--json").stdout)
    assert "llm-agent-training" in [t["topic"] for t in before["topics"]]
    assert before["taught_out"] == []
    result = run("topics", "teach", "llm-agent-training", "--not", CHAIN_OF_AGENTS)
    assert result.exit_code == 0, result.stderr
    explained = json.loads(run("topics", "explain", CHAIN_OF_AGENTS, "--json").stdout)
    assert explained["taught_out"] == ["llm-agent-training"]
    assert all(t["matched"] for t in explained["topics"])
    assert "llm-agent-training" not in [t["topic"] for t in explained["topics"]]
    shown = " ".join(run("topics", "explain", CHAIN_OF_AGENTS).stdout.split())
    assert "Taught out by you: LLM Agent Training (llm-agent-training)." in shown
    assert f"'papertrack topics teach llm-agent-training --unteach {CHAIN_OF_AGENTS}'" in shown
    # Taken back, it is named no more.
    undone = run("topics", "teach", "llm-agent-training", "--unteach", CHAIN_OF_AGENTS)
    assert undone.exit_code == 0, undone.stderr
    again = json.loads(run("topics", "explain", CHAIN_OF_AGENTS, "--json").stdout)
    assert again["taught_out"] == []
    assert "Taught out" not in run("topics", "explain", CHAIN_OF_AGENTS).stdout


def test_explain_says_when_a_paper_is_one_the_model_learnt_from(sample_home: Path) -> None:
    """A paper among the labelled papers a model was fitted on was explained as any
    other, its own words shown as evidence for papers like it; its label went
    unsaid. Both are said now, and so is a test-split paper's label."""
    from papertrack import paths, training

    stored = {p["arxiv_id"] for p in json.loads(run("latest", "--json", "-n", "10000").stdout)}
    labelled = [p for p in training.load_labelled(paths.labels_file()) if p.arxiv_id in stored]
    train = next(p for p in labelled if p.split == training.TRAIN)
    test = next(p for p in labelled if p.split != training.TRAIN)
    for paper, fitted in ((train, True), (test, False)):
        slug = "llm-agent-training"
        label = slug in paper.labels
        said = json.loads(run("topics", "explain", paper.arxiv_id, slug, "--json").stdout)
        item = said["topics"][0] if "topics" in said else said
        assert (item["fitted_on"], item["labelled"], item["taught"]) == (fitted, label, None)
        text = " ".join(run("topics", "explain", paper.arxiv_id, slug).stdout.split())
        where = "labelled in the topic" if label else "labelled out of it"
        if fitted:
            assert f"one of the labelled papers its model was fitted on, {where}, so" in text
        else:
            assert "its figures are measured on (the test split" in text and where in text
    # A topic of your own, made from a few examples: only their words weigh; the
    # labelled papers are the background, and a paper taught out is too.
    made = run("topics", "add", "Agent Memory", "--like", *sorted(stored)[:2])
    assert made.exit_code == 0, made.stderr
    said = json.loads(run("topics", "explain", train.arxiv_id, "agent-memory", "--json").stdout)
    item = said["topics"][0] if "topics" in said else said
    assert (item["fitted_on"], item["labelled"]) == (False, None)
    out = sorted(stored)[2]
    assert run("topics", "teach", "agent-memory", "--not", out).exit_code == 0
    shown = run("topics", "explain", out, "agent-memory")
    assert "You taught it this paper is out of the topic" in " ".join(shown.stdout.split())
    assert "own words weigh" not in shown.stdout
    said = json.loads(run("topics", "explain", out, "agent-memory", "--json").stdout)
    item = said["topics"][0] if "topics" in said else said
    assert (item["taught"], item["fitted_on"]) == (False, False)
    # Not one of them: neither.
    other = next(iter(stored - {p.arxiv_id for p in labelled}))
    said = json.loads(run("topics", "explain", other, "gui-agents", "--json").stdout)
    item = said["topics"][0] if "topics" in said else said
    assert (item["fitted_on"], item["labelled"]) == (False, None)


def test_explain_says_nothing_of_fitting_for_a_paper_pinned_to_the_shipped_model(
    stored: Path,
) -> None:
    every = json.loads(run("latest", "--json", "-n", "1000").stdout)
    outside = next(p["arxiv_id"] for p in every if p["arxiv_id"] not in tagged("gui-agents"))
    pinned = run("topics", "teach", "gui-agents", "--not", outside)
    assert pinned.exit_code == 0 and "Already so" in pinned.stderr, pinned.stderr
    kept = json.loads(run("topics", "explain", outside, "gui-agents", "--json").stdout)
    item = kept["topics"][0] if "topics" in kept else kept
    assert item["taught"] is False and item["fitted_on"] is False
    shown = run("topics", "explain", outside, "gui-agents")
    assert "fitted with it" not in " ".join(shown.stdout.split())


def test_teaching_names_a_paper_once_whatever_its_id_form(stored: Path) -> None:
    result = run(
        "topics",
        "teach",
        "llm-agent-training",
        CHAIN_OF_AGENTS,
        "--not",
        f"arXiv:{CHAIN_OF_AGENTS}",
    )
    error_line(result, 2, f"{CHAIN_OF_AGENTS} is named both in and --not")
    assert not (stored / "examples.json").exists()


def test_an_example_the_store_lacks_does_not_stop_teaching(stored: Path) -> None:
    """examples.json belongs to the data home; the store can change (--db): an example
    it lacks stays pinned, and teaching goes on."""
    (stored / "examples.json").write_text(
        json.dumps({"topics": {"llm-agent-training": {"2601.00001": True}}})
    )
    result = run("topics", "teach", "llm-agent-training", "--not", DATARUS)
    assert result.exit_code == 0, result.stderr
    examples = json.loads((stored / "examples.json").read_text())["topics"]
    assert examples["llm-agent-training"] == {"2601.00001": True, DATARUS: False}


def test_a_damaged_taught_model_is_said_and_forget_still_deletes_it(stored: Path) -> None:
    assert run("topics", "teach", "llm-agent-training", "--not", CHAIN_OF_AGENTS).exit_code == 0
    path = stored / "models" / "llm-agent-training.json"
    model = json.loads(path.read_text())
    for damage in ({"pinned": [CHAIN_OF_AGENTS]}, {"examples": [1]}, {"rules": {"model": 3}}):
        path.write_text(json.dumps({**model, "meta": {**model["meta"], **damage}}))
        # Derived data: said, and the topic decides as before it was taught.
        for command in (["latest", "llm-agent-training"], ["topics", "show", "llm-agent-training"]):
            result = run(*command)
            assert result.exit_code == 0, result.stderr
            assert result.stderr.startswith("Warning: the model taught to 'LLM Agent Training'")
            assert "cannot be read" in result.stderr
            assert "teach llm-agent-training ID" in result.stderr
    result = run("topics", "teach", "llm-agent-training", "--forget")
    assert result.exit_code == 0, result.stderr
    assert not path.exists()
    assert CHAIN_OF_AGENTS in tagged("llm-agent-training")


def test_two_teaches_at_once_keep_both_examples(stored: Path) -> None:
    """Each teach reads, refits and writes the examples under a lock of its own: run
    together, neither writes back examples the other has already replaced."""
    import os
    import subprocess
    import sys

    # Each teach waits for the other's whole run: no lock timeout on a slow machine.
    env = {**os.environ, "PAPERTRACK_WORKERS": "1", "PAPERTRACK_LOCK_TIMEOUT": "900"}
    commands = [
        ["topics", "teach", "gui-agents", COMPUTER_RL],
        ["topics", "teach", "agentic-rl", "--not", CHAIN_OF_AGENTS],
    ]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "papertrack", *command],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for command in commands
    ]
    for proc in procs:
        _, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 0, stderr
    examples = json.loads((stored / "examples.json").read_text())["topics"]
    assert examples == {"gui-agents": {COMPUTER_RL: True}, "agentic-rl": {CHAIN_OF_AGENTS: False}}
    for slug, pid, held in (
        ("gui-agents", COMPUTER_RL, True),
        ("agentic-rl", CHAIN_OF_AGENTS, False),
    ):
        model = json.loads((stored / "models" / f"{slug}.json").read_text())
        assert model["meta"]["pinned"] == {pid: held}
    assert COMPUTER_RL in tagged("gui-agents")
    assert CHAIN_OF_AGENTS not in tagged("agentic-rl")


def test_a_topic_made_from_examples_keeps_one_in_and_a_query_topic_can_forget(
    stored: Path,
) -> None:
    result = run("topics", "add", "Agent Memory", "--like", CHAIN_OF_AGENTS)
    assert result.exit_code == 0, result.stderr
    before = tagged("agent-memory")
    for args in (["--forget"], ["--forget", "--not", DATARUS], ["--not", CHAIN_OF_AGENTS]):
        result = run("topics", "teach", "agent-memory", *args)
        error_line(result, 2, "Agent Memory", "made from your examples")
    assert tagged("agent-memory") == before
    # A topic of the user's that decides by its query forgets what it was taught.
    assert run("topics", "add", "Zorb", "--query", "agent*").exit_code == 0
    queried = tagged("zorb")
    assert CHAIN_OF_AGENTS in queried
    assert run("topics", "teach", "zorb", "--not", CHAIN_OF_AGENTS).exit_code == 0
    assert CHAIN_OF_AGENTS not in tagged("zorb")
    result = run("topics", "teach", "zorb", "--forget")
    assert result.exit_code == 0, result.stderr
    assert "Forgot the 1 example taught to Zorb (zorb): it decides by its query" in result.stderr
    assert tagged("zorb") == queried
    assert not (stored / "models" / "zorb.json").exists()


def test_a_category_needs_a_query_to_filter(stored: Path) -> None:
    result = run("topics", "add", "Memory", "--like", CHAIN_OF_AGENTS, "-c", "cs.CV")
    error_line(result, 2, "--category filters a topic's query", "--query")
    assert not (stored / "models").exists() or not list((stored / "models").iterdir())
    # With a query, the categories filter it (the examples' model widens it: either).
    result = run(
        "topics", "add", "Memory", "--like", CHAIN_OF_AGENTS, "--query", "zorblax", "-c", "cs.CV"
    )
    assert result.exit_code == 0, result.stderr


def test_remove_waits_for_the_taught_files_lock_before_it_changes_anything(
    stored: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from papertrack.files import Lock

    result = run("topics", "add", "Agent Memory", "--like", CHAIN_OF_AGENTS, COMPUTER_RL)
    assert result.exit_code == 0, result.stderr
    topics_file = (stored / "topics.toml").read_bytes()
    held = Lock(stored / ".teach.lock", 1.0)
    held.acquire()
    try:
        monkeypatch.setenv("PAPERTRACK_LOCK_TIMEOUT", "0.2")
        error_line(run("topics", "remove", "agent-memory"), 1, "the lock on taught topics")
    finally:
        held.release()
    assert (stored / "topics.toml").read_bytes() == topics_file
    assert (stored / "models" / "agent-memory.json").is_file()
    monkeypatch.delenv("PAPERTRACK_LOCK_TIMEOUT")
    assert run("topics", "remove", "agent-memory").exit_code == 0


def test_ctrl_c_while_waiting_for_the_taught_files_lock_says_nothing_changed(
    stored: Path,
) -> None:
    """It said only "Everything written before the interruption is kept", of nothing."""
    import os
    import signal
    import subprocess
    import sys

    from papertrack.files import Lock

    held = Lock(stored / ".teach.lock", 1.0)
    held.acquire()
    try:
        teach = subprocess.Popen(
            [sys.executable, "-m", "papertrack", "topics", "teach", "gui-agents", COMPUTER_RL],
            env={**os.environ, "PAPERTRACK_LOCK_TIMEOUT": "300"},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert teach.stderr is not None
        waiting = teach.stderr.readline()  # said once it waits
        assert "Waiting for another papertrack process" in waiting, waiting
        teach.send_signal(signal.SIGINT)
        _, rest = teach.communicate(timeout=60)
    finally:
        held.release()
    assert teach.returncode == 130, rest
    assert rest.splitlines()[0] == (
        "Nothing was changed: stopped while waiting for the lock on taught topics."
    )
    assert not (stored / "examples.json").exists()


def test_a_damaged_model_of_a_topic_of_examples_says_to_make_it_again(stored: Path) -> None:
    assert run("topics", "add", "Agent Memory", "--like", CHAIN_OF_AGENTS).exit_code == 0
    (stored / "models" / "agent-memory.json").write_text("{}")
    # The topic is skipped, said on every command, and the others go on working.
    other = run("latest", "llm-agent-training", "-n", "1")
    assert other.exit_code == 0, other.stderr
    (warning,) = other.stderr.splitlines()
    assert warning.startswith("Warning: topic 'Agent Memory' in ")
    assert "agent-memory.json cannot be read" in warning
    assert "topics add NAME --like ID... --replace'; that topic is skipped." in warning
    result = run("topics", "add", "Agent Memory", "--like", CHAIN_OF_AGENTS, "--replace")
    assert result.exit_code == 0, result.stderr
    assert CHAIN_OF_AGENTS in tagged("agent-memory")


def test_a_model_path_written_by_hand_is_not_called_papertrack_s_to_delete(
    stored: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "not-papertracks.json"
    elsewhere.write_text("a file of the user's own")
    with open(stored / "topics.toml", "a", encoding="utf-8") as handle:
        handle.write(f'\n[[topic]]\nname = "Mine"\nquery = "agent"\nmodel = "{elsewhere}"\n')
    result = run("latest", "-n", "1")
    assert result.exit_code == 0, result.stderr
    (warning,) = result.stderr.splitlines()
    assert "not-papertracks.json cannot be read" in warning and "Fix its 'model = ...'" in warning
    assert "Delete" not in warning
    assert elsewhere.read_text() == "a file of the user's own"


def test_a_topic_made_from_examples_and_a_query_cannot_forget_its_model_file(
    stored: Path,
) -> None:
    """Its entry names the model file: forgetting would delete a file the entry still
    needs, however its model (an older papertrack's, say) describes itself."""
    added = run("topics", "add", "Agent Memory", "--like", CHAIN_OF_AGENTS, "--query", "memory")
    assert added.exit_code == 0, added.stderr
    path = stored / "models" / "agent-memory.json"
    model = json.loads(path.read_text())
    model["meta"] = {k: v for k, v in model["meta"].items() if k not in ("like", "decide")}
    path.write_text(json.dumps(model))
    error_line(run("topics", "teach", "agent-memory", "--forget"), 2, "made from your examples")
    assert path.is_file()
    assert run("latest", "agent-memory").exit_code == 0


def test_a_broad_topic_from_examples_says_so_and_replacing_examples_is_said(
    sample_home: Path,
) -> None:
    """One example took 2,437 of 83,510 real papers, a sixth of them on its theme,
    while the report read "1 of 1 reach the threshold"; and `add --like --replace`
    dropped every example taught before without a word."""
    found = json.loads(run("search", "title:unlearning", "--json", "-n", "3").stdout)
    first, second, third = (p["arxiv_id"] for p in found)
    made = run("topics", "add", "LLM Unlearning", "--like", first)
    assert made.exit_code == 0, made.stderr
    taken, total = len(tagged("llm-unlearning")), Store(sample_home / "store").count()
    assert taken > 0.01 * total  # one example: broad
    assert (
        f"Note: it takes {taken:,} of the {total:,} stored papers ({100 * taken / total:.2f}%), "
        "broad for a topic made from examples."
    ) in made.stderr
    assert run("topics", "teach", "llm-unlearning", second, third).exit_code == 0
    again = run("topics", "add", "LLM Unlearning", "--like", first, second, "--replace")
    assert again.exit_code == 0, again.stderr
    assert "made from these 2 examples alone: 1 example taught before was dropped" in again.stderr
    taught = json.loads((sample_home / "examples.json").read_text())["topics"]["llm-unlearning"]
    assert sorted(taught) == sorted([first, second])
    # The ids dropped are named in a command that teaches them again: examples.json
    # no longer holds them, and "teach them again" could not be done.
    command = again.stderr.split("To teach it again: ", 1)[1].split("\n", 1)[0]
    assert command == f"papertrack topics teach llm-unlearning {third}"
    assert run(*command.split()[1:]).exit_code == 0
    taught = json.loads((sample_home / "examples.json").read_text())["topics"]["llm-unlearning"]
    assert sorted(taught) == sorted([first, second, third])
    # What the note advises (teaching more papers in widened such topics on real
    # stores) narrows it: a query its papers must also match.
    assert "A query its papers must also match narrows it" in made.stderr
    assert (
        f"narrows it: papertrack topics add 'LLM Unlearning' --like {first} --query QUERY "
        "--decide both --replace. A paper"
    ) in made.stderr
    broad = set(tagged("llm-unlearning"))
    narrowed = run(
        "topics", "add", "LLM Unlearning", "--like", first, second, third,
        "--query", "title:unlearn*", "--decide", "both", "--replace",
    )  # fmt: skip
    assert narrowed.exit_code == 0, narrowed.stderr
    titled = json.loads(run("search", "title:unlearn*", "--json", "-n", "1000").stdout)
    assert set(tagged("llm-unlearning")) <= {p["arxiv_id"] for p in titled}
    assert 0 < len(tagged("llm-unlearning")) < len(broad)


def test_the_broad_topic_note_teaches_the_papers_taught_out_again(sample_home: Path) -> None:
    """The command it gave listed the papers taught in alone: `topics add` has no
    --not, so running it dropped every paper taught out."""
    found = json.loads(run("search", "title:unlearn*", "--json", "-n", "50").stdout)
    first = found[0]["arxiv_id"]
    made = run("topics", "add", "LLM Unlearning", "--like", first)
    assert made.exit_code == 0 and "broad for a topic made from examples" in made.stderr
    taken = set(tagged("llm-unlearning"))
    # One it misses, taught in (a refit), and one it takes wrongly, taught out.
    second = next(p["arxiv_id"] for p in found if p["arxiv_id"] not in taken)
    papers = {p["arxiv_id"]: p for p in json.loads(run("latest", "--json", "-n", "5000").stdout)}
    outside = next(pid for pid in sorted(taken) if "unlearn" not in papers[pid]["title"].lower())
    taught = run("topics", "teach", "llm-unlearning", second, "--not", outside)
    assert taught.exit_code == 0, taught.stderr
    said = " ".join(taught.stderr.split())
    assert "broad for a topic made from examples" in said, said
    command = said.split("narrows it: ", 1)[1].split(". A paper taught --not", 1)[0]
    assert command == (
        f"papertrack topics add 'LLM Unlearning' --like {min(first, second)} "
        f"{max(first, second)} --query QUERY --decide both --replace && "
        f"papertrack topics teach llm-unlearning --not {outside}"
    )


def test_an_add_interrupted_in_its_retag_says_the_topic_is_added(
    stored: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It said only "Everything written before the interruption is kept", and running
    the command again was refused: the slug was taken."""
    import papertrack.cli.topics as cli_topics

    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:  # (undo() would drop the isolated home too)
        patch.setattr(cli_topics, "_tags_follow", interrupted)
        cut = run("topics", "add", "Chain Agents", "--like", CHAIN_OF_AGENTS, COMPUTER_RL)
    assert cut.exit_code == 130
    assert cut.stderr.strip().splitlines()[-1] == (
        "Interrupted. The topic 'Chain Agents' (chain-agents) is added; the stored papers' "
        "tags catch up at the next command that reads them."
    )
    assert {CHAIN_OF_AGENTS, COMPUTER_RL} <= set(tagged("chain-agents"))


@pytest.mark.parametrize(
    ("now", "gained", "lost", "said"),
    [
        (605, 384, 2, "went from 223 papers to 605 (+171%)."),
        (100, 0, 101, "went from 201 papers to 100 (-50%)."),
        # Four examples more: 439 to 774, one in four of the new papers on its theme.
        (774, 341, 6, "went from 439 papers to 774 (+76%)."),
        (130, 0, 71, "went from 201 papers to 130 (-35%)."),
        (300, 80, 3, None),  # 223 to 300: the counts say enough
        (12, 10, 0, None),  # too small a topic before to call it a swing
    ],
)
def test_a_teach_that_swings_a_topics_size_says_so(
    capsys: pytest.CaptureFixture[str], now: int, gained: int, lost: int, said: str | None
) -> None:
    """Three more examples took a topic made from five from 223 papers to 605, mostly off
    its theme, and the counts alone did not say so."""
    from papertrack.cli.topics_teach import _say_swing
    from papertrack.writer import Retagged

    class Counted:
        def count(self, slug: str) -> int:
            assert slug == "diffusion-robots"
            return now

    _say_swing("diffusion-robots", {"diffusion-robots": Retagged(gained, lost)}, Counted())  # type: ignore[arg-type]
    err = capsys.readouterr().err
    if said is None:
        assert err == ""
    else:
        assert f"Note: the topic {said} Look over the papers above;" in " ".join(err.split())
        assert "topics teach diffusion-robots --unteach ID..." in err
        # The examples this teach fitted on are named: the biggest moves got the vaguest
        # advice, where a smaller one against what was taught named them.
        changes = {"diffusion-robots": Retagged(gained, lost)}
        _say_swing("diffusion-robots", changes, Counted(), None, ["2606.00001", "2606.00002"])  # type: ignore[arg-type]
        named = " ".join(capsys.readouterr().err.split())
        assert named.endswith(
            "'papertrack topics teach diffusion-robots --unteach 2606.00001 2606.00002' "
            "takes them back."
        )
        many = [f"2606.{n:05d}" for n in range(11)]
        _say_swing("diffusion-robots", changes, Counted(), None, many)  # type: ignore[arg-type]
        assert "--unteach ID...' takes back an example" in capsys.readouterr().err


def test_teaching_what_was_taught_already_changes_nothing_and_says_so(stored: Path) -> None:
    """It refit for seconds to the same model and said 'Taught 1 paper'."""
    first = run("topics", "teach", "gui-agents", "--not", CHAIN_OF_AGENTS)
    assert first.exit_code == 0, first.stderr
    model = stored / "models" / "gui-agents.json"
    written = model.stat().st_mtime_ns
    again = run("topics", "teach", "gui-agents", "--not", CHAIN_OF_AGENTS)
    assert again.exit_code == 0, again.stderr
    assert again.stderr.strip() == (
        "The paper named was taught to GUI Agents (gui-agents) so already: nothing more to teach."
    )
    assert model.stat().st_mtime_ns == written
    # Taught the other way, it is a change.
    flipped = run("topics", "teach", "gui-agents", CHAIN_OF_AGENTS)
    assert flipped.exit_code == 0, flipped.stderr
    assert "Taught GUI Agents (gui-agents) 1 paper in and 0 out" in flipped.stderr


def test_a_paper_taught_the_other_way_is_said(stored: Path) -> None:
    """Taught in, then --not: the example flipped without a word (a wrong id pasted
    is the likelier cause)."""
    before = tagged("llm-agent-training")
    outside = first_not_in(before)
    assert run("topics", "teach", "llm-agent-training", outside).exit_code == 0
    result = run("topics", "teach", "llm-agent-training", "--not", outside)
    assert result.exit_code == 0, result.stderr
    assert f"Note: {outside} was taught in before; it is taught out now." in result.stderr
    again = run("topics", "teach", "llm-agent-training", "--not", CHAIN_OF_AGENTS)
    assert "was taught" not in again.stderr


def test_a_teach_that_moves_the_topic_against_what_was_taught_says_so(
    stored: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two right examples more took a topic made from examples from 180 papers to
    130, every one of the 50 on its theme, and the report read as a success."""
    from papertrack.cli.topics_teach import _say_against
    from papertrack.store import Store
    from papertrack.writer import Retagged

    store = Store(stored / "store")
    slug = "large-language-models"
    now = store.count(slug)
    assert now >= 10
    capsys.readouterr()
    # A quarter of the topic: less than the swing _say_swing tells of instead.
    lost = {slug: Retagged(gained=0, lost=now // 4)}
    _say_against(slug, lost, store, ["2501.00001", "2501.00002"], [], set())
    said = capsys.readouterr().err
    assert (
        f"teaching papers in left the topic smaller ({now + now // 4:,} papers to {now:,})" in said
    )
    assert f"'papertrack topics teach {slug} --unteach 2501.00001 2501.00002'" in said
    # Taught in and the topic grew, taught both ways, or examples forgotten: nothing.
    gained = {slug: Retagged(gained=now // 4, lost=0)}
    _say_against(slug, gained, store, ["2501.00001"], [], set())
    _say_against(slug, lost, store, ["2501.00001"], ["2501.00003"], set())
    _say_against(slug, lost, store, ["2501.00001"], [], {"2501.00004"})
    assert capsys.readouterr().err == ""
    _say_against(slug, gained, store, [], ["2501.00003"], set())
    assert "teaching papers out left the topic larger" in capsys.readouterr().err


def test_examples_that_share_little_are_said_to(stored: Path) -> None:
    """ "held out in turn, 1 of 4 reach the threshold" read as neutrally as "4 of 4",
    though it is the one figure that says the examples are not one theme."""
    ids = sorted(p["arxiv_id"] for p in json.loads(run("latest", "--json", "-n", "40").stdout))
    made = run("topics", "add", "Grab Bag", "--like", *ids[::8])
    assert made.exit_code == 0, made.stderr
    model = json.loads((stored / "models" / "grab-bag.json").read_text())
    held = model["meta"]["held_out_recall"]
    said = "Note: most of your examples, each held out, are not found by a model made"
    assert (said in made.stderr) == (held < 0.5)
    assert "your examples are alike" not in made.stderr
    assert held < 0.5  # five papers taken from across a listing share little


def test_a_teach_stopped_while_fitting_says_nothing_was_taught(
    stored: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stopped during its refit, a teach said only "Everything written before the
    interruption is kept": the user could not tell whether it had taught anything."""
    from papertrack import training

    def stopped(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(training, "teach", stopped)
    before = tagged("llm-agent-training")
    result = run("topics", "teach", "llm-agent-training", "--not", CHAIN_OF_AGENTS)
    assert result.exit_code == 130
    assert result.stderr.splitlines()[0] == (
        "Nothing was taught: the examples and the model are as they were."
    )
    assert not (stored / "examples.json").exists()
    assert not (stored / "models" / "llm-agent-training.json").exists()
    assert tagged("llm-agent-training") == before


def test_add_like_and_forget_stopped_say_what_they_left(
    stored: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stopped during its fit, `topics add --like` said only "Everything written
    before the interruption is kept"; `--forget` stopped in its retag did not say
    the tags catch up, as a teach does."""
    import papertrack.cli.topics_teach as cli_teach
    from papertrack import training

    def stopped(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    topics_file = stored / "topics.toml"
    with monkeypatch.context() as patch:
        patch.setattr(training, "teach", stopped)
        cut = run("topics", "add", "Agent Chains", "--like", CHAIN_OF_AGENTS, COMPUTER_RL)
    assert cut.exit_code == 130
    assert cut.stderr.splitlines()[0] == (
        f"Nothing was added: {topics_file} and the taught topics are as they were."
    )
    assert not topics_file.exists() and not (stored / "examples.json").exists()
    assert not (stored / "models" / "agent-chains.json").exists()
    assert run("topics", "teach", "llm-agent-training", "--not", CHAIN_OF_AGENTS).exit_code == 0
    with monkeypatch.context() as patch:
        patch.setattr(cli_teach, "_retag", stopped)
        forgot = run("topics", "teach", "llm-agent-training", "--forget")
    assert forgot.exit_code == 130
    assert "Forgot the 1 example taught to" in forgot.stderr
    assert "The stored papers' tags catch up with it on the next command." in forgot.stderr
    assert CHAIN_OF_AGENTS in tagged("llm-agent-training")  # caught up


def test_a_teach_stopped_in_its_retag_and_run_again_says_what_moved(
    stored: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run again after Ctrl-C in its retag, a teach said "nothing changed" while it
    retagged the topic first: what the teach moved was said nowhere but the log."""
    import papertrack.cli.topics_teach as cli_teach

    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    before = set(tagged("llm-agent-training"))
    with monkeypatch.context() as patch:
        patch.setattr(cli_teach, "_retag", interrupted)
        cut = run("topics", "teach", "llm-agent-training", "--not", CHAIN_OF_AGENTS)
    assert cut.exit_code == 130
    assert "tags catch up with it on the next command" in cut.stderr
    again = run("topics", "teach", "llm-agent-training", "--not", CHAIN_OF_AGENTS)
    assert again.exit_code == 0, again.stderr
    after = set(tagged("llm-agent-training"))
    assert CHAIN_OF_AGENTS in before - after
    moved = f"llm-agent-training +{len(after - before)} -{len(before - after)}"
    (note,) = [line for line in again.stderr.splitlines() if line.startswith("Note: Retagged")]
    assert "a teach interrupted before its retag" in note and moved in note
    assert "so already: nothing more to teach." in again.stderr


def test_an_example_marked_other_than_true_or_false_is_damage_named(stored: Path) -> None:
    """A hand edit's "yes" (or "false", a non-empty string) was read as taught in."""
    assert run("topics", "teach", "llm-agent-training", "--not", CHAIN_OF_AGENTS).exit_code == 0
    path = stored / "examples.json"
    data = json.loads(path.read_text())
    data["topics"]["llm-agent-training"][CHAIN_OF_AGENTS] = "false"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = run("topics", "teach", "llm-agent-training", DATARUS)
    error_line(result, 1, f'llm-agent-training: {CHAIN_OF_AGENTS} is "false", not true or false')
    shown = run("topics", "show", "llm-agent-training", "--json")
    assert shown.exit_code == 0 and json.loads(shown.stdout)["taught"] is None
    assert "examples.json is damaged" in shown.stderr


def test_a_teach_whose_retag_another_command_did_first_says_so(
    stored: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another command (a reader, a fetch's batch) may take the store lock between
    the teach's refit and its retag, and retag for the new model first: the teach
    then said "+0 papers tagged, 0 untagged", a teach that changed nothing."""
    from papertrack.cli import topics_teach as cli_teach
    from papertrack.cli.common import load_catalog

    real = cli_teach._retag

    def another_command_first(store: Store, catalog: Any, pins: Any = None) -> Any:
        store.refresh(load_catalog())  # the other process, with the new model
        return real(store, catalog, pins)

    monkeypatch.setattr(cli_teach, "_retag", another_command_first)
    before = tagged("llm-agent-training")
    outside = first_not_in(before)
    result = run("topics", "teach", "llm-agent-training", outside, "--not", CHAIN_OF_AGENTS)
    assert result.exit_code == 0, result.stderr
    after = tagged("llm-agent-training")
    assert outside in after and CHAIN_OF_AGENTS not in after
    assert "+0 papers tagged, 0 untagged" not in result.stderr
    assert (
        "Another papertrack command retagged the stored papers for it first: "
        f"{len(before):,} stored papers in the topic before, {len(after):,} now."
    ) in result.stderr


def test_a_long_list_of_examples_says_where_they_are_all_listed() -> None:
    """`topics show` cut the taught ids at eight ("and 3 more"): the rest were nowhere
    to be read but examples.json."""
    from papertrack.render import TAUGHT_SHOWN, _taught_line

    ins = [f"2606.{n:05d}" for n in range(TAUGHT_SHOWN + 3)]
    line = _taught_line({"in": ins, "out": ["2605.00001"]})
    assert line.endswith("and 3 more; 1 out: 2605.00001 (--json lists them all)"), line
    assert "--json" not in _taught_line({"in": ins[:TAUGHT_SHOWN], "out": []})


def test_papers_besides_those_taught_are_told_apart_when_the_threshold_stays() -> None:
    """Ten papers besides the two taught moved at a threshold unchanged at +0.60, and
    the teach said why only when the threshold moved."""
    from papertrack.cli.topics_teach import _others_moved
    from papertrack.models import Paper
    from papertrack.writer import Retagged

    named = {"2606.21740v2": Paper(arxiv_id="2606.21740", title="t")}
    assert not _others_moved(None, named)
    assert not _others_moved(Retagged(1, 0, gained_ids=["2606.21740"]), named)
    assert _others_moved(Retagged(1, 1, gained_ids=["2606.21740"], lost_ids=["2606.1"]), named)
    assert _others_moved(Retagged(1, 0, gained_ids=["2606.00001"]), {})


def test_a_paper_taught_against_papertracks_label_is_said(stored: Path, tmp_path: Path) -> None:
    """Found walking through teaching: a labelled paper taught into a topic its label
    has it out of changed the refit's examples (12,865 out became 12,864) without
    a word."""
    import gzip
    from html import escape

    from papertrack import paths
    from papertrack.training import TRAIN

    rows = [json.loads(line) for line in gzip.open(paths.labels_file(), "rt", encoding="utf-8")]
    out = next(r for r in rows if r["split"] == TRAIN and "gui-agents" not in r["labels"])
    inside = next(r for r in rows if r["split"] == TRAIN and "gui-agents" in r["labels"])
    items = "".join(
        f"<item><title>{escape(r['title'])}</title>"
        f"<link>https://arxiv.org/abs/{r['arxiv_id']}</link>"
        f"<guid>oai:arXiv.org:{r['arxiv_id']}v1</guid>"
        f"<description>{escape(r['abstract'])}</description>"
        "<pubDate>Mon, 05 Jan 2026 00:00:00 GMT</pubDate></item>"
        for r in (out, inside)
    )
    feed = tmp_path / "labelled.xml"
    feed.write_text(
        '<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>'
        f"<link>https://example.org</link><description>d</description>{items}</channel></rss>",
        encoding="utf-8",
    )
    assert run("ingest", str(feed)).exit_code == 0
    taught = run("topics", "teach", "gui-agents", out["arxiv_id"], "--not", CHAIN_OF_AGENTS)
    assert taught.exit_code == 0, taught.stderr
    assert (
        f"Note: papertrack's labelled papers have {out['arxiv_id']} the other way for GUI "
        "Agents; the refit learns from your decision instead."
    ) in " ".join(taught.stderr.split())
    # Taught as labelled, nothing is said of it.
    agrees = run("topics", "teach", "gui-agents", inside["arxiv_id"])
    assert agrees.exit_code == 0, agrees.stderr
    assert "labelled papers have" not in agrees.stderr


def test_show_says_why_a_taught_default_has_no_test_split_figures(stored: Path) -> None:
    """The line of test-split figures went with the first teach, and nothing said why."""
    before = " ".join(run("topics", "show", "gui-agents").stdout.split())
    assert "test split precision " in before
    assert (
        run("topics", "teach", "gui-agents", COMPUTER_RL, "--not", CHAIN_OF_AGENTS).exit_code == 0
    )
    after = run("topics", "show", "gui-agents")
    shown = " ".join(after.stdout.split())
    assert (
        "test split measured for the topic as shipped, before papers were taught to it: the "
        "cross-validated figures above are its model's now"
    ) in shown
    assert json.loads(run("topics", "show", "gui-agents", "--json").stdout)["test_split"] is None
    # Forgotten, the shipped model's figures are its own again.
    assert run("topics", "teach", "gui-agents", "--forget").exit_code == 0
    assert "test split precision " in " ".join(run("topics", "show", "gui-agents").stdout.split())


def test_a_model_taught_under_another_matcher_is_neither_warned_of_nor_refit_for_it(
    stored: Path,
) -> None:
    """A topic's definition hashes the matcher's version too: counting every taught
    model whose recorded definition differs as stale would refit a topic of examples
    for papers taught out after an upgrade, and warn of a topics.toml never edited."""
    made = run("topics", "add", "Chain Likes", "--like", CHAIN_OF_AGENTS, COMPUTER_RL)
    assert made.exit_code == 0, made.stderr
    taught = run("topics", "teach", "gui-agents", COMPUTER_RL, "--not", CHAIN_OF_AGENTS)
    assert taught.exit_code == 0, taught.stderr
    for slug in ("chain-likes", "gui-agents"):  # as an older matcher would have hashed it
        path = stored / "models" / f"{slug}.json"
        model = json.loads(path.read_text(encoding="utf-8"))
        model["meta"]["definition"] = "0123456789ab"
        path.write_text(json.dumps(model), encoding="utf-8")
        shown = run("topics", "show", slug)
        assert shown.exit_code == 0 and "Warning" not in shown.stderr, shown.stderr
    outside = first_not_in(tagged("chain-likes"))
    kept = run("topics", "teach", "chain-likes", "--not", outside)
    assert kept.exit_code == 0, kept.stderr
    assert "its model is kept" in kept.stderr and "refit" not in kept.stderr.split(".")[0]
