"""Erratum E9 (../shared/spec/regulations.md §4), the replacement: a player removed from the
tournament (004 intoxication: «немедленное удаление игрока с турнира (с правом замены его на
другого игрока, играющего той же армией, или Couch'a)») may be replaced — through the
organiser's people page and through POST /api/v1/tournaments/{tid}/replacements. The
replacement (registered with it when new) plays for the removed player's team. A refusal is
shown beside its field (a 422 naming it in the API) and records nothing.

Demo (sudya.app.demo): tournament 3 — the team wargame; glavsud is its head judge and
organiser, sudya its senior judge; ivan and petr play for volki, olga and nina for medvedi.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from web_testkit import csrf_of, main_of

from sudya.app import demo
from sudya.app.ledger import Actor, Ledger

SignIn = Callable[[str], TestClient]
API = "/api/v1/tournaments/3/replacements"
ARMY = "Имперская гвардия"


def count(ledger: Ledger, table: str, where: str = "1=1", **params: object) -> int:
    with ledger.db.connect() as conn:
        n = conn.scalar(sa.text(f"SELECT count(*) FROM {table} WHERE {where}"), params)
    return int(n or 0)


def stored(ledger: Ledger) -> tuple[int, int, int]:
    """Events, people and entries: what a refused replacement must leave as it was."""
    return count(ledger, "event"), count(ledger, "person"), count(ledger, "entry")


def error_beside(page: str, error_id: str) -> str:
    """The error in `<p class="error" id=error_id>`, which the field points to."""
    assert f'aria-describedby="{error_id}"' in page, f"no field points to {error_id}"
    match = re.search(rf'<p class="error" id="{re.escape(error_id)}"[^>]*>(.*?)</p>', page,
                      re.S)
    assert match, f"no error paragraph {error_id}"
    return html.unescape(match.group(1))


@pytest.fixture
def removed(ledger: Ledger) -> str:
    """ivan, removed from the tournament for intoxication (004, §4 E9)."""
    ledger.record(tournament=3, infraction="intoxication", player="ivan", judge="sudya",
                  round=2, actor=Actor(name="sudya"))
    return "ivan"


@pytest.fixture
def api(client: TestClient) -> Iterator[Callable[[str], dict[str, str]]]:
    tokens: dict[str, str] = {}

    def headers(username: str) -> dict[str, str]:
        if username not in tokens:
            r = client.post("/api/v1/login", json={"username": username,
                                                   "password": demo.PASSWORD})
            assert r.status_code == 200, r.text
            tokens[username] = r.json()["token"]
        return {"Authorization": f"Bearer {tokens[username]}"}

    yield headers


def team_of(client: TestClient, headers: dict[str, str], player: str) -> str | None:
    players = client.get("/api/v1/tournaments/3", headers=headers).json()["players"]
    return next((p["team"] for p in players if p["handle"] == player), None)


# ---------------------------------------------------------------------- the page
def test_no_one_to_replace_before_a_removal(signed_in: SignIn) -> None:
    page = main_of(signed_in("glavsud").get("/t/3/people").text)
    assert page.after("Замена удалённого игрока").text() == "С этого турнира никто не удалён."


@pytest.mark.postgresql
def test_the_organiser_registers_a_replacement_on_the_people_page(
        signed_in: SignIn, ledger: Ledger, removed: str, client: TestClient,
        api: Callable[[str], dict[str, str]]) -> None:
    organiser = signed_in("glavsud")
    page = organiser.get("/t/3/people").text
    form = main_of(page).after("Замена удалённого игрока")
    assert [o.attrs["value"] for o in form.all("option")] == [removed]
    token = csrf_of(organiser, "/t/3/people")
    url = "/t/3/people/replacement"
    before = stored(ledger)

    # refusals, each beside its field, and nothing recorded
    r = organiser.post(url, data={"csrf": token, "replace": removed, "by": "",
                                  "name": "Саша"})
    assert r.status_code == 422
    assert error_beside(r.text, "replacement-by-error") == "Обязательно."
    r = organiser.post(url, data={"csrf": token, "replace": removed, "by": "sasha",
                                  "name": "Саша"})  # neither the army nor the coach
    assert r.status_code == 422
    assert "армию" in error_beside(r.text, "replacement-army-error")
    r = organiser.post(url, data={"csrf": token, "replace": removed, "by": "olga",
                                  "army": ARMY})  # a player of the other team
    assert r.status_code == 422
    assert "olga" in error_beside(r.text, "replacement-by-error")
    r = organiser.post(url, data={"csrf": token, "replace": "petr", "by": "sasha",
                                  "army": ARMY})  # petr was not removed
    assert r.status_code == 422
    assert "не удалён" in error_beside(r.text, "replacement-replace-error")
    assert stored(ledger) == before
    assert count(ledger, "person", "handle = 'sasha'") == 0

    # the replacement, a new person, joins the removed player's team; a double submit of
    # the same form stores it once
    form_data = {"csrf": token, "key": "k-replace", "replace": removed, "by": "sasha",
                 "name": "Саша Новиков", "army": ARMY}
    r = organiser.post(url, data=form_data, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/t/3/people?replaced=sasha"
    again = organiser.post(url, data=form_data, follow_redirects=False)
    assert again.status_code == 303
    assert count(ledger, "event") == before[0] + 1
    assert count(ledger, "person", "handle = 'sasha' AND name = 'Саша Новиков'") == 1
    assert team_of(client, api("glavsud"), "sasha") == "volki"
    shown = main_of(organiser.get("/t/3/people?replaced=sasha").text)
    assert shown.one("p", cls="notice").text() == "Замена записана: sasha"
    # ivan was replaced once: a second replacement is refused beside the removed player
    r = organiser.post(url, data={"csrf": token, "replace": removed, "by": "misha",
                                  "army": ARMY})
    assert r.status_code == 422
    assert "уже заменён" in error_beside(r.text, "replacement-replace-error")


def test_only_the_organiser_replaces(signed_in: SignIn, ledger: Ledger, removed: str) -> None:
    judge = signed_in("sudya")  # the senior judge: no roster changes
    assert judge.get("/t/3/people").status_code == 403
    token = csrf_of(judge, "/t/3")
    before = stored(ledger)
    r = judge.post("/t/3/people/replacement", data={"csrf": token, "replace": removed,
                                                    "by": "sasha", "army": ARMY})
    assert r.status_code == 403
    assert stored(ledger) == before


# ---------------------------------------------------------------------- the API
def fields(response: object) -> list[str]:
    detail = response.json()["detail"]  # type: ignore[attr-defined]
    return [".".join(str(p) for p in item["loc"][1:]) for item in detail]


@pytest.mark.postgresql
def test_the_api_registers_a_replacement_and_names_the_field_it_refuses(
        client: TestClient, api: Callable[[str], dict[str, str]], ledger: Ledger,
        removed: str) -> None:
    organiser = api("glavsud")
    before = stored(ledger)
    for body, field in [
        ({"replace": removed}, "by"),  # the typed body: who takes the place
        ({"replace": removed, "by": "sasha", "armee": ARMY}, "armee"),  # not a field
        ({"replace": removed, "by": "sasha", "name": " "}, "name"),
        ({"replace": removed, "by": "sasha"}, "army"),  # neither the army nor the coach
        ({"replace": removed, "by": "sasha", "army": ARMY, "coach": True}, "army"),
        ({"replace": "petr", "by": "sasha", "army": ARMY}, "replace"),  # not removed
        ({"replace": "nobody", "by": "sasha", "army": ARMY}, "replace"),
        ({"replace": removed, "by": "olga", "army": ARMY}, "by"),  # another team's
        ({"replace": removed, "by": "volki", "army": ARMY}, "by"),  # a team
    ]:
        r = client.post(API, json=body, headers=organiser)
        assert r.status_code == 422, (body, r.text)
        assert fields(r) == [field], (body, r.json())
    assert stored(ledger) == before

    body = {"replace": removed, "by": "sasha", "name": "Саша Новиков", "army": ARMY,
            "idempotency_key": "api-replace-1"}
    r = client.post(API, json=body, headers=organiser)
    assert r.status_code == 200, r.text
    assert r.json()["event"].startswith("~roster-") and r.json()["rulings"] == []
    again = client.post(API, json=body, headers=organiser)
    assert again.status_code == 200 and again.json()["event"] == r.json()["event"]
    assert count(ledger, "event") == before[0] + 1
    assert team_of(client, organiser, "sasha") == "volki"
    # sasha now plays for volki: an infraction is recorded against him
    ruled = client.post("/api/v1/tournaments/3/infractions", headers=api("sudya"),
                        json={"infraction": "disruptive-behaviour", "player": "sasha",
                              "round": 2})
    assert ruled.status_code == 200, ruled.text


def test_the_api_lets_only_the_organiser_replace(client: TestClient, ledger: Ledger,
                                                 api: Callable[[str], dict[str, str]],
                                                 removed: str) -> None:
    before = stored(ledger)
    r = client.post(API, json={"replace": removed, "by": "sasha", "army": ARMY},
                    headers=api("sudya"))
    assert r.status_code == 403
    assert client.post(API, json={"replace": removed, "by": "sasha",
                                  "army": ARMY}).status_code == 401
    assert stored(ledger) == before
