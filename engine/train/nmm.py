"""Training the Neural MoveMap: target 1 for the move played, 0 for the other
legal moves, the error counted over legal moves only.

Two losses: the paper's mean squared error, and softmax cross-entropy over
the legal moves. Two optimisers: RPROP on the full batch (the paper's), and
Adam on mini-batches. Early stopping on the validation top-1 error keeps the
best weights. Everything is vectorised numpy: a position's score for one
legal move is a gather of its active inputs' weights in that move's row.

Besides the shipped model (linear, one output per from-to pair), two
alternatives from the Lines of Action paper are here for the study: a
hidden layer, and one output per from square plus one per to square.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from engine.data.patterns import PatternSet
from engine.train.nmm_encoding import ENCODINGS, MIRRORED, N_OUTPUTS, encode_inputs, encode_outputs


@dataclass
class Encoded:
    """A pattern set ready for training: inputs per position, one pair per
    (position, distinct output), and where each position's label pair is."""
    inputs: np.ndarray          # (N, 33) int32, padded with n_inputs
    values: np.ndarray          # (N, 33) float32
    pair_pos: np.ndarray        # (P,) int32: the position of each pair
    pair_out: np.ndarray        # (P,) int32: its output
    pair_from: np.ndarray       # (P,) int32: from and to square (for the from+to model)
    pair_to: np.ndarray
    offsets: np.ndarray         # (N + 1,) pairs of position i: offsets[i]:offsets[i + 1]
    label: np.ndarray           # (N,) index into pairs of the move played
    ply: np.ndarray
    weight: np.ndarray | None = None    # (N,) float32: each position's share of the loss (None: 1)

    def __len__(self) -> int:
        return len(self.label)

    def slice(self, start: int, stop: int) -> "Encoded":
        a, b = self.offsets[start], self.offsets[stop]
        return Encoded(self.inputs[start:stop], self.values[start:stop],
                       self.pair_pos[a:b] - start, self.pair_out[a:b], self.pair_from[a:b],
                       self.pair_to[a:b], self.offsets[start:stop + 1] - a, self.label[start:stop] - a,
                       self.ply[start:stop], None if self.weight is None else self.weight[start:stop])


def encode(patterns: PatternSet, encoding: str, weight: np.ndarray | None = None) -> Encoded:
    """Encode a set; moves sharing an output (promotions) become one pair.
    ``weight``: per position, scaled here to a mean of 1."""
    inputs, values = encode_inputs(patterns, encoding)
    outs = encode_outputs(patterns, encoding).astype(np.int64)
    pos = np.repeat(np.arange(len(patterns), dtype=np.int64), patterns.n_moves)
    label_out = outs[patterns.offsets[:-1] + patterns.played]
    keys, first = np.unique(pos * 2048 + outs, return_index=True)
    pair_pos = (keys // 2048).astype(np.int32)
    pair_out = (keys % 2048).astype(np.int32)
    offsets = np.searchsorted(pair_pos, np.arange(len(patterns) + 1)).astype(np.int64)
    label = np.searchsorted(keys, np.arange(len(patterns)) * 2048 + label_out)
    frm = patterns.legal[first, 0].astype(np.int32)
    to = patterns.legal[first, 1].astype(np.int32)
    if encoding in MIRRORED:
        flip = 56 * patterns.stm[pair_pos].astype(np.int32)
        frm, to = frm ^ flip, to ^ flip
    if weight is not None:
        weight = (weight / weight.mean()).astype(np.float32)
    return Encoded(inputs, values, pair_pos, pair_out, frm, to, offsets, label, patterns.ply.copy(), weight)


# --- models ------------------------------------------------------------------

class LinearMoveMap:
    """score(position, move) = b[o] + sum of W[o, i] over the active inputs i.

    ``outputs="fromto"``: o is the move's from-to pair (1,792 outputs, the one
    the search uses). ``outputs="from+to"``: 128 outputs, and a move scores
    the sum of its from square's and its to square's outputs.
    """

    def __init__(self, n_inputs: int, outputs: str = "fromto") -> None:
        self.n_inputs = n_inputs
        self.outputs = outputs
        n_out = N_OUTPUTS if outputs == "fromto" else 128
        self.params = {"W": np.zeros((n_out, n_inputs + 1), np.float32),   # last column: padding
                       "b": np.zeros(n_out, np.float32)}

    def _rows(self, data: Encoded) -> list[np.ndarray]:
        if self.outputs == "fromto":
            return [data.pair_out]
        return [data.pair_from, 64 + data.pair_to]

    def forward(self, data: Encoded) -> tuple[np.ndarray, object]:
        W, b = self.params["W"], self.params["b"]
        stride = W.shape[1]
        act = data.inputs[data.pair_pos]
        vals = data.values[data.pair_pos]
        flat = W.reshape(-1)
        scores = np.zeros(len(data.pair_pos), np.float32)
        cache = []
        for rows in self._rows(data):
            idx = rows[:, None] * stride + act
            scores += (flat[idx] * vals).sum(axis=1) + b[rows]
            cache.append((idx, rows))
        return scores, (cache, vals)

    def backward(self, grad: np.ndarray, cache: object) -> dict[str, np.ndarray]:
        (parts, vals) = cache
        W = self.params["W"]
        gW = np.zeros(W.size, np.float64)
        gb = np.zeros(W.shape[0], np.float64)
        weights = (grad[:, None] * vals).ravel()
        for idx, rows in parts:
            gW += np.bincount(idx.ravel(), weights=weights, minlength=W.size)
            gb += np.bincount(rows, weights=grad, minlength=W.shape[0])
        gW = gW.reshape(W.shape)
        gW[:, -1] = 0.0                     # the padding column stays zero
        return {"W": gW, "b": gb}


class HiddenMoveMap:
    """One hidden layer, activation x / (1 + |x|), then a linear output per from-to pair."""

    def __init__(self, n_inputs: int, hidden: int = 64, seed: int = 1) -> None:
        rng = np.random.default_rng(seed)
        self.n_inputs = n_inputs
        self.params = {"W1": (rng.standard_normal((n_inputs + 1, hidden)) * 0.1).astype(np.float32),
                       "b1": np.zeros(hidden, np.float32),
                       "W2": (rng.standard_normal((N_OUTPUTS, hidden)) * 0.1).astype(np.float32),
                       "b2": np.zeros(N_OUTPUTS, np.float32)}
        self.params["W1"][-1] = 0.0

    def forward(self, data: Encoded) -> tuple[np.ndarray, object]:
        p = self.params
        pre = (p["W1"][data.inputs] * data.values[:, :, None]).sum(axis=1) + p["b1"]    # (N, H)
        h = pre / (1 + np.abs(pre))
        hp = h[data.pair_pos]
        scores = (p["W2"][data.pair_out] * hp).sum(axis=1) + p["b2"][data.pair_out]
        return scores.astype(np.float32), (data, pre, h, hp)

    def backward(self, grad: np.ndarray, cache: object) -> dict[str, np.ndarray]:
        data, pre, h, hp = cache
        p = self.params
        gW2 = scatter_rows(data.pair_out, grad[:, None] * hp, N_OUTPUTS)
        gb2 = np.bincount(data.pair_out, weights=grad, minlength=N_OUTPUTS)
        gh = scatter_rows(data.pair_pos, grad[:, None] * p["W2"][data.pair_out], len(h))
        gpre = gh / (1 + np.abs(pre)) ** 2
        flat = (gpre[:, None, :] * data.values[:, :, None]).reshape(-1, gpre.shape[1])
        gW1 = scatter_rows(data.inputs.ravel(), flat, p["W1"].shape[0])
        gW1[-1] = 0.0
        return {"W1": gW1, "b1": gpre.sum(axis=0), "W2": gW2, "b2": gb2}


def scatter_rows(index: np.ndarray, rows: np.ndarray, n: int) -> np.ndarray:
    """out[index[k]] += rows[k], one column at a time (bincount is far faster than add.at)."""
    out = np.empty((n, rows.shape[1]))
    for j in range(rows.shape[1]):
        out[:, j] = np.bincount(index, weights=rows[:, j], minlength=n)
    return out


# --- losses and measures -------------------------------------------------------

def segment_max(x: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    return np.maximum.reduceat(x, offsets[:-1])


def loss_and_grad(scores: np.ndarray, data: Encoded, loss: str) -> tuple[float, np.ndarray]:
    """Summed loss over the positions (each times its weight), and d loss / d score per pair."""
    target = np.zeros_like(scores)
    target[data.label] = 1.0
    w = data.weight
    if loss == "mse":
        err = scores - target
        if w is None:
            return float((err ** 2).sum()), 2 * err
        wp = w[data.pair_pos]
        return float((wp * err ** 2).sum()), 2 * wp * err
    seg = data.pair_pos
    shifted = scores - segment_max(scores, data.offsets)[seg]
    e = np.exp(shifted)
    total = np.add.reduceat(e, data.offsets[:-1])
    prob = e / total[seg]
    nll = -np.log(np.maximum(prob[data.label], 1e-12))
    if w is None:
        return float(nll.sum()), prob - target
    return float((w * nll).sum()), (prob - target) * w[seg]


def ranks(scores: np.ndarray, data: Encoded) -> np.ndarray:
    """How many other legal moves score at least as high as the move played
    (0: predicted first). Ties count against the net, so that an untrained
    net of zeros predicts nothing."""
    at_least = scores >= scores[data.label][data.pair_pos]
    return np.add.reduceat(at_least.astype(np.int32), data.offsets[:-1]) - 1


def chunks(data: Encoded, size: int):
    for start in range(0, len(data), size):
        yield data.slice(start, min(start + size, len(data)))


def evaluate(model, data: Encoded, chunk: int = 20_000) -> np.ndarray:
    """The rank of the move played, per position."""
    return np.concatenate([ranks(model.forward(part)[0], part) for part in chunks(data, chunk)])


def score_stats(model, data: Encoded, chunk: int = 20_000) -> tuple[float, float]:
    """Mean and standard deviation of the scores of all legal moves."""
    total = sq = n = 0.0
    for part in chunks(data, chunk):
        s = model.forward(part)[0].astype(np.float64)
        total += s.sum()
        sq += (s * s).sum()
        n += len(s)
    mean = total / n
    return mean, math.sqrt(max(sq / n - mean * mean, 0.0))


# --- optimisers ------------------------------------------------------------------

class Rprop:
    """iRprop-: per-weight steps that grow while the gradient keeps its sign."""

    def __init__(self, params: dict, step: float = 0.001, up: float = 1.2, down: float = 0.5,
                 step_min: float = 1e-7, step_max: float = 1.0) -> None:
        self.step = {k: np.full(v.shape, step, np.float32) for k, v in params.items()}
        self.prev = {k: np.zeros(v.shape, np.float32) for k, v in params.items()}
        self.up, self.down, self.step_min, self.step_max = up, down, step_min, step_max

    def update(self, params: dict, grads: dict) -> None:
        for k, g in grads.items():
            g = g.astype(np.float32)
            same = g * self.prev[k]
            step = self.step[k]
            step[same > 0] = np.minimum(step[same > 0] * self.up, self.step_max)
            step[same < 0] = np.maximum(step[same < 0] * self.down, self.step_min)
            g[same < 0] = 0.0
            params[k] -= np.sign(g) * step
            self.prev[k] = g


class Adam:
    def __init__(self, params: dict, lr: float = 0.001, b1: float = 0.9, b2: float = 0.999) -> None:
        self.m = {k: np.zeros(v.shape, np.float32) for k, v in params.items()}
        self.v = {k: np.zeros(v.shape, np.float32) for k, v in params.items()}
        self.lr, self.b1, self.b2, self.t = lr, b1, b2, 0

    def update(self, params: dict, grads: dict) -> None:
        self.t += 1
        for k, g in grads.items():
            g = g.astype(np.float32)
            self.m[k] = self.b1 * self.m[k] + (1 - self.b1) * g
            self.v[k] = self.b2 * self.v[k] + (1 - self.b2) * g * g
            m_hat = self.m[k] / (1 - self.b1 ** self.t)
            v_hat = self.v[k] / (1 - self.b2 ** self.t)
            params[k] -= self.lr * m_hat / (np.sqrt(v_hat) + 1e-8)


# --- the loop --------------------------------------------------------------------

@dataclass
class TrainConfig:
    encoding: str = "context960"
    loss: str = "softmax"               # or "mse" (the paper's)
    optimiser: str = "adam"             # or "rprop" (full batch, the paper's)
    model: str = "linear"               # or "hidden"
    outputs: str = "fromto"             # or "from+to" (linear only)
    hidden: int = 64
    epochs: int = 10
    patience: int = 3                   # epochs without a better validation error
    batch: int = 2048                   # positions per Adam step
    lr: float = 0.001
    lr_decay: float = 1.0               # Adam's step size is multiplied by this after each epoch
    seed: int = 1
    chunk: int = 20_000                 # positions per vectorised block (memory)


@dataclass
class TrainResult:
    model: object
    history: list[dict] = field(default_factory=list)
    best_epoch: int = 0
    val_top1: float = 0.0


def make_model(config: TrainConfig, n_inputs: int):
    if config.model == "hidden":
        return HiddenMoveMap(n_inputs, config.hidden, config.seed)
    return LinearMoveMap(n_inputs, config.outputs)


def train(learn: Encoded, val: Encoded, config: TrainConfig,
          log: Callable[[str], None] = print) -> TrainResult:
    """Train until the validation top-1 error stops improving; keep the best weights."""
    rng = np.random.default_rng(config.seed)
    model = make_model(config, ENCODINGS[config.encoding])
    if config.optimiser == "rprop":
        optimiser = Rprop(model.params)
    else:
        optimiser = Adam(model.params, config.lr)
    result = TrainResult(model)
    best = {k: v.copy() for k, v in model.params.items()}
    best_err, stale = 1.0, 0
    for epoch in range(1, config.epochs + 1):
        start = time.perf_counter()
        total_loss = 0.0
        if config.optimiser == "rprop":
            grads = None
            for part in chunks(learn, config.chunk):
                scores, cache = model.forward(part)
                value, g = loss_and_grad(scores, part, config.loss)
                total_loss += value
                part_grads = model.backward(g, cache)
                grads = part_grads if grads is None else {k: grads[k] + part_grads[k] for k in grads}
            optimiser.update(model.params, grads)
        else:
            order = rng.permutation(len(learn) // config.batch)
            for b in order:
                part = learn.slice(b * config.batch, (b + 1) * config.batch)
                scores, cache = model.forward(part)
                value, g = loss_and_grad(scores, part, config.loss)
                total_loss += value
                optimiser.update(model.params, model.backward(g / config.batch, cache))
        if config.optimiser == "adam":
            # A smaller step late lets the weights settle instead of wandering in the batches' noise.
            optimiser.lr *= config.lr_decay
        val_rank = evaluate(model, val, config.chunk)
        err = float((val_rank > 0).mean())
        entry = {"epoch": epoch, "loss": total_loss / len(learn), "val_top1": 1 - err,
                 "val_top5": float((val_rank < 5).mean()), "seconds": time.perf_counter() - start}
        result.history.append(entry)
        log(f"epoch {epoch}: loss {entry['loss']:.4f}, validation top-1 {entry['val_top1']:.4f} "
            f"top-5 {entry['val_top5']:.4f} ({entry['seconds']:.0f} s)")
        if err < best_err:
            best_err, stale, result.best_epoch = err, 0, epoch
            best = {k: v.copy() for k, v in model.params.items()}
        else:
            stale += 1
            if stale >= config.patience:
                break
    model.params = best
    result.val_top1 = 1 - best_err
    return result
