"""``nmm-chess study syzygy``: the Syzygy tables in play (issue 42).

Two measurements, python-chess's prober (chess.syzygy) the oracle of both:

- **Play-outs.** Random 3-4 man positions of every material the tables
  hold, the engine to move. A won one (WDL 2) is played against the
  DTZ-best defence (the defender's move keeps its best result and, among
  those, leaves the longest distance to the next capture, pawn move or
  mate): correct if the engine mates before the fifty-move rule or a
  repetition draws, and no move of its gives the win away. A drawn one
  (WDL 0) is played for ``draw_plies`` against an opponent that keeps its
  own draw (choosing at random among such moves, or winning where the
  engine errs): correct if the engine never moves into a lost position.
- **Probe speed.** The same positions probed by the core (SyzygyTables.bench,
  one loop without the GIL) and by python-chess: probes a second.

The engine is the core's Searcher made as the UCI engine makes it
(``default_searcher``), with the tables of SyzygyPath, searching a node
budget a move; ``tests/test_syzygy.py`` plays through the UCI engine with the same
positions and defender.
"""
from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.syzygy

from engine._core import Board, Searcher, SyzygyTables
from engine.perft import data_dir

TABLES = "syzygy"           # the folder of the data folder that holds them ($NMM_DATA or ../shared/data)
FIFTY = 100                 # plies


def default_tables() -> Path:
    return data_dir() / TABLES


def materials(folder: Path, max_men: int = 4) -> list[str]:
    """The materials (``KQvKR``) whose WDL and DTZ tables are both in ``folder``."""
    wdl = {p.stem for p in folder.glob("*.rtbw")}
    dtz = {p.stem for p in folder.glob("*.rtbz")}
    return sorted(name for name in wdl & dtz if len(name) - 1 <= max_men)


def random_position(material: str, rng: random.Random) -> chess.Board:
    """A legal position of ``material`` (either colour the stronger), either
    side to move, no castling, no en passant."""
    white, black = material.split("v")
    while True:
        board = chess.Board(None)
        squares = rng.sample(range(64), len(white) + len(black))
        for colour, part in ((chess.WHITE, white), (chess.BLACK, black)):
            for letter in part:
                board.set_piece_at(squares.pop(), chess.Piece(chess.Piece.from_symbol(letter).piece_type, colour))
        if rng.random() < 0.5:
            board = board.mirror()
        board.turn = rng.random() < 0.5
        if board.is_valid():
            return board


def en_passant_positions(rng: random.Random, count: int) -> list[chess.Board]:
    """KPvKP positions just after a double pawn push that can be taken en
    passant (the only 3-4 man material where it arises), both colours."""
    out: list[chess.Board] = []
    while len(out) < count:
        board = chess.Board(None)
        file = rng.randrange(8)
        side = rng.choice([-1, 1]) if 0 < file < 7 else (1 if file == 0 else -1)
        board.set_piece_at(chess.square(file, 1), chess.Piece(chess.PAWN, chess.WHITE))
        board.set_piece_at(chess.square(file + side, 3), chess.Piece(chess.PAWN, chess.BLACK))
        free = [sq for sq in chess.SQUARES if board.piece_at(sq) is None
                and sq not in (chess.square(file, 2), chess.square(file, 3))]
        wk, bk = rng.sample(free, 2)
        board.set_piece_at(wk, chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(bk, chess.Piece(chess.KING, chess.BLACK))
        board.turn = chess.WHITE
        if rng.random() < 0.5:
            board = board.mirror()
        if not board.is_valid():
            continue
        push = next((m for m in board.legal_moves if board.is_zeroing(m)
                     and abs(m.to_square - m.from_square) == 16), None)
        if push is None:
            continue
        board.push(push)
        if board.is_valid() and any(board.generate_legal_ep()):
            out.append(chess.Board(board.fen()))
    return out


def won_and_drawn(tablebase: chess.syzygy.Tablebase, material: str, rng: random.Random, won: int,
                  drawn: int, tries: int = 2000) -> tuple[list[chess.Board], list[chess.Board]]:
    """Up to ``won`` positions the side to move wins (WDL 2) and ``drawn`` it
    draws (WDL 0), of ``material``."""
    wins: list[chess.Board] = []
    draws: list[chess.Board] = []
    for _ in range(tries):
        if len(wins) >= won and len(draws) >= drawn:
            break
        board = random_position(material, rng)
        wdl = tablebase.probe_wdl(board)
        if wdl == 2 and len(wins) < won:
            wins.append(board)
        elif wdl == 0 and len(draws) < drawn and any(True for _ in board.legal_moves):
            draws.append(board)
    return wins, draws


def defence(tablebase: chess.syzygy.Tablebase, board: chess.Board, rng: random.Random | None = None) -> chess.Move:
    """The tables' best move for the side to move: its best result, then
    (losing) the longest distance to zeroing or mate, (winning) the shortest;
    drawing, any of them (at random with ``rng``)."""
    scored = []
    for move in board.legal_moves:
        board.push(move)
        if board.is_checkmate():
            key = (3, 0)
        elif board.is_insufficient_material() or board.is_stalemate():
            key = (0, 0)
        else:
            wdl = -tablebase.probe_wdl(board)
            dtz = tablebase.probe_dtz(board)        # the opponent's view
            key = (wdl, dtz if wdl < 0 else (-abs(dtz) if wdl > 0 else 0))
        board.pop()
        scored.append((key, move))
    best = max(key for key, _ in scored)
    moves = [move for key, move in scored if key == best]
    return rng.choice(moves) if rng else moves[0]


def drawing_try(tablebase: chess.syzygy.Tablebase, board: chess.Board, rng: random.Random) -> chess.Move:
    """The opponent in a drawn position: a win if the engine left one, else a
    random move that keeps its draw."""
    return defence(tablebase, board, rng)


@dataclass
class PlayOut:
    start: str
    kind: str               # "won" or "drawn"
    correct: bool
    end: str                # mate, fifty-move rule, repetition, lost the win, held, lost, ...
    plies: int
    moves: list[str]


EngineMove = Callable[[chess.Board], chess.Move]


def play_won(engine_move: EngineMove, tablebase: chess.syzygy.Tablebase, start: chess.Board,
             max_plies: int = 800) -> PlayOut:
    """Play a won position out against the DTZ-best defence."""
    board = start.copy()
    us = board.turn
    while True:
        if board.is_checkmate():
            won = board.turn != us
            return PlayOut(start.fen(), "won", won, "mate" if won else "mated", board.ply(), _moves(board))
        if board.halfmove_clock >= FIFTY:
            return PlayOut(start.fen(), "won", False, "fifty-move rule", board.ply(), _moves(board))
        if board.is_repetition(3):
            return PlayOut(start.fen(), "won", False, "repetition", board.ply(), _moves(board))
        if board.is_stalemate() or board.is_insufficient_material():
            return PlayOut(start.fen(), "won", False, "stalemate or dead position", board.ply(), _moves(board))
        if board.ply() - start.ply() >= max_plies:
            return PlayOut(start.fen(), "won", False, "too long", board.ply(), _moves(board))
        if board.turn == us:
            move = engine_move(board)
            board.push(move)
            if not board.is_checkmate() and tablebase.probe_wdl(board) != -2:
                return PlayOut(start.fen(), "won", False, f"lost the win with {move.uci()}", board.ply(),
                               _moves(board))
        else:
            board.push(defence(tablebase, board))


def play_drawn(engine_move: EngineMove, tablebase: chess.syzygy.Tablebase, start: chess.Board,
               rng: random.Random, plies: int = 40) -> PlayOut:
    """Play a drawn position ``plies`` on: the engine must never stand lost."""
    board = start.copy()
    us = board.turn
    for _ in range(plies):
        if board.is_game_over(claim_draw=True):
            break
        if board.turn == us:
            move = engine_move(board)
            board.push(move)
            if board.is_checkmate() or (not board.is_game_over() and tablebase.probe_wdl(board) > 0):
                return PlayOut(start.fen(), "drawn", False, f"lost with {move.uci()}", board.ply(), _moves(board))
        else:
            board.push(drawing_try(tablebase, board, rng))
    return PlayOut(start.fen(), "drawn", True, "held", board.ply(), _moves(board))


def _moves(board: chess.Board) -> list[str]:
    return [m.uci() for m in board.move_stack]


def core_player(searcher: Searcher, nodes: int) -> EngineMove:
    """The core's move: the game's moves given (repetitions count), ``nodes`` a move."""
    def move(board: chess.Board) -> chess.Move:
        root = board.root()
        ours = Board(root.fen())
        for m in board.move_stack:
            ours.push(m.uci())
        searcher.clear()                # each move as a fresh `go`: no table from the last
        return chess.Move.from_uci(searcher.search(ours, nodes=nodes)["bestmove"])
    return move


def engine_searcher(tables: Path, threads: int = 1) -> Searcher:
    """A searcher as the UCI engine makes it, with SyzygyPath set."""
    from engine.session import default_searcher
    searcher = default_searcher(16, {"SyzygyPath": str(tables), "Threads": threads})
    assert searcher.syzygy_tables is not None and searcher.syzygy_tables.max_pieces > 0
    return searcher


def play_outs(tables: Path, per_material: int, drawn_per_material: int, nodes: int, seed: int,
              log: Callable[[str], None] = print) -> list[PlayOut]:
    """Every material's sample played out (won and drawn), by material."""
    rng = random.Random(seed)
    searcher = engine_searcher(tables)
    player = core_player(searcher, nodes)
    results: list[PlayOut] = []
    with chess.syzygy.open_tablebase(str(tables)) as tablebase:
        for material in materials(tables):
            wins, draws = won_and_drawn(tablebase, material, rng, per_material, drawn_per_material)
            start = time.perf_counter()
            mine = [play_won(player, tablebase, b) for b in wins]
            mine += [play_drawn(player, tablebase, b, rng) for b in draws]
            results += mine
            bad = [r for r in mine if not r.correct]
            log(f"{material:7} won {sum(r.correct for r in mine if r.kind == 'won')}/{len(wins)} "
                f"drawn {sum(r.correct for r in mine if r.kind == 'drawn')}/{len(draws)} "
                f"({time.perf_counter() - start:.1f} s)"
                + "".join(f"\n  WRONG {r.start}: {r.end} after {' '.join(r.moves)}" for r in bad))
    return results


def probe_speed(tables: Path, positions: Iterable[chess.Board], repeat: int = 3) -> dict:
    """Probes a second, WDL and DTZ, by the core and by python-chess, on the
    same positions (each its best of ``repeat`` rounds), and whether all agree."""
    boards = list(positions)
    ours = [Board(b.fen()) for b in boards]
    core = SyzygyTables(str(tables))
    out: dict = {"positions": len(boards)}
    with chess.syzygy.open_tablebase(str(tables)) as tablebase:
        for kind, probe in (("wdl", tablebase.probe_wdl), ("dtz", tablebase.probe_dtz)):
            values, core_s = min((core.bench(ours, dtz=kind == "dtz") for _ in range(repeat)), key=lambda r: r[1])
            ref_s = float("inf")
            for _ in range(repeat):
                start = time.perf_counter()
                ref = [probe(b) for b in boards]
                ref_s = min(ref_s, time.perf_counter() - start)
            out[kind] = {"core_per_s": len(boards) / max(core_s, 1e-9), "python_chess_per_s": len(boards) / ref_s,
                         "agree": values == ref}
    return out


SEARCH_MATERIALS = ("KRPvKR", "KQPvKQ", "KRPvKB", "KPPvKP", "KBPvKN")


def search_cost(tables: Path, seed: int, per_material: int = 4, nodes: int = 200_000, rounds: int = 2) -> dict:
    """What the probes cost the search: random five-man positions (not in
    the 3-4 man tables at the root, their captures are), ``nodes`` each,
    searched with the tables and without, ``rounds`` times in turn: nodes a
    second and probes."""
    from engine.session import default_searcher
    rng = random.Random(seed)
    fens = [random_position(m, rng).fen() for m in SEARCH_MATERIALS for _ in range(per_material)]
    core = SyzygyTables(str(tables))
    out: dict = {"positions": len(fens), "nodes": nodes, "with": [], "without": [], "tbhits": 0}
    for _ in range(rounds):
        for label, with_tables in (("without", None), ("with", core)):
            searcher = default_searcher(16)
            searcher.set_syzygy(with_tables)
            total = hits = 0
            seconds = 0.0
            for fen in fens:
                searcher.clear()
                lines: list[dict] = []
                start = time.perf_counter()
                total += searcher.search(Board(fen), nodes=nodes, on_info=lines.append)["nodes"]
                seconds += time.perf_counter() - start
                hits += (lines[-1].get("tbhits") or 0) if lines else 0
            out[label].append(total / seconds)
            if with_tables is not None:
                out["tbhits"] = hits
                out["searched"] = total
    return out


def sample_positions(tables: Path, per_material: int, seed: int) -> list[chess.Board]:
    """``per_material`` random positions of every material, en passant ones besides."""
    rng = random.Random(seed)
    boards = [random_position(m, rng) for m in materials(tables) for _ in range(per_material)]
    if "KPvKP" in materials(tables):
        boards += en_passant_positions(rng, per_material)
    return boards


def report(results: list[PlayOut], speed: dict, cost: dict | None = None) -> list[str]:
    """The study's summary lines."""
    won = [r for r in results if r.kind == "won"]
    drawn = [r for r in results if r.kind == "drawn"]
    lines = [f"won positions mated within the fifty-move rule: {sum(r.correct for r in won)}/{len(won)}",
             f"drawn positions held: {sum(r.correct for r in drawn)}/{len(drawn)}",
             f"probe speed on {speed['positions']} positions (probes a second):"]
    for kind in ("wdl", "dtz"):
        s = speed[kind]
        lines.append(f"  {kind.upper()}: core {s['core_per_s']:,.0f}, python-chess {s['python_chess_per_s']:,.0f} "
                     f"(x{s['core_per_s'] / s['python_chess_per_s']:.0f}); same values: {s['agree']}")
    if cost:
        lines.append(f"search with and without tables, {cost['positions']} five-man positions, {cost['nodes']:,} "
                     f"nodes each: {cost['tbhits']:,} probes in {cost['searched']:,} nodes; nodes a second with "
                     + ", ".join(f"{x:,.0f}" for x in cost["with"]) + ", without "
                     + ", ".join(f"{x:,.0f}" for x in cost["without"]))
    return lines


def run(tables: Path, out: Path, per_material: int, drawn_per_material: int, nodes: int, seed: int,
        speed_positions: int, log: Callable[[str], None] = print) -> list[str]:
    out.mkdir(parents=True, exist_ok=True)
    results = play_outs(tables, per_material, drawn_per_material, nodes, seed, log)
    speed = probe_speed(tables, sample_positions(tables, speed_positions, seed))
    lines = report(results, speed, search_cost(tables, seed))
    with open(out / "playouts.tsv", "w") as f:
        f.write("kind\tcorrect\tend\tplies\tstart\tmoves\n")
        for r in results:
            f.write(f"{r.kind}\t{int(r.correct)}\t{r.end}\t{r.plies}\t{r.start}\t{' '.join(r.moves)}\n")
    (out / "summary.txt").write_text("\n".join(lines) + "\n")
    return lines


# Materials whose positions a game can win, draw or lose (not a mere mate
# against a bare king): the starts of the match with and without tables.
MATCH_MATERIALS = ("KQvKR", "KRvKP", "KQvKP", "KBvKP", "KNvKP", "KPvKP", "KRvKB", "KRvKN", "KBPvK", "KPPvK",
                   "KRvKR", "KQvKQ", "KBNvK")


def write_starts(tables: Path, out: Path, per_material: int, seed: int) -> int:
    """An EPD of 4-man starts for ``match`` (each start is played with both
    colours): per material, half won for the side to move, half drawn, by
    the tables; the engines then show how they convert and hold."""
    rng = random.Random(seed)
    lines = []
    with chess.syzygy.open_tablebase(str(tables)) as tablebase:
        for material in MATCH_MATERIALS:
            wins, draws = won_and_drawn(tablebase, material, rng, (per_material + 1) // 2, per_material // 2)
            lines += [f"{b.epd()} c0 \"{material} {'won' if b in wins else 'drawn'}\";" for b in wins + draws]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    return len(lines)
