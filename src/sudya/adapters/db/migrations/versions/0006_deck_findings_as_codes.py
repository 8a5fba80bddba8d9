"""deck checks keep their findings as codes with parameters, not English prose

Revision ID: 0006
Revises: 0005

The findings of deck checks stored before this revision carry an English `message`. Each
gets the code and parameters the checks give now (`decklist.*`, `mismatch.*`); a message
recognised by none of them is kept word for word (`decklist.as-written`), so nothing stored
is lost.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None

QUOTED = r"""(?P<{}>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")"""  # a name as repr() wrote it
CARD, SUGGESTION = QUOTED.format("card"), QUOTED.format("suggestion")

# the checks' sentences before they became codes (this migration reads them once)
FIXED: list[tuple[re.Pattern[str], str]] = [(re.compile(p), code) for p, code in [
    (r"no deck list", "decklist.missing"),
    (r"the player's name is not on the list", "decklist.no-player"),
    (rf"the count of {CARD} is not written in digits", "decklist.count-not-digits"),
    (rf"{CARD} is hard to read: is it {SUGGESTION}\?", "decklist.hard-to-read"),
    (rf"{CARD} is not a card the judges can identify", "decklist.unknown-card"),
    (r"main deck has (?P<count>\d+) cards, fewer than (?P<min>\d+)", "decklist.main-too-few"),
    (r"main deck has (?P<count>\d+) cards, more than (?P<max>\d+)", "decklist.main-too-many"),
    (r"additional deck has (?P<count>\d+) cards, more than (?P<max>\d+)",
     "decklist.additional-too-many"),
    (r"(?P<count>\d+) copies of (?P<card>.+) in main and additional decks together, at most "
     r"(?P<limit>\d+)", "decklist.too-many-copies-together"),
    (r"(?P<count>\d+) copies of (?P<card>.+), at most (?P<limit>\d+)",
     "decklist.too-many-copies"),
    (r"the deck has (?P<deck>\d+) cards, the list (?P<listed>\d+)", "mismatch.fewer-cards"),
    (r"the additional deck has (?P<deck>\d+) cards, the list (?P<listed>\d+)",
     "mismatch.more-additional"),
    (r"(?P<card>.+) ×(?P<count>\d+) is in the deck but not on the list",
     "mismatch.not-listed"),
    (r"(?P<card>.+): (?P<deck>\d+) in the deck, (?P<listed>\d+) on the list",
     "mismatch.count-differs"),
    (r"(?P<card>.+) is not legal in (?P<format>\S+)", "decklist.not-legal"),
]]
NUMBERS = ("count", "min", "max", "limit", "deck", "listed")
QUOTED_PARAMS = ("card", "suggestion")


def finding(old: dict[str, Any]) -> dict[str, Any]:
    """One stored finding with its message as a code and parameters."""
    if "code" in old or "message" not in old:
        return old
    new = {k: v for k, v in old.items() if k != "message"}
    text = str(old["message"])
    for pattern, code in FIXED:
        match = pattern.fullmatch(text)
        if match is None:
            continue
        params: dict[str, Any] = dict(match.groupdict())
        if code in ("decklist.count-not-digits", "decklist.hard-to-read",
                    "decklist.unknown-card"):
            params = {k: ast.literal_eval(v) if k in QUOTED_PARAMS else v
                      for k, v in params.items()}
        for key in NUMBERS:
            if key in params:
                params[key] = int(params[key])
        return {**new, "code": code, "params": params}
    return {**new, "code": "decklist.as-written", "params": {"text": text}}


def prose(new: dict[str, Any]) -> dict[str, Any]:
    """One finding as older code stored it: the English message instead of the code."""
    if "code" not in new or "message" in new:
        return new
    from sudya.i18n.messages import render

    old = {k: v for k, v in new.items() if k not in ("code", "params")}
    return {**old, "message": render(new["code"], new.get("params") or {}, "en")}


def _convert(change: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    bind = op.get_bind()
    check = sa.table("deck_check", sa.column("id", sa.Integer),
                     sa.column("findings", sa.JSON))
    changes = []
    for cid, findings in bind.execute(sa.select(check.c.id, check.c.findings)).all():
        if not findings:
            continue
        converted = [change(f) if isinstance(f, dict) else f for f in findings]
        if converted != findings:
            changes.append({"cid": cid, "findings": converted})
    if changes:
        bind.execute(sa.update(check).where(check.c.id == sa.bindparam("cid"))
                     .values(findings=sa.bindparam("findings")), changes)


def upgrade() -> None:
    _convert(finding)


def downgrade() -> None:
    _convert(prose)
