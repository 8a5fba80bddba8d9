"""The secret the server signs its CSRF and preview tokens with, shared by every worker and
every restart: SUDYA_SECRET when set, else one made on the first start and kept in the
database (the first worker to start makes it; the others read it)."""

from __future__ import annotations

import secrets

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from sudya.adapters.db import models as m
from sudya.app.ledger import Ledger

NAME = "tokens"


def shared_secret(ledger: Ledger, given: str | None = None) -> str:
    """`given` (SUDYA_SECRET), or the database's, made now if it has none yet."""
    if given:
        return given
    with ledger.factory() as s:
        found = s.scalar(select(m.ServerSecret.value).where(m.ServerSecret.name == NAME))
    if found is not None:
        return str(found)
    try:
        with ledger.uow().begin() as s:
            s.add(m.ServerSecret(name=NAME, value=secrets.token_hex(32)))
    except IntegrityError:  # another worker made it at the same moment: theirs
        pass
    with ledger.factory() as s:
        return str(s.scalar(select(m.ServerSecret.value).where(m.ServerSecret.name == NAME)))
