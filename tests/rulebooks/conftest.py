"""Rulebook tests load only the bundled rulebooks and the files they write themselves."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def no_extra_rulebook_folders(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SUDYA_RULEBOOK_PATH", raising=False)
