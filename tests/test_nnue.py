"""The NNUE in the core (ext/nnue.pxi) against its specification
(engine/evaluation/nnue.py): scores equal to the integer reference on
positions of random games, incremental accumulators equal to sums made
afresh (along games, after searches with null moves, in every thread), the
quantised net within a derived bound of the float net, the file's checks,
and the engine's options, eval, bench and self-play with a net."""
import json
import random
from pathlib import Path

import chess
import numpy as np
import pytest

from engine._core import Board, LabSearcher, Searcher, set_endgame_rules
from engine.bench import run_bench
from engine.evaluation.nnue import (BUCKETS, CLIP, INPUTS, QA, QB, NnueNet, bucket, fen_pieces, load_nnue,
                                    quantise, save_nnue)
from engine.nets import NetError, evaluation_id, load_evaluation
from engine.session import bench_searcher
from tests.uci_client import Engine, errors_in

MAX_CP = 20000          # the core's clamp (NNUE_MAX_CP): below every mate score


def float_net(hidden: int, seed: int = 1, ft: float = 0.25, out: float = CLIP) -> dict:
    """A random float net as a trainer would hand it to quantise: weights
    within +-CLIP (the first layer scaled by ``ft``, so that the sums of a
    position spread over the clipped ReLU's range instead of saturating)."""
    rng = np.random.default_rng(seed)
    return {"ft_weight": rng.uniform(-CLIP, CLIP, (INPUTS, hidden)) * ft,
            "ft_bias": rng.uniform(-0.5, 0.5, hidden),
            "out_weight": rng.uniform(-out, out, (BUCKETS, 2 * hidden)),
            "out_bias": rng.uniform(-1.0, 1.0, BUCKETS),
            "scale": 400.3}     # not a whole number: the core rounds it as the reference does


def random_net(hidden: int, seed: int = 1, **kwargs) -> NnueNet:
    return quantise(**float_net(hidden, seed, **kwargs), info={"data": "random, for the tests"})


def lab_with(net: NnueNet) -> LabSearcher:
    searcher = LabSearcher(hash_mb=4)
    net.install(searcher)
    return searcher


def pieces_of(board: chess.Board) -> list[tuple[int, int, int]]:
    return [(0 if p.color else 1, p.piece_type - 1, sq) for sq, p in board.piece_map().items()]


def stm_of(board: chess.Board) -> int:
    return 0 if board.turn else 1


def special_move(board: chess.Board, rng: random.Random) -> chess.Move:
    """A random legal move, castling, en passant and promotions preferred
    (random games rarely make them), then captures."""
    moves = list(board.legal_moves)
    pawn_move = lambda m: board.piece_type_at(m.from_square) == chess.PAWN  # noqa: E731
    for kind, chance in ((board.is_castling, 0.7), (board.is_en_passant, 0.9),
                         (lambda m: m.promotion is not None, 0.9), (board.is_capture, 0.5), (pawn_move, 0.4)):
        chosen = [m for m in moves if kind(m)]
        if chosen and rng.random() < chance:
            return rng.choice(chosen)
    return rng.choice(moves)


def random_games(games: int, plies: int, seed: int):
    """Each game as its list of (python-chess board before the move, the move)."""
    rng = random.Random(seed)
    for _ in range(games):
        board, game = chess.Board(), []
        while not board.is_game_over() and len(game) < plies:
            move = special_move(board, rng)
            game.append((board.copy(stack=False), move))
            board.push(move)
        yield game


@pytest.fixture(scope="module")
def positions() -> list[tuple[chess.Board, chess.Move]]:
    """Positions of 12 random games of 80 plies at most (several hundred),
    with the moves made from them: every kind of move among them."""
    found = [step for game in random_games(12, 80, seed=7) for step in game]
    kinds = {"castling": 0, "en passant": 0, "promotion": 0, "capture": 0, "black to move": 0}
    for board, move in found:
        kinds["castling"] += board.is_castling(move)
        kinds["en passant"] += board.is_en_passant(move)
        kinds["promotion"] += move.promotion is not None
        kinds["capture"] += board.is_capture(move)
        kinds["black to move"] += board.turn == chess.BLACK
    assert len(found) > 500 and all(count >= 5 for count in kinds.values()), kinds
    return found


# --- (a) the core's score is the reference's --------------------------------------

@pytest.mark.parametrize("hidden", [64, 256])
def test_the_core_scores_exactly_as_the_reference(positions, hidden):
    net = random_net(hidden, seed=hidden)
    searcher = lab_with(net)
    set_endgame_rules(False)                # the net alone (the rules are tested below)
    scores = []
    for board, _ in positions:
        fen = board.fen()
        reference = net.centipawns(pieces_of(board), stm_of(board))
        assert searcher.nnue_eval(Board(fen)) == reference, fen
        # evaluate: as the search does, through the accumulator stack, clamped
        assert searcher.evaluate(Board(fen)) == max(-MAX_CP, min(MAX_CP, reference)), fen
        scores.append(reference)
    assert len(set(scores)) > len(scores) // 2 and min(scores) < 0 < max(scores)   # a net that says something
    assert {bucket(len(board.piece_map())) for board, _ in positions} >= {4, 5, 6, 7}


def test_the_clamp_keeps_the_net_below_the_mate_scores(positions):
    f = float_net(256, seed=3, ft=1.0)      # saturated sums and a large scale: scores beyond the clamp
    f["scale"] = 2000.0
    net = quantise(**f)
    searcher = lab_with(net)
    set_endgame_rules(False)
    clamped = 0
    fens = [board.fen() for board, _ in positions[::5]] + [
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1", "4k3/8/8/8/8/8/8/3QK3 b - - 0 1", "1k6/5P2/8/8/8/8/8/4K3 w - - 0 1"]
    for fen in fens:
        reference = net.centipawns(*fen_pieces(fen))
        assert searcher.nnue_eval(Board(fen)) == reference
        assert searcher.evaluate(Board(fen)) == max(-MAX_CP, min(MAX_CP, reference))
        clamped += abs(reference) > MAX_CP
    assert clamped > 0
    assert bucket(2) == 0 and bucket(3) == 0 and bucket(6) == 1 and bucket(32) == 7


# --- (b) incremental accumulators equal a refresh ---------------------------------

@pytest.mark.parametrize("hidden", [64, 256])
def test_the_accumulators_along_a_game_equal_a_refresh(hidden):
    """Move by move through the stack, as the search brings them: the entry
    of the board's ply from the nearest entry before it, exact in integers
    whatever the path (no periodic refresh), and equal to the reference's."""
    net = random_net(hidden, seed=11)
    searcher = lab_with(net)
    for game in random_games(8, 120, seed=hidden):
        board = Board()
        for before, move in game:
            assert board.fen() == before.fen()
            incremental = searcher.nnue_accumulators(board, incremental=True)
            afresh = searcher.nnue_accumulators(board, incremental=False)
            reference = net.accumulators(pieces_of(before))
            for view in (0, 1):
                assert (incremental[view] == afresh[view]).all() and (afresh[view] == reference[view]).all()
            board.push(move.uci())
    # An entry of a later ply is brought back to an earlier position too (a game taken back).
    while board.ply:
        board.pop()
        incremental = searcher.nnue_accumulators(board, incremental=True)
        afresh = searcher.nnue_accumulators(board, incremental=False)
        assert all((i == a).all() for i, a in zip(incremental, afresh))
    assert searcher.nnue_stack_check()[1] == 0


def test_the_accumulators_along_chess960_games_equal_a_refresh():
    """Chess960 castling, where king and rook may land on each other's
    squares or stay, read off the move as the search does."""
    net = random_net(64, seed=12)
    searcher = lab_with(net)
    rng, castled = random.Random(960), 0
    for start in rng.sample(range(960), 24):
        reference = chess.Board.from_chess960_pos(start)
        board = Board(reference.fen(), chess960=True)
        while not reference.is_game_over() and reference.ply() < 60:
            move = special_move(reference, rng)
            castled += reference.is_castling(move)
            board.push(reference.uci(move, chess960=True))
            reference.push(move)
            incremental = searcher.nnue_accumulators(board, incremental=True)
            assert all((i == f).all() for i, f in zip(incremental, net.accumulators(pieces_of(reference))))
    assert castled >= 5
    assert searcher.nnue_stack_check()[1] == 0


@pytest.mark.parametrize("threads", [1, 2])
def test_the_accumulators_a_search_leaves_equal_a_refresh(threads):
    """After searches with null moves, reductions and quiescence (and with a
    helper thread, whose stack is its own), every entry of every stack holds
    the sums of the men it names."""
    net = random_net(128, seed=5)
    searcher = lab_with(net)
    searcher.set_threads(threads)
    assert searcher.settings["null_move"]
    entries = 0
    for fen in ["r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
                "rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3",
                "8/P7/8/8/8/8/5kp1/K7 w - - 0 1"]:
        result = searcher.search(Board(fen), depth=8)
        assert chess.Move.from_uci(result["bestmove"]) in chess.Board(fen).legal_moves
        checked, wrong = searcher.nnue_stack_check()
        assert wrong == 0
        entries += checked
    assert entries > 40 * threads


def test_a_search_scores_as_the_evaluation_says_at_depth_one():
    """The leaves of a depth-1 search are quiescence stand-pats: with no
    capture anywhere, the root's score is the best child's net score."""
    net = random_net(64, seed=9)
    searcher = lab_with(net)
    set_endgame_rules(False)
    fen = "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1"
    board = chess.Board(fen)
    best = -10**9
    for move in board.legal_moves:
        board.push(move)
        best = max(best, -net.centipawns(pieces_of(board), stm_of(board)))
        board.pop()
    searcher.configure(aspiration=False)
    assert searcher.search(Board(fen), depth=1)["score"] == best


# --- (c) the quantised net against the float net ---------------------------------

def float_forward(f: dict, pieces: list[tuple[int, int, int]], stm: int) -> tuple[float, np.ndarray, np.ndarray]:
    """The float net (the trainer's view): y * scale, and both views' sums."""
    from engine.evaluation.nnue import active_features
    acc = [f["ft_bias"] + f["ft_weight"][active_features(pieces, view)].sum(axis=0) for view in (0, 1)]
    us, them = (acc[0], acc[1]) if stm == 0 else (acc[1], acc[0])
    b, h = bucket(len(pieces)), len(f["ft_bias"])
    w = f["out_weight"][b]
    y = (np.clip(us, 0, 1) ** 2 * w[:h]).sum() + (np.clip(them, 0, 1) ** 2 * w[h:]).sum() + f["out_bias"][b]
    return float(y * f["scale"]), acc[0], acc[1]


@pytest.mark.parametrize("hidden", [64, 256])
def test_the_quantised_net_stays_within_its_bound_of_the_float_net(positions, hidden):
    """The bound, per position. With a = the float sums, a_q = the core's
    integer sums / QA, w, c the float output weights and bias, w_q =
    out_weight / QB, c_q = out_bias / (QA QB), f(x) = clamp(x, 0, 1)^2:

    * first layer: each weight and bias is rounded to the nearest 1/QA, so a
      view's sum of n men is off by at most (n + 1) / (2 QA) per unit;
    * y_q - y = sum (f(a_q) - f(a)) w + sum f(a_q) (w_q - w) + (c_q - c), and f
      is 2-Lipschitz, |w_q - w| <= 1 / (2 QB), |c_q - c| <= 1 / (2 QA QB), so
      |y_q - y| <= E = sum 2 |a_q - a| |w| + sum f(a_q) / (2 QB) + 1 / (2 QA QB);
    * the core computes trunc((trunc(S / QA) + out_bias) R / (QA QB)) with
      R = round(scale) and S / QA = QA QB (y_q - c_q): the two truncations
      cost less than R / (QA QB) and 1 centipawn.

    So |cp_core - scale y| <= R E + |R - scale| |y| + R / (QA QB) + 1. The
    first-layer term dominates: 0.07 of a unit per sum with 32 men."""
    f = float_net(hidden, seed=hidden + 1)
    net = quantise(**f)
    searcher = lab_with(net)
    R = round(f["scale"])
    gaps, bounds, scores = [], [], []
    for board, _ in positions[::3]:
        pieces, stm = pieces_of(board), stm_of(board)
        cp_float, white, black = float_forward(f, pieces, stm)
        core = searcher.nnue_eval(Board(board.fen()))
        q_white, q_black = (a / QA for a in searcher.nnue_accumulators(Board(board.fen()), incremental=False))
        first_layer = (len(pieces) + 1) / (2 * QA)
        assert np.abs(q_white - white).max() <= first_layer + 1e-9
        assert np.abs(q_black - black).max() <= first_layer + 1e-9
        (us, q_us), (them, q_them) = ((white, q_white), (black, q_black))[::1 if stm == 0 else -1]
        w = f["out_weight"][bucket(len(pieces))]
        h = hidden
        error = (2 * (np.abs(q_us - us) * np.abs(w[:h])).sum() + 2 * (np.abs(q_them - them) * np.abs(w[h:])).sum()
                 + (np.clip(q_us, 0, 1) ** 2).sum() / (2 * QB) + (np.clip(q_them, 0, 1) ** 2).sum() / (2 * QB)
                 + 1 / (2 * QA * QB))
        bound = R * error + abs(R - f["scale"]) * abs(cp_float / f["scale"]) + R / (QA * QB) + 1
        assert abs(core - cp_float) <= bound, (board.fen(), core, cp_float, bound)
        gaps.append(abs(core - cp_float))
        bounds.append(bound)
        scores.append(cp_float)
    # The bound is the worst case (every error of the same sign); the errors
    # met are far inside it (H 64: median 13 cp, at most 56, against a
    # bound of 277 or more; H 256: 21, 88, 1182), and small beside what the
    # net says (a spread of 2,500 and 4,500 cp): the integers compute the net.
    assert max(gaps) < min(bounds) and np.median(gaps) < 0.02 * np.std(scores)


# --- (d) the file -----------------------------------------------------------------

def rewrite(path: Path, out: Path, header: dict | None = None, arrays: dict | None = None) -> Path:
    """``path``'s file with its header's fields and its arrays replaced (None: left out)."""
    with np.load(path) as data:
        old = {k: data[k] for k in data.files}
    head = json.loads(str(old.pop("header")))
    head.update(header or {})
    old.update(arrays or {})
    np.savez_compressed(out, header=np.array(json.dumps(head)), **{k: v for k, v in old.items() if v is not None})
    return out


def test_a_net_saved_loads_as_it_was(tmp_path):
    net = random_net(64)
    save_nnue(net, tmp_path / "net.npz")
    back = load_nnue(tmp_path / "net.npz")
    assert back.fingerprint() == net.fingerprint() and back.info == net.info and back.scale == net.scale
    assert all((getattr(back, k) == getattr(net, k)).all() for k in ("ft_weight", "ft_bias", "out_weight", "out_bias"))
    assert evaluation_id(tmp_path / "net.npz") == f"nnue:{net.fingerprint()}"
    assert isinstance(load_evaluation(tmp_path / "net.npz"), NnueNet)


@pytest.mark.parametrize("case,change,message", [
    ("magic", {"header": {"format": "stockfish-nnue"}}, "not an nmm-chess weight file"),
    ("version", {"header": {"version": 99}}, "format version 99"),
    ("kind", {"header": {"kind": "td"}}, "not an NNUE"),
    ("encoding", {"header": {"encoding": "halfkp/1"}}, "trained for inputs 'halfkp/1'"),
    ("hidden", {"header": {"hidden": 100}}, "is not a net this engine runs"),
    ("buckets", {"header": {"buckets": 4}}, "is not a net this engine runs"),
    ("shape", {"arrays": {"out_weight": np.zeros((BUCKETS, 64), np.int16)}}, "out_weight is int16[8, 64]"),
    ("dtype", {"arrays": {"ft_bias": np.zeros(64, np.int32)}}, "ft_bias is int32[64], expected int16[64]"),
    ("missing array", {"arrays": {"ft_bias": None}}, "lacks ft_bias"),
    ("qa", {"header": {"qa": 127}}, "quantised with QA 127"),
    ("qb", {"header": {"qb": 128}}, "QB 128"),
    ("scale low", {"header": {"scale": 2}}, "scale 2 is not a usable"),
    ("scale high", {"header": {"scale": 1e6}}, "is not a usable"),
    ("scale text", {"header": {"scale": "400"}}, "is not a usable"),
    ("hash", {"edit": True}, "do not match the hash"),
    ("output range", {"arrays": {"out_weight": np.full((BUCKETS, 128), 200, np.int16)}, "rehash": True},
     "output weights beyond +-127"),
    ("accumulator range", {"arrays": {"ft_weight": np.full((INPUTS, 64), 2000, np.int16)}, "rehash": True},
     "could leave int16"),
])
def test_a_bad_file_is_refused_with_a_sentence(tmp_path, case, change, message):
    net = random_net(64)
    good = tmp_path / "good.npz"
    save_nnue(net, good)
    arrays = dict(change.get("arrays", {}))
    if change.get("edit"):
        edited = net.ft_weight.copy()
        edited[100, 7] += 1
        arrays["ft_weight"] = edited
    header = dict(change.get("header", {}))
    if change.get("rehash"):
        header["sha256"] = NnueNet(*(arrays.get(k, getattr(net, k)) for k in
                                     ("ft_weight", "ft_bias", "out_weight", "out_bias")), net.scale).fingerprint()
    bad = rewrite(good, tmp_path / "bad.npz", header, arrays)
    with pytest.raises(NetError, match=message.replace("[", r"\[").replace("+", r"\+")):
        load_nnue(bad)


def test_a_missing_or_broken_file_is_refused(tmp_path):
    with pytest.raises(NetError, match="no weight file"):
        load_nnue(tmp_path / "none.npz")
    save_nnue(random_net(64), tmp_path / "good.npz")
    (tmp_path / "broken.npz").write_bytes((tmp_path / "good.npz").read_bytes()[:300])
    with pytest.raises(NetError, match="not a readable weight file"):
        load_nnue(tmp_path / "broken.npz")
    with pytest.raises(NetError, match="not an evaluation"):
        load_evaluation(Path(__file__).resolve().parent.parent / "nets" / "regions.npz")


def test_the_core_refuses_what_it_cannot_compute_exactly():
    net = random_net(64)
    searcher = Searcher(hash_mb=1)
    with pytest.raises(ValueError, match="no NNUE"):
        searcher.use_nnue(True)
    with pytest.raises(ValueError, match="hidden size 48"):
        searcher.set_nnue(np.zeros((INPUTS, 48), np.int16), np.zeros(48, np.int16),
                          np.zeros((BUCKETS, 96), np.int16), np.zeros(BUCKETS, np.int32), 400)
    with pytest.raises(ValueError, match="expected int16"):
        searcher.set_nnue(net.ft_weight.astype(np.int32), net.ft_bias, net.out_weight, net.out_bias, 400)
    with pytest.raises(ValueError, match="beyond"):
        searcher.set_nnue(net.ft_weight, net.ft_bias, net.out_weight * 2, net.out_bias, 400)
    assert not searcher.uses_nnue
    net.install(searcher)
    assert searcher.uses_nnue
    searcher.use_nnue(False)
    assert not searcher.uses_nnue and searcher.evaluate(Board()) != 0       # handwritten: the tempo


# --- the engine: options, eval, threads, bench, self-play -------------------------

def test_uci_nnue_options(tmp_path):
    good = tmp_path / "nnue.npz"
    save_nnue(random_net(256), good)
    bad = rewrite(good, tmp_path / "bad.npz", {"qa": 64})
    engine = Engine()

    def say(*lines: str, until: str = "readyok") -> list[str]:
        engine.send(*lines)
        return engine.read_until(until)[1]

    def legal_move(*lines: str) -> None:
        answer = say("position startpos moves e2e4", *lines, "go depth 5", until="bestmove")
        after_e4 = chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
        assert chess.Move.from_uci(answer[-1].split()[1]) in after_e4.legal_moves
    for path, why in ((tmp_path / "missing.npz", "no weight file"), (bad, "QA 64")):
        lines = say(f"setoption name NnueFile value {path}", "setoption name Eval value nnue", "isready")
        errors = errors_in(lines)
        assert len(errors) == 1 and "NnueFile" in errors[0] and why in errors[0] and "handwritten" in errors[0]
        assert any("end-game scale" in line for line in say("eval", "isready"))       # handwritten's terms
        legal_move()
    lines = say(f"setoption name NnueFile value {good}", "setoption name Eval value nnue", "isready")
    lines += say("position startpos moves e2e4", "eval", "isready")
    assert not errors_in(lines)
    assert any(line.startswith("NNUE: (768->256)x2->1") for line in lines)
    assert any(line.startswith("32 men: bucket 7") for line in lines)
    men = [line for line in lines if line.startswith("  ") and " on " in line]
    assert len(men) == 8 and not any("king" in line for line in men)
    assert any(line.startswith("Final evaluation") for line in lines)
    legal_move()
    # A bad file while the net is in use: the engine falls back to handwritten and says so.
    lines = say(f"setoption name NnueFile value {bad}", "isready")
    assert any("falls back to handwritten" in e for e in errors_in(lines))
    assert any("end-game scale" in line for line in say("eval", "isready"))
    legal_move("setoption name Threads value 2")
    assert engine.quit() == 0


def test_the_eval_command_explains_by_the_reference(tmp_path):
    from engine.evaluation.explain import explain_nnue
    net = random_net(64)
    fen = "r3k2r/8/8/3q4/8/8/8/R3K2R w KQkq - 0 1"
    pieces, stm = fen_pieces(fen)
    lines = explain_nnue(net, Board(fen), net.centipawns(pieces, stm))
    assert lines[1].startswith("7 men: bucket 1")
    rows = [line.split() for line in lines if line.startswith("  ")]
    assert len(rows) == 5                           # four rooks and a queen; no king
    queen = [row for row in rows if row[2] == "queen"][0]
    without = [p for p in pieces if p != (1, 4, 35)]
    assert round(float(queen[0]) * 100) == net.centipawns(pieces, stm) - net.centipawns(without, stm)


def test_threads_search_with_the_net_and_play_a_legal_move(tmp_path):
    path = tmp_path / "nnue.npz"
    save_nnue(random_net(128), path)
    lines = []
    with bench_searcher({"Eval": "nnue", "NnueFile": str(path)}, lines.append) as searcher:
        assert not lines and searcher.uses_nnue
        searcher.set_threads(2)
        fen = "r1bq1rk1/pp1pppbp/2n2np1/8/4P3/1NN5/PPP1BPPP/R1BQK2R w KQ - 0 1"
        result = searcher.search(Board(fen), depth=9)
        assert chess.Move.from_uci(result["bestmove"]) in chess.Board(fen).legal_moves


def test_bench_with_a_net_is_a_signature(tmp_path):
    """Two engines, and one engine twice: the same nodes (the sums are
    exact whatever was searched before)."""
    path = tmp_path / "nnue.npz"
    save_nnue(random_net(256, seed=4), path)
    counts = []
    for _ in range(2):
        with bench_searcher({"Eval": "nnue", "NnueFile": str(path)}) as searcher:
            assert searcher.uses_nnue
            counts.append(run_bench(searcher, 5)[0])
            counts.append(run_bench(searcher, 5)[0])
    with bench_searcher() as searcher:
        handwritten = run_bench(searcher, 5)[0]
    assert len(set(counts)) == 1 and counts[0] != handwritten


def test_the_endgame_rules_still_decide_under_the_net(tmp_path):
    net = random_net(64, seed=2)
    searcher = lab_with(net)
    kpk_draw = "k7/8/8/8/8/8/P7/K7 w - - 0 1"               # a rook pawn, the defender in its corner
    two_knights = "8/8/8/4k3/8/8/8/2NNK3 w - - 0 1"
    for rules in (True, False):
        set_endgame_rules(rules)
        searcher.clear()
        for fen in (kpk_draw, two_knights):
            net_score = max(-MAX_CP, min(MAX_CP, net.centipawns(*fen_pieces(fen))))
            assert searcher.evaluate(Board(fen)) == (0 if rules else net_score)
    set_endgame_rules(True)
    searcher.clear()
    assert searcher.evaluate(Board("8/8/8/8/8/8/4P3/k3K3 w - - 0 1")) > 500   # KPK: a win


def test_bench_eval_and_the_cli_bench_take_a_net(tmp_path):
    from click.testing import CliRunner

    from engine.cli import main
    path = tmp_path / "nnue.npz"
    save_nnue(random_net(64), path)
    runner = CliRunner()
    first = runner.invoke(main, ["bench", "--eval", "nnue", "--eval-file", str(path), "--depth", "4"])
    second = runner.invoke(main, ["bench", "--eval", "nnue", "--eval-file", str(path), "--depth", "4"])
    assert first.exit_code == 0, first.output
    assert first.stdout.split()[0] == second.stdout.split()[0] and first.stdout.split()[1] == "nodes"
    costs = runner.invoke(main, ["bench-eval", "--net", str(path), "--runs", "1", "--depth", "3"])
    assert costs.exit_code == 0, costs.output
    assert "nnue.npz" in costs.stdout and "nnue update" in costs.stdout
    missing = runner.invoke(main, ["bench", "--eval", "nnue", "--eval-file", str(tmp_path / "none.npz")])
    assert missing.exit_code != 0 and "no weight file" in missing.stderr
