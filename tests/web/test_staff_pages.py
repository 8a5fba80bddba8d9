"""Issue 36: an organiser runs the staff and accounts of their tournament from the web app —
gives an existing account a role and takes it away, creates an account (no password: a
one-time code), resets a forgotten password with a code; `/welcome` sets the password with
the code and signs in. Each refusal stands beside its field; an organiser cannot reset an
account that holds roles in somebody else's events; a floor judge cannot open the page."""

from __future__ import annotations

import datetime as dt
import html
import re
from collections.abc import Callable

from fastapi import FastAPI
from fastapi.testclient import TestClient
from web_testkit import csrf_of

from sudya.app.ledger import Actor
from sudya.domain import commands as c

SignIn = Callable[[str], TestClient]
BERSERK = 1
CODE = re.compile(r'<p class="code"><strong>([A-Z0-9-]{14})</strong></p>')


def post(client: TestClient, form: str, **fields: str) -> tuple[int, str]:
    r = client.post(f"/t/{BERSERK}/staff", data={
        "csrf": csrf_of(client, f"/t/{BERSERK}/staff"), "form": form, **fields},
        follow_redirects=True)
    return r.status_code, html.unescape(r.text)


def beside(page: str, field_id: str) -> str:
    """The error shown beside a field."""
    return page.split(f'id="{field_id}-error">')[1].split("</p>")[0]


def welcome(client: TestClient, code: str, password: str, again: str | None = None
            ) -> tuple[int, str]:
    token = re.search(r'name="csrf" value="([^"]+)"', client.get("/welcome").text)
    assert token is not None
    r = client.post("/welcome", data={"csrf": token.group(1), "code": code,
                                      "password": password, "again": again or password},
                    follow_redirects=False)
    return r.status_code, html.unescape(r.text)


def test_an_organiser_gives_and_takes_away_a_role(signed_in: SignIn) -> None:
    head = signed_in("glavsud")
    page = html.unescape(head.get(f"/t/{BERSERK}/staff").text)
    assert "Учётные записи турнира" in page and "glavsud" in page
    status, page = post(head, "give", username="igrok", role="scorekeeper")
    assert status == 200 and "Сделано: igrok" in page
    assert signed_in("igrok").get(f"/t/{BERSERK}/results").status_code == 200
    status, page = post(head, "remove", username="igrok", role="scorekeeper")
    assert status == 200
    assert signed_in("igrok").get(f"/t/{BERSERK}/results").status_code == 403
    status, page = post(head, "give", username="nobody-here", role="scorekeeper")
    assert status == 422 and "nobody-here" in beside(page, "give-username")
    status, page = post(head, "remove", username="glavsud", role="organiser")
    assert status == 422 and "последний организатор" in page


def test_a_new_account_sets_its_password_with_its_code(signed_in: SignIn,
                                                        client: TestClient) -> None:
    head = signed_in("glavsud")
    status, page = post(head, "invite", username="Nina", name="Нина Счётова",
                        role="scorekeeper")
    assert status == 200, page
    found = CODE.search(page)
    assert found is not None and "/welcome" in page
    assert "nina" in page  # the username as it is kept: one spelling, lower case
    status, page = post(head, "invite", username="nina", name="", role="")
    assert status == 422 and "занято" in beside(page, "invite-username")
    # a wrong code, two passwords that differ: each beside its field, nothing set
    assert "не подходит" in beside(welcome(client, "AAAA-BBBB-CCCC", "nina-pass-1")[1], "code")
    assert "не совпадают" in beside(welcome(client, found.group(1), "nina-pass-1",
                                            "nina-pass-2")[1], "again")
    status, _page = welcome(client, found.group(1).lower().replace("-", " "), "nina-pass-1")
    assert status == 303  # typed as it was heard: case and spacing do not matter
    assert client.get(f"/t/{BERSERK}/results").status_code == 200
    assert "не подходит" in beside(welcome(TestClient(client.app), found.group(1),
                                           "nina-pass-2")[1], "code")  # once only
    login = TestClient(client.app)
    token = re.search(r'name="csrf" value="([^"]+)"', login.get("/login").text)
    assert token is not None
    r = login.post("/login", data={"username": "nina", "password": "nina-pass-1",
                                   "csrf": token.group(1)}, follow_redirects=False)
    assert r.status_code == 303


def test_a_reset_only_for_accounts_of_ones_own_events(signed_in: SignIn,
                                                      client: TestClient,
                                                      app: FastAPI) -> None:
    sudya = app.state.sudya
    owner = Actor(name="owner", owner=True)
    other = sudya.handle(c.CreateTournament(series="Другой кубок", name="Этап 1",
                                            date=dt.date.today(), level="professional",
                                            new_series_rulebook="berserk"), owner)
    sudya.handle(c.AddUser(username="elsewhere", password="password-x",
                           roles=[(other, "organiser"), (BERSERK, "scorekeeper")]), owner)
    head = signed_in("glavsud")
    status, page = post(head, "reset", username="elsewhere")
    assert status == 422 and "только владелец базы" in page
    status, page = post(head, "reset", username="sudya")  # the floor judge of this event
    found = CODE.search(page)
    assert status == 200 and found is not None
    assert signed_in("sudya").get("/tournaments").status_code == 200  # the old one still works
    assert welcome(client, found.group(1), "new-password-1")[0] == 303


def test_a_floor_judge_does_not_run_the_staff(signed_in: SignIn) -> None:
    judge = signed_in("sudya")
    assert judge.get(f"/t/{BERSERK}/staff").status_code == 403
    r = judge.post(f"/t/{BERSERK}/staff", data={
        "csrf": csrf_of(judge, f"/t/{BERSERK}"), "form": "invite", "username": "mine"})
    assert r.status_code == 403


def test_the_welcome_form_needs_its_own_token(client: TestClient) -> None:
    r = client.post("/welcome", data={"code": "AAAA-BBBB-CCCC", "password": "x" * 10,
                                      "again": "x" * 10})
    assert r.status_code == 422 and "Форма устарела" in html.unescape(r.text)
