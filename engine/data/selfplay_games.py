"""``nmm-chess data selfplay``: the engine's own games, as training records.

Each game starts from a position of an opening suite with a few random legal
plies after it, and the engine at its defaults (Session's options: the engine
users run, endgame rules on) plays both sides, every move a search to a soft
node limit (ext/selfplay.pxi plays the whole game in C). Games end by the
rules or by the match runner's adjudication; every searched position becomes
a record (engine/data/selfplay.py has the format).

The games go in batches of ``batch_games``: batch k draws its openings and
random plies from a generator seeded by (seed, k), and its searches start from
empty tables each game, so a batch's file is the same whoever plays it and
whenever: a rerun skips the batches already written (each written whole, by a
rename), and a larger ``--games`` adds batches. ``job.json`` in the folder
holds the settings; a rerun with other settings is refused.
"""
from __future__ import annotations

import hashlib
import json
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from engine.data.selfplay import RECORD, batch_paths, write_batch
from engine.data.workpool import run_units

DEFAULT_OPENINGS = "openings/2moves_v1.epd"       # under engine.perft.data_dir()
MAX_PLIES = 600                                     # match.py's: a draw at this many plies


@dataclass(frozen=True)
class SelfplayJob:
    """What makes a folder's games: equal jobs give byte-identical batches."""
    nodes: int                      # the soft node limit of every search
    hard_nodes: int                 # no search goes past this
    seed: int
    batch_games: int
    random_plies: tuple[int, int]   # random legal plies after the opening: at least, at most
    openings: str                   # the suite's file name and its SHA-256
    openings_sha256: str
    eval_file: str | None           # a TD net or an NNUE, or None: the handwritten evaluation
    adjudicate: bool
    max_plies: int = MAX_PLIES


def batch_rng(seed: int, batch: int, stream: int) -> np.random.Generator:
    """Batch ``batch``'s generator: stream 0 draws its openings, 1 its random plies."""
    return np.random.default_rng([seed, batch, stream])


def read_openings(path: Path) -> list[str]:
    """The FENs of an EPD suite (operations after the fourth field dropped)."""
    from engine.data.label import read_positions
    return read_positions(path)


def start_position(fen: str, rng: np.random.Generator, plies: tuple[int, int]) -> str:
    """``fen`` after a random number (in ``plies``) of random legal plies, as
    the FEN a game starts from (its fifty-move counter 0: the game's records
    then hold all it needs). A draw that ends the game at once is drawn again;
    after ten such draws the opening itself is played."""
    from engine._core import Board
    for _ in range(10):
        board = Board(fen)
        for _ in range(int(rng.integers(plies[0], plies[1] + 1))):
            moves = board.legal_moves()
            if not moves:
                break
            board.push(moves[int(rng.integers(len(moves)))])
        if board.outcome() is None:
            fields = board.fen().split()
            return " ".join(fields[:4] + ["0", fields[5]])
    return fen


def git_commit() -> str:
    """This checkout's commit, or "unknown" (a wheel, no git)."""
    from engine.paths import REPO
    done = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else "unknown"


_SEARCHERS: dict = {}       # one engine per process and evaluation: a worker keeps it between batches


def engine_for(eval_file: str | None):
    """(searcher, evaluation id): the engine as a Session makes it at its
    default options but for the evaluation: the handwritten one, or the net
    of ``eval_file`` if one is given (a TD net or an NNUE, as its header says:
    generation n + 1's data is played by net n). A folder's job names its
    evaluation, so that it stays what played its first batches whatever the
    engine's default becomes."""
    if eval_file not in _SEARCHERS:
        from engine.nets import evaluation_id, load_evaluation
        from engine.session import default_searcher
        try:        # the handwritten evaluation unless a net is given, whatever the engine's default
            searcher = default_searcher(options={"Eval": "handwritten"})
        except ValueError as e:
            raise RuntimeError(f"the engine did not start at its defaults: {e}") from None
        if eval_file:
            load_evaluation(Path(eval_file)).install(searcher)
        _SEARCHERS[eval_file] = searcher, evaluation_id(Path(eval_file) if eval_file else None)
    return _SEARCHERS[eval_file]


def play_batch(unit: tuple[dict, int, list[str], str]) -> tuple[dict, np.ndarray, float]:
    """Play one batch (job as a dict, batch index, its openings, the commit):
    (header, records, seconds)."""
    from engine._core import SELFPLAY_ENDS, Board, endgame_rules_on, selfplay_game
    job, batch, openings, commit = unit
    job = SelfplayJob(**job)
    searcher, evaluation = engine_for(job.eval_file)
    rng = batch_rng(job.seed, batch, 1)
    buffer = np.zeros((job.max_plies, RECORD.itemsize), np.uint8)
    chunks, games, nodes = [], [], 0
    start = time.perf_counter()
    for fen in openings:
        begin = start_position(fen, rng, job.random_plies)
        searcher.clear()                        # every game from empty tables: batches replay exactly
        n, result, end, searched = selfplay_game(searcher, Board(begin), buffer, job.nodes, job.hard_nodes,
                                                 job.max_plies, job.adjudicate)
        chunks.append(buffer[:n].copy())
        games.append({"start": begin, "records": n, "result": result, "end": SELFPLAY_ENDS[end]})
        nodes += searched
    seconds = time.perf_counter() - start
    records = np.concatenate(chunks).view(RECORD).reshape(-1)
    header = {"format": "nmm-chess-selfplay", "batch": batch, "seed": job.seed,
              "batch_seed": [job.seed, batch], "games": len(games), "nodes": job.nodes,
              "hard_nodes": job.hard_nodes, "random_plies": list(job.random_plies),
              "openings": job.openings, "openings_sha256": job.openings_sha256,
              "adjudicate": job.adjudicate, "max_plies": job.max_plies, "evaluation": evaluation,
              "eval_file": job.eval_file, "threads": 1, "endgame_rules": endgame_rules_on(),
              "options": searcher.settings, "commit": commit, "nodes_searched": nodes,
              "score": "cp, side to move's view; mate in N plies: +-(32000 - N)",
              "game_list": games}
    return header, records, seconds


def opening_draw(openings: list[str], job: SelfplayJob, batch: int) -> list[str]:
    """Batch ``batch``'s openings: ``batch_games`` of the suite, drawn with replacement."""
    picks = batch_rng(job.seed, batch, 0).integers(len(openings), size=job.batch_games)
    return [openings[i] for i in picks]


def check_job(out: Path, job: SelfplayJob) -> None:
    """Keep ``job`` in ``out/job.json``; ValueError if the folder holds another job's batches."""
    saved = out / "job.json"
    wanted = json.loads(json.dumps(asdict(job)))
    if saved.exists() and json.loads(saved.read_text()) != wanted:
        raise ValueError(f"{out} holds the batches of other settings ({saved}); give the same ones or "
                         f"another --out")
    if not saved.exists() and batch_paths(out):
        raise ValueError(f"{out} holds batches but no job.json: give another --out")
    saved.write_text(json.dumps(wanted, indent=2))


def make_job(openings: Path, nodes: int, hard_nodes: int | None, seed: int, batch_games: int,
             random_plies: tuple[int, int], eval_file: str | None, adjudicate: bool,
             max_plies: int = MAX_PLIES) -> SelfplayJob:
    """The job, the opening suite named by its file name and hash; ValueError
    for settings that cannot be played (a net this engine cannot use among them)."""
    if nodes < 1 or batch_games < 1 or not 0 <= random_plies[0] <= random_plies[1] or max_plies < 1:
        raise ValueError("nodes, batch games and max plies must be positive, random plies MIN <= MAX")
    if eval_file:
        from engine.nets import load_evaluation
        load_evaluation(Path(eval_file))    # NetError (a ValueError) now, not in every worker
    digest = hashlib.sha256(openings.read_bytes()).hexdigest()
    return SelfplayJob(nodes, max(hard_nodes or 4 * nodes, nodes), seed, batch_games, tuple(random_plies),
                       openings.name, digest, str(Path(eval_file).resolve()) if eval_file else None,
                       adjudicate, max_plies)


def generate(openings: Path, job: SelfplayJob, games: int, out: Path, workers: int = 2,
             cluster: str | None = None, progress: bool = True) -> dict:
    """Play ``games`` games (rounded up to whole batches) into ``out``; the
    batches already there are kept. Returns a summary: batches, those played
    now, their games, positions, nodes and worker-seconds (the seconds the
    workers spent playing: per core, however many workers ran)."""
    out.mkdir(parents=True, exist_ok=True)
    check_job(out, job)
    fens = read_openings(openings)
    if not fens:
        raise ValueError(f"{openings} holds no positions")
    n = -(-games // job.batch_games)
    paths = [out / f"batch_{k:06d}.bin" for k in range(n)]
    done = {k for k, path in enumerate(paths) if path.exists()}
    commit = git_commit()
    units = [(k, (asdict(job), k, opening_draw(fens, job, k), commit)) for k in range(n)]
    ran = {"games": 0, "positions": 0, "nodes": 0, "seconds": 0.0}
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=n * job.batch_games, initial=len(done) * job.batch_games, unit="game", disable=None)

    def on_result(k: int, result: tuple[dict, np.ndarray, float]) -> None:
        header, records, seconds = result
        write_batch(paths[k], header, records)
        ran["games"] += header["games"]
        ran["positions"] += len(records)
        ran["nodes"] += header["nodes_searched"]
        ran["seconds"] += seconds
        if bar is not None:
            bar.update(header["games"])
    try:
        played = run_units(play_batch, units, done, on_result, workers, cluster)
    finally:
        if bar is not None:
            bar.close()
    per_second = (lambda count: round(count / ran["seconds"], 1)) if ran["seconds"] else (lambda count: None)
    return {"batches": n, "played_now": played, **ran, "seconds": round(ran["seconds"], 2),
            "positions_per_core_second": per_second(ran["positions"]),
            "nodes_per_core_second": per_second(ran["nodes"])}
