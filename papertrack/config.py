"""The optional ``config.toml`` in the data home: defaults for options users repeat.

Precedence everywhere: command-line flag > environment variable > config file >
built-in default. Only what a section names is read; unknown keys are errors, so
a typo does not silently do nothing.

    [fetch]
    categories = ["cs.AI", "cs.CL"]   # or "cs.AI, cs.CL", or "cs.AI" for one
    api_url = "https://export.arxiv.org/api/query"
    listing_url = "https://rss.arxiv.org/atom"
    page_size = 2000
    retries = 5
    interval = 3.0
    timeout = 60.0
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from papertrack.errors import UsageError

#: key -> accepted Python types, per section.
FETCH_KEYS: dict[str, tuple[type, ...]] = {
    "categories": (list, str),
    "api_url": (str,),
    "listing_url": (str,),
    "page_size": (int,),
    "retries": (int,),
    "interval": (int, float),
    "timeout": (int, float),
}


#: What each kind of value is, as an error message says it.
_KIND_WORDS: dict[tuple[type, ...], str] = {
    (list, str): 'a list of categories, e.g. ["cs.AI", "cs.CL"]',
    (str,): 'text in quotes, e.g. "https://export.arxiv.org/api/query"',
    (int,): "a whole number, e.g. 2000",
    (int, float): "a number of seconds, e.g. 3",
}

#: The sections the file may have.
SECTIONS = frozenset({"fetch"})


def load(path: Path) -> dict[str, Any]:
    """The parsed config file, or {} when there is none."""
    try:
        text = path.read_text(encoding="utf-8-sig")  # an editor's byte-order mark is no error
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not UTF-8 text. Save it as UTF-8") from None
    except OSError as exc:
        raise UsageError(
            f"could not read {path}: {exc.strerror or exc}. Check its permissions"
        ) from exc
    try:
        config = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path} is not valid TOML ({exc}). Fix or remove the file") from exc
    unknown = sorted(set(config) - SECTIONS)
    if unknown:
        # [fetsh] or a key outside any section would otherwise do nothing, silently.
        raise UsageError(
            f"unknown section or key {unknown[0]!r} in {path}. Known sections: "
            f"{', '.join(f'[{name}]' for name in sorted(SECTIONS))}"
        )
    return config


def fetch_defaults(config: dict[str, Any], path: Path) -> dict[str, Any]:
    """The ``[fetch]`` section, checked: key -> value."""
    section = config.get("fetch", {})
    if not isinstance(section, dict):
        raise UsageError(f"[fetch] in {path} must be a table. Write it as a [fetch] section")
    for key, value in section.items():
        kinds = FETCH_KEYS.get(key)
        if kinds is None:
            known = ", ".join(FETCH_KEYS)
            raise UsageError(f"unknown key {key!r} in [fetch] of {path}. Known keys: {known}")
        if isinstance(value, bool) or not isinstance(value, kinds):
            raise UsageError(
                f"{key} in [fetch] of {path} has the wrong type: it must be {_KIND_WORDS[kinds]}"
            )
    section = dict(section)
    categories = section.get("categories")
    if isinstance(categories, str):
        # categories = "cs.AI" (or "cs.AI, cs.CL") is an easy slip for ["cs.AI"]: read it
        # as the names it lists.
        categories = section["categories"] = categories.replace(",", " ").split()
    if categories is not None and not all(isinstance(c, str) and c.strip() for c in categories):
        raise UsageError(
            f'categories in [fetch] of {path} must name categories: ["cs.AI", "cs.CL"] '
            'or "cs.AI, cs.CL"'
        )
    return section
