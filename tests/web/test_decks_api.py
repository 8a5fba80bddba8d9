"""The deck routes of the JSON API over the demo database: checking (and registering) a list,
a deck against its list, the overspend remedy, and every player's list in a tournament."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import delete, func, select

from sudya.adapters.db import deck_models as d
from sudya.adapters.db import models as m
from sudya.app.ledger import Ledger

API = "/api/v1"
SQUAD = ["Вайл", "Вайл", "Самаэль", "Аккения", "Аккения", "Шаммар"]
BROKEN = "Игрок: Борис\n4 Вампир\n3 Гном\n30 Богарт\n3 Самоход\n"
Auth = Callable[[str], dict[str, str]]



def fields(response: Any) -> list[str]:
    """The field names a 422 points at."""
    return [".".join(str(p) for p in item["loc"][1:]) for item in response.json()["detail"]]


def decklists(ledger: Ledger) -> int:
    with ledger.factory() as s:
        return int(s.scalar(select(func.count()).select_from(d.Decklist)) or 0)


def items(findings: list[dict[str, Any]]) -> set[tuple[str, str]]:
    return {(f["infraction"], f["item"]) for f in findings}


# ---------------------------------------------------------------------- check
def test_check_a_list_against_a_format(client: TestClient, auth: Auth) -> None:
    r = client.post(f"{API}/decks/check", headers=auth("sudya"), json={
        "text": BROKEN, "format": "constructed", "rulebook": "berserk"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["decklist_id"] is None and body["sample"] is True  # the demo's sample list
    assert items(body["findings"]) == {("deck.invalid-decklist", "д")}
    [finding] = body["findings"]
    assert finding["rule"] == "002 §1.1 д" and "Вампир" in finding["message"]
    typo = client.post(f"{API}/decks/check", headers=auth("sudya"), json={
        "text": "3 Самоходд\n", "format": "standard", "rulebook": "berserk"}).json()
    assert {"suggestion": "Самоход", "line": 1}.items() <= next(
        f for f in typo["findings"] if f["item"] == "б").items()


@pytest.mark.postgresql
def test_check_registers_the_list_once_and_the_status_shows_it(
        client: TestClient, auth: Auth, ledger: Ledger) -> None:
    head = auth("glavsud")
    before = decklists(ledger)
    body = {"text": BROKEN, "format": "constructed", "tournament": 1, "player": "boris",
            "idempotency_key": "deck-boris-1"}
    first = client.post(f"{API}/decks/check", headers=head, json=body)
    assert first.status_code == 200, first.text
    again = client.post(f"{API}/decks/check", headers=head, json=body)
    assert again.json()["decklist_id"] == first.json()["decklist_id"] is not None
    assert decklists(ledger) == before + 1
    status = client.get(f"{API}/tournaments/1/decks", headers=head)
    assert status.status_code == 200
    rows = {row["player"]: row for row in status.json()}
    assert rows["boris"]["status"] == "problems" and rows["boris"]["findings"] == 1
    assert rows["boris"]["decklist_id"] == first.json()["decklist_id"]
    assert rows["alisa"]["status"] == "ok" and rows["egor"]["status"] == "problems"
    assert rows["vera"]["status"] == "missing" and rows["vera"]["format"] is None
    # the finding is then recorded like any infraction, its sub-item in details.item
    r = client.post(f"{API}/tournaments/1/infractions", headers=head, json={
        "infraction": "deck.invalid-decklist", "player": "boris", "details": {"item": "д"}})
    assert r.status_code == 200, r.text
    with ledger.factory() as s:
        ruling = s.scalar(select(m.Ruling).where(m.Ruling.subject == "boris",
                                                 m.Ruling.infraction == "deck.invalid-decklist"))
        assert ruling is not None and ruling.details["item"] == "д"


@pytest.mark.parametrize(("body", "field"), [
    ({"format": "sealed", "rulebook": "berserk"}, "format"),
    ({"format": "constructed"}, "rulebook"),
    ({"format": "constructed", "rulebook": "nope"}, "rulebook"),
    ({"format": "constructed", "rulebook": "team-wargame"}, "rulebook"),
    ({"format": "constructed", "tournament": 3, "player": "ivan"}, "tournament"),
    ({"format": "constructed", "player": "boris", "rulebook": "berserk"}, ""),
    ({"format": "constructed", "tournament": 1, "player": "nobody"}, "player"),
    ({"format": "constructed", "rulebook": "berserk", "text": "3 Гном\x00"}, "text"),
])
def test_check_bad_input_names_the_field(body: dict[str, Any], field: str,
                                         client: TestClient, auth: Auth,
                                         ledger: Ledger) -> None:
    before = decklists(ledger)
    r = client.post(f"{API}/decks/check", headers=auth("glavsud"),
                    json={"text": BROKEN, **body})
    assert r.status_code == 422, r.text
    assert fields(r) == [field]
    assert decklists(ledger) == before


def test_without_a_card_list_the_sample_must_be_asked_for(client: TestClient, auth: Auth,
                                                          ledger: Ledger) -> None:
    with ledger.uow().begin() as s:
        s.execute(delete(d.CardRow))
        s.execute(delete(d.CardImport))
    body = {"text": BROKEN, "format": "constructed", "rulebook": "berserk"}
    r = client.post(f"{API}/decks/check", headers=auth("sudya"), json=body)
    assert r.status_code == 422 and fields(r) == ["cards"]
    r = client.post(f"{API}/decks/check", headers=auth("sudya"), json={**body,
                                                                       "cards": "sample"})
    assert r.status_code == 200 and r.json()["sample"] is True


# ---------------------------------------------------------------------- compare
def test_compare_a_deck_with_its_list(client: TestClient, auth: Auth) -> None:
    r = client.post(f"{API}/decks/compare", headers=auth("sudya"), json={
        "decklist": "3 Гном\n3 Вампир\n", "deck": "3 Гном\n2 Вампир\n1 Шар смерти\n"})
    assert r.status_code == 200, r.text
    found = r.json()["findings"]
    assert items(found) == {("deck.deck-decklist-mismatch", "б"),
                            ("deck.deck-decklist-mismatch", "в")}
    same = client.post(f"{API}/decks/compare", headers=auth("sudya"),
                       json={"decklist": "3 Гном", "deck": "Гном x3"})
    assert same.json() == {"findings": []}


# ---------------------------------------------------------------------- the remedy
def test_remedy_with_a_seed_gives_the_same_draws(client: TestClient, auth: Auth) -> None:
    body = {"squad": SQUAD, "seat": "first", "seed": 4711, "rulebook": "berserk"}
    first = client.post(f"{API}/squad/remedy", headers=auth("sudya"), json=body)
    assert first.status_code == 200, first.text
    out = first.json()
    assert out["seed"] == 4711 and out["warning"] is True
    assert out["draws"][0]["group"] == "А"
    assert {x["chosen_by"] for x in out["draws"]} == {"random"}
    assert out["returned"] == [x["card"] for x in out["draws"]]
    assert sorted(out["kept"] + out["returned"]) == sorted(SQUAD)
    assert client.post(f"{API}/squad/remedy", headers=auth("sudya"), json=body).json() == out
    fresh = client.post(f"{API}/squad/remedy", headers=auth("sudya"),
                        json={**body, "seed": None, "tournament": 1, "rulebook": None}).json()
    replay = client.post(f"{API}/squad/remedy", headers=auth("sudya"),
                         json={**body, "seed": fresh["seed"]}).json()
    assert replay["draws"] == fresh["draws"]


def test_remedy_with_the_judges_draws(client: TestClient, auth: Auth) -> None:
    r = client.post(f"{API}/squad/remedy", headers=auth("sudya"), json={
        "squad": SQUAD, "seat": "first", "rulebook": "berserk",
        "drawn": ["Аккения", "Аккения", "Вайл", "Шаммар"]})
    assert r.status_code == 200, r.text
    out = r.json()
    assert [(x["group"], x["card"], x["chosen_by"]) for x in out["draws"]] == [
        ("А", "Аккения", "judge"), ("А", "Аккения", "judge"), ("А", "Вайл", "judge"),
        ("Е", "Шаммар", "judge")]
    assert out["kept"] == ["Вайл", "Самаэль"]
    legal = client.post(f"{API}/squad/remedy", headers=auth("sudya"), json={
        "squad": ["Гном"], "seat": "second", "rulebook": "berserk"}).json()
    assert legal["warning"] is False and legal["draws"] == []


@pytest.mark.parametrize(("change", "field"), [
    ({"drawn": ["Гном"]}, "drawn"),
    ({"squad": [*SQUAD, "Вайлл"]}, "squad.6"),
    ({"seat": "third"}, "seat"),
    ({"squad": []}, "squad"),
    ({"seed": -1}, "seed"),
    ({"rulebook": "clan-championship"}, "rulebook"),
])
def test_remedy_bad_input_names_the_field(change: dict[str, Any], field: str,
                                          client: TestClient, auth: Auth) -> None:
    body = {"squad": [*SQUAD, "Гном"], "seat": "first", "seed": 1, "rulebook": "berserk",
            **change}
    r = client.post(f"{API}/squad/remedy", headers=auth("sudya"), json=body)
    assert r.status_code == 422, r.text
    assert fields(r) == [field]


# ---------------------------------------------------------------------- roles and CSRF
def test_roles(client: TestClient, auth: Auth, ledger: Ledger) -> None:
    player = auth("igrok")
    before = decklists(ledger)
    r = client.post(f"{API}/decks/check", headers=player, json={
        "text": BROKEN, "format": "constructed", "tournament": 1, "player": "alisa"})
    assert r.status_code == 403
    assert client.get(f"{API}/tournaments/1/decks", headers=player).status_code == 403
    assert client.post(f"{API}/squad/remedy", headers=player, json={
        "squad": SQUAD, "seat": "first", "tournament": 1}).status_code == 403
    assert client.get(f"{API}/tournaments/1/decks",
                      headers=auth("schet")).status_code == 403
    junior = auth("mladshiy")
    assert client.get(f"{API}/tournaments/3/decks", headers=junior).status_code == 403
    assert client.get(f"{API}/tournaments/3/decks",
                      headers=auth("glavsud")).status_code == 404  # no deck formats there
    for path, body in (("decks/check", {"text": "", "format": "constructed",
                                        "rulebook": "berserk"}),
                       ("decks/compare", {"decklist": "", "deck": ""}),
                       ("squad/remedy", {"squad": SQUAD, "seat": "first",
                                         "rulebook": "berserk"})):
        assert client.post(f"{API}/{path}", json=body).status_code == 401, path
    assert client.get(f"{API}/tournaments/1/decks").status_code == 401
    assert decklists(ledger) == before


def test_cookie_session_needs_the_csrf_header(client: TestClient, auth: Auth,
                                              ledger: Ledger) -> None:
    token = auth("glavsud")["Authorization"].split()[1]
    client.cookies.set("sudya_session", token)
    before = decklists(ledger)
    posts = (("decks/check", {"text": BROKEN, "format": "constructed", "tournament": 1,
                              "player": "boris"}),
             ("decks/check", {"text": BROKEN, "format": "constructed",
                              "rulebook": "berserk"}),
             ("decks/compare", {"decklist": "3 Гном", "deck": "2 Гном"}),
             ("squad/remedy", {"squad": SQUAD, "seat": "first", "rulebook": "berserk"}))
    for path, body in posts:
        r = client.post(f"{API}/{path}", json=body)
        assert r.status_code == 403, path
    assert decklists(ledger) == before
    csrf = client.get(f"{API}/me").json()["csrf_token"]
    for path, body in posts:
        r = client.post(f"{API}/{path}", json=body, headers={"X-CSRF-Token": csrf})
        assert r.status_code == 200, (path, r.text)
    assert decklists(ledger) == before + 1
    assert client.get(f"{API}/tournaments/1/decks").status_code == 200  # reads need none


def test_the_routes_are_in_the_openapi_document(client: TestClient) -> None:
    paths = client.get(f"{API}/openapi.json").json()["paths"]
    for path in ("/api/v1/decks/check", "/api/v1/decks/compare", "/api/v1/squad/remedy",
                 "/api/v1/tournaments/{tid}/decks"):
        assert path in paths, path
