"""Rich renderables for papertrack's views. Functions here return, never print.

Everything that came from a feed is wrapped in ``rich.text.Text`` (never parsed as
markup) after control characters are removed, so a title like ``[bold red]x[/]``
or one holding a terminal escape sequence prints literally and harmlessly.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from papertrack.models import Paper

_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200d\u2060\ufeff\u202a-\u202e\u2066-\u2069]"
)


def safe(value: object) -> str:
    """Feed text made harmless for a terminal: no control or invisible formatting characters."""
    return _UNSAFE.sub("", str(value))


def format_date(moment: datetime | None) -> str:
    """'Aug 6, 2026' as the topic page shows it."""
    if moment is None:
        return "undated"
    return f"{moment:%b} {moment.day}, {moment.year}"


def format_names(names: Sequence[str], shown: int = 3, sep: str = ", ") -> str:
    """'Zishan Xu, Zhiyuan Yao, Yuxin Chen +9'."""
    if not names:
        return ""
    head = sep.join(names[:shown])
    rest = len(names) - shown
    return f"{head} +{rest}" if rest > 0 else head


def format_affiliations(names: Sequence[str], shown: int = 3) -> str:
    """'Shanghai Jiao Tong University · Zhejiang University · … +4'."""
    return format_names(names, shown, sep=" · ")


def format_tags(tags: Sequence[str], names: Mapping[str, str], shown: int | None = None) -> str:
    """'LLM World Models · Agentic RL · LLM Agent Training +2' (topic names, catalog order)."""
    labels = [names.get(tag, tag) for tag in tags]
    return format_names(labels, len(labels) if shown is None else shown, sep=" · ")


def papers_table(papers: Sequence[Paper], title: str, tag_names: Mapping[str, str]) -> Table:
    """The 'latest papers' table: one row a paper, newest first."""
    table = Table(title=Text(safe(title), style="bold"), title_justify="left", expand=False)
    table.add_column("Date", no_wrap=True)
    table.add_column("Cat.", no_wrap=True, style="cyan")
    table.add_column("Title", ratio=4, overflow="fold", style="bold")
    table.add_column("Authors", ratio=2, overflow="fold")
    # Listing feeds carry no affiliations: an empty column would only cost width.
    with_affiliations = any(paper.author_affiliations for paper in papers)
    if with_affiliations:
        table.add_column("Affiliations", ratio=2, overflow="fold", style="dim")
    table.add_column("Tags", ratio=2, overflow="fold", style="green")
    for paper in papers:
        cells = [
            Text(format_date(paper.paper_date)),
            Text(safe(paper.primary_category or "")),
            Text(safe(paper.title)),
            Text(safe(format_names(paper.authors))),
        ]
        if with_affiliations:
            cells.append(Text(safe(format_affiliations(paper.affiliations))))
        cells.append(Text(safe(format_tags(paper.tags, tag_names, shown=4))))
        table.add_row(*cells)
    return table


def paper_cards(papers: Sequence[Paper], title: str, tag_names: Mapping[str, str]) -> Group:
    """The topic page's cards: meta line, title, authors, affiliations, abstract, tags."""
    cards: list[RenderableType] = [Text(safe(title), style="bold")]
    for paper in papers:
        meta = Text(format_date(paper.paper_date))
        if paper.primary_category:
            meta.append("  ")
            meta.append(safe(paper.primary_category), style="cyan")
        meta.append(f"  {safe(paper.arxiv_id)}", style="dim")
        body: list[RenderableType] = [Text(safe(paper.title), style="bold"), meta]
        if paper.authors:
            body.append(Text(safe(format_names(paper.authors))))
        if paper.affiliations:
            body.append(Text(safe(format_affiliations(paper.affiliations)), style="dim"))
        if paper.abstract:
            body.append(Padding(Text(safe(paper.abstract)), (1, 0, 0, 0)))
        if paper.tags:
            body.append(
                Padding(Text(safe(format_tags(paper.tags, tag_names)), style="green"), (1, 0, 0, 0))
            )
        cards.append(Panel(Group(*body)))
    return Group(*cards)


def topics_table(rows: Sequence[Mapping[str, object]]) -> Table:
    table = Table(title=Text("Topics", style="bold"), title_justify="left")
    table.add_column("Name", style="bold")
    table.add_column("Slug", style="cyan")
    table.add_column("Source")
    table.add_column("Papers", justify="right")
    for row in rows:
        table.add_row(
            Text(safe(row["name"])),
            Text(safe(row["slug"])),
            Text(safe(row["source"])),
            Text(str(row["papers"])),
        )
    return table
