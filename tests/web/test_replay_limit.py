"""POST /api/v1/replay is public: a scenario replayed without signing in holds at most
SUDYA_REPLAY_EVENTS_ANONYMOUS events, signed in SUDYA_REPLAY_EVENTS_SIGNED_IN; more is 413
naming the field `events` and the limit."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from sudya.app import demo
from sudya.app.settings import Settings
from sudya.domain.errors import SudyaError
from sudya.edges.web.app import create_app

API = "/api/v1"


def scenario(n: int) -> dict[str, Any]:
    """A Berserk scenario of n minor procedure errors, one a round."""
    return {"rulebook": "berserk", "level": "professional", "date": "2026-03-01",
            "judges": {"oleg": {"role": "floor-judge"}}, "players": ["p1", "p2"],
            "events": [{"id": f"e{i}", "infraction": "procedure.minor", "player": "p1",
                        "judge": "oleg", "round": i} for i in range(1, n + 1)]}


@pytest.fixture
def small(database_url: str) -> Iterator[TestClient]:
    """The app with limits of 5 events (anonymous) and 8 (signed in)."""
    app = create_app(Settings(database_url=database_url, secret="test-secret",
                              replay_events_anonymous=5, replay_events_signed_in=8))
    with TestClient(app) as client:
        yield client
    app.state.ledger.db.dispose()


def test_the_limits_by_default() -> None:
    settings = Settings()
    assert (settings.replay_events_anonymous, settings.replay_events_signed_in) == (
        2000, 100_000)


def test_an_anonymous_replay_over_the_limit_is_413_naming_events(small: TestClient) -> None:
    assert small.post(f"{API}/replay", json=scenario(5)).status_code == 200
    r = small.post(f"{API}/replay", json=scenario(6))
    assert r.status_code == 413
    [item] = r.json()["detail"]
    assert item["loc"] == ["body", "events"]
    assert item["type"] == "replay.too-many-events-anonymous"
    assert item["params"] == {"count": 6, "limit": 5, "signed_in": 8}
    assert item["msg"] == ("events: событий в сценарии: 6, а без входа разбирается не больше 5 "
                           "(после входа — до 8)")


def test_a_signed_in_caller_replays_more(small: TestClient) -> None:
    token = small.post(f"{API}/login", json={"username": "sudya",
                                             "password": demo.PASSWORD}).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    r = small.post(f"{API}/replay", json=scenario(8), headers=auth)
    assert r.status_code == 200 and len(r.json()["rulings"]) == 8
    r = small.post(f"{API}/replay", json=scenario(9), headers=auth)
    assert r.status_code == 413
    [item] = r.json()["detail"]
    assert (item["loc"], item["type"], item["params"]) == (
        ["body", "events"], "replay.too-many-events", {"count": 9, "limit": 8})


def test_the_refusal_reads_in_russian() -> None:
    error = SudyaError("replay.too-many-events-anonymous", field="events", count=2001,
                       limit=2000, signed_in=100_000)
    assert error.render("ru") == ("events: событий в сценарии: 2001, а без входа разбирается "
                                  "не больше 2000 (после входа — до 100000)")


def test_a_wrong_scenario_is_still_the_contracts_422(small: TestClient) -> None:
    r = small.post(f"{API}/replay", json={**scenario(1), "events": "many"})
    assert r.status_code == 422 and isinstance(r.json()["detail"], str)
