"""Erratum E11 (../shared/spec/regulations.md §4) on the judges' pages: a ruling pending a
decision reads «ожидает решения», never «Без наказания», and once decided shows the decision's
sanctions; amounts carry their units; the judge's choice is offered by the options' names.

Demo (sudya.app.demo): tournament 2 — the clan championship, veda's hoops (e7) wait for
the college; tournament 3 — the team wargame, olga's serious cheating (e11) waits for the
judge's choice (004: from −10 points and a yellow card to 0-20 and a red card). Expected texts
are written from the regulations and the rulebooks' words, not read from the engine.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient
from web_testkit import Element, csrf_of, main_of

from sudya.app.ledger import Actor, Ledger

SignIn = Callable[[str], TestClient]
PENDING = "ожидает решения"
NO_SANCTION = "Без наказания"


def card_of(page: Element, event: str, subject: str, cause: str) -> Element:
    """The ruling card (or the record's row) of an event about a subject, by its cause; on a
    dashboard, in its latest rulings (its «Ожидают решения» list offers the choices)."""
    if any(h.text() == "Последние решения" for h in page.all("h2")):
        page = page.after("Последние решения")
    found = [c for c in [*page.all("li", cls="ruling"), *page.all("tr"),
                         *page.all("div", cls="card")]
             if c.text().startswith(subject) or f"{subject} ·" in c.text()  # name handle ·
             or f"· {event}" in c.text()]
    found = [c for c in found if event in c.text() and cause in c.text()]
    assert found, f"no ruling {event} about {subject} ({cause})"
    return found[0]


def decide_olga(ledger: Ledger) -> None:
    """The senior judge takes the range's lower end (004: −10 points and a yellow card)."""
    ledger.decide(tournament=3, of="e11", judge="sudya", choice="min",
                  actor=Actor(name="sudya"))


def decide_veda(ledger: Ledger) -> None:
    """The college gives more than the table (003 §2.3): the table's and 36 ore of labour."""
    ledger.decide(tournament=2, of="e7", judge="master",
                  sanctions=[{"kind": "fighter-dq"}, {"kind": "technical-defeat"},
                             {"kind": "penal-labour", "amount": 36}],
                  actor=Actor(name="master"))


# ---------------------------------------------------------------------- pending, then decided
PAGES_OF_OLGA = ["/t/3", "/t/3/teams/medvedi", "/t/3/people/olga", "/t/3/appeals"]


@pytest.mark.postgresql
def test_a_pending_ruling_awaits_a_decision_on_every_page(signed_in: SignIn) -> None:
    head = signed_in("glavsud")
    for url in PAGES_OF_OLGA:
        page = main_of(head.get(url).text)
        olga = card_of(page, "e11", "olga", "по таблице")
        assert PENDING in olga.text(), url
        assert NO_SANCTION not in page.text(), url
    college = signed_in("master")
    for url in ("/t/2", "/t/2/teams/sever", "/t/2/people/veda"):
        page = main_of(college.get(url).text)
        assert PENDING in card_of(page, "e7", "veda", "совокупность").text(), url
        assert NO_SANCTION not in page.text(), url


@pytest.mark.postgresql
def test_once_decided_the_pending_ruling_shows_the_decisions_sanctions(
        signed_in: SignIn, ledger: Ledger) -> None:
    decide_olga(ledger)
    decide_veda(ledger)
    head = signed_in("glavsud")
    for url in PAGES_OF_OLGA:
        page = main_of(head.get(url).text)
        olga = card_of(page, "e11", "olga", "по таблице").text()
        assert PENDING not in olga and NO_SANCTION not in olga, url
        assert "решено (e12)" in olga, url
        # the points with their unit, the yellow card to her team (004 §3.2)
        assert "Штрафные очки: −10 очков" in olga, url
        if url != "/t/3/people/olga":  # a person's record shows what she bears herself
            assert "Жёлтая карточка" in olga, url
    college = signed_in("master")
    for url in ("/t/2", "/t/2/people/veda"):
        veda = card_of(main_of(college.get(url).text), "e7", "veda", "совокупность").text()
        assert "решено (e10)" in veda and PENDING not in veda, url
        assert "Дисквалификация бойца без права замены" in veda, url
        assert "Каторга без права откупа: 36 руды" in veda, url
    assert "Ничего не ждёт выбора судьи." in head.get("/t/3/pending").text


def test_the_record_preview_of_a_pending_ruling_awaits_the_decision(signed_in: SignIn) -> None:
    judge = signed_in("sudya")
    url = "/t/3/record?infraction=serious-cheating&player=nina"
    r = judge.post("/t/3/record/preview", data={
        "csrf": csrf_of(judge, url), "infraction": "serious-cheating", "player": "nina",
        "round": "2"})
    assert r.status_code == 200
    preview = main_of(r.text).one("section", cls="preview")
    assert PENDING in preview.text()
    assert NO_SANCTION not in preview.text()


# ---------------------------------------------------------------------- units
def test_amounts_carry_their_units(signed_in: SignIn, ledger: Ledger) -> None:
    college = signed_in("master")
    # 003 «Назначение каторги без права откупа»: level × attacks = 12 × 2 = 24 ore
    for url in ("/t/2", "/t/2/people/grom", "/t/2/teams/sever"):
        assert "Каторга без права откупа: 24 руды" in main_of(college.get(url).text).text(), url
    # the college types an amount in the kind's unit
    pending = main_of(college.get("/t/2/pending").text)
    assert pending.one("label", **{"for": "pending-e7-veda-amount-penal-labour"}).text() == \
        "Объём, руды *"
    decide_olga(ledger)
    head = signed_in("glavsud")
    medvedi = main_of(head.get("/t/3/teams/medvedi").text)
    assert "Штрафные очки: −10 очков" in medvedi.text()
    # the record form's history of the player, before a new ruling
    judge = signed_in("master")
    url = "/t/2/record?infraction=hoops&player=grom"
    preview = judge.post("/t/2/record/preview", data={
        "csrf": csrf_of(judge, url), "infraction": "hoops", "player": "grom"})
    assert preview.status_code == 200
    assert "Каторга без права откупа: 24 руды" in main_of(preview.text).one(
        "section", cls="preview").text()


# ---------------------------------------------------------------------- the judge's choice
def choices(form: Element) -> dict[str, str]:
    """value -> the words beside each radio of a choice, or of the select's options."""
    radios = {i.attrs["value"]: label.text() for label in form.all("label", cls="check")
              for i in label.all("input", type="radio")}
    select = form.all("select", name="choice")
    options = {o.attrs["value"]: o.text() for s in select for o in s.all("option")}
    return radios or options


def test_the_choice_names_its_options_not_min_and_max(signed_in: SignIn) -> None:
    head = signed_in("glavsud")
    item = main_of(head.get("/t/3/pending").text).one("div", id="pending-e11-olga")
    assert "(min)" not in item.text() and "(max)" not in item.text()
    offered = choices(item)
    # 004 serious cheating, with the rulebook's names of the options and of the range
    assert offered["min"] == "Наименьшее: Штрафные очки: −10 очков + Жёлтая карточка"
    assert offered["max"].startswith("Наибольшее: Фиксированный результат партии 0-20")
    assert offered["points"] == "Штраф от 10 до 20 очков и жёлтая карточка"
    dashboard = main_of(head.get("/t/3").text).after("Ожидают решения")
    assert "Наименьшее: " in dashboard.text() and "…" not in dashboard.text()

    form = main_of(head.get("/t/3/record?infraction=serious-cheating&player=nina").text)
    assert choices(form.one("form", cls="card")) == {
        "": "пока нет (оставить ожидающим)", "min": "Наименьшее", "max": "Наибольшее",
        "points": "Штраф от 10 до 20 очков и жёлтая карточка"}
    # options named after a sanction read as that sanction (time-wasting's repeat: E1)
    repeat = main_of(head.get("/t/3/record?infraction=time-wasting&player=nina").text)
    names = choices(repeat.one("form", cls="card"))
    assert "Только предупреждение" in names.values()
    assert all(value == "" or name != value for value, name in names.items())


def test_a_frivolous_appeals_penalty_is_offered_by_the_sanctions_names(
        signed_in: SignIn) -> None:
    head = signed_in("glavsud")
    r = head.post("/t/3/appeals/file", data={"csrf": csrf_of(head, "/t/3/appeals"),
                                             "key": "k-frivolous", "event": "e9",
                                             "appellant": "ivan"}, follow_redirects=False)
    assert r.status_code == 303
    appeal = main_of(head.get("/t/3/pending").text).one("div", id="appeal-e9")
    offered = choices(appeal)
    assert offered["warning"] == "Предупреждение"
    assert offered["yellow-card"] == "Жёлтая карточка"


# ---------------------------------------------------------------------- no ids in Russian
def words(page: Element) -> set[str]:
    return set(re.findall(r"[\w.-]+", page.text()))


ROLE_IDS = {"head-judge", "senior-judge", "junior-judge", "floor-judge", "tournament-master"}


@pytest.mark.parametrize(("user", "url"), [
    ("glavsud", "/t/1/people"), ("glavsud", "/t/2/people"), ("glavsud", "/t/3/people"),
    ("glavsud", "/t/1/appeals"), ("glavsud", "/t/3/appeals"), ("-", "/rulebooks/berserk"),
    ("-", "/rulebooks/clan-championship"), ("-", "/rulebooks/team-wargame")])
def test_roles_read_by_their_names(user: str, url: str, client: TestClient,
                                   signed_in: SignIn) -> None:
    page = main_of((client if user == "-" else signed_in(user)).get(url).text)
    assert words(page) & ROLE_IDS == set()
    if url.startswith("/t/") and url.endswith("/people"):
        assert "Главный судья" in page.text() or "Мастер Турниров" in page.text()
        assert "Id " not in page.text() and "Идентификатор игрока" in page.text()


@pytest.mark.parametrize("rid", ["berserk", "clan-championship", "team-wargame"])
def test_the_rulebook_page_cites_sources_in_russian(rid: str, client: TestClient) -> None:
    page = main_of(client.get(f"/rulebooks/{rid}").text)
    assert "regulations.md" not in page.text()
    assert not re.search(r"\bE\d+\b", page.text())  # errata by number: «§4, поправка 9»
    assert "разбор регламентов" in page.text() and "поправка" in page.text()


def test_the_record_form_cites_sources_in_russian(signed_in: SignIn) -> None:
    judge = signed_in("sudya")
    url = "/t/3/record?infraction=serious-cheating&player=nina"
    r = judge.post("/t/3/record/preview", data={
        "csrf": csrf_of(judge, url), "infraction": "serious-cheating", "player": "nina"})
    preview = main_of(r.text)
    assert "regulations.md" not in preview.text()
    assert "(разбор регламентов §3.3)" in preview.text()  # the interpretation's source
    assert "serious-cheating" not in preview.one("form", cls="card").one("h2").text()


def test_statuses_in_russian_the_removed_player_too(signed_in: SignIn,
                                                    ledger: Ledger) -> None:
    # 004 intoxication (§4 E9): the player is removed from the tournament
    ledger.record(tournament=3, infraction="intoxication", player="ivan", judge="sudya",
                  round=2, actor=Actor(name="sudya"))
    head = signed_in("glavsud")
    volki = main_of(head.get("/t/3/teams/volki").text)
    assert "Статус: участвует" in volki.text()
    assert "ivan · удаление с турнира" in volki.after("Состав").text()
    assert "active" not in words(volki) and "removed" not in words(volki)
    sever = main_of(signed_in("master").get("/t/2/teams/sever").text)
    assert "active" not in words(sever)  # the team's standing row: «статус участвует»


# ---------------------------------------------------------------------- E18, E13: decisions
@pytest.mark.postgresql
def test_a_frozen_fight_is_released_or_annulled_from_the_pending_page(
        signed_in: SignIn, ledger: Ledger) -> None:
    """§4 E18: lis (yug) casts an sms burst in round 3 against grom (sever): the fight's result
    is frozen («заморожено» in the standings) until the college decides on the pending page."""
    master = Actor(name="master")
    ledger.record(tournament=2, infraction="sms-burst", player="lis", judge="master", round=3,
                  details={"cast_by": "participant"}, event_id="sms1", actor=master)
    ledger.record_result(tournament=2, players=("lis", "rys"), score=(1, 0), round=3,
                         actor=master)
    college = signed_in("master")
    standings = main_of(college.get("/t/2/standings").text).text()
    assert "заморожено" in standings
    page = main_of(college.get("/t/2/pending").text)
    card = page.after("Замороженные бои: решает коллегия")
    assert "sms1" in card.text() and "Засчитать результат" in card.text()
    token = csrf_of(college, "/t/2/pending")
    answer = college.post("/t/2/pending/decide", data={"csrf": token, "of": "sms1",
                                                       "result": "annul"},
                          follow_redirects=False)
    assert answer.status_code == 303, answer.text
    after = main_of(college.get("/t/2/pending").text).after(
        "Замороженные бои: решает коллегия")
    assert "sms1" not in after.text() and "Замороженных боёв нет." in after.text()
    assert "заморожено" not in main_of(college.get("/t/2/standings").text).text()


@pytest.mark.postgresql
def test_a_suspension_is_lifted_from_the_pending_page(signed_in: SignIn, ledger: Ledger) -> None:
    """§4 E13: the official head judge suspends boris; the term is set, then lifted, as
    recorded decisions from the pending page; a date that is no date is refused beside it."""
    ledger.record(tournament=1, infraction="conduct.severe", player="boris", judge="glavsud",
                  round=2, event_id="sus1", actor=Actor(name="glavsud"))
    head = signed_in("glavsud")
    card = main_of(head.get("/t/1/pending").text).after("Приостановление членства: срок")
    assert "sus1" in card.text() and "Снять приостановление" in card.text()
    token = csrf_of(head, "/t/1/pending")
    bad = head.post("/t/1/pending/decide", data={"csrf": token, "of": "sus1", "term": "set",
                                                 "until": "скоро"})
    assert bad.status_code == 422 and "Укажите последний день срока" in bad.text
    ok = head.post("/t/1/pending/decide", data={"csrf": token, "of": "sus1", "term": "set",
                                                "until": "2099-01-31"}, follow_redirects=False)
    assert ok.status_code == 303, ok.text
    assert "До 2099-01-31 включительно." in main_of(head.get("/t/1/pending").text).text()
    lifted = head.post("/t/1/pending/decide", data={"csrf": token, "of": "sus1",
                                                    "term": "lift"}, follow_redirects=False)
    assert lifted.status_code == 303, lifted.text
    assert "sus1" not in main_of(head.get("/t/1/pending").text).text()
