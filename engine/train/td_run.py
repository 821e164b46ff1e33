"""``nmm-chess train td``: the TD-trained evaluation, from master games to a net file.

The steps, each stated in the net's header:

1. The centipawn scale: a logistic fit of the game result against the
   handwritten evaluation, result ~ tanh(cp / (2 K)); the net's output y is
   turned back into centipawns as 2 K atanh(y), so that `score cp` and the
   search's margins mean what they mean with the handwritten evaluation.
2. A start: the net is fitted to the handwritten evaluation's expected result
   (``--init hand``), or left random (``--init random``), the lesson that a
   random start can let TD collapse to a constant being one to measure.
3. Offline TD(lambda) on the games (engine/train/td.py), a block of games a
   step, Adam or the thesis's plain gradient descent, the learning rate
   falling linearly to a tenth. Only quiet positions (no check, no capture
   that wins material) are learnt from; and beside each step the net is held
   to the handwritten evaluation on a few positions with a piece taken off
   (``--anchor``). Both were found necessary, not assumed: trained on every
   position of master games, where a material imbalance is nearly always
   undone by the next move, the net valued a queen at 12 centipawns and a
   depth-12 bench took 85 times the nodes; on quiet positions alone, still
   at 30 (the opening net had never seen a queen missing).

Phase nets: three nets, for the opening, middle game and end game, blended by
``phase_weights`` (engine/nets.py: the engine blends by it), or one net. The opening is
told by development (men on their starting squares), not by the move number:
an EPD or a GUI's FEN may give move 1 to any position (``--phase move`` keeps
the earlier rule).

Progress is a tqdm bar; a checkpoint is written every few hundred steps and a
killed run started again with the same arguments resumes from it; the
learning curve (TD error and the validation loss: squared error of the
predicted result on held-back games, beside the handwritten evaluation's) is
written as CSV and PNG.
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from engine.data.td import LAYOUT, home_of_active, load, to_set
from engine.nets import TD_DENSE, TD_SQUARES, rule_weights
from engine.train.td import Adam, Mlp, Sgd, fit_log_scale, td_errors

# The phase rules are the engine's, which blends its nets by them: engine/nets.py.
N_DENSE, SQUARES = TD_DENSE, TD_SQUARES


@dataclass
class TdConfig:
    squares: str = "B"              # feature set: A, B (kings and pawns) or C (all pieces)
    nets: int = 3                   # 3 phase nets or 1
    hidden: int = 60                # 0: the linear net
    lam: float = 0.9
    lr: float = 0.001
    optimiser: str = "adam"         # adam (block mean) or sgd (the thesis's rule, summed)
    games_per_step: int = 16
    epochs: int = 2
    init: str = "hand"              # hand: fitted to the handwritten evaluation first; random
    init_steps: int = 2000
    anchor: int = 256               # material variants fitted beside each TD step (0: none)
    games: int = 0                  # training games used (0: all)
    seed: int = 1
    base: str = "none"              # handwritten: learn a correction to the handwritten evaluation
    phase: str = "development"      # the opening told by development, or "move" (the move number)


class PhaseNets:
    """One Mlp per phase, their outputs blended by phase_weights."""

    def __init__(self, nets: list[Mlp]) -> None:
        self.nets = nets

    def params(self) -> dict[str, np.ndarray]:
        return {f"{i}.{k}": v for i, net in enumerate(self.nets) for k, v in net.params().items()}

    def forward(self, batch: tuple) -> tuple[np.ndarray, list]:
        x, w = batch[0], batch[1]          # (inputs, phase weights, handwritten cp: not used here)
        y = np.zeros(len(x), np.float32)
        caches = []
        for i, net in enumerate(self.nets):
            rows = np.flatnonzero(w[:, i] > 0)
            if len(rows) == 0:
                caches.append(None)
                continue
            out, cache = net.forward(x[rows])
            y[rows] += w[rows, i] * out
            caches.append((rows, cache))
        return y, (w, caches)

    def __call__(self, batch) -> np.ndarray:
        return self.forward(batch)[0]

    def gradients(self, cache, dy: np.ndarray) -> dict[str, np.ndarray]:
        w, caches = cache
        grads = {}
        for i, (net, c) in enumerate(zip(self.nets, caches)):
            if c is None:
                g = {k: np.zeros_like(v) for k, v in net.params().items()}
            else:
                rows, inner = c
                g = net.gradients(inner, dy[rows] * w[rows, i])
            grads.update({f"{i}.{k}": v for k, v in g.items()})
        return grads


class OnHandwritten:
    """Phase nets that learn a correction to the handwritten evaluation: the
    value is tanh(hand / 2K + net output), so that a net of zeros is the
    handwritten evaluation and the core scores hand + 2K * output (cp)."""

    def __init__(self, inner: PhaseNets, cp_scale: float) -> None:
        self.inner, self.cp_scale = inner, cp_scale

    @property
    def nets(self) -> list[Mlp]:
        return self.inner.nets

    def params(self) -> dict[str, np.ndarray]:
        return self.inner.params()

    def forward(self, batch: tuple) -> tuple[np.ndarray, tuple]:
        out, cache = self.inner.forward(batch)
        value = np.tanh(batch[2] / (2 * self.cp_scale) + out).astype(np.float32)
        return value, (cache, value)

    def __call__(self, batch) -> np.ndarray:
        return self.forward(batch)[0]

    def gradients(self, cache, dy: np.ndarray) -> dict[str, np.ndarray]:
        inner, value = cache
        return self.inner.gradients(inner, dy * (1 - value * value))


Model = PhaseNets | OnHandwritten


def make_model(config_hidden: int, n_inputs: int, nets: int, seed: int, on_handwritten: bool,
               cp_scale: float):
    """Fresh phase nets; on the handwritten evaluation, with zero output weights (a zero correction)."""
    model = PhaseNets([Mlp.create(n_inputs, config_hidden, seed + i, scale=1.0) for i in range(nets)])
    if not on_handwritten:
        return model
    for net in model.nets:
        net.w2[...] = 0
    return OnHandwritten(model, cp_scale)


class Games:
    """The training data, with the inputs of one feature set built on demand."""

    def __init__(self, arrays: dict[str, np.ndarray], squares: str, nets: int, phase: str = "development") -> None:
        self.a = arrays
        self.squares = squares
        self.n_inputs = N_DENSE + SQUARES[squares]
        self.offsets = arrays["offsets"]
        self.mean = arrays["dense"].mean(0).astype(np.float32)
        self.std = np.maximum(arrays["dense"].std(0), 1e-3).astype(np.float32)
        self.phase_rule = phase
        self.weights = rule_weights(phase, arrays["phase"], nets, home_of_active(arrays["active"]),
                                    arrays["ply"] // 2 + 1)
        self.sign = np.where(arrays["stm"] == 0, 1.0, -1.0).astype(np.float32)
        self.quiet = arrays["quiet"].astype(bool)
        self.x_weights = rule_weights(phase, arrays["x_phase"], nets, home_of_active(arrays["x_active"]),
                                      arrays["x_fullmove"])

    def rows_of(self, games: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rows, game index within the list, ply) of every position of ``games``."""
        starts, ends = self.offsets[games], self.offsets[games + 1]
        lengths = ends - starts
        game_of = np.repeat(np.arange(len(games)), lengths)
        ply = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        return starts[game_of] + ply, game_of, ply

    def inputs(self, rows: np.ndarray, variants: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Net inputs, phase weights and handwritten scores of game positions (or of material variants)."""
        prefix = "x_" if variants else ""
        active = to_set(self.a[prefix + "active"][rows], self.squares)
        return (net_inputs(self.a[prefix + "dense"][rows], active, self.mean, self.std, self.n_inputs),
                (self.x_weights if variants else self.weights)[rows],
                self.a[prefix + "hand"][rows].astype(np.float32))


def net_inputs(dense: np.ndarray, active: np.ndarray, mean: np.ndarray, std: np.ndarray,
               n_inputs: int) -> np.ndarray:
    """(n, n_inputs) float32: set A's numbers normalised, then the square inputs
    (``active``: their indices, -1 pads) as ones."""
    x = np.zeros((len(dense), n_inputs), np.float32)
    x[:, :N_DENSE] = (dense - mean) / std
    if n_inputs > N_DENSE:
        r, c = np.nonzero(active >= 0)
        x[r, N_DENSE + active[r, c]] = 1.0
    return x


def fit_cp_scale(hand: np.ndarray, result_stm: np.ndarray) -> float:
    """K minimising the squared error of tanh(hand / 2K) against the result."""
    return fit_log_scale(lambda log_k: float(np.mean((np.tanh(hand / (2 * np.exp(log_k))) - result_stm) ** 2)))


def validation_set(data: Games) -> tuple[np.ndarray, np.ndarray]:
    """(rows, result from the side to move's view) of the held-back games' quiet positions."""
    val_games = np.flatnonzero(data.a["val"])
    rows = data.rows_of(val_games)[0]
    target = (data.a["result"][np.repeat(val_games, np.diff(data.offsets)[val_games])]
              * data.sign[rows]).astype(np.float32)
    return rows[data.quiet[rows]], target[data.quiet[rows]]


def validation(model: Model, data: Games, rows: np.ndarray, target: np.ndarray) -> float:
    """Mean squared error of the predicted result on the held-back games."""
    err = 0.0
    for i in range(0, len(rows), 50_000):
        y = model(data.inputs(rows[i:i + 50_000]))
        err += float(((y - target[i:i + 50_000]) ** 2).sum())
    return err / len(rows)


def make_optimiser(config: TdConfig, model: Model):
    return Adam(model.params(), config.lr) if config.optimiser == "adam" else Sgd(config.lr)


def pretrain(model: Model, data: Games, rows: np.ndarray, target: np.ndarray, x_target: np.ndarray,
             config: TdConfig, rng: np.random.Generator, progress=None) -> None:
    """Fit the nets to the handwritten evaluation's expected result, on game
    positions and material variants half and half."""
    opt = Adam(model.params(), 0.003)
    for _ in range(config.init_steps):
        pick = rng.choice(len(rows), 2048)
        y, cache = model.forward(data.inputs(rows[pick]))
        grads = model.gradients(cache, (y - target[pick]) / 4096)
        pick = rng.choice(len(x_target), 2048)
        y, cache = model.forward(data.inputs(pick, variants=True))
        for k, g in model.gradients(cache, (y - x_target[pick]) / 4096).items():
            grads[k] += g
        opt.step(model.params(), grads)
        if progress:
            progress()


def td_step(model: Model, optimiser, data: Games, games: np.ndarray, lam: float,
            anchor: np.ndarray | None = None, anchor_target: np.ndarray | None = None) -> float:
    """One TD(lambda) step on a block of games; the mean squared TD error.

    Only quiet positions are learnt from and bootstrapped on: the value of a
    position in the middle of an exchange is the exchange's outcome, which a
    static evaluation is not asked for (the quiescence search resolves it).
    ``anchor``: material variants fitted to ``anchor_target`` in the same step.
    """
    rows, game_of, ply = data.rows_of(games)
    lengths = data.offsets[games + 1] - data.offsets[games]
    results = data.a["result"][games].astype(np.float32)
    anchor_batch = None if anchor is None else data.inputs(anchor, variants=True)
    return td_update(model, optimiser, data.inputs(rows), data.sign[rows], game_of, ply, lengths, results,
                     lam, data.quiet[rows], anchor_batch, anchor_target)


def td_update(model: Model, optimiser, batch, sign: np.ndarray, game_of: np.ndarray, ply: np.ndarray,
              lengths: np.ndarray, results: np.ndarray, lam: float, trusted: np.ndarray,
              anchor_batch=None, anchor_target: np.ndarray | None = None) -> float:
    """The gradient step of a block of games (see td_errors for the arguments),
    with the material anchor beside it; the mean squared TD error."""
    cache, err = td_errors(model, batch, sign, game_of, ply, lengths, results, lam, trusted=trusted)
    learnt = max(int(trusted.sum()), 1)
    n = learnt + (0 if anchor_target is None else len(anchor_target))
    scale = 1.0 if isinstance(optimiser, Sgd) else 1.0 / n
    grads = model.gradients(cache, err * scale)
    if anchor_batch is not None and len(anchor_target):
        y_x, cache_x = model.forward(anchor_batch)
        for k, g in model.gradients(cache_x, (y_x - anchor_target) * scale).items():
            grads[k] += g
    optimiser.step(model.params(), grads)
    return float(np.sum(err ** 2) / learnt)


def save_checkpoint(path: Path, config, model: Model, optimiser, step: int,
                    history: list, extra: dict) -> None:
    state = {f"p.{k}": v for k, v in model.params().items()}
    if isinstance(optimiser, Adam):
        state.update({f"o.{k}": v for k, v in optimiser.state().items()})
    meta = {"config": asdict(config), "step": step, "history": history, **extra}
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, meta=np.array(json.dumps(meta)), **state)
    tmp.replace(path)                # atomic: a kill never leaves half a checkpoint


def load_checkpoint(path: Path, config, model: Model, optimiser) -> tuple[int, list, dict]:
    with np.load(path, allow_pickle=False) as f:
        meta = json.loads(str(f["meta"]))
        if meta["config"] != asdict(config):
            raise ValueError(f"{path} is a checkpoint of another configuration; "
                             "remove it or give the same arguments")
        params = model.params()
        for k in params:
            params[k][...] = f[f"p.{k}"]
        if isinstance(optimiser, Adam):
            optimiser.load({k[2:]: f[k] for k in f.files if k.startswith("o.")})
    return meta["step"], meta["history"], meta


def plot(history: list[dict], hand_val: float, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    steps = [h["step"] for h in history]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    a.plot(steps, [h["td_error"] for h in history])
    a.set(xlabel="step (block of games)", ylabel="mean squared TD error", title="TD error")
    b.plot(steps, [h["val"] for h in history], label="TD net")
    b.axhline(hand_val, color="grey", ls="--", label="handwritten (fitted scale)")
    b.set(xlabel="step", ylabel="squared error of the result", title="validation games")
    b.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# Odds positions: what a piece is worth to the net, in centipawns (White to move, move 1 and move 30).
MATERIAL_CHECK = {"queen": "rnb1kbnr", "rook": "rnbqkbn1", "knight": "r1bqkbnr", "pawn": "rnbqkbnr"}


def material_check(net) -> dict[str, list[int]]:
    """The net's score of White a piece up (Black's piece off the start position), at moves 1 and 30."""
    from engine._core import Board, Searcher
    searcher = Searcher(hash_mb=1)      # evaluates only: no search, so no search options
    net.install(searcher)
    out = {}
    for piece, rank8 in MATERIAL_CHECK.items():
        rank7 = "ppppppp1" if piece == "pawn" else "pppppppp"
        out[piece] = [searcher.evaluate(Board(f"{rank8}/{rank7}/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 {move}"))
                      for move in (1, 30)]
    return out


def train(data_path: Path, out: Path, work: Path, config: TdConfig, log=print) -> dict:
    """Train, checkpointing into ``work``; write the net to ``out``; return the summary."""
    from tqdm import tqdm

    from engine.nets import TdNet, handwritten_fingerprint, save_td
    header, arrays = load(data_path)
    data = Games(arrays, config.squares, config.nets, config.phase)
    rng = np.random.default_rng(config.seed)
    val_games = np.flatnonzero(arrays["val"])
    train_games = np.flatnonzero(~arrays["val"])
    if config.games:
        train_games = train_games[:config.games]
    val_rows, val_target = validation_set(data)
    train_rows = data.rows_of(train_games)[0]
    train_rows = train_rows[data.quiet[train_rows]]
    fit_rows = rng.choice(train_rows, min(len(train_rows), 500_000), replace=False)
    fit_result = (arrays["result"][np.searchsorted(arrays["offsets"], fit_rows, side="right") - 1]
                  * data.sign[fit_rows]).astype(np.float32)
    cp_scale = fit_cp_scale(arrays["hand"][fit_rows].astype(np.float32), fit_result)
    hand_val = float(np.mean((np.tanh(arrays["hand"][val_rows] / (2 * cp_scale)) - val_target) ** 2))
    log(f"{len(train_games)} training games ({len(train_rows)} quiet positions), {len(val_games)} validation "
        f"games; cp scale K = {cp_scale:.1f}; handwritten validation loss {hand_val:.4f}")

    x_target = np.tanh(arrays["x_hand"] / (2 * cp_scale)).astype(np.float32)
    if config.base not in ("none", "handwritten"):
        raise ValueError(f"unknown base {config.base!r} (none or handwritten)")
    on_handwritten = config.base == "handwritten"
    fingerprint = handwritten_fingerprint()
    if on_handwritten and header.get("hand_fingerprint") != fingerprint:
        raise ValueError(f"the data's handwritten scores come from weights {header.get('hand_fingerprint')}, "
                         f"the engine's are {fingerprint}: rebuild the data (nmm-chess data td) first")
    model = make_model(config.hidden, data.n_inputs, config.nets, config.seed, on_handwritten, cp_scale)
    optimiser = make_optimiser(config, model)
    work.mkdir(parents=True, exist_ok=True)
    checkpoint = work / "checkpoint.npz"
    steps_per_epoch = -(-len(train_games) // config.games_per_step)
    total = config.epochs * steps_per_epoch
    step, history = 0, []
    if checkpoint.exists():
        step, history, _ = load_checkpoint(checkpoint, config, model, optimiser)
        log(f"resumed from {checkpoint} at step {step} of {total}")
    elif config.init == "hand" and not on_handwritten:       # a zero correction already is the handwritten one
        with tqdm(total=config.init_steps, desc="fit to handwritten", unit="step", disable=None) as bar:
            target = np.tanh(arrays["hand"][train_rows] / (2 * cp_scale)).astype(np.float32)
            pretrain(model, data, train_rows, target, x_target, config, rng, bar.update)
        history.append({"step": 0, "td_error": float("nan"),
                        "val": validation(model, data, val_rows, val_target)})
        log(f"after the fit to the handwritten evaluation: validation loss {history[-1]['val']:.4f}")
    elif on_handwritten:
        history.append({"step": 0, "td_error": float("nan"),
                        "val": validation(model, data, val_rows, val_target)})
        log(f"a zero correction: validation loss {history[-1]['val']:.4f}")

    started = time.time()
    errors: list[float] = []
    every = max(steps_per_epoch // 10, 1)
    with tqdm(total=total, initial=step, desc="TD(lambda)", unit="step", disable=None) as bar:
        while step < total:
            epoch, k = divmod(step, steps_per_epoch)
            order = np.random.default_rng([config.seed, epoch]).permutation(train_games)
            left = 1.0 - step / total
            if isinstance(optimiser, (Adam, Sgd)):
                optimiser.lr = config.lr * (0.1 + 0.9 * left)
            block = order[k * config.games_per_step:(k + 1) * config.games_per_step]
            anchor = (np.random.default_rng([config.seed, step]).choice(len(x_target), config.anchor)
                      if config.anchor else None)
            errors.append(td_step(model, optimiser, data, block, config.lam, anchor,
                                  None if anchor is None else x_target[anchor]))
            step += 1
            bar.update()
            if step % every == 0 or step == total:
                history.append({"step": step, "td_error": float(np.mean(errors)),
                                "val": validation(model, data, val_rows, val_target)})
                errors = []
                bar.set_postfix(val=f"{history[-1]['val']:.4f}")
                save_checkpoint(checkpoint, config, model, optimiser, step, history, {})
    summary = {"config": asdict(config), "layout": LAYOUT, "data": header, "cp_scale": cp_scale,
               "validation_loss": history[-1]["val"], "validation_loss_handwritten": hand_val,
               "train_games": int(len(train_games)), "train_positions": int(len(train_rows)),
               "feature_mean": [round(float(v), 4) for v in data.mean],
               "seconds": round(time.time() - started, 1)}
    net = TdNet.from_training(model.nets, data.mean, data.std, config.squares, cp_scale, summary, on_handwritten,
                              config.phase, fingerprint if on_handwritten else None)
    summary["material_check_cp"] = net.info["material_check_cp"] = material_check(net)
    log(f"a piece up at moves 1 and 30 (cp): {summary['material_check_cp']}")
    save_td(net, out)
    curve = out.with_suffix(".curve.csv")
    curve.write_text("step,td_error,validation_loss\n" + "".join(
        f"{h['step']},{h['td_error']:.6f},{h['val']:.6f}\n" for h in history))
    plot(history, hand_val, out.with_suffix(".curve.png"))
    summary["history"] = history
    return summary
