"""``nmm-chess train nmm``: train a Neural MoveMap from pattern sets and ship it.

The file written carries, besides the weights: the encoding, the training
data and settings, validation and test accuracy, the spread of the net's
scores over legal moves, and the history weight that spread suggests.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from engine.data.patterns import PatternSet
from engine.nets import NmmNet, save_nmm
from engine.train.nmm import TrainConfig, encode, evaluate, score_stats, train

# The paper found the best history weight inversely proportional to the
# spread of the net's scores. HHWEIGHT_TIMES_STD is that product, measured
# here by the history-weight sweep (engine/study/ordering.py, nets/README.md):
# the best weights lay between 0.001 and 0.03 for a spread of 2.5.
HHWEIGHT_TIMES_STD = 0.025
PLY_BUCKETS = ((20, 29), (30, 39), (40, 59), (60, 10_000))


def sample(patterns: PatternSet, limit: int | None, rng: np.random.Generator) -> PatternSet:
    if limit is None or limit >= len(patterns):
        return patterns.take(rng.permutation(len(patterns)))
    return patterns.take(np.sort(rng.choice(len(patterns), limit, replace=False))[rng.permutation(limit)])


def accuracy(model, data) -> dict:
    """Top-1 and top-5 overall and by ply bucket."""
    rank = evaluate(model, data)
    out = {"positions": int(len(rank)), "top1": float((rank == 0).mean()), "top5": float((rank < 5).mean())}
    for lo, hi in PLY_BUCKETS:
        mask = (data.ply >= lo) & (data.ply <= hi)
        if mask.any():
            key = f"plies {lo}-{hi}" if hi < 10_000 else f"plies {lo}+"
            out[key] = {"n": int(mask.sum()), "top1": float((rank[mask] == 0).mean()),
                        "top5": float((rank[mask] < 5).mean())}
    return out


def run(sets: Path, learn_name: str, out: Path | None, config: TrainConfig, limit: int | None,
        log=print) -> dict:
    rng = np.random.default_rng(config.seed)
    start = time.perf_counter()
    learn_set = sample(PatternSet.load(sets / f"learn_{learn_name}.npz"), limit, rng)
    val_set = PatternSet.concat([PatternSet.load(p) for p in sorted(sets.glob("val_*.npz"))])
    learn = encode(learn_set, config.encoding)
    val = encode(val_set, config.encoding)
    log(f"learning set {learn_name}: {len(learn)} positions; validation {len(val)}")
    result = train(learn, val, config, log)
    model = result.model
    report = {"validation": accuracy(model, val), "tests": {}}
    for path in sorted(sets.glob("test_*.npz")) + [sets / "twic.npz"]:
        if path.exists():
            report["tests"][path.stem] = accuracy(model, encode(PatternSet.load(path), config.encoding))
    mean, std = score_stats(model, val)
    info = {
        "training": {"learning_set": learn_name, "positions": len(learn), "seed": config.seed,
                     "loss": config.loss, "optimiser": config.optimiser, "lr": config.lr,
                     "epochs_run": len(result.history), "best_epoch": result.best_epoch,
                     "seconds": round(time.perf_counter() - start), "model": config.model,
                     "outputs": config.outputs},
        "accuracy": report,
        "score_mean": mean, "score_std": std,
        "suggested_hhweight": round(HHWEIGHT_TIMES_STD / std, 4) if std > 0 else 0.01,
        "history": result.history,
    }
    if out is not None and config.model == "linear" and config.outputs == "fromto":
        weights = model.params["W"][:, :-1]
        save_nmm(NmmNet(config.encoding, np.ascontiguousarray(weights), model.params["b"], info), out)
        log(f"wrote {out}")
    return info
