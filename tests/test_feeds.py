"""The feed parsing layer, on real recorded arXiv responses (tests/data/SOURCES.md).

Expected values were read off the XML/JSON by hand; counts are cross-checked
against the raw bytes with regular expressions, independently of the parser.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from functools import cache
from pathlib import Path

import feedparser
import pytest
from helpers import run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from papertrack.errors import FeedError
from papertrack.feeds import (
    ParsedFeed,
    looks_like_jsonl,
    parse_feed,
    parse_jsonl,
    parse_jsonl_line,
)
from papertrack.models import Paper

DATA = Path(__file__).parent / "data"
API26 = "api-atom/arxiv.py-2026-recorded/"
API16 = "api-atom/arxiv.py-2016-recorded/"
PAGE100 = API26 + "q_testing_s0_m100_cfe7536492ca.xml"
LISTING = "rss/atom-cs.AI-2025-08-20.first86.xml"
TRUNCATED = "rss/atom-cs.AI-2025-08-20.TRUNCATED.xml"
RSS20 = "rss-derived/rss20-cs.AI-2025-08-20.6items.xml"
LEGACY = "rss-legacy/rss10-cs.IT-2017-07-27.RECONSTRUCTED.xml"
KAGGLE = "kaggle-jsonl/arxiv-metadata-oai-snapshot.head200.jsonl"
OAI = "oai/arXivOAIHarvester-2015/"


@cache
def raw(name: str) -> bytes:
    return (DATA / name).read_bytes()


@cache
def parsed(name: str) -> ParsedFeed:
    # Shared between tests: none of them mutates the result.
    return parse_feed(raw(name), name)


def by_id(result: ParsedFeed) -> dict[str, Paper]:
    return {paper.arxiv_id: paper for paper in result.papers}


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


# --- arXiv API, 2026 layout -------------------------------------------------------


def test_api_page_of_100() -> None:
    result = parsed(PAGE100)
    assert result.kind == "api"
    assert result.error is None and result.skipped == 0 and result.warnings == []
    assert len(result.papers) == 100 == len(re.findall(rb"<entry>", raw(PAGE100)))
    assert result.total_results == 214881
    assert len({p.arxiv_id for p in result.papers}) == 100
    assert sum(len(p.authors) for p in result.papers) == 366  # SOURCES.md
    for paper in result.papers:
        assert paper.source == "api"
        assert paper.published is not None and paper.published.tzinfo is UTC
        assert paper.updated is not None and paper.updated >= paper.published
        assert paper.primary_category in paper.categories
        assert not paper.primary_guessed
        assert paper.url == f"https://arxiv.org/abs/{paper.arxiv_id}"
        assert paper.pdf_url == f"https://arxiv.org/pdf/{paper.arxiv_id}v{paper.version}"
        assert "\n" not in paper.abstract and paper.abstract == paper.abstract.strip()


def test_api_first_entry() -> None:
    paper = parsed(PAGE100).papers[0]
    assert paper == Paper(
        arxiv_id="2202.12139",
        version=1,
        title="Testing Deep Learning Models: A First Comparative Study of Multiple Testing "
        "Techniques",
        abstract=paper.abstract,
        authors=("Mohit Kumar Ahuja", "Arnaud Gotlieb", "Helge Spieker"),
        primary_category="cs.SE",
        categories=("cs.SE", "cs.LG"),
        published=utc(2022, 2, 24, 15, 5, 19),
        updated=utc(2022, 2, 24, 15, 5, 19),
        doi="10.1109/ICSTW55395.2022.00035",
        journal_ref="Artificial Intelligence in Software Testing @ 2022 IEEE International "
        "Conference on Software Testing, Verification and Validation Workshops (ICSTW)",
        comment="Artificial Intelligence in Software Testing 2022 workshop @ ICST 2022",
        url="https://arxiv.org/abs/2202.12139",
        pdf_url="https://arxiv.org/pdf/2202.12139v1",
        source="api",
    )
    assert paper.abstract.startswith("Deep Learning (DL) has revolutionized the capabilities")


def test_api_doi_count_matches_raw_bytes() -> None:
    with_doi = [p for p in parsed(PAGE100).papers if p.doi]
    assert len(with_doi) == len(re.findall(rb"<arxiv:doi>", raw(PAGE100))) == 32


def test_api_affiliations_survive_per_author() -> None:
    page = parsed(PAGE100)
    # Two arxiv:affiliation elements in the page, both on 0804.0970.
    assert len(re.findall(rb"<arxiv:affiliation>", raw(PAGE100))) == 2
    paper = by_id(page)["0804.0970"]
    assert paper.authors == ("Marie-Claude Gaudel", "Pascale Le Gall")
    assert paper.author_affiliations == (("LRI",), ("IBISC",))
    assert paper.affiliations == ["LRI", "IBISC"]
    assert [p.arxiv_id for p in page.papers if p.author_affiliations] == ["0804.0970"]
    # Why the XML is read a second time: feedparser keeps only the last one.
    entry = feedparser.parse(io.BytesIO(raw(PAGE100))).entries[81]
    assert entry.id == "http://arxiv.org/abs/0804.0970v1"
    assert entry.arxiv_affiliation == "IBISC"


def test_api_four_authors_each_with_own_affiliation() -> None:
    (paper,) = parsed(API26 + "id_astro-ph_0601001_s0_m100_3150dca9dc76.xml").papers
    assert paper.arxiv_id == "astro-ph/0601001" and paper.version == 1
    assert paper.authors == ("Andrew Gould", "Susan Dorsher", "B. Scott Gaudi", "Andrzej Udalski")
    assert paper.author_affiliations == (
        ("Ohio State",),
        ("Ohio State",),
        ("CfA",),
        ("Warsaw University Observatory",),
    )
    assert paper.affiliations == ["Ohio State", "CfA", "Warsaw University Observatory"]
    assert paper.journal_ref == "ActaAstron.56:1-50,2006"
    assert "Gould & Morgan (2003)" in paper.abstract  # &amp; unescaped
    assert "V_max<17.5" in paper.abstract  # &lt; unescaped


def test_api_hep_ex_affiliation() -> None:
    (paper,) = parsed(API26 + "id_hep-ex_0406020v1_s0_m100_84b15d66c0ce.xml").papers
    assert (paper.arxiv_id, paper.version) == ("hep-ex/0406020", 1)
    assert paper.title == "Sparticle Reconstruction at LHC"
    assert paper.authors == ("Alessia Tricomi",)
    assert paper.author_affiliations == (("for the ATLAS and CMS Collaborations",),)
    assert paper.published == utc(2004, 6, 7, 11, 8, 22)
    assert paper.categories == ("hep-ex",) and paper.primary_category == "hep-ex"
    assert paper.pdf_url == "https://arxiv.org/pdf/hep-ex/0406020v1"


def test_api_old_style_ids_and_versions() -> None:
    papers = by_id(parsed(PAGE100))
    assert {"cs/0503050", "hep-ph/0301050", "gr-qc/0103067"} <= papers.keys()
    assert (papers["cs/0503050"].version, papers["hep-ph/0301050"].version) == (1, 2)
    assert papers["cs/0503050"].title == "Systematic Method for Path-Complete White Box Testing"
    quant = parsed(API26 + "id_quant-ph_0201082v1_s0_m100_86989fe779ef.xml").papers[0]
    assert quant.arxiv_id == "quant-ph/0201082"
    assert quant.categories == ("quant-ph", "cs.PL")
    # A paper at version 9: published is v1's date, updated the latest version's.
    continuous = papers["2409.05654"]
    assert continuous.version == 9
    assert continuous.published == utc(2024, 9, 9, 14, 21, 19)
    assert continuous.updated == utc(2025, 5, 8, 20, 52, 40)


def test_api_paragraph_breaks_and_indent_collapse() -> None:
    # cs/0503050's summary has a leading "  " and a real paragraph break.
    assert b"statement coverage. Execution" in raw(PAGE100)
    abstract = by_id(parsed(PAGE100))["cs/0503050"].abstract
    assert abstract.startswith("A systematic, language-independent method")
    assert "action arrows. The number of independent paths" in abstract
    assert "\n" not in abstract and "  " not in abstract


def test_api_unicode_and_latex_titles() -> None:
    papers = by_id(parsed(PAGE100))
    # Math stays as written; the ω is a real character in the feed.
    assert papers["2306.03845"].title == "ωTest: WebView-Oriented Testing for Android Applications"
    (paper,) = parsed(API26 + "id_1707.08567_s0_m100_6a1afebfc6a3.xml").papers
    assert len(paper.authors) == 34
    assert "Dirk Wübben" in paper.authors
    assert paper.categories == ("cs.IT",)


def test_api_title_zero() -> None:
    # The old API omitted <title> for 2104.12255, whose title is literally "0".
    (paper,) = parsed(API26 + "id_2104.12255v1_s0_m100_6ae69987ffe1.xml").papers
    assert (paper.arxiv_id, paper.version, paper.title) == ("2104.12255", 1, "0")
    assert paper.authors == ("Quan Thoi Minh Nguyen",)


def test_api_paging_window_is_a_slice_of_the_big_page() -> None:
    window = parsed(API26 + "q_testing_s10_m10_34e56e15aaac.xml")
    assert window.papers == parsed(PAGE100).papers[10:20]


def test_api_error_feed_raises() -> None:
    with pytest.raises(FeedError) as caught:
        parse_feed(raw(API26 + "id_abc_s0_m100_b79c8dcf6bc3.xml"), "id_abc")
    assert str(caught.value) == (
        "arXiv API error: incorrect id format for abc. Check the query or id list."
    )


@pytest.mark.parametrize(
    "name", ["id_0000.0000_s0_m100_8b51d9633a68.xml", "id_0808.05394_s0_m100_7b0c7d0a7cdd.xml"]
)
def test_api_empty_page(name: str) -> None:
    result = parsed(API26 + name)
    assert (result.kind, result.papers, result.total_results) == ("api", [], 0)
    assert result.error is None and result.warnings == []


def test_api_invalid_id_dropped_silently_by_arxiv() -> None:
    result = parsed(API26 + "id_0808.05394_1707.08567_s0_m100_42e5aa0ec3af.xml")
    assert [p.arxiv_id for p in result.papers] == ["1707.08567"]


def test_api_empty_page_with_results_promised_warns(tmp_path: Path) -> None:
    # The intermittent "valid but empty page" of arxiv.py #43, made from
    # the real empty page by promising 5 results.
    data = raw(API26 + "id_0000.0000_s0_m100_8b51d9633a68.xml").replace(
        b"<opensearch:totalResults>0<", b"<opensearch:totalResults>5<"
    )
    result = parse_feed(data, "page")
    assert result.papers == [] and result.total_results == 5
    said = "the arXiv API returned an empty page although it reports 5 results; retry later"
    assert result.notices == [f"page: {said}"]
    # ingest says it without -v: the page is not what it claims to be.
    page = tmp_path / "page.xml"
    page.write_bytes(data)
    done = run("ingest", str(page))
    assert done.exit_code == 0, done.stderr
    assert f"Warning: {page}: {said}" in done.stderr.splitlines()


# --- arXiv API, legacy (2016) layout ------------------------------------------------


def test_api_legacy_layout() -> None:
    result = parsed(API16 + "search_au_del_maestro.xml")
    assert result.kind == "api" and result.total_results == 31
    assert len(result.papers) == 10 == raw(API16 + "search_au_del_maestro.xml").count(b"<entry>")
    paper = by_id(result)["cond-mat/0412498"]
    assert paper.version == 1
    assert paper.title == "Thermal melting of density waves on the square lattice"
    assert paper.authors == ("Adrian Del Maestro", "Subir Sachdev")
    assert paper.published == utc(2004, 12, 19, 16, 18, 24)
    # Hard-wrapped at ~80 columns with a leading "  ": one line now.
    assert paper.abstract.startswith(
        "We present the theory of the effect of thermal fluctuations on commensurate "
        '"p x p" density wave ordering on the square lattice (p >= 3, integer).'
    )
    assert "\n" not in paper.abstract
    # DOI from the dx.doi.org era; arxiv:* declared on each element.
    assert paper.doi == "10.1103/PhysRevB.71.184511"
    assert paper.journal_ref == "Physical Review B 71, 184511 (2005)"
    assert paper.comment == "12 pages, 5 figures"
    assert paper.primary_category == "cond-mat.str-el"
    assert paper.categories == ("cond-mat.str-el", "cond-mat.stat-mech")
    wrapped = by_id(result)["cond-mat/0603029"]
    assert wrapped.title == (
        "From stripe to checkerboard order on the square lattice in the presence of quenched "
        "disorder"
    )


def test_api_legacy_layout_later_version() -> None:
    (paper,) = parsed(API16 + "id_list_1111.2011v2.xml").papers
    assert (paper.arxiv_id, paper.version) == ("1111.2011", 2)
    assert paper.published == utc(2011, 11, 8, 18, 48, 36)
    assert paper.updated == utc(2012, 4, 2, 12, 38, 54)


# --- rss.arxiv.org listings -----------------------------------------------------------


def test_listing_atom_counts() -> None:
    result = parsed(LISTING)
    assert result.kind == "listing" and result.error is None and result.skipped == 0
    assert len(result.papers) == 86 == raw(LISTING).count(b"<entry>")
    types = Counter(p.announce_type for p in result.papers)
    assert types == {"new": 41, "cross": 45}
    assert types == Counter(
        t.decode() for t in re.findall(rb"<arxiv:announce_type>(\w+)<", raw(LISTING))
    )
    for paper in result.papers:
        assert paper.source == "listing"
        # The entry date is the announcement (midnight Eastern), not the submission.
        assert paper.announced == utc(2025, 8, 20, 4, 0, 0)
        assert paper.published is None and paper.updated is None
        assert paper.paper_date == paper.announced
        assert paper.primary_guessed and paper.primary_category == paper.categories[0]
        assert paper.version == 1
    # In the sample the first category is the primary.
    new = [p for p in result.papers if p.announce_type == "new"]
    assert all(p.primary_category == "cs.AI" for p in new)
    cross = [p for p in result.papers if p.announce_type == "cross"]
    assert all(p.primary_category != "cs.AI" and "cs.AI" in p.categories for p in cross)


def test_listing_first_entry() -> None:
    paper = parsed(LISTING).papers[0]
    assert (paper.arxiv_id, paper.version) == ("2508.13167", 1)
    assert paper.title == (
        "Chain-of-Agents: End-to-End Agent Foundation Models via Multi-Agent Distillation "
        "and Agentic RL"
    )
    # Only the text after "Abstract:" is the abstract.
    assert paper.abstract.startswith("Recent advances in large language models (LLMs)")
    assert paper.abstract.endswith("for future research on agent models and agentic RL.")
    # dc:creator is one comma-joined string.
    assert len(paper.authors) == 30
    assert paper.authors[:2] == ("Weizhen Li", "Jianbo Lin")
    assert paper.authors[-1] == "Wangchunshu Zhou"
    assert paper.categories == ("cs.AI", "cs.CL")
    assert paper.license == "http://creativecommons.org/licenses/by-nc-sa/4.0/"
    assert paper.url == "https://arxiv.org/abs/2508.13167"
    assert paper.pdf_url == "https://arxiv.org/pdf/2508.13167v1"


def test_listing_tex_accents_in_creators() -> None:
    papers = by_id(parsed(LISTING))
    assert papers["2508.13429"].authors == ("Paulo André Lima de Castro",)
    assert papers["2508.13811"].authors == ("Jan Jakubův", "Mikoláš Janota")
    assert "Hendrik Kraß" in papers["2508.13197"].authors
    assert papers["2508.13247"].authors == ("Nina Rajcic", "Anders Søgaard")
    assert "Alexander Rodríguez" in papers["2508.13355"].authors
    assert all("\\" not in name for p in papers.values() for name in p.authors)


def test_listing_doi_journal_reference_and_licences() -> None:
    data = raw(LISTING)
    papers = by_id(parsed(LISTING))
    assert papers["2508.00875"].doi == "10.7249/PEA3971-1"  # arxiv:DOI, upper case
    assert papers["2508.13303"].journal_ref == (
        "2025 IEEE/RSJ international conference on intelligent robots and systems (IROS)"
    )
    assert sum(1 for p in papers.values() if p.doi) == data.count(b"<arxiv:DOI>")
    assert sum(1 for p in papers.values() if p.journal_ref) == data.count(
        b"<arxiv:journal_reference>"
    )
    licences = Counter(p.license for p in papers.values())
    assert licences == Counter(
        m.decode() for m in re.findall(rb"<dc:rights>([^<]+)</dc:rights>", data)
    )
    assert len(licences) == 6


def test_listing_truncated_download_keeps_only_whole_entries() -> None:
    data = raw(TRUNCATED)
    # feedparser alone returns the 87th entry, cut off mid-way.
    alone = feedparser.parse(io.BytesIO(data))
    assert alone.bozo and len(alone.entries) == 87
    result = parsed(TRUNCATED)
    assert result.kind == "listing"
    assert len(result.papers) == 86 == data.count(b"</entry>")
    assert result.error == (
        f"{TRUNCATED}: the feed is cut off or malformed at line 1233, column 84 "
        "(no element found); kept the 86 entries that arrived whole. Download it again if "
        "it was cut short"
    )
    assert "2508.13435" not in by_id(result)  # the entry that was cut
    assert result.papers == parsed(LISTING).papers


def test_listing_rss20_matches_the_atom_listing() -> None:
    # The RSS 2.0 file is derived from six Atom entries (tests/data/SOURCES.md):
    # both layouts must give the same papers.
    result = parsed(RSS20)
    assert result.kind == "listing" and len(result.papers) == 6 == raw(RSS20).count(b"<item>")
    atom = by_id(parsed(LISTING))
    for paper in result.papers:
        assert paper == atom[paper.arxiv_id]
    assert [p.announce_type for p in result.papers] == ["new"] * 3 + ["cross"] * 3
    assert by_id(result)["2508.00875"].doi == "10.7249/PEA3971-1"


def test_empty_listing_is_a_listing() -> None:
    # Weekends and holidays give an empty listing: made from the real
    # header by dropping every entry.
    data = raw(LISTING)
    empty = data[: data.index(b"<entry>")] + b"</feed>"
    result = parse_feed(empty, "weekend")
    assert (result.kind, result.papers, result.error) == ("listing", [], None)


# --- legacy export.arxiv.org/rss (RSS 1.0) ----------------------------------------------


def test_legacy_rss() -> None:
    result = parsed(LEGACY)
    assert result.kind == "legacy-rss" and result.error is None
    assert len(result.papers) == 4 == len(re.findall(rb"<item ", raw(LEGACY)))
    got = [
        (p.arxiv_id, p.version, p.primary_category, p.announce_type, p.categories)
        for p in result.papers
    ]
    assert got == [
        ("1707.08567", 1, "cs.IT", "new", ("cs.IT",)),
        ("1704.08347", 1, "cs.IT", "new", ("cs.IT",)),
        ("1706.08286", 1, "quant-ph", "cross", ("quant-ph",)),
        ("1706.00679", 3, "math.ST", "replace", ("math.ST",)),
    ]
    for paper in result.papers:
        assert paper.source == "legacy-rss"
        assert not paper.primary_guessed  # the bracket is the primary
        # The channel's dc:date, -05:00; an old paper's new version dates the version.
        dated = paper.updated if paper.arxiv_id == "1706.00679" else paper.announced
        assert dated == utc(2017, 7, 28, 1, 30)
        assert paper.published is None
        assert "(arXiv:" not in paper.title and not paper.title.endswith(".")
        assert "DONATE" not in paper.abstract and "<" not in paper.abstract
        assert "\n" not in paper.abstract
    papers = by_id(result)
    assert papers["1706.00679"].title == (
        "Testing Gaussian Process with Applications to Super-Resolution"
    )
    # dc:creator is HTML anchors.
    assert papers["1706.00679"].authors == (
        "Jean-Marc Azaïs",
        "Yohann De Castro",
        "Stéphane Mourareau",
    )
    assert len(papers["1707.08567"].authors) == 34 and "Dirk Wübben" in papers["1707.08567"].authors


def test_legacy_rss_agrees_with_the_api() -> None:
    # The reconstructed items carry the API's own metadata, so both must agree.
    api = by_id(parsed(PAGE100)) | by_id(parsed(API26 + "id_1707.08567_s0_m100_6a1afebfc6a3.xml"))
    for paper in parsed(LEGACY).papers:
        twin = api[paper.arxiv_id]
        assert (paper.title, paper.abstract, paper.authors) == (
            twin.title,
            twin.abstract,
            twin.authors,
        )


# --- Kaggle snapshot (JSON lines) ------------------------------------------------------


def test_kaggle_head200() -> None:
    data = raw(KAGGLE)
    assert looks_like_jsonl(data[:64])
    result = parsed(KAGGLE)
    assert result.kind == "kaggle" and result.error is None
    assert len(result.papers) == 200 == data.count(b"\n")
    assert [p.arxiv_id for p in result.papers] == [f"0704.{n:04d}" for n in range(1, 201)]
    # 8 papers have a cs.* category. (The shared SOURCES.md says 36: a grep for
    # "cs\." also matches "physics.".)
    assert sum(1 for p in result.papers if any(c.startswith("cs.") for c in p.categories)) == 8
    # Independently: published is versions[0].created, updated versions[-1].created.
    for line, paper in zip(data.splitlines(), result.papers, strict=True):
        record = json.loads(line)
        assert paper.published == parsedate_to_datetime(record["versions"][0]["created"])
        assert paper.updated == parsedate_to_datetime(record["versions"][-1]["created"])
        assert paper.version == int(record["versions"][-1]["version"][1:])
        assert paper.categories == tuple(record["categories"].split())
        assert paper.source == "kaggle"


def test_kaggle_first_records() -> None:
    first, second = parsed(KAGGLE).papers[:2]
    assert first.title == (
        "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies"
    )
    assert first.authors == ("C. Balázs", "E. L. Berger", "P. M. Nadolsky", "C.-P. Yuan")
    assert first.published == utc(2007, 4, 2, 19, 18, 42)
    assert first.updated == utc(2007, 7, 24, 20, 10, 27)
    assert first.version == 2
    assert (first.doi, first.journal_ref) == (
        "10.1103/PhysRevD.76.013009",
        "Phys.Rev.D76:013009,2007",
    )
    assert first.comment == "37 pages, 15 figures; published version"
    assert first.license is None
    assert first.abstract.startswith("A fully differential calculation in perturbative quantum")
    assert second.authors == ("Ileana Streinu", "Louis Theran")
    assert (second.primary_category, second.categories) == ("math.CO", ("math.CO", "cs.CG"))
    assert not second.primary_guessed
    assert second.license == "http://arxiv.org/licenses/nonexclusive-distrib/1.0/"


def test_kaggle_parsed_authors_read_as_tex() -> None:
    # The snapshot's authors_parsed is Unicode nearly always, but not for 2510.02569.
    record = json.loads(raw(KAGGLE).splitlines()[0])
    record["authors_parsed"] = [["Ògúnrèmí", "Tolúl\\d{o}pé", ""], ["Aakur\\\\", "S. N.", ""]]
    paper = parse_jsonl_line(json.dumps(record), "snapshot", 1)
    assert paper.authors == ("Tolúlọpé Ògúnrèmí", "S. N. Aakur")
    # Two authors of one name are two authors (2509.15608 lists two Zheng Wangs).
    record["authors_parsed"] = [["Wang", "Zheng", ""], ["Li", "Yu", ""], ["Wang", "Zheng", ""]]
    paper = parse_jsonl_line(json.dumps(record), "snapshot", 1)
    assert paper.authors == ("Zheng Wang", "Yu Li", "Zheng Wang")
    record["authors_parsed"] = []
    record["authors"] = "Zheng Wang, Yu Li and Zheng Wang"
    assert parse_jsonl_line(json.dumps(record), "snapshot", 1).authors == paper.authors


def test_punctuation_alone_is_no_author() -> None:
    """arXiv lists a team's report as "KT, :, Soonmin Bae, ..." (2509.20057; 39 of the
    corpus papers): ":" was shown and counted by ask's "who" as an author."""
    record = json.loads(raw(KAGGLE).splitlines()[0])
    record["authors"] = "KT, :, Soonmin Bae and Wanjin Park"
    record["authors_parsed"] = [["KT", "", ""], [":", "", ""], ["Bae", "Soonmin", ""]]
    assert parse_jsonl_line(json.dumps(record), "snapshot", 1).authors == ("KT", "Soonmin Bae")
    record["authors_parsed"] = []
    paper = parse_jsonl_line(json.dumps(record), "snapshot", 1)
    assert paper.authors == ("KT", "Soonmin Bae", "Wanjin Park")
    record["authors"] = "Zoë, 李, 7 and —"
    assert parse_jsonl_line(json.dumps(record), "snapshot", 1).authors == ("Zoë", "李", "7")
    # The API's Atom (fetch --since), with affiliations or without, drops it too.
    page = raw(API26 + "id_1605.08386_s0_m100_199195aa31ad.xml").decode()
    extra = "<author>\n      <name>:</name>\n    </author>\n    <author>"
    colon = page.replace("<author>", extra, 1)
    assert parse_feed(colon.encode(), "api").papers[0].authors == (
        "Caprice Stanley",
        "Tobias Windisch",
    )
    placed = colon.replace(
        "<name>Tobias Windisch</name>",
        "<name>Tobias Windisch</name><arxiv:affiliation>Somewhere</arxiv:affiliation>",
    )
    paper = parse_feed(placed.encode(), "api").papers[0]
    assert paper.authors == ("Caprice Stanley", "Tobias Windisch")
    assert paper.author_affiliations == ((), ("Somewhere",))
    # papertrack's own exports read back alike.
    line = {"arxiv_id": "2509.20057", "title": "A report", "authors": ["KT", ":", "Soonmin Bae"]}
    again = parse_jsonl_line(json.dumps(line), "export", 1)
    assert again.authors == ("KT", "Soonmin Bae")


def test_kaggle_authors_string_fallback_decodes_tex() -> None:
    record = json.loads(raw(KAGGLE).splitlines()[0])
    record["authors_parsed"] = []
    paper = parse_jsonl_line(json.dumps(record), "snapshot", 1)
    assert paper.authors == ("C. Balázs", "E. L. Berger", "P. M. Nadolsky", "C.-P. Yuan")
    record["authors"] = "Ileana Streinu and Louis Theran"
    assert parse_jsonl_line(json.dumps(record), "snapshot", 1).authors == (
        "Ileana Streinu",
        "Louis Theran",
    )


def test_kaggle_versions_are_read_in_version_order_whatever_the_lists_order() -> None:
    """A reversed versions list stored v1 with v11's date as the paper date, and an
    'updated' before it."""
    record = json.loads(raw(KAGGLE).splitlines()[0])
    versions = [
        {"version": f"v{n}", "created": f"Mon, {n:02d} Apr 2007 19:18:42 GMT"} for n in range(1, 12)
    ]
    in_order = parse_jsonl_line(json.dumps(dict(record, versions=versions)), "snapshot", 1)
    for shuffled in (versions[::-1], versions[5:] + versions[:5]):
        paper = parse_jsonl_line(json.dumps(dict(record, versions=shuffled)), "snapshot", 1)
        assert paper.version == 11
        assert (paper.published, paper.updated) == (in_order.published, in_order.updated)
    assert in_order.published is not None and in_order.published.day == 1
    assert in_order.updated is not None and in_order.updated.day == 11


def test_kaggle_broken_line_names_its_number() -> None:
    lines = raw(KAGGLE).splitlines()[:3]
    broken = b"\n".join([lines[0], lines[1][:-40], lines[2]]) + b"\n"
    with pytest.raises(FeedError, match=r"snapshot\.jsonl: line 2 is not valid JSON"):
        parse_feed(broken, "snapshot.jsonl")
    with pytest.raises(FeedError, match="line 7 "):
        parse_jsonl_line(b'{"id": "0704.0001", ', "snapshot.jsonl", 7)
    with pytest.raises(FeedError, match="line 3 has no valid arXiv id"):
        parse_jsonl_line('{"id": "not-an-id"}', "snapshot.jsonl", 3)
    with pytest.raises(FeedError, match="line 4 is not a JSON object"):
        parse_jsonl_line("[1, 2]", "snapshot.jsonl", 4)


def test_a_snapshot_line_with_a_byte_that_is_not_utf8_keeps_its_paper() -> None:
    # Dropped whole as a broken line, where an XML feed's bad byte becomes U+FFFD.
    line = raw(KAGGLE).splitlines()[0]
    record = json.loads(line)
    bad = line.replace(json.dumps(record["title"])[1:-1].encode()[:6], b"Bad\xff\xfe ", 1)
    paper = parse_jsonl_line(bad, "snapshot.jsonl", 1)
    assert paper.arxiv_id == record["id"] and "Bad\ufffd\ufffd " in paper.title
    # Still broken when it is no JSON, whatever its bytes.
    with pytest.raises(FeedError, match="line 2 is not valid JSON"):
        parse_jsonl_line(b'{"id": "0704.0001", "title": "\xff', "snapshot.jsonl", 2)


def test_kaggle_cut_off_last_line_keeps_the_rest() -> None:
    data = raw(KAGGLE)
    cut = data[: data.index(b"\n", 5000) + 300]  # into the line after a whole one
    result = parse_jsonl(cut, "snapshot")
    whole = cut.count(b"\n")
    assert len(result.papers) == whole
    assert result.error == (
        f"snapshot: the file is cut off at line {whole + 1}; kept the {whole} lines that "
        "arrived whole"
    )


def test_looks_like_jsonl() -> None:
    assert looks_like_jsonl(b'\xef\xbb\xbf \n {"id":')
    assert not looks_like_jsonl(b"<?xml version='1.0'?>")
    assert not looks_like_jsonl(b"")
    assert not looks_like_jsonl(b"   \n")


# --- OAI-PMH ---------------------------------------------------------------------------


def test_oai_get_record_arxiv_raw() -> None:
    result = parsed(OAI + "GetRecordResponse.xml")
    assert result.kind == "oai" and result.error is None
    (paper,) = result.papers
    assert (paper.arxiv_id, paper.version) == ("1302.2146", 2)
    assert paper.title == "The Same-Sign Dilepton Signature of RPV/MFV SUSY"
    assert paper.authors == ("Joshua Berger", "Maxim Perelstein", "Michael Saelim", "Philip Tanedo")
    assert paper.published == utc(2013, 2, 8, 21, 0, 1)
    assert paper.updated == utc(2013, 4, 2, 1, 50, 8)
    assert (paper.primary_category, paper.categories) == ("hep-ph", ("hep-ph", "hep-ex"))
    assert paper.comment == "18 pages, 6 figures; v2: References added"
    assert paper.license == "http://arxiv.org/licenses/nonexclusive-distrib/1.0/"
    assert paper.abstract.startswith("The lack of observation of superpartners")
    assert paper.source == "oai"


def test_oai_versions_are_read_in_version_order() -> None:
    """arXivRaw lists v1 first; listed the other way round, v2's date became the
    paper date and v1's the update."""
    data = raw(OAI + "GetRecordResponse.xml")
    v1 = re.search(rb'<version version="v1">.*?</version>', data)
    v2 = re.search(rb'<version version="v2">.*?</version>', data)
    assert v1 is not None and v2 is not None
    swapped = data.replace(v1.group(0) + v2.group(0), v2.group(0) + v1.group(0))
    assert swapped != data
    (paper,) = parse_feed(swapped, "swapped.xml").papers
    assert paper.version == 2
    assert paper.published == utc(2013, 2, 8, 21, 0, 1)
    assert paper.updated == utc(2013, 4, 2, 1, 50, 8)


def test_oai_list_records() -> None:
    data = raw(OAI + "ListRecordsResponse.xml")
    result = parsed(OAI + "ListRecordsResponse.xml")
    assert len(result.papers) == 6 == data.count(b"<record>")
    assert result.resumption_token == "726959|1001"
    assert result.total_results == 58011
    paper = result.papers[0]
    assert paper.arxiv_id == "0704.0471"
    # "D.V. Shetty, S.J. Yennello, and G.A. Souliotis": the serial comma too.
    assert paper.authors == ("D.V. Shetty", "S.J. Yennello", "G.A. Souliotis")
    # Several DOIs separated by a space: the first is kept.
    assert paper.doi == "10.1103/PhysRevC.76.024606"
    assert 'extremely " stiff " and " soft "' in paper.abstract
    richard = by_id(result)["0704.0716"]
    assert richard.version == 4
    assert richard.updated == utc(2008, 11, 14, 9, 7, 25)


@pytest.mark.parametrize(
    ("name", "code", "text"),
    [
        ("ErrorResponseBadArgument.xml", "badArgument", "illegal argument 'identifier'"),
        ("ErrorResponseBadResumptionToken.xml", "badResumptionToken", "illegal"),
        ("ErrorResponseBadVerb.xml", "badVerb", "Verb 'wah' not implemented"),
        ("ErrorResponseIdDoesNotExist.xml", "idDoesNotExist", "oai:arXiv.org:0813.2274"),
    ],
)
def test_oai_errors_raise(name: str, code: str, text: str) -> None:
    with pytest.raises(FeedError) as caught:
        parse_feed(raw(OAI + name), name)
    message = str(caught.value)
    assert f"OAI-PMH error {code}" in message and text in message
    assert message.endswith(". Check the request arguments.")


def test_oai_no_records_match_is_empty() -> None:
    result = parsed(OAI + "ErrorResponseNoRecordsMatch.xml")
    assert (result.kind, result.papers, result.total_results, result.error) == ("oai", [], 0, None)


def test_oai_cut_off_keeps_whole_records() -> None:
    data = raw(OAI + "ListRecordsResponse.xml")
    third = data.index(b"</record>", data.index(b"</record>", data.index(b"</record>") + 1) + 1)
    result = parse_feed(data[: third + 200], "oai")
    assert [p.arxiv_id for p in result.papers] == [
        p.arxiv_id for p in parsed(OAI + "ListRecordsResponse.xml").papers[:3]
    ]
    assert result.error is not None and "kept the 3 entries" in result.error


def test_oai_arxiv_and_oai_dc_formats() -> None:
    # No real recording of these two formats exists here; the records below are
    # the real 1302.2146 metadata (GetRecordResponse.xml) in the arXivRaw, arXiv and oai_dc layouts.
    arxiv_format = b"""<?xml version="1.0" encoding="UTF-8"?>
<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><GetRecord><record>
<header><identifier>oai:arXiv.org:1302.2146</identifier><datestamp>2013-04-03</datestamp></header>
<metadata><arXiv xmlns="http://arxiv.org/OAI/arXiv/"><id>1302.2146</id>
<created>2013-02-08</created><updated>2013-04-02</updated>
<authors><author><keyname>Berger</keyname><forenames>Joshua</forenames></author>
<author><keyname>Perelstein</keyname><forenames>Maxim</forenames></author></authors>
<title>The Same-Sign Dilepton Signature of RPV/MFV SUSY</title>
<categories>hep-ph hep-ex</categories></arXiv></metadata></record></GetRecord></OAI-PMH>"""
    (paper,) = parse_feed(arxiv_format, "oai").papers
    assert (paper.arxiv_id, paper.version) == ("1302.2146", None)
    assert paper.authors == ("Joshua Berger", "Maxim Perelstein")
    assert (paper.published, paper.updated) == (utc(2013, 2, 8), utc(2013, 4, 2))
    assert paper.categories == ("hep-ph", "hep-ex")

    oai_dc = b"""<?xml version="1.0" encoding="UTF-8"?>
<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><GetRecord><record>
<header><identifier>oai:arXiv.org:1302.2146</identifier><datestamp>2013-04-03</datestamp></header>
<metadata><oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/"
 xmlns:dc="http://purl.org/dc/elements/1.1/">
<dc:title>The Same-Sign Dilepton Signature of RPV/MFV SUSY</dc:title>
<dc:creator>Berger, Joshua</dc:creator><dc:creator>Tanedo, Philip</dc:creator>
<dc:subject>High Energy Physics - Phenomenology</dc:subject>
<dc:description>The lack of observation of superpartners</dc:description>
<dc:date>2013-02-08</dc:date><dc:date>2013-04-02</dc:date>
<dc:identifier>http://arxiv.org/abs/1302.2146</dc:identifier>
</oai_dc:dc></metadata></record></GetRecord></OAI-PMH>"""
    (paper,) = parse_feed(oai_dc, "oai").papers
    assert paper.arxiv_id == "1302.2146"
    assert paper.authors == ("Joshua Berger", "Philip Tanedo")
    assert paper.categories == ()  # dc:subject holds names, not category codes
    assert (paper.published, paper.updated) == (utc(2013, 2, 8), utc(2013, 4, 2))


# --- other feeds, and things that are not feeds ---------------------------------------


def test_generic_rss_feed() -> None:
    data = b"""<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Lab blog</title><link>https://lab.example/</link>
<item><title>A &lt;b&gt;bold&lt;/b&gt; post</title><guid>https://lab.example/p/1</guid>
<description>&lt;p&gt;Hello &amp;amp; welcome&lt;/p&gt;</description>
<pubDate>Tue, 05 Jan 2021 10:00:00 +0100</pubDate><author>ann@lab.example (Ann)</author></item>
<item><title>Our arXiv paper</title><link>https://arxiv.org/abs/2202.12139v1</link></item>
<item><title>Link only</title><link>https://lab.example/p/3</link><author>Jo Roe</author></item>
<item><title>Nothing to key on</title></item>
</channel></rss>"""
    result = parse_feed(data, "blog")
    assert result.kind == "feed" and result.skipped == 1
    first, arxiv, link_only = result.papers
    assert (first.arxiv_id, first.title, first.abstract) == (
        "https://lab.example/p/1",
        "A bold post",
        "Hello & welcome",
    )
    assert first.published == utc(2021, 1, 5, 9, 0, 0)
    # RSS's "e-mail (name)": feedparser reads a domain of 2-4 letters only, and made
    # this "ple (Ann", which every page and export printed.
    assert first.authors == ("Ann",)
    for written, name in (
        ("editor@journal.science", "editor@journal.science"),
        ("a@b.science (Jane (JD) Doe)", "Jane (JD) Doe"),
        ("Jane Doe (editor@journal.science)", "Jane Doe"),
        ("Jo Roe", "Jo Roe"),
    ):
        one = data.replace(b"ann@lab.example (Ann)", written.encode())
        assert parse_feed(one, "blog").papers[0].authors == (name,), written
    assert (arxiv.arxiv_id, arxiv.version) == ("2202.12139", 1)
    assert arxiv.pdf_url == "https://arxiv.org/pdf/2202.12139v1"
    assert (link_only.arxiv_id, link_only.authors) == ("https://lab.example/p/3", ("Jo Roe",))
    assert all(p.source == "feed" for p in result.papers)


NOT_A_FEED = "{} is not an RSS/Atom feed, arXiv API page or JSON lines file. Check the URL or file."


@pytest.mark.parametrize(
    "data",
    [
        b"Rate exceeded.",  # the body of arXiv's 429 answer
        b"\x00\x01\x02garbage",
        b"<?xml version='1.0'?><note><to>x</to></note>",
        b"/etc/passwd",  # must not be read as a file name by feedparser
    ],
)
def test_not_a_feed(data: bytes) -> None:
    with pytest.raises(FeedError) as caught:
        parse_feed(data, "https://example.org/x")
    assert str(caught.value) == NOT_A_FEED.format("https://example.org/x")


@pytest.mark.parametrize("data", [b"", b"  \n\t\n"])
def test_an_empty_file_is_called_empty(data: bytes) -> None:
    with pytest.raises(FeedError, match="is empty"):
        parse_feed(data, "feed.xml")


def test_html_page_is_named_as_one() -> None:
    page = b"<!DOCTYPE html><html><head><title>arXiv</title></head><body><p>Hi</p></body></html>"
    with pytest.raises(FeedError) as caught:
        parse_feed(page, "https://example.org/x")
    assert str(caught.value) == (
        'https://example.org/x is an HTML web page titled "arXiv", not a feed. The site may '
        "be down or the address may be a web page: check the URL (or the file), or try again later"
    )


# --- cut-off and malformed documents ----------------------------------------------------


@pytest.mark.parametrize("fraction", [0.13, 0.31, 0.5, 0.77, 0.9, 0.999])
def test_cut_anywhere_gives_a_prefix_of_whole_entries(fraction: float) -> None:
    data = raw(PAGE100)
    cut = data[: int(len(data) * fraction)]
    result = parse_feed(cut, "cut")
    whole = cut.count(b"</entry>")
    assert result.kind == "api"
    assert result.error is not None and f"kept the {whole} entries" in result.error
    assert result.papers == parsed(PAGE100).papers[:whole]


def test_cut_inside_a_multibyte_character_does_not_garble_whole_entries() -> None:
    data = raw(PAGE100)
    omega = data.index("ω".encode())
    result = parse_feed(data[: omega + 1], "cut")  # half of the two-byte ω
    assert result.papers == parsed(PAGE100).papers[: len(result.papers)]
    assert any("Katharina Götz" in p.authors for p in result.papers)


def test_cut_keeps_affiliations_and_extension_elements() -> None:
    # feedparser's lenient fallback loses per-element namespaces (2016 layout)
    # and leaves "&amp;" escaped; the whole entries must not suffer from that.
    data = raw(API16 + "search_au_del_maestro.xml")
    result = parse_feed(data[:-20], "cut")
    assert result.papers == parsed(API16 + "search_au_del_maestro.xml").papers[:9]
    assert all(p.doi for p in result.papers)


def test_malformed_in_the_middle_keeps_the_entries_before() -> None:
    data = raw(LISTING)
    fifth = data.index(b"<title>", data.index(b"<entry>") + 1)
    for _ in range(4):
        fifth = data.index(b"<title>", fifth + 1)
    # (An entity of HTML's, &nbsp;, is written as a number and the feed read whole:
    # test_one_character_xml_does_not_allow_loses_no_entry. This one is nobody's.)
    broken = data[: fifth + 7] + b"&zorknbsp;" + data[fifth + 7 :]
    result = parse_feed(broken, "listing")
    assert result.papers == parsed(LISTING).papers[:4]
    assert result.error is not None and "(undefined entity)" in result.error


# --- properties -------------------------------------------------------------------------

_FRAGMENTS = [
    b"<?xml version='1.0' encoding='UTF-8'?>",
    b'<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">',
    b"</feed>",
    b"<entry>",
    b"</entry>",
    b"<id>http://arxiv.org/abs/2202.12139v1</id>",
    b"<id>https://arxiv.org/api/errors#x</id>",
    b"<title>T</title>",
    b"<summary>arXiv:2508.13167v1 Announce Type: new Abstract: x</summary>",
    b"<author><name>A</name><arxiv:affiliation>X</arxiv:affiliation></author>",
    b"<rss version='2.0'><channel>",
    b"<item><guid>oai:arXiv.org:2508.13167v1</guid></item>",
    b"<OAI-PMH xmlns='http://www.openarchives.org/OAI/2.0/'>",
    b"<record><header><identifier>oai:arXiv.org:0704.0001</identifier></header></record>",
    b"<error code='badVerb'>x</error>",
    b'{"id": "0704.0001", "versions": [{"version": "v1"}]}\n',
    b"&amp;",
    b"\xc3",
    b"\n",
]


_JSON_VALUES = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.text(max_size=8),
        st.sampled_from(["0704.0001", "v2", "Mon, 2 Apr 2007 19:18:42 GMT", "cs.AI math.CO"]),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["version", "created"]), inner, max_size=2),
    ),
    max_leaves=8,
)
_KAGGLE_KEYS = ["id", "title", "abstract", "authors", "authors_parsed", "versions", "categories"]


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.sampled_from(_KAGGLE_KEYS), _JSON_VALUES), st.booleans())
def test_jsonl_line_of_odd_types_raises_only_feed_error(
    record: dict[str, object], valid: bool
) -> None:
    if valid:
        record["id"] = "0704.0001"
    try:
        paper = parse_jsonl_line(json.dumps(record), "snapshot", 1)
    except FeedError as exc:
        # A version no paper has (above 9999, up to 2**64 and past it) is a broken line too.
        assert not valid or "out of range" in str(exc)
        return
    assert paper.arxiv_id == "0704.0001"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300))
def test_parse_feed_raises_only_feed_error_on_random_bytes(data: bytes) -> None:
    try:
        result = parse_feed(data, "fuzz")
    except FeedError:
        return
    assert isinstance(result, ParsedFeed)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=14))
def test_parse_feed_raises_only_feed_error_on_feed_like_bytes(parts: list[bytes]) -> None:
    try:
        result = parse_feed(b"".join(parts), "fuzz")
    except FeedError:
        return
    assert all(isinstance(p, Paper) for p in result.papers)


def test_reading_json_lines_does_not_import_feedparser() -> None:
    # feedparser is for RSS/Atom only: snapshot workers and `import papertrack.feeds`
    # do without it, and the first RSS/Atom document imports it.
    code = (
        "import sys\n"
        "from papertrack.feeds import parse_feed\n"
        f"parse_feed(open({str(DATA / KAGGLE)!r}, 'rb').read())\n"
        "print('feedparser' in sys.modules)\n"
        f"parse_feed(open({str(DATA / LISTING)!r}, 'rb').read())\n"
        "print('feedparser' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "True"]


def test_a_feed_cut_after_one_entry_says_one_entry() -> None:
    import xml.etree.ElementTree as ET

    from papertrack.feeds.xml import cut_off

    error = ET.ParseError("no element found: line 3, column 0")
    error.position = (3, 0)
    assert "kept the 1 entry that arrived whole. Download it again" in cut_off("f.xml", error, 1)
    assert "kept the 2 entries that arrived whole. Download it again" in cut_off("f.xml", error, 2)


def test_an_export_line_with_affiliations_for_its_first_authors_keeps_them() -> None:
    # Another tool's JSON Lines leave out trailing authors without affiliations: every
    # affiliation was dropped. More lists than authors cannot be placed, and are.
    from papertrack.feeds.authors import export_record_authors

    record = {"authors": ["Ada", "Bo", "Cy"], "author_affiliations": [["MIT"], ["ETH"]]}
    assert export_record_authors(record) == (("Ada", "Bo", "Cy"), (("MIT",), ("ETH",), ()))
    record["author_affiliations"] = [["MIT"], ["ETH"], ["CMU"], ["UCL"]]
    assert export_record_authors(record) == (("Ada", "Bo", "Cy"), ())
    # A name given twice is two authors (2509.15608 has two Zheng Wangs), each with
    # its own list; a blank name goes with its list.
    record = {"authors": ["Ada", "Ada", "Cy"], "author_affiliations": [["MIT"], ["ETH"]]}
    assert export_record_authors(record) == (("Ada", "Ada", "Cy"), (("MIT",), ("ETH",), ()))
    record = {"authors": ["", "Bo"], "author_affiliations": [["MIT"], ["ETH"]]}
    assert export_record_authors(record) == (("Bo",), (("ETH",),))


@pytest.mark.parametrize(
    "bad",
    ["\x0c", "&#1;", "&#xD800;", "\ufffe", "&nbsp;"],
    ids=["form-feed", "control-reference", "surrogate-reference", "fffe", "nbsp"],
)
def test_one_character_xml_does_not_allow_loses_no_entry(bad: str) -> None:
    """One such character in the fifth entry of a real 86-entry listing kept the four
    entries before it ("cut-off"), or, for the surrogate, none at all ("no feed")."""
    raw = (DATA / "rss" / "atom-cs.AI-2025-08-20.first86.xml").read_text(encoding="utf-8")
    start = [m.start() for m in re.finditer("<entry>", raw)][4]
    title = raw.index("<title>", start) + len("<title>")
    damaged = (raw[:title] + bad + " " + raw[title:]).encode("utf-8")
    result = parse_feed(damaged, "listing.xml")
    whole = parse_feed(raw.encode("utf-8"), "listing.xml")
    assert result.error is None
    assert len(result.papers) == len(whole.papers) == 86
    assert [p.arxiv_id for p in result.papers] == [p.arxiv_id for p in whole.papers]
    assert result.papers[4].title == whole.papers[4].title  # (&nbsp; is a space there)
    assert any("XML does not allow" in w for w in result.warnings), result.warnings
    assert not any("XML does not allow" in w for w in whole.warnings)


def test_a_page_declaring_utf8_by_another_name_is_scrubbed_as_utf8() -> None:
    raw = (DATA / "rss" / "atom-cs.AI-2025-08-20.first86.xml").read_text(encoding="utf-8")
    title = raw.index("<title>", raw.index("<entry>")) + len("<title>")
    for name in ("utf_8", "UTF8"):
        page = raw.replace("encoding='UTF-8'", f"encoding='{name}'", 1)
        page = page.replace('encoding="UTF-8"', f'encoding="{name}"', 1)
        result = parse_feed((page[:title] + "\ufffe" + page[title:]).encode(), "listing.xml")
        assert len(result.papers) == 86, name


def test_a_scrubbed_feed_keeps_references_written_as_text() -> None:
    """Inside a CDATA section "&#0;" and "&nbsp;" are text, not references: once a
    feed broke anywhere, the scrub deleted or rewrote them in whole entries too."""

    def rss(extra: str) -> bytes:
        return (
            '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel>'
            "<title>Blog</title><link>https://blog.example/</link><item>"
            "<title><![CDATA[Escaping &amp; and &#1; in C strings]]></title>"
            "<link>https://arxiv.org/abs/2101.00001</link>"
            "<description><![CDATA[Use&nbsp;&amp;#0; <!-- &#1; --> or write &#x0;]]></description>"
            f"</item><item><title>Second{extra}</title>"
            "<link>https://arxiv.org/abs/2101.00002</link><description>x</description>"
            "</item></channel></rss>"
        ).encode()

    whole, broken = parse_feed(rss(""), "blog.xml"), parse_feed(rss("\x0b"), "blog.xml")
    assert broken.error is None and len(broken.papers) == 2
    assert broken.papers == whole.papers
    assert any("dropped 1 character XML does not allow" in w for w in broken.warnings)
