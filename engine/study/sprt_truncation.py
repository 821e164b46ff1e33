"""What an SPRT costs and how often it errs, with and without a cap on its
games, by simulation.

An SPRT stops when its log-likelihood ratio leaves its bounds. Where the
truth lies between the two hypotheses the ratio wanders and the test can
run for many thousands of games; a capped (truncated) SPRT stops at a
fixed number of games all the same and accepts the hypothesis the ratio
leans to. This study measures, for a grid of true Elo differences, the
share of runs that accept H1 and the mean number of games, for each cap,
from runs of game pairs drawn from a pentanomial distribution: the one
nearest (most likely) to a real test's counts with the true Elo as its mean,
so the draw rate and the pairs' spread are those of this project's games.

The ratio is ``engine.tools.sprt``'s logistic one, computed for all runs at
once with numpy, after every pair as the match runner checks it.

>>> row = simulate([33, 225, 435, 237, 40], 0.0, 10.0, [-20.0], caps=[400], runs=50, max_games=400, seed=1)[0]
>>> row.elo, row.accepted[400] < 0.1, 0 < row.games[400] <= 400
(-20.0, True, True)
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.tools.sprt import REGULARISE, bounds, mle_with_mean, score_of_elo

VALUES = np.linspace(0.0, 1.0, 5)       # a pair's points, scaled to 0..1


def _tilted(freqs: np.ndarray, mean: float, iterations: int = 60) -> np.ndarray:
    """Row by row, the most likely distribution on VALUES with expectation
    ``mean``: f / (1 + x b), b = VALUES - mean, x by bisection (as sprt.tilt)."""
    shifts = VALUES - mean
    lo = np.full(len(freqs), -1 / shifts.max())
    hi = np.full(len(freqs), -1 / shifts.min())
    span = hi - lo
    lo, hi = lo + 1e-12 * span, hi - 1e-12 * span
    for _ in range(iterations):
        x = (lo + hi) / 2
        above = (freqs * shifts / (1 + x[:, None] * shifts)).sum(axis=1) > 0
        lo = np.where(above, x, lo)
        hi = np.where(above, hi, x)
    x = (lo + hi) / 2
    return freqs / (1 + x[:, None] * shifts)


def llr_rows(counts: np.ndarray, elo0: float, elo1: float) -> np.ndarray:
    """The logistic SPRT's log-likelihood ratio of each row of pentanomial counts.

    >>> from engine.tools.sprt import llr
    >>> rows = np.array([[10, 40, 100, 40, 10], [5, 30, 100, 50, 15], [0, 3, 9, 5, 1]], float)
    >>> bool(np.allclose(llr_rows(rows, 0, 5), [llr(r, 0, 5, "logistic") for r in rows], atol=1e-6))
    True
    """
    counts = np.where(counts > 0, counts, REGULARISE)
    n = counts.sum(axis=1)
    freqs = counts / n[:, None]
    p0 = _tilted(freqs, score_of_elo(elo0))
    p1 = _tilted(freqs, score_of_elo(elo1))
    return n * (freqs * (np.log(p1) - np.log(p0))).sum(axis=1)


@dataclass
class Row:
    """One true Elo: for each cap (games; 0 for none), the share of runs that
    accepted H1, and their mean length in games."""
    elo: float
    accepted: dict[int, float]
    games: dict[int, float]
    undecided: float                    # share of runs the bounds had not decided at max_games


def simulate(counts: Sequence[float], elo0: float, elo1: float, elos: Sequence[float], caps: Sequence[int],
             runs: int = 2000, max_games: int = 20000, seed: int = 0, alpha: float = 0.05,
             beta: float = 0.05) -> list[Row]:
    """Runs of the SPRT [elo0, elo1] (logistic) for each true Elo of ``elos``,
    pairs drawn from the distribution nearest to ``counts`` (pentanomial)
    with that Elo's score as its mean, each run to a bound or ``max_games``;
    the caps are read from the same runs (a run the bounds decide after a
    cap is decided at the cap by its ratio's sign there)."""
    rng = np.random.default_rng(seed)
    lower, upper = bounds(alpha, beta)
    base = [c if c > 0 else REGULARISE for c in counts]
    total = sum(base)
    caps = sorted(set(int(c) for c in caps if 0 < c <= max_games))
    rows = []
    for elo in elos:
        probs = np.array(mle_with_mean(list(VALUES), [c / total for c in base], score_of_elo(elo)))
        probs /= probs.sum()
        state = np.zeros((runs, 5))
        stop = np.full(runs, max_games // 2)        # pairs played when decided (or the end)
        verdict = np.zeros(runs)                    # +1 H1, -1 H0, 0 undecided
        at_cap = {cap: np.zeros(runs) for cap in caps}  # the sign of the ratio at each cap
        alive = np.arange(runs)
        for pair in range(1, max_games // 2 + 1):
            outcome = rng.choice(5, size=len(alive), p=probs)
            state[alive, outcome] += 1
            value = llr_rows(state[alive], elo0, elo1)
            if 2 * pair in at_cap:
                at_cap[2 * pair][alive] = np.where(value > 0, 1, -1)
            done = (value >= upper) | (value <= lower)
            stop[alive[done]] = pair
            verdict[alive[done]] = np.where(value[done] >= upper, 1, -1)
            alive = alive[~done]
            if len(alive) == 0:
                break
        accepted = {0: float((verdict > 0).mean())}
        games = {0: float(2 * stop.mean())}
        for cap in caps:
            early = 2 * stop <= cap
            decision = np.where(early & (verdict != 0), verdict, at_cap[cap])
            accepted[cap] = float((decision > 0).mean())
            games[cap] = float(np.minimum(2 * stop, cap).mean())
        rows.append(Row(elo, accepted, games, float((verdict == 0).mean())))
    return rows


def report(rows: list[Row], elo0: float, elo1: float, counts: Sequence[float], runs: int,
           max_games: int) -> list[str]:
    """A table: each true Elo's share accepting H1 and mean games, per cap
    (the caps ``simulate`` read, the same in every row)."""
    caps = sorted(cap for cap in rows[0].accepted if cap) if rows else []
    heads = ["no cap"] + [f"cap {c}" for c in caps]
    lines = [f"SPRT [{elo0:g}, {elo1:g}] logistic, alpha = beta = 0.05; {runs} runs a row, pairs drawn "
             f"from the distribution nearest to {list(counts)} with the row's Elo; no cap means up to "
             f"{max_games} games",
             "",
             "| true Elo | " + " | ".join(f"H1 accepted, {h}" for h in heads) + " | "
             + " | ".join(f"mean games, {h}" for h in heads) + " |",
             "|---" * (1 + 2 * len(heads)) + "|"]
    keys = [0] + caps
    for row in rows:
        undecided = f" ({row.undecided:.0%} undecided)" if row.undecided else ""
        lines.append(f"| {row.elo:+g} | " + " | ".join(
            f"{row.accepted[k]:.1%}" + (undecided if k == 0 else "") for k in keys) + " | "
            + " | ".join(f"{row.games[k]:,.0f}" for k in keys) + " |")
    return lines
