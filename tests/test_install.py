"""The engine as a user installs it: a wheel, started from an empty folder.

The wheel is built once per run (from the compiled core already in build/,
so it takes seconds) and installed, without its dependencies, into a folder
of its own that is put first on the path: the engine that runs is the
installed one, not this checkout, and it must find its nets inside itself.
"""
from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

import chess
import pytest

from test_tournament import BENCH_SIGNATURE
from uci_client import HANG_GUARD, errors_in

REPO = Path(__file__).resolve().parent.parent
# After a change to the core the wheel compiles it again (setup.py's build
# directory, apart from the in-place build): minutes on a busy machine.
pytestmark = pytest.mark.timeout(1200)
SHIPPED = ("nmm.npz", "nmm_cutoffs.npz", "nmm_cutoffs_h32.npz", "regions.npz", "strategy.npz", "td.npz")


@pytest.fixture(scope="session")
def installed(tmp_path_factory) -> Path:
    """The folder the wheel was installed into, once per run (shared by the
    run's test workers: the first one builds under a lock, the others find
    it done; the workers' temporary folders have the run's as parent)."""
    base = tmp_path_factory.getbasetemp()
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "wheel-install"
    root.mkdir(exist_ok=True)
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        target = root / "site"
        if not (target / ".done").exists():
            pip = [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check"]
            subprocess.run(pip + ["wheel", "--no-build-isolation", "--no-deps", "-w", str(root / "dist"),
                                  str(REPO)], check=True, capture_output=True, timeout=900)
            wheel = next((root / "dist").glob("nmm_chess-*.whl"))
            subprocess.run(pip + ["install", "--no-deps", "--no-index", "--target", str(target), str(wheel)],
                           check=True, capture_output=True, timeout=300)
            (target / ".done").touch()
    return target


def run_installed(site: Path, cwd: Path, args: list[str], stdin: str = "", home: Path | None = None):
    env = {**os.environ, "PYTHONPATH": str(site), "NMM_CHESS_HOME": str(home or cwd / "home")}
    return subprocess.run([sys.executable, "-m", "engine.cli", *args], input=stdin, capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=HANG_GUARD)


def test_the_wheel_holds_the_core_and_every_shipped_net(installed):
    nets = installed / "engine" / "shipped_nets"
    for name in SHIPPED:
        assert (nets / name).read_bytes() == (REPO / "nets" / name).read_bytes(), name
    assert list((installed / "engine").glob("_core*.so"))


def test_the_installed_engine_loads_every_net_from_an_empty_folder(installed, tmp_path):
    """Every option that reads a shipped file, set on: no message, a legal move."""
    where = run_installed(installed, tmp_path, [], "quit\n")
    assert where.returncode == 0, where.stderr
    script = "\n".join([
        "uci", "setoption name MoveOrdering value weighted", "setoption name ChessMapsRegions value net",
        "setoption name ForwardPruning value true", "setoption name Eval value td", "isready",
        "position startpos moves e2e4", "go depth 5", "isready", "quit"]) + "\n"
    done = run_installed(installed, tmp_path, [], script)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    out = done.stdout.splitlines()
    assert not errors_in(out), errors_in(out)
    assert out.count("readyok") == 2
    best = next(line for line in out if line.startswith("bestmove")).split()[1]
    board = chess.Board()
    board.push_uci("e2e4")
    assert chess.Move.from_uci(best) in board.legal_moves
    assert list(tmp_path.iterdir()) == [], "the engine wrote into the working folder"


def test_the_installed_engine_runs_the_installed_code(installed, tmp_path):
    probe = subprocess.run([sys.executable, "-c", "import engine, engine.paths as p; print(engine.__file__); "
                            "print(p.NETS_DIR)"], capture_output=True, text=True, cwd=tmp_path,
                           env={**os.environ, "PYTHONPATH": str(installed)}, timeout=HANG_GUARD)
    module, nets = probe.stdout.split()
    assert Path(module).is_relative_to(installed) and Path(nets) == installed / "engine" / "shipped_nets"


def test_the_installed_bench_is_the_repositorys(installed, tmp_path):
    done = run_installed(installed, tmp_path, ["bench"])
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == str(BENCH_SIGNATURE)


def test_a_stray_nets_folder_in_the_working_folder_does_not_replace_the_shipped_nets(installed, tmp_path):
    (tmp_path / "nets").mkdir()
    (tmp_path / "nets" / "nmm.npz").write_bytes(b"not a net")
    (tmp_path / "nets" / "td.npz").write_bytes(b"not a net")
    script = "uci\nsetoption name MoveOrdering value weighted\nsetoption name Eval value td\nisready\nquit\n"
    out = run_installed(installed, tmp_path, [], script).stdout.splitlines()
    assert not errors_in(out) and "readyok" in out
    # a relative path the user gives starts from the working folder
    script = ("uci\nsetoption name NMMFile value nets/mine.npz\n"
              "setoption name MoveOrdering value weighted\nisready\nquit\n")    # weighted reads the net
    (tmp_path / "nets" / "mine.npz").write_bytes(b"not a net either")
    out = run_installed(installed, tmp_path, [], script).stdout.splitlines()
    assert any(line.startswith("info string error: NMMFile: nets/mine.npz is not a readable weight file")
               for line in out), out


def test_move_tables_go_to_the_user_data_folder(installed, tmp_path):
    home = tmp_path / "data-home"
    script = "uci\nsetoption name MoveTables value true\nisready\nposition startpos\ngo depth 4\nisready\nquit\n"
    (tmp_path / "empty").mkdir()
    done = run_installed(installed, tmp_path / "empty", ["--research"], script, home=home)   # lists MoveTablesFile
    assert done.returncode == 0 and not errors_in(done.stdout.splitlines()), done.stdout
    assert (home / "movetables.npz").is_file()
    assert not (installed / "var").exists() and list((tmp_path / "empty").iterdir()) == []
    default = next(line for line in done.stdout.splitlines() if line.startswith("option name MoveTablesFile"))
    assert default.endswith(f"default {home / 'movetables.npz'}")
