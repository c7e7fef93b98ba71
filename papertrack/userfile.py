"""The user's topics file: add, replace, remove and hide topics, keeping what the user wrote.

The file is TOML in the default catalog's ``[[topic]]`` format (``data/topics.toml``)
and the user may edit it by hand at any time, so an edit here changes only the
entry it is about: every other byte of the file, comments and blank lines
included, stays as it was.

tomlkit writes new entries, with the quoting TOML needs. Entries are cut and
spliced as whole lines rather than through tomlkit's document tree: tomlkit files
the comment lines above a ``[[topic]]`` under the *previous* table, so deleting a
table there takes the next topic's comment with it (and leaves its own behind).
Here the comment lines directly above a ``[[topic]]`` belong to that topic.

Before anything is written, the whole catalog is loaded from the new text: a
query that does not parse, a bad category or a clash of names is refused and the
file stays untouched. The file is then replaced atomically.
"""

from __future__ import annotations

import os
import re
import stat
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

import tomlkit

from papertrack.config import loads_toml
from papertrack.errors import UsageError
from papertrack.files import write_atomic
from papertrack.text import quoted
from papertrack.topics import MAX_SLUG, Catalog, Topic, slug_bytes, slugify

__all__ = ["Action", "TopicEdit", "add_topic", "remove_topic"]

HEADER = """\
# Your papertrack topics. They add to the default catalog; a topic with the slug
# of a default topic replaces it, and an entry with `hidden = true` hides one.
# `papertrack topics show SLUG` prints any topic's definition, and
# `papertrack topics test QUERY` tries a query on the stored papers.
# Edit this file by hand or with `papertrack topics add/remove`: both keep comments.

"""

_TABLE_HEADER = re.compile(r"[ \t]*\[\[[ \t]*topic[ \t]*\]\][ \t]*(?:#.*)?\r?\n?")
_COMMENT = re.compile(r"[ \t]*#")


class Action(StrEnum):
    """What an edit did to the user's file."""

    added = "added"  # a new topic
    overrode = "overrode"  # a new user topic replacing the default with its slug
    replaced = "replaced"  # the user's own entry, redefined with --replace
    removed = "removed"  # the user's own entry deleted
    hid = "hid"  # a default topic hidden with `hidden = true`


@dataclass(frozen=True)
class TopicEdit:
    """The outcome of :func:`add_topic` or :func:`remove_topic`.

    ``topic`` is the topic as now defined (None after a removal); ``restored`` is
    the default topic that came back when the user's override was removed.
    """

    action: Action
    slug: str
    name: str
    path: Path
    catalog: Catalog
    topic: Topic | None = None
    restored: Topic | None = None


# --------------------------------------------------------------------------- file


class _File:
    """The user's file as text, its entries (parsed) and the line span of each entry."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.text = path.read_text(encoding="utf-8-sig") if path.exists() else ""
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(
                f"could not read your topics file {path}: {exc}. Fix the file"
            ) from None
        try:
            entries: Any = loads_toml(self.text).get("topic", [])
        except tomllib.TOMLDecodeError as exc:
            raise UsageError(f"{path} is not valid TOML: {exc}. Fix the file") from None
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise UsageError(f"{path}: 'topic' must be an array of tables. Write [[topic]]")
        self.entries: list[dict[str, Any]] = entries
        self.lines = self.text.splitlines(keepends=True)
        self.headers = [n for n, line in enumerate(self.lines) if _TABLE_HEADER.fullmatch(line)]
        if len(self.headers) != len(self.entries):
            # e.g. [["topic"]] or a one-line [[topic]] with keys after it: valid, but not
            # what this module can cut into lines. Hand edits still work.
            raise UsageError(
                f"can't edit {path} safely: write each [[topic]] header on a line of its own. "
                "Or edit the file by hand"
            )

    def find(self, slug: str) -> int | None:
        """The index of the entry with ``slug`` (hidden or not), or None."""
        for index, entry in enumerate(self.entries):
            if _slug_of(entry) == slug:
                return index
        return None

    def _start(self, index: int) -> int:
        """First line of entry ``index``: its header, or the comments right above it."""
        line = self.headers[index]
        floor = self.headers[index - 1] + 1 if index else 0
        while line > floor and _COMMENT.match(self.lines[line - 1]):
            line -= 1
        return line

    def _end(self, index: int) -> int:
        """The line after entry ``index``: where the next entry (with its comments) starts.

        After the last entry, comment lines separated from it by a blank line are
        the file's closing notes and stay.
        """
        if index + 1 < len(self.headers):
            return self._start(index + 1)
        lines = self.lines
        last = max(n for n in range(self.headers[index], len(lines)) if not _is_note(lines[n]))
        for n in range(last + 1, len(lines)):
            if not lines[n].strip():
                if any(_COMMENT.match(line) for line in lines[n:]):
                    return n
                break
        return len(lines)

    def without(self, index: int) -> str:
        """The text with entry ``index`` (and the comments above it) cut out."""
        start, end = self._start(index), self._end(index)
        return _tidy("".join(self.lines[:start]), "".join(self.lines[end:]))

    def replacing(self, index: int, entry: str) -> str:
        """The text with entry ``index`` rewritten; the comments above it stay."""
        start, end = self.headers[index], self._end(index)
        return _tidy("".join(self.lines[:start]) + entry, "".join(self.lines[end:]))

    def appending(self, entry: str) -> str:
        """The text with ``entry`` added at the end (after the header of a new file)."""
        text = self.text if self.text.strip() else HEADER
        if not text.endswith("\n"):
            text += "\n"
        if not text.endswith("\n\n"):
            text += "\n"
        return text + entry


def _is_note(line: str) -> bool:
    return not line.strip() or bool(_COMMENT.match(line))


def _tidy(before: str, after: str) -> str:
    """Join two pieces of a file with exactly one blank line between them."""
    if not after.strip():
        return before.rstrip("\n") + "\n" if before.strip() else ""
    if not before.strip():
        return after.lstrip("\n")
    return before.rstrip("\n") + "\n\n" + after.lstrip("\n")


_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f]")


def _query_item(query: str) -> Any:
    if _CONTROL.search(query):
        return tomlkit.string(query)  # only a basic string can escape control characters
    # Literal strings keep backslashes and double quotes (phrases) readable.
    if "'" not in query and "\n" not in query:
        return tomlkit.string(query, literal=True)
    if "'''" not in query and not query.endswith("'"):
        return tomlkit.string(query, literal=True, multiline=True)
    return tomlkit.string(query)


def _render(fields: dict[str, Any]) -> str:
    table = tomlkit.table()
    for key, value in fields.items():
        table.add(key, value)
    document = tomlkit.document()
    entries = tomlkit.aot()
    entries.append(table)
    document.add("topic", entries)
    return tomlkit.dumps(document)


def _commit(path: Path, default_path: Path, text: str) -> Catalog:
    """Check that ``text`` loads as the user's file, then write it atomically.

    The file is the user's: a symlink is written through (its target replaced,
    the link kept), its permission bits are kept, and so are CRLF line ends and a
    byte-order mark. A
    read-only file is refused, as an editor would, rather than replaced.
    """
    catalog = _checked(default_path, path, text)
    target = Path(os.path.realpath(path))
    mode: int | None = None
    old = b""
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
        old = target.read_bytes()
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise UsageError(f"could not read your topics file {path}: {exc}. Fix the file") from None
    if mode is not None and (not mode & 0o222 or not os.access(target, os.W_OK)):
        raise UsageError(f"{path} is read-only. Make it writable (chmod u+w) to edit topics")
    if b"\r\n" in old:
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    bom = b"\xef\xbb\xbf" if old.startswith(b"\xef\xbb\xbf") else b""
    write_atomic(target, bom + text.encode("utf-8"), mode=mode)
    return catalog


def _checked(default_path: Path, path: Path, text: str, pending_model: str = "") -> Catalog:
    """The catalog ``text`` makes as the user's file, refused if the edit broke it;
    ``pending_model`` is a model file the edit names that is written after it.

    An entry the user broke by hand before (a query that does not parse) is the
    file's already, skipped with a warning on every command: an edit that adds no
    problem of its own goes ahead. Refusing it, 'topics add' of another topic
    failed with that entry's error, and 'topics remove' of it could not run.
    """
    from papertrack.errors import QuerySyntaxError

    try:
        return Catalog.load(default_path, path, user_text=text)
    except (UsageError, QuerySyntaxError) as exc:
        before = Catalog.load(default_path, path, lenient=True) if path.exists() else None
        after = Catalog.load(
            default_path, path, user_text=text, lenient=True, pending_model=pending_model
        )
        known = set(before.warnings) if before is not None else set()
        new = [warning for warning in after.warnings if warning not in known]
        if new:
            raise UsageError(new[0].removesuffix("; that topic is skipped.")) from None
        if before is None:
            raise exc from None
        return after


# --------------------------------------------------------------------------- edits


def new_slug(name: str, slug: str | None = None) -> str:
    """The slug :func:`add_topic` gives a topic named ``name``: ``slug`` if given."""
    return slug.strip() if slug else slugify(" ".join(name.split()))


def add_topic(
    path: Path,
    default_path: Path,
    *,
    name: str,
    query: str,
    categories: Sequence[str] = (),
    description: str = "",
    slug: str | None = None,
    replace: bool = False,
    model: str = "",
    write: bool = True,
) -> TopicEdit:
    """Add a topic to the user's file at ``path``, or redefine one with ``replace``.

    ``write=False`` checks the edit without writing it (what it would do, or the
    error it would raise): ``topics add --like`` fits the model only then.

    A topic whose slug is a default topic's overrides that default. A slug that
    is already in use is refused unless ``replace`` is true; then the topic's
    entry is rewritten (a default is overridden by a new entry).

    Raises:
        QuerySyntaxError: the query does not parse (nothing is written).
        UsageError: a bad name, slug or category, a slug in use, a name clash.
    """
    name = " ".join(name.split())
    if not name:
        raise UsageError(
            'the topic needs a name. Give one, e.g. papertrack topics add "GUI Agents"'
        )
    given = slug
    slug = new_slug(name, slug)
    if not slug and not given:
        raise UsageError(
            f"the name {quoted(name)} has no letter or digit to make a slug of. "
            "Give one with --slug, e.g. --slug my-topic"
        )
    if slug_bytes(slug) > MAX_SLUG:
        raise UsageError(
            f"the slug {slug[:40]}… is {slug_bytes(slug)} bytes long; a slug names files and "
            f"is at most {MAX_SLUG} bytes (UTF-8). Give a shorter one with --slug"
        )
    if not slug or slugify(slug) != slug:
        suggestion = slugify(slug or name) or "my-topic"
        raise UsageError(
            f"{slug!r} is not a slug. A slug is lower-case words and digits joined by '-', "
            f"e.g. {suggestion!r}"
        )
    description = " ".join(description.split())
    categories = tuple(c.strip() for c in categories if c.strip())
    # Parses the query and checks the categories: a syntax error stops here, with its column.
    Topic(
        name=name,
        slug=slug,
        query=query,
        description=description,
        categories=categories,
        model_file=str(path.parent / model) if model else "",
    )

    current = Catalog.load(default_path, path, lenient=True)
    default = Catalog.load(default_path).by_slug(slug)
    existing = current.by_slug(slug)
    if existing is not None and not replace:
        whose = "your" if existing.source == "user" else "the default"
        raise UsageError(
            f"{whose} topic {quoted(existing.name)} already has the slug {slug!r}. "
            "Add --replace to redefine it, or choose another slug with --slug"
        )
    fields: dict[str, Any] = {"name": name}
    if slug != slugify(name) or model:
        # A topic with a model keeps its slug written out: a slug follows the name
        # otherwise, and a name edited by hand left the model and the taught
        # examples under the old slug (the next teach refit from scratch).
        fields["slug"] = slug
    if description:
        fields["description"] = description
    if query.strip() or not model:
        fields["query"] = _query_item(query)
    if model:
        fields["model"] = model
    if categories:
        fields["categories"] = list(categories)
    entry = _render(fields)

    file = _File(path)
    index = file.find(slug)
    if index is not None:
        # The user's own entry, or their `hidden = true` for a default: rewritten in place.
        text = file.replacing(index, entry)
        visible = file.entries[index].get("hidden") is not True
        action = Action.replaced if visible else (Action.overrode if default else Action.added)
    else:
        text = file.appending(entry)
        action = Action.overrode if default is not None else Action.added
    if write:
        catalog = _commit(path, default_path, text)
    else:
        # The model is written after this check (topics add --like): not read here.
        pending = str(path.parent / model) if model else ""
        catalog = _checked(default_path, path, text, pending)
    return TopicEdit(action, slug, name, path, catalog, topic=catalog.by_slug(slug))


def _second_named(file: _File, key: str) -> int | None:
    """The index of an entry named ``key`` (any case) that repeats an earlier entry's
    slug, which the catalog skips; None when there is none."""
    wanted = " ".join(key.split()).casefold()
    first: set[str] = set()
    for index, entry in enumerate(file.entries):
        slug = _slug_of(entry)
        if slug in first and " ".join(str(entry.get("name", "")).split()).casefold() == wanted:
            return index
        first.add(slug)
    return None


def _slug_of(entry: Mapping[str, Any], name: str | None = None) -> str:
    """An entry's slug: its own, else its name's (``name``: the name to use when the
    entry has none)."""
    return str(entry.get("slug") or slugify(str(entry.get("name", name or ""))))


def _remove_entry(
    path: Path, default_path: Path, file: _File, index: int, key: str, *, restores: bool
) -> TopicEdit:
    """Delete entry ``index`` (named by ``key``) from the file. ``restores``: what now
    has its slug, a default or another entry, is the topic said to be back."""
    written = file.entries[index]
    name = str(written.get("name", key))
    slug = _slug_of(written, key)
    catalog = _commit(path, default_path, file.without(index))
    restored = catalog.by_slug(slug) if restores else None
    return TopicEdit(Action.removed, slug, name, path, catalog, restored=restored)


def remove_topic(path: Path, default_path: Path, key: str) -> TopicEdit:
    """Remove the topic named ``key`` (name or slug) from what the user sees.

    A user topic's entry is deleted from the file; if it overrode a default, the
    default is back (remove it again to hide it). A default topic is hidden with
    a ``hidden = true`` entry.

    Raises:
        UnknownTopicError: no topic has that name or slug.
    """
    from papertrack.errors import UnknownTopicError

    current = Catalog.load(default_path, path, lenient=True)
    file = _File(path)
    second = _second_named(file, key) if path.exists() else None
    if second is not None:
        # A slug defined twice: the entry the catalog skips, named by its own name
        # (the first entry, the topic in use, went instead, and the second took its
        # place). The first stays the topic: nothing is back.
        return _remove_entry(path, default_path, file, second, key, restores=False)
    try:
        topic = current.find(key)
    except UnknownTopicError:
        # An entry skipped for a mistake made by hand is still the user's to remove.
        index = file.find(key.strip()) if path.exists() else None
        if index is None and path.exists():
            index = file.find(slugify(" ".join(key.split())))
        if index is None or file.entries[index].get("hidden") is True:
            raise
        return _remove_entry(path, default_path, file, index, key, restores=True)
    if topic.source == "user":
        index = file.find(topic.slug)
        if index is None:  # pragma: no cover - a user topic always has its entry
            raise UsageError(f"no entry for {topic.slug!r} in {path}. Edit the file by hand")
        catalog = _commit(path, default_path, file.without(index))
        restored = catalog.by_slug(topic.slug)
        return TopicEdit(Action.removed, topic.slug, topic.name, path, catalog, restored=restored)
    hidden = tomlkit.item(True)
    hidden.comment("delete this entry to bring the topic back")
    hidden.trivia.comment_ws = "  "
    entry = _render({"name": topic.name, "slug": topic.slug, "hidden": hidden})
    index = file.find(topic.slug)
    text = file.replacing(index, entry) if index is not None else file.appending(entry)
    catalog = _commit(path, default_path, text)
    return TopicEdit(Action.hid, topic.slug, topic.name, path, catalog)
