"""rulings keep their reasons as codes with parameters, not English prose

Revision ID: 0005
Revises: 0004

The notes of rulings stored before this revision are English sentences. Each becomes a
reason `{code, params, source}`: the rulebook's own notes (found by their English text) keep
both their Russian and English wording, the infraction's source becomes `rule.source`, and
the engine's fixed sentences get their codes. A sentence recognised by none of these is kept
word for word as a note of its own (`rulebook.note`), so nothing stored is lost.
"""

from __future__ import annotations

import re
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None

# the engine's sentences before reasons became codes (this migration reads them once)
FIXED: list[tuple[re.Pattern[str], str]] = [(re.compile(p), code) for p, code in [
    (r"repeat of (?P<infraction>\S+): one rank above (?P<from>\S+)", "repeat.escalated"),
    (r"repeat no\. (?P<n>\d+) of (?P<infraction>\S+)", "repeat.numbered"),
    (r"aggravation: the subject holds a valid sanction; the college must decide a stricter "
     r"one", "aggravation.pending"),
    (r"judge's choice within a range: pending", "choice.pending"),
    (r"reduction already granted once to (?P<subject>.+): ignored",
     "reduction.already-granted"),
    (r"(?P<count>\d+) × (?P<from>\S+) = 1 (?P<to>\S+) \((?P<source>.*)\)", "conversion.made"),
    (r"(?P<count>\d+) punished violations valid at once \((?P<source>.*)\)",
     "accumulation.made"),
    (r"(?P<count>\d+) penalties of rank (?P<rank>\d+) for different infractions "
     r"\((?P<infractions>.*)\) → (?P<to>\S+) \((?P<source>.*)\)", "stacking.made"),
    (r"undone: the (?P<cause>\S+) of (?P<event>\S+) used a revoked sanction",
     "revocation.derived"),
    (r"appeal: the ruling is upheld", "appeal.upheld"),
    (r"appeal: the ruling is overturned; its sanctions no longer count", "appeal.overturned"),
    (r"appeal found frivolous: the appellant is penalised \((?P<source>.*)\)",
     "appeal.frivolous"),
    (r"correction: (?P<reason>.+)", "correction.made-because"),
    (r"correction", "correction.made"),
]]
NUMBERS = ("n", "count", "rank")


def _rulebook_notes(rulebook: str, edition: str) -> tuple[dict[str, Any], set[str]]:
    """English text -> the rulebook's Note; and every infraction's source."""
    try:
        from pydantic import BaseModel

        from sudya.domain.rulebook import loader
        from sudya.domain.rulebook.schema import Note

        book = loader.load(rulebook, edition)
    except Exception:  # a rulebook that no longer loads: its notes are kept as text
        return {}, set()
    found: dict[str, Any] = {}

    def walk(value: object) -> None:
        if isinstance(value, Note):
            found[value.en] = value
        elif isinstance(value, BaseModel):
            for name in type(value).model_fields:
                walk(getattr(value, name))
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list | tuple):
            for item in value:
                walk(item)

    walk(book)
    return found, {inf.source for inf in book.infractions}


def reason(text: str, notes: dict[str, Any], sources: set[str]) -> dict[str, Any]:
    """One stored English note as a reason."""
    if text.startswith("interpretation: "):
        en = text.removeprefix("interpretation: ")
        n = notes.get(en)
        return {"code": "rule.interpretation",
                "params": {"text": {"ru": n.ru if n else en, "en": en}},
                "source": n.source if n else ""}
    n = notes.get(text)
    if n is not None:
        return {"code": "rulebook.note", "params": {"text": {"ru": n.ru, "en": n.en}},
                "source": n.source}
    if text in sources:
        return {"code": "rule.source", "params": {"source": text}, "source": text}
    for pattern, code in FIXED:
        match = pattern.fullmatch(text)
        if match:
            params: dict[str, Any] = dict(match.groupdict())
            source = params.pop("source", "") or ""
            for key in NUMBERS:
                if key in params:
                    params[key] = int(params[key])
            if "infractions" in params:
                params["infractions"] = params["infractions"].split(", ")
            return {"code": code, "params": params, "source": source}
    return {"code": "rulebook.note", "params": {"text": {"ru": text, "en": text}},
            "source": ""}


def _triggers(enable: bool) -> None:
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        op.execute(f"ALTER TABLE ruling {'ENABLE' if enable else 'DISABLE'} TRIGGER "
                   "ruling_append_only")
    elif enable:
        op.execute("CREATE TRIGGER ruling_no_update BEFORE UPDATE ON ruling "
                   "BEGIN SELECT RAISE(ABORT, 'sudya: ruling is append-only'); END")
    else:
        op.execute("DROP TRIGGER IF EXISTS ruling_no_update")


def upgrade() -> None:
    bind = op.get_bind()
    ruling = sa.table("ruling", sa.column("id", sa.Integer), sa.column("notes", sa.JSON),
                      sa.column("edition", sa.String), sa.column("series_id", sa.Integer))
    series = sa.table("series", sa.column("id", sa.Integer), sa.column("rulebook", sa.String))
    rows = bind.execute(sa.select(ruling.c.id, ruling.c.notes, ruling.c.edition,
                                  series.c.rulebook)
                        .join(series, series.c.id == ruling.c.series_id)).all()
    books: dict[tuple[str, str], tuple[dict[str, Any], set[str]]] = {}
    changes = []
    for rid, notes, edition, rulebook in rows:
        if not notes or not any(isinstance(n, str) for n in notes):
            continue
        key = (rulebook, edition)
        if key not in books:
            books[key] = _rulebook_notes(rulebook, edition)
        known, sources = books[key]
        changes.append({"rid": rid, "notes": [reason(n, known, sources) if isinstance(n, str)
                                              else n for n in notes]})
    if not changes:
        return
    _triggers(enable=False)
    bind.execute(sa.update(ruling).where(ruling.c.id == sa.bindparam("rid"))
                 .values(notes=sa.bindparam("notes")), changes)
    _triggers(enable=True)


def downgrade() -> None:
    # the reasons stay as they are: older code shows them as text it does not understand
    pass
