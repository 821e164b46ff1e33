"""A match's record committed as gzipped volumes of at most ``VOLUME_GAMES`` games.

A running match writes ``name.pgn`` (git ignores it); its committed record is
``name.pgn.gz`` with the first games, then ``name.2.pgn.gz``, ``name.3.pgn.gz``
... with the next ones. Fixed cut points keep each file small (a long SPRT's
games would otherwise grow one file past a megabyte) and leave the full
volumes byte for byte unchanged as the match goes on, so that each commit of
a running match adds only its last volume to the history.

>>> volume_path(Path("reports/x.pgn"), 1).name, volume_path(Path("reports/x.pgn"), 3).name
('x.pgn.gz', 'x.3.pgn.gz')
"""
from __future__ import annotations

import gzip
import re
from pathlib import Path

VOLUME_GAMES = 500
"""Games per volume: 0.5 to 0.65 MB gzipped at 10+0.1 with clock comments."""

GAME_START = re.compile(r"\n\n(?=\[Event )")    # the blank lines before each game but the first


def volume_path(pgn: Path, number: int) -> Path:
    """The ``number``-th volume (from 1) of the record of ``pgn``."""
    if number == 1:
        return pgn.with_name(pgn.name + ".gz")
    return pgn.with_name(f"{pgn.stem}.{number}{pgn.suffix}.gz")


def volumes(pgn: Path) -> list[Path]:
    """The volumes of ``pgn``'s record that exist, in order (none if there is no record)."""
    found: list[Path] = []
    while (path := volume_path(pgn, len(found) + 1)).exists():
        found.append(path)
    return found


def read_record(pgn: Path) -> str | None:
    """The games of a match as text: ``pgn`` itself while it is there (the
    running or last run's file, complete), else its volumes joined; None if
    neither exists."""
    if pgn.exists():
        return pgn.read_text()
    parts = volumes(pgn)
    if not parts:
        return None
    return "".join(gzip.decompress(path.read_bytes()).decode() for path in parts)


def split_games(text: str) -> list[str]:
    """A PGN's games as texts, each with the blank lines after it (so that
    joining them gives back ``text``); a game cut off at the end stays one."""
    starts = [0] + [m.end() for m in GAME_START.finditer(text)]
    return [text[a:b] for a, b in zip(starts, starts[1:] + [len(text)]) if a < b]


def pack(pgn: Path, per_volume: int = VOLUME_GAMES) -> list[Path]:
    """Write ``pgn``'s record as volumes of ``per_volume`` games; a volume
    whose content is unchanged is not rewritten, and volumes past the last
    one are removed (a record that shrank: a match started over). Returns
    the volumes written."""
    games = split_games(pgn.read_text())
    chunks = ["".join(games[i:i + per_volume]) for i in range(0, len(games), per_volume)] or [""]
    written = []
    for number, chunk in enumerate(chunks, 1):
        path = volume_path(pgn, number)
        data = gzip.compress(chunk.encode(), compresslevel=9, mtime=0)
        if not path.exists() or path.read_bytes() != data:
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_bytes(data)
            tmp.replace(path)
            written.append(path)
    for stale in volumes(pgn)[len(chunks):]:
        stale.unlink()
    return written
