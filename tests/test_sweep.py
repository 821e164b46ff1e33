"""nmm-chess sweep: ranges, a node-count sweep through UCI, and its resume."""
import json

import pytest
from click.testing import CliRunner

from engine.cli import main
from engine.tools import sweep


def test_ranges_and_grids():
    assert sweep.parse_range("Hash=1..64 log 4") == ("Hash", ["1", "4", "16", "64"])
    assert sweep.parse_range("X=0.0..1.0 lin 3") == ("X", ["0", "0.5", "1"])
    assert sweep.parse_range("Depth=0..1 lin 3") == ("Depth", ["0", "1"])
    assert len(sweep.grid(["A=1..3 lin 3", "B=p,q"])) == 6
    for bad in ("Hash", "Hash=", "X=1..2 cubic 3", "X=0..1 log 3", "X=1..2 lin 1"):
        with pytest.raises(ValueError):
            sweep.parse_range(bad)


def test_a_node_sweep_measures_each_point_once(tmp_path):
    positions = tmp_path / "positions.epd"
    positions.write_text("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq -\n"
                         "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -\n")
    out = tmp_path / "sweep"
    args = ["sweep", "NullMove=true,false", "--depth", "4", "--positions", str(positions), "--out", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    done = json.loads((out / "points.json").read_text())
    assert sorted(done) == ["NullMove=false", "NullMove=true"]
    assert all(p["nodes"] > 0 for p in done.values())
    assert (out / "sweep.csv").read_text().splitlines()[0] == "NullMove,nodes"
    assert (out / "sweep.png").stat().st_size > 1000
    again = CliRunner().invoke(main, args)       # the same search twice gives the same count: deterministic
    assert json.loads((out / "points.json").read_text()) == done
    done["NullMove=false"]["nodes"] = 1          # a finished point is not measured again
    (out / "points.json").write_text(json.dumps(done))
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0 and "false,1\n" in (out / "sweep.csv").read_text()


def test_points_measured_on_two_processes_equal_one_by_one(tmp_path):
    positions = tmp_path / "positions.epd"
    positions.write_text("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq -\n")
    base = ["sweep", "FutilityPruning=true,false", "--depth", "4", "--positions", str(positions)]
    one = CliRunner().invoke(main, base + ["--out", str(tmp_path / "one")])
    two = CliRunner().invoke(main, base + ["--out", str(tmp_path / "two"), "--workers", "2"])
    assert one.exit_code == 0 and two.exit_code == 0, two.output
    assert (tmp_path / "one" / "sweep.csv").read_text() == (tmp_path / "two" / "sweep.csv").read_text()
