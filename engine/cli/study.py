"""``nmm-chess study``: the measurements behind the papers' claims."""
from __future__ import annotations

from pathlib import Path

import click

from engine.cli.common import opening_book


@click.group()
def study() -> None:
    """The measurements behind the papers' claims."""


def emit(lines: list[str], out: str | None) -> None:
    """A study's report, a line a row, on stdout, and in ``out`` too when given."""
    text = "\n".join(lines) + "\n"
    click.echo(text, nl=False)
    if out:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(text)


@study.command("evaluators")
@click.option("--nets", "nets_dir", type=click.Path(file_okay=False), default="var/td/evaluators",
              show_default=True, help="Folder of the nets a.npz .. g.npz ('make evaluators-nets').")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Report folder (default: reports/evaluators/depth2 or /<tc>).")
@click.option("--only", default="abcdefgh", show_default=True, help="The evaluators that play.")
@click.option("--games", type=int, default=20, show_default=True, help="Games per pair (the thesis: 10).")
@click.option("--depth", type=int, default=2, show_default=True, help="Fixed depth (0: play --tc instead).")
@click.option("--tc", default="10+0.1", show_default=True)
@click.option("--openings", type=click.Path(exists=True, dir_okay=False), default=None,
              help="PGN or EPD openings (default: 8moves_v3.pgn in the data folder).")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--concurrency", type=int, default=2, show_default=True)
@click.option("--train", "games_file", type=click.Path(dir_okay=False), default=None,
              help="First train the missing nets from these games ('nmm-chess data td').")
@click.option("--epochs", type=int, default=2, show_default=True, help="Training epochs (with --train).")
def study_evaluators(nets_dir: str, out: str | None, only: str, games: int, depth: int, tc: str,
                     openings: str | None, seed: int, concurrency: int, games_file: str | None,
                     epochs: int) -> None:
    """The thesis's round robin of evaluators (Table 6.5): crosstable, Elo, PNG."""
    from engine.study.evaluators import run, train_missing
    if games_file:
        train_missing(Path(nets_dir), Path(games_file), list(only), epochs, seed, log=click.echo)
    folder = Path(out) if out else Path("reports/evaluators") / (f"depth{depth}" if depth else tc)
    click.echo(run(Path(nets_dir), folder, list(only), games, opening_book(openings), seed, depth or None, tc,
                   concurrency,
                   log=click.echo))


@study.command("chessmaps")
@click.option("--games-file", type=click.Path(exists=True, dir_okay=False), default=None,
              help="PGN games (default: masters_pgnmentor_both2500.pgn.gz in the data folder).")
@click.option("--games", type=int, default=3, show_default=True, help="Full games whose positions are searched.")
@click.option("--depths", default="5,8", show_default=True, help="Fixed depths, comma-separated.")
@click.option("--out", type=click.Path(file_okay=False), default="reports/chessmaps", show_default=True)
def study_chessmaps(games_file: str | None, games: int, depths: str, out: str) -> None:
    """Nodes to fixed depths over full games' positions: orderings, move chains, move tables."""
    from engine.perft import data_dir
    from engine.session import options_line
    from engine.study.chessmaps import BASE_OPTIONS, GAMES_FILE, game_positions, run
    fens = game_positions(Path(games_file) if games_file else data_dir() / "games" / GAMES_FILE, games)
    click.echo(f"{len(fens)} positions from {games} games")
    click.echo(f"{options_line(BASE_OPTIONS)}; each variant's settings on top", err=True)
    run(fens, [int(d) for d in depths.split(",")], Path(out), log=click.echo)


@study.command("ordering")
@click.option("--sets", type=click.Path(file_okay=False), default="var/nmm", show_default=True)
@click.option("--net", type=click.Path(dir_okay=False), default="nets/nmm.npz", show_default=True)
@click.option("--out", type=click.Path(file_okay=False), default="reports/nmm", show_default=True)
@click.option("--positions", type=int, default=250, show_default=True,
              help="Per test set (fewer: ratios move by a few points between samples).")
@click.option("--depth", type=int, default=9, show_default=True)
@click.option("--deep", is_flag=True, help="Depth 11, into ordering_deep.csv/.png (slow).")
@click.option("--min-depth", type=int, default=1, show_default=True, help="NMMMinDepth for the net modes.")
@click.option("--cut-nodes-only/--all-nodes", default=True, show_default=True,
              help="Ask the net at PV and expected cut nodes only (NMMCutNodesOnly).")
@click.option("--sweep/--no-sweep", default=True, show_default=True, help="Also the history-weight sweep.")
@click.option("--weights", default="0.001,0.003,0.01,0.03,0.1,1,10,100", show_default=True,
              help="Fixed history weights for the sweep.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--jobs", "-j", type=int, default=2, show_default=True)
def study_ordering(sets: str, net: str, out: str, positions: int, depth: int, deep: bool,
                   min_depth: int, cut_nodes_only: bool, sweep: bool, weights: str, seed: int,
                   jobs: int) -> None:
    """Node counts of every ordering mode against history, by depth; weight sweep; overhead."""
    from engine.session import options_line
    from engine.study.ordering import hhweight_sweep, ordering_study
    click.echo(f"{options_line()}; each mode's settings and the net of --net on top", err=True)
    depth = 11 if deep else depth
    rows = ordering_study(Path(sets), Path(net), Path(out), positions, depth, seed, jobs, min_depth,
                          suffix="_deep" if deep else "", cut_only=cut_nodes_only)
    for r in rows:
        if r["depth"] == depth:
            click.echo(f"{r['set']} {r['mode']:9} depth {depth}: nodes x{r['node_ratio']:.3f}, "
                       f"time x{r['time_ratio']:.3f}")
    if sweep:
        ws = [float(w) for w in weights.split(",")]
        for r in hhweight_sweep(Path(sets), Path(net), Path(out), positions, depth, seed, jobs, ws,
                                min_depth, cut_only=cut_nodes_only):
            if r["depth"] == depth:
                click.echo(f"hhweight {r['hhweight']:>8g} depth {depth}: nodes x{r['node_ratio']:.3f}")


@study.command("overhead")
@click.option("--sets", type=click.Path(file_okay=False), default="var/nmm", show_default=True)
@click.option("--net", type=click.Path(dir_okay=False), default="nets/nmm.npz", show_default=True)
@click.option("--out", type=click.Path(file_okay=False), default="reports/nmm", show_default=True)
@click.option("--positions", type=int, default=50, show_default=True, help="Per test set.")
@click.option("--depth", type=int, default=9, show_default=True)
@click.option("--hhweight", type=float, default=0.0, help="Weighted modes' history weight (0: the net's).")
@click.option("--min-depths", default="1,2,3", show_default=True)
@click.option("--repeats", type=int, default=3, show_default=True)
@click.option("--seed", type=int, default=1, show_default=True)
def study_overhead(sets: str, net: str, out: str, positions: int, depth: int, hhweight: float,
                   min_depths: str, repeats: int, seed: int) -> None:
    """The net's time cost per node at each NMMMinDepth, asked at every node or at PV
    and cut nodes only (modes interleaved, one process)."""
    from engine.session import options_line
    from engine.study.ordering import overhead_study
    click.echo(f"{options_line()}; each mode's settings and the net of --net on top", err=True)
    modes = {"history": {"ordering": "history"}}
    for md in (int(x) for x in min_depths.split(",")):
        for where, cut_only in (("all nodes", False), ("cut nodes", True)):
            modes[f"weighted, min depth {md}, {where}"] = {
                "ordering": "weighted", "nmm_min_depth": md, "nmm_cut_nodes_only": cut_only,
                "hhweight": hhweight or None}
    for r in overhead_study(Path(sets), Path(net), Path(out), positions, depth, seed, modes, repeats):
        click.echo(f"{r['mode']:37} {r['ns_per_node']:6} ns/node  x{r['time_per_node_ratio']:.3f} per node, "
                   f"nodes x{r['node_ratio']:.3f}, time to depth x{r['time_to_depth_ratio']:.3f}")


@study.command("tree-size")
@click.option("--positions", "positions_file", type=click.Path(exists=True, dir_okay=False),
              default="var/nmm/twic.npz", show_default=True,
              help="A pattern set to draw positions from (default: the TWIC 2022 outside test set).")
@click.option("--count", type=int, default=400, show_default=True)
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--depth", type=int, default=11, show_default=True)
@click.option("--rounds", type=int, default=1, show_default=True, help="Rounds (times: the median).")
@click.option("--config", "configs", multiple=True, required=True,
              help="name:key=value,... (Searcher.configure keywords on top of the engine's defaults, net=PATH, "
                   "hash=MB); the first is the reference.")
@click.option("--out", type=click.Path(dir_okay=False), default="reports/nmm_search/tree_size.csv",
              show_default=True)
def study_tree_size(positions_file: str, count: int, seed: int, depth: int, rounds: int,
                    configs: tuple[str, ...], out: str) -> None:
    """Nodes, time per node and time to each depth of search configurations, against the first."""
    from engine.session import options_line
    from engine.study.tree_size import (held_out_positions, parse_config, summary_lines, tree_size_study,
                                        write)
    click.echo(f"{options_line()}; each configuration's settings on top", err=True)
    fens = held_out_positions(Path(positions_file), count, seed)
    rows = tree_size_study(fens, [parse_config(c) for c in configs], depth, rounds)
    write(rows, Path(out))
    for line in summary_lines(rows, sorted({depth - 1, depth})):
        click.echo(line)


@study.command("threads")
@click.option("--positions", "positions_file", type=click.Path(dir_okay=False), default=None,
              help="Middle-game positions: a PGN (plies 20 on), an EPD or a pattern set "
                   "(default: the TWIC 2022 games in the data folder).")
@click.option("--count", type=int, default=200, show_default=True,
              help="Middle-game positions (0: the bench positions only).")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--depth", type=int, default=12, show_default=True, help="Depth for the middle games.")
@click.option("--bench-depth", type=int, default=None,
              help="Depth for the bench positions (default: the bench's own).")
@click.option("--threads", "thread_counts", default="1,2", show_default=True,
              help="Thread counts, the first the reference.")
@click.option("--rounds", type=int, default=3, show_default=True, help="Rounds (times: the median).")
@click.option("--hash", "hash_mb", type=int, default=64, show_default=True)
@click.option("--config", "config", default="", show_default=True,
              help="Searcher.configure keywords on top of the engine's defaults.")
@click.option("--variant", "variants", multiple=True,
              help="More keywords on top of --config, run with the thread counts above 1 only, against "
                   "the same one-thread reference (e.g. helper_depths=pattern-jump); repeatable.")
@click.option("--out", type=click.Path(dir_okay=False), default="reports/threads/time_to_depth.csv",
              show_default=True)
def study_threads(positions_file: str | None, count: int, seed: int, depth: int, bench_depth: int | None,
                  thread_counts: str, rounds: int, hash_mb: int, config: str, variants: tuple[str, ...],
                  out: str) -> None:
    """Time to depth with more threads against one: the bench positions, then middle games."""
    from engine.bench import DEFAULT_DEPTH, POSITIONS
    from engine.perft import data_dir
    from engine.study.threads import middle_game_positions, summary_lines, threads_study, write
    from engine.study.tree_size import parse_config
    from engine.session import options_line
    options = parse_config(f"engine:{config}").options
    click.echo(options_line(settings=options), err=True)
    threads = [int(t) for t in thread_counts.split(",")]
    extra = [parse_config(f"variant:{v}").options for v in variants]
    sets = [("bench", POSITIONS, bench_depth or DEFAULT_DEPTH)]
    if count > 0:
        path = Path(positions_file) if positions_file else data_dir() / "games" / "twic_1427-1428_2022.pgn.gz"
        sets.append(("middle games", middle_game_positions(path, count, seed), depth))
    rows = []
    for name, fens, d in sets:
        found = threads_study(fens, threads, d, rounds, hash_mb, options, variants=extra)
        for line in summary_lines(name, found):
            click.echo(line)
        rows += [{"set": name, **r} for r in found]
    write(rows, Path(out))


@study.command("predict")
@click.option("--sets", type=click.Path(file_okay=False), default="var/nmm", show_default=True)
@click.option("--out", type=click.Path(file_okay=False), default="reports/nmm", show_default=True)
@click.option("--test", "extra", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="More pattern sets to rank on (cut-off sets, engine labels); repeatable.")
@click.argument("nets", nargs=-1, type=click.Path(exists=True, dir_okay=False))
def study_predict(sets: str, out: str, extra: tuple[str, ...], nets: tuple[str, ...]) -> None:
    """Top-1 / top-5 move prediction of NETS on every test set (default: nets/nmm.npz)."""
    from engine.study.predict import predict_study
    paths = [Path(n) for n in nets] or [Path("nets/nmm.npz")]
    for r in predict_study(Path(sets), paths, Path(out), [Path(e) for e in extra]):
        click.echo("  ".join(f"{k}={v}" for k, v in r.items()))


@study.command("endgames")
@click.argument("pgns", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--out", type=click.Path(dir_okay=False), help="Write the report here too.")
def study_endgames(pgns: tuple[str, ...], out: str | None) -> None:
    """In which endings the engine dropped points in the games of PGNS."""
    from engine.study.endgame_losses import endings, report
    emit(report(list(endings(Path(p) for p in pgns))), out)


@study.command("clock")
@click.argument("pgns", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--out", type=click.Path(dir_okay=False), help="Write the report here too.")
def study_clock(pgns: tuple[str, ...], out: str | None) -> None:
    """How each engine spent its clock in the games of PGNS (their %clk and %emt comments)."""
    from engine.study.clock_use import clock_use, pgn_games, report
    emit(report(clock_use(pgn_games(Path(p) for p in pgns))), out)


@study.command("paired")
@click.option("--a", "a_pgns", multiple=True, required=True, type=click.Path(exists=True, dir_okay=False),
              help="Gauntlet A's games against the opponent (repeatable).")
@click.option("--b", "b_pgns", multiple=True, required=True, type=click.Path(exists=True, dir_okay=False),
              help="Gauntlet B's games against the same opponent on the same openings (repeatable).")
@click.option("--opponent", help="The opponent's name in the PGNs (default: the one player in every game).")
@click.option("--out", type=click.Path(dir_okay=False), help="Write the report here too.")
def study_paired(a_pgns: tuple[str, ...], b_pgns: tuple[str, ...], opponent: str | None, out: str | None) -> None:
    """Two builds' gauntlets against one opponent, compared opening by opening."""
    from engine.study.paired_gauntlets import report
    try:
        lines = report([Path(p) for p in a_pgns], [Path(p) for p in b_pgns], opponent)
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    emit(lines, out)


@study.command("sprt-cap")
@click.option("--counts", default="33,225,435,237,40", show_default=True,
              help="A real test's pentanomial counts: the draw rate and spread the runs are drawn with.")
@click.option("--bounds", "elos_h", nargs=2, type=float, default=(0.0, 10.0), show_default=True,
              metavar="ELO0 ELO1", help="The SPRT's hypotheses, logistic Elo.")
@click.option("--elos", default="-5,0,2.5,5,7.5,10,15", show_default=True, help="The true Elo of each row.")
@click.option("--caps", default="2000,3000,4000", show_default=True, help="Caps in games, read from the same runs.")
@click.option("--runs", type=click.IntRange(10), default=1000, show_default=True)
@click.option("--max-games", type=click.IntRange(2), default=20000, show_default=True,
              help="Where an uncapped run stops, undecided.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--out", type=click.Path(dir_okay=False), help="Write the report here too.")
def study_sprt_cap(counts: str, elos_h: tuple[float, float], elos: str, caps: str, runs: int, max_games: int,
                   seed: int, out: str | None) -> None:
    """How often an SPRT accepts H1, and after how many games, with and without a cap."""
    from engine.study.sprt_truncation import report, simulate
    pent = [float(c) for c in counts.split(",")]
    if len(pent) != 5:
        raise click.BadParameter("five pentanomial counts", param_hint="--counts")
    cap_list = [int(c) for c in caps.split(",") if c]
    rows = simulate(pent, *elos_h, [float(e) for e in elos.split(",")], cap_list, runs, max_games, seed)
    emit(report(rows, *elos_h, [int(c) for c in pent], runs, max_games), out)


@study.command("adjudication")
@click.argument("pgns", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--rule", "rules", multiple=True, metavar="WIN_CP/WIN_PLIES/DRAW_PLY/DRAW_CP/DRAW_PLIES",
              default=("1000/8/80/10/16", "800/8/80/10/16", "600/8/80/10/16", "500/8/80/10/16", "400/8/80/10/16",
                       "600/6/80/10/16", "600/8/60/15/12", "600/8/60/20/10", "500/6/60/15/12"),
              show_default=True, help="A rule to replay the games through (repeatable); the first is the runner's.")
@click.option("--out", type=click.Path(dir_okay=False), help="Write the report here too.")
def study_adjudication(pgns: tuple[str, ...], rules: tuple[str, ...], out: str | None) -> None:
    """What quicker adjudication rules would save of PGNS' thinking time, and which verdicts they would change."""
    from engine.data.pgn import open_text
    from engine.study.adjudication import parse_rule, replayed, report, tally
    try:
        parsed = [parse_rule(r) for r in rules]
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--rule")

    def games():
        for path in pgns:
            with open_text(Path(path)) as source:
                yield from replayed(source)
    emit(report(*tally(games(), parsed)), out)


@study.command("turning-points")
@click.argument("pgns", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--threshold", type=click.IntRange(1), default=100, show_default=True,
              help="Centipawns: a turn is where the loser's own score stays at or below minus this.")
@click.option("--sudden", type=click.IntRange(1), default=150, show_default=True,
              help="Centipawns: a turn this far below the loser's move before is sudden.")
@click.option("--out", type=click.Path(dir_okay=False), help="Write the report here too.")
def study_turning_points(pgns: tuple[str, ...], threshold: int, sudden: int, out: str | None) -> None:
    """Where each engine's lost games turned, from the [%eval] comments of PGNS."""
    from engine.study.turning_points import pgn_games, report, summarise, turning_points
    points = turning_points(pgn_games(Path(p) for p in pgns), threshold, sudden)
    emit(report(summarise(points), threshold), out)


@study.command("nnue-scaling")
@click.option("--data", "folders", multiple=True, type=click.Path(file_okay=False), default=["var/selfplay/n5000_s1"],
              show_default=True, help="Self-play folders (repeatable).")
@click.option("--sizes", default="125000,250000,500000,0", show_default=True,
              help="Training positions of each net, comma-separated (0: all).")
@click.option("--hidden", type=click.Choice(["64", "128", "256", "512"]), default="64", show_default=True)
@click.option("--lam", type=click.FloatRange(0, 1), default=0.8, show_default=True)
@click.option("--epochs", type=click.IntRange(1), default=12, show_default=True)
@click.option("--wd", type=float, default=0.1, show_default=True)
@click.option("--mirror/--no-mirror", default=True, show_default=True)
@click.option("--batches", type=click.IntRange(0), default=0, show_default=True,
              help="Read the first N batches of each folder (0: as many as the smallest folder has now).")
@click.option("--teacher", type=click.FloatRange(0, 1), default=0.0, show_default=True,
              help="The handwritten evaluation's weight in the training targets (train nnue --teacher).")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--nets", type=click.Path(file_okay=False), default="var/nnue/scaling", show_default=True,
              help="Where the nets go.")
@click.option("--out", type=click.Path(dir_okay=False), help="Write the report here too.")
def study_nnue_scaling(folders: tuple[str, ...], sizes: str, hidden: str, lam: float, epochs: int, wd: float,
                       mirror: bool, batches: int, teacher: float, seed: int, nets: str, out: str | None) -> None:
    """The NNUE's validation loss against the handwritten evaluation's, by training positions."""
    import shlex
    import sys

    from engine.study.nnue_scaling import report, scaling
    from engine.train.nnue import Config
    config = Config(lam=lam, hidden=int(hidden), epochs=epochs, wd=wd, mirror=mirror, batches=batches,
                    teacher=teacher, seed=seed)
    try:
        rows = scaling([Path(f) for f in folders], [int(s) for s in sizes.split(",")], config, Path(nets),
                       log=click.echo)
    except ValueError as e:
        raise click.ClickException(str(e)) from None
    command = " ".join(["nmm-chess study nnue-scaling"] + [shlex.quote(a) for a in sys.argv[3:]])
    emit(report(rows, config, command), out)


@study.command("syzygy")
@click.option("--tables", type=click.Path(file_okay=False), default=None,
              help="Folder of the 3-4 man Syzygy tables, WDL and DTZ (default: syzygy/ in the data folder).")
@click.option("--won", type=int, default=10, show_default=True, help="Won positions per material.")
@click.option("--drawn", type=int, default=4, show_default=True, help="Drawn positions per material.")
@click.option("--nodes", type=int, default=5000, show_default=True, help="The engine's nodes a move.")
@click.option("--speed-positions", type=int, default=300, show_default=True,
              help="Positions per material for the probe speed.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--out", type=click.Path(file_okay=False), default="reports/syzygy", show_default=True)
def study_syzygy(tables: str | None, won: int, drawn: int, nodes: int, speed_positions: int, seed: int,
                 out: str) -> None:
    """The Syzygy tables in play: won 3-4 man positions mated against the
    DTZ-best defence, drawn ones held; probes a second against python-chess."""
    from engine.study.syzygy import default_tables, run
    for line in run(Path(tables) if tables else default_tables(), Path(out), won, drawn, nodes, seed,
                    speed_positions, log=click.echo):
        click.echo(line)


@study.command("syzygy-starts")
@click.option("--tables", type=click.Path(file_okay=False), default=None,
              help="Folder of the 3-4 man Syzygy tables (default: syzygy/ in the data folder).")
@click.option("--per-material", type=int, default=8, show_default=True)
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--out", type=click.Path(dir_okay=False), default="var/syzygy/starts.epd", show_default=True)
def study_syzygy_starts(tables: str | None, per_material: int, seed: int, out: str) -> None:
    """4-man starts, won and drawn by the tables, for a match with and without them."""
    from engine.study.syzygy import default_tables, write_starts
    click.echo(f"{write_starts(Path(tables) if tables else default_tables(), Path(out), per_material, seed)} "
               f"starts in {out}")


@study.command("elo-ladder")
@click.option("--skills", default="0,200,300,400,600,800,900", show_default=True,
              help="The levels that play, as StrengthSkill values (thousandths; full strength always plays).")
@click.option("--elos", default="", help="UCI_Elo settings that also play, as the map in use makes them: "
              "a check of the map (their games are kept per map).")
@click.option("--anchors", default="1350,1500,1700,1900,2100,2300,2500", show_default=True,
              help="Stockfish 15.1's UCI_Elo values that anchor the scale.")
@click.option("--games", type=int, default=20, show_default=True, help="Games per pairing (a rerun goes on).")
@click.option("--step", type=int, default=4, show_default=True, help="Games added to each pairing in turn.")
@click.option("--opponents", type=int, default=2, show_default=True,
              help="Anchors each level plays: those nearest its Elo.")
@click.option("--vs-full", type=int, default=2, show_default=True,
              help="The strongest levels that also play the engine at full strength.")
@click.option("--tc", default="5+0.05", show_default=True)
@click.option("--openings", type=click.Path(exists=True, dir_okay=False), default=None,
              help="PGN or EPD openings (default: 8moves_v3.pgn in the data folder).")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--out", type=click.Path(file_okay=False), default="reports/strength/elo_ladder", show_default=True,
              help="Where the games are kept.")
@click.option("--report", "report_path", type=click.Path(dir_okay=False), default="reports/strength/elo_ladder.md",
              show_default=True)
@click.option("--report-only", is_flag=True, help="Write the report from the games kept; play none.")
def study_elo_ladder(skills: str, elos: str, anchors: str, games: int, step: int, opponents: int, vs_full: int, tc: str,
                     openings: str | None, seed: int, out: str, report_path: str, report_only: bool) -> None:
    """UCI_Elo's calibration: the engine's levels against Stockfish's UCI_Elo
    ladder and its own full strength; measured Elo ± 95% by level, and the
    UCI_Elo map the games suggest (reports/strength/elo_ladder.md)."""
    import shlex
    import sys
    from engine.study.elo_ladder import parse_list, run
    args = sys.argv[sys.argv.index("elo-ladder") + 1:] if "elo-ladder" in sys.argv else []
    command = "nmm-chess study elo-ladder " + shlex.join(a for a in args if a != "--report-only")
    click.echo(run(parse_list(skills), parse_list(anchors), games, step, opponents, vs_full, opening_book(openings),
                   seed, tc, Path(out), Path(report_path), command.strip(), log=click.echo,
                   play_games=not report_only, settings=parse_list(elos)))
