"""Login throttling: per username and per address, a back-off (1, 2, 4 … s, at most 60 s)
after three failures of a username (twenty of an address), never a lock of minutes. The
counts are in the database; the clock is the test's: nothing sleeps."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select
from web_testkit import csrf_of

from sudya.adapters.db import models as m
from sudya.app.accounts import AuthError, Throttle
from sudya.app.demo import PASSWORD
from sudya.app.ledger import Ledger

API = "/api/v1"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


# ---------------------------------------------------------------------- the throttle alone
def attempt(ledger: Ledger, throttle: Throttle, *keys: str) -> None:
    """Count one attempt of these keys, as a login does before its password's hash."""
    with ledger.uow().begin() as s:
        throttle.attempt(s, *keys)


def test_three_failures_are_free_then_the_wait_doubles_up_to_the_cap(ledger: Ledger) -> None:
    clock = Clock()
    throttle = Throttle(clock=clock)
    waits = []
    for _ in range(12):
        attempt(ledger, throttle, "user:k")  # never refused when the wait is over
        waits.append(throttle.waiting(ledger, "user:k"))
        clock.now += waits[-1]
    assert waits == [0, 0, 1, 2, 4, 8, 16, 32, 60, 60, 60, 60]


def test_an_address_has_more_free_failures_than_a_username(ledger: Ledger) -> None:
    """A venue's judges share one address behind its Wi-Fi: a few typos each are not a spray."""
    clock = Clock()
    throttle = Throttle(clock=clock, address_free=20)
    for _ in range(19):
        attempt(ledger, throttle, "address:x")
    assert throttle.waiting(ledger, "address:x") == 0
    attempt(ledger, throttle, "address:x")
    assert throttle.waiting(ledger, "address:x") == 1


def test_a_waiting_key_is_refused_with_the_seconds_left_and_nothing_counted(
        ledger: Ledger) -> None:
    clock = Clock()
    throttle = Throttle(clock=clock)
    for _ in range(5):
        clock.now += throttle.waiting(ledger, "user:k")
        attempt(ledger, throttle, "user:k")
    clock.now += 1.5  # 5 failures: 4 s from the last
    with pytest.raises(AuthError) as info:
        attempt(ledger, throttle, "user:k", "user:other")
    assert (info.value.status, info.value.code, info.value.retry_after) == (
        429, "login.throttled", 3)
    assert info.value.params == {"seconds": 3}
    assert info.value.render("ru").endswith("подождите 3 с и попробуйте снова")
    attempt(ledger, throttle, "user:other")  # another key is not held up
    assert throttle.waiting(ledger, "user:other") == 0  # the refused attempt was not counted
    clock.now += 2.5
    attempt(ledger, throttle, "user:k")


def test_success_clears_the_username_and_quiet_keys_are_forgotten(ledger: Ledger) -> None:
    clock = Clock()
    throttle = Throttle(clock=clock, forget=900, address_free=3)
    for _ in range(5):
        clock.now += throttle.waiting(ledger, "user:a", "address:x")
        attempt(ledger, throttle, "user:a", "address:x")
    with ledger.uow().begin() as s:
        throttle.succeeded_in(s, "user:a", "address:x")
    assert throttle.waiting(ledger, "user:a") == 0
    assert throttle.waiting(ledger, "address:x") == 2  # four failures, the success given back
    clock.now += 901
    assert throttle.waiting(ledger, "address:x") == 0
    attempt(ledger, throttle, "address:y")  # the quiet keys' rows go as others are counted
    with ledger.factory() as s:
        assert s.scalars(select(m.LoginFailure.key)).all() == ["address:y"]


def test_the_throttle_counts_every_attempt_from_many_threads(ledger: Ledger) -> None:
    clock = Clock()
    throttle = Throttle(clock=clock, free=200, address_free=200)
    start = threading.Barrier(8)

    def fail() -> None:
        start.wait()
        for _ in range(25):
            attempt(ledger, throttle, "user:k")

    threads = [threading.Thread(target=fail) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with ledger.factory() as s:
        assert s.scalar(select(m.LoginFailure.failures)) == 200
    assert throttle.waiting(ledger, "user:k") == 1  # the 200th is the first that costs a wait


# ---------------------------------------------------------------------- through the app
@pytest.fixture
def clock(app: FastAPI) -> Clock:
    c = Clock()
    app.state.throttle = Throttle(clock=c)
    return c


@pytest.fixture
def from_address(app: FastAPI) -> Iterator[Callable[[str], TestClient]]:
    """A client whose requests come from one address."""
    clients: list[TestClient] = []

    def make(address: str) -> TestClient:
        c = TestClient(app, client=(address, 40000))
        c.__enter__()
        clients.append(c)
        return c

    yield make
    for c in clients:
        c.__exit__(None, None, None)


def api_login(c: TestClient, username: str, password: str) -> int:
    return c.post(f"{API}/login", json={"username": username, "password": password}
                  ).status_code


def test_the_api_answers_429_with_retry_after_and_lets_the_user_in_after_it(
        clock: Clock, from_address: Callable[[str], TestClient]) -> None:
    c = from_address("10.0.0.1")
    assert [api_login(c, "glavsud", "wrong-wrong") for _ in range(3)] == [401] * 3
    r = c.post(f"{API}/login", json={"username": "glavsud", "password": PASSWORD})
    assert r.status_code == 429 and r.headers["retry-after"] == "1"
    [item] = r.json()["detail"]
    assert item["type"] == "login.throttled" and item["params"] == {"seconds": 1}
    assert item["msg"] == "слишком много неудачных попыток входа: подождите 1 с и попробуйте снова"
    clock.now += 1
    assert api_login(c, "glavsud", PASSWORD) == 200


def test_the_login_page_says_how_long_to_wait(clock: Clock,
                                             from_address: Callable[[str], TestClient]
                                             ) -> None:
    c = from_address("10.0.0.1")
    for _ in range(4):
        c.post("/login", data={"username": "glavsud", "password": "wrong-wrong",
                               "csrf": csrf_of(c, "/login")})
        clock.now += 1
    page = c.post("/login", data={"username": "glavsud", "password": PASSWORD,
                                  "csrf": csrf_of(c, "/login")}, follow_redirects=False)
    assert page.status_code == 429 and page.headers["retry-after"] == "1"
    assert "подождите 1 с и попробуйте снова" in page.text


def test_a_username_spray_from_one_address_is_slowed_and_the_real_user_is_not(
        clock: Clock, from_address: Callable[[str], TestClient]) -> None:
    spray = from_address("203.0.113.9")
    codes = [api_login(spray, f"guess{i}", "password1") for i in range(23)]
    assert codes == [401] * 20 + [429] * 3  # a new username each time
    # the real users sign in from their own phones meanwhile
    assert api_login(from_address("10.0.0.2"), "glavsud", PASSWORD) == 200
    assert api_login(from_address("10.0.0.3"), "guess5", "anything") == 401


def test_a_user_attacked_from_many_addresses_waits_at_most_a_minute(
        clock: Clock, from_address: Callable[[str], TestClient]) -> None:
    for i in range(40):  # a botnet, a new address for each guess, as fast as it may
        c = from_address(f"198.51.100.{i}")
        if api_login(c, "sudya", "guess-guess") == 429:
            clock.now += 60
            assert api_login(c, "sudya", "guess-guess") == 401
    real = from_address("10.0.0.4")
    r = real.post(f"{API}/login", json={"username": "sudya", "password": PASSWORD})
    assert r.status_code == 429 and int(r.headers["retry-after"]) <= 60
    clock.now += 60
    assert api_login(real, "sudya", PASSWORD) == 200


# ---------------------------------------------------------------------- login CSRF
def test_a_login_posted_without_the_forms_token_is_refused_and_not_counted(
        ledger: Ledger, from_address: Callable[[str], TestClient]) -> None:
    """Another site's page cannot sign a judge's browser in as its own account: the login
    form carries a token bound to a cookie of the browser's own."""
    c = from_address("10.0.0.9")
    page = c.post("/login", data={"username": "glavsud", "password": PASSWORD},
                  follow_redirects=False)
    assert page.status_code == 403 and "sudya_session" not in page.cookies
    assert "Форма устарела" in page.text
    forged = c.post("/login", data={"username": "glavsud", "password": PASSWORD,
                                    "csrf": "x" * 40}, follow_redirects=False)
    assert forged.status_code == 403
    assert Throttle().waiting(ledger, "user:glavsud", "address:10.0.0.9") == 0
    with ledger.factory() as s:
        assert s.scalar(select(m.LoginFailure.failures).where(
            m.LoginFailure.key == "address:10.0.0.9")) is None  # never reached the count
    ok = c.post("/login", data={"username": "glavsud", "password": PASSWORD,
                                "csrf": csrf_of(c, "/login")}, follow_redirects=False)
    assert ok.status_code == 303
