"""A request's standing in a tournament, read in one statement, is what the three reads give.

`accounts.standing_in` reads the signed-in user, the tournament and the user's roles in it in
one statement (every API call and page of a tournament begins with them); it must answer as
`session_user`, `find_tournament` and `roles_in` do, for every demo user in every tournament,
for a revoked or expired session, no token, and ids no tournament has.
"""

from __future__ import annotations

import datetime as dt

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update

from sudya.adapters.db import models as m
from sudya.app.accounts import roles_from, roles_in, session_user, standing_in
from sudya.app.demo import PASSWORD, USERS
from sudya.app.ledger import Ledger
from sudya.app.queries import find_tournament

pytestmark = pytest.mark.postgresql


def token_of(client: TestClient, username: str) -> str:
    r = client.post("/api/v1/login", json={"username": username, "password": PASSWORD})
    assert r.status_code == 200, r.text
    token: str = r.json()["token"]
    return token


def three_reads(ledger: Ledger, token: str | None, tid: int) -> tuple[object, ...]:
    with ledger.factory() as s:
        user = session_user(s, token)
        t = find_tournament(s, tournament=tid)
        return user, t, None if t is None else roles_in(s, user, t)


def one_read(ledger: Ledger, token: str | None, tid: int) -> tuple[object, ...]:
    with ledger.factory() as s:
        found = standing_in(s, token, tid)
        t = found.tournament
        return (found.user, t,
                None if t is None else roles_from(found.user, found.roles, t))


def test_one_statement_answers_as_the_three_reads(client: TestClient, ledger: Ledger) -> None:
    tokens: dict[str, str | None] = {name: token_of(client, name) for name in USERS}
    tokens["(no token)"] = None
    tokens["(unknown token)"] = "not-a-session"
    revoked, expired = token_of(client, "sudya"), token_of(client, "glavsud")
    assert client.post("/api/v1/logout",
                       headers={"Authorization": f"Bearer {revoked}"}).status_code == 204
    with ledger.uow().begin() as s:
        s.execute(update(m.WebSession).where(m.WebSession.user_id == select(m.User.id).where(
            m.User.username == "glavsud").scalar_subquery(), m.WebSession.id == select(
            func.max(m.WebSession.id)).scalar_subquery())
            .values(expires_at=m.now() - dt.timedelta(minutes=1)))
    tokens["(revoked)"], tokens["(expired)"] = revoked, expired
    with ledger.factory() as s:
        last = s.scalar(select(func.max(m.Tournament.id)))
    assert last is not None
    seen_roles = 0
    for name, token in tokens.items():
        for tid in [*range(1, last + 1), last + 1, 0, -3, 2**31, 2**40]:
            one, three = one_read(ledger, token, tid), three_reads(ledger, token, tid)
            assert one == three, (name, tid)
            roles = three[2]
            seen_roles += bool(roles and getattr(roles, "names", None))
    assert seen_roles >= len(USERS) - 1  # the comparison covered users holding roles
    assert one_read(ledger, revoked, 1)[0] is None
    assert one_read(ledger, expired, 1)[0] is None
