"""Who may read a person's record: staff in the series they hold a role in, a player their own.

The demo (sudya.app.demo): tournament 1 is the series «Кубок «Берсерк»», 2 the clan
championship, 3 the team wargame, each a series of its own. `schet` is the scorekeeper of 1
and 3, `mladshiy` a junior judge of 3, `glavsud` a judge in all three, `igrok` the player
alisa of 1. veda plays in the clan championship only, boris in the Berserk cup only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_testkit import main_of

from sudya.app.ledger import Actor, Ledger

API = "/api/v1"
BERSERK, CLAN, WARGAME = 1, 2, 3
SignIn = Callable[[str], TestClient]



def record(client: TestClient, headers: dict[str, str], tid: int, handle: str
           ) -> tuple[int, object]:
    r = client.get(f"{API}/tournaments/{tid}/people/{handle}", headers=headers)
    return r.status_code, r.json()


def refusal(body: object) -> str:
    assert isinstance(body, dict), body
    [item] = body["detail"]
    return str(item["type"])


@pytest.mark.postgresql
def test_a_scorekeeper_reads_no_person_of_another_series(client: TestClient, auth: Any
                                                          ) -> None:
    schet = auth("schet")
    # through the scorekeeper's own tournament: veda plays in another series
    status, body = record(client, schet, BERSERK, "veda")
    assert status == 403 and refusal(body) == "record.other-series"
    # through veda's series: the scorekeeper holds no role there
    status, body = record(client, schet, CLAN, "veda")
    assert status == 403 and refusal(body) == "record.no-role"
    assert isinstance(body, dict) and body["detail"][0]["params"] == {
        "series": "Клановый чемпионат"}
    # in their own series they read it (boris's slow play, e13)
    status, body = record(client, schet, BERSERK, "boris")
    assert status == 200 and isinstance(body, list)
    assert [e["event"] for e in body] == ["e13"]
    # a role in one tournament of a series opens the series, not only that tournament:
    # the wargame's scorekeeper reads a wargame player through the wargame's URL
    assert record(client, schet, WARGAME, "ivan")[0] == 200


def test_a_player_reads_their_own_record_only(client: TestClient, auth: Any) -> None:
    igrok = auth("igrok")
    assert record(client, igrok, BERSERK, "alisa") == (200, [])
    status, body = record(client, igrok, BERSERK, "boris")
    assert status == 403 and refusal(body) == "record.no-role"
    status, body = record(client, igrok, CLAN, "veda")
    assert status == 403 and refusal(body) == "record.no-role"


def test_staff_see_only_the_series_they_hold_a_role_in(client: TestClient, auth: Any,
                                                       ledger: Ledger) -> None:
    # boris plays in the wargame too, and is ruled on there
    actor = Actor(name="test")
    ledger.add_team(tournament=WARGAME, handle="lisy", name="Лисы", members=["boris", "gleb"],
                    actor=actor)
    ledger.record(tournament=WARGAME, infraction="disruptive-behaviour", player="boris",
                  judge="sudya", round=1, actor=actor)
    status, junior = record(client, auth("mladshiy"), WARGAME, "boris")
    assert status == 200 and isinstance(junior, list)
    assert {e["series"] for e in junior} == {"Командный турнир"}  # not the Berserk cup's e13
    status, head = record(client, auth("glavsud"), WARGAME, "boris")
    assert status == 200 and isinstance(head, list)
    assert {e["series"] for e in head} == {"Командный турнир", "Кубок «Берсерк»"}
    # an unknown person is still 404 for the staff of the series
    assert record(client, auth("mladshiy"), WARGAME, "nobody")[0] == 404


def test_person_pages_refuse_other_series(signed_in: SignIn) -> None:
    schet = signed_in("schet")
    for url in (f"/t/{BERSERK}/people/veda", f"/t/{CLAN}/people/veda"):
        page = schet.get(url)
        assert page.status_code == 403, url
        assert "судьи и организаторы" in main_of(page.text).text(), url
    assert schet.get(f"/t/{BERSERK}/people/boris").status_code == 200
    player = signed_in("igrok")
    assert player.get(f"/t/{BERSERK}/people/alisa").status_code == 200
    other = player.get(f"/t/{BERSERK}/people/boris")
    assert other.status_code == 403
    assert "Игроку видна только своя история" in main_of(other.text).text()
