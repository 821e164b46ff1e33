"""Engines to play against: our own and the Debian ones, by short names.

A spec is ``name`` or ``name:Option=value,Option=value``, for example
``stockfish:UCI_LimitStrength=true,UCI_Elo=2000`` or ``nmm:NullMove=false``.
``nmm@REV`` (``nmm@29687b3:SEEPruning=true``) is our engine as commit REV
built it, frozen (engine/tools/frozen.py), not the working tree's;
``nmm@REV+tune`` its tuning build, whose search constants are options
(``nmm@29687b3+tune:RFP_MARGIN=90``, engine/search_params.py).
A name that is not known is taken as a command line.

Our engine is started in research mode (``--research``: its ``uci`` list
shows the research switches too), since python-chess's ``configure``
refuses an option the engine did not list, and the tools set them; a frozen
build gets the flag if its commit knows it (``knows_research``), an older
one lists every option anyway.
"""
from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
RESEARCH_FLAG = "--research"            # engine.options.RESEARCH_FLAG, spelt here for frozen builds' sake

KNOWN = {
    "nmm": [sys.executable, str(REPO / "uci_main.py"), RESEARCH_FLAG],
    "stockfish": ["/usr/games/stockfish"],
    "gnuchess": ["/usr/games/gnuchess", "--uci"],
    "toga2": ["/usr/games/toga2"],
    "glaurung": ["/usr/games/glaurung"],
    "ethereal": ["/usr/games/ethereal-chess"],
}
FROZEN = "nmm@"         # nmm@REV: the engine of a commit (frozen_spec)


@dataclass
class EngineSpec:
    name: str
    command: list[str]
    options: dict[str, str] = field(default_factory=dict)

    @property
    def label(self) -> str:
        if not self.options:
            return self.name
        return f"{self.name}({', '.join(f'{k}={v}' for k, v in self.options.items())})"


def here(spec: EngineSpec) -> EngineSpec:
    """``spec`` with its command found on this machine: a unit of work that a
    Ray worker runs was described on the head, whose paths (this repository,
    the head's Python) the worker may not have. Our engine is then started as
    ``python -m engine.cli`` (the package travels with the job); a Debian
    engine by its name; any other command as given, a frozen build
    (``nmm@REV``) too: its worktree is on the head, and a worker without it
    fails to start the engine rather than play another build under its name."""
    command = spec.command
    script = next((part for part in command if part.endswith("uci_main.py")), command[-1])
    if spec.name == "nmm" and not Path(script).exists():
        command = [sys.executable, "-m", "engine.cli", RESEARCH_FLAG]
    elif spec.name in KNOWN and spec.name != "nmm":
        command = KNOWN[spec.name]
    return EngineSpec(spec.name, list(command), dict(spec.options))


def parse_spec(spec: str) -> EngineSpec:
    """``stockfish:UCI_Elo=2000`` -> EngineSpec('stockfish', [...], {'UCI_Elo': '2000'})."""
    name, _, opts = spec.partition(":")
    options = {}
    for item in filter(None, opts.split(",")):
        key, _, value = item.partition("=")
        options[key.strip()] = value.strip()
    if name.startswith(FROZEN):
        return frozen_spec(name[len(FROZEN):], options)
    command = KNOWN.get(name) or shlex.split(name)
    return EngineSpec(name, command, options)


def frozen_spec(rev: str, options: dict[str, str]) -> EngineSpec:
    """``nmm@REV``: the engine of commit REV, checked out and built on first
    use (engine/tools/frozen.py). Its name carries the commit, resolved
    (``nmm@29687b3`` whether REV was HEAD, a tag or a longer sha): the players
    of a match's PGN are its labels, so ``match --resume`` refuses games that
    another build played. The command runs the worktree's ``uci_main.py`` with
    this Python, which imports the worktree's package beside it."""
    from engine.tools import frozen        # fcntl and git: only when a spec asks for a frozen build
    rev, tune = frozen.split_variant(rev)
    sha, path = frozen.checkout(rev, tune=tune)
    command = [sys.executable, str(path / "uci_main.py")] + ([RESEARCH_FLAG] if knows_research(path) else [])
    return EngineSpec(f"{FROZEN}{sha[:frozen.SHORT]}{frozen.TUNE if tune else ''}", command, options)


def knows_research(tree: Path) -> bool:
    """Whether the engine of a source tree takes ``--research`` (older ones
    list every option and would refuse the flag)."""
    try:
        return "RESEARCH_FLAG" in (Path(tree) / "engine" / "options.py").read_text()
    except OSError:
        return False
