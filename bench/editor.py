"""The rulebook editor (issue 39) as an organiser uses it: the page of a copy of berserk, and
one change in its grid (a penalty chosen in a cell: written into the YAML, checked, the
rulebook's cases run, the page sent back), against one check of the draft alone
(`drafts.check`: parse the YAML, validate, lint) in the same run, the two in turns.

Each change chooses another cell, so no change finds its text already parsed and checked.

    python -P bench/editor.py [--changes 10]

The last line: `EDITOR: the page X KB compressed, a change Y s (Z × one check; goal 1 s)`.
"""

from __future__ import annotations

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
sys.path.append(_HERE)
os.environ.setdefault("SUDYA_PASSWORD_COST", "test")

import argparse  # noqa: E402
import gzip  # noqa: E402
import re  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
from html.parser import HTMLParser  # noqa: E402
from pathlib import Path  # noqa: E402

from fastapi.testclient import TestClient  # noqa: E402
from timing import interleaved  # noqa: E402

from sudya.app import demo  # noqa: E402
from sudya.app.settings import Settings  # noqa: E402
from sudya.domain.rulebook import drafts, loader  # noqa: E402
from sudya.edges.web.app import create_app  # noqa: E402

GOAL_S = 1.0
class _Form(HTMLParser):
    """What the browser sends of the editor's form (inputs, the selected option of each
    select, textareas; unchecked boxes and files left out)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.sent: list[tuple[str, str]] = []
        self._select: str | None = None
        self._first: str | None = None
        self._textarea: str | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "input" and a.get("name") and a.get("type") != "file" and (
                a.get("type") != "checkbox" or "checked" in a):
            self.sent.append((a["name"], a.get("value", "")))
        elif tag == "select":
            self._select, self._first = a.get("name"), None
        elif tag == "option" and self._select is not None:
            if self._first is None:
                self._first = a.get("value", "")
            if "selected" in a:
                self.sent.append((self._select, a.get("value", "")))
                self._select = None
        elif tag == "textarea":
            self._textarea, self._text = a.get("name"), []

    def handle_endtag(self, tag: str) -> None:
        if tag == "select" and self._select is not None:
            self.sent.append((self._select, self._first or ""))
            self._select = None
        elif tag == "textarea" and self._textarea:
            self.sent.append((self._textarea, "".join(self._text).removeprefix("\n")))
            self._textarea = None

    def handle_data(self, data: str) -> None:
        if self._textarea is not None:
            self._text.append(data)


def fields(page: str) -> list[tuple[str, str]]:
    form = _Form()
    form.feed(page.split('<form id="editor"', 1)[1].split("</form>", 1)[0])
    return form.sent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--changes", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        demo.build(Path(tmp) / "demo.db").dispose()
        app = create_app(Settings(database_url=f"sqlite:///{tmp}/demo.db", secret="bench"))
        client = TestClient(app)
        login = client.get("/login").text
        csrf = re.search(r'name="csrf" value="([^"]*)"', login)
        client.post("/login", data={"username": "glavsud", "password": "sudya-demo",
                                    "csrf": csrf.group(1) if csrf else ""})
        page = client.get("/rulebooks/editor?from=berserk").text
        sent = fields(page)
        text = next(v for k, v in sent if k == "text")
        cells = [k for k, v in sent if k.startswith("cell|") and v == "warning"]
        turn = iter(range(10**9))

        def change() -> None:  # another cell each time: nothing is found parsed or checked
            cell = cells[next(turn) % len(cells)]
            data: dict[str, list[str]] = {}
            for k, v in sent:
                data.setdefault(k, []).append("game-loss" if k == cell else v)
            answer = client.post("/rulebooks/editor/apply", data=data)
            assert answer.status_code == 200, answer.text[:300]

        def check() -> None:  # another text each time: nothing kept
            drafts.check(text + f"\n# {next(turn)}\n")

        took = interleaved({"change": change, "check": check}, args.changes)
        app.state.ledger.db.dispose()
        loader.keep_stored(set())
    change, check = statistics.median(took["change"]), statistics.median(took["check"])
    kb = len(gzip.compress(page.encode("utf-8"))) / 1024
    print(f"changes: {args.changes}, median {change:.2f} s (best {min(took['change']):.2f}, "
          f"worst {max(took['change']):.2f}); one check of the draft, in turns with them: "
          f"median {check:.3f} s")
    print(f"EDITOR: the page {kb:.0f} KB compressed ({len(page) / 1024:.0f} KB raw), a change "
          f"{change:.2f} s ({change / check:.1f} × one check; goal {GOAL_S:.0f} s)")


if __name__ == "__main__":
    main()
