"""A judge's incident note (issue 14): free text, at most 2000 characters, part of the typed
command (sudya.domain.commands.RecordInfraction.note) and so of the stored event, on SQLite and
PostgreSQL. It changes no ruling; a command without one is stored as before."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from ledger_testkit import SLOW, events

from sudya.app.audit import verify
from sudya.app.ledger import Ledger, LedgerError
from sudya.app.views import RulingView
from sudya.domain import commands

NOTE = "Игрок не успел сделать ход за 3 минуты.\nСоперник позвал судью сам."


def test_the_note_is_stored_with_the_event_and_changes_no_ruling(
        ledger: Ledger, db_engine: sa.Engine, berserk: tuple[int, int]) -> None:
    sid, tid = berserk
    with_note = ledger.record(tournament=tid, infraction=SLOW, player="bob", judge="oleg",
                              round=1, note=NOTE)
    without = ledger.preview(tournament=tid, infraction=SLOW, player="alice", judge="oleg",
                             round=1)
    assert [r.cause for r in with_note] == ["table"]
    assert [s.kind for s in with_note[0].sanctions] == [s.kind for s in without[0].sanctions]
    stored = events(db_engine, sid)
    assert stored[-1].payload["note"] == NOTE
    decoded = commands.decode("infraction", stored[-1].payload)
    assert isinstance(decoded, commands.RecordInfraction) and decoded.note == NOTE
    ledger.record(tournament=tid, infraction=SLOW, player="carol", judge="oleg", round=1)
    assert "note" not in events(db_engine, sid)[-1].payload  # stored as before
    assert "note" not in RulingView.of(with_note[0], False).as_json()  # the replay contract
    # the hash chain and a replay of the stored events agree with the stored rulings
    assert all(audit.ok for audit in verify(ledger, keep=False))


def test_a_retry_with_another_note_is_another_request(ledger: Ledger,
                                                      berserk: tuple[int, int]) -> None:
    _sid, tid = berserk
    ledger.record(tournament=tid, infraction=SLOW, player="bob", judge="oleg", note=NOTE,
                  idempotency_key="note-1")
    ledger.record(tournament=tid, infraction=SLOW, player="bob", judge="oleg", note=NOTE,
                  idempotency_key="note-1")  # the same: answered, not stored again
    with pytest.raises(LedgerError) as refused:
        ledger.record(tournament=tid, infraction=SLOW, player="bob", judge="oleg",
                      note="другое", idempotency_key="note-1")
    assert refused.value.code == "key.reused"


def test_the_note_has_the_commands_limits(ledger: Ledger, berserk: tuple[int, int]) -> None:
    _sid, tid = berserk
    for bad, code in (("ы" * 2001, "text.too-long"), ("a\x07b", "text.control-characters")):
        with pytest.raises(LedgerError) as refused:
            ledger.record(tournament=tid, infraction=SLOW, player="bob", judge="oleg",
                          note=bad)
        assert refused.value.code == code and refused.value.field == "note"
    ledger.record(tournament=tid, infraction=SLOW, player="bob", judge="oleg",
                  note="ы" * 2000)
