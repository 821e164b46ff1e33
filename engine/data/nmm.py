"""``nmm-chess data nmm``: master games -> NMM pattern sets.

The rule for a middle-game position: at least 20 plies played and both
queens still on the board. Games are split first (test, validation and
learning sets never share a game), then positions are taken, and repeated
positions are removed within each set and from the learning sets whenever
they occur in a test or validation set.

Sets written (``--out``, default var/nmm):

- ``test_<ECO>`` and ``val_<ECO>``: 3,000 positions each from the paper's
  openings A30, B84, D85, E97 (games of the master collections);
- ``learn_ALL``: every other middle-game position of the master collections;
- ``learn_A3x``, ``learn_SI`` (B80-B99), ``learn_GI`` (D70-D99), ``learn_E9x``:
  the opening families, from the learning games;
- ``twic``: the outside test set, TWIC 2022 games at plies 24-70 with both
  queens on. Never trained or tuned on.
"""
from __future__ import annotations

import json
import random
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from engine._core import Board
from engine.data.patterns import PatternBuilder, PatternSet, eco_code, eco_range, played_index
from engine.data.pgn import batches, parse_game, read_text, split_games

MIN_PLY = 20
TWIC_PLIES = (24, 70)
TEST_ECOS = ("A30", "B84", "D85", "E97")
FAMILIES = {"A3x": ("A30", "A39"), "SI": ("B80", "B99"), "GI": ("D70", "D99"), "E9x": ("E90", "E99")}
SET_SIZE = 3000
MASTER_FILES = ("masters_pgnmentor_both2500.pgn.gz", "masters_pgnmentor_pre1970.pgn.gz")
TWIC_FILE = "twic_1427-1428_2022.pgn.gz"
QUEENS = (4, 10)


def is_middle_game(board64: bytes, ply: int, plies: tuple[int, int] = (MIN_PLY, 10_000)) -> bool:
    return plies[0] <= ply <= plies[1] and QUEENS[0] in board64 and QUEENS[1] in board64


def game_patterns(moves: list[str], game_id: int, eco: int,
                  plies: tuple[int, int] = (MIN_PLY, 10_000)) -> PatternSet:
    """The middle-game positions of one game, each with the move played there."""
    board = Board()
    found = PatternBuilder()
    for ply, uci in enumerate(moves):
        if ply >= plies[0]:
            pattern = board.pattern()
            if not is_middle_game(pattern[0], ply, plies):
                if ply > plies[0] and (QUEENS[0] not in pattern[0] or QUEENS[1] not in pattern[0]):
                    break                   # the queens are gone: the middle game is over
            else:
                index = played_index(pattern[2], move_triple(board, uci))
                if index >= 0:
                    found.add(pattern, index, ply, game_id, eco, board.zobrist())
        if not board.is_legal(uci):
            break
        board.push(uci)
    return found.build()


def move_triple(board: Board, uci: str) -> bytes:
    """A UCI move as the (from, to, promotion) bytes of Board.pattern()."""
    frm = "abcdefgh".index(uci[0]) + 8 * (int(uci[1]) - 1)
    to = "abcdefgh".index(uci[2]) + 8 * (int(uci[3]) - 1)
    promo = " nbrq".index(uci[4]) if len(uci) > 4 else 0
    return bytes([frm, to, promo])


def _extract_batch(args: tuple[list[str], int, tuple[int, int]]) -> PatternSet:
    texts, first_id, plies = args
    sets = []
    for i, text in enumerate(texts):
        parsed = parse_game(text)
        if parsed is None:
            continue
        headers, moves = parsed
        sets.append(game_patterns(moves, first_id + i, eco_code(headers.get("ECO")), plies))
    return PatternSet.concat(sets)


def extract_file(path: Path, first_id: int, plies: tuple[int, int], jobs: int,
                 limit: int | None = None, desc: str = "") -> tuple[PatternSet, int]:
    """All middle-game patterns of a PGN file; returns (patterns, games read)."""
    from tqdm import tqdm
    texts = split_games(read_text(path))[:limit]
    work = [(batch, first_id + i * 500, plies) for i, batch in enumerate(batches(texts, 500))]
    with ProcessPoolExecutor(jobs) as pool:
        parts = list(tqdm(pool.map(_extract_batch, work), total=len(work), desc=desc, unit="×500 games"))
    return PatternSet.concat(parts), len(texts)


def in_range(patterns: PatternSet, first: str, last: str) -> np.ndarray:
    lo, hi = eco_range(first, last)
    return (patterns.eco >= lo) & (patterns.eco <= hi)


def split_test_validation(patterns: PatternSet, eco: str, rng: random.Random
                          ) -> tuple[PatternSet, PatternSet, set[int]]:
    """3,000 test and 3,000 validation positions from disjoint games of one ECO code."""
    mask = patterns.eco == eco_code(eco)
    games = sorted(set(patterns.game[mask].tolist()))
    rng.shuffle(games)
    chosen: dict[str, list[int]] = {"test": [], "val": []}
    counts = dict.fromkeys(chosen, 0)
    per_game = np.bincount(patterns.game[mask] - patterns.game.min(),
                           minlength=patterns.game.max() - patterns.game.min() + 1)
    for g in games:
        for part in ("test", "val"):
            if counts[part] < SET_SIZE * 1.1:
                chosen[part].append(g)
                counts[part] += per_game[g - patterns.game.min()]
                break
    used: set[int] = set()
    out = []
    for part in ("test", "val"):
        index = np.flatnonzero(mask & np.isin(patterns.game, chosen[part]))
        subset = patterns.take(index).unique()
        pick = sorted(rng.sample(range(len(subset)), min(SET_SIZE, len(subset))))
        out.append(subset.take(np.array(pick)))
        used.update(chosen[part])
    return out[0], out[1], used


def build_twic(data: Path, out: Path, jobs: int = 2, limit: int | None = None) -> int:
    """Write the outside test set alone (twic.npz); return its positions."""
    twic, _ = extract_file(data / "games" / TWIC_FILE, 10_000_000, TWIC_PLIES, jobs, limit, TWIC_FILE)
    twic = twic.unique()
    twic.save(out / "twic.npz")
    return len(twic)


def build(data: Path, out: Path, seed: int = 1, jobs: int = 2, limit: int | None = None) -> dict:
    """Write every set; return the summary (also saved as summary.json)."""
    rng = random.Random(seed)
    parts, first_id, games_read = [], 0, 0
    for name in MASTER_FILES:
        patterns, n = extract_file(data / "games" / name, first_id, (MIN_PLY, 10_000), jobs, limit, name)
        parts.append(patterns)
        first_id += n
        games_read += n
    masters = PatternSet.concat(parts)
    summary: dict = {"seed": seed, "rule": f"ply >= {MIN_PLY}, both queens on the board",
                     "master_games": games_read, "master_positions": len(masters), "sets": {}}

    held_out_games: set[int] = set()
    held_out_keys = []
    for eco in TEST_ECOS:
        test, val, games = split_test_validation(masters, eco, rng)
        test.save(out / f"test_{eco}.npz")
        val.save(out / f"val_{eco}.npz")
        held_out_games |= games
        held_out_keys += [test.key, val.key]
        summary["sets"][f"test_{eco}"] = len(test)
        summary["sets"][f"val_{eco}"] = len(val)
    keys = np.concatenate(held_out_keys)
    learning = masters.take(np.flatnonzero(~np.isin(masters.game, list(held_out_games))))
    learn_all = learning.unique(exclude_keys=keys)
    learn_all.save(out / "learn_ALL.npz")
    summary["sets"]["learn_ALL"] = len(learn_all)
    for family, (first, last) in FAMILIES.items():
        subset = learn_all.take(np.flatnonzero(in_range(learn_all, first, last)))
        subset.save(out / f"learn_{family}.npz")
        summary["sets"][f"learn_{family}"] = len(subset)

    twic, n = extract_file(data / "games" / TWIC_FILE, 10_000_000, TWIC_PLIES, jobs, limit, TWIC_FILE)
    twic = twic.unique()
    twic.save(out / "twic.npz")
    summary["sets"]["twic"] = len(twic)
    summary["twic_games"] = n
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary
