"""Golden files: what each recorded feed in tests/data parses to, kept beside it.

Every fixture (``api-atom/``, ``rss/``, ``rss-legacy/``, ``rss-derived/``,
``oai/``, ``kaggle-jsonl/``) has a ``NAME.expected.json`` next to it: the kind,
error, warnings and counters :func:`papertrack.feeds.parse_feed` gives, and the
papers' ``to_record()`` forms sorted by id. A fixture of more than
:data:`FULL_UP_TO` papers keeps the full records of its first :data:`SAMPLE`
papers only, plus a short digest of every paper's record and one of all of
them, so that the file stays small while any change to any paper still shows.

``tests/test_golden.py`` compares every fixture with its file. When parsing
changes on purpose, regenerate and review the diff::

    python tests/golden.py --update     # rewrite every NAME.expected.json
    python tests/golden.py              # list the fixtures that differ (exit 1 if any)
"""

from __future__ import annotations

import hashlib
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"
FORMATS = ("api-atom", "rss", "rss-legacy", "rss-derived", "oai", "kaggle-jsonl")
SUFFIX = ".expected.json"
#: Dates are checked against this moment, not the clock, so the files never age.
NOW = datetime(2030, 1, 1, tzinfo=UTC)
FULL_UP_TO = 20
SAMPLE = 8


def fixtures() -> list[Path]:
    """Every recorded feed of the formats above, in a stable order."""
    found = [
        path
        for name in FORMATS
        for path in (DATA / name).rglob("*")
        if path.is_file() and path.suffix in (".xml", ".jsonl")
    ]
    return sorted(found)


def golden_path(fixture: Path) -> Path:
    return fixture.with_suffix(SUFFIX)


def _digest(value: Any, length: int = 16) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:length]


def expected(fixture: Path) -> dict[str, Any]:
    """What the fixture parses to now, in the golden file's form."""
    from papertrack.errors import FeedError
    from papertrack.feeds import parse_feed

    name = fixture.relative_to(DATA).as_posix()
    out: dict[str, Any] = {"fixture": name}
    try:
        result = parse_feed(fixture.read_bytes(), name, now=NOW)
    except FeedError as exc:
        out["raises"] = f"FeedError: {exc}"
        return out
    records = sorted(
        (paper.to_record() for paper in result.papers),
        key=lambda r: (r["arxiv_id"], json.dumps(r, sort_keys=True)),
    )
    out.update(
        kind=result.kind,
        error=result.error,
        warnings=result.warnings,
        skipped=result.skipped,
        total_results=result.total_results,
        resumption_token=result.resumption_token,
        count=len(records),
    )
    if len(records) <= FULL_UP_TO:
        out["papers"] = records
        return out
    out["note"] = (
        f"{len(records)} papers: the first {SAMPLE} (sorted by arxiv_id) in full; "
        "'digests' has one per paper (sha256 of its sorted-key JSON, 12 hex digits), "
        "'digest' one of all the records"
    )
    out["digest"] = _digest(records)
    out["papers"] = records[:SAMPLE]
    out["digests"] = {r["arxiv_id"]: _digest(r, 12) for r in records}
    return out


def differences(fixture: Path) -> list[str]:
    """How the fixture's parse differs from its golden file, one line a difference."""
    target = golden_path(fixture)
    if not target.exists():
        return [f"{target.name} is missing: run python tests/golden.py --update"]
    want = json.loads(target.read_text(encoding="utf-8"))
    got = expected(fixture)
    found = []
    for key in sorted(set(want) | set(got) - {"papers", "digests"}):
        if key not in ("papers", "digests") and want.get(key) != got.get(key):
            found.append(f"{key}: expected {want.get(key)!r}, got {got.get(key)!r}")
    wanted = {r["arxiv_id"]: r for r in want.get("papers", [])}
    for record in got.get("papers", []):
        before = wanted.pop(record["arxiv_id"], None)
        if before is None:
            found.append(f"{record['arxiv_id']}: not expected in the sample")
            continue
        for field in sorted(set(before) | set(record)):
            if before.get(field) != record.get(field):
                found.append(
                    f"{record['arxiv_id']}.{field}: expected {before.get(field)!r}, "
                    f"got {record.get(field)!r}"
                )
    found += [f"{ident}: missing from the sample" for ident in wanted]
    old, new = want.get("digests", {}), got.get("digests", {})
    for ident in sorted(set(old) | set(new)):
        if old.get(ident) != new.get(ident):
            digests = f"{old.get(ident)} → {new.get(ident)}"
            found.append(f"{ident}: its record changed (digest {digests})")
    return found


def render(value: dict[str, Any]) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    update = "--update" in argv
    differing = []
    for fixture in fixtures():
        target = golden_path(fixture)
        text = render(expected(fixture))
        if update:
            if not target.exists() or target.read_text(encoding="utf-8") != text:
                target.write_text(text, encoding="utf-8")
                print(f"wrote {target.relative_to(DATA.parent.parent)}")
        elif not target.exists() or target.read_text(encoding="utf-8") != text:
            differing.append(fixture)
            print(f"differs: {fixture.relative_to(DATA)}")
            for line in differences(fixture)[:20]:
                print(f"  {line}")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.path.insert(0, str(DATA.parent.parent))
    raise SystemExit(main(sys.argv[1:]))
