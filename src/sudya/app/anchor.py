"""The anchor file (SUDYA_ANCHOR_FILE): after each committed event a line with the series'
hash chain head, appended to a file outside the database — on another disk, a mounted share,
a log shipped elsewhere. A holder of the database who changes a record and recomputes the
hashes cannot change these lines: `sudya audit verify --head HASH@SEQ` finds the head gone.

A line: the time (UTC, ISO), the series' id and name, the event's number, the head —
tab-separated. The file is only ever appended to, and flushed to disk with each line.
"""

from __future__ import annotations

import datetime as dt
import os
import threading
from pathlib import Path

from sqlalchemy import select

from sudya.adapters.db import models as m
from sudya.app.changes import Change
from sudya.app.ledger import Ledger


class AnchorFile:
    """Appends the chain head after each event this process commits (a ChangeFeed listener,
    in the writer's thread, after the commit)."""

    def __init__(self, ledger: Ledger, path: Path) -> None:
        self.ledger = ledger
        self.path = path
        self._mutex = threading.Lock()
        ledger.changes.listen(self.committed)

    def committed(self, change: Change) -> None:
        if not change.seq:
            return  # an appeal request: no event of the chain
        with self.ledger.factory() as s:
            row = s.execute(select(m.Series.name, m.Series.chain_head, m.Series.last_seq)
                            .where(m.Series.id == change.series)).first()
        if row is None or row.chain_head is None:
            return
        when = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        line = f"{when}\t{change.series}\t{row.name}\t{row.last_seq}\t{row.chain_head}\n"
        with self._mutex:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line.encode("utf-8"))
                os.fsync(fd)
            finally:
                os.close(fd)
