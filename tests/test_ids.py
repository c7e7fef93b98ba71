"""arXiv identifiers in every wrapper the feeds use (docs/feeds.md, "arXiv identifiers")."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from papertrack.ids import (
    abs_url,
    format_arxiv_id,
    is_arxiv_id,
    parse_arxiv_id,
    parse_paper_id,
    pdf_url,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2508.13167", ("2508.13167", None)),
        ("2508.13167v2", ("2508.13167", 2)),
        ("arXiv:2508.13167v2", ("2508.13167", 2)),
        ("ARXIV:2508.13167", ("2508.13167", None)),
        ("  2508.13167v12\n", ("2508.13167", 12)),
        ("https://arxiv.org/abs/2508.13167v1", ("2508.13167", 1)),
        ("http://arxiv.org/pdf/2508.13167v2", ("2508.13167", 2)),
        ("http://arxiv.org/pdf/2508.13167v2.pdf", ("2508.13167", 2)),
        ("https://arxiv.org/abs/2508.13167?context=cs", ("2508.13167", None)),
        ("https://www.arxiv.org/abs/2508.13167/", ("2508.13167", None)),
        ("http://export.arxiv.org/abs/hep-ex/0406020v1", ("hep-ex/0406020", 1)),
        # listing guid and OAI identifier
        ("oai:arXiv.org:2508.13426v1", ("2508.13426", 1)),
        ("oai:arXiv.org:0704.0471", ("0704.0471", None)),
        # the API entry id is always http and versioned
        ("http://arxiv.org/abs/2202.12139v1", ("2202.12139", 1)),
        ("http://arxiv.org/abs/cs/0503050v1", ("cs/0503050", 1)),
        # old scheme
        ("hep-th/9901001", ("hep-th/9901001", None)),
        ("cond-mat/0207270v1", ("cond-mat/0207270", 1)),
        ("cond-mat/0412498v1", ("cond-mat/0412498", 1)),
        ("q-bio/0310011", ("q-bio/0310011", None)),
        # the subject class is dropped: external form math/0309136
        ("math.GT/0309136", ("math/0309136", None)),
        ("arXiv:math.CA/0611800v2", ("math/0611800", 2)),
        # boundaries of the new scheme: 4 digits through 1412, 5 from 1501
        ("0704.0001", ("0704.0001", None)),
        ("1412.9999", ("1412.9999", None)),
        ("1501.00001", ("1501.00001", None)),
        # boundaries of the old scheme: 9107 to 0703
        ("hep-th/9107001", ("hep-th/9107001", None)),
        ("math/0703001", ("math/0703001", None)),
    ],
)
def test_parse_arxiv_id_accepts(text: str, expected: tuple[str, int | None]) -> None:
    assert parse_arxiv_id(text) == expected
    assert is_arxiv_id(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "abc",
        "0000.0000",  # month 00
        "1234.1234",  # month 34: the API rejects it as malformed
        "0808.05394",  # five digits before 1501: arXiv drops it silently
        "1501.0001",  # four digits from 1501 on
        "2513.12345",  # month 13
        "0703.0001",  # the new scheme starts at 0704
        "hep-th/9106001",  # the old scheme starts at 9107
        "math/0704001",  # and ends at 0703
        "hep-th/99010",  # too short
        "HEP-TH/9901001",  # archives are lower case
        "math.gt/0309136",  # subject classes are upper case
        "2508.13167v0",  # versions start at 1
        "2508.13167v",
        "2508.13167.pdf",  # .pdf only on links
        "https://example.org/abs/2508.13167",
        "https://arxiv.org/list/cs.AI/recent",
        "https://arxiv.org/api/errors#incorrect_id_format_for_abc",
        "cond\u2014mat/0709123",  # an em dash for the hyphen
        "\u0662\u0665\u0660\u0668.13167",  # Arabic-Indic digits are not ids
        "2508.13167 2508.13168",
        "x" * 1000,
    ],
)
def test_parse_arxiv_id_rejects(text: str) -> None:
    assert parse_arxiv_id(text) is None
    assert not is_arxiv_id(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("arxiv.org/abs/2606.27369", ("2606.27369", None)),
        ("www.arxiv.org/pdf/2606.27369v2", ("2606.27369", 2)),
        ("https://arxiv.org/html/2606.27369v1", ("2606.27369", 1)),
        ("https://arxiv.org/html/2606.27369v1#S2", ("2606.27369", 1)),
        ("https://doi.org/10.48550/arXiv.2606.27369", ("2606.27369", None)),
        ("10.48550/ARXIV.2606.27369", ("2606.27369", None)),
        ("arXiv: 2606.27369", ("2606.27369", None)),
        # The version in capitals, as "ARXIV:" and "HEP-PH/" are taken.
        ("2606.27369V2", ("2606.27369", 2)),
        ("https://arxiv.org/abs/2606.27369V3", ("2606.27369", 3)),
        ("HEP-PH/0301050V1", ("hep-ph/0301050", 1)),
    ],
)
def test_ids_as_people_copy_them_are_read_where_a_person_types_one(
    text: str, expected: tuple[str, int | None]
) -> None:
    assert parse_paper_id(text) == expected
    # Not from a feed, or a stored key: an entry keyed by a doi.org link stays its own.
    assert parse_arxiv_id(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "https://doi.org/10.1234/arXiv.2606.27369",  # another registrant's DOI
        "arXiv:  2606.27369",
        "arXiv:\n2606.27369",
        "example.arxiv.org.evil/abs/2606.27369",
        "arxiv.org/list/cs.AI/2606.27369",
        "2606.27369V0",
        "2606.27369VV1",
    ],
)
def test_typed_ids_still_refuse_lookalikes(text: str) -> None:
    assert parse_paper_id(text) is None


def test_url_helpers() -> None:
    assert format_arxiv_id("2508.13167", 2) == "2508.13167v2"
    assert format_arxiv_id("hep-th/9901001") == "hep-th/9901001"
    assert abs_url("hep-th/9901001") == "https://arxiv.org/abs/hep-th/9901001"
    assert pdf_url("2508.13167", 3) == "https://arxiv.org/pdf/2508.13167v3"
    assert pdf_url("2508.13167") == "https://arxiv.org/pdf/2508.13167"


@given(st.text(max_size=80))
def test_parse_arxiv_id_never_raises(text: str) -> None:
    result = parse_arxiv_id(text)
    if result is not None:
        arxiv_id, version = result
        # whatever came out is itself a canonical id that parses to itself
        assert parse_arxiv_id(arxiv_id) == (arxiv_id, None)
        assert version is None or version >= 1


@given(
    st.integers(min_value=7, max_value=99),
    st.integers(min_value=1, max_value=12),
    st.integers(min_value=0, max_value=99999),
    st.one_of(st.none(), st.integers(min_value=1, max_value=30)),
)
def test_new_scheme_round_trip(yy: int, mm: int, number: int, version: int | None) -> None:
    yymm = f"{yy:02d}{mm:02d}"
    if yy == 7 and mm < 4:
        return  # before the new scheme
    digits = 4 if int(yymm) < 1501 else 5
    if number >= 10**digits:
        return
    arxiv_id = f"{yymm}.{number:0{digits}d}"
    text = format_arxiv_id(arxiv_id, version)
    assert parse_arxiv_id(text) == (arxiv_id, version)
    assert parse_arxiv_id(f"https://arxiv.org/abs/{text}") == (arxiv_id, version)
    assert parse_arxiv_id(f"oai:arXiv.org:{text}") == (arxiv_id, version)


@pytest.mark.parametrize(
    ("typed", "parsed"),
    [
        # `show HEP-PH/0301050` was refused: typed, an old-style id's case may be off.
        ("HEP-PH/0301050", ("hep-ph/0301050", None)),
        ("Math.gt/0309136v2", ("math/0309136", 2)),
        ("https://arxiv.org/abs/HEP-TH/9901001", ("hep-th/9901001", None)),
    ],
)
def test_a_typed_old_style_id_in_any_case_is_read(
    typed: str, parsed: tuple[str, int | None]
) -> None:
    from papertrack.ids import parse_arxiv_id, parse_paper_id

    assert parse_paper_id(typed) == parsed
    assert parse_arxiv_id(typed) is None  # a feed's id is taken as written
