"""Settings, read from the environment (prefix SUDYA_) when the app or CLI starts."""

from __future__ import annotations

import hashlib
import ipaddress
import os
import secrets
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from sudya.adapters.db.session import PoolSettings


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SUDYA_")

    database_url: str = "sqlite:///sudya.db"
    lang: str = "ru"
    # signs CSRF and preview tokens; unset: one made on the first start and kept in the
    # database, shared by every worker and restart (sudya.app.secret)
    secret: str | None = None
    # the connection pool of each process (see PoolSettings): SUDYA_DB_POOL_SIZE, …
    db_pool_size: int = Field(default=PoolSettings.size, ge=1, le=1000)
    db_pool_overflow: int = Field(default=PoolSettings.overflow, ge=0, le=1000)
    db_pool_timeout: float = Field(default=PoolSettings.timeout, gt=0, le=3600)
    db_busy_timeout: float = Field(default=PoolSettings.busy_timeout, gt=0, le=3600)
    # how long a write waits for its series' turn in this process before it is refused
    write_timeout: float = Field(default=30.0, gt=0, le=3600)
    # how many events a scenario sent to POST /api/v1/replay may hold (the body's 1 MB holds
    # about 10,000): anyone may replay, so a stranger's replay costs at most a moment's CPU
    replay_events_anonymous: int = Field(default=2000, ge=1, le=10_000_000)
    replay_events_signed_in: int = Field(default=100_000, ge=1, le=10_000_000)
    # how long a judge may take back a ruling they just recorded (the undo after confirming;
    # a correction like any other, append-only)
    undo_seconds: int = Field(default=120, ge=0, le=3600)
    # the reverse proxies whose X-Forwarded-For / -Proto are believed (addresses or networks,
    # comma-separated: SUDYA_TRUSTED_PROXIES=127.0.0.1,10.0.0.0/8); none by default, so a
    # client cannot name its own address to the login throttle
    trusted_proxies: Annotated[list[str], NoDecode] = Field(default_factory=list)
    # engine snapshots, so that a restarted server does not replay a whole season before its
    # first ruling (services.snapshots): signed with SUDYA_SECRET when it is set, otherwise
    # with a key kept in this file (made on first use, readable by its owner only); off with
    # SUDYA_SNAPSHOTS=false
    snapshots: bool = True
    # a file a line is appended to after each committed event: the series' chain head, kept
    # outside the database (`sudya audit verify --head`); none by default
    anchor_file: Path | None = None
    snapshot_key_file: Path = Path.home() / ".local" / "state" / "sudya" / "snapshot.key"

    @field_validator("trusted_proxies", mode="before")
    @classmethod
    def _proxies(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = [part.strip() for part in value.split(",") if part.strip()]
        if isinstance(value, list):
            for part in value:
                try:
                    ipaddress.ip_network(str(part), strict=False)
                except ValueError:
                    raise ValueError(f"{part!r} is not an IP address or network "
                                     "(such as 127.0.0.1 or 10.0.0.0/8)") from None
        return value

    def snapshot_key(self) -> bytes | None:
        """The key engine snapshots are signed with (None: snapshots are off)."""
        if not self.snapshots:
            return None
        if self.secret:
            return hashlib.sha256(b"sudya snapshots\n" + self.secret.encode()).digest()
        path = self.snapshot_key_file
        try:
            return bytes.fromhex(path.read_text(encoding="ascii").strip())
        except (OSError, ValueError):
            pass
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            key = secrets.token_bytes(32)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="ascii") as out:
                out.write(key.hex())
            return key
        except FileExistsError:  # another worker made it just now
            return bytes.fromhex(path.read_text(encoding="ascii").strip())
        except OSError:
            return None  # nowhere to keep a key: no snapshots, every restart replays

    def pool(self) -> PoolSettings:
        return PoolSettings(size=self.db_pool_size, overflow=self.db_pool_overflow,
                            timeout=self.db_pool_timeout, busy_timeout=self.db_busy_timeout)
