"""Exports read back: jsonl, json and atom go through ``ingest`` unchanged; csv, bibtex refused."""

from __future__ import annotations

import json
import re
from pathlib import Path
from xml.etree import ElementTree as ET

import feedparser
import pytest

from tests.helpers import DATA, LISTING, error_line, no_traceback, run

ATOM = "{http://www.w3.org/2005/Atom}"
API = DATA / "api-atom" / "arxiv.py-2026-recorded"
SOURCES = [
    LISTING,
    DATA / "rss-derived" / "rss20-cs.AI-2025-08-20.6items.xml",
    DATA / "rss-legacy" / "rss10-cs.IT-2017-07-27.RECONSTRUCTED.xml",
    DATA / "kaggle-jsonl" / "arxiv-metadata-oai-snapshot.head200.jsonl",
    DATA / "oai" / "arXivOAIHarvester-2015" / "ListRecordsResponse.xml",
    API / "q_testing_s0_m100_cfe7536492ca.xml",
    API / "id_0808.05394_1707.08567_s0_m100_42e5aa0ec3af.xml",
    DATA / "api-atom" / "arxiv.py-2016-recorded" / "search_au_del_maestro.xml",
]


def stored(home: Path, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, object]]:
    """Every paper of the store in ``home``, every field, as ``export -f json`` gives it."""
    monkeypatch.setenv("PAPERTRACK_HOME", str(home))
    result = run("export", "-f", "json")
    assert result.exit_code == 0, result.stderr
    papers: list[dict[str, object]] = json.loads(result.stdout)
    return sorted(papers, key=lambda p: str(p["arxiv_id"]))


@pytest.fixture
def original(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, object]]:
    result = run("ingest", *map(str, SOURCES))
    assert result.exit_code == 0, result.stderr
    return stored(isolated_home, monkeypatch)


@pytest.mark.parametrize("fmt", ["jsonl", "json", "atom"])
def test_an_export_reads_back_into_a_fresh_store_unchanged(
    fmt: str,
    original: list[dict[str, object]],
    isolated_home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The store mixes every kind of paper: listing-only (announced, guessed primary),
    # API (affiliations, versions), merged listing + API, snapshot, OAI, legacy RSS.
    assert any(p["announced"] and not p["published"] for p in original)
    assert any(p["affiliations"] for p in original)
    assert any(p["published"] and p["announced"] for p in original)
    assert any((p["version"] or 0) > 1 for p in original)
    exported = tmp_path / f"papers.{fmt}"
    result = run("export", "-f", fmt, "-o", str(exported))
    assert result.exit_code == 0, result.stderr

    monkeypatch.setenv("PAPERTRACK_HOME", str(tmp_path / "fresh"))
    again = run("ingest", "-v", str(exported))
    assert again.exit_code == 0, again.stderr
    assert f"{exported} (export): {len(original):,} papers" in again.stderr
    assert f"{len(original):,} new, 0 updated" in again.stderr
    fresh = stored(tmp_path / "fresh", monkeypatch)
    assert len(fresh) == len(original)
    for before, after in zip(original, fresh, strict=True):
        assert after == before, before["arxiv_id"]

    # Read back into the store it came from, it changes nothing: no listing paper
    # gains a submission date it never had.
    monkeypatch.setenv("PAPERTRACK_HOME", str(isolated_home))
    same = run("ingest", str(exported))
    assert same.exit_code == 0, same.stderr
    assert f"0 new, 0 updated, {len(original):,} unchanged" in same.stderr
    assert stored(isolated_home, monkeypatch) == original


def test_a_json_export_on_stdin_and_cut_short(tmp_path: Path) -> None:
    assert run("ingest", str(LISTING)).exit_code == 0
    text = run("export", "-f", "json").stdout
    fresh = tmp_path / "fresh"
    result = run("--db", str(fresh), "ingest", "-", input=text)
    assert result.exit_code == 0, result.stderr
    assert "86 new" in result.stderr
    cut = tmp_path / "cut.json"
    half = text[: len(text) // 2]
    cut.write_text(half, encoding="utf-8")
    broken = run("--db", str(tmp_path / "other"), "ingest", str(cut))
    # The items that arrived whole are kept (each ends with a "}" indented by two).
    whole = half.count("\n  }")
    assert whole > 20
    line = error_line(broken, 1, str(cut), "cut off", f"kept the {whole} papers")
    assert "Traceback" not in line
    assert f"{whole} new" in broken.stderr
    bad = tmp_path / "bad.json"
    bad.write_text('[{"arxiv_id": "2508.00001", "title": "x"}, 5, {"arxiv_id": 7}]\n')
    partly = run("--db", str(tmp_path / "third"), "ingest", str(bad))
    error_line(partly, 1, "2 broken items", "items 2, 3")
    assert "1 new" in partly.stderr


@pytest.mark.parametrize("fmt", ["csv", "bibtex"])
def test_lossy_exports_are_refused_by_name(fmt: str, tmp_path: Path) -> None:
    assert run("ingest", str(LISTING)).exit_code == 0
    exported = tmp_path / f"papers.{fmt}"
    assert run("export", "-f", fmt, "-o", str(exported)).exit_code == 0
    result = run("--db", str(tmp_path / "fresh"), "ingest", str(exported))
    no_traceback(result)
    assert result.exit_code == 1
    assert "does not read it back. Export with --format jsonl, json or atom" in result.stderr
    # What each leaves out: a BibTeX export has its abstracts, a CSV one none.
    left_out = {
        "csv": "leaves out abstracts,",
        "bibtex": "leaves out affiliations and exact dates,",
    }
    assert f"export, which {left_out[fmt]} so papertrack" in result.stderr
    if fmt == "bibtex":
        assert re.search(r"^  abstract +=  ?\{", exported.read_text(encoding="utf-8"), re.M)


def test_atom_export_has_a_self_link(tmp_path: Path) -> None:
    assert run("ingest", str(LISTING)).exit_code == 0
    target = tmp_path / "feed.xml"
    assert run("export", "-f", "atom", "-o", str(target)).exit_code == 0
    parsed = feedparser.parse(target.read_bytes())
    assert parsed.bozo == 0, parsed.get("bozo_exception")
    (link,) = [link for link in parsed.feed.links if link.rel == "self"]
    assert link.type == "application/atom+xml" and link.href.endswith("/feed.xml")
    # As written (feedparser normalises file:/// to file://).
    head = ET.fromstring(target.read_bytes())
    selves = [e.get("href") for e in head.findall(ATOM + "link") if e.get("rel") == "self"]
    assert selves == [target.resolve().as_uri()]
    served = run("export", "-f", "atom", "--feed-url", "https://example.org/ai.xml")
    parsed = feedparser.parse(served.stdout.encode("utf-8"))
    assert [link.href for link in parsed.feed.links if link.rel == "self"] == [
        "https://example.org/ai.xml"
    ]
    piped = feedparser.parse(run("export", "-f", "atom").stdout.encode("utf-8"))
    (self_link,) = [link.href for link in piped.feed.links if link.rel == "self"]
    assert self_link == piped.feed.id and self_link.startswith("urn:papertrack:export:")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("-f", "atom", "--feed-url", "javascript:alert(1)"), "not a web address with a host"),
        (("-f", "atom", "--feed-url", "file:///etc/passwd"), "not a web address with a host"),
        (("-f", "atom", "--feed-url", "not a url"), "spaces or control characters"),
        (("-f", "atom", "--feed-url", "https://u:pw@ex.org/f.xml"), "user name or password"),
        (("-f", "bibtex", "--feed-url", "https://ex.org/f.xml"), "not of -f bibtex"),
    ],
)
def test_a_feed_url_that_is_no_web_address_is_refused(
    tmp_path: Path, args: tuple[str, ...], needle: str
) -> None:
    # Feed readers follow the self link: it was written as given, javascript: and all,
    # and with another format the option was silently ignored.
    assert run("ingest", str(LISTING)).exit_code == 0
    target = tmp_path / "feed.xml"
    result = run("export", *args, "-o", str(target))
    no_traceback(result)
    assert result.exit_code == 2 and needle in result.stderr, result.stderr
    assert result.stderr.startswith("Error: --feed-url") and result.stderr.count("\n") == 1
    assert not target.exists()


def test_a_hostile_export_line_is_a_broken_line_not_a_crash(tmp_path: Path) -> None:
    good = {"arxiv_id": "2508.00001", "title": "Fine", "published": "2025-08-01T00:00:00Z"}
    lines = [
        good,
        {"arxiv_id": "2508.00002", "title": ["not", "text"]},
        {"arxiv_id": "2508.00003", "version": "three"},
        {"arxiv_id": "2508.00004", "authors": "Ada Lovelace"},
        {"arxiv_id": "2508.00005", "published": "last tuesday"},
        {"arxiv_id": "2508.00006", "version": 10**30},
        {"arxiv_id": "", "title": "no id"},
        {"arxiv_id": "2508.00007", "title": "\x1b]52;c;ZXZpbA==\x07 [bold]x[/bold] <b>ok</b>"},
    ]
    path = tmp_path / "hostile.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    result = run("ingest", str(path))
    error_line(result, 1, "6 broken lines", "lines 2, 3, 4, 5, 6, 7")
    assert "2 new" in result.stderr
    papers = {p["arxiv_id"]: p for p in json.loads(run("latest", "--json").stdout)}
    assert papers["2508.00001"]["published"] == "2025-08-01T00:00:00Z"
    assert papers["2508.00007"]["title"] == "[bold]x[/bold] <b>ok</b>"  # control codes gone


def test_entries_of_other_feeds_keyed_like_arxiv_ids_stay_their_own_papers(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A feed item whose guid was 'arXiv:ID' or 'IDv1' was exported as arXiv's paper ID:
    two BibTeX entries with one key (pybtex refused the file), two Atom entries with one
    id, and two papers lost on read-back. An item without a version or a web link read
    back from Atom without its dates. A link with a space lost the space in BibTeX."""
    assert run("ingest", str(LISTING)).exit_code == 0
    first, second = (p["arxiv_id"] for p in json.loads(run("latest", "--json").stdout)[:2])
    feed = tmp_path / "notes.xml"
    feed.write_text(
        '<?xml version="1.0"?><rss version="2.0"><channel><title>Notes</title>'
        "<link>https://list.example.org/</link><description>d</description>"
        f'<item><title>Note six</title><guid isPermaLink="false">arXiv:{first}</guid>'
        "<link>https://list.example.org/notes/6</link>"
        "<pubDate>Wed, 03 Jun 2026 08:00:00 GMT</pubDate></item>"
        f'<item><title>Note seven</title><guid isPermaLink="false">{second}v1</guid>'
        "<link>https://list.example.org/notes/7</link>"
        "<pubDate>Wed, 03 Jun 2026 08:00:00 GMT</pubDate></item>"
        '<item><title>Lab note</title><guid isPermaLink="false">lab-note-42</guid>'
        "<pubDate>Wed, 03 Jun 2026 08:00:00 GMT</pubDate></item>"
        "<item><title>Spaced</title><link>https://other.example/x y</link>"
        "<pubDate>Wed, 03 Jun 2026 08:00:00 GMT</pubDate></item>"
        "</channel></rss>",
        encoding="utf-8",
    )
    assert run("ingest", str(feed)).exit_code == 0
    original = stored(isolated_home, monkeypatch)
    bib = run("export", "-f", "bibtex").stdout
    keys = [line.split("{", 1)[1].rstrip(",") for line in bib.splitlines() if line.startswith("@")]
    assert len(keys) == len(set(keys)) == len(original)
    assert "https://other.example/x%20y" in bib and "https://list.example.org/notes/6" in bib
    atom = run("export", "-f", "atom").stdout
    ids = [e.findtext(f"{ATOM}id") for e in ET.fromstring(atom).iter(f"{ATOM}entry")]
    assert len(ids) == len(set(ids)) == len(original)
    for fmt in ("jsonl", "atom"):
        exported = tmp_path / f"papers.{fmt}"
        assert run("export", "-f", fmt, "-o", str(exported)).exit_code == 0
        monkeypatch.setenv("PAPERTRACK_HOME", str(tmp_path / f"fresh-{fmt}"))
        assert run("ingest", str(exported)).exit_code == 0
        assert stored(tmp_path / f"fresh-{fmt}", monkeypatch) == original, fmt
        monkeypatch.setenv("PAPERTRACK_HOME", str(isolated_home))


def test_bibtex_braces_names_with_commas() -> None:
    """'Smith, Jr., John' made strict parsers refuse the file; 'Google, Inc.' read as
    the person I. Google."""
    from papertrack.export import bibtex_entry
    from papertrack.models import Paper

    paper = Paper(
        arxiv_id="2501.00001",
        title="T",
        authors=("Smith, Jr., John", "Google, Inc.", "Ada Lovelace"),
    )
    entry = bibtex_entry(paper)
    assert "author        = {{Smith, Jr., John} and {Google, Inc.} and Ada Lovelace}" in entry


@pytest.mark.parametrize(
    ("name", "written"),
    [
        # BibTeX read the suffix as the last name: cited as "Jr., M. L. K.", sorted under J.
        ("Martin Luther King Jr.", "King, Jr., Martin Luther"),
        ("Alfred O. Hero III", "Hero, III, Alfred O."),
        ("Jean de la Fontaine Jr.", "de la Fontaine, Jr., Jean"),
        # Left as written: no suffix, or too few words to tell a given name from it.
        ("Smith Jr.", "Smith Jr."),
        ("Arun Kumar V", "Arun Kumar V"),
        ("Ludwig van Beethoven", "Ludwig van Beethoven"),
    ],
)
def test_bibtex_writes_a_name_suffix_in_the_von_last_jr_first_form(name: str, written: str) -> None:
    from papertrack.export import bibtex_entry
    from papertrack.models import Paper

    entry = bibtex_entry(Paper(arxiv_id="2501.00001", title="T", authors=(name, "Ada Lovelace")))
    assert f"author        = {{{written} and Ada Lovelace}}" in entry


@pytest.mark.parametrize(
    ("title", "written"),
    [
        # plain, abbrv, alpha and acm print titles in sentence case: "Gui agents with llms".
        ("GUI Agents with LLMs: A Survey", "{GUI} Agents with {LLMs}: A Survey"),
        ("ReAct, GPT-4o (LLaMA) and Qwen2.5-VL", "{ReAct}, {GPT-4o} ({LLaMA}) and {Qwen2.5-VL}"),
        # Title Case alone is the style's to lower, hyphenated or not.
        ("Knowledge-Oriented Agents That Act", "Knowledge-Oriented Agents That Act"),
        # A group opening with a command is a special character BibTeX lowers inside.
        ("$\\alpha$-LoRA", "{{\\$\\textbackslash{}alpha\\$-LoRA}}"),
        # A bracket the word opened closes inside its braces ({SE(3}) read oddly).
        ("Policies on SE(3).", "Policies on {SE(3)}."),
        ("Models (see LLaMA-2)", "Models (see {LLaMA-2})"),
        # A word opening with an escaped character: "#mahsaamini" in print.
        ("During the #MahsaAmini Movement", "During the {{\\#MahsaAmini}} Movement"),
    ],
)
def test_bibtex_titles_brace_acronyms_against_sentence_case(title: str, written: str) -> None:
    from papertrack.export import bibtex_entry
    from papertrack.models import Paper

    entry = bibtex_entry(Paper(arxiv_id="2501.00001", title=title))
    assert f"title         = {{{written}}}" in entry


def test_bibtex_writes_what_pdflatex_cannot_set_as_tex() -> None:
    """papertrack renders TeX to Unicode (`$\\alpha$` is stored as α), and pdfLaTeX,
    Overleaf's default, stopped at it in a .bib: "Unicode character α (U+03B1) not set
    up for use with LaTeX". Greek letters and symbols go back to math, raised and
    lowered digits to \\textsuperscript and \\textsubscript; Latin-1 stays."""
    from papertrack.export import bibtex_entry
    from papertrack.models import Paper
    from papertrack.tex import render_tex

    raw = r"$\alpha$-$\beta$ Pruning, $\varepsilon$-greedy $\leq 3$ and H$_4$ in Café × 2"
    entry = bibtex_entry(Paper(arxiv_id="2501.00001", title=render_tex(raw)))
    title = next(line for line in entry.splitlines() if line.lstrip().startswith("title"))
    assert title.endswith(
        r"{$\alpha$}-{$\beta$} Pruning, {$\varepsilon$}-greedy {$\leq$} 3 and "
        r"H\textsubscript{4} in Café × 2},"
    ), title
    assert all(ord(char) <= 0xFF for char in title)


def test_bibtex_writes_accents_pdflatex_cannot_set_as_accent_commands() -> None:
    """Two real authors of the 83,510 corpus papers (Wałȩga, Tolúlọpé) stopped a
    pdfLaTeX build: "Unicode character ȩ (U+0229) not set up for use with LaTeX".
    A Latin letter beyond what pdfLaTeX's UTF-8 input sets is written with accent
    commands; Latin-1 and Latin Extended-A (ł, ă, ő), which it sets, stay."""
    from papertrack.export import bibtex_escape

    assert bibtex_escape("Przemysław Wałȩga") == r"Przemysław Wał{\c{e}}ga"
    assert bibtex_escape("Tolúlọpé Ògúnrèmí") == r"Tolúl{\d{o}}pé Ògúnrèmí"
    assert bibtex_escape("Nguyễn Văn Hoàng") == r"Nguy{\~{\^{e}}}n Văn Hoàng"
    assert bibtex_escape("Erdős Pál, ǅ 日本") == "Erdős Pál, ǅ 日本"  # no accent command: kept
    # A mark written after its letter (U+0331: 2512.12576's abstract), and a dotless
    # i under an accent above it (\\v{i} printed the dot and the caron both).
    assert bibtex_escape("V\u0331ariational e\u0301") == r"{\b{V}}ariational {\'{e}}"
    assert bibtex_escape("ǐ ị") == r"{\v{\i}} {\d{i}}"


def test_noncharacters_are_dropped_where_feed_text_is_read_and_written() -> None:
    """A noncharacter (U+FDD0, U+FFFE, U+1FFFE) is legal XML, so a feed can carry it; a
    .bib holding one was refused whole by biber, and JSON, CSV and HTML kept it."""
    from papertrack.export import bibtex_escape
    from papertrack.text import clean_text, json_text, visible

    text = "A \ufdd0title\ufffe with\U0001fffe noncharacters\U0010ffff"
    assert clean_text(text) == "A title with noncharacters"
    assert visible(text) == bibtex_escape(text) == "A title with noncharacters"
    assert (
        json_text(text) == '"A \\ufdd0title\\ufffe with\\ud83f\\udffe noncharacters\\udbff\\udfff"'
    )
