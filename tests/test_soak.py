"""The soak (`make soak` runs it with a report): many fast games against
itself, with and without pondering; not one crash, hang, illegal move or
time forfeit."""
import pytest

from engine.perft import data_dir
from engine.tools.engines import parse_spec
from engine.tools.match import load_openings, run_match


@pytest.mark.slow
@pytest.mark.timeout(6 * 3600)
@pytest.mark.parametrize("games, ponder", [(2000, False), (200, True)], ids=["plain", "ponder"])
def test_fast_games_end_cleanly(games: int, ponder: bool) -> None:
    book = data_dir() / "openings" / "8moves_v3.pgn"
    if not book.exists():
        pytest.skip(f"no opening book at {book}")
    nmm = parse_spec("nmm")
    summary = run_match(nmm, nmm, load_openings(book, games // 2, seed=21), 1.0, 0.01,
                        adjudicate=False, ponder=ponder)
    assert len(summary.games) == games
    for kind in ("crash", "hang", "illegal", "forfeit"):
        assert summary.flags(kind, "a") + summary.flags(kind, "b") == 0, kind
