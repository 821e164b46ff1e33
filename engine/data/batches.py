"""Resumable batch jobs: a long list of positions cut into batches, each
batch's result saved in ``<out>.work/`` the moment it arrives.

A rerun with the same arguments runs only the batches not saved yet; a
rerun with other arguments is refused (the folder holds another job's
batches). ``data label`` and ``data cutoffs`` are such jobs.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

from engine.data.workpool import run_units


def sample_positions(fens: list[str], count: int | None, seed: int) -> list[str]:
    """``count`` of ``fens`` drawn without replacement by ``seed`` (in file
    order), or all of them when ``count`` is None or not smaller.

    >>> sample_positions(["a", "b", "c", "d"], 2, seed=1)
    ['b', 'c']
    """
    if count is None or count >= len(fens):
        return list(fens)
    pick = np.sort(np.random.default_rng(seed).choice(len(fens), count, replace=False))
    return [fens[i] for i in pick]


def run_batches(fn: Callable, items: list, args: tuple, work: Path, job: dict, batch: int,
                save: Callable[[Path, object], None], suffix: str, workers: int = 2,
                cluster: str | None = None, progress: bool = True) -> tuple[list[Path], int]:
    """Run ``fn((items_of_batch, *args))`` for every batch not saved in
    ``work``; ``save(path, result)`` writes one (``suffix``: its file ending).
    Returns every batch's path, in order, and how many ran now."""
    work.mkdir(parents=True, exist_ok=True)
    saved = work / "job.json"
    if saved.exists() and json.loads(saved.read_text()) != job:
        raise ValueError(f"{work} holds batches of another job; remove it or give the same arguments")
    saved.write_text(json.dumps(job))
    n = -(-len(items) // batch)
    paths = [work / f"batch_{i:06d}{suffix}" for i in range(n)]
    done = {i for i, p in enumerate(paths) if p.exists()}
    units = [(i, (items[i * batch:(i + 1) * batch], *args)) for i in range(n)]
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=n, initial=len(done), unit="batch")

    def on_result(index: int, result) -> None:
        tmp = paths[index].with_name(paths[index].name + ".tmp")
        save(tmp, result)
        tmp.replace(paths[index])           # atomic: a batch is saved whole or not at all
        if bar is not None:
            bar.update(1)
    try:
        ran = run_units(fn, units, done, on_result, workers, cluster)
    finally:
        if bar is not None:
            bar.close()
    return paths, ran
