"""An HTML page read back for tests: its elements, its text, and whether its tags nest."""

from __future__ import annotations

from html.parser import HTMLParser


class Elements(HTMLParser):
    """Every element with its attributes, the text, and whether the tags nest properly."""

    VOID = {"meta", "br", "img", "hr", "link", "input", "rect", "line", "path"}

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.stack: list[str] = []
        self.problems: list[str] = []
        self.text = ""
        self.feed(page)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID:
            return  # never opened on the stack
        if self.stack and self.stack[-1] == tag:
            self.stack.pop()
        else:
            self.problems.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")

    def handle_data(self, data: str) -> None:
        self.text += data

    def hrefs(self) -> list[str]:
        return [a["href"] or "" for t, a in self.tags if t == "a" and "href" in a]
