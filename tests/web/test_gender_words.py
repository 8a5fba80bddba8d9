"""A person's gender, where it is known, for the Russian pages' agreement (issue 37:
«дисквалифицирована» was said of a man): set on the People page's form, in an uploaded list
(«пол»: м/ж) and by the API; the wording agrees with it — «дисквалифицирован»,
«дисквалифицирована» — and says it without a gender where it is not known
(«дисквалификация»).

Demo tournament 2 is the clan championship (the team «Север», sever); glavsud organises every
demo tournament, master is a judge of the clan championship. Tournament 1 is «Берсерк»."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from pydantic import ValidationError
from web_testkit import csrf_of, handle_of, main_of

from sudya.app.ledger import Actor, Ledger
from sudya.domain import commands
from sudya.domain.roster_files import read_roster
from sudya.edges.web import i18n

SignIn = Callable[[str], TestClient]
CLAN, BERSERK = 2, 1


def gender_of(ledger: Ledger, handle: str) -> str | None:
    with ledger.db.connect() as conn:
        return conn.execute(sa.text("SELECT gender FROM person WHERE handle = :h"),
                            {"h": handle}).scalar_one()


def test_the_status_agrees_with_a_known_gender_and_is_neutral_otherwise() -> None:
    token = i18n.current_lang.set("ru")
    try:
        assert i18n.status("disqualified", "m") == "дисквалифицирован"
        assert i18n.status("disqualified", "f") == "дисквалифицирована"
        assert i18n.status("disqualified") == "дисквалификация"
        assert i18n.status("removed", "m") == "удалён с турнира"
        assert i18n.status("removed", "f") == "удалена с турнира"
        assert i18n.status("removed") == "удаление с турнира"
        assert i18n.status("suspended", "f") == i18n.status("suspended") == \
            "членство приостановлено"
        assert i18n.status("active", "m") == "участвует"
    finally:
        i18n.current_lang.reset(token)
    token = i18n.current_lang.set("en")
    try:
        assert {i18n.status("disqualified", g) for g in ("m", "f", None)} == {"disqualified"}
    finally:
        i18n.current_lang.reset(token)


def test_a_disqualified_fighter_is_named_as_he_or_she_is(signed_in: SignIn,
                                                          ledger: Ledger) -> None:
    for handle, name, gender in (("ivanov", "Иван Иванов", "m"),
                                 ("ivanova", "Мария Иванова", "f"),
                                 ("kto", "Саша Кто", None)):
        ledger.add_player(tournament=CLAN, handle=handle, name=name, team="sever",
                          gender=gender)
        ledger.record(tournament=CLAN, infraction="attack.on-participant", player=handle,
                      judge="master", round=1, actor=Actor(name="master"))
    page = main_of(signed_in("glavsud").get(f"/t/{CLAN}/teams/sever").text)
    status = {handle_of(li.one("a")): li.one("strong", cls="status").text()
              for li in page.after("Состав").all("li") if li.all("strong", cls="status")}
    assert status == {"ivanov": "· дисквалифицирован", "ivanova": "· дисквалифицирована",
                      "kto": "· дисквалификация"}
    assert "(а)" not in page.text()


def test_the_people_page_and_the_api_take_the_gender(signed_in: SignIn,
                                                     ledger: Ledger) -> None:
    organiser = signed_in("glavsud")
    form = main_of(organiser.get(f"/t/{BERSERK}/people").text).one("select", id="player-gender")
    assert [(o.attrs["value"], o.text()) for o in form.all("option")] == [
        ("", "не указан"), ("m", "мужской"), ("f", "женский")]
    for handle, gender in (("petrova", "f"), ("petrov", "m"), ("nikto", "")):
        done = organiser.post(f"/t/{BERSERK}/people", data={
            "csrf": csrf_of(organiser, f"/t/{BERSERK}/people"), "form": "player",
            "handle": handle, "gender": gender}, follow_redirects=False)
        assert done.status_code == 303, done.text[:300]
        assert gender_of(ledger, handle) == (gender or None)
    refused = organiser.post(f"/t/{BERSERK}/people", data={
        "csrf": csrf_of(organiser, f"/t/{BERSERK}/people"), "form": "player",
        "handle": "kto-to", "gender": "x"})
    assert refused.status_code == 422
    assert main_of(refused.text).one("p", id="player-gender-error").text() == \
        "Выберите из списка."
    # the API's command: `m`, `f` or nothing
    assert commands.AddPlayer(handle="a", gender="f").gender == "f"
    with pytest.raises(ValidationError):
        commands.AddPlayer.model_validate({"handle": "a", "gender": "ж"})


def test_an_uploaded_list_gives_the_gender_in_its_column(signed_in: SignIn,
                                                          ledger: Ledger) -> None:
    text = ("Ник;Имя;Пол\nsmirnov;Сергей Смирнов;м\nsmirnova;Ольга Смирнова;Ж.\n"
            "kuznets;Кузнец;\n").encode()
    roster = read_roster(text, "list.csv", "players")
    assert roster.ok and [r.gender for r in roster.rows] == ["m", "f", None]
    bad = read_roster(b"handle,gender\nx1,female\nx2,?\n", "list.csv", "players")
    assert [(p.line, p.field, p.code) for p in bad.problems] == [(3, "gender", "roster.gender")]
    organiser = signed_in("glavsud")
    url = f"/t/{BERSERK}/people/upload"
    done = organiser.post(url, data={"csrf": csrf_of(organiser, f"/t/{BERSERK}/people"),
                                     "kind": "players", "confirm": "1"},
                          files={"file": ("list.csv", text, "text/csv")},
                          follow_redirects=False)
    assert done.status_code == 303, done.text[:500]
    assert [gender_of(ledger, h) for h in ("smirnov", "smirnova", "kuznets")] == \
        ["m", "f", None]
    # a bad cell is named beside its line in the preview, nothing added
    page = organiser.post(url, data={"csrf": csrf_of(organiser, f"/t/{BERSERK}/people"),
                                     "kind": "players"},
                          files={"file": ("list.csv", b"handle,gender\nx2,?\n", "text/csv")})
    assert page.status_code == 422
    assert "пол — «м» или «ж» (или пусто, если не известен), а не «?»" in page.text
