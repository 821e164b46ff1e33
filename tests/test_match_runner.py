"""The built-in match runner (engine/tools/match.py) down each of its paths:
a normal game, a time forfeit, a hang, a crash, an illegal move, win and
draw adjudication, and the failures a resumed match reads back from its PGN.
The engines are tests/fake_engine.py, told how and when to misbehave.

No test depends on the machine's speed: a late answer is late by the clock
the fake itself was sent, the games on a clock last four plies of instant
answers against a clock of seconds, and the rest play at fixed depth, where
no clock runs and the game is the same on every machine (seeded moves).
"""
import doctest
import io
import sys
from pathlib import Path

import chess
import chess.pgn
import pytest
from click.testing import CliRunner

from engine.tools import match as runner
from engine.tools.engines import EngineSpec
from engine.tools.match import (FAILURES, MatchSummary, game_writer, games_from_log, read_games, report,
                                rewrite_pgn, run_match)

FAKE = Path(__file__).resolve().parent / "fake_engine.py"
FOOLS_MATE = "--prefer=f2f3,g2g4,e7e5,d8h4"     # from the start, 1.f3 e5 2.g4 Qh4#: a game of four plies
AFTER_G4 = chess.Board("rnbqkbnr/pppppppp/8/8/6P1/8/PPPPPP1P/RNBQKBNR b KQkq - 0 1")     # 1...e5 2.f3 Qh4#
SIDES = ("a", "b")


def fake(name: str, *args: object) -> EngineSpec:
    return EngineSpec(name, [sys.executable, str(FAKE), *map(str, args)])


def failing(tmp_path: Path, mode: str, name: str | None = None) -> EngineSpec:
    """An engine that plays the fool's mate line but gets its second move wrong
    (``mode``), once: the engine started in its place, and its next game, are normal."""
    return fake(name or mode, "--mode", mode, "--after", 2, "--once", tmp_path / f"{mode}.once", FOOLS_MATE,
                "--log", tmp_path / f"{mode}.log")


def good(name: str = "good") -> EngineSpec:
    return fake(name, FOOLS_MATE)


def play(tmp_path: Path, a: EngineSpec, b: EngineSpec, base: float = 0, inc: float = 0,
         openings: tuple[chess.Board, ...] = (chess.Board(),), **kwargs) -> MatchSummary:
    """run_match as ``nmm-chess match --pgn`` runs it: the games into tmp_path/games.pgn."""
    lines: list[str] = []
    with rewrite_pgn(tmp_path / "games.pgn", [], lines.append) as pgn:
        return run_match(a, b, list(openings), base, inc, on_game=game_writer(lines.append, pgn), **kwargs)


def failures(summary: MatchSummary) -> dict[tuple[str, str], int]:
    return {(kind, side): summary.flags(kind, side) for kind in FAILURES for side in SIDES}


def flagged(game) -> dict[str, str]:
    """A game's failure flags that are set."""
    return {f"{kind}_by": getattr(game, f"{kind}_by") for kind in FAILURES if getattr(game, f"{kind}_by")}


def processes(log: Path) -> list[str]:
    """The ids of the fake's processes, in the order they started."""
    return [line.split()[0] for line in log.read_text().splitlines() if line.endswith(" start")]


def assert_read_back(tmp_path: Path, summary: MatchSummary, a: EngineSpec, b: EngineSpec,
                     openings: tuple[chess.Board, ...] = (chess.Board(),)) -> None:
    """The PGN gives back every game as played, failures included (what --resume counts)."""
    again = MatchSummary(read_games(tmp_path / "games.pgn", a.label, b.label, list(openings)))
    assert [(g.opening, g.a_white, g.result, g.reason, g.plies, flagged(g)) for g in again.games] == \
        [(g.opening, g.a_white, g.result, g.reason, g.plies, flagged(g)) for g in summary.games]
    assert failures(again) == failures(summary)


def test_each_move_keeps_the_score_its_engine_gave(tmp_path):
    """The comments carry the mover's reported score as [%eval], White's view in
    pawns with the depth, beside the clock; an engine that reports none gets none."""
    scoring = fake("scoring", FOOLS_MATE, "--score", "150")     # +1.50 for White, whoever moves
    first = play(tmp_path, scoring, good(), 60, 1).games[0]     # scoring is White: 1.f3 and 2.g4
    moves = list(chess.pgn.read_game(io.StringIO(first.pgn)).mainline())
    assert [(n.eval().white().score() if n.eval() else None, n.eval_depth()) for n in moves] == \
        [(150, 1), (None, None), (150, 1), (None, None)]
    assert all("[%clk " in n.comment and "[%emt " in n.comment for n in moves)


def test_a_normal_game_on_the_clock(tmp_path):
    a = fake("a", FOOLS_MATE, "--log", tmp_path / "a.log")
    summary = play(tmp_path, a, good(), 60, 1)
    first, second = summary.games
    assert (first.result, first.reason, first.plies, first.a_white) == ("0-1", "checkmate", 4, True)
    assert (second.result, second.a_white, second.a_score) == ("0-1", False, 1.0)
    assert not flagged(first) and not flagged(second)
    assert (summary.count(1.0), summary.count(0.5), summary.count(0.0)) == (1, 0, 1)
    assert first.pgn.count("[%clk ") == 4 and '[TimeControl "60+1"]' in first.pgn
    assert "Failure" not in first.pgn
    goes = [line.split(" ", 1)[1] for line in (tmp_path / "a.log").read_text().splitlines() if " go " in line]
    assert goes[0] == "go wtime 60000 btime 60000 winc 1000 binc 1000"
    assert "time forfeits: a 0, good 0; illegal moves: 0 / 0; crashes: 0 / 0; hangs: 0 / 0" in \
        report(a, good(), 60, 1, summary, True)
    assert_read_back(tmp_path, summary, a, good())


def test_a_late_answer_loses_on_time_and_the_engine_is_replaced(tmp_path):
    late = failing(tmp_path, "late")
    summary = play(tmp_path, late, good(), 2, 0)
    lost, after = summary.games
    assert (lost.result, lost.reason, lost.plies, flagged(lost)) == ("0-1", "late lost on time", 2,
                                                                     {"forfeit_by": "a"})
    assert '[Failure "forfeit"]' in lost.pgn
    assert (after.reason, after.a_score, flagged(after)) == ("checkmate", 1.0, {})
    assert len(set(processes(tmp_path / "late.log"))) == 2          # a fresh engine played the next game
    assert failures(summary) == {**dict.fromkeys(failures(summary), 0), ("forfeit", "a"): 1}
    assert "time forfeits: late 1, good 0;" in report(late, good(), 2, 0, summary, True)
    assert_read_back(tmp_path, summary, late, good())


def test_an_overrun_within_the_time_margin_costs_the_clock_not_the_game(tmp_path):
    """As fastchess's timemargin: the late move stands, and the mover's clock is
    zero before its increment (the opponent's next ``go`` shows exactly that)."""
    late = failing(tmp_path, "late")            # its second move 0.3 s past its clock
    b = fake("b", FOOLS_MATE, "--log", tmp_path / "b.log")
    summary = play(tmp_path, late, b, 0.5, 1, time_margin=30)
    first, second = summary.games
    assert (first.result, first.reason, first.plies, flagged(first)) == ("0-1", "checkmate", 4, {})
    assert not flagged(second)
    goes = [line.split(" ", 1)[1] for line in (tmp_path / "b.log").read_text().splitlines() if " go " in line]
    assert goes[1].startswith("go wtime 1000 ")     # b's go after late's 2.g4: late's clock 0 + 1 s
    assert "10+0.1, time margin 30000 ms" in report(late, b, 10, 0.1, summary, True, time_margin=30)


def test_an_engine_that_never_answers_is_hung_killed_and_replaced(tmp_path):
    never = failing(tmp_path, "never")
    summary = play(tmp_path, never, good(), 2, 0, hang_guard=1.0)
    hung, after = summary.games
    assert (hung.result, hung.reason, hung.plies, flagged(hung)) == ("0-1", "never hung", 2, {"hang_by": "a"})
    assert (after.reason, after.a_score, flagged(after)) == ("checkmate", 1.0, {})
    assert len(set(processes(tmp_path / "never.log"))) == 2
    assert "hangs: 1 / 0" in report(never, good(), 2, 0, summary, True)
    assert_read_back(tmp_path, summary, never, good())


def test_a_crash_loses_and_the_next_game_gets_a_fresh_engine(tmp_path):
    dies = failing(tmp_path, "die")
    summary = play(tmp_path, good(), dies, depth=1)
    crashed, after = summary.games
    # 1.f3 e5 2.g4, and Black's engine exits instead of mating
    assert (crashed.result, crashed.reason, crashed.plies, flagged(crashed)) == ("1-0", "die crashed", 3,
                                                                                 {"crash_by": "b"})
    assert crashed.a_score == 1.0
    assert (after.result, after.reason, after.plies, flagged(after)) == ("0-1", "checkmate", 4, {})
    assert after.a_score == 1.0                                     # A, now Black, mates the fresh B
    first, second = processes(tmp_path / "die.log")
    assert first != second
    assert "crashes: 0 / 1" in report(good(), dies, 0, 0, summary, True, depth=1)
    assert_read_back(tmp_path, summary, good(), dies)


@pytest.mark.parametrize("mode, reason", [("illegal", "illegal: illegal uci: "),
                                          ("nomove", "nomove played None")])
def test_an_illegal_move_loses_and_the_engine_plays_on(tmp_path, mode, reason):
    """A move that is not legal (python-chess's EngineError) or none at all
    (``bestmove (none)``): the game is lost, its moves until then recorded."""
    bad = failing(tmp_path, mode)
    summary = play(tmp_path, bad, good(), depth=1)
    assert len(summary.games) == 2
    lost, after = summary.games
    assert (lost.result, lost.plies, flagged(lost)) == ("0-1", 2, {"illegal_by": "a"})
    assert lost.reason.startswith(reason)
    assert lost.pgn.count("[%clk ") == 2 and lost.pgn.rstrip().endswith("0-1")
    assert (after.reason, after.a_score, flagged(after)) == ("checkmate", 1.0, {})
    assert len(processes(tmp_path / f"{mode}.log")) == 1            # not replaced: it only lost the game
    assert "illegal moves: 1 / 0" in report(bad, good(), 0, 0, summary, True, depth=1)
    assert_read_back(tmp_path, summary, bad, good())


@pytest.mark.parametrize("score, result", [(1500, "1-0"), (-1500, "0-1")])
def test_a_win_is_adjudicated_once_both_engines_see_it_for_8_plies(tmp_path, score, result):
    summary = play(tmp_path, fake("a", "--score", score), fake("b", "--score", score, "--seed", 2), depth=1,
                   stop=lambda s: len(s.games) >= 1)
    (game,) = summary.games
    assert (game.result, game.reason, game.plies, flagged(game)) == (result, "adjudicated win", 8, {})


@pytest.mark.parametrize("a_score, b_score, adjudicate", [(1500, -1500, True), (1500, 1500, False)])
def test_no_win_is_adjudicated_when_the_engines_disagree_or_adjudication_is_off(tmp_path, a_score, b_score,
                                                                                 adjudicate):
    summary = play(tmp_path, fake("a", "--score", a_score), fake("b", "--score", b_score, "--seed", 2),
                   depth=1, adjudicate=adjudicate, stop=lambda s: len(s.games) >= 1)
    (game,) = summary.games
    assert not game.reason.startswith("adjudicated") and game.plies > 8


@pytest.mark.parametrize("a_score, b_score", [(0, 0), (5, -8)])
def test_a_draw_is_adjudicated_at_ply_80_when_both_scores_stay_near_zero(tmp_path, a_score, b_score):
    summary = play(tmp_path, fake("a", "--score", a_score), fake("b", "--score", b_score, "--seed", 2),
                   depth=1, stop=lambda s: len(s.games) >= 1)
    (game,) = summary.games
    assert (game.result, game.reason, game.plies, game.a_score) == ("1/2-1/2", "adjudicated draw", 80, 0.5)


def mixed_match(tmp_path: Path) -> tuple[EngineSpec, EngineSpec, tuple[chess.Board, ...], MatchSummary]:
    """Four games at fixed depth: A crashes in the first, B plays an illegal move in the second."""
    a, b = failing(tmp_path, "die", "a"), failing(tmp_path, "illegal", "b")
    openings = (chess.Board(), AFTER_G4)
    summary = play(tmp_path, a, b, openings=openings, depth=1)
    assert [flagged(g) for g in summary.games] == [{"crash_by": "a"}, {"illegal_by": "b"}, {}, {}]
    return a, b, openings, summary


def test_a_resumed_match_counts_the_failures_of_its_earlier_games(tmp_path):
    a, b, openings, summary = mixed_match(tmp_path)
    assert_read_back(tmp_path, summary, a, b, openings)
    pgn = tmp_path / "games.pgn"
    kept = read_games(pgn, a.label, b.label, list(openings))
    resumed = run_match(a, b, list(openings), 0, 0, depth=1, played=kept)     # nothing left to play
    assert report(a, b, 0, 0, resumed, True, depth=1) == report(a, b, 0, 0, summary, True, depth=1)
    # a run killed in the middle of writing its third game: two kept, two played again
    text = pgn.read_text()
    starts = [i for i in range(len(text)) if text.startswith("[Event ", i)]
    pgn.write_text(text[:starts[3] - 10])       # the third game without its last move and result
    kept = read_games(pgn, a.label, b.label, list(openings))
    assert [flagged(g) for g in kept] == [{"crash_by": "a"}, {"illegal_by": "b"}]
    rest = run_match(good("a"), good("b"), list(openings), 0, 0, depth=1, played=kept)
    assert len(rest.games) == 4 and failures(rest) == failures(summary)


def test_a_pgn_written_before_the_failure_header_gives_its_failures_from_the_termination(tmp_path):
    a, b, openings, summary = mixed_match(tmp_path)
    pgn = tmp_path / "games.pgn"
    lines = pgn.read_text().splitlines(keepends=True)
    old = "".join(line for line in lines if not line.startswith("[Failure "))
    assert old != pgn.read_text()
    pgn.write_text(old)
    assert_read_back(tmp_path, summary, a, b, openings)


def test_games_a_lost_pgn_did_not_keep_count_from_the_match_log(tmp_path):
    """A machine lost before the PGN was saved: the log's lines give the games
    back, results, colours, openings and failures, and they read back as counted."""
    a, b = failing(tmp_path, "die", "a"), failing(tmp_path, "illegal", "b")
    openings = [chess.Board(), AFTER_G4]
    lines: list[str] = []
    with rewrite_pgn(tmp_path / "games.pgn", [], lines.append) as pgn:
        summary = run_match(a, b, openings, 0, 0, on_game=game_writer(lines.append, pgn), depth=1)
    log = tmp_path / "match.log"
    log.write_text("# engines a b\n" + "\n".join(lines) + "\n")
    text = (tmp_path / "games.pgn").read_text()
    (tmp_path / "games.pgn").write_text(text[:text.index("[Event ", 1)])      # only the first game was saved
    kept = read_games(tmp_path / "games.pgn", a.label, b.label, openings)
    found = games_from_log(log, kept, a.label, b.label, openings, "depth 1")
    assert len(kept) == 1 and len(found) == 3
    again = kept + found
    assert [(g.opening, g.a_white, g.result, g.reason, flagged(g)) for g in again] == \
        [(g.opening, g.a_white, g.result, g.reason, flagged(g)) for g in summary.games]
    with rewrite_pgn(tmp_path / "games.pgn", again, lines.append):
        pass
    back = read_games(tmp_path / "games.pgn", a.label, b.label, openings)
    assert [(g.opening, g.a_white, g.result, flagged(g)) for g in back] == \
        [(g.opening, g.a_white, g.result, flagged(g)) for g in summary.games]
    assert "moves after the opening were lost" in back[-1].pgn
    assert games_from_log(log, back, a.label, b.label, openings) == []       # nothing past the PGN
    log.write_text("\n".join(line for line in lines if not line.startswith("game   3")))
    with pytest.raises(ValueError, match="game 3 is missing"):
        games_from_log(log, kept, a.label, b.label, openings)


def test_match_resume_on_the_command_line_reports_the_earlier_failures(tmp_path):
    from engine.cli import main
    book = tmp_path / "start.epd"
    book.write_text(chess.Board().epd() + "\n")
    dies = " ".join(failing(tmp_path, "die").command)      # a command line, as a user names an engine
    args = ["match", dies, " ".join(good().command), "--games", "2", "--depth", "1", "--openings", str(book),
            "--pgn", str(tmp_path / "games.pgn")]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output
    resumed = CliRunner().invoke(main, args + ["--resume"])
    assert resumed.exit_code == 0, resumed.output
    assert "2 games kept" in resumed.output and "game   1" not in resumed.output
    for output in (first.output, resumed.output):
        assert "+1 =0 -1" in output and "crashes: 1 / 0" in output


def book_of(count: int, path: Path) -> Path:
    """An EPD of ``count`` different positions, walked by seeded random moves from the start."""
    import random
    rng, board, seen = random.Random(5), chess.Board(), {}
    while len(seen) < count:
        moves = list(board.legal_moves)
        if not moves or board.ply() > 40:
            board, moves = chess.Board(), list(chess.Board().legal_moves)
        board.push(rng.choice(moves))
        seen.setdefault(board.epd())
    path.write_text("\n".join(seen) + "\n")
    return path


def test_more_openings_keep_the_ones_already_drawn(tmp_path):
    """A match resumed with more games must meet its played pairs' openings again: a longer
    draw starts with the shorter one, also past the count where random.sample changes method
    (from 22 of 100 on; with seeds 5 and 6 its own longer draws start differently), and the
    draws random.sample made below that count stay as they were."""
    import random
    book = book_of(100, tmp_path / "book.epd")
    for seed in (5, 6, 7):
        epds = lambda count: [b.epd() for b in runner.load_openings(book, count, seed=seed)]
        short = epds(10)
        assert short == random.Random(seed).sample(book.read_text().splitlines(), 10)
        for longer in (20, 30, 60, 99):
            drawn = epds(longer)
            assert drawn[:10] == short and len(set(drawn)) == longer
        whole = epds(250)
        assert len(whole) == 100 and len(set(whole)) == 100


def test_a_match_resumed_with_more_games_keeps_its_openings(tmp_path):
    """--resume with a larger --games: the games played are read back against the longer
    draw's openings (seed 11: random.sample's 22 start with other openings than its 3).
    The first engine's first move is illegal, so each game is two plies."""
    from engine.cli import main
    book = book_of(100, tmp_path / "book.epd")
    illegal = " ".join(fake("illegal", "--mode", "illegal", "--after", 1).command)
    args = ["match", illegal, " ".join(good().command), "--depth", "1", "--openings", str(book),
            "--seed", "11", "--pgn", str(tmp_path / "games.pgn")]
    first = CliRunner().invoke(main, args + ["--games", "6"])
    assert first.exit_code == 0, first.output
    resumed = CliRunner().invoke(main, args + ["--games", "44", "--resume"])
    assert resumed.exit_code == 0, resumed.output
    assert "6 games kept" in resumed.output and "illegal moves: 44 / 0" in resumed.output


def test_the_docstring_examples():
    assert doctest.testmod(runner).failed == 0


def test_a_second_match_on_the_same_pgn_stops_at_once(tmp_path):
    """Two matches writing one PGN would rewrite each other's record: the
    second is refused while the first holds the lock, and may go once it is gone."""
    from engine.cli import main
    from engine.cli.common import hold_pgn
    book = tmp_path / "start.epd"
    book.write_text(chess.Board().epd() + "\n")
    pgn = tmp_path / "games.pgn"
    args = ["match", " ".join(good().command), " ".join(good().command), "--games", "2", "--depth", "1",
            "--openings", str(book), "--pgn", str(pgn)]
    first = hold_pgn(pgn)
    refused = CliRunner().invoke(main, args)
    assert refused.exit_code != 0 and "another match is writing" in refused.output
    assert not pgn.exists()
    first.close()
    assert CliRunner().invoke(main, args).exit_code == 0
