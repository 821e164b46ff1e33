"""``nmm-chess study predict``: how often each net ranks the master's move first
(top-1) or among its first five (top-5), per test set and ply bucket (the
paper's Table 2, with the TWIC 2022 outside set beside it)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from engine.data.patterns import PatternSet
from engine.nets import load_nmm
from engine.study.ordering import write_csv
from engine.train.nmm import HiddenMoveMap, LinearMoveMap, encode
from engine.train.nmm_run import accuracy


def model_of(path: Path) -> tuple[LinearMoveMap | HiddenMoveMap, str, str]:
    """A shipped net as a trainer model (for the vectorised evaluation)."""
    net = load_nmm(path)
    if net.hidden:
        model = HiddenMoveMap(net.w1.shape[0], net.hidden)
        model.params = {"W1": np.concatenate([net.w1, np.zeros((1, net.hidden), np.float32)]),
                        "b1": net.b1, "W2": net.weights, "b2": net.bias}
    else:
        model = LinearMoveMap(net.weights.shape[1])
        model.params["W"] = np.concatenate([net.weights, np.zeros((net.weights.shape[0], 1), np.float32)], 1)
        model.params["b"] = net.bias
    learned = net.info.get("training", {}).get("learning_set", "?")
    return model, net.encoding, learned


def predict_study(sets: Path, nets: list[Path], out: Path, extra: list[Path] = ()) -> list[dict]:
    """Top-1/top-5 of every net on the test sets of ``sets`` (test_*, twic) and on
    the ``extra`` pattern sets (cut-off sets, engine labels)."""
    paths = {p.stem: p for p in sorted(sets.glob("test_*.npz")) + [sets / "twic.npz"] + list(extra)}
    cache: dict[tuple[str, str], object] = {}
    rows = []
    for path in nets:
        model, encoding, learned = model_of(path)
        for name, set_path in paths.items():
            key = (name, encoding)
            if key not in cache:
                cache[key] = encode(PatternSet.load(set_path), encoding)
            acc = accuracy(model, cache[key])
            row = {"net": path.name, "learned_on": learned, "test_set": name,
                   "positions": acc["positions"], "top1": round(acc["top1"], 4),
                   "top5": round(acc["top5"], 4)}
            for bucket in ("plies 20-29", "plies 30-39", "plies 40-59", "plies 60+"):
                if bucket in acc:
                    row[f"top1 {bucket}"] = round(acc[bucket]["top1"], 4)
            rows.append(row)
    fields = sorted({k for r in rows for k in r}, key=lambda k: list(rows[0]).index(k)
                    if k in rows[0] else 99)
    rows = [{k: r.get(k, "") for k in fields} for r in rows]
    write_csv(out / "predict.csv", rows)
    return rows
