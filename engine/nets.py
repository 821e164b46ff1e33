"""Weight files: save, load and check them before the search sees a number.

A net is a compressed ``.npz`` holding its arrays and a ``header``: a JSON
text with the format name and version, the kind of net, the input encoding
it was trained for, its shapes, and what is known of its training. Loading
checks all of it and raises NetError with a sentence a user can act on.

>>> import numpy as np, tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.npz"
>>> net = NmmNet("mirrored768", np.zeros((1792, 768), np.float32), np.zeros(1792, np.float32), {})
>>> save_nmm(net, path)
>>> load_nmm(path).encoding
'mirrored768'
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

FORMAT = "nmm-chess-net"
VERSION = 1
REPO = Path(__file__).resolve().parent.parent
NETS_DIR = REPO / "nets"
DEFAULT_NMM = NETS_DIR / "nmm.npz"
NMM_ENCODINGS = {"paper385": 385, "planes769": 769, "mirrored768": 768, "context960": 960}
NMM_OUTPUTS = 1792
DEFAULT_HHWEIGHT = 0.01     # for a net whose header suggests no history weight


class NetError(ValueError):
    """A weight file that cannot be used (missing, corrupt, or for another net)."""


@dataclass
class NmmNet:
    encoding: str
    weights: np.ndarray             # (1792, inputs) float32: one row per from-to output
    bias: np.ndarray                # (1792,) float32
    info: dict = field(default_factory=dict)   # training data, accuracy, score spread, ...

    @property
    def suggested_hhweight(self) -> float:
        """The history weight the trainer derived from the scores' spread."""
        return self.info.get("suggested_hhweight") or DEFAULT_HHWEIGHT


def save_nmm(net: NmmNet, path: Path) -> None:
    header = {"format": FORMAT, "version": VERSION, "kind": "nmm", "encoding": net.encoding,
              "inputs": int(net.weights.shape[1]), "outputs": NMM_OUTPUTS,
              "output_order": "from-major list of the from-to pairs a queen or knight can make",
              "shapes": {"weights": list(net.weights.shape), "bias": list(net.bias.shape)},
              **net.info}
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, header=np.array(json.dumps(header)),
                        weights=net.weights.astype(np.float32), bias=net.bias.astype(np.float32))


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
    if weights.shape != (NMM_OUTPUTS, inputs) or bias.shape != (NMM_OUTPUTS,):
        raise NetError(f"{path}: shapes {weights.shape} and {bias.shape} do not fit {encoding} "
                       f"({NMM_OUTPUTS} x {inputs})")
    if header.get("inputs") != inputs or header.get("outputs") != NMM_OUTPUTS:
        raise NetError(f"{path}: the header's shapes disagree with the encoding {encoding}")
    if not (np.isfinite(weights).all() and np.isfinite(bias).all()):
        raise NetError(f"{path} holds values that are not finite numbers")
    known = {"format", "version", "kind", "encoding", "inputs", "outputs", "output_order", "shapes"}
    info = {k: v for k, v in header.items() if k not in known}
    return NmmNet(encoding, np.ascontiguousarray(weights, np.float32),
                  np.ascontiguousarray(bias, np.float32), info)
