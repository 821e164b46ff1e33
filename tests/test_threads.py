"""Lazy SMP (ext/threads.pxi): helper threads share the transposition table.

Nothing here depends on how fast the machine is: the tests check moves,
mates, node sums and the table's entries, never times."""
import chess
import pytest
from test_search import MATES
from uci_client import Engine, answers, errors_in, transcript

from engine._core import Board, LabSearcher, Searcher, tt_stress

MIDDLE_GAME = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP2BPPP/R2QKB1R w KQ - 0 8"


@pytest.fixture(scope="module")
def searcher() -> LabSearcher:
    return LabSearcher(hash_mb=8)       # the lab's face: thread_nodes


@pytest.mark.parametrize("threads", [2, 3])
@pytest.mark.parametrize("fen, n", MATES)
def test_mates_keep_their_distance_with_threads(searcher: LabSearcher, fen: str, n: int, threads: int) -> None:
    searcher.set_threads(threads)
    searcher.clear()
    result = searcher.search(Board(fen), depth=2 * n + 4)
    assert result["mate"] == n and result["line"]["mate"] == n
    reference = chess.Board(fen)          # the line of the thread whose move is played
    for move in result["line"]["pv"][: 2 * n - 1]:
        reference.push_uci(move)
    assert reference.is_checkmate(), result["line"]["pv"]


def test_the_helpers_search_and_their_nodes_are_counted(searcher: LabSearcher) -> None:
    searcher.set_threads(2)
    searcher.clear()
    lines = []
    result = searcher.search(Board(MIDDLE_GAME), depth=10, on_info=lines.append)
    per_thread = searcher.thread_nodes
    assert len(per_thread) == 2 and min(per_thread) > 0
    assert result["nodes"] == sum(per_thread)
    assert lines[-1]["nodes"] <= result["nodes"]
    if result["thread"] == 0:
        # The main thread reported depth 10 as it ended: the count includes
        # the helper's nodes. (When the helper finished first, the last report
        # is the main thread's depth 9, at a time the machine's speed decides.)
        assert lines[-1]["nodes"] > per_thread[0]
    assert result["bestmove"] in Board(MIDDLE_GAME).legal_moves()
    # Whichever thread searched depth 10 first, its move and its line are the result.
    assert result["depth"] == 10 and result["thread"] in (0, 1)
    assert result["line"]["pv"][0] == result["bestmove"]
    assert result["ponder"] == (result["line"]["pv"][1:2] or [None])[0]


def test_a_go_nodes_limit_counts_every_thread(searcher: LabSearcher) -> None:
    searcher.set_threads(4)
    searcher.clear()
    result = searcher.search(Board(MIDDLE_GAME), nodes=60_000)
    # The main search looks at the sum every 256 of its own nodes; how far the
    # helpers got meanwhile depends on the machine, so only the main count is bounded.
    assert result["nodes"] >= 60_000 and searcher.thread_nodes[0] < 60_000 + 256
    assert result["nodes"] == sum(searcher.thread_nodes)


def test_changing_threads_between_searches_and_back_to_one_is_deterministic(searcher: LabSearcher) -> None:
    def one_thread_nodes() -> int:
        searcher.set_threads(1)
        searcher.clear()
        return searcher.search(Board(MIDDLE_GAME), depth=8)["nodes"]
    first = one_thread_nodes()
    for n in (4, 2, 7):
        searcher.set_threads(n)
        searcher.clear()
        result = searcher.search(Board(MIDDLE_GAME), depth=8)
        assert searcher.threads == n and len(searcher.thread_nodes) == n
        assert result["bestmove"] in Board(MIDDLE_GAME).legal_moves()
    assert one_thread_nodes() == first
    with pytest.raises(ValueError):
        searcher.set_threads(0)
    with pytest.raises(ValueError):
        searcher.set_threads(257)
    assert searcher.threads == 1


@pytest.mark.parametrize("helpers, defer", [("every", True), ("pattern", True), ("pattern", False),
                                            ("ahead", False), ("pattern-ahead", False),
                                            ("pattern-jump", True), ("jump", False)])
def test_each_helper_depth_rule_finds_the_mates(helpers: str, defer: bool) -> None:
    searcher = Searcher(hash_mb=8)
    searcher.configure(helper_depths=helpers, defer_busy=defer)
    searcher.set_threads(3)
    for fen, n in MATES:
        searcher.clear()
        assert searcher.search(Board(fen), depth=2 * n + 4)["mate"] == n
    with pytest.raises(ValueError):
        searcher.configure(helper_depths="odd")


@pytest.mark.parametrize("switches", [{"breadcrumbs": False}, {"defer_depth": 1}, {"defer_depth": 6}])
def test_the_spreading_switches_find_the_mates(switches: dict) -> None:
    searcher = Searcher(hash_mb=8)
    searcher.configure(**switches)
    searcher.set_threads(3)
    for fen, n in MATES:
        searcher.clear()
        assert searcher.search(Board(fen), depth=2 * n + 4)["mate"] == n
    with pytest.raises(ValueError):
        searcher.configure(defer_depth=0)


def test_many_threads_on_a_tiny_table_give_legal_moves() -> None:
    # 1 MB: the threads keep overwriting one another's entries.
    searcher = LabSearcher(hash_mb=1)
    searcher.set_threads(16)
    board = chess.Board()
    for _ in range(12):
        result = searcher.search(Board(board.fen()), depth=7)
        move = chess.Move.from_uci(result["bestmove"])
        assert move in board.legal_moves
        board.push(move)
    assert len(searcher.thread_nodes) == 16


def test_the_table_never_returns_a_torn_entry() -> None:
    # Threads write and probe entries whose data is a function of the key, 8
    # keys in 2 buckets, so that they fight over every entry: a probe must
    # either miss or return exactly the data written with that key. (Storing
    # the plain key instead of key ^ data fails this with hundreds of torn
    # entries on two cores.)
    hits, wrong = tt_stress(threads=4, operations=1_000_000, buckets=2, keys=8, seed=7)
    assert hits > 100_000
    assert wrong == 0


def test_threads_through_uci_with_hash_changes_waiting_for_the_search() -> None:
    with Engine() as engine:
        engine.send("uci", "setoption name Threads value 3", "isready")
        _, seen = engine.read_until("readyok")
        engine.send("position startpos moves e2e4", "go infinite")
        engine.read_until("info depth 3")
        # Hash and Clear Hash during the search wait for it; isready is answered at once.
        engine.send("setoption name Hash value 32", "setoption name Clear Hash", "isready")
        _, during = engine.read_until("readyok")
        assert not any(line.startswith("bestmove") for line in during)
        assert sum("takes effect when the search has ended" in line for line in errors_in(during)) == 2
        engine.send("stop")
        _, tail = engine.read_until("bestmove")
        move = tail[-1].split()[1]
        assert chess.Move.from_uci(move) in chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").legal_moves
        engine.send("setoption name Threads value 1", "go depth 4")
        _, tail = engine.read_until("bestmove")
        assert not errors_in(tail)
        assert engine.quit() == 0


@pytest.mark.parametrize("value", ["0", "300", "two"])
def test_threads_out_of_range_is_an_error_with_a_fallback(value: str) -> None:
    out = answers("uci", f"setoption name Threads value {value}", "position startpos", "go depth 3",
                  errors_ok=True)
    assert any("Threads" in line for line in errors_in(out))
    assert out[-1].startswith("bestmove")


def test_the_threads_option_offers_one_to_256() -> None:
    assert "option name Threads type spin default 1 min 1 max 256" in transcript("uci", "quit")


def test_the_threads_study_reports_speed_ups_by_position() -> None:
    from engine.study.threads import summary_lines, threads_study
    rows = threads_study([MIDDLE_GAME, chess.STARTING_FEN], [1, 2], depth=6, rounds=2, hash_mb=8,
                         progress=False)
    one, two = rows
    assert (one["threads"], two["threads"]) == (1, 2)
    assert one["speedup"] == one["position_speedup_q25"] == one["node_ratio"] == 1.0
    assert 0 < two["position_speedup_q25"] <= two["position_speedup_q75"]
    assert two["nodes"] > 0 and two["positions"] == 2 and two["rounds"] == 2
    assert "quartiles by position" in summary_lines("test", rows)[1]


def test_the_threads_study_compares_variants_against_one_reference() -> None:
    from engine.study.threads import summary_lines, threads_study
    rows = threads_study([MIDDLE_GAME], [1, 2], depth=5, rounds=1, hash_mb=8, progress=False,
                         variants=[{"helper_depths": "pattern-jump"}, {"defer_busy": False}])
    assert [(r["threads"], r["variant"]) for r in rows] == [
        (1, ""), (2, ""), (2, "helper_depths=pattern-jump"), (2, "defer_busy=False")]
    assert all(r["nodes"] > 0 for r in rows)
    assert "(helper_depths=pattern-jump)" in summary_lines("test", rows)[2]


def test_the_threads_study_measures_the_bench_positions_alone(tmp_path) -> None:
    from click.testing import CliRunner

    from engine.cli import main
    out = tmp_path / "ttd.csv"
    result = CliRunner().invoke(main, ["study", "threads", "--count", "0", "--bench-depth", "2",
                                       "--rounds", "1", "--hash", "8", "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = result.stdout.splitlines()
    assert [row.split(":")[0] for row in rows] == ["bench", "bench"]
    assert {row.split(",")[0] for row in out.read_text().splitlines()[1:]} == {"bench"}
