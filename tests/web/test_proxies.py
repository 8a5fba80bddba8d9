"""X-Forwarded-For is believed only from the proxies named in SUDYA_TRUSTED_PROXIES (none by
default): otherwise a client names its own address to the login throttle and escapes it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from sudya.app.accounts import Throttle
from sudya.app.settings import Settings
from sudya.edges.web.app import create_app

API = "/api/v1"
PYCACHE = Path(tempfile.gettempdir()) / f"sudya-tests-pycache-{os.getuid()}"


def failed_logins(client: TestClient | httpx.Client, n: int) -> list[int]:
    """n failed logins, each for another username and claiming another address."""
    return [client.post(f"{API}/login", json={"username": f"guess{i}", "password": "nope-nope"},
                        headers={"X-Forwarded-For": f"198.51.100.{i}"}).status_code
            for i in range(n)]


def app_client(database_url: str, proxies: list[str]) -> TestClient:
    app = create_app(Settings(database_url=database_url, secret="test-secret",
                              trusted_proxies=proxies))
    # nothing waits out a back-off; an address has as few free failures as a username
    app.state.throttle = Throttle(clock=lambda: 1000.0, address_free=3)
    return TestClient(app, client=("127.0.0.1", 40000))


def test_no_proxy_is_trusted_by_default(database_url: str) -> None:
    assert Settings().trusted_proxies == []
    with app_client(database_url, []) as client:
        assert failed_logins(client, 4) == [401, 401, 401, 429]
        throttle: Throttle = client.app.state.throttle  # type: ignore[attr-defined]
        assert throttle.waiting(client.app.state.ledger, "address:127.0.0.1") > 0
        assert throttle.waiting(client.app.state.ledger, "address:198.51.100.3") == 0


def test_a_trusted_proxy_names_the_client(database_url: str) -> None:
    with app_client(database_url, ["127.0.0.1"]) as client:
        assert failed_logins(client, 4) == [401] * 4
        throttle: Throttle = client.app.state.throttle  # type: ignore[attr-defined]
        assert throttle.waiting(client.app.state.ledger, "address:127.0.0.1") == 0
        # 4 failures counted against the address the proxy named, none against the proxy
        for _ in range(3):
            client.post(f"{API}/login", json={"username": "x", "password": "nope-nope"},
                        headers={"X-Forwarded-For": "203.0.113.7"})
        assert throttle.waiting(client.app.state.ledger, "address:203.0.113.7") > 0


def test_a_proxy_not_named_is_not_believed(database_url: str) -> None:
    with app_client(database_url, ["10.0.0.1"]) as client:
        assert failed_logins(client, 4) == [401, 401, 401, 429]


def test_trusted_proxies_are_read_from_the_environment(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    monkeypatch.setenv("SUDYA_TRUSTED_PROXIES", "127.0.0.1, 10.0.0.0/8,::1")
    assert Settings().trusted_proxies == ["127.0.0.1", "10.0.0.0/8", "::1"]
    monkeypatch.setenv("SUDYA_TRUSTED_PROXIES", "proxy.local")
    with pytest.raises(ValueError, match="not an IP address or network"):
        Settings()


# ---------------------------------------------------------------------- the real server
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def serve(database_url: str) -> Iterator[object]:
    """Start `sudya serve` on the demo copy with an environment; yields its base URL."""
    servers: list[subprocess.Popen[bytes]] = []

    def start(**env_vars: str) -> str:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SUDYA_")}
        env.update({"PYTHONPYCACHEPREFIX": str(PYCACHE), "SUDYA_SECRET": "test", **env_vars})
        port = free_port()
        server = subprocess.Popen([sys.executable, "-m", "sudya", "serve", "--db",
                                   database_url, "--host", "127.0.0.1", "--port", str(port)],
                                  env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, start_new_session=True)
        servers.append(server)
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, "sudya serve ended"
            try:
                if httpx.get(f"{base}{API}/rulebooks", timeout=5).status_code == 200:
                    return base
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "sudya serve did not start"
            time.sleep(0.2)

    yield start
    for server in servers:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, 9)
            server.wait()


def test_sudya_serve_believes_forwarded_for_only_from_the_named_proxies(serve: object
                                                                         ) -> None:
    """uvicorn's own default believes X-Forwarded-For from 127.0.0.1: `sudya serve` turns
    that off, and the app's setting alone decides."""
    start = serve
    assert callable(start)
    free = Throttle().address_free  # an address's free failures, then its back-off
    with httpx.Client(base_url=start(), timeout=30) as client:
        assert failed_logins(client, free + 1) == [401] * free + [429]
    with httpx.Client(base_url=start(SUDYA_TRUSTED_PROXIES="127.0.0.1"), timeout=30) as client:
        assert failed_logins(client, free + 1) == [401] * (free + 1)
