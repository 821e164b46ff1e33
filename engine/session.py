"""The engine's state and what each command does to it.

A Session is owned by one thread, the owner thread of engine.uci: the board,
the options, the searcher and its net are read and changed only there, one
command at a time, so that no command ever sees another one half done. The
long commands (``go``, ``perft``, ``bench``) run there too, with the GIL
released, and take a Job through which the reader thread can stop them.

>>> lines = []
>>> session = Session(lines.append)
>>> session.position("startpos moves e2e4 e7e5".split())
>>> session.board.fen()
'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2'
"""
from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from engine import __version__
from engine._core import (MAX_THREADS, TIME_MODES, Board, Searcher, endgame_rules_on, eval_trace,
                          set_endgame_rules)
from engine.bench import DEFAULT_DEPTH, run_bench
from engine.job import Job
from engine.paths import NETS_DIR, user_data_dir
from engine.options import Option, OptionError, Options
from engine.protocol import UciError, format_info, parse_position, search_limits
from engine.timeman import DEFAULT_SLOW_MOVER

ENGINE_NAME = f"nmm-chess {__version__}"
AUTHOR = "the nmm-chess developers"
NMM_MIN_DEPTH = 2         # the net is not asked this near the leaves (see nets/README.md)
MAX_PERFT_DEPTH = 20
HASH_DEFAULT_MB = 16
# Chosen by games at 10+0.1 against history, the default before it: 810 games,
# +33 +- 17 Elo (reports/nmm_search/README.md, "Let matches choose").
DEFAULT_ORDERING = "chessmaps"


@dataclass(frozen=True)
class CoreSetting:
    """An option's ``apply`` that sets one keyword of the searcher's
    ``configure``; ``scale`` turns a UCI integer into the core's fraction."""
    session: Session
    keyword: str
    scale: float | None = None

    def core_value(self, value):
        return value if self.scale is None else value * self.scale

    def __call__(self, value) -> None:
        self.session.searcher.configure(**{self.keyword: self.core_value(value)})


class Session:
    """One engine: position, options, searcher. ``send`` writes one line."""

    def __init__(self, send: Callable[[str], None], nets_dir: Path = NETS_DIR) -> None:
        self.send = send
        self.nets_dir = nets_dir            # where the file options' defaults are found
        self.board = Board()
        self.debug = False
        self._searcher: Searcher | None = None
        self._hash_mb = HASH_DEFAULT_MB     # the Hash value the table was last made with
        self._suggested_hhweight = 0.0
        self._td_file: str | None = None    # the EvalFile the loaded TD net came from
        self._td_net = None
        self._td_id: str | None = None      # the loaded TD net file's hash (evaluation_id)
        self.options = Options(self._option_table())

    def info_string(self, text: str) -> None:
        """(This and ``error`` only write: the reader thread may call them too.)"""
        self.send(f"info string {text}")

    def error(self, text: str) -> None:
        """Report a problem with the input or a file; the engine carries on."""
        self.info_string(f"error: {text}")

    # --- options -------------------------------------------------------------

    def _option_table(self) -> list[Option]:
        def configure(keyword: str, scale: float | None = None) -> CoreSetting:
            return CoreSetting(self, keyword, scale)
        return [
            Option("Hash", "spin", HASH_DEFAULT_MB, 1, 8192, apply=self._set_hash),
            Option("Threads", "spin", 1, 1, MAX_THREADS, apply=self._set_threads),
            Option("Clear Hash", "button", apply=lambda _: self.searcher.clear_hash()),
            Option("Ponder", "check", False),
            Option("MultiPV", "spin", 1, 1, 256, apply=configure("multipv")),
            Option("Move Overhead", "spin", 50, 0, 5000),
            Option("SlowMover", "spin", DEFAULT_SLOW_MOVER, 10, 500),
            Option("UCI_Chess960", "check", False, apply=self._set_chess960),
            Option("MoveOrdering", "combo", DEFAULT_ORDERING,
                   choices=("history", "nmm", "straight", "weighted", "chessmaps"), apply=configure("ordering")),
            Option("NMMFile", "string", "nets/nmm.npz", apply=self._set_nmm_file),
            Option("HistoryWeight", "spin", 0, 0, 1_000_000_000, apply=lambda _: self._apply_hhweight()),
            Option("AdaptiveHistoryWeight", "check", False, apply=configure("adaptive")),
            Option("AdaptiveBetaNN", "spin", 100, 0, 100_000, apply=configure("beta_nn", 1e-3)),
            Option("AdaptiveBetaHH", "spin", 100, 0, 100_000, apply=configure("beta_hh", 1e-3)),
            Option("MoveChains", "check", False, apply=configure("move_chains")),
            Option("MoveTables", "check", False, apply=self._set_move_tables),
            Option("MoveTableMoves", "spin", 1, 1, 4, apply=lambda _: self._apply_move_tables()),
            Option("MoveTablesFile", "string", str(user_data_dir() / "movetables.npz"), apply=self._set_move_tables_file),
            Option("ForwardPruning", "check", False, apply=self._set_forward_pruning),
            Option("BeamWidth", "spin", 4, 1, 64, apply=configure("beam_width")),
            Option("StrategyFile", "string", "nets/strategy.npz", apply=self._set_strategy_file),
            Option("LongBranches", "check", False, apply=configure("long_branches")),
            Option("ChessMapsRegions", "combo", "hand", choices=("hand", "net"), apply=self._set_regions),
            Option("RegionsFile", "string", "nets/regions.npz", apply=self._set_regions_file),
            Option("NMMMinDepth", "spin", NMM_MIN_DEPTH, 0, 64, apply=configure("nmm_min_depth")),
            Option("NMMCutNodesOnly", "check", True, apply=configure("nmm_cut_nodes_only")),
            Option("NMMReductions", "check", False, apply=configure("nmm_reductions")),
            Option("NMMPruning", "check", False, apply=configure("nmm_pruning")),
            Option("NMMLikedPermille", "spin", 200, 0, 1000, apply=configure("nmm_prob_high", 1e-3)),
            Option("NMMDislikedPermille", "spin", 20, 0, 1000, apply=configure("nmm_prob_low", 1e-3)),
            Option("NullMove", "check", True, apply=configure("null_move")),
            Option("LateMoveReductions", "check", True, apply=configure("lmr")),
            Option("FutilityPruning", "check", True, apply=configure("futility")),
            Option("SEEPruning", "check", False, apply=configure("see_pruning")),
            # On since its SPRT [0, 10] accepted H1 after 553 games at 10+0.1 against the
            # engine with HistoryLMR: 573 games, +33.5 +- 19.2 Elo (README, Search options).
            Option("SingularExtensions", "check", True, apply=configure("singular")),
            Option("CounterMoves", "check", False, apply=configure("counter_moves")),
            Option("Razoring", "check", False, apply=configure("razoring")),
            Option("QSearchChecks", "check", False, apply=configure("qs_checks")),
            Option("ProbCut", "check", False, apply=configure("probcut")),
            Option("CutNodeLMR", "check", False, apply=configure("cut_node_lmr")),
            # Part of the core before issue 14; switches so that games can say what they are worth.
            Option("ImprovingMargins", "check", True, apply=configure("improving")),
            Option("CheckExtension", "check", True, apply=configure("check_extension")),
            # On since 1,008 games at 10+0.1 against off: +19.3 +- 15.4 Elo (README, Search options).
            Option("ContinuationHistory", "check", True, apply=configure("cont_history")),
            # On since its SPRT [0, 10] accepted H1 after 392 games at 10+0.1: +46.4 +- 23.6 Elo (README).
            Option("HistoryLMR", "check", True, apply=configure("history_lmr")),
            Option("HistoryPruning", "check", False, apply=configure("history_pruning")),
            Option("TimeManagement", "combo", TIME_MODES[0], choices=TIME_MODES,
                   apply=configure("time_management")),
            Option("Eval", "combo", "handwritten", choices=("handwritten", "td"), apply=self._set_eval),
            Option("EvalFile", "string", "nets/td.npz", apply=self._set_eval_file),
            Option("EndgameRules", "check", True, apply=set_endgame_rules),
        ]

    def core_settings(self) -> dict:
        """Every option that is one of the core's settings, as the keywords of
        ``Searcher.configure`` take it: all of them reach a new searcher, so
        that an option's default is what the engine plays with.

        >>> Session(print).core_settings()["cont_history"]
        True
        """
        return {option.apply.keyword: option.apply.core_value(self.options[option.name])
                for option in self.options if isinstance(option.apply, CoreSetting)}

    @property
    def searcher(self) -> Searcher:
        """Created on first use (by ``isready`` at the latest), so that ``uciok``
        waits neither for the hash table nor for the net."""
        if self._searcher is None:
            self._searcher = Searcher(self._hash_mb)
            set_endgame_rules(self.options["EndgameRules"])    # builds the KPK table (50 ms) when on
            self._set_threads(self.options["Threads"])
            self._searcher.configure(forward_pruning=self.options["ForwardPruning"],
                                     **self.core_settings())
            if self.options["ForwardPruning"]:
                self._load_strategy(self.options["StrategyFile"])
            if self.options["ChessMapsRegions"] == "net":
                self._load_regions(self.options["RegionsFile"])
            if self.options["MoveTables"]:
                self._load_memory()
                self._apply_move_tables()
            self._load_nmm(self.options["NMMFile"])
            if self.options["Eval"] == "td":
                try:
                    self._set_eval("td")
                except OptionError as e:
                    self.options.values["Eval"] = "handwritten"
                    self.error(str(e))
        return self._searcher

    def _set_hash(self, megabytes: int) -> None:
        try:
            self.searcher.set_hash(megabytes)
        except MemoryError:
            raise OptionError(f"Hash: cannot allocate {megabytes} MB; keeping the "
                              f"{self._hash_mb} MB table") from None
        self._hash_mb = megabytes

    def _set_threads(self, threads: int) -> None:
        """Helper threads search beside the main one (Lazy SMP, ext/threads.pxi)."""
        try:
            self.searcher.set_threads(threads)
        except MemoryError:
            self.options.values["Threads"] = 1
            raise OptionError(f"Threads: no memory for {threads} threads; searching with one") from None

    def _set_chess960(self, value: bool) -> None:
        self.board.chess960 = value or not self.board.standard_castling

    # --- the ChessMaps long-term memory (engine/memory.py) ------------------------

    def _tables_path(self) -> Path:
        return Path(self.options["MoveTablesFile"]).expanduser()

    def evaluation_id(self) -> str:
        """What the engine evaluates with, for files that store its scores:
        ``handwritten:<weights' fingerprint>`` or ``td:<the net file's hash>``."""
        from engine.nets import handwritten_fingerprint
        if self.options["Eval"] == "td" and self._td_id:
            return f"td:{self._td_id}"
        return f"handwritten:{handwritten_fingerprint()}"

    def _set_move_tables(self, on: bool) -> None:
        if self._searcher is None:
            return                      # applied when the searcher is made
        if on:
            self._load_memory()
        else:
            self.save_memory(force=True)
        self._apply_move_tables()

    def _apply_move_tables(self) -> None:
        if self._searcher is not None:
            self._searcher.configure(move_tables=self.options["MoveTableMoves"] if self.options["MoveTables"] else 0)

    def _set_move_tables_file(self, _: str) -> None:
        if self._searcher is not None and self.options["MoveTables"]:
            self._load_memory()

    def _load_memory(self) -> None:
        """The tables from MoveTablesFile; empty ones if there is none yet or it cannot be used."""
        from engine.memory import MemoryFileError, load_tables
        self._searcher.clear_move_tables()
        path = self._tables_path()
        if not path.exists():
            return                      # the first game: the file is written at its end
        try:
            load_tables(self._searcher, path, self.evaluation_id(),
                        lambda text: self.info_string(f"MoveTablesFile: {text}"))
        except (MemoryFileError, OSError) as e:
            self._searcher.clear_move_tables()
            self.error(f"MoveTablesFile: {e}; the move tables start empty")

    def save_memory(self, force: bool = False) -> None:
        """Write the move tables to MoveTablesFile (at ucinewgame and quit, with MoveTables on)."""
        if self._searcher is None or not (self.options["MoveTables"] or force):
            return
        from engine.memory import MemoryFileError, save_tables
        try:
            save_tables(self._searcher, self._tables_path(), self.evaluation_id())
        except MemoryFileError as e:
            self.error(f"MoveTablesFile: {e}")
        except (OSError, ValueError) as e:
            self.error(f"MoveTablesFile: cannot write {self._tables_path()}: {getattr(e, 'strerror', None) or e}")

    def _file(self, option: str, value: str) -> Path:
        """A file option's path. Its default names a file shipped with the engine
        (found in the package, whatever the working folder); any other value is
        the user's, and a relative one starts from the working folder, as GUIs
        expect: a stray ``nets/`` folder there never replaces the shipped nets.

        >>> Session(print)._file("EvalFile", "nets/td.npz") == NETS_DIR / "td.npz"
        True
        >>> str(Session(print)._file("EvalFile", "mine/td.npz"))
        'mine/td.npz'
        """
        if value == self.options.default(option):
            return self.nets_dir / Path(value).name
        return Path(value).expanduser()

    def _set_forward_pruning(self, on: bool) -> None:
        if self._searcher is None:
            self.searcher           # made with the options as set: the database loaded if on
            return
        self.searcher.configure(forward_pruning=on)
        if on and not self.searcher.has_strategy:
            self._load_strategy(self.options["StrategyFile"])

    def _set_regions(self, value: str) -> None:
        if self._searcher is None:
            self.searcher           # made with the options as set: the net loaded if chosen
            return
        if value == "net" and not self.searcher.has_regions:
            self._load_regions(self.options["RegionsFile"])
        else:
            self.searcher.configure(regions_net=value == "net")

    def _set_regions_file(self, path: str) -> None:
        if self._searcher is not None and self.options["ChessMapsRegions"] == "net":
            self._load_regions(path)

    def _load_regions(self, path: str) -> None:
        """Load the regions net for the chessmaps order; on any problem say so
        and keep the hand rule."""
        from engine.nets import NetError
        from engine.train.regions import load
        resolved = self._file("RegionsFile", path)
        try:
            net = load(resolved)
        except NetError as e:
            self.searcher.clear_regions()
            self.searcher.configure(regions_net=False)
            self.options.values["ChessMapsRegions"] = "hand"
            self.error(f"RegionsFile: {e}; the chessmaps order keeps the hand rule")
            return
        self.searcher.set_regions(net.weights, net.bias)
        self.searcher.configure(regions_net=True)

    def _set_strategy_file(self, path: str) -> None:
        if self._searcher is not None and self.options["ForwardPruning"]:
            self._load_strategy(path)

    def _load_strategy(self, path: str) -> None:
        """Load the strategy database the beam reads; on any problem say so
        and prune without popular squares."""
        from engine.data.strategy import load
        from engine.nets import NetError
        resolved = self._file("StrategyFile", path)
        try:
            db = load(resolved)
        except NetError as e:
            self.searcher.clear_strategy()
            self.error(f"StrategyFile: {e}; forward pruning goes on without popular squares")
            return
        self.searcher.set_strategy(db.keys, db.popular, db.share)

    def _set_nmm_file(self, path: str) -> None:
        if self._searcher is not None:
            self._load_nmm(path)

    def _load_nmm(self, path: str) -> None:
        """Load the Neural MoveMap; on any problem say so and order by history."""
        from engine.nets import DEFAULT_HHWEIGHT, NetError, load_nmm  # numpy: not before uciok
        self._suggested_hhweight = DEFAULT_HHWEIGHT
        resolved = self._file("NMMFile", path)
        try:
            net = load_nmm(resolved)
        except NetError as e:
            self.searcher.clear_nmm()
            self.error(f"NMMFile: {e}; move ordering falls back to history")
            return
        net.install(self.searcher)
        self._suggested_hhweight = net.suggested_hhweight
        self._apply_hhweight()

    def _set_eval(self, value: str) -> None:
        """Eval td loads EvalFile (once) and searches with it; a file that
        cannot be used is reported and the handwritten evaluation stays."""
        if self._searcher is None:
            return                      # applied when the searcher is made
        if value == "handwritten":
            self._searcher.use_td(False)
            return
        if self._td_file != self.options["EvalFile"]:
            try:
                self._load_td(self.options["EvalFile"])
            except OptionError as e:
                raise OptionError(f"{e}; Eval stays handwritten") from None
        self._searcher.use_td(True)

    def _set_eval_file(self, path: str) -> None:
        if self._searcher is None or self.options["Eval"] != "td":
            self._td_file = None        # loaded when Eval td asks for it
            return
        try:
            self._load_td(path)
        except OptionError as e:
            self._searcher.use_td(False)
            self.options.values["Eval"] = "handwritten"
            self._td_file = None
            raise OptionError(f"{e}; the evaluation falls back to handwritten") from None

    def _load_td(self, path: str) -> None:
        from engine.nets import NetError, load_td
        resolved = self._file("EvalFile", path)
        try:
            net = load_td(resolved)
        except NetError as e:
            raise OptionError(f"EvalFile: {e}") from None
        net.install(self._searcher)
        self._td_net = net
        self._td_file = path
        self._td_id = hashlib.sha256(resolved.read_bytes()).hexdigest()[:16]

    def _apply_hhweight(self) -> None:
        """HistoryWeight is in millionths (UCI spins are integers, and useful
        weights lie near 0.001-0.01); 0 means the weight the net's file
        suggests (engine.nets.DEFAULT_HHWEIGHT if it suggests none)."""
        searcher = self.searcher        # created with the net (and its suggestion) on first use
        micro = self.options["HistoryWeight"]
        searcher.configure(hhweight=micro / 1e6 if micro else self._suggested_hhweight)

    # --- quick commands ----------------------------------------------------------

    def uci(self, args: list[str]) -> None:
        self.send(f"id name {ENGINE_NAME}")
        self.send(f"id author {AUTHOR}")
        for option in self.options:
            self.send(option.uci_line())
        self.send("uciok")

    def isready(self, args: list[str]) -> None:
        self.searcher                   # the hash table and the net are ready
        self.send("readyok")

    def setoption(self, args: list[str]) -> None:
        self.options.set(args)

    def ucinewgame(self, args: list[str]) -> None:
        self.save_memory()
        self.searcher.clear()
        self.board = Board(chess960=self.options["UCI_Chess960"])

    def position(self, args: list[str]) -> None:
        self.board, problem = parse_position(args, self.options["UCI_Chess960"])
        if problem:
            self.error(problem)

    def debug_mode(self, args: list[str]) -> None:
        """``debug on|off``: on, ``go`` reports the time limits it computed."""
        if args[:1] not in (["on"], ["off"]):
            raise UciError("debug takes 'on' or 'off'")
        self.debug = args[0] == "on"

    def display(self, args: list[str]) -> None:
        self.send(str(self.board))
        self.send(f"Fen: {self.board.fen()}")
        self.send(f"Key: {self.board.zobrist():016X}")
        self.send(f"Chess960: {'true' if self.board.chess960 else 'false'}")
        self.send(f"Legal moves: {' '.join(self.board.legal_moves())}")

    def evaluation(self, args: list[str]) -> None:
        """The evaluation in use: the handwritten one term by term (White's
        view), or the TD net's output, phase blend and strongest inputs."""
        if self.options["Eval"] == "td" and self.searcher.uses_td:
            self._td_evaluation()
            return
        trace = eval_trace(self.board)
        self.send(f"{'term':<16}{'white mg':>10}{'eg':>7}{'black mg':>10}{'eg':>7}{'total mg':>10}{'eg':>7}")
        for name, (wm, we, bm, be) in trace["terms"].items():
            self.send(f"{name:<16}{wm:>10}{we:>7}{bm:>10}{be:>7}{wm - bm:>10}{we - be:>7}")
        self.send(f"phase {trace['phase']}/24, end-game scale {trace['scale']}/64, "
                  f"tempo {trace['tempo']} for the side to move")
        self.send(f"Final evaluation: {trace['total'] / 100:+.2f} (White's view)")

    def _td_evaluation(self) -> None:
        from engine.evaluation.explain import explain
        report = explain(self._td_net, self.board, self.searcher.td_output(self.board),
                         self.searcher.evaluate(self.board))
        for line in report:
            self.send(line)

    def nmm(self, args: list[str]) -> None:
        """Every legal move ranked by the Neural MoveMap, best first."""
        if not self.searcher.has_nmm:
            raise UciError("no NMM net is loaded (see the NMMFile option)")
        for move, score in self.searcher.nmm_scores(self.board):
            self.info_string(f"nmm {move} {score:.4f}")

    # --- long commands: each returns its last lines, which the caller writes
    # --- together with the job's end (see engine.uci) ------------------------------

    def go(self, job: Job) -> list[str]:
        go = job.go
        for warning in go.warnings:
            self.error(warning)
        limits, warnings = search_limits(go, self.board, self.options["Move Overhead"], self.options["SlowMover"])
        for warning in warnings:
            self.error(warning)
        searcher, board = self.searcher, self.board
        if self.debug:
            self.info_string(f"go: depth {limits['depth']} nodes {limits['nodes']} mate {limits['mate']} "
                             f"soft {limits['soft_ms']} ms hard {limits['hard_ms']} ms "
                             f"ponder {go.ponder} waits for stop {go.waits_for_stop}")
        last_pv: list[str] = []         # the PV of the last line-1 report

        def on_info(line: dict) -> None:
            if line["multipv"] == 1:
                last_pv[:] = line["pv"]
            self.send(format_info(line))

        def begin() -> None:
            searcher.begin(board, ponder=job.pondering, start_ms=job.start_ms, **limits)

        job.start(begin, on_ponderhit=self._ponderhit_reporter(searcher))
        try:
            result = searcher.run(on_info=on_info, on_currmove=self._send_currmove)
        finally:
            job.finish_search()
        best = result["bestmove"]
        if best is None:
            return [f"info depth 0 score {'mate 0' if board.is_check() else 'cp 0'}", "bestmove 0000"]
        lines = []
        if result["line"]["pv"] != last_pv:
            # A stopped iteration, or another thread, found the move played: say so,
            # so that the last info line shows its line and its ponder move.
            lines.append(format_info(result["line"]))
        if not board.is_legal(best):    # cannot happen; if it ever does, never send it
            self.error(f"the search chose {best}, which is not legal here")
            best, result["ponder"] = board.legal_moves()[0], None
        lines.append(f"bestmove {best}" + (f" ponder {result['ponder']}" if result["ponder"] else ""))
        return lines

    def _ponderhit_reporter(self, searcher: Searcher) -> Callable[[float], None]:
        def ponderhit(at_ms: float) -> None:
            searcher.ponderhit(at_ms)
            if self.debug:
                self.info_string("ponderhit: the clock starts now")
        return ponderhit

    def _send_currmove(self, depth: int, move: str, number: int) -> None:
        self.send(f"info depth {depth} currmove {move} currmovenumber {number}")

    def perft(self, job: Job, args: list[str]) -> list[str]:
        """``perft N``: per-move leaf counts and the total, as Stockfish prints them."""
        depth = check_perft_args(args)
        board = self.board.copy()
        job.start(lambda: None)
        start = time.perf_counter()
        total = 0
        try:
            for move, nodes in board.divide(depth):
                if job.stopped:
                    return ["info string perft stopped"]
                self.send(f"{move}: {nodes}")
                total += nodes
        finally:
            job.finish_search()
        elapsed = time.perf_counter() - start
        return ["", f"Nodes searched: {total}",
                f"info string perft {depth}: {total} nodes in {elapsed * 1000:.0f} ms, "
                f"{total / max(elapsed, 1e-9):.0f} nps"]

    def bench(self, job: Job, args: list[str]) -> list[str]:
        """``bench [depth]``: the node-count signature (engine.bench), searched
        with the options as set (at the defaults: the signature), on a
        searcher of its own with the fixed table size and one thread."""
        depth = check_bench_args(args)
        values = {option.name: self.options[option.name] for option in self.options if option.type != "button"}
        job.start(lambda: None)
        try:
            with bench_searcher(values) as searcher:     # a bad file was reported when it was set
                nodes, seconds = run_bench(searcher, depth, stopped=lambda: job.stopped)
        finally:
            job.finish_search()
        if job.stopped:
            return ["info string bench stopped"]
        return [f"{nodes} nodes {int(nodes / max(seconds, 1e-9))} nps"]


def check_perft_args(args: list[str]) -> int:
    """The depth ``perft`` asks for; UciError if there is none in range."""
    try:
        depth = int(args[0])
    except (IndexError, ValueError):
        raise UciError("perft needs a depth, e.g. 'perft 5'") from None
    if not 1 <= depth <= MAX_PERFT_DEPTH:
        raise UciError(f"perft depth must be between 1 and {MAX_PERFT_DEPTH}")
    return depth


def check_bench_args(args: list[str]) -> int:
    """The depth ``bench`` asks for (default DEFAULT_DEPTH); UciError if out of range."""
    try:
        depth = int(args[0]) if args else DEFAULT_DEPTH
    except ValueError:
        raise UciError("bench takes a depth, e.g. 'bench 10'") from None
    if not 1 <= depth <= 64:
        raise UciError("bench depth must be between 1 and 64")
    return depth


@contextmanager
def bench_searcher(values: dict | None = None, send: Callable[[str], None] = lambda line: None
                   ) -> Iterator[Searcher]:
    """The searcher ``bench`` searches with: made as a new engine makes its
    own, at the default options with ``values`` (option name to value) set
    on top, but always with the default ``Hash`` and one thread, so that the
    node count is a signature. What it would report (a net that cannot be
    loaded) goes to ``send``. The core-wide endgame switch it sets is put
    back after, so a running engine keeps its own.

    >>> with bench_searcher() as searcher:
    ...     searcher.settings["ordering"], searcher.settings["cont_history"]
    ('chessmaps', True)
    """
    rules = endgame_rules_on()
    try:
        session = Session(send)
        session.options.values.update({name: value for name, value in (values or {}).items()
                                       if name not in ("Hash", "Threads")})
        yield session.searcher
    finally:
        set_endgame_rules(rules)
