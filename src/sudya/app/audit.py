"""`sudya audit verify`: the hash chain of every series, and its rulings against a replay.

Two checks, both over what is stored now:

- the chain (db.chain): each append-only row's hash must be SHA-256 over the previous row's
  stored hash and its own content, and the series' head must be the last row's hash; a row
  whose hash does not match was changed (or written around the ledger);
- the replay: the stored events are ruled on again by the rulebook, and the rulings,
  sanctions and revocations must be the stored ones, field for field; what the replay makes
  and the database lacks was removed, what the database has and the replay does not was
  inserted. A result must belong to a result event, a statement (services.statements)
  follow the event it is about.

The first problem of a series names the record (table, event, position) and what differs.
Every run is kept (`audit_check`) so the head judge's dashboard shows the last one.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, select

from sudya.adapters.db import chain
from sudya.adapters.db import models as m
from sudya.app.common import Actor, SeriesRef
from sudya.app.ledger import Ledger
from sudya.app.projection import Projection, State
from sudya.app.writer import ruling_row, sanction_row
from sudya.domain.errors import SudyaError

MAX_PROBLEMS = 20  # per series: enough to see the pattern, never a flood


@dataclass(frozen=True)
class Problem:
    """What is wrong with one stored record: a message code and its parameters."""

    code: str  # audit.changed, audit.removed, audit.inserted, audit.differs, audit.head…
    params: dict[str, Any]
    order: tuple[int, int] = (0, 0)  # (event seq, the more telling problem first)


# at one event, what says most comes first: a removed or inserted record, then what differs
# from the replay, then a hash that does not match, then the head of the chain
RANK = {"audit.removed": 0, "audit.inserted": 0, "audit.unchained": 0,
        "audit.replay-failed": 0, "audit.differs": 1, "audit.changed": 2, "audit.head": 3}


@dataclass(frozen=True)
class AnchorCheck:
    """A chain head kept outside the database (printed on a judge report, written to the
    anchor file): whether the ledger still holds it, unchanged, and where."""

    head: str
    seq: int | None
    series: str | None = None  # where it was found
    at: int | None = None  # the event it was the head after
    ok: bool = False
    code: str = "audit.anchor-missing"


def parse_head(text: str) -> tuple[str, int | None]:
    """`HASH` or `HASH@SEQ` as printed; refused, naming --head, when it is not one."""
    head, _sep, seq = text.strip().partition("@")
    if len(head) != 64 or any(ch not in "0123456789abcdef" for ch in head.lower()) or (
            seq and not seq.isdigit()):
        raise SudyaError("audit.head-malformed", field="--head", head=text)
    return head.lower(), int(seq) if seq else None


@dataclass
class SeriesAudit:
    series_id: int
    series: str
    records: int = 0
    head: str | None = None
    last_seq: int = 0  # the series' last event: the head is `head@last_seq`
    problems: list[Problem] = field(default_factory=list)
    # each event's last stored hash (the head as it was after that event), for anchors
    heads: dict[str, int] = field(default_factory=dict, repr=False)

    @property
    def ok(self) -> bool:
        return not self.problems

    def add(self, code: str, *, order: int, **params: Any) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(Problem(code, {"series": self.series, **params},
                                         (order, RANK[code])))


@dataclass(frozen=True)
class LastCheck:
    """The last verification of a series, for the dashboard."""

    at: Any
    by: str
    ok: bool
    records: int
    head: str | None
    code: str
    params: dict[str, Any]


def verify(ledger: Ledger, *, series: str | None = None, actor: Actor | None = None,
           keep: bool = True) -> list[SeriesAudit]:
    """Verify every series (or the one named); each run is stored unless `keep` is False."""
    actor = actor or Actor(name="audit")
    with ledger.factory() as s:
        query = select(m.Series.id, m.Series.name, m.Series.rulebook, m.Series.chain_head,
                       m.Series.last_seq).order_by(m.Series.id)
        if series is not None:
            query = query.where(m.Series.name == series)
        rows = s.execute(query).all()
        if series is not None and not rows:
            raise SudyaError("series.unknown", field="series", series=series)
        conn = s.connection()
        audits = [_series(conn, row) for row in rows]
    if keep:
        with ledger.uow().begin() as s:
            for a in audits:
                first = a.problems[0] if a.problems else Problem("audit.ok", {})
                s.add(m.AuditCheck(series_id=a.series_id, records=a.records, ok=a.ok,
                                   head=a.head, code=first.code, params=first.params,
                                   created_by=actor.name, request_id=actor.request_id))
    return audits


def last_check(ledger: Ledger, tournament: int) -> LastCheck | None:
    """The last verification of the series a tournament belongs to, if any."""
    with ledger.factory() as s:
        row = s.scalars(select(m.AuditCheck).join(
            m.Tournament, m.Tournament.series_id == m.AuditCheck.series_id)
            .where(m.Tournament.id == tournament)
            .order_by(m.AuditCheck.id.desc()).limit(1)).first()
        if row is None:
            return None
        return LastCheck(at=row.created_at, by=row.created_by, ok=row.ok, records=row.records,
                         head=row.head, code=row.code, params=dict(row.params))


def _series(conn: Connection, row: Any) -> SeriesAudit:
    audit = SeriesAudit(series_id=row.id, series=row.name, last_seq=row.last_seq)
    links = list(chain.walk(conn, row.id))
    audit.records = len(links)
    _check_chain(audit, links, row.chain_head)
    _check_events(audit, links, row.last_seq)
    _check_replay(audit, links, SeriesRef(row.id, row.rulebook))
    audit.head = links[-1].stored if links else None
    for link in links:  # the last row of each event leaves the head that event left
        if link.stored is not None:
            audit.heads[link.stored] = link.seq
    audit.problems.sort(key=lambda p: p.order)
    return audit


def anchored(audits: list[SeriesAudit], heads: Iterable[tuple[str, int | None]]
             ) -> list[AnchorCheck]:
    """Each head kept outside: found, unchanged, in a series that verifies up to it? A forger
    who changed or removed anything recorded before it and recomputed the hashes cannot keep
    it: every later hash changes with what it chains."""
    out = []
    for head, seq in heads:
        found = next(((a, a.heads[head]) for a in audits if head in a.heads), None)
        if found is None:
            out.append(AnchorCheck(head, seq))
            continue
        audit, at = found
        if seq is not None and at != seq:
            out.append(AnchorCheck(head, seq, audit.series, at, False, "audit.anchor-moved"))
            continue
        broken = [p for p in audit.problems if p.order[0] <= at]
        out.append(AnchorCheck(head, seq, audit.series, at, not broken,
                               "audit.anchor-ok" if not broken else "audit.anchor-broken"))
    return out


def _where(link: chain.Link) -> dict[str, Any]:
    """How a problem names a record: its table, its event, its place in the chain."""
    position = link.row.get("position") if link.table in ("ruling", "sanction") else None
    return {"table": link.table, "event": link.event, "seq": link.seq, "id": link.id,
            "position": position, "order": link.seq}  # `order` is the sort key, not shown


def _check_chain(audit: SeriesAudit, links: list[chain.Link], head: str | None) -> None:
    prev = chain.GENESIS
    for link in links:
        expected = chain.link(prev, link.table, link.row, link.keys)
        if link.stored is None:  # written around the ledger: the chain goes on without it
            audit.add("audit.unchained", **_where(link))
            continue
        if link.stored != expected:
            audit.add("audit.changed", **_where(link))
        prev = link.stored
    if (head or chain.GENESIS) != prev:
        audit.add("audit.head", order=2**31)  # after all the rest: it follows from them


def _check_events(audit: SeriesAudit, links: list[chain.Link], last_seq: int) -> None:
    seqs = [link.seq for link in links if link.table == "event"]
    expected = 1
    for link in (lk for lk in links if lk.table == "event"):
        if link.seq > expected:
            audit.add("audit.removed", table="event", event=f"#{expected}", seq=expected,
                      order=expected)
        elif link.seq < expected:
            audit.add("audit.inserted", **_where(link))
        expected = max(expected, link.seq + 1)
    if last_seq > (max(seqs) if seqs else 0):
        audit.add("audit.removed", table="event", event=f"#{last_seq}", seq=last_seq,
                  order=last_seq)
    kinds = {link.seq: link.row["kind"] for link in links if link.table == "event"}
    for link in links:
        if link.table == "result" and kinds.get(link.seq) != "result":
            audit.add("audit.inserted", **_where(link))
        # a statement follows its event in the chain: one placed before it was not written
        # by Sudya (the chain itself shows a moved or changed one)
        if link.table == "statement" and (link.seq not in kinds
                                          or link.row["after_seq"] < link.seq):
            audit.add("audit.inserted", **_where(link))


def _check_replay(audit: SeriesAudit, links: list[chain.Link], series: SeriesRef) -> None:
    """The stored rulings, sanctions and revocations against the rulebook's replay."""
    events = [_Event(link) for link in links if link.table == "event"]
    stored = {(link.table, _key(link)): link for link in links
              if link.table in ("ruling", "sanction", "revocation")}
    made: dict[tuple[str, Any], tuple[dict[str, Any], int, str]] = {}
    state: State | None = None
    current: list[_Event] = []

    def fed(events: Iterable[_Event]) -> Iterator[_Event]:  # which event a failure is on
        for ev in events:
            current[:] = [ev]
            yield ev

    try:
        for state, ev, rulings in Projection().replayed(series, fed(events)):
            with_validity = state.engine.book.validity is not None
            for r in rulings:
                made[("ruling", r.seq)] = (ruling_row(r, with_validity=with_validity),
                                           ev.seq, ev.ext_id)
                for i, sn in enumerate(r.sanctions):
                    made[("sanction", (r.seq, i))] = (sanction_row(sn, i), ev.seq, ev.ext_id)
    except Exception as exc:  # a forged payload may break the replay anywhere: say where
        at = current[0] if current else None
        audit.add("audit.replay-failed",
                  error=exc.code if isinstance(exc, SudyaError) else type(exc).__name__,
                  event=at.ext_id if at else "", seq=at.seq if at else 0,
                  order=at.seq if at else 0)
        return
    if state is not None:
        for sn in state.engine.revocations:
            given, by = sn.ruling, sn.revoked_by
            assert given is not None and by is not None
            revoker = made.get(("ruling", by.seq))
            made[("revocation", ((given.seq, given.sanctions.index(sn)), by.seq))] = (
                {}, revoker[1] if revoker else 0, by.event)
    for key, (row, seq, event) in made.items():
        link = stored.get(key)
        if link is None:
            audit.add("audit.removed", table=key[0], event=event, seq=seq,
                      position=_position(key), order=seq)
            continue
        for column, value in row.items():
            if _same(value, link.row[column]):
                continue
            audit.add("audit.differs", **_where(link), column=column,
                      stored=_shown(link.row[column]), replayed=_shown(value))
            break
    for key, link in stored.items():
        if key not in made:
            audit.add("audit.inserted", **_where(link))


class _Event:
    """A stored event row with the attributes the replay reads."""

    def __init__(self, link: chain.Link) -> None:
        self.kind: str = link.row["kind"]
        self.payload: dict[str, Any] = link.row["payload"]
        self.ext_id: str = link.row["ext_id"]
        self.seq: int = link.seq


def _key(link: chain.Link) -> Any:
    if link.table == "ruling":
        return link.row["position"]
    if link.table == "sanction":
        return (link.keys["ruling"], link.row["position"])
    s = link.keys["sanction"]
    return ((s[0], s[1]) if s else None, link.keys["ruling"])


def _position(key: tuple[str, Any]) -> Any:
    return key[1] if key[0] == "ruling" else json.dumps(key[1])


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _same(a: Any, b: Any) -> bool:
    return a == b or _canonical(a) == _canonical(b)


def _shown(value: Any) -> str:
    text = value if isinstance(value, str) else _canonical(value)
    return text if len(text) <= 80 else text[:79] + "…"


__all__ = ["verify", "last_check", "SeriesAudit", "Problem", "LastCheck"]
