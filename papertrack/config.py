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

#: What each kind of value may be: the Python types accepted, and how an error
#: message says it.
_CATEGORIES = ((list, str), 'a list of categories, e.g. ["cs.AI", "cs.CL"]')
#: What --api-url and --listing-url must be.
API_WORDS = 'an http(s) address, e.g. "https://export.arxiv.org/api/query"'
LISTING_WORDS = 'an http(s) address, e.g. "https://rss.arxiv.org/atom"'
_API = ((str,), API_WORDS.replace("address,", "address in quotes,"))
_LISTING = ((str,), LISTING_WORDS.replace("address,", "address in quotes,"))
_PAGE = ((int,), "a whole number, e.g. 2000")
_TRIES = ((int,), "a whole number, e.g. 5")
_SECONDS = ((int, float), "a number of seconds, e.g. 3")

#: key -> (accepted Python types, what they are in words), per section.
FETCH_KEYS: dict[str, tuple[tuple[type, ...], str]] = {
    "categories": _CATEGORIES,
    "api_url": _API,
    "listing_url": _LISTING,
    "page_size": _PAGE,
    "retries": _TRIES,
    "interval": _SECONDS,
    "timeout": _SECONDS,
    "backoff": _SECONDS,
}

#: The sections the file may have.
SECTIONS = frozenset({"fetch"})


def loads_toml(text: str) -> dict[str, Any]:
    """``tomllib.loads``, with nesting too deep for its recursion ([[[[...) raised as
    the TOMLDecodeError "nested too deeply", not a RecursionError: each of
    papertrack's TOML files then says so in its own one-line error."""
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise tomllib.TOMLDecodeError("nested too deeply") from None


def load(path: Path) -> dict[str, Any]:
    """The parsed config file, or {} when there is none."""
    try:
        text = path.read_text(encoding="utf-8-sig")  # an editor's byte-order mark is no error
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not UTF-8 text. Save it as UTF-8") from None
    except OSError as exc:
        from papertrack.files import home_fix

        raise UsageError(f"could not read {path}: {exc.strerror or exc}. {home_fix(exc)}") from exc
    try:
        config = loads_toml(text)
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


def check_url(value: str, named: str, words: str) -> None:
    """Refuse ``value`` unless it is an http(s) URL with a host that Python can split
    (``named``: where it was given, e.g. "--listing-url"; ``words``: what it must be).

    Checked before any request: "http://[::1/atom" (a bracket left open) ended in
    "papertrack failed unexpectedly ... This is a bug", and "notaurl" failed at the
    first request, as if the connection were at fault, with exit 1.

    Raises:
        UsageError: naming the value with any password hidden.
    """
    import urllib.parse

    from papertrack.net import said_url

    text = value.strip()
    if not text:
        why = " (an unset variable?)" if named.startswith("--") else ""
        raise UsageError(f"{named} is empty{why}. Give {words}")
    try:
        parts = urllib.parse.urlsplit(text)
        parts.port  # noqa: B018 - raises for a port out of range
    except ValueError as exc:
        raise UsageError(
            f"{named} is not a valid URL: {said_url(text)} ({exc}). Give {words}"
        ) from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise UsageError(
            f"{named} is not an http(s) URL with a host: {said_url(text)}. Give {words}"
        )


def fetch_defaults(config: dict[str, Any], path: Path) -> dict[str, Any]:
    """The ``[fetch]`` section, checked: key -> value."""
    section = config.get("fetch", {})
    if not isinstance(section, dict):
        raise UsageError(f"[fetch] in {path} must be a table. Write it as a [fetch] section")
    for key, value in section.items():
        kind = FETCH_KEYS.get(key)
        if kind is None:
            known = ", ".join(FETCH_KEYS)
            raise UsageError(f"unknown key {key!r} in [fetch] of {path}. Known keys: {known}")
        types, words = kind
        if isinstance(value, bool) or not isinstance(value, types):
            raise UsageError(f"{key} in [fetch] of {path} has the wrong type: it must be {words}")
        if key.endswith("_url"):
            # "" fell back to the default silently, and "ftp://x" failed at the first
            # request as if the network were at fault.
            check_url(str(value), f"{key} in [fetch] of {path}", words)
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
