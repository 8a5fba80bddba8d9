"""Every request gives its database connection back when it ends, whatever its answer.

A request's context opens its read session on first use (web.context.Ctx); the
`ClosingContexts` middleware closes it once the response is sent, also when the route failed.
A session left open would keep its connection out of the pool: a venue server would run out
of connections after a pool's worth of such requests.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

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


def test_writes_waiting_for_their_turn_hold_no_connection(
        app: FastAPI, auth: Callable[[str], dict[str, str]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Judges queued behind a long write of their series hold no connection: each request
    reads what it needs (its user, its standing, the command's scope) in sessions given back
    at once, then waits for the series' turn holding none (app.ledger)."""
    ledger = app.state.ledger
    pool = ledger.db.pool
    judge = auth("sudya")
    series = ledger._series_of(BERSERK).id
    turn = ledger.projection.locks(series).turn
    waiting = 6
    sent: list[int] = []  # the writes that reached the ledger (and wait there)
    execute = ledger.execute

    def counted(*args: Any, **kwargs: Any) -> Any:
        sent.append(1)
        return execute(*args, **kwargs)

    monkeypatch.setattr(ledger, "execute", counted)
    assert turn.acquire(5)  # a long write of the series, from the test's thread
    answers: list[int] = []
    try:
        def record(i: int) -> None:
            with TestClient(app) as own:  # a client each: the requests run at once
                answers.append(own.post(
                    f"/api/v1/tournaments/{BERSERK}/infractions", headers=judge,
                    json={"infraction": "procedure.minor", "player": "boris",
                          "idempotency_key": f"queued-{i}"}).status_code)

        threads = [threading.Thread(target=record, args=(i,)) for i in range(waiting)]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 30
        while len(sent) < waiting:
            assert time.monotonic() < deadline, "the requests never reached the ledger"
            time.sleep(0.01)
        # all of them checked and waiting: a connection held while waiting never comes back
        while pool.checkedout() != 0:
            assert time.monotonic() < deadline, "a waiting write holds a connection"
            time.sleep(0.01)
        assert answers == []  # none answered: all of them still waiting for the turn
    finally:
        turn.release()
    for thread in threads:
        thread.join()
    assert answers == [200] * waiting
    assert pool.checkedout() == 0
