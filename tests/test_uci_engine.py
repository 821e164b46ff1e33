"""The engine through a real UCI client (python-chess's chess.engine).
Searches that must not end by themselves are shown to by what the protocol
says (an info line seen, the bestmove only after stop), never by a
clock: a slow machine cannot fail them."""
import random

import chess
import chess.engine
import pytest
from uci_client import ENGINE, HANG_GUARD, RESEARCH, transcript

HOUR = 3600.0                           # a movetime no test waits for


@pytest.fixture
def engine():
    eng = chess.engine.SimpleEngine.popen_uci(ENGINE, timeout=HANG_GUARD)
    yield eng
    eng.quit()


@pytest.fixture
def research_engine():
    """The engine as the project's tools start it: every option listed."""
    eng = chess.engine.SimpleEngine.popen_uci(RESEARCH, timeout=HANG_GUARD)
    yield eng
    eng.quit()


def test_identity_and_options(engine) -> None:
    assert engine.id["name"].startswith("nmm-chess")
    opts = engine.options
    assert opts["Hash"].type == "spin" and opts["Hash"].default == 16 and opts["Hash"].min == 1
    assert opts["MultiPV"].max >= 4
    assert opts["Move Overhead"].type == "spin"
    assert opts["Ponder"].type == "check"
    assert opts["Clear Hash"].type == "button"
    assert opts["Threads"].default == 1
    assert opts["UCI_Chess960"].type == "check"
    assert "MoveOrdering" not in opts          # a research switch: listed in research mode only


@pytest.mark.parametrize("mode", ["effort", "fixed", "balanced"])
def test_time_management_through_uci(research_engine, mode: str) -> None:
    """TimeManagement is a combo the tools see; with `effort`, `fixed` or `balanced` a game on a clock is legal."""
    engine = research_engine
    assert "history" in engine.options["MoveOrdering"].var
    assert engine.options["TimeManagement"].var == ["stability", "effort", "fixed", "balanced"]
    engine.configure({"TimeManagement": mode})
    board = chess.Board()
    limit = chess.engine.Limit(white_clock=2, black_clock=2, white_inc=0.05, black_inc=0.05)
    for _ in range(12):
        result = engine.play(board, limit, game="g")
        assert result.move in board.legal_moves
        board.push(result.move)


def test_plays_a_legal_game_with_clocks(engine) -> None:
    board = chess.Board()
    limit = chess.engine.Limit(white_clock=3, black_clock=3, white_inc=0.05, black_inc=0.05)
    while not board.is_game_over(claim_draw=True) and board.ply() < 60:
        result = engine.play(board, limit, game="g")
        assert result.move in board.legal_moves
        board.push(result.move)


def test_info_fields_and_ponder_move(engine) -> None:
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    result = engine.play(board, chess.engine.Limit(depth=8), info=chess.engine.INFO_ALL)
    for key in ("depth", "seldepth", "multipv", "score", "nodes", "nps", "hashfull", "time", "pv"):
        assert key in result.info, key
    assert result.info["depth"] == 8
    assert result.ponder is not None
    assert result.ponder == result.info["pv"][1]


def test_mate_score_is_reported_as_mate(engine) -> None:
    board = chess.Board("r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1")
    info = engine.analyse(board, chess.engine.Limit(depth=10))
    assert info["score"].relative == chess.engine.Mate(3)


def test_multipv_and_searchmoves(engine) -> None:
    board = chess.Board()
    infos = engine.analyse(board, chess.engine.Limit(depth=6), multipv=3)
    assert [i["multipv"] for i in infos] == [1, 2, 3]
    assert len({i["pv"][0] for i in infos}) == 3
    result = engine.play(board, chess.engine.Limit(depth=5),
                         root_moves=[chess.Move.from_uci("a2a3"), chess.Move.from_uci("h2h4")])
    assert result.move.uci() in ("a2a3", "h2h4")


def search_until_stopped(analysis, depth: int) -> chess.engine.BestMove:
    """Read the infos until one of ``depth``: the bestmove, which ends them,
    must not come first (no answer given at once). Nothing read so far may
    be the bestmove either; then stop, and the bestmove comes after it.
    (python-chess sends stop before any other command, ping included, so an
    isready mid-search is tested in test_reliability, with its speed
    measured by engine.tools.latency.)"""
    assert any(info.get("depth", 0) >= depth for info in analysis), \
        f"a bestmove before depth {depth}, with no stop sent"
    while not analysis.would_block():           # what has come since, without waiting
        assert analysis.next() is not None, "a bestmove before the stop"
    analysis.stop()
    return analysis.wait()


def test_go_nodes_movetime_and_mate(engine) -> None:
    board = chess.Board()
    assert engine.play(board, chess.engine.Limit(nodes=2000)).move in board.legal_moves
    assert engine.play(board, chess.engine.Limit(time=0.3)).move in board.legal_moves
    # movetime (less Move Overhead) is used to its end, not to an iteration's:
    # with an hour's movetime the engine is still searching when stopped.
    # (That it lasts the whole movetime, on the engine's own clock: test_reliability.)
    with engine.analysis(board, chess.engine.Limit(time=HOUR)) as analysis:
        best = search_until_stopped(analysis, depth=5)
    assert best.move in board.legal_moves
    mate = chess.Board("r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1")
    info = engine.analyse(mate, chess.engine.Limit(mate=3))
    assert info["score"].relative == chess.engine.Mate(3)


def test_infinite_and_stop(engine) -> None:
    with engine.analysis(chess.Board()) as analysis:
        best = search_until_stopped(analysis, depth=2)
    assert best.move in chess.Board().legal_moves


def test_ponder_then_ponderhit(engine) -> None:
    board = chess.Board()
    limit = chess.engine.Limit(white_clock=2, black_clock=2)
    first = engine.play(board, limit, ponder=True, game="p")
    board.push(first.move)
    if first.ponder:
        board.push(first.ponder)
    second = engine.play(board, limit, ponder=True, game="p")   # ponderhit or stop + go
    assert second.move in board.legal_moves


def test_chess960_castling_notation(engine) -> None:
    board = chess.Board("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
                        chess960=True)
    result = engine.play(board, chess.engine.Limit(depth=4))   # python-chess sets UCI_Chess960
    assert result.move in board.legal_moves
    castles = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", chess960=True)
    result = engine.play(castles, chess.engine.Limit(depth=2),
                         root_moves=[chess.Move.from_uci("e1h1")])
    assert result.move == chess.Move.from_uci("e1h1")


def test_no_legal_move_answers_0000() -> None:
    out = transcript("position fen 7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", "go depth 5", "isready")
    assert "bestmove 0000" in out
    assert "info depth 0 score mate 0" in out


def test_bench_command_prints_the_signature() -> None:
    from engine.bench import run_bench
    from engine.session import bench_searcher
    last = transcript("bench 5")[-1]
    with bench_searcher() as searcher:
        assert last.endswith(" nps") and int(last.split()[0]) == run_bench(searcher, 5)[0]


def test_eval_command_prints_terms() -> None:
    out = transcript("setoption name Eval value handwritten", "position startpos moves e2e4", "eval")
    assert any(line.startswith("material") for line in out)
    assert any(line.startswith("king safety") for line in out)
    assert any(line.startswith("Final evaluation") for line in out)
    net = transcript("position startpos moves e2e4", "eval")          # the default: the net explains itself
    assert any(line.startswith("NNUE:") for line in net) and any(line.startswith("Final evaluation") for line in net)


def long_random_game(plies: int) -> chess.Board:
    """A seeded random game of at least ``plies`` plies that is not over."""
    for seed in range(1000):
        rng = random.Random(seed)
        board = chess.Board()
        while board.ply() < plies and not (board.is_checkmate() or board.is_stalemate()
                                           or board.is_insufficient_material()):
            board.push(rng.choice(list(board.legal_moves)))
        if board.ply() >= plies and any(board.legal_moves):
            return board
    raise AssertionError("no long game found")


def test_long_move_list(engine) -> None:
    """A 420-ply game, sent in full as UCI does on every move."""
    board = long_random_game(420)
    result = engine.play(board, chess.engine.Limit(depth=4))
    assert result.move in board.legal_moves
