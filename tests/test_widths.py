"""Tables at the widths people use: slugs whole, titles with the spare width and unbroken words."""

from __future__ import annotations

import io
import json
import re
from datetime import date, timedelta
from pathlib import Path

import pytest

from tests.helpers import LISTING, run


@pytest.fixture(autouse=True)
def listing() -> None:
    assert run("ingest", str(LISTING)).exit_code == 0


def title_cells(table: str) -> list[list[str]]:
    """The lines of the Title column (the third of five), or of the Paper column (the
    second of three or two: title, authors, then tags), row by row, of a latest-papers
    table."""
    rows: list[list[str]] = []
    body = table.split("┩", 1)[1]
    for line in body.splitlines():
        cells = line.split("│")
        if len(cells) < 4:
            continue
        column = 3 if len(cells) >= 7 else 2
        if re.fullmatch(r"[A-Z][a-z]{2} \d{1,2}, \d{4}", cells[1].strip()):  # a new row
            rows.append([])
        if rows and cells[column].strip():
            rows[-1].append(cells[column].strip())
    return rows


@pytest.mark.parametrize("width", ["80", "160"])
def test_topics_shows_every_slug_whole(width: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", width)
    result = run("topics")
    assert result.exit_code == 0, result.stderr
    slugs = [t["topic"] for t in json.loads(run("topics", "--json").stdout)]
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= int(width)
    for slug in slugs:
        assert any(f" {slug} " in line for line in lines), slug
    assert "…" not in result.stdout


@pytest.mark.parametrize(
    ("width", "command"),
    [
        ("80", ("latest",)),
        ("80", ("topic", "large-language-models")),
        ("160", ("latest",)),
        ("160", ("topic", "large-language-models")),
    ],
)
def test_titles_get_the_width_and_whole_words(
    width: str, command: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", width)
    result = run(*command, "-n", "20")
    assert result.exit_code == 0, result.stderr
    topic = command[1:] if command[0] == "topic" else ()
    papers = json.loads(run("latest", *topic, "-n", "20", "--json").stdout)
    titles = [p["title"] for p in papers]
    if width == "80":
        # Below 100 columns the authors are under the title, in the same column.
        from papertrack.text import names_plus

        titles = [f"{p['title']} {names_plus(p['authors'])}" for p in papers]
    rows = title_cells(result.stdout)
    assert len(rows) == len(titles) == 20
    for lines, title in zip(rows, titles, strict=True):
        # Joined at the line breaks with a space, the lines give the title back:
        # no word was broken across two lines.
        assert " ".join(lines) == " ".join(title.split()), lines
        if width == "160":
            # At 160 columns the title column holds 60 characters or more: two lines
            # for any title up to 120 characters.
            assert len(lines) <= max(2, -(-len(title) // 60)), lines
    if width == "80":
        assert max(len(line) for line in result.stdout.splitlines()) <= 80
        assert "┃ Date         ┃ Paper" in result.stdout


@pytest.mark.parametrize("width", ["45", "60", "99"])
def test_a_narrow_table_breaks_no_word_of_a_title_or_name(
    width: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from papertrack.render import format_tags
    from papertrack.text import names_plus
    from papertrack.topics import Catalog

    names = {t.slug: t.name for t in Catalog.default().topics}

    monkeypatch.setenv("COLUMNS", width)
    result = run("latest", "-n", "20")
    assert result.exit_code == 0, result.stderr
    assert max(len(line) for line in result.stdout.splitlines()) <= int(width)
    papers = json.loads(run("latest", "-n", "20", "--json").stdout)
    rows = title_cells(result.stdout)
    assert len(rows) == len(papers) == 20
    for lines, paper in zip(rows, papers, strict=True):
        # Five columns at 60 left the authors three characters: "Tia", "nyi".
        title = " ".join(paper["title"].split())
        expected = f"{title} {names_plus(paper['authors'])}"
        if width == "45":  # two columns: the tags under the authors
            expected = f"{expected} {format_tags(paper['tags'], names, shown=4)}".rstrip()
        assert " ".join(lines) == expected


@pytest.mark.parametrize("width", ["80", "100", "160"])
def test_no_tag_word_is_broken_across_lines(width: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from papertrack.topics import Catalog

    monkeypatch.setenv("COLUMNS", width)
    result = run("latest", "-n", "20")
    assert result.exit_code == 0, result.stderr
    words = {w for t in Catalog.default().topics for w in t.name.split()}
    body = result.stdout.split("┩", 1)[1]
    pieces = set()
    for line in body.splitlines():
        cells = line.split("│")
        if len(cells) >= 5:
            pieces.update(cells[-2].replace("·", " ").split())  # the Tags column
    # Every piece of a tag cell is a whole word of a topic name (or a "+N" count).
    assert all(p in words or p.startswith("+") for p in pieces), pieces - words
    assert "Reinforcement" in pieces or "Learning" not in pieces


@pytest.mark.parametrize("width", ["40", "50", "60", "79"])
def test_narrow_lists_cut_no_number_and_leave_a_column_out(
    width: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 60 columns `topics` showed "1,7…" for 1,774 papers and `trending` "+100…"; at
    50 `topics` cut 48 to "4", and at 40 `trending` drew its topics 0 wide."""
    monkeypatch.setenv("COLUMNS", width)
    topics = run("topics")
    assert topics.exit_code == 0, topics.stderr
    assert max(len(line) for line in topics.stdout.splitlines()) <= int(width)
    assert "…" not in topics.stdout and "Source" not in topics.stdout
    for row in json.loads(run("topics", "--json").stdout):
        if int(width) >= 60:  # below, the slug column, the only text left, may fold
            assert f" {row['topic']} " in topics.stdout
        assert re.search(rf"│ +{row['papers']:,} │ +{row['last_4_weeks']:,} │", topics.stdout)
    trending = run("trending", "--as-of", "2025-08-31")
    assert trending.exit_code == 0, trending.stderr
    assert "…" not in trending.stdout and "Weeks" not in trending.stdout
    for row in json.loads(run("trending", "--as-of", "2025-08-31", "--json").stdout):
        before = "no data" if row["previous"] == 0 else f"{row['previous']:,}"
        assert re.search(rf"│ +{row['current']:,} │ +({before}|0) │", trending.stdout)
    names = re.findall(r"^│ ?(?:\s*\d+ │ )?(\S.*?)\s*│", trending.stdout, re.M)
    assert names and all(name.strip() for name in names)  # no topic column 0 wide
    wide = run("trending", "--as-of", "2025-08-31", env={"COLUMNS": "80"})
    assert "Weeks" in wide.stdout and "Source" in run("topics", env={"COLUMNS": "80"}).stdout


@pytest.mark.parametrize("width", ["40", "50", "79"])
def test_a_narrow_topics_test_cuts_no_count_and_breaks_no_word(
    width: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 40 columns the weeks ("Aug 18, 2025 (so far)") left the counts "2…" and
    "7…", and the sample's titles broke mid-word ("Empirica|l")."""
    monkeypatch.setenv("COLUMNS", width)
    shown = run("topics", "test", "agent*", "--sample", "5", "--as-of", "2025-08-20")
    assert shown.exit_code == 0, shown.stderr
    assert "…" not in shown.stdout
    assert max(len(line) for line in shown.stdout.splitlines()) <= int(width)
    assert "Aug 18* " in shown.stdout and "* the week so far" in shown.stdout
    data = json.loads(run("topics", "test", "agent*", "--as-of", "2025-08-20", "--json").stdout)
    last = data["weeks"][-1]
    assert re.search(rf"│ Aug 18\* +│ +{last['count']:,} │ +{last['total']:,} │", shown.stdout)
    # Every word on a title line of the sample is a whole word of a stored title.
    stored = json.loads(run("latest", "-n", "1000", "--json").stdout)
    words = {w for paper in stored for w in paper["title"].split()}
    sample = shown.stdout.split("Sample:", 1)[1]
    pieces = [
        piece
        for line in sample.splitlines()
        if len(cells := line.split("│")) == 4
        for piece in cells[2].split()
    ]
    assert pieces and set(pieces) <= words, set(pieces) - words


@pytest.mark.parametrize("width", ["32", "40", "47", "59"])
def test_a_slug_too_long_for_a_narrow_topics_list_breaks_after_a_hyphen(
    width: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 40 to 47 columns `topics` showed "llm-agent-tr" over "aining": a slug folded
    mid-word, where a reader sees two words. Below 60 the header of the last column
    takes two lines, so most slugs fit whole; a longer one breaks after a hyphen."""
    monkeypatch.setenv("COLUMNS", width)
    topics = run("topics")
    assert topics.exit_code == 0, topics.stderr
    lines = topics.stdout.splitlines()
    assert max(len(line) for line in lines) <= int(width)
    slugs: list[list[str]] = []
    for line in topics.stdout.split("┩", 1)[1].splitlines():
        cells = line.split("│")
        if len(cells) < 4:
            continue
        if cells[2].strip():  # a count: a new row
            slugs.append([])
        slugs[-1].append(cells[1].strip())
    wanted = [row["topic"] for row in json.loads(run("topics", "--json").stdout)]
    assert ["".join(parts) for parts in slugs] == wanted
    column = max(len(part) for parts in slugs for part in parts)
    for parts in slugs:  # a word wider than the column is folded: nothing else can be
        if all(len(word) < column for word in "".join(parts).split("-")):
            assert all(part.endswith("-") for part in parts[:-1]), parts
    if int(width) >= 47:  # the longest default slug is 25 characters
        assert all(len(parts) == 1 for parts in slugs)
    else:
        assert any(len(parts) > 1 for parts in slugs)


def test_trending_with_counts_in_the_thousands_fits_40_columns_title_and_all() -> None:
    """On a store of 83,510 papers `trending` at 40 columns drew 42: the right border
    went, and the title, cut at the table's width, lost the comma of "Jun 26, 2026"."""
    from rich.console import Console

    from papertrack.momentum import measure
    from papertrack.render import trending_table

    monday = date(2026, 6, 22)
    days = {(monday - timedelta(weeks=k)).isoformat(): [300] * 7 for k in range(12)}
    topic = {week: [250] * 7 for week in days}
    results = [
        measure(topic, days, as_of=date(2026, 6, 26), topic=f"t{n}", name="Computer-Use Agents")
        for n in range(3)
    ]
    title = "Trending — the last four weeks to Jun 26, 2026 against the four weeks before"
    console = Console(width=40, record=True, file=io.StringIO())
    console.print(trending_table(results, title, width=40))
    shown = console.export_text()
    lines = shown.splitlines()
    assert max(len(line) for line in lines) <= 40
    assert " ".join(" ".join(lines[:3]).split()).startswith(title)
    assert "7,000" in shown


@pytest.mark.parametrize("width", ["0", "7"])
def test_a_width_too_small_to_draw_at_draws_at_80(
    width: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """COLUMNS=0 printed nothing at all, with exit 0."""
    monkeypatch.setenv("COLUMNS", width)
    result = run("latest", "-n", "3")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) > 5 and max(len(line) for line in lines) == 80


def test_a_width_too_large_to_lay_out_draws_at_the_widest(monkeypatch: pytest.MonkeyPatch) -> None:
    """COLUMNS=99999999 kept Rich laying out a table of three papers for minutes."""
    from papertrack.cli.common import MAX_WIDTH

    monkeypatch.setenv("COLUMNS", "99999999")
    result = run("latest", "-n", "3")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) > 5 and max(len(line) for line in lines) <= MAX_WIDTH


@pytest.mark.parametrize("width", ["26", "40", "59"])
def test_a_narrow_momentum_chart_keeps_every_week_and_count(
    width: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 40 columns every label read "Week of Aug…" and the counts were pushed off."""
    monkeypatch.setenv("COLUMNS", width)
    shown = run("momentum", "llm-agent-training", "--as-of", "2025-08-31")
    assert shown.exit_code == 0, shown.stderr
    assert max(len(line) for line in shown.stdout.splitlines()) <= int(width)
    weeks = json.loads(
        run("momentum", "llm-agent-training", "--as-of", "2025-08-31", "--json").stdout
    )["weeks"]
    for week in weeks:
        start = date.fromisoformat(week["week_start"])
        label = f"{start:%b} {start.day}" + ("" if start.year == 2025 else f", {start.year}")
        count = "no data" if week["count"] is None else f"{week['count']:,}"
        line = rf"^(?:Week of )?{re.escape(label)} +(?:[^\d\s]+ +)?{count}\b"
        assert re.search(line, shown.stdout, re.M), (label, count)


@pytest.mark.parametrize("width", [18, 20, 21])
def test_a_chart_narrower_than_its_compact_words_draws_a_shorter_bar(width: int) -> None:
    """At 20 columns every label was cut to "Apr …" and the bracket of the last four
    weeks was gone: the bar kept 8 cells."""
    from rich.console import Console

    from papertrack.momentum import measure
    from papertrack.render import momentum_block

    as_of = date(2026, 6, 26)
    monday = as_of - timedelta(days=as_of.weekday())
    days = {(monday - timedelta(weeks=k)).isoformat(): [100] * 7 for k in range(12)}
    topic = {week: [(k + day) % 3 for day in range(7)] for k, week in enumerate(sorted(days))}
    del days[(monday - timedelta(weeks=9)).isoformat()]  # a week with no data
    result = measure(topic, days, as_of=as_of, topic="t", name="Topic")
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(momentum_block(result, "Topic", console_width=width))
    shown = console.export_text()
    assert max(len(line) for line in shown.splitlines()) <= width
    assert "…" not in shown
    for week in result.weeks:
        label = f"{week.start:%b} {week.start.day}"
        count = "(?:–|no data)" if week.count is None else rf"\S+ +{week.count:,}\b"
        assert re.search(rf"^{re.escape(label)} +{count}", shown, re.M), label
    assert sum(week.count is None for week in result.weeks) == 1
    assert re.search(r"\d +┐ *$", shown, re.M) and re.search(r"\d +┘ *$", shown, re.M), shown


@pytest.mark.parametrize("width", [40, 50, 60, 70, 80, 92, 100, 110, 120, 160])
def test_a_chart_across_new_year_keeps_every_label_count_and_bracket_whole(width: int) -> None:
    """Labels with their year ("Week of Dec 22, 2025") left the chart no room at up
    to 115 columns: the counts were dropped, every label cut to "Week of Nov 10, 2…"
    and the bracket to "from Dec 24, 20", at 80 columns always when piped."""
    from rich.console import Console

    from papertrack.momentum import measure
    from papertrack.render import momentum_block

    as_of = date(2026, 1, 20)
    monday = as_of - timedelta(days=as_of.weekday())
    days = {(monday - timedelta(weeks=k)).isoformat(): [300] * 7 for k in range(12)}
    topic = {
        week: [k * 3 + day for day in range(7)] for k, week in enumerate(sorted(days), start=1)
    }
    result = measure(topic, days, as_of=as_of, topic="t", name="Topic")
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(momentum_block(result, "Topic", console_width=width))
    shown = console.export_text()
    assert max(len(line) for line in shown.splitlines()) <= width
    for week in result.weeks:
        year = "" if week.start.year == as_of.year else f", {week.start.year}"
        label = f"{week.start:%b} {week.start.day}{year}"
        assert week.count is not None
        assert re.search(
            rf"^(?:Week of )?{re.escape(label)} +\S+ +{week.count:,}\b", shown, re.M
        ), (
            label,
            shown,
        )
    assert "…" not in shown
    if width >= 80:  # room for the bracket's words, whole
        first = result.current.first
        assert f"from {first:%b} {first.day}, {first.year}" in shown, shown


@pytest.mark.parametrize(("width", "weeks"), [(80, 12), (80, 26), (80, 60), (100, 40), (120, 52)])
def test_trending_keeps_topic_names_and_the_newest_weeks_at_any_number_of_weeks(
    width: int, weeks: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 80 columns (every pipe and cron mail) --weeks 26 cut the newest marks off the
    sparkline with no sign of it, and --weeks 40 left the Topic column no room."""
    monkeypatch.setenv("COLUMNS", str(width))
    args = ("trending", "--as-of", "2025-08-20", "--weeks", str(weeks))
    shown = run(*args)
    assert shown.exit_code == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert max(len(line) for line in lines) <= width
    listed = run(*args, "-f", "csv").stdout.splitlines()[1:]
    assert listed
    for row in listed:
        rank, name, line = row.split(",")[0], row.split(",")[2], row.split(",")[9]
        assert len(line) == weeks
        found = [text for text in lines if re.match(rf"│ +{rank} │", text)]
        assert len(found) == 1, (rank, shown.stdout)
        cells = found[0].split("│")
        assert cells[2].split()[0] == name.split()[0]  # the name, wrapped or not
        marks = cells[-2][1:-1]
        if marks.startswith("…"):
            assert len(marks) >= 5 and line.endswith(marks[1:]), (marks, line)
            assert "… stands for the oldest" in shown.stdout
        else:
            assert marks.rstrip() == line.rstrip(), (marks, line)
    if weeks == 12:  # the default fits whole at 80 columns
        assert "…" not in shown.stdout


def test_trending_marks_a_change_measured_over_days_with_no_data() -> None:
    """'15 │ 10 │ 0%' with no word of why: with days of no data the change is per day
    of data, which momentum says and trending did not."""
    from rich.console import Console

    from papertrack.momentum import measure
    from papertrack.render import trending_table

    monday = date(2026, 6, 22)
    full = {(monday - timedelta(weeks=k)).isoformat(): [30] * 7 for k in range(12)}
    gappy = dict(full)
    gappy[(monday - timedelta(weeks=6)).isoformat()] = [0] * 7  # a week of the window before
    topic = {week: [10 if day else 0 for day in days] for week, days in gappy.items()}
    as_of = date(2026, 6, 28)
    shown = []
    for days in (full, gappy):
        console = Console(width=100, record=True, file=io.StringIO())
        result = measure(topic, days, as_of=as_of, topic="t", name="Topic")
        console.print(trending_table([result], "Trending", width=100))
        shown.append(console.export_text())
    assert "†" not in shown[0] and "no data" not in shown[0]
    assert "†" in shown[1]
    assert "† a window has days with no data: compared per day of data" in shown[1]


def test_long_paths_are_wrapped_whole_not_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """stats cut a long store path with "…" (even off a terminal), and topics show
    the path of the default topics file: neither could be copied."""
    store = tmp_path / ("a-very-long-folder-name-" * 4) / "store"
    assert run("--db", str(store), "ingest", str(LISTING)).exit_code == 0
    monkeypatch.setenv("COLUMNS", "60")
    for args in (["--db", str(store), "stats"], ["topics", "show", "gui-agents"]):
        shown = run(*args).stdout
        assert "…" not in shown, shown
        joined = re.sub(r"\n +", "", shown)
        wanted = str(store) if args[-1] == "stats" else "topics.toml"
        assert wanted in joined, shown


@pytest.mark.parametrize("width", ["45", "80", "160"])
def test_every_row_shows_the_id_to_copy_into_the_next_command(
    width: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # show, topics explain, topics teach and add --like each need an id, and the
    # table of latest and search showed none at any width.
    monkeypatch.setenv("COLUMNS", width)
    for command in (["latest", "-n", "8"], ["search", "agent*", "-n", "8"]):
        table = run(*command)
        assert table.exit_code == 0, table.stderr
        papers = json.loads(run(*command, "--json").stdout)
        assert len(papers) == 8
        rows = [line.split("│") for line in table.stdout.splitlines()]
        dates = [cells[1].strip() for cells in rows if len(cells) > 2]  # the first column
        for paper in papers:
            assert paper["arxiv_id"] in dates, (command, paper["arxiv_id"])
        shown = run("show", dates[dates.index(papers[0]["arxiv_id"])])
        assert shown.exit_code == 0 and papers[0]["title"].split()[0] in shown.stdout


def test_a_long_entry_key_is_left_out_not_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "https://blog.exampl…" is no id `show` takes, and widened the date column.
    record = {
        "arxiv_id": "https://blog.example.org/posts/2026/wombat-agents",
        "title": "Wombat agents",
        "abstract": "Wombat agents dig.",
        "published": "2026-11-30T00:00:00Z",
    }
    feed = tmp_path / "blog.jsonl"
    feed.write_text(json.dumps(record) + "\n", "utf-8")
    assert run("ingest", str(feed)).exit_code == 0
    for width in ("45", "120"):
        monkeypatch.setenv("COLUMNS", width)
        table = run("latest", "-n", "1").stdout
        assert "Wombat agents" in table and "Nov 30, 2026" in table
        assert "blog.exampl" not in table and "…" not in table.split("┩", 1)[1].split("│")[1]


@pytest.mark.parametrize("width", ["60", "80", "120", "200"])
def test_a_long_slug_of_your_own_folds_and_keeps_the_counts_in_the_table(
    width: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A topic named by a long phrase has a 75-character slug. Kept on one line, it
    drew the Name column 0 wide and pushed Papers and "Last 4 weeks" off the table
    at every width from 60 to about 116; it now folds after a hyphen."""
    name = "Vision-Language-Action Models for Robotic Manipulation and Embodied Control"
    assert run("topics", "add", name, "--query", "robot*").exit_code == 0
    # And one with no hyphen to break after: folded where it must be, not cut with "…".
    unbroken = "visionlanguageactionmodelsforroboticmanipulation"
    added = run("topics", "add", "VLA", "--slug", unbroken, "--query", "vla")
    assert added.exit_code == 0, added.stderr
    monkeypatch.setenv("COLUMNS", width)
    topics = run("topics")
    assert topics.exit_code == 0, topics.stderr
    lines = topics.stdout.splitlines()
    assert max(len(line) for line in lines) <= int(width)
    assert all(line.endswith(("│", "┃", "┓", "┩", "┘")) for line in lines[1:] if line.strip())
    body = topics.stdout.split("┩", 1)[1]
    for row in json.loads(run("topics", "--json").stdout):
        assert re.search(rf"│ +{row['papers']:,} │ +{row['last_4_weeks']:,} │", body), row
    slugs: list[str] = []
    for line in body.splitlines():
        cells = line.split("│")
        if len(cells) < 5:
            continue
        if cells[-2].strip():  # a count: a new row
            slugs.append("")
        slugs[-1] += cells[2].strip()
    wanted = [row["topic"] for row in json.loads(run("topics", "--json").stdout)]
    assert slugs == wanted  # each slug whole, read line after line
    assert len(wanted[-2]) == 75 and wanted[-1] == unbroken  # whole: not cut with "…"


def test_a_feed_entry_in_a_topics_test_sample_keeps_its_title(tmp_path: Path) -> None:
    """A feed entry's id is its link, which filled the id column and left its title
    no room at all."""
    link = "https://blog.example.org/2026/06/a-very-long-path/to/a/post-about-gui-agents"
    feed = tmp_path / "blog.xml"
    feed.write_text(
        '<?xml version="1.0"?><rss version="2.0"><channel><title>b</title>'
        "<link>https://blog.example.org/</link><description>x</description>"
        "<item><title>Zebra agents that learn from long horizon trajectories</title>"
        f"<link>{link}</link><guid>{link}</guid><description>Zebra agents.</description>"
        "<pubDate>Thu, 25 Jun 2026 10:00:00 GMT</pubDate></item></channel></rss>",
        encoding="utf-8",
    )
    assert run("ingest", str(feed)).exit_code == 0
    for width in ("40", "80"):
        shown = run("topics", "test", "zebra", "--sample", "1", env={"COLUMNS": width})
        assert shown.exit_code == 0, shown.stderr
        sample = shown.stdout.split("Sample:", 1)[1]
        title = " ".join(
            cells[-2].strip() for line in sample.splitlines() if len(cells := line.split("│")) > 2
        )
        assert " ".join(title.split()) == "Zebra agents that learn from long horizon trajectories"
        ids = "".join(
            cells[-3].strip() for line in sample.splitlines() if len(cells := line.split("│")) > 2
        )
        assert ids == link  # folded, whole
