"""The win-draw-loss model of UCI_ShowWDL, fitted to the engine's own games
(``nmm-chess train wdl``, ``make wdl-model``; reports/wdl/README.md).

Each self-play record (engine/data/selfplay.py) gives a search score ``s``
(centipawns, side to move's view), the material on the board ``m`` (pawns
1, knights and bishops 3, rooks 5, queens 9, both sides) and the game's
result for the side to move. The model (engine/wdl.py, Stockfish's form):

    P(win)  = σ(( s − a(m)) / b(m))
    P(loss) = σ((−s − a(m)) / b(m))
    P(draw) = 1 − P(win) − P(loss)

with ``a`` and ``b`` cubic polynomials of ``x = clamp(m) / MATERIAL_SCALE``:
``a`` is the score at which a win is as likely as not, ``b`` how fast the
chance grows with the score. Fitted by maximum likelihood (an ordered
logistic regression) on the positions binned by score (BIN_CP wide) and
material; the bins are the fit's whole input, so the committed CSV
(reports/wdl/bins.csv) reproduces it (``--bins`` without ``--data``).
Mates (``|s| >= MATE_BOUND``) and scores beyond SCORE_CAP are left out: the
engine reports mates as 1000/0/0 or 0/0/1000 without the model.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.data.selfplay import BLACK, MATE_BOUND, batch_paths, read_batch, results
from engine.wdl import MATERIAL_SCALE, PIECE_VALUES

BIN_CP = 20
SCORE_CAP = 2000
MATERIAL_MIN, MATERIAL_MAX = 4, 78      # the model's material is clamped to this range
DEGREE = 3
PARAMS = Path(__file__).resolve().parent.parent / "wdl_params.py"
# The bins' ``#`` lines that are counts (the others are text: a fingerprint may be all digits).
NUMERIC = ("batches", "games", "positions", "mates_left_out", f"beyond_{SCORE_CAP}_left_out", "bin_cp")


@dataclass
class Bins:
    """Positions counted by (score bin, material): W, D, L for the side to move."""
    score: np.ndarray           # the bin's centre, centipawns
    material: np.ndarray
    counts: np.ndarray          # (n, 3): wins, draws, losses
    meta: dict = field(default_factory=dict)

    @property
    def positions(self) -> int:
        return int(self.counts.sum())


def material_of(records: np.ndarray) -> np.ndarray:
    """Each record's material, both sides (kings 0).

    >>> from engine.data.selfplay import RECORD
    >>> rec = np.zeros(1, RECORD)
    >>> rec["occupancy"] = (1 << 4) | (1 << 8) | (1 << 59) | (1 << 60)   # Ke1, Pa2, Qd8, Ke8
    >>> rec["pieces"][0, :2] = [5 | (0 << 4), 10 | (11 << 4)]
    >>> material_of(rec).tolist()
    [10]
    """
    count = np.unpackbits(records["occupancy"].astype("<u8").view(np.uint8).reshape(-1, 8), axis=1).sum(1)
    pieces = np.asarray(records["pieces"])
    nibbles = np.stack([pieces & 15, pieces >> 4], axis=2).reshape(len(records), 32)
    values = np.array(PIECE_VALUES)[nibbles % 6] * (np.arange(32)[None, :] < count[:, None])
    return values.sum(1).astype(np.int64)


def fingerprint(paths: list[Path]) -> str:
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.name.encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def bin_records(folder: Path, batches: int | None = None) -> Bins:
    """Count the positions of the first ``batches`` batch files of a
    ``data selfplay`` folder (all of them if None)."""
    paths = batch_paths(folder)[:batches]
    if not paths:
        raise ValueError(f"no self-play batches in {folder}")
    games = positions = mates = capped = 0
    evaluations, commits, nodes = set(), set(), set()
    table = np.zeros((2 * SCORE_CAP // BIN_CP + 1, 128, 3), np.int64)
    for path in paths:
        header, records = read_batch(path, mmap=False)
        games += len(header["game_list"])
        evaluations.add(header["evaluation"])
        commits.add(header["commit"][:7])
        nodes.add(header["nodes"])
        score = records["score"].astype(np.int64)
        mate = np.abs(score) >= MATE_BOUND
        big = ~mate & (np.abs(score) > SCORE_CAP)
        mates += int(mate.sum())
        capped += int(big.sum())
        keep = ~mate & ~big
        result = results(records).astype(np.int64)
        result = np.where(records["flags"] & BLACK, 2 - result, result)     # the side to move's
        outcome = 2 - result                                                 # 0 win, 1 draw, 2 loss
        sbin = np.rint(score / BIN_CP).astype(np.int64) + SCORE_CAP // BIN_CP
        material = np.minimum(material_of(records), 127)
        np.add.at(table, (sbin[keep], material[keep], outcome[keep]), 1)
        positions += len(records)
    where = np.argwhere(table.sum(2) > 0)
    meta = {"source": str(folder), "batches": len(paths), "first": paths[0].name, "last": paths[-1].name,
            "games": games, "positions": positions, "mates_left_out": mates,
            f"beyond_{SCORE_CAP}_left_out": capped, "fingerprint": fingerprint(paths),
            "evaluation": ",".join(sorted(evaluations)), "commits": ",".join(sorted(commits)),
            "nodes": ",".join(map(str, sorted(nodes))), "bin_cp": BIN_CP}
    return Bins((where[:, 0] - SCORE_CAP // BIN_CP) * BIN_CP, where[:, 1],
                table[where[:, 0], where[:, 1]], meta)


def write_bins(bins: Bins, path: Path) -> None:
    """A CSV: ``#`` lines of what the data is, then score,material,W,D,L."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"# {key}: {value}" for key, value in bins.meta.items()]
    lines.append("score,material,W,D,L")
    lines += [f"{s},{m},{w},{d},{l}" for s, m, (w, d, l) in zip(bins.score.tolist(), bins.material.tolist(),
                                                                   bins.counts.tolist())]
    path.write_text("\n".join(lines) + "\n")


def read_bins(path: Path) -> Bins:
    meta, rows = {}, []
    for line in Path(path).read_text().splitlines():
        if line.startswith("#"):
            key, _, value = line[1:].partition(":")
            value = value.strip()
            meta[key.strip()] = int(value) if key.strip() in NUMERIC else value
        elif line and not line.startswith("score"):
            rows.append([int(v) for v in line.split(",")])
    table = np.array(rows, np.int64).reshape(-1, 5)
    return Bins(table[:, 0], table[:, 1], table[:, 2:], meta)


# --- the model and its fit -------------------------------------------------------------

def xs(material: np.ndarray) -> np.ndarray:
    return np.clip(material, MATERIAL_MIN, MATERIAL_MAX) / MATERIAL_SCALE


def probabilities(score: np.ndarray, x: np.ndarray, a_coef, b_coef) -> np.ndarray:
    """(n, 3): P(win), P(draw), P(loss); as engine/wdl.py's ``chances``."""
    a = np.maximum(np.polyval(a_coef, x), 1.0)
    b = np.maximum(np.polyval(b_coef, x), 1.0)
    win = 1 / (1 + np.exp(-np.clip((score - a) / b, -50, 50)))
    loss = 1 / (1 + np.exp(-np.clip((-score - a) / b, -50, 50)))
    return np.stack([win, np.maximum(1 - win - loss, 0.0), loss], axis=1)


def log_loss(counts: np.ndarray, p: np.ndarray) -> float:
    """Mean negative log-likelihood a position (nats)."""
    return float(-(counts * np.log(np.maximum(p, 1e-12))).sum() / counts.sum())


def minimise(f, theta: np.ndarray, iterations: int = 200) -> np.ndarray:
    """Newton's method with a numerical Hessian and Levenberg damping (a
    handful of parameters, a cheap ``f``: no need for more)."""
    theta = np.asarray(theta, float)
    n, damping, value = len(theta), 1e-3, f(theta)
    for _ in range(iterations):
        h = 1e-4 * np.maximum(1.0, np.abs(theta))
        grad, hess = np.zeros(n), np.zeros((n, n))
        for i in range(n):
            e_i = np.eye(n)[i] * h[i]
            grad[i] = (f(theta + e_i) - f(theta - e_i)) / (2 * h[i])
            for j in range(i, n):
                e_j = np.eye(n)[j] * h[j]
                hess[i, j] = hess[j, i] = (f(theta + e_i + e_j) - f(theta + e_i - e_j) - f(theta - e_i + e_j)
                                           + f(theta - e_i - e_j)) / (4 * h[i] * h[j])
        while True:
            step = np.linalg.solve(hess + damping * np.diag(np.maximum(np.diag(hess), 1e-12)), -grad)
            candidate = f(theta + step)
            if candidate < value:
                theta, improvement, value = theta + step, value - candidate, candidate
                damping = max(damping / 4, 1e-9)
                break
            damping *= 8
            if damping > 1e12:
                return theta
        if improvement < 1e-12:
            return theta
    return theta


@dataclass
class Fit:
    a: list[float]              # highest power first (numpy.polyval's order)
    b: list[float]
    log_loss: float             # the model's, nats a position
    log_loss_constant: float    # a and b that do not depend on material
    log_loss_prior: float       # the results' frequencies alone (the score ignored)
    positions: int


def fit(bins: Bins, degree: int = DEGREE) -> Fit:
    x, score, counts = xs(bins.material), bins.score.astype(float), bins.counts

    def nll(theta: np.ndarray, d: int) -> float:
        return log_loss(counts, probabilities(score, x, theta[:d + 1], theta[d + 1:]))

    constant = minimise(lambda t: nll(t, 0), np.array([100.0, 100.0]))
    start = np.concatenate([np.zeros(degree), constant[:1], np.zeros(degree), constant[1:]])
    theta = minimise(lambda t: nll(t, degree), start)
    prior = counts.sum(0) / counts.sum()
    return Fit([float(v) for v in theta[:degree + 1]], [float(v) for v in theta[degree + 1:]],
               nll(theta, degree), nll(constant, 0), log_loss(counts, np.broadcast_to(prior, counts.shape)),
               bins.positions)


def calibration(bins: Bins, result: Fit, edges=(-2000, -600, -300, -150, -50, 50, 150, 300, 600, 2001)
                ) -> list[dict]:
    """Observed against predicted W/D/L (per mille) by score range, all material."""
    p = probabilities(bins.score.astype(float), xs(bins.material), result.a, result.b)
    rows = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        inside = (bins.score >= lo) & (bins.score < hi)
        n = bins.counts[inside].sum()
        if n == 0:
            continue
        observed = bins.counts[inside].sum(0) / n
        predicted = (p[inside] * bins.counts[inside].sum(1, keepdims=True)).sum(0) / n
        rows.append({"scores": f"{lo}..{hi - 1}", "positions": int(n),
                     "observed": [round(1000 * v) for v in observed],
                     "predicted": [round(1000 * v) for v in predicted]})
    return rows


def by_material(result: Fit, materials=(8, 16, 24, 32, 40, 48, 58, 68, 78)) -> list[dict]:
    """a and b, and the score of a 50% win chance, at some material counts."""
    return [{"material": m, "a": round(float(np.polyval(result.a, xs(np.array(m)))), 1),
             "b": round(float(np.polyval(result.b, xs(np.array(m)))), 1)} for m in materials]


def write_params(result: Fit, meta: dict, path: Path = PARAMS, command: str = "") -> None:
    """engine/wdl_params.py: the fitted numbers and where they come from."""
    text = f'''"""The win-draw-loss model's parameters (engine/wdl.py), generated by
``{command or 'nmm-chess train wdl'}`` (engine/train/wdl.py,
reports/wdl/README.md): do not edit.

Fitted on {result.positions:,} of the {meta.get('positions', '?'):,} positions of {meta.get('games', '?'):,} self-play games
(mates and scores beyond {SCORE_CAP} left out; {meta.get('source', '?')}, {meta.get('batches', '?')} batches,
{meta.get('first', '?')} to {meta.get('last', '?')}, made with {meta.get('evaluation', '?')} at {meta.get('nodes', '?')} nodes);
log-loss {result.log_loss:.4f} nats a position (a and b without material: {result.log_loss_constant:.4f};
the results' frequencies alone: {result.log_loss_prior:.4f}).
"""
DATA_FINGERPRINT = "{meta.get('fingerprint', '')}"   # sha256 of the batch files (engine/train/wdl.py)
EVALUATION = "{meta.get('evaluation', '')}"
POSITIONS = {result.positions}
MATERIAL_MIN, MATERIAL_MAX = {MATERIAL_MIN}, {MATERIAL_MAX}
# a(x), b(x): polynomials of x = clamp(material) / MATERIAL_SCALE, highest power first.
A = ({", ".join(f"{v:.6g}" for v in result.a)})
B = ({", ".join(f"{v:.6g}" for v in result.b)})
'''
    path.write_text(text)


def summary(bins: Bins, result: Fit) -> dict:
    return {"data": bins.meta, "model": {"a": result.a, "b": result.b, "material_min": MATERIAL_MIN,
                                         "material_max": MATERIAL_MAX, "material_scale": MATERIAL_SCALE},
            "positions": result.positions, "log_loss": round(result.log_loss, 5),
            "log_loss_constant_ab": round(result.log_loss_constant, 5),
            "log_loss_prior": round(result.log_loss_prior, 5),
            "by_material": by_material(result), "calibration": calibration(bins, result)}


def run(data: Path | None, bins_path: Path, out: Path, report: Path | None, batches: int | None,
        command: str, log=print) -> dict:
    """Bin ``data`` into ``bins_path`` (if given), fit the model on the bins,
    write the parameters to ``out`` and the summary to ``report``."""
    if data is not None:
        bins = bin_records(data, batches)
        write_bins(bins, bins_path)
        log(f"{bins.positions:,} positions of {bins.meta['games']:,} games in {len(bins.score):,} bins: {bins_path}")
    bins = read_bins(bins_path)
    result = fit(bins)
    info = summary(bins, result)
    write_params(result, bins.meta, out, command)
    if report is not None:
        report.parent.mkdir(parents=True, exist_ok=True)
        report.write_text(json.dumps(info, indent=1) + "\n")
    log(f"log-loss {result.log_loss:.4f} (constant a, b: {result.log_loss_constant:.4f}; "
        f"prior: {result.log_loss_prior:.4f}); a = {result.a}; b = {result.b}; wrote {out}")
    return info
