"""Perft: every suite position at every depth that fits the CI budget."""
import random
from pathlib import Path

import pytest

from engine._core import Board, legal_move_codes
from engine.perft import check_position, is_chess960_suite, parse_perft_line, read_suite

SUITES = sorted((Path(__file__).parent / "fixtures" / "perft").glob("*.epd"))
# The largest expected count checked in CI; `make perft-full` checks them all.
CI_MAX_NODES = 5_000_000


@pytest.mark.parametrize("suite", SUITES, ids=lambda p: p.stem)
def test_suite_matches(suite: Path) -> None:
    checked = 0
    for fen, counts in read_suite(suite):
        result = check_position(fen, counts, CI_MAX_NODES, is_chess960_suite(suite))
        assert not result.mismatches, result.mismatches
        checked += result.checks
    assert checked >= len(list(read_suite(suite)))


def test_every_suite_line_parses() -> None:
    for suite in SUITES:
        for fen, counts in read_suite(suite):
            assert counts, fen
            Board(fen)


def test_parse_layouts() -> None:
    assert parse_perft_line("8/8/8/8/8/8/8/K6k w - -  0 1; D4 23441 ") == (
        "8/8/8/8/8/8/8/K6k w - - 0 1", {4: 23441})
    assert parse_perft_line('k7/8/8/8/8/8/8/K7 w - - 0 1 ;D1 3 ;id "x"') == (
        "k7/8/8/8/8/8/8/K7 w - - 0 1", {1: 3})
    assert parse_perft_line("   ") is None


def test_start_position_depth_6() -> None:
    assert Board().perft(6) == 119_060_324


def test_bulk_and_full_counting_agree() -> None:
    board = Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    assert board.perft(3, bulk=False) == board.perft(3, bulk=True) == 97_862


def test_hashed_perft_agrees() -> None:
    board = Board("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1")
    assert board.perft_hashed(6, 16) == 11_030_083


def test_divide_sums_to_perft() -> None:
    board = Board()
    divided = dict(board.divide(4))
    assert len(divided) == 20
    assert divided["e2e4"] == 13_160
    assert sum(divided.values()) == 197_281


def test_a_wrong_count_is_reported() -> None:
    result = check_position(Board().fen(), {1: 20, 2: 401})
    assert [(m.depth, m.expected, m.got) for m in result.mismatches] == [(2, 401, 400)]


@pytest.mark.slow
@pytest.mark.timeout(6 * 3600)
def test_every_line_of_every_suite() -> None:
    """`make perft-full`'s check, as a test: every position of every suite in
    the data folder, every depth it lists (hours on two cores)."""
    from engine.perft import check_suites, data_dir
    suites = sorted((data_dir() / "perft").glob("*.epd"))
    if not suites:
        pytest.skip(f"no perft suites in {data_dir()}")
    result = check_suites(suites, None, jobs=2, hash_mb=64)
    assert not result.mismatches, result.mismatches[:5]
    assert result.checks > 40_000


def test_single_move_check_agrees_with_generation() -> None:
    """The search checks a table's move alone (is_legal) before it generates
    a node's moves: every one of the 65,536 move codes must pass exactly when
    the generator lists it, for each kind, in suite positions (double checks,
    pins, en passant, Chess960 castling) and positions a few random plies on."""
    rng = random.Random(7)
    fens = [(fen, is_chess960_suite(suite)) for suite in SUITES for fen, _ in list(read_suite(suite))[::6]]
    assert len(fens) > 100
    for fen, chess960 in fens:
        board = Board(fen, chess960)
        for _ in range(rng.randrange(4)):
            moves = board.legal_moves()
            if not moves:
                break
            board.push(rng.choice(moves))
        for kind in ("all", "noisy", "quiet"):
            assert legal_move_codes(board, kind, by_check=True) == legal_move_codes(board, kind), (board.fen(), kind)
