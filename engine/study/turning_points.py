"""Where an engine's games were lost, read from the ``[%eval]`` comments the
match runner writes after every move (the mover's last reported score,
White's view, with its depth).

A gauntlet's score says how much is lost, not where. For each game an engine
lost, this finds its **turning move**: the first of its moves from which its
own score stayed at or below ``-threshold`` centipawns to the end (when it saw
that the game was going). The same for the winner, from its side: the first
move from which its score stayed at or above ``+threshold``. Per losing
engine:

* the turning move's number, its stage (moves 1-20, 21-40, 41+), the
  material left (phase 24: every piece on; knight and bishop 1, rook 2, queen 4)
  and the material balance then, the loser's minus the winner's in pawns
  (1, 3, 3, 5, 9; read at the first of the loser's moves from the turn on
  that does not answer a capture, so that an exchange under way does not
  count): **even** turns, the material level, are positional: the winner's
  advantage was not yet a thing a count of material sees;
* the **lead**: by how many moves the winner saw it first. A lead of several
  moves says that the loser's evaluation or search did not see what was
  coming: the winner's judgement, not its calculation at the end, decided;
* **sudden** turns: the score fell by ``sudden`` centipawns or more from the
  loser's move before (a tactic its search missed, or one it saw too late);
* **unseen**: losses in which its score never fell that far (a flag, a
  mate it did not see coming, an adjudication by the winner's word);
* **thrown**: losses after the loser's own score had stood at ``+threshold``
  or more.

>>> import io
>>> moves = ('1. e4 {[%eval 0.2,9]} e5 {[%eval 0.3,9]} 2. Qh5 {[%eval 1.5,9]} Nc6 {[%eval -0.1,9]} '
...          '3. Bc4 {[%eval 2.0,9]} Nf6 {[%eval 0.5,9]} 4. Qxf7# 1-0\\n')
>>> pgn = io.StringIO('[White "w"]\\n[Black "b"]\\n[Result "1-0"]\\n\\n' + moves)
>>> [(t.loser, t.turn, t.lead, t.unseen) for t in turning_points(read_games(pgn))]
[('b', None, None, True)]
>>> pgn = io.StringIO('[White "w"]\\n[Black "b"]\\n[Result "1-0"]\\n\\n' + moves.replace('0.5,9', '3.0,9'))
>>> [(t.loser, t.turn, t.lead, t.sudden) for t in turning_points(read_games(pgn))]
[('b', 3, 1, True)]
"""
from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, TextIO

import chess
import chess.pgn

from engine.data.pgn import open_text
from engine.study.clock_use import STAGES

MATE_CP = 10_000                    # a mate score, in centipawns, for comparisons
PHASE = {chess.KNIGHT: 1, chess.BISHOP: 1, chess.ROOK: 2, chess.QUEEN: 4}
PAWNS = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 0}


@dataclass
class Scored:
    """One move of a game: its number, its side, the mover's own score (cp), and
    on the board it was played from the phase and the mover's material balance."""
    number: int
    color: chess.Color
    score: int | None
    phase: int
    balance: int                    # the mover's material minus the other side's, in pawns
    after_capture: bool             # the move before this one took something: an exchange may be under way


@dataclass
class Game:
    names: dict[chess.Color, str]
    winner: chess.Color | None
    moves: list[Scored]


@dataclass
class TurningPoint:
    """One lost game, seen from both sides."""
    loser: str
    winner: str
    turn: int | None                # the loser's turning move (its number), None when unseen
    phase: int | None               # the material on the board at it
    balance: int | None             # the loser's material minus the winner's at it, in pawns
    lead: int | None                # moves by which the winner saw it first (negative: later)
    sudden: bool                    # the score fell by `sudden` cp or more from the loser's move before
    unseen: bool                    # the loser's score never stayed below -threshold
    thrown: bool                    # the loser's score had stood at +threshold or more


def phase(board: chess.Board) -> int:
    return sum(PHASE.get(p.piece_type, 0) for p in board.piece_map().values())


def balance(board: chess.Board, color: chess.Color) -> int:
    return sum(PAWNS[p.piece_type] * (1 if p.color == color else -1) for p in board.piece_map().values())


def read_games(source: TextIO) -> Iterator[Game]:
    """Every decisive game of a PGN stream, with its scored moves."""
    while (game := chess.pgn.read_game(source)) is not None:
        winner = {"1-0": chess.WHITE, "0-1": chess.BLACK}.get(game.headers.get("Result", "*"))
        board = game.board()
        moves = []
        took = False
        for node in game.mainline():
            pov = node.eval()
            score = pov.pov(board.turn).score(mate_score=MATE_CP) if pov is not None else None
            moves.append(Scored(board.fullmove_number, board.turn, score, phase(board),
                                balance(board, board.turn), took))
            took = board.is_capture(node.move)
            board.push(node.move)
        yield Game({chess.WHITE: game.headers.get("White", "?"), chess.BLACK: game.headers.get("Black", "?")},
                   winner, moves)


def pgn_games(paths: Iterable[Path]) -> Iterator[Game]:
    """The games of PGN files, plain or gzipped."""
    for path in paths:
        with open_text(path) as source:
            yield from read_games(source)


def settled(moves: list[Scored], holds) -> int | None:
    """The index in ``moves`` from which every score ``holds``, if the last one does."""
    start = None
    for i in range(len(moves) - 1, -1, -1):
        if not holds(moves[i].score):
            break
        start = i
    return start


def turning_points(games: Iterable[Game], threshold: int = 100, sudden: int = 150) -> Iterator[TurningPoint]:
    """One per decisive game whose loser reported scores."""
    for game in games:
        if game.winner is None:
            continue
        lost = [m for m in game.moves if m.color != game.winner and m.score is not None]
        won = [m for m in game.moves if m.color == game.winner and m.score is not None]
        if not lost:
            continue
        at = settled(lost, lambda s: s <= -threshold)
        seen = settled(won, lambda s: s >= threshold) if won else None
        turn = lost[at] if at is not None else None
        level = next((m.balance for m in lost[at:] if not m.after_capture), turn.balance) if turn else None
        lead = turn.number - won[seen].number if turn and seen is not None else None
        fell = at is not None and at > 0 and lost[at - 1].score - turn.score >= sudden
        yield TurningPoint(game.names[not game.winner], game.names[game.winner],
                           turn.number if turn else None, turn.phase if turn else None,
                           level, lead, fell,
                           turn is None, any(m.score >= threshold for m in lost))


@dataclass
class Losses:
    """One engine's losses, summed up."""
    engine: str
    losses: int
    seen: int                       # with a turning move
    median_turn: float | None
    by_stage: dict[str, int]
    median_phase: float | None
    even: int                       # turns with the material level
    median_lead: float | None
    sudden: int
    unseen: int
    thrown: int


def summarise(points: Iterable[TurningPoint]) -> list[Losses]:
    """Per losing engine, in the order they first appear."""
    by_loser: dict[str, list[TurningPoint]] = defaultdict(list)
    for p in points:
        by_loser[p.loser].append(p)
    out = []
    for name, ps in by_loser.items():
        turns = [p for p in ps if p.turn is not None]
        leads = [p.lead for p in turns if p.lead is not None]
        out.append(Losses(
            name, len(ps), len(turns),
            statistics.median(p.turn for p in turns) if turns else None,
            {label: sum(lo <= p.turn <= hi for p in turns) for lo, hi, label in STAGES},
            statistics.median(p.phase for p in turns) if turns else None,
            sum(p.balance == 0 for p in turns),
            statistics.median(leads) if leads else None,
            sum(p.sudden for p in turns), sum(p.unseen for p in ps), sum(p.thrown for p in ps)))
    return out


def fmt(v: float | None, width: int) -> str:
    """A median to one decimal, or a dash where there was none."""
    return f"{v:{width}.1f}" if v is not None else f"{'-':>{width}}"


def report(losses: list[Losses], threshold: int = 100) -> list[str]:
    """A plain-text table, one losing engine a line."""
    labels = [label for _, _, label in STAGES]
    head = (f"{'lost by':32} {'lost':>5} {'turned':>6} {'median move':>11} "
            + " ".join(f"{label:>11}" for label in labels)
            + f" {'phase':>5} {'even':>5} {'lead':>5} {'sudden':>6} {'unseen':>6} {'thrown':>6}")
    lines = [f"# a turn: the loser's score stays at or below -{threshold} cp to the end", head]
    for x in losses:
        lines.append(f"{x.engine:32} {x.losses:5d} {x.seen:6d} {fmt(x.median_turn, 11)} "
                     + " ".join(f"{x.by_stage[label]:11d}" for label in labels)
                     + f" {fmt(x.median_phase, 5)} {x.even:5d} {fmt(x.median_lead, 5)} {x.sudden:6d} {x.unseen:6d}"
                     f" {x.thrown:6d}")
    return lines
