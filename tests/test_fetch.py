"""papertrack fetch against a real HTTP server on 127.0.0.1 replaying recorded arXiv answers.

The API pages are cut from a recorded 100-entry API page (same result set, rewritten
opensearch counters); failures arXiv is known for (429s, 503s, empty pages, cut-off
bodies) are injected in front of the good answer.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from helpers import run
from pytest_httpserver import HTTPServer
from typer.testing import Result
from werkzeug import Request, Response

from papertrack import __version__
from papertrack.fetch import (
    FetchError,
    FetchProgress,
    FetchSettings,
    _resume_plan,
    api_query,
    fetch_range,
)
from papertrack.paths import default_topics_file, store_dir
from papertrack.store import Store
from papertrack.topics import Catalog
from tests.helpers import error_line, run_in_pty

DATA = Path(__file__).parent / "data"
RECORDED = DATA / "api-atom" / "arxiv.py-2026-recorded"
API_PAGE = RECORDED / "q_testing_s0_m100_cfe7536492ca.xml"
API_ERROR = RECORDED / "id_abc_s0_m100_b79c8dcf6bc3.xml"
LISTING = DATA / "rss" / "atom-cs.AI-2025-08-20.first86.xml"
TRUNCATED = DATA / "rss" / "atom-cs.AI-2025-08-20.TRUNCATED.xml"
INTERVAL = 0.05

_RAW = API_PAGE.read_text(encoding="utf-8")
_HEAD = _RAW[: _RAW.index("<entry>")]
ENTRIES = re.findall(r"<entry>.*?</entry>", _RAW, flags=re.S)


def api_page(start: int, size: int, total: int, entries: list[str] | None = None) -> bytes:
    """A page of the recorded result set, as arXiv would serve it at ``start``."""
    head = re.sub(r"(<opensearch:totalResults>)\d+", rf"\g<1>{total}", _HEAD)
    head = re.sub(r"(<opensearch:startIndex>)\d+", rf"\g<1>{start}", head)
    head = re.sub(r"(<opensearch:itemsPerPage>)\d+", rf"\g<1>{size}", head)
    chosen = ENTRIES[start : min(start + size, total)] if entries is None else entries
    return (head + "\n".join(chosen) + "\n</feed>\n").encode()


def ids(entries: list[str]) -> set[str]:
    return {re.search(r"abs/([^<]+?)v\d+</id>", e)[1] for e in entries}  # type: ignore[index]


class FakeArxiv:
    """The API at /api/query: TOTAL results in pages; ``faults[start]`` answered first."""

    def __init__(self, server: HTTPServer, total: int = 25) -> None:
        self.total = total
        self.faults: dict[int, list[Callable[[int, int], Response]]] = {}
        self.calls: list[tuple[float, dict[str, str]]] = []
        server.expect_request("/api/query").respond_with_handler(self.handle)
        self.url = server.url_for("/api/query")

    def handle(self, request: Request) -> Response:
        args = dict(request.args.items())
        self.calls.append((time.monotonic(), args))
        start, size = int(args["start"]), int(args["max_results"])
        pending = self.faults.get(start)
        if pending:
            return pending.pop(0)(start, size)
        return Response(api_page(start, size, self.total), content_type="application/atom+xml")

    def starts(self) -> list[int]:
        return [int(args["start"]) for _, args in self.calls]

    def queries(self) -> list[str]:
        return [args.get("search_query", "") for _, args in self.calls]


def status(code: int, headers: dict[str, str] | None = None) -> Callable[[int, int], Response]:
    return lambda _s, _n: Response("Rate exceeded.", status=code, headers=headers or {})


def empty_page(total: int) -> Callable[[int, int], Response]:
    return lambda start, size: Response(api_page(start, size, total, entries=[]))


def cut_off(total: int) -> Callable[[int, int], Response]:
    def respond(start: int, size: int) -> Response:
        whole = api_page(start, size, total)
        return Response(whole[: len(whole) * 2 // 3])

    return respond


def fetch_api(api_url: str, *extra: str) -> Result:
    return run(
        "fetch", "-c", "cs.AI", "-c", "cs.CL", "--since", "2026-08-01", "--page-size", "10",
        "--interval", str(INTERVAL), "--api-url", api_url, *extra,
    )  # fmt: skip


def stored() -> list[dict[str, Any]]:
    result = run("latest", "--json", "-n", "1000")
    assert result.exit_code == 0, result.stderr
    papers: list[dict[str, Any]] = json.loads(result.stdout)
    return papers


def assert_polite(times: list[float], interval: float = INTERVAL) -> None:
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    # The server sees a request a little after the client's throttle let it go.
    assert all(gap >= interval * 0.9 for gap in gaps), gaps


def test_query_format_follows_the_user_manual() -> None:
    query = api_query(["cs.AI", "cs.CL"], date(2026, 8, 1), date(2026, 8, 7))
    assert query == "(cat:cs.AI OR cat:cs.CL) AND submittedDate:[202608010000 TO 202608072359]"
    assert api_query(["cs.AI"], date(2026, 8, 1), date(2026, 8, 1)).startswith("cat:cs.AI AND")


def test_backfill_pages_through_every_result_once(httpserver: HTTPServer) -> None:
    api = FakeArxiv(httpserver)
    result = fetch_api(api.url)
    assert result.exit_code == 0, result.stderr
    assert result.stderr.strip() == "cs.AI, cs.CL: 25 new, 0 updated, 0 unchanged"
    assert api.starts() == [0, 10, 20]
    args = api.calls[0][1]
    assert args["search_query"] == (
        f"(cat:cs.AI OR cat:cs.CL) AND submittedDate:[202608010000 TO {date.today():%Y%m%d}2359]"
    )
    assert (args["sortBy"], args["sortOrder"], args["max_results"]) == (
        "submittedDate", "ascending", "10",
    )  # fmt: skip
    raw = httpserver.log[0][0].query_string.decode()
    assert "submittedDate:[202608010000+TO+" in raw and "%28cat:cs.AI+OR+cat:cs.CL%29" in raw
    assert all(
        r.headers["User-Agent"].startswith(f"papertrack/{__version__}") for r, _ in httpserver.log
    )
    papers = stored()
    assert len(papers) == 25 and {p["arxiv_id"] for p in papers} == ids(ENTRIES[:25])
    again = fetch_api(api.url)
    assert "0 new, 0 updated, 25 unchanged" in again.stderr
    assert len(stored()) == 25
    assert not (Path(os.environ["PAPERTRACK_HOME"]) / "fetch-checkpoint.json").exists()


def test_429_then_503_with_retry_after_then_empty_then_cut_off_are_retried(
    httpserver: HTTPServer,
) -> None:
    api = FakeArxiv(httpserver)
    api.faults[0] = [status(429)]
    api.faults[10] = [status(503, {"Retry-After": "1"}), empty_page(25)]
    api.faults[20] = [cut_off(25)]
    result = fetch_api(api.url)
    assert result.exit_code == 0, result.stderr
    assert "cs.AI, cs.CL: 25 new, 0 updated, 0 unchanged, 3 pages retried" in result.stderr
    assert api.starts() == [0, 0, 10, 10, 10, 20, 20]
    times = [t for t, _ in api.calls]
    assert times[3] - times[2] >= 0.95  # Retry-After: 1 was honoured
    assert_polite(times)
    papers = stored()
    assert len(papers) == len({p["arxiv_id"] for p in papers}) == 25


def test_the_interval_counts_from_the_end_of_the_answer_before(httpserver: HTTPServer) -> None:
    """A slow page is followed by the whole interval before the next request: counted
    from when a request was let go, the next one followed a slow answer at once, and
    the gap arXiv saw was shorter than the interval when the first reached it late."""
    api = FakeArxiv(httpserver)
    ended: list[float] = []

    def slow(start: int, size: int) -> Response:
        time.sleep(0.5)
        ended.append(time.monotonic())  # the answer is written after this
        return Response(api_page(start, size, api.total), content_type="application/atom+xml")

    api.faults[0] = [slow]
    result = fetch_api(api.url, "--interval", "1")
    assert result.exit_code == 0, result.stderr
    times = [t for t, _ in api.calls]
    assert api.starts() == [0, 10, 20]
    assert times[1] - ended[0] >= 1.0  # the whole interval after the slow answer
    assert_polite(times, 1.0)


def test_interval_zero_keeps_a_backoff_between_retries(
    httpserver: HTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--interval 0 (a mirror of one's own) also made the first backoff 0: a failing
    server was asked again within a hundredth of a second, then 0.02 s, ..."""
    monkeypatch.delenv("PAPERTRACK_FETCH_BACKOFF")
    api = FakeArxiv(httpserver, total=5)
    api.faults[0] = [status(503)]
    result = fetch_api(api.url, "--interval", "0")
    assert result.exit_code == 0, result.stderr
    waited = re.search(r"Retrying in (\d+\.\d) s: HTTP 503", result.stderr)
    assert waited is not None, result.stderr
    assert 0.5 <= float(waited[1]) <= 1.0  # 1 s, half of it jitter
    # Asked for, no wait at all.
    monkeypatch.setenv("PAPERTRACK_FETCH_BACKOFF", "0")
    api.faults[0] = [status(503)]
    again = fetch_api(api.url, "--interval", "0", "--since", "2026-08-01")
    assert "Retrying in 0.0 s: HTTP 503" in again.stderr
    bad = fetch_api(api.url, "--backoff", "nan")
    error_line(bad, 2, "backoff nan is not a number of seconds")


def test_exhausted_retries_keep_earlier_pages_and_a_rerun_resumes(httpserver: HTTPServer) -> None:
    api = FakeArxiv(httpserver)
    api.faults[20] = [status(503)] * 3
    result = fetch_api(api.url, "--retries", "2")
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    # Each retry is said (a long wait is never silent), then the one error line.
    # A wait under ten seconds is said in tenths: "0 s" read as no wait at all.
    assert len(lines) == 3
    assert all(
        re.fullmatch(r"Retrying in 0\.\d s: HTTP 503 \(Rate exceeded\.\)\.", x) for x in lines[:2]
    )
    assert lines[-1].startswith("Error: arXiv kept answering HTTP 503")
    assert "run the same command again to resume" in result.stderr
    assert "Traceback" not in result.stderr
    assert len(stored()) == 20
    assert api.starts() == [0, 10, 20, 20, 20]
    # Tried once (--retries 0): answered, not "kept answering".
    api.faults[20] = [status(503)]  # where the next run resumes
    once = fetch_api(api.url, "--retries", "0")
    error_line(once, 1, "Error: arXiv answered HTTP 503", "after 1 try")
    api.calls.clear()
    again = fetch_api(api.url)
    assert again.exit_code == 0, again.stderr
    assert api.starts() == [20]  # finished pages are not fetched again
    # Said first, before the pages it fetches (at the end, a long backfill's user
    # learned it only when done).
    assert again.stderr.startswith("Resuming after 2 pages fetched by an earlier run.")
    assert "5 new" in again.stderr
    assert len(stored()) == 25


def test_an_http_400_error_feed_is_reported_not_retried(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/api/query").respond_with_data(
        API_ERROR.read_bytes(), status=400, content_type="application/atom+xml"
    )
    result = fetch_api(httpserver.url_for("/api/query"))
    assert result.exit_code == 1
    assert "incorrect id format for abc" in result.stderr
    assert len(httpserver.log) == 1


def _settings(home: Path, url: str) -> FetchSettings:
    return FetchSettings(home=home, api_url=url, page_size=10, interval=INTERVAL)


def _upsert(store: Store) -> Callable[[list[Any]], Any]:
    catalog = Catalog.load(default_topics_file())

    def upsert(papers: list[Any]) -> Any:
        with store.writer(catalog) as writer:
            return writer.upsert(papers)

    return upsert


def stop_after_first_page(event: FetchProgress) -> None:
    """A progress callback that plays Ctrl-C once the first page is stored."""
    if event.pages == 1 and event.retry is None:
        raise KeyboardInterrupt


def test_interrupted_backfill_resumes_where_it_stopped(
    httpserver: HTTPServer, isolated_home: Path
) -> None:
    api = FakeArxiv(httpserver)
    store = Store(store_dir())
    settings = _settings(isolated_home, api.url)

    window = (date(2026, 8, 1), date(2026, 8, 7))
    with pytest.raises(KeyboardInterrupt):
        fetch_range(["cs.AI"], *window, _upsert(store), settings, progress=stop_after_first_page)
    assert api.starts() == [0]
    report = fetch_range(["cs.AI"], *window, _upsert(store), settings)
    assert api.starts() == [0, 10, 20]
    assert (report.resumed_at, report.pages, report.new) == (1, 2, 15)
    assert store.count() == 25


def _stopped_backfill(
    httpserver: HTTPServer, home: Path, window: tuple[date, date], run: str
) -> tuple[FakeArxiv, Store, FetchSettings]:
    """A backfill of ``window`` (range option ``run``) stopped after its first page."""
    api = FakeArxiv(httpserver)
    store = Store(store_dir())
    settings = _settings(home, api.url)
    with pytest.raises(KeyboardInterrupt):
        fetch_range(
            ["cs.AI"], *window, _upsert(store), settings, progress=stop_after_first_page, run=run
        )
    return api, store, settings


def test_a_checkpoint_an_older_papertrack_kept_is_resumed_by_the_same_range_option(
    httpserver: HTTPServer, isolated_home: Path
) -> None:
    """Checkpoints were keyed without the range option ("--backfill 1") before: after
    an upgrade, a stopped backfill started again at its first page, and its
    checkpoint stayed in the file for good."""
    window = (date(2026, 8, 1), date(2026, 8, 7))
    api, store, settings = _stopped_backfill(httpserver, isolated_home, window, "--backfill 1")
    path = isolated_home / "fetch-checkpoint.json"
    kept = json.loads(path.read_text(encoding="utf-8"))
    ((key, state),) = kept.items()
    assert key.endswith(" --backfill 1")
    path.write_text(json.dumps({key.removesuffix(" --backfill 1"): state}), encoding="utf-8")
    # Another range option (a nightly --days 1) does not take it over.
    fetch_range(
        ["cs.AI"], date(2026, 8, 7), date(2026, 8, 7), _upsert(store), settings, run="--days 1"
    )
    assert len(json.loads(path.read_text(encoding="utf-8"))) == 1
    api.calls.clear()
    report = fetch_range(
        ["cs.AI"], date(2026, 8, 2), date(2026, 8, 8), _upsert(store), settings,
        run="--backfill 1",
    )  # fmt: skip
    assert report.resumed_at == 1
    assert api.starts()[:2] == [10, 20]  # where the older papertrack stopped
    assert not path.exists()


def test_a_backfill_resumed_on_a_later_day_skips_what_was_finished(
    httpserver: HTTPServer, isolated_home: Path
) -> None:
    """--days/--backfill end today: a rerun after midnight asks for a moved range."""
    api = FakeArxiv(httpserver)
    store = Store(store_dir())
    settings = _settings(isolated_home, api.url)

    with pytest.raises(KeyboardInterrupt):
        fetch_range(
            ["cs.AI"], date(2026, 8, 1), date(2026, 8, 7), _upsert(store), settings,
            progress=stop_after_first_page,
        )  # fmt: skip
    report = fetch_range(["cs.AI"], date(2026, 8, 2), date(2026, 8, 8), _upsert(store), settings)
    queries = api.queries()
    # the interrupted window continues at result 10 with the same query (no page is
    # fetched twice), then only the new day 08-08 is fetched
    assert api.starts() == [0, 10, 20, 0, 10, 20]
    assert all("202608010000 TO 202608072359" in q for q in queries[:3])
    assert all("202608080000 TO 202608082359" in q for q in queries[3:])
    assert report.resumed_at == 1
    assert not (isolated_home / "fetch-checkpoint.json").exists()


def test_a_nightly_days_run_leaves_a_stopped_backfill_to_resume(
    httpserver: HTTPServer, isolated_home: Path
) -> None:
    """The checkpoint was keyed by categories alone: a nightly --days 1 after a stopped
    --backfill fetched the backfill's window instead of its own days, then deleted
    the backfill's checkpoint, so the backfill started over."""
    backfill = (date(2026, 7, 11), date(2026, 8, 7))
    api, store, settings = _stopped_backfill(httpserver, isolated_home, backfill, "--backfill 4")
    api.calls.clear()
    nightly = fetch_range(
        ["cs.AI"], date(2026, 8, 6), date(2026, 8, 7), _upsert(store), settings, run="--days 1"
    )
    assert nightly.resumed_at is None
    assert all("202608060000 TO 202608072359" in q for q in api.queries())
    api.calls.clear()
    resumed = fetch_range(["cs.AI"], *backfill, _upsert(store), settings, run="--backfill 4")
    assert resumed.resumed_at == 1
    assert api.starts()[0] == 10  # on from the page it stopped after
    assert all("202607110000 TO 202608072359" in q for q in api.queries())
    assert not (isolated_home / "fetch-checkpoint.json").exists()


def test_the_same_fetch_running_elsewhere_is_left_to_finish(
    httpserver: HTTPServer, isolated_home: Path
) -> None:
    """Cron firing while last night's long fetch still ran: the second run took the
    live checkpoint for a stopped one and asked for every page left a second time."""
    from papertrack.fetch import FetchRunning

    api = FakeArxiv(httpserver)
    store = Store(store_dir())
    settings = _settings(isolated_home, api.url)
    window = (date(2026, 7, 11), date(2026, 8, 7))
    seen: list[str] = []

    def second_run(_progress: object) -> None:
        if seen:
            return
        with pytest.raises(FetchRunning) as running:
            fetch_range(["cs.AI"], *window, _upsert(store), settings, run="--days 28")
        seen.append(str(running.value))
        # Another range is another fetch: it runs beside this one.
        fetch_range(["cs.AI"], date(2026, 8, 6), date(2026, 8, 7), _upsert(store), settings,
                    run="--days 1")  # fmt: skip

    first = fetch_range(
        ["cs.AI"], *window, _upsert(store), settings, progress=second_run, run="--days 28"
    )
    assert first.resumed_at is None and first.pages > 1
    assert seen == [
        "the same fetch is already running in another papertrack process, which will "
        "store what this one would. Let it finish"
    ]
    # Once it is done, the same fetch runs again.
    assert fetch_range(["cs.AI"], *window, _upsert(store), settings, run="--days 28").pages


def test_resume_plan_arithmetic() -> None:
    d = date.fromisoformat
    state = {"range": ["2026-08-01", "2026-08-31"], "windows": [["2026-08-16", "2026-08-31"]]}
    state |= {"start": 40, "pages": 3}
    # same range: continue the pending window at its offset
    assert _resume_plan(d("2026-08-01"), d("2026-08-31"), state) == (
        [(d("2026-08-16"), d("2026-08-31"))],
        40,
    )
    # a day later: the finished days are skipped, the new day is added
    assert _resume_plan(d("2026-08-02"), d("2026-09-01"), state) == (
        [(d("2026-08-16"), d("2026-08-31")), (d("2026-09-01"), d("2026-09-01"))],
        40,
    )
    # a range reaching further back: the stopped window first, then the new days
    assert _resume_plan(d("2026-07-30"), d("2026-08-31"), state) == (
        [(d("2026-08-16"), d("2026-08-31")), (d("2026-07-30"), d("2026-07-31"))],
        40,
    )
    # a range that no longer touches the stopped window: it is still fetched (the
    # same range option asked for it), then the new days
    assert _resume_plan(d("2026-09-05"), d("2026-09-06"), state) == (
        [(d("2026-08-16"), d("2026-08-31")), (d("2026-09-05"), d("2026-09-06"))],
        40,
    )
    # every window left, also those after the first
    state["windows"] = [["2026-08-16", "2026-08-20"], ["2026-08-25", "2026-08-31"]]
    assert _resume_plan(d("2026-09-05"), d("2026-09-06"), state) == (
        [
            (d("2026-08-16"), d("2026-08-20")),
            (d("2026-08-25"), d("2026-08-31")),
            (d("2026-09-05"), d("2026-09-06")),
        ],
        40,
    )


def test_a_window_over_the_api_cap_is_split_by_date(
    httpserver: HTTPServer, isolated_home: Path
) -> None:
    windows: list[str] = []

    def handle(request: Request) -> Response:
        query = request.args["search_query"]
        low, high = re.search(r"\[(\d{8})0000 TO (\d{8})2359\]", query).groups()  # type: ignore[union-attr]
        windows.append(f"{low}-{high}")
        span = (date.fromisoformat(high) - date.fromisoformat(low)).days + 1
        total = 31000 if span > 15 else 3
        return Response(api_page(int(request.args["start"]), 3, total, entries=ENTRIES[:3]))

    httpserver.expect_request("/api/query").respond_with_handler(handle)
    store = Store(store_dir())
    settings = _settings(isolated_home, httpserver.url_for("/api/query"))
    report = fetch_range(["cs.AI"], date(2026, 8, 1), date(2026, 8, 31), _upsert(store), settings)
    assert windows == [
        "20260801-20260831", "20260801-20260816", "20260801-20260808",
        "20260809-20260816", "20260817-20260831",
    ]  # fmt: skip
    assert report.new == 3 and store.count() == 3


def test_retries_run_out_with_a_clear_fetch_error(
    httpserver: HTTPServer, isolated_home: Path
) -> None:
    api = FakeArxiv(httpserver)
    api.faults[0] = [empty_page(25)] * 2
    settings = _settings(isolated_home, api.url)
    settings.retries = 1
    with pytest.raises(FetchError, match="empty page although 25 results"):
        fetch_range(["cs.AI"], date(2026, 8, 1), date(2026, 8, 2), lambda p: None, settings)  # type: ignore[arg-type,return-value]


# --------------------------------------------------------------------------- listing


def test_listing_is_the_default_and_a_cut_off_one_is_retried(httpserver: HTTPServer) -> None:
    httpserver.expect_oneshot_request("/atom/cs.AI+cs.CL").respond_with_data(TRUNCATED.read_bytes())
    httpserver.expect_request("/atom/cs.AI+cs.CL").respond_with_data(LISTING.read_bytes())
    url = httpserver.url_for("/atom")
    args = (
        "fetch",
        "-c",
        "cs.AI",
        "-c",
        "cs.CL",
        "--interval",
        str(INTERVAL),
        "--listing-url",
        url,
    )
    result = run(*args)
    assert result.exit_code == 0, result.stderr
    assert result.stderr.strip().splitlines() == [
        "Retrying in 0.0 s: a cut-off or malformed listing.",
        "cs.AI, cs.CL: 86 new, 0 updated, 0 unchanged, 1 page retried",
    ]
    assert len(httpserver.log) == 2
    again = run(*args, "--listing")
    assert "0 new, 0 updated, 86 unchanged" in again.stderr
    assert len(stored()) == 86


def test_a_listing_cut_off_at_every_try_keeps_its_whole_entries(
    httpserver: HTTPServer, isolated_home: Path
) -> None:
    """fetch threw the whole listing away when every try was cut off, while ingest of
    the same URL kept the entries that arrived whole; a listing's papers come in no
    later listing."""
    body = LISTING.read_bytes()
    cut = body[: body.rindex(b"<entry>") + 200]  # in the middle of the last entry
    httpserver.expect_request("/atom/cs.AI").respond_with_data(cut)
    result = run("fetch", "-c", "cs.AI", "--interval", "0", "--retries", "1",
                 "--listing-url", httpserver.url_for("/atom"))  # fmt: skip
    line = error_line(result, 1, "arXiv kept answering a cut-off listing after 2 tries")
    assert "the 85 papers that arrived whole are stored" in line
    assert "papertrack fetch -c cs.AI --since 2025-08-13" in line
    assert len(stored()) == 85
    assert not (isolated_home / "fetch-listings.json").exists()  # the day not fetched


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (b"<html><head><title>arXiv is down for maintenance</title></head></html>",
         'an HTML page titled "arXiv is down for maintenance"'),
        (b"", "an empty answer"),
        (b"Rate exceeded.", 'an answer that is no feed ("Rate exceeded.")'),
    ],
)  # fmt: skip
def test_an_answer_that_is_no_feed_is_named_in_the_retry(
    httpserver: HTTPServer, body: bytes, said: str
) -> None:
    """fetch called each of these "a malformed body"; ingest named the page."""
    httpserver.expect_request("/atom/cs.AI").respond_with_data(body)
    result = run("fetch", "-c", "cs.AI", "--interval", "0", "--retries", "1",
                 "--listing-url", httpserver.url_for("/atom"))  # fmt: skip
    assert result.stderr.splitlines()[0] == f"Retrying in 0.0 s: {said}."
    error_line(result, 1, f"arXiv kept answering {said} for the listing after 2 tries")


def test_a_page_larger_than_papertrack_reads_is_not_asked_for_again(
    httpserver: HTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It was retried as "a malformed body", as many times as --retries allows."""
    from papertrack import feeds

    page = LISTING.read_bytes()
    monkeypatch.setattr(feeds, "MAX_FEED_BYTES", len(page) - 1)
    httpserver.expect_request("/atom/cs.AI").respond_with_data(page)
    result = run(
        "fetch", "-c", "cs.AI", "--interval", "0", "--retries", "3",
        "--listing-url", httpserver.url_for("/atom"),
    )  # fmt: skip
    error_line(result, 1, "is larger than", "Check --listing-url")
    assert "Retrying" not in result.stderr
    assert len(httpserver.log) == 1


def test_an_empty_weekend_listing_is_no_error_and_an_empty_weekday_one_is_said(
    httpserver: HTTPServer, isolated_home: Path
) -> None:
    """An empty listing of a Wednesday was taken for a holiday without a word, so its
    day's papers were never named; it is said once, then counts as fetched (named
    every later night, a holiday week mailed a warning more a night)."""
    raw = LISTING.read_text(encoding="utf-8")
    empty = raw[: raw.index("<entry>")] + "</feed>\n"

    def fetch_empty(day: str) -> Result:
        httpserver.clear()
        httpserver.expect_request("/atom/cs.AI").respond_with_data(empty.replace("2025-08-20", day))
        url = httpserver.url_for("/atom")
        return run("fetch", "-c", "cs.AI", "--interval", "0", "--listing-url", url)

    result = fetch_empty("2025-08-23")
    assert result.exit_code == 0, result.stderr
    assert result.stderr.startswith("cs.AI: no announcement on Saturday 2025-08-23")
    assert len(httpserver.log) == 1
    listings = isolated_home / "fetch-listings.json"
    recorded = json.loads(listings.read_text(encoding="utf-8"))
    weekday = fetch_empty("2025-08-27")
    assert weekday.exit_code == 0, weekday.stderr
    assert weekday.stderr.startswith(
        "Warning: the listing of Wednesday 2025-08-27 is empty: an arXiv holiday, or a "
        "listing not rebuilt yet. Unless it was a holiday, fetch that day from the API: "
        "papertrack fetch -c cs.AI --since 2025-08-20"
    )
    assert json.loads(listings.read_text(encoding="utf-8")) == {
        "cs.AI": "2025-08-27",
        # Named until fetched, for a month from the listing that first named them.
        "missed cs.AI": {"2025-08-25": "2025-08-27", "2025-08-26": "2025-08-27"},
    }
    assert recorded == {"cs.AI": "2025-08-23"}
    # The next night does not name Wednesday: it was said, and fetched.
    thursday = fetch_empty("2025-08-28")
    assert "no listing was fetched for 2 days from 2025-08-25 to 2025-08-26" in thursday.stderr
    assert "the listing of Thursday 2025-08-28 is empty" in thursday.stderr


def test_a_listing_of_entries_none_of_which_can_be_read_is_no_holiday(
    httpserver: HTTPServer, isolated_home: Path
) -> None:
    """Called "empty: an arXiv holiday", exit 0, and the day recorded as fetched: a
    change of arXiv's ids would have stored nothing, night after night, unnoticed."""
    raw = LISTING.read_text(encoding="utf-8").replace("2025-08-20", "2025-08-27")
    # Ids in a form of the future: no id papertrack knows anywhere in an entry.
    unreadable = re.sub(r"(arXiv\.org:|arXiv:|/abs/)25", r"\1N25", raw)
    assert unreadable.count("<entry>") == 86
    httpserver.expect_request("/atom/cs.AI").respond_with_data(unreadable)
    url = httpserver.url_for("/atom")
    result = run("fetch", "-c", "cs.AI", "--interval", "0", "--listing-url", url)
    line = error_line(
        result, 1, "the listing of Wednesday 2025-08-27 held 86 entries",
        "could read none of them", "oai:arXiv.org:N2508.13167v1",
        "papertrack fetch -c cs.AI --since 2025-08-20",
    )  # fmt: skip
    assert "holiday" not in line
    assert not (isolated_home / "fetch-listings.json").exists()
    assert json.loads(run("stats", "--json").stdout)["papers"] == 0


def fetch_listing_of(httpserver: HTTPServer, day: str, *args: str) -> Result:
    """``fetch -c cs.AI`` of the recorded listing, served as the listing of ``day``."""
    httpserver.clear()
    body = LISTING.read_text(encoding="utf-8").replace("2025-08-20", day).encode()
    httpserver.expect_request("/atom/cs.AI").respond_with_data(body)
    url = httpserver.url_for("/atom")
    return run("fetch", "-c", "cs.AI", "--interval", "0", "--listing-url", url, *args)


def _wednesday_then_a_failed_thursday(httpserver: HTTPServer) -> Result:
    """Wednesday's listing fetched, then Thursday's run failed (a 503): its result."""
    assert fetch_listing_of(httpserver, "2025-08-20", "-q").stderr == ""
    httpserver.clear()
    httpserver.expect_request("/atom/cs.AI").respond_with_data("down", status=503)
    url = httpserver.url_for("/atom")
    failed = run("fetch", "-c", "cs.AI", "--interval", "0", "--retries", "0", "--listing-url", url)
    assert failed.exit_code == 1
    return failed


def test_a_damaged_record_of_listings_is_said_not_read_as_empty_quietly(
    httpserver: HTTPServer, isolated_home: Path
) -> None:
    """Read as empty, it named no missed day and was written anew without a word."""
    assert fetch_listing_of(httpserver, "2025-08-20", "-q").exit_code == 0
    listings = isolated_home / "fetch-listings.json"
    listings.write_text('{"cs.AI": "2025-08-20",', encoding="utf-8")
    said = fetch_listing_of(httpserver, "2025-08-25", "-q")
    assert said.exit_code == 0
    assert said.stderr == (
        f"Warning: {listings} could not be read, so no listing day missed before this one "
        "can be named; it starts again from this listing's day\n"
    )
    assert json.loads(listings.read_text(encoding="utf-8")) == {"cs.AI": "2025-08-25"}


def test_a_missed_listing_the_api_fetch_brought_is_not_named_again(
    httpserver: HTTPServer,
) -> None:
    """The failed run names the API fetch that brings the day's papers; run, the next
    listing still named the day as missed, with the same fetch to run."""
    _wednesday_then_a_failed_thursday(httpserver)
    httpserver.clear()
    api = FakeArxiv(httpserver)
    too_late = run("fetch", "-c", "cs.AI", "--since", "2025-08-20", *_API_ARGS, api.url)
    assert too_late.exit_code == 0, too_late.stderr  # from Wednesday: not all of Thursday's
    friday = fetch_listing_of(httpserver, "2025-08-22", "-q")
    assert "no listing was fetched for 2025-08-21" in friday.stderr
    httpserver.clear()
    api = FakeArxiv(httpserver)
    brought = run("fetch", "-c", "cs.AI", "--since", "2025-08-14", *_API_ARGS, api.url)
    assert brought.exit_code == 0, brought.stderr  # as the warning said
    # A later gap the API fetch covered is not named either; the listing is new.
    monday = fetch_listing_of(httpserver, "2025-08-27", "-q")
    assert monday.exit_code == 0 and monday.stderr == "", monday.stderr


def test_an_api_fetch_is_not_taken_for_listings_announced_after_it_ran(
    httpserver: HTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An API fetch run on a Thursday afternoon (as a failed Thursday run told) was
    taken to bring Friday's listing too, since it asked for papers submitted through
    Thursday; but arXiv serves those only once Friday's listing announces them. With
    Friday's run missed as well, Monday's named no day, and Friday's papers were lost
    without a word (four of them in a four-month cron run)."""
    from papertrack import fetch

    _wednesday_then_a_failed_thursday(httpserver)
    httpserver.clear()
    api = FakeArxiv(httpserver)
    monkeypatch.setattr(
        fetch, "_now", lambda: datetime(2025, 8, 21, 14, 0, tzinfo=UTC), raising=False
    )
    told = run("fetch", "-c", "cs.AI", "--since", "2025-08-14", *_API_ARGS, api.url)
    assert told.exit_code == 0, told.stderr
    monday = fetch_listing_of(httpserver, "2025-08-25", "-q")  # Friday's run missed too
    assert monday.exit_code == 0
    assert monday.stderr.startswith("Warning: no listing was fetched for 2025-08-22 ("), monday
    assert "papertrack fetch -c cs.AI --since 2025-08-15" in monday.stderr
    # Run at 06:00 UTC on Tuesday, it brings the papers of Tuesday's listing too.
    httpserver.clear()
    api = FakeArxiv(httpserver)
    monkeypatch.setattr(
        fetch, "_now", lambda: datetime(2025, 8, 26, 6, 0, tzinfo=UTC), raising=False
    )
    assert run("fetch", "-c", "cs.AI", "--since", "2025-08-15", *_API_ARGS, api.url).exit_code == 0
    tuesday = fetch_listing_of(httpserver, "2025-08-27", "-q")
    assert tuesday.exit_code == 0 and tuesday.stderr == "", tuesday.stderr


def test_a_missed_listing_served_late_is_not_named_again(httpserver: HTTPServer) -> None:
    """Named as missed, then fetched when its listing was served late, the day was
    still named by every later listing for 30 days."""
    assert fetch_listing_of(httpserver, "2025-08-20", "-q").stderr == ""
    friday = fetch_listing_of(httpserver, "2025-08-22", "-q")
    assert "no listing was fetched for 2025-08-21" in friday.stderr
    assert fetch_listing_of(httpserver, "2025-08-21", "-q").exit_code == 0  # served late
    monday = fetch_listing_of(httpserver, "2025-08-25", "-q")
    assert monday.exit_code == 0 and monday.stderr == "", monday.stderr


def test_a_gap_longer_than_a_month_is_named_whole(httpserver: HTTPServer) -> None:
    """A machine off for six weeks was told of the last month of its gap only, and
    given a fetch that left out the rest; the gap is named whole, then named again
    for a month after its last day."""
    assert fetch_listing_of(httpserver, "2025-08-20", "-q").stderr == ""
    back = fetch_listing_of(httpserver, "2025-10-15", "-q")
    assert back.exit_code == 0, back.stderr
    assert "for 39 days from 2025-08-21 to 2025-10-14" in back.stderr, back.stderr
    assert back.stderr.rstrip().endswith("papertrack fetch -c cs.AI --since 2025-08-14")
    again = fetch_listing_of(httpserver, "2025-10-16", "-q")
    assert "for 39 days from 2025-08-21 to 2025-10-14" in again.stderr, again.stderr
    # A month after the gap's last day it is no longer named; a new gap is.
    later = fetch_listing_of(httpserver, "2025-11-17", "-q")
    assert "from 2025-10-17 to 2025-11-14" in later.stderr, later.stderr
    assert "2025-08-21" not in later.stderr and "2025-10-14" not in later.stderr


def test_missed_days_an_api_fetch_brought_stay_crossed_off_after_another_fetch(
    isolated_home: Path,
) -> None:
    """The days an API fetch brought were kept only as its span, which the next API
    fetch of days apart from it replaced: the next listing named them again, with
    a fetch to run that was already run."""
    from papertrack import fetch

    def named(day: date) -> list[date]:
        return (fetch._missed_listings(isolated_home, ["cs.AI"], day) or {}).get("cs.AI", [])

    assert named(date(2025, 8, 20)) == []
    assert named(date(2025, 8, 25)) == [date(2025, 8, 21), date(2025, 8, 22)]
    fetch._note_api_range(isolated_home, ["cs.AI"], date(2025, 8, 14), date(2025, 8, 25),
                          date(2025, 8, 25))  # fmt: skip
    # Days later, an API fetch of a few days apart from that one.
    fetch._note_api_range(isolated_home, ["cs.AI"], date(2025, 9, 8), date(2025, 9, 10),
                          date(2025, 9, 10))  # fmt: skip
    again = named(date(2025, 9, 11))
    assert again and date(2025, 8, 21) not in again and date(2025, 8, 22) not in again
    assert again[0] == date(2025, 8, 26)


def test_a_missed_day_is_named_for_a_month_from_when_it_was_first_named(
    isolated_home: Path,
) -> None:
    """Counted from the newest missed day, days missed in a run of misses less than
    a month apart were named for ever: a day missed in July was still named in
    September, with a fetch from June."""
    from papertrack import fetch

    def named(day: date) -> list[date]:
        return (fetch._missed_listings(isolated_home, ["cs.AI"], day) or {}).get("cs.AI", [])

    assert named(date(2025, 7, 4)) == []
    # Listings fetched about once a week, none on a month's first Monday: the days
    # between are missed, and misses keep coming less than a month apart.
    days = [date(2025, 7, 4)]
    for month in (7, 8, 9):
        for week in range(4):
            day = date(2025, month, 1) + timedelta(days=7 * week)
            days.append(day)
    said: dict[date, list[date]] = {}
    for day in sorted(set(days)):
        if day.weekday() >= 5 or day.day <= 7 and day.weekday() == 0:
            continue  # the first Monday of the month: missed
        said[day] = named(day)
    july = date(2025, 7, 7)
    assert any(july in days for days in said.values())
    assert all(july not in days for day, days in said.items() if (day - july).days > 31)
    # A list kept by an earlier papertrack: each day as named by the last listing
    # recorded (a six-week gap named the day before was cut to its last month).
    listings = isolated_home / "fetch-listings.json"
    gap = [date(2025, 10, 1) + timedelta(days=n) for n in range(42)]
    gap = [d for d in gap if d.weekday() < 5]
    old = {"cs.AI": "2025-11-13", "missed cs.AI": [d.isoformat() for d in gap]}
    listings.write_text(json.dumps(old), encoding="utf-8")
    assert named(date(2025, 11, 14)) == gap
    # Damaged values: a day named in the future is named from now, and one that is
    # no list or mapping at all names nothing (it stopped the fetch).
    far = {"cs.AI": "2025-11-13", "missed cs.AI": {"2025-11-12": "9999-12-31"}}
    listings.write_text(json.dumps(far), encoding="utf-8")
    assert named(date(2025, 11, 14)) == [date(2025, 11, 12)]
    assert named(date(2025, 12, 19)) == [
        d for d in (date(2025, 11, 14) + timedelta(days=n) for n in range(1, 35)) if d.weekday() < 5
    ]
    listings.write_text(json.dumps({"cs.AI": "2025-11-13", "missed cs.AI": 5}), "utf-8")
    assert named(date(2025, 11, 14)) == []
    # Dates at the calendar's ends overflowed the day arithmetic (a traceback).
    ends = {
        "cs.AI": "0001-01-01",
        "missed cs.AI": {"0001-01-01": "0001-01-01", "2025-11-12": "2025-11-13"},
        "api cs.AI": ["2025-08-14", "9999-12-31", "9999-12-31"],
    }
    listings.write_text(json.dumps(ends), encoding="utf-8")
    assert named(date(2025, 11, 14)) == [date(2025, 11, 12)]
    fetch._note_api_range(isolated_home, ["cs.AI"], date(2025, 11, 1), date(2025, 11, 14),
                          date(2025, 11, 14))  # fmt: skip
    assert named(date(2025, 11, 17)) == []
    # A missed day at the calendar's end, first named lately, beside an API range:
    # the days the range brought were counted from it (a traceback).
    lately = {
        "cs.AI": "2025-11-13",
        "missed cs.AI": {"0001-01-01": "2025-11-13", "2025-11-12": "2025-11-13"},
        "api cs.AI": ["2025-08-14", "2025-11-01", "2025-11-01"],
    }
    listings.write_text(json.dumps(lately), encoding="utf-8")
    assert named(date(2025, 11, 14)) == [date(2025, 11, 12)]


_API_ARGS = ("--interval", "0", "--page-size", "10", "--api-url")


def test_a_listing_no_run_fetched_is_named_with_the_fetch_that_brings_its_papers(
    httpserver: HTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A listing holds one day's papers: the day a run failed was lost for good, while
    the docs said the next run would bring it. Now the next listing names the missed
    weekdays and the API fetch that brings their papers; weekends are no gap."""
    raw = LISTING.read_text(encoding="utf-8")

    def serve(day: str) -> Result:
        return fetch_listing_of(httpserver, day, "-q")

    failed = _wednesday_then_a_failed_thursday(httpserver)
    error_line(failed, 1, "before the next listing", "names the day to fetch from the API")
    friday = serve("2025-08-22")  # Thursday's run failed
    assert friday.exit_code == 0, friday.stderr
    assert friday.stderr.splitlines() == [
        "Warning: no listing was fetched for 2025-08-21 (a run failed or did not run), and "
        "a listing holds only its own day's papers. Fetch them from the API: "
        "papertrack fetch -c cs.AI --since 2025-08-14"
    ]
    assert serve("2025-08-22").stderr == ""  # the same listing again
    httpserver.clear()
    httpserver.expect_request("/atom/cs.AI").respond_with_data(
        raw.replace("2025-08-20", "2025-08-22")
    )
    url = httpserver.url_for("/atom")
    said = run("fetch", "-c", "cs.AI", "--interval", "0", "--listing-url", url).stderr
    assert said == (
        "cs.AI: 0 new, 0 updated, 86 unchanged (the listing of 2025-08-22, fetched before: "
        "rss.arxiv.org rebuilds its listings at midnight US Eastern)\n"
    )
    # Monday's names Thursday again (a cron mail lost or unread lost its papers),
    # until an API fetch brings them.
    monday = serve("2025-08-25")
    assert monday.stderr.startswith("Warning: no listing was fetched for 2025-08-21 ("), monday
    from papertrack import fetch

    def api_fetch_at(moment: datetime, since: str) -> None:
        httpserver.clear()
        api = FakeArxiv(httpserver)
        monkeypatch.setattr(fetch, "_now", lambda: moment)
        brought = run("fetch", "-c", "cs.AI", "--since", since, *_API_ARGS, api.url)
        assert brought.exit_code == 0, brought.stderr

    api_fetch_at(datetime(2025, 8, 25, 14, tzinfo=UTC), "2025-08-14")
    week = serve("2025-09-03")  # Thursday brought: not named again
    assert "for 6 days from 2025-08-26 to 2025-09-02" in week.stderr
    assert "--since 2025-08-19" in week.stderr
    api_fetch_at(datetime(2025, 9, 3, 14, tzinfo=UTC), "2025-08-19")
    # Kept per category: cs.AI fetched with cs.CL counts for cs.AI alone, and a
    # category new to the fetch has no gap; one that missed days is named alone.
    for day in ("2025-09-04", "2025-09-05"):
        httpserver.clear()
        httpserver.expect_request("/atom/cs.AI+cs.CL").respond_with_data(
            raw.replace("2025-08-20", day).encode()
        )
        url = httpserver.url_for("/atom")
        both = run("fetch", "-c", "cs.AI", "-c", "cs.CL", "--interval", "0", "--listing-url", url)
        assert both.exit_code == 0 and "Warning" not in both.stderr, both.stderr
    assert serve("2025-09-08").stderr == ""
    httpserver.clear()
    httpserver.expect_request("/atom/cs.AI+cs.CL").respond_with_data(
        raw.replace("2025-08-20", "2025-09-10").encode()
    )
    url = httpserver.url_for("/atom")
    both = run("fetch", "-c", "cs.AI", "-c", "cs.CL", "--interval", "0", "--listing-url", url)
    # cs.CL missed Monday and Tuesday, cs.AI (fetched alone on Monday) Tuesday.
    assert "for 2 days from 2025-09-08 to 2025-09-09" in both.stderr
    assert "papertrack fetch -c cs.AI -c cs.CL --since 2025-09-01" in both.stderr
    # cs.AI's Wednesday came with cs.CL; its Tuesday is named again, alone.
    assert serve("2025-09-11").stderr.startswith("Warning: no listing was fetched for 2025-09-09 (")
    # The file is a shortcut: one that cannot be written does not fail the fetch.
    from papertrack.paths import home

    kept = home() / "fetch-listings.json"
    kept.unlink()
    kept.mkdir()
    blocked = serve("2025-09-12")
    assert blocked.exit_code == 0 and blocked.stderr == ""


def test_fetch_needs_a_category_and_one_date_option() -> None:
    result = run("fetch")
    assert result.exit_code == 2
    assert result.stderr.startswith(
        "Error: no category to fetch. Name categories with --category cs.AI"
    )
    result = run("fetch", "-c", "cs.AI", "--days", "3", "--backfill", "2")
    assert result.exit_code == 2 and "exclude each other" in result.stderr


def test_two_processes_share_the_politeness_interval(
    httpserver: HTTPServer, isolated_home: Path
) -> None:
    api = FakeArxiv(httpserver, total=30)
    # The server sees each request some milliseconds after the client's throttle let
    # it go, more on a loaded machine. With 0.2 s and 10% slack that delay alone made
    # the test fail now and then; with 1 s, only a delay of over 0.25 s could, while
    # two processes that did not share the interval would send within milliseconds.
    interval = 1.0
    env = {**os.environ, "PAPERTRACK_FETCH_INTERVAL": str(interval)}
    commands = [
        [sys.executable, "-m", "papertrack", "--db", str(isolated_home / f"store{n}"), "fetch",
         "-c", cat, "--since", "2026-08-01", "--page-size", "10", "--api-url", api.url, "-q"]
        for n, cat in enumerate(("cs.AI", "cs.CL"))
    ]  # fmt: skip
    # Different data homes, one machine: arXiv's limit is per machine, so they still queue.
    procs = [
        subprocess.Popen(
            c,
            env={**env, "PAPERTRACK_HOME": str(isolated_home / f"home{n}")},
            stderr=subprocess.PIPE,
        )
        for n, c in enumerate(commands)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err.decode()
    assert len(api.calls) == 6
    times = sorted(t for t, _ in api.calls)
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert all(gap >= interval - 0.25 for gap in gaps), gaps


def test_two_processes_never_have_requests_open_at_once(isolated_home: Path) -> None:
    """The lock was let go as a request was sent, so another process waited the
    interval from its start: with 1.5 s answers and 0.3 s between requests, the
    second reached the server while the first was still open."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    body = LISTING.read_bytes()
    spans: list[tuple[float, float]] = []

    class Slow(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the handler's name
            began = time.monotonic()
            time.sleep(1.5)
            self.send_response(200)
            self.send_header("Content-Type", "application/atom+xml")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
            spans.append((began, time.monotonic()))

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Slow)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/atom"
    try:
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "papertrack", "fetch", "-c", cat, "-q",
                 "--interval", "0.3", "--listing-url", url],
                env={**os.environ, "PAPERTRACK_HOME": str(isolated_home / f"home{n}")},
                stderr=subprocess.PIPE,
            )
            for n, cat in enumerate(("cs.AI", "cs.CL"))
        ]  # fmt: skip
        for proc in procs:
            _, err = proc.communicate(timeout=60)
            assert proc.returncode == 0, err.decode()
    finally:
        server.shutdown()
        server.server_close()
    assert len(spans) == 2
    (_, first_end), (second_start, _) = sorted(spans)
    # From the end of the first answer as the server wrote it (the client has it a
    # little later): at least the interval, with slack for that.
    assert second_start - first_end >= 0.3 - 0.1, spans


def test_a_slow_answer_times_out_and_is_retried(httpserver: HTTPServer) -> None:
    api = FakeArxiv(httpserver, total=5)

    def slow(start: int, size: int) -> Response:
        time.sleep(0.4)
        return Response(api_page(start, size, 5))

    api.faults[0] = [slow]
    result = fetch_api(api.url, "--timeout", "0.2")
    assert result.exit_code == 0, result.stderr
    assert "5 new, 0 updated, 0 unchanged, 1 page retried" in result.stderr
    # The test server answers one request at a time: a retry may queue behind the slow one.
    assert api.starts() in ([0, 0], [0, 0, 0])
    assert len(stored()) == 5


def test_config_file_supplies_categories_and_endpoints(
    httpserver: HTTPServer, isolated_home: Path
) -> None:
    """Flag > environment > config.toml > default, for the options cron jobs repeat."""
    httpserver.expect_request("/mirror/cs.AI+cs.CL").respond_with_data(
        LISTING.read_bytes(), content_type="application/atom+xml"
    )
    isolated_home.mkdir(parents=True, exist_ok=True)
    (isolated_home / "config.toml").write_text(
        "[fetch]\n"
        'categories = ["cs.AI", "cs.CL"]\n'
        f'listing_url = "{httpserver.url_for("/mirror")}"\n'
        "interval = 0.01\n",
        encoding="utf-8",
    )
    result = run("fetch", "-q")
    assert result.exit_code == 0, result.stderr
    assert len(stored()) == 86
    assert [req.path for req, _ in httpserver.log] == ["/mirror/cs.AI+cs.CL"]
    # -q prints nothing, and the log still says what the night's fetch did: with -q,
    # as the cron line of the docs has it, a successful run left no line at all.
    assert result.stderr == "" and result.stdout == ""
    logged = (isolated_home / "papertrack.log").read_text(encoding="utf-8")
    assert logged.endswith("Z [fetch] cs.AI, cs.CL: 86 new, 0 updated, 0 unchanged\n")
    (isolated_home / "config.toml").write_text("[fetch]\ncategory = ['cs.AI']\n")
    bad = run("fetch")
    assert bad.exit_code == 2
    assert bad.stderr.startswith("Error: unknown key 'category' in [fetch]")


def test_dropped_connections_and_short_bodies_are_retried(isolated_home: Path) -> None:
    """A raw server on 127.0.0.1: hang up at once, then send half a body, then answer."""
    import socket
    import threading

    body = LISTING.read_bytes()
    head = (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/atom+xml\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n"
    )
    answers = [b"", head + body[: len(body) // 2], head + body]
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(20)
    port = listener.getsockname()[1]
    served: list[int] = []

    def serve() -> None:
        with listener:
            for answer in answers:
                conn, _ = listener.accept()
                with conn:
                    conn.recv(65536)  # the request
                    conn.sendall(answer)
                served.append(len(answer))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    result = run(
        "fetch", "-c", "cs.AI", "--listing-url", f"http://127.0.0.1:{port}/atom",
        "--interval", "0.01", "--retries", "3",
    )  # fmt: skip
    thread.join(timeout=20)
    assert result.exit_code == 0, result.stderr
    assert len(served) == 3
    assert "1 page retried" in result.stderr  # one page, two failed tries (3 connections)
    assert len(stored()) == 86


def test_politeness_file_is_per_machine_and_not_trusted_from_others(
    tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    from papertrack import paths

    monkeypatch.delenv("PAPERTRACK_FETCH_LOCK_DIR")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    folder = paths.fetch_pace_dir()
    assert folder == tmp_path / "tmp" / f"papertrack-{os.getuid()}"
    assert folder.stat().st_mode & 0o777 == 0o700
    if os.getuid() == 0:  # root can hand the folder to another user and see it refused
        os.chown(folder, 4242, -1)
        assert paths.fetch_pace_dir() == isolated_home


def test_a_fetch_lock_folder_that_cannot_be_made_names_its_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, httpserver: HTTPServer
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("PAPERTRACK_FETCH_LOCK_DIR", str(blocker / "locks"))
    result = run("fetch", "-c", "cs.AI", "--listing-url", httpserver.url_for("/rss"))
    line = error_line(result, 1, "Choose a writable place with PAPERTRACK_FETCH_LOCK_DIR")
    assert "PAPERTRACK_DB" not in line
    # The variable naming the file itself: said to be a file ("File exists" was all).
    monkeypatch.setenv("PAPERTRACK_FETCH_LOCK_DIR", str(blocker))
    result = run("fetch", "-c", "cs.AI", "--listing-url", httpserver.url_for("/rss"))
    error_line(result, 1, f"{blocker} is a file, not a folder", "PAPERTRACK_FETCH_LOCK_DIR")
    # A ~user with no home: "papertrack failed unexpectedly (RuntimeError ...)".
    monkeypatch.setenv("PAPERTRACK_FETCH_LOCK_DIR", "~papertrack-no-such-user/locks")
    result = run("fetch", "-c", "cs.AI", "--listing-url", httpserver.url_for("/rss"))
    error_line(
        result,
        1,
        "PAPERTRACK_FETCH_LOCK_DIR '~papertrack-no-such-user/locks' starts with a ~user",
        "Write the path in full",
    )


@pytest.mark.parametrize(
    ("config", "wanted"),
    [
        ('categories = "cs.AI"', "/mirror/cs.AI"),
        ('categories = "cs.AI, cs.CL"', "/mirror/cs.AI+cs.CL"),
        ('categories = "cs.ai cs.CL"', "/mirror/cs.AI+cs.CL"),  # as arXiv spells them
    ],
)
def test_config_categories_may_be_a_string(
    config: str, wanted: str, httpserver: HTTPServer, isolated_home: Path
) -> None:
    httpserver.expect_request(wanted).respond_with_data(
        LISTING.read_bytes(), content_type="application/atom+xml"
    )
    isolated_home.mkdir(parents=True, exist_ok=True)
    (isolated_home / "config.toml").write_text(
        f'[fetch]\n{config}\nlisting_url = "{httpserver.url_for("/mirror")}"\ninterval = 0\n'
    )
    result = run("fetch", "-q")
    assert result.exit_code == 0, result.stderr
    assert [req.path for req, _ in httpserver.log] == [wanted]


def test_config_categories_of_another_type_is_one_clear_line(isolated_home: Path) -> None:
    isolated_home.mkdir(parents=True, exist_ok=True)
    for value in ("3", "[1, 2]", '["cs.AI", ""]'):
        (isolated_home / "config.toml").write_text(f"[fetch]\ncategories = {value}\n")
        result = run("fetch")
        error_line(result, 2, "categories in [fetch] of", "config.toml")
    # tomllib reads nesting by recursion: this one passed Python's stack.
    deep = "[" * 100_000 + "]" * 100_000
    (isolated_home / "config.toml").write_text(f"[fetch]\ncategories = {deep}\n")
    error_line(run("fetch"), 2, "config.toml is not valid TOML (nested too deeply)")


@pytest.mark.parametrize(
    ("line", "wanted"),
    [
        ('interval = "3"', "interval in [fetch] of"),
        ("page_size = 1.5", "page_size in [fetch] of"),
        ("retries = 1.5", "retries in [fetch] of"),
        ("api_url = 3", "api_url in [fetch] of"),
        # "" fell back to the default, "ftp://x" failed at the request (exit 1).
        ('listing_url = ""', "listing_url in [fetch] of"),
        ('listing_url = "ftp://x"', "listing_url in [fetch] of"),
    ],
)
def test_a_config_value_of_the_wrong_type_says_what_it_must_be(
    isolated_home: Path, line: str, wanted: str
) -> None:
    # "has the wrong type. See 'papertrack fetch --help'", which does not say.
    isolated_home.mkdir(parents=True, exist_ok=True)
    (isolated_home / "config.toml").write_text(f"[fetch]\n{line}\n")
    kind = {
        "i": "a number of seconds, e.g. 3",
        "p": "a whole number, e.g. 2000",
        "r": "a whole number, e.g. 5",
        "a": "an http(s) address",
        "l": 'an http(s) address in quotes, e.g. "https://rss.arxiv.org/atom"',
    }
    # A URL of the right type that is none: what to give.
    said = "Give" if line.startswith("listing_url") else "must be"
    error_line(run("fetch"), 2, wanted, f"{said} {kind[line[0]]}")


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("http://[::1/atom", "is not a valid URL: http://[::1/atom (Invalid IPv6 URL)"),
        ("http://[zz]/atom", "is not a valid URL: http://[zz]/atom"),
        ("http://u:pw@127.0.0.1:99999/a", "is not a valid URL: http://u:***@127.0.0.1:99999/a"),
        ("http://u:pw@[::1/a", "is not a valid URL: http://u:***@[::1/a"),
        ("notaurl", "is not an http(s) URL with a host: notaurl"),
        ("file:///etc/passwd", "is not an http(s) URL with a host: file:///etc/passwd"),
        ("", "is empty (an unset variable?)"),
    ],
)
@pytest.mark.parametrize("option", ["--api-url", "--listing-url"])
def test_a_url_option_that_is_no_http_url_is_refused_before_anything(
    isolated_home: Path, option: str, url: str, said: str
) -> None:
    """A bracket left open in a mirror's address ended in "failed unexpectedly ... This
    is a bug" (--listing-url); "notaurl" failed at the first request with exit 1, the
    URL built from it quoted; a password in a URL that is none was said and logged in
    clear; and an empty value (an unset $MIRROR in a cron line) meant arXiv itself."""
    for args in (["fetch", "-c", "cs.AI"], ["fetch", "-c", "cs.AI", "--days", "1"]):
        line = error_line(run(*args, option, url), 2, f"Error: {option} {said}", "Give an http")
        assert "pw" not in line
    assert not (isolated_home / "store").exists()  # refused before anything was made
    log = isolated_home / "papertrack.log"
    assert not log.exists() or "pw@" not in log.read_text(encoding="utf-8")


def test_a_proxy_setting_is_said_without_its_password(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("https_proxy", "http://u:pw@[::1")
    line = error_line(
        run("fetch", "-c", "cs.AI", "--listing-url", "https://mirror.invalid/atom"), 1
    )
    assert line.startswith("Error: the https_proxy setting http://u:***@[::1 is not a valid URL")
    monkeypatch.setenv("https_proxy", "http://u:pw@")
    line = error_line(run("fetch", "-c", "cs.AI", "--listing-url", "https://m.invalid/atom"), 1)
    assert "the https_proxy setting http://u:***@ names no host. Fix it, or unset it." in line
    # A URL to ingest that is none: said masked twice, where the second was in clear.
    monkeypatch.delenv("https_proxy")
    result = run("ingest", "http://u:pw@127.0.0.1:99999/x.xml")
    assert result.exit_code != 0
    assert "u:***@127.0.0.1:99999" in result.stderr and "pw" not in result.stderr
    log = isolated_home / "papertrack.log"
    assert not log.exists() or "pw@" not in log.read_text(encoding="utf-8")


def test_the_url_of_the_other_kind_of_fetch_alone_is_said_to_be_unused(
    isolated_home: Path, httpserver: HTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`fetch --api-url MIRROR` fetched the listing from rss.arxiv.org with nothing said.
    (arXiv's hosts are asked through a local "proxy" that refuses: no request leaves
    this machine, and the proxy's log says which host was asked.)"""
    monkeypatch.setenv("https_proxy", httpserver.url_for("/"))
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    url = "http://mirror.invalid/x"
    options = ("--retries", "0", "--timeout", "5")
    result = run("fetch", "-c", "cs.AI", "--api-url", url, *options)
    assert "Note: --api-url is for --since, --days and --backfill" in result.stderr
    result = run("fetch", "-c", "cs.AI", "--days", "1", "--listing-url", url, *options)
    assert "Note: --listing-url is for today's listing; --days pages through" in result.stderr
    asked = [entry[0] for entry in httpserver.log]
    assert [(r.method, r.environ.get("REQUEST_URI")) for r in asked] == [
        ("CONNECT", "rss.arxiv.org:443"),
        ("CONNECT", "export.arxiv.org:443"),
    ]


@pytest.mark.parametrize("option", ["--api-url", "--listing-url"])
def test_a_url_with_a_fragment_is_refused_before_any_request(
    httpserver: HTTPServer, option: str
) -> None:
    # The query went after the '#', which is never sent: the server got a bare request.
    url = httpserver.url_for("/api/query") + "#top"
    result = run("fetch", "-c", "cs.AI", "--days", "1", option, url)
    error_line(result, 2, f"{option} http://", "has a #fragment", "Remove it")
    assert httpserver.log == []


def test_a_redirect_from_https_to_http_is_not_followed(
    httpserver: HTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the host was compared: an https URL redirected to http on the same host was
    followed, and the answer came unencrypted."""
    import http.client

    from papertrack import net

    # The local server speaks plain HTTP: every connection goes to it, the https one too.
    monkeypatch.setattr(
        net,
        "_connection",
        lambda parts, timeout, proxy=None: http.client.HTTPConnection("127.0.0.1", httpserver.port),
    )
    httpserver.expect_request("/api/query").respond_with_data(
        "", status=301, headers={"Location": f"http://localhost:{httpserver.port}/plain"}
    )
    httpserver.expect_request("/plain").respond_with_data(LISTING.read_bytes())
    with pytest.raises(net.NetError, match="redirects from https to http://localhost") as caught:
        net.get(f"https://localhost:{httpserver.port}/api/query", timeout=5)
    assert not caught.value.retryable
    assert [req.path for req, _ in httpserver.log] == ["/api/query"]
    with net.get(f"http://localhost:{httpserver.port}/api/query", timeout=5) as followed:
        assert followed.status == 200  # http to http is followed as before


def test_a_config_section_that_means_nothing_is_refused_and_a_bom_is_read(
    isolated_home: Path, httpserver: HTTPServer
) -> None:
    isolated_home.mkdir(parents=True, exist_ok=True)
    config = isolated_home / "config.toml"
    for text, unknown in (("[fetsh]\ninterval = 0\n", "fetsh"), ("retries = 2\n", "retries")):
        config.write_text(text)
        error_line(run("fetch"), 2, f"unknown section or key {unknown!r}", "[fetch]")
    httpserver.expect_request("/atom/cs.AI").respond_with_data(
        LISTING.read_bytes(), content_type="application/atom+xml"
    )
    url = httpserver.url_for("/atom")
    text = f'[fetch]\ncategories = "cs.AI"\nlisting_url = "{url}"\ninterval = 0\n'
    config.write_bytes(b"\xef\xbb\xbf" + text.encode())  # as a Windows editor saves it
    result = run("fetch", "-q")
    assert result.exit_code == 0, result.stderr
    assert [req.path for req, _ in httpserver.log] == ["/atom/cs.AI"]


@pytest.mark.parametrize(
    ("category", "hint"),
    [("cs.FOO", ""), ("cs.XX", ""), ("cs.LGG", "Did you mean cs.LG?")],
)
def test_fetch_refuses_an_unknown_category_before_asking_arxiv(
    category: str, hint: str, httpserver: HTTPServer
) -> None:
    result = run("fetch", "-c", category, "--listing-url", httpserver.url_for("/atom"))
    line = error_line(result, 2, repr(category), "is not an arXiv category", hint)
    assert "https://arxiv.org/category_taxonomy" in line
    assert httpserver.log == []
    from_config = run("fetch", "-c", "cs.AI", "-c", category)
    error_line(from_config, 2, repr(category), "(in --category)")


@pytest.mark.parametrize("option", ["--listing-url", "--api-url"])
def test_a_name_that_does_not_resolve_fails_at_once_and_says_so(option: str) -> None:
    # .invalid never resolves (RFC 2606): this is "no network" without a network.
    dated = ["--days", "2"] if option == "--api-url" else []
    started = time.monotonic()
    result = run(
        "fetch", "-c", "cs.AI", *dated, option, "http://nonexistent.invalid/x",
        "--retries", "5", "--interval", "0",
    )  # fmt: skip
    line = error_line(result, 1, "could not resolve nonexistent.invalid", "Check the URL")
    assert "no network" in line
    assert "Retrying" not in result.stderr
    assert time.monotonic() - started < 10


def test_the_retry_line_reads_whole_at_80_columns(
    httpserver: HTTPServer, isolated_home: Path
) -> None:
    api = FakeArxiv(httpserver, total=5)
    api.faults[0] = [status(503)]
    env = {**os.environ, "PAPERTRACK_HOME": str(isolated_home)}
    code, seen = run_in_pty(
        "fetch", "-c", "cs.AI", "--since", "2026-08-01", "--interval", "0", "--api-url", api.url,
        env=env, columns=80,
    )  # fmt: skip
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", seen.decode("utf-8", "replace"))
    assert code == 0, text
    lines = [line.strip() for chunk in text.split("\n") for line in chunk.split("\r")]
    # The reason is a line of its own, whole; the bar keeps its page and paper counts.
    assert "Retrying in 0.0 s: HTTP 503 (Rate exceeded.)." in lines, lines
    assert all(len(line) <= 80 for line in lines)
    assert "…" not in text
    assert "5 new, 0 updated, 0 unchanged, 1 page retried" in text
    # And the log has it, as off a terminal.
    logged = (isolated_home / "papertrack.log").read_text(encoding="utf-8")
    assert "Retrying in 0.0 s: HTTP 503 (Rate exceeded.)." in logged


def test_urls_a_browser_would_encode_are_fetched_and_broken_ones_are_one_error(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    """A redirect to /café.xml crashed the whole ingest as "a bug"; so did a host with an
    empty label, before the next source was read."""
    httpserver.expect_request("/moved.xml").respond_with_data(
        "", status=302, headers={"Location": "/café feed.xml"}
    )
    httpserver.expect_request("/café feed.xml").respond_with_data(LISTING.read_bytes())
    result = run("ingest", httpserver.url_for("/moved.xml"))
    assert result.exit_code == 0, result.stderr
    assert "86 new" in result.stderr
    local = tmp_path / "local.xml"
    local.write_bytes(API_PAGE.read_bytes())
    both = run("ingest", "http://a..b/x", str(local))
    assert both.exit_code == 1
    assert [line for line in both.stderr.splitlines() if line.startswith("Error:")] == [
        "Error: could not fetch http://a..b/x: http://a..b/x is not a valid URL (UnicodeError). "
        "Check the URL."
    ]
    assert "1 source ok, 1 error" in both.stderr  # the file after it was read all the same


def short_page(count: int, total: int | None) -> Callable[[int, int], Response]:
    """A page holding only its first ``count`` entries, saying ``total`` results (None:
    no opensearch:totalResults at all)."""

    def respond(start: int, size: int) -> Response:
        body = api_page(start, size, 25, entries=ENTRIES[start : start + count]).decode()
        if total is None:
            body = re.sub(r"<opensearch:totalResults>\d+</opensearch:totalResults>", "", body)
        else:
            body = re.sub(r"(<opensearch:totalResults>)\d+", rf"\g<1>{total}", body)
        return Response(body.encode(), content_type="application/atom+xml")

    return respond


Faults = dict[int, list[Callable[[int, int], Response]]]


@pytest.mark.parametrize(
    ("faults", "starts"),
    [
        # arXiv sent 5 of the 10 asked for: the next page starts at the 6th result.
        ({0: [short_page(5, 25)]}, [0, 5, 15]),
        # The second page says there are no results after all, then nothing: asked again.
        ({10: [short_page(0, 0)]}, [0, 10, 10, 20]),
        # No count of results on the first page: a full page means there may be more.
        ({0: [short_page(10, None)]}, [0, 10, 20]),
    ],
    ids=["short", "total-drops-to-0", "no-total"],
)
def test_a_short_or_miscounted_page_loses_no_paper(
    httpserver: HTTPServer, faults: Faults, starts: list[int]
) -> None:
    """Stepping a whole page size after a short page skipped its missing results for
    good, and a page saying fewer results (0, or none) ended the range: 20 or 10 of
    25 papers, exit 0."""
    api = FakeArxiv(httpserver)
    api.faults = faults
    result = fetch_api(api.url)
    assert result.exit_code == 0, result.stderr
    assert api.starts() == starts
    assert {p["arxiv_id"] for p in stored()} == ids(ENTRIES[:25])


def test_the_warnings_of_pages_stored_before_a_failure_are_said(httpserver: HTTPServer) -> None:
    """They were said only when the whole fetch succeeded: a window taken as ended
    (with the fetch that brings what it may lack) was never said, nor logged."""
    api = FakeArxiv(httpserver)
    future = [
        re.sub(r"<published>[^<]*", "<published>2099-01-01T00:00:00Z", e, count=1)
        for e in ENTRIES[:10]
    ]
    api.faults[0] = [lambda start, size: Response(api_page(start, size, 25, entries=future))]
    api.faults[10] = [status(404)]
    result = fetch_api(api.url)
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    warning = next(i for i, line in enumerate(lines) if line.startswith("Warning: "))
    assert "in the future" in lines[warning]
    assert lines[-1].startswith("Error: ") and "HTTP 404" in lines[-1]
    assert warning < len(lines) - 1
    log = (Path(os.environ["PAPERTRACK_HOME"]) / "papertrack.log").read_text(encoding="utf-8")
    assert lines[warning].removeprefix("Warning: ") in log


def test_a_retry_after_of_zero_waits_the_backoff_all_the_same(httpserver: HTTPServer) -> None:
    """Retry-After: 0 retried at once whatever --backoff said (six requests in 40 ms
    with --backoff 5, in a review)."""
    api = FakeArxiv(httpserver, total=5)
    api.faults[0] = [status(503, {"Retry-After": "0"}), status(503, {"Retry-After": "0"})]
    result = fetch_api(api.url, "--backoff", "0.4", "--retries", "2")
    assert result.exit_code == 0, result.stderr
    assert "5 new" in result.stderr and "1 page retried" in result.stderr
    assert result.stderr.count("Retrying in 0.4 s") == 2
    times = [t for t, _ in api.calls]
    assert times[1] - times[0] >= 0.39 and times[2] - times[1] >= 0.39, times


def test_a_retry_after_of_unicode_digits_is_no_crash(httpserver: HTTPServer) -> None:
    """ "²".isdigit() is True and float("²") fails: the fetch stopped with "This is a bug"."""
    api = FakeArxiv(httpserver, total=5)
    api.faults[0] = [status(503, {"Retry-After": "\u00b2"})]
    result = fetch_api(api.url)
    assert result.exit_code == 0, result.stderr
    assert "5 new" in result.stderr and "1 page retried" in result.stderr


def test_a_retry_after_of_400_digits_is_said_as_more_than_a_day(
    httpserver: HTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import papertrack.fetch

    monkeypatch.setattr(papertrack.fetch, "MAX_BACKOFF", 0.01)
    api = FakeArxiv(httpserver, total=5)
    api.faults[0] = [status(503, {"Retry-After": "9" * 400})]
    result = fetch_api(api.url)
    assert result.exit_code == 0, result.stderr
    assert "asked to wait more than a day, longer than papertrack waits" in result.stderr
    assert "inf" not in result.stderr


def test_an_answer_of_404_with_a_feed_is_an_error_not_papers(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/api/query").respond_with_data(
        api_page(0, 10, 5), status=404, content_type="application/atom+xml"
    )
    result = fetch_api(httpserver.url_for("/api/query"))
    error_line(result, 1, "answered HTTP 404")
    assert stored() == []


def test_entries_without_a_usable_id_are_counted_in_the_summary(httpserver: HTTPServer) -> None:
    broken = re.sub(r"<id>[^<]*</id>", "<id>not an id</id>", ENTRIES[0])
    broken = re.sub(r'<link[^>]*href="[^"]*"[^>]*/>', "", broken)
    body = api_page(0, 10, 3, entries=[broken, *ENTRIES[1:3]])
    httpserver.expect_request("/api/query").respond_with_data(body)
    result = fetch_api(httpserver.url_for("/api/query"))
    assert result.exit_code == 0, result.stderr
    assert result.stderr.strip() == "cs.AI, cs.CL: 2 new, 0 updated, 0 unchanged, 1 skipped"


def test_a_redirect_to_a_file_url_is_named_as_such(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/api/query").respond_with_data(
        "", status=302, headers={"Location": "file:///etc/passwd"}
    )
    result = fetch_api(httpserver.url_for("/api/query"))
    error_line(result, 1, "file:///etc/passwd", "not an http(s) address")


@pytest.mark.parametrize(
    ("option", "said"),
    [
        (("--since", "-7"), "bare number"),
        (("--since", "3.5"), "bare number"),
        (("--since", "0001-01-01"), "before arXiv opened"),
        (("--days", "700000"), "before arXiv opened"),
    ],
)
def test_a_range_arxiv_cannot_hold_is_refused_before_asking(
    httpserver: HTTPServer, option: tuple[str, str], said: str
) -> None:
    """dateutil read "-7" as January 7 (an 11-month backfill), and a year below 1000
    made the query "[101010000 TO …]"."""
    api = FakeArxiv(httpserver)
    result = run("fetch", "-c", "cs.AI", *option, "--interval", "0", "--api-url", api.url)
    error_line(result, 2, said)
    assert api.calls == []


def test_a_listing_dated_in_the_future_is_not_recorded(httpserver: HTTPServer) -> None:
    """Recorded, it hid every missed day until that date and called the next real
    listing one "fetched before"."""
    raw = LISTING.read_text(encoding="utf-8")
    head = raw[: raw.index("<entry>")]

    def serve(body: str) -> Result:
        httpserver.clear()
        httpserver.expect_request("/atom/cs.AI").respond_with_data(body.encode())
        url = httpserver.url_for("/atom")
        return run("fetch", "-c", "cs.AI", "--interval", "0", "--listing-url", url)

    # (An empty listing is recorded, a Saturday's as a weekday's.)
    assert serve(head.replace("2025-08-20", "2025-08-16") + "</feed>\n").exit_code == 0
    future = serve(head.replace("2025-08-20", "2099-01-05") + "</feed>\n")
    assert future.exit_code == 0, future.stderr
    real = serve(raw)
    assert real.exit_code == 0, real.stderr
    assert "86 new" in real.stderr and "fetched before" not in real.stderr
    assert "for 2 days from 2025-08-18 to 2025-08-19" in real.stderr


def test_state_updates_wait_for_each_other(isolated_home: Path) -> None:
    """Two fetches read, changed and wrote fetch-checkpoint.json at once, and one put
    back the entry the other had just removed."""
    import threading

    from papertrack.files import Lock, StateFile
    from papertrack.paths import FETCH_STATE_LOCK

    state = StateFile(isolated_home / "fetch-checkpoint.json")
    state.write({"a": 1})
    held = Lock(isolated_home / FETCH_STATE_LOCK, 5)
    held.acquire()
    done = threading.Event()

    def add_b(data: dict[str, Any]) -> dict[str, Any]:
        return {**data, "b": 2}

    worker = threading.Thread(
        target=lambda: (state.update(add_b, Lock(isolated_home / FETCH_STATE_LOCK, 5)), done.set())
    )
    worker.start()
    assert not done.wait(0.3)  # it waits for the lock
    state.write({"a": 1, "c": 3})  # what the holder wrote meanwhile is kept
    held.release()
    worker.join(5)
    assert done.is_set() and state.read() == {"a": 1, "b": 2, "c": 3}


def test_a_smaller_count_on_a_later_page_ends_the_range_without_error(
    httpserver: HTTPServer,
) -> None:
    """Counts drift during a long fetch: kept at the largest, the empty page after the
    last result was taken for arXiv's glitch, retried, and the fetch failed."""
    api = FakeArxiv(httpserver, total=20)
    api.faults[0] = [short_page(10, 25)]
    result = fetch_api(api.url)
    assert result.exit_code == 0, result.stderr
    assert api.starts() == [0, 10]
    assert {p["arxiv_id"] for p in stored()} == ids(ENTRIES[:20])


def test_a_resumed_range_keeps_the_count_an_earlier_page_reported(
    httpserver: HTTPServer, isolated_home: Path
) -> None:
    """The checkpoint kept the window's count but the resume dropped it: a page then
    saying 0 results ended the range at 20 of 25, exit 0."""
    api = FakeArxiv(httpserver)
    api.faults[10] = [short_page(10, 0)]
    store = Store(store_dir())
    settings = _settings(isolated_home, api.url)
    window = (date(2026, 8, 1), date(2026, 8, 7))
    with pytest.raises(KeyboardInterrupt):
        fetch_range(["cs.AI"], *window, _upsert(store), settings, progress=stop_after_first_page)
    fetch_range(["cs.AI"], *window, _upsert(store), settings)
    assert api.starts() == [0, 10, 20]
    assert store.count() == 25


def test_pages_without_a_count_stop_at_the_api_cap(httpserver: HTTPServer) -> None:
    """Full pages without a count were asked for forever."""
    from papertrack import fetch

    calls = []

    def next_page(request: Request) -> Response:
        start = int(request.args["start"])
        calls.append(start)
        return short_page(10, None)(start, 10)

    httpserver.expect_request("/api/query").respond_with_handler(next_page)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fetch, "API_CAP", 20)
        result = fetch_api(httpserver.url_for("/api/query"))
    assert result.exit_code == 0, result.stderr
    assert calls == [0, 10]


@pytest.mark.parametrize("total", [None, 600])
def test_a_server_that_ignores_start_is_an_error_not_the_same_papers_again(
    httpserver: HTTPServer, total: int | None
) -> None:
    """A server or caching proxy that ignores start sent the first page for every start:
    the fetch walked to the count (or the cap), reported '30 new, 570 unchanged' and
    exit 0, and 570 of the papers were never received."""
    calls = []

    def same_page(request: Request) -> Response:
        calls.append(int(request.args["start"]))
        return short_page(10, total)(0, 10)

    httpserver.expect_request("/api/query").respond_with_handler(same_page)
    result = fetch_api(httpserver.url_for("/api/query"), "--retries", "1")
    line = error_line(result, 1, "the page before result 10 again", "Check --api-url")
    # Running again meets the same page: not advised (a review: each night's run then
    # took the repeated page as new, its checkpoint moving on by one page a night).
    assert "run the same command again" not in line
    assert calls == [0, 10, 10]
    assert len(stored()) == 10
    again = fetch_api(httpserver.url_for("/api/query"), "--retries", "0")
    error_line(again, 1, "the page before result 10 again", "Check --api-url")
    assert calls[3:] == [10]  # resumed where it stopped, and the page still refused
    checkpoint = json.loads(
        (Path(os.environ["PAPERTRACK_HOME"]) / "fetch-checkpoint.json").read_text("utf-8")
    )
    assert [entry["start"] for entry in checkpoint.values()] == [10]


def test_a_count_the_page_itself_contradicts_is_read_as_no_count(httpserver: HTTPServer) -> None:
    """A page of 10 saying 0 results ended the window after it: 15 of 25 papers never
    asked for, exit 0."""
    api = FakeArxiv(httpserver)
    api.faults[0] = [short_page(10, 0)]
    result = fetch_api(api.url)
    assert result.exit_code == 0, result.stderr
    assert api.starts() == [0, 10, 20]
    assert {p["arxiv_id"] for p in stored()} == ids(ENTRIES[:25])


def test_an_empty_page_on_two_runs_ends_the_window_instead_of_every_run(
    httpserver: HTTPServer,
) -> None:
    """A count arXiv never fills (1,000 reported, 25 sent) failed at the empty page after
    the last paper, and every later run resumed there and failed again: a cron line
    'fetch -q && digest' never got past it."""
    api = FakeArxiv(httpserver, total=25)

    def inflated(start: int, size: int) -> Response:
        body = api_page(start, size, 25).decode()
        return Response(re.sub(r"(<opensearch:totalResults>)\d+", r"\g<1>1000", body))

    for start in (0, 10, 20, 25):
        api.faults[start] = [inflated] * 10
    first = fetch_api(api.url, "--retries", "1")
    error_line(first, 1, "empty page although 1,000 results", "run the same command again")
    assert api.starts() == [0, 10, 20, 25, 25]  # the empty page tried twice
    assert len(stored()) == 25
    again = fetch_api(api.url, "--retries", "1")
    assert again.exit_code == 0, again.stderr
    assert "reports 1,000 results but sent none past result 25, on two runs" in again.stderr
    # Tried once more, not --retries more times: they were all tried the run before.
    assert api.starts()[5:] == [25]
    # Nothing is left stuck in the checkpoint: the next run starts afresh.
    kept = json.loads((Path(os.environ["PAPERTRACK_HOME"]) / "fetch-checkpoint.json").read_text())
    assert not any("window" in str(state) for state in kept.values()), kept
    # A count still unfilled on the next night's run: a few missing is taken as the end
    # at once (the mark of the failed run was gone, and a nightly fetch failed every
    # other night); most of a window missing is arXiv's glitch, and taken as the end
    # it lost papers for good, so that run fails first again.
    third = fetch_api(api.url, "--retries", "1")
    error_line(third, 1, "empty page although 1,000 results")

    def short(by: int) -> Callable[[int, int], Response]:
        def page(start: int, size: int) -> Response:
            body = api_page(start, size, 25).decode()
            return Response(re.sub(r"(<opensearch:totalResults>)\d+", rf"\g<1>{25 + by}", body))

        return page

    for start in (0, 10, 20, 25):
        api.faults[start] = [short(3)] * 10
    api.calls.clear()
    fourth = fetch_api(api.url, "--retries", "1", "--since", "2026-08-02")
    assert fourth.exit_code == 0, fourth.stderr
    assert "arXiv reports 28 results but sent none past result 25, as on an earlier run" in (
        fourth.stderr
    )
    assert "if papers of it are missing later: papertrack fetch -c cs.AI -c cs.CL --since" in (
        " ".join(fourth.stderr.split())
    )
    assert api.starts() == [0, 10, 20, 25]  # the empty page once, at once
    # A whole window empty at result 0 is the glitch, mark or no mark: never the end.
    for start in (0, 10, 20, 25):
        api.faults[start] = [empty_page(25)] * 10
    glitch = fetch_api(api.url, "--retries", "1", "--since", "2026-08-03")
    error_line(glitch, 1, "empty page although 25 results")
    assert len(stored()) == 25


def test_run_locks_do_not_pile_up_in_the_data_home(httpserver: HTTPServer) -> None:
    """Each range option has its own run lock: a cron job with a moving --since
    left one fetch-run-*.lock a night in the data home, for good."""
    from papertrack.files import Lock

    home = Path(os.environ["PAPERTRACK_HOME"])
    api = FakeArxiv(httpserver, total=25)
    home.mkdir(parents=True, exist_ok=True)
    running = Lock(home / "fetch-run-0123456789ab.lock", 0)  # a fetch running now
    running.acquire()
    try:
        for since in ("2026-08-01", "2026-08-02", "2026-08-03"):
            done = fetch_api(api.url, "--since", since)
            assert done.exit_code == 0, done.stderr
        assert sorted(p.name for p in home.glob("fetch-run-*.lock")) == [running.path.name]
    finally:
        running.release()
    # A stopped fetch keeps its checkpoint, and the lock that guards it.
    api.faults[10] = [status(503)] * 3
    failed = fetch_api(api.url, "--since", "2026-08-04", "--retries", "0")
    assert failed.exit_code == 1
    assert len(list(home.glob("fetch-run-*.lock"))) == 1
    assert fetch_api(api.url, "--since", "2026-08-05").exit_code == 0
    assert len(list(home.glob("fetch-run-*.lock"))) == 1


def test_checkpoints_of_fetches_not_run_for_a_month_go_with_their_locks(
    httpserver: HTTPServer,
) -> None:
    """A cron job with a moving --since names a new fetch every night: each night it
    failed left a checkpoint entry, and the lock that guards it, for good."""
    from papertrack.fetch import _run_lock_name
    from papertrack.paths import FETCH_CHECKPOINT

    home = Path(os.environ["PAPERTRACK_HOME"])
    api = FakeArxiv(httpserver, total=25)
    api.faults[10] = [status(503)] * 3
    failed = fetch_api(api.url, "--since", "2026-08-04", "--retries", "0")
    assert failed.exit_code == 1
    path = home / FETCH_CHECKPOINT
    kept = json.loads(path.read_text())
    (recent,) = kept
    assert kept[recent]["saved"]  # dated when saved
    # Two nights long ago, one saved by an older papertrack (undated).
    kept["api old night"] = {**kept[recent], "saved": "2000-01-01"}
    kept["api undated"] = {k: v for k, v in kept[recent].items() if k != "saved"}
    path.write_text(json.dumps(kept), encoding="utf-8")
    for key in ("api old night", "api undated"):
        (home / _run_lock_name(key)).touch()
    api.faults.clear()
    assert fetch_api(api.url, "--since", "2026-08-05").exit_code == 0
    left = json.loads(path.read_text())
    # The month-old entry and its lock are gone; the undated one is dated now, and the
    # failed run's, saved today, stays to be resumed.
    assert sorted(left) == sorted([recent, "api undated"])
    assert left["api undated"]["saved"] == left[recent]["saved"]
    # Dated also by a save that changes nothing else (a finished run of a fetch
    # with no checkpoint), the older papertrack's entry not counting as no change.
    left["api undated"].pop("saved")
    path.write_text(json.dumps(left), encoding="utf-8")
    assert fetch_api(api.url, "--since", "2026-08-06").exit_code == 0
    assert json.loads(path.read_text())["api undated"]["saved"] == left[recent]["saved"]
    locks = {p.name for p in home.glob("fetch-run-*.lock")}
    assert locks == {_run_lock_name(recent), _run_lock_name("api undated")}


def test_an_unfilled_count_whose_window_grew_overnight_fails_one_night_only(
    httpserver: HTTPServer,
) -> None:
    """A window that ends today gains papers overnight: its empty page moved from
    result 10 to 12, read as a new place, and the second night failed too."""
    api = FakeArxiv(httpserver, total=10)

    def counted(sent: int, said: int) -> Callable[[int, int], Response]:
        def page(start: int, size: int) -> Response:
            body = api_page(start, size, sent).decode()
            return Response(re.sub(r"(<opensearch:totalResults>)\d+", rf"\g<1>{said}", body))

        return page

    for start in (0, 10):
        api.faults[start] = [counted(10, 13)] * 10
    error_line(fetch_api(api.url, "--retries", "1"), 1, "empty page although 13 results")
    for start in (10, 12):
        api.faults[start] = [counted(12, 15)] * 10
    api.calls.clear()
    second = fetch_api(api.url, "--retries", "1")
    assert second.exit_code == 0, second.stderr
    assert "sent none past result 12, on two runs" in second.stderr
    assert api.starts() == [10, 12]
    assert len(stored()) == 12


def test_a_run_that_failed_before_its_first_page_is_resumed_with_its_days(
    httpserver: HTTPServer, isolated_home: Path
) -> None:
    """A --days run ends today: two nights failing at their first page kept no
    checkpoint, and the days they asked for fell out of the next night's range."""
    api = FakeArxiv(httpserver)
    store = Store(store_dir())
    settings = _settings(isolated_home, api.url)
    retries = dataclasses.replace(settings, retries=0)
    for night in (1, 2):  # two nights fail at their first page
        api.faults[0] = [status(503)]
        with pytest.raises(FetchError):
            fetch_range(["cs.AI"], date(2026, 8, night), date(2026, 8, night + 2),
                        _upsert(store), retries, run="--days 2")  # fmt: skip
    api.calls.clear()
    report = fetch_range(
        ["cs.AI"], date(2026, 8, 3), date(2026, 8, 5), _upsert(store), settings, run="--days 2"
    )
    queries = api.queries()
    assert "202608010000 TO 202608032359" in queries[0], queries  # the first night's days
    assert report.resumed_at == 0 and store.count() == 25


def test_a_days_run_after_a_week_of_failures_still_asks_for_the_first_nights_days(
    httpserver: HTTPServer, isolated_home: Path
) -> None:
    """A nightly --days 1 that failed six nights running dropped the first failed
    night's window once the new range no longer reached it: its papers were never
    asked for, and the run that dropped it said nothing (exit 0)."""
    api = FakeArxiv(httpserver)
    store = Store(store_dir())
    settings = _settings(isolated_home, api.url)
    retries = dataclasses.replace(settings, retries=0)
    for night in range(1, 7):  # Aug 1 to Aug 6 fail at their first page
        api.faults[0] = [status(503)]
        with pytest.raises(FetchError):
            fetch_range(["cs.AI"], date(2026, 8, night) - timedelta(days=5),
                        date(2026, 8, night), _upsert(store), retries, run="--days 1")  # fmt: skip
    api.calls.clear()
    fetch_range(
        ["cs.AI"], date(2026, 8, 2), date(2026, 8, 7), _upsert(store), settings, run="--days 1"
    )
    asked = " ".join(api.queries())
    assert "202607270000 TO 202608012359" in asked, asked  # the first night's days
    assert "202608020000" in asked  # and the new ones


def test_a_days_run_after_days_off_asks_for_the_days_no_fetch_asked_for(
    httpserver: HTTPServer, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A nightly --days 1 on a machine off for a week asked for the last six days
    only: the papers submitted before them were never asked for, exit 0, no word,
    where a listing cron names every day it missed. It now reaches back to where the
    last fetch left off, allowing for papers that fetch ran too early to get (sent
    days before it, announced after it); further than a month back, it names them."""
    from papertrack import fetch

    api = FakeArxiv(httpserver)
    store = Store(store_dir())
    settings = _settings(isolated_home, api.url)

    def night(day: date, *, catch_up: bool = True) -> tuple[list[str], list[str], str]:
        moment = datetime(day.year, day.month, day.day, 6, 30, tzinfo=UTC)
        monkeypatch.setattr(fetch, "_now", lambda: moment)
        api.calls.clear()
        report = fetch_range(["cs.AI"], day - timedelta(days=5), day, _upsert(store), settings,
                             run="--days 1", catch_up=catch_up)  # fmt: skip
        return report.notes, report.warnings, api.queries()[0]

    assert night(date(2026, 8, 6))[:2] == ([], [])  # the first: nothing before it
    # The next night: its own days reach back to what the last could not get.
    assert night(date(2026, 8, 7))[:2] == ([], [])
    notes, warnings, asked = night(date(2026, 8, 11))  # three nights off
    # The Aug 7 run had the listing of Aug 7: papers sent after Aug 3 may come later.
    assert notes == [
        "Also asking for the papers submitted from 2026-08-04 to 2026-08-05: no fetch "
        "asked for all of them after the last one."
    ]
    assert warnings == [] and "202608040000 TO 202608112359" in asked
    assert night(date(2026, 8, 12))[:2] == ([], [])  # caught up
    notes, warnings, asked = night(date(2026, 10, 30))  # two months and more off
    # The last month is fetched; the days before it are named, with the fetch.
    assert notes == [
        "Also asking for the papers submitted from 2026-09-24 to 2026-10-24: no fetch "
        "asked for all of them after the last one."
    ]
    (said,) = warnings
    assert "papers of cs.AI submitted from 2026-08-09 to 2026-09-23" in said
    assert said.endswith("Fetch them: papertrack fetch -c cs.AI --since 2026-08-09")
    # Named again the next night, until a fetch brings them.
    assert night(date(2026, 10, 31))[1] == [said]
    night(date(2026, 11, 1), catch_up=False)  # the user's --since, here of its own days
    assert night(date(2026, 11, 2))[1] == [said]
    # A listings file that cannot be written names them all the same.
    from papertrack import paths
    from papertrack.files import StateFile

    update = StateFile.update

    def unwritable(self: StateFile, *args: Any, **kwargs: Any) -> None:
        if self.path.name == paths.FETCH_LISTINGS:
            raise OSError(13, "Permission denied")
        update(self, *args, **kwargs)

    with monkeypatch.context() as patched:
        patched.setattr(StateFile, "update", unwritable)
        assert night(date(2026, 11, 2))[1] == [said]
    # Named for a month from the night that first named it, then no more (one fetch
    # tried months before a cron began was named every night for four months).
    assert night(date(2026, 11, 30))[1] == [said]
    assert night(date(2026, 12, 1))[1] == []
    fetch_range(["cs.AI"], date(2026, 8, 9), date(2026, 11, 2), _upsert(store), settings,
                run="--since 2026-08-09")  # fmt: skip
    assert night(date(2026, 11, 3))[:2] == ([], [])
    # A range asked for by its days (--since) is taken as asked.
    assert night(date(2026, 11, 30), catch_up=False)[:2] == ([], [])


def test_a_fetch_of_other_days_does_not_hide_a_gap_from_the_next_days_run(
    httpserver: HTTPServer, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The coverage was one span, replaced by a fetch that did not join it: a --since
    by hand after days off (1,248 papers), or a clock set two months back, and the
    next --days run saw no gap, or named two months the cron had fetched."""
    from papertrack import fetch

    api = FakeArxiv(httpserver)
    store = Store(store_dir())
    settings = _settings(isolated_home, api.url)

    def at(day: date, first: date, *, catch_up: bool = True) -> list[str]:
        moment = datetime(day.year, day.month, day.day, 6, 30, tzinfo=UTC)
        monkeypatch.setattr(fetch, "_now", lambda: moment)
        run = "--days 1" if catch_up else f"--since {first}"
        report = fetch_range(["cs.AI"], first, day, _upsert(store), settings, run=run,
                             catch_up=catch_up)  # fmt: skip
        return report.notes

    for day in (6, 7):
        assert at(date(2026, 8, day), date(2026, 8, day - 5)) == []
    at(date(2026, 6, 7), date(2026, 6, 2))  # a clock two months back: old days, noted too
    at(date(2026, 8, 20), date(2026, 8, 12), catch_up=False)  # "this week", by hand
    notes = at(date(2026, 8, 21), date(2026, 8, 16))
    assert notes == [
        "Also asking for the papers submitted from 2026-08-04 to 2026-08-15: no fetch "
        "asked for all of them after the last one."
    ]


def test_a_client_clock_ahead_of_the_servers_vouches_for_no_day_and_damage_is_no_crash(
    httpserver: HTTPServer, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A clock a month fast noted days arXiv had not announced as fetched, so a gap
    later went unnamed (945 papers); a "spans" of the wrong kind in the file stopped
    every --days run with "failed unexpectedly"."""
    from papertrack import fetch, paths
    from papertrack.files import StateFile

    api = FakeArxiv(httpserver)  # its answers carry the real time in their Date header
    store = Store(store_dir())
    settings = _settings(isolated_home, api.url)
    ahead = datetime.now(UTC) + timedelta(days=60)
    monkeypatch.setattr(fetch, "_now", lambda: ahead)
    day = ahead.date()
    fetch_range(["cs.AI"], day - timedelta(days=5), day, _upsert(store), settings,
                run="--days 1", catch_up=True)  # fmt: skip
    listings = StateFile(isolated_home / paths.FETCH_LISTINGS)
    record = listings.read().get("api days cs.AI")
    assert record is None  # none of those days had come: none is noted as brought
    # A record damaged by hand is read as none, and written anew.
    for damaged in (5, True, "x", None, [["2026-01-01"]]):
        listings.write({"api days cs.AI": {"from": "2026-08-01", "spans": damaged}})
        fetch_range(["cs.AI"], day - timedelta(days=5), day, _upsert(store), settings,
                    run="--days 1", catch_up=True)  # fmt: skip


def test_a_gap_of_one_category_of_a_line_names_that_category_alone(
    httpserver: HTTPServer, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two cron lines joined into one: the warning named and refetched both
    categories, where one had no gap."""
    from papertrack import fetch

    api = FakeArxiv(httpserver)
    store = Store(store_dir())
    settings = _settings(isolated_home, api.url)

    def at(day: date, cats: list[str]) -> list[str]:
        moment = datetime(day.year, day.month, day.day, 6, 30, tzinfo=UTC)
        monkeypatch.setattr(fetch, "_now", lambda: moment)
        first = day - timedelta(days=5)
        return fetch_range(cats, first, day, _upsert(store), settings, run="--days 1",
                           catch_up=True).warnings  # fmt: skip

    at(date(2026, 8, 6), ["cs.CL"])  # cs.CL's line stops here
    for day in range(6, 32):
        at(date(2026, 8, day), ["cs.AI"])  # cs.AI's goes on
    (said,) = at(date(2026, 10, 1), ["cs.AI", "cs.CL"])
    assert "the papers of cs.CL submitted from 2026-08-03 to 2026-08-25" in said
    assert said.endswith("Fetch them: papertrack fetch -c cs.CL --since 2026-08-03")


def test_a_days_run_after_days_off_also_asks_for_the_days_since_the_last_fetch(
    httpserver: HTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command says what it reached back for (in the log alone with -q, in the
    JSON's notes), and names what it did not."""
    from papertrack import fetch

    api = FakeArxiv(httpserver)

    def night(day: date, *extra: str) -> Result:
        moment = datetime(day.year, day.month, day.day, 6, 30, tzinfo=UTC)
        monkeypatch.setattr(fetch, "_now", lambda: moment)
        monkeypatch.setattr(fetch, "today", lambda: day)
        api.calls.clear()
        done = run("fetch", "-c", "cs.AI", "--days", "1", *extra, *_API_ARGS, api.url)
        assert done.exit_code == 0, done.stderr
        return done

    assert "Also asking" not in night(date(2026, 8, 6)).stderr
    late = night(date(2026, 8, 15))  # eight days off
    said = "Also asking for the papers submitted from 2026-08-03 to 2026-08-09"
    assert said in late.stderr and "Warning" not in late.stderr
    assert "202608030000 TO 202608152359" in " ".join(api.queries())
    quiet = night(date(2026, 8, 20), "-q", "--json")  # four days off, quietly
    assert quiet.stderr == ""
    assert any(n.startswith("Also asking") for n in json.loads(quiet.stdout)["notes"])
    from papertrack.paths import home

    assert "Also asking for the papers submitted from 2026-08-12" in (
        home() / "papertrack.log"
    ).read_text(encoding="utf-8")
    months = night(date(2026, 10, 30))  # off for over two months
    assert "Also asking for the papers submitted from 2026-09-24" in months.stderr
    assert "papertrack fetch -c cs.AI --since 2026-08-17" in months.stderr


def test_a_moving_since_meets_an_unfilled_count_on_one_night_only(
    httpserver: HTTPServer,
) -> None:
    """Each night's --since is another command: no run met the stuck page again,
    and every night failed while arXiv's count stayed a few too high."""
    api = FakeArxiv(httpserver, total=25)

    def counted(start: int, size: int) -> Response:
        body = api_page(start, size, 25).decode()
        return Response(re.sub(r"(<opensearch:totalResults>)\d+", r"\g<1>28", body))

    for night, since in enumerate(("2026-08-01", "2026-08-02", "2026-08-03")):
        for start in (0, 10, 20, 25):
            api.faults[start] = [counted] * 10
        done = fetch_api(api.url, "--retries", "1", "--since", since, "-q")
        if night == 0:
            error_line(done, 1, "empty page although 28 results")
        else:
            # Known after the first time: in the log, not in cron's mail every night.
            assert done.exit_code == 0, done.stderr
            assert done.stderr == ""
    from papertrack.paths import home

    logged = (home() / "papertrack.log").read_text(encoding="utf-8")
    assert logged.count("Note: cs.AI, cs.CL") == 2
    assert "sent none past result 25, as on an earlier run" in logged
    done = fetch_api(api.url, "--retries", "1", "--since", "2026-08-04")
    assert "Note: cs.AI, cs.CL" in done.stderr  # without -q it is said
    assert len(stored()) == 25


def test_a_password_in_a_fetch_url_is_never_printed(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/atom/cs.AI").respond_with_data("down", status=404)
    url = f"http://reader:s3cret@127.0.0.1:{httpserver.port}/atom"
    failed = run("fetch", "-c", "cs.AI", "--interval", "0", "--retries", "0", "--listing-url", url)
    line = error_line(failed, 1, "answered HTTP 404")
    assert "reader:***@127.0.0.1" in line and "s3cret" not in failed.stderr


def test_a_key_in_a_mirrors_query_is_never_printed_or_logged(httpserver: HTTPServer) -> None:
    from papertrack.net import without_password

    httpserver.expect_request("/atom/cs.AI").respond_with_data("down", status=404)
    Path(os.environ["PAPERTRACK_HOME"]).mkdir(parents=True)  # the log is kept there
    url = f"http://127.0.0.1:{httpserver.port}/atom?key=s3cret&lang=en"
    failed = run("fetch", "-c", "cs.AI", "--interval", "0", "--retries", "0", "--listing-url", url)
    line = error_line(failed, 1, "answered HTTP 404")
    assert "key=***&lang=en" in line and "s3cret" not in failed.stderr
    log = Path(os.environ["PAPERTRACK_HOME"]) / "papertrack.log"
    assert "s3cret" not in log.read_text(encoding="utf-8")
    # Names like a secret's, not words that hold one (monkey, keyword).
    assert without_password("https://m/x?X-Amz-Signature=a&access_token=b&monkey=c&keyword=d") == (
        "https://m/x?X-Amz-Signature=***&access_token=***&monkey=c&keyword=d"
    )
    arxiv = "https://export.arxiv.org/api/query?search_query=cat:cs.AI&start=0&max_results=9"
    assert without_password(arxiv) == arxiv
    # A URL Python cannot split (a bracket left open), which an error quotes.
    assert without_password("http://u:pw@[::1/api?x=1&key=s3cret") == (
        "http://u:***@[::1/api?x=1&key=***"
    )


def test_a_password_in_a_fetch_url_stays_out_of_warnings_and_the_log(
    httpserver: HTTPServer,
) -> None:
    # Warnings about a feed's papers named the feed by its URL, password and all.
    body = LISTING.read_bytes().replace(b"<published>2025-08-20", b"<published>2099-08-20", 1)
    httpserver.expect_request("/atom/cs.AI").respond_with_data(body)
    url = f"http://reader:s3cret@127.0.0.1:{httpserver.port}/atom"
    done = run("fetch", "-c", "cs.AI", "--interval", "0", "--listing-url", url)
    assert done.exit_code == 0, done.stderr
    assert "cannot be right" in done.stderr and "reader:***@127.0.0.1" in done.stderr
    log = Path(os.environ["PAPERTRACK_HOME"]) / "papertrack.log"
    assert "s3cret" not in done.stderr and "s3cret" not in log.read_text(encoding="utf-8")


def test_a_gzipped_answer_is_read_as_ingest_reads_it(httpserver: HTTPServer) -> None:
    # A proxy or mirror that compresses unasked: fetch retried "a malformed body".
    httpserver.expect_request("/atom/cs.AI").respond_with_data(
        gzip.compress(LISTING.read_bytes()),
        headers={"Content-Encoding": "gzip"},
        content_type="application/atom+xml",
    )
    url = httpserver.url_for("/atom")
    result = run("fetch", "-c", "cs.AI", "--interval", "0", "--retries", "0", "--listing-url", url)
    assert result.exit_code == 0, result.stderr
    assert "86 new" in result.stderr


def test_an_older_listing_served_late_is_not_called_fetched_before(
    httpserver: HTTPServer, isolated_home: Path
) -> None:
    assert "86 new" in fetch_listing_of(httpserver, "2025-08-22").stderr
    shutil.rmtree(isolated_home / "store")  # the papers go; the listings fetched stay known
    late = fetch_listing_of(httpserver, "2025-08-21")  # never fetched, older than the last
    assert late.exit_code == 0, late.stderr
    assert "86 new" in late.stderr and "fetched before" not in late.stderr


class _Proxy:
    """An HTTP proxy on 127.0.0.1 that answers every GET with the recorded listing
    itself and refuses CONNECT with 407, keeping what it was asked."""

    def __init__(self) -> None:
        import http.server
        import threading

        asked: list[tuple[str, str, dict[str, str]]] = []
        body = LISTING.read_bytes()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the http.server name
                asked.append(("GET", self.path, dict(self.headers)))
                self.send_response(200)
                self.send_header("Content-Type", "application/atom+xml")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_CONNECT(self) -> None:  # noqa: N802
                asked.append(("CONNECT", self.path, dict(self.headers)))
                self.send_response(407, "Proxy Authentication Required")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.asked = asked
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_fetch_goes_through_the_proxy_the_environment_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """http_proxy and https_proxy were ignored: behind a university's proxy fetch could
    never work, and its error blamed the network or the URL."""
    proxy = _Proxy()
    try:
        monkeypatch.setenv("http_proxy", proxy.url.replace("http://", "http://ann:s%40cret@"))
        result = run("fetch", "-c", "cs.AI", "--listing-url", "http://arxiv.example/rss")
        assert result.exit_code == 0, result.stderr
        assert len(stored()) == 86
        [(verb, path, headers)] = proxy.asked
        # The whole URL to the proxy, the host as the target's, the proxy's credentials.
        assert (verb, path) == ("GET", "http://arxiv.example/rss/cs.AI")
        assert headers["Host"] == "arxiv.example"
        assert headers["Proxy-Authorization"] == "Basic YW5uOnNAY3JldA=="  # ann:s@cret
        # A host no_proxy names, and this machine, are asked directly.
        monkeypatch.setenv("no_proxy", "arxiv.example")
        direct = run("fetch", "-c", "cs.AI", "--listing-url", "http://arxiv.example/rss")
        assert "arxiv.example" in direct.stderr and len(proxy.asked) == 1
        monkeypatch.delenv("no_proxy")
        # https tunnels through it: the proxy's refusal is said as the proxy's.
        monkeypatch.setenv("https_proxy", proxy.url)
        tunnel = run("fetch", "-c", "cs.AI", "--listing-url", "https://arxiv.example/rss")
        line = error_line(tunnel, 1, "the proxy 127.0.0.1 would not connect to arxiv.example")
        assert "407 Proxy Authentication Required" in line and "https_proxy" in line
        assert proxy.asked[-1][:2] == ("CONNECT", "arxiv.example:443")
    finally:
        proxy.close()


def test_a_user_and_password_in_the_url_are_sent_to_that_host(httpserver: HTTPServer) -> None:
    """They were hidden in messages and never sent: an authenticated mirror answered
    401, blamed on the URL."""
    seen: list[str | None] = []

    def answer(request: Request) -> Response:
        seen.append(request.headers.get("Authorization"))
        return Response(LISTING.read_bytes(), content_type="application/atom+xml")

    httpserver.expect_request("/rss/cs.AI").respond_with_handler(answer)
    url = httpserver.url_for("/rss").replace("http://", "http://ann:s%40cret@")
    result = run("fetch", "-c", "cs.AI", "--listing-url", url)
    assert result.exit_code == 0, result.stderr
    assert seen == ["Basic YW5uOnNAY3JldA=="]
    assert "cret" not in result.stderr


def test_a_name_lookup_that_fails_for_now_is_retried(
    httpserver: HTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """EAI_AGAIN, as a laptop's cron run right after waking gets before its network is
    up, failed the run at once; a name that does not exist still does."""
    import socket

    httpserver.expect_request("/rss/cs.AI").respond_with_data(
        LISTING.read_bytes(), content_type="application/atom+xml"
    )
    lookup = socket.getaddrinfo
    failures = [socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")]

    def getaddrinfo(*args: Any, **kwargs: Any) -> Any:
        if failures:
            raise failures.pop()
        return lookup(*args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    result = run("fetch", "-c", "cs.AI", "--listing-url", httpserver.url_for("/rss"),
                 "--interval", "0.01")  # fmt: skip
    assert result.exit_code == 0, result.stderr
    host = httpserver.host
    assert "Retrying in" in result.stderr and f"could not resolve {host} for now" in result.stderr
    assert len(stored()) == 86
    failures.append(socket.gaierror(socket.EAI_NONAME, "Name or service not known"))
    gone = run("fetch", "-c", "cs.AI", "--listing-url", httpserver.url_for("/rss"))
    error_line(gone, 1, f"could not resolve {host}: no network, or a typo in the URL")
    assert "Retrying" not in gone.stderr


def test_a_listing_url_with_a_query_keeps_it_and_takes_the_categories_in_its_path(
    httpserver: HTTPServer,
) -> None:
    """The categories were glued onto the query: ?token=abc/cs.AI."""
    from papertrack.fetch import listing_address

    assert listing_address("https://m.example/rss/?key=1", ["cs.AI", "cs.CL"]) == (
        "https://m.example/rss/cs.AI+cs.CL?key=1"
    )
    httpserver.expect_request("/rss/cs.AI", query_string="token=abc").respond_with_data(
        LISTING.read_bytes(), content_type="application/atom+xml"
    )
    result = run("fetch", "-c", "cs.AI", "--listing-url", httpserver.url_for("/rss?token=abc"))
    assert result.exit_code == 0, result.stderr
    assert len(stored()) == 86


def test_a_page_arriving_too_slowly_to_be_whole_in_time_says_what_helps() -> None:
    """A page arriving steadily, not whole within --timeout, was "a timeout reading
    from ...", and the error said to run the same command later, which failed alike."""
    import socket
    import threading

    body = LISTING.read_bytes()
    head = (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/atom+xml\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n"
    )
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(20)
    port = listener.getsockname()[1]
    stop = threading.Event()

    def drip() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(head)
            for start in range(0, len(body), 2048):
                if stop.wait(0.05):
                    return
                try:
                    conn.sendall(body[start : start + 2048])
                except OSError:
                    return

    server = threading.Thread(target=drip, daemon=True)
    server.start()
    try:
        result = run("fetch", "-c", "cs.AI", "--retries", "0", "--timeout", "1",
                     "--listing-url", f"http://127.0.0.1:{port}/rss")  # fmt: skip
    finally:
        stop.set()
        server.join(10)
        listener.close()
    # Tried once (--retries 0): arXiv "gave" it, not "kept sending" it.
    line = error_line(result, 1, "arXiv gave a page too slow to arrive whole in the time")
    assert "after 1 try" in line
    assert "KB came" in line and "Give each page longer (--timeout 180)" in line
    assert "--page-size" not in line  # a listing is one page


def test_days_reaches_back_as_far_as_arxiv_takes_to_announce(httpserver: HTTPServer) -> None:
    # A nightly `--days 1` asked for yesterday's and today's submissions, and arXiv
    # announces a Friday's on Sunday night: every Monday's papers were never fetched.
    from datetime import timedelta

    from papertrack.cli.fetch import ANNOUNCED_WITHIN

    api = FakeArxiv(httpserver)
    result = run(
        "fetch", "-c", "cs.AI", "--days", "1", "--page-size", "10",
        "--interval", str(INTERVAL), "--api-url", api.url,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    first = date.today() - timedelta(days=1 + ANNOUNCED_WITHIN)
    assert ANNOUNCED_WITHIN >= 4  # Thursday evening's, announced Monday at 01:00 UTC
    assert api.calls[0][1]["search_query"] == (
        f"cat:cs.AI AND submittedDate:[{first:%Y%m%d}0000 TO {date.today():%Y%m%d}2359]"
    )


def test_a_fetch_lock_held_too_long_names_no_setting_that_does_not_set_it(
    tmp_path: Path,
) -> None:
    """It said to raise PAPERTRACK_LOCK_TIMEOUT, which does not set this lock's wait."""
    import fcntl

    from papertrack.fetch import FetchSettings, _Throttle
    from papertrack.files import LockBusyError

    settings = FetchSettings(home=tmp_path, interval=3.0, pace_dir=tmp_path)
    lock = _Throttle(settings)._lock()
    assert lock.timeout >= 600  # ten requests' timeouts at the least
    with open(lock.path, "a+b") as other:
        fcntl.flock(other.fileno(), fcntl.LOCK_EX)  # another process's fetch
        lock.timeout = 0.1
        with pytest.raises(LockBusyError) as caught:
            lock.acquire()
    said = str(caught.value)
    assert "PAPERTRACK_LOCK_TIMEOUT" not in said and "Wait for the other fetch" in said
    # Nor does the lock of the fetch's state files (a fixed wait).
    from papertrack.fetch import _state_lock

    state = _state_lock(tmp_path)
    with open(state.path, "a+b") as other:
        fcntl.flock(other.fileno(), fcntl.LOCK_EX)
        state.timeout = 0.1
        with pytest.raises(LockBusyError) as caught:
            state.acquire()
    assert "PAPERTRACK_LOCK_TIMEOUT" not in str(caught.value)


def test_a_clock_stepped_back_costs_one_interval_not_the_step(tmp_path: Path) -> None:
    # NTP stepping the clock back 40 s after the last request made the next fetch
    # sleep 40 s in silence, holding the lock every fetch on the machine waits for.
    from papertrack.fetch import FetchSettings, _Throttle

    slept: list[float] = []
    now = [1_000_000.0]
    settings = FetchSettings(
        home=tmp_path, interval=3.0, sleep=slept.append, clock=lambda: now[0], pace_dir=tmp_path
    )
    throttle = _Throttle(settings)
    throttle.wait()
    assert slept == []  # the first request goes at once
    now[0] += 1.0
    throttle.wait()
    assert slept == [pytest.approx(2.0)]  # 1 s after the last: 2 s more
    now[0] -= 40.0  # the clock steps back
    throttle.wait()
    assert slept[-1] == pytest.approx(3.0)  # one interval, not 43 s
    now[0] += 10.0
    throttle.wait()
    assert len(slept) == 2  # an interval has passed: no wait


def test_json_of_ingest_and_fetch_carries_a_broken_topics_file_warning(
    httpserver: HTTPServer, isolated_home: Path
) -> None:
    """Said on stderr alone, a script reading the JSON never knew the new papers were
    tagged by the default topics until the file was fixed."""
    isolated_home.mkdir(parents=True, exist_ok=True)
    (isolated_home / "topics.toml").write_text("[[topic]\nname =", encoding="utf-8")
    ingested = run("ingest", "-q", "--json", str(LISTING))
    assert ingested.exit_code == 0, ingested.stderr
    (said,) = json.loads(ingested.stdout)["warnings"]
    assert "topics.toml is not valid TOML" in said and "default topics' tags" in said
    httpserver.expect_request("/atom/cs.AI").respond_with_data(LISTING.read_bytes())
    url = httpserver.url_for("/atom")
    fetched = run("fetch", "-c", "cs.AI", "-q", "--json", "--interval", "0", "--listing-url", url)
    assert fetched.exit_code == 0, fetched.stderr
    assert json.loads(fetched.stdout)["warnings"] == [said]


def test_fetch_json_gives_the_counts_on_stdout(httpserver: HTTPServer) -> None:
    """`fetch --json | jq .new` in a weekly script: the summary as numbers, on stdout,
    while people's messages stay on stderr (and -q keeps them in the log)."""
    httpserver.expect_request("/atom/cs.AI").respond_with_data(LISTING.read_bytes())
    args = ("fetch", "-c", "cs.AI", "--interval", "0", "--listing-url",
            httpserver.url_for("/atom"), "--json")  # fmt: skip
    first = run(*args)
    assert first.exit_code == 0, first.stderr
    report = json.loads(first.stdout)
    assert report["fetched"] is True and report["mode"] == "listing"
    assert report["categories"] == ["cs.AI"]
    assert (report["new"], report["updated"], report["unchanged"]) == (86, 0, 0)
    assert "cs.AI: 86 new" in first.stderr
    quiet = run(*args, "-q")
    assert quiet.exit_code == 0 and quiet.stderr == ""
    again = json.loads(quiet.stdout)
    assert (again["new"], again["unchanged"]) == (0, 86)


def test_a_listing_fetch_that_fails_on_a_fresh_machine_is_logged(isolated_home: Path) -> None:
    """The first nights of a new cron job: an API fetch's checkpoint made the data
    home and its log, a listing fetch left no trace but its stderr."""
    assert not isolated_home.exists()
    run("fetch", "-c", "cs.AI", "--listing-url", "http://127.0.0.1:9/atom", "--retries", "0")
    log = (isolated_home / "papertrack.log").read_text(encoding="utf-8")
    assert "[fetch] Error: 127.0.0.1:9 refused the connection." in log
