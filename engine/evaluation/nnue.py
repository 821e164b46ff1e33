"""The efficiently updatable net (NNUE): its inputs, its integer arithmetic
and its file. The core (ext/nnue.pxi) runs it; this module is the
specification both the core and the trainer (engine/train/nnue.py) follow,
and the exact integer reference the tests hold the core to.

The net: (768 -> H) x 2 -> 1, one output per material bucket.

* Inputs, from each side's view (``view`` 0 White, 1 Black): a piece of
  colour ``c`` and type ``t`` (pawn..king = 0..5) on square ``sq``
  (a1 = 0 ... h8 = 63) is input ``384 * (c != view) + 64 * t + (sq ^ 56 * view)``:
  Black sees the board flipped, its own men first. About 32 inputs a side are on.
* Two accumulators, one per view: ``ft_bias + sum of ft_weight rows`` of the
  inputs that are on (int16). The side to move's comes first.
* The output of bucket ``b = min((men - 2) // 4, BUCKETS - 1)`` (``men``: every
  piece on the board, kings included)::

      s  = sum_h clamp(us[h], 0, QA)^2 * out_weight[b, h]
         + sum_h clamp(them[h], 0, QA)^2 * out_weight[b, H + h]      (int64)
      cp = (s / QA + out_bias[b]) * SCALE / (QA * QB)   (int64, C division toward zero, SCALE rounded)

  In floats (the trainer's view): with a = acc / QA, w = out_weight / QB and
  c = out_bias / (QA * QB), the output is y = sum clamp(a, 0, 1)^2 * w + c, the
  predicted result for the side to move is sigmoid(y), and cp = y * SCALE: SCALE
  is the engine's K, the centipawns of one unit of the logistic, so that the
  net's centipawns mean what the handwritten evaluation's do to the pruning margins.

Quantisation: QA = 255 and QB = 64. The trainer keeps every float weight
within +-CLIP (1.98), so that a sum of 32 first-layer rows stays far inside int16
and an output weight within +-127, as the core's kernels need (load_nnue checks both).

>>> feature(WHITE, 0, 0, 8), feature(BLACK, 0, 0, 8)      # a white pawn on a2
(8, 432)
>>> bucket(32), bucket(2)
(7, 0)
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.nets import FORMAT, VERSION, NetError, read_header
from engine.paths import NETS_DIR

KIND = "nnue"
ENCODING = "psq768-views/1"     # the inputs above; a net trained for other inputs is refused
INPUTS = 768
BUCKETS = 8
QA, QB = 255, 64
CLIP = 1.98
HIDDEN_SIZES = (64, 128, 256, 512)   # what the core runs (a multiple of its 16-lane vectors)
WHITE, BLACK = 0, 1
MAX_MEN = 32                        # on a board the engine accepts: 16 a side
MAX_OUT_WEIGHT = 127                # round(CLIP * QB): the core's output kernel multiplies in int16
DEFAULT_NNUE = NETS_DIR / "nnue.npz"


def feature(view: int, color: int, ptype: int, sq: int) -> int:
    """The input index of a ``color`` ``ptype`` on ``sq`` as ``view`` sees it."""
    return 384 * (color != view) + 64 * ptype + (sq ^ (56 * view))


def bucket(men: int) -> int:
    """The output bucket of a position with ``men`` pieces on the board."""
    return min(max(men - 2, 0) // 4, BUCKETS - 1)


def fen_pieces(fen: str) -> tuple[list[tuple[int, int, int]], int]:
    """The (colour, type, square) triples of a FEN's men, and the side to move.

    >>> fen_pieces("8/8/8/8/8/8/k7/K6Q b - - 0 1")      # white king a1, queen h1; black king a2
    ([(0, 5, 0), (0, 4, 7), (1, 5, 8)], 1)
    """
    placement, turn = fen.split()[:2]
    pieces = []
    for rank, row in enumerate(reversed(placement.split("/"))):
        file = 0
        for char in row:
            if char.isdigit():
                file += int(char)
                continue
            pieces.append((WHITE if char.isupper() else BLACK, "pnbrqk".index(char.lower()), 8 * rank + file))
            file += 1
    return sorted(pieces, key=lambda p: p[2]), WHITE if turn == "w" else BLACK


def active_features(pieces: list[tuple[int, int, int]], view: int) -> list[int]:
    """The inputs that are on, for ``pieces`` as (colour, type, square) triples."""
    return sorted(feature(view, c, t, sq) for c, t, sq in pieces)


@dataclass
class NnueNet:
    """A quantised net, as the core runs it (shapes in the module's docstring)."""
    ft_weight: np.ndarray           # (768, H) int16
    ft_bias: np.ndarray             # (H,) int16
    out_weight: np.ndarray          # (BUCKETS, 2H) int16: the side to move's half first
    out_bias: np.ndarray            # (BUCKETS,) int32
    scale: float                    # centipawns of one unit of the float output (the engine's K)
    info: dict = field(default_factory=dict)    # data, lambda, epochs, validation loss, seed ...

    @property
    def hidden(self) -> int:
        return int(self.ft_weight.shape[1])

    def install(self, searcher) -> None:
        """Make ``searcher`` (engine._core.Searcher) evaluate with this net."""
        searcher.set_nnue(self.ft_weight, self.ft_bias, self.out_weight, self.out_bias, self.scale)

    def accumulators(self, pieces: list[tuple[int, int, int]]) -> tuple[np.ndarray, np.ndarray]:
        """Both views' accumulators (White's, Black's) as int64 arrays."""
        acc = []
        for view in (WHITE, BLACK):
            rows = active_features(pieces, view)
            acc.append(self.ft_bias.astype(np.int64) + self.ft_weight[rows].astype(np.int64).sum(axis=0))
        return acc[0], acc[1]

    def centipawns(self, pieces: list[tuple[int, int, int]], stm: int) -> int:
        """The exact integer score for the side to move: what the core must return."""
        white, black = self.accumulators(pieces)
        us, them = (white, black) if stm == WHITE else (black, white)
        b, h = bucket(len(pieces)), self.hidden
        w = self.out_weight[b].astype(np.int64)
        s = int((np.clip(us, 0, QA) ** 2 * w[:h]).sum() + (np.clip(them, 0, QA) ** 2 * w[h:]).sum())
        out = _cdiv(s, QA) + int(self.out_bias[b])
        return _cdiv(int(out * round(self.scale)), QA * QB)

    def fingerprint(self) -> str:
        """A hash of the arrays and the scale: what the net's scores depend on."""
        h = hashlib.sha256()
        for a in (self.ft_weight, self.ft_bias, self.out_weight, self.out_bias):
            h.update(np.ascontiguousarray(a).tobytes())
        h.update(repr(float(self.scale)).encode())
        return h.hexdigest()[:16]


def _cdiv(a: int, b: int) -> int:
    """C's integer division (toward zero), as the core computes it."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def quantise(ft_weight: np.ndarray, ft_bias: np.ndarray, out_weight: np.ndarray, out_bias: np.ndarray,
             scale: float, info: dict | None = None) -> NnueNet:
    """The integer net of float weights (the trainer's): rounded to QA and QB steps."""
    for name, a in (("ft_weight", ft_weight), ("out_weight", out_weight)):
        if np.abs(a).max(initial=0) > CLIP + 1e-6:
            raise ValueError(f"{name} exceeds +-{CLIP}: the trainer must clip it")
    q = lambda a, s, t: np.ascontiguousarray(np.rint(np.asarray(a, np.float64) * s), t)  # noqa: E731
    return NnueNet(q(ft_weight, QA, np.int16), q(ft_bias, QA, np.int16), q(out_weight, QB, np.int16),
                   q(out_bias, QA * QB, np.int32), float(scale), dict(info or {}))


def save_nnue(net: NnueNet, path: Path) -> None:
    arrays = {"ft_weight": net.ft_weight, "ft_bias": net.ft_bias, "out_weight": net.out_weight,
              "out_bias": net.out_bias}
    header = {"format": FORMAT, "version": VERSION, "kind": KIND, "encoding": ENCODING,
              "architecture": f"({INPUTS}->{net.hidden})x2->1x{BUCKETS} screlu", "inputs": INPUTS,
              "hidden": net.hidden, "buckets": BUCKETS, "qa": QA, "qb": QB, "scale": float(net.scale),
              "shapes": {k: list(v.shape) for k, v in arrays.items()},
              "dtypes": {k: str(v.dtype) for k, v in arrays.items()},
              "sha256": net.fingerprint(), **net.info}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, header=np.array(json.dumps(header)), **arrays)


_KNOWN = {"format", "version", "kind", "encoding", "architecture", "inputs", "hidden", "buckets", "qa", "qb",
          "scale", "shapes", "dtypes", "sha256"}


def load_nnue(path: Path) -> NnueNet:
    """Load and check an NNUE file; NetError says what is wrong with it."""
    header, arrays = read_header(path)
    if header.get("kind") != KIND:
        raise NetError(f"{path} holds a {header.get('kind')!r} net, not an NNUE evaluation")
    if header.get("encoding") != ENCODING:
        raise NetError(f"{path} was trained for inputs {header.get('encoding')!r}; this engine computes {ENCODING!r}")
    hidden = header.get("hidden")
    if header.get("inputs") != INPUTS or header.get("buckets") != BUCKETS or hidden not in HIDDEN_SIZES:
        raise NetError(f"{path}: {header.get('architecture')!r} is not a net this engine runs "
                       f"({INPUTS} inputs, {BUCKETS} buckets, hidden one of {HIDDEN_SIZES})")
    if header.get("qa") != QA or header.get("qb") != QB:
        raise NetError(f"{path} is quantised with QA {header.get('qa')!r}, QB {header.get('qb')!r}; "
                       f"this engine computes with {QA} and {QB}")
    scale = header.get("scale")
    if not isinstance(scale, (int, float)) or not 10 <= scale <= 2000:
        raise NetError(f"{path}: scale {scale!r} is not a usable number of centipawns")
    expected = {"ft_weight": ((INPUTS, hidden), np.int16), "ft_bias": ((hidden,), np.int16),
                "out_weight": ((BUCKETS, 2 * hidden), np.int16), "out_bias": ((BUCKETS,), np.int32)}
    for name, (shape, dtype) in expected.items():
        a = arrays.get(name)
        if a is None:
            raise NetError(f"{path} lacks {name}")
        if a.shape != shape or a.dtype != dtype:
            raise NetError(f"{path}: {name} is {a.dtype}{list(a.shape)}, expected {np.dtype(dtype)}{list(shape)}")
    net = NnueNet(*(np.ascontiguousarray(arrays[k]) for k in expected), float(scale),
                  {k: v for k, v in header.items() if k not in _KNOWN})
    if header.get("sha256") != net.fingerprint():
        raise NetError(f"{path}: its numbers do not match the hash in its header (a damaged or edited file)")
    if np.abs(net.out_weight.astype(np.int32)).max() > MAX_OUT_WEIGHT:
        raise NetError(f"{path}: output weights beyond +-{MAX_OUT_WEIGHT} (the trainer clips at +-{CLIP}); "
                       f"the engine's integer arithmetic cannot take them")
    largest = np.sort(np.abs(net.ft_weight.astype(np.int32)), axis=0)[-MAX_MEN:].sum(axis=0)
    if (np.abs(net.ft_bias.astype(np.int32)) + largest).max() > np.iinfo(np.int16).max:
        raise NetError(f"{path}: first-layer weights so large that an accumulator of {MAX_MEN} men could "
                       f"leave int16 (the trainer clips at +-{CLIP})")
    return net
