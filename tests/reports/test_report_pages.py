"""The reports in the web app: who may print what, the PDF and CSV beside the page, the
API's JSON, the dashboard's button, bad input."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest
from fastapi.testclient import TestClient
from report_scene import BERSERK, SUSPENSION

from sudya.app.demo import PASSWORD
from sudya.app.settings import Settings
from sudya.edges.reports import stylesheet_hash
from sudya.edges.web.app import create_app


@pytest.fixture(scope="module")
def as_user(scene_url: str) -> Iterator[Callable[[str | None], TestClient]]:
    """A client signed in as a demo user (None: nobody); the pages only read."""
    app = create_app(Settings(database_url=scene_url, secret="test-secret"))
    clients: dict[str | None, TestClient] = {}

    def open_as(username: str | None) -> TestClient:
        if username not in clients:
            c = TestClient(app)
            c.__enter__()
            if username is not None:
                token = CSRF.search(c.get("/login").text)
                assert token is not None
                r = c.post("/login", data={"username": username, "password": PASSWORD,
                                           "csrf": token.group(1)}, follow_redirects=False)
                assert r.status_code == 303, r.text
            clients[username] = c
        return clients[username]

    yield open_as
    for c in clients.values():
        c.__exit__(None, None, None)
    app.state.ledger.db.dispose()


CSRF = re.compile(r'name="csrf" value="([0-9a-f]+)"')


def test_the_head_judge_prints_the_judge_report(as_user: Callable[[str | None], TestClient]
                                                ) -> None:
    head = as_user("glavsud")
    dashboard = head.get(f"/t/{BERSERK}").text
    assert f'href="/t/{BERSERK}/report">Судейский отчёт<' in dashboard
    page = head.get(f"/t/{BERSERK}/report")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "Приостановление членства" in page.text and "Борис Петров" in page.text
    css = f"/reports/report.{stylesheet_hash()}.css"
    assert f'href="{css}"' in page.text and 'href="/t/1/report.pdf"' in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]
    sheet = head.get(css)
    assert sheet.status_code == 200 and "@page" in sheet.text
    assert "immutable" in sheet.headers["cache-control"]
    assert head.get("/reports/report.0000000000.css").status_code == 404
    pdf = head.get(f"/t/{BERSERK}/report.pdf")
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF-")
    assert pdf.headers["content-type"] == "application/pdf"
    csv = head.get(f"/t/{BERSERK}/report.csv?lang=en")
    assert csv.status_code == 200 and csv.text.startswith("event,at,round,table")
    assert "Suspension of membership" in csv.text
    api = head.get(f"/api/v1/tournaments/{BERSERK}/report", params={"lang": "en"})
    assert api.status_code == 200
    body = api.json()
    assert body["lang"] == "en" and body["event"]["level_name"] == "Professional"
    assert {s["kind"] for s in body["statuses"]} == {"suspension",
                                                     "disqualification-without-prizes"}
    dq = head.get(f"/t/{BERSERK}/report/dq/{SUSPENSION}")
    assert dq.status_code == 200 and "Я сорвалась" in dq.text
    assert f'href="/t/{BERSERK}/report/dq/{SUSPENSION}.pdf"' in dq.text


def test_others_may_not_and_bad_input_is_named(as_user: Callable[[str | None], TestClient]
                                               ) -> None:
    floor = as_user("sudya")  # a floor judge: hears no appeals, organises nothing
    assert f'/t/{BERSERK}/report"' not in floor.get(f"/t/{BERSERK}").text
    refused = floor.get(f"/t/{BERSERK}/report.pdf")
    assert refused.status_code == 403 and "главный судья и организатор" in refused.text
    assert floor.get(f"/api/v1/tournaments/{BERSERK}/report").status_code == 403
    assert as_user("igrok").get(f"/t/{BERSERK}/report").status_code == 403
    nobody = as_user(None)
    assert nobody.get(f"/t/{BERSERK}/report", follow_redirects=False).status_code == 303
    assert nobody.get(f"/api/v1/tournaments/{BERSERK}/report").status_code == 401
    head = as_user("glavsud")
    assert head.get("/t/999/report").status_code == 404
    bad = head.get(f"/api/v1/tournaments/{BERSERK}/report", params={"lang": "de"})
    assert bad.status_code == 422 and bad.json()["detail"][0]["loc"] == ["query", "lang"]
    assert head.get("/api/v1/tournaments/0/report").status_code == 422
    not_dq = head.get(f"/api/v1/tournaments/{BERSERK}/report").json()  # still fine
    assert not_dq["event"]["id"] == BERSERK
    assert head.get(f"/t/{BERSERK}/report/dq/e13").status_code == 422  # no DQ there


def test_a_player_prints_their_own_slip_and_record(as_user: Callable[[str | None],
                                                                     TestClient]) -> None:
    alisa = as_user("igrok")  # the player alisa's account
    assert alisa.get(f"/t/{BERSERK}/slips/e14").status_code == 422  # not her ruling
    own = alisa.get(f"/t/{BERSERK}/people/alisa/record")
    assert own.status_code == 200 and "История: Алиса Смирнова" in own.text
    assert alisa.get(f"/t/{BERSERK}/people/boris/record").status_code == 403
    staff = as_user("sudya")
    slips = staff.get(f"/t/{BERSERK}/slips/e14")
    assert slips.status_code == 200
    assert slips.text.count('<section class="slip">') == 2
    assert f'href="/t/{BERSERK}/slips/e14.pdf"' in slips.text
    record = staff.get(f"/t/{BERSERK}/people/egor/record?lang=en")
    assert "Record of" in record.text and "Careless deck list" in record.text
    judges = re.findall(r'data-label="Judge">([^<]*)<', record.text)
    assert judges and all(j and j != "sudya" for j in judges), judges  # by name, not login
    person = staff.get(f"/t/{BERSERK}/people/boris").text
    assert f'href="/t/{BERSERK}/people/boris/record"' in person
    assert f'href="/t/{BERSERK}/slips/e13"' in person


def test_the_standings_the_report_holds_are_asked_in_the_query(
        as_user: Callable[[str | None], TestClient]) -> None:
    head = as_user("glavsud")
    two = head.get(f"/t/{BERSERK}/report", params={"standings": "2"})
    assert two.status_code == 200 and "Места 1–2 из 6." in two.text
    # the PDF, the JSON and the other language keep what was asked; the whole table a tap away
    for href in (f"/t/{BERSERK}/report.pdf?standings=2",
                 f"/api/v1/tournaments/{BERSERK}/report?lang=ru&amp;standings=2",
                 f"/t/{BERSERK}/report?lang=en&amp;standings=2",
                 f"/t/{BERSERK}/report?standings=all",
                 f"/t/{BERSERK}/report.pdf?standings=all"):
        assert f'href="{href}"' in two.text, href
    whole = head.get(f"/t/{BERSERK}/report").text  # 6 players: all of them fit in 16
    assert "Места 1–" not in whole and "Положение" in whole
    pdf = head.get(f"/t/{BERSERK}/report.pdf", params={"standings": "all"})
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF-")
    api = head.get(f"/api/v1/tournaments/{BERSERK}/report", params={"standings": "none"})
    assert api.status_code == 200
    assert api.json()["players"] is None and api.json()["standings"] == 0
    api = head.get(f"/api/v1/tournaments/{BERSERK}/report", params={"standings": "3"})
    players = api.json()["players"]
    assert len(players["rows"]) == 3 and players["total"] == 6
    for path in (f"/t/{BERSERK}/report", f"/t/{BERSERK}/report.pdf",
                 f"/api/v1/tournaments/{BERSERK}/report"):
        bad = head.get(path, params={"standings": "lots"})
        assert bad.status_code == 422, (path, bad.status_code)
        assert "standings" in bad.text, (path, bad.text[:300])
