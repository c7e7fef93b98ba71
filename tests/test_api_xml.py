"""API pages read without feedparser give exactly what feedparser's reading gives.

:func:`papertrack.feeds.api_xml.read_api_xml` reads arXiv API pages in their usual
shape with ElementTree; anything else goes to feedparser. Each test here reads a
page both ways: the fast reader must either decline it or give the same papers,
counts and warnings, and must not decline the pages arXiv really serves.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from papertrack.errors import FeedError
from papertrack.feeds import ParsedFeed, parse_feed
from papertrack.feeds.api_xml import read_api_xml
from papertrack.feeds.syndication import parse_syndication
from papertrack.feeds.xml import expat_readable

DATA = Path(__file__).parent / "data" / "api-atom"
NOW = datetime(2026, 12, 1, tzinfo=UTC)
RECORDED = sorted(DATA.glob("*/*.xml"))
# A recorded page of one paper with authors, a comment and a primary category.
ONE = DATA / "arxiv.py-2026-recorded" / "id_1605.08386_s0_m100_199195aa31ad.xml"


def read(reader: object, data: bytes) -> ParsedFeed | str | None:
    """The reader's result, or the message of the FeedError it raised."""
    assert callable(reader)
    try:
        result = reader(expat_readable(data), "page.xml", NOW)
    except FeedError as exc:
        return f"FeedError: {exc}"
    assert result is None or isinstance(result, ParsedFeed)
    return result


def both(data: bytes) -> tuple[ParsedFeed | str | None, ParsedFeed | str | None]:
    return read(read_api_xml, data), read(parse_syndication, data)


def test_every_recorded_page_with_entries_is_read_fast_and_the_same() -> None:
    read_fast = 0
    for path in RECORDED:
        data = path.read_bytes()
        fast, slow = both(data)
        if b"<entry>" not in data:
            assert fast is None, path.name  # an empty page: feedparser tells its kind
            continue
        assert fast is not None, path.name
        assert fast == slow, path.name
        read_fast += 1
    assert read_fast >= 15


def one_page() -> str:
    return ONE.read_text(encoding="utf-8")


def in_entry(page: str, old: str, new: str) -> str:
    """``page`` with the first ``old`` inside its first entry made ``new``."""
    head, entry, rest = page.partition("<entry>")
    return head + entry + rest.replace(old, new, 1)


def with_affiliations(page: str) -> str:
    return page.replace(
        "</name>",
        "</name><arxiv:affiliation>Lab &amp; Co</arxiv:affiliation>"
        "<arxiv:affiliation>[bold red]Uni[/]</arxiv:affiliation>",
        2,
    )


# Each changes the recorded page in a way arXiv's pages may be changed, or a
# hostile server might change them, while staying in the shape the fast reader reads.
READ_FAST = {
    "affiliations": with_affiliations,
    "tex title": lambda p: in_entry(
        p, "<title>", "<title>$\\textbf{A}$gent \\emph{tuning} with $\\alpha$: "
    ),
    "entities and markup": lambda p: p.replace(
        "<summary>",
        "<summary>&#233;&amp;amp; &lt;script&gt;x&lt;/script&gt; [link=file:///x]a[/link] &#x202e;",
        1,
    ),
    "cdata and a comment": lambda p: in_entry(
        p, "<title>", "<title><![CDATA[<b>Bold</b> & ]]><!-- note -->"
    ),
    "text feedparser repairs": lambda p: in_entry(
        p, "<title>", "<title>Ã© &#x80; &#x81; &#x9f; "
    ).replace("<name>", "<name>Ã© &#x80; ", 1),
    "extra slashes": lambda p: p.replace(
        "<id>http://arxiv.org/abs/1605.08386v1</id>", "<id>http:////arxiv.org/abs/1605.08386v1</id>"
    ),
    "other schemes": lambda p: p.replace(
        "</entry>",
        '<category term="68T05" scheme="http://www.ams.org/msc"/><category term="cs.LG"/>'
        '<category term="not a category"/></entry>',
        1,
    ),
    "an offset date": lambda p: p.replace(
        "<published>2016-05-26T17:59:46Z</published>",
        "<published>2016-05-26T17:59:46-04:00</published>",
    ),
    "a date to come": lambda p: p.replace(
        "<published>2016-05-26T17:59:46Z</published>",
        "<published>2031-05-26T17:59:46Z</published>",
    ),
    "an empty comment": lambda p: p.replace(
        "<arxiv:primary_category", "<arxiv:doi></arxiv:doi><arxiv:primary_category", 1
    ),
    "a nameless author": lambda p: p.replace(
        "<author>", "<author><arxiv:affiliation>Nowhere</arxiv:affiliation></author><author>", 1
    ),
    "a byte-order mark": lambda p: "\ufeff" + p,
    "an api error": lambda p: p.replace(
        "<id>http://arxiv.org/abs/1605.08386v1</id>",
        "<id>http://arxiv.org/api/errors#incorrect_id_format_for_x</id>",
    ),
}


@pytest.mark.parametrize("change", READ_FAST, ids=list(READ_FAST))
def test_changed_pages_in_the_usual_shape_are_read_fast_and_the_same(change: str) -> None:
    page = READ_FAST[change](one_page())
    assert page != one_page()
    fast, slow = both(page.encode("utf-8"))
    assert fast is not None
    assert fast == slow


def test_affiliations_and_markup_arrive_as_text() -> None:
    fast = read(read_api_xml, with_affiliations(one_page()).encode("utf-8"))
    assert isinstance(fast, ParsedFeed)
    (paper,) = fast.papers
    assert paper.author_affiliations[0] == ("Lab & Co", "[bold red]Uni[/]")
    assert paper.author_affiliations[1] == ("Lab & Co", "[bold red]Uni[/]")


# The id of an entry no recorded page holds.
ANOTHER = "<id>http://arxiv.org/abs/2101.00001v1</id>"


def at_feed_end(element: str) -> Callable[[str], str]:
    """A change of a page: ``element`` added as the feed's last child."""
    return lambda page: page.replace("</feed>", element + "</feed>")


DECLINED = {
    "fractional seconds": lambda p: p.replace("46Z</published>", "46.5Z</published>"),
    "an impossible date": lambda p: p.replace("<published>2016-05-26", "<published>2016-02-30"),
    "html title": lambda p: in_entry(p, "<title>", '<title type="html">&lt;i&gt;x&lt;/i&gt; '),
    "another prefix": lambda p: p.replace("xmlns:arxiv=", "xmlns:ax=").replace("arxiv:", "ax:"),
    "a doctype": lambda p: p.replace("<feed", '<!DOCTYPE feed [<!ENTITY e "x">]><feed', 1),
    "a listing's element": lambda p: p.replace(
        "</entry>", "<arxiv:announce_type>new</arxiv:announce_type></entry>", 1
    ),
    "markup in a title": lambda p: in_entry(p, "<title>", "<title><b>x</b>"),
    "two titles": lambda p: in_entry(p, "<title>", "<title>one</title><title>"),
    "an id that is no arXiv id": lambda p: p.replace(
        "<id>http://arxiv.org/abs/1605.08386v1</id>", "<id>tag:example.org,2026:1</id>"
    ),
    "cut off": lambda p: p[: p.index("</entry>")],
    "latin-1": lambda p: p.replace("encoding='UTF-8'", "encoding='ISO-8859-1'").replace(
        'encoding="UTF-8"', 'encoding="ISO-8859-1"'
    ),
    # From a review: feedparser reads these as entries, counts or dates; skipped here,
    # a paper was lost (the old code stored it) or the count read None.
    "an item at feed level": at_feed_end(f"<item>{ANOTHER}</item>"),
    "an entry inside another element": at_feed_end(
        f"<generator><entry>{ANOTHER}</entry></generator>"
    ),
    "an entry in capitals": at_feed_end(f"<Entry>{ANOTHER}</Entry>"),
    "a count in lower case": lambda p: p.replace(
        "opensearch:totalResults", "opensearch:totalresults"
    ),
    "a date feedparser reads": at_feed_end("<modified>yesterday</modified>"),
    "an attribute on a comment": lambda p: p.replace(
        "<arxiv:comment", '<arxiv:comment xml:lang="en"'
    ),
    # (feedparser makes the text the value: the API parser raised AttributeError.)
    "a primary category's text": lambda p: p.replace(
        '<arxiv:primary_category term="math.CO"/>',
        '<arxiv:primary_category term="math.CO">math.CO</arxiv:primary_category>',
    ),
    "a term by another name": lambda p: p.replace(
        '<category term="math.ST"', '<category arxiv:term="cs.AI" term="math.ST"'
    ),
    "a byte-order mark before another encoding": lambda p: (
        "\ufeff" + p.replace("encoding='UTF-8'", "encoding='windows-1251'")
    ),
}


@pytest.mark.parametrize("change", DECLINED, ids=list(DECLINED))
def test_pages_in_another_shape_go_to_feedparser(change: str) -> None:
    page = DECLINED[change](one_page())
    assert page != one_page()
    data = page.encode("utf-8")
    assert read(read_api_xml, data) is None
    # parse_feed still reads it, by feedparser.
    try:
        read_anyway: ParsedFeed | str = parse_feed(data, "page.xml", now=NOW)
    except FeedError as exc:
        read_anyway = f"FeedError: {exc}"
    slow = read(parse_syndication, data)
    if isinstance(read_anyway, ParsedFeed) and isinstance(slow, ParsedFeed):
        assert read_anyway.papers == slow.papers
    else:
        assert read_anyway == slow


def test_reading_an_api_page_does_not_import_feedparser() -> None:
    """The point of the fast reader: feedparser is neither run nor imported."""
    code = (
        "import sys; from pathlib import Path; from papertrack.feeds import parse_feed; "
        f"result = parse_feed(Path({str(ONE)!r}).read_bytes()); "
        "print(len(result.papers), 'feedparser' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["1", "False"]


SNIPPETS = [
    "<foo/>",
    "<arxiv:foo>x</arxiv:foo>",
    "&#x85;",
    "<!--c-->",
    "<?p x?>",
    "<![CDATA[z]]>",
    "\u00a0",
    "<opensearch:itemsPerPage>3</opensearch:itemsPerPage>",
    '<link href="http://arxiv.org/abs/2101.00001v1"/>',
    '<category term="cs.AI"/>',
    "<title>t</title>",
    "<author><name>Q</name></author>",
    "<item><id>http://arxiv.org/abs/2101.00002v1</id></item>",
]
ATTRIBUTES = ['a="b"', 'xml:lang="en"', 'arxiv:x="y"', 'type="html"', 'term="cs.AI"', 'Term="x"']


def mutated(page: str, rng: random.Random) -> str:
    """``page`` with one to three changes of its structure: an attribute, an element,
    a tag's case, text before a closing tag."""
    for _ in range(rng.randint(1, 3)):
        tags = list(re.finditer(r"<([A-Za-z:_]+)([^<>]*?)(/?)>", page))
        tag = rng.choice(tags)
        kind = rng.randrange(4)
        if kind == 0:
            page = page[: tag.end(2)] + " " + rng.choice(ATTRIBUTES) + page[tag.end(2) :]
        elif kind == 1:
            page = page[: tag.end()] + rng.choice(SNIPPETS) + page[tag.end() :]
        elif kind == 2 and not tag.group(3):
            name = tag.group(1)
            other = name.upper() if rng.random() < 0.5 else name.capitalize()
            page = page.replace(f"<{name}>", f"<{other}>", 1).replace(
                f"</{name}>", f"</{other}>", 1
            )
        else:
            close = rng.choice(list(re.finditer(r"</[A-Za-z:_]+>", page)))
            text = rng.choice([" x ", "\t", "Ã©", "&#x9f;"])
            page = page[: close.start()] + text + page[close.start() :]
    return page


@pytest.mark.slow
def test_structurally_changed_real_pages_are_declined_or_read_the_same() -> None:
    """A review found feed-level elements, attributes and a byte-order mark read
    otherwise than feedparser reads them; random entry text alone never reached them."""
    rng = random.Random(7)
    pages = [p.read_text(encoding="utf-8") for p in RECORDED if b"<entry>" in p.read_bytes()]
    read_fast = 0
    for _ in range(600):
        data = mutated(rng.choice(pages), rng).encode("utf-8")
        fast, slow = both(data)
        if fast is not None:
            read_fast += 1
            assert fast == slow, data.decode()[:3000]
    assert read_fast >= 50
