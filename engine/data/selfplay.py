"""Self-play records: the binary batch files ``data selfplay`` writes.

A batch file (``batch_000123.bin``) is, all numbers little-endian:

====== ======= ==========================================================
offset size    field
====== ======= ==========================================================
0      6       magic ``b"NMMSP\\0"``
6      2       format version (uint16), VERSION
8      4       record size in bytes (uint32), 32
12     8       records (uint64)
20     4       length of the JSON text in bytes (uint32)
24     8       reserved, zero
32     n       JSON text (UTF-8): how the games were made (seed, nodes,
               engine options and commit, openings, evaluation, each game's
               records, result and end)
32 + n ...     zeros to the next multiple of 64
data   32 * N  the records, RECORD, one per position searched
====== ======= ==========================================================

A record (RECORD, 32 bytes, what ext/selfplay.pxi's SelfplayRecord writes):

========== ====== ===== ===================================================
field      type   bytes meaning
========== ====== ===== ===================================================
occupancy  uint64 0     the occupied squares (bit 0 = a1 ... bit 63 = h8)
pieces     16 B   8     a piece code per occupied square, in square order,
                        two a byte, low nibble first: type + 6 * colour,
                        types pawn, knight, bishop, rook, queen, king (0-5),
                        White 0, Black 1
score      int16  24    the search's score in centipawns, side to move's
                        view; a mate in N plies is +-(32000 - N) (MATE_SCORE;
                        any ``abs(score) >= MATE_BOUND`` is a mate)
move       uint16 26    the move played (the search's best): from | to << 6 |
                        flag << 12, flag 0 quiet, 1 double push, 2 castling
                        (to = the rook's square), 3 en passant, 4-7 promotion
                        to knight, bishop, rook, queen (``move_uci``)
ply        uint16 28    2 * (fullmove - 1) + (1 if Black is to move)
flags      uint8  30    bit 0 Black to move, bit 1 in check, bit 2 the move
                        captures or promotes, bits 3-4 the game's result for
                        White (0 loss, 1 draw, 2 win), bit 5 a game's first
                        position
castle_ep  uint8  31    bits 0-3 castling rights (1 White short, 2 White
                        long, 4 Black short, 8 Black long); bit 7: an en-passant
                        capture is possible, on the file in bits 4-6
========== ====== ===== ===================================================

Not stored: the fifty-move counter (``decode`` writes 0; a game's own can be
counted from its records) and Chess960 castling (the games are standard chess).
A game's records are consecutive, each one's move leading to the next one's
position; the position that ended the game is not stored (no search, no move).

>>> rec = np.zeros(1, RECORD)
>>> rec["occupancy"] = (1 << 4) | (1 << 60)     # e1, e8
>>> rec["pieces"][0, 0] = 5 | (11 << 4)          # white king, black king
>>> rec["ply"], rec["flags"] = 40, 1 | (1 << 3)
>>> decode(rec[0])
'4k3/8/8/8/8/8/8/4K3 b - - 0 21'
"""
from __future__ import annotations

import json
import struct
from collections.abc import Iterator
from pathlib import Path

import numpy as np

MAGIC = b"NMMSP\0"
VERSION = 1
RECORD = np.dtype([("occupancy", "<u8"), ("pieces", "u1", (16,)), ("score", "<i2"), ("move", "<u2"),
                   ("ply", "<u2"), ("flags", "u1"), ("castle_ep", "u1")])
HEADER = struct.Struct("<6sHIQI8x")     # magic, version, record size, records, JSON length
ALIGN = 64
MATE_SCORE = 32000
MATE_BOUND = 32000 - 256        # the core's MATE_BOUND: beyond it every score is a mate

BLACK, CHECK, NOISY, FIRST = 1, 2, 4, 32
RESULT_SHIFT = 3
EP_PRESENT = 128
PIECE_CHARS = "PNBRQKpnbrqk"


class BatchFormatError(ValueError):
    """A file that is not a self-play batch this code can read."""


def data_offset(json_length: int) -> int:
    """Where the records start: after the header and the JSON, on a 64-byte boundary.

    >>> data_offset(0), data_offset(32), data_offset(33)
    (64, 64, 128)
    """
    return -(-(HEADER.size + json_length) // ALIGN) * ALIGN


def write_batch(path: Path, header: dict, records: np.ndarray) -> None:
    """Write ``records`` (RECORD) with ``header`` (JSON-able) to ``path``
    atomically: a temporary file renamed over it, so that a killed run leaves
    whole batches or none."""
    records = np.ascontiguousarray(records, RECORD)
    text = json.dumps(header).encode()
    head = HEADER.pack(MAGIC, VERSION, RECORD.itemsize, len(records), len(text)) + text
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("wb") as f:
        f.write(head + bytes(data_offset(len(text)) - len(head)))
        f.write(records.tobytes())
    tmp.replace(path)


def read_batch(path: Path, mmap: bool = True) -> tuple[dict, np.ndarray]:
    """(header, records) of a batch file: the JSON header with ``version`` and
    ``records`` added, and the records as RECORD (memory-mapped, read-only,
    unless ``mmap`` is False). BatchFormatError for a file that is not one."""
    path = Path(path)
    with path.open("rb") as f:
        head = f.read(HEADER.size)
        if len(head) < HEADER.size or head[:len(MAGIC)] != MAGIC:
            raise BatchFormatError(f"{path} is not a self-play batch (no {MAGIC!r} magic)")
        _, version, size, count, json_length = HEADER.unpack(head)
        if version != VERSION:
            raise BatchFormatError(f"{path} is self-play format version {version}; this code reads {VERSION}")
        if size != RECORD.itemsize:
            raise BatchFormatError(f"{path} has {size}-byte records; version {VERSION} has {RECORD.itemsize}")
        header = json.loads(f.read(json_length))
    offset = data_offset(json_length)
    if path.stat().st_size < offset + count * size:
        raise BatchFormatError(f"{path} is cut short: {count} records do not fit")
    header |= {"version": version, "records": count}
    if count == 0:
        return header, np.zeros(0, RECORD)
    if mmap:
        return header, np.memmap(path, RECORD, "r", offset, (count,))
    return header, np.fromfile(path, RECORD, count, offset=offset)


def batch_paths(folder: Path) -> list[Path]:
    """The batch files of a ``data selfplay`` folder, in order."""
    return sorted(Path(folder).glob("batch_*.bin"))


def game_starts(records: np.ndarray) -> np.ndarray:
    """Index of each game's first record."""
    return np.flatnonzero(records["flags"] & FIRST)


def iter_games(records: np.ndarray) -> Iterator[np.ndarray]:
    """Each game's records (views, in order)."""
    starts = game_starts(records)
    for first, end in zip(starts, list(starts[1:]) + [len(records)]):
        yield records[first:end]


def results(records: np.ndarray) -> np.ndarray:
    """Each record's game result for White: 0 loss, 1 draw, 2 win."""
    return (records["flags"] >> RESULT_SHIFT) & 3


def quiet_mask(records: np.ndarray, score_cap: int = 2000, min_ply: int = 10) -> np.ndarray:
    """The positions worth training an evaluation on: not in check, best move
    neither a capture nor a promotion, ``abs(score) <= score_cap`` (mates and
    lost causes out), ``ply >= min_ply`` (the random openings out).

    >>> rec = np.zeros(4, RECORD)
    >>> rec["ply"] = 20
    >>> rec["flags"] = [0, CHECK, NOISY, 0]
    >>> rec["score"] = [30, 30, 30, MATE_SCORE - 3]
    >>> quiet_mask(rec).tolist()
    [True, False, False, False]
    """
    flags = records["flags"]
    return (((flags & (CHECK | NOISY)) == 0) & (np.abs(records["score"].astype(np.int32)) <= score_cap)
            & (records["ply"] >= min_ply))


def pieces_of(record: np.void) -> list[tuple[int, int]]:
    """(square, piece code) of every piece of a record."""
    occupancy, nibbles = int(record["occupancy"]), record["pieces"]
    squares = [sq for sq in range(64) if occupancy >> sq & 1]
    return [(sq, int(nibbles[i >> 1]) >> (4 * (i & 1)) & 15) for i, sq in enumerate(squares)]


def decode(record: np.void) -> str:
    """A record's position as a FEN (halfmove clock 0: it is not stored)."""
    board = ["."] * 64
    for sq, piece in pieces_of(record):
        board[sq] = PIECE_CHARS[piece]
    rows = []
    for rank in range(7, -1, -1):
        row = "".join(board[rank * 8:rank * 8 + 8])
        for n in range(8, 0, -1):
            row = row.replace("." * n, str(n))
        rows.append(row)
    flags, castle_ep, ply = int(record["flags"]), int(record["castle_ep"]), int(record["ply"])
    castling = "".join(c for bit, c in zip((1, 2, 4, 8), "KQkq") if castle_ep & bit) or "-"
    black = flags & BLACK
    ep = f"{'abcdefgh'[castle_ep >> 4 & 7]}{3 if black else 6}" if castle_ep & EP_PRESENT else "-"
    return f"{'/'.join(rows)} {'b' if black else 'w'} {castling} {ep} 0 {ply // 2 + 1}"


def move_uci(record: np.void) -> str:
    """A record's move in UCI notation (castling as e1g1).

    >>> rec = np.zeros(1, RECORD)
    >>> rec["move"] = 12 | (28 << 6) | (1 << 12)    # e2e4, a double push
    >>> move_uci(rec[0])
    'e2e4'
    """
    move = int(record["move"])
    frm, to, flag = move & 63, move >> 6 & 63, move >> 12
    if flag == 2:                                   # the king takes its own rook
        to = (frm & ~7) | (6 if to > frm else 2)
    text = "abcdefgh"[frm & 7] + str(frm // 8 + 1) + "abcdefgh"[to & 7] + str(to // 8 + 1)
    return text + ("nbrq"[flag - 4] if flag >= 4 else "")
