"""Static files under content-hashed names, cached for a year; the plain names for a while.

At startup (`Assets(folder)`, in create_app) every file of static/ is read once and named by
its content: `app.css` is linked as `/static/app.<10 hex of its SHA-256>.css`. A hashed URL
never changes meaning — a new file is a new name — so it is served with `Cache-Control:
public, max-age=31536000, immutable` and a phone at the venue fetches it once. The plain name
(`/static/app.css`, for what was cached or linked before) stays served, with a short max-age,
and so is a hashed name whose hash is no longer the file's (an old page): the file as it is
now, not immutable. Templates get the URL from the jinja global `static_url('app.css')`.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

IMMUTABLE = "public, max-age=31536000, immutable"
SHORT = "public, max-age=300"  # the plain names: a new deployment is picked up in minutes
HASHED = re.compile(r"^(?P<stem>.+)\.(?P<hash>[0-9a-f]{10})(?P<suffix>\.[A-Za-z0-9]+)$")


class Assets:
    """The hashed name of every static file, computed once from its content."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.hashed: dict[str, str] = {}  # "app.css" -> "app.<hash>.css"
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                name = path.relative_to(folder).as_posix()
                digest = hashlib.sha256(path.read_bytes()).hexdigest()[:10]
                stem, dot, suffix = name.rpartition(".")
                self.hashed[name] = f"{stem}.{digest}.{suffix}" if dot else f"{name}.{digest}"
        self.original = {v: k for k, v in self.hashed.items()}

    def url(self, name: str) -> str:
        """The URL a page links a static file by (its hashed name; KeyError: no such file)."""
        return f"/static/{self.hashed[name]}"


class StaticAssets(StaticFiles):
    """static/ served under both names: hashed for a year, plain for five minutes."""

    def __init__(self, assets: Assets) -> None:
        super().__init__(directory=assets.folder)
        self.assets = assets

    async def get_response(self, path: str, scope: Scope) -> Response:
        original = self.assets.original.get(path)
        stale = None if original is not None or path in self.assets.hashed else \
            HASHED.match(path)
        if stale:  # an old hashed name: the file as it is now (not immutable)
            original = f"{stale['stem']}{stale['suffix']}"
        response = await super().get_response(original or path, scope)
        if response.status_code in (200, 304):
            fresh = original is not None and not stale
            response.headers["Cache-Control"] = IMMUTABLE if fresh else SHORT
        return response


__all__ = ["Assets", "StaticAssets", "IMMUTABLE", "SHORT"]
