"""``nmm-chess study turning-points``: where each engine's lost games turned,
from the ``[%eval]`` comments the match runner writes."""
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.cli import main
from engine.study.turning_points import pgn_games, summarise, turning_points


ITALIAN = "e4 e5 Nf3 Nc6 Bc4 Bc5 c3 Nf6"
SCANDINAVIAN = "e4 d5 exd5 Nf6 Nc3 Bg4 Be2 Bxe2"     # Black a pawn down from move 2


def game(white: str, black: str, result: str, evals: list[float | None], line: str = ITALIAN) -> str:
    """Eight plies, each with White's view of the score in pawns (None: no comment)."""
    moves = line.split()
    text = []
    for ply, (move, score) in enumerate(zip(moves, evals)):
        number = f"{ply // 2 + 1}. " if ply % 2 == 0 else ""
        text.append(number + move + (f" {{ [%eval {score},10] }}" if score is not None else ""))
    return f'[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n\n{" ".join(text)} {result}\n\n'


GAMES = (
    # "us" as Black sees the loss at move 4, "them" at move 2: a lead of 2, gradual.
    game("them", "us", "1-0", [0.2, 0.1, 1.2, 0.5, 1.5, 0.8, 2.0, 1.8])
    # "us" as White, +1.5 at move 2, then a fall of 3.1 pawns in one move at move 4: sudden, thrown.
    + game("us", "them", "0-1", [0.3, 0.2, 1.5, 0.4, 0.6, -0.5, -2.5, -3.0])
    + game("us", "them", "1/2-1/2", [0.0, -5.0, 0.0, -5.0, 0.0, -5.0, 0.0, -5.0])   # a draw: no loser
    # "them" lost without its score ever falling a pawn: unseen.
    + game("us", "them", "1-0", [0.1, 0.1, 0.2, 0.2, 0.3, 0.3, 0.3, 0.3])
    + game("them", "us", "1-0", [None] * 8)         # a record without scores: nothing to read
    # "us" turns at 2...Nf6, just after 2.exd5: the balance is read at 3...Bg4, a pawn down.
    + game("them", "us", "1-0", [0.3, 0.3, 0.8, 1.2, 1.3, 1.5, 1.5, 1.5], SCANDINAVIAN)
)


@pytest.fixture
def pgn(tmp_path: Path) -> Path:
    path = tmp_path / "games.pgn"
    path.write_text(GAMES)
    return path


def test_each_loss_is_turned_where_the_losers_score_stays_down(pgn: Path) -> None:
    points = list(turning_points(pgn_games([pgn])))
    assert [(p.loser, p.turn, p.lead, p.sudden, p.unseen, p.thrown) for p in points] == [
        ("us", 4, 2, False, False, False),
        ("us", 4, 0, True, False, True),
        ("them", None, None, False, True, False),
        ("us", 2, -1, False, False, False),     # "them" saw it a move later
    ]
    assert points[0].phase == 24                    # every piece still on the board
    assert [p.balance for p in points] == [0, 0, None, -1]


def test_the_losses_are_summed_up_per_engine(pgn: Path) -> None:
    us, them = summarise(turning_points(pgn_games([pgn])))
    assert (us.engine, us.losses, us.seen, us.median_turn, us.median_lead) == ("us", 3, 3, 4, 0)
    assert us.by_stage == {"moves 1-20": 3, "moves 21-40": 0, "moves 41+": 0}
    assert (us.even, us.sudden, us.unseen, us.thrown) == (2, 1, 0, 1)
    assert (them.losses, them.seen, them.unseen, them.median_turn) == (1, 0, 1, None)


def test_a_higher_threshold_turns_later(pgn: Path) -> None:
    first = next(turning_points(pgn_games([pgn]), threshold=150))
    assert (first.turn, first.lead) == (4, 1)       # "them" reached +1.5 only at move 3


def test_the_command_prints_and_writes_the_table(pgn: Path, tmp_path: Path) -> None:
    out = tmp_path / "report" / "turns.txt"
    result = CliRunner().invoke(main, ["study", "turning-points", str(pgn), "--out", str(out)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[1].split()[:3] == ["lost", "by", "lost"]
    assert [line.split()[:3] for line in lines[2:]] == [["us", "3", "3"], ["them", "1", "0"]]
    assert out.read_text() == result.output
