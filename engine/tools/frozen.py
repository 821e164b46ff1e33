"""Frozen builds: the engine of one git commit, for tests that span sessions.

``nmm@REV`` (engine/tools/engines.py) plays the engine of commit REV, not the
working tree: an SPRT resumed in a later session must go on with the build its
first games were played by, and the working tree moves on in between. The
commit is checked out once as a detached worktree, ``var/frozen/<full sha>``,
and its core built there by this Python (``setup.py build_ext --inplace``);
later uses find it built. A lock beside the worktree keeps two matches started
together (the parts of one test) from checking out or building it at once:
the second waits and then finds the first one's build.

``nmm@REV+tune`` is the tuning build of the same commit (issue 43,
engine/search_params.py: its search constants are UCI options), in a worktree
of its own, ``var/frozen/<full sha>+tune``, built with ``NMM_TUNE=1``.
``python -m engine.tools.frozen REV[+tune]`` checks out and builds one
(``make tune-build``).

The lock is ``fcntl.flock``: frozen builds are for the long tests on the
project's Linux machines, and this module is imported only for an ``@`` spec.
"""
from __future__ import annotations

import fcntl
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence

import click

REPO = Path(__file__).resolve().parent.parent.parent
ROOT = REPO / "var" / "frozen"                  # one worktree per commit, named by its full sha
BUILD = (sys.executable, "setup.py", "build_ext", "--inplace", "-q")
TUNE = "+tune"                                  # REV+tune: the tuning build
TUNE_BUILD = ("env", "NMM_TUNE=1") + BUILD      # (env: these builds are Linux's)
SHORT = 7                                       # the sha's length in an engine's label
TAIL = 20                                       # lines of a failed command's output in its error


class FrozenBuildError(click.ClickException):
    """A frozen build that cannot be had: an unknown revision, a failed
    checkout or build. A ClickException, so that any command given such a
    spec ends with the message, not a traceback."""


def resolve(rev: str, repo: Path | None = None) -> str:
    """The full sha of the commit ``rev`` names in ``repo`` (this repository)."""
    repo = repo or REPO
    if not rev or rev.startswith("-"):          # "-x" would be read as an option of git
        raise FrozenBuildError(f"nmm@{rev}: a frozen build needs a commit after the @ (nmm@29687b3)")
    done = subprocess.run(["git", "-C", str(repo), "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise FrozenBuildError(f"nmm@{rev}: {rev!r} is no commit of {repo} "
                               f"(a revision git knows, e.g. `git rev-parse --short={SHORT} HEAD`)")
    return done.stdout.strip()


def split_variant(rev: str) -> tuple[str, bool]:
    """(the revision, whether the tuning build is asked for) of ``REV[+tune]``.

    >>> split_variant("29687b3+tune"), split_variant("HEAD")
    (('29687b3', True), ('HEAD', False))
    """
    return (rev[:-len(TUNE)], True) if rev.endswith(TUNE) else (rev, False)


def checkout(rev: str, repo: Path | None = None, root: Path | None = None,
             build: Sequence[str] | None = None, tune: bool = False) -> tuple[str, Path]:
    """(full sha, worktree) of commit ``rev``, checked out and built: on the
    first use, once, under the lock; afterwards as found. ``repo``, ``root``
    and ``build`` (the command run in the worktree) default to REPO, ROOT and
    BUILD (TUNE_BUILD with ``tune``, in a worktree named ``<sha>+tune``), read
    at the call (the tests give a small repository and a cheap build)."""
    sha = resolve(rev, repo)
    root, build = root or ROOT, build or (TUNE_BUILD if tune else BUILD)
    root.mkdir(parents=True, exist_ok=True)
    name = sha + (TUNE if tune else "")
    path = root / name
    with locked(root / f"{name}.lock"):
        if not is_built(path, build):
            if not (path / ".git").exists():
                add_worktree(repo or REPO, path, sha)
            run_build(path, build)
            built_mark(path).write_text(build_key(build))
    return sha, path


def is_built(path: Path, build: Sequence[str]) -> bool:
    """Whether the worktree is there and was built by this build command and
    Python: a core compiled for another Python version would not load."""
    mark = built_mark(path)
    return (path / ".git").exists() and mark.exists() and mark.read_text() == build_key(build)


def built_mark(path: Path) -> Path:
    """The file that says a worktree's build finished, beside it (the worktree
    itself stays a clean checkout)."""
    return path.with_name(path.name + ".built")


def build_key(build: Sequence[str]) -> str:
    return f"{sys.implementation.cache_tag} {' '.join(build)}\n"


def add_worktree(repo: Path, path: Path, sha: str) -> None:
    """``git worktree add --detach``; ``--force`` takes back a path whose
    worktree was deleted by hand but is still registered."""
    run(["git", "-C", str(repo), "worktree", "add", "--force", "--detach", str(path), sha], repo,
        f"cannot check out {sha[:SHORT]} at {path}")


def run_build(path: Path, build: Sequence[str]) -> None:
    """The build command in the worktree; its output is kept out of the match
    log (the caller's stdout) and shown only if it fails."""
    variant = TUNE if path.name.endswith(TUNE) else ""
    print(f"building the frozen engine nmm@{path.name[:SHORT]}{variant} in {path} (its first use)", file=sys.stderr)
    run(list(build), path, f"the build of {path.name[:SHORT]} failed in {path}")


def run(command: list[str], cwd: Path, failure: str) -> None:
    """``command`` in ``cwd``; FrozenBuildError with the end of its output if it fails."""
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    except OSError as e:
        raise FrozenBuildError(f"{failure}: {e}") from None
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-TAIL:])
        raise FrozenBuildError(f"{failure} (`{' '.join(command)}` exited {done.returncode}):\n{tail}")


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Held while one process checks out and builds a worktree; another waits
    here, then finds the build done. An advisory lock on an open file, so a
    process that dies holding it lets it go."""
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def main(argv: list[str]) -> None:
    """``python -m engine.tools.frozen REV[+tune] ...``: check out and build each, print its worktree."""
    for spec in argv:
        rev, tune = split_variant(spec)
        print(checkout(rev, tune=tune)[1])


if __name__ == "__main__":
    main(sys.argv[1:])
