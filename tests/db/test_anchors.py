"""Issue 35: an anchor outside the database. A holder of the database who changes a record
and recomputes every hash after it passes `audit verify` — but not against a head printed
before (on the judge report, in the anchor file): `verify --head HASH@SEQ` finds it gone."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import sqlalchemy as sa
from ledger_testkit import SLOW, setup_berserk

from sudya.adapters.db import chain
from sudya.adapters.db.append_only import drop_triggers
from sudya.app import audit
from sudya.app.ledger import Ledger


def _history(ledger: Ledger) -> int:
    sid, tid = setup_berserk(ledger)
    ledger.record(tournament=tid, infraction=SLOW, player="bob", event_id="slow1",
                  judge="oleg")
    ledger.record(tournament=tid, infraction=SLOW, player="carol", event_id="slow2",
                  judge="oleg")
    return sid


def _head(engine: sa.Engine) -> tuple[str, int]:
    with engine.connect() as conn:
        row = conn.execute(sa.text("SELECT chain_head, last_seq FROM series")).one()
    return str(row[0]), int(row[1])


def _forge_the_judge(engine: sa.Engine, sid: int) -> None:
    """slow1 was «anna»'s, says the forger: the event and its ruling changed, then every hash
    from there on recomputed and the series' head with them."""
    with engine.begin() as conn:
        drop_triggers(conn)
        raw = conn.scalar(sa.text("SELECT payload FROM event WHERE ext_id = 'slow1'"))
        payload = raw if isinstance(raw, dict) else json.loads(raw)  # (PostgreSQL: JSON)
        payload["judge"] = "anna"
        event = sa.table("event", sa.column("payload", sa.JSON), sa.column("ext_id"))
        conn.execute(sa.update(event).where(event.c.ext_id == "slow1")
                     .values(payload=payload))
        conn.execute(sa.text("UPDATE ruling SET judge = 'anna' "
                             "WHERE event_ext_id = 'slow1'"))
        prev = chain.GENESIS
        for link in list(chain.walk(conn, sid)):
            new = chain.link(prev, link.table, link.row, link.keys)
            conn.execute(sa.text(f"UPDATE {link.table} SET chain = :h WHERE id = :i"),
                         {"h": new, "i": link.id})
            prev = new
        conn.execute(sa.text("UPDATE series SET chain_head = :h"), {"h": prev})


def test_a_printed_head_finds_a_forgery_that_recomputed_the_hashes(
        ledger: Ledger, db_engine: sa.Engine) -> None:
    sid = _history(ledger)
    printed = _head(db_engine)
    [ok] = audit.anchored(audit.verify(ledger, keep=False), [printed])
    assert (ok.ok, ok.code, ok.at) == (True, "audit.anchor-ok", printed[1])
    _forge_the_judge(db_engine, sid)
    audits = audit.verify(Ledger(db_engine), keep=False)
    assert all(a.ok for a in audits)  # the forgery passes the chain and the replay…
    [gone] = audit.anchored(audits, [printed])
    assert (gone.ok, gone.code) == (False, "audit.anchor-missing")  # …not the printed head


def test_a_head_is_read_as_printed() -> None:
    head = "a" * 64
    assert audit.parse_head(f"{head}@15") == (head, 15)
    assert audit.parse_head(head.upper()) == (head, None)
    for wrong in ("abc@1", f"{head}@x", "z" * 64):
        try:
            audit.parse_head(wrong)
        except audit.SudyaError as exc:
            assert exc.field == "--head"
        else:
            raise AssertionError(wrong)


def test_the_anchor_file_holds_the_head_after_each_event(db_url: str, db_engine: sa.Engine,
                                                         tmp_path: Path) -> None:
    """SUDYA_ANCHOR_FILE: a line after each committed event, the series' head; the last one
    is the head `verify --head` holds."""
    from sudya.app.common import Actor
    from sudya.app.core import Sudya
    from sudya.app.settings import Settings
    from sudya.domain import commands as c

    anchors = tmp_path / "anchors.tsv"
    app = Sudya.open(Settings(database_url=db_url, anchor_file=anchors), db_engine)
    own = Actor(name="owner", owner=True)
    sid = app.handle(c.CreateSeries(name="Клуб", rulebook="berserk"), own)
    tid = app.handle(c.CreateTournament(series=sid, name="Вечер", date=dt.date(2026, 3, 1),
                                        level="amateur"), own)
    app.handle(c.AddPlayer(handle="bob"), own, tid)
    app.handle(c.RecordInfraction(infraction=SLOW, player="bob"), own, tid)
    lines = [line.split("\t") for line in anchors.read_text("utf-8").splitlines()]
    assert [int(line[3]) for line in lines] == [1, 2, 3]  # tournament, roster, ruling
    assert all(line[2] == "Клуб" for line in lines)
    head, seq = _head(db_engine)
    assert (lines[-1][4], int(lines[-1][3])) == (head, seq)
    [ok] = audit.anchored(audit.verify(app.ledger, keep=False), [(head, seq)])
    assert ok.ok
