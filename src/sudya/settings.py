"""Settings, read from the environment (prefix SUDYA_) when the app or CLI starts."""

from __future__ import annotations

from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SUDYA_")

    database_url: str = "sqlite:///sudya.db"
    lang: str = "ru"
    secret: str | None = None  # signs CSRF tokens; a random one per process when unset
