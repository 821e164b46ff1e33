"""cutechess-cli and fastchess as runners: their command lines, their PGN read
back, and (where the tools are installed) a short real match through each."""
from pathlib import Path

import chess
import pytest

from engine.tools import runners
from engine.tools.engines import EngineSpec, parse_spec

OPENING = chess.Board("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")

PGN = f"""[White "nmm"]
[Black "other"]
[Result "1-0"]
[FEN "{OPENING.fen()}"]
[SetUp "1"]
[Termination "adjudication"]

1. Nf3 Nc6 1-0

[White "other"]
[Black "nmm"]
[Result "1-0"]
[FEN "{OPENING.fen()}"]
[SetUp "1"]
[Termination "time forfeit"]

1. Nf3 Nc6 2. Bb5 1-0
"""


def test_games_are_read_back_with_colours_openings_and_flags():
    summary = runners.read_games(PGN, EngineSpec("nmm", ["x"]), [chess.Board(), OPENING])
    first, second = summary.games
    assert first.a_white and first.a_score == 1.0 and first.opening == 1 and first.forfeit_by is None
    assert not second.a_white and second.a_score == 0.0 and second.forfeit_by == "a" and second.plies == 3
    assert summary.pairs() == [(1.0, 0.0)]


def test_cutechess_passes_arguments_one_by_one():
    cmd = runners.command("cutechess", parse_spec("nmm:Eval=td"), parse_spec("nmm"), Path("o.epd"), 2, 0, 0, 3,
                          1, Path("g.pgn"), False)
    assert cmd[0] == "cutechess-cli" and "arg=" + parse_spec("nmm").command[1] in cmd
    assert "option.Eval=td" in cmd and ["tc=inf", "depth=3"] == cmd[cmd.index("proto=uci") + 1:][:2]
    assert cmd[cmd.index("-pgnout") + 1] == "g.pgn" and "-resign" not in cmd


@pytest.mark.parametrize("tool", ["cutechess", "fastchess"])
def test_the_time_margin_goes_to_the_tool_in_milliseconds(tool):
    nmm = parse_spec("nmm")
    cmd = runners.command(tool, nmm, nmm, Path("o.epd"), 2, 10, 0.1, None, 1, Path("g.pgn"), True, time_margin=0.25)
    assert cmd[cmd.index("proto=uci") + 1:][:2] == ["tc=10+0.1", "timemargin=250"]
    plain = runners.command(tool, nmm, nmm, Path("o.epd"), 2, 10, 0.1, None, 1, Path("g.pgn"), True)
    assert not any(arg.startswith("timemargin") for arg in plain)


@pytest.mark.parametrize("tool", ["cutechess", "fastchess"])
def test_a_short_match_through_the_tool(tool, tmp_path):
    if runners.find(tool) is None:
        pytest.skip(f"{runners.BINARIES[tool]} is not installed (../shared/tools/build-match-tools.sh builds it)")
    nmm = parse_spec("nmm")
    summary = runners.run_external(tool, nmm, parse_spec("nmm:Eval=td"), [chess.Board(), OPENING], 0, 0, 1, True,
                                   1, tmp_path, log=lambda *a: None)
    assert len(summary.games) == 4 and len(summary.pairs()) == 2
    assert all(g.forfeit_by is None and g.illegal_by is None and g.crash_by is None for g in summary.games)


def test_the_sprt_goes_to_the_tool():
    from engine.tools.sprt import Sprt
    nmm = parse_spec("nmm")
    test = Sprt(0, 5, 0.05, 0.1, "logistic")
    fast = runners.command("fastchess", nmm, nmm, Path("o.epd"), 2, 10, 0.1, None, 1, Path("g.pgn"), True,
                           sprt=test)
    assert fast[fast.index("-sprt"):][:6] == ["-sprt", "elo0=0", "elo1=5", "alpha=0.05", "beta=0.1",
                                              "model=logistic"]
    cute = runners.command("cutechess", nmm, nmm, Path("o.epd"), 2, 10, 0.1, None, 1, Path("g.pgn"), True,
                           sprt=test)
    assert cute[cute.index("-sprt"):] == ["-sprt", "elo0=0", "elo1=5", "alpha=0.05", "beta=0.1"]


@pytest.mark.parametrize("tool", ["cutechess", "fastchess"])
def test_the_tool_runs_its_own_sprt(tool, tmp_path):
    """A test the games cannot decide in four: the tool plays them all, and says where its test stands."""
    if runners.find(tool) is None:
        pytest.skip(f"{runners.BINARIES[tool]} is not installed (../shared/tools/build-match-tools.sh builds it)")
    from engine.tools.sprt import Sprt
    said = []
    summary = runners.run_external(tool, parse_spec("nmm"), parse_spec("nmm:NullMove=false"),
                                   [chess.Board(), OPENING], 0, 0, 1, True, 1, tmp_path, log=said.append,
                                   sprt=Sprt(-10, 10, 0.05, 0.05))
    assert len(summary.games) == 4
    assert sum(line.startswith(f"{tool}: Finished game") for line in said) == 4       # the live progress
    assert said[-1].startswith(f"{tool}'s own SPRT: ") and "no verdict" not in said[-1], said
