"""``nmm-chess train texel``: fit the handwritten evaluation's weights to game results.

Texel's method: the evaluation of a quiet position, turned into an expected
score by ``1 / (1 + 10 ** (-K * eval / 400))``, should match the result of
the game it was played in; the weights that minimise the mean squared error
over many positions are the tuned ones. Every term of the evaluation is a
weight times a count (``ext/eval_hand.pxi``), so a row of counts
(``engine.data.texel``) gives the evaluation as

    eval = (mg . coef * phase + eg . coef * scale / 64 * (24 - phase)) / 24 + tempo

and the error's gradient in closed form. K is fitted first, with the
starting weights (so that the scale of the centipawn stays put), then the
weights move by Adam over shuffled mini-batches; validation games are held
back whole. The result is written to ``ext/eval_weights.pxi``: rebuild the
core to play with it.

Adam moves a weight that few positions count (a king on g6 with the queens
on, a phalanx on the seventh) as far per step as a common one, so alone it
would fit such weights to a handful of games. An L2 pull towards the
starting weights, added to the gradient, keeps them where they were unless
the data say otherwise: the error's curvature in a weight grows with how
often the weight is counted (about 3e-6 times the mean squared count), so
the default 5e-9 halves the move of a weight counted in about one position
in 600 and leaves those counted in one in twenty almost free.
"""
from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from engine.evaluation import weights

LN10 = math.log(10.0)
TEMPO = 10              # as in ext/eval_hand.pxi: not tuned (it is the same for every row's side)
FROZEN = ("MATERIAL king",)


@dataclass
class Config:
    epochs: int = 12
    batch: int = 16384
    lr: float = 2.0             # Adam's step, in centipawns
    lr_end: float = 0.1         # falls geometrically to this by the last epoch
    val_fraction: float = 0.05  # of the games
    l2: float = 5e-9            # pull towards the starting weights (see train)
    k: float | None = None      # fitted when None
    seed: int = 1


def evaluate(coef: np.ndarray, phase: np.ndarray, scale: np.ndarray, stm: np.ndarray,
             w: np.ndarray) -> np.ndarray:
    """The evaluation of rows (White's view, centipawns) under weights ``w`` (n, 2)."""
    c = coef.astype(np.float32, copy=False)
    mg = c @ w[:, 0].astype(np.float32)
    eg = c @ w[:, 1].astype(np.float32)
    ph = phase.astype(np.float32)
    return (mg * ph + eg * (scale / 64.0) * (24 - ph)) / 24 + np.where(stm == 0, TEMPO, -TEMPO)


def expected(score: np.ndarray, k: float) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-k * LN10 / 400 * score))


def scores(rows: dict[str, np.ndarray], idx: np.ndarray, w: np.ndarray, chunk: int = 65536) -> np.ndarray:
    """The evaluation of rows ``idx``, a chunk at a time (the counts are float16 on disk)."""
    return np.concatenate([np.zeros(0, np.float32)] + [
        evaluate(rows["coef"][j], rows["phase"][j], rows["scale"][j], rows["stm"][j], w)
        for j in (idx[i:i + chunk] for i in range(0, len(idx), chunk))])


def loss(rows: dict[str, np.ndarray], idx: np.ndarray, w: np.ndarray, k: float) -> float:
    if len(idx) == 0:
        return 0.0
    return float(((rows["result"][idx] - expected(scores(rows, idx, w), k)) ** 2).mean())


def fit_k(rows: dict[str, np.ndarray], idx: np.ndarray, w: np.ndarray) -> float:
    """The K that minimises the error of the starting weights (golden-section search)."""
    scores_ = scores(rows, idx, w)
    result = rows["result"][idx]

    def err(k: float) -> float:
        return float(((result - expected(scores_, k)) ** 2).mean())

    lo, hi = 0.1, 4.0
    g = (math.sqrt(5) - 1) / 2
    for _ in range(40):
        a, b = hi - g * (hi - lo), lo + g * (hi - lo)
        if err(a) < err(b):
            hi = b
        else:
            lo = a
    return (lo + hi) / 2


def gradient(rows: dict[str, np.ndarray], j: np.ndarray, w: np.ndarray, k: float) -> np.ndarray:
    """d(mean squared error)/d(weights) over rows ``j``, shape (n, 2)."""
    c = rows["coef"][j].astype(np.float32)         # converted once: the batch's costliest step
    ph = rows["phase"][j].astype(np.float32)
    p = expected(evaluate(c, rows["phase"][j], rows["scale"][j], rows["stm"][j], w), k)
    g = 2 * (p - rows["result"][j]) * p * (1 - p) * (k * LN10 / 400) / len(j)
    grad = np.empty_like(w)
    grad[:, 0] = c.T @ (g * ph / 24)
    grad[:, 1] = c.T @ (g * (rows["scale"][j] / 64.0) * (24 - ph) / 24)
    return grad


def split(rows: dict[str, np.ndarray], fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(training rows, validation rows): validation games are held back whole."""
    games = np.unique(rows["game"])
    rng = np.random.default_rng(seed)
    held = rng.choice(games, max(1, int(len(games) * fraction)), replace=False)
    val = np.isin(rows["game"], held)
    return np.flatnonzero(~val), np.flatnonzero(val)


def train(rows: dict[str, np.ndarray], start: list[tuple[int, int]], config: Config,
          checkpoint: Path | None = None, resume: bool = False,
          log: Callable[[str], None] = print) -> dict:
    """Tune ``start``'s weights on ``rows``; returns the weights (rounded) and the run's record."""
    from tqdm import tqdm
    train_idx, val_idx = split(rows, config.val_fraction, config.seed)
    w = np.array(start, np.float64)
    w0 = w.copy()
    frozen = np.zeros(len(w), bool)
    for i in range(len(w)):
        frozen[i] = weights.name_of(i) in FROZEN
    m, v, step, first_epoch, history = np.zeros_like(w), np.zeros_like(w), 0, 0, []
    k = config.k
    if resume and checkpoint and checkpoint.exists():
        with np.load(checkpoint) as f:
            w, m, v = f["w"], f["m"], f["v"]
            step, first_epoch, k = int(f["step"]), int(f["epoch"]), float(f["k"])
            history = json.loads(str(f["history"]))
        log(f"resumed from {checkpoint} after epoch {first_epoch}")
    if k is None:
        k = fit_k(rows, train_idx, w)
        log(f"K = {k:.4f}")
    start_val = loss(rows, val_idx, np.array(start, np.float64), k)
    if not history:
        history.append({"epoch": 0, "train": loss(rows, train_idx, w, k), "validation": start_val})
        log(f"epoch 0: train {history[0]['train']:.6f} validation {start_val:.6f}")
    rng = np.random.default_rng(config.seed + 7919 * first_epoch)
    decay = (config.lr_end / config.lr) ** (1 / max(1, config.epochs - 1))
    b1, b2, eps = 0.9, 0.999, 1e-8
    for epoch in range(first_epoch + 1, config.epochs + 1):
        lr = config.lr * decay ** (epoch - 1)
        order = rng.permutation(train_idx)
        t0 = time.time()
        for i in tqdm(range(0, len(order), config.batch), desc=f"epoch {epoch}", unit="batch", disable=None,
                      leave=False):
            grad = gradient(rows, np.sort(order[i:i + config.batch]), w, k) + config.l2 * (w - w0)
            grad[frozen] = 0
            step += 1
            m = b1 * m + (1 - b1) * grad
            v = b2 * v + (1 - b2) * grad * grad
            w -= lr * (m / (1 - b1 ** step)) / (np.sqrt(v / (1 - b2 ** step)) + eps) * (v > 1e-30)
        record = {"epoch": epoch, "lr": lr, "seconds": round(time.time() - t0, 1),
                  "train": loss(rows, train_idx, w, k), "validation": loss(rows, val_idx, w, k),
                  "validation_rounded": loss(rows, val_idx, np.round(w), k)}
        history.append(record)
        log(f"epoch {epoch}: train {record['train']:.6f} validation {record['validation']:.6f} "
            f"(rounded {record['validation_rounded']:.6f}), {record['seconds']} s")
        if checkpoint:
            checkpoint.parent.mkdir(parents=True, exist_ok=True)
            np.savez(checkpoint, w=w, m=m, v=v, step=step, epoch=epoch, k=k,
                     history=np.array(json.dumps(history)))
    tuned = [(int(round(a)), int(round(b))) for a, b in w]
    return {"weights": tuned, "k": k, "config": asdict(config), "rows": int(len(rows["result"])),
            "train_rows": int(len(train_idx)), "validation_rows": int(len(val_idx)),
            "validation_start": start_val, "validation_end": history[-1]["validation"], "history": history,
            "largest_changes": largest_changes(start, tuned)}


def largest_changes(before: list[tuple[int, int]], after: list[tuple[int, int]], n: int = 25) -> list[str]:
    """The weights that moved most, as readable lines."""
    moved = sorted(range(len(before)), key=lambda i: -(abs(after[i][0] - before[i][0])
                                                       + abs(after[i][1] - before[i][1])))
    return [f"{weights.name_of(i)}: {before[i]} -> {after[i]}" for i in moved[:n]]
