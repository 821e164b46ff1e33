"""The UCI loop: read commands, keep the position, search in a worker thread.

The main thread only parses lines and answers at once (``isready`` too);
perft and search run in a worker thread inside Cython with the GIL released,
so the reader is never blocked behind them.

>>> import io
>>> uci = Uci(io.StringIO())
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
from pathlib import Path
from typing import TextIO

from engine import __version__
from engine._core import (STARTING_FEN, Board, Searcher, clear_stop, eval_trace,
                          request_stop)
from engine.bench import DEFAULT_DEPTH, run_bench
from engine.options import Option, OptionError, Options
from engine.timeman import allot, movetime_limits

ENGINE_NAME = f"nmm-chess {__version__}"
AUTHOR = "the nmm-chess developers"
MAX_INT = 2**31 - 1
REPO = Path(__file__).resolve().parent.parent     # relative NMMFile paths start here
NMM_MIN_DEPTH = 2         # the net is not asked this near the leaves (see nets/README.md)


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
        try:
            board.push(move)
        except ValueError:
            raise UciError(f"illegal move {move!r} at ply {i + 1} in position {board.fen()}") from None
    return board


GO_NUMBERS = ("wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "movetime", "mate")
GO_FLAGS = ("infinite", "ponder")


def parse_go(tokens: list[str], warn: Callable[[str], None]) -> dict:
    """The parameters of ``go`` as a dict; bad values are reported and left out.

    >>> parse_go("wtime 1000 btime -5 depth x searchmoves e2e4 d2d4 infinite".split(), print)
    go: depth needs an integer, got 'x'
    {'wtime': 1000, 'btime': 0, 'searchmoves': ['e2e4', 'd2d4'], 'infinite': True}
    """
    params: dict = {}
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token in GO_NUMBERS:
            value = tokens[i + 1] if i + 1 < len(tokens) else None
            i += 2
            try:
                params[token] = max(0, min(int(value), MAX_INT))  # negative clocks happen
            except (TypeError, ValueError):
                warn(f"go: {token} needs an integer, got {value!r}")
        elif token in GO_FLAGS:
            params[token] = True
            i += 1
        elif token == "searchmoves":
            i += 1
            moves = []
            while i < len(tokens) and tokens[i] not in GO_NUMBERS + GO_FLAGS:
                moves.append(tokens[i])
                i += 1
            params["searchmoves"] = moves
        else:
            warn(f"go: ignoring unknown token {token!r}")
            i += 1
    return params


def format_info(line: dict) -> str:
    """One ``info`` line from a search report."""
    score = f"mate {line['mate']}" if line["mate"] is not None else f"cp {line['score']}"
    if line["bound"]:
        score += " " + line["bound"]
    return (f"info depth {line['depth']} seldepth {line['seldepth']} multipv {line['multipv']} "
            f"score {score} nodes {line['nodes']} nps {line['nps']} hashfull {line['hashfull']} "
            f"time {line['time_ms']} pv {' '.join(line['pv'])}")


class Uci:
    """One UCI session. ``handle`` takes a line, ``run`` a whole input stream."""

    def __init__(self, out: TextIO = sys.stdout) -> None:
        self.out = out
        self.board = Board()
        self._out_lock = threading.Lock()
        self._worker: threading.Thread | None = None
        self._released = threading.Event()  # lets an infinite/ponder search print bestmove
        self._searcher: Searcher | None = None
        self._pending_options: list[list[str]] = []
        self.options = Options(self._option_table())
        self.commands: dict[str, Callable[[list[str]], None]] = {
            "uci": self.cmd_uci,
            "isready": self.cmd_isready,
            "setoption": self.cmd_setoption,
            "ucinewgame": self.cmd_ucinewgame,
            "position": self.cmd_position,
            "go": self.cmd_go,
            "stop": self.cmd_stop,
            "ponderhit": self.cmd_ponderhit,
            "d": self.cmd_display,
            "eval": self.cmd_eval,
            "perft": self.cmd_perft,
            "bench": self.cmd_bench,
            "nmm": self.cmd_nmm,
            "debug": lambda args: None,
            "register": lambda args: None,
        }

    def _option_table(self) -> list[Option]:
        def configure(**kwargs):
            return lambda value: self.searcher.configure(**{k: value for k in kwargs})
        return [
            Option("Hash", "spin", 16, 1, 8192, apply=lambda mb: self.searcher.set_hash(mb)),
            Option("Threads", "spin", 1, 1, 1),
            Option("Clear Hash", "button", apply=lambda _: self.searcher.clear_hash()),
            Option("Ponder", "check", False),
            Option("MultiPV", "spin", 1, 1, 256, apply=configure(multipv=1)),
            Option("Move Overhead", "spin", 50, 0, 5000),
            Option("UCI_Chess960", "check", False, apply=self._set_chess960),
            Option("MoveOrdering", "combo", "history",
                   choices=("history", "nmm", "straight", "weighted"), apply=configure(ordering=1)),
            Option("NMMFile", "string", "nets/nmm.npz", apply=self._set_nmm_file),
            Option("HistoryWeight", "spin", 0, 0, 1_000_000_000, apply=lambda _: self._apply_hhweight()),
            Option("AdaptiveHistoryWeight", "check", False, apply=configure(adaptive=1)),
            Option("AdaptiveBetaNN", "spin", 100, 0, 100_000,
                   apply=lambda v: self.searcher.configure(beta_nn=v / 1000)),
            Option("AdaptiveBetaHH", "spin", 100, 0, 100_000,
                   apply=lambda v: self.searcher.configure(beta_hh=v / 1000)),
            Option("NMMMinDepth", "spin", NMM_MIN_DEPTH, 0, 64, apply=configure(nmm_min_depth=1)),
            Option("NMMCutNodesOnly", "check", True, apply=configure(nmm_cut_nodes_only=1)),
            Option("NullMove", "check", True, apply=configure(null_move=1)),
            Option("LateMoveReductions", "check", True, apply=configure(lmr=1)),
            Option("FutilityPruning", "check", True, apply=configure(futility=1)),
        ]

    @property
    def searcher(self) -> Searcher:
        """Created on first use (by ``isready`` at the latest), so that ``uciok``
        waits neither for the hash table nor for the net."""
        if self._searcher is None:
            self._searcher = Searcher(16)
            self._searcher.configure(nmm_min_depth=NMM_MIN_DEPTH)
            self._load_nmm(self.options["NMMFile"])
        return self._searcher

    def _set_nmm_file(self, path: str) -> None:
        if self._searcher is not None:
            self._load_nmm(path)

    def _load_nmm(self, path: str) -> None:
        """Load the Neural MoveMap; on any problem say so and order by history."""
        from engine.nets import DEFAULT_HHWEIGHT, NetError, load_nmm  # numpy: not before uciok
        self._suggested_hhweight = DEFAULT_HHWEIGHT
        resolved = Path(path).expanduser()
        if not resolved.is_absolute() and not resolved.exists():
            resolved = REPO / resolved          # GUIs start engines in any directory
        try:
            net = load_nmm(resolved)
        except NetError as e:
            self.searcher.clear_nmm()
            self.info_string(f"NMMFile: {e}; move ordering falls back to history")
            return
        self.searcher.set_nmm(net.encoding, net.weights, net.bias)
        self._suggested_hhweight = net.suggested_hhweight
        self._apply_hhweight()

    def _apply_hhweight(self) -> None:
        """HistoryWeight is in millionths (UCI spins are integers, and useful
        weights lie near 0.001-0.01); 0 means the weight the net's file
        suggests (engine.nets.DEFAULT_HHWEIGHT if it suggests none)."""
        searcher = self.searcher        # created with the net (and its suggestion) on first use
        micro = self.options["HistoryWeight"]
        searcher.configure(hhweight=micro / 1e6 if micro else self._suggested_hhweight)

    def _set_chess960(self, value: bool) -> None:
        self.board.chess960 = value

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
                except (UciError, OptionError) as e:
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
        for option in self.options:
            self.send(option.uci_line())
        self.send("uciok")

    def cmd_isready(self, args: list[str]) -> None:
        self.searcher                   # make sure the hash table exists
        self.send("readyok")

    def cmd_setoption(self, args: list[str]) -> None:
        """Apply an option; during a search, once that search has ended (the
        protocol does not allow it then, and resizing the table under a running
        search would pull the memory from under it)."""
        if self._worker is not None and self._worker.is_alive():
            self.options.check(args)
            self._pending_options.append(args)
            self.info_string("setoption during a search: applied when the search ends")
        else:
            self.options.set(args)

    def cmd_ucinewgame(self, args: list[str]) -> None:
        self.cmd_stop([])
        self.searcher.clear()
        self.board = Board(chess960=self.options["UCI_Chess960"])

    def cmd_position(self, args: list[str]) -> None:
        self.board = parse_position(args, self.options["UCI_Chess960"])

    def cmd_display(self, args: list[str]) -> None:
        self.send(str(self.board))
        self.send(f"Fen: {self.board.fen()}")
        self.send(f"Key: {self.board.zobrist():016X}")
        self.send(f"Legal moves: {' '.join(self.board.legal_moves())}")

    def cmd_eval(self, args: list[str]) -> None:
        """The handwritten evaluation term by term, White's view."""
        trace = eval_trace(self.board)
        self.send(f"{'term':<16}{'white mg':>10}{'eg':>7}{'black mg':>10}{'eg':>7}{'total mg':>10}{'eg':>7}")
        for name, (wm, we, bm, be) in trace["terms"].items():
            self.send(f"{name:<16}{wm:>10}{we:>7}{bm:>10}{be:>7}{wm - bm:>10}{we - be:>7}")
        self.send(f"phase {trace['phase']}/24, end-game scale {trace['scale']}/64, "
                  f"tempo {trace['tempo']} for the side to move")
        white_view = trace["total"]
        self.send(f"Final evaluation: {white_view / 100:+.2f} (White's view)")

    def cmd_nmm(self, args: list[str]) -> None:
        """Every legal move ranked by the Neural MoveMap, best first."""
        if not self.searcher.has_nmm:
            raise UciError("no NMM net is loaded (see the NMMFile option)")
        for move, score in self.searcher.nmm_scores(self.board):
            self.info_string(f"nmm {move} {score:.4f}")

    def cmd_go(self, args: list[str]) -> None:
        if args[:1] == ["perft"]:
            self.cmd_perft(args[1:])
            return
        params = parse_go(args, self.info_string)
        kwargs = self._search_limits(params)
        self._start(self._search_job, self.board.copy(), kwargs,
                    params.get("infinite", False) or params.get("ponder", False))

    def _search_limits(self, params: dict) -> dict:
        """Turn ``go`` parameters into Searcher.search keyword arguments."""
        overhead = self.options["Move Overhead"]
        kwargs: dict = {"depth": params.get("depth"), "nodes": params.get("nodes"),
                        "mate": params.get("mate"), "ponder": params.get("ponder", False)}
        if params.get("searchmoves"):
            legal = [m for m in params["searchmoves"] if self.board.is_legal(m)]
            if len(legal) < len(params["searchmoves"]):
                self.info_string("go: searchmoves has moves that are not legal here; ignoring them")
            kwargs["searchmoves"] = legal or None
        clock = params.get("wtime" if self.board.turn == "w" else "btime")
        if params.get("infinite"):
            pass
        elif "movetime" in params:
            kwargs["soft_ms"], kwargs["hard_ms"] = movetime_limits(params["movetime"], overhead)
        elif clock is not None:
            inc = params.get("winc" if self.board.turn == "w" else "binc", 0)
            kwargs["soft_ms"], kwargs["hard_ms"] = allot(clock, inc, params.get("movestogo"), overhead)
        return kwargs

    def _search_job(self, board: Board, kwargs: dict, wait_for_release: bool) -> None:
        result = self.searcher.search(board, on_info=lambda line: self.send(format_info(line)),
                                      on_currmove=self._send_currmove, **kwargs)
        if wait_for_release:
            self._released.wait()       # infinite or ponder: bestmove only after stop/ponderhit
        if result["bestmove"] is None:
            self.send(f"info depth 0 score {'mate 0' if board.is_check() else 'cp 0'}")
            self.send("bestmove 0000")
        elif result["ponder"]:
            self.send(f"bestmove {result['bestmove']} ponder {result['ponder']}")
        else:
            self.send(f"bestmove {result['bestmove']}")

    def _send_currmove(self, depth: int, move: str, number: int) -> None:
        self.send(f"info depth {depth} currmove {move} currmovenumber {number}")

    def cmd_ponderhit(self, args: list[str]) -> None:
        if self._searcher is not None:
            self._searcher.ponderhit()
        self._released.set()

    def cmd_bench(self, args: list[str]) -> None:
        try:
            depth = int(args[0]) if args else DEFAULT_DEPTH
        except ValueError:
            raise UciError("bench takes a depth, e.g. 'bench 10'") from None
        if not 1 <= depth <= 64:
            raise UciError("bench depth must be between 1 and 64")
        self.cmd_stop([])
        nodes, seconds = run_bench(depth)
        self.send(f"{nodes} nodes {int(nodes / max(seconds, 1e-9))} nps")

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
            if self._released.is_set():
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
        """Stop whatever runs and wait for it (a search then prints its bestmove)."""
        request_stop()
        self._released.set()
        if self._worker is not None:
            self._worker.join()
            self._worker = None
        clear_stop()        # the job has ended; the flag must not stop the next caller
        while self._pending_options:
            self.options.set(self._pending_options.pop(0))

    def _finish_for_quit(self) -> None:
        """Stop a search at once, but let a perft print its count first, so that
        ``echo "go perft 5\\nquit" | nmm-chess`` works as it does with Stockfish."""
        if self._worker is not None and self._worker.name == "perft":
            self._worker.join()
        self.cmd_stop([])

    def _start(self, job: Callable, *args) -> None:
        """Run ``job`` in the worker thread (after the previous job has ended)."""
        self.cmd_stop([])
        self._released.clear()
        clear_stop()
        self._worker = threading.Thread(target=job, args=args, daemon=True,
                                        name=job.__name__.strip("_").removesuffix("_job"))
        self._worker.start()


def main(inp: TextIO = sys.stdin, out: TextIO = sys.stdout) -> None:
    Uci(out).run(inp)
