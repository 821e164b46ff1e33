"""Pattern sets: positions with their legal moves and the move played.

One set is a handful of flat numpy arrays, saved as a compressed ``.npz``:

``board``   (N, 64) uint8: piece codes a1..h8 (0-5 White P N B R Q K, 6-11 Black, 12 empty)
``stm``     (N,) uint8: side to move, 0 White, 1 Black
``legal``   (M, 3) uint8: every legal move as (from, to, promotion piece or 0);
            castling as the king's from and destination squares
``offsets`` (N + 1,) int64: position i's moves are legal[offsets[i]:offsets[i + 1]]
``played``  (N,) int16: index of the move played within the position's moves
``ply``     (N,) int16: half-moves played before the position
``game``    (N,) int32: which game (games never straddle sets)
``eco``     (N,) uint16: ECO code as letter * 100 + number (A00 = 0, E99 = 499)
``key``     (N,) uint64: Zobrist key, to remove duplicates
``castling`` (N,) uint8: castling rights (White king side 1, queen side 2, Black 4, 8)
``ep``      (N,) int8: en-passant square or -1
``halfmove`` (N,) uint16: the 50-move counter
``last_to`` (N,) int8: the square the last move went to (castling: the king's), or -1

With the last three, fen(i) rebuilds the position exactly (standard chess).
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

NO_ECO = 0xFFFF


def eco_code(eco: str | None) -> int:
    """'B84' -> 184; anything else -> NO_ECO.

    >>> eco_code("B84"), eco_code("E97"), eco_code("?")
    (184, 497, 65535)
    """
    if not eco or len(eco) < 3 or eco[0] not in "ABCDE" or not eco[1:3].isdigit():
        return NO_ECO
    return "ABCDE".index(eco[0]) * 100 + int(eco[1:3])


def eco_range(first: str, last: str) -> tuple[int, int]:
    return eco_code(first), eco_code(last)


@dataclass
class PatternSet:
    board: np.ndarray
    stm: np.ndarray
    legal: np.ndarray
    offsets: np.ndarray
    played: np.ndarray
    ply: np.ndarray
    game: np.ndarray
    eco: np.ndarray
    key: np.ndarray
    castling: np.ndarray
    ep: np.ndarray
    halfmove: np.ndarray
    last_to: np.ndarray

    def __len__(self) -> int:
        return len(self.stm)

    @property
    def n_moves(self) -> np.ndarray:
        return np.diff(self.offsets)

    @classmethod
    def empty(cls) -> "PatternSet":
        return cls(np.zeros((0, 64), np.uint8), np.zeros(0, np.uint8), np.zeros((0, 3), np.uint8),
                   np.zeros(1, np.int64), np.zeros(0, np.int16), np.zeros(0, np.int16),
                   np.zeros(0, np.int32), np.zeros(0, np.uint16), np.zeros(0, np.uint64),
                   np.zeros(0, np.uint8), np.zeros(0, np.int8), np.zeros(0, np.uint16),
                   np.zeros(0, np.int8))

    def take(self, index: np.ndarray) -> "PatternSet":
        """The positions at ``index`` (in that order), moves included."""
        index = np.asarray(index, dtype=np.int64)
        counts = self.n_moves[index]
        offsets = np.zeros(len(index) + 1, np.int64)
        np.cumsum(counts, out=offsets[1:])
        starts = self.offsets[index]
        # Gather each position's move block: start + 0 .. count - 1.
        within = np.arange(offsets[-1]) - np.repeat(offsets[:-1], counts)
        legal = self.legal[np.repeat(starts, counts) + within]
        return PatternSet(self.board[index], self.stm[index], legal, offsets, self.played[index],
                          self.ply[index], self.game[index], self.eco[index], self.key[index],
                          self.castling[index], self.ep[index], self.halfmove[index],
                          self.last_to[index])

    @classmethod
    def concat(cls, sets: list["PatternSet"]) -> "PatternSet":
        sets = [s for s in sets if len(s)]
        if not sets:
            return cls.empty()
        offsets = [np.zeros(1, np.int64)]
        base = 0
        for s in sets:
            offsets.append(s.offsets[1:] + base)
            base += s.offsets[-1]
        return cls(np.concatenate([s.board for s in sets]), np.concatenate([s.stm for s in sets]),
                   np.concatenate([s.legal for s in sets]), np.concatenate(offsets),
                   *(np.concatenate([getattr(s, f) for s in sets])
                     for f in ("played", "ply", "game", "eco", "key", "castling", "ep", "halfmove",
                               "last_to")))

    def unique(self, exclude_keys: np.ndarray | None = None) -> "PatternSet":
        """Drop repeated positions (first kept) and any whose key is in ``exclude_keys``."""
        _, first = np.unique(self.key, return_index=True)
        keep = np.sort(first)
        if exclude_keys is not None and len(exclude_keys):
            keep = keep[~np.isin(self.key[keep], exclude_keys)]
        return self.take(keep)

    def fen(self, i: int) -> str:
        """The FEN of position i (the move number is not kept: it reads 1)."""
        rows = []
        for rank in range(7, -1, -1):
            row, empty = "", 0
            for file in range(8):
                piece = int(self.board[i, rank * 8 + file])
                if piece == 12:
                    empty += 1
                    continue
                row += (str(empty) if empty else "") + "PNBRQKpnbrqk"[piece]
                empty = 0
            rows.append(row + (str(empty) if empty else ""))
        rights = "".join(c for bit, c in zip((1, 2, 4, 8), "KQkq") if self.castling[i] & bit) or "-"
        ep = "-" if self.ep[i] < 0 else "abcdefgh"[self.ep[i] % 8] + str(self.ep[i] // 8 + 1)
        return f"{'/'.join(rows)} {'wb'[self.stm[i]]} {rights} {ep} {self.halfmove[i]} 1"

    def arrays(self) -> dict[str, np.ndarray]:
        """Every array by its field name (what ``save`` writes)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, **self.arrays())

    @classmethod
    def load(cls, path: Path) -> "PatternSet":
        with np.load(path) as data:
            return cls(**{f.name: data[f.name] for f in fields(cls)})


def played_index(legal: bytes, target: bytes) -> int:
    """Which (from, to, promotion) triple of ``legal`` (Board.pattern's bytes) is ``target``; -1 if none.

    >>> played_index(bytes([12, 28, 0, 6, 21, 0]), bytes([6, 21, 0]))
    1
    """
    return next((i // 3 for i in range(0, len(legal), 3) if legal[i:i + 3] == target), -1)


class PatternBuilder:
    """A pattern set collected one position at a time: ``add`` takes what
    Board.pattern() returns and the index of the move played."""

    def __init__(self) -> None:
        self.rows: list[tuple] = []

    def add(self, pattern: tuple, played: int, ply: int, game: int, eco: int, key: int) -> None:
        self.rows.append((pattern, played, ply, game, eco, key))

    def build(self) -> PatternSet:
        if not self.rows:
            return PatternSet.empty()
        patterns, played, ply, game, eco, key = zip(*self.rows)
        board, stm, legal, castling, ep, halfmove, last_to = zip(*patterns)
        n = len(self.rows)
        offsets = np.zeros(n + 1, np.int64)
        np.cumsum([len(moves) // 3 for moves in legal], out=offsets[1:])
        return PatternSet(np.frombuffer(b"".join(board), np.uint8).reshape(n, 64), np.array(stm, np.uint8),
                          np.frombuffer(b"".join(legal), np.uint8).reshape(-1, 3).copy(), offsets,
                          np.array(played, np.int16), np.array(ply, np.int16), np.array(game, np.int32),
                          np.array(eco, np.uint16), np.array(key, np.uint64), np.array(castling, np.uint8),
                          np.array(ep, np.int8), np.minimum(np.array(halfmove), 65535).astype(np.uint16),
                          np.array(last_to, np.int8))
