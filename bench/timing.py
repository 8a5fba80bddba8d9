"""Timing for the benchmarks: what is measured and its baseline, called in turns."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping


def interleaved(measures: Mapping[str, Callable[[], object]],
                repeat: int) -> dict[str, list[float]]:
    """Each call's seconds, `repeat` times, the calls taken in turns in every round: a
    neighbour's load, or a disk slowing down for a while, weighs on all of them alike."""
    took: dict[str, list[float]] = {name: [] for name in measures}
    for _ in range(repeat):
        for name, call in measures.items():
            t0 = time.perf_counter()
            call()
            took[name].append(time.perf_counter() - t0)
    return took
