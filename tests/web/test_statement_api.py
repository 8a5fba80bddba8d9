"""The API's twins of the statements pages: GET and POST
/api/v1/tournaments/{tid}/events/{event}/statements, and the tournament's disqualifications.
The demo's «Берсерк» (1): glavsud the head judge, sudya a floor judge, igrok the player alisa,
master judges elsewhere; boris is disqualified here («dq-boris»)."""

from __future__ import annotations

from collections.abc import Callable

from fastapi.testclient import TestClient

from sudya.app.ledger import Ledger

Auth = Callable[[str], dict[str, str]]
URL = "/api/v1/tournaments/1/events/dq-boris/statements"


def test_statements_through_the_api(client: TestClient, auth: Auth, ledger: Ledger) -> None:
    ledger.record(tournament=1, infraction="cheating.fraud", player="boris", judge="sudya",
                  event_id="dq-boris")
    [dq] = client.get("/api/v1/tournaments/1/disqualifications", headers=auth("sudya")).json()
    assert (dq["event"], dq["subjects"], dq["status"], dq["statements"]) == (
        "dq-boris", ["boris"], "disqualified", 0)

    body = {"role": "witness", "author": "Глеб Орлов", "text": "Видел рукав.",
            "idempotency_key": "api-1"}
    r = client.post(URL, json=body, headers=auth("sudya"))
    assert r.status_code == 200, r.text
    first = r.json()
    assert (first["role"], first["author"], first["written_by"], first["event"]) == (
        "witness", "Глеб Орлов", "sudya", "dq-boris")
    assert client.post(URL, json=body, headers=auth("sudya")).json() == first  # retried
    head = {"role": "head-judge", "text": "Факты.", "rule_cited": "000 Приложение №2",
            "decision": "Дисквалификация без призов"}
    assert client.post(URL, json=head, headers=auth("glavsud")).status_code == 200
    listed = client.get(URL, headers=auth("glavsud")).json()
    assert [(s["role"], s["author"]) for s in listed] == [("witness", "Глеб Орлов"),
                                                          ("head-judge", "Анна Главная")]
    assert listed[1]["rule_cited"] == "000 Приложение №2"

    # a player's account: in their own name (another's is refused, nothing stored), and sees
    # only their own statements
    theirs = client.post(URL, json={"role": "opponent", "author": "Борис",
                                    "text": "Так и было."}, headers=auth("igrok"))
    assert theirs.status_code == 403
    [item] = theirs.json()["detail"]
    assert (item["type"], item["params"]) == ("access.statement-author", {"author": "alisa"})
    assert len(client.get(URL, headers=auth("glavsud")).json()) == 2
    mine = client.post(URL, json={"role": "opponent", "text": "Так и было."},
                       headers=auth("igrok"))
    assert mine.status_code == 200 and mine.json()["author"] == "alisa"
    assert [s["author"] for s in client.get(URL, headers=auth("igrok")).json()] == ["alisa"]

    # refusals: each a status and the code, naming the field; nothing stored
    refused = [
        ("sudya", head, 403, None),  # the head judge's statement
        ("igrok", {"role": "player", "text": "x"}, 403, None),  # not their disqualification
        ("master", body | {"idempotency_key": None}, 403, None),  # no role here
        ("sudya", {"role": "witness", "author": "Глеб", "text": " "}, 422,
         ("value.required", "text")),
        ("sudya", {"role": "witness", "author": "Глеб", "text": "x" * 4001}, 422,
         ("string_too_long", "text")),
        ("sudya", {"role": "witness", "text": "x"}, 422, ("value.required", "author")),
        ("sudya", {"role": "witness", "author": "Глеб", "text": "x", "decision": "DQ"}, 422,
         ("statement.head-judge-only", "decision")),
        ("glavsud", {"role": "head-judge", "text": "x", "decision": "DQ"}, 422,
         ("value.required", "rule_cited")),
        ("sudya", {"role": "judge", "text": "x"}, 422, ("literal_error", "role")),
        ("sudya", body | {"text": "something else"}, 409, ("key.reused", "idempotency_key")),
    ]
    for user, sent, status, problem in refused:
        r = client.post(URL, json=sent, headers=auth(user))
        assert r.status_code == status, (user, sent, r.text)
        if problem is not None:
            item = r.json()["detail"][0]
            assert (item["type"], item["loc"][-1]) == problem, item
    assert len(client.get(URL, headers=auth("glavsud")).json()) == 3

    ledger.record(tournament=1, infraction="gameplay.slow-play", player="gleb",
                  event_id="e-slow")
    slow = "/api/v1/tournaments/1/events/e-slow/statements"
    r = client.get(slow, headers=auth("sudya"))
    assert r.status_code == 404 and r.json()["detail"][0]["type"] == "statement.not-a-dq"
    r = client.post("/api/v1/tournaments/1/events/nope/statements", json=body,
                    headers=auth("sudya"))
    assert r.status_code == 404 and r.json()["detail"][0]["type"] == "statement.unknown-event"
    assert client.get(URL).status_code == 401
    other = client.request("DELETE", URL, headers=auth("glavsud"))  # append-only
    assert (other.status_code, other.headers["allow"]) == (405, "GET, POST")
