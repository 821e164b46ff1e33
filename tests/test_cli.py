"""The nmm-chess command line."""
import re

from click.testing import CliRunner

from engine.cli import main


def test_perft_depth() -> None:
    result = CliRunner().invoke(main, ["perft", "--depth", "4"])
    assert result.exit_code == 0
    assert "Nodes searched: 197281" in result.output


def test_perft_divide_chess960() -> None:
    result = CliRunner().invoke(main, ["perft", "--fen", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
                                       "--depth", "1", "--divide", "--chess960"])
    assert result.exit_code == 0
    assert "e1h1: 1" in result.output and "e1a1: 1" in result.output


def test_perft_bad_fen() -> None:
    result = CliRunner().invoke(main, ["perft", "--fen", "not a fen", "--depth", "2"])
    assert result.exit_code != 0
    assert "FEN" in result.output


def test_perft_suite(fixtures) -> None:
    suite = fixtures / "perft" / "cpw_perft6.epd"
    result = CliRunner().invoke(main, ["perft", "--suite", str(suite), "--max-nodes", "100000"])
    assert result.exit_code == 0, result.output
    assert "0 wrong" in result.output


def test_perft_suite_reports_mismatch(tmp_path) -> None:
    suite = tmp_path / "wrong.epd"
    suite.write_text("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 401\n")
    result = CliRunner().invoke(main, ["perft", "--suite", str(suite)])
    assert result.exit_code == 1
    assert "MISMATCH depth 2: expected 401, got 400" in result.output


def test_perft_suite_log_resumes(fixtures, tmp_path) -> None:
    suite = fixtures / "perft" / "cpw_perft6.epd"
    log = tmp_path / "run.tsv"
    args = ["perft", "--suite", str(suite), "--max-nodes", "10000", "--log", str(log)]
    first = CliRunner().invoke(main, args)
    assert "0 wrong" in first.output and not re.search(r"(?<!\d)0 counts checked", first.output)
    assert len(log.read_text().splitlines()) == 6
    second = CliRunner().invoke(main, args)                  # everything is in the log
    assert re.search(r"(?<!\d)0 counts checked, 0 wrong, 0 nodes", second.output)
