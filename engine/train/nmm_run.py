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


VAL_SHARE = 0.05            # of a cut-off set's searched positions, held out for validation
VAL_MAX = 50_000            # validation samples at most (each epoch ranks them all)


def depth_weight(depth: np.ndarray, weighting: str) -> np.ndarray | None:
    """A cut-off sample's weight: its depth, depth squared, or None (all 1)."""
    d = depth.astype(np.float32)
    return {"depth": d, "depth2": d * d, "none": None}[weighting]


def cutoff_split(path: Path, limit: int | None, rng: np.random.Generator,
                 weighting: str) -> tuple[PatternSet, np.ndarray | None, PatternSet]:
    """(learning samples, their weights, validation samples) of a cut-off set:
    the samples of VAL_SHARE of its searched positions are held out whole."""
    from engine.data.cutoffs import load_cutoffs
    patterns, depth, _ = load_cutoffs(path)
    sources = np.unique(patterns.game)
    held = rng.choice(sources, max(1, int(len(sources) * VAL_SHARE)), replace=False)
    is_val = np.isin(patterns.game, held)
    learn = rng.permutation(np.flatnonzero(~is_val))[:limit]
    val = rng.permutation(np.flatnonzero(is_val))[:VAL_MAX]
    return patterns.take(learn), depth_weight(depth[learn], weighting), patterns.take(val)


def run(sets: Path, learn_name: str, out: Path | None, config: TrainConfig, limit: int | None,
        log=print, weighting: str = "depth", tests: list[Path] = ()) -> dict:
    """Train on ``learn_name``: a master set of ``sets`` (ALL, A3x, ...), validated on
    its val_* sets, or a cut-off file (.npz, from ``data cutoffs``), validated on
    its held-out searches; report top-1 on ``sets``' test sets and on ``tests``."""
    rng = np.random.default_rng(config.seed)
    start = time.perf_counter()
    weight = None
    if learn_name.endswith(".npz"):
        learn_set, weight, val_set = cutoff_split(Path(learn_name), limit, rng, weighting)
    else:
        learn_set = sample(PatternSet.load(sets / f"learn_{learn_name}.npz"), limit, rng)
        val_set = PatternSet.concat([PatternSet.load(p) for p in sorted(sets.glob("val_*.npz"))])
    learn = encode(learn_set, config.encoding, weight)
    val = encode(val_set, config.encoding)
    log(f"learning set {learn_name}: {len(learn)} positions; validation {len(val)}")
    result = train(learn, val, config, log)
    model = result.model
    report = {"validation": accuracy(model, val), "tests": {}}
    test_paths = sorted(sets.glob("test_*.npz")) + [sets / "twic.npz"] + list(tests)
    for path in test_paths:
        if path.exists():
            report["tests"][path.stem] = accuracy(model, encode(PatternSet.load(path), config.encoding))
    mean, std = score_stats(model, val)
    info = {
        "training": {"learning_set": learn_name, "positions": len(learn), "seed": config.seed,
                     "loss": config.loss, "optimiser": config.optimiser, "lr": config.lr, "lr_decay": config.lr_decay,
                     "epochs_run": len(result.history), "best_epoch": result.best_epoch,
                     "seconds": round(time.perf_counter() - start), "model": config.model,
                     "outputs": config.outputs, "weighting": weighting if weight is not None else "none"},
        "accuracy": report,
        "score_mean": mean, "score_std": std,
        "suggested_hhweight": round(HHWEIGHT_TIMES_STD / std, 4) if std > 0 else 0.01,
        "history": result.history,
    }
    if out is not None and config.model == "linear" and config.outputs == "fromto":
        weights = model.params["W"][:, :-1]
        save_nmm(NmmNet(config.encoding, np.ascontiguousarray(weights), model.params["b"], info), out)
        log(f"wrote {out}")
    elif out is not None and config.model == "hidden":
        p = model.params
        save_nmm(NmmNet(config.encoding, p["W2"], p["b2"], info, np.ascontiguousarray(p["W1"][:-1]), p["b1"]),
                 out)
        log(f"wrote {out}")
    return info
