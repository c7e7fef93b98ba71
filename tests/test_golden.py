"""Every recorded feed parses exactly to its golden file (see tests/golden.py).

A failure means parsing changed. If the change is meant, regenerate the files with
``python tests/golden.py --update`` and review their diff; otherwise fix the parser.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

import papertrack.feeds
from tests.golden import DATA, SUFFIX, differences, fixtures, golden_path

FIXTURES = fixtures()


def test_every_format_has_fixtures_and_every_golden_file_a_fixture() -> None:
    kinds = {path.relative_to(DATA).parts[0] for path in FIXTURES}
    assert kinds == {"api-atom", "rss", "rss-legacy", "rss-derived", "oai", "kaggle-jsonl"}
    goldens = sorted(p for p in DATA.rglob("*" + SUFFIX) if "labels" not in p.parts)
    assert goldens == sorted(golden_path(path) for path in FIXTURES)


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.relative_to(DATA).as_posix())
def test_a_fixture_parses_to_its_golden_file(fixture: Path) -> None:
    found = differences(fixture)
    assert not found, "\n".join(
        [f"{fixture.name} no longer parses to {golden_path(fixture).name}:", *found[:30]]
    )


def test_a_change_to_a_paper_outside_the_sample_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # The 100-entry page keeps 8 records in full and digests every one: a title
    # changed on the last paper (not in the sample) must still fail, naming it.
    page = DATA / "api-atom/arxiv.py-2026-recorded/q_testing_s0_m100_cfe7536492ca.xml"
    real = papertrack.feeds.parse_feed
    last = max(paper.arxiv_id for paper in real(page.read_bytes()).papers)

    def changed(*args: Any, **kwargs: Any) -> papertrack.feeds.ParsedFeed:
        result = real(*args, **kwargs)
        result.papers = [
            dataclasses.replace(p, title=p.title + "!") if p.arxiv_id == last else p
            for p in result.papers
        ]
        return result

    assert differences(page) == []
    monkeypatch.setattr(papertrack.feeds, "parse_feed", changed)
    found = differences(page)
    assert found[0].startswith("digest: expected")
    assert found[1:] == [f"{last}: its record changed" + found[1].split("changed", 1)[1]]
