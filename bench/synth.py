"""Synthetic paper records with the shapes of real arXiv metadata (labelled synthetic).

Every synthetic paper borrows a real title and abstract (so topic tags fall as they
do on real feeds), an author list resampled from real author names with a real
author count, and the categories of a real paper, from the bundled samples and the
recorded test feeds. Ids and dates are new: papers are spread over consecutive ISO
weeks at a fixed weekly volume, as arXiv's own volume does not depend on how much
of it a user has stored. Seeded, so every run builds the same store.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

from papertrack.feeds import parse_feed, parse_jsonl_line
from papertrack.models import Paper

ROOT = Path(__file__).resolve().parent.parent
REAL_FEEDS = [
    ROOT / "data" / "samples" / "rss-atom-cs.AI-2025-08-20.xml",
    ROOT / "data" / "samples" / "api-query-testing-100.xml",
]
REAL_JSONL = ROOT / "tests" / "data" / "kaggle-jsonl" / "arxiv-metadata-oai-snapshot.head200.jsonl"
#: Papers per ISO week: about cs.* volume today.
WEEKLY = 2000


def real_papers() -> list[Paper]:
    papers: list[Paper] = []
    for path in REAL_FEEDS:
        papers.extend(parse_feed(path.read_bytes(), str(path)).papers)
    if REAL_JSONL.exists():
        for n, line in enumerate(REAL_JSONL.read_bytes().splitlines(), start=1):
            if line.strip():
                papers.append(parse_jsonl_line(line, str(REAL_JSONL), n))
    return papers


def synthetic_papers(count: int, seed: int = 7, end: datetime | None = None) -> Iterator[Paper]:
    """``count`` synthetic papers, oldest first, the newest dated in the week before ``end``."""
    rng = random.Random(seed)
    pool = real_papers()
    names = [a for p in pool for a in p.authors]
    affiliations = [a for p in pool for a in p.affiliations] or ["Synthetic University"]
    end = end or datetime(2026, 11, 23, tzinfo=UTC)
    weeks = max(1, -(-count // WEEKLY))
    start = end - timedelta(weeks=weeks)
    step = timedelta(weeks=weeks) / max(count, 1)  # none asked for: the loop gives none
    per_month: dict[str, int] = {}
    for n in range(count):
        model = rng.choice(pool)
        published = start + step * n
        authors = tuple(rng.sample(names, k=min(len(names), max(1, len(model.authors)))))
        affs = tuple((rng.choice(affiliations),) if rng.random() < 0.2 else () for _ in authors)
        yymm = published.strftime("%y%m")
        per_month[yymm] = per_month.get(yymm, 0) + 1
        arxiv_id = f"{yymm}.{per_month[yymm]:05d}"
        yield Paper(
            arxiv_id=arxiv_id,
            title=model.title,
            version=1 + (n % 3 == 0),
            abstract=model.abstract,
            authors=authors,
            author_affiliations=affs if any(affs) else (),
            primary_category=model.primary_category
            or (model.categories[0] if model.categories else None),
            categories=model.categories,
            published=published,
            updated=published,
            url=f"https://arxiv.org/abs/{arxiv_id}",
            source="synthetic",
        )


def kaggle_line(paper: Paper) -> str:
    """``paper`` as one line of Kaggle's arxiv-metadata-oai-snapshot.json."""
    import json

    created = paper.published or datetime(2020, 1, 1, tzinfo=UTC)
    stamp = "%a, %d %b %Y %H:%M:%S GMT"
    versions = [
        {"version": f"v{n}", "created": (created + timedelta(days=n - 1)).strftime(stamp)}
        for n in range(1, (paper.version or 1) + 1)
    ]
    parsed = []
    for name in paper.authors:
        first, _, last = name.rpartition(" ")
        parsed.append([last, first, ""])
    record = {
        "id": paper.arxiv_id,
        "submitter": paper.authors[0] if paper.authors else None,
        "authors": ", ".join(paper.authors),
        "title": paper.title,
        "comments": None,
        "journal-ref": None,
        "doi": None,
        "report-no": None,
        "categories": " ".join(paper.categories),
        "license": None,
        "abstract": "  " + paper.abstract + "\n",
        "versions": versions,
        "update_date": created.strftime("%Y-%m-%d"),
        "authors_parsed": parsed,
    }
    return json.dumps(record)


def api_page(papers: list[Paper], total: int | None = None) -> bytes:
    """``papers`` as one arXiv API page (Atom, the 2026 layout)."""
    from xml.sax.saxutils import escape, quoteattr

    def stamp(moment: datetime | None) -> str:
        return (moment or datetime(2020, 1, 1, tzinfo=UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")

    out = [
        "<?xml version='1.0' encoding='UTF-8'?>\n"
        '<feed xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
        'xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns="http://www.w3.org/2005/Atom">\n'
        "  <id>https://arxiv.org/api/synthetic</id>\n"
        "  <title>arXiv Query: synthetic page (bench/synth.py)</title>\n"
        f"  <updated>{stamp(None)}</updated>\n"
        f"  <opensearch:itemsPerPage>{len(papers)}</opensearch:itemsPerPage>\n"
        f"  <opensearch:totalResults>{total or len(papers)}</opensearch:totalResults>\n"
        "  <opensearch:startIndex>0</opensearch:startIndex>\n"
    ]
    for paper in papers:
        vid = f"{paper.arxiv_id}v{paper.version or 1}"
        entry = [
            "  <entry>",
            f"    <id>http://arxiv.org/abs/{vid}</id>",
            f"    <title>{escape(paper.title)}</title>",
            f"    <updated>{stamp(paper.updated)}</updated>",
            f'    <link href="https://arxiv.org/abs/{vid}" rel="alternate" type="text/html"/>',
            f'    <link href="https://arxiv.org/pdf/{vid}" rel="related" '
            'type="application/pdf" title="pdf"/>',
            f"    <summary>{escape(paper.abstract)}</summary>",
            *(
                f'    <category term={quoteattr(c)} scheme="http://arxiv.org/schemas/atom"/>'
                for c in paper.categories
            ),
            f"    <published>{stamp(paper.published)}</published>",
            f"    <arxiv:primary_category term={quoteattr(paper.primary_category or 'cs.AI')}/>",
            *(
                f"    <author>\n      <name>{escape(a)}</name>\n    </author>"
                for a in paper.authors
            ),
            "  </entry>",
        ]
        out.append("\n".join(entry) + "\n")
    out.append("</feed>\n")
    return "".join(out).encode("utf-8")
