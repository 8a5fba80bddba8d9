"""Fault-injection points for the kill-mid-write tests: a process dies where a test asks.

`point(name)` does nothing unless the environment variable SUDYA_TEST_KILL_AT names that
point; then the process kills itself with SIGKILL, the way a power cut or the OOM killer
would end it: no exception, no `finally`, no rollback sent to the database. The variable
is read once, when this module is first imported, so that a point costs one string
comparison on the write path.
"""

from __future__ import annotations

import os
import signal

# read once per process: the tests set it in the environment of the child they start
_KILL_AT = os.environ.get("SUDYA_TEST_KILL_AT") or None


def point(name: str) -> None:
    """Die here, at once and without cleaning up, if SUDYA_TEST_KILL_AT equals `name`."""
    if name == _KILL_AT:
        os.kill(os.getpid(), signal.SIGKILL)
