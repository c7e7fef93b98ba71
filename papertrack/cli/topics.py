"""Commands about topics."""

from __future__ import annotations

import csv
import json
import sys

from papertrack.cli.common import (
    Format,
    FormatOpt,
    JsonOpt,
    app,
    errors,
    fresh_tags,
    load_catalog,
    open_store,
    out,
    pick_format,
)

# --------------------------------------------------------------------------- topics


@app.command("topics")
def topics_list(fmt: FormatOpt = Format.table, as_json: JsonOpt = False) -> None:
    """List the topics papers are tagged with, and how many stored papers each has.

    Example:

    \b
        papertrack topics
        papertrack topics --json
    """
    fmt = pick_format(fmt, as_json)
    with errors():
        catalog = load_catalog()
        store = open_store()
        fresh_tags(store, catalog)
        counts = store.index().counts if store.exists() else {}
        rows = [
            {
                "name": t.name,
                "slug": t.slug,
                "source": t.source,
                "description": t.description,
                "query": t.query,
                "papers": sum(counts.get(t.slug, {}).values()),
            }
            for t in catalog.topics
        ]
        if fmt is Format.json:
            sys.stdout.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
        elif fmt is Format.jsonl:
            sys.stdout.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        elif fmt is Format.csv:
            writer = csv.DictWriter(
                sys.stdout, fieldnames=list(rows[0]) if rows else ["name"], lineterminator="\n"
            )
            writer.writeheader()
            writer.writerows(rows)
        else:
            from papertrack import render

            out().print(render.topics_table(rows))
