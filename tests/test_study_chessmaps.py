"""nmm-chess study chessmaps on one fixture game: its table and plot."""
import csv

from click.testing import CliRunner

from engine.cli import main
from engine.study.chessmaps import VARIANTS


def test_the_study_writes_a_row_per_depth_and_variant(fixtures, tmp_path):
    result = CliRunner().invoke(main, ["study", "chessmaps", "--games-file",
                                       str(fixtures / "games" / "masters_sample.pgn"), "--games", "1",
                                       "--depths", "2,3", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(open(tmp_path / "chessmaps.csv")))
    assert [(int(r["depth"]), r["variant"]) for r in rows] == [(d, v) for d in (2, 3) for v in VARIANTS]
    assert all(int(r["nodes"]) > 0 for r in rows)
    assert all(float(r["ratio"]) == 1.0 for r in rows if r["variant"] == "history")
    assert (tmp_path / "chessmaps.png").stat().st_size > 1000
