"""A write that waits longer than SUDYA_WRITE_TIMEOUT for its series' turn is refused with
503 and Retry-After (`ledger.busy`), on the API and on the pages, and records nothing. The
test holds the series' turn itself, as tests/db/test_ledger_write_locks.py does."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi import FastAPI
from fastapi.testclient import TestClient
from web_testkit import form_fields, main_of, record_form

from sudya.app import demo
from sudya.app.ledger import Ledger
from sudya.edges.web.app import BUSY_RETRY_AFTER

API = "/api/v1"
BERSERK = 1
SignIn = Callable[[str], TestClient]


def infractions(ledger: Ledger) -> int:
    with ledger.db.connect() as conn:
        return int(conn.scalar(sa.text("SELECT count(*) FROM event WHERE kind = 'infraction'"))
                   or 0)


@contextmanager
def holding(ledger: Ledger) -> Iterator[None]:
    """The Berserk series' turn held by someone else; writes wait at most 0.05 s for it."""
    with ledger.factory() as s:
        sid = s.scalar(sa.text("SELECT series_id FROM tournament WHERE id = :t"),
                       {"t": BERSERK})
    patient = ledger.write_timeout
    ledger.write_timeout = 0.05
    turn = ledger.projection.locks(int(sid)).turn
    assert turn.acquire(1)
    try:
        yield
    finally:
        turn.release()
        ledger.write_timeout = patient


@pytest.fixture
def held(ledger: Ledger) -> Iterator[None]:
    with holding(ledger):
        yield


@pytest.mark.postgresql
def test_the_api_answers_503_with_retry_after(client: TestClient, ledger: Ledger) -> None:
    token = client.post(f"{API}/login", json={"username": "sudya", "password": demo.PASSWORD}
                        ).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    body: dict[str, Any] = {"infraction": "gameplay.slow-play", "player": "dasha",
                            "round": 2, "idempotency_key": "busy-1"}
    before = infractions(ledger)
    with holding(ledger):
        r = client.post(f"{API}/tournaments/{BERSERK}/infractions", json=body, headers=auth)
    assert r.status_code == 503 and r.headers["retry-after"] == str(BUSY_RETRY_AFTER)
    [item] = r.json()["detail"]
    assert item["type"] == "ledger.busy" and item["params"] == {"seconds": 0.05}
    assert "ничего не записано" in item["msg"]
    assert infractions(ledger) == before
    # sent again once the queue moves: recorded once
    r = client.post(f"{API}/tournaments/{BERSERK}/infractions", json=body, headers=auth)
    assert r.status_code == 200, r.text
    assert infractions(ledger) == before + 1


def test_api_writes_queued_too_long_behind_a_long_write_are_refused(
        app: FastAPI, client: TestClient, ledger: Ledger) -> None:
    """Several judges' writes of one series sent while a long write of the series holds its
    turn: each that waited longer than the write timeout is refused as the turn refuses one
    (503 with Retry-After, nothing recorded); sent again once the turn is free, each is
    recorded once."""
    token = client.post(f"{API}/login", json={"username": "sudya", "password": demo.PASSWORD}
                        ).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    path = f"{API}/tournaments/{BERSERK}/infractions"
    bodies = [{"infraction": "gameplay.slow-play", "player": player, "round": 2,
               "idempotency_key": f"queued-{player}"} for player in ("dasha", "vera", "gleb")]
    assert client.post(path, headers=auth, json={**bodies[0], "idempotency_key": "warm"}
                       ).status_code == 200  # the series' engine is warm: only the turn waits
    before = infractions(ledger)

    def send(body: dict[str, Any]) -> Any:
        with TestClient(app) as own:  # a client each: the requests wait at once
            return own.post(path, headers=auth, json=body)

    with holding(ledger), ThreadPoolExecutor(len(bodies)) as pool:
        answers = list(pool.map(send, bodies))
    for r in answers:
        assert r.status_code == 503 and r.headers["retry-after"] == str(BUSY_RETRY_AFTER)
        assert r.json()["detail"][0]["type"] == "ledger.busy"
    assert infractions(ledger) == before
    for body in bodies:
        assert client.post(path, headers=auth, json=body).status_code == 200
    assert infractions(ledger) == before + len(bodies)


def test_the_record_form_answers_503_keeping_the_form(signed_in: SignIn, ledger: Ledger,
                                                      held: None) -> None:
    judge = signed_in("sudya")
    # the form opens previewed (a preview waits for no turn): what the confirm button sends
    form = {**record_form(judge, f"/t/{BERSERK}/record?infraction=gameplay.slow-play"
                                 "&player=dasha"), "key": "busy-form-1"}
    before = infractions(ledger)
    for headers in ({}, {"HX-Request": "true"}):  # a plain form and htmx
        page = judge.post(f"/t/{BERSERK}/record/confirm", data=form, headers=headers,
                          follow_redirects=False)
        assert page.status_code == 503
        assert page.headers["retry-after"] == str(BUSY_RETRY_AFTER)
        shown = main_of(page.text if not headers else f"<main>{page.text}</main>")
        # the message beside the confirm button, the form filled and previewed as it was, with
        # the same key and token: it can be sent again as it is
        assert "журнал занят" in shown.one("p", id="confirm-error").text()
        again = form_fields(shown.one("form", cls="record-form"))
        assert again["key"] == "busy-form-1"
        assert again["preview_token"] == form["preview_token"]
        assert again["player"] == "dasha"
    assert infractions(ledger) == before


def test_a_form_waiting_for_its_turn_holds_up_no_other_request(signed_in: SignIn,
                                                                 ledger: Ledger) -> None:
    """The record form's endpoint waits for the series' turn in the thread pool, not on the
    event loop: while one judge's ruling waits, the same server still answers another page
    (the client is one: its requests share one event loop), and the ruling is recorded once
    the turn comes."""
    judge = signed_in("sudya")
    form = {**record_form(judge, f"/t/{BERSERK}/record?infraction=gameplay.slow-play"
                                 "&player=dasha"), "key": "wait-form-1"}
    with ledger.factory() as s:
        sid = s.scalar(sa.text("SELECT series_id FROM tournament WHERE id = :t"),
                       {"t": BERSERK})
    turn = ledger.projection.locks(int(sid)).turn
    before = infractions(ledger)
    assert turn.acquire(1)
    with ThreadPoolExecutor(1) as pool:
        try:
            waiting = pool.submit(judge.post, f"/t/{BERSERK}/record/confirm", data=form,
                                  follow_redirects=False)
            deadline = time.monotonic() + 20
            while not turn._waiting and time.monotonic() < deadline:
                time.sleep(0.01)
            assert turn._waiting, "the confirmed form never queued for the series' turn"
            other = judge.get(f"/t/{BERSERK}/standings")
            assert other.status_code == 200
            assert not waiting.done(), "the page was answered only after the waiting write"
        finally:
            turn.release()
        done = waiting.result(timeout=30)
    assert done.status_code == 303, done.text
    assert infractions(ledger) == before + 1
