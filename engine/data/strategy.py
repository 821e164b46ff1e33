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

File: ``nets/strategy.npz``, checked on loading like a net (format,
version, kind ``strategy``, encoding, shapes).

>>> move_key(chess.Move.from_uci("g1f3"), chess.KNIGHT, chess.WHITE)
4501
>>> move_key(chess.Move.from_uci("g8f6"), chess.KNIGHT, chess.BLACK)    # the same move, mirrored
4501
"""
from __future__ import annotations

import json
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import chess
import numpy as np

from engine.data.pgn import batches, parse_game, read_text, split_games
from engine.nets import FORMAT, VERSION, NetError, read_header

ENCODING = "chessmaps-strategy/1"
KEYS = 6 * 64 * 64              # piece type x from x to, in the mover's frame
PIECE_CODES = 13                # 0 empty, 1-6 our pawn..king, 7-12 theirs
BOARDS_PER_MOVE = 400           # boards summed per move at most (opening moves recur thousands of times)
DEFAULT = Path(__file__).resolve().parent.parent.parent / "nets" / "strategy.npz"


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


@dataclass
class StrategyDb:
    keys: np.ndarray                # (n,) int32 move keys, ascending
    count: np.ndarray               # (n,) int32: kept paths begun by the move
    popular: np.ndarray             # (n, 64) uint8 piece code most often on each square after the path
    share: np.ndarray               # (n, 64) uint8 how often, of 255
    info: dict = field(default_factory=dict)


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


def save(db: StrategyDb, path: Path) -> None:
    header = {"format": FORMAT, "version": VERSION, "kind": "strategy", "encoding": ENCODING,
              "shapes": {"keys": list(db.keys.shape), "count": list(db.count.shape),
                         "popular": list(db.popular.shape), "share": list(db.share.shape)}, **db.info}
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, header=np.array(json.dumps(header)), keys=db.keys, count=db.count,
                        popular=db.popular, share=db.share)


def load(path: Path) -> StrategyDb:
    """Load and check a strategy database; NetError with a sentence if it is not one."""
    header, arrays = read_header(path)
    if header.get("kind") != "strategy":
        raise NetError(f"{path} holds a {header.get('kind')!r} file, not a strategy database")
    if header.get("encoding") != ENCODING:
        raise NetError(f"{path} has encoding {header.get('encoding')!r}; this engine reads {ENCODING}")
    try:
        keys, count, popular, share = (arrays[k] for k in ("keys", "count", "popular", "share"))
    except KeyError:
        raise NetError(f"{path} lacks one of its arrays") from None
    n = len(keys)
    if (keys.shape != (n,) or count.shape != (n,) or popular.shape != (n, 64) or share.shape != (n, 64)
            or header.get("shapes", {}).get("popular") != [n, 64]):
        raise NetError(f"{path}: shapes {keys.shape}, {count.shape}, {popular.shape}, {share.shape} do not fit")
    if n and (keys.min() < 0 or keys.max() >= KEYS or popular.max() >= PIECE_CODES or (np.diff(keys) <= 0).any()):
        raise NetError(f"{path} holds move keys or piece codes out of range")
    known = {"format", "version", "kind", "encoding", "shapes"}
    return StrategyDb(keys.astype(np.int32), count.astype(np.int32), popular.astype(np.uint8),
                      share.astype(np.uint8), {k: v for k, v in header.items() if k not in known})
