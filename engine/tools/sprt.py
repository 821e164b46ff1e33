"""Match statistics the way engine testers compute them: Elo with its error
bar, LOS, the draw ratio, the pentanomial counts of paired games, and the
sequential probability ratio test (SPRT) that stops a match once it has
decided.

The SPRT is the generalised one that fishtest and OpenBench run (Michel Van
den Bergh's notes, "Normalized Elo, practical" and "Support of the MLE for
multinomials", cantate.be/Fishtest): the log-likelihood ratio of the two
hypotheses, each the most likely distribution of outcomes that satisfies
it, given the outcomes seen. Outcomes are game pairs (the same opening with
colours swapped: 0, 1/2, 1, 3/2 or 2 points), or single games when there
are no pairs. Two ways to state the bounds:

- ``normalized`` (fishtest's default today): Elo per unit of the score's
  spread, nElo = (score - 1/2) / sigma * 800 / ln 10, sigma the standard
  deviation of one game's score; it does not depend on the draw rate.
- ``logistic``: the usual Elo, score = 1 / (1 + 10^(-Elo / 400)).

>>> round(llr([10, 40, 100, 40, 10], 0, 5), 3), round(llr([5, 30, 100, 50, 15], 0, 5), 3)
(-0.041, 0.87)
>>> [round(b, 3) for b in bounds(0.05, 0.05)]
[-2.944, 2.944]
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

NELO_PER_T = 800 / math.log(10)     # normalised Elo of a t-value (score excess / sigma) of 1
REGULARISE = 1e-3                   # stands in for an outcome never seen (its log would be -inf)


def elo_of_score(score: float) -> float:
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / score - 1)


def score_of_elo(elo: float) -> float:
    return 1 / (1 + 10 ** (-elo / 400))


def score_elo(scores: Sequence[float]) -> tuple[float, float, float]:
    """(mean score, Elo, 95% error bar) of game scores (1, 1/2, 0).

    >>> [round(v, 1) for v in score_elo([1, 1, 0.5, 0])]
    [0.6, 88.7, 710.5]
    """
    n = len(scores)
    if n == 0:
        return 0.5, 0.0, 0.0
    p = sum(scores) / n
    se = math.sqrt(sum((s - p) ** 2 for s in scores) / n / n)
    lo, mid, hi = (min(max(x, 0.001), 0.999) for x in (p - 1.96 * se, p, p + 1.96 * se))  # all won: +1200
    return p, elo_of_score(mid), (elo_of_score(hi) - elo_of_score(lo)) / 2


def bounds(alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    """(lower, upper) LLR bounds: accept H0 (elo0) below, H1 (elo1) above."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def distribution(counts: Sequence[float]) -> tuple[float, list[float], list[float]]:
    """(N, values, frequencies) of outcome counts: 3 (loss, draw, win) or 5
    (pairs scoring 0, 1/2, 1, 3/2, 2), values scaled to 0..1."""
    if len(counts) not in (3, 5):
        raise ValueError("counts are 3 (L, D, W) or 5 (pentanomial)")
    counts = [c if c > 0 else REGULARISE for c in counts]
    n = sum(counts)
    return n, [i / (len(counts) - 1) for i in range(len(counts))], [c / n for c in counts]


def mean_var(values: Sequence[float], probs: Sequence[float]) -> tuple[float, float]:
    mu = sum(p * a for a, p in zip(values, probs))
    return mu, sum(p * (a - mu) ** 2 for a, p in zip(values, probs))


def tilt(freqs: Sequence[float], shifts: Sequence[float]) -> list[float]:
    """The distribution p_i = f_i / (1 + x b_i) (b = ``shifts``) whose mean of b
    is 0: the form every constrained maximum of the likelihood takes.
    x solves sum f_i b_i / (1 + x b_i) = 0, found by bisection between the
    poles -1 / max b and -1 / min b (the sum falls from +inf to -inf there)."""
    lo, hi = -1 / max(shifts), -1 / min(shifts)
    lo, hi = lo + 1e-12 * (hi - lo), hi - 1e-12 * (hi - lo)
    for _ in range(200):
        x = (lo + hi) / 2
        if sum(f * b / (1 + x * b) for f, b in zip(freqs, shifts)) > 0:
            lo = x
        else:
            hi = x
    x = (lo + hi) / 2
    return [f / (1 + x * b) for f, b in zip(freqs, shifts)]


def mle_with_mean(values: Sequence[float], freqs: Sequence[float], mean: float) -> list[float]:
    """The most likely distribution on ``values`` with expectation ``mean``."""
    return tilt(freqs, [a - mean for a in values])


def mle_with_t(values: Sequence[float], freqs: Sequence[float], t: float) -> list[float]:
    """The most likely distribution on ``values`` with (mean - 1/2) / sigma = t.

    The condition for a maximum is again a tilt, with shifts that depend on
    the answer's own mean and sigma: a fixed point, reached by iterating
    from the uniform distribution."""
    probs = [1 / len(values)] * len(values)
    for _ in range(100):
        mu, var = mean_var(values, probs)
        sigma = math.sqrt(var)
        shifts = [a - 0.5 - t * sigma * (1 + ((mu - a) / sigma) ** 2) / 2 for a in values]
        new = tilt(freqs, shifts)
        if max(abs(p - q) for p, q in zip(new, probs)) < 1e-12:
            return new
        probs = new
    return probs


def llr(counts: Sequence[float], elo0: float, elo1: float, model: str = "normalized") -> float:
    """Log-likelihood ratio of H1 (elo1) against H0 (elo0) given ``counts``."""
    n, values, freqs = distribution(counts)
    if model == "logistic":
        # a pair's points are two games': its expectation is the game score's
        p0, p1 = (mle_with_mean(values, freqs, score_of_elo(e)) for e in (elo0, elo1))
    elif model == "normalized":
        scale = math.sqrt(2) if len(counts) == 5 else 1.0     # a pair's sigma is a game's / sqrt(2)
        p0, p1 = (mle_with_t(values, freqs, e / NELO_PER_T * scale) for e in (elo0, elo1))
    else:
        raise ValueError(f"unknown model {model!r} (normalized or logistic)")
    return n * sum(f * (math.log(b) - math.log(a)) for f, a, b in zip(freqs, p0, p1))


def pentanomial(pairs: Sequence[tuple[float, float]]) -> list[int]:
    """Counts of pairs scoring 0, 1/2, 1, 3/2, 2 from (score, score) per pair."""
    counts = [0] * 5
    for a, b in pairs:
        counts[round(2 * (a + b))] += 1
    return counts


def los(wins: int, losses: int) -> float:
    """Likelihood of superiority: the chance that the stronger engine is the
    one ahead, from wins and losses (draws say nothing about it)."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1 + math.erf((wins - losses) / math.sqrt(2 * (wins + losses))))


def normalized_elo(counts: Sequence[float]) -> tuple[float, float]:
    """(nElo, 95% error bar) of trinomial or pentanomial counts."""
    n, values, freqs = distribution(counts)
    mu, var = mean_var(values, freqs)
    games, sigma = (2 * n, math.sqrt(2 * var)) if len(counts) == 5 else (n, math.sqrt(var))
    t = (mu - 0.5) / sigma
    return NELO_PER_T * t, NELO_PER_T * 1.96 / math.sqrt(games)


@dataclass(frozen=True)
class Sprt:
    """A test of H0: Elo = elo0 against H1: Elo = elo1 (in the model's units).

    ``cap`` (games; 0: none) truncates it: a test still undecided after
    ``cap`` games accepts the hypothesis its LLR leans to (H1 above 0).
    Where the truth lies between the hypotheses an SPRT runs longest, some
    4,000 games on average for [0, 10] at this project's draw rate; the
    cap's cost in errors is measured by ``nmm-chess study sprt-cap``.

    >>> test = Sprt(0, 10, model="logistic", cap=1000)
    >>> value, decided = test.verdict([20, 110, 230, 120, 20])   # 1,000 games, an even score
    >>> round(value, 2), decided
    (-0.32, 'H0')
    >>> test.verdict([2, 11, 23, 12, 2])[1] is None
    True
    """
    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "normalized"
    cap: int = 0

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError("the SPRT needs elo0 < elo1")
        if not (0 < self.alpha < 0.5 and 0 < self.beta < 0.5):
            raise ValueError("alpha and beta lie between 0 and 0.5")
        if self.model not in ("normalized", "logistic"):
            raise ValueError(f"unknown model {self.model!r} (normalized or logistic)")
        if self.cap < 0:
            raise ValueError("the cap is a number of games, 0 for none")

    def games(self, counts: Sequence[float]) -> float:
        """Games in ``counts``: pairs count two."""
        return sum(counts) * (2 if len(counts) == 5 else 1)

    def capped(self, counts: Sequence[float]) -> bool:
        """Whether ``counts`` reach the cap."""
        return self.cap > 0 and self.games(counts) >= self.cap

    def by_cap(self, counts: Sequence[float], value: float) -> bool:
        """Whether a verdict with LLR ``value`` at ``counts`` is the cap's, no bound's."""
        lower, upper = bounds(self.alpha, self.beta)
        return self.capped(counts) and lower < value < upper

    def verdict(self, counts: Sequence[float]) -> tuple[float, str | None]:
        """(LLR, "H0" or "H1" once a bound is crossed, else None)."""
        if sum(counts) == 0:
            return 0.0, None
        value = llr(counts, self.elo0, self.elo1, self.model)
        lower, upper = bounds(self.alpha, self.beta)
        if value >= upper or (self.capped(counts) and value > 0):
            return value, "H1"
        if value <= lower or self.capped(counts):
            return value, "H0"
        return value, None

    def describe(self, counts: Sequence[float]) -> str:
        value, decided = self.verdict(counts)
        lower, upper = bounds(self.alpha, self.beta)
        unit = "nElo" if self.model == "normalized" else "Elo"
        outcome = {"H1": f"H1 accepted (at least {self.elo1:g} {unit})",
                   "H0": f"H0 accepted (not more than {self.elo0:g} {unit})", None: "undecided"}[decided]
        if decided and self.by_cap(counts, value):
            outcome += f" at the cap of {self.cap} games, by the LLR's sign"
        cap = f", cap {self.cap} games" if self.cap else ""
        return (f"SPRT [{self.elo0:g}, {self.elo1:g}] {unit}, alpha {self.alpha:g}, beta {self.beta:g}{cap}: "
                f"LLR {value:.2f} ({lower:.2f}, {upper:.2f}), {outcome}")
