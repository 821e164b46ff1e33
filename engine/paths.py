"""Where the engine finds its shipped files and keeps what it learns.

The shipped nets travel inside the package: a wheel holds them as
``engine/shipped_nets/`` (setup.py maps the repository's ``nets/`` there),
while a source checkout or an editable install reads ``nets/`` itself. Either
way the engine finds them from any working folder. What the engine writes for
a user between games (the ChessMaps move tables) goes to a per-user data
folder, never into the installation.

No numpy here: the UCI front end imports this before ``uciok``.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
REPO = PACKAGE.parent                   # a source checkout's root (meaningless in a wheel)
_WHEEL_NETS = PACKAGE / "shipped_nets"
NETS_DIR = _WHEEL_NETS if _WHEEL_NETS.is_dir() else REPO / "nets"
DATA_HOME_VARIABLE = "NMM_CHESS_HOME"


def user_data_dir() -> Path:
    """The per-user folder for files the engine learns (``$NMM_CHESS_HOME`` if
    set): ``~/.local/share/nmm-chess`` (or ``$XDG_DATA_HOME/nmm-chess``) on
    Linux, ``~/Library/Application Support/nmm-chess`` on macOS and
    ``%LOCALAPPDATA%\\nmm-chess`` on Windows. Not created here: a writer makes it.

    >>> import os
    >>> os.environ["NMM_CHESS_HOME"] = "/tmp/nmm-home"
    >>> user_data_dir().as_posix()
    '/tmp/nmm-home'
    >>> del os.environ["NMM_CHESS_HOME"]
    """
    if os.environ.get(DATA_HOME_VARIABLE):
        return Path(os.environ[DATA_HOME_VARIABLE]).expanduser()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "nmm-chess"
