"""The search's numbers, each declared once (issue 43): margins, depths,
reductions, windows, SEE thresholds, history scales and time factors.

Each is a compile-time constant of the core in the playing build and a
variable, with a UCI option, only in the tuning build, as Stockfish's TUNE
macro does. ``setup.py`` writes, from ``SEARCH_PARAMS``:

- ``ext/search_params.h``: ``#define NAME value`` per constant, or, with
  ``NMM_TUNE=1`` in the build's environment, ``#define NAME nmm_tune_NAME``
  and a global ``nmm_tune_NAME`` that starts at the default;
- ``ext/search_params.pxi``: the Cython declarations the search reads them by.

Both are generated (not in git), so a clean clone builds either way. The
core's ``tuning_build()``, ``search_params()`` and ``set_search_param()``
read and set them (ext/search_params_api.pxi); ``engine.options`` makes a
tuning build's UCI options of them, a float one as a spin of its value in
hundredths (``UCI_SCALE``: every tool sets a spin), so that
``nmm-chess tune`` can move them. ``docs/search_params.md`` lists them
(``python -m engine.search_params docs``, ``make docs``).

The clock's few constants (``where=CLOCK``: how much of the clock a move is
allotted) live in Python, in engine/timeman.py, which reads them from this
table; a tuning build's options set them there (``timeman.set_clock_param``).

The defaults are the literals the search had before the table, exactly:
``bench`` is unchanged, in either build (tests/test_search_params.py).

>>> PARAMS_BY_NAME["LMR_DIVISOR"].uci_default, PARAMS_BY_NAME["RFP_MARGIN"].uci_max
(225, 200)
>>> PARAMS_BY_NAME["LMR_BASE"].spsa()
'LMR_BASE=75,0,200,10,0.002'
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HEADER = REPO / "ext" / "search_params.h"
PXI = REPO / "ext" / "search_params.pxi"
DOCS = REPO / "docs" / "search_params.md"
TUNE_ENV = "NMM_TUNE"       # NMM_TUNE=1 at build time: the tuning build
UCI_SCALE = 100             # a float constant's UCI option is a spin of its value in hundredths
R_END = 0.002               # SPSA's learning rate at the end (fishtest's usual)
GROUPS = ("pruning", "reductions", "extensions", "aspiration", "see", "history", "time")
CORE, CLOCK = "core", "clock"   # where a constant lives: the Cython core, or engine/timeman.py


@dataclass(frozen=True)
class SearchParam:
    """One constant: ``default`` is an int or a float, and so is the constant
    in C (``int`` or ``double``); ``min``..``max`` is the range a tuning build
    takes; ``c_end``, ``r_end`` are SPSA's final step and learning rate.
    ``where`` is CORE (the search's, compiled in) or CLOCK (the time
    manager's, engine/timeman.py, which allots a move's time in Python)."""
    name: str
    default: int | float
    min: int | float
    max: int | float
    c_end: float
    group: str
    help: str
    r_end: float = R_END
    where: str = CORE

    @property
    def is_float(self) -> bool:
        return isinstance(self.default, float)

    @property
    def c_type(self) -> str:
        return "double" if self.is_float else "int"

    def to_uci(self, value: float) -> int:
        """The UCI spin value of ``value``: itself, or hundredths for a float."""
        return round(value * UCI_SCALE) if self.is_float else int(value)

    def from_uci(self, value: int) -> int | float:
        """The constant's value of a UCI spin value (n / 100.0 is the double
        nearest n hundredths, the same as the literal's: exact defaults)."""
        return value / UCI_SCALE if self.is_float else value

    @property
    def uci_default(self) -> int:
        return self.to_uci(self.default)

    @property
    def uci_min(self) -> int:
        return self.to_uci(self.min)

    @property
    def uci_max(self) -> int:
        return self.to_uci(self.max)

    def spsa(self, r_end: float | None = None) -> str:
        """``Name=start,min,max,c_end,r_end`` in UCI units, as ``nmm-chess tune``
        takes it; ``r_end`` replaces the table's learning rate."""
        c_end = self.c_end * UCI_SCALE if self.is_float else self.c_end
        return (f"{self.name}={self.uci_default},{self.uci_min},{self.uci_max},{c_end:g},"
                f"{r_end if r_end is not None else self.r_end:g}")


def _p(name: str, default: int | float, low: int | float, high: int | float, c_end: float, group: str,
       help: str, where: str = CORE) -> SearchParam:
    return SearchParam(name, default, low, high, c_end, group, help, where=where)


_PRUNE, _RED, _EXT, _ASP, _SEE, _HIST, _TIME = GROUPS

# In the order the search meets them (ext/search.pxi, stats.pxi, picker.pxi).
SEARCH_PARAMS: tuple[SearchParam, ...] = (
    # --- before the moves (prune_before_moves) ---
    _p("RAZOR_DEPTH", 3, 1, 6, 1, _PRUNE, "Razoring (off by default) at this depth or less"),
    _p("RAZOR_MARGIN", 250, 100, 600, 20, _PRUNE, "Razoring: eval + margin * depth at or below alpha"),
    _p("RFP_DEPTH", 6, 2, 12, 1, _PRUNE, "reverse futility at this depth or less"),
    _p("RFP_MARGIN", 80, 20, 200, 8, _PRUNE, "reverse futility: eval - margin * depth at or above beta returns"),
    _p("RFP_IMPROVING", 30, 0, 120, 6, _PRUNE, "reverse futility: added to the eval where it is improving"),
    _p("NMP_MIN_DEPTH", 2, 1, 6, 1, _PRUNE, "null move from this depth on"),
    _p("NMP_BASE", 3, 1, 6, 1, _PRUNE, "null move's R: this ..."),
    _p("NMP_DEPTH_DIV", 4, 2, 8, 1, _PRUNE, "... plus depth / this ..."),
    _p("NMP_EVAL_DIV", 200, 50, 400, 20, _PRUNE, "... plus (eval - beta) / this (the eval bonus) ..."),
    _p("NMP_EVAL_MAX", 3, 0, 6, 1, _PRUNE, "... which is at most this"),
    _p("NMP_VERIFY_DEPTH", 10, 6, 16, 1, _PRUNE, "a null-move cut-off from this depth on is verified by a search"),
    _p("PROBCUT_DEPTH", 5, 3, 10, 1, _PRUNE, "ProbCut from this depth on"),
    _p("PROBCUT_MARGIN", 200, 50, 400, 15, _PRUNE, "ProbCut's beta: beta + this"),
    _p("PROBCUT_REDUCTION", 4, 2, 6, 1, _PRUNE, "ProbCut's search is this much shallower"),
    _p("PROBCUT_CAPTURE_MARGIN", 100, 0, 300, 15, _PRUNE,
       "ProbCut skips a capture whose eval + victim + this stays below its beta"),
    # --- in the move loop ---
    _p("LMP_DEPTH", 4, 1, 8, 1, _PRUNE, "late-move pruning at this depth or less"),
    _p("LMP_BASE", 3, 1, 10, 1, _PRUNE, "late-move pruning after this + depth * depth quiet moves ..."),
    _p("LMP_IMPROVING", 2, 0, 8, 1, _PRUNE, "... plus this where the eval is improving"),
    _p("FUTILITY_DEPTH", 3, 1, 8, 1, _PRUNE, "futility pruning at this depth or less"),
    _p("FUTILITY_BASE", 60, 0, 200, 10, _PRUNE, "futility: a quiet move with eval + base + margin * depth ..."),
    _p("FUTILITY_MARGIN", 100, 40, 250, 10, _PRUNE, "... at or below alpha (and no check) is skipped"),
    _p("FUTILITY_IMPROVING", 0, 0, 120, 6, _PRUNE, "futility: added to the margin where the eval is improving "
       "(0: none yet, for the tuner to try)"),
    _p("HISTORY_PRUNE_DEPTH", 4, 1, 8, 1, _PRUNE, "HistoryPruning (off by default) at this depth or less ..."),
    _p("HISTORY_PRUNE_MARGIN", 4000, 1000, 12000, 400, _PRUNE,
       "... skips a quiet move whose statistics are below -margin * (depth - 1)"),
    _p("QS_DELTA_MARGIN", 200, 0, 500, 20, _PRUNE,
       "quiescence's delta pruning: stand pat + victim + this at or below alpha skips the capture"),
    _p("SEE_PRUNE_DEPTH", 8, 2, 12, 1, _SEE, "SEEPruning (off by default) at this depth or less ..."),
    _p("SEE_PRUNE_NOISY", 100, 20, 250, 10, _SEE, "... skips a capture with SEE below -this * depth ..."),
    _p("SEE_PRUNE_QUIET", 20, 5, 80, 3, _SEE, "... and a quiet move with SEE below -this * depth * depth"),
    _p("CAPTURE_SEE_MIN", 0, -300, 0, 15, _SEE,
       "a capture with SEE below this is a bad one: after the quiet moves, and not in quiescence or ProbCut"),
    _p("QS_CHECK_SEE_MIN", 0, -300, 0, 15, _SEE, "QSearchChecks (off by default) tries quiet checks with SEE "
       "of at least this"),
    # --- reductions ---
    _p("IIR_DEPTH", 4, 2, 10, 1, _RED, "internal iterative reduction: a ply less from this depth on without "
       "a table move"),
    _p("LMR_MIN_DEPTH", 3, 2, 6, 1, _RED, "late-move reductions from this depth on"),
    _p("LMR_BASE", 0.75, 0.0, 2.0, 0.1, _RED, "the reduction table: base + ln(depth) * ln(moves) / divisor"),
    _p("LMR_DIVISOR", 2.25, 1.0, 4.0, 0.15, _RED, "the reduction table's divisor"),
    _p("LMR_HISTORY_DIV", 12000, 4000, 32000, 1000, _RED, "HistoryLMR: the reduction less statistics / this"),
    _p("LMR_NOT_IMPROVING", 1, 0, 3, 1, _RED, "a late move's reduction: plus this where the eval is not improving ..."),
    _p("LMR_PV", 1, 0, 3, 1, _RED, "... less this at a PV node ..."),
    _p("LMR_KILLER", 1, 0, 3, 1, _RED, "... less this for a killer move ..."),
    _p("LMR_CUT_NODE", 1, 0, 3, 1, _RED, "... plus this at an expected cut node (CutNodeLMR)"),
    # --- extensions ---
    _p("SE_DEPTH", 8, 4, 14, 1, _EXT, "singular extension from this depth on ..."),
    _p("SE_TT_DEPTH", 3, 1, 6, 1, _EXT, "... of a table entry at most this much shallower than the node"),
    _p("SE_MARGIN", 2, 1, 6, 1, _EXT, "singular: the others must stay below the table score - this * depth"),
    _p("SE_DOUBLE_MARGIN", 25, 0, 100, 5, _EXT, "DoubleExtensions (off by default): two plies where the others stay "
       "this far below that, not at a PV node ..."),
    _p("SE_DOUBLE_MAX", 8, 1, 16, 1, _EXT, "... and fewer than this many double extensions lie on the path"),
    # --- aspiration windows ---
    _p("ASP_MIN_DEPTH", 4, 1, 8, 1, _ASP, "aspiration windows from this depth on"),
    _p("ASP_DELTA", 20, 5, 60, 3, _ASP, "the aspiration window's first half-width, centipawns"),
    _p("ASP_GROWTH", 2.0, 1.3, 4.0, 0.15, _ASP, "the half-width's factor after each fail"),
    # --- history statistics (stats.pxi) ---
    _p("STAT_BONUS_SCALE", 32, 8, 96, 4, _HIST, "a quiet cut-off move's statistics gain this * depth * depth ..."),
    _p("STAT_BONUS_MAX", 2048, 512, 4096, 150, _HIST, "... at most this"),
    _p("STAT_MALUS_SCALE", 32, 8, 96, 4, _HIST, "the quiet moves searched before it lose this * depth * depth ..."),
    _p("STAT_MALUS_MAX", 2048, 512, 4096, 150, _HIST, "... at most this"),
    _p("CAPTURE_MVV_SCALE", 32, 8, 96, 4, _HIST, "CaptureHistory (off by default): a good capture's order is "
       "MVV-LVA * this / 8 plus its statistics"),
    _p("CORR_WEIGHT_MAX", 16, 4, 64, 3, _HIST, "CorrectionHistory (on by default): an entry moves toward the "
       "newest gap by depth + 1 of 256, at most this ..."),
    _p("CORR_LIMIT", 100, 25, 400, 15, _HIST, "... and corrects the evaluation by at most this many centipawns"),
    _p("CORR_NONPAWN_WEIGHT", 64, 16, 112, 6, _HIST, "NonPawnCorrection (on by default): each side's pieces' "
       "average weighs this of 256 in the correction, the pawns' the rest"),
    # --- time (time_factor, iterative_deepening) ---
    _p("TM_UNSTABLE", 1.3, 0.8, 2.5, 0.08, _TIME, "the soft limit's factor the iteration after the best move changed"),
    _p("TM_SETTLED_AFTER", 4, 2, 10, 1, _TIME, "iterations with the same best move that settle it ..."),
    _p("TM_SETTLED", 0.7, 0.3, 1.0, 0.05, _TIME, "... then the soft limit's factor is this"),
    _p("TM_EFFORT_SHARE", 0.75, 0.4, 0.95, 0.04, _TIME, "TimeManagement effort: the best move's node share "
       "that changes nothing ..."),
    _p("TM_EFFORT_SCALE", 1.6, 0.5, 3.0, 0.1, _TIME, "... the factor grows by this times its shortfall ..."),
    _p("TM_EFFORT_MIN", 0.6, 0.3, 1.0, 0.05, _TIME, "... clamped to at least this ..."),
    _p("TM_EFFORT_MAX", 1.5, 1.0, 2.5, 0.08, _TIME, "... and at most this"),
    _p("TM_DROP_SCALE", 200.0, 50.0, 600.0, 20.0, _TIME, "effort: the factor grows by score drop / this ..."),
    _p("TM_DROP_MIN", 0.85, 0.5, 1.0, 0.04, _TIME, "... clamped to at least this ..."),
    _p("TM_DROP_MAX", 1.5, 1.0, 2.5, 0.08, _TIME, "... and at most this"),
    _p("TM_MIN_FACTOR", 0.35, 0.1, 1.0, 0.04, _TIME, "the soft limit's factor is at least this ..."),
    _p("TM_MAX_FACTOR", 2.5, 1.5, 4.0, 0.15, _TIME, "... and at most this"),
    _p("TM_NEXT_ITERATION", 0.6, 0.3, 1.0, 0.04, _TIME, "no new iteration once this share of the soft limit "
       "is spent"),
    _p("TM_BALANCED_UNSTABLE", 1.5, 1.0, 2.5, 0.08, _TIME, "TimeManagement balanced: the soft limit's factor "
       "the iteration after the best move changed ..."),
    _p("TM_BALANCED_SETTLED", 0.85, 0.5, 1.0, 0.04, _TIME, "... and once it is settled (TM_SETTLED_AFTER)"),
    # --- the clock (engine/timeman.py: a move's soft and hard limits, in Python) ---
    _p("TM_MOVES_TO_GO", 35, 15, 60, 3, _TIME, "the moves left to plan for when the GUI does not say", CLOCK),
    _p("TM_INC_SHARE", 0.75, 0.3, 1.0, 0.05, _TIME, "the share of the increment added to a move's time ...", CLOCK),
    _p("TM_LOW_CLOCK_INCREMENTS", 10, 3, 30, 2, _TIME, "... when the clock holds at least this many "
       "increments ...", CLOCK),
    _p("TM_LOW_CLOCK_INC_SHARE", 0.5, 0.2, 1.0, 0.05, _TIME, "... and this share below it (the clock grows back)",
       CLOCK),
    _p("TM_HARD_FACTOR", 5.0, 2.0, 8.0, 0.3, _TIME, "the hard limit is this times the soft one ...", CLOCK),
    _p("TM_MAX_SHARE", 0.35, 0.15, 0.6, 0.03, _TIME, "... and never more than this share of the clock", CLOCK),
)
PARAMS_BY_NAME = {p.name: p for p in SEARCH_PARAMS}
CORE_PARAMS = tuple(p for p in SEARCH_PARAMS if p.where == CORE)      # in ext/search_params.h
CLOCK_PARAMS = tuple(p for p in SEARCH_PARAMS if p.where == CLOCK)    # in engine/timeman.py


def in_group(group: str) -> tuple[SearchParam, ...]:
    """The constants of one of GROUPS, or of several joined by commas
    (``pruning,see``: groups that interact, tuned together), in the table's
    order; an item may also name one constant, so that a run can leave out
    what the default modes never read (``TM_SETTLED,TM_UNSTABLE``).
    ValueError for another name.

    >>> [p.name for p in in_group("TM_SETTLED,TM_UNSTABLE")]
    ['TM_UNSTABLE', 'TM_SETTLED']
    """
    names = group.split(",")
    for name in names:
        if name not in GROUPS and name not in PARAMS_BY_NAME:
            raise ValueError(f"no group or constant {name!r}: a group is one of {', '.join(GROUPS)}")
    return tuple(p for p in SEARCH_PARAMS if p.group in names or p.name in names)


def spsa_line(group: str, r_end: float | None = None) -> str:
    """The PARAMS of ``nmm-chess tune`` for ``group`` (see in_group), one line.

    ``r_end`` overrides the table's fishtest rate (0.002, made for tens of
    thousands of game pairs): a run of N pairs moves a constant by noise
    alone about r_end * c_end * sqrt(N) steps, so a short run takes a larger
    one, near 0.5 / sqrt(N), or it ends where it began."""
    return " ".join(p.spsa(r_end) for p in in_group(group))


def tuned(state_path: Path, min_steps: float = 0.0, mean_from: int | None = None) -> dict[str, int]:
    """The UCI values (rounded) a ``nmm-chess tune`` run's state ended at,
    for the constants of this table that it moved off their defaults.

    ``min_steps``: keep only the constants that ended at least this many of
    their steps c_end from where the run started them. A run's noise alone
    moves a constant about one step (``spsa_line``), and rounding turns such
    a move of a small integer into a whole unit: with ``min_steps=1`` the
    test plays what the games pulled, not what noise left (issue 43's run 2).

    ``mean_from``: the mean of the path from step ``mean_from`` to the end
    instead of its last point. Averaging the iterates (Polyak and Ruppert)
    cancels most of the last steps' noise, which a short run's large final
    rate leaves in its end point (issue 43's run 5).
    """
    import json
    state = json.loads(Path(state_path).read_text())
    theta = state["theta"]
    if mean_from is not None:
        tail = [step for step in state["history"] if step["k"] >= mean_from]
        if not tail:
            raise ValueError(f"the run has no steps from {mean_from}")
        theta = {name: sum(step[name] for step in tail) / len(tail) for name in theta}
    run = {p["name"]: p for p in state.get("config", {}).get("params", [])}

    def moved_enough(name: str) -> bool:
        table = PARAMS_BY_NAME[name]
        start = run.get(name, {}).get("start", table.uci_default)
        c_end = run.get(name, {}).get("c_end", table.to_uci(table.c_end))
        return abs(theta[name] - start) >= min_steps * c_end

    values = {name: round(value) for name, value in theta.items()
              if name in PARAMS_BY_NAME and moved_enough(name)}
    return {name: v for name, v in values.items() if v != PARAMS_BY_NAME[name].uci_default}


def tuned_spec(state_path: Path, min_steps: float = 0.0, mean_from: int | None = None) -> str:
    """The engine-spec options of ``tuned``: ``NAME=V,NAME=V`` (empty when
    nothing moved), as ``nmm@REV+tune:`` takes them."""
    return ",".join(f"{name}={v}" for name, v in tuned(state_path, min_steps, mean_from).items())


def tuned_table(state_path: Path, min_steps: float = 0.0, mean_from: int | None = None) -> str:
    """A markdown table of the moved constants: default and tuned value in
    the constant's own units."""
    rows = ["| Name | Default | Tuned |", "|---|---|---|"]
    for name, v in tuned(state_path, min_steps, mean_from).items():
        p = PARAMS_BY_NAME[name]
        rows.append(f"| `{name}` | {p.default!r} | {p.from_uci(v)!r} |")
    return "\n".join(rows)


# --- the generated files ---------------------------------------------------------

def _c(value: int | float) -> str:
    """A C literal of ``value``: repr of a float reads back as the same double."""
    return f"({value!r})" if isinstance(value, float) else f"({value})"


def header(tune: bool) -> str:
    """ext/search_params.h: the constants (``tune``: the variables) and the
    functions the core's Python API reads them by."""
    n = len(CORE_PARAMS)
    lines = ["/* Generated from engine/search_params.py by setup.py: do not edit. */",
             "#ifndef NMM_SEARCH_PARAMS_H", "#define NMM_SEARCH_PARAMS_H", "",
             f"#define NMM_TUNE {int(tune)}", f"#define NMM_N_PARAMS {n}", ""]
    for p in CORE_PARAMS:
        if tune:
            lines += [f"static {p.c_type} nmm_tune_{p.name} = {_c(p.default)};",
                      f"#define {p.name} nmm_tune_{p.name}"]
        else:
            lines.append(f"#define {p.name} {_c(p.default)}")
    lines += ["", "static const char* const nmm_param_names[NMM_N_PARAMS] = {"
              + ", ".join(f'"{p.name}"' for p in CORE_PARAMS) + "};",
              "static const int nmm_param_floats[NMM_N_PARAMS] = {"
              + ", ".join(str(int(p.is_float)) for p in CORE_PARAMS) + "};",
              "static const double nmm_param_mins[NMM_N_PARAMS] = {"
              + ", ".join(repr(float(p.min)) for p in CORE_PARAMS) + "};",
              "static const double nmm_param_maxs[NMM_N_PARAMS] = {"
              + ", ".join(repr(float(p.max)) for p in CORE_PARAMS) + "};", "",
              "static inline const char* nmm_param_name(int i) { return nmm_param_names[i]; }",
              "static inline int nmm_param_is_float(int i) { return nmm_param_floats[i]; }",
              "static inline double nmm_param_min(int i) { return nmm_param_mins[i]; }",
              "static inline double nmm_param_max(int i) { return nmm_param_maxs[i]; }", "",
              "static inline double nmm_param_get(int i) {", "    switch (i) {"]
    lines += [f"    case {i}: return {p.name};" for i, p in enumerate(CORE_PARAMS)]
    lines += ["    }", "    return 0;", "}", "",
              "/* 0 in the playing build, where they are constants. */",
              "static inline int nmm_param_set(int i, double value) {"]
    if tune:
        lines += ["    switch (i) {"]
        lines += [f"    case {i}: nmm_tune_{p.name} = ({p.c_type})value; return 1;"
                  for i, p in enumerate(CORE_PARAMS)]
        lines += ["    }"]
    lines += ["    (void)i; (void)value;", "    return 0;", "}", "", "#endif", ""]
    return "\n".join(lines)


def pxi() -> str:
    """ext/search_params.pxi: the Cython declarations (the same in both builds)."""
    lines = ["# Generated from engine/search_params.py by setup.py: do not edit. The search's",
             "# constants (docs/search_params.md); variables in a tuning build (NMM_TUNE=1).", "",
             'cdef extern from "search_params.h":',
             "    int NMM_TUNE", "    int NMM_N_PARAMS",
             "    const char* nmm_param_name(int i) nogil", "    int nmm_param_is_float(int i) nogil",
             "    double nmm_param_min(int i) nogil", "    double nmm_param_max(int i) nogil",
             "    double nmm_param_get(int i) nogil", "    int nmm_param_set(int i, double value) nogil"]
    lines += [f"    {p.c_type} {p.name}" for p in CORE_PARAMS]
    return "\n".join(lines) + "\n"


def write_if_changed(path: Path, text: str) -> bool:
    """Write ``text`` unless the file holds it already: an unchanged header
    keeps its time, so that the build does not compile the core again."""
    if path.exists() and path.read_text() == text:
        return False
    path.write_text(text)
    return True


def generate(tune: bool, folder: Path | None = None) -> None:
    """Write the header (of the playing or the tuning build) and the .pxi into ``folder`` (ext/)."""
    folder = folder or HEADER.parent
    write_if_changed(folder / HEADER.name, header(tune))
    write_if_changed(folder / PXI.name, pxi())


def tune_from_env(environ: dict[str, str]) -> bool:
    """Whether the build's environment asks for the tuning build (NMM_TUNE set, not empty or 0).

    >>> tune_from_env({"NMM_TUNE": "1"}), tune_from_env({"NMM_TUNE": "0"}), tune_from_env({})
    (True, False, False)
    """
    return environ.get(TUNE_ENV, "").strip().lower() not in ("", "0", "false", "no", "off")


def markdown() -> str:
    """docs/search_params.md: every constant by group."""
    lines = ["# Search constants", "",
             "Generated from the table in `engine/search_params.py` (`SEARCH_PARAMS`) by `make docs`",
             "(`python -m engine.search_params docs`): do not edit it by hand; a test fails when the two differ.", "",
             "Each is a compile-time constant of the playing build (the clock's, marked engine/timeman.py, a",
             "constant of that module). The tuning build (`make tune-build`, or",
             "`NMM_TUNE=1` in the environment of `setup.py build_ext`) makes each a variable and a UCI spin",
             "option of the same name, listed by its `uci` only: a float's option is its value in hundredths",
             f"(`LMR_DIVISOR` 2.25 is `setoption name LMR_DIVISOR value 225`). `make tune-search GROUP=pruning`",
             "tunes a group with `nmm-chess tune` on the tuning build of a commit (`nmm@REV+tune`); c_end and",
             f"r_end ({R_END:g} for each; `TUNE_R_END` replaces it for a short run) are its SPSA steps, in the",
             "constant's own units. `make tune-sprt GROUP=pruning` plays the values a run ended at against the",
             "defaults (SPRT [0, 5] at 10+0.1); results: reports/strength/README.md, issue 43's section.", ""]
    for group in GROUPS:
        lines += [f"## {group}", "", "| Name | Type | Default | Range | c_end | What it does |",
                  "|---|---|---|---|---|---|"]
        lines += [f"| `{p.name}` | {p.c_type} | {p.default!r} | {p.min!r}–{p.max!r} | {p.c_end:g} | {p.help}"
                  f"{' (engine/timeman.py)' if p.where == CLOCK else ''} |" for p in in_group(group)]
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    """``python -m engine.search_params docs [PATH]``: write docs/search_params.md;
    ``spsa GROUP [R_END]``: the PARAMS of a group (or of groups and constants, see in_group)
    for ``nmm-chess tune`` (UCI units), one line;
    ``tuned STATE [--table] [--min-steps X] [--mean-from K]``: a tuning run's moved
    constants (those that ended X steps or more from their start; with K, the path's
    mean from step K on instead of its end), as spec options or a table;
    ``header [--tune]``: write ext/search_params.h and .pxi (setup.py does it)."""
    command, rest = (argv[0], argv[1:]) if argv else ("docs", [])
    if command == "docs":
        path = Path(rest[0]) if rest else DOCS
        path.write_text(markdown())
        print(f"{len(SEARCH_PARAMS)} search constants in {path}")
    elif command == "spsa" and len(rest) in (1, 2):
        print(spsa_line(rest[0], float(rest[1]) if len(rest) == 2 else None))
    elif command == "tuned" and rest:
        steps = float(rest[rest.index("--min-steps") + 1]) if "--min-steps" in rest[:-1] else 0.0
        mean_from = int(rest[rest.index("--mean-from") + 1]) if "--mean-from" in rest[:-1] else None
        path = Path(rest[0])
        print(tuned_table(path, steps, mean_from) if "--table" in rest else tuned_spec(path, steps, mean_from))
    elif command == "header":
        generate("--tune" in rest)
    else:
        sys.exit("usage: python -m engine.search_params docs [PATH] | spsa GROUP|CONSTANT[,...] [R_END] | "
                 "tuned STATE [--table] [--min-steps X] [--mean-from K] | header [--tune]")


if __name__ == "__main__":
    main(sys.argv[1:])
