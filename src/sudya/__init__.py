"""Sudya (судья): penalty regulations as a running system for tournament judges."""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"


def replay(scenario: dict[str, Any]) -> dict[str, Any]:
    """Replay a scenario (see docs/scenarios.md) and return rulings and subjects."""
    from sudya.app.scenario import replay as _replay

    return _replay(scenario)


__all__ = ["replay", "__version__"]
