"""One date rule for every format: a date that cannot be a paper's is refused the same way.

A record dated after the present (2090, or the last day of year 9999) or before
arXiv (1985) keeps its paper: the date is dropped, the paper is dated by another
of its dates or left undated, and the document gets the one warning every format
words the same. No format breaks the line or the entry over it.
"""

from __future__ import annotations

import io
import json
import pathlib
import re
from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from papertrack.export import write_export
from papertrack.feeds import parse_feed, parse_jsonl_line
from papertrack.models import Paper

NOW = datetime(2026, 6, 1, tzinfo=UTC)
#: The plausible channel date of the listings, which stands in for a refused entry date.
CHANNEL = datetime(2026, 5, 31, 20, 0, tzinfo=UTC)
WARNING = re.compile(
    r"(?P<source>\S+): ignored (?P<count>\d+) dates? that cannot be right \(impossible, "
    r"before 1991, in the future or not a date\); those entries are dated by another of "
    r"their dates or left undated"
)
BAD_DATES = {
    "2090": datetime(2090, 1, 2, 3, 4, 5, tzinfo=UTC),
    "far-future": datetime(9999, 12, 30, 3, 4, 5, tzinfo=UTC),
    "before-arxiv": datetime(1985, 7, 1, 3, 4, 5, tzinfo=UTC),
}


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def rfc(moment: datetime) -> str:
    return moment.strftime("%a, %-d %b %Y %H:%M:%S GMT")


def api(moment: datetime) -> str:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/"
 xmlns:arxiv="http://arxiv.org/schemas/atom">
<id>https://arxiv.org/api/abc</id><title>q</title><updated>{iso(CHANNEL)}</updated>
<opensearch:totalResults>1</opensearch:totalResults>
<entry><id>http://arxiv.org/abs/2401.00001v1</id><title>T</title>
<published>{iso(moment)}</published><updated>{iso(moment)}</updated><summary>S</summary>
<author><name>Ada Lovelace</name></author>
<category term="cs.AI" scheme="http://arxiv.org/schemas/atom"/></entry></feed>"""


def listing_atom(moment: datetime) -> str:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom"
 xmlns:dc="http://purl.org/dc/elements/1.1/">
<id>http://rss.arxiv.org/atom/cs.AI</id><title>cs.AI updates</title>
<updated>{iso(CHANNEL)}</updated>
<entry><id>oai:arXiv.org:2401.00001v1</id><title>T</title><published>{iso(moment)}</published>
<summary>arXiv:2401.00001v1 Announce Type: new
Abstract: S</summary><category term="cs.AI"/><arxiv:announce_type>new</arxiv:announce_type>
<dc:creator>Ada Lovelace</dc:creator></entry></feed>"""


def listing_rss(moment: datetime) -> str:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:arxiv="http://arxiv.org/schemas/atom"
 xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>cs.AI updates</title>
<link>http://rss.arxiv.org/rss/cs.AI</link><description>d</description>
<lastBuildDate>{rfc(CHANNEL)}</lastBuildDate>
<item><title>T</title><link>https://arxiv.org/abs/2401.00001</link>
<description>arXiv:2401.00001v1 Announce Type: new
Abstract: S</description><guid isPermaLink="false">oai:arXiv.org:2401.00001v1</guid>
<category>cs.AI</category><pubDate>{rfc(moment)}</pubDate>
<arxiv:announce_type>new</arxiv:announce_type><dc:creator>Ada Lovelace</dc:creator></item>
</channel></rss>"""


def legacy_rss(moment: datetime) -> str:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"
 xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel rdf:about="http://arxiv.org/rss/cs.AI"><title>cs.AI updates on arXiv.org</title>
<link>http://arxiv.org/</link><description>d</description><dc:date>{iso(CHANNEL)}</dc:date>
</channel>
<item rdf:about="http://arxiv.org/abs/2401.00001"><title>T. (arXiv:2401.00001v1 [cs.AI])</title>
<link>http://arxiv.org/abs/2401.00001</link><description>&lt;p&gt;S&lt;/p&gt;</description>
<dc:creator>Ada Lovelace</dc:creator><dc:date>{iso(moment)}</dc:date></item></rdf:RDF>"""


def _oai(metadata: str) -> str:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><ListRecords><record><header>
<identifier>oai:arXiv.org:2401.00001</identifier></header><metadata>{metadata}</metadata>
</record></ListRecords></OAI-PMH>"""


def oai_raw(moment: datetime) -> str:
    return _oai(
        f"""<arXivRaw xmlns="http://arxiv.org/OAI/arXivRaw/"><id>2401.00001</id>
<version version="v1"><date>{rfc(moment)}</date></version><title>T</title>
<authors>Ada Lovelace</authors><categories>cs.AI</categories><abstract>S</abstract></arXivRaw>"""
    )


def oai_arxiv(moment: datetime) -> str:
    return _oai(
        f"""<arXiv xmlns="http://arxiv.org/OAI/arXiv/"><id>2401.00001</id>
<created>{moment:%Y-%m-%d}</created><title>T</title><authors><author><keyname>Lovelace</keyname>
<forenames>Ada</forenames></author></authors><categories>cs.AI</categories>
<abstract>S</abstract></arXiv>"""
    )


def oai_dc(moment: datetime) -> str:
    return _oai(
        f"""<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/"
 xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>T</dc:title>
<dc:creator>Lovelace, Ada</dc:creator><dc:description>S</dc:description>
<dc:date>{moment:%Y-%m-%d}</dc:date></oai_dc:dc>"""
    )


def kaggle(moment: datetime) -> str:
    record = {
        "id": "2401.00001",
        "title": "T",
        "abstract": "S",
        "authors": "Ada Lovelace",
        "categories": "cs.AI",
        "versions": [{"version": "v1", "created": rfc(moment)}],
    }
    return json.dumps(record) + "\n"


def _export(fmt: str, moment: datetime) -> str:
    paper = Paper(
        arxiv_id="2401.00001",
        title="T",
        version=1,
        abstract="S",
        authors=("Ada Lovelace",),
        categories=("cs.AI",),
        primary_category="cs.AI",
        published=moment,
        updated=moment,
    )
    out = io.StringIO()
    write_export([paper], fmt, out, now=NOW)
    return out.getvalue()


FORMATS: dict[str, tuple[Callable[[datetime], str], str]] = {
    "api-atom": (api, "api"),
    "listing-atom": (listing_atom, "listing"),
    "listing-rss20": (listing_rss, "listing"),
    "legacy-rss": (legacy_rss, "legacy-rss"),
    "oai-arXivRaw": (oai_raw, "oai"),
    "oai-arXiv": (oai_arxiv, "oai"),
    "oai-dc": (oai_dc, "oai"),
    "kaggle-jsonl": (kaggle, "kaggle"),
    "export-jsonl": (lambda moment: _export("jsonl", moment), "kaggle"),
    "export-json": (lambda moment: _export("json", moment), "export"),
    "export-atom": (lambda moment: _export("atom", moment), "export"),
}


@pytest.mark.parametrize("when", BAD_DATES)
@pytest.mark.parametrize("fmt", FORMATS)
def test_a_date_that_cannot_be_right_is_dropped_the_same_way_by_every_format(
    fmt: str, when: str
) -> None:
    build, kind = FORMATS[fmt]
    bad = BAD_DATES[when]
    result = parse_feed(build(bad).encode("utf-8"), fmt, now=NOW)
    assert (result.kind, result.error, result.skipped) == (kind, None, 0)
    [paper] = result.papers  # kept, not a broken line or a skipped entry
    assert (paper.arxiv_id, paper.title) == ("2401.00001", "T")
    dates = {paper.published, paper.updated, paper.announced}
    assert bad not in dates
    # Dated by another of its dates (a listing's channel date) or left undated.
    assert dates <= {None, CHANNEL}
    [warning] = result.warnings
    found = WARNING.fullmatch(warning)
    assert found is not None, warning
    assert found["source"] == fmt and int(found["count"]) >= 1


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_plausible_date_is_kept_by_every_format(fmt: str) -> None:
    good = datetime(2026, 5, 20, 3, 4, 5, tzinfo=UTC)
    build, _ = FORMATS[fmt]
    result = parse_feed(build(good).encode("utf-8"), fmt, now=NOW)
    assert result.warnings == []
    [paper] = result.papers
    # Day-only formats (OAI arXiv, oai_dc) keep the day.
    assert paper.paper_date is not None and paper.paper_date.date() == good.date()


@pytest.mark.parametrize("when", BAD_DATES)
def test_a_snapshot_line_read_alone_drops_the_date_and_keeps_the_line(when: str) -> None:
    # What `ingest` does with each line of a snapshot, in its workers.
    paper = parse_jsonl_line(kaggle(BAD_DATES[when]), "snapshot.jsonl", 1)
    assert (paper.arxiv_id, paper.published, paper.updated) == ("2401.00001", None, None)


def test_a_bulk_snapshot_ingest_warns_about_dropped_dates_in_the_same_words(
    isolated_home: object, tmp_path: pathlib.Path
) -> None:
    from helpers import run

    snapshot = tmp_path / "snapshot.jsonl"
    snapshot.write_text(kaggle(BAD_DATES["2090"]), "utf-8")
    done = run("ingest", "-v", str(snapshot))
    assert done.exit_code == 0, done.stderr
    found = WARNING.search(done.stderr)
    assert found is not None, done.stderr
    assert found.group("count") == "1"
    shown = run("show", "2401.00001", "--json")
    assert shown.exit_code == 0 and '"published": null' in shown.stdout


def test_a_listed_new_version_of_an_older_paper_leaves_it_undated(
    tmp_path: pathlib.Path, isolated_home: pathlib.Path
) -> None:
    """A listing's replacement of a paper never stored was dated by its announcement:
    a paper of 2025 replaced in a 2026 listing counted as new in momentum and digests.
    Now a replacement from an earlier month than its listing dates the version
    (``updated``) and leaves the paper undated until a better date comes; within the
    month the announcement stays the nearer guess. A paper announced as new keeps that
    date when its new version is listed."""
    from helpers import ingest, run

    from papertrack.ids import id_month

    assert id_month("2509.15800") == (2025, 9) and id_month("hep-th/9901001") == (1999, 1)
    assert id_month("math.GT/0309136") == (2003, 9) and id_month("not-an-id") is None
    listings = pathlib.Path(__file__).parent / "data" / "rss"
    raw = (listings / "atom-cs.AI-2025-08-20.first86.xml").read_text(encoding="utf-8")
    head, rest = raw.split("<entry>", 1)
    entry = "<entry>" + rest.split("</entry>", 1)[0] + "</entry>"

    def listing(name: str, day: str, entries: list[tuple[str, str]]) -> pathlib.Path:
        body = "".join(
            entry.replace("2508.13167v1", ident).replace(">new<", f">{kind}<")
            .replace("Announce Type: new", f"Announce Type: {kind}")
            for ident, kind in entries
        )  # fmt: skip
        path = tmp_path / name
        path.write_text((head + body + "</feed>\n").replace("2025-08-20", day), encoding="utf-8")
        return path

    first = listing(
        "first.xml",
        "2025-08-20",
        [
            ("2508.13167v1", "new"),
            ("2503.01234v3", "replace"),  # first submitted in March
            ("2508.00002v2", "replace"),  # the same month
            ("hep-th/9901001v2", "replace-cross"),
            ("2507.04321v1", "new"),  # announced a month after its id: new, so dated
        ],
    )
    papers = {p.arxiv_id: p for p in parse_feed(first.read_bytes(), "listing").papers}
    announced = datetime(2025, 8, 20, 4, tzinfo=UTC)
    assert {k: (p.paper_date, p.announced, p.updated) for k, p in papers.items()} == {
        "2508.13167": (announced, announced, None),
        "2503.01234": (None, None, announced),
        "2508.00002": (announced, announced, None),
        "hep-th/9901001": (None, None, announced),
        "2507.04321": (announced, announced, None),
    }
    ingest(first)
    recent = json.loads(run("export", "-f", "json", "--since", "2025-08-01").stdout)
    assert sorted(p["arxiv_id"] for p in recent) == ["2507.04321", "2508.00002", "2508.13167"]
    # 2507.04321's v2, listed in September: the paper keeps its August announcement.
    later = listing("later.xml", "2025-09-03", [("2507.04321v2", "replace")])
    ingest(later)
    shown = json.loads(run("show", "2507.04321", "--json").stdout)
    assert shown["version"] == 2 and shown["paper_date"] == "2025-08-20T04:00:00Z"
    assert run("doctor").exit_code == 0
