"""``nmm-chess data``: training data from the game collections."""
from __future__ import annotations

from pathlib import Path

import click

from engine.cli.common import engine_options, option_flag
from engine.options import DEFAULT_EVAL, EVALS


@click.group()
def data() -> None:
    """Build training data from the game collections."""


@data.command("nmm")
@click.option("--data", "data_path", type=click.Path(file_okay=False), default=None,
              help="The data folder (default: $NMM_DATA or ../shared/data).")
@click.option("--out", type=click.Path(file_okay=False), default="var/nmm", show_default=True)
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--jobs", "-j", type=int, default=2, show_default=True)
@click.option("--limit", type=int, default=None, help="Read only this many games per file (for trials).")
@click.option("--twic-only", is_flag=True, help="Only the outside test set (twic.npz).")
def data_nmm(data_path: str | None, out: str, seed: int, jobs: int, limit: int | None, twic_only: bool) -> None:
    """Pattern sets for the Neural MoveMap: test, validation, learning, TWIC."""
    import json

    from engine.data.nmm import build, build_twic
    from engine.perft import data_dir
    if twic_only:
        n = build_twic(Path(data_path) if data_path else data_dir(), Path(out), jobs, limit)
        click.echo(f"{out}/twic.npz: {n} positions")
        return
    summary = build(Path(data_path) if data_path else data_dir(), Path(out), seed, jobs, limit)
    click.echo(json.dumps(summary, indent=2))


@data.command("td")
@click.option("--data", "data_path", type=click.Path(file_okay=False), default=None,
              help="The data folder (default: $NMM_DATA or ../shared/data).")
@click.option("--out", type=click.Path(dir_okay=False), default="var/td/games.npz", show_default=True)
@click.option("--games", type=int, default=60_000, show_default=True, help="Games drawn at random (0: all).")
@click.option("--val-games", type=int, default=2000, show_default=True, help="Held back for validation.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--jobs", "-j", type=int, default=2, show_default=True)
def data_td(data_path: str | None, out: str, games: int, val_games: int, seed: int, jobs: int) -> None:
    """Games for the TD evaluation: every position's features, each game's result."""
    import json

    from engine.data.td import build
    from engine.perft import data_dir
    summary = build(Path(data_path) if data_path else data_dir(), Path(out), games or None, seed, jobs,
                    val_games)
    click.echo(json.dumps(summary, indent=2))


@data.command("chessmaps")
@click.option("--data", "data_path", type=click.Path(file_okay=False), default=None,
              help="The data folder (default: $NMM_DATA or ../shared/data).")
@click.option("--out", type=click.Path(dir_okay=False), default="nets/strategy.npz", show_default=True)
@click.option("--pgn", "pgns", type=click.Path(exists=True, dir_okay=False), multiple=True,
              help="PGN files instead of the data folder's master collections (repeatable; never TWIC).")
@click.option("--games", type=int, default=40000, show_default=True,
              help="Games read, from masters_pgnmentor_both2500 then pre1970.")
@click.option("--min-count", type=int, default=3, show_default=True, help="Times a 3-ply path must be seen.")
@click.option("--jobs", type=int, default=2, show_default=True)
def data_chessmaps(data_path: str | None, out: str, pgns: tuple[str, ...], games: int, min_count: int,
                   jobs: int) -> None:
    """The ChessMaps strategy database: popular squares after master games' 3-ply paths."""
    from engine.data.strategy import build, save
    from engine.perft import data_dir
    folder = Path(data_path) if data_path else data_dir()
    folder = folder / "games" if (folder / "games").is_dir() else folder
    files = [Path(p) for p in pgns] or [folder / "masters_pgnmentor_both2500.pgn.gz",
                                        folder / "masters_pgnmentor_pre1970.pgn.gz"]
    try:
        db = build([f for f in files if f.is_file()], games, min_count, jobs, log=click.echo)
    except ValueError as e:
        raise click.ClickException(str(e)) from None
    save(db, Path(out))
    click.echo(f"wrote {out}: {len(db.keys):,} moves")


@data.command("texel")
@click.option("--data", "data_path", type=click.Path(file_okay=False), default=None,
              help="The data folder (default: $NMM_DATA or ../shared/data).")
@click.option("--pgn", "pgns", type=click.Path(exists=True, dir_okay=False), multiple=True,
              help="PGN files instead of the master collections, e.g. the engine's own games "
                   "(repeatable; never TWIC).")
@click.option("--out", type=click.Path(dir_okay=False), default="var/texel/rows.npz", show_default=True)
@click.option("--games", type=int, default=120_000, show_default=True, help="Games drawn at random (0: all).")
@click.option("--every", type=click.IntRange(1), default=4, show_default=True,
              help="One position in this many per game (then only the quiet ones).")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--jobs", "-j", type=int, default=2, show_default=True)
def data_texel(data_path: str | None, pgns: tuple[str, ...], out: str, games: int, every: int, seed: int,
               jobs: int) -> None:
    """Quiet game positions as the evaluation's weight counts, with results (for 'train texel')."""
    import json

    from engine.data.texel import build
    from engine.perft import data_dir
    try:
        summary = build(Path(data_path) if data_path else data_dir(), Path(out), games or None, every, seed,
                        jobs, [Path(p) for p in pgns] or None)
    except ValueError as e:
        raise click.ClickException(str(e)) from None
    summary.pop("layout")
    click.echo(json.dumps(summary, indent=2))


@data.command("endgame-starts")
@click.option("--out", type=click.Path(dir_okay=False), default="var/strength/endgame_starts.epd",
              show_default=True)
@click.option("--per-kind", type=click.IntRange(1), default=25, show_default=True)
@click.option("--seed", type=int, default=1, show_default=True)
def data_endgame_starts(out: str, per_kind: int, seed: int) -> None:
    """Endgame start positions (KPK, wrong rook pawn, opposite bishops, KBNK) for EndgameRules matches."""
    from engine.data.endgame_starts import write_epd
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    click.echo(f"{write_epd(Path(out), per_kind, seed)} positions in {out}")


@data.command("label")
@click.argument("positions", type=click.Path(exists=True, dir_okay=False))
@click.option("--out", type=click.Path(dir_okay=False), default="var/labels.csv", show_default=True,
              help="CSV: fen, bestmove, score_cp, depth, nodes; finished batches wait in <out>.work.")
@click.option("--depth", type=click.IntRange(1, 64), default=None, help="Search depth (or --nodes).")
@click.option("--nodes", type=click.IntRange(1), default=None, help="Nodes per position (or --depth).")
@click.option("--eval", "evaluation", type=click.Choice(EVALS), default=DEFAULT_EVAL,
              show_default=True)
@click.option("--every", type=int, default=1, show_default=True, help="PGN input: every N-th position.")
@click.option("--limit", type=int, default=None, help="Read at most this many positions.")
@click.option("--sample", type=int, default=None, help="Label this many of them, drawn by --seed.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--batch", type=int, default=256, show_default=True, help="Positions per unit of work.")
@click.option("--workers", "-j", type=int, default=2, show_default=True, help="Local processes.")
@click.option("--cluster", default=None, metavar="ADDRESS",
              help="Run the batches on a Ray cluster (e.g. ray://head:10001; 'local' starts one here).")
@click.option("--patterns", type=click.Path(dir_okay=False), default=None,
              help="Also write the labels as a pattern set (.npz) for 'train nmm --learn'.")
@option_flag
def data_label(positions: str, out: str, depth: int | None, nodes: int | None, evaluation: str, every: int,
               limit: int | None, sample: int | None, seed: int, batch: int, workers: int,
               cluster: str | None, patterns: str | None, option_items: tuple[str, ...]) -> None:
    """Label POSITIONS (EPD/FEN lines, or a PGN's games) with the engine's best move and score."""
    from engine.data.batches import sample_positions
    from engine.data.label import label, read_positions
    from engine.session import options_line
    if not depth and not nodes:
        raise click.BadParameter("give --depth or --nodes")
    options = engine_options(option_items)
    click.echo(options_line({"Eval": evaluation, **options}), err=True)
    fens = sample_positions(read_positions(Path(positions), every, limit, last_move=True), sample, seed)
    ran = label(fens, Path(out), depth, nodes, evaluation, batch, workers, cluster, options=options)
    click.echo(f"{len(fens)} positions in {out} ({ran} batches labelled now)")
    if patterns:
        from engine.data.label import to_patterns
        labelled = to_patterns(Path(out))
        labelled.save(Path(patterns))
        click.echo(f"{len(labelled)} labelled positions as a pattern set in {patterns} (train nmm --learn it)")


@data.command("cutoffs")
@click.argument("positions", type=click.Path(exists=True, dir_okay=False))
@click.option("--out", type=click.Path(dir_okay=False), default="var/cutoffs/learn.npz", show_default=True,
              help="Pattern set with depth and tried; finished batches wait in <out>.work.")
@click.option("--depth", type=click.IntRange(2, 64), default=12, show_default=True, help="Search depth.")
@click.option("--min-depth", type=click.IntRange(1, 64), default=2, show_default=True,
              help="Record cut-offs this many plies from the leaves or more (NMMMinDepth).")
@click.option("--min-ply", type=int, default=12, show_default=True,
              help="PGN input: positions from this half-move on.")
@click.option("--every", type=int, default=3, show_default=True, help="PGN input: every N-th position.")
@click.option("--limit", type=int, default=None, help="Read at most this many positions.")
@click.option("--sample", type=int, default=4000, show_default=True, help="Search this many, drawn by --seed.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--batch", type=int, default=64, show_default=True, help="Positions per unit of work.")
@click.option("--workers", "-j", type=int, default=2, show_default=True, help="Local processes.")
@click.option("--cluster", default=None, metavar="ADDRESS", help="Run the batches on a Ray cluster.")
@click.option("--test-set", is_flag=True, help="The output is a test set (allows the TWIC games).")
@option_flag
def data_cutoffs(positions: str, out: str, depth: int, min_depth: int, min_ply: int, every: int,
                 limit: int | None, sample: int, seed: int, batch: int, workers: int,
                 cluster: str | None, test_set: bool, option_items: tuple[str, ...]) -> None:
    """Search POSITIONS (EPD/FEN lines, or a PGN's games) and record, at every node where a
    quiet move cut off, its quiet moves and the one that cut: the move picker's training data.

    The TWIC 2022 games are the outside test set: they are read only with --test-set."""
    from engine.data.batches import sample_positions
    from engine.data.cutoffs import collect
    from engine.data.label import fen_ply, read_positions
    if "twic" in Path(positions).name.lower() and not test_set:
        raise click.BadParameter("the TWIC games are the outside test set: give --test-set, and never train on it")
    from engine.session import options_line
    options = engine_options(option_items)
    click.echo(options_line(options), err=True)
    fens = [f for f in read_positions(Path(positions), every, limit) if fen_ply(f) >= min_ply]
    fens = sample_positions(fens, sample, seed)
    samples, ran = collect(fens, Path(out), depth, min_depth, batch, workers, cluster, options=options)
    click.echo(f"{len(fens)} positions searched to depth {depth}: {samples} cut-off samples in {out} "
               f"({ran} batches run now)")


@data.command("pgn-records")
@click.argument("pgn", type=click.Path(exists=True, dir_okay=False))
@click.option("--out", type=click.Path(file_okay=False), required=True,
              help="The folder of batch files and job.json; a rerun continues it.")
@click.option("--nodes", type=click.IntRange(0), default=1, show_default=True,
              help="Each position's score: a search to this soft node limit (1: the first iteration); "
                   "0: the static evaluation.")
@click.option("--batch-games", type=click.IntRange(1), default=1000, show_default=True, help="Games per batch file.")
@click.option("--min-elo", type=click.IntRange(0), default=0, show_default=True,
              help="Only games whose players are both rated this or more (0: all).")
@click.option("--max-games", type=click.IntRange(0), default=0, show_default=True,
              help="Only the file's first this many games (0: all).")
@click.option("--workers", "-j", type=click.IntRange(1), default=1, show_default=True, help="Local processes.")
def data_pgn_records(pgn: str, out: str, nodes: int, batch_games: int, min_elo: int, max_games: int,
                     workers: int) -> None:
    """The games of a PGN file as records in the self-play format (each
    position scored by the engine, the PGN's result), for 'train nnue
    --extra'. TWIC files (the outside test set) are refused."""
    import json

    from engine.data.pgn_records import convert
    try:
        summary = convert(Path(pgn), Path(out), batch_games, nodes, min_elo, max_games, workers)
    except ValueError as e:
        raise click.ClickException(str(e)) from None
    click.echo(json.dumps(summary, indent=2))


@data.command("selfplay")
@click.option("--out", type=click.Path(file_okay=False), default="var/selfplay/default", show_default=True,
              help="The folder of batch files (batch_000000.bin, ...) and job.json; a rerun continues it.")
@click.option("--games", type=click.IntRange(1), default=100, show_default=True,
              help="Games in all (rounded up to whole batches).")
@click.option("--batch-games", type=click.IntRange(1), default=20, show_default=True, help="Games per batch file.")
@click.option("--nodes", type=click.IntRange(1), default=5000, show_default=True,
              help="Soft node limit per move: no new iteration once a search has this many nodes.")
@click.option("--hard-nodes", type=click.IntRange(1), default=None, help="Hard node cap per move [4 x --nodes].")
@click.option("--seed", type=int, default=1, show_default=True, help="Batch k plays from seed (SEED, k).")
@click.option("--openings", type=click.Path(exists=True, dir_okay=False), default=None,
              help="EPD opening suite (default: $NMM_DATA or ../shared/data, openings/2moves_v1.epd).")
@click.option("--random-plies", type=(click.IntRange(0), click.IntRange(0)), default=(4, 8), show_default=True,
              metavar="MIN MAX", help="Random legal plies played after the opening position.")
@click.option("--eval-file", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Play with this net, a TD net or an NNUE (default: the handwritten evaluation).")
@click.option("--no-adjudicate", is_flag=True, help="Play every game out (no adjudicated wins or draws).")
@click.option("--workers", "-j", type=click.IntRange(1), default=2, show_default=True, help="Local processes.")
@click.option("--cluster", default=None, metavar="ADDRESS", help="Run the batches on a Ray cluster.")
def data_selfplay(out: str, games: int, batch_games: int, nodes: int, hard_nodes: int | None, seed: int,
                  openings: str | None, random_plies: tuple[int, int], eval_file: str | None,
                  no_adjudicate: bool, workers: int, cluster: str | None) -> None:
    """Self-play games of the engine at its defaults, every searched position a
    32-byte record (score, best move, result) in resumable batch files
    (engine/data/selfplay.py: the format)."""
    import json

    from engine.data.selfplay_games import DEFAULT_OPENINGS, generate, make_job
    from engine.perft import data_dir
    suite = Path(openings) if openings else data_dir() / DEFAULT_OPENINGS
    if not suite.is_file():
        raise click.ClickException(f"no opening suite at {suite}: give --openings")
    try:
        job = make_job(suite, nodes, hard_nodes, seed, batch_games, random_plies, eval_file, not no_adjudicate)
        summary = generate(suite, job, games, Path(out), workers, cluster)
    except ValueError as e:
        raise click.ClickException(str(e)) from None
    click.echo(json.dumps(summary, indent=2))
