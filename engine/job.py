"""A long command (``go``, ``perft``, ``bench``) as the two threads of the UCI
loop share it, from the moment the reader queues it until its last line is
written.

The reader thread calls ``stop`` and ``ponderhit`` whenever those lines
arrive; the owner thread calls ``start`` just before the search and
``finish_search`` after it. One lock orders the two, so a ``stop`` or
``ponderhit`` is never lost, whether it comes before the search has begun,
during it, or after it has ended and waits to answer.
"""
from __future__ import annotations

import threading
from collections.abc import Callable

from engine._core import clear_stop, request_stop
from engine.protocol import Go


class Job:
    def __init__(self, kind: str, arrived_ms: float, go: Go | None = None) -> None:
        self.kind = kind                    # "go", "perft" or "bench"
        self.arrived_ms = arrived_ms        # when its line was read (monotonic_ms)
        self.go = go
        self.stopped = False
        self.begun = False                  # the owner has taken it up (set under the UCI loop's lock)
        self.ponderhit_ms: float | None = None
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._running = False
        self._on_ponderhit: Callable[[float], None] | None = None

    @property
    def pondering(self) -> bool:
        """A ``go ponder`` that has had neither ponderhit nor stop."""
        return bool(self.go and self.go.ponder) and self.ponderhit_ms is None and not self.stopped

    @property
    def start_ms(self) -> float:
        """Where its clock starts: at ponderhit for a ponder search, else on arrival."""
        return self.ponderhit_ms if self.ponderhit_ms is not None else self.arrived_ms

    # --- the reader's side ------------------------------------------------------

    def stop(self) -> None:
        with self._lock:
            self.stopped = True
            if self._running:
                request_stop()
            self._changed.notify_all()

    def ponderhit(self, at_ms: float) -> bool:
        """The expected move was played. False, and nothing changes, unless
        this is a ponder search still pondering (a stray ponderhit must not
        restart a normal search's clock)."""
        with self._lock:
            if not self.pondering:
                return False
            self.ponderhit_ms = at_ms
            if self._on_ponderhit is not None:
                self._on_ponderhit(at_ms)
            self._changed.notify_all()
            return True

    # --- the owner's side -------------------------------------------------------

    def start(self, begin: Callable[[], None],
              on_ponderhit: Callable[[float], None] | None = None) -> None:
        """Set the stop flag for this job (raised if it was stopped already),
        call ``begin`` (which reads ``pondering`` and ``start_ms``), and from
        then on pass a ponderhit to ``on_ponderhit``; all under the lock."""
        with self._lock:
            if self.stopped:
                request_stop()
            else:
                clear_stop()
            begin()
            self._running = True
            self._on_ponderhit = on_ponderhit

    def finish_search(self) -> None:
        """The search has returned; for ``go infinite``, ``go ponder`` and a
        go with no limit, wait until the answer may be given (stop, or
        ponderhit for a ponder search with limits)."""
        with self._lock:
            self._running = False
            self._on_ponderhit = None
            while not self._may_answer():
                self._changed.wait()

    def _may_answer(self) -> bool:
        if self.stopped or self.go is None:
            return True
        if self.go.ponder and self.ponderhit_ms is None:
            return False
        return not self.go.waits_for_stop
