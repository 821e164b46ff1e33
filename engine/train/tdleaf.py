"""``nmm-chess train tdleaf``: TDLeaf(lambda), on master games or in self-play.

TD(lambda) on game records (engine/train/td_run.py) teaches the net the
value of the positions masters reached. The search asks it about other
positions: the quiet ends of its principal variations. TDLeaf(lambda)
(Baxter, Tridgell and Weaver's KnightCap, the step the thesis points to)
trains the net where the search uses it. Every position of a game is
searched, ``depth`` plies plus quiescence, by the engine's own search with
the net being trained; the position's value is the net's value of the leaf
of the principal variation, and the TD(lambda) step is taken on those
leaves, the game's result closing the sequence as before.

Two sources of games, both continuing from a trained net (``--start``):

- ``games``: master games from the collections the data file was built from,
  drawn in the same seeded order, its validation games skipped;
- ``selfplay``: games the engine plays against itself at ``depth`` from the
  2-move openings, every move the one whose search gave the leaf, until mate,
  a draw by rule, a score of 1000 cp or more for one side over 8 plies, or
  400 plies (a draw).

What ``train td`` found necessary stays: leaves that are not quiet (a
principal variation cut short by the table) and mate scores are passed
through rather than learnt, and the material anchor is fitted beside each
step. The validation figure is the database trainer's (result prediction on
the held-back games' quiet positions), so the curves compare.
"""
from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from itertools import islice
from pathlib import Path

import numpy as np

from engine._core import Board, Searcher, replay_features
from engine.data.td import LAYOUT, load, shuffled_texts, usable
from engine.nets import TdNet, load_td, save_td
from engine.session import default_searcher, options_line
from engine.train.td import Adam, Mlp
from engine.train.td_run import (N_DENSE, Games, Model, OnHandwritten, PhaseNets, load_checkpoint, material_check, net_inputs,
                                 plot, rule_weights, save_checkpoint, td_update, validation, validation_set)

ADJUDICATE_CP = 1000
ADJUDICATE_PLIES = 8
MAX_PLIES = 400
SKIP_MARGIN = 0.1        # a tenth more games skipped past the validation games: a margin, were a filter to differ


@dataclass
class TdLeafConfig:
    source: str = "games"           # games (master games) or selfplay
    depth: int = 2                  # plies of the search that finds each leaf (plus quiescence)
    lam: float = 0.9
    lr: float = 0.0002              # Adam, falling linearly to a tenth
    games_per_step: int = 16
    games: int = 16000              # games learnt from
    anchor: int = 256               # material variants fitted beside each step (0: none)
    seed: int = 1


class LeafBlock:
    """The leaves of a block of games, gathered row by row."""

    def __init__(self) -> None:
        self.dense, self.active, self.stm, self.phase, self.fullmove, self.trusted, self.hand, self.home = \
            [], [], [], [], [], [], [], []
        self.lengths: list[int] = []
        self.results: list[float] = []

    def add(self, row: tuple) -> None:
        for store, value in zip((self.dense, self.active, self.stm, self.phase, self.fullmove, self.trusted,
                                 self.hand, self.home), row):
            store.append(value)

    def end_game(self, plies: int, result: float) -> None:
        self.lengths.append(plies)
        self.results.append(result)

    def __len__(self) -> int:
        return len(self.dense)


def leaf_row(searcher: Searcher, board: Board, depth: int, squares: str) -> tuple[tuple, dict | None]:
    """The row of ``board``: (dense, active, stm, phase, fullmove, trusted, hand, home)
    of the leaf of its principal variation at ``depth``; and the search's result
    (None where the game is over: the row is then the position's own)."""
    found, pv = None, []
    if board.outcome() is None:
        searcher.clear_hash()       # each search on its own: a table hit would cut the variation short
        found = searcher.search(board, depth=depth)
        pv = found["line"]["pv"] if found["line"] else []
    dense, active, stm, phase, hand, quiet = replay_features(board.fen(), pv, squares)
    fullmove = board.fullmove + (len(pv) + (board.turn == "b")) // 2
    trusted = bool(quiet[-1]) and (found is None or found["mate"] is None)
    leaf = Board(board.fen())
    for move in pv:
        leaf.push(move)
    return (dense[-1], active[-1], int(stm[-1]), int(phase[-1]), fullmove, trusted, float(hand[-1]),
            leaf.home), found


def replay_game(searcher: Searcher, moves: list[str], depth: int, squares: str, block: LeafBlock) -> None:
    """The leaves of a recorded game's positions (the one after the last move included)."""
    board = Board()
    for move in moves:
        block.add(leaf_row(searcher, board, depth, squares)[0])
        board.push(move)
    block.add(leaf_row(searcher, board, depth, squares)[0])


def play_game(searcher: Searcher, fen: str, depth: int, squares: str, block: LeafBlock) -> float:
    """A self-play game from ``fen``, its leaves added to ``block``; the result from White's view."""
    board = Board(fen)
    white_scores: list[int] = []
    while True:
        row, found = leaf_row(searcher, board, depth, squares)
        block.add(row)
        if found is None:
            return (-1.0 if board.turn == "w" else 1.0) if board.outcome() == "checkmate" else 0.0
        verdict = adjudicated(white_scores)
        if verdict or len(white_scores) >= MAX_PLIES:
            return float(verdict)
        white_scores.append(found["score"] if board.turn == "w" else -found["score"])
        board.push(found["bestmove"])


def adjudicated(white_scores: list[int]) -> int:
    """1 or -1 when one side has been ahead by ADJUDICATE_CP for ADJUDICATE_PLIES plies, else 0.

    >>> adjudicated([0] * 5 + [1200] * 8), adjudicated([-1500] * 7), adjudicated([-1500] * 8)
    (1, 0, -1)
    """
    last = white_scores[-ADJUDICATE_PLIES:]
    if len(last) < ADJUDICATE_PLIES:
        return 0
    if min(last) >= ADJUDICATE_CP:
        return 1
    if max(last) <= -ADJUDICATE_CP:
        return -1
    return 0


def unfold(net: TdNet, mean: np.ndarray, std: np.ndarray) -> list[Mlp]:
    """The engine's net back in training form, its dense inputs normalised by
    ``mean`` and ``std`` (the inverse of TdNet.from_training)."""
    if net.hidden == 0:
        raise ValueError("TDLeaf continues a net with a hidden layer, not the linear net")
    mlps = []
    for i in range(net.nets):
        w1 = net.w1[i].astype(np.float64)
        b1 = net.b1[i] + mean @ w1[:N_DENSE]
        w1 = np.concatenate([w1[:N_DENSE] * std[:, None], w1[N_DENSE:]])
        mlps.append(Mlp(w1.astype(np.float32), b1.astype(np.float32), net.w2[i].astype(np.float32).copy(),
                        np.array([net.b2[i]], np.float32)))
    return mlps


def master_games(data_dir: Path, header: dict) -> Iterator[tuple[list[str], float]]:
    """(moves, result) of the master games the data file was drawn from, in its
    order, past its validation games."""
    skip = int(header["validation_games"] * (1 + SKIP_MARGIN))
    for text in shuffled_texts([data_dir / "games" / name for name in header["files"]], header["seed"]):
        game = usable(text)
        if game is None:
            continue
        if skip:
            skip -= 1
            continue
        yield game[0], float(game[1])


def read_openings(path: Path) -> list[str]:
    """FENs of an EPD opening file (move counters added)."""
    return [" ".join(line.split()[:4]) + " 0 1" for line in path.read_text().splitlines() if line.strip()]


class Trainer:
    """The net in training form, and the searcher that plays with it."""

    def __init__(self, start: TdNet, data: Games, config: TdLeafConfig) -> None:
        self.start, self.data, self.config = start, data, config
        self.model: Model = PhaseNets(unfold(start, data.mean, data.std))
        if start.on_handwritten:
            self.model = OnHandwritten(self.model, start.cp_scale)
        self.optimiser = Adam(self.model.params(), config.lr)
        self.searcher = default_searcher(1)    # the engine's search; the net in training installed on it

    def net(self, info: dict | None = None) -> TdNet:
        return TdNet.from_training(self.model.nets, self.data.mean, self.data.std, self.start.squares,
                                   self.start.cp_scale, info or {}, self.start.on_handwritten, self.start.phase,
                                   self.start.base_fingerprint)

    def step(self, games: list, anchor: np.ndarray | None, anchor_target: np.ndarray | None) -> dict:
        """Search every position of ``games`` (master games' moves and results, or
        self-play openings) with the current net, then one TD(lambda) step on the leaves."""
        net = self.net()
        net.install(self.searcher)
        block, squares, depth = LeafBlock(), net.squares, self.config.depth
        for game in games:
            before = len(block)
            if self.config.source == "selfplay":
                result = play_game(self.searcher, game, depth, squares, block)
            else:
                replay_game(self.searcher, game[0], depth, squares, block)
                result = game[1]
            block.end_game(len(block) - before, result)
        lengths = np.array(block.lengths)
        game_of = np.repeat(np.arange(len(lengths)), lengths)
        ply = np.arange(len(block)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        stm = np.array(block.stm)
        x = net_inputs(np.array(block.dense), np.array(block.active), self.data.mean, self.data.std,
                       self.data.n_inputs)
        batch = (x, rule_weights(net.phase, np.array(block.phase), len(self.model.nets), np.array(block.home),
                                 np.array(block.fullmove)),
                 np.array(block.hand, np.float32))
        trusted = np.array(block.trusted)
        anchor_batch = None if anchor is None else self.data.inputs(anchor, variants=True)
        error = td_update(self.model, self.optimiser, batch, np.where(stm == 0, 1.0, -1.0).astype(np.float32),
                          game_of, ply, lengths, np.array(block.results, np.float32), self.config.lam, trusted,
                          anchor_batch, anchor_target)
        return {"td_error": error, "positions": len(block), "trusted": int(trusted.sum()),
                "results": block.results}


def games_source(config: TdLeafConfig, header: dict, data_dir: Path, openings: Path | None,
                 first: int) -> Iterator:
    """The games of the run from game ``first`` on: master games, or self-play openings."""
    if config.source == "games":
        return islice(master_games(data_dir, header), first, None)
    fens = read_openings(openings or data_dir / "openings" / "2moves_v1.epd")
    rng = np.random.default_rng(config.seed)
    picks = rng.integers(len(fens), size=config.games)
    return (fens[i] for i in picks[first:])


def train(start_path: Path, data_path: Path, data_dir: Path, out: Path, work: Path, config: TdLeafConfig,
          openings: Path | None = None, log=print) -> dict:
    """Continue the net at ``start_path`` by TDLeaf(lambda); checkpoint into
    ``work``; write the net to ``out``; return the summary."""
    from tqdm import tqdm
    if config.source not in ("games", "selfplay"):
        raise ValueError(f"unknown source {config.source!r} (games or selfplay)")
    header, arrays = load(data_path)
    start = load_td(start_path)
    data = Games(arrays, start.squares, start.nets, start.phase)
    trainer = Trainer(start, data, config)
    log(options_line())
    val_rows, val_target = validation_set(data)
    x_target = np.tanh(arrays["x_hand"] / (2 * start.cp_scale)).astype(np.float32)
    checkpoint = work / "checkpoint.npz"
    work.mkdir(parents=True, exist_ok=True)
    total = -(-config.games // config.games_per_step)
    step, history = 0, []
    if checkpoint.exists():
        step, history, _ = load_checkpoint(checkpoint, config, trainer.model, trainer.optimiser)
        log(f"resumed from {checkpoint} at step {step} of {total}")
    else:
        history.append({"step": 0, "td_error": float("nan"), "val": validation(trainer.model, data, val_rows,
                                                                                val_target)})
        log(f"start {start_path}: validation loss {history[0]['val']:.4f}")
    source = games_source(config, header, data_dir, openings, step * config.games_per_step)
    every = max(total // 20, 1)
    started, window, counts = time.time(), [], {"games": 0, "positions": 0, "trusted": 0, "results": [0, 0, 0]}
    with tqdm(total=total, initial=step, desc=f"TDLeaf ({config.source})", unit="step", disable=None) as bar:
        while step < total:
            games = list(islice(source, min(config.games_per_step, config.games - step * config.games_per_step)))
            if not games:
                break
            trainer.optimiser.lr = config.lr * (0.1 + 0.9 * (1 - step / total))
            anchor = (np.random.default_rng([config.seed, step]).choice(len(x_target), config.anchor)
                      if config.anchor else None)
            stats = trainer.step(games, anchor, None if anchor is None else x_target[anchor])
            window.append(stats["td_error"])
            counts["games"] += len(games)
            counts["positions"] += stats["positions"]
            counts["trusted"] += stats["trusted"]
            for r in stats["results"]:
                counts["results"][int(r) + 1] += 1
            step += 1
            bar.update()
            if step % every == 0 or step == total:
                history.append({"step": step, "td_error": float(np.mean(window)),
                                "val": validation(trainer.model, data, val_rows, val_target)})
                window = []
                bar.set_postfix(val=f"{history[-1]['val']:.4f}")
                save_checkpoint(checkpoint, config, trainer.model, trainer.optimiser, step, history, {})
    summary = {"trained": "tdleaf", "config": asdict(config), "start": Path(start_path).name,
               "start_config": start.info.get("config"), "layout": LAYOUT, "data": header,
               "cp_scale": start.cp_scale, "validation_loss_start": history[0]["val"],
               "validation_loss": history[-1]["val"],
               "validation_loss_handwritten": start.info.get("validation_loss_handwritten"),
               "feature_mean": [round(float(v), 4) for v in data.mean],
               "games_this_run": counts["games"], "positions_this_run": counts["positions"], "leaves_learnt_this_run": counts["trusted"],
               "results_this_run": dict(zip(("0-1", "1/2-1/2", "1-0"), counts["results"])),
               "seconds_this_run": round(time.time() - started, 1)}
    net = trainer.net(summary)
    summary["material_check_cp"] = net.info["material_check_cp"] = material_check(net)
    log(f"a piece up at moves 1 and 30 (cp): {summary['material_check_cp']}")
    save_td(net, out)
    out.with_suffix(".curve.csv").write_text("step,td_error,validation_loss\n" + "".join(
        f"{h['step']},{h['td_error']:.6f},{h['val']:.6f}\n" for h in history))
    plot(history, summary["validation_loss_handwritten"] or float("nan"), out.with_suffix(".curve.png"))
    summary["history"] = history
    out.with_suffix(".json").write_text(json.dumps(summary, indent=2))
    return summary
