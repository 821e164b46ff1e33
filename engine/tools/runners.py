"""The match runners users have, cutechess-cli and fastchess, driven the way
a user would drive them: the command line is written out, the tool runs it,
and its PGN is read back into the same MatchSummary the built-in runner
(engine/tools/match.py) gives, so reports, Elo and the SPRT do not care who
played the games.

Both tools get the same openings the built-in runner would play (written to
an EPD file in order, each played with both colours: ``-repeat``) and
adjudication rules close to its own: resign when both engines' scores agree
on 10 pawns for 4 moves each (``-resign movecount=4 score=1000
twosided=true``), a draw when both stay within 0.10 pawns for 8 moves each
after move 40 (``-draw movenumber=40 movecount=8 score=10``).

>>> from engine.tools.engines import EngineSpec
>>> a, b = EngineSpec("a", ["/bin/a"]), EngineSpec("b", ["/bin/b", "--uci"], {"Hash": "8"})
>>> " ".join(command("fastchess", a, b, Path("o.epd"), 3, 10, 0.1, None, 2, Path("g.pgn"), True))
... # doctest: +NORMALIZE_WHITESPACE
'fastchess -engine name=a cmd=/bin/a -engine name=b cmd=/bin/b args=--uci option.Hash=8
 -each proto=uci tc=10+0.1 -rounds 3 -games 2 -repeat -openings file=o.epd format=epd order=sequential
 -concurrency 2 -pgnout file=g.pgn -recover -resign movecount=4 score=1000 twosided=true
 -draw movenumber=40 movecount=8 score=10'
"""
from __future__ import annotations

import io
import shlex
import shutil
import subprocess
from pathlib import Path

import chess
import chess.pgn

from engine.tools.engines import EngineSpec
from engine.tools.match import GameResult, MatchSummary
from engine.tools.sprt import Sprt

RUNNERS = ("builtin", "cutechess", "fastchess")
BINARIES = {"cutechess": "cutechess-cli", "fastchess": "fastchess"}
FLAGS = {"time forfeit": "forfeit", "illegal move": "illegal", "abandoned": "crash",
         "stalled connection": "hang"}


def find(runner: str) -> str | None:
    """The tool's path on PATH (or in ~/.local/bin, where build-match-tools.sh puts it)."""
    name = BINARIES[runner]
    local = Path.home() / ".local" / "bin" / name
    return shutil.which(name) or (str(local) if local.exists() else None)


def engine_args(tool: str, spec: EngineSpec) -> list[str]:
    program, *rest = spec.command
    args = [f"name={spec.name}", f"cmd={program}"]
    if rest:
        if tool == "fastchess":
            args.append(f"args={shlex.join(rest)}")
        else:
            args += [f"arg={r}" for r in rest]
    return ["-engine"] + args + [f"option.{k}={v}" for k, v in spec.options.items()]


def command(tool: str, a: EngineSpec, b: EngineSpec, openings: Path, rounds: int, base: float, inc: float,
            depth: int | None, concurrency: int, pgn: Path, adjudicate: bool,
            executable: str | None = None, nodes: int | None = None, sprt: Sprt | None = None,
            time_margin: float = 0.0) -> list[str]:
    """The command line for ``rounds`` openings, each with both colours
    (``time_margin`` in seconds, the tools' ``timemargin`` in milliseconds);
    with ``sprt`` the tool stops the match itself once its own test decides
    (fastchess: the same model and bounds; cutechess-cli: the same bounds read
    in its BayesElo model, the only one it has)."""
    fixed = [f"depth={depth}"] * bool(depth) + [f"nodes={nodes}"] * bool(nodes)
    limit = ["tc=inf"] + fixed if fixed else [f"tc={base:g}+{inc:g}"] + [
        f"timemargin={round(time_margin * 1000)}"] * bool(time_margin)
    pgn_args = [f"file={pgn}"] if tool == "fastchess" else [str(pgn)]
    cmd = [executable or BINARIES[tool]] + engine_args(tool, a) + engine_args(tool, b)
    cmd += ["-each", "proto=uci"] + limit + ["-rounds", str(rounds), "-games", "2", "-repeat",
                                             "-openings", f"file={openings}", "format=epd", "order=sequential",
                                             "-concurrency", str(concurrency), "-pgnout"] + pgn_args + ["-recover"]
    if adjudicate:
        cmd += ["-resign", "movecount=4", "score=1000", "twosided=true",
                "-draw", "movenumber=40", "movecount=8", "score=10"]
    if sprt is not None:
        cmd += ["-sprt", f"elo0={sprt.elo0:g}", f"elo1={sprt.elo1:g}", f"alpha={sprt.alpha:g}",
                f"beta={sprt.beta:g}"] + [f"model={sprt.model}"] * (tool == "fastchess")
    return cmd


def read_games(text: str, a: EngineSpec, openings: list[chess.Board]) -> MatchSummary:
    """The games of a runner's PGN, as the built-in runner records them."""
    index = {board.epd(): i for i, board in enumerate(openings)}
    summary = MatchSummary()
    stream = io.StringIO(text)
    while (game := chess.pgn.read_game(stream)) is not None:
        headers = game.headers
        result = headers.get("Result", "*")
        if result not in ("1-0", "0-1", "1/2-1/2"):
            continue
        a_white = headers.get("White") == a.name
        start = game.board()
        kind = FLAGS.get(headers.get("Termination", "").lower())
        loser = None
        if kind and result != "1/2-1/2":
            white_lost = result == "0-1"
            loser = "a" if white_lost == a_white else "b"
        summary.games.append(GameResult(
            opening=index.get(start.epd(), -1 - len(summary.games)), a_white=a_white, result=result,
            reason=headers.get("Termination", ""), plies=len(list(game.mainline_moves())),
            **({f"{kind}_by": loser} if kind else {}), pgn=str(game)))
    return summary


def run_external(tool: str, a: EngineSpec, b: EngineSpec, openings: list[chess.Board], base: float,
                 inc: float, concurrency: int, adjudicate: bool, depth: int | None, work: Path,
                 executable: str | None = None, log=print, nodes: int | None = None,
                 sprt: Sprt | None = None, time_margin: float = 0.0) -> MatchSummary:
    """Play the match with cutechess-cli or fastchess; the games read back from
    its PGN; the tool's own SPRT lines, if ``sprt``, passed to ``log``."""
    if a.name == b.name:        # the tools tell the players apart by name
        b = EngineSpec(b.name + "-2", b.command, b.options)
    work = work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    book, pgn = work / "openings.epd", work / "games.pgn"
    book.write_text("".join(board.epd() + "\n" for board in openings))
    pgn.unlink(missing_ok=True)
    cmd = command(tool, a, b, book, len(openings), base, inc, depth, concurrency, pgn, adjudicate,
                  executable or find(tool), nodes, sprt, time_margin)
    log("running: " + shlex.join(cmd))
    lines = []
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          cwd=work) as tool_run:        # fastchess leaves config.json where it runs
        for line in tool_run.stdout:
            lines.append(line)
            if line.startswith("Finished game"):        # both tools' line per game: the live progress
                log(f"{tool}: {line.strip()}")
    (work / "runner.log").write_text("".join(lines))
    if sprt is not None:
        said = [line.strip() for line in lines if "SPRT" in line or "LLR" in line]
        log(f"{tool}'s own SPRT: " + (said[-1] if said else "no verdict printed"))
    if not pgn.exists():
        raise RuntimeError(f"{tool} wrote no games (exit {tool_run.returncode}); see {work / 'runner.log'}")
    return read_games(pgn.read_text(errors="replace"), a, openings)
