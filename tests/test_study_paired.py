"""Two gauntlets compared opening by opening (engine/study/paired_gauntlets.py)."""
import gzip
import math
from pathlib import Path

from click.testing import CliRunner

from engine.cli import main


def write_gauntlet(path: Path, player: str, opponent: str, results: list[str]) -> Path:
    """Games two by two on openings 1, 2, ...: the player White in the first of each."""
    games = []
    for i, result in enumerate(results):
        white, black = (player, opponent) if i % 2 == 0 else (opponent, player)
        games.append(f'[Round "{i // 2 + 1}"]\n[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n\n'
                     f"1. e4 e5 {result}\n\n")
    text = "".join(games)
    if path.suffix == ".gz":
        with gzip.open(path, "wt") as f:
            f.write(text)
    else:
        path.write_text(text)
    return path


def run(a: Path, b: Path, out: Path | None = None):
    args = ["study", "paired", "--a", str(a), "--b", str(b)] + (["--out", str(out)] if out else [])
    return CliRunner().invoke(main, args)


def test_the_difference_is_taken_opening_by_opening(tmp_path: Path) -> None:
    # The player is White in each opening's first game. A's points a pair:
    # 1 (won, lost), 1 (two draws), 0 (lost, lost); B's: 2, 1, 2.
    a = write_gauntlet(tmp_path / "a.pgn", "old", "opp", ["1-0", "1-0", "1/2-1/2", "1/2-1/2", "0-1", "1-0"])
    b = write_gauntlet(tmp_path / "b.pgn.gz", "new", "opp", ["1-0", "0-1", "1-0", "1-0", "1-0", "0-1"])
    out = tmp_path / "report.txt"
    result = run(a, b, out)
    assert result.exit_code == 0, result.output
    diffs = [(2 - 1) / 2, (1 - 1) / 2, (2 - 0) / 2]            # a game: a pair is two
    mean = sum(diffs) / 3
    bar = 1.96 * math.sqrt(sum((d - mean) ** 2 for d in diffs) / 2) / math.sqrt(3)
    expected = (f"against opp: 3 openings: old 33.3%, new 83.3%; new - old {100 * mean:+.1f} ± {100 * bar:.1f} "
                "points a game (95%)")
    assert result.output.strip() == expected
    assert out.read_text().strip() == expected


def test_an_opening_not_played_in_full_is_left_out(tmp_path: Path) -> None:
    a = write_gauntlet(tmp_path / "a.pgn", "old", "opp", ["1-0", "0-1", "1-0", "1-0", "0-1", "1-0"])
    b = write_gauntlet(tmp_path / "b.pgn", "new", "opp", ["1-0", "0-1", "1-0", "1-0", "1-0"])   # opening 3: one game
    result = run(a, b)
    assert result.exit_code == 0, result.output
    assert "2 openings: old 75.0%, new 75.0%; new - old +0.0 points" in result.output
    assert "a bar needs 3 openings" in result.output


def test_the_opponent_is_named_when_both_builds_bear_one_name(tmp_path: Path) -> None:
    a = write_gauntlet(tmp_path / "a.pgn", "nmm", "opp", ["1-0", "0-1", "0-1", "1-0", "1-0", "0-1"])
    b = write_gauntlet(tmp_path / "b.pgn", "nmm", "opp", ["1-0", "0-1", "1-0", "0-1", "1-0", "0-1"])
    result = run(a, b)
    assert result.exit_code != 0 and "name the opponent" in result.output
    result = CliRunner().invoke(main, ["study", "paired", "--a", str(a), "--b", str(b), "--opponent", "opp"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("against opp: 3 openings: A 66.7%, B 100.0%")


def test_gauntlets_against_different_opponents_are_refused(tmp_path: Path) -> None:
    a = write_gauntlet(tmp_path / "a.pgn", "nmm-a", "toga", ["1-0", "0-1"])
    b = write_gauntlet(tmp_path / "b.pgn", "nmm-b", "glaurung", ["1-0", "0-1"])
    result = run(a, b)
    assert result.exit_code != 0
    assert "no single player is in every game" in result.output
