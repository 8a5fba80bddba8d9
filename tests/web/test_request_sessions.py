"""Every request gives its database connection back when it ends, whatever its answer.

A request's context opens its read session on first use (web.context.Ctx); the
`ClosingContexts` middleware closes it once the response is sent, also when the route failed.
A session left open would keep its connection out of the pool: a venue server would run out
of connections after a pool's worth of such requests.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

pytestmark = pytest.mark.postgresql

BERSERK = 1  # the demo's berserk tournament


def test_no_connection_is_left_out_of_the_pool(app: FastAPI, client: TestClient,
                                               auth: Callable[[str], dict[str, str]],
                                               signed_in: Callable[[str], TestClient]) -> None:
    pool = app.state.ledger.db.pool
    judge = auth("sudya")
    api = f"/api/v1/tournaments/{BERSERK}"
    page = signed_in("sudya")
    requests: list[tuple[Callable[[], object], int]] = [
        (lambda: client.post(f"{api}/infractions", headers=judge,
                             json={"infraction": "procedure.minor", "player": "boris"}), 200),
        (lambda: client.post(f"{api}/infractions", headers=judge,  # the ledger refuses
                             json={"infraction": "no.such-infraction", "player": "boris"}),
         422),
        (lambda: client.post(f"{api}/infractions", headers=judge,  # the body refuses
                             json={"infraction": "procedure.minor"}), 422),
        (lambda: client.post(f"{api}/infractions", headers=auth("igrok"),  # a player
                             json={"infraction": "procedure.minor", "player": "boris"}), 403),
        (lambda: client.get(f"{api}/standings", headers=judge), 200),
        (lambda: page.get(f"/t/{BERSERK}"), 200),
        (lambda: page.get("/t/999999"), 404),
        (lambda: client.get(f"/t/{BERSERK}", follow_redirects=False), 303),
    ]
    for send, status in requests:
        answer = send()
        assert getattr(answer, "status_code", None) == status, getattr(answer, "text", "")
        assert pool.checkedout() == 0, f"a connection stayed out after {answer}"
