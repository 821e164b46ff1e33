"""Frozen builds (engine/tools/frozen.py; the ``nmm@REV`` spec of
engine/tools/engines.py): the spec's name, label and command; a clear error
for a revision git does not know; and a worktree's life in a small repository
of the test's own, built by a fake command that counts its runs: checked out
and built once, found the second time, built once when two callers come at
the same time (the lock), built again when its build failed, its worktree was
deleted or another Python built it. Nothing is compiled."""
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from engine.tools import frozen
from engine.tools.engines import here, parse_spec

# The fake build: after argv[2] seconds, one more "x" in the file argv[1].
COUNTING = ("import pathlib, sys, time; time.sleep(float(sys.argv[2])); p = pathlib.Path(sys.argv[1]); "
            "p.write_text((p.read_text() if p.exists() else '') + 'x')")


def fake_build(counter: Path, seconds: float = 0.0) -> list[str]:
    """A build command that counts its runs in ``counter``."""
    return [sys.executable, "-c", COUNTING, str(counter), str(seconds)]


def builds(counter: Path) -> int:
    return len(counter.read_text()) if counter.exists() else 0


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org",
                           "-c", "commit.gpgsign=false", *args], check=True, capture_output=True, text=True)
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository of one commit, whose uci_main.py says which file it is."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q")
    (path / "uci_main.py").write_text("print('frozen uci_main')\n")
    git(path, "add", "uci_main.py")
    git(path, "commit", "-q", "-m", "one")
    return path


@pytest.fixture
def counter(tmp_path: Path) -> Path:
    return tmp_path / "builds.txt"


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch, repo: Path, tmp_path: Path, counter: Path) -> Path:
    """parse_spec's frozen builds come from ``repo``, under tmp/frozen, by the fake build."""
    monkeypatch.setattr(frozen, "REPO", repo)
    monkeypatch.setattr(frozen, "ROOT", tmp_path / "frozen")
    monkeypatch.setattr(frozen, "BUILD", tuple(fake_build(counter)))
    return tmp_path / "frozen"


def test_spec_is_named_by_its_commit(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    sha = "abc1234" + "5" * 33
    monkeypatch.setattr(frozen, "checkout", lambda rev, tune=False: (sha, tmp_path / (sha + "+tune" * tune)))
    spec = parse_spec("nmm@abc1234:Hash=8")
    assert spec.name == "nmm@abc1234"
    assert spec.label == "nmm@abc1234(Hash=8)"
    assert spec.options == {"Hash": "8"}
    assert spec.command == [sys.executable, str(tmp_path / sha / "uci_main.py")]
    assert parse_spec("nmm@abc1234:SEEPruning=true").label == "nmm@abc1234(SEEPruning=true)"
    assert parse_spec("nmm@abc1234").label == "nmm@abc1234"
    # The label is the commit's, whatever named it: HEAD today is not HEAD tomorrow.
    assert parse_spec("nmm@HEAD").label == "nmm@abc1234"
    # On a Ray worker the command stays as given (not the worker's own build of the package).
    assert here(spec).command == spec.command
    assert parse_spec("nmm:Hash=8").label == "nmm(Hash=8)"     # the live engine as before
    # The tuning build (issue 43): a worktree and a name of its own.
    tuned = parse_spec("nmm@abc1234+tune:RFP_MARGIN=90")
    assert tuned.label == "nmm@abc1234+tune(RFP_MARGIN=90)"
    assert tuned.command == [sys.executable, str(tmp_path / (sha + "+tune") / "uci_main.py")]


def test_unknown_revision_is_a_clear_error(small: Path, counter: Path) -> None:
    for spec in ("nmm@abc1234:Hash=8", "nmm@no-such-branch", "nmm@", "nmm@--all"):
        with pytest.raises(frozen.FrozenBuildError) as error:
            parse_spec(spec)
        assert spec.split(":")[0] in error.value.format_message()
    assert "is no commit" in str(pytest.raises(frozen.FrozenBuildError, frozen.resolve, "abc1234").value)
    assert builds(counter) == 0 and not any(small.glob("*/"))


def test_worktree_is_built_once_then_found(repo: Path, tmp_path: Path, counter: Path) -> None:
    root = tmp_path / "frozen"
    sha, path = frozen.checkout("HEAD", repo, root, fake_build(counter))
    assert sha == git(repo, "rev-parse", "HEAD") and path == root / sha
    assert (path / "uci_main.py").exists() and builds(counter) == 1
    assert str(path) in git(repo, "worktree", "list")
    assert frozen.checkout(sha[:7], repo, root, fake_build(counter)) == (sha, path)
    assert builds(counter) == 1
    assert git(path, "status", "--porcelain") == ""      # the build's mark lies beside the worktree, not in it
    # The tuning build of the same commit: another worktree, built by its own command.
    tuned_sha, tuned = frozen.checkout("HEAD", repo, root, fake_build(counter), tune=True)
    assert (tuned_sha, tuned) == (sha, root / f"{sha}+tune") and builds(counter) == 2
    assert frozen.TUNE_BUILD[:2] == ("env", "NMM_TUNE=1") and frozen.TUNE_BUILD[2:] == frozen.BUILD


def test_spec_runs_the_worktree(small: Path, repo: Path, counter: Path) -> None:
    sha = git(repo, "rev-parse", "HEAD")
    spec = parse_spec(f"nmm@{sha[:10]}:SEEPruning=true")
    assert spec.label == f"nmm@{sha[:7]}(SEEPruning=true)"
    assert spec.command == [sys.executable, str(small / sha / "uci_main.py")]
    assert subprocess.run(spec.command, capture_output=True, text=True).stdout == "frozen uci_main\n"
    assert parse_spec(f"nmm@{sha[:7]}").command == spec.command and builds(counter) == 1


def test_two_callers_build_once(repo: Path, tmp_path: Path, counter: Path) -> None:
    """The second caller waits on the lock and finds the first one's build;
    while someone holds the lock, nobody builds."""
    root = tmp_path / "frozen"
    root.mkdir()
    sha = frozen.resolve("HEAD", repo)
    results: list[tuple[str, Path] | BaseException] = []

    def use() -> None:
        try:
            results.append(frozen.checkout("HEAD", repo, root, fake_build(counter, 0.3)))
        except BaseException as e:      # noqa: BLE001 (the test reads it)
            results.append(e)
    callers = [threading.Thread(target=use) for _ in range(2)]
    with frozen.locked(root / f"{sha}.lock"):
        for caller in callers:
            caller.start()
        time.sleep(0.5)
        assert builds(counter) == 0 and all(caller.is_alive() for caller in callers)
    for caller in callers:
        caller.join(timeout=60)
    assert results == [(sha, root / sha)] * 2
    assert builds(counter) == 1


def test_failed_build_is_reported_and_tried_again(repo: Path, tmp_path: Path, counter: Path) -> None:
    root = tmp_path / "frozen"
    broken = [sys.executable, "-c", "import sys; print('cython: no compiler'); sys.exit(3)"]
    with pytest.raises(frozen.FrozenBuildError) as error:
        frozen.checkout("HEAD", repo, root, broken)
    assert "build of" in error.value.format_message() and "cython: no compiler" in error.value.format_message()
    frozen.checkout("HEAD", repo, root, fake_build(counter))
    assert builds(counter) == 1


def test_rebuilt_when_gone_or_built_by_another_python(repo: Path, tmp_path: Path, counter: Path) -> None:
    root = tmp_path / "frozen"
    sha, path = frozen.checkout("HEAD", repo, root, fake_build(counter))
    frozen.built_mark(path).write_text("cpython-39 python setup.py build_ext\n")
    frozen.checkout("HEAD", repo, root, fake_build(counter))
    assert builds(counter) == 2
    subprocess.run(["rm", "-rf", str(path)], check=True)       # deleted by hand, still registered in git
    assert frozen.checkout("HEAD", repo, root, fake_build(counter)) == (sha, path)
    assert (path / "uci_main.py").exists() and builds(counter) == 3
