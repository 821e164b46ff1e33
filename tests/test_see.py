"""Static exchange evaluation (ext/see.pxi): the values the picker, the
move classes and SEE pruning compare with their bounds."""
from engine._core import Board, exchanges


def test_exchange_values() -> None:
    # An undefended pawn; then knight for pawn, with rook, queen and bishop
    # joining in and the queen behind the bishop: -200 (values 100/300/300/500/900).
    assert exchanges(Board("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1"))["e1e5"] == 100
    assert exchanges(Board("1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1"))["d3e5"] == -200


def test_quiet_moves_and_castling() -> None:
    values = exchanges(Board("r3k2r/8/8/4p3/8/8/8/R3K1NR w KQkq - 0 1"))
    assert values["g1f3"] == 0 and values["e1c1"] == 0         # nothing attacks f3; castling is 0
    assert exchanges(Board("4k3/8/8/4p3/8/5N2/8/4K3 w - - 0 1"))["f3d4"] == -300


def test_the_king_takes_back_only_onto_an_unguarded_square() -> None:
    # The queen's move uncovers the rook behind it, which guards e7.
    assert exchanges(Board("4k3/4p3/8/8/8/8/4Q3/6K1 w - - 0 1"))["e2e7"] == -800
    assert exchanges(Board("4k3/4p3/8/8/8/8/4Q3/4R1K1 w - - 0 1"))["e2e7"] == 100


def test_en_passant_and_promotion() -> None:
    # En passant wins the pawn; the capture that promotes counts the queen
    # gained, less the queen lost to the king's recapture.
    assert exchanges(Board("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1"))["e5d6"] == 100
    assert exchanges(Board("3rk3/2P5/8/8/8/8/8/4K3 w - - 0 1"))["c7d8q"] == 500 + 800 - 900
