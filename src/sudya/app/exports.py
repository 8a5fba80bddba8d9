"""Exporting a series: JSON (the replay format plus tournaments) and CSV (one sanction a row)."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from sudya.adapters.db import models as m
from sudya.app.ledger import LedgerError
from sudya.app.readback import series_json, series_rulings
from sudya.domain.cells import safe_dict

CSV_COLUMNS = ["tournament", "date", "event", "subject", "infraction", "cause", "pending",
               "sanction", "sanction_subject", "amount", "score", "attached", "valid_until",
               "revoked", "edition", "judge"]


def _series(s: Session, name: str) -> m.Series:
    row = s.scalar(select(m.Series).where(m.Series.name == name))
    if row is None:
        raise LedgerError("series.unknown", field="series", series=name)
    return row


def export_json(s: Session, name: str) -> str:
    series = _series(s, name)
    data: dict[str, Any] = series_json(s, series.id)
    data["series"] = {"name": series.name, "rulebook": series.rulebook}
    data["tournaments"] = [
        {"id": t.id, "name": t.name, "date": t.date.isoformat(), "edition": t.edition,
         "level": t.level, "settings": t.settings} for t in series.tournaments]
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def export_csv(s: Session, name: str) -> str:
    series = _series(s, name)
    names = {t.position: (t.name, t.date.isoformat()) for t in series.tournaments}
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for r in series_rulings(s, series.id):
        tname, tdate = names[r.tournament]
        base = {"tournament": tname, "date": tdate, "event": r.event, "subject": r.subject,
                "infraction": r.infraction or "", "cause": r.cause, "pending": r.pending,
                "edition": r.edition, "judge": r.judge or ""}
        if not r.sanctions:
            writer.writerow(safe_dict(base))
        for sn in r.sanctions:
            writer.writerow(safe_dict({**base, "sanction": sn.kind, "sanction_subject": sn.subject,
                             "amount": "" if sn.amount is None else sn.amount,
                             "score": sn.score or "", "attached": sn.attached,
                             "valid_until": "" if sn.valid_until is None or
                             sn.valid_until.year == 9999 else sn.valid_until.isoformat(),
                             "revoked": sn.revoked}))
    return buf.getvalue()
