"""What several commands share: the openings, the clock, the match runners."""
from __future__ import annotations

import fcntl
from pathlib import Path
from typing import IO

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


def engine_options(items: tuple[str, ...]) -> dict[str, str]:
    """``--option NAME=VALUE`` items as UCI options (checked against the
    engine's declaration); a usage error names a bad one."""
    from engine.options import OPTIONS, OptionError
    known = {o.name.lower(): o for o in OPTIONS}
    options: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        option = known.get(name.strip().lower())
        if not sep or option is None:
            raise click.BadParameter(f"{item!r}: give NAME=VALUE with a UCI option's name "
                                     "(docs/options.md)", param_hint="--option")
        try:
            option.parse(value.strip())
        except OptionError as e:
            raise click.BadParameter(str(e), param_hint="--option") from None
        options[option.name] = value.strip()
    return options


option_flag = click.option("--option", "option_items", multiple=True, metavar="NAME=VALUE",
                           help="A UCI option on top of the engine's defaults (docs/options.md); repeatable.")


def hold_pgn(pgn: Path) -> IO:
    """An exclusive lock on ``PGN.lock``, held while the returned file stays
    open: a second match writing the same PGN (a test started twice, by hand
    and by the queue) stops at once instead of rewriting the first one's record."""
    handle = open(pgn.with_name(pgn.name + ".lock"), "w")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise click.ClickException(f"another match is writing {pgn} (its lock: {handle.name})") from None
    return handle
