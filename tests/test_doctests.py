"""The examples in docstrings are part of the documentation: keep them true."""
import doctest

import pytest

import engine._core
import engine.data.batches
import engine.data.endgame_starts
import engine.data.label
import engine.evaluation.features
import engine.evaluation.weights
import engine.nets
import engine.options
import engine.perft
import engine.protocol
import engine.search_params
import engine.session
import engine.study.adjudication
import engine.study.clock_use
import engine.study.endgame_losses
import engine.study.ordering
import engine.study.paired_gauntlets
import engine.study.sprt_truncation
import engine.study.tree_size
import engine.study.turning_points
import engine.timeman
import engine.tools.frozen
import engine.tools.match_log
import engine.tools.pgn_volumes
import engine.tools.sprt
import engine.tools.sprt_queue
import engine.train.td
import engine.train.tictactoe
import engine.uci

MODULES = [engine._core, engine.data.batches, engine.data.endgame_starts, engine.data.label, engine.study.tree_size, engine.study.clock_use, engine.study.paired_gauntlets, engine.study.endgame_losses,
           engine.study.turning_points, engine.tools.match_log, engine.evaluation.features,
           engine.evaluation.weights, engine.nets, engine.options, engine.perft,
           engine.protocol, engine.session, engine.study.ordering, engine.timeman, engine.train.td,
           engine.train.tictactoe, engine.uci, engine.search_params, engine.tools.frozen,
           engine.tools.pgn_volumes, engine.study.sprt_truncation, engine.tools.sprt, engine.tools.sprt_queue,
           engine.study.adjudication]     # td_run's phase rule example: engine.nets


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_docstring_examples(module) -> None:
    result = doctest.testmod(module)
    assert result.failed == 0
    assert result.attempted > 0
