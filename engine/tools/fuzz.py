"""``nmm-chess fuzz``: a UCI protocol fuzzer.

It writes random, mutated and well-formed UCI lines to an engine (numbers at
and past their limits, broken FENs, illegal moves, odd spacing, stray
bytes, and every interleaving of go / stop / ponderhit / setoption /
position / isready), and after every line sends ``isready``. It fails the run
when the engine dies or writes to stderr, leaves ``isready`` unanswered,
answers ``readyok`` to no ``isready``, gives a ``go`` no ``bestmove`` or one
too many, or names a move (bestmove, ponder, pv, currmove) that is not legal
where it was searched. How fast ``isready`` comes back, and how late each
bounded search answers, are measured and reported, never judged: the machine
may be busy. No rule depends on the machine's speed: an answer that never
comes is told from a slow one only by a hang guard (``hang_s``, a minute by
default) far beyond any answer's time, and a ``go``'s guard counts from when
it could start (its line, or the answer to the ``go`` before it: the engine
searches one at a time).

The fuzzer knows nothing of the engine's parser. Before each ``go`` it sends
``d`` and reads the FEN (and Chess960 flag) the engine will search, and
checks every move against python-chess in that position. Which searches
should end by themselves it decides from the ``go`` line alone: one with an
explicit time, a small depth or node count, or only bad numbers (which must
fall back to a sane limit) should; ``infinite``, ``ponder``, a bare ``go``
and large limits get a ``stop`` after a while.

Any UCI engine can be fuzzed (``--engine stockfish``); the command words it
classifies lines by include this engine's extras (``d``, ``eval``,
``perft``, ``bench``, ``nmm``).
"""
from __future__ import annotations

import math
import queue
import random
import statistics
import subprocess
import threading
import time
from collections import deque
from dataclasses import dataclass, field

import chess

COMMANDS = {"uci", "isready", "setoption", "ucinewgame", "position", "go", "stop", "ponderhit",
            "quit", "d", "eval", "perft", "bench", "nmm", "debug", "register"}
GO_NUMBERS = ("wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "movetime", "mate")
EXTREMES = ["-1", "0", "1", "-0", "+5", "2147483647", "2147483648", "-2147483649",
            "9223372036854775807", "18446744073709551616", "99999999999999999999999999",
            "1e309", "nan", "inf", "-inf", "1.5", "1000.5", "0x10", "1_000", "\u0661\u0662", "", "x"]
WORDS = ["uci", "isready", "position", "startpos", "fen", "moves", "go", "stop", "ponderhit",
         "setoption", "name", "value", "depth", "wtime", "btime", "winc", "binc", "movestogo",
         "nodes", "movetime", "mate", "infinite", "ponder", "searchmoves", "perft", "ucinewgame",
         "e2e4", "e7e5", "e1g1", "e1h1", "a7a8q", "a7a8Q", "0000", "w", "b", "KQkq", "-",
         "8/8/8/8/8/8/8/8", "K7/8/8/8/8/8/8/7k", "register", "later", "debug", "on", "off",
         "eval", "nmm", "bench", "d", "\u20ac", "\x00", "\x1b[2J", "quit"]
FENS = [
    chess.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "8/4P3/8/8/8/8/k7/7K w - - 0 1",
    "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1",                       # mated
    "7k/8/6QK/8/8/8/8/8 b - - 0 1",                         # stalemate
    "r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1",                # mate in 3
    "8/8/8/8/8/8/8/K6k w - - 99 80",
    "1r4kr/8/8/8/8/8/8/1R4KR w HBhb - 0 1",                 # Chess960 castling rights
    "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1",  # 218 moves
    "knQQQQQQ/ppQ4Q/QQ5Q/Q6Q/Q6Q/Q6Q/Q6Q/QQQQQQQK w - - 0 1",  # no game reaches it
    "8/8/8 w - - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
]
OPEN_DEPTH, OPEN_NODES, OPEN_MS, OPEN_MATE = 11, 2_000_000, 5_000, 2
FALLBACK_MS = 1_000         # what a go with only bad numbers may think (the engine's documented fallback)
SLACK_MS = 3_000            # beyond the bound: "late" (reported, never a failure)
STOP_AFTER_MS = 300         # open-ended searches get a stop this long after their go
HANG_GUARD_S = 60.0         # no answer this long after it was due: a hang (the only timed failure)


@dataclass
class GoRecord:
    line: str
    sent: float
    bound_ms: float | None          # None: open-ended, it gets a stop
    board: chess.Board | None = None
    stop_sent: float | None = None
    answered: float | None = None
    started: float | None = None    # when the engine could begin it: sent, or the go before answered


@dataclass
class Latencies:
    """Answer times in ms, with the line sent before the slowest ones."""
    ms: list[float] = field(default_factory=list)
    slowest: list[tuple[float, str]] = field(default_factory=list)

    def add(self, ms: float, after: str = "") -> None:
        self.ms.append(ms)
        self.slowest = sorted(self.slowest + [(ms, after)], reverse=True)[:3]

    def describe(self) -> str:
        if not self.ms:
            return "none"
        ordered = sorted(self.ms)
        text = (f"median {statistics.median(ordered):.2f} ms, 99% "
                f"{ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]:.2f} ms, worst "
                f"{ordered[-1]:.1f} ms, {sum(ms > 50 for ms in ordered)} of {len(ordered)} over 50 ms")
        if any(after for _, after in self.slowest):
            text += "; the slowest after: " + "; ".join(
                f"{after[:50]!r} ({ms:.0f} ms)" for ms, after in self.slowest)
        return text


@dataclass
class Report:
    lines: int = 0
    gos: int = 0
    restarts: int = 0
    busy_isready: Latencies = field(default_factory=Latencies)   # a go was running: at once
    idle_isready: Latencies = field(default_factory=Latencies)   # in turn, after what came before
    first_isready: Latencies = field(default_factory=Latencies)  # after a start: the net loads
    stop: Latencies = field(default_factory=Latencies)           # stop to bestmove
    late: list[tuple[str, float]] = field(default_factory=list)
    checked_moves: int = 0
    failures: list[str] = field(default_factory=list)
    context: list[str] = field(default_factory=list)    # the traffic before the first failure

    def summary(self) -> str:
        worst_late = max((ms for _, ms in self.late), default=0.0)
        return "\n".join([
            f"{self.lines} lines, {self.gos} go, {self.restarts} engine restarts (quit), "
            f"{self.checked_moves} moves checked legal",
            f"isready during a search: {self.busy_isready.describe()}",
            f"isready otherwise (in turn): {self.idle_isready.describe()}",
            f"first isready after a start (the net loads): {self.first_isready.describe()}",
            f"stop to bestmove: {self.stop.describe()}",
            f"bounded searches answering more than {SLACK_MS} ms after their bound (from when "
            f"they could start; measured, not a failure): {len(self.late)}"
            + (f" (worst {worst_late:.0f} ms)" if self.late else ""),
            f"failures: {len(self.failures)}",
            *(f"  {f}" for f in self.failures[:20]),
            *(["before the first (> sent, < received):"] + [f"  {c!r}" for c in self.context]
              if self.context else []),
        ])


class EngineProcess:
    """The engine under test: its output lines, timed, in a queue."""

    def __init__(self, command: list[str]) -> None:
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, bufsize=0)
        self.out: queue.Queue = queue.Queue()
        self.stderr = bytearray()
        threading.Thread(target=self._read_out, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read_out(self) -> None:
        for raw in self.proc.stdout:
            self.out.put((time.monotonic(), raw.decode("utf-8", "replace").rstrip("\r\n")))
        self.out.put((time.monotonic(), None))

    def _read_err(self) -> None:
        for raw in self.proc.stderr:
            self.stderr += raw

    def send(self, text: str) -> float:
        # surrogatepass: a lone surrogate goes out as bytes that are not UTF-8.
        self.proc.stdin.write(text.encode("utf-8", "surrogatepass"))
        self.proc.stdin.flush()
        return time.monotonic()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def command_of(line: str) -> tuple[str | None, list[str]]:
    """The command an engine reads in ``line`` (the first known word) and its arguments."""
    tokens = line.split()
    for i, token in enumerate(tokens):
        if token in COMMANDS:
            return token, tokens[i + 1:]
    return None, []


def go_bound_ms(args: list[str]) -> float | None:
    """How long a ``go`` may take to answer on its own (None: open-ended)."""
    if "infinite" in args or "ponder" in args:
        return None
    values: dict[str, float] = {}
    named = False
    for i, token in enumerate(args):
        if token in GO_NUMBERS:
            named = True
            try:
                values[token] = float(args[i + 1])
            except (IndexError, ValueError):
                pass
    if not named:
        return None                                 # bare go: until stop
    values = {k: v for k, v in values.items() if math.isfinite(v)}
    if (values.get("depth", 0) >= OPEN_DEPTH or values.get("nodes", 0) >= OPEN_NODES
            or values.get("mate", 0) >= OPEN_MATE
            or any(values.get(k, 0) > OPEN_MS for k in ("movetime", "wtime", "btime", "winc", "binc"))):
        return None
    times = [values[k] for k in ("movetime", "wtime", "btime") if k in values]
    return max(times + [FALLBACK_MS])


class LineMaker:
    """Random UCI lines: well-formed ones, mutations of them, and garbage."""

    def __init__(self, rng: random.Random, options: dict[str, dict]) -> None:
        self.rng = rng
        self.options = options
        self.boards = [chess.Board(fen) for fen in FENS[:8]]

    def line(self) -> str:
        r = self.rng.random()
        if r < 0.05:
            return self.garbage()
        line = self.well_formed()
        return self.mutate(line) if r < 0.35 else line

    def well_formed(self) -> str:
        rng = self.rng
        kind = rng.choices(["position", "go", "setoption", "isready", "stop", "ponderhit",
                            "ucinewgame", "d", "perft", "other", "quit"],
                           [20, 25, 10, 5, 8, 5, 3, 3, 3, 3, 0.3])[0]
        if kind == "position":
            return self.position()
        if kind == "go":
            return self.go()
        if kind == "setoption":
            return self.setoption()
        if kind == "perft":
            return rng.choice(["perft", "go perft"]) + f" {rng.randint(1, 3)}"
        if kind == "other":
            return rng.choice(["uci", "eval", "nmm", "debug on", "debug off", "register later",
                               "bench 1", "d"])
        return kind

    def position(self) -> str:
        rng = self.rng
        fen = chess.STARTING_FEN if rng.random() < 0.5 else rng.choice(FENS)
        try:
            board = chess.Board(fen, chess960=True)     # castling as king takes rook
        except ValueError:
            return f"position fen {fen}" + rng.choice(["", " moves e2e4"])
        moves = []
        for _ in range(rng.choice([0, 1, 4, 12, 40, 120])):
            legal = list(board.legal_moves)
            if not legal:
                break
            move = rng.choice(legal)
            moves.append(move.uci().upper() if move.promotion and rng.random() < 0.5 else move.uci())
            board.push(move)
        head = "startpos" if fen == chess.STARTING_FEN and rng.random() < 0.7 else f"fen {fen}"
        return f"position {head}" + (f" moves {' '.join(moves)}" if moves else "")

    def go(self) -> str:
        rng = self.rng
        parts = ["go"]
        choice = rng.random()
        if choice < 0.25:
            parts += ["depth", str(rng.randint(1, 6))]
        elif choice < 0.4:
            parts += ["nodes", str(rng.randint(1, 60_000))]
        elif choice < 0.55:
            parts += ["movetime", str(rng.randint(1, 300))]
        elif choice < 0.8:
            parts += ["wtime", str(rng.randint(-50, 3000)), "btime", str(rng.randint(-50, 3000))]
            if rng.random() < 0.5:
                parts += ["winc", str(rng.randint(0, 100)), "binc", str(rng.randint(0, 100))]
            if rng.random() < 0.3:
                parts += ["movestogo", str(rng.randint(1, 40))]
        elif choice < 0.85:
            parts += ["mate", str(rng.randint(1, 3))]
        elif choice < 0.92:
            parts += ["infinite"]
        elif choice < 0.96:
            parts += ["ponder", "wtime", str(rng.randint(100, 3000)), "btime", str(rng.randint(100, 3000))]
        if rng.random() < 0.1:
            parts += ["searchmoves"] + rng.sample(["e2e4", "d2d4", "e1g1", "e1h1", "a7a8q",
                                                    "g8f6", "zz", "e7e5", "b1c3"], rng.randint(1, 3))
        return " ".join(parts)

    def setoption(self) -> str:
        rng = self.rng
        if not self.options:
            return "setoption name Hash value 16"
        name = rng.choice(list(self.options))
        spec = self.options[name]
        if spec["type"] == "button":
            return f"setoption name {name}"
        if spec["type"] == "spin":
            low, high = spec["min"], spec["max"]
            value = rng.choice([low, high, low - 1, high + 1, rng.randint(low, min(high, low + 64)),
                                spec["default"]])
            if name.lower() == "hash" and rng.random() < 0.8:
                value = rng.choice([1, 2, 16, 32])  # big tables are rare: they cost memory
            if name.lower() == "threads" and rng.random() < 0.8:
                value = rng.choice([1, 2, 3, 4])    # many threads are rare: on a busy machine each
                                                    # search's main thread then gets little of a CPU
            value = str(value) if rng.random() < 0.9 else rng.choice(EXTREMES)
        elif spec["type"] == "check":
            value = rng.choice(["true", "false", "TRUE", "False", "maybe", ""])
        elif spec["type"] == "combo":
            value = rng.choice(spec["vars"] + ["nonsense", ""])
        else:
            value = rng.choice([spec["default"], "", "/nonexistent/net.npz", "/dev/null", ".",
                                "nets", "README.md"])
        return f"setoption name {name} value {value}"

    def mutate(self, line: str) -> str:
        rng = self.rng
        tokens = line.split()
        for _ in range(rng.randint(1, 3)):
            if not tokens:
                tokens = [rng.choice(WORDS)]
            what = rng.random()
            i = rng.randrange(len(tokens))
            if what < 0.3:
                numbers = [k for k, t in enumerate(tokens) if t.lstrip("-").isdigit()]
                tokens[rng.choice(numbers) if numbers else i] = rng.choice(EXTREMES)
            elif what < 0.45:
                del tokens[i]
            elif what < 0.55:
                tokens.insert(i, tokens[i])
            elif what < 0.65:
                j = rng.randrange(len(tokens))
                tokens[i], tokens[j] = tokens[j], tokens[i]
            elif what < 0.8:
                tokens.insert(i, rng.choice(WORDS + EXTREMES))
            elif what < 0.9:
                tokens[i] = tokens[i].upper() if rng.random() < 0.5 else tokens[i][: len(tokens[i]) // 2]
            else:
                tokens[i] = "".join(rng.sample(tokens[i], len(tokens[i])))
        sep = rng.choice([" ", " ", " ", "  ", "\t", " \t "])
        text = sep.join(tokens)
        if rng.random() < 0.1:
            text = rng.choice(["  ", "\t", ""]) + text + rng.choice(["\r", "  ", "\t", ""])
        return text

    def garbage(self) -> str:
        rng = self.rng
        if rng.random() < 0.5:
            return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 8)))
        return "".join(chr(rng.choice([rng.randint(1, 0x2FF), rng.randint(0x300, 0xFFFF)]))
                       for _ in range(rng.randint(0, 40))).replace("\n", " ").replace("\r", " ")


class Fuzzer:
    """``hang_s``: how long any answer may be missing before it is a hang
    (uciok, readyok, the exit after quit, a bestmove after its limit or its
    stop). ``go_hang_s`` (default ``hang_s``) for the bestmove alone: a test
    that wants a missing bestmove found quickly shortens it and nothing else."""

    def __init__(self, command: list[str], seed: int, hang_s: float = HANG_GUARD_S,
                 go_hang_s: float | None = None) -> None:
        self.command = command
        self.rng = random.Random(seed)
        self.hang_s = hang_s
        self.go_hang_s = hang_s if go_hang_s is None else go_hang_s
        self.report = Report()
        self.gos: list[GoRecord] = []           # sent, not yet answered, oldest first
        self.d_for: list[GoRecord | None] = []  # what each pending d's FEN belongs to
        self.fen_owner: GoRecord | None = None  # whose FEN the last Fen: line was
        self.fen = ""
        self.current: GoRecord | None = None    # the go whose info lines are being read
        self.last_long_job = 0.0                # a perft or bench may still run
        self.last_line = ""
        self.recent_in: deque[str] = deque(maxlen=40)     # lines sent, for a failure's report
        self.recent_out: deque[str] = deque(maxlen=40)
        self.readyok = 0                        # readyok lines seen ...
        self.isready = 0                        # ... and isready commands sent (this engine)
        self.last_answer = 0.0                  # when the last bestmove (or the engine's start) came
        self.engine = self._start()
        self.maker = LineMaker(self.rng, self.options)

    # --- the engine ---------------------------------------------------------------

    def _start(self) -> EngineProcess:
        engine = EngineProcess(self.command)
        engine.send("uci\n")
        self.options = {}
        while True:
            try:
                line = self._next(engine, self.hang_s)
            except TimeoutError:
                self.fail(f"no uciok in {self.hang_s:.0f} s after the start")
                engine.kill()
                raise
            if line is None or line == "uciok":
                break
            if line.startswith("option name "):
                self._read_option(line)
        self.last_answer = time.monotonic()
        return engine

    def _read_option(self, line: str) -> None:
        words = line.split()
        name = " ".join(words[2:words.index("type")])
        spec: dict = {"type": words[words.index("type") + 1], "vars": []}
        for key in ("default", "min", "max"):
            if key in words:
                text = words[words.index(key) + 1]
                spec[key] = int(text) if key != "default" and text.lstrip("-").isdigit() else text
        for i, word in enumerate(words):
            if word == "var":
                spec["vars"].append(words[i + 1])
        if spec["type"] == "spin":
            spec["default"] = int(spec["default"])
        self.options[name] = spec

    def _next(self, engine: EngineProcess, timeout: float) -> str | None:
        """The next output line (None if the engine has exited, TimeoutError if none came)."""
        try:
            _, line = engine.out.get(timeout=max(timeout, 0))
        except queue.Empty:
            raise TimeoutError from None
        return line

    def fail(self, text: str) -> None:
        self.report.failures.append(f"line {self.report.lines}: {text}")
        if len(self.report.failures) == 1:      # what led to the first one
            self.report.context = ([f"> {line}" for line in self.recent_in]
                                   + [f"< {line}" for line in self.recent_out])

    # --- output ---------------------------------------------------------------------

    def take(self, at: float, line: str) -> None:
        """Check one output line against what was sent."""
        self.recent_out.append(line)
        words = line.split()
        if line == "readyok":
            self.readyok += 1
            if self.readyok == self.isready + 1:    # once: every later one is surplus too
                self.fail("a readyok for no isready")
        elif line.startswith("Fen: "):
            self.fen_owner = self.d_for.pop(0) if self.d_for else None
            self.fen = line[5:]
        elif line.startswith("Chess960: ") and self.fen_owner is not None:
            # Read only now: in standard mode python-chess drops Chess960 castling rights.
            self.fen_owner.board = self._board(self.fen, words[1] == "true")
            self.current = self.fen_owner
        elif words[:1] == ["bestmove"]:
            self._bestmove(at, words)
        elif words[:1] == ["info"] and self.current is not None and self.current.board is not None:
            if "pv" in words:
                self._legal(self.current.board, words[words.index("pv") + 1:], line)
            if "currmove" in words:
                self._legal(self.current.board, words[words.index("currmove") + 1:][:1], line)
        elif line.startswith("Traceback"):
            self.fail(f"a traceback on stdout: {line}")

    def _board(self, fen: str, chess960: bool) -> chess.Board | None:
        try:
            return chess.Board(fen, chess960=chess960)
        except ValueError:
            self.fail(f"the engine's FEN is not readable: {fen}")
            return None

    def _legal(self, board: chess.Board, moves: list[str], line: str) -> bool:
        board = board.copy(stack=False)
        for text in moves:
            try:
                move = chess.Move.from_uci(text)
            except ValueError:
                move = None
            if move is None or move not in board.legal_moves:
                self.fail(f"illegal move {text} in {board.fen()}: {line}")
                return False
            board.push(move)
            self.report.checked_moves += 1
        return True

    def _bestmove(self, at: float, words: list[str]) -> None:
        if not self.gos:
            self.fail(f"a bestmove for no go: {' '.join(words)}")
            return
        go = self.gos.pop(0)
        go.answered = at
        started = self._started(go)
        self.last_answer = at
        if self.current is go:
            self.current = None
        if go.stop_sent is not None:
            self.report.stop.add((at - max(go.stop_sent, started)) * 1000)
        elif go.bound_ms is not None and (at - started) * 1000 > go.bound_ms + SLACK_MS:
            # A measurement: a busy machine answers late, and that is no failure.
            self.report.late.append((go.line, (at - started) * 1000 - go.bound_ms))
        if len(words) < 2 or go.board is None:
            if go.board is None:
                self.fail(f"no FEN was read for {go.line!r}")
            return
        if words[1] == "0000":
            if any(go.board.legal_moves):
                self.fail(f"bestmove 0000 with legal moves in {go.board.fen()}")
            return
        moves = [words[1]] + (words[3:4] if words[2:3] == ["ponder"] else [])
        self._legal(go.board, moves, " ".join(words))

    def drain(self, until: float) -> None:
        """Read output until ``until`` (monotonic), or until the engine exits."""
        while True:
            try:
                at, line = self.engine.out.get(timeout=max(until - time.monotonic(), 0))
            except queue.Empty:
                return
            if line is None:
                raise EOFError
            self.take(at, line)

    # --- the loop ---------------------------------------------------------------------

    def send_line(self, line: str) -> None:
        self.recent_in.append(line)
        command, args = command_of(line)
        text = line + "\n"
        if command == "go" and args[:1] != ["perft"]:
            record = GoRecord(line, 0.0, go_bound_ms(args))
            self.d_for.append(record)
            record.sent = self.engine.send("d\n" + text)
            self.gos.append(record)
            self.report.gos += 1
            return
        if command == "d":
            self.d_for.append(None)
        if command == "isready":
            self.isready += 1
        if command in ("perft", "bench") or (command == "go" and args[:1] == ["perft"]):
            self.last_long_job = time.monotonic()
        if command == "quit":
            self.restart(line)
            return
        self.engine.send(text)

    def sync(self) -> None:
        """isready, and wait for its readyok while reading everything else."""
        self.isready += 1
        expected = self.isready
        busy = bool(self.gos)
        sent = self.engine.send("isready\n")
        deadline = sent + self.hang_s
        while self.readyok < expected:
            try:
                at, line = self.engine.out.get(timeout=max(deadline - time.monotonic(), 0))
            except queue.Empty:
                self.fail(f"no readyok in {self.hang_s:.0f} s")
                raise TimeoutError from None
            if line is None:
                raise EOFError
            self.take(at, line)
            if line == "readyok" and self.readyok == expected:
                kind = ("first_isready" if expected == 1 else
                        "busy_isready" if busy else "idle_isready")
                getattr(self.report, kind).add((at - sent) * 1000, self.last_line)

    def _started(self, go: GoRecord) -> float:
        """When the engine could begin ``go``: its line, or the answer to the
        go before it if that came later (one search at a time)."""
        if go.started is None:
            go.started = max(go.sent, self.last_answer)
        return go.started

    def stop_open_ended(self, force: bool = False) -> None:
        now = time.monotonic()
        due = [g for g in self.gos if g.stop_sent is None and (force or (
            g.bound_ms is None and now - g.sent > STOP_AFTER_MS / 1000))]
        long_job = force or (self.last_long_job and now - self.last_long_job > STOP_AFTER_MS / 1000)
        if due or long_job:
            sent = self.engine.send("stop\n")
            for g in due:
                g.stop_sent = sent
            self.last_long_job = 0.0
        if not self.gos:
            return
        # Only the oldest unanswered go can be running: the others wait their turn, and
        # their time starts when it answers. It is hung if, that long past its limit
        # (or its stop), no bestmove has come.
        g = self.gos[0]
        started = self._started(g)
        limit = max(g.stop_sent, started) if g.stop_sent is not None else (
            started + g.bound_ms / 1000 if g.bound_ms is not None else None)
        if limit is not None and now - limit > self.go_hang_s:
            self.fail(f"no bestmove {self.go_hang_s:.0f} s after its limit or stop: {g.line!r}")
            raise TimeoutError

    def finish_all(self) -> None:
        """Stop everything and wait for every outstanding bestmove (each go
        has the guard from the stop, or from the answer before it)."""
        while self.gos or self.last_long_job:
            self.stop_open_ended(force=True)
            self.drain(time.monotonic() + 0.05)
            self.sync()
            self.last_long_job = 0.0

    def restart(self, quit_line: str) -> None:
        """Send the quit line (after stopping what runs), check a clean exit, start anew."""
        self.finish_all()
        self.engine.send(quit_line + "\n")
        self._close()
        self.engine = self._start()
        self.report.restarts += 1

    def _close(self) -> None:
        try:
            code = self.engine.proc.wait(timeout=self.hang_s)
        except subprocess.TimeoutExpired:
            self.fail("the engine did not exit after quit")
            self.engine.kill()
            return
        while True:                             # what it wrote before it exited
            try:
                at, line = self.engine.out.get(timeout=self.hang_s)
            except queue.Empty:
                break
            if line is None:
                break
            self.take(at, line)
        if code != 0:
            self.fail(f"exit code {code} after quit")
        if self.engine.stderr:
            self.fail(f"stderr: {bytes(self.engine.stderr[-500:]).decode('utf-8', 'replace')}")
        self.gos.clear()
        self.d_for.clear()
        self.current = self.fen_owner = None
        self.readyok = self.isready = 0

    def run(self, lines: int, progress=None) -> Report:
        try:
            for _ in range(lines):
                line = self.maker.line()
                self.last_line = line
                self.report.lines += 1
                self.send_line(line)
                self.sync()
                self.stop_open_ended()
                if progress:
                    progress()
            self.finish_all()
            self.engine.send("quit\n")
            self._close()
        except EOFError:
            self.fail(f"the engine died (exit code {self.engine.proc.wait()}); stderr: "
                      f"{bytes(self.engine.stderr[-500:]).decode('utf-8', 'replace')}")
        except TimeoutError:
            self.engine.kill()
        return self.report
