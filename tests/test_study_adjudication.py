"""`nmm-chess study adjudication`: played games replayed through other rules."""
from click.testing import CliRunner

from engine.cli import main

SHUFFLE = [("Nf3", "Nf6"), ("Ng1", "Ng8")]


def game(result: str, scores: list[float]) -> str:
    """A game of knight moves whose every move carries ``scores[i]`` (pawns) and one second."""
    text = []
    for ply, score in enumerate(scores):
        white, black = SHUFFLE[(ply // 2) % 2]
        move = white if ply % 2 == 0 else black
        prefix = f"{ply // 2 + 1}. " if ply % 2 == 0 else ""
        text.append(f"{prefix}{move} {{[%eval {score},9] [%emt 1.0]}}")
    return f'[Result "{result}"]\n\n' + " ".join(text) + f" {result}\n\n"


def test_a_quicker_rule_saves_time_and_miscalls_a_game_that_turned(tmp_path):
    won = game("1-0", [0.3] * 20 + [7.0] * 20)              # clearly won from ply 21
    turned = game("1-0", [0.1] * 70 + [3.0] * 30)           # level for 70 plies, then won
    pgn = tmp_path / "games.pgn"
    pgn.write_text(won + turned)
    out = tmp_path / "rules.txt"
    result = CliRunner().invoke(main, ["study", "adjudication", str(pgn), "--rule", "1000/8/80/10/16",
                                       "--rule", "600/4/60/20/10", "--out", str(out)])
    assert result.exit_code == 0, result.output
    lines = out.read_text().splitlines()
    assert lines[0] == "2 games, 0.0 hours of thinking"
    assert lines[3] == "| 1000 x 8 | 80, 10 x 16 | 0 | 0.0% | 0: none |"
    # the quick rule ends the won game after 4 of its winning plies (16 left of 140 s)
    # and calls the other a draw at ply 60 (40 left): one miscall
    assert lines[4] == "| 600 x 4 | 60, 20 x 10 | 2 | 40.0% | 1: 1 1-0 called 1/2-1/2 |"


def test_a_bad_rule_is_a_usage_error(tmp_path):
    pgn = tmp_path / "games.pgn"
    pgn.write_text(game("1-0", [0.0] * 4))
    result = CliRunner().invoke(main, ["study", "adjudication", str(pgn), "--rule", "600/8"])
    assert result.exit_code != 0 and "WIN_CP/WIN_PLIES" in result.output
