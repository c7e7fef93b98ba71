"""Dates as people type them: weekday names read as a person means them, bare numbers refused."""

from __future__ import annotations

import warnings
from datetime import UTC, date, datetime

import pytest

from papertrack.dates import is_span, parse_date
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


@pytest.mark.parametrize(
    ("text", "now", "day"),
    [
        # On New Year's Day "Dec 31" took the coming Dec 31 ("--since 2027-12-31 is
        # after today"): a day without its year is the last such day.
        ("Dec 31", datetime(2027, 1, 1, 9, tzinfo=UTC), date(2026, 12, 31)),
        ("31 December", datetime(2027, 1, 1, 9, tzinfo=UTC), date(2026, 12, 31)),
        ("Jan 1", datetime(2027, 1, 1, 9, tzinfo=UTC), date(2027, 1, 1)),  # today
        ("Nov 30", TUESDAY, date(2026, 11, 30)),
        ("Dec 2", TUESDAY, date(2025, 12, 2)),
        ("Dec 2 2026", TUESDAY, date(2026, 12, 2)),  # a year given is kept
        ("Feb 29", datetime(2028, 3, 1, tzinfo=UTC), date(2028, 2, 29)),
    ],
)
def test_a_day_without_its_year_is_the_last_such_day(text: str, now: datetime, day: date) -> None:
    assert parse_date(text, now=now) == datetime.combine(day, datetime.min.time(), UTC)


def test_a_year_is_its_first_day() -> None:
    assert parse_date("2025", now=TUESDAY) == datetime(2025, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "now", "day"),
    [
        ("2 months ago", TUESDAY, date(2026, 10, 1)),  # 30-day months: Oct 2
        ("12 months ago", TUESDAY, date(2025, 12, 1)),  # 30-day months: Dec 6
        ("1 year ago", TUESDAY, date(2025, 12, 1)),
        ("1m", TUESDAY, date(2026, 11, 1)),
        ("a month ago", datetime(2026, 3, 31, tzinfo=UTC), date(2026, 2, 28)),
        ("1 year ago", datetime(2028, 2, 29, tzinfo=UTC), date(2027, 2, 28)),
        ("3 weeks ago", TUESDAY, date(2026, 11, 10)),
    ],
)
def test_months_and_years_ago_are_calendar_months(text: str, now: datetime, day: date) -> None:
    assert parse_date(text, now=now) == datetime.combine(day, datetime.min.time(), UTC)


@pytest.mark.parametrize("text", ["12", "7", "202601", "0001"])
def test_bare_numbers_are_refused_with_what_to_write(text: str) -> None:
    with pytest.raises(UsageError, match="bare number"):
        parse_date(text, now=TUESDAY)


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("2026-06-26 09:00", date(2026, 6, 26)),  # what a script's $(date) prints
        ("Fri Jun 26 23:59:59 UTC 2026", date(2026, 6, 26)),
        ("2026-06-26T08:00:00+05:00", date(2026, 6, 26)),  # 03:00 UTC: that day
        ("2026-06-26T01:00:00+05:00", date(2026, 6, 25)),  # 20:00 UTC the day before
        ("20261201", date(2026, 12, 1)),  # date +%Y%m%d, and arXiv's API
        ("Aug 2026", date(2026, 8, 1)),
    ],
)
def test_a_date_with_a_time_or_in_another_form_is_its_whole_day(text: str, day: date) -> None:
    # A time of day kept as given left out the papers of that day before it.
    assert parse_date(text, now=TUESDAY) == datetime.combine(day, datetime.min.time(), UTC)


@pytest.mark.parametrize(
    ("text", "day"),
    [
        # $(date) on a machine outside UTC: the zone was ignored (Jun 23, not Jun 24)
        # and dateutil printed an UnknownTimezoneWarning on stderr.
        ("Tue Jun 23 23:00:00 EST 2026", date(2026, 6, 24)),
        ("Tue Jun 23 18:00:00 PDT 2026", date(2026, 6, 24)),
        ("Tue Jun 23 01:00:00 CEST 2026", date(2026, 6, 22)),
        # CST is China's and the US's: read as written.
        ("Tue Jun 23 23:00:00 CST 2026", date(2026, 6, 23)),
        ("Tue Jun 23 23:00:00 XYZT 2026", date(2026, 6, 23)),
    ],
)
def test_a_time_zone_name_from_date_is_read_quietly(text: str, day: date) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning fails the test
        assert parse_date(text, now=TUESDAY) == datetime.combine(day, datetime.min.time(), UTC)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("12pm", "names no day"),
        ("20261341", "YYYYMMDD"),
        # A span, read as one: "can't read it as a date" listed its very form.
        ("999999 days ago", "reaches back before year 1. Give a shorter span"),
        ("2026 years ago", "reaches back before year 1"),
    ],
)
def test_a_time_alone_or_no_calendar_day_is_refused(text: str, why: str) -> None:
    # "12pm" was read as January 1 of this year: eleven months of papers.
    with pytest.raises(UsageError, match=why):
        parse_date(text, now=TUESDAY)


def test_the_cli_refuses_a_bare_number_in_one_line() -> None:
    error_line(run("latest", "--since", "12"), 2, "bare number", "days ago")


def test_a_negative_minimum_for_trending_is_refused() -> None:
    error_line(run("trending", "--min", "-3"), 2, "--min -3 is not a number of papers")


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("3 weeks ago", True),
        (" 2W ", True),
        ("a month ago", True),
        ("10 days", True),
        ("2 days ago", True),
        # A span of one day as of two: '1 day ago' found none where '2 days ago' found 151.
        ("a day ago", True),
        ("1d", True),
        # Nothing to count back, in any unit: today.
        ("0 days ago", False),
        ("0w", False),
        ("0 months ago", False),
        ("0 years ago", False),
        ("1 week ago", True),
        ("yesterday", False),  # that day, whatever a store holds
        ("Today", False),
        ("last monday", False),
        ("friday", False),
        ("2026-06-12", False),
        ("20260612", False),
        ("Jun 12 2026", False),
        ("2026", False),
    ],
)
def test_a_span_back_from_today_is_told_from_a_day(text: str, span: bool) -> None:
    """What --since takes from the newest paper of a store that is behind."""
    assert is_span(text) is span
