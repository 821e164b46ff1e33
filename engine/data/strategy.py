"""The ChessMaps strategy database: popular squares from master games
(``../shared/papers/002_*.txt``, section 5.1; ``nmm-chess data chessmaps``).

Every 3-ply path (a move, the reply, our next move) is counted over the
games; a path seen at least ``min_count`` times is kept, as the paper keeps
them. For each move that begins a kept path, the database holds where the
pieces stood once the path was played: per square, the piece found there
most often over those games and how often (a share of 255). All of it is
seen from the side that moves: Black's moves and boards are mirrored, so
one entry serves both colours.

The search reads it at the nodes it forward-prunes: the boards of the node's
quiet moves that the database knows are added up into one board of popular
pieces, and a quiet move that takes a piece to a square where that kind of
piece of ours is popular is kept (``FP_POPULAR``, ext/forward_pruning.pxi).

File: ``nets/strategy.npz``, written and read (checked like a net: format,
version, kind ``strategy``, encoding, shapes) by engine/nets.py, where the
engine, which reads it, finds it.

>>> move_key(chess.Move.from_uci("g1f3"), chess.KNIGHT, chess.WHITE)
4501
>>> move_key(chess.Move.from_uci("g8f6"), chess.KNIGHT, chess.BLACK)    # the same move, mirrored
4501
"""
from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import chess
import numpy as np

from engine.data.pgn import batches, parse_game, read_text, split_games
# The file format is the engine's (engine/nets.py): the lab writes and reads it through the floor,
# under the names it had here.
from engine.nets import DEFAULT_STRATEGY as DEFAULT  # noqa: F401
from engine.nets import PIECE_CODES, StrategyDb
from engine.nets import STRATEGY_KEYS as KEYS
from engine.nets import load_strategy as load  # noqa: F401
from engine.nets import save_strategy as save  # noqa: F401

BOARDS_PER_MOVE = 400           # boards summed per move at most (opening moves recur thousands of times)


def move_key(move: chess.Move, piece: chess.PieceType, color: chess.Color) -> int:
    """The database index of ``move`` by a ``piece`` of ``color``: piece type
    (0 pawn .. 5 king), from and to, with Black's squares mirrored."""
    frm, to = move.from_square, move.to_square
    if color == chess.BLACK:
        frm, to = chess.square_mirror(frm), chess.square_mirror(to)
    return ((piece - 1) * 64 + frm) * 64 + to


def board_codes(board: chess.Board, mover: chess.Color) -> np.ndarray:
    """(64,) piece codes seen from ``mover`` (our pieces 1-6, theirs 7-12; mirrored for Black)."""
    codes = np.zeros(64, np.int8)
    for sq, piece in board.piece_map().items():
        rel = sq if mover == chess.WHITE else chess.square_mirror(sq)
        codes[rel] = piece.piece_type + (0 if piece.color == mover else 6)
    return codes


def game_paths(moves: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """A game's 3-ply paths, (n, 3) move keys, and the board after each path
    (n, 64) piece codes, seen by the side that began it (who also made its
    third move)."""
    board = chess.Board()
    keys, boards = [], []
    for uci in moves:
        move = chess.Move.from_uci(uci)
        piece = board.piece_type_at(move.from_square)
        if piece is None or move not in board.legal_moves:
            break
        keys.append(move_key(move, piece, board.turn))
        mover = board.turn
        board.push(move)
        if len(keys) >= 3:
            boards.append(board_codes(board, mover))
    n = max(len(keys) - 2, 0)
    paths = np.array([keys[i:i + 3] for i in range(n)], np.int32).reshape(n, 3)
    return paths, np.array(boards, np.int8).reshape(n, 64)


def _work(texts: list[str]) -> list[tuple[np.ndarray, np.ndarray]]:
    out = []
    for text in texts:
        parsed = parse_game(text)
        if parsed is not None:
            out.append(game_paths(parsed[1]))
    return out


def build(files: list[Path], games: int, min_count: int = 3, jobs: int = 2, log=print) -> StrategyDb:
    """Count the paths of the first ``games`` games of ``files`` and keep those seen ``min_count`` times."""
    texts: list[str] = []
    for path in files:
        if "twic" in path.name.lower():
            raise ValueError(f"{path.name}: the TWIC 2022 games are the outside test set, never a source")
        texts += split_games(read_text(path))[: games - len(texts)]
        if len(texts) >= games:
            break
    if not texts:
        raise ValueError("no games to read: " + ", ".join(str(p) for p in files))
    found_paths, found_boards = [], []
    with ProcessPoolExecutor(jobs) as pool:
        for result in pool.map(_work, batches(texts, 500)):
            for game_paths_, game_boards in result:
                found_paths.append(game_paths_)
                found_boards.append(game_boards)
    paths = np.concatenate(found_paths)
    boards = np.concatenate(found_boards)
    code = (paths[:, 0].astype(np.int64) * KEYS + paths[:, 1]) * KEYS + paths[:, 2]
    _, inverse, counts = np.unique(code, return_inverse=True, return_counts=True)
    kept = counts[inverse] >= min_count
    first, boards = paths[kept, 0], boards[kept]
    order = np.argsort(first, kind="stable")
    first, boards = first[order], boards[order]
    keys, start, starts = np.unique(first, return_index=True, return_counts=True)
    rank = np.arange(len(first)) - np.repeat(start, starts)      # each row's place among its move's rows
    sample = rank < BOARDS_PER_MOVE
    which = np.repeat(np.arange(len(keys)), starts)[sample]
    taken = np.minimum(starts, BOARDS_PER_MOVE)
    bins = ((which[:, None] * 64 + np.arange(64)) * PIECE_CODES + boards[sample]).ravel()
    freq = np.bincount(bins, minlength=len(keys) * 64 * PIECE_CODES).reshape(len(keys), 64, PIECE_CODES)
    popular = freq.argmax(2).astype(np.uint8)
    share = np.round(255 * freq.max(2) / taken[:, None]).astype(np.uint8)
    log(f"{len(texts)} games, {len(counts):,} distinct paths, {(counts >= min_count).sum():,} seen "
        f"{min_count}+ times, {len(keys):,} first moves")
    return StrategyDb(keys.astype(np.int32), starts.astype(np.int32), popular, share,
                      {"games": len(texts), "files": [p.name for p in files], "min_count": min_count,
                       "paths": int(len(counts)), "paths_kept": int((counts >= min_count).sum()),
                       "boards_per_move": BOARDS_PER_MOVE})
