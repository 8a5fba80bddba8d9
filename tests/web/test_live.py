"""The live event stream (GET /api/v1/tournaments/{tid}/events) and the offline shell (/sw.js).

The stream never ends, so these tests serve the app with a real uvicorn on 127.0.0.1 (in a
thread) and read it with httpx; TestClient waits for a response's end. A second Ledger over
the same database stands for another `sudya serve` worker: what it writes reaches the stream
through the hub's catch-up by the series' marks, not through this process's feed.
"""

from __future__ import annotations

import contextlib
import queue
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import orjson
import pytest
import uvicorn
from fastapi import FastAPI
from fastapi.testclient import TestClient

from sudya.adapters.db.session import make_engine
from sudya.app.appeals import file_appeal
from sudya.app.demo import PASSWORD
from sudya.app.ledger import Actor, Ledger

BERSERK, CLAN = 1, 2  # demo tournaments
WAIT = 5.0  # seconds a change may take to arrive (the promise is about 2)


@pytest.fixture
def server(app: FastAPI) -> Iterator[str]:
    """The app on a free port of 127.0.0.1; stopped after the test."""
    app.state.live.heartbeat = 0.3  # so that a quiet stream still shows it is alive
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                            timeout_graceful_shutdown=1, lifespan="off")
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not running.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    running.should_exit = True
    thread.join(timeout=10)


def token(url: str, username: str) -> str:
    r = httpx.post(f"{url}/api/v1/login", json={"username": username, "password": PASSWORD})
    assert r.status_code == 200, r.text
    value: str = r.json()["token"]
    return value


class Stream:
    """An open event stream read in a thread: its lines land in a queue."""

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        self.status: int | None = None
        self.headers: httpx.Headers | None = None
        self.error: Exception | None = None
        self._opened = threading.Event()
        self._client = httpx.Client(timeout=httpx.Timeout(10, read=None))
        self._thread = threading.Thread(target=self._read, args=(url, headers), daemon=True)
        self._thread.start()
        assert self._opened.wait(10), "the stream did not answer"

    def _read(self, url: str, headers: dict[str, str]) -> None:
        try:
            with self._client.stream("GET", url, headers=headers) as r:
                self.status, self.headers = r.status_code, r.headers
                self._opened.set()
                for line in r.iter_lines():
                    self.lines.put(line)
        except (httpx.HTTPError, RuntimeError) as exc:  # closed here, or cut by the server
            self.error = exc
        finally:
            self._opened.set()

    def changes(self, n: int = 1, wait: float = WAIT) -> list[tuple[str, dict[str, Any]]]:
        """The next `n` changes (their `id:` and their data), within `wait` seconds."""
        found: list[tuple[str, dict[str, Any]]] = []
        last_id = ""
        deadline = time.monotonic() + wait
        while len(found) < n:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"{len(found)} of {n} changes in {wait} s") from None
            if line.startswith("id: "):
                last_id = line[4:]
            elif line.startswith("data: "):
                found.append((last_id, orjson.loads(line[6:])))
        return found

    def quiet(self, wait: float) -> list[str]:
        """Every data line that comes within `wait` seconds (none expected)."""
        seen: list[str] = []
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line.startswith("data: "):
                seen.append(line)
        return seen

    def close(self) -> None:
        self._client.close()
        self._thread.join(timeout=5)


@contextmanager
def stream(url: str, tid: int, bearer: str | None = None, **headers: str) -> Iterator[Stream]:
    sent = {"Accept": "text/event-stream", **headers}
    if bearer:
        sent["Authorization"] = f"Bearer {bearer}"
    s = Stream(f"{url}/api/v1/tournaments/{tid}/events", sent)
    try:
        yield s
    finally:
        s.close()


def record(url: str, bearer: str, player: str, key: str | None = None) -> str:
    r = httpx.post(f"{url}/api/v1/tournaments/{BERSERK}/infractions",
                   headers={"Authorization": f"Bearer {bearer}"},
                   json={"infraction": "gameplay.slow-play", "player": player, "round": 2,
                         **({"idempotency_key": key} if key else {})})
    assert r.status_code == 200, r.text
    event: str = r.json()["event"]
    return event


def first_id(s: Stream) -> str:
    """The cursor the stream starts with (an `id:` before any change)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        line = s.lines.get(timeout=WAIT)
        if line.startswith("id: "):
            return line[4:]
    raise AssertionError("no id line")


def until(check: Callable[[], bool], wait: float = WAIT) -> None:
    deadline = time.monotonic() + wait
    while not check():
        assert time.monotonic() < deadline, "not within the time"
        time.sleep(0.02)


# ---------------------------------------------------------------------- the stream
@pytest.mark.postgresql
def test_a_ruling_recorded_through_the_api_comes_as_one_data_line(server: str,
                                                                   app: FastAPI) -> None:
    judge = token(server, "sudya")
    with stream(server, BERSERK, judge) as s:
        assert s.status == 200
        assert s.headers is not None
        assert s.headers["content-type"].startswith("text/event-stream")
        assert s.headers["cache-control"].startswith("no-cache")
        first_id(s)
        started = time.monotonic()
        event = record(server, judge, "dasha")
        ((cursor, data),) = s.changes(1)
        assert time.monotonic() - started < 2.5
        assert data["kind"] == "infraction"
        assert data["event"] == event
        assert data["tournament"] == BERSERK
        assert cursor == f"{data['seq']}-0"
        # nothing else: one line per change, and no other tournament's
        record_clan = httpx.post(
            f"{server}/api/v1/tournaments/{CLAN}/infractions",
            headers={"Authorization": f"Bearer {token(server, 'master')}"},
            json={"infraction": "elixirs.forbidden-combat", "player": "grom", "round": 3})
        assert record_clan.status_code == 200, record_clan.text
        assert s.quiet(1.5) == []


def test_a_quiet_stream_sends_heartbeat_comments(server: str) -> None:
    with stream(server, BERSERK, token(server, "sudya")) as s:
        deadline = time.monotonic() + WAIT
        while s.lines.get(timeout=WAIT) != ": ping":
            assert time.monotonic() < deadline


def test_the_pages_rule_decides_who_listens(server: str) -> None:
    def status(tid: int, **headers: str) -> int:
        r = httpx.get(f"{server}/api/v1/tournaments/{tid}/events", headers=headers,
                      timeout=5)
        return r.status_code

    assert status(BERSERK) == 401  # not signed in
    assert status(BERSERK, Authorization="Bearer not-a-token") == 401
    # sudya judges the berserk tournament and the wargame one, not the clan championship
    assert status(CLAN, Authorization=f"Bearer {token(server, 'sudya')}") == 403
    assert status(999, Authorization=f"Bearer {token(server, 'sudya')}") == 404
    # a player has a role (the dashboard shows them their own record): they may listen
    with stream(server, BERSERK, token(server, "igrok")) as s:
        assert s.status == 200


def test_the_cookie_session_of_the_pages_opens_the_stream(server: str) -> None:
    with httpx.Client(base_url=server) as browser:
        form = browser.get("/login").text
        found = re.search(r'name="csrf" value="([^"]+)"', form)
        assert found is not None  # the login form's own token (login CSRF)
        r = browser.post("/login", data={"username": "sudya", "password": PASSWORD,
                                         "next": "/tournaments", "csrf": found.group(1)})
        assert r.status_code in (200, 303), r.text
        cookie = "; ".join(f"{k}={v}" for k, v in browser.cookies.items())
    with stream(server, BERSERK, Cookie=cookie) as s:
        assert s.status == 200


def test_last_event_id_resumes_after_what_the_browser_saw(server: str) -> None:
    judge = token(server, "sudya")
    with stream(server, BERSERK, judge) as s:
        start = first_id(s)
        first = record(server, judge, "alisa")
        ((seen, _data),) = s.changes(1)
    # the connection drops; meanwhile two more rulings are recorded
    missed = [record(server, judge, "boris"), record(server, judge, "vera")]
    with stream(server, BERSERK, judge, **{"Last-Event-ID": seen}) as s:
        got = s.changes(2)
        assert [d["event"] for _i, d in got] == missed
        assert [i for i, _d in got] == [f"{d['seq']}-0" for _i, d in got]
        assert s.quiet(1.0) == []  # nothing twice
    # from the very start of the first stream: all three; a bare SEQ is understood too
    with stream(server, BERSERK, judge, **{"Last-Event-ID": start.split("-")[0]}) as s:
        assert [d["event"] for _i, d in s.changes(3)] == [first, *missed]


def test_an_idempotent_retry_is_no_change(server: str) -> None:
    judge = token(server, "sudya")
    with stream(server, BERSERK, judge) as s:
        first_id(s)
        event = record(server, judge, "gleb", key="retry-once-1")
        assert record(server, judge, "gleb", key="retry-once-1") == event
        assert [d["event"] for _i, d in s.changes(1)] == [event]
        assert s.quiet(1.5) == []


@pytest.mark.postgresql
def test_another_process_s_writes_arrive_through_the_marks(server: str, app: FastAPI,
                                                           database_url: str) -> None:
    """A write by another process (here: a second Ledger on the same database, whose feed
    nobody here listens to) reaches the stream within about two seconds, and so does an appeal
    filed there; no query per listener: one per series and poll."""
    other = Ledger(make_engine(database_url))
    try:
        judge = token(server, "sudya")
        with stream(server, BERSERK, judge) as a, stream(server, BERSERK, judge) as b:
            first_id(a)
            first_id(b)
            other.record(tournament=BERSERK, infraction="gameplay.slow-play", player="egor",
                         judge="sudya", round=2, actor=Actor(name="sudya"))
            started = time.monotonic()  # from the commit (the other ledger's cold start is not
            # the feed's delay)
            (_ida, da), = a.changes(1)
            (_idb, db), = b.changes(1)
            assert time.monotonic() - started < 2.5
            assert da == db and da["kind"] == "infraction" and da["tournament"] == BERSERK
            request = file_appeal(other, tournament=BERSERK, event=da["event"],
                                  appellant="egor", actor=Actor(name="glavsud"))
            ((cursor, appeal),) = a.changes(1)
            assert appeal == {"kind": "appeal-request", "event": da["event"],
                              "tournament": BERSERK, "appeal": request, "of": da["event"]}
            assert cursor == f"{da['seq']}-{request}"
            assert len(app.state.live.hubs) == 1  # both listeners share one series hub
    finally:
        other.db.dispose()


def test_an_appeal_filed_and_decided_here(server: str, app: FastAPI) -> None:
    ledger: Ledger = app.state.ledger
    head = token(server, "glavsud")
    with stream(server, BERSERK, head) as s:
        first_id(s)
        event = record(server, token(server, "sudya"), "dasha")  # a floor judge's: appealable
        s.changes(1)
        file_appeal(ledger, tournament=BERSERK, event=event, appellant="dasha")
        ((_i, filed),) = s.changes(1)
        assert filed["kind"] == "appeal-request" and filed["of"] == event
        r = httpx.post(f"{server}/api/v1/tournaments/{BERSERK}/appeals",
                       headers={"Authorization": f"Bearer {head}"},
                       json={"of": event, "outcome": "upheld"})
        assert r.status_code == 200, r.text
        ((_i, decided),) = s.changes(1)
        assert decided["kind"] == "appeal" and decided["of"] == event


def test_a_rolled_back_write_is_never_told(server: str, app: FastAPI) -> None:
    judge = token(server, "sudya")
    with stream(server, BERSERK, judge) as s:
        first_id(s)
        r = httpx.post(f"{server}/api/v1/tournaments/{BERSERK}/infractions",
                       headers={"Authorization": f"Bearer {judge}"},
                       json={"infraction": "no.such-infraction", "player": "alisa"})
        assert r.status_code == 422
        assert s.quiet(1.5) == []


@pytest.mark.postgresql
def test_no_connection_is_held_while_streams_wait(server: str, app: FastAPI) -> None:
    judge = token(server, "sudya")
    pool = app.state.ledger.db.pool
    with stream(server, BERSERK, judge) as a, stream(server, BERSERK, judge) as b:
        first_id(a)
        first_id(b)
        time.sleep(1.5)  # a poll of the marks or two
        assert pool.checkedout() == 0
        record(server, judge, "boris")
        a.changes(1)
        b.changes(1)
        until(lambda: pool.checkedout() == 0)


def test_listeners_are_bounded_and_a_gone_client_is_dropped(server: str,
                                                            app: FastAPI) -> None:
    live = app.state.live
    live.max_listeners = 2
    judge = token(server, "sudya")
    with stream(server, BERSERK, judge) as a, stream(server, BERSERK, judge) as b:
        first_id(a)
        first_id(b)
        assert live.count == 2
        refused = httpx.get(f"{server}/api/v1/tournaments/{BERSERK}/events",
                            headers={"Authorization": f"Bearer {judge}"}, timeout=5)
        assert refused.status_code == 503
        assert refused.headers["retry-after"] == "5"
    until(lambda: live.count == 0)  # both clients went away: dropped, the hub with them
    assert live.hubs == {}
    with stream(server, BERSERK, judge) as again:
        assert again.status == 200


def test_a_stream_ends_after_its_age_and_the_browser_may_resume(server: str,
                                                                app: FastAPI) -> None:
    app.state.live.max_age = 0.5
    with stream(server, BERSERK, token(server, "sudya")) as s:
        lines: list[str] = []
        deadline = time.monotonic() + WAIT
        while not any(x.startswith("retry: ") for x in lines):
            lines.append(s.lines.get(timeout=WAIT))
            assert time.monotonic() < deadline
        s._thread.join(timeout=WAIT)  # the server ended the response
        assert not s._thread.is_alive()


# ---------------------------------------------------------------------- the pages
def test_the_live_pages_listen_and_fall_back_to_polling(
        signed_in: Callable[[str], TestClient]) -> None:
    client = signed_in("glavsud")
    for url, name, part in ((f"/t/{BERSERK}", "dashboard", f"/t/{BERSERK}/live/work"),
                            (f"/t/{BERSERK}/pending", "pending", None),
                            (f"/t/{BERSERK}/appeals", "appeals", None)):
        page = client.get(url)
        assert page.status_code == 200
        assert f'sse-connect="/api/v1/tournaments/{BERSERK}/events"' in page.text
        assert f'id="live-{name}" data-live hx-get="{part or url}"' in page.text
        assert 'hx-trigger="sse:change delay:300ms, every 10s, live:refresh"' in page.text
        assert f'hx-select="#live-{name}"' in page.text
        for script in ("htmx-ext-sse-2.2.4.min.js", "live.js", "outbox.js"):
            stem, suffix = script.rsplit(".", 1)  # linked by its content hash (web/assets.py)
            linked = re.search(rf'<script src="(/static/{re.escape(stem)}\.[0-9a-f]{{10}}'
                               rf'\.{suffix})" defer></script>', page.text)
            assert linked, script
            assert client.get(linked[1]).status_code == 200
    # the dashboard's live part is sent alone: the judge's work, not the tables or the search
    work = client.get(f"/t/{BERSERK}/live/work")
    assert work.status_code == 200 and work.text.lstrip().startswith('<div id="live-dashboard"')
    assert "Последние решения" in work.text and "people-q" not in work.text
    assert "table-card" not in work.text
    outbox = client.get(f"/t/{BERSERK}/record").text
    assert 'data-unsent="не отправлено: {n}"' in outbox
    assert 'data-user="glavsud"' in outbox


def test_the_service_worker_is_served_from_the_root(client: TestClient) -> None:
    r = client.get("/sw.js")
    assert r.status_code == 200
    assert r.headers["service-worker-allowed"] == "/"
    assert r.headers["cache-control"] == "no-cache"
    assert r.headers["content-type"].startswith("text/javascript")
    assert "caches" in r.text


def test_the_answer_names_what_the_server_recorded(
        signed_in: Callable[[str], TestClient], ledger: Ledger) -> None:
    rulings = ledger.record(tournament=BERSERK, infraction="gameplay.slow-play",
                            player="gleb", judge="sudya", round=2)
    client = signed_in("sudya")
    r = client.get(f"/t/{BERSERK}/record/answer/{rulings[0].event}")
    assert r.status_code == 200
    assert "gleb" in r.text and rulings[0].event in r.text
    assert "<html" not in r.text  # a fragment
    assert signed_in("igrok").get(
        f"/t/{BERSERK}/record/answer/{rulings[0].event}").status_code == 403


# ---------------------------------------------------------------------- the real server
def test_sudya_serve_with_two_workers_streams_every_change_and_stops_promptly(
        tmp_path: Any) -> None:
    """`sudya serve --workers 2`: streams land on either worker, a ruling recorded on one
    reaches all of them (the other worker by its catch-up); and a server stopped while phones
    listen exits within its grace (uvicorn would wait for the endless streams for ever)."""
    import os
    import signal
    import subprocess
    import sys

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    log = (tmp_path / "serve.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "sudya", "serve", "--demo", "--db",
         f"sqlite:///{tmp_path / 'demo.db'}", "--workers", "2", "--host", "127.0.0.1",
         "--port", str(port)], stdout=log, stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"}, start_new_session=True)
    streams: list[Stream] = []
    try:
        deadline = time.monotonic() + 120  # a guard: a loaded machine starts it slowly
        while True:
            try:
                if httpx.get(f"{url}/login", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert process.poll() is None and time.monotonic() < deadline, \
                (tmp_path / "serve.log").read_text()
            time.sleep(0.2)
        judge = token(url, "sudya")
        for _ in range(4):
            s = Stream(f"{url}/api/v1/tournaments/{BERSERK}/events",
                       {"Authorization": f"Bearer {judge}"})
            streams.append(s)
            first_id(s)
        event = record(url, judge, "vera")
        for s in streams:
            assert [d["event"] for _i, d in s.changes(1, wait=3.0)] == [event]
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=20)
        assert time.monotonic() - started < 10
    finally:
        for s in streams:
            s.close()
        # the server and its two workers are one process group: none outlives the test
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        log.close()
