"""Tamper evidence (issue «the write path holds»): every append-only row is chained per
series by SHA-256, and `sudya audit verify` finds a changed, removed or inserted record —
on a real SQLite file and a real PostgreSQL, with the append-only triggers dropped the way an
attacker with the database file would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from ledger_testkit import SLOW, counts, setup_berserk

from sudya.adapters.db import migrate
from sudya.adapters.db.append_only import drop_triggers
from sudya.adapters.db.migrate import upgrade
from sudya.app import audit
from sudya.app.ledger import Ledger

DQ = "disqualification-without-prizes"  # what the bribery below gives
CHAINED = ("event", "ruling", "sanction", "revocation", "result")


def history(ledger: Ledger) -> int:
    """A tournament with every kind of append-only row: rulings and sanctions, a
    disqualification, an appeal that revokes, a result."""
    _sid, tid = setup_berserk(ledger)
    ledger.record(tournament=tid, infraction=SLOW, player="bob", event_id="slow1", judge="oleg")
    ledger.record(tournament=tid, infraction=SLOW, player="carol", event_id="slow2",
                  judge="oleg")
    ledger.appeal(tournament=tid, of="slow2", outcome="overturned", judge="anna")
    ledger.record(tournament=tid, infraction="cheating.bribery", player="alice",
                  event_id="dq", judge="anna")
    ledger.record_result(tournament=tid, players=("bob", "carol"), score=(2, 1), round=1)
    return tid


def forge(engine: sa.Engine, *statements: str | sa.TextClause) -> None:
    """Change the database behind Sudya's back: the triggers dropped, rows rewritten."""
    with engine.begin() as conn:
        drop_triggers(conn)
        for sql in statements:
            conn.execute(sql if isinstance(sql, sa.TextClause) else sa.text(sql))


def problems(ledger: Ledger) -> list[audit.Problem]:
    return [p for a in audit.verify(ledger, keep=False) for p in a.problems]


def test_an_untouched_ledger_verifies_and_every_row_is_counted(ledger: Ledger,
                                                               db_engine: sa.Engine) -> None:
    history(ledger)
    [result] = audit.verify(ledger)
    assert result.ok, result.problems
    rows = counts(db_engine)
    assert result.records == sum(rows[t] for t in CHAINED)
    assert all(rows[t] for t in CHAINED)  # the history has a row of each table
    with db_engine.connect() as conn:
        assert conn.scalar(sa.text("SELECT count(*) FROM event WHERE chain IS NULL")) == 0
        head = conn.scalar(sa.text("SELECT chain_head FROM series"))
    assert result.head == head and len(head) == 64


def test_a_disqualification_changed_into_a_caution_is_named(ledger: Ledger,
                                                            db_engine: sa.Engine) -> None:
    history(ledger)
    forge(db_engine, f"UPDATE sanction SET kind = 'caution' WHERE kind = '{DQ}'")
    found = problems(ledger)
    first = found[0]
    assert first.code == "audit.differs"
    assert first.params | {"column": "kind", "stored": "caution",
                           "replayed": DQ, "event": "dq",
                           "table": "sanction"} == first.params
    assert "audit.changed" in {p.code for p in found}  # and its hash no longer matches


def test_an_event_moved_to_another_player_is_found(ledger: Ledger,
                                                   db_engine: sa.Engine) -> None:
    history(ledger)
    with db_engine.connect() as conn:
        payload = conn.scalar(sa.text("SELECT payload FROM event WHERE ext_id = 'slow1'"))
    moved = _json(payload).replace('"bob"', '"alice"')
    value = "CAST(:moved AS json)" if db_engine.dialect.name == "postgresql" else ":moved"
    forge(db_engine, sa.text(f"UPDATE event SET payload = {value} WHERE ext_id = 'slow1'")
          .bindparams(moved=moved))
    found = problems(ledger)
    codes = {(p.code, p.params.get("table"), p.params.get("event")) for p in found}
    assert ("audit.changed", "event", "slow1") in codes
    assert any(p.code == "audit.differs" and p.params["column"] == "subject"
               and p.params["stored"] == "bob" and p.params["replayed"] == "alice"
               for p in found)


def test_a_deleted_ruling_is_named_as_removed(ledger: Ledger, db_engine: sa.Engine) -> None:
    history(ledger)
    forge(db_engine,
          "DELETE FROM sanction WHERE ruling_id IN "
          "(SELECT id FROM ruling WHERE event_ext_id = 'slow1')",
          "DELETE FROM ruling WHERE event_ext_id = 'slow1'")
    first = problems(ledger)[0]
    assert (first.code, first.params["table"], first.params["event"]) == (
        "audit.removed", "ruling", "slow1")


def test_an_inserted_sanction_is_named(ledger: Ledger, db_engine: sa.Engine) -> None:
    history(ledger)
    forge(db_engine,
          "INSERT INTO sanction (ruling_id, position, kind, subject, attached, never_expires, "
          "created_at, created_by) SELECT ruling_id, 7, 'disqualification', subject, attached, "
          "never_expires, created_at, created_by FROM sanction WHERE id = "
          "(SELECT min(id) FROM sanction)")
    found = problems(ledger)
    assert {p.code for p in found} >= {"audit.unchained", "audit.inserted"}
    assert found[0].params["table"] == "sanction"


def test_the_last_event_deleted_is_found(ledger: Ledger, db_engine: sa.Engine) -> None:
    history(ledger)
    forge(db_engine, "DELETE FROM result",
          "DELETE FROM event WHERE id = (SELECT max(id) FROM event)")
    found = problems(ledger)
    assert found[0].code == "audit.removed" and found[0].params["table"] == "event"
    assert found[-1].code == "audit.head"


def test_a_changed_audit_field_breaks_the_chain(ledger: Ledger, db_engine: sa.Engine) -> None:
    """Who wrote a row is not ruled on by the replay; the chain still sees it."""
    history(ledger)
    forge(db_engine, "UPDATE ruling SET created_by = 'someone' WHERE event_ext_id = 'dq'")
    [first] = problems(ledger)
    assert (first.code, first.params["table"], first.params["event"]) == (
        "audit.changed", "ruling", "dq")


def test_the_migration_chains_rows_stored_before_it(ledger: Ledger,
                                                    db_engine: sa.Engine) -> None:
    history(ledger)
    cfg = migrate._config()
    with db_engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0007")
    upgrade(db_engine)
    [result] = audit.verify(Ledger(db_engine))
    assert result.ok, result.problems
    # and the triggers are back: the ledger is append-only again
    with pytest.raises(sa.exc.DBAPIError, match="append-only"), db_engine.begin() as conn:
        conn.execute(sa.text("UPDATE sanction SET kind = 'caution'"))


def test_the_last_verification_is_kept(ledger: Ledger, db_engine: sa.Engine) -> None:
    tid = history(ledger)
    assert audit.last_check(ledger, tid) is None
    audit.verify(ledger)
    ok = audit.last_check(ledger, tid)
    assert ok is not None and ok.ok and ok.code == "audit.ok"
    forge(db_engine, "UPDATE ruling SET judge = 'anna' WHERE event_ext_id = 'slow1'")
    audit.verify(ledger)
    failed = audit.last_check(ledger, tid)
    assert failed is not None and not failed.ok and failed.code == "audit.differs"


def _json(value: Any) -> str:
    import json

    return value if isinstance(value, str) else json.dumps(value)


def test_cli_verify_exit_codes(tmp_path: Path) -> None:
    """`sudya audit verify --db` run as a program: exit 0 «проверено», exit 1 naming it."""
    from sudya.adapters.db.session import make_engine

    def run(cwd: Path, *args: str, lang: str = "ru") -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SUDYA_")}
        return subprocess.run([sys.executable, "-m", "sudya", *args], cwd=cwd, text=True,
                              capture_output=True, timeout=120, encoding="utf-8",
                              env=env | {"SUDYA_LANG": lang, "NO_COLOR": "1"})

    url = f"sqlite:///{tmp_path / 'audit.db'}"
    engine = make_engine(url)
    upgrade(engine)
    history(Ledger(engine))
    ok = run(tmp_path, "audit", "verify", "--db", url)
    assert ok.returncode == 0, ok.stderr
    assert "проверено записей:" in ok.stdout and "сходятся" in ok.stdout
    forge(engine, f"UPDATE sanction SET kind = 'caution' WHERE kind = '{DQ}'")
    engine.dispose()
    bad = run(tmp_path, "audit", "verify", "--db", url)
    assert bad.returncode == 1 and "Traceback" not in bad.stderr
    first = bad.stdout.splitlines()[0]
    assert "наказание события dq" in first and "«caution»" in first, first
    en = run(tmp_path, "audit", "verify", "--db", url, "--json", lang="en")
    assert en.returncode == 1
    assert '"code": "audit.differs"' in en.stdout
