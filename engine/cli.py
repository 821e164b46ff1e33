"""The ``nmm-chess`` command. With no subcommand it speaks UCI on stdin/stdout."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import click


def opening_book(openings: str | None) -> Path:
    """The openings file given, else 8moves_v3.pgn in the data folder."""
    from engine.perft import data_dir
    return Path(openings) if openings else data_dir() / "openings" / "8moves_v3.pgn"


def clock(tc: str) -> tuple[float, float]:
    """``10+0.1`` -> (10.0, 0.1) seconds."""
    base, _, inc = tc.partition("+")
    return float(base), float(inc or 0)


def require_runner(runner: str) -> None:
    """A usage error unless the cutechess-cli / fastchess binary is found."""
    from engine.tools.runners import find
    if find(runner) is None:
        raise click.ClickException(f"{runner} is not on PATH nor in ~/.local/bin "
                                   "(../shared/tools/build-match-tools.sh builds it)")


@click.group(invoke_without_command=True)
@click.pass_context
def main(ctx: click.Context) -> None:
    """nmm-chess: a UCI chess engine. Run with no command to speak UCI."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(uci)


@main.command()
def uci() -> None:
    """Speak UCI on stdin/stdout (what a GUI runs)."""
    import os
    # numpy only loads the nets here; its BLAS threads would spin beside the
    # search on the same cores.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from engine.uci import main as uci_main
    uci_main()
    # Every answer is written and flushed: leave now rather than wait for the
    # interpreter's teardown (numpy, threads), so that quit is quick.
    sys.stdout.flush()
    os._exit(0)


@main.command()
@click.option("--fen", default=None, help="Start position (default: the initial position).")
@click.option("--depth", "-d", type=click.IntRange(0, 20), default=None, help="Plies to count.")
@click.option("--divide", is_flag=True, help="Print the count below each root move.")
@click.option("--bulk/--no-bulk", default=True, show_default=True,
              help="Count the last ply's moves without making them.")
@click.option("--chess960", is_flag=True, help="Print castling as king-takes-rook.")
@click.option("--suite", "suites", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="Check an EPD perft suite instead (repeatable).")
@click.option("--max-nodes", type=int, default=None,
              help="With --suite: skip depths whose expected count is larger.")
@click.option("--jobs", "-j", type=int, default=1, show_default=True,
              help="With --suite: worker processes.")
@click.option("--hash", "hash_mb", type=int, default=0, show_default=True,
              help="With --suite: MB of subtree-count table per process (0: none).")
@click.option("--log", "log_path", type=click.Path(dir_okay=False), default=None,
              help="With --suite: append each position's outcome here, and skip those it has.")
def perft(fen: str | None, depth: int | None, divide: bool, bulk: bool, chess960: bool,
          suites: tuple[str, ...], max_nodes: int | None, jobs: int, hash_mb: int,
          log_path: str | None) -> None:
    """Count leaf nodes of the legal-move tree, or check perft suites.

    \b
    nmm-chess perft --depth 5
    nmm-chess perft --fen "r3k2r/... w KQkq - 0 1" --depth 4 --divide
    nmm-chess perft --suite tests/fixtures/perft/cpw_perft6.epd --max-nodes 1000000
    """
    from engine._core import STARTING_FEN, Board
    from engine.perft import check_suites

    if suites:
        start = time.perf_counter()
        result = check_suites([Path(s) for s in suites], max_nodes, jobs, hash_mb, progress=True,
                              log=Path(log_path) if log_path else None)
        elapsed = time.perf_counter() - start
        for m in result.mismatches:
            click.echo(f"MISMATCH depth {m.depth}: expected {m.expected}, got {m.got}: {m.fen}")
        click.echo(f"{result.checks} counts checked, {len(result.mismatches)} wrong, "
                   f"{result.nodes} nodes in {elapsed:.1f} s")
        sys.exit(1 if result.mismatches else 0)
    if depth is None:
        raise click.UsageError("give --depth (or --suite)")
    try:
        board = Board(fen or STARTING_FEN, chess960=chess960)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--fen") from None
    start = time.perf_counter()
    if divide and depth > 0:
        total = 0
        for move, nodes in board.divide(depth, bulk):
            click.echo(f"{move}: {nodes}")
            total += nodes
        click.echo("")
    else:
        total = board.perft(depth, bulk)
    elapsed = time.perf_counter() - start
    click.echo(f"Nodes searched: {total}")
    click.echo(f"Time: {elapsed:.3f} s, {total / max(elapsed, 1e-9) / 1e6:.1f} M nodes/s")


@main.command("bench-perft")
@click.option("--runs", type=int, default=5, show_default=True, help="Runs per measurement.")
@click.option("--quick", is_flag=True, help="Smaller depths (a smoke run).")
def bench_perft(runs: int, quick: bool) -> None:
    """Perft speed against python-chess, median of several runs."""
    from engine.tools.bench_perft import run
    run(runs, quick)


@main.command("bench-eval")
@click.option("--net", "nets", type=click.Path(exists=True, dir_okay=False), multiple=True,
              help="A TD net to time (repeatable; default: the shipped nets/td.npz).")
@click.option("--runs", type=int, default=5, show_default=True, help="Rounds; the median is reported.")
@click.option("--depth", type=click.IntRange(1, 64), default=None, help="Search depth (default: the bench depth).")
def bench_eval(nets: tuple[str, ...], runs: int, depth: int | None) -> None:
    """Search speed with each evaluation: median nps and the ratio to handwritten."""
    from engine.bench import DEFAULT_DEPTH
    from engine.nets import DEFAULT_TD
    from engine.tools.bench_eval import run
    run([Path(n) for n in nets] or [DEFAULT_TD], runs, depth or DEFAULT_DEPTH)


@main.command()
@click.option("--depth", type=click.IntRange(1, 64), default=None, help="Search depth (default: the bench depth).")
@click.option("--eval", "evaluation", type=click.Choice(["handwritten", "td"]), default="handwritten",
              show_default=True, help="The evaluation to search with.")
@click.option("--eval-file", type=click.Path(dir_okay=False), default=None,
              help="The TD net for --eval td (default: the shipped nets/td.npz).")
def bench(depth: int | None, evaluation: str, eval_file: str | None) -> None:
    """Fixed-depth search of fixed positions; the last line is 'N nodes M nps'."""
    from engine.bench import DEFAULT_DEPTH, run_bench
    from engine.nets import DEFAULT_TD, load_td
    td = load_td(Path(eval_file) if eval_file else DEFAULT_TD) if evaluation == "td" else None

    def show(i: int, fen: str, result: dict) -> None:
        click.echo(f"position {i + 1:2}: {result['bestmove']:6} score {result['score']:6} "
                   f"nodes {result['nodes']}", err=True)
    nodes, seconds = run_bench(depth or DEFAULT_DEPTH, on_position=show, td=td)
    click.echo(f"{nodes} nodes {int(nodes / max(seconds, 1e-9))} nps")


@main.command()
@click.argument("epd", type=click.Path(exists=True, dir_okay=False))
@click.option("--movetime", type=float, default=1.0, show_default=True, help="Seconds per position.")
@click.option("--nodes", type=click.IntRange(1), default=None,
              help="Nodes per position instead of a time: the same result on any machine (one thread).")
@click.option("--limit", type=int, default=None, help="Only the first N positions.")
@click.option("--engine", "engine_spec", default="nmm", show_default=True,
              help="Engine spec (see match), e.g. nmm:Eval=td.")
@click.option("--fullmove", type=click.IntRange(1, 1000), default=None,
              help="The move number to give every position (EPD has none: it reads as move 1, which the TD "
                   "net's phase rule takes for the opening).")
def suite(epd: str, movetime: float, nodes: int | None, limit: int | None, engine_spec: str,
          fullmove: int | None) -> None:
    """Solve rate on an EPD test suite (bm/am), through the UCI engine."""
    from engine.tools.engines import parse_spec
    from engine.tools.epd_suite import run_suite
    spec = parse_spec(engine_spec)
    result = run_suite(Path(epd), movetime, spec.command, spec.options, limit, fullmove=fullmove, nodes=nodes)
    for ident, expected, played in result.failures:
        click.echo(f"  missed {ident}: expected {expected}, played {played}")
    budget = f"{nodes} nodes" if nodes else f"{movetime:g} s"
    click.echo(f"{spec.label}: {result.solved}/{result.total} solved at {budget} per position "
               f"(mean depth {sum(result.depths) / max(len(result.depths), 1):.1f})")
    if result.max_points:
        click.echo(f"{spec.label}: {result.points}/{result.max_points} points, "
                   f"{100 * result.points / result.max_points:.1f}%")


@main.command()
@click.argument("engine_a")
@click.argument("engine_b")
@click.option("--games", type=int, default=100, show_default=True, help="Games (even: each opening twice).")
@click.option("--tc", default="10+0.1", show_default=True, help="Seconds + increment per move.")
@click.option("--openings", type=click.Path(exists=True, dir_okay=False), default=None,
              help="PGN or EPD openings (default: 8moves_v3.pgn in the data folder).")
@click.option("--seed", type=int, default=1, show_default=True, help="Which openings are drawn.")
@click.option("--concurrency", type=int, default=1, show_default=True)
@click.option("--adjudicate/--no-adjudicate", default=True, show_default=True,
              help="Built-in runner: a win once both engines' scores agree on 10 pawns or more for 8 plies "
                   "running, a draw once both stay within 0.10 pawns for 16 plies after ply 80. cutechess / "
                   "fastchess: -resign movecount=4 score=1000 twosided=true -draw movenumber=40 movecount=8 "
                   "score=10.")
@click.option("--pgn", type=click.Path(dir_okay=False), default=None, help="Write the games here.")
@click.option("--resume", is_flag=True,
              help="Go on with the match whose games are in --pgn (same engines, --seed, --openings and "
                   "--games): they count, and only the rest are played.")
@click.option("--ponder", is_flag=True, help="Both engines think on the opponent's time.")
@click.option("--depth", type=click.IntRange(1, 64), default=None,
              help="Fixed depth per move instead of a clock (e.g. the TD thesis's 2 plies).")
@click.option("--nodes", type=click.IntRange(1), default=None, help="Fixed nodes per move instead of a clock.")
@click.option("--sprt", nargs=2, type=float, default=None, metavar="ELO0 ELO1",
              help="Stop once the SPRT of H0: ELO0 against H1: ELO1 decides (pentanomial, on the "
                   "openings played with both colours; --games is then the most played).")
@click.option("--sprt-model", type=click.Choice(["normalized", "logistic"]), default="normalized",
              show_default=True, help="Bounds in normalised Elo (fishtest's default) or logistic Elo.")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="SPRT: false positive rate.")
@click.option("--beta", type=float, default=0.05, show_default=True, help="SPRT: false negative rate.")
@click.option("--runner", type=click.Choice(["builtin", "cutechess", "fastchess"]), default="builtin",
              show_default=True, help="Who plays the games: this package's runner, or cutechess-cli / fastchess "
                                      "(on PATH or in ~/.local/bin) given the same openings; their PGN is read "
                                      "back. With --sprt the tool runs its own test and stops the match "
                                      "(cutechess-cli in its BayesElo model); the report judges the games "
                                      "it played with this package's test.")
def match(engine_a: str, engine_b: str, games: int, tc: str, openings: str | None, seed: int,
          concurrency: int, adjudicate: bool, pgn: str | None, resume: bool, ponder: bool, depth: int | None,
          sprt: tuple[float, float] | None, sprt_model: str, alpha: float, beta: float, runner: str,
          nodes: int | None) -> None:
    """Play ENGINE_A against ENGINE_B, e.g. nmm stockfish:UCI_LimitStrength=true,UCI_Elo=2000."""
    from engine.tools.engines import parse_spec
    from engine.tools.match import game_writer, load_openings, read_games, report, rewrite_pgn, run_match
    from engine.tools.sprt import Sprt, pentanomial

    try:
        test = Sprt(sprt[0], sprt[1], alpha, beta, sprt_model) if sprt else None
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--sprt") from None

    a, b = parse_spec(engine_a), parse_spec(engine_b)
    base, inc = clock(tc)
    boards = load_openings(opening_book(openings), (games + 1) // 2, seed)
    played = []
    if resume:
        if not pgn or runner != "builtin":
            raise click.BadParameter("the built-in runner resumes from the games in --pgn", param_hint="--resume")
        try:
            played = read_games(Path(pgn), a.label, b.label, boards)
        except ValueError as e:
            raise click.ClickException(str(e)) from None
    pgn_file = rewrite_pgn(Path(pgn), played, click.echo) if pgn else None
    on_game = game_writer(click.echo, pgn_file)

    def decided(summary) -> bool:
        return test is not None and test.verdict(pentanomial(summary.pairs()))[1] is not None
    if runner == "builtin":
        summary = run_match(a, b, boards, base, inc, concurrency, adjudicate, on_game,
                            ponder, depth, stop=decided, nodes=nodes, played=played)
    else:
        from engine.tools.runners import run_external
        require_runner(runner)
        import tempfile
        with tempfile.TemporaryDirectory() as work:
            summary = run_external(runner, a, b, boards, base, inc, concurrency, adjudicate,
                                   depth, Path(work), log=click.echo, nodes=nodes, sprt=test)
        for i, game in enumerate(summary.games):
            on_game(game, type(summary)(summary.games[:i + 1]))
    click.echo(report(a, b, base, inc, summary, adjudicate, depth, test, nodes))


@main.command("match-log")
@click.argument("logs", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--sprt", nargs=2, type=float, default=(0.0, 10.0), show_default=True, metavar="ELO0 ELO1",
              help="Bounds for the log-likelihood ratio.")
@click.option("--sprt-model", type=click.Choice(["normalized", "logistic"]), default="normalized",
              show_default=True, help="Bounds in normalised or logistic Elo.")
def match_log(logs: tuple[str, ...], sprt: tuple[float, float], sprt_model: str) -> None:
    """Summarise a match log, also one whose match was stopped early or still runs;
    several logs of the same engines read as one match (an SPRT continued)."""
    from engine.tools.match_log import summary
    click.echo(summary([Path(log) for log in logs], *sprt, sprt_model))


@main.command()
@click.argument("engines", nargs=-1, required=True)
@click.option("--gauntlet", is_flag=True, help="The first engine against each other (default: round robin).")
@click.option("--games", type=int, default=20, show_default=True, help="Games per pairing (each opening twice).")
@click.option("--tc", default="10+0.1", show_default=True, help="Seconds + increment per move.")
@click.option("--depth", type=click.IntRange(1, 64), default=None, help="Fixed depth per move instead of a clock.")
@click.option("--openings", type=click.Path(exists=True, dir_okay=False), default=None,
              help="PGN or EPD openings (default: 8moves_v3.pgn in the data folder).")
@click.option("--seed", type=int, default=1, show_default=True, help="Which openings are drawn.")
@click.option("--concurrency", type=int, default=1, show_default=True)
@click.option("--out", type=click.Path(file_okay=False), default="var/tournament", show_default=True,
              help="pairs.json (a rerun resumes from it), crosstable.csv, pairings.csv, standings.csv/.txt/.png.")
@click.option("--runner", type=click.Choice(["builtin", "cutechess", "fastchess"]), default="builtin",
              show_default=True, help="Who plays the games (see match --runner).")
@click.option("--cluster", default=None, metavar="ADDRESS",
              help="Play the game pairs on a Ray cluster (e.g. ray://head:10001; 'local' starts one here).")
def tournament(engines: tuple[str, ...], gauntlet: bool, games: int, tc: str, depth: int | None,
               openings: str | None, seed: int, concurrency: int, out: str, runner: str,
               cluster: str | None) -> None:
    """A round robin (or gauntlet) of ENGINES, e.g. nmm nmm:Eval=td gnuchess."""
    from engine.tools import tournament as t
    from engine.tools.engines import parse_spec
    from engine.tools.match import load_openings

    specs = {}
    for text in engines:
        spec = parse_spec(text)
        name = spec.label if spec.label not in specs else f"{spec.label}#{len(specs) + 1}"
        specs[name] = spec
    if len(specs) < 2:
        raise click.BadParameter("a tournament needs two engines or more", param_hint="ENGINES")
    names = list(specs)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    boards = load_openings(opening_book(openings), (games + 1) // 2, seed)
    if runner != "builtin":
        if cluster:
            raise click.BadParameter("a cluster plays with the built-in runner", param_hint="--runner")
        require_runner(runner)
    try:
        pairs = t.play(specs, t.schedule(names, gauntlet), boards, *clock(tc), concurrency, depth,
                       folder / "pairs.json", click.echo, runner, cluster)
    except ValueError as e:                     # a pairing's PGN from another tournament
        raise click.ClickException(str(e)) from None
    setting = f"depth {depth}" if depth else f"{tc}"
    click.echo(t.write_reports(folder, pairs, names,
                               f"{'Gauntlet' if gauntlet else 'Round robin'}, {games} games a pairing, {setting}"))


@main.command()
@click.argument("ranges", nargs=-1, required=True)
@click.option("--engine", "engine_spec", default="nmm", show_default=True, help="The engine swept (a spec).")
@click.option("--measure", type=click.Choice(["nodes", "match"]), default="nodes", show_default=True,
              help="nodes: to a fixed depth over a position set; match: Elo against --against.")
@click.option("--depth", type=click.IntRange(1, 64), default=None,
              help="nodes: the depth (default 8); match: a fixed depth per move instead of --tc.")
@click.option("--positions", type=click.Path(exists=True, dir_okay=False), default=None,
              help="nodes: EPD/FEN lines (default: the bench positions).")
@click.option("--against", default="nmm", show_default=True, help="match: the opponent (a spec).")
@click.option("--games", type=int, default=100, show_default=True, help="match: games per point.")
@click.option("--tc", default="10+0.1", show_default=True)
@click.option("--openings", type=click.Path(exists=True, dir_okay=False), default=None,
              help="match: PGN or EPD openings (default: 8moves_v3.pgn in the data folder).")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--concurrency", type=int, default=1, show_default=True)
@click.option("--out", type=click.Path(file_okay=False), default="var/sweep", show_default=True,
              help="points.json (a rerun resumes from it), sweep.csv, sweep.png.")
@click.option("--workers", "-j", type=int, default=1, show_default=True, help="Points measured at once, here.")
@click.option("--cluster", default=None, metavar="ADDRESS",
              help="Measure the points on a Ray cluster (e.g. ray://head:10001; 'local' starts one here).")
def sweep(ranges: tuple[str, ...], engine_spec: str, measure: str, depth: int | None, positions: str | None,
          against: str, games: int, tc: str, openings: str | None, seed: int, concurrency: int,
          out: str, workers: int, cluster: str | None) -> None:
    """Measure a figure over a grid of option values, e.g. 'HistoryWeight=1000..100000 log 5'."""
    from functools import partial

    from engine.bench import POSITIONS
    from engine.data.label import read_positions
    from engine.tools import sweep as sw
    from engine.tools.engines import parse_spec
    from engine.tools.match import load_openings

    try:
        points = sw.grid(list(ranges))
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="RANGES") from None
    spec = parse_spec(engine_spec)
    if measure == "nodes":
        fens = read_positions(Path(positions)) if positions else POSITIONS
        figure, measure_point = "nodes", partial(sw.nodes_to_depth, spec, fens=fens, depth=depth or 8)
    else:
        base, inc = clock(tc)
        boards = load_openings(opening_book(openings), (games + 1) // 2, seed)
        figure = "elo"
        measure_point = partial(sw.match_against, spec, opponent=parse_spec(against), openings=boards,
                                base=base, inc=inc, concurrency=concurrency, depth=depth)
    done = sw.run(points, measure_point, Path(out), click.echo, workers, cluster)
    click.echo(sw.write_reports(Path(out), points, done, figure))


@main.command()
@click.argument("params", nargs=-1, required=True)
@click.option("--engine", "engine_spec", default="nmm", show_default=True, help="The engine tuned (a spec).")
@click.option("--iterations", type=int, default=200, show_default=True, help="SPSA steps.")
@click.option("--pairs", type=int, default=2, show_default=True, help="Game pairs (both colours) a step.")
@click.option("--tc", default="5+0.05", show_default=True)
@click.option("--depth", type=click.IntRange(1, 64), default=None, help="A fixed depth per move instead of --tc.")
@click.option("--openings", type=click.Path(exists=True, dir_okay=False), default=None,
              help="PGN or EPD openings (default: 8moves_v3.pgn in the data folder).")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--concurrency", type=int, default=1, show_default=True)
@click.option("--out", type=click.Path(file_okay=False), default="var/tune", show_default=True,
              help="state.json (a rerun goes on from it), tune.csv, tune.png.")
@click.option("--cluster", default=None, metavar="ADDRESS",
              help="Play each step's game pairs on a Ray cluster (e.g. ray://head:10001; 'local' starts one here).")
def tune(params: tuple[str, ...], engine_spec: str, iterations: int, pairs: int, tc: str, depth: int | None,
         openings: str | None, seed: int, concurrency: int, out: str, cluster: str | None) -> None:
    """Tune numeric options by games with SPSA: PARAMS are Name=start,min,max,c_end,r_end."""
    import chess.engine

    from engine.tools import tune as t
    from engine.tools.engines import parse_spec
    from engine.tools.match import load_openings

    try:
        parsed = [t.parse_param(p) for p in params]
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="PARAMS") from None
    spec = parse_spec(engine_spec)
    probe = chess.engine.SimpleEngine.popen_uci(spec.command)
    try:
        missing = [p.name for p in parsed if p.name not in probe.options]
        spins = {p.name for p in parsed if p.name in probe.options and probe.options[p.name].type == "spin"}
    finally:
        probe.quit()
    if missing:
        raise click.BadParameter(f"the engine has no option {', '.join(missing)}", param_hint="PARAMS")
    boards = load_openings(opening_book(openings), min(1000, max(pairs, 200)), seed)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    play = t.play_pairs(spec, boards, pairs, *clock(tc), depth, concurrency, spins, parsed, seed, cluster)
    state = t.tune(parsed, iterations, play, folder / "state.json", seed, click.echo)
    names = [p.name for p in parsed]
    (folder / "tune.csv").write_text("k,result," + ",".join(names) + "\n" + "".join(
        f"{h['k']},{h['result']:g}," + ",".join(f"{h[n]:.6g}" for n in names) + "\n" for h in state["history"]))
    t.plot(state, folder / "tune.png")
    click.echo("tuned: " + " ".join(f"{k}={v}" for k, v in t.option_values(parsed, state["theta"], spins).items()))


@main.command()
@click.option("--trials", type=int, default=20, show_default=True)
@click.option("--threads", type=int, default=1, show_default=True, help="The engine's Threads option.")
@click.option("--engine", "engine_spec", default="nmm", show_default=True,
              help="Engine spec (see match), e.g. another build: 'python OTHER/uci_main.py'.")
def latency(trials: int, threads: int, engine_spec: str) -> None:
    """How fast the engine answers uci, isready, stop and quit (mid-search),
    how late it answers go movetime 100, how long go depth 6 takes."""
    from engine.tools.engines import parse_spec
    from engine.tools.latency import measure
    command = parse_spec(engine_spec).command
    for what, (median, worst) in measure(trials, command, threads=threads).items():
        click.echo(f"{what:13} median {median:7.1f} ms   worst {worst:7.1f} ms")


@main.command()
@click.option("--lines", type=int, default=5000, show_default=True, help="Lines to send.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--engine", "engine_spec", default="nmm", show_default=True,
              help="Engine spec (see match): any UCI engine can be fuzzed.")
@click.option("--hang-guard", type=float, default=30.0, show_default=True,
              help="Seconds past a limit (or a stop) after which a missing answer is a hang.")
@click.option("--report", "report_path", type=click.Path(dir_okay=False), default=None,
              help="Also write the summary here.")
def fuzz(lines: int, seed: int, engine_spec: str, hang_guard: float, report_path: str | None) -> None:
    """Random and mutated UCI lines at the engine; exit 1 on any failure.

    \b
    After every line: isready must be answered; every go must get exactly one
    bestmove; every move named (bestmove, ponder, pv, currmove) must be legal;
    no crash, no stderr. isready latency and late answers are reported.
    """
    from tqdm import tqdm

    from engine.tools.engines import parse_spec
    from engine.tools.fuzz import Fuzzer
    spec = parse_spec(engine_spec)
    with tqdm(total=lines, unit="line", disable=None) as bar:
        report = Fuzzer(spec.command, seed, hang_guard).run(lines, progress=bar.update)
    text = f"nmm-chess fuzz --lines {lines} --seed {seed} --engine {engine_spec}\n{report.summary()}"
    click.echo(text)
    if report_path:
        Path(report_path).write_text(text + "\n")
    sys.exit(1 if report.failures else 0)


@main.group()
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
@click.option("--out", type=click.Path(dir_okay=False), default="reports/strength/endgame_starts.epd",
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
@click.option("--eval", "evaluation", type=click.Choice(["handwritten", "td"]), default="handwritten",
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
def data_label(positions: str, out: str, depth: int | None, nodes: int | None, evaluation: str, every: int,
               limit: int | None, sample: int | None, seed: int, batch: int, workers: int,
               cluster: str | None, patterns: str | None) -> None:
    """Label POSITIONS (EPD/FEN lines, or a PGN's games) with the engine's best move and score."""
    from engine.data.batches import sample_positions
    from engine.data.label import label, read_positions
    if not depth and not nodes:
        raise click.BadParameter("give --depth or --nodes")
    fens = sample_positions(read_positions(Path(positions), every, limit, last_move=True), sample, seed)
    ran = label(fens, Path(out), depth, nodes, evaluation, batch, workers, cluster)
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
def data_cutoffs(positions: str, out: str, depth: int, min_depth: int, min_ply: int, every: int,
                 limit: int | None, sample: int, seed: int, batch: int, workers: int,
                 cluster: str | None, test_set: bool) -> None:
    """Search POSITIONS (EPD/FEN lines, or a PGN's games) and record, at every node where a
    quiet move cut off, its quiet moves and the one that cut: the move picker's training data.

    The TWIC 2022 games are the outside test set: they are read only with --test-set."""
    from engine.data.batches import sample_positions
    from engine.data.cutoffs import collect
    from engine.data.label import fen_ply, read_positions
    if "twic" in Path(positions).name.lower() and not test_set:
        raise click.BadParameter("the TWIC games are the outside test set: give --test-set, and never train on it")
    fens = [f for f in read_positions(Path(positions), every, limit) if fen_ply(f) >= min_ply]
    fens = sample_positions(fens, sample, seed)
    samples, ran = collect(fens, Path(out), depth, min_depth, batch, workers, cluster)
    click.echo(f"{len(fens)} positions searched to depth {depth}: {samples} cut-off samples in {out} "
               f"({ran} batches run now)")


@main.group("train")
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


@main.group()
def study() -> None:
    """The measurements behind the papers' claims."""


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
    from engine.study.chessmaps import GAMES_FILE, game_positions, run
    fens = game_positions(Path(games_file) if games_file else data_dir() / "games" / GAMES_FILE, games)
    click.echo(f"{len(fens)} positions from {games} games")
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
    from engine.study.ordering import hhweight_sweep, ordering_study
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
    from engine.study.ordering import overhead_study
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
              help="name:key=value,... (Searcher.configure keywords, net=PATH, hash=MB); the first is the reference.")
@click.option("--out", type=click.Path(dir_okay=False), default="reports/nmm_search/tree_size.csv",
              show_default=True)
def study_tree_size(positions_file: str, count: int, seed: int, depth: int, rounds: int,
                    configs: tuple[str, ...], out: str) -> None:
    """Nodes, time per node and time to each depth of search configurations, against the first."""
    from engine.study.tree_size import (held_out_positions, parse_config, summary_lines, tree_size_study,
                                        write)
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
@click.option("--config", "config", default="ordering=chessmaps,nmm_min_depth=2", show_default=True,
              help="Searcher.configure keywords (default: the engine's own defaults).")
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
    options = parse_config(f"engine:{config}").options
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
    lines = report(list(endings(Path(p) for p in pgns)))
    text = "\n".join(lines) + "\n"
    click.echo(text, nl=False)
    if out:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(text)


@study.command("clock")
@click.argument("pgns", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--out", type=click.Path(dir_okay=False), help="Write the report here too.")
def study_clock(pgns: tuple[str, ...], out: str | None) -> None:
    """How each engine spent its clock in the games of PGNS (their %clk and %emt comments)."""
    from engine.study.clock_use import clock_use, pgn_games, report
    text = "\n".join(report(clock_use(pgn_games(Path(p) for p in pgns)))) + "\n"
    click.echo(text, nl=False)
    if out:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(text)


if __name__ == "__main__":
    main()
