"""papertrack site: a static site of topic pages and Atom feeds, from stores of real papers.

The store is built by ingesting the recorded feeds of tests/data; every number a
page shows is checked against what the terminal commands (`topic`, `trending`,
`momentum`) say about the same store, never against numbers written here.
The browser tests (headless Chromium) are in test_site_browser.py.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from datetime import date
from pathlib import Path
from urllib.parse import unquote, urlparse
from xml.etree import ElementTree as ET

import feedparser
import pytest

from papertrack.models import Paper
from papertrack.momentum import format_share
from papertrack.related import count_shared, related_topics, shared_counts
from papertrack.site import MARKER, feed_name, page_name
from papertrack.store import Store
from papertrack.topics import Catalog
from tests.helpers import DATA, LISTING, error_line, kaggle_line, run
from tests.htmlcheck import Elements

API_PAGE = DATA / "api-atom" / "arxiv.py-2026-recorded" / "q_testing_s0_m100_cfe7536492ca.xml"
KAGGLE = DATA / "kaggle-jsonl" / "arxiv-metadata-oai-snapshot.head200.jsonl"
ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One store of the recorded feeds (186 + 100 + 200 real papers), ingested with the CLI."""
    root = tmp_path_factory.mktemp("site-store")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PAPERTRACK_HOME", str(root / "home"))
        result = run(
            "--db", str(root / "store"), "ingest", str(LISTING), str(API_PAGE), str(KAGGLE)
        )
    assert result.exit_code == 0, result.stderr
    return root / "store"


def site(store: Path, out: Path, *args: str) -> str:
    result = run("--db", str(store), "site", "-o", str(out), *args)
    assert result.exit_code == 0, result.stderr
    return result.stderr


def cli_json(store: Path, *args: str) -> object:
    result = run("--db", str(store), *args, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def page(path: Path) -> Elements:
    checker = Elements(path.read_text(encoding="utf-8"))
    assert checker.problems == [] and checker.stack == [], path
    return checker


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def tag_texts(html: str, tag: str, cls: str | None = None) -> list[str]:
    """The text of every ``tag`` element (with class ``cls``) of ``html``, whitespace folded."""
    from html.parser import HTMLParser

    found: list[str] = []

    class Collect(HTMLParser):
        depth = 0

        def handle_starttag(self, name: str, attrs: list[tuple[str, str | None]]) -> None:
            classes = (dict(attrs).get("class") or "").split()
            if self.depth:
                self.depth += name == tag
            elif name == tag and (cls is None or cls in classes):
                self.depth = 1
                found.append("")

        def handle_endtag(self, name: str) -> None:
            if self.depth and name == tag:
                self.depth -= 1

        def handle_data(self, data: str) -> None:
            if self.depth:
                found[-1] += data

    parser = Collect(convert_charrefs=True)
    parser.feed(html)
    parser.close()
    return [" ".join(t.split()) for t in found]


def local_links(folder: Path) -> list[tuple[str, str]]:
    """(page, href) of every link of every page that stays inside the site."""
    links = []
    for path in sorted(folder.glob("*.html")):
        for href in Elements(read(path)).hrefs():
            if not urlparse(href).scheme:
                links.append((path.name, href))
    return links


# --------------------------------------------------------------------------- related topics


def test_related_topics_are_the_topics_whose_papers_overlap_most() -> None:
    lists = [
        ("a", "b"),
        ("a", "b", "c"),
        ("a", "c"),
        ("a", "b"),
        ("d",),
        ("a", "a", "e"),
        ("c", "e"),
    ]
    shared = shared_counts(lists)
    assert shared["a"] == {"a": 5, "b": 3, "c": 2, "e": 1}  # with itself: its own papers
    assert shared["b"]["a"] == 3 and shared["d"] == {"d": 1}  # symmetric

    def near(*args: object, **kwargs: object) -> list[tuple[str, int]]:
        return [(r.slug, r.shared) for r in related_topics(*args, **kwargs)]  # type: ignore[arg-type]

    assert near(shared, "a") == [("b", 3), ("c", 2), ("e", 1)]
    # The overlap ranks them, and comes with each: shared over the papers of either.
    assert [r.overlap for r in related_topics(shared, "a")] == [3 / 5, 2 / 6, 1 / 6]
    assert near(shared, "a", n=1) == [("b", 3)]
    # c shares 1 paper with b and with e: e's 2 papers overlap more than b's 3.
    assert near(shared, "c") == [("a", 2), ("e", 1), ("b", 1)]
    assert near(shared, "a", among={"c", "e"}) == [("c", 2), ("e", 1)]
    assert near(shared, "d") == [] and near(shared, "nobody") == []
    # A broad topic on every paper shares the most with each, and is not the nearest:
    # GUI agents listed Large Language Models first and not computer-use agents.
    broad = [("big", "x", "y")] * 3 + [("big", "x")] + [("big",)] * 16
    assert near(shared_counts(broad), "x") == [("y", 3), ("big", 4)]
    # Two papers shared come after every topic sharing three or more.
    few = [("x", "y")] * 2 + [("x", "z")] * 3 + [("z",)] * 30
    assert near(shared_counts(few), "x") == [("z", 3), ("y", 2)]
    # Without the topics' own counts, by the papers shared (no overlap); a tie goes by slug.
    alone = related_topics({"c": {"a": 2, "b": 1, "e": 1}}, "c")
    assert [(r.slug, r.shared, r.overlap) for r in alone] == [
        ("a", 2, None),
        ("b", 1, None),
        ("e", 1, None),
    ]


def test_count_shared_reads_the_papers_of_the_days_asked(store_dir: Path) -> None:
    store = Store(store_dir)
    papers = store.latest(None, limit=None)
    days = sorted(p.paper_date.date() for p in papers if p.paper_date)
    first, last = days[len(days) // 2], days[-1]
    inside = [p.tags for p in papers if p.paper_date and first <= p.paper_date.date() <= last]
    assert count_shared(store, first, last) == shared_counts(inside)
    assert any(count_shared(store, first, last).values())  # the real papers share topics


# --------------------------------------------------------------------------- the site


def test_site_pages_show_what_the_terminal_shows(store_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    said = site(store_dir, out, "-n", "8")
    trending = cli_json(store_dir, "trending")
    assert isinstance(trending, list)
    slugs = [row["topic"] for row in trending]
    assert f"Site of {len(slugs)} topics" in said and "in " + str(out) in said
    expected = {"index.html", MARKER}
    expected |= {page_name(s) for s in slugs} | {feed_name(s) for s in slugs}
    assert {p.name for p in out.iterdir()} == expected | {".papertrack-site.lock"}
    assert set(json.loads(read(out / MARKER))["files"]) == expected - {MARKER}

    index = read(out / "index.html")
    page(out / "index.html")
    names = [row["name"] for row in trending]
    assert [t for t in tag_texts(index, "a") if t in names] == names  # as trending orders them
    assert tag_texts(index, "p", "sentence") == [row["summary"] for row in trending]
    # Each card's notes, as the topic page gives them: "+100%" ranked below "-32%"
    # said nothing of why (too few papers to call a trend).
    assert tag_texts(index, "p", "note") == [n for row in trending for n in row["notes"]]
    few = any(row["low_count"] or row["little_data"] for row in trending)
    assert few and "too few papers to call a trend come after the others" in index

    store = Store(store_dir)
    catalog = Catalog.default()
    for row in trending:
        slug = row["topic"]
        shown = cli_json(store_dir, "topic", slug, "-n", "8")
        assert isinstance(shown, dict)
        html = read(out / page_name(slug))
        checker = page(out / page_name(slug))
        assert tag_texts(html, "h1") == [shown["name"]]
        sentence = tag_texts(html, "p", "sentence")[0]
        assert sentence.endswith(shown["momentum"]["summary"])
        assert f"Latest papers ({shown['papers_total']:,})" in tag_texts(html, "h2")
        listed, total = len(shown["papers"]), shown["papers_total"]
        said = f"The newest {listed:,} of {total:,}."
        assert (said in tag_texts(html, "p", "meta")) == (0 < listed < total), slug
        titles = [" ".join(p["title"].split()) for p in shown["papers"]]
        assert tag_texts(html, "h3") == titles  # the papers, newest first
        hrefs = checker.hrefs()
        for paper in shown["papers"]:
            assert f"https://arxiv.org/abs/{paper['arxiv_id']}" in hrefs
        assert feed_name(slug) in hrefs  # Follow
        # The chart: a bar per week, its label, and the counts of `momentum`.
        weeks = shown["momentum"]["weeks"]
        labels = tag_texts(html, "text", "week-label")
        every = [
            f"{date.fromisoformat(w['week_start']):%b} {int(w['week_start'][8:])}" for w in weeks
        ]
        assert labels == every[(len(every) - 1) % 2 :: 2]  # every other week, the last always
        counts = tag_texts(html, "text", "count")
        assert counts == ["–" if w["count"] is None else str(w["count"]) for w in weeks]
        assert ("so far" in tag_texts(html, "text", "so-far")) == (not weeks[-1]["complete"])
        assert f"papertrack ask {slug} '…'" in tag_texts(html, "code")
        # Related topics: the three whose papers overlap most in the chart's weeks.
        first = date.fromisoformat(weeks[0]["week_start"])
        as_of = date.fromisoformat(shown["momentum"]["as_of"])
        want = related_topics(
            count_shared(store, first, as_of), slug, 3, {t.slug for t in catalog.topics}
        )
        related = tag_texts(html, "li")[-len(want) :] if want else []
        for (other, count, overlap), text in zip(want, related, strict=True):
            assert catalog.by_slug(other).name in text and f"{count:,} shared paper" in text
            assert f"{format_share(overlap)} of those in either" in text  # type: ignore[arg-type]
            assert page_name(other) in hrefs


def test_every_link_inside_the_site_leads_to_a_page_of_it(store_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    site(store_dir, out)
    links = local_links(out)
    assert len(links) > 100
    for _page, href in links:
        assert (out / unquote(href)).is_file(), href
    # Tags link to their topic's page, and the pages link back to the index.
    tags = [h for p, h in links if p != "index.html" and h.endswith(".html") and h != "index.html"]
    assert tags


def test_feeds_are_valid_atom_that_feedparser_reads_back(store_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    site(store_dir, out, "-n", "5", "--base-url", "https://example.org/papers")
    for path in sorted(out.glob("*.xml")):
        slug = path.stem
        shown = cli_json(store_dir, "topic", slug, "-n", "5")
        assert isinstance(shown, dict)
        parsed = feedparser.parse(path.read_bytes())
        assert not parsed.bozo, (path, parsed.get("bozo_exception"))
        assert parsed.version == "atom10"
        assert parsed.feed.id == f"https://example.org/papers/{path.name}"
        assert {link.rel: link.href for link in parsed.feed.links} == {
            "alternate": f"https://example.org/papers/{slug}.html",
            "self": f"https://example.org/papers/{path.name}",
        }
        assert [e.id for e in parsed.entries] == [
            f"https://arxiv.org/abs/{p['arxiv_id']}" for p in shown["papers"]
        ]
        assert [e.title for e in parsed.entries] == [p["title"] for p in shown["papers"]]
        # A strict reading as RFC 4287 asks: the feed and every entry have an id,
        # a title and an updated date; every entry has an author (its own or the feed's).
        root = ET.fromstring(path.read_bytes())
        assert root.tag == f"{ATOM}feed"
        for element in (root, *root.findall(f"{ATOM}entry")):
            for child in ("id", "title", "updated"):
                assert element.find(f"{ATOM}{child}") is not None, (path, child)
        assert root.find(f"{ATOM}author/{ATOM}name") is not None


def test_unchanged_pages_are_not_rewritten(store_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    site(store_dir, out, "-n", "5")
    before = {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in out.iterdir()}
    again = site(store_dir, out, "-n", "5")
    assert "0 files written" in again
    assert {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in out.iterdir()} == before
    more = site(store_dir, out, "-n", "6")  # one more paper a page: the pages change
    changed = [
        p.name
        for p in out.iterdir()
        if before.get(p.name) != (p.stat().st_ino, p.stat().st_mtime_ns)
    ]
    assert changed and "index.html" not in changed  # the index shows no papers
    assert f"{len(changed)} files written" in more


def test_a_rewritten_page_keeps_its_permissions(store_dir: Path, tmp_path: Path) -> None:
    """Under cron's umask 077, a published 0644 page was rewritten 0600, and the web
    server answered 403 for every page that changed."""
    import os

    out = tmp_path / "site"
    site(store_dir, out, "-n", "5")
    pages = sorted(out.glob("*.html"))
    for page in pages:
        page.chmod(0o664)
    old = os.umask(0o077)
    try:
        site(store_dir, out, "-n", "6")  # every topic page changes
    finally:
        os.umask(old)
    rewritten = [p for p in pages if p.name != "index.html"]
    assert rewritten and {oct(p.stat().st_mode & 0o777) for p in rewritten} == {"0o664"}


def test_a_page_new_to_a_published_site_takes_the_index_permissions(
    store_dir: Path, tmp_path: Path
) -> None:
    """A topic added to a site later, under cron's umask 077: its page and feed were
    0600 beside 0644 pages, and the index linked to a page the server refused (403)."""
    import os

    trending = cli_json(store_dir, "trending")
    assert isinstance(trending, list)
    one, two = trending[0]["topic"], trending[1]["topic"]
    out = tmp_path / "site"
    site(store_dir, out, "--topics", one)
    (out / "index.html").chmod(0o644)
    old = os.umask(0o077)
    try:
        site(store_dir, out, "--topics", f"{one},{two}")
        (fresh := tmp_path / "fresh").mkdir()
        site(store_dir, fresh, "--topics", one)  # a new site: the umask's, as ever
    finally:
        os.umask(old)
    added = sorted(out.glob(f"{two}.*"))
    assert [p.suffix for p in added] == [".html", ".xml"]
    assert {oct(p.stat().st_mode & 0o777) for p in added} == {"0o644"}
    assert oct((fresh / "index.html").stat().st_mode & 0o777) == "0o600"


def test_topics_as_of_and_removed_pages(store_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    trending = cli_json(store_dir, "trending")
    assert isinstance(trending, list)
    one, two = trending[0]["topic"], trending[1]["topic"]
    (tmp_path / "site").mkdir()
    site(store_dir, out, "--topics", f"{one},{trending[1]['name']}")
    (out / "notes.txt").write_text("mine", encoding="utf-8")  # the user's file in the site
    assert {page_name(one), page_name(two)} <= {p.name for p in out.iterdir()}
    said = site(store_dir, out, "--topics", one)
    assert "2 removed" in said
    names = {p.name for p in out.iterdir()}
    assert page_name(two) not in names and feed_name(two) not in names
    assert read(out / "notes.txt") == "mine"
    assert page_name(two) not in read(out / page_name(one))  # no link to a removed page
    # --as-of: the page as it stood that day, as `topic --as-of` shows it.
    shown = cli_json(store_dir, "topic", one, "--as-of", "2025-08-19")
    assert isinstance(shown, dict)
    site(store_dir, out, "--topics", one, "--as-of", "2025-08-19", "-n", "10")
    html = read(out / page_name(one))
    assert f"Latest papers ({shown['papers_total']:,})" in tag_texts(html, "h2")
    assert tag_texts(html, "h3") == [" ".join(p["title"].split()) for p in shown["papers"]]


def test_following_builds_the_followed_topics(store_dir: Path, tmp_path: Path) -> None:
    assert run("follow", "llm-agent-training", "gui-agents").exit_code == 0
    out = tmp_path / "site"
    site(store_dir, out, "--following")
    assert sorted(p.name for p in out.glob("*.html")) == [
        "gui-agents.html",
        "index.html",
        "llm-agent-training.html",
    ]
    # Not "Every topic" on a site of two; each Follow link names its topic for a
    # screen reader (twenty links read "Follow"), each name is isolated (<bdi>: two
    # right-to-left names side by side were shown in reversed order).
    index = read(out / "index.html")
    assert "The topics of this site by their change" in index and "Every topic" not in index
    assert 'aria-label="Follow GUI Agents: its Atom feed"' in index
    page = read(out / "gui-agents.html")
    assert '<p class="authors"><bdi>' in page and 'aria-label="Abstract of ' in page
    site(store_dir, tmp_path / "all")
    assert "Every topic by its change" in read(tmp_path / "all" / "index.html")


def test_quiet_prints_nothing_but_a_store_that_stopped(store_dir: Path, tmp_path: Path) -> None:
    # The store's papers are months old: from cron, the site froze at that day without
    # a word, where digest warned.
    result = run("--db", str(store_dir), "site", "-q", "-o", str(tmp_path / "s"))
    assert result.exit_code == 0 and result.stdout == ""
    assert result.stderr.startswith("Warning: the newest paper in the store is from 20")
    assert result.stderr.count("\n") == 1 and "papertrack fetch" in result.stderr
    day = run(
        "--db", str(store_dir), "site", "-q", "-o", str(tmp_path / "s"), "--as-of", "2025-08-20"
    )
    assert day.exit_code == 0 and day.stderr == "" and day.stdout == ""


# --------------------------------------------------------------------------- folders


def test_a_folder_that_is_not_a_site_is_refused_and_left_alone(
    store_dir: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "index.html").write_text("my own page", encoding="utf-8")
    result = run("--db", str(store_dir), "site", "-o", str(folder))
    error_line(result, 2, "not a papertrack site", MARKER)
    assert [p.name for p in folder.iterdir()] == ["index.html"]
    assert read(folder / "index.html") == "my own page"

    # A site that meets a file it did not write where a page would go refuses too.
    out = tmp_path / "site"
    site(store_dir, out, "--topics", "llm-agent-training")
    (out / "gui-agents.html").write_text("not papertrack's", encoding="utf-8")
    result = run("--db", str(store_dir), "site", "-o", str(out), "--topics", "gui-agents")
    error_line(result, 2, "gui-agents.html", "not papertrack's")
    assert read(out / "gui-agents.html") == "not papertrack's"
    assert (out / "llm-agent-training.html").is_file()  # nothing of the site removed either


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--as-of", "someday"), "--as-of"),
        (("--topics", "no-such-topic"), "no-such-topic"),
        (("--following",), "follow"),
        (("--following", "--topics", "gui-agents"), "--following"),
        (("--base-url", "javascript:alert(1)"), "--base-url"),
        # An unset variable (`https://$HOST/`) left feeds linking to the host "papers".
        (("--base-url", "https:///papers/"), "with a host"),
        (("--base-url", "https://"), "with a host"),
        (("--base-url", "https://ex.org/?q=1"), "query or fragment"),
        (("--base-url", "https://ex.org/#top"), "query or fragment"),
        (("--base-url", "https://ex.org/a b/"), "spaces or control characters"),
        (("--base-url", "https://ex.org/\x1b[2J/"), "spaces or control characters"),
        (("--base-url", "https://user:pw@ex.org/"), "user name or password"),
        (("--base-url", "https://ex.org:99999/"), "not a web address"),
        (("--as-of", "0001-01-08"), "Choose a later date"),
        (("--as-of", "9999-12-31"), "would end after it. Choose an earlier date"),
        (("-o", ""), "-o is empty"),
    ],
)
def test_bad_input_is_one_error_line(
    store_dir: Path, tmp_path: Path, args: tuple[str, ...], needle: str
) -> None:
    out = tmp_path / "site"
    result = run("--db", str(store_dir), "site", "-o", str(out), *args)
    line = error_line(result, 2, needle)
    assert "\x1b" not in line and "--window" not in line
    assert not out.exists()


def test_a_base_url_is_taken_in_any_case_of_its_scheme(store_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    site(store_dir, out, "--topics", "gui-agents", "--base-url", "HTTPS://Example.org/papers")
    feed = feedparser.parse((out / "gui-agents.xml").read_bytes())
    assert feed.feed.id == "https://Example.org/papers/gui-agents.xml"


def test_a_manifest_whose_files_are_a_string_is_damaged_not_letters(
    store_dir: Path, tmp_path: Path
) -> None:
    """Its letters were taken for file names: the user's files R, E, A, D, M went."""
    out = tmp_path / "mine"
    out.mkdir()
    for name in "READM":
        (out / name).write_text("mine", encoding="utf-8")
    (out / MARKER).write_text('{"papertrack_site": 1, "files": "README"}', encoding="utf-8")
    error_line(run("--db", str(store_dir), "site", "-o", str(out)), 1, "is damaged")
    assert sorted(p.name for p in out.iterdir()) == sorted([*"READM", MARKER])


def test_a_file_or_a_missing_parent_as_the_folder(store_dir: Path, tmp_path: Path) -> None:
    target = tmp_path / "file.html"
    target.write_text("x", encoding="utf-8")
    error_line(run("--db", str(store_dir), "site", "-o", str(target)), 2, "is a file")
    missing = tmp_path / "no" / "such" / "site"
    error_line(run("--db", str(store_dir), "site", "-o", str(missing)), 2, "Create it")
    assert read(target) == "x"
    # Under a file: the store is months behind, and its note came before the error.
    under = run("--db", str(store_dir), "site", "-o", str(target / "site"))
    error_line(under, 2, f"no folder {target} to write the site in")
    assert under.stderr.startswith("Error: ") and under.stderr.count("\n") == 1
    # Written, the site says the store is behind, after the folder is known to work.
    done = run("--db", str(store_dir), "site", "-o", str(tmp_path / "site"))
    assert done.exit_code == 0, done.stderr
    note, summary = done.stderr.splitlines()
    assert note.startswith("Note: the newest paper in the store is from ")
    assert summary.startswith("Site of 20 topics as of ")


# --------------------------------------------------------------------------- hostile text

# Markup, script, a javascript: URL, terminal escapes and bidi controls.
HOSTILE = (
    '<script>alert(1)</script> "><img src=x onerror=alert(2)> [x](javascript:alert(3)) '
    "\x1b[31mred\x1b[0m \x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\ "
    "\u202eoverride\u202c \u2066iso\u2069 ]]> zebra"
)
FORBIDDEN = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200d\u2060\ufeff\u202a-\u202e\u2066-\u2069]"
)


def hostile_papers() -> list[Paper]:
    """Papers as a hostile feed would have them, stored as they are (not cleaned by ingest)."""
    from datetime import UTC, datetime

    day = datetime(2025, 8, 19, 12, tzinfo=UTC)
    return [
        Paper(
            arxiv_id="2508.99901",
            title=HOSTILE,
            abstract=HOSTILE + " abstract",
            authors=(HOSTILE, "Eve\u202e", "<b>Mallory</b>", "Trent"),
            author_affiliations=((HOSTILE,), ("<i>Evil U</i>",), (), ()),
            primary_category="cs.AI\u202e<x>",
            categories=("cs.AI",),
            published=day,
            url="javascript:alert(4)",
            pdf_url="javascript:alert(5)",
        ),
        Paper(  # another site's entry: its link is a javascript: URL
            arxiv_id="blog-entry-1",
            title="Zebra blog " + HOSTILE,
            published=day,
            url="javascript:alert(6)",
        ),
    ]


def test_hostile_feed_text_stays_data(store_dir: Path, tmp_path: Path, isolated_home: Path) -> None:
    import shutil

    isolated_home.mkdir(parents=True, exist_ok=True)
    (isolated_home / "topics.toml").write_text(
        '[[topic]]\nname = "Zebra <script>alert(7)</script> Studies"\n'
        "description = \"Stripes \\u202e</p><script>alert(8)</script>\"\nquery = 'zebra*'\n",
        encoding="utf-8",
    )
    store = tmp_path / "store"
    shutil.copytree(store_dir, store)
    result = run(
        "--db",
        str(store),
        "ingest",
        "-",
        input=kaggle_line("2508.99902", title=HOSTILE, abstract=HOSTILE, authors="Eve") + "\n",
    )
    assert result.exit_code == 0, result.stderr
    from papertrack.cli.common import load_catalog

    with Store(store).writer(load_catalog()) as writer:
        writer.upsert(hostile_papers())
    out = tmp_path / "site"
    site(store, out, "--as-of", "2025-08-20")
    zebra = out / "zebra-script-alert-7-script-studies.html"
    html = read(zebra)
    assert html.count("red") >= 3 and "zebra" in html  # the hostile papers are on the page
    for path in [*out.glob("*.html")]:
        text = read(path)
        checker = page(path)
        assert (
            "<script" not in text and "<img" not in text and "<b>" not in text and "<i>" not in text
        )
        assert "javascript:" not in " ".join(checker.hrefs()), path
        assert not FORBIDDEN.search(text), path
        for tag, attrs in checker.tags:
            assert not any(k.startswith("on") for k in attrs), (path, tag, attrs)
            if tag in ("a", "link"):
                href = attrs.get("href") or ""
                assert href.startswith("https://arxiv.org/abs/") or not urlparse(href).scheme, href
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&#34;&gt;&lt;img src=x onerror=alert(2)&gt;" in html
    assert "Zebra blog" in html and '<a href="javascript' not in html
    for path in out.glob("*.xml"):
        raw = path.read_bytes()
        parsed = feedparser.parse(raw)
        assert not parsed.bozo, (path, parsed.get("bozo_exception"))
        ET.fromstring(raw)
        assert not FORBIDDEN.search(raw.decode("utf-8"))
        assert b"<script" not in raw and b"javascript:" not in raw.replace(
            b"(javascript:alert(3))", b""
        )
    feed = feedparser.parse((out / "zebra-script-alert-7-script-studies.xml").read_bytes())
    titles = [e.title for e in feed.entries]
    assert any("<script>alert(1)</script>" in t for t in titles)  # text, read back as written


# --------------------------------------------------------------------------- kills


def test_a_failure_at_any_write_leaves_whole_pages_and_no_dead_link(
    store_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run is cut at every rename in turn (as a kill would); what is left is a site."""
    out = tmp_path / "site"
    site(store_dir, out, "--topics", "llm-agent-training,gui-agents", "-n", "3")
    real = os.replace
    cuts = 0
    while True:
        calls = 0

        def cut(src: object, dst: object, limit: int = cuts) -> None:
            nonlocal calls
            calls += 1
            if calls > limit:
                raise KeyboardInterrupt
            real(src, dst)  # type: ignore[arg-type]

        monkeypatch.setattr(os, "replace", cut)
        # A different site each time: other topics, more papers, so most files change.
        topics = (
            "multi-agent-llm-systems,llm-agent-training,agentic-rl"
            if cuts % 2 == 0
            else "gui-agents,agentic-rag"
        )
        result = run(
            "--db",
            str(store_dir),
            "site",
            "-o",
            str(out),
            "--topics",
            topics,
            "-n",
            str(4 + cuts % 3),
        )
        monkeypatch.setattr(os, "replace", real)
        assert result.exit_code in (0, 130), result.stderr
        for path in out.glob("*.html"):
            assert read(path).rstrip().endswith("</html>"), path
            page(path)
        for _page, href in local_links(out):
            reachable = (out / unquote(href)).is_file()
            assert reachable, (cuts, _page, href)
        if result.exit_code == 0:
            break
        cuts += 1
    assert cuts > 5
    site(store_dir, out)  # and the next run cleans up: no temp file left
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.slow
def test_a_killed_site_process_leaves_a_site(store_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    command = [
        sys.executable,
        "-m",
        "papertrack",
        "--db",
        str(store_dir),
        "site",
        "-q",
        "-o",
        str(out),
    ]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)}
    assert subprocess.run(command, env=env, timeout=120).returncode == 0
    started = time.monotonic()
    finished = subprocess.run([*command, "-n", "3"], env=env, timeout=120)
    took = time.monotonic() - started
    assert finished.returncode == 0
    for n in range(8):
        proc = subprocess.Popen([*command, "-n", str(5 + n)], env=env)
        time.sleep(took * (0.3 + 0.1 * n))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        for path in out.glob("*.html"):
            assert read(path).rstrip().endswith("</html>"), path
        for _page, href in local_links(out):
            assert (out / unquote(href)).is_file(), href
    assert subprocess.run(command, env=env, timeout=120).returncode == 0
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]


def test_an_empty_topics_option_is_refused_and_the_site_kept(
    store_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    site(store_dir, out, "--topics", "gui-agents", "--as-of", "2026-06-26")
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    for empty in ("", " , "):
        result = run("--db", str(store_dir), "site", "-o", str(out), "--topics", empty)
        error_line(result, 2, "--topics names no topic")
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before


def test_feed_titles_names_counts_and_untitled_entries_read_as_on_the_terminal(
    tmp_path: Path, isolated_home: Path
) -> None:
    """A topic name's escape codes were dropped on the page but their remains ("[1m")
    kept in the feed and the slug; the page wrote "+1500" where the terminal says
    "+1,500"; an entry without a title was an empty link, nothing to click."""
    authors = [[f"Last{n}", f"First{n}", ""] for n in range(1503)]
    lines = [
        kaggle_line("2501.00001", "Zebra crowds", authors_parsed=authors),
        kaggle_line("2501.00002", "   ", abstract="Zebra without a title."),
    ]
    snapshot = tmp_path / "papers.jsonl"
    snapshot.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert run("ingest", str(snapshot)).exit_code == 0
    added = run("topics", "add", "Esc \x1b[1mBold\x1b[0m Zebra", "--query", "zebra*")
    assert added.exit_code == 0, added.stderr
    assert "(esc-bold-zebra)" in added.stderr
    out = tmp_path / "site"
    result = run("site", "-o", str(out), "--topics", "esc-bold-zebra", "--as-of", "2025-08-10")
    assert result.exit_code == 0, result.stderr
    feed = ET.fromstring((out / "esc-bold-zebra.xml").read_bytes())
    assert feed.findtext(f"{ATOM}title") == "Esc Bold Zebra — papertrack"
    html = read(out / "esc-bold-zebra.html")
    assert "+1,500" in html and "+1500" not in html
    assert ">(untitled: 2501.00002)</a>" in html
    latest = run("latest", "esc-bold-zebra", "--format", "csv")
    assert latest.exit_code == 0 and "2501.00002" in latest.stdout, latest.stderr
    assert "(untitled: 2501.00002)" not in latest.stdout  # data keeps the empty title
    table = run("latest", "esc-bold-zebra")
    assert "(untitled: 2501.00002)" in table.stdout


def test_the_chart_legend_says_which_weeks_the_dark_bars_are(
    store_dir: Path, tmp_path: Path
) -> None:
    """Five bars were dark (the weeks a 28-day window overlaps) under a legend of
    "the last four weeks", and they added up to more than the sentence said."""
    out = tmp_path / "site"
    site(store_dir, out, "--topics", "gui-agents", "--as-of", "2025-08-20")  # a Wednesday
    legend = "Dark bars: the weeks the last four weeks overlap (from Jul 24, so the first"
    assert legend in read(out / page_name("gui-agents"))
    site(store_dir, out, "--topics", "gui-agents", "--as-of", "2025-08-24")  # a Sunday
    # (A Sunday's last week is whole: no bar is dashed, and the legend names none.)
    assert "Dark bars: the last four weeks.</p>" in read(out / page_name("gui-agents"))


def test_related_topics_read_tags_without_papers_and_a_damaged_record_is_named(
    isolated_home: Path,
) -> None:
    # Each paper built in full made `topic` take 0.8 s for 12 weeks of real papers;
    # read from the records, a damaged one must still be named, not a traceback.
    from tests.helpers import LISTING, error_line, run

    assert run("ingest", str(LISTING)).exit_code == 0
    store = Store(isolated_home / "store")
    (week,) = store.weeks()
    pairs = store.week_tags(week)
    papers = store.search_week(week)
    assert sorted((m, sorted(t)) for m, t in pairs) == sorted(
        (p.paper_date.isoformat().replace("+00:00", "Z") if p.paper_date else None, sorted(p.tags))
        for p in papers
    )
    path = store.partition_path(week)
    data = json.loads(path.read_text(encoding="utf-8"))
    table = next(iter(data.values()))
    next(iter(table.values()))["tags"] = "llm-agent-training"  # a string, not a list
    path.write_text(json.dumps(data), encoding="utf-8")
    error_line(run("topic", "gui-agents", "--as-of", "2025-08-22"), 1, "is damaged (record ")


def test_a_non_arxiv_entry_links_to_its_own_page_in_any_scheme_case(
    store_dir: Path, tmp_path: Path, isolated_home: Path
) -> None:
    """RFC 3986 schemes are case-insensitive: an HTTPS:// link was dropped by the
    site and the digests (show gave it). A space, quote or non-ASCII letter in it is
    percent-encoded, as the exports do, so the page links to the same address."""
    import shutil
    from datetime import UTC, datetime

    from papertrack.cli.common import load_catalog
    from papertrack.digest import link

    isolated_home.mkdir(parents=True, exist_ok=True)
    (isolated_home / "topics.toml").write_text("[[topic]]\nname = 'Zebras'\nquery = 'zebra*'\n")
    store = tmp_path / "store"
    shutil.copytree(store_dir, store)
    entry = Paper(
        arxiv_id="blog-entry-2",
        title="Zebra crossings",
        published=datetime(2025, 8, 19, 12, tzinfo=UTC),
        url='HTTPS://Blog.example/Über a"b<c>',
    )
    with Store(store).writer(load_catalog()) as writer:
        writer.upsert([entry])
    wanted = "https://Blog.example/%C3%9Cber%20a%22b%3Cc%3E"
    assert link(entry) == wanted
    out = tmp_path / "site"
    site(store, out, "--as-of", "2025-08-20")
    assert wanted in page(out / "zebras.html").hrefs()
    entries = feedparser.parse((out / "zebras.xml").read_bytes()).entries
    assert [e.link for e in entries if e.title == "Zebra crossings"] == [wanted]


def test_the_legend_names_a_dashed_bar_only_when_a_week_is_counted_so_far(
    store_dir: Path, tmp_path: Path
) -> None:
    """On a Sunday the last week is whole and no bar is dashed; the legend said one was."""
    for day, dashed in (("2025-08-24", False), ("2025-08-20", True)):  # a Sunday, a Wednesday
        out = tmp_path / day
        site(store_dir, out, "--topics", "gui-agents", "--as-of", day)
        page = (out / "gui-agents.html").read_text(encoding="utf-8")
        legend = page[page.index('<p class="legend">') :].partition("</p>")[0]
        assert ("a dashed bar: the week so far" in legend) is dashed, day
        from papertrack.digest_html import PARTIAL_NOTE

        assert (PARTIAL_NOTE in page.replace(legend, "")) is dashed, day  # the chart's own
        # The page as of a day asked for asks as of it, as `topic --as-of` does.
        assert f"papertrack ask gui-agents &#39;…&#39; --as-of {day}</code>" in page
    site(store_dir, tmp_path / "today", "--topics", "gui-agents")
    page = (tmp_path / "today" / "gui-agents.html").read_text(encoding="utf-8")
    assert "papertrack ask gui-agents &#39;…&#39;</code>" in page


def test_a_site_into_what_is_no_folder_says_what_it_is(store_dir: Path, tmp_path: Path) -> None:
    """`site -o /dev/stdout` was told "/dev/stdout is a file"."""
    page = tmp_path / "page.html"
    page.write_text("mine", encoding="utf-8")
    for target, said in ((page, "is a file."), (Path(os.devnull), "is no folder.")):
        result = run("--db", str(store_dir), "site", "-o", str(target))
        error_line(result, 2, f"{target} {said} Name a folder for the site")
    assert page.read_text(encoding="utf-8") == "mine"
