"""``nmm-chess data pgn-records``: games played elsewhere (a PGN's), as training records.

The engine's own games (``data selfplay``) give the learned evaluation its
targets, but cost a 5,000-node search a position: a session of both cores
plays about a million positions. A collection of master games holds millions
of positions at once. Replayed by the core (ext/selfplay.pxi's
``game_records``), each becomes a record in the self-play format
(engine/data/selfplay.py), its score the engine's own: a search to a small
soft node limit (``--nodes``, 1: the first iteration and its quiescence
search, about 60 µs), or the static evaluation (``--nodes 0``). The game's
result is the PGN's.

``train nnue --extra FOLDER`` trains on such a folder beside the self-play
ones; no game of it is held back for validation, so the validation loss stays
that of the engine's own games.

Batch k holds the games k * batch_games ... of the file, in the file's order,
games without a result or with an illegal move left out (the header counts
them); a rerun skips the batches written (each whole, by a rename) and
``job.json`` refuses other settings. The TWIC collections are an outside test
set and are refused.
"""
from __future__ import annotations

import hashlib
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from engine.data.selfplay import RECORD, write_batch
from engine.data.workpool import run_units

RESULTS = {"1-0": 2, "1/2-1/2": 1, "0-1": 0}
MAX_MOVES = 1000        # longer games are cut here (none of a master collection is)


@dataclass(frozen=True)
class PgnJob:
    """What makes a folder's records: equal jobs give equal batches."""
    pgn: str                # the file's name ...
    pgn_sha256: str         # ... and its hash
    batch_games: int
    nodes: int              # 0: the static evaluation
    min_elo: int            # both players at least this (0: any game)


def check_source(path: Path) -> None:
    """ValueError for a file this command must not read: TWIC is the outside test set."""
    if "twic" in path.name.lower():
        raise ValueError(f"{path.name} is a TWIC collection: an outside test set, never trained on")


def game_texts(path: Path) -> list[str]:
    from engine.data.pgn import read_text, split_games
    return [t for t in split_games(read_text(path)) if t.strip()]


def elo_ok(headers: dict, min_elo: int) -> bool:
    if not min_elo:
        return True
    try:
        return min(int(headers.get("WhiteElo", 0)), int(headers.get("BlackElo", 0))) >= min_elo
    except ValueError:
        return False


def convert_batch(unit: tuple[dict, int, list[str], str]) -> tuple[dict, np.ndarray, float]:
    """Replay one batch of game texts (job as a dict, batch index, texts, the
    commit): (header, records, seconds)."""
    from engine._core import STARTING_FEN, Board, game_records
    from engine.data.pgn import parse_game
    from engine.data.selfplay_games import engine_for
    job, batch, texts, commit = unit
    job = PgnJob(**job)
    searcher, evaluation = engine_for(None)
    buffer = np.zeros((MAX_MOVES, RECORD.itemsize), np.uint8)
    chunks, skipped, games = [], {"no result": 0, "unreadable": 0, "illegal": 0, "elo": 0}, 0
    start = time.perf_counter()
    for text in texts:
        parsed = parse_game(text)
        if parsed is None:
            skipped["unreadable"] += 1
            continue
        headers, moves = parsed
        if headers.get("Result") not in RESULTS:
            skipped["no result"] += 1
            continue
        if not elo_ok(headers, job.min_elo):
            skipped["elo"] += 1
            continue
        try:
            board = Board(headers.get("FEN", STARTING_FEN))
            if job.nodes:
                searcher.clear()                # every game from empty tables: batches replay exactly
            n = game_records(searcher, board, moves[:MAX_MOVES], RESULTS[headers["Result"]], buffer, job.nodes)
        except ValueError:
            skipped["illegal"] += 1
            continue
        chunks.append(buffer[:n].copy())
        games += 1
    seconds = time.perf_counter() - start
    records = (np.concatenate(chunks).view(RECORD).reshape(-1) if chunks else np.zeros(0, RECORD))
    header = {"format": "nmm-chess-pgn-records", "batch": batch, "pgn": job.pgn, "pgn_sha256": job.pgn_sha256,
              "texts": len(texts), "games": games, "skipped": skipped, "nodes": job.nodes,
              "min_elo": job.min_elo, "evaluation": evaluation, "options": searcher.settings, "commit": commit,
              "score": ("the static evaluation" if not job.nodes else f"a search to {job.nodes} soft nodes") +
                       ", cp, side to move's view; mate in N plies: +-(32000 - N)"}
    return header, records, seconds


def convert(pgn: Path, out: Path, batch_games: int = 1000, nodes: int = 1, min_elo: int = 0,
            max_games: int = 0, workers: int = 1, progress: bool = True) -> dict:
    """Write the games of ``pgn`` (the first ``max_games`` texts; 0: all) into
    ``out`` as record batches; the batches there are kept. Returns a summary."""
    from engine.data.selfplay_games import check_job, git_commit
    check_source(pgn)
    if batch_games < 1 or nodes < 0 or min_elo < 0:
        raise ValueError("batch games must be positive, nodes and min elo not negative")
    job = PgnJob(pgn.name, hashlib.sha256(pgn.read_bytes()).hexdigest(), batch_games, nodes, min_elo)
    out.mkdir(parents=True, exist_ok=True)
    check_job(out, job)
    texts = game_texts(pgn)[:max_games or None]
    n = -(-len(texts) // batch_games)
    paths = [out / f"batch_{k:06d}.bin" for k in range(n)]
    done = {k for k, path in enumerate(paths) if path.exists()}
    commit = git_commit()
    units = [(k, (asdict(job), k, texts[k * batch_games:(k + 1) * batch_games], commit))
             for k in range(n) if k not in done]
    ran = {"games": 0, "positions": 0, "seconds": 0.0}
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=len(texts), initial=min(len(done) * batch_games, len(texts)), unit="game", disable=None)

    def on_result(k: int, result: tuple[dict, np.ndarray, float]) -> None:
        header, records, seconds = result
        write_batch(paths[k], header, records)
        ran["games"] += header["games"]
        ran["positions"] += len(records)
        ran["seconds"] += seconds
        if bar is not None:
            bar.update(header["texts"])
    try:
        converted = run_units(convert_batch, units, done, on_result, workers)
    finally:
        if bar is not None:
            bar.close()
    return {"batches": n, "converted_now": converted, **ran, "seconds": round(ran["seconds"], 2),
            "positions_per_core_second": round(ran["positions"] / ran["seconds"], 1) if ran["seconds"] else None}
