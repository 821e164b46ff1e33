"""How the NNUE's validation loss falls as its training data grows.

The question a generation of self-play data has to answer before any game is
played: is there enough of it for the net to predict the games' λ-targets
better than the handwritten evaluation does? Every net here is trained on the
first N training positions of the same data (whole games, in the order they
were played), with the same settings, and judged on the same held-out games;
the handwritten evaluation's loss on those positions is the line to cross.
The ratio is the net's validation loss over the handwritten evaluation's:
below 1 the net predicts better. Games decide whether it plays better.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from engine.train import nnue


def scaling(folders: list[Path], sizes: list[int], config: nnue.Config, out: Path, log=print) -> list[dict]:
    """One net per size (0: all the training positions); a row of numbers for each.
    The folders are read as they are when it starts: self-play may go on writing."""
    from engine.data.selfplay import batch_paths
    config = replace(config, batches=config.batches or min(len(batch_paths(Path(f))) for f in folders))
    rows = []
    for size in sizes:
        name = (f"scale_{size or 'all'}_h{config.hidden}_l{config.lam}{'_m' if config.mirror else ''}"
                f"{f'_t{config.teacher:g}' if config.teacher else ''}_b{config.batches}.npz")
        summary = nnue.train(folders, out / name, replace(config, train_positions=size), log=lambda _: None)
        base, val = summary["baseline"], [h["validation"] for h in summary["history"]]
        rows.append({"positions": summary["train_positions"] // (2 if config.mirror else 1),
                     "batches": config.batches, "games": sum(d["games"] for d in summary["data"]),
                     "validation": val[-1], "best": min(val), "handwritten": base["handwritten_targets"],
                     "search": base["targets"], "ratio": val[-1] / base["handwritten_targets"]})
        log(f"{rows[-1]['positions']:>10,} positions: validation {val[-1]:.5f}, "
            f"handwritten {base['handwritten_targets']:.5f}, ratio {rows[-1]['ratio']:.3f}")
    return rows


def report(rows: list[dict], config: nnue.Config, command: str) -> list[str]:
    """The table (markdown) with the settings and the command."""
    lines = [f"`{command}`", "",
             f"H {config.hidden}, λ {config.lam}, {config.epochs} epochs, wd {config.wd}, "
             f"mirror {'on' if config.mirror else 'off'}, teacher {config.teacher:g}, seed {config.seed}; "
             "the data: the first "
             f"{rows[0]['batches'] if rows else 0} batches of each folder, {rows[0]['games'] if rows else 0:,} "
             "games, whose validation games are the same for every row.", "",
             "| training positions | net's validation loss | handwritten evaluation's | ratio | search's own score |",
             "|---|---|---|---|---|"]
    lines += [f"| {r['positions']:,} | {r['validation']:.5f} | {r['handwritten']:.5f} | **{r['ratio']:.3f}** | "
              f"{r['search']:.5f} |" for r in rows]
    return lines
