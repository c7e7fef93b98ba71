"""The static site as a reader sees it: headless Chromium at a phone's and a desktop's width.

The site is built from the bundled sample (4,616 real papers of 12 weeks, so every
chart has real weeks) and read through the DevTools protocol: the text a reader
sees, the chart's bars and labels, the papers in order, clicks from page to page,
the console, and the layout. The expectations on layout are the ones a person
checked once on screenshots (``site-*.png`` in the test's tmp_path): nothing wider
than the window, text at a readable size, the chart as wide as the column on a
phone, two columns of topics on a desktop's index and one on a phone's.

Chromium is Debian's package ``chromium`` (.ci/run installs it); without it these
tests skip and say so.
"""

from __future__ import annotations

import json
import shutil
import struct
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from papertrack.site import page_name
from tests.chromium import Browser, Tab, find_chromium
from tests.helpers import run

PHONE, DESKTOP = 390, 1280
CHROMIUM = find_chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no Chromium: install Debian's package with 'apt-get install -y chromium'",
)

#: Everything a reader's eye checks, measured in the page.
MEASURE = """(() => {
  const vw = window.innerWidth;
  const visible = e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const overflowing = [...document.querySelectorAll('body *')].filter(e => {
    const r = e.getBoundingClientRect();
    return visible(e) && (r.right > vw + 0.5 || r.left < -0.5);
  }).map(e => e.tagName + '.' + (e.getAttribute('class') || ''));
  const box = s => { const e = document.querySelector(s); if (!e) return null;
    const r = e.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top,
    width: r.width, height: r.height}; };
  const all = (s, f) => [...document.querySelectorAll(s)].map(f);
  return {
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: vw,
    overflowing,
    bodyFont: parseFloat(getComputedStyle(document.body).fontSize),
    smallestFont: Math.min(...all('p, li, a, h1, h2, h3, summary, code',
      e => visible(e) ? parseFloat(getComputedStyle(e).fontSize) : 99)),
    h1: document.querySelector('h1').innerText,
    sentence: (document.querySelector('#momentum .sentence') || {}).innerText,
    main: box('main'),
    chart: box('#momentum svg'),
    bars: all('#momentum rect.bar-rect', r => { const b = r.getBoundingClientRect();
      return {height: b.height, width: b.width, left: b.left,
              partial: r.parentElement.classList.contains('partial')}; }),
    labels: all('#momentum text.week-label', t => t.textContent),
    labelBoxes: all('#momentum text.week-label', t => { const b = t.getBoundingClientRect();
      return {left: b.left, right: b.right}; }),
    counts: all('#momentum text.count', t => t.textContent),
    soFar: all('#momentum text.so-far', t => t.textContent),
    titles: all('#papers h3', h => h.innerText),
    titleLinks: all('#papers h3 a', a => a.href),
    openAbstracts: all('#papers details', d => d.open).filter(Boolean).length,
    cards: all('.topics .topic', c => { const r = c.getBoundingClientRect();
      return {top: r.top, left: r.left, width: r.width}; }),
    cardNames: all('.topics .topic h2 a', a => a.innerText),
  };
})()"""


@pytest.fixture(scope="module")
def built(
    tmp_path_factory: pytest.TempPathFactory, _ingested_sample: Path
) -> Iterator[tuple[Path, Path]]:
    """(the site, the data home) of the bundled sample."""
    root = tmp_path_factory.mktemp("site-browser")
    shutil.copytree(_ingested_sample, root / "home")  # as `papertrack ingest --sample` leaves it
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PAPERTRACK_HOME", str(root / "home"))
        result = run("site", "-o", str(root / "site"))
        assert result.exit_code == 0, result.stderr
        yield root / "site", root / "home"


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    assert CHROMIUM is not None
    chromium = Browser(CHROMIUM, tmp_path_factory.mktemp("chromium-profile"))
    yield chromium
    chromium.close()


def terminal(home: Path, *args: str) -> object:
    """What the terminal command says about the same store, as JSON."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PAPERTRACK_HOME", str(home))
        result = run(*args, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def readable(seen: dict, width: int) -> None:
    """The layout facts a person checked once on the screenshots."""
    assert seen["innerWidth"] == width
    assert seen["scrollWidth"] <= seen["innerWidth"], seen["scrollWidth"]  # no sideways scroll
    assert seen["overflowing"] == []
    assert seen["bodyFont"] >= 16 and seen["smallestFont"] >= 12
    assert seen["main"]["left"] >= 0 and seen["main"]["right"] <= width


def shot(tab: Tab, tmp_path: Path, name: str, width: int) -> None:
    path = tab.screenshot(tmp_path / f"site-{name}-{width}.png")
    shape = png_size(path)
    assert shape[0] == width and shape[1] > 400


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
def test_a_topic_page_as_a_reader_sees_it(
    built: tuple[Path, Path], browser: Browser, tmp_path: Path, width: int
) -> None:
    folder, home = built
    shown = terminal(home, "topic", "llm-agent-training", "-n", "20")
    assert isinstance(shown, dict)
    tab = browser.open(width)
    tab.goto((folder / page_name("llm-agent-training")).as_uri())
    seen = tab.evaluate(MEASURE)
    shot(tab, tmp_path, "topic", width)
    readable(seen, width)
    assert seen["h1"] == shown["name"]
    assert seen["sentence"].endswith(shown["momentum"]["summary"])

    # The chart: one bar per week, as tall as its count, its label under it.
    weeks = shown["momentum"]["weeks"]
    assert len(seen["bars"]) == len(weeks) == 12
    starts = [date.fromisoformat(w["week_start"]) for w in weeks]
    # Every other week, the last always; each label inside the chart, none touching
    # the next: "Sep 14" lost its "S" to the chart's left edge, and at 10 px each
    # week's label ran into its neighbour's.
    assert seen["labels"] == [f"{d:%b} {d.day}" for d in starts][(len(starts) - 1) % 2 :: 2]
    boxes = seen["labelBoxes"]
    assert seen["chart"]["left"] - 0.5 <= boxes[0]["left"]
    assert boxes[-1]["right"] <= seen["chart"]["right"] + 0.5
    assert all(a["right"] < b["left"] for a, b in zip(boxes, boxes[1:], strict=False)), boxes
    assert seen["counts"] == [str(w["count"]) for w in weeks]
    top = max(w["count"] for w in weeks)
    tallest = max(b["height"] for b in seen["bars"])
    for week, bar in zip(weeks, seen["bars"], strict=True):
        assert abs(bar["height"] / tallest - week["count"] / top) < 0.05, (week, bar)
        assert bar["partial"] == (not week["complete"])
    assert seen["soFar"] == (["so far"] if not weeks[-1]["complete"] else [])
    lefts = [b["left"] for b in seen["bars"]]
    assert lefts == sorted(lefts)  # oldest week first, left to right
    assert seen["chart"]["right"] <= width
    if width == PHONE:  # as wide as the column, bars wide enough to see
        assert seen["chart"]["width"] >= 0.85 * (seen["main"]["width"] - 64)
        assert min(b["width"] for b in seen["bars"]) >= 15

    # The papers, newest first, titles linking to arXiv; abstracts folded until opened.
    assert seen["titles"] == [" ".join(p["title"].split()) for p in shown["papers"]]
    assert seen["titleLinks"] == [f"https://arxiv.org/abs/{p['arxiv_id']}" for p in shown["papers"]]
    assert seen["openAbstracts"] == 0
    opened = tab.evaluate(
        "(() => { const d = document.querySelector('#papers details');"
        " d.querySelector('summary').click();"
        " return [d.open, d.querySelector('p').getBoundingClientRect().height,"
        " d.querySelector('p').innerText]; })()"
    )
    assert opened[0] is True and opened[1] > 20
    assert opened[2] == " ".join(shown["papers"][0]["abstract"].split())
    readable(tab.evaluate(MEASURE), width)  # an open abstract still fits
    assert tab.errors() == []
    tab.close()


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
def test_the_index_and_the_links_between_pages(
    built: tuple[Path, Path], browser: Browser, tmp_path: Path, width: int
) -> None:
    folder, home = built
    trending = terminal(home, "trending")
    assert isinstance(trending, list)
    tab = browser.open(width)
    tab.goto((folder / "index.html").as_uri())
    seen = tab.evaluate(MEASURE)
    shot(tab, tmp_path, "index", width)
    readable(seen, width)
    assert seen["cardNames"] == [row["name"] for row in trending]  # as trending ranks them
    first, second = seen["cards"][0], seen["cards"][1]
    if width == DESKTOP:  # two columns of topics
        assert first["top"] == second["top"] and second["left"] > first["left"]
    else:  # one column, as wide as the screen allows
        assert second["top"] > first["top"] and first["width"] >= width - 40

    # A reader's path: a topic, one of its related topics, a tag, then home.
    tab.click(".topics .topic h2 a")
    assert tab.evaluate("document.querySelector('h1').innerText") == trending[0]["name"]
    related = tab.evaluate("document.querySelector('#related a').innerText")
    tab.click("#related a")
    assert tab.evaluate("document.querySelector('h1').innerText") == related
    tag = tab.evaluate("document.querySelector('#papers .tags a').innerText")
    tab.click("#papers .tags a")
    assert tab.evaluate("document.querySelector('h1').innerText") == tag
    readable(tab.evaluate(MEASURE), width)
    follow = tab.evaluate("document.querySelector('a.follow').href")
    assert follow.endswith(".xml") and Path(follow.removeprefix("file://")).is_file()
    tab.click(".bar a")
    assert tab.evaluate("document.querySelector('h1').innerText") == "Topics"
    assert tab.errors() == []
    tab.close()


def test_every_page_loads_without_errors(built: tuple[Path, Path], browser: Browser) -> None:
    folder, _home = built
    tab = browser.open(PHONE)
    pages = sorted(folder.glob("*.html"))
    assert len(pages) > 10
    for path in pages:
        tab.goto(path.as_uri())
        seen = tab.evaluate(MEASURE)
        assert seen["overflowing"] == [] and seen["scrollWidth"] <= PHONE, path.name
    assert tab.errors() == []
    tab.close()


def test_the_html_digest_fits_a_phone_whatever_its_words(
    isolated_home: Path, tmp_path: Path, browser: Browser
) -> None:
    """One unbroken 300-letter word in a title (or a long topic name) widened the
    whole mail to 3,797 px: every other title was cut off in a phone's mail pane."""
    from tests.helpers import kaggle_line

    word = "Zebra" + "x" * 300
    feed = tmp_path / "long.jsonl"
    feed.write_text(
        kaggle_line(
            "2601.00051",
            f"{word} stripes",
            abstract="Zebras.",
            authors_parsed=[["A" * 200, "", ""]],
        )
        + "\n"
        + kaggle_line("2601.00052", "Zebra herds on the move", abstract="Zebras.")
        + "\n",
        "utf-8",
    )
    assert run("ingest", str(feed)).exit_code == 0
    name = "Zebrastudiesofeverykindwithoutanyspaceatall" * 2
    assert run("topics", "add", name, "--query", "zebra*", "--slug", "zebra").exit_code == 0
    assert run("follow", "zebra").exit_code == 0
    page = tmp_path / "digest.html"
    made = run("digest", "-f", "html", "--since", "2000-01-01", "-o", str(page))
    assert made.exit_code == 0, made.stderr
    tab = browser.open(360)
    try:
        tab.goto(page.as_uri())
        seen = tab.evaluate(
            "({scroll: document.documentElement.scrollWidth, inner: window.innerWidth,"
            " text: document.body.innerText})"
        )
        tab.screenshot(tmp_path / "digest-360.png")
    finally:
        tab.close()
    assert seen["scroll"] <= seen["inner"] == 360, seen["scroll"]
    assert "Zebra herds on the move" in seen["text"]
