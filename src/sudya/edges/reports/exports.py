"""The judge report's rulings as CSV: one line per ruling, ids beside the words."""

from __future__ import annotations

import csv
import io

from sudya.app.report_views import JudgeReportView, ReportSanction
from sudya.domain.cells import safe_row

COLUMNS = ("event", "at", "round", "table", "subject", "subject_name", "infraction",
           "infraction_name", "cause", "cause_text", "sanctions", "sanction_kinds",
           "pending", "reasons", "source", "judge", "judge_name", "revokes", "resolves")


def _sanction(s: ReportSanction) -> str:
    text = s.name + (f": {s.amount_text}" if s.amount_text else "")
    text += f" {s.score}" if s.score else ""
    text += f" → {s.subject_name or s.subject}" if s.subject else ""
    return f"({text})" if s.revoked else text


def judge_csv(view: JudgeReportView) -> str:
    """The rulings of the report in order, in the report's language (a revoked sanction in
    brackets), with the ids and codes a program reads."""
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    out.writerow(COLUMNS)
    for r in view.rulings:
        out.writerow(safe_row([
            r.event, r.at.isoformat() if r.at else "", r.round or "", r.table or "",
            r.subject, r.subject_name, r.infraction or "", r.infraction_name, r.cause,
            r.cause_text, " + ".join(_sanction(s) for s in r.sanctions),
            " ".join(s.kind for s in r.sanctions), "yes" if r.pending else "",
            "; ".join(r.reasons), r.source, r.judge or "", r.judge_name or "",
            r.revokes or "", r.resolves or ""]))
    return buf.getvalue()
