"""A client retry with the same idempotency key never records twice (SQLite and PostgreSQL),
whether it comes later, from another worker, or at the same moment as the first attempt."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from ledger_testkit import SLOW, race, scenario_of, snapshot
from sqlalchemy import func, select

from sudya.adapters.db import models as m
from sudya.adapters.db.session import make_engine
from sudya.app.ledger import Ledger
from sudya.app.readback import series_json
from sudya.app.scenario import replay, ruling_json
from sudya.domain.engine.model import Ruling


def js(rulings: list[Ruling]) -> list[dict[str, Any]]:
    return [ruling_json(r, False) for r in rulings]


def count(engine: sa.Engine, model: Any, *where: Any) -> int:
    with engine.connect() as conn:
        return int(conn.scalar(select(func.count()).select_from(model).where(*where)) or 0)


def test_the_same_key_twice_records_once(db_url: str, ledger: Ledger, db_engine: sa.Engine,
                                         berserk: tuple[int, int]) -> None:
    sid, tid = berserk
    key = "tablet-7:0001"
    first = ledger.record(tournament=tid, infraction=SLOW, player="bob", judge="oleg",
                          round=1, idempotency_key=key)
    assert [r.cause for r in first] == ["table"]
    before = snapshot(db_engine)
    again = ledger.record(tournament=tid, infraction=SLOW, player="bob", judge="oleg",
                          round=1, idempotency_key=key)
    assert js(again) == js(first)
    assert snapshot(db_engine) == before  # not even the sequence moved
    assert count(db_engine, m.Event, m.Event.idempotency_key == key) == 1

    # a new key is a new record: a repeat
    second = ledger.record(tournament=tid, infraction=SLOW, player="bob", judge="oleg",
                           round=2, idempotency_key="tablet-7:0002")
    assert [r.cause for r in second] == ["repeat"]
    # a late retry of the first still gets the first answer, not a third record
    late = ledger.record(tournament=tid, infraction=SLOW, player="bob", judge="oleg",
                         round=1, idempotency_key=key)
    assert js(late) == js(first)
    # … and so does a retry that reaches another worker
    other = Ledger(make_engine(db_url))
    try:
        assert js(other.record(tournament=tid, infraction=SLOW, player="bob", judge="oleg",
                               round=1, idempotency_key=key)) == js(first)
    finally:
        other.db.dispose()
    assert count(db_engine, m.Event, m.Event.kind == "infraction") == 2
    assert count(db_engine, m.Ruling, m.Ruling.subject == "bob") == 2


def test_every_kind_of_write_honours_the_key(ledger: Ledger, db_engine: sa.Engine,
                                             berserk: tuple[int, int]) -> None:
    sid, tid = berserk
    ledger.record(tournament=tid, infraction=SLOW, player="bob", judge="oleg", event_id="s1")

    def twice(call: Any) -> tuple[Any, Any]:
        first = call()
        before = snapshot(db_engine)
        second = call()
        assert snapshot(db_engine) == before
        return first, second

    a, b = twice(lambda: ledger.appeal(tournament=tid, of="s1", outcome="overturned",
                                       judge="anna", idempotency_key="appeal-1"))
    assert js(a) == js(b) and [r.cause for r in a] == ["appeal"]
    a, b = twice(lambda: ledger.end_match(tournament=tid, round=1, idempotency_key="end-1"))
    assert js(a) == js(b)
    twice(lambda: ledger.record_result(tournament=tid, players=("alice", "bob"), score=(2, 1),
                                       round=1, idempotency_key="result-1"))
    ledger.record(tournament=tid, infraction="procedure.minor", player="carol",
                  event_id="p1")
    a, b = twice(lambda: ledger.correct(tournament=tid, of="p1", reason="oops",
                                        idempotency_key="fix-1"))
    assert js(a) == js(b) and [r.cause for r in a] == ["correction"]
    assert count(db_engine, m.Result) == 1
    assert count(db_engine, m.Event, m.Event.kind == "appeal") == 1
    assert count(db_engine, m.Event, m.Event.kind == "correction") == 1
    with ledger.factory() as s:
        data = series_json(s, sid)
    assert [(r["event"], r["cause"]) for r in data["rulings"]][:2] == [
        ("s1", "table"), (data["rulings"][1]["event"], "appeal")]
    assert sum(r["cause"] == "correction" for r in data["rulings"]) == 1


def test_retries_racing_the_first_attempt_record_once(db_url: str, ledger: Ledger,
                                                      db_engine: sa.Engine,
                                                      berserk: tuple[int, int]) -> None:
    sid, tid = berserk
    other = Ledger(make_engine(db_url))
    try:
        for n in range(3):
            key = f"race-{n}"
            got = race([lambda lg=lg, k=key: lg.record(tournament=tid, infraction=SLOW,
                                                       player="carol", judge="oleg",
                                                       idempotency_key=k)
                        for lg in (ledger, other, ledger)])
            assert js(got[0]) == js(got[1]) == js(got[2])
            assert count(db_engine, m.Event, m.Event.idempotency_key == key) == 1
        assert count(db_engine, m.Event, m.Event.kind == "infraction") == 3
        with ledger.factory() as s:
            data = series_json(s, sid)
        assert [r["cause"] for r in data["rulings"]] == ["table", "repeat", "repeat"]
        assert data == replay(scenario_of(db_engine, sid))
    finally:
        other.db.dispose()
