"""Dates as people type them: weekday names read as a person means them, bare numbers refused."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from papertrack.dates import parse_date
from papertrack.errors import UsageError
from tests.helpers import error_line, run

TUESDAY = datetime(2026, 12, 1, 15, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("Monday", date(2026, 11, 30)),
        ("monday", date(2026, 11, 30)),
        ("last monday", date(2026, 11, 30)),
        ("Friday", date(2026, 11, 27)),
        ("fri", date(2026, 11, 27)),
        ("Tuesday", date(2026, 12, 1)),  # today is a Tuesday: today
        ("last Tuesday", date(2026, 11, 24)),  # the one before today
        ("sunday", date(2026, 11, 29)),
    ],
)
def test_weekday_names_are_the_last_such_day(text: str, day: date) -> None:
    assert parse_date(text, now=TUESDAY) == datetime.combine(day, datetime.min.time(), UTC)


def test_a_year_is_its_first_day() -> None:
    assert parse_date("2025", now=TUESDAY) == datetime(2025, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize("text", ["12", "7", "202601", "0001"])
def test_bare_numbers_are_refused_with_what_to_write(text: str) -> None:
    with pytest.raises(UsageError, match="bare number"):
        parse_date(text, now=TUESDAY)


def test_the_cli_refuses_a_bare_number_in_one_line() -> None:
    error_line(run("latest", "--since", "12"), 2, "bare number", "days ago")


def test_a_negative_minimum_for_trending_is_refused() -> None:
    error_line(run("trending", "--min", "-3"), 2, "--min -3 is not a number of papers")
