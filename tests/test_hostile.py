"""Hostile feeds: entity expansion and external entities never reach the store or the disk."""

from __future__ import annotations

import json
import time
from pathlib import Path

from typer.testing import CliRunner

from papertrack.cli import app

LAUGHS = (
    '<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n'
    + "".join(
        f' <!ENTITY lol{n} "{("&lol" + (str(n - 1) if n > 1 else "") + ";") * 10}">\n'
        for n in range(1, 10)
    )
    + ']>\n<rss version="2.0"><channel><title>t</title><item><title>&lol9;</title>'
    "<link>https://x.example/1</link></item></channel></rss>\n"
)


def test_billion_laughs_is_refused_quickly(tmp_path: Path) -> None:
    feed = tmp_path / "laughs.xml"
    feed.write_text(LAUGHS, encoding="utf-8")
    started = time.monotonic()
    result = CliRunner().invoke(app, ["ingest", str(feed)])
    assert time.monotonic() - started < 10
    assert result.exit_code == 1
    assert result.stderr.startswith("Error:")
    assert "Traceback" not in result.stderr
    assert json.loads(CliRunner().invoke(app, ["latest", "--json"]).stdout) == []


def test_external_entities_are_not_resolved(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-CONTENT", encoding="utf-8")
    feed = tmp_path / "xxe.xml"
    feed.write_text(
        f'<?xml version="1.0"?>\n<!DOCTYPE r [ <!ENTITY xxe SYSTEM "file://{secret}"> ]>\n'
        '<rss version="2.0"><channel><title>t</title><item><title>Hello &xxe; end</title>'
        "<link>https://x.example/1</link><description>d</description>"
        "<pubDate>Tue, 19 Aug 2025 10:00:00 GMT</pubDate></item></channel></rss>\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(app, ["ingest", str(feed)])
    out = CliRunner().invoke(app, ["latest", "--json"]).stdout
    assert "TOP-SECRET-CONTENT" not in out + result.stderr
    papers = json.loads(out)
    assert len(papers) <= 1
