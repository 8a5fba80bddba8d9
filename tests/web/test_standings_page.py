"""The standings page ranks what the standings rank: a team disqualified in the clan
championship takes no place (003 «Дисквалификация команды»; the rulebook's scoring.unplaced)
and is listed after the placed teams with «—»; the team wargame's tables are ranked by the
final result (004), not listed in the order the teams registered.

Demo (sudya.services.demo): tournament 2 — the clan championship, grom (sever) beat lis (yug)
in round 1; tournament 3 — the team wargame, ivan 12-8 olga, petr 5-15 nina (volki registered
first, medvedi lead 23 to 17). Expected values are worked out by hand from the demo.
"""

from __future__ import annotations

from fastapi.testclient import TestClient
from web_testkit import main_of, table_by_column, table_rows

from sudya.services.ledger import Actor, Ledger


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
    assert shown["sever"]["статус"] == "дисквалифицирована"
    assert shown["sever"]["очки"] == "1"  # the fight won stays in its line
    # the fighters keep their own places (their status is their own)
    assert table_by_column(players)["grom"]["место"] == "1"


def test_team_wargame_tables_are_ranked(client: TestClient) -> None:
    players, teams = main_of(client.get("/t/3/standings").text).all("table")
    assert [(row[0], row[1]) for row in table_rows(teams)] == [("medvedi", "1"),
                                                                ("volki", "2")]
    assert [row[1] for row in table_rows(players)] == ["nina", "ivan", "olga", "petr"]
    assert [row["место"] for row in table_by_column(players).values()] == ["1", "2", "3", "4"]
