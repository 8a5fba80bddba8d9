"""One writer per series in this process: the writes waiting for a series go to the database
together, in one transaction (group commit), and each is answered after that commit.

A judge's record waits as a future (a thread blocked on it, or a coroutine awaiting it:
neither holds a connection), not for the series' lock. The series' writer thread takes
everything queued so far, in arrival order, takes the series' turn and one writing
transaction, runs each write — a job that keeps its rows under a savepoint of its own
(Ledger._store), so a refused write is rolled back alone and answered with its refusal while
the others stay — commits once — one fsync for the whole
batch — and answers every future. So a busy series costs one durable commit per batch, not one
per ruling, and the answers still come only once what they say is on disk. A write that
waited longer than the write timeout before its batch began is refused as busy (nothing
stored). A writer thread that has had nothing to do for a while ends; the next write starts
another.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from sudya.app.common import LedgerError

BATCH = 64  # writes in one transaction at most: a batch's answers wait for all of it
IDLE = 5.0  # seconds a writer thread waits for work before it ends

# a write of the batch: it keeps its rows under a savepoint of its own and rolls that back
# when it raises, so the batch's transaction goes on without it
Job = Callable[[Session], Any]


@dataclass
class _Waiting:
    job: Job
    sent: float
    future: Future[Any] = field(default_factory=Future)


class SeriesQueue:
    """The writes of one series waiting for its writer thread."""

    def __init__(self, series: int, writing: Callable[[], AbstractContextManager[Session]],
                 timeout: Callable[[], float], on_error: Callable[[], None]) -> None:
        self.series = series
        self._writing = writing  # the series' turn and one writing transaction
        self._timeout = timeout
        self._on_error = on_error  # a batch that failed as a whole: drop the cached engine
        self._jobs: deque[_Waiting] = deque()
        self._mutex = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False

    def submit(self, job: Job) -> Future[Any]:
        waiting = _Waiting(job, time.monotonic())
        with self._mutex:
            if self._closed:
                raise LedgerError("ledger.busy", seconds=self._timeout())
            self._jobs.append(waiting)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True,
                                                name=f"sudya-series-{self.series}")
                self._thread.start()
            else:
                self._mutex.notify()
        return waiting.future

    def close(self) -> None:
        """Let the writes already sent finish, then end the thread (the server stops)."""
        with self._mutex:
            self._closed = True
            thread = self._thread
            self._mutex.notify()
        if thread is not None:
            thread.join()

    def _take(self) -> list[_Waiting]:
        with self._mutex:
            while not self._jobs:
                if (self._closed or not self._mutex.wait(IDLE)) and not self._jobs:
                    self._thread = None  # idle (or closing): the next write starts another
                    return []
            batch: list[_Waiting] = []
            while self._jobs and len(batch) < BATCH:
                batch.append(self._jobs.popleft())
            return batch

    def _run(self) -> None:
        while True:
            batch = self._take()
            if not batch:
                return
            self._write(batch)

    def _write(self, batch: list[_Waiting]) -> None:
        timeout = self._timeout()
        now = time.monotonic()
        ready = []
        for w in batch:
            if now - w.sent > timeout:
                w.future.set_exception(LedgerError("ledger.busy", seconds=timeout))
            elif w.future.set_running_or_notify_cancel():
                ready.append(w)
        if not ready:
            return
        answers: list[tuple[_Waiting, bool, Any]] = []
        try:
            with self._writing() as s:
                for w in ready:
                    try:  # (the job's own savepoint: a second one here costs two statements)
                        answers.append((w, True, w.job(s)))
                    except Exception as exc:  # this write alone is refused: the rest stay
                        answers.append((w, False, exc))
        except BaseException as exc:  # the batch did not commit: nothing of it is stored
            self._on_error()
            for w in ready:
                if not w.future.done():
                    w.future.set_exception(exc)
            if not isinstance(exc, Exception):
                raise
            return
        for w, ok, value in answers:  # answered once the whole batch is on disk
            if ok:
                w.future.set_result(value)
            else:
                w.future.set_exception(value)
