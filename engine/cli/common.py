"""What several commands share: the openings, the clock, the match runners."""
from __future__ import annotations

from pathlib import Path

import click


def opening_book(openings: str | None) -> Path:
    """The openings file given, else 8moves_v3.pgn in the data folder."""
    from engine.perft import data_dir
    return Path(openings) if openings else data_dir() / "openings" / "8moves_v3.pgn"


def clock(tc: str) -> tuple[float, float]:
    """``10+0.1`` -> (10.0, 0.1) seconds."""
    base, _, inc = tc.partition("+")
    return float(base), float(inc or 0)


def require_runner(runner: str) -> None:
    """A usage error unless the cutechess-cli / fastchess binary is found."""
    from engine.tools.runners import find
    if find(runner) is None:
        raise click.ClickException(f"{runner} is not on PATH nor in ~/.local/bin "
                                   "(../shared/tools/build-match-tools.sh builds it)")
