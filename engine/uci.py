"""The UCI loop: read commands, keep the position, run long jobs in a worker.

The main thread only parses lines and answers at once (``isready`` included);
anything long (perft, search) runs in a worker thread inside Cython with the
GIL released, so the reader is never blocked behind it.

>>> import io
>>> out = io.StringIO()
>>> uci = Uci(out)
>>> uci.handle("position startpos moves e2e4 e7e5")
True
>>> uci.board.fen()
'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2'
"""
from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterable
from typing import TextIO

from engine import __version__
from engine._core import STARTING_FEN, Board, clear_stop, request_stop

ENGINE_NAME = f"nmm-chess {__version__}"
AUTHOR = "the nmm-chess developers"


class UciError(ValueError):
    """A command that cannot be carried out; reported as ``info string``."""


def parse_position(tokens: list[str], chess960: bool = False) -> Board:
    """Build the board a ``position`` command describes (tokens after the word).

    Raises UciError naming the problem; the caller keeps its old board.

    >>> parse_position("fen 8/8/8/8/8/8/8/K6k w - - 0 1 moves a1b1".split()).fen()
    '8/8/8/8/8/8/8/1K5k b - - 1 1'
    """
    if not tokens:
        raise UciError("position needs 'startpos' or 'fen'")
    moves_at = tokens.index("moves") if "moves" in tokens else len(tokens)
    head, moves = tokens[:moves_at], tokens[moves_at + 1:]
    if head[0] == "startpos" and len(head) == 1:
        fen = STARTING_FEN
    elif head[0] == "fen":
        fen = " ".join(head[1:])
    else:
        raise UciError(f"position needs 'startpos' or 'fen', got {' '.join(head)!r}")
    try:
        board = Board(fen, chess960=chess960)
    except ValueError as e:
        raise UciError(f"bad FEN {fen!r}: {e}") from None
    for i, move in enumerate(moves):
        if not board.is_legal(move):
            raise UciError(f"illegal move {move!r} at ply {i + 1} in position {board.fen()}")
        board.push(move)
    return board


class Uci:
    """One UCI session. ``handle`` takes a line, ``run`` a whole input stream."""

    def __init__(self, out: TextIO = sys.stdout) -> None:
        self.out = out
        self.board = Board()
        self.chess960 = False
        self._out_lock = threading.Lock()
        self._worker: threading.Thread | None = None
        self._stop = threading.Event()
        self.commands: dict[str, Callable[[list[str]], None]] = {
            "uci": self.cmd_uci,
            "isready": self.cmd_isready,
            "ucinewgame": self.cmd_ucinewgame,
            "position": self.cmd_position,
            "go": self.cmd_go,
            "stop": self.cmd_stop,
            "d": self.cmd_display,
            "perft": self.cmd_perft,
            "debug": lambda args: None,
        }

    # --- output ------------------------------------------------------------

    def send(self, line: str) -> None:
        """Write one line and flush it (thread-safe: the worker prints too)."""
        with self._out_lock:
            self.out.write(line + "\n")
            self.out.flush()

    def info_string(self, text: str) -> None:
        self.send(f"info string {text}")

    # --- the loop ------------------------------------------------------------

    def handle(self, line: str) -> bool:
        """Carry out one line; False once the session should end (``quit``).

        As the protocol asks, unknown leading tokens are skipped, so
        ``joho debug on`` is read as ``debug on``.
        """
        tokens = line.split()
        for i, token in enumerate(tokens):
            if token == "quit":
                self._finish_for_quit()
                return False
            handler = self.commands.get(token)
            if handler is not None:
                try:
                    handler(tokens[i + 1:])
                except UciError as e:
                    self.info_string(f"error: {e}")
                except Exception as e:  # the engine must outlive any bad line
                    self.info_string(f"error in '{token}': {type(e).__name__}: {e}")
                return True
        if tokens:
            self.info_string(f"unknown command: {line.strip()[:100]}")
        return True

    def run(self, lines: Iterable[str]) -> None:
        for line in lines:
            if not self.handle(line):
                return
        self._finish_for_quit()        # end of input counts as quit

    # --- commands ------------------------------------------------------------

    def cmd_uci(self, args: list[str]) -> None:
        self.send(f"id name {ENGINE_NAME}")
        self.send(f"id author {AUTHOR}")
        self.send("uciok")

    def cmd_isready(self, args: list[str]) -> None:
        self.send("readyok")

    def cmd_ucinewgame(self, args: list[str]) -> None:
        self.cmd_stop([])
        self.board = Board(chess960=self.chess960)

    def cmd_position(self, args: list[str]) -> None:
        self.board = parse_position(args, self.chess960)

    def cmd_display(self, args: list[str]) -> None:
        self.send(str(self.board))
        self.send(f"Fen: {self.board.fen()}")
        self.send(f"Key: {self.board.zobrist():016X}")
        self.send(f"Legal moves: {' '.join(self.board.legal_moves())}")

    def cmd_go(self, args: list[str]) -> None:
        if args[:1] == ["perft"]:
            self.cmd_perft(args[1:])
            return
        raise UciError("search is not available yet")

    def cmd_perft(self, args: list[str]) -> None:
        """``perft N``: per-move leaf counts and the total, as Stockfish prints them."""
        try:
            depth = int(args[0])
        except (IndexError, ValueError):
            raise UciError("perft needs a depth, e.g. 'perft 5'") from None
        if not 1 <= depth <= 20:
            raise UciError("perft depth must be between 1 and 20")
        self._start(self._perft_job, self.board.copy(), depth)

    def _perft_job(self, board: Board, depth: int) -> None:
        start = time.perf_counter()
        total = 0
        for move, nodes in board.divide(depth):
            if self._stop.is_set():
                self.info_string("perft stopped")
                return
            self.send(f"{move}: {nodes}")
            total += nodes
        elapsed = time.perf_counter() - start
        self.send("")
        self.send(f"Nodes searched: {total}")
        self.info_string(f"perft {depth}: {total} nodes in {elapsed * 1000:.0f} ms, "
                         f"{total / max(elapsed, 1e-9):.0f} nps")

    def cmd_stop(self, args: list[str]) -> None:
        self._stop.set()
        request_stop()
        if self._worker is not None:
            self._worker.join()
            self._worker = None

    def _finish_for_quit(self) -> None:
        """Stop a search at once, but let a perft print its count first, so that
        ``echo "go perft 5\nquit" | nmm-chess`` works as it does with Stockfish."""
        if self._worker is not None and self._worker.name == "perft":
            self._worker.join()
        self.cmd_stop([])

    def _start(self, job: Callable, *args) -> None:
        """Run ``job`` in the worker thread (after the previous job has ended)."""
        self.cmd_stop([])
        self._stop.clear()
        clear_stop()
        self._worker = threading.Thread(target=job, args=args, daemon=True,
                                        name=job.__name__.strip("_").removesuffix("_job"))
        self._worker.start()


def main(inp: TextIO = sys.stdin, out: TextIO = sys.stdout) -> None:
    Uci(out).run(inp)
