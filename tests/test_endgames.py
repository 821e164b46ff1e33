"""Endgame knowledge (ext/endgames.pxi): the KPK table and the drawish scales,
checked against themselves and against the Syzygy tablebases."""
import random
from pathlib import Path

import chess
import chess.syzygy
import pytest

from engine._core import Board, Searcher, set_endgame_rules


@pytest.fixture(scope="module")
def searcher():
    set_endgame_rules(True)
    yield Searcher(hash_mb=1)
    set_endgame_rules(False)


@pytest.mark.parametrize("fen, verdict", [
    ("4k3/4P3/4K3/8/8/8/8/8 b - - 0 1", "draw"),        # stalemate
    ("4k3/4P3/4K3/8/8/8/8/8 w - - 0 1", "win"),         # 1.Kd6 Kf7 2.Kd7
    ("4k3/8/4K3/4P3/8/8/8/8 b - - 0 1", "win"),         # king on the sixth, in front
    ("4k3/8/8/8/8/8/4P3/4K3 b - - 0 1", "draw"),        # the defender holds the opposition
    ("k7/8/8/8/8/8/P7/K7 w - - 0 1", "draw"),           # rook pawn, king in the corner
    ("7k/8/6K1/7P/8/8/8/8 w - - 0 1", "draw"),
    ("8/8/8/8/8/8/P7/K6k w - - 0 1", "win"),            # the king is outside the pawn's square
])
def test_kpk(searcher: Searcher, fen: str, verdict: str) -> None:
    score = searcher.evaluate(Board(fen))
    strong = chess.WHITE if chess.Board(fen).pieces(chess.PAWN, chess.WHITE) else chess.BLACK
    if verdict == "draw":
        assert score == 0
    else:
        assert (score if chess.Board(fen).turn == strong else -score) > 700


def random_kpk(rng: random.Random) -> chess.Board:
    while True:
        board = chess.Board(None)
        squares = rng.sample(range(64), 3)
        pawn_colour = rng.choice([chess.WHITE, chess.BLACK])
        if chess.square_rank(squares[2]) in (0, 7):
            continue
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        board.set_piece_at(squares[2], chess.Piece(chess.PAWN, pawn_colour))
        board.turn = rng.choice([chess.WHITE, chess.BLACK])
        if board.is_valid() and not board.is_game_over():
            return board


def test_kpk_is_consistent_with_its_moves(searcher: Searcher) -> None:
    """A won position has a move to a won one (or a promotion that keeps the
    queen); a drawn one has none; checked through the board, both colours,
    both wings."""
    rng = random.Random(7)
    wins = draws = 0
    for _ in range(400):
        board = random_kpk(rng)
        strong = chess.WHITE if board.pieces(chess.PAWN, chess.WHITE) else chess.BLACK
        won = searcher.evaluate(Board(board.fen())) != 0
        if board.turn == strong:
            children = []
            for move in board.legal_moves:
                board.push(move)
                if move.promotion:
                    # The new queen survives: taken only if undefended and next to the king.
                    children.append(not (board.is_attacked_by(board.turn, move.to_square)
                                         and not board.is_attacked_by(strong, move.to_square))
                                    and not board.is_stalemate())
                elif board.is_game_over():
                    children.append(False)
                else:
                    children.append(len(board.pieces(chess.PAWN, strong)) == 1
                                    and searcher.evaluate(Board(board.fen())) != 0)
                board.pop()
            assert won == any(children), board.fen()
        else:
            children = []
            for move in board.legal_moves:
                board.push(move)
                children.append(len(board.pieces(chess.PAWN, strong)) == 1 and not board.is_game_over()
                                and searcher.evaluate(Board(board.fen())) != 0)
                board.pop()
            assert won == (bool(children) and all(children)), board.fen()
        wins += won
        draws += not won
    assert wins > 50 and draws > 50


def test_wrong_rook_pawn_bishop(searcher: Searcher) -> None:
    # a8 is a light square: a dark-squared bishop cannot drive the king out.
    assert searcher.evaluate(Board("k7/8/8/8/8/8/P7/K1B5 w - - 0 1")) == 0
    assert searcher.evaluate(Board("k7/8/8/8/8/8/P7/KB6 w - - 0 1")) > 300
    # The king away from the corner: the pawn runs.
    assert searcher.evaluate(Board("8/8/8/8/4k3/8/P7/K1B5 w - - 0 1")) > 300


def test_opposite_bishops_are_drawish(searcher: Searcher) -> None:
    same = searcher.evaluate(Board("4k3/5b2/8/3p4/2PP4/8/4B3/4K3 w - - 0 1"))
    opposite = searcher.evaluate(Board("4kb2/8/8/3p4/2PP4/8/4B3/4K3 w - - 0 1"))
    assert 0 < opposite < same


def test_two_knights_cannot_mate_a_bare_king(searcher: Searcher) -> None:
    assert searcher.evaluate(Board("8/8/3k4/8/8/2NN4/3K4/8 w - - 0 1")) == 0
    assert searcher.evaluate(Board("8/8/3k4/8/8/2nn4/3K4/8 w - - 0 1")) == 0
    # With a pawn to stop (no stalemate to fear) two knights can win: no rule.
    assert searcher.evaluate(Board("8/8/3k4/3p4/8/2NN4/3K4/8 w - - 0 1")) > 200
    set_endgame_rules(False)
    try:
        assert searcher.evaluate(Board("8/8/3k4/8/8/2NN4/3K4/8 w - - 0 1")) > 200
    finally:
        set_endgame_rules(True)


def test_bishop_and_knight_drive_to_the_bishops_corner(searcher: Searcher) -> None:
    # A light-squared bishop (f1) mates on h1 or a8, not on a1 or h8.
    right = searcher.evaluate(Board("8/8/8/8/8/2N5/3K4/k4B2 w - - 0 1"))   # bare king a1: wrong corner
    better = searcher.evaluate(Board("k7/8/1K6/8/8/2N5/8/5B2 w - - 0 1"))  # bare king a8: right corner
    assert better > right


def test_the_rules_can_be_switched_off(searcher: Searcher) -> None:
    fen = "k7/8/8/8/8/8/P7/K7 w - - 0 1"
    try:
        set_endgame_rules(False)
        assert searcher.evaluate(Board(fen)) > 50          # a pawn up, by the weights
    finally:
        set_endgame_rules(True)
    assert searcher.evaluate(Board(fen)) == 0


def test_endgame_rules_option() -> None:
    """On by default in the engine (400 games on endgame starts: reports/strength/README.md); off, the weights alone."""
    from uci_client import RESEARCH, answers, transcript
    assert "option name EndgameRules type check default true" in transcript("uci", "quit", command=RESEARCH)
    out = answers("position fen k7/8/8/8/8/8/P7/K7 w - - 0 1", "go depth 1", until="bestmove")
    assert any(" score cp 0 " in line for line in out if line.startswith("info"))
    out = answers("setoption name EndgameRules value false", "position fen k7/8/8/8/8/8/P7/K7 w - - 0 1",
                  "go depth 1", until="bestmove")
    assert any(" score cp " in line and " score cp 0 " not in line for line in out if line.startswith("info"))


# --- Syzygy as the oracle ------------------------------------------------------
#
# tests/fixtures/syzygy holds the few WDL tables these checks probe (see its
# README); the slow checks that want the DTZ tables too read $NMM_DATA/syzygy
# (engine.perft.data_dir) and are skipped where that is missing.
SYZYGY = Path(__file__).resolve().parent / "fixtures" / "syzygy"


@pytest.fixture(scope="module")
def tablebase():
    with chess.syzygy.open_tablebase(str(SYZYGY)) as tablebase:
        yield tablebase


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


def fen_of(pieces: dict[int, str], white_to_move: bool) -> str:
    """A FEN for ``pieces`` (square: letter), with no castling and no en
    passant: python-chess's board.fen() takes ten times as long, too long for
    a hundred thousand positions."""
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for file in range(8):
            letter = pieces.get(8 * rank + file)
            if letter is None:
                empty += 1
            else:
                row += (str(empty) if empty else "") + letter
                empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows) + (" w" if white_to_move else " b") + " - - 0 1"


def flipped(pieces: dict[int, str], white_to_move: bool, files: bool, colours: bool):
    """The same position with the files mirrored (a<->h) and/or the colours
    swapped (the board turned upside down, the other side to move)."""
    out = {}
    for square, letter in pieces.items():
        if files:
            square ^= 7
        if colours:
            square ^= 56
            letter = letter.swapcase()
        out[square] = letter
    return out, white_to_move != colours


ORIENTATIONS = [(files, colours) for colours in (False, True) for files in (False, True)]


def kpk_positions():
    """Every legal K+P against K with White's pawn on files a-d (Syzygy stores
    no others; the rest are their mirror images), either side to move, as
    (white to move, white king, black king, pawn). Illegal: kings next to each
    other, Black in check with White to move (only the pawn can give it)."""
    for turn in (True, False):
        for wk in chess.SQUARES:
            for bk in chess.SQUARES:
                if chess.square_distance(wk, bk) <= 1:
                    continue
                for pawn in chess.SQUARES[8:56]:
                    if chess.square_file(pawn) > 3 or pawn in (wk, bk):
                        continue
                    if turn and chess.BB_PAWN_ATTACKS[chess.WHITE][pawn] & chess.BB_SQUARES[bk]:
                        continue
                    yield turn, wk, bk, pawn


KPK_LEGAL = 165_676         # python-chess's is_valid() says so too (files a-d, both sides to move)


def check_kpk_against_syzygy(searcher: Searcher, tablebase, positions) -> tuple[int, int, int]:
    """The KPK table's verdict, through the evaluation, equals Syzygy's WDL in
    every position given and in its three mirror images (files, colours, both):
    0 for a draw, else a won score for the side with the pawn (positive when it
    is to move, negative when not). Returns how many positions were probed,
    how many of them Syzygy says are won, and how many verdicts were compared."""
    board = chess.Board(None)
    probed = won = compared = 0
    mismatches = []
    for turn, wk, bk, pawn in positions:
        board.set_piece_map({wk: chess.Piece(chess.KING, chess.WHITE), bk: chess.Piece(chess.KING, chess.BLACK),
                             pawn: chess.Piece(chess.PAWN, chess.WHITE)})
        board.turn = turn
        wdl = tablebase.probe_wdl(board)
        assert abs(wdl) != 1, board.fen()       # no cursed wins (50-move rule) in KPK to tell apart
        probed += 1
        won += wdl != 0
        for files, colours in ORIENTATIONS:
            pieces, white = flipped({wk: "K", bk: "k", pawn: "P"}, turn, files, colours)
            score = searcher.evaluate(Board(fen_of(pieces, white)))
            compared += 1
            if sign(score) != sign(wdl):        # the side to move wins, draws or loses: both say the same
                mismatches.append((fen_of(pieces, white), wdl, score))
    assert not mismatches, f"{len(mismatches)} verdicts differ from Syzygy's (FEN, WDL, eval): {mismatches[:10]}"
    return probed, won, compared


def test_fen_of_is_pythons_fen() -> None:
    board = chess.Board("4k3/8/8/1p6/8/8/4P3/R3K2N b - - 0 1")
    assert fen_of({sq: p.symbol() for sq, p in board.piece_map().items()}, False) == board.fen()
    assert fen_of({chess.H8: "K", chess.A1: "k"}, True) == "7K/8/8/8/8/8/8/k7 w - - 0 1"
    pieces, white = flipped({chess.B2: "P", chess.E1: "K", chess.G8: "k"}, True, files=True, colours=True)
    assert fen_of(pieces, white) == chess.Board(fen_of({chess.B2: "P", chess.E1: "K", chess.G8: "k"}, True)
                                                ).transform(chess.flip_horizontal).mirror().fen()


def test_kpk_agrees_with_syzygy_sample(searcher: Searcher, tablebase) -> None:
    """12,000 of the 165,676 positions (seeded), each in its four mirror
    images; the slow test below takes them all."""
    positions = list(kpk_positions())
    assert len(positions) == KPK_LEGAL
    sample = random.Random(14).sample(positions, 12_000)
    probed, won, compared = check_kpk_against_syzygy(searcher, tablebase, sample)
    assert (probed, compared) == (12_000, 48_000)
    assert won > 7_000 and probed - won > 3_000         # 67 % of all are won (or lost), 33 % drawn


@pytest.mark.slow
def test_kpk_agrees_with_syzygy_everywhere(searcher: Searcher, tablebase) -> None:
    """Every legal K+P against K, both sides to move, both colours, both wings:
    662,704 verdicts (about 40 s)."""
    probed, won, compared = check_kpk_against_syzygy(searcher, tablebase, kpk_positions())
    assert (probed, won, compared) == (KPK_LEGAL, 111_282, 4 * KPK_LEGAL)


def legal_positions(candidates, count: int | None, seed: int):
    """The legal ones among ``candidates`` ((white to move, {square: letter})
    pairs): all of them when ``count`` is None, else ``count`` drawn at random
    (seeded). Yields (pieces, white to move, python-chess board)."""
    if count is not None:
        candidates = random.Random(seed).sample(candidates, len(candidates))
    found = 0
    board = chess.Board(None)
    for white, pieces in candidates:
        if count is not None and found == count:
            return
        board.set_piece_map({square: chess.Piece.from_symbol(letter) for square, letter in pieces.items()})
        board.turn = white
        if board.is_valid():
            found += 1
            yield pieces, white, board
    assert count is None or found == count


def is_light(square: int) -> bool:
    return bool(chess.BB_SQUARES[square] & chess.BB_LIGHT_SQUARES)


def wrong_rook_pawn_candidates(helper: str, right_bishop: bool = False) -> list:
    """White: king, a rook pawn and ``helper``: "B", a bishop of the wrong
    colour (it does not control the queening square; the right one if
    ``right_bishop``), or "P", a second pawn on the same file. Black: a bare
    king on or next to the queening square. Either side to move."""
    out = []
    for file in (0, 7):
        promo = chess.square(file, 7)
        pawns = [chess.square(file, rank) for rank in range(1, 7)]
        if helper == "B":
            extras = [(pawn, square) for pawn in pawns for square in chess.SQUARES
                      if (is_light(square) == is_light(promo)) == right_bishop]
        else:
            extras = [(a, b) for a in pawns for b in pawns if a < b]
        for first, second in extras:
            for bk in chess.SQUARES:
                if chess.square_distance(bk, promo) > 1:
                    continue
                for wk in chess.SQUARES:
                    if len({first, second, bk, wk}) == 4:
                        for white in (True, False):
                            out.append((white, {wk: "K", bk: "k", first: "P", second: helper}))
    return out


def check_draw_rule(searcher: Searcher, tablebase, positions) -> tuple[int, int]:
    """Where the rule applies the evaluation says 0 (a known draw), in both
    colours; and Syzygy agrees. Returns the positions and verdicts compared."""
    probed = compared = 0
    misfires = []
    for pieces, white, board in positions:
        probed += 1
        for colours in (False, True):
            fen = fen_of(*flipped(pieces, white, False, colours))
            assert searcher.evaluate(Board(fen)) == 0, f"the rule does not apply: {fen}"
            compared += 1
        wdl = tablebase.probe_wdl(board)
        if wdl != 0:
            misfires.append((board.fen(), wdl))
    assert not misfires, f"the rule calls {len(misfires)} won positions drawn (FEN, WDL): {misfires[:10]}"
    return probed, compared


def test_wrong_rook_pawn_draws_agree_with_syzygy(searcher: Searcher, tablebase) -> None:
    """K+B+rook pawn, the bishop of the wrong colour, against a king in (or by)
    the corner: 3,000 positions (seeded; 145,440 in all, the slow test takes
    them all). And with the right bishop the rule keeps out."""
    assert check_draw_rule(searcher, tablebase, legal_positions(wrong_rook_pawn_candidates("B"), 3_000, 1)) \
        == (3_000, 6_000)
    won = 0
    for pieces, white, board in legal_positions(wrong_rook_pawn_candidates("B", right_bishop=True), 1_000, 2):
        assert searcher.evaluate(Board(board.fen())) != 0, board.fen()
        won += tablebase.probe_wdl(board) != 0
    assert won > 700        # 797 of the 1,000 are won: the rule must keep out of them all


def test_doubled_rook_pawns_draws_agree_with_syzygy(searcher: Searcher, tablebase) -> None:
    """Two pawns on one rook file, no help, against a king in the corner: all
    11,244 positions."""
    assert check_draw_rule(searcher, tablebase, legal_positions(wrong_rook_pawn_candidates("P"), None, 0)) \
        == (11_244, 22_488)


@pytest.mark.slow
def test_wrong_rook_pawn_draws_agree_with_syzygy_everywhere(searcher: Searcher, tablebase) -> None:
    assert check_draw_rule(searcher, tablebase, legal_positions(wrong_rook_pawn_candidates("B"), None, 0)) \
        == (145_440, 290_880)


@pytest.mark.parametrize("fen, wdl", [
    ("8/k7/5K2/P7/7p/8/8/8 w - - 0 1", -2),     # Black's h-pawn runs: White, to move, loses
    ("k7/2p4K/8/8/P7/8/8/8 b - - 0 1", 2),      # so does the c-pawn
    ("k7/8/8/8/1K6/2p5/P7/8 b - - 0 1", 2),     # ...c2, c1=Q: Black wins
    ("8/k7/8/8/2K5/1p6/P7/8 w - - 0 1", 2),     # axb3 leaves White a b-pawn, a win
])
def test_rook_pawn_rule_wants_a_bare_defending_king(searcher: Searcher, fen: str, wdl: int) -> None:
    """KNOWN ENGINE BUG (fails): drawish_scale's rook-pawn rule asks that the
    defender have no pieces, but lets him keep pawns. Of the 225,800 legal
    K+P against K+P with White's pawn on a rook file, the black king on or
    next to its queening square (Black's pawn anywhere, either side to move),
    the evaluation calls 125,293 draws, and Syzygy's KPvKP (245 KB, not in
    the fixtures) has 33,306 of these won or lost: the defender's pawn runs,
    or a capture changes the files. ``wdl``: Syzygy's, side to move's view."""
    assert searcher.evaluate(Board(fen)) != 0, f"called a draw; Syzygy: {wdl}"
    assert searcher.evaluate(Board(chess.Board(fen).mirror().fen())) != 0, f"called a draw; Syzygy: {wdl}"


# Syzygy's wins in K+N+N against K (all 7 of 50,000 random positions with
# the bare king on the edge): a mate on the board, or one a move away. (None
# in 150,000 with Black to move by a corner, unless mated already.)
KNN_WINS = [
    "8/8/8/8/8/2N5/2N5/k1K5 b - - 0 1",         # mated
    "8/8/2N5/8/k7/2N5/1K6/8 b - - 0 1",         # mated
    "4k1K1/8/2N2N2/8/8/8/8/8 b - - 0 1",        # mated
    "3k4/1K6/5N2/8/3N4/8/8/8 w - - 0 1",        # Nc6#
    "8/8/8/8/8/5N2/4NK2/7k w - - 0 1",          # Ng3#
    "4k3/6K1/2N5/8/4N3/8/8/8 w - - 0 1",        # Nf6#
    "8/8/8/2N5/8/N7/8/2k1K3 w - - 0 1",         # Nd3#
]


def test_two_knights_draws_agree_with_syzygy(searcher: Searcher, tablebase) -> None:
    """K+N+N against a bare king: the evaluation says 0 (a draw) in 8,000
    random positions (seeded), in both colours. Syzygy agrees but where the
    king is mated or can be mated at once, which the search sees."""
    rng = random.Random(3)
    board = chess.Board(None)
    sample, drawn, mates = 0, 0, []
    while sample < 8_000:
        wk, bk, a, b = rng.sample(range(64), 4)
        pieces = {wk: "K", bk: "k", a: "N", b: "N"}
        board.set_piece_map({square: chess.Piece.from_symbol(letter) for square, letter in pieces.items()})
        board.turn = rng.random() < 0.5
        if not board.is_valid():
            continue
        sample += 1
        for colours in (False, True):
            assert searcher.evaluate(Board(fen_of(*flipped(pieces, board.turn, False, colours)))) == 0, board.fen()
        if tablebase.probe_wdl(board) == 0:
            drawn += 1
        else:
            mates.append(board.fen())
    assert drawn > 7_950
    for fen in mates + KNN_WINS:
        board = chess.Board(fen)
        assert tablebase.probe_wdl(board) == (2 if board.turn == chess.WHITE else -2), fen
        assert searcher.evaluate(Board(fen)) == 0       # the rule does not look for mates...
        if board.turn == chess.BLACK:
            assert Board(fen).is_checkmate(), fen
        else:
            assert (searcher.search(Board(fen), depth=5)["mate"] or 0) > 0, fen    # ...the search does


def kbnk_starts(tablebase, count: int, seed: int) -> list[str]:
    """Random K+B+N against K, White to move, that Syzygy says White wins."""
    rng = random.Random(seed)
    starts = []
    while len(starts) < count:
        board = chess.Board(None)
        board.set_piece_map(dict(zip(rng.sample(range(64), 4), map(chess.Piece.from_symbol, "KkBN"))))
        if board.is_valid() and tablebase.probe_wdl(board) == 2:
            starts.append(board.fen())
    return starts


def corner_defence(tablebase):
    """The bare king's moves with the WDL tables only (every move loses, bar
    taking a piece): take a piece if that draws, else keep as far as it can
    from the corners of the bishop's colour (the only ones it can be mated
    in), then from the white king."""
    def defend(board: chess.Board) -> chess.Move:
        bishop = chess.BB_SQUARES[board.pieces(chess.BISHOP, chess.WHITE).pop()]
        corners = (chess.H1, chess.A8) if bishop & chess.BB_LIGHT_SQUARES else (chess.A1, chess.H8)

        def merit(move: chess.Move):
            board.push(move)
            try:
                king = board.king(chess.BLACK)
                return (-tablebase.probe_wdl(board), min(chess.square_distance(king, c) for c in corners),
                        chess.square_distance(king, board.king(chess.WHITE)))
            finally:
                board.pop()
        return max(board.legal_moves, key=merit)
    return defend


def dtz_defence(tablebase):
    """The bare king's moves as Syzygy's DTZ tables have them: the longest resistance."""
    def defend(board: chess.Board) -> chess.Move:
        def merit(move: chess.Move):
            board.push(move)
            try:
                return -tablebase.probe_wdl(board), tablebase.probe_dtz(board)
            finally:
                board.pop()
        return max(board.legal_moves, key=merit)
    return defend


def play_out(fen: str, defend, nodes: int) -> tuple[chess.Board, str]:
    """The engine, with its options as they are by default, plays White at
    ``nodes`` a move, ``defend`` Black, up to the end of the game or of the
    fifty moves; returns the final board and the game (start FEN and moves)."""
    from engine.session import Session
    searcher = Session(lambda line: None).searcher
    board, engine_board = chess.Board(fen), Board(fen)
    while not board.is_game_over() and board.halfmove_clock < 100:
        if board.turn == chess.WHITE:
            move = searcher.search(engine_board, nodes=nodes)["bestmove"]
        else:
            move = defend(board).uci()
        board.push_uci(move)
        engine_board.push(move)
    return board, f"{fen} moves {' '.join(move.uci() for move in board.move_stack)}"


KBNK_NODES = 200_000        # a move: 0.1 to 0.2 s at the core's 1 to 2 million nodes a second


def assert_mates(starts: list[str], defend, nodes: int, may_fail: int = 0) -> None:
    """The engine mates from every start, or from all but ``may_fail`` of them."""
    failed = []
    for fen in starts:
        board, game = play_out(fen, defend, nodes)
        if not (board.is_checkmate() and board.turn == chess.BLACK):
            failed.append(f"{game} -> {board.fen()}")
    assert len(failed) <= may_fail, f"{len(failed)} of {len(starts)} not mated in 50 moves:\n" + "\n".join(failed)


def test_bishop_and_knight_mate_against_the_corner_defence(tablebase) -> None:
    """Three won K+B+N against K starts (seeded): the engine mates within the
    fifty-move rule, the defender keeping away from the mating corners."""
    starts = kbnk_starts(tablebase, 3, 11)
    assert len(set(starts)) == 3
    assert_mates(starts, corner_defence(tablebase), KBNK_NODES)


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_bishop_and_knight_mate_against_the_best_defence() -> None:
    """Ten won K+B+N against K starts (seeded; the first three are the quick
    test's): the engine mates within the fifty-move rule against the longest
    resistance (Syzygy's DTZ: KBNvK.rtbz is 461 KB, not in the fixtures; read
    from $NMM_DATA/syzygy). It mates in 8 of the 10 (2026-12-01): in the other
    two it drives the king to the edge, then shuffles until the fifty moves are
    out. A known weakness, left open (a Manhattan corner distance with an
    edge push, tried, mated in 3 of 10); the test holds the 8 against a
    regression, and its failure gives each game's moves."""
    from engine.perft import data_dir
    directory = data_dir() / "syzygy"
    if not all((directory / name).exists() for name in ("KBNvK.rtbz", "KBNvK.rtbw", "KBvK.rtbw", "KNvK.rtbw")):
        pytest.skip(f"no K+B+N against K DTZ table in {directory}")
    with chess.syzygy.open_tablebase(str(directory)) as tablebase:
        assert_mates(kbnk_starts(tablebase, 10, 11), dtz_defence(tablebase), KBNK_NODES, may_fail=2)
