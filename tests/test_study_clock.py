"""``nmm-chess study clock``: how each engine spent its clock, from the
``[%clk]``/``[%emt]`` comments the match runner writes."""
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.cli import main
from engine.study.clock_use import clock_use, pgn_games

# The second game starts from a position at move 30 and ends when "slow"
# flags: the runner writes no comment for the move that flagged. The third,
# played to a fixed depth, is not on a clock and is left out.
GAMES = """[White "fast"]
[Black "slow"]
[Result "1-0"]
[Termination "adjudicated win"]
[TimeControl "10+0.1"]

1. e4 e5 2. Nf3 { [%clk 9.800] [%emt 0.300] } 2... Nc6 { [%clk 9.000] [%emt 1.100] }
3. Bb5 { [%clk 9.700] [%emt 0.200] } 3... a6 { [%clk 8.000] [%emt 1.100] } 1-0

[White "fast"]
[Black "slow"]
[Result "1-0"]
[Termination "slow lost on time"]
[TimeControl "10+0.1"]
[SetUp "1"]
[FEN "4k3/8/8/8/8/8/4P3/4K3 b - - 0 30"]

30... Kd7 { [%clk 0.900] [%emt 3.000] } 31. Kd2 { [%clk 5.000] [%emt 0.500] } 1-0

[White "fast"]
[Black "slow"]
[Result "0-1"]
[TimeControl "depth 2"]

1. e4 { [%clk 0.000] [%emt 9.000] } e5 { [%clk 0.000] [%emt 9.000] } 0-1
"""


@pytest.fixture
def pgn(tmp_path: Path) -> Path:
    path = tmp_path / "games.pgn"
    path.write_text(GAMES)
    return path


def test_each_engine_is_timed_by_move_and_stage(pgn: Path) -> None:
    fast, slow = clock_use(pgn_games([pgn]))
    assert (fast.engine, fast.games, fast.moves, fast.forfeits) == ("fast", 2, 3, 0)
    assert fast.mean_s == pytest.approx(1.0 / 3, abs=1e-4) and fast.median_s == pytest.approx(0.3)
    assert fast.by_stage == {"moves 1-20": pytest.approx(0.25), "moves 21-40": pytest.approx(0.5)}  # 31. Kd2
    assert fast.left_at_end_s == pytest.approx((9.7 + 5.0) / 2) and fast.least_left_s == pytest.approx(5.0)
    assert (slow.games, slow.moves, slow.forfeits) == (2, 3, 1)
    assert slow.by_stage == {"moves 1-20": pytest.approx(1.1), "moves 21-40": pytest.approx(3.0)}
    assert slow.left_at_end_s == pytest.approx(8.0 / 2) and slow.least_left_s == 0.0   # the flag


def test_the_command_prints_and_writes_the_table(pgn: Path, tmp_path: Path) -> None:
    out = tmp_path / "report" / "clock.txt"
    result = CliRunner().invoke(main, ["study", "clock", str(pgn), "--out", str(out)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split()[:3] == ["engine", "games", "moves"]
    assert [line.split()[0] for line in lines[1:]] == ["fast", "slow"]
    assert lines[2].split()[-1] == "1"                  # slow's loss on time
    assert out.read_text() == result.output


def test_a_gzipped_record_reads_as_the_plain_one(pgn: Path, tmp_path: Path) -> None:
    import gzip
    packed = tmp_path / "games.pgn.gz"
    packed.write_bytes(gzip.compress(pgn.read_bytes()))
    assert clock_use(pgn_games([packed])) == clock_use(pgn_games([pgn]))
