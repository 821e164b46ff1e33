"""The playing engine stands on its own floor: it imports nothing from the
lab (engine/data, engine/train, engine/study, engine/tools), which imports
from it. Checked twice: by reading every floor module's imports (the
graph), and by running the engine as a GUI does, every file option set, and
listing what the interpreter loaded."""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from engine.evaluation.nnue import BUCKETS, INPUTS, quantise, save_nnue
from engine.nets import TdNet, save_td
from uci_client import HANG_GUARD, REPO, errors_in

LAB = ("engine.data", "engine.train", "engine.study", "engine.tools")
FLOOR = sorted([*(REPO / "engine").glob("*.py"), *(REPO / "engine" / "evaluation").glob("*.py")])


def is_lab(module: str) -> bool:
    return any(module == lab or module.startswith(lab + ".") for lab in LAB)


def imported(path: Path) -> set[str]:
    """Every module a file imports, at its top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def test_no_floor_module_imports_the_lab() -> None:
    assert len(FLOOR) > 10
    upward = {f"{path.relative_to(REPO)} -> {name}" for path in FLOOR for name in imported(path) if is_lab(name)}
    assert not upward, sorted(upward)


# The floors from the ground up: the playing engine, then the lab's (data, the
# trainers, the tools that play and measure, the studies), then the command line.
FLOORS = ("engine", "engine.data", "engine.train", "engine.tools", "engine.study", "engine.cli")


def floor_of(module: str) -> int:
    """The floor of a module of the package (its first two names)."""
    package = ".".join(module.split(".")[:2])
    return FLOORS.index(package) if package in FLOORS else 0


def test_the_import_graph_has_no_arrow_going_up() -> None:
    upward = []
    for path in (REPO / "engine").rglob("*.py"):
        module = ".".join(path.relative_to(REPO).with_suffix("").parts)
        upward += [f"{module} -> {name}" for name in imported(path)
                   if name.startswith("engine.") and floor_of(name) > floor_of(module)]
    assert not upward, sorted(upward)


# The engine as uci_main.py starts it (engine.cli's main: UCI on stdin), with
# the modules loaded written out as it leaves (by os._exit, after quit).
RUN_ENGINE = """
import json, os, sys
repo, listing = sys.argv[1:3]
sys.path.insert(0, repo)
leave = os._exit
def write_modules_and_leave(code):
    open(listing, "w").write(json.dumps(sorted(sys.modules)))
    leave(code)
os._exit = write_modules_and_leave
sys.argv = ["nmm-chess"]
from engine.cli import main
main()
"""


def tiny_td_net(path: Path) -> None:
    """A TD net this engine accepts (base none, so no fingerprint to match)."""
    inputs = 62
    save_td(TdNet("A", np.zeros((1, inputs, 0), np.float32), np.zeros((1, 0), np.float32),
                  np.full((1, inputs), 1e-3, np.float32), np.zeros(1, np.float32), 300.0, {}), path)


def tiny_nnue(path: Path) -> None:
    rng = np.random.default_rng(1)
    save_nnue(quantise(rng.uniform(-0.5, 0.5, (INPUTS, 64)), np.zeros(64), rng.uniform(-1, 1, (BUCKETS, 128)),
                       np.zeros(BUCKETS), 400.0), path)


def run_engine(script: list[str], folder: Path) -> tuple[list[str], set[str]]:
    """The engine's output for ``script`` (cleanly ended, no error) and the modules it loaded."""
    modules = folder / "modules.json"
    done = subprocess.run([sys.executable, "-c", RUN_ENGINE, str(REPO), str(modules)], input="\n".join(script),
                          capture_output=True, text=True, cwd=folder, timeout=HANG_GUARD)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    out = done.stdout.splitlines()
    assert not errors_in(out), errors_in(out)
    return out, set(json.loads(modules.read_text()))


def test_the_engine_with_every_file_option_loads_no_lab_module(tmp_path: Path) -> None:
    nets = REPO / "nets"
    tiny_td_net(tmp_path / "td.npz")
    tiny_nnue(tmp_path / "nnue.npz")
    (tmp_path / "book.bin").write_bytes(bytes(12) + bytes(4))     # one entry, of key 0: no position of the game
    script = [
        "uci",
        f"setoption name NMMFile value {nets / 'nmm.npz'}", "setoption name MoveOrdering value weighted",
        f"setoption name RegionsFile value {nets / 'regions.npz'}", "setoption name ChessMapsRegions value net",
        f"setoption name StrategyFile value {nets / 'strategy.npz'}", "setoption name ForwardPruning value true",
        f"setoption name MoveTablesFile value {tmp_path / 'tables.npz'}", "setoption name MoveTables value true",
        f"setoption name EvalFile value {tmp_path / 'td.npz'}", "setoption name Eval value td",
        f"setoption name NnueFile value {tmp_path / 'nnue.npz'}",
        f"setoption name BookFile value {tmp_path / 'book.bin'}", "setoption name OwnBook value true",
        "isready", "position startpos moves e2e4", "go depth 5", "eval", "nmm", "d", "bench 2",
        "ucinewgame", "position startpos", "go depth 3", "isready", "quit"]
    out, loaded = run_engine(script, tmp_path)
    assert sum(line.startswith("bestmove") for line in out) == 2
    assert any(line.startswith("info string nmm ") for line in out)           # the net was read
    assert (tmp_path / "tables.npz").exists()                                   # the move tables written
    assert {"engine.uci", "engine.nets", "engine.memory", "engine.evaluation.explain", "engine.book"} <= set(loaded)
    assert [name for name in loaded if is_lab(name)] == []
    # The other net: Eval nnue, its eval and a search.
    out, loaded = run_engine(["uci", f"setoption name NnueFile value {tmp_path / 'nnue.npz'}",
                              "setoption name Eval value nnue", "isready", "position startpos moves e2e4", "eval",
                              "go depth 5", "isready", "quit"], tmp_path)
    assert any(line.startswith("NNUE: ") for line in out) and sum(line.startswith("bestmove") for line in out) == 1
    assert "engine.evaluation.nnue" in loaded and [name for name in loaded if is_lab(name)] == []
