"""show, search and export: on real recorded feeds and on small feeds built here."""

from __future__ import annotations

import json
import re
import shlex
import time
from pathlib import Path
from xml.sax.saxutils import escape

import feedparser
import pytest
from helpers import ingest, kaggle_line, run
from typer.testing import Result

from papertrack.export import bibtex_escape

DATA = Path(__file__).parent / "data"
LISTING = DATA / "rss" / "atom-cs.AI-2025-08-20.first86.xml"
API_PAGE = DATA / "api-atom" / "arxiv.py-2026-recorded" / "q_testing_s0_m100_cfe7536492ca.xml"

HOSTILE = r"Weird {}&%$#_~^\q title <script>alert(1)</script> ]]> end"


def make_feed(path: Path, items: list[tuple[str, str, str, str]]) -> Path:
    """An RSS 2.0 feed of (arxiv_id, title, description, day as "05 Jan 2026") items."""
    body = "".join(
        f"<item><title>{escape(title)}</title><link>https://arxiv.org/abs/{arxiv_id}</link>"
        f"<guid>oai:arXiv.org:{arxiv_id}v1</guid><description>{escape(text)}</description>"
        f"<author>a@example.org (Ada Lovelace)</author><pubDate>{day} 00:00:00 GMT</pubDate></item>"
        for arxiv_id, title, text, day in items
    )
    path.write_text(
        '<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>t</title>'
        f"<link>https://example.org</link><description>d</description>{body}</channel></rss>",
        encoding="utf-8",
    )
    return path


@pytest.fixture
def small(tmp_path: Path) -> Path:
    feed = make_feed(
        tmp_path / "small.xml",
        [
            ("2601.00001", "Zebra crossings for robots", "Nothing here.", "05 Jan 2026"),
            ("2602.00002", "A newer paper", "We mention a zebra once.", "02 Feb 2026"),
            ("2603.00003", "The newest paper", "Zebra again, in the abstract.", "02 Mar 2026"),
            ("2512.00004", "Old zebra title", "Old.", "01 Dec 2025"),
            ("2603.00005", HOSTILE, "Abstract with $x^2$ & 100% {braces}.", "03 Mar 2026"),
        ],
    )  # fmt: skip
    ingest(feed)
    return feed


# --------------------------------------------------------------------------- show


def test_show_json_equals_latest_json() -> None:
    ingest(LISTING, API_PAGE)
    listed = json.loads(run("latest", "--json", "-n", "500").stdout)
    assert len(listed) > 100
    for expected in (listed[0], listed[-1], listed[len(listed) // 2]):
        result = run("show", expected["arxiv_id"], "--json")
        assert result.exit_code == 0, result.stderr
        assert json.loads(result.stdout) == expected
        # -f json too, as every other view of one thing takes it.
        assert run("show", expected["arxiv_id"], "-f", "json").stdout == result.stdout


def test_show_accepts_every_id_form() -> None:
    ingest(LISTING)
    paper = json.loads(run("latest", "--json", "-n", "1").stdout)[0]
    pid = paper["arxiv_id"]
    forms = [
        pid,
        f"{pid}v2",
        f"arXiv:{pid}",
        f"arxiv:{pid}v1",
        f"https://arxiv.org/abs/{pid}",
        f"https://arxiv.org/abs/{pid}v3",
        f"http://arxiv.org/pdf/{pid}v1.pdf",
        f"https://export.arxiv.org/abs/{pid}",
        f"  {pid}  ",
    ]
    for form in forms:
        result = run("show", form, "--json")
        assert result.exit_code == 0, (form, result.stderr)
        assert json.loads(result.stdout)["arxiv_id"] == pid


def test_show_view_has_every_field() -> None:
    ingest(LISTING)
    paper = json.loads(run("latest", "llm-agent-training", "--json", "-n", "1").stdout)[0]
    result = run("show", paper["arxiv_id"])
    assert result.exit_code == 0, result.stderr
    for text in (
        paper["title"][:30],
        paper["authors"][0],
        paper["announce_type"],
        paper["categories"][0],
        "LLM Agent Training",
        f"{paper['arxiv_id']}v{paper['version']}",
        "Announced",
    ):
        assert text in result.stdout
    # The day latest sorts by, as latest shows it (a listing paper's: its announcement).
    assert paper["paper_date"].startswith("2025-08-20")
    assert re.search(r"Paper date +Aug 20, 2025\n", result.stdout), result.stdout
    # Times as JSON and CSV write them ("+00:00" here, "Z" there).
    assert re.search(rf"Announced +{paper['announced']}\n", result.stdout), result.stdout
    assert "+00:00" not in result.stdout


def test_show_unknown_and_invalid_ids() -> None:
    ingest(LISTING)
    unknown = run("show", "2508.99999")
    assert unknown.exit_code == 1
    assert unknown.stderr.startswith("Error: no paper 2508.99999 in the store. ")
    assert unknown.stdout == ""
    for bad in ("nonsense", "2513.00001", "https://example.org/abs/2508.13167", ""):
        result = run("show", bad)
        assert result.exit_code == 2, bad
        assert "Traceback" not in result.stderr


# --------------------------------------------------------------------------- search


def ids(result: Result) -> list[str]:
    assert result.exit_code == 0, result.stderr
    return [p["arxiv_id"] for p in json.loads(result.stdout)]


def test_search_ranks_title_hits_above_newer_abstract_hits(small: Path) -> None:
    # Title hits newest first, then abstract-only hits newest first.
    assert ids(run("search", "zebra", "--json")) == [
        "2601.00001",
        "2512.00004",
        "2603.00003",
        "2602.00002",
    ]
    assert ids(run("search", "zebra", "--json", "-n", "1")) == ["2601.00001"]
    assert ids(run("search", "zebra", "--json", "-n", "3"))[-1] == "2603.00003"
    # A field restricts both matching and ranking.
    assert ids(run("search", "abstract:zebra", "--json")) == ["2603.00003", "2602.00002"]


def test_search_formats_and_empty(small: Path) -> None:
    lines = run("search", "zebra", "--format", "jsonl").stdout.splitlines()
    assert [json.loads(line)["arxiv_id"] for line in lines][0] == "2601.00001"
    csv_out = run("search", "zebra", "-f", "csv").stdout.splitlines()
    assert csv_out[0].startswith("arxiv_id,") and len(csv_out) == 5
    table = run("search", "zebra")
    assert table.exit_code == 0 and "Zebra crossings for robots" in table.stdout
    # The query as typed: two words are not shown as the phrase "zebra crossing*".
    assert run("search", "zebra  crossing*").stdout.startswith("search: zebra crossing*")
    empty = run("search", "okapi", "--json")
    assert empty.exit_code == 0 and empty.stdout == "[]\n"
    assert "No papers in the store match. No stored paper holds 'okapi'" in empty.stderr
    # A name searched as a plain word is in no title or abstract, but in authors' names:
    # "check the spelling" sent the user the wrong way.
    name = run("search", "Lovelace")
    assert name.exit_code == 0 and not name.stdout
    said = " ".join(name.stderr.split())
    assert said == (
        "No papers in the store match. 'lovelace' is in no stored title or abstract, but in "
        "the author names of 5 papers: write author:lovelace to search names."
    )
    assert len(ids(run("search", "author:lovelace", "--json"))) == 5
    two = run("search", "okapi zebra", "--json")
    assert "No papers in the store match. No stored paper holds 'okapi'" in two.stderr
    apart = run("search", "robots again", "--json")
    assert "No papers in the store match. Words side by side must all match" in apart.stderr


def test_search_since_a_day_keeps_the_papers_dated_from_it(small: Path) -> None:
    # Title hits first, then abstract hits; newest first within each.
    assert ids(run("search", "zebra", "--json")) == [
        "2601.00001", "2512.00004", "2603.00003", "2602.00002"
    ]  # fmt: skip
    assert ids(run("search", "zebra", "--since", "2026-02-02", "--json")) == [
        "2603.00003", "2602.00002"
    ]  # fmt: skip
    # The paper an id names comes first only when it is dated in the range too.
    assert ids(run("search", "2601.00001", "--since", "2026-02-02", "--json")) == []
    late = run("search", "zebra", "--since", "2026-04-01", "--json")
    assert late.exit_code == 0 and late.stdout == "[]\n"
    assert late.stderr.strip() == (
        "No papers in the store dated from 2026-04-01 on match. The newest stored paper "
        "is from Mar 3, 2026. Try an earlier --since, or leave it out."
    )
    # export takes --json, as every other command with -f json does.
    assert ids(run("export", "--query", "zebra", "--json")) == ids(
        run("export", "--query", "zebra", "-f", "json")
    )


def test_search_for_a_papers_id_finds_the_paper_first(small: Path, tmp_path: Path) -> None:
    """An id copied into search found only the papers citing it, and "arXiv:2601.00001"
    was an unknown field: the paper itself comes first, then the papers naming it."""
    citing = make_feed(
        tmp_path / "citing.xml",
        [("2604.00006", "A newer follow-up", "We extend arXiv:2601.00001 to cars.", "06 Apr 2026")],
    )
    ingest(citing)
    for typed in ("2601.00001", "arXiv:2601.00001", "https://arxiv.org/abs/2601.00001v1"):
        result = run("search", typed, "--format", "jsonl")
        assert result.exit_code == 0, result.stderr
        ids = [json.loads(line)["arxiv_id"] for line in result.stdout.splitlines()]
        assert ids == ["2601.00001", "2604.00006"], (typed, ids)
    missing = run("search", "2601.09999")
    assert missing.exit_code == 0 and missing.stdout == ""
    assert "No paper 2601.09999 in the store" in missing.stderr


def test_a_name_is_found_as_a_reader_types_it(tmp_path: Path) -> None:
    """'Søgaard', 'Łódź' and 'Yıldırım' have no accent for folding to drop: typed
    'Sogaard', 'Lodz' or 'Yildirim' they found nothing."""
    ingest(
        make_feed(
            tmp_path / "names.xml",
            [
                ("2601.00011", "Søgaard's corpus from Łódź", "A study.", "05 Jan 2026"),
                ("2601.00012", "Notes by Yıldırım", "Another study.", "06 Jan 2026"),
            ],
        )
    )
    for query, wanted in (
        ("title:sogaard", ["2601.00011"]),
        ("Lodz", ["2601.00011"]),
        ("title:Łódź", ["2601.00011"]),
        ('"notes by yildirim"', ["2601.00012"]),
    ):
        found = json.loads(run("search", query, "--json").stdout)
        assert [p["arxiv_id"] for p in found] == wanted, query


def test_a_query_with_tex_reads_it_as_the_papers_tex_is_read(tmp_path: Path) -> None:
    """A paper's $\\alpha$ is read as α; a query's was read as the word alpha, so a title
    copied from arXiv found nothing (and on 83,510 papers "$\\mu$P" found none of 26)."""
    ingest(
        make_feed(
            tmp_path / "tex.xml",
            [("2601.00021", "Robust $\\alpha$-divergences for RL", "A study.", "05 Jan 2026")],
        )
    )
    for query in ("$\\alpha$-divergences", '"robust $\\alpha$-divergences"', "α-divergences"):
        found = json.loads(run("search", query, "--json").stdout)
        assert [p["arxiv_id"] for p in found] == ["2601.00021"], query
    # Authors' TeX accents are dropped, not rendered: author: is left as it was.
    assert run("search", "author:$\\alpha$").exit_code == 0


@pytest.mark.parametrize(
    "query", ["NOT okapi", "abstract:(zebra OR old OR nothing)", "NOT title:okapi"]
)
def test_a_query_no_title_can_hit_stops_at_the_newest_matches(
    small: Path, isolated_home: Path, query: str
) -> None:
    """With no word that could hit a title, matches rank by date alone: search read
    every week file (4-5 s at 83,510 papers) where latest --query stops at the limit."""
    from papertrack.export import search_papers
    from papertrack.store import Store
    from papertrack.topics import Topic

    store = Store(isolated_home / "store")
    everything = json.loads(run("latest", "--query", query, "--json", "-n", "100").stdout)
    assert len(everything) >= 3
    weeks: list[int] = []
    found = search_papers(
        store,
        Topic(name="Q", slug="q", query=query),
        limit=2,
        progress=lambda d, t: weeks.append(d),
    )
    assert [p.arxiv_id for p in found.papers] == [p["arxiv_id"] for p in everything[:2]]
    assert not found.complete and len(weeks) < len(store.weeks())
    cli = json.loads(run("search", query, "--json", "-n", "2").stdout)
    assert [p["arxiv_id"] for p in cli] == [p["arxiv_id"] for p in everything[:2]]


@pytest.mark.parametrize("command", [["search", "zebra"], ["ask", "how do zebras cross?"]])
def test_an_empty_store_says_how_to_fill_it(command: list[str]) -> None:
    result = run(*command)
    assert result.exit_code == 0
    assert "No papers in the store yet" in result.stderr
    assert "papertrack ingest --sample" in result.stderr


def test_search_inside_a_topic() -> None:
    ingest(LISTING)
    everywhere = ids(run("search", "agent*", "--json", "-n", "500"))
    inside = ids(run("search", "agent*", "--topic", "GUI Agents", "--json", "-n", "500"))
    assert inside and set(inside) < set(everywhere)
    for pid in inside:
        assert "gui-agents" in json.loads(run("show", pid, "--json").stdout)["tags"]
    unknown = run("search", "agent*", "-t", "no-such-topic")
    assert unknown.exit_code == 2


def test_search_syntax_error_names_the_column() -> None:
    result = run("search", 'agent AND "unclosed')
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: ") and "column" in result.stderr


# --------------------------------------------------------------------------- export


def parse_bibtex(text: str) -> list[tuple[str, str, dict[str, str]]]:
    """A small strict BibTeX reader: @type{key, name = {value}, …}, braces balanced."""
    entries = []
    pos = 0
    entry_re = re.compile(r"\s*@(\w+)\{([^,\s{}]+),")
    field_re = re.compile(r"\s*(\w+)\s*=\s*\{")
    macro_re = re.compile(r"\s*(\w+)\s*=\s*([a-z]+|\d+)\s*(,|(?=\s*\}))")  # month = feb
    while pos < len(text.rstrip()):
        head = entry_re.match(text, pos)
        assert head, text[pos : pos + 80]
        pos = head.end()
        fields: dict[str, str] = {}
        while True:
            bare = macro_re.match(text, pos)
            if bare is not None:
                fields[bare.group(1)] = bare.group(2)
                pos = bare.end()
                continue
            found = field_re.match(text, pos)
            if found is None:
                close = re.compile(r"\s*\}\n?").match(text, pos)
                assert close, text[pos : pos + 80]
                pos = close.end()
                break
            depth, i = 1, found.end()
            while depth:
                char = text[i]
                if char == "\\":
                    i += 2
                    continue
                depth += {"{": 1, "}": -1}.get(char, 0)
                i += 1
            fields[found.group(1)] = text[found.end() : i - 1]
            pos = i
            if text[pos] == ",":
                pos += 1
        entries.append((head.group(1), head.group(2), fields))
    return entries


#: The braces export puts around a title's acronyms: {GUI}, ({LLaMA}).
CASE_BRACES = re.compile(r"(?<![\\A-Za-z])\{([^{}\s]*)\}")


def unescape(value: str) -> str:
    for plain, escaped in (
        ("\\", r"\textbackslash{}"),
        ("~", r"\textasciitilde{}"),
        ("^", r"\textasciicircum{}"),
    ):
        value = value.replace(escaped, plain)
    return re.sub(r"\\([{}&%$#_])", r"\1", value)


def test_export_bibtex_is_parseable_escaped_and_stable(small: Path) -> None:
    ingest(LISTING)
    first = run("export", "--format", "bibtex")
    assert first.exit_code == 0, first.stderr
    assert run("export", "--format", "bibtex").stdout == first.stdout
    entries = parse_bibtex(first.stdout)
    keys = [key for _, key, _ in entries]
    assert len(keys) == len(set(keys)) == 86 + 5
    assert all(kind == "misc" and key.startswith("arxiv:") for kind, key, _ in entries)
    hostile = next(f for _, key, f in entries if key == "arxiv:2603.00005")
    assert unescape(hostile["title"]) == HOSTILE
    for special in "&%$#_":
        assert re.search(r"(?<!\\)" + re.escape(special), hostile["title"]) is None
    assert hostile["eprint"] == "2603.00005"
    assert hostile["archivePrefix"] == "arXiv"
    # The month is BibTeX's macro, unbraced, so styles print its name (Mar 3, 2026).
    assert hostile["year"] == "2026" and hostile["month"] == "mar"
    assert re.search(r"^  month\s+= mar,$", first.stdout, re.MULTILINE)
    assert "month = {" not in first.stdout.replace("  ", " ")
    assert hostile["url"] == "https://arxiv.org/abs/2603.00005"
    # Titles keep their acronyms' case against sentence-casing styles: {GUI}, {LLMs}.
    titles = [f["title"] for _, _, f in entries]
    assert sum("{LLM" in t or "{GUI}" in t for t in titles) >= 10
    # Every value of every entry keeps its braces balanced and its specials escaped.
    for _, _, fields in entries:
        for name, value in fields.items():
            if name == "title":
                value = CASE_BRACES.sub(r"\1", value)
            bare = re.sub(r"\\(textbackslash|textasciitilde|textasciicircum)\{\}|\\.", "", value)
            assert not re.search(r"[{}&%$#_~^\\]", bare), value


def test_bibtex_escape_is_one_pass() -> None:
    assert bibtex_escape(r"\&") == r"\textbackslash{}\&"
    assert bibtex_escape("a_b\n  c") == r"a\_b c"


def test_export_atom_reads_back_in_feedparser(small: Path) -> None:
    ingest(LISTING)
    result = run("export", "--format", "atom")
    assert result.exit_code == 0, result.stderr
    parsed = feedparser.parse(result.stdout.encode("utf-8"))
    assert parsed.bozo == 0, parsed.get("bozo_exception")
    assert parsed.version == "atom10"
    papers = json.loads(run("export", "--format", "json").stdout)
    assert [e.id for e in parsed.entries] == [
        f"https://arxiv.org/abs/{p['arxiv_id']}" for p in papers
    ]
    assert [e.title for e in parsed.entries] == [" ".join(p["title"].split()) for p in papers]
    hostile = next(e for e in parsed.entries if e.id.endswith("2603.00005"))
    assert hostile.title == HOSTILE
    assert "<script>" not in result.stdout and "]]>" not in result.stdout
    # As new as its newest entry, not the time of the export: the same papers, the
    # same bytes (a cron job's feed changed every run with nothing new).
    assert parsed.feed.updated_parsed == max(e.updated_parsed for e in parsed.entries)
    assert run("export", "--format", "atom").stdout == result.stdout
    # So does a feed of no paper, whose stamp was the time of the run.
    empty = run("export", "--format", "atom", "--query", "zzqqxx").stdout
    assert feedparser.parse(empty.encode("utf-8")).feed.updated == "1970-01-01T00:00:00Z"
    time.sleep(1.1)
    assert run("export", "--format", "atom", "--query", "zzqqxx").stdout == empty


def test_export_filters_and_output_file(small: Path, tmp_path: Path) -> None:
    ingest(LISTING)
    every = json.loads(run("export", "-f", "json").stdout)
    dates = [p["paper_date"] for p in every]
    assert dates == sorted(dates, reverse=True)
    topic = json.loads(run("export", "-f", "json", "--topic", "gui-agents").stdout)
    assert topic and all("gui-agents" in p["tags"] for p in topic)
    since = json.loads(run("export", "-f", "json", "--since", "2026-02-01").stdout)
    assert [p["arxiv_id"] for p in since] == ["2603.00005", "2603.00003", "2602.00002"]
    query = run("export", "-f", "jsonl", "--query", "zebra").stdout.splitlines()
    assert len(query) == 4 and all(json.loads(line)["arxiv_id"] for line in query)
    target = tmp_path / "out" / "papers.bib"
    missing = run("export", "-f", "bibtex", "--output", str(target))  # a typo, not a folder to make
    assert missing.exit_code == 2 and "no folder" in missing.stderr
    assert not target.parent.exists()
    # Said before the store is read: an export of 83,510 papers said so after 8 s.
    from papertrack.store import Store

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Store, "weeks", lambda *a, **k: pytest.fail("the store was read"))
        for command in (["export", "-f", "json"], ["digest", "-f", "markdown"]):
            early = run(*command, "--output", str(target))
            assert early.exit_code == 2 and "no folder" in early.stderr, command
    target.parent.mkdir()
    (target.parent / "link.bib").symlink_to(target)  # written through, the link kept
    result = run("export", "-f", "bibtex", "--topic", "gui-agents", "--output", str(target))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    assert f"Wrote {len(topic)} papers" in result.stderr
    assert len(parse_bibtex(target.read_text(encoding="utf-8"))) == len(topic)
    assert sorted(p.name for p in target.parent.iterdir()) == ["link.bib", "papers.bib"]
    again = run("export", "-f", "json", "--output", str(target.parent / "link.bib"))
    assert again.exit_code == 0 and (target.parent / "link.bib").is_symlink()
    assert json.loads(target.read_text(encoding="utf-8"))  # the link's target was replaced
    assert run("export", "-f", "json", "--query", "(").exit_code == 2
    assert run("export", "-f", "yaml").exit_code == 2
    empty = run("export", "-f", "json", "--since", "2030-01-01")
    assert empty.exit_code == 0 and empty.stdout == "[]\n"


def test_an_export_whose_query_matches_nothing_says_so_and_why(small: Path, tmp_path: Path) -> None:
    """It wrote nothing and said nothing: search and latest --query say why."""
    ingest(LISTING)
    empty = run("export", "-f", "bibtex", "--query", "zzzqqq")
    assert empty.exit_code == 0 and empty.stdout == ""
    assert "No papers in the store match. No stored paper holds 'zzzqqq'" in empty.stderr
    target = tmp_path / "none.bib"
    written = run("export", "-f", "bibtex", "--query", "zzzqqq", "-o", str(target))
    assert "Wrote 0 papers" in written.stderr and "No stored paper holds 'zzzqqq'" in written.stderr
    # A word the store holds, but not in the topic: not "words side by side must all
    # match", which search does not say of one word either.
    one = run("export", "-f", "json", "-t", "gui-agents", "--query", "zebra")
    assert one.stdout == "[]\n"
    assert "No papers in the papers of GUI Agents match. Check the spelling" in one.stderr
    assert "side by side" not in one.stderr


def test_an_export_of_a_topic_with_no_papers_or_of_an_empty_store_says_so(
    isolated_home: Path, tmp_path: Path
) -> None:
    """A cron job writing a topic's .bib got an empty file, and nothing said why."""
    empty = run("export", "-f", "json")
    assert empty.exit_code == 0 and empty.stdout == "[]\n"
    assert empty.stderr.startswith("No papers in the store yet. Run 'papertrack ingest FILE'")
    ingest(LISTING)
    assert run("export", "-f", "json", "-t", "terminal-agents").stdout == "[]\n"  # none there
    none = run("export", "-f", "bibtex", "-t", "terminal-agents")
    assert none.exit_code == 0 and none.stdout == ""
    said = "No papers of 'Terminal Agents' in the store yet. Ingest feeds of its categories."
    assert none.stderr.strip() == said
    target = tmp_path / "terminal.bib"
    written = run("export", "-f", "bibtex", "-t", "terminal-agents", "-o", str(target))
    assert written.stderr.splitlines() == [f"Wrote 0 papers to {target}.", said]
    # With papers, nothing more is said on stdout's side.
    some = run("export", "-f", "bibtex", "-t", "llm-agent-training")
    assert some.stdout.startswith("@") and "in the store yet" not in some.stderr


def test_an_atom_export_larger_than_papertrack_reads_back_says_so(
    small: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 205 MB Atom export was written without a word, then refused by ingest."""
    from papertrack import feeds

    ingest(LISTING)
    target = tmp_path / "all.atom"
    quiet = run("export", "-f", "atom", "-o", str(target))
    assert quiet.exit_code == 0 and "larger than" not in quiet.stderr
    monkeypatch.setattr(feeds, "MAX_FEED_BYTES", target.stat().st_size - 1)
    said = run("export", "-f", "atom", "-o", str(target))
    assert said.exit_code == 0
    assert "larger than papertrack reads back from one XML feed" in said.stderr
    assert "-f jsonl" in said.stderr
    refused = run("ingest", str(target))
    assert refused.exit_code == 1 and "larger than" in refused.stderr


def test_an_export_to_a_file_is_spooled_to_disk_past_a_size(
    small: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An export to a file was held whole in memory before its atomic write: 765 MB
    for the 83,510 real papers. Past SPOOL_BYTES it goes to a temporary file."""
    import tempfile

    from papertrack.cli import find

    ingest(LISTING)
    rolled: list[int] = []
    real = tempfile.SpooledTemporaryFile

    class Watched(real):  # type: ignore[misc, valid-type]
        def rollover(self) -> None:
            rolled.append(1)
            # Beside the file it replaces, not in TMPDIR: on the disk it goes to.
            assert self._TemporaryFileArgs["dir"] == str(tmp_path)
            super().rollover()

    monkeypatch.setattr(tempfile, "SpooledTemporaryFile", Watched)
    monkeypatch.setattr(find, "SPOOL_BYTES", 4096)
    for fmt in ("jsonl", "atom", "bibtex"):
        target = tmp_path / f"all.{fmt}"
        url = ["--feed-url", "https://example.org/all.xml"] if fmt == "atom" else []
        assert run("export", "-f", fmt, *url, "-o", str(target)).exit_code == 0
        streamed = run("export", "-f", fmt, *url).stdout
        assert len(streamed) > 4096 and target.read_text(encoding="utf-8") == streamed, fmt
    assert len(rolled) == 3


def test_output_never_replaces_what_papertrack_keeps(
    small: Path, isolated_home: Path, tmp_path: Path
) -> None:
    """-o into the store replaced a week file with an export, and doctor --repair then
    lost 311 papers; -o onto topics.toml lost the user's topics."""
    from tests.helpers import error_line

    ingest(LISTING)
    store = isolated_home / "store"
    week = next((store / "papers").glob("*.json"))
    kept = {path: path.read_bytes() for path in store.rglob("*") if path.is_file()}
    (isolated_home / "topics.toml").write_text("# mine\n", encoding="utf-8")
    owned = [week, store / "index.json", store / "new.csv", isolated_home / "topics.toml"]
    from papertrack.paths import OWN_FILES

    home_own = [*OWN_FILES, "papertrack.log.1", "fetch-run-0123456789ab.lock"]
    for named in (*owned, *(isolated_home / name for name in home_own)):
        for command in (["export", "-f", "csv"], ["digest"]):
            result = run(*command, "-o", str(named))
            error_line(result, 2, str(named), "Name a file elsewhere")
    error_line(run("site", "-o", str(store / "site")), 2, "Name a folder elsewhere")
    # The store itself, named once ("X is X, which papertrack keeps" named it twice).
    line = error_line(run("site", "-o", str(store)), 2)
    assert line == (
        f"Error: {store} is the store, which papertrack keeps: writing there would damage "
        "it. Name a folder elsewhere."
    )
    assert {path: path.read_bytes() for path in store.rglob("*") if path.is_file()} == kept
    assert (isolated_home / "topics.toml").read_text(encoding="utf-8") == "# mine\n"
    # A log file that is a device is written into, not replaced: /dev/null may be both.
    result = run("export", "-f", "csv", "-o", "/dev/null", env={"PAPERTRACK_LOG_FILE": "/dev/null"})
    assert result.exit_code == 0, result.stderr
    # Another store (--db) is papertrack's too.
    other = tmp_path / "other-store"
    result = run("--db", str(other), "export", "-f", "csv", "-o", str(other / "x.csv"))
    error_line(result, 2, "Name a file elsewhere")
    assert not other.exists()


def test_output_dash_is_standard_output_and_a_replaced_file_keeps_its_mode(
    small: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import stat

    ingest(LISTING)
    monkeypatch.chdir(tmp_path)
    result = run("export", "-f", "jsonl", "-o", "-")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == run("export", "-f", "jsonl").stdout and result.stdout
    assert not (tmp_path / "-").exists()
    from tests.helpers import error_line

    error_line(run("site", "-o", "-"), 2, "Name a folder")
    assert not (tmp_path / "-").exists()
    private = tmp_path / "papers.csv"
    private.write_text("old\n", encoding="utf-8")
    private.chmod(0o600)
    assert run("export", "-f", "csv", "-o", str(private)).exit_code == 0
    assert private.read_text(encoding="utf-8").startswith("arxiv_id,")
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    if os.geteuid() != 0:  # root may write a read-only file
        private.chmod(0o400)
        error_line(run("export", "-f", "csv", "-o", str(private)), 2, "is read-only")
        assert stat.S_IMODE(private.stat().st_mode) == 0o400


def test_bibtex_keeps_urls_and_dois_verbatim_but_closed() -> None:
    from papertrack.export import bibtex_entry
    from papertrack.models import Paper

    paper = Paper(
        arxiv_id="2508.13167",
        title="A_b & c",
        version=2,
        doi="10.1000/x_y%z{}\\evil }",
        authors=("Ada Lovelace",),
    )
    entry = bibtex_entry(paper)
    fields = dict(line.strip().rstrip(",").split(" = ", 1) for line in entry.splitlines()[1:-1])
    fields = {key.strip(): value for key, value in fields.items()}
    # Braces that pair up are the DOI's own (and close each other in the field).
    assert fields["doi"] == "{10.1000/x_y%z{}evil}"
    braced = bibtex_entry(Paper(arxiv_id="2508.13167", title="t", doi="10.1002/a{b}c}{"))
    assert "doi           = {10.1002/a{b}c}\n" in braced
    assert fields["url"] == "{https://arxiv.org/abs/2508.13167}"
    assert fields["eprint"] == "{2508.13167}"
    assert r"A\_b \& c" in entry
    assert entry.count("{") == entry.count("}")


def test_export_without_a_format_is_one_line() -> None:
    from tests.helpers import error_line

    line = error_line(run("export"), 2, "no --format given", "-f bibtex", "-f jsonl")
    assert "Choose from" not in line


def test_interrupted_export_says_the_file_was_left_alone(
    small: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import papertrack.export

    ingest(LISTING)
    target = tmp_path / "papers.bib"
    target.write_text("% the export of last week\n", encoding="utf-8")

    def interrupted(*args: object, **kwargs: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(papertrack.export, "write_export", interrupted)
    result = run("export", "-f", "bibtex", "-o", str(target))
    assert result.exit_code == 130
    assert result.stderr.strip() == f"Interrupted. {target} was left as it was."
    assert target.read_text(encoding="utf-8") == "% the export of last week\n"
    to_stdout = run("export", "-f", "bibtex")
    assert to_stdout.exit_code == 130
    assert to_stdout.stderr.strip() == "Interrupted. The export is incomplete."


def test_output_into_a_pipe_writes_into_it_and_keeps_it(small: Path, tmp_path: Path) -> None:
    """A FIFO (or /dev/stdout, a device) named by -o is written into, never replaced by
    a regular file: as root, -o /dev/stderr 2>/dev/null replaced the real /dev/null."""
    import os
    import stat
    import threading

    ingest(LISTING)
    folder = tmp_path / "out"
    folder.mkdir()
    fifo = folder / "papers.fifo"
    os.mkfifo(fifo)
    link = folder / "link"
    link.symlink_to(fifo)
    for named in (fifo, link):
        got: list[bytes] = []
        reader = threading.Thread(
            target=lambda into=got: into.append(fifo.read_bytes()), daemon=True
        )  # daemon: were the FIFO replaced, the reader would wait on it for ever
        reader.start()
        result = run("export", "-f", "jsonl", "-o", str(named))
        reader.join(timeout=60)
        assert result.exit_code == 0, result.stderr
        assert stat.S_ISFIFO(fifo.stat().st_mode) and link.is_symlink()
        lines = got[0].decode("utf-8").splitlines()
        assert len(lines) == len(run("export", "-f", "jsonl").stdout.splitlines()) > 0
    assert sorted(p.name for p in folder.iterdir()) == ["link", "papers.fifo"]


def test_output_to_dev_stdout_appends_to_what_the_shell_opened(
    small: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`-o /dev/stdout >> app.log` replaced app.log, losing what it held; a reader that
    stops early (`| head`) is no error, and is not told it was written."""
    import os
    import subprocess
    import sys

    ingest(LISTING)
    log = tmp_path / "app.log"
    log.write_text("an earlier line\n", encoding="utf-8")
    command = [sys.executable, "-m", "papertrack", "export", "-f", "jsonl", "-o", "/dev/stdout"]
    with open(log, "ab") as handle:
        done = subprocess.run(command, stdout=handle, stderr=subprocess.PIPE, env=os.environ)
    assert done.returncode == 0, done.stderr
    assert b"Wrote " in done.stderr
    lines = log.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "an earlier line" and len(lines) > 10
    # Through a symlink, and at the shell's own position: what it writes next follows.
    link = tmp_path / "out.link"
    link.symlink_to("/dev/stdout")
    framed = tmp_path / "framed.jsonl"
    with open(framed, "wb") as handle:
        done = subprocess.run(
            [*command[:-1], str(link)], stdout=handle, stderr=subprocess.PIPE, env=os.environ
        )
        handle.write(b"FOOTER\n")
    assert done.returncode == 0, done.stderr
    written = framed.read_text(encoding="utf-8").splitlines()
    assert written[-1] == "FOOTER" and written[:-1] == lines[1:]
    # A regular file reached through /proc is still a file: replaced, not appended to.
    monkeypatch.chdir(tmp_path)
    for _ in range(2):
        assert run("export", "-f", "jsonl", "-o", "/proc/self/cwd/x.jsonl").exit_code == 0
    assert (tmp_path / "x.jsonl").read_text(encoding="utf-8").splitlines() == lines[1:]
    # More than a pipe holds (64 KiB), so the write meets the reader gone.
    assert len(log.read_bytes()) > 65536
    into, out = os.pipe()
    reader = subprocess.Popen(["head", "-c", "10"], stdin=into, stdout=subprocess.PIPE)
    os.close(into)
    cut = subprocess.run(command, stdout=out, stderr=subprocess.PIPE, env=os.environ)
    os.close(out)
    assert len(reader.communicate()[0]) == 10
    assert cut.returncode == 0, cut.stderr
    # Nothing claims the whole export was written when its reader took 10 bytes.
    assert b"Error" not in cut.stderr and b"Wrote" not in cut.stderr


@pytest.mark.parametrize("to_file", [True, False], ids=["to a file", "to stdout"])
def test_an_export_while_papers_move_between_weeks_lists_each_once(
    small: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, to_file: bool
) -> None:
    """An export during an ingest that moved papers to other weeks (newer versions
    with other dates) listed a paper twice, breaking BibTeX with a repeated key, and
    missed another, and exited 0. Here a writer moves the newest week's paper to the
    oldest week and the oldest week's paper to the newest, once the newest week is read."""
    from dataclasses import replace
    from datetime import UTC, datetime

    from papertrack.api import load_catalog, open_store
    from papertrack.store import Store

    store = open_store()
    newest, oldest = store.get("2603.00003"), store.get("2512.00004")
    assert newest is not None and oldest is not None
    moved = [
        replace(newest, version=2, published=datetime(2025, 12, 2, tzinfo=UTC)),
        replace(oldest, version=2, published=datetime(2026, 3, 4, tzinfo=UTC)),
    ]
    reading = Store.search_week
    calls: list[str] = []

    def search_week(self: Store, week: str, *args: object, **kwargs: object) -> object:
        calls.append(week)
        found = reading(self, week, *args, **kwargs)  # type: ignore[arg-type]
        if len(calls) == 1:  # the newest week is read: now the writer moves them
            with self.writer(load_catalog()) as writer:
                writer.upsert(moved)
        return found

    monkeypatch.setattr(Store, "search_week", search_week)
    target = tmp_path / "papers.jsonl"
    result = run("export", "-f", "jsonl", *(["-o", str(target)] if to_file else []))
    assert result.exit_code == 0, result.stderr
    lines = (target.read_text(encoding="utf-8") if to_file else result.stdout).splitlines()
    ids = [json.loads(line)["arxiv_id"] for line in lines]
    assert len(ids) == len(set(ids))  # never twice
    if to_file:  # read again, the store as it is now: every paper, the moved ones new
        assert sorted(ids) == sorted(p.arxiv_id for _, p in open_store().search(None))
        versions = {json.loads(line)["arxiv_id"]: json.loads(line)["version"] for line in lines}
        assert versions["2603.00003"] == versions["2512.00004"] == 2
        assert "Warning" not in result.stderr
    else:  # streamed: it cannot be read again, and says so
        assert "Warning: the store was written while it was exported" in result.stderr


def test_ids_run_together_with_commas_are_told_apart() -> None:
    """'2606.14397,2606.16432' was "not an arXiv id", with no word of the comma."""
    from helpers import error_line

    ingest(LISTING)
    line = error_line(run("show", "2508.13167,2508.13382"), 2, "is several arXiv ids in one")
    assert line.endswith("Separate them with spaces: 2508.13167 2508.13382.")
    error_line(run("show", "2508.13167,banana"), 2, "is not an arXiv id")


def test_a_query_byte_that_is_not_utf8_is_refused_not_dropped(small: Path) -> None:
    """`search $'caf\\xe9'` from a Latin-1 script searched for 'caf' (the byte dropped)."""
    from tests.helpers import error_line

    for args in (["search", "caf\udce9"], ["latest", "--query", "zebra caf\udce9"]):
        error_line(run(*args), 2, "not UTF-8 text at column", "Type it in UTF-8")


def test_a_utf8_query_is_read_as_utf8_under_a_locale_python_did_not_coerce(
    isolated_home: Path,
) -> None:
    """LC_ALL=C with PYTHONCOERCECLOCALE=0: 'résumé' came as escaped bytes and was
    refused as "not UTF-8 text", though it was UTF-8."""
    import os
    import subprocess
    import sys

    ingest(LISTING)
    env = {**os.environ, "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
    env["PAPERTRACK_HOME"] = str(isolated_home)

    def search(query: bytes) -> subprocess.CompletedProcess[bytes]:
        command = [sys.executable.encode(), b"-m", b"papertrack", b"search", query, b"--json"]
        return subprocess.run(command, env=env, capture_output=True, timeout=60)

    utf8 = search("agént".encode())
    assert utf8.returncode == 0, utf8.stderr
    assert json.loads(utf8.stdout) == json.loads(run("search", "agent", "--json").stdout) != []
    latin1 = search("ag\xe9nt".encode("latin-1"))
    assert latin1.returncode == 2 and b"not UTF-8 text at column 3" in latin1.stderr


def test_a_name_glued_to_its_number_or_not_is_pointed_out(tmp_path: Path) -> None:
    # On the 83,510 real papers `llama3` found 177 and missed the 919 that write
    # "Llama-3" or "Llama 3": the note gives the query that finds both.
    ingest(
        make_feed(
            tmp_path / "llama.xml",
            [
                ("2601.00011", "Tuning Llama3 for tables", "Glued.", "05 Jan 2026"),
                ("2601.00012", "Tuning Llama-3 for tables", "Hyphen.", "05 Jan 2026"),
                ("2601.00013", "Tuning GPT-4 for tables", "Llama 3 too.", "05 Jan 2026"),
                ("2601.00014", "Tables", "Nothing of the kind.", "05 Jan 2026"),
                ("2601.00015", "FP8 kernels for tables", "Only glued.", "05 Jan 2026"),
                # "fp" and "8" apart, never side by side: no paper writes "fp 8".
                ("2601.00016", "FP formats", "We run 8 GPUs in FP formats.", "05 Jan 2026"),
                ("2601.00017", "BF16 kernels", "Written Bf 16 too.", "12 Jan 2026"),
                ("2601.00018", "Fine-tuning tables", "Hyphened.", "12 Jan 2026"),
                # Glued by three papers: a spelling (by one, "largelanguage", a typo).
                ("2601.00019", "Finetuning tables", "Glued.", "12 Jan 2026"),
                ("2601.00020", "Finetuning charts", "Glued.", "12 Jan 2026"),
                ("2601.00021", "Finetuning maps", "Glued. Also largelanguage.", "12 Jan 2026"),
            ],
        )
    )

    def found(query: str) -> tuple[set[str], list[str]]:
        result = run("search", query, "--json")
        assert result.exit_code == 0, result.stderr
        notes = [line for line in result.stderr.splitlines() if line.startswith("Note:")]
        return {p["arxiv_id"] for p in json.loads(result.stdout)}, notes

    glued, (note,) = found("llama3")
    assert glued == {"2601.00011"}
    assert note == (
        'Note: llama3 misses papers that write "llama 3"; to find both, write llama3 OR "llama 3".'
    )
    # Written both ways, it is not pointed out again.
    assert found('llama3 OR "llama 3"') == ({"2601.00011", "2601.00012", "2601.00013"}, [])
    apart, (note,) = found('title:"Llama 3"')
    assert apart == {"2601.00012"}
    assert note.endswith('to find both, write title:"llama 3" OR title:llama3.')
    # A field on a group goes with the term; under NOT the other spelling is kept
    # out too, and the note would change what the query means.
    assert found("title:(llama3 OR zebra)")[1] == [
        'Note: title:llama3 misses papers that write "llama 3"; to find both, write '
        'title:llama3 OR title:"llama 3".'
    ]
    assert found("tables NOT llama3")[1] == []
    assert found('title:"Llama 3" OR title:llama3')[0] == {"2601.00011", "2601.00012"}
    # No stored paper writes "fp 8", or has "llama3" in its abstract: nothing to add.
    # (One holds "fp" and "8" apart, which the index alone cannot tell from "fp 8".)
    assert found("fp8") == ({"2601.00015"}, [])
    assert found("bf16")[1] == [
        'Note: bf16 misses papers that write "bf 16"; to find both, write bf16 OR "bf 16".'
    ]
    assert found('abstract:"llama 3"') == ({"2601.00013"}, [])
    # Two words of letters the same way: fine-tuning (6,928 of the real papers) missed
    # the 788 that write finetuning without a word. (Not the other way: "preserve"
    # would read as "pre serve", whose words many papers hold apart.)
    hyphened, (note,) = found("fine-tuning")
    assert hyphened == {"2601.00018"}
    assert note.endswith('to find both, write "fine tuning" OR finetuning.')
    assert found("fine-tuning OR finetuning")[1] == []
    assert found("finetuning") == ({"2601.00019", "2601.00020", "2601.00021"}, [])
    assert found("large-language OR tables")[1] == []
    # Quoted, two words are meant apart ("in to", "on line" glue into other words).
    assert found('"fine tuning"')[1] == []
    # Names without a number, one letter and a number, and authors are left alone.
    for query in ("tables", "h100 OR tables", "author:Smith3 OR tables", '"gpt 4o"'):
        assert found(query)[1] == [], query
    # Checked together, the rare spellings read each week once: the same notes.
    _, notes = found("fp8 OR bf16 OR llama3")
    assert [n.split()[1] for n in notes] == ["bf16", "llama3"]
    # A query of many such names gives five notes, and its no-match hint names five
    # words: 3,000 of them printed a line of 100 KB.
    many = run("search", " OR ".join(f"zork{n}" for n in range(40)))
    assert many.exit_code == 0
    assert sum(line.startswith("Note:") for line in many.stderr.splitlines()) <= 5
    hint = many.stderr.splitlines()[-1]
    assert "'zork4' (title or abstract) or 35 more of its words" in hint
    assert "zork5" not in hint and len(hint) < 400


def test_the_advice_on_a_query_comes_from_one_module_for_the_cli_and_scripts(
    small: Path, isolated_home: Path
) -> None:
    """papertrack.hints says what the CLI notes say, so a script asks it and gets the
    same sentences: the notes used to be made and printed inside the CLI alone."""
    from papertrack import hints
    from papertrack.store import Store

    store = Store(isolated_home / "store")
    assert hints.no_match_hint(store, "zebra crosings").startswith(
        "No stored paper holds 'crosings' (title or abstract): check the spelling"
    )
    assert hints.no_match_hint(store, "robots again") == hints.FEWER_WORDS
    notes = hints.query_notes("agents or tools cs.AI")
    assert notes[0].startswith("'or' in the query is a word to match")
    assert notes[1].startswith("'cs.AI' is matched as words of titles and abstracts")
    assert hints.query_notes("agents OR tools") == []
    # A category field over a group applies to its words: category:(cs.AI OR cs.CL),
    # as papertrack's own error suggests it, was told to write category:cs.AI.
    for written in ("category:(cs.AI OR cs.CL)", "category:NOT cs.AI", "title:(cs.AI)"):
        assert hints.query_notes(written) == [], written
    grouped = hints.query_notes("(cs.RO OR category:cs.CL) AND category:(cs.AI) cs.LG")
    assert [n.split("'")[1] for n in grouped] == ["cs.RO", "cs.LG"]
    said = " ".join(run("search", "agents or tools cs.AI").stderr.split())
    for note in notes:
        assert f"Note: {note}" in said


def test_a_query_that_matches_nothing_names_the_words_no_paper_holds(small: Path) -> None:
    # "reinforcment lerning" was told to try fewer words: its spelling was the fault.
    for args in (["search", "zebra crosings"], ["latest", "--query", "zebra crosings"]):
        result = run(*args)
        assert result.exit_code == 0, result.stderr
        said = "No stored paper holds 'crosings' (title or abstract): check the spelling"
        assert said in result.stderr, args
    # Looked for where its term looks: "again" is in abstracts only, and an author's
    # name in no title or abstract, where author: finds it.
    titled = run("search", "zebra title:again")
    assert "No stored paper holds 'again' (title): check the spelling" in titled.stderr
    named = run("search", "zebra lovelace")
    assert "'lovelace' is in no stored title or abstract, but in the author names of" in (
        " ".join(named.stderr.split())
    )
    # An author's name misspelt, or its words the other way round, says which.
    misspelt = run("search", 'author:"Ada Lovelac"')
    assert "No stored paper holds 'lovelac' (author names)" in misspelt.stderr
    turned = run("search", 'author:"Lovelace Ada"')
    assert "no paper names an author with them in that order: try the rarest alone" in (
        " ".join(turned.stderr.split())
    )
    # Every word is in some paper, just not together: fewer words, as before.
    together = run("search", "robots again")
    assert together.exit_code == 0, together.stderr
    assert "No stored paper holds" not in together.stderr
    assert "Words side by side must all match: try fewer words" in together.stderr


def _dated(arxiv_id: str, title: str, day: str, abstract: str = "An abstract.") -> str:
    created = f"{day} 10:00:00 GMT"
    return kaggle_line(
        arxiv_id, title, abstract=abstract, versions=[{"version": "v1", "created": created}]
    )


def test_search_stopped_early_says_more_match_only_when_it_saw_more(
    isolated_home: Path, tmp_path: Path
) -> None:
    """A scan stops once it holds -n title hits after a whole week, without reading the
    older weeks: it said "more match" when none did (the older week's paper names the
    two words, but not as the phrase)."""
    feed = tmp_path / "quokkas.jsonl"
    lines = [
        _dated("2601.00011", "Quokka swarm robotics", "Mon, 12 Jan 2026"),
        _dated("2601.00012", "Quokka swarm planning", "Tue, 13 Jan 2026"),
        _dated("2512.00013", "Marsupials", "Mon, 1 Dec 2025", "A quokka is not a swarm."),
    ]
    feed.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ingest(feed)

    def under_rows(*args: str) -> str:
        done = run("search", *args)
        assert done.exit_code == 0 and not done.stderr, done.stderr
        return done.stdout.rstrip().splitlines()[-1]

    said = "The first 2 that match; older weeks may hold more (-n sets how many)."
    assert under_rows('"quokka swarm"', "-n", "2") == said
    assert under_rows("quokka", "-n", "1") == "The first 1 of those that match (-n sets how many)."
    # Read to the end, it counts them: all shown, nothing to say.
    assert "match" not in under_rows('"quokka swarm"', "-n", "3")


def test_search_for_a_papers_id_counts_that_paper_with_those_naming_it(
    isolated_home: Path, tmp_path: Path
) -> None:
    """The paper an id names comes first, then the papers whose text names it: the
    count left the paper out, so -n 3 of those four dropped one unsaid."""
    feed = tmp_path / "cites.jsonl"
    lines = [_dated("2601.00001", "The cited paper", "Mon, 5 Jan 2026")]
    lines += [
        _dated(f"2601.0001{n}", f"Follow-up {n}", "Mon, 12 Jan 2026", "We extend 2601.00001.")
        for n in range(3)
    ]
    feed.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ingest(feed)
    shown = run("search", "2601.00001", "-n", "3")
    assert shown.exit_code == 0, shown.stderr
    rows = [
        p["arxiv_id"] for p in json.loads(run("search", "2601.00001", "-n", "3", "--json").stdout)
    ]
    assert rows[0] == "2601.00001" and len(rows) == 3
    said = "The first 3 of the 4 papers that match (-n sets how many)."
    assert shown.stdout.rstrip().splitlines()[-1] == said
    every = run("search", "2601.00001", "-n", "4")
    assert "that match" not in every.stdout


def test_search_says_when_more_papers_match_than_it_shows(sample_home: Path) -> None:
    """20 rows, and nothing said of the other papers that match: a reader took the
    table for all of them."""
    every = json.loads(run("search", "grpo", "-n", "5000", "--json").stdout)
    assert len(every) > 20
    table = run("search", "grpo")
    assert table.exit_code == 0, table.stderr
    # Under the rows, as latest and topic say it.
    last = table.stdout.rstrip().splitlines()[-1]
    assert last == f"The first 20 of the {len(every):,} papers that match (-n sets how many)."
    # A scan that stopped early (no title can hit: newest first) knows only that more match.
    # (Whether it saw more than 20 depends on where the weeks' counts fall: see
    # test_search_stopped_early_says_more_match_only_when_it_saw_more.)
    robots = run("search", "category:cs.RO")
    assert robots.stdout.rstrip().splitlines()[-1] in (
        "The first 20 of those that match (-n sets how many).",
        "The first 20 that match; older weeks may hold more (-n sets how many).",
    )
    # Not with all of them shown, and not into a script's JSON.
    assert "that match" not in run("search", "grpo", "-n", "5000").stdout
    assert "that match" not in run("search", "grpo", "--json").stdout
    assert not run("search", "grpo").stderr


def test_a_query_that_starts_with_a_short_options_letter_is_told_to_go_after_dashes(
    isolated_home: Path,
) -> None:
    """'-survey' is the query language's NOT, but the shell's rules read it as -s
    (--since) with 'urvey' glued on: "can't read --since 'urvey'", or, with more
    words in the one argument, "Missing argument 'QUERY'", and no way out said."""
    import subprocess
    import sys

    def said(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "papertrack", *args], capture_output=True, text=True
        )
        assert done.returncode == 2, done.stderr
        (line,) = done.stderr.splitlines()
        return line

    after = "put it after '--' (options before it): papertrack"
    assert said("search", "-survey title:agent").startswith(
        "Error: Missing argument 'QUERY'. If '-survey title:agent' is part of the query, "
        f"{after} search -- '-survey title:agent'."
    )
    # Two words of one query are one argument; options typed after it go before '--'
    # (offered after it, '-n 3' became words of the query and the fix failed).
    glued = said("search", "-survey", "agent", "-n", "3")
    assert glued.startswith("Error: can't read --since 'urvey' as a date.")
    assert glued.endswith(
        f"If '-survey' is part of the query, {after} search -n 3 -- '-survey agent'"
    )
    asked = said("ask", "gui-agents", "-survey papers?", "-n", "2")
    assert asked.endswith(
        f"If '-survey papers?' is part of the question, {after} ask -n 2 -- gui-agents "
        "'-survey papers?'"
    )
    # A question typed without quotes is one question from its dash word on (offered
    # as 'ask -- -survey agents', '-survey' was read as a topic); '-n3' is an option.
    unquoted = said("ask", "-survey", "agents", "-n3")
    assert unquoted.endswith(
        f"If '-survey' is part of the question, {after} ask -n3 -- '-survey agents'"
    )
    # Words before the dash word that name no topic are the question's too.
    worded = said("ask", "what", "is", "-survey", "about")
    assert worded.endswith(f"{after} ask -- 'what is -survey about'")
    # Each fix runs as offered.
    for fix in (glued, asked, unquoted, worded):
        offered = shlex.split(fix.rpartition(": papertrack ")[2])
        done = subprocess.run([sys.executable, "-m", "papertrack", *offered], capture_output=True)
        assert done.returncode == 0, (offered, done.stderr)
    # Another command's usage error is not told of queries; ask's question is plain
    # words, so it is not told to put a category in it, nor of a dash it lacks.
    assert "part of the" not in said("latest", "-n", "x")
    for line in (said("ask", "what", "-c", "cs.AI"), said("ask", "-x")):
        assert line.startswith("Error: No such option:") and "query" not in line, line
