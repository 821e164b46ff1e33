"""Engine-versus-engine matches with our own clock: no cutechess needed.

Each game starts from an opening of the suite, and every opening is played
twice, with colours swapped. The runner keeps both clocks from the wall time
around each ``go`` (so the client's own overhead counts against the engine,
which is stricter than cutechess); a time margin lets either engine overrun
its clock by that much without losing, the clock then set to zero before the
increment, as fastchess's ``timemargin`` does. It records time forfeits,
illegal moves, crashes and hangs (no answer HANG_GUARD seconds after the clock ran out:
the engine is killed and replaced); each failure is named in its game's PGN
(a ``Failure`` header), so that a resumed match counts it again. With
``ponder`` the engines think on the opponent's time (``go ponder``, then
``ponderhit`` or ``stop``), as in a tournament with pondering on. Optional
adjudication (stated in every report): a win when both engines' scores
agree on at least 10 pawns for 8 plies running; a draw when both stay
within 0.10 for 16 plies after ply 80; a draw at ply 600. A match cut short
goes on from the games its PGN holds (``read_games``).
"""
from __future__ import annotations

import asyncio
import io
import queue
import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.engine
import chess.pgn

from engine.tools.engines import EngineSpec, here
from engine.tools.match_log import logged_games
from engine.tools.pgn_volumes import read_record, split_games
from engine.tools.sprt import Sprt, los, normalized_elo, pentanomial, score_elo

MAX_PLIES = 600
HANG_GUARD = 10.0       # seconds past the whole clock before an engine counts as hung
FIXED_DEPTH_GUARD = 120.0   # a fixed-depth move may take this long (no clock runs)
START_GUARD = 120.0         # seconds an engine may take to answer uci, isready, a setoption or quit
FAILURES = ("forfeit", "illegal", "crash", "hang")     # GameResult's <kind>_by, the PGN's Failure header


@dataclass
class GameResult:
    opening: int
    a_white: bool
    result: str                 # "1-0", "0-1", "1/2-1/2"
    reason: str
    plies: int
    forfeit_by: str | None = None       # "a" or "b": lost on time
    illegal_by: str | None = None
    crash_by: str | None = None
    hang_by: str | None = None
    pgn: str = ""

    @property
    def a_score(self) -> float:
        if self.result == "1/2-1/2":
            return 0.5
        a_won = (self.result == "1-0") == self.a_white
        return 1.0 if a_won else 0.0


@dataclass
class MatchSummary:
    games: list[GameResult] = field(default_factory=list)

    def count(self, score: float) -> int:
        return sum(1 for g in self.games if g.a_score == score)

    def flags(self, kind: str, side: str) -> int:
        return sum(1 for g in self.games if getattr(g, f"{kind}_by") == side)

    def pairs(self) -> list[tuple[float, float]]:
        """A's scores in the openings played with both colours."""
        by_opening: dict[int, list[float]] = {}
        for g in self.games:
            by_opening.setdefault(g.opening, []).append(g.a_score)
        return [(s[0], s[1]) for s in by_opening.values() if len(s) == 2]

    def elo(self) -> tuple[float, float, float]:
        """(score fraction, Elo difference, 95% error bar) for engine A."""
        return score_elo([g.a_score for g in self.games])


def prefix_sample(items: list[str], count: int, seed: int) -> list[str]:
    """``count`` of ``items`` in a seeded order; all of them, shuffled, if there are no more.

    Below the whole list, a draw is the start of any longer draw with the same seed, so a
    match resumed with more games keeps the openings of the pairs it has played.
    ``random.sample`` is not: once the list is no longer several times the draw, it switches
    to another method (for 34,700 openings, from 5,462 on). This is its first method written
    out, so every draw that stayed on it is unchanged:

    >>> items = [str(i) for i in range(1000)]
    >>> prefix_sample(items, 10, seed=1) == random.Random(1).sample(items, 10)
    True
    >>> prefix_sample(items, 400, seed=1)[:10] == prefix_sample(items, 10, seed=1)
    True
    """
    rng = random.Random(seed)
    if count >= len(items):
        return rng.sample(items, len(items))
    seen: set[int] = set()
    drawn = []
    while len(drawn) < count:
        j = rng.randrange(len(items))
        if j not in seen:
            seen.add(j)
            drawn.append(items[j])
    return drawn


def load_openings(path: Path, count: int, seed: int) -> list[chess.Board]:
    """``count`` openings drawn (seeded, see `prefix_sample`) from a PGN or EPD file (all of them if it holds fewer)."""
    text = Path(path).read_text()
    if path.suffix == ".epd":
        lines = [l for l in text.splitlines() if l.strip()]
        return [chess.Board.from_epd(l)[0] for l in prefix_sample(lines, count, seed)]
    chunks = ["[Event" + c for c in text.split("\n[Event")[1:]]
    chunks.insert(0, text.split("\n[Event")[0])
    boards = []
    for chunk in prefix_sample(chunks, count, seed):
        game = chess.pgn.read_game(io.StringIO(chunk))
        board = game.board()
        for move in game.mainline_moves():
            board.push(move)
        boards.append(board)
    return boards


@dataclass(frozen=True)
class AdjudicationRule:
    """A win once both engines' scores (White's view) have stood at
    ``win_cp`` or more, or at -``win_cp`` or less, for ``win_plies`` moves in
    a row; a draw from ply ``draw_ply`` on once they have stayed within
    ``draw_cp`` of 0 for ``draw_plies`` moves. The match runner's (the
    defaults) waits long: `nmm-chess study adjudication` measures what a
    quicker rule would save and what it would get wrong."""
    win_cp: int = 1000
    win_plies: int = 8
    draw_ply: int = 80
    draw_cp: int = 10
    draw_plies: int = 16


class Adjudicator:
    def __init__(self, rule: AdjudicationRule = AdjudicationRule()) -> None:
        self.rule = rule
        self.scores: list[int | None] = []

    def add(self, info: dict, turn: chess.Color) -> None:
        score = info.get("score")
        self.add_cp(None if score is None else score.white().score(mate_score=100_000))

    def add_cp(self, white_cp: int | None) -> None:
        """A move's score, White's view in centipawns (None: none given)."""
        self.scores.append(white_cp)

    def verdict(self, plies: int) -> tuple[str, str] | None:
        rule = self.rule
        last = self.scores[-rule.win_plies:]
        if len(last) == rule.win_plies and all(s is not None for s in last):
            if all(s >= rule.win_cp for s in last):
                return "1-0", "adjudicated win"
            if all(s <= -rule.win_cp for s in last):
                return "0-1", "adjudicated win"
        last = self.scores[-rule.draw_plies:]
        if (plies >= rule.draw_ply and len(last) == rule.draw_plies
                and all(s is not None and abs(s) <= rule.draw_cp for s in last)):
            return "1/2-1/2", "adjudicated draw"
        return None


def open_engine(spec: EngineSpec) -> chess.engine.SimpleEngine:
    """Start an engine and set its options. An engine that is slow to start
    on a busy machine is waited for (python-chess's own 10 s was too short
    with a Ray cluster starting beside a test run: the pair came back empty);
    one that never answers ``uci`` still fails, after START_GUARD seconds."""
    engine = chess.engine.SimpleEngine.popen_uci(spec.command, stderr=None, timeout=START_GUARD)
    if spec.options:
        engine.configure({k: _option_value(v) for k, v in spec.options.items()})
    return engine


def close_engine(engine: chess.engine.SimpleEngine) -> None:
    """quit, or close (which kills) an engine that does not answer it."""
    try:
        engine.quit()
    except Exception:
        engine.close()


def _option_value(text: str):
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    try:
        return int(text)
    except ValueError:
        return text


def play_guarded(engine: chess.engine.SimpleEngine, board: chess.Board, limit: chess.engine.Limit,
                 guard: float, **kwargs) -> chess.engine.PlayResult:
    """``engine.play``, but asyncio.TimeoutError after ``guard`` seconds."""
    coroutine = asyncio.wait_for(engine.protocol.play(board, limit, **kwargs), guard)
    return asyncio.run_coroutine_threadsafe(coroutine, engine.protocol.loop).result()


def play_game(engines: dict[str, chess.engine.SimpleEngine], start: chess.Board, a_white: bool,
              base: float, inc: float, adjudicate: bool, opening: int,
              names: dict[str, str], ponder: bool = False, depth: int | None = None,
              nodes: int | None = None, hang_guard: float = HANG_GUARD, time_margin: float = 0.0) -> GameResult:
    """One game from ``start``; with ``depth`` or ``nodes`` each move is a search
    of that size and no clock runs. An engine that has not answered ``hang_guard``
    seconds after its time (clock and increment, or FIXED_DEPTH_GUARD) is hung;
    one that overran its clock by more than ``time_margin`` seconds lost on time."""
    fixed = depth or nodes
    board = start.copy()
    side_of = {chess.WHITE: "a" if a_white else "b", chess.BLACK: "b" if a_white else "a"}
    clock = {chess.WHITE: base, chess.BLACK: base}
    game_key = object()
    adjudicator = Adjudicator()
    result = reason = None
    flags = {}
    timed: list[tuple[float, float, chess.engine.InfoDict]] = []   # (clock left, seconds used, info) a move
    while result is None:
        turn = board.turn
        side = side_of[turn]
        if fixed:
            limit = chess.engine.Limit(depth=depth, nodes=nodes)
        else:
            limit = chess.engine.Limit(white_clock=clock[chess.WHITE], black_clock=clock[chess.BLACK],
                                       white_inc=inc, black_inc=inc)
        t0 = time.perf_counter()
        try:
            played = play_guarded(engines[side], board, limit,
                                  (FIXED_DEPTH_GUARD if fixed else clock[turn] + inc + time_margin) + hang_guard,
                                  game=game_key, info=chess.engine.INFO_BASIC | chess.engine.INFO_SCORE,
                                  ponder=ponder)
        except asyncio.TimeoutError:
            flags["hang_by"] = side
            result, reason = ("0-1" if turn else "1-0"), f"{names[side]} hung"
            break
        except chess.engine.EngineTerminatedError:
            flags["crash_by"] = side
            result, reason = ("0-1" if turn else "1-0"), f"{names[side]} crashed"
            break
        except chess.engine.EngineError as e:
            flags["illegal_by"] = side
            result, reason = ("0-1" if turn else "1-0"), f"{names[side]}: {e}"
            break
        used = time.perf_counter() - t0
        clock[turn] -= 0 if fixed else used
        if clock[turn] < -time_margin:
            flags["forfeit_by"] = side
            result, reason = ("0-1" if turn else "1-0"), f"{names[side]} lost on time"
            break
        clock[turn] = max(clock[turn], 0.0) + inc      # an overrun within the margin is forgiven
        if played.move is None or played.move not in board.legal_moves:
            flags["illegal_by"] = side
            result, reason = ("0-1" if turn else "1-0"), f"{names[side]} played {played.move}"
            break
        timed.append((clock[turn], used, played.info))     # one per move pushed: the PGN's comments
        board.push(played.move)
        adjudicator.add(played.info, turn)
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            result, reason = outcome.result(), outcome.termination.name.lower().replace("_", " ")
        elif len(board.move_stack) - len(start.move_stack) >= MAX_PLIES:
            result, reason = "1/2-1/2", "move limit"
        elif adjudicate and (verdict := adjudicator.verdict(board.ply())):
            result, reason = verdict
    game = chess.pgn.Game.from_board(board)
    node = game
    for _ in range(len(start.move_stack)):
        node = node.next()                      # the opening's moves were not timed
    for left, used, info in timed:
        node = node.next()
        node.comment = f"[%clk {left:.3f}] [%emt {used:.3f}]"
        if "score" in info:             # [%eval 0.35,12]: White's view in pawns, and the depth
            node.set_eval(info["score"], info.get("depth"))
    game.headers.update({"White": names[side_of[chess.WHITE]], "Black": names[side_of[chess.BLACK]],
                         "Result": result, "Termination": reason,
                         "TimeControl": limit_text(base, inc, depth, nodes),
                         "Round": str(opening + 1)})
    for flag in flags:              # the loser's failure, for read_games: the Termination is free text
        game.headers["Failure"] = flag.removesuffix("_by")
    return GameResult(opening, a_white, result, reason, len(board.move_stack), pgn=str(game), **flags)


def run_match(a: EngineSpec, b: EngineSpec, openings: list[chess.Board], base: float, inc: float,
              concurrency: int = 1, adjudicate: bool = True,
              on_game: Callable[[GameResult, MatchSummary], None] | None = None,
              ponder: bool = False, depth: int | None = None,
              stop: Callable[[MatchSummary], bool] | None = None, nodes: int | None = None,
              played: Sequence[GameResult] = (), hang_guard: float = HANG_GUARD,
              time_margin: float = 0.0) -> MatchSummary:
    """Every opening twice (A white, then A black), on ``concurrency`` threads;
    no new game once ``stop(summary)`` says so (games under way are finished).
    ``played``: games of an interrupted run of the same match (read_games),
    kept in the summary and not played again. ``hang_guard``, ``time_margin``:
    play_game's."""
    tasks: queue.Queue = queue.Queue()
    done = {(g.opening, g.a_white) for g in played}
    for i in range(len(openings)):
        for a_white in (True, False):
            if (i, a_white) not in done:
                tasks.put((i, a_white))
    summary = MatchSummary(list(played))
    lock = threading.Lock()
    names = {"a": a.label, "b": b.label}

    def worker() -> None:
        engines = {"a": open_engine(a), "b": open_engine(b)}
        try:
            while True:
                try:
                    with lock:
                        if stop is not None and stop(summary):
                            return
                    i, a_white = tasks.get_nowait()
                except queue.Empty:
                    return
                game = play_game(engines, openings[i], a_white, base, inc, adjudicate, i, names, ponder,
                                 depth, nodes, hang_guard, time_margin)
                with lock:
                    summary.games.append(game)
                    if on_game:
                        on_game(game, summary)
                for side in ("a", "b"):     # a crashed or stuck engine is replaced
                    if side == game.hang_by:
                        engines[side].close()   # killed: its quit would wait on the search it never ends
                    elif side in (game.crash_by, game.forfeit_by):
                        close_engine(engines[side])
                    else:
                        continue
                    engines[side] = open_engine(a if side == "a" else b)
        finally:
            for engine in engines.values():
                close_engine(engine)

    failures: list[BaseException] = []

    def guarded_worker() -> None:
        # An exception in a game thread (an engine that would not start, say)
        # must not pass for a match with fewer games: it is raised here.
        try:
            worker()
        except BaseException as e:
            failures.append(e)

    threads = [threading.Thread(target=guarded_worker) for _ in range(concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        raise failures[0]
    return summary


@dataclass(frozen=True)
class PairUnit:
    """One opening played with both colours: the unit of work that a
    tournament or a tuning step sends to a process pool or a Ray cluster."""
    a: EngineSpec
    b: EngineSpec
    fen: str                    # the opening's start position
    moves: tuple[str, ...]      # and its moves (kept for the PGN)
    base: float
    inc: float
    depth: int | None = None
    nodes: int | None = None
    adjudicate: bool = True
    time_margin: float = 0.0    # seconds: play_game's

    @classmethod
    def of(cls, a: EngineSpec, b: EngineSpec, opening: chess.Board, base: float, inc: float,
           depth: int | None = None, nodes: int | None = None, adjudicate: bool = True,
           time_margin: float = 0.0) -> "PairUnit":
        root = opening.root()
        return cls(a, b, root.fen(), tuple(m.uci() for m in opening.move_stack), base, inc, depth, nodes,
                   adjudicate, time_margin)

    def opening(self) -> chess.Board:
        board = chess.Board(self.fen)
        for move in self.moves:
            board.push_uci(move)
        return board


def game_writer(log: Callable[[str], None], pgn=None,
                prefix: str = "") -> Callable[[GameResult, MatchSummary], None]:
    """run_match's on_game: a line per game with the score so far (the format
    ``match-log`` reads, after ``prefix``), and the game into ``pgn`` if given."""
    def on_game(game: GameResult, summary: MatchSummary) -> None:
        if pgn is not None:             # first: a game in the log is one a resume keeps (read_games)
            pgn.write(game.pgn + "\n\n")
            pgn.flush()
        w, d, l = summary.count(1.0), summary.count(0.5), summary.count(0.0)
        log(f"{prefix}game {len(summary.games):3}: {game.result:7} {game.reason:28} "
            f"(A {'white' if game.a_white else 'black'})  +{w} ={d} -{l}  opening {game.opening + 1}")
    return on_game


def read_games(path: Path, a_label: str, b_label: str, openings: list[chess.Board]) -> list[GameResult]:
    """The finished games in a PGN that ``game_writer`` wrote, as results of
    player A with their failures (``failure``), to go on with the match
    (run_match's ``played``): a resumed match counts them all. A missing file
    has none, and a game cut off when the run was killed is left out. Without
    ``path`` its committed record is read (gzipped volumes, ``pgn_volumes``),
    and the resumed run writes ``path`` again in full.
    ValueError if a game is not of these two players or did not start from
    its round's opening: another match, or the same one drawn with another
    seed or openings file."""
    games: list[GameResult] = []
    whole = read_record(path)
    if whole is None:
        return games
    for text in split_games(whole):
        game = chess.pgn.read_game(io.StringIO(text))
        h = game.headers if game else {}
        result = h.get("Result")
        if result not in ("1-0", "0-1", "1/2-1/2") or not text.rstrip().endswith(result) or game.errors:
            continue                        # the game a kill cut off in the middle of its writing
        if {h.get("White"), h.get("Black")} != {a_label, b_label}:
            raise ValueError(f"{path}: a game of {h.get('White')} against {h.get('Black')}, "
                             f"not of {a_label} and {b_label}")
        opening = int(h.get("Round", "0")) - 1 if h.get("Round", "").isdigit() else -1
        if not 0 <= opening < len(openings) or not starts_from(game, openings[opening]):
            raise ValueError(f"{path}: round {h.get('Round')} did not start from this match's opening "
                             f"{opening + 1} (the same --seed and --openings, and as many --games or more, resume it)")
        a_white = h["White"] == a_label
        games.append(GameResult(opening, a_white, h["Result"], h.get("Termination", ""),
                                sum(1 for _ in game.mainline_moves()), pgn=str(game), **failure(h, a_white)))
    return games


def games_from_log(log: Path, played: Sequence[GameResult], a_label: str, b_label: str,
                   openings: list[chess.Board], tc: str = "?") -> list[GameResult]:
    """The games ``log`` (game_writer's lines, the match's record beside its
    PGN) counts past ``played``: a match whose PGN was lost before it was
    saved (its machine went with it) keeps their results. Each becomes a PGN
    of its opening and result whose comment says the moves were lost; the
    Termination and the Failure header keep what the log said, so read_games
    reads them back as they were counted."""
    found = []
    for number, logged in enumerate(logged_games(log)[len(played):], len(played) + 1):
        if logged.number != number:
            raise ValueError(f"{log}: game {number} is missing (the log and the PGN are of different matches?)")
        opening = (logged.opening or 0) - 1
        if not 0 <= opening < len(openings):
            raise ValueError(f"{log}: game {number} names no opening of this match")
        game = chess.pgn.Game.from_board(openings[opening])
        a_white = logged.a_white
        game.headers.update({"White": a_label if a_white else b_label, "Black": b_label if a_white else a_label,
                             "Result": logged.result, "Termination": logged.reason, "TimeControl": tc,
                             "Round": str(opening + 1)})
        game.end().comment = "the moves after the opening were lost with the machine; result from the match's log"
        flags = failure(game.headers, a_white)
        for flag in flags:
            game.headers["Failure"] = flag.removesuffix("_by")
        found.append(GameResult(opening, a_white, logged.result, logged.reason, 0, pgn=str(game), **flags))
    return found


def failure(headers: chess.pgn.Headers, a_white: bool) -> dict[str, str]:
    """The flag of a game's failure (``{"crash_by": "b"}``, or none) from its
    PGN headers: the ``Failure`` header play_game writes, or in a PGN written
    before it the Termination (``<loser> lost on time``, ``<loser> hung``,
    ``<loser> crashed``, ``<loser>: <error>`` or ``<loser> played <move>``).
    The engine that failed is always the loser.

    >>> failure(chess.pgn.Headers(White="x", Black="y", Result="1-0", Termination="y hung"), True)
    {'hang_by': 'b'}
    """
    result = headers.get("Result")
    if result not in ("1-0", "0-1"):
        return {}
    white_lost = result == "0-1"
    kind = headers.get("Failure") or _failure_in(headers.get("Termination", ""),
                                                 headers.get("White" if white_lost else "Black", "?"))
    if kind not in FAILURES:
        return {}
    return {f"{kind}_by": "a" if white_lost == a_white else "b"}


def _failure_in(reason: str, loser: str) -> str | None:
    """The failure kind a Termination of play_game names, for ``loser``'s label."""
    endings = {f"{loser} lost on time": "forfeit", f"{loser} hung": "hang", f"{loser} crashed": "crash"}
    if reason in endings:
        return endings[reason]
    return "illegal" if reason.startswith((f"{loser}: ", f"{loser} played ")) else None


def rewrite_pgn(path: Path, played: Sequence[GameResult], log: Callable[[str], None], prefix: str = ""):
    """``path`` opened anew for game_writer, with the games a resume keeps
    (read_games) written back first: a game cut off in its writing goes."""
    if played:
        log(f"{prefix}{len(played)} games kept from {path}")
    pgn = open(path, "w")
    pgn.writelines(g.pgn + "\n\n" for g in played)
    return pgn


def starts_from(game: chess.pgn.Game, opening: chess.Board) -> bool:
    """Whether ``game`` went through ``opening``'s position at its ply."""
    board = game.board()
    moves = list(game.mainline_moves())
    plies = opening.ply() - board.ply()
    if not 0 <= plies <= len(moves):
        return False
    for move in moves[:plies]:
        board.push(move)
    return board.epd() == opening.epd()


def play_pair(unit: PairUnit) -> list[GameResult]:
    """The two games of ``unit`` (A white, then A black), on the machine that
    runs it (engine/data/workpool.py)."""
    summary = run_match(here(unit.a), here(unit.b), [unit.opening()], unit.base, unit.inc, 1, unit.adjudicate,
                        depth=unit.depth, nodes=unit.nodes, time_margin=unit.time_margin)
    if sorted(g.a_white for g in summary.games) != [False, True]:
        raise RuntimeError(f"a game pair came back with {len(summary.games)} games")  # run again, never counted
    return sorted(summary.games, key=lambda g: not g.a_white)


def limit_text(base: float, inc: float, depth: int | None = None, nodes: int | None = None) -> str:
    """How moves are limited: ``depth 2``, ``nodes 5000``, ``depth 4, nodes 5000`` or ``10+0.1``."""
    fixed = ", ".join(f"{k} {v}" for k, v in (("depth", depth), ("nodes", nodes)) if v)
    return fixed or f"{base:g}+{inc:g}"


def margin_text(time_margin: float) -> str:
    """How a match's clock forgives, for its report and standings: ``, time margin 200 ms`` or nothing.

    >>> margin_text(0.2), margin_text(0)
    (', time margin 200 ms', '')
    """
    return f", time margin {time_margin * 1000:g} ms" if time_margin else ""


def report(a: EngineSpec, b: EngineSpec, base: float, inc: float, summary: MatchSummary,
           adjudicate: bool, depth: int | None = None, sprt: Sprt | None = None, nodes: int | None = None,
           time_margin: float = 0.0) -> str:
    wins, draws, losses = summary.count(1.0), summary.count(0.5), summary.count(0.0)
    p, elo, err = summary.elo()
    n = len(summary.games)
    five = pentanomial(summary.pairs())
    paired = (f"pentanomial {five} ({sum(five)} pairs), normalised Elo {normalized_elo(five)[0]:+.0f}"
              f" ± {normalized_elo(five)[1]:.0f}" if sum(five) else "no complete pairs")
    lines = [
        f"{a.label} vs {b.label}, {n} games at {limit_text(base, inc, depth, nodes)}"
        f"{margin_text(time_margin)}"
        f"{', adjudication on' if adjudicate else ', no adjudication'}:",
        f"  +{wins} ={draws} -{losses}, score {p * 100:.1f}%, Elo {elo:+.0f} ± {err:.0f} (95%)",
        f"  draws {draws / max(n, 1):.0%}, LOS {los(wins, losses):.1%}; {paired}",
        f"  time forfeits: {a.name} {summary.flags('forfeit', 'a')}, {b.name} {summary.flags('forfeit', 'b')}; "
        f"illegal moves: {summary.flags('illegal', 'a')} / {summary.flags('illegal', 'b')}; "
        f"crashes: {summary.flags('crash', 'a')} / {summary.flags('crash', 'b')}; "
        f"hangs: {summary.flags('hang', 'a')} / {summary.flags('hang', 'b')}",
    ]
    if sprt is not None:
        lines.append("  " + sprt.describe(five))
    return "\n".join(lines)
