"""Issue 36: an organiser uploads the players list as Excel saved it (semicolons, cp1251,
Russian headers; or the XLSX itself), sees a preview — every row, each refused one named
beside its line, nothing stored — and confirms: every row or none. 500 players at a time."""

from __future__ import annotations

import html
import io
import re
from collections.abc import Callable

from fastapi.testclient import TestClient
from openpyxl import Workbook
from web_testkit import csrf_of

from sudya.app.ledger import Ledger
from sudya.app.queries import tournament_summary

SignIn = Callable[[str], TestClient]
BERSERK = 1


def upload(client: TestClient, data: bytes, name: str, kind: str = "players") -> tuple[int, str]:
    r = client.post(f"/t/{BERSERK}/people/upload",
                    data={"csrf": csrf_of(client, f"/t/{BERSERK}/people"), "kind": kind},
                    files={"file": (name, data)})
    return r.status_code, html.unescape(r.text)


def confirm(client: TestClient, page: str) -> int:
    """The preview's own button: the file sent back as the preview read it."""
    form = page.split('action="/t/1/people/upload">')[1].split("</form>")[0]
    fields = dict(re.findall(r'name="([a-z]+)" value="([^"]*)"', form))
    r = client.post(f"/t/{BERSERK}/people/upload", data=fields, follow_redirects=False)
    return r.status_code


def handles(ledger: Ledger) -> set[str]:
    with ledger.factory() as s:
        return {p.handle for p in tournament_summary(s, BERSERK).players}


def test_a_russian_excel_list_is_previewed_then_added(signed_in: SignIn,
                                                      ledger: Ledger) -> None:
    head = signed_in("glavsud")
    before = handles(ledger)
    rows = "".join(f"p{i:03d};Игрок Номер {i};;{i + 10}\n" for i in range(500))
    data = ("Ник;Имя;Команда;Стол\n" + rows).encode("cp1251")
    status, page = upload(head, data, "игроки.csv")
    assert status == 200, page[-2000:]
    assert "500 строк" in page and "Игрок Номер 19" in page
    assert "Игрок Номер 20<" not in page and "и ещё 480 строк" in page  # the first 20 shown
    assert "Добавить 500 игроков" in page
    assert handles(ledger) == before  # the preview stores nothing
    assert confirm(head, page) == 303
    assert handles(ledger) == before | {f"p{i:03d}" for i in range(500)}


def test_refused_rows_are_named_and_nothing_is_added(signed_in: SignIn,
                                                     ledger: Ledger) -> None:
    head = signed_in("glavsud")
    before = handles(ledger)
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    for row in (("Ник", "Имя", "Стол"), ("zara", "Зара", 5), ("alisa", "Не та Алиса", 6),
                ("bad name", "Пробел", 7), ("zara", "Снова Зара", 8)):
        sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    status, page = upload(head, out.getvalue(), "players.xlsx")
    assert status == 422
    refused = re.findall(r'<tr class="refused">\s*<td>(\d+)</td>', page)
    assert refused == ["2", "3", "4", "5"], refused  # alisa: registered already
    assert "Добавить" not in page.split("upload-preview")[1].split("</section>")[0]
    assert handles(ledger) == before


def test_a_file_that_is_no_list_is_refused_beside_the_field(signed_in: SignIn) -> None:
    head = signed_in("glavsud")
    status, page = upload(head, b"%PDF-1.4 not a list", "list.pdf")
    assert status == 422 and 'id="upload-file-error"' in page
    assert signed_in("sudya").post(f"/t/{BERSERK}/people/upload", data={
        "csrf": csrf_of(head, f"/t/{BERSERK}/people")},
        files={"file": ("x.csv", b"handle\nx\n")}).status_code == 403
