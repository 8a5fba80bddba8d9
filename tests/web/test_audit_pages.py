"""The head judge's dashboard shows the ledger's last verification, and runs it again
(issue «the write path holds»: tamper evidence). Floor judges do not see it."""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa
from fastapi.testclient import TestClient
from web_testkit import csrf_of

from sudya.adapters.db.append_only import drop_triggers
from sudya.app.ledger import Ledger

BERSERK = 1  # the demo's berserk tournament


def test_head_judge_verifies_the_ledger_from_the_dashboard(
        signed_in: Callable[[str], TestClient], ledger: Ledger) -> None:
    head = signed_in("glavsud")
    before = head.get(f"/t/{BERSERK}").text
    assert "Проверка журнала" in before and "ещё не проверялся" in before
    r = head.post(f"/t/{BERSERK}/audit", data={"csrf": csrf_of(head, f"/t/{BERSERK}")},
                  follow_redirects=True)
    assert r.status_code == 200
    assert "Проверено" in r.text and "проверено записей:" in r.text
    assert "проверено записей:" in head.get(f"/t/{BERSERK}").text

    # a sanction changed in the database behind Sudya's back
    with ledger.db.begin() as conn:
        drop_triggers(conn)
        conn.execute(sa.text("UPDATE sanction SET kind = 'caution' WHERE id = "
                             "(SELECT min(id) FROM sanction)"))
    head.post(f"/t/{BERSERK}/audit", data={"csrf": csrf_of(head, f"/t/{BERSERK}")})
    page = head.get(f"/t/{BERSERK}").text
    assert "Проверка выявила нарушение" in page
    assert "отличается от повторного разбора" in page and "«caution»" in page


def test_a_floor_judge_neither_sees_nor_runs_it(signed_in: Callable[[str], TestClient]) -> None:
    floor = signed_in("sudya")
    assert "Проверка журнала" not in floor.get(f"/t/{BERSERK}").text
    assert floor.get(f"/t/{BERSERK}/audit").status_code == 403
    csrf = csrf_of(floor, f"/t/{BERSERK}")
    assert floor.post(f"/t/{BERSERK}/audit", data={"csrf": csrf}).status_code == 403


def test_it_needs_the_forms_token(signed_in: Callable[[str], TestClient]) -> None:
    head = signed_in("glavsud")
    assert head.post(f"/t/{BERSERK}/audit", data={"csrf": "0" * 64}).status_code == 403
