"""Every file the engine ships, read and checked here before the search sees
a number: the Neural MoveMap, the TD evaluation, the ChessMaps regions net
and strategy database. The lab (engine/train, engine/data) writes them
through the ``save_*`` functions here, so that writer and reader agree.

A file is a compressed ``.npz`` holding its arrays and a ``header``: a JSON
text with the format name and version, the kind of file, the input encoding
it was made for, its shapes, and what is known of its making. Loading
checks all of it and raises NetError with a sentence a user can act on.

>>> import numpy as np, tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.npz"
>>> net = NmmNet("mirrored768", np.zeros((1792, 768), np.float32), np.zeros(1792, np.float32), {})
>>> save_nmm(net, path)
>>> load_nmm(path).encoding
'mirrored768'
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.paths import NETS_DIR   # the package's nets, wherever it is installed

FORMAT = "nmm-chess-net"
VERSION = 1
DEFAULT_NMM = NETS_DIR / "nmm.npz"
NMM_ENCODINGS = {"paper385": 385, "planes769": 769, "mirrored768": 768, "context960": 960}
NMM_OUTPUTS = 1792
DEFAULT_HHWEIGHT = 0.01     # for a net whose header suggests no history weight


class NetError(ValueError):
    """A weight file that cannot be used (missing, corrupt, or for another net)."""


@dataclass
class NmmNet:
    """A Neural MoveMap. Linear: ``weights`` (1792, inputs), one row per from-to
    output. With a hidden layer (``w1`` given): h = x / (1 + |x|) of
    ``w1``' sums plus ``b1``, and ``weights`` (1792, hidden) is the output layer."""
    encoding: str
    weights: np.ndarray             # (1792, inputs) linear, or (1792, hidden): float32
    bias: np.ndarray                # (1792,) float32
    info: dict = field(default_factory=dict)   # training data, accuracy, score spread, ...
    w1: np.ndarray | None = None    # (inputs, hidden) float32: the hidden layer's weights ...
    b1: np.ndarray | None = None    # (hidden,) ... and bias

    @property
    def hidden(self) -> int:
        return 0 if self.w1 is None else int(self.w1.shape[1])

    @property
    def suggested_hhweight(self) -> float:
        """The history weight the trainer derived from the scores' spread."""
        return self.info.get("suggested_hhweight") or DEFAULT_HHWEIGHT

    def install(self, searcher) -> None:
        """Load the net into a Searcher."""
        if self.hidden:
            searcher.set_nmm_hidden(self.encoding, self.w1, self.b1, self.weights, self.bias)
        else:
            searcher.set_nmm(self.encoding, self.weights, self.bias)


HIDDEN_ENCODINGS = ("mirrored768", "context960")    # binary inputs: the core adds rows, no multiply
MAX_HIDDEN = 128                                    # NMM_MAX_HIDDEN in ext/nmm.pxi


def save_nmm(net: NmmNet, path: Path) -> None:
    arrays = {"weights": net.weights.astype(np.float32), "bias": net.bias.astype(np.float32)}
    if net.hidden:
        arrays |= {"w1": net.w1.astype(np.float32), "b1": net.b1.astype(np.float32)}
    header = {"format": FORMAT, "version": VERSION, "kind": "nmm", "encoding": net.encoding,
              "inputs": int(NMM_ENCODINGS[net.encoding]), "outputs": NMM_OUTPUTS, "hidden": net.hidden,
              "output_order": "from-major list of the from-to pairs a queen or knight can make",
              "shapes": {k: list(v.shape) for k, v in arrays.items()},
              **net.info}
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, header=np.array(json.dumps(header)), **arrays)


def read_header(path: Path) -> tuple[dict, dict[str, np.ndarray]]:
    """The header and arrays of any net file; NetError if it is not one."""
    path = Path(path)
    if not path.is_file():
        raise NetError(f"no weight file at {path}")
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except Exception as e:      # a damaged file fails in many ways (zip, zlib, npy, memory)
        raise NetError(f"{path} is not a readable weight file ({type(e).__name__})") from None
    if "header" not in arrays:
        raise NetError(f"{path} has no header: not an nmm-chess weight file")
    try:
        header = json.loads(str(arrays.pop("header")))
    except json.JSONDecodeError:
        raise NetError(f"{path} has a broken header") from None
    if header.get("format") != FORMAT:
        raise NetError(f"{path} is not an nmm-chess weight file")
    if header.get("version") != VERSION:
        raise NetError(f"{path} has format version {header.get('version')}; this engine reads {VERSION}")
    return header, arrays


def load_nmm(path: Path) -> NmmNet:
    """Load and check a Neural MoveMap file."""
    header, arrays = read_header(path)
    if header.get("kind") != "nmm":
        raise NetError(f"{path} holds a {header.get('kind')!r} net, not a Neural MoveMap")
    encoding = header.get("encoding")
    if encoding not in NMM_ENCODINGS:
        raise NetError(f"{path} was trained for encoding {encoding!r}, which this engine does not know")
    inputs = NMM_ENCODINGS[encoding]
    weights, bias = arrays.get("weights"), arrays.get("bias")
    if weights is None or bias is None:
        raise NetError(f"{path} lacks its weights or bias")
    hidden = header.get("hidden", 0)
    w1, b1 = arrays.get("w1"), arrays.get("b1")
    if hidden:
        if encoding not in HIDDEN_ENCODINGS:
            raise NetError(f"{path}: a hidden layer needs a binary encoding ({', '.join(HIDDEN_ENCODINGS)}), "
                           f"not {encoding}")
        if not isinstance(hidden, int) or not 0 < hidden <= MAX_HIDDEN:
            raise NetError(f"{path}: {hidden!r} hidden units; this engine takes 1 to {MAX_HIDDEN}")
        if w1 is None or b1 is None or w1.shape != (inputs, hidden) or b1.shape != (hidden,):
            raise NetError(f"{path}: the hidden layer's arrays are missing or do not fit "
                           f"{encoding} x {hidden} units")
    elif w1 is not None or b1 is not None:
        raise NetError(f"{path} holds hidden-layer arrays but its header says it has none")
    width = hidden or inputs
    if weights.shape != (NMM_OUTPUTS, width) or bias.shape != (NMM_OUTPUTS,):
        raise NetError(f"{path}: shapes {weights.shape} and {bias.shape} do not fit {encoding} "
                       f"({NMM_OUTPUTS} x {width})")
    if header.get("inputs") != inputs or header.get("outputs") != NMM_OUTPUTS:
        raise NetError(f"{path}: the header's shapes disagree with the encoding {encoding}")
    if not all(np.isfinite(a).all() for a in (weights, bias, w1, b1) if a is not None):
        raise NetError(f"{path} holds values that are not finite numbers")
    known = {"format", "version", "kind", "encoding", "inputs", "outputs", "output_order", "shapes", "hidden"}
    info = {k: v for k, v in header.items() if k not in known}
    return NmmNet(encoding, float32(weights), float32(bias), info, float32(w1), float32(b1))


def float32(a: np.ndarray | None) -> np.ndarray | None:
    return None if a is None else np.ascontiguousarray(a, np.float32)


# --- the TD-trained evaluation --------------------------------------------

TD_LAYOUT = "thesis-appendix-b/1"          # engine/data/td.py LAYOUT: the core's feature layout
TD_SQUARES = {"A": 0, "B": 224, "C": 736}
TD_DENSE = 62
DEFAULT_TD = NETS_DIR / "td.npz"


@dataclass
class TdNet:
    """Phase nets (1 or 3) over set A's numbers and the square inputs of ``squares``.

    The input normalisation of training is folded into the first layer, so the
    engine feeds the raw features. ``hidden`` 0 is the linear net (``w2`` then
    holds one weight per input).
    """
    squares: str
    w1: np.ndarray              # (nets, inputs, hidden) float32
    b1: np.ndarray              # (nets, hidden)
    w2: np.ndarray              # (nets, hidden), or (nets, inputs) for the linear net
    b2: np.ndarray              # (nets,)
    cp_scale: float             # cp = 2 * cp_scale * atanh(output)
    info: dict = field(default_factory=dict)
    on_handwritten: bool = False    # a correction: cp = handwritten + 2 * cp_scale * output
    phase: str = "move"             # the phase rule's opening clock: development, or move (older nets)
    base_fingerprint: str | None = None     # a correction's: the handwritten weights it was learnt on

    @property
    def nets(self) -> int:
        return self.b2.shape[0]

    @property
    def hidden(self) -> int:
        return self.b1.shape[1]

    @property
    def inputs(self) -> int:
        return TD_DENSE + TD_SQUARES[self.squares]

    def install(self, searcher) -> None:
        """Make ``searcher`` (engine._core.Searcher) evaluate with this net."""
        searcher.set_td(self.squares, self.w1, self.b1, self.w2, self.b2, self.cp_scale, self.on_handwritten,
                        self.phase == "development")

    @classmethod
    def from_training(cls, mlps: list, mean: np.ndarray, std: np.ndarray, squares: str,
                      cp_scale: float, info: dict, on_handwritten: bool = False,
                      phase: str = "development", base_fingerprint: str | None = None) -> "TdNet":
        """Fold (x - mean) / std on the dense inputs into the trained weights."""
        w1, b1, w2, b2 = [], [], [], []
        for m in mlps:
            if m.hidden == 0:
                w = m.w2.astype(np.float64).copy()
                bias = float(m.b2[0]) - float((mean / std) @ w[:TD_DENSE])
                w[:TD_DENSE] /= std
                w1.append(np.zeros((len(w), 0)))
                b1.append(np.zeros(0))
                w2.append(w)
                b2.append(bias)
            else:
                w = m.w1.astype(np.float64).copy()
                bias = m.b1 - (mean / std) @ w[:TD_DENSE]
                w[:TD_DENSE] /= std[:, None]
                w1.append(w)
                b1.append(bias)
                w2.append(m.w2)
                b2.append(float(m.b2[0]))
        f32 = lambda a: np.ascontiguousarray(np.array(a), np.float32)  # noqa: E731
        return cls(squares, f32(w1), f32(b1), f32(w2), f32(b2), float(cp_scale), info, on_handwritten, phase,
                   base_fingerprint)

    def evaluate(self, dense: np.ndarray, active: list[int], weights: np.ndarray) -> float:
        """The blended output for one position (numpy; the engine's is in the core)."""
        x = np.zeros(self.inputs, np.float32)
        x[:TD_DENSE] = dense
        x[[TD_DENSE + a for a in active]] = 1
        out = 0.0
        for i in range(self.nets):
            if weights[i] > 0:
                if self.hidden == 0:
                    y = x @ self.w2[i] + self.b2[i]
                else:
                    z = x @ self.w1[i] + self.b1[i]
                    y = (z / (1 + np.abs(z))) @ self.w2[i] + self.b2[i]
                out += weights[i] * float(y)
        return out


PHASE_NAMES = ("opening", "middle game", "end game")
PHASE_RULES = ("development", "move")     # how the opening is told: see phase_weights


def phase_weights(phase: np.ndarray, nets: int, *, home: np.ndarray | None = None,
                  fullmove: np.ndarray | None = None) -> np.ndarray:
    """(n, nets) blend weights of the phase nets (the core blends by the same
    rule). End game: material phase (0..24, see the core's game_phase) 4 or
    less, none from 12 up. Opening: by development, ``home`` men on their
    starting squares (Board.home), all from 19, none at 10 or fewer (master
    games' medians at moves 8 and 16); or, the rule of the nets trained
    before it, by ``fullmove``, all up to move 8, none from move 16. Never in
    the end game; the middle game takes the rest.

    >>> phase_weights(np.array([24, 24, 8, 2]), 3, home=np.array([30, 14.5, 10, 2])).round(2).tolist()
    [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.0, 0.5, 0.5], [0.0, 0.0, 1.0]]
    >>> phase_weights(np.array([24, 24]), 3, fullmove=np.array([5, 12])).round(2).tolist()
    [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0]]
    """
    if nets == 1:
        return np.ones((len(phase), 1), np.float32)
    if (home is None) == (fullmove is None):
        raise ValueError("phase_weights needs one clock: home or fullmove")
    end = np.clip((12.0 - phase) / 8.0, 0, 1)
    clock = (np.asarray(home) - 10.0) / 9.0 if home is not None else (16.0 - np.asarray(fullmove)) / 8.0
    opening = np.clip(clock, 0, 1) * (1 - end)
    return np.stack([opening, 1 - opening - end, end], axis=1).astype(np.float32)


def rule_weights(rule: str, phase: np.ndarray, nets: int, home: np.ndarray, fullmove: np.ndarray) -> np.ndarray:
    """phase_weights under the phase rule ``rule`` (PHASE_RULES)."""
    if rule not in PHASE_RULES:
        raise ValueError(f"unknown phase rule {rule!r} ({', '.join(PHASE_RULES)})")
    return phase_weights(phase, nets, **({"home": home} if rule == "development" else {"fullmove": fullmove}))


PHASE_RULE_TEXT = {
    "development": "nets 3: end = clip((12 - phase) / 8), opening = clip((home - 10) / 9) * (1 - end), middle ="
                   " the rest; home: men on their starting squares (engine/nets.py phase_weights)",
    "move": "nets 3: end = clip((12 - phase) / 8), opening = clip((16 - fullmove) / 8) * (1 - end), middle ="
            " the rest (engine/nets.py phase_weights)"}


def weights_fingerprint(pairs) -> str:
    """A short hash of a handwritten evaluation's (mg, eg) weight pairs.

    >>> weights_fingerprint([(1, 2), (3, 4)]) == weights_fingerprint([[1, 2], [3, 4]])
    True
    """
    text = json.dumps([[int(mg), int(eg)] for mg, eg in pairs])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def handwritten_fingerprint() -> str:
    """The fingerprint of the weights this process's handwritten evaluation
    uses (the core's built-in table, or what ``set_eval_weights`` put there).
    A file whose numbers depend on them (a correction net, training data
    labelled by them) carries it, and is refused when it differs."""
    from engine._core import eval_weights
    return weights_fingerprint(eval_weights())


def evaluation_id(eval_file: Path | None = None) -> str:
    """What an engine evaluates with, for files that store its scores (move
    tables, self-play records): ``handwritten:<handwritten_fingerprint()>``;
    with a TD net ``td:<the net file's hash>``; with an NNUE (the file's
    header says which) ``nnue:<the net's fingerprint>``, the hash of its
    numbers that load_nnue checks (engine/evaluation/nnue.py)."""
    if eval_file is None:
        return f"handwritten:{handwritten_fingerprint()}"
    header, _ = read_header(eval_file)
    if header.get("kind") == "nnue":
        return f"nnue:{header.get('sha256')}"
    return f"td:{hashlib.sha256(Path(eval_file).read_bytes()).hexdigest()[:16]}"


def load_evaluation(path: Path):
    """The evaluation net in ``path``, a TD net or an NNUE as its header says
    (for commands that take either: self-play, bench-eval); NetError if it is
    neither or cannot be used. Either has ``install(searcher)``."""
    header, _ = read_header(path)
    if header.get("kind") == "nnue":
        from engine.evaluation.nnue import load_nnue     # it imports this module: not at the top
        return load_nnue(path)
    if header.get("kind") == "td":
        return load_td(path)
    raise NetError(f"{path} holds a {header.get('kind')!r} net, not an evaluation (td or nnue)")


def save_td(net: TdNet, path: Path) -> None:
    if net.on_handwritten and not net.base_fingerprint:
        raise ValueError("a correction to the handwritten evaluation needs the fingerprint of its weights")
    header = {"format": FORMAT, "version": VERSION, "kind": "td", "encoding": f"td-{net.squares}",
              "layout": TD_LAYOUT, "inputs": net.inputs, "hidden": net.hidden, "nets": net.nets,
              "phase": net.phase, "phase_rule": PHASE_RULE_TEXT[net.phase],
              "cp_scale": net.cp_scale, "base": "handwritten" if net.on_handwritten else "none",
              **({"base_fingerprint": net.base_fingerprint} if net.on_handwritten else {}),
              "shapes": {"w1": list(net.w1.shape), "b1": list(net.b1.shape), "w2": list(net.w2.shape),
                         "b2": list(net.b2.shape)},
              **net.info}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, header=np.array(json.dumps(header)), w1=net.w1, b1=net.b1, w2=net.w2,
                        b2=net.b2)


def load_td(path: Path) -> TdNet:
    """Load and check a TD evaluation net."""
    header, arrays = read_header(path)
    if header.get("kind") != "td":
        raise NetError(f"{path} holds a {header.get('kind')!r} net, not a TD evaluation")
    encoding = header.get("encoding", "")
    squares = encoding[3:] if encoding.startswith("td-") else None
    if squares not in TD_SQUARES:
        raise NetError(f"{path} was trained for encoding {encoding!r}, which this engine does not know")
    if header.get("layout") != TD_LAYOUT:
        raise NetError(f"{path} was trained on features {header.get('layout')!r}; "
                       f"this engine computes {TD_LAYOUT!r}")
    missing = [k for k in ("w1", "b1", "w2", "b2") if k not in arrays]
    if missing:
        raise NetError(f"{path} lacks {', '.join(missing)}")
    w1, b1, w2, b2 = (arrays[k] for k in ("w1", "b1", "w2", "b2"))
    nets, hidden, inputs = header.get("nets"), header.get("hidden"), TD_DENSE + TD_SQUARES[squares]
    if nets not in (1, 3) or not isinstance(hidden, int) or not 0 <= hidden <= 1024:
        raise NetError(f"{path}: {nets!r} nets of {hidden!r} hidden units is not a TD net this engine runs")
    expected = {"w1": (nets, inputs, hidden), "b1": (nets, hidden),
                "w2": (nets, hidden if hidden else inputs), "b2": (nets,)}
    for k, shape in expected.items():
        if arrays[k].shape != shape:
            raise NetError(f"{path}: {k} has shape {arrays[k].shape}, expected {shape} for {encoding}")
    if header.get("inputs") != inputs:
        raise NetError(f"{path}: the header's inputs disagree with the encoding {encoding}")
    scale = header.get("cp_scale")
    if not isinstance(scale, (int, float)) or not 1 <= scale <= 10_000:
        raise NetError(f"{path}: cp_scale {scale!r} is not a usable scale")
    if not all(np.isfinite(a).all() for a in (w1, b1, w2, b2)):
        raise NetError(f"{path} holds values that are not finite numbers")
    base = header.get("base", "none")
    if base not in ("none", "handwritten"):
        raise NetError(f"{path}: base {base!r} is not one this engine knows (none, handwritten)")
    fingerprint = header.get("base_fingerprint")
    if base == "handwritten" and fingerprint != handwritten_fingerprint():
        raise NetError(f"{path} corrects handwritten weights {fingerprint or '(unrecorded)'}, but this engine "
                       f"evaluates with {handwritten_fingerprint()}: its scores would be wrong. Retrain it on "
                       f"these weights (make td-data td-net) or use a net with base none")
    phase = header.get("phase", "move")         # files from before the development rule say nothing
    if phase not in PHASE_RULE_TEXT:
        raise NetError(f"{path}: phase rule {phase!r} is not one this engine knows ({', '.join(PHASE_RULE_TEXT)})")
    known = {"format", "version", "kind", "encoding", "layout", "inputs", "hidden", "nets", "phase_rule", "phase",
             "cp_scale", "shapes", "base", "base_fingerprint"}
    f32 = lambda a: np.ascontiguousarray(a, np.float32)  # noqa: E731
    return TdNet(squares, f32(w1), f32(b1), f32(w2), f32(b2), float(scale),
                 {k: v for k, v in header.items() if k not in known}, base == "handwritten", phase, fingerprint)


# --- the ChessMaps regions net (engine/train/regions.py trains it) ----------------

REGIONS_ENCODING = "regions896"
REGIONS_INPUTS = 2 * 64 + 12 * 64       # squares controlled by each side, where every piece stands
DEFAULT_REGIONS = NETS_DIR / "regions.npz"


@dataclass
class RegionsNet:
    """Which squares a quiet move acts on: a linear net with a sigmoid per square."""
    weights: np.ndarray             # (REGIONS_INPUTS, 64) float32
    bias: np.ndarray                # (64,) float32
    info: dict = field(default_factory=dict)


def save_regions(net: RegionsNet, path: Path) -> None:
    header = {"format": FORMAT, "version": VERSION, "kind": "regions", "encoding": REGIONS_ENCODING,
              "inputs": REGIONS_INPUTS, "outputs": 64,
              "shapes": {"weights": list(net.weights.shape), "bias": list(net.bias.shape)}, **net.info}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, header=np.array(json.dumps(header)), weights=net.weights.astype(np.float32),
                        bias=net.bias.astype(np.float32))


def load_regions(path: Path) -> RegionsNet:
    """Load and check a regions net; NetError with a sentence if it is not one."""
    header, arrays = read_header(path)
    if header.get("kind") != "regions":
        raise NetError(f"{path} holds a {header.get('kind')!r} file, not a regions net")
    if header.get("encoding") != REGIONS_ENCODING:
        raise NetError(f"{path} was trained for encoding {header.get('encoding')!r}; "
                       f"this engine reads {REGIONS_ENCODING}")
    weights, bias = arrays.get("weights"), arrays.get("bias")
    if weights is None or bias is None or weights.shape != (REGIONS_INPUTS, 64) or bias.shape != (64,):
        raise NetError(f"{path}: a regions net is ({REGIONS_INPUTS}, 64) weights and (64,) bias")
    if not (np.isfinite(weights).all() and np.isfinite(bias).all()):
        raise NetError(f"{path} holds values that are not finite numbers")
    known = {"format", "version", "kind", "encoding", "inputs", "outputs", "shapes"}
    return RegionsNet(weights.astype(np.float32), bias.astype(np.float32),
                      {k: v for k, v in header.items() if k not in known})


# --- the ChessMaps strategy database (engine/data/strategy.py builds it) ---------

STRATEGY_ENCODING = "chessmaps-strategy/1"
STRATEGY_KEYS = 6 * 64 * 64     # piece type x from x to, in the mover's frame
PIECE_CODES = 13                # 0 empty, 1-6 our pawn..king, 7-12 theirs
DEFAULT_STRATEGY = NETS_DIR / "strategy.npz"


@dataclass
class StrategyDb:
    """Per move that begins a kept 3-ply path: the piece most often on each square after it."""
    keys: np.ndarray                # (n,) int32 move keys, ascending
    count: np.ndarray               # (n,) int32: kept paths begun by the move
    popular: np.ndarray             # (n, 64) uint8 piece code most often on each square after the path
    share: np.ndarray               # (n, 64) uint8 how often, of 255
    info: dict = field(default_factory=dict)


def save_strategy(db: StrategyDb, path: Path) -> None:
    header = {"format": FORMAT, "version": VERSION, "kind": "strategy", "encoding": STRATEGY_ENCODING,
              "shapes": {"keys": list(db.keys.shape), "count": list(db.count.shape),
                         "popular": list(db.popular.shape), "share": list(db.share.shape)}, **db.info}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, header=np.array(json.dumps(header)), keys=db.keys, count=db.count,
                        popular=db.popular, share=db.share)


def load_strategy(path: Path) -> StrategyDb:
    """Load and check a strategy database; NetError with a sentence if it is not one."""
    header, arrays = read_header(path)
    if header.get("kind") != "strategy":
        raise NetError(f"{path} holds a {header.get('kind')!r} file, not a strategy database")
    if header.get("encoding") != STRATEGY_ENCODING:
        raise NetError(f"{path} has encoding {header.get('encoding')!r}; this engine reads {STRATEGY_ENCODING}")
    try:
        keys, count, popular, share = (arrays[k] for k in ("keys", "count", "popular", "share"))
    except KeyError:
        raise NetError(f"{path} lacks one of its arrays") from None
    n = len(keys)
    if (keys.shape != (n,) or count.shape != (n,) or popular.shape != (n, 64) or share.shape != (n, 64)
            or header.get("shapes", {}).get("popular") != [n, 64]):
        raise NetError(f"{path}: shapes {keys.shape}, {count.shape}, {popular.shape}, {share.shape} do not fit")
    if n and (keys.min() < 0 or keys.max() >= STRATEGY_KEYS or popular.max() >= PIECE_CODES
              or (np.diff(keys) <= 0).any()):
        raise NetError(f"{path} holds move keys or piece codes out of range")
    known = {"format", "version", "kind", "encoding", "shapes"}
    return StrategyDb(keys.astype(np.int32), count.astype(np.int32), popular.astype(np.uint8),
                      share.astype(np.uint8), {k: v for k, v in header.items() if k not in known})
