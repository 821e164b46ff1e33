"""Play the engine against others and itself: matches, tournaments,
option sweeps and tuning, and the reliability checks (latency, fuzz)."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from engine.cli.common import clock, hold_pgn, opening_book, require_runner


# The built-in runner charges its own latency to the engine; this forgives an overrun.
time_margin = click.option(
    "--time-margin", "time_margin_ms", type=click.IntRange(0, 10000), default=0, show_default=True,
    help="Milliseconds either engine may overrun its clock without losing on time (its clock is then zero "
         "before the increment), as cutechess-cli's and fastchess's timemargin: for engines that live on the "
         "increment while this runner counts its own latency as theirs.")

# A truncated SPRT: engine.tools.sprt.Sprt's cap, its cost measured by `nmm-chess study sprt-cap`.
sprt_cap = click.option(
    "--sprt-cap", type=click.IntRange(0), default=0, show_default=True, metavar="GAMES",
    help="An SPRT still undecided after this many games accepts the hypothesis its LLR leans to "
         "(H1 above 0); 0: no cap.")


@click.command()
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
              help="Go on with the match whose games are in --pgn (same engines, --seed and --openings; "
                   "--games the same or more): they count, and only the rest are played.")
@click.option("--log", "log_path", type=click.Path(exists=True, dir_okay=False), default=None,
              help="With --resume: the match's log (its game lines). Games it records past --pgn's "
                   "(a PGN lost before it was saved) count too, kept in the PGN as their opening and "
                   "result with a comment that the moves were lost.")
@time_margin
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
@sprt_cap
@click.option("--runner", type=click.Choice(["builtin", "cutechess", "fastchess"]), default="builtin",
              show_default=True, help="Who plays the games: this package's runner, or cutechess-cli / fastchess "
                                      "(on PATH or in ~/.local/bin) given the same openings; their PGN is read "
                                      "back. With --sprt the tool runs its own test and stops the match "
                                      "(cutechess-cli in its BayesElo model); the report judges the games "
                                      "it played with this package's test.")
def match(engine_a: str, engine_b: str, games: int, tc: str, openings: str | None, seed: int,
          concurrency: int, adjudicate: bool, pgn: str | None, resume: bool, log_path: str | None, ponder: bool,
          depth: int | None, sprt: tuple[float, float] | None, sprt_model: str, alpha: float, beta: float, runner: str,
          nodes: int | None, time_margin_ms: int, sprt_cap: int) -> None:
    """Play ENGINE_A against ENGINE_B, e.g. nmm stockfish:UCI_LimitStrength=true,UCI_Elo=2000."""
    from engine.tools.engines import parse_spec
    from engine.tools.match import (game_writer, games_from_log, limit_text, load_openings, read_games, report,
                                    rewrite_pgn, run_match)
    from engine.tools.sprt import Sprt, pentanomial

    try:
        test = Sprt(sprt[0], sprt[1], alpha, beta, sprt_model, sprt_cap) if sprt else None
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--sprt") from None

    a, b = parse_spec(engine_a), parse_spec(engine_b)
    base, inc = clock(tc)
    margin = time_margin_ms / 1000
    boards = load_openings(opening_book(openings), (games + 1) // 2, seed)
    played = []
    if pgn:                             # held to the end of the command, however it ends
        click.get_current_context().call_on_close(hold_pgn(Path(pgn)).close)
    if log_path and not resume:
        raise click.BadParameter("a log is read to resume a match", param_hint="--log")
    if resume:
        if not pgn or runner != "builtin":
            raise click.BadParameter("the built-in runner resumes from the games in --pgn", param_hint="--resume")
        try:
            played = read_games(Path(pgn), a.label, b.label, boards)
            if log_path:
                played += games_from_log(Path(log_path), played, a.label, b.label, boards,
                                         limit_text(base, inc, depth, nodes))
        except ValueError as e:
            raise click.ClickException(str(e)) from None
    pgn_file = rewrite_pgn(Path(pgn), played, click.echo) if pgn else None
    on_game = game_writer(click.echo, pgn_file)

    def decided(summary) -> bool:
        return test is not None and test.verdict(pentanomial(summary.pairs()))[1] is not None
    if runner == "builtin":
        summary = run_match(a, b, boards, base, inc, concurrency, adjudicate, on_game,
                            ponder, depth, stop=decided, nodes=nodes, played=played, time_margin=margin)
    else:
        from engine.tools.runners import run_external
        require_runner(runner)
        import tempfile
        with tempfile.TemporaryDirectory() as work:
            summary = run_external(runner, a, b, boards, base, inc, concurrency, adjudicate,
                                   depth, Path(work), log=click.echo, nodes=nodes, sprt=test, time_margin=margin)
        for i, game in enumerate(summary.games):
            on_game(game, type(summary)(summary.games[:i + 1]))
    click.echo(report(a, b, base, inc, summary, adjudicate, depth, test, nodes, margin))


@click.command("match-log")
@click.argument("logs", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--sprt", nargs=2, type=float, default=(0.0, 10.0), show_default=True, metavar="ELO0 ELO1",
              help="Bounds for the log-likelihood ratio.")
@click.option("--sprt-model", type=click.Choice(["normalized", "logistic"]), default="normalized",
              show_default=True, help="Bounds in normalised or logistic Elo.")
@sprt_cap
@click.option("--at", "at", type=click.IntRange(1), multiple=True, metavar="GAMES",
              help="The standing after the first GAMES games instead; repeat it for a test's course.")
def match_log(logs: tuple[str, ...], sprt: tuple[float, float], sprt_model: str, sprt_cap: int,
              at: tuple[int, ...]) -> None:
    """Summarise a match log, also one whose match was stopped early or still runs;
    several logs of the same engines read as one match (an SPRT continued)."""
    from engine.tools.match_log import course
    try:
        click.echo("\n".join(course([Path(log) for log in logs], list(at) or [None], *sprt, sprt_model, sprt_cap)))
    except ValueError as e:
        raise click.ClickException(str(e))


@click.command("sprt-queue")
@click.argument("queue", type=click.Path(exists=True, dir_okay=False))
@click.option("--sprt-dir", type=click.Path(file_okay=False), default=None,
              help="Where the tests' logs and PGNs are (default: the queue file's folder).")
@click.option("--cap", type=click.IntRange(1), default=3000, show_default=True, help="The SPRTs' cap in games.")
@click.option("--concurrency", type=click.IntRange(1), default=2, show_default=True)
@click.option("--run", "play", is_flag=True, help="Play the first undecided test on, then the next, to the end.")
def sprt_queue(queue: str, sprt_dir: str | None, cap: int, concurrency: int, play: bool) -> None:
    """The queued SPRTs [0, 10] of the search options, one line each: decided,
    undecided or not begun; with --run, each played on to its verdict in turn
    (engine/tools/sprt_queue.py says how a test finds its seed and build)."""
    from engine.tools.sprt_queue import describe, read_queue, run, state
    try:
        tests = read_queue(Path(queue).read_text())
    except ValueError as e:
        raise click.ClickException(str(e))
    folder = Path(sprt_dir) if sprt_dir else Path(queue).parent
    for test in tests:
        click.echo(describe(test, state(test, folder, cap)))
    if play and not run(tests, folder, cap, concurrency, echo=click.echo):
        sys.exit(1)


@click.command("pack-pgn")
@click.argument("pgns", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--per-volume", type=click.IntRange(1), default=None,
              help="Games per volume (default: engine.tools.pgn_volumes.VOLUME_GAMES, 500).")
def pack_pgn(pgns: tuple[str, ...], per_volume: int | None) -> None:
    """Write each match PGN as its committed record: gzipped volumes of a fixed
    number of games (NAME.pgn.gz, NAME.2.pgn.gz, ...), rewriting only the volumes
    that changed. ``match --resume`` reads them when NAME.pgn is gone."""
    from engine.tools.pgn_volumes import VOLUME_GAMES, pack
    for pgn in pgns:
        for path in pack(Path(pgn), per_volume or VOLUME_GAMES):
            click.echo(f"wrote {path}")


@click.command()
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
@time_margin
@click.option("--cluster", default=None, metavar="ADDRESS",
              help="Play the game pairs on a Ray cluster (e.g. ray://head:10001; 'local' starts one here).")
def tournament(engines: tuple[str, ...], gauntlet: bool, games: int, tc: str, depth: int | None,
               openings: str | None, seed: int, concurrency: int, out: str, runner: str,
               cluster: str | None, time_margin_ms: int) -> None:
    """A round robin (or gauntlet) of ENGINES, e.g. nmm nmm:Eval=td gnuchess."""
    from engine.tools import tournament as t
    from engine.tools.engines import parse_spec
    from engine.tools.match import START_GUARD, load_openings, margin_text

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
                       folder / "pairs.json", click.echo, runner, cluster, time_margin_ms / 1000)
    except ValueError as e:                     # a pairing's PGN from another tournament
        raise click.ClickException(str(e)) from None
    setting = f"depth {depth}" if depth else tc + margin_text(time_margin_ms / 1000)
    click.echo(t.write_reports(folder, pairs, names,
                               f"{'Gauntlet' if gauntlet else 'Round robin'}, {games} games a pairing, {setting}"))


@click.command()
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
    from engine.tools.match import START_GUARD, load_openings

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


REPORT_EVERY = 10      # steps between two refreshes of tune.csv and tune.png


@click.command()
@click.argument("params", nargs=-1, required=True)
@click.option("--engine", "engine_spec", default="nmm", show_default=True, help="The engine tuned (a spec).")
@click.option("--iterations", type=int, default=200, show_default=True, help="SPSA steps.")
@click.option("--pairs", type=int, default=2, show_default=True, help="Game pairs (both colours) a step.")
@click.option("--tc", default="5+0.05", show_default=True)
@click.option("--depth", type=click.IntRange(1, 64), default=None, help="A fixed depth per move instead of --tc.")
@click.option("--nodes", type=click.IntRange(1), default=None,
              help="Fixed nodes per move instead of --tc: games the machine's load does not touch.")
@click.option("--openings", type=click.Path(exists=True, dir_okay=False), default=None,
              help="PGN or EPD openings (default: 8moves_v3.pgn in the data folder).")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--concurrency", type=int, default=1, show_default=True)
@click.option("--out", type=click.Path(file_okay=False), default="var/tune", show_default=True,
              help="state.json (a rerun goes on from it), tune.csv, tune.png (every 10 steps).")
@click.option("--cluster", default=None, metavar="ADDRESS",
              help="Play each step's game pairs on a Ray cluster (e.g. ray://head:10001; 'local' starts one here).")
def tune(params: tuple[str, ...], engine_spec: str, iterations: int, pairs: int, tc: str, depth: int | None,
         nodes: int | None, openings: str | None, seed: int, concurrency: int, out: str, cluster: str | None) -> None:
    """Tune numeric options by games with SPSA: PARAMS are Name=start,min,max,c_end,r_end."""
    import chess.engine

    from engine.tools import tune as t
    from engine.tools.engines import parse_spec
    from engine.tools.match import START_GUARD, load_openings

    try:
        parsed = [t.parse_param(p) for p in params]
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="PARAMS") from None
    spec = parse_spec(engine_spec)
    probe = chess.engine.SimpleEngine.popen_uci(spec.command, timeout=START_GUARD)
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
    play = t.play_pairs(spec, boards, pairs, *clock(tc), depth, concurrency, spins, parsed, seed, cluster, nodes)

    def refresh(state: dict) -> None:
        if state["k"] % REPORT_EVERY == 0:
            t.write_report(state, folder)
    state = t.tune(parsed, iterations, play, folder / "state.json", seed, click.echo, on_step=refresh)
    t.write_report(state, folder)
    click.echo("tuned: " + " ".join(f"{k}={v}" for k, v in t.option_values(parsed, state["theta"], spins).items()))


@click.command()
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


@click.command()
@click.option("--trials", type=int, default=15, show_default=True)
@click.option("--depth", type=click.IntRange(1, 64), default=10, show_default=True,
              help="The search after readyok, for the memory a game holds.")
@click.option("--engine", "engine_spec", default="nmm", show_default=True,
              help="Engine spec (see match), options included: 'nmm:MoveOrdering=weighted', or another "
                   "build: 'python OTHER/uci_main.py'.")
def startup(trials: int, depth: int, engine_spec: str) -> None:
    """Launch to readyok (median) and peak memory (largest) of the engine as a GUI starts it."""
    from engine.tools.engines import parse_spec
    from engine.tools.startup import measure
    spec = parse_spec(engine_spec)
    setoptions = [f"setoption name {name} value {value}" for name, value in spec.options.items()]
    click.echo(f"{' '.join(spec.command)}{''.join(f'; {line}' for line in setoptions)}: {trials} trials "
               "(times: median, memory: largest)")
    for what, value in measure(spec.command, trials, setoptions, depth).items():
        click.echo(f"{what:36} {value:7.1f}")


@click.command()
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
