"""The regions net of the ChessMaps order: which squares a master's quiet
move acts on, learned from square control (``nmm-chess train regions``).

Inputs (ext/regions.pxi, ``Board.region_inputs``): the squares the side to
move controls and those the opponent controls (least valuable attacker, as
``Board.square_control``), and where every piece stands, all from the side
to move's view. Target per square: 1 if the master's quiet move lands on it
or attacks it from where it lands. A linear net with a sigmoid per square,
trained by Adam on binary cross-entropy.

Which rule is better is measured on positions the net never saw (the last
games read, and the TWIC 2022 games, the outside test set): the rank of the
master's quiet move among all quiet moves ordered by control gain, with the
net's square weights and with the hand rule's.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import chess
import numpy as np

from engine._core import Board, LabSearcher
from engine.data.pgn import parse_game, read_text, split_games
# The file format is the engine's (engine/nets.py): the lab writes and reads it through the floor,
# under the names it had here.
from engine.nets import DEFAULT_REGIONS as DEFAULT  # noqa: F401
from engine.nets import REGIONS_INPUTS as INPUTS
from engine.nets import RegionsNet
from engine.nets import load_regions as load  # noqa: F401
from engine.nets import save_regions as save


def acted_on(board: chess.Board, move: chess.Move) -> np.ndarray:
    """(64,) 0/1 from the mover's view: the squares ``move`` lands on or attacks from there."""
    after = board.copy(stack=False)
    after.push(move)
    squares = chess.SquareSet(after.attacks_mask(move.to_square)) | chess.SquareSet([move.to_square])
    target = np.zeros(64, np.float32)
    for sq in squares:
        target[sq if board.turn == chess.WHITE else chess.square_mirror(sq)] = 1
    return target


def is_quiet(board: chess.Board, move: chess.Move) -> bool:
    return not (board.is_capture(move) or move.promotion or board.is_castling(move))


def positions(texts: list[str]) -> list[tuple[str, str]]:
    """(FEN, master's move) for every quiet move of the games."""
    found = []
    for text in texts:
        parsed = parse_game(text)
        if parsed is None:
            continue
        board = chess.Board()
        for uci in parsed[1]:
            move = chess.Move.from_uci(uci)
            if move not in board.legal_moves:
                break
            if is_quiet(board, move):
                found.append((board.fen(), uci))
            board.push(move)
    return found


def encode(samples: list[tuple[str, str]]) -> tuple[np.ndarray, np.ndarray]:
    """Active inputs per sample ((n, 160) int16, padded with INPUTS), and the (n, 64) targets."""
    inputs = np.full((len(samples), 2 * 64 + 32), INPUTS, np.int16)
    targets = np.zeros((len(samples), 64), np.float32)
    for i, (fen, uci) in enumerate(samples):
        active = Board(fen).region_inputs()
        inputs[i, :len(active)] = active
        targets[i] = acted_on(chess.Board(fen), chess.Move.from_uci(uci))
    return inputs, targets


def dense(rows: np.ndarray) -> np.ndarray:
    x = np.zeros((len(rows), INPUTS + 1), np.float32)
    x[np.arange(len(rows))[:, None], rows] = 1
    return x[:, :INPUTS]


def base_rates(targets: np.ndarray) -> np.ndarray:
    """Each square's log-odds of being acted on: the net that reads nothing."""
    rate = np.clip(targets.mean(0), 1e-4, 1 - 1e-4)
    return np.log(rate / (1 - rate)).astype(np.float32)


def bce(x: np.ndarray, y: np.ndarray, w: np.ndarray, b: np.ndarray) -> float:
    z = x @ w + b
    return float(np.mean(np.logaddexp(0, z) - y * z))


def train(inputs: np.ndarray, targets: np.ndarray, *, epochs: int = 4, batch: int = 512,
          lr: float = 0.003, seed: int = 1, log=print) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    w = np.zeros((INPUTS, 64), np.float32)
    b = base_rates(targets)
    m = [np.zeros_like(w), np.zeros_like(b)]
    v = [np.zeros_like(w), np.zeros_like(b)]
    step = 0
    for epoch in range(epochs):
        order = rng.permutation(len(inputs))
        for start in range(0, len(order), batch):
            pick = order[start:start + batch]
            x, y = dense(inputs[pick]), targets[pick]
            err = 1 / (1 + np.exp(-(x @ w + b))) - y                  # d BCE / d z
            grads = [x.T @ err / len(pick), err.mean(0)]
            step += 1
            for k, (param, grad) in enumerate(zip((w, b), grads)):
                m[k] = 0.9 * m[k] + 0.1 * grad
                v[k] = 0.999 * v[k] + 0.001 * grad * grad
                param -= lr * (m[k] / (1 - 0.9 ** step)) / (np.sqrt(v[k] / (1 - 0.999 ** step)) + 1e-8)
        sample = order[:4096]
        log(f"epoch {epoch + 1}: loss {bce(dense(inputs[sample]), targets[sample], w, b):.4f}")
    return w, b


def move_ranks(samples: list[tuple[str, str]], searcher: LabSearcher | None) -> dict[str, float]:
    """Where the master's quiet move ranks among the quiet moves by control
    gain (ties share the middle rank): top-1 and top-3 shares, mean percentile.
    ``searcher``: its regions net weighs the squares; None: the hand rule."""
    top1 = top3 = 0
    percentile = 0.0
    for fen, uci in samples:
        board, reference = Board(fen), chess.Board(fen)
        weights = searcher.region_weights(board) if searcher is not None else None
        quiet = [m.uci() for m in reference.legal_moves if is_quiet(reference, m)]
        gains = {m: board.control_gain(m, weights) for m in quiet}
        better = sum(g > gains[uci] for g in gains.values())
        ties = sum(g == gains[uci] for g in gains.values()) - 1
        rank = better + ties / 2                        # 0 = first
        top1 += rank < 1
        top3 += rank < 3
        percentile += rank / max(len(quiet) - 1, 1)
    n = max(len(samples), 1)
    return {"top1": round(top1 / n, 4), "top3": round(top3 / n, 4), "mean_rank_share": round(percentile / n, 4)}


def run(files: list[Path], games: int, out: Path, *, val_games: int = 500, test_file: Path | None = None,
        epochs: int = 4, seed: int = 1, log=print) -> RegionsNet:
    started = time.time()
    texts: list[str] = []
    for path in files:
        if "twic" in path.name.lower():
            raise ValueError(f"{path.name}: the TWIC 2022 games are the outside test set, never trained on")
        texts += split_games(read_text(path))[: games + val_games - len(texts)]
    if len(texts) <= val_games:
        raise ValueError(f"{len(texts)} games: too few to train on and hold {val_games} back")
    learn = positions(texts[:-val_games])
    held = positions(texts[-val_games:])
    log(f"{len(texts) - val_games} games, {len(learn):,} quiet master moves; {len(held):,} held back")
    inputs, targets = encode(learn)
    w, b = train(inputs, targets, epochs=epochs, seed=seed, log=log)
    net = RegionsNet(w, b)
    held_inputs, held_targets = encode(held[:20000])
    searcher = LabSearcher(hash_mb=1)   # its regions net's square weights only: no search
    searcher.set_regions(w, b)
    rng = np.random.default_rng(seed)
    probe = [held[i] for i in rng.choice(len(held), min(3000, len(held)), replace=False)]
    net.info = {"games": len(texts) - val_games, "files": [p.name for p in files], "seed": seed,
                "epochs": epochs, "positions": len(learn), "target": "squares the master's quiet move lands on or "
                "attacks from there", "validation_loss": round(bce(dense(held_inputs), held_targets, w, b), 4),
                "validation_loss_base_rate": round(bce(dense(held_inputs), held_targets, np.zeros_like(w),
                                                       base_rates(targets)), 4),
                "held_back": {"net": move_ranks(probe, searcher), "hand": move_ranks(probe, None)}}
    if test_file is not None:
        test = positions(split_games(read_text(test_file)))
        picked = [test[i] for i in rng.choice(len(test), min(3000, len(test)), replace=False)]
        net.info["twic"] = {"file": test_file.name, "net": move_ranks(picked, searcher), "hand": move_ranks(picked, None)}
    net.info["seconds"] = round(time.time() - started, 1)
    save(net, out)
    log(json.dumps({k: v for k, v in net.info.items() if k not in ("files",)}, indent=1))
    return net
