"""arXiv identifiers: recognise them in every form the feeds use, and normalise them.

The rules come from arXiv's identifier help pages (``arxiv_identifier.md``;
summarised in docs/feeds.md, "arXiv identifiers"):

* new scheme (from April 2007): ``YYMM.NNNN`` up to 1412, ``YYMM.NNNNN`` from
  1501 on, with an optional ``vN`` (N >= 1);
* old scheme (9107 to 0703): ``archive[.SC]/YYMMNNN[vN]``. The external form
  drops the subject class, so ``math.GT/0309136`` is keyed as ``math/0309136``.

Every function here is total: any string goes in, and nothing but the
documented return values comes out.
"""

from __future__ import annotations

import re

__all__ = [
    "abs_url",
    "format_arxiv_id",
    "is_arxiv_id",
    "parse_arxiv_id",
    "parse_paper_id",
    "pdf_url",
]

# Compiled once: this runs for every entry of every feed.
# The wrappers of feeds and stored keys, all case-insensitive:
#   arXiv:<id>                      canonical citation form
#   oai:arXiv.org:<id>              listing guids and OAI-PMH identifiers
#   http(s)://[www.|export.]arxiv.org/(abs|pdf)/<id>[.pdf]   links and API entry ids
_PREFIX_RE = re.compile(
    r"(?:arxiv:|oai:arxiv\.org:|(?P<url>https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/))",
    re.IGNORECASE,
)
# And the ones people copy, only where a person types an id (parse_paper_id):
#   arXiv: <id>                     with a space
#   [http(s)://][www.|export.]arxiv.org/(abs|pdf|html)/<id>   the address bar, the HTML view
#   [https://doi.org/]10.48550/arXiv.<id>   the DOI arXiv gives every paper
_TYPED_PREFIX_RE = re.compile(
    r"(?:arxiv: |oai:arxiv\.org:"
    r"|(?P<url>(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf|html)/)"
    r"|(?:(?:https?://)?(?:dx\.)?doi\.org/)?10\.48550/arxiv\.)",
    re.IGNORECASE,
)
# The id itself is case-sensitive: an old-style archive is lower case and its
# subject class upper case (``math.GT``). Month and digit-count rules are
# checked in Python, where they stay readable.
_CORE_RE = re.compile(
    r"(?:(?P<yymm>\d{4})\.(?P<num>\d{4,5})"  # new scheme
    r"|(?P<archive>[a-z]+(?:-[a-z]+)?)(?:\.(?P<sc>[A-Z]{2}))?/(?P<old>\d{7}))"  # old scheme
    r"(?:v(?P<version>\d{1,4}))?",
    re.ASCII,  # \d must not match other scripts' digits (int() would accept them)
)


def _valid_new(yymm: str, num: str) -> bool:
    year, month = int(yymm[:2]), int(yymm[2:])
    if not 1 <= month <= 12:
        return False
    # The new scheme began with 0704 (April 2007). arXiv says YY may one day
    # wrap to 00-06 for 2100-2106; no such id exists yet, so those are rejected
    # rather than guessed at.
    if year < 7 or (year == 7 and month < 4):
        return False
    # Four digits after the dot up to 1412, five from 1501 on. arXiv
    # itself silently drops a five-digit 2008 id such as 0808.05394.
    return len(num) == (4 if int(yymm) < 1501 else 5)


def _valid_old(digits: str) -> bool:
    year, month = int(digits[:2]), int(digits[2:4])
    if not 1 <= month <= 12:
        return False
    # The old scheme ran from 9107 (July 1991) to 0703 (March 2007).
    if year >= 91:
        return (year, month) >= (91, 7)
    return (year, month) <= (7, 3)


def parse_arxiv_id(text: str) -> tuple[str, int | None] | None:
    """Split an arXiv identifier, in any of its usual wrappers, into (id, version).

    Accepts bare ids (``2508.13167``, ``hep-th/9901001``), versioned ids,
    ``arXiv:`` citations, ``oai:arXiv.org:`` identifiers and abs/pdf URLs on
    arxiv.org or export.arxiv.org: the forms of feeds and of stored keys. Old-style
    ids lose their subject class (``math.GT/0309136`` becomes ``math/0309136``).

    Returns:
        The versionless id and the version number (``None`` when the text names
        no version), or ``None`` when the text is not a valid arXiv id. Never raises.
    """
    return _parse(text, _PREFIX_RE)


def parse_paper_id(text: str) -> tuple[str, int | None] | None:
    """:func:`parse_arxiv_id`, plus the forms people copy: an arxiv.org link without
    its scheme or to the HTML view, arXiv's DOI (``10.48550/arXiv.2508.13167``, also
    as a doi.org link) and ``arXiv: 2508.13167``. For ids a user types, never for
    feeds: a feed entry keyed by a doi.org link is not read as that arXiv paper."""
    found = parse_arxiv_id(text) or _parse(text, _TYPED_PREFIX_RE)
    if found is None and isinstance(text, str) and "/" in text:
        # Typed, an old-style id's case may be off ("HEP-PH/0301050"): the archive is
        # lower case and the subject class upper case, whatever was typed.
        fixed = _OLD_CASE_RE.sub(_old_case, text)
        if fixed != text:
            found = parse_arxiv_id(fixed) or _parse(fixed, _TYPED_PREFIX_RE)
    if found is None and isinstance(text, str) and _UPPER_VERSION_RE.search(text):
        # "2508.14040V1", as "ARXIV:" is taken in any case.
        found = parse_paper_id(_UPPER_VERSION_RE.sub(r"v\1", text))
    return found


_UPPER_VERSION_RE = re.compile(r"(?<=\d)V(\d+)(?=(?:\.pdf)?/?\s*$)", re.ASCII)


_OLD_CASE_RE = re.compile(r"([A-Za-z]+(?:-[A-Za-z]+)?)(?:\.([A-Za-z]{2}))?/(?=\d{7})", re.ASCII)


def _old_case(match: re.Match[str]) -> str:
    subject = f".{match[2].upper()}" if match[2] else ""
    return f"{match[1].lower()}{subject}/"


def _parse(text: str, wrappers: re.Pattern[str]) -> tuple[str, int | None] | None:
    if not isinstance(text, str) or len(text) > 300:
        return None
    rest = text.strip()
    prefix = wrappers.match(rest)
    if prefix is not None:
        rest = rest[prefix.end() :]
        if prefix.group("url"):
            # Links may carry a query, a fragment, a trailing slash or ".pdf"
            # (old pdf links: http://arxiv.org/pdf/2508.13167v2.pdf).
            rest = rest.partition("#")[0].partition("?")[0].rstrip("/")
            rest = rest.removesuffix(".pdf")
    match = _CORE_RE.fullmatch(rest)
    if match is None:
        return None
    version_text = match.group("version")
    version = int(version_text) if version_text is not None else None
    if version is not None and version < 1:
        return None  # versions start at v1
    yymm = match.group("yymm")
    if yymm is not None:
        num = match.group("num")
        if not _valid_new(yymm, num):
            return None
        return f"{yymm}.{num}", version
    old = match.group("old")
    if not _valid_old(old):
        return None
    # The subject class is dropped: it is not part of the external identifier.
    return f"{match.group('archive')}/{old}", version


_MONTH_RE = re.compile(r"(\d\d)(\d\d)\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/(\d\d)(\d\d)\d{3}")


def id_month(arxiv_id: str) -> tuple[int, int] | None:
    """(year, month) an arXiv id was given in (``2509.15800`` -> (2025, 9);
    ``hep-th/9901001`` -> (1999, 1)): the month of the paper's first version."""
    found = _MONTH_RE.fullmatch(arxiv_id)
    if found is None:
        return None
    yy, mm = (found.group(1), found.group(2)) if found.group(1) else found.group(3, 4)
    year = int(yy) + (1900 if int(yy) >= 91 else 2000)
    return (year, int(mm)) if 1 <= int(mm) <= 12 else None


def is_arxiv_id(text: str) -> bool:
    """True when ``text`` is an arXiv identifier in any accepted form."""
    return parse_arxiv_id(text) is not None


def stored_arxiv_id(key: str) -> str | None:
    """The arXiv id a stored paper's key is, or None for an entry of another feed.

    The store keys an arXiv paper by its bare versionless id and an entry of another
    feed by its guid as given, so only that bare form counts: a feed item whose guid
    is ``arXiv:2606.00006`` or ``2606.00007v1`` is not arXiv's paper 2606.00006 (read
    as one, an export gave both the same BibTeX key and Atom id).
    """
    parsed = parse_arxiv_id(key)
    return key if parsed is not None and parsed == (key, None) else None


def format_arxiv_id(arxiv_id: str, version: int | None = None) -> str:
    """``2508.13167`` + 2 → ``2508.13167v2``; without a version, the id unchanged."""
    return arxiv_id if version is None else f"{arxiv_id}v{version}"


def abs_url(arxiv_id: str) -> str:
    """The versionless abstract page, which always shows the latest version."""
    return f"https://arxiv.org/abs/{arxiv_id}"


def pdf_url(arxiv_id: str, version: int | None = None) -> str:
    """The PDF of one version (or of the latest version when ``version`` is None)."""
    return f"https://arxiv.org/pdf/{format_arxiv_id(arxiv_id, version)}"
