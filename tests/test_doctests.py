"""The examples in docstrings are part of the documentation: keep them true."""
import doctest

import pytest

import engine._core
import engine.options
import engine.perft
import engine.timeman
import engine.uci


@pytest.mark.parametrize("module", [engine._core, engine.options, engine.perft,
                                    engine.timeman, engine.uci], ids=lambda m: m.__name__)
def test_docstring_examples(module) -> None:
    result = doctest.testmod(module)
    assert result.failed == 0
    assert result.attempted > 0
