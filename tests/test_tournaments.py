"""nmm-chess tournament and match: a gauntlet through the command line, its files, and how both resume."""
import json
import shlex
import sys
from pathlib import Path

import pytest

from click.testing import CliRunner

from engine.cli import main

from conftest import RAY_HANG_GUARD


def test_a_gauntlet_writes_its_tables_and_resumes(tmp_path):
    openings = tmp_path / "openings.epd"
    openings.write_text("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\n")
    out = tmp_path / "t"
    args = ["tournament", "nmm", "nmm:Eval=td", "nmm:NullMove=false", "--gauntlet", "--games", "2",
            "--depth", "1", "--openings", str(openings), "--out", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    pairs = json.loads((out / "pairs.json").read_text())
    assert sorted(pairs) == ["nmm vs nmm(Eval=td)", "nmm vs nmm(NullMove=false)"]
    assert all(len(scores) == 2 for scores in pairs.values())
    assert (out / "crosstable.csv").read_text().splitlines()[0] == ",nmm,nmm(Eval=td),nmm(NullMove=false)"
    assert "Gauntlet, 2 games a pairing, depth 1" in (out / "standings.txt").read_text()
    assert (out / "standings.png").stat().st_size > 1000
    assert (out / "pairings.csv").read_text().splitlines()[0] == "player,opponent,games,points,elo,error95"
    games = (out / "games" / "nmm_vs_nmm_Eval=td.pgn").read_text()
    assert games.count("[Event ") == 2 and '[Black "nmm(Eval=td)"]' in games
    assert "nmm vs nmm(Eval=td): game   2: " in result.output
    pairs["nmm vs nmm(Eval=td)"] = [1.0, 1.0]                   # a finished pairing is not played again
    (out / "pairs.json").write_text(json.dumps(pairs))
    assert CliRunner().invoke(main, args).exit_code == 0
    assert json.loads((out / "pairs.json").read_text())["nmm vs nmm(Eval=td)"] == [1.0, 1.0]


def test_a_pairing_cut_short_keeps_its_finished_games(tmp_path):
    """A kill in the middle of a pairing loses only the game under way: the
    games in its PGN count, and only the rest are played."""
    import chess.pgn
    openings = tmp_path / "openings.epd"
    openings.write_text("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\n")
    out = tmp_path / "t"
    args = ["tournament", "nmm", "nmm:NullMove=false", "--gauntlet", "--games", "2",
            "--depth", "1", "--openings", str(openings), "--out", str(out)]
    pgn = out / "games" / "nmm_vs_nmm_NullMove=false.pgn"
    pgn.parent.mkdir(parents=True)
    board = chess.Board(openings.read_text().split("\n")[0])
    board.push_san("e5")
    kept = chess.pgn.Game.from_board(board)
    kept.headers.update({"White": "nmm(NullMove=false)", "Black": "nmm", "Result": "1-0", "Round": "1"})
    cut = '[Event "?"]\n[Round "1"]\n[White "nmm"]\n[Black "nmm(NullMove=false)"]\n\n1. e4 e5 2. Nf3'
    pgn.write_text(f"{kept}\n\n{cut}")            # A lost as black; the game as white was under way
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "1 games kept" in result.output and "game   2: " in result.output
    assert "game   1: " not in result.output
    scores = json.loads((out / "pairs.json").read_text())["nmm vs nmm(NullMove=false)"]
    assert len(scores) == 2 and scores[0] == 0.0                  # the kept game, as it ended
    assert pgn.read_text().count("[Event ") == 2 and '[Result "*"]' not in pgn.read_text()


def test_a_gauntlet_with_a_time_margin_forgives_an_overrun_and_says_so(tmp_path):
    fake = Path(__file__).resolve().parent / "fake_engine.py"
    mate = "--prefer=f2f3,g2g4,e7e5,d8h4"           # 1.f3 e5 2.g4 Qh4#
    late = shlex.join([sys.executable, str(fake), "--mode", "late", "--after", "2", "--late", "0.2", mate])
    good = shlex.join([sys.executable, str(fake), mate])
    openings = tmp_path / "openings.epd"
    openings.write_text("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\n")
    out = tmp_path / "t"
    result = CliRunner().invoke(main, ["tournament", late, good, "--gauntlet", "--games", "2", "--tc", "0.5+1",
                                       "--time-margin", "10000", "--openings", str(openings), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "lost on time" not in result.output and "checkmate" in result.output
    assert "Gauntlet, 2 games a pairing, 0.5+1, time margin 10000 ms" in (out / "standings.txt").read_text()


def test_one_engine_is_no_tournament(tmp_path):
    result = CliRunner().invoke(main, ["tournament", "nmm", "--out", str(tmp_path)])
    assert result.exit_code != 0 and "two engines" in result.output


def test_a_match_at_fixed_nodes_says_so_in_its_games():
    import chess

    from engine.tools.engines import parse_spec
    from engine.tools.match import report, run_match
    nmm = parse_spec("nmm")
    summary = run_match(nmm, nmm, [chess.Board()], 0, 0, nodes=300)
    assert len(summary.games) == 2 and all('[TimeControl "nodes 300"]' in g.pgn for g in summary.games)
    assert "2 games at nodes 300" in report(nmm, nmm, 0, 0, summary, True, nodes=300)


@pytest.mark.timeout(RAY_HANG_GUARD)
def test_a_local_ray_cluster_plays_what_the_local_runner_plays(tmp_path, two_openings):
    """Game pairs as Ray units give the local runner's scores (fixed depth:
    the games are the same), and a pair saved before a crash is kept, not replayed."""
    pytest.importorskip("ray")
    openings = two_openings
    args = ["tournament", "nmm", "nmm:NullMove=false", "nmm:MoveOrdering=nmm", "--games", "4", "--depth", "2",
            "--openings", str(openings)]
    assert CliRunner().invoke(main, args + ["--out", str(tmp_path / "here")]).exit_code == 0
    on_ray = tmp_path / "ray"
    on_ray.mkdir()
    (on_ray / "units.json").write_text(json.dumps({"nmm vs nmm(NullMove=false)#1": [0.0, 0.0]}))
    result = CliRunner().invoke(main, args + ["--out", str(on_ray), "--cluster", "local"])
    assert result.exit_code == 0, result.output
    here = json.loads((tmp_path / "here" / "pairs.json").read_text())
    there = json.loads((on_ray / "pairs.json").read_text())
    assert sorted(here) == sorted(there) and len(there) == 3
    assert there["nmm vs nmm(NullMove=false)"][2:] == [0.0, 0.0]          # the saved pair, as saved
    for pairing in here:
        if pairing != "nmm vs nmm(NullMove=false)":
            assert there[pairing] == here[pairing]
    assert there["nmm vs nmm(NullMove=false)"][:2] == here["nmm vs nmm(NullMove=false)"][:2]


def test_a_unit_finds_our_engine_on_the_machine_that_runs_it():
    import sys

    from engine.tools.engines import EngineSpec, here, parse_spec
    assert here(parse_spec("nmm:Hash=8")) == parse_spec("nmm:Hash=8")
    moved = here(EngineSpec("nmm", ["/head/python", "/head/clone/uci_main.py", "--research"], {"Hash": "8"}))
    assert moved.command == [sys.executable, "-m", "engine.cli", "--research"] and moved.options == {"Hash": "8"}
    assert here(EngineSpec("gnuchess", ["/elsewhere/gnuchess"])).command[0] == "/usr/games/gnuchess"


def test_a_match_resumes_from_its_games_and_refuses_another_matchs(tmp_path, two_openings):
    """``match --resume``: the games in --pgn count, the rest are played, and a
    PGN of other engines or of other openings is refused, not mixed in."""
    pgn = tmp_path / "m.pgn"
    args = ["match", "nmm", "nmm:NullMove=false", "--games", "4", "--depth", "1", "--openings",
            str(two_openings), "--pgn", str(pgn)]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output
    games = pgn.read_text().split("\n\n[Event ")
    pgn.write_text(games[0] + "\n\n[Event " + games[1] + "\n\n[Event " + games[2][:len(games[2]) // 2])
    result = CliRunner().invoke(main, args + ["--resume"])      # two games kept, the third was cut off
    assert result.exit_code == 0, result.output
    assert "2 games kept" in result.output and "game   3: " in result.output and "game   1: " not in result.output
    assert "4 games" in result.output and pgn.read_text().count("[Event ") == 4
    games = pgn.read_text().split("\n\n[Event ")            # a record committed in volumes resumes too
    pgn.write_text(games[0] + "\n\n[Event " + games[1] + "\n\n")
    packed = CliRunner().invoke(main, ["pack-pgn", str(pgn), "--per-volume", "1"])
    assert packed.exit_code == 0 and packed.output.count("wrote ") == 2, packed.output
    assert (tmp_path / "m.pgn.gz").exists() and (tmp_path / "m.2.pgn.gz").exists()
    pgn.unlink()
    again = CliRunner().invoke(main, args + ["--resume"])
    assert again.exit_code == 0, again.output
    assert "2 games kept" in again.output and "game   3: " in again.output and "game   2: " not in again.output
    assert pgn.read_text().count("[Event ") == 4
    other = CliRunner().invoke(main, ["match", "nmm", "nmm:Hash=8"] + args[3:] + ["--resume"])
    assert other.exit_code != 0 and "not of nmm and nmm(Hash=8)" in other.output
    moved = tmp_path / "moved.epd"
    moved.write_text(two_openings.read_text().splitlines()[1] + "\n")
    shifted = CliRunner().invoke(main, args[:8] + [str(moved)] + args[9:] + ["--resume"])
    assert shifted.exit_code != 0 and "did not start from" in shifted.output
