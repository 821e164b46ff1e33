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

import random
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from engine import __version__
from engine._core import Board, Searcher, endgame_rules_on, eval_trace, set_endgame_rules
from engine.bench import DEFAULT_DEPTH, run_bench
from engine.job import Job
from engine.options import (HASH_DEFAULT_MB, OPTIONS, Option, OptionError, Options, core_settings, listed,
                            needs_nmm, tuning_options)
from engine.paths import NETS_DIR
from engine.protocol import UciError, format_info, parse_position, search_limits
from engine.strength import Handicap, clamp_elo_args

ENGINE_NAME = f"nmm-chess {__version__}"
AUTHOR = "the nmm-chess developers"
MAX_PERFT_DEPTH = 20


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


@dataclass(frozen=True)
class Opponent:
    """What ``UCI_Opponent`` says: ``<title> <elo> <computer|human> <name>``,
    ``none`` for an unknown title or rating.

    >>> Opponent.parse("GM 2800 computer Stockfish 15")
    Opponent(title='GM', elo=2800, computer=True, name='Stockfish 15')
    >>> Opponent.parse("none none human Jane Doe").describe()
    'a human player, Jane Doe, title and rating unknown'
    """
    title: str | None
    elo: int | None
    computer: bool
    name: str

    @classmethod
    def parse(cls, text: str) -> Opponent:
        words = text.split()
        if len(words) < 3 or words[2].lower() not in ("computer", "human"):
            raise OptionError(f"UCI_Opponent: {text!r} is not '<title> <elo> <computer|human> <name>'")
        title = None if words[0].lower() == "none" else words[0]
        if words[1].lower() == "none":
            elo = None
        elif words[1].isdigit():
            elo = int(words[1])
        else:
            raise OptionError(f"UCI_Opponent: the rating {words[1]!r} is neither a number nor 'none'")
        return cls(title, elo, words[2].lower() == "computer", " ".join(words[3:]))

    def describe(self) -> str:
        known = [part for part in (self.title, f"rated {self.elo}" if self.elo is not None else None) if part]
        return (f"{'an engine' if self.computer else 'a human player'}, {self.name or 'unnamed'}, "
                + (", ".join(known) if known else "title and rating unknown"))


class Session:
    """One engine: position, options, searcher. ``send`` writes one line.
    ``searcher_class``: what the searcher is made as (the lab's
    default_searcher may ask for a subclass: the engine plays with Searcher).
    ``research``: the ``uci`` list shows the research switches too
    (engine.options.listed); ``setoption`` sets every option either way."""

    def __init__(self, send: Callable[[str], None], nets_dir: Path = NETS_DIR,
                 searcher_class: type[Searcher] = Searcher, research: bool = False) -> None:
        self.send = send
        self.nets_dir = nets_dir            # where the file options' defaults are found
        self.searcher_class = searcher_class
        self.board = Board()
        self.debug = False
        self._searcher: Searcher | None = None
        self._hash_mb = HASH_DEFAULT_MB     # the Hash value the table was last made with
        self._nmm_file: str | None = None   # the NMMFile last read (or tried), None before any
        self._suggested_hhweight: float | None = None   # the loaded net's history weight
        self._td_file: str | None = None    # the EvalFile the loaded TD net came from
        self._td_net = None
        self._td_id: str | None = None      # the loaded TD net's evaluation_id
        self._nnue_file: str | None = None  # the NnueFile the loaded NNUE came from
        self._nnue_net = None
        self._nnue_id: str | None = None    # the loaded NNUE's evaluation_id
        self.research = research
        # --- issue 42: the book, the opponent (Session._standard_effects) ---
        self._book = None                   # the open engine.book.Book, if one is
        self._book_path: str | None = None  # the BookFile last opened (or tried), None before any
        self._book_rng = random.Random()    # OwnBook's draw by weight (BookBestMove off)
        self.opponent: Opponent | None = None   # what UCI_Opponent said, if it said anything
        self.options = Options(self._option_table())

    def info_string(self, text: str) -> None:
        """(This and ``error`` only write: the reader thread may call them too.)"""
        self.send(f"info string {text}")

    def error(self, text: str) -> None:
        """Report a problem with the input or a file; the engine carries on."""
        self.info_string(f"error: {text}")

    # --- options -------------------------------------------------------------

    def _option_table(self) -> list[Option]:
        """The declared options (engine.options.OPTIONS) bound to this session:
        a core setting configures the searcher, the others take the effect
        ``_effects`` names (an option with neither is read when a command needs it)."""
        effects = self._effects()
        return [replace(o, default=o.resolved(),
                        apply=effects.get(o.name) or (CoreSetting(self, o.keyword, o.scale) if o.keyword else o.apply))
                for o in OPTIONS + tuning_options()]

    def _apply_search_params(self) -> None:
        """A tuning build's search constants belong to the process, not to a
        session: the session making its searcher sets them to its values (a
        new engine's defaults, or what ``bench`` copied from the engine's)."""
        for option in tuning_options():
            option.apply(self.options[option.name])

    def _effects(self) -> dict[str, Callable]:
        """What setting an option does beyond one core setting: sizes, files, nets."""
        return {
            "Hash": self._set_hash, "Threads": self._set_threads,
            "Clear Hash": lambda _: self.searcher.clear_hash(), "UCI_Chess960": self._set_chess960,
            "NMMFile": self._set_nmm_file, "HistoryWeight": lambda _: self._apply_hhweight(),
            "MoveTables": self._set_move_tables, "MoveTableMoves": lambda _: self._apply_move_tables(),
            "MoveTablesFile": self._set_move_tables_file, "ForwardPruning": self._set_forward_pruning,
            "StrategyFile": self._set_strategy_file, "ChessMapsRegions": self._set_regions,
            "RegionsFile": self._set_regions_file, "Eval": self._set_eval, "EvalFile": self._set_eval_file,
            "NnueFile": self._set_nnue_file,
            "EndgameRules": set_endgame_rules,
            **self._standard_effects(),
            **self._syzygy_effects(),
        }

    def core_settings(self) -> dict:
        """Every option that is one of the core's settings, as the keywords of
        ``Searcher.configure`` take it: all of them reach a new searcher, so
        that an option's default is what the engine plays with.

        >>> Session(print).core_settings()["cont_history"]
        True
        """
        return core_settings(self.options.values)

    @property
    def searcher(self) -> Searcher:
        """Created on first use (by ``isready`` at the latest), so that ``uciok``
        waits for no hash table; the files the options name are read now, each
        only if an option needs it (the default order reads no net)."""
        if self._searcher is None:
            self._searcher = self.searcher_class(self._hash_mb)
            set_endgame_rules(self.options["EndgameRules"])    # builds the KPK table (50 ms) when on
            self._set_threads(self.options["Threads"])
            self._searcher.configure(**self.core_settings())
            self._apply_search_params()
            if self.options["ForwardPruning"]:
                self._load_strategy(self.options["StrategyFile"])
            if self.options["ChessMapsRegions"] == "net":
                self._load_regions(self.options["RegionsFile"])
            if self.options["MoveTables"]:
                self._load_memory()
                self._apply_move_tables()
            self._apply_hhweight()
            self._load_nets_needed()
            self._load_syzygy(self.options["SyzygyPath"])
            if self.options["Eval"] != "handwritten":
                try:
                    self._set_eval(self.options["Eval"])
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

    # --- Syzygy endgame tables (issue 42; engine/options.py SYZYGY_OPTIONS) ------------

    def _syzygy_effects(self) -> dict[str, Callable]:
        return {"SyzygyPath": self._set_syzygy_path}

    def _set_syzygy_path(self, path: str) -> None:
        if self._searcher is not None:
            self._load_syzygy(path)     # else when the searcher is made

    def _load_syzygy(self, path: str) -> None:
        """Open the tables of SyzygyPath (every file's header is checked
        now) and search with them; say which folders and files cannot be
        used, and play on with the others, or without tables."""
        from engine._core import SyzygyTables
        if not path.strip() or path.strip() == "<empty>":
            self._searcher.set_syzygy(None)
            return
        tables = SyzygyTables(path)
        for problem in tables.errors:
            self.error(f"SyzygyPath: {problem}")
        if tables.max_pieces == 0:
            self.error(f"SyzygyPath: no Syzygy tables in {path}; playing without tables")
            self._searcher.set_syzygy(None)
            return
        self.info_string(f"SyzygyPath: {tables.wdl_tables} WDL and {tables.dtz_tables} DTZ tables, "
                         f"up to {tables.max_pieces} men")
        self._searcher.set_syzygy(tables)

    # --- the ChessMaps long-term memory (engine/memory.py) ------------------------

    def _tables_path(self) -> Path:
        return Path(self.options["MoveTablesFile"]).expanduser()

    def evaluation_id(self) -> str:
        """What the engine evaluates with, for files that store its scores:
        ``handwritten:<weights' fingerprint>``, ``td:<the net file's hash>``
        or ``nnue:<the net's fingerprint>``."""
        from engine.nets import evaluation_id
        if self.options["Eval"] == "td" and self._td_id:
            return self._td_id
        if self.options["Eval"] == "nnue" and self._nnue_id:
            return self._nnue_id
        return evaluation_id()

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
        from engine.nets import NetError, load_regions
        resolved = self._file("RegionsFile", path)
        try:
            net = load_regions(resolved)
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
        from engine.nets import NetError, load_strategy
        resolved = self._file("StrategyFile", path)
        try:
            db = load_strategy(resolved)
        except NetError as e:
            self.searcher.clear_strategy()
            self.error(f"StrategyFile: {e}; forward pruning goes on without popular squares")
            return
        self.searcher.set_strategy(db.keys, db.popular, db.share)

    def _set_nmm_file(self, path: str) -> None:
        if self._searcher is not None and (self._nmm_file is not None or needs_nmm(self.core_settings())):
            self._load_nmm(path)        # a net in use (or one tried) is replaced at once

    def _load_nets_needed(self) -> None:
        """Read NMMFile the first time an option needs the net (an ordering
        that scores with it, NMMReductions, NMMPruning), and never before:
        it is the largest file the engine ships."""
        if needs_nmm(self.core_settings()) and self._nmm_file != self.options["NMMFile"]:
            self._load_nmm(self.options["NMMFile"])

    def _load_nmm(self, path: str) -> None:
        """Load the Neural MoveMap; on any problem say so and order by history."""
        from engine.nets import DEFAULT_HHWEIGHT, NetError, load_nmm  # numpy: only once a net is read
        self._nmm_file = path           # tried: a bad file is reported once, not at every option
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
        """Eval td loads EvalFile (once) and searches with it, Eval nnue
        NnueFile; a file that cannot be used is reported and the evaluation
        in use stays (handwritten, unless it was the other net)."""
        if self._searcher is None:
            return                      # applied when the searcher is made
        if value == "handwritten":
            self._searcher.use_td(False)
            self._searcher.use_nnue(False)
            return
        if value == "nnue":
            if self._nnue_file != self.options["NnueFile"]:
                try:
                    self._load_nnue(self.options["NnueFile"])
                except OptionError as e:
                    kept = "td" if self._searcher.uses_td else "handwritten"
                    raise OptionError(f"{e}; Eval stays {kept}") from None
            self._searcher.use_nnue(True)
            return
        if self._td_file != self.options["EvalFile"]:
            try:
                self._load_td(self.options["EvalFile"])
            except OptionError as e:
                kept = "nnue" if self._searcher.uses_nnue else "handwritten"
                raise OptionError(f"{e}; Eval stays {kept}") from None
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

    def _set_nnue_file(self, path: str) -> None:
        if self._searcher is None or self.options["Eval"] != "nnue":
            self._nnue_file = None      # loaded when Eval nnue asks for it
            return
        try:
            self._load_nnue(path)
        except OptionError as e:
            self._searcher.use_nnue(False)
            self.options.values["Eval"] = "handwritten"
            self._nnue_file = None
            raise OptionError(f"{e}; the evaluation falls back to handwritten") from None
        self._searcher.use_nnue(True)

    def _load_nnue(self, path: str) -> None:
        """Read and check NnueFile and install it (it is then the evaluation in use)."""
        from engine.evaluation.nnue import load_nnue
        self._nnue_net, self._nnue_id = self._install_net("NnueFile", path, load_nnue)
        self._nnue_file = path

    def _load_td(self, path: str) -> None:
        """Read and check EvalFile and install it (it is then the evaluation in use)."""
        from engine.nets import load_td
        self._td_net, self._td_id = self._install_net("EvalFile", path, load_td)
        self._td_file = path

    def _install_net(self, option: str, path: str, loader: Callable[[Path], Any]) -> tuple[Any, str]:
        """The net `loader` reads from the file an option names, installed in
        the searcher, and its evaluation_id; a file that fails its checks is
        an OptionError, and the searcher keeps the net it had."""
        from engine.nets import NetError, evaluation_id
        resolved = self._file(option, path)
        try:
            net = loader(resolved)
        except NetError as e:
            raise OptionError(f"{option}: {e}") from None
        net.install(self._searcher)
        return net, evaluation_id(resolved)

    def _apply_hhweight(self) -> None:
        """HistoryWeight is in millionths (UCI spins are integers, and useful
        weights lie near 0.001-0.01); 0 means the weight the net's file
        suggests (engine.nets.DEFAULT_HHWEIGHT if it suggests none)."""
        micro = self.options["HistoryWeight"]
        weight = micro / 1e6 if micro else self._suggested_hhweight
        if weight is not None:          # None: no net read yet, and only a net's scores use the weight
            self.searcher.configure(hhweight=weight)

    # --- issue 42: the standard options (OwnBook, BookFile, UCI_Opponent; go reads
    # --- BookBestMove, UCI_AnalyseMode and UCI_ShowWDL) -----------------------------

    def _standard_effects(self) -> dict[str, Callable]:
        return {"OwnBook": self._set_own_book, "BookFile": self._set_book_file,
                "UCI_Opponent": self._set_opponent}

    def _set_own_book(self, on: bool) -> None:
        if on and self.options["BookFile"]:
            self.book()                 # a bad file is reported now, not at the first go

    def _set_book_file(self, path: str) -> None:
        self._close_book()              # a file set again is read again (it may have been fixed)
        if self.options["OwnBook"]:
            self.book()

    def _close_book(self) -> None:
        if self._book is not None:
            self._book.close()
        self._book, self._book_path = None, None

    def book(self):
        """The open book of BookFile (engine.book.Book), or None: none set, or
        one that cannot be used, reported once as ``info string error``."""
        path = self.options["BookFile"]
        if self._book_path != path:
            from engine.book import Book, BookError
            self._close_book()
            self._book_path = path
            if not path:
                self.error("OwnBook: no BookFile is set; the engine searches")
            else:
                try:
                    self._book = Book(Path(path).expanduser())
                except BookError as e:
                    self.error(f"BookFile: {e}; the engine searches")
        return self._book

    def book_move(self, go) -> str | None:
        """The book's move for a ``go``, or None: only with OwnBook, not in
        analysis (UCI_AnalyseMode), nor for a go that waits for stop or
        ponderhit (infinite, ponder) or looks for a mate; among the
        searchmoves if it names any; legal on the engine's board."""
        if (not self.options["OwnBook"] or self.options["UCI_AnalyseMode"] or go.ponder or go.waits_for_stop
                or go.mate is not None):
            return None
        book = self.book()
        if book is None:
            return None
        board = self.board
        chosen = book.choose(board.fen(), board.is_legal, board.chess960, self.options["BookBestMove"],
                             self._book_rng, go.searchmoves)
        if chosen is None:
            return None
        self.info_string(f"book move {chosen.move} weight {chosen.weight} of {chosen.total} "
                         f"({chosen.count} book moves)")
        return chosen.move

    def _set_opponent(self, text: str) -> None:
        self.opponent = Opponent.parse(text) if text.strip() else None
        if self.opponent is not None:
            self.info_string(f"UCI_Opponent: {self.opponent.describe()}")

    def _wdl_text(self, line: dict) -> str:
        """`` wdl W D L`` for an info line with UCI_ShowWDL on, else nothing."""
        if not self.options["UCI_ShowWDL"]:
            return ""
        from engine.wdl import material, wdl
        w, d, l = wdl(line, material(self.board.fen()))
        return f" wdl {w} {d} {l}"

    # --- quick commands ----------------------------------------------------------

    def uci(self, args: list[str]) -> None:
        """The playing options, and in research mode the research switches after them."""
        self.send(f"id name {ENGINE_NAME}")
        self.send(f"id author {AUTHOR}")
        for option in listed(self.options, self.research):
            self.send(option.uci_line())
        self.send("uciok")

    def isready(self, args: list[str]) -> None:
        self.searcher                   # the hash table and the net are ready
        self.send("readyok")

    def setoption(self, args: list[str]) -> None:
        args = self._clamp_elo(args)    # issue 42: UCI_Elo out of range is clamped (with an error line)
        self.options.set(args)
        if self._searcher is not None:
            self._load_nets_needed()    # MoveOrdering, NMMReductions or NMMPruning may now read the net

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
        view), the TD net's output, phase blend and strongest inputs, or the
        NNUE's bucket, score and the men that weigh most in it."""
        if self.options["Eval"] == "td" and self.searcher.uses_td:
            self._td_evaluation()
            return
        if self.options["Eval"] == "nnue" and self.searcher.uses_nnue:
            from engine.evaluation.explain import explain_nnue
            for line in explain_nnue(self._nnue_net, self.board, self.searcher.evaluate(self.board)):
                self.send(line)
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
        searcher = self.searcher
        if self._nmm_file != self.options["NMMFile"]:
            self._load_nmm(self.options["NMMFile"])     # read for the command if no option needed it
        if not searcher.has_nmm:
            raise UciError("no NMM net is loaded (see the NMMFile option)")
        for move, score in searcher.nmm_scores(self.board):
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
        book = self.book_move(go)
        if book is not None:
            return [f"bestmove {book}"]
        handicap = self._handicap()     # issue 42: None at full strength
        self._align_eval(handicap is None)
        if handicap is not None:
            limits = handicap.limit(limits)
        if self.debug:
            self.info_string(f"go: depth {limits['depth']} nodes {limits['nodes']} mate {limits['mate']} "
                             f"soft {limits['soft_ms']} ms hard {limits['hard_ms']} ms "
                             f"ponder {go.ponder} waits for stop {go.waits_for_stop}")
        last_pv: list[str] = []         # the PV of the last line-1 report

        def on_info(line: dict) -> None:
            if handicap is not None and not handicap.shows(line):
                return
            if line["multipv"] == 1:
                last_pv[:] = line["pv"]
            self.send(format_info(line, self._wdl_text(line)))

        def begin() -> None:
            searcher.begin(board, ponder=job.pondering, start_ms=job.start_ms, **limits)

        if handicap is not None:
            searcher.configure(multipv=handicap.multipv)     # put back below, whatever happens
        try:
            job.start(begin, on_ponderhit=self._ponderhit_reporter(searcher))
            try:
                result = searcher.run(on_info=on_info, on_currmove=self._send_currmove)
            finally:
                job.finish_search()
        finally:
            if handicap is not None:
                searcher.configure(multipv=self.options["MultiPV"])
        if handicap is not None:
            result = self._weakened(handicap, result)
        best = result["bestmove"]
        if best is None:
            return [f"info depth 0 score {'mate 0' if board.is_check() else 'cp 0'}", "bestmove 0000"]
        lines = []
        if result["line"]["pv"] != last_pv:
            # A stopped iteration, or another thread, found the move played: say so,
            # so that the last info line shows its line and its ponder move.
            lines.append(format_info(result["line"], self._wdl_text(result["line"])))
        if not board.is_legal(best):    # cannot happen; if it ever does, never send it
            self.error(f"the search chose {best}, which is not legal here")
            best, result["ponder"] = board.legal_moves()[0], None
        lines.append(f"bestmove {best}" + (f" ponder {result['ponder']}" if result["ponder"] else ""))
        return lines

    # --- playing strength (issue 42: UCI_LimitStrength, UCI_Elo; engine/strength.py) ---

    def _clamp_elo(self, args: list[str]) -> list[str]:
        option = self.options.option("UCI_Elo")
        args, problem = clamp_elo_args(args, option.min, option.max)
        if problem:
            self.error(problem)
        return args

    def _handicap(self) -> Handicap | None:
        """What UCI_LimitStrength changes in this go (None: nothing, full strength)."""
        if not self.options["UCI_LimitStrength"]:
            return None
        skill = self.options["StrengthSkill"]
        handicap = Handicap(self.options["UCI_Elo"], self.options["StrengthSeed"], self.options["MultiPV"],
                            None if skill < 0 else skill / 1000)
        p = handicap.profile
        if self.debug:
            self.info_string(f"limit strength: UCI_Elo {self.options['UCI_Elo']} skill {p.skill:.3f} "
                             f"nodes {p.nodes} lines {p.lines} error {p.sigma:.0f} cp")
        return None if p.nodes is None and p.lines == 1 else handicap

    def _align_eval(self, full_strength: bool) -> None:
        """A weakened go searches with the handwritten evaluation, the one
        UCI_Elo's table was fitted with (engine/strength.py); a full-strength
        go with the net Eval names. The switch clears the table, so it is left
        as it is between gos of the same kind: a weakened engine keeps its
        table from move to move, as when its levels were measured."""
        searcher, wanted = self._searcher, self.options["Eval"]
        if searcher is None:
            return
        if wanted == "nnue" and searcher.uses_nnue != full_strength:
            searcher.use_nnue(full_strength)
        elif wanted == "td" and searcher.uses_td != full_strength:
            searcher.use_td(full_strength)

    def _weakened(self, handicap: Handicap, result: dict) -> dict:
        """The search's result with the move the handicap chooses among its lines."""
        line = handicap.pick(self.searcher.root_lines(handicap.multipv), self.board.zobrist())
        if line is None or line["pv"][0] == result["bestmove"]:
            return result
        line = {**line, "multipv": 1}
        return {**result, "bestmove": line["pv"][0], "ponder": line["pv"][1] if len(line["pv"]) > 1 else None,
                "score": line["score"], "mate": line["mate"], "line": line}

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


def default_searcher(hash_mb: int = HASH_DEFAULT_MB, options: Mapping[str, Any] | None = None, *,
                     searcher_class: type[Searcher] = Searcher, **settings: Any) -> Searcher:
    """A searcher as the engine makes its own: every option at its default
    (engine/options.py), the endgame rules, the files the options need;
    ``options`` (UCI option names: values, or their ``setoption`` text) set
    before it is made, ``settings`` (Searcher.configure keywords) after, and
    the Neural MoveMap loaded if the settings then read it; made as
    ``searcher_class`` (LabSearcher where a tool reads inside the search).
    The lab's tools that search start here, so that they search with the
    engine users run unless told otherwise (a bare ``Searcher()`` has the
    core's own settings: history order, no singular extensions, ...).

    Sets the core-wide endgame switch, as the engine does. ValueError if an
    option is unknown or a file it names cannot be used: the engine would
    say so and play on, but a tool must not measure another engine.

    >>> default_searcher(1).settings["ordering"]
    'chessmaps'
    >>> default_searcher(1, {"MoveOrdering": "history"}, singular=False).settings["singular"]
    False
    """
    problems: list[str] = []
    # Only errors: what the engine merely reports (the Syzygy tables found) is no problem.
    session = Session(lambda line: problems.append(line) if line.startswith("info string error") else None,
                      searcher_class=searcher_class)
    for name, value in {"Hash": hash_mb, **(options or {})}.items():
        option = session.options.option(name)
        session.options.values[option.name] = option.parse(value) if isinstance(value, str) else value
    session._hash_mb = session.options["Hash"]      # the table is made at that size, not resized
    searcher = session.searcher
    if settings:
        searcher.configure(**settings)
        if needs_nmm(searcher.settings) and not searcher.has_nmm:
            session._load_nmm(session.options["NMMFile"])
    if problems:
        raise ValueError("; ".join(line.removeprefix("info string error: ") for line in problems))
    return searcher


def options_line(options: Mapping[str, Any] | None = None, settings: Mapping[str, Any] | None = None) -> str:
    """What a tool searches with, in one line for its log.

    >>> options_line()
    'search options: the defaults of nmm-chess 0.1.0'
    >>> options_line({"MoveOrdering": "history"}, {"singular": False})
    'search options: the defaults of nmm-chess 0.1.0, with MoveOrdering=history, singular=False'
    """
    changed = [f"{k}={v}" for k, v in {**(options or {}), **(settings or {})}.items()]
    return f"search options: the defaults of {ENGINE_NAME}" + (f", with {', '.join(changed)}" if changed else "")
