"""papertrack ask: cited answers from the stored papers, context packs, and the models it asks."""

from __future__ import annotations

import json
import os
import re
import shlex
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
from helpers import DATA, LISTING, error_line, kaggle_line, no_traceback, run

from papertrack.ask import INSTRUCTIONS, check_citations, question_words, sentences_of
from papertrack.store import Store
from papertrack.topics import tokenize

QUESTION = "how are language model agents trained with reinforcement learning?"


@pytest.fixture
def store(isolated_home: Path) -> Store:
    for feed in [LISTING, *sorted((DATA / "api-atom").glob("*.xml"))]:
        assert run("ingest", str(feed)).exit_code in (0, 1)
    return Store(isolated_home / "store")


def asked(*args: str) -> dict[str, object]:
    done = run("ask", *args, "--format", "json")
    assert done.exit_code == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_every_sentence_is_cited_to_a_paper_that_says_it(store: Store) -> None:
    answer = asked(QUESTION)
    # --json is short for --format json, as on every command with both.
    assert json.loads(run("ask", QUESTION, "--json").stdout) == answer
    sentences = answer["answer"]
    papers = {p["n"]: p for p in answer["papers"]}  # type: ignore[attr-defined,index]
    assert 3 <= len(sentences) <= 5  # type: ignore[arg-type]
    assert sorted(papers) == list(range(1, len(papers) + 1))
    words = set(question_words(QUESTION))
    for sentence in sentences:  # type: ignore[attr-defined]
        cited = papers[sentence["cite"]]
        assert sentence["text"] in " ".join(cited["abstract"].split())
        assert words & set(tokenize(sentence["text"])) or any(
            w.startswith(q[:4]) for w in tokenize(sentence["text"]) for q in words
        )
    # Numbered in the order they are first cited.
    first = list(dict.fromkeys(s["cite"] for s in sentences))  # type: ignore[attr-defined]
    assert first == sorted(first)


def test_no_two_sentences_say_the_same_thing(store: Store, tmp_path: Path) -> None:
    same = "We train web agents with reinforcement learning from environment rewards."
    lines = [
        kaggle_line(f"2601.0000{n}", f"Web agent RL {n}", abstract=f"{same} Paper {n} is short.")
        for n in range(1, 4)
    ]
    feed = tmp_path / "same.jsonl"
    feed.write_text("\n".join(lines) + "\n", "utf-8")
    assert run("ingest", str(feed)).exit_code == 0
    answer = asked("web agents trained with reinforcement learning rewards")
    texts = [s["text"] for s in answer["answer"]]  # type: ignore[attr-defined]
    assert texts.count(same) == 1


def test_a_topic_and_since_narrow_the_papers(store: Store) -> None:
    everything = asked(QUESTION)
    narrowed = asked("llm-agent-training", QUESTION)
    assert narrowed["topic"] == "llm-agent-training"
    # --topic, as search and export take it, is the same as the topic before the question.
    assert asked("--topic", "llm-agent-training", QUESTION) == narrowed
    error_line(run("ask", "gui-agents", QUESTION, "-t", "llm-agent-training"), 2, "Give one")
    for paper in narrowed["papers"]:  # type: ignore[attr-defined]
        assert "llm-agent-training" in paper["tags"]
    assert everything["papers"] != narrowed["papers"] or all(
        "llm-agent-training" in p["tags"]
        for p in everything["papers"]  # type: ignore[attr-defined]
    )
    recent = asked(QUESTION, "--since", "2025-08-19")
    for paper in recent["papers"]:  # type: ignore[attr-defined]
        assert paper["paper_date"] >= "2025-08-19"
    # The papers a topic's question weighs are the best of that topic's papers in the
    # whole store's ranking (each week file is read once for them, not once a batch).
    from papertrack.ask import rank_papers

    every = rank_papers(store, QUESTION, limit=10_000)
    for slug in ("llm-agent-training", "large-language-models", "gui-agents"):
        within = [r for r in every if slug in r.paper.tags]
        top = rank_papers(store, QUESTION, topic=slug, limit=3)
        assert [(r.paper.arxiv_id, round(r.score, 3)) for r in top] == [
            (r.paper.arxiv_id, round(r.score, 3)) for r in within[:3]
        ], slug


def test_text_and_markdown_list_the_cited_papers(store: Store) -> None:
    text = run("ask", QUESTION)
    assert text.exit_code == 0
    answer = asked(QUESTION)
    for paper in answer["papers"]:  # type: ignore[attr-defined]
        assert f"[{paper['n']}] {paper['arxiv_id']}" in text.stdout
    markdown = run("ask", QUESTION, "-f", "markdown")
    assert markdown.stdout.startswith("## how are language model agents")
    assert "](https://arxiv.org/abs/" in markdown.stdout
    # Each paper's line: its link, a spaced dash, its authors ("…)— Siqi Pei" ran together).
    listed = [line for line in markdown.stdout.splitlines() if re.match(r"\d+\. \[", line)]
    assert listed and all(") — " in line for line in listed), listed


def test_the_context_pack_numbers_the_papers_and_pipes_into_a_model(store: Store) -> None:
    done = run("ask", QUESTION, "--context", "-n", "4")
    assert done.exit_code == 0
    pack = done.stdout
    assert pack.startswith(f"Question: {QUESTION}")
    assert INSTRUCTIONS in pack
    assert [f"[{n}] " in pack for n in range(1, 5)] == [True] * 4
    assert "[5] " not in pack
    # [n] names the same paper as in the answer to the same question.
    cited = asked(QUESTION, "-n", "4")["papers"]
    for paper in cited:  # type: ignore[attr-defined]
        assert f"[{paper['n']}] {' '.join(paper['title'].split())} (arXiv:" in pack
    # A model stand-in reads the pack on stdin and cites its first paper.
    stand_in = (
        "import sys; pack = sys.stdin.read(); print('Agents learn [1].' if '[1]' in pack else 'no')"
    )
    reply = subprocess.run(
        [sys.executable, "-c", stand_in], input=pack, capture_output=True, text=True, check=True
    )
    assert reply.stdout.strip() == "Agents learn [1]."


def fake_llm(folder: Path, reply: str, code: int = 0) -> Path:
    script = folder / "llm"
    script.write_text(
        f"#!{sys.executable}\nimport sys\npack = sys.stdin.read()\n"
        f"open({str(folder / 'seen.txt')!r}, 'w').write(repr(sys.argv[1:]) + '\\n' + pack)\n"
        f"print({reply!r})\nsys.exit({code})\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def test_llm_gets_the_pack_and_citations_to_no_paper_are_marked(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_llm(tmp_path, "RL trains them [1][2], see also [9].")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    done = run("ask", QUESTION, "--llm", "-m", "some-model", "-n", "3")
    assert done.exit_code == 0, done.stderr
    assert done.stdout.strip() == "RL trains them [1][2], see also [9?]."
    assert "cites [9], which names no paper of the 3 it was given. Check" in done.stderr
    seen = (tmp_path / "seen.txt").read_text()
    assert seen.startswith("['-m', 'some-model']")
    assert f"Question: {QUESTION}" in seen


def test_a_failing_llm_is_one_error_line(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_llm(tmp_path, "", code=3)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    error_line(run("ask", QUESTION, "--llm"), 1, "the 'llm' command failed (exit 3")


def test_an_llm_reply_that_is_empty_or_not_utf8_is_said_not_a_crash(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    fake_llm(tmp_path, "")
    # An empty answer printed a blank line and exit 0, which a script took for one.
    error_line(run("ask", QUESTION, "--llm"), 1, "the model sent an empty answer (llm)")
    script = tmp_path / "llm"
    script.write_text(
        f"#!{sys.executable}\nimport sys\nsys.stdin.read()\n"
        "sys.stdout.buffer.write(b'\\xff\\xfe agents learn [1]\\n')\n"
    )
    done = run("ask", QUESTION, "--llm")
    assert done.exit_code == 0, done.stderr
    assert done.stdout.strip() == "\ufffd\ufffd agents learn [1]"


class Ollama(BaseHTTPRequestHandler):
    prompts: list[dict[str, object]] = []

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Ollama.prompts.append(body)
        data = json.dumps({"response": "From the papers: [2] \x1b[31mred\x1b[0m"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def ollama() -> Iterator[str]:
    server = HTTPServer(("127.0.0.1", 0), Ollama)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def without_llm(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


def test_without_llm_an_ollama_server_answers(
    store: Store, ollama: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    without_llm(monkeypatch, tmp_path)
    monkeypatch.setenv("PAPERTRACK_OLLAMA_URL", ollama)
    Ollama.prompts.clear()
    done = run("ask", QUESTION, "--llm", "--model", "qwen3")
    assert done.exit_code == 0, done.stderr
    assert done.stdout.strip() == "From the papers: [2] red"  # no escape gets through
    assert "\x1b" not in done.stdout
    assert Ollama.prompts[0]["model"] == "qwen3"
    assert str(Ollama.prompts[0]["prompt"]).startswith(f"Question: {QUESTION}")


class DeepOllama(Ollama):
    """A server whose answer nests past Python's stack: [[[[...]]]]."""

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        self.rfile.read(int(self.headers["Content-Length"]))
        data = b"[" * 200_000 + b"]" * 200_000
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def test_an_ollama_answer_nested_too_deeply_is_one_error_line(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = HTTPServer(("127.0.0.1", 0), DeepOllama)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        without_llm(monkeypatch, tmp_path)
        monkeypatch.setenv("PAPERTRACK_OLLAMA_URL", f"http://127.0.0.1:{server.server_port}")
        done = run("ask", QUESTION, "--llm")
    finally:
        server.shutdown()
        server.server_close()
    error_line(done, 1, "did not answer in Ollama's JSON", "Check PAPERTRACK_OLLAMA_URL")


def test_no_model_at_all_is_one_error_line(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    without_llm(monkeypatch, tmp_path)
    monkeypatch.setenv("PAPERTRACK_OLLAMA_URL", "http://127.0.0.1:9")  # nothing listens
    error_line(run("ask", QUESTION, "--llm"), 1, "no model to ask", "leave out --llm")


def test_bad_questions_and_topics(store: Store) -> None:
    error_line(run("ask", "gui-agents", "why", "how"), 2, "Put the question in quotes")
    error_line(run("ask", "no-such-topic", "why?"), 2, "no-such-topic")
    error_line(run("ask", "   "), 2, "the question is empty")
    nothing = run("ask", "zyzzyvas of the quuxes")
    assert nothing.exit_code == 0
    assert "No paper in the store matches" in nothing.stderr
    no_traceback(nothing)
    # With --since and JSON: the reason names the window, and a script gets a document.
    late = run("ask", QUESTION, "--since", "2100-01-01", "--json")
    assert late.exit_code == 0, late.stderr
    assert "No paper in the store dated 2100-01-01 or later matches" in late.stderr
    assert "an earlier --since" in late.stderr
    newest = store.newest_day()
    assert newest is not None
    assert f"The newest stored paper is from {newest:%b} {newest.day}, {newest.year}." in (
        " ".join(late.stderr.split())
    )
    for mode in ("--context", "--llm"):
        error_line(run("ask", QUESTION, mode, "--json"), 2, mode, "Drop one of them")
        error_line(run("ask", QUESTION, mode, "-f", "markdown"), 2, mode, "not --format/--json")
    assert json.loads(late.stdout) == {
        "question": " ".join(QUESTION.split()),
        "topic": None,
        "answer": [],
        "unmatched": [],
        "apart": [],
        "papers": [],
    }


def test_hostile_text_stays_text(isolated_home: Path, tmp_path: Path) -> None:
    line = kaggle_line(
        "2601.00001",
        "Agents [bold red]trained[/] \x1b]52;c;SGVsbG8=\x07 with RL",
        abstract="We train agents with reinforcement learning \u202e and \x1b[2J rewards. "
        "More text here.",
    )
    feed = tmp_path / "bad.jsonl"
    feed.write_text(line + "\n", "utf-8")
    assert run("ingest", str(feed)).exit_code == 0
    for fmt in ("text", "markdown", "json"):
        done = run("ask", "agents trained with reinforcement learning", "-f", fmt)
        assert done.exit_code == 0
        assert (
            "\x1b" not in done.stdout and "\u202e" not in done.stdout and "\x07" not in done.stdout
        )
    assert "[bold red]trained[/]" in run("ask", "agents trained").stdout


def test_check_citations_and_sentences() -> None:
    assert check_citations("a [1] b [3] c [0]", 2) == ("a [1] b [3?] c [0?]", [0, 3])
    assert sentences_of("First sentence is here. Second one (with a dot e.g. here) ends.") == [
        "First sentence is here.",
        "Second one (with a dot e.g. here) ends.",
    ]
    # A stop before a capital after an abbreviation or an initial ends no sentence: the
    # first quote for "what is GRPO?" was "Finally, by integrating SD-GRPO into Dr."
    abstract = (
        "Finally, by integrating SD-GRPO into Dr. GRPO, we improve on both. Results of "
        "Smith et al. (2024) hold, e.g. GPT-4 and i.e. Llama, RL vs. SFT alike. "
        "J. Smith found it too. See Fig. 3 for the curves of each method."
    )
    assert sentences_of(abstract) == [
        "Finally, by integrating SD-GRPO into Dr. GRPO, we improve on both.",
        "Results of Smith et al. (2024) hold, e.g. GPT-4 and i.e. Llama, RL vs. SFT alike.",
        "J. Smith found it too.",
        "See Fig. 3 for the curves of each method.",
    ]
    # A stop with no space after it still ends a sentence between a word and a
    # capitalized one (a real abstract: "deployments.Unlike ... mitigation.To bridge"),
    # quoted as written; names and abbreviations stay whole.
    glued = (
        "Agents break in real-world deployments.Unlike general VLM domains, GUI tasks "
        "need mitigation.To bridge this gap, we use approx.Two tools, Node.js and GPT.We stop."
    )
    assert sentences_of(glued) == [
        "Agents break in real-world deployments.",
        "Unlike general VLM domains, GUI tasks need mitigation.",
        "To bridge this gap, we use approx.Two tools, Node.js and GPT.We stop.",
    ]
    assert question_words("What is the role of GUI agents in RL?") == [
        "role",
        "gui",
        "agents",
        "rl",
    ]


def test_the_topic_page_ends_with_related_topics_and_the_ask_line(store: Store) -> None:
    from papertrack.related import related_topics, shared_counts

    page = run("topic", "llm-agent-training", "--as-of", "2025-08-22", "--json")
    assert page.exit_code == 0, page.stderr
    data = json.loads(page.stdout)
    tags = [p.tags for _, p in store.search(lambda *_: True) if p.paper_date is not None]
    # The recorded feeds all fall inside the chart's 12 weeks before the as-of day.
    want = related_topics(shared_counts(tags), "llm-agent-training", 3)
    assert [(r["topic"], r["shared"], r["overlap"]) for r in data["related"]] == want
    names = {t["topic"]: t["name"] for t in json.loads(run("topics", "--json").stdout)}
    assert [r["name"] for r in data["related"]] == [names[r.slug] for r in want]
    assert len(want) == 3
    assert data["ask"].startswith("papertrack ask llm-agent-training '")
    text = run("topic", "llm-agent-training", "--as-of", "2025-08-22")
    lines = text.stdout.rstrip().splitlines()
    assert lines[-1].startswith("Ask: papertrack ask llm-agent-training")
    # Ranked by overlap, and shown by it: "67 shared" before "98 shared" read as out of order.
    related = " ".join(" ".join(lines[-5:]).split())
    # Counted in the chart's weeks, and said to be: under "Latest papers (N)" the
    # counts read as of every stored paper.
    weeks = len(data["momentum"]["weeks"])
    head = f"Related topics in the {weeks} weeks charted (papers in both, of those in either): "
    assert head in related
    from papertrack.momentum import format_shares

    shares = format_shares([r.overlap or 0.0 for r in want])
    for r, share in zip(want, shares, strict=True):
        assert f"{names[r.slug]} {share} ({r.shared:,})" in related
    # The page's "Follow this topic": the command, then that it is followed.
    assert lines[-2] == "Follow: papertrack follow llm-agent-training"
    assert (data["following"], data["follow"]) == (False, lines[-2].removeprefix("Follow: "))
    assert run("follow", "llm-agent-training").exit_code == 0
    lines = run("topic", "llm-agent-training", "--as-of", "2025-08-22").stdout.splitlines()
    assert lines[-2].startswith("Following: yes: new papers come in your digest")
    assert "'papertrack unfollow llm-agent-training' stops that" in " ".join(lines[-3:])
    followed = json.loads(run("topic", "llm-agent-training", "--json").stdout)
    assert (followed["following"], followed["follow"]) == (
        True,
        "papertrack unfollow llm-agent-training",
    )


@pytest.mark.parametrize("fulltext", ["on", "off"])
def test_a_word_weighs_more_as_more_stored_papers_lack_it(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fulltext: str
) -> None:
    # BM25 counts every paper in scope: with the index, and when scanning without it
    # (which once counted only the papers that matched, so the weight stayed put).
    monkeypatch.setenv("PAPERTRACK_FULLTEXT", fulltext)
    body = "we study the problem with a new method and report results on several tasks"
    matching = [
        kaggle_line(f"2601.0002{i}", f"Paper {i}", abstract=f"Zebra crossings: {body}.")
        for i in range(4)
    ]
    others = [
        kaggle_line(f"2601.001{i:02d}", f"Filler {i}", abstract=f"Lions: {body} again.")
        for i in range(20)
    ]

    def best_score(lines: list[str], name: str) -> float:
        feed = tmp_path / name
        feed.write_text("\n".join(lines) + "\n", encoding="utf-8")
        assert run("ingest", str(feed)).exit_code == 0
        answer = json.loads(run("ask", "which zebra crossings?", "-f", "json").stdout)
        return float(answer["papers"][0]["score"])

    alone = best_score(matching, "matching.jsonl")
    among_others = best_score(others, "others.jsonl")
    # In all 4 papers the words tell nothing; in 4 of 24 they do (idf 0.1 -> 1.7).
    assert among_others > 3 * alone and among_others > 0


def test_equally_relevant_papers_are_the_newest_and_a_topic_finds_all_of_its_own(
    isolated_home: Path, tmp_path: Path
) -> None:
    """2,100 papers the question scores alike: the index's cut kept the papers indexed
    first, not the newest, and a topic's papers outside its first 2,000 were never
    looked at (a topic of 3 answered from none of them)."""
    import random
    from datetime import date, timedelta

    from papertrack.ask import rank_papers

    rng = random.Random(7)
    days = [date(2025, 1, 6) + timedelta(days=n % 500) for n in range(2100)]
    lines = []
    for n, day in enumerate(days):
        stamp = f"{day:%a, %d %b %Y} 10:00:00 GMT"
        # The three oldest papers, listed first, are also about quaggas.
        extra = " Quaggas too." if n < 3 else ""
        lines.append(
            kaggle_line(
                f"{2501 + n // 1000}.{n % 1000:05d}",
                "Zebra stripes",
                abstract="On zebra stripes." + extra,
                versions=[{"version": "v1", "created": stamp}],
            )
        )
    order = list(range(3, len(lines)))
    rng.shuffle(order)  # indexed in no order of date
    feed = tmp_path / "zebras.jsonl"
    feed.write_text("\n".join(lines[i] for i in [0, 1, 2, *order]) + "\n", encoding="utf-8")
    assert run("ingest", str(feed)).exit_code == 0
    assert run("topics", "add", "Quaggas", "--query", "quagga*").exit_code == 0
    store = Store(isolated_home / "store")
    found = rank_papers(store, "zebra", limit=8)
    newest = sorted(days, reverse=True)[:8]
    assert [r.paper.paper_date.date() for r in found if r.paper.paper_date] == newest
    assert len({round(r.score, 3) for r in found}) == 1
    quaggas = rank_papers(store, "zebra", topic="quaggas", limit=8)
    assert sorted(r.paper.arxiv_id for r in quaggas) == ["2501.00000", "2501.00001", "2501.00002"]
    since = datetime(2026, 5, 1, tzinfo=UTC)
    recent = rank_papers(store, "zebra", since=since, limit=300)
    assert len(recent) == sum(day >= since.date() for day in days)


def test_papers_matching_only_by_title_are_listed_with_a_note(
    isolated_home: Path, tmp_path: Path
) -> None:
    # No abstract sentence holds the question's words: the matching papers are
    # still shown, with a word on why there is nothing to quote.
    feed = tmp_path / "titles.jsonl"
    feed.write_text(
        kaggle_line("2601.00011", "Quokka swarms for warehouse logistics", abstract="")
        + "\n"
        + kaggle_line("2601.00012", "Quokka planners", abstract="We study planning. It works.")
        + "\n",
        "utf-8",
    )
    assert run("ingest", str(feed)).exit_code == 0
    done = run("ask", "quokka")
    assert done.exit_code == 0, done.stderr
    assert "No abstract sentence of the 2 papers in the store" in done.stderr
    assert "2601.00011" in done.stdout and "2601.00012" in done.stdout
    # One paper is one paper: "of the 1 papers ... that match" read as a slip.
    one = " ".join(run("ask", "warehouse").stderr.split())
    assert (
        "No abstract sentence of the paper in the store that matches the question holds its "
        "words: listed is that paper."
    ) in one
    markdown = run("ask", "quokka", "--format", "markdown")
    assert "[Quokka planners](https://arxiv.org/abs/2601.00012)" in markdown.stdout


def test_an_entry_of_another_feed_is_not_linked_as_arxiv(
    isolated_home: Path, tmp_path: Path
) -> None:
    record = {
        "arxiv_id": "blog-post-7",
        "title": "Wombat agents",
        "abstract": "Wombat agents dig tunnels with learned policies.",
        "url": "https://example.org/posts/7",
        "published": "2026-01-05T00:00:00Z",
    }
    feed = tmp_path / "blog.jsonl"
    feed.write_text(json.dumps(record) + "\n", "utf-8")
    assert run("ingest", str(feed)).exit_code == 0
    markdown = run("ask", "wombat agents", "--format", "markdown")
    assert markdown.exit_code == 0, markdown.stderr
    assert (
        "[Wombat agents](https://example.org/posts/7), 2026-01-05, blog-post-7" in markdown.stdout
    )
    assert "arxiv" not in markdown.stdout.lower()
    pack = run("ask", "wombat agents", "--context").stdout
    assert "[1] Wombat agents (blog-post-7, 2026-01-05)" in pack
    assert "arXiv:" not in pack and "Authors:" not in pack


def test_an_answer_ranks_the_words_asked_above_words_that_only_begin_alike(
    isolated_home: Path, tmp_path: Path
) -> None:
    """'code generation' was answered first by a paper on image codebooks (code* matched
    codebooks), with a "Code is available at https://…" line quoted as an answer."""
    feed = tmp_path / "code.jsonl"
    feed.write_text(
        "\n".join(
            [
                kaggle_line(
                    "2601.00021",
                    "Code generation with verifiers",
                    abstract="We study code generation with unit-test verifiers. Verifiers "
                    "raise pass rates of code generation by 12 points on hard tasks. Code "
                    "and data for code generation are at https://github.com/example/verify.",
                ),
                kaggle_line(
                    "2601.00022",
                    "Codebooks for image generation",
                    abstract="We learn codebooks for autoregressive image generation. "
                    "Larger codebooks improve the fidelity of generation on ImageNet.",
                ),
            ]
        )
        + "\n",
        "utf-8",
    )
    assert run("ingest", str(feed)).exit_code == 0
    answer = asked("code generation")
    papers = answer["papers"]
    assert papers[0]["arxiv_id"] == "2601.00021", papers  # type: ignore[index]
    texts = [s["text"] for s in answer["answer"]]  # type: ignore[attr-defined]
    assert texts and not any("https://" in t or "github.com" in t for t in texts), texts
    assert answer["answer"][0]["cite"] == 1  # type: ignore[index]


def test_a_search_field_in_a_question_is_said_and_left_out(store: Store) -> None:
    """'author:lecun world models' answered about papers that say "authored"."""
    done = run("ask", f"author:smith {QUESTION}", "--json")
    assert done.exit_code == 0, done.stderr
    assert "Note: ask reads the question as words; 'author' is no field here" in done.stderr
    assert "papertrack search 'author:smith'" in done.stderr
    answer = json.loads(done.stdout)
    assert answer["question"] == f"smith {QUESTION}"
    assert "author" not in question_words(answer["question"])


@pytest.mark.parametrize(
    ("field", "words"),
    [
        ('author:"Yann LeCun"', '"Yann LeCun"'),
        ("title:(agent OR tool)", "(agent OR tool)"),
        ("author:O'Brien", "O'Brien"),
    ],
)
def test_the_search_offered_for_a_field_in_a_question_runs(
    store: Store, field: str, words: str
) -> None:
    """'author:"Yann LeCun" world models' offered search 'author:"Yann', an unterminated
    quote; "author:O'Brien" broke the shell's quotes."""
    done = run("ask", f"{field} {QUESTION}", "--json")
    assert done.exit_code == 0, done.stderr
    offered = done.stderr.split("use papertrack search ", 1)[1].splitlines()[0].removesuffix(".")
    (typed,) = shlex.split(offered)
    assert typed == field
    assert run("search", typed).exit_code == 0
    assert json.loads(done.stdout)["question"] == f"{words} {QUESTION}"


@pytest.mark.parametrize("field", ['author:"Yann LeCun', 'author:"(Yann LeCun', "title:(chain"])
def test_the_search_offered_for_a_field_left_open_is_closed(store: Store, field: str) -> None:
    """A parenthesis inside the open quote is text: closed as a group too, the offered
    search failed with "unbalanced parenthesis"."""
    done = run("ask", f"{field} {QUESTION}", "--json")
    assert done.exit_code == 0, done.stderr
    offered = done.stderr.split("use papertrack search ", 1)[1].splitlines()[0].removesuffix(".")
    (typed,) = shlex.split(offered)
    assert typed.startswith(field)
    assert run("search", typed).exit_code == 0


def okapi_feed(folder: Path, ids: str, title: str, abstracts: tuple[str, ...]) -> Path:
    """A JSON-lines feed of papers IDS1, IDS2, ... titled "TITLE n", one an abstract."""
    feed = folder / "okapi.jsonl"
    feed.write_text(
        "".join(
            kaggle_line(f"{ids}{n}", f"{title} {n}", abstract=text) + "\n"
            for n, text in enumerate(abstracts, start=1)
        ),
        "utf-8",
    )
    return feed


def test_markdown_answer_sentences_stay_paragraphs_whatever_they_start_with(
    isolated_home: Path, tmp_path: Path
) -> None:
    from markdown_it import MarkdownIt

    # Real abstracts enumerate "1) ... 2) Action ...": a sentence so quoted made the
    # whole answer a list item, and a crafted "# ..." a heading.
    abstracts = (
        "We study zebras. 2) Okapi grazing models fail at forest scale. It is slow.",
        "# Okapi grazing needs heading control in wet seasons. It works.",
        "> Okapi grazing was observed by drones since 2020. It works.",
    )
    feed = okapi_feed(tmp_path, "2601.0003", "Okapi grazing", abstracts)
    assert run("ingest", str(feed)).exit_code == 0
    done = run("ask", "okapi grazing", "--format", "markdown")
    assert done.exit_code == 0, done.stderr
    answer = done.stdout.split("\n1. ")[0]
    html = MarkdownIt("commonmark").render(answer)
    assert "<h2>" in html and "<h1>" not in html and "<ol" not in html and "<blockquote" not in html
    # One paragraph a sentence, as the text form has a line each.
    quoted = [line for line in answer.splitlines() if re.search(r" \[\d\]$", line)]
    assert len(quoted) >= 3 and html.count("<p>") == len(quoted), answer
    assert {line[:2] for line in quoted} >= {"2\\", "\\#", "\\>"}, quoted


def test_the_answer_quotes_what_sets_a_paper_apart_not_what_all_share(
    isolated_home: Path, tmp_path: Path
) -> None:
    # Asked about a topic, every paper has its words ("GUI agents", rare in the store):
    # the answer quoted those sentences and none about the training asked about.
    abstracts = (
        "Okapi agents navigate phone screens. Each is trained on phones with rewards.",
        "Okapi agents read phone screens well. Okapi agents click the right buttons.",
        "Okapi agents plan long phone tasks. Okapi agents are evaluated on a new suite.",
    )
    feed = okapi_feed(tmp_path, "2601.0004", "Okapi agents", abstracts)
    assert run("ingest", str(LISTING), str(feed)).exit_code == 0
    assert run("topics", "add", "Okapi", "--query", "okapi").exit_code == 0

    def first_quoted(*args: str) -> str:
        done = run("ask", *args, "--json")
        assert done.exit_code == 0, done.stderr
        return str(json.loads(done.stdout)["answer"][0]["text"])

    trained = "Each is trained on phones with rewards."
    assert first_quoted("okapi", "how are okapi agents trained?") == trained
    # RL in a sentence answers "reinforcement learning" in a question.
    rl = "Okapi agents act on phones. Each is trained with RL."
    feed.write_text(kaggle_line("2601.00044", "Okapi agents 4", abstract=rl) + "\n", "utf-8")
    assert run("ingest", str(feed)).exit_code == 0
    asked = "how are okapi agents trained with reinforcement learning?"
    assert first_quoted("okapi", asked) == "Each is trained with RL."


def _ingest_lines(tmp_path: Path, name: str, lines: list[str]) -> None:
    feed = tmp_path / name
    feed.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert run("ingest", str(feed)).exit_code == 0


def test_a_paper_holding_every_word_asked_outranks_one_rare_word_said_twice(
    isolated_home: Path, tmp_path: Path
) -> None:
    # "what is GRPO's main weakness?" was answered from papers on weaknesses of other
    # things: "weakness" is rarer than "GRPO", and in a title and an abstract it
    # outweighed GRPO in both and "weakness" in the abstract.
    lines = [
        kaggle_line("2601.00001", "Weakness of will", abstract="On weakness of will in people."),
        kaggle_line(
            "2601.00002", "GRPO revisited", abstract="We find a weakness of GRPO on long tasks."
        ),
        *(
            kaggle_line(f"2601.001{n:02d}", f"GRPO variant {n}", abstract="We train with GRPO.")
            for n in range(6)
        ),
        *(
            kaggle_line(f"2601.002{n:02d}", f"Filler {n}", abstract="Lions and tigers.")
            for n in range(20)
        ),
    ]
    _ingest_lines(tmp_path, "grpo.jsonl", lines)
    answer = asked("what is GRPO's main weakness?")
    assert answer["papers"][0]["arxiv_id"] == "2601.00002"  # type: ignore[index]
    assert answer["unmatched"] == []


def test_papers_the_index_scores_alike_are_told_apart_by_their_text(
    isolated_home: Path, tmp_path: Path
) -> None:
    """300 papers hold "agent" and "memory" in title and abstract, so the index scores
    them alike; the oldest says them most. It was never read: the newest 200 of a
    tie were enough, and the answer was the 8 newest papers of the store."""
    from datetime import date, timedelta

    from papertrack.ask import rank_papers

    lines = []
    for n in range(300):
        day = date(2025, 3, 3) + timedelta(days=n)
        stamp = f"{day:%a, %d %b %Y} 10:00:00 GMT"
        abstract = (
            "Agent memory: an agent keeps memory, and agent memory is what we study."
            if n == 0
            else "We study an agent with memory and report results on many long tasks "
            "with several baselines over a number of settings and seeds."
        )
        title = "Agent memory" if n == 0 else f"Agent memory for task {n}"
        versions = [{"version": "v1", "created": stamp}]
        lines.append(kaggle_line(f"2503.{n:05d}", title, abstract=abstract, versions=versions))
    _ingest_lines(tmp_path, "memory.jsonl", lines)
    found = rank_papers(Store(isolated_home / "store"), "agent memory", limit=8)
    assert len({round(r.score, 3) for r in found}) == 1  # scored alike by the index
    assert found[0].paper.arxiv_id == "2503.00000"
    # The rest, equal in their text too, are the newest.
    assert [r.paper.arxiv_id for r in found[1:]] == [f"2503.{n:05d}" for n in range(299, 292, -1)]


def test_what_no_paper_quoted_mentions_is_said(isolated_home: Path, tmp_path: Path) -> None:
    lines = [
        kaggle_line(
            "2601.00001",
            "ARC-AGI-3 in the era of agents",
            abstract="We solve ARC-AGI-3 puzzles with an agent.",
        ),
        kaggle_line(
            "2601.00002",
            "GPT-4 on puzzles",
            abstract="GPT-4 scores well on puzzles. Llama3 shows weaknesses on them.",
        ),
        *(
            kaggle_line(f"2601.002{n:02d}", f"Filler {chr(97 + n)}", abstract="Lions.")
            for n in range(20)
        ),
    ]
    _ingest_lines(tmp_path, "arc.jsonl", lines)
    question = "what score does GPT-7 get on ARC-AGI-5 puzzles with quaggas, or GPT-7 itself?"
    answer = asked(question)
    assert answer["papers"]  # the nearest papers are drawn on all the same
    assert answer["unmatched"] == ["GPT-7", "ARC-AGI-5", "quaggas"]
    said = run("ask", question)
    assert said.exit_code == 0
    quoted = len(answer["papers"])  # type: ignore[arg-type]
    papers = (
        "the paper the answer quotes does not mention"
        if quoted == 1
        else f"none of the {quoted} papers the answer quotes mentions"
    )
    assert (
        f"Note: {papers} 'GPT-7', 'ARC-AGI-5' or 'quaggas': the answer does not speak to them."
    ) in said.stderr
    # Named as the papers write them, or in another spelling of the same name or
    # another form of the word, nothing is said.
    for other in ("how does GPT-4 do on ARC-AGI-3?", "what weakness does Llama-3 show on puzzles?"):
        done = run("ask", other, "--json")
        assert done.exit_code == 0 and json.loads(done.stdout)["unmatched"] == [], other
        assert "does not speak to" not in done.stderr


def _atom(path: Path, entries: list[tuple[str, str, str, list[tuple[str, str]]]]) -> Path:
    """An API page of (id, title, abstract, [(author, affiliation)]), a day apart."""
    from xml.sax.saxutils import escape

    body = ""
    for at, (arxiv_id, title, abstract, authors) in enumerate(entries, start=1):
        day = f"2026-03-{at:02d}T10:00:00Z"
        names = "".join(
            f"<author><name>{escape(name)}</name>"
            + (f"<arxiv:affiliation>{escape(place)}</arxiv:affiliation>" if place else "")
            + "</author>"
            for name, place in authors
        )
        body += (
            f"<entry><id>http://arxiv.org/abs/{arxiv_id}v1</id><updated>{day}</updated>"
            f"<published>{day}</published><title>{escape(title)}</title>"
            f"<summary>{escape(abstract)}</summary>{names}"
            '<arxiv:primary_category term="cs.AI"/><category term="cs.AI"/></entry>'
        )
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom" '
        'xmlns:arxiv="http://arxiv.org/schemas/atom"><id>http://arxiv.org/api/t</id>'
        f"<title>t</title><updated>2026-03-30T00:00:00Z</updated>{body}</feed>",
        encoding="utf-8",
    )
    return path


def test_who_works_on_something_names_the_authors_with_the_most_papers(
    isolated_home: Path, tmp_path: Path
) -> None:
    # "who works on GUI agents?" quoted sentences holding "work" and "group".
    ada, bob, cy = ("Ada Lovelace", "Babbage Lab"), ("Bob Noyce", ""), ("Cy Young", "Babbage Lab")
    gui = "We train GUI agents to click buttons."
    feed = _atom(
        tmp_path / "who.xml",
        [
            ("2603.00001", "GUI agents that click", gui, [ada, bob]),
            ("2603.00002", "Better GUI agents", gui, [ada, cy]),
            ("2603.00003", "Grounding for GUI agents", gui, [("ada  lovelace", ""), bob]),
            ("2603.00004", "Robots", "Our robot agents work in a lab on a GUI.", [cy]),
            ("2603.00005", "Agents in general", "Agents act. A GUI is shown.", [cy, bob]),
            ("2603.00006", "Fish", "Zebrafish swim in groups.", [("Zed Fish", "Sea Lab")]),
        ],
    )
    assert run("ingest", str(feed)).exit_code == 0
    for question in ("who works on GUI agents?", "Which research groups study GUI agents"):
        answer = asked(question)
        assert answer["answer"] == []
        # Counted: the papers holding both words in the title or one sentence; not
        # 2603.00005, whose "GUI" and "agents" are in two sentences.
        assert answer["counted"] == 4
        assert answer["capped"] is False
        people = answer["people"]
        # Two papers or more; the spelling most used; most papers first, then newest.
        assert [(p["name"], p["papers"]) for p in people] == [  # type: ignore[index,union-attr]
            ("Ada Lovelace", 3),
            ("Cy Young", 2),  # 2603.00004 is newer than Bob's newest
            ("Bob Noyce", 2),
        ]
        cited = {p["n"]: p["arxiv_id"] for p in answer["papers"]}  # type: ignore[index,union-attr]
        assert [cited[n] for n in people[0]["cite"]] == [  # type: ignore[index]
            "2603.00003",
            "2603.00002",
            "2603.00001",
        ]
        assert sorted(cited) == list(range(1, len(cited) + 1))
        assert [(p["name"], p["papers"]) for p in answer["affiliations"]] == [  # type: ignore[index,union-attr]
            ("Babbage Lab", 3)
        ]
    text = run("ask", "who works on GUI agents?", env={"COLUMNS": "100"})
    assert text.exit_code == 0, text.stderr
    assert "Authors with the most of the 4 papers that match 'gui agents':" in text.stdout
    assert re.search(r"^  Ada Lovelace\s+3 papers  \[1\] \[2\] \[3\]$", text.stdout, re.M)
    assert "Affiliations with the most of them:" in text.stdout
    assert "[1] 2603.00003" in text.stdout
    markdown = run("ask", "who works on GUI agents?", "-f", "markdown").stdout
    assert "- Ada Lovelace: 3 papers [1] [2] [3]" in markdown
    # The topic's papers, when the question names nothing else.
    topic = run("topics", "add", "Clicking", "--query", "gui")
    assert topic.exit_code == 0, topic.stderr
    mine = asked("clicking", "who works on this?")
    assert mine["counted"] == 5
    # Three papers each; Bob and Cy wrote the newest, and then by name.
    assert [(p["name"], p["papers"]) for p in mine["people"]] == [  # type: ignore[index,union-attr]
        ("Bob Noyce", 3),
        ("Cy Young", 3),
        ("Ada Lovelace", 3),
    ]
    # Nobody with two papers: the papers are listed and that is said.
    lone = run("ask", "who works on zebrafish?")
    assert lone.exit_code == 0, lone.stderr
    assert "Only one paper was counted, so none stands out" in lone.stderr
    assert "[1] 2603.00006" in lone.stdout
    # No paper holds every word: answered as any question, and what none mentions said.
    none = run("ask", "who works on quantum zebras?", "--json")
    assert none.exit_code == 0, none.stderr
    fallback = json.loads(none.stdout)
    assert "people" not in fallback and "quantum" in fallback["unmatched"]
    # A verb of the question is no word of the papers: "who wrote about GUI agents?"
    assert asked("who wrote about GUI agents?")["counted"] == 4
    error_line(run("ask", "who?"), 2, "the question asks who, but not about what")
    # Nobody named twice: --json lists the papers drawn on, as the text does.
    lone_json = asked("who works on zebrafish?")
    assert lone_json["people"] == [] and [p["arxiv_id"] for p in lone_json["papers"]] == [  # type: ignore[index,union-attr]
        "2603.00006"
    ]
    # Of a topic, with --context: the topic's newest papers for the model.
    pack = run("ask", "clicking", "who works on this?", "--context")
    assert pack.exit_code == 0, pack.stderr
    assert "GUI agents that click" in pack.stdout
    # --context is for a model, which reads the papers: ranked as any question.
    assert "[1]" in run("ask", "who works on GUI agents?", "--context").stdout


def test_which_labs_on_papers_without_affiliations_says_so(
    isolated_home: Path, tmp_path: Path
) -> None:
    lines = [
        kaggle_line(
            f"2601.0000{n}",
            f"World models {n}",
            abstract="We learn world models.",
            authors="Ada Lovelace, Bob Noyce",
            authors_parsed=[["Lovelace", "Ada", ""], ["Noyce", "Bob", ""]],
        )
        for n in range(1, 4)
    ]
    feed = tmp_path / "wm.jsonl"
    feed.write_text("\n".join(lines) + "\n", "utf-8")
    assert run("ingest", str(feed)).exit_code == 0
    done = run("ask", "which labs study world models?")
    assert done.exit_code == 0, done.stderr
    assert "none of these papers names its authors' affiliations" in done.stderr
    assert "Ada Lovelace" in done.stdout
    assert "affiliations" not in run("ask", "who works on world models?").stderr


def test_a_sentence_that_points_back_is_quoted_after_one_that_stands_alone(
    isolated_home: Path, tmp_path: Path
) -> None:
    # "These signals are integrated into the agentic RL training loop." names nothing
    # quoted alone; 11% of the sentences quoted for the 20 judged questions began so.
    lines = [
        kaggle_line(
            "2601.00001",
            "Reward signals for web agents",
            abstract="We study many things here today. These reward signals train web agents "
            "over clicks, scrolls and typed text in browsers.",
        ),
        kaggle_line(
            "2601.00002",
            "Training web agents",
            abstract="Dense reward signals from human raters train capable web agents across "
            "shopping, travel and forum sites.",
        ),
    ]
    feed = tmp_path / "lean.jsonl"
    feed.write_text("\n".join(lines) + "\n", "utf-8")
    assert run("ingest", str(feed)).exit_code == 0
    texts = [s["text"] for s in asked("reward signals to train web agents")["answer"]]  # type: ignore[attr-defined]
    assert texts[0].startswith("Dense reward signals")
    assert any(t.startswith("These reward signals") for t in texts[1:])


def test_a_name_the_question_writes_in_capitals_is_checked_however_common(
    isolated_home: Path, tmp_path: Path
) -> None:
    # GRPO is in 1.8% of 83,510 real papers, above the share that makes a word
    # common, and "what is GRPO's main weakness?" quoted papers none of which names it.
    lines = [
        kaggle_line(
            "2601.00001",
            "Weaknesses of vision models",
            abstract="The main weakness of vision models is studied here in depth.",
        ),
        kaggle_line(
            "2601.00002",
            "GRPO for math",
            abstract="We train models on math problems with verifiable rewards.",
        ),
    ]
    feed = tmp_path / "grpo.jsonl"
    feed.write_text("\n".join(lines) + "\n", "utf-8")
    assert run("ingest", str(feed)).exit_code == 0
    named = asked("what is GRPO's main weakness?")
    assert [p["arxiv_id"] for p in named["papers"]] == ["2601.00001"]  # type: ignore[index,union-attr]
    assert named["unmatched"] == ["grpo"]
    # Written as a word, it is as common as it is: half the stored papers hold it.
    assert asked("what is grpo's main weakness?")["unmatched"] == []


def test_what_is_new_is_answered_from_the_latest_papers(
    isolated_home: Path, tmp_path: Path
) -> None:
    # "what is new in GUI Agents?", which the topic page offers, drew on papers of nine
    # months back and quoted "GUI agents are designed to automate repetitive tasks".
    def day(d: str) -> list[dict[str, str]]:
        return [{"version": "v1", "created": f"{d} 10:00:00 GMT"}]

    lines = [
        kaggle_line(
            "2601.00001",
            "Okapi agents",
            abstract="Okapi agents are designed to automate repetitive phone tasks.",
            versions=day("Mon, 5 Jan 2026"),
        ),
        kaggle_line(
            "2603.00002",
            "Okapi agents with memory",
            abstract="Okapi agents forget the screens they saw. We propose a memory for okapi "
            "agents that keeps every screen.",
            versions=day("Mon, 16 Mar 2026"),
        ),
        kaggle_line(
            "2603.00003",
            "Okapi agents at scale",
            abstract="Okapi agents need many phones to learn on.",
            versions=day("Fri, 27 Mar 2026"),
        ),
    ]
    feed = tmp_path / "new.jsonl"
    feed.write_text("\n".join(lines) + "\n", "utf-8")
    assert run("ingest", str(feed)).exit_code == 0
    done = run("ask", "what is new in okapi agents?", "--json")
    assert done.exit_code == 0, done.stderr
    assert "the 28 days to the newest stored one, Feb 28 to Mar 27, 2026" in done.stderr
    answer = json.loads(done.stdout)
    assert {p["arxiv_id"] for p in answer["papers"]} <= {"2603.00002", "2603.00003"}
    # What a paper brings comes before what sets the scene.
    assert answer["answer"][0]["text"].startswith("We propose a memory for okapi agents")
    # --since says where to start instead, and the same words asked otherwise draw
    # on every paper.
    since = run("ask", "what is new in okapi agents?", "--since", "2026-01-01", "--json")
    assert "28 days" not in since.stderr
    assert "2601.00001" in {p["arxiv_id"] for p in json.loads(since.stdout)["papers"]}
    everything = asked("how do okapi agents automate tasks?")
    assert "2601.00001" in {p["arxiv_id"] for p in everything["papers"]}  # type: ignore[union-attr,index]


def test_which_questions_ask_what_is_new() -> None:
    from papertrack.ask import asks_new, asks_who

    for question in (
        "what is new in GUI Agents?",
        "What's new with world models",
        "what are the latest results on agentic RL?",
        "recent advances in agent memory",
        "newest papers on deep research agents",
    ):
        assert asks_new(question), question
    for question in (
        "how are new agents trained?",
        "which benchmarks are used for web agents?",
        "who works on GUI agents?",
    ):
        assert not asks_new(question), question
    assert asks_who("Who is working on this?") and asks_who("which labs study world models?")
    assert asks_who("top authors in agentic RL") and not asks_who("what is the top model?")
    # People in the question, not asked for: answered as any question.
    assert not asks_who("What do researchers think about RLHF?")
    assert asks_who("which research groups study GUI agents?")
    # "new" or "recent" inside another question does not cut it to the last weeks.
    for question in (
        "what is the best way to add new tools to an agent?",
        "What happens when agents face new environments?",
        "what are the limitations of recent LLM agents?",
    ):
        assert not asks_new(question), question


def test_a_question_of_common_words_alone_is_refused_and_whats_new_of_a_topic_is_not(
    store: Store,
) -> None:
    # "the of and" said that no paper matched its words.
    error_line(run("ask", "the of and"), 2, "no word to look up: 'the', 'of', 'and' are too common")
    error_line(run("ask", "?!"), 2, "the question has no words")
    error_line(run("ask", "what's new?"), 2, "new in what?", "papertrack ask gui-agents")
    # Of a topic, "what's new?" is its newest papers and what each brings.
    done = run("ask", "llm-agent-training", "what's new?", "--json")
    assert done.exit_code == 0, done.stderr
    answer = json.loads(done.stdout)
    newest = json.loads(run("latest", "llm-agent-training", "--json", "-n", "8").stdout)
    assert {p["arxiv_id"] for p in answer["papers"]} <= {p["arxiv_id"] for p in newest}
    assert answer["answer"] and all(
        re.search(r"\b(?:we|this (?:paper|work))\b", s["text"], re.I) for s in answer["answer"]
    )


def test_an_answer_on_a_terminal_breaks_between_words(sample_home: Path) -> None:
    """Written as long lines, the terminal broke the answer mid-word; on a terminal
    it is wrapped to its width, a reference hanging under its number. Piped, each
    sentence and reference stays one line, for scripts."""
    import os

    from helpers import run_in_pty

    question = ("ask", "gui-agents", "how are GUI agents trained with reinforcement learning?")
    piped = run(*question)
    assert piped.exit_code == 0, piped.stderr
    env = {**os.environ, "PAPERTRACK_HOME": str(sample_home), "NO_COLOR": "1"}
    code, seen = run_in_pty(*question, env=env, columns=60)
    assert code == 0, seen
    shown = seen.decode("utf-8").replace("\r\n", "\n")
    lines = shown.splitlines()
    assert max(len(line) for line in lines) <= 60
    assert any(len(line) > 60 for line in piped.stdout.splitlines())  # so there was wrapping
    assert shown.split() == piped.stdout.split()  # the same words, in the same order
    references = [line for line in piped.stdout.splitlines() if re.match(r"\[\d+\] ", line)]
    hung = [line for line in lines if line.startswith("    ") and not line.startswith("     ")]
    assert references and hung


def test_a_question_most_of_whose_words_no_paper_holds_says_the_answer_may_miss(
    sample_home: Path,
) -> None:
    """A question in German was answered from papers on WIE (web information
    extraction), chosen by 'wie' alone, as confidently as any other answer."""
    german = run("ask", "Wie werden Agenten mit bestärkendem Lernen trainiert?", "-n", "3")
    assert german.exit_code == 0, german.stderr
    said = " ".join(german.stderr.split())
    assert "most of the question's words are in none of these papers" in said
    assert "ask in English" in said
    english = run("ask", "how are web agents trained with reinforcement learning?", "-n", "3")
    assert english.exit_code == 0, english.stderr
    assert "most of the question's words" not in english.stderr


def test_a_question_about_a_topic_that_holds_no_paper_says_so(sample_home: Path) -> None:
    """It advised "an earlier --since" for a topic no stored paper is in at all."""
    assert run("topics", "add", "Zebras", "--query", "zzzebraqq").exit_code == 0
    asked = run("ask", "zebras", "what's new?")
    assert asked.exit_code == 0, asked.stderr
    said = " ".join(asked.stderr.split())
    assert "No stored paper is in Zebras yet" in said
    assert "an earlier --since" not in said


def test_an_answer_that_joins_papers_on_each_part_of_the_question_says_so(
    isolated_home: Path, tmp_path: Path
) -> None:
    """'quantum zebras' was answered from a paper on zebra brain decoding and one on
    quantum computing, as if one paper spoke to both."""
    lines = [
        kaggle_line(
            "2508.00001",
            "Decoding zebra finch song from neural recordings",
            abstract="We decode the songs of zebra finches from recordings of their brains. "
            "Our decoder reaches high accuracy on held-out birds.",
        ),
        kaggle_line(
            "2508.00002",
            "Error correction for quantum computers",
            abstract="We propose a quantum error-correcting code. It lowers the error rate "
            "of quantum computers by half.",
        ),
        kaggle_line(
            "2508.00003",
            "Quantum sensing of zebra stripes",
            abstract="We measure the stripes of zebras with quantum sensors. The zebra "
            "stripes reflect light in ways quantum sensing can read.",
        ),
    ]
    others = [  # so that neither word is common (in 1% of the papers or more)
        kaggle_line(f"2508.{n:05d}", f"Graph networks {n}", abstract=f"We study graphs {n}.")
        for n in range(10, 210)
    ]
    feed = tmp_path / "papers.jsonl"
    feed.write_text("\n".join(lines[:2] + others) + "\n", encoding="utf-8")
    assert run("ingest", str(feed)).exit_code == 0
    joined = run("ask", "quantum zebras")
    assert joined.exit_code == 0, joined.stderr
    assert (
        "Note: no paper the answer quotes holds all of 'quantum' and 'zebras': it joins "
        "papers on each part, which may not answer the question together."
    ) in " ".join(joined.stderr.split())
    assert json.loads(run("ask", "quantum zebras", "--json").stdout)["apart"] == [
        "quantum",
        "zebras",
    ]
    # One paper about both: nothing to say.
    feed.write_text(lines[2] + "\n", encoding="utf-8")
    assert run("ingest", str(feed)).exit_code == 0
    together = run("ask", "quantum zebras")
    assert together.exit_code == 0 and "holds all of" not in together.stderr
    assert json.loads(run("ask", "quantum zebras", "--json").stdout)["apart"] == []


@pytest.mark.parametrize("fulltext", ["on", "off"])
def test_as_of_answers_from_the_papers_dated_up_to_that_day(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fulltext: str
) -> None:
    """`topic --as-of DAY` shows the page as it stood that day, and its Ask line asked
    about every stored paper, later ones included: ask --as-of leaves them out, with
    the index and scanning without it, for questions, what is new and who."""
    import datetime as dt

    from papertrack import api

    monkeypatch.setenv("PAPERTRACK_FULLTEXT", fulltext)
    start = dt.date(2026, 3, 2)
    lines = []
    for week in range(10):  # one paper on agent training a week, and a filler
        day = start + dt.timedelta(days=7 * week)
        created = f"{day:%a}, {day.day} {day:%b %Y} 10:00:00 GMT"
        for n, (title, abstract) in enumerate(
            [
                (f"Training LLM agents with RL, week {week}", "We train LLM agents with RL."),
                (f"Zebra counts {week}", "We count zebras in photographs."),
            ]
        ):
            lines.append(
                kaggle_line(
                    f"2603.{week:04d}{n}",
                    title,
                    abstract=abstract,
                    authors="Ada Lovelace, Alan Turing",
                    authors_parsed=[["Lovelace", "Ada", ""], ["Turing", "Alan", ""]],
                    versions=[{"version": "v1", "created": created}],
                )
            )
    feed = tmp_path / "weeks.jsonl"
    feed.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert run("ingest", str(feed)).exit_code == 0
    as_of = "2026-04-01"

    def dates(*args: str) -> list[str]:
        return [p["paper_date"][:10] for p in asked(*args, "-n", "20")["papers"]]  # type: ignore[attr-defined]

    question = "how are LLM agents trained with RL?"
    assert max(dates(question)) > as_of  # later papers answer it too
    kept = dates(question, "--as-of", as_of)
    assert kept and max(kept) <= as_of  # (alike abstracts: one is quoted)
    new = run("ask", "llm-agent-training", "what is new?", "--as-of", as_of, "-f", "json")
    assert new.exit_code == 0, new.stderr
    assert "28 days to --as-of, Mar 5 to Apr 1, 2026" in " ".join(new.stderr.split())
    new_dates = [p["paper_date"][:10] for p in json.loads(new.stdout)["papers"]]
    assert new_dates and all("2026-03-05" <= d <= as_of for d in new_dates)
    who = dates("llm-agent-training", "who works on this?", "--as-of", as_of)
    assert who and max(who) <= as_of
    # The topic page's Ask line runs as printed and answers as of the page's day.
    page = json.loads(run("topic", "llm-agent-training", "--as-of", as_of, "--json").stdout)
    assert page["ask"].endswith(f" --as-of {as_of}")
    args = shlex.split(page["ask"])[1:]
    assert max(dates(*args[1:])) <= as_of
    # The Python API gives the same papers.
    answer = api.ask_question(
        Store(isolated_home / "store"), question, as_of=dt.date(2026, 4, 1), papers=20
    )
    drawn = [r.paper.paper_date.date().isoformat() for r in answer.considered]  # type: ignore[union-attr]
    assert len(drawn) == 5 and max(drawn) <= as_of  # Mar 2 to Mar 30
    from papertrack.errors import UsageError

    with pytest.raises(UsageError, match="since 2026-05-01 is after as_of 2026-04-01"):
        api.ask_question(
            Store(isolated_home / "store"),
            question,
            since=dt.date(2026, 5, 1),
            as_of=dt.date(2026, 4, 1),
        )
    error_line(run("ask", question, "--since", "2026-05-01", "--as-of", as_of), 2, "--as-of")
    # A span of --since counts back from --as-of, as topic's relative --as-of does (it
    # counted from the newest paper, May 4, and was refused as after --as-of).
    spanned = dates(question, "--since", "2 weeks ago", "--as-of", as_of)
    assert spanned and all("2026-03-18" <= d <= as_of for d in spanned)
    # What is new, as of a day after the newest paper: the 28 days to that day, as the
    # topic page of that day counts them, not moved back to the newest paper.
    later = run("ask", "llm-agent-training", "what is new?", "--as-of", "2026-05-20")
    assert "28 days to --as-of, Apr 23 to May 20, 2026" in " ".join(later.stderr.split())
    error_line(run("ask", question, "--as-of", "someday"), 2, "--as-of")


def test_a_question_about_what_is_new_is_about_its_other_words() -> None:
    """'latest progress in GUI grounding' drew on sentences of "task progress" and
    "advanced agents", and 'latest' was said to be in none of the papers quoted."""
    assert question_words("latest progress in GUI grounding") == ["gui", "grounding"]
    assert question_words("recent advances in agent memory") == ["agent", "memory"]
    # Not a question about what is new: every word is what it is about.
    assert question_words("progress rewards for web agents") == [
        "progress", "rewards", "web", "agents",
    ]  # fmt: skip
