"""``nmm-chess data label``: positions labelled by the engine's own search.

Each position gets the best move and score of a search to a fixed depth or
node count by the engine users run (its default options, and any UCI
options given on top: ``--option MoveOrdering=history``), from empty tables (so a label does not depend on which worker
searched it, nor on what it searched before): the engine-labelled learning
sets of the NMM paper, and targets for evaluation training. Positions come
from an EPD/FEN file (one per line) or from the games of a PGN file; a game's
position keeps the move that led to it, written as a GUI sends it
(``<fen before> moves <last move>``), because the net's context encoding
reads the last move.

Work goes in batches (engine/data/batches.py: local processes or a Ray
cluster, with a progress bar); each finished batch is saved in
``<out>.work/`` at once, and a rerun labels only the batches not there. The output is CSV:
``fen,bestmove,score_cp,depth,nodes,position`` (score from the side to move's
view; a mate in N moves as +-(100000 - 2N); ``position`` as the search was
given it, with its last move where there is one).
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

from engine.data.batches import run_batches

MATE_CP = 100_000


def read_positions(path: Path, every: int = 1, limit: int | None = None,
                   last_move: bool = False) -> list[str]:
    """FENs of an EPD/FEN file, or of every ``every``-th position of a PGN's games
    (with ``last_move``, after the first one as ``<fen before> moves <move>``).

    >>> games = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "games" / "masters_sample.pgn"
    >>> read_positions(games, every=10, limit=2, last_move=True)[1].split(" moves ")
    ['r1bqkbnr/1pp2ppp/p1np4/4p3/B3P3/5N2/PPPP1PPP/RNBQ1RK1 b kq - 1 5', 'c8d7']
    """
    if path.suffix in (".pgn", ".gz"):
        from engine._core import Board
        from engine.data.pgn import parse_game, read_text, split_games
        fens: list[str] = []
        for text in split_games(read_text(path)):
            parsed = parse_game(text)
            if parsed is None or parsed[0].get("SetUp") == "1":
                continue
            board, before = Board(), ""
            for ply, move in enumerate(parsed[1]):
                if ply % every == 0:
                    fens.append(f"{before} moves {parsed[1][ply - 1]}" if last_move and ply else board.fen())
                before = board.fen()
                board.push(move)
            if limit and len(fens) >= limit:
                break
        return fens[:limit] if limit else fens
    fens = []
    for line in path.read_text().splitlines():
        fields = line.split(";")[0].split()
        if len(fields) >= 4:
            fens.append(" ".join(fields[:6]) if len(fields) >= 6 and fields[4].isdigit() else
                        " ".join(fields[:4]) + " 0 1")
    return fens[:limit] if limit else fens


def fen_ply(fen: str) -> int:
    """Plies played before a FEN's position, from its move number and side to move.

    >>> fen_ply("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
    1
    """
    fields = fen.split()
    return (int(fields[5]) - 1) * 2 + (fields[1] == "b")


def board_of(position: str) -> "Board":
    """The board of a FEN, or of a FEN followed by ``moves m1 m2 ...`` (UCI moves)."""
    from engine._core import Board
    fen, _, moves = position.partition(" moves ")
    board = Board(fen)
    for move in moves.split():
        board.push(move)
    return board


def label_batch(unit: tuple[list[str], int | None, int | None, str, dict]) -> list[list]:
    """Search each position of the unit (positions, depth, nodes, evaluation,
    UCI options on top of the engine's defaults) from empty tables."""
    from engine.session import default_searcher
    fens, depth, nodes, evaluation, options = unit
    searcher = default_searcher(16, {"Eval": evaluation, **options})
    rows = []
    for position in fens:
        searcher.clear()
        board = board_of(position)
        found = searcher.search(board, depth=depth, nodes=nodes)
        score = found["score"]
        if found["mate"] is not None:
            score = (MATE_CP - abs(found["mate"]) * 2) * (1 if found["mate"] > 0 else -1)
        rows.append([board.fen(), found["bestmove"] or "", score, found["depth"], found["nodes"], position])
    return rows


def label(positions: list[str], out: Path, depth: int | None, nodes: int | None, evaluation: str = "handwritten",
          batch: int = 256, workers: int = 2, cluster: str | None = None, progress: bool = True,
          options: dict | None = None) -> int:
    """Label ``positions`` into ``out`` (CSV) with the engine at its default
    options (``options``: UCI options set on top); returns how many batches ran now."""
    if not depth and not nodes:
        raise ValueError("give a depth or a node count")
    options = dict(options or {})
    # The options are part of the job: batches of another engine (or of the core's own
    # defaults, before labels took the engine's) are refused, never mixed in.
    job = {"positions": len(positions), "depth": depth, "nodes": nodes, "evaluation": evaluation, "batch": batch,
           "options": options}
    paths, ran = run_batches(label_batch, positions, (depth, nodes, evaluation, options),
                             out.with_name(out.name + ".work"), job, batch,
                             lambda path, rows: path.write_text(json.dumps(rows)), ".json", workers, cluster,
                             progress)
    with out.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["fen", "bestmove", "score_cp", "depth", "nodes", "position"])
        for path in paths:
            writer.writerows(json.loads(path.read_text()))
    return ran


def to_patterns(path: Path) -> "PatternSet":
    """A label CSV as a pattern set: every legal move of each position, the
    engine's best move as the one played, ``game`` the row number. The
    last move comes from the ``position`` column (a bare FEN has none: the
    context encoding's last-move plane then stays empty)."""
    from engine.data.nmm import move_triple
    from engine.data.patterns import NO_ECO, PatternBuilder, played_index
    found = PatternBuilder()
    with path.open() as f:
        for row_number, row in enumerate(csv.DictReader(f)):
            board = board_of(row.get("position") or row["fen"])
            pattern = board.pattern()
            index = played_index(pattern[2], move_triple(board, row["bestmove"])) if row["bestmove"] else -1
            if index >= 0:
                found.add(pattern, index, 0, row_number, NO_ECO, board.zobrist())
    return found.build()
