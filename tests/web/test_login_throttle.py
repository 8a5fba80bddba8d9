"""Login throttling: per address and per username, a back-off (1, 2, 4 … s, at most 60 s)
after three failures, never a lock of minutes. The clock is the test's: nothing sleeps."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from sudya.app.accounts import AuthError, Throttle
from sudya.app.demo import PASSWORD

API = "/api/v1"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


# ---------------------------------------------------------------------- the throttle alone
def test_three_failures_are_free_then_the_wait_doubles_up_to_the_cap() -> None:
    clock = Clock()
    throttle = Throttle(clock=clock)
    waits = []
    for _ in range(12):
        throttle.check("k")  # never refused when the wait is over
        throttle.failed("k")
        waits.append(throttle.wait("k"))
        clock.now += waits[-1]
    assert waits == [0, 0, 1, 2, 4, 8, 16, 32, 60, 60, 60, 60]


def test_a_waiting_key_is_refused_with_the_seconds_left() -> None:
    clock = Clock()
    throttle = Throttle(clock=clock)
    for _ in range(5):
        throttle.failed("k")
    clock.now += 1.5  # 5 failures: 4 s from the last
    with pytest.raises(AuthError) as info:
        throttle.check("k", "other")
    assert (info.value.status, info.value.code, info.value.retry_after) == (
        429, "login.throttled", 3)
    assert info.value.params == {"seconds": 3}
    assert info.value.render("ru").endswith("подождите 3 с и попробуйте снова")
    throttle.check("other")  # another key is not held up
    clock.now += 2.5
    throttle.check("k")


def test_success_clears_the_username_and_quiet_keys_are_forgotten() -> None:
    clock = Clock()
    throttle = Throttle(clock=clock, forget=900)
    for _ in range(4):
        throttle.failed("user:a", "address:x")
    throttle.succeeded("user:a")
    assert throttle.wait("user:a") == 0 and throttle.wait("address:x") == 2
    clock.now += 901
    assert throttle.wait("address:x") == 0
    throttle.failed("address:x")
    assert throttle.wait("address:x") == 0  # counted from one again


def test_the_throttle_keeps_at_most_max_keys_the_longest_quiet_go_first() -> None:
    clock = Clock()
    throttle = Throttle(clock=clock, max_keys=100)
    for i in range(1000):
        clock.now += 0.001
        for _ in range(4):
            throttle.failed(f"address:{i}")
    assert len(throttle._failures) == 100
    assert throttle.wait("address:999") > 0 and throttle.wait("address:0") == 0


def test_the_throttle_counts_every_failure_from_many_threads() -> None:
    clock = Clock()
    throttle = Throttle(clock=clock, free=2000, max_keys=10)
    start = threading.Barrier(8)

    def fail() -> None:
        start.wait()
        for _ in range(250):
            throttle.failed("k")

    threads = [threading.Thread(target=fail) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert throttle._failures["k"][0] == 2000
    assert throttle.wait("k") == 1  # the 2000th failure is the first that costs a wait


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
    assert item["msg"] == "too many failed logins: wait 1 s and try again"
    clock.now += 1
    assert api_login(c, "glavsud", PASSWORD) == 200


def test_the_login_page_says_how_long_to_wait(clock: Clock,
                                             from_address: Callable[[str], TestClient]
                                             ) -> None:
    c = from_address("10.0.0.1")
    for _ in range(4):
        c.post("/login", data={"username": "glavsud", "password": "wrong-wrong"})
        clock.now += 1
    page = c.post("/login", data={"username": "glavsud", "password": PASSWORD},
                  follow_redirects=False)
    assert page.status_code == 429 and page.headers["retry-after"] == "1"
    assert "подождите 1 с и попробуйте снова" in page.text


def test_a_username_spray_from_one_address_is_slowed_and_the_real_user_is_not(
        clock: Clock, from_address: Callable[[str], TestClient]) -> None:
    spray = from_address("203.0.113.9")
    codes = [api_login(spray, f"guess{i}", "password1") for i in range(6)]
    assert codes == [401, 401, 401, 429, 429, 429]  # a new username each time
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
