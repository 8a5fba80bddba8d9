"""Helpers for the web tests (conftest.py holds the fixtures)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser

from fastapi.testclient import TestClient

CSRF = re.compile(r'name="csrf" value="([0-9a-f]+)"')


def csrf_of(client: TestClient, url: str) -> str:
    """The CSRF token the page at `url` puts in its forms."""
    page = client.get(url)
    assert page.status_code == 200, page.text
    match = CSRF.search(page.text)
    assert match, f"no csrf token on {url}"
    return match.group(1)


# ---------------------------------------------------------------------- reading a page
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


@dataclass
class Element:
    """One element of a parsed page: its tag, attributes and children (elements or text)."""

    tag: str
    attrs: dict[str, str] = field(default_factory=dict)
    children: list[Element | str] = field(default_factory=list)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    @property
    def elements(self) -> list[Element]:
        """The child elements, without the text between them."""
        return [c for c in self.children if isinstance(c, Element)]

    def text(self) -> str:
        """What a reader sees: the text inside, whitespace collapsed (<br> as a space)."""
        parts: list[str] = []

        def walk(node: Element | str) -> None:
            if isinstance(node, str):
                parts.append(node)
                return
            if node.tag == "br":
                parts.append(" ")
            for child in node.children:
                walk(child)

        walk(self)
        return " ".join("".join(parts).split())

    def iter(self) -> Iterator[Element]:
        for child in self.elements:
            yield child
            yield from child.iter()

    def all(self, tag: str | None = None, *, cls: str | None = None,
            **attrs: str) -> list[Element]:
        """Every element below this one with that tag, class and attributes."""
        return [e for e in self.iter()
                if (tag is None or e.tag == tag) and (cls is None or cls in e.classes)
                and all(e.attrs.get(k) == v for k, v in attrs.items())]

    def one(self, tag: str | None = None, *, cls: str | None = None, **attrs: str) -> Element:
        """The one element below this one that matches (the test fails on none or several)."""
        found = self.all(tag, cls=cls, **attrs)
        assert len(found) == 1, f"{len(found)} × <{tag} class={cls} {attrs}>"
        return found[0]

    def after(self, heading: str) -> Element:
        """The element right after the <h2> that reads `heading` (a section's content)."""
        for parent in [self, *self.iter()]:
            kids = parent.elements
            for i, kid in enumerate(kids[:-1]):
                if kid.tag == "h2" and kid.text() == heading:
                    return kids[i + 1]
        raise AssertionError(f"no <h2>{heading}</h2> followed by an element")


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document")
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(element)
        if tag not in VOID:
            self.stack.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Element(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return
        raise AssertionError(f"</{tag}> closes nothing")

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse(page: str) -> Element:
    """The page as a tree of elements (the stdlib's HTML parser; a stray end tag fails)."""
    builder = _TreeBuilder()
    builder.feed(page)
    builder.close()
    return builder.root


def main_of(page: str) -> Element:
    """The page's <main>: what the page shows, without the header and the menu."""
    return parse(page).one("main")


def handle_of(element: Element) -> str:
    """Whom an element names: the handle (id) shown beside a person's or team's name in
    `<span class="handle">`, or else its text."""
    shown = element.all("span", cls="handle")
    return shown[0].text() if shown else element.text()


def table_rows(table: Element) -> list[list[str]]:
    """The text of each body row's cells (<th> and <td>), row by row; a cell that names a
    person or team by name reads as their handle (handle_of)."""
    body = table.all("tbody") or [table]
    return [[handle_of(cell) for cell in row.elements if cell.tag in ("td", "th")]
            for row in body[0].all("tr")]


def table_by_column(table: Element) -> dict[str, dict[str, str]]:
    """A table whose first column names its rows: {row name: {column heading: cell}}."""
    head = [th.text() for th in table.one("thead").all("th")]
    key = 1 if head and head[0] == "#" else 0  # a leading «#» column only numbers the rows
    return {row[key]: dict(zip(head, row, strict=True)) for row in table_rows(table)}


# ---------------------------------------------------------------------- submitting a form
def form_fields(form: Element) -> dict[str, str]:
    """What a browser sends of a form as the page shows it: inputs (a checkbox or radio only
    when checked), the selected option of each select, textareas; no buttons (a name the
    form holds several times: its last value; `form_items` keeps them all)."""
    return {name: values[-1] for name, values in form_items(form).items()}


def form_items(form: Element) -> dict[str, list[str]]:
    """`form_fields` with every value of a name the form holds several times, in order."""
    out: dict[str, list[str]] = {}
    for name, value in _form_pairs(form):
        out.setdefault(name, []).append(value)
    return out


def _form_pairs(form: Element) -> Iterator[tuple[str, str]]:
    for el in form.iter():
        name = el.attrs.get("name")
        if not name:
            continue
        if el.tag == "input":
            kind = el.attrs.get("type", "text")
            if kind in ("checkbox", "radio"):
                if "checked" in el.attrs:
                    yield name, el.attrs.get("value") or "on"
            elif kind not in ("submit", "button", "reset"):
                yield name, el.attrs.get("value", "")
        elif el.tag == "select":
            options = el.all("option")
            chosen = [o for o in options if "selected" in o.attrs] or options[:1]
            if chosen:
                yield name, chosen[0].attrs.get("value", chosen[0].text())
        elif el.tag == "textarea":
            yield name, "".join(c for c in el.children if isinstance(c, str)).lstrip("\n")


def record_form(client: TestClient, url: str) -> dict[str, str]:
    """The fields of the record form at `url` (previewed at once when it names the player and
    the infraction: its preview token and key included), as the confirm button sends them."""
    page = client.get(url)
    assert page.status_code == 200, page.text[:300]
    return form_fields(main_of(page.text).one("form", cls="record-form"))
