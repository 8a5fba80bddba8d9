"""What a judge reads after recording: «Борис Петров — Поражение в партии + Предупреждение
(повтор)», the undo offered for a short time, and the incident notes on rulings."""

from __future__ import annotations

from typing import Any

from sudya.app.recording import display_names, incident_notes, undoable
from sudya.domain.rulebook.schema import Rulebook
from sudya.edges.web import i18n
from sudya.edges.web.context import Ctx

_ = i18n.gettext


def sanction_words(s: dict[str, Any], names: dict[str, str]) -> str:
    """One sanction in words: its name, its amount with the unit, who bears it if another."""
    text = str(s["name"]) + (f": {s['amount_text']}" if s.get("amount_text") else "")
    if s.get("score"):
        text += f" {s['score']}"
    if s.get("subject"):
        text += f" → {names.get(s['subject'], s['subject'])}"
    return text


def ruling_words(r: dict[str, Any], names: dict[str, str]) -> str:
    """A ruling (ready for a page, web.views.ruling) as one line a judge reads aloud."""
    who = names.get(r["subject"], r["subject"])
    sanctions = " + ".join(sanction_words(s, names) for s in r["sanctions"])
    if r.get("pending"):
        what = (f"{sanctions} · " if sanctions else "") + _("awaiting a decision")
        return f"{who} — {what} ({r['cause_text']})"
    if not sanctions:
        return f"{who} — {r['cause_text']}"
    return f"{who} — {sanctions} ({r['cause_text']})"


def names_of(ctx: Ctx, tid: int, rulings: list[dict[str, Any]]) -> dict[str, str]:
    """The display names of everyone these rulings name (subjects and bearers)."""
    handles = {r["subject"] for r in rulings} | {
        s["subject"] for r in rulings for s in r.get("sanctions", []) if s.get("subject")}
    return ctx.read(display_names, tid, handles)


def notice(ctx: Ctx, tid: int, book: Rulebook, rulings: list[dict[str, Any]],
           event: str | None, *, undone: bool = False, may_undo: bool = False
           ) -> dict[str, Any] | None:
    """The dashboard's line after a ruling was recorded (or undone): the ruling in words and,
    for its judge and for a short time, the undo."""
    if not event:
        return None
    mine = [r for r in rulings if r["event"] == event]
    names = names_of(ctx, tid, mine)
    lines = [ruling_words(r, names) for r in mine]
    out: dict[str, Any] = {"event": event, "lines": lines, "undone": undone, "undo": None}
    if undone:
        out["by"] = next((r["event"] for r in rulings if r.get("revokes") == event
                          and r["cause"] == "correction"), None)
        return out
    user = ctx.user
    if may_undo and user is not None and mine:
        out["undo"] = ctx.read(undoable, tournament=tid, event=event, user=user.username,
                               within=ctx.app.undo_seconds)  # the window the core keeps
    return out


def with_notes(ctx: Ctx, tid: int, rulings: list[dict[str, Any]]) -> None:
    """Put the judge's incident note on each ruling of an infraction event that has one."""
    notes = ctx.read(incident_notes, tid, {r["event"] for r in rulings})
    for r in rulings:
        if r["event"] in notes:
            r["incident"] = notes[r["event"]]

