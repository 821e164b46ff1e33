#!/usr/bin/env python3
"""The file a chess GUI points at: starts nmm-chess in UCI mode.

If the project was set up with ``make`` (a virtual environment in .venv) and
this was started by another Python, re-run under the environment's Python so
that its packages and the compiled core are found.
"""
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
VENV_PYTHON = HERE / ".venv" / "bin" / "python"

if VENV_PYTHON.exists() and Path(sys.prefix).resolve() != (HERE / ".venv").resolve():
    os.execv(str(VENV_PYTHON), [str(VENV_PYTHON), str(Path(__file__).resolve()), *sys.argv[1:]])

sys.path.insert(0, str(HERE))

from engine.cli import main  # noqa: E402

if __name__ == "__main__":
    main()
