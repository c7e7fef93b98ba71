"""Dates: reading those users type (ISO dates, anything dateutil reads, relative forms),
and how papertrack shows a day ("Sep 30, 2026") wherever it prints one."""

from __future__ import annotations

import contextlib
import re
import warnings
from datetime import UTC, date, datetime, time, timedelta

from papertrack.errors import UsageError

#: Days arXiv may take to announce a paper after its submission: a Thursday's after
#: the 14:00 US Eastern cut-off and Friday's are announced on Sunday night (Monday,
#: UTC). ``fetch --days N`` reaches back this much further, so that a nightly run
#: misses none; what is already stored counts as unchanged.
ANNOUNCED_WITHIN = 4


def shown_day(day: date, year: bool = True) -> str:
    """'Sep 30, 2026' as papertrack shows a day; 'Sep 30' with ``year`` False."""
    text = f"{day:%b} {day.day}"
    return f"{text}, {day.year}" if year else text


def shown_span(first: date, last: date, sep: str = " – ") -> str:
    """'Sep 2 – Sep 29, 2026'; 'Dec 15, 2025 – Jan 11, 2026' across a new year."""
    return f"{shown_day(first, first.year != last.year)}{sep}{shown_day(last)}"


def shown_week(start: date, as_of: date) -> str:
    """'Sep 28', the week starting then: with its year when not ``as_of``'s."""
    return shown_day(start, start.year != as_of.year)


_UNITS = {"d": 1, "day": 1, "w": 7, "week": 7}
_RELATIVE = re.compile(
    r"^(?P<n>\d+|an?|one)\s*(?P<unit>d|w|m|y|days?|weeks?|months?|years?)(?:\s+ago)?$"
)
ACCEPTED = (
    "a date such as 2026-08-01, 20260801 or 'Aug 1 2026', 'today', 'yesterday', a weekday "
    "('monday' is the last Monday, today included; 'last monday' the one before today), "
    "or a relative form such as '3 weeks ago', '10 days ago', '2w' or '1 month ago'"
)
_WEEKDAYS = {
    name: n
    for n, names in enumerate(
        (
            ("monday", "mon"),
            ("tuesday", "tue", "tues"),
            ("wednesday", "wed"),
            ("thursday", "thu", "thur", "thurs"),
            ("friday", "fri"),
            ("saturday", "sat"),
            ("sunday", "sun"),
        )
    )
    for name in names
}
_WEEKDAY = re.compile(r"^(?P<last>last\s+)?(?P<day>[a-z]+)$")


def _midnight(day: date) -> datetime:
    return datetime.combine(day, time(), tzinfo=UTC)


_BARE_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)")


#: Time-zone names that `date` prints and that mean one offset (in seconds east of
#: UTC): "Tue Jun 23 23:00:00 EST 2026" is Jun 24 in UTC. Ambiguous names (CST, IST)
#: are left out and the time read as written.
_ZONES = {
    name: hours * 3600
    for name, hours in {
        "EST": -5, "EDT": -4, "CDT": -5, "MST": -7, "MDT": -6, "PST": -8, "PDT": -7,
        "AKST": -9, "AKDT": -8, "HST": -10, "WET": 0, "WEST": 1, "CET": 1, "CEST": 2,
        "EET": 2, "EEST": 3, "MSK": 3, "JST": 9, "KST": 9, "HKT": 8, "SGT": 8,
        "AEST": 10, "AEDT": 11, "NZST": 12, "NZDT": 13,
    }.items()
}  # fmt: skip


def _normal(text: str) -> str:
    """``text`` as the forms of :func:`parse_date` are matched: lower case, one space."""
    return " ".join(text.strip().lower().split())


def _span(value: str) -> tuple[int, str] | None:
    """(count, unit: d, day, w, week, m, month, y or year) of a span such as '3 weeks
    ago' (``value`` :func:`_normal`); None for any other form."""
    match = _RELATIVE.match(value)
    if match is None:
        return None
    raw, unit = match["n"], match["unit"]
    count = 1 if raw in ("a", "an", "one") else int(raw)
    return count, unit.rstrip("s") if len(unit) > 1 else unit


def is_span(text: str) -> bool:
    """Whether ``text`` is a span back from today ('2 weeks ago', '10d', 'a month
    ago'), as against a day of the calendar: a date, or a day named by its name
    ('yesterday', 'monday'), which means that day whatever a store holds. A count of
    0 ('0 days ago', '0w') is today in any unit: there is nothing to count back. 'a
    day ago' is a span as '2 days ago' is, so that a wider span never finds fewer
    papers ('1 day ago' found none on a store behind, '2 days ago' 151)."""
    span = _span(_normal(text))
    return span is not None and span[0] > 0


def parse_date(text: str, *, now: datetime | None = None, option: str = "--since") -> datetime:
    """The start (00:00 UTC) of the day ``text`` names, relative to ``now``.

    Raises:
        UsageError: ``text`` is not a date in any accepted form.
    """
    now = now or datetime.now(UTC)
    today = now.astimezone(UTC).date()
    value = _normal(text)
    if value in ("today", "now"):
        return _midnight(today)
    if value == "yesterday":
        return _midnight(today - timedelta(days=1))
    weekday = _WEEKDAY.match(value)
    if weekday and weekday["day"] in _WEEKDAYS:
        # dateutil reads "monday" as a Monday of its default month: read it as a person does.
        back = (today.weekday() - _WEEKDAYS[weekday["day"]]) % 7
        if weekday["last"] and back == 0:
            back = 7
        return _midnight(today - timedelta(days=back))
    if value.isdigit() and len(value) == 4 and value[0] != "0":
        return _midnight(date(int(value), 1, 1))  # a year: from its first day
    if value.isdigit() and len(value) == 8:
        # 20261201, as `date +%Y%m%d` and arXiv's API write a day.
        try:
            return _midnight(date(int(value[:4]), int(value[4:6]), int(value[6:])))
        except ValueError:
            raise UsageError(
                f"{option} {text!r} is no day of the calendar (read as YYYYMMDD). "
                f"Write a date such as {today.isoformat()}"
            ) from None
    if _BARE_NUMBER.fullmatch(value):
        # dateutil reads "12" as the 12th of the default month, "-7" as January 7 and
        # "3.5" as the 3rd: nobody means that.
        days = value.lstrip("+-").split(".")[0] or "7"
        days += " day" if days == "1" else " days"
        raise UsageError(
            f"{option} {text!r} is a bare number, not a date. Write e.g. '{days} ago' "
            f"or a whole date such as {today.isoformat()}"
        )
    span = _span(value)
    if span is not None:
        count, unit = span
        try:
            if unit[0] in "my":
                # Calendar months and years: '2 months ago' on Dec 3 is Oct 3, and
                # '12 months ago' is '1 year ago' (30-day months made them Oct 4 and
                # Dec 8). A day the month lacks is its last (Mar 31 - 1 month: Feb 28).
                from dateutil.relativedelta import relativedelta

                months = count * (12 if unit[0] == "y" else 1)
                return _midnight(today - relativedelta(months=months))
            return _midnight(today - timedelta(days=count * _UNITS[unit]))
        except (OverflowError, ValueError):
            # Read, but before year 1: "can't read it as a date" listed its own form.
            raise UsageError(
                f"{option} {text!r} reaches back before year 1. Give a shorter span, or "
                "a date such as 2000-01-01"
            ) from None
    else:
        from dateutil import parser

        parsed: datetime | None
        try:
            with warnings.catch_warnings():
                # A zone name dateutil does not know (CST is China's or the US's) is
                # left out, the time read as written: no UnknownTimezoneWarning on stderr.
                warnings.simplefilter("ignore")
                parsed = parser.parse(text, default=datetime(today.year, 1, 1), tzinfos=_ZONES)
                # The same text with another default month: a month that changes with
                # it was never given ("12pm" is no day, and read as January 1).
                again = parser.parse(text, default=datetime(today.year, 2, 2), tzinfos=_ZONES)
                # And with another default year: a year that changes was not given.
                other = parser.parse(text, default=datetime(2000, 1, 1), tzinfos=_ZONES)
            undated = again.month != parsed.month
            if other.year != parsed.year and parsed.date() > today:
                # "Dec 31" on January 1 is the day before, not a day a year ahead: a
                # day without its year is the last such day, as a weekday's name is.
                with contextlib.suppress(ValueError):  # Feb 29 of a year without one
                    parsed = parsed.replace(year=parsed.year - 1)
        except (ValueError, OverflowError, parser.ParserError):
            parsed, undated = None, False
        if undated:
            raise UsageError(
                f"{option} {text!r} names no day. Give a date such as {today.isoformat()}"
            )
        if parsed is not None:
            # The day it names, from its start: papers have days, not times, and a
            # time of day ("2026-06-26 09:00", what $(date) prints) left out every
            # paper of that day. A time with an offset names its day in UTC.
            if parsed.tzinfo is None:
                return _midnight(parsed.date())  # a bare date means that day in UTC
            try:
                return _midnight(parsed.astimezone(UTC).date())
            except (ValueError, OverflowError):
                pass  # an offset of a day or more, or past year 9999 in UTC
    raise UsageError(f"can't read {option} {text!r} as a date. Use {ACCEPTED}")
