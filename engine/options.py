"""The UCI options, each declared once: its name, type, range, default, one
line of help, its group (a playing option, or a research switch) and the
core setting it is, if it is one. The ``uci`` list (engine.session), the
settings every new Searcher gets (``core_settings``) and ``docs/options.md``
(``python -m engine.options``, ``make docs``) are all made from ``OPTIONS``.

A plain ``uci`` lists the playing options only; the research switches are
listed too in research mode (``nmm-chess --research``, ``uci_main.py
--research`` or ``NMM_CHESS_RESEARCH=1``), which the project's tools start
the engine in, since python-chess configures only the options it was shown.
``setoption`` sets any option by name in either mode (``listed``).

A tuning build of the core (issue 43, engine/search_params.py) adds an option
per search constant (``tuning_options``), listed in either mode; the playing
build has none, and its ``uci`` list is the same as before them.

>>> Option("Hash", "spin", 16, 1, 4096).uci_line()
'option name Hash type spin default 16 min 1 max 4096'
>>> Option("Ponder", "check", False).parse("true")
True
>>> core_settings(defaults())["ordering"]
'chessmaps'
"""
from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine._core import MAX_THREADS, ORDERING_NAMES, TIME_MODES, set_search_param, tuning_build
from engine.paths import REPO, user_data_dir
from engine.search_params import CORE, SEARCH_PARAMS, SearchParam
from engine.strength import ELO_DEFAULT, ELO_MAX, ELO_MIN
from engine.timeman import DEFAULT_SLOW_MOVER, set_clock_param

# --- names spelled once ---------------------------------------------------------

ORDERINGS: tuple[str, ...] = tuple(ORDERING_NAMES)      # the core's quiet-move scorers, in its order
NET_ORDERINGS = ("nmm", "straight", "weighted")         # those that read the Neural MoveMap
EVALS = ("handwritten", "td", "nnue")
DEFAULT_EVAL = "nnue"      # since its SPRT against handwritten (issue 41, reports/nnue)
REGION_RULES = ("hand", "net")                          # which squares matter to the chessmaps order
# TIME_MODES: the core's (engine._core), its default first.
# Chosen by games at 10+0.1 against history, the default before it: 810 games,
# +33 +- 17 Elo (reports/nmm_search/README.md, "Let matches choose").
DEFAULT_ORDERING = "chessmaps"
HASH_DEFAULT_MB = 16
NMM_MIN_DEPTH = 2         # the net is not asked this near the leaves (see nets/README.md)

PLAYING = "playing"
# The groups, in the order docs/options.md lists them: the playing options, then the research switches.
GROUPS = (PLAYING, "move ordering", "ChessMaps", "search", "time", "evaluation")
TUNING = "tuning"       # a tuning build's search constants: not in OPTIONS, nor docs/options.md
DOCS = REPO / "docs" / "options.md"
# Research mode: the uci list shows the research switches as well (``listed``).
RESEARCH_FLAG = "--research"
RESEARCH_ENV = "NMM_CHESS_RESEARCH"


class OptionError(ValueError):
    pass


def per_user_tables() -> str:
    """MoveTablesFile's default: found when a session starts, since the
    per-user folder follows the environment (``$NMM_CHESS_HOME``)."""
    return str(user_data_dir() / "movetables.npz")


@dataclass(frozen=True)
class Option:
    """One option as declared; a Session binds ``apply``, what setting it does."""
    name: str
    type: str                           # check, spin, combo, button, string
    default: Any = None                 # a callable: a default found when a session starts
    min: int | None = None
    max: int | None = None
    choices: tuple[str, ...] = ()
    help: str = ""                      # one line (docs/options.md)
    group: str = PLAYING                # one of GROUPS
    keyword: str | None = None          # the Searcher.configure keyword it sets, if it is one
    scale: float | None = None          # the core's value = the UCI integer x scale (a fraction)
    apply: Callable[[Any], None] = field(default=lambda value: None, repr=False, compare=False)

    def core_value(self, value: Any) -> Any:
        return value if self.scale is None else value * self.scale

    def resolved(self) -> Any:
        """The default, found now if it is one found when a session starts."""
        return self.default() if callable(self.default) else self.default

    def uci_line(self) -> str:
        line = f"option name {self.name} type {self.type}"
        if self.type == "button":
            return line
        default = str(self.default).lower() if self.type == "check" else self.default
        line += f" default {'<empty>' if default == '' else default}"
        if self.type == "spin":
            line += f" min {self.min} max {self.max}"
        for choice in self.choices:
            line += f" var {choice}"
        return line

    def parse(self, text: str | None) -> Any:
        """The value ``setoption ... value <text>`` asks for; OptionError if invalid."""
        if self.type == "button":
            return None
        if text is None:
            raise OptionError(f"option {self.name} needs a value")
        if self.type == "check":
            if text.lower() not in ("true", "false"):
                raise OptionError(f"option {self.name} takes true or false, not {text!r}")
            return text.lower() == "true"
        if self.type == "spin":
            try:
                value = int(text)
            except ValueError:
                raise OptionError(f"option {self.name} takes an integer, not {text!r}") from None
            if not self.min <= value <= self.max:
                raise OptionError(f"option {self.name} must be in {self.min}..{self.max}, not {value}")
            return value
        if self.type == "combo":
            for choice in self.choices:
                if choice.lower() == text.lower():
                    return choice
            raise OptionError(f"option {self.name} is one of {', '.join(self.choices)}, not {text!r}")
        return "" if text == "<empty>" else text        # as some GUIs send an empty string


def check(name: str, default: bool, help: str, group: str, keyword: str | None = None) -> Option:
    return Option(name, "check", default, help=help, group=group, keyword=keyword)


def spin(name: str, default: int, low: int, high: int, help: str, group: str, keyword: str | None = None,
         scale: float | None = None) -> Option:
    return Option(name, "spin", default, low, high, help=help, group=group, keyword=keyword, scale=scale)


def combo(name: str, default: str, choices: tuple[str, ...], help: str, group: str,
          keyword: str | None = None) -> Option:
    return Option(name, "combo", default, choices=choices, help=help, group=group, keyword=keyword)


def string(name: str, default: str | Callable[[], str], help: str, group: str) -> Option:
    return Option(name, "string", default, help=help, group=group)


_ORDER, _MAPS, _SEARCH, _TIME, _EVAL = GROUPS[1:]
_SHIPPED = "default: the shipped file, found from any folder; missing or bad: "

# --- playing strength (issue 42: engine/strength.py; applied by Session.go) ---------
STRENGTH_OPTIONS: tuple[Option, ...] = (
    check("UCI_LimitStrength", False, "play at the strength UCI_Elo names instead of full strength", PLAYING),
    spin("UCI_Elo", ELO_DEFAULT, ELO_MIN, ELO_MAX, "the strength UCI_LimitStrength plays at, on the scale of "
         "Stockfish's UCI_Elo (fitted by games, reports/strength/elo_ladder.md): fewer nodes a move and a "
         "rating-dependent error in choosing among the best 4 lines; out of range: the nearest end", PLAYING),
    spin("StrengthSeed", 0, 0, 2**31 - 1, "the seed of UCI_LimitStrength's errors: the same seed and position "
         "give the same choice; another seed, other games", PLAYING),
)
STRENGTH_RESEARCH: tuple[Option, ...] = (
    spin("StrengthSkill", -1, -1, 1000, "UCI_LimitStrength at this skill (thousandths: 0 the weakest, 1000 full "
         "strength) instead of UCI_Elo's; -1: UCI_Elo's (the calibration plays skills, `study elo-ladder`)",
         _SEARCH),
)

# The uci list shows them in this order. Options without a keyword are applied
# by the Session (engine/session.py, Session._effects) or read when a command needs them.
OPTIONS: tuple[Option, ...] = (
    spin("Hash", HASH_DEFAULT_MB, 1, 8192, "transposition table size in MB; if the memory is not there, "
         "`info string error` and the old table stays", PLAYING),
    spin("Threads", 1, 1, MAX_THREADS, "search threads (Lazy SMP: helpers share the transposition table; "
         "the main thread keeps the clock and reports)", PLAYING),
    Option("Clear Hash", "button", help="empty the transposition table"),
    check("Ponder", False, "the GUI may send `go ponder`", PLAYING),
    spin("MultiPV", 1, 1, 256, "lines reported per iteration", PLAYING, "multipv"),
    spin("Move Overhead", 50, 0, 5000, "ms kept back per move for GUI and pipe delays", PLAYING),
    spin("SlowMover", DEFAULT_SLOW_MOVER, 10, 500, "the time per move in percent of what the clock allots, "
         "within the same caps (150 won an SPRT against 100, then 200 against 150)", PLAYING),
    check("UCI_Chess960", False, "castling written king-takes-rook", PLAYING),
    *STRENGTH_OPTIONS,
    combo("MoveOrdering", DEFAULT_ORDERING, ORDERINGS, "the quiet-move scorer: `history`, `nmm` (the net's "
          "order), `straight` (the net's best move, then history), `weighted` (net score + weighted history), "
          "`chessmaps` (move classes, then square-control gain, then history; chosen by games)", _ORDER, "ordering"),
    string("NMMFile", "nets/nmm.npz", "the Neural MoveMap weight file, read when an option needs the net; "
           + _SHIPPED + "`info string error`, the orderings fall back to history", _ORDER),
    spin("HistoryWeight", 0, 0, 1_000_000_000, "`weighted`'s history weight in millionths (9900 = 0.0099); "
         "0 takes the net's suggestion", _ORDER),
    check("AdaptiveHistoryWeight", False, "let the search move the weight: an nn-miss raises it by "
          "AdaptiveBetaNN, an hh-miss lowers it by AdaptiveBetaHH", _ORDER, "adaptive"),
    spin("AdaptiveBetaNN", 100, 0, 100_000, "the adaptive weight's step up, in thousandths", _ORDER,
         "beta_nn", 1e-3),
    spin("AdaptiveBetaHH", 100, 0, 100_000, "the adaptive weight's step down, in thousandths", _ORDER,
         "beta_hh", 1e-3),
    check("MoveChains", False, "the ChessMaps short-term memory: quiet moves that cut off, kept per square "
          "with their follow-up, tried after the good captures", _MAPS, "move_chains"),
    check("MoveTables", False, "the ChessMaps long-term memory: 3-ply paths reinforced by cut-offs, their "
          "first moves tried with the chains; kept across games in MoveTablesFile", _MAPS),
    spin("MoveTableMoves", 1, 1, 4, "how many table moves a node tries", _MAPS),
    string("MoveTablesFile", per_user_tables, "where the move tables live (`movetables.npz` in the per-user "
           "data folder); read when MoveTables goes on, written at `ucinewgame` and `quit`", _MAPS),
    check("ForwardPruning", False, "the ChessMaps guarded forward pruning at non-PV nodes 3+ plies from the "
          "leaves: a beam of safe moves, the rest re-added on a fail low", _MAPS, "forward_pruning"),
    spin("BeamWidth", 4, 1, 64, "safe other moves the forward pruning keeps at a node", _MAPS, "beam_width"),
    string("StrategyFile", "nets/strategy.npz", "the strategy database (popular squares from master games) "
           "the forward pruning reads; " + _SHIPPED + "`info string error`, pruning goes on without it", _MAPS),
    check("LongBranches", False, "with MoveTables: play the heaviest reliable table path out and compare it "
          "with the full search (a study's counter)", _MAPS, "long_branches"),
    combo("ChessMapsRegions", "hand", REGION_RULES, "which squares matter to the `chessmaps` order: `hand` "
          "(centre, the opponent's half, the enemy king's squares) or `net`, the net of RegionsFile", _MAPS),
    string("RegionsFile", "nets/regions.npz", "the regions net (`nmm-chess train regions`); " + _SHIPPED
           + "`info string error`, the hand rule stays", _MAPS),
    spin("NMMMinDepth", NMM_MIN_DEPTH, 0, 64, "no costly scorer (a net, ChessMaps) within this many plies of "
         "the leaves (history there)", _ORDER, "nmm_min_depth"),
    check("NMMCutNodesOnly", True, "ask the net at PV and expected cut nodes only", _ORDER, "nmm_cut_nodes_only"),
    check("NMMReductions", False, "late-move reductions follow the net: a liked quiet move is reduced a ply "
          "less, a disliked one a ply more (reads NMMFile)", _ORDER, "nmm_reductions"),
    check("NMMPruning", False, "late-move pruning follows the net: liked quiet moves are never pruned by move "
          "count, disliked ones after half of it (reads NMMFile)", _ORDER, "nmm_pruning"),
    spin("NMMLikedPermille", 200, 0, 1000, "the net's probability (thousandths, softmax over the quiet "
         "moves) from which a move is liked", _ORDER, "nmm_prob_high", 1e-3),
    spin("NMMDislikedPermille", 20, 0, 1000, "the net's probability (thousandths) below which a move is "
         "disliked", _ORDER, "nmm_prob_low", 1e-3),
    check("NullMove", True, "null-move pruning (off: for tests and sweeps)", _SEARCH, "null_move"),
    check("LateMoveReductions", True, "late-move reductions (off: for tests and sweeps)", _SEARCH, "lmr"),
    check("FutilityPruning", True, "futility pruning (off: for tests and sweeps)", _SEARCH, "futility"),
    check("SEEPruning", False, "near the leaves, skip captures and quiet moves that lose by exchange "
          "(off until games say otherwise)", _SEARCH, "see_pruning"),
    # On since its SPRT [0, 10] accepted H1 after 553 games at 10+0.1 against the
    # engine with HistoryLMR: 573 games, +33.5 +- 19.2 Elo (reports/strength).
    check("SingularExtensions", True, "a table move whose alternatives all fall well short is searched a ply "
          "deeper; multi-cut when the node fails high without it", _SEARCH, "singular"),
    check("DoubleExtensions", False, "with SingularExtensions, a table move whose alternatives fall short by "
          "a further 25 centipawns, at a node off the PV, is searched two plies deeper, at most 8 times on a "
          "path (off until games say otherwise)", _SEARCH, "double_extensions"),
    check("CounterMoves", False, "a picker stage after the killers: the quiet move that last refuted the "
          "opponent's move (off until games say otherwise)", _SEARCH, "counter_moves"),
    check("Razoring", False, "at depth 3 or less, a node far below alpha whose quiescence stays below "
          "returns (off until games say otherwise)", _SEARCH, "razoring"),
    check("QSearchChecks", False, "the first ply of quiescence also tries quiet checks that lose nothing "
          "(off until games say otherwise)", _SEARCH, "qs_checks"),
    # On since its SPRT [0, 10] with the net accepted H1 after 2,115 games at 10+0.1: +11.7 +- 9.5 Elo.
    check("ProbCut", True, "from depth 5, a good capture that holds beta + 200 in a shallower search cuts "
          "the node", _SEARCH, "probcut"),
    check("CutNodeLMR", False, "a ply more reduction at expected cut nodes (off until games say otherwise)",
          _SEARCH, "cut_node_lmr"),
    # Part of the core before issue 14; switches so that games can say what they are worth.
    check("ImprovingMargins", True, "pruning and reductions are a little gentler where the side to move's "
          "static evaluation rose over its last two plies", _SEARCH, "improving"),
    check("CheckExtension", True, "a node in check is searched a ply deeper", _SEARCH, "check_extension"),
    # On since 1,008 games at 10+0.1 against off: +19.3 +- 15.4 Elo.
    check("ContinuationHistory", True, "statistics of the quiet moves that cut off, keyed by the move and the "
          "two before it, added to whatever MoveOrdering scores", _SEARCH, "cont_history"),
    # On since its SPRT [0, 10] accepted H1 after 392 games at 10+0.1: +46.4 +- 23.6 Elo.
    check("HistoryLMR", True, "the continuation statistics shorten a late quiet move's reduction where they "
          "are good and lengthen it where they are bad", _SEARCH, "history_lmr"),
    check("HistoryPruning", False, "at depth 4 or less, a late quiet move with bad statistics is skipped "
          "(off until games say otherwise)", _SEARCH, "history_pruning"),
    # On since its SPRT [0, 10] accepted H1 after 918 games at 10+0.1: +20.1 +- 14.3 Elo (reports/strength).
    check("CorrectionHistory", True, "the static evaluation plus its average error, measured by the search, "
          "in positions with the same pawns", _SEARCH, "correction"),
    # On since its SPRT [0, 10] accepted H1 after 2,949 games at 10+0.1: +9.4 +- 7.8 Elo (reports/strength).
    check("NonPawnCorrection", True, "with CorrectionHistory, the error is also averaged per each side's "
          "pieces other than pawns, and the correction is the three averages' blend", _SEARCH,
          "nonpawn_correction"),
    check("TTEval", False, "pruning starts from the table's score where its bound says the position is worth "
          "more (or less) than the static evaluation (off until games say otherwise)", _SEARCH, "tt_eval"),
    check("CaptureHistory", False, "good captures ordered by the victim and by how such a capture (piece, square, "
          "victim) has lately fared in the search (off until games say otherwise)", _SEARCH, "capture_history"),
    combo("TimeManagement", TIME_MODES[0], tuple(TIME_MODES), "how the thought on a clock bends to the "
          "search: `stability` (longer while the best move changes), `effort`, `balanced`, `fixed` "
          "(the baseline)", _TIME, "time_management"),
    combo("Eval", DEFAULT_EVAL, EVALS, "the evaluation: `handwritten`, `td`, the TD(λ)-trained net of "
          "EvalFile (against the tuned weights: no gain measured, reports/td), or `nnue` (the default), the "
          "efficiently updatable net of NnueFile, learnt by TD(λ) (issue 41: its SPRT against handwritten, "
          "reports/nnue)",
          _EVAL),
    string("EvalFile", "nets/td.npz", "the TD evaluation's weight file (a correction net is refused unless "
           "it corrects these handwritten weights); " + _SHIPPED + "`info string error`, handwritten stays",
           _EVAL),
    string("NnueFile", "nets/nnue.npz", "the NNUE's weight file (engine/evaluation/nnue.py: format, version, "
           "architecture, scales and a hash checked), read when Eval is nnue; " + _SHIPPED
           + "`info string error`, handwritten stays", _EVAL),
    check("EndgameRules", True, "exact KPK, drawn rook-pawn and opposite-bishop endings, two knights "
          "against a bare king, K+B+N to the right corner (under Eval nnue: KPK, the draws, and the "
          "handwritten score against any other bare king)", _EVAL),
    *STRENGTH_RESEARCH,
    # --- issue 42: the standard options GUIs look for (a book, WDL, analysis, the opponent) --------
    # Playing options declared here, after the research switches: ``listed`` and docs/options.md
    # show every playing option first. The Session applies them (Session._standard_effects) or
    # ``go`` reads them (engine/book.py, engine/wdl.py).
    check("OwnBook", False, "play from the Polyglot opening book of BookFile while it knows the position "
          "(not in analysis, `go infinite`, `go ponder` or `go mate`)", PLAYING),
    string("BookFile", "", "the Polyglot book (`.bin`); a relative path starts from the working folder; "
           "missing or bad: `info string error`, and the engine searches", PLAYING),
    check("BookBestMove", False, "play the book's heaviest move (off: a move drawn at random, each in "
          "proportion to its weight)", PLAYING),
    check("UCI_ShowWDL", False, "`wdl W D L` in `info` lines: the chances of a win, draw and loss in per "
          "mille, from a model fitted to the engine's own games (reports/wdl)", PLAYING),
    check("UCI_AnalyseMode", False, "set by a GUI that analyses: the book is not consulted", PLAYING),
    string("UCI_Opponent", "", "set by a GUI: `<title> <elo> computer <name>` or `... human <name>` (`none` for an "
           "unknown title or rating); recorded and echoed in an `info string`", PLAYING),
)


def research_from_env(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the environment asks for research mode (``NMM_CHESS_RESEARCH``
    set to anything but empty, 0, false, no or off).

    >>> research_from_env({"NMM_CHESS_RESEARCH": "1"}), research_from_env({"NMM_CHESS_RESEARCH": "0"})
    (True, False)
    """
    value = (os.environ if environ is None else environ).get(RESEARCH_ENV, "")
    return value.strip().lower() not in ("", "0", "false", "no", "off")


def listed(options: Iterable[Option], research: bool) -> list[Option]:
    """The options a ``uci`` list shows, in its order: the playing options in
    the order of their declaration, a tuning build's search constants (in
    either mode: a tournament manager sets only the options it was shown),
    then, in research mode only, the research switches.

    >>> [o.name for o in listed(OPTIONS, False)][:3]
    ['Hash', 'Threads', 'Clear Hash']
    >>> len(listed(OPTIONS, True)) == len(OPTIONS) > len(listed(OPTIONS, False))
    True
    """
    options = list(options)
    return ([o for o in options if o.group == PLAYING] + [o for o in options if o.group == TUNING]
            + ([o for o in options if o.group not in (PLAYING, TUNING)] if research else []))


def tuning_option(param: SearchParam) -> Option:
    """A search constant's option: a spin in the constant's units, or in
    hundredths for a float (engine.search_params.UCI_SCALE)."""
    unit = " (in hundredths)" if param.is_float else ""
    return Option(param.name, "spin", param.uci_default, param.uci_min, param.uci_max,
                  help=param.help + unit, group=TUNING,
                  apply=lambda value: (set_search_param if param.where == CORE else set_clock_param)(
                      param.name, param.from_uci(value)))


def tuning_options() -> tuple[Option, ...]:
    """The search constants' options in a tuning build of the core; none in the playing build."""
    return tuple(tuning_option(p) for p in SEARCH_PARAMS) if tuning_build() else ()


# --- Syzygy endgame tables (issue 42; ext/syzygy.h, syzygy.pxi, search_syzygy.pxi) ------------------
# Stockfish's names and meanings, which GUIs know. SyzygyPath is applied by the
# Session (it opens the files); the others are core settings.
SYZYGY_OPTIONS: tuple[Option, ...] = (
    string("SyzygyPath", "", "folders of Syzygy endgame tables (`.rtbw`, `.rtbz`), separated by `:` (`;` on "
           "Windows); empty: none. At the root the engine keeps the tables' result (DTZ: a won ending is "
           "mated within the fifty-move rule), in the search WDL probes cut the tree (`info ... tbhits`); a "
           "folder or file it cannot use: `info string error`, the others are used", PLAYING),
    spin("SyzygyProbeDepth", 1, 1, 100, "the search probes the tables from this depth on (positions with "
         "fewer men than the largest tables at any depth)", PLAYING, "syzygy_probe_depth"),
    check("Syzygy50MoveRule", True, "a win the fifty-move rule turns into a draw (a cursed win, or a blessed "
          "loss) counts as a draw", PLAYING, "syzygy_50_move_rule"),
    spin("SyzygyProbeLimit", 7, 0, 7, "probe no position with more men than this (the tables found set the "
         "largest)", PLAYING, "syzygy_probe_limit"),
)
OPTIONS = OPTIONS + SYZYGY_OPTIONS


def defaults() -> dict[str, Any]:
    """Every option's default by name (the buttons have none)."""
    return {o.name: o.resolved() for o in OPTIONS if o.type != "button"}


def core_settings(values: Mapping[str, Any]) -> dict[str, Any]:
    """The Searcher.configure keywords of the options that are core settings,
    at ``values`` (option name to value): all of them reach a new searcher,
    so that an option's default is what the engine plays with."""
    return {o.keyword: o.core_value(values[o.name]) for o in OPTIONS if o.keyword}


def needs_nmm(settings: Mapping[str, Any]) -> bool:
    """Whether a searcher configured with ``settings`` (core keywords) reads
    the Neural MoveMap: an ordering that scores with it, or the net's
    reductions or pruning (ext/picker.pxi asks the net for nothing else).

    >>> needs_nmm(core_settings(defaults()))
    False
    """
    return (settings.get("ordering") in NET_ORDERINGS or bool(settings.get("nmm_reductions"))
            or bool(settings.get("nmm_pruning")))


class Options:
    """The option table of one session, with current values.

    ``setoption name <name> [value <value>]``: names are matched without
    regard to case, and may contain spaces.
    """

    def __init__(self, options: list[Option]) -> None:
        self._options = {o.name.lower(): o for o in options}
        self.values = {o.name: o.default for o in options if o.type != "button"}

    def __iter__(self):
        return iter(self._options.values())

    def __getitem__(self, name: str) -> Any:
        return self.values[name]

    def option(self, name: str) -> Option:
        """The option of that name (any case); OptionError if there is none."""
        option = self._options.get(name.lower())
        if option is None:
            raise OptionError(f"no such option: {name!r}")
        return option

    def default(self, name: str) -> Any:
        """The option's declared default (``values`` holds the current one)."""
        return self._options[name.lower()].default

    def set(self, args: list[str]) -> None:
        """Carry out ``setoption`` (its tokens after the word); OptionError if malformed."""
        option, value = self.check(args)
        if option.type == "button":
            option.apply(value)
            return
        # Stored before it is applied: an effect may read the table (HistoryWeight
        # does), and it must see the new value; undone if applying fails.
        old, self.values[option.name] = self.values[option.name], value
        try:
            option.apply(value)
        except Exception:
            self.values[option.name] = old
            raise

    def check(self, args: list[str]) -> tuple[Option, Any]:
        """The option and value ``setoption`` names, without applying it."""
        if not args or args[0] != "name":
            raise OptionError("setoption needs 'name <option> [value <value>]'")
        if "value" in args:
            at = args.index("value")
            name, text = " ".join(args[1:at]), " ".join(args[at + 1:])
        else:
            name, text = " ".join(args[1:]), None
        option = self.option(name)
        return option, option.parse(text)


# --- docs/options.md ---------------------------------------------------------------

def _kind(option: Option) -> str:
    if option.type == "spin":
        return f"spin {option.min}–{option.max}"
    if option.type == "combo":
        return "combo: " + ", ".join(f"`{c}`" for c in option.choices)
    return option.type


def _default(option: Option) -> str:
    if callable(option.default):
        return "*per-user*"
    if option.type == "button":
        return ""
    return str(option.default).lower() if option.type == "check" else f"{option.default}"


def markdown() -> str:
    """docs/options.md: every option with one line of help, the playing
    options first, then the research switches by group."""
    lines = ["# UCI options", "",
             "Generated from the declaration in `engine/options.py` (`OPTIONS`) by `make docs`",
             "(`python -m engine.options docs/options.md`): do not edit it by hand; a test fails when the two",
             "differ. The playing options are those a player sets; the research switches are there for studies",
             "and games that measure them, and each default is what the engine plays with.", "",
             "A plain `uci` lists the playing options only. Research mode (`nmm-chess --research`,",
             "`uci_main.py --research`, or the environment variable `NMM_CHESS_RESEARCH=1`) lists the research",
             "switches as well; the project's tools (match, sweep, tune, SPRT) start the engine so. In either",
             "mode `setoption name <name> value <value>` sets any option below.", ""]
    for group in GROUPS:
        title = "Playing options" if group == PLAYING else f"Research switches: {group}"
        lines += [f"## {title}", "", "| Option | Type | Default | What it does |", "|---|---|---|---|"]
        lines += [f"| `{o.name}` | {_kind(o)} | {_default(o)} | {o.help} |" for o in OPTIONS if o.group == group]
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    """``python -m engine.options [PATH]``: write docs/options.md (or PATH; ``-``: standard output)."""
    text = markdown()
    if argv[:1] == ["-"]:
        sys.stdout.write(text)
        return
    path = Path(argv[0]) if argv else DOCS
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    print(f"{len(OPTIONS)} options in {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
