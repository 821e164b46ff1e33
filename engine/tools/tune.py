"""``nmm-chess tune``: numeric UCI options tuned by games, with SPSA.

SPSA (Spall's simultaneous perturbation stochastic approximation), run the
way fishtest runs it, because it needs only two engines per step however
many options move, and is at home with the noise of game results (a
Bayesian optimiser would model that noise too, but spends its effort on a
surrogate model that a few hundred noisy games per point cannot feed).

Each option is ``Name=start,min,max,c_end,r_end``: c_end is the step the
perturbation ends at, r_end the learning rate at the end (fishtest's
meaning). With N iterations, A = N / 10, alpha = 0.602, gamma = 0.101:

    c_k = c_end * N^gamma / k^gamma
    a_k = r_end * c_end^2 * (A + N)^alpha / (A + k)^alpha

Step k draws a sign d = +-1 per option, plays ``pairs`` game pairs (one
opening, both colours) of theta + c_k d against theta - c_k d, and moves
theta += a_k / c_k * (wins - losses of the plus side) * d, clipped to
[min, max]. Spin options are sent rounded. The state (k, theta, the
history) is saved after every step: a killed run started again with the same
arguments goes on from there.

>>> p = parse_param("LMRBase=100,50,200,10,0.002")
>>> p.name, p.start, [round(g, 2) for g in gains(p, k=1, iterations=100)]
('LMRBase', 100.0, [15.92, 0.8])
"""
from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from engine.data.workpool import save_json

ALPHA, GAMMA = 0.602, 0.101


@dataclass(frozen=True)
class Param:
    name: str
    start: float
    lo: float
    hi: float
    c_end: float
    r_end: float


def parse_param(text: str) -> Param:
    """``Name=start,min,max,c_end,r_end``."""
    name, eq, rest = text.partition("=")
    values = rest.split(",")
    if not eq or len(values) != 5:
        raise ValueError(f"{text!r}: an option to tune is Name=start,min,max,c_end,r_end")
    start, lo, hi, c_end, r_end = (float(v) for v in values)
    if not lo <= start <= hi or c_end <= 0 or r_end <= 0:
        raise ValueError(f"{text!r}: needs min <= start <= max and positive c_end, r_end")
    return Param(name.strip(), start, lo, hi, c_end, r_end)


def gains(p: Param, k: int, iterations: int) -> tuple[float, float]:
    """(c_k, a_k) of step ``k`` (1-based) of ``iterations``."""
    big_a = iterations / 10
    return (p.c_end * iterations ** GAMMA / k ** GAMMA,
            p.r_end * p.c_end ** 2 * (big_a + iterations) ** ALPHA / (big_a + k) ** ALPHA)


def step(params: list[Param], theta: dict[str, float], k: int, iterations: int, rng: random.Random,
         play: Callable[[dict[str, float], dict[str, float], int], float]) -> tuple[dict[str, float], float]:
    """One SPSA step: (the new theta, the plus side's wins minus losses);
    ``play(plus, minus, k)`` plays step k's games."""
    signs = {p.name: rng.choice((-1, 1)) for p in params}
    plus, minus = {}, {}
    for p in params:
        c_k, _ = gains(p, k, iterations)
        plus[p.name] = min(max(theta[p.name] + c_k * signs[p.name], p.lo), p.hi)
        minus[p.name] = min(max(theta[p.name] - c_k * signs[p.name], p.lo), p.hi)
    result = play(plus, minus, k)
    new = {}
    for p in params:
        c_k, a_k = gains(p, k, iterations)
        new[p.name] = min(max(theta[p.name] + a_k / c_k * result * signs[p.name], p.lo), p.hi)
    return new, result


def tune(params: list[Param], iterations: int, play: Callable[[dict[str, float], dict[str, float], int], float],
         state_path: Path, seed: int = 1, log: Callable[[str], None] = print,
         on_step: Callable[[dict], None] | None = None) -> dict:
    """Run (or go on with) the tuning; the state file holds everything a rerun
    needs. ``on_step(state)`` is called after each step (a report's refresh)."""
    config = {"params": [asdict(p) for p in params], "iterations": iterations, "seed": seed}
    if state_path.exists():
        state = json.loads(state_path.read_text())
        if state["config"] != config:
            raise ValueError(f"{state_path} is the state of another tuning run; remove it or give the same "
                             "arguments")
        log(f"resumed at step {state['k']} of {iterations}")
    else:
        state = {"config": config, "k": 0, "theta": {p.name: p.start for p in params}, "history": []}
    while state["k"] < iterations:
        k = state["k"] + 1
        rng = random.Random(f"{seed}:{k}")          # the same signs after a resume
        theta, result = step(params, state["theta"], k, iterations, rng, play)
        state.update(k=k, theta=theta)
        state["history"].append({"k": k, "result": result, **theta})
        save_json(state_path, state, indent=1)
        log(f"step {k}/{iterations}: {result:+g}; " + ", ".join(f"{n} {v:.4g}" for n, v in theta.items()))
        if on_step:
            on_step(state)
    return state


def option_values(params: list[Param], theta: dict[str, float], spins: set[str]) -> dict[str, str]:
    """UCI values: spin options rounded to integers."""
    return {p.name: str(round(theta[p.name])) if p.name in spins else f"{theta[p.name]:.6g}" for p in params}


def write_report(state: dict, folder: Path) -> None:
    """``tune.csv`` (one row a step: k, the result, theta) and ``tune.png``
    (each option's path) beside the state."""
    names = [p["name"] for p in state["config"]["params"]]
    (folder / "tune.csv").write_text("k,result," + ",".join(names) + "\n" + "".join(
        f"{h['k']},{h['result']:g}," + ",".join(f"{h[n]:.6g}" for n in names) + "\n" for h in state["history"]))
    plot(state, folder / "tune.png")


def plot(state: dict, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = [p["name"] for p in state["config"]["params"]]
    fig, axes = plt.subplots(len(names), 1, figsize=(7, 2.2 * len(names)), squeeze=False)
    ks = [h["k"] for h in state["history"]]
    for ax, name in zip(axes[:, 0], names):
        ax.plot(ks, [h[name] for h in state["history"]])
        ax.set(ylabel=name)
    axes[-1, 0].set_xlabel("SPSA step")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def play_pairs(spec, openings: list, pairs: int, base: float, inc: float, depth: int | None, concurrency: int,
               spins: set[str], params: list[Param], seed: int, cluster: str | None = None,
               nodes: int | None = None):
    """A ``play`` function for ``tune``: ``pairs`` openings drawn for each step,
    each with both colours, the engine with theta+ against itself with theta-;
    with ``cluster``, each pair a unit on Ray (engine/data/workpool.py);
    ``depth`` or ``nodes`` limits each move instead of the clock. A
    step counts once its pairs are all in, so a step cut short is replayed whole."""
    from engine.tools.engines import EngineSpec
    from engine.tools.match import PairUnit, play_pair, run_match
    from engine.data.workpool import run_units

    def play(plus: dict[str, float], minus: dict[str, float], k: int) -> float:
        rng = random.Random(f"{seed}:openings:{k}")        # the same openings after a resume
        chosen = rng.sample(openings, min(pairs, len(openings)))
        a = EngineSpec(spec.name + "+", spec.command, {**spec.options, **option_values(params, plus, spins)})
        b = EngineSpec(spec.name + "-", spec.command, {**spec.options, **option_values(params, minus, spins)})
        if not cluster:
            games = run_match(a, b, chosen, base, inc, concurrency, True, depth=depth, nodes=nodes).games
        else:
            games = []
            units = [(i, PairUnit.of(a, b, opening, base, inc, depth, nodes)) for i, opening in enumerate(chosen)]
            run_units(play_pair, units, set(), lambda _, found: games.extend(found), cluster=cluster)
        return float(sum(g.a_score == 1.0 for g in games) - sum(g.a_score == 0.0 for g in games))
    return play


if __name__ == "__main__":
    # python -m engine.tools.tune FOLDER: tune.csv and tune.png of FOLDER/state.json (a run in progress too)
    import sys
    folder = Path(sys.argv[1])
    write_report(json.loads((folder / "state.json").read_text()), folder)
