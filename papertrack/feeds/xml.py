"""XML below the format parsers: encoding repair, element streaming, and repair of broken documents.

- :func:`expat_readable` re-encodes a document expat cannot read as it is (UTF-16
  or UTF-32 with a wrong declaration, Shift JIS, an unknown encoding name).
- :func:`trim_partial_utf8` drops a character cut in half at the end of a download.
- :func:`iter_elements` streams the complete elements of a document, ending with
  the parse error where it breaks: OAI-PMH pages, papertrack's Atom exports and
  the second read of API pages for affiliations use it.
- :func:`scrub` drops the characters XML does not allow (a control character, a
  reference to a surrogate) and writes HTML's named entities as numbers, so that
  one bad character does not cut a feed short.
- :func:`repair` finds where a document breaks and rebuilds it up to the last
  whole entry, so that feedparser's strict parser can read it again.
"""

from __future__ import annotations

import codecs
import re
import xml.etree.ElementTree as ET
import xml.parsers.expat
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..text import counted

# The root element of an RSS 0.9x/2.0, RSS 1.0 (RDF) or Atom document.
FEED_ROOT_RE = re.compile(rb"<(?:[\w.-]+:)?(?:feed|rss|RDF)[\s>/]")


# What XML 1.0 never allows, as raw bytes: C0 controls but tab, line feed and
# carriage return; and in UTF-8, U+FFFE and U+FFFF (in Windows-1252, "ï¿¾" is text).
_FORBIDDEN_RE = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_FORBIDDEN_UTF8_RE = re.compile(_FORBIDDEN_RE.pattern + rb"|\xef\xbf[\xbe\xbf]")
# A character reference, or an entity reference by name.
_REFERENCE_RE = re.compile(
    rb"&#(?:[xX]([0-9a-fA-F]{1,8})|([0-9]{1,10}));|&([A-Za-z][A-Za-z0-9]{1,31});"
)
_XML_ENTITIES = frozenset({b"amp", b"lt", b"gt", b"quot", b"apos"})
# Where a reference is no reference but text: a CDATA section, a comment.
_LITERAL_RE = re.compile(rb"(<!\[CDATA\[.*?\]\]>|<!--.*?-->)", re.S)


def _allowed(code: int) -> bool:
    """Whether XML 1.0 allows the character ``code``."""
    return (
        code in (0x09, 0x0A, 0x0D)
        or 0x20 <= code <= 0xD7FF
        or 0xE000 <= code <= 0xFFFD
        or 0x10000 <= code <= 0x10FFFF
    )


def declared_encoding(data: bytes) -> bytes | None:
    """The encoding the XML declaration of ``data`` names (after a byte-order mark
    too), as written; None when it names none."""
    found = _DECLARED_RE.match(data, 0, 1024)
    return None if found is None else found.group(2)


def codec_of(name: bytes) -> str | None:
    """Python's name of the codec a declaration names ("utf_8" and "UTF8" are
    "utf-8"), or None: unknown, not ASCII, or a NUL in the name."""
    try:
        return codecs.lookup(name.decode("ascii")).name
    except (LookupError, ValueError):
        return None


def scrub(data: bytes) -> tuple[bytes, int]:
    """``data`` without the characters XML does not allow, raw or referenced
    (``&#1;``, ``&#xD800;``), with HTML's named entities (``&nbsp;``) as numbers;
    and how many were dropped or rewritten (0: ``data`` itself, unchanged).

    For a document that did not parse: one such character in one entry of a real
    listing cut the 86-entry listing after its fourth entry, and a reference to a
    surrogate lost the whole of it. Only for UTF-8 (or ASCII-compatible) bytes,
    which :func:`expat_readable` makes of every document.
    """
    from html.entities import name2codepoint

    changed = 0

    def reference(match: re.Match[bytes]) -> bytes:
        nonlocal changed
        hexadecimal, decimal, name = match.groups()
        if name is not None:
            if name in _XML_ENTITIES:
                return match.group()
            code_point = name2codepoint.get(name.decode("ascii"))
            if code_point is None:
                return match.group()  # an unknown name: repair says where it breaks
            changed += 1
            return b"&#%d;" % code_point
        code = int(hexadecimal, 16) if hexadecimal is not None else int(decimal)
        if _allowed(code):
            return match.group()
        changed += 1
        return b""

    def drop(match: re.Match[bytes]) -> bytes:
        nonlocal changed
        changed += 1
        return b""

    declared = declared_encoding(data)
    utf8 = declared is None or codec_of(declared) == "utf-8"
    parts = _LITERAL_RE.split((_FORBIDDEN_UTF8_RE if utf8 else _FORBIDDEN_RE).sub(drop, data))
    # (A literal "&#1;" in a CDATA section of a whole entry was deleted.)
    scrubbed = b"".join(
        part if i % 2 else _REFERENCE_RE.sub(reference, part) for i, part in enumerate(parts)
    )
    return (scrubbed, changed) if changed else (data, 0)


def trim_partial_utf8(data: bytes) -> bytes:
    """Drop a UTF-8 sequence cut in half at the very end of a truncated download.

    Otherwise feedparser finds the bytes invalid as UTF-8, falls back to another
    encoding and garbles every entry ("Wübben" → "WÃ¼bben"), whole ones included.
    """
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte & 0xC0 == 0x80:
            continue  # a continuation byte: look further back for the lead byte
        if byte >= 0xC0:
            needed = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            if needed > back:
                return data[:-back]
        break
    return data


# The encoding an XML declaration names; only ASCII-compatible documents match.

_DECLARED_RE = re.compile(rb"(?:\xef\xbb\xbf)?\s*<\?xml[^>]*?\sencoding\s*=\s*([\"'])(.*?)\1", re.S)
_DECLARATION_RE = re.compile(r"(<\?xml[^>]*?\sencoding\s*=\s*)([\"']).*?\2", re.S)
# How a UTF-16 or UTF-32 document starts: a byte order mark, or "<" (XML 1.0, appendix F).
_WIDE_STARTS = (
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"<\x00\x00\x00", "utf-32-le"),
    (b"\x00\x00\x00<", "utf-32-be"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
    (b"<\x00", "utf-16-le"),
    (b"\x00<", "utf-16-be"),
)


def expat_readable(data: bytes) -> bytes:
    """The document re-encoded as UTF-8 when expat could not read it as it is.

    expat reads UTF-8 and single-byte encodings. A document in UTF-16 or UTF-32
    declaring another encoding or none it knows ("utf-16-le"), in a multi-byte
    encoding (Shift JIS, GB 2312, UTF-7), or naming an encoding Python does not
    know ("TTF-8", non-ASCII bytes), made it raise LookupError or ValueError where
    feedparser had read the text by falling back to UTF-8 or Windows-1252. Decoded
    the same way and declared UTF-8, both read the same text.
    """
    wide = next((codec for start, codec in _WIDE_STARTS if data.startswith(start)), None)
    if wide is not None:
        text = data.decode(wide, "replace")
    else:
        declared = declared_encoding(data)
        if declared is None:
            return data
        codec = codec_of(declared)
        if codec is not None and codec.startswith(("utf-16", "utf-32")):
            codec = None  # its declaration is readable as ASCII, so it is neither
        if codec is not None and (
            codec in ("utf-8", "utf-16", "utf-16-le", "utf-16-be")
            # pyexpat reads any Python codec that maps each byte to one character.
            or len(bytes(range(256)).decode(codec, "replace")) == 256
        ):
            return data
        if codec is not None:
            text = data.decode(codec, "replace")
        else:
            try:
                text = trim_partial_utf8(data).decode("utf-8")
            except UnicodeDecodeError:
                try:
                    text = data.decode("cp1252")
                except UnicodeDecodeError:
                    text = data.decode("latin-1")
    text = text.removeprefix("\ufeff")
    text = _DECLARATION_RE.sub(r"\1\2utf-8\2", text, count=1)
    return text.encode("utf-8", "replace")  # UTF-7 can decode to lone surrogates


def iter_elements(data: bytes, tags: frozenset[str]) -> Iterator[ET.Element | ET.ParseError]:
    """Yield each complete element whose tag is in ``tags``, in document order.

    Ends with a :class:`ET.ParseError` item where the document breaks, so a
    cut-off response still yields every element that arrived whole.
    """
    parser: ET.XMLPullParser[ET.Element] = ET.XMLPullParser(events=("end",))

    def ready() -> Iterator[ET.Element]:
        # A parse error met while feeding is queued behind the events before
        # it, and raised by read_events when reached.
        for event in parser.read_events():
            # Only "end" events were asked for: (event name, element) pairs.
            element = event[1] if len(event) == 2 else None
            if isinstance(element, ET.Element) and element.tag in tags:
                yield element

    step = 1 << 16
    try:
        for start in range(0, len(data), step):
            parser.feed(data[start : start + step])
            yield from ready()
        parser.close()  # raises at once if the document is unfinished
        yield from ready()
    except ET.ParseError as exc:
        yield exc


@dataclass
class Repair:
    """Where a document broke, and the well-formed part of it that holds whole entries."""

    line: int
    column: int
    reason: str
    whole: int  # entries that closed before the break
    document: bytes | None  # None when the break came before the first entry


def _qualified(name: str) -> tuple[str, str]:
    """expat's name ("uri local prefix", "uri local" or "local") → (local, as written)."""
    parts = name.split(" ")
    if len(parts) == 3:
        return parts[1], f"{parts[2]}:{parts[1]}"
    return parts[-1], parts[-1]


def repair(data: bytes) -> Repair | None:
    """Find the XML error and rebuild the document up to the last whole entry.

    Returns None when expat finds the document well-formed after all.
    """
    # Namespace processing on, as in feedparser's SAX parser, so an undeclared
    # prefix is an error here too; prefixes are kept to write the closing tags.
    parser = xml.parsers.expat.ParserCreate(namespace_separator=" ")
    parser.namespace_prefixes = True
    encoding = "utf-8"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        encoding = "utf-16-le" if data.startswith(b"\xff\xfe") else "utf-16-be"
    gt = ">".encode(encoding)
    stack: list[str] = []
    # The last safe cut: (byte offset, elements open there, whole entries before it).
    safe: list[tuple[int, list[str], int]] = []

    def start(name: str, _attrs: Any) -> None:
        local, written = _qualified(name)
        if not safe and local in ("entry", "item"):
            # Before the first entry: the place to cut when no entry is whole,
            # so that the feed's own header (and so its kind) survives.
            safe.append((parser.CurrentByteIndex, list(stack), 0))
        stack.append(written)

    def end(name: str) -> None:
        stack.pop()
        if _qualified(name)[0] in ("entry", "item"):
            close = data.find(gt, parser.CurrentByteIndex) + len(gt)
            whole = safe[-1][2] + 1 if safe else 1
            safe[:] = [(close, list(stack), whole)]

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(data, True)
    except xml.parsers.expat.ExpatError as exc:
        reason = xml.parsers.expat.errors.messages.get(exc.code, str(exc))
        if not safe:
            return Repair(exc.lineno, exc.offset, reason, 0, None)
        cut, still_open, whole = safe[-1]
        closing = "".join(f"</{name}>" for name in reversed(still_open)).encode(encoding)
        return Repair(exc.lineno, exc.offset, reason, whole, data[:cut] + closing)
    return None


def cut_off(source: str, error: ET.ParseError, kept: int) -> str:
    """The error of a document that breaks at ``error``, after ``kept`` whole entries."""
    line, column = error.position
    reason = str(error).split(":")[0]
    return (
        f"{source}: the feed is cut off or malformed at line {line}, column {column} "
        f"({reason}); kept the {counted(kept, 'entry', 'entries')} that arrived whole"
        f"{FETCH_AGAIN}"
    )


#: How to fix a cut-off feed, after what its error says was kept.
FETCH_AGAIN = ". Download it again if it was cut short"
