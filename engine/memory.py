"""The ChessMaps long-term memory on disk: the move tables (ext/move_tables.pxi)
kept across games in one file (``MoveTables``, ``MoveTablesFile``).

The file is a numpy ``.npz`` with a JSON header (format, version, kind
``movetables``, the shapes) and the arrays of ``Searcher.get_move_tables``;
it is always the same size (about 110 KB before compression), however long
the engine plays. It is written to a temporary file beside it and renamed
over it, so a crash or a kill mid-write leaves the previous file whole. A
file that fails a check is refused (``MemoryFileError``) and the engine
goes on with empty tables.

>>> from engine._core import Searcher
>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "tables.npz"
>>> save_tables(Searcher(hash_mb=1), path); load_tables(Searcher(hash_mb=1), path)
0
"""
from __future__ import annotations

import json
import os
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

FORMAT, VERSION, KIND = "nmm-chess", 1, "movetables"
ARRAYS = ("moves", "weight", "evals", "n_evals")
DTYPES = {"moves": np.uint16, "weight": np.int16, "evals": np.int16, "n_evals": np.uint8}


class MemoryFileError(ValueError):
    """A move-table file that cannot be used."""


def save_tables(searcher, path: Path, evaluation: str = "") -> None:
    """Write the searcher's tables to ``path`` atomically. Only a missing file
    or a move-table file is replaced: MemoryFileError for anything else (a
    mistyped MoveTablesFile must not overwrite a README, a net or /dev/null).
    ``evaluation`` names the evaluation whose scores the tables store."""
    path = Path(path)
    if path.exists() or path.is_symlink():
        if not path.is_file() or path.is_symlink() or not is_tables_file(path):
            raise MemoryFileError(f"{path} exists and is not a move-table file: not overwritten")
    if not path.name:
        raise MemoryFileError(f"{path} names no file")
    tables = searcher.get_move_tables()
    header = {"format": FORMAT, "version": VERSION, "kind": KIND, "evaluation": evaluation,
              "shapes": {k: list(tables[k].shape) for k in ARRAYS}}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        np.savez_compressed(f, header=np.array(json.dumps(header)), **{k: tables[k] for k in ARRAYS})
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)                   # the old file stays whole until this instant


def read_header(path: Path) -> dict:
    """The file's header; MemoryFileError if it is not a move-table file."""
    try:
        with np.load(path, allow_pickle=False) as f:
            header = json.loads(str(f["header"]))
    except FileNotFoundError:
        raise MemoryFileError(f"{path}: no such file") from None
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError) as e:
        raise MemoryFileError(f"{path} is not a readable move-table file ({type(e).__name__})") from None
    if not isinstance(header, dict) or (header.get("format"), header.get("kind")) != (FORMAT, KIND):
        raise MemoryFileError(f"{path} is not a move-table file")
    return header


def is_tables_file(path: Path) -> bool:
    try:
        read_header(path)
    except MemoryFileError:
        return False
    return True


def load_tables(searcher, path: Path, evaluation: str = "",
                notice: Callable[[str], None] | None = None) -> int:
    """Load ``path`` into the searcher; the number of paths it holds.
    Raises MemoryFileError (the searcher's tables untouched) on a bad file.
    Scores stored by another ``evaluation`` than the one given are on another
    scale: they are dropped (``notice`` is told) and the paths kept."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as f:
            arrays = {k: f[k] for k in f.files}
    except FileNotFoundError:
        raise MemoryFileError(f"{path}: no such file") from None
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as e:
        raise MemoryFileError(f"{path} is not a readable move-table file ({type(e).__name__})") from None
    try:
        header = json.loads(str(arrays.pop("header")))
    except (KeyError, ValueError):
        raise MemoryFileError(f"{path} has no header: not a move-table file") from None
    if not isinstance(header, dict) or (header.get("format"), header.get("kind")) != (FORMAT, KIND):
        raise MemoryFileError(f"{path} is not a move-table file")
    if header.get("version") != VERSION:
        raise MemoryFileError(f"{path} is version {header.get('version')!r}; this engine reads {VERSION}")
    missing = [k for k in ARRAYS if k not in arrays]
    if missing:
        raise MemoryFileError(f"{path} lacks {', '.join(missing)}")
    wrong = [k for k in ARRAYS if arrays[k].dtype != DTYPES[k]]
    if wrong:
        raise MemoryFileError(f"{path}: {', '.join(wrong)} of the wrong type")
    stored = header.get("evaluation", "")
    if evaluation and stored != evaluation:
        arrays["evals"] = np.zeros_like(arrays["evals"])
        arrays["n_evals"] = np.zeros_like(arrays["n_evals"])
        if notice is not None:
            notice(f"{path} holds the scores of evaluation {stored or '(unrecorded)'}, not of {evaluation}: "
                   f"they are dropped, its paths kept")
    try:
        searcher.set_move_tables(*(arrays[k] for k in ARRAYS))
    except (ValueError, TypeError, OverflowError) as e:
        raise MemoryFileError(f"{path}: {e}") from None
    return int((arrays["moves"][..., 0] != 0).sum())
