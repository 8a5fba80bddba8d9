"""Hot write statements run on the DBAPI cursor of the transaction's connection.

A ruling is written by about six small statements. Through `Connection.execute` each one costs
SQLAlchemy's execution context (cache key, parameter processing, result set-up): some 40 µs
of Python for a statement sqlite3 runs in 5 µs. A `Prepared` statement is compiled by
SQLAlchemy once per dialect and set of columns, with the columns' own bind processors (JSON
through the engine's serializer, dates and times as the dialect stores them), and is then run
on the DBAPI cursor with plain values. Its rows come back unprocessed, so it is meant for
statements returning ids, integers and strings. A database error is raised as SQLAlchemy's
(`IntegrityError` and the rest), as `Connection.execute` would raise it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql.dml import UpdateBase

Processor = Callable[[Any], Any]


class _Compiled:
    """One statement compiled for one dialect and one set of columns."""

    def __init__(self, stmt: UpdateBase, dialect: Dialect, keys: tuple[str, ...]) -> None:
        compiled = stmt.compile(dialect=dialect, column_keys=list(keys))
        self.sql = compiled.string
        self.fixed = {name: bind.effective_value for name, bind in compiled.binds.items()
                      if name not in keys and (bind.value is not None or bind.callable)
                      }  # the statement's own literal values
        missing = set(compiled.binds) - set(keys) - set(self.fixed)
        if missing:  # a column left to a Python-side default: not for this path
            raise ValueError(f"{sorted(missing)} not given for {self.sql!r}")
        self.positions = tuple(compiled.positiontup) if compiled.positiontup else None
        self.processors: dict[str, Processor] = {}
        for name, bind in compiled.binds.items():
            process = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if process is not None:
                self.processors[name] = process

    def parameters(self, values: Mapping[str, Any]) -> Sequence[Any] | dict[str, Any]:
        params = {**self.fixed, **values}
        for name, process in self.processors.items():
            params[name] = process(params[name])
        if self.positions is None:
            return params
        return tuple(params[name] for name in self.positions)


class Prepared:
    """A Core INSERT or UPDATE run on the DBAPI cursor (see the module's docstring)."""

    def __init__(self, stmt: UpdateBase) -> None:
        self.stmt = stmt
        self._compiled: dict[tuple[str, tuple[str, ...]], _Compiled] = {}

    def _for(self, dialect: Dialect, keys: tuple[str, ...]) -> _Compiled:
        found = self._compiled.get((dialect.name, keys))
        if found is None:
            found = self._compiled[dialect.name, keys] = _Compiled(self.stmt, dialect, keys)
        return found

    def run(self, conn: Connection, values: Mapping[str, Any]) -> tuple[Any, ...] | None:
        """Run the statement with `values` (by column or parameter name) in `conn`'s
        transaction; its RETURNING row, if it has one."""
        compiled = self._for(conn.dialect, tuple(values))
        params = compiled.parameters(values)
        dbapi = conn.connection.dbapi_connection
        assert dbapi is not None, "the connection was invalidated"
        cursor = dbapi.cursor()
        try:
            cursor.execute(compiled.sql, params)
            row = cursor.fetchone() if cursor.description else None
        except conn.dialect.loaded_dbapi.Error as exc:
            raise DBAPIError.instance(compiled.sql, params, exc,
                                      conn.dialect.loaded_dbapi.Error) from exc
        finally:
            cursor.close()
        return None if row is None else tuple(row)

    def many(self, conn: Connection, rows: Sequence[Mapping[str, Any]]) -> list[Any]:
        """Run it once per row; the first column of each RETURNING row (or None each)."""
        found = []
        for values in rows:
            row = self.run(conn, values)
            found.append(None if row is None else row[0])
        return found
