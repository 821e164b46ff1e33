"""``nmm-chess train``: the nets and the tuned evaluation."""
from __future__ import annotations

from pathlib import Path

import click


@click.group("train")
def train_group() -> None:
    """Train the nets."""


@train_group.command("nmm")
@click.option("--sets", type=click.Path(file_okay=False), default="var/nmm", show_default=True,
              help="Folder of pattern sets (from 'nmm-chess data nmm').")
@click.option("--learn", "learn_name", default="ALL", show_default=True,
              help="Learning set: ALL, A3x, SI, GI or E9x, or a cut-off set file (.npz, from 'data cutoffs').")
@click.option("--weighting", type=click.Choice(["depth", "depth2", "none"]), default="depth", show_default=True,
              help="Cut-off sets: each sample's weight by the depth of its node.")
@click.option("--test", "tests", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="More pattern or cut-off sets to report top-1 on (repeatable).")
@click.option("--positions", type=int, default=1_000_000, show_default=True,
              help="Positions drawn from the learning set (0: all).")
@click.option("--encoding", type=click.Choice(["paper385", "planes769", "mirrored768", "context960"]),
              default="context960", show_default=True)
@click.option("--loss", type=click.Choice(["softmax", "mse"]), default="softmax", show_default=True)
@click.option("--optimiser", type=click.Choice(["adam", "rprop"]), default="adam", show_default=True)
@click.option("--model", type=click.Choice(["linear", "hidden"]), default="linear", show_default=True)
@click.option("--outputs", type=click.Choice(["fromto", "from+to"]), default="fromto", show_default=True)
@click.option("--hidden", type=int, default=64, show_default=True)
@click.option("--epochs", type=int, default=10, show_default=True)
@click.option("--patience", type=int, default=2, show_default=True)
@click.option("--lr", type=float, default=0.01, show_default=True)
@click.option("--lr-decay", type=float, default=1.0, show_default=True,
              help="Adam: multiply the step size by this after each epoch.")
@click.option("--batch", type=int, default=2048, show_default=True)
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="Write the net here (from-to outputs: linear or hidden models).")
@click.option("--report", type=click.Path(dir_okay=False), default=None, help="Write the summary JSON here.")
def train_nmm(sets: str, learn_name: str, positions: int, encoding: str, loss: str, optimiser: str,
              model: str, outputs: str, hidden: int, epochs: int, patience: int, lr: float,
              lr_decay: float, batch: int, seed: int, out: str | None, report: str | None, weighting: str,
              tests: tuple[str, ...]) -> None:
    """Train a Neural MoveMap (softmax or the paper's MSE; Adam or the paper's RPROP)
    on master moves or on the engine's own cut-offs."""
    import json

    from engine.train.nmm import TrainConfig
    from engine.train.nmm_run import run
    config = TrainConfig(encoding=encoding, loss=loss, optimiser=optimiser, model=model,
                         outputs=outputs, hidden=hidden, epochs=epochs, patience=patience,
                         lr=lr, lr_decay=lr_decay, batch=batch, seed=seed)
    info = run(Path(sets), learn_name, Path(out) if out else None, config, positions or None,
               log=click.echo, weighting=weighting, tests=[Path(t) for t in tests])
    summary = {k: v for k, v in info.items() if k != "history"}
    text = json.dumps(summary, indent=2)
    click.echo(text)
    if report:
        Path(report).parent.mkdir(parents=True, exist_ok=True)
        Path(report).write_text(json.dumps(info, indent=2))


@train_group.command("texel")
@click.option("--rows", "rows_files", multiple=True, default=["var/texel/rows.npz"], show_default=True,
              help="Made by 'nmm-chess data texel' (repeatable: the master games' and the engine's own, say); "
                   "FILE@N counts each of its rows N times.")
@click.option("--out", type=click.Path(dir_okay=False), default="ext/eval_weights.pxi", show_default=True,
              help="The generated weights file (rebuild the core to use it).")
@click.option("--report", type=click.Path(dir_okay=False), default="reports/texel/train.json", show_default=True)
@click.option("--checkpoint", type=click.Path(dir_okay=False), default="var/texel/checkpoint.npz",
              show_default=True, help="Written after every epoch.")
@click.option("--resume", is_flag=True, help="Go on from --checkpoint.")
@click.option("--epochs", type=click.IntRange(1), default=12, show_default=True)
@click.option("--batch", type=click.IntRange(64), default=16384, show_default=True)
@click.option("--lr", type=float, default=2.0, show_default=True, help="Adam's first step, centipawns.")
@click.option("--lr-end", type=float, default=0.1, show_default=True, help="Its step in the last epoch.")
@click.option("--k", type=float, default=None, help="The logistic scale (fitted when left out).")
@click.option("--l2", type=float, default=5e-9, show_default=True,
              help="Pull towards the starting weights (keeps rarely counted weights put).")
@click.option("--seed", type=int, default=1, show_default=True)
def train_texel(rows_files: tuple[str, ...], out: str, report: str, checkpoint: str, resume: bool, epochs: int,
                batch: int, lr: float, lr_end: float, k: float | None, l2: float, seed: int) -> None:
    """Tune the handwritten evaluation's weights on game results (Texel's method)."""
    import json
    import shlex
    import sys

    from engine._core import eval_weights
    from engine.data.texel import load_many, rows_arg
    from engine.evaluation.weights import write_pxi
    from engine.train.texel import Config, train
    try:
        files = [rows_arg(f) for f in rows_files]
        for path, _ in files:
            if not path.is_file():
                raise ValueError(f"no rows file {path}: make it with 'nmm-chess data texel'")
        header, rows = load_many([p for p, _ in files], [n for _, n in files])
    except ValueError as e:
        raise click.ClickException(str(e)) from None
    config = Config(epochs=epochs, batch=batch, lr=lr, lr_end=lr_end, k=k, l2=l2, seed=seed)
    result = train(rows, eval_weights(), config, Path(checkpoint), resume, log=click.echo)
    command = " ".join(["nmm-chess train texel"] + [shlex.quote(a) for a in sys.argv[3:]])
    write_pxi(Path(out), result["weights"], [
        f"Tuned by: {command}",
        f"on {', '.join(rows_files)}: {header['rows']:,} quiet positions of {header['games']:,} games "
        f"({', '.join(header['files'])}), seed {header['seed']}",
        f"K {result['k']:.4f}; validation error {result['validation_start']:.6f} -> "
        f"{result['validation_end']:.6f}"])
    Path(report).parent.mkdir(parents=True, exist_ok=True)
    result["data"] = header
    result["command"] = command
    Path(report).write_text(json.dumps(result, indent=1))
    click.echo(f"wrote {out} and {report}; rebuild the core (make build) to play with the new weights")


@train_group.command("regions")
@click.option("--games-file", "games_files", type=click.Path(exists=True, dir_okay=False), multiple=True,
              help="PGN games (default: masters_pgnmentor_both2500 in the data folder; never TWIC).")
@click.option("--games", type=int, default=8000, show_default=True, help="Games trained on.")
@click.option("--val-games", type=int, default=500, show_default=True, help="Games after those, held back.")
@click.option("--test-file", type=click.Path(dir_okay=False), default=None,
              help="Outside test games (default: the TWIC 2022 file in the data folder, if there).")
@click.option("--epochs", type=int, default=4, show_default=True)
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--out", type=click.Path(dir_okay=False), default="nets/regions.npz", show_default=True)
def train_regions(games_files: tuple[str, ...], games: int, val_games: int, test_file: str | None, epochs: int,
                  seed: int, out: str) -> None:
    """The ChessMaps regions net: which squares masters' quiet moves act on, from square control."""
    from engine.perft import data_dir
    from engine.train.regions import run
    folder = data_dir() / "games"
    files = [Path(f) for f in games_files] or [folder / "masters_pgnmentor_both2500.pgn.gz"]
    test = Path(test_file) if test_file else folder / "twic_1427-1428_2022.pgn.gz"
    try:
        run(files, games, Path(out), val_games=val_games, test_file=test if test.is_file() else None,
            epochs=epochs, seed=seed, log=click.echo)
    except ValueError as e:
        raise click.ClickException(str(e)) from None


@train_group.command("td")
@click.option("--games-file", type=click.Path(dir_okay=False), default="var/td/games.npz", show_default=True,
              help="Training games (from 'nmm-chess data td').")
@click.option("--out", type=click.Path(dir_okay=False), default="var/td/td.npz", show_default=True,
              help="The net; beside it .curve.csv, .curve.png and .json.")
@click.option("--work", type=click.Path(file_okay=False), default=None,
              help="Checkpoint folder (default: the net's name + .work); a rerun resumes from it.")
@click.option("--squares", type=click.Choice(["A", "B", "C"]), default="B", show_default=True,
              help="Feature set: A (hand features), B (+ king and pawn squares), C (+ all pieces).")
@click.option("--nets", type=click.Choice(["1", "3"]), default="3", show_default=True,
              help="One net, or one per phase (opening, middle game, end game), blended.")
@click.option("--hidden", type=int, default=60, show_default=True, help="Hidden units (0: linear net).")
@click.option("--lam", type=float, default=0.9, show_default=True)
@click.option("--lr", type=float, default=0.001, show_default=True)
@click.option("--optimiser", type=click.Choice(["adam", "sgd"]), default="adam", show_default=True)
@click.option("--games-per-step", type=int, default=16, show_default=True)
@click.option("--epochs", type=int, default=2, show_default=True)
@click.option("--init", type=click.Choice(["hand", "random"]), default="hand", show_default=True,
              help="Start from a fit to the handwritten evaluation, or from random weights.")
@click.option("--init-steps", type=int, default=2000, show_default=True)
@click.option("--anchor", type=int, default=256, show_default=True,
              help="Material variants fitted to the handwritten evaluation beside each TD step (0: none).")
@click.option("--games", type=int, default=0, show_default=True, help="Training games used (0: all).")
@click.option("--base", type=click.Choice(["none", "handwritten"]), default="none", show_default=True,
              help="handwritten: the net learns a correction to the handwritten evaluation "
                   "(value tanh(hand / 2K + output)), starting from a zero correction.")
@click.option("--phase", type=click.Choice(["development", "move"]), default="development", show_default=True,
              help="How the phase nets tell the opening: by the men still on their starting squares, "
                   "or by the move number (the earlier rule, which a FEN's move 1 fools).")
@click.option("--seed", type=int, default=1, show_default=True)
def train_td(games_file: str, out: str, work: str | None, squares: str, nets: str, hidden: int,
             lam: float, lr: float, optimiser: str, games_per_step: int, epochs: int, init: str,
             init_steps: int, anchor: int, games: int, base: str, phase: str, seed: int) -> None:
    """The TD(lambda) evaluation net from master games (Mannen's thesis, chapter 6)."""
    import json

    from engine.train.td_run import TdConfig, train
    config = TdConfig(squares=squares, nets=int(nets), hidden=hidden, lam=lam, lr=lr,
                      optimiser=optimiser, games_per_step=games_per_step, epochs=epochs, init=init,
                      init_steps=init_steps, anchor=anchor, games=games, seed=seed, base=base,
                      phase=phase)
    out_path = Path(out)
    summary = train(Path(games_file), out_path, Path(work) if work else out_path.with_suffix(".work"),
                    config, log=click.echo)
    out_path.with_suffix(".json").write_text(json.dumps(summary, indent=2))
    click.echo(json.dumps({k: v for k, v in summary.items() if k not in ("history", "data")}, indent=2))


@train_group.command("tdleaf")
@click.option("--start", type=click.Path(exists=True, dir_okay=False), default="nets/td.npz", show_default=True,
              help="The trained net to continue (from 'nmm-chess train td').")
@click.option("--games-file", type=click.Path(dir_okay=False), default="var/td/games.npz", show_default=True,
              help="The data file the start net was trained on: its normalisation, validation games, "
                   "material variants and (source games) the collections it was drawn from.")
@click.option("--data", "data_folder", type=click.Path(file_okay=False), default=None,
              help="The data folder (default: $NMM_DATA or ../shared/data).")
@click.option("--out", type=click.Path(dir_okay=False), default="var/td/tdleaf.npz", show_default=True,
              help="The net; beside it .curve.csv, .curve.png and .json.")
@click.option("--work", type=click.Path(file_okay=False), default=None,
              help="Checkpoint folder (default: the net's name + .work); a rerun resumes from it.")
@click.option("--source", type=click.Choice(["games", "selfplay"]), default="games", show_default=True,
              help="Master games, or games the engine plays against itself from the 2-move openings.")
@click.option("--openings", type=click.Path(exists=True, dir_okay=False), default=None,
              help="EPD openings for self-play (default: openings/2moves_v1.epd in the data folder).")
@click.option("--depth", type=click.IntRange(1, 8), default=2, show_default=True,
              help="Plies of the search whose principal variation gives each leaf (plus quiescence).")
@click.option("--lam", type=float, default=0.9, show_default=True)
@click.option("--lr", type=float, default=0.0002, show_default=True)
@click.option("--games-per-step", type=int, default=16, show_default=True)
@click.option("--games", type=int, default=16000, show_default=True, help="Games learnt from.")
@click.option("--anchor", type=int, default=256, show_default=True,
              help="Material variants fitted to the handwritten evaluation beside each step (0: none).")
@click.option("--seed", type=int, default=1, show_default=True)
def train_tdleaf(start: str, games_file: str, data_folder: str | None, out: str, work: str | None, source: str,
                 openings: str | None, depth: int, lam: float, lr: float, games_per_step: int, games: int,
                 anchor: int, seed: int) -> None:
    """TDLeaf(lambda): continue a TD net on the leaves of its own searches."""
    import json

    from engine.perft import data_dir
    from engine.train.tdleaf import TdLeafConfig, train
    config = TdLeafConfig(source=source, depth=depth, lam=lam, lr=lr, games_per_step=games_per_step,
                          games=games, anchor=anchor, seed=seed)
    out_path = Path(out)
    summary = train(Path(start), Path(games_file), Path(data_folder) if data_folder else data_dir(), out_path,
                    Path(work) if work else out_path.with_suffix(".work"), config,
                    Path(openings) if openings else None, log=click.echo)
    click.echo(json.dumps({k: v for k, v in summary.items() if k not in ("history", "data", "feature_mean")},
                          indent=2))


@train_group.command("nnue")
@click.option("--data", "folders", multiple=True, type=click.Path(file_okay=False), default=["var/selfplay/n5000_s1"],
              show_default=True, help="A self-play folder (from 'nmm-chess data selfplay'; repeatable): its "
                                      "complete batches are read.")
@click.option("--extra", "extra", multiple=True, type=click.Path(exists=True, file_okay=False),
              help="A folder of records of games played elsewhere ('nmm-chess data pgn-records'; repeatable): "
                   "trained on beside --data, never held back for validation.")
@click.option("--out", type=click.Path(dir_okay=False), default="var/nnue/nnue.npz", show_default=True,
              help="The net file; beside it .curve.png (the learning curve) and .json (the summary).")
@click.option("--checkpoint", type=click.Path(dir_okay=False), default=None,
              help="Written after every epoch (default: the net's name with .ckpt.npz).")
@click.option("--resume", is_flag=True, help="Go on from --checkpoint (given the same arguments), if it is there.")
@click.option("--lam", type=click.FloatRange(0, 1), default=0.5, show_default=True,
              help="lambda of the targets: 0 the search's own score, 1 the game's result.")
@click.option("--hidden", type=click.Choice(["64", "128", "256", "512"]), default="256", show_default=True,
              help="Hidden units a view (what the core runs).")
@click.option("--epochs", type=click.IntRange(1), default=10, show_default=True)
@click.option("--batch", type=click.IntRange(1), default=16384, show_default=True, help="Positions a step.")
@click.option("--lr", type=float, default=0.01, show_default=True, help="AdamW's first learning rate.")
@click.option("--lr-end", type=float, default=1e-4, show_default=True,
              help="The learning rate at the last step (a half cosine from --lr).")
@click.option("--wd", type=float, default=0.01, show_default=True, help="Decoupled weight decay (weights, not biases).")
@click.option("--seed", type=int, default=1, show_default=True, help="The split, the first weights, the shuffles.")
@click.option("--k", type=float, default=None, help="The logistic scale in cp, the net's scale (fitted when left out).")
@click.option("--score-cap", type=click.IntRange(1, 30000), default=2000, show_default=True,
              help="Positions whose |score| is above this are not trained on (mates never are).")
@click.option("--min-ply", type=click.IntRange(0), default=8, show_default=True,
              help="Positions before this ply are not trained on.")
@click.option("--val-fraction", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05,
              show_default=True, help="Games held back whole for the validation loss.")
@click.option("--max-positions", type=click.IntRange(0), default=0, show_default=True,
              help="Train on the first N positions kept by the filters (0: all).")
@click.option("--mirror", is_flag=True,
              help="Also train on every training position mirrored a<->h (twice the examples; the net sees no "
                   "castling rights).")
@click.option("--teacher", type=click.FloatRange(0, 1), default=0.0, show_default=True,
              help="The handwritten evaluation's weight in the training targets: (1 - W) lambda-return + W "
                   "sigmoid(its static score / K). Validation stays the lambda-returns.")
@click.option("--teacher-eval", type=click.Path(exists=True, dir_okay=False), default=None,
              help="The teacher: this net (TD or NNUE, the evaluation that played a later generation's games) "
                   "instead of the handwritten evaluation.")
@click.option("--init", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Start from this NNUE file's weights (a predecessor, fine-tuned on newer games; use a smaller "
                   "--lr) instead of random ones.")
@click.option("--own-repeat", type=click.IntRange(1, 100), default=1, show_default=True,
              help="Train on the --data games' positions N times an epoch, the --extra ones once (weights the "
                   "engine's own games beside a large --extra).")
@click.option("--calibrate/--no-calibrate", default=True, show_default=True,
              help="Put the net's centipawns on the handwritten evaluation's scale (the slopes of the search's "
                   "score on each, over the validation positions), where the search's margins were set.")
@click.option("--every", type=click.IntRange(1), default=1, show_default=True,
              help="Train on the positions of every N-th ply only (the same games, fewer positions of each).")
@click.option("--batches", type=click.IntRange(0), default=0, show_default=True,
              help="Read the first N batches of each folder (0: every complete one): a fixed view of a folder "
                   "self-play is still writing.")
@click.option("--stop-after", type=click.IntRange(1), default=None,
              help="End this run after N epochs, before the last (go on later with --resume).")
@click.option("--bench", is_flag=True,
              help="Only measure the loop's positions a second at --hidden (on up to 400,000 positions of --data; "
                   "nothing written).")
def train_nnue(folders: tuple[str, ...], out: str, checkpoint: str | None, resume: bool, lam: float, hidden: str,
               epochs: int, batch: int, lr: float, lr_end: float, wd: float, seed: int, k: float | None,
               score_cap: int, min_ply: int, val_fraction: float, max_positions: int, mirror: bool, teacher: float,
               teacher_eval: str | None, every: int, batches: int, stop_after: int | None, bench: bool,
               extra: tuple[str, ...] = (), calibrate: bool = True, init: str | None = None,
               own_repeat: int = 1) -> None:
    """The NNUE evaluation trained by TD(lambda) on the engine's own games (engine/train/nnue.py)."""
    import json
    import shlex
    import sys

    from engine.train import nnue
    try:
        if bench:
            nnue.bench([Path(f) for f in folders], int(hidden), batch, max_positions or 400_000, seed=seed,
                       log=click.echo)
            return
        config = nnue.Config(lam=lam, hidden=int(hidden), epochs=epochs, batch=batch, lr=lr, lr_end=lr_end, wd=wd,
                             seed=seed, k=k, score_cap=score_cap, min_ply=min_ply, val_fraction=val_fraction,
                             max_positions=max_positions, mirror=mirror, teacher=teacher,
                             teacher_eval=teacher_eval, every=every, calibrate=calibrate,
                             batches=batches, init=init, own_repeat=own_repeat)
        command = " ".join(["nmm-chess train nnue"] + [shlex.quote(a) for a in sys.argv[3:]])
        summary = nnue.train([Path(f) for f in folders], Path(out), config, Path(checkpoint) if checkpoint else None,
                             resume, log=click.echo, stop_after=stop_after, command=command,
                             extra=[Path(f) for f in extra])
    except ValueError as e:
        raise click.ClickException(str(e)) from None
    click.echo(json.dumps({k2: v for k2, v in summary.items() if k2 not in ("history", "params", "config")},
                          indent=1))


@train_group.command("wdl")
@click.option("--data", type=click.Path(exists=True, file_okay=False), default=None,
              help="A self-play folder (from 'nmm-chess data selfplay') to count into --bins first; "
                   "without it the fit reads --bins as committed.")
@click.option("--batches", type=click.IntRange(1), default=None,
              help="With --data: its first N batch files only (default: all there are).")
@click.option("--bins", "bins_path", type=click.Path(dir_okay=False), default="reports/wdl/bins.csv",
              show_default=True, help="The positions counted by score bin and material: the fit's input.")
@click.option("--out", type=click.Path(dir_okay=False), default="engine/wdl_params.py", show_default=True,
              help="The generated parameters the engine reads (engine/wdl.py).")
@click.option("--report", type=click.Path(dir_okay=False), default="reports/wdl/fit.json", show_default=True,
              help="The fit's numbers: log-losses, a and b by material, calibration by score.")
def train_wdl(data: str | None, batches: int | None, bins_path: str, out: str, report: str) -> None:
    """The win-draw-loss model of UCI_ShowWDL, fitted to the engine's own games (engine/train/wdl.py)."""
    import shlex
    import sys

    from engine.train import wdl
    command = " ".join(["nmm-chess train wdl"] + [shlex.quote(a) for a in sys.argv[3:]])
    try:
        wdl.run(Path(data) if data else None, Path(bins_path), Path(out), Path(report), batches, command,
                log=click.echo)
    except (ValueError, OSError) as e:
        raise click.ClickException(str(e)) from None
