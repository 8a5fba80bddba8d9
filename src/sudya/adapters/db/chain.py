"""Tamper evidence: every append-only row is chained per series by SHA-256.

A row's `chain` is SHA-256 over the previous row's chain and the row's canonical content:
every column but its surrogate ids, with the natural key of what it points at instead (the
event's `seq`, the ruling's `position`, a sanction's ruling position and index), so moving a
row to another event or player changes its hash. The series keeps the last hash
(`series.chain_head`). Rows are chained in the order they are written: an event, its rulings
by position, their sanctions, the revocations its rulings made, its result; a statement about
a disqualification (written later, in a transaction of its own) follows the rows of the event
that was the series' last when it was written (its `after_seq`), statements in the order
written.

The writer (services.writer) links rows as it inserts them; `walk` reads a series back in
the same order for `sudya audit verify` and for the migration that chained older databases.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, cast

import orjson
from sqlalchemy import Connection, Table, select

from sudya.adapters.db import models as m

GENESIS = ""  # the chain of a series starts from the empty hash
SURROGATES = frozenset({"id", "chain", "event_id", "ruling_id", "sanction_id"})

TABLES: dict[str, Table] = {
    t.name: t for t in (cast(Table, model.__table__) for model in m.APPEND_ONLY)}
_COLUMNS = {name: tuple(c.name for c in t.columns if c.name not in SURROGATES)
            for name, t in TABLES.items()}


def _plain(value: Any) -> Any:
    if isinstance(value, dt.datetime):  # stored as UTC; SQLite gives it back without a zone
        if value.tzinfo is not None:
            value = value.astimezone(dt.UTC).replace(tzinfo=None)
        return value.isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    raise TypeError(f"not chainable: {type(value).__name__}")


# orjson writes what the canonical form (json.dumps, sorted keys, no spaces, UTF-8 as is)
# writes, except a float below 1e-4 or from 1e16 on (json: 1e-05, 1e+16; orjson: 0.00001,
# 1e16): text with such a number (or a string that looks like one) is made the canonical way
_NOT_THE_SAME = re.compile(rb"[:,\[]-?(?:[0-9][0-9.]*[eE]|0\.0000)")
_FAST = orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATETIME


def content(table: str, row: Mapping[str, Any], keys: Mapping[str, Any]) -> str:
    """The canonical text of a row: its columns (all of them: a missing one is a bug) and the
    natural keys of what it refers to, as json.dumps with sorted keys and no spaces writes it
    (made by orjson where that gives the same text: a fifth of the time)."""
    data = {c: row[c] for c in _COLUMNS[table]}
    data["~"] = dict(keys)
    try:
        text = orjson.dumps([table, data], option=_FAST, default=_plain)
        if _NOT_THE_SAME.search(text) is None:
            return text.decode()
    except TypeError:  # an integer past 64 bits, a key that is not a string
        pass
    return json.dumps([table, data], sort_keys=True, ensure_ascii=False,
                      separators=(",", ":"), default=_plain)


def link(prev: str, table: str, row: Mapping[str, Any], keys: Mapping[str, Any]) -> str:
    return hashlib.sha256(f"{prev}\n{content(table, row, keys)}".encode()).hexdigest()


class Chain:
    """The running hash of one series while a transaction writes to it."""

    def __init__(self, head: str | None) -> None:
        self.head = head or GENESIS

    def add(self, table: str, row: dict[str, Any], **keys: Any) -> None:
        """Link `row` (an INSERT's values) and put its hash in it."""
        row["chain"] = self.head = link(self.head, table, row, keys)


@dataclass(frozen=True)
class Link:
    """One stored row, read back in chain order."""

    table: str
    id: int
    event: str  # the event's ext_id, to name the record
    seq: int
    row: dict[str, Any]
    keys: dict[str, Any]

    @property
    def stored(self) -> str | None:
        return cast(str | None, self.row.get("chain"))


def walk(conn: Connection, series_id: int, *, statements: bool = True) -> Iterator[Link]:
    """Every append-only row of a series in the order the writer chained them (`statements`:
    False before the revision that made the table, 0011)."""
    ev, ru, sa = TABLES["event"], TABLES["ruling"], TABLES["sanction"]
    rv, rs = TABLES["revocation"], TABLES["result"]
    events = conn.execute(select(ev).where(ev.c.series_id == series_id)
                          .order_by(ev.c.seq, ev.c.id)).mappings().all()
    rulings: dict[int, list[dict[str, Any]]] = {}
    position: dict[int, int] = {}  # ruling id → its position
    for stored in conn.execute(select(ru).where(ru.c.series_id == series_id)
                               .order_by(ru.c.position, ru.c.id)).mappings():
        rulings.setdefault(stored["event_id"], []).append(dict(stored))
        position[stored["id"]] = stored["position"]
    sanctions: dict[int, list[dict[str, Any]]] = {}
    where: dict[int, tuple[int, int]] = {}  # sanction id → (ruling position, index)
    for row in conn.execute(select(sa).join(ru, sa.c.ruling_id == ru.c.id)
                            .where(ru.c.series_id == series_id)
                            .order_by(ru.c.position, sa.c.position, sa.c.id)).mappings():
        sanctions.setdefault(row["ruling_id"], []).append(dict(row))
        where[row["id"]] = (position[row["ruling_id"]], row["position"])
    revocations: dict[int, list[dict[str, Any]]] = {}
    for row in conn.execute(select(rv).join(ru, rv.c.ruling_id == ru.c.id)
                            .where(ru.c.series_id == series_id)).mappings():
        revocations.setdefault(row["ruling_id"], []).append(dict(row))
    results = {row["event_id"]: dict(row) for row in conn.execute(
        select(rs).join(ev, rs.c.event_id == ev.c.id).where(ev.c.series_id == series_id))
        .mappings()}
    said = _statements(conn, series_id) if statements else {}
    about = {e["id"]: (e["ext_id"], e["seq"]) for e in events}
    for e in events:
        name, seq = e["ext_id"], e["seq"]
        yield Link("event", e["id"], name, seq, dict(e), {})
        mine = rulings.get(e["id"], [])
        for r in mine:
            yield Link("ruling", r["id"], name, seq, r, {"event": seq})
        for r in mine:
            for sn in sanctions.get(r["id"], []):
                yield Link("sanction", sn["id"], name, seq, sn, {"ruling": r["position"]})
        undone = [(revocation_keys(where.get(v["sanction_id"]), r["position"]), v)
                  for r in mine for v in revocations.get(r["id"], [])]
        for keys, v in sorted(undone, key=lambda kv: revocation_order(kv[0])):
            yield Link("revocation", v["id"], name, seq, v, keys)
        if e["id"] in results:
            yield Link("result", results[e["id"]]["id"], name, seq, results[e["id"]],
                       {"event": seq})
        for st in said.pop(seq, []):
            yield _statement(st, about)
    for rest in sorted(said):  # placed after no stored event: shown, never skipped
        for st in said[rest]:
            yield _statement(st, about)


def _statements(conn: Connection, series_id: int) -> dict[int, list[dict[str, Any]]]:
    """A series' statements by the event they follow in the chain, in the order written."""
    st = TABLES["statement"]
    out: dict[int, list[dict[str, Any]]] = {}
    for row in conn.execute(select(st).where(st.c.series_id == series_id)
                            .order_by(st.c.after_seq, st.c.id)).mappings():
        out.setdefault(row["after_seq"], []).append(dict(row))
    return out


def _statement(row: dict[str, Any], about: dict[int, tuple[str, int]]) -> Link:
    """A statement's link: named by the event it is about (its natural key: that event's
    seq, so moving it to another event changes its hash)."""
    name, seq = about.get(row["event_id"], (f"#{row['event_id']}", 0))
    return Link("statement", row["id"], name, seq, row, {"event": seq})


def revocation_keys(sanction: tuple[int, int] | None, by: int) -> dict[str, Any]:
    """A revocation's natural keys: the sanction (ruling position, index) and the revoker."""
    return {"sanction": list(sanction) if sanction else None, "ruling": by}


def revocation_order(keys: dict[str, Any]) -> tuple[int, int, int]:
    """The order revocations of one event are written and chained in."""
    s = keys["sanction"] or [0, 0]
    return (keys["ruling"], s[0], s[1])


__all__ = ["GENESIS", "Chain", "Link", "walk", "link", "content", "revocation_keys",
           "revocation_order"]
