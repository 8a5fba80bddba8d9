"""Engine snapshots: a restarted server starts a series' engine from its last snapshot.

A season's series holds 100,000 events; replaying them all on the first request after a
restart would hold that request for many seconds. So when a server shuts down it stores each
engine it has as of its last event `seq`, and a restart loads it and replays only the events
since. (Not while it serves: pickling a season's engine holds its writers for seconds. After
a crash, the restart replays from the last snapshot there is.)

A snapshot is a cache, never the truth: the events are. It is used only if all of these hold,
and otherwise ignored and rebuilt from the events:

- its signature: `digest` is an HMAC-SHA256 of `data` under the server's key (SUDYA_SECRET,
  or a key file of the server's: `Settings.snapshot_key`). Only then is `data` unpickled,
  so a forged row in the database cannot run code;
- the ledger still holds what it was made from: the event at `seq` has the hash `chain`
  (db.chain), which covers every stored row up to it;
- the same code and rulebooks made it: `code` is a hash of Sudya's version, the engine's
  source, the rulebook files and the editions stored in the ledger.

The rulebooks are not stored in the snapshot: each rulebook object the state refers to (the
rulebook, its infractions, sanctions, formulas…) is written as its place in the rulebook and
found again in the rulebook as loaded, so the restored engine shares the loaded rulebooks as a
rebuilt one does.
"""

from __future__ import annotations

import copyreg
import datetime as dt
import functools
import hashlib
import hmac
import io
import pickle
import threading
from collections.abc import Iterator
from enum import Enum
from importlib import metadata
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from sqlalchemy import Connection, delete, insert, select

from sudya.adapters.db import models as m
from sudya.app.common import SeriesRef, load_book
from sudya.domain.bulk import paused_gc
from sudya.domain.engine import core
from sudya.domain.rulebook import loader
from sudya.domain.rulebook.schema import Rulebook

_PLAIN = (str, bytes, int, float, bool, type(None), dt.date, Enum)


def code_hash() -> str:
    """Sudya's version, the source of the engine and of the state kept around it, every
    rulebook file on the search path, and every rulebook edition stored in the ledger (their
    SHA-256s, as registered with the loader): a snapshot made under another set of editions
    is rebuilt from the events."""
    stored = sorted((rid, n, sha) for rid in loader.bundled_ids()
                    for n, sha in loader.stored_editions(rid).items())
    if not stored:
        return _files_hash()
    h = hashlib.sha256(_files_hash().encode())
    for rid, n, sha in stored:
        h.update(f"{rid}\0{n}\0{sha}\0".encode())
    return h.hexdigest()


@functools.lru_cache(maxsize=1)
def _files_hash() -> str:
    h = hashlib.sha256(metadata.version("sudya").encode())
    here = Path(__file__).parent
    files = [*sorted(Path(core.__file__).parent.glob("*.py")), here / "projection.py",
             here / "snapshots.py"]
    for folder in loader.search_path():
        files += sorted(folder.glob("*.yaml"))
    for path in files:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def _objects(book: Rulebook) -> list[Any]:
    """Every object a rulebook is made of, in an order that is the same each time the same
    file is loaded (fields in their declared order, lists and mappings in theirs)."""
    found: list[Any] = []
    seen: set[int] = set()

    def walk(obj: Any) -> None:
        if isinstance(obj, _PLAIN) or id(obj) in seen:
            return
        seen.add(id(obj))
        found.append(obj)
        if isinstance(obj, BaseModel):
            for name in type(obj).model_fields:
                walk(getattr(obj, name))
        elif isinstance(obj, dict):
            for value in obj.values():
                walk(value)
        elif isinstance(obj, list | tuple):
            for value in obj:
                walk(value)

    walk(book)
    return found


_loading = threading.local()  # the rulebooks' objects while a snapshot is unpickled


def _part(book: int, k: int) -> Any:
    """A rulebook's object, by its place (what a snapshot holds instead of the object)."""
    return _loading.objects[book][k]


def _pickler(out: io.BytesIO, books: list[Rulebook]) -> pickle.Pickler:
    """A pickler that writes the rulebooks' objects as their places. Through its dispatch
    table, so that only objects of the rulebooks' own types cost a call in Python: the
    rulings and sanctions (most of a state) are pickled at the C pickler's speed."""
    places: dict[int, tuple[int, int]] = {}
    kinds: set[type] = set()
    for i, book in enumerate(books):
        for k, obj in enumerate(_objects(book)):
            places[id(obj)] = (i, k)
            if not isinstance(obj, dict | list | tuple):
                kinds.add(type(obj))

    def reduce(obj: Any) -> Any:
        place = places.get(id(obj))
        if place is None:  # one of those types, but not of the rulebooks: as pickle does
            return obj.__reduce_ex__(pickle.HIGHEST_PROTOCOL)
        return _part, place

    pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = {**copyreg.dispatch_table, **dict.fromkeys(kinds, reduce)}
    return pickler


def _sign(key: bytes, data: bytes) -> str:
    return hmac.new(key, data, hashlib.sha256).hexdigest()


def dumps(state: Any) -> tuple[list[str], bytes]:
    """The editions a state uses and the state, pickled without its rulebooks."""
    books = list(state.books.values())
    if state.engine.book not in books:
        books.append(state.engine.book)
    out = io.BytesIO()
    with paused_gc():
        _pickler(out, books).dump(state)  # `books` stays alive: no id above is reused meanwhile
    editions = [b.edition for b in books]
    return editions, pickle.dumps(editions) + out.getvalue()


def loads(series: SeriesRef, data: bytes) -> Any:
    stream = io.BytesIO(data)
    editions = pickle.load(stream)  # noqa: S301 — signed data (see `restore`)
    books = [load_book(series.rulebook, e) for e in editions]
    _loading.objects = [_objects(book) for book in books]
    try:
        # millions of objects, none of them garbage: no collections, and settled in the
        # oldest generation once loaded (bulk.settle)
        with paused_gc():
            state = pickle.load(stream)  # noqa: S301 — signed data (see `restore`)
        return state
    finally:
        del _loading.objects


def store(conn: Connection, key: bytes, series_id: int, seq: int, data: bytes) -> None:
    """Store a pickled state (`dumps`) as of event `seq` as the series' snapshot, in the
    caller's transaction, replacing older ones."""
    chain = conn.execute(select(m.Event.chain).where(
        m.Event.series_id == series_id, m.Event.seq == seq)).scalar_one_or_none()
    if chain is None:
        return
    conn.execute(delete(m.EngineSnapshot).where(m.EngineSnapshot.series_id == series_id))
    conn.execute(insert(m.EngineSnapshot).values(
        series_id=series_id, seq=seq, chain=chain, code=code_hash(),
        digest=_sign(key, data), data=data, created_at=m.now()))


def restore(conn: Connection, key: bytes, series: SeriesRef, upto: int) -> Any | None:
    """The series' snapshot as a state, if it can be trusted (see the module's docstring)
    and covers no event after `upto`; None otherwise."""
    for row in _candidates(conn, series.id, upto):
        if row.code != code_hash() or not hmac.compare_digest(row.digest,
                                                              _sign(key, row.data)):
            continue
        chain = conn.execute(select(m.Event.chain).where(
            m.Event.series_id == series.id, m.Event.seq == row.seq)).scalar_one_or_none()
        if chain != row.chain:
            continue  # the ledger changed under it (or was restored from elsewhere)
        state = loads(series, row.data)
        if state.seq == row.seq:
            return state
    return None


def _candidates(conn: Connection, series_id: int, upto: int) -> Iterator[Any]:
    yield from conn.execute(select(m.EngineSnapshot).where(
        m.EngineSnapshot.series_id == series_id, m.EngineSnapshot.seq <= upto)
        .order_by(m.EngineSnapshot.seq.desc()).limit(1))


def stored_seq(conn: Connection, series_id: int) -> int:
    """The event the series' snapshot is as of (0: none)."""
    return conn.execute(select(m.EngineSnapshot.seq).where(
        m.EngineSnapshot.series_id == series_id)).scalar() or 0


def current(conn: Connection, series_id: int, seq: int) -> bool:
    """Whether the series has a snapshot as new as event `seq` made by this code (one made
    by another version is replaced even when no event came since)."""
    return conn.execute(select(m.EngineSnapshot.id).where(
        m.EngineSnapshot.series_id == series_id, m.EngineSnapshot.seq >= seq,
        m.EngineSnapshot.code == code_hash())).first() is not None


__all__ = ["code_hash", "current", "dumps", "loads", "restore", "store", "stored_seq"]
