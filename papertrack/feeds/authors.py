"""How each format names a paper's authors, and their affiliations: every author parser.

=====================  =========================================================
format                 how authors are written
=====================  =========================================================
API Atom               ``<author><name>`` each, with ``<arxiv:affiliation>``
                       children, read from the XML itself (:func:`read_affiliations`)
listing (2024 on)      one ``dc:creator`` string, "A, B, C", TeX accents and all
legacy RSS (to 2024)   ``dc:creator`` as HTML links, "…, et al" at the end
other RSS/Atom feeds   feedparser's author names, HTML removed
OAI arXivRaw, Kaggle   one string "A, B and C" (:func:`split_authors`); Kaggle
                       also has ``authors_parsed``, ``[last, first, suffix]``
OAI arXiv              ``<author><forenames>/<keyname>/<suffix>``
OAI oai_dc             ``dc:creator`` each, "Last, First"
papertrack exports     ``authors`` and ``author_affiliations`` lists (JSON), or
                       the Atom layout with ``arxiv:affiliation`` (Atom)
=====================  =========================================================

Every name is cleaned (control and zero-width characters removed, spaces
collapsed) and each author kept once, in order.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

from ..errors import FeedError
from ..text import clean_text, decode_tex_accents, strip_html
from .common import ARXIV, ATOM, named, present, tex, unique
from .entries import field
from .xml import iter_elements

#: Author names and the affiliations of each, in the same order.
Authors = tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]

# --- strings: Kaggle snapshot and OAI arXivRaw -------------------------------------

# Authors in a Kaggle/OAI string: "A, B and C", "A, B, and C".
_AUTHOR_SPLIT_RE = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+")


def split_authors(names: str) -> tuple[str, ...]:
    """Split "A, B and C" (TeX accents decoded) into names."""
    text = tex(names)
    if not text:
        return ()
    return present(n.strip() for n in _AUTHOR_SPLIT_RE.split(text))


def _kaggle_name(parts: Any) -> str:
    """``[last, first, suffix]`` → "First Last Suffix" (mostly Unicode in the snapshot,
    but TeX now and then: ``Tolúl\\d{o}pé``, 2510.02569)."""
    if not isinstance(parts, list):
        return ""
    strings = [p if isinstance(p, str) else "" for p in parts[:3]]
    if len(strings) < 3:
        strings += [""] * (3 - len(strings))
    last, first, suffix = strings
    # The snapshot's name splitter spaces hyphenated initials: "C.-P." comes out
    # as "C. -P." (0704.0001); put them back together.
    if ". -" in first:
        first = first.replace(". -", ".-")
    return tex(f"{first} {last} {suffix}")


def kaggle_authors(record: dict[str, Any]) -> tuple[str, ...]:
    """A snapshot line's ``authors_parsed``, or its ``authors`` string when that is missing."""
    parsed_names = record.get("authors_parsed")
    if isinstance(parsed_names, list) and parsed_names:
        return present(_kaggle_name(p) for p in parsed_names)
    return split_authors(record.get("authors") or "")


# --- OAI-PMH arXiv and oai_dc ----------------------------------------------------


def oai_arxiv_authors(meta: ET.Element, ns: str) -> tuple[str, ...]:
    """The ``arXiv`` metadata format: ``<author>`` with forenames, keyname and suffix."""
    names = []
    for author in meta.iter(ns + "author"):
        parts = (author.findtext(ns + k) or "" for k in ("forenames", "keyname", "suffix"))
        names.append(tex(" ".join(parts)))
    return present(names)


def oai_dc_authors(meta: ET.Element, dc: str) -> tuple[str, ...]:
    """``oai_dc``: one ``dc:creator`` per author, "Last, First"."""
    names = []
    for creator in meta.findall(dc + "creator"):
        last, _, first = (creator.text or "").partition(",")
        names.append(tex(f"{first} {last}"))
    return present(names)


# --- API Atom ----------------------------------------------------------------------

#: Entry id → (author names, affiliations of each author), from the XML itself.
Affiliations = dict[str, Authors]


def read_affiliations(data: bytes) -> Affiliations:
    """Entry id → (author names, affiliations per author), read with ElementTree.

    feedparser folds every ``arxiv:affiliation`` of an entry into one key that
    keeps only the last one (0804.0970 has Gaudel (LRI) and Le Gall
    (IBISC) and feedparser says only "IBISC"), so the XML is read again.
    """
    found: Affiliations = {}
    for item in iter_elements(data, frozenset({ATOM + "entry"})):
        if isinstance(item, ET.ParseError):
            break
        add_affiliations(found, item)
        item.clear()
    return found


def add_affiliations(found: Affiliations, entry: ET.Element) -> None:
    """Add an API ``<entry>``'s authors to ``found`` when any of them has an affiliation."""
    names: list[str] = []
    affiliations: list[tuple[str, ...]] = []
    for author in entry.findall(ATOM + "author"):
        name = clean_text(author.findtext(ATOM + "name"))
        if not named(name):
            continue  # a nameless author is dropped, as in api_authors
        names.append(name)
        affiliations.append(
            unique(clean_text(a.text) for a in author.findall(ARXIV + "affiliation"))
        )
    key = (entry.findtext(ATOM + "id") or "").strip()
    if key and any(affiliations):  # an entry without <id> cannot be told from another
        found[key] = (tuple(names), tuple(affiliations))


def api_authors(entry: Any, affiliations: Affiliations) -> Authors:
    """An API entry's authors: feedparser's names, or the XML's when it has affiliations."""
    entry_id = field(entry, "id") or ""
    if entry_id and entry_id in affiliations:
        # Names and affiliations come from the same XML pass, so they stay aligned.
        return affiliations[entry_id]
    return present(clean_text(a.get("name")) for a in field(entry, "authors") or ()), ()


# --- RSS/Atom listings and other feeds ------------------------------------------


def listing_authors(entry: Any) -> tuple[str, ...]:
    """A 2024+ listing entry: dc:creator is one comma-joined string, TeX accents and all;
    feedparser gives several only when the entry has several creators."""
    creators = field(entry, "authors") or ()
    if len(creators) > 1:
        return present(tex(c.get("name")) for c in creators)
    return present(tex(n) for n in decode_tex_accents(field(entry, "author") or "").split(","))


def legacy_authors(entry: Any) -> tuple[str, ...]:
    """A pre-2024 RSS item: dc:creator is HTML,
    ``<a href="…/au:+Perera_C/…">Charith Perera</a>, <a …>…</a>``, maybe ending "et al"."""
    names = strip_html(field(entry, "author") or "").split(",")
    return present(name for name in (tex(n) for n in names) if not name.startswith("et al"))


#: An e-mail address, as RSS's <author> holds it.
_ADDRESS = r"[^\s@()]+@[^\s()]+"
#: RSS's <author>: "address (Name)", "Name (address)" or the address alone.
_AUTHOR_FORMS = (
    re.compile(rf"\s*{_ADDRESS}\s*\((.*)\)\s*"),
    re.compile(rf"\s*(.*?)\s*\({_ADDRESS}\)\s*"),
    re.compile(rf"\s*({_ADDRESS})\s*"),
)


def generic_authors(entry: Any) -> tuple[str, ...]:
    """Any other feed: feedparser's author names, HTML removed, no TeX decoding.

    RSS's one ``<author>editor@journal.science (Jane Doe)</author>`` is read here:
    feedparser knows only top-level domains of 2 to 4 letters, and made that the
    author "nce (Jane Doe", which the site, the digest and BibTeX then printed.
    """
    names = [a.get("name") for a in field(entry, "authors") or ()]
    raw = field(entry, "author")
    if len(names) <= 1 and isinstance(raw, str):
        # "a@journal.science" alone was the author "nce", and "Jane (JD) Doe" in
        # parentheses "nce (Jane (JD) Doe": the address is said as it is written.
        for form in _AUTHOR_FORMS:
            found = form.fullmatch(raw)
            if found is not None and found.group(1).strip():
                names = [found.group(1)]
                break
    return present(clean_text(strip_html(n)) for n in names if isinstance(n, str))


# --- papertrack's own exports ------------------------------------------------------


def export_record_authors(record: dict[str, Any]) -> Authors:
    """An ``export -f jsonl`` line's (or ``-f json`` item's) authors and affiliations.

    Raises:
        FeedError: a field of the wrong type (the message completes "line N …").
    """
    value = record.get("authors")
    if value is not None and (
        not isinstance(value, list) or not all(isinstance(v, str) for v in value)
    ):
        raise FeedError("has authors that are not a list of text")
    raw = record.get("author_affiliations") or []
    if not isinstance(raw, list) or not all(
        isinstance(a, list) and all(isinstance(n, str) for n in a) for a in raw
    ):
        raise FeedError("has author_affiliations that are not lists of text")
    affiliations = tuple(unique(clean_text(n) for n in a) for a in raw)
    given = [clean_text(v) for v in value or ()]
    if len(affiliations) < len(given):
        # Lists for the first authors only (another tool's export leaves out the
        # trailing authors that have none): the others have none.
        affiliations += ((),) * (len(given) - len(affiliations))
    if len(affiliations) != len(given):
        # More lists than authors: no telling whose is whose.
        return present(given), ()
    # A blank name is left out with its list; a name given twice is two authors.
    kept = [(name, held) for name, held in zip(given, affiliations, strict=True) if named(name)]
    authors = tuple(name for name, _ in kept)
    affiliations = tuple(held for _, held in kept)
    return authors, affiliations if any(affiliations) else ()


def export_atom_authors(entry: ET.Element) -> Authors:
    """An ``export -f atom`` entry: ``<author><name>`` with ``arxiv:affiliation`` children."""
    authors: list[str] = []
    affiliations: list[tuple[str, ...]] = []
    for author in entry.iter(ATOM + "author"):
        name = clean_text(author.findtext(ATOM + "name"))
        if named(name):
            authors.append(name)
            affiliations.append(
                unique(clean_text(a.text) for a in author.iter(ARXIV + "affiliation"))
            )
    return tuple(authors), tuple(affiliations) if any(affiliations) else ()
