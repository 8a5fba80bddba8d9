"""Hostile requests to the web app and the JSON API: each gets a 4xx naming the problem, never
a 500, and nothing is stored. NaN, 1e999999, 5,000 digits, lone surrogates, NUL, 1,000 levels
of nesting, bodies over the limits, ids no database integer holds, and form fields with
numbers no column holds (`²` passes str.isdigit and fails int).
"""

from __future__ import annotations

import email.message
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select
from web_testkit import csrf_of

from sudya.adapters.db import models as m
from sudya.app.demo import PASSWORD
from sudya.app.ledger import Ledger
from sudya.edges.web.limits import MAX_JSON_BODY, MAX_OTHER_BODY, is_json

API = "/api/v1"
JSON = {"content-type": "application/json"}
BIG_ID = "9223372036854775808"  # 2**63: past every database integer
SignIn = Callable[[str], TestClient]


def events(ledger: Ledger) -> int:
    with ledger.factory() as s:
        return int(s.scalar(select(func.count()).select_from(m.Event)) or 0)


@pytest.fixture
def token(client: TestClient) -> str:
    r = client.post(f"{API}/login", json={"username": "glavsud", "password": PASSWORD})
    assert r.status_code == 200, r.text
    return str(r.json()["token"])


def problems(r: Any) -> list[tuple[list[Any], str]]:
    """(loc, msg) of each item of a 4xx's JSON `detail` list."""
    assert r.headers["content-type"].startswith("application/json"), r.headers
    return [(item["loc"], item["msg"]) for item in r.json()["detail"]]


def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


RECORD = b'{"infraction": "gameplay.slow-play", "player": "alisa", '
# (the body, the loc of the problem, what its msg says)
BODIES: dict[str, tuple[bytes, list[Any], str]] = {
    "nan": (RECORD + b'"round": NaN}', ["body"], "NaN"),
    "infinity": (RECORD + b'"details": {"level": -Infinity}}', ["body"], "Infinity"),
    "1e999999": (RECORD + b'"details": {"level": 1e999999}}', ["body"], "too large"),
    "5000-digits": (RECORD + b'"round": ' + b"7" * 5000 + b"}", ["body"], "too large"),
    "surrogate": (b'{"infraction": "gameplay.slow-play", "player": "\\udc80"}', ["body"],
                  "surrogate"),
    "surrogate-in-details": (RECORD + b'"details": {"card": "\\ud800"}}', ["body"],
                             "surrogate"),
    "nul-in-details": (RECORD + b'"details": {"card": "a\\u0000b"}}',
                       ["body", "details", "card"], "control character"),
    "nul-raw": (RECORD + b'"details": {"card": "a\x00b"}}', ["body"], "control character"),
    "deep-1000": (RECORD + b'"details": {"x": ' + nested(1000) + b"}}",
                  ["body", "details", "x", 0, 0, 0, 0, "..."], "nested too deeply"),
    "deep-100000": (nested(100_000), ["body"], "nested too deeply"),
    "not-utf8": (RECORD + b'"details": {"card": "\xff"}}', ["body"], "not UTF-8"),
    "huge-integer": (RECORD + b'"round": 18446744073709551615}', ["body", "round"],
                     "within"),
}


@pytest.mark.parametrize("case", list(BODIES))
def test_hostile_json_is_422_naming_the_problem_and_stores_nothing(
        case: str, client: TestClient, token: str, ledger: Ledger) -> None:
    body, loc, needle = BODIES[case]
    before = events(ledger)
    r = client.post(f"{API}/tournaments/1/infractions", content=body,
                    headers={**JSON, "Authorization": f"Bearer {token}"})
    assert r.status_code == 422, r.text
    [(where, msg)] = problems(r)
    assert where == loc and needle in msg, (where, msg)
    assert events(ledger) == before


@pytest.mark.parametrize("case", ["nan", "surrogate", "deep-100000", "not-utf8", "nul-raw"])
def test_hostile_json_to_login_is_422_not_500(case: str, client: TestClient) -> None:
    body, _loc, needle = BODIES[case]
    body = body.replace(b'"infraction": "gameplay.slow-play"', b'"username": "glavsud"')
    r = client.post(f"{API}/login", content=body, headers=JSON)
    assert r.status_code == 422, r.text
    assert needle in problems(r)[0][1]


SCENARIO = b'{"rulebook": "berserk", "level": "amateur", "date": "2026-03-01", '
REPLAYS: dict[str, tuple[bytes, str]] = {
    "nan": (SCENARIO + b'"settings": {"x": NaN}}', "NaN and Infinity are not JSON numbers"),
    "1e999999": (SCENARIO + b'"x": 1e999999}', "a number too large to hold"),
    "5000-digits": (SCENARIO + b'"x": ' + b"1" * 5000 + b"}", "a number too large to hold"),
    "surrogate": (SCENARIO + b'"players": ["\\udc80"]}', "surrogate"),
    "nul": (SCENARIO + b'"players": ["a\\u0000b"]}', "players[0]: texts must not hold a "
                                                     "control character (U+0000"),
    "deep-1000": (SCENARIO + b'"events": ' + nested(1000) + b"}",
                  "events[0][0][0][0][0]...: nested too deeply (at most 100 levels)"),
    "deep-100000": (nested(100_000), "nested too deeply"),
    "not-utf8": (SCENARIO + b'"level": "\xff"}', "not UTF-8"),
    "huge-integer": (SCENARIO + b'"edition": 18446744073709551615}', "edition: numbers must "
                                                                      "lie within"),
}


@pytest.mark.parametrize("case", list(REPLAYS))
def test_hostile_replay_is_422_with_the_one_line_message(case: str,
                                                          client: TestClient) -> None:
    body, needle = REPLAYS[case]
    r = client.post(f"{API}/replay", content=body, headers=JSON)
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    assert isinstance(detail, str) and "\n" not in detail and needle in detail, detail


# ---------------------------------------------------------------------- body sizes
def test_a_json_body_over_one_megabyte_is_413(client: TestClient, token: str,
                                              ledger: Ledger) -> None:
    before = events(ledger)
    body = RECORD + b'"details": {"card": "' + b"x" * MAX_JSON_BODY + b'"}}'
    r = client.post(f"{API}/tournaments/1/infractions", content=body,
                    headers={**JSON, "Authorization": f"Bearer {token}"})
    assert r.status_code == 413
    [(loc, msg)] = problems(r)
    assert loc == ["body"] and "too large" in msg and "1,000,000" in msg
    r = client.post(f"{API}/replay", content=body, headers=JSON)
    assert r.status_code == 413 and "too large" in problems(r)[0][1]
    assert events(ledger) == before


def test_a_streamed_body_is_cut_off_at_the_limit(client: TestClient) -> None:
    sent = 0

    def chunks() -> Iterator[bytes]:
        nonlocal sent
        for _ in range(1000):  # 64 MB if nobody stopped reading
            sent += 65536
            yield b" " * 65536

    r = client.post(f"{API}/replay", content=chunks(), headers=JSON)
    assert r.status_code == 413 and "too large" in problems(r)[0][1]


def test_a_form_over_two_megabytes_is_413_and_the_largest_real_form_passes(
        signed_in: SignIn) -> None:
    head = signed_in("glavsud")
    token = csrf_of(head, "/t/1/decks/compare")
    huge = head.post("/t/1/decks/compare", data={"csrf": token, "player": "alisa",
                                                 "decklist": "Гном\n" * 200_000, "deck": ""})
    assert huge.status_code == 413
    assert huge.headers["content-type"].startswith("text/plain")
    assert "2,000,000" in huge.text
    # two lists of 20,000 Cyrillic characters (the most a list may have) are far below it
    text = ("3 Гном\n" * 3000)[:20_000]
    largest = head.post("/t/1/decks/compare", data={"csrf": token, "player": "alisa",
                                                    "decklist": text, "deck": text})
    assert largest.status_code < 400, largest.text[:300]
    assert MAX_OTHER_BODY == 2_000_000


# ---------------------------------------------------------------------- ids and NUL
def test_an_id_no_database_holds_is_4xx(client: TestClient, token: str,
                                        signed_in: SignIn) -> None:
    r = client.get(f"/t/{BIG_ID}/standings")
    assert r.status_code == 404
    r = client.get(f"{API}/tournaments/{BIG_ID}", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 422
    assert [loc for loc, _msg in problems(r)] == [["path", "tid"]]
    r = client.get(f"{API}/tournaments/{BIG_ID}/standings")
    assert 400 <= r.status_code < 500
    head = signed_in("glavsud")
    for url in (f"/t/{BIG_ID}", f"/t/{BIG_ID}/record", f"/t/{BIG_ID}/decks",
                f"/t/{2**31}/pending", f"/t/{'9' * 30}/appeals"):
        assert 400 <= head.get(url).status_code < 500, url
    r = head.get(f"/t/1/decks/check?list={BIG_ID}")
    assert r.status_code == 422


@pytest.mark.postgresql
def test_a_nul_in_a_path_a_query_or_a_form_is_422(client: TestClient, token: str,
                                                  signed_in: SignIn, ledger: Ledger) -> None:
    """PostgreSQL stores no NUL: a query or an insert holding one would fail (a 500)."""
    auth = {"Authorization": f"Bearer {token}"}
    r = client.get(f"{API}/tournaments/1/people/a%00b", headers=auth)
    assert r.status_code == 422 and problems(r)[0][0] == ["path"]
    r = client.get(f"{API}/rulebooks/berserk?edition=%00")
    assert r.status_code == 422 and problems(r)[0][0] == ["query"]
    r = client.get("/t/1/record?player=%00")
    assert r.status_code == 422
    r = client.post("/login", data={"username": "glav\x00sud", "password": PASSWORD})
    assert r.status_code == 422 and "NUL" in r.text
    before = events(ledger)
    head = signed_in("glavsud")
    r = head.post("/t/1/record/confirm", data={
        "csrf": csrf_of(head, "/t/1/record"), "key": "k\x00", "infraction": "gameplay.slow-play",
        "player": "alisa"})
    assert r.status_code == 422
    assert events(ledger) == before


# ---------------------------------------------------------------------- form fields
NUMBERS = ["7" * 5000, "9" * 25, "²", "١٢٣", "1e999", "-1e999", "nan", "inf", "1_0e400"]
FORMS: list[tuple[str, str, dict[str, str], str]] = [
    # (url, the page holding its form, the other fields, the field given hostile numbers)
    ("/t/1/record/preview", "/t/1/record",
     {"infraction": "gameplay.slow-play", "player": "alisa"}, "round"),
    ("/t/1/record/confirm", "/t/1/record",
     {"infraction": "gameplay.slow-play", "player": "alisa"}, "round"),
    ("/t/2/record/confirm", "/t/2/record",
     {"infraction": "attack.undeclared-on-participant", "player": "p1", "details.attacks": "2"},
     "details.level"),
    ("/t/3/record/confirm", "/t/3/record",
     {"infraction": "time-wasting", "player": "nina", "details.phase": "in-game"},
     "details.turns"),
    ("/t/1/results", "/t/1/results",
     {"player_a": "alisa", "player_b": "boris", "score": "2-1"}, "round"),
    ("/t/1/rounds/start", "/t/1/rounds", {"minutes": "50"}, "round"),
    ("/t/1/rounds/start", "/t/1/rounds", {"round": "1"}, "minutes"),
    ("/t/1/people", "/t/1/people", {"form": "player", "handle": "newbie"}, "table"),
    ("/t/1/squad", "/t/1/squad", {"player": "alisa", "squad": "Гном\nВайл", "seat": "first",
                                  "cards": "sample"}, "seed"),
]


@pytest.mark.parametrize(("url", "page", "base", "field"), FORMS,
                         ids=[f"{f[0]}:{f[3]}" for f in FORMS])
def test_numbers_no_column_holds_are_refused_beside_the_field(
        url: str, page: str, base: dict[str, str], field: str, signed_in: SignIn,
        ledger: Ledger) -> None:
    head = signed_in("glavsud")
    token = csrf_of(head, page)
    before = events(ledger)
    for value in NUMBERS:
        r = head.post(url, data={"csrf": token, **base, field: value}, follow_redirects=False)
        assert r.status_code == 422, (value, r.status_code, r.text[:300])
    assert events(ledger) == before


@pytest.mark.postgresql
@pytest.mark.parametrize(("url", "page", "base"), [
    ("/t/1/record/confirm", "/t/1/record",
     {"infraction": "gameplay.slow-play", "player": "alisa"}),
    ("/t/1/results", "/t/1/results",
     {"player_a": "alisa", "player_b": "boris", "score": "2-1", "round": "1"}),
    ("/t/3/pending/decide", "/t/3/pending", {"of": "e11", "choice": "min"}),
])
def test_a_damaged_form_key_is_400_not_a_database_error(
        url: str, page: str, base: dict[str, str], signed_in: SignIn, ledger: Ledger) -> None:
    head = signed_in("glavsud")
    before = events(ledger)
    r = head.post(url, data={"csrf": csrf_of(head, page), **base, "key": "k" * 101},
                  follow_redirects=False)
    assert r.status_code == 400, r.text[:300]
    assert events(ledger) == before


@pytest.mark.postgresql
def test_the_people_form_bounds_handles_and_names_to_their_columns(
        signed_in: SignIn, ledger: Ledger) -> None:
    head = signed_in("glavsud")
    token = csrf_of(head, "/t/1/people")
    for form in ({"form": "player", "handle": "x" * 101},
                 {"form": "player", "handle": "newbie", "name": "x" * 201},
                 {"form": "team", "handle": "newteam", "members": "alisa " + "x" * 101}):
        r = head.post("/t/1/people", data={"csrf": token, **form}, follow_redirects=False)
        assert r.status_code == 422, (form, r.text[:300])
        assert "100" in r.text or "200" in r.text


# ---------------------------------------------------------------------- random bytes
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(body=st.one_of(st.binary(max_size=300), st.lists(st.sampled_from(
    [b"{", b"}", b"[", b"]", b",", b":", b'"a"', b'"round"', b'"details"', b"NaN", b"1e999",
     b"-0", b'"\\udc80"', b'"\\u0000"', b"\xff", b"9" * 30, b"true", b"null"]),
    max_size=40).map(b"".join)),
       path=st.sampled_from([f"{API}/replay", f"{API}/login", f"{API}/decks/check"]))
def test_any_bytes_as_a_json_body_give_a_4xx_or_a_result_never_a_500(
        app: FastAPI, body: bytes, path: str) -> None:
    with TestClient(app, raise_server_exceptions=False) as client:
        r = client.post(path, content=body, headers=JSON)
    assert r.status_code < 500, (r.status_code, r.text[:300])
    if r.status_code >= 400:
        assert r.headers["content-type"].startswith("application/json")
        json.loads(r.text)


def _json_as_email_reads_it(content_type: str) -> bool:
    message = email.message.Message()
    message["content-type"] = content_type
    subtype = message.get_content_subtype()
    return message.get_content_maintype() == "application" and (
        subtype == "json" or subtype.endswith("+json"))


@settings(max_examples=500, deadline=None)
@given(st.sampled_from(["application", "APPLICATION", " Application", "text", "", "x"]),
       st.sampled_from(["/", ""]),
       st.sampled_from(["json", "JSON", "ld+json", "json ", "jsonx", "", "a/b", "+json"]),
       st.sampled_from(["", "; charset=utf-8", ";", " ; q=1", '; a="b;c"']))
def test_a_json_content_type_is_read_as_email_message_reads_it(main: str, slash: str,
                                                               subtype: str,
                                                               parameters: str) -> None:
    content_type = main + slash + subtype + parameters
    if content_type:  # none given: FastAPI reads the body as JSON
        assert is_json(content_type) == _json_as_email_reads_it(content_type), content_type
    else:
        assert is_json(content_type) and is_json(None)
