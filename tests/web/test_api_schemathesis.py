"""Property tests of the JSON API from its own OpenAPI schema (schemathesis, in-process).

Every operation gets generated requests, signed in as the demo's head judge (organiser
everywhere): no input may give a 5xx, and every response must match the schema.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings

from sudya.app import demo
from sudya.app.accounts import Throttle
from sudya.app.settings import Settings
from sudya.edges.web.app import create_app

# schemathesis.pytest.from_fixture (a lazy schema) fails on pytest 9 (`Function._nodeid`),
# so the app and its database are built when the module is collected
_folder = tempfile.TemporaryDirectory(prefix="sudya-schemathesis-")
_db = Path(_folder.name) / "demo.db"
demo.build(_db).dispose()
app = create_app(Settings(database_url=f"sqlite:///{_db}", secret="test"))
# every generated login fails from the one test client's address; the back-off it earns
# would refuse the head judge's own logins below (tests/web/test_login_throttle.py tests it)
app.state.throttle = Throttle(free=1_000_000)
schema = schemathesis.openapi.from_asgi("/api/v1/openapi.json", app)
# A JSON schema cannot say which players, events or scenarios exist: a well-formed request
# about an unknown player or a wrong scenario is refused with 422 naming the field, as the
# API documents. Everything else about positive data stays checked.
_accepted = schema.config.checks.positive_data_acceptance
_accepted.expected_statuses = [*_accepted.expected_statuses, "422"]


def _login(username: str) -> str:
    with TestClient(app) as client:
        r = client.post("/api/v1/login", json={"username": username,
                                               "password": demo.PASSWORD})
        assert r.status_code == 200, r.text
        return str(r.json()["token"])


TOKEN = _login("glavsud")


@schema.parametrize()
@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
def test_api(case: Any) -> None:
    # logging out ends the session it is sent with: give it one of its own
    token = _login("glavsud") if case.path == "/api/v1/logout" else TOKEN
    case.call_and_validate(headers={"Authorization": f"Bearer {token}"})
