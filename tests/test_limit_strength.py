"""UCI_LimitStrength and UCI_Elo (issue 42, engine/strength.py): through
python-chess and raw UCI. A weakened engine plays legal moves, answers
``isready`` and ``bestmove``, keeps the clock's limits (read from what it
reports with ``debug on``, never from how long it took), plays other moves
than at full strength, still mates in one and takes a hanging queen; with
UCI_LimitStrength off, UCI_Elo changes nothing."""
from __future__ import annotations

import random
import re
import sys

import chess
import chess.engine
import pytest

from engine import strength
from engine.bench import POSITIONS
from test_tournament import BENCH_SIGNATURE
from uci_client import ENGINE, Engine, errors_in, transcript

LOW = strength.ELO_MIN
WEAK = ("setoption name UCI_LimitStrength value true", f"setoption name UCI_Elo value {LOW}")

MATES_IN_ONE = [
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",                                 # Rd8#
    "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 4 4",    # Qxf7#
    "k7/8/1K6/8/8/8/8/7R w - - 0 1",                                        # Rh8#
    "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2",        # Qh4#
]
HANGING_QUEENS = [
    "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1",
    "r1b1kbnr/pppp1ppp/2n5/8/3qP3/2N2N2/PPP2PPP/R1BQKB1R w KQkq - 0 6",
    "rnb1kbnr/pppp1ppp/8/4p3/4P2q/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "rnbqkb1r/pppp1ppp/5n2/4p2Q/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 2 3",
]


def popen(options: dict) -> chess.engine.SimpleEngine:
    engine = chess.engine.SimpleEngine.popen_uci(ENGINE, timeout=60)
    engine.configure(options)
    return engine


def moves_at(options: dict, fens: list[str], limit: chess.engine.Limit) -> list[str]:
    """The move a fresh engine with ``options`` plays in each position (a new game each)."""
    engine = popen(options)
    try:
        return [engine.play(chess.Board(fen), limit, game=object()).move.uci() for fen in fens]
    finally:
        engine.quit()


def test_the_options_are_in_the_uci_list() -> None:
    out = transcript("uci")
    assert "option name UCI_LimitStrength type check default false" in out
    assert (f"option name UCI_Elo type spin default {strength.ELO_DEFAULT} min {strength.ELO_MIN} "
            f"max {strength.ELO_MAX}") in out
    engine = chess.engine.SimpleEngine.popen_uci(ENGINE, timeout=60)
    try:
        elo = engine.options["UCI_Elo"]
        assert (elo.type, elo.min, elo.max) == ("spin", strength.ELO_MIN, strength.ELO_MAX)
        assert engine.options["UCI_LimitStrength"].type == "check"
    finally:
        engine.quit()


@pytest.mark.parametrize("asked, used", [(100, strength.ELO_MIN), (9999, strength.ELO_MAX), (-5, strength.ELO_MIN)])
def test_an_elo_out_of_range_is_reported_and_clamped(asked: int, used: int) -> None:
    out = transcript("setoption name UCI_LimitStrength value true", f"setoption name UCI_Elo value {asked}",
                     "debug on", "position startpos", "go nodes 2000", errors_ok=True)
    assert errors_in(out) == [f"info string error: option UCI_Elo must be in {strength.ELO_MIN}.."
                              f"{strength.ELO_MAX}, not {asked}; using {used}"]
    assert any(line.startswith(f"info string limit strength: UCI_Elo {used} ") for line in out)
    assert any(line.startswith("bestmove ") for line in out)


def test_a_bad_elo_value_keeps_the_old_one() -> None:
    out = transcript(*WEAK, "setoption name UCI_Elo value strong", "debug on", "position startpos",
                     "go nodes 100", errors_ok=True)
    assert len(errors_in(out)) == 1 and "integer" in errors_in(out)[0]
    assert any(line.startswith(f"info string limit strength: UCI_Elo {LOW} ") for line in out)


def go_line(out: list[str]) -> str:
    return next(line for line in out if line.startswith("info string go: "))


@pytest.mark.parametrize("go", ["wtime 60000 btime 60000 winc 500 binc 500", "movetime 1000",
                                "wtime 3000 btime 2000 movestogo 5", "nodes 50000"])
def test_the_clock_limits_are_full_strengths_and_the_nodes_capped(go: str) -> None:
    """Weakened, a go keeps every limit it had at full strength and gains a
    node cap (the smaller of it and ``go nodes``): it can only end sooner."""
    full = transcript("debug on", "position startpos moves e2e4", f"go {go}")
    weak = transcript(*WEAK, "debug on", "position startpos moves e2e4", f"go {go}")
    cap = strength.profile(LOW).nodes
    assert go_line(weak) == go_line(full).replace(re.search(r"nodes \S+", go_line(full)).group(0), f"nodes {cap}")
    infos = [line for line in weak if line.startswith("info depth")]
    assert infos and int(re.search(r" nodes (\d+)", infos[-1]).group(1)) < 2000
    assert weak[-1].startswith("bestmove ")


def test_the_lowest_elo_answers_isready_and_stop() -> None:
    """go infinite at the lowest Elo: the node cap ends the search, the
    answer waits for stop, and isready is answered meanwhile."""
    with Engine() as engine:
        engine.send(*WEAK, "isready")
        engine.read_until("readyok")
        engine.send("position startpos moves d2d4", "go infinite", "isready")
        _, out = engine.read_until("readyok")
        assert not any(line.startswith("bestmove") for line in out)
        engine.send("stop")
        _, out = engine.read_until("bestmove")
        move = out[-1].split()[1]
        board = chess.Board()
        board.push_uci("d2d4")
        assert chess.Move.from_uci(move) in board.legal_moves
        engine.send("position startpos", "go ponder wtime 1000 btime 1000", "ponderhit")
        _, out = engine.read_until("bestmove")
        assert chess.Move.from_uci(out[-1].split()[1]) in chess.Board().legal_moves
        assert engine.quit() == 0
    assert not errors_in([line for _, line in engine.lines])


def test_the_lowest_elo_plays_legal_games_on_a_clock() -> None:
    """Whole games through python-chess at the lowest Elo, against itself at
    full strength on a clock: every move is legal (python-chess checks), and
    every search stops at the node cap."""
    weak = popen({"UCI_LimitStrength": True, "UCI_Elo": LOW})
    full = popen({})
    try:
        for game in range(2):
            board = chess.Board()
            clock = chess.engine.Limit(white_clock=30, black_clock=30, white_inc=0.1, black_inc=0.1)
            while not board.is_game_over(claim_draw=True) and board.ply() < 120:
                weak_turn = (board.turn == chess.WHITE) == (game == 0)
                engine = weak if weak_turn else full
                limit = clock if weak_turn else chess.engine.Limit(depth=3)
                result = engine.play(board, limit, info=chess.engine.INFO_ALL, game=game)
                assert result.move in board.legal_moves
                if weak_turn:
                    assert result.info["nodes"] < 5000
                board.push(result.move)
    finally:
        weak.quit()
        full.quit()


def test_a_low_elo_plays_other_moves_than_full_strength() -> None:
    fens = POSITIONS[:14]
    limit = chess.engine.Limit(nodes=20_000)
    full = moves_at({}, fens, limit)
    weak = moves_at({"UCI_LimitStrength": True, "UCI_Elo": LOW}, fens, limit)
    mid = moves_at({"UCI_LimitStrength": True, "UCI_Elo": 1900}, fens, limit)
    assert sum(a != b for a, b in zip(full, weak)) >= 4
    assert sum(a != b for a, b in zip(full, mid)) >= 1
    assert sum(a != b for a, b in zip(full, mid)) <= sum(a != b for a, b in zip(full, weak))


def test_the_same_seed_plays_the_same_moves_and_another_seed_others() -> None:
    fens = POSITIONS[:10]
    limit = chess.engine.Limit(nodes=5000)
    options = {"UCI_LimitStrength": True, "UCI_Elo": 1600}
    first = moves_at({**options, "StrengthSeed": 3}, fens, limit)
    assert moves_at({**options, "StrengthSeed": 3}, fens, limit) == first
    others = [moves_at({**options, "StrengthSeed": seed}, fens, limit) for seed in (4, 5)]
    assert any(other != first for other in others)


@pytest.mark.parametrize("elo", [strength.ELO_MIN, 1700, 2100])
def test_a_mate_in_one_is_never_missed(elo: int) -> None:
    """The search finds a mate in one at depth 1, which even the lowest
    level always completes, and a mate score takes no error."""
    engine = popen({"UCI_LimitStrength": True, "UCI_Elo": elo})
    try:
        for fen in MATES_IN_ONE:
            for seed in range(4):
                engine.configure({"StrengthSeed": seed})
                board = chess.Board(fen)
                board.push(engine.play(board, chess.engine.Limit(time=0.001), game=object()).move)
                assert board.is_checkmate(), (elo, fen, seed)
    finally:
        engine.quit()


@pytest.mark.parametrize("elo", [2000, strength.ELO_MAX - 50])
def test_a_hanging_queen_is_taken_from_2000(elo: int) -> None:
    engine = popen({"UCI_LimitStrength": True, "UCI_Elo": elo})
    try:
        for fen in HANGING_QUEENS:
            for seed in range(3):
                engine.configure({"StrengthSeed": seed})
                board = chess.Board(fen)
                move = engine.play(board, chess.engine.Limit(time=0.001), game=object()).move
                assert board.piece_type_at(move.to_square) == chess.QUEEN, (elo, fen, seed, move)
    finally:
        engine.quit()


def test_the_lowest_elo_mostly_takes_a_hanging_queen() -> None:
    """Even at the weakest a free queen is taken most of the time: the error
    is a judgement's, not a random move's."""
    engine = popen({"UCI_LimitStrength": True, "UCI_Elo": LOW})
    taken = 0
    try:
        for fen in HANGING_QUEENS:
            for seed in range(5):
                engine.configure({"StrengthSeed": seed})
                board = chess.Board(fen)
                move = engine.play(board, chess.engine.Limit(time=0.001), game=object()).move
                taken += board.piece_type_at(move.to_square) == chess.QUEEN
    finally:
        engine.quit()
    assert taken >= 16


def test_only_the_lines_asked_for_are_shown_and_multipv_comes_back() -> None:
    with Engine() as engine:
        engine.send(*WEAK, "setoption name UCI_Elo value 1800", "position startpos", "go nodes 20000")
        engine.read_until("bestmove")
        engine.send("setoption name UCI_LimitStrength value false", "go depth 5")
        engine.read_until("bestmove")
        assert engine.quit() == 0
    out = [line for _, line in engine.lines]
    assert not errors_in(out) and not any(" multipv 2 " in line for line in out)
    out = transcript(*WEAK, "setoption name MultiPV value 2", "position startpos", "go nodes 20000")
    shown = {int(re.search(r" multipv (\d+)", line).group(1)) for line in out if line.startswith("info depth")}
    assert shown == {1, 2}


def test_the_last_info_line_is_the_move_played() -> None:
    """When the error chooses another line, a last info line gives it."""
    for seed in range(6):
        out = transcript(*WEAK, f"setoption name StrengthSeed value {seed}",
                         "position fen " + POSITIONS[5], "go nodes 5000")
        info = [line for line in out if line.startswith("info depth")][-1]
        assert info.split(" pv ")[1].split()[0] == out[-1].split()[1]


def test_without_limit_strength_the_elo_changes_nothing() -> None:
    """UCI_Elo and StrengthSeed are read only with UCI_LimitStrength on: the
    same searches, and the bench signature."""
    def searches(*options: str) -> list[str]:
        out = transcript(*options, "position fen " + POSITIONS[1], "go depth 8", "position startpos",
                         "go nodes 30000")
        return [re.sub(r" (nps|time) \d+", "", line) for line in out]
    assert searches("setoption name UCI_Elo value 1400", "setoption name StrengthSeed value 9") == searches()
    out = transcript("setoption name UCI_Elo value 1400", "setoption name UCI_LimitStrength value false", "bench")
    assert out[-1].split()[0] == str(BENCH_SIGNATURE)


def test_the_map_is_monotone_and_the_profile_weakens_with_the_elo() -> None:
    knots = strength.ELO_KNOTS
    assert knots[0][0] == strength.ELO_MIN and knots[-1] == (strength.ELO_MAX, 1.0)
    assert all(e0 < e1 and k0 <= k1 for (e0, k0), (e1, k1) in zip(knots, knots[1:]))
    profiles = [strength.profile(elo) for elo in range(strength.ELO_MIN, strength.ELO_MAX + 1, 20)]
    caps = [p.nodes if p.nodes is not None else sys.maxsize for p in profiles]
    assert caps == sorted(caps) and [p.sigma for p in profiles] == sorted((p.sigma for p in profiles), reverse=True)
    assert strength.profile(strength.ELO_MAX) == strength.Profile(1.0, None, 1, 0.0)


def test_choose_prefers_better_lines_in_proportion() -> None:
    lines = [{"score": 50, "mate": None}, {"score": 40, "mate": None}, {"score": -300, "mate": None}]
    rng = random.Random(5)
    picks = [strength.choose(lines, 60.0, rng)["score"] for _ in range(2000)]
    assert picks.count(50) > picks.count(40) > picks.count(-300)
    assert picks.count(-300) < 20


def test_a_weakened_engine_searches_with_the_evaluation_its_levels_were_fitted_with() -> None:
    """UCI_Elo's table was fitted with the handwritten evaluation: under
    UCI_LimitStrength the engine searches with it whatever Eval says, and at
    full strength with the net again."""
    go = ("position fen r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8", "go nodes 3000")

    def searched(*options: str, then: tuple[str, ...] = ()) -> list[str]:
        with Engine() as engine:
            engine.send(*options, *go)
            _, out = engine.read_until("bestmove")
            for line in then:
                engine.send(line)
            if then:
                out += engine.read_until("bestmove" if then[-1].startswith("go") else "Final evaluation")[1]
            assert engine.quit() == 0
        assert not errors_in(out)
        return [re.sub(r" (time|nps|hashfull) \d+", "", line) for line in out
                if line.startswith(("info depth", "bestmove", "NNUE:"))]

    hand = "setoption name Eval value handwritten"
    weak = searched(*WEAK)
    assert weak == searched(hand, *WEAK) and weak[-1].startswith("bestmove")    # the default Eval is the net
    assert searched() != searched(hand)                                # at full strength the net searches
    back = searched(*WEAK, then=("setoption name UCI_LimitStrength value false", *go, "eval"))
    assert any(line.startswith("NNUE:") for line in back)
