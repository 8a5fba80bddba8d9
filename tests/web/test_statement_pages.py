"""A disqualification's statements in the web app (web/pages_statements.py): the list of the
tournament's disqualifications, the page of one with its statements in order (who typed each
and when) and the form; who may write which; bad input said beside its field, the form kept,
nothing stored. (On SQLite only: tests/db/test_statements.py stores and reads statements on
PostgreSQL too.)

The demo's «Берсерк» tournament (1, professional): glavsud is the head judge, sudya a floor
judge, igrok the player alisa's own account, schet the scorekeeper; master judges another
tournament only. The tests disqualify boris (cheating.fraud, event «dq-boris») and alisa
(«dq-alisa»); slow play (e-slow) disqualifies no one.
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi.testclient import TestClient
from web_testkit import csrf_of, main_of

from sudya.app.ledger import Ledger
from sudya.app.statements import statements_of

SignIn = Callable[[str], TestClient]
T = 1
BORIS = f"/t/{T}/events/dq-boris/statements"
ALISA = f"/t/{T}/events/dq-alisa/statements"


def disqualify(ledger: Ledger) -> None:
    ledger.record(tournament=T, infraction="cheating.fraud", player="boris", judge="sudya",
                  round=2, event_id="dq-boris")
    ledger.record(tournament=T, infraction="cheating.fraud", player="alisa", judge="sudya",
                  round=2, event_id="dq-alisa")
    ledger.record(tournament=T, infraction="gameplay.slow-play", player="gleb", judge="sudya",
                  round=2, event_id="e-slow")


def stored(ledger: Ledger, event: str = "dq-boris") -> list[tuple[str, str, str, str]]:
    with ledger.factory() as s:
        return [(st.role, st.author, st.text, st.written_by)
                for st in statements_of(s, tournament=T, event=event)]


def post(client: TestClient, url: str, **fields: str):  # type: ignore[no-untyped-def]
    return client.post(url, data={"csrf": csrf_of(client, url), **fields},
                       follow_redirects=False)


def test_judges_write_the_statements_and_the_page_lists_them(signed_in: SignIn,
                                                             ledger: Ledger) -> None:
    disqualify(ledger)
    judge = signed_in("sudya")
    # the way there: the dashboard's ruling and its button, the person page, the list
    board = main_of(judge.get(f"/t/{T}").text)
    assert board.one("a", href=f"/t/{T}/disqualifications").text() == "Дисквалификации (2)"
    assert [a.text() for a in board.all("a", href=BORIS)] == ["заявления"]
    assert board.all("a", href=f"/t/{T}/events/e-slow/statements") == []
    person = main_of(judge.get(f"/t/{T}/people/boris").text)
    assert [a.text() for a in person.all("a", href=BORIS)] == ["заявления"]
    listing = main_of(judge.get(f"/t/{T}/disqualifications").text)
    link = listing.one("a", href=BORIS)
    assert "Борис Петров" in link.text() and "Заявлений: 0" in link.text()
    assert "заявления главного судьи ещё нет" in link.text()

    page = main_of(judge.get(BORIS).text)
    options = [o.attrs["value"] for o in page.one("select", id="statement-role").all("option")]
    assert options == ["player", "opponent", "witness"]  # not the head judge's
    assert page.all("input", id="statement-rule") == []
    r = post(judge, BORIS, key="k-own", role="player", author="", text="Я не менял карты.")
    assert r.status_code == 303
    assert r.headers["location"].startswith(f"{BORIS}?written=")
    again = post(judge, BORIS, key="k-own", role="player", author="", text="Я не менял карты.")
    assert again.headers["location"] == r.headers["location"]  # a double tap stores once
    assert post(judge, BORIS, key="k-w", role="witness", author="Глеб Орлов",
                text="Видел, как он\nдостал карту из рукава.").status_code == 303

    head = signed_in("glavsud")
    page = main_of(head.get(BORIS).text)
    options = [o.attrs["value"] for o in page.one("select", id="statement-role").all("option")]
    assert options == ["player", "opponent", "witness", "head-judge"]
    assert post(head, BORIS, key="k-hj", role="head-judge", text="Карта из рукава.",
                rule_cited="000 Приложение №2", decision="Дисквалификация без призов"
                ).status_code == 303
    assert stored(ledger) == [
        ("player", "Борис Петров", "Я не менял карты.", "sudya"),
        ("witness", "Глеб Орлов", "Видел, как он\nдостал карту из рукава.", "sudya"),
        ("head-judge", "Анна Главная", "Карта из рукава.", "glavsud")]
    cards = main_of(head.get(BORIS).text).all("li", cls="statement")
    assert [c.one("strong").text() for c in cards] == ["самого игрока", "свидетеля",
                                                        "главного судьи"]
    # who typed it and who ruled by their names, not their logins (issue 37)
    assert "Записано: Олег Зальный" in cards[0].text()
    assert "главного судьи · Анна Главная" in cards[2].text()
    assert "Пункт регламента: 000 Приложение №2" in cards[2].text()
    assert "Решение: Дисквалификация без призов" in cards[2].text()
    assert "Заявлений: 3" in main_of(head.get(f"/t/{T}/disqualifications").text).one(
        "a", href=BORIS).text()
    english = head.get(BORIS + "?lang=en").text
    assert "the head judge&#39;s" in english and "Typed by Олег Зальный" in english


def test_who_may_write_which(signed_in: SignIn, ledger: Ledger) -> None:
    disqualify(ledger)
    judge = signed_in("sudya")
    assert post(judge, BORIS, role="head-judge", text="x", rule_cited="1",
                decision="DQ").status_code == 403
    # the player's own account: their own disqualification, in their own name
    player = signed_in("igrok")
    page = main_of(player.get(ALISA).text)
    assert [o.attrs["value"] for o in page.one("select").all("option")] == ["player"]
    assert page.all("input", id="statement-author") == []
    assert "От вашего имени: Алиса Смирнова" in page.text()
    assert post(player, ALISA, role="player", author="Борис",
                text="Это ошибка.").status_code == 303
    assert stored(ledger, "dq-alisa") == [("player", "alisa", "Это ошибка.", "igrok")]
    # another's: as opponent or witness, never the player's own; sees only their own
    post(judge, BORIS, role="player", text="Я не менял карты.")
    page = main_of(player.get(BORIS).text)
    assert [o.attrs["value"] for o in page.one("select").all("option")] == [
        "opponent", "witness"]
    assert "Я не менял карты." not in page.text()
    assert post(player, BORIS, role="player", text="x").status_code == 403
    assert post(player, BORIS, role="opponent", text="Видела рукав.").status_code == 303
    assert "Видела рукав." in main_of(player.get(BORIS).text).text()
    # the scorekeeper reads, writes nothing; a judge of another tournament not even reads
    keeper = signed_in("schet")
    page = main_of(keeper.get(BORIS).text)
    assert "Я не менял карты." in page.text() and page.all("form", method="post") == []
    assert keeper.post(BORIS, data={"csrf": csrf_of(keeper, BORIS), "role": "witness",
                                    "author": "x", "text": "x"}).status_code == 403
    stranger = signed_in("master")
    assert stranger.get(BORIS).status_code == 403
    assert stranger.post(BORIS, data={"role": "witness", "text": "x"}).status_code == 403
    assert len(stored(ledger)) == 2  # the judge's and the player's only


def test_bad_input_is_said_beside_its_field_and_nothing_is_stored(signed_in: SignIn,
                                                                  ledger: Ledger) -> None:
    disqualify(ledger)
    head = signed_in("glavsud")
    cases = [  # (fields, the field whose error is shown, a word of the message)
        ({"role": "witness", "author": "Глеб", "text": "   "}, "text", "обязательно"),
        ({"role": "witness", "author": "Глеб", "text": "x" * 4001}, "text", "4000"),
        ({"role": "witness", "author": "", "text": "Видел."}, "author", "обязательно"),
        ({"role": "witness", "author": "Глеб", "text": "Видел.", "rule_cited": "1"},
         "rule", "главного судьи"),
        ({"role": "head-judge", "text": "Факты.", "decision": "DQ"}, "rule", "обязательно"),
        ({"role": "head-judge", "text": "Факты.", "rule_cited": "000"}, "decision",
         "обязательно"),
        ({"role": "judge", "text": "Факты."}, "role", "одним из"),
    ]
    for fields, field, word in cases:
        r = post(head, BORIS, **fields)
        assert r.status_code == 422, fields
        page = main_of(r.text)
        assert word in page.one("p", id=f"statement-{field}-error").text(), fields
        assert page.one(id=f"statement-{field}").attrs.get("aria-invalid") == "true"
        if fields["text"].strip():  # the form kept
            assert fields["text"] in page.one("textarea", id="statement-text").text()
    assert stored(ledger) == []
    assert head.get(f"/t/{T}/events/e-slow/statements").status_code == 404
    assert "не дисквалифицировало" in head.get(f"/t/{T}/events/e-slow/statements").text
    assert head.get(f"/t/{T}/events/nope/statements").status_code == 404
    assert head.post(BORIS, data={"role": "witness", "author": "x",
                                  "text": "x"}).status_code == 403  # no CSRF token
    assert stored(ledger) == []
