"""The standings page ranks what the standings rank: a team disqualified in the clan
championship takes no place (003 «Дисквалификация команды»; the rulebook's scoring.unplaced)
and is listed after the placed teams with «—»; the team wargame's tables are ranked by the
final result (004), not listed in the order the teams registered.

Demo (sudya.app.demo): tournament 2 — the clan championship, grom (sever) beat lis (yug)
in round 1; tournament 3 — the team wargame, ivan 12-8 olga, petr 5-15 nina (volki registered
first, medvedi lead 23 to 17). Expected values are worked out by hand from the demo.
"""

from __future__ import annotations

from fastapi.testclient import TestClient
from web_testkit import main_of, table_by_column, table_rows

from sudya.app.ledger import Actor, Ledger


def test_a_disqualified_team_is_listed_last_with_no_place(client: TestClient,
                                                          ledger: Ledger) -> None:
    before = main_of(client.get("/t/2/standings").text).all("table")[1]
    assert [row[0] for row in table_rows(before)] == ["sever", "yug"]  # sever won the fight
    ledger.record(tournament=2, infraction="team.captain-absent", team="sever",
                  judge="master", round=1, actor=Actor(name="master"))
    players, teams = main_of(client.get("/t/2/standings").text).all("table")
    assert [row[0] for row in table_rows(teams)] == ["yug", "sever"]
    shown = table_by_column(teams)
    assert (shown["yug"]["место"], shown["sever"]["место"]) == ("1", "—")
    assert shown["sever"]["статус"] == "дисквалификация"  # a team: no gender
    assert shown["sever"]["очки"] == "1"  # the fight won stays in its line
    # the fighters keep their own places (their status is their own)
    assert table_by_column(players)["grom"]["место"] == "1"


def test_team_wargame_tables_are_ranked(client: TestClient) -> None:
    players, teams = main_of(client.get("/t/3/standings").text).all("table")
    assert [(row[0], row[1]) for row in table_rows(teams)] == [("medvedi", "1"),
                                                                ("volki", "2")]
    assert [row[1] for row in table_rows(players)] == ["nina", "ivan", "olga", "petr"]
    assert [row["место"] for row in table_by_column(players).values()] == ["1", "2", "3", "4"]


def test_a_large_table_comes_a_page_at_a_time(client: TestClient, ledger: Ledger) -> None:
    # the demo's berserk tournament and 150 more players: 156 lines, 100 a page
    with ledger.writing(tournament=1) as s:
        for i in range(150):
            ledger.add_player(tournament=1, handle=f"x{i:03}", actor=Actor(name="org"),
                              session=s)
    first = main_of(client.get("/t/1/standings").text)
    lines = table_rows(first.one("table"))
    assert len(lines) == 100 and lines[0][0] == "1" and lines[-1][0] == "100"
    assert "Страница 1 из 2 · игроки 1–100 из 156" in first.text()
    second = main_of(client.get("/t/1/standings?page=2").text)
    lines = table_rows(second.one("table"))
    assert len(lines) == 56 and (lines[0][0], lines[-1][0]) == ("101", "156")
    # a player found by part of the name keeps their place in the whole table
    whole = client.get("/api/v1/tournaments/1/standings?limit=1000").json()
    found = main_of(client.get("/t/1/standings?q=Смирн").text)
    assert [(row[0], row[1]) for row in table_rows(found.one("table"))] == [
        (str(whole["players"]["alisa"]["place"]), "alisa")]
    assert "Никого не нашлось." in main_of(client.get("/t/1/standings?q=нет-такого").text).text()
    # the API's pages: the lines in table order, the count and the pages
    page = client.get("/api/v1/tournaments/1/standings?page=2&limit=50").json()
    assert (page["total"], page["pages"], page["page"], page["offset"]) == (156, 4, 2, 50)
    assert list(page["players"]) == list(whole["players"])[50:100]
    assert client.get("/api/v1/tournaments/1/standings?limit=0").status_code == 422


def test_a_kept_table_shows_names_as_they_are_now(client: TestClient, ledger: Ledger) -> None:
    """The table is kept until the series changes (services.queries.TABLES); a display name
    changes without an event, so the page reads the names of its lines each time, and a
    result entered makes the table again."""
    from sudya.app.people import set_names

    before = table_by_column(main_of(client.get("/t/1/standings").text).one("table"))
    set_names(ledger, names={"alisa": "Алиса Переименованная"})
    page = main_of(client.get("/t/1/standings").text)
    assert "Алиса Переименованная" in page.one("table").text()
    assert len(table_rows(page.one("table"))) == len(before)
    found = main_of(client.get("/t/1/standings?q=переименов").text)
    assert [row[1] for row in table_rows(found.one("table"))] == ["alisa"]
    assert "Алиса Переименованная" in found.one("table").text()
