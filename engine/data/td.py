"""``nmm-chess data td``: master games -> the TD evaluation's training games.

Every position of every decided or drawn game (the one after the last move
included), as the core computes its inputs (``replay_features``): set A's
numbers and the active squares in set C's layout, from which set B's are
taken (``to_set``). Games, not positions, are the unit: TD learns from each
game's sequence, and the validation games are held back whole.

Written to ``--out`` (default var/td/games.npz):

- ``dense`` (positions, 62) int16, ``active`` (positions, 32) int16 (-1 pads),
  ``stm``, ``phase`` uint8, ``ply`` uint16, ``hand`` int16 (the handwritten
  evaluation in cp, side to move's view), ``quiet`` uint8 (not in check, no
  capture that wins material: the positions the net is trained on);
- ``x_dense``, ``x_active``, ``x_stm``, ``x_phase``, ``x_hand``, ``x_fullmove``:
  material variants of training positions (one piece taken off, see
  ``material_variants``), labelled by the handwritten evaluation: they keep
  the net's sense of material where games never go;
- ``offsets`` (games + 1) int64: game g is rows offsets[g]:offsets[g+1];
  ``result`` (games,) int8 from White's view; ``val`` (games,) bool.

The master collections only, never the TWIC 2022 file.
"""
from __future__ import annotations

import json
import random
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from engine._core import STARTING_FEN, material_variants, replay_features
from engine.data.pgn import batches, parse_game, read_text, split_games

MASTER_FILES = ("masters_pgnmentor_both2500.pgn.gz", "masters_pgnmentor_pre1970.pgn.gz")
RESULTS = {"1-0": 1, "0-1": -1, "1/2-1/2": 0}
LAYOUT = "thesis-appendix-b/1"      # set A as in ext/eval_features.pxi; bump on any change
MIN_PLIES = 10                      # shorter games are mostly agreed draws
VARIANT_EVERY = 4                   # a piece-off variant of every 4th position (see material_variants)


def usable(text: str) -> tuple[list[str], int] | None:
    """(moves, result from White's view) of a game text fit to learn from:
    a result, at least MIN_PLIES plies, from the usual start; else None."""
    parsed = parse_game(text)
    if parsed is None:
        return None
    headers, moves = parsed
    result = RESULTS.get(headers.get("Result", "*"))
    if result is None or len(moves) < MIN_PLIES or headers.get("SetUp") == "1":
        return None
    return moves, result


def shuffled_texts(files: list[Path], seed: int) -> list[str]:
    """The game texts of ``files``, in the seeded order the data file draws them."""
    if any("twic" in f.name.lower() for f in files):
        raise ValueError("the TWIC 2022 games are the outside test set: never trained on")
    texts = []
    for path in files:
        texts += split_games(read_text(path))
    random.Random(seed).shuffle(texts)
    return texts


def _extract(work: tuple[list[str], int]) -> list[tuple]:
    texts, seed = work
    rows = []
    for text in texts:
        game = usable(text)
        if game is None:
            continue
        moves, result = game
        try:
            dense, active, stm, phase, hand, quiet = replay_features(STARTING_FEN, moves, "C")
            variants = material_variants(STARTING_FEN, moves, "C", VARIANT_EVERY, seed)
        except ValueError:
            continue
        rows.append((dense.astype(np.int16), active, stm, phase, hand, quiet, result,
                     (variants[0].astype(np.int16),) + variants[1:]))
    return rows


def pack(games: list[tuple], val: np.ndarray) -> dict[str, np.ndarray]:
    lengths = np.array([len(g[0]) for g in games], np.int64)
    variants = [g[7] for g, v in zip(games, val) if not v]     # from training games only
    return {"x_dense": np.concatenate([x[0] for x in variants]),
            "x_active": np.concatenate([x[1] for x in variants]),
            "x_stm": np.concatenate([x[2] for x in variants]),
            "x_phase": np.concatenate([x[3] for x in variants]),
            "x_hand": np.concatenate([x[4] for x in variants]),
            "x_fullmove": np.concatenate([x[5] for x in variants]),"dense": np.concatenate([g[0] for g in games]),
            "active": np.concatenate([g[1] for g in games]),
            "stm": np.concatenate([g[2] for g in games]),
            "phase": np.concatenate([g[3] for g in games]),
            "ply": np.concatenate([np.arange(n, dtype=np.uint16) for n in lengths]),
            "hand": np.concatenate([g[4] for g in games]),
            "quiet": np.concatenate([g[5] for g in games]),
            "offsets": np.concatenate([[0], np.cumsum(lengths)]),
            "result": np.array([g[6] for g in games], np.int8),
            "val": val}


def build(data: Path, out: Path, games: int | None, seed: int = 1, jobs: int = 2,
          val_games: int = 2000, files: list[Path] | None = None) -> dict:
    """Read ``games`` games (all if None) drawn at random from the master
    collections (or ``files``); hold ``val_games`` of them back for validation."""
    from tqdm import tqdm
    files = files or [data / "games" / name for name in MASTER_FILES]
    texts = shuffled_texts(files, seed)
    if games:
        texts = texts[:int(games * 1.05) + 100]      # a few are dropped (no result, errors)
    found: list[tuple] = []
    with ProcessPoolExecutor(jobs) as pool, tqdm(total=len(texts), unit="game", desc="games",
                                                 disable=None) as bar:
        work = [(chunk, seed * 1_000_003 + i) for i, chunk in enumerate(batches(texts, 250))]
        for part, (chunk, _) in zip(pool.map(_extract, work), work):
            found += part
            bar.update(len(chunk))
    found = found[:games] if games else found
    val = np.zeros(len(found), bool)
    val[:min(val_games, len(found) // 10)] = True
    arrays = pack(found, val)
    out.parent.mkdir(parents=True, exist_ok=True)
    from engine.nets import handwritten_fingerprint
    summary = {"layout": LAYOUT, "hand_fingerprint": handwritten_fingerprint(), "seed": seed, "files": [f.name for f in files], "games": len(found),
               "validation_games": int(val.sum()), "positions": int(arrays["offsets"][-1]),
               "quiet_positions": int(arrays["quiet"].sum()),
               "material_variants": int(len(arrays["x_hand"])),
               "results_white": {str(k): int((arrays["result"] == k).sum()) for k in (1, 0, -1)}}
    np.savez(out, header=np.array(json.dumps(summary)), **arrays)
    return summary


def load(path: Path) -> tuple[dict, dict[str, np.ndarray]]:
    with np.load(path, allow_pickle=False) as f:
        arrays = {k: f[k] for k in f.files}
    header = json.loads(str(arrays.pop("header")))
    if "quiet" not in arrays or "x_hand" not in arrays:
        raise ValueError(f"{path} predates the quiet flags and material variants: "
                         "rebuild it with 'nmm-chess data td'")
    if header.get("layout") != LAYOUT:
        raise ValueError(f"{path} holds features of layout {header.get('layout')!r}; "
                         f"this engine computes {LAYOUT!r}: rebuild it with 'nmm-chess data td'")
    return header, arrays


def c_to_b() -> np.ndarray:
    """Set C's square index -> set B's (-1 where B has no input: knights to queens)."""
    table = np.full(2 * 368, -1, np.int16)
    for side in range(2):
        for rel in range(8, 56):
            table[side * 368 + rel - 8] = 128 + side * 48 + rel - 8           # pawns
        for rel in range(64):
            table[side * 368 + 48 + 4 * 64 + rel] = side * 64 + rel            # kings
    return table


def home_squares_c() -> np.ndarray:
    """(737,) bool: the set C inputs of men on their starting squares (index 736: the pad)."""
    mask = np.zeros(2 * 368 + 1, bool)
    for side, rank1 in ((0, 0), (1, 56)):           # ours from rank 1, theirs from rank 8 (side to move's view)
        pawns = 8 if side == 0 else 48
        mask[side * 368 + pawns - 8 + np.arange(8)] = True
        for k, files in enumerate(((1, 6), (2, 5), (0, 7), (3,), (4,))):       # N B R Q K
            mask[[side * 368 + 48 + k * 64 + rank1 + f for f in files]] = True
    return mask


def home_of_active(active_c: np.ndarray) -> np.ndarray:
    """Men on their starting squares (Board.home) from active indices in set C's layout."""
    mask = home_squares_c()
    return mask[np.where(active_c >= 0, active_c, len(mask) - 1)].sum(1).astype(np.int16)


def to_set(active_c: np.ndarray, squares: str) -> np.ndarray:
    """Active indices in set C's layout -> those of ``squares`` (-1 pads)."""
    if squares == "C":
        return active_c
    if squares == "A":
        return np.full((len(active_c), 0), -1, np.int16)
    mapped = c_to_b()[np.where(active_c >= 0, active_c, 0)]
    return np.where(active_c >= 0, mapped, -1).astype(np.int16)
