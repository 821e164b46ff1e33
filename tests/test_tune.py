"""nmm-chess tune: SPSA's arithmetic on a known optimum, its resume, and a
short real run through the command line."""
import json
import math
import random

import pytest
from click.testing import CliRunner

from engine.cli import main
from engine.tools import tune

from conftest import RAY_HANG_GUARD


def noisy_pair(target: dict[str, float], seed: int):
    """A game pair's wins minus losses for the plus side: each game won with a
    probability that grows as plus is nearer the optimum than minus."""
    rng = random.Random(seed)

    def play(plus, minus, k):
        gap = sum(abs(minus[n] - t) - abs(plus[n] - t) for n, t in target.items()) / 10
        p_win = 1 / (1 + math.exp(-gap))
        return float(sum(1 if rng.random() < p_win else -1 for _ in range(2)))
    return play


def test_parameters_are_parsed_and_checked():
    assert tune.parse_param("X=5,0,10,1,0.01") == tune.Param("X", 5, 0, 10, 1, 0.01)
    for bad in ("X=5,0,10,1", "X=11,0,10,1,0.01", "X=5,0,10,0,0.01", "X"):
        with pytest.raises(ValueError):
            tune.parse_param(bad)


def test_spsa_walks_towards_the_optimum(tmp_path):
    params = [tune.parse_param("X=20,0,100,4,0.02"), tune.parse_param("Y=80,0,100,4,0.02")]
    state = tune.tune(params, 300, noisy_pair({"X": 60, "Y": 40}, 3), tmp_path / "s.json", log=lambda *a: None)
    assert abs(state["theta"]["X"] - 60) < 20 and abs(state["theta"]["Y"] - 40) < 20
    assert len(state["history"]) == 300 and all(0 <= h["X"] <= 100 for h in state["history"])


def test_a_killed_run_goes_on_to_the_same_result(tmp_path):
    params = [tune.parse_param("X=20,0,100,4,0.02")]
    whole = tune.tune(params, 12, noisy_pair({"X": 60}, 5), tmp_path / "whole.json", log=lambda *a: None)
    real = noisy_pair({"X": 60}, 5)
    calls = {"n": 0}

    def dying(plus, minus, k):
        calls["n"] += 1
        if calls["n"] == 7:
            raise KeyboardInterrupt
        return real(plus, minus, k)
    with pytest.raises(KeyboardInterrupt):
        tune.tune(params, 12, dying, tmp_path / "killed.json", log=lambda *a: None)
    assert json.loads((tmp_path / "killed.json").read_text())["k"] == 6
    resumed = tune.tune(params, 12, real, tmp_path / "killed.json", log=lambda *a: None)
    assert resumed["theta"] == whole["theta"]
    with pytest.raises(ValueError, match="another tuning run"):
        tune.tune(params, 13, real, tmp_path / "killed.json", log=lambda *a: None)


def test_a_short_real_tuning_run(tmp_path, two_openings):
    openings = two_openings
    out = tmp_path / "tune"
    result = CliRunner().invoke(main, ["tune", "NMMMinDepth=3,0,10,1,0.05", "--iterations", "2", "--pairs", "1",
                                       "--depth", "1", "--openings", str(openings), "--out", str(out)])
    assert result.exit_code == 0, result.output
    state = json.loads((out / "state.json").read_text())
    assert state["k"] == 2 and 0 <= state["theta"]["NMMMinDepth"] <= 10
    assert len((out / "tune.csv").read_text().splitlines()) == 3 and (out / "tune.png").exists()
    assert "tuned: NMMMinDepth=" in result.output
    bad = CliRunner().invoke(main, ["tune", "NoSuchOption=3,0,10,1,0.05", "--out", str(out / "x")])
    assert bad.exit_code != 0 and "no option NoSuchOption" in bad.output


def test_fixed_nodes_tuning_repeats_itself(tmp_path, two_openings):
    """``--nodes``: each move a search of that many nodes, so a run (its games,
    its path) is the same on a busy machine as on an idle one."""
    args = ["tune", "NMMMinDepth=3,0,10,2,0.05", "--iterations", "2", "--pairs", "1", "--nodes", "300",
            "--openings", str(two_openings)]
    runs = []
    for name in ("one", "two"):
        result = CliRunner().invoke(main, args + ["--out", str(tmp_path / name)])
        assert result.exit_code == 0, result.output
        runs.append(json.loads((tmp_path / name / "state.json").read_text()))
    assert runs[0]["k"] == 2 and runs[0]["history"] == runs[1]["history"]


@pytest.mark.timeout(RAY_HANG_GUARD)
def test_a_tuning_step_on_a_local_ray_cluster(tmp_path, two_openings):
    pytest.importorskip("ray")
    openings = two_openings
    args = ["tune", "NMMMinDepth=3,0,10,2,0.05", "--iterations", "2", "--pairs", "2", "--depth", "2",
            "--openings", str(openings)]
    assert CliRunner().invoke(main, args + ["--out", str(tmp_path / "here")]).exit_code == 0
    result = CliRunner().invoke(main, args + ["--out", str(tmp_path / "ray"), "--cluster", "local"])
    assert result.exit_code == 0, result.output
    here, there = (json.loads((tmp_path / d / "state.json").read_text()) for d in ("here", "ray"))
    assert there["k"] == 2 and there["history"] == here["history"]      # fixed depth: the same games


def test_the_report_of_a_run_in_progress(tmp_path):
    params = [tune.parse_param("X=20,0,100,4,0.02"), tune.parse_param("Y=80,0,100,4,0.02")]
    seen = []
    tune.tune(params, 3, noisy_pair({"X": 60, "Y": 40}, 3), tmp_path / "state.json", log=lambda *a: None,
              on_step=lambda state: seen.append(state["k"]))
    assert seen == [1, 2, 3]
    tune.write_report(json.loads((tmp_path / "state.json").read_text()), tmp_path)
    rows = (tmp_path / "tune.csv").read_text().splitlines()
    assert rows[0] == "k,result,X,Y" and [r.split(",")[0] for r in rows[1:]] == ["1", "2", "3"]
    assert (tmp_path / "tune.png").stat().st_size > 1000
