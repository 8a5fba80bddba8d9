"""Incident reports and what waits for the head judge, counted on the dashboard's buttons.

The demo's team wargame (tournament 3): glavsud is the head judge, sudya a senior judge,
mladshiy a junior judge, who gives no penalty but reports what happened at a table (the demo
holds one report, no. 1, about petr); olga's serious cheating is e11, ivan's disruptive
behaviour e9. In the «Берсерк» tournament (1)
glavsud is the head judge and no appeal is filed yet.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient
from web_testkit import csrf_of, main_of

from sudya.app.incidents import file_incident, incidents, settle_incident
from sudya.app.ledger import Actor, Ledger, LedgerError

SignIn = Callable[[str], TestClient]
BERSERK, WARGAME = 1, 3


def button(client: TestClient, tid: int, href: str) -> str:
    return main_of(client.get(f"/t/{tid}").text).one("a", href=href).text()


@pytest.mark.postgresql
def test_a_junior_judge_reports_and_the_head_judge_settles(signed_in: SignIn,
                                                           ledger: Ledger) -> None:
    junior = signed_in("mladshiy")
    # the junior judge's tables lead to the report form, the player's table and round in it
    page = main_of(junior.get(f"/t/{WARGAME}").text)
    olga = page.one("li", id="table-1").one("a", **{"data-player": "olga"})
    assert olga.attrs["href"] == f"/t/{WARGAME}/incidents?player=olga&table=1&round=2"
    form = main_of(junior.get(olga.attrs["href"]).text).one(
        "form", action=f"/t/{WARGAME}/incidents")
    assert form.one("input", id="incident-subject").attrs["value"] == "olga"
    assert form.one("input", id="incident-table").attrs["value"] == "1"
    assert button(junior, WARGAME, f"/t/{WARGAME}/incidents") == "Инциденты"  # no count

    token = csrf_of(junior, f"/t/{WARGAME}/incidents")
    report = {"csrf": token, "key": "k-report-1", "subject": "olga", "table": "1",
              "round": "2", "text": "Сдвинула модели\nпока соперник отходил"}
    r = junior.post(f"/t/{WARGAME}/incidents", data=report, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/t/{WARGAME}/incidents?filed=2"
    again = junior.post(f"/t/{WARGAME}/incidents", data=report, follow_redirects=False)
    assert again.headers["location"] == r.headers["location"]  # a double tap files once
    with ledger.factory() as s:
        [petr, filed] = incidents(s, tournament=WARGAME)  # waiting: the oldest first
    assert (filed.subject, filed.table, filed.round, filed.filed_by) == ("olga", 1, 2,
                                                                          "mladshiy")
    assert filed.text == "Сдвинула модели\nпока соперник отходил" and filed.settled_at is None
    assert petr.subject == "petr" and petr.settled_at is None

    head = signed_in("glavsud")
    assert button(head, WARGAME, f"/t/{WARGAME}/incidents") == "Инциденты (2)"
    assert button(head, WARGAME, f"/t/{WARGAME}/appeals") == "Апелляции (0)"
    card = main_of(head.get(f"/t/{WARGAME}/incidents").text).one("div", id="incident-2")
    assert card.one("strong").text() == "Ольга Медведева"
    assert "Подано: Костя Младший" in card.text()  # by name, not the login
    assert card.one("a", cls="primary").attrs["href"] == \
        f"/t/{WARGAME}/record?table=1&player=olga&round=2"
    options = [o.attrs["value"] for o in card.one("select").all("option")]
    assert options == ["none", "e11"]  # without a penalty, or olga's ruling
    token = csrf_of(head, f"/t/{WARGAME}/incidents")
    wrong = head.post(f"/t/{WARGAME}/incidents/2/settle", data={"csrf": token, "event": "e9"})
    assert wrong.status_code == 422  # e9 is about ivan
    assert "не решение о «olga»" in main_of(wrong.text).one(id="settle-2-error").text()
    done = head.post(f"/t/{WARGAME}/incidents/2/settle",
                     data={"csrf": token, "event": "e11", "note": "это и есть e11"},
                     follow_redirects=False)
    assert done.status_code == 303
    assert button(head, WARGAME, f"/t/{WARGAME}/incidents") == "Инциденты (1)"  # petr's
    closed = main_of(head.get(f"/t/{WARGAME}/incidents").text).after("Закрытые")
    assert "решение e11" in closed.text() and "Закрыто: Анна Главная" in closed.text()
    # settled twice the same way: the same answer; another way: refused
    assert head.post(f"/t/{WARGAME}/incidents/2/settle", data={
        "csrf": token, "event": "e11", "note": "это и есть e11"},
        follow_redirects=False).status_code == 303
    refused = head.post(f"/t/{WARGAME}/incidents/2/settle",
                        data={"csrf": token, "event": "none"})
    assert refused.status_code == 422
    assert "уже закрыт" in main_of(refused.text).one("p", role="alert").text()


def test_report_refusals_are_shown_beside_their_fields(signed_in: SignIn,
                                                       ledger: Ledger) -> None:
    junior = signed_in("mladshiy")
    token = csrf_of(junior, f"/t/{WARGAME}/incidents")
    cases = {("zed", "1", "что-то"): ("incident-subject-error",  # the core's scope
                                      "«zed» не участвует в турнире"),
             ("olga", "x", "что-то"): ("incident-table-error", "Целое число."),
             ("olga", "1", "  "): ("incident-text-error", "обязательно"),
             ("olga", "1", "я" * 2001): ("incident-text-error", "не больше 2000")}
    for (subject, table, text), (field, words) in cases.items():
        r = junior.post(f"/t/{WARGAME}/incidents", data={
            "csrf": token, "subject": subject, "table": table, "round": "2", "text": text})
        assert r.status_code == 422, subject
        assert words in main_of(r.text).one(id=field).text(), (subject, table)
    with ledger.factory() as s:
        assert [r.subject for r in incidents(s, tournament=WARGAME)] == ["petr"]  # the demo's
    # only judges report; only a judge who may rule settles
    keeper = signed_in("schet")  # the scorekeeper of the wargame: staff, no judge
    r = keeper.post(f"/t/{WARGAME}/incidents", data={
        "csrf": csrf_of(keeper, f"/t/{WARGAME}/incidents"), "subject": "olga", "text": "x"})
    assert r.status_code == 403
    incident = file_incident(ledger, tournament=WARGAME, subject="ivan", text="кричал",
                             actor=Actor(name="mladshiy"))
    r = junior.post(f"/t/{WARGAME}/incidents/{incident}/settle",
                    data={"csrf": token, "event": "none"})
    assert r.status_code == 403
    assert signed_in("igrok").get(f"/t/{BERSERK}/incidents").status_code == 403


def test_the_service_settles_once_and_within_its_tournament(ledger: Ledger) -> None:
    judge = Actor(name="sudya")
    incident = file_incident(ledger, tournament=WARGAME, subject="volki", text="шумели",
                             table=1, round=2, actor=judge)  # a team may be reported too
    with pytest.raises(LedgerError, match="incident"):
        settle_incident(ledger, tournament=BERSERK, incident=incident, actor=judge)
    with pytest.raises(LedgerError, match="incident"):
        settle_incident(ledger, tournament=WARGAME, incident=2**40, actor=judge)
    view = settle_incident(ledger, tournament=WARGAME, incident=incident, note="",
                           actor=judge)
    assert view.event is None and view.settled_by == "sudya"
    with pytest.raises(LedgerError) as refused:
        settle_incident(ledger, tournament=WARGAME, incident=incident, event="e10",
                        actor=judge)
    assert refused.value.code == "incident.settled"


def test_appeals_waiting_are_counted_for_the_head_judge(signed_in: SignIn,
                                                         ledger: Ledger) -> None:
    head = signed_in("glavsud")
    assert button(head, BERSERK, f"/t/{BERSERK}/appeals") == "Апелляции (0)"
    ledger.record(tournament=BERSERK, infraction="gameplay.slow-play", player="alisa",
                  judge="sudya", round=2, event_id="slow-alisa")
    player = signed_in("igrok")
    r = player.post(f"/t/{BERSERK}/appeals/file", data={
        "csrf": csrf_of(player, f"/t/{BERSERK}/appeals"), "key": "k-appeal",
        "event": "slow-alisa", "appellant": "alisa", "reason": ""}, follow_redirects=False)
    assert r.status_code == 303
    assert button(head, BERSERK, f"/t/{BERSERK}/appeals") == "Апелляции (1)"
    # the floor judge, who does not hear appeals, sees the button without a count
    assert button(signed_in("sudya"), BERSERK, f"/t/{BERSERK}/appeals") == "Апелляции"
    decided = head.post(f"/t/{BERSERK}/appeals/decide", data={
        "csrf": csrf_of(head, f"/t/{BERSERK}/appeals"), "key": "k-decide",
        "of": "slow-alisa", "outcome": "upheld", "back": "appeals"}, follow_redirects=False)
    assert decided.status_code == 303, decided.text
    assert re.fullmatch(r"Апелляции \(0\)", button(head, BERSERK, f"/t/{BERSERK}/appeals"))
