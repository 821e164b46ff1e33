"""Engines to play against: our own and the Debian ones, by short names.

A spec is ``name`` or ``name:Option=value,Option=value``, for example
``stockfish:UCI_LimitStrength=true,UCI_Elo=2000`` or ``nmm:NullMove=false``.
A name that is not known is taken as a command line.
"""
from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent

KNOWN = {
    "nmm": [sys.executable, str(REPO / "uci_main.py")],
    "stockfish": ["/usr/games/stockfish"],
    "gnuchess": ["/usr/games/gnuchess", "--uci"],
    "toga2": ["/usr/games/toga2"],
    "glaurung": ["/usr/games/glaurung"],
    "ethereal": ["/usr/games/ethereal-chess"],
}


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
    engine by its name; any other command as given."""
    command = spec.command
    if spec.name == "nmm" and not Path(spec.command[-1]).exists():
        command = [sys.executable, "-m", "engine.cli"]
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
    command = KNOWN.get(name) or shlex.split(name)
    return EngineSpec(name, command, options)
