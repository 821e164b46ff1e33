"""``nmm-chess study endgames``: endings found in games and the points dropped in them."""
from pathlib import Path

from click.testing import CliRunner

from engine.cli import main
from engine.study.endgame_losses import endings

GAMES = """[White "nmm"]
[Black "toga2"]
[Result "1/2-1/2"]
[SetUp "1"]
[FEN "4k3/8/8/8/8/2NN4/3K4/7b w - - 0 1"]

1. Ke3 Kf7 2. Nf4 Bd5 3. Ncxd5 Kg7 1/2-1/2

[White "glaurung"]
[Black "/usr/bin/python uci_main.py"]
[Result "1-0"]
[SetUp "1"]
[FEN "4k3/8/8/8/8/3R4/8/3rK3 w - - 0 1"]

1. Kxd1 Kf7 2. Kc2 Kg6 1-0

[White "toga2"]
[Black "glaurung"]
[Result "1-0"]

1. e4 e5 1-0
"""


def test_endings_and_dropped_points(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    pgn.write_text(GAMES)
    found = list(endings([pgn]))
    assert len(found) == 2                       # the third game is not ours
    knights, rook = found
    # Entered at the first quiet position a knight up, left in K+N+N against K, drawn.
    assert (knights.kind, knights.balance, knights.entered, knights.score) == ("minor", 3, "KNN v KB", 0.5)
    assert knights.last == "KNN v K" and knights.dropped == 0.5
    # Black (ours) lost a rook ending a rook down: nothing dropped.
    assert (rook.kind, rook.balance, rook.score, rook.dropped) == ("rook", -5, 0.0, 0.0)
    out = CliRunner().invoke(main, ["study", "endgames", str(pgn), "--out", str(tmp_path / "r.txt")])
    assert out.exit_code == 0, out.output
    assert "0.5 points dropped in 1 of them" in out.output
    assert (tmp_path / "r.txt").read_text() == out.output
