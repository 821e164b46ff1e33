"""TD(lambda) for an evaluation net: the net, the lambda-returns, the update.

The net is the thesis's (Mannen, Table 6.1): one hidden layer with the
activation x / (1 + |x|), a linear output, bias units. It predicts the
expected result of the game, from -1 (loss) to 1 (win).

Offline TD(lambda), as the thesis trains: after a game, every position's
target is its lambda-return, worked backwards from the result,

    G_T = r,    G_t = (1 - lambda) * V(s_{t+1}) + lambda * G_{t+1},

and the net takes a gradient step toward the targets. Many games at once are
one step here (a block of games, their targets from the same weights), which
is what makes it fast in numpy; the per-game learner is the block of one.

>>> lambda_returns(np.array([[0.0, 0.5, 0.2]]), np.array([3]), np.array([1.0]), lam=0.5).round(3)
array([[0.55, 0.6 , 1.  ]])
>>> through = np.array([[False, True, False]])      # the middle position's value is not used
>>> lambda_returns(np.array([[0.0, 0.5, 0.2]]), np.array([3]), np.array([1.0]), 0.5, through).round(3)
array([[0.6, 0.6, 1. ]])
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def soft_sign(z: np.ndarray) -> np.ndarray:
    return z / (1.0 + np.abs(z))


@dataclass
class Mlp:
    """inputs -> hidden (x/(1+|x|)) -> 1 linear output; or no hidden layer (hidden=0)."""
    w1: np.ndarray          # (inputs, hidden)
    b1: np.ndarray          # (hidden,)
    w2: np.ndarray          # (hidden,) or (inputs,) for the linear net
    b2: np.ndarray          # (1,)

    @classmethod
    def create(cls, inputs: int, hidden: int, seed: int, scale: float = 0.1) -> "Mlp":
        rng = np.random.default_rng(seed)
        if hidden == 0:
            return cls(np.zeros((inputs, 0), np.float32), np.zeros(0, np.float32),
                       np.zeros(inputs, np.float32), np.zeros(1, np.float32))
        return cls((rng.standard_normal((inputs, hidden)) * scale / np.sqrt(inputs)).astype(np.float32),
                   np.zeros(hidden, np.float32),
                   (rng.standard_normal(hidden) * scale / np.sqrt(hidden)).astype(np.float32),
                   np.zeros(1, np.float32))

    @property
    def hidden(self) -> int:
        return self.b1.shape[0]

    def params(self) -> dict[str, np.ndarray]:
        return {"w1": self.w1, "b1": self.b1, "w2": self.w2, "b2": self.b2}

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, tuple]:
        if self.hidden == 0:
            return x @ self.w2 + self.b2[0], (x, None)
        z = x @ self.w1 + self.b1
        a = soft_sign(z)
        return a @ self.w2 + self.b2[0], (x, z)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return self.forward(x)[0]

    def gradients(self, cache: tuple, dy: np.ndarray) -> dict[str, np.ndarray]:
        """Gradients of sum(dy * y) for the batch ``cache`` came from."""
        x, z = cache
        if z is None:
            return {"w1": self.w1 * 0, "b1": self.b1 * 0, "w2": x.T @ dy,
                    "b2": np.array([dy.sum()], np.float32)}
        a = soft_sign(z)
        dz = np.outer(dy, self.w2) / (1.0 + np.abs(z)) ** 2
        return {"w1": x.T @ dz, "b1": dz.sum(0), "w2": a.T @ dy, "b2": np.array([dy.sum()], np.float32)}


class Sgd:
    """Plain gradient descent on the summed squared error (the thesis's rule)."""

    def __init__(self, lr: float) -> None:
        self.lr = lr

    def step(self, params: dict, grads: dict) -> None:
        for k, g in grads.items():
            params[k] -= (self.lr * g).astype(np.float32)


class Adam:
    """Adam on the mean squared error of a block (steadier with big blocks)."""

    def __init__(self, params: dict, lr: float, b1: float = 0.9, b2: float = 0.999) -> None:
        self.lr, self.b1, self.b2, self.t = lr, b1, b2, 0
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}

    def step(self, params: dict, grads: dict) -> None:
        self.t += 1
        for k, g in grads.items():
            self.m[k] = self.b1 * self.m[k] + (1 - self.b1) * g
            self.v[k] = self.b2 * self.v[k] + (1 - self.b2) * g * g
            mh = self.m[k] / (1 - self.b1 ** self.t)
            vh = self.v[k] / (1 - self.b2 ** self.t)
            params[k] -= (self.lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)

    def state(self) -> dict:
        return {"t": self.t, **{f"m_{k}": v for k, v in self.m.items()},
                **{f"v_{k}": v for k, v in self.v.items()}}

    def load(self, state: dict) -> None:
        self.t = int(state["t"])
        for k in self.m:
            self.m[k] = state[f"m_{k}"]
            self.v[k] = state[f"v_{k}"]


def lambda_returns(values: np.ndarray, lengths: np.ndarray, results: np.ndarray,
                   lam: float, through: np.ndarray | None = None) -> np.ndarray:
    """TD(lambda) targets for a block of games, all from one player's view.

    ``values`` (games, plies): the net's value of each position (padding past a
    game's length is ignored); ``results``: each game's result. The position
    after the last move is scored by the result itself. Where ``through`` is
    set (a position in the middle of an exchange, say) the position's own
    value is not trusted: the return passes through it unchanged.
    """
    games, width = values.shape
    targets = np.zeros_like(values)
    g = results.astype(values.dtype).copy()         # G_{t+1}, starting past the end
    nxt = g.copy()                                   # V(s_{t+1}), the result past the end
    for t in range(width - 1, -1, -1):
        live = t < lengths
        last = t == lengths - 1
        g_t = np.where(last, results, (1 - lam) * nxt + lam * g)
        targets[:, t] = np.where(live, g_t, 0)
        g = np.where(live, g_t, g)
        own = values[:, t] if through is None else np.where(through[:, t], g_t, values[:, t])
        nxt = np.where(live, own, nxt)
    return targets


def td_errors(model, x, sign: np.ndarray, game_of: np.ndarray, ply: np.ndarray, lengths: np.ndarray,
              results: np.ndarray, lam: float, trusted: np.ndarray | None = None) -> tuple[object, np.ndarray]:
    """Forward a block of games; (the model's cache, output minus TD(lambda) target).

    ``x`` holds every position of the block (whatever ``model.forward``
    takes); ``sign`` is +1 where the net's side to move is the player the
    results are given for, -1 otherwise; ``game_of`` and ``ply`` place each
    position in its game. Positions not ``trusted`` get no error and their
    value passes the return through (see lambda_returns).
    """
    y, cache = model.forward(x)
    values = np.zeros((len(lengths), int(lengths.max())), np.float32)
    values[game_of, ply] = y * sign
    through = None
    if trusted is not None:
        through = np.zeros(values.shape, bool)
        through[game_of, ply] = ~trusted
    err = y - lambda_returns(values, lengths, results, lam, through)[game_of, ply] * sign
    if trusted is not None:
        err = np.where(trusted, err, 0)
    return cache, err.astype(np.float32)


def td_block(net: Mlp, optimiser, x: np.ndarray, sign: np.ndarray, game_of: np.ndarray,
             ply: np.ndarray, lengths: np.ndarray, results: np.ndarray, lam: float) -> float:
    """One TD(lambda) step on a block of games; returns the mean squared TD error."""
    cache, err = td_errors(net, x, sign, game_of, ply, lengths, results, lam)
    grads = net.gradients(cache, err if isinstance(optimiser, Sgd) else err / len(err))
    optimiser.step(net.params(), grads)
    return float(np.mean(err ** 2))


def fit_log_scale(loss, low: float = 20.0, high: float = 3000.0) -> float:
    """The scale K in [low, high] that minimises ``loss(log K)``: a
    golden-section search on log K (60 steps), for the logistic scales that
    turn centipawns into expected results (the TD net's, the NNUE's).

    >>> round(fit_log_scale(lambda log_k: (log_k - np.log(160.0)) ** 2))
    160
    """
    lo, hi = np.log(low), np.log(high)
    for _ in range(60):
        a, b = lo + 0.382 * (hi - lo), lo + 0.618 * (hi - lo)
        if loss(a) < loss(b):
            hi = b
        else:
            lo = a
    return float(np.exp((lo + hi) / 2))
