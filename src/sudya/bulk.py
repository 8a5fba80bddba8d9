"""Replaying a long history: the cyclic garbage collector is paused while it runs.

Rulings and sanctions refer to each other, so every object a replay creates is tracked by the
collector, and its full collections grow with the heap: a season's replay would slow down as
it goes. Nothing a replay creates is garbage until it ends, so the collector waits.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic collector for a bulk replay (reference counting still frees)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
