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


def test_suite_by_nodes_solves_and_misses_the_same_on_every_run(tmp_path) -> None:
    """``suite --nodes``: a mate in one and a queen won are found, a move the
    EPD names wrongly is a miss, and a second run says the same (the count
    does not depend on the machine's speed)."""
    epd = tmp_path / "small.epd"
    epd.write_text("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; id \"mate\";\n"
                   "4k3/8/8/3q4/8/8/8/3RK3 w - - bm Rxd5; id \"queen\";\n"
                   "4k3/8/8/3q4/8/8/8/3RK3 w - - bm Kf2; id \"wrong\";\n")
    runs = [CliRunner().invoke(main, ["suite", str(epd), "--nodes", "5000"]) for _ in range(2)]
    assert all(r.exit_code == 0 for r in runs), runs[0].output
    assert "2/3 solved at 5000 nodes per position" in runs[0].output
    assert "missed wrong: expected Kf2, played Rxd5" in runs[0].output
    assert runs[0].output.splitlines()[-1] == runs[1].output.splitlines()[-1]


def test_bench_matches_the_uci_bench_and_rejects_a_missing_net(tmp_path) -> None:
    from engine.bench import run_bench
    from engine.session import bench_searcher
    result = CliRunner().invoke(main, ["bench", "--depth", "4"])
    assert result.exit_code == 0
    with bench_searcher() as searcher:
        assert result.output.splitlines()[-1].split()[0] == str(run_bench(searcher, 4)[0])
    result = CliRunner().invoke(main, ["bench", "--depth", "4", "--eval", "td", "--eval-file",
                                       str(tmp_path / "missing.npz")])
    assert result.exit_code != 0 and "EvalFile" in result.output
