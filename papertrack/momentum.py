"""Momentum: is a topic growing? Pure functions over the store index's daily counts.

Semantics (docs/momentum.md), for topic T as of day D with a window of W weeks:

- ``current`` = papers of T with a paper date (UTC day) in (D − W, D], i.e. the
  7·W days ending with D; ``previous`` = those in (D − 2W, D − W].
- ``change_pct`` = round(100 × (current − previous) / previous), ``None`` ("new")
  when previous is 0.
- ``share`` = current / every paper in the store dated in (D − W, D].
- the weekly series is the ISO weeks (Monday, UTC) ending with D's week.

The index keeps counts per day, so the windows are exact to the day even when D is
not a Sunday and they cut ISO weeks in the middle.

Gaps: a week in which the store holds no paper at all (before the first ingest,
after the last) is *no data*, not zero. D's own week, none of its papers in yet
(a Monday's are announced on Tuesday), is zero so far when the week before it
holds papers: read as a gap, every Monday's change switched to rates per day.
When a window is only partly covered by weeks with data, the change compares
papers per covered day, so missing weeks count neither as a fall nor as a rise;
:attr:`Window.coverage` says how much of each window had data.

Nothing here prints or reads the clock unless asked to (``now``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from papertrack.text import counted

#: {week Monday ISO date: [papers on Monday, …, on Sunday]}, as in the store index.
DayCounts = Mapping[str, Sequence[int]]

#: Below this many papers in either window a change is noise, not news.
LOW_COUNT = 10
#: Below this many days of data in a window (with some), its change is not news either.
LITTLE_DATA_DAYS = 7
DEFAULT_WINDOW = 4
DEFAULT_WEEKS = 12
SPARKS = "▁▂▃▄▅▆▇█"

_WORDS = "zero one two three four five six seven eight nine ten eleven twelve".split()


#: The most weeks a chart or a window spans: arXiv's whole history (since 1991).
#: Past it a chart is only empty weeks (100,000 took 30 s and went back to year 109).
MAX_WEEKS = 2000


class SpanError(ValueError):
    """A window or chart that cannot be measured. ``part`` says what is wrong:
    ``"window"`` or ``"weeks"`` (below 1 or above :data:`MAX_WEEKS`), or
    ``"calendar"`` (the weeks reach before year 1 or after 9999)."""

    def __init__(self, part: str, message: str) -> None:
        super().__init__(message)
        self.part = part


# --------------------------------------------------------------------------- days


def today(now: datetime | None = None) -> date:
    """The UTC day of ``now`` (default: the clock)."""
    return (now or datetime.now(UTC)).astimezone(UTC).date()


#: A store whose newest paper is more than this many days older than today is
#: behind: arXiv announces every weekday, so even a holiday break leaves a current
#: store a few days behind at most.
BEHIND_DAYS = 7


def default_day(newest: date | None, day: date) -> date:
    """The day momentum is measured at when none is asked for: ``day`` (today), or
    ``newest`` (the store's newest paper's day) if that is more than
    :data:`BEHIND_DAYS` before it.

    A window that runs past the newest paper holds days the store knows nothing of:
    with a store three weeks behind, four weeks "to today" were three days of data
    and 25 of none, and a weekday's papers read per day against four whole weeks
    turned every topic into a drop of 50% to 90%.
    """
    if newest is None or newest >= day - timedelta(days=BEHIND_DAYS):
        return day
    return newest


def monday(day: date) -> date:
    """The Monday starting the ISO week of ``day``."""
    return day - timedelta(days=day.weekday())


def chart_first(as_of: date, weeks: int) -> date:
    """The Monday of the first week of a chart of ``weeks`` ISO weeks ending with
    ``as_of``'s (the momentum chart, the topic lists' and the site's).

    Raises:
        OverflowError: that Monday is before the calendar's first day.
    """
    return monday(as_of) - timedelta(days=7 * (weeks - 1))


def day_counts(days: Mapping[date, int]) -> dict[str, list[int]]:
    """Daily counts {day: papers} in the index's form {week: [Mon … Sun]}."""
    weeks: dict[str, list[int]] = {}
    for day, count in days.items():
        weeks.setdefault(monday(day).isoformat(), [0] * 7)[day.weekday()] += count
    return weeks


def count_days(days: DayCounts, first: date, last: date) -> int:
    """Papers dated from ``first`` to ``last``, both included (0 when last < first)."""
    total = 0
    week = monday(first)
    while week <= last:
        row = days.get(week.isoformat())
        if row:
            lo = max((first - week).days, 0)
            hi = min((last - week).days, 6)
            total += sum(row[lo : hi + 1])
        week += timedelta(days=7)
    return total


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Window:
    """A run of days, ``first`` to ``last`` included, with the papers dated in it."""

    first: date
    last: date
    count: int
    total: int
    covered_days: int

    @property
    def days(self) -> int:
        return (self.last - self.first).days + 1

    @property
    def coverage(self) -> float:
        """Fraction of the window's days that fall in weeks with data (0..1)."""
        return self.covered_days / self.days

    def to_dict(self) -> dict[str, Any]:
        return {
            "start": self.first.isoformat(),
            "end": self.last.isoformat(),
            "days": self.days,
            "count": self.count,
            "total": self.total,
            "covered_days": self.covered_days,
            "coverage": self.coverage,
        }


@dataclass(frozen=True)
class WeekBucket:
    """One ISO week of the series: the topic's papers and the store's, up to the as-of day.

    ``total == 0`` means the store holds nothing for the week: *no data*, and
    ``count`` is then None rather than a zero nobody measured; except the as-of
    day's own week, on its Monday or Tuesday, after a week with papers
    (``so_far_empty``): none in yet.
    """

    start: date
    count: int | None
    total: int
    #: False for the as-of day's week when that day is not its Sunday.
    complete: bool = True
    #: Whether some of the week's days fall in the current window.
    current: bool = False
    #: The as-of day's week, with no paper up to that day after a week with papers.
    so_far_empty: bool = False

    @property
    def no_data(self) -> bool:
        return self.total == 0 and not self.so_far_empty

    def to_dict(self) -> dict[str, Any]:
        return {
            "week_start": self.start.isoformat(),
            "count": self.count,
            "total": self.total,
            "no_data": self.no_data,
            "complete": self.complete,
            "in_current_window": self.current,
        }


@dataclass(frozen=True)
class Momentum:
    """The momentum of one topic as of one day. See the module docstring for the rules."""

    topic: str
    name: str
    as_of: date
    window_weeks: int
    current: Window
    previous: Window
    weeks: tuple[WeekBucket, ...]
    #: The days up to the as-of day that hold no paper yet, after one that does (at
    #: most :data:`UNLISTED_AT_MOST`), leaving out days whose weekday held none the
    #: week before either (a store of listings has no weekend papers): counted as
    #: days of none, they read low, and on Mondays most topics read "down"
    #: (:func:`notes` says so).
    unlisted_days: int = 0
    #: The newest day up to the as-of day with a paper, when :attr:`unlisted_days`.
    newest_day: date | None = None

    @property
    def window_days(self) -> int:
        return 7 * self.window_weeks

    @property
    def change_pct(self) -> int | None:
        """round(100 × (current − previous) / previous), per covered day when gaps cut a window.

        None when previous is 0 or either window has no data at all.
        """
        cur, prev = self.current, self.previous
        if prev.count == 0 or cur.covered_days == 0 or prev.covered_days == 0:
            return None
        return per_day_change(cur.count, cur.covered_days, prev.count, prev.covered_days)

    @property
    def share(self) -> float | None:
        """current / all papers dated in the current window; None when the store has none."""
        if self.current.total == 0:
            return None
        return self.current.count / self.current.total

    @property
    def low_count(self) -> bool:
        return min(self.current.count, self.previous.count) < LOW_COUNT

    @property
    def little_data(self) -> bool:
        """Whether a window has data for some days but under a week of them: its
        papers per day stand for the whole window, and 29 papers of one Monday, read
        as four weeks, ranked a topic first in ``trending`` at +35%."""
        return any(0 < w.covered_days < LITTLE_DATA_DAYS for w in (self.current, self.previous))

    @property
    def partial(self) -> bool:
        """Whether a window is only partly covered by weeks with data."""
        return any(0 < w.covered_days < w.days for w in (self.current, self.previous))

    def to_dict(self) -> dict[str, Any]:
        """The stable JSON form (docs/output.md's keys first)."""
        return {
            "topic": self.topic,
            "name": self.name,
            "as_of": self.as_of.isoformat(),
            "window_days": self.window_days,
            "current": self.current.count,
            "previous": self.previous.count,
            "change_pct": self.change_pct,
            "share": self.share,
            "total_current": self.current.total,
            "weeks": [w.to_dict() for w in self.weeks],
            "low_count": self.low_count,
            "little_data": self.little_data,
            "window_weeks": self.window_weeks,
            "total_previous": self.previous.total,
            "coverage": {
                "current": self.current.coverage,
                "previous": self.previous.coverage,
            },
            "windows": {
                "current": self.current.to_dict(),
                "previous": self.previous.to_dict(),
            },
            "summary": describe(self),
            "notes": notes(self),
        }


# --------------------------------------------------------------------------- measuring


def _known_until(store: DayCounts, as_of: date) -> date:
    """The last day a week with data covers: ``as_of``, or the newest day with papers
    up to it when the store had stopped: that day is more than :data:`BEHIND_DAYS`
    before it, or the as-of day's week is a gap. Counted to the end of their week,
    the Saturday and Sunday after the last paper made four weeks of nothing at all
    "down 100%", and the Friday of a store's last papers read as a third of the
    rate it had."""
    newest = None
    for week, row in store.items():
        start = date.fromisoformat(week)
        if start > as_of:
            continue
        for offset in range(min(6, (as_of - start).days), -1, -1):
            if row[offset]:
                day = start + timedelta(days=offset)
                newest = day if newest is None or day > newest else newest
                break
    if newest is None:
        return as_of
    if newest < as_of - timedelta(days=BEHIND_DAYS):
        return newest
    # Within a week of its newest paper, a store stopped when the as-of day's own week
    # is a gap: a Friday's papers last, as of the next Friday, read "-100%" from the
    # weekend between.
    own_week = monday(as_of)
    if newest < own_week:
        if not empty_so_far(store, own_week, as_of):
            return newest
        # As of its Monday or Tuesday the week is zero so far, but a weekday of an
        # earlier week after the newest paper is not: a store that stopped on a
        # Wednesday read -47% as of Monday and -84% on Tuesday, then "no data".
        day = newest + timedelta(days=1)
        while day < own_week:
            if day.weekday() < 5:
                return newest
            day += timedelta(days=1)
    return as_of


def _window(
    topic: DayCounts, store: DayCounts, first: date, last: date, as_of: date, known: date
) -> Window:
    covered = 0
    week = monday(first)
    while week <= last:
        lo, hi = max(first, week), min(last, week + timedelta(days=6), known)
        if hi >= lo and _has_data(store, week, as_of):
            covered += (hi - lo).days + 1
        week += timedelta(days=7)
    return Window(
        first=first,
        last=last,
        count=count_days(topic, first, last),
        total=count_days(store, first, last),
        covered_days=covered,
    )


def _has_data(store: DayCounts, week: date, as_of: date) -> bool:
    # A week with data is one the store holds any paper for, up to the as-of day.
    if count_days(store, week, min(week + timedelta(days=6), as_of)) > 0:
        return True
    return empty_so_far(store, week, as_of)


def empty_so_far(store: DayCounts, week: date, as_of: date) -> bool:
    """Whether ``week`` is the as-of day's own, that day a Monday or Tuesday, none of
    its papers in yet, after a week the store holds papers for: arXiv announces the
    papers of a Monday (to 14:00 Eastern) at 00:00 UTC on Tuesday, and the rest of
    them on Wednesday. Later in the week, a week with no paper at all is a gap: the
    store stopped (as of a Sunday, seven days read as zeros made "down 49%" of a
    topic that was down 32% per day of data)."""
    return (
        week == monday(as_of)
        and as_of.weekday() <= 1
        and count_days(store, week - timedelta(days=7), week - timedelta(days=1)) > 0
    )


def measure(
    topic_days: DayCounts,
    all_days: DayCounts,
    *,
    as_of: date,
    window: int = DEFAULT_WINDOW,
    weeks: int = DEFAULT_WEEKS,
    topic: str = "",
    name: str = "",
) -> Momentum:
    """The momentum of a topic from its daily counts and the store's (the index's '*').

    Args:
        topic_days: the topic's counts, {week: [Mon … Sun]}.
        all_days: every paper's counts (the share's denominator, and what tells gaps).
        as_of: the last day counted (D).
        window: the window W in weeks.
        weeks: how many ISO weeks the series shows, ending with D's week.

    Raises:
        SpanError: ``window`` or ``weeks`` is below 1 or above :data:`MAX_WEEKS`, or
            the weeks reach past the calendar (before year 1 or after 9999).
    """
    for part, value in (("window", window), ("weeks", weeks)):
        if not 1 <= value <= MAX_WEEKS:
            raise SpanError(part, f"{part} must be from 1 to {MAX_WEEKS:,} weeks, not {value}")
    try:
        return _measure(topic_days, all_days, as_of, window, weeks, topic, name)
    except OverflowError:
        raise SpanError("calendar", "the weeks reach past the calendar (year 1 to 9999)") from None


def check_span(as_of: date, window: int = DEFAULT_WINDOW, weeks: int = DEFAULT_WEEKS) -> None:
    """Whether ``window`` and a chart of ``weeks`` ending with ``as_of``'s week can be
    measured (a trial with no counts: 0.2 ms, 30 ms at :data:`MAX_WEEKS`).

    Raises:
        SpanError: they cannot; its ``part`` says why.
    """
    measure({}, {}, as_of=as_of, window=window, weeks=weeks)


def measure_topic(
    days: Mapping[str, DayCounts],
    slug: str,
    name: str,
    *,
    as_of: date,
    window: int = DEFAULT_WINDOW,
    weeks: int = DEFAULT_WEEKS,
) -> Momentum:
    """:func:`measure` of topic ``slug`` from a store index's daily counts (``Index.days``)."""
    from papertrack.store import ALL

    return measure(
        days.get(slug, {}),
        days.get(ALL, {}),
        as_of=as_of,
        window=window,
        weeks=weeks,
        topic=slug,
        name=name,
    )


def _measure(
    topic_days: DayCounts,
    all_days: DayCounts,
    as_of: date,
    window: int,
    weeks: int,
    topic: str,
    name: str,
) -> Momentum:
    span = timedelta(days=7 * window)
    current_first = as_of - span + timedelta(days=1)
    previous_first = current_first - span
    series_first = chart_first(as_of, weeks)
    known = _known_until(all_days, as_of)
    current = _window(topic_days, all_days, current_first, as_of, as_of, known)
    previous = _window(
        topic_days, all_days, previous_first, current_first - timedelta(days=1), as_of, known
    )
    buckets = []
    for n in range(weeks):
        start = series_first + timedelta(days=7 * n)
        last = min(start + timedelta(days=6), as_of)
        total = count_days(all_days, start, last)
        empty = not total and empty_so_far(all_days, start, as_of)
        buckets.append(
            WeekBucket(
                start=start,
                count=count_days(topic_days, start, last) if total or empty else None,
                total=total,
                so_far_empty=empty,
                complete=last == start + timedelta(days=6),
                current=last >= current_first,
            )
        )
    return Momentum(
        topic=topic,
        name=name,
        as_of=as_of,
        window_weeks=window,
        current=current,
        previous=previous,
        weeks=tuple(buckets),
        **(
            _unlisted(all_days, as_of, current_first)
            if known == as_of and not _held_after(all_days, as_of)
            else {}
        ),
    )


def _held_after(store: DayCounts, as_of: date) -> bool:
    """Whether the store holds a paper dated after ``as_of``: then its last days
    without papers are not "not listed yet" (an --as-of in the past)."""
    own = monday(as_of)
    for week, row in store.items():
        start = date.fromisoformat(week)
        if start > own and any(row):
            return True
        if start == own and any(row[(as_of - own).days + 1 :]):
            return True
    return False


#: More days than this with no paper at the end of a window are a store that stopped
#: (a gap), not papers arXiv has yet to list.
UNLISTED_AT_MOST = 6


def _unlisted(all_days: DayCounts, as_of: date, first: date) -> dict[str, Any]:
    """:attr:`Momentum.unlisted_days` and :attr:`Momentum.newest_day` (as keywords;
    none when no day is unlisted), looking no further back than ``first``."""
    day, found = as_of, 0
    week = timedelta(days=7)
    while day >= first and (as_of - day).days <= UNLISTED_AT_MOST:
        if count_days(all_days, day, day):
            return {"unlisted_days": found, "newest_day": day} if found else {}
        if count_days(all_days, day - week, day - week):
            found += 1
        day -= timedelta(days=1)
    return {}


def rank(results: Iterable[Momentum]) -> list[Momentum]:
    """Topics by change over the window, fastest growing first; ties by current count.

    Topics with too few papers to call a trend (:attr:`Momentum.low_count`) rank
    after the others: 4 papers against 2 is +100%, and it topped the list above a
    topic of 66 papers. Within each part, a topic that is *new* (none in the
    previous window, some now) ranks above any percentage; topics whose change
    cannot be told (nothing in either window, or no data) come last. Remaining ties
    go by name.
    """

    def key(m: Momentum) -> tuple[int, int, float, int, str]:
        pct = m.change_pct
        few = int(m.low_count or m.little_data)
        if pct is not None:
            return (few, 1, -pct, -m.current.count, m.name.casefold())
        if m.current.count and m.previous.covered_days:
            return (few, 0, 0.0, -m.current.count, m.name.casefold())
        return (2, 2, 0.0, -m.current.count, m.name.casefold())

    return sorted(results, key=key)


def sparkline(counts: Sequence[int | None]) -> str:
    """One block character per week, ▁ for 0 up to █ for the largest; a space for no data."""
    top = max((c for c in counts if c is not None), default=0)
    chars = []
    for count in counts:
        if count is None:
            chars.append(" ")
        elif top == 0:
            chars.append(SPARKS[0])
        else:
            chars.append(SPARKS[round(count / top * (len(SPARKS) - 1))])
    return "".join(chars)


# --------------------------------------------------------------------------- words


def number_word(n: int) -> str:
    """'four' for 4: words up to twelve, digits after."""
    return _WORDS[n] if 0 <= n < len(_WORDS) else f"{n:,}"


def window_phrase(weeks: int, *, last: bool = True) -> str:
    """'last four weeks' / 'last week', or with ``last=False`` 'four weeks' / 'week'."""
    span = "week" if weeks == 1 else f"{number_word(weeks)} weeks"
    return f"last {span}" if last else span


def format_share(share: float, *, short: bool = False) -> str:
    """'0.5%' for 0.005: one decimal below 10%, whole percents above; a share
    too small to show is 'under 0.1%' (``short``, for a table: '<0.1%'), not 0."""
    pct = 100 * share
    if pct == 0:
        return "0%"
    if pct < 0.1:
        return "<0.1%" if short else "under 0.1%"
    if 99.5 <= pct < 100:
        # Not all of them: "100% of all new papers" said every paper was the topic's.
        return ">99%" if short else "over 99%"
    if round(pct, 1) >= 10:  # 9.96% is "10%", as 10% is, not "10.0%"
        return f"{pct:.0f}%"
    return f"{pct:.1f}%"


def format_shares(shares: Sequence[float]) -> list[str]:
    """:func:`format_share` of each of a ranked list, with as many decimals as tell
    two different shares apart (up to 4) where they read alike: related topics
    ranked 9.28% then 9.27% showed as "9.3% (76), … 9.3% (100)", which read as a
    list out of order. "under 0.1%" and "over 99%" stay as they are."""
    base = [format_share(share) for share in shares]
    shown = list(base)
    for at, share in enumerate(shares):
        rivals = [s for t, s in zip(base, shares, strict=True) if t == base[at] and s != share]
        if not rivals or not base[at][0].isdigit():
            continue
        places = next(
            (
                p
                for p in (2, 3)
                if all(f"{100 * share:.{p}f}" != f"{100 * s:.{p}f}" for s in rivals)
            ),
            4,
        )
        shown[at] = f"{100 * share:.{places}f}%"
    return shown


def _span(window: Window) -> str:
    from papertrack.dates import shown_span

    return shown_span(window.first, window.last)


def describe(m: Momentum) -> str:
    """The momentum sentence, e.g. '54 papers in the last four weeks, up 145% on the four
    weeks before. 0.5% of all new papers.' Cautions come separately: :func:`notes`."""
    now, before = m.current, m.previous
    recent = window_phrase(m.window_weeks)
    earlier = f"the {window_phrase(m.window_weeks, last=False)} before"
    if now.covered_days == 0:
        return f"No data for the {recent}: the store holds no papers dated {_span(now)}."
    text = f"{counted(now.count, 'paper')} in the {recent}"
    pct = m.change_pct
    if before.covered_days == 0:
        text += f"; no data for {earlier}"
    elif pct is None and now.count == 0:
        text += f", as in {earlier}"
    elif pct is None:
        text += f", new: none in {earlier}"
    elif pct == 0 and now.count == before.count and now.covered_days == before.covered_days:
        text += f", unchanged from {earlier}"
    elif pct == 0:
        # Counts compare per day of data: 10 in 5 days is as many as 14 in 7.
        rate_now, rate_before = now.count * before.covered_days, before.count * now.covered_days
        if rate_now == rate_before:
            text += f", as many per day of data as in {earlier}"
        else:
            text += f", {'up' if rate_now > rate_before else 'down'} less than 1% on {earlier}"
    else:
        # Counts compare per day of data. Where the windows hold different days of
        # data, the sentence says so: "76 papers ..., up 17%" with 79 before (in more
        # days), or "58 papers ..., down 2%" with 79, read as figures that denied
        # their own counts, and only a note below said why.
        uneven = now.covered_days != before.covered_days
        per_day = " per day of data" if uneven else ""
        text += f", {'up' if pct > 0 else 'down'} {abs(pct)}%{per_day} on {earlier}"
    text += "."
    if m.share is not None:
        share = format_share(m.share)
        text += f" {share[0].upper()}{share[1:]} of all new papers."  # "Under 0.1% of …"
    return text


def unlisted_note(m: Momentum) -> str:
    """What :attr:`Momentum.unlisted_days` means for the figures, and how to end the
    window at the newest paper instead."""
    from papertrack.dates import shown_day, shown_span

    newest = m.newest_day or m.as_of
    first = newest + timedelta(days=1)
    days = shown_day(m.as_of) if first == m.as_of else shown_span(first, m.as_of)
    return (
        f"No paper is dated {days} yet (arXiv lists papers a day or more after they are "
        f"sent): the {window_phrase(m.window_weeks)} count "
        f"{'that day' if first == m.as_of else 'those days'} as none, so their figures "
        f"read low. --as-of {newest.isoformat()} ends them at the newest paper."
    )


def notes(m: Momentum) -> list[str]:
    """Cautions that go with the sentence: too few papers, windows with gaps."""
    now, before = m.current, m.previous
    found = []
    if m.low_count and now.covered_days and before.covered_days and (now.count or before.count):
        found.append(
            f"Few papers: {now.count:,} now against {before.count:,} before, under "
            f"{LOW_COUNT} in a window, too few to call a trend."
        )
    recent = f"the {window_phrase(m.window_weeks)}"
    earlier = f"the {window_phrase(m.window_weeks, last=False)} before"
    if m.little_data and now.covered_days and before.covered_days:
        short = [
            f"only {counted(w.covered_days, 'day')} of data in {label}"
            for w, label in ((now, recent), (before, earlier))
            if w.covered_days < LITTLE_DATA_DAYS
        ]
        found.append(f"Little data: {' and '.join(short)}, too little to call a trend.")
    against = against_all(m)
    if against:
        found.append(against)
    if m.unlisted_days:
        found.append(unlisted_note(m))
    gaps = [
        f"{w.days - w.covered_days:,} of the {w.days:,} days of {label}"
        for w, label in ((now, recent), (before, earlier))
        if 0 < w.covered_days < w.days
    ]
    if gaps:
        found.append(
            f"No data for {' and '.join(gaps)}: "
            + (
                "the change compares papers per day of data."
                if now.covered_days and before.covered_days
                else "nothing to compare."
            )
        )
    return found


def per_day_change(now: int, now_days: int, before: int, before_days: int) -> int:
    """round(100 × (now − before) / before), each per day of data, kept in integers:
    with both windows fully covered exactly the change of the counts. ``before``
    and both day counts must be above 0."""
    num = 100 * (now * before_days - before * now_days)
    return round(num / (before * now_days))


#: A share that moved by less than this part of itself is not said to have moved.
SHARE_MOVE = 0.03


def against_all(m: Momentum) -> str | None:
    """What the topic did against all new papers, when that tells another story than
    its count: on the real 40-week store all papers fell 15% between the windows
    (a deadline week in the earlier one), and LLM agent training read "down 8%"
    while its share of them rose from 2.35% to 2.54%. None when both say the same."""
    now, before, pct = m.current, m.previous, m.change_pct
    if pct is None or pct == 0 or not before.total or not now.total:
        return None
    share_now, share_before = now.count / now.total, before.count / before.total
    if (share_now > share_before) == (pct > 0):
        return None
    if abs(share_now - share_before) < SHARE_MOVE * share_before:
        return None  # "fell: 1.97% ... 1.97%" said nothing but noise
    change = per_day_change(now.total, now.covered_days, before.total, before.covered_days)
    moved = f"{'rose' if change > 0 else 'fell'} {abs(change)}%" if change else "held steady"
    shares = [format_share(share_before), format_share(share_now)]
    if shares[0] == shares[1]:  # 2.35% and 2.37% are both "2.4%"
        shares = [f"{100 * share_before:.2f}%", f"{100 * share_now:.2f}%"]
    return (
        f"All new papers {moved} between the two windows, so as a share of them "
        f"{m.name} {'rose' if share_now > share_before else 'fell'}: {shares[0]} of "
        f"the {window_phrase(m.window_weeks, last=False)} before, {shares[1]} of the "
        f"{window_phrase(m.window_weeks)}."
    )


def footer(m: Momentum) -> str:
    """What 'all new papers' counted, and how many weeks shown had no data."""
    now = m.current
    text = (
        f"Share of all new papers: {now.count:,} of {now.total:,} "
        f"paper{'' if now.total == 1 else 's'} ingested with a paper date "
        f"in the {window_phrase(m.window_weeks)} ({_span(now)})"
    )
    gaps = sum(w.no_data for w in m.weeks)
    if gaps:
        text += f"; no data (nothing ingested) for {gaps:,} of the {len(m.weeks):,} weeks shown"
    return text + "."


def papers_through(days: DayCounts, as_of: date) -> int:
    """Papers dated on or before ``as_of``."""
    total = 0
    for key, row in days.items():
        week = date.fromisoformat(key)
        if week <= as_of:
            total += sum(row[: (as_of - week).days + 1])
    return total
