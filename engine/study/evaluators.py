"""``nmm-chess study evaluators``: the thesis's tournament of evaluators (Mannen,
Tables 6.3-6.6), rerun with this engine.

Eight evaluators play a round robin, every pair on the same openings with
both colours: a-f are TD nets (features A, B or C; one net or three phase
nets), g the linear net over features B, h the handwritten evaluation; and,
beyond the thesis, i: phase nets over features C learning a correction to h. The
thesis searched 2 plies plus captures and checks; here ``--depth 2`` is the
engine's 2-ply search with its quiescence search, and ``--tc`` plays the same
tournament at a real time control.

The tournament is engine/tools/tournament.py's: each pair's games are kept
in ``<out>/pairs.json`` as they finish, so an interrupted tournament resumes
where it stopped; the crosstable and each evaluator's Elo against the field
(95% error bar) are written as CSV, text and PNG, beside the thesis's Table
6.6.
"""
from __future__ import annotations

import json
from pathlib import Path

from engine.tools import tournament
from engine.tools.engines import KNOWN, EngineSpec
from engine.tools.match import load_openings

# name: (what it is, how it is trained: TdConfig fields beside the defaults)
EVALUATORS = {
    "a": ("1 net, features A", {"squares": "A", "nets": 1}),
    "b": ("3 phase nets, features A", {"squares": "A", "nets": 3}),
    "c": ("1 net, features B", {"squares": "B", "nets": 1}),
    "d": ("3 phase nets, features B", {"squares": "B", "nets": 3}),
    "e": ("1 net, features C", {"squares": "C", "nets": 1}),
    "f": ("3 phase nets, features C", {"squares": "C", "nets": 3}),
    "g": ("1 linear net, features B", {"squares": "B", "nets": 1, "hidden": 0}),
    "h": ("handwritten", None),
    # Beyond the thesis: a correction to the handwritten evaluation (the shipped net's recipe).
    "i": ("3 phase nets, features C, on h", {"squares": "C", "nets": 3, "base": "handwritten"}),
}
HIDDEN = 40         # the thesis tried 40, 60 and 80; 40 is the fastest in search
# The thesis's Table 6.6: points of 70 and the score it gives.
THESIS = {"a": (39.0, 8), "b": (39.5, 9), "c": (42.0, 14), "d": (51.5, 33), "e": (15.5, -39),
          "f": (20.5, -29), "g": (37.5, 5), "h": (34.5, -1)}


def net_path(nets_dir: Path, name: str) -> Path:
    return nets_dir / f"{name}.npz"


def train_missing(nets_dir: Path, games_file: Path, names: list[str], epochs: int, seed: int,
                  log=print) -> None:
    """Train the nets of ``names`` that ``nets_dir`` lacks (each resumes if interrupted)."""
    from engine.train.td_run import TdConfig, train
    for name in names:
        what, fields = EVALUATORS[name]
        path = net_path(nets_dir, name)
        if fields is None or path.exists():
            continue
        log(f"training {name}: {what}")
        config = TdConfig(**{"hidden": HIDDEN, "epochs": epochs, "seed": seed, **fields})
        summary = train(games_file, path, path.with_suffix(".work"), config, log=log)
        path.with_suffix(".json").write_text(json.dumps(summary, indent=2))


def spec_of(name: str, nets_dir: Path) -> EngineSpec:
    if EVALUATORS[name][1] is None:
        return EngineSpec(name, KNOWN["nmm"], {"Eval": "handwritten"})
    return EngineSpec(name, KNOWN["nmm"], {"Eval": "td", "EvalFile": str(net_path(nets_dir, name).resolve())})


def run(nets_dir: Path, out: Path, names: list[str], games: int, openings_path: Path, seed: int,
        depth: int | None, tc: str, concurrency: int, log=print) -> str:
    """Play every pair of ``names`` ``games`` times (half the openings, both colours)."""
    missing = [n for n in names if EVALUATORS[n][1] is not None and not net_path(nets_dir, n).exists()]
    if missing:
        raise FileNotFoundError(f"no net for {', '.join(missing)} in {nets_dir} "
                                f"(train them: see EVALUATORS in engine/study/evaluators.py)")
    out.mkdir(parents=True, exist_ok=True)
    openings = load_openings(openings_path, (games + 1) // 2, seed)
    base, _, inc = tc.partition("+")
    specs = {name: spec_of(name, nets_dir) for name in names}
    pairs = tournament.play(specs, tournament.schedule(names), openings, float(base), float(inc or 0),
                            concurrency, depth, out / "pairs.json", log)
    setting = f"depth {depth} + quiescence" if depth else f"{tc} s"
    return tournament.write_reports(out, pairs, names, f"Evaluators' round robin, {setting}",
                                    {n: EVALUATORS[n][0] for n in names},
                                    {"": "thesis (of 70)", **{n: f"{THESIS[n][0]:g}" for n in names if n in THESIS}})
