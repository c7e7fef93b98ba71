"""Momentum: pure functions on frozen dates, the index's daily counts, and the commands.

The CLI tests ingest a Kaggle-style JSON-lines feed generated here with papers on
chosen days, so every number the commands print is known in advance.
"""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from helpers import kaggle_line, run
from rich.console import Console
from typer.testing import CliRunner

from papertrack import momentum as m
from papertrack.cli import app
from papertrack.models import Paper
from papertrack.render import bar, momentum_block, week_label
from papertrack.store import SCHEMA, Index, Store

D = date


def days(counts: dict[date, int]) -> dict[str, list[int]]:
    return m.day_counts(counts)


def spread(first: date, last: date, total: int) -> dict[date, int]:
    """``total`` papers spread over the days ``first`` to ``last`` (earliest days get the rest)."""
    n = (last - first).days + 1
    each, rest = divmod(total, n)
    return {first + timedelta(days=i): each + (i < rest) for i in range(n)}


def merged(*parts: dict[date, int]) -> dict[date, int]:
    total: Counter[date] = Counter()
    for part in parts:
        total.update(part)
    return dict(total)


SUNDAY = D(2026, 9, 27)  # D: the current window is Aug 31 - Sep 27, the previous Aug 3 - Aug 30


def example(current: int, previous: int, others: int = 0, **kw: object) -> m.Momentum:
    """A topic with ``current``/``previous`` papers; the store also holds ``others`` per window."""
    topic = merged(
        spread(D(2026, 8, 31), SUNDAY, current), spread(D(2026, 8, 3), D(2026, 8, 30), previous)
    )
    store = merged(
        topic,
        spread(D(2026, 8, 31), SUNDAY, others),
        spread(D(2026, 8, 3), D(2026, 8, 30), others),
        spread(D(2026, 6, 1), D(2026, 8, 2), 500),  # every week of the chart has data
    )
    return m.measure(days(topic), days(store), as_of=SUNDAY, topic="t", name="T", **kw)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- sentences


def test_the_example_of_the_topic_page() -> None:
    result = example(54, 22, others=10_812 - 54)
    assert (result.current.count, result.previous.count, result.current.total) == (54, 22, 10_812)
    assert result.change_pct == 145
    assert m.describe(result) == (
        "54 papers in the last four weeks, up 145% on the four weeks before. "
        "0.5% of all new papers."
    )
    assert not result.low_count and m.notes(result) == []
    assert "of 10,812 papers ingested with a paper date in the last four weeks" in m.footer(result)
    data = result.to_dict()
    assert data["share"] == 54 / 10_812
    assert data["window_days"] == 28 and data["as_of"] == "2026-09-27"
    assert data["coverage"] == {"current": 1.0, "previous": 1.0}


def test_a_count_that_falls_while_its_share_rises_is_said() -> None:
    # On the real 40-week store all papers fell 15% between the windows, and LLM agent
    # training read "down 8%" while its share of them rose from 2.35% to 2.54%.
    def with_store(current: int, previous: int, now_total: int, before_total: int) -> m.Momentum:
        topic = merged(
            spread(D(2026, 8, 31), SUNDAY, current),
            spread(D(2026, 8, 3), D(2026, 8, 30), previous),
        )
        store = merged(
            topic,
            spread(D(2026, 8, 31), SUNDAY, now_total - current),
            spread(D(2026, 8, 3), D(2026, 8, 30), before_total - previous),
            spread(D(2026, 6, 1), D(2026, 8, 2), 500),
        )
        return m.measure(days(topic), days(store), as_of=SUNDAY, topic="t", name="T")

    fell = with_store(250, 273, 9_832, 11_619)
    assert m.describe(fell).startswith("250 papers in the last four weeks, down 8% on")
    assert m.notes(fell) == [
        "All new papers fell 15% between the two windows, so as a share of them T rose: "
        "2.3% of the four weeks before, 2.5% of the last four weeks."
    ]
    # Shares that round alike at one decimal get two.
    close = with_store(110, 123, 4_331, 5_000)
    assert m.notes(close) == [
        "All new papers fell 13% between the two windows, so as a share of them T rose: "
        "2.46% of the four weeks before, 2.54% of the last four weeks."
    ]
    # A share that hardly moved is not said to have (2.50% to 2.49%: noise).
    assert m.notes(with_store(110, 100, 4_420, 4_000)) == []
    # Count and share moving together need no word; nor does a store without change.
    assert m.notes(with_store(300, 273, 9_832, 11_619)) == []
    assert m.notes(with_store(250, 273, 11_619, 11_619)) == []


def test_down_unchanged_new_and_none() -> None:
    assert m.describe(example(49, 70, others=951)).startswith(
        "49 papers in the last four weeks, down 30% on the four weeks before. 4.9% of all"
    )
    assert "12 papers in the last four weeks, unchanged from the four weeks before." in m.describe(
        example(12, 12, others=100)
    )
    new = example(3, 0, others=100)
    assert new.change_pct is None
    assert m.describe(new).startswith(
        "3 papers in the last four weeks, new: none in the four weeks before."
    )
    assert m.describe(example(0, 0, others=5)).startswith(
        "0 papers in the last four weeks, as in the four weeks before."
    )
    assert m.describe(example(1, 1)).startswith("1 paper in the last four weeks")


def test_change_that_rounds_to_zero_is_not_called_unchanged() -> None:
    result = example(1001, 1000, others=5000)
    assert result.change_pct == 0
    assert "up less than 1% on the four weeks before" in m.describe(result)


def test_change_pct_rounds_like_python() -> None:
    assert example(54, 22, 100).change_pct == round(100 * (54 - 22) / 22) == 145
    assert example(5, 8, 100).change_pct == round(100 * (5 - 8) / 8) == -38
    assert example(3, 8, 100).change_pct == round(-62.5) == -62


def test_small_numbers_carry_a_caution() -> None:
    result = example(7, 3, others=400)
    assert result.change_pct == 133 and result.low_count
    assert result.to_dict()["low_count"] is True
    assert m.notes(result) == [
        "Few papers: 7 now against 3 before, under 10 in a window, too few to call a trend."
    ]
    assert not example(10, 10).low_count
    assert example(10, 9).low_count and example(9, 30).low_count


@pytest.mark.parametrize(
    ("weeks", "last", "other"),
    [
        (1, "last week", "the week before"),
        (2, "last two weeks", "the two weeks before"),
        (12, "last twelve weeks", "the twelve weeks before"),
        (13, "last 13 weeks", "the 13 weeks before"),
    ],
)
def test_the_window_is_spelled_as_set(weeks: int, last: str, other: str) -> None:
    topic = days(spread(D(2025, 1, 1), SUNDAY, 2000))
    result = m.measure(topic, topic, as_of=SUNDAY, window=weeks)
    assert result.window_days == 7 * weeks
    assert m.describe(result).startswith(f"{result.current.count:,} papers in the {last}, ")
    assert f" {other}." in m.describe(result)


def test_share_format() -> None:
    assert [m.format_share(x) for x in (0.0, 0.0004, 0.005, 0.0123, 0.25)] == [
        "0%", "under 0.1%", "0.5%", "1.2%", "25%",
    ]  # fmt: skip
    assert m.format_share(0.0004, short=True) == "<0.1%"
    # The edges: 9.96% rounds to a whole 10%, as 10% is; 99.99% is not "all of them".
    assert [m.format_share(x) for x in (0.0996, 0.1, 0.0994, 0.9999, 1.0)] == [
        "10%", "10%", "9.9%", "over 99%", "100%",
    ]  # fmt: skip
    assert m.format_share(0.9999, short=True) == ">99%"
    # At the start of the sentence's second part it is written as a sentence starts.
    assert m.describe(example(2, 2, others=5000)).endswith(" Under 0.1% of all new papers.")
    # A ranked list: two different shares that read alike get two decimals (related
    # topics of 9.28% and 9.27% read "9.3% (76), 9.3% (100)", as out of order).
    assert m.format_shares([0.3367, 0.092796, 0.092678, 0.05]) == ["34%", "9.28%", "9.27%", "5.0%"]
    assert m.format_shares([0.05, 0.05]) == ["5.0%", "5.0%"]  # equal: alike, rightly
    # As many decimals as tell them apart; a share too small to show stays as said.
    assert m.format_shares([0.10001, 0.100004, 0.0004, 0.0003]) == [
        "10.001%", "10.000%", "under 0.1%", "under 0.1%",
    ]  # fmt: skip


def test_equal_papers_per_day_of_data_are_not_called_down() -> None:
    # The same rate: 20 papers in 14 days of data against 40 in 28.
    topic = merged(spread(D(2026, 8, 17), D(2026, 8, 30), 20), spread(D(2026, 8, 31), SUNDAY, 40))
    store = merged(topic, spread(D(2026, 8, 17), SUNDAY, 420))
    result = m.measure(days(topic), days(store), as_of=SUNDAY)
    assert (result.current.count, result.previous.count) == (40, 20)
    assert (result.current.covered_days, result.previous.covered_days) == (28, 14)
    assert result.change_pct == 0
    assert m.describe(result).startswith(
        "40 papers in the last four weeks, as many per day of data as in the four weeks before."
    )


# --------------------------------------------------------------------------- windows


def test_windows_are_exact_to_the_day_mid_week() -> None:
    wednesday = D(2026, 9, 30)  # current: Sep 3 (Thu) - Sep 30; previous: Aug 6 - Sep 2
    topic = {
        D(2026, 9, 30): 1,  # D itself: current
        D(2026, 10, 1): 50,  # after D: never counted
        D(2026, 9, 3): 2,  # D - 27: current
        D(2026, 9, 2): 4,  # D - 28: previous
        D(2026, 8, 6): 8,  # D - 55: previous
        D(2026, 8, 5): 16,  # D - 56: neither
    }
    result = m.measure(days(topic), days(topic), as_of=wednesday, weeks=10)
    assert (result.current.first, result.current.last) == (D(2026, 9, 3), wednesday)
    assert (result.previous.first, result.previous.last) == (D(2026, 8, 6), D(2026, 9, 2))
    assert (result.current.count, result.previous.count) == (3, 12)
    last = result.weeks[-1]
    assert last.start == D(2026, 9, 28) and last.count == 1 and not last.complete
    assert [w.current for w in result.weeks].count(True) == 5  # Aug 31 … Sep 28 overlap (D-28, D]


def test_count_days_matches_a_day_by_day_count() -> None:
    counts = {D(2026, 1, 1) + timedelta(days=i): (i * 7) % 5 for i in range(120)}
    index = days(counts)
    spans = [(D(2026, 1, 3), D(2026, 2, 11)), (D(2025, 12, 1), D(2026, 1, 1)),
             (D(2026, 3, 5), D(2026, 3, 5)), (D(2026, 3, 6), D(2026, 3, 5))]  # fmt: skip
    for first, last in spans:
        expected = sum(n for day, n in counts.items() if first <= day <= last)
        assert m.count_days(index, first, last) == expected


def test_weekly_series_are_iso_weeks_oldest_first() -> None:
    topic = days({D(2026, 9, 27): 1, D(2026, 9, 28): 2})
    result = m.measure(topic, topic, as_of=D(2026, 9, 28))
    starts = [w.start for w in result.weeks]
    assert len(starts) == 12 and starts[-1] == D(2026, 9, 28) and starts[0] == D(2026, 7, 13)
    assert all(s.weekday() == 0 for s in starts)
    assert [w["week_start"] for w in result.to_dict()["weeks"]][-2:] == ["2026-09-21", "2026-09-28"]
    assert week_label(D(2026, 9, 28), D(2026, 9, 30)) == "Week of Sep 28"
    assert week_label(D(2025, 12, 29), D(2026, 1, 7)) == "Week of Dec 29, 2025"


def test_days_with_no_paper_yet_are_said_but_not_days_that_never_have_any() -> None:
    """A store of daily listings dates no paper on a Saturday or Sunday: as of a
    Sunday those days are no news. A weekday with none yet, when the same weekday
    had papers the week before, is (and so is a Monday after that weekend)."""
    friday = D(2026, 6, 19)
    weekdays = {
        friday - timedelta(days=k): 10
        for k in range(56)
        if (friday - timedelta(days=k)).weekday() < 5
    }
    store = days(weekdays)
    sunday = m.measure(store, store, as_of=friday + timedelta(days=2))
    assert sunday.unlisted_days == 0 and sunday.newest_day is None
    assert not any(note.startswith("No paper is dated") for note in m.notes(sunday))
    monday = m.measure(store, store, as_of=friday + timedelta(days=3))
    assert (monday.unlisted_days, monday.newest_day) == (1, friday)
    assert m.notes(monday)[-1].startswith("No paper is dated Jun 20 – Jun 22, 2026 yet")
    assert "those days as none" in m.notes(monday)[-1]
    assert "--as-of 2026-06-19 ends them" in m.notes(monday)[-1]
    from rich.console import Console

    from papertrack.render import trending_table

    for result, said in ((monday, True), (sunday, False)):
        console = Console(width=120, record=True, file=io.StringIO())
        console.print(trending_table([result], "Trending", width=120))
        caption = "Now: no paper is dated after Jun 19 yet, so it reads low; --as-of 2026-06-19"
        assert (caption in " ".join(console.export_text().split())) is said
    # A store that stopped more than a week ago: its gap is said as such instead.
    later = m.measure(store, store, as_of=friday + timedelta(days=12))
    assert later.unlisted_days == 0
    # An --as-of in the past, the store holding later papers: the days without papers
    # are not "not dated yet", and the newest paper is not the as-of day's.
    tuesday = days({**weekdays, friday + timedelta(days=4): 10})
    past = m.measure(tuesday, tuesday, as_of=friday + timedelta(days=3))
    assert past.unlisted_days == 0 and past.newest_day is None
    assert not any(note.startswith("No paper is dated") for note in m.notes(past))


def test_weeks_without_any_paper_are_no_data_not_zero() -> None:
    topic = days({D(2026, 9, 1): 3})
    store = days({D(2026, 9, 1): 3, D(2026, 9, 15): 4})  # nothing in the week of Sep 7
    result = m.measure(topic, store, as_of=D(2026, 9, 20), weeks=4)
    rows = [(w.start.isoformat(), w.count, w.total, w.no_data) for w in result.weeks]
    assert rows == [
        ("2026-08-24", None, 0, True),
        ("2026-08-31", 3, 3, False),
        ("2026-09-07", None, 0, True),
        ("2026-09-14", 0, 4, False),  # data that week, none of the topic: a real zero
    ]
    assert result.to_dict()["weeks"][0]["count"] is None


def test_a_monday_with_no_paper_in_yet_is_zero_so_far_not_a_gap() -> None:
    """A Monday's papers are announced on Tuesday: as of a Monday, the week held none
    yet and read as no data, so every Monday's change switched to rates per day
    (308 against 308 read "+4%") and the chart said "no data" for the current week."""
    monday = D(2026, 6, 22)
    topic = spread(monday - timedelta(days=56), monday - timedelta(days=1), 56)
    store = merged(topic, spread(monday - timedelta(days=56), monday - timedelta(days=1), 560))
    result = m.measure(days(topic), days(store), as_of=monday)
    assert (result.current.count, result.previous.count) == (27, 28)  # none on Monday yet
    assert result.current.covered_days == result.previous.covered_days == 28
    assert result.change_pct == round(100 * (27 - 28) / 28) == -4  # PRODUCT.md's formula
    # Said, though: on a Monday most topics read "down", and nothing said why.
    assert (result.unlisted_days, result.newest_day) == (1, monday - timedelta(days=1))
    assert m.notes(result) == [
        "No paper is dated Jun 22, 2026 yet (arXiv lists papers a day or more after they "
        "are sent): the last four weeks count that day as none, so their figures read "
        "low. --as-of 2026-06-21 ends them at the newest paper."
    ]
    last = result.weeks[-1]
    assert (last.start, last.count, last.total, last.no_data) == (monday, 0, 0, False)
    assert result.to_dict()["weeks"][-1]["count"] == 0
    # A week after a week of nothing is still no data: the store stopped before.
    later = m.measure(days(topic), days(store), as_of=monday + timedelta(days=7))
    assert later.weeks[-1].no_data and later.weeks[-2].start == monday
    # So is the week from its Wednesday on: Monday's papers are in by then, and seven
    # days read as zeros as of a Sunday made a topic down 4% per day "down 27%".
    tuesday = m.measure(days(topic), days(store), as_of=monday + timedelta(days=1))
    assert not tuesday.weeks[-1].no_data and tuesday.current.covered_days == 28
    for late in range(2, 7):
        stopped = m.measure(days(topic), days(store), as_of=monday + timedelta(days=late))
        assert stopped.weeks[-1].no_data, late
        assert stopped.current.covered_days == 28 - late - 1
        assert m.notes(stopped)[0].startswith(f"No data for {late + 1} of the 28 days")


def test_partly_covered_windows_compare_papers_per_day_of_data() -> None:
    # The store starts on Mon Aug 17: the previous window (Aug 3 - Aug 30) has data for 14 days.
    topic = merged(spread(D(2026, 8, 17), D(2026, 8, 30), 10), spread(D(2026, 8, 31), SUNDAY, 40))
    store = merged(topic, spread(D(2026, 8, 17), SUNDAY, 420))
    result = m.measure(days(topic), days(store), as_of=SUNDAY)
    assert (result.current.count, result.previous.count) == (40, 10)
    assert (result.current.covered_days, result.previous.covered_days) == (28, 14)
    assert result.to_dict()["coverage"] == {"current": 1.0, "previous": 0.5}
    assert result.change_pct == 100  # 40 per 28 days against 10 per 14 days, not +300%
    assert m.describe(result).startswith(
        "40 papers in the last four weeks, up 100% per day of data on the"
    )
    assert m.notes(result) == [
        "No data for 14 of the 28 days of the four weeks before: "
        "the change compares papers per day of data."
    ]
    assert "no data (nothing ingested) for 6 of the 12 weeks shown" in m.footer(result)


def test_the_days_after_a_stopped_stores_last_paper_are_no_data() -> None:
    """A store whose last papers are of a Friday, measured weeks later: its Saturday
    and Sunday were counted as days of data, so four weeks holding no paper at all
    read "0 papers, down 100%", and one Friday a third of its rate."""
    friday = D(2026, 6, 26)
    topic = spread(friday - timedelta(days=60), friday, 61)
    store = merged(topic, spread(friday - timedelta(days=60), friday, 610))
    gone = m.measure(days(topic), days(store), as_of=friday + timedelta(days=28))
    assert (gone.current.count, gone.current.covered_days) == (0, 0)
    assert gone.change_pct is None
    assert m.describe(gone).startswith("No data for the last four weeks")
    # One day of data, the Friday: its papers per day against those before, and said
    # to be too little to call a trend.
    one = m.measure(days(topic), days(store), as_of=friday + timedelta(days=27))
    assert (one.current.count, one.current.covered_days, one.previous.covered_days) == (1, 1, 28)
    assert one.change_pct == 0 and one.little_data and one.to_dict()["little_data"]
    assert "Little data: only 1 day of data in the last four weeks" in " ".join(m.notes(one))
    # Within the week, once the next week is a gap (from its Wednesday), the weekend
    # after the last Friday is no data either: it read "-100%" a week after.
    for late, covered in ((5, 2), (7, 0)):  # Thursday and Friday; none
        week = m.measure(days(topic), days(store), as_of=friday + timedelta(days=late), window=1)
        assert week.current.covered_days == covered, late
    assert week.change_pct is None
    # As of the Monday after, the weekend and the Monday are zero so far, as for a
    # store that is current: its Monday's papers come on Tuesday.
    monday = m.measure(days(topic), days(store), as_of=friday + timedelta(days=3), window=1)
    assert monday.current.covered_days == 7
    # A store whose last papers are of a Wednesday has stopped, as of the Monday and
    # Tuesday after too: its Thursday and Friday hold nothing (-47% and -84% before).
    wednesday = friday - timedelta(days=2)
    early = {day: n for day, n in store.items() if day <= wednesday}
    for late, covered in ((5, 2), (6, 1)):  # Monday: Tuesday and Wednesday; Tuesday
        as_of = wednesday + timedelta(days=late)
        cut = m.measure(days(topic), days(early), as_of=as_of, window=1)
        assert cut.current.covered_days == covered, late


def test_a_window_with_under_a_week_of_data_ranks_after_the_others() -> None:
    # As of Monday Sep 28 the previous window is Aug 4 - Aug 31. A store from Monday
    # Aug 24 has 8 days of data in it; one from Monday Aug 31, that Monday alone.
    monday = SUNDAY + timedelta(days=1)
    for start, little in ((D(2026, 8, 24), False), (D(2026, 8, 31), True)):
        # 30 papers before against 300 now; 60 before against 200 now.
        grown = merged(spread(start, D(2026, 8, 31), 30), spread(D(2026, 9, 1), monday, 300))
        steady = merged(spread(start, D(2026, 8, 31), 60), spread(D(2026, 9, 1), monday, 200))
        store = merged(grown, steady, spread(start, monday, 1000))
        measured = [
            m.measure(days(t), days(store), as_of=monday, name=n)
            for t, n in ((grown, "grown"), (steady, "steady"))
        ]
        assert [r.little_data for r in measured] == [little, little]
        assert not any(r.low_count for r in measured)
        assert [r.name for r in m.rank(measured)] == ["grown", "steady"]
        if little:  # a Monday of data stands for four weeks: said, and ranked after
            assert "only 1 day of data in the four weeks before" in " ".join(m.notes(measured[0]))
            plain = example(20, 18, 100)  # a rise of 11% on whole windows ranks first
            assert [r.name for r in m.rank([*measured, plain])] == ["T", "grown", "steady"]


def test_no_data_at_all_in_a_window() -> None:
    topic = days(spread(D(2026, 9, 7), SUNDAY, 30))
    result = m.measure(topic, topic, as_of=SUNDAY)
    assert result.change_pct is None and result.previous.coverage == 0
    assert m.describe(result).startswith(
        "30 papers in the last four weeks; no data for the four weeks before."
    )
    later = m.measure(topic, topic, as_of=D(2027, 3, 1))
    assert later.share is None and later.current.coverage == 0
    assert m.describe(later) == (
        "No data for the last four weeks: the store holds no papers dated Feb 2 – Mar 1, 2027."
    )


def test_bad_window_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        m.measure({}, {}, as_of=SUNDAY, window=0)
    with pytest.raises(ValueError):
        m.measure({}, {}, as_of=D(1, 1, 20))


# --------------------------------------------------------------------------- trending, sparkline


def test_sparkline() -> None:
    assert m.sparkline([0, 1, 2, 3, 4, 5, 6, 7]) == "▁▂▃▄▅▆▇█"
    assert m.sparkline([None, 0, 14, 7]) == " ▁█▅"
    assert m.sparkline([0, 0]) == "▁▁" and m.sparkline([]) == ""


def test_rank_by_change_new_first_ties_by_count() -> None:
    store = spread(D(2026, 6, 1), SUNDAY, 5000)

    def topic(name: str, current: int, previous: int) -> m.Momentum:
        counts = merged(
            spread(D(2026, 8, 31), SUNDAY, current), spread(D(2026, 8, 3), D(2026, 8, 30), previous)
        )
        return m.measure(days(counts), days(merged(store, counts)), as_of=SUNDAY, name=name)

    ranked = m.rank([
        topic("flat", 10, 10), topic("none", 0, 0), topic("up small", 20, 10),
        topic("up big", 200, 100), topic("new", 2, 0), topic("down", 5, 10),
    ])  # fmt: skip
    # "new" (2 against 0) and "down" (5 against 10) are too few to call a trend: after
    # the others, new first among them.
    assert [r.name for r in ranked] == ["up big", "up small", "flat", "new", "down", "none"]
    assert [r.low_count for r in ranked] == [False, False, False, True, True, True]


def test_bars_have_eighths_and_a_sliver_for_one_paper() -> None:
    assert bar(10, 10, 4) == "████"
    assert bar(5, 10, 4) == "██"
    assert bar(1, 1000, 4) == "▏"
    assert bar(0, 10, 4) == ""


def test_momentum_block_renders_the_chart() -> None:
    result = example(54, 22, others=1000)
    console = Console(record=True, width=100, color_system=None)
    console.print(momentum_block(result, "T — momentum"))
    text = console.export_text()
    assert "54 papers in the last four weeks, up 145%" in text
    assert "Week of Sep 21" in text and "┐ last four weeks" in text
    assert "no data" not in text


# --------------------------------------------------------------------------- the index


def paper(pid: str, when: datetime, tags: tuple[str, ...] = ()) -> Paper:
    return Paper(arxiv_id=pid, title="t", published=when, tags=tags)


def test_index_keeps_days_in_step_with_weeks() -> None:
    index = Index()
    index.bump(paper("2609.00001", datetime(2026, 9, 30, 23, 59, tzinfo=UTC), ("a",)), +1)
    index.bump(paper("2609.00002", datetime(2026, 9, 28, 0, 0, tzinfo=UTC)), +1)
    index.bump(paper("2609.00003", datetime(2026, 9, 28, 5, 0, tzinfo=UTC), ("a",)), +1)
    index.bump(paper("2609.00003", datetime(2026, 9, 28, 5, 0, tzinfo=UTC), ("a",)), -1)
    index.bump(Paper(arxiv_id="x", title="undated"), +1)
    assert index.days["*"] == {"2026-09-28": [1, 0, 1, 0, 0, 0, 0]}
    assert index.days["a"] == {"2026-09-28": [0, 0, 1, 0, 0, 0, 0]}
    assert index.counts["*"] == {"2026-09-28": 2, "undated": 1}
    again = Index.from_tinydb(json.loads(json.dumps(index.to_tinydb())))
    assert again.days == index.days and again.counts == index.counts
    assert again.schema == SCHEMA == 3


# --------------------------------------------------------------------------- the commands

FIRST, LAST = D(2026, 7, 6), D(2026, 9, 30)
GAP = (D(2026, 7, 20), D(2026, 7, 26))  # a week in which nothing at all is ingested
TITLES = {
    "llm": ("Large language models for code review number {n}", "cs.CL"),
    "rl": ("Reinforcement learning for robot locomotion number {n}", "cs.RO"),
    "cv": ("Object detection in aerial images number {n}", "eess.IV"),
    "other": ("Soil erosion in alpine meadows number {n}", "physics.geo-ph"),
}


def planned() -> Iterator[tuple[datetime, str]]:
    """The papers of the test feed: (paper date, kind), known in advance.

    LLM: one a weekday to Aug 30, then three a day. RL: Tuesdays and Thursdays.
    CV: one a day from Sep 21 only. Others: ten a day. Nothing in the gap week.
    Times alternate 00:00:00 and 23:59:59 UTC, so day boundaries are tested too.
    """
    day = FIRST
    while day <= LAST:
        if not GAP[0] <= day <= GAP[1]:
            kinds: list[str] = ["other"] * 10
            if day >= D(2026, 8, 31):
                kinds += ["llm"] * 3
            elif day.weekday() < 5:
                kinds.append("llm")
            if day.weekday() in (1, 3):
                kinds.append("rl")
            if day >= D(2026, 9, 21):
                kinds.append("cv")
            for n, kind in enumerate(kinds):
                clock = (23, 59, 59) if n % 2 else (0, 0, 0)
                yield datetime(day.year, day.month, day.day, *clock, tzinfo=UTC), kind
        day += timedelta(days=1)


def write_feed(path: Path) -> Path:
    seq: Counter[str] = Counter()
    lines = []
    for when, kind in planned():
        yymm = when.strftime("%y%m")
        seq[yymm] += 1
        title, category = TITLES[kind]
        lines.append(json.dumps({
            "id": f"{yymm}.{seq[yymm]:05d}", "title": title.format(n=seq[yymm]),
            "authors": "Ada Lovelace, Alan Turing", "categories": category,
            "abstract": "We report measurements.", "versions": [
                {"version": "v1", "created": when.strftime("%a, %d %b %Y %H:%M:%S GMT")}],
        }))  # fmt: skip
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def expected(kind: str | None, as_of: date, window: int = 4) -> dict[str, int]:
    """The oracle: count the planned papers directly."""
    span = 7 * window
    dated = [(when.date(), k) for when, k in planned()]

    def count(first: date, last: date, want: str | None) -> int:
        return sum(first <= d <= last and (want is None or k == want) for d, k in dated)

    cur_first = as_of - timedelta(days=span - 1)
    prev_first = cur_first - timedelta(days=span)
    return {
        "current": count(cur_first, as_of, kind),
        "previous": count(prev_first, cur_first - timedelta(days=1), kind),
        "total_current": count(cur_first, as_of, None),
    }


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One store for the CLI tests, ingested once with the CLI."""
    root = tmp_path_factory.mktemp("momentum")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PAPERTRACK_HOME", str(root / "home"))
        feed = write_feed(root / "feed.jsonl")
        result = CliRunner().invoke(app, ["--db", str(root / "store"), "ingest", str(feed)])
    assert result.exit_code == 0, result.stderr
    assert f"papers: {sum(1 for _ in planned())} new" in result.stderr
    return root / "store"


def momentum_json(store_dir: Path, *args: str) -> dict[str, object]:
    result = run("--db", str(store_dir), "momentum", *args, "--json")
    assert result.exit_code == 0, result.stderr
    data: dict[str, object] = json.loads(result.stdout)
    return data


@pytest.mark.parametrize(
    ("as_of", "current", "previous", "change_pct", "total_current"),
    [
        # Sunday: Aug 31 - Sep 27 (28 days x 3) against Aug 3 - Aug 30 (20 weekdays)
        ("2026-09-27", 84, 20, 320, 84 + 8 + 7 + 280),
        # Wednesday: Sep 3 - Sep 30 against Aug 6 - Sep 2: cut weeks, exact to the day
        ("2026-09-30", 84, 17 + 3 * 3, 223, None),
        # Friday: Jul 4 - Jul 31 holds the gap week; Jun 6 - Jul 3 holds no data at all
        ("2026-07-31", 15, 0, None, None),
    ],
)
def test_momentum_json_numbers_at_several_dates(
    store_dir: Path,
    as_of: str,
    current: int,
    previous: int,
    change_pct: int | None,
    total_current: int | None,
) -> None:
    data = momentum_json(store_dir, "Large Language Models", "--as-of", as_of)
    want = expected("llm", D.fromisoformat(as_of))
    assert (data["current"], data["previous"]) == (want["current"], want["previous"])
    assert (data["current"], data["previous"]) == (current, previous)
    assert data["total_current"] == want["total_current"]
    if total_current is not None:
        assert data["total_current"] == total_current
    if change_pct is not None:
        assert data["change_pct"] == change_pct
    assert data["share"] == want["current"] / want["total_current"]
    assert data["topic"] == "large-language-models" and data["name"] == "Large Language Models"
    assert data["as_of"] == as_of and data["window_days"] == 28
    assert {"weeks", "low_count", "coverage"} <= set(data)


def test_an_as_of_after_today_is_measured_with_a_note(store_dir: Path) -> None:
    """A future --as-of is accepted, but its empty last weeks are said to be the future,
    not a topic gone quiet; a past one draws no note."""
    ahead = (m.today() + timedelta(days=30)).isoformat()
    result = run(
        "--db", str(store_dir), "momentum", "large-language-models", "--as-of", ahead, "--json"
    )
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["as_of"] == ahead
    assert "is after today" in result.stderr and "hold no papers yet" in result.stderr
    past = run(
        "--db",
        str(store_dir),
        "momentum",
        "large-language-models",
        "--as-of",
        "2026-09-16",
        "--json",
    )
    assert past.exit_code == 0 and past.stderr == ""
    site = store_dir.parent / "site"
    quiet = run("--db", str(store_dir), "site", "-o", str(site), "--as-of", ahead, "-q")
    assert quiet.exit_code == 0 and "after today" not in quiet.stderr
    # The topic lists count to --as-of as momentum does, and say so too.
    for words in (
        ("topics", "list"),
        ("topics", "show", "large-language-models"),
        ("topics", "test", "large-language-models"),
    ):
        listed = run("--db", str(store_dir), *words, "--as-of", ahead, "--json")
        assert listed.exit_code == 0, (words, listed.stderr)
        assert "is after today" in listed.stderr, words
        earlier = run("--db", str(store_dir), *words, "--as-of", "2026-09-16", "--json")
        assert earlier.exit_code == 0 and "after today" not in earlier.stderr, words


def test_momentum_mid_week_with_a_gap_compares_per_day(store_dir: Path) -> None:
    # Sep 16 (Wed): current Aug 20 - Sep 16; previous Jul 23 - Aug 19, of which Jul 23-26
    # fall in the gap week: 24 of its 28 days have data.
    data = momentum_json(store_dir, "large-language-models", "--as-of", "2026-09-16")
    want = expected("llm", D(2026, 9, 16))
    assert (data["current"], data["previous"]) == (want["current"], want["previous"]) == (58, 18)
    assert data["coverage"] == {"current": 1.0, "previous": 24 / 28}
    assert data["change_pct"] == round(100 * (58 * 24 - 18 * 28) / (18 * 28)) == 176
    assert data["notes"] == [
        "No data for 4 of the 28 days of the four weeks before: "
        "the change compares papers per day of data."
    ]


def test_momentum_window_option_and_weeks(store_dir: Path) -> None:
    data = momentum_json(
        store_dir,
        "reinforcement-learning",
        "--as-of",
        "2026-09-27",
        "--window",
        "2",
        "--weeks",
        "3",
    )
    want = expected("rl", D(2026, 9, 27), window=2)
    assert (data["current"], data["previous"]) == (want["current"], want["previous"]) == (4, 4)
    assert data["change_pct"] == 0 and data["low_count"] is True and data["window_days"] == 14
    assert data["summary"].startswith(  # type: ignore[union-attr]
        "4 papers in the last two weeks, unchanged from the two weeks before."
    )
    weeks = data["weeks"]
    assert isinstance(weeks, list)
    assert [(w["week_start"], w["count"], w["total"]) for w in weeks] == [
        ("2026-09-07", 2, 10 * 7 + 3 * 7 + 2),
        ("2026-09-14", 2, 10 * 7 + 3 * 7 + 2),
        ("2026-09-21", 2, 10 * 7 + 3 * 7 + 2 + 7),
    ]


def test_momentum_table_sentence_chart_and_footer(store_dir: Path) -> None:
    result = run(
        "--db", str(store_dir), "momentum", "Large Language Models", "--as-of", "2026-09-30"
    )
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "Large Language Models — momentum as of Sep 30, 2026" in out
    want = expected("llm", D(2026, 9, 30))
    assert f"{want['current']} papers in the last four weeks, up " in out
    lines = {line.split("  ")[0]: line for line in out.splitlines() if line.startswith("Week of")}
    assert list(lines) == [f"Week of {d}" for d in (
        "Jul 13", "Jul 20", "Jul 27", "Aug 3", "Aug 10", "Aug 17", "Aug 24", "Aug 31", "Sep 7",
        "Sep 14", "Sep 21", "Sep 28")]  # fmt: skip
    assert "no data" in lines["Week of Jul 20"] and "█" not in lines["Week of Jul 20"]
    assert lines["Week of Jul 13"].rstrip().endswith(" 5") and "█" in lines["Week of Jul 13"]
    assert re.search(r"█ +21 +│$", lines["Week of Sep 21"].rstrip())
    # Mon - Wed only: 9 of 21 is 17.1 of 40 cells
    assert re.search(r" █{17}▏ +9 +┘ so far$", lines["Week of Sep 28"].rstrip())
    # A chart of the one week so far: its bracket's first day and "so far" stay apart.
    args = ("momentum", "Large Language Models", "--as-of", "2026-09-30", "--weeks", "1")
    one = run("--db", str(store_dir), *args)
    (row,) = [line for line in one.stdout.splitlines() if line.startswith("Week of")]
    assert row.rstrip().endswith("◀ last four weeks, from Sep 3 (this week so far)"), row
    assert "┐ last four weeks" in lines["Week of Aug 31"]
    # The first bracketed bar counts days before the window: how many of its papers
    # the window counts is said, so the bracket adds up to the sentence.
    first = re.search(
        r"(\d+) +┐ last four weeks, from Sep 3: (\d+) of (\d+)$", lines["Week of Aug 31"]
    )
    assert first is not None and first[1] == first[3]
    later = [
        int(re.findall(r" (\d+) +[│┘]", lines[f"Week of {d}"])[0])
        for d in ("Sep 7", "Sep 14", "Sep 21", "Sep 28")
    ]
    assert int(first[2]) + sum(later) == want["current"]
    # A chart that does not show the week the window starts in says no count of its
    # first bar: "from May 28: 31 of 17" counted days no bar showed.
    short = run(
        "--db", str(store_dir), "momentum", "Large Language Models", "--as-of", "2026-09-30",
        "--weeks", "4",
    )  # fmt: skip
    bracket = next(line for line in short.stdout.splitlines() if "┐" in line)
    assert bracket.startswith("Week of Sep 7") and bracket.rstrip().endswith("from Sep 3")
    assert "last four weeks" not in lines["Week of Aug 24"]
    assert lines["Week of Sep 7"].count("█") == 40  # the largest week: the whole width
    assert "█" * 9 + "▌ " in lines["Week of Aug 24"]  # 5/21 of 40 cells = 9.52
    footer = (
        f"of {want['total_current']:,} papers ingested with a paper date in the last four weeks"
    )
    assert footer in " ".join(out.split())
    assert "(Sep 3 – Sep 30, 2026)" in out
    assert "\x1b" not in out


def test_momentum_as_of_before_any_data_and_empty_store(store_dir: Path, tmp_path: Path) -> None:
    result = run(
        "--db", str(store_dir), "momentum", "Large Language Models", "--as-of", "2026-06-01"
    )
    assert result.exit_code == 0
    assert "No data for the last four weeks" in result.stdout
    assert sum("no data" in line for line in result.stdout.splitlines() if "Week of" in line) == 12
    missing = run("--db", str(tmp_path / "none"), "momentum", "Large Language Models", "--json")
    assert missing.exit_code == 1 and missing.stdout == ""
    assert "Error: no store at" in missing.stderr
    (tmp_path / "none").mkdir()
    empty = run("--db", str(tmp_path / "none"), "momentum", "Large Language Models", "--json")
    assert empty.exit_code == 0 and json.loads(empty.stdout)["current"] == 0
    assert "No papers in the store yet" in empty.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["momentum", "no-such-topic"], "Error: no topic named 'no-such-topic'"),
        (
            ["momentum", "Large Language Models", "--as-of", "someday soon"],
            "Error: can't read --as-of",
        ),
        (
            ["momentum", "Large Language Models", "--window", "0"],
            "Error: --window 0 is not a number of weeks",
        ),
        (["trending", "--weeks", "-1"], "Error: --weeks -1 is not a number of weeks"),
        (["momentum", "gui-agents", "--weeks", "100000"], "Error: --weeks 100,000 is more weeks"),
        (["topic", "gui-agents", "--window", "2001"], "Error: --window 2,001 is more weeks"),
        (["topic", "Large Language Models", "--window", "0"], "Error: --window 0"),
        (
            ["momentum", "Large Language Models", "--as-of", "0001-01-10"],
            "Error: --as-of 0001-01-10",
        ),
        (["trending", "--as-of", "9999-12-31"], "Error: --as-of 9999-12-31"),
    ],
)
def test_usage_errors_exit_2_without_traceback(args: list[str], message: str) -> None:
    result = run(*args)
    assert result.exit_code == 2, result.stdout
    assert result.stderr.startswith(message), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stdout + result.stderr


def test_trending_orders_topics_and_min_hides(store_dir: Path) -> None:
    db = ["--db", str(store_dir)]
    rows = json.loads(run(*db, "trending", "--as-of", "2026-09-27", "--json").stdout)
    order = [r["topic"] for r in rows]
    # Computer vision is new, but with 7 papers too few to call a trend: it ranks
    # after large language models' 84 against 20.
    assert order[:3] == ["large-language-models", "computer-vision", "reinforcement-learning"]
    assert [r["change_pct"] for r in rows[:3]] == [320, None, 0]
    assert rows[1]["current"] == 7 and rows[1]["previous"] == 0
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))
    assert all(r["current"] == 0 for r in rows[3:])
    assert rows[0]["sparkline"][-1] == "█" and " " in rows[0]["sparkline"]  # the gap week

    shown = run(*db, "trending", "--as-of", "2026-09-27", "--min", "10", "--json")
    assert [r["topic"] for r in json.loads(shown.stdout)] == ["large-language-models"]
    # Said, on stderr: the one topic left read as all there are.
    left_out = len(rows) - 1
    assert (
        f"{left_out} topics with fewer than 10 papers in the window are left out (--min 10)."
    ) in shown.stderr
    assert "left out" not in run(*db, "trending", "--as-of", "2026-09-27").stderr
    # -n: the fastest growing N, in the same order, with their ranks, and said.
    top = run(*db, "trending", "--as-of", "2026-09-27", "-n", "2", "--json")
    assert json.loads(top.stdout) == rows[:2]
    assert "The top" not in top.stdout + top.stderr  # a script's JSON, alone
    # In a table, said under the rows, as latest and search say theirs.
    two = run(*db, "trending", "--as-of", "2026-09-27", "-n", "2")
    said = f"The top 2 of {len(rows)} topics (-n sets how many)."
    assert two.stdout.rstrip().splitlines()[-1] == said and not two.stderr
    both = run(*db, "trending", "--as-of", "2026-09-27", "--min", "1", "-n", "1", "-f", "csv")
    assert [line.split(",")[1] for line in both.stdout.splitlines()[1:]] == [order[0]]
    assert "left out (--min 1)" in both.stderr
    one = run(*db, "trending", "--as-of", "2026-09-27", "--min", "1", "-n", "1")
    assert "The top 1 of 3 topics" in one.stdout and "left out (--min 1)" in one.stderr
    assert "The top" not in run(*db, "trending", "--as-of", "2026-09-27", "-n", "99").stdout

    table = run(*db, "trending", "--as-of", "2026-09-27")
    assert table.exit_code == 0
    assert "the week so far" not in table.stdout  # a Sunday: every week whole
    # Mid-week, the sparklines' last mark is the week so far, and the table says so
    # (a Tuesday's two days read as a collapse).
    midweek = run(*db, "trending", "--as-of", "2026-09-29")
    assert "Weeks: a mark a week; the last, Sep 28 – Sep 29, is the week so far" in midweek.stdout
    assert (
        "the last, Sep 28, is the week so far"
        in run(*db, "trending", "--as-of", "2026-09-28").stdout
    )
    # A week with no data is no week so far (the store stopped).
    stopped = run(*db, "trending", "--as-of", "2026-10-07")
    assert "the week so far" not in stopped.stdout
    lines = [line for line in table.stdout.splitlines() if "│" in line]
    assert "Large Language Models" in lines[0] and "+320%" in lines[0]
    assert "Computer Vision" in lines[1] and "new*" in lines[1]
    csv_out = run(*db, "trending", "--as-of", "2026-09-27", "-f", "csv", "--min", "1")
    assert csv_out.stdout.splitlines()[0].startswith("rank,topic,name,current,previous")
    assert csv_out.stdout.splitlines()[1].startswith(
        "1,large-language-models,Large Language Models,84,20,320,"
    )
    # Each row says its day and window: a weekly CSV appended by cron told them apart.
    assert csv_out.stdout.splitlines()[0].endswith(
        ",sparkline,as_of,window_days,little_data,coverage_current,coverage_previous"
    )
    assert csv_out.stdout.splitlines()[1].endswith(",2026-09-27,28,false,1.0,1.0")
    jsonl = run(*db, "trending", "--as-of", "2026-09-27", "-f", "jsonl", "--min", "1")
    assert [json.loads(line)["topic"] for line in jsonl.stdout.splitlines()] == order[:3]
    nothing = run(*db, "trending", "--as-of", "2026-09-27", "--min", "1000")
    assert nothing.exit_code == 0 and "Lower --min" in nothing.stderr


def test_topic_page_shows_momentum_above_latest_papers(store_dir: Path) -> None:
    db = ["--db", str(store_dir)]
    result = run(*db, "topic", "Reinforcement Learning", "--as-of", "2026-09-27", "-n", "3")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    want = expected("rl", D(2026, 9, 27))
    sentence = (
        f"{want['current']} papers in the last four weeks, unchanged from the four weeks before."
    )
    assert out.index("Reinforcement Learning") < out.index(sentence) < out.index("Week of Sep 21")
    total = sum(1 for when, k in planned() if k == "rl" and when.date() <= D(2026, 9, 27))
    assert out.index("Week of Sep 21") < out.index(f"Latest papers ({total})")
    assert "Sep 24, 2026" in out and "Sep 29, 2026" not in out  # nothing after --as-of
    # Three of them: said, so the heading's count is not read as the list's.
    assert total > 3 and f"The newest 3 of {total} (-n sets how many)." in out
    everything = run(*db, "topic", "Reinforcement Learning", "--as-of", "2026-09-27", "-n", "500")
    assert "The newest" not in everything.stdout
    data = json.loads(
        run(
            *db, "topic", "reinforcement learning", "--as-of", "2026-09-27", "-n", "3", "--json"
        ).stdout
    )
    assert data["momentum"]["current"] == want["current"] and data["papers_total"] == total
    assert [p["paper_date"][:10] for p in data["papers"]] == [
        "2026-09-24",
        "2026-09-22",
        "2026-09-17",
    ]


def test_momentum_reads_only_the_index(store_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("momentum must not open week files")

    monkeypatch.setattr(Store, "read_partition", refuse)
    monkeypatch.setattr(Store, "_search_partition", refuse)
    for args in (
        ["momentum", "Large Language Models"],
        ["trending"],
        ["momentum", "reinforcement-learning", "--json"],
    ):
        result = run("--db", str(store_dir), *args, "--as-of", "2026-09-27")
        assert result.exit_code == 0, result.stderr


def test_an_index_of_the_previous_schema_is_rebuilt(tmp_path: Path) -> None:
    feed = write_feed(tmp_path / "feed.jsonl")
    db = ["--db", str(tmp_path / "store")]
    assert run(*db, "ingest", str(feed)).exit_code == 0
    before = momentum_json(tmp_path / "store", "large-language-models", "--as-of", "2026-09-30")
    index_path = tmp_path / "store" / "index.json"
    old = json.loads(index_path.read_text())
    for doc in old["counts"].values():
        del doc["days"]  # what papertrack 0.1 wrote: weekly counts only, schema 1
    old["meta"]["1"]["schema"] = 1
    index_path.write_text(json.dumps(old))
    assert Store(tmp_path / "store").index_outdated()
    after = momentum_json(tmp_path / "store", "large-language-models", "--as-of", "2026-09-30")
    assert after == before
    assert json.loads(index_path.read_text())["meta"]["1"]["schema"] == SCHEMA
    assert not Store(tmp_path / "store").index_outdated()


@pytest.mark.parametrize(("behind", "shifted"), [(3, False), (7, False), (8, True), (23, True)])
def test_a_store_more_than_a_week_behind_is_measured_at_its_newest_paper(
    tmp_path: Path, behind: int, shifted: bool
) -> None:
    """A window that ran past the newest paper counted days the store knows nothing of:
    three weeks behind, four weeks to today were 3 days of data against 28, and every
    topic read as a drop of 50-90%. More than a week behind, the views measure at the
    newest paper's day and say so; a few days behind (a weekend) is current."""
    newest = m.today() - timedelta(days=behind)
    lines = []
    for n in range(70):
        day = newest - timedelta(days=n)
        created = datetime(day.year, day.month, day.day, 12, tzinfo=UTC)
        lines.append(
            kaggle_line(
                f"{day:%y%m}.{n + 1:05d}",
                "Language model agents",
                versions=[{"version": "v1", "created": created.strftime("%a, %d %b %Y %X GMT")}],
            )
        )
    feed = tmp_path / "feed.jsonl"
    feed.write_text("\n".join(lines) + "\n", encoding="utf-8")
    store = tmp_path / "store"
    assert run("--db", str(store), "ingest", str(feed)).exit_code == 0
    for command in (["momentum", "large-language-models"], ["trending"], ["topics"]):
        result = run("--db", str(store), *command, "--json")
        assert result.exit_code == 0, result.stderr
        data = json.loads(result.stdout)
        first = data if isinstance(data, dict) else data[0]
        assert first["as_of"] == (newest if shifted else m.today()).isoformat(), command
        noted = "Note: the newest paper in the store is from" in result.stderr
        assert noted is shifted, (command, result.stderr)
    counted = momentum_json(store, "large-language-models")
    if shifted:  # one paper a day, every day: four full weeks against four full weeks
        assert (counted["current"], counted["previous"], counted["change_pct"]) == (28, 28, 0)
    # A span given to --as-of counts back from the same day: '1 week ago' from today
    # on a store months behind showed every week as "no data".
    for command in (["momentum", "large-language-models"], ["trending"], ["topics"]):
        result = run("--db", str(store), *command, "--json", "--as-of", "1 week ago")
        assert result.exit_code == 0, result.stderr
        data = json.loads(result.stdout)
        first = data if isinstance(data, dict) else data[0]
        anchor = newest if shifted else m.today()
        assert first["as_of"] == (anchor - timedelta(days=7)).isoformat(), command
        noted = "--as-of '1 week ago' counts back from it" in result.stderr
        assert noted is shifted, (command, result.stderr)


def test_a_digest_of_a_store_behind_measures_momentum_as_the_other_views_do(
    sample_home: Path,
) -> None:
    """As of today, a store months behind read "LLM Agent Training (8 new papers)"
    over "No data for the last four weeks", where every other view measured as of
    its newest paper."""
    assert run("follow", "llm-agent-training").exit_code == 0
    done = run("digest", "--since", "2026-06-20", "--json", "--dry-run")
    assert done.exit_code == 0, done.stderr
    assert "days ago" in done.stderr  # the stale store is warned of, as before
    section = json.loads(done.stdout)["topics"][0]
    page = json.loads(run("momentum", "llm-agent-training", "--json").stdout)
    assert section["momentum"]["as_of"] == page["as_of"] == "2026-06-26"
    assert section["momentum"]["current"] == page["current"] > 0
    # Said as of which day: "the last four weeks" read as the four weeks to today.
    assert section["momentum_text"].startswith(f"As of Jun 26, 2026: {page['summary']}")


def test_a_change_between_windows_of_unlike_days_of_data_says_it_is_per_day() -> None:
    """'76 papers in the last four weeks, up 17% on the four weeks before' with 79 in
    them: the windows compare per day of data, and the last one had five days fewer;
    only a note below said so."""
    topic = merged(  # a week without any paper (Sep 7-13) in the last four weeks
        spread(D(2026, 8, 31), D(2026, 9, 6), 26),
        spread(D(2026, 9, 14), SUNDAY, 50),
        spread(D(2026, 8, 3), D(2026, 8, 30), 79),
    )
    store = merged(topic, spread(D(2026, 6, 1), D(2026, 8, 2), 500))
    result = m.measure(days(topic), days(store), as_of=SUNDAY, topic="t", name="T")
    assert result.current.covered_days == 21 and result.previous.covered_days == 28
    assert m.describe(result).startswith(
        "76 papers in the last four weeks, up 28% per day of data on the four weeks before."
    )
    # Counts that point the same way as the rates are still compared per day, and say so
    # ("58 papers, down 2%" with 79 before read as a sum gone wrong).
    same = merged(
        spread(D(2026, 8, 31), D(2026, 9, 6), 40),
        spread(D(2026, 9, 14), SUNDAY, 50),
        spread(D(2026, 8, 3), D(2026, 8, 30), 79),
    )
    both = m.measure(days(same), days(same), as_of=SUNDAY, topic="t", name="T")
    assert both.current.covered_days == 21
    assert ", up 52% per day of data on the four weeks before." in m.describe(both)
    # Windows with the same days of data compare their counts, and say nothing more.
    even = m.measure(days(topic), days(merged(topic, store)), as_of=SUNDAY - timedelta(days=28),
                     topic="t", name="T")  # fmt: skip
    assert "per day of data" not in m.describe(even)


def test_trending_on_an_empty_store_says_so_and_shows_no_ranking(isolated_home: Path) -> None:
    """A first `papertrack trending` showed 20 rows of "no data", numbered 1 to 20 as
    if ranked; a script still gets every topic's row."""
    table = run("trending")
    assert table.exit_code == 0 and table.stdout == ""
    assert table.stderr.startswith("No papers in the store yet. Run 'papertrack ingest FILE'")
    rows = json.loads(run("trending", "--json").stdout)
    assert len(rows) == 20 and all(r["current"] == 0 for r in rows)
