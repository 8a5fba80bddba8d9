"""Helpers for the rulebook tests: the tiny rulebook, writing a variant, the loader's refusal."""

from __future__ import annotations

from pathlib import Path

import pytest

from sudya.domain.errors import RulebookError
from sudya.domain.rulebook import loader

DATA = Path(__file__).parent / "data"
TINY = (DATA / "tiny.yaml").read_text("utf-8")


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "rules.yaml"
    path.write_text(text, "utf-8")
    return path


def refusal(path: Path) -> str:
    """The loader's message for a rulebook file it refuses."""
    with pytest.raises(RulebookError) as info:
        loader.load_file(path)
    return str(info.value)
