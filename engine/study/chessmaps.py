"""``nmm-chess study chessmaps``: what the ChessMaps parts do to the search.

Every position of a few full master games, searched to fixed depths in
game order, as the paper's Table 1 does (it used one 98-position game at
depth 5). Two groups of runs, node counts against the history heuristic:

- orderings (``MoveOrdering``: history, weighted, chessmaps with the hand
  rule's regions and with the regions net's; the engine's defaults
  otherwise (``default_searcher``), and chessmaps at every depth too),
  each search on cleared tables, so every count is reproducible;
- memory: the move chains (short-term: cleared with the hash table before
  each position) and the move tables with 1, 2 or 4 table moves a node
  (long-term: carried from position to position through the games, as over
  a game in play);
- forward pruning (``ForwardPruning``) with a beam of 2, 4 and 8 safe other
  moves, with the memory's moves added, and with the strategy database's
  popular squares (nets/strategy.npz), with its share of pruned moves:
  quiet moves the beam judged by class, pruned, and searched after all for
  the key squares;
- long branches with the memory: how often a reliable path played out and
  ended in quiescence agrees with the node's full search.

Written: ``chessmaps.csv`` (one row per depth and variant) and
``chessmaps.png``.
"""
from __future__ import annotations

import csv
from pathlib import Path

import chess.pgn

from engine._core import Board, LabSearcher
from engine.data.pgn import open_text

VARIANTS = {        # name: (Searcher.configure arguments, tables carried from position to position)
    "history": ({}, False),
    "weighted": ({"ordering": "weighted"}, False),
    "chessmaps": ({"ordering": "chessmaps"}, False),
    "chessmaps, NMMMinDepth 0": ({"ordering": "chessmaps", "nmm_min_depth": 0}, False),
    "chessmaps, regions net": ({"ordering": "chessmaps", "regions": True}, False),
    "chessmaps, regions net, NMMMinDepth 0": ({"ordering": "chessmaps", "nmm_min_depth": 0, "regions": True}, False),
    "chains": ({"move_chains": True}, False),
    "chains + 1 table move": ({"move_chains": True, "move_tables": 1}, True),
    "chains + 2 table moves": ({"move_chains": True, "move_tables": 2}, True),
    "chains + 4 table moves": ({"move_chains": True, "move_tables": 4}, True),
    "1 table move alone": ({"move_tables": 1}, True),
    "pruning, beam 2": ({"forward_pruning": True, "beam_width": 2}, False),
    "pruning, beam 4": ({"forward_pruning": True, "beam_width": 4}, False),
    "pruning, beam 8": ({"forward_pruning": True, "beam_width": 8}, False),
    "pruning 4 + chains + 1 table move": ({"forward_pruning": True, "move_chains": True, "move_tables": 1}, True),
    "pruning 4 + strategy database": ({"forward_pruning": True, "strategy": True}, False),
    "chains + 1 table move + long branches": ({"move_chains": True, "move_tables": 1, "long_branches": True}, True),
}
GAMES_FILE = "masters_pgnmentor_both2500.pgn.gz"


def game_positions(path: Path, games: int) -> list[str]:
    """The FEN before every move but the first of the first ``games`` decided or drawn games."""
    found, taken = [], 0
    with open_text(path) as f:
        while taken < games and (game := chess.pgn.read_game(f)) is not None:
            if game.headers.get("Result") not in ("1-0", "0-1", "1/2-1/2"):
                continue
            board = game.board()
            for move in game.mainline_moves():
                board.push(move)
                if not board.is_game_over():
                    found.append(board.fen())
            taken += 1
    return found


# Every variant starts from the engine's defaults with the study's reference order;
# a variant's own settings go on top (engine.session.default_searcher).
BASE_OPTIONS = {"MoveOrdering": "history"}


def variant_searcher(config: dict, hash_mb: int = 16) -> LabSearcher:
    """A searcher as the UCI engine makes it, ordering by history unless
    ``config`` says otherwise; ``strategy`` and ``regions`` in it load the
    shipped strategy database and regions net, as ForwardPruning and
    ChessMapsRegions net do."""
    from engine.session import default_searcher
    config = dict(config)
    options = dict(BASE_OPTIONS)
    if config.pop("strategy", False):
        options["ForwardPruning"] = True
    if config.pop("regions", False):
        options["ChessMapsRegions"] = "net"
    return default_searcher(hash_mb, options, searcher_class=LabSearcher, **config)


def nodes(fens: list[str], depth: int, config: dict, hash_mb: int = 16) -> tuple[int, dict, dict, dict]:
    """Total nodes over ``fens`` in order; the move-table, pruning and long-branch counters at the end."""
    searcher = variant_searcher(config, hash_mb)
    total = 0
    for fen in fens:
        searcher.clear()                # hash, history, killers, chains; the tables stay
        total += searcher.search(Board(fen), depth=depth)["nodes"]
    return total, searcher.table_stats, searcher.pruning_stats, searcher.long_branch_stats


def run(fens: list[str], depths: list[int], out: Path, log=print) -> list[dict]:
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for depth in depths:
        base = None
        for name, (config, _) in VARIANTS.items():
            total, tables, pruning, branches = nodes(fens, depth, config)
            base = base or total
            share = (pruning["pruned"] - pruning["readded"]) / max(pruning["quiets"], 1)
            rows.append({"depth": depth, "variant": name, "nodes": total, "ratio": round(total / base, 4),
                         "table_tries": tables["tries"], "table_cutoffs": tables["cutoffs"],
                         "reliable_paths": tables["reliable"], "beam_quiets": pruning["quiets"],
                         "pruned": pruning["pruned"], "readded": pruning["readded"],
                         "share_pruned": round(share, 4), "long_branches": branches["played"],
                         "lb_same_verdict": branches["same_verdict"], "lb_same_move": branches["same_move"]})
            log(f"depth {depth} {name:34} {total:>11,} nodes  x{total / base:.3f}"
                + (f"  pruned {share:.1%} of {pruning['quiets']:,} quiet moves judged" if pruning["quiets"] else "")
                + (f"  {branches['played']:,} long branches, {branches['same_verdict'] / branches['played']:.0%} "
                   f"same verdict, {branches['same_move'] / branches['played']:.0%} same move"
                   if branches["played"] else ""))
    with open(out / "chessmaps.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    plot(rows, out / "chessmaps.png")
    return rows


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    depths = sorted({r["depth"] for r in rows})
    names = list(VARIANTS)
    fig, ax = plt.subplots(figsize=(11, 4.5))
    width = 0.8 / len(depths)
    for k, depth in enumerate(depths):
        ratios = [next(r["ratio"] for r in rows if r["depth"] == depth and r["variant"] == n) for n in names]
        ax.bar([i + k * width for i in range(len(names))], ratios, width, label=f"depth {depth}")
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.set_xticks([i + width * (len(depths) - 1) / 2 for i in range(len(names))], names, rotation=25,
                  ha="right")
    ax.set(ylabel="nodes / history's", ylim=(0, 1.2), title="ChessMaps parts: nodes to fixed depth")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
