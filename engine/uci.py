"""The UCI loop: a reader that never waits, and one owner of the engine state.

The reader (whoever calls ``handle``: the main thread, reading stdin) answers
at once what must be answered at once (``isready`` while a long command
runs, ``stop``, ``ponderhit``, ``quit``) and queues everything else. The owner
thread takes the queued commands one at a time and carries them out on the
Session, which no other thread touches; long commands (``go``, ``perft``,
``bench``) run there too, inside Cython with the GIL released. A long
command counts as running from the moment the reader queues it until its
last line (``bestmove``) is written, and that line is written together with
its end: whatever the GUI sends after ``bestmove`` finds the engine idle.

>>> import io
>>> uci = Uci(io.StringIO())
>>> uci.handle("position startpos moves e2e4 e7e5")
True
>>> uci.wait_idle()
>>> uci.session.board.fen()
'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2'
>>> uci.handle("quit")
False
"""
from __future__ import annotations

import queue
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TextIO

from engine._core import monotonic_ms
from engine.job import Job
from engine.options import OptionError
from engine.paths import NETS_DIR
from engine.protocol import UciError, parse_go
from engine.session import Session, check_bench_args, check_perft_args

QUIT = object()
REPORT = object()                   # a queued item that only writes an error, in turn
OWNER_STACK = 64 * 1024 * 1024      # the search recurses in C, with a move buffer a ply


class Uci:
    """One UCI session: ``handle`` takes a line, ``run`` a whole input stream."""

    def __init__(self, out: TextIO = sys.stdout, nets_dir: Path = NETS_DIR, research: bool = False) -> None:
        self.out = out
        self.closed = False                 # the output pipe is gone
        self._out_lock = threading.Lock()
        self.session = Session(self.send, nets_dir, research=research)
        self._queue: queue.Queue = queue.Queue()
        self._jobs: list[Job] = []          # long commands queued or running, oldest first
        self._jobs_lock = threading.Lock()
        self._jobs_changed = threading.Condition(self._jobs_lock)   # a job begun or ended
        self._quitting = False
        self._quick = {
            "uci": self.session.uci, "isready": self.session.isready,
            "setoption": self.session.setoption, "ucinewgame": self.session.ucinewgame,
            "position": self.session.position, "d": self.session.display,
            "eval": self.session.evaluation, "nmm": self.session.nmm,
            "debug": self.session.debug_mode, "register": lambda args: None,
        }
        self._reader = {"go": self._go, "perft": self._perft, "bench": self._bench,
                        "stop": self._stop, "ponderhit": self._ponderhit,
                        "isready": self._isready, "setoption": self._setoption}
        old = threading.stack_size(OWNER_STACK)
        try:
            self._owner = threading.Thread(target=self._own, name="uci-owner", daemon=True)
            self._owner.start()
        finally:
            threading.stack_size(old)

    # --- output ------------------------------------------------------------------

    def send(self, line: str) -> None:
        """Write one line and flush it (from either thread)."""
        with self._out_lock:
            self._write(line)

    def _write(self, line: str) -> None:
        if self.closed:
            return
        try:
            self.out.write(line + "\n")
            self.out.flush()
        except (OSError, ValueError):       # the GUI has gone: nobody is listening
            self.closed = True


    # --- the reader's side -----------------------------------------------------------

    def handle(self, line: str) -> bool:
        """Take one line; False once the session ends (``quit``).

        As the protocol asks, unknown leading tokens are skipped, so
        ``joho debug on`` is read as ``debug on``.
        """
        arrived = monotonic_ms()
        tokens = line.split()
        for i, token in enumerate(tokens):
            if token == "quit":
                self.quit()
                return False
            if token in self._reader:
                self._reader[token](tokens[i + 1:], arrived)
                return True
            if token in self._quick:
                self._queue.put((token, tokens[i + 1:], None))
                return True
        if tokens:
            self._error(f"unknown command: {line.strip()[:100]}")
        return True

    def run(self, lines: Iterable[str]) -> None:
        for line in lines:
            if not self.handle(line):
                return
        self.quit()                         # the end of the input counts as quit

    def _isready(self, args: list[str], arrived: float) -> None:
        """While a long command runs, answer at once; else in turn, so that
        ``readyok`` also means "everything before has been done". A long
        command still queued behind others is waited for until the owner
        takes it up: the commands before it are done by then."""
        with self._jobs_lock:
            self._jobs_changed.wait_for(lambda: not self._jobs or self._jobs[0].begun)
            busy = bool(self._jobs)
        if busy:
            self.send("readyok")
        else:
            self._queue.put(("isready", args, None))

    def _error(self, text: str) -> None:
        """An error the reader finds: at once while a long command runs, else
        in turn with what the owner writes (after ``uciok`` for an earlier
        ``uci``, say)."""
        with self._jobs_lock:
            busy = bool(self._jobs)
        if busy:
            self.session.error(text)
        else:
            self._queue.put((REPORT, [text], None))

    def _setoption(self, args: list[str], arrived: float) -> None:
        if self._searching():
            self.session.error("setoption during a search: it takes effect when the search has ended")
        self._queue.put(("setoption", args, None))

    def _go(self, args: list[str], arrived: float) -> None:
        if args[:1] == ["perft"]:
            self._perft(args[1:], arrived)
            return
        go = parse_go(args)
        with self._jobs_lock:
            waiting = [job for job in self._jobs if job.go and (job.go.waits_for_stop or job.pondering)]
        for job in waiting:                 # a GUI that forgot stop: it would wait for ever
            self.session.error("go while a search waits for stop or ponderhit: stopping that one first")
            job.stop()
        self._queue_job(Job("go", arrived, go), args)

    def _perft(self, args: list[str], arrived: float) -> None:
        self._queue_job(Job("perft", arrived), args, check=check_perft_args)

    def _bench(self, args: list[str], arrived: float) -> None:
        self._queue_job(Job("bench", arrived), args, check=check_bench_args)

    def _queue_job(self, job: Job, args: list[str],
                   check: Callable[[list[str]], int] | None = None) -> None:
        """Queue a long command; one with bad arguments is refused here, so
        that it is never counted as running."""
        if check is not None:
            try:
                check(args)
            except UciError as e:
                self._error(str(e))
                return
        with self._jobs_lock:
            self._jobs.append(job)
        self._queue.put((job.kind, args, job))

    def _stop(self, args: list[str], arrived: float) -> None:
        with self._jobs_lock:
            jobs = list(self._jobs)
        for job in jobs:
            job.stop()

    def _ponderhit(self, args: list[str], arrived: float) -> None:
        with self._jobs_lock:
            pondering = [job for job in self._jobs if job.pondering]
        if not (pondering and pondering[-1].ponderhit(arrived)):
            self._error("ponderhit without a ponder search: ignored")

    def _searching(self) -> bool:
        with self._jobs_lock:
            return any(job.kind == "go" for job in self._jobs)

    def quit(self) -> None:
        """Stop every search (perft and bench still print their counts, as
        Stockfish's do: ``echo bench | nmm-chess`` works) and return once the
        owner has written its last line."""
        if self._quitting:
            return
        self._quitting = True
        with self._jobs_lock:
            jobs = [job for job in self._jobs if job.kind == "go"]
        for job in jobs:
            job.stop()
        self._queue.put(QUIT)
        self._owner.join()

    def wait_idle(self) -> None:
        """Return once every queued command has been carried out (for tests)."""
        self._queue.join()

    # --- the owner's side --------------------------------------------------------------

    def _own(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if item is QUIT:
                    self.session.save_memory()      # the move tables outlive the process
                    return
                name, args, job = item
                if name is REPORT:
                    self.session.error(args[0])
                elif job is None:
                    self._carry_out(name, args)
                else:
                    self._begin(job)
                    self._end(job, self._run_job(job, args))
            finally:
                self._queue.task_done()

    def _carry_out(self, name: str, args: list[str]) -> None:
        try:
            self._quick[name](args)
        except (UciError, OptionError) as e:
            self.session.error(str(e))
        except Exception as e:              # the engine must outlive any bad line
            self.session.error(f"in '{name}': {type(e).__name__}: {e}")

    def _run_job(self, job: Job, args: list[str]) -> list[str]:
        """The job's last lines; a go always ends with a bestmove, whatever happens."""
        try:
            if job.kind == "go":
                return self.session.go(job)
            if job.kind == "perft":
                return self.session.perft(job, args)
            return self.session.bench(job, args)
        except (UciError, OptionError) as e:
            lines = [f"info string error: {e}"]
        except Exception as e:
            lines = [f"info string error: in '{job.kind}': {type(e).__name__}: {e}"]
        if job.kind == "go":
            legal = self.session.board.legal_moves()
            lines.append(f"bestmove {legal[0] if legal else '0000'}")
        return lines

    def _begin(self, job: Job) -> None:
        """Mark the job taken up: everything queued before it is done."""
        with self._jobs_lock:
            job.begun = True
            self._jobs_changed.notify_all()

    def _end(self, job: Job, lines: list[str]) -> None:
        """Write the job's last lines and end it, as one step for the reader."""
        with self._out_lock:
            with self._jobs_lock:
                self._jobs.remove(job)
                self._jobs_changed.notify_all()
            for line in lines:
                self._write(line)


def main(inp: TextIO = sys.stdin, out: TextIO = sys.stdout, research: bool = False) -> None:
    """``research``: the uci list shows the research switches too (engine.options.listed)."""
    if hasattr(inp, "reconfigure"):
        inp.reconfigure(errors="replace")   # a stray byte must not end the session
    Uci(out, research=research).run(inp)
