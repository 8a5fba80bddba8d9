"""Replaying a long history: the cyclic garbage collector is paused while it runs.

Rulings and sanctions refer to each other, so every object a replay creates is tracked by the
collector, and its full collections grow with the heap: a season's replay would slow down as
it goes. Nothing a replay creates is garbage until it ends, so the collector waits; and when
it resumes, what the replay made is settled in the oldest generation (`settle`).
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
        settle()
        if was_enabled:
            gc.enable()


def settle() -> None:
    """Move every object the collector tracks to its oldest generation, unscanned.

    A replayed or restored engine is hundreds of thousands of objects that live as long as
    the server, all young: the first collection after it would walk them all (0.2-0.4 s of a
    cold start here, 10-13 % of a 100,000-event replay) only to promote them, and the next
    one again. `freeze` moves them out of the young generations at once (a list splice, no
    walk), `unfreeze` puts them in the oldest, where only a full collection looks at them (it
    still frees them once the state is dropped). Sudya freezes nothing else, so there is
    nothing else to thaw.
    """
    gc.freeze()
    gc.unfreeze()
