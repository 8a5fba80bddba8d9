"""A preview is bound to what it previewed: a token that carries the command's hash.

The preview answers a token, an HMAC (the app's secret) over the decoded command's canonical
payload, the tournament and the user. The confirm sends it back with the form's fields; the
server decodes the fields again and recomputes the token, so a confirm whose command is not
the previewed one (another player chosen after the preview, a stale page, a form changed by
hand) is refused and nothing is recorded. The token is no secret of the user's and no
permission: it only says "this exact command was shown to this user in this tournament".

The judge's note («Что произошло») is not signed: it is their account of the incident, not a
fact the rule reads, so the ruling previewed is the same whatever it says, and a judge types it
while the ruling is on the screen. (A command without a note signs as it always did: tokens
made before the note was left out still hold for such commands.)
"""

from __future__ import annotations

import hashlib
import hmac

import orjson

from sudya.domain.commands import Command

VERSION = "p1"  # a new way of hashing gets a new prefix, so old tokens are refused cleanly


def canonical(tournament: int, user: str, cmd: Command) -> bytes:
    """The bytes the token signs: the command as the ledger would store it without the
    judge's note, sorted keys."""
    payload = cmd.payload()
    payload.pop("note", None)
    return orjson.dumps({"tournament": tournament, "user": user, "kind": cmd.kind,
                         "command": payload}, option=orjson.OPT_SORT_KEYS)


def token(secret: str, tournament: int, user: str, cmd: Command) -> str:
    """The preview token of a command previewed by `user` in a tournament."""
    digest = hmac.new(secret.encode(), canonical(tournament, user, cmd), hashlib.sha256)
    return f"{VERSION}.{digest.hexdigest()}"


def same(secret: str, tournament: int, user: str, cmd: Command, given: str | None) -> bool:
    """Whether `given` is the token of exactly this command (a constant-time comparison)."""
    if not given or len(given) > 200:
        return False
    return hmac.compare_digest(token(secret, tournament, user, cmd), given)
