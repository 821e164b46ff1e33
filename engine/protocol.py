"""What UCI lines mean: ``position`` and ``go`` parsed and checked, search
limits derived from ``go``, ``info`` lines formatted. Pure functions: the
threads and the engine state live in engine.uci and engine.session.

Every number is checked against its range. A bad one is reported and
replaced by a sane value (the nearest in range, or a fixed fallback search):
it never turns into "no limit".

>>> go = parse_go("depth 0 wtime 1000.5 btime x".split())
>>> go.depth, go.wtime, go.btime
(1, 1000, None)
>>> for warning in go.warnings:
...     print(warning)
go: depth 0 is out of range 1..120; using 1
go: wtime 1000.5 is not a whole number; using 1000
go: btime needs a number, got 'x'
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from engine._core import MAX_DEPTH, STARTING_FEN, Board
from engine.timeman import DEFAULT_SLOW_MOVER, allot, movetime_limits


class UciError(ValueError):
    """A command that cannot be carried out; reported as ``info string``."""


# --- position ----------------------------------------------------------------

def parse_position(tokens: list[str], chess960: bool = False) -> tuple[Board, str | None]:
    """The board a ``position`` command describes (tokens after the word), and
    what was wrong with its moves (None if nothing).

    A bad FEN raises UciError: the caller keeps its old board. A move that is
    not legal ends the move list there, as Stockfish does: the board holds the
    moves before it, and the second value says so. Promotion letters may be
    upper case (``e7e8Q``), castling king-to-g1 or king-takes-rook. A FEN
    whose castling rights only Chess960 has (a king off e1, a rook off the
    corner) gets Chess960 notation whatever UCI_Chess960 says.

    >>> board, problem = parse_position("startpos moves e2e4 e7e5 g1f3 zzzz".split())
    >>> board.fen()
    'rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2'
    >>> problem
    "position: 'zzzz' (move 4) is not a legal move; the position is kept up to the move before it"
    """
    if not tokens:
        raise UciError("position needs 'startpos' or 'fen'")
    moves_at = tokens.index("moves") if "moves" in tokens else len(tokens)
    head, moves = tokens[:moves_at], tokens[moves_at + 1:]
    if head == ["startpos"]:
        fen = STARTING_FEN
    elif head[0] == "fen" and len(head) > 1:
        fen = " ".join(head[1:])
    else:
        raise UciError(f"position needs 'startpos' or 'fen <FEN>', got {' '.join(head)[:80]!r}")
    try:
        board = Board(fen, chess960=chess960)
    except ValueError as e:
        raise UciError(f"bad FEN {fen[:100]!r}: {e}; the position is unchanged") from None
    if not board.standard_castling:
        board.chess960 = True           # e1g1 could not say which castling (or king move) is meant
    for i, move in enumerate(moves):
        try:
            board.push(move)
        except (ValueError, TypeError):
            return board, (f"position: {move[:20]!r} (move {i + 1}) is not a legal move; "
                           f"the position is kept up to the move before it")
    return board, None


# --- go ----------------------------------------------------------------------

MAX_CLOCK_MS = 2**31 - 1        # about 24 days
MAX_MOVESTOGO = 1000
MAX_NODES = 2**63
MAX_MATE = MAX_DEPTH // 2
FALLBACK_MOVETIME_MS = 1000     # a go with limits, none of them usable, thinks this long
MATE_EXTRA_DEPTH = 10           # go mate N searches at most 2N + this many plies

# token: (lowest, highest) accepted; a value outside is clamped and reported.
# movestogo is the exception: out of range it is dropped (as if not given).
GO_NUMBERS = {
    "wtime": (0, MAX_CLOCK_MS), "btime": (0, MAX_CLOCK_MS),
    "winc": (0, MAX_CLOCK_MS), "binc": (0, MAX_CLOCK_MS),
    "movestogo": (1, MAX_MOVESTOGO), "depth": (1, MAX_DEPTH), "nodes": (1, MAX_NODES),
    "movetime": (1, MAX_CLOCK_MS), "mate": (1, MAX_MATE),
}
GO_FLAGS = ("infinite", "ponder")


@dataclass
class Go:
    """A parsed ``go`` command: valid values only, and what was wrong."""
    wtime: int | None = None
    btime: int | None = None
    winc: int | None = None
    binc: int | None = None
    movestogo: int | None = None
    depth: int | None = None
    nodes: int | None = None
    movetime: int | None = None
    mate: int | None = None
    infinite: bool = False
    ponder: bool = False
    searchmoves: list[str] = field(default_factory=list)
    limit_tokens: bool = False      # any limit was named, usable or not
    warnings: list[str] = field(default_factory=list)

    @property
    def waits_for_stop(self) -> bool:
        """Its bestmove comes only after ``stop``: ``go infinite``, or a go
        that names no limit at all (``go``, ``go searchmoves e2e4``), as
        Stockfish reads it. ``go ponder`` waits for ``ponderhit`` as well."""
        return self.infinite or not self.limit_tokens


def parse_number(token: str, text: str | None) -> tuple[int | None, str | None]:
    """(value, warning): a value within GO_NUMBERS[token], or None.

    >>> parse_number("depth", "-3")
    (1, 'go: depth -3 is out of range 1..120; using 1')
    >>> parse_number("nodes", "nan")
    (None, "go: nodes needs a number, got 'nan'")
    """
    low, high = GO_NUMBERS[token]
    try:
        value, warning = int(text), None
    except (TypeError, ValueError):
        try:
            number = float(text)
        except (TypeError, ValueError):
            number = math.nan
        if not math.isfinite(number):
            return None, f"go: {token} needs a number, got {text!r}"
        value = math.floor(number)
        warning = f"go: {token} {text} is not a whole number; using {value}"
    if low <= value <= high:
        return value, warning
    if token == "movestogo":
        return None, f"go: movestogo {value} is out of range {low}..{high}; ignoring it"
    if token in ("wtime", "btime") and value < 0:
        return 0, None                  # a clock run below zero: it happens, it is not an error
    clamped = min(max(value, low), high)
    return clamped, f"go: {token} {value} is out of range {low}..{high}; using {clamped}"


def parse_go(tokens: list[str]) -> Go:
    """The parameters of ``go`` (the tokens after the word).

    >>> go = parse_go("wtime 1000 btime -5 searchmoves e2e4 d2d4 infinite".split())
    >>> go.wtime, go.btime, go.searchmoves, go.infinite, go.warnings
    (1000, 0, ['e2e4', 'd2d4'], True, [])
    """
    go = Go()
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token in GO_NUMBERS:
            go.limit_tokens = True
            text = tokens[i + 1] if i + 1 < len(tokens) else None
            if text in GO_NUMBERS or text in GO_FLAGS or text == "searchmoves":
                text = None             # "go depth infinite": depth has no value
            i += 1 if text is None else 2
            value, warning = parse_number(token, text)
            setattr(go, token, value)
            if warning:
                go.warnings.append(warning)
        elif token in GO_FLAGS:
            setattr(go, token, True)
            i += 1
        elif token == "searchmoves":
            i += 1
            while i < len(tokens) and tokens[i] not in GO_NUMBERS and tokens[i] not in GO_FLAGS:
                go.searchmoves.append(tokens[i])
                i += 1
        else:
            go.warnings.append(f"go: ignoring unknown token {token[:20]!r}")
            i += 1
    return go


def search_limits(go: Go, board: Board, overhead_ms: int,
                  slow_mover: int = DEFAULT_SLOW_MOVER) -> tuple[dict, list[str]]:
    """Keyword arguments for Searcher.begin, and warnings, for ``go`` on ``board``.

    The side to move's clock and increment are used; a go that names a clock
    but not ours, or whose limits were all unusable, thinks for
    FALLBACK_MOVETIME_MS. ``go mate N`` stops at a mate in N or after 2N +
    MATE_EXTRA_DEPTH plies. ``infinite`` ignores the clocks.

    >>> limits, _ = search_limits(parse_go("movetime 1000".split()), Board(), 50)
    >>> limits["soft_ms"], limits["hard_ms"]
    (None, 950)
    """
    warnings: list[str] = []
    limits: dict = {"depth": go.depth, "nodes": go.nodes, "mate": go.mate, "soft_ms": None,
                    "hard_ms": None, "searchmoves": None}
    if go.mate:
        limits["depth"] = min(go.depth or MAX_DEPTH, 2 * go.mate + MATE_EXTRA_DEPTH)
    if go.searchmoves:
        legal = [m for m in go.searchmoves if board.is_legal(m)]
        if len(legal) < len(go.searchmoves):
            warnings.append("go: searchmoves names moves that are not legal here; ignoring them"
                            + ("" if legal else " (searching every move)"))
        limits["searchmoves"] = legal or None
    white = board.turn == "w"
    clock, inc = (go.wtime, go.winc) if white else (go.btime, go.binc)
    clock_named = any(v is not None for v in (go.wtime, go.btime, go.winc, go.binc, go.movestogo))
    if go.infinite:
        pass
    elif go.movetime is not None:
        limits["soft_ms"], limits["hard_ms"] = movetime_limits(go.movetime, overhead_ms)
    elif clock is not None:
        limits["soft_ms"], limits["hard_ms"] = allot(clock, inc or 0, go.movestogo, overhead_ms, slow_mover)
    elif clock_named or (go.limit_tokens and not any((go.depth, go.nodes, go.mate))):
        if clock_named:
            side = "wtime" if white else "btime"
            warnings.append(f"go: no {side} for the side to move; "
                            f"thinking {FALLBACK_MOVETIME_MS} ms instead")
        else:
            warnings.append(f"go: no usable limit; thinking {FALLBACK_MOVETIME_MS} ms instead")
        limits["soft_ms"], limits["hard_ms"] = movetime_limits(FALLBACK_MOVETIME_MS, overhead_ms)
    return limits, warnings


# --- info --------------------------------------------------------------------

def format_info(line: dict, wdl: str = "") -> str:
    """One ``info`` line from a search report; ``wdl``: `` wdl W D L`` after
    the score (UCI_ShowWDL), or nothing."""
    score = f"mate {line['mate']}" if line["mate"] is not None else f"cp {line['score']}"
    if line["bound"]:
        score += " " + line["bound"]
    tbhits = f" tbhits {line['tbhits']}" if line.get("tbhits") is not None else ""     # with Syzygy tables
    return (f"info depth {line['depth']} seldepth {line['seldepth']} multipv {line['multipv']} "
            f"score {score}{wdl} nodes {line['nodes']} nps {line['nps']} hashfull {line['hashfull']}{tbhits} "
            f"time {line['time_ms']} pv {' '.join(line['pv'])}")
