"""The evaluators' round robin: its tables, and a small tournament that resumes."""
import json

import pytest

from engine.nets import save_td
from engine.study import evaluators
from engine.tools import tournament
from tests.test_td_eval import random_net


def test_standings_and_crosstable():
    pairs = {"a vs b": [1, 1, 0.5, 0], "a vs h": [1, 1, 1, 1], "b vs h": [0.5, 0.5, 0.5, 0.5]}
    table = {s.name: s for s in tournament.standings(pairs, ["a", "b", "h"])}
    assert table["a"].points == 6.5 and table["a"].games == 8
    assert table["h"].points == 2 and table["h"].elo < 0 < table["a"].elo
    cross = tournament.crosstable(pairs, ["a", "b", "h"])
    assert cross[1] == ["a", "x", "2.5-1.5", "4-0"]
    assert cross[3] == ["h", "0-4", "2-2", "x"]


def test_a_store_of_the_first_format_is_read(tmp_path):
    (tmp_path / "pairs.json").write_text(json.dumps({"d-g": [1.0, 0.5]}))
    assert tournament.load_pairs(tmp_path / "pairs.json") == {"d vs g": [1.0, 0.5]}


def test_small_round_robin_resumes(tmp_path):
    nets = tmp_path / "nets"
    save_td(random_net("B", 3, 8), nets / "d.npz")
    save_td(random_net("A", 1, 0, seed=2), nets / "g.npz")
    openings = tmp_path / "openings.epd"
    openings.write_text("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\n"
                        "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq -\n")
    out = tmp_path / "report"
    text = evaluators.run(nets, out, ["d", "g", "h"], 2, openings, 1, 1, "10+0.1", 1, log=lambda *a: None)
    pairs = json.loads((out / "pairs.json").read_text())
    assert sorted(pairs) == ["d vs g", "d vs h", "g vs h"] and all(len(g) == 2 for g in pairs.values())
    assert "depth 1" in text and (out / "standings.png").stat().st_size > 1000
    assert (out / "crosstable.csv").read_text().splitlines()[0] == ",d,g,h"
    # A finished pair is not played again.
    pairs["d vs g"] = [1.0, 1.0]
    (out / "pairs.json").write_text(json.dumps(pairs))
    evaluators.run(nets, out, ["d", "g", "h"], 2, openings, 1, 1, "10+0.1", 1, log=lambda *a: None)
    assert json.loads((out / "pairs.json").read_text())["d vs g"] == [1.0, 1.0]


def test_missing_nets_are_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="no net for a"):
        evaluators.run(tmp_path, tmp_path / "out", ["a", "h"], 2, tmp_path / "x.epd", 1, 2, "1+0", 1)
