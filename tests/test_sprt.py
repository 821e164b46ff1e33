"""The SPRT's arithmetic against maxima found by brute force, and the match
statistics beside it."""
import math
import re

import pytest

from engine.tools import sprt


def brute_force_mle(freqs, constraint) -> list[float]:
    """The most likely (loss, draw, win) distribution meeting ``constraint``
    (p_draw -> (p_loss, p_win) or None), by a fine search over p_draw."""
    def loglik(p_draw):
        found = constraint(p_draw)
        if found is None:
            return -math.inf, None
        probs = [found[0], p_draw, found[1]]
        if min(probs) <= 0:
            return -math.inf, None
        return sum(f * math.log(p) for f, p in zip(freqs, probs)), probs
    lo, hi = 1e-9, 1 - 1e-9
    best = max((loglik(lo + (hi - lo) * i / 200) for i in range(201)), key=lambda r: r[0])
    step = 1 / 200
    centre = best[1][1]
    for _ in range(4):                   # then golden-section searches, each closer, around it
        a, b = max(lo, centre - step), min(hi, centre + step)
        for _ in range(60):
            c, d = a + 0.382 * (b - a), a + 0.618 * (b - a)
            if loglik(c)[0] > loglik(d)[0]:
                b = d
            else:
                a = c
        centre, step = (a + b) / 2, step / 10
    return loglik(centre)[1]


def with_mean(s):
    def constraint(p_draw):
        p_win = s - p_draw / 2
        return 1 - p_draw - p_win, p_win
    return constraint


def with_t(t):
    def constraint(p_draw):
        def excess(p_win):
            mu = p_win + p_draw / 2
            var = p_win + p_draw / 4 - mu * mu
            return mu - 0.5 - t * math.sqrt(max(var, 0))
        lo, hi = 0.0, 1 - p_draw
        if excess(lo) > 0 or excess(hi) < 0:
            return None
        for _ in range(64):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if excess(mid) < 0 else (lo, mid)
        p_win = (lo + hi) / 2
        return 1 - p_draw - p_win, p_win
    return constraint


@pytest.mark.parametrize("counts", [[120, 250, 150], [300, 200, 100], [80, 500, 95]])
@pytest.mark.parametrize("model,elo0,elo1", [("logistic", 0, 10), ("logistic", -5, 5), ("normalized", 0, 10),
                                             ("normalized", -3, 4)])
def test_llr_equals_the_brute_force_maximum(counts, model, elo0, elo1):
    n = sum(counts)
    freqs = [c / n for c in counts]
    if model == "logistic":
        p0, p1 = (brute_force_mle(freqs, with_mean(sprt.score_of_elo(e))) for e in (elo0, elo1))
    else:
        p0, p1 = (brute_force_mle(freqs, with_t(e / sprt.NELO_PER_T)) for e in (elo0, elo1))
    expected = n * sum(f * (math.log(b) - math.log(a)) for f, a, b in zip(freqs, p0, p1))
    assert sprt.llr(counts, elo0, elo1, model) == pytest.approx(expected, abs=1e-6)


def test_pentanomial_llr_agrees_with_the_brownian_approximation():
    # Van den Bergh's approximation for the normalised statistic: N/2 log((1+(t-t0)^2)/(1+(t-t1)^2))
    for counts in ([10, 40, 100, 40, 10], [5, 30, 100, 50, 15], [40, 300, 900, 320, 45]):
        n, values, freqs = sprt.distribution(counts)
        mu, var = sprt.mean_var(values, freqs)
        t = (mu - 0.5) / math.sqrt(var)
        t1 = 5 / sprt.NELO_PER_T * math.sqrt(2)
        approx = n / 2 * math.log((1 + t * t) / (1 + (t - t1) ** 2))
        assert sprt.llr(counts, 0, 5) == pytest.approx(approx, rel=0.05, abs=0.01)


def test_the_llr_grows_with_evidence_and_points_the_right_way():
    better, worse = [2, 20, 50, 28, 8], [8, 28, 50, 20, 2]
    assert sprt.llr(better, 0, 5) > 0 > sprt.llr(worse, 0, 5)
    assert sprt.llr([c * 10 for c in better], 0, 5) > 5 * sprt.llr(better, 0, 5)
    lower, upper = sprt.bounds(0.05, 0.05)
    assert lower == pytest.approx(-math.log(19)) and upper == pytest.approx(math.log(19))


def test_pentanomial_counts_los_and_normalised_elo():
    assert sprt.pentanomial([(1, 0), (0.5, 0.5), (1, 1), (0, 0.5), (1, 0.5)]) == [0, 1, 2, 1, 1]
    assert sprt.los(10, 10) == 0.5 and sprt.los(30, 10) > 0.99 and sprt.los(10, 30) < 0.01
    assert sprt.los(12, 7) + sprt.los(7, 12) == pytest.approx(1)
    nelo, err = sprt.normalized_elo([10, 40, 100, 40, 10])
    assert nelo == pytest.approx(0) and err > 0
    with pytest.raises(ValueError):
        sprt.llr([1, 2, 3, 4], 0, 5)


def test_a_match_stops_when_told_and_reports_pairs_and_the_sprt():
    import chess

    from engine.tools.engines import parse_spec
    from engine.tools.match import report, run_match
    openings = []
    for moves in (["e2e4", "e7e5"], ["d2d4", "d7d5"], ["c2c4", "e7e5"], ["g1f3", "d7d5"]):
        board = chess.Board()
        for m in moves:
            board.push_uci(m)
        openings.append(board)
    nmm = parse_spec("nmm")
    summary = run_match(nmm, nmm, openings, 0, 0, depth=1, stop=lambda s: len(s.games) >= 4)
    assert len(summary.games) == 4 and len(summary.pairs()) == 2
    test = sprt.Sprt(0, 5)
    text = report(nmm, nmm, 0, 0, summary, True, depth=1, sprt=test)
    assert "(2 pairs)" in text and "SPRT [0, 5] nElo" in text and "undecided" in text
    with pytest.raises(ValueError):
        sprt.Sprt(5, 0)


def test_a_match_log_is_summarised_with_pairs_by_opening(tmp_path) -> None:
    from engine.tools.match_log import read_games, summary
    log = tmp_path / "m.log"
    # Two threads: the games of openings 1 and 2 finish interleaved.
    log.write_text("game   1: 1-0     adjudicated win   (A white)  +1 =0 -0  opening 1\n"
                   "game   2: 1-0     adjudicated win   (A white)  +1 =0 -1  opening 2\n"
                   "game   3: 0-1     adjudicated win   (A black)  +2 =0 -1  opening 1\n"
                   "game   4: 1/2-1/2 threefold repetition (A black)  +2 =1 -1  opening 2\n"
                   "game   5: 1-0     adjudicated win   (A white)  +3 =1 -1  opening 3\n")
    assert read_games(log) == [(1.0, 1), (1.0, 2), (1.0, 1), (0.5, 2), (1.0, 3)]
    text = summary(log)
    assert text.startswith("5 games: +4 =1 -0") and "pentanomial [0, 0, 0, 1, 1] (2 pairs)" in text


def test_a_resume_that_kept_fewer_games_than_the_log_has_counts_them_once(tmp_path) -> None:
    from engine.tools.match_log import read_games
    log = tmp_path / "m.log"
    log.write_text("game   1: 1-0     adjudicated win   (A white)  +1 =0 -0  opening 1\n"
                   "game   2: 1-0     adjudicated win   (A black)  +1 =0 -1  opening 1\n"
                   "1 games kept from m.pgn\n"       # game 2's PGN was cut off: it is played again
                   "game   2: 1/2-1/2 threefold repetition (A black)  +1 =1 -0  opening 1\n")
    assert read_games(log) == [(1.0, 1), (0.5, 1)]


def test_two_logs_read_as_one_match_with_pairs_kept_within_each(tmp_path) -> None:
    from engine.tools.match_log import summary
    first, second = tmp_path / "a.log", tmp_path / "b.log"
    first.write_text("game   1: 1-0     adjudicated win   (A white)  +1 =0 -0  opening 1\n"
                     "game   2: 1/2-1/2 threefold repetition (A black)  +1 =1 -0  opening 1\n"
                     "game   3: 1-0     adjudicated win   (A white)  +2 =1 -0  opening 2\n")
    # The second log numbers its openings from 1 again: its opening 1 is another pair.
    second.write_text("game   1: 0-1     adjudicated win   (A white)  +0 =0 -1  opening 1\n"
                      "game   2: 1-0     adjudicated win   (A black)  +0 =0 -2  opening 1\n"
                      "game   3: 0-1     adjudicated win   (A white)  +0 =0 -3  opening 2\n"
                      "game   4: 1-0     adjudicated win   (A black)  +0 =0 -4  opening 2\n")
    text = summary([first, second], 0, 20, "logistic")
    assert text.startswith("7 games: +2 =1 -4")
    assert "pentanomial [2, 0, 0, 1, 0] (3 pairs)" in text and "SPRT [0, 20] logistic" in text


def paired_log(path, pairs: list[float]) -> None:
    """A log of one pair per opening, A's score in each pair (2, 1 or 0), white first."""
    lines, game = [], 0
    for opening, points in enumerate(pairs, 1):
        for colour, score in (("white", min(points, 1)), ("black", max(points - 1, 0))):
            game += 1
            result = {1: "1-0", 0.5: "1/2-1/2", 0: "0-1"}[score if colour == "white" else 1 - score]
            lines.append(f"game {game:3d}: {result}     adjudicated win   (A {colour})  opening {opening}")
    path.write_text("\n".join(lines) + "\n")


def test_a_log_that_played_on_past_the_bound_reports_where_it_crossed(tmp_path) -> None:
    from engine.tools.match_log import summary
    log = tmp_path / "m.log"
    # A scores 7 of 8 points per four pairs (+58 Elo) for 160 pairs, then loses 40 pairs.
    paired_log(log, [2, 1, 1, 1, 2, 0, 1, 2] * 20 + [0] * 40)
    text = summary(log, 0, 20, "logistic")
    crossed = re.search(r"H1 accepted at game (\d+) \(pair (\d+), LLR ([\d.]+)\)", text)
    assert crossed, text
    end, pair, value = int(crossed.group(1)), int(crossed.group(2)), float(crossed.group(3))
    assert end == 2 * pair and pair < 160 and value >= 2.94
    assert text.startswith("400 games:") and "LLR -" in text    # the losses took it back
    # A log that never reaches a bound names no crossing.
    paired_log(log, [2, 0, 1, 1, 2, 0])
    assert "accepted" not in summary(log, 0, 20, "logistic")


def test_a_log_read_at_a_game_gives_the_standing_the_test_had_then(tmp_path) -> None:
    from click.testing import CliRunner
    from engine.cli import main
    from engine.tools.match_log import summary
    log, early = tmp_path / "m.log", tmp_path / "early.log"
    paired_log(log, [2, 1, 0, 2, 1, 1, 0, 2])                   # 16 games
    lines = log.read_text().splitlines(keepends=True)
    early.write_text("".join(lines[:7]))                         # 7 games: pairs 1-3 complete, the 4th half
    assert summary(log, 0, 10, "logistic", first=7) == summary(early, 0, 10, "logistic")
    assert "(3 pairs)" in summary(log, 0, 10, "logistic", first=7)
    assert summary(log, 0, 10, "logistic", first=16) == summary(log, 0, 10, "logistic")
    with pytest.raises(ValueError, match="hold 16 games"):
        summary(log, first=17)
    result = CliRunner().invoke(main, ["match-log", str(log), "--at", "7", "--at", "16"])
    assert result.exit_code == 0 and [line.split(":")[0] for line in result.output.splitlines()] == ["7 games", "16 games"]
    result = CliRunner().invoke(main, ["match-log", str(log), "--at", "40"])
    assert result.exit_code != 0 and "hold 16 games" in result.output


def test_a_capped_sprt_decides_at_its_cap_by_the_llr_sign_and_not_before():
    test = sprt.Sprt(0, 10, model="logistic", cap=400)
    ahead, behind = [4, 40, 90, 56, 10], [10, 56, 90, 40, 4]     # 200 pairs each: 400 games
    assert sprt.llr(ahead, 0, 10, "logistic") > 0 > sprt.llr(behind, 0, 10, "logistic")
    assert test.verdict(ahead)[1] == "H1" and test.verdict(behind)[1] == "H0"
    assert "at the cap of 400 games" in test.describe(ahead)
    half = [c // 2 for c in ahead]                               # 200 games: below the cap
    assert test.verdict(half)[1] is None and sprt.Sprt(0, 10, model="logistic").verdict(ahead)[1] is None
    # A bound crossed before the cap decides as ever, and says nothing of the cap.
    assert sprt.Sprt(0, 10, model="logistic", cap=10_000).verdict([0, 10, 50, 100, 40])[1] == "H1"
    assert sprt.Sprt(0, 10, cap=3).capped([1, 1, 1]) and not sprt.Sprt(0, 10, cap=4).capped([1, 1, 1])
    with pytest.raises(ValueError):
        sprt.Sprt(0, 10, cap=-1)


def test_a_log_read_with_a_cap_names_the_game_where_the_cap_decided(tmp_path) -> None:
    from engine.tools.match_log import summary
    log = tmp_path / "m.log"
    paired_log(log, [2, 0, 1, 1, 2, 1] * 10)                     # 120 games, ahead, far from a bound
    assert "accepted" not in summary(log, 0, 10, "logistic")
    text = summary(log, 0, 10, "logistic", cap=60)
    assert re.search(r"H1 accepted at game 60 \(pair 30, LLR [\d.]+, at the cap of 60 games\)", text), text


def test_the_simulated_sprt_accepts_by_the_truth_and_stops_by_its_cap():
    from engine.study.sprt_truncation import simulate
    counts = [33, 225, 435, 237, 40]
    low, high = simulate(counts, 0, 10, [-30.0, 40.0], caps=[200, 600], runs=60, max_games=2000, seed=3)
    assert low.accepted[0] <= 0.05 and high.accepted[0] >= 0.95
    for row in (low, high):
        assert row.games[200] <= 200 and row.games[600] <= 600 and row.games[200] <= row.games[600] <= row.games[0]
    # A cap far past every crossing changes nothing.
    assert simulate(counts, 0, 10, [40.0], caps=[2000], runs=30, max_games=2000, seed=4)[0].undecided == 0
