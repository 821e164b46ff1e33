"""Issue 42: the option list a GUI user reads (the playing options; the
research switches in research mode only, settable by name in either), the
opening book (OwnBook, BookFile, BookBestMove), UCI_AnalyseMode and
UCI_Opponent, and UCI_ShowWDL with its model fitted to the engine's own
games. Through raw UCI transcripts and python-chess's chess.engine."""
from __future__ import annotations

import os
import struct
from pathlib import Path

import chess
import chess.engine
import chess.polyglot
import numpy as np
import pytest
from click.testing import CliRunner
from uci_client import ENGINE, HANG_GUARD, RESEARCH, Engine, answers, errors_in, transcript

from engine.options import OPTIONS, PLAYING, listed
from engine.tools.engines import KNOWN, parse_spec

PLAYING_NAMES = [o.name for o in OPTIONS if o.group == PLAYING]
RESEARCH_NAMES = [o.name for o in OPTIONS if o.group != PLAYING]
START = chess.STARTING_FEN


def shown(lines: list[str]) -> list[str]:
    """The option names of a ``uci`` answer, in order."""
    return [line.split(" type ")[0].removeprefix("option name ") for line in lines if line.startswith("option name ")]


def searched(lines: list[str]) -> bool:
    return any(line.startswith("info depth") and " score " in line for line in lines)


def bestmove(lines: list[str]) -> str:
    return next(line.split()[1] for line in lines if line.startswith("bestmove"))


# --- the option list ------------------------------------------------------------------

def test_a_plain_uci_lists_the_playing_options_only_in_order() -> None:
    names = shown(transcript("uci", "quit"))
    assert names == PLAYING_NAMES
    assert names[:4] == ["Hash", "Threads", "Clear Hash", "Ponder"]
    assert {"OwnBook", "BookFile", "BookBestMove", "UCI_ShowWDL", "UCI_AnalyseMode", "UCI_Opponent"} <= set(names)
    assert not set(names) & set(RESEARCH_NAMES) and len(RESEARCH_NAMES) > 30


@pytest.mark.parametrize("how", ["flag", "environment", "subcommand"])
def test_research_mode_lists_every_option_playing_first(how: str) -> None:
    if how == "flag":
        lines = transcript("uci", "quit", command=RESEARCH)
    elif how == "environment":
        lines = transcript("uci", "quit", env={**os.environ, "NMM_CHESS_RESEARCH": "1"})
    else:
        lines = transcript("uci", "quit", command=[ENGINE[0], "-m", "engine.cli", "uci", "--research"],
                           cwd=Path(ENGINE[1]).parent)
    assert shown(lines) == PLAYING_NAMES + RESEARCH_NAMES == [o.name for o in listed(OPTIONS, True)]
    assert "option name MoveOrdering type combo default chessmaps" in " ".join(lines)
    off = transcript("uci", "quit", env={**os.environ, "NMM_CHESS_RESEARCH": "0"})
    assert shown(off) == PLAYING_NAMES


def test_setoption_sets_a_research_switch_in_plain_mode() -> None:
    """Unlisted is not unknown: the node count of ``bench`` changes with NullMove off."""
    default = transcript("uci", "bench 5", "quit")
    off = transcript("uci", "setoption name NullMove value false", "setoption name moveordering value HISTORY",
                     "bench 5", "quit")
    assert "NullMove" not in shown(off)
    count = [int(line.split()[0]) for line in default + off if line.endswith(" nps")]
    assert len(count) == 2 and count[0] != count[1]
    assert errors_in(transcript("setoption name NoSuchSwitch value 3", "quit", errors_ok=True))


def test_python_chess_needs_research_mode_to_configure_a_switch_and_the_tools_use_it() -> None:
    plain = chess.engine.SimpleEngine.popen_uci(ENGINE, timeout=HANG_GUARD)
    try:
        with pytest.raises(chess.engine.EngineError):
            plain.configure({"NullMove": False})
    finally:
        plain.quit()
    assert KNOWN["nmm"][-1] == "--research" and parse_spec("nmm:NullMove=false").command == KNOWN["nmm"]
    from engine.tools.match import close_engine, open_engine
    engine = open_engine(parse_spec("nmm:SEEPruning=true,TimeManagement=fixed,MoveOrdering=history"))
    try:
        assert engine.options["SEEPruning"].default is False and engine.protocol.config["SEEPruning"] is True
        assert engine.play(chess.Board(), chess.engine.Limit(depth=3)).move in chess.Board().legal_moves
    finally:
        close_engine(engine)


def test_a_frozen_build_gets_the_flag_only_if_it_knows_it(tmp_path: Path) -> None:
    from engine.tools.engines import REPO, knows_research
    assert knows_research(REPO)
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "options.py").write_text("OPTIONS = ()\n")
    assert not knows_research(tmp_path) and not knows_research(tmp_path / "nowhere")


# --- the opening book ---------------------------------------------------------------------

def entry(fen: str, move: str, weight: int, chess960: bool = False) -> bytes:
    """A Polyglot entry: key u64, move u16 (to, from, promotion; castling king-takes-rook),
    weight u16, learn u32, big-endian."""
    board = chess.Board(fen, chess960=chess960)
    m = chess.Move.from_uci(move)
    if board.is_castling(m) and not chess960:                    # e1g1 -> e1h1
        rook = chess.H1 if m.to_square > m.from_square else chess.A1
        m = chess.Move(m.from_square, rook if board.turn else chess.square_mirror(rook))
    raw = m.to_square | m.from_square << 6 | ((m.promotion - 1) if m.promotion else 0) << 12
    return struct.pack(">QHHI", chess.polyglot.zobrist_hash(board), raw, weight, 0)


def write_book(path: Path, entries: list[bytes], sort: bool = True) -> Path:
    path.write_bytes(b"".join(sorted(entries) if sort else entries))
    return path


@pytest.fixture
def book(tmp_path: Path) -> Path:
    """1. e4 (weight 1) or d4 (weight 3); after 1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O (castling);
    an illegal entry after 1. d4 (e7e4)."""
    after_d4 = "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1"
    italian = "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
    return write_book(tmp_path / "book.bin", [entry(START, "e2e4", 1), entry(START, "d2d4", 3),
                                              entry(italian, "e1g1", 5), entry(after_d4, "e7e5", 0),
                                              struct.pack(">QHHI", chess.polyglot.zobrist_hash(
                                                  chess.Board(after_d4)), 12 << 6 | 28, 9, 0)])   # e2e4: not legal


def with_book(path: Path | str, *more: str) -> list[str]:
    return ["uci", "setoption name OwnBook value true", f"setoption name BookFile value {path}", *more]


def test_the_book_move_is_played_without_a_search_and_said(book: Path) -> None:
    out = answers(*with_book(book, "setoption name BookBestMove value true", "position startpos", "go depth 12"))
    assert bestmove(out) == "d2d4" and not searched(out)
    assert "info string book move d2d4 weight 3 of 4 (2 book moves)" in out
    italian = "position startpos moves e2e4 e7e5 g1f3 b8c6 f1c4 f8c5"
    assert bestmove(answers(*with_book(book, italian, "go wtime 10000 btime 10000"))) == "e1g1"  # from e1h1


def test_the_book_draws_by_weight_unless_told_to_take_the_heaviest(book: Path) -> None:
    with Engine() as engine:
        engine.send(*with_book(book))
        moves = []
        for _ in range(60):
            engine.send("position startpos", "go depth 3")
            moves.append(engine.read_until("bestmove")[1][-1].split()[1])
        engine.send("setoption name BookBestMove value true")
        for _ in range(10):
            engine.send("position startpos", "go nodes 100")
            moves.append(engine.read_until("bestmove")[1][-1].split()[1])
        assert engine.quit() == 0
    drawn, best = moves[:60], moves[60:]
    assert set(drawn) == {"e2e4", "d2d4"} and 30 <= drawn.count("d2d4") <= 58     # 3:1; P(outside) < 1e-4
    assert set(best) == {"d2d4"}


def test_the_engine_searches_where_the_book_has_no_legal_move_or_is_not_asked(book: Path) -> None:
    after_d4 = "position startpos moves d2d4"           # an illegal entry and one of weight 0
    out = answers(*with_book(book, after_d4, "go depth 4"))
    assert searched(out) and bestmove(out) != "e2e4" and not any("book move" in line for line in out)
    assert searched(answers(*with_book(book, "position startpos moves g1f3", "go depth 3")))   # not in it
    assert searched(answers("uci", f"setoption name BookFile value {book}", "position startpos", "go depth 3"))
    assert searched(answers(*with_book(book, "setoption name UCI_AnalyseMode value true", "position startpos",
                                       "go depth 3")))
    assert searched(answers(*with_book(book, "position startpos", "go depth 3 mate 2")))
    out = answers(*with_book(book, "position startpos", "go depth 3 searchmoves g1f3 b1c3"))
    assert searched(out) and bestmove(out) in ("g1f3", "b1c3")
    assert bestmove(answers(*with_book(book, "position startpos", "go depth 3 searchmoves g1f3 e2e4"))) == "e2e4"
    with Engine() as engine:                            # go infinite and go ponder wait: no book move
        engine.send(*with_book(book, "position startpos", "go infinite"))
        assert searched(engine.read_until("info depth 2")[1])
        engine.send("stop")
        engine.read_until("bestmove")
        engine.send("position startpos", "go ponder wtime 1000 btime 1000")
        engine.read_until("info depth 2")
        engine.send("stop")
        engine.read_until("bestmove")
        assert engine.quit() == 0


@pytest.mark.parametrize("problem", ["missing", "empty", "odd size", "unsorted", "no file set"])
def test_a_bad_book_is_reported_once_and_the_engine_searches(tmp_path: Path, problem: str) -> None:
    path = tmp_path / "bad.bin"
    if problem == "empty":
        path.write_bytes(b"")
    elif problem == "odd size":
        path.write_bytes(bytes(17))
    elif problem == "unsorted":
        write_book(path, sorted([entry(START, "e2e4", 1), entry(START.replace(" w ", " b "), "e7e5", 1),
                                 entry(chess.Board("8/8/8/8/8/8/8/K1k5 w - - 0 1").fen(), "a1a2", 1)],
                                reverse=True), sort=False)
    script = (["uci", "setoption name OwnBook value true"] if problem == "no file set" else with_book(path))
    out = answers(*script, "position startpos", "go depth 3", "position startpos", "go depth 2",
                  errors_ok=True)
    errors = errors_in(out)
    assert len(errors) == 1 and ("BookFile" in errors[0] or "OwnBook" in errors[0]), errors
    assert "the engine searches" in errors[0] and searched(out)
    assert bestmove(out) in [m.uci() for m in chess.Board().legal_moves]


def test_a_relative_book_path_starts_from_the_working_folder(book: Path) -> None:
    out = answers(*with_book("book.bin", "position startpos", "go depth 5"), cwd=book.parent)
    assert "book move" in " ".join(out) and bestmove(out) in ("e2e4", "d2d4")


def test_the_book_through_python_chess(book: Path) -> None:
    engine = chess.engine.SimpleEngine.popen_uci(ENGINE, timeout=HANG_GUARD)
    try:
        engine.configure({"OwnBook": True, "BookFile": str(book), "BookBestMove": True})
        board = chess.Board()
        assert engine.play(board, chess.engine.Limit(time=5)).move == chess.Move.from_uci("d2d4")
        board.push_uci("g1f3")                          # out of the book: a search
        assert engine.play(board, chess.engine.Limit(depth=3)).move in board.legal_moves
        info = engine.analyse(chess.Board(), chess.engine.Limit(depth=3))   # analyse sets UCI_AnalyseMode
        assert info["depth"] >= 3 and engine.protocol.config["UCI_AnalyseMode"] is True
    finally:
        engine.quit()


# --- UCI_AnalyseMode and UCI_Opponent ----------------------------------------------------------

def test_analyse_mode_and_opponent_are_accepted_and_the_opponent_read() -> None:
    out = answers("uci", "setoption name UCI_AnalyseMode value true",
                  "setoption name UCI_Opponent value GM 2800 computer Stockfish 15",
                  "setoption name UCI_Opponent value none none human Jane Doe",
                  "setoption name UCI_Opponent value <empty>",
                  "position startpos", "go depth 3")
    assert "info string UCI_Opponent: an engine, Stockfish 15, GM, rated 2800" in out
    assert "info string UCI_Opponent: a human player, Jane Doe, title and rating unknown" in out
    bad = answers("uci", "setoption name UCI_Opponent value grandmaster", "position startpos", "go depth 1",
                  errors_ok=True)
    assert any("UCI_Opponent" in line for line in errors_in(bad)) and searched(bad)


def test_python_chess_sends_the_opponent_and_the_analyse_mode() -> None:
    engine = chess.engine.SimpleEngine.popen_uci(ENGINE, timeout=HANG_GUARD)
    try:
        opponent = chess.engine.Opponent("Stockfish 15", "GM", 2800, True)
        result = engine.play(chess.Board(), chess.engine.Limit(depth=3), opponent=opponent, game="g")
        assert result.move in chess.Board().legal_moves
        assert engine.protocol.config["UCI_Opponent"] == "GM 2800 computer Stockfish 15"
        assert engine.protocol.config["UCI_AnalyseMode"] is False
    finally:
        engine.quit()


# --- UCI_ShowWDL ---------------------------------------------------------------------------

def test_the_wdl_model_sums_to_1000_is_monotonic_and_symmetric() -> None:
    from engine.wdl import chances, mate_permille, permille
    for material in range(0, 90, 3):
        last = None
        for score in range(-1500, 1501, 25):
            w, d, l = permille(score, material)
            assert min(w, d, l) >= 0 and w + d + l == 1000
            assert permille(-score, material) == (l, d, w)
            pw, pd, pl = chances(score, material)
            assert abs(pw + pd + pl - 1) < 1e-9 and pd >= 0
            if last is not None:
                assert pw > last[0] and pl < last[2]
            last = (pw, pd, pl)
    draws = [chances(0, m)[1] for m in range(4, 79)]
    assert all(a > b for a, b in zip(draws, draws[1:]))     # less material, more draws at an even score
    assert permille(2000, 40)[0] > 990 and permille(0, 78)[1] > 100
    assert mate_permille(5) == (1000, 0, 0) and mate_permille(-1) == (0, 0, 1000)


def test_the_engine_and_the_fit_compute_the_same_chances() -> None:
    from engine.train.wdl import probabilities, xs
    from engine.wdl import chances
    from engine.wdl_params import A, B
    scores = np.arange(-1000, 1001, 50, dtype=float)
    for material in (0, 12, 40, 78, 90):
        lab = probabilities(scores, xs(np.full(len(scores), material)), A, B)
        engine = np.array([chances(s, material) for s in scores])
        assert np.allclose(lab, engine, atol=1e-12)


def test_the_shipped_parameters_are_the_fit_of_the_committed_bins(tmp_path: Path) -> None:
    """``make wdl-fit``: the committed bins give the shipped numbers back."""
    from engine import wdl_params
    from engine.cli import main
    from engine.train.wdl import read_bins
    bins = Path(__file__).resolve().parent.parent / "reports" / "wdl" / "bins.csv"
    counted = read_bins(bins)
    assert counted.meta["fingerprint"] == wdl_params.DATA_FINGERPRINT and counted.positions == wdl_params.POSITIONS
    out, report = tmp_path / "params.py", tmp_path / "fit.json"
    result = CliRunner().invoke(main, ["train", "wdl", "--bins", str(bins), "--out", str(out), "--report", str(report)])
    assert result.exit_code == 0, result.output
    refit: dict = {}
    exec(out.read_text(), refit)
    assert np.allclose(refit["A"], wdl_params.A, rtol=1e-4) and np.allclose(refit["B"], wdl_params.B, rtol=1e-4)
    assert refit["DATA_FINGERPRINT"] == wdl_params.DATA_FINGERPRINT


def test_the_fit_recovers_a_model_it_sampled() -> None:
    from engine.train.wdl import Bins, fit, probabilities, xs
    rng = np.random.default_rng(7)
    a_true, b_true = [0.0, 60.0, -200.0, 300.0], [0.0, 0.0, 20.0, 80.0]
    score = np.repeat(np.arange(-800, 801, 40), 30).astype(float)
    material = np.tile(np.arange(6, 79, 2.5).astype(int)[:30], len(score) // 30)
    p = probabilities(score, xs(material), a_true, b_true)
    counts = np.array([rng.multinomial(400, row) for row in p])
    got = fit(Bins(score, material, counts))
    fitted = probabilities(score, xs(material), got.a, got.b)
    assert np.abs(fitted - p).max() < 0.03 and got.log_loss < got.log_loss_constant < got.log_loss_prior


def test_the_bins_count_each_record_for_the_side_to_move(tmp_path: Path) -> None:
    from engine.data.selfplay import BLACK, FIRST, RECORD, RESULT_SHIFT, write_batch
    from engine.train.wdl import bin_records, read_bins, write_bins
    rec = np.zeros(4, RECORD)
    rec["occupancy"] = (1 << 4) | (1 << 8) | (1 << 60)          # Ke1, Pa2, Ke8: material 1
    rec["pieces"][:, 0] = 5 | (0 << 4)
    rec["pieces"][:, 1] = 11
    rec["score"] = [35, -25, 31990, 2500]                       # the third a mate, the fourth beyond the cap
    rec["ply"] = [10, 11, 12, 13]
    rec["flags"] = np.array([FIRST, BLACK, 0, BLACK]) | (2 << RESULT_SHIFT)    # White won
    header = {"game_list": [{"records": 4, "result": 2}], "evaluation": "handwritten:x", "commit": "abcdef0",
              "nodes": 100}
    write_batch(tmp_path / "batch_000000.bin", header, rec)
    bins = bin_records(tmp_path)
    assert bins.positions == 2 and bins.meta["mates_left_out"] == 1 and bins.meta["games"] == 1
    rows = {(int(s), int(m)): c.tolist() for s, m, c in zip(bins.score, bins.material, bins.counts)}
    assert rows == {(40, 1): [1, 0, 0], (-20, 1): [0, 0, 1]}   # White to move won; Black to move lost
    write_bins(bins, tmp_path / "bins.csv")
    again = read_bins(tmp_path / "bins.csv")
    assert again.meta == bins.meta and (again.counts == bins.counts).all()


def wdl_lines(lines: list[str]) -> list[list[int]]:
    return [[int(v) for v in line.split(" wdl ")[1].split()[:3]] for line in lines if " wdl " in line]


def test_info_lines_carry_wdl_only_with_show_wdl() -> None:
    script = ["position fen r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4", "go depth 6"]
    on = answers("uci", "setoption name UCI_ShowWDL value true", "setoption name MultiPV value 2", *script)
    scored = [line for line in on if line.startswith("info depth") and " score " in line]
    assert scored and all(" wdl " in line for line in scored)
    assert all(sum(w) == 1000 and min(w) >= 0 for w in wdl_lines(on))
    assert all(line.index(" score ") < line.index(" wdl ") < line.index(" nodes ") for line in scored)
    off = answers("uci", *script)
    assert searched(off) and not any(" wdl " in line for line in off)
    mate = answers("uci", "setoption name UCI_ShowWDL value true", "position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
                   "go depth 4")
    assert [1000, 0, 0] in wdl_lines(mate)


def triple(wdl: chess.engine.Wdl) -> tuple[int, int, int]:
    return wdl.wins, wdl.draws, wdl.losses


def test_python_chess_reads_the_wdl() -> None:
    engine = chess.engine.SimpleEngine.popen_uci(ENGINE, timeout=HANG_GUARD)
    try:
        engine.configure({"UCI_ShowWDL": True})
        board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
        info = engine.analyse(board, chess.engine.Limit(depth=6))
        wdl = info["wdl"]
        assert wdl.relative.total() == 1000 and wdl.white().total() == 1000
        from engine.wdl import material, permille
        assert triple(wdl.relative) == permille(info["score"].relative.score(), material(board.fen()))
        info = engine.analyse(chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"), chess.engine.Limit(depth=4))
        assert triple(info["wdl"].relative) == (1000, 0, 0) and info["score"].relative.mate() == 1
        assert triple(info["wdl"].black()) == (0, 0, 1000)
        engine.configure({"UCI_ShowWDL": False})
        assert "wdl" not in engine.analyse(board, chess.engine.Limit(depth=4))
    finally:
        engine.quit()
