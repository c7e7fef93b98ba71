"""Editing the user's topics file: only the entry concerned changes, every other byte stays."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from papertrack.errors import QuerySyntaxError, UnknownTopicError, UsageError
from papertrack.paths import default_topics_file
from papertrack.userfile import Action, add_topic, remove_topic

DEFAULTS = default_topics_file()

FILE = """\
# My topics file
# (a header)

# About Alpha
[[topic]]  # the first
name = "Alpha"  # inline
# inside Alpha
query = 'alpha'

# About Beta
[[topic]]
name = "Beta"
query = '''
beta
# a comment inside the query, not a TOML comment
'''
# trailing inside Beta

# About Gamma
[[topic]]
name = "Gamma"
query = 'gamma'
# after Gamma

# closing note
"""


@pytest.fixture
def path(tmp_path: Path) -> Path:
    target = tmp_path / "topics.toml"
    target.write_text(FILE, encoding="utf-8")
    return target


def names(path: Path) -> list[str]:
    return [t.get("name", t.get("slug")) for t in tomllib.loads(path.read_text())["topic"]]


def test_removing_a_middle_entry_takes_its_comments_and_leaves_its_neighbours(path: Path) -> None:
    edit = remove_topic(path, DEFAULTS, "beta")
    assert (edit.action, edit.slug, edit.restored) == (Action.removed, "beta", None)
    start, end = FILE.index("# About Beta"), FILE.index("# About Gamma")
    assert path.read_text() == FILE[:start] + FILE[end:]


def test_removing_the_first_entry_keeps_the_file_header(path: Path) -> None:
    remove_topic(path, DEFAULTS, "Alpha")
    start, end = FILE.index("# About Alpha"), FILE.index("# About Beta")
    assert path.read_text() == FILE[:start] + FILE[end:]


def test_removing_the_last_entry_keeps_the_closing_note(path: Path) -> None:
    remove_topic(path, DEFAULTS, "gamma")
    text = path.read_text()
    assert text == FILE[: FILE.index("# About Gamma")] + "# closing note\n"
    assert names(path) == ["Alpha", "Beta"]


def test_removing_every_entry_leaves_the_comments(path: Path) -> None:
    for name in ("gamma", "beta", "alpha"):
        remove_topic(path, DEFAULTS, name)
    assert path.read_text() == "# My topics file\n# (a header)\n\n# closing note\n"


def test_replacing_rewrites_one_entry_in_place(path: Path) -> None:
    edit = add_topic(path, DEFAULTS, name="Beta", query="beta OR bêta", replace=True)
    assert edit.action is Action.replaced
    assert edit.topic is not None and edit.topic.query == "beta OR bêta"
    old = FILE[FILE.index('[[topic]]\nname = "Beta"') : FILE.index("# About Gamma")]
    assert path.read_text() == FILE.replace(
        old, "[[topic]]\nname = \"Beta\"\nquery = 'beta OR bêta'\n\n"
    )


def test_adding_appends_with_toml_quoting(path: Path) -> None:
    query = 'it\'s "a phrase" OR back\\slash'
    edit = add_topic(
        path, DEFAULTS, name="  Delta   Force ", query=query, slug="delta", categories=["cs.*"]
    )
    assert (edit.action, edit.name, edit.slug) == (Action.added, "Delta Force", "delta")
    text = path.read_text()
    assert text.startswith(FILE)
    assert tomllib.loads(text)["topic"][-1] == {
        "name": "Delta Force",
        "slug": "delta",
        "query": query,
        "categories": ["cs.*"],
    }


def test_hiding_a_default_then_adding_it_back(path: Path) -> None:
    edit = remove_topic(path, DEFAULTS, "Agentic RAG")
    assert edit.action is Action.hid and "agentic-rag" not in edit.catalog.fingerprints()
    assert tomllib.loads(path.read_text())["topic"][-1] == {
        "name": "Agentic RAG",
        "slug": "agentic-rag",
        "hidden": True,
    }
    edit = add_topic(path, DEFAULTS, name="Agentic RAG", query="rag AND agent*")
    assert edit.action is Action.overrode
    assert names(path) == ["Alpha", "Beta", "Gamma", "Agentic RAG"]
    assert "hidden" not in path.read_text()


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"query": "(agent"}, QuerySyntaxError, "unbalanced parenthesis at column 1"),
        ({"query": "x", "categories": ["cs AI"]}, UsageError, "bad category 'cs AI'"),
        ({"query": "x", "slug": "Not A Slug"}, UsageError, "is not a slug"),
        ({"query": "x", "name": "  "}, UsageError, "needs a name"),
        ({"query": "x", "name": "!!! \U0001f9e0"}, UsageError, "no letter or digit.*--slug"),
        # A slug names its model file: 251 characters made every later command fail.
        ({"query": "x", "name": "y" * 251}, UsageError, "251 bytes long"),
        # In bytes: 100 CJK characters (300 bytes) were let through.
        ({"query": "x", "name": "\u7814" * 100}, UsageError, "300 bytes long"),
        ({"query": "x", "slug": "z" * 101}, UsageError, "at most 100"),
        ({"query": "x", "name": "alpha", "slug": "other"}, UsageError, "two topics are named"),
        ({"query": "x", "name": "Alpha"}, UsageError, "--replace"),
    ],
)
def test_bad_additions_leave_the_file_alone(
    path: Path, kwargs: dict[str, object], error: type[Exception], message: str
) -> None:
    kwargs = {"name": "New", **kwargs}
    with pytest.raises(error, match=message.replace("(", r"\(")):
        add_topic(path, DEFAULTS, **kwargs)  # type: ignore[arg-type]
    assert path.read_text() == FILE


def test_unknown_topic_and_unsafe_layouts_are_refused(path: Path) -> None:
    with pytest.raises(UnknownTopicError):
        remove_topic(path, DEFAULTS, "no such topic")
    path.write_text('[["topic"]]\nname = "Quoted"\nquery = "q"\n', encoding="utf-8")
    with pytest.raises(UsageError, match="on a line of its own"):
        remove_topic(path, DEFAULTS, "Quoted")
    assert path.read_text() == '[["topic"]]\nname = "Quoted"\nquery = "q"\n'


def test_an_edit_keeps_the_files_link_permissions_and_line_ends(tmp_path: Path) -> None:
    # The file is the user's: kept in a dotfiles folder behind a symlink, private,
    # written with CRLF line ends by an editor on another system.
    real = tmp_path / "dotfiles" / "topics.toml"
    real.parent.mkdir()
    real.write_bytes(FILE.replace("\n", "\r\n").encode("utf-8"))
    real.chmod(0o600)
    link = tmp_path / "topics.toml"
    link.symlink_to(real)
    add_topic(link, DEFAULTS, name="Delta", query="delta")
    remove_topic(link, DEFAULTS, "Beta")
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert (real.stat().st_mode & 0o777) == 0o600
    data = real.read_bytes()
    assert data.count(b"\r\n") == data.count(b"\n")  # every line end is CRLF still
    assert names(real) == ["Alpha", "Gamma", "Delta"]
    assert data.startswith(b"# My topics file\r\n# (a header)\r\n")


def test_a_read_only_file_is_refused_not_replaced(path: Path) -> None:
    path.chmod(0o444)
    with pytest.raises(UsageError, match="is read-only. Make it writable"):
        add_topic(path, DEFAULTS, name="Delta", query="delta")
    assert path.read_text() == FILE and (path.stat().st_mode & 0o777) == 0o444


def test_a_byte_order_mark_is_read_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "topics.toml"
    path.write_bytes(b"\xef\xbb\xbf" + FILE.encode("utf-8"))
    from papertrack.topics import Catalog

    assert Catalog.load(DEFAULTS, path).find("Alpha").query == "alpha"
    add_topic(path, DEFAULTS, name="Delta", query="delta")
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf# My topics file\n") and data.count(b"\xef\xbb\xbf") == 1
    entries = tomllib.loads(data.decode("utf-8-sig"))["topic"]
    assert [t["name"] for t in entries] == ["Alpha", "Beta", "Gamma", "Delta"]
