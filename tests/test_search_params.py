"""The search's constants are declared once (engine/search_params.py, issue
43): the playing build compiles them in and lists no option for them; the
tuning build (NMM_TUNE=1) makes each an option and, at the defaults, searches
exactly as the playing build does. The tuning build's own check compiles the
core again (minutes): it is slow (``make test-all``)."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from uci_client import REPO

from engine._core import search_params, set_search_param, tuning_build
from engine.options import TUNING, tuning_options
from engine.search_params import (CLOCK, CLOCK_PARAMS, CORE, CORE_PARAMS, DOCS, GROUPS, PARAMS_BY_NAME,
                                  SEARCH_PARAMS, UCI_SCALE, header, in_group, markdown, pxi, tune_from_env)
from engine.timeman import allot, clock_params, set_clock_param
from engine.session import Session

from test_tournament import BENCH_SIGNATURE
pytestmark = pytest.mark.skipif(tuning_build(), reason="these check the playing build")


def test_docs_search_params_md_is_the_table() -> None:
    """If this fails, run ``make docs`` (python -m engine.search_params docs) and commit docs/search_params.md."""
    assert DOCS.read_text() == markdown()


def test_every_constant_is_declared_whole() -> None:
    assert len(PARAMS_BY_NAME) == len(SEARCH_PARAMS)
    for p in SEARCH_PARAMS:
        assert re.fullmatch(r"[A-Z][A-Z0-9_]*", p.name), p.name
        assert type(p.min) is type(p.max) is type(p.default), p.name
        assert p.min <= p.default <= p.max and p.min < p.max, p.name
        assert 0 < p.c_end <= p.max - p.min and p.r_end > 0, p.name
        assert p.group in GROUPS and p.help and "|" not in p.help and p.where in (CORE, CLOCK), p.name
        # The UCI spin reads back as the default, exactly (a float in hundredths).
        assert p.from_uci(p.uci_default) == p.default, p.name
    assert sum(len(in_group(g)) for g in GROUPS) == len(SEARCH_PARAMS)
    assert all(round(p.default * UCI_SCALE) == p.default * UCI_SCALE for p in SEARCH_PARAMS if p.is_float)


def test_the_playing_build_compiles_in_the_tables_defaults() -> None:
    """The core built from this table: a stale build (or a changed default) fails here."""
    assert not tuning_build()
    values = search_params()
    assert list(values) == [p.name for p in CORE_PARAMS]
    for p in CORE_PARAMS:
        assert values[p.name] == p.default and type(values[p.name]) is type(p.default), p.name


def test_the_playing_build_sets_no_constant() -> None:
    with pytest.raises(ValueError, match="compile-time"):
        set_search_param("RFP_MARGIN", 90)
    with pytest.raises(ValueError, match="no search constant"):
        set_search_param("NO_SUCH_CONSTANT", 1)
    assert search_params()["RFP_MARGIN"] == 80


def test_the_playing_uci_list_has_no_tuning_option() -> None:
    assert tuning_options() == ()
    for research in (False, True):
        lines: list[str] = []
        Session(lines.append, research=research).uci([])
        assert not [line for line in lines if line.split()[2:3] and line.split()[2] in PARAMS_BY_NAME]
    assert all(o.group != TUNING for o in Session(print).options)


@pytest.mark.parametrize("tune", [False, True])
def test_the_header_defines_each_constant_once(tune: bool) -> None:
    text = header(tune)
    for p in CLOCK_PARAMS:             # Python's, not the core's
        assert p.name not in text and p.name not in pxi()
    for p in CORE_PARAMS:
        defines = re.findall(rf"^#define {p.name} (.+)$", text, re.M)
        assert defines == [f"nmm_tune_{p.name}" if tune else f"({p.default!r})"], p.name
        assert (f"static {p.c_type} nmm_tune_{p.name} = ({p.default!r});" in text) == tune, p.name
        assert f"    {p.c_type} {p.name}\n" in pxi()
    assert f"#define NMM_TUNE {int(tune)}" in text


def test_the_clock_constants_are_the_time_managers() -> None:
    """The time manager reads its constants from the table, and a set one
    moves the allotment; a refused value leaves it."""
    assert CLOCK_PARAMS and clock_params() == {p.name: p.default for p in CLOCK_PARAMS}
    before = allot(60_000, 0, None, 30)
    try:
        set_clock_param("TM_MOVES_TO_GO", 20)
        assert allot(60_000, 0, None, 30)[0] > before[0]
        set_clock_param("TM_HARD_FACTOR", 2.0)
        soft, hard = allot(60_000, 0, None, 30)
        assert hard == round(2.0 * soft, 1)
        for bad in (("TM_MOVES_TO_GO", 10), ("TM_MOVES_TO_GO", 20.5), ("RFP_MARGIN", 90), ("TM_NOPE", 1)):
            with pytest.raises(ValueError):
                set_clock_param(*bad)
        assert clock_params()["TM_MOVES_TO_GO"] == 20
    finally:
        for p in CLOCK_PARAMS:
            set_clock_param(p.name, p.default)
    assert allot(60_000, 0, None, 30) == before


def test_the_build_flag() -> None:
    assert tune_from_env({"NMM_TUNE": "1"}) and not tune_from_env({}) and not tune_from_env({"NMM_TUNE": "0"})


def test_spsa_params_are_in_uci_units() -> None:
    from engine.tools.tune import parse_param
    for p in SEARCH_PARAMS:
        parsed = parse_param(p.spsa())
        assert (parsed.name, parsed.start, parsed.lo, parsed.hi) == (p.name, p.uci_default, p.uci_min, p.uci_max)


def test_spsa_line_joins_groups_and_takes_a_learning_rate() -> None:
    from engine.search_params import in_group, spsa_line
    from engine.tools.tune import parse_param
    joined = [parse_param(t) for t in spsa_line("pruning,see", 0.02).split()]
    assert [p.name for p in joined] == [p.name for p in SEARCH_PARAMS if p.group in ("pruning", "see")]
    assert {p.r_end for p in joined} == {0.02}
    assert {parse_param(t).r_end for t in spsa_line("history").split()} == {0.002}
    # A constant may stand for itself beside whole groups; the table's order holds.
    assert [p.name for p in in_group("TM_SETTLED,see,TM_UNSTABLE")] == \
        [p.name for p in SEARCH_PARAMS if p.group == "see" or p.name in ("TM_SETTLED", "TM_UNSTABLE")]
    with pytest.raises(ValueError, match="no group or constant 'prunning'"):
        in_group("see,prunning")


def test_tuned_reads_the_moved_constants_of_a_run(tmp_path: Path) -> None:
    from engine.search_params import tuned, tuned_spec, tuned_table
    state = tmp_path / "state.json"
    state.write_text('{"theta": {"RFP_MARGIN": 86.6, "NMP_BASE": 3.2, "LMR_DIVISOR": 231.4, "Other": 5}}')
    assert tuned(state) == {"RFP_MARGIN": 87, "LMR_DIVISOR": 231}     # NMP_BASE rounds back to 3
    assert tuned_spec(state) == "RFP_MARGIN=87,LMR_DIVISOR=231"
    assert "| `LMR_DIVISOR` | 2.25 | 2.31 |" in tuned_table(state).splitlines()


def test_tuned_can_keep_only_the_constants_moved_beyond_noise(tmp_path: Path) -> None:
    from engine.search_params import main, tuned
    state = tmp_path / "state.json"
    # The run's own starts and steps (config) count; a constant it did not list has the table's.
    state.write_text(json.dumps({
        "config": {"params": [{"name": "LMR_DIVISOR", "start": 225, "c_end": 15},
                              {"name": "LMR_PV", "start": 1, "c_end": 1},
                              {"name": "LMR_CUT_NODE", "start": 1, "c_end": 1}]},
        "theta": {"LMR_DIVISOR": 252.8, "LMR_PV": 0.49, "LMR_CUT_NODE": 2.27, "RFP_MARGIN": 86.6}}))
    assert tuned(state) == {"LMR_DIVISOR": 253, "LMR_PV": 0, "LMR_CUT_NODE": 2, "RFP_MARGIN": 87}
    # 0.51 of LMR_PV's step and 0.66 of RFP_MARGIN's (10) are noise at one step; 1.85 and 1.27 are not.
    assert tuned(state, min_steps=1.0) == {"LMR_DIVISOR": 253, "LMR_CUT_NODE": 2}
    assert tuned(state, min_steps=2.0) == {}


def test_tuned_can_read_the_mean_of_the_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from engine.search_params import main, tuned
    state = tmp_path / "state.json"
    # The end point (74.0) is one noisy step; the mean of steps 2-4 is (66 + 70 + 74) / 3 = 70.
    path = [{"k": 1, "result": 0, "TM_NEXT_ITERATION": 61.0}, {"k": 2, "result": 2, "TM_NEXT_ITERATION": 66.0},
            {"k": 3, "result": -1, "TM_NEXT_ITERATION": 70.0}, {"k": 4, "result": 1, "TM_NEXT_ITERATION": 74.0}]
    state.write_text(json.dumps({
        "config": {"params": [{"name": "TM_NEXT_ITERATION", "start": 60, "c_end": 4}]},
        "theta": {"TM_NEXT_ITERATION": 74.0}, "history": path}))
    assert tuned(state) == {"TM_NEXT_ITERATION": 74}
    assert tuned(state, mean_from=2) == {"TM_NEXT_ITERATION": 70}
    assert tuned(state, min_steps=3.0, mean_from=2) == {}            # 10 from the start: 2.5 steps
    main(["tuned", str(state), "--mean-from", "3"])
    assert capsys.readouterr().out.strip() == "TM_NEXT_ITERATION=72"
    with pytest.raises(ValueError, match="no steps from 5"):
        tuned(state, mean_from=5)


# --- the tuning build (slow: the core is compiled again) --------------------------------

def tuning_copy(folder: Path) -> Path:
    """The working tree's sources in ``folder``, built with NMM_TUNE=1 (the
    playing build's files beside it are not touched)."""
    for name in ("setup.py", "uci_main.py", "pyproject.toml"):
        shutil.copy(REPO / name, folder / name)
    ignore = shutil.ignore_patterns("*.so", "*.c", "__pycache__", "search_params.h", "search_params.pxi")
    for name in ("engine", "ext", "nets"):
        shutil.copytree(REPO / name, folder / name, ignore=ignore)
    env = {**os.environ, "NMM_TUNE": "1"}
    subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace", "-q"], cwd=folder, env=env,
                   check=True, capture_output=True)
    return folder


def engine_says(folder: Path, *lines: str) -> list[str]:
    done = subprocess.run([sys.executable, "uci_main.py"], cwd=folder, input="\n".join(lines) + "\nquit\n",
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return done.stdout.splitlines()


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_the_tuning_build_at_its_defaults_is_the_playing_build(tmp_path: Path) -> None:
    folder = tuning_copy(tmp_path)
    out = engine_says(folder, "uci", "bench")
    options = [line for line in out if line.startswith("option name ")]
    for p in SEARCH_PARAMS:
        assert f"option name {p.name} type spin default {p.uci_default} min {p.uci_min} max {p.uci_max}" in options
    assert out[-1].split()[0] == str(BENCH_SIGNATURE)
    changed = engine_says(folder, "setoption name RFP_MARGIN value 100", "bench")
    assert changed[-1].split()[0] != str(BENCH_SIGNATURE)
    refused = engine_says(folder, "setoption name RFP_MARGIN value 1000", "bench")
    assert any(line.startswith("info string error") for line in refused)
    assert refused[-1].split()[0] == str(BENCH_SIGNATURE)
    # The reduction table follows LMR_BASE and LMR_DIVISOR.
    lmr = engine_says(folder, "setoption name LMR_DIVISOR value 200", "bench")
    assert lmr[-1].split()[0] != str(BENCH_SIGNATURE)
    # A clock constant is an option too, and refused out of its range.
    clock = engine_says(folder, "setoption name TM_MOVES_TO_GO value 5", "setoption name TM_HARD_FACTOR value 300",
                        "isready")
    assert sum(line.startswith("info string error") for line in clock) == 1 and clock[-1] == "readyok"
