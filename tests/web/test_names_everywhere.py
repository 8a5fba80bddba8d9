"""People by their names wherever a page shows one (issue 37), the id beside the name or kept
as the value of a choice: the deck pages, the statements about a disqualification, and what
the server recorded for a ruling sent from the phone's outbox («Сервер записал»).

Demo tournament 1 is «Берсерк»: sudya («Олег Зальный») a floor judge, glavsud («Анна Главная»)
the head judge; the players have display names (sudya.app.demo.NAMES)."""

from __future__ import annotations

import re
from collections.abc import Callable

from fastapi.testclient import TestClient
from web_testkit import csrf_of, main_of

from sudya.app.decks import register_decklist
from sudya.app.ledger import Actor, Ledger

SignIn = Callable[[str], TestClient]
T = 1


def choices(page: str, select: str = "player") -> dict[str, str]:
    """value -> text of a select's options (the empty one left out)."""
    found = main_of(page).one("select", id=select).all("option")
    return {o.attrs["value"]: o.text() for o in found if o.attrs["value"]}


def test_the_deck_pages_name_the_players_and_who_stored_a_list(signed_in: SignIn,
                                                               ledger: Ledger) -> None:
    judge = signed_in("sudya")
    for url in (f"/t/{T}/decks/check", f"/t/{T}/decks/compare", f"/t/{T}/squad"):
        shown = choices(judge.get(url).text)
        assert shown["egor"] == "Егор Лебедев · egor", url
        assert list(shown.values()) == sorted(shown.values()), url  # by name
    page = main_of(judge.get(f"/t/{T}/decks").text)
    link = page.one("tr", id="deck-egor").one("a", href=f"/t/{T}/people/egor")
    assert link.text() == "Егор Лебедев egor"
    # a stored list: the player by name, who stored it by name, the findings' buttons too
    listed = register_decklist(ledger, tournament=T, player="gleb", text="3 Гном\n",
                               fmt="constructed", findings=None, actor=Actor(name="sudya"))
    shown = main_of(judge.get(f"/t/{T}/decks/check?list={listed}").text)
    assert shown.one("h2", id="result-title").text().startswith("Глеб Орлов gleb · ")
    stored = next(p.text() for p in shown.all("p", cls="muted")
                  if p.text().startswith("Сохранён"))
    assert stored.endswith("· Олег Зальный"), stored
    egor = page.one("tr", id="deck-egor").all("a")[1].attrs["href"]
    shown = main_of(judge.get(egor).text)
    buttons = [b.text() for b in shown.all("button") if b.text().startswith("Записать")]
    assert buttons and all(b == "Записать · Егор Лебедев" for b in buttons)


def test_statements_name_the_judges_and_the_head_judge_signs_by_name(signed_in: SignIn,
                                                                     ledger: Ledger) -> None:
    ledger.record(tournament=T, infraction="cheating.fraud", player="gleb", judge="sudya",
                  round=2, event_id="dq-gleb")
    url = f"/t/{T}/events/dq-gleb/statements"
    head = signed_in("glavsud")
    for fields in ({"role": "witness", "author": "Вера Кузнецова", "text": "Видела."},
                   {"role": "head-judge", "text": "Факты.", "rule_cited": "000 Прил. 2",
                    "decision": "Дисквалификация"}):
        done = head.post(url, data={"csrf": csrf_of(head, url), **fields},
                         follow_redirects=False)
        assert done.status_code == 303, done.text[:300]
    page = main_of(head.get(url).text)
    # the ruling's judge by name, the login beside it
    assert "· Олег Зальный sudya ·" in page.all("p", cls="muted")[0].text()
    cards = page.all("li", cls="statement")
    assert [c.all("p")[-1].text().split(",")[0] for c in cards] == [
        "Записано: Анна Главная"] * 2
    assert cards[1].all("p")[0].text() == "главного судьи · Анна Главная"
    assert "glavsud" not in " ".join(c.text() for c in cards)


def test_what_the_server_recorded_names_the_player(signed_in: SignIn, ledger: Ledger) -> None:
    ledger.record(tournament=T, infraction="procedure.tardiness", player="dasha",
                  judge="sudya", round=2, event_id="e-sent")
    judge = signed_in("sudya")
    answer = judge.get(f"/t/{T}/record/answer/e-sent")
    assert answer.status_code == 200
    text = " ".join(re.sub(r"<[^>]+>", " ", answer.text).split())
    assert text.startswith("Дарья Волкова dasha · Опоздания")
    assert judge.get(f"/t/{T}/record/answer/" + "x" * 101).status_code == 422
    # a player reads no other's rulings this way
    assert signed_in("igrok").get(f"/t/{T}/record/answer/e-sent").status_code == 403
