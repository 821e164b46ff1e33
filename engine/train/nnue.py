"""``nmm-chess train nnue``: the NNUE evaluation (engine/evaluation/nnue.py)
trained by TD(lambda) on the engine's own games (``nmm-chess data selfplay``).

The steps, each stated in the net file's header:

1. **The games.** Every complete batch of the self-play folders is read
   (memory-mapped); a batch holds whole games, their records consecutive.
   Validation games are drawn whole (``val_fraction``, seeded).
2. **The scale K.** The centipawns of one unit of the logistic: K minimising
   the squared error of sigmoid(score / K) against the game's result, over
   the training positions kept by the filters (or given). It becomes the net's
   ``scale``: the engine reads the net's output y as y * K centipawns.
3. **The targets: the lambda-return** over each whole game, before any
   filter: v_t = sigmoid(score_t / K) from the mover's view (a mate 1 or 0),
   z the result for the side to move in the position after the last record,
   G_T = z and G_t = (1 - lambda) v_t + lambda (1 - G_{t+1}). lambda 0 is the
   search's own score, lambda 1 the result.
   With ``teacher`` w > 0 the training targets become (1 - w) G_t +
   w sigmoid(h_t / K), h_t the teacher's static score: the handwritten
   evaluation's, or (``teacher_eval``) a net's, the one that played a later
   generation's games. A first net learns from few games what the written
   evaluation knows, and from the games what the search found beyond it
   (validation stays G_t).
4. **The filters**, then: positions in check, whose move captures or
   promotes, with |score| above the cap (mates too), or before the minimum
   ply, are not trained on (their values still went into their games' targets).
5. **The inputs**: each position's White-view inputs decoded from the record
   (numpy, a batch at a time: 32 int16 slots, -1 pads), its side to move and
   its bucket. Black's view is derived from White's in the loop.
6. **The loop** (ext/nnue_trainer.h through engine.train._nnue_trainer, one
   thread, no GIL): mini-batches of positions shuffled each epoch, the mean
   squared error of sigmoid(y) against the target, the gradient through the
   sparse first layer, AdamW (beta1 0.9, beta2 0.999, decoupled weight decay
   on the two weight arrays), the learning rate falling from ``lr`` to
   ``lr_end`` along a half cosine over all the steps, every weight but the
   output biases clipped to +-CLIP after each step. Float32 throughout.
7. **Checkpoints** after every epoch (weights, Adam's moments, step, epoch,
   the generator's state, the history): ``--resume`` goes on from one, to
   the weights an uninterrupted run gives, bit for bit.
8. **The file**: the weights quantised (``quantise``) and written with
   ``save_nnue``; beside it the learning curve (``.curve.png``) and a summary
   (``.json``).

Deterministic given the seed: the split comes from a generator seeded by
(seed, 1); the initial weights and each epoch's shuffle from one seeded by the
seed, whose state the checkpoint keeps.
"""
from __future__ import annotations

import hashlib
import json
import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from engine.data.selfplay import BLACK, CHECK, MATE_BOUND, NOISY, RESULT_SHIFT, batch_paths, game_starts, read_batch
from engine.evaluation.nnue import BUCKETS, CLIP, INPUTS, QA, QB, feature, load_nnue, quantise, save_nnue
from engine.train.td import fit_log_scale

SLOTS = 32                  # input slots a view: at most 32 men
PAD = -1


@dataclass
class Config:
    lam: float = 0.5
    hidden: int = 256
    epochs: int = 10
    batch: int = 16384
    lr: float = 0.01            # AdamW's step at the start ... (0.01 beat 0.003 and 0.001 on 360,000
    lr_end: float = 1e-4        # ... falling to this along a half cosine      positions, 22 steps an epoch)
    wd: float = 0.01            # decoupled weight decay (the two weight arrays)
    seed: int = 1
    k: float | None = None      # the logistic scale in cp; fitted when None
    score_cap: int = 2000
    min_ply: int = 8
    val_fraction: float = 0.05
    max_positions: int = 0      # positions kept after the filters (0: all)
    mirror: bool = False        # also train on each position mirrored a<->h (see mirrored)
    batches: int = 0            # read at most the first N batches of each folder (0: all complete ones)
    train_positions: int = 0    # at most this many training positions, the first games' (0: all);
                                # the validation games stay those of the whole data (study nnue-scaling)
    every: int = 1              # train on the positions of every N-th ply only: the same games, fewer
                                # positions of each (does the net want more positions, or more games?)
    teacher: float = 0.0        # the teacher's weight in the training targets (see with_teacher) ...
    teacher_eval: str | None = None     # ... the handwritten evaluation, or the net of this file
    calibrate: bool = True      # the net's centipawns on the handwritten evaluation's scale (calibrated_scale)
    init: str | None = None     # start from this trained net's weights (initial_params), not random ones
    own_repeat: int = 1         # each epoch trains on the own games' positions this many times, the --extra
                                # ones once: the engine's games weigh more beside millions of master positions


# --- the inputs -------------------------------------------------------------

def features(records: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(White-view inputs (N, 32) int16 in square order, -1 padded; the side to
    move (N,) uint8, 0 White; the bucket (N,) uint8) of records (RECORD)."""
    n = len(records)
    occupancy = np.ascontiguousarray(records["occupancy"], "<u8")
    bits = np.unpackbits(occupancy.view(np.uint8).reshape(n, 8), axis=1, bitorder="little").astype(bool)
    pieces = np.ascontiguousarray(records["pieces"], np.uint8)
    nibbles = np.empty((n, 2 * pieces.shape[1] if n else 32), np.uint8)
    nibbles[:, 0::2], nibbles[:, 1::2] = pieces & 15, pieces >> 4
    slot = np.cumsum(bits, axis=1, dtype=np.int16) - 1              # each man's place among the occupied
    row, square = np.nonzero(bits)
    slot = slot[row, square]
    if len(slot) and slot.max() >= SLOTS:
        raise ValueError("a record with more than 32 men")
    code = nibbles[row, slot].astype(np.int16)
    if len(code) and code.max() > 11:
        raise ValueError("a record with a piece code above 11")
    white = np.full((n, SLOTS), PAD, np.int16)
    white[row, slot] = feature(0, code // 6, code % 6, square.astype(np.int16))
    men = bits.sum(axis=1)
    bucket = np.minimum(np.maximum(men - 2, 0) // 4, BUCKETS - 1).astype(np.uint8)
    stm = (records["flags"] & BLACK).astype(np.uint8)
    return white, stm, bucket


def other_view(white: np.ndarray) -> np.ndarray:
    """Black's inputs of White's: the colours swap and the board flips, as the loop derives them."""
    return np.where(white >= 0, ((white.astype(np.int32) + 384) % INPUTS) ^ 56, PAD).astype(np.int16)


def keep_mask(records: np.ndarray, score_cap: int, min_ply: int) -> np.ndarray:
    """The positions trained on: not in check, the move neither a capture nor a
    promotion, |score| at most the cap and not a mate, ply at least min_ply."""
    score = np.abs(records["score"].astype(np.int32))
    return (((records["flags"] & (CHECK | NOISY)) == 0) & (score <= score_cap) & (score < MATE_BOUND)
            & (records["ply"] >= min_ply))


# --- the targets ------------------------------------------------------------

def sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * np.asarray(x, np.float64)))     # 1 / (1 + exp(-x)), no overflow


def search_values(score: np.ndarray, k: float) -> np.ndarray:
    """v = sigmoid(score / K) from the mover's view; a mate 1 (won) or 0 (lost)."""
    score = np.asarray(score, np.float64)
    v = sigmoid(score / k)
    v[score >= MATE_BOUND] = 1.0
    v[score <= -MATE_BOUND] = 0.0
    return v


def result_for_mover(flags: np.ndarray) -> np.ndarray:
    """The game's result from the view of each record's side to move: 1 won, 0.5 drawn, 0 lost."""
    white = ((flags >> RESULT_SHIFT) & 3).astype(np.float64) / 2
    return np.where(flags & BLACK, 1.0 - white, white)


def lambda_returns(v: np.ndarray, starts: np.ndarray, ends: np.ndarray, z: np.ndarray, lam: float) -> np.ndarray:
    """G_t for every record: G_T = z (the game's result for the side to move at
    T, the position after its last record), G_t = (1 - lam) v_t + lam (1 - G_{t+1}).
    Games are records starts[g]:ends[g]; vectorised over games, ply by ply back
    from each game's end."""
    g = np.empty(len(v), np.float64)
    lengths = ends - starts
    order = np.argsort(-lengths, kind="stable")             # the longest first: the games alive are a prefix
    ends_sorted, z_sorted, lengths_sorted = ends[order], np.asarray(z, np.float64)[order], lengths[order]
    after = z_sorted.copy()                                  # G of the position after, per game
    for j in range(int(lengths.max(initial=0))):
        alive = int(np.searchsorted(-lengths_sorted, -j, side="left"))    # games longer than j
        t = ends_sorted[:alive] - 1 - j
        after = (1.0 - lam) * v[t] + lam * (1.0 - after[:alive])
        g[t] = after
    return g


def fit_k(score: np.ndarray, result: np.ndarray) -> float:
    """K minimising the mean squared error of sigmoid(score / K) against the
    result (both from the mover's view)."""
    score, result = np.asarray(score, np.float64), np.asarray(result, np.float64)
    return fit_log_scale(lambda log_k: float(np.mean((sigmoid(score / math.exp(log_k)) - result) ** 2)))


# --- the data ---------------------------------------------------------------

@dataclass
class Data:
    """The games of the self-play folders: per record what the targets need
    (score, flags), per game its bounds, and per kept position its inputs."""
    score: np.ndarray           # (R,) int16, every record
    flags: np.ndarray           # (R,) uint8, every record
    starts: np.ndarray          # (G,) each game's first record
    ends: np.ndarray            # (G,) after its last
    kept: np.ndarray            # (N,) int64: the records trained on
    game: np.ndarray            # (N,) int64: their games
    feats: np.ndarray           # (N, 32) int16, White's view
    stm: np.ndarray             # (N,) uint8
    bucket: np.ndarray          # (N,) uint8
    rows: np.ndarray            # (N,) RECORD: the kept records, for the handwritten baseline
    folders: list[dict] = field(default_factory=list)
    signature: str = ""
    own_games: int = 0          # games of the first folders (the --data ones); those after are --extra games,
                                # trained on and never held back for validation

    def targets(self, lam: float, k: float) -> np.ndarray:
        """The lambda-returns of the kept positions (float32)."""
        last = self.ends - 1
        z = 1.0 - result_for_mover(self.flags[last])         # the side to move after the last record
        g = lambda_returns(search_values(self.score, k), self.starts, self.ends, z, lam)
        return g[self.kept].astype(np.float32)

    def results(self) -> np.ndarray:
        """The result for the side to move of each kept position (float32): lambda 1's target."""
        return result_for_mover(self.flags[self.kept]).astype(np.float32)


def load(folders: list[Path], score_cap: int = 2000, min_ply: int = 8, max_positions: int = 0, batches: int = 0,
         log=print, extra: list[Path] = ()) -> Data:
    """Every complete batch of ``folders`` (what batch_paths lists), in order,
    until ``max_positions`` kept positions (0: all), then every batch of the
    ``extra`` folders (records of games played elsewhere: data pgn-records)."""
    parts: dict[str, list] = {k: [] for k in ("score", "flags", "starts", "kept", "game", "feats", "stm", "bucket",
                                              "rows")}
    records_seen = games_seen = kept_seen = 0
    digest = hashlib.sha256()
    info = []
    for number, folder in enumerate([*folders, *extra]):
        is_extra = number >= len(folders)
        if number == len(folders):
            own_games = games_seen
        paths = batch_paths(Path(folder))       # batches: a fixed view of a folder still growing
        paths = paths if is_extra else paths[:batches or None]
        if not paths:
            raise ValueError(f"{folder} holds no self-play batches (batch_*.bin): make them with "
                             "'nmm-chess data selfplay'")
        entry = {"folder": str(folder), "batches": 0, "games": 0, "positions": 0, "kept": 0, "evaluations": []}
        if is_extra:
            entry["extra"] = True
        for path in paths:
            if max_positions and kept_seen >= max_positions and not is_extra:
                break
            header, records = read_batch(path)
            digest.update(f"{'extra:' if is_extra else ''}{Path(folder).name}/{path.name}:".encode())
            digest.update(json.dumps(header, sort_keys=True).encode())
            if not len(records):
                continue
            starts = game_starts(records)
            if starts[0] != 0:
                raise ValueError(f"{path}: its first record does not start a game")
            keep = np.flatnonzero(keep_mask(records, score_cap, min_ply))
            game = np.searchsorted(starts, keep, side="right") - 1
            white, stm, bucket = features(records[keep])
            parts["score"].append(np.asarray(records["score"], np.int16))
            parts["flags"].append(np.asarray(records["flags"], np.uint8))
            parts["starts"].append(starts + records_seen)
            parts["kept"].append(keep + records_seen)
            parts["game"].append(game + games_seen)
            parts["rows"].append(np.array(records[keep]))
            for name, array in (("feats", white), ("stm", stm), ("bucket", bucket)):
                parts[name].append(array)
            records_seen += len(records)
            games_seen += len(starts)
            kept_seen += len(keep)
            entry["batches"] += 1
            entry["games"] += len(starts)
            entry["positions"] += len(records)
            entry["kept"] += len(keep)
            if header.get("evaluation") not in entry["evaluations"]:
                entry["evaluations"].append(header.get("evaluation"))
        info.append(entry)
    if not records_seen:
        raise ValueError("no records in the data folders")
    if not extra:
        own_games = games_seen
    cat = {k: np.concatenate(v) for k, v in parts.items()}
    starts = cat["starts"].astype(np.int64)
    ends = np.append(starts[1:], records_seen)
    n = len(cat["kept"])
    if max_positions and not extra and max_positions < n:
        info[-1]["kept"] -= n - max_positions
        n = max_positions
    data = Data(cat["score"], cat["flags"], starts, ends, cat["kept"][:n].astype(np.int64),
                cat["game"][:n].astype(np.int64), np.ascontiguousarray(cat["feats"][:n]), cat["stm"][:n],
                cat["bucket"][:n], cat["rows"][:n], info, digest.hexdigest()[:16], own_games)
    log(f"data: {records_seen:,} positions of {games_seen:,} games in "
        f"{sum(e['batches'] for e in info)} batches; {n:,} kept by the filters"
        + (f"; {games_seen - own_games:,} of the games are --extra" if extra else ""))
    return data


def mirrored(feats: np.ndarray) -> np.ndarray:
    """The inputs of the positions mirrored left to right (file a <-> h).

    The net sees no castling rights, and chess is the same game mirrored but
    for castling, so a mirrored position is one more training example with the
    same target: twice the positions from the same games, for a net that has
    few. The square is the input's low 6 bits; its file the low 3.

    >>> mirrored(np.array([[0, 7, 392, -1]], np.int16)).tolist()
    [[7, 0, 399, -1]]
    """
    return np.where(feats >= 0, feats ^ 7, feats).astype(feats.dtype)


def handwritten_scores(rows: np.ndarray, eval_file: Path | None = None) -> np.ndarray:
    """The static score (cp, side to move) of each record by the handwritten
    evaluation (the number a net has to beat, on the same positions and
    targets, and the first net's teacher), or by the net of ``eval_file`` (a
    TD net or an NNUE: a later generation's teacher, the evaluation that
    played its games)."""
    from engine._core import Searcher, evaluate_records
    searcher = Searcher(hash_mb=1)
    if eval_file is not None:
        from engine.nets import load_evaluation
        load_evaluation(Path(eval_file)).install(searcher)
    return evaluate_records(searcher, rows).astype(np.float64)


def with_teacher(target: np.ndarray, teacher: np.ndarray, weight: float, positions: np.ndarray) -> np.ndarray:
    """The targets of ``positions`` blended with the teacher's values:
    (1 - weight) G + weight sigmoid(hw / K); the others (the validation
    positions) left the pure lambda-returns, so that losses stay comparable."""
    out = np.array(target, np.float32)
    out[positions] = (1.0 - weight) * target[positions] + weight * teacher[positions]
    return out


def split(data: Data, fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(training positions, validation positions): validation games held back
    whole, drawn from the own games only (the same ones with --extra folders or without)."""
    own = data.own_games
    held = np.zeros(len(data.starts), bool)
    held[np.random.default_rng([seed, 1]).permutation(own)[:int(round(fraction * own))]] = True
    val = held[data.game]
    return np.flatnonzero(~val).astype(np.int64), np.flatnonzero(val).astype(np.int64)


# --- the net and its training ---------------------------------------------------

PARAMS = ("ft_weight", "ft_bias", "out_weight", "out_bias")


def init_params(hidden: int, rng: np.random.Generator) -> list[np.ndarray]:
    """The first weights: the first layer uniform in +-1/sqrt(32) (a view's
    accumulator about 0.6 wide at the start), the output uniform in
    +-1/sqrt(2H), biases 0."""
    if hidden <= 0 or hidden % 8:
        raise ValueError(f"hidden must be a positive multiple of 8, not {hidden}")
    a = 1 / math.sqrt(SLOTS)
    b = 1 / math.sqrt(2 * hidden)
    return [rng.uniform(-a, a, (INPUTS, hidden)).astype(np.float32), np.zeros(hidden, np.float32),
            rng.uniform(-b, b, (BUCKETS, 2 * hidden)).astype(np.float32), np.zeros(BUCKETS, np.float32)]


def initial_params(path: Path, hidden: int) -> list[np.ndarray]:
    """A trained NNUE file's weights as the trainer's floats, the quantisation
    undone: where a next generation starts when it is fine-tuned from its
    predecessor rather than trained from random weights (a net of 128 hidden
    units learns less from one generation's games than its predecessor knew).
    The output stays a logit of the expected result, whatever K each run fits."""
    net = load_nnue(Path(path))
    if net.hidden != hidden:
        raise ValueError(f"{path} has {net.hidden} hidden units, not {hidden}")
    return [np.ascontiguousarray(a / s, np.float32) for a, s in
            ((net.ft_weight, QA), (net.ft_bias, QA), (net.out_weight, QB), (net.out_bias, QA * QB))]


def learning_rates(config: Config, first: int, count: int, total: int) -> np.ndarray:
    """The steps first..first+count of a half cosine from lr to lr_end over total steps."""
    s = np.arange(first, first + count, dtype=np.float64)
    return config.lr_end + 0.5 * (config.lr - config.lr_end) * (1 + np.cos(np.pi * s / max(total, 1)))


def forward(params: list[np.ndarray], feats: np.ndarray, stm: np.ndarray, bucket: np.ndarray) -> np.ndarray:
    """The float output y of the positions (the compiled loop)."""
    from engine.train import _nnue_trainer
    return _nnue_trainer.forward(*params, feats, stm, bucket)


def float_output(params: list[np.ndarray], white: np.ndarray, stm: int, men: int) -> float:
    """y of one position by numpy alone (float64), from its White-view inputs: the tests' second opinion."""
    ft_weight, ft_bias, out_weight, out_bias = (np.asarray(p, np.float64) for p in params)
    rows = np.asarray(white)[np.asarray(white) >= 0].astype(np.int64)
    black = other_view(rows)
    us, them = (rows, black) if stm == 0 else (black, rows)
    b, h = min(max(men - 2, 0) // 4, BUCKETS - 1), ft_bias.shape[0]
    acc_us, acc_them = ft_bias + ft_weight[us].sum(axis=0), ft_bias + ft_weight[them].sum(axis=0)
    return float((np.clip(acc_us, 0, 1) ** 2 * out_weight[b, :h]).sum()
                 + (np.clip(acc_them, 0, 1) ** 2 * out_weight[b, h:]).sum() + out_bias[b])


def calibrated_scale(params: list[np.ndarray], data: Data, positions: np.ndarray, k: float,
                     hand_cp: np.ndarray) -> tuple[float, dict]:
    """The net's centipawns a unit of its output, on the handwritten
    evaluation's scale: K times the ratio of the slopes of the search's score
    regressed on the net's (y K) and on the handwritten evaluation's, over
    ``positions`` (the validation positions, the engine's own games).

    A net trained toward probabilities shrinks its scores toward 0 where it is
    unsure, more than the handwritten evaluation does; the search's pruning
    margins were set (and tuned) on the handwritten evaluation's centipawns,
    and a net whose scores are 10% smaller meets margins 10% wider. Returns
    (scale, the fit)."""
    y = forward(params, data.feats[positions], data.stm[positions], data.bucket[positions]).astype(np.float64)
    searched = data.score[data.kept[positions]].astype(np.float64)
    slope_net = float(np.polyfit(y * k, searched, 1)[0])
    slope_hand = float(np.polyfit(hand_cp.astype(np.float64), searched, 1)[0])
    factor = slope_net / slope_hand
    fit = {"positions": int(len(positions)), "slope_net": round(slope_net, 4),
           "slope_handwritten": round(slope_hand, 4), "factor": round(factor, 4), "used": 0.5 <= factor <= 2}
    return (k * factor if fit["used"] else k), fit      # beyond a factor of 2 the fit says more about the net


def mse(prediction: np.ndarray, target: np.ndarray) -> float:
    return float(np.mean((np.asarray(prediction, np.float64) - target) ** 2)) if len(target) else float("nan")


def save_checkpoint(path: Path, params, moments, squares, meta: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp.npz")
    arrays = {f"{kind}.{name}": a for kind, group in (("p", params), ("m", moments), ("v", squares))
              for name, a in zip(PARAMS, group)}
    np.savez(tmp, meta=np.array(json.dumps(meta)), **arrays)
    tmp.replace(path)


def load_checkpoint(path: Path) -> tuple[list, list, list, dict]:
    with np.load(path, allow_pickle=False) as f:
        meta = json.loads(str(f["meta"]))
        groups = [[np.ascontiguousarray(f[f"{kind}.{name}"], np.float32) for name in PARAMS] for kind in "pmv"]
    return groups[0], groups[1], groups[2], meta


def resumable(config: Config) -> dict:
    """What a checkpoint must agree on to be resumed (everything but the epochs)."""
    return {k: v for k, v in asdict(config).items() if k not in ("epochs", "calibrate")}


@dataclass
class Positions:
    """The rows an epoch steps through (``order``: mirrored copies and repeats
    included), with each row's inputs and target."""
    feats: np.ndarray
    stm: np.ndarray
    bucket: np.ndarray
    target: np.ndarray
    order: np.ndarray


@dataclass
class Validation:
    """The held-back positions, their targets and results, and the losses a
    net has to beat there: the search's own score and the handwritten
    evaluation's, each against the results and the lambda-targets."""
    feats: np.ndarray
    stm: np.ndarray
    bucket: np.ndarray
    target: np.ndarray
    result: np.ndarray
    baseline: dict

    def losses(self, params: list[np.ndarray]) -> tuple[float, float]:
        """The net's loss against the lambda-targets and against the results."""
        p = sigmoid(forward(params, self.feats, self.stm, self.bucket).astype(np.float64))
        return mse(p, self.target), mse(p, self.result)


@dataclass
class Progress:
    """Where a run stands: the weights, Adam's two moments, the step, the epochs done and their history."""
    params: list[np.ndarray]
    moments: list[np.ndarray]
    squares: list[np.ndarray]
    step: int = 0
    epoch: int = 0
    history: list[dict] = field(default_factory=list)


def check_config(config: Config) -> None:
    if not 0 <= config.lam <= 1:
        raise ValueError(f"lambda must be in [0, 1], not {config.lam}")
    if not 0 < config.val_fraction < 1:
        raise ValueError("the validation fraction must be between 0 and 1")
    if config.batch < 1 or config.epochs < 1:
        raise ValueError("batch and epochs must be positive")


def validation_set(data: Data, positions: np.ndarray, target: np.ndarray, result: np.ndarray, k: float,
                   hand: np.ndarray) -> Validation:
    searched = search_values(data.score[data.kept[positions]], k)
    static = hand[positions]
    target, result = target[positions], result[positions]
    baseline = {"result": mse(searched, result), "targets": mse(searched, target),
                "handwritten_result": mse(static, result), "handwritten_targets": mse(static, target)}
    return Validation(data.feats[positions], data.stm[positions], data.bucket[positions], target, result,
                      baseline)


def training_set(data: Data, config: Config, positions: np.ndarray, target: np.ndarray, hand: np.ndarray,
                 k: float, log) -> Positions:
    """The training rows as the options shape them: every ``every``-th ply,
    the first ``train_positions``, the teacher's share in the targets,
    mirrored copies appended, the own games' rows repeated."""
    if config.every > 1:
        positions = positions[data.rows["ply"][positions] % config.every == 0]
    if config.train_positions:
        positions = positions[:config.train_positions]
    if config.teacher:
        teacher = (search_values(handwritten_scores(data.rows, config.teacher_eval), k) if config.teacher_eval
                   else hand)
        target = with_teacher(target, teacher.astype(np.float32), config.teacher, positions)
        log(f"teacher: the training targets are {1 - config.teacher:g} lambda-return + {config.teacher:g} "
            f"sigmoid(score/K) of {config.teacher_eval or 'the handwritten evaluation'}; validation stays the "
            "lambda-returns")
    rows = Positions(data.feats, data.stm, data.bucket, target, positions)
    own = data.game[positions] < data.own_games     # which training rows are the engine's own games
    if config.mirror:           # the copies are appended; validation stays the real positions
        n = len(rows.feats)
        own = np.concatenate([own, own])
        rows = Positions(np.concatenate([rows.feats, mirrored(rows.feats[positions])]),
                         np.concatenate([rows.stm, rows.stm[positions]]),
                         np.concatenate([rows.bucket, rows.bucket[positions]]),
                         np.concatenate([rows.target, rows.target[positions]]),
                         np.concatenate([positions, np.arange(n, n + len(positions), dtype=np.int64)]))
        log(f"mirrored: {len(rows.order):,} training positions")
    if config.own_repeat > 1:   # the own games' rows again, mirrored copies included
        own_rows = rows.order[own]
        rows.order = np.concatenate([rows.order] + [own_rows] * (config.own_repeat - 1))
        log(f"the own games' {len(own_rows):,} training positions {config.own_repeat} times an epoch: "
            f"{len(rows.order):,} in all")
    return rows


def start(config: Config, checkpoint: Path, resume: bool, meta_fixed: dict, rng: np.random.Generator,
          log) -> Progress:
    """The run's first state: the checkpoint's (``resume``, the generator's
    state put back), or fresh weights (random, or ``init``'s)."""
    if resume and checkpoint.exists():
        params, moments, squares, meta = load_checkpoint(checkpoint)
        if meta["config"] != meta_fixed["config"] or meta["data"] != meta_fixed["data"]:
            raise ValueError(f"{checkpoint} is a checkpoint of other settings or data; remove it or give the same "
                             "arguments")
        if params[0].shape[1] != config.hidden:
            raise ValueError(f"{checkpoint} holds a net of {params[0].shape[1]} hidden units")
        rng.bit_generator.state = meta["rng"]
        log(f"resumed from {checkpoint} after epoch {meta['epoch']} (step {meta['step']})")
        return Progress(params, moments, squares, meta["step"], meta["epoch"], meta["history"])
    if resume:
        log(f"no checkpoint at {checkpoint}: starting")
    if config.init:
        params = initial_params(config.init, config.hidden)
        log(f"starting from the weights of {config.init}")
    else:
        params = init_params(config.hidden, rng)
    return Progress(params, [np.zeros_like(p) for p in params], [np.zeros_like(p) for p in params])


def run_epoch(progress: Progress, rows: Positions, validation: Validation, config: Config,
              rng: np.random.Generator, steps_per_epoch: int, total: int) -> dict:
    """One epoch of the compiled loop, then the validation losses: its line of the history."""
    from engine.train import _nnue_trainer
    order = rows.order[rng.permutation(len(rows.order))]
    lrs = learning_rates(config, progress.step, steps_per_epoch, total)
    started = time.perf_counter()
    loss_sum, progress.step = _nnue_trainer.train_epoch(
        progress.params, progress.moments, progress.squares, rows.feats, rows.stm, rows.bucket, rows.target,
        order, config.batch, lrs, progress.step, config.wd, clip=CLIP)
    seconds = time.perf_counter() - started
    progress.epoch += 1
    loss, loss_result = validation.losses(progress.params)
    progress.history.append({"epoch": progress.epoch, "train": loss_sum / len(order), "validation": loss,
                             "validation_result": loss_result, "positions_per_second": len(order) / seconds,
                             "seconds": seconds, "lr_end_of_epoch": float(lrs[-1])})
    return progress.history[-1]


def net_info(config: Config, data: Data, k: float, history: list[dict], baseline: dict, train_positions: int,
             validation_positions: int, command: str) -> dict:
    """The trainer's account of a net, for its file's header."""
    from engine.data.selfplay_games import git_commit
    return {"trainer": "nmm-chess train nnue (TD(lambda))", "command": command, "data": data.folders,
            "lambda": config.lam, "k": k, "epochs": config.epochs, "batch": config.batch, "lr": config.lr,
            "lr_end": config.lr_end, "lr_schedule": "half cosine", "wd": config.wd, "seed": config.seed,
            "mirror": config.mirror, "own_repeat": config.own_repeat, "teacher": config.teacher,
            "teacher_eval": config.teacher_eval and str(config.teacher_eval),
            "init": config.init and {"file": str(config.init), "sha256": load_nnue(Path(config.init)).fingerprint()},
            "filters": {"score_cap": config.score_cap, "min_ply": config.min_ply, "mates": "dropped",
                        "in_check": "dropped", "captures_and_promotions": "dropped"},
            "val_fraction": config.val_fraction, "train_positions": train_positions,
            "validation_positions": validation_positions,
            "validation_loss": [round(h["validation"], 6) for h in history],
            "validation_loss_result": [round(h["validation_result"], 6) for h in history],
            "train_loss": [round(h["train"], 6) for h in history],
            "baseline_validation_loss": {name: round(v, 6) for name, v in baseline.items()},
            "positions_per_second": round(float(np.median([h["positions_per_second"] for h in history]))),
            "commit": git_commit()}


def train(folders: list[Path], out: Path, config: Config, checkpoint: Path | None = None, resume: bool = False,
          log=print, stop_after: int | None = None, command: str = "", extra: list[Path] = ()) -> dict:
    """Train, checkpointing after every epoch; after the last, write the net to
    ``out`` with its curve and summary. ``stop_after``: end this run after that
    many epochs (a later ``resume`` goes on). Returns the summary."""
    check_config(config)
    out = Path(out)
    checkpoint = Path(checkpoint) if checkpoint else out.with_suffix(".ckpt.npz")
    data = load([Path(f) for f in folders], config.score_cap, config.min_ply, config.max_positions,
                config.batches, log, [Path(f) for f in extra])
    train_idx, val_idx = split(data, config.val_fraction, config.seed)
    if not len(train_idx) or not len(val_idx):
        raise ValueError(f"{len(train_idx)} training and {len(val_idx)} validation positions: too few games")
    result = data.results()
    own_train = train_idx[data.game[train_idx] < data.own_games]
    k = config.k or fit_k(data.score[data.kept][own_train], result[own_train])  # the own games' K, --extra or not
    target = data.targets(config.lam, k)
    hand_cp = handwritten_scores(data.rows)
    hand = search_values(hand_cp, k)                                # the baseline, and the first teacher
    validation = validation_set(data, val_idx, target, result, k, hand)
    baseline = validation.baseline
    log(f"{len(train_idx):,} training positions, {len(val_idx):,} validation positions "
        f"({len(np.unique(data.game[val_idx])):,} games); K = {k:.1f} cp"
        f"{' (given)' if config.k else ' (fitted)'}; lambda {config.lam}")
    log(f"baseline, the search's own score sigmoid(score/K) on the validation positions: "
        f"{baseline['result']:.5f} against the result, {baseline['targets']:.5f} against the lambda-targets")
    log(f"baseline, the handwritten evaluation (static, what the net replaces): "
        f"{baseline['handwritten_result']:.5f} against the result, "
        f"{baseline['handwritten_targets']:.5f} against the lambda-targets")

    rows = training_set(data, config, train_idx, target, hand, k, log)
    steps_per_epoch = -(-len(rows.order) // config.batch)
    meta_fixed = {"config": resumable(config), "data": data.signature, "k": k}
    rng = np.random.default_rng(config.seed)
    progress = start(config, checkpoint, resume, meta_fixed, rng, log)
    epochs_now = config.epochs - progress.epoch
    if stop_after is not None:
        epochs_now = min(epochs_now, stop_after)
    for _ in range(epochs_now):
        h = run_epoch(progress, rows, validation, config, rng, steps_per_epoch, config.epochs * steps_per_epoch)
        log(f"epoch {progress.epoch}/{config.epochs}: train {h['train']:.5f}, validation {h['validation']:.5f} "
            f"(against the result {h['validation_result']:.5f}), {h['positions_per_second']:,.0f} positions/s, "
            f"lr {h['lr_end_of_epoch']:.2e}")
        save_checkpoint(checkpoint, progress.params, progress.moments, progress.squares, {
            **meta_fixed, "step": progress.step, "epoch": progress.epoch, "history": progress.history,
            "rng": rng.bit_generator.state})

    history = progress.history
    summary = {"lambda": config.lam, "k": k, "config": asdict(config), "data": data.folders,
               "train_positions": int(len(rows.order)), "validation_positions": int(len(val_idx)),
               "baseline": baseline, "history": history, "epochs_done": progress.epoch,
               "checkpoint": str(checkpoint), "params": progress.params}
    if progress.epoch < config.epochs:
        log(f"stopped after epoch {progress.epoch} of {config.epochs}; --resume goes on from {checkpoint}")
        return summary
    info = net_info(config, data, k, history, baseline, int(len(rows.order)), int(len(val_idx)), command)
    scale, fit = (calibrated_scale(progress.params, data, val_idx, k, hand_cp[val_idx]) if config.calibrate
                  else (k, None))
    info |= {"scale_calibration": fit}
    if fit:
        log(f"scale: {scale:.1f} cp a unit (K times {fit['factor']:.3f}"
            f"{'' if fit['used'] else ', not used: K kept'}): the net's scores on the handwritten "
            "evaluation's scale against the search's")
    net = quantise(*progress.params, scale=scale, info=info)
    save_nnue(net, out)
    plot(history, baseline, config.lam, out.with_suffix(".curve.png"))
    summary |= {"out": str(out), "positions_per_second": info["positions_per_second"],
                "fingerprint": net.fingerprint(), "scale": scale, "scale_calibration": fit}
    out.with_suffix(".json").write_text(json.dumps({k2: v for k2, v in summary.items() if k2 != "params"},
                                                   indent=1))
    log(f"wrote {out} (and {out.with_suffix('.curve.png').name}, {out.with_suffix('.json').name})")
    return summary


def plot(history: list[dict], baseline: dict, lam: float, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    epochs = [h["epoch"] for h in history]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(epochs, [h["train"] for h in history], "o-", label="training (during the epoch)")
    ax.plot(epochs, [h["validation"] for h in history], "o-", label=f"validation, lambda-targets ({lam})")
    ax.plot(epochs, [h["validation_result"] for h in history], "o-", label="validation, against the result")
    ax.axhline(baseline["targets"], color="grey", ls=":", label="search's score, lambda-targets")
    ax.axhline(baseline["result"], color="grey", ls="--", label="search's score, against the result")
    if "handwritten_targets" in baseline:
        ax.axhline(baseline["handwritten_targets"], color="tab:red", ls=":", label="handwritten, lambda-targets")
    ax.set(xlabel="epoch", ylabel="mean squared error of sigmoid(y)", title="NNUE trained by TD(lambda)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def bench(folders: list[Path], hidden: int, batch: int = 16384, max_positions: int = 400_000, epochs: int = 2,
          seed: int = 1, log=print) -> float:
    """Positions a second of the training loop at ``hidden`` on the data (the
    best of ``epochs`` epochs, one thread); nothing is written."""
    from engine.train import _nnue_trainer
    data = load([Path(f) for f in folders], max_positions=max_positions, log=log)
    rng = np.random.default_rng(seed)
    params = init_params(hidden, rng)
    moments, squares = [np.zeros_like(p) for p in params], [np.zeros_like(p) for p in params]
    target = data.targets(0.5, 160.0)
    best, step = 0.0, 0
    for _ in range(epochs):
        order = rng.permutation(len(data.kept)).astype(np.int64)
        lrs = np.full(-(-len(order) // batch), 1e-3)
        started = time.perf_counter()
        _, step = _nnue_trainer.train_epoch(params, moments, squares, data.feats, data.stm, data.bucket, target,
                                            order, batch, lrs, step, 0.01, clip=CLIP)
        best = max(best, len(order) / (time.perf_counter() - started))
    log(f"H = {hidden}, batch {batch}: {best:,.0f} positions/s ({len(data.kept):,} positions an epoch, "
        f"best of {epochs})")
    return best
