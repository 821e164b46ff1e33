"""``nmm-chess data texel``: game positions -> the rows the evaluation tuner fits.

A row is one quiet position of a game (``texel_rows``: not in check, no
capture that wins material, more than a bare king on each side) as the
counts the handwritten evaluation multiplies its weights by, with the game's
result. The tuner (``engine.train.texel``) needs nothing else: the evaluation
of a row is linear in the weights.

Written to ``--out`` (default var/texel/rows.npz): ``coef`` (rows, weights)
float16 (counts are small integers; the king-danger count has 1/64 steps),
``phase``, ``scale``, ``stm`` uint8, ``ply`` uint16, ``result`` float32 (1 a
White win, 0.5 a draw, 0 a loss), ``game`` int32 (which game, for a
validation split by game), and a JSON ``header``.

The master collections only by default, never the TWIC 2022 file.
"""
from __future__ import annotations

import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from engine._core import STARTING_FEN, texel_rows
from engine.data.pgn import batches
from engine.data.td import MASTER_FILES, shuffled_texts, usable
from engine.evaluation import weights

SKIP_PLIES = 16         # the opening is book knowledge, not evaluation


def _extract(work: tuple[list[str], int, int, int]) -> list[tuple]:
    texts, every, first, seed = work
    rows = []
    for i, text in enumerate(texts):
        game = usable(text)
        if game is None:
            continue
        moves, result = game
        try:
            coef, phase, scale, stm, ply = texel_rows(STARTING_FEN, moves, every, SKIP_PLIES,
                                                      seed * 1_000_003 + first + i)
        except ValueError:
            continue
        if len(coef):
            rows.append((coef.astype(np.float16), phase, scale, stm, ply, (result + 1) / 2, first + i))
    return rows


def build(data: Path, out: Path, games: int | None, every: int = 4, seed: int = 1, jobs: int = 2,
          files: list[Path] | None = None) -> dict:
    """Rows from ``games`` games (all if None) drawn at random from ``files``
    (default: the master collections), one position in ``every`` per game."""
    from tqdm import tqdm
    files = files or [data / "games" / name for name in MASTER_FILES]
    texts = shuffled_texts(files, seed)
    if games:
        texts = texts[:games]
    parts: list[tuple] = []
    with ProcessPoolExecutor(jobs) as pool, tqdm(total=len(texts), unit="game", desc="games",
                                                 disable=None) as bar:
        work = [(chunk, every, 500 * i, seed) for i, chunk in enumerate(batches(texts, 500))]
        for part, (chunk, *_) in zip(pool.map(_extract, work), work):
            parts += part
            bar.update(len(chunk))
    arrays = {
        "coef": np.concatenate([p[0] for p in parts]),
        "phase": np.concatenate([p[1] for p in parts]),
        "scale": np.concatenate([p[2] for p in parts]),
        "stm": np.concatenate([p[3] for p in parts]),
        "ply": np.concatenate([p[4] for p in parts]),
        "result": np.concatenate([np.full(len(p[0]), p[5], np.float32) for p in parts]),
        "game": np.concatenate([np.full(len(p[0]), p[6], np.int32) for p in parts]),
    }
    summary = {"files": [f.name for f in files], "seed": seed, "every": every, "skip_plies": SKIP_PLIES,
               "games": len(parts), "rows": int(len(arrays["result"])), "weights": weights.size(),
               "layout": [[name, count] for name, count, _ in weights.LAYOUT],
               "results": {k: int((arrays["result"] == v).sum()) for k, v in
                           (("white wins", 1.0), ("draws", 0.5), ("black wins", 0.0))}}
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(out, header=np.array(json.dumps(summary)), **arrays)
    return summary


def load(path: Path) -> tuple[dict, dict[str, np.ndarray]]:
    """(header, arrays) of a rows file; ValueError if its layout is not the core's."""
    with np.load(path) as f:
        header = json.loads(str(f["header"]))
        arrays = {k: f[k] for k in f.files if k != "header"}
    if header["layout"] != [[name, count] for name, count, _ in weights.LAYOUT]:
        raise ValueError(f"{path} was built for another weight layout: build it again")
    return header, arrays


def rows_arg(text: str) -> tuple[Path, int]:
    """A rows file on the command line, with how many times each of its rows
    counts after an ``@``: the engine's own games are a few percent of the
    master collections' rows, and count that little unless weighted.

    >>> rows_arg("var/texel/own.npz@8"), rows_arg("var/texel/rows.npz")
    ((PosixPath('var/texel/own.npz'), 8), (PosixPath('var/texel/rows.npz'), 1))
    """
    name, at, times = text.rpartition("@")
    if not at:
        return Path(text), 1
    if not times.isdigit() or int(times) < 1:
        raise ValueError(f"{text}: the weight after @ is a whole number from 1")
    return Path(name), int(times)


def load_many(paths: list[Path], weights_: list[int] | None = None) -> tuple[dict, dict[str, np.ndarray]]:
    """Several rows files as one, e.g. the master collections' and the
    engine's own games': their games stay apart (each file's game numbers are
    moved past the last one's), so a validation split by game holds. A file
    of weight n has its rows n times over (the same games: a split keeps them
    together), so that each counts n times in the error.

    >>> header, rows = load_many([Path("var/texel/rows.npz"), Path("var/texel/own.npz")], [1, 8])  # doctest: +SKIP
    """
    weights_ = weights_ or [1] * len(paths)
    headers, parts, offset = [], [], 0
    for path, times in zip(paths, weights_):
        header, arrays = load(path)
        arrays["game"] = arrays["game"].astype(np.int64) + offset
        offset = int(arrays["game"].max()) + 1 if len(arrays["game"]) else offset
        if times > 1:
            arrays = {k: np.concatenate([v] * times) for k, v in arrays.items()}
        headers.append(dict(header, weight=times))
        parts.append(arrays)
    if len(parts) == 1 and weights_[0] == 1:
        return headers[0], parts[0]
    merged = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    header = dict(headers[0], files=[f for h in headers for f in h["files"]],
                  seed=[h["seed"] for h in headers], games=sum(h["games"] for h in headers),
                  rows=sum(h["rows"] for h in headers), weight=[h["weight"] for h in headers])
    return header, merged
