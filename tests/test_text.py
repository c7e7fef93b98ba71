"""Untrusted feed text: cleaning, TeX accents, HTML."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from papertrack.text import clean_text, decode_tex_accents, strip_html

# What clean_text must never let through.
_FORBIDDEN = {
    *map(chr, range(0x00, 0x20)),
    "\x7f",
    *map(chr, range(0x80, 0xA0)),
    "\u200b",
    "\u200c",
    "\u200d",
    "\u2060",
    "\ufeff",
    *map(chr, range(0x202A, 0x202F)),
    *map(chr, range(0x2066, 0x206A)),
}


def test_clean_text_collapses_whitespace_to_one_line() -> None:
    # The legacy API hard-wraps abstracts at ~80 columns with a leading "  ".
    wrapped = "  We present the theory of the effect of thermal fluctuations on commensurate\n"
    wrapped += '"p x p" density wave ordering on the square lattice (p >= 3, integer). For the\n'
    assert clean_text(wrapped) == (
        "We present the theory of the effect of thermal fluctuations on commensurate "
        '"p x p" density wave ordering on the square lattice (p >= 3, integer). For the'
    )
    assert clean_text("a\tb\r\nc\u00a0\u2028d") == "a b c d"
    assert clean_text(None) == ""
    assert clean_text("   ") == ""


def test_clean_text_removes_terminal_escapes() -> None:
    assert clean_text("\x1b[31mred\x1b[0m title") == "red title"
    assert clean_text("\x1b]0;pwned\x07Title") == "Title"
    assert clean_text("a\x9b2Jb") == "ab"  # one-byte CSI
    assert clean_text("bell\x07 and\x00 nul") == "bell and nul"
    assert "\x1b" not in clean_text("\x1b")


def test_clean_text_removes_invisible_and_bidi_controls_but_keeps_rtl_letters() -> None:
    assert clean_text("LL\u200bM \u2060agents\ufeff") == "LLM agents"
    # "Trojan source" style reordering: the override goes, the letters stay.
    assert clean_text("admin\u202e\u2066 txt.exe\u2069\u202c") == "admin txt.exe"
    hebrew, arabic = "שלום עולם", "التعلم العميق"
    assert clean_text(f"{hebrew} / {arabic}") == f"{hebrew} / {arabic}"


def test_clean_text_nfc_normalises() -> None:
    decomposed = "Wu\u0308bben"
    assert clean_text(decomposed) == "Wübben"
    assert unicodedata.is_normalized("NFC", clean_text(decomposed))


@pytest.mark.parametrize(
    ("tex", "expected"),
    [
        (r"Paulo Andr\'e Lima de Castro", "Paulo André Lima de Castro"),  # real dc:creator
        (r"C. Bal\'azs", "C. Balázs"),  # real Kaggle authors string
        (r"\'{e}", "é"),
        (r"{\'e}", "é"),
        (r"{\"o}", "ö"),
        (r"\"{u}", "ü"),
        (r"J\"org Deigm\"oller", "Jörg Deigmöller"),
        (r"\~n", "ñ"),
        (r"\^o", "ô"),
        (r"\`a", "à"),
        (r"In\`es Blin", "Inès Blin"),
        (r"\c{c}", "ç"),
        (r"\c c", "ç"),
        (r"\v{s}", "š"),
        (r"Nikola Pi\v{z}urica", "Nikola Pižurica"),
        (r"Mikol\'a\v{s} Janota", "Mikoláš Janota"),
        (r"\u{g}", "ğ"),
        (r"\H{o}", "ő"),
        (r"\k{a}", "ą"),
        (r"\r{a}", "å"),
        (r"Jan Jakub\r{u}v", "Jan Jakubův"),
        (r"\=a", "ā"),
        (r"\.z", "ż"),
        (r"\ss", "ß"),
        (r"Hendrik Kra{\ss}", "Hendrik Kraß"),
        (r"Anders S{\o}gaard", "Anders Søgaard"),
        (r"\o", "ø"),
        (r"\O rsted", "Ørsted"),
        (r"\aa", "å"),
        (r"\AA ngstr\"om", "Ångström"),
        (r"\ae", "æ"),
        (r"\l", "ł"),
        (r"\L{}ukasz", "Łukasz"),
        (r"\'{\i}", "í"),
        (r"\'\i", "í"),
        (r"Rodr\'iguez", "Rodríguez"),
        (r"{\v{s}}", "š"),
    ],
)
def test_decode_tex_accents(tex: str, expected: str) -> None:
    assert decode_tex_accents(tex) == expected


@pytest.mark.parametrize(
    "text",
    [
        r"$\omega$Test: WebView-Oriented Testing",
        r"$1.13\times$ faster",
        r"$\'a$ stays inside math",
        r"\cdot \varepsilon \underline{x} \beta \delta \rho \kappa \theta",
        r"\emph{a} and \textbf{b}",
        "no backslash at all {}",
        r"\'{}",
    ],
)
def test_decode_tex_accents_leaves_other_tex_alone(text: str) -> None:
    assert decode_tex_accents(text) == text


def test_decode_tex_accents_keeps_braces_that_group_more() -> None:
    # The closing brace belongs to \textit, not to the accent.
    assert decode_tex_accents(r"\textit{Andr\'e}") == r"\textit{André}"
    assert decode_tex_accents(r"$\alpha$ and Andr\'e") == r"$\alpha$ and André"


def test_strip_html() -> None:
    # The legacy RSS dc:creator and description.
    creators = (
        '<a href="http://arxiv.org/find/cs/1/au:+Perera_C/0/1/0/all/0/1">Charith Perera</a>, '
        '<a href="http://arxiv.org/find/cs/1/au:+Liu_C/0/1/0/all/0/1">Chang Liu</a>'
    )
    assert strip_html(creators) == "Charith Perera, Chang Liu"
    assert clean_text(strip_html("<p>first</p><p>second &amp; third</p>")) == (
        "first second & third"
    )
    # escaped text stays text: "&lt;b&gt;" was never a tag
    assert strip_html("x &lt;b&gt; y") == "x <b> y"
    assert strip_html("2.6&lt;\\eta&lt;4") == "2.6<\\eta<4"
    assert clean_text(strip_html("a<script>alert(1)</script>b<style>p{}</style>c")) == "a b c"
    assert strip_html("<![CDATA[raw <i>text</i>]]>") == "raw text"
    assert strip_html("") == ""
    assert strip_html(None) == ""


@given(st.text())
def test_clean_text_is_safe_and_idempotent(text: str) -> None:
    cleaned = clean_text(text)
    assert not (_FORBIDDEN & set(cleaned))
    assert cleaned == cleaned.strip()
    assert "  " not in cleaned
    assert clean_text(cleaned) == cleaned


@given(st.text(alphabet=st.sampled_from(list("\\'\"`^~=.{}$ aeiouAIOsjlcvuHkrdbgz")), max_size=40))
def test_decode_tex_accents_never_raises_on_tex_like_text(text: str) -> None:
    assert isinstance(decode_tex_accents(text), str)


@given(st.text())
def test_decode_tex_accents_and_strip_html_never_raise(text: str) -> None:
    decoded = decode_tex_accents(text)
    if "\\" not in text:
        assert decoded == text
    assert isinstance(strip_html(text), str)


def test_shown_text_breaks_words_where_stored_text_does() -> None:
    """A carriage return, form feed, information separator or NEL between two words
    leaves two words on screen, as clean_text leaves them in the store; it used to be
    deleted on screen ("Deep\\rLearning" read "DeepLearning")."""
    from papertrack.text import one_line, visible

    for sep in ("\r", "\x0b", "\x0c", "\x1c", "\x1f", "\x85"):
        assert one_line(f"Deep{sep}Learning") == "Deep Learning" == clean_text(f"Deep{sep}Learning")
        assert visible(f"Deep{sep}Learning") == "Deep Learning"
    assert visible("one\r\ntwo", keep_lines=True) == "one\ntwo"
    assert visible("a\x1b[31mb") == "ab"


def test_names_are_shown_one_line_each_with_how_many_more() -> None:
    """Terminal tables, digests, ask and the site list names by one rule: each name on
    one line (a line break inside a stored name used to survive into the table), the
    first three, then +N."""
    from papertrack.text import names_plus, plus_more

    assert names_plus(["Ada\nLovelace", "Alan\rTuring", " Grace  Hopper ", "D", "E"]) == (
        "Ada Lovelace, Alan Turing, Grace Hopper +2"
    )
    assert names_plus(["A", "B"], sep=" · ") == "A · B"
    assert names_plus([]) == ""
    assert plus_more(3, 3) == "" and plus_more(1_207, 3) == " +1,204"


@pytest.mark.parametrize(
    ("url", "link"),
    [
        ("https://x.example/a b", "https://x.example/a%20b"),
        ("HTTP://X.example/A", "http://X.example/A"),
        ("https://x.example/x%20y?q=1&r=(2)#f", "https://x.example/x%20y?q=1&r=(2)#f"),
        ('https://x.example/"><script>', "https://x.example/%22%3E%3Cscript%3E"),
        ("https://x.example/\u00fc\u200b\n", "https://x.example/%C3%BC"),
        (" JavaScript:alert(1)", ""),
        ("data:text/html,<b>x</b>", ""),
        ("file:///etc/passwd", ""),
        ("https:", ""),
        ("", ""),
        (None, ""),
    ],
)
def test_web_url_links_web_addresses_alone(url: str | None, link: str) -> None:
    from papertrack.text import web_url

    assert web_url(url) == link


@given(st.recursive(st.text() | st.integers(), lambda inner: st.lists(inner, max_size=4)))
def test_json_text_escapes_exactly_what_the_whole_text_through_the_class_would(
    data: object,
) -> None:
    """The class is now looked up in non-ASCII runs only, DEL by itself: the same text."""
    import json

    from papertrack.text import _JSON_ESCAPE, _escape, json_text

    assert json_text(data) == _JSON_ESCAPE.sub(_escape, json.dumps(data, ensure_ascii=False))
    assert json.loads(json_text(data)) == data
