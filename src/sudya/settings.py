"""Settings, read from the environment (prefix SUDYA_) when the app or CLI starts."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from sudya.db.session import PoolSettings


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SUDYA_")

    database_url: str = "sqlite:///sudya.db"
    lang: str = "ru"
    secret: str | None = None  # signs CSRF tokens; a random one per process when unset
    # the connection pool of each process (see PoolSettings): SUDYA_DB_POOL_SIZE, …
    db_pool_size: int = Field(default=PoolSettings.size, ge=1, le=1000)
    db_pool_overflow: int = Field(default=PoolSettings.overflow, ge=0, le=1000)
    db_pool_timeout: float = Field(default=PoolSettings.timeout, gt=0, le=3600)
    db_busy_timeout: float = Field(default=PoolSettings.busy_timeout, gt=0, le=3600)
    # how long a write waits for its series' turn in this process before it is refused
    write_timeout: float = Field(default=30.0, gt=0, le=3600)

    def pool(self) -> PoolSettings:
        return PoolSettings(size=self.db_pool_size, overflow=self.db_pool_overflow,
                            timeout=self.db_pool_timeout, busy_timeout=self.db_busy_timeout)
