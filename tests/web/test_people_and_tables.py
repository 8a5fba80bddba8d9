"""People by name and the round's tables in the web app and the API.

The demo (sudya.app.demo) names its players in Russian and pairs two rounds of the
«Берсерк» tournament (1): round 2, the current one, is 1 alisa–egor, 2 vera–boris,
3 gleb–dasha; the team wargame (3) pairs the teams volki–medvedi at table 1 of round 2; the
clan championship (2) has no pairings and no seats.
"""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
from fastapi.testclient import TestClient
from web_testkit import csrf_of, main_of, parse

from sudya.app.clock import start_round
from sudya.app.demo import PASSWORD
from sudya.app.ledger import Actor, Ledger
from sudya.app.people import set_names

API = "/api/v1"
SignIn = Callable[[str], TestClient]
BERSERK, CLAN, WARGAME = 1, 2, 3


@pytest.fixture
def bearer(client: TestClient) -> Callable[[str], dict[str, str]]:
    def headers(username: str) -> dict[str, str]:
        r = client.post(f"{API}/login", json={"username": username, "password": PASSWORD})
        assert r.status_code == 200, r.text
        return {"Authorization": f"Bearer {r.json()['token']}"}

    return headers


# ---------------------------------------------------------------------- the API
@pytest.mark.postgresql
def test_api_finds_people_by_name_handle_and_table(client: TestClient,
                                                   bearer: Callable[[str], dict[str, str]]
                                                   ) -> None:
    judge = bearer("sudya")

    def find(q: str, tid: int = BERSERK, **params: object) -> list[str]:
        r = client.get(f"{API}/tournaments/{tid}/people", params={"q": q, **params},
                       headers=judge)
        assert r.status_code == 200, r.text
        return [p["handle"] for p in r.json()]

    r = client.get(f"{API}/tournaments/{BERSERK}/people", params={"q": "борис"}, headers=judge)
    assert r.json() == [{"handle": "boris", "name": "Борис Петров", "team": None,
                         "team_name": None, "table": 2, "round": 2}]
    assert find("ОРЛОВ") == ["gleb"]
    assert find("ali") == ["alisa"]  # a handle
    assert find("2") == ["boris", "vera"]  # table 2 of the current round, as they entered
    assert find("2", round=1) == ["vera", "gleb"]  # round 1: vera–gleb at table 2
    assert len(find("")) == 6
    # «ё» is «е», both ways: «Пётр Громов» by «петр», «Иван Ёлкин» by «елкин»
    master = bearer("master")
    assert [p["handle"] for p in client.get(f"{API}/tournaments/{CLAN}/people",
                                            params={"q": "петр"}, headers=master).json()] \
        == ["grom"]
    head = bearer("glavsud")
    wargame = client.get(f"{API}/tournaments/{WARGAME}/people", params={"q": "ЕЛКИН"},
                         headers=head).json()
    assert wargame == [{"handle": "ivan", "name": "Иван Ёлкин", "team": "volki",
                        "team_name": "Волки", "table": 1, "round": 2}]
    # a team's members sit at their team's table
    assert [p["handle"] for p in client.get(f"{API}/tournaments/{WARGAME}/people",
                                            params={"q": "1"}, headers=head).json()] == [
        "ivan", "petr", "olga", "nina"]


def test_api_people_and_pairings_need_a_role(client: TestClient,
                                             bearer: Callable[[str], dict[str, str]]) -> None:
    for path in ("people?q=a", "pairings"):
        assert client.get(f"{API}/tournaments/{BERSERK}/{path}").status_code == 401
        assert client.get(f"{API}/tournaments/{WARGAME}/{path}",
                          headers=bearer("igrok")).status_code == 403  # no role there
        assert client.get(f"{API}/tournaments/99/{path}",
                          headers=bearer("sudya")).status_code == 404
    assert client.get(f"{API}/tournaments/{BERSERK}/pairings", params={"round": 0},
                      headers=bearer("sudya")).status_code == 422
    too_long = client.get(f"{API}/tournaments/{BERSERK}/people", params={"q": "x" * 101},
                          headers=bearer("sudya"))
    assert too_long.status_code == 422
    # the tournament's players carry their names too
    players = client.get(f"{API}/tournaments/{BERSERK}", headers=bearer("sudya")).json()
    assert players["players"][0] == {"handle": "alisa", "name": "Алиса Смирнова", "team": None}


@pytest.mark.postgresql
def test_api_pairings_of_a_round(client: TestClient,
                                 bearer: Callable[[str], dict[str, str]]) -> None:
    judge = bearer("sudya")
    now = client.get(f"{API}/tournaments/{BERSERK}/pairings", headers=judge).json()
    assert (now["round"], now["current_round"], now["rounds"]) == (2, 2, [1, 2])
    assert now["imported_by"] == "demo" and now["imported_at"]
    assert [(t["table"], t["a"]["handle"], t["b"]["handle"]) for t in now["tables"]] == [
        (1, "alisa", "egor"), (2, "vera", "boris"), (3, "gleb", "dasha")]
    assert now["tables"][1]["b"] == {"handle": "boris", "name": "Борис Петров", "team": False,
                                     "players": [{"handle": "boris", "name": "Борис Петров",
                                                  "team": None, "team_name": None,
                                                  "table": 2, "round": 2}]}
    first = client.get(f"{API}/tournaments/{BERSERK}/pairings", params={"round": 1},
                       headers=judge).json()
    assert [(t["a"]["handle"], t["b"]["handle"]) for t in first["tables"]] == [
        ("alisa", "boris"), ("vera", "gleb"), ("dasha", "egor")]
    assert client.get(f"{API}/tournaments/{BERSERK}/pairings", params={"round": 5},
                      headers=judge).json()["tables"] == []
    [team] = client.get(f"{API}/tournaments/{WARGAME}/pairings",
                        headers=bearer("glavsud")).json()["tables"]
    assert (team["a"]["name"], team["a"]["team"], team["b"]["name"]) == (
        "Волки", True, "Медведи")
    assert [p["name"] for p in team["b"]["players"]] == ["Ольга Медведева", "Нина Зайцева"]


# ---------------------------------------------------------------------- the dashboard
def tables_of(page: str) -> dict[int, list[tuple[str, str]]]:
    """The dashboard's tables: number -> [(player's handle, where tapping them leads)]."""
    section = main_of(page).one("section", cls="tables")
    return {int(li.attrs["data-table"]): [(a.attrs["data-player"], a.attrs["href"])
                                          for a in li.all("a", cls="seat-player")]
            for li in section.all("li", cls="table-card")}


@pytest.mark.postgresql
def test_the_dashboard_opens_on_the_current_rounds_tables(signed_in: SignIn,
                                                          ledger: Ledger) -> None:
    judge = signed_in("sudya")
    page = judge.get(f"/t/{BERSERK}").text
    main = main_of(page)
    heading = main.one("section", cls="tables").one("h2").text()
    assert heading == "Столы · тур 2"
    # the search first, then the buttons and the judge's work; the tables after them
    order = [(e.tag, e.attrs.get("class", "")) for e in main.all()
             if e.tag in ("nav", "section")]
    assert order[:3] == [("section", "people search-first"), ("nav", "actions"),
                         ("nav", "work")]
    assert ("section", "tables") in order
    tables = tables_of(page)
    assert list(tables) == [1, 2, 3]
    assert tables[2] == [
        ("vera", f"/t/{BERSERK}/record?table=2&player=vera&round=2"),
        ("boris", f"/t/{BERSERK}/record?table=2&player=boris&round=2")]
    card = main.one("li", id="table-2")
    assert card.one("summary").text() == "Стол 2 Вера Кузнецова — Борис Петров"
    assert card.one("a", **{"data-player": "boris"}).text() == "Борис Петров boris"

    # a round started later, without pairings yet: the dashboard follows the clock
    start_round(ledger, tournament=BERSERK, round=3, minutes=50, actor=Actor(name="glavsud"))
    main = main_of(judge.get(f"/t/{BERSERK}").text)
    heading = main.one("section", cls="tables").one("h2").text()
    assert heading == "Столы · тур 3 (места при регистрации)"  # the registered seats
    assert tables_of(judge.get(f"/t/{BERSERK}").text)[1] == [
        ("alisa", f"/t/{BERSERK}/record?table=1&player=alisa&round=3"),
        ("boris", f"/t/{BERSERK}/record?table=1&player=boris&round=3")]


def test_team_tables_list_both_teams_players(signed_in: SignIn) -> None:
    head = signed_in("glavsud")
    page = head.get(f"/t/{WARGAME}").text
    assert [h for h, _ in tables_of(page)[1]] == ["ivan", "petr", "olga", "nina"]
    card = main_of(page).one("li", id="table-1")
    assert card.one("summary").text() == "Стол 1 Волки — Медведи"
    assert [p.text() for p in card.all("p", cls="side-team")] == ["Волки", "Медведи"]
    # a junior judge, who may not rule, taps a player to report an incident (web
    # test_incidents.py); the scorekeeper, no judge, to see the player's record
    junior = signed_in("mladshiy")
    assert dict(tables_of(junior.get(f"/t/{WARGAME}").text)[1])["olga"] == \
        f"/t/{WARGAME}/incidents?player=olga&table=1&round=2"
    keeper = signed_in("schet")
    assert dict(tables_of(keeper.get(f"/t/{WARGAME}").text)[1])["olga"] == \
        f"/t/{WARGAME}/people/olga"
    # no tables where nothing is paired or seated
    assert main_of(head.get(f"/t/{CLAN}").text).all("section", cls="tables") == []


def test_the_dashboard_searches_people(signed_in: SignIn) -> None:
    judge = signed_in("sudya")
    main = main_of(judge.get(f"/t/{BERSERK}").text)
    people = main.one("section", cls="search-first")
    assert people.one("label").text() == "Стол, имя или фамилия"
    assert people.one("input", id="people-q").attrs["hx-get"] == f"/t/{BERSERK}/find"
    listed = people.one("div", id="people-found").all("li")
    assert [li.attrs["data-player"] for li in listed] == [
        "alisa", "boris", "vera", "gleb", "dasha", "egor"]  # a small tournament: everyone
    assert listed[1].text() == "Борис Петров boris стол 2 нарушение"
    # as the judge types (htmx asks for the list alone), and without JavaScript (?q=)
    for url in (f"/t/{BERSERK}/find?q=ВЕРА", f"/t/{BERSERK}?q=ВЕРА"):
        r = judge.get(url)
        assert r.status_code == 200
        page = main_of(r.text) if "<main>" in r.text else parse(r.text)
        assert [li.attrs["data-player"] for li in page.one("ul", cls="people-list").all("li")
                ] == ["vera"], url
    fragment = parse(judge.get(f"/t/{BERSERK}/find?q=3").text)
    assert [li.attrs["data-player"] for li in fragment.all("li")] == ["gleb", "dasha"]
    assert fragment.one("li", **{"data-player": "gleb"}).one("a", cls="small").attrs[
        "href"] == f"/t/{BERSERK}/record?table=3&player=gleb&round=2"
    assert parse(judge.get(f"/t/{BERSERK}/find?q=zzz").text).text() == "Никого не нашлось."
    # players see only their own record: no search
    player = signed_in("igrok")
    assert player.get(f"/t/{BERSERK}/find?q=a").status_code == 403
    assert main_of(player.get(f"/t/{BERSERK}").text).all("div", id="people-found") == []


def test_a_large_tournament_lists_nobody_until_searched(signed_in: SignIn,
                                                        ledger: Ledger) -> None:
    for i in range(40):
        ledger.add_player(tournament=CLAN, handle=f"p{i:03}", name=f"Игрок {i}",
                          actor=Actor(name="glavsud"))
    master = signed_in("master")
    found = main_of(master.get(f"/t/{CLAN}").text).one("div", id="people-found")
    assert found.all("li") == [] and "Введите часть имени" in found.text()
    some = parse(master.get(f"/t/{CLAN}/find?q=игрок").text)
    assert len(some.all("li")) == 30 and "И ещё 10" in some.text()


# ---------------------------------------------------------------------- names everywhere
@pytest.mark.postgresql
def test_people_are_shown_by_name_with_the_handle_beside(signed_in: SignIn,
                                                         ledger: Ledger) -> None:
    head = signed_in("glavsud")
    dashboard = main_of(head.get(f"/t/{BERSERK}").text)
    latest = dashboard.after("Последние решения").all("li", cls="ruling")
    assert latest[-1].text().startswith("Борис Петров boris · Замедленный темп игры")
    person = main_of(head.get(f"/t/{BERSERK}/people/boris").text)
    assert person.one("h1").text() == "История: Борис Петров boris"
    standings = main_of(head.get(f"/t/{BERSERK}/standings").text)
    assert "Алиса Смирнова alisa" in standings.one("table").text()
    team = main_of(head.get(f"/t/{WARGAME}/teams/volki").text)
    assert [a.text() for a in team.after("Состав").all("a")] == ["Иван Ёлкин ivan",
                                                                "Пётр Сидоров petr"]
    wargame = main_of(head.get(f"/t/{WARGAME}/standings").text)
    assert "Медведи medvedi" in wargame.all("table")[1].text()
    pending = main_of(head.get(f"/t/{WARGAME}/pending").text)
    assert pending.one("div", cls="pending-item").one("strong").text() == "Ольга Медведева"
    people = main_of(head.get(f"/t/{BERSERK}/people").text)
    assert "Вера Кузнецова vera" in people.after("Зарегистрированы").text()
    # an appeal names its appellant
    alisa = signed_in("igrok")
    token = csrf_of(alisa, f"/t/{BERSERK}/appeals")
    judge = Actor(name="sudya")
    ledger.record(tournament=BERSERK, infraction="gameplay.slow-play", player="alisa",
                  judge="sudya", round=2, event_id="slow-alisa", actor=judge)
    r = alisa.post(f"/t/{BERSERK}/appeals/file", data={
        "csrf": token, "key": "k-names", "event": "slow-alisa", "appellant": "alisa",
        "reason": ""}, follow_redirects=False)
    assert r.status_code == 303, r.text
    appeals = main_of(head.get(f"/t/{BERSERK}/appeals").text)
    assert "Алиса Смирнова обжалует решение" in appeals.text()
    # a person named later is shown by the new name; one without a name by the handle
    set_names(ledger, names={"egor": "Егор Л."})
    assert "Егор Л. egor" in main_of(head.get(f"/t/{BERSERK}").text).text()


# ---------------------------------------------------------------------- the pairings page
CSV = "table,player_a,player_b\n1,alisa,vera\n2,boris,gleb\n3,dasha,egor\n"


def upload(client: TestClient, round: str, text: str, *, name: str = "round3.csv"
           ) -> httpx.Response:
    token = csrf_of(client, f"/t/{BERSERK}/pairings")
    return client.post(f"/t/{BERSERK}/pairings", data={"csrf": token, "round": round},
                       files={"file": (name, text.encode(), "text/csv")},
                       follow_redirects=False)


@pytest.mark.postgresql
def test_the_scorekeeper_uploads_a_round(signed_in: SignIn) -> None:
    keeper = signed_in("schet")
    page = main_of(keeper.get(f"/t/{BERSERK}/pairings").text)
    assert page.one("input", id="pairing-round").attrs["value"] == "3"  # the next round
    r = upload(keeper, "3", CSV)
    assert r.status_code == 303
    assert r.headers["location"] == f"/t/{BERSERK}/pairings?round=3&imported=3"
    shown = main_of(keeper.get(r.headers["location"]).text)
    assert "Тур 3: загружено столов: 3." in shown.one("p", cls="notice").text()
    assert [li.text() for li in shown.one("ul", cls="pairing-list").all("li")][0] == \
        "1 Алиса Смирнова alisa — Вера Кузнецова vera внести результат"
    assert "Пары составлены: schet" in shown.text()
    # the dashboard now opens on round 3
    judge = signed_in("sudya")
    assert tables_of(judge.get(f"/t/{BERSERK}").text)[2][0] == (
        "boris", f"/t/{BERSERK}/record?table=2&player=boris&round=3")


@pytest.mark.postgresql
def test_an_upload_with_a_bad_row_stores_nothing(signed_in: SignIn) -> None:
    head = signed_in("glavsud")
    before = head.get(f"{API}/tournaments/{BERSERK}/pairings?round=2").json()
    bad = "table,player_a,player_b\n1,alisa,vera\n2,boris,zed\n1,dasha,egor\n"
    r = upload(head, "2", bad)
    assert r.status_code == 422
    main = main_of(r.text)
    error = main.one("div", id="pairing-file-error")
    assert error.one("p").text() == "Отклонено строк: 2. Ничего не загружено."
    assert [li.text() for li in error.all("li")] == [
        "строка 3: player_b: «zed» не играет в этом турнире",
        "строка 4: table: стол 1 уже есть в строке 2"]
    assert main.one("input", id="pairing-file").attrs["aria-describedby"] == \
        "pairing-file-error"
    assert main.one("input", id="pairing-round").attrs["value"] == "2"  # what was typed
    assert head.get(f"{API}/tournaments/{BERSERK}/pairings?round=2").json() == before

    refused = {
        ("", CSV): ("pairing-round-error", "Укажите тур."),
        ("x", CSV): ("pairing-round-error", "Целое число от 1 до 1000."),
        ("2", "table;player_a;player_b\n1;alisa;vera\n"): ("pairing-file-error", "нет столбцов"),
        ("2", "table,player_a,player_b\n"): ("pairing-file-error", "нет ни одной пары"),
    }
    for (rnd, text), (field, words) in refused.items():
        r = upload(head, rnd, text)
        assert r.status_code == 422, (rnd, text)
        assert words in main_of(r.text).one(id=field).text(), (rnd, text)
    not_utf8 = head.post(f"/t/{BERSERK}/pairings", data={
        "csrf": csrf_of(head, f"/t/{BERSERK}/pairings"), "round": "2"},
        files={"file": ("p.csv", "стол".encode("cp1251"), "text/csv")})
    assert not_utf8.status_code == 422
    assert "UTF-8" in main_of(not_utf8.text).one(id="pairing-file-error").text()
    no_file = head.post(f"/t/{BERSERK}/pairings", data={
        "csrf": csrf_of(head, f"/t/{BERSERK}/pairings"), "round": "2"})
    assert "Выберите файл CSV" in main_of(no_file.text).one(id="pairing-file-error").text()
    assert head.get(f"{API}/tournaments/{BERSERK}/pairings?round=2").json() == before


def test_who_may_upload_pairings(signed_in: SignIn) -> None:
    judge = signed_in("sudya")  # a floor judge sees the pairings, without the form
    page = main_of(judge.get(f"/t/{BERSERK}/pairings").text)
    assert page.all("form", enctype="multipart/form-data") == []
    assert upload(judge, "3", CSV).status_code == 403
    assert signed_in("igrok").get(f"/t/{BERSERK}/pairings").status_code == 403
    # the organiser, the scorekeeper and the head judge see the button on the dashboard
    for user, shown in (("glavsud", True), ("schet", True), ("sudya", False)):
        buttons = main_of(signed_in(user).get(f"/t/{BERSERK}").text).all(
            "a", href=f"/t/{BERSERK}/pairings")
        assert bool(buttons) == shown, user
    token = csrf_of(judge, f"/t/{BERSERK}/pairings")
    r = judge.post(f"/t/{BERSERK}/pairings", data={"csrf": token, "round": "3"},
                   files={"file": ("p.csv", CSV.encode(), "text/csv")})
    assert r.status_code == 403
    head = signed_in("glavsud")
    r = head.post(f"/t/{BERSERK}/pairings", data={"csrf": "wrong", "round": "3"},
                  files={"file": ("p.csv", CSV.encode(), "text/csv")})
    assert r.status_code == 403
